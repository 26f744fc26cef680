/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The per-container policy: check_policy on the input as the bundle's
 * config.json (fuzz-files.h), with the Firecracker profile of Kata's
 * shipped configuration as the VM the resources are judged against.
 * Every policy.* id must be reported exactly once, whatever the input.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
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

static const char *const policy_ids[] = {
  "policy.spec",         "policy.privileged",   "policy.namespaces", "policy.mounts",
  "policy.capabilities", "policy.devices",      "policy.hooks",      "policy.annotations",
  "policy.seccomp",      "policy.memory_limit", "policy.resources",  "policy.labels",
  "policy.confinement",  "egress.netns",
};

/* The [hypervisor.firecracker] values that policy.resources reads. */
static const char kata_toml[] = "[hypervisor.firecracker]\n"
                                "default_vcpus = 1\n"
                                "default_memory = 2048\n"
                                "[runtime]\n"
                                "disable_guest_seccomp = true\n";

static struct guard_config cfg;
static bool ready;

static bool
setup (void)
{
  static const char text[]
      = "[kata]\nhypervisors = [\"firecracker\"]\n[policy]\nannotations = [\"io\\\\.katacontainers\\\\..*\"]\n";

  if (ready)
    return true;
  if (fuzz_dir () == NULL)
    return false;
  fuzz_guard_config (text, sizeof text - 1, &cfg);
  ready = true;
  return true;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  kg_error_t err = NULL;
  struct request req;
  struct report rep;
  struct preflight pf;

  if (! setup () || ! fuzz_write ("config.json", data, size))
    return 0;
  memset (&req, 0, sizeof req);
  memset (&rep, 0, sizeof rep);
  req.mode = KG_MODE_SHIM;
  req.container_id = "fuzz";
  req.bundle = fuzz_dir ();
  preflight_init (&pf, &req, &cfg, &rep);
  pf.from_kata.config = calloc (1, sizeof *pf.from_kata.config);
  FUZZ_ASSERT (pf.from_kata.config != NULL);
  pf.from_kata.config->doc = toml_parse ("kata.toml", kata_toml, sizeof kata_toml - 1, &err);
  FUZZ_ASSERT (pf.from_kata.config->doc != NULL);
  pf.from_kata.config->hypervisor_name = "firecracker";
  pf.from_kata.config->hypervisor = toml_get_path (pf.from_kata.config->doc, "hypervisor",
                                                   "firecracker", NULL);
  check_policy (&pf);
  for (size_t i = 0; i < sizeof policy_ids / sizeof policy_ids[0]; i++)
    {
      size_t c = 0;

      for (size_t j = 0; j < rep.n; j++)
        c += strcmp (rep.results[j].id, policy_ids[i]) == 0;
      FUZZ_ASSERT (c == 1);
    }
  preflight_release (&pf);
  report_release (&rep);
  return 0;
}
