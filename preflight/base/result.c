/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "result.h"

void
report_add (struct report *r, const char *id, enum verdict v, const char *remedy, const char *fmt,
            ...)
{
  struct check_result *res;
  va_list ap;
  char *reason = NULL;

  if (r->n == r->cap)
    {
      size_t ncap = r->cap ? r->cap * 2 : 16;
      struct check_result *n = realloc (r->results, ncap * sizeof *n);

      if (n == NULL)
        {
          r->oom = true;
          return;
        }
      r->results = n;
      r->cap = ncap;
    }
  va_start (ap, fmt);
  if (vasprintf (&reason, fmt, ap) < 0)
    reason = NULL;
  va_end (ap);
  res = &r->results[r->n];
  res->id = strdup (id);
  res->verdict = v;
  res->reason = reason;
  res->remedy = remedy ? strdup (remedy) : NULL;
  res->reach = REACH_HOST;
  if (res->id == NULL || res->reason == NULL || (remedy && res->remedy == NULL))
    {
      free (res->id);
      free (res->reason);
      free (res->remedy);
      r->oom = true;
      return;
    }
  r->n++;
}

void
report_set_reach (struct report *r, size_t from, enum reach reach)
{
  for (size_t i = from; i < r->n; i++)
    r->results[i].reach = reach;
}

void
report_add_file (struct report *r, const char *path)
{
  char **n = realloc (r->files, (r->n_files + 1) * sizeof *n);
  char *p = strdup (path);

  if (n != NULL)
    r->files = n;
  if (n == NULL || p == NULL)
    {
      free (p);
      r->oom = true;
      return;
    }
  r->files[r->n_files++] = p;
}

void
report_add_kata_file (struct report *r, const char *path)
{
  size_t n = r->n_files;

  report_add_file (r, path);
  if (r->n_files == n + 1)
    r->kata_file = r->n_files;
}

const char *
report_kata_config (const struct report *r)
{
  return r->kata_file > 0 && r->kata_file <= r->n_files ? r->files[r->kata_file - 1] : NULL;
}

enum verdict
report_overall (const struct report *r)
{
  enum verdict worst = VERDICT_PASS;

  if (r->oom || r->n == 0)
    return VERDICT_FAIL; /* an empty or incomplete report proves nothing */
  for (size_t i = 0; i < r->n; i++)
    if (r->results[i].verdict > worst && r->results[i].verdict != VERDICT_SKIP)
      worst = r->results[i].verdict;
  return worst;
}

const struct check_result *
report_find (const struct report *r, const char *id)
{
  for (size_t i = 0; i < r->n; i++)
    if (strcmp (r->results[i].id, id) == 0)
      return &r->results[i];
  return NULL;
}

size_t
report_count (const struct report *r, enum verdict v)
{
  size_t c = 0;

  for (size_t i = 0; i < r->n; i++)
    c += r->results[i].verdict == v;
  return c;
}

void
report_release (struct report *r)
{
  for (size_t i = 0; i < r->n; i++)
    {
      free (r->results[i].id);
      free (r->results[i].reason);
      free (r->results[i].remedy);
    }
  for (size_t i = 0; i < r->n_files; i++)
    free (r->files[i]);
  free (r->results);
  free (r->files);
  memset (r, 0, sizeof *r);
}

const char *
verdict_name (enum verdict v)
{
  switch (v)
    {
    case VERDICT_PASS:
      return "pass";
    case VERDICT_SKIP:
      return "skip";
    case VERDICT_WARN:
      return "warn";
    case VERDICT_FAIL:
      return "fail";
    }
  return "fail";
}
