/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The stdin runtime-options decoder (options.h) on hand-built protobuf:
 * containerd's runtime options and the shim bootstrap parameters.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "decision.h"
#include "error.h"
#include "exec.h"
#include "options.h"
#include "output.h"
#include "tap.h"
#include "wrapper.h"

/* ---- a tiny protobuf writer ---- */

struct pb
{
  unsigned char b[KG_OPTIONS_MAX + 64];
  size_t n;
};

static void
pb_byte (struct pb *p, unsigned c)
{
  if (p->n < sizeof p->b)
    p->b[p->n++] = (unsigned char) c;
}

static void
pb_varint (struct pb *p, uint64_t v)
{
  while (v >= 0x80)
    {
      pb_byte (p, (unsigned) (v & 0x7f) | 0x80);
      v >>= 7;
    }
  pb_byte (p, (unsigned) v);
}

static void
pb_bytes (struct pb *p, unsigned field, const void *data, size_t len)
{
  pb_varint (p, ((uint64_t) field << 3) | 2);
  pb_varint (p, len);
  for (size_t i = 0; i < len; i++)
    pb_byte (p, ((const unsigned char *) data)[i]);
}

static void
pb_str (struct pb *p, unsigned field, const char *s)
{
  pb_bytes (p, field, s, strlen (s));
}

/* Any{type_url, value = INNER} */
static void
pb_any (struct pb *out, const char *type_url, const struct pb *inner)
{
  out->n = 0;
  pb_str (out, 1, type_url);
  if (inner != NULL)
    pb_bytes (out, 2, inner->b, inner->n);
}

static const char RT[] = "runtimeoptions.v1.Options";

/* The start these options come with (-id, -namespace). */
static const char *start_id, *start_ns;

/* Decode; return the error message (static copy) or NULL. */
static const char *
decode (const void *buf, size_t len, struct runtime_options *o)
{
  static char msg[512];
  kg_error_t err = NULL;

  if (options_decode (buf, len, start_id, start_ns, o, &err) == 0)
    return NULL;
  snprintf (msg, sizeof msg, "%s", err ? err->msg : "(no message)");
  kg_error_release (&err);
  return msg;
}

static void
test_options (void)
{
  static struct pb in, any;
  struct runtime_options o;
  const char *e;

  /* empty: no options */
  e = decode ("", 0, &o);
  ok (e == NULL && o.kind == OPTIONS_NONE && o.type_url == NULL, "empty stdin: no options");

  /* a valid Any with runtimeoptions and config_path */
  in.n = 0;
  pb_str (&in, 2, "/etc/kata-containers/configuration-fc.toml");
  pb_any (&any, RT, &in);
  e = decode (any.b, any.n, &o);
  ok (e == NULL, "runtimeoptions with config_path decodes (%s)", e ? e : "ok");
  is_int (o.kind, OPTIONS_RUNTIME, "runtimeoptions: kind");
  is_str (o.config_path, "/etc/kata-containers/configuration-fc.toml",
          "runtimeoptions: config_path");
  is_str (o.type_url, RT, "runtimeoptions: type URL kept");
  options_release (&o);

  /* the type URL with a prefix, and the older cri package Kata reads too */
  pb_any (&any, "type.googleapis.com/runtimeoptions.v1.Options", &in);
  e = decode (any.b, any.n, &o);
  ok (e == NULL && o.kind == OPTIONS_RUNTIME && o.config_path != NULL,
      "type.googleapis.com/runtimeoptions.v1.Options is ours");
  options_release (&o);
  pb_any (&any, "cri.runtimeoptions.v1.Options", &in);
  e = decode (any.b, any.n, &o);
  ok (e == NULL && o.kind == OPTIONS_RUNTIME && o.config_path != NULL,
      "cri.runtimeoptions.v1.Options is ours");
  options_release (&o);
  pb_any (&any, "example.com/xruntimeoptions.v1.Options", &in);
  e = decode (any.b, any.n, &o);
  ok (e == NULL && o.kind == OPTIONS_OTHER && o.config_path == NULL,
      "a type that only ends like ours is not ours");
  options_release (&o);

  /* every field of Options, value before type_url */
  in.n = 0;
  pb_str (&in, 1, "io.containerd.kata.v2.Config");
  pb_str (&in, 2, "/k.toml");
  pb_bytes (&in, 3, "[hypervisor.qemu]\n", 18);
  any.n = 0;
  pb_bytes (&any, 2, in.b, in.n);
  pb_str (&any, 1, RT);
  e = decode (any.b, any.n, &o);
  ok (e == NULL, "type_url, config_path and config_body decode (%s)", e ? e : "ok");
  is_str (o.inner_type_url, "io.containerd.kata.v2.Config", "Options.type_url");
  is_str (o.config_path, "/k.toml", "config_path with config_body");
  is_int (o.config_body_len, 18, "config_body length");
  options_release (&o);

  /* runtimeoptions without a value, and with an empty config_path */
  pb_any (&any, RT, NULL);
  e = decode (any.b, any.n, &o);
  ok (e == NULL && o.kind == OPTIONS_RUNTIME && o.config_path == NULL,
      "runtimeoptions without a value: no config path");
  options_release (&o);
  in.n = 0;
  pb_str (&in, 2, "");
  pb_any (&any, RT, &in);
  e = decode (any.b, any.n, &o);
  ok (e == NULL && o.config_path == NULL, "an empty config_path is no config path");
  options_release (&o);

  /* runc's options: not ours, envelope only */
  in.n = 0;
  pb_str (&in, 2, "/usr/bin/runc"); /* BinaryName, field 2 of runc's Options */
  pb_varint (&in, (9 << 3) | 0);    /* SystemdCgroup = true */
  pb_varint (&in, 1);
  pb_any (&any, "containerd.runc.v1.Options", &in);
  e = decode (any.b, any.n, &o);
  ok (e == NULL && o.kind == OPTIONS_OTHER, "runc options: passed through (%s)", e ? e : "ok");
  ok (o.config_path == NULL, "runc options: no config path");
  is_str (o.type_url, "containerd.runc.v1.Options", "runc options: type URL noted");
  options_release (&o);

  /* truncated varint */
  e = decode ("\x0a\x80", 2, &o);
  has_str (e, "truncated varint", "a truncated varint is refused");
  e = decode ("\x0a", 1, &o);
  has_str (e, "truncated varint", "a tag without a length is refused");

  /* length past the end */
  e = decode ("\x0a\x05"
              "ab",
              4, &o);
  has_str (e, "runs past the end", "a length past the end is refused");

  /* wrong wire types */
  e = decode ("\x08\x01", 2, &o);
  has_str (e, "not a string", "type_url as a varint is refused");
  any.n = 0;
  pb_str (&any, 1, RT);
  pb_varint (&any, (2 << 3) | 5);
  for (int i = 0; i < 4; i++)
    pb_byte (&any, 0);
  e = decode (any.b, any.n, &o);
  has_str (e, "not bytes", "value as a fixed32 is refused");
  in.n = 0;
  pb_varint (&in, (2 << 3) | 0);
  pb_varint (&in, 7);
  pb_any (&any, RT, &in);
  e = decode (any.b, any.n, &o);
  has_str (e, "not a string", "config_path as a varint is refused");
  e = decode ("\x0b", 1, &o);
  has_str (e, "wire type 3", "a group (wire type 3) is refused");
  e = decode ("\x0e\x00", 2, &o);
  has_str (e, "wire type 6", "wire type 6 is refused");

  /* more than 64 KiB */
  {
    size_t big = KG_OPTIONS_MAX + 1;
    unsigned char *buf = calloc (1, big);

    e = decode (buf, big, &o);
    has_str (e, "more than the 65536 allowed", "more than 64 KiB is refused");
    free (buf);
  }
  /* exactly 64 KiB of well-formed options is fine */
  {
    static struct pb body;
    size_t want = KG_OPTIONS_MAX, pad;

    /* Any{1: RT, 2: Options{3: pad}}: find the pad that lands on WANT. */
    for (pad = want - 40; pad < want; pad++)
      {
        body.n = 0;
        pb_bytes (&body, 3, "", 0);
        body.n = 0;
        {
          unsigned char *z = calloc (1, pad);
          pb_bytes (&body, 3, z, pad);
          free (z);
        }
        pb_any (&any, RT, &body);
        if (any.n == want)
          break;
      }
    e = decode (any.b, any.n, &o);
    ok (any.n == want && e == NULL && o.config_body_len == pad,
        "exactly 64 KiB is accepted (%zu bytes, %s)", any.n, e ? e : "ok");
    options_release (&o);
  }

  /* field numbers out of range */
  e = decode ("\x02\x00", 2, &o);
  has_str (e, "field number 0", "field number 0 is refused");
  any.n = 0;
  pb_varint (&any, ((uint64_t) 1 << 29 << 3) | 2);
  pb_varint (&any, 0);
  e = decode (any.b, any.n, &o);
  has_str (e, "out of range", "field number 2^29 is refused");
  any.n = 0;
  pb_varint (&any, ((uint64_t) 1 << 40) | 2);
  pb_varint (&any, 0);
  e = decode (any.b, any.n, &o);
  has_str (e, "out of range", "a tag beyond 32 bits is refused");

  /* 10-byte varint overflow, and an 11-byte varint */
  e = decode ("\x0a\xff\xff\xff\xff\xff\xff\xff\xff\xff\x02", 11, &o);
  has_str (e, "overflows 64 bits", "a 10-byte varint that overflows is refused");
  e = decode ("\x0a\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80\x00", 12, &o);
  has_str (e, "overflows", "an 11-byte varint is refused");

  /* nested garbage */
  pb_any (&any, RT, NULL);
  pb_bytes (&any, 2, "\xff\xff\xff", 3);
  e = decode (any.b, any.n, &o);
  ok (e != NULL && strstr (e, "runtimeoptions.v1.Options") != NULL,
      "garbage inside runtimeoptions is refused (%s)", e ? e : "accepted");
  in.n = 0;
  pb_str (&in, 2, "/a");
  pb_str (&in, 4, "x");
  pb_any (&any, RT, &in);
  e = decode (any.b, any.n, &o);
  has_str (e, "unknown field 4", "an unknown field in Options is refused");
  any.n = 0;
  pb_str (&any, 1, RT);
  pb_str (&any, 3, "x");
  e = decode (any.b, any.n, &o);
  has_str (e, "unknown field 3", "an unknown field in the Any is refused");

  /* duplicates: proto's "last one wins" would let a second path hide */
  in.n = 0;
  pb_str (&in, 2, "/checked.toml");
  pb_str (&in, 2, "/used.toml");
  pb_any (&any, RT, &in);
  e = decode (any.b, any.n, &o);
  has_str (e, "given twice", "config_path given twice is refused");
  any.n = 0;
  pb_str (&any, 1, RT);
  pb_str (&any, 1, "containerd.runc.v1.Options");
  e = decode (any.b, any.n, &o);
  has_str (e, "given twice", "type_url given twice is refused");
  any.n = 0;
  pb_str (&any, 1, RT);
  pb_bytes (&any, 2, "", 0);
  pb_bytes (&any, 2, "", 0);
  e = decode (any.b, any.n, &o);
  has_str (e, "given twice", "value given twice is refused");

  /* strings: NUL, invalid UTF-8; no type URL */
  in.n = 0;
  pb_bytes (&in, 2, "/a\0b", 4);
  pb_any (&any, RT, &in);
  e = decode (any.b, any.n, &o);
  has_str (e, "NUL", "a NUL in config_path is refused");
  in.n = 0;
  pb_bytes (&in, 2, "/a\xc0\xaf", 4);
  pb_any (&any, RT, &in);
  e = decode (any.b, any.n, &o);
  has_str (e, "UTF-8", "an overlong UTF-8 form is refused");
  in.n = 0;
  pb_str (&in, 2, "/\xc3\xa9t\xc3\xa9.toml");
  pb_any (&any, RT, &in);
  e = decode (any.b, any.n, &o);
  ok (e == NULL && o.config_path && strcmp (o.config_path, "/\xc3\xa9t\xc3\xa9.toml") == 0,
      "valid UTF-8 in config_path is kept");
  options_release (&o);
  any.n = 0;
  pb_bytes (&any, 2, "", 0);
  e = decode (any.b, any.n, &o);
  has_str (e, "no type URL", "an Any without a type URL is refused");
}

/* ---- containerd's shim flags ---- */

static void
pb_bootstrap (struct pb *out, const char *id, const char *ns, const struct pb *const *exts,
              size_t n_ext)
{
  static struct pb ext;

  out->n = 0;
  pb_str (out, 1, id);
  pb_str (out, 2, ns);
  pb_varint (out, (3 << 3) | 0); /* log_level = DEBUG (-4): ten bytes */
  pb_varint (out, (uint64_t) (int64_t) -4);
  pb_str (out, 4, "v2.3.4");
  pb_str (out, 5, "/run/containerd/containerd.sock.ttrpc");
  pb_str (out, 6, "/run/containerd/containerd.sock");
  pb_str (out, 7, "/usr/bin/containerd");
  for (size_t i = 0; i < n_ext; i++)
    {
      ext.n = 0;
      pb_bytes (&ext, 1, exts[i]->b, exts[i]->n); /* Extension { Any value = 1; } */
      pb_bytes (out, 8, ext.b, ext.n);
    }
  pb_str (out, 9, "/run/containerd/s");
}

static void
test_bootstrap (void)
{
  static struct pb in, kata, runc, cri, boot;
  const struct pb *one[] = { &kata }, *runc_first[] = { &runc, &kata }, *two[] = { &kata, &kata };
  const struct pb *other[] = { &cri, &runc };
  struct runtime_options o;
  const char *e;

  in.n = 0;
  pb_str (&in, 2, "/opt/kata/share/defaults/kata-containers/configuration-fc.toml");
  pb_any (&kata, RT, &in);
  in.n = 0;
  pb_str (&in, 2, "/usr/bin/runc");
  pb_any (&runc, "containerd.runc.v1.Options", &in);
  pb_any (&cri, "containerd.io/cri.v1.PodSandboxConfig", NULL);
  start_id = "c1";
  start_ns = "k8s.io";

  pb_bootstrap (&boot, "c1", "k8s.io", one, 1);
  e = decode (boot.b, boot.n, &o);
  ok (e == NULL && o.bootstrap && o.kind == OPTIONS_RUNTIME,
      "BootstrapParams with Kata's options as an extension decode (%s)", e ? e : "ok");
  is_str (o.config_path, "/opt/kata/share/defaults/kata-containers/configuration-fc.toml",
          "BootstrapParams: the extension's config_path");
  is_str (o.type_url, RT, "BootstrapParams: the options' type URL");
  options_release (&o);

  pb_bootstrap (&boot, "c1", "k8s.io", runc_first, 2);
  e = decode (boot.b, boot.n, &o);
  ok (e == NULL && o.kind == OPTIONS_RUNTIME && o.config_path != NULL,
      "BootstrapParams: the runtimeoptions extension wins over another (%s)", e ? e : "ok");
  options_release (&o);

  pb_bootstrap (&boot, "c1", "k8s.io", other, 2);
  e = decode (boot.b, boot.n, &o);
  ok (e == NULL && o.kind == OPTIONS_OTHER && o.config_path == NULL,
      "BootstrapParams without runtimeoptions: passed through (%s)", e ? e : "ok");
  is_str (o.type_url, "containerd.io/cri.v1.PodSandboxConfig", "... the first extension is named");
  options_release (&o);

  pb_bootstrap (&boot, "c1", "k8s.io", NULL, 0);
  e = decode (boot.b, boot.n, &o);
  ok (e == NULL && o.bootstrap && o.kind == OPTIONS_NONE && o.type_url == NULL,
      "BootstrapParams without extensions: no options (%s)", e ? e : "ok");
  options_release (&o);

  pb_bootstrap (&boot, "c1", "k8s.io", two, 2);
  has_str (decode (boot.b, boot.n, &o), "two runtime options extensions",
           "BootstrapParams with two runtimeoptions extensions is refused");

  /* Another container's, or another namespace's: not this start's
     BootstrapParams, and not an Any either. */
  pb_bootstrap (&boot, "c2", "k8s.io", one, 1);
  has_str (decode (boot.b, boot.n, &o), "google.protobuf.Any",
           "BootstrapParams of another id is refused (read as an Any, which it is not)");
  pb_bootstrap (&boot, "c1", "default", one, 1);
  ok (decode (boot.b, boot.n, &o) != NULL, "BootstrapParams of another namespace is refused");

  /* Strict: a field unknown to kata-guard, a duplicate, a wrong wire type. */
  pb_bootstrap (&boot, "c1", "k8s.io", one, 1);
  pb_str (&boot, 10, "future");
  has_str (decode (boot.b, boot.n, &o), "field 10 at byte",
           "BootstrapParams with a field kata-guard does not know is refused");
  pb_bootstrap (&boot, "c1", "k8s.io", one, 1);
  pb_str (&boot, 4, "v2.3.5");
  has_str (decode (boot.b, boot.n, &o), "containerd_version (field 4) at byte",
           "a BootstrapParams field given twice is refused");
  has_str (decode (boot.b, boot.n, &o), "given twice", "... and said so");
  pb_bootstrap (&boot, "c1", "k8s.io", NULL, 0);
  pb_varint (&boot, (7 << 3) | 0);
  pb_varint (&boot, 1);
  has_str (decode (boot.b, boot.n, &o), "containerd_binary (field 7)",
           "a BootstrapParams string as a varint is refused");
  pb_bootstrap (&boot, "c1", "k8s.io", NULL, 0);
  in.n = 0;
  pb_str (&in, 2, "x");
  pb_bytes (&boot, 8, in.b, in.n);
  has_str (decode (boot.b, boot.n, &o), "is not its one value",
           "an extension that is not Extension {Any value = 1} is refused");
  pb_bootstrap (&boot, "c1", "k8s.io", NULL, 0);
  pb_bytes (&boot, 8, "", 0);
  has_str (decode (boot.b, boot.n, &o), "holds no value", "an empty extension is refused");
  in.n = 0;
  pb_str (&in, 4, "not a path");
  pb_any (&runc, RT, &in);
  {
    const struct pb *bad[] = { &runc };

    pb_bootstrap (&boot, "c1", "k8s.io", bad, 1);
    has_str (decode (boot.b, boot.n, &o), "unknown field 4",
             "runtimeoptions in an extension are read as strictly as on their own");
  }

  /* The bare Any still decodes with -id and -namespace known, and a bare
     Any whose type URL and value happen to be the id and namespace is what
     containerd's own shim library would take for BootstrapParams too. */
  pb_any (&boot, RT, &in);
  in.n = 0;
  pb_str (&in, 2, "/k.toml");
  pb_any (&boot, RT, &in);
  e = decode (boot.b, boot.n, &o);
  ok (e == NULL && ! o.bootstrap && o.kind == OPTIONS_RUNTIME,
      "a bare Any decodes as before with the start's id known (%s)", e ? e : "ok");
  options_release (&o);
  start_id = start_ns = NULL;
}

int
main (void)
{
  test_options ();
  test_bootstrap ();
  return tap_done ();
}
