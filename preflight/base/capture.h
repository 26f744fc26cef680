/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A child's output, captured (bounded in size and time), and the version
   a program prints. */
#ifndef KG_CAPTURE_H
#define KG_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>

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

#endif
