/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The checker's wire format (codec.h): what the child encodes, and the
 * one parser of the privileged parent, which believes a message only when
 * every byte of it is exactly as the format says.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "cleanup.h"
#include "codec.h"
#include "error.h"
#include "fdio.h"
#include "text.h"

/* ---- the report: encoding --------------------------------------------- */

static const unsigned char magic[4] = { 'K', 'G', 'C', 'R' };

/* The message grows in a kg_buf bounded by CHECKER_MSG_MAX: a report too
   large, like one memory cannot hold, only sets its FAILED flag, which
   checker_encode checks once at the end.  Numbers go in host order
   (codec.h). */
static void
put (struct kg_buf *b, const void *data, size_t n)
{
  kg_buf_add (b, data, n);
}

static void
put_u8 (struct kg_buf *b, uint8_t v)
{
  put (b, &v, 1);
}

static void
put_u16 (struct kg_buf *b, uint16_t v)
{
  put (b, &v, 2);
}

static void
put_u32 (struct kg_buf *b, uint32_t v)
{
  put (b, &v, 4);
}

/* Whether the byte at P (N bytes left) is written as \xHH: a control
   byte but tab (and, with LINES, newline), or a byte that does not begin a
   strict UTF-8 character; *K: the bytes it and its character take. */
static bool
escaped_byte (const unsigned char *p, size_t n, bool lines, size_t *k)
{
  *k = 1;
  if (*p < 0x80)
    return kg_is_ctl (*p) && *p != '\t' && ! (lines && *p == '\n');
  if ((*k = kg_utf8_len (p, n)) > 0)
    return false;
  *k = 1;
  return true;
}

/* S as text the decoder takes, valid UTF-8: every control byte but tab
   (and, with LINES, newline), and every byte that is not UTF-8, written
   as \xHH.  A reason can quote what a spec or a file name held (a mount
   source with an escape byte, a host file's name in another encoding);
   without this one such byte would cost the parent the whole report, or
   the decision log a line its readers refuse.  NULL when memory runs
   out; S itself (not a copy) when it needs nothing. */
static char *
as_text (const char *s, bool lines, char **copy)
{
  const unsigned char *u = (const unsigned char *) s;
  size_t len, n = 0, k;
  char *o;

  *copy = NULL;
  if (s == NULL)
    return NULL;
  len = strlen (s);
  for (size_t i = 0; i < len; i += k)
    n += escaped_byte (u + i, len - i, lines, &k);
  if (n == 0)
    return (char *) s;
  *copy = malloc (len + 3 * n + 1);
  if (*copy == NULL)
    return NULL;
  o = *copy;
  for (size_t i = 0; i < len; i += k)
    if (escaped_byte (u + i, len - i, lines, &k))
      o += sprintf (o, "\\x%02x", u[i]);
    else
      o = mempcpy (o, u + i, k);
  *o = '\0';
  return *copy;
}

/* The first *LEN bytes of text S (as_text's) that fit in MAX, and
   whether it was cut: a longer text is cut on a character's boundary,
   before any \xHH it would split, and ends in "..." (CUT_MARK). */
#define CUT_MARK "..."
static bool
cut_text (const char *s, size_t max, size_t *len)
{
  size_t n = s ? strlen (s) : 0, at;

  if (n <= max)
    return *len = n, false;
  at = max - (sizeof CUT_MARK - 1);
  while (at > 0 && ((unsigned char) s[at] & 0xc0) == 0x80)
    at--;
  for (size_t i = at > 3 ? at - 3 : 0; i < at; i++)
    if (s[i] == '\\' && s[i + 1] == 'x')
      {
        at = i;
        break;
      }
  *len = at + sizeof CUT_MARK - 1;
  return true;
}

/* Text S as cut_text measured it: LEN bytes on the wire, the last of
   them CUT_MARK when it was CUT. */
static void
put_text (struct kg_buf *b, const char *s, size_t len, bool cut)
{
  put (b, s, len - (cut ? sizeof CUT_MARK - 1 : 0));
  if (cut)
    put (b, CUT_MARK, sizeof CUT_MARK - 1);
}

int
checker_encode (const struct report *rep, bool with_fd, const char *cache, size_t cache_len,
                unsigned char **out, size_t *out_len, kg_error_t *err)
{
  cleanup_kg_buf struct kg_buf b = { .max = CHECKER_MSG_MAX };
  uint32_t body_len;

  if (rep->n > CHECKER_MAX_RESULTS || rep->n_files > CHECKER_MAX_FILES)
    return kg_error (err, 0, "the report has %zu results and %zu files (at most %d and %d)", rep->n,
                     rep->n_files, CHECKER_MAX_RESULTS, CHECKER_MAX_FILES);
  put (&b, magic, sizeof magic);
  put_u8 (&b, CHECKER_VERSION);
  if (cache != NULL && cache_len > CHECKER_CACHE_MAX)
    cache = NULL; /* only saves time: not worth a refusal */
  put_u8 (&b, (with_fd ? CHECKER_FLAG_FD : 0) | (rep->oom ? CHECKER_FLAG_OOM : 0)
                  | (cache ? CHECKER_FLAG_CACHE : 0) | (rep->pod_sandbox ? CHECKER_FLAG_SANDBOX : 0)
                  | (rep->vm.role != VM_NONE ? CHECKER_FLAG_VM : 0));
  put_u16 (&b, (uint16_t) (rep->kata_file <= rep->n_files ? rep->kata_file : 0));
  put_u32 (&b, (uint32_t) rep->n);
  put_u32 (&b, (uint32_t) rep->n_files);
  put_u32 (&b, 0); /* body_len, below */
  for (size_t i = 0; i < rep->n; i++)
    {
      const struct check_result *r = &rep->results[i];
      cleanup_free char *rs_copy = NULL;
      cleanup_free char *rm_copy = NULL;
      const char *rs = as_text (r->reason, true, &rs_copy);
      const char *rm = as_text (r->remedy, true, &rm_copy);
      size_t id = strlen (r->id), reason, remedy;
      bool reason_cut = cut_text (rs, CHECKER_TEXT_MAX, &reason),
           remedy_cut = cut_text (rm, CHECKER_TEXT_MAX, &remedy);

      if ((r->reason != NULL && rs == NULL) || (r->remedy != NULL && rm == NULL))
        return kg_error (err, ENOMEM, "the report does not fit in memory");
      if (id > CHECKER_ID_MAX)
        return kg_error (err, 0, "check id %.80s is too long", r->id);
      put_u8 (&b, (uint8_t) r->verdict);
      put_u8 (&b, (uint8_t) id);
      put_u16 (&b, (uint16_t) reason);
      put_u16 (&b, (uint16_t) remedy);
      put_u8 (&b, r->remedy != NULL);
      put_u8 (&b, (uint8_t) r->reach);
      put (&b, r->id, id);
      put_text (&b, rs, reason, reason_cut);
      put_text (&b, rm, remedy, remedy_cut);
    }
  for (size_t i = 0; i < rep->n_files; i++)
    {
      cleanup_free char *copy = NULL;
      const char *f = as_text (rep->files[i], false, &copy);
      size_t n = f ? strlen (f) : 0;

      if (f == NULL)
        return kg_error (err, ENOMEM, "the report does not fit in memory");
      if (n == 0 || n > CHECKER_PATH_MAX)
        return kg_error (err, 0, "a file name of %zu bytes", n);
      put_u16 (&b, (uint16_t) n);
      put (&b, f, n);
    }
  if (cache != NULL)
    {
      put_u32 (&b, (uint32_t) cache_len);
      put (&b, cache, cache_len);
    }
  if (rep->vm.role != VM_NONE)
    {
      size_t n = strnlen (rep->vm.pod, VM_POD_MAX);

      put_u8 (&b, (uint8_t) rep->vm.role);
      put_u8 (&b, (uint8_t) n);
      put_u16 (&b, 0);
      put (&b, &rep->vm.mem_mib, 8);
      put (&b, &rep->vm.base_mib, 8);
      put (&b, &rep->vm.add_mib, 8);
      put (&b, rep->vm.pod, n);
    }
  if (b.failed)
    return kg_error (err, ENOMEM, "the report does not fit in %d bytes", CHECKER_MSG_MAX);
  body_len = (uint32_t) (b.len - CHECKER_HEADER_LEN);
  memcpy (b.s + 16, &body_len, 4);
  *out_len = b.len;
  *out = (unsigned char *) kg_buf_steal (&b);
  return 0;
}

/* ---- the report: decoding --------------------------------------------- */

struct cursor
{
  const unsigned char *p;
  size_t left;
};

static bool
take (struct cursor *c, void *out, size_t n)
{
  if (c->left < n)
    return false;
  memcpy (out, c->p, n);
  c->p += n;
  c->left -= n;
  return true;
}

bool
checker_id_valid (const char *s, size_t n)
{
  if (n == 0 || n > CHECKER_ID_MAX || s[0] < 'a' || s[0] > 'z')
    return false;
  for (size_t i = 0; i < n; i++)
    if (! ((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '.'
           || s[i] == '_' || s[i] == '-'))
      return false;
  return true;
}

/* Text that reaches a terminal, syslog and JSON: strict UTF-8 (as the
   encoder's as_text writes it, so every line of the decision log that
   quotes it is JSON its readers take), no NUL, no control character but
   tab and newline. */
bool
checker_text_valid (const char *s, size_t n)
{
  for (size_t i = 0; i < n; i++)
    {
      unsigned char ch = (unsigned char) s[i];

      if (kg_is_ctl (ch) && ch != '\t' && ch != '\n')
        return false;
    }
  return kg_utf8_valid_prefix (s, n) == n;
}

/* Take N bytes from C as a string that TEST accepts. */
static char *
take_str (struct cursor *c, size_t n, bool (*test) (const char *, size_t))
{
  char *s;

  if (c->left < n)
    return NULL;
  if (! test ((const char *) c->p, n))
    return NULL;
  s = strndup ((const char *) c->p, n);
  if (s == NULL)
    return NULL;
  c->p += n;
  c->left -= n;
  return s;
}

bool
checker_path_valid (const char *s, size_t n)
{
  return n > 0 && n <= CHECKER_PATH_MAX && s[0] == '/' && checker_text_valid (s, n)
         && memchr (s, '\n', n) == NULL;
}

bool
checker_cache_valid (const char *s, size_t n)
{
  return checker_text_valid (s, n) && memchr (s, '\t', n) == NULL;
}

/* What the header says of the body. */
struct header
{
  uint8_t flags;
  uint16_t kata_file; /* 1 + the index of the Kata configuration among the files, or 0 */
  uint32_t n_results, n_files;
};

static int
decode_header (struct cursor *c, struct header *h, kg_error_t *err)
{
  unsigned char m[4];
  uint8_t version;
  uint32_t body_len;

  if (c->left < CHECKER_HEADER_LEN)
    return kg_error (err, 0, "the checker's report is truncated (%zu bytes, no header)", c->left);
  take (c, m, 4);
  take (c, &version, 1);
  take (c, &h->flags, 1);
  take (c, &h->kata_file, 2);
  take (c, &h->n_results, 4);
  take (c, &h->n_files, 4);
  take (c, &body_len, 4);
  if (memcmp (m, magic, 4) != 0)
    return kg_error (err, 0, "the checker's report is garbage (bad magic)");
  if (version != CHECKER_VERSION
      || (h->flags
          & ~(CHECKER_FLAG_FD | CHECKER_FLAG_OOM | CHECKER_FLAG_CACHE | CHECKER_FLAG_SANDBOX
              | CHECKER_FLAG_VM)))
    return kg_error (err, 0, "the checker's report has version %u flags %#x: not this format",
                     version, h->flags);
  if (h->n_results > CHECKER_MAX_RESULTS || h->n_files > CHECKER_MAX_FILES)
    return kg_error (err, 0,
                     "the checker's report claims %u results and %u files (at most %d and %d)",
                     h->n_results, h->n_files, CHECKER_MAX_RESULTS, CHECKER_MAX_FILES);
  if (h->kata_file > h->n_files)
    return kg_error (err, 0, "the checker's report names file %u of %u as the Kata configuration",
                     h->kata_file, h->n_files);
  if (body_len > CHECKER_MSG_MAX - CHECKER_HEADER_LEN || body_len > c->left)
    return kg_error (err, 0, "the checker's report is truncated (%zu of %u body bytes)", c->left,
                     body_len);
  if (body_len < c->left)
    return kg_error (err, 0, "the checker's report is too long (%zu bytes, header says %u)",
                     c->left, body_len);
  return 0;
}

/* The body ends before the entries the header counts. */
static int
short_body (const struct header *h, kg_error_t *err)
{
  return kg_error (err, 0,
                   "the checker's report does not hold the %u results and %u files it "
                   "claims",
                   h->n_results, h->n_files);
}

/* Result I into TMP; its id may be neither in TMP nor in REP. */
static int
decode_result (struct cursor *c, const struct header *h, uint32_t i, struct report *tmp,
               const struct report *rep, kg_error_t *err)
{
  uint8_t verdict, id_len, has_remedy, reach;
  uint16_t reason_len, remedy_len;
  size_t at;
  cleanup_free char *id = NULL;
  cleanup_free char *reason = NULL;
  cleanup_free char *remedy = NULL;

  if (! take (c, &verdict, 1) || ! take (c, &id_len, 1) || ! take (c, &reason_len, 2)
      || ! take (c, &remedy_len, 2) || ! take (c, &has_remedy, 1) || ! take (c, &reach, 1))
    return short_body (h, err);
  if (verdict > VERDICT_FAIL || has_remedy > 1 || reach > REACH_VM || reason_len > CHECKER_TEXT_MAX
      || remedy_len > CHECKER_TEXT_MAX || (! has_remedy && remedy_len != 0))
    return kg_error (err, 0, "the checker's result %u is malformed (verdict %u)", i, verdict);
  if (c->left < (size_t) id_len + reason_len + remedy_len)
    return short_body (h, err);
  if ((id = take_str (c, id_len, checker_id_valid)) == NULL
      || (reason = take_str (c, reason_len, checker_text_valid)) == NULL
      || (has_remedy && (remedy = take_str (c, remedy_len, checker_text_valid)) == NULL))
    return kg_error (err, 0, "the checker's result %u has a bad id or text", i);
  if (report_find (tmp, id) != NULL || report_find (rep, id) != NULL)
    return kg_error (err, 0, "the checker reported %s twice", id);
  at = tmp->n;
  report_add (tmp, id, (enum verdict) verdict, remedy, "%s", reason);
  report_set_reach (tmp, at, (enum reach) reach);
  return 0;
}

/* File I into TMP. */
static int
decode_file (struct cursor *c, const struct header *h, uint32_t i, struct report *tmp,
             kg_error_t *err)
{
  uint16_t n;
  cleanup_free char *path = NULL;

  if (! take (c, &n, 2) || c->left < n)
    return short_body (h, err);
  if ((path = take_str (c, n, checker_path_valid)) == NULL)
    return kg_error (err, 0, "the checker's file %u is not an absolute path", i);
  report_add_file (tmp, path);
  return 0;
}

static int
decode_cache (struct cursor *c, const struct header *h, char **cache, uint32_t *cache_len,
              kg_error_t *err)
{
  if (! take (c, cache_len, 4) || c->left < *cache_len)
    return short_body (h, err);
  if (*cache_len > CHECKER_CACHE_MAX
      || (*cache = take_str (c, *cache_len, checker_cache_valid)) == NULL)
    return kg_error (err, 0, "the checker's digest cache is malformed");
  return 0;
}

/* A pod's id as a member names its sandbox: a container id the engines
   write (no '/', no control character, not "." or ".."). */
static bool
vm_pod_valid (const char *s, size_t n)
{
  if (n == 0 || n > VM_POD_MAX || (n == 1 && s[0] == '.') || (n == 2 && s[0] == '.' && s[1] == '.'))
    return false;
  for (size_t i = 0; i < n; i++)
    if (kg_is_ctl ((unsigned char) s[i]) || s[i] == ' ' || s[i] == '/')
      return false;
  return true;
}

static bool
vm_mib_valid (int64_t v, bool zero_ok)
{
  return v < CHECKER_VM_MIB_MAX && (v > 0 || (zero_ok && v == 0));
}

/* The VM claim into *VM: sizes in bounds, and a pod id exactly for a
   member (whose own sizes are none). */
static int
decode_vm (struct cursor *c, const struct header *h, struct vm_claim *vm, kg_error_t *err)
{
  uint8_t role, pod_len;
  uint16_t pad;
  cleanup_free char *pod = NULL;

  if (! take (c, &role, 1) || ! take (c, &pod_len, 1) || ! take (c, &pad, 2)
      || ! take (c, &vm->mem_mib, 8) || ! take (c, &vm->base_mib, 8) || ! take (c, &vm->add_mib, 8)
      || c->left < pod_len)
    return short_body (h, err);
  if (pad != 0 || role < VM_SOLO || role > VM_MEMBER)
    return kg_error (err, 0, "the checker's VM claim is malformed (role %u)", role);
  if (role == VM_MEMBER
          ? (vm->mem_mib != 0 || vm->base_mib != 0 || ! vm_mib_valid (vm->add_mib, true)
             || (pod = take_str (c, pod_len, vm_pod_valid)) == NULL)
          : (pod_len != 0 || vm->add_mib != 0 || ! vm_mib_valid (vm->mem_mib, false)
             || ! vm_mib_valid (vm->base_mib, false)))
    return kg_error (err, 0, "the checker's VM claim is out of bounds");
  vm->role = (enum vm_role) role;
  if (pod != NULL)
    memcpy (vm->pod, pod, pod_len + 1);
  return 0;
}

/* Everything is decoded into TMP first, and only a message that holds
   from its first byte to its last reaches REP. */
int
checker_decode (const unsigned char *buf, size_t len, struct report *rep, bool *want_fd,
                char **cache_out, size_t *cache_len_out, kg_error_t *err)
{
  cleanup_free char *cache = NULL;
  uint32_t cache_len = 0;
  struct cursor c = { buf, len };
  struct header h = { 0 };
  struct vm_claim vm = { 0 };
  cleanup_report struct report tmp = { 0 };

  if (decode_header (&c, &h, err) < 0)
    return -1;
  for (uint32_t i = 0; i < h.n_results; i++)
    if (decode_result (&c, &h, i, &tmp, rep, err) < 0)
      return -1;
  for (uint32_t i = 0; i < h.n_files; i++)
    if (decode_file (&c, &h, i, &tmp, err) < 0)
      return -1;
  if ((h.flags & CHECKER_FLAG_CACHE) && decode_cache (&c, &h, &cache, &cache_len, err) < 0)
    return -1;
  if ((h.flags & CHECKER_FLAG_VM) && decode_vm (&c, &h, &vm, err) < 0)
    return -1;
  if (c.left != 0)
    return kg_error (err, 0, "the checker's report has %zu bytes after its last entry", c.left);

  if (tmp.oom || (h.flags & CHECKER_FLAG_OOM))
    rep->oom = true;
  if (h.flags & CHECKER_FLAG_SANDBOX)
    rep->pod_sandbox = true;
  rep->vm = vm;
  for (size_t i = 0; i < tmp.n; i++)
    {
      size_t at = rep->n;

      report_add (rep, tmp.results[i].id, tmp.results[i].verdict, tmp.results[i].remedy, "%s",
                  tmp.results[i].reason);
      report_set_reach (rep, at, tmp.results[i].reach);
    }
  for (size_t i = 0; i < tmp.n_files; i++)
    if (h.kata_file == i + 1)
      report_add_kata_file (rep, tmp.files[i]);
    else
      report_add_file (rep, tmp.files[i]);
  *want_fd = (h.flags & CHECKER_FLAG_FD) != 0;
  if (cache_out != NULL)
    {
      *cache_out = steal_pointer (&cache);
      *cache_len_out = cache_len;
    }
  return 0;
}

bool
checker_header_wants_fd (const unsigned char *buf, size_t len)
{
  return len >= CHECKER_HEADER_LEN && (buf[5] & CHECKER_FLAG_FD);
}

/* ---- the requests ------------------------------------------------------ */

const char checker_request_magic[CHECKER_REQ_KINDS][5] = {
#define CHECKER_REQ_MAGIC(KIND, NAME, MAGIC, MEMBER, RET, PARAMS, ASKS, REPLY)                     \
  [CHECKER_REQ_##KIND] = MAGIC,
  KG_REQUESTS (CHECKER_REQ_MAGIC)
#undef CHECKER_REQ_MAGIC
};

static void
request_head (unsigned char *out, enum checker_request_kind kind, uint32_t arg)
{
  memcpy (out, checker_request_magic[kind], 4);
  memcpy (out + 4, &arg, 4);
}

int
checker_request_exe (unsigned long pid, unsigned char *out)
{
  if (pid > UINT32_MAX)
    {
      errno = EINVAL;
      return -1;
    }
  request_head (out, CHECKER_REQ_EXE, (uint32_t) pid);
  return 0;
}

int
checker_request_ns (unsigned long pid, int k, unsigned char *out)
{
  if (pid == 0 || pid > 0xffffff || k < 0 || k > 0xff)
    {
      errno = EINVAL;
      return -1;
    }
  request_head (out, CHECKER_REQ_NS, (uint32_t) pid | ((uint32_t) k << 24));
  return 0;
}

int
checker_request_netns (unsigned long pid, const char *path, const struct netns_probe *probe,
                       unsigned char *out)
{
  struct netns_request rq;

  memset (&rq, 0, sizeof rq);
  if (pid > INT32_MAX || (path != NULL && strlen (path) >= sizeof rq.path))
    {
      errno = EINVAL;
      return -1;
    }
  rq.pid = (uint32_t) pid;
  if (path != NULL)
    memcpy (rq.path, path, strlen (path) + 1);
  rq.probe = *probe;
  request_head (out, CHECKER_REQ_NETNS, (uint32_t) sizeof rq);
  memcpy (out + CHECKER_REQUEST_HEAD, &rq, sizeof rq);
  return 0;
}

int
checker_request_pool (unsigned char *out)
{
  request_head (out, CHECKER_REQ_POOL, 0);
  return 0;
}

/* ---- the replies ------------------------------------------------------ */

int
checker_reply_send (int sock, int32_t e, const void *body, size_t n, bool counted)
{
  uint32_t len = (uint32_t) n;

  if (counted && n > UINT32_MAX)
    return errno = EOVERFLOW, -1;
  if (kg_send_all (sock, &e, sizeof e) < 0 || (counted && kg_send_all (sock, &len, sizeof len) < 0)
      || (n > 0 && kg_send_all (sock, body, n) < 0))
    return -1;
  return 0;
}

int
checker_reply_read (int sock, int32_t *e, void *body, size_t max, size_t *n, bool counted)
{
  uint32_t len = (uint32_t) max;

  if (kg_read_exact (sock, e, sizeof *e) < 0
      || (counted && kg_read_exact (sock, &len, sizeof len) < 0))
    return errno = EIO, -1;
  if (len > max)
    return errno = EIO, -1;
  if (len > 0 && kg_read_exact (sock, body, len) < 0)
    return errno = EIO, -1;
  if (n != NULL)
    *n = len;
  return 0;
}
