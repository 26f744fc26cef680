/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * egress.*: containers reach the outside only through a proxy that denies
 * destinations no allowlist holds (kata-guard(8), CHECKS).
 *
 * The probe is one TCP connection to the configured proxy and, on it, one
 * CONNECT request for a host that no allowlist holds.  The proxy is the only
 * peer the guard ever talks to, and nothing is resolved: the proxy is a
 * literal address and the probe host is only written into the request.
 * Connect, send and read share ONE deadline ([egress] timeout_ms on
 * CLOCK_MONOTONIC), so a proxy that is slow at every step still cannot hold
 * a container start for longer than the timeout.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <time.h>

#include "checks.h"
#include "cleanup.h"
#include "conf.h"
#include "egress.h"
#include "error.h"
#include "text.h"

/* The longest status line we read (CRLF included).  Real ones are a few
   dozen bytes; anything longer is not a proxy we understand. */
#define STATUS_LINE_MAX 1024

static const char remedy_config[]
    = "set [egress] proxy to the \"IP:port\" of the allowlist proxy that is the containers' only "
      "way out, or set [egress] enabled = false to accept uncontained egress";

/* ---- the status line --------------------------------------------------- */

static bool
is_digit (char c)
{
  return c >= '0' && c <= '9';
}

int
egress_parse_status_line (const char *buf, size_t len, int *status, size_t *line_len,
                          const char **why)
{
  static const char version[] = "HTTP/1.";
  size_t i;

  /* Checked byte by byte as far as the data goes, so that an answer that
     is not HTTP is refused at once instead of waiting for a CRLF. */
  for (i = 0; i < sizeof version - 1; i++)
    {
      if (i == len)
        return 0;
      if (buf[i] != version[i])
        {
          *why = "it does not start with \"HTTP/1.\"";
          return -1;
        }
    }
  if (i == len)
    return 0;
  if (! is_digit (buf[i++]))
    {
      *why = "the HTTP version is not 1.x";
      return -1;
    }
  if (i == len)
    return 0;
  if (buf[i++] != ' ')
    {
      *why = "no single space after the HTTP version";
      return -1;
    }
  for (size_t n = 0; n < 3; n++, i++)
    {
      if (i == len)
        return 0;
      /* Status codes are 100..599 (RFC 9110, 15). */
      if (! is_digit (buf[i]) || (n == 0 && (buf[i] < '1' || buf[i] > '5')))
        {
          *why = "the status code is not three digits from 100 to 599";
          return -1;
        }
    }
  if (i == len)
    return 0;
  if (buf[i] == ' ')
    {
      /* reason-phrase = *( HTAB / SP / VCHAR / obs-text ) (RFC 9112, 4) */
      for (i++; i < len && buf[i] != '\r'; i++)
        {
          unsigned char c = (unsigned char) buf[i];

          if (c != '\t' && kg_is_ctl (c))
            {
              *why = "a control character in the reason phrase";
              return -1;
            }
        }
      if (i == len)
        return 0;
    }
  if (buf[i] != '\r')
    {
      *why = "the status code is not followed by a space or CRLF";
      return -1;
    }
  if (++i == len)
    return 0;
  if (buf[i] != '\n')
    {
      *why = "a CR not followed by LF";
      return -1;
    }
  *status = (buf[9] - '0') * 100 + (buf[10] - '0') * 10 + (buf[11] - '0');
  *line_len = i + 1;
  return 1;
}

/* Copy N bytes of untrusted peer data into OUT for a one-line message:
   printable ASCII as is, everything else as \xNN, cut with "..." when it
   does not fit.  What a proxy sends must not reach a terminal, syslog or
   the JSON output raw. */
static void
printable (const char *in, size_t n, char *out, size_t size)
{
  size_t o = 0;

  for (size_t i = 0; i < n; i++)
    {
      unsigned char c = (unsigned char) in[i];
      char tmp[5];
      size_t l;

      if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\')
        {
          tmp[0] = (char) c;
          tmp[1] = '\0';
        }
      else
        snprintf (tmp, sizeof tmp, "\\x%02x", c);
      l = strlen (tmp);
      if (o + l + 4 > size)
        {
          memcpy (out + o, "...", 3);
          o += 3;
          break;
        }
      memcpy (out + o, tmp, l);
      o += l;
    }
  out[o] = '\0';
}

/* ---- the deadline ------------------------------------------------------ */

struct deadline
{
  int64_t start_ns;
  int64_t end_ns;
  int64_t timeout_ms;
};

static int64_t
now_ns (void)
{
  struct timespec ts;

  /* Cannot fail with a valid clock id and pointer. */
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (int64_t) ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void
deadline_start (struct deadline *d, int64_t timeout_ms)
{
  d->timeout_ms = timeout_ms;
  d->start_ns = now_ns ();
  d->end_ns = d->start_ns + timeout_ms * 1000000;
}

static int64_t
deadline_elapsed_ms (const struct deadline *d)
{
  return (now_ns () - d->start_ns) / 1000000;
}

/* Wait until FD is ready for EVENTS or the deadline passes.  Returns 1
   when ready (or in error: the caller's next call says which), 0 at the
   deadline, -1 on a poll error. */
static int
wait_fd (int fd, short events, const struct deadline *d, kg_error_t *err)
{
  for (;;)
    {
      struct pollfd p = { .fd = fd, .events = events };
      int64_t left = d->end_ns - now_ns ();
      int r;

      if (left <= 0)
        return 0;
      /* Rounded up: rounding down would spin on poll (fd, 1, 0) during
         the last millisecond. */
      r = poll (&p, 1, (int) ((left + 999999) / 1000000));
      if (r > 0)
        return 1;
      if (r < 0 && errno != EINTR)
        return kg_error (err, errno, "poll");
    }
}

/* ---- egress.config ----------------------------------------------------- */

/* The loader already validated these values; checking them again here
   costs nothing and keeps a request line that could be smuggled, or an
   expected 2xx that would let an open proxy pass, impossible whatever
   built the configuration. */
static const char *
probe_settings_problem (const struct guard_config *cfg)
{
  const char *h = cfg->egress.probe_host;
  size_t n = h ? strlen (h) : 0;

  if (h == NULL || n > 253)
    return "[egress] probe_host is not a DNS host name";
  for (size_t i = 0; i < n; i++)
    if (! ((h[i] >= 'a' && h[i] <= 'z') || (h[i] >= 'A' && h[i] <= 'Z') || is_digit (h[i])
           || h[i] == '-' || h[i] == '.'))
      return "[egress] probe_host is not a DNS host name";
  if (cfg->egress.expect_status != 0
      && (cfg->egress.expect_status < 300 || cfg->egress.expect_status > 599))
    return "[egress] expect_status is not from 300 to 599";
  if (cfg->egress.n_deny_statuses == 0 || cfg->egress.n_deny_statuses > CONF_MAX_STATUSES)
    return "[egress] deny_statuses is empty";
  for (size_t i = 0; i < cfg->egress.n_deny_statuses; i++)
    if (cfg->egress.deny_statuses[i] < 300 || cfg->egress.deny_statuses[i] > 599)
      return "[egress] deny_statuses holds a status not from 300 to 599";
  if (cfg->egress.timeout_ms < 1 || cfg->egress.timeout_ms > 60000)
    return "[egress] timeout_ms is not from 1 to 60000";
  return NULL;
}

bool
egress_denied_status (const struct guard_config *cfg, int status)
{
  if (status >= 200 && status <= 299)
    return false;
  if (cfg->egress.expect_status != 0)
    return status == cfg->egress.expect_status;
  for (size_t i = 0; i < cfg->egress.n_deny_statuses; i++)
    if (status == cfg->egress.deny_statuses[i])
      return true;
  return false;
}

/* "403 or 407", the statuses that mean denied, into BUF. */
static const char *
denied_statuses (const struct guard_config *cfg, char *buf, size_t size)
{
  size_t n = cfg->egress.expect_status != 0 ? 1 : cfg->egress.n_deny_statuses, o = 0;

  buf[0] = '\0';
  for (size_t i = 0; i < n && o < size; i++)
    o += (size_t) snprintf (buf + o, size - o, "%s%" PRId64,
                            i == 0       ? ""
                            : i + 1 == n ? " or "
                                         : ", ",
                            cfg->egress.expect_status != 0 ? cfg->egress.expect_status
                                                           : cfg->egress.deny_statuses[i]);
  return buf;
}

int
egress_probe_host (const struct guard_config *cfg, char *buf, size_t size)
{
  unsigned char r[8];

  if (cfg->egress.probe_host != NULL && cfg->egress.probe_host[0] != '\0')
    return snprintf (buf, size, "%s", cfg->egress.probe_host) < (int) size ? 0 : -1;
  /* A fresh name for every probe: a proxy cannot allow everything but one
     fixed name.  Under .invalid (RFC 6761), so it is nobody's. */
  if (getrandom (r, sizeof r, 0) != (ssize_t) sizeof r)
    return -1;
  return snprintf (buf, size, "kg-%02x%02x%02x%02x%02x%02x%02x%02x.invalid", r[0], r[1], r[2], r[3],
                   r[4], r[5], r[6], r[7])
                 < (int) size
             ? 0
             : -1;
}

/* Returns true when the probe should run, with the proxy's address. */
static bool
check_config (struct preflight *pf, struct sockaddr_storage *ss, unsigned *len)
{
  const struct guard_config *cfg = pf->cfg;
  struct report *rep = pf->rep;
  const char *proxy = cfg->egress.proxy ? cfg->egress.proxy : "";
  cleanup_error kg_error_t err = NULL;
  const char *problem;

  if (! cfg->egress.enabled)
    {
      /* Never a pass: nothing contains the containers' traffic. */
      report_warn (rep, "egress.config",
                   "set [egress] enabled = true and [egress] proxy to an allowlist proxy that "
                   "is the containers' only way out",
                   "egress containment is switched off ([egress] enabled = false): containers "
                   "may reach any destination their network reaches");
      report_skip (rep, "egress.reachable", "not run: [egress] enabled = false");
      report_skip (rep, "egress.denies", "not run: [egress] enabled = false");
      return false;
    }
  if (*proxy == '\0')
    report_fail (rep, "egress.config", remedy_config, "no egress proxy configured");
  else if (conf_parse_endpoint (proxy, ss, len, &err) < 0)
    report_fail (rep, "egress.config", remedy_config, "[egress] proxy %s", err->msg);
  else if (ss->ss_family != AF_INET && ss->ss_family != AF_INET6)
    report_fail (rep, "egress.config", remedy_config,
                 "[egress] proxy \"%s\" is not an IPv4 or IPv6 address", proxy);
  else if ((problem = probe_settings_problem (cfg)) != NULL)
    report_fail (rep, "egress.config", "fix the [egress] table of the guard configuration", "%s",
                 problem);
  else
    {
      char st[64];

      report_pass (rep, "egress.config",
                   "proxy %s, probe CONNECT %s:443 expecting %s, deadline %" PRId64 " ms", proxy,
                   cfg->egress.probe_host[0] ? cfg->egress.probe_host : "a fresh .invalid name",
                   denied_statuses (cfg, st, sizeof st), cfg->egress.timeout_ms);
      return true;
    }
  report_skip (rep, "egress.reachable", "not run: egress.config failed");
  report_skip (rep, "egress.denies", "not run: egress.config failed");
  return false;
}

/* ---- egress.reachable -------------------------------------------------- */

/* A connected non-blocking TCP socket to the proxy, or -1 with the errno
   that says why (ETIMEDOUT when the deadline passed). */
static int
proxy_connect (const struct sockaddr_storage *ss, unsigned len, const struct deadline *d,
               kg_error_t *err)
{
  cleanup_close int fd = -1;
  socklen_t elen = sizeof (int);
  int e = 0, r;

  fd = socket (ss->ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, IPPROTO_TCP);
  if (fd < 0)
    return kg_error (err, errno, "cannot create a TCP socket");
  if (connect (fd, (const struct sockaddr *) ss, len) == 0)
    return steal_fd (&fd);
  if (errno != EINPROGRESS && errno != EINTR)
    return kg_error (err, errno, "connect");
  /* EINTR: the connection still goes on in the background (connect(2)),
     and completes exactly like EINPROGRESS. */
  r = wait_fd (fd, POLLOUT, d, err);
  if (r < 0)
    return -1;
  if (r == 0)
    return kg_error (err, ETIMEDOUT, "connect");
  if (getsockopt (fd, SOL_SOCKET, SO_ERROR, &e, &elen) < 0)
    return kg_error (err, errno, "getsockopt SO_ERROR");
  if (e != 0)
    return kg_error (err, e, "connect");
  return steal_fd (&fd);
}

static int
check_reachable (struct preflight *pf, const struct sockaddr_storage *ss, unsigned len,
                 const struct deadline *d)
{
  const char *proxy = pf->cfg->egress.proxy;
  cleanup_error kg_error_t err = NULL;
  int fd;

  fd = proxy_connect (ss, len, d, &err);
  if (fd >= 0)
    {
      report_pass (pf->rep, "egress.reachable",
                   "the proxy %s accepted a TCP connection in %" PRId64 " ms", proxy,
                   deadline_elapsed_ms (d));
      return fd;
    }
  switch (err->errnum)
    {
    case ECONNREFUSED:
      report_fail (pf->rep, "egress.reachable",
                   "start the egress proxy, or set [egress] proxy to the address and port it "
                   "listens on",
                   "connection to the proxy %s refused: nothing listens there", proxy);
      break;
    case ENETUNREACH:
    case EHOSTUNREACH:
      report_fail (pf->rep, "egress.reachable",
                   "give this host a route to the proxy (see ip route get), or fix [egress] proxy",
                   "the proxy %s is unreachable from this host: %s", proxy, strerror (err->errnum));
      break;
    case ETIMEDOUT:
      report_fail (pf->rep, "egress.reachable",
                   "check that the proxy runs and that no firewall drops connections to it, or "
                   "raise [egress] timeout_ms",
                   "no TCP connection to the proxy %s within %" PRId64 " ms (waited %" PRId64
                   " ms)",
                   proxy, d->timeout_ms, deadline_elapsed_ms (d));
      break;
    default:
      report_fail (pf->rep, "egress.reachable",
                   "check the proxy and this host's network, or fix [egress] proxy",
                   "cannot connect to the proxy %s: %s", proxy, err->msg);
      break;
    }
  report_skip (pf->rep, "egress.denies", "not run: egress.reachable failed");
  return -1;
}

/* ---- egress.denies ----------------------------------------------------- */

/* Why the probe found no status: each has its own reason and remedy. */
enum probe_failure
{
  PROBE_SILENT,  /* the deadline passed */
  PROBE_CLOSED,  /* end of stream or reset before a status line */
  PROBE_GARBAGE, /* not an HTTP/1.x status line */
  PROBE_ERROR,   /* a local error */
};

static const char *const probe_remedy[] = {
  [PROBE_SILENT] = "check that [egress] proxy is an HTTP proxy that answers CONNECT (see its "
                   "log), or raise [egress] timeout_ms",
  [PROBE_CLOSED] = "check the proxy's log for why it dropped the request, and that it accepts "
                   "clients from this host",
  [PROBE_GARBAGE] = "set [egress] proxy to the HTTP proxy: this endpoint does not speak HTTP/1.x",
  [PROBE_ERROR] = "check the proxy and this host's network",
};

/* Send all of BUF before the deadline.  MSG_NOSIGNAL: a proxy that hangs
   up must give EPIPE here, not kill the guard with SIGPIPE. */
static int
send_all (int fd, const char *buf, size_t len, const struct deadline *d, enum probe_failure *why,
          kg_error_t *err)
{
  size_t off = 0;

  while (off < len)
    {
      ssize_t n = send (fd, buf + off, len - off, MSG_NOSIGNAL);
      int r;

      if (n > 0)
        {
          off += (size_t) n;
          continue;
        }
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0 && (errno == EPIPE || errno == ECONNRESET))
        {
          *why = PROBE_CLOSED;
          return kg_error (err, 0,
                           "closed the connection without answering (before the "
                           "request was sent: %s)",
                           strerror (errno));
        }
      if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
        {
          *why = PROBE_ERROR;
          return kg_error (err, errno, "sending the CONNECT request");
        }
      r = wait_fd (fd, POLLOUT, d, err);
      if (r < 0)
        {
          *why = PROBE_ERROR;
          return -1;
        }
      if (r == 0)
        {
          *why = PROBE_SILENT;
          return kg_error (err, 0,
                           "the CONNECT request could not be sent within %" PRId64
                           " ms (sent %zu of %zu bytes)",
                           d->timeout_ms, off, len);
        }
    }
  return 0;
}

/* Read the status line (at most STATUS_LINE_MAX bytes) before the
   deadline.  On success *STATUS, and REASON holds the printable reason
   phrase. */
static int
read_status (int fd, const struct deadline *d, int *status, char *reason, size_t reason_size,
             enum probe_failure *why, kg_error_t *err)
{
  char buf[STATUS_LINE_MAX];
  char seen[96];
  size_t len = 0, line_len = 0;
  const char *bad = NULL;

  for (;;)
    {
      ssize_t n;
      int r = egress_parse_status_line (buf, len, status, &line_len, &bad);

      if (r > 0)
        break;
      if (r < 0)
        {
          printable (buf, len, seen, sizeof seen);
          *why = PROBE_GARBAGE;
          return kg_error (err, 0,
                           "answered something that is not an HTTP/1.x status line (%s): "
                           "\"%s\"",
                           bad, seen);
        }
      if (len == sizeof buf)
        {
          printable (buf, 32, seen, sizeof seen);
          *why = PROBE_GARBAGE;
          return kg_error (err, 0, "answered a status line longer than %d bytes: \"%s\"",
                           STATUS_LINE_MAX, seen);
        }
      r = wait_fd (fd, POLLIN, d, err);
      if (r < 0)
        {
          *why = PROBE_ERROR;
          return -1;
        }
      if (r == 0)
        {
          *why = PROBE_SILENT;
          if (len == 0)
            return kg_error (err, 0, "sent no answer within %" PRId64 " ms (waited %" PRId64 " ms)",
                             d->timeout_ms, deadline_elapsed_ms (d));
          printable (buf, len, seen, sizeof seen);
          return kg_error (err, 0,
                           "sent only an incomplete status line within %" PRId64
                           " ms (waited %" PRId64 " ms): \"%s\"",
                           d->timeout_ms, deadline_elapsed_ms (d), seen);
        }
      n = recv (fd, buf + len, sizeof buf - len, 0);
      if (n > 0)
        {
          len += (size_t) n;
          continue;
        }
      if (n < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK))
        continue;
      if (n < 0 && errno != ECONNRESET)
        {
          *why = PROBE_ERROR;
          return kg_error (err, errno, "reading the answer");
        }
      *why = PROBE_CLOSED;
      if (len == 0)
        return kg_error (err, 0, "closed the connection without answering%s",
                         n == 0 ? "" : " (reset)");
      printable (buf, len, seen, sizeof seen);
      return kg_error (err, 0,
                       "closed the connection in the middle of the status line%s: "
                       "\"%s\"",
                       n == 0 ? "" : " (reset)", seen);
    }
  /* "HTTP/1.x NNN" is 12 bytes; a reason phrase follows after a space. */
  if (line_len > 14)
    printable (buf + 13, line_len - 15, reason, reason_size);
  else
    reason[0] = '\0';
  return 0;
}

/* On the connection FD, ask for CONNECT HOST:443 and read the status line,
   within D: 0 with *STATUS and its REASON phrase, or -1 with *WHY and ERR.
   HOST is a DNS name (conf.c, probe_settings_problem, egress_probe_host):
   it cannot carry a space, CR or LF into the request. */
static int
ask_connect (int fd, const char *host, const struct deadline *d, int *status, char *reason,
             size_t reason_size, enum probe_failure *why, kg_error_t *err)
{
  cleanup_free char *req = NULL;
  int n = asprintf (&req, "CONNECT %s:443 HTTP/1.1\r\nHost: %s:443\r\n\r\n", host, host);

  if (n < 0)
    {
      req = NULL;
      *why = PROBE_ERROR;
      return kg_error (err, ENOMEM, "cannot build the CONNECT request");
    }
  if (send_all (fd, req, (size_t) n, d, why, err) < 0
      || read_status (fd, d, status, reason, reason_size, why, err) < 0)
    return -1;
  return 0;
}

static void
check_denies (struct preflight *pf, int fd, const struct deadline *d)
{
  const struct guard_config *cfg = pf->cfg;
  const char *proxy = cfg->egress.proxy;
  cleanup_error kg_error_t err = NULL;
  enum probe_failure why = PROBE_ERROR;
  char reason[80], phrase[84], host[272], st[64];
  int status = 0;

  if (egress_probe_host (cfg, host, sizeof host) < 0)
    {
      report_fail (pf->rep, "egress.denies", probe_remedy[PROBE_ERROR],
                   "cannot make a probe host name: %s", strerror (errno));
      return;
    }

  if (ask_connect (fd, host, d, &status, reason, sizeof reason, &why, &err) < 0)
    {
      report_fail (pf->rep, "egress.denies", probe_remedy[why],
                   "the proxy %s, asked to CONNECT %s:443, %s", proxy, host, err->msg);
      return;
    }
  snprintf (phrase, sizeof phrase, "%s%s", reason[0] ? " " : "", reason);
  if (egress_denied_status (cfg, status))
    report_pass (pf->rep, "egress.denies",
                 "the proxy %s denied CONNECT %s:443 with %d%s, as expected", proxy, host, status,
                 phrase);
  else if (status >= 200 && status <= 299)
    report_fail (pf->rep, "egress.denies",
                 "make the proxy deny every destination not on its allowlist (tinyproxy: "
                 "FilterDefaultDeny Yes; squid: http_access deny all last), and keep [egress] "
                 "probe_host off every allowlist",
                 "open proxy: it allowed a destination outside any allowlist (the proxy %s "
                 "answered CONNECT %s:443 with %d%s)",
                 proxy, host, status, phrase);
  else
    report_fail (pf->rep, "egress.denies",
                 "set [egress] deny_statuses to the statuses this proxy uses to deny a "
                 "destination, or fix the proxy",
                 "the proxy %s answered CONNECT %s:443 with %d%s, expected %s", proxy, host, status,
                 phrase, denied_statuses (cfg, st, sizeof st));
}

int
egress_probe (const struct sockaddr_storage *ss, unsigned len, const char *host, int64_t timeout_ms,
              int *status, kg_error_t *err)
{
  cleanup_close int fd = -1;
  enum probe_failure why = PROBE_ERROR;
  struct deadline d;
  char reason[80];

  *status = 0;
  deadline_start (&d, timeout_ms);
  fd = proxy_connect (ss, len, &d, err);
  if (fd < 0)
    return -1;
  return ask_connect (fd, host, &d, status, reason, sizeof reason, &why, err);
}

void
check_egress (struct preflight *pf)
{
  struct sockaddr_storage ss;
  struct deadline d;
  cleanup_close int fd = -1;
  unsigned len = 0;

  if (! check_config (pf, &ss, &len))
    return;
  /* One deadline from here on: connect, send and read share it. */
  deadline_start (&d, pf->cfg->egress.timeout_ms);
  fd = check_reachable (pf, &ss, len, &d);
  if (fd < 0)
    return;
  check_denies (pf, fd, &d);
}
