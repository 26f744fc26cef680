/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "array.h"
#include "cleanup.h"
#include "error.h"
#include "tap.h"
#include "toml.h"

/* Tests of the strict TOML reader: real Kata configurations, every
   supported feature, and malformed input that must be refused with the
   right position. */

#define GET(root, ...) toml_get_path ((root), __VA_ARGS__, (const char *) NULL)

static const char *fixtures;

/* ---- helpers --------------------------------------------------------- */

static const char *
str_of (const struct toml_value *v)
{
  return v != NULL && v->kind == TOML_STRING ? v->u.string : NULL;
}

static void
check_str (const struct toml_value *v, const char *want, const char *what)
{
  /* WANT may hold newlines, which TAP descriptions cannot. */
  is_str (str_of (v), want, "%s", what);
}

static void
check_int (const struct toml_value *v, int64_t want, const char *what)
{
  bool is = v != NULL && v->kind == TOML_INTEGER;

  if (! ok (is && v->u.integer == want, "%s == %lld", what, (long long) want))
    {
      if (is)
        printf ("#   got %lld\n", (long long) v->u.integer);
      else
        printf ("#   got %s\n", v == NULL ? "nothing" : toml_kind_name (v->kind));
    }
}

static void
check_bool (const struct toml_value *v, bool want, const char *what)
{
  ok (v != NULL && v->kind == TOML_BOOLEAN && v->u.boolean == want, "%s == %s", what,
      want ? "true" : "false");
}

static void
check_float (const struct toml_value *v, double want, const char *what)
{
  bool is = v != NULL && v->kind == TOML_FLOAT;

  if (! ok (is && (v->u.floating == want || fabs (v->u.floating - want) <= fabs (want) * 1e-15),
            "%s == %g", what, want))
    if (is)
      printf ("#   got %.17g\n", v->u.floating);
}

/* ARRAY is an array of exactly the N strings in WANT. */
static void
check_str_array (const struct toml_value *v, const char *const *want, size_t n, const char *what)
{
  bool good = v != NULL && v->kind == TOML_ARRAY && v->u.array.n == n;

  for (size_t i = 0; good && i < n; i++)
    good = str_of (v->u.array.items[i]) != NULL
           && strcmp (v->u.array.items[i]->u.string, want[i]) == 0;
  ok (good, "%s is an array of %zu expected strings", what, n);
}

static size_t
table_size (const struct toml_value *v)
{
  return v != NULL && v->kind == TOML_TABLE ? v->u.table.n : (size_t) -1;
}

static size_t
array_size (const struct toml_value *v)
{
  return v != NULL && v->kind == TOML_ARRAY ? v->u.array.n : (size_t) -1;
}

/* Parse TEXT, which must be valid. */
static struct toml_value *
parse_good (const char *text, size_t len, const char *what)
{
  cleanup_error kg_error_t err = NULL;
  struct toml_value *v = toml_parse ("test", text, len, &err);

  if (! ok (v != NULL && v->kind == TOML_TABLE, "parses: %s", what))
    printf ("#   error: %s\n", err != NULL ? err->msg : "(none)");
  return v;
}
#define PARSE(text, what) parse_good ((text), strlen (text), (what))

/* Parse TEXT (LEN bytes), which must be refused at LINE (and COLUMN, when
   not 0) with a message containing MSG. */
static void
check_refused (const char *what, const char *text, size_t len, unsigned line, unsigned column,
               const char *msg)
{
  cleanup_error kg_error_t err = NULL;
  struct toml_value *v = toml_parse ("test", text, len, &err);
  const char *got = err != NULL ? err->msg : NULL;
  unsigned l = 0, c = 0;
  int n = 0;
  bool shape;

  ok (v == NULL && err != NULL, "refused: %s", what);
  toml_free (v);
  /* Always exactly "test:LINE:COLUMN: message". */
  shape = got != NULL && sscanf (got, "test:%u:%u:%n", &l, &c, &n) == 2 && n > 0 && got[n] == ' '
          && got[n + 1] != ' ' && got[n + 1] != '\0';
  if (! ok (shape && l == line && (column == 0 || c == column), "%s: at %u:%u", what, line, column))
    printf ("#   got \"%s\"\n", got != NULL ? got : "(null)");
  has_str (got, msg, "%s: says \"%s\"", what, msg);
}

static char *
repeat (const char *head, const char *unit, size_t n, const char *tail)
{
  size_t hl = strlen (head), ul = strlen (unit), tl = strlen (tail);
  char *s = malloc (hl + ul * n + tl + 1), *p = s;

  if (s == NULL)
    abort ();
  memcpy (p, head, hl);
  p += hl;
  for (size_t i = 0; i < n; i++, p += ul)
    memcpy (p, unit, ul);
  memcpy (p, tail, tl + 1);
  return s;
}

/* "a = [[...[1]...]]" with N arrays. */
static char *
nested_arrays (size_t n)
{
  cleanup_free char *open = repeat ("a = ", "[", n, "1");

  return repeat (open, "]", n, "\n");
}

/* LEN bytes of comment lines, each 64 bytes long. */
static char *
comment_lines (size_t len)
{
  char *s = malloc (len + 1);

  if (s == NULL)
    abort ();
  memset (s, '#', len);
  for (size_t i = 63; i < len; i += 64)
    s[i] = '\n';
  s[len] = '\0';
  return s;
}

static char *
write_temp (const char *data, size_t len)
{
  const char *tmp = getenv ("TMPDIR");
  char *path = NULL;
  int fd;

  if (asprintf (&path, "%s/test-toml-XXXXXX", tmp != NULL && *tmp != '\0' ? tmp : "/tmp") < 0)
    abort ();
  fd = mkstemp (path);
  if (fd < 0)
    abort ();
  for (size_t off = 0; off < len;)
    {
      ssize_t r = write (fd, data + off, len - off);

      if (r < 0 && errno == EINTR)
        continue;
      if (r <= 0)
        abort ();
      off += (size_t) r;
    }
  close (fd);
  return path;
}

static struct toml_value *
parse_fixture (const char *file)
{
  cleanup_free char *path = NULL;
  cleanup_error kg_error_t err = NULL;
  struct toml_value *v;

  if (asprintf (&path, "%s/kata/%s", fixtures, file) < 0)
    abort ();
  v = toml_parse_file (path, &err);
  if (! ok (v != NULL, "fixture %s parses", file))
    printf ("#   error: %s\n", err != NULL ? err->msg : "(none)");
  return v;
}

/* ---- 1. the real Kata configurations ---------------------------------- */

static void
test_fixtures (void)
{
  static const char *const annotations[] = { "enable_iommu", "kernel_params",
                                             "kernel_verity_params" };
  static const char *const entropy[] = { "/dev/urandom", "/dev/random", "" };
  static const char *const fs_args[] = { "--thread-pool-size=1", "--announce-submounts" };
  const struct toml_value *fc, *h;
  cleanup_toml struct toml_value *fc_root = parse_fixture ("configuration-fc.toml");
  cleanup_toml struct toml_value *qemu = parse_fixture ("configuration-qemu.toml");
  cleanup_toml struct toml_value *clh = parse_fixture ("configuration-clh.toml");
  cleanup_toml struct toml_value *rs = parse_fixture ("configuration-rs-fc.toml");

  fc = GET (fc_root, "hypervisor", "firecracker");
  ok (fc != NULL && fc->kind == TOML_TABLE && (fc->flags & TOML_F_EXPLICIT),
      "fc: [hypervisor.firecracker] is an explicit table");
  check_str (toml_get (fc, "path"), "/opt/kata/bin/firecracker", "fc: path");
  check_str (toml_get (fc, "kernel"), "/opt/kata/share/kata-containers/vmlinux.container",
             "fc: kernel");
  check_str (toml_get (fc, "image"), "/opt/kata/share/kata-containers/kata-containers.img",
             "fc: image");
  check_str (toml_get (fc, "jailer_path"), "/opt/kata/bin/jailer", "fc: jailer_path");
  check_int (toml_get (fc, "default_memory"), 2048, "fc: default_memory");
  check_int (toml_get (fc, "default_vcpus"), 1, "fc: default_vcpus");
  check_int (toml_get (fc, "msize_9p"), 8192, "fc: msize_9p");
  check_str (toml_get (fc, "block_device_driver"), "virtio-mmio", "fc: block_device_driver");
  check_str (toml_get (fc, "entropy_source"), "/dev/urandom", "fc: entropy_source (key= value)");
  check_str_array (toml_get (fc, "enable_annotations"), annotations, 3, "fc: enable_annotations");
  check_str_array (toml_get (fc, "valid_entropy_sources"), entropy, 3, "fc: valid_entropy_sources");
  check_bool (toml_get (fc, "enable_debug"), false, "fc: hypervisor enable_debug");
  check_bool (GET (fc_root, "agent", "kata", "debug_console_enabled"), false,
              "fc: agent.kata.debug_console_enabled");
  is_int (array_size (GET (fc_root, "agent", "kata", "kernel_modules")), 0,
          "fc: agent.kata.kernel_modules is an empty array");
  check_int (GET (fc_root, "agent", "kata", "dial_timeout"), 45, "fc: agent.kata.dial_timeout");
  check_bool (GET (fc_root, "runtime", "disable_guest_seccomp"), true,
              "fc: runtime.disable_guest_seccomp");
  check_str (GET (fc_root, "runtime", "internetworking_model"), "tcfilter",
             "fc: runtime.internetworking_model");
  check_bool (GET (fc_root, "factory", "enable_template"), false, "fc: factory.enable_template");
  ok (fc != NULL && fc->line == 14 && fc->column == 1, "fc: the table records its header line");

  h = GET (qemu, "hypervisor", "qemu");
  check_str (toml_get (h, "path"), "/opt/kata/bin/qemu-system-x86_64", "qemu: path");
  check_str (toml_get (h, "kernel"), "/opt/kata/share/kata-containers/vmlinuz.container",
             "qemu: kernel");
  check_str (toml_get (h, "machine_type"), "q35", "qemu: machine_type");
  check_str (toml_get (h, "shared_fs"), "virtio-fs", "qemu: shared_fs");
  check_int (toml_get (h, "default_memory"), 2048, "qemu: default_memory");
  check_int (toml_get (h, "virtio_fs_queue_size"), 1024, "qemu: virtio_fs_queue_size");
  check_str_array (toml_get (h, "virtio_fs_extra_args"), fs_args, 2, "qemu: virtio_fs_extra_args");
  check_bool (toml_get (h, "rootless"), false, "qemu: rootless");

  h = GET (clh, "hypervisor", "clh");
  check_str (toml_get (h, "path"), "/opt/kata/bin/cloud-hypervisor", "clh: path");
  check_str (toml_get (h, "block_device_driver"), "virtio-blk", "clh: block_device_driver");
  check_bool (toml_get (h, "disable_guest_selinux"), true, "clh: disable_guest_selinux");
  check_int (toml_get (h, "default_maxvcpus"), 0, "clh: default_maxvcpus");

  h = GET (rs, "hypervisor", "firecracker");
  check_str (toml_get (h, "jailer_path"), "/opt/kata/bin/jailer", "rs-fc: jailer_path");
  check_int (toml_get (h, "queue_size"), 128, "rs-fc: queue_size");
  check_str (toml_get (h, "entropy_source"), "/dev/urandom", "rs-fc: entropy_source");
  check_int (GET (rs, "agent", "kata", "dial_timeout_ms"), 45000, "rs-fc: dial_timeout_ms");
  check_str (GET (rs, "runtime", "name"), "kata-runtime", "rs-fc: runtime.name");
  check_str (GET (rs, "runtime", "hypervisor_name"), "firecracker",
             "rs-fc: runtime.hypervisor_name");
  check_bool (GET (rs, "runtime", "sandbox_cgroup_only"), true, "rs-fc: sandbox_cgroup_only");

  is_int (table_size (toml_get (fc_root, "hypervisor")), 1, "fc: one table under hypervisor");
  is_int (table_size (toml_get (qemu, "hypervisor")), 1, "qemu: one table under hypervisor");
  is_int (table_size (toml_get (clh, "hypervisor")), 1, "clh: one table under hypervisor");
  is_int (table_size (toml_get (rs, "hypervisor")), 1, "rs-fc: one table under hypervisor");
}

/* ---- 2. valid syntax ------------------------------------------------- */

static void
test_strings (void)
{
  cleanup_toml struct toml_value *r
      = PARSE ("esc = \"a\\tb\\n\\\"q\\\" \\\\ \\u00e9 \\U0001F600 \\b\\f\\r\"\n"
               "raw = \"h\xc3\xa9llo \xe2\x98\x83\ttab\"\n"
               "lit = 'C:\\Users\\node\\n'\n"
               "quote = 'say \"hi\"'\n"
               "ml = \"\"\"\nRoses \\\n     are \\   \n\n  red\"\"\"\n"
               "ml2 = \"\"\"a\"\"b\"\"\"\n"
               "ml3 = \"\"\"x\"\"\"\"\n"
               "ml4 = \"\"\"x\"\"\"\"\"\n"
               "ml5 = \"\"\"two\nlines\\ttab\"\"\"\n"
               "mll = '''\nfirst\n  \\second \"\"'''\n"
               "mll2 = '''x'''''\n"
               "empty = \"\"\n"
               "empty2 = ''\n",
               "strings");

  check_str (toml_get (r, "esc"), "a\tb\n\"q\" \\ \xc3\xa9 \xf0\x9f\x98\x80 \b\f\r", "escapes");
  check_str (toml_get (r, "raw"), "h\xc3\xa9llo \xe2\x98\x83\ttab", "raw UTF-8 and tab");
  check_str (toml_get (r, "lit"), "C:\\Users\\node\\n", "literal string keeps backslashes");
  check_str (toml_get (r, "quote"), "say \"hi\"", "literal string with double quotes");
  check_str (toml_get (r, "ml"), "Roses are red", "line-ending backslash trims");
  check_str (toml_get (r, "ml2"), "a\"\"b", "two quotes inside \"\"\"");
  check_str (toml_get (r, "ml3"), "x\"", "one quote before the closing \"\"\"");
  check_str (toml_get (r, "ml4"), "x\"\"", "two quotes before the closing \"\"\"");
  check_str (toml_get (r, "ml5"), "two\nlines\ttab", "multi-line basic keeps newlines");
  check_str (toml_get (r, "mll"), "first\n  \\second \"\"", "multi-line literal");
  check_str (toml_get (r, "mll2"), "x''", "quotes before the closing '''");
  check_str (toml_get (r, "empty"), "", "empty basic string");
  check_str (toml_get (r, "empty2"), "", "empty literal string");
}

static void
test_numbers (void)
{
  cleanup_toml struct toml_value *r
      = PARSE ("d = 1_000_000\nn = -42\np = +17\nz = -0\nzero = 0\n"
               "max = 9223372036854775807\nmin = -9223372036854775808\n"
               "h = 0xDEAD_beef\nhmax = 0x7fffffffffffffff\no = 0o755\nb = 0b1101\nh0 = 0x00\n"
               "f1 = 3.1415\nf2 = -0.01\nf3 = 5e+22\nf4 = 1e06\nf5 = -2E-2\nf6 = 6.626e-34\n"
               "f7 = 224_617.445_991_228\nf8 = 0.0\nf9 = -0.0\nf10 = 1e1_0\n"
               "i1 = inf\ni2 = +inf\ni3 = -inf\nn1 = nan\nn2 = +nan\nn3 = -nan\n"
               "t = true\nf = false\n",
               "numbers and booleans");
  const struct toml_value *v;

  check_int (toml_get (r, "d"), 1000000, "underscores");
  check_int (toml_get (r, "n"), -42, "negative");
  check_int (toml_get (r, "p"), 17, "explicit plus");
  check_int (toml_get (r, "z"), 0, "-0");
  check_int (toml_get (r, "zero"), 0, "0");
  check_int (toml_get (r, "max"), INT64_MAX, "INT64_MAX");
  check_int (toml_get (r, "min"), INT64_MIN, "INT64_MIN");
  check_int (toml_get (r, "h"), 0xdeadbeef, "hex with underscore, mixed case");
  check_int (toml_get (r, "hmax"), INT64_MAX, "largest hex");
  check_int (toml_get (r, "o"), 0755, "octal");
  check_int (toml_get (r, "b"), 13, "binary");
  check_int (toml_get (r, "h0"), 0, "hex leading zeros are fine");
  check_float (toml_get (r, "f1"), 3.1415, "fraction");
  check_float (toml_get (r, "f2"), -0.01, "negative fraction");
  check_float (toml_get (r, "f3"), 5e22, "exponent with sign");
  check_float (toml_get (r, "f4"), 1e6, "exponent with leading zero");
  check_float (toml_get (r, "f5"), -2e-2, "capital E, negative exponent");
  check_float (toml_get (r, "f6"), 6.626e-34, "fraction and exponent");
  check_float (toml_get (r, "f7"), 224617.445991228, "underscores in a float");
  check_float (toml_get (r, "f8"), 0.0, "0.0");
  v = toml_get (r, "f9");
  ok (v != NULL && v->kind == TOML_FLOAT && v->u.floating == 0.0 && signbit (v->u.floating),
      "-0.0 keeps its sign");
  check_float (toml_get (r, "f10"), 1e10, "underscore in the exponent");
  v = toml_get (r, "i1");
  ok (v != NULL && v->kind == TOML_FLOAT && isinf (v->u.floating) && v->u.floating > 0, "inf");
  v = toml_get (r, "i2");
  ok (v != NULL && v->kind == TOML_FLOAT && isinf (v->u.floating) && v->u.floating > 0, "+inf");
  v = toml_get (r, "i3");
  ok (v != NULL && v->kind == TOML_FLOAT && isinf (v->u.floating) && v->u.floating < 0, "-inf");
  v = toml_get (r, "n1");
  ok (v != NULL && v->kind == TOML_FLOAT && isnan (v->u.floating), "nan");
  v = toml_get (r, "n2");
  ok (v != NULL && v->kind == TOML_FLOAT && isnan (v->u.floating), "+nan");
  v = toml_get (r, "n3");
  ok (v != NULL && v->kind == TOML_FLOAT && isnan (v->u.floating), "-nan");
  check_bool (toml_get (r, "t"), true, "true");
  check_bool (toml_get (r, "f"), false, "false");
}

static void
test_arrays (void)
{
  static const char *const multi[] = { "a", "b", "c" };
  cleanup_toml struct toml_value *r = PARSE ("nested = [[1, 2], [\"a\", 'b'], [[3]], []]\n"
                                             "multi = [  # comment after the bracket\n"
                                             "  \"a\",\n"
                                             "\n"
                                             "  # a whole-line comment\n"
                                             "  \"b\" , \"c\",  # trailing comma\n"
                                             "]\n"
                                             "mixed = [1, \"x\", 2.5, true, [false]]\n"
                                             "empty = []\n"
                                             "spaced = [ 1 , 2 ]\n"
                                             "tight=[1,2,3]\n",
                                             "arrays");
  const struct toml_value *v = toml_get (r, "nested");

  ok (array_size (v) == 4 && array_size (v->u.array.items[0]) == 2
          && array_size (v->u.array.items[2]) == 1
          && array_size (v->u.array.items[2]->u.array.items[0]) == 1
          && array_size (v->u.array.items[3]) == 0,
      "nested arrays have the right shape");
  if (array_size (v) == 4 && array_size (v->u.array.items[2]) == 1)
    check_int (v->u.array.items[2]->u.array.items[0]->u.array.items[0], 3, "nested[2][0][0]");
  check_str_array (toml_get (r, "multi"), multi, 3, "multi-line array with comments");
  v = toml_get (r, "mixed");
  ok (array_size (v) == 5 && v->u.array.items[0]->kind == TOML_INTEGER
          && v->u.array.items[1]->kind == TOML_STRING && v->u.array.items[2]->kind == TOML_FLOAT
          && v->u.array.items[3]->kind == TOML_BOOLEAN && v->u.array.items[4]->kind == TOML_ARRAY,
      "mixed types in one array");
  is_int (array_size (toml_get (r, "empty")), 0, "empty array");
  is_int (array_size (toml_get (r, "spaced")), 2, "spaces around items");
  is_int (array_size (toml_get (r, "tight")), 3, "no spaces at all");
}

static void
test_keys_and_tables (void)
{
  cleanup_toml struct toml_value *r = PARSE ("# leading comment\n"
                                             "\n"
                                             "  indented = 1   # trailing comment\n"
                                             "\"key with spaces\" = 2\n"
                                             "'literal key' = 3\n"
                                             "\"\" = 4\n"
                                             "1234 = 5\n"
                                             "3.14159 = \"pi\"\n"
                                             "site.\"google.com\" = true\n"
                                             "a.b.c = 1\n"
                                             "a . b . d = 2\n"
                                             "bare-key_2 = 6\n"
                                             "\t[ dog . \"tater.man\" ]  # header comment\n"
                                             "type.name = \"pug\"\n"
                                             "[fruit]\n"
                                             "apple.color = \"red\"\n"
                                             "apple.taste.sweet = true\n"
                                             "[fruit.apple.texture]\n"
                                             "smooth = true\n"
                                             "[x.y.z.w]\n"
                                             "[x]\n"
                                             "k = 1\n",
                                             "keys and tables");
  const struct toml_value *v;

  check_int (toml_get (r, "indented"), 1, "indented key, trailing comment");
  check_int (toml_get (r, "key with spaces"), 2, "basic quoted key");
  check_int (toml_get (r, "literal key"), 3, "literal quoted key");
  check_int (toml_get (r, ""), 4, "empty quoted key");
  check_int (toml_get (r, "1234"), 5, "numeric bare key");
  check_str (GET (r, "3", "14159"), "pi", "3.14159 is a dotted key");
  check_bool (GET (r, "site", "google.com"), true, "quoted part in a dotted key");
  check_int (GET (r, "a", "b", "c"), 1, "a.b.c");
  check_int (GET (r, "a", "b", "d"), 2, "dotted key with spaces around the dots");
  check_int (toml_get (r, "bare-key_2"), 6, "bare key with - and _");
  v = toml_get (r, "a");
  ok (v != NULL && v->kind == TOML_TABLE && v->flags == TOML_F_DOTTED,
      "a table made by dotted keys is flagged TOML_F_DOTTED");
  check_str (GET (r, "dog", "tater.man", "type", "name"), "pug",
             "header with spaces, quoted part and a dotted key under it");
  check_str (GET (r, "fruit", "apple", "color"), "red", "fruit.apple.color");
  check_bool (GET (r, "fruit", "apple", "taste", "sweet"), true, "fruit.apple.taste.sweet");
  check_bool (GET (r, "fruit", "apple", "texture", "smooth"), true,
              "a header may add a sub-table to a dotted-key table");
  check_int (GET (r, "x", "k"), 1, "[x.y.z.w] then [x]");
  v = GET (r, "x", "y");
  ok (v != NULL && v->kind == TOML_TABLE && v->flags == TOML_F_IMPLICIT,
      "x.y was only created implicitly");
  v = toml_get (r, "x");
  ok (v != NULL && v->flags == TOML_F_EXPLICIT && v->line == 21 && v->column == 1,
      "[x] defined it explicitly, at its own header");
}

static void
test_positions (void)
{
  cleanup_toml struct toml_value *r = PARSE ("a = 1\n[t]\n  key  =   \"v\"\n", "positions");
  const struct toml_value *t = toml_get (r, "t");

  ok (t != NULL && t->line == 2 && t->column == 1, "table at its header (2:1)");
  ok (t != NULL && table_size (t) == 1 && t->u.table.items[0].line == 3
          && t->u.table.items[0].column == 3,
      "entry at its key (3:3)");
  ok (t != NULL && table_size (t) == 1 && t->u.table.items[0].value->line == 3
          && t->u.table.items[0].value->column == 12,
      "value at its start (3:12)");
  ok (r != NULL && r->u.table.items[0].value->column == 5, "first value at 1:5");
}

static void
test_array_of_tables (void)
{
  cleanup_toml struct toml_value *r = PARSE ("[[products]]\n"
                                             "name = \"Hammer\"\n"
                                             "[products.dims]\n"
                                             "w = 1\n"
                                             "\n"
                                             "[[products]]  # second\n"
                                             "name = \"Nail\"\n"
                                             "[[fruits]]\n"
                                             "name = \"apple\"\n"
                                             "[[fruits.varieties]]\n"
                                             "name = \"red delicious\"\n"
                                             "[[fruits.varieties]]\n"
                                             "name = \"granny smith\"\n"
                                             "[[ fruits ]]\n"
                                             "name = \"banana\"\n"
                                             "[[fruits.varieties]]\n"
                                             "name = \"plantain\"\n",
                                             "arrays of tables");
  const struct toml_value *p = toml_get (r, "products"), *f = toml_get (r, "fruits");

  ok (p != NULL && p->kind == TOML_ARRAY && (p->flags & TOML_F_AOT) && p->u.array.n == 2,
      "[[products]] is an array of two tables flagged TOML_F_AOT");
  if (array_size (p) == 2)
    {
      check_str (toml_get (p->u.array.items[0], "name"), "Hammer", "products[0].name");
      check_int (GET (p->u.array.items[0], "dims", "w"), 1, "[products.dims] is in products[0]");
      check_str (toml_get (p->u.array.items[1], "name"), "Nail", "products[1].name");
      ok (toml_get (p->u.array.items[1], "dims") == NULL, "products[1] has no dims");
    }
  ok (array_size (f) == 2, "two fruits");
  if (array_size (f) == 2)
    {
      is_int (array_size (toml_get (f->u.array.items[0], "varieties")), 2,
              "first fruit has two varieties");
      is_int (array_size (toml_get (f->u.array.items[1], "varieties")), 1,
              "second fruit has one variety");
      if (array_size (toml_get (f->u.array.items[1], "varieties")) == 1)
        check_str (toml_get (toml_get (f->u.array.items[1], "varieties")->u.array.items[0], "name"),
                   "plantain", "fruits[1].varieties[0].name");
    }
}

static void
test_line_endings_and_limits (void)
{
  cleanup_toml struct toml_value *crlf = NULL, *bom = NULL, *longest = NULL, *deep = NULL;
  cleanup_toml struct toml_value *empty = NULL, *deep_key = NULL, *longest_crlf = NULL;
  cleanup_toml struct toml_value *biggest = NULL, *biggest_file = NULL;
  cleanup_free char *line = NULL, *line_crlf = NULL, *nest = NULL, *key = NULL;
  cleanup_free char *big = NULL, *path = NULL;
  cleanup_error kg_error_t err = NULL;
  static const char crlf_text[]
      = "a = 1\r\nb = \"x\" # c\r\n[t]\r\nc = '''l1\r\nl2'''\r\n"
        "d = \"\"\"x \\\r\n  y\"\"\"\r\narr = [\r\n1,\r\n2]\r\ne = \"\"\"m1\r\nm2\"\"\"\r\n";

  crlf = PARSE (crlf_text, "CRLF line endings");
  check_int (toml_get (crlf, "a"), 1, "CRLF: a");
  check_str (toml_get (crlf, "b"), "x", "CRLF: b");
  /* As BurntSushi/toml (Kata's decoder) reads them: kept in a literal
     multi-line string, LF in a basic one. */
  check_str (GET (crlf, "t", "c"), "l1\r\nl2",
             "CRLF in a multi-line literal string is kept as written");
  check_str (GET (crlf, "t", "e"), "m1\nm2", "CRLF in a multi-line basic string is read as LF");
  check_str (GET (crlf, "t", "d"), "x y", "CRLF after a line-ending backslash");
  is_int (array_size (GET (crlf, "t", "arr")), 2, "CRLF in an array");

  bom = PARSE ("\xef\xbb\xbf"
               "a = 1\n",
               "a BOM at the start");
  check_int (toml_get (bom, "a"), 1, "BOM skipped");

  empty = parse_good ("", 0, "empty input");
  is_int (table_size (empty), 0, "empty input is an empty table");

  /* A line of exactly TOML_MAX_LINE bytes is still fine. */
  line = repeat ("a = \"", "x", TOML_MAX_LINE - 6, "\"\n");
  longest = PARSE (line, "a line of exactly TOML_MAX_LINE bytes");
  ok (str_of (toml_get (longest, "a")) != NULL
          && strlen (str_of (toml_get (longest, "a"))) == TOML_MAX_LINE - 6,
      "its value is whole");
  line_crlf = repeat ("a = \"", "x", TOML_MAX_LINE - 6, "\"\r\n");
  longest_crlf = PARSE (line_crlf, "the CR of CRLF does not count towards the line length");

  /* The key takes one level: 31 arrays fill the remaining ones. */
  nest = nested_arrays (TOML_MAX_DEPTH - 1);
  deep = PARSE (nest, "arrays nested up to TOML_MAX_DEPTH");
  key = repeat ("k", ".k", TOML_MAX_DEPTH - 1, " = 1\n");
  deep_key = PARSE (key, "a dotted key of TOML_MAX_DEPTH parts");

  /* Exactly TOML_MAX_SIZE bytes is still fine, in memory and as a file. */
  big = comment_lines (TOML_MAX_SIZE);
  biggest = parse_good (big, TOML_MAX_SIZE, "input of exactly TOML_MAX_SIZE bytes");
  path = write_temp (big, TOML_MAX_SIZE);
  biggest_file = toml_parse_file (path, &err);
  if (! ok (biggest_file != NULL, "a file of exactly TOML_MAX_SIZE bytes"))
    printf ("#   error: %s\n", err != NULL ? err->msg : "(none)");
  unlink (path);
}

/* ---- 3. malformed input ---------------------------------------------- */

struct bad
{
  const char *what;
  const char *text;
  size_t len; /* 0: strlen (text) */
  unsigned line, column;
  const char *msg;
};

static const struct bad bad_cases[] = {
  { "unterminated basic string", "a = \"abc", 0, 1, 5, "unterminated basic string" },
  { "unterminated literal string", "a = 'abc", 0, 1, 5, "unterminated literal string" },
  { "unterminated multi-line basic", "a = \"\"\"abc\nxyz\n", 0, 1, 5,
    "unterminated multi-line basic string" },
  { "unterminated multi-line literal", "x = 1\na = '''abc\n\n", 0, 2, 5,
    "unterminated multi-line literal string" },
  { "newline in a basic string", "a = \"abc\nb = 1\"\n", 0, 1, 9, "newline" },
  { "newline in a literal string", "a = 'abc\n'\n", 0, 1, 9, "newline" },
  { "bad escape \\q", "a = \"x\\qy\"\n", 0, 1, 7, "invalid escape sequence '\\q'" },
  { "bad escape \\x (TOML 1.1 only)", "a = \"\\x41\"\n", 0, 1, 6, "invalid escape" },
  { "backslash-newline in a basic string", "a = \"x\\\ny\"\n", 0, 1, 7, "invalid escape" },
  { "blanks then text after a backslash", "a = \"\"\"x\\  y\"\"\"\n", 0, 1, 9,
    "line-ending backslash" },
  { "\\u with too few hex digits", "a = \"\\u12\"\n", 0, 1, 6, "4 hex digits" },
  { "\\U with too few hex digits", "a = \"\\U0001F60\"\n", 0, 1, 6, "8 hex digits" },
  { "\\uD800 surrogate", "a = \"\\uD800\"\n", 0, 1, 6, "surrogate" },
  { "\\u0000", "a = \"\\u0000\"\n", 0, 1, 6, "cannot contain NUL" },
  { "\\U past U+10FFFF", "a = \"\\U00110000\"\n", 0, 1, 6, "beyond U+10FFFF" },
  { "duplicate key", "a = 1\nb = 2\na = 3\n", 0, 3, 1, "duplicate key 'a'" },
  { "duplicate key via dotted key", "a.b = 1\na.b = 2\n", 0, 2, 3, "duplicate key 'a.b'" },
  { "key redefined as a table by a dotted key", "a.b = 1\na = 2\n", 0, 2, 1, "duplicate key 'a'" },
  { "dotted key through a value", "a = 1\na.b = 2\n", 0, 2, 1, "already an integer" },
  { "duplicate table", "[a]\nx = 1\n[a]\n", 0, 3, 1, "table [a] is defined twice" },
  { "duplicate sub-table", "[a.b]\n[a]\n[a.b]\n", 0, 3, 1, "defined twice" },
  { "table redefines a key", "a = 1\n[a]\n", 0, 2, 2, "cannot define table [a]" },
  { "table redefines a key in a table", "[t]\nb = \"x\"\n[t.b]\n", 0, 3, 4, "already a string" },
  { "header through a value", "a = 1\n[a.b]\n", 0, 2, 2, "cannot use 'a' as a table" },
  { "[a] after a was made by dotted keys", "a.b = 1\n[a]\n", 0, 2, 1, "dotted keys" },
  { "[a.b] after dotted keys in [a]", "[a]\nb.c = 1\n[a.b]\n", 0, 3, 1,
    "table [a.b] was already defined by dotted keys" },
  { "dotted keys into a header table", "[a.b]\nx = 1\n[a]\nb.y = 2\n", 0, 4, 1,
    "defined by a [header]" },
  { "[[a]] after a = []", "a = []\n[[a]]\n", 0, 2, 3, "static array" },
  { "[[a]] after [a]", "[a]\n[[a]]\n", 0, 2, 3, "already a table" },
  { "[a] after [[a]]", "[[a]]\n[a]\n", 0, 2, 1, "array of tables" },
  { "key without value", "key\n", 0, 1, 4, "expected '=' after the key 'key'" },
  { "key and = without value", "key =\n", 0, 1, 6, "expected a value, found end of line" },
  { "key and = at the end", "key = ", 0, 1, 7, "expected a value, found end of input" },
  { "value without key", "= 1\n", 0, 1, 1, "expected a key, found '='" },
  { "unknown bare value", "key = yes\n", 0, 1, 7, "unknown value 'yes'" },
  { "bare word after true", "key = trueish\n", 0, 1, 7, "unknown value" },
  { "garbage after a value", "key = 1 2\n", 0, 1, 9, "after the value, found '2'" },
  { "garbage after a string", "key = \"a\" \"b\"\n", 0, 1, 11, "after the value" },
  { "garbage after a header", "[a] b = 1\n", 0, 1, 5, "after the table header" },
  { "leading zero", "a = 01\n", 0, 1, 5, "leading zeros" },
  { "leading zero in a float", "a = 00.5\n", 0, 1, 5, "leading zeros" },
  { "double underscore", "a = 1__0\n", 0, 1, 6, "underscore" },
  { "leading underscore", "a = _1\n", 0, 1, 5, "underscore" },
  { "trailing underscore", "a = 1_\n", 0, 1, 6, "underscore" },
  { "underscore before the fraction", "a = 1_.5\n", 0, 1, 6, "underscore" },
  { "empty 0x", "a = 0x\n", 0, 1, 7, "expected digits after '0x'" },
  { "signed hex", "a = +0x10\n", 0, 1, 5, "sign is not allowed" },
  { "bad binary digit", "a = 0b102\n", 0, 1, 9, "invalid character '2'" },
  { "capital 0X", "a = 0X10\n", 0, 1, 6, "invalid character 'X'" },
  { "int64 overflow", "a = 9223372036854775808\n", 0, 1, 5, "integer out of range" },
  { "int64 underflow", "a = -9223372036854775809\n", 0, 1, 5, "integer out of range" },
  { "hex overflow", "a = 0x8000000000000000\n", 0, 1, 5, "integer out of range" },
  { "float 1.", "a = 1.\n", 0, 1, 7, "digit after the '.'" },
  { "float .5", "a = .5\n", 0, 1, 5, "digit before the '.'" },
  { "float 1e", "a = 1e\n", 0, 1, 7, "exponent" },
  { "float 1.e5", "a = 1.e5\n", 0, 1, 7, "digit after the '.'" },
  { "float 1.5.3", "a = 1.5.3\n", 0, 1, 8, "invalid character '.'" },
  { "float overflow", "a = 1e999\n", 0, 1, 5, "float out of range" },
  { "capitalised inf", "a = Inf\n", 0, 1, 5, "unknown value" },
  { "lone sign", "a = +\n", 0, 1, 6, "expected a digit" },
  { "inline table", "a = { b = 1 }\n", 0, 1, 5, "inline tables are not supported" },
  { "inline table in an array", "a = [{}]\n", 0, 1, 6, "inline tables are not supported" },
  { "offset date-time", "a = 1979-05-27T07:32:00Z\n", 0, 1, 5,
    "date-time values are not supported" },
  { "local date", "a = 1979-05-27\n", 0, 1, 5, "date-time values are not supported" },
  { "local time", "a = 07:32:00\n", 0, 1, 5, "date-time values are not supported" },
  { "NUL byte", "a = 1\0\n", 7, 1, 6, "NUL byte" },
  { "NUL byte in a string", "a = \"x\0\"\n", 9, 1, 7, "NUL byte" },
  { "invalid UTF-8 0xff", "a = \"\xff\"\n", 0, 1, 6, "invalid UTF-8" },
  { "overlong UTF-8 0xc0 0x80", "a = \"\xc0\x80\"\n", 0, 1, 6, "invalid UTF-8" },
  { "overlong 3-byte UTF-8", "# \xe0\x80\xaf\n", 0, 1, 3, "invalid UTF-8" },
  { "UTF-8 surrogate", "a = \"\xed\xa0\x80\"\n", 0, 1, 6, "invalid UTF-8" },
  { "truncated UTF-8", "a = 1 # \xe2\x98", 0, 1, 9, "invalid UTF-8" },
  { "control character 0x01 in a comment", "# x\x01y\n", 0, 1, 4, "control character 0x01" },
  { "control character in a string", "a = \"\x1b[31m\"\n", 0, 1, 6, "control character 0x1b" },
  { "DEL in a string", "a = '\x7f'\n", 0, 1, 6, "control character 0x7f" },
  { "lone carriage return", "a = 1\rb = 2\n", 0, 1, 6, "carriage return" },
  { "BOM not at the start",
    "a = 1\n\xef\xbb\xbf"
    "b = 2\n",
    0, 2, 1, "byte order mark" },
  { "two BOMs",
    "\xef\xbb\xbf\xef\xbb\xbf"
    "a = 1\n",
    0, 1, 1, "byte order mark" },
  { "columns count from after a BOM",
    "\xef\xbb\xbf"
    "a = yes\n",
    0, 1, 5, "unknown value" },
  { "byte errors count from after a BOM",
    "\xef\xbb\xbf"
    "a = \x01\n",
    0, 1, 5, "control character" },
  { "unclosed [table", "[table\nx = 1\n", 0, 1, 7, "expected ']' to close the header" },
  { "unclosed [[table]", "[[table]\n", 0, 1, 9, "expected ']]'" },
  { "empty table name", "[]\n", 0, 1, 2, "expected a key, found ']'" },
  { "trailing dot in a table name", "[a.]\n", 0, 1, 4, "expected a key" },
  { "trailing dot in a key", "a. = 1\n", 0, 1, 4, "expected a key" },
  { "multi-line string as a key", "\"\"\"k\"\"\" = 1\n", 0, 1, 1, "cannot be a key" },
  { "too many quotes in \"\"\"", "a = \"\"\"x\"\"\"\"\"\"\n", 0, 1, 9, "three or more quotes" },
  { "unclosed array", "a = [1, 2\n", 0, 1, 5, "unterminated array" },
  { "array missing a comma", "a = [1 2]\n", 0, 1, 8, "expected ',' or ']'" },
  { "array with an empty item", "a = [1,,2]\n", 0, 1, 8, "expected a value, found ','" },
  { "array of only a comma", "a = [,]\n", 0, 1, 6, "expected a value" },
  { "error on line 3", "a = 1\nb = [\n  2, @ ]\n", 0, 3, 6, "expected a value, found '@'" },
  { "error on line 3 after a multi-line string", "a = \"\"\"\nx\n\"\"\" b\n", 0, 3, 5,
    "after the value" },
};

static void
test_refused (void)
{
  cleanup_error kg_error_t err = NULL;
  cleanup_free char *path = NULL, *line = NULL, *deep = NULL, *deep_header = NULL;
  cleanup_free char *deep_key = NULL, *big = NULL;
  struct toml_value *v;

  for (size_t i = 0; i < ARRAY_SIZE (bad_cases); i++)
    {
      const struct bad *b = &bad_cases[i];

      check_refused (b->what, b->text, b->len ? b->len : strlen (b->text), b->line, b->column,
                     b->msg);
    }

  line = repeat ("a = \"", "x", TOML_MAX_LINE, "\"\n");
  check_refused ("line longer than TOML_MAX_LINE", line, strlen (line), 1, TOML_MAX_LINE + 1,
                 "line longer than 8192 bytes");

  deep = nested_arrays (40);
  check_refused ("arrays nested deeper than TOML_MAX_DEPTH", deep, strlen (deep), 1,
                 4 + TOML_MAX_DEPTH, "nesting deeper than 32 levels");
  deep_header = repeat ("[a", ".a", TOML_MAX_DEPTH, "]\n");
  check_refused ("header nested deeper than TOML_MAX_DEPTH", deep_header, strlen (deep_header), 1,
                 0, "nesting deeper than");
  deep_key = repeat ("[t]\nk", ".k", TOML_MAX_DEPTH - 1, " = 1\n");
  check_refused ("header plus dotted key deeper than TOML_MAX_DEPTH", deep_key, strlen (deep_key),
                 2, 0, "nesting deeper than");

  /* Too big: in memory, and as a file (which also names the path). */
  big = malloc (2 * 1024 * 1024);
  if (big == NULL)
    abort ();
  memset (big, '#', 2 * 1024 * 1024);
  check_refused ("input larger than TOML_MAX_SIZE", big, TOML_MAX_SIZE + 1, 1, 1,
                 "larger than 1048576 bytes");
  path = write_temp (big, 2 * 1024 * 1024);
  v = toml_parse_file (path, &err);
  ok (v == NULL && err != NULL, "a 2 MiB file is refused");
  toml_free (v);
  has_str (err ? err->msg : NULL, path, "the error names the file");
  has_str (err ? err->msg : NULL, "larger than", "the error says it is too large");
  unlink (path);
  free (path);
  kg_error_release (&err);

  /* A syntax error in a file: NAME is the path. */
  path = write_temp ("ok = 1\nbad =\n", strlen ("ok = 1\nbad =\n"));
  v = toml_parse_file (path, &err);
  ok (v == NULL && err != NULL, "a file with a syntax error is refused");
  toml_free (v);
  {
    cleanup_free char *want = NULL;

    if (asprintf (&want, "%s:2:6: expected a value", path) < 0)
      abort ();
    if (! ok (err != NULL && strncmp (err->msg, want, strlen (want)) == 0,
              "the error is PATH:LINE:COLUMN: message"))
      printf ("#   got \"%s\"\n", err != NULL ? err->msg : "(null)");
  }
  unlink (path);
  kg_error_release (&err);

  v = toml_parse_file ("/nonexistent/kata-guard/config.toml", &err);
  ok (v == NULL && err != NULL, "a missing file is an error");
  has_str (err ? err->msg : NULL, "/nonexistent/kata-guard/config.toml",
           "the error names the missing file");
  kg_error_release (&err);

  /* Control characters in keys never reach the message raw. */
  {
    static const char esc_key[] = "\"\\u001b[2J\" = 1\n\"\\u001b[2J\" = 2\n";

    v = toml_parse ("test", esc_key, strlen (esc_key), &err);
  }
  ok (v == NULL && err != NULL && strchr (err->msg, '\x1b') == NULL
          && strstr (err->msg, "\\x1b[2J") != NULL,
      "an escape in a key is shown escaped");
  toml_free (v);
  kg_error_release (&err);
}

/* ---- 4. merging ------------------------------------------------------ */

static void
test_merge (void)
{
  static const char *const none[] = { NULL };
  cleanup_error kg_error_t err = NULL;
  cleanup_toml struct toml_value *base = PARSE ("top = \"base\"\n"
                                                "replaced_by_table = 1\n"
                                                "[replaced_by_value]\n"
                                                "x = 1\n"
                                                "[hypervisor.firecracker]\n"
                                                "path = \"/opt/kata/bin/firecracker\"\n"
                                                "default_memory = 2048\n"
                                                "enable_annotations = [\"enable_iommu\"]\n"
                                                "[runtime]\n"
                                                "enable_debug = false\n",
                                                "merge base");
  struct toml_value *dropin = PARSE ("replaced_by_value = \"now a string\"\n"
                                     "[replaced_by_table]\n"
                                     "y = 2\n"
                                     "[hypervisor.firecracker]\n"
                                     "default_memory = 4096\n"
                                     "jailer_path = \"/opt/kata/bin/jailer\"\n"
                                     "enable_annotations = []\n"
                                     "[agent.kata]\n"
                                     "debug_console_enabled = true\n"
                                     "[runtime]\n"
                                     "enable_debug = true\n",
                                     "merge drop-in");
  cleanup_toml struct toml_value *fc = parse_fixture ("configuration-fc.toml");
  struct toml_value *fc_dropin = PARSE ("[hypervisor.firecracker]\ndefault_memory = 512\n",
                                        "fixture drop-in");

  is_int (toml_merge (base, dropin, &err), 0, "merge succeeds");
  check_str (toml_get (base, "top"), "base", "untouched key stays");
  check_str (GET (base, "hypervisor", "firecracker", "path"), "/opt/kata/bin/firecracker",
             "untouched nested key stays");
  check_int (GET (base, "hypervisor", "firecracker", "default_memory"), 4096, "scalar overridden");
  check_str (GET (base, "hypervisor", "firecracker", "jailer_path"), "/opt/kata/bin/jailer",
             "new key added to a nested table");
  check_str_array (GET (base, "hypervisor", "firecracker", "enable_annotations"), none, 0,
                   "array replaced, not appended to");
  check_bool (GET (base, "agent", "kata", "debug_console_enabled"), true, "new table added");
  check_bool (GET (base, "runtime", "enable_debug"), true, "second table merged too");
  check_int (GET (base, "replaced_by_table", "y"), 2, "a table replaces a value");
  check_str (toml_get (base, "replaced_by_value"), "now a string", "a value replaces a table");
  is_int (table_size (toml_get (base, "hypervisor")), 1, "still one hypervisor");

  is_int (toml_merge (fc, fc_dropin, &err), 0, "drop-in onto a real configuration");
  check_int (GET (fc, "hypervisor", "firecracker", "default_memory"), 512,
             "drop-in overrides default_memory");
  check_str (GET (fc, "hypervisor", "firecracker", "kernel"),
             "/opt/kata/share/kata-containers/vmlinux.container", "kernel unchanged");

  ok (toml_merge (base, NULL, &err) < 0 && err != NULL, "merging NULL is an error");
  kg_error_release (&err);
  {
    struct toml_value *one = PARSE ("a = 1\n", "merge source");

    /* src is consumed even when the merge fails (valgrind checks it). */
    ok (toml_merge (NULL, one, &err) < 0 && err != NULL, "merging into NULL is an error");
    kg_error_release (&err);
  }
  ok (toml_merge (base, base, &err) < 0 && err != NULL, "merging a tree into itself is an error");
  kg_error_release (&err);
  ok (toml_merge (NULL, NULL, &err) < 0 && err != NULL, "merging NULL into NULL is an error");
  kg_error_release (&err);
}

/* ---- 5. lookups ------------------------------------------------------ */

static void
test_lookups (void)
{
  cleanup_toml struct toml_value *r = PARSE ("s = \"x\"\n[t]\nk = 1\n[t.u]\n", "lookups");
  const struct toml_value *s = toml_get (r, "s");

  ok (toml_get (r, "missing") == NULL, "toml_get: missing key");
  ok (toml_get (s, "anything") == NULL, "toml_get: on a string");
  ok (toml_get (NULL, "s") == NULL, "toml_get: on NULL");
  ok (toml_get (r, NULL) == NULL, "toml_get: NULL key");
  ok (GET (r, "t", "missing") == NULL, "toml_get_path: missing leaf");
  ok (GET (r, "missing", "k") == NULL, "toml_get_path: missing table");
  ok (GET (r, "s", "k") == NULL, "toml_get_path: through a string");
  ok (GET (r, "t", "k", "deeper") == NULL, "toml_get_path: through an integer");
  ok (toml_get_path (r, (const char *) NULL) == r, "toml_get_path: no keys is the root");
  ok (GET (r, "t", "u") != NULL && GET (r, "t", "u")->kind == TOML_TABLE,
      "toml_get_path: empty table found");
  is_str (toml_kind_name (TOML_STRING), "string", "kind name: string");
  is_str (toml_kind_name (TOML_INTEGER), "integer", "kind name: integer");
  is_str (toml_kind_name (TOML_FLOAT), "float", "kind name: float");
  is_str (toml_kind_name (TOML_BOOLEAN), "boolean", "kind name: boolean");
  is_str (toml_kind_name (TOML_ARRAY), "array", "kind name: array");
  is_str (toml_kind_name (TOML_TABLE), "table", "kind name: table");
}

/* toml_equal: what containerd's two dumps are compared with
   (install --containerd on 1.x); toml_remove: the runtime taken out. */
static void
test_equal_remove (void)
{
  cleanup_toml struct toml_value *a
      = PARSE ("x = 1\ny = [1, \"a\", 2.5]\n[t]\nk = true\n[t.u]\ns = \"v\"\n", "a");
  cleanup_toml struct toml_value *b = PARSE ("[t.u]\ns = \"v\"\n[t]\nk = true\n\n[z]\n", "b");
  cleanup_toml struct toml_value *c = PARSE ("x = 1\ny = [1, \"a\", 2.5]\n", "c");
  cleanup_toml struct toml_value *d = PARSE ("x = 1\ny = [\"a\", 1, 2.5]\n", "d");
  cleanup_toml struct toml_value *e = PARSE ("x = 1.0\ny = [1, \"a\", 2.5]\n", "e");
  cleanup_toml struct toml_value *f = PARSE ("x = 1\ny = [1, \"a\", 2.5]\nq = 0\n", "f");
  cleanup_toml struct toml_value *g = PARSE ("x = 0.0\n", "g");
  cleanup_toml struct toml_value *h = PARSE ("x = -0.0\n", "h");
  cleanup_toml struct toml_value *taken = NULL;

  ok (toml_equal (a, a), "toml_equal: a tree equals itself");
  ok (! toml_equal (a, b), "toml_equal: a tree and another");
  ok (! toml_equal (c, d), "toml_equal: arrays in another order differ");
  ok (! toml_equal (c, e), "toml_equal: 1 and 1.0 differ (integer, float)");
  ok (! toml_equal (c, f) && ! toml_equal (f, c), "toml_equal: one more key differs, both ways");
  ok (! toml_equal (g, h), "toml_equal: 0.0 and -0.0 differ");
  ok (! toml_equal (a, NULL) && toml_equal (NULL, NULL), "toml_equal: NULL");
  taken = toml_remove (f, "q");
  ok (taken != NULL && taken->kind == TOML_INTEGER && toml_equal (c, f),
      "toml_remove: the key taken out, the rest as before");
  ok (toml_remove (f, "q") == NULL && toml_remove (NULL, "q") == NULL
          && toml_remove ((struct toml_value *) toml_get (f, "x"), "q") == NULL,
      "toml_remove: a missing key, NULL, not a table");
  {
    struct toml_value *z = toml_remove (b, "z");

    ok (z != NULL && z->kind == TOML_TABLE && toml_get (b, "t") != NULL && b->u.table.n == 1,
        "toml_remove: a table");
    toml_free (z);
  }
  {
    cleanup_toml struct toml_value *a2 = PARSE ("[t.u]\ns = \"v\"\n[t]\nk = true\n", "a2");
    struct toml_value *x = toml_remove (a, "x");
    struct toml_value *y = toml_remove (a, "y");

    toml_free (x);
    toml_free (y);
    ok (toml_equal (a, a2), "toml_equal: tables with the same keys in another order are equal");
  }
}

int
main (void)
{
  cleanup_free char *fallback = NULL;
  const char *srcdir = getenv ("srcdir");

  fixtures = getenv ("KG_FIXTURES");
  if (fixtures == NULL || *fixtures == '\0')
    {
      /* Under automake's test harness srcdir is set. */
      if (asprintf (&fallback, "%s/tests/fixtures", srcdir != NULL ? srcdir : ".") < 0)
        abort ();
      fixtures = fallback;
    }

  test_fixtures ();
  test_strings ();
  test_numbers ();
  test_arrays ();
  test_keys_and_tables ();
  test_positions ();
  test_array_of_tables ();
  test_line_endings_and_limits ();
  test_refused ();
  test_merge ();
  test_lookups ();
  test_equal_remove ();
  return tap_done ();
}
