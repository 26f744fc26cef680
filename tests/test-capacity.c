/* SPDX-License-Identifier: GPL-2.0-or-later */
/* policy.capacity's verdicts that need no record (capacity.h): a start
   whose VM was not sized is never allowed uncounted, and the bound is
   the configuration's or MemTotal less the reserve. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capacity.h"
#include "check-helpers.h"
#include "rundir.h"
#include "tap.h"
#include "util.h"

/* policy.capacity of `check --bundle` for a claim VM after REP's other
   results: its verdict, and its reason in *WHY (static). */
static enum verdict
judge (struct report *rep, const struct vm_claim *vm, const struct guard_config *cfg,
       const char **why)
{
  struct capacity_start s = { .mode = KG_MODE_CHECK, .id = "c1", .bundle = "/" };
  struct capacity cap = CAPACITY_INIT;
  static char text[512];

  capacity_judge (cfg, &s, vm, 1000, rep, &cap);
  capacity_release (&cap);
  snprintf (text, sizeof text, "%s", report_reason (rep, "policy.capacity"));
  *why = text;
  return report_verdict (rep, "policy.capacity");
}

int
main (void)
{
  struct guard_config cfg;
  struct vm_claim none = { 0 }, big = { VM_SOLO, 1 << 20, 2048, 0, "" };
  kg_error_t err = NULL;
  const char *why;

  if (guard_config_defaults (&cfg, &err) < 0)
    {
      printf ("Bail out! %s\n", err->msg);
      return 1;
    }
  {
    struct report rep = { 0 };

    report_fail (&rep, "policy.resources", "x", "no memory limit");
    is_int (judge (&rep, &none, &cfg, &why), VERDICT_SKIP,
            "not sized, policy.resources refuses: skipped, not refused twice");
    report_release (&rep);
  }
  {
    struct report rep = { 0 };

    report_skip (&rep, "policy.resources", "not run: policy.spec failed");
    is_int (judge (&rep, &none, &cfg, &why), VERDICT_SKIP,
            "not sized, policy.resources not run (the spec refused): skipped");
    report_release (&rep);
  }
  {
    struct report rep = { 0 };

    report_pass (&rep, "policy.resources", "the VM: 2304 MiB");
    is_int (judge (&rep, &none, &cfg, &why), VERDICT_FAIL,
            "not sized although policy.resources passed: refused, never uncounted");
    has_str (why, "sized no VM", "and says so");
    report_release (&rep);
  }
  {
    struct report rep = { 0 };

    is_int (judge (&rep, &none, &cfg, &why), VERDICT_FAIL,
            "not sized, policy.resources never ran: refused");
    report_release (&rep);
  }
  {
    struct report rep = { 0 };
    cleanup_error kg_error_t rerr = NULL;
    int dir = rundir_open ("capacity", false, &rerr);

    /* check counts the records in RUNDIR/capacity, root's alone: where
       they are there and this process cannot read them (without root),
       it does not count, and so judges no bound. */
    if (dir >= 0)
      close (dir);
    cfg.policy.max_committed_memory_mib = 4096;
    if (dir < 0 && rerr->errnum == EACCES)
      {
        is_int (judge (&rep, &big, &cfg, &why), VERDICT_SKIP,
                "a VM of 1 TiB, root's records unreadable here: not counted");
        ok (1, "# SKIP a VM over the bound: " RUNDIR "/capacity, root's, is unreadable here (%s)",
            rerr->msg);
      }
    else
      {
        is_int (judge (&rep, &big, &cfg, &why), VERDICT_FAIL,
                "a VM of 1 TiB over a bound of 4096 MiB");
        has_str (why, "more than 4096 MiB ([policy] max_committed_memory_mib)", "names the bound");
      }
    report_release (&rep);
  }
  {
    struct report rep = { 0 };

    cfg.policy.max_committed_memory_mib = 0;
    cfg.policy.committed_memory_reserve_mib = INT64_C (1) << 30;
    is_int (judge (&rep, &big, &cfg, &why), VERDICT_FAIL, "a reserve above MemTotal: refused");
    has_str (why, "leaves no memory for VMs", "and says why");
    report_release (&rep);
  }
  guard_config_release (&cfg);
  return tap_done ();
}
