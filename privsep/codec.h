/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The confined checker's wire format (checker.h; kata-guard(8), SECURITY,
 * Confinement): the report the child sends its parent, and the requests
 * it may send before it.  Pure: bytes in, bytes or a validated value out,
 * no I/O.  The decoders run on the privileged side and read what a
 * compromised child could have written.  They are not its only parsers
 * (checker.h says which others it runs): a decoded request is then checked
 * against this start's own spec, and a decoded cache against the files the
 * parent hashes itself, before the parent acts on it.
 *
 * The report, in host byte order (both ends are this program):
 *   header  "KGCR" u8 version=3 u8 flags u16 kata_file u32 n_results u32 n_files
 *           u32 body_len (kata_file: 1 + the index of the Kata configuration
 *           among the files, report.kata_file; 0: none)
 *   result  u8 verdict u8 id_len u16 reason_len u16 remedy_len u8 has_remedy
 *           u8 reach (result.h's enum reach, as the check was judged)
 *           then id, reason, remedy (no NUL, no terminator; strict UTF-8
 *           with no control byte but tab and newline, what is not written
 *           \xHH; at most CHECKER_TEXT_MAX bytes, a longer one cut on a
 *           character and ending in "...")
 *   file    u16 len, then the path
 *   cache   (with CHECKER_FLAG_CACHE) u32 len, then the digest cache text
 *   vm      (with CHECKER_FLAG_VM) u8 role u8 pod_len u16 0 i64 mem_mib
 *           i64 base_mib i64 add_mib, then the pod (report.vm): bounded
 *           sizes, the pod's id only for a member
 *
 * The requests, each "MAGIC u32 arg" and, for KGNN, a payload of ARG
 * bytes, answered before the next is read:
 *   "KGRQ" pid             readlink /proc/PID/exe (policy.hooks)
 *                          reply  i32 errno (0: ok) u32 len, then the target
 *   "KGNS" pid | k << 24   stat /proc/PID/ns/<engine_ns_proc_name (K)>
 *                          reply  i32 errno u64 st_dev u64 st_ino
 *   "KGNN" len             then struct netns_request (LEN is its size):
 *                          netns_gather of a process's or a path's namespace
 *                          reply  i32 errno, then struct netns_facts
 */
#ifndef KG_CODEC_H
#define KG_CODEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "netns.h"
#include "request-list.h"
#include "result.h"

#define CHECKER_VERSION 3
#define CHECKER_HEADER_LEN 20
#define CHECKER_RESULT_HEAD 8
#define CHECKER_MAX_RESULTS 128
#define CHECKER_MAX_FILES 64
#define CHECKER_ID_MAX 63
#define CHECKER_TEXT_MAX 16384 /* a reason or a remedy */
#define CHECKER_PATH_MAX 4096
#define CHECKER_MSG_MAX (1024 * 1024)

#define CHECKER_FLAG_FD 0x01      /* the runtime descriptor comes with it */
#define CHECKER_FLAG_OOM 0x02     /* the child's report was incomplete */
#define CHECKER_FLAG_CACHE 0x04   /* a digest cache for the parent to write */
#define CHECKER_FLAG_SANDBOX 0x08 /* the container is a pod sandbox (report.pod_sandbox) */
#define CHECKER_FLAG_VM 0x10      /* the VM policy.resources sized (report.vm) */
#define CHECKER_VM_MIB_MAX (INT64_C (1) << 40) /* a size beyond any host: not a size */
#define CHECKER_CACHE_MAX (64 * 1024)

/* ---- the report -------------------------------------------------------- */

/* Encode REP (what the child does).  Text longer than the bounds is cut. */
int checker_encode (const struct report *rep, bool with_fd, const char *cache, size_t cache_len,
                    unsigned char **buf, size_t *len, kg_error_t *err);
/* Validate and decode one whole message into REP (appending; an id REP
   already holds is refused).  *WANT_FD: the header says a descriptor
   comes with it; *CACHE (NUL-terminated, *CACHE_LEN bytes, or NULL): the
   digest cache it carries.  Refused, REP, *CACHE and *CACHE_LEN are as
   they were. */
int checker_decode (const unsigned char *buf, size_t len, struct report *rep, bool *want_fd,
                    char **cache, size_t *cache_len, kg_error_t *err);
/* Whether the LEN bytes at BUF begin with a header whose flags announce a
   descriptor (nothing else of it is checked: checker_decode does that). */
bool checker_header_wants_fd (const unsigned char *buf, size_t len);

/* What the decoder accepts, N bytes at S (no NUL needed). */
bool checker_id_valid (const char *s, size_t n);    /* a check id: [a-z][a-z0-9._-]* */
bool checker_text_valid (const char *s, size_t n);  /* a reason or remedy: UTF-8 */
bool checker_path_valid (const char *s, size_t n);  /* a file the checks read */
bool checker_cache_valid (const char *s, size_t n); /* the digest cache text */

/* ---- the requests ------------------------------------------------------ */

#define CHECKER_REQUEST_HEAD 8 /* magic, u32 arg */

/* A network namespace request: a process's namespace (pid), or a path,
   with what to probe from inside. */
struct netns_request
{
  uint32_t pid;
  char path[NETNS_PATH_MAX];
  struct netns_probe probe;
};

#define CHECKER_NETNS_REQUEST_LEN (CHECKER_REQUEST_HEAD + sizeof (struct netns_request))

/* The request kinds, one per row of request-list.h, in its order. */
enum checker_request_kind
{
#define CHECKER_REQ_ENUM(KIND, NAME, MAGIC, MEMBER, RET, PARAMS, ASKS, REPLY) CHECKER_REQ_##KIND,
  KG_REQUESTS (CHECKER_REQ_ENUM)
#undef CHECKER_REQ_ENUM
      CHECKER_REQ_KINDS
};

/* Each kind's magic, the first 4 bytes of its request (the wire has no
   NUL; the array keeps the one the row's string literal brings, which
   GCC 15 would otherwise warn is cut), from its row. */
extern const char checker_request_magic[CHECKER_REQ_KINDS][5];

/* One request as the parent answers it. */
struct checker_request
{
  enum checker_request_kind kind;
  size_t len;                 /* the bytes it took */
  uint32_t pid;               /* EXE, NS; NETNS: netns.pid */
  const char *ns_name;        /* NS: the namespace's name under /proc/PID/ns */
  struct netns_request netns; /* NETNS: as sent */
};

/* The child's side: a request into OUT (CHECKER_REQUEST_HEAD bytes, or
   CHECKER_NETNS_REQUEST_LEN for NETNS, the padding zeroed); -1 with
   errno EINVAL for arguments no request can carry. */
int checker_request_exe (unsigned long pid, unsigned char *out);
int checker_request_ns (unsigned long pid, int k, unsigned char *out);
int checker_request_netns (unsigned long pid, const char *path, const struct netns_probe *probe,
                           unsigned char *out);
/* The status of the thin pool the parent's own [storage] containerd_config
   names: no argument (the u32 is 0), so the child cannot name a device. */
int checker_request_pool (unsigned char *out);

/* ---- the replies ---- */

/* Every reply the parent writes is an errno (int32, 0: answered) and a
   body: of a fixed size the request kind says, or (COUNTED) a uint32
   length and that many bytes.  The parent writes it with
   checker_reply_send; the child reads it with checker_reply_read, which
   takes at most MAX bytes of a counted body (*N: how many came) and
   fails on a reply that does not hold.  Both return 0, or -1 with errno
   (EIO for a reply cut short or too long). */
int checker_reply_send (int sock, int32_t e, const void *body, size_t n, bool counted);
int checker_reply_read (int sock, int32_t *e, void *body, size_t max, size_t *n, bool counted);

/* The body of a reply to an NS request: the namespace's identity. */
struct checker_ns_reply
{
  uint64_t dev, ino;
};

#endif
