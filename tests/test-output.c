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
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "decision.h"
#include "exec.h"
#include "options.h"
#include "output.h"
#include "tap.h"
#include "util.h"
#include "wrapper.h"
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
          "kata-guard: refusing to start container c1: kvm.open: cannot open /dev/kvm: Permission "
          "denied (remedy: load kvm); egress.proxy: 127.0.0.1:9 refused the connection?second "
          "line",
          "refusal: first failure with remedy, then the others, one line");
  free (s);

  /* Many long failures: bounded, and the rest counted. */
  {
    char longr[2000];

    memset (longr, 'x', sizeof longr - 1);
    longr[sizeof longr - 1] = '\0';
    for (int i = 0; i < 40; i++)
      {
        char id[32];

        snprintf (id, sizeof id, "fam.check%d", i);
        report_fail (&r, id, "remedy", "%s", longr);
      }
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
      ok (s && strstr (s, "more failed") == NULL, "refusal: none is only counted");
      ok (s && strstr (s, "; also failed: ") != NULL,
          "refusal: those without room for a reason listed");
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
    report_fail (&a, "egress.netns", "use a network of the proxy", "the host's network");
    report_fail (&a, "policy.capabilities", NULL, "CAP_SYS_ADMIN");
    s = output_refusal (&a, "c1", true);
    has_str (s,
             "container c1: egress.netns: the host's network (remedy: use a network of the proxy)",
             "audit: the enforced failure leads, with its remedy");
    has_str (s, "; policy.seccomp (audit only): no seccomp filter",
             "audit: what audit mode lets through is marked");
    has_str (s, "policy.capabilities (audit only)", "audit: every audit-only failure marked");
    free (s);
    s = output_refusal (&a, "c1", false);
    has_str (s, "container c1: policy.seccomp: no seccomp filter; egress.netns",
             "enforce: the report's order, nothing marked");
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
            "config=/etc/kata-guard/config.toml message=\"kata-guard: refusing\"",
            "decision: syslog line");
    free (s);
    report_release (&d_rep);
  }
}

/* ---- exec of a descriptor ---- */

/* Audit mode lets a start through only when every failure is a rule's
   whose refusal stays inside the container's VM: FAILS, space-separated
   ids that fail (with one that passes beside them). */
static void
audit_row (const char *mode, const char *fails, bool want)
{
  struct report rep = { 0 };
  cleanup_free char *copy = strdup (fails);
  char *p = copy, *id;

  report_pass (&rep, "policy.spec", "read");
  while ((id = strsep (&p, " ")) != NULL)
    if (*id != '\0')
      report_fail (&rep, id, "remedy", "refused");
  is_int (decision_audit_allows (mode, &rep), want, "mode %s, %s failing: %s", mode,
          *fails ? fails : "nothing", want ? "let through" : "refused");
  report_release (&rep);
}

static void
test_audit (void)
{
  audit_row ("audit", "policy.capabilities", true);
  audit_row ("audit", "policy.seccomp policy.memory_limit policy.confinement", true);
  audit_row ("enforce", "policy.capabilities", false);
  audit_row ("audit", "", false);
  /* What reaches the host, another container, the egress or the count. */
  audit_row ("audit", "policy.capabilities policy.hooks", false);
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
  audit_row ("audit", "kvm.device policy.seccomp", false);
}

int
main (void)
{
  test_output ();
  test_audit ();
  return tap_done ();
}
