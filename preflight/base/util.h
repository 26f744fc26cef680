/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Small helpers shared by every file: cleanup attributes and bounded I/O. */
#ifndef KG_UTIL_H
#define KG_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "error.h"

static inline void
kg_free_ptr (void *p)
{
  free (*(void **) p);
}
static inline void
kg_close_fd (int *fd)
{
  if (*fd >= 0)
    close (*fd);
}
static inline void
kg_close_file (FILE **f)
{
  if (*f != NULL)
    fclose (*f);
}
#define cleanup_free __attribute__ ((cleanup (kg_free_ptr)))
#define cleanup_close __attribute__ ((cleanup (kg_close_fd)))
#define cleanup_file __attribute__ ((cleanup (kg_close_file)))
/* json-c's objects: json_object_put (NULL is a no-op). */
struct json_object;
void kg_json_putp (struct json_object **o);
#define cleanup_json __attribute__ ((cleanup (kg_json_putp)))

/* Hand a pointer or descriptor out of a cleanup variable. */
#define steal_pointer(pp)                                                                          \
  ({                                                                                               \
    __typeof__ (*(pp)) _p = *(pp);                                                                 \
    *(pp) = NULL;                                                                                  \
    _p;                                                                                            \
  })
#define steal_fd(fdp)                                                                              \
  ({                                                                                               \
    int _fd = *(fdp);                                                                              \
    *(fdp) = -1;                                                                                   \
    _fd;                                                                                           \
  })

#define ARRAY_SIZE(a) (sizeof (a) / sizeof ((a)[0]))

/* FNV-1a of the N bytes at P: the hash of the guard's small hash sets. */
static inline uint32_t
kg_fnv1a (const void *p, size_t n)
{
  const unsigned char *b = p;
  uint32_t h = 2166136261u;

  for (size_t i = 0; i < n; i++)
    h = (h ^ b[i]) * 16777619u;
  return h;
}

/* Whether S is one of the N strings of LIST. */
static inline bool
kg_strv_has (const char *const *list, size_t n, const char *s)
{
  for (size_t i = 0; i < n; i++)
    if (strcmp (list[i], s) == 0)
      return true;
  return false;
}

/* The one growable buffer: every text or message built a piece at a time
   (the reasons that list things, the checker's report, a TOML string, the
   runtime wrapper's lines) grows here, so that the size arithmetic is
   checked in one place.  S[LEN] is a NUL once anything was added (S is
   NULL before), so a text is a C string; a message may ignore it.  MAX,
   when not 0, is the most LEN may reach.  An append past MAX, or one
   that memory or size_t cannot hold, is dropped and sets FAILED, and so
   is every later one: the caller checks FAILED (or S) once, where it
   decides what a short buffer means.  { 0 } is empty and unbounded. */
struct kg_buf
{
  char *s;
  size_t len;
  size_t cap;
  size_t max;
  bool failed;
};

/* Room for N more bytes (and the NUL) now: 0, or -1 with FAILED set.
   Appends within the room reserved never allocate. */
int kg_buf_reserve (struct kg_buf *b, size_t n);
/* Append N bytes of P (P may be NULL when N is 0; the buffer is still
   allocated): 0, or -1 when the buffer has failed, now or before.
   kg_buf_add_grow is its way when the room must grow. */
int kg_buf_add_grow (struct kg_buf *b, const void *p, size_t n);
static inline int
kg_buf_add (struct kg_buf *b, const void *p, size_t n)
{
  /* Within the room already there (nearly every append): no call. */
  if (! b->failed && n > 0 && b->cap - b->len > n
      && (b->max == 0 || (b->len <= b->max && n <= b->max - b->len)))
    {
      memcpy (b->s + b->len, p, n);
      b->len += n;
      b->s[b->len] = '\0';
      return 0;
    }
  return kg_buf_add_grow (b, p, n);
}
/* The text, the caller's to free, and B empty again: "" when nothing
   was added, NULL when memory runs out for that. */
char *kg_buf_steal (struct kg_buf *b);
static inline void
kg_buf_release (struct kg_buf *b)
{
  free (b->s);
}
#define cleanup_kg_buf __attribute__ ((cleanup (kg_buf_release)))

/* Text into a kg_buf, for reasons that list things.  An allocation
   failure only shortens the text (to what came before it): no verdict
   may ever be decided by it (count the findings instead). */
void sb_printf (struct kg_buf *sb, const char *fmt, ...) __attribute__ ((format (printf, 2, 3)));
/* The text so far ("" when empty). */
const char *sb_str (const struct kg_buf *sb);

/* Read the whole of FD (at most MAX bytes; more is an error naming NAME).
   The buffer is NUL-terminated; *LEN excludes the terminator. */
int kg_read_fd_bounded (int fd, const char *name, size_t max, char **out, size_t *len,
                        kg_error_t *err);
/* The same, failing (ETIMEDOUT) when FD has not reached its end within
   TIMEOUT_MS (-1: never). */
int kg_read_fd_deadline (int fd, const char *name, size_t max, int timeout_ms, char **out,
                         size_t *len, kg_error_t *err);
/* kg_read_fd_bounded of a regular file of SIZE bytes (its fstat's, which
   the caller made): the buffer is made that size at once, not doubled
   from 4 KiB as it is read (a file that grew meanwhile is read whole all
   the same). */
int kg_read_fd_sized (int fd, const char *name, size_t max, size_t size, char **out, size_t *len,
                      kg_error_t *err);
/* The length of the character at P (AVAIL bytes left, at least 1) when it
   is strict UTF-8 (no overlong forms, no surrogates, nothing past
   U+10FFFF), else 0.  json-c 0.18's own check refuses every four-byte
   character, so the guard does not use it. */
size_t kg_utf8_len (const void *p, size_t avail);
/* How many of P[0..N)'s first bytes are ASCII (below 0x80). */
size_t kg_ascii_prefix (const void *p, size_t n);
/* The length of the longest prefix of P[0..N) that is strict UTF-8
   (kg_utf8_len): N when all of it is. */
size_t kg_utf8_valid_prefix (const void *p, size_t n);

/* JSON text P[0..N) (strict UTF-8, kg_utf8_valid_prefix) with every
   character past ASCII written as a \uXXXX escape (a surrogate pair past
   U+FFFF), which decodes to the same bytes: json-c 0.18's strict mode
   refuses any byte past ASCII in a string value.  Returns a NUL-terminated
   copy (*OUT_LEN bytes) or NULL when memory runs out. */
char *kg_json_ascii (const char *p, size_t n, size_t *out_len);
/* The offset in P of the byte at offset AT of kg_json_ascii's copy. */
size_t kg_json_ascii_offset (const char *p, size_t n, size_t at);

/* A C0 control character or DEL: the one test of what never passes as
   text (a message, a name, a record); the callers that let TAB or LF
   through say so beside it. */
static inline bool
kg_is_ctl (unsigned char c)
{
  return c < 0x20 || c == 0x7f;
}

/* The full-I/O loops, with one rule: all N bytes (retrying short
   transfers and EINTR), or -1 with errno, EIO for a write that wrote
   nothing or an end of file before N bytes.  kg_send_all writes to a
   socket with send(2) and MSG_NOSIGNAL: a peer that hung up is EPIPE, not
   SIGPIPE. */
int kg_write_all (int fd, const void *data, size_t n);
int kg_send_all (int fd, const void *data, size_t n);
int kg_read_exact (int fd, void *data, size_t n);

/* Run a child that EXEC_CHILD (ARG) turns into another program (if it
   returns, the child exits 127), its stdout into a pipe, with QUIET its
   stdin and stderr on /dev/null: at most MAX bytes of what it writes go
   into *OUT (NUL-terminated, *OUT_LEN bytes), and the child is killed
   when it has written MAX or TIMEOUT_MS (< 0: none) passed.  Returns the
   child's wait status, -2 when the deadline passed (the child killed and
   reaped, *OUT what came before), or -1 with errno (nothing ran, or it
   could not be reaped). */
int kg_capture (void (*exec_child) (void *), void *arg, bool quiet, size_t max, int timeout_ms,
                char **out, size_t *out_len);
/* Run ARGV (looked up on PATH) as kg_capture does, quiet, at most 4 KiB:
   its output when it exited 0 within TIMEOUT_MS and wrote something, else
   NULL. */
char *kg_capture_argv (char *const argv[], int timeout_ms);
/* The same with at most MAX bytes (*LEN of them); NULL for output that
   filled MAX. */
char *kg_capture_argv_max (char *const argv[], int timeout_ms, size_t max, size_t *len);
/* An engine's command ARGV (`containerd --version`, `containerd config
   dump`) as kg_capture_argv and kg_capture_argv_max run it, within the
   KG_ENGINE_TIMEOUT_MS an engine may take to answer. */
#define KG_ENGINE_TIMEOUT_MS 10000
char *kg_capture_engine (char *const argv[]);
char *kg_capture_engine_max (char *const argv[], size_t max, size_t *len);
/* The major of a version "24.0.7", "v2.0.0", "20.10.24+dfsg1" (a number,
   a dot, a digit): -1 when S does not start so. */
int kg_version_major (const char *s);
/* Open PATH read-only (O_CLOEXEC, plus EXTRA_FLAGS) and read it as above. */
int kg_read_file_bounded (const char *path, int extra_flags, size_t max, char **out, size_t *len,
                          kg_error_t *err);

/* MemTotal of /proc/meminfo, in MiB, into *OUT. */
int kg_mem_total_mib (int64_t *out, kg_error_t *err);

/* P is absolute, not "/", and has no empty, "." or ".." component nor a
   trailing slash: what a prefix test on the string and the kernel's walk
   of it agree on. */
bool kg_path_clean (const char *p);

/* Milliseconds on CLOCK_MONOTONIC: deadlines. */
int64_t kg_monotonic_ms (void);
/* Process PID's start time in clock ticks after boot (field 22 of
   /proc/PID/stat) and, when STATE is not NULL, its state (field 3): 0,
   or -1 with errno (the read's, EIO for a line that is not the kernel's). */
int kg_proc_start (unsigned long pid, char *state, uint64_t *start);

#endif
