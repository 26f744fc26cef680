/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The checks.  A check family is one function that appends results with
 * stable ids to the report; it never prints, exits or execs, and it turns
 * every error it meets into a "fail" result (a check that cannot reach a
 * verdict fails).  What the run is about comes in struct request
 * (request.h); the families' own exports have their own headers (kata.h,
 * assets.h, docker.h, policy.h, storage.h, egress.h, drift.h).
 */
#ifndef KG_CHECKS_H
#define KG_CHECKS_H

#include "conf.h"
#include "engine.h"
#include "nspin.h"
#include "result.h"

struct jv;
struct kata_config;
struct request;

/* One run of the checks. */
struct preflight
{
  /* What the run is about; every family reads these. */
  const struct request *req;
  const struct guard_config *cfg;
  struct report *rep;
  /* What one family hands on.  check_families (preflight.c) runs the kata
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
    /* Which engine started the container (policy-facts.c's who_resolve), for
       the families after it (storage); ENGINE_UNKNOWN without a bundle. */
    enum engine engine;
    /* config.json as the rules read it, kept until preflight_release
       (nothing reads it after the family). */
    struct jv *spec;
  } from_policy;
  struct
  {
    /* The digest cache to write, or NULL.  The confined checker cannot
       write files: its parent writes this with assets_cache_write after
       it accepted the report. */
    char *cache;
    size_t cache_len;
  } from_assets;
  /* Each namespace the checker's parent answered about by a process
     (/proc/PID/ns/NAME), pinned (nspin.h): checked again right before the
     runtime is executed.  Written by checker_run alone. */
  struct ns_pins pins;
};

typedef void (*check_fn) (struct preflight *pf);

struct check_family
{
  const char *name; /* the id prefix: "kvm" for kvm.* */
  check_fn run;
  /* Frees what the family hands on (its from_NAME), in the family's own
     unit: release_NAME, or NULL for a family that hands on nothing.
     preflight_release calls each, so that preflight.c knows no family's
     fields. */
  check_fn release;
};

/* Every family, in the order they run: NAME is check_NAME (struct
   preflight *), in NAME.c, and reports NAME.* ids (kvm, kata, assets,
   egress, drift: against `kata-guard validate`; policy: per container,
   policy-default.c, needs req->bundle; storage: the engine's snapshotter
   and the thin pool; docker, cri: `kata-guard check` only).  RELEASE is
   own when the family hands something on in struct preflight: then its
   unit has release_NAME (struct preflight *) too (kata.c, assets.c,
   policy-release.c), else none.  preflight.c makes the table of it.  Adding
   a family takes three places: its unit with check_NAME, its row here,
   the unit in Makefile.am. */
#define KG_FAMILIES(X)                                                                             \
  X (kvm, none)                                                                                    \
  X (kata, own)                                                                                    \
  X (assets, own)                                                                                  \
  X (egress, none)                                                                                 \
  X (drift, none)                                                                                  \
  X (policy, own)                                                                                  \
  X (storage, none)                                                                                \
  X (docker, none)                                                                                 \
  X (cri, none)

#define KG_RELEASE_DECLARE_own(name) void release_##name (struct preflight *pf);
#define KG_RELEASE_DECLARE_none(name)
#define KG_FAMILY_DECLARE(name, release)                                                           \
  void check_##name (struct preflight *pf);                                                        \
  KG_RELEASE_DECLARE_##release (name)
KG_FAMILIES (KG_FAMILY_DECLARE)
#undef KG_FAMILY_DECLARE
#undef KG_RELEASE_DECLARE_own
#undef KG_RELEASE_DECLARE_none

#endif
