/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "capacity.h"
#include "checker.h"
#include "checks.h"
#include "preflight.h"
#include "cleanup.h"
#include "cli.h"
#include "conf.h"
#include "error.h"
#include "facts.h"
#include "kata.h"
#include "output.h"
#include "request.h"
#include "writer.h"

void
cli_usage (FILE *out)
{
  fputs (
      "Usage: kata-guard check [--config FILE] [--bundle DIR [--id ID]] [--format FMT | --json]\n"
      "                        [--nfd FILE] [--output FILE] [-q]\n"
      "       kata-guard install [--docker|--containerd|--crio] [options]  (kata-guard install --help)\n"
      "       kata-guard uninstall [--docker|--containerd|--crio] [options]\n"
      "       kata-guard validate [--config FILE] [--note TEXT] [--dry-run] [-q]  (validate --help)\n"
      "       kata-guard prove --engine docker|podman|ctr|crictl --image IMAGE [options]  (prove --help)\n"
      "       kata-guard version\n"
      "       kata-guard help\n"
      "\n"
      "Checks that this host gives containers hardware isolation and contained egress\n"
      "before it starts them under Kata Containers; see kata-guard(8).\n"
      "\n"
      "  -c, --config FILE  read FILE instead of $" KG_CONFIG_ENV " or " KG_SYSCONFDIR
      "/kata-guard/config.toml\n"
      "  -b, --bundle DIR   also check the container in bundle DIR (its config.json)\n"
      "                     against [policy], as a start would\n"
      "  -i, --id ID        the container id for --bundle (default: DIR's last component)\n"
      "  -f, --format FMT   text (the default), json, or prometheus (node_exporter's\n"
      "                     textfile format)\n"
      "  -j, --json         the same as --format json\n"
      "      --nfd FILE     also write the verdict as node labels to FILE, a Node Feature\n"
      "                     Discovery feature file (in its features.d), atomically\n"
      "  -o, --output FILE  write the report to FILE (root's, 0644, atomically) instead\n"
      "                     of standard output: node_exporter's textfile directory\n"
      "                     with --format prometheus.  FILE's directory, and every one\n"
      "                     above it, must be root's and writable by nobody else\n"
      "  -q, --quiet        print nothing; the exit status tells\n"
      "\n"
      "Exit status: 0 every check passed, 1 a check failed, 2 usage or configuration error.\n",
      out);
}

static double
elapsed (const struct timespec *a, const struct timespec *b)
{
  return (double) (b->tv_sec - a->tv_sec) + (double) (b->tv_nsec - a->tv_nsec) / 1e9;
}

enum check_format
{
  FMT_TEXT,
  FMT_JSON,
  FMT_PROMETHEUS,
};

struct check_args
{
  const char *config_path; /* NULL: the default */
  const char *bundle_arg, *id;
  const char *nfd;    /* --nfd FILE, or NULL */
  const char *output; /* --output FILE, or NULL: standard output */
  enum check_format format;
  bool quiet, help;
};

/* check's options.  Returns -1 with *ERR (and *USAGE where the usage
   should follow). */
static int
parse_check_args (int argc, char **argv, struct check_args *a, bool *usage, kg_error_t *err)
{
  static const struct option opts[] = {
    { "config", required_argument, NULL, 'c' }, { "bundle", required_argument, NULL, 'b' },
    { "id", required_argument, NULL, 'i' },     { "json", no_argument, NULL, 'j' },
    { "format", required_argument, NULL, 'f' }, { "quiet", no_argument, NULL, 'q' },
    { "nfd", required_argument, NULL, 'N' },    { "output", required_argument, NULL, 'o' },
    { "help", no_argument, NULL, 'h' },         { NULL, 0, NULL, 0 },
  };
  int c;

  memset (a, 0, sizeof *a);
  optind = 1;
  opterr = 0;
  while ((c = getopt_long (argc, argv, "+c:b:i:f:o:jqh", opts, NULL)) != -1)
    switch (c)
      {
      case 'c':
        a->config_path = optarg;
        break;
      case 'b':
        a->bundle_arg = optarg;
        break;
      case 'i':
        a->id = optarg;
        break;
      case 'j':
        a->format = FMT_JSON;
        break;
      case 'f':
        if (strcmp (optarg, "text") == 0)
          a->format = FMT_TEXT;
        else if (strcmp (optarg, "json") == 0)
          a->format = FMT_JSON;
        else if (strcmp (optarg, "prometheus") == 0)
          a->format = FMT_PROMETHEUS;
        else
          return kg_error (err, 0, "unknown format '%s' (text, json, prometheus)", optarg);
        break;
      case 'q':
        a->quiet = true;
        break;
      case 'N':
        a->nfd = optarg;
        break;
      case 'o':
        a->output = optarg;
        break;
      case 'h':
        a->help = true;
        return 0;
      default:
        return cli_bad_option (argv, usage, err);
      }
  if (cli_operands (argc, argv, err) < 0)
    return -1;
  if (a->id != NULL && a->bundle_arg == NULL)
    return kg_error (err, 0, "--id needs --bundle");
  if (a->bundle_arg != NULL && *a->bundle_arg == '\0')
    return kg_error (err, 0, "--bundle needs a directory");
  if (a->nfd != NULL && *a->nfd == '\0')
    return kg_error (err, 0, "--nfd needs a file");
  if (a->output != NULL && *a->output == '\0')
    return kg_error (err, 0, "--output needs a file");
  return 0;
}

/* --bundle ARG as an absolute path without trailing slashes, as runc
   takes it (relative to the working directory), in *BUNDLE; and, with no
   --id, its last component (Docker's bundle is .../<container id>) in
   *ID_BUF. */
static int
resolve_bundle (const char *arg, const char *id, char **bundle, char **id_buf, kg_error_t *err)
{
  size_t len;
  char *slash;

  if (arg[0] == '/')
    *bundle = strdup (arg);
  else
    {
      cleanup_free char *cwd = getcwd (NULL, 0);

      if (cwd == NULL || asprintf (bundle, "%s/%s", cwd, arg) < 0)
        *bundle = NULL;
    }
  if (*bundle == NULL)
    return kg_error (err, errno, "--bundle %s", arg);
  len = strlen (*bundle);
  while (len > 1 && (*bundle)[len - 1] == '/')
    (*bundle)[--len] = '\0';
  if (id == NULL)
    {
      slash = strrchr (*bundle, '/');
      *id_buf = strdup (slash ? slash + 1 : *bundle);
      if (*id_buf == NULL)
        return kg_error (err, 0, "out of memory");
    }
  return 0;
}

/* Which Kata runtime reads the configuration ("go", "runtime-rs"): known
   when kata.runtime passed and handed the parent the runtime's
   descriptor; else NULL. */
static const char *
kata_runtime_name (const struct preflight *pf)
{
  char proc[64], real[PATH_MAX];
  ssize_t n;

  if (pf->from_kata.runtime_fd < 0)
    return NULL;
  snprintf (proc, sizeof proc, "/proc/self/fd/%d", pf->from_kata.runtime_fd);
  n = readlink (proc, real, sizeof real - 1);
  if (n < 0)
    return NULL;
  real[n] = '\0';
  return kata_runtime_of (pf->cfg, real) == KATA_RUNTIME_RS ? "runtime-rs" : "go";
}

/* --nfd PATH: the feature file, replaced whole by the guard's writer
   (writer.h): root's, 0644, for NFD's worker to read. */
static int
write_nfd (const char *path, const struct report *rep, const struct facts *facts, long long now,
           kg_error_t *err)
{
  if (output_nfd_write (path, rep, facts, now, err) < 0)
    return kg_error_prefix (err, "--nfd");
  return 0;
}

/* The configuration did not load: the labels say so (a fleet must not
   keep a stale posture=pass), as a start reports it. */
static int
write_nfd_config_error (const char *path, const char *why, long long now, kg_error_t *err)
{
  struct report rep = { 0 };
  struct facts facts = { 0 };
  int r;

  report_fail (&rep, "config", GUARD_CONFIG_REMEDY, "%s", why);
  r = write_nfd (path, &rep, &facts, now, err);
  report_release (&rep);
  return r;
}

/* What the metrics and the labels tell beside the checks. */
static void
read_facts (const struct check_args *a, const struct guard_config *cfg, struct facts *facts)
{
  cleanup_error kg_error_t lerr = NULL;
  bool metrics = a->format == FMT_PROMETHEUS && (! a->quiet || a->output != NULL);

  if (metrics || a->nfd != NULL)
    facts_read_posture (facts, cfg->drift.record);
  /* A log that is not there yet, or not readable, is left out. */
  if (metrics && cfg->log.file[0] != '\0')
    facts_read_log (facts, cfg->log.file, &lerr);
}

/* The feature file as the gate metrics tell it: --nfd's, else [nfd]
   file's (the one a refused start rewrites). */
static void
read_nfd_facts (const struct check_args *a, const struct guard_config *cfg, struct facts *facts)
{
  const char *path = a->nfd != NULL ? a->nfd : cfg->nfd.file;

  if (a->format != FMT_PROMETHEUS || *path == '\0')
    return;
  facts->nfd_configured = true;
  facts_read_nfd (facts, path, (long long) time (NULL));
}

/* Where the report goes: standard output, or with --output a buffer
   that out_close hands to the guard's writer (writer.h) whole. */
struct report_out
{
  FILE *f;
  char *buf;
  size_t len;
  bool print; /* anything is printed at all (not -q, or --output) */
};

static int
out_open (const struct check_args *a, struct report_out *o, kg_error_t *err)
{
  *o = (struct report_out){ .f = stdout, .print = ! a->quiet || a->output != NULL };
  if (a->output == NULL)
    return 0;
  o->f = open_memstream (&o->buf, &o->len);
  if (o->f == NULL)
    return kg_error (err, errno, "--output %s", a->output);
  return 0;
}

/* Flush standard output, or replace --output's file with what was
   formatted.  -1 with *ERR when ERR is not set already. */
static int
out_close (const struct check_args *a, struct report_out *o, kg_error_t *err)
{
  cleanup_error kg_error_t werr = NULL;
  bool bad;

  if (a->output == NULL)
    return fflush (stdout) != 0 && ! a->quiet ? -1 : 0;
  bad = ferror (o->f) != 0;
  if (fclose (o->f) != 0 || bad)
    kg_error (&werr, ENOMEM, "--output %s: cannot format the report", a->output);
  else if (writer_replace (a->output, o->buf, o->len, WRITER_PUBLIC, WRITER_DIR_PUBLIC, &werr) < 0)
    kg_error_prefix (&werr, "--output");
  free (o->buf);
  if (werr == NULL)
    return 0;
  if (*err == NULL)
    {
      *err = werr;
      werr = NULL;
    }
  else
    fprintf (stderr, "kata-guard: check: %s\n", werr->msg);
  return -1;
}

int
cli_check (int argc, char **argv, bool *usage, kg_error_t *err)
{
  struct report_out out;
  cleanup_free char *bundle = NULL;
  cleanup_free char *id_buf = NULL;
  cleanup_error kg_error_t cerr = NULL;
  struct timespec t0, t1, wall;
  cleanup_guard_config struct guard_config cfg = { 0 };
  cleanup_report struct report rep = { 0 };
  struct request req = { .mode = KG_MODE_CHECK };
  struct checker_asked asked = CHECKER_ASKED_INIT;
  struct preflight pf;
  struct check_args a;
  struct facts facts = { 0 };
  const char *config_path;
  enum verdict overall;
  int status;

  if (parse_check_args (argc, argv, &a, usage, err) < 0)
    return KG_EXIT_USAGE;
  if (a.help)
    {
      cli_usage (stdout);
      return KG_EXIT_PASS;
    }
  if (a.bundle_arg != NULL)
    {
      if (resolve_bundle (a.bundle_arg, a.id, &bundle, &id_buf, err) < 0)
        return KG_EXIT_USAGE;
      req.bundle = bundle;
      req.container_id = a.id != NULL ? a.id : id_buf;
    }
  config_path = a.config_path != NULL ? a.config_path : guard_config_default_path ();
  if (out_open (&a, &out, err) < 0)
    return KG_EXIT_USAGE;

  /* Not a command-line error: it is reported as a start reports it (and
     in the chosen format), not as "check: ...". */
  clock_gettime (CLOCK_MONOTONIC, &t0);
  clock_gettime (CLOCK_REALTIME, &wall);
  if (guard_config_load (config_path, &cfg, &cerr) < 0)
    {
      fprintf (stderr, "kata-guard: %s\n", cerr->msg);
      /* Run from a source tree before make install, say where one is. */
      if (cerr->errnum == ENOENT && a.config_path == NULL)
        fprintf (stderr, "kata-guard: make install or the package installs it; or name one with "
                         "--config FILE (packaging/config.toml in the source tree)\n");
      if (a.format == FMT_JSON && out.print)
        output_json_error (out.f, config_path, cerr->msg);
      /* A fleet must see a broken configuration too, not a stale file. */
      if (a.format == FMT_PROMETHEUS && out.print)
        {
          clock_gettime (CLOCK_MONOTONIC, &t1);
          output_prometheus (out.f, NULL, NULL, elapsed (&t0, &t1), (long long) wall.tv_sec);
        }
      if (a.nfd != NULL)
        write_nfd_config_error (a.nfd, cerr->msg, (long long) wall.tv_sec, err);
      out_close (&a, &out, err);
      return KG_EXIT_USAGE;
    }

  report_add_file (&rep, cfg.path);
  rep.policy_mode = cfg.policy.mode;
  if (checker_run_host (&pf, &req, &asked, &cfg, config_path, &rep))
    {
      /* What the guarded VMs alive commit, and with a bundle whether this
         one would fit: counted, never recorded. */
      struct capacity_start cs = { .mode = KG_MODE_CHECK,
                                   .id = req.container_id,
                                   .bundle = req.bundle };
      struct capacity cap = CAPACITY_INIT;

      capacity_judge (&cfg, &cs, &rep.vm, cfg.runtime.deadline_ms, &rep, &cap);
      capacity_release (&cap);
    }
  facts.kata_runtime = kata_runtime_name (&pf);
  preflight_release (&pf);
  checker_asked_release (&asked);
  clock_gettime (CLOCK_MONOTONIC, &t1);
  overall = report_overall (&rep);
  read_facts (&a, &cfg, &facts);
  status = overall == VERDICT_FAIL ? KG_EXIT_FAIL : KG_EXIT_PASS;
  /* After the checks, whatever they found: a failure is what the
     labels are for.  Before the report, whose gate metrics read it. */
  if (a.nfd != NULL && write_nfd (a.nfd, &rep, &facts, (long long) wall.tv_sec, err) < 0)
    status = KG_EXIT_USAGE;
  read_nfd_facts (&a, &cfg, &facts);
  if (out.print)
    switch (a.format)
      {
      case FMT_JSON:
        if (output_json (out.f, &rep, cfg.path) < 0)
          overall = VERDICT_FAIL;
        break;
      case FMT_PROMETHEUS:
        output_prometheus (out.f, &rep, &facts, elapsed (&t0, &t1), (long long) wall.tv_sec);
        break;
      case FMT_TEXT:
        output_text (out.f, &rep, a.output == NULL && output_want_color (stdout));
        break;
      }
  if (out_close (&a, &out, err) < 0)
    return KG_EXIT_USAGE;
  return status;
}

void
cli_version_usage (FILE *out)
{
  fputs ("Usage: kata-guard version\n"
         "\n"
         "Prints kata-guard's version (Docker's `kata-guard --version`, an OCI runtime's\n"
         "call, also prints the real runtime's).\n",
         out);
}

int
cli_version (int argc, char **argv, bool *usage, kg_error_t *err)
{
  static const struct option longopts[] = {
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
  };
  int c;

  optind = 1;
  opterr = 0;
  while ((c = getopt_long (argc, argv, "+h", longopts, NULL)) != -1)
    switch (c)
      {
      case 'h':
        cli_version_usage (stdout);
        return KG_EXIT_PASS;
      default:
        return cli_bad_option (argv, usage, err), KG_EXIT_USAGE;
      }
  if (cli_operands (argc, argv, err) < 0)
    return *usage = true, KG_EXIT_USAGE;
  printf ("kata-guard %s\n", PACKAGE_VERSION);
  return KG_EXIT_PASS;
}

int
cli_help (int argc, char **argv, bool *usage, kg_error_t *err)
{
  cli_usage (stdout);
  return KG_EXIT_PASS;
}
