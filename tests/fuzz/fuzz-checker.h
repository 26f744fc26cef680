/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The input of tests/fuzz/fuzz-checker.c: one selector byte, then the
 * bytes the checker's parent reads from its child.  Shared with the seed
 * writer (tests/test-codec --seeds DIR), which writes the corpus.
 */
#ifndef KG_FUZZ_CHECKER_H
#define KG_FUZZ_CHECKER_H

#include <stdbool.h>
#include <string.h>

#include "result.h"

/* The selector, modulo FUZZ_CHECKER_MODES. */
#define FUZZ_CHECKER_REPORT 0  /* checker_decode into an empty report */
#define FUZZ_CHECKER_REQUEST 1 /* checker_request_parse, on every prefix */
#define FUZZ_CHECKER_APPEND 2  /* checker_decode into the parent's own report */
#define FUZZ_CHECKER_MODES 3

/* What the parent's report may hold before the checker's is appended:
   the guard config it read (start/wrapper.c and `kata-guard check` add
   it) and a result of its own, an id the checker may not repeat. */
#define FUZZ_CHECKER_PARENT_ID "config"
#define FUZZ_CHECKER_PARENT_FILE "/etc/kata-guard/config.toml"

/* Whether two reports say the same: what a round trip must keep. */
static inline bool
same_result (const struct check_result *x, const struct check_result *y)
{
  return strcmp (x->id, y->id) == 0 && x->verdict == y->verdict && x->reach == y->reach
         && strcmp (x->reason, y->reason) == 0 && (x->remedy == NULL) == (y->remedy == NULL)
         && (x->remedy == NULL || strcmp (x->remedy, y->remedy) == 0);
}

static inline bool
same_report (const struct report *a, const struct report *b)
{
  if (a->n != b->n || a->n_files != b->n_files || a->oom != b->oom
      || a->pod_sandbox != b->pod_sandbox || a->kata_file != b->kata_file)
    return false;
  for (size_t i = 0; i < a->n; i++)
    if (! same_result (&a->results[i], &b->results[i]))
      return false;
  for (size_t i = 0; i < a->n_files; i++)
    if (strcmp (a->files[i], b->files[i]) != 0)
      return false;
  return true;
}

#endif
