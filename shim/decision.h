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
#include <time.h>

#include "checks.h"
#include "error.h"
#include "result.h"

struct decision
{
  enum kg_mode mode;           /* KG_MODE_SHIM or KG_MODE_OCI */
  const char *ns;              /* containerd namespace, or NULL */
  const char *container_id;    /* or NULL when the arguments had none */
  bool allow;
  /* [policy] mode = "audit" let it through: only policy.* rules refused
     it (ALLOW is then true).  Logged as "would-refuse". */
  bool audited;
  const struct report *rep;    /* failing and warning ids, and the files read */
  const char *guard_config;    /* the guard config path */
  const char *kata_config;     /* the Kata config the checks used, or NULL */
  const char *message;         /* the refusal text, NULL when allowed */
  const char *options_type;    /* type URL of stdin runtime options, or NULL */
  struct timespec when;        /* CLOCK_REALTIME */
};

/* Where the decision goes: the [log] keys, or their defaults when the guard
   config did not load (syslog on, no file). */
struct decision_sink
{
  bool syslog;
  const char *file;  /* NULL or "" = no file */
};

void decision_log (const struct decision *d, const struct decision_sink *sink);
/* "allow", "refuse" or "would-refuse": the decision's own word, which
   its formatters (output.c) print; in the header, so that they need
   nothing of decision.c, which calls them. */
static inline const char *
decision_verdict (const struct decision *d)
{
  if (d->audited)
    return "would-refuse";
  return d->allow ? "allow" : "refuse";
}
/* Whether [policy] mode MODE lets a start that REP refuses through:
   "audit", and every failure is a per-container policy.* rule's (never a
   host check's: kvm, kata, assets, egress, drift, the start's own). */
bool decision_audit_allows (const char *mode, const struct report *rep);

/* Append LINE to the log file PATH with a single write () (concurrent
   writers never interleave within a line).  The file is created 0600 and
   must be a regular file; a symlink in its place is refused (O_NOFOLLOW),
   and a FIFO cannot block (O_NONBLOCK). */
int log_append_line (const char *path, const char *line, kg_error_t *err);

#endif
