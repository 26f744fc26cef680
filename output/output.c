/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include "array.h"
#include "buf.h"
#include "cleanup.h"
#include "error.h"
#include "jsonc.h"
#include "output.h"
#include "text.h"
#include "writer.h"

static const char *
verdict_color (enum verdict v)
{
  switch (v)
    {
    case VERDICT_PASS:
      return "\033[32m";
    case VERDICT_WARN:
      return "\033[33m";
    case VERDICT_FAIL:
      return "\033[1;31m";
    case VERDICT_SKIP:
      return "\033[2m";
    }
  return "";
}

bool
output_want_color (FILE *f)
{
  const char *term = getenv ("TERM");
  const char *no = getenv ("NO_COLOR");

  if (no != NULL && *no != '\0')
    return false;
  if (term == NULL || strcmp (term, "dumb") == 0)
    return false;
  return isatty (fileno (f));
}

/* Reasons can quote what others wrote (paths from a Kata config): never let
   a control character break the one-line-per-check layout or reach the
   terminal. */
static void
put_clean (FILE *out, const char *s)
{
  for (const unsigned char *p = (const unsigned char *) s; *p; p++)
    fputc (kg_is_ctl (*p) ? '?' : *p, out);
}

void
output_text (FILE *out, const struct report *r, bool color)
{
  int width = 0;

  if (r->policy_mode != NULL)
    fprintf (out, "mode: %s%s\n", r->policy_mode,
             strcmp (r->policy_mode, "audit") == 0
                 ? " ([policy] mode: a start that only the per-container policy.* rules refuse "
                   "is allowed and logged as would-refuse; host checks still refuse)"
                 : "");

  for (size_t i = 0; i < r->n; i++)
    {
      int l = (int) strlen (r->results[i].id);
      if (l > width)
        width = l;
    }
  for (size_t i = 0; i < r->n; i++)
    {
      const struct check_result *c = &r->results[i];

      fprintf (out, "%s%-4s%s  %-*s  ", color ? verdict_color (c->verdict) : "",
               verdict_name (c->verdict), color ? "\033[0m" : "", width, c->id);
      put_clean (out, c->reason);
      if (c->verdict != VERDICT_PASS && c->remedy != NULL)
        {
          fputs (" (remedy: ", out);
          put_clean (out, c->remedy);
          fputc (')', out);
        }
      fputc ('\n', out);
    }
  if (r->oom)
    fprintf (out, "fail  out of memory: the report is incomplete\n");
  fprintf (out, "verdict: %s (%zu pass, %zu warn, %zu fail, %zu skip)\n",
           verdict_name (report_overall (r)), report_count (r, VERDICT_PASS),
           report_count (r, VERDICT_WARN), report_count (r, VERDICT_FAIL),
           report_count (r, VERDICT_SKIP));
}

static int
add_string (json_object *obj, const char *key, const char *val)
{
  json_object *s = val ? json_object_new_string (val) : NULL;

  if (val != NULL && s == NULL)
    return -1;
  return json_object_object_add (obj, key, s);
}

static int
print_json (FILE *out, json_object *root)
{
  const char *s = json_object_to_json_string_ext (root, JSON_C_TO_STRING_PRETTY
                                                            | JSON_C_TO_STRING_SPACED
                                                            | JSON_C_TO_STRING_NOSLASHESCAPE);

  if (s == NULL)
    return -1;
  fprintf (out, "%s\n", s);
  return 0;
}

/* C as {"id", "verdict", "reason", "remedy"} appended to the array A
   (check --json's "checks", the decision log's). */
static int
add_check (json_object *a, const struct check_result *c)
{
  json_object *o = json_object_new_object ();

  if (o == NULL || json_object_array_add (a, o) < 0)
    {
      json_object_put (o);
      return -1;
    }
  if (add_string (o, "id", c->id) < 0 || add_string (o, "verdict", verdict_name (c->verdict)) < 0
      || add_string (o, "reason", c->reason) < 0 || add_string (o, "remedy", c->remedy) < 0)
    return -1;
  return 0;
}

int
output_json (FILE *out, const struct report *r, const char *config_path)
{
  cleanup_json json_object *root = json_object_new_object ();
  json_object *checks = json_object_new_array ();
  json_object *files = json_object_new_array ();

  /* Attach the arrays first, so that root owns them on every path. */
  if (root == NULL || checks == NULL || files == NULL
      || json_object_object_add (root, "verdict",
                                 json_object_new_string (verdict_name (report_overall (r))))
             < 0
      || add_string (root, "config", config_path) < 0
      || (r->policy_mode != NULL && add_string (root, "mode", r->policy_mode) < 0)
      || json_object_object_add (root, "files", files) < 0)
    {
      json_object_put (checks);
      if (root == NULL)
        json_object_put (files);
      return -1;
    }
  if (json_object_object_add (root, "checks", checks) < 0)
    {
      json_object_put (checks);
      return -1;
    }
  for (size_t i = 0; i < r->n_files; i++)
    if (json_object_array_add (files, json_object_new_string (r->files[i])) < 0)
      return -1;
  for (size_t i = 0; i < r->n; i++)
    if (add_check (checks, &r->results[i]) < 0)
      return -1;
  return print_json (out, root);
}

int
output_json_error (FILE *out, const char *config_path, const char *message)
{
  cleanup_json json_object *root = json_object_new_object ();

  if (root == NULL || add_string (root, "verdict", "error") < 0
      || add_string (root, "config", config_path) < 0 || add_string (root, "error", message) < 0)
    return -1;
  return print_json (out, root);
}

/* ---- the runtime wrapper's channels ------------------------------------ */

/* A bounded line: a kg_buf of at most CAP - 1 bytes, all of them
   allocated here.  What does not fit is cut (sbuf_put), never failed,
   so this is the one allocation that can fail: a caller gets its line
   (cut to fit) or NULL, never a line cut short by memory. */
static bool
sbuf_init (struct kg_buf *b, size_t cap)
{
  *b = (struct kg_buf){ .max = cap - 1 };
  return kg_buf_reserve (b, b->max) == 0;
}

/* Room left in B (an unbounded one, MAX 0, has all). */
static size_t
sbuf_room (const struct kg_buf *b)
{
  return b->max == 0 ? SIZE_MAX : b->max - b->len;
}

/* Append at most MAX bytes of S (control characters become '?'), cutting
   on a UTF-8 character boundary and marking a cut with "...". */
static void
sbuf_put (struct kg_buf *b, const char *s, size_t max)
{
  size_t n = strlen (s), room = sbuf_room (b), at = b->len;
  size_t limit = max < room ? max : room;
  bool cut = n > limit;

  if (cut)
    {
      n = limit >= 3 ? limit - 3 : 0;
      while (n > 0 && ((unsigned char) s[n] & 0xc0) == 0x80)
        n--;
    }
  kg_buf_add (b, s, n);
  for (size_t i = at; i < b->len; i++)
    if (kg_is_ctl ((unsigned char) b->s[i]))
      b->s[i] = '?';
  if (cut)
    kg_buf_add (b, "...", sbuf_room (b) < 3 ? sbuf_room (b) : 3);
}

/* The refusal's layout (kata-guard(8), MESSAGES): every failed id in the
   list that leads it, then each check's part, "ID: REASON (remedy:
   REMEDY)", while they fit.  What is shortened to fit: the reasons first
   (alike, down to REFUSAL_TEXT_MIN), then the remedies, then the parts of
   the least actionable checks are left out (their ids stay listed). */
#define REFUSAL_ID_MAX 128
#define REFUSAL_TEXT_MIN 64
#define AUDIT_ONLY " (audit only)"

/* Whether result C is one audit mode lets through (AUDIT: [policy]
   mode = "audit"): a rule whose refusal stays inside the container's VM. */
static bool
audit_only (const struct check_result *c, bool audit)
{
  return audit && c->reach == REACH_VM;
}

/* The failures of R, most actionable first: the enforced ones before
   those audit mode alone would let through, and of each, those with a
   remedy before those without; the report's order otherwise. */
static size_t
refusal_order (const struct report *r, bool audit, const struct check_result **out)
{
  size_t n = 0;

  for (int rank = 0; rank < 4; rank++)
    for (size_t i = 0; i < r->n; i++)
      {
        const struct check_result *c = &r->results[i];

        if (c->verdict == VERDICT_FAIL
            && 2 * (int) audit_only (c, audit) + (c->remedy == NULL) == rank)
          out[n++] = c;
      }
  return n;
}

static void
put_id (struct kg_buf *b, const struct check_result *c, bool audit)
{
  sbuf_put (b, c->id, REFUSAL_ID_MAX);
  if (audit_only (c, audit))
    sbuf_put (b, AUDIT_ONLY, SIZE_MAX);
}

/* Whether FAILED[I]'s id is an earlier one's (an id can fail twice). */
static bool
id_repeats (const struct check_result *const *failed, size_t i)
{
  for (size_t j = 0; j < i; j++)
    if (strcmp (failed[j]->id, failed[i]->id) == 0)
      return true;
  return false;
}

/* One layout of a refusal: how much of each reason and remedy it keeps
   (SIZE_MAX: all), how many checks get a part, how many ids the list
   names (the rest counted). */
struct refusal_fit
{
  const struct report *r;
  const char *container_id;
  bool audit;
  const struct check_result *const *failed;
  size_t n, distinct;
  size_t reason, remedy, parts, listed;
  struct kg_buf b; /* unbounded: the layout is measured, then kept or redone */
};

static void
refusal_layout (struct refusal_fit *f)
{
  struct kg_buf *b = &f->b;
  size_t listed = 0;

  b->len = 0;
  if (b->s != NULL)
    b->s[0] = '\0';
  sbuf_put (b, "kata-guard: refusing to start container ", SIZE_MAX);
  sbuf_put (b, f->container_id && *f->container_id ? f->container_id : "(no id)", REFUSAL_ID_MAX);
  sbuf_put (b, ": ", SIZE_MAX);
  if (f->distinct > 1)
    {
      char head[64];

      snprintf (head, sizeof head, "%zu checks failed: ", f->distinct);
      sbuf_put (b, head, SIZE_MAX);
      for (size_t i = 0; i < f->n && listed < f->listed; i++)
        if (! id_repeats (f->failed, i))
          {
            if (listed++ > 0)
              sbuf_put (b, ", ", SIZE_MAX);
            put_id (b, f->failed[i], f->audit);
          }
      if (listed < f->distinct)
        {
          snprintf (head, sizeof head, "%s%zu more", listed > 0 ? ", and " : "",
                    f->distinct - listed);
          sbuf_put (b, head, SIZE_MAX);
        }
    }
  for (size_t i = 0; i < f->parts; i++)
    {
      const struct check_result *c = f->failed[i];

      if (i > 0 || f->distinct > 1)
        sbuf_put (b, "; ", SIZE_MAX);
      put_id (b, c, f->audit);
      sbuf_put (b, ": ", SIZE_MAX);
      sbuf_put (b, c->reason, f->reason);
      if (c->remedy != NULL)
        {
          sbuf_put (b, " (remedy: ", SIZE_MAX);
          sbuf_put (b, c->remedy, f->remedy);
          sbuf_put (b, ")", SIZE_MAX);
        }
    }
  if (f->r->oom)
    sbuf_put (b, "; the report is incomplete (out of memory)", SIZE_MAX);
}

/* How many of the first LEN bytes of S fit in COST bytes of conmon's
   JSON line ('"' and '\\' escaped: two bytes each); LEN when all do. */
static size_t
json_fit (const char *s, size_t len, size_t cost)
{
  size_t used = 0;

  for (size_t i = 0; i < len; i++)
    {
      used += s[i] == '"' || s[i] == '\\' ? 2 : 1;
      if (used > cost)
        return i;
    }
  return len;
}

/* Whether the layout F now describes fits KG_REFUSAL_MAX as conmon's
   JSON line carries it.  Memory running out ends the search (the caller
   returns NULL). */
static bool
refusal_fits (struct refusal_fit *f)
{
  refusal_layout (f);
  return f->b.failed || json_fit (f->b.s, f->b.len, KG_REFUSAL_MAX) == f->b.len;
}

/* *FIELD set to the largest value in [LO, HI] with which F fits (LO when
   none does). */
static void
refusal_largest (struct refusal_fit *f, size_t *field, size_t lo, size_t hi)
{
  while (lo < hi)
    {
      size_t mid = lo + (hi - lo + 1) / 2;

      *field = mid;
      if (refusal_fits (f))
        lo = mid;
      else
        hi = mid - 1;
    }
  *field = lo;
}

char *
output_refusal (const struct report *r, const char *container_id, bool audit)
{
  cleanup_free const struct check_result **failed = calloc (r->n + 1, sizeof *failed);
  struct refusal_fit f = { .r = r, .container_id = container_id, .audit = audit };
  size_t longest = REFUSAL_TEXT_MIN;

  if (failed == NULL)
    return NULL;
  f.failed = failed;
  f.n = refusal_order (r, audit, failed);
  if (f.n == 0)
    {
      struct kg_buf b;

      /* report_overall () fails an empty or incomplete report: say so. */
      if (! sbuf_init (&b, KG_REFUSAL_MAX + 1))
        return NULL;
      sbuf_put (&b, "kata-guard: refusing to start container ", SIZE_MAX);
      sbuf_put (&b, container_id && *container_id ? container_id : "(no id)", REFUSAL_ID_MAX);
      sbuf_put (&b,
                r->oom ? ": report: out of memory, the check report is incomplete"
                       : ": report: no check reached a verdict",
                SIZE_MAX);
      return b.s;
    }
  for (size_t i = 0; i < f.n; i++)
    {
      size_t l = strlen (failed[i]->reason);

      f.distinct += ! id_repeats (failed, i);
      if (l > longest)
        longest = l;
      if (failed[i]->remedy != NULL && (l = strlen (failed[i]->remedy)) > longest)
        longest = l;
    }
  f.reason = f.remedy = f.listed = SIZE_MAX;
  f.parts = f.n;
  if (! refusal_fits (&f))
    {
      f.remedy = SIZE_MAX;
      refusal_largest (&f, &f.reason, REFUSAL_TEXT_MIN, longest);
      if (! refusal_fits (&f))
        refusal_largest (&f, &f.remedy, REFUSAL_TEXT_MIN, longest);
      if (! refusal_fits (&f))
        refusal_largest (&f, &f.parts, 1, f.n);
      if (! refusal_fits (&f))
        refusal_largest (&f, &f.listed, 0, f.distinct);
      refusal_fits (&f);
    }
  if (f.b.failed)
    {
      kg_buf_release (&f.b);
      return NULL;
    }
  return f.b.s;
}

char *
output_message (const char *fmt, ...)
{
  char *raw = NULL;
  struct kg_buf b;
  va_list ap;
  int n;

  va_start (ap, fmt);
  n = vasprintf (&raw, fmt, ap);
  va_end (ap);
  if (n < 0)
    return NULL;
  if (! sbuf_init (&b, KG_REFUSAL_MAX + 1))
    {
      free (raw);
      return NULL;
    }
  sbuf_put (&b, "kata-guard: ", SIZE_MAX);
  sbuf_put (&b, raw, SIZE_MAX);
  free (raw);
  /* Within KG_REFUSAL_MAX as conmon's JSON line carries it too: cut
     where it stops fitting (on a character boundary), marked. */
  n = (int) json_fit (b.s, b.len, KG_REFUSAL_MAX);
  if ((size_t) n < b.len)
    {
      n = (int) json_fit (b.s, b.len, KG_REFUSAL_MAX - 3);
      while (n > 0 && ((unsigned char) b.s[n] & 0xc0) == 0x80)
        n--;
      b.len = (size_t) n;
      kg_buf_add (&b, "...", 3);
    }
  return b.s;
}

void
output_rfc3339 (char *buf, size_t size, const struct timespec *when, bool millis)
{
  struct tm tm;
  time_t t = when->tv_sec;
  size_t n;

  if (gmtime_r (&t, &tm) == NULL || (n = strftime (buf, size, "%Y-%m-%dT%H:%M:%S", &tm)) == 0)
    {
      snprintf (buf, size, "1970-01-01T00:00:00Z");
      return;
    }
  if (millis)
    snprintf (buf + n, size - n, ".%03ldZ", (long) (when->tv_nsec / 1000000));
  else
    snprintf (buf + n, size - n, "Z");
}

/* S as the body of a Go %q-like quoted string for logrus's text format
   (while 3 bytes are left: an escaped character takes 2). */
static void
sbuf_put_quoted (struct kg_buf *b, const char *s)
{
  for (const unsigned char *p = (const unsigned char *) s; *p && sbuf_room (b) > 2; p++)
    {
      char c = kg_is_ctl (*p) ? '?' : (char) *p;

      if (*p == '"' || *p == '\\')
        kg_buf_add (b, "\\", 1);
      kg_buf_add (b, &c, 1);
    }
}

char *
output_runc_log (const char *msg, bool json, const struct timespec *when)
{
  char ts[40];

  output_rfc3339 (ts, sizeof ts, when, false);
  if (json)
    {
      cleanup_json json_object *o = json_object_new_object ();
      const char *s;
      char *line = NULL;

      if (o == NULL || add_string (o, "level", "error") < 0 || add_string (o, "msg", msg) < 0
          || add_string (o, "time", ts) < 0)
        return NULL;
      s = json_object_to_json_string_ext (o,
                                          JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
      if (s == NULL || asprintf (&line, "%s\n", s) < 0)
        return NULL;
      return line;
    }
  else
    {
      struct kg_buf b;

      /* One byte more than the builder may use: the newline (reserved
         already, so adding it cannot fail). */
      if (! sbuf_init (&b, 2 * KG_REFUSAL_MAX + 128 + 1))
        return NULL;
      b.max--;
      sbuf_put (&b, "time=\"", SIZE_MAX);
      sbuf_put (&b, ts, SIZE_MAX);
      sbuf_put (&b, "\" level=error msg=\"", SIZE_MAX);
      sbuf_put_quoted (&b, msg);
      sbuf_put (&b, "\"", SIZE_MAX);
      b.max++;
      kg_buf_add (&b, "\n", 1);
      return b.s;
    }
}

static const char *
mode_name (enum kg_mode m)
{
  return m == KG_MODE_SHIM ? "shim" : m == KG_MODE_OCI ? "oci" : "check";
}

static json_object *
ids_with (const struct report *r, enum verdict v)
{
  json_object *a = json_object_new_array ();

  if (a == NULL)
    return NULL;
  for (size_t i = 0; r != NULL && i < r->n; i++)
    if (r->results[i].verdict == v)
      {
        json_object *s = json_object_new_string (r->results[i].id);

        if (s == NULL || json_object_array_add (a, s) < 0)
          {
            json_object_put (s);
            json_object_put (a);
            return NULL;
          }
      }
  return a;
}

/* Whether result C is one the decision log details: a failure or a
   warning. */
static bool
logged (const struct check_result *c)
{
  return c->verdict == VERDICT_FAIL || c->verdict == VERDICT_WARN;
}

/* "checks": every failure and warning of R with its reason and remedy
   whole, as `check --json` gives them (the message may have had to
   shorten them). */
static int
add_checks (json_object *o, const struct report *r)
{
  json_object *a = json_object_new_array ();

  if (a == NULL || json_object_object_add (o, "checks", a) < 0)
    {
      json_object_put (a);
      return -1;
    }
  for (size_t i = 0; r != NULL && i < r->n; i++)
    if (logged (&r->results[i]) && add_check (a, &r->results[i]) < 0)
      return -1;
  return 0;
}

char *
output_decision_json (const struct decision *d)
{
  cleanup_json json_object *o = json_object_new_object ();
  json_object *failed, *warnings;
  char ts[40];
  const char *s;
  char *line = NULL;

  if (o == NULL)
    return NULL;
  output_rfc3339 (ts, sizeof ts, &d->when, true);
  if (add_string (o, "time", ts) < 0 || add_string (o, "mode", mode_name (d->mode)) < 0
      || add_string (o, "namespace", d->ns) < 0 || add_string (o, "container", d->container_id) < 0
      || add_string (o, "verdict", decision_verdict (d)) < 0)
    return NULL;
  failed = ids_with (d->rep, VERDICT_FAIL);
  if (failed == NULL)
    return NULL;
  if (json_object_object_add (o, "failed", failed) < 0)
    {
      json_object_put (failed);
      return NULL;
    }
  warnings = ids_with (d->rep, VERDICT_WARN);
  if (warnings == NULL)
    return NULL;
  if (json_object_object_add (o, "warnings", warnings) < 0)
    {
      json_object_put (warnings);
      return NULL;
    }
  if (add_string (o, "kata_config", d->kata_config) < 0
      || add_string (o, "config", d->guard_config) < 0
      || add_string (o, "options_type", d->options_type) < 0
      || add_string (o, "message", d->message) < 0 || add_checks (o, d->rep) < 0)
    return NULL;
  s = json_object_to_json_string_ext (o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
  if (s == NULL || asprintf (&line, "%s\n", s) < 0)
    return NULL;
  return line;
}

/* KEY=VALUE, quoted when VALUE holds a space, a quote or nothing. */
static void
sbuf_put_kv (struct kg_buf *b, const char *key, const char *val)
{
  bool quote;

  if (b->len > 0)
    sbuf_put (b, " ", SIZE_MAX);
  sbuf_put (b, key, SIZE_MAX);
  sbuf_put (b, "=", SIZE_MAX);
  if (val == NULL)
    {
      sbuf_put (b, "-", SIZE_MAX);
      return;
    }
  quote = *val == '\0' || strpbrk (val, " \"\\=") != NULL;
  if (! quote)
    {
      sbuf_put (b, val, 512);
      return;
    }
  sbuf_put (b, "\"", SIZE_MAX);
  sbuf_put_quoted (b, val);
  sbuf_put (b, "\"", SIZE_MAX);
}

static void
sbuf_put_ids (struct kg_buf *b, const char *key, const struct report *r, enum verdict v)
{
  bool any = false;

  if (b->len > 0)
    sbuf_put (b, " ", SIZE_MAX);
  sbuf_put (b, key, SIZE_MAX);
  sbuf_put (b, "=", SIZE_MAX);
  for (size_t i = 0; r != NULL && i < r->n; i++)
    if (r->results[i].verdict == v)
      {
        if (any)
          sbuf_put (b, ",", SIZE_MAX);
        sbuf_put (b, r->results[i].id, 128);
        any = true;
      }
  if (! any)
    sbuf_put (b, "-", SIZE_MAX);
}

char *
output_decision_syslog (const struct decision *d)
{
  struct kg_buf b = { 0 }; /* unbounded: the reasons are whole */
  struct kg_buf checks = { 0 };

  sbuf_put_kv (&b, "verdict", decision_verdict (d));
  sbuf_put_kv (&b, "mode", mode_name (d->mode));
  sbuf_put_kv (&b, "namespace", d->ns);
  sbuf_put_kv (&b, "container", d->container_id);
  sbuf_put_ids (&b, "failed", d->rep, VERDICT_FAIL);
  sbuf_put_ids (&b, "warnings", d->rep, VERDICT_WARN);
  sbuf_put_kv (&b, "kata_config", d->kata_config);
  sbuf_put_kv (&b, "config", d->guard_config);
  if (d->options_type != NULL)
    sbuf_put_kv (&b, "options_type", d->options_type);
  if (d->message != NULL)
    sbuf_put_kv (&b, "message", d->message);
  /* checks="ID: REASON (remedy: REMEDY); ...": each failure and warning
     whole. */
  for (size_t i = 0; d->rep != NULL && i < d->rep->n; i++)
    if (logged (&d->rep->results[i]))
      {
        const struct check_result *c = &d->rep->results[i];

        sb_printf (&checks, "%s%s: %s", checks.len > 0 ? "; " : "", c->id, c->reason);
        if (c->remedy != NULL)
          sb_printf (&checks, " (remedy: %s)", c->remedy);
      }
  if (checks.len > 0 && ! checks.failed)
    sbuf_put_kv (&b, "checks", checks.s);
  kg_buf_release (&checks);
  if (b.failed || checks.failed)
    {
      kg_buf_release (&b);
      return NULL;
    }
  return b.s;
}

void
output_decision_lines (const struct decision *d, bool syslog, bool json, struct decision_lines *out)
{
  memset (out, 0, sizeof *out);
  out->json = json ? output_decision_json (d) : NULL;
  if (! syslog)
    return;
  out->syslog = output_decision_syslog (d);
  out->level = d->allow && ! d->audited
                       && (d->rep == NULL || report_count (d->rep, VERDICT_WARN) == 0)
                   ? LOG_INFO
                   : LOG_WARNING;
  if (out->syslog == NULL)
    snprintf (out->fallback, sizeof out->fallback,
              "%s of container %s: out of memory formatting the decision",
              d->allow ? "allow" : "refuse", d->container_id ? d->container_id : "-");
}

void
decision_lines_release (struct decision_lines *l)
{
  free (l->syslog);
  free (l->json);
  l->syslog = l->json = NULL;
}

/* A label value: backslash, double quote and newline escaped, as the
   exposition format asks (ids are plain, but this is the one place that
   writes labels). */
static void
put_label (FILE *out, const char *s)
{
  for (; *s; s++)
    {
      if (*s == '\\' || *s == '"')
        fputc ('\\', out);
      if (*s == '\n')
        fputs ("\\n", out);
      else
        fputc (*s, out);
    }
}

/* One gauge NAME with its HELP and TYPE lines, at V. */
static void
put_gauge (FILE *out, const char *name, const char *help, long long v)
{
  fprintf (out, "# HELP %s %s\n# TYPE %s gauge\n%s %lld\n", name, help, name, name, v);
}

/* What the posture record and the decision log say (facts.h). */
static void
prometheus_facts (FILE *out, const struct facts *f)
{
  static const enum facts_verdict refusals[] = { FACTS_REFUSE, FACTS_WOULD_REFUSE };

  if (f->validated)
    {
      fputs ("# HELP kata_guard_validated_timestamp_seconds When kata-guard validate last "
             "recorded this host's posture (Unix time).\n"
             "# TYPE kata_guard_validated_timestamp_seconds gauge\n",
             out);
      fprintf (out, "kata_guard_validated_timestamp_seconds %lld\n", f->validated_epoch);
    }
  if (f->proven)
    {
      fputs ("# HELP kata_guard_proven_timestamp_seconds When kata-guard validate --prove last "
             "recorded a passing proof from inside a canary (Unix time).\n"
             "# TYPE kata_guard_proven_timestamp_seconds gauge\n",
             out);
      fprintf (out, "kata_guard_proven_timestamp_seconds %lld\n", f->proven_epoch);
    }
  if (! f->log_read)
    return;
  fputs ("# HELP kata_guard_decisions_total Guarded starts in the decision log, by verdict "
         "(would-refuse: allowed by [policy] mode = \"audit\").\n"
         "# TYPE kata_guard_decisions_total counter\n",
         out);
  for (int v = 0; v < FACTS_N_VERDICTS; v++)
    fprintf (out, "kata_guard_decisions_total{verdict=\"%s\"} %" PRIu64 "\n",
             facts_verdict_name (v), f->decisions[v]);
  if (f->n_refusals > 0)
    {
      fputs ("# HELP kata_guard_refusals_total Refused and would-refuse starts in the decision "
             "log, by failing check.\n"
             "# TYPE kata_guard_refusals_total counter\n",
             out);
      for (size_t i = 0; i < f->n_refusals; i++)
        for (size_t v = 0; v < ARRAY_SIZE (refusals); v++)
          {
            fputs ("kata_guard_refusals_total{check=\"", out);
            put_label (out, f->refusals[i].id);
            fprintf (out, "\",verdict=\"%s\"} %" PRIu64 "\n", facts_verdict_name (refusals[v]),
                     f->refusals[i].n[refusals[v]]);
          }
    }
  fputs ("# HELP kata_guard_decision_log_errors_total Lines of the decision log that are not "
         "decisions kata-guard can count.\n"
         "# TYPE kata_guard_decision_log_errors_total counter\n",
         out);
  fprintf (out, "kata_guard_decision_log_errors_total %" PRIu64 "\n", f->log_errors);
}

static int verdict_of (const struct report *rep, const char *id);

/* What a fleet's gate reads (kata-guard(8), Node labels): whether the CRI
   serves the handler (no series when cri.handler skipped or did not
   run), and the feature file's age and whether it opens the gate. */
static void
prometheus_gate (FILE *out, const struct report *rep, const struct facts *f)
{
  int handler = verdict_of (rep, "cri.handler");

  if (handler == VERDICT_PASS || handler == VERDICT_FAIL)
    put_gauge (out, "kata_guard_handler_served",
               "Whether the node's running CRI serves the guard's runtime handler with the Kata "
               "configuration the guard judges (cri.handler).",
               handler == VERDICT_PASS);
  if (f == NULL || ! f->nfd_configured)
    return;
  if (f->nfd_read)
    put_gauge (out, "kata_guard_nfd_file_age_seconds",
               "Seconds since the Node Feature Discovery feature file was written.", f->nfd_age);
  put_gauge (out, "kata_guard_gate_open",
             "Whether the feature file says posture=pass and has not expired (0: missing, "
             "failing or stale).",
             f->nfd_open);
}

void
output_prometheus (FILE *out, const struct report *rep, const struct facts *facts, double seconds,
                   long long now)
{
  static const enum verdict verdicts[] = { VERDICT_PASS, VERDICT_WARN, VERDICT_FAIL, VERDICT_SKIP };

  fputs (
      "# HELP kata_guard_ok Whether this host may start guarded containers (1: no check failed).\n"
      "# TYPE kata_guard_ok gauge\n",
      out);
  fprintf (out, "kata_guard_ok %d\n", rep != NULL && report_overall (rep) != VERDICT_FAIL);
  fputs ("# HELP kata_guard_config_ok Whether the guard configuration loaded.\n"
         "# TYPE kata_guard_config_ok gauge\n",
         out);
  fprintf (out, "kata_guard_config_ok %d\n", rep != NULL);
  if (rep != NULL && rep->n > 0)
    {
      fputs ("# HELP kata_guard_check Whether a check passed (1) or not (0: failed, warned or "
             "skipped; see kata_guard_check_verdict).\n"
             "# TYPE kata_guard_check gauge\n",
             out);
      for (size_t i = 0; i < rep->n; i++)
        {
          fputs ("kata_guard_check{check=\"", out);
          put_label (out, rep->results[i].id);
          fprintf (out, "\"} %d\n", rep->results[i].verdict == VERDICT_PASS);
        }
      fputs ("# HELP kata_guard_check_verdict The verdict of each check, one series per "
             "possible verdict.\n"
             "# TYPE kata_guard_check_verdict gauge\n",
             out);
      for (size_t i = 0; i < rep->n; i++)
        for (size_t v = 0; v < ARRAY_SIZE (verdicts); v++)
          {
            fputs ("kata_guard_check_verdict{check=\"", out);
            put_label (out, rep->results[i].id);
            fprintf (out, "\",verdict=\"%s\"} %d\n", verdict_name (verdicts[v]),
                     rep->results[i].verdict == verdicts[v]);
          }
    }
  fputs ("# HELP kata_guard_check_duration_seconds How long reading the configuration and "
         "running every check took.\n"
         "# TYPE kata_guard_check_duration_seconds gauge\n",
         out);
  fprintf (out, "kata_guard_check_duration_seconds %.6f\n", seconds);
  fputs ("# HELP kata_guard_last_run_timestamp_seconds When the checks ran (Unix time).\n"
         "# TYPE kata_guard_last_run_timestamp_seconds gauge\n",
         out);
  fprintf (out, "kata_guard_last_run_timestamp_seconds %lld\n", now);
  prometheus_gate (out, rep, facts);
  if (facts != NULL)
    prometheus_facts (out, facts);
}

/* ---- Node Feature Discovery's feature file ------------------------------- */

#define NFD_PREFIX "kata-guard.io/"
#define K8S_LABEL_MAX 63

static bool
is_alnum (char c)
{
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/* A Kubernetes label value, or with NAME the name part of a label key
   (then not empty): at most 63 of [A-Za-z0-9._-], beginning and ending
   with a letter or a digit. */
static bool
k8s_label_ok (const char *s, bool name)
{
  size_t n = strlen (s);

  if (n == 0)
    return ! name;
  if (n > K8S_LABEL_MAX || ! is_alnum (s[0]) || ! is_alnum (s[n - 1]))
    return false;
  for (size_t i = 0; i < n; i++)
    if (! is_alnum (s[i]) && s[i] != '.' && s[i] != '_' && s[i] != '-')
      return false;
  return true;
}

/* One label line; a label Kubernetes would refuse is left out (NFD would
   drop it, and with it every label of the node's update). */
static void
put_nfd_label (FILE *out, const char *name, const char *value)
{
  if (k8s_label_ok (name, true) && k8s_label_ok (value, false))
    fprintf (out, NFD_PREFIX "%s=%s\n", name, value);
}

/* Whether result I failed and no earlier result of its id did. */
static bool
first_failure (const struct report *r, size_t i)
{
  if (r->results[i].verdict != VERDICT_FAIL)
    return false;
  for (size_t j = 0; j < i; j++)
    if (r->results[j].verdict == VERDICT_FAIL && strcmp (r->results[j].id, r->results[i].id) == 0)
      return false;
  return true;
}

/* The verdict of check ID in REP, or -1 when it has none. */
static int
verdict_of (const struct report *rep, const char *id)
{
  for (size_t i = 0; rep != NULL && i < rep->n; i++)
    if (strcmp (rep->results[i].id, id) == 0)
      return (int) rep->results[i].verdict;
  return -1;
}

void
output_nfd (FILE *out, const struct report *rep, const struct facts *facts, long long now)
{
  int handler = verdict_of (rep, "cri.handler");

  struct timespec expiry = { .tv_sec = (time_t) (now + OUTPUT_NFD_LIFETIME) };
  char ts[40], name[K8S_LABEL_MAX + 2], num[24];
  size_t failed = 0;

  output_rfc3339 (ts, sizeof ts, &expiry, false);
  fprintf (out, "# +expiry-time=%s\n", ts);
  put_nfd_label (out, "posture", report_overall (rep) == VERDICT_FAIL ? "fail" : "pass");
  for (size_t i = 0; i < rep->n; i++)
    failed += first_failure (rep, i);
  snprintf (num, sizeof num, "%zu", failed);
  put_nfd_label (out, "failed", num);
  /* Cut, a name is longer than 63 and left out: "failed" still counts it. */
  for (size_t i = 0; i < rep->n; i++)
    if (first_failure (rep, i))
      {
        snprintf (name, sizeof name, "fail.%s", rep->results[i].id);
        put_nfd_label (out, name, "true");
      }
  if (facts->kata_runtime != NULL)
    put_nfd_label (out, "kata-runtime", facts->kata_runtime);
  /* cri.handler's verdict (a warning is none of its); none when the
     report has no cri.handler (a start's), which no rule reads as pass. */
  if (handler >= 0)
    put_nfd_label (out, "handler",
                   handler == VERDICT_PASS   ? "pass"
                   : handler == VERDICT_SKIP ? "skip"
                                             : "fail");
  if (facts->validated)
    snprintf (num, sizeof num, "%lld", facts->validated_epoch);
  put_nfd_label (out, "validated", facts->validated ? num : "never");
  if (facts->proven)
    snprintf (num, sizeof num, "%lld", facts->proven_epoch);
  put_nfd_label (out, "proven", facts->proven ? num : "never");
}

int
output_nfd_write (const char *path, const struct report *rep, const struct facts *facts,
                  long long now, kg_error_t *err)
{
  cleanup_free char *buf = NULL;
  size_t len = 0;
  FILE *m = open_memstream (&buf, &len);
  bool bad;

  if (m == NULL)
    return kg_error (err, errno, "%s", path);
  output_nfd (m, rep, facts, now);
  bad = ferror (m) != 0;
  if (fclose (m) != 0 || bad)
    return kg_error (err, ENOMEM, "%s: cannot format the labels", path);
  if (len > OUTPUT_NFD_MAX)
    return kg_error (err, E2BIG, "%s: %zu bytes of labels, more than NFD reads", path, len);
  return writer_replace (path, buf, len, WRITER_PUBLIC, WRITER_DIR_PUBLIC, err);
}

bool
output_host_check (const char *id)
{
  static const char *const prefixes[] = { "kvm.", "kata.", "assets.", "egress.", "drift." };
  static const char *const ids[] = { "storage.pool", "config" };

  /* egress.netns judges the network namespace the spec names: the spec's
     choice, as policy.* are, though it is egress's family. */
  if (strcmp (id, "egress.netns") == 0)
    return false;
  for (size_t i = 0; i < ARRAY_SIZE (prefixes); i++)
    if (strncmp (id, prefixes[i], strlen (prefixes[i])) == 0)
      return true;
  for (size_t i = 0; i < ARRAY_SIZE (ids); i++)
    if (strcmp (id, ids[i]) == 0)
      return true;
  return false;
}
