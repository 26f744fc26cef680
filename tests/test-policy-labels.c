/* SPDX-License-Identifier: GPL-2.0-or-later */
/* policy.labels: process.selinuxLabel judged by an allowlist, as a rule
   that reaches the host (Kata's sandbox.go newSandbox and qemu.go StartVM
   make it the label of QEMU and virtiofsd there), so that audit mode
   refuses it too; in shim v2 and OCI mode.
   (tests/test-policy.h: what every part of policy.*'s tests shares.) */
#include "test-policy.h"

#include "decision.h"

/* The row: a spec_of () spec whose process holds PROCESS_MORE (a key and
   its value, or NULL) judged with POLICY; FAILS exactly, NEEDLE in policy.labels'
   reason; a refusal is one in audit mode as in enforce mode. */
static void
labels_run (const char *name, const char *process_more, const char *policy, const char *fails,
            const char *needle)
{
  cleanup_free char *base = spec_of (NULL, NULL, NULL, NULL, NULL);
  cleanup_free char *spec = NULL;
  const char *at = strstr (base, "\"process\": {") + strlen ("\"process\": {");
  struct report rep;

  if (asprintf (&spec, "%.*s%s%s%s", (int) (at - base), base, process_more ? process_more : "",
                process_more ? ", " : "", at)
      < 0)
    abort ();
  run_policy (spec, ID_A, policy, &kata_fc, &rep, NULL);
  expect (&rep, name, fails, needle != NULL ? "policy.labels" : NULL, needle);
  if (*fails != '\0')
    ok (! decision_audit_allows ("audit", &rep) && ! decision_audit_allows ("enforce", &rep),
        "%s: refused in audit mode too", name);
  report_release (&rep);
}

static void
label_row (const char *name, const char *label, const char *policy, const char *fails,
           const char *needle)
{
  cleanup_free char *more = NULL;

  if (asprintf (&more, "\"selinuxLabel\": \"%s\"", label) < 0)
    abort ();
  labels_run (name, more, policy, fails, needle);
}

/* A type of the host's, or an engine's own unconfined one: refused, named. */
static void
type_refused (const char *type)
{
  cleanup_free char *label = NULL, *name = NULL, *needle = NULL;

  if (asprintf (&label, "system_u:system_r:%s:s0:c1,c2", type) < 0
      || asprintf (&name, "SELinux type %s", type) < 0
      || asprintf (&needle,
                   "process.selinuxLabel \"%s\": type \"%s\" is not one of [policy] "
                   "selinux_types (Kata runs the hypervisor and virtiofsd on the host",
                   label, type)
             < 0)
    abort ();
  label_row (name, label, NULL, "policy.labels", needle);
}

static void
test_labels (void)
{
  static const char *const host_types[] = {
    "spc_t",    "unconfined_t",  "unconfined_service_t", "initrc_t", "kernel_t",
    "init_t",   "virtd_t",       "container_runtime_t",  "svirt_t",  "svirt_tcg_t",
    "sysadm_t", "container_t.x",
  };

  for (size_t i = 0; i < ARRAY_SIZE (host_types); i++)
    type_refused (host_types[i]);
  /* What the engines assign: passes. */
  labels_run ("no label", NULL, NULL, "", "no process.selinuxLabel: the engine's default");
  label_row ("an empty label (the engine's default)", "", NULL, "",
             "no process.selinuxLabel: the engine's default");
  label_row ("container_t with two categories", "system_u:system_r:container_t:s0:c123,c456", NULL,
             "", "a type of [policy] selinux_types");
  label_row ("container_kvm_t (Kata's under podman and CRI-O)",
             "system_u:system_r:container_kvm_t:s0:c0,c1023", NULL, "",
             "a type of [policy] selinux_types");
  label_row ("container_init_t at s0", "system_u:system_r:container_init_t:s0", NULL, "",
             "a type of [policy] selinux_types");
  label_row ("container_engine_t with one category", "system_u:system_r:container_engine_t:s0:c7",
             NULL, "", "a type of [policy] selinux_types");
  label_row ("svirt_lxc_net_t (container_t's old name)",
             "system_u:system_r:svirt_lxc_net_t:s0:c1,c2", NULL, "",
             "a type of [policy] selinux_types");
  /* User, role, level: the engines' only. */
  label_row ("user unconfined_u", "unconfined_u:system_r:container_t:s0:c1,c2", NULL,
             "policy.labels", "user \"unconfined_u\" is not system_u");
  label_row ("role unconfined_r", "system_u:unconfined_r:container_t:s0:c1,c2", NULL,
             "policy.labels", "role \"unconfined_r\" is not system_r");
  label_row ("role object_r", "system_u:object_r:container_t:s0", NULL, "policy.labels",
             "role \"object_r\" is not system_r");
  {
    static const char *const levels[] = {
      "s0-s0:c0.c1023", "s0:c0.c1023", "s0:c1,c1",    "s0:c2,c1", "s0:c1024",
      "s0:c01,c2",      "s1:c1,c2",    "s0:c1,c2,c3", "s0:",      "s0:c1,",
      "s0:c1,c2 ",      "s00",         "s0:c-1",      "S0",       "",
    };

    for (size_t i = 0; i < ARRAY_SIZE (levels); i++)
      {
        cleanup_free char *label = NULL, *name = NULL, *needle = NULL;

        if (asprintf (&label, "system_u:system_r:container_t:%s", levels[i]) < 0
            || asprintf (&name, "level \"%s\"", levels[i]) < 0
            || asprintf (&needle, "level \"%s\" is not s0, s0:cN or s0:cN,cM", levels[i]) < 0)
          abort ();
        label_row (name, label, NULL, "policy.labels", needle);
      }
  }
  /* Any other shape. */
  label_row ("a type alone", "container_t", NULL, "policy.labels", "not user:role:type:level");
  label_row ("no level", "system_u:system_r:container_t", NULL, "policy.labels",
             "not user:role:type:level");
  label_row ("colons only", ":::", NULL, "policy.labels", "user \"\" is not system_u");
  {
    char label[400];

    memset (label, 'a', sizeof label - 1);
    label[sizeof label - 1] = '\0';
    label_row ("a label of 399 bytes", label, NULL, "policy.labels", "longer than 255 bytes");
  }
  labels_run ("a label that is a number", "\"selinuxLabel\": 42", NULL, "policy.labels",
              "process.selinuxLabel is");
  /* Go's encoding/json (Kata's Go runtime) matches keys without case:
     policy.spec refuses the spec before any rule reads it. */
  labels_run ("the key in another case", "\"SELinuxLabel\": \"system_u:system_r:spc_t:s0\"", NULL,
              "policy.spec", NULL);
  /* The allowlist is the operator's. */
  label_row ("spc_t listed by the operator", "system_u:system_r:spc_t:s0",
             "selinux_types = [\"spc_t\"]", "", "a type of [policy] selinux_types");
  label_row ("container_kvm_t when only container_t is listed",
             "system_u:system_r:container_kvm_t:s0:c1,c2", "selinux_types = [\"container_t\"]",
             "policy.labels", "type \"container_kvm_t\" is not one of [policy] selinux_types");
  label_row ("no type listed", "system_u:system_r:container_t:s0:c1,c2", "selinux_types = []",
             "policy.labels", "type \"container_t\" is not one of");
  /* privileged = true lets the guest's confinement go, not the host's label. */
  label_row ("spc_t with [policy] privileged = true", "system_u:system_r:spc_t:s0",
             "privileged = true", "policy.labels", "type \"spc_t\" is not one of");
}

int
main (void)
{
  static const enum kg_mode modes[] = { KG_MODE_SHIM, KG_MODE_OCI };

  policy_test_start ();
  /* Each rule's results carry its reach, set where the rules run. */
  {
    cleanup_free char *spec = spec_of (NULL, NULL, NULL, NULL, NULL);
    struct report rep = { 0 };
    const struct check_result *labels, *conf;

    run_policy (spec, ID_A, NULL, &kata_fc, &rep, NULL);
    labels = report_find (&rep, "policy.labels");
    conf = report_find (&rep, "policy.confinement");
    ok (labels != NULL && labels->reach == REACH_HOST,
        "policy.labels reaches the host (audit mode refuses)");
    ok (conf != NULL && conf->reach == REACH_VM,
        "policy.confinement reaches only the VM (audit mode may let it through)");
    ok (report_find (&rep, "policy.spec") != NULL
            && report_find (&rep, "policy.spec")->reach == REACH_HOST,
        "policy.spec, no rule's, reaches the host");
    /* Only these four stay inside the VM (what audit mode may let
       through); every other result of the family reaches the host. */
    for (size_t i = 0; i < rep.n; i++)
      {
        static const char *const vm[] = { "policy.capabilities", "policy.seccomp",
                                          "policy.memory_limit", "policy.confinement" };
        bool in_vm = false;

        for (size_t j = 0; j < ARRAY_SIZE (vm); j++)
          in_vm = in_vm || strcmp (rep.results[i].id, vm[j]) == 0;
        ok (rep.results[i].reach == (in_vm ? REACH_VM : REACH_HOST), "%s reaches %s",
            rep.results[i].id, in_vm ? "only the VM" : "the host");
      }
    report_release (&rep);
  }
  for (size_t m = 0; m < ARRAY_SIZE (modes); m++)
    {
      run_mode = modes[m];
      run_ns = modes[m] == KG_MODE_SHIM ? "default" : NULL;
      printf ("# %s mode\n", modes[m] == KG_MODE_SHIM ? "shim v2" : "OCI");
      test_labels ();
    }
  run_mode = KG_MODE_CHECK;
  run_ns = NULL;
  return policy_test_end ();
}
