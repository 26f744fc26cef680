/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nspin.*: a namespace a spec names by a process (/proc/PID/ns/NAME),
 * pinned when the checker's parent answers about it: the process (a pidfd
 * where the kernel has them, and its start time in /proc/PID/stat) and the
 * namespace (the nsfs file's device and inode).  The wrapper checks every
 * pin again right before it executes the runtime, which opens the same
 * path: a pid whose process exited and whose number another process took
 * in between names that other process, and fails the check.
 */
#ifndef KG_NSPIN_H
#define KG_NSPIN_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "error.h"

/* One pin a namespace kind the parent answers by pid (policy.namespaces:
   net, pid, ipc, uts), and one for egress.netns's network namespace. */
#define NS_PINS_MAX 8

struct ns_pin
{
  unsigned long pid;
  char name[8];      /* the /proc/PID/ns name: net, pid, ipc, uts */
  uint64_t dev, ino; /* the namespace */
  uint64_t start;    /* the process's start time (clock ticks after boot) */
  int pidfd;         /* the process, or -1 (no pidfd_open) */
};

struct ns_pins
{
  struct ns_pin pin[NS_PINS_MAX];
  size_t n;
};

/* Pin /proc/PID/ns/NAME: the process's pidfd and start time, then the
   namespace's stat (into *ST when not NULL), then the process still alive
   under the same start time (it held the pid throughout, so the stat was
   its own).  0 with *PIN filled (its pidfd to release), or -1 with errno:
   ESRCH when the process went or changed meanwhile. */
int ns_pin_take (unsigned long pid, const char *name, struct ns_pin *pin, struct stat *st);

/* Whether PIN still holds: its process alive (the pidfd) under the same
   start time, and /proc/PID/ns/NAME the same namespace.  0, or -1 with
   errno (ESRCH: another process, or none; EXDEV: another namespace). */
int ns_pin_check (const struct ns_pin *pin);

/* Add PIN to PINS (which then owns its pidfd); one past NS_PINS_MAX is
   released and -1 (E2BIG). */
int ns_pins_add (struct ns_pins *pins, struct ns_pin *pin);

/* Every pin of PINS checked (ns_pin_check): 0, or -1 with *ERR naming the
   first that no longer holds and why. */
int ns_pins_verify (const struct ns_pins *pins, kg_error_t *err);

void ns_pins_release (struct ns_pins *pins);

#endif
