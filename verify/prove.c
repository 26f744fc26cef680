/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * kata-guard prove (kata-guard(8), PROVE): a canary through the engine,
 * the probe inside it, each of its lines judged against the host.  The
 * canary is named kata-guard-prove-RANDOM (a CRI pod is also labelled
 * kata-guard.io/prove=canary) and is always removed: after the run, on a
 * timeout, on SIGINT/SIGTERM/SIGHUP, and (one a killed run left) before
 * the next run starts one.
 */
#include "config.h"

#include <arpa/inet.h>
#include <net/route.h>
#include <netinet/in.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "array.h"
#include "buf.h"
#include "capture.h"
#include "cleanup.h"
#include "clock.h"
#include "conf.h"
#include "drift.h"
#include "error.h"
#include "fdio.h"
#include "prove.h"
#include "rundir.h"
#include "sha256.h"
#include "writer.h"

#define CANARY_PREFIX "kata-guard-prove-"
#define PROVE_SUB "prove"
#define MARKER_DIR RUNDIR "/" PROVE_SUB
#define PROBE_IN_CANARY "/kata-guard-probe"
#define OUT_MAX (64 * 1024)
#define MAX_LIST 16
/* CRI: every canary pod carries this label, in this namespace. */
#define CANARY_LABEL "kata-guard.io/prove"
#define CANARY_NAMESPACE "kata-guard-prove"
#define CRI_MEMORY 268435456

/* ---- judging ------------------------------------------------------------ */

/* The line after P's, or NULL after the last. */
static const char *
next_line (const char *p)
{
  const char *e = strchr (p, '\n');

  return e ? e + 1 : NULL;
}

/* The rest of the first line of OUT that starts with KEY and a space. */
static char *
line_of (const char *out, const char *key)
{
  size_t k = strlen (key);

  for (const char *p = out; p != NULL && *p; p = next_line (p))
    if (strncmp (p, key, k) == 0 && p[k] == ' ')
      {
        const char *e = strchr (p, '\n');

        return strndup (p + k + 1, e ? (size_t) (e - p - k - 1) : strlen (p + k + 1));
      }
  return NULL;
}

static bool
way_out (const char *result)
{
  return strncmp (result, "connected", 9) == 0;
}

/* Why a probe's line is missing: the probe did not run, or stopped.
   When it did not run, the first probe (prove.kernel) says why once,
   the engine's words whole and the call as run; the others name it. */
static void
missing (struct report *rep, const char *id, const char *what, const struct prove_host *h,
         const char *out)
{
  if (strstr (out, "kg-probe 1\n") != NULL)
    report_fail (rep, id, "run prove again; a probe cut short is a failure",
                 "the probe did not report %s (its output ended early)", what);
  else if (report_find (rep, "prove.kernel") != NULL && strcmp (id, "prove.kernel") != 0)
    report_fail (rep, id, "see prove.kernel",
                 "the probe did not run in the canary, so %s cannot be told (why: prove.kernel)",
                 what);
  else
    report_fail (rep, id, "start the canary by hand with the same engine call and read its error",
                 "the probe did not run in the canary, so %s cannot be told%s%s%s%s%s", what,
                 h->engine_says && *h->engine_says ? ": " : "",
                 h->engine_says ? h->engine_says : "", h->call ? " (engine call: " : "",
                 h->call ? h->call : "", h->call ? ")" : "");
}

static void
judge_kernel (const char *out, const struct prove_host *h, struct report *rep)
{
  cleanup_free char *rel = line_of (out, "kernel.release");
  cleanup_free char *boot = line_of (out, "kernel.boot_id");
  cleanup_free char *hv = line_of (out, "kernel.hypervisor");

  if (rel == NULL || boot == NULL || hv == NULL)
    return missing (rep, "prove.kernel", "the canary's kernel", h, out);
  if (strcmp (boot, h->boot_id) == 0)
    report_fail (rep, "prove.kernel",
                 "register the guard in front of Kata's shim (the canary ran on another runtime)",
                 "the canary runs on the host's own kernel (boot id %s, release %s): no VM "
                 "stands between it and the host",
                 boot, rel);
  else if (strcmp (hv, "yes") != 0)
    report_fail (rep, "prove.kernel", "run the canary on the guarded Kata runtime",
                 "the canary's kernel (release %s, boot id %s) is not the host's but does not "
                 "run under a hypervisor (no hypervisor CPU flag)",
                 rel, boot);
  else
    report_pass (rep, "prove.kernel",
                 "the canary's kernel is not the host's: release %s (the host's is %s), boot id "
                 "%s, under a hypervisor",
                 rel, h->release, boot);
}

static void
judge_hostfs (const char *out, const struct prove_host *h, struct report *rep)
{
  cleanup_free char *marker = line_of (out, "hostfs.marker");
  cleanup_free char *init = line_of (out, "hostfs.init");

  if (marker == NULL || init == NULL)
    return missing (rep, "prove.hostfs", "what of the host's files the canary sees", h, out);
  if (strcmp (marker, "absent") != 0)
    report_fail (rep, "prove.hostfs", "bind nothing of the host's /run into agents' containers",
                 "the canary sees the marker prove wrote on the host for this run: the host's "
                 "files are there");
  else if (h->init != NULL && strcmp (init, h->init) == 0)
    report_fail (rep, "prove.hostfs", "give the container its own pid namespace (no --pid host)",
                 "the canary's /proc/1 is the host's init (%s)", init);
  else
    report_pass (rep, "prove.hostfs",
                 "the host's marker is not there, and /proc/1 is the canary's own (%s)", init);
}

static bool
runtime_socket (const char *path)
{
  static const char *const names[] = { "docker.sock",           "containerd.sock",
                                       "containerd.sock.ttrpc", "crio.sock",
                                       "podman.sock",           "dockershim.sock",
                                       "cri-dockerd.sock",      "kata.sock",
                                       "buildkitd.sock" };
  static const char *const dirs[] = { "/containerd/", "/docker/", "/crio/", "/podman/" };
  const char *base = strrchr (path, '/') ? strrchr (path, '/') + 1 : path;

  for (size_t i = 0; i < ARRAY_SIZE (names); i++)
    if (strcmp (base, names[i]) == 0)
      return true;
  for (size_t i = 0; i < ARRAY_SIZE (dirs); i++)
    if (strstr (path, dirs[i]) != NULL)
      return true;
  return false;
}

static void
judge_sockets (const char *out, const struct prove_host *h, struct report *rep)
{
  cleanup_free char *kvm = line_of (out, "kvm");
  cleanup_kg_buf struct kg_buf found = { 0 };
  size_t n_other = 0;

  if (kvm == NULL)
    return missing (rep, "prove.sockets", "which sockets the canary sees", h, out);
  for (const char *p = out; p != NULL && *p; p = next_line (p))
    if (strncmp (p, "socket ", 7) == 0)
      {
        const char *e = strchr (p, '\n');
        cleanup_free char *path = strndup (p + 7, e ? (size_t) (e - p - 7) : strlen (p + 7));

        if (path != NULL && runtime_socket (path))
          sb_printf (&found, "%s%s", found.len ? ", " : "", path);
        else
          n_other++;
      }
  if (strcmp (kvm, "absent") != 0)
    sb_printf (&found, "%s/dev/kvm", found.len ? ", " : "");
  if (found.len > 0)
    report_fail (rep, "prove.sockets",
                 "bind no engine socket and no /dev/kvm into agents' containers",
                 "the canary can reach %s", sb_str (&found));
  else
    report_pass (rep, "prove.sockets",
                 "no container-runtime socket and no /dev/kvm in the canary (%zu other socket%s)",
                 n_other, n_other == 1 ? "" : "s");
}

static void
judge_connects (const char *out, const struct prove_host *h, struct report *rep)
{
  cleanup_kg_buf struct kg_buf open_ = { 0 }, closed = { 0 };
  cleanup_free char *direct = NULL;
  bool have_meta = false;

  for (const char *p = out; p != NULL && *p; p = next_line (p))
    {
      char kind[16], target[64], result[96];

      if (strncmp (p, "connect ", 8) != 0
          || sscanf (p + 8, "%15s %63s %95s", kind, target, result) != 3)
        continue;
      if (strcmp (kind, "direct") == 0)
        {
          free (direct);
          if (asprintf (&direct, "%s %s", target, result) < 0)
            direct = NULL;
          continue;
        }
      have_meta |= strcmp (kind, "metadata") == 0;
      sb_printf (way_out (result) ? &open_ : &closed, "%s%s %s",
                 (way_out (result) ? open_.len : closed.len) ? ", " : "", target, result);
    }
  if (! have_meta)
    missing (rep, "prove.metadata", "whether the metadata address answers", h, out);
  else if (open_.len > 0)
    report_fail (rep, "prove.metadata",
                 "keep agents' networks from the metadata address and private ranges (the "
                 "host's firewall, an internal network)",
                 "the canary reached %s", sb_str (&open_));
  else
    report_pass (rep, "prove.metadata", "nothing answered: %s", sb_str (&closed));
  if (direct == NULL)
    missing (rep, "prove.direct", "whether a direct connection gets out", h, out);
  else if (way_out (strchr (direct, ' ') + 1))
    report_fail (rep, "prove.direct",
                 "put agents on an internal network whose only way out is the proxy",
                 "a direct TCP connection to %s completed (%s): the canary has a way out around "
                 "the proxy",
                 h->outside, strchr (direct, ' ') + 1);
  else
    report_pass (rep, "prove.direct", "a direct TCP connection to %s did not complete (%s)",
                 h->outside, strchr (direct, ' ') + 1);
}

static void
judge_forward (const char *out, const struct prove_host *h, struct report *rep)
{
  cleanup_free char *fw = line_of (out, "forward");
  char how[16], gw[64], result[96];

  if (fw == NULL)
    return missing (rep, "prove.forward", "whether the host forwards the canary's traffic", h, out);
  if (strcmp (fw, "none") == 0)
    report_pass (rep, "prove.forward",
                 "the canary has no interface but loopback: no host address to route through");
  else if (strncmp (fw, "cannot ", 7) == 0)
    report_fail (rep, "prove.forward",
                 "run prove without --no-net-admin (its canary alone is given CAP_NET_ADMIN; "
                 "crictl: with --net-admin and NET_ADMIN in [policy] capabilities)",
                 "the probe could not route through the host as a guest's kernel can (%s): not "
                 "proven",
                 fw + 7);
  else if (sscanf (fw, "%15s %63s %95s", how, gw, result) != 3)
    report_fail (rep, "prove.forward", "run prove again", "the probe's forward line is malformed");
  else if (way_out (result))
    report_fail (rep, "prove.forward",
                 "stop the host forwarding from the agents' network (net.ipv4.conf.IF.forwarding "
                 "= 0, or firewall rules that drop it)",
                 "with %s as its default gateway (%s), the canary reached %s (%s): the host "
                 "forwards the agents' network",
                 gw, strcmp (how, "added") == 0 ? "set by the probe" : "its own route", h->outside,
                 result);
  else
    report_pass (rep, "prove.forward",
                 "with %s as its default gateway (%s), %s did not answer (%s)", gw,
                 strcmp (how, "added") == 0 ? "set by the probe" : "its own route", h->outside,
                 result);
}

static bool
denied (const struct prove_host *h, int code)
{
  for (size_t i = 0; i < h->n_deny; i++)
    if (h->deny[i] == code)
      return true;
  return false;
}

static void
judge_proxy (const char *out, const struct prove_host *h, struct report *rep)
{
  cleanup_free char *px = line_of (out, "proxy");
  char target[64], what[16], rest[128];
  int code;

  if (px == NULL)
    return missing (rep, "prove.proxy", "whether the proxy refuses", h, out);
  if (sscanf (px, "%63s %15s %127[^\n]", target, what, rest) != 3)
    report_fail (rep, "prove.proxy", "run prove again", "the probe's proxy line is malformed");
  else if (strcmp (what, "status") != 0)
    report_fail (rep, "prove.proxy",
                 "start the egress proxy where the canary's network reaches it, or name it with "
                 "--proxy",
                 "the proxy %s did not answer the canary: %s", target, rest);
  else if ((code = atoi (rest)) >= 200 && code < 300)
    report_fail (rep, "prove.proxy",
                 "make the proxy deny what is not on its allowlist (tinyproxy: FilterDefaultDeny "
                 "Yes)",
                 "the proxy %s let a CONNECT to a fresh random name through (HTTP %d)", target,
                 code);
  else if (! denied (h, code))
    report_fail (rep, "prove.proxy",
                 "make the proxy deny what is not on its allowlist, or list its denial status in "
                 "[egress] deny_statuses",
                 "the proxy %s answered a CONNECT to a fresh random name with HTTP %d, which is "
                 "not a denial ([egress] deny_statuses): it tried the name",
                 target, code);
  else
    report_pass (rep, "prove.proxy",
                 "the proxy %s refused a CONNECT to a fresh random name (HTTP %d)", target, code);
}

void
prove_judge (const char *out, const struct prove_host *host, struct report *rep)
{
  judge_kernel (out, host, rep);
  judge_hostfs (out, host, rep);
  judge_sockets (out, host, rep);
  judge_connects (out, host, rep);
  judge_forward (out, host, rep);
  judge_proxy (out, host, rep);
}

/* ---- the host ----------------------------------------------------------- */

static char *
first_line_of (const char *path)
{
  cleanup_free char *data = NULL;
  cleanup_error kg_error_t err = NULL;
  size_t len;

  if (kg_read_file_bounded (path, 0, 4096, &data, &len, &err) < 0)
    return NULL;
  data[strcspn (data, "\n")] = '\0';
  return steal_pointer (&data);
}

/* pid 1's "STARTTIME COMM", as the probe prints it. */
static char *
host_init (void)
{
  cleanup_free char *st = first_line_of ("/proc/1/stat");
  char *open_, *close_, *save = NULL, *tok, *s = NULL;
  int field = 3;

  if (st == NULL || (open_ = strchr (st, '(')) == NULL || (close_ = strrchr (st, ')')) == NULL)
    return NULL;
  *close_ = '\0';
  for (char *c = open_ + 1; *c; c++)
    if (*c < 0x21 || *c > 0x7e)
      *c = '_';
  for (tok = strtok_r (close_ + 2, " ", &save); tok != NULL; tok = strtok_r (NULL, " ", &save))
    if (field++ == 22)
      return asprintf (&s, "%s %s", tok, open_ + 1) < 0 ? NULL : s;
  return NULL;
}

static void
random_hex (char *out, size_t n_bytes)
{
  unsigned char b[32];

  if (n_bytes > sizeof b || getrandom (b, n_bytes, 0) != (ssize_t) n_bytes)
    {
      /* Not secret: unique enough for a name, from the clock and pid. */
      struct timespec ts;

      clock_gettime (CLOCK_REALTIME, &ts);
      for (size_t i = 0; i < n_bytes && i < sizeof b; i++)
        b[i] = (unsigned char) ((ts.tv_nsec >> (i % 4 * 8)) ^ (getpid () >> (i % 2 * 8)) ^ i);
    }
  for (size_t i = 0; i < n_bytes; i++)
    sprintf (out + 2 * i, "%02x", b[i]);
}

/* What a run keeps in its directory: the marker; under CRI the pod's and
   the container's configs and the container's log; under validate --prove
   with ctr, the canary's token as its --env-file. */
static const char *const run_files[] = { "marker", "pod.json", "probe.json", "probe.log", "env" };

/* Marker directories an earlier run left (it was killed): MARKER_DIR/HEX
   holding "marker". */
static void
remove_stale_markers (void)
{
  DIR *d = opendir (MARKER_DIR);
  struct dirent *e;

  /* A validate --prove run's window and candidate (drift.h). */
  unlink (DRIFT_WINDOW);
  unlink (DRIFT_CANDIDATE);
  if (d == NULL)
    return;
  while ((e = readdir (d)) != NULL)
    {
      char path[sizeof MARKER_DIR + 300];

      if (e->d_name[0] == '.' || strspn (e->d_name, "0123456789abcdef") != strlen (e->d_name))
        continue;
      for (size_t i = 0; i < ARRAY_SIZE (run_files); i++)
        {
          snprintf (path, sizeof path, MARKER_DIR "/%s/%s", e->d_name, run_files[i]);
          unlink (path);
        }
      snprintf (path, sizeof path, MARKER_DIR "/%s", e->d_name);
      rmdir (path);
    }
  closedir (d);
}

/* ---- the engines -------------------------------------------------------- */

enum engine_kind
{
  ENG_DOCKER,
  ENG_PODMAN,
  ENG_CTR,
  ENG_CRICTL,
};

struct prove_opts
{
  enum engine_kind kind;
  const char *engine_bin;
  char *engine_args[MAX_LIST];
  size_t n_engine_args;
  char *run_args[MAX_LIST];
  size_t n_run_args;
  const char *runtime, *image, *network;
  const char *proxy, *outside, *metadata;
  char *privates[MAX_LIST];
  size_t n_privates;
  const char *probe;
  int timeout_s;
  bool net_admin;
  /* validate --prove (drift.h, DRIFT_WINDOW): docker, podman: the canary
     is created with -e DRIFT_TOKEN_ENV (its value from prove's own
     environment), then started once the window names its id; ctr: its
     token in ENV_FILE. */
  bool window;
  const char *env_file;
};

/* An argv under construction (at most 96 words: every list above is
   bounded). */
struct argv_buf
{
  char *v[96];
  size_t n;
};

static void
arg (struct argv_buf *a, const char *s)
{
  if (a->n + 1 < ARRAY_SIZE (a->v))
    a->v[a->n++] = (char *) s;
  a->v[a->n] = NULL;
}

static void
engine_prefix (const struct prove_opts *o, struct argv_buf *a)
{
  arg (a, o->engine_bin);
  for (size_t i = 0; i < o->n_engine_args; i++)
    arg (a, o->engine_args[i]);
}

static void
exec_argv (void *p)
{
  char *const *argv = p;
  int fd = open ("/dev/null", O_RDONLY | O_CLOEXEC);

  sigset_t none;

  /* prove holds its interrupts while a CRI pod starts; the engine not. */
  sigemptyset (&none);
  sigprocmask (SIG_SETMASK, &none, NULL);
  /* The engine's errors (a refusal among them) are read with its output. */
  if (fd >= 0)
    dup2 (fd, 0);
  dup2 (1, 2);
  execvp (argv[0], argv);
}

/* Run ARGV, output (stdout and stderr) into *OUT; its wait status, -2 on
   the deadline, -1 if it could not run. */
static int
run_capture (char *const *argv, int timeout_ms, char **out)
{
  size_t len;

  *out = NULL;
  return kg_capture (exec_argv, (void *) argv, false, OUT_MAX, timeout_ms, out, &len);
}

static void
run_quiet (char *const *argv)
{
  cleanup_free char *out = NULL;

  run_capture (argv, 30000, &out);
}

/* The steps that remove canary NAME: a stop the probe hears (it removes
   a route it added, then exits), then a forced removal.  docker, podman:
   stop -t 5, rm -f; ctr: SIGTERM, then SIGKILL, delete the task and the
   container; crictl (NAME is the pod's id): stop the pod, remove it. */
static const char *const engine_steps[][5] = {
  { "stop", "-t", "5", NULL, NULL },
  { "rm", "-f", NULL, NULL, NULL },
};
static const char *const ctr_steps[][5] = {
  { "tasks", "kill", "-s", "SIGTERM", NULL },
  { "tasks", "kill", "-s", "SIGKILL", NULL },
  { "tasks", "delete", "-f", NULL, NULL },
  { "containers", "delete", NULL, NULL, NULL },
};
static const char *const cri_steps[][5] = {
  { "stopp", NULL, NULL, NULL, NULL },
  { "rmp", "-f", NULL, NULL, NULL },
};
#define MAX_STEPS 4

/* The argvs of the steps for NAME into A (at most MAX_STEPS); how many. */
static size_t
removal_argvs (const struct prove_opts *o, const char *name, struct argv_buf *a)
{
  const char *const(*steps)[5] = engine_steps;
  size_t n = ARRAY_SIZE (engine_steps);

  if (o->kind == ENG_CTR)
    steps = ctr_steps, n = ARRAY_SIZE (ctr_steps);
  else if (o->kind == ENG_CRICTL)
    steps = cri_steps, n = ARRAY_SIZE (cri_steps);
  for (size_t s = 0; s < n; s++)
    {
      const char *const *step = steps[s];

      a[s].n = 0;
      engine_prefix (o, &a[s]);
      for (size_t i = 0; step[i] != NULL; i++)
        arg (&a[s], step[i]);
      arg (&a[s], name);
    }
  return n;
}

static void
remove_canary (const struct prove_opts *o, const char *name)
{
  struct argv_buf a[MAX_STEPS];
  size_t n = removal_argvs (o, name, a);

  for (size_t s = 0; s < n; s++)
    {
      run_quiet (a[s].v);
      /* ctr's SIGTERM: a moment for the probe to clean up. */
      if (o->kind == ENG_CTR && s == 0)
        sleep (1);
    }
}

/* An engine's id of a container or pod: 12 to 128 lower-case hex digits. */
static bool
hex_id (const char *s)
{
  size_t n = strlen (s);

  return n >= 12 && n <= 128 && strspn (s, "0123456789abcdef") == n;
}

/* The last line of OUT into ID (ID_SIZE bytes) when it is an engine's id
   (hex_id); else ID empty and false. */
static bool
last_id (const char *out, char *id, size_t id_size)
{
  const char *p = out ? out : "", *last = p;
  size_t n;

  for (const char *q = p; q != NULL && *q; q = next_line (q))
    if (*q != '\n')
      last = q;
  n = strcspn (last, "\n");
  id[0] = '\0';
  if (n < id_size)
    {
      memcpy (id, last, n);
      id[n] = '\0';
      if (! hex_id (id))
        id[0] = '\0';
    }
  return id[0] != '\0';
}

/* A canary's name: the prefix, then hex digits. */
static bool
canary_name (const char *s)
{
  size_t p = strlen (CANARY_PREFIX);

  return strncmp (s, CANARY_PREFIX, p) == 0 && strspn (s + p, "0123456789abcdef") == strlen (s + p);
}

/* Canaries a killed run left: every container of the engine whose name
   is a canary's; under CRI every pod with the canary's label. */
static size_t
remove_leftovers (const struct prove_opts *o)
{
  struct argv_buf a = { .n = 0 };
  cleanup_free char *out = NULL;
  char *save = NULL, *tok;
  size_t n = 0;

  engine_prefix (o, &a);
  if (o->kind == ENG_CRICTL)
    {
      arg (&a, "pods");
      arg (&a, "-q");
      arg (&a, "--label");
      arg (&a, CANARY_LABEL "=canary");
    }
  else if (o->kind == ENG_CTR)
    {
      arg (&a, "containers");
      arg (&a, "list");
      arg (&a, "-q");
    }
  else
    {
      arg (&a, "ps");
      arg (&a, "-a");
      arg (&a, "--format");
      arg (&a, "{{.Names}}");
    }
  if (run_capture (a.v, 30000, &out) != 0 || out == NULL)
    return 0;
  for (tok = strtok_r (out, "\n", &save); tok != NULL; tok = strtok_r (NULL, "\n", &save))
    if (o->kind == ENG_CRICTL ? hex_id (tok) : canary_name (tok))
      {
        remove_canary (o, tok);
        n++;
      }
  return n;
}

/* ARGV as one line into B, a word with a space or a quote in quotes. */
static void
argv_text (struct kg_buf *b, char *const *argv)
{
  for (size_t i = 0; argv[i] != NULL; i++)
    sb_printf (b, strpbrk (argv[i], " \"'") ? "%s'%s'" : "%s%s", i ? " " : "", argv[i]);
}

/* The engine call that starts the canary NAME, the probe bound in
   read-only and run with PROBE_ARGS. */
static void
canary_argv (const struct prove_opts *o, const char *name, char *const *probe_args,
             struct argv_buf *a, char *mount, size_t mount_size, char *withns, size_t ns_size)
{
  engine_prefix (o, a);
  arg (a, o->window && o->kind != ENG_CTR ? "create" : "run");
  arg (a, "--rm");
  if (o->kind == ENG_CTR && o->env_file != NULL)
    {
      arg (a, "--env-file");
      arg (a, o->env_file);
    }
  else if (o->window)
    {
      arg (a, "-e");
      arg (a, DRIFT_TOKEN_ENV);
    }
  if (o->kind == ENG_CTR)
    {
      snprintf (mount, mount_size, "type=bind,src=%s,dst=" PROBE_IN_CANARY ",options=rbind:ro",
                o->probe);
      arg (a, "--runtime");
      arg (a, o->runtime);
      arg (a, "--mount");
      arg (a, mount);
      if (o->network != NULL)
        {
          snprintf (withns, ns_size, "network:%s", o->network);
          arg (a, "--with-ns");
          arg (a, withns);
        }
      if (o->net_admin)
        {
          arg (a, "--cap-add");
          arg (a, "CAP_NET_ADMIN");
        }
      for (size_t i = 0; i < o->n_run_args; i++)
        arg (a, o->run_args[i]);
      arg (a, o->image);
      arg (a, name);
      arg (a, PROBE_IN_CANARY);
    }
  else
    {
      snprintf (mount, mount_size, "%s:" PROBE_IN_CANARY ":ro", o->probe);
      arg (a, "--name");
      arg (a, name);
      arg (a, "--runtime");
      arg (a, o->runtime);
      if (o->network != NULL)
        {
          arg (a, "--network");
          arg (a, o->network);
        }
      if (o->net_admin)
        {
          arg (a, "--cap-add");
          arg (a, "NET_ADMIN");
        }
      arg (a, "-v");
      arg (a, mount);
      arg (a, "--entrypoint");
      arg (a, PROBE_IN_CANARY);
      for (size_t i = 0; i < o->n_run_args; i++)
        arg (a, o->run_args[i]);
      arg (a, o->image);
    }
  for (size_t i = 0; probe_args[i] != NULL; i++)
    arg (a, probe_args[i]);
}

/* ---- docker without --network: the reference design, for this run ------- */

/* Whether the IPv4 address ADDR is in SUBNET ("A.B.C.D/N"). */
static bool
in_subnet (const struct in_addr *addr, const char *subnet)
{
  char net[64];
  struct in_addr a;
  const char *slash = strchr (subnet, '/');
  long bits;
  uint32_t mask;

  if (slash == NULL || (size_t) (slash - subnet) >= sizeof net)
    return false;
  memcpy (net, subnet, (size_t) (slash - subnet));
  net[slash - subnet] = '\0';
  bits = strtol (slash + 1, NULL, 10);
  if (inet_pton (AF_INET, net, &a) != 1 || bits < 0 || bits > 32)
    return false;
  mask = bits == 0 ? 0 : htonl (~UINT32_C (0) << (32 - bits));
  return (a.s_addr & mask) == (addr->s_addr & mask);
}

/* The Docker network (its name into NET) that holds the proxy's address,
   an internal one first: where production's companions are. */
static int
docker_proxy_network (const struct prove_opts *o, char *net, size_t net_size, kg_error_t *err)
{
  struct argv_buf a = { .n = 0 };
  cleanup_free char *ids = NULL, *out = NULL;
  char host[64], *save = NULL, *tok;
  const char *colon = strrchr (o->proxy, ':');
  struct in_addr proxy;
  bool internal = false;

  if (colon == NULL || (size_t) (colon - o->proxy) >= sizeof host)
    return kg_error (err, 0, "the proxy %s is not ADDR:PORT", o->proxy);
  memcpy (host, o->proxy, (size_t) (colon - o->proxy));
  host[colon - o->proxy] = '\0';
  if (inet_pton (AF_INET, host, &proxy) != 1)
    return kg_error (err, 0,
                     "the proxy %s is no IPv4 address of a Docker network: name the agents' "
                     "network with --network container:COMPANION",
                     o->proxy);
  engine_prefix (o, &a);
  arg (&a, "network");
  arg (&a, "ls");
  arg (&a, "-q");
  if (run_capture (a.v, 30000, &ids) != 0 || ids == NULL)
    return kg_error (err, 0, "%s network ls failed: %.300s", o->engine_bin, ids ? ids : "");
  a.n = 0;
  engine_prefix (o, &a);
  arg (&a, "network");
  arg (&a, "inspect");
  arg (&a, "--format");
  arg (&a, "{{.Name}} {{.Internal}} {{range .IPAM.Config}}{{.Subnet}} {{end}}");
  for (tok = strtok_r (ids, "\n", &save); tok != NULL; tok = strtok_r (NULL, "\n", &save))
    if (hex_id (tok))
      arg (&a, tok);
  net[0] = '\0';
  if (run_capture (a.v, 30000, &out) != 0 || out == NULL)
    return kg_error (err, 0, "%s network inspect failed: %.300s", o->engine_bin, out ? out : "");
  for (tok = strtok_r (out, "\n", &save); tok != NULL; tok = strtok_r (NULL, "\n", &save))
    {
      char *w = NULL, *name = strtok_r (tok, " ", &w), *in = strtok_r (NULL, " ", &w), *sub;
      bool is_internal = in != NULL && strcmp (in, "true") == 0;

      if (name == NULL || in == NULL || (internal && ! is_internal))
        continue;
      while ((sub = strtok_r (NULL, " ", &w)) != NULL)
        if (in_subnet (&proxy, sub) && (net[0] == '\0' || (is_internal && ! internal)))
          {
            snprintf (net, net_size, "%s", name);
            internal = is_internal;
          }
    }
  if (net[0] == '\0')
    return kg_error (err, 0,
                     "no Docker network holds the proxy %s (the agents' internal network, "
                     "as in the reference design): name the agents' network with --network "
                     "container:COMPANION",
                     o->proxy);
  return 0;
}

/* Remove every default route (IPv4 and IPv6) from the network namespace
   of process PID, as the reference design's companion does: its network's
   addresses stay, its way out is the proxy alone.  0, or -1 with *ERR. */
static int
drop_default_routes (unsigned long pid, kg_error_t *err)
{
  char path[64];
  pid_t child;
  int status;

  snprintf (path, sizeof path, "/proc/%lu/ns/net", pid);
  child = fork ();
  if (child < 0)
    return kg_error (err, errno, "fork");
  if (child == 0)
    {
      int ns = open (path, O_RDONLY | O_CLOEXEC), s4, s6, bad = 0;
      struct rtentry rt;
      struct in6_rtmsg rt6;

      if (ns < 0 || setns (ns, CLONE_NEWNET) < 0)
        _exit (1);
      s4 = socket (AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
      s6 = socket (AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0);
      for (int i = 0; s4 >= 0 && i < 64; i++)
        {
          memset (&rt, 0, sizeof rt);
          rt.rt_dst.sa_family = AF_INET;
          rt.rt_genmask.sa_family = AF_INET;
          rt.rt_flags = RTF_UP;
          if (ioctl (s4, SIOCDELRT, &rt) < 0)
            {
              bad |= errno != ESRCH;
              break;
            }
        }
      for (int i = 0; s6 >= 0 && i < 64; i++)
        {
          memset (&rt6, 0, sizeof rt6);
          rt6.rtmsg_flags = RTF_UP;
          rt6.rtmsg_metric = 0;
          if (ioctl (s6, SIOCDELRT, &rt6) < 0)
            break;
        }
      _exit (bad ? 2 : 0);
    }
  if (waitpid (child, &status, 0) < 0 || ! WIFEXITED (status) || WEXITSTATUS (status) != 0)
    return kg_error (err, 0, "cannot remove the default routes of %s", path);
  return 0;
}

/* docker, no --network: the reference design for this run.  A companion
   NAME (runc, the probe holding it open) on the Docker network that holds
   the proxy (its name into NET), its default routes removed; the canary
   joins it (--network container:ID, into NETWORK).  ID is the
   companion's. */
static int
docker_companion (struct prove_opts *o, const char *name, char *id, size_t id_size, char *net,
                  size_t net_size, char *network, size_t network_size, char *mount,
                  size_t mount_size, kg_error_t *err)
{
  struct argv_buf a = { .n = 0 };
  cleanup_free char *out = NULL;
  unsigned long pid;

  id[0] = '\0';
  if (docker_proxy_network (o, net, net_size, err) < 0)
    return -1;
  snprintf (mount, mount_size, "%s:" PROBE_IN_CANARY ":ro", o->probe);
  engine_prefix (o, &a);
  arg (&a, "run");
  arg (&a, "-d");
  arg (&a, "--name");
  arg (&a, name);
  arg (&a, "--runtime");
  arg (&a, "runc");
  arg (&a, "--network");
  arg (&a, net);
  arg (&a, "-v");
  arg (&a, mount);
  arg (&a, "--entrypoint");
  arg (&a, PROBE_IN_CANARY);
  arg (&a, o->image);
  arg (&a, "--hold");
  arg (&a, "3600");
  if (run_capture (a.v, o->timeout_s * 1000, &out) != 0 || ! last_id (out, id, id_size))
    return kg_error (err, 0, "the companion on network %s did not start: %.600s", net,
                     out ? out : "");
  a.n = 0;
  engine_prefix (o, &a);
  arg (&a, "inspect");
  arg (&a, "--format");
  arg (&a, "{{.State.Pid}}");
  arg (&a, id);
  free (out);
  out = NULL;
  if (run_capture (a.v, 30000, &out) != 0 || out == NULL || (pid = strtoul (out, NULL, 10)) == 0)
    return kg_error (err, 0, "the companion %s has no process: %.300s", name, out ? out : "");
  if (drop_default_routes (pid, err) < 0)
    return -1;
  snprintf (network, network_size, "container:%s", id);
  o->network = network;
  return 0;
}

/* ---- validate --prove's window (drift.h) -------------------------------- */

/* DRIFT_WINDOW for the canary ID (a CRI pod: "", and POD_UID the uid
   prove gave the pod; else NULL): the SHA-256 of its TOKEN, whether it
   may hold CAP_NET_ADMIN (NET_ADMIN), and under validate --prove the
   SHA-256 of the candidate's bytes (RECORD, hex; "" for none), until the
   canary's deadline. */
static int
window_write (const char *id, const char *pod_uid, const char *token, bool net_admin,
              const char *record, int timeout_s, kg_error_t *err)
{
  unsigned char md[SHA256_LEN];
  char th[SHA256_HEX_LEN + 1], text[800], rec[SHA256_HEX_LEN + 3] = "null";
  char pod[SHA256_HEX_LEN + 3] = "null";
  int n;

  sha256_mem (token, strlen (token), md);
  sha256_hex (md, th);
  if (record[0] != '\0')
    snprintf (rec, sizeof rec, "\"%s\"", record);
  if (pod_uid != NULL)
    {
      sha256_mem (pod_uid, strlen (pod_uid), md);
      pod[0] = '"';
      sha256_hex (md, pod + 1);
      strcat (pod, "\"");
    }
  n = snprintf (text, sizeof text,
                "{\"format\": \"" DRIFT_WINDOW_FORMAT "\", \"id\": \"%s\", \"pod_uid_sha256\": "
                "%s, \"token_sha256\": \"%s\", \"net_admin\": %s, \"record_sha256\": %s, "
                "\"expires\": %lld}\n",
                id, pod, th, net_admin ? "true" : "false", rec,
                (long long) time (NULL) + timeout_s + 5);
  if (n < 0 || (size_t) n >= sizeof text)
    return kg_error (err, 0, "the canary's id is too long for " DRIFT_WINDOW);
  return writer_replace (DRIFT_WINDOW, text, (size_t) n, WRITER_PRIVATE, WRITER_DIR_PRIVATE, err);
}

/* docker, podman: CREATE (the canary created, not
   started), the window for the id the engine gave it, then `start -a`:
   its status and output as run_capture's. */
static int
window_canary (const struct prove_opts *o, char *const *create, const char *token,
               const char *record, char **out)
{
  int64_t deadline = kg_monotonic_ms () + (int64_t) o->timeout_s * 1000, left;
  cleanup_error kg_error_t err = NULL;
  struct argv_buf a = { .n = 0 };
  char id[160];
  int status = run_capture (create, o->timeout_s * 1000, out);

  if (status != 0)
    return status;
  if (! last_id (*out, id, sizeof id))
    return -1;
  if (window_write (id, NULL, token, o->net_admin, record, o->timeout_s, &err) < 0)
    {
      free (*out);
      *out = strdup (err->msg);
      return -1;
    }
  left = deadline - kg_monotonic_ms ();
  if (left <= 0)
    return -2;
  engine_prefix (o, &a);
  arg (&a, "start");
  arg (&a, "-a");
  arg (&a, id);
  free (*out);
  return run_capture (a.v, (int) left, out);
}

/* ---- interrupts: the canary is removed all the same --------------------- */

static char *const *cleanup_argv[MAX_STEPS + 1];
static bool cleanup_pause; /* ctr: a second after the first step */
/* This run's directory, its files first: built before the canary starts. */
static char run_paths[ARRAY_SIZE (run_files) + 1][4200];
static size_t n_run_paths;
/* A validate --prove run's window and candidate are there (drift.h). */
static bool window_files;

static void
set_run_paths (const char *dir)
{
  for (size_t i = 0; i < ARRAY_SIZE (run_files); i++)
    snprintf (run_paths[i], sizeof run_paths[i], "%s/%s", dir, run_files[i]);
  snprintf (run_paths[ARRAY_SIZE (run_files)], sizeof run_paths[0], "%s", dir);
  n_run_paths = ARRAY_SIZE (run_paths);
}

/* Async-signal-safe (unlink, rmdir). */
static void
remove_run_dir (void)
{
  for (size_t i = 0; i + 1 < n_run_paths; i++)
    unlink (run_paths[i]);
  if (n_run_paths > 0)
    rmdir (run_paths[n_run_paths - 1]);
  n_run_paths = 0;
  if (window_files)
    {
      unlink (DRIFT_WINDOW);
      unlink (DRIFT_CANDIDATE);
    }
  window_files = false;
}

static void
on_signal (int sig)
{
  /* fork, execvp (execve) and waitpid are async-signal-safe; the argv
     was built before the canary started. */
  for (size_t i = 0; i < ARRAY_SIZE (cleanup_argv) && cleanup_argv[i] != NULL; i++)
    {
      pid_t p = fork ();

      if (p == 0)
        {
          int fd = open ("/dev/null", O_RDWR);

          dup2 (fd, 0);
          dup2 (fd, 1);
          dup2 (fd, 2);
          execvp (cleanup_argv[i][0], cleanup_argv[i]);
          _exit (127);
        }
      if (p > 0)
        waitpid (p, NULL, 0);
      if (i == 0 && cleanup_pause)
        sleep (1);
    }
  remove_run_dir ();
  _exit (128 + sig);
}

/* ---- CRI: a pod of one container, as a kubelet asks for it --------------- */

static void
jset (json_object *o, const char *key, json_object *v)
{
  json_object_object_add (o, key, v);
}

static json_object *
jobj (json_object *o, const char *key)
{
  json_object *v;

  if (! json_object_object_get_ex (o, key, &v))
    jset (o, key, v = json_object_new_object ());
  return v;
}

/* The paths a kubelet masks and makes read-only in every container that
   is not privileged (CRI sends what it is given: none, without these). */
static const char *const cri_masked[] = {
  "/proc/asound",
  "/proc/acpi",
  "/proc/kcore",
  "/proc/keys",
  "/proc/latency_stats",
  "/proc/timer_list",
  "/proc/timer_stats",
  "/proc/sched_debug",
  "/proc/scsi",
  "/sys/firmware",
  "/sys/devices/virtual/powercap",
  NULL,
};
static const char *const cri_readonly[] = {
  "/proc/bus", "/proc/fs", "/proc/irq", "/proc/sys", "/proc/sysrq-trigger", NULL,
};

static json_object *
jstrings (const char *const *v)
{
  json_object *a = json_object_new_array ();

  for (size_t i = 0; v[i] != NULL; i++)
    json_object_array_add (a, json_object_new_string (v[i]));
  return a;
}

/* What a kubelet sends for the pod's and the container's Linux side: the
   pod's network namespace, a process namespace of the container's own,
   the memory limit; in the container (CTR) the masked and read-only
   paths. */
static void
cri_linux (json_object *cfg, bool ctr, bool net_admin)
{
  json_object *lx = jobj (cfg, "linux"), *sc = jobj (lx, "security_context");
  json_object *ns = jobj (sc, "namespace_options");

  jset (jobj (lx, "resources"), "memory_limit_in_bytes", json_object_new_int64 (CRI_MEMORY));
  jset (ns, "network", json_object_new_int (0)); /* POD */
  jset (ns, "pid", json_object_new_int (1));     /* CONTAINER */
  jset (ns, "ipc", json_object_new_int (0));     /* POD */
  if (ctr)
    {
      jset (sc, "masked_paths", jstrings (cri_masked));
      jset (sc, "readonly_paths", jstrings (cri_readonly));
    }
  if (net_admin)
    jset (jobj (sc, "capabilities"), "add_capabilities",
          jstrings ((const char *const[]){ "NET_ADMIN", NULL }));
}

/* DIR/pod.json and DIR/probe.json: the pod NAME (uid UID) in the canary's
   namespace, labelled, its log directory DIR; its one container runs the
   probe, bound in read-only, with PROBE_ARGS. */
static int
cri_write_configs (const struct prove_opts *o, const char *dir, const char *name, const char *uid,
                   const char *token, char *const *probe_args, kg_error_t *err)
{
  json_object *pod = json_object_new_object (), *ctr = json_object_new_object ();
  json_object *meta;
  json_object *mounts = json_object_new_array (), *m = json_object_new_object ();
  char path[4200];
  int rc = 0;

  meta = jobj (pod, "metadata");
  jset (meta, "name", json_object_new_string (name));
  jset (meta, "uid", json_object_new_string (uid));
  jset (meta, "namespace", json_object_new_string (CANARY_NAMESPACE));
  jset (meta, "attempt", json_object_new_int (0));
  jset (pod, "hostname", json_object_new_string (name));
  jset (pod, "log_directory", json_object_new_string (dir));
  jset (jobj (pod, "labels"), CANARY_LABEL, json_object_new_string ("canary"));
  cri_linux (pod, false, false);

  meta = jobj (ctr, "metadata");
  jset (meta, "name", json_object_new_string ("probe"));
  jset (meta, "attempt", json_object_new_int (0));
  jset (jobj (ctr, "image"), "image", json_object_new_string (o->image));
  jset (ctr, "command", jstrings ((const char *const[]){ PROBE_IN_CANARY, NULL }));
  jset (ctr, "args", jstrings ((const char *const *) probe_args));
  {
    /* The canary's token (drift.h, DRIFT_WINDOW), in a file of the run's
       directory, never an argv. */
    json_object *envs = json_object_new_array (), *e = json_object_new_object ();

    jset (e, "key", json_object_new_string (DRIFT_TOKEN_ENV));
    jset (e, "value", json_object_new_string (token));
    json_object_array_add (envs, e);
    jset (ctr, "envs", envs);
  }
  jset (ctr, "log_path", json_object_new_string ("probe.log"));
  jset (jobj (ctr, "labels"), CANARY_LABEL, json_object_new_string ("canary"));
  jset (m, "container_path", json_object_new_string (PROBE_IN_CANARY));
  jset (m, "host_path", json_object_new_string (o->probe));
  jset (m, "readonly", json_object_new_boolean (1));
  json_object_array_add (mounts, m);
  jset (ctr, "mounts", mounts);
  cri_linux (ctr, true, o->net_admin);

  snprintf (path, sizeof path, "%s/pod.json", dir);
  if (json_object_to_file_ext (path, pod, JSON_C_TO_STRING_PRETTY) < 0)
    rc = kg_error (err, errno, "cannot write %s", path);
  snprintf (path, sizeof path, "%s/probe.json", dir);
  if (rc == 0 && json_object_to_file_ext (path, ctr, JSON_C_TO_STRING_PRETTY) < 0)
    rc = kg_error (err, errno, "cannot write %s", path);
  json_object_put (pod);
  json_object_put (ctr);
  return rc;
}

/* crictl WORDS... within the time left until DEADLINE (ms, monotonic):
   its status (run_capture's) and output; *ID the last line of the output
   when it is an id. */
static int
crictl (const struct prove_opts *o, int64_t deadline, char **out, char *id, size_t id_size,
        const char *const *words)
{
  struct argv_buf a = { .n = 0 };
  int64_t left = deadline - kg_monotonic_ms ();
  int status;

  free (*out);
  *out = NULL;
  if (left <= 0)
    return -2;
  engine_prefix (o, &a);
  for (size_t i = 0; words[i] != NULL; i++)
    arg (&a, words[i]);
  status = run_capture (a.v, (int) left, out);
  if (id != NULL && ! last_id (*out, id, id_size) && status == 0)
    status = -1;
  return status;
}

/* The CRI canary: runp, create, start, wait for the container's end,
   then its log, within TIMEOUT_MS.  POD gets the pod's id (empty while
   none runs: from then on an interrupt removes it, with RM's argvs).  0
   with the probe's output in *OUT; else the failed step's status with
   what crictl said, -2 on the deadline. */
static int
cri_canary (const struct prove_opts *o, const char *dir, int timeout_ms, char *pod, size_t pod_size,
            struct argv_buf *rm, char **out)
{
  int64_t deadline = kg_monotonic_ms () + timeout_ms;
  char ctr[160], pod_json[4200], probe_json[4200];
  sigset_t hold, was;
  int status;

  snprintf (pod_json, sizeof pod_json, "%s/pod.json", dir);
  snprintf (probe_json, sizeof probe_json, "%s/probe.json", dir);
  /* An interrupt while the pod starts waits until its id is known. */
  sigemptyset (&hold);
  sigaddset (&hold, SIGINT);
  sigaddset (&hold, SIGTERM);
  sigaddset (&hold, SIGHUP);
  sigprocmask (SIG_BLOCK, &hold, &was);
  status = crictl (o, deadline, out, pod, pod_size,
                   (const char *[]){ "runp", "--runtime", o->runtime, pod_json, NULL });
  if (pod[0] != '\0')
    {
      size_t n = removal_argvs (o, pod, rm);

      for (size_t s = 0; s < n; s++)
        cleanup_argv[s] = rm[s].v;
    }
  sigprocmask (SIG_SETMASK, &was, NULL);
  if (status != 0)
    return status;
  status = crictl (o, deadline, out, ctr, sizeof ctr,
                   (const char *[]){ "create", pod, probe_json, pod_json, NULL });
  if (status != 0)
    return status;
  status = crictl (o, deadline, out, NULL, 0, (const char *[]){ "start", ctr, NULL });
  if (status != 0)
    return status;
  /* Its end: the container is listed among the exited ones. */
  for (;;)
    {
      status = crictl (o, deadline, out, NULL, 0,
                       (const char *[]){ "ps", "-a", "-q", "--id", ctr, "--state", "exited",
                                         NULL });
      if (status != 0)
        return status;
      if (*out != NULL && strstr (*out, ctr) != NULL)
        break;
      usleep (200 * 1000);
    }
  return crictl (o, deadline, out, NULL, 0, (const char *[]){ "logs", ctr, NULL });
}

/* ---- the command -------------------------------------------------------- */

void
prove_usage (FILE *out)
{
  fputs ("Usage: kata-guard prove --engine docker|podman|ctr|crictl --image IMAGE [options]\n"
         "\n"
         "Starts one short-lived canary through the engine on the guarded runtime, runs a\n"
         "probe inside it, and judges what it sees against the host: prove.kernel,\n"
         "prove.hostfs, prove.sockets, prove.metadata, prove.direct, prove.forward,\n"
         "prove.proxy. The canary is always removed.\n"
         "\n"
         "  --engine NAME        docker, podman, ctr or crictl (a CRI pod)\n"
         "  --image IMAGE        the canary's image (it needs nothing of its own)\n"
         "  --runtime NAME       the guarded runtime (default kata-guard, crictl: the\n"
         "                       runtime handler; ctr: io.containerd.kata-guard.v2)\n"
         "  --network NET        docker/podman --network (e.g. container:COMPANION);\n"
         "                       ctr: a network namespace path; crictl: not taken (the\n"
         "                       pod's network is the one CNI gives every pod); docker's\n"
         "                       default: the reference design, made for the run (a\n"
         "                       companion on the Docker network holding the proxy, no\n"
         "                       default route), removed after it\n"
         "  --proxy ADDR:PORT    the egress proxy as the canary reaches it (default: the\n"
         "                       guard configuration's [egress] proxy)\n"
         "  --outside ADDR:PORT  an outside address to try directly (default 1.1.1.1:443)\n"
         "  --metadata ADDR:PORT the metadata service (default 169.254.169.254:80)\n"
         "  --private ADDR:PORT  a host of a private range that must not answer (repeatable)\n"
         "  --engine-bin PATH    the engine's client (default: docker, podman, ctr, crictl)\n"
         "  --engine-arg ARG     an argument before `run` (repeatable: -H SOCKET, -a SOCKET,\n"
         "                       --runtime-endpoint unix://SOCKET)\n"
         "  --run-arg ARG        an argument of `run`, as production passes it (repeatable;\n"
         "                       default --memory 256m, ctr: --memory-limit 268435456;\n"
         "                       crictl: not taken, the pod asks for 256 MiB)\n"
         "  --net-admin          give the canary CAP_NET_ADMIN, so that prove.forward can\n"
         "                       route as a guest's kernel can (the default: the guard\n"
         "                       allows it to this run's canary alone)\n"
         "  --no-net-admin       do not (prove.forward is then not proven)\n"
         "  --probe PATH         the probe (default " PKGLIBEXECDIR "/kata-guard-probe)\n"
         "  --timeout SECONDS    for the whole canary (default 120)\n"
         "  --config FILE        the guard configuration ([egress] proxy)\n"
         "  --json, --format text|json|prometheus\n"
         "\n"
         "Exit status: 0 every probe passed, 1 one failed, 2 usage.\n",
         out);
}

/* The probe: root's, not writable by anyone else, a regular file. */
static int
probe_usable (const char *path, kg_error_t *err)
{
  struct stat st;

  if (stat (path, &st) < 0)
    return kg_error (err, errno, "the probe %s", path);
  if (! S_ISREG (st.st_mode) || st.st_uid != 0 || (st.st_mode & 022) != 0)
    return kg_error (err, 0, "the probe %s is not a root-owned file only root can write", path);
  return 0;
}

/* The probe beside this binary (a build tree), else the installed one. */
static char *
default_probe (void)
{
  char self[4096];
  ssize_t n = readlink ("/proc/self/exe", self, sizeof self - 1);
  char *p = NULL;

  if (n > 0)
    {
      self[n] = '\0';
      if (strrchr (self, '/') != NULL)
        {
          *strrchr (self, '/') = '\0';
          if (asprintf (&p, "%s/kata-guard-probe", self) >= 0 && access (p, X_OK) == 0)
            return p;
          free (p);
        }
    }
  return strdup (PKGLIBEXECDIR "/kata-guard-probe");
}

static int
add_list (char **list, size_t *n, const char *v, const char *what, kg_error_t *err)
{
  if (*n >= MAX_LIST)
    return kg_error (err, 0, "more than %d %s", MAX_LIST, what);
  list[(*n)++] = (char *) v;
  return 0;
}

/* Parse ARGV (prove's options), run the canary and judge it into REP.
   KG_EXIT_PASS when it ran (REP holds every verdict), else the usage or
   failure status with *ERR.  *FORMAT and *SECONDS are for printing. */
static int
prove_collect (int argc, char **argv, const char *candidate, bool *usage, struct report *rep_out,
               const char **format_out, double *seconds, kg_error_t *err)
{
  enum
  {
    O_ENGINE = 256,
    O_IMAGE,
    O_RUNTIME,
    O_NETWORK,
    O_PROXY,
    O_OUTSIDE,
    O_METADATA,
    O_PRIVATE,
    O_ENGINE_BIN,
    O_ENGINE_ARG,
    O_RUN_ARG,
    O_NET_ADMIN,
    O_NO_NET_ADMIN,
    O_PROBE,
    O_TIMEOUT,
    O_FORMAT,
    O_JSON,
  };
  static const struct option longopts[] = {
    { "engine", required_argument, NULL, O_ENGINE },
    { "image", required_argument, NULL, O_IMAGE },
    { "runtime", required_argument, NULL, O_RUNTIME },
    { "network", required_argument, NULL, O_NETWORK },
    { "proxy", required_argument, NULL, O_PROXY },
    { "outside", required_argument, NULL, O_OUTSIDE },
    { "metadata", required_argument, NULL, O_METADATA },
    { "private", required_argument, NULL, O_PRIVATE },
    { "engine-bin", required_argument, NULL, O_ENGINE_BIN },
    { "engine-arg", required_argument, NULL, O_ENGINE_ARG },
    { "run-arg", required_argument, NULL, O_RUN_ARG },
    { "net-admin", no_argument, NULL, O_NET_ADMIN },
    { "no-net-admin", no_argument, NULL, O_NO_NET_ADMIN },
    { "probe", required_argument, NULL, O_PROBE },
    { "timeout", required_argument, NULL, O_TIMEOUT },
    { "format", required_argument, NULL, O_FORMAT },
    { "json", no_argument, NULL, O_JSON },
    { "config", required_argument, NULL, 'c' },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
  };
  struct prove_opts o = { .kind = ENG_DOCKER,
                          .outside = "1.1.1.1:443",
                          .metadata = "169.254.169.254:80",
                          .timeout_s = 120,
                          .net_admin = true };
  const char *engine = NULL, *format = "text", *config_path = guard_config_default_path ();
  cleanup_free char *probe = NULL, *proxy = NULL, *out = NULL, *init = NULL;
  cleanup_free char *boot_id = NULL, *marker_dir = NULL, *marker = NULL;
  cleanup_guard_config struct guard_config cfg = { 0 };
  cleanup_error kg_error_t cerr = NULL;
  struct report *rep = rep_out;
  char name[sizeof CANARY_PREFIX + 40], word[40], timeout_ms[16], mount[4200], withns[4200];
  char token[40] = "", record[SHA256_HEX_LEN + 1] = "", env_file[4200];
  char comp_name[sizeof CANARY_PREFIX + 40] = "", comp_id[160], comp_net[200], comp_mount[4200];
  char comp_dnet[256] = "";
  struct argv_buf comp_rm = { .n = 0 };
  cleanup_kg_buf struct kg_buf call = { 0 };
  struct argv_buf run = { .n = 0 }, rm_argv[MAX_STEPS];
  char *probe_args[40];
  size_t np = 0, left;
  struct prove_host host = { 0 };
  struct utsname u;
  struct timespec t0, t1;
  struct sigaction sa;
  int c, status, lock_fd = -1;
  char *end;
  long v;

  optind = 1;
  opterr = 0;
  while ((c = getopt_long (argc, argv, "+c:h", longopts, NULL)) != -1)
    switch (c)
      {
      case O_ENGINE:
        engine = optarg;
        break;
      case O_IMAGE:
        o.image = optarg;
        break;
      case O_RUNTIME:
        o.runtime = optarg;
        break;
      case O_NETWORK:
        o.network = optarg;
        break;
      case O_PROXY:
        o.proxy = optarg;
        break;
      case O_OUTSIDE:
        o.outside = optarg;
        break;
      case O_METADATA:
        o.metadata = optarg;
        break;
      case O_PRIVATE:
        if (add_list (o.privates, &o.n_privates, optarg, "--private", err) < 0)
          return KG_EXIT_USAGE;
        break;
      case O_ENGINE_BIN:
        o.engine_bin = optarg;
        break;
      case O_ENGINE_ARG:
        if (add_list (o.engine_args, &o.n_engine_args, optarg, "--engine-arg", err) < 0)
          return KG_EXIT_USAGE;
        break;
      case O_RUN_ARG:
        if (add_list (o.run_args, &o.n_run_args, optarg, "--run-arg", err) < 0)
          return KG_EXIT_USAGE;
        break;
      case O_NET_ADMIN:
        o.net_admin = true;
        break;
      case O_NO_NET_ADMIN:
        o.net_admin = false;
        break;
      case O_PROBE:
        o.probe = optarg;
        break;
      case O_TIMEOUT:
        errno = 0;
        v = strtol (optarg, &end, 10);
        if (errno != 0 || *end != '\0' || v < 5 || v > 3600)
          return kg_error (err, 0, "--timeout: %s is not 5 to 3600 seconds", optarg), KG_EXIT_USAGE;
        o.timeout_s = (int) v;
        break;
      case O_FORMAT:
        format = optarg;
        break;
      case O_JSON:
        format = "json";
        break;
      case 'c':
        config_path = optarg;
        break;
      case 'h':
        prove_usage (stdout);
        *format_out = NULL; /* nothing ran: nothing to print */
        return KG_EXIT_PASS;
      default:
        return cli_bad_option (argv, usage, err), KG_EXIT_USAGE;
      }
  if (cli_operands (argc, argv, err) < 0)
    return KG_EXIT_USAGE;
  if (engine == NULL || o.image == NULL)
    return *usage = true, kg_error (err, 0, "--engine and --image are required"), KG_EXIT_USAGE;
  if (strcmp (engine, "docker") == 0)
    o.kind = ENG_DOCKER;
  else if (strcmp (engine, "podman") == 0)
    o.kind = ENG_PODMAN;
  else if (strcmp (engine, "ctr") == 0)
    o.kind = ENG_CTR;
  else if (strcmp (engine, "crictl") == 0)
    o.kind = ENG_CRICTL;
  else
    return kg_error (err, 0, "--engine %s: docker, podman, ctr or crictl", engine), KG_EXIT_USAGE;
  if (o.kind == ENG_CRICTL && (o.network != NULL || o.n_run_args > 0))
    return kg_error (err, 0,
                     "--engine crictl takes no --%s: the pod is the one a kubelet asks for "
                     "(its network CNI's, 256 MiB)",
                     o.network != NULL ? "network" : "run-arg"),
           KG_EXIT_USAGE;
  if (strcmp (format, "text") != 0 && strcmp (format, "json") != 0
      && strcmp (format, "prometheus") != 0)
    return kg_error (err, 0, "--format %s: text, json or prometheus", format), KG_EXIT_USAGE;
  if (geteuid () != 0)
    return kg_error (err, 0, "prove starts a container through the engine: run it as root"),
           KG_EXIT_USAGE;
  if (o.engine_bin == NULL)
    o.engine_bin = o.kind == ENG_DOCKER   ? "docker"
                   : o.kind == ENG_PODMAN ? "podman"
                   : o.kind == ENG_CTR    ? "ctr"
                                          : "crictl";
  if (o.runtime == NULL)
    o.runtime = o.kind == ENG_CTR ? "io.containerd.kata-guard.v2" : "kata-guard";
  if (o.n_run_args == 0 && o.kind != ENG_CRICTL)
    {
      o.run_args[o.n_run_args++] = (char *) (o.kind == ENG_CTR ? "--memory-limit" : "--memory");
      o.run_args[o.n_run_args++] = (char *) (o.kind == ENG_CTR ? "268435456" : "256m");
    }
  /* The guard configuration: the proxy, and what counts as its denial. */
  if (guard_config_load (config_path, &cfg, &cerr) < 0)
    return kg_error (err, 0, "%s", cerr->msg), KG_EXIT_USAGE;
  if (o.proxy == NULL)
    {
      if (cfg.egress.proxy == NULL || cfg.egress.proxy[0] == '\0')
        return kg_error (err, 0, "%s sets no [egress] proxy: name it with --proxy", config_path),
               KG_EXIT_USAGE;
      o.proxy = proxy = strdup (cfg.egress.proxy);
    }
  if (o.probe == NULL)
    o.probe = probe = default_probe ();
  if (o.probe == NULL || probe_usable (o.probe, err) < 0)
    return KG_EXIT_USAGE;

  /* The host, to judge against. */
  if (uname (&u) < 0 || (boot_id = first_line_of ("/proc/sys/kernel/random/boot_id")) == NULL)
    return kg_error (err, errno, "cannot read this host's kernel release and boot id"),
           KG_EXIT_FAIL;
  init = host_init ();
  host = (struct prove_host){
    .release = u.release,
    .boot_id = boot_id,
    .init = init,
    .outside = o.outside,
    .proxy = o.proxy,
    .deny = cfg.egress.expect_status != 0 ? &cfg.egress.expect_status : cfg.egress.deny_statuses,
    .n_deny = cfg.egress.expect_status != 0 ? 1 : cfg.egress.n_deny_statuses,
  };

  /* The marker: in a directory of this run's own under /run, which no
     container is given. */
  {
    /* rundir.h: made 0700 under a trusted /run, or refused unless root's
       alone; nobody else can then change what is under it. */
    int dir = rundir_open (PROVE_SUB, true, err);

    if (dir < 0)
      return kg_error_prefix (err, "cannot use " MARKER_DIR), KG_EXIT_FAIL;
    close (dir);
  }
  /* One prove at a time: what an earlier run left (its canary, its
     marker) is then no other run's. */
  lock_fd = open (MARKER_DIR "/.lock", O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (lock_fd < 0 || flock (lock_fd, LOCK_EX | LOCK_NB) < 0)
    return kg_error (err, errno, "another kata-guard prove is running (" MARKER_DIR "/.lock)"),
           KG_EXIT_USAGE;
  remove_stale_markers ();
  random_hex (word, 12);
  if (asprintf (&marker_dir, MARKER_DIR "/%s", word) < 0 || mkdir (marker_dir, 0700) < 0
      || asprintf (&marker, "%s/marker", marker_dir) < 0)
    return kg_error (err, errno, "cannot make the marker's directory under " MARKER_DIR),
           KG_EXIT_FAIL;
  set_run_paths (marker_dir);
  {
    int fd = open (marker, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);

    if (fd < 0)
      return kg_error (err, errno, "cannot write the marker %s", marker), KG_EXIT_FAIL;
    close (fd);
  }

  random_hex (word, 12);
  snprintf (name, sizeof name, CANARY_PREFIX "%s", word);
  random_hex (word, 16);
  snprintf (timeout_ms, sizeof timeout_ms, "%d", 3000);
  probe_args[np++] = (char *) "--marker";
  probe_args[np++] = marker;
  probe_args[np++] = (char *) "--metadata";
  probe_args[np++] = (char *) o.metadata;
  for (size_t i = 0; i < o.n_privates; i++)
    {
      probe_args[np++] = (char *) "--private";
      probe_args[np++] = o.privates[i];
    }
  probe_args[np++] = (char *) "--outside";
  probe_args[np++] = (char *) o.outside;
  probe_args[np++] = (char *) "--proxy";
  probe_args[np++] = (char *) o.proxy;
  probe_args[np++] = (char *) "--name";
  probe_args[np++] = word;
  probe_args[np++] = (char *) "--timeout-ms";
  probe_args[np++] = timeout_ms;
  probe_args[np] = NULL;

  /* The window (drift.h, DRIFT_WINDOW): the canary's token, so that the
     guard tells this run's canary from every other start (CAP_NET_ADMIN
     for it alone); under validate --prove also the candidate it is
     judged against. */
  {
    unsigned char b[16], md[SHA256_LEN];
    int fd;

    window_files = true;
    if (getrandom (b, sizeof b, 0) != (ssize_t) sizeof b)
      return remove_run_dir (), kg_error (err, errno, "no random token for the canary"),
             KG_EXIT_FAIL;
    for (size_t i = 0; i < sizeof b; i++)
      sprintf (token + 2 * i, "%02x", b[i]);
    if (setenv (DRIFT_TOKEN_ENV, token, 1) < 0)
      return remove_run_dir (), kg_error (err, errno, "setenv"), KG_EXIT_FAIL;
    if (candidate != NULL
        && writer_replace (DRIFT_CANDIDATE, candidate, strlen (candidate), WRITER_PRIVATE,
                           WRITER_DIR_PRIVATE, err)
               < 0)
      return remove_run_dir (), kg_error_prefix (err, "the candidate record"), KG_EXIT_FAIL;
    if (candidate != NULL)
      {
        sha256_mem (candidate, strlen (candidate), md);
        sha256_hex (md, record);
      }
    o.window = true;
    if (o.kind == ENG_CTR)
      {
        snprintf (env_file, sizeof env_file, "%s/env", marker_dir);
        fd = open (env_file, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd < 0 || dprintf (fd, DRIFT_TOKEN_ENV "=%s\n", token) < 0)
          {
            kg_error (err, errno, "cannot write %s", env_file);
            if (fd >= 0)
              close (fd);
            return remove_run_dir (), KG_EXIT_FAIL;
          }
        close (fd);
        o.env_file = env_file;
      }
  }

  left = remove_leftovers (&o);
  if (left > 0)
    fprintf (stderr, "kata-guard: prove: removed %zu canar%s an earlier run left\n", left,
             left == 1 ? "y" : "ies");
  /* docker without --network: the reference design, made for this run
     (a companion on the proxy's network, no default route). */
  if (o.kind == ENG_DOCKER && o.network == NULL)
    {
      char hex[40];

      random_hex (hex, 12);
      snprintf (comp_name, sizeof comp_name, CANARY_PREFIX "%s", hex);
      comp_rm.n = 0;
      engine_prefix (&o, &comp_rm);
      arg (&comp_rm, "rm");
      arg (&comp_rm, "-f");
      arg (&comp_rm, comp_name);
      if (docker_companion (&o, comp_name, comp_id, sizeof comp_id, comp_dnet, sizeof comp_dnet,
                            comp_net, sizeof comp_net, comp_mount, sizeof comp_mount, err)
          < 0)
        {
          run_quiet (comp_rm.v);
          unsetenv (DRIFT_TOKEN_ENV);
          return remove_run_dir (), kg_error_prefix (err, "prove's companion"), KG_EXIT_FAIL;
        }
      fprintf (stderr,
               "kata-guard: prove: the canary joins prove's companion %s on Docker network %s "
               "(its default route removed: the reference design)\n",
               comp_name, comp_dnet);
    }

  /* An interrupt from here on removes the canary before prove exits
     (a CRI pod's: once its id is known). */
  if (o.kind != ENG_CRICTL)
    {
      size_t n = removal_argvs (&o, name, rm_argv);

      for (size_t s = 0; s < n; s++)
        cleanup_argv[s] = rm_argv[s].v;
      if (comp_name[0] != '\0')
        cleanup_argv[n] = comp_rm.v;
      cleanup_pause = o.kind == ENG_CTR;
    }
  memset (&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigfillset (&sa.sa_mask);
  sigaction (SIGINT, &sa, NULL);
  sigaction (SIGTERM, &sa, NULL);
  sigaction (SIGHUP, &sa, NULL);

  clock_gettime (CLOCK_MONOTONIC, &t0);
  if (o.kind == ENG_CRICTL)
    {
      char hex[40], uid[40], pod[160] = "";
      cleanup_error kg_error_t werr = NULL;

      random_hex (hex, 16);
      snprintf (uid, sizeof uid, "%.8s-%.4s-%.4s-%.4s-%.12s", hex, hex + 8, hex + 12, hex + 16,
                hex + 20);
      /* The window before the pod starts: its ids are given after. */
      if (cri_write_configs (&o, marker_dir, name, uid, token, probe_args, &werr) < 0
          || window_write ("", uid, token, o.net_admin, record, o.timeout_s, &werr) < 0)
        status = -1, out = strdup (werr->msg);
      else
        status = cri_canary (&o, marker_dir, o.timeout_s * 1000, pod, sizeof pod, rm_argv, &out);
      /* A pod whose id was not heard (runp ran out of time) is found by
         its label: one prove runs at a time, so any such pod is ours. */
      if (pod[0] != '\0')
        remove_canary (&o, pod);
      else
        remove_leftovers (&o);
    }
  else
    {
      cleanup_error kg_error_t werr = NULL;

      canary_argv (&o, name, probe_args, &run, mount, sizeof mount, withns, sizeof withns);
      argv_text (&call, run.v);
      if (o.window && o.kind != ENG_CTR)
        sb_printf (&call, ", then %s start -a ID", o.engine_bin);
      if (comp_name[0] != '\0')
        sb_printf (&call, "; the network: prove's companion %s on Docker network %s", comp_name,
                   comp_dnet);
      if (o.window && o.kind != ENG_CTR)
        status = window_canary (&o, run.v, token, record, &out);
      else if (o.window
               && window_write (name, NULL, token, o.net_admin, record, o.timeout_s, &werr) < 0)
        status = -1, out = strdup (werr->msg);
      else
        status = run_capture (run.v, o.timeout_s * 1000, &out);
      remove_canary (&o, name);
      if (comp_name[0] != '\0')
        run_quiet (comp_rm.v);
    }
  for (size_t i = 0; i < ARRAY_SIZE (cleanup_argv); i++)
    cleanup_argv[i] = NULL;
  signal (SIGINT, SIG_DFL);
  signal (SIGTERM, SIG_DFL);
  signal (SIGHUP, SIG_DFL);
  clock_gettime (CLOCK_MONOTONIC, &t1);
  remove_run_dir ();
  if (o.window)
    unsetenv (DRIFT_TOKEN_ENV);

  if (out == NULL && (out = strdup ("")) == NULL)
    return kg_error (err, ENOMEM, "out of memory"), KG_EXIT_FAIL;
  {
    /* What the engine said, when the probe did not run: the guard's
       refusal whole (every reason), else the engine's last 2000 bytes;
       lines joined. */
    const char *refusal = strstr (out, "kata-guard: refusing to start container");
    char *said = refusal ? strdup (refusal) : out[0] ? strdup (out) : NULL;

    if (said != NULL)
      {
        size_t l = strlen (said);

        while (l > 0 && said[l - 1] == '\n')
          said[--l] = '\0';
        if (refusal == NULL && l > 2000)
          memmove (said, said + l - 2000, 2001);
        for (char *p = said; *p; p++)
          if (*p == '\n')
            *p = ' ';
      }
    if (status == -2)
      {
        free (said);
        said = NULL;
        if (asprintf (&said, "the canary did not finish within %d s (removed)", o.timeout_s) < 0)
          said = NULL;
      }
    host.engine_says = said;
    host.call = call.len > 0 ? sb_str (&call) : NULL;
    prove_judge (out, &host, rep);
    free (said);
    host.engine_says = NULL;
  }
  *format_out = format;
  *seconds = (double) (t1.tv_sec - t0.tv_sec) + (double) (t1.tv_nsec - t0.tv_nsec) / 1e9;
  close (lock_fd);
  return KG_EXIT_PASS;
}

int
cli_prove (int argc, char **argv, const struct kg_report_printers *print, bool *usage,
           kg_error_t *err)
{
  cleanup_report struct report rep = { 0 };
  const char *format = "text";
  double seconds = 0;
  int rc = prove_collect (argc, argv, NULL, usage, &rep, &format, &seconds, err);

  if (rc != KG_EXIT_PASS || format == NULL)
    return rc;
  if (strcmp (format, "json") == 0)
    print->json (stdout, &rep, NULL);
  else if (strcmp (format, "prometheus") == 0)
    print->prometheus (stdout, &rep, seconds, (long long) time (NULL));
  else
    print->text (stdout, &rep);
  return report_overall (&rep) == VERDICT_FAIL ? KG_EXIT_FAIL : KG_EXIT_PASS;
}

int
prove_run (int argc, char **argv, const char *candidate, struct report *rep, kg_error_t *err)
{
  const char *format;
  double seconds;
  bool usage = false;

  int rc = prove_collect (argc, argv, candidate, &usage, rep, &format, &seconds, err);

  if (rc == KG_EXIT_PASS && format == NULL)
    return kg_error (err, 0, "nothing was proven (--help)"), KG_EXIT_USAGE;
  return rc;
}
