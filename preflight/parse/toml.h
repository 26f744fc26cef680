/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A strict reader for the TOML that Kata Containers and kata-guard use.
 *
 * Supported: tables and dotted table names, [[arrays of tables]], dotted
 * keys, bare and quoted keys, basic and literal strings (single- and
 * multi-line) with every TOML 1.0 escape, integers (decimal, 0x, 0o, 0b,
 * underscores), floats (including inf/nan), booleans, arrays (single- and
 * multi-line, trailing comma, nested), comments.
 *
 * Refused with an error: inline tables, date-times, anything else the
 * grammar does not allow.  Also refused: duplicate keys or tables, invalid
 * UTF-8, control characters, a NUL byte, the escape \u0000 (strings are C
 * strings), lines longer than TOML_MAX_LINE bytes, input larger than
 * TOML_MAX_SIZE bytes, and nesting deeper than TOML_MAX_DEPTH.
 *
 * Every error message has the form "NAME:LINE:COLUMN: what" (1-based).
 */
#ifndef KG_TOML_H
#define KG_TOML_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"

#define TOML_MAX_SIZE (1024 * 1024)
#define TOML_MAX_LINE 8192
#define TOML_MAX_DEPTH 32

enum toml_kind
{
  TOML_STRING,
  TOML_INTEGER,
  TOML_FLOAT,
  TOML_BOOLEAN,
  TOML_ARRAY,
  TOML_TABLE,
};

struct toml_entry;

struct toml_value
{
  enum toml_kind kind;
  unsigned line; /* where the value, or the table's header, starts */
  unsigned column;
  unsigned flags; /* TOML_F_* bookkeeping (tables), TOML_F_LINE_ESCAPE (strings) */
  union
  {
    char *string; /* NUL-terminated, valid UTF-8, no NUL inside */
    int64_t integer;
    double floating;
    bool boolean;
    struct
    {
      struct toml_value **items;
      size_t n;
    } array;
    struct
    {
      struct toml_entry *items; /* in the order they were defined */
      size_t n;
    } table;
  } u;
};

struct toml_entry
{
  char *key;
  unsigned line; /* where the key was written */
  unsigned column;
  struct toml_value *value;
};

/* Table bookkeeping, used by the parser (and by toml_merge). */
#define TOML_F_EXPLICIT 1u /* defined by a [header] */
#define TOML_F_DOTTED 2u   /* defined by a dotted key */
#define TOML_F_AOT 4u      /* an array created by [[header]] */
/* TOML_STRING: a """ string with a line-ending backslash, which
   BurntSushi/toml before 1.3 (Kata 3.0 to 3.4) reads differently: it drops
   every later newline of the string as well. */
#define TOML_F_LINE_ESCAPE 8u
/* TOML_STRING: a multi-line string with a CRLF line ending inside, which
   BurntSushi/toml's versions read differently (1.2 reads LF in a basic
   string, later ones keep CRLF). */
#define TOML_F_CRLF 16u
#define TOML_F_IMPLICIT 8u /* created as the parent of a header */

/* Parse DATA[0..LEN).  NAME is used in error messages (a file name).
   Returns the root table, or NULL with *ERR set. */
struct toml_value *toml_parse (const char *name, const char *data, size_t len, kg_error_t *err);
/* Read PATH (a regular file of at most TOML_MAX_SIZE bytes) and parse it. */
struct toml_value *toml_parse_file (const char *path, kg_error_t *err);
void toml_free (struct toml_value *v);

static inline void
toml_freep (struct toml_value **v)
{
  toml_free (*v);
}
#define cleanup_toml __attribute__ ((cleanup (toml_freep)))

/* The value of KEY in TABLE, or NULL (also when TABLE is NULL or not a table). */
const struct toml_value *toml_get (const struct toml_value *table, const char *key);
/* Follow the keys (NULL-terminated) from ROOT: toml_get_path (root,
   "hypervisor", "firecracker", "kernel", NULL). */
const struct toml_value *toml_get_path (const struct toml_value *root, ...)
    __attribute__ ((sentinel));

/* Whether A and B hold the same data: same kinds and values, tables with
   the same keys in any order, arrays in the same order.  Where in the
   text they were written does not count. */
bool toml_equal (const struct toml_value *a, const struct toml_value *b);
/* Take KEY's entry out of TABLE: its value (the caller frees it), or NULL
   when there is none. */
struct toml_value *toml_remove (struct toml_value *table, const char *key);

const char *toml_kind_name (enum toml_kind kind);

/* Merge SRC into DST (both root tables), as a later file overrides an
   earlier one: tables are merged key by key, recursively; any other value
   in SRC replaces DST's.  SRC is consumed (freed) whether or not this
   succeeds. */
int toml_merge (struct toml_value *dst, struct toml_value *src, kg_error_t *err);

#endif
