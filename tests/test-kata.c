/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * kata.*: Kata's shipped configurations pass in a trusted install tree;
 * every rule fails (or warns) with its reason on a tree that breaks it.
 *
 * Each case builds its own tree under /var/lib/kata-guard-test (a
 * root-owned 0755 directory: the trusted-path test rejects /tmp) from a
 * fixture in $KG_FIXTURES/kata with /opt/kata rewritten to the tree, and
 * runs the kata family directly.  Everything is removed at exit.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "array.h"
#include "check-helpers.h"
#include "checks.h"
#include "preflight.h"
#include "error.h"
#include "fdio.h"
#include "kata.h"
#include "request.h"
#include "tap.h"
#include "test-files.h"
#include "toml.h"

#define TEST_BASE "/var/lib/kata-guard-test"
#define DEFAULTS "opt/kata/share/defaults/kata-containers"

static const char *const kata_ids[] = {
  "kata.runtime", "kata.config", "kata.debug", "kata.hypervisor", "kata.jailer", "kata.annotations",
};

static char base[512];  /* this run's directory, removed at exit */
static char tree[1024]; /* the current case's tree ("" = the real /) */
static int n_trees;
static const char *fixtures;

/* ---- files --------------------------------------------------------------- */

/* TREE/REL, in one of a few rotating buffers. */
__attribute__ ((format (printf, 1, 2))) static const char *
tp (const char *fmt, ...)
{
  static char buf[8][2048];
  static int i;
  char rel[1000];
  va_list ap;

  va_start (ap, fmt);
  vsnprintf (rel, sizeof rel, fmt, ap);
  va_end (ap);
  i = (i + 1) % 8;
  snprintf (buf[i], sizeof buf[i], "%s/%s", tree, rel);
  return buf[i];
}

static void
die (const char *what, const char *path)
{
  printf ("Bail out! %s %s: %s\n", what, path, strerror (errno));
  exit (99);
}

static void
mkdirs (const char *path)
{
  char p[PATH_MAX];

  snprintf (p, sizeof p, "%s", path);
  for (char *s = p + 1; *s; s++)
    if (*s == '/')
      {
        *s = '\0';
        if (mkdir (p, 0755) < 0 && errno != EEXIST)
          die ("mkdir", p);
        *s = '/';
      }
  if (mkdir (p, 0755) < 0 && errno != EEXIST)
    die ("mkdir", p);
}

static char *
read_fixture (const char *name)
{
  char path[PATH_MAX];
  char *data = NULL;
  size_t len;
  kg_error_t err = NULL;

  snprintf (path, sizeof path, "%s/kata/%s", fixtures, name);
  if (kg_read_file_bounded (path, 0, TOML_MAX_SIZE, &data, &len, &err) < 0)
    {
      printf ("Bail out! %s\n", err->msg);
      exit (99);
    }
  return data;
}

/* The fixture NAME with /opt/kata moved into the tree, and without the
   lines that start with DROP (NULL: none). */
static char *
fixture_in_tree (const char *name, const char *drop)
{
  char *data = read_fixture (name);
  char prefix[PATH_MAX];
  size_t cap = strlen (data) * 2 + 4096, o = 0;
  char *out = malloc (cap);
  const char *line = data;

  if (out == NULL)
    abort ();
  snprintf (prefix, sizeof prefix, "%s/opt/kata", tree);
  while (*line)
    {
      const char *eol = strchr (line, '\n');
      size_t n = eol ? (size_t) (eol - line + 1) : strlen (line);

      if (drop == NULL || strncmp (line, drop, strlen (drop)) != 0)
        for (size_t i = 0; i < n; i++)
          {
            if (strncmp (line + i, "/opt/kata", 9) == 0)
              {
                size_t pl = strlen (prefix);

                if (o + pl + 1 >= cap)
                  abort ();
                memcpy (out + o, prefix, pl);
                o += pl;
                i += 8;
                continue;
              }
            if (o + 2 >= cap)
              abort ();
            out[o++] = line[i];
          }
      line += n;
    }
  out[o] = '\0';
  free (data);
  return out;
}

static const char *
kconf (void)
{
  return tp (DEFAULTS "/configuration.toml");
}

static void
dropin (const char *name, const char *data, mode_t mode)
{
  mkdirs (tp (DEFAULTS "/config.d"));
  test_write_file (tp (DEFAULTS "/config.d/%s", name), data, mode);
}

/* A fresh Kata install tree from FIXTURE (without lines starting with
   DROP), with every executable and asset the fixtures name. */
static void
tree_new (const char *fixture, const char *drop)
{
  static const char *const execs[] = {
    "bin/containerd-shim-kata-v2", "bin/firecracker",      "bin/jailer",
    "bin/qemu-system-x86_64",      "bin/cloud-hypervisor", "libexec/virtiofsd"
  };
  static const char *const assets[] = { "share/kata-containers/vmlinux.container",
                                        "share/kata-containers/vmlinuz.container",
                                        "share/kata-containers/kata-containers.img" };
  char *conf;

  if (tree[0] != '\0' || n_trees == 0)
    snprintf (tree, sizeof tree, "%s/t%d", base, ++n_trees);
  mkdirs (tp ("opt/kata/bin"));
  mkdirs (tp ("opt/kata/libexec"));
  mkdirs (tp ("opt/kata/share/kata-containers"));
  mkdirs (tp (DEFAULTS));
  for (size_t i = 0; i < ARRAY_SIZE (execs); i++)
    test_write_file (tp ("opt/kata/%s", execs[i]), "#!/bin/sh\nexit 0\n", 0755);
  for (size_t i = 0; i < ARRAY_SIZE (assets); i++)
    test_write_file (tp ("opt/kata/%s", assets[i]), "not really a kernel\n", 0644);
  conf = fixture_in_tree (fixture, drop);
  test_write_file (kconf (), conf, 0644);
  free (conf);
}

/* runtime-rs's shim where kata-deploy installs it, in the tree. */
static const char *
rs_shim (void)
{
  mkdirs (tp ("opt/kata/runtime-rs/bin"));
  if (access (tp ("opt/kata/runtime-rs/bin/containerd-shim-kata-v2"), F_OK) < 0)
    test_write_file (tp ("opt/kata/runtime-rs/bin/containerd-shim-kata-v2"), "#!/bin/sh\nexit 0\n",
                     0755);
  return tp ("opt/kata/runtime-rs/bin/containerd-shim-kata-v2");
}

static int
rm_one (const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
  (void) st;
  (void) flag;
  (void) ftw;
  remove (path);
  return 0;
}

static void
cleanup (void)
{
  if (base[0] != '\0')
    nftw (base, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* ---- running the family ---------------------------------------------------- */

struct run
{
  struct guard_config cfg;
  struct request req;
  struct report rep;
  struct preflight pf;
  const char *label;
};

struct opts
{
  enum kg_mode mode;
  const char *shim;        /* default: the tree's runtime */
  const char *kata_config; /* default: the tree's configuration.toml; "" = search */
  const char *req_config;  /* the engine's config_path, default none */
  const char *hv[3];       /* [kata] hypervisors, default firecracker */
  const char *runtime;     /* [kata] runtime, default "auto" */
  const char *oci;         /* [runtime] oci, default unset */
};

static void
run_opts (struct run *r, const char *label, const struct opts *o)
{
  static char *hv[3];
  size_t n = 0;

  memset (r, 0, sizeof *r);
  r->label = label;
  for (; n < 3 && o->hv[n]; n++)
    hv[n] = (char *) o->hv[n];
  if (n == 0)
    hv[n++] = (char *) "firecracker";
  r->cfg.runtime.shim = (char *) (o->shim ? o->shim : tp ("opt/kata/bin/containerd-shim-kata-v2"));
  r->cfg.runtime.oci = (char *) (o->oci ? o->oci : "");
  r->cfg.kata.config = (char *) (o->kata_config ? o->kata_config : kconf ());
  r->cfg.kata.runtime = (char *) (o->runtime ? o->runtime : "auto");
  r->cfg.kata.hypervisors = hv;
  r->cfg.kata.n_hypervisors = n;
  r->req.mode = o->mode;
  r->req.kata_config = o->req_config;
  preflight_init (&r->pf, &r->req, &r->cfg, &r->rep);
  check_kata (&r->pf);
}

#define run(r, label, ...) run_opts ((r), (label), &(struct opts){ __VA_ARGS__ })

static const struct check_result *
res (const struct run *r, const char *id)
{
  return report_find (&r->rep, id);
}

/* Every kata.* id exactly once, then release. */
static void
done (struct run *r)
{
  bool once = r->rep.n == ARRAY_SIZE (kata_ids);

  for (size_t i = 0; i < ARRAY_SIZE (kata_ids); i++)
    {
      size_t c = 0;

      for (size_t j = 0; j < r->rep.n; j++)
        c += strcmp (r->rep.results[j].id, kata_ids[i]) == 0;
      once = once && c == 1;
    }
  ok (once, "%s: each kata.* id is reported exactly once", r->label);
  /* The whole report, for whoever reads the log. */
  for (size_t j = 0; j < r->rep.n; j++)
    printf ("#   %s %s: %s\n", r->rep.results[j].id, verdict_name (r->rep.results[j].verdict),
            r->rep.results[j].reason);
  preflight_release (&r->pf);
  report_release (&r->rep);
}

static void
expect (const struct run *r, const char *id, enum verdict v, const char *want)
{
  if (! is_int (report_verdict (&r->rep, id), v, "%s: %s is %s", r->label, id, verdict_name (v)))
    printf ("#   reason: %s\n",
            report_reason (&r->rep, id) ? report_reason (&r->rep, id) : "(none)");
  if (want != NULL)
    has_str (report_reason (&r->rep, id), want, "%s: the %s reason says '%s'", r->label, id, want);
  if (v == VERDICT_FAIL || v == VERDICT_WARN)
    ok (res (r, id) && res (r, id)->remedy != NULL, "%s: %s gives a remedy", r->label, id);
}

static void
expect_all_pass (const struct run *r, bool jailer)
{
  for (size_t i = 0; i < ARRAY_SIZE (kata_ids); i++)
    {
      enum verdict want = strcmp (kata_ids[i], "kata.jailer") == 0 && ! jailer ? VERDICT_SKIP
                                                                               : VERDICT_PASS;
      if (! is_int (report_verdict (&r->rep, kata_ids[i]), want, "%s: %s is %s", r->label,
                    kata_ids[i], verdict_name (want)))
        printf ("#   reason: %s\n", report_reason (&r->rep, kata_ids[i]));
    }
}

static void
expect_later_skipped (const struct run *r, const char *why)
{
  for (size_t i = 2; i < ARRAY_SIZE (kata_ids); i++)
    expect (r, kata_ids[i], VERDICT_SKIP, why);
  ok (r->pf.from_kata.config == NULL, "%s: no Kata configuration is handed on", r->label);
}

static const char *
hv_string (const struct run *r, const char *key)
{
  const struct toml_value *v;

  if (r->pf.from_kata.config == NULL)
    return NULL;
  v = toml_get (r->pf.from_kata.config->hypervisor, key);
  return v && v->kind == TOML_STRING ? v->u.string : NULL;
}

static bool
report_has_file (const struct run *r, const char *path)
{
  for (size_t i = 0; i < r->rep.n_files; i++)
    if (strcmp (r->rep.files[i], path) == 0)
      return true;
  return false;
}

/* ---- the cases ------------------------------------------------------------- */

static void
shipped_profiles (void)
{
  struct run r;

  tree_new ("configuration-fc.toml", NULL);
  run (&r, "Firecracker profile");
  expect_all_pass (&r, true);
  expect (&r, "kata.config", VERDICT_PASS, kconf ());
  has_str (report_reason (&r.rep, "kata.config"), "from [kata] config",
           "the reason says where the path came from");
  has_str (report_reason (&r.rep, "kata.config"), "no config.d drop-ins",
           "the reason says there are no drop-ins");
  has_str (report_reason (&r.rep, "kata.hypervisor"), tp ("opt/kata/bin/firecracker"),
           "kata.hypervisor names the VMM");
  has_str (report_reason (&r.rep, "kata.jailer"), tp ("opt/kata/bin/jailer"),
           "kata.jailer names the jailer");
  ok (r.pf.from_kata.config != NULL
          && strcmp (r.pf.from_kata.config->hypervisor_name, "firecracker") == 0,
      "the configuration is handed on with its hypervisor name");
  is_str (hv_string (&r, "kernel"), tp ("opt/kata/share/kata-containers/vmlinux.container"),
          "the hypervisor table is handed on");
  ok (r.pf.from_kata.runtime_fd >= 0, "the runtime's descriptor is kept");
  /* What the family handed on is the family's to free (issue 50: checks.c
     freed Kata's fields): its row of the family table holds release_kata,
     which frees the configuration and closes the descriptor, and once. */
  {
    const struct check_family *row = NULL;

    for (size_t i = 0; i < n_check_families; i++)
      if (strcmp (check_families[i].name, "kata") == 0)
        row = &check_families[i];
    ok (row != NULL && row->release == release_kata, "the kata row's release is release_kata");
    release_kata (&r.pf);
    ok (r.pf.from_kata.config == NULL && r.pf.from_kata.runtime_fd < 0,
        "release_kata frees the configuration and closes the runtime's descriptor");
    release_kata (&r.pf);
    ok (r.pf.from_kata.config == NULL, "release_kata again: nothing left to free");
  }
  ok (r.rep.n_files == 1 && report_has_file (&r, kconf ()), "the configuration is listed as read");
  is_int (report_overall (&r.rep), VERDICT_PASS, "Firecracker profile: overall pass");
  done (&r);

  tree_new ("configuration-rs-fc.toml", NULL);
  run (&r, "runtime-rs Firecracker profile");
  expect_all_pass (&r, true);
  done (&r);

  /* runtime-rs picks the table [runtime] hypervisor_name names. */
  dropin ("50-name.toml", "[runtime]\nhypervisor_name = \"qemu\"\n", 0644);
  run (&r, "hypervisor_name names no table");
  expect (&r, "kata.hypervisor", VERDICT_FAIL, "hypervisor_name");
  has_str (report_reason (&r.rep, "kata.hypervisor"), "\"qemu\"", "the reason quotes the name");
  done (&r);

  tree_new ("configuration-qemu.toml", NULL);
  run (&r, "QEMU profile, default allowlist");
  expect (&r, "kata.hypervisor", VERDICT_FAIL, "qemu is not allowed by [kata] hypervisors");
  has_str (report_reason (&r.rep, "kata.hypervisor"), "\"firecracker\"",
           "the reason shows the allowlist");
  ok (r.pf.from_kata.config != NULL && strcmp (r.pf.from_kata.config->hypervisor_name, "qemu") == 0,
      "a disallowed hypervisor's configuration is still handed on");
  done (&r);
  run (&r, "QEMU profile, allowed", .hv = { "firecracker", "qemu" });
  expect_all_pass (&r, false);
  has_str (report_reason (&r.rep, "kata.jailer"), "[hypervisor.qemu] has no jailer",
           "QEMU: kata.jailer says why it is skipped");
  has_str (report_reason (&r.rep, "kata.hypervisor"), tp ("opt/kata/libexec/virtiofsd"),
           "QEMU: virtiofsd is checked too");
  done (&r);
  chmod (tp ("opt/kata/libexec/virtiofsd"), 0775);
  run (&r, "QEMU with a group-writable virtiofsd", .hv = { "qemu" });
  expect (&r, "kata.hypervisor", VERDICT_FAIL, "virtio_fs_daemon");
  has_str (report_reason (&r.rep, "kata.hypervisor"), "writable by its group",
           "virtiofsd: says why");
  done (&r);

  tree_new ("configuration-clh.toml", NULL);
  run (&r, "CLH profile, default allowlist");
  expect (&r, "kata.hypervisor", VERDICT_FAIL, "clh is not allowed by [kata] hypervisors");
  done (&r);
  run (&r, "CLH profile, allowed", .hv = { "clh" });
  expect_all_pass (&r, false);
  done (&r);
}

static void
runtime_cases (void)
{
  struct run r;
  struct stat self, st;
  char exe[PATH_MAX];
  ssize_t n;

  tree_new ("configuration-fc.toml", NULL);
  chmod (tp ("opt/kata/bin/containerd-shim-kata-v2"), 0777);
  run (&r, "world-writable runtime");
  expect (&r, "kata.runtime", VERDICT_FAIL, "is writable by others");
  has_str (report_reason (&r.rep, "kata.runtime"), "[runtime] shim", "the reason names the key");
  ok (r.pf.from_kata.runtime_fd < 0, "world-writable runtime: no descriptor is kept");
  expect (&r, "kata.config", VERDICT_PASS, NULL);
  done (&r);

  tree_new ("configuration-fc.toml", NULL);
  chmod (tp ("opt/kata/bin"), 0775);
  run (&r, "group-writable runtime directory");
  expect (&r, "kata.runtime", VERDICT_FAIL, "directory ");
  has_str (report_reason (&r.rep, "kata.runtime"), "writable by its group",
           "the reason says by whom");
  done (&r);

  /* OCI runtime mode's refusals point at shim v2 registration only with
     the version rule: Docker 20.10 and 23 read no daemon.json
     "runtimeType" (moby v24.0.0 api/types Runtime.Type), and start plain
     runc under the name (issue 47). */
  {
    static const char *const oci[] = { NULL, "/usr/bin/runc" };

    for (size_t i = 0; i < ARRAY_SIZE (oci); i++)
      {
        const char *remedy;

        tree_new ("configuration-fc.toml", NULL);
        run (&r, i == 0 ? "OCI mode, [runtime] oci unset" : "OCI mode, oci_vm false",
             .mode = KG_MODE_OCI, .oci = oci[i]);
        expect (&r, "kata.runtime", VERDICT_FAIL, i == 0 ? "is not set" : "oci_vm");
        remedy = res (&r, "kata.runtime") ? res (&r, "kata.runtime")->remedy : NULL;
        has_str (remedy, "shim v2", "%s: the remedy offers shim v2 registration", r.label);
        has_str (remedy, "Docker 20.10 and 23 do not read", "%s: ...with the Docker version rule",
                 r.label);
        has_str (remedy, "kata-guard install picks the form", "%s: ...and how the form is picked",
                 r.label);
        done (&r);
      }
  }

  tree_new ("configuration-fc.toml", NULL);
  run (&r, "missing runtime", .shim = tp ("opt/kata/bin/nothing-here"));
  expect (&r, "kata.runtime", VERDICT_FAIL, "No such file or directory");
  done (&r);

  /* The guard itself: this test program stands in for kata-guard (the
     check compares with /proc/self/exe), hard-linked into the tree and
     reached through a symlink. */
  tree_new ("configuration-fc.toml", NULL);
  if (linkat (AT_FDCWD, "/proc/self/exe", AT_FDCWD, tp ("opt/kata/bin/self"), AT_SYMLINK_FOLLOW)
      < 0)
    {
      n = readlink ("/proc/self/exe", exe, sizeof exe - 1);
      if (n <= 0)
        die ("readlink", "/proc/self/exe");
      exe[n] = '\0';
      if (symlink (exe, tp ("opt/kata/bin/self")) < 0)
        die ("symlink to", exe);
    }
  unlink (tp ("opt/kata/bin/containerd-shim-kata-v2"));
  if (symlink ("self", tp ("opt/kata/bin/containerd-shim-kata-v2")) < 0)
    die ("symlink", tp ("opt/kata/bin/containerd-shim-kata-v2"));
  if (stat ("/proc/self/exe", &self) == 0 && stat (tp ("opt/kata/bin/self"), &st) == 0
      && self.st_dev == st.st_dev && self.st_ino == st.st_ino)
    {
      run (&r, "runtime = the guard itself via a symlink");
      expect (&r, "kata.runtime", VERDICT_FAIL, "is kata-guard itself");
      has_str (report_reason (&r.rep, "kata.runtime"), "exec loop", "the reason says why");
      ok (r.pf.from_kata.runtime_fd < 0, "exec loop: no descriptor is kept");
      done (&r);
    }
  else
    ok (true, "# SKIP /proc/self/exe is not the file that was linked");
}

static void
resolution_cases (void)
{
  struct run r;
  char etc[PATH_MAX];
  static const char *const search[] = {
    "/etc/kata-containers/configuration.toml",
    "/opt/kata/share/defaults/kata-containers/configuration.toml",
    "/usr/share/defaults/kata-containers/configuration.toml",
  };
  bool host_has_kata = false;

  for (size_t i = 0; i < ARRAY_SIZE (search); i++)
    host_has_kata = host_has_kata || access (search[i], F_OK) == 0;

  tree_new ("configuration-fc.toml", NULL);
  run (&r, "missing config", .kata_config = tp ("nowhere/configuration.toml"));
  expect (&r, "kata.config", VERDICT_FAIL, "No such file or directory");
  has_str (report_reason (&r.rep, "kata.config"), tp ("nowhere"),
           "missing config: the reason names the path");
  expect_later_skipped (&r, "not run: kata.config failed");
  done (&r);

  if (! host_has_kata)
    {
      run (&r, "nothing in Kata's search order", .kata_config = "");
      expect (&r, "kata.config", VERDICT_FAIL, "no Kata configuration found");
      has_str (report_reason (&r.rep, "kata.config"), "/etc/kata-containers/configuration.toml",
               "the reason lists where Kata looks");
      done (&r);
    }
  else
    ok (true, "# SKIP this host has a Kata configuration in the search order");

  /* The engine's config_path is what the real shim loads: [kata] config
     only asserts which file that must be. */
  run (&r, "engine config_path, [kata] config another file", .kata_config = tp ("nowhere.toml"),
       .req_config = kconf ());
  expect (&r, "kata.config", VERDICT_FAIL,
          "(from the engine's config_path option), not [kata] config");
  done (&r);
  run (&r, "engine config_path, [kata] config the same file", .kata_config = kconf (),
       .req_config = kconf ());
  expect (&r, "kata.config", VERDICT_PASS, "from the engine's config_path option");
  done (&r);
  run (&r, "missing engine config_path over a good [kata] config", .req_config = tp ("gone.toml"));
  expect (&r, "kata.config", VERDICT_FAIL, tp ("gone.toml"));
  done (&r);

  /* KATA_CONF_FILE: read by the real shim, so used in shim mode only. */
  setenv ("KATA_CONF_FILE", kconf (), 1);
  run (&r, "KATA_CONF_FILE in shim mode, [kata] config another file", .mode = KG_MODE_SHIM,
       .kata_config = tp ("nowhere.toml"));
  expect (&r, "kata.config", VERDICT_FAIL, "(from KATA_CONF_FILE), not [kata] config");
  done (&r);
  run (&r, "KATA_CONF_FILE in shim mode", .mode = KG_MODE_SHIM, .kata_config = kconf ());
  expect (&r, "kata.config", VERDICT_PASS, "from KATA_CONF_FILE");
  done (&r);
  run (&r, "KATA_CONF_FILE in check mode", .kata_config = tp ("nowhere.toml"));
  expect (&r, "kata.config", VERDICT_FAIL, tp ("nowhere.toml"));
  done (&r);
  unsetenv ("KATA_CONF_FILE");

  chmod (kconf (), 0666);
  run (&r, "world-writable configuration");
  expect (&r, "kata.config", VERDICT_FAIL, "is writable by others");
  expect_later_skipped (&r, "kata.config failed");
  done (&r);
  chmod (kconf (), 0644);

  chmod (tp (DEFAULTS), 0777);
  run (&r, "world-writable configuration directory");
  expect (&r, "kata.config", VERDICT_FAIL, "is writable by others");
  done (&r);
  chmod (tp (DEFAULTS), 0755);

  /* A configuration reached through a symlink (an /etc-like path): its
     config.d is the one beside the file the link resolves to. */
  snprintf (etc, sizeof etc, "%s", tp ("etc/kata-containers/configuration.toml"));
  mkdirs (tp ("etc/kata-containers/config.d"));
  if (symlink (kconf (), etc) < 0)
    die ("symlink", etc);
  test_write_file (tp ("etc/kata-containers/config.d/10-kernel.toml"),
                   "[hypervisor.firecracker]\nkernel = \"/beside-the-link\"\n", 0644);
  dropin ("10-kernel.toml", "[hypervisor.firecracker]\nkernel = \"/beside-the-file\"\n", 0644);
  run (&r, "symlinked configuration", .kata_config = etc);
  expect (&r, "kata.config", VERDICT_PASS, kconf ());
  has_str (report_reason (&r.rep, "kata.config"), etc,
           "symlinked configuration: the reason shows the given path too");
  is_str (hv_string (&r, "kernel"), "/beside-the-file",
          "config.d beside the resolved file is used");
  ok (! report_has_file (&r, tp ("etc/kata-containers/config.d/10-kernel.toml")),
      "config.d beside the symlink is not read");
  ok (report_has_file (&r, tp (DEFAULTS "/config.d/10-kernel.toml")),
      "the drop-in is listed as read");
  done (&r);

  tree_new ("configuration-fc.toml", NULL);
  test_write_file (kconf (), "[hypervisor.firecracker\npath = \"/x\"\n", 0644);
  run (&r, "configuration syntax error");
  expect (&r, "kata.config", VERDICT_FAIL, "does not parse");
  has_str (report_reason (&r.rep, "kata.config"), ":1:", "the reason gives the line");
  done (&r);
}

static void
dropin_cases (void)
{
  struct run r;
  char want[PATH_MAX + 16];

  tree_new ("configuration-fc.toml", NULL);
  dropin ("20-kernel.toml", "[hypervisor.firecracker]\nkernel = \"/custom/vmlinux\"\n", 0644);
  run (&r, "drop-in overrides kernel");
  expect_all_pass (&r, true);
  has_str (report_reason (&r.rep, "kata.config"), tp (DEFAULTS "/config.d/20-kernel.toml"),
           "the reason lists the drop-in");
  is_str (hv_string (&r, "kernel"), "/custom/vmlinux", "the merged value is handed on");
  is_str (hv_string (&r, "image"), tp ("opt/kata/share/kata-containers/kata-containers.img"),
          "keys the drop-in does not name are kept");
  ok (r.rep.n_files == 2, "both files are listed as read");
  done (&r);

  /* Byte order of names, later wins: "9-..." sorts after "10-...". */
  dropin ("9-kernel.toml", "[hypervisor.firecracker]\nkernel = \"/nine\"\n", 0644);
  dropin ("10-kernel.toml", "[hypervisor.firecracker]\nkernel = \"/ten\"\n", 0644);
  run (&r, "drop-in order");
  is_str (hv_string (&r, "kernel"), "/nine", "drop-ins merge in byte order of their names");
  done (&r);
  /* The file a remedy tells the operator to edit (policy.resources'
     default_maxmemory, issue 47): the one whose settings win, the last
     drop-in Kata merges ("9-..." after "20-..."). */
  run (&r, "the file whose settings win");
  is_str (r.pf.from_kata.config ? r.pf.from_kata.config->last_file : "",
          tp (DEFAULTS "/config.d/9-kernel.toml"), "the last drop-in merged is the file that wins");
  done (&r);
  tree_new ("configuration-fc.toml", NULL);
  run (&r, "no drop-ins: the configuration wins");
  is_str (r.pf.from_kata.config ? r.pf.from_kata.config->last_file : "", kconf (),
          "without drop-ins, the configuration itself");
  done (&r);

  /* Values Kata's decoder reads otherwise (the decoder oracle found
     them): BurntSushi/toml before 1.3 drops every newline after a
     line-ending backslash; a negative uint64 becomes a huge one. */
  tree_new ("configuration-fc.toml", NULL);
  dropin ("30-ml.toml",
          "[hypervisor.firecracker]\npath = \"\"\"/opt/kata/bin/\\\nfirecracker\n\"\"\"\n", 0644);
  run (&r, "a line-ending backslash in a \"\"\" string");
  expect (&r, "kata.config", VERDICT_FAIL,
          "30-ml.toml:2: key \"path\" has a line-ending backslash in a \"\"\" string");
  done (&r);
  tree_new ("configuration-fc.toml", NULL);
  dropin ("30-crlf.toml",
          "[hypervisor.firecracker]\r\nkernel_params = \"\"\"quiet\r\npanic=1\"\"\"\r\n", 0644);
  run (&r, "a CRLF inside a multi-line string");
  expect (&r, "kata.config", VERDICT_FAIL, "has a CRLF line ending inside a multi-line string");
  done (&r);
  tree_new ("configuration-fc.toml", NULL);
  dropin ("30-neg.toml", "[hypervisor.firecracker]\ndefault_maxmemory = -1\n", 0644);
  run (&r, "a negative default_maxmemory");
  expect (&r, "kata.config", VERDICT_FAIL,
          "key \"default_maxmemory\" is negative, and Kata decodes it as an unsigned 64-bit");
  done (&r);
  tree_new ("configuration-fc.toml", NULL);
  dropin ("30-neg.toml", "[hypervisor.firecracker]\ndefault_vcpus = -1\n", 0644);
  run (&r, "a negative default_vcpus (Kata: every host CPU) is not refused for that");
  is_int (report_verdict (&r.rep, "kata.config"), VERDICT_PASS,
          "default_vcpus = -1: kata.config passes");
  done (&r);

  /* Keys Kata's decoder folds onto the settings the guard reads. */
  tree_new ("configuration-fc.toml", NULL);
  dropin ("30-fold.toml", "[agent.kata]\nDebug_Console_Enabled = true\n", 0644);
  run (&r, "a drop-in key in another case");
  expect (&r, "kata.config", VERDICT_FAIL,
          "30-fold.toml:2: key \"Debug_Console_Enabled\" is not lower case");
  done (&r);
  tree_new ("configuration-fc.toml", NULL);
  dropin ("30-fold.toml", "[hypervisor.firecracker]\n\"jailer_pat\xc5\xbf\" = \"/elsewhere\"\n",
          0644);
  run (&r, "a quoted drop-in key with U+017F for s");
  expect (&r, "kata.config", VERDICT_FAIL, "is not lower case: Kata's TOML decoder");
  done (&r);
  tree_new ("configuration-fc.toml", NULL);
  dropin ("30-fold.toml", "[hypervisor.firecracker]\n\"jailer_pat\\u017f\" = \"/elsewhere\"\n",
          0644);
  run (&r, "a drop-in key with U+017F written as an escape");
  expect (&r, "kata.config", VERDICT_FAIL, "is not lower case");
  done (&r);
  tree_new ("configuration-fc.toml", NULL);
  dropin ("30-fold.toml", "[runtime]\nDISABLE_GUEST_SECCOMP = true\n", 0644);
  run (&r, "[runtime] in capitals");
  expect (&r, "kata.config", VERDICT_FAIL, "key \"DISABLE_GUEST_SECCOMP\"");
  done (&r);

  /* Kata reads every entry of config.d, whatever its name. */
  tree_new ("configuration-fc.toml", NULL);
  dropin ("99-no-extension", "[agent.kata]\ndebug_console_enabled = true\n", 0644);
  dropin (".hidden", "[hypervisor.firecracker]\nkernel = \"/hidden\"\n", 0644);
  run (&r, "files without .toml");
  expect (&r, "kata.debug", VERDICT_FAIL, "debug_console_enabled = true in [agent.kata]");
  is_str (hv_string (&r, "kernel"), "/hidden", "a hidden drop-in is merged too");
  done (&r);

  tree_new ("configuration-fc.toml", NULL);
  dropin ("README", "These drop-ins tune Kata.\n", 0644);
  run (&r, "a README in config.d");
  expect (&r, "kata.config", VERDICT_FAIL, tp (DEFAULTS "/config.d/README"));
  has_str (report_reason (&r.rep, "kata.config"), "does not parse",
           "a README: the reason says why");
  expect_later_skipped (&r, "kata.config failed");
  done (&r);

  tree_new ("configuration-fc.toml", NULL);
  mkdirs (tp (DEFAULTS "/config.d/sub.d"));
  run (&r, "a directory in config.d");
  expect (&r, "kata.config", VERDICT_FAIL, "is not a regular file");
  done (&r);

  tree_new ("configuration-fc.toml", NULL);
  dropin ("50-bad.toml", "[runtime]\nenable_debug = \n", 0644);
  run (&r, "drop-in syntax error");
  snprintf (want, sizeof want, "%s:2:", tp (DEFAULTS "/config.d/50-bad.toml"));
  expect (&r, "kata.config", VERDICT_FAIL, want);
  done (&r);

  tree_new ("configuration-fc.toml", NULL);
  dropin ("50-open.toml", "[runtime]\nenable_debug = false\n", 0666);
  run (&r, "world-writable drop-in");
  expect (&r, "kata.config", VERDICT_FAIL, tp (DEFAULTS "/config.d/50-open.toml"));
  has_str (report_reason (&r.rep, "kata.config"), "is writable by others",
           "world-writable drop-in: says why");
  done (&r);

  tree_new ("configuration-fc.toml", NULL);
  dropin ("50-ok.toml", "[runtime]\nenable_debug = false\n", 0644);
  chmod (tp (DEFAULTS "/config.d"), 0777);
  run (&r, "world-writable config.d");
  expect (&r, "kata.config", VERDICT_FAIL, "drop-in directory");
  has_str (report_reason (&r.rep, "kata.config"), "is writable by others",
           "world-writable config.d: says why");
  done (&r);

  tree_new ("configuration-fc.toml", NULL);
  test_write_file (tp ("opt/kata/open.toml"), "[runtime]\nenable_debug = false\n", 0666);
  mkdirs (tp (DEFAULTS "/config.d"));
  if (symlink (tp ("opt/kata/open.toml"), tp (DEFAULTS "/config.d/60-link.toml")) < 0)
    die ("symlink", "60-link.toml");
  run (&r, "drop-in symlinked to a world-writable file");
  expect (&r, "kata.config", VERDICT_FAIL, "is writable by others");
  done (&r);
  chmod (tp ("opt/kata/open.toml"), 0644);
  run (&r, "drop-in symlinked to a trusted file");
  expect (&r, "kata.config", VERDICT_PASS, tp ("opt/kata/open.toml"));
  done (&r);
}

static void
hypervisor_cases (void)
{
  struct run r;

  tree_new ("configuration-fc.toml", NULL);
  dropin ("50-qemu.toml", "[hypervisor.qemu]\npath = \"/usr/bin/qemu-system-x86_64\"\n", 0644);
  run (&r, "second hypervisor from a drop-in");
  expect (&r, "kata.hypervisor", VERDICT_FAIL, "2 hypervisor tables");
  has_str (report_reason (&r.rep, "kata.hypervisor"), "[hypervisor.firecracker], [hypervisor.qemu]",
           "the reason names both tables");
  ok (r.pf.from_kata.config == NULL, "two tables: no configuration is handed on");
  expect (&r, "kata.jailer", VERDICT_SKIP, "not run");
  expect (&r, "kata.annotations", VERDICT_SKIP, "not run");
  expect (&r, "kata.debug", VERDICT_PASS, NULL);
  done (&r);

  tree_new ("configuration-fc.toml", NULL);
  test_write_file (kconf (), "[runtime]\nenable_debug = false\n", 0644);
  run (&r, "no hypervisor table");
  expect (&r, "kata.hypervisor", VERDICT_FAIL, "no [hypervisor.*] table");
  ok (r.pf.from_kata.config == NULL, "no table: no configuration is handed on");
  done (&r);

  tree_new ("configuration-fc.toml", NULL);
  chmod (tp ("opt/kata/bin/firecracker"), 0757);
  run (&r, "world-writable hypervisor");
  expect (&r, "kata.hypervisor", VERDICT_FAIL, tp ("opt/kata/bin/firecracker"));
  has_str (report_reason (&r.rep, "kata.hypervisor"), "is writable by others",
           "world-writable hypervisor: says why");
  ok (r.pf.from_kata.config != NULL, "the configuration is handed on all the same");
  done (&r);

  tree_new ("configuration-fc.toml", "path =");
  run (&r, "hypervisor without path");
  expect (&r, "kata.hypervisor", VERDICT_FAIL, "[hypervisor.firecracker] path is not set");
  done (&r);

  tree_new ("configuration-fc.toml", NULL);
  unlink (tp ("opt/kata/bin/firecracker"));
  run (&r, "missing hypervisor binary");
  expect (&r, "kata.hypervisor", VERDICT_FAIL, "No such file or directory");
  done (&r);

  tree_new ("configuration-fc.toml", NULL);
  dropin ("50-jailer.toml", "[hypervisor.firecracker]\njailer_path = \"\"\n", 0644);
  run (&r, "empty jailer_path");
  expect (&r, "kata.jailer", VERDICT_FAIL, "jailer_path is empty: Firecracker would run unjailed");
  expect (&r, "kata.hypervisor", VERDICT_PASS, NULL);
  done (&r);

  tree_new ("configuration-fc.toml", "jailer_path");
  run (&r, "no jailer_path");
  expect (&r, "kata.jailer", VERDICT_FAIL, "jailer_path is not set");
  done (&r);

  tree_new ("configuration-fc.toml", NULL);
  chmod (tp ("opt/kata/bin/jailer"), 0777);
  run (&r, "world-writable jailer");
  expect (&r, "kata.jailer", VERDICT_FAIL, "is writable by others");
  done (&r);
}

static void
debug_cases (void)
{
  struct run r;

  tree_new ("configuration-fc.toml", NULL);
  dropin ("50-console.toml", "[agent.kata]\ndebug_console_enabled = true\n", 0644);
  run (&r, "debug console");
  expect (&r, "kata.debug", VERDICT_FAIL, "debug_console_enabled = true in [agent.kata]");
  done (&r);

  tree_new ("configuration-fc.toml", NULL);
  dropin ("50-debug.toml",
          "[runtime]\nenable_debug = true\n[hypervisor.firecracker]\nenable_debug = true\n", 0644);
  run (&r, "enable_debug");
  expect (&r, "kata.debug", VERDICT_WARN, "[hypervisor.firecracker]");
  has_str (report_reason (&r.rep, "kata.debug"), "[runtime]",
           "enable_debug: every section is named");
  has_str (report_reason (&r.rep, "kata.debug"), "enable_debug = true",
           "enable_debug: the key is named");
  for (size_t i = 0; i < ARRAY_SIZE (kata_ids); i++)
    if (strcmp (kata_ids[i], "kata.debug") != 0)
      is_int (report_verdict (&r.rep, kata_ids[i]), VERDICT_PASS, "enable_debug: %s passes",
              kata_ids[i]);
  is_int (report_overall (&r.rep), VERDICT_WARN, "enable_debug: overall warn");
  done (&r);

  tree_new ("configuration-fc.toml", NULL);
  dropin ("50-params.toml",
          "[hypervisor.firecracker]\nkernel_params = \"quiet agent.debug_console "
          "agent.debug_console_vport=1026\"\n",
          0644);
  run (&r, "debug console from kernel_params");
  expect (&r, "kata.debug", VERDICT_FAIL,
          "agent.debug_console in [hypervisor.firecracker] kernel_params");
  done (&r);

  /* The guest kernel splits on byte 0xa0 (U+00A0's tail), Go's
     strings.Fields on U+00A0, the agent on "\n": none of it is judged. */
  {
    static const struct
    {
      const char *label, *params, *want;
    } rows[] = {
      { "kernel_params with U+00A0 before the console", "quiet\u00a0agent.debug_console",
        "[hypervisor.firecracker] kernel_params holds a byte past ASCII at byte 5" },
      { "kernel_params with a newline", "quiet\\nagent.debug_console",
        "kernel_params holds a control character at byte 5" },
      { "kernel_params with a vertical tab", "quiet\\u000bagent.debug_console",
        "kernel_params holds a control character" },
      { "kernel_params with quotes", "\\\"x agent.debug_console \\\"",
        "kernel_params holds a double quote at byte 0" },
      { "init= in kernel_params", "quiet init=/bin/sh",
        "[hypervisor.firecracker] kernel_params holds init=/bin/sh (the guest would run that" },
      { "rdinit= in kernel_params", "rdinit=/x",
        "[hypervisor.firecracker] kernel_params holds rdinit=/x" },
    };

    for (size_t i = 0; i < ARRAY_SIZE (rows); i++)
      {
        char buf[256];

        tree_new ("configuration-fc.toml", NULL);
        snprintf (buf, sizeof buf, "[hypervisor.firecracker]\nkernel_params = \"%s\"\n",
                  rows[i].params);
        dropin ("50-params.toml", buf, 0644);
        run (&r, rows[i].label);
        expect (&r, "kata.debug", VERDICT_FAIL, rows[i].want);
        done (&r);
      }
  }

  tree_new ("configuration-fc.toml", NULL);
  dropin ("50-hooks.toml", "[hypervisor.firecracker]\nguest_hook_path = \"/usr/share/oci/hooks\"\n",
          0644);
  run (&r, "guest_hook_path");
  expect (&r, "kata.debug", VERDICT_FAIL,
          "guest_hook_path in [hypervisor.firecracker] (the agent would run hooks");
  done (&r);

  tree_new ("configuration-fc.toml", NULL);
  dropin ("50-netns.toml", "[runtime]\ndisable_new_netns = true\n", 0644);
  run (&r, "disable_new_netns");
  expect (&r, "kata.debug", VERDICT_FAIL,
          "disable_new_netns in [runtime] (the VM's network device");
  done (&r);

  tree_new ("configuration-fc.toml", NULL);
  dropin ("50-console.toml", "[agent.kata]\ndebug_console_enabled = \"true\"\n", 0644);
  run (&r, "debug console as a string");
  expect (&r, "kata.debug", VERDICT_FAIL, "not a boolean");
  done (&r);
}

/* A tree of FIXTURE whose enable_annotations is PATTERNS (a TOML array). */
static void
annotations_tree (const char *fixture, const char *patterns)
{
  char buf[512];

  tree_new (fixture, NULL);
  snprintf (buf, sizeof buf, "[hypervisor.firecracker]\nenable_annotations = %s\n", patterns);
  dropin ("50-annotations.toml", buf, 0644);
}

static void
annotation_case (const char *label, const char *patterns, enum verdict v, const char *want)
{
  struct run r;

  annotations_tree ("configuration-fc.toml", patterns);
  run (&r, label);
  expect (&r, "kata.annotations", v, want);
  done (&r);
}

static void
rs_annotation_case (const char *label, const char *patterns, enum verdict v, const char *want)
{
  struct run r;

  annotations_tree ("configuration-rs-fc.toml", patterns);
  run (&r, label, .shim = rs_shim ());
  expect (&r, "kata.annotations", v, want);
  done (&r);
}

static void
annotation_cases (void)
{
  annotation_case ("enable_annotations [\"kernel\"]", "[\"kernel\"]", VERDICT_FAIL,
                   "\"kernel\" enables kernel");
  annotation_case ("enable_annotations [\".*\"]", "[\".*\"]", VERDICT_FAIL,
                   "\".*\" enables path, jailer_path, ctlpath, kernel, image, initrd");
  annotation_case ("enable_annotations [\"ker.*\"]", "[\"enable_iommu\", \"ker.*\"]", VERDICT_FAIL,
                   "\"ker.*\" enables kernel");
  /* Unanchored, as Kata matches. */
  annotation_case ("enable_annotations [\"ath\"]", "[\"ath\"]", VERDICT_FAIL,
                   "\"ath\" enables path, jailer_path, ctlpath");
  annotation_case ("enable_annotations [\"\"]", "[\"\"]", VERDICT_FAIL, "\"\" enables path");
  annotation_case ("enable_annotations [\"initrd|image\"]", "[\"initrd|image\"]", VERDICT_FAIL,
                   "enables image, initrd");
  annotation_case ("a pattern that does not compile", "[\"(kernel\"]", VERDICT_FAIL,
                   "\"(kernel\" cannot be evaluated as Kata does: it ends inside a group");
  annotation_case ("an RE2 escape", "[\"\\\\x6bernel\"]", VERDICT_FAIL,
                   "cannot be evaluated as Kata does");
  annotation_case ("an RE2 flag group", "[\"(?i)PATH\"]", VERDICT_FAIL,
                   "cannot be evaluated as Kata does");
  annotation_case ("a backslash in brackets", "[\"[\\\\w]ernel\"]", VERDICT_FAIL,
                   "the bracket expression at byte 0 is not a plain one");
  annotation_case ("not an array", "\"kernel\"", VERDICT_FAIL, "not an array");
  annotation_case ("not strings", "[1]", VERDICT_FAIL, "not a string");
  /* kernel_params is enabled by Kata's shipped files; the policy judges
     the annotation's words (test-policy). */
  annotation_case ("harmless names", "[\"enable_iommu\", \"kernel_params\", \"default_vcpus\"]",
                   VERDICT_PASS, "3 patterns");
  annotation_case ("a harmless class", "[\"enable_[a-z]+\", \"^default_\"]", VERDICT_PASS, NULL);
  annotation_case ("none", "[]", VERDICT_PASS, "0 patterns");
  annotation_case ("guest hooks", "[\"guest_hook_path\"]", VERDICT_FAIL,
                   "\"guest_hook_path\" enables guest_hook_path");
  annotation_case ("guest hooks, a class", "[\"guest_[a-z]+\"]", VERDICT_FAIL,
                   "enables guest_hook_path");
  /* prefetch_files.list exists in runtime-rs only. */
  annotation_case ("prefetch list, the Go shim", "[\"prefetch\"]", VERDICT_PASS, NULL);
  rs_annotation_case ("prefetch list, runtime-rs", "[\"prefetch\"]", VERDICT_FAIL,
                      "\"prefetch\" enables prefetch_files.list");
  rs_annotation_case ("the shipped runtime-rs patterns",
                      "[\"enable_iommu\", \"kernel_params\", \"kernel_verity_params\", "
                      "\"default_vcpus\", \"default_memory\"]",
                      VERDICT_PASS, "5 patterns");
}

/* Whether kata_annotation_enabled reads PATTERNS (a TOML array) as
   enabling the sizing annotation BARE: WANT 1 yes, 0 no, -1 cannot tell
   (the sizing then refuses a spec that carries it). */
static void
enabled_case (const char *label, const char *patterns, const char *bare, int want)
{
  struct run r;

  annotations_tree ("configuration-fc.toml", patterns);
  run (&r, label);
  if (r.pf.from_kata.config == NULL)
    ok (false, "%s: the configuration loads", label);
  else
    is_int (kata_annotation_enabled (r.pf.from_kata.config, bare), want, "%s: %s", label, bare);
  done (&r);
}

/* One regular-expression dialect, the runtime's (issue 46): Go's regexp
   (RE2) and runtime-rs's regex crate end a bracket expression at its
   first ']', glibc's regcomp reads [.x.], [=x=] and [:x:] inside it.
   "[[.].]|default_memory|[.].]]zzz" is three alternatives for Kata, the
   second default_memory; for glibc one bracket followed by "zzz". */
static void
dialect_cases (void)
{
  annotation_case ("a collating element hides an alternative", "[\"[[.].]|path|[.].]]zzz\"]",
                   VERDICT_FAIL, "[[.].]|path|[.].]]zzz");
  annotation_case ("an equivalence class", "[\"[[=a=]]|kernel\"]", VERDICT_FAIL, "kernel");
  annotation_case ("a character class", "[\"x[[:alpha:]]|initrd\"]", VERDICT_FAIL, "initrd");
  annotation_case ("a counted repeat", "[\"ima{1}ge\"]", VERDICT_FAIL, "ima{1}ge");
  annotation_case ("a nested repeat RE2 refuses", "[\"kernel**\"]", VERDICT_FAIL, "kernel**");
  annotation_case ("a ']' outside brackets", "[\"]|jailer_path\"]", VERDICT_FAIL, "]|jailer_path");
  rs_annotation_case ("runtime-rs: a collating element", "[\"[[.].]|prefetch|[.].]]zzz\"]",
                      VERDICT_FAIL, "prefetch");
  /* The patterns of Kata's shipped files, and plain classes, still pass. */
  annotation_case ("plain grammar", "[\"^(enable|disable)_[a-z0-9_]+$\", \"default_v?cpus\"]",
                   VERDICT_PASS, "2 patterns");
  enabled_case ("a collating element", "[\"[[.].]|default_memory|[.].]]zzz\"]", "default_memory",
                -1);
  enabled_case ("an equivalence class", "[\"[[=d=]]efault_memory\"]", "default_memory", -1);
  enabled_case ("a counted repeat", "[\"default_mem{1}ory\"]", "default_memory", -1);
  enabled_case ("a plain class", "[\"default_[a-z]+\"]", "default_memory", 1);
  enabled_case ("a plain name", "[\"default_memory\"]", "default_memory", 1);
  enabled_case ("another name", "[\"default_vcpus\"]", "default_memory", 0);
  enabled_case ("anchored", "[\"^memory\"]", "default_memory", 0);
  /* Every pattern of the list is read, after one that matches too:
     runtime-rs compiles them as one RegexSet, which enables nothing when
     one of them does not compile. */
  enabled_case ("a match, then one that cannot be told",
                "[\"default_memory\", \"[[.].]|x|[.].]]zzz\"]", "default_memory", -1);
  /* glibc finds "(^.|a)+$" in "ab"; Go and Rust do not (the oracle's
     finding): anchors stay out of groups. */
  enabled_case ("an anchor inside a repeated group", "[\"(^.|a)+$\"]", "ab", -1);
  enabled_case ("anchors outside groups", "[\"^(.|a)+$\"]", "ab", 1);
  enabled_case ("groups deeper than three", "[\"((((default_memory))))\"]", "default_memory", -1);
  enabled_case ("a name outside the names' alphabet", "[\"default\"]", "Default_memory", -1);
}

/* Which runtime reads the configuration, and what follows from it. */
static void
runtime_choice_cases (void)
{
  struct run r;
  char link[PATH_MAX];

  tree_new ("configuration-rs-fc.toml", NULL);
  run (&r, "runtime-rs's shim path", .shim = rs_shim ());
  expect_all_pass (&r, true);
  expect (&r, "kata.config", VERDICT_PASS, "read as runtime-rs reads it");
  expect (&r, "kata.runtime", VERDICT_PASS, "is runtime-rs's shim as kata-deploy installs it");
  ok (r.pf.from_kata.config && r.pf.from_kata.config->runtime == KATA_RUNTIME_RS,
      "runtime-rs's shim path: the configuration is handed on as runtime-rs's");
  done (&r);
  run (&r, "the Go shim's path");
  expect (&r, "kata.config", VERDICT_PASS, "read as the Go shim reads it");
  ok (r.pf.from_kata.config && r.pf.from_kata.config->runtime == KATA_RUNTIME_GO,
      "the Go shim's path: the configuration is handed on as the Go shim's");
  done (&r);
  /* Told by the key: a shim anywhere. */
  test_write_file (tp ("opt/kata/bin/custom-shim"), "#!/bin/sh\nexit 0\n", 0755);
  run (&r, "[kata] runtime = runtime-rs", .shim = tp ("opt/kata/bin/custom-shim"),
       .runtime = "runtime-rs");
  expect (&r, "kata.config", VERDICT_PASS, "read as runtime-rs reads it ([kata] runtime = ");
  ok (r.pf.from_kata.config && r.pf.from_kata.config->runtime == KATA_RUNTIME_RS,
      "[kata] runtime = runtime-rs: handed on as runtime-rs's");
  done (&r);
  run (&r, "[kata] runtime = go, runtime-rs's shim", .shim = rs_shim (), .runtime = "go");
  expect (&r, "kata.runtime", VERDICT_FAIL, "but [kata] runtime = \"go\"");
  done (&r);
  run (&r, "[kata] runtime = runtime-rs, the Go shim's kata-deploy path", .runtime = "runtime-rs");
  expect (&r, "kata.runtime", VERDICT_FAIL, "is the Go shim as kata-deploy installs it");
  done (&r);
  /* A link at runtime-rs's path to another file says two things. */
  snprintf (link, sizeof link, "%s", rs_shim ());
  unlink (link);
  if (symlink (tp ("opt/kata/bin/containerd-shim-kata-v2"), link) < 0)
    die ("symlink", link);
  run (&r, "runtime-rs's path, a link to another shim", .shim = link);
  expect (&r, "kata.runtime", VERDICT_FAIL, "resolves to another file");
  done (&r);
}

/* The file each runtime loads when the engine and the environment name
   one (shim mode). */
static void
runtime_rs_precedence_cases (void)
{
  struct run r;
  char other[PATH_MAX];
  char *conf, *console;

  tree_new ("configuration-rs-fc.toml", NULL);
  snprintf (other, sizeof other, "%s", tp (DEFAULTS "/other.toml"));
  conf = fixture_in_tree ("configuration-rs-fc.toml", "debug_console_enabled");
  test_write_file (other, conf, 0644);
  free (conf);
  /* The same file with the agent's debug console on. */
  conf = fixture_in_tree ("configuration-rs-fc.toml", NULL);
  console = strstr (conf, "debug_console_enabled = false");
  if (console == NULL)
    die ("no debug_console_enabled = false in", "configuration-rs-fc.toml");
  memcpy (console, "debug_console_enabled = true ", 29);
  test_write_file (tp (DEFAULTS "/console.toml"), conf, 0644);
  free (conf);

  /* runtime-rs: KATA_CONF_FILE over the engine's config_path. */
  setenv ("KATA_CONF_FILE", tp (DEFAULTS "/console.toml"), 1);
  run (&r, "runtime-rs: KATA_CONF_FILE and config_path", .mode = KG_MODE_SHIM, .shim = rs_shim (),
       .kata_config = "", .req_config = other);
  expect (&r, "kata.config", VERDICT_PASS, "console.toml (from KATA_CONF_FILE)");
  expect (&r, "kata.debug", VERDICT_FAIL, "debug_console_enabled = true");
  done (&r);
  /* The Go shim: config_path over KATA_CONF_FILE. */
  run (&r, "the Go shim: KATA_CONF_FILE and config_path", .mode = KG_MODE_SHIM, .kata_config = "",
       .req_config = other);
  expect (&r, "kata.config", VERDICT_PASS, "other.toml (from the engine's config_path option)");
  expect (&r, "kata.debug", VERDICT_PASS, NULL);
  done (&r);

  /* Set but empty: runtime-rs 4.x refuses to start, 3.x searches. */
  setenv ("KATA_CONF_FILE", "", 1);
  run (&r, "runtime-rs: KATA_CONF_FILE empty", .mode = KG_MODE_SHIM, .shim = rs_shim (),
       .kata_config = "", .req_config = other);
  expect (&r, "kata.config", VERDICT_FAIL, "KATA_CONF_FILE is set but empty");
  done (&r);
  run (&r, "the Go shim: KATA_CONF_FILE empty", .mode = KG_MODE_SHIM, .kata_config = "",
       .req_config = other);
  expect (&r, "kata.config", VERDICT_PASS, "from the engine's config_path option");
  done (&r);
  unsetenv ("KATA_CONF_FILE");
}

/* Dragonball and openvmm: which runtime has them. */
static void
runtime_hypervisor_cases (void)
{
  struct run r;
  char buf[4 * PATH_MAX];

  tree_new ("4.1.0/runtime-rs/configuration-dragonball.toml", NULL);
  run (&r, "Dragonball, runtime-rs", .shim = rs_shim (), .hv = { "dragonball" });
  expect_all_pass (&r, false);
  expect (&r, "kata.hypervisor", VERDICT_PASS, "built into the runtime-rs shim");
  done (&r);
  run (&r, "Dragonball, the Go shim", .hv = { "dragonball" });
  expect (&r, "kata.hypervisor", VERDICT_FAIL, "mock hypervisor and no VM");
  done (&r);

  tree_new ("configuration-fc.toml", NULL);
  snprintf (buf, sizeof buf,
            "[hypervisor.openvmm]\npath = \"%s\"\nkernel = \"%s\"\nvirtio_fs_daemon = \"%s\"\n"
            "[runtime]\nhypervisor_name = \"openvmm\"\n",
            tp ("opt/kata/bin/openvmm"), tp ("opt/kata/share/kata-containers/vmlinux.container"),
            tp ("opt/kata/libexec/virtiofsd"));
  test_write_file (kconf (), buf, 0644);
  test_write_file (tp ("opt/kata/bin/openvmm"), "#!/bin/sh\nexit 0\n", 0755);
  run (&r, "openvmm, runtime-rs", .shim = rs_shim (), .hv = { "openvmm" });
  expect (&r, "kata.hypervisor", VERDICT_PASS, tp ("opt/kata/bin/openvmm"));
  done (&r);
  chmod (tp ("opt/kata/bin/openvmm"), 0777);
  run (&r, "openvmm, runtime-rs, a world-writable VMM", .shim = rs_shim (), .hv = { "openvmm" });
  expect (&r, "kata.hypervisor", VERDICT_FAIL, "writable by others");
  done (&r);
  chmod (tp ("opt/kata/bin/openvmm"), 0755);
  run (&r, "openvmm, the Go shim", .hv = { "openvmm" });
  expect (&r, "kata.hypervisor", VERDICT_FAIL, "Kata's Go shim does not know it");
  done (&r);
}

/* What runtime-rs's serde types refuse, and the Go shim ignores. */
static void
runtime_rs_strict_cases (void)
{
  static const struct
  {
    const char *label, *dropin, *want;
  } cases[] = {
    { "unknown [agent.kata] key", "[agent.kata]\ndial_timeout = 20\n",
      "[agent.kata] dial_timeout" },
    { "the field's Rust name", "[agent.kata]\ndebug = false\n", "[agent.kata] debug" },
    { "unknown [agent.other] key", "[agent.other]\nx = 1\n", "[agent.other] x" },
    { "unknown mem_agent key", "[agent.kata.mem_agent]\nmemcg = true\n",
      "[agent.kata.mem_agent] memcg" },
    { "mem_agent's alias twice", "[agent.kata.mem_agent]\nenable = true\nmem_agent_enable = true\n",
      "both enable and mem_agent_enable" },
    { "unknown factory key", "[hypervisor.firecracker.factory]\nvm_cache_number = 1\n",
      "[hypervisor.firecracker.factory] vm_cache_number" },
  };
  struct run r;

  for (size_t i = 0; i < ARRAY_SIZE (cases); i++)
    {
      char label[160];

      tree_new ("configuration-rs-fc.toml", NULL);
      dropin ("50-strict.toml", cases[i].dropin, 0644);
      snprintf (label, sizeof label, "runtime-rs, %s", cases[i].label);
      run (&r, label, .shim = rs_shim ());
      expect (&r, "kata.config", VERDICT_FAIL, cases[i].want);
      done (&r);
      snprintf (label, sizeof label, "the Go shim, %s", cases[i].label);
      run (&r, label);
      expect (&r, "kata.config", VERDICT_PASS, NULL);
      done (&r);
    }
  tree_new ("configuration-rs-fc.toml", NULL);
  dropin ("50-known.toml",
          "[agent.kata]\nvisible_cdi_devices = true\npolicy = \"\"\n"
          "[agent.kata.mem_agent]\nmem_agent_enable = false\n"
          "[hypervisor.firecracker.factory]\nenable_template = false\ntemplate_path = \"/x\"\n",
          0644);
  run (&r, "runtime-rs, known keys", .shim = rs_shim ());
  expect (&r, "kata.config", VERDICT_PASS, NULL);
  done (&r);

  /* A symlinked drop-in: runtime-rs refuses it, the Go shim reads it. */
  tree_new ("configuration-rs-fc.toml", NULL);
  dropin ("x", "[hypervisor.firecracker]\nkernel = \"/linked\"\n", 0644);
  if (rename (tp (DEFAULTS "/config.d/x"), tp (DEFAULTS "/linked.toml")) < 0
      || symlink ("../linked.toml", tp (DEFAULTS "/config.d/20-linked.toml")) < 0)
    die ("symlink", tp (DEFAULTS "/config.d/20-linked.toml"));
  run (&r, "runtime-rs, a symlinked drop-in", .shim = rs_shim ());
  expect (&r, "kata.config", VERDICT_FAIL, "is a symbolic link");
  done (&r);
  run (&r, "the Go shim, a symlinked drop-in");
  expect (&r, "kata.config", VERDICT_PASS, NULL);
  is_str (hv_string (&r, "kernel"), "/linked", "the Go shim reads through the link");
  done (&r);
}

/* Kata's search order, with nothing named: in a private mount namespace a
   tmpfs over /opt holds a release install at /opt/kata. */
static void
search_order_case (void)
{
  struct run r;

  if (access ("/etc/kata-containers/configuration.toml", F_OK) == 0 || access ("/opt", F_OK) < 0)
    {
      ok (true, "# SKIP this host has /etc/kata-containers/configuration.toml or no /opt");
      return;
    }
  if (unshare (CLONE_NEWNS) < 0 || mount ("none", "/", "none", MS_REC | MS_PRIVATE, NULL) < 0
      || mount ("kg-test", "/opt", "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755,size=16m") < 0)
    {
      ok (true, "# SKIP no private mount namespace: %s", strerror (errno));
      return;
    }
  tree[0] = '\0';
  tree_new ("configuration-fc.toml", NULL);
  run (&r, "Kata's search order", .kata_config = "");
  expect_all_pass (&r, true);
  expect (&r, "kata.config", VERDICT_PASS,
          "/opt/kata/share/defaults/kata-containers/configuration.toml (from Kata's search order)");
  done (&r);
  /* The guard must check what Kata loads: a [kata] config naming another
     file while Kata's search order finds this one is a mismatch. */
  run (&r, "[kata] config another file than Kata's search order finds",
       .kata_config = "/opt/elsewhere/configuration.toml");
  expect (&r, "kata.config", VERDICT_FAIL,
          "Kata will load /opt/kata/share/defaults/kata-containers/configuration.toml (from Kata's "
          "search order), not [kata] config /opt/elsewhere/configuration.toml");
  done (&r);
  run (&r, "[kata] config the file Kata's search order finds",
       .kata_config = "/opt/kata/share/defaults/kata-containers/configuration.toml");
  expect (&r, "kata.config", VERDICT_PASS, "(from Kata's search order)");
  done (&r);
  umount2 ("/opt", MNT_DETACH);
}

int
main (void)
{
  char tmpl[] = TEST_BASE "/kata.XXXXXX";

  if (geteuid () != 0)
    tap_skip_all ("needs root: the trusted-path test requires root-owned files");
  fixtures = getenv ("KG_FIXTURES");
  if (fixtures == NULL || *fixtures == '\0')
    tap_skip_all ("KG_FIXTURES is not set (run through make check)");
  umask (022);
  if ((mkdir (TEST_BASE, 0755) < 0 && errno != EEXIST) || chmod (TEST_BASE, 0755) < 0
      || chown (TEST_BASE, 0, 0) < 0)
    die ("mkdir", TEST_BASE);
  if (mkdtemp (tmpl) == NULL || chmod (tmpl, 0755) < 0)
    die ("mkdtemp", tmpl);
  snprintf (base, sizeof base, "%s", tmpl);
  atexit (cleanup);

  shipped_profiles ();
  runtime_cases ();
  resolution_cases ();
  dropin_cases ();
  hypervisor_cases ();
  debug_cases ();
  annotation_cases ();
  dialect_cases ();
  runtime_choice_cases ();
  runtime_rs_precedence_cases ();
  runtime_hypervisor_cases ();
  runtime_rs_strict_cases ();
  search_order_case ();
  return tap_done ();
}
