/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"

#include <stddef.h>
#include <string.h>

#include "array.h"
#include "checks.h"
#include "preflight.h"

/* Checks that are not implemented are not listed: nothing may show as
   passing that was not verified. */
const struct check_family check_families[] = {
#define KG_RELEASE_own(name) release_##name
#define KG_RELEASE_none(name) NULL
#define KG_FAMILY_ROW(name, release) { #name, check_##name, KG_RELEASE_##release (name) },
  KG_FAMILIES (KG_FAMILY_ROW)
#undef KG_FAMILY_ROW
#undef KG_RELEASE_own
#undef KG_RELEASE_none
};
const size_t n_check_families = ARRAY_SIZE (check_families);

void
preflight_init (struct preflight *pf, const struct request *req, const struct guard_config *cfg,
                struct report *rep)
{
  memset (pf, 0, sizeof *pf);
  pf->req = req;
  pf->cfg = cfg;
  pf->rep = rep;
  pf->from_kata.runtime_fd = -1;
}

void
preflight_run (struct preflight *pf)
{
  for (size_t i = 0; i < n_check_families; i++)
    check_families[i].run (pf);
}

/* Each family frees what it handed on (its row's release); the pins are
   the run's own (checker_run's). */
void
preflight_release (struct preflight *pf)
{
  for (size_t i = 0; i < n_check_families; i++)
    if (check_families[i].release != NULL)
      check_families[i].release (pf);
  ns_pins_release (&pf->pins);
}
