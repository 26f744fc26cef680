/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What policy.* hands on (policy-default.c's check_policy), freed: its own
   unit, beside the rules, for the family table's row (checks.h). */
#include "config.h"

#include <stddef.h>

#include "checks.h"
#include "jtree.h"

void
release_policy (struct preflight *pf)
{
  jv_free (pf->from_policy.spec);
  pf->from_policy.spec = NULL;
}
