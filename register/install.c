/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * `kata-guard install` / `uninstall` (kata-guard(8), COMMANDS): the
 * command line; the registrations are install-docker.c (daemon.json) and
 * install-dropin.c (containerd's and CRI-O's drop-ins), over
 * install-common.c (the running binary, the engines' versions), which
 * share install-int.h.
 *
 * What is registered is the running binary, resolved through
 * /proc/self/exe: whatever copy the operator runs is the one registered,
 * and it must sit on a trusted path (root-owned all the way down, as the
 * real runtime must), because whoever can replace a registered runtime
 * runs code as root in every container start.
 *
 * No daemon is ever restarted or signalled: the operator reloads it.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "conf.h"
#include "dockerjson.h"
#include "install.h"
#include "install-int.h"
#include "util.h"

void
install_usage (FILE *out)
{
  fputs ("Usage: kata-guard install [--docker] [--daemon-json FILE] [--name NAME] [--set-default]\n"
         "                          [--mode shim|oci] [--dry-run] [--force]\n"
         "       kata-guard install --containerd [--containerd-config FILE] [--config FILE]\n"
         "                          [--name NAME] [--dry-run] [--force]\n"
         "       kata-guard install --crio [--crio-dir DIR] [--config FILE] [--name NAME]\n"
         "                          [--mode shim|oci] [--dry-run] [--force]\n"
         "       kata-guard uninstall [--docker] [--daemon-json FILE] [--name NAME] [--dry-run]\n"
         "                          [--force]\n"
         "       kata-guard uninstall --containerd [--containerd-config FILE] [--config FILE]\n"
         "                          [--name NAME] [--dry-run] [--force]\n"
         "       kata-guard uninstall --crio [--crio-dir DIR] [--config FILE] [--name NAME]\n"
         "                          [--dry-run] [--force]\n"
         "\n"
         "Registers kata-guard as a runtime (default name kata-guard) in Docker's daemon.json\n"
         "(default " DAEMONJSON_DEFAULT "), keeping everything else in it; never restarts\n"
         "Docker. With --containerd: containerd 2.x, a drop-in where config.toml imports a\n"
         "drop-in directory (else the table is printed); containerd 1.x, the table added to\n"
         "the file holding the CRI plugin's table, checked by `containerd config dump`. With\n"
         "--crio, writes CRI-O's drop-in DIR/50-NAME.conf (default DIR " CRIO_DIR "):\n"
         "runtime_type \"vm\" (--mode shim, the default) or \"oci\" (--mode oci).\n"
         "\n"
         "  --mode shim|oci   shim: {\"runtimeType\": \"<dir>/" SHIM_NAME "\"}, which only\n"
         "                    Docker 24 and later read (refused for an older or unknown\n"
         "                    Docker); oci: {\"path\": \"<dir>/kata-guard\"}, which every Docker\n"
         "                    reads; default: by the version `docker version` (the running\n"
         "                    daemon) and `dockerd --version` tell, the lower of the two\n"
         "  --set-default     also set default-runtime to NAME\n"
         "  --force           replace (uninstall: remove) an entry of that name that differs\n"
         "  --dry-run         print the resulting file; write nothing\n"
         "\n"
         "Exit status: 0 done or nothing to do, 1 the write failed (the file is unchanged),\n"
         "2 refused (a file that is not valid JSON, a conflicting entry, usage).\n",
         out);
}

/* ---- the command line --------------------------------------------------------------- */

static int
not_here (const char *cmd, const char *opt, bool *usage, kg_error_t *err)
{
  *usage = true;
  return kg_error (err, 0, "%s does not apply to %s", opt, cmd);
}

/* 0, 1 when the usage was asked for (and printed), or -1 with *ERR (and
   *USAGE when it must follow). */
static int
parse_opts (const char *cmd, int argc, char **argv, struct opts *o, bool *usage, kg_error_t *err)
{
  static const struct option longopts[] = {
    { "docker", no_argument, NULL, 'D' },
    { "containerd", no_argument, NULL, 'C' },
    { "crio", no_argument, NULL, 'R' },
    { "crio-dir", required_argument, NULL, 'd' },
    { "daemon-json", required_argument, NULL, 'j' },
    { "containerd-config", required_argument, NULL, 't' },
    { "config", required_argument, NULL, 'c' },
    { "name", required_argument, NULL, 'n' },
    { "set-default", no_argument, NULL, 'S' },
    { "mode", required_argument, NULL, 'm' },
    { "dry-run", no_argument, NULL, 'N' },
    { "force", no_argument, NULL, 'f' },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
  };
  bool install = strcmp (cmd, "install") == 0;
  bool docker_only = false, crio_only = false, mode_set = false;
  int c;

  memset (o, 0, sizeof *o);
  o->mode = REG_AUTO;
  o->name = DEFAULT_NAME;
  o->daemon_json = DAEMONJSON_DEFAULT;
  o->containerd_config = CONTAINERD_CONFIG;
  o->crio_dir = CRIO_DIR;
  o->config = guard_config_default_path ();
  optind = 1;
  opterr = 0;
  while ((c = getopt_long (argc, argv, "+c:n:fh", longopts, NULL)) != -1)
    switch (c)
      {
      case 'D':
        o->docker = true;
        break;
      case 'C':
        o->containerd = true;
        break;
      case 'R':
        o->crio = true;
        break;
      case 'd':
        o->crio_dir = optarg;
        crio_only = true;
        break;
      case 'j':
        o->daemon_json = optarg;
        docker_only = true;
        break;
      case 't':
        o->containerd_config = optarg;
        break;
      case 'c':
        o->config = optarg;
        break;
      case 'n':
        o->name = optarg;
        break;
      case 'S':
        if (! install)
          return not_here (cmd, "--set-default", usage, err);
        o->set_default = docker_only = true;
        break;
      case 'm':
        if (! install)
          return not_here (cmd, "--mode", usage, err);
        if (strcmp (optarg, "shim") == 0)
          o->mode = REG_SHIM;
        else if (strcmp (optarg, "oci") == 0)
          o->mode = REG_OCI;
        else
          return kg_error (err, 0, "--mode is shim or oci, not \"%s\"", optarg);
        mode_set = true;
        break;
      case 'N':
        o->dry_run = true;
        break;
      case 'f':
        o->force = true;
        break;
      case 'h':
        install_usage (stdout);
        return 1;
      default:
        return cli_bad_option (argv, usage, err);
      }
  if (cli_operands (argc, argv, err) < 0)
    return -1;
  if ((int) o->docker + (int) o->containerd + (int) o->crio > 1)
    return kg_error (err, 0, "--docker, --containerd or --crio, one at a time");
  if (o->containerd && (docker_only || mode_set))
    return kg_error (err, 0,
                     "--daemon-json, --set-default and --mode are for Docker or CRI-O, "
                     "not --containerd");
  if (o->crio && docker_only)
    return kg_error (err, 0, "--daemon-json and --set-default are for Docker, not --crio");
  if (crio_only && ! o->crio)
    return kg_error (err, 0, "--crio-dir is for --crio");
  if (! daemonjson_valid_name (o->name))
    return kg_error (err, 0,
                     "--name \"%s\": a runtime name is letters, digits, '_', '.', '-' "
                     "(at most 64)",
                     o->name);
  if (*o->daemon_json == '\0' || *o->containerd_config == '\0' || *o->crio_dir == '\0')
    return kg_error (err, 0, "an empty file name");
  return 0;
}

/* install or uninstall: the options, then Docker's daemon.json or
   containerd. */
static int
register_cmd (bool install, int argc, char **argv, bool *usage, kg_error_t *err)
{
  struct opts o;
  int rc = parse_opts (install ? "install" : "uninstall", argc, argv, &o, usage, err);

  if (rc != 0)
    return rc > 0 ? KG_EXIT_PASS : KG_EXIT_USAGE;
  if (o.containerd)
    rc = containerd_cmd (&o, install, err);
  else if (o.crio)
    rc = crio_cmd (&o, install, err);
  else
    rc = install ? install_docker (&o, err) : uninstall_docker (&o, err);
  if (fflush (stdout) != 0)
    return KG_EXIT_FAIL;
  return rc;
}

int
cli_install (int argc, char **argv, bool *usage, kg_error_t *err)
{
  return register_cmd (true, argc, argv, usage, err);
}

int
cli_uninstall (int argc, char **argv, bool *usage, kg_error_t *err)
{
  return register_cmd (false, argc, argv, usage, err);
}
