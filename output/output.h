/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The one place that turns a report into text for each output channel. */
#ifndef KG_OUTPUT_H
#define KG_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <time.h>

#include "error.h"
#include "facts.h"
#include "mode.h"
#include "result.h"

/* `kata-guard check`: one line per check, verdict first; colour only when
   COLOR is true (the caller decides: a tty, and NO_COLOR unset). */
void output_text (FILE *out, const struct report *r, bool color);
/* `kata-guard check --json`: {"verdict": ..., "config": ..., "files": [...],
   "checks": [{"id", "verdict", "reason", "remedy"}, ...]}. */
int output_json (FILE *out, const struct report *r, const char *config_path);
/* The JSON written when the configuration itself cannot be used. */
int output_json_error (FILE *out, const char *config_path, const char *message);
/* `kata-guard check --format prometheus`: node_exporter's textfile format.
   SECONDS is how long the run took, NOW when it ran.  REP and FACTS are
   NULL when the configuration could not be used (then kata_guard_config_ok
   is 0); the facts' series are there when they were read. */
void output_prometheus (FILE *out, const struct report *rep, const struct facts *facts,
                        double seconds, long long now);

/* `kata-guard check --nfd`: a Node Feature Discovery feature file (its
   local source's features.d format), written at NOW: an expiry directive
   (NOW + OUTPUT_NFD_LIFETIME), then one kata-guard.io/NAME=VALUE line per
   label, each a valid Kubernetes label (kata-guard(8), Node labels). */
void output_nfd (FILE *out, const struct report *rep, const struct facts *facts, long long now);
/* output_nfd into PATH, replaced whole by the guard's writer (writer.h:
   root's, 0644, no symlink, atomic); -1 with *ERR. */
int output_nfd_write (const char *path, const struct report *rep, const struct facts *facts,
                      long long now, kg_error_t *err);
/* Whether a failure of check ID is the host's, whatever the container
   asks: kvm.*, kata.*, assets.*, egress.* (the proxy, probed from the
   host), drift.*, storage.pool and config.  A start refused by one
   rewrites [nfd] file to posture=fail (wrapper.c); a start refused only
   by what its spec asks (policy.*, storage.snapshotter, the sandbox's
   answer, the checker's deadline) never does: whoever writes a spec must
   not be able to close the node's gate for everyone. */
bool output_host_check (const char *id);
/* A feature file that is not refreshed stops labelling the node: a stale
   posture=pass must not keep pods on a node nobody checks any more. */
#define OUTPUT_NFD_LIFETIME 600
/* NFD ignores a larger feature file (its MaxFeatureFileSize). */
#define OUTPUT_NFD_MAX 65536
/* Whether colour suits the stream F. */
bool output_want_color (FILE *f);

/* ---- the runtime wrapper's channels (kata-guard(8), MESSAGES) ---- */

/* Longest refusal text, terminator excluded, counted as a JSON string
   takes it ('"' and '\\' two bytes each).  The tightest engine sets it:
   conmon (2.1.6, 2.1.12, 2.1.13) hands podman (4.3, 5.4, 5.8) the
   runtime's stderr as one line {"data": -1, "message": "..."} of which
   podman reads a whole message only up to about 4060 bytes (measured;
   beyond it podman shows its own JSON error).  Docker 20.10, 26 and 28
   (a path runtime; 26 and 28 a runtimeType one too) and ctr on
   containerd 1.6, 1.7 and 2.1 show 20000 bytes whole.  With its newline it is also one atomic pipe write
   (PIPE_BUF), which conmon reads with one read (2). */
#define KG_REFUSAL_MAX 4000

/* The refusal, one line without a newline, within KG_REFUSAL_MAX:
   "kata-guard: refusing to start container ID: " then, when more than
   one check failed, "N checks failed: CHECK, CHECK, ...; " (every failed
   id, most actionable first: the enforced ones, and of them those with a
   remedy, first), then "CHECK: REASON (remedy: REMEDY)" for each, joined
   by "; ".  To fit, the reasons are shortened alike first (to 64 bytes at
   the least), then the remedies, then the last checks' parts are left
   out (their ids stay in the list).  Under AUDIT ([policy] mode =
   "audit") the failures audit mode alone would let through come last,
   each marked " (audit only)".  Control characters become '?'.  Returns a
   malloc'd string, or NULL when memory ran out.  The decision log has
   every reason and remedy whole (output_decision_json, _syslog). */
char *output_refusal (const struct report *r, const char *container_id, bool audit);
/* A message of the wrapper's own ("kata-guard: WHAT"), cleaned and bounded
   the same way. */
char *output_message (const char *fmt, ...) __attribute__ ((format (printf, 1, 2)));

/* A line for runc's --log file, newline included: with JSON
   {"level":"error","msg":MSG,"time":RFC3339}, else logrus's text form
   time="RFC3339" level=error msg="MSG".  NULL when memory ran out. */
char *output_runc_log (const char *msg, bool json, const struct timespec *when);

/* One guarded start's decision, as the decision log's lines say it
   (decision.h writes them where [log] says). */
struct decision
{
  enum kg_mode mode;        /* KG_MODE_SHIM or KG_MODE_OCI */
  const char *ns;           /* containerd namespace, or NULL */
  const char *container_id; /* or NULL when the arguments had none */
  bool allow;
  /* [policy] mode = "audit" let it through: only policy.* rules refused
     it (ALLOW is then true).  Logged as "would-refuse". */
  bool audited;
  bool audit_mode; /* [policy] mode = "audit" (the refusal marks what it alone lets through) */
  const struct report *rep; /* failing and warning ids, and the files read */
  const char *guard_config; /* the guard config path */
  const char *kata_config;  /* the Kata config the checks used, or NULL */
  const char *message;      /* the refusal text, NULL when allowed */
  const char *options_type; /* type URL of stdin runtime options, or NULL */
  struct timespec when;     /* CLOCK_REALTIME */
};

/* "allow", "refuse" or "would-refuse": the decision's own word. */
static inline const char *
decision_verdict (const struct decision *d)
{
  if (d->audited)
    return "would-refuse";
  return d->allow ? "allow" : "refuse";
}

/* The decision log's lines: one JSON object and a newline (the [log]
   file), and one syslog message (key=value pairs).  Each carries every
   failure and warning with its reason and remedy whole ("checks"), as
   the report has them: what the engine's message had to shorten. */
char *output_decision_json (const struct decision *d);
char *output_decision_syslog (const struct decision *d);

/* The decision log's lines for D, rendered here whole, so that its
   writer (decision.c) reads nothing of D but routes lines: the syslog
   message at LEVEL (LOG_INFO for a start allowed without warnings, else
   LOG_WARNING), with SYSLOG, and the [log] file's line, with JSON: only
   the lines asked for are rendered.  Where memory ran out a line is NULL
   and FALLBACK says so at LOG_ERR (syslog). */
struct decision_lines
{
  char *syslog, *json;
  int level;
  char fallback[160];
};
void output_decision_lines (const struct decision *d, bool syslog, bool json,
                            struct decision_lines *out);
void decision_lines_release (struct decision_lines *l);
#define cleanup_decision_lines __attribute__ ((cleanup (decision_lines_release)))

/* UTC RFC 3339, "2006-01-02T15:04:05Z", with MILLIS ".000" before the Z.
   SIZE >= 32. */
void output_rfc3339 (char *buf, size_t size, const struct timespec *when, bool millis);

#endif
