/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The privileged requests (kata-guard(8), SECURITY, Confinement): what
 * the confined checker asks its parent for, one row a request, the only
 * list of them.  Every place a request takes is made from its row:
 *
 *   request.h        struct request's pointer MEMBER, of type
 *                    RET (*MEMBER) PARAMS, which a rule calls
 *   codec.h, .c      enum checker_request_kind's CHECKER_REQ_KIND and
 *                    the MAGIC its request starts with
 *                    (checker_request_magic)
 *   checker.c        the parent's row: parse_NAME, permit_NAME,
 *                    answer_NAME, a reply of REPLY bytes (0: counted),
 *                    and the budget ASKS; the child's child_MEMBER, set
 *                    as the request's MEMBER in the confined child
 *
 * A name the row makes that is not defined is a compile error, so a
 * request cannot be half added.  ASKS is the asking rule's own count of
 * the requests of this kind it makes on a spec (a struct jv *), by the
 * same test it asks by (policy-hooks.c, policy-identity.c), or
 * request_asks_once: the parent allows a start that many, no more
 * (OpenSSH's monitor permits each request before its handler, some
 * once), reckoned on its own parse of the spec.  Adding a request takes
 * its row here, its builder (codec.c), its three parent functions and
 * its child function (checker.c), and the rule's call and count.
 *
 * X (KIND, NAME, MAGIC, MEMBER, RET, PARAMS, ASKS, REPLY):
 *
 * EXE   readlink of /proc/PID/exe (an OCI hook's program, as Docker
 *       writes it) into BUF; the length, or -1 with errno.  Reading
 *       another process's exe takes privilege.  policy.hooks asks once
 *       per hook entry whose path is /proc/PID/exe.
 * NS    stat(2) of /proc/PID/ns/<engine_ns_proc_name (K)> into *ST; 0,
 *       or -1 with errno.  A process's namespaces can be opened only by
 *       one whose capabilities cover its own (ptrace access mode).
 *       policy.namespaces asks once per kind a /proc/PID/ns/NAME path of
 *       its one entry names.
 * NETNS netns_gather (netns.h) of process PID's network namespace (PATH
 *       NULL) or of PATH: entering it takes privilege.  0, or -1 with
 *       errno.  egress.netns asks once, for the container's network.
 * POOL  storage_pool_status_read (storage.h) of the thin pool that the
 *       guard config's [storage] containerd_config names, into BUF:
 *       device-mapper answers only CAP_SYS_ADMIN, and the parent reads
 *       the pool's name itself.  storage.pool asks once.
 *
 * A NULL pointer in struct request: the rule does it in place
 * (unconfined callers, the unit tests).
 */
#ifndef KG_REQUEST_LIST_H
#define KG_REQUEST_LIST_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"

struct jv;

#define KG_REQUESTS(X)                                                                             \
  X (EXE, exe, "KGRQ", proc_exe, ssize_t, (unsigned long pid, char *buf, size_t size),             \
     policy_hooks_asks, 0)                                                                         \
  X (NS, ns, "KGNS", ns_stat, int, (unsigned long pid, int k, struct stat *st),                    \
     policy_namespaces_asks, sizeof (struct checker_ns_reply))                                     \
  X (NETNS, netns, "KGNN", netns_facts, int,                                                       \
     (unsigned long pid, const char *path, const struct netns_probe *probe,                        \
      struct netns_facts *out),                                                                    \
     request_asks_once, sizeof (struct netns_facts))                                               \
  X (POOL, pool, "KGDM", pool_status, int, (char *buf, size_t size, kg_error_t *err),              \
     request_asks_once, 0)

/* The process PATH names as /proc/PID/REST, the form the rules ask the
   parent by (PID in decimal as strtoul reads it, 1 to INT32_MAX): its
   pid, or 0 when PATH is not of that form.  A rule asks, and counts its
   asks, by this one test. */
static inline unsigned long
request_proc_pid (const char *path, const char *rest)
{
  const char *q = path + 6;
  size_t digits;
  unsigned long pid;
  char *end;

  if (strncmp (path, "/proc/", 6) != 0)
    return 0;
  digits = strspn (q, "0123456789");
  if (digits == 0 || q[digits] != '/' || strcmp (q + digits + 1, rest) != 0)
    return 0;
  errno = 0;
  pid = strtoul (q, &end, 10);
  return errno != 0 || end != q + digits || pid > INT32_MAX ? 0 : pid;
}

/* A rule that asks once a start, whatever the spec says (the other
   counts are the policy's: policy.h). */
static inline size_t
request_asks_once (struct jv *spec)
{
  (void) spec;
  return 1;
}

#endif
