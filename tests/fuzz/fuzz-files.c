/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"

#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "conf.h"
#include "fuzz-files.h"
#include "fuzz.h"
#include "toml.h"

#define FUZZ_BASE "/var/lib/kata-guard-test"

static char dir[64];

static int
rm_one (const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
  (void) st;
  (void) flag;
  (void) ftw;
  remove (path);
  return 0;
}

static void
remove_dir (void)
{
  nftw (dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

const char *
fuzz_dir (void)
{
  if (dir[0] != '\0')
    return dir;
  /* The walk refuses a directory others can write: 0755 all the way. */
  if (mkdir (FUZZ_BASE, 0755) < 0 && access (FUZZ_BASE, F_OK) < 0)
    return NULL;
  strcpy (dir, FUZZ_BASE "/fuzz.XXXXXX");
  if (mkdtemp (dir) == NULL || chmod (dir, 0755) < 0)
    {
      dir[0] = '\0';
      return NULL;
    }
  atexit (remove_dir);
  return dir;
}

bool
fuzz_write (const char *name, const uint8_t *data, size_t size)
{
  char path[128], tmp[140];
  int fd;
  bool ok;

  if (fuzz_dir () == NULL)
    return false;
  snprintf (path, sizeof path, "%s/%s", dir, name);
  snprintf (tmp, sizeof tmp, "%s/.%s.tmp", dir, name);
  fd = open (tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0)
    return false;
  ok = write (fd, data, size) == (ssize_t) size && fchmod (fd, 0644) == 0;
  close (fd);
  return ok && rename (tmp, path) == 0;
}

void
fuzz_guard_config (const char *text, size_t len, struct guard_config *cfg)
{
  kg_error_t err = NULL;
  struct toml_value *doc = toml_parse ("fuzz-guard.toml", text, len, &err);

  if (doc == NULL || guard_config_from_toml ("fuzz-guard.toml", doc, cfg, &err) < 0)
    {
      fprintf (stderr, "fuzz: %s\n", err ? err->msg : "no message");
      FUZZ_ASSERT (! "the harness's guard config loads");
    }
  toml_free (doc);
}
