/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The TOML reader: toml_parse on the whole input; when it parses, it is
 * also merged into itself (toml_merge of a second parse of the same bytes,
 * the way a drop-in overrides the base file) and into a fixed base, and
 * the lookups are walked.  Splitting the input at the first "\n#---\n"
 * gives a base and a drop-in, to reach the merge with differing shapes.
 */
#include "config.h"

#include <string.h>

#include "fuzz.h"
#include "toml.h"

static void
walk (const struct toml_value *v, unsigned depth)
{
  FUZZ_ASSERT (depth <= TOML_MAX_DEPTH + 2);
  switch (v->kind)
    {
    case TOML_STRING:
      FUZZ_ASSERT (v->u.string != NULL);
      (void) strlen (v->u.string);
      break;
    case TOML_ARRAY:
      for (size_t i = 0; i < v->u.array.n; i++)
        walk (v->u.array.items[i], depth + 1);
      break;
    case TOML_TABLE:
      for (size_t i = 0; i < v->u.table.n; i++)
        {
          FUZZ_ASSERT (toml_get (v, v->u.table.items[i].key) != NULL);
          walk (v->u.table.items[i].value, depth + 1);
        }
      break;
    default:
      (void) toml_kind_name (v->kind);
      break;
    }
}

static struct toml_value *
parse (const uint8_t *data, size_t size)
{
  kg_error_t err = NULL;
  struct toml_value *doc = toml_parse ("fuzz.toml", (const char *) data, size, &err);

  if (doc == NULL)
    {
      FUZZ_ASSERT (err != NULL && err->msg != NULL);
      FUZZ_ASSERT (strncmp (err->msg, "fuzz.toml:", 10) == 0);
      kg_error_release (&err);
      return NULL;
    }
  FUZZ_ASSERT (doc->kind == TOML_TABLE);
  walk (doc, 0);
  return doc;
}

static void
merge (struct toml_value *dst, struct toml_value *src)
{
  kg_error_t err = NULL;

  if (toml_merge (dst, src, &err) < 0)
    kg_error_release (&err);
  walk (dst, 0);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  static const char sep[] = "\n#---\n";
  const uint8_t *cut = memmem (data, size, sep, sizeof sep - 1);
  struct toml_value *a = parse (data, size);

  if (a != NULL)
    {
      struct toml_value *b = parse (data, size);

      FUZZ_ASSERT (b != NULL); /* the same bytes parse the same way */
      merge (a, b);
      (void) toml_get_path (a, "hypervisor", "firecracker", "kernel", NULL);
      toml_free (a);
    }
  if (cut != NULL)
    {
      size_t head = (size_t) (cut - data) + 1;
      struct toml_value *base = parse (data, head);
      struct toml_value *drop = parse (data + head, size - head);

      if (base != NULL && drop != NULL)
        merge (base, drop);
      else
        toml_free (drop);
      toml_free (base);
    }
  return 0;
}
