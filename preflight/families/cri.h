/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cri.handler: whether the node's running CRI serves the guard's runtime
 * handler with the Kata configuration the guard judges.  check_cri () is
 * the family (checks.h); the CRI is asked by the entry point
 * (cri_ask), since the confined checker runs no program and opens no
 * socket.
 */
#ifndef KG_CRI_H
#define KG_CRI_H

#include <stddef.h>

#include "result.h"

struct guard_config;

/* What the running CRI at [cri] endpoint said about its configuration. */
struct cri_answer
{
  /* containerd: `crictl --runtime-endpoint unix://SOCK info` (the CRI
     Status with verbose, whose info["config"] is the CRI plugin's
     running configuration as JSON), or NULL. */
  char *info;
  size_t info_len;
  /* CRI-O: its socket's HTTP GET /config (what `crio status config`
     prints: the running configuration as TOML), or NULL. */
  char *crio;
  size_t crio_len;
  char why[256]; /* why neither answered, when neither did */
};

/* Ask the CRI at CFG's [cri] endpoint (not asked when it is "").  *OUT is
   filled either way; cri_answer_release frees it. */
void cri_ask (const struct guard_config *cfg, struct cri_answer *out);
void cri_answer_release (struct cri_answer *a);

/* How long crictl, or CRI-O's /config, may take. */
#define CRI_ASK_TIMEOUT_MS 10000
/* The most either answer may hold. */
#define CRI_ANSWER_MAX (4u << 20)

/* The verdict of cri.handler on containerd's `crictl info` JSON (JSON,
   LEN bytes) or on CRI-O's running TOML: whether HANDLER is in the
   running configuration, starts the guard (runtime_type_is_guard,
   docker.h) and hands Kata KATA_FILE (the file the kata family judged,
   compared by inode; no path handed on: Kata's search order, which
   kata.config judged).  WHY (SIZE bytes) says why, for the report. */
enum verdict cri_judge_containerd (const char *json, size_t len, const char *handler,
                                   const char *kata_file, char *why, size_t size);
enum verdict cri_judge_crio (const char *toml, size_t len, const char *handler,
                             const char *kata_file, char *why, size_t size);

#endif
