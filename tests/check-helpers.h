/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Reading one check's result out of a report, for the unit tests. */
#ifndef KG_CHECK_HELPERS_H
#define KG_CHECK_HELPERS_H

#include "result.h"

/* The verdict of ID, or -1 when the report has no such result. */
static inline enum verdict
report_verdict (const struct report *rep, const char *id)
{
  const struct check_result *c = report_find (rep, id);

  return c ? c->verdict : (enum verdict) - 1;
}

/* The reason of ID, or NULL. */
static inline const char *
report_reason (const struct report *rep, const char *id)
{
  const struct check_result *c = report_find (rep, id);

  return c ? c->reason : NULL;
}

#endif
