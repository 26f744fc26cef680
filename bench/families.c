/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bench/families [-b BUNDLE] RUNS CONFIG...: what each check family costs,
 * timed in process around each family's function (the product's own code,
 * run unconfined as root, as the confined checker runs it), RUNS times per
 * CONFIG.  With several configurations the runs alternate between them, so
 * that a difference between two is measured side by side, not minutes
 * apart.  With -b, an OCI create of container "kgbench" (the policy family
 * reads BUNDLE/config.json); without, `kata-guard check`.  The digest cache
 * the assets family asks for is written after each run, as the guard's
 * parent writes it: with a SHA-256 pin on a file the cache has not seen,
 * the first run hashes it and the later runs find it cached.
 *
 * Prints, per configuration (numbered from 1) and family, "N NAME FIRST-NS
 * MEDIAN-NS" (the first run, and the median of the others), then "N total
 * ...".  Exits 1 when a run's report holds a failure.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "assets.h"
#include "checks.h"
#include "preflight.h"
#include "conf.h"
#include "error.h"
#include "request.h"
#include "result.h"
#include "trust.h"

static long long
now_ns (void)
{
  struct timespec t;

  clock_gettime (CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1000000000LL + t.tv_nsec;
}

static int
cmp_ll (const void *a, const void *b)
{
  long long x = *(const long long *) a, y = *(const long long *) b;

  return (x > y) - (x < y);
}

/* One run: each family's time into NS[family]; 0 when the run passed. */
static __attribute__ ((noinline)) int
one_run (const struct request *req, const struct guard_config *cfg, long long *ns)
{
  struct report rep = { 0 };
  struct preflight pf;
  kg_error_t err = NULL;
  int rc = 0;

  preflight_init (&pf, req, cfg, &rep);
  /* As the confined checker runs them: one run, its trusted-path walks
     memoised (trust_memo_start), nothing freed until it ends (its
     process ends there: preflight_release is outside the families). */
  trust_memo_start ();
  for (size_t f = 0; f < n_check_families; f++)
    {
      long long t0 = now_ns ();

      check_families[f].run (&pf);
      ns[f] = now_ns () - t0;
    }
  trust_memo_end ();
  if (pf.from_assets.cache != NULL
      && assets_cache_write (cfg, pf.from_assets.cache, pf.from_assets.cache_len, &err) < 0)
    {
      fprintf (stderr, "bench/families: %s\n", err->msg);
      rc = -1;
    }
  for (size_t i = 0; i < rep.n; i++)
    if (rep.results[i].verdict == VERDICT_FAIL)
      {
        fprintf (stderr, "bench/families: %s: %s\n", rep.results[i].id, rep.results[i].reason);
        rc = -1;
      }
  preflight_release (&pf);
  report_release (&rep);
  return rc;
}

int
main (int argc, char **argv)
{
  struct request req = { .mode = KG_MODE_CHECK };
  struct guard_config *cfg;
  kg_error_t err = NULL;
  long long **t, *row;
  const size_t nf = n_check_families + 1; /* the families and the total */
  size_t nc;
  long runs;
  int a = 1;

  if (argc > 2 && strcmp (argv[1], "-b") == 0)
    {
      req.mode = KG_MODE_OCI;
      req.bundle = argv[2];
      req.container_id = "kgbench";
      a = 3;
    }
  if (argc - a < 2 || (runs = strtol (argv[a], NULL, 10)) < 2 || runs > 100000)
    {
      fprintf (stderr, "usage: bench/families [-b BUNDLE] RUNS CONFIG... (RUNS: 2..100000)\n");
      return 2;
    }
  nc = (size_t) (argc - a - 1);
  cfg = calloc (nc, sizeof *cfg);
  t = calloc (nc * nf, sizeof *t);
  row = calloc (n_check_families, sizeof *row);
  if (cfg == NULL || t == NULL || row == NULL)
    return 2;
  for (size_t c = 0; c < nc; c++)
    {
      if (guard_config_load (argv[a + 1 + c], &cfg[c], &err) < 0)
        {
          fprintf (stderr, "bench/families: %s\n", err->msg);
          return 2;
        }
      for (size_t f = 0; f < nf; f++)
        if ((t[c * nf + f] = calloc ((size_t) runs, sizeof **t)) == NULL)
          return 2;
    }
  for (long i = 0; i < runs; i++)
    for (size_t c = 0; c < nc; c++)
      {
        long long *total = &t[c * nf + n_check_families][i];

        if (one_run (&req, &cfg[c], row) < 0)
          return 1;
        *total = 0;
        for (size_t f = 0; f < n_check_families; f++)
          {
            t[c * nf + f][i] = row[f];
            *total += row[f];
          }
      }
  for (size_t c = 0; c < nc; c++)
    {
      for (size_t f = 0; f < nf; f++)
        {
          long long *v = t[c * nf + f], first = v[0];

          qsort (v + 1, (size_t) runs - 1, sizeof *v, cmp_ll);
          printf ("%zu %s %lld %lld\n", c + 1,
                  f < n_check_families ? check_families[f].name : "total", first,
                  v[1 + (runs - 1) / 2]);
          free (v);
        }
      guard_config_release (&cfg[c]);
    }
  free (t);
  free (row);
  free (cfg);
  return 0;
}
