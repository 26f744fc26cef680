/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The confinement of the checker (kata-guard(8), Confinement): the child that reads and
 * parses every input and runs the checks gives up, before it touches any
 * input, every capability, the right to gain privilege (no_new_privs) and
 * every system call the checks do not need (a seccomp allowlist whose
 * default is to kill the process).
 */
#ifndef KG_CONFINE_H
#define KG_CONFINE_H

#include <stdint.h>

#include "error.h"

/* Confine the calling process, for good.  REPORT_FD is the one descriptor
   it may write(2) and sendmsg(2) to (the channel to the parent); no other
   file can be written.  A refused system call kills the process with
   SIGSYS; first, when REFUSED is not NULL (memory shared with the parent),
   *REFUSED gets the call's number plus one.  On failure the process is in
   an unknown state and must exit without doing anything else. */
int confine_enter (int report_fd, volatile uint32_t *refused, kg_error_t *err);

/* The descriptor the checker's channel is (checker.c's CHILD_SOCK): the
   one whose filter seccomp-gen compiles at build time. */
#define CONFINE_REPORT_FD 3

#endif
