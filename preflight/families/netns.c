/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * netns.*: a container's network namespace, read from inside (netns.h).
 *
 * The gatherer runs in a child that has entered the namespace with
 * setns(2): the kernel answers its netlink dumps (links, addresses,
 * routes) about that namespace only, and its TCP connection to the proxy
 * leaves from there, as the VM's traffic will.  The child parses nothing
 * but the kernel's netlink messages and the proxy's status line, and
 * hands the parent one fixed-size record through a pipe.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <linux/netlink.h>
#include <linux/nsfs.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <arpa/inet.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include "buf.h"
#include "cleanup.h"
#include "clock.h"
#include "egress.h"
#include "error.h"
#include "fdio.h"
#include "netns.h"
#include "trust.h"

#ifndef NSFS_MAGIC
#define NSFS_MAGIC 0x6e736673
#endif

/* ---- netlink, in the child ------------------------------------------- */

static void
add_link (const struct nlmsghdr *h, struct netns_facts *f)
{
  const struct ifinfomsg *ifi = NLMSG_DATA (h);
  int len = (int) h->nlmsg_len - NLMSG_LENGTH (sizeof *ifi);
  struct netns_link *l;

  if (len < 0)
    return;
  if (f->n_links >= NETNS_MAX_LINKS)
    {
      f->truncated = true;
      return;
    }
  l = &f->links[f->n_links++];
  memset (l, 0, sizeof *l);
  l->index = ifi->ifi_index;
  l->flags = ifi->ifi_flags;
  l->type = ifi->ifi_type;
  for (const struct rtattr *a = IFLA_RTA (ifi); RTA_OK (a, len); a = RTA_NEXT (a, len))
    if (a->rta_type == IFLA_IFNAME)
      snprintf (l->name, sizeof l->name, "%.*s", (int) RTA_PAYLOAD (a),
                (const char *) RTA_DATA (a));
}

static void
copy_addr (uint8_t out[16], const struct rtattr *a, uint8_t family)
{
  size_t n = family == AF_INET ? 4 : 16;

  memset (out, 0, 16);
  if (RTA_PAYLOAD (a) >= n)
    memcpy (out, RTA_DATA (a), n);
}

static void
add_addr (const struct nlmsghdr *h, struct netns_facts *f)
{
  const struct ifaddrmsg *ifa = NLMSG_DATA (h);
  int len = (int) h->nlmsg_len - NLMSG_LENGTH (sizeof *ifa);
  const struct rtattr *local = NULL, *address = NULL;
  struct netns_addr *x;

  if (len < 0 || (ifa->ifa_family != AF_INET && ifa->ifa_family != AF_INET6))
    return;
  for (const struct rtattr *a = IFA_RTA (ifa); RTA_OK (a, len); a = RTA_NEXT (a, len))
    if (a->rta_type == IFA_LOCAL)
      local = a;
    else if (a->rta_type == IFA_ADDRESS)
      address = a;
  if (local == NULL && address == NULL)
    return;
  if (f->n_addrs >= NETNS_MAX_ADDRS)
    {
      f->truncated = true;
      return;
    }
  x = &f->addrs[f->n_addrs++];
  x->index = (int32_t) ifa->ifa_index;
  x->family = ifa->ifa_family;
  x->prefix = ifa->ifa_prefixlen;
  x->scope = ifa->ifa_scope;
  /* IFA_LOCAL is the interface's own address (IFA_ADDRESS is the peer's
     on a point-to-point link). */
  copy_addr (x->addr, local ? local : address, ifa->ifa_family);
}

static void
add_route (const struct nlmsghdr *h, struct netns_facts *f)
{
  const struct rtmsg *rt = NLMSG_DATA (h);
  int len = (int) h->nlmsg_len - NLMSG_LENGTH (sizeof *rt);
  struct netns_route *r;

  if (len < 0 || (rt->rtm_family != AF_INET && rt->rtm_family != AF_INET6))
    return;
  if (f->n_routes >= NETNS_MAX_ROUTES)
    {
      f->truncated = true;
      return;
    }
  r = &f->routes[f->n_routes++];
  memset (r, 0, sizeof *r);
  r->family = rt->rtm_family;
  r->dst_len = rt->rtm_dst_len;
  r->type = rt->rtm_type;
  r->scope = rt->rtm_scope;
  r->table = rt->rtm_table;
  for (const struct rtattr *a = RTM_RTA (rt); RTA_OK (a, len); a = RTA_NEXT (a, len))
    switch (a->rta_type)
      {
      case RTA_DST:
        copy_addr (r->dst, a, rt->rtm_family);
        break;
      case RTA_GATEWAY:
        copy_addr (r->gw, a, rt->rtm_family);
        r->has_gw = true;
        break;
      case RTA_VIA:
        r->has_gw = true;
        break;
      case RTA_MULTIPATH:
        r->multipath = true;
        r->has_gw = true; /* judged as routed: next hops are elsewhere */
        break;
      case RTA_NH_ID:
        /* A nexthop object (ip nexthop): a gateway, a group or a
           blackhole, judged as routed. */
        if (RTA_PAYLOAD (a) >= sizeof (uint32_t))
          memcpy (&r->nh_id, RTA_DATA (a), sizeof (uint32_t));
        r->has_gw = true;
        break;
      case RTA_OIF:
        if (RTA_PAYLOAD (a) >= sizeof (int32_t))
          memcpy (&r->oif, RTA_DATA (a), sizeof (int32_t));
        break;
      case RTA_TABLE:
        if (RTA_PAYLOAD (a) >= sizeof (uint32_t))
          memcpy (&r->table, RTA_DATA (a), sizeof (uint32_t));
        break;
      default:
        break;
      }
}

/* One netlink dump of TYPE, each answer given to ADD. */
static int
dump (int fd, uint16_t type, void (*add) (const struct nlmsghdr *, struct netns_facts *),
      struct netns_facts *f)
{
  struct
  {
    struct nlmsghdr h;
    struct rtgenmsg g;
    char pad[16];
  } rq;
  static char buf[32768];
  struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };

  memset (&rq, 0, sizeof rq);
  /* The header each dump expects, all zero but the family (AF_UNSPEC). */
  rq.h.nlmsg_len = NLMSG_LENGTH (type == RTM_GETLINK   ? sizeof (struct ifinfomsg)
                                 : type == RTM_GETADDR ? sizeof (struct ifaddrmsg)
                                                       : sizeof (struct rtmsg));
  rq.h.nlmsg_type = type;
  rq.h.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
  rq.h.nlmsg_seq = type;
  rq.g.rtgen_family = AF_UNSPEC;
  if (sendto (fd, &rq, rq.h.nlmsg_len, 0, (struct sockaddr *) &kernel, sizeof kernel) < 0)
    return -errno;
  for (;;)
    {
      ssize_t n = recv (fd, buf, sizeof buf, 0);
      size_t left, step;

      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        return n < 0 ? -errno : -EIO;
      left = (size_t) n;
      /* NLMSG_OK and NLMSG_NEXT, without their mixed signs. */
      for (struct nlmsghdr *h = (struct nlmsghdr *) buf;
           left >= sizeof *h && h->nlmsg_len >= sizeof *h && h->nlmsg_len <= left;
           left -= step, h = (struct nlmsghdr *) ((char *) h + step))
        {
          step = NLMSG_ALIGN (h->nlmsg_len);
          if (step > left)
            step = left;
          if (h->nlmsg_seq != type)
            continue;
          if (h->nlmsg_type == NLMSG_DONE)
            return 0;
          if (h->nlmsg_type == NLMSG_ERROR)
            {
              const struct nlmsgerr *e = NLMSG_DATA (h);

              return e->error < 0 ? e->error : -EIO;
            }
          add (h, f);
        }
    }
}

static void
child_gather (int nsfd, const struct netns_probe *probe, struct netns_facts *f)
{
  int fd, e;

  if (setns (nsfd, CLONE_NEWNET) < 0)
    {
      f->error = errno;
      return;
    }
  fd = socket (AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
  if (fd < 0)
    {
      f->error = errno;
      return;
    }
  if ((e = dump (fd, RTM_GETLINK, add_link, f)) < 0 || (e = dump (fd, RTM_GETADDR, add_addr, f)) < 0
      || (e = dump (fd, RTM_GETROUTE, add_route, f)) < 0)
    {
      f->error = -e;
      close (fd);
      return;
    }
  close (fd);
  /* Loopback alone is contained: there is nothing to probe through. */
  if (probe == NULL)
    return;
  for (uint32_t i = 0; i < f->n_links; i++)
    if (! (f->links[i].flags & IFF_LOOPBACK))
      {
        kg_error_t err = NULL;
        int status = 0;

        if (egress_probe (&probe->proxy, probe->proxy_len, probe->host, probe->timeout_ms, &status,
                          &err)
            < 0)
          {
            f->probe_error = err->errnum ? err->errnum : EPROTO;
            kg_error_release (&err);
          }
        f->probe_status = status;
        return;
      }
}

/* ---- the parent's side ----------------------------------------------- */

/* PATH as an O_PATH descriptor, reached by the trusted-path walk: every
   directory root's and not group/other-writable, every symlink root's
   (nobody else can put another namespace under that name before Kata
   opens it).  The walk reads symlinks as text, so the kernel's own
   resolution must land on the same file (a /proc magic link such as
   /proc/PID/root does not).  -1 with out->error or out->untrusted. */
static int
open_trusted (const char *path, struct netns_facts *out)
{
  cleanup_error kg_error_t err = NULL;
  cleanup_close int fd = -1;
  cleanup_close int plain = -1;
  cleanup_free struct trust_info *info = malloc (sizeof *info);
  struct stat st;

  if (info == NULL)
    {
      out->error = ENOMEM;
      return -1;
    }
  fd = trust_open (path, TRUST_ANY, info, &err);
  if (fd < 0 && err->errnum != 0)
    out->error = err->errnum;
  else if (fd < 0)
    snprintf (out->untrusted, sizeof out->untrusted, "%s", err->msg);
  else if ((plain = open (path, O_PATH | O_CLOEXEC)) < 0 || fstat (plain, &st) < 0)
    out->error = errno;
  else if (st.st_dev != info->st.st_dev || st.st_ino != info->st.st_ino)
    snprintf (out->untrusted, sizeof out->untrusted,
              "%s is another file when the kernel follows it", path);
  else
    return steal_fd (&fd);
  return -1;
}

/* Who owns the namespace NSFD: the user namespace whose members may
   change its interfaces and routes.  The host's is the gatherer's own
   (/proc/1/ns/user is not readable everywhere), created by root. */
static void
read_owner (int nsfd, struct netns_facts *out)
{
  cleanup_close int user = ioctl (nsfd, NS_GET_USERNS);
  struct stat st, self;
  /* Not root until the kernel says so (and defined for valgrind, which
     does not know what NS_GET_OWNER_UID writes). */
  uid_t uid = (uid_t) -1;

  if (user < 0 || ioctl (user, NS_GET_OWNER_UID, &uid) < 0 || fstat (user, &st) < 0
      || stat ("/proc/self/ns/user", &self) < 0)
    {
      out->owner_error = errno ? errno : EIO;
      return;
    }
  out->owner_uid = (uint32_t) uid;
  out->owner_initial = uid == 0 && st.st_dev == self.st_dev && st.st_ino == self.st_ino;
}

int
netns_gather (unsigned long pid, const char *path, const struct netns_probe *probe,
              struct netns_facts *out, kg_error_t *err)
{
  return netns_gather_within (pid, path, probe, INT64_MAX, out, err);
}

int
netns_gather_within (unsigned long pid, const char *path, const struct netns_probe *given,
                     int64_t within_ms, struct netns_facts *out, kg_error_t *err)
{
  cleanup_close int pfd = -1;
  cleanup_close int nsfd = -1;
  char p[NETNS_PATH_MAX + 64];
  struct statfs sfs;
  int pipefd[2], status;
  size_t got = 0;
  pid_t child;
  struct netns_probe bounded;
  const struct netns_probe *probe = given;
  int64_t wait_ms = (probe ? probe->timeout_ms : 0) + 2000, end;

  /* The reader, its probe included, ends within WITHIN_MS. */
  if (within_ms < 1)
    within_ms = 1;
  if (wait_ms > within_ms)
    wait_ms = within_ms;
  if (given != NULL && given->timeout_ms > wait_ms)
    {
      bounded = *given;
      bounded.timeout_ms = (uint32_t) wait_ms;
      probe = &bounded;
    }

  memset (out, 0, sizeof *out);
  if (path == NULL)
    {
      snprintf (p, sizeof p, "/proc/%lu/ns/net", pid);
      pfd = open (p, O_PATH | O_CLOEXEC);
      if (pfd < 0)
        out->error = errno;
    }
  else if (path[0] != '/' || strlen (path) >= NETNS_PATH_MAX)
    out->error = EINVAL;
  else
    pfd = open_trusted (path, out);
  if (pfd < 0)
    return 0;
  /* Looked at as an O_PATH descriptor first: only a namespace file is
     ever opened for real (a FIFO or a device named by a spec is not). */
  if (fstatfs (pfd, &sfs) < 0)
    {
      out->error = errno;
      return 0;
    }
  if (sfs.f_type != NSFS_MAGIC)
    {
      out->error = EMEDIUMTYPE;
      return 0;
    }
  snprintf (p, sizeof p, "/proc/self/fd/%d", pfd);
  nsfd = open (p, O_RDONLY | O_CLOEXEC);
  if (nsfd < 0)
    {
      out->error = errno;
      return 0;
    }
  /* A namespace of another kind (a bind-mounted /proc/PID/ns/uts, a
     pid, user or mount namespace's file) is no network: refused by the
     kernel's word on its kind, before its owner is asked or a reader
     forked (setns with CLONE_NEWNET would refuse it too, later). */
  if (ioctl (nsfd, NS_GET_NSTYPE) != CLONE_NEWNET)
    {
      out->error = EMEDIUMTYPE;
      return 0;
    }
  /* Not entered, nor probed, when someone but the host can change it. */
  read_owner (nsfd, out);
  if (! out->owner_initial)
    return 0;
  if (pipe2 (pipefd, O_CLOEXEC) < 0)
    return kg_error (err, errno, "pipe");
  child = fork ();
  if (child < 0)
    {
      close (pipefd[0]);
      close (pipefd[1]);
      return kg_error (err, errno, "fork");
    }
  if (child == 0)
    {
      static struct netns_facts f;

      close (pipefd[0]);
      child_gather (nsfd, probe, &f);
      _exit (kg_write_all (pipefd[1], &f, sizeof f) < 0 ? 1 : 0);
    }
  close (pipefd[1]);
  end = kg_monotonic_ms () + wait_ms;
  while (got < sizeof *out)
    {
      struct pollfd pfd_wait = { .fd = pipefd[0], .events = POLLIN };
      int64_t left = end - kg_monotonic_ms ();
      int r = left > 0 ? poll (&pfd_wait, 1, (int) left) : 0;
      ssize_t n;

      if (r < 0 && errno == EINTR)
        continue;
      if (r <= 0)
        break;
      n = read (pipefd[0], (char *) out + got, sizeof *out - got);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        break;
      got += (size_t) n;
    }
  close (pipefd[0]);
  if (got < sizeof *out)
    kill (child, SIGKILL);
  while (waitpid (child, &status, 0) < 0 && errno == EINTR)
    ;
  if (got < sizeof *out)
    {
      memset (out, 0, sizeof *out);
      return kg_error (err, ETIMEDOUT, "the namespace reader gave no answer");
    }
  /* The child's record holds what it read inside; who owns the
     namespace is what the parent found. */
  out->owner_error = 0;
  out->owner_uid = 0;
  out->owner_initial = true;
  out->untrusted[0] = '\0';
  return 0;
}

/* ---- the judge, in the checker ----------------------------------------- */

static bool
in_net (uint8_t family, const uint8_t *a, const struct conf_net *n)
{
  unsigned bits = n->prefix;

  if (family != n->family)
    return false;
  for (unsigned i = 0; i < 16 && bits > 0; i++, bits = bits >= 8 ? bits - 8 : 0)
    {
      uint8_t mask = bits >= 8 ? 0xff : (uint8_t) (0xff << (8 - bits));

      if ((a[i] & mask) != (n->addr[i] & mask))
        return false;
    }
  return true;
}

static bool
net_within (const struct conf_net *inner, const struct conf_net *outer)
{
  return inner->family == outer->family && inner->prefix >= outer->prefix
         && in_net (inner->family, inner->addr, outer);
}

/* Within IPv6's own networks, link-local unicast (fe80::/10) and
   multicast (ff00::/8), on every interface that has IPv6: they route
   nowhere.  A wider prefix (fe80::/1) is not within them. */
static bool
v6_local (uint8_t family, const uint8_t *a, uint8_t prefix)
{
  return family == AF_INET6
         && ((a[0] == 0xff && prefix >= 8)
             || (a[0] == 0xfe && (a[1] & 0xc0) == 0x80 && prefix >= 10));
}

static const char *
show_addr (uint8_t family, const uint8_t *a, char *buf, size_t size)
{
  if (inet_ntop (family, a, buf, (socklen_t) size) == NULL)
    snprintf (buf, size, "?");
  return buf;
}

/* Where a routed R goes: its gateway, or what holds its next hops. */
static const char *
show_via (const struct netns_route *r, char *buf, size_t size)
{
  if (r->nh_id != 0)
    snprintf (buf, size, "nexthop object %u", r->nh_id);
  else if (r->multipath)
    snprintf (buf, size, "several next hops");
  else
    show_addr (r->family, r->gw, buf, size);
  return buf;
}

static const char *
link_name (const struct netns_facts *f, int32_t index)
{
  for (uint32_t i = 0; i < f->n_links && i < NETNS_MAX_LINKS; i++)
    if (f->links[i].index == index)
      return f->links[i].name[0] ? f->links[i].name : "?";
  return "?";
}

static bool
link_is_loopback (const struct netns_facts *f, int32_t index)
{
  for (uint32_t i = 0; i < f->n_links && i < NETNS_MAX_LINKS; i++)
    if (f->links[i].index == index)
      return (f->links[i].flags & IFF_LOOPBACK) != 0;
  return false;
}

enum route_kind
{
  ROUTE_IGNORED,
  ROUTE_COUNTS,
  ROUTE_UNKNOWN,
};

/* A route as Kata reads it (src/runtime/virtcontainers/network_linux.go
   networkInfoFromLink, network.go generateVCNetworkStructures): netlink's
   RouteList of each interface it hands the VM (main table, that
   interface as RTA_OIF), copied as destination, gateway and scope, its
   type dropped: whatever the type, the VM gets a plain route.  So every
   type counts by destination and gateway (any table but the kernel's
   local one, to be safe), except the ones that drop traffic, which hold
   no interface (IPv4) or loopback (IPv6), none that Kata hands over.  A
   type not known here refuses. */
static enum route_kind
route_kind (const struct netns_facts *f, const struct netns_route *r)
{
  if (r->table == RT_TABLE_LOCAL || v6_local (r->family, r->dst, r->dst_len))
    return ROUTE_IGNORED;
  switch (r->type)
    {
    case RTN_UNSPEC:
    case RTN_UNICAST:
    case RTN_LOCAL:
    case RTN_BROADCAST:
    case RTN_ANYCAST:
    case RTN_MULTICAST:
    case RTN_NAT:
    case RTN_XRESOLVE:
      return ROUTE_COUNTS;
    case RTN_BLACKHOLE:
    case RTN_UNREACHABLE:
    case RTN_PROHIBIT:
    case RTN_THROW:
      return r->oif == 0 || link_is_loopback (f, r->oif) ? ROUTE_IGNORED : ROUTE_COUNTS;
    default:
      return ROUTE_UNKNOWN;
    }
}

/* No [egress] networks: the network of the address that holds the
   proxy, on an interface the VM gets (not loopback), the longest prefix
   when several do (any wider one is then outside).  Not from routes: an
   on-link 0.0.0.0/1 holds the proxy too.  A /0 defines none.  False when
   no address holds the proxy. */
static bool
proxy_network (const struct netns_facts *f, uint8_t pfam, const uint8_t *paddr,
               struct conf_net *out)
{
  bool found = false;

  for (uint32_t j = 0; j < f->n_addrs; j++)
    {
      const struct netns_addr *x = &f->addrs[j];
      struct conf_net n = { x->family, x->prefix, { 0 } };

      memcpy (n.addr, x->addr, 16);
      if (x->prefix == 0 || link_is_loopback (f, x->index) || ! in_net (pfam, paddr, &n)
          || (found && n.prefix <= out->prefix))
        continue;
      *out = n;
      found = true;
    }
  return found;
}

static bool
within_any (const struct conf_net *n, const struct conf_net *allowed, size_t n_allowed)
{
  for (size_t k = 0; k < n_allowed; k++)
    if (net_within (n, &allowed[k]))
      return true;
  return false;
}

/* Every route the VM would get: none by default or via a gateway, each
   on-link one within ALLOWED. */
static void
judge_routes (const struct netns_facts *f, const struct conf_net *allowed, size_t n_allowed,
              struct kg_buf *why, size_t *n_why, struct kg_buf *seen)
{
  char a[INET6_ADDRSTRLEN], g[32 + INET6_ADDRSTRLEN];

  for (uint32_t i = 0; i < f->n_routes; i++)
    {
      const struct netns_route *r = &f->routes[i];
      struct conf_net n = { r->family, r->dst_len, { 0 } };
      enum route_kind kind = route_kind (f, r);

      if (kind == ROUTE_IGNORED)
        continue;
      memcpy (n.addr, r->dst, 16);
      show_addr (r->family, r->dst, a, sizeof a);
      if (kind == ROUTE_UNKNOWN)
        sb_printf (why, "%sroute to %s/%u on %s of type %u, which is not known here",
                   (*n_why)++ ? "; " : "", a, r->dst_len, link_name (f, r->oif), r->type);
      else if (r->dst_len == 0)
        {
          sb_printf (why, "%sdefault route", (*n_why)++ ? "; " : "");
          if (r->has_gw)
            sb_printf (why, " via %s", show_via (r, g, sizeof g));
          sb_printf (why, " on %s", link_name (f, r->oif));
        }
      else if (r->has_gw)
        sb_printf (why, "%sroute to %s/%u via %s on %s", (*n_why)++ ? "; " : "", a, r->dst_len,
                   show_via (r, g, sizeof g), link_name (f, r->oif));
      else if (! within_any (&n, allowed, n_allowed))
        sb_printf (why, "%sroute to %s/%u on %s outside the allowed networks",
                   (*n_why)++ ? "; " : "", a, r->dst_len, link_name (f, r->oif));
      else if (seen->len < 512)
        sb_printf (seen, "%s%s/%u on %s", seen->len ? ", " : "", a, r->dst_len,
                   link_name (f, r->oif));
    }
}

/* Every interface but loopback on an allowed network, with each of its
   addresses, prefix and all, within one (Kata hands the VM the address
   with its prefix, and the VM's kernel makes the prefix route the
   namespace may not have: noprefixroute). */
static void
judge_links (const struct netns_facts *f, const struct conf_net *allowed, size_t n_allowed,
             struct kg_buf *why, size_t *n_why)
{
  char a[INET6_ADDRSTRLEN];

  for (uint32_t i = 0; i < f->n_links; i++)
    {
      const struct netns_link *l = &f->links[i];
      bool on_allowed = false;

      if (l->flags & IFF_LOOPBACK)
        continue;
      for (uint32_t j = 0; j < f->n_addrs; j++)
        {
          const struct netns_addr *x = &f->addrs[j];
          struct conf_net n = { x->family, x->prefix, { 0 } };

          if (x->index != l->index || v6_local (x->family, x->addr, x->prefix))
            continue;
          memcpy (n.addr, x->addr, 16);
          show_addr (x->family, x->addr, a, sizeof a);
          if (x->prefix == 0)
            sb_printf (why, "%sinterface %s has %s/0, a default route for the VM",
                       (*n_why)++ ? "; " : "", l->name, a);
          else if (within_any (&n, allowed, n_allowed))
            on_allowed = true;
          else
            sb_printf (why, "%sinterface %s has %s/%u outside the allowed networks",
                       (*n_why)++ ? "; " : "", l->name, a, x->prefix);
        }
      if (! on_allowed)
        sb_printf (why, "%sinterface %s is on no allowed network", (*n_why)++ ? "; " : "", l->name);
    }
}

/* Whether anyone but the host can change the namespace, or could put
   another one under its path before Kata opens it; the reason in WHY. */
static bool
judge_owner_and_path (const struct netns_facts *f, struct kg_buf *why)
{
  if (f->untrusted[0] != '\0')
    sb_printf (why, "its path is not trusted: %.*s", (int) sizeof f->untrusted, f->untrusted);
  else if (f->owner_error != 0)
    sb_printf (why, "its owner cannot be read: %s", strerror (f->owner_error));
  else if (! f->owner_initial && f->owner_uid != 0)
    sb_printf (why,
               "owned by a user namespace that uid %u created, not the host's: its owner can "
               "give it interfaces and routes at any time",
               f->owner_uid);
  else if (! f->owner_initial)
    sb_printf (why, "owned by a user namespace other than the host's: its members can give it "
                    "interfaces and routes at any time");
  else
    return true;
  return false;
}

int
netns_judge (const struct netns_facts *f, const struct conf_net *allowed, size_t n_allowed,
             const struct sockaddr_storage *proxy, struct kg_buf *why, struct kg_buf *seen)
{
  struct conf_net derived;
  uint8_t pfam, paddr[16] = { 0 };
  size_t n_why = 0;
  bool only_lo = true;
  char a[INET6_ADDRSTRLEN];

  if (f->error != 0)
    {
      sb_printf (why, "cannot read the namespace: %s", strerror (f->error));
      return -1;
    }
  if (! judge_owner_and_path (f, why))
    return -1;
  if (f->truncated || f->n_links > NETNS_MAX_LINKS || f->n_addrs > NETNS_MAX_ADDRS
      || f->n_routes > NETNS_MAX_ROUTES)
    {
      sb_printf (why, "more than %d interfaces, %d addresses or %d routes: not judged",
                 NETNS_MAX_LINKS, NETNS_MAX_ADDRS, NETNS_MAX_ROUTES);
      return -1;
    }
  for (uint32_t i = 0; i < f->n_links; i++)
    if (! (f->links[i].flags & IFF_LOOPBACK))
      only_lo = false;
  if (only_lo)
    {
      sb_printf (seen, "loopback only");
      return 0;
    }
  pfam = (uint8_t) proxy->ss_family;
  if (pfam == AF_INET)
    memcpy (paddr, &((const struct sockaddr_in *) proxy)->sin_addr, 4);
  else
    memcpy (paddr, &((const struct sockaddr_in6 *) proxy)->sin6_addr, 16);
  if (n_allowed == 0)
    {
      if (proxy_network (f, pfam, paddr, &derived))
        allowed = &derived, n_allowed = 1;
      else
        sb_printf (why, "%sno interface address holds the proxy %s", n_why++ ? "; " : "",
                   show_addr (pfam, paddr, a, sizeof a));
    }
  judge_routes (f, allowed, n_allowed, why, &n_why, seen);
  judge_links (f, allowed, n_allowed, why, &n_why);
  return n_why > 0 ? -1 : 0;
}

/* WORD for a POSIX shell: as it is when it holds nothing the shell would
   read, else in single quotes (a path or an interface name is root's to
   choose, but the remedy is pasted into a root shell). */
static void
sb_shell_word (struct kg_buf *sb, const char *word)
{
  if (word[0] != '\0'
      && strspn (word, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                       "0123456789/._-:@%+=,")
             == strlen (word))
    {
      sb_printf (sb, "%s", word);
      return;
    }
  sb_printf (sb, "'");
  for (const char *q = word; *q != '\0'; q++)
    if (*q == '\'')
      sb_printf (sb, "'\\''");
    else
      sb_printf (sb, "%c", *q);
  sb_printf (sb, "'");
}

/* Whether the judge refuses a route R for itself, whatever the networks:
   a default route, or one via a gateway (of a type Kata hands over). */
static bool
route_leads_out (const struct netns_facts *f, const struct netns_route *r)
{
  return route_kind (f, r) == ROUTE_COUNTS && (r->dst_len == 0 || r->has_gw);
}

size_t
netns_route_fixes (const struct netns_facts *f, const struct conf_net *allowed, size_t n_allowed,
                   const struct sockaddr_storage *proxy, const char *ns, struct kg_buf *cmds,
                   bool *rest)
{
  cleanup_kg_buf struct kg_buf why = { 0 }, seen = { 0 };
  struct netns_facts *left;
  size_t n = 0;
  char a[INET6_ADDRSTRLEN];

  *rest = true;
  if (f->error != 0 || f->truncated || f->n_routes > NETNS_MAX_ROUTES
      || f->n_links > NETNS_MAX_LINKS)
    return 0;
  left = malloc (sizeof *left);
  if (left == NULL)
    return 0;
  *left = *f;
  left->n_routes = 0;
  for (uint32_t i = 0; i < f->n_routes; i++)
    {
      const struct netns_route *r = &f->routes[i];

      if (! route_leads_out (f, r))
        {
          left->routes[left->n_routes++] = *r;
          continue;
        }
      sb_printf (cmds, "%snsenter --net=", n++ ? "; " : "");
      sb_shell_word (cmds, ns);
      sb_printf (cmds, " ip %s route del ", r->family == AF_INET6 ? "-6" : "-4");
      if (r->dst_len == 0)
        sb_printf (cmds, "default");
      else
        sb_printf (cmds, "%s/%u", show_addr (r->family, r->dst, a, sizeof a), r->dst_len);
      if (r->has_gw && r->nh_id == 0 && ! r->multipath)
        sb_printf (cmds, " via %s", show_addr (r->family, r->gw, a, sizeof a));
      if (r->oif != 0 && strcmp (link_name (f, r->oif), "?") != 0)
        {
          sb_printf (cmds, " dev ");
          sb_shell_word (cmds, link_name (f, r->oif));
        }
      if (r->table != RT_TABLE_MAIN)
        sb_printf (cmds, " table %u", r->table);
    }
  *rest = netns_judge (left, allowed, n_allowed, proxy, &why, &seen) < 0;
  free (left);
  return n;
}
