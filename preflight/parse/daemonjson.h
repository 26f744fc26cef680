/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Docker's daemon.json: the strict reader, for the docker.* audit of
 * `kata-guard check` and for registration; its grammar check reads the
 * bundle's config.json too.
 *
 * Reading is bounded (DAEMONJSON_MAX_SIZE bytes, JSON_STRICT_MAX_DEPTH levels)
 * and strict (RFC 8259): the document must be one object; trailing data,
 * duplicate keys, NaN/Infinity, single quotes, raw control characters in
 * strings, invalid UTF-8, lone surrogates, a key or a string holding
 * \u0000 (dockerd's reading keeps what follows it, a C string does not),
 * a character json-c reads as another (json_jsonc_misreads, jsonscan.h)
 * and integers outside the 64-bit range are refused, each with
 * "NAME:LINE:COL:".
 * json-c's own strict mode lets several of these through, or changes them
 * silently (a big integer is clamped, a duplicate key drops a value), and
 * an edit must never lose anything: so the grammar is checked here first
 * and json-c only builds the tree.  A file that is empty or only white
 * space reads as {} (dockerd reads it so too).
 *
 * The writer and the edits of `kata-guard install` / `uninstall` are
 * register/dockerjson.h, the atomic replacement register/replace.h.
 */
#ifndef KG_DAEMONJSON_H
#define KG_DAEMONJSON_H

#include <stdbool.h>
#include <stddef.h>

#include "error.h"

struct json_object;

/* Where dockerd reads it unless told otherwise: [docker] daemon_json's
   default, and install's --daemon-json. */
#define DAEMONJSON_DEFAULT "/etc/docker/daemon.json"
#define DAEMONJSON_MAX_SIZE (1024 * 1024)

/* The strict reader of a JSON document the guard decides by: strict
   UTF-8 (JSON is UTF-8, and json-c 0.18 refuses four-byte forms), json-c
   in strict mode at most MAX_DEPTH deep, json_strict_scan (jsonscan.h: the keys json-c
   keeps one of), CHECK (NULL: none) on the document, and nothing after it
   but whitespace.  The document, or NULL with *ERR naming NAME and the
   byte.  (The policy reads its documents into its own tree, jtree.h, in
   one scan; a document that scan refuses comes here, for these words.) */
struct json_object;
struct json_object *json_read_strict (const char *name, const char *buf, size_t len, int max_depth,
                                      int (*check) (const char *name, struct json_object *obj,
                                                    kg_error_t *err),
                                      kg_error_t *err);

/* What a message calls the kind of V: "null", "a boolean", "a string",
   "an object", "an array", and for a number "an integer" or "a
   floating-point number" (the policy's findings, where a limit must be an
   integer), or with ANY_NUMBER "a number" for both (daemon.json's
   messages). */
const char *json_kind_of (struct json_object *v, bool any_number);
/* The same of a value of TYPE (jtree.h's jv_kind). */
const char *json_type_words (int type, bool any_number);
static inline const char *
json_kind (struct json_object *v)
{
  return json_kind_of (v, false);
}

/* Parse DATA[0..LEN) (NAME for messages).  Returns the root object, or
   NULL with *ERR "NAME:LINE:COL: what". */
struct json_object *daemonjson_parse (const char *name, const char *data, size_t len,
                                      kg_error_t *err);
/* Read and parse PATH (symlinks followed).  A missing file gives an empty
   object and *EXISTS = false. */
struct json_object *daemonjson_load (const char *path, bool *exists, kg_error_t *err);

#endif
