/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * kata-guard validate (kata-guard(8), DRIFT): every check, as `check`
 * runs them; when all pass, the posture of the sandbox is recorded, so
 * that with [drift] lock a later change refuses every start until the
 * sandbox is tested and validated again.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "array.h"
#include "buf.h"
#include "capture.h"
#include "checker.h"
#include "checks.h"
#include "preflight.h"
#include "cleanup.h"
#include "drift.h"
#include "error.h"
#include "prove.h"
#include "request.h"
#include "trust.h"
#include "validate.h"
#include "writer.h"

/* Where the engines are looked for: a fixed PATH, not the caller's. */

void
validate_usage (FILE *out)
{
  fputs ("Usage: kata-guard validate [--config FILE] [--note TEXT] [--dry-run] [-q]\n"
         "                           [--prove -- PROVE-OPTIONS]\n"
         "\n"
         "Runs every check; when all pass, records the sandbox's posture (the runtime, the\n"
         "Kata configuration and drop-ins, the hypervisor, jailer and boot assets, the guard\n"
         "configuration, the engines, the egress proxy) in [drift] record. With [drift] lock,\n"
         "a start refuses while the host differs from it.\n"
         "\n"
         "  --note TEXT   kept in the record (who tested what)\n"
         "  --dry-run     print the record alone on standard output (the checks and\n"
         "                messages go to standard error); write nothing\n"
         "  --prove -- PROVE-OPTIONS\n"
         "                run kata-guard prove with PROVE-OPTIONS too and record its verdicts\n"
         "                and call ([drift] require_proof refuses a record without a passing\n"
         "                proof)\n"
         "  -q, --quiet   print nothing; the exit status tells (as check -q)\n"
         "\n"
         "The canary of --prove is judged against the posture this run is about to record\n"
         "(and [drift] require_proof waived for it alone), so that one run after a change\n"
         "records a passing proof where the sandbox is sound.\n"
         "\n"
         "drift.posture is not judged: this run replaces the record it compares with.\n"
         "\n"
         "Exit status: 0 recorded (with --prove: with a passing proof);\n"
         "1 a check failed or the sandbox changed while it was proven (nothing recorded),\n"
         "or recorded without a passing proof: the proof failed (recorded as failed), or\n"
         "[drift] require_proof is on and there was no --prove (with require_proof, every\n"
         "start refuses while such a record stands);\n"
         "2 usage, prove could not run, or the record could not be written (nothing\n"
         "recorded).\n",
         out);
}

struct found_engines
{
  struct drift_engine v[DRIFT_ENGINES];
  char *paths[DRIFT_ENGINES];
  char *versions[DRIFT_ENGINES];
  size_t n;
};

static void
found_engines_release (struct found_engines *e)
{
  for (size_t i = 0; i < e->n; i++)
    {
      free (e->paths[i]);
      free (e->versions[i]);
    }
}

/* What ARGV prints of its version (NULL: nothing), its lines joined by
   single spaces and cut at 200 bytes, for the record. */
static char *
version_text (char *const argv[])
{
  char *out = kg_capture_engine (argv), *w;
  bool space = false;

  if (out == NULL)
    return NULL;
  w = out;
  for (const char *r = out; *r != '\0' && w - out < 200; r++)
    if (*r == ' ' || *r == '\t' || *r == '\n' || *r == '\r')
      space = w > out;
    else
      {
        if (space)
          *w++ = ' ';
        space = false;
        *w++ = *r;
      }
  *w = '\0';
  return out;
}

/* The engines installed on the fixed PATH (drift_engine_find), each with
   its --version line. */
static void
find_engines (struct found_engines *e)
{
  for (size_t i = 0; i < DRIFT_ENGINES; i++)
    {
      char *argv[] = { NULL, (char *) "--version", NULL };
      char path[PATH_MAX];

      cleanup_error kg_error_t err = NULL;
      cleanup_close int fd = -1;
      struct trust_info info;

      if (! drift_engine_find (i, path, sizeof path))
        continue;
      e->paths[e->n] = strdup (path);
      if (e->paths[e->n] == NULL)
        return;
      /* Executed as root only when it is on a trusted path; else only
         recorded (its digest) without a version. */
      fd = trust_open (path, TRUST_FILE, &info, &err);
      argv[0] = e->paths[e->n];
      e->versions[e->n] = fd >= 0 ? version_text (argv) : NULL;
      e->v[e->n] = (struct drift_engine){ drift_engine_names[i], e->paths[e->n],
                                          e->versions[e->n] };
      e->n++;
    }
}

/* Write TEXT as the record PATH by the guard's writer (writer.h): root's
   alone, 0600, atomically; its directory made 0700 when missing.  Never
   through a symlink, never in the likeness of a file that was there. */
static int
posture_write (const char *path, const char *text, kg_error_t *err)
{
  return writer_replace (path, text, strlen (text), WRITER_PRIVATE, WRITER_DIR_PRIVATE, err);
}

/* The reason egress.denies passed with: that the proxy denied. */
static const char *
proxy_denied (const struct report *rep)
{
  for (size_t i = 0; i < rep->n; i++)
    if (strcmp (rep->results[i].id, "egress.denies") == 0
        && rep->results[i].verdict == VERDICT_PASS)
      return rep->results[i].reason;
  return "";
}

/* drift.posture compares the host with the record this run replaces: not
   judged here (a first validation, or one after a change, fails it by
   design), and said so instead of a fail and a verdict of fail above a
   record written.  DRY_RUN: nothing is written. */
static void
posture_not_judged (struct report *rep, bool dry_run)
{
  for (size_t i = 0; i < rep->n; i++)
    {
      struct check_result *res = &rep->results[i];
      char *reason = NULL;

      if (strcmp (res->id, "drift.posture") != 0
          || (res->verdict != VERDICT_FAIL && res->verdict != VERDICT_WARN))
        continue;
      if (asprintf (&reason, "not judged by validate, which %s the record anew (before it: %s)",
                    dry_run ? "--dry-run: would write" : "writes", res->reason)
          < 0)
        {
          rep->oom = true;
          return;
        }
      free (res->reason);
      free (res->remedy);
      res->reason = reason;
      res->remedy = NULL;
      res->verdict = VERDICT_SKIP;
    }
}

/* Every check but drift.posture itself (posture_not_judged) must pass. */
static size_t
failures (const struct report *rep)
{
  size_t n = 0;

  for (size_t i = 0; i < rep->n; i++)
    if (rep->results[i].verdict == VERDICT_FAIL
        && strcmp (rep->results[i].id, "drift.posture") != 0)
      n++;
  return n;
}

int
cli_validate (int argc, char **argv, kg_report_fn *print, bool *usage, kg_error_t *err)
{
  static const struct option longopts[] = {
    { "config", required_argument, NULL, 'c' },
    { "note", required_argument, NULL, 'n' },
    { "dry-run", no_argument, NULL, 'N' },
    { "quiet", no_argument, NULL, 'q' },
    { "prove", no_argument, NULL, 'P' },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
  };
  const char *config_path = guard_config_default_path (), *note = NULL;
  cleanup_error kg_error_t cerr = NULL;
  cleanup_free char *text = NULL, *candidate = NULL;
  cleanup_free char *shim_version = NULL, *oci_version = NULL;
  __attribute__ ((cleanup (found_engines_release))) struct found_engines eng = { 0 };
  cleanup_report struct report rep = { 0 };
  cleanup_report struct report krep = { 0 };
  struct request req = { .mode = KG_MODE_CHECK };
  struct checker_asked asked = CHECKER_ASKED_INIT;
  cleanup_guard_config struct guard_config cfg = { 0 };
  struct preflight pf;
  struct drift_meta meta;
  bool dry_run = false, quiet = false, prove = false;
  FILE *out = stdout; /* the checks and messages; with --dry-run the record alone is stdout's */
  cleanup_report struct report prep = { 0 };
  cleanup_kg_buf struct kg_buf call = { 0 };
  struct drift_proof proof = { 0 };
  const char *proof_ids[16], *proof_verdicts[16];
  char **prove_argv = NULL;
  int prove_argc = 0;
  size_t nfail;
  int c, rc;

  optind = 1;
  opterr = 0;
  while ((c = getopt_long (argc, argv, "+c:qh", longopts, NULL)) != -1)
    switch (c)
      {
      case 'c':
        config_path = optarg;
        break;
      case 'n':
        note = optarg;
        break;
      case 'N':
        dry_run = true;
        break;
      case 'q':
        quiet = true;
        break;
      case 'P':
        prove = true;
        break;
      case 'h':
        validate_usage (stdout);
        return KG_EXIT_PASS;
      default:
        return cli_bad_option (argv, usage, err), KG_EXIT_USAGE;
      }
  /* --prove -- PROVE-OPTIONS: what follows "--" is prove's. */
  if (prove)
    {
      if (optind == 0 || optind > argc || strcmp (argv[optind - 1], "--") != 0 || optind == argc)
        return *usage = true,
               kg_error (err, 0,
                         "--prove takes prove's options after --: validate --prove -- "
                         "--engine docker --image IMAGE ..."),
               KG_EXIT_USAGE;
      prove_argv = argv + optind - 1; /* "--" stands as prove's argv[0] */
      prove_argc = argc - optind + 1;
      optind = argc;
    }
  if (cli_operands (argc, argv, err) < 0)
    return KG_EXIT_USAGE;
  if (dry_run)
    out = stderr;
  if (geteuid () != 0)
    return kg_error (err, 0, "validate records a root-only posture: run it as root"), KG_EXIT_USAGE;
  if (guard_config_load (config_path, &cfg, &cerr) < 0)
    return kg_error (err, 0, "%s", cerr->msg), KG_EXIT_USAGE;

  /* The same confined checker as a start and as check, asked as check
     asks it. */
  report_add_file (&rep, cfg.path);
  checker_run_host (&pf, &req, &asked, &cfg, config_path, &rep);
  preflight_release (&pf);
  checker_asked_release (&asked);
  req.docker = NULL;
  req.cri = NULL;
  posture_not_judged (&rep, dry_run);
  if (! quiet)
    print (out, &rep);
  nfail = failures (&rep);
  if (nfail > 0)
    {
      if (! quiet)
        fprintf (out,
                 "kata-guard: validate: %zu check%s failed: the sandbox is not validated, nothing "
                 "recorded\n",
                 nfail, nfail == 1 ? "" : "s");
      return KG_EXIT_FAIL;
    }

  /* The posture, from the Kata configuration as the kata family loads
     it (here, unconfined: validate reads no container's input). */
  find_engines (&eng);
  {
    char *shim_argv[] = { cfg.runtime.shim, (char *) "-v", NULL };
    char *oci_argv[] = { cfg.runtime.oci, (char *) "--version", NULL };

    shim_version = version_text (shim_argv);
    oci_version = cfg.runtime.oci[0] != '\0' ? version_text (oci_argv) : NULL;
  }
  meta = (struct drift_meta){ .note = note,
                              .proxy_denied = proxy_denied (&rep),
                              .engines = eng.v,
                              .n_engines = eng.n,
                              .shim_version = shim_version,
                              .oci_version = oci_version };
  preflight_init (&pf, &req, &cfg, &krep);
  check_kata (&pf);
  /* --prove: the canary, judged against the posture this run is about to
     record (the candidate), its verdicts recorded beside the files (a
     failing proof too: with [drift] require_proof it refuses). */
  if (prove_argc > 0 && posture_text (&pf, &meta, &candidate, err) < 0)
    return preflight_release (&pf), KG_EXIT_USAGE;
  if (prove_argc > 0)
    {
      sb_printf (&call, "kata-guard prove");
      for (int i = 1; i < prove_argc; i++)
        sb_printf (&call, " %s", prove_argv[i]);
      if (call.failed)
        return preflight_release (&pf), kg_error (err, ENOMEM, "out of memory"), KG_EXIT_USAGE;
      /* validate's configuration is prove's, unless its options say. */
      {
        char **pv = calloc ((size_t) prove_argc + 3, sizeof *pv);

        if (pv == NULL)
          return preflight_release (&pf), kg_error (err, ENOMEM, "out of memory"), KG_EXIT_USAGE;
        pv[0] = (char *) "prove";
        pv[1] = (char *) "--config";
        pv[2] = (char *) config_path;
        for (int i = 1; i < prove_argc; i++)
          pv[i + 2] = prove_argv[i];
        rc = prove_run (prove_argc + 2, pv, candidate, &prep, err);
        free (pv);
      }
      /* prove did not run (its usage, another prove, the run directory):
         nothing recorded. */
      if (rc != KG_EXIT_PASS)
        return preflight_release (&pf), kg_error_prefix (err, "--prove"), KG_EXIT_USAGE;
      if (! quiet)
        print (out, &prep);
      for (size_t i = 0; i < prep.n && i < ARRAY_SIZE (proof_ids); i++)
        {
          proof_ids[i] = prep.results[i].id;
          proof_verdicts[i] = verdict_name (prep.results[i].verdict);
        }
      proof = (struct drift_proof){ .call = sb_str (&call),
                                    .epoch = (int64_t) time (NULL),
                                    .pass = report_overall (&prep) != VERDICT_FAIL,
                                    .ids = proof_ids,
                                    .verdicts = proof_verdicts,
                                    .n = prep.n < ARRAY_SIZE (proof_ids) ? prep.n
                                                                         : ARRAY_SIZE (proof_ids) };
      meta.proof = &proof;
    }
  rc = posture_text (&pf, &meta, &text, err);
  preflight_release (&pf);
  /* What was proven is what is recorded: a file that changed while the
     canary ran was not. */
  if (rc == 0 && candidate != NULL && ! posture_same (candidate, text))
    {
      if (! quiet)
        fprintf (out, "kata-guard: validate: the sandbox changed while it was proven: nothing "
                      "recorded; validate --prove again\n");
      return KG_EXIT_FAIL;
    }
  if (rc == 0 && dry_run)
    {
      fputs (text, stdout);
      if (! quiet)
        fprintf (out, "kata-guard: validate: --dry-run: the record above is not written (%s)\n",
                 cfg.drift.record);
    }
  else if (rc == 0 && posture_write (cfg.drift.record, text, err) == 0)
    {
      if (! quiet)
        fprintf (out, "kata-guard: validate: the sandbox's posture is recorded in %s%s\n",
                 cfg.drift.record,
                 cfg.drift.lock ? "; [drift] lock: a start refuses while the host differs from it"
                                : " ([drift] lock is off: a difference is a warning)");
    }
  else
    rc = -1;
  /* A record that refuses every start is not a success: the proof failed,
     or require_proof finds no proof in it (exit 1, as validate --help). */
  if (rc == 0 && ! quiet && meta.proof != NULL && ! proof.pass)
    fprintf (out, "kata-guard: validate: the proof failed (%s as failed: %s)\n",
             dry_run ? "it would be recorded" : "recorded",
             cfg.drift.require_proof ? "with [drift] require_proof every start refuses"
                                     : "[drift] require_proof is off: starts are not refused "
                                       "for it");
  else if (rc == 0 && ! quiet && meta.proof == NULL && cfg.drift.require_proof)
    fprintf (out,
             "kata-guard: validate: [drift] require_proof is on and %s holds no proof: every "
             "start refuses until kata-guard validate --prove -- PROVE-OPTIONS records a "
             "passing one\n",
             dry_run ? "this record" : "the record");
  if (fflush (stdout) != 0 || fflush (out) != 0)
    return KG_EXIT_USAGE;
  if (rc < 0)
    return KG_EXIT_USAGE;
  if (meta.proof != NULL ? ! proof.pass : cfg.drift.require_proof)
    return KG_EXIT_FAIL;
  return KG_EXIT_PASS;
}
