/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * egress.*: the allowlist proxy, probed at every start.  check_egress () is
 * the family (checks.h); what is here is shared with the per-container
 * network check and the tests.
 */
#ifndef KG_EGRESS_H
#define KG_EGRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"

struct guard_config;

/* Parse the HTTP status line at the start of BUF (LEN bytes received so
   far), strictly: "HTTP/1." DIGIT SP 3DIGIT [SP reason] CRLF.  Returns 1
   when the line is complete and valid (*STATUS, and *LINE_LEN = its length
   with the CRLF), 0 when the bytes so far are a valid prefix (read more),
   -1 when they can never become a status line (*WHY says why). */
int egress_parse_status_line (const char *buf, size_t len, int *status, size_t *line_len,
                              const char **why);

/* Whether STATUS is one [egress] says a denying proxy answers
   (expect_status when set, else deny_statuses).  2xx never is. */
bool egress_denied_status (const struct guard_config *cfg, int status);

/* The host the probe asks for: [egress] probe_host, or a fresh random
   name under .invalid.  -1 (errno) when none can be made. */
int egress_probe_host (const struct guard_config *cfg, char *buf, size_t size);

/* Connect to the proxy SS (LEN bytes) and ask it to CONNECT HOST:443,
   all within TIMEOUT_MS: 0 with the answer's *STATUS, or -1 with ERR
   ((*err)->errnum: ECONNREFUSED, ETIMEDOUT...). */
struct sockaddr_storage;
int egress_probe (const struct sockaddr_storage *ss, unsigned len, const char *host,
                  int64_t timeout_ms, int *status, kg_error_t *err);

#endif
