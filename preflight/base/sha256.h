/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef KG_SHA256_H
#define KG_SHA256_H

#include <stddef.h>
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

/* The SHA-256 of LEN bytes at DATA into MD, computed here (FIPS 180-4),
   with no library: for short texts, such as the identity a record is
   named by, where loading libcrypto would cost more than the hash. */
void sha256_mem (const void *data, size_t len, unsigned char md[SHA256_LEN]);
/* MD as lowercase hex, NUL-terminated. */
void sha256_hex (const unsigned char md[SHA256_LEN], char hex[SHA256_HEX_LEN + 1]);

#endif
