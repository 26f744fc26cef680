/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Which runtime created a container, in OCI runtime mode: written at every
 * allowed create or run, just before the real runtime is executed, and
 * read by every call that passes through for that container (kill,
 * delete, state, exec, ...), so that teardown reaches the runtime that
 * created the container even when the guard configuration is later
 * missing, broken or changed.  One small file per container in
 * RUNDIR/runtimes (rundir.h), named by the SHA-256 of (mode, scope, id)
 * and holding all three: a caller who picks ids cannot make two names
 * meet, and every reader compares the identity inside with the one it
 * expects, so a record of another container is never followed, replaced
 * or removed.  The scope is runc's --root.  A successful delete removes it.  (Shim mode
 * needs none: after start, containerd talks to the shim it started.)
 */
#ifndef KG_RECORD_H
#define KG_RECORD_H

#include <stdbool.h>

#include "error.h"
#include "mode.h"

#define RECORD_SUB "runtimes"

/* Remember that RUNTIME (an absolute path) runs container ID of SCOPE
   (NULL: the runtime's default root).  ERR may be NULL. */
int record_write (enum kg_mode mode, const char *scope, const char *id, const char *runtime,
                  kg_error_t *err);

/* The runtime recorded for ID in SCOPE, or NULL (*ERR says why when the
   record exists but cannot be believed; NULL *ERR: there is none). */
char *record_read (enum kg_mode mode, const char *scope, const char *id, kg_error_t *err);

/* Forget ID in SCOPE; a missing record is not an error.  ERR may be
   NULL. */
int record_remove (enum kg_mode mode, const char *scope, const char *id, kg_error_t *err);

/* A record's file name: "oci-" or "shim-" and 64 hex digits, the SHA-256
   of the mode, the scope and the id with a NUL after each. */
#define RECORD_NAME_SIZE 72
void record_name (enum kg_mode mode, const char *scope, const char *id,
                  char name[RECORD_NAME_SIZE]);
/* The name the guard gave the same record before SHA-256 names ("oci-" or "shim-" and
   the 16 hex digits of a 64-bit FNV-1a): read and removed, never written,
   so that containers started before an upgrade stay counted and reach
   their runtime. */
void record_name_legacy (enum kg_mode mode, const char *scope, const char *id,
                         char name[RECORD_NAME_SIZE]);
/* NAME is one of the two ("shim-" or "oci-" and 64 or 16 hex digits). */
bool record_name_valid (const char *name);
/* Whether the record of MODE, SCOPE (NULL as "") and ID is this one. */
bool record_identity_is (const char *mode_word, const char *scope_field, const char *id_field,
                         enum kg_mode mode, const char *scope, const char *id);
/* The mode as a record names it: "oci" or "shim". */
const char *record_mode_word (enum kg_mode mode);

#endif
