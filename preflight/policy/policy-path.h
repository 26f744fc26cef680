/* SPDX-License-Identifier: GPL-2.0-or-later */
/* policy.c's path resolver, with a memo of the last directory, for
   the bind sources of one spec (policy.mounts, policy-mounts.c).
   Private to the two */
#ifndef KG_POLICY_PATH_H
#define KG_POLICY_PATH_H

#include <stdbool.h>
#include <sys/stat.h>

#include "error.h"

/* What a resolution with FOLLOW learned of its result: EXISTS when every
   component exists; then, with HAVE_ST, ST is the last component's lstat
   (the result holds no symlink, so it is its stat too). */
struct resolved_info
{
  bool exists;
  bool have_st; /* st: the resolved path's lstat, not a symlink */
  bool absent;  /* the resolved path's own lstat failed with ENOENT */
  struct stat st;
};

/* The bind sources of one spec mostly share their directory (Docker's
   per-container files, a volume's files): resolve_path with FOLLOW through
   a memo of the last directory resolved, so that each source costs one
   lstat of its own name.  Anything but a plain last name, a last name
   that is a symlink, or a directory that does not resolve goes the whole
   way, so results and messages are resolve_path's. */
struct resolve_memo
{
  char *dir;      /* the directory as written, absolute */
  char *resolved; /* resolve_path of it */
  bool exists;    /* every component of it exists */
  /* RESOLVED opened O_PATH, where it could be: a source's lstat is then
     of one name in it, not a walk from the root again. */
  bool have_fd;
  int fd;
};

#define cleanup_resolve_memo __attribute__ ((cleanup (resolve_memo_release)))

int resolve_memo (struct resolve_memo *m, const char *base, const char *path, char **out,
                  struct resolved_info *ri, kg_error_t *err);
void resolve_memo_release (struct resolve_memo *m);

#endif
