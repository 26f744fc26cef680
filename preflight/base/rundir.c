/* SPDX-License-Identifier: GPL-2.0-or-later */
/* root's private state under /run/kata-guard (rundir.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "error.h"
#include "fdio.h"
#include "rundir.h"
#include "trust.h"
#include "writer.h"

#define RUNDIR_PARENT "/run"
#define RUNDIR_NAME "kata-guard"

/* The directory PATH as a readable descriptor when it is root's alone:
   trust_open allows group/other read, this allows nothing. */
static int
private_dir (const char *path, kg_error_t *err)
{
  struct trust_info info;
  cleanup_close int fd = trust_open (path, TRUST_DIR, &info, err);

  if (fd < 0)
    return -1;
  if ((info.st.st_mode & 077) != 0)
    return kg_error (err, 0, "%s is accessible by group or others (mode %04o)", path,
                     (unsigned) (info.st.st_mode & 07777));
  return trust_reopen (fd, O_RDONLY | O_DIRECTORY, &info.st, err);
}

/* PATH (whose last component is NAME, in the trusted directory PARENT),
   made 0700 when CREATE and missing. */
static int
open_or_make (const char *parent, const char *name, const char *path, bool create, kg_error_t *err)
{
  int fd = private_dir (path, err);

  if (fd >= 0 || ! create || (*err)->errnum != ENOENT)
    return fd;
  kg_error_release (err);
  {
    struct trust_info info;
    cleanup_close int up = trust_open (parent, TRUST_DIR, &info, err);
    cleanup_close int dir = -1;

    if (up < 0)
      return -1;
    dir = trust_reopen (up, O_RDONLY | O_DIRECTORY, &info.st, err);
    if (dir < 0)
      return -1;
    if (mkdirat (dir, name, 0700) < 0 && errno != EEXIST)
      return kg_error (err, errno, "mkdir %s", path);
  }
  return private_dir (path, err);
}

int
rundir_open (const char *sub, bool create, kg_error_t *err)
{
  char path[sizeof RUNDIR + NAME_MAX + 1];
  cleanup_close int top = -1;

  if (sub != NULL && (sub[0] == '\0' || strchr (sub, '/') != NULL || strlen (sub) > NAME_MAX))
    return kg_error (err, EINVAL, "%s: not a name under %s", sub, RUNDIR);
  top = open_or_make (RUNDIR_PARENT, RUNDIR_NAME, RUNDIR, create, err);
  if (top < 0 || sub == NULL)
    return top < 0 ? -1 : steal_fd (&top);
  snprintf (path, sizeof path, "%s/%s", RUNDIR, sub);
  return open_or_make (RUNDIR, sub, path, create, err);
}

int
rundir_write (int dir, const char *shown, const char *name, const void *buf, size_t len,
              kg_error_t *err)
{
  return writer_replace_at (dir, shown, name, buf, len, WRITER_PRIVATE, WRITER_VOLATILE, err);
}

int
rundir_read (int dir, const char *shown, const char *name, size_t max, char **buf, size_t *len,
             kg_error_t *err)
{
  cleanup_close int fd = openat (dir, name,
                                 O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  struct stat st;

  if (fd < 0)
    return kg_error (err, errno, "%s/%s", shown, name);
  if (fstat (fd, &st) < 0)
    return kg_error (err, errno, "%s/%s", shown, name);
  if (! S_ISREG (st.st_mode) || st.st_uid != 0 || (st.st_mode & 077) != 0)
    return kg_error (err, 0,
                     "%s/%s is not a regular file owned by root and private to it (uid %u, "
                     "mode %04o)",
                     shown, name, (unsigned) st.st_uid, (unsigned) (st.st_mode & 07777));
  {
    char path[PATH_MAX];

    snprintf (path, sizeof path, "%s/%s", shown, name);
    return kg_read_fd_bounded (fd, path, max, buf, len, err);
  }
}
