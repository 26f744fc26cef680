/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Docker's daemon.json for registration: the stable writer and the
 * runtime entry edits (dockerjson.h).
 */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "cleanup.h"
#include "daemonjson.h"
#include "dockerjson.h"
#include "error.h"
#include "jsonc.h"
#include "replace.h"

/* ---- the stable form ------------------------------------------------------- */

static void
indent (FILE *f, unsigned n)
{
  for (unsigned i = 0; i < n; i++)
    fputs ("  ", f);
}

static int
emit (FILE *f, struct json_object *o, unsigned level, kg_error_t *err)
{
  const char *s;
  size_t i = 0, n;

  switch (json_object_get_type (o))
    {
    case json_type_object:
      n = (size_t) json_object_object_length (o);
      if (n == 0)
        {
          fputs ("{}", f);
          return 0;
        }
      fputs ("{\n", f);
      json_object_object_foreach (o, key, val)
        {
          struct json_object *k = json_object_new_string (key);

          if (k == NULL)
            return kg_error (err, ENOMEM, "cannot allocate");
          indent (f, level + 1);
          fputs (json_object_to_json_string_ext (k, JSON_C_TO_STRING_PLAIN
                                                        | JSON_C_TO_STRING_NOSLASHESCAPE),
                 f);
          json_object_put (k);
          fputs (": ", f);
          if (emit (f, val, level + 1, err) < 0)
            return -1;
          fputs (++i < n ? ",\n" : "\n", f);
        }
      indent (f, level);
      fputc ('}', f);
      return 0;
    case json_type_array:
      n = json_object_array_length (o);
      if (n == 0)
        {
          fputs ("[]", f);
          return 0;
        }
      fputs ("[\n", f);
      for (i = 0; i < n; i++)
        {
          indent (f, level + 1);
          if (emit (f, json_object_array_get_idx (o, i), level + 1, err) < 0)
            return -1;
          fputs (i + 1 < n ? ",\n" : "\n", f);
        }
      indent (f, level);
      fputc (']', f);
      return 0;
    default:
      /* Scalars as json-c prints them: numbers as they were written, strings
         re-escaped (without "\/"), null/true/false. */
      s = json_object_to_json_string_ext (o,
                                          JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
      if (s == NULL)
        return kg_error (err, ENOMEM, "cannot allocate");
      fputs (s, f);
      return 0;
    }
}

char *
daemonjson_format (struct json_object *root, size_t *len, kg_error_t *err)
{
  char *buf = NULL;
  size_t size = 0;
  FILE *f = open_memstream (&buf, &size);
  int rc;

  if (f == NULL)
    return kg_error (err, errno, "cannot allocate"), NULL;
  rc = emit (f, root, 0, err);
  fputc ('\n', f);
  if (fclose (f) != 0 && rc == 0)
    rc = kg_error (err, ENOMEM, "cannot allocate");
  if (rc < 0)
    {
      free (buf);
      return NULL;
    }
  if (size > DAEMONJSON_MAX_SIZE)
    {
      free (buf);
      return kg_error (err, 0, "the result would be %zu bytes, more than the %d allowed", size,
                       DAEMONJSON_MAX_SIZE),
             NULL;
    }
  *len = size;
  return buf;
}

/* ---- the runtime entry -------------------------------------------------------- */

bool
daemonjson_valid_name (const char *name)
{
  size_t n = strlen (name);

  if (n == 0 || n > 64)
    return false;
  for (size_t i = 0; i < n; i++)
    {
      char c = name[i];
      bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');

      if (! alnum && (i == 0 || (c != '_' && c != '.' && c != '-')))
        return false;
    }
  return true;
}

static char *
compact (struct json_object *o)
{
  const char *s = json_object_to_json_string_ext (o, JSON_C_TO_STRING_SPACED
                                                         | JSON_C_TO_STRING_NOSLASHESCAPE);

  return strdup (s ? s : "?");
}

/* Open and parse the file for E; on success *ROOT is the document. */
static int
edit_open (struct dj_edit *e, struct kg_replace *r, struct json_object **root, kg_error_t *err)
{
  struct json_object *runtimes;

  e->status = DJ_REFUSED;
  if (! daemonjson_valid_name (e->name))
    return kg_error (err, 0,
                     "\"%s\" is not a runtime name Docker takes (letters, digits, "
                     "'_', '.', '-'; at most 64)",
                     e->name);
  if (kg_replace_open (e->path, DAEMONJSON_MAX_SIZE, r, err) < 0)
    return -1;
  e->existed = r->exists;
  e->removed_temps = r->removed_temps;
  e->target = strdup (r->path);
  if (e->target == NULL)
    return kg_error (err, ENOMEM, "cannot allocate");
  *root = daemonjson_parse (r->path, r->data ? r->data : "", r->len, err);
  if (*root == NULL)
    return -1;
  if (json_object_object_get_ex (*root, "runtimes", &runtimes)
      && ! json_object_is_type (runtimes, json_type_object))
    return kg_error (err, 0,
                     "%s: \"runtimes\" is %s, not an object: dockerd would refuse it "
                     "too; fix it by hand first",
                     r->path, json_kind_of (runtimes, true));
  return 0;
}

/* Write ROOT unless it is the same document as before. */
static int
edit_finish (struct dj_edit *e, struct kg_replace *r, struct json_object *root, bool changed,
             kg_error_t *err)
{
  if (! changed)
    {
      /* Nothing to do: the file is not even rewritten, so a second run is
         byte-identical whatever its formatting. */
      e->result = malloc (r->len + 1);
      if (e->result == NULL)
        return kg_error (err, ENOMEM, "cannot allocate");
      memcpy (e->result, r->data ? r->data : "", r->len);
      e->result[r->len] = '\0';
      e->result_len = r->len;
      e->status = DJ_DONE;
      return 0;
    }
  e->result = daemonjson_format (root, &e->result_len, err);
  if (e->result == NULL)
    return -1;
  e->changed = true;
  if (e->dry_run)
    {
      e->status = DJ_DONE;
      return 0;
    }
  if (kg_replace_commit (r, e->result, e->result_len, true, &e->backup, err) < 0)
    {
      e->status = DJ_WRITE_FAILED;
      return -1;
    }
  e->status = DJ_DONE;
  return 0;
}

int
daemonjson_install (struct dj_edit *e, kg_error_t *err)
{
  cleanup_replace struct kg_replace r = { .dirfd = -1 };
  cleanup_json struct json_object *root = NULL;
  struct json_object *runtimes, *old, *def = NULL;
  bool changed = false;

  if (edit_open (e, &r, &root, err) < 0)
    return -1;
  if (! json_object_object_get_ex (root, "runtimes", &runtimes))
    {
      runtimes = json_object_new_object ();
      if (runtimes == NULL || json_object_object_add (root, "runtimes", runtimes) < 0)
        return kg_error (err, ENOMEM, "cannot allocate");
    }
  if (json_object_object_get_ex (runtimes, e->name, &old))
    {
      if (! json_object_equal (old, e->entry))
        {
          cleanup_free char *was = compact (old);
          cleanup_free char *want = compact (e->entry);

          if (! e->force)
            return kg_error (err, 0,
                             "%s: runtimes.%s is already %s, not %s; "
                             "pass --force to replace it, or --name to choose another name",
                             r.path, e->name, was ? was : "?", want ? want : "?");
          changed = true;
        }
    }
  else
    changed = true;
  if (changed && json_object_object_add (runtimes, e->name, json_object_get (e->entry)) < 0)
    return kg_error (err, ENOMEM, "cannot allocate");
  if (e->set_default)
    {
      if (json_object_object_get_ex (root, "default-runtime", &def))
        {
          if (! json_object_is_type (def, json_type_string))
            return kg_error (err, 0, "%s: \"default-runtime\" is %s, not a string", r.path,
                             json_kind_of (def, true));
          if (strcmp (json_object_get_string (def), e->name) != 0)
            {
              e->old_default = strdup (json_object_get_string (def));
              if (e->old_default == NULL)
                return kg_error (err, ENOMEM, "cannot allocate");
            }
        }
      if (def == NULL || e->old_default != NULL)
        {
          struct json_object *s = json_object_new_string (e->name);

          if (s == NULL || json_object_object_add (root, "default-runtime", s) < 0)
            return kg_error (err, ENOMEM, "cannot allocate");
          changed = true;
        }
    }
  return edit_finish (e, &r, root, changed, err);
}

int
daemonjson_uninstall (struct dj_edit *e, kg_error_t *err)
{
  cleanup_replace struct kg_replace r = { .dirfd = -1 };
  cleanup_json struct json_object *root = NULL;
  struct json_object *runtimes = NULL, *old, *def;
  bool changed = false;

  if (edit_open (e, &r, &root, err) < 0)
    return -1;
  if (json_object_object_get_ex (root, "runtimes", &runtimes)
      && json_object_object_get_ex (runtimes, e->name, &old))
    {
      bool ours = false;

      for (size_t i = 0; i < e->n_ours && ! ours; i++)
        ours = json_object_equal (old, e->ours[i]);
      if (! ours && ! e->force)
        {
          cleanup_free char *was = compact (old);

          return kg_error (err, 0,
                           "%s: runtimes.%s is %s, which kata-guard install did not "
                           "write; pass --force to remove it anyway",
                           r.path, e->name, was ? was : "?");
        }
      json_object_object_del (runtimes, e->name);
      e->entry_removed = changed = true;
      /* An emptied "runtimes" stays: on a reload (SIGHUP) dockerd only
         replaces its runtimes when the key is there, so without it the
         runtime would live on until a restart. */
    }
  if (json_object_object_get_ex (root, "default-runtime", &def)
      && json_object_is_type (def, json_type_string)
      && strcmp (json_object_get_string (def), e->name) == 0)
    {
      /* For the same reason default-runtime goes back to Docker's own
         default instead of away: a reload keeps the value of a key that is
         gone. */
      const char *to = DAEMONJSON_STOCK_RUNTIME;
      struct json_object *runc;

      /* What install replaced, where dockerd still knows it. */
      if (e->restore_default != NULL && strcmp (e->restore_default, e->name) != 0
          && (strcmp (e->restore_default, DAEMONJSON_STOCK_RUNTIME) == 0
              || (runtimes != NULL
                  && json_object_object_get_ex (runtimes, e->restore_default, NULL))))
        to = e->restore_default;
      e->new_default = to;
      runc = json_object_new_string (to);
      if (runc == NULL || json_object_object_add (root, "default-runtime", runc) < 0)
        return kg_error (err, ENOMEM, "cannot allocate");
      e->default_removed = changed = true;
    }
  return edit_finish (e, &r, root, changed, err);
}

void
dj_edit_release (struct dj_edit *e)
{
  free (e->target);
  free (e->backup);
  free (e->result);
  free (e->old_default);
  e->target = e->backup = e->result = e->old_default = NULL;
}
