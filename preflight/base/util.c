/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <string.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysinfo.h>
#include <sys/wait.h>
#include <unistd.h>

#include <poll.h>
#include <stdint.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>

#include <json-c/json.h>

#include "util.h"

void
kg_json_putp (struct json_object **o)
{
  json_object_put (*o);
}

size_t
kg_utf8_len (const void *p, size_t avail)
{
  const unsigned char *s = p;
  unsigned char lo = 0x80, hi = 0xbf;
  size_t n;

  if (s[0] < 0x80)
    return 1;
  if (s[0] >= 0xc2 && s[0] <= 0xdf)
    n = 2;
  else if (s[0] >= 0xe0 && s[0] <= 0xef)
    {
      n = 3;
      if (s[0] == 0xe0)
        lo = 0xa0; /* overlong */
      else if (s[0] == 0xed)
        hi = 0x9f; /* surrogates */
    }
  else if (s[0] >= 0xf0 && s[0] <= 0xf4)
    {
      n = 4;
      if (s[0] == 0xf0)
        lo = 0x90; /* overlong */
      else if (s[0] == 0xf4)
        hi = 0x8f; /* past U+10FFFF */
    }
  else
    return 0; /* a stray continuation byte, an overlong 2-byte form, past U+10FFFF */
  if (avail < n || s[1] < lo || s[1] > hi)
    return 0;
  for (size_t i = 2; i < n; i++)
    if ((s[i] & 0xc0) != 0x80)
      return 0;
  return n;
}

size_t
kg_ascii_prefix (const void *p, size_t n)
{
  const unsigned char *s = p;
  size_t i = 0;

  /* Eight bytes at a time while none has its high bit set. */
  for (uint64_t w; i + 8 <= n; i += 8)
    {
      memcpy (&w, s + i, 8);
      if ((w & UINT64_C (0x8080808080808080)) != 0)
        break;
    }
  while (i < n && s[i] < 0x80)
    i++;
  return i;
}

size_t
kg_utf8_valid_prefix (const void *p, size_t n)
{
  const unsigned char *s = p;
  size_t i = 0, k;

  while (i < n)
    {
      i += kg_ascii_prefix (s + i, n - i);
      if (i == n || (k = kg_utf8_len (s + i, n - i)) == 0)
        break;
      i += k;
    }
  return i;
}

/* The code point of the valid UTF-8 sequence at P (K + 1 bytes). */
static uint32_t
utf8_decode (const unsigned char *p, size_t *k)
{
  if (p[0] < 0xe0)
    return *k = 1, ((uint32_t) (p[0] & 0x1f) << 6) | (p[1] & 0x3f);
  if (p[0] < 0xf0)
    return *k = 2,
           ((uint32_t) (p[0] & 0x0f) << 12) | ((uint32_t) (p[1] & 0x3f) << 6) | (p[2] & 0x3f);
  return *k = 3, ((uint32_t) (p[0] & 0x07) << 18) | ((uint32_t) (p[1] & 0x3f) << 12)
                     | ((uint32_t) (p[2] & 0x3f) << 6) | (p[3] & 0x3f);
}

/* The length of the escape for the sequence at P. */
static size_t
escaped_len (const unsigned char *p, size_t *k)
{
  if (p[0] < 0x80)
    return *k = 0, 1;
  return utf8_decode (p, k) > 0xffff ? 12 : 6;
}

char *
kg_json_ascii (const char *p, size_t n, size_t *out_len)
{
  const unsigned char *s = (const unsigned char *) p;
  size_t size = 1, o = 0, k;
  char *out;

  for (size_t i = 0; i < n; i += k + 1)
    size += escaped_len (s + i, &k);
  out = malloc (size);
  if (out == NULL)
    return NULL;
  for (size_t i = 0; i < n; i += k + 1)
    {
      uint32_t cp;

      if (s[i] < 0x80)
        {
          out[o++] = (char) s[i];
          k = 0;
          continue;
        }
      cp = utf8_decode (s + i, &k);
      if (cp > 0xffff)
        {
          cp -= 0x10000;
          o += (size_t) snprintf (out + o, size - o, "\\u%04x\\u%04x", 0xd800 + (cp >> 10),
                                  0xdc00 + (cp & 0x3ff));
        }
      else
        o += (size_t) snprintf (out + o, size - o, "\\u%04x", cp);
    }
  out[o] = '\0';
  *out_len = o;
  return out;
}

size_t
kg_json_ascii_offset (const char *p, size_t n, size_t at)
{
  const unsigned char *s = (const unsigned char *) p;
  size_t i = 0, o = 0, k;

  while (i < n)
    {
      size_t e = escaped_len (s + i, &k);

      if (o + e > at)
        break;
      o += e;
      i += k + 1;
    }
  return i;
}

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

int64_t
kg_monotonic_ms (void)
{
  struct timespec t;

  clock_gettime (CLOCK_MONOTONIC, &t);
  return (int64_t) t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

int
kg_proc_start (unsigned long pid, char *state, uint64_t *start)
{
  char path[64];
  cleanup_free char *text = NULL;
  cleanup_error kg_error_t err = NULL;
  size_t len;
  const char *p;
  char *end;

  snprintf (path, sizeof path, "/proc/%lu/stat", pid);
  if (kg_read_file_bounded (path, 0, 4096, &text, &len, &err) < 0)
    return errno = err->errnum ? err->errnum : EIO, -1;
  /* The command name may hold anything but ends at the last ')';
     ") S ppid ...": the state is field 3, the start time field 22. */
  p = strrchr (text, ')');
  if (p == NULL || p[1] != ' ' || p[2] == '\0')
    return errno = EIO, -1;
  if (state != NULL)
    *state = p[2];
  for (int field = 2; p != NULL && field < 22; field++)
    p = strchr (p + 1, ' ');
  if (p == NULL)
    return errno = EIO, -1;
  errno = 0;
  *start = strtoull (p + 1, &end, 10);
  if (errno != 0 || end == p + 1 || (*end != ' ' && *end != '\n' && *end != '\0'))
    return errno = EIO, -1;
  return 0;
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

/* The one growth loop: a capacity of at least NEED bytes, doubling (from
   64) so that appends cost amortized constant time, never more than a
   bounded buffer can use. */
static int
buf_grow (struct kg_buf *b, size_t need)
{
  size_t cap = b->cap == 0 ? 64 : b->cap;
  char *s;

  while (cap < need)
    cap = cap > SIZE_MAX / 2 ? need : cap * 2;
  if (b->max != 0 && cap - 1 > b->max)
    cap = b->max + 1;
  s = realloc (b->s, cap);
  if (s == NULL)
    return -1;
  s[b->len] = '\0';
  b->s = s;
  b->cap = cap;
  return 0;
}

int
kg_buf_reserve (struct kg_buf *b, size_t n)
{
  if (b->failed)
    return -1;
  if (n > SIZE_MAX - 1 - b->len || (b->max != 0 && (b->len > b->max || n > b->max - b->len))
      || (b->len + n + 1 > b->cap && buf_grow (b, b->len + n + 1) < 0))
    {
      b->failed = true;
      return -1;
    }
  return 0;
}

int
kg_buf_add_grow (struct kg_buf *b, const void *p, size_t n)
{
  if (kg_buf_reserve (b, n) < 0)
    return -1;
  if (n > 0)
    memcpy (b->s + b->len, p, n);
  b->len += n;
  b->s[b->len] = '\0';
  return 0;
}

char *
kg_buf_steal (struct kg_buf *b)
{
  if (b->s == NULL && kg_buf_reserve (b, 0) < 0)
    return NULL;
  b->len = b->cap = 0;
  return steal_pointer (&b->s);
}

void
sb_printf (struct kg_buf *sb, const char *fmt, ...)
{
  va_list ap;
  int n;

  if (sb->failed)
    return;
  va_start (ap, fmt);
  n = vsnprintf (NULL, 0, fmt, ap);
  va_end (ap);
  if (n < 0)
    {
      sb->failed = true;
      return;
    }
  if (kg_buf_reserve (sb, (size_t) n) < 0)
    return;
  va_start (ap, fmt);
  vsnprintf (sb->s + sb->len, sb->cap - sb->len, fmt, ap);
  va_end (ap);
  sb->len += (size_t) n;
}

const char *
sb_str (const struct kg_buf *sb)
{
  return sb->s ? sb->s : "";
}

/* MemTotal, in MiB: sysinfo's totalram is the same count of pages that
   /proc/meminfo prints as MemTotal, without reading and parsing a file. */
int
kg_mem_total_mib (int64_t *out, kg_error_t *err)
{
  struct sysinfo si;
  unsigned long long bytes;

  if (sysinfo (&si) < 0)
    return kg_error (err, errno, "sysinfo");
  bytes = (unsigned long long) si.totalram * (si.mem_unit ? si.mem_unit : 1);
  if (bytes < 1024 * 1024)
    return kg_error (err, 0, "sysinfo: no memory (%llu bytes)", bytes);
  *out = (int64_t) (bytes / (1024 * 1024));
  return 0;
}

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

bool
kg_path_clean (const char *p)
{
  if (p[0] != '/' || p[1] == '\0')
    return false;
  for (const char *s = p; *s != '\0'; s++)
    if (s[0] == '/'
        && (s[1] == '/' || s[1] == '\0'
            || (s[1] == '.'
                && (s[2] == '/' || s[2] == '\0'
                    || (s[2] == '.' && (s[3] == '/' || s[3] == '\0'))))))
      return false;
  return true;
}
