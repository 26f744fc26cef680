/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Executing the verified runtime (kata-guard(8), RUNTIME WRAPPER).  The wrapper never executes a
 * path: it executes the O_PATH descriptor of the very file that passed the
 * trusted-path walk, with execveat (fd, "", argv, environ, AT_EMPTY_PATH).
 *
 * The real runtime inherits exactly the descriptors kata-guard was given:
 * exec_note_inherited () records them when the process starts, and before
 * the exec every descriptor opened since is marked close-on-exec.  The one
 * exception is a "#!" script: the kernel hands its interpreter /dev/fd/N,
 * so the descriptor of the script itself must stay open (an ELF binary
 * runs whatever the descriptor's flags, and keeps it close-on-exec).
 */
#ifndef KG_EXEC_H
#define KG_EXEC_H

#include <stdbool.h>

#include "error.h"

/* Record the descriptors open now (call first thing in main). */
void exec_note_inherited (void);
/* Whether FD was open when exec_note_inherited () ran.  When the record
   could not be made, every descriptor counts as inherited. */
bool exec_fd_inherited (int fd);

/* Execute the file behind the O_PATH descriptor FD with ARGV (argv[0] is
   what the runtime sees as its name) and the current environment.  Only
   returns on failure, with *ERR set. */
int exec_runtime (int fd, char *const argv[], kg_error_t *err);

/* Whether the file behind FD starts with "#!" (read through a fresh
   read-only descriptor of the same inode). */
int exec_is_script (int fd, bool *script, kg_error_t *err);

#endif
