/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What the kernel says of the machine and of a process: MemTotal, a
   process's start time and state. */
#ifndef KG_PROC_H
#define KG_PROC_H

#include <stdint.h>

#include "error.h"

/* MemTotal of /proc/meminfo, in MiB, into *OUT. */
int kg_mem_total_mib (int64_t *out, kg_error_t *err);
/* Process PID's start time in clock ticks after boot (field 22 of
   /proc/PID/stat) and, when STATE is not NULL, its state (field 3): 0,
   or -1 with errno (the read's, EIO for a line that is not the kernel's). */
int kg_proc_start (unsigned long pid, char *state, uint64_t *start);

#endif
