/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The decision log (kata-guard(8), DECISION LOG): one line per guarded start (shim `start`, OCI
 * `create`/`run`) to syslog and, when [log] file is set, one JSON line
 * appended to that file.  A decision that cannot be logged is still
 * enforced: logging never changes the verdict and never prints.
 */
#ifndef KG_DECISION_H
#define KG_DECISION_H

#include <stdbool.h>

#include "error.h"
#include "output.h"
#include "result.h"

/* Where the decision goes: the [log] keys, or their defaults when the guard
   config did not load (syslog on, no file). */
struct decision_sink
{
  bool syslog;
  const char *file; /* NULL or "" = no file */
};

/* Write D's lines, as output_decision_lines (output.h) renders them all
   at once, where SINK says: the log goes one way, output renders and
   this routes, reading nothing of D itself. */
void decision_log (const struct decision *d, const struct decision_sink *sink);
/* Whether [policy] mode MODE lets a start that REP refuses through:
   "audit", and every failure is one whose refusal reaches only the
   container's own VM (its result's reach, result.h: a policy.* rule's
   on capabilities, seccomp, the memory limit, confinement), never one
   that reaches the host, another container or the count, and never a
   host check's. */
bool decision_audit_allows (const char *mode, const struct report *rep);

/* The engine's runc --log file (wrapper.c): the engine names it, in its
   own state directory, and reads it back.  Append LINE to the log file PATH with a single write () (concurrent
   writers never interleave within a line).  The file is created 0600 and
   must be a regular file; a symlink in its place is refused (O_NOFOLLOW),
   and a FIFO cannot block (O_NONBLOCK). */
int log_append_line (const char *path, const char *line, kg_error_t *err);

#endif
