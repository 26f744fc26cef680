/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What the units of `kata-guard install` share: install.c (the command
   line) calls install-docker.c and install-dropin.c (containerd and
   CRI-O), which call install-common.c (the running binary, the engines'
   versions) below them.  Private to register/. */
#ifndef KG_INSTALL_INT_H
#define KG_INSTALL_INT_H

#include <stdbool.h>

#include "error.h"

#define SHIM_NAME "containerd-shim-kata-guard-v2"
#define SHIM_RUNTIME_TYPE "io.containerd.kata-guard.v2"
#define DEFAULT_NAME "kata-guard"
#define CONTAINERD_CONFIG "/etc/containerd/config.toml"
/* CRI-O reads every file of its drop-in directory, in order. */
#define CRIO_DIR "/etc/crio/crio.conf.d"

enum reg_mode
{
  REG_AUTO,
  REG_SHIM, /* Docker 24+ (DOCKER_RUNTIME_TYPE_MAJOR): {"runtimeType": "<shim>"} */
  REG_OCI,  /* Docker 20.10/23: {"path": "<kata-guard>"} */
};

struct opts
{
  bool docker, containerd, crio, all, set_default, dry_run, force;
  enum reg_mode mode;
  const char *daemon_json, *containerd_config, *crio_dir, *config, *name;
  /* uninstall --docker: the default-runtime install replaced (recorded),
     put back instead of "runc" when the file still names it; or NULL. */
  const char *restore_default;
};

/* The running binary and its shim link, resolved through /proc/self/exe. */
int self_paths (char **exe, char **shim, kg_error_t *err);
/* Whether EXE (and with NEED_SHIM, SHIM) may be registered: 0, or -1 with why. */
int check_registrable (const char *exe, const char *shim, bool need_shim, kg_error_t *err);
/* containerd's major version, asked of its binary; -1 unknown.  Docker's
   is docker_version (docker.h), which `kata-guard check` asks too. */
int containerd_major (void);
/* WHY, then "kata-guard: CMD: FILE OUTCOME": -1. */
int error_and_outcome (kg_error_t *err, const char *cmd, kg_error_t why, const char *file,
                       const char *outcome);

/* The engines' registrations: an exit status, ERR set when it is not 0. */
int install_docker (const struct opts *o, kg_error_t *err);
int uninstall_docker (const struct opts *o, kg_error_t *err);
/* After uninstall rewrote FILE (daemon.json): SIGHUP to every running
   dockerd that reads FILE and still has runtime NAME, and wait until it
   has not (dockerd-reload.c); each said on stdout.  0, or -1 with ERR
   (the command that reloads it) when one did not reload. */
int dockerd_reload (const char *file, const char *name, kg_error_t *err);
int containerd_cmd (const struct opts *o, bool install, kg_error_t *err);
int crio_cmd (const struct opts *o, bool install, kg_error_t *err);

#endif
