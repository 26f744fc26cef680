/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The engine a container came from (policy-facts.c's who_resolve),
 * read by the rules and by storage.
 */
#ifndef KG_ENGINE_H
#define KG_ENGINE_H

/* Which engine started this container, as the engine told the guard
   (its arguments, the bundle's place in its state), never as the spec
   says (kata-guard(8), THREAT MODEL). */
enum engine
{
  ENGINE_UNKNOWN,    /* no engine the guard can tell */
  ENGINE_CONTAINERD, /* a containerd namespace, neither CRI's nor Docker's */
  ENGINE_CRI,        /* a namespace of [policy] cri_namespaces, started as a shim */
  ENGINE_DOCKER,     /* Docker's containerd namespace */
  ENGINE_PODMAN,     /* podman's bundle, <podman root>/<driver>-containers/<id>/userdata */
  ENGINE_CRIO,       /* the same bundle, whose storage record is CRI-O's (it names a pod) */
};

#endif
