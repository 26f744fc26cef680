/* SPDX-License-Identifier: GPL-2.0-or-later */
/* policy.capacity's verdicts that need no record (capacity.h): a start
   whose VM was not sized is never allowed uncounted, and the bound is
   the configuration's or MemTotal less the reserve. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "array.h"
#include "capacity.h"
#include "check-helpers.h"
#include "cleanup.h"
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

/* TEXT (LEN bytes) as the record file NAME in RUNDIR/SUB. */
static void
put_record (const char *sub, const char *name, const char *text, size_t len)
{
  cleanup_error kg_error_t err = NULL;
  char path[256];
  int fd = rundir_open (sub, true, &err);

  if (fd < 0)
    abort ();
  close (fd);
  snprintf (path, sizeof path, RUNDIR "/%s/%s", sub, name);
  fd = open (path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0 || write (fd, text, len) != (ssize_t) len || close (fd) < 0)
    abort ();
}

/* A start of container ID in BUNDLE (OCI mode, the default --root) for the
   claim VM, committed when it passes: its verdict. */
static enum verdict
start (const char *id, const char *bundle, const struct vm_claim *vm,
       const struct guard_config *cfg)
{
  struct capacity_start s = { .mode = KG_MODE_OCI, .id = id, .bundle = bundle };
  struct capacity cap = CAPACITY_INIT;
  struct report rep = { 0 };
  cleanup_error kg_error_t err = NULL;
  enum verdict v;

  capacity_judge (cfg, &s, vm, 1000, &rep, &cap);
  v = report_verdict (&rep, "policy.capacity");
  if (v == VERDICT_PASS && capacity_commit (&cap, &err) < 0)
    v = VERDICT_FAIL;
  capacity_release (&cap);
  report_release (&rep);
  return v;
}

/* One record-line format, one reader and one writer (record.h): the
   runtime records and the capacity records read the same text alike,
   and neither writer writes a field that breaks its record's lines.  In
   a private mount namespace, where RUNDIR is a tmpfs of this test's. */
static void
test_record_lines (struct guard_config *cfg)
{
  static const struct
  {
    const char *what, *cut, *put; /* the record with CUT replaced by PUT */
    size_t put_len;
    bool num; /* a row of a number field: the capacity record alone */
  } row[] = {
    { "the record as written", "", "", 0, false },
    { "a NUL byte inside a field", "c1\n", "c\0001\n", 4, false },
    { "no newline after the last field", "\n", "", 0, false },
    { "a line after the last field", "\n", "\nextra\n", 7, false },
    { "a field split over two lines", "c1\n", "c\n1\n", 5, false },
    { "a number with a sign", "\n1\n", "\n+1\n", 4, true },
    { "a number after a space", "\n1\n", "\n 1\n", 4, true },
    { "a number with text after it", "\n1\n", "\n1x\n", 4, true },
    { "numbers apart by a tab", "100 100 0\n", "100\t100 0\n", 10, true },
    { "numbers with text after the last", "100 100 0\n", "100 100 0junk\n", 14, true },
    { "a negative device number", "@DEV@", "-1", 2, true },
  };
  char tmpl[] = "/tmp/kg-record-XXXXXX", sb[64], member[96];
  struct vm_claim pod = { VM_SANDBOX, 100, 100, 0, "" }, add = { VM_MEMBER, 0, 0, 10, "sb" };
  char rname[RECORD_NAME_SIZE], cname[RECORD_NAME_SIZE];
  struct stat st;

  if (geteuid () != 0 || unshare (CLONE_NEWNS) < 0
      || mount ("none", "/", "none", MS_REC | MS_PRIVATE, NULL) < 0
      || mount ("tmpfs", "/run", "tmpfs", 0, "mode=0755") < 0 || mkdtemp (tmpl) == NULL)
    {
      ok (true, "# SKIP the record files: no private " RUNDIR " here (%s)",
          geteuid () != 0 ? "not root" : strerror (errno));
      return;
    }
  snprintf (sb, sizeof sb, "%s/sb", tmpl);
  if (mkdir (sb, 0700) < 0 || stat (sb, &st) < 0)
    abort ();
  cfg->policy.max_committed_memory_mib = 1 << 20;

  /* The writers: a pod's sandbox, then a member whose bundle has a
     newline in its path.  Either writer refuses a field that is not one
     line, and the pod's record stays readable. */
  is_int (start ("sb", sb, &pod, cfg), VERDICT_PASS, "a pod's sandbox starts and is recorded");
  snprintf (member, sizeof member, "%s/m\n", tmpl);
  if (mkdir (member, 0700) < 0)
    abort ();
  ok (start ("m1", member, &add, cfg) != VERDICT_PASS,
      "a member whose bundle path holds a newline is refused: it cannot be recorded");
  {
    cleanup_error kg_error_t err = NULL;

    is_int (capacity_started_in (KG_MODE_OCI, NULL, "sb", sb, &err), 1,
            "the pod's record is still read after it (%s)", err ? err->msg : "no error");
  }
  {
    cleanup_error kg_error_t err = NULL;

    ok (record_write (KG_MODE_OCI, NULL, "m1", member, &err) < 0,
        "the runtime record of a runtime path with a newline is refused alike");
  }

  /* The readers: the same edge fed to both, a record of each kind. */
  record_name (KG_MODE_OCI, NULL, "c1", rname);
  snprintf (cname, sizeof cname, "%s", rname);
  for (size_t i = 0; i < ARRAY_SIZE (row); i++)
    for (int cap = 0; cap < 2; cap++)
      {
        cleanup_error kg_error_t err = NULL;
        cleanup_free char *runtime = NULL;
        char text[1024], out[1024], dev[32];
        const char *at;
        size_t n, len;
        int got;

        if (row[i].num && ! cap)
          continue;
        snprintf (dev, sizeof dev, "%llu", (unsigned long long) st.st_dev);
        if (cap)
          n = (size_t) snprintf (text, sizeof text,
                                 "kata-guard capacity record 1\noci\n\nc1\n%s\n@DEV@ %llu\n\n1\n"
                                 "100 100 0\n0\n",
                                 sb, (unsigned long long) st.st_ino);
        else
          n = (size_t) snprintf (text, sizeof text,
                                 "kata-guard runtime record 1\noci\n\nc1\n/usr/bin/runc\n");
        /* CUT's last place ("" : nothing changed), PUT there; @DEV@ then
           the bundle's device. */
        at = NULL;
        for (const char *p = text; row[i].cut[0] != '\0' && (p = strstr (p, row[i].cut)) != NULL;
             p++)
          at = p;
        len = 0;
        if (at != NULL)
          {
            memcpy (out, text, (size_t) (at - text));
            len = (size_t) (at - text);
            memcpy (out + len, row[i].put, row[i].put_len);
            len += row[i].put_len;
            memcpy (out + len, at + strlen (row[i].cut),
                    n - (size_t) (at - text) - strlen (row[i].cut));
            len += n - (size_t) (at - text) - strlen (row[i].cut);
          }
        else
          {
            memcpy (out, text, n);
            len = n;
          }
        at = memmem (out, len, "@DEV@", 5);
        if (at != NULL)
          {
            size_t off = (size_t) (at - out);

            memmove (out + off + strlen (dev), out + off + 5, len - off - 5);
            memcpy (out + off, dev, strlen (dev));
            len = len - 5 + strlen (dev);
          }
        put_record (cap ? "capacity" : "runtimes", cap ? cname : rname, out, len);
        if (cap)
          got = capacity_started_in (KG_MODE_OCI, NULL, "c1", sb, &err);
        else
          {
            runtime = record_read (KG_MODE_OCI, NULL, "c1", &err);
            got = runtime != NULL ? 1 : err != NULL ? -1 : 0;
          }
        is_int (got, i == 0 ? 1 : -1, "%s record, %s: %s", cap ? "a capacity" : "a runtime",
                row[i].what, i == 0 ? "read" : "not a record");
      }
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
  test_record_lines (&cfg);
  guard_config_release (&cfg);
  return tap_done ();
}
