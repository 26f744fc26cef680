/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The atomic replacement of a file (replace.h).
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "replace.h"
#include "util.h"

static bool
is_temp_name (const char *name, const char *base)
{
  size_t bl = strlen (base), il = strlen (KG_TEMP_INFIX);

  return name[0] == '.' && strncmp (name + 1, base, bl) == 0
         && strncmp (name + 1 + bl, KG_TEMP_INFIX, il) == 0 && strlen (name + 1 + bl + il) == 6;
}

/* A writer killed between creating its temporary file and renaming it
   leaves ".BASE.kata-guard.XXXXXX" behind.  Under the lock nobody else is
   writing, so any such regular file is a leftover. */
static int
remove_leftovers (struct kg_replace *r, kg_error_t *err)
{
  int dfd = openat (r->dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  DIR *d;
  struct dirent *de;

  if (dfd < 0)
    return kg_error (err, errno, "%s: cannot list its directory", r->path);
  d = fdopendir (dfd);
  if (d == NULL)
    {
      close (dfd);
      return kg_error (err, errno, "%s: cannot list its directory", r->path);
    }
  while ((de = readdir (d)) != NULL)
    {
      struct stat st;

      if (! is_temp_name (de->d_name, r->base))
        continue;
      if (fstatat (r->dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 || ! S_ISREG (st.st_mode))
        continue;
      if (unlinkat (r->dirfd, de->d_name, 0) == 0)
        r->removed_temps++;
    }
  closedir (d);
  return 0;
}

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
  if (remove_leftovers (r, err) < 0)
    return -1;
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

/* Fill the new file FD with DATA, give it LIKE's owner and mode (or 0644)
   and fsync it. */
static int
fill_temp (struct kg_replace *r, int fd, const char *data, size_t len, const struct stat *like,
           kg_error_t *err)
{
  size_t done = 0;

  while (done < len)
    {
      ssize_t n = write (fd, data + done, len - done);

      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        return kg_error (err, n < 0 ? errno : EIO, "%s: write", r->path);
      done += (size_t) n;
    }
  /* Owner first: chown clears the set-id bits a chmod would set. */
  if (like != NULL && fchown (fd, like->st_uid, like->st_gid) < 0)
    return kg_error (err, errno, "%s: cannot give the new file the owner %u:%u", r->path,
                     (unsigned) like->st_uid, (unsigned) like->st_gid);
  if (fchmod (fd, like != NULL ? like->st_mode & 07777 : 0644) < 0)
    return kg_error (err, errno, "%s: chmod", r->path);
  if (fsync (fd) < 0)
    return kg_error (err, errno, "%s: fsync", r->path);
  return 0;
}

/* Write DATA to a new temporary file in the directory (see fill_temp).
   Returns its descriptor, its name in NAME. */
static int
write_temp (struct kg_replace *r, const char *data, size_t len, const struct stat *like,
            char name[NAME_MAX + 1], kg_error_t *err)
{
  static const char alphabet[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  cleanup_close int fd = -1;

  if (strlen (r->base) + 1 + strlen (KG_TEMP_INFIX) + 6 > NAME_MAX)
    return kg_error (err, ENAMETOOLONG, "%s", r->path);
  for (int tries = 0; fd < 0; tries++)
    {
      unsigned char rnd[6];
      char suffix[7];

      if (tries == 100)
        return kg_error (err, EEXIST, "%s: cannot create a temporary file", r->path);
      if (getrandom (rnd, sizeof rnd, 0) != (ssize_t) sizeof rnd)
        return kg_error (err, errno, "getrandom");
      for (size_t i = 0; i < 6; i++)
        suffix[i] = alphabet[rnd[i] % (sizeof alphabet - 1)];
      suffix[6] = '\0';
      snprintf (name, NAME_MAX + 1, ".%s%s%s", r->base, KG_TEMP_INFIX, suffix);
      fd = openat (r->dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
      if (fd < 0 && errno != EEXIST)
        return kg_error (err, errno, "%s: cannot create a temporary file beside it", r->path);
    }
  if (fill_temp (r, fd, data, len, like, err) < 0)
    {
      unlinkat (r->dirfd, name, 0);
      return -1;
    }
  return steal_fd (&fd);
}

static int
make_backup (struct kg_replace *r, char **backup_path, kg_error_t *err)
{
  cleanup_free char *bak = NULL;
  char tmp[NAME_MAX + 1];
  struct stat st;
  int fd;

  if (asprintf (&bak, "%s" KG_BACKUP_SUFFIX, r->base) < 0)
    return kg_error (err, ENOMEM, "cannot allocate");
  /* The backup keeps the file as it was before kata-guard first changed
     it: one that exists already is never replaced. */
  if (fstatat (r->dirfd, bak, &st, AT_SYMLINK_NOFOLLOW) == 0)
    return 0;
  if (errno != ENOENT)
    return kg_error (err, errno, "%s%s", r->path, KG_BACKUP_SUFFIX);
  fd = write_temp (r, r->data, r->len, &r->st, tmp, err);
  if (fd < 0)
    return -1;
  close (fd);
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
  int fd;

  if (backup_path != NULL)
    *backup_path = NULL;
  if (backup && r->exists && make_backup (r, backup_path, err) < 0)
    return -1;
  fd = write_temp (r, data, len, r->exists ? &r->st : NULL, tmp, err);
  if (fd < 0)
    return -1;
  close (fd);
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
kg_replace_file (const char *path, size_t max, const char *data, size_t len, kg_error_t *err)
{
  cleanup_replace struct kg_replace r = { .dirfd = -1 };

  if (kg_replace_open (path, max, &r, err) < 0)
    return -1;
  return kg_replace_commit (&r, data, len, false, NULL, err);
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
