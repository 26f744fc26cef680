/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The refusal, log and decision lines (output.h, decision.h).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "array.h"
#include "cleanup.h"
#include "decision.h"
#include "exec.h"
#include "options.h"
#include "output.h"
#include "tap.h"
#include "wrapper.h"
/* N failures PREFIX0, PREFIX1, ... into R, each with REASON and REMEDY. */
static void
fail_many (struct report *r, const char *prefix, int n, const char *reason, const char *remedy)
{
  for (int i = 0; i < n; i++)
    {
      char id[32];

      snprintf (id, sizeof id, "%s%d", prefix, i);
      report_fail (r, id, remedy, "%s", reason);
    }
}

static void
test_output (void)
{
  struct report r = { 0 };
  struct timespec ts = { 1700000000, 123456789 };
  char *s;

  report_pass (&r, "kvm.device", "fine");
  report_fail (&r, "kvm.open", "load kvm", "cannot open /dev/kvm: Permission denied");
  report_skip (&r, "kvm.api", "not run");
  report_fail (&r, "egress.proxy", NULL, "127.0.0.1:9 refused the connection\nsecond line");
  s = output_refusal (&r, "c1", false);
  is_str (s,
          "kata-guard: refusing to start container c1: 2 checks failed: kvm.open, egress.proxy; "
          "kvm.open: cannot open /dev/kvm: Permission denied (remedy: load kvm); egress.proxy: "
          "127.0.0.1:9 refused the connection?second line",
          "refusal: every failed id, then each with its reason and remedy, one line");
  free (s);
  /* One failure: no list. */
  {
    struct report one = { 0 };

    report_fail (&one, "kvm.open", "load kvm", "cannot open /dev/kvm");
    s = output_refusal (&one, "c1", false);
    is_str (s,
            "kata-guard: refusing to start container c1: kvm.open: cannot open /dev/kvm (remedy: "
            "load kvm)",
            "refusal: one failure, with its remedy");
    report_release (&one);
  }
  free (s);

  /* Many long failures: bounded, and the rest counted. */
  {
    char longr[2000];

    memset (longr, 'x', sizeof longr - 1);
    longr[sizeof longr - 1] = '\0';
    fail_many (&r, "fam.check", 40, longr, "remedy");
    s = output_refusal (&r, "c1", false);
    ok (s && strlen (s) <= KG_REFUSAL_MAX, "refusal: bounded (%zu bytes)", s ? strlen (s) : 0);
    /* Every failed id is named, not counted (issue 39: "1 more failed"
       sent the operator to a log that a host without syslog lacks). */
    {
      bool all = s != NULL;

      for (int i = 0; i < 40 && all; i++)
        {
          char id[32];
          const char *p = s;
          size_t n = (size_t) snprintf (id, sizeof id, "fam.check%d", i);

          /* The id whole: followed by ':' (with its reason), ',' or the end. */
          while ((p = strstr (p, id)) != NULL && p[n] != ':' && p[n] != ',' && p[n] != '\0')
            p += n;
          all = p != NULL;
          if (! all)
            printf ("#   %s is not named in: %s\n", id, s);
        }
      ok (all, "refusal: every one of 40 failed ids is named");
      ok (s && strstr (s, " more") == NULL, "refusal: none is only counted");
      has_str (s, "42 checks failed: kvm.open, fam.check0, fam.check1, ",
               "refusal: the line begins with the list of them all");
    }
    ok (s && strchr (s, '\n') == NULL, "refusal: one line");
    free (s);
  }
  report_release (&r);

  /* Under audit mode the enforced failures lead, and what audit mode
     alone would let through is marked (issue 39: policy.* first, the
     enforced egress.netns second and cut off). */
  {
    struct report a = { 0 };

    report_fail (&a, "policy.seccomp", NULL, "no seccomp filter");
    report_set_reach (&a, 0, REACH_VM);
    report_fail (&a, "egress.netns", "use a network of the proxy", "the host's network");
    report_fail (&a, "policy.capabilities", NULL, "CAP_SYS_ADMIN");
    report_set_reach (&a, 2, REACH_VM);
    s = output_refusal (&a, "c1", true);
    has_str (s,
             "container c1: 3 checks failed: egress.netns, policy.seccomp (audit only), "
             "policy.capabilities (audit only); egress.netns: the host's network (remedy: use a "
             "network of the proxy)",
             "audit: the enforced failure leads, with its remedy");
    has_str (s, "; policy.seccomp (audit only): no seccomp filter",
             "audit: what audit mode lets through is marked");
    has_str (s, "policy.capabilities (audit only)", "audit: every audit-only failure marked");
    free (s);
    s = output_refusal (&a, "c1", false);
    has_str (s,
             "container c1: 3 checks failed: egress.netns, policy.seccomp, policy.capabilities; "
             "egress.netns: the host's network (remedy: use a network of the proxy); "
             "policy.seccomp: no seccomp filter",
             "enforce: those with a remedy first, then the report's order, nothing marked");
    ok (s && strstr (s, "audit only") == NULL, "enforce: no audit mark");
    free (s);
    report_release (&a);
  }

  s = output_refusal (&r, NULL, false);
  has_str (s, "refusing to start container (no id): report:", "refusal: an empty report");
  free (s);

  s = output_runc_log ("kata-guard: refusing \"x\"", true, &ts);
  is_str (
      s,
      "{\"level\":\"error\",\"msg\":\"kata-guard: refusing \\\"x\\\"\",\"time\":\"2023-11-14T22:13:20Z\"}\n",
      "runc JSON log line");
  free (s);
  s = output_runc_log ("kata-guard: refusing \"x\"", false, &ts);
  is_str (s, "time=\"2023-11-14T22:13:20Z\" level=error msg=\"kata-guard: refusing \\\"x\\\"\"\n",
          "runc text log line");
  free (s);

  {
    struct report d_rep = { 0 };
    struct decision d = { 0 };
    json_object *o;

    report_add_file (&d_rep, "/etc/kata-guard/config.toml");
    report_add_kata_file (&d_rep, "/opt/kata/configuration.toml");
    report_fail (&d_rep, "kvm.device", NULL, "missing");
    report_warn (&d_rep, "egress.enabled", NULL, "off");
    d.mode = KG_MODE_SHIM;
    d.ns = "default";
    d.container_id = "c9";
    d.rep = &d_rep;
    d.guard_config = "/etc/kata-guard/config.toml";
    d.kata_config = report_kata_config (&d_rep);
    d.message = "kata-guard: refusing";
    d.when = ts;
    s = output_decision_json (&d);
    o = s ? json_tokener_parse (s) : NULL;
    ok (o != NULL && s[strlen (s) - 1] == '\n' && strchr (s, '\n') == s + strlen (s) - 1,
        "decision: one JSON line");
    if (o != NULL)
      {
        json_object *v;

        ok (json_object_object_get_ex (o, "time", &v)
                && strcmp (json_object_get_string (v), "2023-11-14T22:13:20.123Z") == 0,
            "decision: time with milliseconds, UTC");
        ok (json_object_object_get_ex (o, "verdict", &v)
                && strcmp (json_object_get_string (v), "refuse") == 0,
            "decision: verdict");
        ok (json_object_object_get_ex (o, "failed", &v) && json_object_array_length (v) == 1
                && strcmp (json_object_get_string (json_object_array_get_idx (v, 0)), "kvm.device")
                       == 0,
            "decision: failing ids");
        ok (json_object_object_get_ex (o, "kata_config", &v)
                && strcmp (json_object_get_string (v), "/opt/kata/configuration.toml") == 0,
            "decision: the Kata config is the second file");
        ok (json_object_object_get_ex (o, "mode", &v)
                && strcmp (json_object_get_string (v), "shim") == 0
                && json_object_object_get_ex (o, "namespace", &v)
                && json_object_object_get_ex (o, "container", &v)
                && json_object_object_get_ex (o, "config", &v),
            "decision: mode, namespace, container, config");
        json_object_put (o);
      }
    free (s);
    s = output_decision_syslog (&d);
    is_str (s,
            "verdict=refuse mode=shim namespace=default container=c9 failed=kvm.device "
            "warnings=egress.enabled kata_config=/opt/kata/configuration.toml "
            "config=/etc/kata-guard/config.toml message=\"kata-guard: refusing\" "
            "checks=\"kvm.device: missing; egress.enabled: off\"",
            "decision: syslog line");
    free (s);
    /* The lines the decision log's writer routes, rendered at once: it
       reads nothing of the decision itself. */
    {
      static const struct
      {
        bool allow, audited, warn;
        int level;
        const char *name;
      } rows[] = {
        { true, false, false, LOG_INFO, "allowed" },
        { true, false, true, LOG_WARNING, "allowed with a warning" },
        { false, false, false, LOG_WARNING, "refused" },
        { true, true, false, LOG_WARNING, "would-refuse (audit)" },
      };
      struct report quiet = { 0 };

      report_pass (&quiet, "kvm.device", "ok");
      for (size_t i = 0; i < ARRAY_SIZE (rows); i++)
        {
          cleanup_decision_lines struct decision_lines l;
          cleanup_free char *want = NULL;

          d.allow = rows[i].allow;
          d.audited = rows[i].audited;
          d.rep = rows[i].warn ? &d_rep : &quiet;
          output_decision_lines (&d, true, i % 2 == 0, &l);
          want = output_decision_syslog (&d);
          ok (l.level == rows[i].level && l.syslog != NULL && strcmp (l.syslog, want) == 0
                  && (i % 2 == 0) == (l.json != NULL),
              "decision lines, %s: the syslog line at its level, the file's line when asked",
              rows[i].name);
        }
      {
        cleanup_decision_lines struct decision_lines l;

        output_decision_lines (&d, false, true, &l);
        ok (l.syslog == NULL && l.json != NULL,
            "decision lines: no syslog line rendered when [log] syslog is off");
      }
      report_release (&quiet);
    }
    report_release (&d_rep);
  }
}

/* ---- a refusal with several failures (issue 48) ---- */

/* The bytes the refusal takes in conmon's sync line to podman (a JSON
   string: '"' and '\\' doubled), the tightest channel an engine gives it. */
static size_t
json_cost (const char *s)
{
  size_t n = 0;

  for (; s && *s; s++)
    n += (*s == '"' || *s == '\\') ? 2 : 1;
  return n;
}

/* S names ID with REASON's first FROM bytes and with its remedy REMEDY
   whole: "ID: REASON... (remedy: REMEDY)". */
static bool
names_with_remedy (const char *s, const char *id, const char *remedy)
{
  cleanup_free char *want = NULL;
  const char *p;

  if (s == NULL || asprintf (&want, "(remedy: %s)", remedy) < 0)
    return false;
  for (p = s; (p = strstr (p, id)) != NULL; p++)
    if (strncmp (p + strlen (id), ": ", 2) == 0)
      {
        const char *r = strstr (p, want), *next = strstr (p + 1, "; ");

        /* Its own remedy: before the next check's part. */
        return r != NULL && (next == NULL || r < next);
      }
  return false;
}

static void
test_refusal_all (void)
{
  struct report r = { 0 };
  struct decision d = { 0 };
  char reason[3][2000], remedy[3][300];
  static const char *const ids[] = { "policy.mounts", "egress.netns", "policy.memory_limit" };
  char *s;

  /* Three failures, each with a long reason and its own remedy, as the
     first Docker start on a private data root had (issue 48: the line
     showed the first reason cut and no remedy of the others). */
  for (int i = 0; i < 3; i++)
    {
      memset (reason[i], 'a' + i, sizeof reason[i] - 1);
      reason[i][sizeof reason[i] - 1] = '\0';
      memcpy (reason[i], "root.path /", 11);
      snprintf (remedy[i], sizeof remedy[i],
                "remedy %d: list the engine's data root in [policy] engine_roots and restart, "
                "or put the container on a network of the proxy, or give it a memory limit "
                "(docker run --memory); see kata-guard(8), the section of this check",
                i);
      report_fail (&r, ids[i], remedy[i], "%s", reason[i]);
    }
  s = output_refusal (&r, "c1", false);
  has_str (s,
           "kata-guard: refusing to start container c1: 3 checks failed: policy.mounts, "
           "egress.netns, policy.memory_limit",
           "three failures: the line begins with every failed id");
  for (int i = 0; i < 3; i++)
    ok (names_with_remedy (s, ids[i], remedy[i]), "three failures: %s with its whole remedy",
        ids[i]);
  ok (s && json_cost (s) <= KG_REFUSAL_MAX && strchr (s, '\n') == NULL,
      "three failures: one line within the bound (%zu)", json_cost (s));
  ok (s && strstr (s, reason[2]) == NULL,
      "three failures: the reasons shortened to fit (the log has them whole)");

  d.mode = KG_MODE_OCI;
  d.container_id = "c1";
  d.rep = &r;
  d.message = s;
  {
    cleanup_free char *line = output_decision_json (&d);
    json_object *o = line ? json_tokener_parse (line) : NULL, *checks = NULL;
    bool whole = o != NULL && json_object_object_get_ex (o, "checks", &checks)
                 && json_object_array_length (checks) == 3;

    for (size_t i = 0; whole && i < 3; i++)
      {
        json_object *c = json_object_array_get_idx (checks, i), *v;

        whole = json_object_object_get_ex (c, "id", &v)
                && strcmp (json_object_get_string (v), ids[i]) == 0
                && json_object_object_get_ex (c, "reason", &v)
                && strcmp (json_object_get_string (v), reason[i]) == 0
                && json_object_object_get_ex (c, "remedy", &v)
                && strcmp (json_object_get_string (v), remedy[i]) == 0;
      }
    ok (whole, "three failures: the log file's line has every reason and remedy whole");
    json_object_put (o);
  }
  {
    cleanup_free char *line = output_decision_syslog (&d);
    bool whole = line != NULL;

    for (int i = 0; whole && i < 3; i++)
      whole = strstr (line, reason[i]) != NULL && strstr (line, remedy[i]) != NULL;
    ok (whole, "three failures: the syslog message has every reason and remedy whole");
  }
  free (s);
  report_release (&r);

  /* Quotes double in conmon's JSON line: the bound counts them twice. */
  {
    char quotes[2000];

    memset (quotes, '"', sizeof quotes - 1);
    quotes[sizeof quotes - 1] = '\0';
    fail_many (&r, "policy.q", 5, quotes, quotes);
    s = output_refusal (&r, "c1", false);
    ok (s && json_cost (s) <= KG_REFUSAL_MAX, "quotes: within the bound as podman reads it (%zu)",
        json_cost (s));
    has_str (s, "5 checks failed: policy.q0, policy.q1, policy.q2, policy.q3, policy.q4",
             "quotes: every id named");
    free (s);
    /* The wrapper's own messages (an exec's or update's refusal) too. */
    s = output_message ("refusing exec in container c1: policy.capabilities: %s", quotes);
    ok (s && json_cost (s) <= KG_REFUSAL_MAX && strlen (s) > 3
            && strcmp (s + strlen (s) - 3, "...") == 0,
        "quotes: a message of the wrapper's own, cut where podman's bound is, marked (%zu)",
        json_cost (s));
    free (s);
    report_release (&r);
  }
}

/* ---- exec of a descriptor ---- */

/* Audit mode lets a start through only when every failure is one whose
   refusal stays inside the container's VM, by the reach its result
   carries (result.h; which rules reach only the VM is their rows',
   test-policy-labels.c): FAILS, space-separated ids that fail, "@vm"
   after one of REACH_VM (with one that passes beside them). */
static void
audit_row (const char *mode, const char *fails, bool want)
{
  struct report rep = { 0 };
  cleanup_free char *copy = strdup (fails);
  char *p = copy, *id;

  report_pass (&rep, "policy.spec", "read");
  while ((id = strsep (&p, " ")) != NULL)
    if (*id != '\0')
      {
        char *vm = strstr (id, "@vm");
        size_t at = rep.n;

        if (vm != NULL)
          *vm = '\0';
        report_fail (&rep, id, "remedy", "refused");
        report_set_reach (&rep, at, vm != NULL ? REACH_VM : REACH_HOST);
      }
  is_int (decision_audit_allows (mode, &rep), want, "mode %s, %s failing: %s", mode,
          *fails ? fails : "nothing", want ? "let through" : "refused");
  report_release (&rep);
}

static void
test_audit (void)
{
  audit_row ("audit", "policy.capabilities@vm", true);
  audit_row ("audit", "policy.seccomp@vm policy.memory_limit@vm policy.confinement@vm", true);
  audit_row ("enforce", "policy.capabilities@vm", false);
  audit_row ("audit", "", false);
  /* What reaches the host, another container, the egress or the count. */
  audit_row ("audit", "policy.capabilities@vm policy.hooks", false);
  audit_row ("audit", "policy.mounts", false);
  audit_row ("audit", "policy.identity", false);
  audit_row ("audit", "policy.privileged", false);
  audit_row ("audit", "policy.namespaces", false);
  audit_row ("audit", "policy.devices", false);
  audit_row ("audit", "policy.annotations", false);
  audit_row ("audit", "policy.resources", false);
  audit_row ("audit", "policy.capacity", false);
  audit_row ("audit", "policy.spec", false);
  audit_row ("audit", "egress.netns", false);
  audit_row ("audit", "policy.nonesuch", false);
  /* The id decides nothing: the reach its result carries does. */
  audit_row ("audit", "policy.nonesuch@vm", true);
  audit_row ("audit", "kvm.device policy.seccomp@vm", false);
}

/* The checks whose refusal closes the node's gate at once ([nfd] file):
   the host's, never one that judges what the spec chose (its mounts, its
   network namespace), or whoever writes a spec could close every gate. */
static void
test_host_checks (void)
{
  const char *host[] = { "kvm.device",    "kata.annotations", "assets.kernel", "egress.reachable",
                         "egress.denies", "drift.posture",    "storage.pool",  "config" };
  const char *spec[] = { "policy.mounts", "egress.netns", "storage.snapshotter", "sandbox" };

  for (size_t i = 0; i < sizeof host / sizeof *host; i++)
    ok (output_host_check (host[i]), "%s is the host's: it closes the gate", host[i]);
  for (size_t i = 0; i < sizeof spec / sizeof *spec; i++)
    ok (! output_host_check (spec[i]), "%s judges the spec's choice: it never closes the gate",
        spec[i]);
}

int
main (void)
{
  test_output ();
  test_refusal_all ();
  test_audit ();
  test_host_checks ();
  return tap_done ();
}
