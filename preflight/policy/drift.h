/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Drift (kata-guard(8), DRIFT): what a validated sandbox is made of (its
 * posture: the runtime, the Kata configuration and its drop-ins, the
 * hypervisor, jailer and boot assets, the guard configuration, the
 * engines, the egress proxy), recorded by `kata-guard validate`, and
 * compared with the host at each start: with [drift] lock, a host that
 * changed since it was validated refuses until it is validated again.
 */
#ifndef KG_DRIFT_H
#define KG_DRIFT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "rundir.h"
#include "sha256.h"

struct preflight;

/* The record's "format": a record of another format refuses. */
#define DRIFT_FORMAT "kata-guard posture 1"
/* The most a record may hold. */
#define DRIFT_RECORD_MAX (1u << 20)

/* An engine binary the validation found, with what it said of its version. */
struct drift_engine
{
  const char *name;    /* "containerd", "dockerd", ... */
  const char *path;    /* absolute */
  const char *version; /* its --version line, or NULL */
};

/* The engines the posture holds: DRIFT_ENGINES names, each at the first
   directory of the fixed PATH (DRIFT_ENGINE_PATH) where it is executable,
   as validate records it and as drift.posture looks for it again at each
   start (an engine installed earlier on that PATH since is drift). */
#define DRIFT_ENGINE_PATH "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
#define DRIFT_ENGINES 4
extern const char *const drift_engine_names[DRIFT_ENGINES];

/* The path of engine I (into PATH, SIZE bytes): true, or false when no
   directory of the fixed PATH holds it. */
bool drift_engine_find (size_t i, char *path, size_t size);

/* What `kata-guard validate` records besides the files. */
/* What `kata-guard validate --prove` adds to the record: the prove call
   (its arguments), when it ran, and each probe's id and verdict. */
struct drift_proof
{
  const char *call;
  int64_t epoch;
  bool pass;                   /* every probe passed */
  const char *const *ids;      /* prove.kernel, ... */
  const char *const *verdicts; /* "pass", "fail", ... */
  size_t n;
};

struct drift_meta
{
  const struct drift_proof *proof; /* NULL: validate without --prove */
  const char *note;                /* --note, or NULL */
  const char *proxy_denied;        /* egress.denies's pass reason */
  const struct drift_engine *engines;
  size_t n_engines;
  /* What the real runtimes say of their version (a shim's -v, an OCI
     runtime's --version), or NULL. */
  const char *shim_version, *oci_version;
};

/* The posture of this host, every file hashed, as the record's JSON
   text into *OUT.  PF has run the kata family (its configuration and the
   files it read in PF's report).  -1 with *ERR when a file of it cannot
   be read. */
int posture_text (struct preflight *pf, const struct drift_meta *meta, char **out, kg_error_t *err);

/* The epoch of the record at PATH, when it is one drift.posture accepts
   (a trusted path, root's alone, no link, strict JSON of this format and
   version): 0, or -1 with *ERR. */
int posture_epoch (const char *path, int64_t *epoch, int64_t *proven, kg_error_t *err);

/* Whether records A and B (posture_text's) hold the same files, each
   with the same digest and stat key, and the same proxy. */
bool posture_same (const char *a, const char *b);

/* The window of `kata-guard prove` (kata-guard(8), PROVE): the one
   canary a prove run started, told from every other start.  prove writes,
   under its lock, root's alone (0600, directory 0700, where no container
   is given anything), once the engine has given the canary its id,
   DRIFT_WINDOW:
     {"format": DRIFT_WINDOW_FORMAT, "id": the canary's container id
      ("" for a CRI pod: its ids are given after it starts),
      "pod_uid_sha256": for a CRI pod, SHA-256 of the uid prove gave it
      (containerd's CRI annotates the sandbox and each container with it:
      io.kubernetes.cri.sandbox-uid), else null,
      "token_sha256": SHA-256 of the canary's DRIFT_TOKEN_ENV value,
      "net_admin": whether the canary may hold CAP_NET_ADMIN,
      "record_sha256": SHA-256 of the candidate's bytes, or null,
      "expires": epoch seconds}
   The token (128 random bits) reaches the canary's environment from the
   engine client's own (docker/podman -e NAME; ctr --env-file and CRI's
   container config in the run's directory), never an argv.  A start is
   the canary only while the window has not expired and when its id is
   the window's and its config.json's process.env holds the token exactly
   once; or, for a CRI pod, when its pod uid is the window's and it holds
   the token (the container) or is the pod's own sandbox (its type
   sandbox, its sandbox id its own).  The canary alone may then hold CAP_NET_ADMIN beyond [policy]
   capabilities (net_admin: prove.forward routes as a guest's kernel
   can), and under `kata-guard validate --prove` (record_sha256 set) it is
   judged against the posture that run is about to record
   (DRIFT_CANDIDATE) instead of the old record, with [drift] require_proof
   waived for it alone.  Both files are removed when the canary ends. */
#define DRIFT_WINDOW RUNDIR "/prove/window"
#define DRIFT_CANDIDATE RUNDIR "/prove/candidate.json"
#define DRIFT_WINDOW_FORMAT "kata-guard prove window 2"
#define DRIFT_TOKEN_ENV "KATA_GUARD_PROVE_TOKEN"

struct request;
struct jv;

/* What the window grants the start REQ (its spec SPEC, or NULL: read
   from REQ's bundle) when it is the canary: true with *W filled. */
struct prove_window
{
  bool net_admin;                  /* CAP_NET_ADMIN beyond [policy] capabilities */
  char record[SHA256_HEX_LEN + 1]; /* the candidate's digest, "" when none */
};
bool prove_window_match (const struct request *req, struct jv *spec, struct prove_window *w);

#endif
