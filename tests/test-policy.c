/* SPDX-License-Identifier: GPL-2.0-or-later */
/* policy.*: the real Docker and containerd specs, then each rule's edges. */
#include "config.h"

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
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "checks.h"
#include "conf.h"
#include "policy.h"
#include <json-c/json_c_version.h>

#include "tap.h"
#include "test-files.h"
#include "toml.h"
#include "util.h"

/* Not under /tmp, which policy.mounts refuses as a whole: root's test
   directory (as the fuzz harnesses use), /tmp only without root. */
static char tmpdir[64];
static const char *fixtures;
static struct kata_config kata_fc;      /* the shipped Firecracker config */
static struct kata_config kata_seccomp; /* disable_guest_seccomp = false */
static int bundle_seq;
static const char *run_egress; /* [egress] lines of run_policy's config; NULL: disabled */

static const char *const all_ids[] = {
  "policy.spec",        "policy.privileged",   "policy.namespaces", "policy.identity",
  "policy.mounts",      "policy.capabilities", "policy.devices",    "policy.hooks",
  "policy.annotations", "policy.seccomp",      "policy.resources",  "policy.confinement",
  "egress.netns",
};

static char *
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
static char *
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
   resolv.conf under /var/lib/docker/containers. */
static char *
docker_id (const char *spec)
{
  const char *p = strstr (spec, "/var/lib/docker/containers/");

  if (p == NULL)
    return strdup ("ctr-test");
  return strndup (p + 27, 64);
}

/* The Kata configuration at PATH (or TEXT) as RUNTIME reads it, with its
   first [hypervisor.*] table as the one. */
static void
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

static void
load_kata (struct kata_config *k, const char *path, const char *text)
{
  load_kata_as (k, path, text, KATA_RUNTIME_GO);
}

/* A shipped configuration, fixtures/kata/VERSION/NAME, as RUNTIME reads it. */
static void
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
/* The engine's namespaces and bounding set the rows run with (NULL: this
   process's, read in place). */
static const struct engine_ns *run_engine_ns;

static void
mkdir_p (const char *dir)
{
  cleanup_free char *cmd = NULL;

  if (asprintf (&cmd, "mkdir -p '%s'", dir) < 0 || system (cmd) != 0)
    abort ();
}

/* Run the policy family on SPEC (config.json text; NULL: leave the bundle
   as the caller made it in *BUNDLE) with [policy] POLICY lines added. */
static void
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
                         .engine_ns = run_engine_ns };
  struct preflight pf;
  kg_error_t err = NULL;

  if (bundle_out != NULL && *bundle_out != NULL)
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
      || asprintf (&cfg_text, "[egress]\n%s\n[policy]\n%s%s\n",
                   /* egress.netns has rows of its own (test_network). */
                   run_egress ? run_egress : "enabled = false",
                   /* A fixed maximum, so that no row depends on this host's memory. */
                   policy && strstr (policy, "max_vm_memory_mib") ? ""
                                                                  : "max_vm_memory_mib = 16384\n",
                   policy ? policy : "")
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
static char *
failed_ids (const struct report *rep)
{
  char *s = calloc (1, 1024);

  for (size_t i = 0; s && i < rep->n; i++)
    if (rep->results[i].verdict == VERDICT_FAIL)
      snprintf (s + strlen (s), 1024 - strlen (s), "%s%s", *s ? " " : "", rep->results[i].id);
  return s;
}

static bool
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

static const char *
reason (const struct report *rep, const char *id)
{
  const struct check_result *r = report_find (rep, id);

  return r ? r->reason : NULL;
}

/* Assert the failing ids (exactly) and that ITEM_ID's reason holds NEEDLE. */
static void
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
  /* Without root the test files are under /tmp, which refuses first. */
  if (geteuid () != 0 && strstr (needle, tmpdir) != NULL)
    needle = "the host's shared temporary files";
  has_str (reason (rep, item_id), needle, "%s: %s names \"%s\"", name, item_id, needle);
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
} fixture_rows[] = {
  { "docker-20.10/default.json", HOOK_DOCKERD, NULL, "policy.resources", "policy.resources",
    "no memory limit" },
  { "docker-20.10/default.json", HOOK_STALE, NULL, "policy.hooks policy.resources", "policy.hooks",
    "/proc/12695/exe: cannot resolve" },
  { "docker-20.10/read-only-rootfs.json", HOOK_DOCKERD, NULL, "", "policy.resources",
    "2304 MiB (default_memory 2048 + limit 256 MiB) of at most 16384, 2 vCPUs of at most 32" },
  { "docker-20.10/limits.json", HOOK_DOCKERD, NULL, "", "policy.resources",
    "2560 MiB (default_memory 2048 + limit 512 MiB) of at most 16384, 3 vCPUs" },
  { "docker-20.10/data-ro.json", HOOK_DOCKERD, NULL, "policy.resources", "policy.mounts",
    "4 bind mounts: 1 read-only, 3 this container's engine files" },
  { "docker-20.10/seccomp-unconfined.json", HOOK_DOCKERD, NULL, "policy.resources",
    "policy.seccomp", "require_seccomp = false" },
  { "docker-20.10/seccomp-unconfined.json", HOOK_DOCKERD, "require_seccomp = true",
    "policy.seccomp policy.resources", "policy.seccomp", "no seccomp profile (linux.seccomp)" },
  { "docker-20.10/privileged.json", HOOK_DOCKERD, NULL,
    "policy.privileged policy.capabilities policy.devices policy.resources policy.confinement",
    "policy.privileged",
    "privileged container: the device cgroup allows every host device (a *:* rwm); it has "
    "every capability" },
  { "docker-20.10/privileged.json", HOOK_DOCKERD, "privileged = true", "policy.resources",
    "policy.privileged", "allowed by [policy] privileged = true" },
  { "docker-20.10/docker-sock.json", HOOK_DOCKERD, NULL, "policy.mounts policy.resources",
    "policy.mounts", "/var/run/docker.sock -> /run/docker.sock: an engine socket" },
  { "docker-20.10/host-network.json", HOOK_DOCKERD, NULL, "policy.namespaces policy.resources",
    "policy.namespaces", "network namespace /proc/self/ns/net is the engine's own" },
  { "docker-20.10/host-network.json", HOOK_DOCKERD, "host_namespaces = true", "policy.resources",
    "policy.namespaces", "host network namespace /proc/self/ns/net allowed" },
  { "docker-20.10/cap-add-sys-admin.json", HOOK_DOCKERD, NULL,
    "policy.capabilities policy.resources", "policy.capabilities",
    "beyond [policy] capabilities: CAP_SYS_ADMIN" },
  { "docker-20.10/ssh-ro.json", HOOK_DOCKERD, NULL, "policy.mounts policy.resources",
    "policy.mounts", "/root/.ssh: credentials" },
  { "docker-20.10/data-rw.json", HOOK_DOCKERD, NULL, "policy.mounts policy.resources",
    "policy.mounts", "/srv/data: writable bind mount outside [policy] writable_mounts" },
  { "docker-20.10/data-rw.json", HOOK_DOCKERD, "writable_mounts = [\"/srv\"]", "policy.resources",
    "policy.mounts", "1 under [policy] writable_mounts" },
  { "docker-20.10/pid-host.json", HOOK_DOCKERD, NULL, "policy.namespaces policy.resources",
    "policy.namespaces", "no pid namespace" },
  { "docker-20.10/device-kvm.json", HOOK_DOCKERD, NULL, "policy.devices policy.resources",
    "policy.devices", "/dev/kvm (c 10:232); device cgroup rule c 10:232 rwm" },
  { "docker-20.10/device-kvm.json", HOOK_DOCKERD, "devices = [\"/dev/kvm\"]", "policy.resources",
    "policy.devices", "1 device" },
  { "docker-20.10/too-many-cpus.json", HOOK_DOCKERD, NULL, "policy.resources", "policy.resources",
    "the VM would have 67584 MiB (default_memory 2048 + limit 65536 MiB), more than [policy] "
    "max_vm_memory_mib (16384 MiB)" },
  { "containerd-1.6/ctr-default.json", HOOK_DOCKERD, NULL, "policy.resources", "policy.resources",
    "no memory limit" },
  { "containerd-1.6/ctr-default.json", HOOK_DOCKERD, "require_memory_limit = false", "",
    "policy.resources", "2048 MiB (default_memory 2048 + limit 0 MiB)" },
  { "containerd-1.6/ctr-mounts-limits.json", HOOK_DOCKERD, NULL, "policy.mounts", "policy.mounts",
    "/srv/data: writable bind mount" },
  { "containerd-1.6/ctr-privileged-hostnet.json", HOOK_DOCKERD, NULL,
    "policy.privileged policy.namespaces policy.mounts policy.capabilities policy.devices "
    "policy.resources policy.confinement",
    "policy.namespaces", "no network namespace" },
  { "containerd-1.6/ctr-privileged-hostnet.json", HOOK_DOCKERD, NULL,
    "policy.privileged policy.namespaces policy.mounts policy.capabilities policy.devices "
    "policy.resources policy.confinement",
    "policy.mounts", "/etc/hosts: the host's configuration" },
};

/* Docker's record of container ID in the rows' Docker root
   (TMPDIR/docker): config.v2.json naming the id, hostconfig.json with
   network mode NETWORK, and MID as the mount id of its rootfs. */
static char *
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
static char *
docker_mount_id (const char *spec)
{
  const char *p = strstr (spec, "/overlay2/");

  return p ? strndup (p + 10, 64) : strdup ("none");
}

/* Run a spec Docker wrote (*SPEC, rewritten) as Docker starts it: in
   its namespace, with its record of container ID in a Docker root of
   the rows' own (/var/lib/docker in the spec moved there). */
static void
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

static void
test_fixtures (void)
{
  for (size_t i = 0; i < ARRAY_SIZE (fixture_rows); i++)
    {
      cleanup_free char *path = NULL;
      cleanup_free char *id = NULL;
      cleanup_free char *name = NULL;
      char *spec;
      struct report rep;

      if (asprintf (&path, "%s/oci/%s", fixtures, fixture_rows[i].file) < 0
          || asprintf (&name, "%s%s%s%s", fixture_rows[i].file,
                       fixture_rows[i].hook == HOOK_STALE ? " (stale hook)" : "",
                       fixture_rows[i].policy ? " with " : "",
                       fixture_rows[i].policy ? fixture_rows[i].policy : "")
                 < 0)
        abort ();
      spec = read_text (path);
      id = docker_id (spec);
      if (fixture_rows[i].hook == HOOK_DOCKERD)
        spec = replace (spec, "/proc/12695/exe", "/usr/sbin/dockerd");
      /* The engine's own network namespace, as Docker's netns/default is. */
      spec = replace (spec, "/var/run/docker/netns/default", "/proc/self/ns/net");
      /* Docker's specs as Docker starts them: in its namespace, with its
         record of the container in its data root; ctr's in "default". */
      if (strncmp (fixture_rows[i].file, "docker", 6) == 0)
        run_docker (&spec, id, fixture_rows[i].policy, &kata_fc, &rep);
      else
        {
          run_ns = "default";
          run_policy (spec, id, fixture_rows[i].policy, &kata_fc, &rep, NULL);
        }
      run_ns = NULL;
      expect (&rep, name, fixture_rows[i].fails, fixture_rows[i].item_id, fixture_rows[i].needle);
      if (strstr (fixture_rows[i].fails, "policy.privileged") == fixture_rows[i].fails
          && *fixture_rows[i].fails)
        {
          const char *first = NULL;

          for (size_t j = 0; j < rep.n && first == NULL; j++)
            if (rep.results[j].verdict == VERDICT_FAIL)
              first = rep.results[j].id;
          is_str (first, "policy.privileged", "%s: the first failure is policy.privileged", name);
        }
      report_release (&rep);
      free (spec);
    }
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

static char *
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

static char *
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

#define ID_A "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define ID_B "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"

static void
mount_row (const char *name, const char *source, const char *options, const char *policy,
           const char *fails, const char *needle)
{
  cleanup_free char *m = bind_of (source, options);
  cleanup_free char *spec = spec_of (NULL, m, NULL, NULL, NULL);
  struct report rep;

  run_policy (spec, ID_A, policy, &kata_fc, &rep, NULL);
  expect (&rep, name, fails, "policy.mounts", needle);
  report_release (&rep);
}

static void
test_mounts (void)
{
  cleanup_free char *link1 = NULL, *link2 = NULL, *home = NULL, *ssh = NULL, *sock = NULL;
  cleanup_free char *want1 = NULL, *want2 = NULL, *sockwant = NULL;
  struct sockaddr_un sa = { .sun_family = AF_UNIX };
  int fd;

  if (asprintf (&link1, "%s/link-sock", tmpdir) < 0 || asprintf (&link2, "%s/link-ssh", tmpdir) < 0
      || asprintf (&home, "%s/home", tmpdir) < 0 || asprintf (&ssh, "%s/home/.ssh", tmpdir) < 0
      || asprintf (&sock, "%s/agent.sock", tmpdir) < 0
      || asprintf (&want1, "%s -> /run/docker.sock: an engine socket", link1) < 0
      || asprintf (&want2, "%s -> /root/.ssh", link2) < 0
      || asprintf (&sockwant, "%s: a host socket", sock) < 0)
    abort ();
  if (symlink ("/var/run/docker.sock", link1) < 0 || symlink ("/root/.ssh", link2) < 0
      || mkdir (home, 0755) < 0 || mkdir (ssh, 0700) < 0)
    abort ();
  fd = socket (AF_UNIX, SOCK_STREAM, 0);
  snprintf (sa.sun_path, sizeof sa.sun_path, "%s", sock);
  if (fd < 0 || bind (fd, (struct sockaddr *) &sa, sizeof sa) < 0)
    abort ();
  close (fd);

  mount_row ("symlink to docker.sock", link1, "\"rbind\", \"ro\"", NULL, "policy.mounts", want1);
  /* Only root can look inside /root. */
  if (geteuid () == 0)
    mount_row ("symlink to /root/.ssh", link2, "\"rbind\", \"ro\"", NULL, "policy.mounts", want2);
  mount_row ("'..' into /root", "/srv/../root/x", "\"rbind\", \"ro\"", NULL, "policy.mounts",
             "/srv/../root/x -> /root/x: root's home");
  mount_row ("'..' into /etc", "/tmp/../etc", "\"rbind\", \"ro\"", NULL, "policy.mounts",
             "/tmp/../etc -> /etc: the host's configuration");
  mount_row ("/etc/shadow", "/etc/shadow", "\"rbind\", \"ro\"", NULL, "policy.mounts",
             "/etc/shadow: the host's configuration");
  mount_row ("/ itself", "/", "\"rbind\", \"ro\"", NULL, "policy.mounts", "/: contains");
  mount_row ("/var contains engine state", "/var", "\"rbind\", \"ro\"", NULL, "policy.mounts",
             "/var: contains /var/run/containerd");
  mount_row ("/var/lib contains the engine root", "/var/lib", "\"rbind\", \"ro\"", NULL,
             "policy.mounts", "/var/lib: contains /var/lib/containerd");
  mount_row ("/home contains credentials", "/home", "\"rbind\", \"ro\"", NULL, "policy.mounts",
             "/home: contains /home/*/.ssh");
  mount_row ("containerd.sock anywhere", "/srv/x/containerd.sock", "\"rbind\", \"ro\"", NULL,
             "policy.mounts", "/srv/x/containerd.sock: an engine socket");
  mount_row ("an .aws directory", "/home/alice/.aws/credentials", "\"rbind\", \"ro\"", NULL,
             "policy.mounts", "/home/alice/.aws/credentials: credentials");
  mount_row (".config/gcloud anywhere", "/srv/u/.config/gcloud", "\"rbind\", \"ro\"", NULL,
             "policy.mounts", "/srv/u/.config/gcloud: credentials");
  mount_row ("an .env file", "/srv/app/.env", "\"rbind\", \"ro\"", NULL, "policy.mounts",
             "/srv/app/.env: a .env file");
  mount_row ("an .env.local file", "/srv/app/.env.local", "\"rbind\", \"ro\"", NULL,
             "policy.mounts", "/srv/app/.env.local: a .env file");
  mount_row ("a directory holding .ssh", home, "\"rbind\", \"ro\"", NULL, "policy.mounts",
             "contains .ssh");
  mount_row ("a host socket, read-only", sock, "\"rbind\", \"ro\"", NULL, "policy.mounts",
             sockwant);
  mount_row ("containerd state", "/run/containerd/io.containerd.runtime.v2.task",
             "\"rbind\", \"ro\"", NULL, "policy.mounts", "containerd's state");
  mount_row ("the engine root", "/var/lib/docker/image", "\"rbind\", \"ro\"", NULL, "policy.mounts",
             "/var/lib/docker/image: the engine's state ([policy] engine_roots)");
  mount_row ("another engine root", "/data/docker/x", "\"rbind\", \"ro\"",
             "engine_roots = [\"/data/docker\"]", "policy.mounts", "the engine's state");
  mount_row ("another container's resolv.conf", "/var/lib/docker/containers/" ID_B "/resolv.conf",
             "\"rbind\", \"rprivate\"", NULL, "policy.mounts",
             "resolv.conf: the engine's per-container files (not this container's)");
  /* (This container's own files: test_identity, as Docker starts it.) */
  mount_row ("'..' out of this container's dir",
             "/var/lib/docker/containers/" ID_A "/../" ID_B "/hosts", "\"rbind\"", NULL,
             "policy.mounts", "not this container's");
  mount_row ("a named volume, read-only", "/var/lib/docker/volumes/v1/_data", "\"rbind\", \"ro\"",
             NULL, "", "1 read-only");
  mount_row ("a named volume, writable", "/var/lib/docker/volumes/v1/_data", "\"rbind\"", NULL,
             "policy.mounts", "writable bind mount outside");
  mount_row ("a named volume under writable_mounts", "/var/lib/docker/volumes/v1/_data",
             "\"rbind\"", "writable_mounts = [\"/var/lib/docker/volumes\"]", "",
             "1 under [policy] writable_mounts");
  mount_row ("k3s's server state, read-only", "/var/lib/rancher/k3s/server", "\"rbind\", \"ro\"",
             NULL, "policy.mounts", "k3s's state, keys and tokens");
  mount_row ("snap Docker's data root, read-only", "/var/snap/docker/common/var-lib-docker",
             "\"rbind\", \"ro\"", NULL, "policy.mounts", "Docker's state (snap)");
  mount_row ("/tmp (ssh-agent and tmux sockets), read-only", "/tmp", "\"rbind\", \"ro\"", NULL,
             "policy.mounts", "/tmp: the host's shared temporary files (ssh-agent, tmux");
  mount_row ("an ssh-agent socket directory under /tmp, read-only", "/tmp/ssh-XXXXabcd",
             "\"rbind\", \"ro\"", NULL, "policy.mounts", "the host's shared temporary files");
  mount_row ("/var/tmp, read-only", "/var/tmp", "\"rbind\", \"ro\"", NULL, "policy.mounts",
             "the host's shared temporary files");
  mount_row ("the kubelet's pki, read-only", "/var/lib/kubelet/pki", "\"rbind\", \"ro\"", NULL,
             "policy.mounts", "the kubelet's state ([policy] kubelet_roots");
  mount_row ("deny_mounts", "/srv/secret/x", "\"rbind\", \"ro\"", "deny_mounts = [\"/srv/secret\"]",
             "policy.mounts", "/srv/secret/x: listed in [policy] deny_mounts");
  mount_row ("deny_mounts beats writable_mounts", "/srv/secret", "\"rbind\"",
             "deny_mounts = [\"/srv/secret\"]\nwritable_mounts = [\"/srv\"]", "policy.mounts",
             "deny_mounts");
  mount_row ("read-only data", "/srv/data", "\"rbind\", \"ro\"", NULL, "", "1 read-only");
  /* What Docker 25 and later write for -v X:Y:ro when the runtime's
     features list "rro" (mount_setattr(2) with AT_RECURSIVE): read-only
     to the OCI runtime that listed it; Kata's shim ignores it. */
  run_mode = KG_MODE_OCI;
  mount_row ("OCI mode: \"rro\" (Docker 26: -v X:Y:ro)", "/srv/data",
             "\"rbind\", \"rro\", \"rprivate\"", NULL, "", "1 read-only");
  mount_row ("OCI mode: \"rw\" then \"rro\" (the recursive change comes last)", "/srv/data",
             "\"rbind\", \"rw\", \"rro\"", NULL, "", "1 read-only");
  mount_row ("OCI mode: \"rro\" then \"rrw\"", "/srv/data", "\"rbind\", \"rro\", \"rrw\"", NULL,
             "policy.mounts", "/srv/data: writable bind mount");
  mount_row ("OCI mode: \"ro\" then \"rrw\" (rrw clears it recursively)", "/srv/data",
             "\"rbind\", \"ro\", \"rrw\"", NULL, "policy.mounts", "/srv/data: writable bind mount");
  mount_row ("OCI mode: \"rrw\" then \"rro\"", "/srv/data", "\"rbind\", \"rrw\", \"rro\"", NULL,
             "policy.mounts", "/srv/data: writable bind mount");
  mount_row ("OCI mode: \"RRO\" is not \"rro\"", "/srv/data", "\"rbind\", \"RRO\"", NULL,
             "policy.mounts", "/srv/data: writable bind mount");
  run_mode = KG_MODE_SHIM;
  mount_row ("shim mode: \"rro\" alone is writable to Kata", "/srv/data",
             "\"rbind\", \"rro\", \"rprivate\"", NULL, "policy.mounts",
             "\"rro\" without \"ro\": Kata's shim ignores rro");
  mount_row ("shim mode: \"ro\" and \"rro\"", "/srv/data", "\"rbind\", \"ro\", \"rro\"", NULL, "",
             "1 read-only");
  mount_row ("shim mode: \"ro\" then \"rrw\"", "/srv/data", "\"rbind\", \"ro\", \"rrw\"", NULL,
             "policy.mounts", "/srv/data: writable bind mount");
  run_mode = KG_MODE_CHECK;
  mount_row ("check: \"rro\" alone is writable (which runtime is unknown)", "/srv/data",
             "\"rbind\", \"rro\"", NULL, "policy.mounts", "Kata's shim ignores rro");
  mount_row ("\"RRO\" is not \"rro\"", "/srv/data", "\"rbind\", \"RRO\"", NULL, "policy.mounts",
             "/srv/data: writable bind mount");
  mount_row ("\"ro=x\" is not \"ro\"", "/srv/data", "\"rbind\", \"ro=x\"", NULL, "policy.mounts",
             "/srv/data: writable bind mount");
  mount_row ("\"nosuid,ro\" is not \"ro\"", "/srv/data", "\"rbind\", \"nosuid,ro\"", NULL,
             "policy.mounts", "/srv/data: writable bind mount");
  mount_row ("\"ro\" then \"rw\"", "/srv/data", "\"rbind\", \"ro\", \"rw\"", NULL, "policy.mounts",
             "/srv/data: writable bind mount");
  mount_row ("\"RO\" is not \"ro\"", "/srv/data", "\"rbind\", \"RO\"", NULL, "policy.mounts",
             "/srv/data: writable bind mount");
  mount_row ("writable under writable_mounts", "/srv/data/x", "\"rbind\"",
             "writable_mounts = [\"/srv/data\"]", "", "1 under [policy] writable_mounts");
  mount_row ("'..' out of writable_mounts", "/srv/data/../other", "\"rbind\"",
             "writable_mounts = [\"/srv/data\"]", "policy.mounts",
             "/srv/data/../other -> /srv/other: writable bind mount outside");
  mount_row ("a prefix is not a parent", "/srv/database", "\"rbind\"",
             "writable_mounts = [\"/srv/data\"]", "policy.mounts", "writable bind mount outside");
  mount_row ("a relative source is in the bundle", "data", "\"rbind\"", NULL, "policy.mounts",
             "data -> ");

  {
    cleanup_free char *spec
        = spec_of (NULL,
                   "{\"destination\": \"/x\", \"type\": \"overlay\", \"source\": \"overlay\", "
                   "\"options\": [\"lowerdir=/root\"]}",
                   NULL, NULL, NULL);
    struct report rep;

    run_policy (spec, ID_A, NULL, &kata_fc, &rep, NULL);
    expect (&rep, "an overlay mount", "policy.mounts", "policy.mounts",
            "type \"overlay\" on /x: neither a bind mount nor a virtual filesystem");
    report_release (&rep);
  }
  {
    cleanup_free char *spec = NULL;
    struct report rep;

    /* Go's encoding/json would read "Mounts" as "mounts". */
    if (asprintf (&spec,
                  "{\"ociVersion\": \"1.0.2\", \"Mounts\": [{\"destination\": \"/x\", \"type\": "
                  "\"bind\", \"source\": \"/var/run/docker.sock\"}],"
                  " \"linux\": {\"namespaces\": [{\"type\": \"network\"}, {\"type\": \"pid\"}, "
                  "{\"type\": \"ipc\"}], \"resources\": {\"memory\": {\"limit\": 1048576}}}}")
        < 0)
      abort ();
    run_policy (spec, ID_A, NULL, &kata_fc, &rep, NULL);
    expect (&rep, "a key in another case", "policy.spec", "policy.spec",
            "key \"Mounts\" is not \"mounts\" but Go's decoders");
    report_release (&rep);
  }
}

static void
caps_row (const char *name, const char *caps, const char *policy, const char *fails,
          const char *needle)
{
  cleanup_free char *spec = spec_of (caps, NULL, NULL, NULL, NULL);
  struct report rep;

  run_policy (spec, ID_A, policy, &kata_fc, &rep, NULL);
  expect (&rep, name, fails, "policy.capabilities", needle);
  report_release (&rep);
}

static void
test_capabilities (void)
{
  caps_row ("default caps", "\"CAP_CHOWN\", \"CAP_KILL\"", NULL, "", "2 capabilities");
  caps_row ("lower-case name (libcap accepts it)", "\"cap_chown\"", NULL, "", "1 capability");
  caps_row ("odd case beyond the set", "\"Cap_Sys_Admin\"", NULL, "policy.capabilities",
            "beyond [policy] capabilities: CAP_SYS_ADMIN");
  caps_row ("unknown capability", "\"CAP_FOO\"", NULL, "policy.capabilities",
            "unknown capability \"CAP_FOO\" in bounding");
  caps_row ("a number is not a name", "\"12\"", NULL, "policy.capabilities",
            "unknown capability \"12\"");
  caps_row ("a capability that is not a string", "5", NULL, "policy.capabilities",
            "capabilities.bounding[0] is an integer");
  caps_row ("allowed by config", "\"CAP_SYS_ADMIN\"", "capabilities = [\"CAP_SYS_ADMIN\"]", "",
            "1 capability");
  caps_row ("named once however often", "\"CAP_NET_ADMIN\", \"CAP_NET_ADMIN\"", NULL,
            "policy.capabilities", "capabilities: CAP_NET_ADMIN");
  {
    cleanup_free char *spec = spec_of (NULL, NULL, NULL, NULL, NULL);
    struct report rep;

    spec = replace (spec, "\"effective\": [\"CAP_CHOWN\"]", "\"ambient\": [\"CAP_BPF\"]");
    run_policy (spec, ID_A, NULL, &kata_fc, &rep, NULL);
    expect (&rep, "ambient set", "policy.capabilities", "policy.capabilities", "CAP_BPF");
    report_release (&rep);
  }
  /* A privileged container as containerd makes it on a host whose root
     lacks CAP_SYS_RESOURCE: the engine's own bounding set, one short of
     every capability, and (privileged_without_host_devices) no *:* rule. */
  {
    struct engine_ns e;
    struct kg_buf names = { 0 };
    cleanup_free char *spec = NULL;
    struct report rep;

    engine_ns_gather (&e);
    e.capbnd_ok = true;
    e.capbnd = ((UINT64_C (1) << (CAP_AUDIT_READ + 1)) - 1) & ~(UINT64_C (1) << CAP_SYS_RESOURCE);
    for (int v = 0; v <= CAP_AUDIT_READ; v++)
      if (v != CAP_SYS_RESOURCE)
        {
          char *n = cap_to_name (v);

          sb_printf (&names, "%s\"%s\"", names.len ? ", " : "", n);
          cap_free (n);
        }
    spec = spec_of (sb_str (&names), NULL, NULL, NULL, NULL);
    run_engine_ns = &e;
    run_policy (spec, ID_A, "privileged = true", &kata_fc, &rep, NULL);
    expect (&rep, "the engine's whole bounding set, with privileged = true", "",
            "policy.privileged", "every capability of the engine's bounding set (37)");
    report_release (&rep);
    run_policy (spec, ID_A, NULL, &kata_fc, &rep, NULL);
    expect (&rep, "the engine's whole bounding set, without",
            "policy.privileged policy.capabilities", "policy.privileged",
            "privileged container: it has every capability of the engine's");
    report_release (&rep);
    /* An engine whose own set is small: its set is no privileged one. */
    e.capbnd = (UINT64_C (1) << CAP_CHOWN) | (UINT64_C (1) << CAP_KILL);
    free (spec);
    spec = spec_of ("\"CAP_CHOWN\", \"CAP_KILL\"", NULL, NULL, NULL, NULL);
    run_policy (spec, ID_A, NULL, &kata_fc, &rep, NULL);
    expect (&rep, "an engine of two capabilities, a container of the same two", "",
            "policy.privileged", "not a privileged container");
    report_release (&rep);
    run_engine_ns = NULL;
    kg_buf_release (&names);
  }
}

static void
resources_row (const char *name, const char *res, const char *policy, struct kata_config *k,
               const char *fails, const char *needle)
{
  cleanup_free char *spec = spec_of (NULL, NULL, res, NULL, NULL);
  struct report rep;

  run_policy (spec, ID_A, policy, k, &rep, NULL);
  expect (&rep, name, fails, "policy.resources", needle);
  report_release (&rep);
}

static void
test_resources (void)
{
  resources_row ("limits", NULL, NULL, &kata_fc, "", "2304 MiB");
  resources_row ("no limit", "\"cpu\": {\"shares\": 2}", NULL, &kata_fc, "policy.resources",
                 "no memory limit");
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
    struct report rep;

    run_policy (spec, ID_A, NULL, &kata_fc, &rep, NULL);
    expect (&rep, "2^64", "policy.spec", "policy.spec",
            json_c_version_num () >= 0x001200 ? "invalid JSON" : "outside the 64-bit range");
    report_release (&rep);
  }
  resources_row ("2^63-1", "\"memory\": {\"limit\": 9223372036854775807}", NULL, &kata_fc,
                 "policy.resources", "is out of range");
  resources_row ("null limit", "\"memory\": {\"limit\": null}", NULL, &kata_fc, "policy.resources",
                 "no memory limit");
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
      "2304 MiB (default_memory 2048 + limit 256 MiB) of at most 16384, 2 vCPUs" },
    { "3.30.0/configuration-clh.toml", KATA_RUNTIME_GO,
      "2304 MiB (default_memory 2048 + limit 256 MiB) of at most 16384, 2 vCPUs" },
    { "4.1.0/go/configuration-fc.toml", KATA_RUNTIME_GO,
      "2304 MiB (default_memory 2048 + limit 256 MiB) of at most 16384, 2 vCPUs of at most 32" },
    { "4.1.0/go/configuration-qemu.toml", KATA_RUNTIME_GO,
      "2304 MiB (default_memory 2048 + limit 256 MiB) of at most 16384, 2 vCPUs" },
    { "4.1.0/go/configuration-clh.toml", KATA_RUNTIME_GO,
      "2304 MiB (default_memory 2048 + limit 256 MiB) of at most 16384, 2 vCPUs" },
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
      resources_row (name, NULL, NULL, &k, "", shipped[i].needle);
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
                 "policy.resources", "the cpuset \"0-\" is not a CPU list runtime-rs counts");
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
  load_kata_as (&k, NULL, "[hypervisor.qemu]\ndefault_vcpus = 2\n[runtime]\n", KATA_RUNTIME_RS);
  resources_row ("runtime-rs without static sizing: hot-plugged on the defaults", NULL, NULL, &k,
                 "",
                 "384 MiB (runtime-rs hot-plug: default_memory 128 + limit 256 MiB) of at most "
                 "16384, 3 vCPUs");
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

static void
test_namespaces (void)
{
  static const struct
  {
    const char *name, *from, *to, *policy, *fails, *needle;
  } rows[] = {
    { "pid namespace of the engine", "{\"type\": \"pid\"}",
      "{\"type\": \"pid\", \"path\": \"/proc/self/ns/pid\"}", NULL, "policy.namespaces",
      "pid namespace /proc/self/ns/pid is the engine's own" },
    { "ipc namespace of the engine", "{\"type\": \"ipc\"}",
      "{\"type\": \"ipc\", \"path\": \"/proc/self/ns/ipc\"}", NULL, "policy.namespaces",
      "ipc namespace /proc/self/ns/ipc is the engine's own" },
    { "no ipc namespace", "{\"type\": \"ipc\"}, ", "", NULL, "policy.namespaces",
      "no ipc namespace" },
    { "a path that does not exist", "{\"type\": \"network\"}",
      "{\"type\": \"network\", \"path\": \"/var/run/docker/netns/nosuch\"}", NULL,
      "policy.namespaces", "network namespace /var/run/docker/netns/nosuch cannot be checked" },
    { "listed twice", "{\"type\": \"network\"}", "{\"type\": \"network\"}, {\"type\": \"network\"}",
      NULL, "policy.namespaces", "network namespace listed 2 times" },
    { "path not a string", "{\"type\": \"network\"}", "{\"type\": \"network\", \"path\": 1}", NULL,
      "policy.namespaces", "network namespace path is an integer" },
    { "host namespaces allowed", "{\"type\": \"ipc\"}, ", "", "host_namespaces = true", "",
      "host ipc namespace allowed" },
    /* A /proc path of another kind of namespace: setns would fail in the
       runtime, and it is not what the entry says. */
    { "an ipc namespace for the network entry", "{\"type\": \"network\"}",
      "{\"type\": \"network\", \"path\": \"/proc/1/ns/ipc\"}", NULL, "policy.namespaces",
      "network namespace /proc/1/ns/ipc cannot be checked: Invalid argument" },
    { "a process that is gone", "{\"type\": \"network\"}",
      "{\"type\": \"network\", \"path\": \"/proc/4194304/ns/net\"}", NULL, "policy.namespaces",
      "cannot be checked: No such file or directory (the process it names is gone" },
  };

  for (size_t i = 0; i < ARRAY_SIZE (rows); i++)
    {
      char *spec = spec_of (NULL, NULL, NULL, NULL, NULL);
      struct report rep;

      spec = replace (spec, rows[i].from, rows[i].to);
      run_policy (spec, ID_A, rows[i].policy, &kata_fc, &rep, NULL);
      expect (&rep, rows[i].name, rows[i].fails, "policy.namespaces", rows[i].needle);
      report_release (&rep);
      free (spec);
    }

  /* The engine's own, named by a process id (the test's own here). */
  {
    char *spec = spec_of (NULL, NULL, NULL, NULL, NULL), *to, *want;
    struct report rep;

    if (asprintf (&to, "{\"type\": \"network\", \"path\": \"/proc/%d/ns/net\"}", (int) getpid ())
            < 0
        || asprintf (&want, "network namespace /proc/%d/ns/net is the engine's own",
                     (int) getpid ())
               < 0)
      abort ();
    spec = replace (spec, "{\"type\": \"network\"}", to);
    run_policy (spec, ID_A, NULL, &kata_fc, &rep, NULL);
    expect (&rep, "the engine's network namespace by process id", "policy.namespaces",
            "policy.namespaces", want);
    report_release (&rep);
    free (spec);
    free (to);
    free (want);
  }

  /* Another network namespace (a pod's, --network container:X) passes. */
  if (geteuid () == 0)
    {
      int p[2];
      pid_t pid;
      char c, *spec, *to;
      struct report rep;

      if (pipe (p) < 0)
        abort ();
      pid = fork ();
      if (pid == 0)
        {
          close (p[0]);
          if (unshare (CLONE_NEWNET) < 0)
            _exit (1);
          if (write (p[1], "x", 1) != 1)
            _exit (1);
          pause ();
          _exit (0);
        }
      close (p[1]);
      if (read (p[0], &c, 1) == 1)
        {
          spec = spec_of (NULL, NULL, NULL, NULL, NULL);
          if (asprintf (&to, "{\"type\": \"network\", \"path\": \"/proc/%d/ns/net\"}", (int) pid)
              < 0)
            abort ();
          spec = replace (spec, "{\"type\": \"network\"}", to);
          run_policy (spec, ID_A, NULL, &kata_fc, &rep, NULL);
          expect (&rep, "another network namespace", "", "policy.namespaces", "/ns/net");
          report_release (&rep);
          free (spec);
          free (to);
        }
      else
        ok (0, "a child with its own network namespace");
      close (p[0]);
      kill (pid, SIGKILL);
      waitpid (pid, NULL, 0);
    }
}

static void
devices_row (const char *name, const char *linux_more, const char *policy, const char *fails,
             const char *needle)
{
  static const char res_key[] = "\"resources\": {";
  cleanup_free char *res = NULL;
  cleanup_free char *spec = NULL;
  struct report rep;

  /* A row's own "resources" replaces the default one (a key given twice
     is refused before any rule runs). */
  if (strncmp (linux_more, res_key, sizeof res_key - 1) == 0)
    {
      res = strndup (linux_more + sizeof res_key - 1, strlen (linux_more) - sizeof res_key);
      linux_more = NULL;
    }
  spec = spec_of (NULL, NULL, res, linux_more, NULL);
  run_policy (spec, ID_A, policy, &kata_fc, &rep, NULL);
  expect (&rep, name, fails, "policy.devices", needle);
  report_release (&rep);
}

static void
test_devices (void)
{
  devices_row ("default devices",
               "\"devices\": [{\"path\": \"/dev/null\", \"type\": \"c\", \"major\": 1, "
               "\"minor\": 3}, {\"path\": \"/dev/pts/0\", \"type\": \"c\", \"major\": 136, "
               "\"minor\": 0}]",
               NULL, "", "2 devices");
  devices_row ("a harmless path for KVM's numbers",
               "\"devices\": [{\"path\": \"/dev/null\", \"type\": \"c\", \"major\": 10, "
               "\"minor\": 232}]",
               NULL, "policy.devices", "/dev/null (c 10:232)");
  devices_row ("allowlisted by the host's numbers",
               "\"devices\": [{\"path\": \"/dev/vm\", \"type\": \"c\", \"major\": 10, "
               "\"minor\": 232}]",
               "devices = [\"/dev/kvm\"]", "", "1 device");
  devices_row ("a block device as a char device",
               "\"devices\": [{\"path\": \"/dev/kvm\", \"type\": \"b\", \"major\": 10, "
               "\"minor\": 232}]",
               "devices = [\"/dev/kvm\"]", "policy.devices", "/dev/kvm (b 10:232)");
  devices_row ("a wildcard cgroup rule",
               "\"resources\": {\"memory\": {\"limit\": 268435456}, \"devices\": [{\"allow\": "
               "true, \"type\": \"c\", \"major\": 10, \"access\": \"rwm\"}]}",
               NULL, "policy.devices", "device cgroup rule c 10:* rwm");
  devices_row ("a deny rule is fine",
               "\"resources\": {\"memory\": {\"limit\": 268435456}, \"devices\": [{\"allow\": "
               "false, \"access\": \"rwm\"}, {\"allow\": true, \"type\": \"c\", \"major\": 136, "
               "\"access\": \"rwm\"}]}",
               NULL, "", "0 devices");
  {
    cleanup_free char *spec
        = spec_of (NULL, NULL,
                   "\"memory\": {\"limit\": 268435456}, \"devices\": [{\"allow\": true, "
                   "\"access\": \"rwm\"}]",
                   NULL, NULL);
    struct report rep;

    run_policy (spec, ID_A, NULL, &kata_fc, &rep, NULL);
    expect (&rep, "an allow-all rule is privileged", "policy.privileged", "policy.privileged",
            "the device cgroup allows every host device (a *:* rwm)");
    report_release (&rep);
  }
}

static void
hooks_row (const char *name, const char *hooks, const char *policy, const char *fails,
           const char *needle)
{
  cleanup_free char *spec = spec_of (NULL, NULL, NULL, NULL, hooks);
  struct report rep;

  run_policy (spec, ID_A, policy, &kata_fc, &rep, NULL);
  expect (&rep, name, fails, "policy.hooks", needle);
  report_release (&rep);
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

/* policy.confinement: a spec_of () spec with FROM replaced by TO (or,
   with FROM NULL, LINUX_MORE and MOUNTS added). */
static void
confine_row (const char *name, const char *from, const char *to, const char *mounts,
             const char *linux_more, const char *fails, const char *item, const char *needle)
{
  char *spec = spec_of (NULL, mounts, NULL, linux_more, NULL);
  struct report rep;

  if (from != NULL)
    spec = replace (spec, from, to);
  run_policy (spec, ID_A, NULL, &kata_fc, &rep, NULL);
  expect (&rep, name, fails, item, needle);
  report_release (&rep);
  free (spec);
}

static void
test_confinement (void)
{
  confine_row ("the default confinement", NULL, NULL, NULL, NULL, "", "policy.confinement",
               "own mount namespace, /proc masked");
  confine_row ("no mount namespace", "{\"type\": \"mount\"}", "{\"type\": \"cgroup\"}", NULL, NULL,
               "policy.confinement", "policy.confinement", "no mount namespace");
  confine_row ("the host's mount namespace joined", "{\"type\": \"mount\"}",
               "{\"type\": \"mount\", \"path\": \"/proc/1/ns/mnt\"}", NULL, NULL,
               "policy.confinement", "policy.confinement",
               "the mount namespace is joined (/proc/1/ns/mnt)");
  confine_row ("a user namespace joined", "{\"type\": \"mount\"}",
               "{\"type\": \"mount\"}, {\"type\": \"user\", \"path\": \"/proc/1/ns/user\"}", NULL,
               NULL, "policy.confinement", "policy.confinement",
               "the user namespace is joined (/proc/1/ns/user)");
  confine_row ("no uts namespace (--uts host)", "{\"type\": \"uts\"}, ", "", NULL, NULL,
               "policy.namespaces", "policy.namespaces", "no uts namespace");
  confine_row ("procMount Unmasked (empty maskedPaths)", MASKED, "\"maskedPaths\": []", NULL, NULL,
               "policy.confinement", "policy.confinement",
               "/proc/acpi is not masked (linux.maskedPaths)");
  confine_row ("no readonlyPaths", READONLY ",", "", NULL, NULL, "policy.confinement",
               "policy.confinement", "/proc/bus is not read-only");
  confine_row ("/proc/sys writable", "\"/proc/sys\", ", "", NULL, NULL, "policy.confinement",
               "policy.confinement", "/proc/sys is not read-only");
  confine_row ("AppArmor unconfined", "\"process\": {",
               "\"process\": {\"apparmorProfile\": "
               "\"unconfined\", ",
               NULL, NULL, "policy.confinement", "policy.confinement",
               "AppArmor profile \"unconfined\"");
  confine_row ("an AppArmor profile", "\"process\": {",
               "\"process\": {\"apparmorProfile\": "
               "\"docker-default\", ",
               NULL, NULL, "", "policy.confinement", "own mount namespace");
  confine_row ("SELinux spc_t", "\"process\": {",
               "\"process\": {\"selinuxLabel\": "
               "\"system_u:system_r:spc_t:s0\", ",
               NULL, NULL, "policy.confinement", "policy.confinement",
               "SELinux label system_u:system_r:spc_t:s0");
  confine_row ("rshared root propagation", NULL, NULL, NULL, "\"rootfsPropagation\": \"rshared\"",
               "policy.confinement", "policy.confinement", "rootfsPropagation \"rshared\"");
  confine_row ("a kernel sysctl", NULL, NULL, NULL,
               "\"sysctl\": {\"net.ipv4.ip_forward\": \"1\", \"kernel.core_pattern\": \"|/tmp/x\"}",
               "policy.confinement", "policy.confinement",
               "sysctl kernel.core_pattern is the kernel's, not the container's namespace's");
  confine_row ("namespaced sysctls", NULL, NULL, NULL,
               "\"sysctl\": {\"net.ipv4.ip_unprivileged_port_start\": \"0\", "
               "\"kernel/shmmax\": \"1\", \"fs.mqueue.msg_max\": \"10\"}",
               "", "policy.confinement", "only namespaced sysctls");
  confine_row ("a shared bind", NULL, NULL,
               "{\"destination\": \"/x\", \"type\": \"bind\", \"source\": \"/srv\", "
               "\"options\": [\"rbind\", \"ro\", \"rshared\"]}",
               NULL, "policy.confinement", "policy.confinement",
               "mount /x is shared (mounts made inside would appear outside)");
  confine_row ("an id-mapped bind", NULL, NULL,
               "{\"destination\": \"/x\", \"type\": \"bind\", \"source\": \"/srv\", "
               "\"options\": [\"rbind\", \"ro\"], \"uidMappings\": [{\"containerID\": 0, "
               "\"hostID\": 0, \"size\": 1}]}",
               NULL, "policy.confinement", "policy.confinement", "mount /x is id-mapped");
  confine_row ("a second procfs", NULL, NULL,
               "{\"destination\": \"/hostproc\", \"type\": \"proc\", \"source\": \"proc\"}", NULL,
               "policy.confinement", "policy.confinement",
               "a second procfs at /hostproc (the masks apply at /proc only)");
  confine_row ("a writable sysfs", NULL, NULL,
               "{\"destination\": \"/sys\", \"type\": \"sysfs\", \"source\": \"sysfs\", "
               "\"options\": [\"nosuid\", \"noexec\", \"nodev\"]}",
               NULL, "policy.confinement", "policy.confinement", "sysfs at /sys is writable");
  /* The decoder oracle's crash: options that are not an array. */
  confine_row ("mount options that are an object", NULL, NULL,
               "{\"destination\": \"/sys\", \"type\": \"sysfs\", \"source\": \"sysfs\", "
               "\"options\": {}}",
               NULL, "policy.mounts policy.confinement", "policy.confinement",
               "sysfs at /sys is writable");
  confine_row ("a read-only sysfs", NULL, NULL,
               "{\"destination\": \"/sys\", \"type\": \"sysfs\", \"source\": \"sysfs\", "
               "\"options\": [\"nosuid\", \"noexec\", \"nodev\", \"ro\"]}",
               NULL, "", "policy.confinement", "own mount namespace");
}

/* Bind sources someone other than root could swap before the runtime
   mounts them. */
static void
test_redirect (void)
{
  cleanup_free char *open_dir = NULL, *sticky = NULL, *data = NULL, *sdata = NULL, *missing = NULL;
  cleanup_free char *link = NULL, *want = NULL, *ok_missing = NULL;

  if (asprintf (&open_dir, "%s/open", tmpdir) < 0 || asprintf (&data, "%s/data", open_dir) < 0
      || asprintf (&sticky, "%s/sticky", tmpdir) < 0 || asprintf (&sdata, "%s/data", sticky) < 0
      || asprintf (&missing, "%s/not/yet", open_dir) < 0
      || asprintf (&ok_missing, "%s/not-yet/made", tmpdir) < 0
      || asprintf (&link, "%s/userlink", tmpdir) < 0
      || asprintf (&want,
                   "others could swap it for another path before the runtime mounts it "
                   "(directory %s is writable by others",
                   open_dir)
             < 0)
    abort ();
  if (mkdir (open_dir, 0755) < 0 || chmod (open_dir, 0777) < 0 || mkdir (data, 0755) < 0
      || mkdir (sticky, 0755) < 0 || chmod (sticky, 01777) < 0 || mkdir (sdata, 0755) < 0
      || symlink (tmpdir, link) < 0)
    abort ();
  mount_row ("a source in a directory others can write", data, "\"rbind\", \"ro\"", NULL,
             "policy.mounts", want);
  mount_row ("a source in a sticky directory others can write", sdata, "\"rbind\", \"ro\"", NULL,
             "policy.mounts", "others could swap it");
  mount_row ("a missing source below a directory others can write", missing, "\"rbind\", \"ro\"",
             NULL, "policy.mounts", "others could swap it");
  mount_row ("a missing source below root's directories", ok_missing, "\"rbind\", \"ro\"", NULL, "",
             "1 read-only");
  if (geteuid () == 0 && lchown (link, 65534, 65534) == 0)
    {
      cleanup_free char *via = NULL;

      if (asprintf (&via, "%s/open/data", link) < 0)
        abort ();
      chmod (open_dir, 0755);
      mount_row ("a source through a symlink of another user's", via, "\"rbind\", \"ro\"", NULL,
                 "policy.mounts", "is owned by uid 65534, not root");
    }
  else
    ok (true, "# SKIP lchown needs root");
  /* Sources side by side in one directory: the directory is walked once,
     and still every entry that is a symlink is walked on its own. */
  {
    cleanup_free char *pair = NULL, *a = NULL, *b = NULL, *ma = NULL, *mb = NULL, *both = NULL;
    cleanup_free char *spec = NULL;
    struct report rep;

    if (asprintf (&pair, "%s/pair", tmpdir) < 0 || asprintf (&a, "%s/a", pair) < 0
        || asprintf (&b, "%s/b", pair) < 0)
      abort ();
    if (mkdir (pair, 0755) < 0 || mkdir (a, 0755) < 0 || symlink (a, b) < 0)
      abort ();
    ma = bind_of (a, "\"rbind\", \"ro\"");
    mb = bind_of (b, "\"rbind\", \"ro\"");
    if (asprintf (&both, "%s, %s", ma, mb) < 0)
      abort ();
    spec = spec_of (NULL, both, NULL, NULL, NULL);
    run_policy (spec, ID_A, NULL, &kata_fc, &rep, NULL);
    expect (&rep, "two sources in one directory, the second root's symlink", "", "policy.mounts",
            "2 bind mounts: 2 read-only");
    report_release (&rep);
    if (geteuid () == 0 && lchown (b, 65534, 65534) == 0)
      {
        run_policy (spec, ID_A, NULL, &kata_fc, &rep, NULL);
        expect (&rep, "two sources in one directory, the second another user's symlink",
                "policy.mounts", "policy.mounts", "is owned by uid 65534, not root");
        report_release (&rep);
      }
    else
      ok (true, "# SKIP lchown needs root");
  }
  chmod (open_dir, 0755);
  chmod (sticky, 0755);
}

/* egress.netns without namespaces of its own (tests/netns.test has the
   real ones). */
static void
network_row (const char *name, const char *spec, const char *policy, const char *fails,
             const char *needle)
{
  struct report rep;

  run_policy (spec, ID_A, policy, &kata_fc, &rep, NULL);
  expect (&rep, name, fails, "egress.netns", needle);
  report_release (&rep);
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
  /* A path that is no namespace is not opened for real. */
  if (asprintf (&file, "%s/not-a-namespace", tmpdir) < 0)
    abort ();
  test_write_text (file, "x");
  if (asprintf (&notns, "{\"type\": \"network\", \"path\": \"%s\"}, ", file) < 0)
    abort ();
  spec = replace (spec_of (NULL, NULL, NULL, NULL, NULL), "{\"type\": \"network\"}, ", notns);
  network_row ("a network namespace path that is a plain file", spec, NULL, "egress.netns",
               "cannot read the namespace: Wrong medium type");
  free (spec);
  run_egress = NULL;
}

/* A named volume whose _data is a bind of the host's /etc (what Docker's
   local driver does for volume-opt o=bind,device=/etc): in a private
   mount namespace of this test process, so the bind vanishes with it
   (and the rest of the tests run in it, which changes nothing for them). */
static void
test_volume_bind (void)
{
  cleanup_free char *root = NULL;
  cleanup_free char *data = NULL;
  cleanup_free char *policy = NULL;
  cleanup_free char *mounts = NULL;
  cleanup_free char *cmd = NULL;
  char *spec;
  struct report rep;

  if (geteuid () != 0)
    {
      ok (true, "# SKIP a bind mount needs root");
      return;
    }
  if (asprintf (&root, "%s/docker", tmpdir) < 0 || asprintf (&data, "%s/volumes/v1/_data", root) < 0
      || asprintf (&cmd, "mkdir -p '%s'", data) < 0 || system (cmd) != 0
      || asprintf (&policy, "engine_roots = [\"%s\"]", root) < 0
      || asprintf (&mounts,
                   "{\"destination\": \"/v\", \"type\": \"bind\", \"source\": "
                   "\"%s\", \"options\": [\"rbind\", \"ro\"]}",
                   data)
             < 0)
    abort ();
  spec = spec_of (NULL, mounts, NULL, NULL, NULL);
  /* A plain volume directory passes. */
  run_policy (spec, ID_A, policy, &kata_fc, &rep, NULL);
  expect (&rep, "a plain named volume, read-only", "", "policy.mounts", "1 bind mount");
  report_release (&rep);
  /* (A file system type for each, though the kernel ignores it here:
     valgrind takes a NULL one for a bad pointer.) */
  if (unshare (CLONE_NEWNS) < 0 || mount ("none", "/", "none", MS_REC | MS_PRIVATE, NULL) < 0
      || mount ("/etc", data, "none", MS_BIND, NULL) < 0)
    {
      ok (true, "# SKIP cannot bind-mount in a private mount namespace: %s", strerror (errno));
      free (spec);
      return;
    }
  run_policy (spec, ID_A, policy, &kata_fc, &rep, NULL);
  expect (&rep, "a named volume whose _data is a bind of /etc", "policy.mounts", "policy.mounts",
          "a volume that is a mount of something else (");
  has_str (reason (&rep, "policy.mounts"), "/_data is a ",
           "a bind-mounted volume: the reason names the mount point and its type");
  report_release (&rep);
  umount2 (data, MNT_DETACH);
  free (spec);
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
    {
      cleanup_free char *top = NULL;
      cleanup_free char *spec = NULL;
      struct report rep;

      if (asprintf (&top, "\"annotations\": {%s}", rows[i].ann) < 0)
        abort ();
      spec = spec_of (NULL, NULL, NULL, NULL, top);
      run_policy (spec, ID_A, rows[i].policy, &kata_fc, &rep, NULL);
      expect (&rep, rows[i].name, rows[i].fails, "policy.annotations", rows[i].needle);
      report_release (&rep);
    }
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
    {
      cleanup_free char *top = NULL;
      cleanup_free char *spec = NULL;
      struct report rep;

      if (asprintf (&top, "\"annotations\": {%s}", rows[i].ann) < 0)
        abort ();
      spec = spec_of (NULL, NULL, NULL, NULL, top);
      run_policy (spec, ID_A, rows[i].policy, rows[i].k, &rep, NULL);
      expect (&rep, rows[i].name, rows[i].fails, "policy.annotations", rows[i].needle);
      report_release (&rep);
    }
  toml_free (go4.doc);
  toml_free (rs4.doc);
}

static void
test_seccomp (void)
{
  cleanup_free char *path = NULL;
  char *docker;
  static const struct
  {
    const char *name, *from, *to, *fails, *needle;
    bool fc;
  } rows[] = {
    { "Docker's profile", NULL, NULL, "", "default action SCMP_ACT_ERRNO", false },
    { "Kata disables it", NULL, NULL, "policy.seccomp",
      "disable_guest_seccomp = true (line 311): the profile would never be applied", true },
    { "default allow", "\"defaultAction\":\"SCMP_ACT_ERRNO\"",
      "\"defaultAction\":\"SCMP_ACT_ALLOW\"", "policy.seccomp",
      "defaultAction SCMP_ACT_ALLOW lets unlisted system calls through", false },
    { "default log", "\"defaultAction\":\"SCMP_ACT_ERRNO\"", "\"defaultAction\":\"SCMP_ACT_LOG\"",
      "policy.seccomp", "defaultAction SCMP_ACT_LOG", false },
    { "unknown syscall", "\"accept\",", "\"accept\", \"no_such_call\",", "policy.seccomp",
      "unknown system call \"no_such_call\"", false },
    { "unknown arch", "\"SCMP_ARCH_X32\"", "\"SCMP_ARCH_PDP11\"", "policy.seccomp",
      "unknown architecture SCMP_ARCH_PDP11", false },
    { "no profile", "\"seccomp\":", "\"seccomp_not\":", "policy.seccomp",
      "no seccomp profile (linux.seccomp)", false },
  };

  if (asprintf (&path, "%s/oci/docker-20.10/read-only-rootfs.json", fixtures) < 0)
    abort ();
  docker = read_text (path);
  docker = replace (docker, "/proc/12695/exe", "/usr/sbin/dockerd");
  for (size_t i = 0; i < ARRAY_SIZE (rows); i++)
    {
      char *spec = strdup (docker);
      cleanup_free char *id = docker_id (spec);
      struct report rep;

      if (rows[i].from != NULL)
        spec = replace (spec, rows[i].from, rows[i].to);
      run_docker (&spec, id, "require_seccomp = true", rows[i].fc ? &kata_fc : &kata_seccomp, &rep);
      expect (&rep, rows[i].name, rows[i].fails, "policy.seccomp", rows[i].needle);
      report_release (&rep);
      free (spec);
    }
  {
    struct report rep;
    char *spec = strdup (docker);
    cleanup_free char *id = docker_id (spec);

    run_docker (&spec, id, "require_seccomp = true", NULL, &rep);
    expect (&rep, "seccomp without a Kata configuration", "policy.seccomp policy.resources",
            "policy.seccomp", "cannot tell whether Kata applies the profile");
    report_release (&rep);
    free (spec);
  }
  free (docker);
}

/* ---- reading config.json -------------------------------------------- */

static void
spec_row (const char *name, const char *spec, const char *needle)
{
  struct report rep;

  run_policy (spec, ID_A, NULL, &kata_fc, &rep, NULL);
  ok (once_each (&rep), "%s: every policy id reported once", name);
  is_int (report_count (&rep, VERDICT_FAIL), 1, "%s: only policy.spec fails", name);
  is_int (report_count (&rep, VERDICT_SKIP), 12, "%s: the rules are not run", name);
  has_str (reason (&rep, "policy.spec"), needle, "%s: %s", name, needle);
  report_release (&rep);
}

static void
test_spec (void)
{
  char *big, *deep;
  size_t n;

  spec_row ("not JSON", "{\"ociVersion\": \"1.0.2\",", "truncated JSON");
  spec_row ("a syntax error", "{\"ociVersion\": \"1.0.2\" \"x\": 1}", "invalid JSON at byte 23");
  spec_row ("single quotes (strict)", "{'ociVersion': '1.0.2'}", "invalid JSON at byte");
  spec_row ("a comment (strict)", "{/* c */ \"ociVersion\": \"1.0.2\"}", "invalid JSON");
  spec_row ("invalid UTF-8", "{\"ociVersion\": \"1.0.2\", \"x\": \"\xff\"}", "invalid JSON");
  /* Four-byte characters (json-c 0.18's own UTF-8 check refuses them). */
  {
    cleanup_free char *spec = spec_of (NULL, NULL, NULL, NULL,
                                       "\"annotations\": {\"note\": \"\xc3\xa9\xf0\x9f\x98\x80 "
                                       "\\ud83d\\ude00\"}");
    struct report rep;

    run_policy (spec, ID_A, NULL, &kata_fc, &rep, NULL);
    expect (&rep, "a four-byte UTF-8 character, raw and escaped", "", "policy.spec", "OCI 1.0.2");
    report_release (&rep);
  }
  /* What Go's decoders read and json-c does not keep. */
  spec_row ("a key given twice (hooks)",
            "{\"ociVersion\": \"1.0.2\", \"hooks\": {\"prestart\": [{\"path\": \"/bin/sh\"}]}, "
            "\"hooks\": {}}",
            "duplicate key \"hooks\"");
  spec_row ("\"hooKs\" with U+212A for k",
            "{\"ociVersion\": \"1.0.2\", \"hoo\xe2\x84\xaas\": {\"prestart\": []}}",
            "is not \"hooks\" but Go's decoders");
  spec_row ("\"mountſ\" with U+017F for s", "{\"ociVersion\": \"1.0.2\", \"mount\xc5\xbf\": []}",
            "is not \"mounts\"");
  spec_row ("a nested \"Namespaces\"",
            "{\"ociVersion\": \"1.0.2\", \"linux\": {\"Namespaces\": []}}",
            "key \"Namespaces\" is not \"namespaces\"");
  spec_row ("\"annotationſ\"", "{\"ociVersion\": \"1.0.2\", \"annotation\xc5\xbf\": {}}",
            "is not \"annotations\"");
  {
    /* Map keys are data: an annotation may be called anything. */
    cleanup_free char *spec = spec_of (
        NULL, NULL, NULL, NULL, "\"annotations\": {\"Hooks\": \"x\", \"mount\xc5\xbf\": \"y\"}");
    struct report rep;

    run_policy (spec, ID_A, NULL, &kata_fc, &rep, NULL);
    expect (&rep, "annotations named like fields", "", "policy.spec", "OCI 1.0.2");
    report_release (&rep);
  }
  spec_row ("an overlong UTF-8 form", "{\"ociVersion\": \"1.0.2\", \"x\": \"\xc0\xaf\"}",
            "invalid UTF-8");
  spec_row ("a UTF-8 surrogate", "{\"ociVersion\": \"1.0.2\", \"x\": \"\xed\xa0\x80\"}",
            "invalid UTF-8");
  spec_row ("two documents", "{\"ociVersion\": \"1.0.2\"} {}", "invalid JSON at byte 24");
  spec_row ("an array", "[1]", "the document is an array, not an object");
  spec_row ("no ociVersion", "{}", "ociVersion is missing");
  spec_row ("ociVersion a number", "{\"ociVersion\": 1}", "ociVersion is an integer");
  spec_row ("ociVersion 2", "{\"ociVersion\": \"2.0.0\"}", "ociVersion \"2.0.0\" is not 1.x");
  spec_row ("ociVersion 10", "{\"ociVersion\": \"10.0\"}", "is not 1.x");

  /* 5 MiB: refused by size before it is parsed. */
  big = malloc (5 << 20);
  if (big == NULL)
    abort ();
  memset (big, ' ', (5 << 20) - 1);
  memcpy (big, "{\"ociVersion\": \"1.0.2\"}", 23);
  big[(5 << 20) - 1] = '\0';
  spec_row ("a 5 MiB spec", big, "is 5242879 bytes, more than the 4194304 allowed");
  free (big);

  /* 100 levels deep. */
  deep = malloc (1024);
  if (deep == NULL)
    abort ();
  n = (size_t) sprintf (deep, "{\"ociVersion\": \"1.0.2\", \"x\": ");
  for (int i = 0; i < 100; i++)
    deep[n++] = '[';
  for (int i = 0; i < 100; i++)
    deep[n++] = ']';
  strcpy (deep + n, "}");
  spec_row ("a 100-deep spec", deep, "nested deeper than 64 levels");
  free (deep);

  {
    cleanup_free char *bundle = NULL;
    cleanup_free char *target = NULL;
    cleanup_free char *link = NULL;
    cleanup_free char *good = spec_of (NULL, NULL, NULL, NULL, NULL);
    struct report rep;

    if (asprintf (&bundle, "%s/symlinked", tmpdir) < 0 || mkdir (bundle, 0755) < 0
        || asprintf (&target, "%s/real.json", tmpdir) < 0
        || asprintf (&link, "%s/config.json", bundle) < 0)
      abort ();
    test_write_text (target, good);
    if (symlink (target, link) < 0)
      abort ();
    run_policy (NULL, ID_A, NULL, &kata_fc, &rep, &bundle);
    has_str (reason (&rep, "policy.spec"), "config.json is a symbolic link",
             "a symlinked config.json is refused");
    ok (once_each (&rep) && report_count (&rep, VERDICT_FAIL) == 1,
        "a symlinked config.json: only policy.spec fails");
    report_release (&rep);
    unlink (link);
    if (mkfifo (link, 0600) < 0)
      abort ();
    run_policy (NULL, ID_A, NULL, &kata_fc, &rep, &bundle);
    has_str (reason (&rep, "policy.spec"), "config.json is not a regular file",
             "a FIFO config.json is refused without hanging");
    report_release (&rep);
    unlink (link);
    run_policy (NULL, ID_A, NULL, &kata_fc, &rep, &bundle);
    has_str (reason (&rep, "policy.spec"), "config.json: No such file or directory",
             "a missing config.json is refused");
    report_release (&rep);
    rmdir (bundle);
    unlink (target);
  }
  {
    struct guard_config cfg;
    struct report rep = { 0 };
    struct request req = { .mode = KG_MODE_CHECK };
    struct preflight pf;
    cleanup_free char *cfg_path = NULL;
    kg_error_t err = NULL;

    if (asprintf (&cfg_path, "%s/guard.toml", tmpdir) < 0)
      abort ();
    test_write_text (cfg_path, "[policy]\nprivileged = false\n");
    if (guard_config_load (cfg_path, &cfg, &err) < 0)
      abort ();
    preflight_init (&pf, &req, &cfg, &rep);
    check_policy (&pf);
    is_int (rep.n, 0, "without a bundle the policy family reports nothing");
    req.bundle = "relative/bundle";
    check_policy (&pf);
    has_str (reason (&rep, "policy.spec"), "is not an absolute path",
             "a relative bundle is refused");
    preflight_release (&pf);
    report_release (&rep);
    guard_config_release (&cfg);
  }
}

static void
test_resolve (void)
{
  static const struct
  {
    const char *in;
    bool follow;
    const char *want;
  } rows[] = {
    { "/a/b/../c", false, "/a/c" },
    { "/a/./b//c/", false, "/a/b/c" },
    { "/..", false, "/" },
    { "/../../x", false, "/x" },
    { "/", false, "/" },
    { "/var/run/docker.sock", true, "/run/docker.sock" },
    { "/var/run/../nonexistent-x", true, "/nonexistent-x" },
    { "/nonexistent/x/../y", true, "/nonexistent/y" },
  };

  for (size_t i = 0; i < ARRAY_SIZE (rows); i++)
    {
      cleanup_free char *out = NULL;
      kg_error_t err = NULL;

      if (policy_path_resolve ("/", rows[i].in, rows[i].follow, &out, &err) < 0)
        {
          ok (0, "resolve %s: %s", rows[i].in, err->msg);
          kg_error_release (&err);
          continue;
        }
      is_str (out, rows[i].want, "resolve %s%s", rows[i].in, rows[i].follow ? " (follow)" : "");
    }
  {
    cleanup_free char *loop = NULL;
    cleanup_free char *out = NULL;
    kg_error_t err = NULL;

    if (asprintf (&loop, "%s/loop", tmpdir) < 0 || symlink (loop, loop) < 0)
      abort ();
    ok (policy_path_resolve ("/", loop, true, &out, &err) < 0, "a symlink loop is an error");
    has_str (err ? err->msg : NULL, "Too many levels of symbolic links", "it says why");
    kg_error_release (&err);
    unlink (loop);
  }
}

/* ---- Kubernetes pods (containerd's CRI) ------------------------------ */

/* ---- whose start it is ------------------------------------------------ */

/* A row started as Docker starts ID_A: in Docker's namespace, with
   Docker's record of the container (NS, RECORD_ID: another namespace, or
   a record naming another container, as a forged start would be). */
static void
docker_row (const char *name, const char *ns, const char *record_id, const char *source,
            const char *options, const char *root_path, const char *fails, const char *item,
            const char *needle)
{
  cleanup_free char *root = docker_record (ID_A, "c0ffee", "none");
  cleanup_free char *src = NULL, *m = NULL, *spec = NULL, *policy = NULL, *rp = NULL;
  cleanup_free char *cfg2 = NULL, *text = NULL;
  struct report rep;

  if (asprintf (&policy, "engine_roots = [\"%s\"]", root) < 0
      || asprintf (&cfg2, "%s/containers/" ID_A "/config.v2.json", root) < 0
      || asprintf (&text, "{\"ID\": \"%s\"}", record_id) < 0)
    abort ();
  test_write_text (cfg2, text);
  if (source != NULL
      && (asprintf (&src, "%s/%s", root, source) < 0 || (m = bind_of (src, options)) == NULL))
    abort ();
  spec = spec_of (NULL, m, NULL, NULL, NULL);
  if (root_path != NULL)
    {
      if (asprintf (&rp, "\"path\": \"%s%s\"", root_path[0] == '/' ? "" : root,
                    root_path[0] == '/' ? root_path : root_path + 1)
          < 0)
        abort ();
      spec = replace (spec, "\"path\": \"rootfs\"", rp);
    }
  run_ns = ns;
  run_policy (spec, ID_A, policy, &kata_fc, &rep, NULL);
  run_ns = NULL;
  expect (&rep, name, fails, item, needle);
  report_release (&rep);
}

/* A row whose root.path is PATH (relative to the bundle when not
   absolute), readonly RO, in containerd namespace "default". */
static void
rootfs_row (const char *name, const char *path, bool ro, const char *policy, const char *fails,
            const char *needle)
{
  cleanup_free char *spec = spec_of (NULL, NULL, NULL, NULL, NULL);
  cleanup_free char *rp = NULL;
  struct report rep;

  if (asprintf (&rp, "\"path\": \"%s\"%s", path, ro ? ", \"readonly\": true" : "") < 0)
    abort ();
  spec = replace (spec, "\"path\": \"rootfs\"", rp);
  run_ns = "default";
  run_policy (spec, ID_A, policy, &kata_fc, &rep, NULL);
  run_ns = NULL;
  expect (&rep, name, fails, "policy.mounts", needle);
  report_release (&rep);
}

static void
test_identity (void)
{
  cleanup_free char *dir = NULL, *ro_dir = NULL, *policy = NULL, *pm = NULL, *bundle = NULL;
  cleanup_free char *cj = NULL, *text = NULL, *layer = NULL, *spec = NULL;
  struct report rep;

  /* Docker's own files of the container, for Docker's start only. */
  docker_row ("this container's resolv.conf, Docker's start", "moby", ID_A,
              "containers/" ID_A "/resolv.conf", "\"rbind\", \"rprivate\"", NULL, "",
              "policy.mounts", "1 this container's engine file");
  docker_row ("this container's shm, Docker's start", "moby", ID_A,
              "containers/" ID_A "/mounts/shm", "\"rbind\", \"rprivate\"", NULL, "",
              "policy.mounts", "1 this container's engine file");
  docker_row ("a Docker container's resolv.conf, from namespace default", "default", ID_A,
              "containers/" ID_A "/resolv.conf", "\"rbind\", \"rprivate\"", NULL, "policy.mounts",
              "policy.mounts", "not this container's");
  docker_row ("a Docker container's shm, from namespace default", "default", ID_A,
              "containers/" ID_A "/mounts/shm", "\"rbind\"", NULL, "policy.mounts", "policy.mounts",
              "not this container's");
  docker_row ("Docker's namespace, but Docker's record names another container", "moby", ID_B,
              "containers/" ID_A "/hosts", "\"rbind\"", NULL, "policy.mounts", "policy.mounts",
              "not this container's");
  /* The rootfs: Docker's mount of this container's layer, and no other. */
  docker_row ("Docker's rootfs of this container", "moby", ID_A, NULL, NULL,
              "+/overlay2/c0ffee/merged", "", "policy.mounts",
              "the rootfs is Docker's mount of this container's image");
  docker_row ("Docker's rootfs of another container's layer", "moby", ID_A, NULL, NULL,
              "+/overlay2/beef/merged", "policy.mounts", "policy.mounts", "root.path");
  docker_row ("Docker's rootfs of this layer, from namespace default", "default", ID_A, NULL, NULL,
              "+/overlay2/c0ffee/merged", "policy.mounts", "policy.mounts",
              "the engine's state ([policy] engine_roots)");
  /* ctr run --rootfs DIR. */
  rootfs_row ("the bundle's rootfs", "rootfs", false, NULL, "",
              "the rootfs is the bundle's rootfs");
  rootfs_row ("ctr run --rootfs /usr", "/usr", false, NULL, "policy.mounts",
              "root.path /usr: writable bind mount outside [policy] writable_mounts");
  rootfs_row ("ctr run --rootfs /etc, read-only", "/etc", true, NULL, "policy.mounts",
              "root.path /etc: the host's configuration");
  rootfs_row ("a rootfs of /", "/", true, NULL, "policy.mounts", "root.path /: contains");
  rootfs_row ("a rootfs of ../../..", "../../../../../../../../..", true, NULL, "policy.mounts",
              "root.path ../../../../../../../../.. -> /");
  rootfs_row ("a rootfs in containerd's state", "/run/containerd", true, NULL, "policy.mounts",
              "containerd's state");
  if (asprintf (&dir, "%s/srv-root", tmpdir) < 0 || asprintf (&ro_dir, "%s/ro-root", tmpdir) < 0
      || asprintf (&policy, "writable_mounts = [\"%s\"]", dir) < 0)
    abort ();
  mkdir_p (dir);
  mkdir_p (ro_dir);
  rootfs_row ("a rootfs of the host's, writable", ro_dir, false, NULL, "policy.mounts",
              "writable bind mount outside [policy] writable_mounts");
  /* Kata shares a directory rootfs into the VM writable whatever
     root.readonly says. */
  rootfs_row ("a rootfs of the host's, read-only", ro_dir, true, NULL, "policy.mounts",
              "writable bind mount outside [policy] writable_mounts");
  rootfs_row ("a writable rootfs under writable_mounts", dir, false, policy, "",
              "the rootfs is a directory under [policy] writable_mounts");
  rootfs_row ("no root.path", "", true, NULL, "policy.mounts", "names no root filesystem");

  /* Kata's state of a sandbox is kept by id alone: a shim start whose id
     names an existing sandbox (another namespace's) would get its VM. */
  if (geteuid () == 0)
    {
      cleanup_free char *sid = NULL, *store = NULL;
      bool made_vc = access ("/run/vc", F_OK) != 0, made_sbs = access ("/run/vc/sbs", F_OK) != 0;

      if (asprintf (&sid, "kg-test-sbs-%ld", (long) getpid ()) < 0
          || asprintf (&store, "/run/vc/sbs/%s", sid) < 0)
        abort ();
      mkdir_p (store);
      spec = spec_of (NULL, NULL, NULL, NULL, NULL);
      run_mode = KG_MODE_SHIM;
      run_ns = "default";
      run_policy (spec, sid, NULL, &kata_fc, &rep, NULL);
      expect (&rep, "a shim start whose id names an existing Kata sandbox", "policy.identity",
              "policy.identity", "a Kata sandbox of id kg-test-sbs-");
      report_release (&rep);
      rmdir (store);
      run_policy (spec, sid, NULL, &kata_fc, &rep, NULL);
      expect (&rep, "the same start once the sandbox is gone", "", "policy.identity",
              "containerd, namespace \"default\"");
      report_release (&rep);
      run_mode = KG_MODE_CHECK;
      run_ns = NULL;
      if (made_sbs)
        rmdir ("/run/vc/sbs");
      if (made_vc)
        rmdir ("/run/vc");
      free (spec);
      spec = NULL;
    }

  /* podman: its own files and its mount of the container's layer, for a
     bundle in podman's storage. */
  free (policy);
  if (asprintf (&pm, "%s/podman", tmpdir) < 0
      || asprintf (&bundle, "%s/overlay-containers/" ID_A "/userdata", pm) < 0
      || asprintf (&cj, "%s/overlay-containers/containers.json", pm) < 0
      || asprintf (&text, "[{\"id\": \"" ID_B "\", \"layer\": \"l2\"}, {\"id\": \"" ID_A
                          "\", \"layer\": \"l1\"}]")
             < 0
      || asprintf (&policy, "podman_roots = [\"%s\"]", pm) < 0
      || asprintf (&layer, "\"path\": \"%s/overlay/l1/merged\"", pm) < 0)
    abort ();
  mkdir_p (bundle);
  test_write_text (cj, text);
  spec = replace (spec_of (NULL, NULL, NULL, NULL, NULL), "\"path\": \"rootfs\"", layer);
  run_policy (spec, ID_A, policy, &kata_fc, &rep, &bundle);
  expect (&rep, "podman's rootfs of this container", "", "policy.mounts",
          "the rootfs is podman's mount of this container's image");
  report_release (&rep);
  free (spec);
  spec = replace (replace (spec_of (NULL, NULL, NULL, NULL, NULL), "\"path\": \"rootfs\"", layer),
                  "/l1/", "/l2/");
  run_policy (spec, ID_A, policy, &kata_fc, &rep, &bundle);
  expect (&rep, "podman's rootfs of another container", "policy.mounts", "policy.mounts",
          "podman's storage");
  report_release (&rep);
  free (spec);
  /* podman run --rm (podman 5): the record is volatile, in the run root's
     volatile-containers.json, while the layer stays in the graph root. */
  {
    cleanup_free char *rr = NULL;
    cleanup_free char *vj = NULL;
    cleanup_free char *policy2 = NULL;

    if (asprintf (&rr, "%s/podman-run", tmpdir) < 0
        || asprintf (&vj, "%s/overlay-containers/volatile-containers.json", rr) < 0
        || asprintf (&policy2, "podman_roots = [\"%s\", \"%s\"]", pm, rr) < 0)
      abort ();
    mkdir_p (vj);
    rmdir (vj);
    test_write_text (cj, "[{\"id\": \"" ID_B "\", \"layer\": \"l2\"}]");
    test_write_text (vj, "[{\"id\": \"" ID_A "\", \"layer\": \"l1\"}]");
    spec = replace (spec_of (NULL, NULL, NULL, NULL, NULL), "\"path\": \"rootfs\"", layer);
    run_policy (spec, ID_A, policy2, &kata_fc, &rep, &bundle);
    expect (&rep, "podman's rootfs of a volatile container (its record in the run root)", "",
            "policy.mounts", "the rootfs is podman's mount of this container's image");
    report_release (&rep);
    run_policy (spec, ID_A, policy, &kata_fc, &rep, &bundle);
    expect (&rep, "the same without the run root in podman_roots: no record", "policy.mounts",
            "policy.mounts", "podman's storage");
    report_release (&rep);
  }
}

#define SANDBOX_ID "5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b"
#define POD_UID "0d7e3c5a-1111-4222-8333-944455556666"

/* The containerd namespace pod_row runs its container in. */
static const char *pod_ns = "k8s.io";

/* The Kata configuration pod_row runs with; NULL: kata_fc. */
static struct kata_config *pod_kata;

static void
pod_row (const char *name, const char *id, const char *ann, const char *res, const char *mounts,
         const char *policy, const char *fails, const char *item, const char *needle)
{
  cleanup_free char *spec = NULL;
  cleanup_free char *top = NULL;
  cleanup_free char *sb = NULL;
  cleanup_free char *sbspec = NULL;
  struct report rep;

  /* The pod's sandbox, in CRI's namespace of containerd's state, beside
     the container's bundle when the row runs there. */
  if (asprintf (&sb, "%s/state/io.containerd.runtime.v2.task/k8s.io/" SANDBOX_ID, tmpdir) < 0
      || asprintf (&sbspec, "%s/config.json", sb) < 0)
    abort ();
  mkdir_p (sb);
  test_write_text (sbspec, "{\"ociVersion\": \"1.0.2\", \"annotations\": {"
                           "\"io.kubernetes.cri.container-type\": \"sandbox\", "
                           "\"io.kubernetes.cri.sandbox-id\": \"" SANDBOX_ID "\", "
                           "\"io.kubernetes.cri.sandbox-uid\": \"" POD_UID "\"}}");
  if (asprintf (&top, "\"annotations\": {%s}", ann) < 0)
    abort ();
  spec = spec_of (NULL, mounts, res, NULL, top);
  run_ns = pod_ns;
  run_policy (spec, id, policy, pod_kata ? pod_kata : &kata_fc, &rep, NULL);
  run_ns = NULL;
  expect (&rep, name, fails, item, needle);
  report_release (&rep);
}

/* report.vm, what policy.capacity counts (capacity.h): a VM of its own,
   a pod's VM at its sandbox, a member's hot-plugged share (none under
   static sizing), and nothing when the VM was not sized. */
static void
claim_row (const char *name, const char *id, const char *ann, const char *res,
           struct kata_config *k, enum vm_role role, int64_t mem, int64_t base, int64_t add,
           const char *pod)
{
  cleanup_free char *spec = NULL;
  cleanup_free char *top = NULL;
  struct report rep;

  if (ann != NULL && asprintf (&top, "\"annotations\": {%s}", ann) < 0)
    abort ();
  spec = spec_of (NULL, NULL, res, NULL, top);
  run_ns = ann != NULL ? pod_ns : NULL;
  run_policy (spec, id, NULL, k, &rep, NULL);
  run_ns = NULL;
  ok (rep.vm.role == role && rep.vm.mem_mib == mem && rep.vm.base_mib == base
          && rep.vm.add_mib == add && strcmp (rep.vm.pod, pod) == 0,
      "vm claim, %s: role %d, %lld / %lld / +%lld MiB, pod \"%s\" (got %d, %lld / %lld / +%lld, \"%s\")",
      name, (int) role, (long long) mem, (long long) base, (long long) add, pod, (int) rep.vm.role,
      (long long) rep.vm.mem_mib, (long long) rep.vm.base_mib, (long long) rep.vm.add_mib,
      rep.vm.pod);
  report_release (&rep);
}

static void
test_vm_claims (void)
{
  static const char sandbox_ann[] = "\"io.kubernetes.cri.container-type\": \"sandbox\", "
                                    "\"io.kubernetes.cri.sandbox-id\": \"" SANDBOX_ID "\", "
                                    "\"io.kubernetes.cri.sandbox-uid\": \"" POD_UID "\", "
                                    "\"io.kubernetes.cri.sandbox-memory\": \"536870912\"";
  static const char app_ann[] = "\"io.kubernetes.cri.container-type\": \"container\", "
                                "\"io.kubernetes.cri.sandbox-id\": \"" SANDBOX_ID "\", "
                                "\"io.kubernetes.cri.sandbox-uid\": \"" POD_UID "\"";
  cleanup_free char *sb = NULL;
  struct kata_config hot = { 0 };

  if (asprintf (&sb, "%s/state/io.containerd.runtime.v2.task/k8s.io/" SANDBOX_ID, tmpdir) < 0)
    abort ();
  mkdir_p (sb);
  claim_row ("a container's own VM", ID_A, NULL, NULL, &kata_fc, VM_SOLO, 2304, 2048, 0, "");
  claim_row ("no limit: not sized", ID_A, NULL, "\"cpu\": {\"shares\": 2}", &kata_fc, VM_NONE, 0, 0,
             0, "");
  claim_row ("a pod's sandbox", SANDBOX_ID, sandbox_ann, "\"cpu\": {\"shares\": 2}", &kata_fc,
             VM_SANDBOX, 2560, 2048, 0, "");
  claim_row ("a member, static sizing (Firecracker's)", ID_A, app_ann, NULL, &kata_fc, VM_MEMBER, 0,
             0, 0, SANDBOX_ID);
  load_kata (&hot, NULL,
             "[hypervisor.qemu]\ndefault_memory = 1024\n[runtime]\nstatic_sandbox_resource_mgmt = "
             "false\n");
  claim_row ("a member, hot-plugged", ID_A, app_ann, NULL, &hot, VM_MEMBER, 0, 0, 256, SANDBOX_ID);
  claim_row ("a container's own VM, hot-plugged", ID_A, NULL, NULL, &hot, VM_SOLO, 1280, 1024, 0,
             "");
  toml_free (hot.doc);
}

static void
test_pods (void)
{
  static const char sandbox_ann[] = "\"io.kubernetes.cri.container-type\": \"sandbox\", "
                                    "\"io.kubernetes.cri.sandbox-id\": \"" SANDBOX_ID "\", "
                                    "\"io.kubernetes.cri.sandbox-uid\": \"" POD_UID "\"";
  static const char app_ann[] = "\"io.kubernetes.cri.container-type\": \"container\", "
                                "\"io.kubernetes.cri.sandbox-id\": \"" SANDBOX_ID "\", "
                                "\"io.kubernetes.cri.sandbox-uid\": \"" POD_UID "\"";
  static const char no_limit[] = "\"cpu\": {\"shares\": 2}";
  cleanup_free char *ann = NULL;
  cleanup_free char *roots = NULL;
  cleanup_free char *m = NULL;

  /* The pause container: no limit of its own, the pod's from CRI. */
  pod_row ("a pod sandbox that nothing bounds", SANDBOX_ID, sandbox_ann, no_limit, NULL, NULL,
           "policy.resources", "policy.resources", "a pod sandbox that nothing bounds");
  if (asprintf (&ann,
                "%s, \"io.kubernetes.cri.sandbox-memory\": \"268435456\", "
                "\"io.kubernetes.cri.sandbox-cpu-quota\": \"100000\", "
                "\"io.kubernetes.cri.sandbox-cpu-period\": \"100000\"",
                sandbox_ann)
      < 0)
    abort ();
  pod_row ("a pod sandbox sized by CRI's annotations", SANDBOX_ID, ann, no_limit, NULL, NULL, "",
           "policy.resources", "2304 MiB");
  free (ann);
  if (asprintf (&ann, "%s, \"io.kubernetes.cri.sandbox-memory\": \"0\"", sandbox_ann) < 0)
    abort ();
  pod_row ("a pod sandbox whose sandbox-memory is 0", SANDBOX_ID, ann, no_limit, NULL, NULL,
           "policy.resources", "policy.resources", "nothing bounds");
  free (ann);
  if (asprintf (&ann, "%s, \"io.kubernetes.cri.sandbox-memory\": \"lots\"", sandbox_ann) < 0)
    abort ();
  pod_row ("a sandbox-memory that is not a number", SANDBOX_ID, ann, no_limit, NULL, NULL,
           "policy.resources", "policy.resources", "not a number");
  free (ann);
  ann = NULL;
  pod_row ("an app container without a limit is not a sandbox", ID_A, app_ann, no_limit, NULL, NULL,
           "policy.resources", "policy.resources", "no memory limit");

  /* The pod's own files, and only the pod's. */
  if (asprintf (&roots, "containerd_roots = [\"/srv/ctd\"]\nkubelet_roots = [\"/srv/kubelet\"]")
      < 0)
    abort ();
  m = bind_of ("/srv/ctd/io.containerd.grpc.v1.cri/sandboxes/" SANDBOX_ID "/hosts", "\"rbind\"");
  pod_row ("CRI's hosts of the pod, writable", ID_A, app_ann, NULL, m, roots, "", "policy.mounts",
           "1 this container's engine file");
  free (m);
  m = bind_of ("/srv/ctd/io.containerd.grpc.v1.cri/sandboxes/"
               "6c6c6c6c6c6c6c6c6c6c6c6c6c6c6c6c6c6c6c6c6c6c6c6c6c6c6c6c6c6c6c6c/hosts",
               "\"rbind\"");
  pod_row ("CRI's hosts of another pod", ID_A, app_ann, NULL, m, roots, "policy.mounts",
           "policy.mounts", "containerd's state ([policy] containerd_roots");
  free (m);
  m = bind_of ("/srv/kubelet/pods/" POD_UID "/volumes/kubernetes.io~empty-dir/data", "\"rbind\"");
  pod_row ("the pod's emptyDir, writable", ID_A, app_ann, NULL, m, roots, "", "policy.mounts",
           "1 this container's engine file");
  free (m);
  m = bind_of ("/srv/kubelet/pods/" POD_UID "/volumes/kubernetes.io~projected/kube-api-access-x",
               "\"rbind\"");
  pod_row ("the pod's projected token, writable", ID_A, app_ann, NULL, m, roots, "policy.mounts",
           "policy.mounts", "the kubelet binds it read-only");
  free (m);
  m = bind_of ("/srv/kubelet/pki", "\"rbind\", \"ro\"");
  pod_row ("the kubelet's pki", ID_A, app_ann, NULL, m, roots, "policy.mounts", "policy.mounts",
           "the kubelet's state ([policy] kubelet_roots");
  free (m);
  m = bind_of ("/srv/kubelet/pods/" POD_UID "/etc-hosts", "\"rbind\"");
  /* Annotations that name a pod whose sandbox says another uid. */
  if (asprintf (&ann, "\"io.kubernetes.cri.container-type\": \"container\", "
                      "\"io.kubernetes.cri.sandbox-id\": \"" SANDBOX_ID "\", "
                      "\"io.kubernetes.cri.sandbox-uid\": \"ffffffff-0000-4000-8000-000000000000\"")
      < 0)
    abort ();
  pod_row ("annotations whose uid is not the sandbox's", ID_A, ann, NULL, m, roots,
           "policy.identity policy.mounts", "policy.mounts", "kubelet_roots");
  free (m);
  free (ann);
  ann = NULL;

  /* A claim of a pod outside CRI's namespace: ctr --annotation, docker
     run --annotation and podman --annotation set them anywhere. */
  m = bind_of ("/srv/kubelet/pods/" POD_UID "/volumes/kubernetes.io~secret/token",
               "\"rbind\", \"ro\"");
  pod_ns = "default";
  pod_row ("a forged sandbox in namespace default, binding the pod's secret", SANDBOX_ID,
           sandbox_ann, NULL, m, roots, "policy.identity policy.mounts", "policy.identity",
           "io.kubernetes.cri.container-type: only containerd's CRI (in a namespace of [policy] "
           "cri_namespaces) writes it; this start is containerd (namespace \"default\")");
  pod_row ("a forged pod member in namespace default", ID_A, app_ann, NULL, NULL, roots,
           "policy.identity", "policy.identity", "io.kubernetes.cri.sandbox-id: only");
  pod_ns = "moby";
  pod_row ("a pod claim in Docker's namespace", ID_A, app_ann, NULL, NULL, roots, "policy.identity",
           "policy.identity", "this start is Docker");
  pod_ns = "k8s.io";
  run_mode = KG_MODE_OCI;
  pod_row ("a pod claim in an OCI-mode start in k8s.io", ID_A, app_ann, NULL, NULL, roots,
           "policy.identity", "policy.identity", "this start is containerd (namespace");
  /* Shim mode: the namespace is containerd's -namespace argument. */
  run_mode = KG_MODE_SHIM;
  pod_row ("a pod member started as a shim in k8s.io", ID_A, app_ann, NULL, NULL, roots, "",
           "policy.identity", "a member of pod sandbox " SANDBOX_ID);
  free (m);
  m = NULL;
  run_mode = KG_MODE_CHECK;
  /* In CRI's namespace: the sandbox a member names is a pod sandbox. */
  if (asprintf (&ann, "\"io.kubernetes.cri.container-type\": \"container\", "
                      "\"io.kubernetes.cri.sandbox-id\": \"" ID_B "\", "
                      "\"io.kubernetes.cri.sandbox-uid\": \"" POD_UID "\"")
      < 0)
    abort ();
  {
    cleanup_free char *other = NULL, *other_spec = NULL;

    if (asprintf (&other, "%s/state/io.containerd.runtime.v2.task/k8s.io/" ID_B, tmpdir) < 0
        || asprintf (&other_spec, "%s/config.json", other) < 0)
      abort ();
    mkdir_p (other);
    test_write_text (other_spec, "{\"ociVersion\": \"1.0.2\", \"annotations\": {"
                                 "\"io.kubernetes.cri.container-type\": \"container\", "
                                 "\"io.kubernetes.cri.sandbox-id\": \"" SANDBOX_ID "\", "
                                 "\"io.kubernetes.cri.sandbox-uid\": \"" POD_UID "\"}}");
  }
  pod_row ("a member naming another pod's container as its sandbox", ID_A, ann, NULL, NULL, NULL,
           "policy.identity", "policy.identity",
           "io.kubernetes.cri.sandbox-id " ID_B " is no pod sandbox of namespace \"k8s.io\"");
  free (ann);
  if (asprintf (&ann, "\"io.kubernetes.cri.container-type\": \"container\", "
                      "\"io.kubernetes.cri.sandbox-id\": \"" ID_B "feed\", "
                      "\"io.kubernetes.cri.sandbox-uid\": \"" POD_UID "\"")
      < 0)
    abort ();
  pod_row ("a member naming a sandbox that does not exist", ID_A, ann, NULL, NULL, NULL,
           "policy.identity", "policy.identity", "is no pod sandbox");
  free (ann);
  if (asprintf (&ann, "\"io.kubernetes.cri.container-type\": \"sandbox\", "
                      "\"io.kubernetes.cri.sandbox-id\": \"" ID_B "\", "
                      "\"io.kubernetes.cri.sandbox-uid\": \"" POD_UID "\", "
                      "\"io.kubernetes.cri.sandbox-memory\": \"268435456\"")
      < 0)
    abort ();
  pod_row ("a sandbox that names another sandbox id", ID_A, ann, no_limit, NULL, NULL,
           "policy.identity", "policy.identity", "is not its own id");
  free (ann);
  if (asprintf (&ann, "\"io.kubernetes.cri.container-type\": \"podsandbox\"") < 0)
    abort ();
  pod_row ("an unknown container type", ID_A, ann, NULL, NULL, NULL, "policy.identity",
           "policy.identity", "neither sandbox nor container");
  free (ann);
  ann = NULL;
  /* Kata's other readers of a pod: CRI-O's and dockershim's keys. */
  pod_row ("CRI-O's container type in containerd", ID_A,
           "\"io.kubernetes.cri-o.ContainerType\": \"container\", "
           "\"io.kubernetes.cri-o.SandboxID\": \"" SANDBOX_ID "\"",
           NULL, NULL, NULL, "policy.identity", "policy.identity",
           "io.kubernetes.cri-o.ContainerType: only CRI-O, or podman for its pods writes it");
  pod_row ("dockershim's container type", ID_A,
           "\"io.kubernetes.docker.type\": \"container\", "
           "\"io.kubernetes.sandbox.id\": \"" SANDBOX_ID "\"",
           NULL, NULL, NULL, "policy.identity", "policy.identity",
           "io.kubernetes.docker.type: only dockershim (no engine now) writes it");

  /* The pod's VM as Kata sizes it: the sandbox's annotations, not its
     own limits. */
  if (asprintf (&ann,
                "%s, \"io.kubernetes.cri.sandbox-memory\": \"1099511627776\", "
                "\"io.kubernetes.cri.sandbox-cpu-quota\": \"20000000\", "
                "\"io.kubernetes.cri.sandbox-cpu-period\": \"100000\"",
                sandbox_ann)
      < 0)
    abort ();
  pod_row ("a small sandbox limit, 1 TiB and 200 vCPUs in the annotations", SANDBOX_ID, ann, NULL,
           NULL, NULL, "policy.resources", "policy.resources",
           "the VM would have 1050624 MiB (default_memory 2048 + the pod's sandbox-memory "
           "1048576 MiB)");
  pod_row ("the same: 200 vCPUs", SANDBOX_ID, ann, NULL, NULL, NULL, "policy.resources",
           "policy.resources", "+ 200 from sandbox-cpu-quota 20000000 / period 100000");
  free (ann);
  if (asprintf (&ann,
                "%s, \"io.kubernetes.cri.sandbox-memory\": \"268435456\", "
                "\"io.kubernetes.cri.sandbox-cpu-quota\": \"-1\", "
                "\"io.kubernetes.cri.sandbox-cpu-period\": \"100000\", "
                "\"io.kubernetes.cri.sandbox-cpu-shares\": \"40960\"",
                sandbox_ann)
      < 0)
    abort ();
  pod_row ("a quota of -1: the vCPUs from the shares", SANDBOX_ID, ann, no_limit, NULL, NULL,
           "policy.resources", "policy.resources",
           "+ 40 from sandbox-cpu-shares 40960 with a quota of -1");
  free (ann);
  if (asprintf (&ann,
                "%s, \"io.kubernetes.cri.sandbox-memory\": \"268435456\", "
                "\"io.kubernetes.cri.sandbox-cpu-quota\": \"-1\", "
                "\"io.kubernetes.cri.sandbox-cpu-shares\": \"2048\"",
                sandbox_ann)
      < 0)
    abort ();
  pod_row ("a quota of -1 and 2048 shares", SANDBOX_ID, ann, no_limit, NULL, NULL, "",
           "policy.resources",
           "2304 MiB (default_memory 2048 + the pod's sandbox-memory 256 MiB) of at most "
           "16384, 3 vCPUs");
  free (ann);
  ann = NULL;
  /* runtime-rs sizes a pod sandbox from the same annotations, the shares
     aside, on its overhead. */
  {
    struct kata_config rs = { 0 };

    load_shipped (&rs, "4.1.0/runtime-rs/configuration-qemu-runtime-rs.toml", KATA_RUNTIME_RS);
    pod_kata = &rs;
    if (asprintf (&ann,
                  "%s, \"io.kubernetes.cri.sandbox-memory\": \"268435456\", "
                  "\"io.kubernetes.cri.sandbox-cpu-quota\": \"-1\", "
                  "\"io.kubernetes.cri.sandbox-cpu-period\": \"100000\", "
                  "\"io.kubernetes.cri.sandbox-cpu-shares\": \"40960\"",
                  sandbox_ann)
        < 0)
      abort ();
    pod_row ("runtime-rs: a pod sandbox, quota -1: no vCPUs from the shares", SANDBOX_ID, ann,
             no_limit, NULL, NULL, "", "policy.resources",
             "288 MiB (runtime-rs static sizing: overhead_memory 32 + the pod's sandbox-memory "
             "256 MiB) of at most 16384, 1 vCPUs of at most 32 (runtime-rs static sizing: max (1, "
             "overhead_vcpus 0.2 + 0 from no CPU quota), rounded up)");
    free (ann);
    if (asprintf (&ann,
                  "%s, \"io.kubernetes.cri.sandbox-memory\": \"16777216000\", "
                  "\"io.kubernetes.cri.sandbox-cpu-quota\": \"250000\", "
                  "\"io.kubernetes.cri.sandbox-cpu-period\": \"100000\"",
                  sandbox_ann)
        < 0)
      abort ();
    pod_row ("runtime-rs: a pod sandbox on its overhead", SANDBOX_ID, ann, no_limit, NULL, NULL, "",
             "policy.resources",
             "16032 MiB (runtime-rs static sizing: overhead_memory 32 + the pod's sandbox-memory "
             "16000 MiB) of at most 16384, 3 vCPUs");
    free (ann);
    ann = NULL;
    pod_kata = NULL;
    toml_free (rs.doc);
  }

  /* Overflow: a quota of 2^63-1 over a period of 1. */
  if (asprintf (&ann,
                "%s, \"io.kubernetes.cri.sandbox-memory\": \"268435456\", "
                "\"io.kubernetes.cri.sandbox-cpu-quota\": \"9223372036854775807\", "
                "\"io.kubernetes.cri.sandbox-cpu-period\": \"1\"",
                sandbox_ann)
      < 0)
    abort ();
  pod_row ("a sandbox quota of 2^63-1 over a period of 1", SANDBOX_ID, ann, no_limit, NULL, NULL,
           "policy.resources", "policy.resources", "the VM would have 9223372036854775807 vCPUs");
  free (ann);
  ann = NULL;
  pod_row ("a container quota of 2^63-1 over a period of 1", ID_A, "\"x\": \"y\"",
           "\"memory\": {\"limit\": 268435456}, \"cpu\": {\"quota\": 9223372036854775806, "
           "\"period\": 1}",
           NULL, NULL, "policy.resources", "policy.resources", "more than [policy] max_vcpus");
  /* Kata reads more of a pod from annotations: its name and namespace
     (the kubelet's devices of that pod, cold-plugged), CDI device names,
     the termination message path it writes back. */
  pod_ns = "default";
  pod_row (
      "CRI-O's pod name and namespace in namespace default", ID_A,
      "\"io.kubernetes.cri-o.KubeName\": \"gpu-job\", "
      "\"io.kubernetes.cri-o.Namespace\": \"team-b\"",
      NULL, NULL, NULL, "policy.identity", "policy.identity",
      "io.kubernetes.cri-o.KubeName: only CRI-O (a start whose containers/storage record is CRI-O's) writes it");
  pod_row ("CRI's pod name in namespace default", ID_A,
           "\"io.kubernetes.cri.sandbox-name\": \"gpu-job\"", NULL, NULL, NULL, "policy.identity",
           "policy.identity", "io.kubernetes.cri.sandbox-name: only");
  pod_row ("a CDI device annotation", ID_A, "\"cdi.k8s.io/gpu\": \"nvidia.com/gpu=all\"", NULL,
           NULL, NULL, "policy.identity", "policy.identity",
           "cdi.k8s.io/gpu: only a device plugin (CDI");
  pod_row ("a termination message path outside CRI", ID_A,
           "\"io.kubernetes.container.terminationMessagePath\": \"/x\", "
           "\"io.kubernetes.container.terminationMessagePolicy\": \"File\"",
           NULL, NULL, NULL, "policy.identity", "policy.identity",
           "io.kubernetes.container.terminationMessagePath: only the kubelet");
  pod_ns = "k8s.io";
  m = bind_of ("/usr/lib/os-release", "\"rbind\", \"ro\"");
  if (asprintf (&ann, "%s, \"io.kubernetes.container.terminationMessagePath\": \"/x\"", app_ann)
      < 0)
    abort ();
  pod_row ("a pod member whose termination message path is a host file", ID_A, ann, NULL, m, roots,
           "policy.identity", "policy.identity",
           "terminationMessagePath /x is the mount of /usr/lib/os-release, not the kubelet's");
  free (m);
  m = bind_of ("/srv/kubelet/pods/" POD_UID "/containers/app/0a1b2c3d", "\"rbind\"");
  pod_row ("a pod member whose termination message path is the kubelet's", ID_A, ann, NULL, m,
           roots, "", "policy.identity", "a member of pod sandbox");
  free (m);
  m = NULL;
  free (ann);
  ann = NULL;
}

/* ---- CRI-O ---------------------------------------------------------- */

#define CRIO_SB "c5c5c5c5c5c5c5c5c5c5c5c5c5c5c5c5c5c5c5c5c5c5c5c5c5c5c5c5c5c5c5c5"
#define CRIO_APP "a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5"
#define CRIO_ORPHAN "0505050505050505050505050505050505050505050505050505050505050505"
#define CRIO_PODMAN "9595959595959595959595959595959595959595959595959595959595959595"
#define CRIO_UID "7c1d2e3f-4444-4555-8666-977788889999"

/* crio_row: SPEC (config.json text) run as container ID of CRI-O's
   storage (its bundle in the run root, as CRI-O makes it), in MODE. */
static void
crio_row (const char *name, const char *id, const char *spec, enum kg_mode mode,
          const char *policy_more, const char *fails, const char *item, const char *needle)
{
  cleanup_free char *bundle = NULL;
  cleanup_free char *policy = NULL;
  struct report rep;

  if (asprintf (&bundle, "%s/crio-run/overlay-containers/%s/userdata", tmpdir, id) < 0
      || asprintf (&policy,
                   "podman_roots = [\"%s/crio-graph\", \"%s/crio-run\"]\n"
                   "kubelet_roots = [\"%s/crio-kubelet\"]\n%s",
                   tmpdir, tmpdir, tmpdir, policy_more ? policy_more : "")
             < 0)
    abort ();
  mkdir_p (bundle);
  run_mode = mode;
  run_ns = mode == KG_MODE_SHIM ? "default" : NULL;
  run_policy (spec, id, policy, &kata_fc, &rep, &bundle);
  run_mode = KG_MODE_CHECK;
  run_ns = NULL;
  expect (&rep, name, fails, item, needle);
  report_release (&rep);
}

static void
test_crio (void)
{
  /* CRI-O's records of its containers in containers/storage, as CRI-O
     1.35 writes them (volatile, in the graph root): the sandbox's
     metadata names itself as the pod, with the pod uid; a member names
     its pod; one names a pod that has no sandbox; podman's has no pod. */
  static const char records[]
      = "[{\"id\": \"" CRIO_SB "\", \"layer\": \"lsb\", \"metadata\": "
        "\"{\\\"pod-name\\\":\\\"k8s_p\\\",\\\"pod-id\\\":\\\"" CRIO_SB
        "\\\",\\\"uid\\\":\\\"" CRIO_UID
        "\\\",\\\"namespace\\\":\\\"default\\\",\\\"metadata-name\\\":\\\"p\\\","
        "\\\"pod\\\":true}\"},\n"
        " {\"id\": \"" CRIO_APP "\", \"layer\": \"lapp\", \"metadata\": "
        "\"{\\\"pod-name\\\":\\\"k8s_p\\\",\\\"pod-id\\\":\\\"" CRIO_SB
        "\\\",\\\"metadata-name\\\":"
        "\\\"app1\\\"}\"},\n"
        " {\"id\": \"" CRIO_ORPHAN "\", \"layer\": \"lo\", \"metadata\": "
        "\"{\\\"pod-name\\\":\\\"k8s_q\\\",\\\"pod-id\\\":\\\"" ID_B "\\\"}\"},\n"
        " {\"id\": \"" CRIO_PODMAN "\", \"layer\": \"lpm\", \"metadata\": "
        "\"{\\\"image-name\\\":\\\"busybox\\\",\\\"name\\\":\\\"x\\\",\\\"created-at\\\":1}\"}]";
  static const char sb_ann[]
      = "\"annotations\": {\"io.kubernetes.cri-o.ContainerType\": \"sandbox\", "
        "\"io.kubernetes.cri-o.SandboxID\": \"" CRIO_SB "\", "
        "\"io.kubernetes.cri-o.KubeName\": \"p\", \"io.kubernetes.cri-o.Namespace\": \"default\", "
        "\"io.kubernetes.pod.uid\": \"" CRIO_UID "\", "
        "\"pod-linux-resources.crio.io\": \"{\\\"cpu_shares\\\":204,"
        "\\\"memory_limit_in_bytes\\\":268435456}\"}";
  static const char app_ann[]
      = "\"annotations\": {\"io.kubernetes.cri-o.ContainerType\": \"container\", "
        "\"io.kubernetes.cri-o.SandboxID\": \"" CRIO_SB "\", "
        "\"io.kubernetes.container.name\": \"app1\", \"io.kubernetes.pod.uid\": \"" CRIO_UID "\"}";
  cleanup_free char *rec = NULL;
  cleanup_free char *sb_spec = NULL;
  cleanup_free char *text = NULL;
  cleanup_free char *mounts = NULL;
  cleanup_free char *other = NULL;
  char *spec;

  if (asprintf (&rec, "%s/crio-graph/overlay-containers/volatile-containers.json", tmpdir) < 0)
    abort ();
  mkdir_p (rec);
  rmdir (rec);
  test_write_text (rec, records);

  /* The infra container: CRI-O gives it CPU shares only, masks nothing
     (its process is CRI-O's pause), and sizes nothing Kata reads. */
  if (asprintf (&text, "%s", sb_ann) < 0)
    abort ();
  sb_spec = spec_of (NULL, NULL, "\"cpu\": {\"shares\": 2}", NULL, text);
  sb_spec = replace (sb_spec, MASKED ",", "");
  sb_spec = replace (sb_spec, READONLY ",", "");
  crio_row ("CRI-O's pod sandbox, runtime_type vm (a shim start in namespace default)", CRIO_SB,
            sb_spec, KG_MODE_SHIM, NULL, "", "policy.identity",
            "CRI-O, namespace \"default\", its storage");
  crio_row ("CRI-O's pod sandbox: its identity names the pod uid", CRIO_SB, sb_spec, KG_MODE_OCI,
            NULL, "", "policy.identity", "a pod sandbox (pod uid " CRIO_UID ")");
  crio_row ("CRI-O's pod sandbox: the VM at Kata's defaults", CRIO_SB, sb_spec, KG_MODE_OCI, NULL,
            "", "policy.resources", "a CRI-O pod's sizing (none that Kata reads) 0 MiB");
  spec = replace (strdup (sb_spec), "268435456", "0");
  crio_row ("CRI-O's pod sandbox whose pod resources bound no memory", CRIO_SB, spec, KG_MODE_OCI,
            NULL, "policy.resources", "policy.resources", "a pod sandbox that nothing bounds");
  free (spec);
  spec = replace (strdup (sb_spec), "\"pod-linux-resources.crio.io\"", "\"kg.unused\"");
  crio_row ("CRI-O's pod sandbox without pod resources", CRIO_SB, spec, KG_MODE_OCI, NULL,
            "policy.resources", "policy.resources", "pod-linux-resources.crio.io");
  free (spec);
  /* What CRI-O writes when the kubelet sent no pod resources. */
  spec = replace (strdup (sb_spec),
                  "\"{\\\"cpu_shares\\\":204,\\\"memory_limit_in_bytes\\\":268435456}\"",
                  "\"null\"");
  crio_row ("CRI-O's pod sandbox whose pod resources are null", CRIO_SB, spec, KG_MODE_OCI, NULL,
            "policy.resources", "policy.resources", "a pod sandbox that nothing bounds");
  crio_row ("the same without require_memory_limit: allowed (critest, crictl runp)", CRIO_SB, spec,
            KG_MODE_OCI, "require_memory_limit = false", "", "policy.resources",
            "a CRI-O pod's sizing");
  free (spec);
  spec = replace (strdup (sb_spec),
                  "\"{\\\"cpu_shares\\\":204,\\\"memory_limit_in_bytes\\\":268435456}\"",
                  "\"[1]\"");
  crio_row ("CRI-O's pod resources that are an array", CRIO_SB, spec, KG_MODE_OCI,
            "require_memory_limit = false", "policy.resources", "policy.resources",
            "neither null nor a JSON object");
  free (spec);
  /* The same spec as a podman container's: its record is podman's. */
  crio_row ("the sandbox's spec as a podman container: CRI-O's keys refused", CRIO_PODMAN, sb_spec,
            KG_MODE_OCI, NULL, "policy.identity policy.resources policy.confinement",
            "policy.identity", "io.kubernetes.cri-o.KubeName: only CRI-O");
  crio_row ("the sandbox's spec as a podman container: the kubelet's keys refused", CRIO_PODMAN,
            sb_spec, KG_MODE_OCI, NULL, "policy.identity policy.resources policy.confinement",
            "policy.identity", "io.kubernetes.pod.uid: only the kubelet");
  /* A member claiming to be a sandbox, and a sandbox claiming another. */
  free (text);
  if (asprintf (&text, "%s", app_ann) < 0)
    abort ();
  spec = spec_of (NULL, NULL, NULL, NULL, text);
  crio_row ("CRI-O's pod member", CRIO_APP, spec, KG_MODE_SHIM, NULL, "", "policy.identity",
            "a member of pod sandbox " CRIO_SB);
  crio_row ("CRI-O's pod member, runtime_type oci", CRIO_APP, spec, KG_MODE_OCI, NULL, "",
            "policy.identity", "CRI-O, its storage");
  free (spec);
  spec = replace (spec_of (NULL, NULL, NULL, NULL, text), "\"container\"", "\"sandbox\"");
  crio_row ("a CRI-O member whose annotation calls it a sandbox", CRIO_APP, spec, KG_MODE_OCI, NULL,
            "policy.identity", "policy.identity",
            "io.kubernetes.cri-o.ContainerType \"sandbox\", but CRI-O's record");
  free (spec);
  spec = replace (spec_of (NULL, NULL, NULL, NULL, text),
                  "\"io.kubernetes.cri-o.SandboxID\": \"" CRIO_SB,
                  "\"io.kubernetes.cri-o.SandboxID\": \"" ID_A);
  crio_row ("a CRI-O member whose SandboxID names another container", CRIO_APP, spec, KG_MODE_OCI,
            NULL, "policy.identity", "policy.identity",
            "io.kubernetes.cri-o.SandboxID " ID_A ", but CRI-O's record");
  free (spec);
  spec = spec_of (NULL, NULL, NULL, NULL,
                  "\"annotations\": {\"io.kubernetes.cri-o.ContainerType\": \"container\"}");
  crio_row ("a CRI-O member whose record names a pod without a sandbox", CRIO_ORPHAN, spec,
            KG_MODE_OCI, NULL, "policy.identity", "policy.identity",
            "which is no pod sandbox of its storage");
  free (spec);
  spec = spec_of (NULL, NULL, NULL, NULL,
                  "\"annotations\": {\"io.kubernetes.cri.container-type\": \"container\", "
                  "\"io.kubernetes.cri.sandbox-id\": \"" CRIO_SB "\"}");
  crio_row ("containerd's CRI keys in a CRI-O start", CRIO_APP, spec, KG_MODE_SHIM, NULL,
            "policy.identity", "policy.identity",
            "io.kubernetes.cri.container-type: only containerd's CRI");
  free (spec);
  sb_spec = replace (sb_spec, "\"cpu\": {\"shares\": 2}",
                     "\"cpu\": {\"shares\": 2}, \"memory\": {\"limit\": 1}");
  spec = replace (strdup (sb_spec), "{\"type\": \"mount\"}", "{\"type\": \"user\"}");
  crio_row ("CRI-O's pod sandbox: the rest of policy.confinement still holds", CRIO_SB, spec,
            KG_MODE_OCI, NULL, "policy.confinement", "policy.confinement", "no mount namespace");
  free (spec);

  /* A pod's own annotations over CRI-O's keys (CRI-O copies them last):
     the pod name and namespace Kata asks the kubelet for devices by. */
  spec = replace (strdup (sb_spec), "\"io.kubernetes.cri-o.KubeName\": \"p\"",
                  "\"io.kubernetes.cri-o.KubeName\": \"victim\"");
  crio_row ("a CRI-O sandbox whose KubeName names another pod", CRIO_SB, spec, KG_MODE_OCI, NULL,
            "policy.identity", "policy.identity",
            "io.kubernetes.cri-o.KubeName \"victim\", but CRI-O's records say the pod's name is "
            "\"p\"");
  free (spec);
  spec = replace (strdup (sb_spec), "\"io.kubernetes.cri-o.Namespace\": \"default\"",
                  "\"io.kubernetes.cri-o.Namespace\": \"kube-system\"");
  crio_row ("a CRI-O sandbox whose Namespace names another namespace", CRIO_SB, spec, KG_MODE_OCI,
            NULL, "policy.identity", "policy.identity",
            "io.kubernetes.cri-o.Namespace \"kube-system\", but CRI-O's records say the pod's "
            "namespace is \"default\"");
  free (spec);
  spec = replace (strdup (sb_spec), "\"io.kubernetes.cri-o.KubeName\": \"p\"",
                  "\"io.kubernetes.cri-o.ContainerName\": \"k8s_other\"");
  crio_row ("a CRI-O sandbox whose ContainerName is not its record's", CRIO_SB, spec, KG_MODE_OCI,
            NULL, "policy.identity", "policy.identity",
            "io.kubernetes.cri-o.ContainerName \"k8s_other\"");
  free (spec);
  spec = replace (
      strdup (sb_spec), "\"pod-linux-resources.crio.io\"",
      "\"io.kubernetes.cri-o.PodLinuxResources\": \"{}\", \"pod-linux-resources.crio.io\"");
  crio_row ("CRI-O's two pod-resources keys that differ", CRIO_SB, spec, KG_MODE_OCI,
            "require_memory_limit = false", "policy.resources", "policy.resources",
            "differ (one of them is the pod's own annotation)");
  free (spec);
  /* The same id in a second store (podman container restore keeps an
     archive's id): nobody's record, so no CRI-O sandbox. */
  {
    cleanup_free char *dup = NULL;

    if (asprintf (&dup, "%s/crio-run/overlay-containers/containers.json", tmpdir) < 0)
      abort ();
    test_write_text (dup, "[{\"id\": \"" CRIO_SB "\", \"layer\": \"lx\", \"metadata\": "
                          "\"{\\\"name\\\":\\\"x\\\"}\"}]");
    crio_row ("a CRI-O sandbox's id held by a second store: not CRI-O's", CRIO_SB, sb_spec,
              KG_MODE_OCI, NULL, "policy.identity policy.confinement", "policy.identity",
              "only CRI-O");
    unlink (dup);
  }

  /* The files CRI-O binds into a member: its pod sandbox's resolv.conf,
     hostname, shm and .containerenv (run root), the kubelet's etc-hosts
     of the pod; another pod's are refused. */
  if (asprintf (&mounts,
                "{\"destination\": \"/etc/resolv.conf\", \"type\": \"bind\", \"source\": "
                "\"%s/crio-run/overlay-containers/" CRIO_SB "/userdata/resolv.conf\", \"options\": "
                "[\"rbind\", \"rw\"]}, "
                "{\"destination\": \"/run/.containerenv\", \"type\": \"bind\", \"source\": "
                "\"%s/crio-run/overlay-containers/" CRIO_SB
                "/userdata/.containerenv\", \"options\": "
                "[\"rbind\", \"rw\"]}, "
                "{\"destination\": \"/etc/hosts\", \"type\": \"bind\", \"source\": "
                "\"%s/crio-kubelet/pods/" CRIO_UID
                "/etc-hosts\", \"options\": [\"rbind\", \"rw\"]}",
                tmpdir, tmpdir, tmpdir)
          < 0
      || asprintf (&other,
                   "{\"destination\": \"/etc/resolv.conf\", \"type\": \"bind\", \"source\": "
                   "\"%s/crio-run/overlay-containers/" CRIO_ORPHAN
                   "/userdata/resolv.conf\", \"options\": [\"rbind\", \"rw\"]}",
                   tmpdir)
             < 0)
    abort ();
  spec = spec_of (NULL, mounts, NULL, NULL, text);
  crio_row ("a CRI-O member binds its pod's files as CRI-O binds them", CRIO_APP, spec, KG_MODE_OCI,
            NULL, "", NULL, NULL);
  free (spec);
  spec = spec_of (NULL, other, NULL, NULL, text);
  crio_row ("a CRI-O member binding another container's resolv.conf", CRIO_APP, spec, KG_MODE_OCI,
            NULL, "policy.mounts", "policy.mounts", "podman's storage");
  free (spec);
  spec = spec_of (NULL, mounts, NULL, NULL, "\"annotations\": {}");
  crio_row ("the same binds in a podman container: not its files", CRIO_PODMAN, spec, KG_MODE_OCI,
            NULL, "policy.mounts", "policy.mounts", "podman's storage");
  free (spec);
}

int
main (void)
{
  cleanup_free char *fc = NULL;

  fixtures = getenv ("KG_FIXTURES");
  if (fixtures == NULL)
    fixtures = "tests/fixtures";
  snprintf (tmpdir, sizeof tmpdir, "%s/kg-test-policy.XXXXXX",
            geteuid () == 0 ? "/var/lib/kata-guard-test" : "/tmp");
  if (geteuid () == 0)
    mkdir ("/var/lib/kata-guard-test", 0755);
  if (mkdtemp (tmpdir) == NULL)
    abort ();
  chmod (tmpdir, 0755);
  if (asprintf (&fc, "%s/kata/configuration-fc.toml", fixtures) < 0)
    abort ();
  load_kata (&kata_fc, fc, NULL);
  load_kata (&kata_seccomp, NULL,
             "[hypervisor.firecracker]\ndefault_memory = 2048\n[runtime]\n"
             "disable_guest_seccomp = false\n");

  test_resolve ();
  test_fixtures ();
  test_mounts ();
  test_capabilities ();
  test_resources ();
  test_resources_runtimes ();
  test_pods ();
  test_vm_claims ();
  test_identity ();
  test_crio ();
  test_namespaces ();
  test_devices ();
  test_hooks ();
  test_confinement ();
  test_volume_bind ();
  test_redirect ();
  test_network ();
  test_annotations ();
  test_annotations_runtimes ();
  test_seccomp ();
  test_spec ();

  toml_free (kata_fc.doc);
  toml_free (kata_seccomp.doc);
  {
    char cmd[sizeof tmpdir + 16];

    snprintf (cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (system (cmd) != 0)
      printf ("# could not remove %s\n", tmpdir);
  }
  return tap_done ();
}
