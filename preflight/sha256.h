/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef KG_SHA256_H
#define KG_SHA256_H

#include <sys/stat.h>

#include "error.h"

#define SHA256_LEN 32
#define SHA256_HEX_LEN (2 * SHA256_LEN)

/* The SHA-256 of the file behind FD, whose size is ST's, as lowercase hex
   in HEX: read in bounded chunks, never more or less than that size.
   NAME is the path for messages.  The first call loads libcrypto
   (KG_CRYPTO_SONAME, lazylib.h): the guard does not link it, because only
   a configuration with SHA-256 pins needs it. */
int sha256_fd (int fd, const struct stat *st, const char *name, char hex[SHA256_HEX_LEN + 1],
               kg_error_t *err);

#endif
