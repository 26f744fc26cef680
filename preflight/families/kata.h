/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * kata.*: the real runtime and the Kata configuration it will load.
 * check_kata () is the family (checks.h); what is here is exposed for the
 * tests.
 */
#ifndef KG_KATA_H
#define KG_KATA_H

#include <limits.h>

#include "conf.h"
#include "toml.h"

/* Which of Kata's two runtimes reads the configuration: the Go shim
   (src/runtime) or the Rust one (src/runtime-rs), whose search order,
   precedence, drop-in merging, annotations and VM sizing differ. */
enum kata_runtime
{
  KATA_RUNTIME_GO,
  KATA_RUNTIME_RS,
};

/* The Kata configuration as Kata itself would load it (kata.c), shared
   with the families that need its values (assets, policy, storage). */
struct kata_config
{
  struct toml_value *doc;              /* the merged document */
  const char *hypervisor_name;         /* NAME of the one [hypervisor.NAME] */
  const struct toml_value *hypervisor; /* that table */
  enum kata_runtime runtime;           /* the runtime that reads it (kata.c) */
  /* The file whose settings win: the last config.d drop-in Kata merges,
     else the configuration itself (after its symlinks).  What a remedy
     tells the operator to edit. */
  char last_file[PATH_MAX];
  /* The configuration itself, after its symlinks: the file an engine's
     ConfigPath must name (cri.handler). */
  char file[PATH_MAX];
};

/* Where each runtime keeps a sandbox's state, by its id alone (Go:
   persist/fs RunStoragePath, runtime-rs: kata-types KATA_PATH). */
#define KATA_GO_SANDBOX_STATE "/run/vc/sbs"
#define KATA_RS_SANDBOX_STATE "/run/kata"

/* Which runtime reads the Kata configuration when [runtime] resolves to
   the file REAL: the one [kata] runtime names, or for "auto" the one whose
   kata-deploy path REAL has (runtime-rs's .../runtime-rs/bin/, else the
   Go shim).  kata.runtime decides so; `check --nfd` labels it. */
enum kata_runtime kata_runtime_of (const struct guard_config *cfg, const char *real);

/* Where Kata looks when nobody names a configuration, in its order: the
   admin's copy, then the defaults of a release tarball (kata-deploy,
   /opt/kata) and of a distribution package. */
#define KATA_SEARCH_PATH_N 3
extern const char *const kata_search_path[KATA_SEARCH_PATH_N];
/* runtime-rs's own order: /etc, then a distribution package's defaults,
   then a release tarball's (kata-deploy). */
extern const char *const kata_search_path_rs[KATA_SEARCH_PATH_N];

/* The first entry of table T, at any depth, that Kata's TOML decoder may
   read otherwise than the guard (a key not in lower case, a """ string
   with a line-ending backslash, a negative uint64 setting), with why; or
   NULL.  The guard refuses such a file. */
const struct toml_entry *kata_unreadable_entry (const struct toml_value *t, const char **why);

/* Whether the guest kernel command line PARAMS (kernel_params, in the
   configuration or in the annotation) opens the guest: the debug console
   (agent.debug_console...), another init (init=, rdinit=), or bytes past
   printable ASCII, space and tab, which Kata's Go shim (strings.Fields:
   every Unicode space), the guest kernel (isspace, which takes byte 0xa0;
   double quotes group words) and the agent (ASCII white space, quotes
   kept) would split differently.  Returns one of KATA_PARAMS_*, with the
   word or the byte described in WHY. */
enum
{
  KATA_PARAMS_OK,
  KATA_PARAMS_CONSOLE,
  KATA_PARAMS_INIT,
  KATA_PARAMS_UNCLEAR,
};
int kata_kernel_params_judge (const char *params, char *why, size_t size);

/* Whether Kata applies the hypervisor annotation BARE (the name after
   io.katacontainers.config.hypervisor.) under the configuration's
   enable_annotations: 1 yes, 0 no, -1 cannot tell. */
int kata_annotation_enabled (const struct kata_config *k, const char *bare);

#endif
