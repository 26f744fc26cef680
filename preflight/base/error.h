/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The one error convention of kata-guard.
 *
 * Every fallible function takes `kg_error_t *err` as its last argument and,
 * on failure, returns kg_error (err, errno_or_0, "fmt", ...), which always
 * returns -1 (or a function returning a pointer returns NULL after calling
 * it).  The message travels up unchanged to where it is shown; callers that
 * add context use kg_error_prefix ().  A set error must be released with
 * kg_error_release () or by declaring the variable `cleanup_error`.
 *
 * ERR is never NULL, unless the function's header says "ERR may be NULL":
 * only best-effort steps whose callers go on whatever happens (forgetting
 * a record, writing the OCI runtime record) take NULL for "no message".
 * A function that reads the error a callee set (its errnum, say ENOENT)
 * reads it from an ERR it owns.
 */
#ifndef KG_ERROR_H
#define KG_ERROR_H

#include <stdarg.h>

struct kg_error
{
  int errnum; /* errno value, or 0 */
  char *msg;  /* full message, strerror already appended */
};
typedef struct kg_error *kg_error_t;

int kg_error (kg_error_t *err, int errnum, const char *fmt, ...)
    __attribute__ ((format (printf, 3, 4)));
int kg_verror (kg_error_t *err, int errnum, const char *fmt, va_list ap)
    __attribute__ ((format (printf, 3, 0)));
/* Prepend "<prefix>: " to an already set error; returns -1. */
int kg_error_prefix (kg_error_t *err, const char *fmt, ...) __attribute__ ((format (printf, 2, 3)));
void kg_error_release (kg_error_t *err);

static inline void
kg_error_cleanup (kg_error_t *err)
{
  kg_error_release (err);
}
#define cleanup_error __attribute__ ((cleanup (kg_error_cleanup)))

#endif
