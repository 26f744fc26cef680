/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The mount table, read by libmount (mountinfo.h). */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "array.h"
#include "error.h"
#include "lazylib.h"
#include "mountinfo.h"

struct kg_libmount kg_mnt;

/* And the two only mountinfo_read calls. */
static __typeof__ (&mnt_new_table) new_table;
static __typeof__ (&mnt_table_set_parser_errcb) set_parser_errcb;
static __typeof__ (&mnt_table_parse_file) parse_file;

static struct lazylib libmount = { .soname = KG_MOUNT_SONAME, .path = KG_MOUNT_PATH };

/* Any line that libmount cannot parse makes the whole table unusable. */
static int
parse_error (struct libmnt_table *tb __attribute__ ((unused)),
             const char *filename __attribute__ ((unused)), int line __attribute__ ((unused)))
{
  return -EINVAL;
}

struct libmnt_table *
mountinfo_read (const char *path, char *why, size_t size)
{
  const struct lazysym syms[] = {
    { "mnt_new_table", (void **) &new_table },
    { "mnt_table_set_parser_errcb", (void **) &set_parser_errcb },
    { "mnt_table_parse_file", (void **) &parse_file },
    { "mnt_unref_table", (void **) &kg_mnt.unref_table },
    { "mnt_table_find_mountpoint", (void **) &kg_mnt.find_mountpoint },
    { "mnt_new_iter", (void **) &kg_mnt.new_iter },
    { "mnt_free_iter", (void **) &kg_mnt.free_iter },
    { "mnt_table_next_fs", (void **) &kg_mnt.next_fs },
    { "mnt_fs_get_target", (void **) &kg_mnt.get_target },
    { "mnt_fs_get_fstype", (void **) &kg_mnt.get_fstype },
    { "mnt_fs_get_id", (void **) &kg_mnt.get_id },
    { "mnt_fs_get_devno", (void **) &kg_mnt.get_devno },
    { "mnt_fs_get_fs_options", (void **) &kg_mnt.get_fs_options },
    { "mnt_fs_get_vfs_options", (void **) &kg_mnt.get_vfs_options },
    { "mnt_optstr_get_option", (void **) &kg_mnt.optstr_get_option },
  };
  cleanup_error kg_error_t err = NULL;
  struct libmnt_table *tb;
  int rc;

  if (lazylib_load (&libmount, syms, ARRAY_SIZE (syms), &err) < 0)
    {
      snprintf (why, size, "%s", err->msg);
      return NULL;
    }
  tb = new_table ();
  if (tb == NULL)
    {
      snprintf (why, size, "cannot read %s: %s", path, strerror (ENOMEM));
      return NULL;
    }
  set_parser_errcb (tb, parse_error);
  rc = parse_file (tb, path);
  if (rc != 0)
    {
      snprintf (why, size, "cannot read %s: %s", path, strerror (rc < 0 ? -rc : EINVAL));
      kg_mnt.unref_table (tb);
      return NULL;
    }
  return tb;
}
