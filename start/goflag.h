/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The engines' command lines, as the real runtimes parse them: Go's flag
 * package (containerd's shims; runc's urfave/cli v1 over it), the shim v2
 * flags, runc's global flags and those of create, run, exec and update.
 * Parsing only: what a call means is decided in shim_v2.c and oci.c.
 */
#ifndef KG_GOFLAG_H
#define KG_GOFLAG_H

#include <stdbool.h>
#include <stddef.h>

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
  int slot; /* index into the caller's value array */
};

/* What one flag argument meant. */
enum goflag_status
{
  GOFLAG_OK,       /* a known flag, value taken */
  GOFLAG_NOT_FLAG, /* not a flag: the first positional argument */
  GOFLAG_END,      /* "--": flags end, it is consumed */
  GOFLAG_UNKNOWN,  /* a flag this table does not hold (also -h / -help) */
  GOFLAG_BAD,      /* malformed: "---x", "-=x", missing value, bad bool */
};

/* Parse the one flag at ARGV[*I] (advancing *I past it and its value)
   against TABLE; STRS[slot] / BOOLS[slot] receive the value (the last of
   a repeated flag wins, as in Go).  For GOFLAG_UNKNOWN and GOFLAG_BAD,
   *WHY says what is wrong. */
enum goflag_status goflag_one (const struct goflag *table, size_t n, int argc, char **argv, int *i,
                               const char **strs, bool *bools, const char **why);
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
  const char *command; /* the subcommand, or NULL */
  const char *bad;     /* the first argument runc would refuse, or NULL */
  const char *bad_why; /* what is wrong with it */
  bool guarded;        /* create or run (also after a bad argument when either
                           word is among the arguments) */
  /* create / run: */
  const char *bundle, *pid_file, *console_socket;
  const char *id;
};
void oci_parse_args (int argc, char **argv, struct oci_args *a);

/* runc exec's and update's flags, where they can widen a container: the
   container id, exec's --cap values (in order) and --process, update's
   --resources (and the index of its flag in ARGV) and the limits it may
   set by flag. */
struct oci_call_args
{
  const char *id;
  const char *bad;     /* the first argument runc would refuse, or NULL */
  const char *bad_why; /* what is wrong with it */
  const char **caps;   /* exec: malloc'd, N_CAPS entries */
  size_t n_caps;
  const char *process;   /* exec */
  const char *resources; /* update */
  int resources_at;      /* update: ARGV index of the --resources flag, or -1 */
  const char *memory, *memory_swap, *cpu_quota, *cpu_period; /* update */
  const char *cpuset_cpus, *cpuset_mems;                     /* update */
  const char *l3_cache_schema, *mem_bw_schema;               /* update: Intel RDT */
};
/* Parse the arguments after runc's subcommand at ARGV[I] ("exec" with
   EXEC, else "update").  Returns -1 when memory runs out; C->caps is the
   caller's to free. */
int oci_parse_call (int argc, char **argv, int i, bool exec, struct oci_call_args *c);

#endif
