/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The runtime wrapper's parsers and formatters on hand-built input: the
 * stdin runtime-options decoder (protobuf), containerd's shim flags and
 * runc's flags (Go's flag package), the refusal and log lines, and the
 * exec of a runtime descriptor (script and ELF, inherited descriptors).
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
#include "exec.h"
#include "options.h"
#include "output.h"
#include "tap.h"
#include "util.h"
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
  is_str (o.config_path, "/etc/kata-containers/configuration-fc.toml", "runtimeoptions: config_path");
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
  pb_str (&in, 2, "/usr/bin/runc");  /* BinaryName, field 2 of runc's Options */
  pb_varint (&in, (9 << 3) | 0);     /* SystemdCgroup = true */
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
  e = decode ("\x0a\x05" "ab", 4, &o);
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
test_shim_args (void)
{
  struct shim_args a;

  {
    char *v[] = { "containerd-shim-kata-guard-v2", "-namespace", "default", "-address",
                  "/run/containerd/containerd.sock", "-publish-binary", "/usr/bin/containerd",
                  "-id", "c1", "start", NULL };
    shim_parse_args (10, v, &a);
    ok (a.start && a.bad == NULL, "containerd's start arguments");
    is_str (a.ns, "default", "start: namespace");
    is_str (a.address, "/run/containerd/containerd.sock", "start: address");
    is_str (a.publish_binary, "/usr/bin/containerd", "start: publish-binary");
    is_str (a.id, "c1", "start: id");
    ok (! a.debug, "start: no -debug");
  }
  {
    char *v[] = { "x", "--namespace=k8s.io", "-id=c2", "-debug", "start", NULL };
    shim_parse_args (5, v, &a);
    ok (a.start && a.debug, "--flag=value, -flag=value and a bool flag");
    is_str (a.ns, "k8s.io", "--namespace=value");
    is_str (a.id, "c2", "-id=value");
  }
  {
    char *v[] = { "x", "-debug=false", "-id", "c", "start", NULL };
    shim_parse_args (5, v, &a);
    ok (a.start && ! a.debug, "-debug=false");
    char *w[] = { "x", "-debug=1", "-id", "c", "start", NULL };
    shim_parse_args (5, w, &a);
    ok (a.start && a.debug, "-debug=1");
  }
  {
    /* Go: a bool flag never takes the next argument. */
    char *v[] = { "x", "-id", "c", "-debug", "false", "start", NULL };
    shim_parse_args (6, v, &a);
    ok (! a.start && a.action && strcmp (a.action, "false") == 0,
        "-debug false: 'false' is the action word, as in Go");
  }
  {
    char *v[] = { "x", "-id", "-weird", "start", NULL };
    shim_parse_args (4, v, &a);
    ok (a.start && a.id && strcmp (a.id, "-weird") == 0, "a string flag takes the next argument");
  }
  {
    char *v[] = { "x", "-id", "a", "-id", "b", "start", NULL };
    shim_parse_args (6, v, &a);
    is_str (a.id, "b", "a repeated flag: the last wins, as in Go");
  }
  {
    char *v[] = { "x", "-id", "c", "--", "start", NULL };
    shim_parse_args (5, v, &a);
    ok (a.start, "-- ends the flags");
  }
  {
    char *v[] = { "x", "-id", "c", "delete", NULL };
    shim_parse_args (4, v, &a);
    ok (! a.start && a.action && strcmp (a.action, "delete") == 0, "delete is not a start");
  }
  {
    char *v[] = { "x", "-namespace", "n", "-id", "c", "-socket", "unix:///s", NULL };
    shim_parse_args (7, v, &a);
    ok (! a.start && a.action == NULL && a.bad == NULL, "the daemon form has no action");
    is_str (a.socket, "unix:///s", "-socket");
  }
  {
    char *v[] = { "x", "-v", NULL };
    shim_parse_args (2, v, &a);
    ok (a.version && ! a.start, "-v");
    char *w[] = { "x", "-info", NULL };
    shim_parse_args (2, w, &a);
    ok (a.info && ! a.start, "-info");
  }
  {
    char *v[] = { "x", "-id", "c", "-frob", "start", NULL };
    shim_parse_args (5, v, &a);
    ok (a.start && a.bad && strcmp (a.bad, "-frob") == 0, "an unknown flag on start: a start, marked bad");
    is_str (a.bad_why, "flag provided but not known", "unknown flag: why");
    char *w[] = { "x", "-frob", "-id", "c", "delete", NULL };
    shim_parse_args (5, w, &a);
    ok (! a.start && a.bad != NULL, "an unknown flag on delete: passed through");
  }
  {
    char *v[] = { "x", "-id", NULL };
    shim_parse_args (2, v, &a);
    ok (a.bad && strcmp (a.bad_why, "flag needs an argument") == 0, "a flag without its value");
    char *w[] = { "x", "---id", "c", "start", NULL };
    shim_parse_args (4, w, &a);
    ok (a.bad && a.start && strcmp (a.bad_why, "bad flag syntax") == 0, "---id: bad syntax");
    char *y[] = { "x", "-debug=maybe", "start", NULL };
    shim_parse_args (3, y, &a);
    ok (a.bad && a.start && strcmp (a.bad_why, "invalid boolean value") == 0, "-debug=maybe");
    char *z[] = { "x", "-h", NULL };
    shim_parse_args (2, z, &a);
    ok (a.bad && ! a.start, "-h is not a flag of the shim: passed through");
  }
  {
    char *v[] = { "x", "-", "start", NULL };
    shim_parse_args (3, v, &a);
    ok (! a.start && a.action && strcmp (a.action, "-") == 0, "'-' alone is the action word");
  }
}

/* ---- runc's flags ---- */

static void
test_oci_args (void)
{
  struct oci_args a;

  {
    char *v[] = { "kata-guard", "--root", "/run/docker/runtime-kata-guard/moby", "--log",
                  "/b/log.json", "--log-format", "json", "--systemd-cgroup", "create",
                  "--bundle", "/b", "--pid-file", "/b/init.pid", "--console-socket", "/s.sock",
                  "c1", NULL };
    oci_parse_args (16, v, &a);
    ok (a.guarded && a.bad == NULL, "containerd-shim-runc-v2's create");
    is_str (a.root, "/run/docker/runtime-kata-guard/moby", "--root");
    is_str (a.log, "/b/log.json", "--log");
    is_str (a.log_format, "json", "--log-format");
    ok (a.systemd_cgroup, "--systemd-cgroup");
    is_str (a.command, "create", "subcommand");
    is_str (a.bundle, "/b", "--bundle");
    is_str (a.pid_file, "/b/init.pid", "--pid-file");
    is_str (a.console_socket, "/s.sock", "--console-socket");
    is_str (a.id, "c1", "container id");
  }
  {
    char *v[] = { "kata-guard", "-root=/r", "-log", "/l", "run", "-b", "/bb", "c2", NULL };
    oci_parse_args (8, v, &a);
    ok (a.guarded && a.bad == NULL, "single-dash forms and run -b");
    is_str (a.root, "/r", "-root=value");
    is_str (a.bundle, "/bb", "-b");
    is_str (a.id, "c2", "run: container id");
  }
  {
    char *v[] = { "kata-guard", "create", "c3", "--bundle=/b3", NULL };
    oci_parse_args (4, v, &a);
    ok (a.guarded && a.bad == NULL && a.id && strcmp (a.id, "c3") == 0,
        "a flag after the id (urfave/cli reorders)");
    is_str (a.bundle, "/b3", "--bundle=value after the id");
  }
  {
    char *v[] = { "kata-guard", "run", "-d", "--keep", "c4", NULL };
    oci_parse_args (5, v, &a);
    ok (a.guarded && a.bad == NULL, "run -d --keep");
    char *w[] = { "kata-guard", "create", "-d", "c4", NULL };
    oci_parse_args (4, w, &a);
    ok (a.guarded && a.bad != NULL, "create has no -d: refused");
  }
  {
    char *v[] = { "kata-guard", "create", "--bundle", "/b", NULL };
    oci_parse_args (4, v, &a);
    ok (a.guarded && a.bad && strcmp (a.bad_why, "no container id") == 0, "create without an id");
    char *w[] = { "kata-guard", "create", "a", "b", NULL };
    oci_parse_args (4, w, &a);
    ok (a.guarded && a.bad && strcmp (a.bad, "b") == 0, "create with two ids");
    char *y[] = { "kata-guard", "create", "--frob", "c", NULL };
    oci_parse_args (4, y, &a);
    ok (a.guarded && a.bad && strcmp (a.bad, "--frob") == 0, "create with an unknown flag");
    char *z[] = { "kata-guard", "create", "--", "-odd", NULL };
    oci_parse_args (4, z, &a);
    ok (a.guarded && a.bad == NULL && a.id && strcmp (a.id, "-odd") == 0, "create -- -odd");
  }
  {
    char *v[] = { "kata-guard", "--frob", "create", "c", NULL };
    oci_parse_args (4, v, &a);
    ok (a.guarded && a.bad != NULL, "an unknown global flag before create: guarded, bad");
    char *w[] = { "kata-guard", "--frob", "kill", "c", NULL };
    oci_parse_args (4, w, &a);
    ok (! a.guarded && a.bad != NULL, "an unknown global flag before kill: passed through");
    char *y[] = { "kata-guard", "--log-format", NULL };
    oci_parse_args (2, y, &a);
    ok (a.bad && strcmp (a.bad_why, "flag needs an argument") == 0, "--log-format without a value");
  }
  {
    char *v[] = { "kata-guard", "--root", "/r", "kill", "c", "9", NULL };
    oci_parse_args (6, v, &a);
    ok (! a.guarded && a.command && strcmp (a.command, "kill") == 0, "kill passes through");
    char *w[] = { "kata-guard", "--root", "/r", "delete", "--force", "c", NULL };
    oci_parse_args (6, w, &a);
    ok (! a.guarded && a.bad == NULL, "delete --force passes through");
    char *y[] = { "kata-guard", "--version", NULL };
    oci_parse_args (2, y, &a);
    ok (a.version && a.command == NULL, "--version");
    char *z[] = { "kata-guard", "-v", NULL };
    oci_parse_args (2, z, &a);
    ok (a.version, "-v");
  }
}

/* ---- refusal, log lines, decision ---- */

static void
test_output (void)
{
  struct report r = { 0 };
  struct timespec ts = { 1700000000, 123456789 };
  char *s;

  report_pass (&r, "kvm.device", "fine");
  report_fail (&r, "kvm.open", "load kvm", "cannot open /dev/kvm: Permission denied");
  report_skip (&r, "kvm.api", "not run");
  report_fail (&r, "egress.proxy", NULL, "127.0.0.1:9 refused the connection\nsecond line");
  s = output_refusal (&r, "c1");
  is_str (s,
          "kata-guard: refusing to start container c1: kvm.open: cannot open /dev/kvm: Permission "
          "denied (remedy: load kvm); egress.proxy: 127.0.0.1:9 refused the connection?second "
          "line",
          "refusal: first failure with remedy, then the others, one line");
  free (s);

  /* Many long failures: bounded, and the rest counted. */
  {
    char longr[2000];

    memset (longr, 'x', sizeof longr - 1);
    longr[sizeof longr - 1] = '\0';
    for (int i = 0; i < 40; i++)
      {
        char id[32];

        snprintf (id, sizeof id, "fam.check%d", i);
        report_fail (&r, id, "remedy", "%s", longr);
      }
    s = output_refusal (&r, "c1");
    ok (s && strlen (s) <= KG_REFUSAL_MAX, "refusal: bounded (%zu bytes)", s ? strlen (s) : 0);
    ok (s && strstr (s, "more failed") != NULL, "refusal: what did not fit is counted");
    ok (s && strchr (s, '\n') == NULL, "refusal: one line");
    free (s);
  }
  report_release (&r);

  s = output_refusal (&r, NULL);
  has_str (s, "refusing to start container (no id): report:", "refusal: an empty report");
  free (s);

  s = output_runc_log ("kata-guard: refusing \"x\"", true, &ts);
  is_str (s, "{\"level\":\"error\",\"msg\":\"kata-guard: refusing \\\"x\\\"\",\"time\":\"2023-11-14T22:13:20Z\"}\n",
          "runc JSON log line");
  free (s);
  s = output_runc_log ("kata-guard: refusing \"x\"", false, &ts);
  is_str (s, "time=\"2023-11-14T22:13:20Z\" level=error msg=\"kata-guard: refusing \\\"x\\\"\"\n",
          "runc text log line");
  free (s);

  {
    struct report d_rep = { 0 };
    struct decision d = { 0 };
    json_object *o;

    report_add_file (&d_rep, "/etc/kata-guard/config.toml");
    report_add_file (&d_rep, "/opt/kata/configuration.toml");
    report_fail (&d_rep, "kvm.device", NULL, "missing");
    report_warn (&d_rep, "egress.enabled", NULL, "off");
    d.mode = KG_MODE_SHIM;
    d.ns = "default";
    d.container_id = "c9";
    d.rep = &d_rep;
    d.guard_config = "/etc/kata-guard/config.toml";
    d.message = "kata-guard: refusing";
    d.when = ts;
    s = output_decision_json (&d);
    o = s ? json_tokener_parse (s) : NULL;
    ok (o != NULL && s[strlen (s) - 1] == '\n' && strchr (s, '\n') == s + strlen (s) - 1,
        "decision: one JSON line");
    if (o != NULL)
      {
        json_object *v;

        ok (json_object_object_get_ex (o, "time", &v)
                && strcmp (json_object_get_string (v), "2023-11-14T22:13:20.123Z") == 0,
            "decision: time with milliseconds, UTC");
        ok (json_object_object_get_ex (o, "verdict", &v)
                && strcmp (json_object_get_string (v), "refuse") == 0,
            "decision: verdict");
        ok (json_object_object_get_ex (o, "failed", &v) && json_object_array_length (v) == 1
                && strcmp (json_object_get_string (json_object_array_get_idx (v, 0)), "kvm.device") == 0,
            "decision: failing ids");
        ok (json_object_object_get_ex (o, "kata_config", &v)
                && strcmp (json_object_get_string (v), "/opt/kata/configuration.toml") == 0,
            "decision: the Kata config is the second file");
        ok (json_object_object_get_ex (o, "mode", &v) && strcmp (json_object_get_string (v), "shim") == 0
                && json_object_object_get_ex (o, "namespace", &v)
                && json_object_object_get_ex (o, "container", &v)
                && json_object_object_get_ex (o, "config", &v),
            "decision: mode, namespace, container, config");
        json_object_put (o);
      }
    free (s);
    s = output_decision_syslog (&d);
    is_str (s,
            "verdict=refuse mode=shim namespace=default container=c9 failed=kvm.device "
            "warnings=egress.enabled kata_config=/opt/kata/configuration.toml "
            "config=/etc/kata-guard/config.toml message=\"kata-guard: refusing\"",
            "decision: syslog line");
    free (s);
    report_release (&d_rep);
  }
}

/* ---- exec of a descriptor ---- */

static char dir[] = "/tmp/kg-test-exec.XXXXXX";

static void
write_file (const char *path, const char *text, mode_t mode)
{
  int fd = open (path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

  if (fd < 0 || write (fd, text, strlen (text)) != (ssize_t) strlen (text))
    abort ();
  close (fd);
  chmod (path, mode);
}

/* In a child with only 0, 1, 2 open (stdout to OUT): note them, leak a
   descriptor without O_CLOEXEC (as a careless library would), exec PATH
   through an O_PATH descriptor with ARGV.  Returns the child's exit
   status. */
static int
run_exec (const char *path, char **argv, const char *out, int *runtime_fd)
{
  pid_t pid;
  int st;
  int pipefd[2];

  if (pipe (pipefd) < 0)
    abort ();
  pid = fork ();
  if (pid == 0)
    {
      kg_error_t err = NULL;
      int leak, fd;

      close (pipefd[0]);
      fd = open (out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
      if (fd < 0 || dup2 (fd, 1) < 0)
        _exit (96);
      dup2 (pipefd[1], 9);
      syscall (SYS_close_range, 3, 8, 0);
      syscall (SYS_close_range, 10, ~0U, 0);
      exec_note_inherited ();
      leak = open ("/dev/null", O_RDONLY); /* no O_CLOEXEC on purpose */
      fd = open (path, O_PATH | O_CLOEXEC);
      if (write (9, &fd, sizeof fd) != sizeof fd)
        _exit (97);
      close (9);
      (void) leak;
      exec_runtime (fd, argv, &err);
      _exit (98);
    }
  close (pipefd[1]);
  if (read (pipefd[0], runtime_fd, sizeof *runtime_fd) != sizeof *runtime_fd)
    *runtime_fd = -1;
  close (pipefd[0]);
  waitpid (pid, &st, 0);
  return WIFEXITED (st) ? WEXITSTATUS (st) : 128 + WTERMSIG (st);
}

static char *
slurp (const char *path)
{
  kg_error_t err = NULL;
  char *buf = NULL;
  size_t len;

  if (kg_read_file_bounded (path, 0, 65536, &buf, &len, &err) < 0)
    {
      kg_error_release (&err);
      return NULL;
    }
  return buf;
}

static void
test_exec (void)
{
  char script[256], out[256], text[1024];
  char *buf;
  int fd, status;

  if (mkdtemp (dir) == NULL)
    abort ();
  snprintf (script, sizeof script, "%s/runtime.sh", dir);
  snprintf (out, sizeof out, "%s/out", dir);

  /* exec_is_script */
  {
    bool is = false;
    kg_error_t err = NULL;

    write_file (script, "#!/bin/sh\n", 0755);
    fd = open (script, O_PATH | O_CLOEXEC);
    ok (exec_is_script (fd, &is, &err) == 0 && is, "a #! file is a script");
    close (fd);
    fd = open ("/bin/sh", O_PATH | O_CLOEXEC);
    ok (exec_is_script (fd, &is, &err) == 0 && ! is, "/bin/sh is not a script");
    close (fd);
    kg_error_release (&err);
  }

  /* An ELF runtime: exactly 0, 1, 2 (ls runs in a child of the shell,
     so the listing is of the shell's descriptors alone). */
  {
    char cmd[64];
    char *argv[] = { "/bin/sh", "-c", cmd, NULL };
    int rfd;

    /* No redirection in the shell: dash keeps a saved copy of a
       redirected descriptor open. */
    snprintf (cmd, sizeof cmd, "ls /proc/$$/fd");
    status = run_exec ("/bin/sh", argv, out, &rfd);
    is_int (status, 0, "an ELF runtime runs through its descriptor");
    buf = slurp (out);
    is_str (buf, "0\n1\n2\n", "an ELF runtime inherits exactly 0, 1, 2 (not its own fd, not a leak)");
    free (buf);
  }

  /* A script runtime: its descriptor stays open for the interpreter. */
  {
    char *argv[] = { "/configured/runtime", "-namespace", "n", "start", NULL };
    int rfd = -1;

    write_file (script, "#!/bin/sh\necho \"$0 $*\"\nls -l /proc/$$/fd\n", 0755);
    status = run_exec (script, argv, out, &rfd);
    is_int (status, 0, "a #! runtime runs through its descriptor");
    buf = slurp (out);
    snprintf (text, sizeof text, "/dev/fd/%d -namespace n start\n", rfd);
    /* Valgrind emulates execveat with execve of the resolved path, so
       there the script sees its real name. */
    if (getenv ("LD_PRELOAD") != NULL && strstr (getenv ("LD_PRELOAD"), "vgpreload") != NULL)
      ok (true, "the script gets /dev/fd/N # SKIP valgrind emulates execveat by path");
    else if (! ok (buf && strncmp (buf, text, strlen (text)) == 0,
                   "the script gets /dev/fd/N (its descriptor) and the arguments"))
      printf ("#   got: %.200s\n", buf ? buf : "(nothing)");
    /* Apart from the script itself (the descriptor and the interpreter's
       own copy), exactly 0, 1, 2. */
    {
      char fds[64] = "";
      char *line, *save = NULL;
      bool own = false;

      for (line = buf ? strtok_r (buf, "\n", &save) : NULL; line; line = strtok_r (NULL, "\n", &save))
        {
          char *arrow = strstr (line, " -> ");
          char *num;

          if (arrow == NULL)
            continue;
          *arrow = '\0';
          num = strrchr (line, ' ');
          if (num == NULL)
            continue;
          if (strcmp (arrow + 4, script) == 0)
            {
              own |= atoi (num + 1) == rfd;
              continue;
            }
          if (strlen (fds) + strlen (num) < sizeof fds)
            strcat (fds, num);
        }
      is_str (fds, " 0 1 2", "a script runtime inherits 0, 1, 2 and its own descriptor only");
      ok (own, "the script's descriptor %d is open in the interpreter", rfd);
    }
    free (buf);
  }

  /* A failing exec returns with an error. */
  {
    kg_error_t err = NULL;
    char *argv[] = { "x", NULL };

    write_file (script, "not an executable format\n", 0755);
    fd = open (script, O_PATH | O_CLOEXEC);
    ok (exec_runtime (fd, argv, &err) < 0 && err && strstr (err->msg, "execveat x") != NULL,
        "an exec that fails returns an error (%s)", err ? err->msg : "none");
    close (fd);
    kg_error_release (&err);
  }
  unlink (script);
  unlink (out);
  rmdir (dir);
}

/* containerd 2.3's BootstrapParams, from the field numbers of
   api/runtime/bootstrap/v1/bootstrap.proto. */
static void
pb_bootstrap (struct pb *out, const char *id, const char *ns, const struct pb *const *exts,
              size_t n_ext)
{
  static struct pb ext;

  out->n = 0;
  pb_str (out, 1, id);
  pb_str (out, 2, ns);
  pb_varint (out, (3 << 3) | 0);           /* log_level = DEBUG (-4): ten bytes */
  pb_varint (out, (uint64_t) (int64_t) -4);
  pb_str (out, 4, "v2.3.4");
  pb_str (out, 5, "/run/containerd/containerd.sock.ttrpc");
  pb_str (out, 6, "/run/containerd/containerd.sock");
  pb_str (out, 7, "/usr/bin/containerd");
  for (size_t i = 0; i < n_ext; i++)
    {
      ext.n = 0;
      pb_bytes (&ext, 1, exts[i]->b, exts[i]->n);  /* Extension { Any value = 1; } */
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
  test_shim_args ();
  test_oci_args ();
  test_output ();
  test_exec ();
  return tap_done ();
}
