/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The guard configuration: every key round-trips, every mistake is named. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "array.h"
#include "cleanup.h"
#include "conf.h"
#include "error.h"
#include "tap.h"
#include "test-files.h"

static char tmpdir[] = "/tmp/kg-test-config.XXXXXX";

/* Load TEXT; return the error message (caller frees) or NULL on success. */
static char *
load_error (const char *text, struct guard_config *out)
{
  cleanup_free char *path = test_write_in (tmpdir, "config.toml", text);
  struct guard_config cfg;
  kg_error_t err = NULL;
  char *msg;

  if (guard_config_load (path, &cfg, &err) == 0)
    {
      if (out != NULL)
        *out = cfg;
      else
        guard_config_release (&cfg);
      return NULL;
    }
  msg = strdup (err->msg);
  kg_error_release (&err);
  return msg;
}

static void
test_round_trip (void)
{
  struct guard_config cfg;
  char *msg = load_error ("[runtime]\n"
                          "shim = \"/usr/local/bin/containerd-shim-kata-v2\"\n"
                          "oci = \"/usr/bin/kata-runtime\"\n"
                          "oci_vm = true\n"
                          "[kvm]\n"
                          "device = \"/dev/kvm2\"\n"
                          "create_vm = false\n"
                          "[kata]\n"
                          "config = \"/etc/kata-containers/configuration-fc.toml\"\n"
                          "runtime = \"runtime-rs\"\n"
                          "hypervisors = [\"firecracker\", \"qemu\", \"clh\", \"openvmm\"]\n"
                          "[egress]\n"
                          "enabled = false\n"
                          "proxy = \"127.0.0.1:3128\"\n"
                          "timeout_ms = 250\n"
                          "probe_host = \"denied.example\"\n"
                          "expect_status = 407\n"
                          "[assets]\n"
                          "extra = [\"/opt/kata/share/kata-containers/extra.img\"]\n"
                          "[assets.sha256]\n"
                          "\"/opt/kata/share/kata-containers/vmlinux.container\" = "
                          "\"E3B0C44298FC1C149AFBF4C8996FB92427AE41E4649B934CA495991B7852B855\"\n"
                          "[log]\n"
                          "syslog = false\n"
                          "file = \"/var/log/kata-guard.json\"\n"
                          "[docker]\n"
                          "daemon_json = \"/srv/docker/daemon.json\"\n"
                          "[storage]\n"
                          "containerd_config = \"/srv/containerd/config.toml\"\n"
                          "pool_data_max_percent = 1\n"
                          "pool_metadata_max_percent = 100\n",
                          &cfg);

  if (! ok (msg == NULL, "a config with every key loads"))
    {
      printf ("# %s\n", msg);
      free (msg);
      return;
    }
  is_str (cfg.runtime.shim, "/usr/local/bin/containerd-shim-kata-v2", "runtime.shim");
  is_str (cfg.runtime.oci, "/usr/bin/kata-runtime", "runtime.oci");
  ok (cfg.runtime.oci_vm, "runtime.oci_vm");
  is_str (cfg.kvm.device, "/dev/kvm2", "kvm.device");
  ok (cfg.kvm.create_vm == false, "kvm.create_vm");
  is_str (cfg.kata.config, "/etc/kata-containers/configuration-fc.toml", "kata.config");
  is_str (cfg.kata.runtime, "runtime-rs", "kata.runtime");
  is_int (cfg.kata.n_hypervisors, 4, "kata.hypervisors count");
  is_str (cfg.kata.hypervisors[3], "openvmm", "kata.hypervisors[3]: openvmm is known");
  is_str (cfg.kata.hypervisors[2], "clh", "kata.hypervisors[2]");
  ok (cfg.kata.hypervisors[4] == NULL, "kata.hypervisors is NULL-terminated");
  ok (cfg.egress.enabled == false, "egress.enabled");
  is_str (cfg.egress.proxy, "127.0.0.1:3128", "egress.proxy");
  is_int (cfg.egress.timeout_ms, 250, "egress.timeout_ms");
  is_str (cfg.egress.probe_host, "denied.example", "egress.probe_host");
  is_int (cfg.egress.expect_status, 407, "egress.expect_status");
  ok (cfg.log.syslog == false, "log.syslog");
  is_str (cfg.log.file, "/var/log/kata-guard.json", "log.file");
  is_str (cfg.docker.daemon_json, "/srv/docker/daemon.json", "docker.daemon_json");
  is_str (cfg.storage.containerd_config, "/srv/containerd/config.toml",
          "storage.containerd_config");
  is_int (cfg.storage.pool_data_max_percent, 1, "storage.pool_data_max_percent: 1 is the lowest");
  is_int (cfg.storage.pool_metadata_max_percent, 100,
          "storage.pool_metadata_max_percent: 100 is the highest");
  is_int (cfg.assets.n_extra, 1, "assets.extra count");
  is_str (cfg.assets.extra[0], "/opt/kata/share/kata-containers/extra.img", "assets.extra[0]");
  is_int (cfg.assets.n_pins, 1, "assets.sha256 count");
  is_str (cfg.assets.pins[0].path, "/opt/kata/share/kata-containers/vmlinux.container",
          "assets.sha256 path");
  is_str (cfg.assets.pins[0].hex,
          "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
          "assets.sha256 digest, lower-cased");
  guard_config_release (&cfg);

  msg = load_error ("[egress]\nproxy = \"[::1]:3128\"\n", &cfg);
  ok (msg == NULL, "an [IPv6]:port proxy is accepted");
  if (msg == NULL)
    {
      is_str (cfg.egress.proxy, "[::1]:3128", "egress.proxy IPv6");
      guard_config_release (&cfg);
    }
  free (msg);
}

static void
test_defaults (void)
{
  struct guard_config cfg;
  char *msg = load_error ("[log]\nsyslog = true\n", &cfg);

  if (! ok (msg == NULL, "a config with one key loads"))
    {
      free (msg);
      return;
    }
  is_str (cfg.runtime.shim, "/opt/kata/bin/containerd-shim-kata-v2", "default runtime.shim");
  is_str (cfg.runtime.oci, "", "default runtime.oci is empty");
  ok (! cfg.runtime.oci_vm, "default runtime.oci_vm is false");
  is_str (cfg.kvm.device, "/dev/kvm", "default kvm.device");
  ok (cfg.kvm.create_vm, "default kvm.create_vm is true");
  is_str (cfg.kata.config, "", "default kata.config is empty");
  is_str (cfg.kata.runtime, "auto", "default kata.runtime is auto");
  ok (cfg.kata.n_hypervisors == 1 && strcmp (cfg.kata.hypervisors[0], "firecracker") == 0,
      "default kata.hypervisors is [firecracker]");
  ok (cfg.egress.enabled, "default egress.enabled is true");
  is_str (cfg.egress.proxy, "", "default egress.proxy is empty");
  is_int (cfg.egress.timeout_ms, 1000, "default egress.timeout_ms");
  is_int (cfg.runtime.deadline_ms, 5000, "default runtime.deadline_ms");
  is_str (cfg.egress.probe_host, "", "default egress.probe_host (a fresh name per probe)");
  is_int (cfg.egress.expect_status, 0, "default egress.expect_status (not set)");
  ok (cfg.egress.n_deny_statuses == 2 && cfg.egress.deny_statuses[0] == 403
          && cfg.egress.deny_statuses[1] == 407,
      "default egress.deny_statuses [403, 407]");
  is_int ((int) cfg.egress.n_networks, 0, "default egress.networks []");
  is_str (cfg.docker.daemon_json, "/etc/docker/daemon.json", "default docker.daemon_json");
  is_str (cfg.storage.containerd_config, "/etc/containerd/config.toml",
          "default storage.containerd_config");
  is_int (cfg.storage.pool_data_max_percent, 90, "default storage.pool_data_max_percent");
  is_int (cfg.storage.pool_metadata_max_percent, 90, "default storage.pool_metadata_max_percent");
  guard_config_release (&cfg);
}

static void
test_policy (void)
{
  struct guard_config cfg;
  char *msg = load_error (
      "[policy]\n"
      "host_namespaces = true\n"
      "privileged = true\n"
      "capabilities = [\"CAP_CHOWN\", \"cap_net_admin\"]\n"
      "devices = [\"/dev/kvm\", \"/dev/fuse\"]\n"
      "deny_mounts = [\"/srv/secret\"]\n"
      "writable_mounts = [\"/srv/data\", \"/var/lib/docker/volumes\"]\n"
      "engine_roots = [\"/data/docker\"]\n"
      "hooks = [\"/usr/local/bin/dockerd\"]\n"
      "annotations = [\"io\\\\.katacontainers\\\\.config\\\\.hypervisor\\\\.default_(memory|vcpus)\"]\n"
      "require_memory_limit = false\n"
      "max_vm_memory_mib = 8192\n"
      "max_committed_memory_mib = 20480\n"
      "committed_memory_reserve_mib = 4096\n"
      "max_vcpus = 4\n"
      "require_seccomp = true\n",
      &cfg);

  if (! ok (msg == NULL, "a [policy] with every key loads"))
    {
      printf ("# %s\n", msg);
      free (msg);
      return;
    }
  ok (cfg.policy.host_namespaces && cfg.policy.privileged, "policy booleans");
  is_int (cfg.policy.n_capabilities, 2, "policy.capabilities count");
  is_str (cfg.policy.capabilities[1], "cap_net_admin", "policy.capabilities kept as written");
  is_int (cfg.policy.n_devices, 2, "policy.devices count");
  is_str (cfg.policy.devices[1], "/dev/fuse", "policy.devices[1]");
  is_str (cfg.policy.deny_mounts[0], "/srv/secret", "policy.deny_mounts");
  is_int (cfg.policy.n_writable_mounts, 2, "policy.writable_mounts count");
  is_str (cfg.policy.engine_roots[0], "/data/docker", "policy.engine_roots");
  is_int (cfg.policy.n_engine_roots, 1, "policy.engine_roots replaces the default");
  is_str (cfg.policy.hooks[0], "/usr/local/bin/dockerd", "policy.hooks");
  is_int (cfg.policy.n_annotations, 1, "policy.annotations count");
  is_int (cfg.policy.n_annotation_res, 1, "policy.annotations compiled");
  if (cfg.policy.n_annotation_res == 1)
    {
      ok (regexec (&cfg.policy.annotation_res[0],
                   "io.katacontainers.config.hypervisor.default_vcpus", 0, NULL, 0)
              == 0,
          "the annotation regex matches a whole name");
      ok (regexec (&cfg.policy.annotation_res[0],
                   "io.katacontainers.config.hypervisor.default_vcpus_x", 0, NULL, 0)
              != 0,
          "the annotation regex is anchored at the end");
      ok (regexec (&cfg.policy.annotation_res[0],
                   "x.io.katacontainers.config.hypervisor.default_vcpus", 0, NULL, 0)
              != 0,
          "the annotation regex is anchored at the start");
    }
  ok (! cfg.policy.require_memory_limit, "policy.require_memory_limit");
  is_int (cfg.policy.max_vm_memory_mib, 8192, "policy.max_vm_memory_mib");
  is_int (cfg.policy.max_committed_memory_mib, 20480, "policy.max_committed_memory_mib");
  is_int (cfg.policy.committed_memory_reserve_mib, 4096, "policy.committed_memory_reserve_mib");
  is_int (cfg.policy.max_vcpus, 4, "policy.max_vcpus");
  ok (cfg.policy.require_seccomp, "policy.require_seccomp");
  guard_config_release (&cfg);

  msg = load_error ("[log]\nsyslog = true\n", &cfg);
  if (! ok (msg == NULL, "defaults load"))
    {
      free (msg);
      return;
    }
  ok (! cfg.policy.host_namespaces && ! cfg.policy.privileged,
      "default: no host namespaces, not privileged");
  is_int (cfg.policy.n_capabilities, 14, "default capabilities: Docker's 14");
  is_str (cfg.policy.capabilities[0], "CAP_CHOWN", "default capabilities[0]");
  is_str (cfg.policy.capabilities[13], "CAP_AUDIT_WRITE", "default capabilities[13]");
  ok (cfg.policy.n_devices == 0 && cfg.policy.n_deny_mounts == 0
          && cfg.policy.n_writable_mounts == 0 && cfg.policy.n_annotations == 0,
      "default devices, deny_mounts, writable_mounts, annotations are empty");
  ok (cfg.policy.n_engine_roots == 1 && strcmp (cfg.policy.engine_roots[0], "/var/lib/docker") == 0,
      "default engine_roots is [/var/lib/docker]");
  ok (cfg.policy.n_hooks == 2 && strcmp (cfg.policy.hooks[0], "/usr/bin/dockerd") == 0
          && strcmp (cfg.policy.hooks[1], "/usr/sbin/dockerd") == 0,
      "default hooks are the dockerd binaries");
  ok (cfg.policy.require_memory_limit, "default require_memory_limit is true");
  is_int (cfg.policy.max_vm_memory_mib, 0, "default max_vm_memory_mib is 0 (MemTotal)");
  is_int (cfg.policy.max_committed_memory_mib, 0,
          "default max_committed_memory_mib is 0 (MemTotal less the reserve)");
  is_int (cfg.policy.committed_memory_reserve_mib, 2048,
          "default committed_memory_reserve_mib is 2048");
  is_int (cfg.policy.max_vcpus, 32, "default max_vcpus is 32");
  is_int (cfg.policy.min_oom_score_adj, -998, "default min_oom_score_adj is -998 (CRI's sandbox)");
  ok (! cfg.policy.intel_rdt, "default intel_rdt is false");
  ok (! cfg.policy.require_seccomp, "default require_seccomp is false");
  guard_config_release (&cfg);
}

static void
test_shipped (void)
{
  const char *src = getenv ("KG_SRCDIR");
  cleanup_free char *path = NULL;
  struct guard_config cfg;
  kg_error_t err = NULL;

  if (asprintf (&path, "%s/packaging/config.toml", src ? src : ".") < 0)
    abort ();
  if (! ok (guard_config_load (path, &cfg, &err) == 0, "the shipped packaging/config.toml loads"))
    {
      printf ("# %s\n", err->msg);
      kg_error_release (&err);
      return;
    }
  is_str (cfg.runtime.shim, "/opt/kata/bin/containerd-shim-kata-v2", "shipped runtime.shim");
  ok (cfg.egress.enabled && cfg.kvm.create_vm, "shipped config keeps every check on");
  guard_config_release (&cfg);
}

static const struct
{
  const char *text;
  const char *want; /* substring of the message, after "PATH:" */
} bad_configs[] = {
  { "[kvm]\ndevcie = \"/dev/kvm\"\n", ":2: [kvm] devcie: unknown key" },
  { "[kvm]\ndevice = \"/dev/kvm\"\n[kvmm]\ncreate_vm = true\n", ":3: unknown table [kvmm]" },
  { "debug = true\n", ":1: debug: unknown key outside any table" },
  { "[kvm]\ncreate_vm = \"yes\"\n", ":2: [kvm] create_vm: expected a boolean, found string" },
  { "[kvm]\ndevice = 1\n", ":2: [kvm] device: expected a string, found integer" },
  { "[egress]\ntimeout_ms = \"1000\"\n", ":2: [egress] timeout_ms: expected an integer" },
  { "[egress]\ntimeout_ms = 1.5\n", "[egress] timeout_ms: expected an integer, found float" },
  { "[egress]\ntimeout_ms = 0\n", ":2: [egress] timeout_ms: 0 is out of range (1..60000)" },
  { "[egress]\ntimeout_ms = 60001\n", "[egress] timeout_ms: 60001 is out of range" },
  { "[runtime]\ndeadline_ms = 99\n", ":2: [runtime] deadline_ms: 99 is out of range (100..60000)" },
  { "[runtime]\ndeadline_ms = 60001\n", "[runtime] deadline_ms: 60001 is out of range" },
  { "[egress]\nexpect_status = 200\n", "[egress] expect_status: 200 is out of range (300..599)" },
  { "[egress]\nexpect_status = 600\n", "[egress] expect_status: 600 is out of range" },
  { "[egress]\nprobe_host = \"a b\"\n", "[egress] probe_host: \"a b\" must be a DNS host name" },
  { "[egress]\nprobe_host = \"x\\r\\nHost: y\"\n", "[egress] probe_host: " },
  { "[egress]\ndeny_statuses = [403, 200]\n",
    "[egress] deny_statuses: item 2: expected an integer from 300 to 599" },
  { "[egress]\ndeny_statuses = []\n",
    "[egress] deny_statuses: expected an array of 1 to 8 integers" },
  { "[egress]\nnetworks = [\"10.0.0.0\"]\n",
    "[egress] networks: \"10.0.0.0\" must be an IPv4 or IPv6 network" },
  { "[egress]\nnetworks = [\"10.0.0.0/33\"]\n", "must be an IPv4 or IPv6 network (ADDR/PREFIX)" },
  { "[egress]\nenabled = 1\n", "[egress] enabled: expected a boolean, found integer" },
  { "[runtime]\nshim = \"containerd-shim-kata-v2\"\n",
    "[runtime] shim: \"containerd-shim-kata-v2\" must be an absolute path" },
  { "[runtime]\nshim = \"\"\n", "[runtime] shim: \"\" must not be empty" },
  { "[runtime]\noci = \"runc\"\n", "[runtime] oci: \"runc\" must be an absolute path" },
  { "[kvm]\ndevice = \"/dev/kvm\\n\"\n", "[kvm] device: " },
  { "[kata]\nhypervisors = [\"firecraker\"]\n",
    "[kata] hypervisors: \"firecraker\" is not a Kata hypervisor" },
  { "[kata]\nhypervisors = []\n", "[kata] hypervisors: must name at least one" },
  { "[kata]\nhypervisors = \"firecracker\"\n",
    "[kata] hypervisors: expected an array of strings, found string" },
  { "[kata]\nhypervisors = [\"qemu\", 1]\n",
    "[kata] hypervisors: item 2: expected a string, found integer" },
  { "[kata]\nruntime = \"rust\"\n",
    "[kata] runtime: \"rust\" must be \"auto\", \"go\" or \"runtime-rs\"" },
  { "[kata]\nruntime = \"\"\n", "[kata] runtime: \"\" must be \"auto\"" },
  { "[kata]\nruntime = true\n", "[kata] runtime: expected a string" },
  { "[kata]\nconfig = \"etc/kata.toml\"\n",
    "[kata] config: \"etc/kata.toml\" must be an absolute path" },
  { "[log]\nsyslog = true\nsyslog = false\n", ":3:" },
  { "[log]\nsyslog = tru\n", ":2:" },
  { "[log.files]\npath = \"/x\"\n", "[log] files: unknown key" },
  { "[egress]\nproxy = \"proxy.internal:3128\"\n",
    "[egress] proxy: \"proxy.internal:3128\" must be a literal IPv4:port" },
  { "[egress]\nproxy = \"localhost:3128\"\n",
    "[egress] proxy: \"localhost:3128\" must be a literal" },
  { "[egress]\nproxy = \"127.0.0.1\"\n", "[egress] proxy: " },
  { "[egress]\nproxy = \"127.0.0.1:0\"\n", "[egress] proxy: " },
  { "[egress]\nproxy = \"127.0.0.1:65536\"\n", "[egress] proxy: " },
  { "[egress]\nproxy = \"127.0.0.1:+80\"\n", "[egress] proxy: " },
  { "[egress]\nproxy = \"127.1:80\"\n", "[egress] proxy: " },
  { "[egress]\nproxy = \"::1:3128\"\n", "[egress] proxy: " },
  { "[egress]\nproxy = \"[::1]3128\"\n", "[egress] proxy: " },
  { "[assets]\nextra = [\"relative.img\"]\n",
    "[assets] extra: \"relative.img\" must be an absolute path" },
  { "[assets.sha256]\n\"/k\" = \"abc\"\n", ":2: [assets.sha256] \"/k\": expected 64 hex digits" },
  { "[assets.sha256]\n\"k\" = \"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\"\n",
    "the file must be an absolute path" },
  { "[assets]\nsha256 = \"x\"\n", "[assets] sha256: expected a table" },
  { "[log]\nfile = \"log.json\"\n", "[log] file: \"log.json\" must be an absolute path" },
  { "[docker]\ndaemon_json = \"daemon.json\"\n",
    ":2: [docker] daemon_json: \"daemon.json\" must be an absolute path" },
  { "[docker]\ndaemon_json = \"\"\n", "[docker] daemon_json: \"\" must not be empty" },
  { "[docker]\ndaemon_json = true\n", "[docker] daemon_json: expected a string, found boolean" },
  { "[docker]\ndeamon_json = \"/x\"\n", "[docker] deamon_json: unknown key" },
  { "[storage]\ncontainerd_config = \"config.toml\"\n",
    ":2: [storage] containerd_config: \"config.toml\" must be an absolute path" },
  { "[storage]\ncontainerd_config = \"\"\n",
    "[storage] containerd_config: \"\" must not be empty" },
  { "[storage]\npool_data_max_percent = 0\n",
    ":2: [storage] pool_data_max_percent: 0 is out of range (1..100)" },
  { "[storage]\npool_data_max_percent = 101\n",
    "[storage] pool_data_max_percent: 101 is out of range (1..100)" },
  { "[storage]\npool_metadata_max_percent = 0\n",
    "[storage] pool_metadata_max_percent: 0 is out of range (1..100)" },
  { "[storage]\npool_metadata_max_percent = 90.5\n",
    "[storage] pool_metadata_max_percent: expected an integer, found float" },
  { "[storage]\npool_data_max_percent = \"90\"\n",
    "[storage] pool_data_max_percent: expected an integer, found string" },
  { "[storage]\npool_name = \"p\"\n", "[storage] pool_name: unknown key" },
  { "", "the configuration is empty" },
  { "# only a comment\n\n", "the configuration is empty" },
  { "[kvm]\n", "the configuration is empty" },
  { "[policy]\nprivileged = \"no\"\n",
    ":2: [policy] privileged: expected a boolean, found string" },
  { "[policy]\nhost_namespaces = 0\n", "[policy] host_namespaces: expected a boolean" },
  { "[policy]\nrequire_memory_limit = \"true\"\n",
    "[policy] require_memory_limit: expected a boolean" },
  { "[policy]\nrequire_seccomp = 1\n", "[policy] require_seccomp: expected a boolean" },
  { "[policy]\ncapabilities = [\"CAP_FOO\"]\n",
    ":2: [policy] capabilities: \"CAP_FOO\" is not a capability name libcap knows" },
  { "[policy]\ncapabilities = [\"SYS_ADMIN\"]\n",
    "[policy] capabilities: \"SYS_ADMIN\" is not a capability name" },
  { "[policy]\ncapabilities = [\"12\"]\n",
    "[policy] capabilities: \"12\" is not a capability name" },
  { "[policy]\ncapabilities = \"CAP_CHOWN\"\n",
    "[policy] capabilities: expected an array of strings" },
  { "[policy]\ndevices = [\"dev/kvm\"]\n",
    "[policy] devices: \"dev/kvm\" must be an absolute path" },
  { "[policy]\ndeny_mounts = [\"\"]\n", "[policy] deny_mounts: \"\" must not be empty" },
  { "[policy]\nwritable_mounts = [\"data\"]\n",
    "[policy] writable_mounts: \"data\" must be an absolute path" },
  { "[policy]\nengine_roots = [\"var/lib/docker\"]\n",
    "[policy] engine_roots: \"var/lib/docker\" must be an absolute path" },
  { "[policy]\nhooks = [\"dockerd\"]\n", "[policy] hooks: \"dockerd\" must be an absolute path" },
  { "[policy]\nhooks = [1]\n", "[policy] hooks: item 1: expected a string, found integer" },
  { "[policy]\nannotations = [\"io.katacontainers.(\"]\n",
    ":2: [policy] annotations: \"io.katacontainers.(\" is not a valid POSIX extended regular expression" },
  { "[policy]\nannotations = [\"\"]\n", "[policy] annotations: \"\" must not be empty" },
  { "[policy]\nmax_vm_memory_mib = -1\n",
    "[policy] max_vm_memory_mib: -1 is out of range (0..1073741824)" },
  { "[policy]\nmax_committed_memory_mib = -1\n",
    "[policy] max_committed_memory_mib: -1 is out of range (0..1073741824)" },
  { "[policy]\ncommitted_memory_reserve_mib = 1073741825\n",
    "[policy] committed_memory_reserve_mib: 1073741825 is out of range (0..1073741824)" },
  { "[policy]\nmax_vm_memory_mib = \"4G\"\n",
    "[policy] max_vm_memory_mib: expected an integer, found string" },
  { "[policy]\nmax_vcpus = 0\n", "[policy] max_vcpus: 0 is out of range (1..1024)" },
  { "[policy]\nmax_vcpus = 1025\n", "[policy] max_vcpus: 1025 is out of range" },
  { "[policy]\nmin_oom_score_adj = -1001\n",
    "[policy] min_oom_score_adj: -1001 is out of range (-1000..1000)" },
  { "[policy]\nmax_cpus = 4\n", ":2: [policy] max_cpus: unknown key" },
  { "[policies]\nprivileged = false\n", "unknown table [policies]" },
};

static void
test_errors (void)
{
  for (size_t i = 0; i < ARRAY_SIZE (bad_configs); i++)
    {
      cleanup_free char *msg = load_error (bad_configs[i].text, NULL);
      cleanup_free char *prefix = NULL;

      if (asprintf (&prefix, "%s/config.toml:", tmpdir) < 0)
        abort ();
      if (! ok (msg != NULL, "bad config %zu is refused", i + 1))
        continue;
      ok (strncmp (msg, prefix, strlen (prefix)) == 0, "bad config %zu: message names the file",
          i + 1);
      has_str (msg, bad_configs[i].want, "bad config %zu: %s", i + 1, bad_configs[i].want);
    }
}

static void
test_files (void)
{
  struct guard_config cfg;
  kg_error_t err = NULL;
  cleanup_free char *missing = NULL;

  if (asprintf (&missing, "%s/none.toml", tmpdir) < 0)
    abort ();
  ok (guard_config_load (missing, &cfg, &err) < 0, "a missing file is an error");
  has_str (err ? err->msg : NULL, "none.toml: cannot open: No such file or directory",
           "the missing file is named");
  kg_error_release (&err);

  ok (guard_config_load (tmpdir, &cfg, &err) < 0, "a directory is an error");
  has_str (err ? err->msg : NULL, "Is a directory", "the directory is named as such");
  kg_error_release (&err);

  {
    cleanup_free char *path = test_write_in (tmpdir, "unreadable.toml", "[log]\nsyslog = true\n");

    /* Unreadable to this process: mode 0 is not, with CAP_DAC_OVERRIDE. */
    chmod (path, 0);
    if (access (path, R_OK) == 0)
      ok (1, "# SKIP an unreadable file: this process reads a file of mode 0 (root)");
    else
      {
        ok (guard_config_load (path, &cfg, &err) < 0, "an unreadable file is an error");
        has_str (err ? err->msg : NULL, "Permission denied", "the unreadable file says why");
        kg_error_release (&err);
      }
    unlink (path);
  }

  setenv (KG_CONFIG_ENV, "/x/y.toml", 1);
  is_str (guard_config_default_path (), "/x/y.toml", "KATA_GUARD_CONFIG picks the file");
  setenv (KG_CONFIG_ENV, "", 1);
  has_str (guard_config_default_path (), "/kata-guard/config.toml",
           "an empty KATA_GUARD_CONFIG falls back to the sysconfdir file");
  unsetenv (KG_CONFIG_ENV);
}

int
main (void)
{
  if (mkdtemp (tmpdir) == NULL)
    abort ();
  test_round_trip ();
  test_defaults ();
  test_policy ();
  test_shipped ();
  test_errors ();
  test_files ();
  {
    char path[sizeof tmpdir + 16];

    snprintf (path, sizeof path, "%s/config.toml", tmpdir);
    unlink (path);
    rmdir (tmpdir);
  }
  return tap_done ();
}
