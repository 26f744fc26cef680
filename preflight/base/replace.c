/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The atomic replacement of a file (replace.h).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "error.h"
#include "fdio.h"
#include "replace.h"
#include "writer.h"

int
kg_replace_open (const char *path, size_t max, struct kg_replace *r, kg_error_t *err)
{
  cleanup_free char *dir = NULL;
  cleanup_close int fd = -1;
  struct stat st;
  char *slash;

  memset (r, 0, sizeof *r);
  r->dirfd = -1;
  if (lstat (path, &st) == 0 && S_ISLNK (st.st_mode))
    {
      /* A symlinked daemon.json (into a config repository, say) stays a
         symlink: its target is what gets replaced. */
      r->path = realpath (path, NULL);
      if (r->path == NULL)
        {
          int e = errno;

          return kg_error (err, e, "%s is a symbolic link that cannot be resolved", path);
        }
    }
  else
    {
      if (path[0] == '/')
        r->path = strdup (path);
      else
        {
          cleanup_free char *cwd = getcwd (NULL, 0);

          if (cwd == NULL || asprintf (&r->path, "%s/%s", cwd, path) < 0)
            r->path = NULL;
        }
    }
  if (r->path == NULL)
    return kg_error (err, errno ? errno : ENOMEM, "%s", path);
  slash = strrchr (r->path, '/');
  if (slash == NULL || slash[1] == '\0')
    return kg_error (err, 0, "%s: not a file name", path);
  r->base = strdup (slash + 1);
  dir = strndup (r->path, (size_t) (slash - r->path));
  if (r->base == NULL || dir == NULL)
    return kg_error (err, ENOMEM, "cannot allocate");
  r->dirfd = open (*dir ? dir : "/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (r->dirfd < 0)
    return kg_error (err, errno, "%s: its directory %s", r->path, *dir ? dir : "/");
  if (flock (r->dirfd, LOCK_EX) < 0)
    return kg_error (err, errno, "%s: cannot lock its directory", r->path);
  {
    int n = writer_sweep (r->dirfd, r->path, r->base, err);

    if (n < 0)
      return -1;
    r->removed_temps = (unsigned) n;
  }
  /* O_NOFOLLOW: the link was resolved above; one appearing now is a race. */
  fd = openat (r->dirfd, r->base, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0)
    {
      if (errno == ENOENT)
        return 0;
      return kg_error (err, errno, "%s", r->path);
    }
  if (fstat (fd, &r->st) < 0)
    return kg_error (err, errno, "%s", r->path);
  if (! S_ISREG (r->st.st_mode))
    return kg_error (err, 0, "%s is not a regular file", r->path);
  if (kg_read_fd_bounded (fd, r->path, max, &r->data, &r->len, err) < 0)
    return -1;
  r->exists = true;
  return 0;
}

/* Write DATA to a new temporary file in the directory, given LIKE's
   owner and mode (new files: the writer's own, 0644: root's wherever
   install runs for real; a build's unit tests run it as another user),
   fsync'd; its name in NAME. */
static int
write_temp (struct kg_replace *r, const char *data, size_t len, const struct stat *like,
            char name[NAME_MAX + 1], kg_error_t *err)
{
  return writer_temp (r->dirfd, r->path, r->base, data, len, like ? like->st_uid : geteuid (),
                      like ? like->st_gid : getegid (), like ? like->st_mode & 07777 : 0644, 0,
                      name, err);
}

static int
make_backup (struct kg_replace *r, char **backup_path, kg_error_t *err)
{
  cleanup_free char *bak = NULL;
  char tmp[NAME_MAX + 1];
  struct stat st;

  if (asprintf (&bak, "%s" KG_BACKUP_SUFFIX, r->base) < 0)
    return kg_error (err, ENOMEM, "cannot allocate");
  /* The backup keeps the file as it was before kata-guard first changed
     it: one that exists already is never replaced. */
  if (fstatat (r->dirfd, bak, &st, AT_SYMLINK_NOFOLLOW) == 0)
    return 0;
  if (errno != ENOENT)
    return kg_error (err, errno, "%s%s", r->path, KG_BACKUP_SUFFIX);
  if (write_temp (r, r->data, r->len, &r->st, tmp, err) < 0)
    return -1;
  if (renameat2 (r->dirfd, tmp, r->dirfd, bak, RENAME_NOREPLACE) < 0)
    {
      int e = errno;

      unlinkat (r->dirfd, tmp, 0);
      if (e == EEXIST)
        return 0;
      return kg_error (err, e, "%s%s", r->path, KG_BACKUP_SUFFIX);
    }
  if (backup_path != NULL && asprintf (backup_path, "%s" KG_BACKUP_SUFFIX, r->path) < 0)
    *backup_path = NULL;
  return 0;
}

int
kg_replace_commit (struct kg_replace *r, const char *data, size_t len, bool backup,
                   char **backup_path, kg_error_t *err)
{
  char tmp[NAME_MAX + 1];

  if (backup_path != NULL)
    *backup_path = NULL;
  if (backup && r->exists && make_backup (r, backup_path, err) < 0)
    return -1;
  if (write_temp (r, data, len, r->exists ? &r->st : NULL, tmp, err) < 0)
    return -1;
  /* The rename is the one moment the file changes: before it a reader
     sees the old bytes, after it the new ones, never a mix. */
  if (renameat (r->dirfd, tmp, r->dirfd, r->base) < 0)
    {
      int e = errno;

      unlinkat (r->dirfd, tmp, 0);
      return kg_error (err, e, "%s: cannot replace it", r->path);
    }
  /* Without this a crash could bring back the old directory entry. */
  if (fsync (r->dirfd) < 0)
    return kg_error (err, errno, "%s: fsync of its directory", r->path);
  return 0;
}

int
kg_replace_remove (struct kg_replace *r, kg_error_t *err)
{
  if (unlinkat (r->dirfd, r->base, 0) < 0)
    return kg_error (err, errno, "%s: cannot remove it", r->path);
  if (fsync (r->dirfd) < 0)
    return kg_error (err, errno, "%s: fsync of its directory", r->path);
  return 0;
}

void
kg_replace_close (struct kg_replace *r)
{
  free (r->path);
  free (r->base);
  free (r->data);
  if (r->dirfd >= 0)
    close (r->dirfd); /* drops the lock */
  memset (r, 0, sizeof *r);
  r->dirfd = -1;
}
