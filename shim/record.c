/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Which runtime created a container (record.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record.h"
#include "rundir.h"
#include "util.h"

#define RECORD_MAGIC "kata-guard runtime record 1"
#define RECORD_MAX 16384
#define RECORD_DIR RUNDIR "/" RECORD_SUB

const char *
record_mode_word (enum kg_mode mode)
{
  return mode == KG_MODE_OCI ? "oci" : "shim";
}

/* FNV-1a over the mode, scope and id with NULs between: a name, not a
   secret; the record repeats all three. */
void
record_name (enum kg_mode mode, const char *scope, const char *id, char name[32])
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
  snprintf (name, 32, "%s-%016" PRIx64, record_mode_word (mode), h);
}

bool
record_name_valid (const char *name)
{
  size_t p = strncmp (name, "shim-", 5) == 0 ? 5 : strncmp (name, "oci-", 4) == 0 ? 4 : 0;

  return p != 0 && strlen (name + p) == 16 && strspn (name + p, "0123456789abcdef") == 16;
}

/* No newline inside a field: the record is one field a line. */
static bool
one_line (const char *s)
{
  return strchr (s, '\n') == NULL;
}

int
record_write (enum kg_mode mode, const char *scope, const char *id, const char *runtime,
              kg_error_t *err)
{
  cleanup_close int dir = -1;
  cleanup_free char *text = NULL;
  char name[32];
  int n;

  if (id == NULL || runtime == NULL || runtime[0] != '/' || ! one_line (id) || ! one_line (runtime)
      || (scope != NULL && ! one_line (scope)))
    return kg_error (err, EINVAL, "%s: nothing to record", RECORD_DIR);
  n = asprintf (&text, "%s\n%s\n%s\n%s\n%s\n", RECORD_MAGIC, record_mode_word (mode),
                scope ? scope : "", id, runtime);
  if (n < 0)
    {
      text = NULL;
      return kg_error (err, ENOMEM, "%s: cannot allocate", RECORD_DIR);
    }
  if ((size_t) n > RECORD_MAX)
    return kg_error (err, E2BIG, "%s: the record would be %d bytes", RECORD_DIR, n);
  dir = rundir_open (RECORD_SUB, true, err);
  if (dir < 0)
    return -1;
  record_name (mode, scope, id, name);
  return rundir_write (dir, RECORD_DIR, name, text, (size_t) n, err);
}

char *
record_read (enum kg_mode mode, const char *scope, const char *id, kg_error_t *err)
{
  cleanup_close int dir = -1;
  cleanup_free char *text = NULL;
  const char *want[4] = { RECORD_MAGIC, record_mode_word (mode), scope ? scope : "", id };
  char name[32];
  char *p, *line;
  size_t len;

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
  record_name (mode, scope, id, name);
  if (rundir_read (dir, RECORD_DIR, name, RECORD_MAX, &text, &len, err) < 0)
    {
      if ((*err)->errnum == ENOENT)
        kg_error_release (err);
      return NULL;
    }
  if (strlen (text) != len)
    return kg_error (err, 0, "%s/%s: not a record (a NUL byte)", RECORD_DIR, name), NULL;
  p = text;
  for (size_t i = 0; i < 4; i++)
    {
      line = strsep (&p, "\n");
      if (p == NULL || strcmp (line, want[i]) != 0)
        {
          /* Another container's (a collision), or not a record: never
             followed. */
          if (i < 2)
            kg_error (err, 0, "%s/%s: not a record", RECORD_DIR, name);
          return NULL;
        }
    }
  line = strsep (&p, "\n");
  if (p == NULL || *p != '\0' || line[0] != '/')
    return kg_error (err, 0, "%s/%s: not a record", RECORD_DIR, name), NULL;
  return strdup (line);
}

int
record_remove (enum kg_mode mode, const char *scope, const char *id, kg_error_t *err)
{
  cleanup_close int dir = -1;
  cleanup_free char *runtime = NULL;
  char name[32];

  /* Only a record of this very container: a colliding one stays. */
  runtime = record_read (mode, scope, id, err);
  if (runtime == NULL)
    return *err != NULL ? -1 : 0;
  dir = rundir_open (RECORD_SUB, false, err);
  if (dir < 0)
    return -1;
  record_name (mode, scope, id, name);
  if (unlinkat (dir, name, 0) < 0 && errno != ENOENT)
    return kg_error (err, errno, "%s/%s", RECORD_DIR, name);
  return 0;
}
