/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"

/* Used when even the message cannot be allocated: the failure must still
   reach the user as a failure, never as success. */
static struct kg_error oom_error = { ENOMEM, (char *) "out of memory while reporting an error" };

int
kg_verror (kg_error_t *err, int errnum, const char *fmt, va_list ap)
{
  char *msg = NULL, *full = NULL;

  if (err == NULL)
    return -1;
  kg_error_release (err);
  if (vasprintf (&msg, fmt, ap) < 0)
    {
      *err = &oom_error;
      return -1;
    }
  if (errnum != 0)
    {
      if (asprintf (&full, "%s: %s", msg, strerror (errnum)) < 0)
        full = NULL;
      free (msg);
      msg = full;
      if (msg == NULL)
        {
          *err = &oom_error;
          return -1;
        }
    }
  *err = malloc (sizeof **err);
  if (*err == NULL)
    {
      free (msg);
      *err = &oom_error;
      return -1;
    }
  (*err)->errnum = errnum;
  (*err)->msg = msg;
  return -1;
}

int
kg_error (kg_error_t *err, int errnum, const char *fmt, ...)
{
  va_list ap;

  va_start (ap, fmt);
  kg_verror (err, errnum, fmt, ap);
  va_end (ap);
  return -1;
}

int
kg_error_prefix (kg_error_t *err, const char *fmt, ...)
{
  char *prefix = NULL, *full = NULL;
  va_list ap;

  if (err == NULL || *err == NULL || *err == &oom_error)
    return -1;
  va_start (ap, fmt);
  if (vasprintf (&prefix, fmt, ap) < 0)
    prefix = NULL;
  va_end (ap);
  if (prefix == NULL || asprintf (&full, "%s: %s", prefix, (*err)->msg) < 0)
    {
      free (prefix);
      return -1; /* keep the original message */
    }
  free (prefix);
  free ((*err)->msg);
  (*err)->msg = full;
  return -1;
}

void
kg_error_release (kg_error_t *err)
{
  if (err == NULL || *err == NULL)
    return;
  if (*err != &oom_error)
    {
      free ((*err)->msg);
      free (*err);
    }
  *err = NULL;
}
