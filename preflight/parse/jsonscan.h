/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The one JSON grammar the guard reads by: a streaming scanner over a
 * buffer or a file read in pieces, RFC 8259 exactly (strict UTF-8, no lone
 * surrogate, integers json-c keeps exactly, a bounded depth), which hands
 * each key and value to its caller as an event and builds no tree.  A
 * string value holding U+0000 is refused, named by its path in the
 * document ("mounts[2].options[0] holds U+0000"): every reader of the
 * guard's compares C strings, which end there, and the runtimes' decoders
 * (Go's encoding/json, serde) keep what follows it, so "ro\u0000" would
 * be judged "ro" and mounted read-write.  Its uses:
 *
 *  - the policy's tree (jtree.h) of config.json and the engines' records,
 *    built from the events of one scan;
 *  - json_strict_scan: the grammar check under json-c for daemon.json and
 *    for a document the policy's scan refused (daemonjson.h), which also
 *    refuses a key twice in one object (json-c keeps the last, Go's
 *    decoders merge both), with errors "NAME:LINE:COL: what";
 *  - jscan_top_string: one top-level string of an engine's file whose
 *    size the container's own flags decide (Docker's hostconfig.json
 *    holds one entry per published port: 7.5 MB for
 *    `-p 1-65535:1-65535 -p 1-65535:1-65535/udp`), read whole through a
 *    fixed buffer: memory does not grow with the document.
 */
#ifndef KG_JSONSCAN_H
#define KG_JSONSCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"

/* Beyond this a file is refused all the same (it is 4 GiB of ports). */
#define JSCAN_MAX ((size_t) 1 << 32)

/* ---- the scanner ---- */

enum json_event_kind
{
  JSON_EV_KEY,     /* an object's key (text: decoded) */
  JSON_EV_STRING,  /* a string value (text: decoded) */
  JSON_EV_NUMBER,  /* a number (text: as written, in a scan of a buffer) */
  JSON_EV_LITERAL, /* true, false or null (literal: its first letter) */
  JSON_EV_OBJECT,  /* an object begins */
  JSON_EV_ARRAY,   /* an array begins */
};

struct json_event
{
  enum json_event_kind kind;
  unsigned depth;   /* of the object or array that holds it; 0: the document itself */
  const char *text; /* KEY, STRING: decoded, NUL-terminated, at most decode_max bytes;
                       NUMBER: as written (not NUL-terminated), in a scan of a buffer,
                       else NULL */
  size_t len;
  bool escaped;   /* KEY, STRING: written with an escape */
  bool truncated; /* KEY, STRING: longer than decode_max (text holds its start) */
  char literal;   /* LITERAL: 't', 'f' or 'n' */
};

/* Why a scan stopped (jsonscan.c's messages say it in words; a caller may
   say it in its own). */
enum json_scan_code
{
  JSON_OK,
  JSON_E_READ,         /* read(2) failed */
  JSON_E_SIZE,         /* past JSCAN_MAX */
  JSON_E_UNTERMINATED, /* a string does not end */
  JSON_E_CONTROL,      /* a raw control byte in a string */
  JSON_E_ESCAPE,       /* an unknown escape */
  JSON_E_HEX,          /* \u without four hex digits */
  JSON_E_SURROGATE,    /* a lone surrogate */
  JSON_E_KEY_NUL,      /* a key holding \u0000 (with keep_keys) */
  JSON_E_NUL,          /* a string value holding \u0000 (what names its path) */
  JSON_E_UTF8,         /* invalid UTF-8 */
  JSON_E_NUMBER,       /* a malformed number */
  JSON_E_RANGE,        /* an integer outside the 64-bit range */
  JSON_E_KEY,          /* an object key is not a string */
  JSON_E_COLON,        /* no ':' after a key */
  JSON_E_COMMA,        /* no ',' or closing bracket after a member */
  JSON_E_LITERAL,      /* a misspelt true, false or null */
  JSON_E_VALUE,        /* no value where one must be */
  JSON_E_DEPTH,        /* nested deeper than max_depth */
  JSON_E_DUPLICATE,    /* a key twice in one object (with keep_keys) */
  JSON_E_TRAILING,     /* data after the document */
  JSON_E_CALLER,       /* the event callback refused (its why) */
};

struct json_scanner
{
  /* Set by the caller. */
  unsigned max_depth; /* objects and arrays nested deeper are refused */
  size_t decode_max;  /* keys and strings are decoded up to this many bytes */
  bool keep_keys;     /* refuse a key twice in one object (every key decoded whole) */
  bool find_misread;  /* note the first character json-c reads as another (misread_cp) */
  /* Each key and value, in document order; NULL: none.  Returns 0, or -1
     with *WHY (static text) to stop the scan. */
  int (*on_event) (void *arg, const struct json_event *ev, const char **why);
  void *arg;

  /* Set by the scan. */
  enum json_scan_code code;
  unsigned line, col; /* where it stopped (1-based) */
  int errnum;         /* JSON_E_READ */
  char what[192];     /* the reason, in words ("unknown escape \\q") */
  /* With find_misread, the first character json-c reads as another
     (json_jsonc_misreads), written raw or as a pair, and where it is; 0:
     none.  It does not stop the scan. */
  uint32_t misread_cp;
  unsigned misread_line, misread_col;
};

/* Whether json-c reads the character CP as another.  json-c (0.16 to
   0.19) decodes a surrogate pair, then judges the pair's code point as if
   it were one \uXXXX: a character past U+FFFF whose low 16 bits are those
   of a surrogate (U+1D800 to U+1DFFF, U+2D800 to U+2DFFF, ... U+10D800 to
   U+10DFFF) becomes U+FFFD, or with a low surrogate after it the start of
   another pair, where Go's decoder and the guard's own (jtree.h) read the
   character.  It reaches json-c as a pair either way: written as one in
   the text, or as raw UTF-8 that kg_json_ascii escapes. */
static inline bool
json_jsonc_misreads (uint32_t cp)
{
  return cp > 0xffff && (cp & 0xf800) == 0xd800;
}

/* Scan the one JSON document of DATA[0..LEN) (FD < 0), or of the file FD
   read through a buffer of its own (DATA NULL), with nothing after it but
   white space.  0, or -1 with S->code, S->line, S->col and S->what. */
int json_scan (struct json_scanner *s, int fd, const char *data, size_t len);

/* ---- its uses ---- */

/* How deep json_strict_scan lets a document nest (and json-c, which
   builds the tree after it, daemonjson.c). */
#define JSON_STRICT_MAX_DEPTH 64
/* The strict grammar check of a JSON text json-c reads after it
   (daemon.json, json_read_strict): depth at most JSON_STRICT_MAX_DEPTH,
   no key twice in one object.  Errors "NAME:LINE:COL: what".  A text that
   passes and holds a character json-c reads as another
   (json_jsonc_misreads) has that refusal in *MISREAD, in the same form,
   for the caller to give once its own checks pass: what else is wrong
   with the text is told in its own words. */
int json_strict_scan (const char *name, const char *data, size_t len, kg_error_t *misread,
                      kg_error_t *err);

/* The value of the top-level KEY of the JSON object in PATH (opened
   O_NOFOLLOW), when it is a string, into OUT (NUL-terminated).  The
   whole document must be well-formed JSON with nothing after it; KEY
   must appear once, and no top-level key may be written with escapes
   (one could spell KEY); the value must fit OUT and hold no escape.
   Returns 1 with OUT set, 0 when the object has no KEY (or KEY is null),
   -1 with *ERR otherwise (a missing file is -1 with errnum ENOENT). */
int jscan_top_string (const char *path, const char *key, char *out, size_t size, kg_error_t *err);

/* The same over a buffer (the unit tests and the fuzz target). */
int jscan_top_string_mem (const char *buf, size_t len, const char *key, char *out, size_t size,
                          kg_error_t *err);

#endif
