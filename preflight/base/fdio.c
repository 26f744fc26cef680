/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "buf.h"
#include "cleanup.h"
#include "clock.h"
#include "error.h"
#include "fdio.h"

/* The one full-write loop: write(2), or send(2) with MSG_NOSIGNAL on a
   socket. */
static int
write_loop (int fd, const void *data, size_t n, bool sock)
{
  const char *p = data;

  while (n > 0)
    {
      ssize_t w = sock ? send (fd, p, n, MSG_NOSIGNAL) : write (fd, p, n);

      if (w < 0 && errno == EINTR)
        continue;
      if (w <= 0)
        {
          if (w == 0)
            errno = EIO;
          return -1;
        }
      p += w;
      n -= (size_t) w;
    }
  return 0;
}

int
kg_write_all (int fd, const void *data, size_t n)
{
  return write_loop (fd, data, n, false);
}

int
kg_send_all (int fd, const void *data, size_t n)
{
  return write_loop (fd, data, n, true);
}

int
kg_read_exact (int fd, void *data, size_t n)
{
  char *p = data;

  while (n > 0)
    {
      ssize_t r = read (fd, p, n);

      if (r < 0 && errno == EINTR)
        continue;
      if (r <= 0)
        {
          if (r == 0)
            errno = EIO;
          return -1;
        }
      p += r;
      n -= (size_t) r;
    }
  return 0;
}

static int read_fd (int fd, const char *name, size_t max, size_t first, int timeout_ms, char **out,
                    size_t *len, kg_error_t *err);

int
kg_read_fd_bounded (int fd, const char *name, size_t max, char **out, size_t *len, kg_error_t *err)
{
  return read_fd (fd, name, max, 4095, -1, out, len, err);
}

int
kg_read_fd_deadline (int fd, const char *name, size_t max, int timeout_ms, char **out, size_t *len,
                     kg_error_t *err)
{
  return read_fd (fd, name, max, 4095, timeout_ms, out, len, err);
}

int
kg_read_fd_sized (int fd, const char *name, size_t max, size_t size, char **out, size_t *len,
                  kg_error_t *err)
{
  /* The end is seen by a read that returns 0, into room of a byte or
     more: SIZE + 1. */
  return read_fd (fd, name, max, size < 4095 ? 4095 : size + 1, -1, out, len, err);
}

static int
read_fd (int fd, const char *name, size_t max, size_t first, int timeout_ms, char **out,
         size_t *len, kg_error_t *err)
{
  /* One byte past MAX may be read, so that "exactly MAX" and "more"
     differ; the first read takes up to FIRST bytes. */
  cleanup_kg_buf struct kg_buf b = { .max = max + 1 };
  int64_t t0;

  if (kg_buf_reserve (&b, max < first ? max + 1 : first) < 0)
    return kg_error (err, ENOMEM, "%s: cannot allocate", name);
  t0 = kg_monotonic_ms ();
  for (;;)
    {
      ssize_t r;

      if (timeout_ms >= 0)
        {
          struct pollfd p = { fd, POLLIN, 0 };
          int64_t left = timeout_ms - (kg_monotonic_ms () - t0);
          int n;

          n = left > 0 ? poll (&p, 1, (int) left) : 0;
          if (n < 0 && errno == EINTR)
            continue;
          if (n < 0)
            return kg_error (err, errno, "%s: poll", name);
          if (n == 0)
            return kg_error (err, ETIMEDOUT, "%s: not closed within %d ms (%zu bytes read)", name,
                             timeout_ms, b.len);
        }

      /* The room is at least a byte while LEN <= MAX: only memory can fail. */
      if (b.len + 1 == b.cap && kg_buf_reserve (&b, 1) < 0)
        return kg_error (err, ENOMEM, "%s: cannot allocate", name);
      r = read (fd, b.s + b.len, b.cap - 1 - b.len);
      if (r < 0)
        {
          if (errno == EINTR)
            continue;
          return kg_error (err, errno, "%s: read", name);
        }
      if (r == 0)
        break;
      b.len += (size_t) r;
      if (b.len > max)
        return kg_error (err, 0, "%s: larger than %zu bytes", name, max);
    }
  b.s[b.len] = '\0';
  *len = b.len;
  *out = kg_buf_steal (&b);
  return 0;
}

int
kg_read_file_bounded (const char *path, int extra_flags, size_t max, char **out, size_t *len,
                      kg_error_t *err)
{
  cleanup_close int fd = -1;
  struct stat st;

  fd = open (path, O_RDONLY | O_CLOEXEC | O_NOCTTY | extra_flags);
  if (fd < 0)
    return kg_error (err, errno, "%s: cannot open", path);
  if (fstat (fd, &st) < 0)
    return kg_error (err, errno, "%s: cannot stat", path);
  if (S_ISDIR (st.st_mode))
    return kg_error (err, EISDIR, "%s: cannot read", path);
  if (! S_ISREG (st.st_mode))
    return kg_error (err, 0, "%s: not a regular file", path);
  if ((size_t) st.st_size > max)
    return kg_error (err, 0, "%s: larger than %zu bytes", path, max);
  return kg_read_fd_sized (fd, path, max, (size_t) st.st_size, out, len, err);
}

/* ---- HTTP/1.0 over a unix socket ---- */

int
kg_unix_connect (const char *path, kg_error_t *err)
{
  struct sockaddr_un sa = { .sun_family = AF_UNIX };
  cleanup_close int fd = -1;

  if (strlen (path) >= sizeof sa.sun_path)
    return kg_error (err, ENAMETOOLONG, "cannot connect to %s", path);
  memcpy (sa.sun_path, path, strlen (path) + 1);
  fd = socket (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0 || connect (fd, (struct sockaddr *) &sa, sizeof sa) < 0)
    return kg_error (err, errno, "cannot connect to %s", path);
  return steal_fd (&fd);
}

int
kg_http_get (int fd, const char *name, const char *host, const char *target, size_t max,
             int timeout_ms, char **body, size_t *len, kg_error_t *err)
{
  cleanup_free char *req = NULL, *what = NULL, *buf = NULL;
  size_t n;
  const char *end;
  int rn = asprintf (&req, "GET %s HTTP/1.0\r\nHost: %s\r\n\r\n", target, host);

  /* asprintf leaves its pointer undefined when it fails. */
  if (rn < 0)
    req = NULL;
  if (rn < 0 || asprintf (&what, "%s: GET %s", name, target) < 0)
    return what = NULL, kg_error (err, ENOMEM, "%s: GET %s", name, target);
  if (kg_send_all (fd, req, (size_t) rn) < 0)
    return kg_error (err, errno, "%s: cannot send it", what);
  /* Its errors name WHAT: "NAME: GET TARGET: not closed within ...". */
  if (kg_read_fd_deadline (fd, what, max, timeout_ms, &buf, &n, err) < 0)
    return -1;
  /* "HTTP/1.x 200" and a space or the end of the line after it. */
  if (n < 12 || memcmp (buf, "HTTP/1.", 7) != 0 || memcmp (buf + 8, " 200", 4) != 0
      || (n > 12 && buf[12] != ' ' && buf[12] != '\r'))
    {
      size_t k = strcspn (buf, "\r\n");

      return kg_error (err, 0, "%s: not HTTP 200 (%.*s)", what, (int) (k < 40 ? k : 40), buf);
    }
  end = memmem (buf, n, "\r\n\r\n", 4);
  if (end == NULL)
    return kg_error (err, 0, "%s: no end of the headers", what);
  end += 4;
  *len = n - (size_t) (end - buf);
  memmove (buf, end, *len + 1);
  *body = steal_pointer (&buf);
  return 0;
}
