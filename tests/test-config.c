/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The guard configuration: every key round-trips, every mistake is named. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "conf.h"
#include "tap.h"
#include "util.h"

static char tmpdir[] = "/tmp/kg-test-config.XXXXXX";

static char *
write_file (const char *name, const char *text)
{
  char *path;
  FILE *f;

  if (asprintf (&path, "%s/%s", tmpdir, name) < 0)
    abort ();
  f = fopen (path, "w");
  if (f == NULL)
    abort ();
  fputs (text, f);
  fclose (f);
  return path;
}

/* Load TEXT; return the error message (caller frees) or NULL on success. */
static char *
load_error (const char *text, struct guard_config *out)
{
  cleanup_free char *path = write_file ("config.toml", text);
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
                          "[kvm]\n"
                          "device = \"/dev/kvm2\"\n"
                          "create_vm = false\n"
                          "[kata]\n"
                          "config = \"/etc/kata-containers/configuration-fc.toml\"\n"
                          "hypervisors = [\"firecracker\", \"qemu\", \"clh\"]\n"
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
                          "file = \"/var/log/kata-guard.json\"\n",
                          &cfg);

  if (! ok (msg == NULL, "a config with every key loads"))
    {
      printf ("# %s\n", msg);
      free (msg);
      return;
    }
  is_str (cfg.runtime.shim, "/usr/local/bin/containerd-shim-kata-v2", "runtime.shim");
  is_str (cfg.runtime.oci, "/usr/bin/kata-runtime", "runtime.oci");
  is_str (cfg.kvm.device, "/dev/kvm2", "kvm.device");
  ok (cfg.kvm.create_vm == false, "kvm.create_vm");
  is_str (cfg.kata.config, "/etc/kata-containers/configuration-fc.toml", "kata.config");
  is_int (cfg.kata.n_hypervisors, 3, "kata.hypervisors count");
  is_str (cfg.kata.hypervisors[2], "clh", "kata.hypervisors[2]");
  ok (cfg.kata.hypervisors[3] == NULL, "kata.hypervisors is NULL-terminated");
  ok (cfg.egress.enabled == false, "egress.enabled");
  is_str (cfg.egress.proxy, "127.0.0.1:3128", "egress.proxy");
  is_int (cfg.egress.timeout_ms, 250, "egress.timeout_ms");
  is_str (cfg.egress.probe_host, "denied.example", "egress.probe_host");
  is_int (cfg.egress.expect_status, 407, "egress.expect_status");
  ok (cfg.log.syslog == false, "log.syslog");
  is_str (cfg.log.file, "/var/log/kata-guard.json", "log.file");
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
  is_str (cfg.kvm.device, "/dev/kvm", "default kvm.device");
  ok (cfg.kvm.create_vm, "default kvm.create_vm is true");
  is_str (cfg.kata.config, "", "default kata.config is empty");
  ok (cfg.kata.n_hypervisors == 1 && strcmp (cfg.kata.hypervisors[0], "firecracker") == 0,
      "default kata.hypervisors is [firecracker]");
  ok (cfg.egress.enabled, "default egress.enabled is true");
  is_str (cfg.egress.proxy, "", "default egress.proxy is empty");
  is_int (cfg.egress.timeout_ms, 1000, "default egress.timeout_ms");
  is_str (cfg.egress.probe_host, "kata-guard-probe.invalid", "default egress.probe_host");
  is_int (cfg.egress.expect_status, 403, "default egress.expect_status");
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
  const char *want;  /* substring of the message, after "PATH:" */
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
  { "[egress]\nexpect_status = 200\n", "[egress] expect_status: 200 is out of range (300..599)" },
  { "[egress]\nexpect_status = 600\n", "[egress] expect_status: 600 is out of range" },
  { "[egress]\nprobe_host = \"a b\"\n", "[egress] probe_host: \"a b\" must be a DNS host name" },
  { "[egress]\nprobe_host = \"x\\r\\nHost: y\"\n", "[egress] probe_host: " },
  { "[egress]\nprobe_host = \"\"\n", "[egress] probe_host: \"\" must be a DNS host name" },
  { "[egress]\nenabled = 1\n", "[egress] enabled: expected a boolean, found integer" },
  { "[runtime]\nshim = \"containerd-shim-kata-v2\"\n", "[runtime] shim: \"containerd-shim-kata-v2\" must be an absolute path" },
  { "[runtime]\nshim = \"\"\n", "[runtime] shim: \"\" must not be empty" },
  { "[runtime]\noci = \"runc\"\n", "[runtime] oci: \"runc\" must be an absolute path" },
  { "[kvm]\ndevice = \"/dev/kvm\\n\"\n", "[kvm] device: " },
  { "[kata]\nhypervisors = [\"firecraker\"]\n", "[kata] hypervisors: \"firecraker\" is not a Kata hypervisor" },
  { "[kata]\nhypervisors = []\n", "[kata] hypervisors: must name at least one" },
  { "[kata]\nhypervisors = \"firecracker\"\n", "[kata] hypervisors: expected an array of strings, found string" },
  { "[kata]\nhypervisors = [\"qemu\", 1]\n", "[kata] hypervisors: item 2: expected a string, found integer" },
  { "[kata]\nconfig = \"etc/kata.toml\"\n", "[kata] config: \"etc/kata.toml\" must be an absolute path" },
  { "[log]\nsyslog = true\nsyslog = false\n", ":3:" },
  { "[log]\nsyslog = tru\n", ":2:" },
  { "[log.files]\npath = \"/x\"\n", "[log] files: unknown key" },
  { "[egress]\nproxy = \"proxy.internal:3128\"\n", "[egress] proxy: \"proxy.internal:3128\" must be a literal IPv4:port" },
  { "[egress]\nproxy = \"localhost:3128\"\n", "[egress] proxy: \"localhost:3128\" must be a literal" },
  { "[egress]\nproxy = \"127.0.0.1\"\n", "[egress] proxy: " },
  { "[egress]\nproxy = \"127.0.0.1:0\"\n", "[egress] proxy: " },
  { "[egress]\nproxy = \"127.0.0.1:65536\"\n", "[egress] proxy: " },
  { "[egress]\nproxy = \"127.0.0.1:+80\"\n", "[egress] proxy: " },
  { "[egress]\nproxy = \"127.1:80\"\n", "[egress] proxy: " },
  { "[egress]\nproxy = \"::1:3128\"\n", "[egress] proxy: " },
  { "[egress]\nproxy = \"[::1]3128\"\n", "[egress] proxy: " },
  { "[assets]\nextra = [\"relative.img\"]\n", "[assets] extra: \"relative.img\" must be an absolute path" },
  { "[assets.sha256]\n\"/k\" = \"abc\"\n", ":2: [assets.sha256] \"/k\": expected 64 hex digits" },
  { "[assets.sha256]\n\"k\" = \"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\"\n", "the file must be an absolute path" },
  { "[assets]\nsha256 = \"x\"\n", "[assets] sha256: expected a table" },
  { "[log]\nfile = \"log.json\"\n", "[log] file: \"log.json\" must be an absolute path" },
  { "", "the configuration is empty" },
  { "# only a comment\n\n", "the configuration is empty" },
  { "[kvm]\n", "the configuration is empty" },
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
      ok (strncmp (msg, prefix, strlen (prefix)) == 0, "bad config %zu: message names the file", i + 1);
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

  if (geteuid () != 0)
    {
      cleanup_free char *path = write_file ("unreadable.toml", "[log]\nsyslog = true\n");

      chmod (path, 0);
      ok (guard_config_load (path, &cfg, &err) < 0, "an unreadable file is an error");
      has_str (err ? err->msg : NULL, "Permission denied", "the unreadable file says why");
      kg_error_release (&err);
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
