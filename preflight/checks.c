/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"

#include "checks.h"
#include "util.h"

/* Adding a check family is one function and one line here.  Checks that
   are not implemented are not listed: nothing may show as passing that
   was not verified. */
const struct check_family check_families[] = {
  { "kvm", check_kvm },
};
const size_t n_check_families = ARRAY_SIZE (check_families);

void
preflight_run (const struct request *req, const struct guard_config *cfg, struct report *rep)
{
  for (size_t i = 0; i < n_check_families; i++)
    check_families[i].run (req, cfg, rep);
}
