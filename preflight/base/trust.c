/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "error.h"
#include "trust.h"

bool
trust_stat_ok (const struct stat *st, char *why, size_t why_size)
{
  if (st->st_uid != 0)
    {
      snprintf (why, why_size, "is owned by uid %u, not root", (unsigned) st->st_uid);
      return false;
    }
  /* No exception for the sticky bit: /tmp is not a trusted place. */
  if (st->st_mode & (S_IWGRP | S_IWOTH))
    {
      snprintf (why, why_size, "is writable by %s (mode %04o)",
                (st->st_mode & S_IWOTH) ? "others" : "its group", (unsigned) (st->st_mode & 07777));
      return false;
    }
  return true;
}

/* Append "/COMP" to the physical path CUR (which is "/" or has no trailing
   slash). */
static int
path_push (char *cur, const char *comp, size_t len, kg_error_t *err)
{
  size_t n = strlen (cur);
  bool root = n == 1;

  if (n + 1 + len + 1 > PATH_MAX)
    return kg_error (err, ENAMETOOLONG, "%s/%.*s", root ? "" : cur, (int) len, comp);
  if (! root)
    cur[n++] = '/';
  memcpy (cur + n, comp, len);
  cur[n + len] = '\0';
  return 0;
}

static void
path_pop (char *cur)
{
  char *slash = strrchr (cur, '/');

  if (slash == cur)
    cur[1] = '\0';
  else if (slash != NULL)
    *slash = '\0';
}

static int
check_final (enum trust_final final, const char *path, const struct stat *st, kg_error_t *err)
{
  char why[128];

  if (final == TRUST_ANY)
    return 0;
  if (final == TRUST_DIR)
    {
      if (! S_ISDIR (st->st_mode))
        return kg_error (err, ENOTDIR, "%s", path);
    }
  else if (! S_ISREG (st->st_mode))
    return kg_error (err, 0, "%s is not a regular file", path);
  if (final != TRUST_REGULAR && ! trust_stat_ok (st, why, sizeof why))
    return kg_error (err, 0, "%s %s", path, why);
  if (final == TRUST_EXEC && ! (st->st_mode & (S_IXUSR | S_IXGRP | S_IXOTH)))
    return kg_error (err, EACCES, "%s is not executable", path);
  return 0;
}

/* The walk met the symlink LINKFD (LST), component COMP[0..LEN) below
   INFO->path: it must be root's, and its target is spliced in front of
   what remains of the walk (REST from *P on), which starts again at *P =
   REST; an absolute target restarts it at "/" (*DIR).  *ST is then the
   stat of the directory the walk goes on from.  PATH: the whole path, for
   messages. */
static int
follow_link (int linkfd, struct stat *st, const char *comp, size_t len, const char *path,
             char rest[2 * PATH_MAX], char **p, int *dir, struct trust_info *info, kg_error_t *err)
{
  char target[PATH_MAX];
  size_t tail = strlen (*p);
  ssize_t n;

  if (path_push (info->path, comp, len, err) < 0)
    return -1;
  if (st->st_uid != 0)
    return kg_error (err, 0, "symlink %s is owned by uid %u, not root", info->path,
                     (unsigned) st->st_uid);
  if (++info->symlinks > TRUST_MAX_SYMLINKS)
    return kg_error (err, ELOOP, "%s", path);
  n = readlinkat (linkfd, "", target, sizeof target);
  if (n < 0)
    return kg_error (err, errno, "readlink %s", info->path);
  if ((size_t) n >= sizeof target || n == 0)
    return kg_error (err, ENAMETOOLONG, "symlink %s", info->path);
  if ((size_t) n + 1 + tail + 1 > 2 * PATH_MAX)
    return kg_error (err, ENAMETOOLONG, "%s", path);
  /* rest = target + "/" + what was left after the link. */
  memmove (rest + n + 1, *p, tail + 1);
  memcpy (rest, target, (size_t) n);
  rest[n] = '/';
  *p = rest;
  path_pop (info->path);
  if (target[0] == '/')
    {
      close (*dir);
      *dir = open ("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
      if (*dir < 0 || fstat (*dir, st) < 0)
        return kg_error (err, errno, "/");
      strcpy (info->path, "/");
    }
  else if (fstat (*dir, st) < 0)
    return kg_error (err, errno, "%s", info->path);
  return 0;
}

/* ---- the walk's memo -------------------------------------------------- */

/* Directories a walk reached and found trusted, each by the literal
   prefix of the path it was asked for (up to a component, before any
   symlink of that walk), with its descriptor, its stat and its physical
   path: a later walk of a path under the same prefix starts there
   instead of walking from "/" again.  Only between trust_memo_start and
   trust_memo_end (the confined checker's one run), where nothing but root
   could change what the prefix leads to: every directory on the way is
   root's and writable by nobody else. */
#define TRUST_MEMO_MAX 16
struct trust_memo
{
  char *key; /* the prefix, without a trailing slash */
  size_t key_len;
  char *phys; /* info->path at that point */
  int fd;
  struct stat st;
};
static struct trust_memo memo[TRUST_MEMO_MAX];
static size_t n_memo;
static bool memo_on;

void
trust_memo_start (void)
{
  memo_on = true;
}

void
trust_memo_end (void)
{
  for (size_t i = 0; i < n_memo; i++)
    {
      free (memo[i].key);
      free (memo[i].phys);
      close (memo[i].fd);
    }
  n_memo = 0;
  memo_on = false;
}

/* The longest memo entry whose key is a prefix of PATH up to a slash. */
static const struct trust_memo *
memo_find (const char *path)
{
  const struct trust_memo *best = NULL;

  for (size_t i = 0; i < n_memo; i++)
    if ((best == NULL || memo[i].key_len > best->key_len)
        && strncmp (path, memo[i].key, memo[i].key_len) == 0 && path[memo[i].key_len] == '/')
      best = &memo[i];
  return best;
}

static bool
memo_find_exact (const char *key, size_t len)
{
  for (size_t i = 0; i < n_memo; i++)
    if (memo[i].key_len == len && memcmp (memo[i].key, key, len) == 0)
      return true;
  return false;
}

/* Remember DIR (stat ST, physical path PHYS) as where the literal prefix
   KEY[0..LEN) leads.  Best effort: a memo that is full or out of memory
   only walks again. */
static void
memo_add (const char *key, size_t len, const char *phys, int dir, const struct stat *st)
{
  struct trust_memo *m = &memo[n_memo];

  if (! memo_on || n_memo == TRUST_MEMO_MAX || memo_find_exact (key, len))
    return;
  m->fd = fcntl (dir, F_DUPFD_CLOEXEC, 3);
  if (m->fd < 0)
    return;
  m->key = strndup (key, len);
  m->phys = strdup (phys);
  if (m->key == NULL || m->phys == NULL)
    {
      free (m->key);
      free (m->phys);
      close (m->fd);
      return;
    }
  m->key_len = len;
  m->st = *st;
  n_memo++;
}

int
trust_open (const char *path, enum trust_final final, struct trust_info *info, kg_error_t *err)
{
  /* REST is what remains to walk; a symlink's target is spliced in front of
     it.  Two PATH_MAX halves bound it whatever the links hold. */
  char rest[2 * PATH_MAX];
  char why[128];
  cleanup_close int dir = -1;
  const struct trust_memo *m;
  /* A symlink was spliced into REST: its text is no longer PATH's, so the
     prefixes after it are not remembered as PATH's (an absolute
     target's would still be right, a relative one's could never match;
     neither is worth the reasoning in a trust primitive). */
  bool linked = false;
  struct stat st;
  char *p;

  if (path == NULL || path[0] != '/')
    return kg_error (err, EINVAL, "%s: not an absolute path", path ? path : "(null)");
  if (strlen (path) >= PATH_MAX)
    return kg_error (err, ENAMETOOLONG, "%.64s...", path);
  memset (info, 0, sizeof *info);
  strcpy (rest, path);
  p = rest;

  if (memo_on && (m = memo_find (path)) != NULL && (dir = fcntl (m->fd, F_DUPFD_CLOEXEC, 3)) >= 0)
    {
      strcpy (info->path, m->phys);
      st = m->st;
      p = rest + m->key_len;
    }
  else
    {
      strcpy (info->path, "/");
      dir = open ("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
      if (dir < 0 || fstat (dir, &st) < 0)
        return kg_error (err, errno, "/");
      if (! trust_stat_ok (&st, why, sizeof why))
        return kg_error (err, 0, "/ %s", why);
    }

  for (;;)
    {
      cleanup_close int fd = -1;
      char comp[NAME_MAX + 1];
      size_t len;
      bool last;

      while (*p == '/')
        p++;
      if (*p == '\0')
        {
          /* The path ended on a directory ("/", or a trailing slash). */
          if (check_final (final, info->path, &st, err) < 0)
            return -1;
          info->st = st;
          return steal_fd (&dir);
        }
      len = strcspn (p, "/");
      if (len > NAME_MAX)
        return kg_error (err, ENAMETOOLONG, "%s/%.32s...", info->path, p);
      memcpy (comp, p, len);
      comp[len] = '\0';
      p += len;
      last = p[strspn (p, "/")] == '\0';

      if (len == 1 && comp[0] == '.')
        continue;
      if (len == 2 && comp[0] == '.' && comp[1] == '.')
        {
          /* The physical parent: every directory above the current one was
             reached, and checked, on the way down. */
          fd = openat (dir, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
          if (fd < 0 || fstat (fd, &st) < 0)
            return kg_error (err, errno, "%s/..", info->path);
          path_pop (info->path);
          close (dir);
          dir = steal_fd (&fd);
          continue;
        }

      fd = openat (dir, comp, O_PATH | O_NOFOLLOW | O_CLOEXEC);
      if (fd < 0)
        {
          int e = errno;

          path_push (info->path, comp, len, NULL);
          return kg_error (err, e, "%s", info->path);
        }
      if (fstat (fd, &st) < 0)
        return kg_error (err, errno, "%s/%.*s", info->path, (int) len, comp);

      if (S_ISLNK (st.st_mode))
        {
          if (follow_link (fd, &st, comp, len, path, rest, &p, &dir, info, err) < 0)
            return -1;
          linked = true;
          continue;
        }

      if (path_push (info->path, comp, len, err) < 0)
        return -1;
      if (last)
        {
          if (check_final (final, info->path, &st, err) < 0)
            return -1;
          info->st = st;
          return steal_fd (&fd);
        }
      if (! S_ISDIR (st.st_mode))
        return kg_error (err, ENOTDIR, "%s", info->path);
      if (! trust_stat_ok (&st, why, sizeof why))
        return kg_error (err, 0, "directory %s %s", info->path, why);
      close (dir);
      dir = steal_fd (&fd);
      if (! linked)
        memo_add (rest, (size_t) (p - rest), info->path, dir, &st);
    }
}

int
trust_check_not_self (const struct stat *st, kg_error_t *err)
{
  struct stat self;

  if (stat ("/proc/self/exe", &self) < 0)
    return kg_error (err, errno, "cannot stat /proc/self/exe to rule out an exec loop");
  if (self.st_dev == st->st_dev && self.st_ino == st->st_ino)
    return kg_error (err, 0, "it is kata-guard itself: that would be an exec loop");
  return 0;
}

int
trust_reopen (int fd, int flags, const struct stat *st, kg_error_t *err)
{
  char proc[64];
  struct stat now;
  cleanup_close int nfd = -1;

  snprintf (proc, sizeof proc, "/proc/self/fd/%d", fd);
  nfd = open (proc, flags | O_CLOEXEC | O_NOCTTY);
  if (nfd < 0)
    return kg_error (err, errno, "reopen %s", proc);
  if (fstat (nfd, &now) < 0)
    return kg_error (err, errno, "fstat");
  if (now.st_dev != st->st_dev || now.st_ino != st->st_ino)
    return kg_error (err, 0, "the file changed while it was checked");
  return steal_fd (&nfd);
}
