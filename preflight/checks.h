/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The checks.  A check family is one function that appends results with
 * stable ids to the report; it never prints, exits or execs, and it turns
 * every error it meets into a "fail" result (a check that cannot reach a
 * verdict fails).
 */
#ifndef KG_CHECKS_H
#define KG_CHECKS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "conf.h"
#include <sys/stat.h>

#include "error.h"
#include "result.h"

struct toml_value;

enum kg_mode
{
  KG_MODE_CHECK, /* kata-guard check */
  KG_MODE_SHIM,  /* containerd shim v2 start */
  KG_MODE_OCI,   /* runc-style create/run */
};

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
};
void engine_ns_gather (struct engine_ns *e); /* policy.c */
/* The /proc/PID/ns name of namespace K (0 .. KG_NS_COUNT-1: net, pid,
   ipc, uts), or NULL. */
const char *engine_ns_proc_name (int k); /* policy.c */

/* What the entry point learned from argv, the environment and stdin. */
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
  /* readlink of /proc/PID/exe (an OCI hook's program, as Docker writes
     it) into BUF; returns the length, or -1 with errno.  Reading another
     process's exe takes privilege, so the confined checker asks its
     parent; NULL: readlink in place. */
  ssize_t (*proc_exe) (unsigned long pid, char *buf, size_t size);
  /* stat(2) of /proc/PID/ns/<engine_ns_proc_name (K)> into *ST; 0, or -1
     with errno.  A process's namespaces can be opened only by one whose
     capabilities cover its own (ptrace access mode): the confined
     checker asks its parent; NULL: stat in place. */
  int (*ns_stat) (unsigned long pid, int k, struct stat *st);
  /* netns_gather (netns.h) of process PID's network namespace (PATH
     NULL) or of PATH: entering it takes privilege, so the confined
     checker asks its parent; NULL: netns_gather in place.  0, or -1 with
     errno. */
  int (*netns_facts) (unsigned long pid, const char *path, const struct netns_probe *probe,
                      struct netns_facts *out);
  /* storage_pool_status_read (storage.h) of the thin pool that the guard
     config's [storage] containerd_config names, into BUF: device-mapper
     answers only CAP_SYS_ADMIN, so the confined checker asks its parent,
     which reads the pool's name itself; NULL: read in place. */
  int (*pool_status) (char *buf, size_t size, kg_error_t *err);
};

/* The Kata configuration as Kata itself would load it (kata.c), shared
   with the families that need its values (assets, policy). */
/* Which of Kata's two runtimes reads the configuration: the Go shim
   (src/runtime) or the Rust one (src/runtime-rs), whose search order,
   precedence, drop-in merging, annotations and VM sizing differ. */
enum kata_runtime
{
  KATA_RUNTIME_GO,
  KATA_RUNTIME_RS,
};

struct kata_config
{
  struct toml_value *doc;              /* the merged document */
  const char *hypervisor_name;         /* NAME of the one [hypervisor.NAME] */
  const struct toml_value *hypervisor; /* that table */
  enum kata_runtime runtime;           /* the runtime that reads it (kata.c) */
};

/* Which engine started this container, as the engine told the guard
   (its arguments, the bundle's place in its state), never as the spec
   says (kata-guard(8), THREAT MODEL). */
enum engine
{
  ENGINE_UNKNOWN,    /* no engine the guard can tell */
  ENGINE_CONTAINERD, /* a containerd namespace, neither CRI's nor Docker's */
  ENGINE_CRI,        /* a namespace of [policy] cri_namespaces, started as a shim */
  ENGINE_DOCKER,     /* Docker's containerd namespace */
  ENGINE_PODMAN,     /* podman's bundle, <podman root>/<driver>-containers/<id>/userdata */
  ENGINE_CRIO,       /* the same bundle, whose storage record is CRI-O's (it names a pod) */
};

/* One run of the checks. */
struct preflight
{
  /* What the run is about; every family reads these. */
  const struct request *req;
  const struct guard_config *cfg;
  struct report *rep;
  /* What one family hands on.  check_families (checks.c) runs the kata
     family before assets and policy, which read from_kata; from_assets
     and from_kata.runtime_fd are read only after the whole run, by the
     checker's parent and the wrapper.  Each is written by the family it
     is named after, and by nothing else. */
  struct
  {
    /* The configuration as Kata would load it, when it loaded and has
       exactly one hypervisor table; NULL otherwise (assets and policy
       then report "not run"). */
    struct kata_config *config;
    /* The real runtime for this mode, as an O_PATH descriptor of the
       file that passed kata.runtime; -1 until then.  The wrapper
       executes this descriptor, never the path again. */
    int runtime_fd;
  } from_kata;
  struct
  {
    /* Which engine started the container (policy-identity.c's who_resolve), for
       the families after it (storage); ENGINE_UNKNOWN without a bundle. */
    enum engine engine;
  } from_policy;
  struct
  {
    /* The digest cache to write, or NULL.  The confined checker cannot
       write files: its parent writes this with assets_cache_write after
       it accepted the report. */
    char *cache;
    size_t cache_len;
  } from_assets;
};

/* assets.c: the digest cache the confined checker sent (BUF,
   NUL-terminated at LEN), as untrusted input: refused unless it is a
   valid cache, and then only the entries the parent stands behind are
   kept in *OUT (a cache text, *OUT_LEN bytes; *DROPPED: how many were
   not): an entry the cache on disk already holds, or the key of a file
   CFG pins that the parent reaches by the trusted-path walk and finds
   immutable, with the digest of the parent's own hash of it.  Nothing
   else can make a later start skip a hash. */
int assets_cache_vet (const struct guard_config *cfg, const char *buf, size_t len, char **out,
                      size_t *out_len, size_t *dropped, kg_error_t *err);
/* Write the digest cache (root's, under /run/kata-guard): what
   assets_cache_vet keeps of BUF. */
int assets_cache_write (const struct guard_config *cfg, const char *buf, size_t len,
                        kg_error_t *err);

typedef void (*check_fn) (struct preflight *pf);

struct check_family
{
  const char *name; /* the id prefix: "kvm" for kvm.* */
  check_fn run;
};

/* Every family, in the order they run. */
extern const struct check_family check_families[];
extern const size_t n_check_families;

void preflight_init (struct preflight *pf, const struct request *req,
                     const struct guard_config *cfg, struct report *rep);
/* Run every family. */
void preflight_run (struct preflight *pf);
void preflight_release (struct preflight *pf);

/* The families. */
void check_kvm (struct preflight *pf);     /* kvm.c */
void check_kata (struct preflight *pf);    /* kata.c */
void check_assets (struct preflight *pf);  /* assets.c */
void check_egress (struct preflight *pf);  /* egress.c */
void check_drift (struct preflight *pf);   /* drift.c: against `kata-guard validate` */
void check_policy (struct preflight *pf);  /* policy-rules.c: per container, needs req->bundle */
void check_storage (struct preflight *pf); /* storage.c: the engine's snapshotter, the thin pool */
void check_docker (struct preflight *pf);  /* docker.c: docker.*, `kata-guard check` only */

/* Whether a containerd runtime type (io.containerd.NAME.vN, whose shim
   containerd-shim-NAME-vN is found as the engines find it, or an absolute
   path) runs kata-guard: io.containerd.kata-guard.v2, or a file that is
   the running kata-guard (docker.c, which judges daemon.json's runtimeType
   the same way). */
bool runtime_type_is_guard (const char *runtime_type);

#endif
