/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The checks.  A check family is one function that appends results with
 * stable ids to the report; it never prints, exits or execs, and it turns
 * every error it meets into a "fail" result (a check that cannot reach a
 * verdict fails).
 */
#ifndef KG_CHECKS_H
#define KG_CHECKS_H

#include "conf.h"
#include "result.h"

enum kg_mode
{
  KG_MODE_CHECK,  /* kata-guard check */
  KG_MODE_SHIM,   /* containerd shim v2 start */
  KG_MODE_OCI,    /* runc-style create/run */
};

/* What the entry point learned from argv, the environment and stdin. */
struct request
{
  enum kg_mode mode;
  const char *container_id;  /* NULL for `check` */
  const char *ns;            /* containerd namespace, or NULL */
  const char *bundle;        /* bundle directory, or NULL */
  const char *kata_config;   /* Kata config chosen by the engine (stdin options), or NULL */
};

typedef void (*check_fn) (const struct request *req, const struct guard_config *cfg,
                          struct report *rep);

struct check_family
{
  const char *name;  /* the id prefix: "kvm" for kvm.* */
  check_fn run;
};

/* Every family, in the order they run. */
extern const struct check_family check_families[];
extern const size_t n_check_families;

/* Run every family. */
void preflight_run (const struct request *req, const struct guard_config *cfg,
                    struct report *rep);

/* The families. */
void check_kvm (const struct request *req, const struct guard_config *cfg,
                struct report *rep);

#endif
