/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The result model and its text and JSON renderings. */
#include "config.h"

#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "buf.h"
#include "cleanup.h"
#include "error.h"
#include "fdio.h"
#include "output.h"
#include "result.h"
#include "tap.h"

static char *
render (const struct report *r, int json, bool color)
{
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream (&buf, &len);

  if (f == NULL)
    abort ();
  if (json)
    output_json (f, r, "/etc/kata-guard/config.toml");
  else
    output_text (f, r, color);
  fclose (f);
  return buf;
}

/* The one growable buffer (buf.h): growth, the maximum, the sticky
   FAILED flag. */
static void
test_buf (void)
{
  struct kg_buf b = { 0 }, m = { .max = 8 };
  char big[1000], fake[4] = "";
  const char *kept;
  bool grew = false;
  char *s;

  memset (big, 'x', sizeof big);
  for (int i = 0; i < 100; i++)
    kg_buf_add (&b, big, sizeof big);
  ok (! b.failed && b.len == 100 * sizeof big && b.cap > b.len && b.s[b.len] == '\0'
          && b.s[b.len - 1] == 'x',
      "buf: 100 appends of 1000 bytes grow it, NUL-terminated");
  sb_printf (&b, "%d-%s", 42, "end");
  is_str (b.s + 100 * sizeof big, "42-end", "buf: sb_printf appends to the same buffer");
  kg_buf_release (&b);

  b = (struct kg_buf){ 0 };
  s = kg_buf_steal (&b);
  is_str (s, "", "buf: nothing added steals as \"\"");
  free (s);
  kg_buf_add (&b, NULL, 0);
  ok (b.s != NULL && b.len == 0 && *b.s == '\0', "buf: adding nothing still allocates the text");
  kg_buf_release (&b);

  ok (kg_buf_add (&m, "abcde", 5) == 0 && kg_buf_add (&m, "fgh", 3) == 0 && ! m.failed,
      "buf: appends up to the maximum succeed");
  ok (m.cap == 9, "buf: a bounded buffer grows to its maximum and no further");
  ok (kg_buf_add (&m, "i", 1) < 0 && m.failed && m.len == 8,
      "buf: one byte past the maximum fails");
  ok (kg_buf_add (&m, NULL, 0) < 0, "buf: failed is sticky");
  sb_printf (&m, "more");
  is_str (m.s, "abcdefgh", "buf: after a failure the text keeps what came before");
  kg_buf_release (&m);

  m = (struct kg_buf){ .max = 100 };
  ok (kg_buf_reserve (&m, 100) == 0 && m.cap == 101, "buf: reserve allocates the room at once");
  kept = m.s;
  for (int i = 0; i < 100; i++)
    grew = grew || kg_buf_add (&m, "y", 1) < 0 || m.s != kept;
  ok (! grew && m.len == 100, "buf: appends within the reserved room do not reallocate");
  kg_buf_release (&m);

  /* The size arithmetic is checked before any memory is touched. */
  b = (struct kg_buf){ .s = fake, .len = SIZE_MAX - 2, .cap = SIZE_MAX - 1 };
  ok (kg_buf_reserve (&b, 2) < 0 && b.failed && b.s == fake, "buf: a size past SIZE_MAX fails");
  b = (struct kg_buf){ 0 };
  sb_printf (&b, "%s", "a");
  b.failed = true;
  sb_printf (&b, "%s", "b");
  is_str (sb_str (&b), "a", "buf: sb_printf adds nothing to a failed buffer");
  kg_buf_release (&b);
}

/* N bytes of 'x' through a pipe, read by kg_read_fd_deadline with MAX
   (and TIMEOUT_MS; the writer closes at once): its status, *LEN, and the
   error's text in WHY. */
static int
read_pipe (size_t n, size_t max, int timeout_ms, size_t *len, char *why, size_t why_size)
{
  cleanup_error kg_error_t err = NULL;
  cleanup_free char *out = NULL;
  int p[2], rc;
  pid_t pid;

  if (pipe (p) < 0 || (pid = fork ()) < 0)
    abort ();
  if (pid == 0)
    {
      char chunk[4096];

      close (p[0]);
      memset (chunk, 'x', sizeof chunk);
      for (size_t done = 0; done < n;)
        {
          size_t k = n - done < sizeof chunk ? n - done : sizeof chunk;
          ssize_t w = write (p[1], chunk, k);

          if (w <= 0)
            _exit (1);
          done += (size_t) w;
        }
      _exit (0);
    }
  close (p[1]);
  rc = kg_read_fd_deadline (p[0], "pipe", max, timeout_ms, &out, len, &err);
  close (p[0]);
  waitpid (pid, NULL, 0);
  snprintf (why, why_size, "%s", err ? err->msg : "");
  if (rc == 0 && (out == NULL || out[*len] != '\0' || strspn (out, "x") != *len))
    return -2;
  return rc;
}

/* The bounded reader at its edges: nothing, exactly MAX (across growth
   steps and below the first), one byte more. */
static void
test_read_bounded (void)
{
  static const size_t sizes[] = { 0, 1, 100, 4095, 4096, 4097, 10000, 70000 };
  char why[256];
  size_t len;

  for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++)
    {
      size_t n = sizes[i];

      len = SIZE_MAX;
      ok (read_pipe (n, n, -1, &len, why, sizeof why) == 0 && len == n,
          "bounded read of exactly MAX = %zu bytes: whole, NUL-terminated", n);
      ok (read_pipe (n + 1, n, -1, &len, why, sizeof why) == -1
              && strstr (why, "larger than") != NULL,
          "bounded read of MAX + 1 = %zu bytes: refused (%s)", n + 1, why);
      ok (read_pipe (n, n + 1000, 5000, &len, why, sizeof why) == 0 && len == n,
          "bounded read of %zu bytes under MAX, with a deadline: whole", n);
    }
}

int
main (void)
{
  struct report r = { 0 };
  char *text, *json;
  json_object *root, *checks, *v;

  ok (report_overall (&r) == VERDICT_FAIL, "an empty report is not a pass");

  report_pass (&r, "kvm.device", "/dev/kvm is the KVM character device %d:%d", 10, 232);
  is_int (report_overall (&r), VERDICT_PASS, "one pass: pass");
  report_skip (&r, "kvm.create_vm", "switched off");
  is_int (report_overall (&r), VERDICT_PASS, "pass + skip: pass");
  report_warn (&r, "egress.config", "set [egress] proxy", "egress checks are off");
  is_int (report_overall (&r), VERDICT_WARN, "a warning: warn");
  report_fail (&r, "kvm.open", "fix the permissions", "cannot open %s: %s", "/dev/kvm", "EACCES");
  is_int (report_overall (&r), VERDICT_FAIL, "a failure: fail");
  report_add_file (&r, "/etc/kata-guard/config.toml");
  is_int (r.n, 4, "four results");
  is_int (report_count (&r, VERDICT_FAIL), 1, "one failure counted");
  is_str (report_find (&r, "kvm.open")->reason, "cannot open /dev/kvm: EACCES",
          "the reason is formatted");
  ok (report_find (&r, "nope") == NULL, "an unknown id is not found");

  text = render (&r, 0, false);
  has_str (text, "pass  kvm.device     /dev/kvm is the KVM character device 10:232\n",
           "text: verdict first, then the id, then the reason");
  has_str (text,
           "fail  kvm.open       cannot open /dev/kvm: EACCES (remedy: fix the permissions)\n",
           "text: a failure carries its remedy on its line");
  has_str (text, "verdict: fail (1 pass, 1 warn, 1 fail, 1 skip)\n", "text: the summary line");
  ok (strchr (text, '\033') == NULL, "text: no colour when not asked");
  free (text);
  text = render (&r, 0, true);
  has_str (text, "\033[1;31mfail\033[0m", "text: colour when asked");
  free (text);

  json = render (&r, 1, false);
  root = json_tokener_parse (json);
  ok (root != NULL, "json: parses");
  ok (json_object_object_get_ex (root, "verdict", &v)
          && strcmp (json_object_get_string (v), "fail") == 0,
      "json: overall verdict");
  ok (json_object_object_get_ex (root, "checks", &checks) && json_object_array_length (checks) == 4,
      "json: four checks");
  for (size_t i = 0; root && i < r.n; i++)
    {
      json_object *c = json_object_array_get_idx (checks, i), *id, *verdict, *remedy;

      ok (json_object_object_get_ex (c, "id", &id)
              && strcmp (json_object_get_string (id), r.results[i].id) == 0
              && json_object_object_get_ex (c, "verdict", &verdict)
              && strcmp (json_object_get_string (verdict), verdict_name (r.results[i].verdict))
                     == 0,
          "json: check %zu has the same id and verdict as the report", i);
      ok (json_object_object_get_ex (c, "remedy", &remedy)
              && (r.results[i].remedy ? json_object_is_type (remedy, json_type_string)
                                      : remedy == NULL),
          "json: check %zu remedy is a string or null", i);
    }
  ok (json_object_object_get_ex (root, "files", &v) && json_object_array_length (v) == 1,
      "json: the files read are listed");
  json_object_put (root);
  free (json);

  /* Strings that need escaping stay valid JSON. */
  report_fail (&r, "x.quote", "a \"b\" \\ c", "line\nbreak \"quoted\" \001");
  json = render (&r, 1, false);
  root = json_tokener_parse (json);
  ok (root != NULL, "json: escapes control characters and quotes");
  json_object_put (root);
  free (json);
  text = render (&r, 0, false);
  has_str (text, "x.quote        line?break \"quoted\" ? (remedy:",
           "text: control characters are masked");
  free (text);

  report_release (&r);
  ok (r.n == 0 && r.results == NULL, "release empties the report");
  test_buf ();
  test_read_bounded ();
  return tap_done ();
}
