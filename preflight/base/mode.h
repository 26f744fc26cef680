/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Which way the guard was started: the one fact the shim, the checker and
 * the records share about a run (checks.h is the families').
 */
#ifndef KG_MODE_H
#define KG_MODE_H

enum kg_mode
{
  KG_MODE_CHECK, /* kata-guard check */
  KG_MODE_SHIM,  /* containerd shim v2 start */
  KG_MODE_OCI,   /* runc-style create/run */
};

#endif
