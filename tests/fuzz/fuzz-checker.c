/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The checker's codec (privsep/codec.c) as the privileged parent runs
 * it on what a possibly compromised child sent.  The first byte selects
 * (fuzz-checker.h):
 *
 *   report   checker_decode into an empty report, or into one that holds
 *            the parent's own entries.  Refused: the report, the cache and
 *            its length are as they were, and the error says why.
 *            Accepted: every string is one the validators accept, within
 *            its bound; ids are unique; the flags are the header's; the
 *            report re-encodes to exactly the input, which decodes to the
 *            same report again.  Released, nothing is left (leaks fail).
 *   request  checker_request_parse on every prefix: the answer only ever
 *            changes from PARTIAL to one final answer; a whole request's
 *            kind and length are its magic's; it is accepted exactly when
 *            the fields hold what the parent may act on (checked here
 *            independently of the codec), and an accepted one encodes
 *            again, as the child would send it, to a request that parses
 *            to the same fields.
 */
#include "config.h"

#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

#include "checker.h"
#include "codec.h"
#include "fuzz-checker.h"
#include "fuzz.h"
#include "request.h"

/* ---- the report -------------------------------------------------------- */

static void
parent_report (struct report *r, bool append)
{
  memset (r, 0, sizeof *r);
  if (! append)
    return;
  report_pass (r, FUZZ_CHECKER_PARENT_ID, "the parent's own result");
  report_add_file (r, FUZZ_CHECKER_PARENT_FILE);
  FUZZ_ASSERT (r->n == 1 && r->n_files == 1 && ! r->oom);
}

static void
released (struct report *r)
{
  report_release (r);
  FUZZ_ASSERT (r->results == NULL && r->n == 0 && r->files == NULL && r->n_files == 0 && ! r->oom
               && ! r->pod_sandbox);
}

/* The decoded report, re-encoded, is the input itself, and decodes to
   the same report. */
static void
round_trip (const uint8_t *data, size_t size, bool want_fd, const char *cache, size_t cache_len)
{
  struct report once, twice;
  kg_error_t err = NULL;
  unsigned char *buf = NULL;
  size_t len = 0, cache2_len = 0;
  char *cache2 = NULL;
  bool fd2 = ! want_fd;

  parent_report (&once, false);
  parent_report (&twice, false);
  FUZZ_ASSERT (checker_decode (data, size, &once, &fd2, NULL, NULL, &err) == 0);
  FUZZ_ASSERT (checker_encode (&once, want_fd, cache, cache_len, &buf, &len, &err) == 0);
  FUZZ_ASSERT (len == size && memcmp (buf, data, size) == 0);
  fd2 = ! want_fd;
  FUZZ_ASSERT (checker_decode (buf, len, &twice, &fd2, &cache2, &cache2_len, &err) == 0);
  FUZZ_ASSERT (same_report (&once, &twice) && fd2 == want_fd);
  FUZZ_ASSERT ((cache == NULL) == (cache2 == NULL) && cache2_len == cache_len
               && (cache == NULL || memcmp (cache, cache2, cache_len + 1) == 0));
  free (cache2);
  free (buf);
  released (&once);
  released (&twice);
}

static void
fuzz_report (const uint8_t *data, size_t size, bool append)
{
  struct report rep;
  kg_error_t err = NULL;
  char *cache = NULL;
  size_t cache_len = 12345, base_n, base_files;
  bool want_fd = false, wants_fd = checker_header_wants_fd (data, size);
  uint8_t flags = size > 5 ? data[5] : 0;
  int rc;

  parent_report (&rep, append);
  base_n = rep.n;
  base_files = rep.n_files;
  rc = checker_decode (data, size, &rep, &want_fd, &cache, &cache_len, &err);
  FUZZ_ASSERT (rc == 0 || rc == -1);
  if (rc < 0)
    {
      FUZZ_ASSERT (err != NULL && err->msg != NULL && err->msg[0] != '\0');
      FUZZ_ASSERT (rep.n == base_n && rep.n_files == base_files && ! rep.oom && ! rep.pod_sandbox);
      if (append)
        FUZZ_ASSERT (strcmp (rep.results[0].id, FUZZ_CHECKER_PARENT_ID) == 0
                     && strcmp (rep.files[0], FUZZ_CHECKER_PARENT_FILE) == 0);
      FUZZ_ASSERT (cache == NULL && cache_len == 12345);
      kg_error_release (&err);
      released (&rep);
      return;
    }
  FUZZ_ASSERT (err == NULL);
  FUZZ_ASSERT (size >= CHECKER_HEADER_LEN && size <= CHECKER_MSG_MAX);
  FUZZ_ASSERT (rep.n - base_n <= CHECKER_MAX_RESULTS
               && rep.n_files - base_files <= CHECKER_MAX_FILES);
  for (size_t i = 0; i < rep.n; i++)
    {
      const struct check_result *r = &rep.results[i];

      FUZZ_ASSERT (checker_id_valid (r->id, strlen (r->id)));
      FUZZ_ASSERT (r->verdict >= VERDICT_PASS && r->verdict <= VERDICT_FAIL);
      FUZZ_ASSERT (strlen (r->reason) <= CHECKER_TEXT_MAX
                   && checker_text_valid (r->reason, strlen (r->reason)));
      FUZZ_ASSERT (r->remedy == NULL
                   || (strlen (r->remedy) <= CHECKER_TEXT_MAX
                       && checker_text_valid (r->remedy, strlen (r->remedy))));
      for (size_t j = 0; j < i; j++)
        FUZZ_ASSERT (strcmp (rep.results[j].id, r->id) != 0);
    }
  for (size_t i = base_files; i < rep.n_files; i++)
    FUZZ_ASSERT (checker_path_valid (rep.files[i], strlen (rep.files[i])));
  if (append)
    FUZZ_ASSERT (strcmp (rep.results[0].id, FUZZ_CHECKER_PARENT_ID) == 0
                 && rep.results[0].verdict == VERDICT_PASS
                 && strcmp (rep.files[0], FUZZ_CHECKER_PARENT_FILE) == 0);
  FUZZ_ASSERT (want_fd == wants_fd && want_fd == ((flags & CHECKER_FLAG_FD) != 0));
  FUZZ_ASSERT (rep.oom == ((flags & CHECKER_FLAG_OOM) != 0));
  FUZZ_ASSERT (rep.pod_sandbox == ((flags & CHECKER_FLAG_SANDBOX) != 0));
  FUZZ_ASSERT ((cache != NULL) == ((flags & CHECKER_FLAG_CACHE) != 0));
  if (cache != NULL)
    FUZZ_ASSERT (cache_len <= CHECKER_CACHE_MAX && strlen (cache) == cache_len
                 && checker_cache_valid (cache, cache_len));
  else
    FUZZ_ASSERT (cache_len == 0);
  round_trip (data, size, want_fd, cache, cache != NULL ? cache_len : 0);
  free (cache);
  released (&rep);
}

/* ---- the requests ------------------------------------------------------ */

static bool
host_char (char c)
{
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-'
         || c == '.';
}

/* What the parent may act on, decided here apart from the codec. */
static bool
netns_fields_ok (const struct netns_request *n)
{
  const struct netns_probe *p = &n->probe;
  const char *path_end = memchr (n->path, '\0', sizeof n->path);
  const char *host_end = memchr (p->host, '\0', sizeof p->host);

  if (path_end == NULL || host_end == NULL || host_end == p->host)
    return false;
  for (const char *h = p->host; h < host_end; h++)
    if (! host_char (*h))
      return false;
  if (n->pid == 0 && n->path[0] != '/')
    return false;
  if (n->pid != 0 && (n->path[0] != '\0' || n->pid > (uint32_t) INT32_MAX))
    return false;
  if (p->timeout_ms == 0 || p->timeout_ms > 60000)
    return false;
  if (p->proxy.ss_family == AF_INET)
    return p->proxy_len == sizeof (struct sockaddr_in);
  if (p->proxy.ss_family == AF_INET6)
    return p->proxy_len == sizeof (struct sockaddr_in6);
  return false;
}

static void
check_whole (const uint8_t *data, size_t n, enum checker_parse r, const struct checker_request *rq)
{
  uint32_t arg;
  unsigned char out[CHECKER_NETNS_REQUEST_LEN];
  struct checker_request again;
  bool fields_ok = false;

  FUZZ_ASSERT (n >= CHECKER_REQUEST_HEAD && rq->len <= n);
  memcpy (&arg, data + 4, 4);
  switch (rq->kind)
    {
    case CHECKER_REQ_EXE:
      FUZZ_ASSERT (memcmp (data, "KGRQ", 4) == 0 && rq->len == CHECKER_REQUEST_HEAD);
      FUZZ_ASSERT (rq->pid == arg);
      fields_ok = arg != 0 && arg <= (uint32_t) INT32_MAX;
      if (r == CHECKER_PARSE_OK)
        {
          FUZZ_ASSERT (checker_request_exe (rq->pid, out) == 0);
          FUZZ_ASSERT (memcmp (out, data, CHECKER_REQUEST_HEAD) == 0);
        }
      break;
    case CHECKER_REQ_NS:
      FUZZ_ASSERT (memcmp (data, "KGNS", 4) == 0 && rq->len == CHECKER_REQUEST_HEAD);
      FUZZ_ASSERT (rq->pid == (arg & 0xffffff));
      fields_ok = rq->pid != 0 && (arg >> 24) < KG_NS_COUNT;
      if (r == CHECKER_PARSE_OK)
        {
          FUZZ_ASSERT (rq->ns_name != NULL
                       && rq->ns_name == engine_ns_proc_name ((int) (arg >> 24)));
          FUZZ_ASSERT (strchr (rq->ns_name, '/') == NULL && rq->ns_name[0] != '\0');
          FUZZ_ASSERT (checker_request_ns (rq->pid, (int) (arg >> 24), out) == 0);
          FUZZ_ASSERT (memcmp (out, data, CHECKER_REQUEST_HEAD) == 0);
        }
      break;
    case CHECKER_REQ_NETNS:
      FUZZ_ASSERT (memcmp (data, "KGNN", 4) == 0 && rq->len == CHECKER_NETNS_REQUEST_LEN);
      FUZZ_ASSERT (arg == sizeof (struct netns_request));
      FUZZ_ASSERT (memcmp (&rq->netns, data + CHECKER_REQUEST_HEAD, sizeof rq->netns) == 0);
      FUZZ_ASSERT (rq->pid == rq->netns.pid);
      fields_ok = netns_fields_ok (&rq->netns);
      if (r == CHECKER_PARSE_OK)
        {
          const struct netns_request *a = &rq->netns, *b = &again.netns;

          FUZZ_ASSERT (checker_request_netns (a->pid, a->pid ? NULL : a->path, &a->probe, out)
                       == 0);
          FUZZ_ASSERT (checker_request_parse (out, sizeof out, &again) == CHECKER_PARSE_OK);
          FUZZ_ASSERT (again.kind == CHECKER_REQ_NETNS && b->pid == a->pid
                       && strcmp (b->path, a->path) == 0
                       && strcmp (b->probe.host, a->probe.host) == 0
                       && b->probe.timeout_ms == a->probe.timeout_ms
                       && b->probe.proxy_len == a->probe.proxy_len
                       && memcmp (&b->probe.proxy, &a->probe.proxy, a->probe.proxy_len) == 0);
        }
      break;
    case CHECKER_REQ_POOL:
      FUZZ_ASSERT (memcmp (data, "KGDM", 4) == 0 && rq->len == CHECKER_REQUEST_HEAD);
      fields_ok = arg == 0;
      if (r == CHECKER_PARSE_OK)
        {
          FUZZ_ASSERT (checker_request_pool (out) == 0);
          FUZZ_ASSERT (memcmp (out, data, CHECKER_REQUEST_HEAD) == 0);
        }
      break;
    default:
      FUZZ_ASSERT (! "a request kind the codec does not have");
    }
  FUZZ_ASSERT ((r == CHECKER_PARSE_OK) == fields_ok);
}

static void
fuzz_request (const uint8_t *data, size_t size)
{
  enum checker_parse first = CHECKER_PARSE_PARTIAL;
  size_t first_len = 0;
  enum checker_request_kind first_kind = CHECKER_REQ_EXE;

  for (size_t n = 0; n <= size; n++)
    {
      struct checker_request rq;
      enum checker_parse r = checker_request_parse (data, n, &rq);

      FUZZ_ASSERT (r >= CHECKER_PARSE_PARTIAL && r <= CHECKER_PARSE_OK);
      if (first != CHECKER_PARSE_PARTIAL)
        {
          FUZZ_ASSERT (r == first);
          if (r == CHECKER_PARSE_OK || r == CHECKER_PARSE_REFUSED)
            FUZZ_ASSERT (rq.len == first_len && rq.kind == first_kind);
          continue;
        }
      if (r == CHECKER_PARSE_PARTIAL)
        {
          /* Waiting is for a request's beginning, never for more than
             the longest request. */
          FUZZ_ASSERT (n < CHECKER_NETNS_REQUEST_LEN);
          continue;
        }
      first = r;
      if (r == CHECKER_PARSE_NONE)
        FUZZ_ASSERT (n >= 1);
      if (r == CHECKER_PARSE_MALFORMED)
        FUZZ_ASSERT (n >= CHECKER_REQUEST_HEAD && memcmp (data, "KGNN", 4) == 0);
      if (r == CHECKER_PARSE_OK || r == CHECKER_PARSE_REFUSED)
        {
          check_whole (data, n, r, &rq);
          FUZZ_ASSERT (rq.len == n); /* decided the moment it is whole */
          first_len = rq.len;
          first_kind = rq.kind;
        }
    }
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  if (size == 0)
    return 0;
  switch (data[0] % FUZZ_CHECKER_MODES)
    {
    case FUZZ_CHECKER_REPORT:
      fuzz_report (data + 1, size - 1, false);
      break;
    case FUZZ_CHECKER_APPEND:
      fuzz_report (data + 1, size - 1, true);
      break;
    default:
      fuzz_request (data + 1, size - 1);
      break;
    }
  return 0;
}
