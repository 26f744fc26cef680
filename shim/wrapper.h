/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The runtime wrapper (kata-guard(8), SPEC 1, 2, 6): the shim v2 mode
 * (shim_v2.c), the OCI runtime mode (oci.c) and what they share (exec.c):
 * a guarded start runs every check and then either executes the checked
 * runtime or refuses; anything else passes straight through to the real
 * runtime.
 */
#ifndef KG_WRAPPER_H
#define KG_WRAPPER_H

#include <stdbool.h>
#include <stddef.h>

#include "checks.h"
#include "result.h"

/* ---- argument parsers (exposed for the unit tests) ---- */

/* Flags in Go's flag package style: "-x v", "--x v", "-x=v"; a bool flag
   takes no separate value ("-x", "-x=true"); parsing stops at the first
   non-flag argument or after "--". */
enum goflag_type
{
  GOFLAG_BOOL,
  GOFLAG_STRING,
};

struct goflag
{
  const char *name;
  enum goflag_type type;
  int slot;  /* index into the caller's value array */
};

/* What one flag argument meant. */
enum goflag_status
{
  GOFLAG_OK,        /* a known flag, value taken */
  GOFLAG_NOT_FLAG,  /* not a flag: the first positional argument */
  GOFLAG_END,       /* "--": flags end, it is consumed */
  GOFLAG_UNKNOWN,   /* a flag this table does not hold (also -h / -help) */
  GOFLAG_BAD,       /* malformed: "---x", "-=x", missing value, bad bool */
};

/* Parse the one flag at ARGV[*I] (advancing *I past it and its value)
   against TABLE; STRS[slot] / BOOLS[slot] receive the value (the last of
   a repeated flag wins, as in Go).  For GOFLAG_UNKNOWN and GOFLAG_BAD,
   *WHY says what is wrong. */
enum goflag_status goflag_one (const struct goflag *table, size_t n, int argc, char **argv,
                               int *i, const char **strs, bool *bools, const char **why);
/* Go's strconv.ParseBool. */
int goflag_parse_bool (const char *s, bool *out);

/* containerd's shim flags. */
struct shim_args
{
  const char *ns, *address, *publish_binary, *id, *bundle, *socket;
  bool debug, version, info;
  const char *action;  /* the first non-flag argument, or NULL (daemon form) */
  const char *bad;     /* the first argument Go's flag package would refuse, or NULL */
  const char *bad_why; /* what is wrong with it */
  bool start;          /* the action is "start" (or, after a bad flag, "start" is
                          among the arguments: treated as a start, and refused) */
};
void shim_parse_args (int argc, char **argv, struct shim_args *a);

/* runc's global flags, then the subcommand and, for create and run, its
   flags and the container id. */
struct oci_args
{
  const char *root, *log, *log_format, *criu, *rootless;
  bool debug, systemd_cgroup, version, help;
  const char *command;  /* the subcommand, or NULL */
  const char *bad;      /* the first argument runc would refuse, or NULL */
  const char *bad_why;  /* what is wrong with it */
  bool guarded;         /* create or run (also after a bad argument when either
                           word is among the arguments) */
  /* create / run: */
  const char *bundle, *pid_file, *console_socket;
  const char *id;
};
void oci_parse_args (int argc, char **argv, struct oci_args *a);

/* ---- the modes (main.c dispatches) ---- */

int shim_v2_main (int argc, char **argv);
int oci_main (int argc, char **argv);

/* ---- shared by both modes (exec.c) ---- */

/* The bytes read from stdin (BUF, LEN) go on to the real runtime as what
   it reads there: a sealed memfd in place of fd 0, so that it reads
   exactly what the guard judged (the shim's options, runc update's
   --resources). */
int wrapper_refeed_stdin (const char *buf, size_t len, kg_error_t *err);

/* Where the wrapper's own messages go. */
struct channel
{
  enum kg_mode mode;
  const char *log;    /* OCI: runc's --log file, or NULL */
  bool log_json;      /* OCI: --log-format json */
  const char *scope;  /* the containers' scope (record.h): OCI --root, shim namespace */
};

/* Write MSG (one line, no newline) to stderr and, in OCI mode, append it
   to the --log file as an error line. */
void wrapper_say (const struct channel *ch, const char *msg);

/* A guarded start.  PRE holds failures the entry point found itself
   (arguments, stdin options); when it has any, no check runs.  Otherwise
   the guard config is loaded and every check family runs for REQ.  On
   pass ARGV is executed (argv[0] replaced by the configured runtime) and
   this does not return; on refusal the message goes to CH and the exit
   status is returned.  One decision line is logged either way. */
int wrapper_start (const struct request *req, struct report *pre, const struct channel *ch,
                   const char *options_type, char **argv);

/* Pass ARGV straight to the real runtime for CH->mode without any host
   check (teardown, introspection): RECORDED (malloc'd, taken over), the
   runtime that started CONTAINER_ID as its record says (record.h), when
   the caller found one, else the configured one.  The file executed
   still passes the trusted-path walk.  WHAT and CONTAINER_ID name the
   call in messages; a "delete" of a recorded container runs the runtime
   as a child and forgets the record when it succeeds.  Returns the exit
   status on failure; does not return on success. */
int wrapper_passthrough (const struct channel *ch, const char *what, const char *container_id,
                         char *recorded, char **argv);

/* The runtime path for a pass-through when the guard config did not load:
   [runtime] KEY of the file if it at least parses as TOML, else the
   built-in default (shim) or "" (oci).  Returns a malloc'd string. */
char *wrapper_fallback_runtime (const char *config_path, enum kg_mode mode);

#endif
