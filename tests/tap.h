/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A minimal TAP producer for the C unit tests (read by automake's tap-driver). */
#ifndef KG_TAP_H
#define KG_TAP_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int tap_count, tap_failed;

static inline bool tap_ok (bool cond, const char *file, int line, const char *fmt, ...)
    __attribute__ ((format (printf, 4, 5)));
static inline bool
tap_ok (bool cond, const char *file, int line, const char *fmt, ...)
{
  va_list ap;

  printf ("%s %d - ", cond ? "ok" : "not ok", ++tap_count);
  va_start (ap, fmt);
  vprintf (fmt, ap);
  va_end (ap);
  printf ("\n");
  if (! cond)
    {
      tap_failed++;
      printf ("#   failed at %s:%d\n", file, line);
    }
  fflush (stdout);
  return cond;
}

#define ok(cond, ...) tap_ok (! ! (cond), __FILE__, __LINE__, __VA_ARGS__)

#define is_int(got, want, ...)                                                                     \
  ({                                                                                               \
    long long _g = (long long) (got), _w = (long long) (want);                                     \
    bool _r = ok (_g == _w, __VA_ARGS__);                                                          \
    if (! _r)                                                                                      \
      printf ("#   got %lld, want %lld\n", _g, _w);                                                \
    _r;                                                                                            \
  })

#define is_str(got, want, ...)                                                                     \
  ({                                                                                               \
    const char *_g = (got), *_w = (want);                                                          \
    bool _r = ok (_g != NULL && _w != NULL && strcmp (_g, _w) == 0, __VA_ARGS__);                  \
    if (! _r)                                                                                      \
      printf ("#   got \"%s\", want \"%s\"\n", _g ? _g : "(null)", _w ? _w : "(null)");            \
    _r;                                                                                            \
  })

#define has_str(haystack, needle, ...)                                                             \
  ({                                                                                               \
    const char *_h = (haystack), *_n = (needle);                                                   \
    bool _r = ok (_h != NULL && strstr (_h, _n) != NULL, __VA_ARGS__);                             \
    if (! _r)                                                                                      \
      printf ("#   \"%s\" does not contain \"%s\"\n", _h ? _h : "(null)", _n);                     \
    _r;                                                                                            \
  })

static inline void
tap_skip_all (const char *why)
{
  printf ("1..0 # SKIP %s\n", why);
  exit (0);
}

static inline int
tap_done (void)
{
  printf ("1..%d\n", tap_count);
  return tap_failed ? 1 : 0;
}

#endif
