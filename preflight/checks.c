/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "checks.h"
#include "kata.h"
#include "toml.h"
#include "util.h"

/* Adding a check family takes four places: its function in a unit of its
   own (FAMILY.c, check_FAMILY), its prototype in checks.h, its row here,
   the unit in Makefile.am's libpreflight_a_SOURCES; then its ids in
   kata-guard(8), CHECKS, and its tests.  Checks that are not implemented
   are not listed: nothing may show as passing that was not verified. */
const struct check_family check_families[] = {
  { "kvm", check_kvm },         { "kata", check_kata },     { "assets", check_assets },
  { "egress", check_egress },   { "drift", check_drift },   { "policy", check_policy },
  { "storage", check_storage }, { "docker", check_docker },
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
}
