/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The guard's side of the regular-expression oracle (tests/regex-oracle.test):
 * whether kata-guard reads an enable_annotations list as enabling an
 * annotation name, for tests/oracle/regex (Go's regexp, as the Go shim's
 * regexpContains) and tests/oracle/regex-rs (Rust's regex RegexSet, as
 * runtime-rs's is_annotation_enabled) to hold against.
 *
 * Each input line is "NAME PATTERN..." with every field hex-encoded after
 * an 'x' (so that an empty one is "x"); each output line is the input line
 * after the guard's verdict: 1 enabled, 0 not, - cannot tell (the guard
 * refuses: kata.annotations fails, a sizing annotation is taken as
 * applied), t not a Kata configuration (the TOML parser refuses the list:
 * Kata's would too, or the guard never reads it).  The list goes through
 * the product's own toml_parse and kata_annotation_enabled.
 *
 *   KG_REGEX_VIEW_FLIP=N  flips the verdict of the Nth line (from 1) when
 *                         it is 0 or 1: the oracle must then report it.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "error.h"
#include "kata.h"
#include "toml.h"

/* FIELD ("x" and hex digits, up to a blank or the end) decoded into OUT,
   NUL-terminated; the byte after the field, or NULL when it is not one
   or holds a NUL byte. */
static const char *
unhex (const char *field, struct kg_buf *out)
{
  static const char digits[] = "0123456789abcdef";
  const char *c = field + 1;

  if (*field != 'x')
    return NULL;
  for (; *c != '\0' && *c != ' ' && *c != '\n'; c += 2)
    {
      const char *hi = strchr (digits, c[0]), *lo = c[1] ? strchr (digits, c[1]) : NULL;
      char b;

      if (hi == NULL || lo == NULL)
        return NULL;
      b = (char) ((hi - digits) << 4 | (lo - digits));
      if (b == '\0')
        return NULL;
      sb_printf (out, "%c", b);
    }
  return c;
}

/* S as a TOML basic string: '"' and '\\' escaped, control bytes as
   \uXXXX, every other byte as it is (the parser judges the UTF-8). */
static void
toml_quote (struct kg_buf *b, const char *s)
{
  sb_printf (b, "\"");
  for (const unsigned char *c = (const unsigned char *) s; *c; c++)
    if (*c == '"' || *c == '\\')
      sb_printf (b, "\\%c", *c);
    else if (*c < 0x20 || *c == 0x7f)
      sb_printf (b, "\\u%04x", *c);
    else
      sb_printf (b, "%c", *c);
  sb_printf (b, "\"");
}

/* The verdict on LINE: '1', '0', '-', 't', or '?' for a malformed line. */
static char
verdict (const char *line)
{
  cleanup_kg_buf struct kg_buf name = { 0 }, toml = { 0 };
  struct kata_config k = { 0 };
  kg_error_t err = NULL;
  const char *c = unhex (line, &name);
  int on;

  if (c == NULL)
    return '?';
  sb_printf (&toml, "[hypervisor.firecracker]\nenable_annotations = [");
  for (bool first = true; *c == ' '; first = false)
    {
      cleanup_kg_buf struct kg_buf pat = { 0 };

      if ((c = unhex (c + 1, &pat)) == NULL)
        return '?';
      sb_printf (&toml, "%s", first ? "" : ", ");
      toml_quote (&toml, sb_str (&pat));
    }
  sb_printf (&toml, "]\n");
  k.doc = toml_parse ("regex-view.toml", sb_str (&toml), toml.len, &err);
  kg_error_release (&err);
  if (k.doc == NULL)
    return 't';
  k.hypervisor_name = "firecracker";
  k.hypervisor = toml_get_path (k.doc, "hypervisor", "firecracker", NULL);
  on = kata_annotation_enabled (&k, sb_str (&name));
  toml_free (k.doc);
  return on < 0 ? '-' : on ? '1' : '0';
}

int
main (void)
{
  const char *flip_env = getenv ("KG_REGEX_VIEW_FLIP");
  unsigned long flip = flip_env ? strtoul (flip_env, NULL, 10) : 0, n = 0;
  char *line = NULL;
  size_t size = 0;
  ssize_t len;

  while ((len = getline (&line, &size, stdin)) > 0)
    {
      char v;

      if (line[len - 1] == '\n')
        line[--len] = '\0';
      v = verdict (line);
      if (v == '?')
        {
          fprintf (stderr, "regex-view: malformed line %lu\n", n + 1);
          free (line);
          return 2;
        }
      if (++n == flip && (v == '0' || v == '1'))
        v = v == '0' ? '1' : '0';
      printf ("%c %s\n", v, line);
    }
  free (line);
  return ferror (stdin) || fflush (stdout) != 0 ? 2 : 0;
}
