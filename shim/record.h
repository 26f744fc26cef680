/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Which runtime created a container, in OCI runtime mode: written at every
 * allowed create or run, just before the real runtime is executed, and
 * read by every call that passes through for that container (kill,
 * delete, state, exec, ...), so that teardown reaches the runtime that
 * created the container even when the guard configuration is later
 * missing, broken or changed.  One small file per container in
 * RUNDIR/runtimes (rundir.h), named by a hash of (mode, scope, id) and
 * holding all three, so that a collision is seen and never followed; the
 * scope is runc's --root.  A successful delete removes it.  (Shim mode
 * needs none: after start, containerd talks to the shim it started.)
 */
#ifndef KG_RECORD_H
#define KG_RECORD_H

#include "checks.h"
#include "error.h"

#define RECORD_SUB "runtimes"

/* Remember that RUNTIME (an absolute path) runs container ID of SCOPE
   (NULL: the runtime's default root). */
int record_write (enum kg_mode mode, const char *scope, const char *id, const char *runtime,
                  kg_error_t *err);

/* The runtime recorded for ID in SCOPE, or NULL (*ERR says why when the
   record exists but cannot be believed; NULL *ERR: there is none). */
char *record_read (enum kg_mode mode, const char *scope, const char *id, kg_error_t *err);

/* Forget ID in SCOPE; a missing record is not an error. */
int record_remove (enum kg_mode mode, const char *scope, const char *id, kg_error_t *err);

/* The file name of a record (exposed for the tests): "oci-" or "shim-"
   and 16 hex digits. */
void record_name (enum kg_mode mode, const char *scope, const char *id, char name[32]);
/* NAME is one record_name makes ("shim-" or "oci-" and 16 hex digits). */
bool record_name_valid (const char *name);
/* The mode as a record names it: "oci" or "shim". */
const char *record_mode_word (enum kg_mode mode);

#endif
