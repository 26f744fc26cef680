/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The runtime wrapper (kata-guard(8), MODES): the shim v2 mode
 * (shim_v2.c), the OCI runtime mode (oci.c) and what they share
 * (wrapper.c): a guarded start runs every check and then either executes
 * the checked runtime (exec.c) or refuses; anything else passes straight
 * through to the real runtime.
 */
#ifndef KG_WRAPPER_H
#define KG_WRAPPER_H

#include <stdbool.h>
#include <stddef.h>

#include "request.h"
#include "result.h"

/* ---- the modes (main.c dispatches) ---- */

int shim_v2_main (int argc, char **argv);
int oci_main (int argc, char **argv);

/* ---- shared by both modes (wrapper.c) ---- */

/* The bytes read from stdin (BUF, LEN) go on to the real runtime as what
   it reads there: a sealed memfd in place of fd 0, so that it reads
   exactly what the guard judged (the shim's options, runc update's
   --resources). */
int wrapper_refeed_stdin (const char *buf, size_t len, kg_error_t *err);

/* Where the wrapper's own messages go. */
struct channel
{
  enum kg_mode mode;
  const char *log;   /* OCI: runc's --log file, or NULL */
  bool log_json;     /* OCI: --log-format json */
  const char *scope; /* the containers' scope (record.h): OCI --root, shim namespace */
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
