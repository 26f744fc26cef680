/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The trusted-path test (kata-guard(8), CHECKS): a file and every directory from "/" down
 * to it, after resolving symlinks, are owned by root and not writable by
 * group or others.  The sticky bit does not make a directory trusted (as
 * OpenSSH's StrictModes).  Every symlink met on the way must be owned by
 * root, and lives in a directory that passed the same test.
 *
 * The walk opens one component at a time with O_PATH|O_NOFOLLOW relative to
 * the directory already checked, so no component can be swapped behind the
 * check, and the caller gets a descriptor of the very file that passed.
 *
 * One of the guard's two path resolvers.  This one answers "may the guard
 * (or a runtime it hands the path to) rely on this host file": a path
 * the guard itself opens, reads or executes (its configuration, Kata's,
 * the boot assets, the runtime binary), or one only root may redirect (a
 * bind source's directories, policy-mounts.c's redirectable_as).  It
 * must exist, is judged by owner and mode at every step, and is held
 * open.  policy.c's resolve_path is the other: what a path in a
 * container's spec names, as the runtime will follow it when it mounts
 * (relative to the bundle, a missing tail taken as written because the
 * engine creates it, nobody's ownership judged), for the rules to compare
 * with their lists; it opens nothing, so what it resolves is trusted only
 * where this walk (redirectable_as) also passed it.
 */
#ifndef KG_TRUST_H
#define KG_TRUST_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

#include "error.h"

#define TRUST_MAX_SYMLINKS 40

enum trust_final
{
  TRUST_EXEC,    /* regular file, root-owned, not group/other-writable, executable */
  TRUST_FILE,    /* regular file, root-owned, not group/other-writable */
  TRUST_REGULAR, /* regular file, any owner and mode (the path above it still trusted) */
  TRUST_DIR,     /* directory, root-owned, not group/other-writable */
  TRUST_ANY,     /* anything, any owner and mode (only the path to it trusted): nobody
                     but root can put another object under that name */
};

struct trust_info
{
  char path[PATH_MAX]; /* the physical path of the final object */
  struct stat st;      /* its stat */
  unsigned symlinks;   /* symlinks followed on the way */
};

/* Walk PATH (absolute).  Returns an O_PATH|O_CLOEXEC descriptor of the
   final object, or -1 with *ERR naming the component that failed and why
   ((*err)->errnum is the errno when a system call failed, e.g. ENOENT). */
int trust_open (const char *path, enum trust_final final, struct trust_info *info, kg_error_t *err);

/* Between these two, trust_open remembers the trusted directories its
   walks reach and starts a later walk from the deepest one its path
   leads through (the confined checker's one run: nothing but root can
   change what such a path leads to, and root is trusted).  Outside them
   every walk starts at "/", as the unit tests, which change directories
   between walks, need. */
void trust_memo_start (void);
void trust_memo_end (void);

/* Open the object behind the O_PATH descriptor FD with FLAGS (O_CLOEXEC is
   added), making sure it is still the same inode as ST. */
int trust_reopen (int fd, int flags, const struct stat *st, kg_error_t *err);

/* Fail when ST is the running program itself (by inode, so after every
   symlink and hard link): kata-guard executing itself would loop for ever.
   (*err)->errnum is 0 for that, an errno when /proc/self/exe cannot be
   read. */
int trust_check_not_self (const struct stat *st, kg_error_t *err);

/* Whether ST (a directory or file) would pass as trusted: root-owned and not
   writable by group or others.  On failure WHY (at least 96 bytes) says why. */
bool trust_stat_ok (const struct stat *st, char *why, size_t why_size);

#endif
