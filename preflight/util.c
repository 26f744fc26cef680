/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>

#include <stdint.h>

#include "util.h"

size_t
kg_utf8_valid_prefix (const void *p, size_t n)
{
  const unsigned char *s = p;
  size_t i = 0;

  while (i < n)
    {
      unsigned char b = s[i];
      uint32_t cp;
      size_t k;

      if (b < 0x80)
        {
          i++;
          continue;
        }
      if (b >= 0xc2 && b <= 0xdf)
        k = 1, cp = b & 0x1f;
      else if (b >= 0xe0 && b <= 0xef)
        k = 2, cp = b & 0x0f;
      else if (b >= 0xf0 && b <= 0xf4)
        k = 3, cp = b & 0x07;
      else
        return i;
      if (n - i - 1 < k)
        return i;
      for (size_t j = 1; j <= k; j++)
        {
          if ((s[i + j] & 0xc0) != 0x80)
            return i;
          cp = (cp << 6) | (s[i + j] & 0x3f);
        }
      if ((k == 2 && cp < 0x800) || (k == 3 && cp < 0x10000) || cp > 0x10ffff
          || (cp >= 0xd800 && cp <= 0xdfff))
        return i;
      i += k + 1;
    }
  return n;
}

int
kg_write_all (int fd, const void *data, size_t n)
{
  const char *p = data;

  while (n > 0)
    {
      ssize_t w = write (fd, p, n);

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
kg_read_fd_bounded (int fd, const char *name, size_t max, char **out, size_t *len,
                    kg_error_t *err)
{
  cleanup_free char *buf = NULL;
  size_t used = 0, cap = 0;

  for (;;)
    {
      ssize_t r;

      if (used == cap)
        {
          /* Grow one step past MAX so that "exactly MAX" and "more" differ. */
          size_t ncap = cap == 0 ? 4096 : cap * 2;
          char *nbuf;

          if (ncap > max + 1)
            ncap = max + 1;
          if (ncap <= cap)
            return kg_error (err, 0, "%s: larger than %zu bytes", name, max);
          nbuf = realloc (buf, ncap + 1);
          if (nbuf == NULL)
            return kg_error (err, errno, "%s: cannot allocate", name);
          buf = nbuf;
          cap = ncap;
        }
      r = read (fd, buf + used, cap - used);
      if (r < 0)
        {
          if (errno == EINTR)
            continue;
          return kg_error (err, errno, "%s: read", name);
        }
      if (r == 0)
        break;
      used += (size_t) r;
      if (used > max)
        return kg_error (err, 0, "%s: larger than %zu bytes", name, max);
    }
  if (buf == NULL)
    {
      buf = malloc (1);
      if (buf == NULL)
        return kg_error (err, errno, "%s: cannot allocate", name);
    }
  buf[used] = '\0';
  *out = steal_pointer (&buf);
  *len = used;
  return 0;
}

int
kg_read_file_bounded (const char *path, int extra_flags, size_t max, char **out,
                      size_t *len, kg_error_t *err)
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
  return kg_read_fd_bounded (fd, path, max, out, len, err);
}

void
sb_printf (struct strbuf *sb, const char *fmt, ...)
{
  va_list ap;
  int n;

  va_start (ap, fmt);
  n = vsnprintf (NULL, 0, fmt, ap);
  va_end (ap);
  if (n < 0)
    return;
  if (sb->len + (size_t) n + 1 > sb->cap)
    {
      size_t ncap = (sb->len + (size_t) n + 1) * 2;
      char *ns = realloc (sb->s, ncap);

      if (ns == NULL)
        return;
      sb->s = ns;
      sb->cap = ncap;
    }
  va_start (ap, fmt);
  vsnprintf (sb->s + sb->len, sb->cap - sb->len, fmt, ap);
  va_end (ap);
  sb->len += (size_t) n;
}

const char *
sb_str (const struct strbuf *sb)
{
  return sb->s ? sb->s : "";
}
