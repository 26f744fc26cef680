/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The runtime options containerd writes to a shim's stdin on `start`.
 * containerd 1.6 to 2.2: a protobuf google.protobuf.Any {type_url = 1,
 * value = 2}.  containerd 2.3 and later: a containerd.runtime.bootstrap.v1
 * BootstrapParams {instance_id = 1, namespace = 2, log_level = 3,
 * containerd_version = 4, containerd_ttrpc_address = 5,
 * containerd_grpc_address = 6, containerd_binary = 7, repeated Extension
 * extensions = 8 (Extension {Any value = 1}), socket_dir = 9}, the options
 * Any being one of its extensions.  When the Any's type is
 * runtimeoptions.v1.Options {type_url = 1, config_path = 2,
 * config_body = 3}, config_path names the Kata configuration the real
 * shim will load, so that is the file to check.
 *
 * The reader is bounded and strict: anything that is not exactly such a
 * message (a bad or overlong varint, a length past the end, a wrong wire
 * type, a field number out of range or unknown, a field given twice, a
 * string that is not UTF-8 or holds a NUL, two runtimeoptions extensions)
 * is an error, never a guess.  Options of another type (runc's, for a runc
 * shim) are not ours to judge: only their envelope is read.
 */
#ifndef KG_OPTIONS_H
#define KG_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"

/* More than this on stdin refuses the start, and so does a stdin that is
   not closed within KG_OPTIONS_DEADLINE_MS. */
#define KG_OPTIONS_MAX (64 * 1024)
#define KG_OPTIONS_DEADLINE_MS 10000

enum options_kind
{
  OPTIONS_NONE,    /* no bytes at all: no options configured */
  OPTIONS_RUNTIME, /* runtimeoptions.v1.Options (or cri.runtimeoptions.v1.Options) */
  OPTIONS_OTHER,   /* another message type: passed through unread */
};

struct runtime_options
{
  enum options_kind kind;
  char *type_url; /* the Any's type URL; NULL for OPTIONS_NONE */
  /* OPTIONS_RUNTIME only: */
  char *inner_type_url;   /* Options.type_url (the config's format), or NULL */
  char *config_path;      /* Options.config_path, or NULL when absent or empty */
  size_t config_body_len; /* Options.config_body: its length (the bytes are not kept) */
  bool bootstrap;         /* they came in a BootstrapParams (containerd 2.3 and later) */
};

/* Decode BUF[0..LEN) into *OUT.  ID and NS are the start's -id and
   -namespace (or NULL): the bytes are a BootstrapParams when its
   instance_id and namespace are exactly those, else a bare Any.  On error
   *OUT holds nothing to release and *ERR says what is wrong and where
   (byte offset). */
int options_decode (const void *buf, size_t len, const char *id, const char *ns,
                    struct runtime_options *out, kg_error_t *err);
void options_release (struct runtime_options *o);

/* What a shim's `start` printed, read as containerd 2.3's protobuf
   BootstrapResult {int32 version = 1, string address = 2, string
   protocol = 3, repeated Capability capabilities = 4, map metadata = 5}:
   0 and *VERSION when it is one (with an address), -1 when not. */
int options_result_version (const void *buf, size_t len, int64_t *version);

#endif
