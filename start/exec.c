/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Executing the verified runtime, and nothing else (exec.h). */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cleanup.h"
#include "error.h"
#include "exec.h"
#include "trust.h"

extern char **environ;

/* Descriptors open at start.  More than this many is not something an
   engine does; then the record is given up and nothing is re-flagged
   (every descriptor the guard opens is O_CLOEXEC anyway). */
#define INHERITED_MAX 1024

static int inherited[INHERITED_MAX];
static size_t n_inherited;
static bool inherited_known;

/* Call FN for every open descriptor but the directory's own. */
static int
each_fd (void (*fn) (int fd, void *data), void *data)
{
  DIR *d = opendir ("/proc/self/fd");
  struct dirent *e;

  if (d == NULL)
    return -1;
  while ((e = readdir (d)) != NULL)
    {
      char *end;
      long fd;

      if (e->d_name[0] < '0' || e->d_name[0] > '9')
        continue;
      errno = 0;
      fd = strtol (e->d_name, &end, 10);
      if (errno != 0 || *end != '\0' || fd < 0 || fd > INT32_MAX || fd == dirfd (d))
        continue;
      fn ((int) fd, data);
    }
  closedir (d);
  return 0;
}

static void
note_one (int fd, void *data)
{
  bool *overflow = data;

  if (n_inherited < INHERITED_MAX)
    inherited[n_inherited++] = fd;
  else
    *overflow = true;
}

void
exec_note_inherited (void)
{
  bool overflow = false;

  n_inherited = 0;
  inherited_known = each_fd (note_one, &overflow) == 0 && ! overflow;
}

bool
exec_fd_inherited (int fd)
{
  if (! inherited_known)
    return true;
  for (size_t i = 0; i < n_inherited; i++)
    if (inherited[i] == fd)
      return true;
  return false;
}

static void
seal_one (int fd, void *data)
{
  int keep = *(int *) data;
  int flags;

  if (fd == keep || exec_fd_inherited (fd))
    return;
  flags = fcntl (fd, F_GETFD);
  if (flags >= 0 && ! (flags & FD_CLOEXEC))
    fcntl (fd, F_SETFD, flags | FD_CLOEXEC);
}

int
exec_is_script (int fd, bool *script, kg_error_t *err)
{
  cleanup_close int rfd = -1;
  unsigned char magic[2];
  struct stat st;
  ssize_t n;

  if (fstat (fd, &st) < 0)
    return kg_error (err, errno, "fstat of the runtime descriptor");
  rfd = trust_reopen (fd, O_RDONLY, &st, err);
  if (rfd < 0 && err != NULL && *err != NULL && (*err)->errnum == EACCES)
    {
      /* Execute-only: no interpreter could read it either, so it can only
         run as a binary. */
      kg_error_release (err);
      *script = false;
      return 0;
    }
  if (rfd < 0)
    return -1;
  do
    n = pread (rfd, magic, sizeof magic, 0);
  while (n < 0 && errno == EINTR);
  if (n < 0)
    return kg_error (err, errno, "read the runtime's first bytes");
  *script = n == 2 && magic[0] == '#' && magic[1] == '!';
  return 0;
}

int
exec_runtime (int fd, char *const argv[], kg_error_t *err)
{
  bool script = false;
  int keep = -1;

  if (exec_is_script (fd, &script, err) < 0)
    return kg_error_prefix (err, "%s", argv[0]);
  /* With O_CLOEXEC the kernel refuses a script (ENOENT: the interpreter
     could not open /dev/fd/N); an ELF binary must not inherit it. */
  if (fcntl (fd, F_SETFD, script ? 0 : FD_CLOEXEC) < 0)
    return kg_error (err, errno, "%s: set the descriptor flags", argv[0]);
  if (script)
    keep = fd;
  /* Whatever the guard (or a library under it) opened is not the real
     runtime's business.  Best effort: without /proc the O_CLOEXEC opens
     are what remains. */
  each_fd (seal_one, &keep);
  syscall (SYS_execveat, fd, "", argv, environ, AT_EMPTY_PATH);
  return kg_error (err, errno, "execveat %s", argv[0]);
}
