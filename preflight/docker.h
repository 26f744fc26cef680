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

#endif
