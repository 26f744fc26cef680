/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What `kata-guard check` tells a fleet beside its checks (kata-guard(8),
 * Watching a fleet, Node labels): when `kata-guard validate` last recorded
 * this host's posture, and what the decision log says was allowed,
 * refused and (audit mode) would have been refused.  Only read: a fact
 * that cannot be read is left out, it never changes a verdict.
 */
#ifndef KG_FACTS_H
#define KG_FACTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "codec.h"
#include "error.h"

/* A decision line longer than this is one error, skipped: the most the
   strict JSON reader takes (DAEMONJSON_MAX_SIZE).  A real one is a few
   hundred bytes to a few KiB: the refusal text at most KG_REFUSAL_MAX,
   and each failure's and warning's reason and remedy whole (each at most
   CHECKER_TEXT_MAX). */
#define FACTS_LINE_MAX (1024 * 1024)
/* Distinct check ids broken out of the decision log; a line naming one
   more counts as an error (the guard has about forty ids). */
#define FACTS_LOG_IDS 128

/* A decision line's "verdict". */
enum facts_verdict
{
  FACTS_ALLOW,
  FACTS_REFUSE,
  FACTS_WOULD_REFUSE, /* [policy] mode = "audit": allowed, logged as refused */
  FACTS_N_VERDICTS,
};

/* The starts refused (n[FACTS_REFUSE]) or would-refused with ID among
   their "failed" ids. */
struct facts_refusal
{
  char id[CHECKER_ID_MAX + 1];
  uint64_t n[FACTS_N_VERDICTS];
};

struct facts
{
  /* The posture record ([drift] record): readable, root-owned on a
     trusted path, a JSON object with an integer "epoch". */
  bool validated;
  long long validated_epoch;
  bool proven; /* the record holds a passing proof (validate --prove) */
  long long proven_epoch;
  /* The decision log ([log] file), read whole, one line at a time. */
  bool log_read;
  uint64_t decisions[FACTS_N_VERDICTS];
  uint64_t log_errors; /* lines that are not decisions */
  struct facts_refusal refusals[FACTS_LOG_IDS];
  size_t n_refusals;
  /* "go" or "runtime-rs": which Kata runtime reads the configuration,
     when kata.runtime passed; else NULL. */
  const char *kata_runtime;
  /* The feature file (check --nfd FILE, else [nfd] file), as written
     last: by check, or by a start that a host check refused. */
  bool nfd_configured; /* a feature file is named: kata_guard_gate_open is told */
  bool nfd_read;
  long long nfd_age; /* seconds since it was written (its mtime) */
  bool nfd_open;     /* it says posture=pass and has not expired */
};

/* The name of a verdict as the decision log writes it. */
const char *facts_verdict_name (enum facts_verdict v);

/* Read the posture record PATH into F->validated and F->validated_epoch;
   false (F unchanged) when it is missing or not as above. */
bool facts_read_posture (struct facts *f, const char *path);

/* Read the feature file PATH at NOW into F->nfd_*: F->nfd_open when it
   says posture=pass and its expiry is after NOW (a file without one never
   opens the gate); a regular file,
   root's, at most OUTPUT_NFD_MAX bytes, not through a symlink; false (F
   unchanged) otherwise. */
bool facts_read_nfd (struct facts *f, const char *path, long long now);

/* Count the decision log PATH into F (F->log_read true), one line at a
   time through a FACTS_LINE_MAX buffer: a line that is not a JSON object
   with a known "verdict" and a "failed" array of check ids counts in
   F->log_errors.  -1 with *ERR when PATH cannot be read (a symlink, a
   FIFO or anything but a regular file is refused). */
int facts_read_log (struct facts *f, const char *path, kg_error_t *err);

#endif
