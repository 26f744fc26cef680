/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * /run/kata-guard: root's private state, kept on tmpfs (gone at boot).
 * Fixed on purpose: nothing may point the guard at another directory.
 * It holds the SHA-256 digest cache (assets.c) and, under runtimes/, which
 * runtime created each container (shim/record.c).  Every directory and
 * file there must be root's alone (no group or other bits at all), and
 * /run a trusted path; anything else is neither read nor written.
 */
#ifndef KG_RUNDIR_H
#define KG_RUNDIR_H

#include <stdbool.h>
#include <stddef.h>

#include "error.h"

#define RUNDIR "/run/kata-guard"

/* RUNDIR, or RUNDIR/SUB (one name, no '/') when SUB is not NULL, as an
   O_RDONLY|O_DIRECTORY descriptor.  CREATE: make what is missing, 0700.
   Returns -1 with *ERR set ((*err)->errnum ENOENT when it is missing). */
int rundir_open (const char *sub, bool create, kg_error_t *err);

/* Replace NAME in the directory DIR (from rundir_open; SHOWN is its path
   for messages) with LEN bytes of BUF, root's, mode 0600, by the guard's
   writer (writer.h, WRITER_VOLATILE): a temporary file, then rename, so a reader sees the old file or the new one, never half of
   one.  Nothing is fsync'd: RUNDIR holds nothing a crash must keep (it
   is tmpfs on a booted host, gone at boot; where it is not, every reader
   treats a file from before this boot as gone), and a start must not
   wait for a disk. */
int rundir_write (int dir, const char *shown, const char *name, const void *buf, size_t len,
                  kg_error_t *err);

/* Read NAME in DIR when it is a regular file owned by root with no group
   or other bits, of at most MAX bytes: *BUF (NUL-terminated), *LEN.
   -1 with *ERR ((*err)->errnum ENOENT when it does not exist). */
int rundir_read (int dir, const char *shown, const char *name, size_t max, char **buf, size_t *len,
                 kg_error_t *err);

#endif
