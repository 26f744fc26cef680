/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * SHA-256 of a file through libcrypto's EVP interface (which uses the
 * CPU's SHA extensions where there are any), with libcrypto loaded on
 * first use instead of linked (lazylib.h): only starts with SHA-256 pins
 * need it.
 */
#include "config.h"

#include <errno.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "lazylib.h"
#include "sha256.h"
#include "util.h"

#define HASH_CHUNK (64 * 1024)

/* The six functions used, typed from libcrypto's own header. */
static struct
{
  __typeof__ (&EVP_MD_CTX_new) ctx_new;
  __typeof__ (&EVP_MD_CTX_free) ctx_free;
  __typeof__ (&EVP_sha256) sha256;
  __typeof__ (&EVP_DigestInit_ex) init;
  __typeof__ (&EVP_DigestUpdate) update;
  __typeof__ (&EVP_DigestFinal_ex) final;
} lc;

static struct lazylib libcrypto = { .soname = KG_CRYPTO_SONAME, .path = KG_CRYPTO_PATH };

static int
sha256_load (kg_error_t *err)
{
  const struct lazysym syms[] = {
    { "EVP_MD_CTX_new", (void **) &lc.ctx_new },  { "EVP_MD_CTX_free", (void **) &lc.ctx_free },
    { "EVP_sha256", (void **) &lc.sha256 },       { "EVP_DigestInit_ex", (void **) &lc.init },
    { "EVP_DigestUpdate", (void **) &lc.update }, { "EVP_DigestFinal_ex", (void **) &lc.final },
  };

  if (lazylib_load (&libcrypto, syms, ARRAY_SIZE (syms), err) < 0)
    return kg_error_prefix (err, "SHA-256 is not available");
  return 0;
}

static void
ctx_release (EVP_MD_CTX **ctx)
{
  if (*ctx != NULL)
    lc.ctx_free (*ctx);
}

int
sha256_fd (int fd, const struct stat *st, const char *name, char hex[SHA256_HEX_LEN + 1],
           kg_error_t *err)
{
  __attribute__ ((cleanup (ctx_release))) EVP_MD_CTX *ctx = NULL;
  cleanup_free unsigned char *buf = NULL;
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int md_len = 0;
  off_t done = 0;

  if (sha256_load (err) < 0)
    return -1;
  ctx = lc.ctx_new ();
  buf = malloc (HASH_CHUNK);
  if (ctx == NULL || buf == NULL)
    return kg_error (err, ENOMEM, "%s: cannot hash", name);
  if (lc.init (ctx, lc.sha256 (), NULL) != 1)
    return kg_error (err, 0, "%s: SHA-256 is not available from libcrypto", name);
  for (;;)
    {
      ssize_t n = pread (fd, buf, HASH_CHUNK, done);

      if (n < 0)
        {
          if (errno == EINTR)
            continue;
          return kg_error (err, errno, "%s: read", name);
        }
      if (n == 0)
        break;
      done += n;
      if (done > st->st_size)
        return kg_error (err, 0, "%s grew while it was read", name);
      if (lc.update (ctx, buf, (size_t) n) != 1)
        return kg_error (err, 0, "%s: SHA-256 failed", name);
    }
  if (done != st->st_size)
    return kg_error (err, 0, "%s shrank while it was read", name);
  if (lc.final (ctx, md, &md_len) != 1 || md_len != SHA256_LEN)
    return kg_error (err, 0, "%s: SHA-256 failed", name);
  for (unsigned i = 0; i < SHA256_LEN; i++)
    snprintf (hex + 2 * i, 3, "%02x", md[i]);
  return 0;
}
