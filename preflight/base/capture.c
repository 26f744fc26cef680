/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "capture.h"
#include "cleanup.h"
#include "clock.h"

int
kg_capture (void (*exec_child) (void *), void *arg, bool quiet, size_t max, int timeout_ms,
            char **out, size_t *out_len)
{
  cleanup_free char *buf = malloc (max + 1);
  int64_t start;
  bool timed_out = false;
  size_t len = 0;
  int p[2], status = 0;
  pid_t pid;

  *out = NULL;
  *out_len = 0;
  if (buf == NULL || pipe2 (p, O_CLOEXEC) < 0)
    return -1;
  fflush (NULL);
  pid = fork ();
  if (pid < 0)
    {
      int e = errno;

      close (p[0]);
      close (p[1]);
      errno = e;
      return -1;
    }
  if (pid == 0)
    {
      if (quiet)
        {
          int null = open ("/dev/null", O_RDWR);

          if (null < 0 || dup2 (null, STDIN_FILENO) < 0 || dup2 (null, STDERR_FILENO) < 0)
            _exit (127);
        }
      if (dup2 (p[1], STDOUT_FILENO) < 0)
        _exit (127);
      exec_child (arg);
      _exit (127);
    }
  close (p[1]);
  start = kg_monotonic_ms ();
  while (len < max)
    {
      ssize_t n;

      if (timeout_ms >= 0)
        {
          struct pollfd pf = { p[0], POLLIN, 0 };
          int64_t left = timeout_ms - (kg_monotonic_ms () - start);
          int r;

          r = left > 0 ? poll (&pf, 1, (int) left) : 0;
          if (r < 0 && errno == EINTR)
            continue;
          if (r == 0)
            {
              timed_out = true;
              break;
            }
          if (r < 0)
            break;
        }
      n = read (p[0], buf + len, max - len);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        break;
      len += (size_t) n;
    }
  /* More than MAX, or too late: the rest is not waited for. */
  if (len == max || timed_out)
    kill (pid, SIGKILL);
  close (p[0]);
  while (waitpid (pid, &status, 0) < 0)
    if (errno != EINTR)
      return -1;
  buf[len] = '\0';
  *out = steal_pointer (&buf);
  *out_len = len;
  return timed_out ? -2 : status;
}

static void
exec_on_path (void *arg)
{
  char *const *argv = arg;

  execvp (argv[0], argv);
}

char *
kg_capture_argv_max (char *const argv[], int timeout_ms, size_t max, size_t *len)
{
  cleanup_free char *out = NULL;
  int status = kg_capture (exec_on_path, (void *) argv, true, max, timeout_ms, &out, len);

  /* Output that filled MAX may have been cut: not an answer. */
  if (status < 0 || ! WIFEXITED (status) || WEXITSTATUS (status) != 0 || *len == 0 || *len >= max)
    return NULL;
  return steal_pointer (&out);
}

char *
kg_capture_argv (char *const argv[], int timeout_ms)
{
  size_t len;

  return kg_capture_argv_max (argv, timeout_ms, 4095, &len);
}

char *
kg_capture_engine (char *const argv[])
{
  return kg_capture_argv (argv, KG_ENGINE_TIMEOUT_MS);
}

char *
kg_capture_engine_max (char *const argv[], size_t max, size_t *len)
{
  return kg_capture_argv_max (argv, KG_ENGINE_TIMEOUT_MS, max, len);
}

int
kg_version_major (const char *s)
{
  long major = 0;

  if (*s == 'v')
    s++;
  if (*s < '0' || *s > '9')
    return -1;
  while (*s >= '0' && *s <= '9' && major < 10000)
    major = major * 10 + (*s++ - '0');
  if (*s != '.' || s[1] < '0' || s[1] > '9')
    return -1;
  return (int) major;
}
