/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * SHA-256 of a file through libcrypto's EVP interface (which uses the
 * CPU's SHA extensions where there are any), with libcrypto loaded on
 * first use instead of linked: see sha256.h.
 */
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "sha256.h"
#include "util.h"

#define HASH_CHUNK (64 * 1024)

/* The six functions used, typed from libcrypto's own header. */
static struct
{
  int state;  /* 0 not tried, 1 loaded, -1 failed */
  char why[256];
  __typeof__ (&EVP_MD_CTX_new) ctx_new;
  __typeof__ (&EVP_MD_CTX_free) ctx_free;
  __typeof__ (&EVP_sha256) sha256;
  __typeof__ (&EVP_DigestInit_ex) init;
  __typeof__ (&EVP_DigestUpdate) update;
  __typeof__ (&EVP_DigestFinal_ex) final;
} lc;

static void *
sym (void *h, const char *name)
{
  void *p = dlsym (h, name);

  if (p == NULL && lc.why[0] == '\0')
    snprintf (lc.why, sizeof lc.why, "%s has no %s", KG_LIBCRYPTO_SONAME, name);
  return p;
}

int
sha256_load (kg_error_t *err)
{
  void *h;

  if (lc.state == 0)
    {
      lc.state = -1;
      /* Never unloaded (OpenSSL registers exit handlers). */
      h = dlopen (KG_LIBCRYPTO_SONAME, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
      if (h == NULL)
        {
          const char *e = dlerror ();

          snprintf (lc.why, sizeof lc.why, "cannot load %s: %s", KG_LIBCRYPTO_SONAME,
                    e ? e : "unknown error");
        }
      else
        {
          lc.ctx_new = sym (h, "EVP_MD_CTX_new");
          lc.ctx_free = sym (h, "EVP_MD_CTX_free");
          lc.sha256 = sym (h, "EVP_sha256");
          lc.init = sym (h, "EVP_DigestInit_ex");
          lc.update = sym (h, "EVP_DigestUpdate");
          lc.final = sym (h, "EVP_DigestFinal_ex");
          if (lc.why[0] == '\0')
            lc.state = 1;
        }
    }
  if (lc.state < 0)
    return kg_error (err, 0, "SHA-256 is not available: %s", lc.why);
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
