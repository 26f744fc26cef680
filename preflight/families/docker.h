/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * docker.*: what the storage family shares with it.  check_docker () is
 * the family (checks.h).
 */
#ifndef KG_DOCKER_H
#define KG_DOCKER_H

#include <stdbool.h>

/* Whether a containerd runtime type (io.containerd.NAME.vN, whose shim
   containerd-shim-NAME-vN is found as the engines find it, or an absolute
   path) runs kata-guard: io.containerd.kata-guard.v2, or a file that is
   the running kata-guard (docker.c, which judges daemon.json's runtimeType
   the same way). */
bool runtime_type_is_guard (const char *runtime_type);

/* The first Docker that reads a runtimes entry's "runtimeType" (a shim v2
   runtime): 24.0 (moby v24.0.0 api/types/types.go Runtime.Type,
   daemon/runtime_unix.go setupRuntimes; moby#45032).  Docker 20.10 and
   23 decode the entry into a Runtime without the field, so an entry
   without "path" runs containerd-shim-runc-v2 with an empty BinaryName:
   plain runc (daemon/runtime_unix.go getRuntime, defaultV2ShimConfig). */
#define DOCKER_RUNTIME_TYPE_MAJOR 24
/* The first Docker that takes a containerd runtime name
   (io.containerd.NAME.vN) with no entry, as default-runtime or --runtime:
   23.0 (daemon/config/config.go Validate, IsPermissibleC8dRuntimeName). */
#define DOCKER_C8D_NAME_MAJOR 23

/* The Docker major version as the engine that reads daemon.json would
   tell it: the running daemon's (`docker version`, at DOCKER_HOST or the
   default socket) and the installed binary's (`dockerd --version`); when
   both answer, the lower (a reload, which never restarts dockerd, has the
   running one read the file, and an upgraded binary is not running yet).
   *VERSION gets the version text, *SOURCE the command that told; -1 when
   neither answers. */
int docker_version (char **version, const char **source);
/* OUT as the confined checker's docker.runtimes needs it (it runs no
   program): asked with docker_version when CFG's daemon.json exists, else
   major -1.  *TEXT holds the version text, for the caller to free. */
struct guard_config;
struct docker_engine;
void docker_engine_ask (const struct guard_config *cfg, struct docker_engine *out, char **text);

#endif
