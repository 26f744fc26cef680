/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The engines' command lines (goflag.h): containerd's shim flags and
 * runc's flags, as Go's flag package reads them.
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
#include "goflag.h"
#include "options.h"
#include "output.h"
#include "tap.h"
#include "wrapper.h"
static void
test_shim_args (void)
{
  struct shim_args a;

  {
    char *v[] = { "containerd-shim-kata-guard-v2",
                  "-namespace",
                  "default",
                  "-address",
                  "/run/containerd/containerd.sock",
                  "-publish-binary",
                  "/usr/bin/containerd",
                  "-id",
                  "c1",
                  "start",
                  NULL };
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
    ok (a.start && a.bad && strcmp (a.bad, "-frob") == 0,
        "an unknown flag on start: a start, marked bad");
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
    char *v[] = { "kata-guard",
                  "--root",
                  "/run/docker/runtime-kata-guard/moby",
                  "--log",
                  "/b/log.json",
                  "--log-format",
                  "json",
                  "--systemd-cgroup",
                  "create",
                  "--bundle",
                  "/b",
                  "--pid-file",
                  "/b/init.pid",
                  "--console-socket",
                  "/s.sock",
                  "c1",
                  NULL };
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

int
main (void)
{
  test_shim_args ();
  test_oci_args ();
  return tap_done ();
}
