/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What every part of policy.*'s unit tests shares (tests/test-policy*.c,
   one program each): the test directory, the Kata configurations, a run
   of the family on a spec, its expectations, and the specs the rows build.
   Each program includes it once; a part that uses fewer of the functions
   still builds without warnings (unused). */
#ifndef KG_TEST_POLICY_H
#define KG_TEST_POLICY_H

#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/capability.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "checks.h"
#include "preflight.h"
#include "conf.h"
#include "kata.h"
#include "jtree.h"
#include "policy.h"
#include "request.h"
#include <json-c/json_c_version.h>

#include "array.h"
#include "buf.h"
#include "cleanup.h"
#include "error.h"
#include "fdio.h"
#include "tap.h"
#include "test-files.h"
#include "toml.h"
#include "trust.h"

/* The rows' directory (policy_test_start): not under /tmp, which
   policy.mounts refuses as a whole, where it can be helped. */
static char tmpdir[PATH_MAX];
/* Whether it is under /tmp or /var/tmp all the same (without root, in a
   build tree there), and whether it is trusted (trust.h: root's, and
   every directory above it), as only root can make it. */
static bool tmpdir_shared, tmpdir_trusted;
static char tmpdir_why[PATH_MAX + 64]; /* why it is not trusted */
static const char *fixtures;
static struct kata_config kata_fc;      /* the shipped Firecracker config */
static struct kata_config kata_seccomp; /* disable_guest_seccomp = false */
static int bundle_seq;
static const char *run_egress; /* [egress] lines of run_policy's config; NULL: disabled */

static const char *const all_ids[] = {
  "policy.spec",        "policy.privileged",   "policy.namespaces",   "policy.identity",
  "policy.mounts",      "policy.capabilities", "policy.devices",      "policy.hooks",
  "policy.annotations", "policy.seccomp",      "policy.memory_limit", "policy.resources",
  "policy.labels",      "policy.confinement",  "egress.netns",
};

/* Not inlined: GCC 12 takes the text for a pointer into read_text's own
   frame once it is (-Wdangling-pointer), which it is not. */
static __attribute__ ((unused, noinline)) char *
read_text (const char *path)
{
  char *buf = NULL;
  size_t len;
  kg_error_t err = NULL;

  if (kg_read_file_bounded (path, 0, 8 << 20, &buf, &len, &err) < 0)
    {
      printf ("# %s\n", err->msg);
      abort ();
    }
  return buf;
}

/* Replace every NEEDLE in S (freed) with REP. */
static __attribute__ ((unused)) char *
replace (char *s, const char *needle, const char *rep)
{
  size_t nl = strlen (needle), rl = strlen (rep), n = 0;
  char *out, *o;

  for (char *p = strstr (s, needle); p; p = strstr (p + nl, needle))
    n++;
  out = malloc (strlen (s) + n * rl + 1);
  if (out == NULL)
    abort ();
  o = out;
  for (char *p = s, *q; (q = strstr (p, needle)) != NULL || *p; p = q + nl)
    {
      if (q == NULL)
        {
          strcpy (o, p);
          o += strlen (p);
          break;
        }
      memcpy (o, p, (size_t) (q - p));
      o += q - p;
      memcpy (o, rep, rl);
      o += rl;
    }
  *o = '\0';
  free (s);
  return out;
}

/* The container id a Docker spec belongs to: the directory of its
   resolv.conf under /var/lib/docker/containers; for ctr's, the last name
   of the /NAMESPACE/ID it wrote as linux.cgroupsPath. */
static __attribute__ ((unused)) char *
docker_id (const char *spec)
{
  const char *p = strstr (spec, "/var/lib/docker/containers/");
  const char *cg = strstr (spec, "\"cgroupsPath\":\"/default/");

  if (p == NULL && cg != NULL)
    return strndup (cg + 24, strcspn (cg + 24, "\""));
  if (p == NULL)
    return strdup ("ctr-test");
  return strndup (p + 27, 64);
}

/* The Kata configuration at PATH (or TEXT) as RUNTIME reads it, with its
   first [hypervisor.*] table as the one. */
static __attribute__ ((unused)) void
load_kata_as (struct kata_config *k, const char *path, const char *text, enum kata_runtime runtime)
{
  kg_error_t err = NULL;
  const struct toml_value *hvs;

  k->doc = path ? toml_parse_file (path, &err) : toml_parse ("kata", text, strlen (text), &err);
  if (k->doc == NULL)
    {
      printf ("# %s\n", err->msg);
      abort ();
    }
  hvs = toml_get (k->doc, "hypervisor");
  if (hvs == NULL || hvs->kind != TOML_TABLE || hvs->u.table.n == 0)
    abort ();
  k->hypervisor_name = hvs->u.table.items[0].key;
  k->hypervisor = hvs->u.table.items[0].value;
  k->runtime = runtime;
}

static __attribute__ ((unused)) void
load_kata (struct kata_config *k, const char *path, const char *text)
{
  load_kata_as (k, path, text, KATA_RUNTIME_GO);
}

/* A shipped configuration, fixtures/kata/VERSION/NAME, as RUNTIME reads it. */
static __attribute__ ((unused)) void
load_shipped (struct kata_config *k, const char *name, enum kata_runtime runtime)
{
  cleanup_free char *path = NULL;

  if (asprintf (&path, "%s/kata/%s", fixtures, name) < 0)
    abort ();
  load_kata_as (k, path, NULL, runtime);
}

/* The mode the rows run in: `kata-guard check` unless a row says. */
static enum kg_mode run_mode = KG_MODE_CHECK;
/* The containerd namespace the rows run in (NULL: none): the bundle is
   then containerd's task directory of the container, and a shim-mode
   row passes it as -namespace. */
static const char *run_ns;
/* The rows run without a bundle (`kata-guard check` alone: SPEC unused). */
static bool run_without_bundle;
/* The engine's namespaces and bounding set the rows run with (NULL: this
   process's, read in place). */
static const struct engine_ns *run_engine_ns;
/* The privileged requests, as the confined checker would make them
   (request-list.h); NULL: the rules do it in place. */
static ssize_t (*run_proc_exe) (unsigned long pid, char *buf, size_t size);
static int (*run_ns_stat) (unsigned long pid, int k, struct stat *st);

static __attribute__ ((unused)) void
mkdir_p (const char *dir)
{
  cleanup_free char *cmd = NULL;

  if (asprintf (&cmd, "mkdir -p '%s'", dir) < 0 || system (cmd) != 0)
    abort ();
}

/* Run the policy family on SPEC (config.json text; NULL: leave the bundle
   as the caller made it in *BUNDLE) with [policy] POLICY lines added. */
static __attribute__ ((unused)) void
run_policy (const char *spec, const char *id, const char *policy, struct kata_config *kata,
            struct report *rep, char **bundle_out)
{
  cleanup_free char *bundle = NULL;
  cleanup_free char *cfg_path = NULL;
  cleanup_free char *cfg_text = NULL;
  cleanup_free char *spec_path = NULL;
  struct guard_config cfg;
  struct request req = { .mode = run_mode,
                         .container_id = id,
                         .ns = run_mode == KG_MODE_SHIM ? run_ns : NULL,
                         .engine_ns = run_engine_ns,
                         .proc_exe = run_proc_exe,
                         .ns_stat = run_ns_stat };
  struct preflight pf;
  kg_error_t err = NULL;
  bool own_podman = policy != NULL && strstr (policy, "podman_roots") != NULL;
  bool own_drift = policy != NULL && strstr (policy, "[drift]") != NULL;

  if (run_without_bundle)
    bundle = NULL;
  else if (bundle_out != NULL && *bundle_out != NULL)
    bundle = strdup (*bundle_out);
  else if (run_ns != NULL)
    {
      if (asprintf (&bundle, "%s/state/io.containerd.runtime.v2.task/%s/%s", tmpdir, run_ns, id)
          < 0)
        abort ();
      mkdir_p (bundle);
    }
  else if (asprintf (&bundle, "%s/b%d", tmpdir, ++bundle_seq) < 0 || mkdir (bundle, 0755) < 0)
    abort ();
  if (spec != NULL)
    {
      if (asprintf (&spec_path, "%s/config.json", bundle) < 0)
        abort ();
      test_write_text (spec_path, spec);
    }
  if (asprintf (&cfg_path, "%s/guard.toml", tmpdir) < 0
      || asprintf (&cfg_text, "%s%s%s[egress]\n%s\n[policy]\n%s%s%s%s%s\n",
                   /* The posture record in the test directory unless the
                      row names its own: policy.mounts resolves the guard's
                      own files, and where a guard ran (or a root test made
                      it), /var/lib/kata-guard is root's 0700, so without
                      root every row would fail "cannot resolve a [policy]
                      path" (the package's build as nobody, tests/packages.test). */
                   own_drift ? "" : "[drift]\nrecord = \"", own_drift ? "" : tmpdir,
                   own_drift ? "" : "/posture.json\"\n",
                   /* egress.netns has rows of its own (test_network). */
                   run_egress ? run_egress : "enabled = false",
                   /* A fixed maximum, so that no row depends on this host's memory. */
                   policy && strstr (policy, "max_vm_memory_mib") ? ""
                                                                  : "max_vm_memory_mib = 16384\n",
                   /* podman's roots in the test directory unless the row
                      names its own: podman makes /var/lib/containers and
                      /run/containers 0700, and without root every row would
                      fail on the defaults ("cannot resolve a [policy]
                      path") on a host where it ran (test-config reads
                      the defaults; no row here is about them). */
                   own_podman ? "" : "podman_roots = [\"", own_podman ? "" : tmpdir,
                   own_podman ? "" : "/podman-default\"]\n", policy ? policy : "")
             < 0)
    abort ();
  test_write_text (cfg_path, cfg_text);
  if (guard_config_load (cfg_path, &cfg, &err) < 0)
    {
      printf ("# %s\n", err->msg);
      abort ();
    }
  memset (rep, 0, sizeof *rep);
  req.bundle = bundle;
  preflight_init (&pf, &req, &cfg, rep);
  pf.from_kata.config = kata;
  check_policy (&pf);
  pf.from_kata.config = NULL;
  preflight_release (&pf);
  guard_config_release (&cfg);
  if (bundle_out != NULL && *bundle_out == NULL)
    *bundle_out = steal_pointer (&bundle);
}

/* The ids that failed, space-separated, in report order. */
static __attribute__ ((unused)) char *
failed_ids (const struct report *rep)
{
  char *s = calloc (1, 1024);

  for (size_t i = 0; s && i < rep->n; i++)
    if (rep->results[i].verdict == VERDICT_FAIL)
      snprintf (s + strlen (s), 1024 - strlen (s), "%s%s", *s ? " " : "", rep->results[i].id);
  return s;
}

static __attribute__ ((unused)) bool
once_each (const struct report *rep)
{
  if (rep->n != ARRAY_SIZE (all_ids))
    return false;
  for (size_t i = 0; i < ARRAY_SIZE (all_ids); i++)
    {
      size_t n = 0;

      for (size_t j = 0; j < rep->n; j++)
        n += strcmp (rep->results[j].id, all_ids[i]) == 0;
      if (n != 1)
        return false;
    }
  return true;
}

static __attribute__ ((unused)) const char *
reason (const struct report *rep, const char *id)
{
  const struct check_result *r = report_find (rep, id);

  return r ? r->reason : NULL;
}

/* Assert that ID's remedy holds WANT and, unless NULL, not NOT. */
static __attribute__ ((unused)) void
expect_remedy (const struct report *rep, const char *name, const char *id, const char *want,
               const char * not )
{
  const struct check_result *r = report_find (rep, id);
  const char *remedy = r && r->remedy ? r->remedy : "";

  if (! ok (strstr (remedy, want) != NULL && (not == NULL || strstr (remedy, not ) == NULL),
            "%s: %s's remedy says \"%s\"%s%s%s", name, id, want, not ? " and not \"" : "",
            not ? not : "", not ? "\"" : ""))
    printf ("#   remedy: %s\n", remedy);
}

/* Assert the failing ids (exactly) and that ITEM_ID's reason holds NEEDLE. */
static __attribute__ ((unused)) void
expect (const struct report *rep, const char *name, const char *fails, const char *item_id,
        const char *needle)
{
  cleanup_free char *got = failed_ids (rep);

  ok (once_each (rep), "%s: every policy id reported once", name);
  if (! is_str (got, fails, "%s: fails exactly [%s]", name, fails))
    for (size_t i = 0; i < rep->n; i++)
      printf ("#   %s %s: %s\n", verdict_name (rep->results[i].verdict), rep->results[i].id,
              rep->results[i].reason);
  if (item_id == NULL)
    return;
  /* Without root, paths under /root and /run/containerd cannot be
     resolved: the mount is then refused for that, which is also right. */
  if (geteuid () != 0 && reason (rep, item_id) != NULL
      && strstr (reason (rep, item_id), "cannot resolve") != NULL
      && strstr (reason (rep, item_id), "Permission denied") != NULL)
    needle = "Permission denied";
  /* Where the rows' directory is under /tmp all the same (without root,
     in a build tree there), what is in it is refused as /tmp's first:
     a row about a path there then names that, and a row about another
     reason of a path there cannot be told. */
  if (tmpdir_shared && strstr (needle, tmpdir) != NULL)
    needle = "the host's shared temporary files";
  else if (tmpdir_shared && reason (rep, item_id) != NULL
           && strstr (reason (rep, item_id), needle) == NULL
           && strstr (reason (rep, item_id), tmpdir) != NULL
           && strstr (reason (rep, item_id), ": the host's shared temporary files") != NULL)
    {
      ok (1, "# SKIP %s: %s names \"%s\": the rows' files are under /tmp, refused as that first",
          name, item_id, needle);
      return;
    }
  has_str (reason (rep, item_id), needle, "%s: %s names \"%s\"", name, item_id, needle);
}

/* Whether the row NAME can run: it needs the rows' directory trusted
   (trust.h), which only root can make; else it SKIPs, saying why. */
static __attribute__ ((unused)) bool
need_trusted (const char *name)
{
  if (! tmpdir_trusted)
    ok (1, "# SKIP %s: needs a directory of root's (%s)", name, tmpdir_why);
  return tmpdir_trusted;
}

/* run_policy on SPEC, then expect () of its report: the rows' one run. */
static __attribute__ ((unused)) void
run_expect (const char *spec, const char *id, const char *policy, struct kata_config *kata,
            const char *name, const char *fails, const char *item_id, const char *needle)
{
  struct report rep;

  run_policy (spec, id, policy, kata, &rep, NULL);
  expect (&rep, name, fails, item_id, needle);
  report_release (&rep);
}

/* ---- the real specs --------------------------------------------------- */

enum hook_rw
{
  HOOK_DOCKERD, /* /proc/<old pid>/exe -> the dockerd binary */
  HOOK_STALE,   /* left as written: a pid long gone */
};

static const struct
{
  const char *file;
  enum hook_rw hook;
  const char *policy; /* extra [policy] lines */
  const char *fails;
  const char *item_id, *needle;
  /* The spec's /dev/kvm (c 10:232), and so the policy's and the needle's,
     one of this host's devices (host_device): few hosts have /dev/kvm. */
  bool host_dev;
} fixture_rows[] = {
  { "docker-20.10/default.json", HOOK_DOCKERD, NULL, "policy.memory_limit", "policy.memory_limit",
    "no memory limit" },
  { "docker-20.10/default.json", HOOK_STALE, NULL, "policy.hooks policy.memory_limit",
    "policy.hooks", "/proc/12695/exe: cannot resolve" },
  { "docker-20.10/read-only-rootfs.json", HOOK_DOCKERD, NULL, "", "policy.resources",
    "2304 MiB (default_memory 2048 + limit 256 MiB) of at most 16384, 2 vCPUs of at most 32" },
  { "docker-20.10/limits.json", HOOK_DOCKERD, NULL, "", "policy.resources",
    "2560 MiB (default_memory 2048 + limit 512 MiB) of at most 16384, 3 vCPUs" },
  { "docker-20.10/data-ro.json", HOOK_DOCKERD, NULL, "policy.memory_limit", "policy.mounts",
    "4 bind mounts: 1 read-only, 3 this container's engine files" },
  { "docker-20.10/seccomp-unconfined.json", HOOK_DOCKERD, NULL, "policy.memory_limit",
    "policy.seccomp", "require_seccomp = false" },
  { "docker-20.10/seccomp-unconfined.json", HOOK_DOCKERD, "require_seccomp = true",
    "policy.seccomp policy.memory_limit", "policy.seccomp", "no seccomp profile (linux.seccomp)" },
  { "docker-20.10/privileged.json", HOOK_DOCKERD, NULL,
    "policy.privileged policy.capabilities policy.devices policy.memory_limit policy.confinement",
    "policy.privileged",
    "privileged container: the device cgroup allows every host device (a *:* rwm); it has "
    "every capability" },
  { "docker-20.10/privileged.json", HOOK_DOCKERD, "privileged = true", "policy.memory_limit",
    "policy.privileged", "allowed by [policy] privileged = true" },
  { "docker-20.10/docker-sock.json", HOOK_DOCKERD, NULL, "policy.mounts policy.memory_limit",
    "policy.mounts", "/var/run/docker.sock -> /run/docker.sock: an engine socket" },
  { "docker-20.10/host-network.json", HOOK_DOCKERD, NULL, "policy.namespaces policy.memory_limit",
    "policy.namespaces", "network namespace /proc/self/ns/net is the engine's own" },
  { "docker-20.10/host-network.json", HOOK_DOCKERD, "host_namespaces = true", "policy.memory_limit",
    "policy.namespaces", "host network namespace /proc/self/ns/net allowed" },
  { "docker-20.10/cap-add-sys-admin.json", HOOK_DOCKERD, NULL,
    "policy.capabilities policy.memory_limit", "policy.capabilities",
    "beyond [policy] capabilities: CAP_SYS_ADMIN" },
  { "docker-20.10/ssh-ro.json", HOOK_DOCKERD, NULL, "policy.mounts policy.memory_limit",
    "policy.mounts", "/root/.ssh: credentials" },
  { "docker-20.10/data-rw.json", HOOK_DOCKERD, NULL, "policy.mounts policy.memory_limit",
    "policy.mounts", "/srv/data: writable bind mount outside [policy] writable_mounts" },
  { "docker-20.10/data-rw.json", HOOK_DOCKERD, "writable_mounts = [\"/srv\"]",
    "policy.memory_limit", "policy.mounts", "1 under [policy] writable_mounts" },
  { "docker-20.10/pid-host.json", HOOK_DOCKERD, NULL, "policy.namespaces policy.memory_limit",
    "policy.namespaces", "no pid namespace" },
  { "docker-20.10/device-kvm.json", HOOK_DOCKERD, NULL, "policy.devices policy.memory_limit",
    "policy.devices", "/dev/kvm (c 10:232); device cgroup rule c 10:232 rwm" },
  { "docker-20.10/device-kvm.json", HOOK_DOCKERD, NULL, "policy.devices policy.memory_limit",
    "policy.devices", "/dev/kvm (c 10:232); device cgroup rule c 10:232 rwm", true },
  { "docker-20.10/device-kvm.json", HOOK_DOCKERD, "devices = [\"/dev/kvm\"]", "policy.memory_limit",
    "policy.devices", "1 device", true },
  { "docker-20.10/too-many-cpus.json", HOOK_DOCKERD, NULL, "policy.resources", "policy.resources",
    "the VM would have 67584 MiB (default_memory 2048 + limit 65536 MiB), more than [policy] "
    "max_vm_memory_mib (16384 MiB)" },
  { "containerd-1.6/ctr-default.json", HOOK_DOCKERD, NULL, "policy.memory_limit",
    "policy.memory_limit", "no memory limit" },
  { "containerd-1.6/ctr-default.json", HOOK_DOCKERD, "require_memory_limit = false", "",
    "policy.resources", "2048 MiB (default_memory 2048 + limit 0 MiB)" },
  { "containerd-1.6/ctr-mounts-limits.json", HOOK_DOCKERD, NULL, "policy.mounts", "policy.mounts",
    "/srv/data: writable bind mount" },
  { "containerd-1.6/ctr-privileged-hostnet.json", HOOK_DOCKERD, NULL,
    "policy.privileged policy.namespaces policy.mounts policy.capabilities policy.devices "
    "policy.memory_limit policy.confinement",
    "policy.namespaces", "no network namespace" },
  { "containerd-1.6/ctr-privileged-hostnet.json", HOOK_DOCKERD, NULL,
    "policy.privileged policy.namespaces policy.mounts policy.capabilities policy.devices "
    "policy.memory_limit policy.confinement",
    "policy.mounts", "/etc/hosts: the host's configuration" },
};

/* A device node of this host's under /dev that no default grants, for
   the rows that allowlist one in [policy] devices, which matches by the
   numbers stat () gives for the path there: /dev/kvm is on few build
   hosts, and a device every engine grants (policy-devices.c's
   default_device: null, zero, full, random, urandom, tty, console, ptmx,
   the pty slaves) would pass without the allowlist.  A character device
   when there is one, else a block device, the first by name. */
struct host_device
{
  char path[PATH_MAX];
  char type; /* 'c' or 'b' */
  unsigned maj, min;
};

static __attribute__ ((unused)) bool
host_device (struct host_device *d)
{
  static const unsigned granted[][2] = { { 1, 3 }, { 1, 5 }, { 1, 7 }, { 1, 8 },
                                         { 1, 9 }, { 5, 0 }, { 5, 1 }, { 5, 2 } };
  struct dirent **names;
  int n = scandir ("/dev", &names, NULL, alphasort);
  bool found = false;

  for (int pass = 0; pass < 2 && ! found; pass++)
    for (int i = 0; i < n && ! found; i++)
      {
        struct stat st;
        char path[PATH_MAX];
        bool by_default = false;

        snprintf (path, sizeof path, "/dev/%s", names[i]->d_name);
        if (lstat (path, &st) < 0 || ! (pass == 0 ? S_ISCHR (st.st_mode) : S_ISBLK (st.st_mode)))
          continue;
        for (size_t j = 0; pass == 0 && j < ARRAY_SIZE (granted); j++)
          by_default |= major (st.st_rdev) == granted[j][0] && minor (st.st_rdev) == granted[j][1];
        if (by_default || (pass == 0 && major (st.st_rdev) == 136))
          continue;
        snprintf (d->path, sizeof d->path, "%s", path);
        d->type = pass == 0 ? 'c' : 'b';
        d->maj = major (st.st_rdev);
        d->min = minor (st.st_rdev);
        found = true;
      }
  for (int i = 0; i < n; i++)
    free (names[i]);
  if (n >= 0)
    free (names);
  return found;
}

/* S (freed) with /dev/kvm and its numbers as D's. */
static __attribute__ ((unused)) char *
as_host_device (char *s, const struct host_device *d)
{
  char json[96], text[32];

  snprintf (json, sizeof json, "\"type\":\"%c\",\"major\":%u,\"minor\":%u", d->type, d->maj,
            d->min);
  snprintf (text, sizeof text, "%c %u:%u", d->type, d->maj, d->min);
  s = replace (s, "\"type\":\"c\",\"major\":10,\"minor\":232", json);
  s = replace (s, "c 10:232", text);
  return replace (s, "/dev/kvm", d->path);
}

/* Docker's record of container ID in the rows' Docker root
   (TMPDIR/docker): config.v2.json naming the id, hostconfig.json with
   network mode NETWORK, and MID as the mount id of its rootfs. */
static __attribute__ ((unused)) char *
docker_record (const char *id, const char *mid, const char *network)
{
  cleanup_free char *dir = NULL, *path = NULL, *text = NULL;
  char *root;

  if (asprintf (&root, "%s/docker", tmpdir) < 0
      || asprintf (&dir, "%s/containers/%s", root, id) < 0)
    abort ();
  mkdir_p (dir);
  if (asprintf (&path, "%s/config.v2.json", dir) < 0
      || asprintf (&text, "{\"State\": {\"Running\": false}, \"ID\": \"%s\", \"Name\": \"/x\"}", id)
             < 0)
    abort ();
  test_write_text (path, text);
  free (path);
  free (text);
  if (asprintf (&path, "%s/hostconfig.json", dir) < 0
      || asprintf (&text, "{\"NetworkMode\": \"%s\"}", network) < 0)
    abort ();
  test_write_text (path, text);
  free (path);
  free (dir);
  if (asprintf (&dir, "%s/image/overlay2/layerdb/mounts/%s", root, id) < 0)
    abort ();
  mkdir_p (dir);
  if (asprintf (&path, "%s/mount-id", dir) < 0)
    abort ();
  test_write_text (path, mid);
  return root;
}

/* The mount id of a Docker spec's rootfs (.../overlay2/MID/merged). */
static __attribute__ ((unused)) char *
docker_mount_id (const char *spec)
{
  const char *p = strstr (spec, "/overlay2/");

  return p ? strndup (p + 10, 64) : strdup ("none");
}

/* Run a spec Docker wrote (*SPEC, rewritten) as Docker starts it: in
   its namespace, with its record of container ID in a Docker root of
   the rows' own (/var/lib/docker in the spec moved there). */
static __attribute__ ((unused)) void
run_docker (char **spec, const char *id, const char *policy, struct kata_config *kata,
            struct report *rep)
{
  cleanup_free char *mid = docker_mount_id (*spec);
  cleanup_free char *root = docker_record (id, mid, "none");
  cleanup_free char *with_root = NULL;
  cleanup_free char *root_slash = NULL;

  if (asprintf (&with_root, "engine_roots = [\"%s\"]\n%s", root, policy ? policy : "") < 0
      || asprintf (&root_slash, "%s/", root) < 0)
    abort ();
  *spec = replace (*spec, "/var/lib/docker/", root_slash);
  run_ns = "moby";
  run_policy (*spec, id, with_root, kata, rep, NULL);
  run_ns = NULL;
}

/* ---- synthetic specs ---------------------------------------------------- */

/* A small spec that passes every rule; each %s is one part a row changes:
   capabilities, mounts, resources, more of linux, more of the top level. */
/* The engines' default masks (policy.confinement). */
#define MASKED                                                                                     \
  "\"maskedPaths\": [\"/proc/acpi\", \"/proc/kcore\", \"/proc/keys\", \"/proc/latency_stats\", "   \
  "\"/proc/timer_list\", \"/proc/timer_stats\", \"/proc/sched_debug\", \"/proc/scsi\", "           \
  "\"/sys/firmware\"]"
#define READONLY                                                                                   \
  "\"readonlyPaths\": [\"/proc/bus\", \"/proc/fs\", \"/proc/irq\", \"/proc/sys\", "                \
  "\"/proc/sysrq-trigger\"]"

/* Not inlined: for the same false -Wdangling-pointer as read_text's. */
static __attribute__ ((unused, noinline)) char *
spec_of (const char *caps, const char *mounts, const char *res, const char *linux_more,
         const char *top_more)
{
  char *s;

  if (asprintf (&s,
                "{\"ociVersion\": \"1.0.2\",\n"
                " \"process\": {\"args\": [\"/bin/true\"], \"capabilities\": {\"bounding\": "
                "[%s], \"effective\": [%s]}},\n"
                " \"root\": {\"path\": \"rootfs\"},\n"
                " \"mounts\": [{\"destination\": \"/proc\", \"type\": \"proc\", \"source\": "
                "\"proc\"}%s%s],\n"
                " \"linux\": {\"namespaces\": [{\"type\": \"network\"}, {\"type\": \"pid\"}, "
                "{\"type\": \"ipc\"}, {\"type\": \"uts\"}, {\"type\": \"mount\"}],\n"
                "   " MASKED ",\n"
                "   " READONLY ",\n"
                "   \"resources\": {%s}%s%s}%s%s}\n",
                caps ? caps : "\"CAP_CHOWN\"", caps ? caps : "\"CAP_CHOWN\"", mounts ? ", " : "",
                mounts ? mounts : "",
                res ? res
                    : "\"memory\": {\"limit\": 268435456}, \"cpu\": {\"quota\": 100000, "
                      "\"period\": 100000}",
                linux_more ? ", " : "", linux_more ? linux_more : "", top_more ? ", " : "",
                top_more ? top_more : "")
      < 0)
    abort ();
  return s;
}

static __attribute__ ((unused)) char *
bind_of (const char *source, const char *options)
{
  char *s;

  if (asprintf (&s,
                "{\"destination\": \"/x\", \"type\": \"bind\", \"source\": \"%s\", "
                "\"options\": [%s]}",
                source, options)
      < 0)
    abort ();
  return s;
}

/* A CRI pod sandbox's bundle, SID of pod UID, in CRI's namespace of
   containerd's state under the rows' directory: what a member's start
   finds beside its own. */
static __attribute__ ((unused)) void
pod_sandbox_write (const char *sid, const char *uid)
{
  cleanup_free char *sb = NULL;
  cleanup_free char *path = NULL;
  cleanup_free char *text = NULL;

  if (asprintf (&sb, "%s/state/io.containerd.runtime.v2.task/k8s.io/%s", tmpdir, sid) < 0
      || asprintf (&path, "%s/config.json", sb) < 0
      || asprintf (&text,
                   "{\"ociVersion\": \"1.0.2\", \"annotations\": {"
                   "\"io.kubernetes.cri.container-type\": \"sandbox\", "
                   "\"io.kubernetes.cri.sandbox-id\": \"%s\", "
                   "\"io.kubernetes.cri.sandbox-uid\": \"%s\"}}",
                   sid, uid)
             < 0)
    abort ();
  mkdir_p (sb);
  test_write_text (path, text);
}

#define ID_A "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define ID_B "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"

/* Whether the physical path of DIR is under the host's shared temporary
   directories (policy-mounts.c refuses them and all below). */
static __attribute__ ((unused)) bool
in_shared_tmp (const char *dir)
{
  static const char *const shared[] = { "/tmp", "/var/tmp", "/dev/shm" };
  char real[PATH_MAX];

  if (realpath (dir, real) == NULL)
    return false;
  for (size_t i = 0; i < ARRAY_SIZE (shared); i++)
    {
      size_t n = strlen (shared[i]);

      if (strncmp (real, shared[i], n) == 0 && (real[n] == '/' || real[n] == '\0'))
        return true;
    }
  return false;
}

/* Before the rows: the test directory and the two Kata configurations.
   The directory: under root's test directory with root (as the fuzz
   harnesses use); without root in the directory the tests run in (the
   build tree: a buildd's is its user's), or /tmp when that is under
   /tmp as well or cannot be written. */
static __attribute__ ((unused)) void
policy_test_start (void)
{
  cleanup_free char *fc = NULL;
  char cwd[PATH_MAX - 32];
  struct trust_info *info = malloc (sizeof *info);
  kg_error_t err = NULL;
  int fd;

  fixtures = getenv ("KG_FIXTURES");
  if (fixtures == NULL)
    fixtures = "tests/fixtures";
  if (geteuid () == 0)
    {
      mkdir ("/var/lib/kata-guard-test", 0755);
      snprintf (tmpdir, sizeof tmpdir, "/var/lib/kata-guard-test/kg-test-policy.XXXXXX");
    }
  else if (getcwd (cwd, sizeof cwd) != NULL && ! in_shared_tmp (cwd)
           && access (cwd, W_OK | X_OK) == 0)
    snprintf (tmpdir, sizeof tmpdir, "%s/kg-test-policy.XXXXXX", cwd);
  else
    snprintf (tmpdir, sizeof tmpdir, "/tmp/kg-test-policy.XXXXXX");
  if (mkdtemp (tmpdir) == NULL || info == NULL)
    abort ();
  chmod (tmpdir, 0755);
  tmpdir_shared = in_shared_tmp (tmpdir);
  fd = trust_open (tmpdir, TRUST_DIR, info, &err);
  tmpdir_trusted = fd >= 0;
  if (fd >= 0)
    close (fd);
  else
    snprintf (tmpdir_why, sizeof tmpdir_why, "%s", err->msg);
  printf ("# the rows' directory: %s (%s)\n", tmpdir, tmpdir_trusted ? "trusted" : tmpdir_why);
  kg_error_release (&err);
  free (info);
  if (asprintf (&fc, "%s/kata/configuration-fc.toml", fixtures) < 0)
    abort ();
  load_kata (&kata_fc, fc, NULL);
  load_kata (&kata_seccomp, NULL,
             "[hypervisor.firecracker]\ndefault_memory = 2048\n[runtime]\n"
             "disable_guest_seccomp = false\n");
}

/* After them: the directory removed; the TAP plan and status. */
static __attribute__ ((unused)) int
policy_test_end (void)
{
  char cmd[sizeof tmpdir + 16];

  toml_free (kata_fc.doc);
  toml_free (kata_seccomp.doc);
  snprintf (cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
  if (system (cmd) != 0)
    printf ("# could not remove %s\n", tmpdir);
  return tap_done ();
}

/* Whether RULE, run on SPEC (its "PID" this process's id), asks the
   parent as often as ASKS, its count (request-list.h), says it does on
   the same text: *ASKED is the caller's counter, which its request stub
   (run_proc_exe, run_ns_stat) adds to; *DECLARED gets the count. */
static __attribute__ ((unused)) bool
asks_as_declared (const char *spec, size_t (*asks) (struct jv *), const unsigned *asked,
                  const char *rule, size_t *declared)
{
  cleanup_error kg_error_t err = NULL;
  struct report rep = { 0 };
  char me[16];
  char *text;
  struct jv *tree;
  bool ran;

  snprintf (me, sizeof me, "%d", (int) getpid ());
  text = replace (strdup (spec), "PID", me);
  tree = jv_read_strict ("config.json", text, strlen (text), 64, NULL, &err);
  if (tree == NULL)
    abort ();
  *declared = asks (tree);
  jv_free (tree);
  run_policy (text, ID_A, NULL, &kata_fc, &rep, NULL);
  ran = report_find (&rep, rule) != NULL;
  report_release (&rep);
  free (text);
  return ran && *asked == *declared;
}

#endif
