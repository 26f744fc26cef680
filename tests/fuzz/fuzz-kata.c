/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The Kata configuration evaluation: check_kata on the input as the Kata
 * configuration ([kata] config), read through the trusted-path walk
 * (fuzz-files.h).  Every kata.* id must be reported exactly once, whatever
 * the input.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "checks.h"
#include "preflight.h"
#include "conf.h"
#include "fuzz-files.h"
#include "fuzz.h"
#include "kata.h"
#include "request.h"
#include "result.h"
#include "toml.h"

static const char *const kata_ids[] = {
  "kata.runtime", "kata.config", "kata.hypervisor", "kata.jailer", "kata.debug", "kata.annotations",
};

static struct guard_config cfg;
static bool ready;

static bool
setup (void)
{
  char text[512];
  int n;

  if (ready)
    return true;
  if (fuzz_dir () == NULL)
    return false;
  /* /bin/sh: some root-owned executable, so that kata.runtime passes. */
  n = snprintf (text, sizeof text,
                "[runtime]\nshim = \"/bin/sh\"\n[kata]\nconfig = \"%s/configuration.toml\"\n"
                "hypervisors = [\"firecracker\", \"qemu\", \"clh\"]\n",
                fuzz_dir ());
  fuzz_guard_config (text, (size_t) n, &cfg);
  ready = true;
  return true;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  struct request req;
  struct report rep;
  struct preflight pf;

  if (! setup () || ! fuzz_write ("configuration.toml", data, size))
    return 0;
  memset (&req, 0, sizeof req);
  memset (&rep, 0, sizeof rep);
  req.mode = KG_MODE_SHIM;
  preflight_init (&pf, &req, &cfg, &rep);
  check_kata (&pf);
  for (size_t i = 0; i < sizeof kata_ids / sizeof kata_ids[0]; i++)
    {
      size_t c = 0;

      for (size_t j = 0; j < rep.n; j++)
        c += strcmp (rep.results[j].id, kata_ids[i]) == 0;
      FUZZ_ASSERT (c == 1);
    }
  if (pf.from_kata.config != NULL)
    FUZZ_ASSERT (pf.from_kata.config->doc != NULL);
  preflight_release (&pf);
  report_release (&rep);
  return 0;
}
