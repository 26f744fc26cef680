/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The confined checker (kata-guard(8), SECURITY, Confinement): a guarded
 * start and `kata-guard check` split into a privileged parent and a child
 * that confines itself (confine.h) before it reads any input, runs the
 * checks and sends its report back as one bounded, fixed-format message
 * (and the checked runtime's descriptor with SCM_RIGHTS).  The parent is
 * not free of parsers: it reads the guard config (TOML) for itself; the
 * wrapper around it reads the engine's stdin options (protobuf), a pod
 * sandbox shim's start answer and a runc exec's process.json; here it
 * reads the bundle's config.json at the child's first request (policy.h's
 * strict reader) and the checker's message (codec.h).  It believes the
 * message only when it is exactly well formed, the child exited 0, and
 * all of it came within [runtime] deadline_ms; and it believes nothing
 * the child hands over without checking it against what it knows itself
 * (struct checker_parent).
 *
 * Before its report the child may ask what it lacks the privilege for
 * (a hook's /proc/PID/exe, a process's namespace identities, a network
 * namespace's facts); the parent answers a request only when it is well
 * formed and names a process or a path this start's own config.json
 * names, and probes with its own [egress] settings, never the child's.
 * The message and the requests are codec.h's.
 */
#ifndef KG_CHECKER_H
#define KG_CHECKER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "codec.h"
#include "cri.h"
#include "error.h"
#include "mode.h"
#include "nspin.h"
#include "request.h"
#include "result.h"

struct preflight;

#define CHECKER_MAX_REQUESTS 256 /* before the report */

/* Child exit statuses the parent names. */
#define CHECKER_EXIT_CONFINE 3 /* could not confine itself */
#define CHECKER_EXIT_SEND 4    /* could not encode or send its report */

/* The remedy of a "checker" failure. */
#define CHECKER_REMEDY                                                                             \
  "see it again with kata-guard check --bundle on the container's bundle; on a slow host "         \
  "raise [runtime] deadline_ms; a sandbox violation is a bug in kata-guard (a C library it "       \
  "does not know yet: report the system call named here) or an attack on it"

/* Run PF's checks in a confined child, on PF->cfg as the parent loaded it
   (inherited; CONFIG_PATH is loaded by the child only when PF->cfg is NULL);
   append its results and files to PF->rep and put the runtime descriptor
   it checked in PF->from_kata.runtime_fd.  Fails (and PF->rep is unchanged) when
   the checker could not be started, died, overran DEADLINE_MS or sent
   anything but one well-formed report, or handed over a descriptor that
   is not the parent's own trusted open of [runtime]: *ERR then says
   which.  PF->cfg is the parent's own load of the guard config: what the
   child hands over is checked against it (struct checker_parent). */
int checker_run (struct preflight *pf, const char *config_path, int64_t deadline_ms,
                 kg_error_t *err);

/* What `check` and `validate` ask on the checker's behalf, as it runs no
   program: the Docker that reads daemon.json (docker.runtimes) and the
   running CRI (cri.handler). */
struct checker_asked
{
  struct docker_engine docker;
  char *docker_text;
  struct cri_answer cri;
};
#define CHECKER_ASKED_INIT                                                                         \
  {                                                                                                \
    .docker = {.major = -1 }                                                                       \
  }

/* The host's checks as `check` and `validate` run them, by the same
   confined checker as a start (the same verdicts): Docker and the running
   CRI asked into *ASKED and REQ pointed at them, PF initialised on REQ,
   CFG and REP, then checker_run; a checker that cannot run is REP's
   "checker" failure.  True when it ran.  The caller releases PF
   (preflight_release), then ASKED (checker_asked_release). */
bool checker_run_host (struct preflight *pf, struct request *req, struct checker_asked *asked,
                       struct guard_config *cfg, const char *config_path, struct report *rep);
void checker_asked_release (struct checker_asked *asked);

/* ---- the pieces, exposed for the unit tests ---- */

#define CHECKER_MAX_NAMES 64 /* namespace paths, and hook paths, of one spec */

/* What this start's config.json names, as the parent reads it itself
   (policy_spec_load): each linux.namespaces entry's type and path, each
   hook's path.  A request about a process or a namespace is answered only
   when one of these names it. */
struct checker_names
{
  char *ns_path[CHECKER_MAX_NAMES];
  bool ns_network[CHECKER_MAX_NAMES]; /* the entry's type is "network" */
  size_t n_ns;
  char *hook_path[CHECKER_MAX_NAMES];
  size_t n_hooks;
};

/* What the parent knows itself, and checks what the child hands it
   against: the descriptor against its own trusted open of [runtime], each
   request against what this start's spec names, the probe from its own
   [egress].  BUNDLE NULL: no spec, so no request is answered. */
struct checker_parent
{
  const struct guard_config *cfg; /* the parent's own load */
  enum kg_mode mode;              /* which [runtime] key runs */
  const char *bundle;
  bool names_read; /* NAMES and BUDGET read, at the first request */
  struct checker_names names;
  /* How many requests of each kind this start may make: the asking
     rule's own count on the parent's parse (request-list.h). */
  size_t budget[CHECKER_REQ_KINDS];
  struct ns_pins pins; /* each namespace it answered about by pid (nspin.h) */
};

void checker_parent_release (struct checker_parent *parent);

enum checker_parse
{
  CHECKER_PARSE_PARTIAL,   /* the start of a request (or too little to tell): read more */
  CHECKER_PARSE_NONE,      /* not a request: the report starts here */
  CHECKER_PARSE_MALFORMED, /* a request framed wrong: nothing after it can be read */
  CHECKER_PARSE_REFUSED,   /* a whole request that asks what the parent does not answer:
                                 *RQ has its kind and len, the answer is EINVAL */
  CHECKER_PARSE_OK,        /* a whole, valid request in *RQ */
};

/* The parent's reading of a request: the one at the start of the LEN
   bytes at BUF, by its kind's row (checker.c), validated: an EXE
   pid that is a pid; an NS pid in 24 bits and a namespace index
   engine_ns_proc_name knows; a NETNS path that is a terminated absolute
   one (pid 0) or empty (a pid), a proxy that is an IPv4 or IPv6 socket
   address, a host that is a DNS name (it goes into the request line), a
   wait of 1 to 60000 ms; a POOL argument of 0.  The answer only grows more certain as LEN
   grows: once it is not PARTIAL, every longer buffer gets the same. */
enum checker_parse checker_request_parse (const unsigned char *buf, size_t len,
                                          struct checker_request *rq);

/* Whether the O_PATH descriptor FD is the file the parent itself reaches
   by the trusted-path walk of PARENT's [runtime] key for its mode (same
   device and inode), a regular executable file, not kata-guard itself,
   and (OCI mode) declared a VM runtime.  0, or -1 with why. */
int checker_runtime_verify (const struct checker_parent *parent, int fd, kg_error_t *err);

/* The parent's side: read the message from SOCK until EOF, answering the
   requests PARENT permits, reap PID, all within DEADLINE_MS (else SIGKILL
   and reap), then decode.  *FD_OUT gets the passed descriptor (verified
   with checker_runtime_verify) or -1, *CACHE the digest cache or NULL.
   REFUSED (or NULL): the word the child's confine_enter was given, read
   once the child is reaped, to name the call that a SIGSYS death
   refused. */
int checker_collect (pid_t pid, int sock, int64_t deadline_ms, const volatile uint32_t *refused,
                     struct checker_parent *parent, struct report *rep, int *fd_out, char **cache,
                     size_t *cache_len, kg_error_t *err);

#endif
