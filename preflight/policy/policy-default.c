/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * policy.default_start: what every start on this host meets, whatever its
 * spec.  `kata-guard check` without a bundle (and `validate`, which runs
 * the same checks) judges the host by the least a container can be: the
 * spec an engine writes for `docker run --memory 6m IMAGE` or `ctr run`
 * (no mounts but the engine's own, the engines' 14 default capabilities,
 * their masked and read-only paths, new namespaces, no hooks, no
 * annotations, no CPU limit; a memory limit of Docker's least, 6 MiB,
 * where [policy] requires one; a seccomp profile that denies by default),
 * through every policy rule and policy.capacity's bound on one VM.  A
 * host on which that container would be refused refuses every start: it
 * fails, with the failing rules' reasons and remedies (kata-guard(8),
 * CHECKS).
 *
 * And the family, check_policy: with a bundle, its config.json
 * (policy.spec) through every rule (policy-rules.c); without one, the
 * default container.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "policy.h"

#include "buf.h"
#include "cleanup.h"
#include "error.h"
#include "policy-int.h"

/* Docker's least memory limit (linuxMinMemory, 6 MiB, in moby's
   daemon/daemon_unix.go): no start has a smaller one. */
#define DEFAULT_START_MEMORY (INT64_C (6) * 1024 * 1024)

/* Where the default container's bundle would be: nowhere on this host,
   so that its rootfs is "the bundle's rootfs" and nothing of the host's
   is judged in its place. */
#define DEFAULT_START_BUNDLE "/nonexistent/kata-guard-default-start"

/* The default container's config.json, the memory part (MEMORY) put in
   linux.resources: Docker 20.10's and ctr's defaults (fixtures/oci/),
   less what names one container (its id, its engine's per-container
   files, Docker's network hook). */
static const char default_spec_fmt[]
    = "{\"ociVersion\": \"1.0.2\","
      " \"process\": {\"user\": {\"uid\": 0, \"gid\": 0}, \"args\": [\"/bin/sh\"], \"cwd\": \"/\","
      "  \"env\": [\"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin\"],"
      "  \"capabilities\": {\"bounding\": %s, \"effective\": %s, \"permitted\": %s}},"
      " \"root\": {\"path\": \"rootfs\"},"
      " \"hostname\": \"default\","
      " \"mounts\": ["
      "  {\"destination\": \"/proc\", \"type\": \"proc\", \"source\": \"proc\","
      "   \"options\": [\"nosuid\", \"noexec\", \"nodev\"]},"
      "  {\"destination\": \"/dev\", \"type\": \"tmpfs\", \"source\": \"tmpfs\","
      "   \"options\": [\"nosuid\", \"strictatime\", \"mode=755\", \"size=65536k\"]},"
      "  {\"destination\": \"/dev/pts\", \"type\": \"devpts\", \"source\": \"devpts\","
      "   \"options\": [\"nosuid\", \"noexec\", \"newinstance\", \"ptmxmode=0666\", \"mode=0620\","
      "   \"gid=5\"]},"
      "  {\"destination\": \"/sys\", \"type\": \"sysfs\", \"source\": \"sysfs\","
      "   \"options\": [\"nosuid\", \"noexec\", \"nodev\", \"ro\"]},"
      "  {\"destination\": \"/sys/fs/cgroup\", \"type\": \"cgroup\", \"source\": \"cgroup\","
      "   \"options\": [\"ro\", \"nosuid\", \"noexec\", \"nodev\"]},"
      "  {\"destination\": \"/dev/mqueue\", \"type\": \"mqueue\", \"source\": \"mqueue\","
      "   \"options\": [\"nosuid\", \"noexec\", \"nodev\"]},"
      "  {\"destination\": \"/dev/shm\", \"type\": \"tmpfs\", \"source\": \"shm\","
      "   \"options\": [\"nosuid\", \"noexec\", \"nodev\", \"mode=1777\", \"size=67108864\"]}],"
      " \"linux\": {"
      "  \"resources\": {\"devices\": [{\"allow\": false, \"access\": \"rwm\"}]%s},"
      "  \"namespaces\": [{\"type\": \"mount\"}, {\"type\": \"network\"}, {\"type\": \"uts\"},"
      "   {\"type\": \"pid\"}, {\"type\": \"ipc\"}],"
      "  \"seccomp\": {\"defaultAction\": \"SCMP_ACT_ERRNO\", \"syscalls\": [{\"names\":"
      "   [\"read\", \"write\", \"exit_group\"], \"action\": \"SCMP_ACT_ALLOW\"}]},"
      "  \"maskedPaths\": [\"/proc/asound\", \"/proc/acpi\", \"/proc/kcore\", \"/proc/keys\","
      "   \"/proc/latency_stats\", \"/proc/timer_list\", \"/proc/timer_stats\","
      "   \"/proc/sched_debug\", \"/proc/scsi\", \"/sys/firmware\"],"
      "  \"readonlyPaths\": [\"/proc/bus\", \"/proc/fs\", \"/proc/irq\", \"/proc/sys\","
      "   \"/proc/sysrq-trigger\"]}}";

/* The engines' default capabilities (Docker's and containerd's 14). */
static const char default_caps[]
    = "[\"CAP_CHOWN\", \"CAP_DAC_OVERRIDE\", \"CAP_FSETID\", \"CAP_FOWNER\", \"CAP_MKNOD\","
      " \"CAP_NET_RAW\", \"CAP_SETGID\", \"CAP_SETUID\", \"CAP_SETFCAP\", \"CAP_SETPCAP\","
      " \"CAP_NET_BIND_SERVICE\", \"CAP_SYS_CHROOT\", \"CAP_KILL\", \"CAP_AUDIT_WRITE\"]";

/* Whether result R of the default container refuses a start: a failure
   that [policy] mode = "audit" does not let through. */
static bool
refuses (const struct guard_config *cfg, const struct check_result *r)
{
  if (r->verdict != VERDICT_FAIL)
    return false;
  return cfg->policy.mode == NULL || strcmp (cfg->policy.mode, "audit") != 0
         || r->reach != REACH_VM;
}

/* policy.capacity's part: one VM at the most it can grow to must fit the
   memory all guarded VMs may commit, or no start ever fits. */
static void
capacity_of_one (const struct guard_config *cfg, const struct vm_claim *vm, struct kg_buf *why,
                 struct kg_buf *remedy)
{
  cleanup_error kg_error_t err = NULL;
  int64_t max;
  char from[160];

  if (vm->role == VM_NONE)
    return;
  if (policy_committed_bound (cfg, &max, from, sizeof from, &err) < 0)
    {
      sb_printf (why, "%spolicy.capacity: %s", why->len ? "; " : "", err->msg);
      sb_printf (remedy, "%sfix [policy] max_committed_memory_mib", remedy->len ? "; " : "");
      return;
    }
  if (vm->mem_mib <= max)
    return;
  sb_printf (why,
             "%spolicy.capacity: one VM alone can grow to %" PRId64 " MiB, more than %s (%" PRId64
             " MiB) lets all guarded VMs commit",
             why->len ? "; " : "", vm->mem_mib, from, max);
  sb_printf (remedy,
             "%sbound how far Kata grows a VM (default_maxmemory) to at most %" PRId64
             " MiB, or raise [policy] max_committed_memory_mib",
             remedy->len ? "; " : "", max);
}

static void
default_start (struct preflight *pf)
{
  cleanup_report struct report scratch = { 0 };
  cleanup_error kg_error_t err = NULL;
  cleanup_free char *text = NULL;
  cleanup_kg_buf struct kg_buf why = { 0 };
  cleanup_kg_buf struct kg_buf remedy = { 0 };
  struct policy_ctx c = {
    .pf = pf, .cfg = pf->cfg, .rep = &scratch, .bundle = DEFAULT_START_BUNDLE
  };
  char memory[96] = "";
  size_t n = 0;

  /* Without the configuration Kata would load, the kata family fails the
     host already, and no VM can be sized. */
  if (pf->from_kata.config == NULL)
    {
      report_skip (pf->rep, "policy.default_start",
                   "not run: no Kata configuration with one [hypervisor.*] table");
      return;
    }
  if (pf->cfg->policy.require_memory_limit)
    snprintf (memory, sizeof memory, ", \"memory\": {\"limit\": %" PRId64 "}",
              DEFAULT_START_MEMORY);
  if (asprintf (&text, default_spec_fmt, default_caps, default_caps, default_caps, memory) < 0)
    text = NULL;
  c.spec = text ? policy_spec_parse ("the default container", text, strlen (text), &err) : NULL;
  if (c.spec == NULL)
    {
      report_fail (pf->rep, "policy.default_start", "report a bug in kata-guard",
                   "cannot build the default container: %s", err ? err->msg : "out of memory");
      return;
    }
  policy_rules_run (&c);
  jv_free (c.spec);
  for (size_t i = 0; i < scratch.n; i++)
    {
      const struct check_result *r = &scratch.results[i];

      if (! refuses (pf->cfg, r))
        continue;
      n++;
      sb_printf (&why, "%s%s: %s", why.len ? "; " : "", r->id, r->reason);
      if (r->remedy != NULL)
        sb_printf (&remedy, "%s%s", remedy.len ? "; " : "", r->remedy);
    }
  if (n == 0)
    capacity_of_one (pf->cfg, &scratch.vm, &why, &remedy);
  if (scratch.oom || why.failed || remedy.failed)
    report_fail (pf->rep, "policy.default_start", "free memory",
                 "cannot judge the default container: out of memory");
  else if (why.len > 0)
    report_fail (pf->rep, "policy.default_start", sb_str (&remedy),
                 "every start would be refused: a default container (%s) fails %s",
                 memory[0] ? "a memory limit of 6 MiB, the engines' defaults"
                           : "the engines' defaults",
                 sb_str (&why));
  else
    report_pass (pf->rep, "policy.default_start",
                 "a default container (%s) passes every policy rule and fits policy.capacity",
                 memory[0] ? "a memory limit of 6 MiB, the engines' defaults"
                           : "the engines' defaults");
}

/* ---- the family ----------------------------------------------------- */

/* The bundle's config.json into C (C->bundle, C->spec), or a failed
   policy.spec and NULL. */
static struct jv *
spec_load (struct preflight *pf, struct policy_ctx *c, char **bundle)
{
  cleanup_error kg_error_t err = NULL;

  if (pf->req->bundle[0] != '/')
    {
      report_fail (pf->rep, "policy.spec", "pass an absolute bundle directory",
                   "bundle %s is not an absolute path", pf->req->bundle);
      return NULL;
    }
  if (policy_path_resolve ("/", pf->req->bundle, false, bundle, &err) < 0)
    {
      report_fail (pf->rep, "policy.spec", "pass an absolute bundle directory", "%s", err->msg);
      return NULL;
    }
  c->bundle = *bundle;
  c->spec = policy_spec_load (*bundle, &err);
  if (c->spec == NULL)
    report_fail (pf->rep, "policy.spec",
                 "the engine wrote a config.json kata-guard will not read; recreate the "
                 "container, or fix the spec",
                 "%s", err->msg);
  return c->spec;
}

void
check_policy (struct preflight *pf)
{
  struct policy_ctx c = { .pf = pf, .cfg = pf->cfg, .rep = pf->rep };
  cleanup_free char *bundle = NULL;

  /* Per container; without one, `kata-guard check` judges the host by
     the default container every start on it would have to pass. */
  if (pf->req->bundle == NULL)
    {
      if (pf->req->mode == KG_MODE_CHECK)
        default_start (pf);
      return;
    }
  if (spec_load (pf, &c, &bundle) == NULL)
    {
#define POLICY_RULE_SKIP(name, rule_id, rule_reach)                                                \
  report_skip (pf->rep, rule_id, "not run: policy.spec failed");
      POLICY_RULES (POLICY_RULE_SKIP)
#undef POLICY_RULE_SKIP
      return;
    }
  report_pass (pf->rep, "policy.spec", "%s/config.json: OCI %s", bundle,
               jv_string (jv_get (c.spec, "ociVersion")));
  policy_rules_run (&c);
  pf->from_policy.engine = c.who.engine;
  /* Freed by preflight_release, which the confined checker never calls:
     its process ends with the report, and the tree with it. */
  jv_free (pf->from_policy.spec);
  pf->from_policy.spec = c.spec;
}
