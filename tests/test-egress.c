/* SPDX-License-Identifier: GPL-2.0-or-later */
/* egress.*: the strict status-line parser, the configuration verdicts and
   a refused connection (the real proxies are in tests/egress.test). */
#include "config.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include "check-helpers.h"
#include "checks.h"
#include "preflight.h"
#include "egress.h"
#include "request.h"
#include "tap.h"

/* S with CR, LF and other control bytes shown as escapes, for test names
   (a raw newline would break the TAP stream). */
static const char *
shown (const char *s)
{
  static char buf[256];
  size_t o = 0;

  for (; *s && o + 5 < sizeof buf; s++)
    {
      unsigned char c = (unsigned char) *s;

      if (c == '\r')
        o += (size_t) snprintf (buf + o, sizeof buf - o, "\\r");
      else if (c == '\n')
        o += (size_t) snprintf (buf + o, sizeof buf - o, "\\n");
      else if (c < 0x20 || c >= 0x7f)
        o += (size_t) snprintf (buf + o, sizeof buf - o, "\\x%02x", c);
      else
        buf[o++] = (char) c;
    }
  buf[o] = '\0';
  return buf;
}

static int
parse (const char *s, int *status, size_t *line_len, const char **why)
{
  *status = -1;
  *line_len = 0;
  *why = NULL;
  return egress_parse_status_line (s, strlen (s), status, line_len, why);
}

static void
expect_line (const char *s, int want_status)
{
  const char *why;
  size_t line_len;
  int status;
  int r = parse (s, &status, &line_len, &why);

  is_int (r, 1, "complete: \"%s\"", shown (s));
  is_int (status, want_status, "status of \"%s\"", shown (s));
  is_int (line_len, strchr (s, '\n') - s + 1, "line length of \"%s\"", shown (s));
}

static void
expect_more (const char *s)
{
  const char *why;
  size_t line_len;
  int status;

  is_int (parse (s, &status, &line_len, &why), 0, "a valid prefix, read more: \"%s\"", shown (s));
}

static void
expect_garbage (const char *label, const char *s, size_t len, const char *want_why)
{
  const char *why = NULL;
  size_t line_len = 0;
  int status = 0;

  is_int (egress_parse_status_line (s, len, &status, &line_len, &why), -1, "garbage: %s", label);
  has_str (why, want_why, "garbage: %s: the reason says '%s'", label, want_why);
}

static void
run (struct guard_config *cfg, struct report *rep)
{
  struct request req = { .mode = KG_MODE_CHECK };
  struct preflight pf;

  memset (rep, 0, sizeof *rep);
  preflight_init (&pf, &req, cfg, rep);
  check_egress (&pf);
  preflight_release (&pf);
}

static void
default_config (struct guard_config *cfg, char *proxy)
{
  memset (cfg, 0, sizeof *cfg);
  cfg->egress.enabled = true;
  cfg->egress.proxy = proxy;
  cfg->egress.timeout_ms = 1000;
  cfg->egress.probe_host = (char *) "kata-guard-probe.invalid";
  cfg->egress.deny_statuses[0] = 403;
  cfg->egress.deny_statuses[1] = 407;
  cfg->egress.n_deny_statuses = 2;
}

static void
expect_config_fail (const char *label, struct guard_config *cfg, const char *want)
{
  struct report rep;

  run (cfg, &rep);
  is_int (rep.n, 3, "%s: three results", label);
  is_int (report_verdict (&rep, "egress.config"), VERDICT_FAIL, "%s: egress.config fails", label);
  has_str (report_reason (&rep, "egress.config"), want, "%s: the reason says '%s'", label, want);
  ok (report_find (&rep, "egress.config")->remedy != NULL, "%s: a remedy is given", label);
  is_int (report_verdict (&rep, "egress.reachable"), VERDICT_SKIP, "%s: egress.reachable skipped",
          label);
  is_str (report_reason (&rep, "egress.reachable"), "not run: egress.config failed",
          "%s: egress.reachable says why", label);
  is_str (report_reason (&rep, "egress.denies"), "not run: egress.config failed",
          "%s: egress.denies says why", label);
  is_int (report_overall (&rep), VERDICT_FAIL, "%s: overall fail", label);
  report_release (&rep);
}

int
main (void)
{
  struct guard_config cfg;
  struct report rep;
  char long_line[2048];
  char proxy[64];
  const char *why;
  size_t line_len;
  int status;

  /* The status line: what passes. */
  expect_line ("HTTP/1.1 403 Forbidden\r\n", 403);
  expect_line ("HTTP/1.0 200 Connection established\r\n\r\n", 200);
  expect_line ("HTTP/1.1 407\r\n", 407);
  expect_line ("HTTP/1.1 403 \r\n", 403);
  expect_line ("HTTP/1.1 502 Bad\tGateway \xe2\x9c\x97\r\nVia: x\r\n", 502);
  expect_line ("HTTP/1.1 100 Continue\r\n", 100);
  expect_line ("HTTP/1.1 599 x\r\n", 599);

  /* Valid prefixes: wait for more bytes. */
  expect_more ("");
  expect_more ("H");
  expect_more ("HTTP/1.");
  expect_more ("HTTP/1.1");
  expect_more ("HTTP/1.1 ");
  expect_more ("HTTP/1.1 40");
  expect_more ("HTTP/1.1 403");
  expect_more ("HTTP/1.1 403 Forbid");
  expect_more ("HTTP/1.1 403 Forbidden\r");
  expect_more ("HTTP/1.1 403\r");

  /* Garbage: refused as soon as it cannot become a status line. */
  expect_garbage ("SSH banner", "SSH-2.0-OpenSSH_9.2\r\n", 21, "does not start with \"HTTP/1.\"");
  expect_garbage ("first byte", "X", 1, "does not start with \"HTTP/1.\"");
  expect_garbage ("lower case", "http/1.1 403 Forbidden\r\n", 24, "does not start with");
  expect_garbage ("HTTP/2", "HTTP/2 403\r\n", 12, "does not start with");
  expect_garbage ("HTTP/1.x", "HTTP/1.x 403\r\n", 14, "not 1.x");
  expect_garbage ("two spaces", "HTTP/1.1  403\r\n", 15, "the status code is not three digits");
  expect_garbage ("tab", "HTTP/1.1\t403\r\n", 14, "no single space");
  expect_garbage ("two digits", "HTTP/1.1 40\r\n", 13, "not three digits");
  expect_garbage ("four digits", "HTTP/1.1 4030 x\r\n", 17, "not followed by a space or CRLF");
  expect_garbage ("status 099", "HTTP/1.1 099 x\r\n", 16, "from 100 to 599");
  expect_garbage ("status 600", "HTTP/1.1 600 x\r\n", 16, "from 100 to 599");
  expect_garbage ("sign", "HTTP/1.1 +40 x\r\n", 16, "three digits");
  expect_garbage ("bare LF after code", "HTTP/1.1 403\n", 13, "not followed by a space or CRLF");
  expect_garbage ("bare LF in reason", "HTTP/1.1 403 Forbidden\n", 23, "control character");
  expect_garbage ("CR without LF", "HTTP/1.1 403 Forbidden\rX", 24, "CR not followed by LF");
  expect_garbage ("NUL in reason", "HTTP/1.1 403 Fo\0bidden\r\n", 24, "control character");
  expect_garbage ("DEL in reason", "HTTP/1.1 403 Fo\x7f\r\n", 18, "control character");
  expect_garbage ("NUL first", "\0HTTP/1.1 403\r\n", 15, "does not start with");

  /* A long valid prefix is "more": the reader's bound makes it garbage. */
  memset (long_line, 'A', sizeof long_line);
  memcpy (long_line, "HTTP/1.1 403 ", 13);
  is_int (egress_parse_status_line (long_line, sizeof long_line, &status, &line_len, &why), 0,
          "a long reason without CRLF is a valid prefix (the reader bounds it)");

  /* egress.config */
  default_config (&cfg, (char *) "");
  expect_config_fail ("proxy empty", &cfg, "no egress proxy configured");
  default_config (&cfg, NULL);
  expect_config_fail ("proxy NULL", &cfg, "no egress proxy configured");
  default_config (&cfg, (char *) "proxy.internal:3128");
  expect_config_fail ("host name", &cfg, "not an IPv4 address");
  default_config (&cfg, (char *) "127.0.0.1:1");
  cfg.egress.probe_host = (char *) "x\r\nHost: y";
  expect_config_fail ("probe host with CRLF", &cfg, "probe_host is not a DNS host name");
  default_config (&cfg, (char *) "127.0.0.1:1");
  cfg.egress.expect_status = 200;
  expect_config_fail ("expect_status 200", &cfg, "expect_status is not from 300 to 599");
  default_config (&cfg, (char *) "127.0.0.1:1");
  cfg.egress.deny_statuses[1] = 204;
  expect_config_fail ("deny_statuses with 204", &cfg, "deny_statuses holds a status not from 300");
  default_config (&cfg, (char *) "127.0.0.1:1");
  cfg.egress.n_deny_statuses = 0;
  expect_config_fail ("deny_statuses empty", &cfg, "deny_statuses is empty");

  /* No probe_host: a fresh name under .invalid for every probe. */
  {
    char a[272], b[272];

    default_config (&cfg, (char *) "127.0.0.1:1");
    cfg.egress.probe_host = (char *) "";
    ok (egress_probe_host (&cfg, a, sizeof a) == 0 && egress_probe_host (&cfg, b, sizeof b) == 0,
        "random probe hosts are made");
    ok (strlen (a) == 27 && strncmp (a, "kg-", 3) == 0 && strspn (a + 3, "0123456789abcdef") == 16
            && strcmp (a + 19, ".invalid") == 0,
        "a random probe host is kg-<16 hex digits>.invalid (%s)", a);
    ok (strcmp (a, b) != 0, "two probes, two names (%s, %s)", a, b);
    cfg.egress.probe_host = (char *) "fixed.example";
    ok (egress_probe_host (&cfg, a, sizeof a) == 0 && strcmp (a, "fixed.example") == 0,
        "a configured probe_host is used as it is");
    /* The statuses that mean denied: 2xx never, whatever is listed. */
    default_config (&cfg, (char *) "127.0.0.1:1");
    ok (egress_denied_status (&cfg, 403) && egress_denied_status (&cfg, 407)
            && ! egress_denied_status (&cfg, 404) && ! egress_denied_status (&cfg, 200),
        "deny_statuses [403, 407]: 403 and 407 deny, 404 and 200 do not");
    cfg.egress.expect_status = 404;
    ok (egress_denied_status (&cfg, 404) && ! egress_denied_status (&cfg, 403),
        "expect_status, when set, is the one status");
  }
  default_config (&cfg, (char *) "127.0.0.1:1");
  cfg.egress.timeout_ms = 0;
  expect_config_fail ("timeout 0", &cfg, "timeout_ms is not from 1 to 60000");

  /* enabled = false: a warning, never a pass, and nothing is probed. */
  default_config (&cfg, (char *) "127.0.0.1:1");
  cfg.egress.enabled = false;
  run (&cfg, &rep);
  is_int (rep.n, 3, "disabled: three results");
  is_int (report_verdict (&rep, "egress.config"), VERDICT_WARN, "disabled: egress.config warns");
  has_str (report_reason (&rep, "egress.config"), "egress containment is switched off",
           "disabled: the reason says so");
  ok (report_find (&rep, "egress.config")->remedy != NULL, "disabled: a remedy is given");
  is_str (report_reason (&rep, "egress.reachable"), "not run: [egress] enabled = false",
          "disabled: egress.reachable not run");
  is_int (report_verdict (&rep, "egress.denies"), VERDICT_SKIP, "disabled: egress.denies skipped");
  is_str (report_reason (&rep, "egress.denies"), "not run: [egress] enabled = false",
          "disabled: egress.denies says why");
  is_int (report_overall (&rep), VERDICT_WARN, "disabled: overall warn");
  report_release (&rep);

  /* A port that was just free: refused. */
  {
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl (INADDR_LOOPBACK) };
    socklen_t alen = sizeof a;
    int fd = socket (AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

    if (fd < 0 || bind (fd, (struct sockaddr *) &a, sizeof a) < 0
        || getsockname (fd, (struct sockaddr *) &a, &alen) < 0)
      abort ();
    snprintf (proxy, sizeof proxy, "127.0.0.1:%u", ntohs (a.sin_port));
    close (fd);
  }
  default_config (&cfg, proxy);
  run (&cfg, &rep);
  is_int (report_verdict (&rep, "egress.config"), VERDICT_PASS, "refused: egress.config passes");
  is_int (report_verdict (&rep, "egress.reachable"), VERDICT_FAIL,
          "refused: egress.reachable fails");
  has_str (report_reason (&rep, "egress.reachable"), "refused", "refused: the reason says refused");
  has_str (report_reason (&rep, "egress.reachable"), proxy, "refused: the reason names the proxy");
  is_str (report_reason (&rep, "egress.denies"), "not run: egress.reachable failed",
          "refused: egress.denies not run");
  report_release (&rep);

  return tap_done ();
}
