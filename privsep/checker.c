/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The confined checker (checker.h).  The parent's part is small on
 * purpose: it gathers what needs privilege, forks, reads one bounded
 * message, checks every byte of it against a fixed format (codec.h) and
 * reaps the child.  The checks' parsers run in the child, after
 * confine_enter; the parent still parses some input of its own (the guard
 * config before the fork, the bundle's config.json when the child first
 * asks about a process or a namespace), and it re-checks everything the
 * child hands it against what it knows itself: the descriptor against
 * its own open of [runtime], each request against the spec, the probe
 * from its own [egress], the digest cache by hashing (assets.c).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <seccomp.h>

#include "array.h"
#include "assets.h"
#include "checker.h"
#include "checks.h"
#include "preflight.h"
#include "cleanup.h"
#include "clock.h"
#include "codec.h"
#include "conf.h"
#include "confine.h"
#include "docker.h"
#include "egress.h"
#include "error.h"
#include "fdio.h"
#include "jtree.h"
#include "netns.h"
#include "nspin.h"
#include "policy.h"
#include "request.h"
#include "storage.h"
#include "trust.h"

#include <json-c/json.h>

/* ---- the parent: what this start's spec names ----------------------------------- */

static void
names_release (struct checker_names *n)
{
  for (size_t i = 0; i < n->n_ns; i++)
    free (n->ns_path[i]);
  for (size_t i = 0; i < n->n_hooks; i++)
    free (n->hook_path[i]);
  memset (n, 0, sizeof *n);
}

void
checker_parent_release (struct checker_parent *parent)
{
  names_release (&parent->names);
  parent->names_read = false;
  ns_pins_release (&parent->pins);
}

/* O's member KEY when it is of TYPE, else NULL. */
static struct jv *
member (struct jv *o, const char *key, enum json_type type)
{
  struct jv *v;

  if (o == NULL || ! jv_is_type (o, json_type_object) || ! jv_get_ex (o, key, &v)
      || ! jv_is_type (v, type))
    return NULL;
  return v;
}

/* Each linux.namespaces entry that has a path. */
static void
names_add_namespaces (struct checker_names *n, struct jv *spec)
{
  struct jv *list = member (member (spec, "linux", json_type_object), "namespaces",
                            json_type_array);

  for (size_t i = 0; list != NULL && i < jv_length (list); i++)
    {
      struct jv *e = jv_at (list, i);
      struct jv *type = member (e, "type", json_type_string);
      struct jv *path = member (e, "path", json_type_string);

      if (path == NULL || n->n_ns == CHECKER_MAX_NAMES)
        continue;
      n->ns_path[n->n_ns] = strdup (jv_string (path));
      if (n->ns_path[n->n_ns] == NULL)
        continue;
      n->ns_network[n->n_ns] = type != NULL && strcmp (jv_string (type), "network") == 0;
      n->n_ns++;
    }
}

/* Each hook's path, of every kind. */
static void
names_add_hooks (struct checker_names *n, struct jv *spec)
{
  struct jv *hooks = member (spec, "hooks", json_type_object);

  if (hooks == NULL)
    return;
  jv_foreach (hooks, kind, list)
  {
    (void) kind;
    for (size_t i = 0; jv_is_type (list, json_type_array) && i < jv_length (list); i++)
      {
        struct jv *path = member (jv_at (list, i), "path", json_type_string);

        if (path == NULL || n->n_hooks == CHECKER_MAX_NAMES)
          continue;
        n->hook_path[n->n_hooks] = strdup (jv_string (path));
        if (n->hook_path[n->n_hooks] != NULL)
          n->n_hooks++;
      }
  }
}

/* What PARENT's bundle names, read at the first request.  A spec that
   does not load names nothing: every request is refused, and the child's
   policy.spec fails on the same file.

   This is a second parse of config.json (the child's policy.spec is the
   first), and it stays one: it is the boundary of what the parent
   answers.  The child's reading cannot be carried across, since a child
   that its input took over would name whatever it wants to be asked
   about; and the parent's reading cannot be handed to the child instead
   of its own without moving the parse of the spec, hostile input, out
   of the confined child into the privileged parent for every start,
   where now only a start whose checks ask something (a hook or a
   namespace by /proc/PID, egress.netns, storage.pool) has the parent
   read it, lazily, here.  Permits and budgets come from this one parse
   of the parent's. */
static const struct checker_names *
spec_names (struct checker_parent *parent)
{
  if (! parent->names_read)
    {
      cleanup_error kg_error_t err = NULL;
      struct jv *spec;

      parent->names_read = true;
      spec = parent->bundle != NULL ? policy_spec_load (parent->bundle, &err) : NULL;
      names_add_namespaces (&parent->names, spec);
      names_add_hooks (&parent->names, spec);
      /* Each kind's budget: the asking rule's own count on this parse
         (request-list.h's ASKS).  Without a spec a rule of the spec
         counts none, and a kind asked once a run whatever the spec
         (storage.pool, of `check` too) still once. */
#define REQUEST_BUDGET(KIND, NAME, MAGIC, MEMBER, RET, PARAMS, ASKS, REPLY)                        \
  parent->budget[CHECKER_REQ_##KIND] = ASKS (spec);
      KG_REQUESTS (REQUEST_BUDGET)
#undef REQUEST_BUDGET
      jv_free (spec);
    }
  return &parent->names;
}

/* Whether one of PATHS (N of them; only those with ONLY set when ONLY is
   not NULL) is WANT, byte for byte: the child asks by the number it read
   from the same text. */
static bool
named (char *const *paths, const bool *only, size_t n, const char *want)
{
  for (size_t i = 0; i < n; i++)
    if ((only == NULL || only[i]) && strcmp (paths[i], want) == 0)
      return true;
  return false;
}

/* What the parent answers each request for: only what this start's spec
   names.  An EXE pid by a hook's /proc/PID/exe, an NS pid by a namespace
   path /proc/PID/ns/NAME of the same NAME, a NETNS pid by a network
   namespace's /proc/PID/ns/net, a NETNS path by a network namespace's
   path; the POOL by nothing of the spec (the parent reads the pool's name
   itself). */
static bool
permit_exe (const struct checker_names *n, const struct checker_request *rq)
{
  char want[64];

  snprintf (want, sizeof want, "/proc/%u/exe", (unsigned) rq->pid);
  return named (n->hook_path, NULL, n->n_hooks, want);
}

static bool
permit_ns (const struct checker_names *n, const struct checker_request *rq)
{
  char want[64];

  snprintf (want, sizeof want, "/proc/%u/ns/%s", (unsigned) rq->pid, rq->ns_name);
  return named (n->ns_path, NULL, n->n_ns, want);
}

static bool
permit_netns (const struct checker_names *n, const struct checker_request *rq)
{
  char want[64];

  if (rq->netns.pid == 0)
    return named (n->ns_path, n->ns_network, n->n_ns, rq->netns.path);
  snprintf (want, sizeof want, "/proc/%u/ns/net", (unsigned) rq->netns.pid);
  return named (n->ns_path, n->ns_network, n->n_ns, want);
}

static bool
permit_pool (const struct checker_names *n, const struct checker_request *rq)
{
  (void) n;
  (void) rq;
  return true;
}

/* The probe as the parent's own [egress] makes it: its proxy, its
   timeout, its probe_host or a fresh name (egress_probe_host).  What the
   child put in its request is not used. */
static int
parent_probe (const struct guard_config *cfg, struct netns_probe *probe)
{
  cleanup_error kg_error_t err = NULL;
  unsigned len = 0;

  memset (probe, 0, sizeof *probe);
  if (cfg == NULL || ! cfg->egress.enabled || cfg->egress.proxy == NULL
      || conf_parse_endpoint (cfg->egress.proxy, &probe->proxy, &len, &err) < 0
      || (probe->proxy.ss_family != AF_INET && probe->proxy.ss_family != AF_INET6)
      || cfg->egress.timeout_ms < 1 || cfg->egress.timeout_ms > 60000)
    return -1;
  probe->proxy_len = len;
  probe->timeout_ms = (uint32_t) cfg->egress.timeout_ms;
  return egress_probe_host (cfg, probe->host, sizeof probe->host);
}

/* ---- the requests, as the parent reads them ---------------------------- */

/* Each kind's argument (the u32 after the magic) and, for NETNS, the body
   after the head: the kind's fields into RQ, and whether they are a
   request the parent answers (CHECKER_PARSE_OK) or one it refuses. */

static enum checker_parse
parse_exe (uint32_t arg, const unsigned char *buf, size_t len, struct checker_request *rq)
{
  (void) buf, (void) len;
  rq->pid = arg;
  return arg != 0 && arg <= INT32_MAX ? CHECKER_PARSE_OK : CHECKER_PARSE_REFUSED;
}

static enum checker_parse
parse_ns (uint32_t arg, const unsigned char *buf, size_t len, struct checker_request *rq)
{
  (void) buf, (void) len;
  /* The pid in the low 24 bits, the namespace's index above them. */
  rq->pid = arg & 0xffffff;
  rq->ns_name = engine_ns_proc_name ((int) (arg >> 24));
  return rq->pid != 0 && rq->ns_name != NULL ? CHECKER_PARSE_OK : CHECKER_PARSE_REFUSED;
}

static const char probe_host_chars[]
    = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-.";

/* Whatever the child sent: a path that is a terminated absolute one, or
   none beside a pid; a host that is a terminated DNS name; a bounded
   wait; a proxy that is an IPv4 or IPv6 socket address. */
static bool
netns_request_valid (const struct netns_request *rq)
{
  const struct netns_probe *p = &rq->probe;
  size_t hl = strnlen (p->host, sizeof p->host);

  if (strnlen (rq->path, sizeof rq->path) == sizeof rq->path)
    return false;
  if (rq->pid == 0 ? rq->path[0] != '/' : (rq->path[0] != '\0' || rq->pid > INT32_MAX))
    return false;
  if (hl == 0 || hl == sizeof p->host || strspn (p->host, probe_host_chars) != hl)
    return false;
  if (p->timeout_ms < 1 || p->timeout_ms > 60000)
    return false;
  return (p->proxy.ss_family == AF_INET && p->proxy_len == sizeof (struct sockaddr_in))
         || (p->proxy.ss_family == AF_INET6 && p->proxy_len == sizeof (struct sockaddr_in6));
}

/* The argument is the body's size, which is the struct's: anything else
   is framed wrong, and nothing after it can be read. */
static enum checker_parse
parse_netns (uint32_t arg, const unsigned char *buf, size_t len, struct checker_request *rq)
{
  if (arg != sizeof rq->netns)
    return CHECKER_PARSE_MALFORMED;
  if (len < CHECKER_NETNS_REQUEST_LEN)
    return CHECKER_PARSE_PARTIAL;
  rq->len = CHECKER_NETNS_REQUEST_LEN;
  memcpy (&rq->netns, buf + CHECKER_REQUEST_HEAD, sizeof rq->netns);
  rq->pid = rq->netns.pid;
  return netns_request_valid (&rq->netns) ? CHECKER_PARSE_OK : CHECKER_PARSE_REFUSED;
}

static enum checker_parse
parse_pool (uint32_t arg, const unsigned char *buf, size_t len, struct checker_request *rq)
{
  (void) buf, (void) len, (void) rq;
  return arg == 0 ? CHECKER_PARSE_OK : CHECKER_PARSE_REFUSED;
}

/* ---- the answers ------------------------------------------------------ */

/* The answers, called only for requests that passed every check before
   them (answer ()), with the start's time left, LEFT_MS: an errno (0:
   answered) and the reply's body in *BODY, *N bytes (its row says
   whether the body is counted or of a fixed size).  The parent builds
   every path itself, from numbers or from a path it checked. */

/* readlink /proc/PID/exe: the target. */
static int32_t
answer_exe (const struct checker_request *rq, struct checker_parent *parent, int64_t left_ms,
            const void **body, size_t *n)
{
  static char target[CHECKER_PATH_MAX];
  char path[64];
  ssize_t r;

  (void) parent, (void) left_ms;
  *body = target;
  *n = 0;
  snprintf (path, sizeof path, "/proc/%u/exe", (unsigned) rq->pid);
  r = readlink (path, target, sizeof target);
  if (r < 0)
    return errno;
  if ((size_t) r >= sizeof target)
    return ENAMETOOLONG;
  *n = (size_t) r;
  return 0;
}

/* stat /proc/PID/ns/NAME: a struct checker_ns_reply, the namespace
   pinned in PARENT with the process that was in it (nspin.h): the
   wrapper checks the pin again right before the runtime runs. */
static int32_t
answer_ns (const struct checker_request *rq, struct checker_parent *parent, int64_t left_ms,
           const void **body, size_t *n)
{
  static struct checker_ns_reply r;
  struct ns_pin pin;
  struct stat st;

  (void) left_ms;
  r = (struct checker_ns_reply){ 0, 0 };
  *body = &r;
  *n = sizeof r;
  if (ns_pin_take (rq->pid, rq->ns_name, &pin, &st) < 0)
    return errno;
  if (ns_pins_add (&parent->pins, &pin) < 0)
    return errno;
  r = (struct checker_ns_reply){ st.st_dev, st.st_ino };
  return 0;
}

/* A network namespace's facts (netns.h), of a process's namespace (pid)
   or a path's, probed with the parent's own probe: a struct netns_facts.
   The gathering, probe included, ends within LEFT_MS, the start's time
   left: a slow proxy cannot hold the start past [runtime] deadline_ms.
   A process's namespace is pinned before (nspin.h) and must still hold
   after: the facts are of the namespace that process was in throughout,
   and the wrapper checks the pin again right before the runtime runs. */
static int32_t
answer_netns (const struct checker_request *rq, struct checker_parent *parent, int64_t left_ms,
              const void **body, size_t *n)
{
  static struct netns_facts facts;
  cleanup_error kg_error_t gerr = NULL;
  const struct netns_request *q = &rq->netns;
  struct netns_probe probe;
  struct ns_pin pin = { .pidfd = -1 };

  memset (&facts, 0, sizeof facts);
  *body = &facts;
  *n = sizeof facts;
  if (parent_probe (parent->cfg, &probe) < 0)
    return EPERM;
  if (q->pid != 0 && ns_pin_take (q->pid, "net", &pin, NULL) < 0)
    return errno;
  if (netns_gather_within (q->pid, q->pid ? NULL : q->path, &probe, left_ms, &facts, &gerr) < 0)
    {
      if (pin.pidfd >= 0)
        close (pin.pidfd);
      return gerr->errnum ? gerr->errnum : EIO;
    }
  if (q->pid != 0 && (ns_pin_check (&pin) < 0 || ns_pins_add (&parent->pins, &pin) < 0))
    {
      int32_t e = errno;

      if (pin.pidfd >= 0)
        close (pin.pidfd);
      memset (&facts, 0, sizeof facts);
      return e;
    }
  return 0;
}

/* The status of the thin pool the parent's own [storage]
   containerd_config names (storage.h): the status, or on an error its
   message. */
static int32_t
answer_pool (const struct checker_request *rq, struct checker_parent *parent, int64_t left_ms,
             const void **body, size_t *n)
{
  const struct guard_config *cfg = parent->cfg;
  static char text[1024];
  cleanup_error kg_error_t perr = NULL;
  char name[128];
  int32_t e = 0;

  (void) rq, (void) left_ms;
  text[0] = '\0';
  if (cfg == NULL)
    e = EPERM;
  else if (e == 0 && storage_pool_name (cfg, name, sizeof name, &perr) < 0)
    {
      e = EIO;
      snprintf (text, sizeof text, "the parent's own read: %s", perr->msg);
    }
  else if (e == 0 && name[0] == '\0')
    {
      e = ENOENT;
      snprintf (text, sizeof text,
                "the parent's own read of the containerd configuration "
                "names no pool");
    }
  else if (e == 0 && storage_pool_status_read (name, text, sizeof text, &perr) < 0)
    {
      e = perr->errnum ? perr->errnum : EIO;
      snprintf (text, sizeof text, "%s", perr->msg);
    }
  *body = text;
  *n = strlen (text);
  return e;
}

/* ---- the request kinds ------------------------------------------------ */

/* The requests the confined child may make, one row a kind at its
   enum's index, made from its row of request-list.h: the parser of the
   rest after its magic, what the parent answers it for, the answer, and
   the reply's form, which the parent writes (answer) and the child reads
   (child_ask) from this row alone.  How many of each a start may make is
   the asking rule's own count on the parent's parse of the spec
   (spec_names).  The answer runs only for a request that passed every
   check before it (answer ()), and gets the start's time left. */
static const struct request_kind
{
  enum checker_parse (*parse) (uint32_t arg, const unsigned char *buf, size_t len,
                               struct checker_request *rq);
  bool (*permitted) (const struct checker_names *n, const struct checker_request *rq);
  int32_t (*answer) (const struct checker_request *rq, struct checker_parent *parent,
                     int64_t left_ms, const void **body, size_t *n);
  size_t reply_size; /* a body of this size; 0: a counted body */
} request_kinds[CHECKER_REQ_KINDS] = {
#define REQUEST_KIND_ROW(KIND, NAME, MAGIC, MEMBER, RET, PARAMS, ASKS, REPLY)                      \
  [CHECKER_REQ_##KIND] = { parse_##NAME, permit_##NAME, answer_##NAME, REPLY },
  KG_REQUESTS (REQUEST_KIND_ROW)
#undef REQUEST_KIND_ROW
};

enum checker_parse
checker_request_parse (const unsigned char *buf, size_t len, struct checker_request *rq)
{
  size_t head = len < 4 ? len : 4;
  const struct request_kind *k = NULL;
  uint32_t arg;

  if (len == 0)
    return CHECKER_PARSE_PARTIAL;
  for (size_t i = 0; i < ARRAY_SIZE (request_kinds) && k == NULL; i++)
    if (memcmp (buf, checker_request_magic[i], head) == 0)
      k = &request_kinds[i];
  if (k == NULL)
    return CHECKER_PARSE_NONE;
  /* Up to here, the beginning of a magic: wait for the rest. */
  if (len < CHECKER_REQUEST_HEAD)
    return CHECKER_PARSE_PARTIAL;
  memset (rq, 0, sizeof *rq);
  rq->kind = (enum checker_request_kind) (k - request_kinds);
  rq->len = CHECKER_REQUEST_HEAD;
  memcpy (&arg, buf + 4, 4);
  return k->parse (arg, buf, len, rq);
}

/* Answer one whole request (PARSED: CHECKER_PARSE_OK or _REFUSED) of a
   start whose permitted requests of each kind so far are ASKED[kind],
   with DEADLINE (CLOCK_MONOTONIC ms) ahead.  Refused before its answer
   runs: EINVAL for one of the wrong form, EPERM for one about something
   the spec does not name, EDQUOT for a permitted one past its kind's
   budget, ETIMEDOUT when the start has no time left; the refusal's body
   is empty (or zeros of the kind's size). */
static int
answer (int sock, const struct checker_request *rq, enum checker_parse parsed,
        struct checker_parent *parent, unsigned *asked, int64_t deadline)
{
  static const union
  {
    struct checker_ns_reply ns;
    struct netns_facts netns;
  } none;
  const struct request_kind *k = &request_kinds[rq->kind];
  const struct checker_names *names = spec_names (parent);
  int64_t left = deadline - kg_monotonic_ms ();
  const void *body = &none;
  size_t n = k->reply_size;
  int32_t e;

  e = parsed != CHECKER_PARSE_OK ? EINVAL : ! k->permitted (names, rq) ? EPERM : 0;
  if (e == 0 && ++asked[rq->kind] > parent->budget[rq->kind])
    e = EDQUOT;
  if (e == 0 && left <= 0)
    e = ETIMEDOUT;
  if (e == 0)
    e = k->answer (rq, parent, left, &body, &n);
  if (k->reply_size != 0 && n != k->reply_size)
    return errno = EINVAL, -1;
  return checker_reply_send (sock, e, body, n, k->reply_size == 0);
}

/* ---- the runtime descriptor ------------------------------------------ */

int
checker_runtime_verify (const struct checker_parent *parent, int fd, kg_error_t *err)
{
  const bool oci = parent->mode == KG_MODE_OCI;
  const char *key = oci ? "[runtime] oci" : "[runtime] shim";
  const char *path = parent->cfg == NULL ? NULL
                     : oci               ? parent->cfg->runtime.oci
                                         : parent->cfg->runtime.shim;
  cleanup_error kg_error_t terr = NULL;
  cleanup_close int own = -1;
  struct trust_info info;
  struct stat st;

  if (fstat (fd, &st) < 0)
    return kg_error (err, errno, "cannot fstat the checker's runtime descriptor");
  if (! S_ISREG (st.st_mode) || (st.st_mode & 0111) == 0)
    return kg_error (err, 0,
                     "the checker handed over a runtime descriptor that is not a regular "
                     "executable file (mode %#o)",
                     (unsigned) st.st_mode);
  if (path == NULL || path[0] == '\0')
    return kg_error (err, 0, "the checker handed over a runtime descriptor, but %s is not set",
                     key);
  if (oci && ! parent->cfg->runtime.oci_vm)
    return kg_error (err, 0,
                     "the checker handed over a runtime descriptor, but %s %s is not "
                     "declared to run containers in a VM ([runtime] oci_vm is false)",
                     key, path);
  /* The parent's own walk, as kata.runtime's: the child's answer counts
     only when it is the very file the parent reaches. */
  own = trust_open (path, TRUST_EXEC, &info, &terr);
  if (own < 0 || trust_check_not_self (&info.st, &terr) < 0)
    return kg_error (err, terr->errnum,
                     "the checker handed over a runtime descriptor, but %s %s "
                     "fails the parent's own check: %s",
                     key, path, terr->msg);
  if (st.st_dev != info.st.st_dev || st.st_ino != info.st.st_ino)
    return kg_error (err, 0,
                     "the checker handed over a runtime descriptor that is not %s %s (%s): "
                     "device %ju inode %ju, not device %ju inode %ju",
                     key, path, info.path, (uintmax_t) st.st_dev, (uintmax_t) st.st_ino,
                     (uintmax_t) info.st.st_dev, (uintmax_t) info.st.st_ino);
  return 0;
}

static const char *
signame (int sig, char *buf, size_t size)
{
  const char *abbrev = sigabbrev_np (sig);

  if (abbrev != NULL)
    snprintf (buf, size, "SIG%s", abbrev);
  else
    snprintf (buf, size, "%d", sig);
  return buf;
}

/* Reap PID before the deadline, or kill and reap it. */
static int
reap (pid_t pid, int64_t deadline, int *status, bool *timed_out)
{
  struct timespec pause = { 0, 1000000 };

  /* A pidfd says when the child is gone without polling on a timer. */
  cleanup_close int pidfd = (int) syscall (SYS_pidfd_open, pid, 0);

  *timed_out = false;
  for (;;)
    {
      pid_t r = waitpid (pid, status, WNOHANG);

      if (r == pid)
        return 0;
      if (r < 0 && errno != EINTR)
        return -1;
      if (kg_monotonic_ms () >= deadline)
        {
          *timed_out = true;
          kill (pid, SIGKILL);
          while (waitpid (pid, status, 0) < 0 && errno == EINTR)
            ;
          return 0;
        }
      if (pidfd >= 0)
        {
          struct pollfd p = { pidfd, POLLIN, 0 };
          int64_t left = deadline - kg_monotonic_ms ();

          poll (&p, 1, left > 0 ? (int) left : 0);
        }
      else
        nanosleep (&pause, NULL);
    }
}

/* The parent's end of the channel, as it reads it. */
struct report_channel
{
  int sock;
  unsigned char *buf; /* CHECKER_MSG_MAX + 1 bytes */
  size_t len;
  int passed;                    /* the descriptor that came, or -1 */
  struct checker_parent *parent; /* what the requests are checked against */
  bool eof, too_long, bad_fds, report_started;
  const char *read_error; /* why reading stopped early, or NULL */
  unsigned n_requests;
  unsigned asked[CHECKER_REQ_KINDS]; /* the permitted requests of each kind */
  int64_t deadline;                  /* the start's, CLOCK_MONOTONIC ms */
};

static void
channel_release (struct report_channel *ch)
{
  free (ch->buf);
  if (ch->passed >= 0)
    close (ch->passed);
}
#define cleanup_report_channel __attribute__ ((cleanup (channel_release)))

/* Descriptors: exactly one, once, in one SCM_RIGHTS message; any other
   is closed and spoils the report. */
static void
take_descriptors (struct report_channel *ch, struct msghdr *mh)
{
  if (mh->msg_flags & MSG_CTRUNC)
    ch->bad_fds = true;
  for (struct cmsghdr *h = CMSG_FIRSTHDR (mh); h != NULL; h = CMSG_NXTHDR (mh, h))
    if (h->cmsg_level == SOL_SOCKET && h->cmsg_type == SCM_RIGHTS)
      {
        size_t k = (h->cmsg_len - CMSG_LEN (0)) / sizeof (int);
        int fds[4];

        memcpy (fds, CMSG_DATA (h), k * sizeof (int));
        for (size_t j = 0; j < k; j++)
          if (ch->passed < 0 && k == 1)
            ch->passed = fds[j];
          else
            {
              close (fds[j]);
              ch->bad_fds = true;
            }
      }
}

/* Requests come before the report, whole, and a bounded number: answer
   each whole one at the start of the buffer and drop it, until the
   report starts or a request is still coming. */
static void
serve_requests (struct report_channel *ch)
{
  while (! ch->report_started && ! ch->eof && ch->len >= 4 && ch->read_error == NULL)
    {
      static struct checker_request rq;
      enum checker_parse parsed = checker_request_parse (ch->buf, ch->len, &rq);

      if (parsed == CHECKER_PARSE_NONE)
        {
          ch->report_started = true;
          break;
        }
      if (parsed == CHECKER_PARSE_PARTIAL)
        break;
      if (parsed == CHECKER_PARSE_MALFORMED)
        ch->read_error = "a malformed request";
      else if (++ch->n_requests > CHECKER_MAX_REQUESTS || ch->passed >= 0)
        ch->read_error = "too many requests";
      else if (answer (ch->sock, &rq, parsed, ch->parent, ch->asked, ch->deadline) < 0)
        ch->read_error = "cannot answer a request";
      else
        {
          memmove (ch->buf, ch->buf + rq.len, ch->len - rq.len);
          ch->len -= rq.len;
        }
    }
}

/* Read CH until EOF, more than CHECKER_MSG_MAX bytes, an error or
   DEADLINE (none of the flags set then), answering requests on the way. */
static void
read_channel (struct report_channel *ch, int64_t deadline)
{
  while (! ch->eof && ! ch->too_long && ch->read_error == NULL)
    {
      struct pollfd p = { ch->sock, POLLIN, 0 };
      int64_t left = deadline - kg_monotonic_ms ();
      union
      {
        struct cmsghdr h;
        char space[CMSG_SPACE (sizeof (int) * 4)];
      } ctl;
      struct iovec iov = { ch->buf + ch->len, CHECKER_MSG_MAX + 1 - ch->len };
      struct msghdr mh = {
        .msg_iov = &iov, .msg_iovlen = 1, .msg_control = &ctl, .msg_controllen = sizeof ctl
      };
      ssize_t n;
      int r;

      if (left <= 0)
        break;
      r = poll (&p, 1, (int) left);
      if (r < 0 && errno == EINTR)
        continue;
      if (r < 0)
        {
          ch->read_error = strerror (errno);
          break;
        }
      if (r == 0)
        break;
      n = recvmsg (ch->sock, &mh, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
      if (n < 0 && (errno == EINTR || errno == EAGAIN))
        continue;
      if (n < 0)
        {
          ch->read_error = strerror (errno);
          break;
        }
      take_descriptors (ch, &mh);
      if (n == 0)
        ch->eof = true;
      ch->len += (size_t) n;
      if (ch->len > CHECKER_MSG_MAX)
        ch->too_long = true;
      serve_requests (ch);
    }
}

/* How the child ended (STATUS from waitpid): 0 when it exited 0, else
   what killed it or the exit status it chose.  REFUSED: as for
   checker_collect. */
static int
child_ended (int status, const volatile uint32_t *refused, kg_error_t *err)
{
  char sig[32];

  if (WIFSIGNALED (status) && WTERMSIG (status) == SIGSYS)
    {
      uint32_t nr = refused != NULL ? *refused : 0;
      cleanup_free char *name = nr != 0 ? seccomp_syscall_resolve_num_arch (SCMP_ARCH_NATIVE,
                                                                            (int) (nr - 1))
                                        : NULL;

      if (nr != 0)
        return kg_error (err, 0,
                         "the checker violated its sandbox: the filter refused system call "
                         "%s (%u); killed by signal %s",
                         name != NULL ? name : "?", nr - 1, signame (SIGSYS, sig, sizeof sig));
      return kg_error (err, 0, "the checker violated its sandbox: killed by signal %s",
                       signame (SIGSYS, sig, sizeof sig));
    }
  if (WIFSIGNALED (status))
    return kg_error (err, 0, "the checker died: killed by signal %s",
                     signame (WTERMSIG (status), sig, sizeof sig));
  if (WIFEXITED (status) && WEXITSTATUS (status) == CHECKER_EXIT_CONFINE)
    return kg_error (err, 0, "the checker could not confine itself (exit status %d)",
                     CHECKER_EXIT_CONFINE);
  if (WIFEXITED (status) && WEXITSTATUS (status) == CHECKER_EXIT_SEND)
    return kg_error (err, 0, "the checker could not send its report (exit status %d)",
                     CHECKER_EXIT_SEND);
  if (! WIFEXITED (status) || WEXITSTATUS (status) != 0)
    return kg_error (err, 0, "the checker exited with status %d", WEXITSTATUS (status));
  return 0;
}

int
checker_collect (pid_t pid, int sock, int64_t deadline_ms, const volatile uint32_t *refused,
                 struct checker_parent *parent, struct report *rep, int *fd_out, char **cache,
                 size_t *cache_len, kg_error_t *err)
{
  const int64_t deadline = kg_monotonic_ms () + deadline_ms;
  cleanup_report_channel struct report_channel ch = {
    .sock = sock, .passed = -1, .parent = parent, .deadline = deadline
  };
  bool timed_out = false, want_fd;
  int status = 0;

  *fd_out = -1;
  ch.buf = malloc (CHECKER_MSG_MAX + 1);
  if (ch.buf == NULL)
    {
      kill (pid, SIGKILL);
      reap (pid, deadline, &status, &timed_out);
      return kg_error (err, ENOMEM, "cannot read the checker's report");
    }
  read_channel (&ch, deadline);

  /* Whatever happened, the child is gone before this returns. */
  if (! ch.eof || ch.too_long || ch.read_error != NULL)
    kill (pid, SIGKILL);
  if (reap (pid, deadline, &status, &timed_out) < 0)
    return kg_error (err, errno, "cannot reap the checker (pid %d)", (int) pid);
  if (timed_out || (! ch.eof && ! ch.too_long && ch.read_error == NULL))
    return kg_error (err, ETIMEDOUT,
                     "the checker did not finish within [runtime] deadline_ms (%lld ms)",
                     (long long) deadline_ms);
  if (ch.too_long)
    return kg_error (err, 0, "the checker's report is too long (more than %d bytes)",
                     CHECKER_MSG_MAX);
  /* Killed by the parent for it: say why, not SIGKILL. */
  if (ch.read_error != NULL)
    return kg_error (err, 0, "cannot read the checker's report: %s", ch.read_error);
  if (child_ended (status, refused, err) < 0)
    return -1;
  if (ch.bad_fds)
    return kg_error (err, 0, "the checker passed descriptors that were not asked for");
  /* The descriptor against the header's flag first, so that REP only
     changes when everything holds; checker_decode validates the rest. */
  want_fd = checker_header_wants_fd (ch.buf, ch.len);
  if (want_fd != (ch.passed >= 0))
    return kg_error (err, 0, "the checker's report %s a runtime descriptor but %s came",
                     want_fd ? "announces" : "does not announce", ch.passed >= 0 ? "one" : "none");
  if (ch.passed >= 0 && checker_runtime_verify (parent, ch.passed, err) < 0)
    return -1;
  if (checker_decode (ch.buf, ch.len, rep, &want_fd, cache, cache_len, err) < 0)
    return -1;
  *fd_out = steal_fd (&ch.passed);
  return 0;
}

/* ---- the child --------------------------------------------------------- */

static int
send_report (int sock, const struct report *rep, int runtime_fd, const char *cache,
             size_t cache_len)
{
  cleanup_error kg_error_t err = NULL;
  cleanup_free unsigned char *buf = NULL;
  size_t len, off = 0;

  if (checker_encode (rep, runtime_fd >= 0, cache, cache_len, &buf, &len, &err) < 0)
    return -1;
  while (off < len)
    {
      union
      {
        struct cmsghdr h;
        char space[CMSG_SPACE (sizeof (int))];
      } ctl;
      struct iovec iov = { buf + off, len - off };
      struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
      ssize_t n;

      /* The descriptor rides on the first chunk. */
      if (off == 0 && runtime_fd >= 0)
        {
          memset (&ctl, 0, sizeof ctl);
          mh.msg_control = &ctl;
          mh.msg_controllen = sizeof ctl;
          ctl.h.cmsg_level = SOL_SOCKET;
          ctl.h.cmsg_type = SCM_RIGHTS;
          ctl.h.cmsg_len = CMSG_LEN (sizeof (int));
          memcpy (CMSG_DATA (&ctl.h), &runtime_fd, sizeof (int));
        }
      n = sendmsg (sock, &mh, MSG_NOSIGNAL);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        return -1;
      off += (size_t) n;
    }
  return 0;
}

#define CHILD_SOCK CONFINE_REPORT_FD

/* Send the request RQ (LEN bytes) of KIND and read the parent's reply
   in the form KIND's row gives: a counted body of at most MAX bytes into
   BODY (*N: how many came), or a body of exactly the row's size, which
   MAX must be.  0 with the parent's errno in *E, or -1 with errno EIO
   when the reply did not come whole. */
static int
child_ask (enum checker_request_kind kind, const unsigned char *rq, size_t len, int32_t *e,
           void *body, size_t max, size_t *n)
{
  const struct request_kind *k = &request_kinds[kind];

  if (k->reply_size != 0 && max != k->reply_size)
    return errno = EINVAL, -1;
  if (kg_send_all (CHILD_SOCK, rq, len) < 0
      || checker_reply_read (CHILD_SOCK, e, body, max, n, k->reply_size == 0) < 0)
    return errno = EIO, -1;
  return 0;
}

/* The parent's errno E, as the child's: -1 with it, or 0. */
static int
child_answered (int32_t e)
{
  if (e == 0)
    return 0;
  errno = e > 0 ? e : EIO;
  return -1;
}

/* req->proc_exe in the child: ask the parent. */
static ssize_t
child_proc_exe (unsigned long pid, char *buf, size_t size)
{
  unsigned char rq[CHECKER_REQUEST_HEAD];
  size_t n;
  int32_t e;

  if (checker_request_exe (pid, rq) < 0
      || child_ask (CHECKER_REQ_EXE, rq, sizeof rq, &e, buf,
                    size < CHECKER_PATH_MAX ? size : CHECKER_PATH_MAX, &n)
             < 0
      || child_answered (e) < 0)
    return -1;
  return (ssize_t) n;
}

/* req->ns_stat in the child: ask the parent. */
static int
child_ns_stat (unsigned long pid, int k, struct stat *st)
{
  unsigned char rq[CHECKER_REQUEST_HEAD];
  struct checker_ns_reply r;
  int32_t e;

  if (checker_request_ns (pid, k, rq) < 0
      || child_ask (CHECKER_REQ_NS, rq, sizeof rq, &e, &r, sizeof r, NULL) < 0
      || child_answered (e) < 0)
    return -1;
  memset (st, 0, sizeof *st);
  st->st_dev = (dev_t) r.dev;
  st->st_ino = (ino_t) r.ino;
  return 0;
}

/* req->netns_facts in the child: ask the parent. */
static int
child_netns_facts (unsigned long pid, const char *path, const struct netns_probe *probe,
                   struct netns_facts *out)
{
  static unsigned char rq[CHECKER_NETNS_REQUEST_LEN];
  int32_t e;

  if (checker_request_netns (pid, path, probe, rq) < 0
      || child_ask (CHECKER_REQ_NETNS, rq, sizeof rq, &e, out, sizeof *out, NULL) < 0)
    return -1;
  return child_answered (e);
}

/* req->pool_status in the child: ask the parent. */
static int
child_pool_status (char *buf, size_t size, kg_error_t *err)
{
  unsigned char rq[CHECKER_REQUEST_HEAD];
  char text[1024];
  size_t n;
  int32_t e;

  checker_request_pool (rq);
  if (child_ask (CHECKER_REQ_POOL, rq, sizeof rq, &e, text, sizeof text - 1, &n) < 0)
    return kg_error (err, EIO, "the checker's parent did not answer the pool request");
  text[n] = '\0';
  if (e != 0)
    {
      /* The parent's message already says why: keep it as it is, with
         its errno for the verdict. */
      kg_error (err, 0, "%s", n > 0 ? text : "the pool was not read");
      (*err)->errnum = e > 0 ? e : EIO;
      return -1;
    }
  if (n >= size)
    return kg_error (err, EOVERFLOW, "the pool's status is too long");
  memcpy (buf, text, n + 1);
  return 0;
}

/* Leave the child only stdio on /dev/null and the channel as CHILD_SOCK:
   nothing the engine handed over reaches code that parses input. */
static int
child_descriptors (int sock)
{
  int null = open ("/dev/null", O_RDWR | O_CLOEXEC);
  int s;

  if (null < 0)
    return -1;
  s = fcntl (sock, F_DUPFD_CLOEXEC, CHILD_SOCK + 1);
  if (s < 0)
    return -1;
  for (int i = 0; i <= 2; i++)
    if (dup2 (null, i) < 0)
      return -1;
  if (dup3 (s, CHILD_SOCK, O_CLOEXEC) < 0)
    return -1;
  return close_range (CHILD_SOCK + 1, ~0U, 0) < 0 ? -1 : 0;
}

static _Noreturn void
child_main (const struct preflight *parent, const struct engine_ns *ns, const char *config_path,
            int sock, volatile uint32_t *refused)
{
  struct request req = *parent->req;
  struct guard_config cfg;
  struct report rep = { 0 };
  struct preflight pf;
  kg_error_t err = NULL;

  if (child_descriptors (sock) < 0 || confine_enter (CHILD_SOCK, refused, &err) < 0)
    _exit (CHECKER_EXIT_CONFINE);

  /* From here on, input.  The guard config is the parent's own load of
     it, inherited with the fork: the same file the parent read before
     (so the checks judge the very configuration the parent executes by,
     not a second read that could differ), parsed once per start.  Only a
     caller without one has the child load CONFIG_PATH. */
  req.engine_ns = ns;
#define REQUEST_CHILD(KIND, NAME, MAGIC, MEMBER, RET, PARAMS, ASKS, REPLY)                         \
  req.MEMBER = child_##MEMBER;
  KG_REQUESTS (REQUEST_CHILD)
#undef REQUEST_CHILD
  memset (&cfg, 0, sizeof cfg);
  if (parent->cfg != NULL)
    {
      preflight_init (&pf, &req, parent->cfg, &rep);
      /* One run, in a process that writes nothing: the trusted-path
         walks may start where an earlier walk of the run found a trusted
         directory (trust_memo_start). */
      trust_memo_start ();
      preflight_run (&pf);
    }
  else
    {
      preflight_init (&pf, &req, &cfg, &rep);
      if (guard_config_load (config_path, &cfg, &err) < 0)
        report_fail (&rep, "config", GUARD_CONFIG_REMEDY, "%s", err->msg);
      else
        preflight_run (&pf);
    }
  if (send_report (CHILD_SOCK, &rep, pf.from_kata.runtime_fd, pf.from_assets.cache,
                   pf.from_assets.cache_len)
      < 0)
    _exit (CHECKER_EXIT_SEND);
  /* No cleanup: the process ends here, and exit handlers are not the
     checker's business. */
  _exit (0);
}

int
checker_run (struct preflight *pf, const char *config_path, int64_t deadline_ms, kg_error_t *err)
{
  struct checker_parent parent = { .cfg = pf->cfg,
                                   .mode = pf->req->mode,
                                   .bundle = pf->req->bundle };
  struct engine_ns ns;
  int sv[2];
  pid_t pid;
  volatile uint32_t *refused;
  cleanup_free char *cache = NULL;
  size_t cache_len = 0;
  int fd = -1;
  int r;

  /* Privileged, so gathered here: pid 1's namespaces. */
  engine_ns_gather (&ns);
  /* One word the child's SIGSYS handler writes: which call was refused. */
  refused = mmap (NULL, sizeof *refused, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (refused == MAP_FAILED)
    return kg_error (err, errno, "cannot start the checker: mmap");
  *refused = 0;
  if (socketpair (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
    {
      r = errno;
      munmap ((void *) refused, sizeof *refused);
      return kg_error (err, r, "cannot start the checker: socketpair");
    }
  fflush (NULL);
  pid = fork ();
  if (pid < 0)
    {
      r = errno;
      close (sv[0]);
      close (sv[1]);
      munmap ((void *) refused, sizeof *refused);
      return kg_error (err, r, "cannot start the checker: fork");
    }
  if (pid == 0)
    {
      close (sv[0]);
      child_main (pf, &ns, config_path, sv[1], refused);
    }
  close (sv[1]);
  r = checker_collect (pid, sv[0], deadline_ms, refused, &parent, pf->rep, &fd, &cache, &cache_len,
                       err);
  close (sv[0]);
  /* What the answers pinned goes to the wrapper, which checks it again
     right before the runtime runs. */
  if (r == 0)
    {
      ns_pins_release (&pf->pins);
      pf->pins = parent.pins;
      parent.pins.n = 0;
    }
  checker_parent_release (&parent);
  munmap ((void *) refused, sizeof *refused);
  if (r < 0)
    return -1;
  /* The digest cache only saves time: one that cannot be written costs
     the next start a hash, never a verdict.  It is the child's word for
     what later starts will not hash again: the parent writes only the
     entries it checked itself (assets_cache_vet). */
  if (cache != NULL)
    {
      cleanup_error kg_error_t cache_err = NULL;

      assets_cache_write (pf->cfg, cache, cache_len, &cache_err);
    }
  if (pf->from_kata.runtime_fd >= 0)
    close (pf->from_kata.runtime_fd);
  pf->from_kata.runtime_fd = fd;
  return 0;
}

/* ---- the host's checks, as check and validate run them ---- */

bool
checker_run_host (struct preflight *pf, struct request *req, struct checker_asked *asked,
                  struct guard_config *cfg, const char *config_path, struct report *rep)
{
  cleanup_error kg_error_t err = NULL;

  /* docker.runtimes judges daemon.json as the Docker that reads it reads
     it, and cri.handler asks the running CRI: the confined checker runs
     no program, so both are asked here. */
  docker_engine_ask (cfg, &asked->docker, &asked->docker_text);
  req->docker = &asked->docker;
  cri_ask (cfg, &asked->cri);
  req->cri = &asked->cri;
  preflight_init (pf, req, cfg, rep);
  if (checker_run (pf, config_path, cfg->runtime.deadline_ms, &err) == 0)
    return true;
  report_fail (rep, "checker", CHECKER_REMEDY, "%s", err->msg);
  return false;
}

void
checker_asked_release (struct checker_asked *asked)
{
  cri_answer_release (&asked->cri);
  free (asked->docker_text);
  *asked = (struct checker_asked) CHECKER_ASKED_INIT;
}
