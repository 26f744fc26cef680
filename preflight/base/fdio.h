/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Bounded reads of a descriptor or a file, and the full-I/O loops. */
#ifndef KG_FDIO_H
#define KG_FDIO_H

#include <stddef.h>

#include "error.h"

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
/* Open PATH read-only (O_CLOEXEC, plus EXTRA_FLAGS) and read it as above. */
int kg_read_file_bounded (const char *path, int extra_flags, size_t max, char **out, size_t *len,
                          kg_error_t *err);

/* The full-I/O loops, with one rule: all N bytes (retrying short
   transfers and EINTR), or -1 with errno, EIO for a write that wrote
   nothing or an end of file before N bytes.  kg_send_all writes to a
   socket with send(2) and MSG_NOSIGNAL: a peer that hung up is EPIPE, not
   SIGPIPE. */
int kg_write_all (int fd, const void *data, size_t n);
int kg_send_all (int fd, const void *data, size_t n);
int kg_read_exact (int fd, void *data, size_t n);

/* ---- HTTP/1.0 over a unix socket (an engine's own API) ---- */

/* A stream socket (close-on-exec) connected to the unix socket PATH, or -1
   with *ERR ("cannot connect to PATH: why"). */
int kg_unix_connect (const char *path, kg_error_t *err);
/* GET TARGET (HOST its Host header) as HTTP/1.0 on FD, a connected stream
   socket of the server NAME: HTTP/1.0, so the answer is never chunked and
   ends where the connection does, read whole within TIMEOUT_MS and at
   most MAX bytes.  The body of a 200 answer, NUL-terminated, in *BODY
   (*LEN bytes; free it), or -1 with *ERR ("NAME: GET TARGET: what"). */
int kg_http_get (int fd, const char *name, const char *host, const char *target, size_t max,
                 int timeout_ms, char **body, size_t *len, kg_error_t *err);

#endif
