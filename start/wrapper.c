/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The guarded start and the pass-through (wrapper.h): the two ways every
 * call of either mode ends.  A start loads the guard config, runs the
 * confined checker, logs one decision and then either executes the
 * checked runtime (exec.c) or refuses; a pass-through executes the real
 * runtime without any host check.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "buf.h"
#include "capacity.h"
#include "capture.h"
#include "checker.h"
#include "checks.h"
#include "preflight.h"
#include "cleanup.h"
#include "conf.h"
#include "decision.h"
#include "error.h"
#include "exec.h"
#include "facts.h"
#include "fdio.h"
#include "options.h"
#include "output.h"
#include "record.h"
#include "toml.h"
#include "trust.h"
#include "wrapper.h"

/* ---- the wrapper's two endings: a guarded start, a pass-through ------- */

/* MSG as OCI mode writes it to stderr.  An engine that passes no --log
   (podman's conmon) shows stderr after the runtime's own name, so the
   "kata-guard: " prefix is left to it; and podman takes any message that
   says "No such file or directory" for a runtime that could not be found
   (exit 127), so strerror(ENOENT) reads "does not exist" there.  The --log
   line keeps the message as it is.  NULL when memory runs out. */
static char *
oci_stderr_text (const char *msg, bool no_log)
{
  static const char enoent[] = "No such file or directory";
  static const char instead[] = "does not exist";
  cleanup_kg_buf struct kg_buf sb = { 0 };
  const char *p = msg, *hit;

  if (no_log && strncmp (p, "kata-guard: ", 12) == 0)
    p += 12;
  while ((hit = strstr (p, enoent)) != NULL)
    {
      sb_printf (&sb, "%.*s%s", (int) (hit - p), p, instead);
      p = hit + sizeof enoent - 1;
    }
  sb_printf (&sb, "%s", p);
  return sb.s != NULL ? strdup (sb.s) : NULL;
}

int
wrapper_refeed_stdin (const char *buf, size_t len, kg_error_t *err)
{
  cleanup_close int fd = memfd_create ("kata-guard-stdin", MFD_CLOEXEC | MFD_ALLOW_SEALING);

  if (fd < 0)
    return kg_error (err, errno, "memfd_create");
  if (kg_write_all (fd, buf, len) < 0)
    return kg_error (err, errno, "write stdin's bytes to a memfd");
  if (fcntl (fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) < 0)
    return kg_error (err, errno, "seal the stdin memfd");
  if (lseek (fd, 0, SEEK_SET) != 0)
    return kg_error (err, errno, "rewind the stdin memfd");
  /* dup2 clears close-on-exec on the copy. */
  if (dup2 (fd, STDIN_FILENO) < 0)
    return kg_error (err, errno, "put the bytes back on stdin");
  return 0;
}

void
wrapper_say (const struct channel *ch, const char *msg)
{
  cleanup_free char *line = NULL;
  struct timespec now;

  /* One write each.  containerd embeds a shim's output in its error as it
     is ("start failed: <output>: exit status 1"), so in shim mode the
     message carries no newline of its own. */
  if (ch->mode == KG_MODE_SHIM)
    dprintf (STDERR_FILENO, "%s", msg);
  else
    {
      cleanup_free char *shown = oci_stderr_text (msg, ch->log == NULL || ch->log[0] == '\0');

      dprintf (STDERR_FILENO, "%s\n", shown ? shown : msg);
    }
  if (ch->mode != KG_MODE_OCI || ch->log == NULL || ch->log[0] == '\0')
    return;
  clock_gettime (CLOCK_REALTIME, &now);
  line = output_runc_log (msg, ch->log_json, &now);
  /* runc's engine shows the last error line of this file; stderr already
     has the message when this fails. */
  if (line != NULL)
    log_append_line (ch->log, line, NULL);
}

static const char *
runtime_key (enum kg_mode mode)
{
  return mode == KG_MODE_OCI ? "[runtime] oci" : "[runtime] shim";
}

/* ---- a pod sandbox's start -------------------------------------------- */

#define ANSWER_MAX 65536

/* The shim API version a shim's `start` answer stands for, as containerd
   reads it: a protobuf BootstrapResult (2.3 and later), else JSON
   {"version": N, ...} of at least 2, else a plain address (2).  The
   highest of the readings it admits, so that no reading containerd might
   choose is missed. */
static int64_t
answer_version (const char *buf, size_t len)
{
  int64_t v = 2, pv;
  size_t a = 0, b = len;

  if (options_result_version (buf, len, &pv) == 0 && pv > v)
    v = pv;
  while (a < b && (buf[a] == ' ' || buf[a] == '\n' || buf[a] == '\t' || buf[a] == '\r'))
    a++;
  while (b > a
         && (buf[b - 1] == ' ' || buf[b - 1] == '\n' || buf[b - 1] == '\t' || buf[b - 1] == '\r'))
    b--;
  if (b > a && buf[a] == '{')
    {
      struct json_tokener *tok = json_tokener_new ();
      struct json_object *doc = tok ? json_tokener_parse_ex (tok, buf + a, (int) (b - a)) : NULL;
      struct json_object *ver;

      if (doc != NULL && json_object_object_get_ex (doc, "version", &ver)
          && json_object_is_type (ver, json_type_int) && json_object_get_int64 (ver) > v)
        v = json_object_get_int64 (ver);
      json_object_put (doc);
      if (tok != NULL)
        json_tokener_free (tok);
    }
  return v;
}

/* The real shim, from FD, in kg_capture's child; when it cannot be
   executed the engine's channel says why. */
struct shim_exec
{
  int fd;
  char **argv;
  const struct channel *ch;
};

static void
exec_shim (void *arg)
{
  const struct shim_exec *x = arg;
  cleanup_error kg_error_t e = NULL;
  cleanup_free char *msg = NULL;

  exec_runtime (x->fd, x->argv, &e);
  msg = output_message ("cannot start container: exec: %s", e->msg);
  wrapper_say (x->ch, msg ? msg : "kata-guard: cannot start the container: exec failed");
}

/* Run ARGV (the real shim, from FD) as a child with its stdout to *OUT
   (NUL-terminated, at most ANSWER_MAX bytes, more is cut and the child
   killed); returns its wait status or -1 with errno. */
static int
run_capture (int fd, char **argv, const struct channel *ch, char **out, size_t *out_len)
{
  struct shim_exec x = { fd, argv, ch };

  return kg_capture (exec_shim, &x, false, ANSWER_MAX, -1, out, out_len);
}

/* Every process whose parent is the guard (the shim daemons a start left
   behind, reparented here: the guard is their subreaper), killed and
   reaped, for up to a second. */
static void
kill_children (void)
{
  char want[32];

  snprintf (want, sizeof want, "PPid:\t%ld\n", (long) getpid ());
  for (int round = 0; round < 100; round++)
    {
      DIR *d = opendir ("/proc");
      struct dirent *e;
      bool any = false;

      if (d == NULL)
        return;
      while ((e = readdir (d)) != NULL)
        {
          char path[sizeof "/proc//status" + 256];
          cleanup_free char *st = NULL;
          cleanup_error kg_error_t err = NULL;
          size_t len;

          if (e->d_name[0] < '1' || e->d_name[0] > '9')
            continue;
          snprintf (path, sizeof path, "/proc/%s/status", e->d_name);
          if (kg_read_file_bounded (path, 0, 16384, &st, &len, &err) == 0 && strstr (st, want))
            {
              kill ((pid_t) atol (e->d_name), SIGKILL);
              any = true;
            }
        }
      closedir (d);
      while (waitpid (-1, NULL, WNOHANG) > 0)
        ;
      if (! any)
        return;
      usleep (10000);
    }
}

/* The unix socket a start answer names, removed (its shim is gone). */
static void
remove_socket (const char *answer)
{
  const char *p = strstr (answer, "unix://");
  char path[PATH_MAX];
  struct stat st;
  size_t n = 0;

  if (p == NULL)
    return;
  p += 7;
  while (p[n] != '\0' && p[n] != '"' && p[n] != '\n' && p[n] != ' ' && n < sizeof path - 1)
    n++;
  memcpy (path, p, n);
  path[n] = '\0';
  if (path[0] == '/' && lstat (path, &st) == 0 && S_ISSOCK (st.st_mode))
    unlink (path);
}

/* The one refusal of a start: decision D refuses, logged, and its
   message (every failed check of PRE) said to the engine.  Returns the
   start's exit status, 1. */
static int
refuse (const struct request *req, struct report *pre, const struct channel *ch, struct decision *d,
        const struct decision_sink *sink)
{
  cleanup_free char *msg = output_refusal (pre, req->container_id, d->audit_mode);

  d->allow = d->audited = false;
  d->message = msg ? msg : "kata-guard: refusing to start container: out of memory";
  decision_log (d, sink);
  wrapper_say (ch, d->message);
  d->message = NULL;
  return 1;
}

/* A pod sandbox is started with its shim's answer read first.  containerd
   2 starts the other containers of a pod without running any shim's
   `start` (so without kata-guard) when the sandbox's shim answered with
   shim API version 3 or later; such an answer is refused, and the shim it
   started is deleted again.  Kata's shim answers with a plain address
   (version 2): every container of its pods is started through `start`,
   and checked.  Anything else is handed on as it came. */
static int
sandbox_start (int fd, char **argv, const struct request *req, struct report *pre,
               const struct channel *ch, struct decision *d, const struct decision_sink *sink)
{
  cleanup_free char *answer = NULL;
  size_t len = 0;
  int status;
  int64_t version;

  /* The daemon a start leaves behind is reparented to the guard, so that
     a refusal can end it; on an allowed start it goes on to the engine
     (containerd is a subreaper too) when the guard exits. */
  prctl (PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
  status = run_capture (fd, argv, ch, &answer, &len);

  if (status < 0)
    {
      report_fail (pre, "exec", "see the error", "cannot start the real shim: %s",
                   strerror (errno));
      return refuse (req, pre, ch, d, sink);
    }
  version = answer_version (answer, len);
  if (! WIFEXITED (status) || WEXITSTATUS (status) != 0 || version < 3)
    {
      decision_log (d, sink);
      if (kg_write_all (STDOUT_FILENO, answer, len) < 0)
        return 1;
      return WIFEXITED (status) ? WEXITSTATUS (status) : 128 + WTERMSIG (status);
    }
  report_fail (pre, "sandbox",
               "run pods on a shim that answers start with shim API version 2 (Kata's shim "
               "does); see kata-guard(8), SANDBOXES",
               "%s answered start with shim API version %lld for a pod sandbox: containerd 2 "
               "would start the pod's other containers in it without a start of their own, "
               "unchecked",
               argv[0], (long long) version);
  /* Undo the start: the shim it left running (reparented to the guard,
     its subreaper) killed, its socket removed, then the same arguments
     with delete for start. */
  kill_children ();
  remove_socket (answer);
  capacity_forget (req->mode, ch->scope, req->container_id, NULL);
  for (int i = 1; argv[i] != NULL; i++)
    if (argv[i + 1] == NULL && strcmp (argv[i], "start") == 0)
      {
        cleanup_free char *gone = NULL;
        size_t gone_len;

        argv[i] = (char *) "delete";
        run_capture (fd, argv, ch, &gone, &gone_len);
        argv[i] = (char *) "start";
      }
  kill_children ();
  return refuse (req, pre, ch, d, sink);
}

/* The one decision of a start, into D, in three steps: the guard config
   (into CFG, its log into SINK), the confined checker, then the parent's
   own step, policy.capacity (CAPACITY_ID, capacity.h: in this process,
   its lock held from the count to the record), then allow,
   audited (audit mode lets through what only VM-contained rules refuse,
   said so in the decision with the refusal it would have been, in
   *AUDIT_MSG) or refuse.  A start that goes ahead has the checked
   runtime descriptor in *FD, the namespaces the checks pinned in *PINS
   and its VM recorded. */
static void
decide (const struct request *req, struct report *pre, const struct channel *ch,
        const char *options_type, struct guard_config *cfg, struct decision_sink *sink,
        struct decision *d, int *fd, struct ns_pins *pins, char **audit_msg)
{
  const char *config_path = guard_config_default_path ();
  cleanup_error kg_error_t err = NULL;
  struct capacity cap = CAPACITY_INIT;
  struct preflight pf;
  bool cfg_ok;

  preflight_init (&pf, req, cfg, pre);
  cfg_ok = guard_config_load (config_path, cfg, &err) == 0;
  if (cfg_ok)
    {
      sink->syslog = cfg->log.syslog;
      sink->file = cfg->log.file;
    }
  report_add_file (pre, config_path);
  if (! cfg_ok)
    report_fail (pre, "config", GUARD_CONFIG_REMEDY, "%s", err->msg);
  else if (report_count (pre, VERDICT_FAIL) == 0
           && checker_run (&pf, config_path, cfg->runtime.deadline_ms, &err) < 0)
    report_fail (pre, "checker", CHECKER_REMEDY, "%s", err->msg);

  if (cfg_ok
      && (report_count (pre, VERDICT_FAIL) == 0 || decision_audit_allows (cfg->policy.mode, pre)))
    {
      struct capacity_start cs = { req->mode, ch->scope, req->container_id, req->bundle,
                                   req->pid_file };

      capacity_judge (cfg, &cs, &pre->vm, cfg->runtime.deadline_ms, pre, &cap);
    }
  else if (cfg_ok)
    report_skip (pre, CAPACITY_ID, "not counted: the start is refused already");

  memset (d, 0, sizeof *d);
  d->mode = req->mode;
  d->ns = req->ns;
  d->container_id = req->container_id;
  d->rep = pre;
  d->guard_config = config_path;
  d->kata_config = report_kata_config (pre);
  d->options_type = options_type;
  d->allow = report_overall (pre) != VERDICT_FAIL;
  d->audit_mode = cfg_ok && cfg->policy.mode != NULL && strcmp (cfg->policy.mode, "audit") == 0;
  if (! d->allow && cfg_ok && decision_audit_allows (cfg->policy.mode, pre))
    {
      d->allow = d->audited = true;
      *audit_msg = output_refusal (pre, req->container_id, true);
      d->message = *audit_msg ? *audit_msg : "kata-guard: audit: would refuse: out of memory";
    }
  if (d->allow && (*fd = steal_fd (&pf.from_kata.runtime_fd)) < 0)
    {
      /* Never execute a path that was not the checked descriptor. */
      report_fail (pre, "exec", "report this as a bug in kata-guard",
                   "the checks passed but no checked runtime descriptor was handed over");
      d->allow = false;
    }
  if (d->allow)
    {
      *pins = pf.pins;
      pf.pins.n = 0;
    }
  preflight_release (&pf);
  /* The start goes ahead only once its VM is recorded. */
  if (d->allow && capacity_commit (&cap, &err) < 0)
    {
      report_fail (pre, "capacity.record", "see the error; kata-guard(8), CAPACITY",
                   "cannot record this start's VM: %s", err->msg);
      d->allow = false;
    }
  capacity_release (&cap);
  if (! d->allow)
    d->audited = false;
  clock_gettime (CLOCK_REALTIME, &d->when);
}

/* How many of REP's failures are the host's (output_host_check), each
   added to INTO unless it is NULL. */
static size_t
host_failures (const struct report *rep, struct report *into)
{
  size_t n = 0;

  for (size_t i = 0; i < rep->n; i++)
    if (rep->results[i].verdict == VERDICT_FAIL && output_host_check (rep->results[i].id))
      {
        n++;
        if (into != NULL)
          report_fail (into, rep->results[i].id, rep->results[i].remedy, "%s",
                       rep->results[i].reason);
      }
  return n;
}

/* [nfd] file: a start that a host check refused closes the node's gate
   at once (posture=fail and the failing host checks, the posture
   record's times), not at the feature file's next refresh.  Only the
   host's failures count, and only as the host is judged without this
   start: its spec, bundle and runtime options are whoever starts it's
   to choose (a Kata configuration named by ctr run
   --runtime-config-path, a mount, a network namespace), so the host's
   checks (output_host_check) run again in this mode with none of them,
   as `check` runs them, and only what fails then is written; else
   whoever starts a container could take every node out of the pool.
   Best effort: the refusal stands whatever the write does, and the next
   `check --nfd` writes the file again. */
static void
close_gate (const struct request *req, const struct guard_config *cfg, const struct report *pre,
            const struct timespec *when)
{
  cleanup_report struct report again = { 0 }, host = { 0 };
  cleanup_error kg_error_t err = NULL;
  struct request bare = { .mode = req->mode };
  struct facts facts = { 0 };
  struct preflight pf;
  int rc;

  if (cfg->nfd.file == NULL || *cfg->nfd.file == '\0' || host_failures (pre, NULL) == 0)
    return;
  preflight_init (&pf, &bare, cfg, &again);
  rc = checker_run (&pf, guard_config_default_path (), cfg->runtime.deadline_ms, &err);
  preflight_release (&pf);
  if (rc < 0)
    return;
  /* Written only when a failure made it into HOST (report_fail can run
     out of memory): a file without one would say posture=pass. */
  host_failures (&again, &host);
  if (report_count (&host, VERDICT_FAIL) == 0)
    return;
  facts_read_posture (&facts, cfg->drift.record);
  output_nfd_write (cfg->nfd.file, &host, &facts, (long long) when->tv_sec, &err);
}

int
wrapper_start (const struct request *req, struct report *pre, const struct channel *ch,
               const char *options_type, char **argv)
{
  cleanup_guard_config struct guard_config cfg = { 0 };
  struct decision_sink sink = { true, NULL };
  struct decision d;
  cleanup_error kg_error_t err = NULL;
  cleanup_free char *audit_msg = NULL;
  cleanup_free char *msg = NULL;
  cleanup_close int fd = -1;
  struct ns_pins pins = { .n = 0 };
  int r;

  decide (req, pre, ch, options_type, &cfg, &sink, &d, &fd, &pins, &audit_msg);
  if (! d.allow)
    {
      close_gate (req, &cfg, pre, &d.when);
      return refuse (req, pre, ch, &d, &sink);
    }
  /* A namespace named by a process (/proc/PID/ns/NAME), which the runtime
     opens by the same path: the process that was checked, in the namespace
     that was checked, still, or the pid names another one now. */
  if (ns_pins_verify (&pins, &err) < 0)
    {
      ns_pins_release (&pins);
      report_fail (pre, "policy.namespaces",
                   "start the container again (its namespace's process must outlive the start)",
                   "the namespace changed after it was checked: %s", err->msg);
      capacity_forget (req->mode, ch->scope, req->container_id, NULL);
      return refuse (req, pre, ch, &d, &sink);
    }

  argv[0] = req->mode == KG_MODE_OCI ? cfg.runtime.oci : cfg.runtime.shim;
  if (req->mode == KG_MODE_SHIM && pre->pod_sandbox)
    {
      r = sandbox_start (fd, argv, req, pre, ch, &d, &sink);
      ns_pins_release (&pins);
      return r;
    }
  decision_log (&d, &sink);
  /* OCI mode: every later call about the container goes through the
     guard, and its delete removes the record.  (A shim's later calls go
     to the shim it started, over containerd's socket.)  Best effort:
     without the record, teardown falls back to the guard config. */
  if (req->mode == KG_MODE_OCI)
    record_write (req->mode, ch->scope, req->container_id, argv[0], NULL);
  /* Once more right before the exec: what the decision log and the record
     took no longer goes by unchecked. */
  if (ns_pins_verify (&pins, &err) == 0)
    exec_runtime (fd, argv, &err);
  ns_pins_release (&pins);
  capacity_forget (req->mode, ch->scope, req->container_id, NULL);
  msg = output_message ("cannot start container %s: exec: %s",
                        req->container_id ? req->container_id : "(no id)", err->msg);
  wrapper_say (ch, msg ? msg : "kata-guard: cannot start the container: exec failed");
  return 1;
}

char *
wrapper_fallback_runtime (const char *config_path, enum kg_mode mode)
{
  cleanup_error kg_error_t err = NULL;
  cleanup_toml struct toml_value *doc = toml_parse_file (config_path, &err);
  const struct toml_value *v = doc ? toml_get_path (doc, "runtime",
                                                    mode == KG_MODE_OCI ? "oci" : "shim", NULL)
                                   : NULL;

  if (v != NULL && v->kind == TOML_STRING && v->u.string[0] == '/')
    return strdup (v->u.string);
  return strdup (mode == KG_MODE_OCI ? "" : KG_DEFAULT_RUNTIME_SHIM);
}

/* The runtime as a child, for a delete: its status is ours, and the
   record goes when it succeeded. */
static int
delete_then_forget (int fd, char **argv, const struct channel *ch, const char *container_id,
                    kg_error_t *err)
{
  pid_t pid;
  int status = 0;

  fflush (NULL);
  pid = fork ();
  if (pid < 0)
    return kg_error (err, errno, "fork");
  if (pid == 0)
    {
      cleanup_error kg_error_t e = NULL;
      cleanup_free char *msg = NULL;

      exec_runtime (fd, argv, &e);
      msg = output_message ("cannot pass 'delete' of container %s through to %s: %s", container_id,
                            argv[0], e->msg);
      wrapper_say (ch, msg ? msg : "kata-guard: cannot pass 'delete' through");
      _exit (1);
    }
  while (waitpid (pid, &status, 0) < 0)
    if (errno != EINTR)
      return kg_error (err, errno, "waitpid");
  if (WIFEXITED (status) && WEXITSTATUS (status) == 0)
    {
      record_remove (ch->mode, ch->scope, container_id, NULL);
      capacity_forget (ch->mode, ch->scope, container_id, NULL);
    }
  if (WIFSIGNALED (status))
    return 128 + WTERMSIG (status);
  return WEXITSTATUS (status);
}

int
wrapper_passthrough (const struct channel *ch, const char *what, const char *container_id,
                     char *recorded_runtime, char **argv)
{
  const char *config_path = guard_config_default_path ();
  cleanup_error kg_error_t err = NULL;
  cleanup_error kg_error_t load_err = NULL;
  cleanup_free char *path = recorded_runtime;
  cleanup_free char *msg = NULL;
  cleanup_free char *why_owned = NULL;
  cleanup_close int fd = -1;
  struct guard_config cfg;
  struct trust_info info;
  const char *why = NULL;
  bool recorded = path != NULL;

  /* Teardown is never blocked by a broken guard config: the runtime that
     started the container, else [runtime] when the file is at least TOML. */
  if (! recorded)
    {
      if (guard_config_load (config_path, &cfg, &load_err) == 0)
        {
          path = strdup (ch->mode == KG_MODE_OCI ? cfg.runtime.oci : cfg.runtime.shim);
          guard_config_release (&cfg);
        }
      else
        path = wrapper_fallback_runtime (config_path, ch->mode);
    }
  if (path == NULL)
    why = "out of memory";
  else if (path[0] == '\0')
    {
      /* OCI mode has no built-in runtime: guessing one for a container
         another runtime created could only do harm. */
      if (load_err != NULL
          && asprintf (&why_owned, "not set, and the guard config does not load (%s)",
                       load_err->msg)
                 >= 0)
        why = why_owned;
      else
        why = "not set: there is no runtime to pass to";
    }
  else if ((fd = trust_open (path, TRUST_EXEC, &info, &err)) < 0
           || trust_check_not_self (&info.st, &err) < 0)
    why = err->msg;
  if (why == NULL)
    {
      argv[0] = path;
      if (recorded && strcmp (what, "delete") == 0)
        {
          int status = delete_then_forget (fd, argv, ch, container_id, &err);

          if (status >= 0)
            return status;
        }
      else
        exec_runtime (fd, argv, &err);
      why = err->msg;
    }
  msg = output_message ("cannot pass '%s'%s%s through to %s%s%s: %s", what,
                        container_id ? " of container " : "", container_id ? container_id : "",
                        recorded ? "the runtime that started it," : runtime_key (ch->mode),
                        path && *path ? " " : "", path ? path : "", why);
  wrapper_say (ch, msg ? msg : "kata-guard: cannot pass the call through to the real runtime");
  return 1;
}
