/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bench/families CONFIG RUNS [BUNDLE]: what each check family costs, timed
 * in process around each family's function (the product's own code, run
 * unconfined as root, as the confined checker runs it), RUNS times.  With
 * BUNDLE, an OCI create of container "kgbench" (the policy family reads
 * BUNDLE/config.json); without, `kata-guard check`.  The digest cache the
 * assets family asks for is written after each run, as the guard's parent
 * writes it: with a SHA-256 pin on a file the cache has not seen, run 1
 * hashes it and the later runs find it cached.
 *
 * Prints one line per family, "NAME FIRST-NS MEDIAN-NS" (run 1, and the
 * median of runs 2..RUNS), then "total FIRST-NS MEDIAN-NS".  Exits 1 when
 * a run's report holds a failure.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "checks.h"
#include "conf.h"
#include "error.h"
#include "result.h"

#define MAX_FAMILIES 16

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
static int
one_run (const struct request *req, const struct guard_config *cfg, long long *ns)
{
  struct report rep = { 0 };
  struct preflight pf;
  kg_error_t err = NULL;
  int rc = 0;

  preflight_init (&pf, req, cfg, &rep);
  for (size_t f = 0; f < n_check_families; f++)
    {
      long long t0 = now_ns ();

      check_families[f].run (&pf);
      ns[f] = now_ns () - t0;
    }
  if (pf.cache_out != NULL && assets_cache_write (pf.cache_out, pf.cache_out_len, &err) < 0)
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
  struct guard_config cfg;
  kg_error_t err = NULL;
  long long *t[MAX_FAMILIES + 1], *row;
  long runs;

  if (argc < 3 || argc > 4 || (runs = strtol (argv[2], NULL, 10)) < 2 || runs > 100000
      || n_check_families > MAX_FAMILIES)
    {
      fprintf (stderr, "usage: bench/families CONFIG RUNS [BUNDLE] (RUNS: 2..100000)\n");
      return 2;
    }
  if (argc == 4)
    {
      req.mode = KG_MODE_OCI;
      req.bundle = argv[3];
      req.container_id = "kgbench";
    }
  if (guard_config_load (argv[1], &cfg, &err) < 0)
    {
      fprintf (stderr, "bench/families: %s\n", err->msg);
      return 2;
    }
  row = calloc (n_check_families, sizeof *row);
  for (size_t f = 0; f <= n_check_families; f++)
    if ((t[f] = calloc ((size_t) runs, sizeof **t)) == NULL)
      return 2;
  if (row == NULL)
    return 2;
  for (long i = 0; i < runs; i++)
    {
      if (one_run (&req, &cfg, row) < 0)
        return 1;
      t[n_check_families][i] = 0;
      for (size_t f = 0; f < n_check_families; f++)
        {
          t[f][i] = row[f];
          t[n_check_families][i] += row[f];
        }
    }
  for (size_t f = 0; f <= n_check_families; f++)
    {
      long long first = t[f][0];

      qsort (t[f] + 1, (size_t) runs - 1, sizeof **t, cmp_ll);
      printf ("%s %lld %lld\n", f < n_check_families ? check_families[f].name : "total", first,
              t[f][1 + (runs - 1) / 2]);
      free (t[f]);
    }
  free (row);
  guard_config_release (&cfg);
  return 0;
}
