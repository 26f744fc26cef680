/* SPDX-License-Identifier: GPL-2.0-or-later */
/* netns_judge on crafted facts: route types as Kata reads them, the
   allowed networks by default, the namespace's owner and path (the real
   namespaces are in tests/netns.test). */
#include "config.h"

#include <arpa/inet.h>
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#include <errno.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <net/if_arp.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "array.h"
#include "buf.h"
#include "netns.h"
#include "nspin.h"
#include "tap.h"

static struct netns_facts facts;
static struct sockaddr_storage proxy;

/* What the gatherer says of the host's own namespace under a trusted
   path. */
static void
trusted (void)
{
  facts.owner_error = 0;
  facts.owner_uid = 0;
  facts.owner_initial = true;
  facts.untrusted[0] = '\0';
}

static void
put_ip (uint8_t family, const char *s, uint8_t out[16])
{
  memset (out, 0, 16);
  if (inet_pton (family, s, out) != 1)
    {
      printf ("Bail out! bad address %s\n", s);
      exit (2);
    }
}

static void
set_proxy (uint8_t family, const char *s)
{
  memset (&proxy, 0, sizeof proxy);
  proxy.ss_family = family;
  if (family == AF_INET)
    put_ip (family, s, (uint8_t *) &((struct sockaddr_in *) &proxy)->sin_addr);
  else
    put_ip (family, s, (uint8_t *) &((struct sockaddr_in6 *) &proxy)->sin6_addr);
}

static void
add_link (int32_t index, const char *name, uint32_t flags)
{
  struct netns_link *l = &facts.links[facts.n_links++];

  l->index = index;
  snprintf (l->name, sizeof l->name, "%s", name);
  l->flags = flags;
  l->type = flags & IFF_LOOPBACK ? ARPHRD_LOOPBACK : ARPHRD_ETHER;
}

static void
add_addr (int32_t index, uint8_t family, const char *a, uint8_t prefix)
{
  struct netns_addr *x = &facts.addrs[facts.n_addrs++];

  x->index = index;
  x->family = family;
  x->prefix = prefix;
  put_ip (family, a, x->addr);
}

/* A route of TYPE in TABLE to DST/LEN (via GW when not NULL) on OIF. */
static void
add_route (uint8_t type, uint32_t table, uint8_t family, const char *dst, uint8_t len,
           const char *gw, int32_t oif)
{
  struct netns_route *r = &facts.routes[facts.n_routes++];

  memset (r, 0, sizeof *r);
  r->family = family;
  r->type = type;
  r->table = table;
  r->dst_len = len;
  r->oif = oif;
  put_ip (family, dst, r->dst);
  if (gw != NULL)
    {
      put_ip (family, gw, r->gw);
      r->has_gw = true;
    }
}

/* The namespace tests/netns.test makes: lo, a0 with 10.254.7.3/24 (and
   2001:db8:7::3/64), the kernel's routes, the proxy at 10.254.7.2. */
static void
contained (void)
{
  memset (&facts, 0, sizeof facts);
  trusted ();
  add_link (1, "lo", IFF_LOOPBACK | IFF_UP);
  add_link (2, "a0", IFF_UP);
  add_addr (1, AF_INET, "127.0.0.1", 8);
  add_addr (2, AF_INET, "10.254.7.3", 24);
  add_addr (2, AF_INET6, "fe80::1", 64);
  add_route (RTN_UNICAST, RT_TABLE_MAIN, AF_INET, "10.254.7.0", 24, NULL, 2);
  add_route (RTN_LOCAL, RT_TABLE_LOCAL, AF_INET, "10.254.7.3", 32, NULL, 2);
  add_route (RTN_UNICAST, RT_TABLE_MAIN, AF_INET6, "fe80::", 64, NULL, 2);
  add_route (RTN_MULTICAST, RT_TABLE_LOCAL, AF_INET6, "ff00::", 8, NULL, 2);
  set_proxy (AF_INET, "10.254.7.2");
}

/* Judge the facts against NETS (space-separated CIDRs, or ""); the
   verdict, with the reasons in WHY. */
static int
judge (const char *nets, struct kg_buf *why)
{
  struct conf_net allowed[8];
  size_t n = 0;
  char buf[256], *save = NULL;
  struct kg_buf seen = { 0 };
  int rc;

  snprintf (buf, sizeof buf, "%s", nets);
  for (char *t = strtok_r (buf, " ", &save); t != NULL && n < 8; t = strtok_r (NULL, " ", &save))
    if (conf_parse_cidr (t, &allowed[n++]) < 0)
      printf ("Bail out! bad network %s\n", t);
  kg_buf_release (why);
  memset (why, 0, sizeof *why);
  rc = netns_judge (&facts, allowed, n, &proxy, why, &seen);
  kg_buf_release (&seen);
  return rc;
}

#define passes(nets, label)                                                                        \
  do                                                                                               \
    {                                                                                              \
      int _rc = judge (nets, &why);                                                                \
      if (! ok (_rc == 0, "%s: passes", label))                                                    \
        printf ("#   %s\n", sb_str (&why));                                                        \
    }                                                                                              \
  while (0)

#define refuses(nets, text, label)                                                                 \
  do                                                                                               \
    {                                                                                              \
      int _rc = judge (nets, &why);                                                                \
      ok (_rc < 0, "%s: refused", label);                                                          \
      has_str (sb_str (&why), text, "%s: says why", label);                                        \
    }                                                                                              \
  while (0)

static struct kg_buf why;

static void
test_baseline (void)
{
  contained ();
  passes ("", "contained, allowed networks from the proxy's interface");
  passes ("10.254.7.0/24", "contained, [egress] networks");
}

/* Kata hands the VM every route of the main table on the interfaces it
   takes, as destination, gateway and scope: a type changes nothing. */
static void
test_route_types (void)
{
  static const struct
  {
    uint8_t type;
    const char *name;
  } kinds[] = {
    { RTN_MULTICAST, "multicast" },
    { RTN_BROADCAST, "broadcast" },
    { RTN_ANYCAST, "anycast" },
    { RTN_LOCAL, "local" },
    { RTN_NAT, "nat" },
    { RTN_UNICAST, "unicast" },
    { RTN_UNSPEC, "unspec" },
    { RTN_XRESOLVE, "xresolve" },
  };
  char label[96];

  for (size_t i = 0; i < ARRAY_SIZE (kinds); i++)
    {
      contained ();
      add_route (kinds[i].type, RT_TABLE_MAIN, AF_INET, "0.0.0.0", 0, "10.254.7.1", 2);
      snprintf (label, sizeof label, "%s default route via a gateway", kinds[i].name);
      refuses ("", "default route via 10.254.7.1 on a0", label);

      contained ();
      add_addr (2, AF_INET6, "2001:db8:7::3", 64);
      add_route (RTN_UNICAST, RT_TABLE_MAIN, AF_INET6, "2001:db8:7::", 64, NULL, 2);
      add_route (kinds[i].type, RT_TABLE_MAIN, AF_INET6, "::", 0, "2001:db8:7::1", 2);
      snprintf (label, sizeof label, "IPv6 %s default route via a gateway", kinds[i].name);
      refuses ("10.254.7.0/24 2001:db8:7::/64", "default route via 2001:db8:7::1 on a0", label);

      contained ();
      add_route (kinds[i].type, RT_TABLE_MAIN, AF_INET, "0.0.0.0", 1, NULL, 2);
      snprintf (label, sizeof label, "%s on-link route to 0.0.0.0/1", kinds[i].name);
      refuses ("", "route to 0.0.0.0/1 on a0 outside the allowed networks", label);
    }
}

/* The types that drop traffic: IPv4 gives them no interface and IPv6
   loopback, so Kata (which takes an interface's routes) copies none;
   on a real interface they would count. */
static void
test_reject_types (void)
{
  static const uint8_t kinds[] = { RTN_BLACKHOLE, RTN_UNREACHABLE, RTN_PROHIBIT, RTN_THROW };

  for (size_t i = 0; i < ARRAY_SIZE (kinds); i++)
    {
      contained ();
      add_route (kinds[i], RT_TABLE_MAIN, AF_INET, "0.0.0.0", 0, NULL, 0);
      add_route (kinds[i], RT_TABLE_MAIN, AF_INET6, "::", 0, NULL, 1);
      passes ("", "a route that drops, on no interface or loopback");
      contained ();
      add_route (kinds[i], RT_TABLE_MAIN, AF_INET, "0.0.0.0", 1, NULL, 2);
      refuses ("", "route to 0.0.0.0/1 on a0", "a route that drops, on a0");
    }
  contained ();
  add_route (RTN_BLACKHOLE, RT_TABLE_MAIN, AF_INET, "0.0.0.0", 1, NULL, 9);
  refuses ("", "route to 0.0.0.0/1", "a route that drops, on an interface not seen");
}

static void
test_unknown_type (void)
{
  contained ();
  add_route (__RTN_MAX, RT_TABLE_MAIN, AF_INET, "192.0.2.0", 24, NULL, 2);
  refuses ("", "type", "a route type the judge does not know");
  contained ();
  add_route (200, RT_TABLE_MAIN, AF_INET6, "2001:db8:9::", 64, NULL, 2);
  refuses ("", "type 200", "IPv6, type 200");
  /* The local table is the kernel's and Kata never reads it. */
  contained ();
  add_route (200, RT_TABLE_LOCAL, AF_INET, "192.0.2.0", 24, NULL, 2);
  passes ("", "an unknown type in the local table");
}

/* IPv6 link-local and multicast destinations route nowhere, but only
   when the whole route is within them. */
static void
test_v6_local (void)
{
  contained ();
  add_route (RTN_UNICAST, RT_TABLE_MAIN, AF_INET6, "ff00::", 8, NULL, 2);
  add_route (RTN_UNICAST, RT_TABLE_MAIN, AF_INET6, "fe80::", 10, NULL, 2);
  passes ("", "routes within ff00::/8 and fe80::/10");
  contained ();
  add_route (RTN_UNICAST, RT_TABLE_MAIN, AF_INET6, "fe80::", 1, NULL, 2);
  refuses ("", "route to fe80::/1 on a0", "fe80::/1 (all of 8000::/1)");
  contained ();
  add_route (RTN_MULTICAST, RT_TABLE_MAIN, AF_INET6, "ff00::", 1, NULL, 2);
  refuses ("", "route to ff00::/1 on a0", "ff00::/1");
  contained ();
  add_addr (2, AF_INET6, "fe80::2", 1);
  refuses ("", "interface a0 has fe80::2/1", "a link-local address with a /1 prefix");
}

/* No [egress] networks: the network of the address that holds the
   proxy, not any route that holds it. */
static void
test_default_networks (void)
{
  contained ();
  add_route (RTN_UNICAST, RT_TABLE_MAIN, AF_INET, "0.0.0.0", 1, NULL, 2);
  refuses ("", "route to 0.0.0.0/1 on a0 outside the allowed networks", "on-link 0.0.0.0/1");
  contained ();
  add_route (RTN_UNICAST, RT_TABLE_MAIN, AF_INET, "10.0.0.0", 8, NULL, 2);
  refuses ("", "route to 10.0.0.0/8 on a0 outside", "on-link 10.0.0.0/8, wider than a0's /24");
  contained ();
  add_route (RTN_UNICAST, RT_TABLE_MAIN, AF_INET, "10.254.7.0", 25, NULL, 2);
  passes ("", "on-link 10.254.7.0/25, within a0's /24");
  /* A second, wider address that also holds the proxy (without its
     prefix route: the VM makes that route itself). */
  contained ();
  add_addr (2, AF_INET, "10.254.7.9", 1);
  refuses ("", "interface a0 has 10.254.7.9/1 outside the allowed networks",
           "a wider address on the proxy's network, no prefix route");
  refuses ("10.254.7.0/24", "interface a0 has 10.254.7.9/1 outside",
           "the same with [egress] networks");
  contained ();
  facts.addrs[1].prefix = 0;
  refuses ("", "10.254.7.3/0", "the proxy's address with a /0 prefix");
  refuses ("0.0.0.0/0", "10.254.7.3/0", "a /0 address even with networks 0.0.0.0/0");
  contained ();
  facts.addrs[1].prefix = 25;
  facts.addrs[1].addr[3] = 200;
  refuses ("", "no interface address holds the proxy 10.254.7.2",
           "the proxy on no address's network");
  /* The proxy's address on loopback is not the VM's network. */
  contained ();
  add_addr (1, AF_INET, "10.254.7.1", 24);
  facts.addrs[1].addr[2] = 8;
  refuses ("", "no interface address holds the proxy", "the proxy's network only on lo");
  /* An IPv6 proxy: the allowed network is a0's IPv6 one. */
  contained ();
  add_addr (2, AF_INET6, "2001:db8:7::3", 64);
  add_route (RTN_UNICAST, RT_TABLE_MAIN, AF_INET6, "2001:db8:7::", 64, NULL, 2);
  set_proxy (AF_INET6, "2001:db8:7::2");
  refuses ("", "interface a0 has 10.254.7.3/24 outside",
           "IPv6 proxy: a0's IPv4 address is outside");
  passes ("10.254.7.0/24 2001:db8:7::/64",
          "IPv6 proxy, both of a0's networks in [egress] networks");
  add_route (RTN_UNICAST, RT_TABLE_MAIN, AF_INET6, "2001:db8::", 32, NULL, 2);
  refuses ("10.254.7.0/24 2001:db8:7::/64", "route to 2001:db8::/32 on a0 outside",
           "IPv6: a route wider than a0's /64");
}

/* The namespace's owner and path, as the gatherer found them. */
static void
test_owner_and_path (void)
{
  contained ();
  facts.n_links = 1;
  facts.n_addrs = 1;
  facts.n_routes = 0;
  passes ("", "loopback only, the host's");
  facts.owner_initial = false;
  facts.owner_uid = 65534;
  refuses ("", "owned by a user namespace that uid 65534 created",
           "loopback only, owned by nobody's user namespace");
  facts.owner_uid = 0;
  refuses ("", "owned by a user namespace other than the host's",
           "loopback only, owned by another user namespace of root's");
  trusted ();
  facts.owner_error = EPERM;
  refuses ("", "its owner cannot be read", "an owner that cannot be read");
  trusted ();
  snprintf (facts.untrusted, sizeof facts.untrusted,
            "directory /run/x is owned by uid 65534, not root");
  refuses ("", "its path is not trusted: directory /run/x is owned by uid 65534",
           "an untrusted path");
  /* Whatever crossed the channel: no terminating NUL. */
  memset (facts.untrusted, 'x', sizeof facts.untrusted);
  refuses ("", "its path is not trusted: xxx", "an untrusted path without its NUL");
}

/* The remedy's commands (netns_route_fixes): one "ip route del" for each
   route the judge refuses whatever the networks, exact enough to run as
   written; whether anything is left for the judge to refuse; the
   namespace path and interface names quoted for a shell. */
static void
fixes (const char *ns, size_t want_n, const char *want, bool want_rest, const char *label)
{
  struct kg_buf cmds = { 0 };
  bool rest = false;
  size_t n = netns_route_fixes (&facts, NULL, 0, &proxy, ns, &cmds, &rest);

  ok (n == want_n, "%s: %zu command(s)", label, want_n);
  is_str (sb_str (&cmds), want, "%s: the commands", label);
  ok (rest == want_rest, "%s: %s", label, want_rest ? "something is left" : "nothing is left");
  kg_buf_release (&cmds);
}

static void
test_route_fixes (void)
{
  const char *ns = "/proc/42/ns/net";
  struct netns_route *r;

  contained ();
  fixes (ns, 0, "", false, "contained");
  add_route (RTN_UNICAST, RT_TABLE_MAIN, AF_INET, "0.0.0.0", 0, "10.254.7.1", 2);
  fixes (ns, 1, "nsenter --net=/proc/42/ns/net ip -4 route del default via 10.254.7.1 dev a0",
         false, "a default route (Docker 20.10's on an --internal network)");

  contained ();
  add_route (RTN_UNICAST, 100, AF_INET, "192.0.2.0", 24, "10.254.7.1", 2);
  add_route (RTN_MULTICAST, RT_TABLE_MAIN, AF_INET6, "::", 0, "fe80::1", 2);
  fixes (ns, 2,
         "nsenter --net=/proc/42/ns/net ip -4 route del 192.0.2.0/24 via 10.254.7.1 dev a0 "
         "table 100; nsenter --net=/proc/42/ns/net ip -6 route del default via fe80::1 dev a0",
         false, "a gateway route in table 100 and an IPv6 multicast default");

  /* Next hops elsewhere: no single gateway or interface to name. */
  contained ();
  add_route (RTN_UNICAST, RT_TABLE_MAIN, AF_INET, "0.0.0.0", 0, NULL, 0);
  r = &facts.routes[facts.n_routes - 1];
  r->multipath = r->has_gw = true;
  add_route (RTN_UNICAST, RT_TABLE_MAIN, AF_INET, "198.51.100.0", 24, NULL, 2);
  r = &facts.routes[facts.n_routes - 1];
  r->nh_id = 7;
  r->has_gw = true;
  fixes (ns, 2,
         "nsenter --net=/proc/42/ns/net ip -4 route del default; nsenter "
         "--net=/proc/42/ns/net ip -4 route del 198.51.100.0/24 dev a0",
         false, "a multipath default and a nexthop object");

  /* What drops traffic and has no interface is not handed over: nothing
     to delete.  On an interface it counts, and is named. */
  contained ();
  add_route (RTN_BLACKHOLE, RT_TABLE_MAIN, AF_INET, "0.0.0.0", 0, NULL, 0);
  fixes (ns, 0, "", false, "a blackhole default without an interface");
  add_route (RTN_UNREACHABLE, RT_TABLE_MAIN, AF_INET, "0.0.0.0", 0, NULL, 2);
  fixes (ns, 1, "nsenter --net=/proc/42/ns/net ip -4 route del default dev a0", false,
         "an unreachable default on a0");

  /* What deleting routes does not fix: a type not known here, an on-link
     route off the networks, another interface. */
  contained ();
  add_route (200, RT_TABLE_MAIN, AF_INET, "0.0.0.0", 0, "10.254.7.1", 2);
  fixes (ns, 0, "", true, "a default route of an unknown type");
  contained ();
  add_route (RTN_UNICAST, RT_TABLE_MAIN, AF_INET, "0.0.0.0", 1, NULL, 2);
  add_route (RTN_UNICAST, RT_TABLE_MAIN, AF_INET, "0.0.0.0", 0, "10.254.7.1", 2);
  fixes (ns, 1, "nsenter --net=/proc/42/ns/net ip -4 route del default via 10.254.7.1 dev a0", true,
         "a default route and an on-link 0.0.0.0/1");
  contained ();
  add_link (3, "x0", IFF_UP);
  fixes (ns, 0, "", true, "another interface");

  /* Root chose these names, but the remedy is pasted into a root shell. */
  contained ();
  add_link (3, "e;x'", IFF_UP);
  add_addr (3, AF_INET, "10.254.7.4", 24);
  add_route (RTN_UNICAST, RT_TABLE_MAIN, AF_INET, "0.0.0.0", 0, "10.254.7.1", 3);
  fixes ("/run/netns/a b", 1,
         "nsenter --net='/run/netns/a b' ip -4 route del default via 10.254.7.1 dev 'e;x'\\'''",
         false, "a path and an interface name a shell would read");

  /* Facts the judge cannot judge: nothing offered. */
  contained ();
  add_route (RTN_UNICAST, RT_TABLE_MAIN, AF_INET, "0.0.0.0", 0, "10.254.7.1", 2);
  facts.truncated = true;
  fixes (ns, 0, "", true, "truncated facts");
}

/* A namespace named by a process, pinned (nspin.h): it holds while the
   process lives in that namespace; a process that moved to another one
   (EXDEV), or that exited and was reaped (its pid no one's, or another
   process's), does not. */
static void
test_pins (void)
{
  int go[2], done[2];
  struct ns_pin pin;
  pid_t child;
  char c = 0;
  bool moved;

  ok (ns_pin_take (0, "uts", &pin, NULL) < 0 && errno == EINVAL, "pin: pid 0 refused");
  ok (ns_pin_take ((unsigned long) getpid (), "uts-long-name", &pin, NULL) < 0 && errno == EINVAL,
      "pin: a name too long refused");
  if (pipe (go) < 0 || pipe (done) < 0 || (child = fork ()) < 0)
    {
      ok (0, "pin: a child to pin");
      return;
    }
  if (child == 0)
    {
      /* Move to a uts namespace of its own when told, say whether it
         could, then wait to be killed. */
      if (read (go[0], &c, 1) == 1)
        c = unshare (CLONE_NEWUTS) == 0 ? 'y' : 'n';
      if (write (done[1], &c, 1) != 1)
        _exit (1);
      pause ();
      _exit (0);
    }
  ok (ns_pin_take ((unsigned long) child, "uts", &pin, NULL) == 0
          && pin.pid == (unsigned long) child && pin.start > 0,
      "pin: a live process's uts namespace, with its start time");
  ok (ns_pin_check (&pin) == 0, "pin: holds while the process is there, in that namespace");
  moved = write (go[1], "x", 1) == 1 && read (done[0], &c, 1) == 1 && c == 'y';
  if (moved)
    ok (ns_pin_check (&pin) < 0 && errno == EXDEV,
        "pin: the same process in another uts namespace: EXDEV");
  else
    printf ("ok %d # SKIP unshare(CLONE_NEWUTS) needs CAP_SYS_ADMIN\n", ++tap_count);
  kill (child, SIGKILL);
  waitpid (child, NULL, 0);
  ok (ns_pin_check (&pin) < 0 && errno != EXDEV, "pin: the process gone (reaped): refused");
  if (pin.pidfd >= 0)
    close (pin.pidfd);
  close (go[0]), close (go[1]), close (done[0]), close (done[1]);
}

int
main (void)
{
  test_pins ();
  test_baseline ();
  test_route_types ();
  test_reject_types ();
  test_unknown_type ();
  test_v6_local ();
  test_default_networks ();
  test_owner_and_path ();
  test_route_fixes ();
  kg_buf_release (&why);
  return tap_done ();
}
