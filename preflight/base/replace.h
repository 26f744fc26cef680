/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The atomic replacement of a file, as `kata-guard install` / `uninstall`
 * write daemon.json and the containerd drop-in (kata-guard(8), COMMANDS):
 * a reader sees the old bytes or the new ones, never a mix, a crash
 * leaves one or the other, and the file as it was before kata-guard first
 * changed it is kept beside it.
 */
#ifndef KG_REPLACE_H
#define KG_REPLACE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

#include "error.h"
#include "writer.h"

/* Beside the file: the file as it was before kata-guard first changed it. */
#define KG_BACKUP_SUFFIX ".kata-guard.bak"
/* Temporary files are ".BASE" KG_TEMP_INFIX "XXXXXX" in the same directory. */
#define KG_TEMP_INFIX WRITER_TEMP_INFIX

/* A file opened for replacement: its directory is locked (flock) until
   kg_replace_close, so two installers never interleave, and temporary
   files that a killed writer left behind are removed. */
struct kg_replace
{
  char *path; /* the file that will be replaced: symlinks resolved */
  char *base; /* its last component */
  int dirfd;  /* its directory, locked */
  bool exists;
  struct stat st; /* of the existing file */
  char *data;     /* its bytes (NUL-terminated), or NULL */
  size_t len;
  unsigned removed_temps; /* leftovers of a killed writer, removed */
};

/* Open PATH: a symlink is resolved and its target is what gets replaced
   (the link stays); a dangling symlink, a missing directory, anything but
   a regular file and a file over MAX bytes are refused. */
int kg_replace_open (const char *path, size_t max, struct kg_replace *r, kg_error_t *err);
/* Replace the file with DATA: a temporary file in the same directory,
   written, given the old file's owner and mode (new files: 0644), fsync'd,
   renamed over the file, then the directory fsync'd.  With BACKUP, and
   when the file exists and no BASE.kata-guard.bak does, the old bytes are
   first saved there (same way, never overwritten); *BACKUP_PATH is then set
   (caller frees).  On failure the file is unchanged. */
int kg_replace_commit (struct kg_replace *r, const char *data, size_t len, bool backup,
                       char **backup_path, kg_error_t *err);
/* Remove the file (the directory fsync'd). */
int kg_replace_remove (struct kg_replace *r, kg_error_t *err);
void kg_replace_close (struct kg_replace *r);
#define cleanup_replace __attribute__ ((cleanup (kg_replace_close)))

#endif
