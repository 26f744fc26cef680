/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The trusted-path walk, on real files, directories and symlinks. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "array.h"
#include "error.h"
#include "tap.h"
#include "test-files.h"
#include "trust.h"

static char base[] = "/var/lib/kg-test-trust.XXXXXX";

static char *
at (const char *rel)
{
  static char buf[4][PATH_MAX];
  static int i;

  i = (i + 1) % 4;
  snprintf (buf[i], sizeof buf[i], "%s/%s", base, rel);
  return buf[i];
}

static void
mkfile (const char *rel, mode_t mode)
{
  test_write_file (at (rel), "#!/bin/sh\n", mode);
}

/* Run the walk; return the error message (static) or NULL when it passed. */
static const char *
walk (const char *path, enum trust_final final, struct trust_info *info, int *errnum)
{
  static char msg[512];
  struct trust_info local;
  kg_error_t err = NULL;
  int fd = trust_open (path, final, info ? info : &local, &err);

  if (fd >= 0)
    {
      close (fd);
      return NULL;
    }
  snprintf (msg, sizeof msg, "%s", err->msg);
  if (errnum)
    *errnum = err->errnum;
  kg_error_release (&err);
  return msg;
}

#define passes(path, final, ...) ok (walk ((path), (final), NULL, NULL) == NULL, __VA_ARGS__)
#define fails_with(path, final, want, ...)                                                         \
  has_str (walk ((path), (final), NULL, NULL), (want), __VA_ARGS__)

int
main (void)
{
  struct trust_info info;
  const char *msg;
  int e = 0;

  if (geteuid () != 0)
    tap_skip_all ("needs root: the walk requires root-owned files");
  if (mkdtemp (base) == NULL || chmod (base, 0755) < 0)
    abort ();

  mkfile ("runtime", 0755);
  msg = walk (at ("runtime"), TRUST_EXEC, &info, NULL);
  ok (msg == NULL, "a root-owned 0755 file in a 0755 tree passes as an executable");
  is_str (info.path, at ("runtime"), "the physical path is reported");
  ok (S_ISREG (info.st.st_mode), "the final stat is returned");

  chmod (at ("runtime"), 0775);
  fails_with (at ("runtime"), TRUST_EXEC, "runtime is writable by its group (mode 0775)",
              "a group-writable file fails");
  chmod (at ("runtime"), 0757);
  fails_with (at ("runtime"), TRUST_EXEC, "is writable by others (mode 0757)",
              "an other-writable file fails");
  chmod (at ("runtime"), 0755);
  /* Another user's file and symlink: only where root can give one away
     (not in a user namespace that maps no other ids). */
  if (chown (at ("runtime"), 1000, 1000) == 0)
    {
      fails_with (at ("runtime"), TRUST_EXEC, "is owned by uid 1000, not root",
                  "a file not owned by root fails");
      passes (at ("runtime"), TRUST_REGULAR, "TRUST_REGULAR accepts any owner");
      if (chown (at ("runtime"), 0, 0) < 0)
        abort ();
    }
  else
    {
      ok (true, "# SKIP a file not owned by root: cannot give one to uid 1000 here (%s)",
          strerror (errno));
      ok (true, "# SKIP TRUST_REGULAR and another owner: cannot give a file to uid 1000 here");
    }

  mkfile ("config.toml", 0644);
  fails_with (at ("config.toml"), TRUST_EXEC, "is not executable",
              "a 0644 file is not an executable");
  passes (at ("config.toml"), TRUST_FILE, "a 0644 root file passes as a file");
  fails_with (at ("config.toml"), TRUST_DIR, "config.toml", "a file is not a directory");
  passes (base, TRUST_DIR, "the base passes as a directory");
  fails_with (base, TRUST_FILE, "is not a regular file", "a directory is not a regular file");

  mkdir (at ("open"), 0777);
  chmod (at ("open"), 0777);
  mkfile ("open/runtime", 0755);
  fails_with (at ("open/runtime"), TRUST_EXEC, "directory ",
              "a file in a world-writable directory fails");
  fails_with (at ("open/runtime"), TRUST_EXEC, "open is writable by others (mode 0777)",
              "the world-writable directory is named");
  chmod (at ("open"), 01777);
  fails_with (at ("open/runtime"), TRUST_EXEC, "open is writable by others (mode 1777)",
              "the sticky bit does not make a directory trusted");
  chmod (at ("open"), 0775);
  fails_with (at ("open/runtime"), TRUST_EXEC, "writable by its group",
              "a group-writable directory fails");
  chmod (at ("open"), 0755);
  passes (at ("open/runtime"), TRUST_EXEC, "the same tree passes once the directory is 0755");

  if (symlink ("runtime", at ("link")) < 0 || symlink (at ("open/runtime"), at ("abslink")) < 0
      || symlink ("open/../runtime", at ("dotlink")) < 0 || symlink ("loop2", at ("loop1")) < 0
      || symlink ("loop1", at ("loop2")) < 0 || symlink ("missing", at ("dangling")) < 0
      || symlink ("/tmp", at ("tmplink")) < 0)
    abort ();
  msg = walk (at ("link"), TRUST_EXEC, &info, NULL);
  ok (msg == NULL, "a relative symlink to a trusted file passes");
  is_str (info.path, at ("runtime"), "the symlink is resolved in the reported path");
  is_int (info.symlinks, 1, "one symlink followed");
  msg = walk (at ("abslink"), TRUST_EXEC, &info, NULL);
  ok (msg == NULL, "an absolute symlink passes");
  is_str (info.path, at ("open/runtime"), "the absolute target is reported");
  msg = walk (at ("dotlink"), TRUST_EXEC, &info, NULL);
  ok (msg == NULL, "a symlink through .. passes");
  is_str (info.path, at ("runtime"), ".. is resolved physically");

  msg = walk (at ("loop1"), TRUST_EXEC, NULL, &e);
  ok (msg != NULL && e == ELOOP, "a symlink loop fails with ELOOP");
  msg = walk (at ("dangling"), TRUST_EXEC, NULL, &e);
  ok (msg != NULL && e == ENOENT, "a dangling symlink fails with ENOENT");
  has_str (msg, "missing", "the missing target is named");
  fails_with (at ("tmplink/x"), TRUST_EXEC, "/tmp is writable by others",
              "a symlink into /tmp fails");
  msg = walk (at ("nothing/here"), TRUST_EXEC, NULL, &e);
  ok (msg != NULL && e == ENOENT, "a missing path fails with ENOENT");
  fails_with (at ("runtime/x"), TRUST_EXEC, "Not a directory", "a file used as a directory fails");
  fails_with ("relative/path", TRUST_EXEC, "not an absolute path", "a relative path is refused");

  if (lchown (at ("link"), 1000, 1000) == 0)
    {
      fails_with (at ("link"), TRUST_EXEC, "symlink ", "a symlink not owned by root fails");
      fails_with (at ("link"), TRUST_EXEC, "is owned by uid 1000, not root",
                  "the symlink's owner is named");
    }
  else
    {
      ok (true, "# SKIP a symlink not owned by root: cannot give one to uid 1000 here (%s)",
          strerror (errno));
      ok (true, "# SKIP the symlink's owner: cannot give a symlink to uid 1000 here");
    }

  /* The descriptor is the file that passed, and can be reopened. */
  {
    kg_error_t err = NULL;
    int fd = trust_open (at ("config.toml"), TRUST_FILE, &info, &err);
    int rfd = fd >= 0 ? trust_reopen (fd, O_RDONLY, &info.st, &err) : -1;
    char buf[3] = { 0 };

    ok (rfd >= 0 && read (rfd, buf, 2) == 2 && strcmp (buf, "#!") == 0,
        "trust_reopen reads the checked file");
    if (fd >= 0)
      close (fd);
    if (rfd >= 0)
      close (rfd);
    kg_error_release (&err);
  }

  /* The memo (the confined checker's one run): every walk answers as a
     walk from "/" does, whichever prefix it starts from. */
  {
    static const char *const paths[] = {
      "memo/a/b/file",    "memo/a/ln/file",   "memo/a/b/../b/file", "memo/a/b/up",
      "memo/a/open/file", "memo/a/b/missing", "memo/a/b/file/x",    "memo/a//b/file",
      "memo/a/b/./file",  "memo/a/b",
    };
    char want[ARRAY_SIZE (paths)][512], got[512];
    struct trust_info winfo[ARRAY_SIZE (paths)];
    bool same = true;

    if (mkdir (at ("memo"), 0755) < 0 || mkdir (at ("memo/a"), 0755) < 0
        || mkdir (at ("memo/a/b"), 0755) < 0 || mkdir (at ("memo/a/open"), 0777) < 0
        || chmod (at ("memo/a/open"), 0777) < 0 || symlink ("b", at ("memo/a/ln")) < 0
        || symlink ("../b/file", at ("memo/a/b/up")) < 0)
      abort ();
    mkfile ("memo/a/b/file", 0755);
    mkfile ("memo/a/open/file", 0755);
    for (size_t i = 0; i < ARRAY_SIZE (paths); i++)
      {
        msg = walk (at (paths[i]), TRUST_ANY, &winfo[i], NULL);
        snprintf (want[i], sizeof want[i], "%s", msg ? msg : "pass");
      }
    trust_memo_start ();
    for (int round = 0; round < 2; round++)
      for (size_t i = 0; i < ARRAY_SIZE (paths); i++)
        {
          msg = walk (at (paths[i]), TRUST_ANY, &info, NULL);
          snprintf (got, sizeof got, "%s", msg ? msg : "pass");
          if (strcmp (got, want[i]) != 0
              || (msg == NULL
                  && (strcmp (info.path, winfo[i].path) != 0 || info.st.st_ino != winfo[i].st.st_ino
                      || info.symlinks != winfo[i].symlinks)))
            {
              printf ("# %s: %s, not %s (%s)\n", paths[i], got, want[i], info.path);
              same = false;
            }
        }
    ok (same, "with the memo, twice over, every walk ends where and as a walk from / does");
    fails_with (at ("memo/a/open/file"), TRUST_EXEC, "open is writable by others",
                "a directory below a remembered one is still checked");
    /* Within the run the memo stands for the walk (only root could change
       a trusted directory); after it, every walk starts at / again. */
    chmod (at ("memo/a/b"), 0777);
    passes (at ("memo/a/b/file"), TRUST_EXEC,
            "within the run, the walk starts at the remembered directory");
    trust_memo_end ();
    fails_with (at ("memo/a/b/file"), TRUST_EXEC, "b is writable by others (mode 0777)",
                "after trust_memo_end the walk starts at / and sees the change");
    chmod (at ("memo/a/b"), 0755);
    /* A prefix reached through a symlink is not remembered by the
       literal path (the walk's text is no longer the path asked for). */
    trust_memo_start ();
    passes (at ("memo/a/ln/file"), TRUST_EXEC, "through the symlink");
    if (unlink (at ("memo/a/ln")) < 0 || symlink ("open", at ("memo/a/ln")) < 0)
      abort ();
    fails_with (at ("memo/a/ln/file"), TRUST_EXEC, "open is writable by others",
                "the symlink is followed again at the next walk");
    trust_memo_end ();
  }

  {
    char cmd[PATH_MAX + 16];

    snprintf (cmd, sizeof cmd, "rm -rf '%s'", base);
    if (system (cmd) != 0)
      printf ("# could not remove %s\n", base);
  }
  return tap_done ();
}
