/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the entry point learned from argv, the environment and stdin, and
 * the ways the confined checker reaches what takes privilege (its parent
 * answers them over the privsep channel: privsep/checker.c; the list is
 * request-list.h's).  The families that read the container's facts
 * include this; the shim's and register's units that only name a mode
 * include mode.h.
 */
#ifndef KG_REQUEST_H
#define KG_REQUEST_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "mode.h"
#include "request-list.h"

/* A namespace's identity as stat(2) of /proc/PID/ns/NAME shows it. */
struct ns_id
{
  bool ok;
  int error; /* errno when not ok */
  dev_t dev;
  ino_t ino;
};

/* The namespaces [policy] host_namespaces governs (network, pid, ipc, uts, in
   that order), as the engine has them (/proc/self/ns) and as the host has
   them (/proc/1/ns).  Reading pid 1's takes privilege the confined checker
   has given up, so the parent gathers them before the fork. */
#define KG_NS_COUNT 4
/* RLIMIT_CPU .. RLIMIT_RTTIME (RLIM_NLIMITS of Linux 2.6.25 and later). */
#define KG_RLIM_COUNT 16
/* The CPUs and memory nodes a cpuset list may name (POLICY_MAX_CPUSET). */
#define KG_CPUSET_MAX 4096
struct engine_ns
{
  struct ns_id self[KG_NS_COUNT];
  struct ns_id init[KG_NS_COUNT];
  /* The engine's capability bounding set (the guard's own, inherited
     from the engine, before the checker drops it: /proc/self/status
     CapBnd), what a privileged container gets; CAPBND_OK false when it
     could not be read. */
  bool capbnd_ok;
  uint64_t capbnd;
  /* The engine's resource limits (the guard's own, inherited, read
     before the checker starts: getrlimit), what a container with no
     process.rlimits entry gets from runc; RLIM_OK[R] false when
     resource R could not be read. */
  bool rlim_ok[KG_RLIM_COUNT];
  uint64_t rlim_cur[KG_RLIM_COUNT], rlim_max[KG_RLIM_COUNT];
  /* The host's online CPUs and memory nodes (/sys/devices/system/cpu/online,
     .../node/online: node 0 where the kernel has no NUMA), a bit each of
     KG_CPUSET_MAX; ONLINE_ERR[0] (CPUs) and [1] (nodes): 0 when read, or
     an errno (EINVAL: not a list). */
  int online_err[2];
  unsigned char online[2][KG_CPUSET_MAX / 8];
};
void engine_ns_gather (struct engine_ns *e); /* policy-limits.c */
/* The CPUs (or memory nodes) list S names into BITS (KG_CPUSET_MAX bits),
   by the grammar every reader takes alike; false when S is not one. */
bool cpuset_parse (const char *s, unsigned char *bits); /* policy-limits.c */
/* The /proc/PID/ns name of namespace K (0 .. KG_NS_COUNT-1: net, pid,
   ipc, uts), or NULL. */
const char *engine_ns_proc_name (int k); /* policy.c */

/* Docker's version as docker_version (docker.h) tells it: MAJOR -1 when
   nothing answered. */
struct docker_engine
{
  int major;
  char *version;
  const char *source;
};

/* What the entry point learned from argv, the environment and stdin. */
struct cri_answer;
struct netns_probe;
struct netns_facts;

struct request
{
  enum kg_mode mode;
  const char *container_id; /* NULL for `check` */
  const char *ns;           /* containerd namespace, or NULL */
  const char *bundle;       /* bundle directory, or NULL */
  const char *kata_config;  /* Kata config chosen by the engine (stdin options), or NULL */
  const char *pid_file;     /* OCI create's --pid-file, absolute, or NULL */
  /* Gathered by the privileged parent before the checker forks; NULL:
     policy reads them itself (unconfined callers, the unit tests). */
  const struct engine_ns *engine_ns;
  /* The privileged requests, one pointer each (request-list.h): the
     confined checker asks its parent; NULL: the rule does it in place. */
#define KG_REQUEST_POINTER(KIND, NAME, MAGIC, MEMBER, RET, PARAMS, ASKS, REPLY)                    \
  RET (*MEMBER) PARAMS;
  KG_REQUESTS (KG_REQUEST_POINTER)
#undef KG_REQUEST_POINTER
  /* `check` only: the Docker that reads daemon.json, asked by the entry
     point before the checker forks (the confined checker runs no
     program); NULL: docker.c asks itself (unconfined callers). */
  const struct docker_engine *docker;
  /* `check` only: the running CRI's answer at [cri] endpoint, asked by
     the entry point (cri_ask, cri.h) for the same reason; NULL: not
     asked (cri.handler then fails). */
  const struct cri_answer *cri;
};

#endif
