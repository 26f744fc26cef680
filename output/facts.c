/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The facts `kata-guard check` reads for a fleet (facts.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "drift.h"
#include "error.h"
#include "facts.h"
#include "jsonscan.h"
#include "jtree.h"

static const char *const verdict_names[FACTS_N_VERDICTS] = {
  [FACTS_ALLOW] = "allow",
  [FACTS_REFUSE] = "refuse",
  [FACTS_WOULD_REFUSE] = "would-refuse",
};

const char *
facts_verdict_name (enum facts_verdict v)
{
  return verdict_names[v];
}

bool
facts_read_posture (struct facts *f, const char *path)
{
  cleanup_error kg_error_t err = NULL;
  int64_t epoch, proven;

  /* The record as drift.posture reads it: what the labels say was
     validated is what a locked start accepts. */
  if (posture_epoch (path, &epoch, &proven, &err) < 0)
    return false;
  f->validated = true;
  f->validated_epoch = (long long) epoch;
  f->proven = proven >= 0;
  f->proven_epoch = (long long) proven;
  return true;
}

/* The most of a feature file that is read (NFD reads no more). */
#define NFD_READ_MAX 65536

bool
facts_read_nfd (struct facts *f, const char *path, long long now)
{
  cleanup_close int fd = open (path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  cleanup_free char *buf = NULL;
  struct stat st;
  size_t n = 0;
  ssize_t r;
  bool pass = false;
  long long expiry = 0;
  char *line, *save = NULL;

  if (fd < 0 || fstat (fd, &st) < 0 || ! S_ISREG (st.st_mode) || st.st_uid != 0
      || st.st_size > NFD_READ_MAX || (buf = malloc (NFD_READ_MAX + 1)) == NULL)
    return false;
  while (n < NFD_READ_MAX && (r = read (fd, buf + n, NFD_READ_MAX - n)) > 0)
    n += (size_t) r;
  buf[n] = '\0';
  f->nfd_read = true;
  /* A file written during this run, or a clock set back: age 0. */
  f->nfd_age = now > (long long) st.st_mtime ? now - (long long) st.st_mtime : 0;
  for (line = strtok_r (buf, "\n", &save); line != NULL; line = strtok_r (NULL, "\n", &save))
    {
      struct tm tm = { 0 };
      const char *end;

      if (strcmp (line, "kata-guard.io/posture=pass") == 0)
        pass = true;
      else if (strncmp (line, "# +expiry-time=", 15) == 0
               && (end = strptime (line + 15, "%Y-%m-%dT%H:%M:%SZ", &tm)) != NULL && *end == '\0')
        expiry = (long long) timegm (&tm);
    }
  f->nfd_open = pass && expiry > now;
  return true;
}

/* The verdict of decision DOC, or -1. */
static int
line_verdict (const struct jv *doc)
{
  const struct jv *v = jv_get (doc, "verdict");

  if (! jv_is_type (v, json_type_string))
    return -1;
  for (int i = 0; i < FACTS_N_VERDICTS; i++)
    if (strcmp (jv_string (v), verdict_names[i]) == 0)
      return i;
  return -1;
}

/* FAILED is an array of check ids. */
static bool
ids_valid (const struct jv *failed)
{
  for (size_t i = 0; i < jv_length (failed); i++)
    {
      const struct jv *id = jv_at (failed, i);

      if (! jv_is_type (id, json_type_string)
          || ! checker_id_valid (jv_string (id), jv_string_len (id)))
        return false;
    }
  return true;
}

/* ID's counters, a new one when there is room; NULL when there is none. */
static struct facts_refusal *
refusal_slot (struct facts *f, const char *id)
{
  for (size_t i = 0; i < f->n_refusals; i++)
    if (strcmp (f->refusals[i].id, id) == 0)
      return &f->refusals[i];
  if (f->n_refusals == FACTS_LOG_IDS)
    return NULL;
  /* checker_id_valid bounded it to CHECKER_ID_MAX. */
  strcpy (f->refusals[f->n_refusals].id, id);
  return &f->refusals[f->n_refusals++];
}

/* Whether the I'th id of FAILED is also an earlier one (a check id can
   fail more than once in one start). */
static bool
id_seen_before (const struct jv *failed, size_t i)
{
  const char *id = jv_string (jv_at (failed, i));

  for (size_t j = 0; j < i; j++)
    if (strcmp (jv_string (jv_at (failed, j)), id) == 0)
      return true;
  return false;
}

/* One line of the decision log, read by the guard's own decoder (jtree.h):
   what a reason quotes of a spec is read as written, whatever its
   characters, so a spec's author cannot make a refusal a log error. */
static void
count_line (struct facts *f, const char *line, size_t len)
{
  cleanup_error kg_error_t err = NULL;
  cleanup_jv struct jv *doc = jv_read_strict ("decision log", line, len, JSON_STRICT_MAX_DEPTH,
                                              NULL, &err);
  const struct jv *failed = jv_get (doc, "failed");
  bool lost = false;
  int v;

  if (! jv_is_type (doc, json_type_object) || (v = line_verdict (doc)) < 0
      || ! jv_is_type (failed, json_type_array) || ! ids_valid (failed))
    {
      f->log_errors++;
      return;
    }
  f->decisions[v]++;
  if (v == FACTS_ALLOW)
    return;
  for (size_t i = 0; i < jv_length (failed); i++)
    {
      struct facts_refusal *r;

      if (id_seen_before (failed, i))
        continue;
      r = refusal_slot (f, jv_string (jv_at (failed, i)));
      if (r == NULL)
        lost = true;
      else
        r->n[v]++;
    }
  if (lost)
    f->log_errors++;
}

/* Count every whole line of BUF[0..*HAVE) and keep the rest at its start.
   *SKIPPING: the line began beyond the buffer and is counted already. */
static void
count_lines (struct facts *f, char *buf, size_t *have, bool *skipping)
{
  char *start = buf, *nl;

  while ((nl = memchr (start, '\n', *have - (size_t) (start - buf))) != NULL)
    {
      if (! *skipping)
        count_line (f, start, (size_t) (nl - start));
      *skipping = false;
      start = nl + 1;
    }
  *have -= (size_t) (start - buf);
  memmove (buf, start, *have);
  if (*have == FACTS_LINE_MAX)
    {
      if (! *skipping)
        f->log_errors++;
      *skipping = true;
      *have = 0;
    }
}

int
facts_read_log (struct facts *f, const char *path, kg_error_t *err)
{
  cleanup_close int fd = -1;
  cleanup_free char *buf = NULL;
  bool skipping = false;
  size_t have = 0;
  struct stat st;

  /* As the log is written (decision.c): never through a symlink, and a
     FIFO in its place must not hang the check. */
  fd = open (path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0)
    return kg_error (err, errno, "%s", path);
  if (fstat (fd, &st) < 0)
    return kg_error (err, errno, "%s", path);
  if (! S_ISREG (st.st_mode))
    return kg_error (err, 0, "%s is not a regular file", path);
  buf = malloc (FACTS_LINE_MAX);
  if (buf == NULL)
    return kg_error (err, ENOMEM, "%s: cannot allocate", path);
  for (;;)
    {
      ssize_t n = read (fd, buf + have, FACTS_LINE_MAX - have);

      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        return kg_error (err, errno, "read %s", path);
      if (n == 0)
        break;
      have += (size_t) n;
      count_lines (f, buf, &have, &skipping);
    }
  /* A last line without its newline. */
  if (have > 0 && ! skipping)
    count_line (f, buf, have);
  f->log_read = true;
  return 0;
}
