/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Which runtime created a container (record.h). */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "cleanup.h"
#include "error.h"
#include "record.h"
#include "rundir.h"
#include "sha256.h"
#include "text.h"

#define RECORD_MAGIC "kata-guard runtime record 1"
#define RECORD_MAX 16384
#define RECORD_DIR RUNDIR "/" RECORD_SUB

const char *
record_mode_word (enum kg_mode mode)
{
  return mode == KG_MODE_OCI ? "oci" : "shim";
}

void
record_name (enum kg_mode mode, const char *scope, const char *id, char name[RECORD_NAME_SIZE])
{
  const char *parts[3] = { record_mode_word (mode), scope ? scope : "", id };
  cleanup_kg_buf struct kg_buf b = { 0 };
  unsigned char md[SHA256_LEN];
  char hex[SHA256_HEX_LEN + 1];

  /* Each part with its NUL: no two identities give the same text. */
  for (size_t i = 0; i < 3; i++)
    kg_buf_add (&b, parts[i], strlen (parts[i]) + 1);
  if (b.failed || b.s == NULL)
    {
      /* Out of memory: a name no record has (the start then cannot find
         or write one, and fails on it). */
      snprintf (name, RECORD_NAME_SIZE, "%s-", record_mode_word (mode));
      return;
    }
  sha256_mem (b.s, b.len, md);
  sha256_hex (md, hex);
  snprintf (name, RECORD_NAME_SIZE, "%s-%s", record_mode_word (mode), hex);
}

void
record_name_legacy (enum kg_mode mode, const char *scope, const char *id,
                    char name[RECORD_NAME_SIZE])
{
  const char *parts[3] = { record_mode_word (mode), scope ? scope : "", id };
  uint64_t h = 0xcbf29ce484222325u;

  for (size_t i = 0; i < 3; i++)
    for (const unsigned char *p = (const unsigned char *) parts[i];; p++)
      {
        h = (h ^ *p) * 0x100000001b3u;
        if (*p == '\0')
          break;
      }
  snprintf (name, RECORD_NAME_SIZE, "%s-%016" PRIx64, record_mode_word (mode), h);
}

bool
record_name_valid (const char *name)
{
  size_t p = strncmp (name, "shim-", 5) == 0 ? 5 : strncmp (name, "oci-", 4) == 0 ? 4 : 0;
  size_t n = strlen (name + p);

  return p != 0 && (n == SHA256_HEX_LEN || n == 16) && strspn (name + p, "0123456789abcdef") == n;
}

bool
record_identity_is (const char *mode_word, const char *scope_field, const char *id_field,
                    enum kg_mode mode, const char *scope, const char *id)
{
  return id != NULL && strcmp (mode_word, record_mode_word (mode)) == 0
         && strcmp (scope_field, scope ? scope : "") == 0 && strcmp (id_field, id) == 0;
}

void
record_out_start (struct record_out *o, const char *magic)
{
  *o = (struct record_out){ { 0 }, false };
  record_put (o, magic);
}

void
record_put (struct record_out *o, const char *field)
{
  if (field == NULL || strchr (field, '\n') != NULL)
    {
      o->bad = true;
      return;
    }
  kg_buf_add (&o->b, field, strlen (field));
  kg_buf_add (&o->b, "\n", 1);
}

void
record_put_numbers (struct record_out *o, const uint64_t *v, size_t n)
{
  for (size_t i = 0; i < n; i++)
    sb_printf (&o->b, "%s%" PRIu64, i > 0 ? " " : "", v[i]);
  kg_buf_add (&o->b, "\n", 1);
}

int
record_out_end (struct record_out *o, const char *shown, size_t max, char **text, size_t *len,
                kg_error_t *err)
{
  cleanup_kg_buf struct kg_buf b = o->b;
  bool bad = o->bad;

  *o = (struct record_out){ { 0 }, false };
  if (bad)
    return kg_error (err, EINVAL, "%s: a field that is not one line cannot be recorded", shown);
  if (b.failed || b.s == NULL)
    return kg_error (err, ENOMEM, "%s: cannot allocate a record", shown);
  if (b.len > max)
    return kg_error (err, E2BIG, "%s: the record would be %zu bytes", shown, b.len);
  *len = b.len;
  *text = steal_pointer (&b.s);
  return 0;
}

bool
record_lines (char *text, size_t len, const char *magic, char **line, size_t max, size_t *n)
{
  char *p = text, *l;

  *n = 0;
  if (memchr (text, '\0', len) != NULL || len == 0 || text[len - 1] != '\n')
    return false;
  text[len - 1] = '\0';
  l = strsep (&p, "\n");
  if (strcmp (l, magic) != 0)
    return false;
  while (p != NULL)
    {
      if (*n == max)
        return false;
      line[(*n)++] = strsep (&p, "\n");
    }
  return true;
}

bool
record_numbers (const char *s, uint64_t *v, size_t n)
{
  for (size_t i = 0; i < n; i++)
    if ((i > 0 && *s++ != ' ') || ! kg_parse_u64 (&s, &v[i]))
      return false;
  return *s == '\0';
}

/* The record named NAME in DIR: 1 with *RUNTIME when it is the record of
   MODE, SCOPE and ID; 0 when there is none, or it is another container's
   (*OTHER set then: never followed, replaced or removed); -1 with *ERR
   when it cannot be read or is no record. */
static int
record_load (int dir, const char *name, enum kg_mode mode, const char *scope, const char *id,
             char **runtime, bool *other, kg_error_t *err)
{
  cleanup_free char *text = NULL;
  char *field[4];
  size_t len, n;

  *runtime = NULL;
  *other = false;
  if (rundir_read (dir, RECORD_DIR, name, RECORD_MAX, &text, &len, err) < 0)
    {
      if ((*err)->errnum != ENOENT)
        return -1;
      kg_error_release (err);
      return 0;
    }
  /* The mode, the scope, the id and the runtime. */
  if (! record_lines (text, len, RECORD_MAGIC, field, 4, &n) || n != 4
      || strcmp (field[0], record_mode_word (mode)) != 0 || field[3][0] != '/')
    return kg_error (err, 0, "%s/%s: not a record", RECORD_DIR, name);
  if (! record_identity_is (field[0], field[1], field[2], mode, scope, id))
    {
      *other = true;
      return 0;
    }
  *runtime = strdup (field[3]);
  if (*runtime == NULL)
    return kg_error (err, ENOMEM, "%s/%s: cannot allocate", RECORD_DIR, name);
  return 1;
}

int
record_write (enum kg_mode mode, const char *scope, const char *id, const char *runtime,
              kg_error_t *err_out)
{
  /* ERR may be NULL (error.h): a best-effort caller that wants no message. */
  cleanup_error kg_error_t local = NULL;
  kg_error_t *err = err_out != NULL ? err_out : &local;
  cleanup_close int dir = -1;
  cleanup_free char *text = NULL;
  cleanup_free char *had = NULL;
  struct record_out o;
  char name[RECORD_NAME_SIZE];
  bool other;
  size_t n;

  if (id == NULL || runtime == NULL || runtime[0] != '/')
    return kg_error (err, EINVAL, "%s: nothing to record", RECORD_DIR);
  record_out_start (&o, RECORD_MAGIC);
  record_put (&o, record_mode_word (mode));
  record_put (&o, scope ? scope : "");
  record_put (&o, id);
  record_put (&o, runtime);
  if (record_out_end (&o, RECORD_DIR, RECORD_MAX, &text, &n, err) < 0)
    return -1;
  dir = rundir_open (RECORD_SUB, true, err);
  if (dir < 0)
    return -1;
  record_name (mode, scope, id, name);
  /* Whose the name is, before it is written: another container's record
     stays (a name that meets another's is refused, not taken). */
  if (record_load (dir, name, mode, scope, id, &had, &other, err) < 0)
    return -1;
  if (other)
    return kg_error (err, EEXIST, "%s/%s holds another container's record", RECORD_DIR, name);
  return rundir_write (dir, RECORD_DIR, name, text, n, err);
}

/* The record of MODE, SCOPE and ID: under its name, or under the name a
   guard before the upgrade gave it; its runtime into *RUNTIME and the
   name it was found under into NAME.  As record_load. */
static int
record_find (int dir, enum kg_mode mode, const char *scope, const char *id,
             char name[RECORD_NAME_SIZE], char **runtime, kg_error_t *err)
{
  bool other;
  int rc;

  record_name (mode, scope, id, name);
  rc = record_load (dir, name, mode, scope, id, runtime, &other, err);
  if (rc != 0)
    return rc;
  record_name_legacy (mode, scope, id, name);
  return record_load (dir, name, mode, scope, id, runtime, &other, err);
}

char *
record_read (enum kg_mode mode, const char *scope, const char *id, kg_error_t *err)
{
  cleanup_close int dir = -1;
  char name[RECORD_NAME_SIZE];
  char *runtime = NULL;

  *err = NULL;
  if (id == NULL || id[0] == '\0')
    return NULL;
  dir = rundir_open (RECORD_SUB, false, err);
  if (dir < 0)
    {
      if ((*err)->errnum == ENOENT)
        kg_error_release (err);
      return NULL;
    }
  if (record_find (dir, mode, scope, id, name, &runtime, err) < 0)
    return NULL;
  return runtime;
}

int
record_remove (enum kg_mode mode, const char *scope, const char *id, kg_error_t *err_out)
{
  /* ERR may be NULL (error.h): a best-effort caller that wants no message. */
  cleanup_error kg_error_t local = NULL;
  kg_error_t *err = err_out != NULL ? err_out : &local;
  cleanup_close int dir = -1;
  cleanup_free char *runtime = NULL;
  char name[RECORD_NAME_SIZE];
  int rc;

  *err = NULL;
  if (id == NULL || id[0] == '\0')
    return 0;
  dir = rundir_open (RECORD_SUB, false, err);
  if (dir < 0)
    {
      if ((*err)->errnum != ENOENT)
        return -1;
      kg_error_release (err);
      return 0;
    }
  /* Only a record of this very container: another's stays. */
  rc = record_find (dir, mode, scope, id, name, &runtime, err);
  if (rc <= 0)
    return rc;
  if (unlinkat (dir, name, 0) < 0 && errno != ENOENT)
    return kg_error (err, errno, "%s/%s", RECORD_DIR, name);
  return 0;
}
