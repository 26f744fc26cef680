/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What policy.mounts (policy-mounts.c) lends the other rules: the
   [policy] directories resolved (struct mount_dirs: policy_rules_run
   resolves them once a start; policy.hooks resolves its own list),
   whether a path is under one of them and is this container's own file of
   the kubelet's, and the words of a mount's options (policy.confinement,
   and the differential oracle's view of them) */
#ifndef KG_POLICY_MOUNTS_H
#define KG_POLICY_MOUNTS_H

#include "policy-int.h"

#define cleanup_dir_list __attribute__ ((cleanup (dir_list_release)))
void dir_list_release (struct dir_list *d);
int dir_list_resolve (char *const *list, size_t n, struct dir_list *d, kg_error_t *err);
#define cleanup_mount_dirs __attribute__ ((cleanup (mount_dirs_release)))
void mount_dirs_release (struct mount_dirs *d);
int mount_dirs_resolve (const struct guard_config *cfg, struct mount_dirs *d, kg_error_t *err);

/* P's part below the first of ROOTS it is under, or NULL. */
const char *under_root (const char *p, const struct dir_list *roots);

enum own_file
{
  OWN_NOT,      /* not this container's or pod's */
  OWN_ANY,      /* the engine's file of this container: bound as the engine binds it */
  OWN_READONLY, /* the same, which the engine binds read-only */
};
enum own_file kubelet_file (const struct policy_ctx *c, const char *p,
                            const struct dir_list *roots);

/* The words of a mount's options OPTS that the rules read, in one pass:
   whole strings only ("ro=x" or "nosuid,ro" are not "ro" to every
   runtime).  With F, each option that is no string is a finding of the
   mount of source S. */
enum mount_option_word
{
  OPT_RO = 1 << 0,
  OPT_RW = 1 << 1,
  OPT_RRO = 1 << 2, /* the recursive read-only of runc 1.1 and crun 1.4 */
  OPT_RRW = 1 << 3,
  OPT_BIND = 1 << 4,   /* "bind" or "rbind" */
  OPT_SHARED = 1 << 5, /* "shared" or "rshared" */
  OPT_IDMAP = 1 << 6,  /* "idmap" or "ridmap" */
};
unsigned mount_option_words (struct jv *opts, const char *s, struct policy_findings *f);

#endif
