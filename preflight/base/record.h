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
#include <stddef.h>
#include <stdint.h>

#include "buf.h"
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

/*
 * The record-line format, of every record file under RUNDIR (the runtime
 * records here, the capacity records of capacity.h): a first line that
 * names the format and its version (its magic), then one field a line,
 * each line ending in a newline, and nothing after the last; no NUL byte
 * anywhere.  A number is decimal digits alone (no sign, space or other
 * text), several on one line one space apart.  One writer and one reader,
 * for both kinds: neither can write a field the other would split, nor
 * read a text the other refuses.
 */
struct record_out
{
  struct kg_buf b;
  bool bad; /* a field was NULL or held a newline */
};
/* Start a record of the format MAGIC in O. */
void record_out_start (struct record_out *o, const char *magic);
/* FIELD as the next line (a NULL field, or one with a newline, makes the
   record one record_out_end refuses). */
void record_put (struct record_out *o, const char *field);
/* The N numbers V as the next line. */
void record_put_numbers (struct record_out *o, const uint64_t *v, size_t n);
/* O's text, the caller's, into *TEXT and *LEN; or -1 with *ERR (SHOWN
   names the directory), when a field was not one line, memory ran out, or
   the text would be more than MAX bytes.  O is released either way. */
int record_out_end (struct record_out *o, const char *shown, size_t max, char **text, size_t *len,
                    kg_error_t *err);

/* TEXT, LEN bytes read from a record file, whose first line must be
   MAGIC: its other lines split in place into LINE[0] .. LINE[*N - 1], at
   most MAX of them.  False when TEXT is no record of the format (a NUL
   byte, another first line, no newline at its end, more than MAX lines). */
bool record_lines (char *text, size_t len, const char *magic, char **line, size_t max, size_t *n);
/* S is N numbers of the format: into V. */
bool record_numbers (const char *s, uint64_t *v, size_t n);

#endif
