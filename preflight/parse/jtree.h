/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The tree the policy reads a JSON document by (config.json, a runc exec's
 * process.json, the engines' own records): built in one scan of the strict
 * grammar (jsonscan.c) into one arena per document, values in place, keys
 * and strings beside them.  json-c's tree costs a hash table of sixteen
 * entries per object and an allocation per value: a config.json of a
 * thousand bind mounts is 1.3 MB of it, against 0.3 MB here.
 *
 * What a reader sees is what json-c's tree shows, accessor for accessor
 * (jv_string is json_object_get_string, jv_get_ex is
 * json_object_object_get_ex, ...): a JSON null is a NULL value, a member
 * of an object comes in document order, an integer is an int64 or (past
 * INT64_MAX) a uint64, another number a double that prints as written.
 * A document the scan refuses is read json-c's way too (json_read_strict),
 * for json-c's words on what is wrong; one json-c reads (a bare scalar)
 * is then built from the scan alone.  One difference, on purpose: a
 * character json-c reads as another (json_jsonc_misreads, jsonscan.h) is
 * read here as written, as Go's and Rust's decoders read it, where
 * json_read_strict refuses the document.  json-c's tree is never copied in
 * or out: the few writes a reader makes (runc update's flags over its
 * resources) are jv_set's, on this tree.
 */
#ifndef KG_JTREE_H
#define KG_JTREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

#include "error.h"

struct jv_member;

struct jv
{
  unsigned char type; /* enum json_type */
  bool big;           /* an integer past INT64_MAX: u.u */
  uint32_t n;         /* string: bytes; double: its text's bytes; array: items; object: members */
  union
  {
    int64_t i;
    uint64_t u;
    bool b;
    const char *s; /* string, and a double's text: NUL-terminated */
    struct jv *items;
    struct jv_member *members;
  } u;
};

struct jv_member
{
  const char *key;
  struct jv v;
};

/* BUF[0..LEN) as json_read_strict reads it (daemonjson.h: strict UTF-8
   and grammar, MAX_DEPTH deep at most, no key twice, nothing after the
   document), as a tree; NULL with *ERR (json_read_strict's words)
   otherwise.  A key that FIELD_NAME (NULL: none) gives a static spelling
   of is kept as that string.  jv_free releases it. */
struct jv *jv_read_strict (const char *name, const char *buf, size_t len, int max_depth,
                           const char *(*field_name) (const char *key), kg_error_t *err);
/* An empty object, a document of its own. */
struct jv *jv_new_object (void);
/* Set KEY of OBJ, an object of document DOC, to a copy of V (a scalar,
   or an empty object or array; V's text and KEY copied into DOC), as
   json-c's json_object_object_add does: the member KEY has keeps its
   place, a new one goes last.  The value as stored (valid until OBJ gets
   another new key), or NULL when memory ran out. */
struct jv *jv_set (struct jv *doc, struct jv *obj, const char *key, const struct jv *v);
/* A document of jv_read_strict or jv_new_object (NULL: nothing). */
void jv_free (struct jv *doc);

/* V as json-c writes it by default (spaced, "/" escaped; a double as it
   was written), for a message: in one of a few static buffers, cut at
   JV_TEXT_MAX bytes with "...".  "null" for NULL. */
#define JV_TEXT_MAX 1024
const char *jv_text (const struct jv *v);

/* json-c's accessors, for this tree (the few a rule calls per mount or
   per key inline). */
static inline enum json_type
jv_type (const struct jv *v)
{
  return v == NULL ? json_type_null : (enum json_type) v->type;
}

static inline bool
jv_is_type (const struct jv *v, enum json_type type)
{
  return jv_type (v) == type;
}

/* A string's bytes; anything else as jv_text writes it; NULL for NULL. */
static inline const char *
jv_string (const struct jv *v)
{
  if (v == NULL)
    return NULL;
  return v->type == json_type_string ? v->u.s : jv_text (v);
}

size_t jv_string_len (const struct jv *v);
/* An integer (clamped to int64), a double cut to one (clamped), a boolean
   (0 or 1), a string's leading integer; 0 otherwise. */
int64_t jv_int64 (const struct jv *v);
/* A boolean; a number that is not zero; a string that is not empty. */
bool jv_bool (const struct jv *v);
/* Whether object OBJ has KEY: *OUT its value (NULL for a JSON null). */
bool jv_get_ex (const struct jv *obj, const char *key, struct jv **out);
struct jv *jv_get (const struct jv *obj, const char *key);
/* A value as a reader gets it: a JSON null is NULL. */
static inline struct jv *
jv_value_of (struct jv *v)
{
  return v->type == json_type_null ? NULL : v;
}

/* An array's items (0 for anything else), and item I (NULL past the end,
   or for a JSON null). */
static inline size_t
jv_length (const struct jv *arr)
{
  return arr != NULL && arr->type == json_type_array ? arr->n : 0;
}

static inline struct jv *
jv_at (const struct jv *arr, size_t i)
{
  return i < jv_length (arr) ? jv_value_of (&arr->u.items[i]) : NULL;
}

/* An object's members in document order (0 for anything else). */
static inline size_t
jv_members (const struct jv *obj)
{
  return obj != NULL && obj->type == json_type_object ? obj->n : 0;
}

static inline const char *
jv_member_key (const struct jv *obj, size_t i)
{
  return i < jv_members (obj) ? obj->u.members[i].key : NULL;
}

static inline struct jv *
jv_member_value (const struct jv *obj, size_t i)
{
  return i < jv_members (obj) ? jv_value_of (&obj->u.members[i].v) : NULL;
}

/* What a message calls the kind of V (json_kind's words). */
const char *jv_kind (const struct jv *v);

/* Each member KEY, VAL of OBJ, as json_object_object_foreach. */
#define jv_foreach(obj, key, val)                                                                  \
  const char *key = NULL;                                                                          \
  struct jv *val __attribute__ ((unused)) = NULL;                                                  \
  for (size_t jv_i_##key = 0;                                                                      \
       jv_i_##key < jv_members (obj) && ((key = jv_member_key (obj, jv_i_##key)) != NULL)          \
       && ((val = jv_member_value (obj, jv_i_##key)), true);                                       \
       jv_i_##key++)

static inline void
jv_freep (struct jv **p)
{
  jv_free (*p);
}
#define cleanup_jv __attribute__ ((cleanup (jv_freep)))

#endif
