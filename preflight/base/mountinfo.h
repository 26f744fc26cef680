/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The one reader of the mount table (/proc/self/mountinfo): libmount,
 * loaded on first use (lazylib.h), with a parser error callback that
 * makes any line it cannot parse fail the whole table, so that a skipped
 * line never hides a mount (a file would seem to live on its parent's
 * mount, a volume directory would seem a plain directory).  libmount
 * undoes the kernel's octal escapes (\040, \011, \012, \134) in the
 * mount points.  assets.c (a file's mount) and policy.mounts (a local
 * volume that is a mount) read it here.
 */
#ifndef KG_MOUNTINFO_H
#define KG_MOUNTINFO_H

#include <stddef.h>

#include <libmount/libmount.h>

#define MOUNTINFO "/proc/self/mountinfo"

/* libmount's functions, typed from its own header; set once
   mountinfo_read succeeded. */
struct kg_libmount
{
  __typeof__ (&mnt_unref_table) unref_table;
  __typeof__ (&mnt_table_find_mountpoint) find_mountpoint;
  __typeof__ (&mnt_new_iter) new_iter;
  __typeof__ (&mnt_free_iter) free_iter;
  __typeof__ (&mnt_table_next_fs) next_fs;
  __typeof__ (&mnt_fs_get_target) get_target;
  __typeof__ (&mnt_fs_get_fstype) get_fstype;
  __typeof__ (&mnt_fs_get_id) get_id;
  __typeof__ (&mnt_fs_get_devno) get_devno;
  __typeof__ (&mnt_fs_get_fs_options) get_fs_options;
  __typeof__ (&mnt_fs_get_vfs_options) get_vfs_options;
  __typeof__ (&mnt_optstr_get_option) optstr_get_option;
};
extern struct kg_libmount kg_mnt;

/* PATH, a mountinfo file, read whole: the table (kg_mnt.unref_table
   releases it), or NULL with why into WHY (SIZE bytes) when libmount
   cannot be loaded, memory runs out, or a line cannot be parsed. */
struct libmnt_table *mountinfo_read (const char *path, char *why, size_t size);

#endif
