/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The confined checker's wire format (checker.h; kata-guard(8), SECURITY,
 * Confinement): the report the child sends its parent.  Pure: bytes in,
 * bytes or a validated value out, no I/O.  The decoder is the one parser
 * on the privileged side, and reads what a compromised child could have
 * written.
 *
 * The report, in host byte order (both ends are this program):
 *   header  "KGCR" u8 version=1 u8 flags u16 0 u32 n_results u32 n_files u32 body_len
 *   result  u8 verdict u8 id_len u16 reason_len u16 remedy_len u8 has_remedy u8 0
 *           then id, reason, remedy (no NUL, no terminator)
 *   file    u16 len, then the path
 *   cache   (with CHECKER_FLAG_CACHE) u32 len, then the digest cache text
 */
#ifndef KG_CODEC_H
#define KG_CODEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "result.h"

#define CHECKER_VERSION 1
#define CHECKER_HEADER_LEN 20
#define CHECKER_RESULT_HEAD 8
#define CHECKER_MAX_RESULTS 128
#define CHECKER_MAX_FILES 64
#define CHECKER_ID_MAX 63
#define CHECKER_TEXT_MAX 2048  /* a reason or a remedy */
#define CHECKER_PATH_MAX 4096
#define CHECKER_MSG_MAX (1024 * 1024)

#define CHECKER_FLAG_FD 0x01   /* the runtime descriptor comes with it */
#define CHECKER_FLAG_OOM 0x02  /* the child's report was incomplete */
#define CHECKER_FLAG_CACHE 0x04  /* a digest cache for the parent to write */
#define CHECKER_FLAG_SANDBOX 0x08  /* the container is a pod sandbox (report.pod_sandbox) */
#define CHECKER_CACHE_MAX (64 * 1024)

/* ---- the report -------------------------------------------------------- */

/* Encode REP (what the child does).  Text longer than the bounds is cut. */
int checker_encode (const struct report *rep, bool with_fd, const char *cache, size_t cache_len,
                    unsigned char **buf, size_t *len, kg_error_t *err);
/* Validate and decode one whole message into REP (appending; an id REP
   already holds is refused).  *WANT_FD: the header says a descriptor
   comes with it; *CACHE (NUL-terminated, *CACHE_LEN bytes, or NULL): the
   digest cache it carries. */
int checker_decode (const unsigned char *buf, size_t len, struct report *rep, bool *want_fd,
                    char **cache, size_t *cache_len, kg_error_t *err);
/* Whether the LEN bytes at BUF begin with a header whose flags announce a
   descriptor (nothing else of it is checked: checker_decode does that). */
bool checker_header_wants_fd (const unsigned char *buf, size_t len);

/* What the decoder accepts, N bytes at S (no NUL needed). */
bool checker_id_valid (const char *s, size_t n);     /* a check id: [a-z][a-z0-9._-]* */
bool checker_text_valid (const char *s, size_t n);   /* a reason or remedy */
bool checker_path_valid (const char *s, size_t n);   /* a file the checks read */
bool checker_cache_valid (const char *s, size_t n);  /* the digest cache text */

#endif
