/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * kata-guard prove (kata-guard(8), PROVE): one short-lived canary started
 * through the engine the way its users start containers, a probe inside
 * (probe/probe.c) that reports what it sees, and each report judged
 * against the host.  Never on a start.
 */
#ifndef KG_PROVE_H
#define KG_PROVE_H

#include <stdbool.h>
#include <stdio.h>

#include "command.h"
#include "error.h"
#include "result.h"

/* What prove knows of the host, to judge the probe's lines against. */
struct prove_host
{
  const char *release;     /* uname -r */
  const char *boot_id;     /* /proc/sys/kernel/random/boot_id */
  const char *init;        /* pid 1's "STARTTIME COMM", as the probe prints it */
  const char *outside;     /* the outside address tried, ADDR:PORT */
  const char *proxy;       /* the proxy, ADDR:PORT */
  const char *engine_says; /* the engine's own words when no probe line came (or NULL) */
  const char *call;        /* the engine call that started the canary, as run (or NULL) */
  /* The statuses that mean the proxy denied, as egress.denies reads them
     ([egress] expect_status, else deny_statuses). */
  const int64_t *deny;
  size_t n_deny;
};

/* Judge OUT, the canary's output (the probe's lines; anything else is the
   engine's), into REP: one result per prove.* id, each failing when its
   lines are missing or malformed. */
void prove_judge (const char *out, const struct prove_host *host, struct report *rep);

/* kata-guard prove's run without its printing, for validate --prove:
   ARGV (ARGC) are prove's options (ARGV[0] a name); the verdicts into
   REP.  CANDIDATE (or NULL): the record validate is about to write,
   against which the canary alone is judged (drift.h, DRIFT_WINDOW).
   KG_EXIT_PASS when the canary ran, else a usage or failure status with
   *ERR. */
int prove_run (int argc, char **argv, const char *candidate, struct report *rep, kg_error_t *err);

void prove_usage (FILE *out);
int cli_prove (int argc, char **argv, const struct kg_report_printers *print, bool *usage,
               kg_error_t *err);

#endif
