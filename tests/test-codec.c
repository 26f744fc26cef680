/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The checker's wire format (privsep/codec.c): a report survives the
   round trip field by field and byte for byte; every message that is not
   exactly well formed is refused and leaves the parent's report as it
   was; the child's requests parse as the parent answers them.

   tests/test-codec --seeds DIR writes the fuzz corpus of
   tests/fuzz/fuzz-checker.c into DIR instead (as root, from the source
   tree): hand-made reports with every field kind, the reports real
   `kata-guard check` runs send (the confined checker itself, on this
   host), and the requests the child's policy checks send. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "array.h"
#include "checker.h"
#include "checks.h"
#include "preflight.h"
#include "cleanup.h"
#include "codec.h"
#include "conf.h"
#include "egress.h"
#include "error.h"
#include "fdio.h"
#include "fuzz/fuzz-checker.h"
#include "kata.h"
#include "request.h"
#include "tap.h"
#include "test-files.h"

/* ---- building messages by hand ----------------------------------------- */

struct msg
{
  unsigned char b[CHECKER_MSG_MAX + 64];
  size_t len;
};

static void
put (struct msg *m, const void *p, size_t n)
{
  if (m->len + n > sizeof m->b)
    abort ();
  memcpy (m->b + m->len, p, n);
  m->len += n;
}

static void
put_u8 (struct msg *m, uint8_t v)
{
  put (m, &v, 1);
}
static void
put_u16 (struct msg *m, uint16_t v)
{
  put (m, &v, 2);
}
static void
put_u32 (struct msg *m, uint32_t v)
{
  put (m, &v, 4);
}

static void
header (struct msg *m, uint8_t flags, uint32_t n_results, uint32_t n_files)
{
  m->len = 0;
  put (m, "KGCR", 4);
  put_u8 (m, CHECKER_VERSION);
  put_u8 (m, flags);
  put_u16 (m, 0);
  put_u32 (m, n_results);
  put_u32 (m, n_files);
  put_u32 (m, 0);
}

static void
result (struct msg *m, uint8_t verdict, const char *id, const char *reason, const char *remedy)
{
  put_u8 (m, verdict);
  put_u8 (m, (uint8_t) strlen (id));
  put_u16 (m, (uint16_t) strlen (reason));
  put_u16 (m, remedy ? (uint16_t) strlen (remedy) : 0);
  put_u8 (m, remedy != NULL);
  put_u8 (m, 0);
  put (m, id, strlen (id));
  put (m, reason, strlen (reason));
  if (remedy)
    put (m, remedy, strlen (remedy));
}

static void
file (struct msg *m, const char *path)
{
  put_u16 (m, (uint16_t) strlen (path));
  put (m, path, strlen (path));
}

/* The header's body_len, from what the message holds. */
static void
seal (struct msg *m)
{
  uint32_t body = (uint32_t) (m->len - CHECKER_HEADER_LEN);

  memcpy (m->b + 16, &body, 4);
}

/* ---- a report with every field kind ----------------------------------- */

static const char cache_text[]
    = "kata-guard sha256 cache 1\n"
      "2049 131074 4194304 1700000000 0 1700000000 5 "
      "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\n";

static char long_text[CHECKER_TEXT_MAX + 100];
static char long_id[CHECKER_ID_MAX + 1];
static char long_path[CHECKER_PATH_MAX + 1];

static void
every_kind (struct report *r)
{
  memset (long_text, 'x', sizeof long_text - 1);
  memset (long_id, 'a', sizeof long_id - 1);
  long_path[0] = '/';
  memset (long_path + 1, 'p', sizeof long_path - 2);
  memset (r, 0, sizeof *r);
  report_pass (r, "kvm.device", "/dev/kvm is the KVM character device 10:232");
  report_warn (r, "kata.debug", "set enable_debug = false", "debug logs\tare on\nfor the agent");
  report_fail (r, "egress.proxy", "", "an empty remedy is still a remedy");
  report_skip (r, "policy.spec", "not a container start: \xc3\xa9\xe2\x9c\x93");
  report_add (r, long_id, VERDICT_FAIL, long_text, "%s", long_text);
  report_fail (r, "assets.sha256", NULL, "%s", "");
  /* A rule's reach, as policy-rules.c sets it where the rule is judged. */
  report_set_reach (r, 4, REACH_VM);
  report_set_reach (r, 5, REACH_HOST);
  report_add_file (r, "/etc/kata-guard/config.toml");
  report_add_file (r, "/opt/kata/share/defaults/kata-containers/configuration-fc.toml");
  report_add_file (r, long_path);
}

static void
test_round_trip (void)
{
  int rc;
  struct report in, out = { 0 }, again = { 0 };
  unsigned char *buf = NULL, *buf2 = NULL;
  size_t len = 0, len2 = 0, cache_len = 0;
  char *cache = NULL;
  kg_error_t err = NULL;
  bool want_fd = false;

  every_kind (&in);
  in.pod_sandbox = true;
  ok (checker_encode (&in, true, cache_text, strlen (cache_text), &buf, &len, &err) == 0,
      "a report with every field kind encodes");
  ok (checker_header_wants_fd (buf, len), "its header announces the descriptor");
  rc = checker_decode (buf, len, &out, &want_fd, &cache, &cache_len, &err);
  ok (rc == 0, "and decodes (%s)", err ? err->msg : "ok");
  ok (want_fd, "with the descriptor flag");
  ok (out.pod_sandbox && ! out.oom, "the sandbox flag, and no oom");
  is_int (out.n, 6, "6 results");
  is_int (out.n_files, 3, "3 files");
  if (out.n == 6 && out.n_files == 3)
    {
      ok (out.results[0].verdict == VERDICT_PASS && out.results[1].verdict == VERDICT_WARN
              && out.results[2].verdict == VERDICT_FAIL && out.results[3].verdict == VERDICT_SKIP,
          "every verdict survives");
      is_str (out.results[0].id, "kvm.device", "ids survive");
      is_str (out.files[1], "/opt/kata/share/defaults/kata-containers/configuration-fc.toml",
              "files survive");
      is_str (out.results[1].reason, "debug logs\tare on\nfor the agent",
              "tab and newline survive");
      is_str (out.results[2].remedy, "", "an empty remedy stays empty, not missing");
      ok (out.results[0].remedy == NULL && out.results[5].remedy == NULL,
          "a missing remedy stays missing");
      is_str (out.results[3].reason, "not a container start: \xc3\xa9\xe2\x9c\x93",
              "UTF-8 survives");
      is_str (out.results[4].id, long_id, "an id of %d bytes survives", CHECKER_ID_MAX);
      is_int (strlen (out.results[4].reason), CHECKER_TEXT_MAX,
              "a longer reason is cut to %d bytes", CHECKER_TEXT_MAX);
      ok (strcmp (out.results[4].reason + CHECKER_TEXT_MAX - 3, "...") == 0
              && strspn (out.results[4].reason, "x") == CHECKER_TEXT_MAX - 3,
          "and says so: its first %d bytes, then \"...\"", CHECKER_TEXT_MAX - 3);
      is_int (strlen (out.results[4].remedy), CHECKER_TEXT_MAX, "and a longer remedy too");
      ok (strcmp (out.results[4].remedy + CHECKER_TEXT_MAX - 3, "...") == 0, "which says so too");
      is_str (out.results[5].reason, "", "an empty reason survives");
      is_str (out.files[2], long_path, "a path of %d bytes survives", CHECKER_PATH_MAX);
      ok (out.results[4].reach == REACH_VM && out.results[2].reach == REACH_HOST
              && out.results[5].reach == REACH_HOST,
          "each result's reach survives (audit mode reads it in the parent)");
    }
  is_str (cache, cache_text, "the digest cache survives");
  is_int (cache_len, strlen (cache_text), "with its length");

  ok (checker_encode (&out, want_fd, cache, cache_len, &buf2, &len2, &err) == 0,
      "the decoded report encodes again");
  ok (len2 == len && memcmp (buf, buf2, len) == 0, "to the same bytes");
  ok (checker_decode (buf2, len2, &again, &want_fd, NULL, NULL, &err) == 0
          && same_report (&out, &again),
      "which decode to the same report");
  free (buf2);
  free (cache);
  report_release (&again);
  report_release (&out);
  free (buf);

  /* The flags one by one: nothing but what the report says. */
  memset (&out, 0, sizeof out);
  in.pod_sandbox = false;
  in.oom = true;
  ok (checker_encode (&in, false, NULL, 0, &buf, &len, &err) == 0
          && ! checker_header_wants_fd (buf, len),
      "without a descriptor, the header does not announce one");
  cache = (char *) "untouched";
  ok (checker_decode (buf, len, &out, &want_fd, &cache, &cache_len, &err) == 0 && ! want_fd
          && out.oom && ! out.pod_sandbox && cache == NULL,
      "an incomplete report stays incomplete, and no cache comes without the flag");
  report_release (&out);
  free (buf);

  /* A cache over the bound only saves time: it is left out, not refused. */
  {
    static char big[CHECKER_CACHE_MAX + 2];

    memset (big, '1', sizeof big - 1);
    ok (checker_encode (&in, false, big, sizeof big - 1, &buf, &len, &err) == 0
            && ! (buf[5] & CHECKER_FLAG_CACHE),
        "a cache over %d bytes is left out", CHECKER_CACHE_MAX);
    free (buf);
  }
  report_release (&in);

  /* An empty report is a message too (the decision is the parent's). */
  ok (checker_encode (&in, false, NULL, 0, &buf, &len, &err) == 0 && len == CHECKER_HEADER_LEN,
      "an empty report is a header alone");
  ok (checker_decode (buf, len, &out, &want_fd, NULL, NULL, &err) == 0 && out.n == 0,
      "and decodes to an empty report");
  free (buf);
  report_release (&out);
}

/* ---- refusals ---------------------------------------------------------- */

/* M must be refused with WANT in the message, and leave a report that
   holds the parent's own entries as it was, and *CACHE untouched. */
static void
refused (const unsigned char *b, size_t len, const char *want, const char *name)
{
  struct report r = { 0 };
  kg_error_t err = NULL;
  bool want_fd = false;
  char *cache = (char *) "untouched";
  size_t cache_len = 7;

  report_pass (&r, "config", "the parent's own");
  report_add_file (&r, "/etc/kata-guard/config.toml");
  ok (checker_decode (b, len, &r, &want_fd, &cache, &cache_len, &err) < 0, "%s: refused", name);
  ok (r.n == 1 && r.n_files == 1 && ! r.oom && ! r.pod_sandbox && strcmp (cache, "untouched") == 0
          && cache_len == 7,
      "%s: the report and the cache are as they were", name);
  has_str (err ? err->msg : "", want, "%s: says why", name);
  kg_error_release (&err);
  report_release (&r);
}

/* The VM claim (report.vm): every role round-trips; sizes out of bounds,
   a member without its pod or a VM with one, a pod id with a '/' are
   refused whole. */
static void
vm_encoded (const struct vm_claim *vm, unsigned char **buf, size_t *len)
{
  struct report in = { 0 };
  kg_error_t err = NULL;

  report_pass (&in, "policy.resources", "sized");
  in.vm = *vm;
  *buf = NULL;
  if (checker_encode (&in, false, NULL, 0, buf, len, &err) < 0)
    {
      fprintf (stderr, "# encode: %s\n", err->msg);
      kg_error_release (&err);
    }
  report_release (&in);
}

static void
test_vm_claim (void)
{
  int rc;
  static const struct
  {
    struct vm_claim vm;
    bool good;
    const char *name;
  } cases[] = {
    { { VM_SOLO, 2560, 2048, 0, "" }, true, "a VM of its own" },
    { { VM_SANDBOX, 4096, 2048, 0, "" }, true, "a pod's sandbox" },
    { { VM_MEMBER, 0, 0, 512, "3f0a9b" }, true, "a member" },
    { { VM_MEMBER, 0, 0, 0, "3f0a9b" }, true, "a member that plugs nothing in" },
    { { VM_SOLO, 0, 2048, 0, "" }, false, "a VM of 0 MiB" },
    { { VM_SOLO, -1, 2048, 0, "" }, false, "a VM of -1 MiB" },
    { { VM_SOLO, CHECKER_VM_MIB_MAX, 2048, 0, "" }, false, "a VM of 2^40 MiB" },
    { { VM_SOLO, 2560, 2048, 1, "" }, false, "a VM that also adds" },
    { { VM_SANDBOX, 2560, 0, 0, "" }, false, "a sandbox without a default" },
    { { VM_SOLO, 2560, 2048, 0, "abc" }, false, "a VM naming a pod" },
    { { VM_MEMBER, 0, 0, 512, "" }, false, "a member without its pod" },
    { { VM_MEMBER, 1, 0, 512, "abc" }, false, "a member with a size of its own" },
    { { VM_MEMBER, 0, 0, -5, "abc" }, false, "a member adding -5 MiB" },
    { { VM_MEMBER, 0, 0, 512, "../x" }, false, "a pod id with a slash" },
    { { VM_MEMBER, 0, 0, 512, ".." }, false, "a pod id of .." },
    { { VM_MEMBER, 0, 0, 512, "a b" }, false, "a pod id with a space" },
  };

  for (size_t i = 0; i < ARRAY_SIZE (cases); i++)
    {
      unsigned char *buf;
      size_t len = 0;

      vm_encoded (&cases[i].vm, &buf, &len);
      if (cases[i].good)
        {
          struct report out = { 0 };
          kg_error_t err = NULL;
          bool want_fd;

          rc = buf != NULL ? checker_decode (buf, len, &out, &want_fd, NULL, NULL, &err) : -1;
          ok (rc == 0, "vm claim, %s: decodes (%s)", cases[i].name, err ? err->msg : "ok");
          ok (out.vm.role == cases[i].vm.role && out.vm.mem_mib == cases[i].vm.mem_mib
                  && out.vm.base_mib == cases[i].vm.base_mib
                  && out.vm.add_mib == cases[i].vm.add_mib
                  && strcmp (out.vm.pod, cases[i].vm.pod) == 0,
              "vm claim, %s: every field survives", cases[i].name);
          kg_error_release (&err);
          report_release (&out);
        }
      else if (buf != NULL)
        refused (buf, len, "VM claim", cases[i].name);
      else
        ok (0, "vm claim, %s: encodes", cases[i].name);
      free (buf);
    }
  {
    /* A role past the last, and a claim cut short. */
    unsigned char *buf;
    size_t len = 0;
    struct vm_claim vm = { VM_SOLO, 2560, 2048, 0, "" };

    vm_encoded (&vm, &buf, &len);
    if (buf != NULL)
      {
        buf[len - 28] = VM_MEMBER + 1;
        refused (buf, len, "VM claim is malformed", "a role past the last");
        buf[len - 28] = VM_SOLO;
        {
          uint32_t body;

          memcpy (&body, buf + 16, 4);
          body -= 8;
          memcpy (buf + 16, &body, 4);
        }
        refused (buf, len - 8, "does not hold", "a claim cut short");
      }
    free (buf);
  }
  {
    struct report out = { 0 };
    struct vm_claim none = { 0 };
    unsigned char *buf;
    size_t len = 0;
    kg_error_t err = NULL;
    bool want_fd;

    vm_encoded (&none, &buf, &len);
    ok (buf != NULL && ! (buf[5] & CHECKER_FLAG_VM), "no claim: no VM flag");
    ok (buf != NULL && checker_decode (buf, len, &out, &want_fd, NULL, NULL, &err) == 0
            && out.vm.role == VM_NONE,
        "no claim: decodes to none");
    kg_error_release (&err);
    report_release (&out);
    free (buf);
  }
}

static struct msg m;

static void
test_refusals (void)
{
  struct report in;
  unsigned char *buf = NULL;
  size_t len = 0;
  kg_error_t err = NULL;
  bool all = true;

  every_kind (&in);
  checker_encode (&in, true, cache_text, strlen (cache_text), &buf, &len, &err);
  report_release (&in);
  /* Every prefix: a message is whole or nothing. */
  for (size_t n = 0; n < len; n++)
    {
      struct report r = { 0 };
      bool want_fd;

      if (checker_decode (buf, n, &r, &want_fd, NULL, NULL, &err) == 0 || r.n != 0 || r.n_files != 0
          || err == NULL)
        all = false;
      kg_error_release (&err);
      report_release (&r);
    }
  ok (all, "every one of the %zu truncations is refused", len);
  free (buf);

  header (&m, 0, 1, 0);
  result (&m, VERDICT_PASS, "config", "fine", NULL);
  seal (&m);
  refused (m.b, m.len, "reported config twice", "an id the parent's report holds");

  header (&m, 0, 2, 0);
  result (&m, VERDICT_PASS, "kvm.api", "fine", NULL);
  result (&m, VERDICT_FAIL, "kvm.api", "not fine", "fix it");
  seal (&m);
  refused (m.b, m.len, "reported kvm.api twice", "an id twice");

  {
    static const char *const bad_ids[] = {
      "",           "Kvm.device", "1kvm",        ".kvm",
      "kvm device", "kvm/device", "kvm\ndevice", "kvm.d\xc3\xa9vice"
    };

    for (size_t i = 0; i < ARRAY_SIZE (bad_ids); i++)
      {
        char name[64];

        header (&m, 0, 1, 0);
        result (&m, VERDICT_PASS, bad_ids[i], "fine", NULL);
        seal (&m);
        snprintf (name, sizeof name, "bad id %zu", i);
        refused (m.b, m.len, "bad id or text", name);
      }
  }
  header (&m, 0, 1, 0);
  put_u8 (&m, VERDICT_PASS);
  put_u8 (&m, CHECKER_ID_MAX + 1);
  put_u16 (&m, 0);
  put_u16 (&m, 0);
  put_u8 (&m, 0);
  put_u8 (&m, 0);
  for (int i = 0; i <= CHECKER_ID_MAX; i++)
    put_u8 (&m, 'a');
  seal (&m);
  refused (m.b, m.len, "bad id or text", "an id of 64 bytes");

  {
    static const struct
    {
      enum verdict verdict;
      const char *reason, *remedy, *name;
    } bad_texts[] = {
      { VERDICT_PASS, "a \033[31mred\033[0m reason", NULL, "an escape sequence in a reason" },
      { VERDICT_FAIL, "reason", "a remedy\r", "a carriage return in a remedy" },
      { VERDICT_FAIL, "del \x7f", NULL, "DEL in a reason" },
      { VERDICT_FAIL, "caf\xe9", NULL, "a reason that is not UTF-8 (Latin-1)" },
      { VERDICT_FAIL, "reason", "cut \xe2\x9c", "a remedy that ends in half a character" },
    };

    for (size_t i = 0; i < ARRAY_SIZE (bad_texts); i++)
      {
        header (&m, 0, 1, 0);
        result (&m, bad_texts[i].verdict, "kvm.api", bad_texts[i].reason, bad_texts[i].remedy);
        seal (&m);
        refused (m.b, m.len, "bad id or text", bad_texts[i].name);
      }
  }
  header (&m, 0, 1, 0);
  put_u8 (&m, VERDICT_PASS);
  put_u8 (&m, 7);
  put_u16 (&m, 3);
  put_u16 (&m, 0);
  put_u8 (&m, 0);
  put_u8 (&m, 0);
  put (&m, "kvm.api", 7);
  put (&m, "a\0b", 3);
  seal (&m);
  refused (m.b, m.len, "bad id or text", "a NUL in a reason");

  /* The fixed fields of a result. */
  {
    static const struct
    {
      uint8_t verdict, has_remedy, reach;
      uint16_t reason_len, remedy_len;
      const char *name;
    } bad[] = {
      { VERDICT_FAIL + 1, 0, 0, 0, 0, "an unknown verdict" },
      { VERDICT_PASS, 2, 0, 0, 0, "has_remedy 2" },
      { VERDICT_PASS, 0, REACH_VM + 1, 0, 0, "a reach neither the host nor the VM" },
      { VERDICT_FAIL, 0, 0xff, 0, 0, "a reach of 0xff" },
      { VERDICT_PASS, 0, 0, 0, 1, "a remedy length without a remedy" },
      { VERDICT_PASS, 0, 0, CHECKER_TEXT_MAX + 1, 0, "a reason over the bound" },
      { VERDICT_PASS, 1, 0, 0, CHECKER_TEXT_MAX + 1, "a remedy over the bound" },
    };

    for (size_t i = 0; i < ARRAY_SIZE (bad); i++)
      {
        header (&m, 0, 1, 0);
        put_u8 (&m, bad[i].verdict);
        put_u8 (&m, 3);
        put_u16 (&m, bad[i].reason_len);
        put_u16 (&m, bad[i].remedy_len);
        put_u8 (&m, bad[i].has_remedy);
        put_u8 (&m, bad[i].reach);
        put (&m, "kvm", 3);
        for (size_t k = 0; k < (size_t) bad[i].reason_len + bad[i].remedy_len; k++)
          put_u8 (&m, 'r');
        seal (&m);
        refused (m.b, m.len, "malformed", bad[i].name);
      }
  }

  /* Counts. */
  header (&m, 0, CHECKER_MAX_RESULTS + 1, 0);
  seal (&m);
  refused (m.b, m.len, "at most", "a result count over the bound");
  header (&m, 0, 0, CHECKER_MAX_FILES + 1);
  seal (&m);
  refused (m.b, m.len, "at most", "a file count over the bound");
  header (&m, 0, UINT32_MAX, UINT32_MAX);
  seal (&m);
  refused (m.b, m.len, "at most", "counts of 2^32-1");
  header (&m, 0, 2, 0);
  result (&m, VERDICT_PASS, "kvm.api", "fine", NULL);
  seal (&m);
  refused (m.b, m.len, "does not hold", "one result fewer than counted");
  header (&m, 0, 0, 2);
  file (&m, "/etc/kata-guard/config.toml");
  seal (&m);
  refused (m.b, m.len, "does not hold", "one file fewer than counted");
  header (&m, 0, 0, 0);
  file (&m, "/etc/kata-guard/config.toml");
  seal (&m);
  refused (m.b, m.len, "after its last entry", "a file more than counted");

  /* The header. */
  header (&m, 0, 0, 0);
  seal (&m);
  m.b[3] = 'X';
  refused (m.b, m.len, "bad magic", "another magic");
  header (&m, 0, 0, 0);
  seal (&m);
  m.b[4] = CHECKER_VERSION + 1;
  refused (m.b, m.len, "not this format", "another version");
  header (&m, 0x20, 0, 0);
  seal (&m);
  refused (m.b, m.len, "not this format", "an unknown flag");
  header (&m, 0, 0, 0);
  seal (&m);
  m.b[6] = 1;
  refused (m.b, m.len, "names file 1 of 0 as the Kata configuration",
           "a Kata configuration beyond the files");
  header (&m, 0, 0, 0);
  put_u8 (&m, 0);
  refused (m.b, m.len, "too long", "a body longer than body_len");
  header (&m, 0, 0, 0);
  seal (&m);
  put_u32 (&m, 0);
  memcpy (m.b + 16, &(uint32_t){ 8 }, 4);
  refused (m.b, CHECKER_HEADER_LEN + 4, "truncated", "a body shorter than body_len");
  header (&m, 0, 0, 0);
  memcpy (m.b + 16, &(uint32_t){ CHECKER_MSG_MAX }, 4);
  refused (m.b, m.len, "truncated", "a body_len over the bound");

  /* Files. */
  {
    static const char *const bad_paths[] = { "", "etc/kata-guard/config.toml", "/etc/kata\nguard",
                                             "/etc/\033kata", "/etc/kata\0x" };

    for (size_t i = 0; i < ARRAY_SIZE (bad_paths); i++)
      {
        char name[64];
        size_t n = i == 4 ? 11 : strlen (bad_paths[i]);

        header (&m, 0, 0, 1);
        put_u16 (&m, (uint16_t) n);
        put (&m, bad_paths[i], n);
        seal (&m);
        snprintf (name, sizeof name, "bad file %zu", i);
        refused (m.b, m.len, "not an absolute path", name);
      }
  }
  header (&m, 0, 0, 1);
  put_u16 (&m, CHECKER_PATH_MAX + 1);
  put_u8 (&m, '/');
  for (int i = 0; i < CHECKER_PATH_MAX; i++)
    put_u8 (&m, 'p');
  seal (&m);
  refused (m.b, m.len, "not an absolute path", "a path over the bound");

  /* The cache. */
  header (&m, CHECKER_FLAG_CACHE, 0, 0);
  seal (&m);
  refused (m.b, m.len, "does not hold", "a cache flag without a cache");
  header (&m, CHECKER_FLAG_CACHE, 0, 0);
  put_u32 (&m, 5);
  put (&m, "a\tb\nc", 5);
  seal (&m);
  refused (m.b, m.len, "digest cache is malformed", "a tab in the cache");
  header (&m, CHECKER_FLAG_CACHE, 0, 0);
  put_u32 (&m, CHECKER_CACHE_MAX + 1);
  for (int i = 0; i <= CHECKER_CACHE_MAX; i++)
    put_u8 (&m, '1');
  seal (&m);
  refused (m.b, m.len, "digest cache is malformed", "a cache over the bound");
  header (&m, CHECKER_FLAG_CACHE, 0, 0);
  put_u32 (&m, 10);
  put (&m, "12345", 5);
  seal (&m);
  refused (m.b, m.len, "does not hold", "a cache shorter than it says");

  /* What encoding refuses. */
  {
    struct report r = { 0 };
    char id[CHECKER_ID_MAX + 2];

    memset (id, 'a', sizeof id - 1);
    id[sizeof id - 1] = '\0';
    report_pass (&r, id, "fine");
    ok (checker_encode (&r, false, NULL, 0, &buf, &len, &err) < 0,
        "an id over the bound does not encode");
    kg_error_release (&err);
    report_release (&r);
    report_pass (&r, "kvm.api", "fine");
    report_add_file (&r, "");
    ok (checker_encode (&r, false, NULL, 0, &buf, &len, &err) < 0,
        "an empty file name does not encode");
    kg_error_release (&err);
    report_release (&r);
    for (int i = 0; i <= CHECKER_MAX_FILES; i++)
      report_add_file (&r, "/etc/kata-guard/config.toml");
    ok (checker_encode (&r, false, NULL, 0, &buf, &len, &err) < 0,
        "more files than the bound do not encode");
    kg_error_release (&err);
    report_release (&r);
  }
}

static void
test_validators (void)
{
  ok (checker_id_valid ("kvm.create_vm", 13) && checker_id_valid ("a-0", 3),
      "ids: lower case, digits, '.', '_', '-'");
  ok (! checker_id_valid ("", 0) && ! checker_id_valid ("0a", 2) && ! checker_id_valid ("aB", 2),
      "ids: not empty, a letter first, no upper case");
  ok (checker_text_valid ("a\tb\nc \xc3\xa9", 8) && checker_text_valid ("", 0),
      "text: tab, newline and any character from U+0020 but DEL");
  ok (! checker_text_valid ("c \xff", 3) && ! checker_text_valid ("caf\xe9", 4)
          && ! checker_text_valid ("\xe2\x9c", 2) && ! checker_path_valid ("/opt/\xff", 6),
      "text: strict UTF-8 (no Latin-1, no half a character), in a path too");
  ok (! checker_text_valid ("a\rb", 3) && ! checker_text_valid ("\x7f", 1)
          && ! checker_text_valid ("a\0b", 3),
      "text: no other control character, no DEL, no NUL");
  ok (checker_path_valid ("/a", 2) && ! checker_path_valid ("a", 1) && ! checker_path_valid ("", 0)
          && ! checker_path_valid ("/a\nb", 4) && checker_path_valid ("/a\tb", 4),
      "paths: absolute, one line");
  ok (checker_cache_valid ("1 2\n", 4) && ! checker_cache_valid ("1\t2", 3),
      "cache: text without tabs");
}

/* ---- requests ---------------------------------------------------------- */

static void
probe_v4 (struct netns_probe *p)
{
  struct sockaddr_in *sin = (struct sockaddr_in *) &p->proxy;

  memset (p, 0, sizeof *p);
  sin->sin_family = AF_INET;
  sin->sin_port = htons (3128);
  sin->sin_addr.s_addr = htonl (0x7f000001);
  p->proxy_len = sizeof *sin;
  p->timeout_ms = 1000;
  strcpy (p->host, "kg-0123456789abcdef.invalid");
}

/* Every proper prefix of B (LEN bytes) must be PARTIAL, B itself WANT. */
static enum checker_parse
parse_whole (const unsigned char *b, size_t len, struct checker_request *rq)
{
  enum checker_parse r = CHECKER_PARSE_PARTIAL;

  for (size_t n = 0; n < len; n++)
    if (checker_request_parse (b, n, rq) != CHECKER_PARSE_PARTIAL)
      return (enum checker_parse) - 1;
  r = checker_request_parse (b, len, rq);
  return r;
}

static unsigned char nn[CHECKER_NETNS_REQUEST_LEN + 16];

/* A KGNN request of PID and PATH with probe P, edited by EDIT, parses as WANT. */
static void
netns_case (uint32_t pid, const char *path, const struct netns_probe *p,
            void (*edit) (struct netns_request *), enum checker_parse want, const char *name)
{
  struct netns_request rq;
  struct checker_request out;

  memset (&rq, 0, sizeof rq);
  rq.pid = pid;
  if (path)
    memcpy (rq.path, path, strlen (path) + 1);
  rq.probe = *p;
  if (edit)
    edit (&rq);
  memcpy (nn, "KGNN", 4);
  memcpy (nn + 4, &(uint32_t){ sizeof rq }, 4);
  memcpy (nn + 8, &rq, sizeof rq);
  is_int (parse_whole (nn, CHECKER_NETNS_REQUEST_LEN, &out), want, "KGNN %s", name);
}

static void
unterminated_path (struct netns_request *r)
{
  memset (r->path, 'p', sizeof r->path);
  r->path[0] = '/';
}
static void
unterminated_host (struct netns_request *r)
{
  memset (r->probe.host, 'h', sizeof r->probe.host);
}
static void
empty_host (struct netns_request *r)
{
  r->probe.host[0] = '\0';
}
static void
host_space (struct netns_request *r)
{
  strcpy (r->probe.host, "kg.invalid HTTP/1.1");
}
static void
host_crlf (struct netns_request *r)
{
  strcpy (r->probe.host, "kg.invalid\r\nX: y");
}
static void
host_colon (struct netns_request *r)
{
  strcpy (r->probe.host, "kg.invalid:443");
}
static void
timeout_0 (struct netns_request *r)
{
  r->probe.timeout_ms = 0;
}
static void
timeout_60001 (struct netns_request *r)
{
  r->probe.timeout_ms = 60001;
}
static void
timeout_60000 (struct netns_request *r)
{
  r->probe.timeout_ms = 60000;
}
static void
family_unix (struct netns_request *r)
{
  r->probe.proxy.ss_family = AF_UNIX;
}
static void
len_v6 (struct netns_request *r)
{
  r->probe.proxy_len = sizeof (struct sockaddr_in6);
}
static void
v6 (struct netns_request *r)
{
  struct sockaddr_in6 *s6 = (struct sockaddr_in6 *) &r->probe.proxy;

  memset (&r->probe.proxy, 0, sizeof r->probe.proxy);
  s6->sin6_family = AF_INET6;
  s6->sin6_port = htons (3128);
  s6->sin6_addr.s6_addr[15] = 1;
  r->probe.proxy_len = sizeof *s6;
}

/* request-list.h's rows: each kind's magic is its row's, distinct, and
   the parent reads a request that starts with it as that kind. */
static void
test_request_list (void)
{
  static const struct
  {
    const char *magic;
    enum checker_request_kind kind;
    const char *name;
  } rows[] = {
#define ROW(KIND, NAME, MAGIC, MEMBER, RET, PARAMS, ASKS, REPLY)                                   \
  { MAGIC, CHECKER_REQ_##KIND, #NAME },
    KG_REQUESTS (ROW)
#undef ROW
  };

  is_int ((int) ARRAY_SIZE (rows), CHECKER_REQ_KINDS, "one kind per row of the list");
  for (size_t i = 0; i < ARRAY_SIZE (rows); i++)
    {
      unsigned char b[CHECKER_REQUEST_HEAD] = { 0 };
      struct checker_request rq = { 0 };
      enum checker_parse p;

      ok (rows[i].kind == (enum checker_request_kind) i
              && memcmp (checker_request_magic[i], rows[i].magic, 4) == 0,
          "%s: kind %zu, magic %s", rows[i].name, i, rows[i].magic);
      for (size_t j = 0; j < i; j++)
        ok (memcmp (rows[j].magic, rows[i].magic, 4) != 0, "%s's magic is not %s's", rows[i].name,
            rows[j].name);
      memcpy (b, rows[i].magic, 4);
      p = checker_request_parse (b, sizeof b, &rq);
      ok (p != CHECKER_PARSE_NONE && p != CHECKER_PARSE_PARTIAL && rq.kind == rows[i].kind,
          "a request with %s's magic is read as %s", rows[i].name, rows[i].name);
    }
}

static void
test_requests (void)
{
  unsigned char b[CHECKER_REQUEST_HEAD + 4];
  struct checker_request rq;
  struct netns_probe p;
  uint32_t arg;

  /* KGRQ. */
  ok (checker_request_exe (4242, b) == 0, "KGRQ encodes");
  ok (parse_whole (b, CHECKER_REQUEST_HEAD, &rq) == CHECKER_PARSE_OK && rq.kind == CHECKER_REQ_EXE
          && rq.pid == 4242 && rq.len == CHECKER_REQUEST_HEAD,
      "KGRQ parses whole, and every prefix of it waits for more");
  memcpy (b + CHECKER_REQUEST_HEAD, "KGCR", 4);
  ok (checker_request_parse (b, sizeof b, &rq) == CHECKER_PARSE_OK
          && rq.len == CHECKER_REQUEST_HEAD,
      "what follows a request is not part of it");
  ok (checker_request_exe (0, b) == 0 && checker_request_parse (b, 8, &rq) == CHECKER_PARSE_REFUSED
          && rq.kind == CHECKER_REQ_EXE && rq.len == 8,
      "KGRQ of pid 0: refused (answered EINVAL), whole");
  arg = (uint32_t) INT32_MAX + 1;
  memcpy (b + 4, &arg, 4);
  ok (checker_request_parse (b, 8, &rq) == CHECKER_PARSE_REFUSED,
      "KGRQ of a pid over INT32_MAX: refused");
  arg = INT32_MAX;
  memcpy (b + 4, &arg, 4);
  ok (checker_request_parse (b, 8, &rq) == CHECKER_PARSE_OK, "KGRQ of INT32_MAX: asked");
  errno = 0;
  ok (checker_request_exe ((unsigned long) UINT32_MAX + 1, b) < 0 && errno == EINVAL,
      "KGRQ does not encode a pid over 32 bits");

  /* KGNS. */
  for (int k = 0; k < KG_NS_COUNT; k++)
    ok (checker_request_ns (0xffffff, k, b) == 0
            && parse_whole (b, CHECKER_REQUEST_HEAD, &rq) == CHECKER_PARSE_OK
            && rq.kind == CHECKER_REQ_NS && rq.pid == 0xffffff
            && strcmp (rq.ns_name, engine_ns_proc_name (k)) == 0,
        "KGNS of namespace %d (%s) parses", k, engine_ns_proc_name (k));
  ok (checker_request_ns (1, KG_NS_COUNT, b) == 0
          && checker_request_parse (b, 8, &rq) == CHECKER_PARSE_REFUSED
          && rq.kind == CHECKER_REQ_NS,
      "KGNS of an unknown namespace: refused");
  memcpy (b, "KGNS", 4);
  arg = 2u << 24;
  memcpy (b + 4, &arg, 4);
  ok (checker_request_parse (b, 8, &rq) == CHECKER_PARSE_REFUSED, "KGNS of pid 0: refused");
  ok (checker_request_ns (0, 0, b) < 0 && checker_request_ns (0x1000000, 0, b) < 0
          && checker_request_ns (1, -1, b) < 0 && checker_request_ns (1, 256, b) < 0,
      "KGNS does not encode pid 0, a pid over 24 bits or an index over 8");

  /* KGNN. */
  probe_v4 (&p);
  netns_case (0, "/run/netns/agents", &p, NULL, CHECKER_PARSE_OK, "of a path");
  netns_case (4242, NULL, &p, NULL, CHECKER_PARSE_OK, "of a pid");
  netns_case (4242, NULL, &p, v6, CHECKER_PARSE_OK, "with an IPv6 proxy");
  netns_case (4242, NULL, &p, timeout_60000, CHECKER_PARSE_OK, "waiting 60000 ms");
  netns_case (0, "run/netns/agents", &p, NULL, CHECKER_PARSE_REFUSED, "of a relative path");
  netns_case (0, "", &p, NULL, CHECKER_PARSE_REFUSED, "of neither pid nor path");
  netns_case (4242, "/run/netns/agents", &p, NULL, CHECKER_PARSE_REFUSED,
              "of both a pid and a path");
  netns_case ((uint32_t) INT32_MAX + 1, NULL, &p, NULL, CHECKER_PARSE_REFUSED,
              "of a pid over INT32_MAX");
  netns_case (0, NULL, &p, unterminated_path, CHECKER_PARSE_REFUSED, "with an unterminated path");
  netns_case (4242, NULL, &p, unterminated_host, CHECKER_PARSE_REFUSED,
              "with an unterminated host");
  netns_case (4242, NULL, &p, empty_host, CHECKER_PARSE_REFUSED, "with no host");
  netns_case (4242, NULL, &p, host_space, CHECKER_PARSE_REFUSED, "with a space in the host");
  netns_case (4242, NULL, &p, host_crlf, CHECKER_PARSE_REFUSED, "with CR LF in the host");
  netns_case (4242, NULL, &p, host_colon, CHECKER_PARSE_REFUSED, "with a port in the host");
  netns_case (4242, NULL, &p, timeout_0, CHECKER_PARSE_REFUSED, "waiting 0 ms");
  netns_case (4242, NULL, &p, timeout_60001, CHECKER_PARSE_REFUSED, "waiting 60001 ms");
  netns_case (4242, NULL, &p, family_unix, CHECKER_PARSE_REFUSED, "with an AF_UNIX proxy");
  netns_case (4242, NULL, &p, len_v6, CHECKER_PARSE_REFUSED, "with an IPv4 proxy of IPv6 length");

  ok (checker_request_netns (0, "/run/netns/agents", &p, nn) == 0
          && parse_whole (nn, CHECKER_NETNS_REQUEST_LEN, &rq) == CHECKER_PARSE_OK
          && rq.kind == CHECKER_REQ_NETNS && rq.len == CHECKER_NETNS_REQUEST_LEN && rq.pid == 0
          && strcmp (rq.netns.path, "/run/netns/agents") == 0
          && strcmp (rq.netns.probe.host, p.host) == 0,
      "KGNN as the child encodes it parses to what it asked");
  memcpy (nn + 4, &(uint32_t){ sizeof (struct netns_request) - 1 }, 4);
  ok (checker_request_parse (nn, 8, &rq) == CHECKER_PARSE_MALFORMED
          && checker_request_parse (nn, CHECKER_NETNS_REQUEST_LEN, &rq) == CHECKER_PARSE_MALFORMED,
      "KGNN of another length: malformed, as soon as its length is there");
  memcpy (nn + 4, &(uint32_t){ UINT32_MAX }, 4);
  ok (checker_request_parse (nn, 8, &rq) == CHECKER_PARSE_MALFORMED,
      "KGNN of 2^32-1 bytes: malformed");
  {
    char path[NETNS_PATH_MAX + 1];

    memset (path, 'p', sizeof path - 1);
    path[0] = '/';
    path[sizeof path - 1] = '\0';
    ok (checker_request_netns (0, path, &p, nn) < 0 && errno == EINVAL,
        "KGNN does not encode a path over the bound");
    ok (checker_request_netns ((unsigned long) INT32_MAX + 1, NULL, &p, nn) < 0,
        "nor a pid over INT32_MAX");
  }

  /* Not requests: the report, anything else. */
  ok (checker_request_parse ((const unsigned char *) "KGCR\1\0\0\0", 8, &rq) == CHECKER_PARSE_NONE,
      "a report is not a request");
  ok (checker_request_parse ((const unsigned char *) "KGC", 3, &rq) == CHECKER_PARSE_NONE,
      "nor is the start of one");
  ok (checker_request_parse ((const unsigned char *) "KG", 2, &rq) == CHECKER_PARSE_PARTIAL
          && checker_request_parse ((const unsigned char *) "", 0, &rq) == CHECKER_PARSE_PARTIAL,
      "the start of every magic waits for more");
  ok (checker_request_parse ((const unsigned char *) "kgrq\1\0\0\0", 8, &rq) == CHECKER_PARSE_NONE,
      "magics are case-sensitive");
}

/* ---- the seed corpus --------------------------------------------------- */

static int
write_seed (const char *dir, const char *name, unsigned selector, const unsigned char *b,
            size_t len)
{
  char path[4096];
  FILE *f;
  unsigned char sel = (unsigned char) selector;

  /* A seed is a valid encoding (a refusal only where the parent's own
     report makes it one). */
  if (selector == FUZZ_CHECKER_REQUEST)
    {
      struct checker_request rq;

      if (checker_request_parse (b, len, &rq) != CHECKER_PARSE_OK || rq.len != len)
        {
          fprintf (stderr, "test-codec: %s: not a valid request\n", name);
          return -1;
        }
    }
  else if (selector == FUZZ_CHECKER_REPORT)
    {
      struct report r = { 0 };
      cleanup_error kg_error_t err = NULL;
      bool want_fd;
      int rc = checker_decode (b, len, &r, &want_fd, NULL, NULL, &err);

      report_release (&r);
      if (rc < 0)
        {
          fprintf (stderr, "test-codec: %s: %s\n", name, err->msg);
          return -1;
        }
    }
  snprintf (path, sizeof path, "%s/%s", dir, name);
  f = fopen (path, "we");
  if (f == NULL || fwrite (&sel, 1, 1, f) != 1 || (len && fwrite (b, 1, len, f) != len)
      || fclose (f) != 0)
    {
      fprintf (stderr, "test-codec: %s: %s\n", path, strerror (errno));
      return -1;
    }
  printf ("%s: %zu bytes\n", path, len + 1);
  return 0;
}

static int
write_report_seed (const char *dir, const char *name, unsigned selector, const struct report *r,
                   bool with_fd, const char *cache)
{
  cleanup_error kg_error_t err = NULL;
  cleanup_free unsigned char *buf = NULL;
  size_t len;

  if (checker_encode (r, with_fd, cache, cache ? strlen (cache) : 0, &buf, &len, &err) < 0)
    {
      fprintf (stderr, "test-codec: %s: %s\n", name, err->msg);
      return -1;
    }
  return write_seed (dir, name, selector, buf, len);
}

/* What the confined checker sends for `kata-guard check` with CONFIG
   (and BUNDLE: a --bundle check of that spec), on this host. */
static int
real_report (const char *dir, const char *name, const char *config, const char *bundle)
{
  cleanup_error kg_error_t err = NULL;
  struct guard_config cfg;
  struct request req = { .mode = KG_MODE_CHECK,
                         .bundle = bundle,
                         .container_id = bundle ? "kgseed" : NULL };
  struct report rep = { 0 };
  struct preflight pf;
  int rc;

  memset (&cfg, 0, sizeof cfg);
  if (guard_config_load (config, &cfg, &err) < 0)
    {
      fprintf (stderr, "test-codec: %s: %s\n", config, err->msg);
      return -1;
    }
  preflight_init (&pf, &req, &cfg, &rep);
  rc = checker_run (&pf, config, cfg.runtime.deadline_ms, &err);
  if (rc < 0)
    fprintf (stderr, "test-codec: %s: the checker: %s\n", name, err->msg);
  else
    rc = write_report_seed (dir, name, FUZZ_CHECKER_REPORT, &rep, pf.from_kata.runtime_fd >= 0,
                            NULL);
  preflight_release (&pf);
  guard_config_release (&cfg);
  report_release (&rep);
  return rc;
}

static int
write_file (const char *path, const char *text)
{
  test_write_text (path, text);
  return 0;
}

static int
copy_file (const char *from, const char *to)
{
  cleanup_free char *text = NULL;
  size_t n = 0;
  FILE *f = fopen (from, "re");
  int rc;

  if (f == NULL || getdelim (&text, &n, '\0', f) < 0)
    {
      fprintf (stderr, "test-codec: %s: %s\n", from, strerror (errno));
      if (f)
        fclose (f);
      return -1;
    }
  fclose (f);
  rc = write_file (to, text);
  return rc;
}

static int
write_seeds (const char *dir)
{
  const char *src = getenv ("KG_SRCDIR") ? getenv ("KG_SRCDIR") : ".";
  char tmp[] = "/tmp/kg-codec-seeds.XXXXXX";
  char path[4096], conf[4096], bundle[4096], spec[4096 + 16], text[8192];
  struct report r;
  struct netns_probe p;
  struct guard_config cfg;
  cleanup_error kg_error_t err = NULL;
  unsigned char b[CHECKER_NETNS_REQUEST_LEN];
  int rc = 0;

  if (mkdir (dir, 0755) < 0 && errno != EEXIST)
    {
      fprintf (stderr, "test-codec: %s: %s\n", dir, strerror (errno));
      return 1;
    }

  /* Hand-made: every field kind, each flag, the parent's own entries. */
  every_kind (&r);
  r.pod_sandbox = true;
  rc |= write_report_seed (dir, "report-every-kind", FUZZ_CHECKER_REPORT, &r, true, cache_text);
  rc |= write_report_seed (dir, "append-every-kind", FUZZ_CHECKER_APPEND, &r, false, NULL);
  report_release (&r);
  memset (&r, 0, sizeof r);
  rc |= write_report_seed (dir, "report-empty", FUZZ_CHECKER_REPORT, &r, false, NULL);
  r.oom = true;
  report_fail (&r, "config", GUARD_CONFIG_REMEDY,
               "/etc/kata-guard/config.toml:3: [egress] proxy: not an IP:port");
  rc |= write_report_seed (dir, "report-config-oom", FUZZ_CHECKER_REPORT, &r, false, "");
  rc |= write_report_seed (dir, "append-config-twice", FUZZ_CHECKER_APPEND, &r, false, NULL);
  report_release (&r);

  /* Real: the confined checker on this host, as `kata-guard check` runs
     it, with the shipped configuration and with a Kata configuration,
     a proxy and a Docker spec. */
  if (mkdtemp (tmp) == NULL)
    return 1;
  snprintf (conf, sizeof conf, "%s/packaging/config.toml", src);
  rc |= real_report (dir, "report-check-shipped", conf, NULL);
  snprintf (conf, sizeof conf, "%s/config.toml", tmp);
  snprintf (text, sizeof text,
            "[kata]\nconfig = \"%s/tests/fixtures/kata/configuration-fc.toml\"\n"
            "[egress]\nproxy = \"127.0.0.1:9\"\ntimeout_ms = 200\n"
            "[assets]\nextra = [\"/etc/passwd\"]\n",
            src);
  rc |= write_file (conf, text);
  rc |= real_report (dir, "report-check-kata-fc", conf, NULL);
  snprintf (bundle, sizeof bundle, "%s/bundle", tmp);
  mkdir (bundle, 0700);
  snprintf (spec, sizeof spec, "%s/config.json", bundle);
  {
    static const char *const fixtures[] = { "docker-20.10/default", "docker-20.10/privileged",
                                            "containerd-1.6/ctr-mounts-limits" };

    for (size_t i = 0; i < ARRAY_SIZE (fixtures); i++)
      {
        char name[128], *slash;

        snprintf (path, sizeof path, "%s/tests/fixtures/oci/%s.json", src, fixtures[i]);
        rc |= copy_file (path, spec);
        snprintf (name, sizeof name, "report-bundle-%s", fixtures[i]);
        slash = strchr (name, '/');
        *slash = '-';
        rc |= real_report (dir, name, conf, bundle);
      }
  }
  unlink (spec);
  rmdir (bundle);
  unlink (conf);
  rmdir (tmp);

  /* The requests, as the child's policy checks send them. */
  checker_request_exe (1, b);
  rc |= write_seed (dir, "request-exe", FUZZ_CHECKER_REQUEST, b, CHECKER_REQUEST_HEAD);
  for (int k = 0; k < KG_NS_COUNT; k++)
    {
      char name[64];

      checker_request_ns ((unsigned long) getpid (), k, b);
      snprintf (name, sizeof name, "request-ns-%s", engine_ns_proc_name (k));
      rc |= write_seed (dir, name, FUZZ_CHECKER_REQUEST, b, CHECKER_REQUEST_HEAD);
    }
  probe_v4 (&p);
  memset (&cfg, 0, sizeof cfg);
  if (guard_config_defaults (&cfg, &err) == 0
      && egress_probe_host (&cfg, p.host, sizeof p.host) < 0)
    rc = 1;
  guard_config_release (&cfg);
  checker_request_netns (0, "/var/run/docker/netns/1f2e3d4c5b6a", &p, b);
  rc |= write_seed (dir, "request-netns-path", FUZZ_CHECKER_REQUEST, b, CHECKER_NETNS_REQUEST_LEN);
  {
    struct netns_request rq;

    memset (&rq, 0, sizeof rq);
    rq.probe = p;
    v6 (&rq);
    checker_request_netns ((unsigned long) getpid (), NULL, &rq.probe, b);
  }
  rc |= write_seed (dir, "request-netns-pid-v6", FUZZ_CHECKER_REQUEST, b,
                    CHECKER_NETNS_REQUEST_LEN);
  return rc ? 1 : 0;
}

/* What a spec can put in a reason or a file name (an escape byte) is
   carried as text: the report keeps every result. */
static void
test_control_bytes (void)
{
  int rc;
  struct report in = { 0 }, out = { 0 };
  unsigned char *buf = NULL;
  size_t len = 0;
  kg_error_t err = NULL;
  bool want_fd = false;
  char *cache = NULL;
  size_t cache_len = 0;

  report_fail (&in, "policy.mounts", "fix\001it",
               "/etc/\033[31mred: the host's\tconfiguration\nsecond");
  report_pass (&in, "policy.hooks", "0 hooks\177");
  report_add_file (&in, "/opt/kata/odd\nname.toml");
  ok (checker_encode (&in, false, NULL, 0, &buf, &len, &err) == 0, "control bytes: encoded");
  rc = buf != NULL ? checker_decode (buf, len, &out, &want_fd, &cache, &cache_len, &err) : -1;
  ok (rc == 0, "control bytes: the parent takes the report (%s)", err ? err->msg : "ok");
  ok (out.n == 2 && out.n_files == 1, "control bytes: every result and file is there");
  if (out.n == 2 && out.n_files == 1)
    {
      is_str (out.results[0].reason, "/etc/\\x1b[31mred: the host's\tconfiguration\nsecond",
              "control bytes: an escape byte as \\x1b, tab and newline kept");
      is_str (out.results[0].remedy, "fix\\x01it", "control bytes: in a remedy too");
      is_str (out.results[1].reason, "0 hooks\\x7f", "control bytes: DEL as \\x7f");
      is_str (out.files[0], "/opt/kata/odd\\x0aname.toml",
              "control bytes: a newline in a file name");
    }
  else
    for (int i = 0; i < 4; i++)
      ok (false, "control bytes: decoded");
  kg_error_release (&err);
  free (buf);
  free (cache);
  report_release (&in);
  report_release (&out);
}

/* A reason longer than CHECKER_TEXT_MAX is cut where a character or an
   \xHH begins, never inside one, and ends in "..."; a byte that is not
   UTF-8 (a host file's name in Latin-1) is written \xHH: what the parent
   decodes is always UTF-8, so the decision log's line is JSON its
   readers take. */
static void
test_cuts_and_encodings (void)
{
  int rc;
  static char three[CHECKER_TEXT_MAX + 400], escape[CHECKER_TEXT_MAX + 400];
  struct report in = { 0 }, out = { 0 };
  unsigned char *buf = NULL;
  size_t len = 0;
  kg_error_t err = NULL;
  bool want_fd = false;

  /* A check mark (3 bytes) over the cut at CHECKER_TEXT_MAX - 3. */
  memset (three, 'x', CHECKER_TEXT_MAX - 4);
  for (size_t i = CHECKER_TEXT_MAX - 4; i + 3 < sizeof three; i += 3)
    memcpy (three + i, "\xe2\x9c\x93", 3);
  /* An escape byte whose \x1b would straddle the cut. */
  memset (escape, 'x', sizeof escape - 1);
  escape[CHECKER_TEXT_MAX - 5] = '\033';
  report_fail (&in, "policy.mounts", NULL, "%s", three);
  report_fail (&in, "policy.hooks", NULL, "%s", escape);
  report_fail (&in, "assets.kernel", "rename \xff", "/opt/kata/vmlinux-caf\xe9.bin \xc3");
  report_add_file (&in, "/opt/kata/caf\xe9.toml");
  rc = checker_encode (&in, false, NULL, 0, &buf, &len, &err) == 0
               && checker_decode (buf, len, &out, &want_fd, NULL, NULL, &err) == 0
           ? 0
           : -1;
  ok (rc == 0 && out.n == 3, "cuts and encodings: encoded and decoded (%s)", err ? err->msg : "ok");
  if (out.n == 3)
    {
      const char *r0 = out.results[0].reason, *r1 = out.results[1].reason;

      ok (strlen (r0) == CHECKER_TEXT_MAX - 1 && strspn (r0, "x") == CHECKER_TEXT_MAX - 4
              && strcmp (r0 + CHECKER_TEXT_MAX - 4, "...") == 0,
          "a reason is cut before the character the cut would split (%zu bytes)", strlen (r0));
      ok (strlen (r1) == CHECKER_TEXT_MAX - 2 && strspn (r1, "x") == CHECKER_TEXT_MAX - 5
              && strcmp (r1 + CHECKER_TEXT_MAX - 5, "...") == 0,
          "and before the \\xHH the cut would split (%zu bytes)", strlen (r1));
      is_str (out.results[2].reason, "/opt/kata/vmlinux-caf\\xe9.bin \\xc3",
              "a byte that is not UTF-8 is written \\xHH, a lone lead byte at the end too");
      is_str (out.results[2].remedy, "rename \\xff", "in a remedy too");
      is_str (out.files[0], "/opt/kata/caf\\xe9.toml", "and in a file's name");
    }
  else
    for (int i = 0; i < 5; i++)
      ok (false, "cuts and encodings: decoded");
  kg_error_release (&err);
  free (buf);
  report_release (&in);
  report_release (&out);
}

/* Which file was the Kata configuration travels as such, whatever the
   order of the files and whatever the parent's report already held. */
static void
test_kata_file (void)
{
  int rc;
  struct report in = { 0 }, out = { 0 };
  unsigned char *buf = NULL;
  size_t len = 0;
  kg_error_t err = NULL;
  bool want_fd = false;

  report_add_file (&in, "/etc/kata-containers/config.d/10-a.toml");
  report_add_kata_file (&in, "/opt/kata/share/defaults/kata-containers/configuration-fc.toml");
  report_add_file (&in, "/etc/docker/daemon.json");
  report_pass (&in, "kata.config", "loaded");
  report_add_file (&out, "/etc/kata-guard/config.toml");
  rc = checker_encode (&in, false, NULL, 0, &buf, &len, &err) == 0
               && checker_decode (buf, len, &out, &want_fd, NULL, NULL, &err) == 0
           ? 0
           : -1;
  ok (rc == 0, "kata file: encoded and decoded (%s)", err ? err->msg : "ok");
  is_str (report_kata_config (&out) ? report_kata_config (&out) : "(none)",
          "/opt/kata/share/defaults/kata-containers/configuration-fc.toml",
          "kata file: the parent knows which file was the Kata configuration");
  ok (out.n_files == 4 && out.kata_file == 3, "kata file: after the parent's own file");
  free (buf);
  buf = NULL;
  report_release (&out);
  report_release (&in);
  report_add_file (&in, "/etc/kata-guard/config.toml");
  ok (checker_encode (&in, false, NULL, 0, &buf, &len, &err) == 0
          && checker_decode (buf, len, &out, &want_fd, NULL, NULL, &err) == 0
          && report_kata_config (&out) == NULL,
      "kata file: none loaded, none named");
  kg_error_release (&err);
  free (buf);
  report_release (&in);
  report_release (&out);
}

/* The replies, over a real socket pair: what the parent sends the child
   reads, and a reply that does not hold is refused. */
static void
test_replies (void)
{
  struct checker_ns_reply ns = { 42, 4026531840ULL }, got_ns = { 0, 0 };
  char text[16];
  size_t n = 99;
  int32_t e = -1;
  int sv[2];

  if (socketpair (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
    abort ();
  ok (checker_reply_send (sv[0], 0, "/usr/bin/runc", 13, true) == 0
          && checker_reply_read (sv[1], &e, text, sizeof text, &n, true) == 0 && e == 0 && n == 13
          && memcmp (text, "/usr/bin/runc", 13) == 0,
      "a counted reply reads back: errno 0, 13 bytes");
  ok (checker_reply_send (sv[0], ENOENT, NULL, 0, true) == 0
          && checker_reply_read (sv[1], &e, text, sizeof text, &n, true) == 0 && e == ENOENT
          && n == 0,
      "a refusal reads back: its errno, no body");
  ok (checker_reply_send (sv[0], 0, &ns, sizeof ns, false) == 0
          && checker_reply_read (sv[1], &e, &got_ns, sizeof got_ns, NULL, false) == 0
          && got_ns.dev == 42 && got_ns.ino == 4026531840ULL,
      "a fixed reply (a namespace's identity) reads back");
  ok (checker_reply_send (sv[0], 0, "0123456789abcdefXYZ", 19, true) == 0
          && checker_reply_read (sv[1], &e, text, sizeof text, &n, true) < 0 && errno == EIO,
      "a counted reply longer than the reader takes is refused (EIO)");
  close (sv[0]);
  close (sv[1]);
  if (socketpair (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
    abort ();
  ok (kg_send_all (sv[0], &e, sizeof e) == 0 && kg_send_all (sv[0], "abc", 3) == 0
          && close (sv[0]) == 0
          && checker_reply_read (sv[1], &e, &got_ns, sizeof got_ns, NULL, false) < 0
          && errno == EIO,
      "a reply cut short (the parent gone after 3 bytes of 16) is refused (EIO)");
  close (sv[1]);
}

int
main (int argc, char **argv)
{
  if (argc == 3 && strcmp (argv[1], "--seeds") == 0)
    return write_seeds (argv[2]);
  test_round_trip ();
  test_vm_claim ();
  test_refusals ();
  test_validators ();
  test_request_list ();
  test_requests ();
  test_control_bytes ();
  test_cuts_and_encodings ();
  test_kata_file ();
  test_replies ();
  return tap_done ();
}
