/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysinfo.h>

#include "cleanup.h"
#include "error.h"
#include "fdio.h"
#include "proc.h"

int
kg_proc_start (unsigned long pid, char *state, uint64_t *start)
{
  char path[64];
  cleanup_free char *text = NULL;
  cleanup_error kg_error_t err = NULL;
  size_t len;
  const char *p;
  char *end;

  snprintf (path, sizeof path, "/proc/%lu/stat", pid);
  if (kg_read_file_bounded (path, 0, 4096, &text, &len, &err) < 0)
    return errno = err->errnum ? err->errnum : EIO, -1;
  /* The command name may hold anything but ends at the last ')';
     ") S ppid ...": the state is field 3, the start time field 22. */
  p = strrchr (text, ')');
  if (p == NULL || p[1] != ' ' || p[2] == '\0')
    return errno = EIO, -1;
  if (state != NULL)
    *state = p[2];
  for (int field = 2; p != NULL && field < 22; field++)
    p = strchr (p + 1, ' ');
  if (p == NULL)
    return errno = EIO, -1;
  errno = 0;
  *start = strtoull (p + 1, &end, 10);
  if (errno != 0 || end == p + 1 || (*end != ' ' && *end != '\n' && *end != '\0'))
    return errno = EIO, -1;
  return 0;
}

/* MemTotal, in MiB: sysinfo's totalram is the same count of pages that
   /proc/meminfo prints as MemTotal, without reading and parsing a file. */
int
kg_mem_total_mib (int64_t *out, kg_error_t *err)
{
  struct sysinfo si;
  unsigned long long bytes;

  if (sysinfo (&si) < 0)
    return kg_error (err, errno, "sysinfo");
  bytes = (unsigned long long) si.totalram * (si.mem_unit ? si.mem_unit : 1);
  if (bytes < 1024 * 1024)
    return kg_error (err, 0, "sysinfo: no memory (%llu bytes)", bytes);
  *out = (int64_t) (bytes / (1024 * 1024));
  return 0;
}
