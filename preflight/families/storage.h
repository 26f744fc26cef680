/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * storage.*: whether the engine that starts this container gives Kata a
 * block device for the container's rootfs (kata-guard(8), CHECKS,
 * Storage).  Firecracker has no shared file system: Kata can hand it the
 * rootfs only as a block device, from containerd's devmapper (or
 * blockfile) snapshotter or Docker's devicemapper graphdriver.  With an
 * overlay snapshotter the start fails inside Kata, unreadably.
 *
 * storage.snapshotter reads the engine's own configuration as the engine
 * reads it (Docker's daemon.json with the strict reader, containerd's
 * config.toml with its imports); storage.pool reads the thin pool that
 * containerd's devmapper plugin names, through libdevmapper, loaded on
 * demand (lazylib.h).  The pieces below are pure, for the unit tests.
 */
#ifndef KG_STORAGE_H
#define KG_STORAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "conf.h"
#include "error.h"
#include "result.h"

struct toml_value;

/* ---- the thin pool ------------------------------------------------------ */

enum thin_pool_mode
{
  THIN_POOL_MODE_NONE, /* the kernel printed no mode (before Linux 3.x added it) */
  THIN_POOL_RW,
  THIN_POOL_RO,
  THIN_POOL_OUT_OF_DATA_SPACE,
};

/* The status line of a thin-pool target (the kernel's
   Documentation/admin-guide/device-mapper/thin-provisioning.rst, Status). */
struct thin_pool_status
{
  bool failed; /* the single word "Fail": the pool is in fail mode */
  bool error;  /* the single word "Error": the kernel could not read its metadata */
  uint64_t transaction_id;
  uint64_t used_meta, total_meta; /* metadata blocks */
  uint64_t used_data, total_data; /* data blocks */
  unsigned fields;                /* how many the kernel printed: 4, 6, 7, 8 or 9 */
  enum thin_pool_mode mode;
  bool needs_check; /* "needs_check" (8 fields or more) */
};

/* Parse PARAMS, the thin-pool target's status (what `dmsetup status`
   prints after "START LENGTH thin-pool "): exactly one of the forms the
   kernel prints, with trailing white space allowed.  0, or -1 with why. */
int storage_thin_pool_parse (const char *params, struct thin_pool_status *out, kg_error_t *err);

/* The verdict on the pool S: fail when it has failed, cannot be read, is
   read-only, out of data space or needs a check, or uses more than
   DATA_MAX (META_MAX) percent of its data (metadata) blocks; else pass.
   WHY (SIZE bytes) says what was found, with the numbers. */
enum verdict storage_pool_judge (const struct thin_pool_status *s, int64_t data_max,
                                 int64_t meta_max, char *why, size_t size);

/* ---- the engines' configurations -------------------------------------- */

#define STORAGE_NAME_MAX 64
#define STORAGE_MAX_HANDLERS 16

/* What Docker's daemon.json says its image store is. */
struct docker_storage
{
  bool exists;                   /* the file exists (else Docker's defaults apply) */
  bool containerd_store;         /* features.containerd-snapshotter is true */
  char driver[STORAGE_NAME_MAX]; /* the snapshotter or graphdriver, defaults applied */
  bool driver_set;               /* storage-driver was written */
};

/* Read PATH as dockerd 24 to 28 reads it (kata-guard(8), Storage). */
int storage_docker_read (const char *path, struct docker_storage *out, kg_error_t *err);

/* One CRI runtime handler that runs kata-guard. */
struct containerd_handler
{
  char name[STORAGE_NAME_MAX];
  char snapshotter[STORAGE_NAME_MAX]; /* its own, else the CRI plugin's */
  bool own;                           /* the handler sets its own */
};

/* What containerd's configuration says, its imports merged. */
struct containerd_storage
{
  bool exists;
  int64_t version;                    /* 1 (also: none written), 2 or 3 */
  char snapshotter[STORAGE_NAME_MAX]; /* the CRI plugin's, default overlayfs */
  struct containerd_handler handlers[STORAGE_MAX_HANDLERS];
  size_t n_handlers;    /* those whose runtime_type runs kata-guard */
  bool pool_set;        /* the devmapper plugin's table holds pool_name */
  char pool_name[128];  /* "" when not set */
  size_t n_files;       /* the files read: the config and its imports */
  bool readings_differ; /* read failed: 1.x and 2.x merge the imports differently */
};

/* containerd's config and the files it imports, in the order
   containerd's LoadConfig reads them: breadth first, each once, a glob
   in name order. */
#define CONTAINERD_MAX_FILES 32
struct containerd_files
{
  struct toml_value *doc[CONTAINERD_MAX_FILES];
  char *path[CONTAINERD_MAX_FILES];
  size_t n;
};

/* Read PATH and every file it imports into F; PATH missing: F stays
   empty.  F is released by containerd_files_release, also on failure. */
int containerd_files_load (const char *path, struct containerd_files *f, kg_error_t *err);
void containerd_files_release (struct containerd_files *f);

/* Read PATH and its imports as containerd 1.6 to 2.x read them.  Where
   1.x (a plugin's table replaced whole by a later file) and 2.x (merged
   key by key) would read the imports differently, this fails. */
int storage_containerd_read (const char *path, struct containerd_storage *out, kg_error_t *err);

/* Whether NAME, a containerd snapshotter (SNAPSHOTTER) or a Docker
   graphdriver, gives a block device. */
bool storage_name_is_block (const char *name, bool snapshotter);

/* Read the status of the device-mapper device POOL into BUF (SIZE bytes):
   the params of its thin-pool target.  -1 with *ERR, whose errnum is
   ENODEV when device-mapper is absent here (no /dev/mapper/control, the
   driver missing) or libdevmapper cannot be loaded (ELIBACC), ENXIO when
   there is no such device, EMEDIUMTYPE when it is no thin pool. */
int storage_pool_status_read (const char *pool, char *buf, size_t size, kg_error_t *err);

/* The pool the guard configuration's [storage] containerd_config names
   into NAME (SIZE bytes; "" none): what the checker's parent reads itself
   before it answers a pool request. */
int storage_pool_name (const struct guard_config *cfg, char *name, size_t size, kg_error_t *err);

#endif
