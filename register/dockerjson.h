/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Docker's daemon.json for registration: the runtime entry edits of
 * `kata-guard install` / `uninstall` (kata-guard(8), COMMANDS), and the
 * stable writer they write with.  The reader is preflight/parse/daemonjson.h.
 *
 * Writing prints the document in one stable form whatever the json-c
 * version: two-space indent, "key": value, {} and [] for empty containers,
 * keys in their original order, numbers as they were written, a final
 * newline.
 */
#ifndef KG_DOCKERJSON_H
#define KG_DOCKERJSON_H

#include <stdbool.h>
#include <stddef.h>

#include "error.h"

struct json_object;

/* Docker's own default runtime. */
#define DAEMONJSON_STOCK_RUNTIME "runc"

/* The document in the stable form above, NUL-terminated; *LEN without it. */
char *daemonjson_format (struct json_object *root, size_t *len, kg_error_t *err);

/* ---- the runtime entry ------------------------------------------------------ */

enum dj_status
{
  DJ_DONE,         /* changed, or nothing to change */
  DJ_REFUSED,      /* bad file, conflict: the file is untouched */
  DJ_WRITE_FAILED, /* the write failed: the file is unchanged */
};

struct dj_edit
{
  /* In. */
  const char *path;
  const char *name;                /* the runtime name: runtimes.NAME */
  struct json_object *entry;       /* install: the entry to write */
  struct json_object *const *ours; /* uninstall: the entries install writes */
  size_t n_ours;
  bool set_default; /* install: also default-runtime = NAME */
  bool force;       /* replace (or remove) a differing entry */
  bool dry_run;     /* compute the result, write nothing */
  /* uninstall: default-runtime's value instead of "runc" when it is
     "runc" or names a runtime of the file; NULL: "runc". */
  const char *restore_default;
  /* Out. */
  enum dj_status status;
  bool changed;
  bool existed; /* the file existed */
  char *target; /* the file (symlinks resolved) */
  char *backup; /* the backup this run made, or NULL */
  char *result; /* the resulting bytes (the old ones when unchanged) */
  size_t result_len;
  char *old_default;       /* install: the default-runtime that was replaced */
  bool default_removed;    /* uninstall: default-runtime named NAME, now new_default */
  const char *new_default; /* uninstall: "runc" or restore_default */
  bool entry_removed;      /* uninstall: runtimes.NAME is gone */
  unsigned removed_temps;
};

/* runtimes.NAME = ENTRY (and default-runtime = NAME), keeping everything
   else.  An equal entry is no change: the file is not written at all. */
int daemonjson_install (struct dj_edit *e, kg_error_t *err);
/* Remove runtimes.NAME when it is one of OURS (any entry with --force),
   and set default-runtime back to RESTORE_DEFAULT (else "runc") when it
   names NAME.  Neither key
   is removed: dockerd's reload (SIGHUP) keeps the old value of a key that
   is no longer in the file, so only a present "runtimes" (even {}) and
   "default-runtime" make a reload drop the guard. */
int daemonjson_uninstall (struct dj_edit *e, kg_error_t *err);
void dj_edit_release (struct dj_edit *e);
#define cleanup_dj_edit __attribute__ ((cleanup (dj_edit_release)))

/* Whether NAME is acceptable as a Docker runtime name here:
   [A-Za-z0-9][A-Za-z0-9_.-]*, at most 64 bytes. */
bool daemonjson_valid_name (const char *name);

#endif
