/* SPDX-License-Identifier: GPL-2.0-or-later */
/* kata-guard prove's judging (verify/prove.c): each probe line against
   the host, each prove.* id failing where its lines are missing, cut
   short or malformed.  tests/prove.test runs real canaries. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prove.h"
#include "tap.h"

static const int64_t deny[] = { 403, 407 };
static const struct prove_host host = {
  .deny = deny,
  .n_deny = 2,
  .release = "6.1.0-host",
  .boot_id = "11111111-2222-3333-4444-555555555555",
  .init = "19 systemd",
  .outside = "198.51.100.7:80",
  .proxy = "127.0.0.1:8888",
};

/* What a runc canary (the host's kernel) in a contained namespace says. */
#define KERNEL_HOST                                                                                \
  "kg-probe 1\nkernel.release 6.1.0-host\nkernel.boot_id 11111111-2222-3333-4444-555555555555\n"   \
  "kernel.hypervisor yes\n"
#define KERNEL_VM                                                                                  \
  "kg-probe 1\nkernel.release 6.1.62-kata\nkernel.boot_id 99999999-2222-3333-4444-555555555555\n"  \
  "kernel.hypervisor yes\n"
#define HOSTFS "hostfs.marker absent\nhostfs.init 1 kata-guard-probe\n"
#define SOCKETS "socket /tmp/.X11-unix/X0\nkvm absent\n"
#define CONNECTS                                                                                   \
  "connect metadata 169.254.169.254:80 unreachable\nconnect private 10.0.0.1:22 timeout\n"         \
  "connect direct 198.51.100.7:80 unreachable\n"
#define FORWARD "forward none\n"
#define PROXY "proxy 127.0.0.1:8888 status 403\nend\n"

static const char *
verdict_of (const struct report *rep, const char *id)
{
  const struct check_result *r = report_find (rep, id);

  return r ? verdict_name (r->verdict) : "(none)";
}

/* Judge OUT; ID's verdict is WANT and its reason holds NEEDLE. */
static void
row (const char *name, const char *out, const char *id, const char *want, const char *needle)
{
  struct report rep = { 0 };
  const struct check_result *r;

  prove_judge (out, &host, &rep);
  r = report_find (&rep, id);
  if (! ok (r != NULL && strcmp (verdict_name (r->verdict), want) == 0
                && (needle == NULL || strstr (r->reason, needle) != NULL),
            "%s: %s %s%s%s", name, id, want, needle ? ", \"" : "", needle ? needle : ""))
    printf ("#   got %s: %s\n", verdict_of (&rep, id), r ? r->reason : "");
  ok (rep.n == 7, "%s: seven results", name);
  report_release (&rep);
}

int
main (void)
{
  static const char *const ids[] = { "prove.kernel",   "prove.hostfs", "prove.sockets",
                                     "prove.metadata", "prove.direct", "prove.forward",
                                     "prove.proxy" };
  const char *contained = KERNEL_HOST HOSTFS SOCKETS CONNECTS FORWARD PROXY;
  const char *vm = KERNEL_VM HOSTFS SOCKETS CONNECTS FORWARD PROXY;

  /* The stand-in runtime shares the host's kernel: exactly what prove
     exists to catch; everything else holds. */
  row ("runc canary", contained, "prove.kernel", "fail", "the host's own kernel");
  for (size_t i = 1; i < sizeof ids / sizeof ids[0]; i++)
    row ("runc canary, contained", contained, ids[i], "pass", NULL);
  row ("a VM", vm, "prove.kernel", "pass", "release 6.1.62-kata");
  row ("another kernel, no hypervisor flag",
       "kg-probe 1\nkernel.release 6.1\nkernel.boot_id 9\nkernel.hypervisor no\n" HOSTFS SOCKETS
           CONNECTS FORWARD PROXY,
       "prove.kernel", "fail", "not run under a hypervisor");
  /* Each hole. */
  row ("the marker seen",
       KERNEL_VM "hostfs.marker present\nhostfs.init 1 x\n" SOCKETS CONNECTS FORWARD PROXY,
       "prove.hostfs", "fail", "the marker");
  row ("the host's init",
       KERNEL_VM "hostfs.marker absent\nhostfs.init 19 systemd\n" SOCKETS CONNECTS FORWARD PROXY,
       "prove.hostfs", "fail", "the host's init");
  row ("Docker's socket",
       KERNEL_VM HOSTFS "socket /var/run/docker.sock\nkvm absent\n" CONNECTS FORWARD PROXY,
       "prove.sockets", "fail", "/var/run/docker.sock");
  row ("containerd's socket under another name",
       KERNEL_VM HOSTFS "socket /run/containerd/x\nkvm absent\n" CONNECTS FORWARD PROXY,
       "prove.sockets", "fail", "/run/containerd/x");
  row ("/dev/kvm", KERNEL_VM HOSTFS "kvm present\n" CONNECTS FORWARD PROXY, "prove.sockets", "fail",
       "/dev/kvm");
  row (
      "metadata answers",
      KERNEL_VM HOSTFS SOCKETS
      "connect metadata 169.254.169.254:80 connected\nconnect direct 198.51.100.7:80 refused\n" FORWARD
          PROXY,
      "prove.metadata", "fail", "169.254.169.254:80 connected");
  row ("a private host accepts and says nothing",
       KERNEL_VM HOSTFS SOCKETS
       "connect metadata 169.254.169.254:80 timeout\nconnect private 10.0.0.1:22 "
       "connected-silent\nconnect direct 198.51.100.7:80 refused\n" FORWARD PROXY,
       "prove.metadata", "fail", "10.0.0.1:22 connected-silent");
  row ("direct: accept-then-drop is a way out",
       KERNEL_VM HOSTFS SOCKETS
       "connect metadata 169.254.169.254:80 timeout\nconnect direct 198.51.100.7:80 "
       "connected-silent\n" FORWARD PROXY,
       "prove.direct", "fail", "completed (connected-silent)");
  row (
      "direct: refused is no way out",
      KERNEL_VM HOSTFS SOCKETS
      "connect metadata 169.254.169.254:80 timeout\nconnect direct 198.51.100.7:80 refused\n" FORWARD
          PROXY,
      "prove.direct", "pass", "did not complete (refused)");
  row ("forwarded by the host",
       KERNEL_VM HOSTFS SOCKETS CONNECTS "forward added 10.213.0.1 connected\n" PROXY,
       "prove.forward", "fail", "with 10.213.0.1 as its default gateway");
  row ("not forwarded",
       KERNEL_VM HOSTFS SOCKETS CONNECTS "forward added 10.213.0.1 timeout\n" PROXY,
       "prove.forward", "pass", "10.213.0.1");
  row ("forward: no CAP_NET_ADMIN",
       KERNEL_VM HOSTFS SOCKETS CONNECTS
       "forward cannot add a default route via 10.213.0.1: Operation not permitted\n" PROXY,
       "prove.forward", "fail", "not proven");
  row ("the proxy lets it through",
       KERNEL_VM HOSTFS SOCKETS CONNECTS FORWARD "proxy 127.0.0.1:8888 status 200\nend\n",
       "prove.proxy", "fail", "HTTP 200");
  row ("the proxy tried the name (an open tinyproxy)",
       KERNEL_VM HOSTFS SOCKETS CONNECTS FORWARD "proxy 127.0.0.1:8888 status 500\nend\n",
       "prove.proxy", "fail", "not a denial");
  row ("the proxy does not answer",
       KERNEL_VM HOSTFS SOCKETS CONNECTS FORWARD "proxy 127.0.0.1:8888 error refused\nend\n",
       "prove.proxy", "fail", "did not answer the canary: refused");
  /* The probe did not run (the guard refused the canary): every id fails;
     the first says once why, whole (a refusal of many reasons is long),
     with the engine call as run; the others name it and repeat nothing. */
  {
    static char says[2048];
    struct prove_host h = host;
    struct report rep = { 0 };
    const struct check_result *r;
    size_t n = 0;

    n += (size_t) snprintf (says, sizeof says,
                            "docker: Error response from daemon: kata-guard: "
                            "refusing to start container c1: ");
    for (int i = 0; i < 12; i++)
      n += (size_t) snprintf (says + n, sizeof says - n, "policy.rule%d: reason %d of many; ", i,
                              i);
    snprintf (says + n, sizeof says - n, "egress.netns: the last reason, whole.");
    h.engine_says = says;
    h.call = "docker run --rm --name kata-guard-prove-0 busybox:stable";
    prove_judge (says, &h, &rep);
    r = report_find (&rep, "prove.kernel");
    ok (r != NULL && r->verdict == VERDICT_FAIL && strstr (r->reason, "did not run")
            && strstr (r->reason, "egress.netns: the last reason, whole.")
            && strstr (r->reason, "policy.rule0: reason 0")
            && strstr (r->reason, "docker run --rm --name kata-guard-prove-0 busybox:stable"),
        "no probe output: prove.kernel fails with the engine's whole words and the call");
    for (size_t i = 1; i < sizeof ids / sizeof ids[0]; i++)
      {
        r = report_find (&rep, ids[i]);
        ok (r != NULL && r->verdict == VERDICT_FAIL && strstr (r->reason, "did not run")
                && strstr (r->reason, "prove.kernel") && ! strstr (r->reason, "policy.rule0")
                && ! strstr (r->reason, "docker run"),
            "no probe output: %s fails, naming prove.kernel and repeating nothing", ids[i]);
      }
    report_release (&rep);
  }
  /* Cut short after the kernel: the rest fail as ended early. */
  row ("cut short", KERNEL_VM, "prove.proxy", "fail", "ended early");
  row ("cut short", KERNEL_VM, "prove.kernel", "pass", NULL);
  row ("malformed forward", KERNEL_VM HOSTFS SOCKETS CONNECTS "forward added\n" PROXY,
       "prove.forward", "fail", "malformed");
  return tap_done ();
}
