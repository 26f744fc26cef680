/* SPDX-License-Identifier: GPL-2.0-or-later */
/* policy.hooks and policy.annotations, for each runtime.
   (tests/test-policy.h: what every part of policy.*'s tests shares.) */
#include "test-policy.h"

static void
hooks_row (const char *name, const char *hooks, const char *policy, const char *fails,
           const char *needle)
{
  cleanup_free char *spec = spec_of (NULL, NULL, NULL, NULL, hooks);

  run_expect (spec, ID_A, policy, &kata_fc, name, fails, "policy.hooks", needle);
}

static void
test_hooks (void)
{
  cleanup_free char *self_hook = NULL, *self_policy = NULL, *want = NULL;
  char exe[PATH_MAX + 1];
  ssize_t n = readlink ("/proc/self/exe", exe, PATH_MAX);

  if (n < 0)
    abort ();
  exe[n] = '\0';
  if (asprintf (&self_hook, "\"hooks\": {\"prestart\": [{\"path\": \"/proc/%d/exe\"}]}",
                (int) getpid ())
          < 0
      || asprintf (&self_policy, "hooks = [\"%s\"]", exe) < 0
      || asprintf (&want, "/proc/%d/exe -> %s is not in [policy] hooks", (int) getpid (), exe) < 0)
    abort ();
  hooks_row ("dockerd as Docker's libnetwork-setkey hook",
             "\"hooks\": {\"prestart\": [{\"path\": \"/usr/sbin/dockerd\", \"args\": "
             "[\"libnetwork-setkey\", \"-exec-root=/var/run/docker\", \"" ID_A "\", "
             "\"a34fcd8d16bd\"]}]}",
             NULL, "", "1 hook");
  hooks_row ("dockerd's setkey hook without -exec-root (Docker before 18.09)",
             "\"hooks\": {\"prestart\": [{\"path\": \"/usr/bin/dockerd\", \"args\": "
             "[\"libnetwork-setkey\", \"" ID_A "\", \"a34fcd8d16bd\"]}]}",
             NULL, "", "1 hook");
  hooks_row ("dockerd started as a daemon by a hook",
             "\"hooks\": {\"prestart\": [{\"path\": \"/usr/sbin/dockerd\", \"args\": "
             "[\"dockerd\", \"-H\", \"unix:///tmp/evil.sock\", \"--data-root\", \"/tmp/d\"]}]}",
             NULL, "policy.hooks",
             "prestart hook /usr/sbin/dockerd: args are not dockerd's "
             "libnetwork-setkey form");
  hooks_row ("dockerd with daemon flags in setkey's shape",
             "\"hooks\": {\"prestart\": [{\"path\": \"/usr/sbin/dockerd\", \"args\": "
             "[\"dockerd\", \"-H\", \"unix:///tmp/evil.sock\", \"--debug\"]}]}",
             NULL, "policy.hooks", "args[0] is not libnetwork-setkey");
  hooks_row ("dockerd without args",
             "\"hooks\": {\"prestart\": [{\"path\": \"/usr/sbin/dockerd\"}]}", NULL, "policy.hooks",
             "dockerd runs as a daemon without the args");
  hooks_row ("dockerd's setkey for another container",
             "\"hooks\": {\"prestart\": [{\"path\": \"/usr/sbin/dockerd\", \"args\": "
             "[\"libnetwork-setkey\", \"-exec-root=/var/run/docker\", \"" ID_B "\", "
             "\"a34fcd8d16bd\"]}]}",
             NULL, "policy.hooks", "libnetwork-setkey names another container");
  hooks_row ("an allowed hook with LD_PRELOAD",
             "\"hooks\": {\"prestart\": [{\"path\": \"/usr/sbin/dockerd\", \"args\": "
             "[\"libnetwork-setkey\", \"" ID_A "\", \"a34fcd8d16bd\"], "
             "\"env\": [\"LD_PRELOAD=/tmp/x.so\"]}]}",
             NULL, "policy.hooks", "prestart hook /usr/sbin/dockerd sets an environment");
  hooks_row ("/proc/self/exe", "\"hooks\": {\"prestart\": [{\"path\": \"/proc/self/exe\"}]}", NULL,
             "policy.hooks", "prestart hook /proc/self/exe: names whichever program");
  hooks_row ("/proc/PID/exe of another program", self_hook, NULL, "policy.hooks", want);
  hooks_row ("/proc/PID/exe of an allowed program", self_hook, self_policy, "", "1 hook");
  hooks_row ("a shell", "\"hooks\": {\"poststop\": [{\"path\": \"/bin/sh\"}]}", NULL,
             "policy.hooks", "poststop hook /bin/sh");
  hooks_row ("createRuntime too",
             "\"hooks\": {\"createRuntime\": [{\"path\": \"/usr/bin/dockerd\", \"args\": "
             "[\"libnetwork-setkey\", \"" ID_A "\", \"a34fcd8d16bd\"]}, {\"path\": "
             "\"/usr/local/bin/x\"}]}",
             NULL, "policy.hooks", "createRuntime hook /usr/local/bin/x is not in");
  hooks_row ("a hook without a path", "\"hooks\": {\"prestart\": [{\"args\": [\"x\"]}]}", NULL,
             "policy.hooks", "prestart hook 0 has no program path");
  hooks_row ("a relative hook", "\"hooks\": {\"prestart\": [{\"path\": \"dockerd\"}]}", NULL,
             "policy.hooks", "dockerd: not an absolute path");
}

static unsigned exe_asked;

static ssize_t
count_proc_exe (unsigned long pid, char *buf, size_t size)
{
  char path[64];

  exe_asked++;
  snprintf (path, sizeof path, "/proc/%lu/exe", pid);
  return readlink (path, buf, size);
}

/* policy.hooks asks the parent exactly as often as it declares
   (policy_hooks_asks, request-list.h): the parent's budget is that
   count, on its own parse of the same spec. */
static void
test_hooks_asks (void)
{
  static const char *const hooks[] = {
    "\"hooks\": {\"prestart\": [{\"path\": \"/proc/PID/exe\"}]}",
    "\"hooks\": {\"prestart\": [{\"path\": \"/proc/PID/exe\"}, {\"path\": \"/proc/PID/exe\"}], "
    "\"poststop\": [{\"path\": \"/proc/PID/exe\"}]}",
    "\"hooks\": {\"prestart\": [{\"path\": \"/proc/self/exe\"}, {\"path\": \"/proc/PID/cwd\"}, "
    "{\"path\": \"/proc/0/exe\"}, {\"path\": \"/proc/4294967296/exe\"}, {\"path\": \"/bin/sh\"}]}",
    "\"hooks\": {\"prestart\": [{\"path\": \"/proc/0PID/exe\"}, {\"path\": \"/proc/PID/exe/\"}], "
    "\"createRuntime\": null, \"poststart\": {\"path\": \"/proc/PID/exe\"}}",
    "\"hooks\": {\"prestart\": [{\"path\": \"/proc/PID/exe\", \"env\": [\"A=1\"]}, "
    "{\"args\": [\"/proc/PID/exe\"]}, \"/proc/PID/exe\"]}",
  };

  for (size_t i = 0; i < ARRAY_SIZE (hooks); i++)
    {
      cleanup_free char *spec = spec_of (NULL, NULL, NULL, NULL, hooks[i]);
      size_t declared;
      bool same;

      exe_asked = 0;
      run_proc_exe = count_proc_exe;
      same = asks_as_declared (spec, policy_hooks_asks, &exe_asked, "policy.hooks", &declared);
      run_proc_exe = NULL;
      ok (same, "hooks %zu: policy.hooks asks %u times, declares %zu", i, exe_asked, declared);
    }
}

/* A spec whose annotations are ANN, judged by policy.annotations. */
static void
annotations_row (const char *ann, const char *policy, struct kata_config *k, const char *name,
                 const char *fails, const char *needle)
{
  cleanup_free char *top = NULL;
  cleanup_free char *spec = NULL;

  if (asprintf (&top, "\"annotations\": {%s}", ann) < 0)
    abort ();
  spec = spec_of (NULL, NULL, NULL, NULL, top);
  run_expect (spec, ID_A, policy, k, name, fails, "policy.annotations", needle);
}

static void
test_annotations (void)
{
  static const struct
  {
    const char *name, *ann, *policy, *fails, *needle;
  } rows[] = {
    { "config_path", "\"io.katacontainers.config_path\": \"/tmp/evil.toml\"", NULL,
      "policy.annotations", "Kata annotations not allowed: io.katacontainers.config_path" },
    { "disable_guest_seccomp, though every Kata annotation is allowed",
      "\"io.katacontainers.config.runtime.disable_guest_seccomp\": \"true\"",
      "annotations = [\"io\\\\.katacontainers\\\\..*\"]", "policy.annotations",
      "io.katacontainers.config.runtime.disable_guest_seccomp (no seccomp filter in the guest; "
      "Kata applies it without enable_annotations)" },
    { "the agent's policy, though allowed",
      "\"io.katacontainers.config.agent.policy\": \"cGFja2FnZSBhZ2VudF9wb2xpY3k=\"",
      "annotations = [\"io\\\\.katacontainers\\\\..*\"]", "policy.annotations",
      "io.katacontainers.config.agent.policy (replaces the agent's policy" },
    { "the kernel_params annotation with the debug console",
      "\"io.katacontainers.config.hypervisor.kernel_params\": \"quiet agent.debug_console\"",
      "annotations = [\"io\\\\.katacontainers\\\\.config\\\\.hypervisor\\\\.kernel_params\"]",
      "policy.annotations",
      "io.katacontainers.config.hypervisor.kernel_params: agent.debug_console" },
    { "the kernel_params annotation with U+00A0",
      "\"io.katacontainers.config.hypervisor.kernel_params\": \"quiet\\u00a0init=/bin/sh\"",
      "annotations = [\"io\\\\.katacontainers\\\\.config\\\\.hypervisor\\\\.kernel_params\"]",
      "policy.annotations", "a byte past ASCII at byte 5" },
    { "the kernel_params annotation, plain words",
      "\"io.katacontainers.config.hypervisor.kernel_params\": \"quiet panic=1\"",
      "annotations = [\"io\\\\.katacontainers\\\\.config\\\\.hypervisor\\\\.kernel_params\"]", "",
      "1 Kata annotation" },
    { "kernel modules and disable_new_netns, though allowed",
      "\"io.katacontainers.config.agent.kernel_modules\": \"e1000\", "
      "\"io.katacontainers.config.runtime.disable_new_netns\": \"true\"",
      "annotations = [\"io\\\\.katacontainers\\\\..*\"]", "policy.annotations",
      "loads kernel modules in the guest" },
    { "upper case prefix", "\"IO.KATACONTAINERS.config_path\": \"/x\"", NULL, "policy.annotations",
      "IO.KATACONTAINERS.config_path" },
    { "other annotations", "\"com.example.x\": \"1\", \"org.opencontainers.image.os\": \"linux\"",
      NULL, "", "0 Kata annotations" },
    { "allowed by regex", "\"io.katacontainers.config.hypervisor.default_memory\": \"4096\"",
      "annotations = [\"io\\\\.katacontainers\\\\.config\\\\.hypervisor\\\\.default_(memory|vcpus)\"]",
      "", "1 Kata annotation" },
    { "a regex matches the whole name",
      "\"io.katacontainers.config.hypervisor.default_memory_x\": \"4096\"",
      "annotations = [\"io\\\\.katacontainers\\\\.config\\\\.hypervisor\\\\.default_memory\"]",
      "policy.annotations", "default_memory_x" },
  };

  for (size_t i = 0; i < ARRAY_SIZE (rows); i++)
    annotations_row (rows[i].ann, rows[i].policy, &kata_fc, rows[i].name, rows[i].fails,
                     rows[i].needle);
}

/* The always-refused annotations of the runtime that reads the
   configuration (either version of it; both runtimes' without one). */
static void
test_annotations_runtimes (void)
{
  static const char all[] = "annotations = [\"io\\\\.katacontainers\\\\..*\"]";
  struct kata_config go4 = { 0 }, rs4 = { 0 };
  const struct
  {
    const char *name, *ann, *policy;
    struct kata_config *k;
    const char *fails, *needle;
  } rows[] = {
    { "Go: config_path, though allowed", "\"io.katacontainers.config_path\": \"/tmp/evil.toml\"",
      all, &kata_fc, "policy.annotations",
      "io.katacontainers.config_path (Kata 3.x loads the configuration it names in place of the "
      "one checked; 4.x ignores it; Kata applies it without enable_annotations)" },
    { "runtime-rs: config_path, though allowed",
      "\"io.katacontainers.config_path\": \"/tmp/evil.toml\"", all, &rs4, "policy.annotations",
      "io.katacontainers.config_path (Kata 3.x loads the configuration" },
    { "Go 4.1: config_path, though allowed",
      "\"io.katacontainers.config_path\": \"/tmp/evil.toml\"", all, &go4, "policy.annotations",
      "io.katacontainers.config_path (Kata 3.x loads the configuration" },
    { "runtime-rs: hypervisor_name, though allowed",
      "\"io.katacontainers.config.runtime.hypervisor_name\": \"qemu\"", all, &rs4,
      "policy.annotations",
      "io.katacontainers.config.runtime.hypervisor_name (picks the [hypervisor.*] table" },
    { "runtime-rs: agent_name, though allowed",
      "\"io.katacontainers.config.runtime.agent_name\": \"kata\"", all, &rs4, "policy.annotations",
      "picks the [agent.*] table" },
    { "runtime-rs: runtime.name linux-container, though allowed",
      "\"io.katacontainers.config.runtime.name\": \"linux-container\"", all, &rs4,
      "policy.annotations", "linux-container runs no VM" },
    { "runtime-rs: shared_mounts, though allowed",
      "\"io.katacontainers.config.runtime.shared_mounts\": \"[]\"", all, &rs4, "policy.annotations",
      "shares mounts between the pod's containers" },
    { "runtime-rs 3.x: sandbox_bind_mounts, though allowed",
      "\"io.katacontainers.config.runtime.sandbox_bind_mounts\": \"/etc\"", all, &rs4,
      "policy.annotations", "host bind mounts chosen by the workload (runtime-rs 3.x)" },
    { "runtime-rs: disable_guest_seccomp, though allowed",
      "\"io.katacontainers.config.runtime.disable_guest_seccomp\": \"true\"", all, &rs4,
      "policy.annotations", "no seccomp filter in the guest" },
    { "runtime-rs: create_container_timeout, not allowed: the reason",
      "\"io.katacontainers.config.runtime.create_container_timeout\": \"60\"", NULL, &rs4,
      "policy.annotations",
      "create_container_timeout (sets the agent's request timeout; Kata applies it without "
      "enable_annotations)" },
    { "runtime-rs: create_container_timeout, allowed",
      "\"io.katacontainers.config.runtime.create_container_timeout\": \"60\"",
      "annotations = [\"io\\\\.katacontainers\\\\.config\\\\.runtime\\\\.create_container_timeout\"]",
      &rs4, "", "1 Kata annotation, all allowed" },
    { "runtime-rs: enable_pprof, not allowed: the reason",
      "\"io.katacontainers.config.runtime.enable_pprof\": \"true\"", NULL, &rs4,
      "policy.annotations", "enable_pprof (turns on the shim's pprof endpoint" },
    { "runtime-rs ignores the agent's policy annotation: allowed",
      "\"io.katacontainers.config.agent.policy\": \"eA==\"", all, &rs4, "",
      "1 Kata annotation, all allowed" },
    { "Go 4.1: the agent's policy, though allowed",
      "\"io.katacontainers.config.agent.policy\": \"eA==\"", all, &go4, "policy.annotations",
      "replaces the agent's policy" },
    { "Go 4.1 ignores runtime.name: allowed",
      "\"io.katacontainers.config.runtime.name\": \"linux-container\"", all, &go4, "",
      "1 Kata annotation, all allowed" },
    { "Go: its enable_vcpus_pinning, not allowed: the reason",
      "\"io.katacontainers.enable_vcpus_pinning\": \"true\"", NULL, &kata_fc, "policy.annotations",
      "pins the vCPU threads to host CPUs" },
    { "no Kata configuration: runtime-rs's and Go's",
      "\"io.katacontainers.config.runtime.name\": \"linux-container\", "
      "\"io.katacontainers.config.agent.policy\": \"eA==\"",
      all, NULL, "policy.annotations policy.resources",
      "runtime.name (picks the runtime handler (linux-container runs no VM); Kata applies it "
      "without enable_annotations); io.katacontainers.config.agent.policy" },
  };

  load_shipped (&go4, "4.1.0/go/configuration-fc.toml", KATA_RUNTIME_GO);
  load_shipped (&rs4, "4.1.0/runtime-rs/configuration-qemu-runtime-rs.toml", KATA_RUNTIME_RS);
  for (size_t i = 0; i < ARRAY_SIZE (rows); i++)
    annotations_row (rows[i].ann, rows[i].policy, rows[i].k, rows[i].name, rows[i].fails,
                     rows[i].needle);
  toml_free (go4.doc);
  toml_free (rs4.doc);
}

int
main (void)
{
  policy_test_start ();
  test_hooks ();
  test_hooks_asks ();
  test_annotations ();
  test_annotations_runtimes ();
  return policy_test_end ();
}
