/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The one way kata-guard writes a file of its own (writer.h). */
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

#include "cleanup.h"
#include "error.h"
#include "fdio.h"
#include "trust.h"
#include "writer.h"

/* The rule's one wording, before what the walk found. */
#define UNTRUSTED "kata-guard writes only where root alone can change the path"

/* PATH as an absolute path (relative to the working directory), in
   *ABS (caller frees). */
static int
absolute (const char *path, char **abs, kg_error_t *err)
{
  if (path[0] == '/')
    *abs = strdup (path);
  else
    {
      cleanup_free char *cwd = getcwd (NULL, 0);

      if (cwd == NULL || asprintf (abs, "%s/%s", cwd, path) < 0)
        *abs = NULL;
    }
  if (*abs == NULL)
    return kg_error (err, errno ? errno : ENOMEM, "%s", path);
  return 0;
}

/* The trusted directory DIR as an O_RDONLY|O_DIRECTORY descriptor. */
static int
trusted_dir (const char *dir, kg_error_t *err)
{
  struct trust_info info;
  cleanup_close int fd = trust_open (dir, TRUST_DIR, &info, err);

  if (fd < 0)
    return -1;
  return trust_reopen (fd, O_RDONLY | O_DIRECTORY, &info.st, err);
}

/* The trusted directory DIR (absolute, no trailing slash, changed in
   place and restored); with MKDIR_MODE, what is missing of it is made,
   one directory at a time, each in its parent that was walked and found
   trusted (as mkdir -p, without following anything the walk would not). */
static int
trusted_dir_made (char *dir, mode_t mkdir_mode, kg_error_t *err)
{
  cleanup_error kg_error_t derr = NULL;
  cleanup_close int parent = -1;
  char *slash;
  int fd = trusted_dir (*dir ? dir : "/", &derr);

  if (fd >= 0 || mkdir_mode == 0 || derr->errnum != ENOENT || *dir == '\0')
    {
      if (fd < 0)
        {
          *err = derr;
          derr = NULL;
        }
      return fd;
    }
  slash = strrchr (dir, '/');
  *slash = '\0';
  parent = trusted_dir_made (dir, mkdir_mode, err);
  *slash = '/';
  if (parent < 0)
    return -1;
  /* Root's with exactly MKDIR_MODE, whatever the umask or a set-group-ID
     parent would give it. */
  if (mkdirat (parent, slash + 1, mkdir_mode) == 0)
    {
      if (fchownat (parent, slash + 1, 0, 0, AT_SYMLINK_NOFOLLOW) < 0
          || fchmodat (parent, slash + 1, mkdir_mode, 0) < 0)
        return kg_error (err, errno, "mkdir %s", dir);
    }
  else if (errno != EEXIST)
    return kg_error (err, errno, "mkdir %s", dir);
  return trusted_dir (dir, err);
}

/* writer_open_dir, with the directory's path in *DIRPATH (caller frees). */
static int
open_dir (const char *path, mode_t mkdir_mode, char **dirpath, char **name, kg_error_t *err)
{
  cleanup_free char *abs = NULL;
  cleanup_error kg_error_t derr = NULL;
  char *slash;
  int fd;

  *name = NULL;
  *dirpath = NULL;
  if (absolute (path, &abs, err) < 0)
    return -1;
  slash = strrchr (abs, '/');
  if (slash[1] == '\0' || strcmp (slash + 1, ".") == 0 || strcmp (slash + 1, "..") == 0)
    return kg_error (err, EINVAL, "%s: not a file name", path);
  *slash = '\0';
  fd = trusted_dir_made (abs, mkdir_mode, &derr);
  if (fd < 0)
    {
      if (derr->errnum == ENOENT)
        return kg_error (err, ENOENT, "%s: its directory %s", path, *abs ? abs : "/");
      return kg_error (err, derr->errnum, "%s: " UNTRUSTED ": %s", path, derr->msg);
    }
  *name = strdup (slash + 1);
  *dirpath = strdup (*abs ? abs : "/");
  if (*name == NULL || *dirpath == NULL)
    {
      close (fd);
      free (*name);
      free (*dirpath);
      *name = *dirpath = NULL;
      return kg_error (err, ENOMEM, "cannot allocate");
    }
  return fd;
}

int
writer_open_dir (const char *path, mode_t mkdir_mode, char **name, kg_error_t *err)
{
  cleanup_free char *dirpath = NULL;

  return open_dir (path, mkdir_mode, &dirpath, name, err);
}

static bool
is_temp_name (const char *entry, const char *name)
{
  size_t nl = strlen (name), il = strlen (WRITER_TEMP_INFIX);

  return entry[0] == '.' && strncmp (entry + 1, name, nl) == 0
         && strncmp (entry + 1 + nl, WRITER_TEMP_INFIX, il) == 0
         && strlen (entry + 1 + nl + il) == 6;
}

int
writer_sweep (int dir, const char *shown, const char *name, kg_error_t *err)
{
  int dfd = openat (dir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  int removed = 0;
  DIR *d;
  struct dirent *de;

  if (dfd < 0)
    return kg_error (err, errno, "%s: cannot list it", shown);
  d = fdopendir (dfd);
  if (d == NULL)
    {
      close (dfd);
      return kg_error (err, errno, "%s: cannot list it", shown);
    }
  while ((de = readdir (d)) != NULL)
    {
      struct stat st;

      if (! is_temp_name (de->d_name, name))
        continue;
      if (fstatat (dir, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 || ! S_ISREG (st.st_mode))
        continue;
      if (unlinkat (dir, de->d_name, 0) == 0)
        removed++;
    }
  closedir (d);
  return removed;
}

int
writer_temp (int dir, const char *shown, const char *name, const void *buf, size_t len, uid_t uid,
             gid_t gid, mode_t mode, unsigned flags, char tmp[], kg_error_t *err)
{
  static const char alphabet[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  cleanup_close int fd = -1;
  int e;

  if (strlen (name) + 1 + strlen (WRITER_TEMP_INFIX) + 6 > NAME_MAX)
    return kg_error (err, ENAMETOOLONG, "%s/%s", shown, name);
  for (int tries = 0; fd < 0; tries++)
    {
      unsigned char rnd[6];
      char suffix[7];

      if (tries == 100)
        return kg_error (err, EEXIST, "%s/%s: cannot create a temporary file", shown, name);
      if (getrandom (rnd, sizeof rnd, 0) != (ssize_t) sizeof rnd)
        return kg_error (err, errno, "getrandom");
      for (size_t i = 0; i < 6; i++)
        suffix[i] = alphabet[rnd[i] % (sizeof alphabet - 1)];
      suffix[6] = '\0';
      snprintf (tmp, NAME_MAX + 1, ".%s%s%s", name, WRITER_TEMP_INFIX, suffix);
      fd = openat (dir, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
      if (fd < 0 && errno != EEXIST)
        return kg_error (err, errno, "%s/%s: cannot create a temporary file beside it", shown,
                         name);
    }
  /* Owner first: chown clears the set-id bits a chmod would set.  The
     umask only takes bits away; the mode is made exact. */
  if (kg_write_all (fd, buf, len) < 0)
    e = errno, kg_error (err, e, "%s/%s: write", shown, name);
  else if (fchown (fd, uid, gid) < 0)
    e = errno, kg_error (err, e, "%s/%s: cannot give the new file the owner %u:%u", shown, name,
                         (unsigned) uid, (unsigned) gid);
  else if (fchmod (fd, mode) < 0)
    e = errno, kg_error (err, e, "%s/%s: chmod", shown, name);
  else if (! (flags & WRITER_VOLATILE) && fsync (fd) < 0)
    e = errno, kg_error (err, e, "%s/%s: fsync", shown, name);
  else
    return 0;
  unlinkat (dir, tmp, 0);
  return -1;
}

static int
replace_at (int dir, const char *shown, const char *name, const void *buf, size_t len, mode_t mode,
            unsigned flags, kg_error_t *err)
{
  char tmp[NAME_MAX + 1];
  struct stat st;

  /* Under the lock nobody else is writing NAME here: any temporary file
     of NAME's is a killed writer's. */
  if (! (flags & WRITER_VOLATILE) && writer_sweep (dir, shown, name, err) < 0)
    return -1;
  /* The name is replaced, never followed: only a regular file may be
     there (a symlink is root's doing in a trusted directory, and still
     not written through). */
  if (fstatat (dir, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && ! S_ISREG (st.st_mode))
    return kg_error (err, 0, "%s/%s is %s, not a regular file: kata-guard replaces only a file",
                     shown, name, S_ISLNK (st.st_mode) ? "a symbolic link" : "not a file");
  if (writer_temp (dir, shown, name, buf, len, 0, 0, mode, flags, tmp, err) < 0)
    return -1;
  /* The rename is the one moment the file changes: before it a reader
     sees the old bytes, after it the new ones, never a mix. */
  if (renameat (dir, tmp, dir, name) < 0)
    {
      int e = errno;

      unlinkat (dir, tmp, 0);
      return kg_error (err, e, "%s/%s: cannot replace it", shown, name);
    }
  /* Without this a crash could bring back the old directory entry. */
  if (! (flags & WRITER_VOLATILE) && fsync (dir) < 0)
    return kg_error (err, errno, "%s: fsync", shown);
  return 0;
}

int
writer_replace_at (int dir, const char *shown, const char *name, const void *buf, size_t len,
                   mode_t mode, unsigned flags, kg_error_t *err)
{
  int r;

  if (flags & WRITER_VOLATILE)
    return replace_at (dir, shown, name, buf, len, mode, flags, err);
  if (flock (dir, LOCK_EX) < 0)
    return kg_error (err, errno, "%s: cannot lock it", shown);
  r = replace_at (dir, shown, name, buf, len, mode, flags, err);
  flock (dir, LOCK_UN);
  return r;
}

int
writer_replace (const char *path, const void *buf, size_t len, mode_t mode, mode_t mkdir_mode,
                kg_error_t *err)
{
  cleanup_free char *name = NULL;
  cleanup_free char *dirpath = NULL;
  cleanup_close int dir = open_dir (path, mkdir_mode, &dirpath, &name, err);

  if (dir < 0)
    return -1;
  return writer_replace_at (dir, dirpath, name, buf, len, mode, 0, err);
}

int
writer_append (const char *path, const void *buf, size_t len, mode_t mode, kg_error_t *err)
{
  cleanup_free char *name = NULL;
  cleanup_close int dir = writer_open_dir (path, 0, &name, err);
  cleanup_close int fd = -1;

  if (dir < 0)
    return -1;
  /* Made here (O_EXCL), or opened as it is: never through a symlink
     (O_NOFOLLOW), never blocking on a FIFO (O_NONBLOCK). */
  fd = openat (dir, name,
               O_WRONLY | O_APPEND | O_CREAT | O_EXCL | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK
                   | O_CLOEXEC,
               mode);
  if (fd >= 0)
    {
      if (fchown (fd, 0, 0) < 0 || fchmod (fd, mode) < 0)
        return kg_error (err, errno, "%s: cannot make it root's", path);
    }
  else if (errno == EEXIST)
    fd = openat (dir, name, O_WRONLY | O_APPEND | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0)
    return kg_error (err, errno, "open %s", path);
  return writer_append_fd (fd, path, buf, len, true, err);
}

int
writer_append_fd (int fd, const char *path, const void *buf, size_t len, bool roots,
                  kg_error_t *err)
{
  struct stat st;
  char why[128];
  ssize_t n;

  if (fstat (fd, &st) < 0)
    return kg_error (err, errno, "fstat %s", path);
  if (! S_ISREG (st.st_mode))
    return kg_error (err, 0, "%s is not a regular file", path);
  if (roots && ! trust_stat_ok (&st, why, sizeof why))
    return kg_error (err, 0, "%s %s: kata-guard appends only to a file that root alone can change",
                     path, why);
  do
    n = write (fd, buf, len);
  while (n < 0 && errno == EINTR);
  if (n < 0)
    return kg_error (err, errno, "write %s", path);
  if ((size_t) n != len)
    return kg_error (err, 0, "write %s: short write (%zd of %zu bytes)", path, n, len);
  return 0;
}
