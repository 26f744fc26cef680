/* SPDX-License-Identifier: GPL-2.0-or-later */
/* `kata-guard install` and `uninstall`: registration with Docker and
   containerd (kata-guard(8), COMMANDS). */
#ifndef KG_INSTALL_H
#define KG_INSTALL_H

#include <stdio.h>

#include "command.h"

kg_command cli_install, cli_uninstall;
void install_usage (FILE *out);
void uninstall_usage (FILE *out);

#endif
