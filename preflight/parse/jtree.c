/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The policy's JSON tree (jtree.h): one arena per document, built from
   jsonscan's events. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdalign.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "buf.h"
#include "cleanup.h"
#include "daemonjson.h"
#include "error.h"
#include "hash.h"
#include "jsonscan.h"
#include "jtree.h"

/* ---- the arena ---------------------------------------------------------- */

struct jv_block
{
  struct jv_block *next;
  size_t used, cap;
  alignas (max_align_t) unsigned char data[];
};

#define JV_DOC_MAGIC 0x6a76646fu /* "jvdo" */

/* A document: its root first, so that jv_free finds the rest from it. */
struct jv_doc
{
  struct jv root;
  uint32_t magic;
  struct jv_block *blocks;
};

static struct jv_doc *
doc_new (size_t first)
{
  struct jv_doc *d = calloc (1, sizeof *d);

  if (d == NULL)
    return NULL;
  d->magic = JV_DOC_MAGIC;
  d->blocks = malloc (sizeof *d->blocks + first);
  if (d->blocks == NULL)
    {
      free (d);
      return NULL;
    }
  d->blocks->next = NULL;
  d->blocks->used = 0;
  d->blocks->cap = first;
  return d;
}

/* SIZE bytes of D's arena, aligned for any of its types. */
static void *
doc_alloc (struct jv_doc *d, size_t size)
{
  struct jv_block *b = d->blocks;
  size_t at = (b->used + 7) & ~(size_t) 7;

  if (size > b->cap || at > b->cap - size)
    {
      size_t cap = b->cap * 2;

      if (cap < size)
        cap = size;
      if ((b = malloc (sizeof *b + cap)) == NULL)
        return NULL;
      b->next = d->blocks;
      b->used = 0;
      b->cap = cap;
      d->blocks = b;
      at = 0;
    }
  b->used = at + size;
  return b->data + at;
}

static char *
doc_strdup (struct jv_doc *d, const char *s, size_t n)
{
  char *p = doc_alloc (d, n + 1);

  if (p != NULL)
    {
      memcpy (p, s, n);
      p[n] = '\0';
    }
  return p;
}

void
jv_free (struct jv *doc)
{
  struct jv_doc *d = (struct jv_doc *) doc;

  if (d == NULL)
    return;
  /* Only a document's root: anything else is a caller's bug. */
  if (d->magic != JV_DOC_MAGIC)
    abort ();
  d->magic = 0;
  for (struct jv_block *b = d->blocks, *next; b != NULL; b = next)
    {
      next = b->next;
      free (b);
    }
  free (d);
}

/* ---- the build from the scan -------------------------------------------- */

/* The container open at one depth: its members so far (the node that
   holds them is its parent's, which takes nothing more while it is open). */
struct level
{
  struct jv_member *items;
  size_t n, cap;
  struct jv *node;
};

/* Strings up to this long are kept once per document. */
#define SHARED_MAX 24

struct build
{
  struct jv_doc *doc;
  struct level *lv; /* [D]: the container whose members are D deep */
  unsigned open;    /* the depth of the innermost open container's members; 0: none */
  const char *key;  /* the key whose value comes next */
  const char *(*field_name) (const char *key);
  bool scalar; /* a bare scalar is a document */
  struct
  {
    const char *s;
    size_t n;
  } shared[64];
};

static int
key_cmp (const void *a, const void *b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

/* Whether two of the N members at M have one key (the scan was told to
   keep none: keys are compared here); a few pairwise, more sorted. */
static bool
has_duplicate (const struct jv_member *m, size_t n)
{
  if (n <= 32)
    {
      for (size_t i = 1; i < n; i++)
        for (size_t j = 0; j < i; j++)
          if (m[i].key == m[j].key
              || (m[i].key[0] == m[j].key[0] && strcmp (m[i].key, m[j].key) == 0))
            return true;
      return false;
    }
  {
    cleanup_free const char **keys = malloc (n * sizeof *keys);
    bool dup = false;

    if (keys == NULL)
      return true; /* (read json-c's way, which says so) */
    for (size_t i = 0; i < n; i++)
      keys[i] = m[i].key;
    qsort (keys, n, sizeof *keys, key_cmp);
    for (size_t i = 1; i < n && ! dup; i++)
      dup = strcmp (keys[i - 1], keys[i]) == 0;
    return dup;
  }
}

/* The innermost open container is complete: its members go to the arena. */
static int
close_level (struct build *b, const char **why)
{
  struct level *l = &b->lv[b->open];
  struct jv *node = l->node;

  b->open--;
  node->n = (uint32_t) l->n;
  if (l->n == 0)
    return 0;
  if (node->type == json_type_object)
    {
      if (has_duplicate (l->items, l->n))
        return *why = "a key twice", -1;
      node->u.members = doc_alloc (b->doc, l->n * sizeof *node->u.members);
      if (node->u.members == NULL)
        return *why = "cannot allocate", -1;
      memcpy (node->u.members, l->items, l->n * sizeof *l->items);
    }
  else
    {
      node->u.items = doc_alloc (b->doc, l->n * sizeof *node->u.items);
      if (node->u.items == NULL)
        return *why = "cannot allocate", -1;
      for (size_t i = 0; i < l->n; i++)
        node->u.items[i] = l->items[i].v;
    }
  return 0;
}

static const char *
string_text (struct build *b, const char *text, size_t n)
{
  uint32_t h;
  const char *s;

  if (n > SHARED_MAX)
    return doc_strdup (b->doc, text, n);
  h = kg_fnv1a (text, n) % ARRAY_SIZE (b->shared);
  if (b->shared[h].s != NULL && b->shared[h].n == n && memcmp (b->shared[h].s, text, n) == 0)
    return b->shared[h].s;
  if ((s = doc_strdup (b->doc, text, n)) != NULL)
    {
      b->shared[h].s = s;
      b->shared[h].n = n;
    }
  return s;
}

/* A number as json-c's parser makes it: an integer (the scan kept it
   within 64 bits) an int64, or a uint64 past INT64_MAX; any other a
   double, kept as written (json-c prints it so, and reads its value with
   strtod). */
static int
number (struct build *b, struct jv *v, const char *text, size_t n)
{
  char small[32];
  char *t = n < sizeof small ? small : doc_strdup (b->doc, text, n);

  if (t == NULL)
    return -1;
  if (t == small)
    {
      memcpy (small, text, n);
      small[n] = '\0';
    }
  if (strpbrk (t, ".eE") == NULL)
    {
      errno = 0;
      v->type = json_type_int;
      if (t[0] == '-')
        v->u.i = strtoll (t, NULL, 10);
      else
        {
          v->u.u = strtoull (t, NULL, 10);
          v->big = v->u.u > INT64_MAX;
        }
      return errno == 0 ? 0 : -1;
    }
  v->type = json_type_double;
  v->n = (uint32_t) n;
  v->u.s = t == small ? doc_strdup (b->doc, text, n) : t;
  return v->u.s != NULL ? 0 : -1;
}

static int
build_event (void *arg, const struct json_event *ev, const char **why)
{
  struct build *b = arg;
  struct jv *v;

  while (b->open > ev->depth)
    if (close_level (b, why) < 0)
      return -1;
  if (ev->len > UINT32_MAX)
    return *why = "too long", -1;
  if (ev->kind == JSON_EV_KEY)
    {
      /* (A key holding \u0000 is refused, as the strict scan refuses it;
         the scan refuses a string value holding one itself, so that no
         string here is longer than its C string.) */
      if (strlen (ev->text) != ev->len)
        return *why = "a key holds \\u0000", -1;
      b->key = b->field_name != NULL ? b->field_name (ev->text) : NULL;
      if (b->key == NULL && (b->key = doc_strdup (b->doc, ev->text, ev->len)) == NULL)
        return *why = "cannot allocate", -1;
      return 0;
    }
  if (ev->depth == 0)
    {
      /* A bare scalar is read json-c's way, which takes one that ends
         the text for a truncated one. */
      if (! b->scalar && ev->kind != JSON_EV_OBJECT && ev->kind != JSON_EV_ARRAY)
        return *why = "a scalar document", -1;
      v = &b->doc->root;
    }
  else
    {
      struct level *l = &b->lv[ev->depth];

      if (l->n == l->cap)
        {
          size_t cap = l->cap ? l->cap * 2 : 8;
          struct jv_member *items = realloc (l->items, cap * sizeof *items);

          if (items == NULL)
            return *why = "cannot allocate", -1;
          l->items = items;
          l->cap = cap;
        }
      l->items[l->n].key = l->node->type == json_type_object ? b->key : NULL;
      v = &l->items[l->n++].v;
    }
  memset (v, 0, sizeof *v);
  switch (ev->kind)
    {
    case JSON_EV_KEY:
      break;
    case JSON_EV_STRING:
      v->type = json_type_string;
      v->n = (uint32_t) ev->len;
      if ((v->u.s = string_text (b, ev->text, ev->len)) == NULL)
        return *why = "cannot allocate", -1;
      break;
    case JSON_EV_NUMBER:
      if (ev->text == NULL || number (b, v, ev->text, ev->len) < 0)
        return *why = "a number json-c does not read so", -1;
      break;
    case JSON_EV_LITERAL:
      v->type = ev->literal == 'n' ? json_type_null : json_type_boolean;
      v->u.b = ev->literal == 't';
      break;
    case JSON_EV_OBJECT:
    case JSON_EV_ARRAY:
      v->type = ev->kind == JSON_EV_OBJECT ? json_type_object : json_type_array;
      b->open = ev->depth + 1;
      b->lv[b->open].n = 0;
      b->lv[b->open].node = v;
      break;
    }
  return 0;
}

/* The tree of BUF[0..LEN), or NULL: the scan refuses it, or it is a bare
   scalar and not SCALAR, or memory ran out. */
static struct jv *
build (const char *buf, size_t len, int max_depth, const char *(*field_name) (const char *key),
       bool scalar)
{
  struct build b = { .field_name = field_name, .scalar = scalar };
  struct json_scanner s = {
    .max_depth = (unsigned) max_depth,
    .decode_max = SIZE_MAX,
    .on_event = build_event,
    .arg = &b,
  };
  int rc = -1;

  if (max_depth < 1 || (b.lv = calloc ((size_t) max_depth + 2, sizeof *b.lv)) == NULL)
    return NULL;
  /* A tree takes about twice its text (a config.json's, 1.4 to 2.5
     times): one block for most, which the pages it uses are faulted in
     of as it grows. */
  b.doc = doc_new (len < 2048 ? 4096 : 2 * len);
  if (b.doc != NULL && json_scan (&s, -1, buf, len) == 0)
    {
      const char *why;

      rc = 0;
      while (rc == 0 && b.open > 0)
        rc = close_level (&b, &why);
      if (! scalar && b.doc->root.type != json_type_object && b.doc->root.type != json_type_array)
        rc = -1;
    }
  for (int i = 0; i < max_depth + 2; i++)
    free (b.lv[i].items);
  free (b.lv);
  if (rc < 0)
    {
      jv_free (b.doc ? &b.doc->root : NULL);
      return NULL;
    }
  return &b.doc->root;
}

/* ---- writes ------------------------------------------------------------- */

struct jv *
jv_new_object (void)
{
  struct jv_doc *d = doc_new (256);

  if (d == NULL)
    return NULL;
  d->root.type = json_type_object;
  return &d->root;
}

struct jv *
jv_set (struct jv *doc, struct jv *obj, const char *key, const struct jv *v)
{
  struct jv_doc *d = (struct jv_doc *) doc;
  struct jv copy = *v;
  struct jv_member *m;
  const char *k;

  /* Only a document's object, and a value that holds nothing else: a
     caller's bug otherwise. */
  if (d->magic != JV_DOC_MAGIC || obj->type != json_type_object
      || ((v->type == json_type_object || v->type == json_type_array) && v->n != 0))
    abort ();
  if ((v->type == json_type_string || v->type == json_type_double)
      && (copy.u.s = doc_strdup (d, v->u.s, v->n)) == NULL)
    return NULL;
  for (size_t i = 0; i < obj->n; i++)
    if (strcmp (obj->u.members[i].key, key) == 0)
      {
        obj->u.members[i].v = copy;
        return &obj->u.members[i].v;
      }
  if (obj->n == UINT32_MAX || (k = doc_strdup (d, key, strlen (key))) == NULL
      || (m = doc_alloc (d, ((size_t) obj->n + 1) * sizeof *m)) == NULL)
    return NULL;
  if (obj->n > 0)
    memcpy (m, obj->u.members, obj->n * sizeof *m);
  m[obj->n] = (struct jv_member){ k, copy };
  obj->u.members = m;
  return &m[obj->n++].v;
}

struct jv *
jv_read_strict (const char *name, const char *buf, size_t len, int max_depth,
                const char *(*field_name) (const char *key), kg_error_t *err)
{
  struct json_object *obj;
  struct jv *v = build (buf, len, max_depth, field_name, false);

  if (v != NULL)
    return v;
  /* Refused by the scan (or a scalar): json-c's way says what is wrong,
     in the words it always has; a document it reads (a scalar) is built
     from the scan, which must read it too. */
  if ((obj = json_read_strict (name, buf, len, max_depth, NULL, err)) == NULL)
    return NULL;
  json_object_put (obj);
  v = build (buf, len, max_depth, field_name, true);
  if (v == NULL)
    kg_error (err, 0, "%s: not read alike by the guard's two JSON readers", name);
  return v;
}

/* ---- the accessors -------------------------------------------------------- */

const char *
jv_kind (const struct jv *v)
{
  return json_type_words (jv_type (v), false);
}

size_t
jv_string_len (const struct jv *v)
{
  if (v == NULL)
    return 0;
  return v->type == json_type_string ? v->n : strlen (jv_text (v));
}

int64_t
jv_int64 (const struct jv *v)
{
  switch (jv_type (v))
    {
    case json_type_int:
      return v->big ? INT64_MAX : v->u.i;
    case json_type_double:
      {
        double d = strtod (v->u.s, NULL);

        if (d <= (double) INT64_MIN)
          return INT64_MIN;
        if (d >= (double) INT64_MAX)
          return INT64_MAX;
        return (int64_t) d;
      }
    case json_type_boolean:
      return v->u.b;
    case json_type_string:
      {
        /* json-c's json_parse_int64: strtoll's value, clamped, unless it
           read nothing or failed with 0. */
        char *end;
        long long n;

        errno = 0;
        n = strtoll (v->u.s, &end, 10);
        return end == v->u.s || (n == 0 && errno != 0) ? 0 : n;
      }
    default:
      return 0;
    }
}

bool
jv_bool (const struct jv *v)
{
  switch (jv_type (v))
    {
    case json_type_boolean:
      return v->u.b;
    case json_type_int:
      return v->u.u != 0;
    case json_type_double:
      return strtod (v->u.s, NULL) != 0;
    case json_type_string:
      return v->n != 0;
    default:
      return false;
    }
}

bool
jv_get_ex (const struct jv *obj, const char *key, struct jv **out)
{
  if (out != NULL)
    *out = NULL;
  if (obj == NULL || obj->type != json_type_object)
    return false;
  for (size_t i = 0; i < obj->n; i++)
    {
      const char *k = obj->u.members[i].key;

      if (k == key || (k[0] == key[0] && strcmp (k, key) == 0))
        {
          if (out != NULL)
            *out = jv_value_of (&obj->u.members[i].v);
          return true;
        }
    }
  return false;
}

struct jv *
jv_get (const struct jv *obj, const char *key)
{
  struct jv *v;

  return jv_get_ex (obj, key, &v) ? v : NULL;
}

/* ---- json-c's text -------------------------------------------------------- */

/* json-c's json_escape_str: the two-character escapes, "/" too, and the
   other control characters as \u00xx. */
static void
escape (struct kg_buf *t, const char *s, size_t n)
{
  static const char hex[] = "0123456789abcdef";
  static const char *const two[0x60] = {
    ['\b'] = "\\b", ['\n'] = "\\n", ['\r'] = "\\r", ['\t'] = "\\t",
    ['\f'] = "\\f", ['"'] = "\\\"", ['/'] = "\\/",  ['\\'] = "\\\\",
  };

  for (size_t i = 0; i < n; i++)
    {
      unsigned char c = (unsigned char) s[i];
      char e[6] = { '\\', 'u', '0', '0' };

      if (c < ARRAY_SIZE (two) && two[c] != NULL)
        kg_buf_add (t, two[c], 2);
      else if (c < ' ')
        {
          e[4] = hex[c >> 4];
          e[5] = hex[c & 0xf];
          kg_buf_add (t, e, 6);
        }
      else
        kg_buf_add (t, &s[i], 1);
    }
}

static void
write_text (struct kg_buf *t, const struct jv *v)
{
  char num[32];

  /* Past the cut nothing more is written (the buffer is bounded). */
  if (t->failed)
    return;
  switch (jv_type (v))
    {
    case json_type_null:
      kg_buf_add (t, "null", 4);
      return;
    case json_type_boolean:
      kg_buf_add (t, v->u.b ? "true" : "false", v->u.b ? 4 : 5);
      return;
    case json_type_int:
      if (v->big)
        snprintf (num, sizeof num, "%" PRIu64, v->u.u);
      else
        snprintf (num, sizeof num, "%" PRId64, v->u.i);
      kg_buf_add (t, num, strlen (num));
      return;
    case json_type_double:
      kg_buf_add (t, v->u.s, v->n);
      return;
    case json_type_string:
      kg_buf_add (t, "\"", 1);
      escape (t, v->u.s, v->n);
      kg_buf_add (t, "\"", 1);
      return;
    case json_type_array:
      kg_buf_add (t, "[", 1);
      for (size_t i = 0; i < v->n; i++)
        {
          kg_buf_add (t, i ? ", " : " ", i ? 2 : 1);
          write_text (t, jv_value_of (&v->u.items[i]));
        }
      kg_buf_add (t, " ]", 2);
      return;
    case json_type_object:
      kg_buf_add (t, "{", 1);
      for (size_t i = 0; i < v->n; i++)
        {
          const char *k = v->u.members[i].key;

          kg_buf_add (t, i ? ", \"" : " \"", i ? 3 : 2);
          escape (t, k, strlen (k));
          kg_buf_add (t, "\": ", 3);
          write_text (t, jv_value_of (&v->u.members[i].v));
        }
      kg_buf_add (t, " }", 2);
      return;
    }
}

const char *
jv_text (const struct jv *v)
{
  static char ring[4][JV_TEXT_MAX + 4];
  static unsigned next;
  char *out = ring[next++ % ARRAY_SIZE (ring)];
  cleanup_kg_buf struct kg_buf t = { .max = JV_TEXT_MAX };

  write_text (&t, v);
  if (t.s == NULL)
    return "...";
  snprintf (out, JV_TEXT_MAX + 4, "%s%s", t.s, t.failed ? "..." : "");
  return out;
}
