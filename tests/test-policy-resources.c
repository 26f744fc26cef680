/* SPDX-License-Identifier: GPL-2.0-or-later */
/* policy.resources, for each runtime, and egress.netns without namespaces of its own.
   (tests/test-policy.h: what every part of policy.*'s tests shares.) */
#include "test-policy.h"

#include <sys/resource.h>
#include <sys/sysinfo.h>

static void
resources_row (const char *name, const char *res, const char *policy, struct kata_config *k,
               const char *fails, const char *needle)
{
  cleanup_free char *spec = spec_of (NULL, NULL, res, NULL, NULL);

  run_expect (spec, ID_A, policy, k, name, fails, "policy.resources", needle);
}

static void
test_resources (void)
{
  resources_row ("limits", NULL, NULL, &kata_fc, "", "2304 MiB");
  /* No memory limit is policy.memory_limit's (audit mode may let it
     through: it stays inside the VM); the VM is still sized, at Kata's
     default, and counted. */
  {
    cleanup_free char *spec = spec_of (NULL, NULL, "\"cpu\": {\"shares\": 2}", NULL, NULL);

    run_expect (spec, ID_A, NULL, &kata_fc, "no limit", "policy.memory_limit",
                "policy.memory_limit", "no memory limit");
    run_expect (spec, ID_A, NULL, &kata_fc, "no limit: the VM is sized all the same",
                "policy.memory_limit", "policy.resources",
                "2048 MiB (default_memory 2048 + limit 0 MiB)");
  }
  resources_row ("no limit allowed", "", "require_memory_limit = false", &kata_fc, "", "2048 MiB");
  resources_row ("limit as a string", "\"memory\": {\"limit\": \"268435456\"}", NULL, &kata_fc,
                 "policy.resources", "memory limit is a string, not an integer");
  resources_row ("negative limit", "\"memory\": {\"limit\": -1}", NULL, &kata_fc,
                 "policy.resources", "memory limit is -1, not a positive number");
  resources_row ("zero limit", "\"memory\": {\"limit\": 0}", NULL, &kata_fc, "policy.resources",
                 "memory limit is 0, not a positive number");
  resources_row ("1e30", "\"memory\": {\"limit\": 1e30}", NULL, &kata_fc, "policy.resources",
                 "memory limit is a floating-point number");
  /* Past 2^64: refused as it is read, by json-c 0.18 and later, or else
     (older ones saturate) by the strict scan. */
  {
    cleanup_free char *spec = spec_of (NULL, NULL, "\"memory\": {\"limit\": 18446744073709551616}",
                                       NULL, NULL);

    run_expect (spec, ID_A, NULL, &kata_fc, "2^64", "policy.spec", "policy.spec",
                json_c_version_num () >= 0x001200 ? "invalid JSON" : "outside the 64-bit range");
  }
  resources_row ("2^63-1", "\"memory\": {\"limit\": 9223372036854775807}", NULL, &kata_fc,
                 "policy.resources", "is out of range");
  {
    cleanup_free char *spec = spec_of (NULL, NULL, "\"memory\": {\"limit\": null}", NULL, NULL);

    run_expect (spec, ID_A, NULL, &kata_fc, "null limit", "policy.memory_limit",
                "policy.memory_limit", "no memory limit");
  }
  resources_row ("quota without period",
                 "\"memory\": {\"limit\": 268435456}, \"cpu\": {\"quota\": 100000}", NULL, &kata_fc,
                 "policy.resources", "CPU quota 100000 without a period");
  resources_row ("negative quota",
                 "\"memory\": {\"limit\": 268435456}, \"cpu\": {\"quota\": -1, \"period\": 100000}",
                 NULL, &kata_fc, "policy.resources", "CPU quota is -1, not a positive number");
  resources_row ("zero period",
                 "\"memory\": {\"limit\": 268435456}, \"cpu\": {\"quota\": 1, \"period\": 0}", NULL,
                 &kata_fc, "policy.resources", "CPU period is 0");
  resources_row ("quota rounds up",
                 "\"memory\": {\"limit\": 268435456}, \"cpu\": {\"quota\": 150001, \"period\": "
                 "100000}",
                 NULL, &kata_fc, "", "3 vCPUs");
  resources_row ("limit rounds up to MiB", "\"memory\": {\"limit\": 1048577}", NULL, &kata_fc, "",
                 "2050 MiB (default_memory 2048 + limit 2 MiB)");
  resources_row ("too much memory", "\"memory\": {\"limit\": 21474836480}", NULL, &kata_fc,
                 "policy.resources",
                 "the VM would have 22528 MiB (default_memory 2048 + limit 20480 MiB), more "
                 "than [policy] max_vm_memory_mib (16384 MiB)");
  resources_row ("Firecracker's 32 vCPUs",
                 "\"memory\": {\"limit\": 268435456}, \"cpu\": {\"quota\": 3200000, \"period\": "
                 "100000}",
                 "max_vcpus = 64", &kata_fc, "policy.resources",
                 "the VM would have 33 vCPUs (default_vcpus 1 + 32 from quota 3200000 / period "
                 "100000), more than Firecracker's limit (32)");
  resources_row ("max_vcpus",
                 "\"memory\": {\"limit\": 268435456}, \"cpu\": {\"quota\": 400000, "
                 "\"period\": 100000}",
                 "max_vcpus = 4", &kata_fc, "policy.resources", "5 vCPUs");
  resources_row ("no Kata configuration", NULL, NULL, NULL, "policy.resources",
                 "cannot compute the VM size: the Kata configuration did not load");
  {
    struct kata_config big = { 0 };

    load_kata (&big, NULL, "[hypervisor.firecracker]\ndefault_memory = 4096\ndefault_vcpus = 2\n");
    resources_row ("Kata's own sizes", NULL, NULL, &big, "",
                   "4352 MiB (default_memory 4096 + limit 256 MiB) of at most 16384, 3 vCPUs");
    toml_free (big.doc);
    load_kata (&big, NULL, "[hypervisor.firecracker]\ndefault_memory = \"2048\"\n");
    resources_row ("Kata default_memory a string", NULL, NULL, &big, "policy.resources",
                   "default_memory (line 2) is not a usable size");
    toml_free (big.doc);
  }
  /* 0 is this host's MemTotal; no host has 1 PiB. */
  resources_row ("MemTotal", "\"memory\": {\"limit\": 1125899906842624}", "max_vm_memory_mib = 0",
                 &kata_fc, "policy.resources", "MiB), more than this host's MemTotal (");
  resources_row ("within MemTotal", NULL, "max_vm_memory_mib = 0", &kata_fc, "",
                 "2304 MiB (default_memory 2048 + limit 256 MiB) of at most");
}

/* policy.resources sizes the VM as the runtime that reads the Kata
   configuration does: the shipped configurations of both, then
   runtime-rs's own rules. */
static void
test_resources_runtimes (void)
{
  static const struct
  {
    const char *file;
    enum kata_runtime runtime;
    const char *needle;
  } shipped[] = {
    { "3.30.0/configuration-fc.toml", KATA_RUNTIME_GO,
      "2304 MiB (default_memory 2048 + limit 256 MiB) of at most 16384, 2 vCPUs of at most 32" },
    { "3.30.0/configuration-qemu.toml", KATA_RUNTIME_GO,
      "the VM can grow to all of this host's memory, " },
    { "3.30.0/configuration-clh.toml", KATA_RUNTIME_GO,
      "the VM can grow to all of this host's memory, " },
    { "4.1.0/go/configuration-fc.toml", KATA_RUNTIME_GO,
      "2304 MiB (default_memory 2048 + limit 256 MiB) of at most 16384, 2 vCPUs of at most 32" },
    { "4.1.0/go/configuration-qemu.toml", KATA_RUNTIME_GO,
      "the VM can grow to all of this host's memory, " },
    { "4.1.0/go/configuration-clh.toml", KATA_RUNTIME_GO,
      "the VM can grow to all of this host's memory, " },
    { "4.1.0/runtime-rs/configuration-qemu-runtime-rs.toml", KATA_RUNTIME_RS,
      "288 MiB (runtime-rs static sizing: overhead_memory 32 + limit 256 MiB) of at most 16384, "
      "2 vCPUs of at most 32 (runtime-rs static sizing: max (1, overhead_vcpus 0.2 + 1 from "
      "quota 100000 / period 100000), rounded up)" },
    { "4.1.0/runtime-rs/configuration-clh-runtime-rs.toml", KATA_RUNTIME_RS,
      "288 MiB (runtime-rs static sizing: overhead_memory 32 + limit 256 MiB) of at most 16384, "
      "2 vCPUs" },
    { "4.1.0/runtime-rs/configuration-dragonball.toml", KATA_RUNTIME_RS,
      "288 MiB (runtime-rs static sizing: overhead_memory 32 + limit 256 MiB) of at most 16384, "
      "2 vCPUs" },
    { "4.1.0/runtime-rs/configuration-qemu-nvidia-gpu-runtime-rs.toml", KATA_RUNTIME_RS,
      "768 MiB (runtime-rs static sizing: overhead_memory 512 + limit 256 MiB) of at most 16384, "
      "2 vCPUs" },
    { "4.1.0/runtime-rs/configuration-qemu-snp-runtime-rs.toml", KATA_RUNTIME_RS,
      "384 MiB (runtime-rs static sizing: overhead_memory 128 + limit 256 MiB) of at most 16384, "
      "2 vCPUs" },
    { "4.1.0/runtime-rs/configuration-rs-fc.toml", KATA_RUNTIME_RS,
      "256 MiB (runtime-rs static sizing: overhead_memory 0 + limit 256 MiB) of at most 16384, "
      "1 vCPUs of at most 32 (runtime-rs static sizing: max (1, overhead_vcpus 0 + 1 from" },
  };
  struct kata_config rs = { 0 }, k = { 0 };

  for (size_t i = 0; i < ARRAY_SIZE (shipped); i++)
    {
      cleanup_free char *name = NULL;

      load_shipped (&k, shipped[i].file, shipped[i].runtime);
      if (asprintf (&name, "shipped %s", shipped[i].file) < 0)
        abort ();
      resources_row (name, NULL, NULL, &k,
                     strstr (shipped[i].needle, "can grow") ? "policy.resources" : "",
                     shipped[i].needle);
      toml_free (k.doc);
    }

  load_shipped (&rs, "4.1.0/runtime-rs/configuration-qemu-runtime-rs.toml", KATA_RUNTIME_RS);
  /* 32 + 16000 MiB fits 16384; default_memory + the limit would not. */
  resources_row ("runtime-rs: the overhead replaces default_memory",
                 "\"memory\": {\"limit\": 16777216000}", NULL, &rs, "",
                 "16032 MiB (runtime-rs static sizing: overhead_memory 32 + limit 16000 MiB)");
  resources_row ("runtime-rs: fractional vCPUs, rounded up once",
                 "\"memory\": {\"limit\": 268435456}, \"cpu\": {\"quota\": 150000, \"period\": "
                 "100000}",
                 "max_vcpus = 2", &rs, "",
                 "2 vCPUs of at most 2 (runtime-rs static sizing: max (1, overhead_vcpus 0.2 + 1.5 "
                 "from quota 150000 / period 100000), rounded up)");
  resources_row ("runtime-rs: a cpuset without a quota sizes the VM",
                 "\"memory\": {\"limit\": 268435456}, \"cpu\": {\"cpus\": \"0-63\"}", NULL, &rs,
                 "policy.resources",
                 "the VM would have 65 vCPUs (runtime-rs static sizing: max (1, overhead_vcpus 0.2 "
                 "+ 64 from a cpuset of 64 CPUs), rounded up), more than [policy] max_vcpus (32)");
  resources_row ("runtime-rs: a cpuset counts each CPU once",
                 "\"memory\": {\"limit\": 268435456}, \"cpu\": {\"cpus\": \"0-3,2,8\"}", NULL, &rs,
                 "",
                 "6 vCPUs of at most 32 (runtime-rs static sizing: max (1, overhead_vcpus 0.2 + "
                 "5 from a cpuset of 5 CPUs)");
  resources_row ("runtime-rs: a cpuset it cannot count",
                 "\"memory\": {\"limit\": 268435456}, \"cpu\": {\"cpus\": \"0-\"}", NULL, &rs,
                 "policy.resources",
                 "linux.resources.cpu.cpus \"0-\" is not a list every reader takes alike");
  resources_row ("runtime-rs: MiB rounded down, then up to even",
                 "\"memory\": {\"limit\": 3670016}", NULL, &rs, "",
                 "36 MiB (runtime-rs static sizing: overhead_memory 32 + limit 4 MiB)");
  resources_row ("runtime-rs: no workload, the defaults", "", "require_memory_limit = false", &rs,
                 "",
                 "2048 MiB (runtime-rs static sizing without a workload: default_memory 2048) of "
                 "at most 16384, 1 vCPUs");
  resources_row ("Go: a cpuset does not size the VM",
                 "\"memory\": {\"limit\": 268435456}, \"cpu\": {\"cpus\": \"0-63\"}", NULL,
                 &kata_fc, "", "1 vCPUs of at most 32 (default_vcpus 1 + 0 from no CPU quota)");
  toml_free (rs.doc);

  /* An overhead above default_memory: more than the defaults would say. */
  load_kata_as (&k, NULL,
                "[hypervisor.qemu]\ndefault_memory = 256\noverhead_memory = 4096\n"
                "[runtime]\nstatic_sandbox_resource_mgmt = true\n",
                KATA_RUNTIME_RS);
  resources_row ("runtime-rs: overhead_memory above default_memory",
                 "\"memory\": {\"limit\": 13421772800}", NULL, &k, "policy.resources",
                 "the VM would have 16896 MiB (runtime-rs static sizing: overhead_memory 4096 + "
                 "limit 12800 MiB), more than [policy] max_vm_memory_mib (16384 MiB)");
  toml_free (k.doc);
  load_kata_as (&k, NULL,
                "[hypervisor.qemu]\ndefault_vcpus = 2\ndefault_maxmemory = 4096\n"
                "default_maxvcpus = 3\n[runtime]\n",
                KATA_RUNTIME_RS);
  resources_row ("runtime-rs without static sizing: hot-plugged on the defaults", NULL, NULL, &k,
                 "",
                 "384 MiB (runtime-rs hot-plug: default_memory 128 + limit 256 MiB) of at most "
                 "16384, 3 vCPUs");
  resources_row ("runtime-rs without static sizing: counted at default_maxmemory", NULL, NULL, &k,
                 "",
                 "; it can grow to 4096 MiB ([hypervisor.qemu] hot-plugs memory up to "
                 "default_maxmemory 4096)");
  toml_free (k.doc);
  load_kata_as (&k, NULL, "[hypervisor.qemu]\ndefault_vcpus = 2\n[runtime]\n", KATA_RUNTIME_RS);
  resources_row ("runtime-rs without static sizing, default_maxmemory 0: the whole host", NULL,
                 NULL, &k, "policy.resources", "the VM can grow to all of this host's memory, ");
  toml_free (k.doc);
  load_kata_as (&k, NULL,
                "[hypervisor.qemu]\noverhead_vcpus = \"1\"\n"
                "[runtime]\nstatic_sandbox_resource_mgmt = true\n",
                KATA_RUNTIME_RS);
  resources_row ("runtime-rs: overhead_vcpus a string", NULL, NULL, &k, "policy.resources",
                 "overhead_vcpus (line 2) is not a usable size");
  toml_free (k.doc);
  load_kata_as (&k, NULL, "[hypervisor.qemu]\n[runtime]\nstatic_sandbox_resource_mgmt = 1\n",
                KATA_RUNTIME_RS);
  resources_row ("runtime-rs: static_sandbox_resource_mgmt not a boolean", NULL, NULL, &k,
                 "policy.resources", "static_sandbox_resource_mgmt (line 3) is not a boolean");
  toml_free (k.doc);
}

/* How far a VM can grow after its start (kata-guard(8), CAPACITY): what
   it is judged and counted at.  Issue 35: an update the guard never sees
   (ctr task update, crictl update, a Kubernetes in-place resize, runc
   update through Kata) hot-plugs up to default_maxmemory and
   default_maxvcpus, 0 meaning the host's. */
#define LIMIT_ONLY "\"memory\": {\"limit\": 268435456}"

/* RES and POLICY judged by the Kata configuration TEXT as runtime RT
   reads it. */
static void
kata_row (const char *name, const char *res, const char *policy, const char *text,
          enum kata_runtime rt, const char *fails, const char *needle)
{
  struct kata_config k = { 0 };

  load_kata_as (&k, NULL, text, rt);
  resources_row (name, res, policy, &k, fails, needle);
  toml_free (k.doc);
}

static void
test_ceiling (void)
{
  long cpus = get_nprocs_conf ();

  kata_row ("Go QEMU: counted at default_maxmemory", NULL, NULL,
            "[hypervisor.qemu]\ndefault_maxmemory = 8192\n", KATA_RUNTIME_GO, "",
            "2304 MiB (default_memory 2048 + limit 256 MiB) of at most 16384, 2 vCPUs of at "
            "most 32 (default_vcpus 1 + 1 from quota 100000 / period 100000); it can grow to "
            "8192 MiB ([hypervisor.qemu] hot-plugs memory up to default_maxmemory 8192)");
  kata_row ("Go QEMU: default_maxmemory above max_vm_memory_mib", NULL, NULL,
            "[hypervisor.qemu]\ndefault_maxmemory = 20480\n", KATA_RUNTIME_GO, "policy.resources",
            "the VM can grow to 20480 MiB ([hypervisor.qemu] hot-plugs memory up to "
            "default_maxmemory 20480), more than [policy] max_vm_memory_mib (16384 MiB)");
  kata_row ("Go CLH: default_maxmemory above the host's is the host's", NULL,
            "max_vm_memory_mib = 0", "[hypervisor.clh]\ndefault_maxmemory = 4000000000\n",
            KATA_RUNTIME_GO, "policy.resources", "the VM can grow to all of this host's memory, ");
  kata_row ("Go QEMU: no default_maxmemory is the host's", NULL, "max_vm_memory_mib = 0",
            "[hypervisor.qemu]\n", KATA_RUNTIME_GO, "policy.resources",
            "default_maxmemory 0, which Kata reads as this host's memory");
  kata_row ("Go QEMU: a negative default_maxmemory", NULL, NULL,
            "[hypervisor.qemu]\ndefault_maxmemory = -1\n", KATA_RUNTIME_GO, "policy.resources",
            "default_maxmemory (line 2) is not a usable size");
  /* The boot size stays judged first. */
  kata_row ("Go QEMU: a boot size above the bound", "\"memory\": {\"limit\": 21474836480}", NULL,
            "[hypervisor.qemu]\ndefault_maxmemory = 4096\n", KATA_RUNTIME_GO, "policy.resources",
            "the VM would have 22528 MiB");
  /* vCPUs: default_maxvcpus 0 is every CPU of the host. */
  if (cpus > 1)
    {
      kata_row ("Go QEMU: default_maxvcpus 0 is the host's CPUs", LIMIT_ONLY, "max_vcpus = 1",
                "[hypervisor.qemu]\ndefault_maxmemory = 4096\n", KATA_RUNTIME_GO,
                "policy.resources",
                "vCPUs ([hypervisor.qemu] hot-plugs vCPUs up to default_maxvcpus 0, which "
                "Kata reads as this host's CPUs), more than [policy] max_vcpus (1)");
      kata_row ("Go QEMU: default_maxvcpus 1 bounds it", LIMIT_ONLY, "max_vcpus = 1",
                "[hypervisor.qemu]\ndefault_maxmemory = 4096\ndefault_maxvcpus = 1\n",
                KATA_RUNTIME_GO, "", "1 vCPUs of at most 1");
    }
  else
    {
      printf ("# default_maxvcpus rows left out: this host has one CPU\n");
    }
  /* What never grows: static sizing, Firecracker, the Go StratoVirt. */
  kata_row ("Go QEMU, static sizing: never resized", NULL, NULL,
            "[hypervisor.qemu]\n[runtime]\nstatic_sandbox_resource_mgmt = true\n", KATA_RUNTIME_GO,
            "", "(static_sandbox_resource_mgmt: Kata never resizes it)");
  kata_row ("Firecracker without static sizing: never resized", NULL, NULL,
            "[hypervisor.firecracker]\n[runtime]\nstatic_sandbox_resource_mgmt = false\n",
            KATA_RUNTIME_GO, "", "(Firecracker: Kata never resizes it)");
  kata_row ("Go StratoVirt: never resized", NULL, NULL, "[hypervisor.stratovirt]\n",
            KATA_RUNTIME_GO, "", "(StratoVirt: the Go runtime never resizes it)");
  kata_row ("runtime-rs StratoVirt: not known never to grow", NULL, NULL,
            "[hypervisor.stratovirt]\ndefault_maxmemory = 8192\n[runtime]\n", KATA_RUNTIME_RS, "",
            "it can grow to 8192 MiB");
  /* The Go shim boots default_memory under 256 MiB at 2048. */
  kata_row ("Go: default_memory 128 boots 2048", NULL, NULL,
            "[hypervisor.firecracker]\ndefault_memory = 128\n", KATA_RUNTIME_GO, "",
            "2304 MiB (default_memory under 256: Kata's 2048 + limit 256 MiB)");
}

/* The sizing annotations Kata applies (issue 35): default_memory,
   default_vcpus and default_max_vcpus, where enable_annotations matches
   them, and only where the VM is made. */
static void
sizing_row (const char *name, const char *ann, const char *kata, enum kata_runtime rt,
            const char *fails, const char *needle)
{
  static const char policy[] = "annotations = [\"io\\\\.katacontainers\\\\.config\\\\."
                               "hypervisor\\\\.default_.*\"]";
  struct kata_config k = { 0 };
  cleanup_free char *top = NULL, *spec = NULL;

  if (asprintf (&top, "\"annotations\": {%s}", ann) < 0)
    abort ();
  spec = spec_of (NULL, NULL, NULL, NULL, top);
  load_kata_as (&k, NULL, kata, rt);
  run_expect (spec, ID_A, policy, &k, name, fails, "policy.resources", needle);
  toml_free (k.doc);
}

static void
test_sizing_annotations (void)
{
#define ANN(key, v) "\"io.katacontainers.config.hypervisor." key "\": \"" v "\""
  static const char fc_on[]
      = "[hypervisor.firecracker]\n"
        "enable_annotations = [\"default_memory\", \"default_vcpus\", \"default_max_vcpus\"]\n";
  static const char fc_off[]
      = "[hypervisor.firecracker]\nenable_annotations = [\"kernel_params\"]\n";
  static const char qemu_on[]
      = "[hypervisor.qemu]\ndefault_maxmemory = 8192\ndefault_maxvcpus = 1\n"
        "enable_annotations = [\"default_.*\"]\n";

  sizing_row ("default_memory 65536, enabled: the VM Kata builds", ANN ("default_memory", "65536"),
              fc_on, KATA_RUNTIME_GO, "policy.resources",
              "the VM would have 65792 MiB (the default_memory annotation 65536 + limit 256 "
              "MiB), more than [policy] max_vm_memory_mib (16384 MiB)");
  sizing_row ("default_memory 4096, enabled", ANN ("default_memory", "4096"), fc_on,
              KATA_RUNTIME_GO, "", "4352 MiB (the default_memory annotation 4096 + limit 256 MiB)");
  sizing_row ("default_memory, not enabled: Kata's own size", ANN ("default_memory", "65536"),
              fc_off, KATA_RUNTIME_GO, "", "2304 MiB (default_memory 2048 + limit 256 MiB)");
  /* Go's regexp and runtime-rs's regex end the class at its first ']':
     the second alternative enables default_memory; glibc reads one
     bracket expression (issue 46).  Refused, for either runtime. */
  sizing_row ("default_memory enabled past a collating element", ANN ("default_memory", "65536"),
              "[hypervisor.firecracker]\n"
              "enable_annotations = [\"[[.].]|default_memory|[.].]]zzz\"]\n",
              KATA_RUNTIME_GO, "policy.resources",
              "io.katacontainers.config.hypervisor.default_memory: cannot tell whether Kata "
              "applies it");
  sizing_row ("runtime-rs: default_memory enabled past a collating element",
              ANN ("default_memory", "65536"),
              "[hypervisor.firecracker]\n"
              "enable_annotations = [\"[[.].]|default_memory|[.].]]zzz\"]\n",
              KATA_RUNTIME_RS, "policy.resources", "cannot tell whether Kata applies it");
  /* The same behind the shim (containerd's namespace) and in OCI mode:
     the verdict is the configuration's, whatever the mode. */
  for (int m = 0; m < 2; m++)
    {
      run_mode = m == 0 ? KG_MODE_SHIM : KG_MODE_OCI;
      run_ns = m == 0 ? "default" : NULL;
      sizing_row (m == 0 ? "shim: default_memory enabled past a collating element"
                         : "OCI: default_memory enabled past a collating element",
                  ANN ("default_memory", "65536"),
                  "[hypervisor.firecracker]\n"
                  "enable_annotations = [\"[[.].]|default_memory|[.].]]zzz\"]\n",
                  KATA_RUNTIME_GO, "policy.resources", "cannot tell whether Kata applies it");
    }
  run_mode = KG_MODE_CHECK;
  run_ns = NULL;
  sizing_row ("default_memory 4GiB (runtime-rs reads units)", ANN ("default_memory", "4GiB"), fc_on,
              KATA_RUNTIME_RS, "policy.resources",
              "io.katacontainers.config.hypervisor.default_memory is \"4GiB\": Kata sizes the VM "
              "by it, and kata-guard reads only a plain number (of MiB)");
  sizing_row ("default_memory with a space", ANN ("default_memory", " 65536"), fc_on,
              KATA_RUNTIME_RS, "policy.resources", "reads only a plain number");
  sizing_row ("default_memory past 2^32", ANN ("default_memory", "4294967808"), fc_on,
              KATA_RUNTIME_GO, "policy.resources", "reads only a plain number");
  sizing_row ("default_vcpus 64, enabled", ANN ("default_vcpus", "64"), fc_on, KATA_RUNTIME_GO,
              "policy.resources",
              "the VM would have 65 vCPUs (the default_vcpus annotation 64 + 1 from quota 100000 "
              "/ period 100000), more than [policy] max_vcpus (32)");
  sizing_row ("default_vcpus 1.5, rounded up", ANN ("default_vcpus", "1.5"), fc_on, KATA_RUNTIME_GO,
              "", "3 vCPUs of at most 32 (the default_vcpus annotation 2 + 1");
  sizing_row ("default_vcpus 1e3", ANN ("default_vcpus", "1e3"), fc_on, KATA_RUNTIME_GO,
              "policy.resources", "reads only a plain number (of vCPUs)");
  sizing_row ("runtime-rs, default_memory 65536 with static sizing's defaults",
              ANN ("default_memory", "65536"),
              "[hypervisor.firecracker]\nenable_annotations = [\"default_memory\"]\n"
              "[runtime]\nstatic_sandbox_resource_mgmt = false\n",
              KATA_RUNTIME_RS, "policy.resources",
              "the VM would have 65792 MiB (runtime-rs hot-plug: the default_memory annotation "
              "65536 + limit 256 MiB)");
  if (get_nprocs_conf () > 1)
    sizing_row ("default_max_vcpus raises the ceiling", ANN ("default_max_vcpus", "2"), qemu_on,
                KATA_RUNTIME_GO, "",
                "it can grow to 8192 MiB ([hypervisor.qemu] hot-plugs memory up to "
                "default_maxmemory 8192) and 2 vCPUs ([hypervisor.qemu] hot-plugs vCPUs up to the "
                "default_max_vcpus annotation 2)");
  else
    printf ("# the default_max_vcpus row left out: this host has one CPU\n");
#undef ANN
}

/* egress.netns without namespaces of its own (tests/netns.test has the
   real ones). */
static void
network_row (const char *name, const char *spec, const char *policy, const char *fails,
             const char *needle)
{

  run_expect (spec, ID_A, policy, &kata_fc, name, fails, "egress.netns", needle);
}

/* Docker's hostconfig.json for -p 1-65535:1-65535 -p 1-65535:1-65535/udp,
   with network mode MODE after the bindings. */
static void
big_hostconfig (const char *path, const char *mode)
{
  FILE *f = fopen (path, "w");

  if (f == NULL)
    abort ();
  fputs ("{\"Binds\":null,\"PortBindings\":{", f);
  for (int proto = 0; proto < 2; proto++)
    for (int p = 1; p <= 65535; p++)
      fprintf (f, "%s\"%d/%s\":[{\"HostIp\":\"\",\"HostPort\":\"%d\"}]",
               proto == 0 && p == 1 ? "" : ",", p, proto ? "udp" : "tcp", p);
  fprintf (f, "},\"NetworkMode\":\"%s\",\"Privileged\":false}", mode);
  if (fclose (f) != 0)
    abort ();
}

static void
test_network (void)
{
  static const char setkey[]
      = "\"hooks\": {\"prestart\": [{\"path\": \"/usr/sbin/dockerd\", \"args\": "
        "[\"libnetwork-setkey\", \"-exec-root=/var/run/docker\", \"" ID_A "\", "
        "\"a34fcd8d16bd\"]}]}";
  cleanup_free char *root = NULL, *dir = NULL, *hc = NULL, *policy = NULL, *file = NULL;
  cleanup_free char *notns = NULL;
  char *spec;

  run_egress = "proxy = \"127.0.0.1:1\"\ntimeout_ms = 200";
  spec = spec_of (NULL, NULL, NULL, NULL, NULL);
  network_row ("a new network namespace", spec, NULL, "", "a new network namespace, loopback only");
  free (spec);
  spec = replace (spec_of (NULL, NULL, NULL, NULL, NULL), "{\"type\": \"network\"}, ", "");
  network_row ("no network namespace", spec, "host_namespaces = true", "egress.netns",
               "no network namespace: the container would have the host's network");
  free (spec);
  /* Docker's network hook: what the container gets is in hostconfig.json. */
  if (asprintf (&root, "%s/dockerroot", tmpdir) < 0
      || asprintf (&dir, "%s/containers/%s", root, ID_A) < 0
      || asprintf (&hc, "%s/hostconfig.json", dir) < 0
      || asprintf (&policy, "engine_roots = [\"%s\"]", root) < 0)
    abort ();
  {
    cleanup_free char *cmd = NULL;

    if (asprintf (&cmd, "mkdir -p '%s'", dir) < 0 || system (cmd) != 0)
      abort ();
  }
  test_write_text (hc, "{\"NetworkMode\": \"none\", \"Privileged\": false}");
  spec = spec_of (NULL, NULL, NULL, NULL, setkey);
  network_row ("Docker --network none", spec, policy, "", "loopback only (Docker --network none)");
  test_write_text (hc, "{\"NetworkMode\": \"kgnet\"}");
  network_row ("a Docker network attached after create", spec, policy, "egress.netns",
               "Docker attaches network \"kgnet\" after the guard looked");
  /* docker create -p 1-65535:1-65535 -p 1-65535:1-65535/udp: 7.5 MB of
     port bindings before the mode, read whole. */
  big_hostconfig (hc, "none");
  network_row ("a 7.5 MB hostconfig.json, --network none", spec, policy, "",
               "loopback only (Docker --network none)");
  big_hostconfig (hc, "kgnet");
  network_row ("a 7.5 MB hostconfig.json, a Docker network", spec, policy, "egress.netns",
               "Docker attaches network \"kgnet\" after the guard looked");
  test_write_text (hc, "{\"NetworkMode\": \"n\\u006fne\"}");
  network_row ("a network mode written with an escape", spec, policy, "egress.netns",
               "written with escapes");
  test_write_text (hc, "{\"NetworkMode\": \"none\", \"NetworkMode\": \"kgnet\"}");
  network_row ("the network mode twice", spec, policy, "egress.netns", "has its key twice");
  test_write_text (hc, "{\"NetworkMode\": \"none\"");
  network_row ("a truncated hostconfig.json", spec, policy, "egress.netns", "is not JSON");
  test_write_text (hc, "{\"NetworkMode\": \"kgnet\"}");
  /* Docker 28: a namespace of Docker's own, named by path, loopback only
     at create; hostconfig.json still says what comes. */
  {
    char *joined = replace (spec_of (NULL, NULL, NULL, NULL, NULL), "{\"type\": \"network\"}, ",
                            "{\"type\": \"network\", \"path\": \"/proc/self/ns/net\"}, ");

    run_ns = "moby";
    network_row ("a Docker network, named by a namespace path", joined, policy,
                 "policy.namespaces egress.netns",
                 "Docker attaches network \"kgnet\" after the guard looked");
    /* Docker's namespace without Docker's hostconfig.json: not judged
       by the namespace alone. */
    network_row ("Docker's namespace, a namespace path, no hostconfig.json", joined,
                 "engine_roots = [\"/nonexistent\"]", "policy.namespaces egress.netns",
                 "a start of Docker's whose network cannot be told");
    run_ns = NULL;
    free (joined);
  }
  unlink (hc);
  network_row ("Docker's hook, no hostconfig.json", spec, policy, "egress.netns",
               "a start of Docker's whose network cannot be told: no containers/" ID_A
               "/hostconfig.json under [policy] engine_roots");
  free (spec);
  /* A path that is no namespace is not opened for real: a plain file of
     root's in a trusted path, which every host has (one the rows made
     would not be trusted without root). */
  if ((file = strdup ("/etc/passwd")) == NULL
      || asprintf (&notns, "{\"type\": \"network\", \"path\": \"%s\"}, ", file) < 0)
    abort ();
  spec = replace (spec_of (NULL, NULL, NULL, NULL, NULL), "{\"type\": \"network\"}, ", notns);
  network_row ("a network namespace path that is a plain file", spec, NULL, "egress.netns",
               "cannot read the namespace: Wrong medium type");
  free (spec);
  run_egress = NULL;
}

/* linux.cgroupsPath, applied on the host by every runtime (issue 51):
   Kata's Go runtime puts the VMM's threads in it (virtcontainers/sandbox.go
   createResourceController), runtime-rs uses it as written less the
   leading '/' (resource/src/cgroups/mod.rs CgroupConfig::new), runc makes
   it the container's cgroup.  The guard did not read it. */
static void
cgroups_row (const char *name, const char *path, const char *policy, const char *needle)
{
  cleanup_free char *more = NULL, *spec = NULL;

  if (asprintf (&more, "\"cgroupsPath\": \"%s\"", path) < 0)
    abort ();
  spec = spec_of (NULL, NULL, NULL, more, NULL);
  run_expect (spec, ID_A, policy, &kata_fc, name, *needle ? "policy.resources" : "",
              "policy.resources", *needle ? needle : "the VM:");
}

static void
test_cgroups_path (void)
{
  cgroups_row ("Docker's cgroupfs form", "/docker/" ID_A, NULL, "");
  cgroups_row ("Docker's systemd form", "system.slice:docker:" ID_A, NULL, "");
  cgroups_row ("CRI's cgroupfs form", "/kubepods/burstable/pod1234/" ID_A, NULL, "");
  cgroups_row ("CRI's systemd form", "kubepods-burstable-pod1234.slice:cri-containerd:" ID_A, NULL,
               "");
  cgroups_row ("CRI-O's cgroupfs form", "/kubepods/besteffort/pod1/crio-" ID_A, NULL, "");
  cgroups_row ("podman's cgroupfs form", "/libpod_parent/libpod-" ID_A, NULL, "");
  cgroups_row ("podman's pod slice", "machine-libpod_pod_12.slice:libpod:" ID_A, NULL, "");
  cgroups_row ("the root cgroup", "/", NULL,
               "linux.cgroupsPath \"/\" is not a clean absolute path");
  cgroups_row ("directly below the root", "/" ID_A, NULL,
               "is below none of [policy] cgroup_parents");
  cgroups_row ("another container's cgroup", "/docker/" ID_B, NULL,
               "does not end with the container's id");
  cgroups_row ("inside another container's cgroup", "/docker/" ID_B "/x", NULL,
               "does not end with the container's id");
  cgroups_row ("the parent itself", "/docker", NULL, "is below none of [policy] cgroup_parents");
  cgroups_row ("out through ..", "/docker/../system.slice/" ID_A, NULL,
               "is not a clean absolute path");
  cgroups_row ("a doubled slash", "/docker//" ID_A, NULL, "is not a clean absolute path");
  cgroups_row ("a relative path (runc: below its own cgroup)", "docker/" ID_A, NULL,
               "is not a clean absolute path");
  cgroups_row ("a prefix that is no parent", "/dockerx/" ID_A, NULL,
               "is below none of [policy] cgroup_parents");
  /* systemd's names: "system-x.slice" is below system.slice,
     "systemx.slice" is not. */
  cgroups_row ("a slice below system.slice", "system-x.slice:docker:" ID_A, NULL, "");
  cgroups_row ("a slice named like a parent", "systemx.slice:docker:" ID_A, NULL,
               "is below none of [policy] cgroup_parents");
  cgroups_row ("the root slice", "-.slice:docker:" ID_A, NULL, "is neither a systemd");
  cgroups_row ("user.slice", "user.slice:x:" ID_A, NULL,
               "is below none of [policy] cgroup_parents");
  cgroups_row ("systemd's form with a slash", "system.slice:docker:../" ID_A, NULL,
               "is neither a systemd");
  cgroups_row ("four parts", "system.slice:docker:x:" ID_A, NULL, "is neither a systemd");
  cgroups_row ("another container's scope", "system.slice:docker:" ID_B, NULL,
               "does not end with the container's id");
  cgroups_row ("an operator's parent", "/sandboxes/" ID_A, "cgroup_parents = [\"/sandboxes\"]", "");
  cgroups_row ("Docker's parent no longer listed", "/docker/" ID_A,
               "cgroup_parents = [\"/sandboxes\"]", "is below none of [policy] cgroup_parents");
  {
    cleanup_free char *spec = spec_of (NULL, NULL, NULL, "\"cgroupsPath\": 7", NULL);

    run_expect (spec, ID_A, NULL, &kata_fc, "a cgroupsPath that is no string", "policy.resources",
                "policy.resources", "linux.cgroupsPath is an integer, not a string");
  }
}

/* Issue 47: a remedy names the first thing to change, never a condition
   already met.  A container with a memory limit whose VM can grow to the
   whole host (Kata 4.1.0's shipped Go QEMU file: default_maxmemory = 0)
   is not asked for a memory limit: it is told the Kata file, the key and
   a value that fits [policy]; that value, applied, passes. */
static void
test_remedies (void)
{
  struct kata_config k = { 0 };
  struct report rep;
  cleanup_free char *shipped = NULL, *fixed = NULL, *path = NULL;
  cleanup_free char *limit512 = spec_of (NULL, NULL, "\"memory\": {\"limit\": 536870912}", NULL,
                                         NULL);
  cleanup_free char *big = spec_of (NULL, NULL, "\"memory\": {\"limit\": 21474836480}", NULL, NULL);
  const char *remedy, *at;
  long long value = -1;
  char want[64];

  if (asprintf (&path, "%s/kata/4.1.0/go/configuration-qemu.toml", fixtures) < 0)
    abort ();
  shipped = read_text (path);
  load_kata_as (&k, path, NULL, KATA_RUNTIME_GO);
  snprintf (k.last_file, sizeof k.last_file, "%s", path);
  run_policy (limit512, ID_A, NULL, &k, &rep, NULL);
  expect (&rep, "4.1.0 Go QEMU, --memory 512m", "policy.resources", "policy.resources",
          "the VM can grow to all of this host's memory");
  expect_remedy (&rep, "4.1.0 Go QEMU, --memory 512m", "policy.resources",
                 "set default_maxmemory = ", "give the container a memory limit");
  expect_remedy (&rep, "4.1.0 Go QEMU: the file", "policy.resources", path, NULL);
  expect_remedy (&rep, "4.1.0 Go QEMU: the bound", "policy.resources",
                 "policy.resources allows at most 16384 MiB per VM", NULL);
  remedy = report_find (&rep, "policy.resources") ? report_find (&rep, "policy.resources")->remedy
                                                  : NULL;
  at = remedy ? strstr (remedy, "default_maxmemory = ") : NULL;
  if (at != NULL)
    value = strtoll (at + strlen ("default_maxmemory = "), NULL, 10);
  ok (value >= 2560 && value <= 16384,
      "the value fits the VM (2560 MiB) and [policy] (16384 MiB): %lld", value);
  report_release (&rep);
  toml_free (k.doc);
  /* The remedy, followed literally. */
  snprintf (want, sizeof want, "default_maxmemory = %lld", value);
  fixed = replace (strdup (shipped), "default_maxmemory = 0", want);
  memset (&k, 0, sizeof k);
  load_kata_as (&k, NULL, fixed, KATA_RUNTIME_GO);
  run_policy (limit512, ID_A, NULL, &k, &rep, NULL);
  expect (&rep, "4.1.0 Go QEMU, the remedy applied", "", "policy.resources", "2560 MiB");
  report_release (&rep);
  toml_free (k.doc);
  /* A limit over the bound and a ceiling of the whole host: the limit
     first (with the most that fits), then the ceiling. */
  memset (&k, 0, sizeof k);
  load_kata_as (&k, NULL, shipped, KATA_RUNTIME_GO);
  run_policy (big, ID_A, NULL, &k, &rep, NULL);
  expect_remedy (&rep, "a 20 GiB limit", "policy.resources",
                 "give the container a memory limit (linux.resources.memory.limit) of at most "
                 "14336 MiB",
                 "--cpus");
  report_release (&rep);
  /* No vCPU ceiling asked of a host whose CPUs fit; one that does not
     is told default_maxvcpus. */
  if (get_nprocs_conf () > 1)
    {
      run_policy (limit512, ID_A, "max_vcpus = 1", &k, &rep, NULL);
      expect_remedy (&rep, "default_maxvcpus 0 past max_vcpus 1", "policy.resources",
                     "set default_maxvcpus = 1 in the Kata configuration ([hypervisor.qemu]; "
                     "policy.resources allows at most 1 vCPUs per VM)",
                     "CPU limit");
      report_release (&rep);
    }
  toml_free (k.doc);
}

/* The runtime default_row's Kata configuration is read as. */
static enum kata_runtime default_rt = KATA_RUNTIME_GO;

/* policy.default_start: check (no bundle) judges the default container
   through every rule, with [policy] POLICY and the Kata configuration
   FILE (a fixture) or TEXT. */
static void
default_row (const char *name, const char *policy, const char *file, const char *text,
             const char *verdict, const char *needle, const char *remedy)
{
  struct kata_config k = { 0 };
  struct report rep;
  cleanup_free char *path = NULL;
  const struct check_result *r;

  if (file != NULL && asprintf (&path, "%s/kata/%s", fixtures, file) < 0)
    abort ();
  load_kata_as (&k, path, text, default_rt);
  run_without_bundle = true;
  run_policy (NULL, NULL, policy, &k, &rep, NULL);
  run_without_bundle = false;
  r = report_find (&rep, "policy.default_start");
  is_int (rep.n, 1, "%s: one line, policy.default_start", name);
  is_str (r ? verdict_name (r->verdict) : "none", verdict, "%s: %s", name, verdict);
  has_str (r ? r->reason : NULL, needle, "%s: the reason names \"%s\"", name, needle);
  if (remedy != NULL)
    has_str (r && r->remedy ? r->remedy : "", remedy, "%s: the remedy names \"%s\"", name, remedy);
  report_release (&rep);
  toml_free (k.doc);
}

static void
test_default_start (void)
{
  default_row ("4.1.0 Go QEMU as shipped", NULL, "4.1.0/go/configuration-qemu.toml", NULL, "fail",
               "every start would be refused: a default container (a memory limit of 6 MiB, the "
               "engines' defaults) fails policy.resources: the VM can grow to all of this host's "
               "memory",
               "set default_maxmemory = ");
  default_row ("4.1.0 Go QEMU, max_vm_memory_mib 4096", "max_vm_memory_mib = 4096",
               "4.1.0/go/configuration-qemu.toml", NULL, "fail", "policy.resources",
               "set default_maxmemory = 4096 in the Kata configuration ([hypervisor.qemu]; "
               "policy.resources allows at most 4096 MiB per VM)");
  default_row ("4.1.0 Go QEMU, default_maxmemory 4096", "max_vm_memory_mib = 16384", NULL,
               "[hypervisor.qemu]\ndefault_maxmemory = 4096\n", "pass",
               "a default container (a memory limit of 6 MiB, the engines' defaults) passes every "
               "policy rule and fits policy.capacity",
               NULL);
  default_row ("4.1.0 Go Firecracker as shipped", NULL, "4.1.0/go/configuration-fc.toml", NULL,
               "pass", "passes every policy rule", NULL);
  default_row ("no memory limit required: none asked", "require_memory_limit = false", NULL,
               "[hypervisor.firecracker]\n", "pass", "(the engines' defaults)", NULL);
  /* default_memory alone over the bound: no container fits. */
  default_row ("default_memory over max_vm_memory_mib", "max_vm_memory_mib = 1024", NULL,
               "[hypervisor.firecracker]\ndefault_memory = 2048\n", "fail",
               "the VM would have 2054 MiB",
               "set default_memory to less than 1024 in the Kata configuration");
  /* One VM at its ceiling past what all VMs may commit: policy.capacity
     would refuse every start. */
  default_row ("a ceiling past max_committed_memory_mib",
               "max_vm_memory_mib = 16384\nmax_committed_memory_mib = 4096", NULL,
               "[hypervisor.qemu]\ndefault_maxmemory = 8192\n", "fail",
               "policy.capacity: one VM alone can grow to 8192 MiB, more than [policy] "
               "max_committed_memory_mib (4096 MiB)",
               "default_maxmemory) to at most 4096 MiB");
  /* A profile the engines' default would carry, never applied: Kata
     3.30.0 ships disable_guest_seccomp = true. */
  default_row ("require_seccomp with 3.30.0's disable_guest_seccomp", "require_seccomp = true",
               "3.30.0/configuration-fc.toml", NULL, "fail",
               "policy.seccomp: the Kata configuration says disable_guest_seccomp = true",
               "disable_guest_seccomp = false");
  /* Audit mode lets an in-VM rule through: not every start refused. */
  default_row ("the same in audit mode", "require_seccomp = true\nmode = \"audit\"",
               "3.30.0/configuration-fc.toml", NULL, "pass", "passes every policy rule", NULL);
  /* A policy narrower than the engines' defaults refuses their default
     container. */
  /* runtime-rs: as shipped, static sizing (never resized); without it,
     QEMU grows to default_maxmemory 0, the whole host. */
  default_rt = KATA_RUNTIME_RS;
  default_row ("4.1.0 runtime-rs QEMU as shipped", NULL,
               "4.1.0/runtime-rs/configuration-qemu-runtime-rs.toml", NULL, "pass",
               "passes every policy rule", NULL);
  default_row ("runtime-rs QEMU without static sizing", NULL, NULL,
               "[hypervisor.qemu]\ndefault_maxmemory = 0\n[runtime]\n"
               "static_sandbox_resource_mgmt = false\n",
               "fail", "policy.resources: the VM can grow to all of this host's memory",
               "set default_maxmemory = ");
  default_rt = KATA_RUNTIME_GO;
  default_row ("capabilities narrower than the engines'", "capabilities = [\"CAP_CHOWN\"]", NULL,
               "[hypervisor.firecracker]\n", "fail", "policy.capabilities", NULL);
}

/* SPEC with PROCESS (members) added to process and LINUX to linux. */
static char *
process_spec (const char *process, const char *res, const char *linux_more)
{
  char *spec = spec_of (NULL, NULL, res, linux_more, NULL);
  cleanup_free char *args = NULL;

  if (process == NULL)
    return spec;
  if (asprintf (&args, "\"args\": [\"/bin/true\"], %s", process) < 0)
    abort ();
  return replace (spec, "\"args\": [\"/bin/true\"]", args);
}

static void
limits_row (enum kg_mode mode, const char *name, const char *process, const char *res,
            const char *linux_more, const char *policy, const char *fails, const char *item,
            const char *needle)
{
  cleanup_free char *spec = process_spec (process, res, linux_more);

  run_mode = mode;
  run_expect (spec, ID_A, policy, &kata_fc, name, fails, item, needle);
  run_mode = KG_MODE_CHECK;
}

#define LIMITS "\"memory\": {\"limit\": 268435456}, \"cpu\": {\"quota\": 100000, \"period\": 100000"

/* What a runc-style runtime applies to the process on the host (OCI
   mode: runc's init_linux.go setupRlimits, setOomScoreAdj; intelrdt),
   and the cpuset in every mode (Kata Go: sandbox.go, pkg/cpuset Parse). */
/* Every CPU and memory node online: what the rows not about it run with. */
static struct engine_ns every_cpu;

static void
test_host_limits (void)
{
  struct engine_ns e = { 0 };

  engine_ns_gather (&e);
  memset (e.online, 0, sizeof e.online);
  cpuset_parse ("0-3", e.online[0]);
  cpuset_parse ("0", e.online[1]);
  e.online_err[0] = e.online_err[1] = 0;
  e.rlim_ok[RLIMIT_NOFILE] = e.rlim_ok[RLIMIT_RTPRIO] = e.rlim_ok[RLIMIT_MEMLOCK] = true;
  e.rlim_max[RLIMIT_NOFILE] = 1048576;
  e.rlim_max[RLIMIT_RTPRIO] = 0;
  e.rlim_max[RLIMIT_MEMLOCK] = 8388608;
  e.rlim_ok[RLIMIT_NPROC] = false;
  run_engine_ns = &e;
  /* docker run --oom-score-adj -1000: never the host's OOM killer's pick. */
  limits_row (KG_MODE_OCI, "oomScoreAdj -1000", "\"oomScoreAdj\": -1000", NULL, NULL, NULL,
              "policy.resources", "policy.resources",
              "process.oomScoreAdj -1000 is below [policy] min_oom_score_adj (-998): the host's "
              "OOM killer would never pick it");
  limits_row (KG_MODE_OCI, "oomScoreAdj -999", "\"oomScoreAdj\": -999", NULL, NULL, NULL,
              "policy.resources", "policy.resources", "-999 is below");
  /* CRI's pod sandbox (-998), a Guaranteed pod (-997), BestEffort (1000). */
  limits_row (KG_MODE_OCI, "CRI's sandbox -998", "\"oomScoreAdj\": -998", NULL, NULL, NULL, "",
              "policy.resources", "the VM");
  limits_row (KG_MODE_OCI, "Guaranteed -997", "\"oomScoreAdj\": -997", NULL, NULL, NULL, "",
              "policy.resources", "the VM");
  limits_row (KG_MODE_OCI, "BestEffort 1000", "\"oomScoreAdj\": 1000", NULL, NULL, NULL, "",
              "policy.resources", "the VM");
  limits_row (KG_MODE_OCI, "oomScoreAdj 1001", "\"oomScoreAdj\": 1001", NULL, NULL, NULL,
              "policy.resources", "policy.resources", "outside -1000 .. 1000");
  limits_row (KG_MODE_OCI, "oomScoreAdj -1000.0", "\"oomScoreAdj\": -1000.0", NULL, NULL, NULL,
              "policy.resources", "policy.resources", "not an integer");
  limits_row (KG_MODE_OCI, "oomScoreAdj as a string", "\"oomScoreAdj\": \"-1000\"", NULL, NULL,
              NULL, "policy.resources", "policy.resources", "not an integer");
  limits_row (KG_MODE_OCI, "OOMScoreAdj in another case", "\"OOMScoreAdj\": -1000", NULL, NULL,
              NULL, "policy.spec", "policy.spec", "Go's decoders");
  limits_row (KG_MODE_OCI, "-1000 allowed", "\"oomScoreAdj\": -1000", NULL, NULL,
              "min_oom_score_adj = -1000", "", "policy.resources", "the VM");
  /* Kata sends it to the agent only. */
  limits_row (KG_MODE_SHIM, "shim mode: -1000 is the guest's", "\"oomScoreAdj\": -1000", NULL, NULL,
              NULL, "", "policy.resources", "the VM");
  /* docker run --ulimit. */
  limits_row (KG_MODE_OCI, "containerd's NOFILE 1024",
              "\"rlimits\": [{\"type\": \"RLIMIT_NOFILE\", \"hard\": 1024, \"soft\": 1024}]", NULL,
              NULL, NULL, "", "policy.resources", "the VM");
  limits_row (KG_MODE_OCI, "podman's NOFILE 1048576",
              "\"rlimits\": [{\"type\": \"RLIMIT_NOFILE\", \"hard\": 1048576, \"soft\": "
              "1048576}]",
              NULL, NULL, NULL, "", "policy.resources", "the VM");
  limits_row (KG_MODE_OCI, "NOFILE above the engine's",
              "\"rlimits\": [{\"type\": \"RLIMIT_NOFILE\", \"hard\": 1048577, \"soft\": 1024}]",
              NULL, NULL, NULL, "policy.resources", "policy.resources",
              "RLIMIT_NOFILE 1048577 is above the engine's own hard limit (1048576)");
  limits_row (KG_MODE_OCI, "MEMLOCK unlimited",
              "\"rlimits\": [{\"type\": \"RLIMIT_MEMLOCK\", \"hard\": 18446744073709551615, "
              "\"soft\": 18446744073709551615}]",
              NULL, NULL, NULL, "policy.resources", "policy.resources",
              "RLIMIT_MEMLOCK unlimited is above the engine's own hard limit (8388608)");
  limits_row (KG_MODE_OCI, "RTPRIO 99",
              "\"rlimits\": [{\"type\": \"RLIMIT_RTPRIO\", \"hard\": 99, \"soft\": 99}]", NULL,
              NULL, NULL, "policy.resources", "policy.resources",
              "RLIMIT_RTPRIO 99 is above the engine's own hard limit (0)");
  limits_row (KG_MODE_OCI, "soft above the engine's",
              "\"rlimits\": [{\"type\": \"RLIMIT_RTPRIO\", \"hard\": 0, \"soft\": 1}]", NULL, NULL,
              NULL, "policy.resources", "policy.resources", "RLIMIT_RTPRIO 1 is above");
  limits_row (KG_MODE_OCI, "a limit the engine's own cannot be read of",
              "\"rlimits\": [{\"type\": \"RLIMIT_NPROC\", \"hard\": 1, \"soft\": 1}]", NULL, NULL,
              NULL, "policy.resources", "policy.resources", "cannot be read");
  limits_row (KG_MODE_OCI, "an rlimit in lower case",
              "\"rlimits\": [{\"type\": \"rlimit_rtprio\", \"hard\": 99, \"soft\": 99}]", NULL,
              NULL, NULL, "policy.resources", "policy.resources", "not a resource runc names");
  limits_row (KG_MODE_OCI, "a negative rlimit",
              "\"rlimits\": [{\"type\": \"RLIMIT_NOFILE\", \"hard\": -1, \"soft\": 1}]", NULL, NULL,
              NULL, "policy.resources", "policy.resources", "not both integers");
  limits_row (KG_MODE_OCI, "an rlimit without soft",
              "\"rlimits\": [{\"type\": \"RLIMIT_NOFILE\", \"hard\": 1}]", NULL, NULL, NULL,
              "policy.resources", "policy.resources", "not both integers");
  limits_row (KG_MODE_OCI, "the second of two",
              "\"rlimits\": [{\"type\": \"RLIMIT_NOFILE\", \"hard\": 1, \"soft\": 1}, "
              "{\"type\": \"RLIMIT_NOFILE\", \"hard\": 2097152, \"soft\": 1}]",
              NULL, NULL, NULL, "policy.resources", "policy.resources", "RLIMIT_NOFILE 2097152");
  limits_row (KG_MODE_SHIM, "shim mode: rlimits are the guest's",
              "\"rlimits\": [{\"type\": \"RLIMIT_RTPRIO\", \"hard\": 99, \"soft\": 99}]", NULL,
              NULL, NULL, "", "policy.resources", "the VM");
  /* A resctrl group of the host. */
  limits_row (KG_MODE_OCI, "intelRdt", NULL, NULL, "\"intelRdt\": {\"closID\": \"guaranteed\"}",
              NULL, "policy.resources", "policy.resources", "linux.intelRdt");
  limits_row (KG_MODE_OCI, "intelRdt allowed", NULL, NULL,
              "\"intelRdt\": {\"closID\": \"guaranteed\"}", "intel_rdt = true", "",
              "policy.resources", "the VM");
  limits_row (KG_MODE_SHIM, "shim mode: intelRdt is the guest's", NULL, NULL,
              "\"intelRdt\": {\"closID\": \"guaranteed\"}", NULL, "", "policy.resources", "the VM");
  /* The cpuset, in every mode. */
  limits_row (KG_MODE_SHIM, "cpus 0", NULL, LIMITS ", \"cpus\": \"0\", \"mems\": \"0\"}", NULL,
              NULL, "", "policy.resources", "the VM");
  limits_row (KG_MODE_OCI, "cpus empty", NULL, LIMITS ", \"cpus\": \"\", \"mems\": \"\"}", NULL,
              NULL, "", "policy.resources", "the VM");
  {
    static const char *const bad[] = { "+0", "0-0-0",   "1-0", "0,",  ",0",
                                       "0 ", "0-1:1/2", "-1",  "0x1", "4096" };

    for (size_t i = 0; i < ARRAY_SIZE (bad); i++)
      {
        cleanup_free char *res = NULL, *name = NULL;

        if (asprintf (&res, LIMITS ", \"cpus\": \"%s\"}", bad[i]) < 0
            || asprintf (&name, "cpus \"%s\"", bad[i]) < 0)
          abort ();
        limits_row (KG_MODE_SHIM, name, NULL, res, NULL, NULL, "policy.resources",
                    "policy.resources", "is not a list every reader takes alike");
      }
  }
  limits_row (KG_MODE_SHIM, "cpus as a number", NULL, LIMITS ", \"cpus\": 0}", NULL, NULL,
              "policy.resources", "policy.resources", "is not a list every reader takes alike");
  limits_row (KG_MODE_OCI, "mems \"0-1,x\"", NULL, LIMITS ", \"mems\": \"0-1,x\"}", NULL, NULL,
              "policy.resources", "policy.resources", "cpu.mems");
  limits_row (KG_MODE_SHIM, "a CPU the host has not", NULL, LIMITS ", \"cpus\": \"0-4\"}", NULL,
              NULL, "policy.resources", "policy.resources",
              "linux.resources.cpu.cpus 0-4 names CPU 4, not online on this host");
  limits_row (KG_MODE_OCI, "a memory node the host has not", NULL, LIMITS ", \"mems\": \"0,1\"}",
              NULL, NULL, "policy.resources", "policy.resources",
              "names memory node 1, not online");
  run_engine_ns = &every_cpu;
}

int
main (void)
{
  policy_test_start ();
  /* Sizing rows name CPUs this host may not have online. */
  engine_ns_gather (&every_cpu);
  memset (every_cpu.online, 0xff, sizeof every_cpu.online);
  every_cpu.online_err[0] = every_cpu.online_err[1] = 0;
  run_engine_ns = &every_cpu;
  test_resources ();
  test_resources_runtimes ();
  test_ceiling ();
  test_remedies ();
  test_default_start ();
  test_sizing_annotations ();
  test_network ();
  test_cgroups_path ();
  test_host_limits ();
  return policy_test_end ();
}
