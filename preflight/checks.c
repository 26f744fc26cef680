/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "array.h"
#include "checks.h"
#include "jtree.h"
#include "kata.h"
#include "toml.h"

/* Checks that are not implemented are not listed: nothing may show as
   passing that was not verified. */
const struct check_family check_families[] = {
#define KG_FAMILY_ROW(name) { #name, check_##name },
  KG_FAMILIES (KG_FAMILY_ROW)
#undef KG_FAMILY_ROW
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

void
preflight_release (struct preflight *pf)
{
  if (pf->from_kata.config != NULL)
    {
      toml_free (pf->from_kata.config->doc);
      free (pf->from_kata.config);
      pf->from_kata.config = NULL;
    }
  if (pf->from_kata.runtime_fd >= 0)
    close (pf->from_kata.runtime_fd);
  pf->from_kata.runtime_fd = -1;
  free (pf->from_assets.cache);
  pf->from_assets.cache = NULL;
  pf->from_assets.cache_len = 0;
  jv_free (pf->from_policy.spec);
  pf->from_policy.spec = NULL;
  ns_pins_release (&pf->pins);
}
