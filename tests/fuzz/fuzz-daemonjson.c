/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The daemon.json reader, writer and edits.  Whatever parses must print in
 * the stable form, and that form must parse again and print the same bytes
 * (an edit never changes what it does not touch).  Then the install and
 * uninstall edits run on the input as a file, in dry-run mode (the file in
 * a private temporary directory, rewritten for each input).
 */
#include "config.h"

#include <fcntl.h>
#include <json-c/json.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "daemonjson.h"
#include "dockerjson.h"
#include "fuzz.h"

static char dir[64];
static char path[96];

static void
remove_dir (void)
{
  char lock[128];

  unlink (path);
  /* Whatever else the edits may leave beside the file (lock, temps). */
  snprintf (lock, sizeof lock, "%s/.daemon.json.kata-guard.lock", dir);
  unlink (lock);
  rmdir (dir);
}

static bool
setup (void)
{
  if (dir[0] != '\0')
    return true;
  strcpy (dir, "/tmp/kg-fuzz-dj.XXXXXX");
  if (mkdtemp (dir) == NULL)
    return false;
  snprintf (path, sizeof path, "%s/daemon.json", dir);
  atexit (remove_dir);
  return true;
}

static void
edits (const uint8_t *data, size_t size)
{
  static const char entry_json[] = "{\"runtimeType\": \"/usr/bin/containerd-shim-kata-guard-v2\"}";
  struct json_object *ent;
  int fd;

  if (! setup ())
    return;
  fd = open (path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0)
    return;
  FUZZ_ASSERT (write (fd, data, size) == (ssize_t) size);
  close (fd);

  ent = json_tokener_parse (entry_json);
  FUZZ_ASSERT (ent != NULL);
  for (int mode = 0; mode < 3; mode++)
    {
      struct dj_edit e;
      kg_error_t err = NULL;
      int rc;

      memset (&e, 0, sizeof e);
      e.path = path;
      e.name = "kata-guard";
      e.dry_run = true;
      if (mode < 2)
        {
          e.entry = ent;
          e.set_default = mode == 1;
          rc = daemonjson_install (&e, &err);
        }
      else
        {
          struct json_object *ours[1] = { ent };

          e.ours = ours;
          e.n_ours = 1;
          e.force = true;
          rc = daemonjson_uninstall (&e, &err);
        }
      if (rc < 0)
        {
          FUZZ_ASSERT (err != NULL && e.status != DJ_DONE);
          kg_error_release (&err);
        }
      else
        {
          FUZZ_ASSERT (e.result != NULL);
          FUZZ_ASSERT (strlen (e.result) == e.result_len);
        }
      dj_edit_release (&e);
    }
  json_object_put (ent);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  kg_error_t err = NULL;
  struct json_object *root = daemonjson_parse ("daemon.json", (const char *) data, size, &err);
  struct json_object *again;
  char *out, *out2;
  size_t len = 0, len2 = 0;

  if (root == NULL)
    {
      FUZZ_ASSERT (err != NULL && strncmp (err->msg, "daemon.json:", 12) == 0);
      kg_error_release (&err);
      return 0;
    }
  out = daemonjson_format (root, &len, &err);
  FUZZ_ASSERT (out != NULL);
  FUZZ_ASSERT (strlen (out) == len);
  again = daemonjson_parse ("formatted", out, len, &err);
  if (again == NULL)
    fprintf (stderr, "reparse: %s\n", err->msg);
  FUZZ_ASSERT (again != NULL);
  out2 = daemonjson_format (again, &len2, &err);
  FUZZ_ASSERT (out2 != NULL && len2 == len && memcmp (out, out2, len) == 0);
  free (out);
  free (out2);
  json_object_put (again);
  json_object_put (root);
  edits (data, size);
  return 0;
}
