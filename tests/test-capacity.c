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

#include "array.h"
#include "capacity.h"
#include "check-helpers.h"
#include "decision.h"
#include "error.h"
#include "policy.h"
#include "proc.h"
#include "record.h"
#include "rundir.h"
#include "sha256.h"
#include "tap.h"

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
    ok (report_find (&rep, CAPACITY_ID) != NULL
            && report_find (&rep, CAPACITY_ID)->reach == REACH_HOST,
        "the parent's own step: its result reaches the host's count");
    report_fail (&rep, "policy.seccomp", NULL, "no filter");
    report_set_reach (&rep, rep.n - 1, REACH_VM);
    ok (! decision_audit_allows ("audit", &rep),
        "audit mode does not let its refusal through beside a VM-only rule's");
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
  {
    /* The bound is one function's (policy_committed_bound): the start's
       policy.capacity and check's policy.default_start, which fails a
       host where one VM at its ceiling is past it (issue 47), read it
       alike. */
    cleanup_error kg_error_t berr = NULL;
    int64_t max = 0, total = 0;
    char bwhy[160];

    cfg.policy.max_committed_memory_mib = 4096;
    is_int (policy_committed_bound (&cfg, &max, bwhy, sizeof bwhy, &berr), 0,
            "the bound: [policy] max_committed_memory_mib");
    is_int (max, 4096, "4096 MiB");
    has_str (bwhy, "[policy] max_committed_memory_mib", "named by its key");
    cfg.policy.max_committed_memory_mib = 0;
    cfg.policy.committed_memory_reserve_mib = 2048;
    if (kg_mem_total_mib (&total, &berr) < 0)
      abort ();
    is_int (policy_committed_bound (&cfg, &max, bwhy, sizeof bwhy, &berr), 0,
            "the bound: MemTotal less the reserve");
    is_int (max, total - 2048, "MemTotal %lld less 2048 MiB", (long long) total);
    cfg.policy.committed_memory_reserve_mib = total;
    ok (policy_committed_bound (&cfg, &max, bwhy, sizeof bwhy, &berr) < 0 && berr != NULL
            && strstr (berr->msg, "leaves no memory for VMs") != NULL,
        "a reserve of all of MemTotal leaves no bound");
  }
  {
    /* FIPS 180-4's examples, and the padding's edges (55, 56 and 64
       bytes), as sha256sum has them. */
    static const struct
    {
      const char *in, *hex;
    } v[] = {
      { "", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" },
      { "abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" },
      { "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1" },
      { "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
        "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318" },
      { "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
        "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb" },
    };

    for (size_t i = 0; i < ARRAY_SIZE (v); i++)
      {
        unsigned char md[SHA256_LEN];
        char hex[SHA256_HEX_LEN + 1];

        sha256_mem (v[i].in, strlen (v[i].in), md);
        sha256_hex (md, hex);
        is_str (hex, v[i].hex, "sha256_mem of %zu bytes", strlen (v[i].in));
      }
  }
  {
    char name[RECORD_NAME_SIZE];

    /* The names are the SHA-256 of mode, scope and id, each with its NUL
       (sha256sum of printf 'shim\\0default\\0c1\\0'): a caller who picks
       ids cannot make two meet, as it could a 64-bit FNV-1a's. */
    record_name (KG_MODE_SHIM, "default", "c1", name);
    is_str (name, "shim-f20727440f500b76f5c5581b717f0fbdbdbd61f43680946a39a1a4a453aee143",
            "a shim record's name is the SHA-256 of its identity");
    record_name (KG_MODE_OCI, NULL, "c1", name);
    is_str (name, "oci-0c7462bfad6b8d2de80e4e51b68cb6c01f0a616c28a61f548f88320421bb613d",
            "an OCI record's name, the default --root as \"\"");
    ok (record_name_valid (name), "it is a record's name");
    record_name (KG_MODE_OCI, "c", "1", name);
    ok (strcmp (name, "oci-0c7462bfad6b8d2de80e4e51b68cb6c01f0a616c28a61f548f88320421bb613d") != 0,
        "scope \"c\" and id \"1\" are not scope \"\" and id \"c1\"");
    record_name_legacy (KG_MODE_SHIM, "default", "c1", name);
    ok (record_name_valid (name) && strlen (name) == 5 + 16,
        "the name of before the upgrade (FNV-1a, 16 hex digits) is still read");
    ok (! record_name_valid ("shim-0123") && ! record_name_valid ("lock")
            && ! record_name_valid (
                "shim-f20727440f500b76f5c5581b717f0fbdbdbd61f43680946a39a1a4a453aee14G"),
        "nothing else is a record's name");
    ok (record_identity_is ("shim", "default", "c1", KG_MODE_SHIM, "default", "c1")
            && ! record_identity_is ("shim", "default", "c1", KG_MODE_SHIM, "default", "c2")
            && ! record_identity_is ("shim", "default", "c1", KG_MODE_OCI, "default", "c1")
            && ! record_identity_is ("shim", "", "c1", KG_MODE_SHIM, "default", "c1")
            && record_identity_is ("oci", "", "c1", KG_MODE_OCI, NULL, "c1")
            && ! record_identity_is ("oci", "", "c1", KG_MODE_OCI, NULL, NULL),
        "a record is a container's only when mode, scope and id are all its own");
  }
  guard_config_release (&cfg);
  return tap_done ();
}
