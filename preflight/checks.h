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

struct toml_value;

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

/* The Kata configuration as Kata itself would load it (kata.c), shared
   with the families that need its values (assets, policy). */
struct kata_config
{
  struct toml_value *doc;               /* the merged document */
  const char *hypervisor_name;          /* NAME of the one [hypervisor.NAME] */
  const struct toml_value *hypervisor;  /* that table */
};

/* One run of the checks. */
struct preflight
{
  const struct request *req;
  const struct guard_config *cfg;
  struct report *rep;
  /* Set by the kata family when the configuration loaded and has exactly
     one hypervisor table; NULL otherwise (later families then report
     "not run"). */
  struct kata_config *kata;
  /* The real runtime for this mode, as an O_PATH descriptor of the file
     that passed kata.runtime; -1 until then.  The wrapper executes this
     descriptor, never the path again. */
  int runtime_fd;
};

typedef void (*check_fn) (struct preflight *pf);

struct check_family
{
  const char *name;  /* the id prefix: "kvm" for kvm.* */
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
void check_policy (struct preflight *pf);  /* policy.c: per container, needs req->bundle */
void check_audit (struct preflight *pf);   /* audit.c: docker.*, `kata-guard check` only */

#endif
