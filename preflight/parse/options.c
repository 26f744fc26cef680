/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "error.h"
#include "options.h"
#include "text.h"

/* Protobuf wire types (the deprecated groups, 3 and 4, are refused). */
enum
{
  WIRE_VARINT = 0,
  WIRE_I64 = 1,
  WIRE_LEN = 2,
  WIRE_I32 = 5,
};

#define FIELD_MAX ((1u << 29) - 1)
/* A type URL is a short name; a longer one is not a message we know. */
#define TYPE_URL_MAX 1024

/* A window of the input; OFF is the absolute offset of P for messages. */
struct cursor
{
  const unsigned char *p;
  size_t len;
  size_t off;
  const char *what; /* the message being read, for errors */
};

static int
read_varint (struct cursor *c, uint64_t *out, kg_error_t *err)
{
  uint64_t v = 0;

  for (unsigned i = 0; i < 10; i++)
    {
      unsigned char b;

      if (i >= c->len)
        return kg_error (err, 0, "%s: truncated varint at byte %zu", c->what, c->off + i);
      b = c->p[i];
      /* The tenth byte holds bit 63 only: anything more overflows. */
      if (i == 9 && b > 1)
        return kg_error (err, 0, "%s: varint at byte %zu overflows 64 bits", c->what, c->off);
      v |= (uint64_t) (b & 0x7f) << (7 * i);
      if (! (b & 0x80))
        {
          c->p += i + 1;
          c->len -= i + 1;
          c->off += i + 1;
          *out = v;
          return 0;
        }
    }
  return kg_error (err, 0, "%s: varint at byte %zu is longer than 10 bytes", c->what, c->off);
}

static int
skip_bytes (struct cursor *c, size_t n, size_t at, kg_error_t *err)
{
  if (n > c->len)
    return kg_error (err, 0, "%s: field at byte %zu runs past the end (%zu bytes, %zu left)",
                     c->what, at, n, c->len);
  c->p += n;
  c->len -= n;
  c->off += n;
  return 0;
}

/* One field: its number, wire type and, for WIRE_LEN, its bytes. */
struct field
{
  uint32_t num;
  unsigned wire;
  size_t at;                 /* offset of the tag */
  const unsigned char *data; /* WIRE_LEN */
  size_t data_len;
  size_t data_off;
};

static int
read_field (struct cursor *c, struct field *f, kg_error_t *err)
{
  uint64_t tag, v;

  f->at = c->off;
  if (read_varint (c, &tag, err) < 0)
    return -1;
  if (tag > UINT32_MAX || (tag >> 3) == 0 || (tag >> 3) > FIELD_MAX)
    return kg_error (err, 0, "%s: field number %llu at byte %zu is out of range", c->what,
                     (unsigned long long) (tag >> 3), f->at);
  f->num = (uint32_t) (tag >> 3);
  f->wire = (unsigned) (tag & 7);
  f->data = NULL;
  f->data_len = 0;
  switch (f->wire)
    {
    case WIRE_VARINT:
      return read_varint (c, &v, err);
    case WIRE_I64:
      return skip_bytes (c, 8, f->at, err);
    case WIRE_I32:
      return skip_bytes (c, 4, f->at, err);
    case WIRE_LEN:
      if (read_varint (c, &v, err) < 0)
        return -1;
      if (v > c->len)
        return kg_error (err, 0,
                         "%s: field %u at byte %zu: length %llu runs past the end (%zu bytes left)",
                         c->what, f->num, f->at, (unsigned long long) v, c->len);
      f->data = c->p;
      f->data_len = (size_t) v;
      f->data_off = c->off;
      return skip_bytes (c, (size_t) v, f->at, err);
    default:
      return kg_error (err, 0, "%s: field %u at byte %zu has wire type %u, which is not allowed",
                       c->what, f->num, f->at, f->wire);
    }
}

/* A proto3 string field as a C string: UTF-8, no NUL, at most MAX bytes. */
static int
take_string (const struct cursor *c, const struct field *f, const char *name, size_t max,
             char **out, kg_error_t *err)
{
  char *s;

  if (f->wire != WIRE_LEN)
    return kg_error (err, 0, "%s: %s (field %u) at byte %zu has wire type %u, not a string",
                     c->what, name, f->num, f->at, f->wire);
  if (*out != NULL)
    return kg_error (err, 0, "%s: %s (field %u) at byte %zu is given twice", c->what, name, f->num,
                     f->at);
  if (f->data_len > max)
    return kg_error (err, 0, "%s: %s at byte %zu is longer than %zu bytes", c->what, name, f->at,
                     max);
  if (memchr (f->data, '\0', f->data_len) != NULL)
    return kg_error (err, 0, "%s: %s at byte %zu holds a NUL byte", c->what, name, f->at);
  if (kg_utf8_valid_prefix (f->data, f->data_len) != f->data_len)
    return kg_error (err, 0, "%s: %s at byte %zu is not valid UTF-8", c->what, name, f->at);
  s = strndup ((const char *) f->data, f->data_len);
  if (s == NULL)
    return kg_error (err, errno, "%s: cannot allocate", c->what);
  *out = s;
  return 0;
}

/* The last component of a type URL ("type.googleapis.com/NAME" or "NAME"). */
static const char *
type_name (const char *url)
{
  const char *slash = strrchr (url, '/');

  return slash ? slash + 1 : url;
}

static bool
is_runtime_options (const char *url)
{
  const char *name = type_name (url);

  /* containerd's runtimeoptions.v1 and the older cri-containerd package
     that Kata also reads. */
  return strcmp (name, "runtimeoptions.v1.Options") == 0
         || strcmp (name, "cri.runtimeoptions.v1.Options") == 0;
}

static int
decode_runtime_options (const unsigned char *p, size_t len, size_t off, struct runtime_options *o,
                        kg_error_t *err)
{
  struct cursor c = { p, len, off, "runtime options (runtimeoptions.v1.Options)" };
  bool seen_body = false;

  while (c.len > 0)
    {
      struct field f;
      int r = 0;

      if (read_field (&c, &f, err) < 0)
        return -1;
      switch (f.num)
        {
        case 1:
          r = take_string (&c, &f, "type_url", TYPE_URL_MAX, &o->inner_type_url, err);
          break;
        case 2:
          r = take_string (&c, &f, "config_path", PATH_MAX - 1, &o->config_path, err);
          break;
        case 3:
          if (f.wire != WIRE_LEN)
            return kg_error (err, 0,
                             "%s: config_body (field 3) at byte %zu has wire type %u, "
                             "not bytes",
                             c.what, f.at, f.wire);
          if (seen_body)
            return kg_error (err, 0, "%s: config_body (field 3) at byte %zu is given twice", c.what,
                             f.at);
          seen_body = true;
          o->config_body_len = f.data_len;
          break;
        default:
          return kg_error (err, 0, "%s: unknown field %u at byte %zu", c.what, f.num, f.at);
        }
      if (r < 0)
        return -1;
    }
  /* proto3: an empty string is the same as an absent one. */
  if (o->config_path != NULL && o->config_path[0] == '\0')
    {
      free (o->config_path);
      o->config_path = NULL;
    }
  return 0;
}

#define cleanup_options __attribute__ ((cleanup (options_release)))

/* *O, which is then empty. */
static struct runtime_options
options_take (struct runtime_options *o)
{
  struct runtime_options t = *o;

  memset (o, 0, sizeof *o);
  return t;
}

/* A google.protobuf.Any of runtime options from C (WHAT names it) into
   *OUT: its type and, for Kata's runtimeoptions, what they say. */
static int
decode_any (struct cursor c, struct runtime_options *out, kg_error_t *err)
{
  cleanup_options struct runtime_options o = { OPTIONS_NONE, NULL, NULL, NULL, 0, false };
  const unsigned char *value = NULL;
  size_t value_len = 0, value_off = 0;
  bool seen_value = false;

  while (c.len > 0)
    {
      struct field f;

      if (read_field (&c, &f, err) < 0)
        return -1;
      if (f.num == 1)
        {
          if (take_string (&c, &f, "type_url", TYPE_URL_MAX, &o.type_url, err) < 0)
            return -1;
        }
      else if (f.num == 2)
        {
          if (f.wire != WIRE_LEN)
            {
              return kg_error (err, 0,
                               "%s: value (field 2) at byte %zu has wire type %u, not bytes",
                               c.what, f.at, f.wire);
            }
          if (seen_value)
            {
              return kg_error (err, 0, "%s: value (field 2) at byte %zu is given twice", c.what,
                               f.at);
            }
          seen_value = true;
          value = f.data;
          value_len = f.data_len;
          value_off = f.data_off;
        }
      else
        {
          return kg_error (err, 0, "%s: unknown field %u at byte %zu", c.what, f.num, f.at);
        }
    }
  if (o.type_url == NULL || o.type_url[0] == '\0')
    {
      return kg_error (err, 0, "%s: no type URL", c.what);
    }
  if (! is_runtime_options (o.type_url))
    {
      o.kind = OPTIONS_OTHER;
      *out = options_take (&o);
      return 0;
    }
  o.kind = OPTIONS_RUNTIME;
  if (value != NULL && decode_runtime_options (value, value_len, value_off, &o, err) < 0)
    return -1;
  *out = options_take (&o);
  return 0;
}

/* containerd.runtime.bootstrap.v1.BootstrapParams (containerd 2.3 and
   later write it instead of the bare Any): its field numbers, and what a
   string among them may hold. */
static const struct
{
  uint32_t num;
  const char *name;
  unsigned wire;
  size_t max;
} bootstrap_fields[] = {
  { 1, "instance_id", WIRE_LEN, PATH_MAX },
  { 2, "namespace", WIRE_LEN, PATH_MAX },
  { 3, "log_level", WIRE_VARINT, 0 },
  { 4, "containerd_version", WIRE_LEN, TYPE_URL_MAX },
  { 5, "containerd_ttrpc_address", WIRE_LEN, PATH_MAX },
  { 6, "containerd_grpc_address", WIRE_LEN, PATH_MAX },
  { 7, "containerd_binary", WIRE_LEN, PATH_MAX },
  { 8, "extensions", WIRE_LEN, KG_OPTIONS_MAX },
  { 9, "socket_dir", WIRE_LEN, PATH_MAX },
};
#define BOOTSTRAP_EXTENSIONS 8

/* Whether BUF is BootstrapParams for this very container: fields 1 and 2
   (instance_id, namespace) are exactly ID and NS, as containerd's own
   shim library tells the two apart (a bare Any's type URL and value sit
   in the same two fields, so only the identity can decide). */
static bool
is_bootstrap (const unsigned char *buf, size_t len, const char *id, const char *ns)
{
  struct cursor c = { buf, len, 0, "" };
  bool id_ok = false, ns_ok = false;
  int seen_1 = 0, seen_2 = 0;
  kg_error_t err = NULL;

  if (id == NULL || ns == NULL)
    return false;
  while (c.len > 0)
    {
      struct field f;

      if (read_field (&c, &f, &err) < 0)
        {
          kg_error_release (&err);
          return false;
        }
      if ((f.num == 1 || f.num == 2) && f.wire == WIRE_LEN)
        {
          const char *want = f.num == 1 ? id : ns;
          bool same = f.data_len == strlen (want) && memcmp (f.data, want, f.data_len) == 0;

          if (f.num == 1)
            seen_1++, id_ok = same;
          else
            seen_2++, ns_ok = same;
        }
    }
  return seen_1 == 1 && seen_2 == 1 && id_ok && ns_ok;
}

static int
decode_bootstrap (const unsigned char *buf, size_t len, struct runtime_options *out,
                  kg_error_t *err)
{
  struct cursor c = { buf, len, 0, "runtime options (BootstrapParams)" };
  cleanup_options struct runtime_options o = { OPTIONS_NONE, NULL, NULL, NULL, 0, true };
  unsigned seen[ARRAY_SIZE (bootstrap_fields)] = { 0 };
  size_t n_ext = 0;

  while (c.len > 0)
    {
      struct field f;
      size_t k;

      if (read_field (&c, &f, err) < 0)
        return -1;
      for (k = 0; k < ARRAY_SIZE (bootstrap_fields); k++)
        if (bootstrap_fields[k].num == f.num)
          break;
      /* A field kata-guard does not know may say which configuration the
         shim is to use: refused, never skipped. */
      if (k == ARRAY_SIZE (bootstrap_fields))
        {
          return kg_error (err, 0, "%s: field %u at byte %zu is unknown to kata-guard", c.what,
                           f.num, f.at);
        }
      if (f.wire != bootstrap_fields[k].wire)
        {
          return kg_error (err, 0, "%s: %s (field %u) at byte %zu has wire type %u", c.what,
                           bootstrap_fields[k].name, f.num, f.at, f.wire);
        }
      if (f.num != BOOTSTRAP_EXTENSIONS && seen[k]++ > 0)
        {
          return kg_error (err, 0, "%s: %s (field %u) at byte %zu is given twice", c.what,
                           bootstrap_fields[k].name, f.num, f.at);
        }
      if (f.num == BOOTSTRAP_EXTENSIONS)
        {
          /* Extension { google.protobuf.Any value = 1; } */
          struct cursor e = { f.data, f.data_len, f.data_off, "BootstrapParams extension" };
          cleanup_options struct runtime_options any = { OPTIONS_NONE, NULL, NULL, NULL, 0, false };
          struct field g;
          bool have_any = false;

          n_ext++;
          while (e.len > 0)
            {
              if (read_field (&e, &g, err) < 0)
                {
                  return -1;
                }
              if (g.num != 1 || g.wire != WIRE_LEN || have_any)
                {
                  return kg_error (err, 0,
                                   "%s: field %u at byte %zu is not its one value (field 1)",
                                   e.what, g.num, g.at);
                }
              have_any = true;
              if (decode_any ((struct cursor){ g.data, g.data_len, g.data_off,
                                               "BootstrapParams extension (google.protobuf.Any)" },
                              &any, err)
                  < 0)
                return -1;
            }
          if (! have_any)
            {
              return kg_error (err, 0, "%s at byte %zu holds no value", e.what, f.at);
            }
          /* The runtime options are the one runtimeoptions extension, or,
             with none, the first other one (runc's, for a runc shim). */
          if (any.kind == OPTIONS_RUNTIME && o.kind == OPTIONS_RUNTIME)
            {
              return kg_error (err, 0,
                               "%s: two runtime options extensions (the second at byte %zu)",
                               c.what, f.at);
            }
          if (any.kind == OPTIONS_RUNTIME || o.kind == OPTIONS_NONE)
            {
              options_release (&o);
              o = options_take (&any);
              o.bootstrap = true;
            }
          continue;
        }
      if (f.wire == WIRE_LEN)
        {
          char *tmp = NULL;

          if (take_string (&c, &f, bootstrap_fields[k].name, bootstrap_fields[k].max, &tmp, err)
              < 0)
            return -1;
          free (tmp);
        }
    }
  (void) n_ext;
  *out = options_take (&o);
  return 0;
}

int
options_decode (const void *buf, size_t len, const char *id, const char *ns,
                struct runtime_options *out, kg_error_t *err)
{
  memset (out, 0, sizeof *out);
  if (len > KG_OPTIONS_MAX)
    return kg_error (err, 0, "runtime options: %zu bytes, more than the %d allowed", len,
                     KG_OPTIONS_MAX);
  if (len == 0)
    return 0;
  if (is_bootstrap (buf, len, id, ns))
    return decode_bootstrap (buf, len, out, err);
  return decode_any ((struct cursor){ buf, len, 0, "runtime options (google.protobuf.Any)" }, out,
                     err);
}

int
options_result_version (const void *buf, size_t len, int64_t *version)
{
  struct cursor c = { buf, len, 0, "BootstrapResult" };
  bool have_address = false;
  kg_error_t err = NULL;
  int64_t v = 0;

  while (c.len > 0)
    {
      struct cursor at = c;
      struct field f;
      uint64_t raw;

      if (read_field (&c, &f, &err) < 0)
        {
          kg_error_release (&err);
          return -1;
        }
      if (f.num == 1 && f.wire == WIRE_VARINT)
        {
          /* read_field skipped the value: read it again. */
          if (read_varint (&at, &raw, &err) < 0 || read_varint (&at, &raw, &err) < 0)
            {
              kg_error_release (&err);
              return -1;
            }
          v = (int64_t) (int32_t) raw;
        }
      else if (f.num == 2 && f.wire == WIRE_LEN)
        have_address = f.data_len > 0;
      else if (! ((f.num == 3 && f.wire == WIRE_LEN) || (f.num == 4 && f.wire == WIRE_VARINT)
                  || (f.num == 4 && f.wire == WIRE_LEN) || (f.num == 5 && f.wire == WIRE_LEN)))
        return -1;
    }
  if (! have_address)
    return -1;
  *version = v;
  return 0;
}

void
options_release (struct runtime_options *o)
{
  free (o->type_url);
  free (o->inner_type_url);
  free (o->config_path);
  memset (o, 0, sizeof *o);
}
