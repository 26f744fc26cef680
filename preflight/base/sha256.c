/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * SHA-256 of a file through libcrypto's EVP interface (which uses the
 * CPU's SHA extensions where there are any), with libcrypto loaded on
 * first use instead of linked (lazylib.h): only starts with SHA-256 pins
 * need it.  Short texts are hashed here, without it (sha256_mem).
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "array.h"
#include "cleanup.h"
#include "error.h"
#include "lazylib.h"
#include "sha256.h"

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

/* ---- short texts, without libcrypto (FIPS 180-4, section 6.2) ------------ */

static const uint32_t k256[64] = {
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static uint32_t
ror (uint32_t x, int n)
{
  return (x >> n) | (x << (32 - n));
}

static void
block (uint32_t h[8], const unsigned char *p)
{
  uint32_t w[64], v[8];

  for (int i = 0; i < 16; i++)
    w[i] = (uint32_t) p[4 * i] << 24 | (uint32_t) p[4 * i + 1] << 16 | (uint32_t) p[4 * i + 2] << 8
           | p[4 * i + 3];
  for (int i = 16; i < 64; i++)
    {
      uint32_t s0 = ror (w[i - 15], 7) ^ ror (w[i - 15], 18) ^ (w[i - 15] >> 3);
      uint32_t s1 = ror (w[i - 2], 17) ^ ror (w[i - 2], 19) ^ (w[i - 2] >> 10);

      w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
  memcpy (v, h, sizeof v);
  for (int i = 0; i < 64; i++)
    {
      uint32_t t1 = v[7] + (ror (v[4], 6) ^ ror (v[4], 11) ^ ror (v[4], 25))
                    + ((v[4] & v[5]) ^ (~v[4] & v[6])) + k256[i] + w[i];
      uint32_t t2 = (ror (v[0], 2) ^ ror (v[0], 13) ^ ror (v[0], 22))
                    + ((v[0] & v[1]) ^ (v[0] & v[2]) ^ (v[1] & v[2]));

      memmove (v + 1, v, 7 * sizeof v[0]);
      v[4] += t1;
      v[0] = t1 + t2;
    }
  for (int i = 0; i < 8; i++)
    h[i] += v[i];
}

void
sha256_mem (const void *data, size_t len, unsigned char md[SHA256_LEN])
{
  uint32_t h[8] = { 0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                    0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19 };
  const unsigned char *p = data;
  unsigned char tail[128] = { 0 };
  size_t rest = len % 64, n_tail = rest < 56 ? 64 : 128;
  uint64_t bits = (uint64_t) len * 8;

  for (size_t i = 0; i + 64 <= len; i += 64)
    block (h, p + i);
  memcpy (tail, p + len - rest, rest);
  tail[rest] = 0x80;
  for (int i = 0; i < 8; i++)
    tail[n_tail - 1 - i] = (unsigned char) (bits >> (8 * i));
  for (size_t i = 0; i < n_tail; i += 64)
    block (h, tail + i);
  for (int i = 0; i < 8; i++)
    for (int j = 0; j < 4; j++)
      md[4 * i + j] = (unsigned char) (h[i] >> (24 - 8 * j));
}

void
sha256_hex (const unsigned char md[SHA256_LEN], char hex[SHA256_HEX_LEN + 1])
{
  static const char digits[] = "0123456789abcdef";

  for (size_t i = 0; i < SHA256_LEN; i++)
    {
      hex[2 * i] = digits[md[i] >> 4];
      hex[2 * i + 1] = digits[md[i] & 15];
    }
  hex[SHA256_HEX_LEN] = '\0';
}
