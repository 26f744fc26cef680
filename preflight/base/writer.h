/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The one way kata-guard writes a file of its own (kata-guard(8), FILES):
 * the node labels (check --nfd), the metrics (check --output), the
 * posture record, the decision log and root's state under /run/kata-guard.
 *
 * Root writes there, so nobody else may steer the write:
 * - the file's directory is reached by the trusted-path walk (trust.h):
 *   it and every directory above it are root's and writable by nobody
 *   else (no exception for the sticky bit, as OpenSSH's safe_path), and a
 *   symlink on the way is followed only when it is root's, in such a
 *   directory; anything else is refused before a byte is written;
 * - the file's own name is never followed: a symlink, a FIFO or a
 *   directory there is refused;
 * - a new file is made under a fresh name with O_EXCL in that directory's
 *   descriptor, given owner root:root and a fixed mode, fsync'd and
 *   renamed over the name (renameat): an existing file's owner and mode
 *   are never kept.
 */
#ifndef KG_WRITER_H
#define KG_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "error.h"

/* Read by other programs as another user (NFD's worker, node_exporter). */
#define WRITER_PUBLIC 0644
/* Root's records: the posture record, the decision log, /run/kata-guard. */
#define WRITER_PRIVATE 0600

/* Directories the writer makes for them. */
#define WRITER_DIR_PUBLIC 0755
#define WRITER_DIR_PRIVATE 0700

/* Temporary files are ".NAME" WRITER_TEMP_INFIX "XXXXXX" beside NAME. */
#define WRITER_TEMP_INFIX ".kata-guard."

enum writer_flags
{
  /* Neither the file nor the directory is fsync'd, and the directory is
     not locked or swept of a killed writer's temporary files: tmpfs
     state that a start writes (rundir.h). */
  WRITER_VOLATILE = 1 << 0,
};

/* The directory of PATH (absolute) by the trusted-path walk, as an
   O_RDONLY|O_DIRECTORY descriptor; *NAME (caller frees) is PATH's last
   component.  MKDIR_MODE, when not 0: the directories that are missing
   are made, root's with that mode, each in its parent once the walk
   found that trusted (mkdir -p, never through what the walk refuses).  -1 with
   *ERR naming what was refused. */
int writer_open_dir (const char *path, mode_t mkdir_mode, char **name, kg_error_t *err);

/* Replace NAME in the trusted directory DIR (SHOWN: its path, for
   messages) with LEN bytes of BUF: root's, MODE.  Unless
   WRITER_VOLATILE, the directory is locked (flock) meanwhile and a killed
   writer's temporary files for NAME are removed first. */
int writer_replace_at (int dir, const char *shown, const char *name, const void *buf, size_t len,
                       mode_t mode, unsigned flags, kg_error_t *err);

/* writer_open_dir and writer_replace_at in one. */
int writer_replace (const char *path, const void *buf, size_t len, mode_t mode, mode_t mkdir_mode,
                    kg_error_t *err);

/* Append LEN bytes of BUF to PATH (a log) in one write: the directory as
   writer_open_dir; a missing file is made root's with MODE; an existing
   one must be a regular file of root's that no group or other can write
   (it cannot be replaced, so it is refused rather than written). */
int writer_append (const char *path, const void *buf, size_t len, mode_t mode, kg_error_t *err);

/* The write of writer_append to the open FD (PATH for messages): a
   regular file (and with ROOTS one of root's that no group or other can
   write), LEN bytes of BUF in a single write (). */
int writer_append_fd (int fd, const char *path, const void *buf, size_t len, bool roots,
                      kg_error_t *err);

/* For register/replace.c, which writes the engines' own configuration
   files the same way but keeps their owner and mode: */
/* A new temporary file beside NAME in DIR holding BUF, given UID:GID and
   MODE (owner first: chown clears set-id bits), fsync'd unless VOLATILE;
   its name in TMP.  -1 with *ERR, nothing left behind. */
int writer_temp (int dir, const char *shown, const char *name, const void *buf, size_t len,
                 uid_t uid, gid_t gid, mode_t mode, unsigned flags, char tmp[], kg_error_t *err);
/* Remove the temporary files for NAME that a killed writer left in DIR
   (the caller holds DIR's lock).  Returns how many, or -1 with *ERR. */
int writer_sweep (int dir, const char *shown, const char *name, kg_error_t *err);

#endif
