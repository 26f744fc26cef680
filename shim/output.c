/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"

#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "output.h"

static void
json_putp (json_object **o)
{
  json_object_put (*o);
}
#define cleanup_json __attribute__ ((cleanup (json_putp)))

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
    fputc (*p < 0x20 || *p == 0x7f ? '?' : *p, out);
}

void
output_text (FILE *out, const struct report *r, bool color)
{
  int width = 0;

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

int
output_json (FILE *out, const struct report *r, const char *config_path)
{
  cleanup_json json_object *root = json_object_new_object ();
  json_object *checks = json_object_new_array ();
  json_object *files = json_object_new_array ();

  /* Attach the arrays first, so that root owns them on every path. */
  if (root == NULL || checks == NULL || files == NULL
      || json_object_object_add (root, "verdict",
                                 json_object_new_string (verdict_name (report_overall (r)))) < 0
      || add_string (root, "config", config_path) < 0
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
    {
      const struct check_result *c = &r->results[i];
      json_object *o = json_object_new_object ();

      if (o == NULL || json_object_array_add (checks, o) < 0)
        {
          json_object_put (o);
          return -1;
        }
      if (add_string (o, "id", c->id) < 0 || add_string (o, "verdict", verdict_name (c->verdict)) < 0
          || add_string (o, "reason", c->reason) < 0 || add_string (o, "remedy", c->remedy) < 0)
        return -1;
    }
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
