/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The confined checker (kata-guard(8), SECURITY, Confinement): a guarded
 * start and `kata-guard check` split into a parent that only decides and
 * executes, and a child that confines itself (confine.h) before it reads
 * any input, runs the checks and sends its report back as one bounded,
 * fixed-format message (and the checked runtime's descriptor with
 * SCM_RIGHTS).  The parent believes the message only when it is exactly
 * well formed, the child exited 0, and all of it came within [runtime]
 * deadline_ms.
 *
 * Before its report the child may ask what it lacks the privilege for
 * (a hook's /proc/PID/exe, a process's namespace identities, a network
 * namespace's facts); the parent answers each request it validated.  The
 * message and the requests are codec.h's.
 */
#ifndef KG_CHECKER_H
#define KG_CHECKER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "checks.h"
#include "codec.h"
#include "error.h"
#include "result.h"

#define CHECKER_MAX_REQUESTS 256  /* before the report */

/* Child exit statuses the parent names. */
#define CHECKER_EXIT_CONFINE 3  /* could not confine itself */
#define CHECKER_EXIT_SEND 4     /* could not encode or send its report */

/* The remedy of a "checker" failure. */
#define CHECKER_REMEDY                                                                    \
  "see it again with kata-guard check --bundle on the container's bundle; on a slow host "  \
  "raise [runtime] deadline_ms; a sandbox violation is a bug in kata-guard (a C library it " \
  "does not know yet: report the system call named here) or an attack on it"

/* Run PF's checks in a confined child that loads CONFIG_PATH itself;
   append its results and files to PF->rep and put the runtime descriptor
   it checked in PF->from_kata.runtime_fd.  Fails (and PF->rep is unchanged) when
   the checker could not be started, died, overran DEADLINE_MS or sent
   anything but one well-formed report: *ERR then says which. */
int checker_run (struct preflight *pf, const char *config_path, int64_t deadline_ms,
                 kg_error_t *err);

/* ---- the pieces, exposed for the unit tests ---- */

/* The parent's side: read the message from SOCK until EOF, reap PID, all
   within DEADLINE_MS (else SIGKILL and reap), then decode.  *FD_OUT gets
   the passed descriptor or -1, *CACHE the digest cache or NULL.  REFUSED
   (or NULL): the word the child's confine_enter was given, read once the
   child is reaped, to name the call that a SIGSYS death refused. */
int checker_collect (pid_t pid, int sock, int64_t deadline_ms, const volatile uint32_t *refused,
                     struct report *rep, int *fd_out, char **cache, size_t *cache_len,
                     kg_error_t *err);

#endif
