/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * netns.*: the network namespace a container will use, as it is when the
 * guard looks: its links, addresses and routes (netlink) and what the
 * egress proxy answers from inside it.  Entering another process's network
 * namespace takes privilege the confined checker has given up, so the
 * facts are gathered by a short-lived child of the unconfined parent
 * (netns_gather) and judged by the checker (netns_judge, egress.netns).
 */
#ifndef KG_NETNS_H
#define KG_NETNS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "conf.h"
#include "error.h"

#define NETNS_MAX_LINKS 16
#define NETNS_MAX_ADDRS 32
#define NETNS_MAX_ROUTES 64
#define NETNS_HOST_MAX 272
#define NETNS_PATH_MAX 256
#define NETNS_WHY_MAX 192

/* What the probe asks for, and where. */
struct netns_probe
{
  struct sockaddr_storage proxy;
  uint32_t proxy_len;
  uint32_t timeout_ms;
  char host[NETNS_HOST_MAX]; /* the CONNECT host */
};

struct netns_link
{
  char name[16];
  int32_t index;
  uint32_t flags; /* IFF_* */
  uint16_t type;  /* ARPHRD_* */
};

struct netns_addr
{
  int32_t index;
  uint8_t family; /* AF_INET, AF_INET6 */
  uint8_t prefix;
  uint8_t scope;
  uint8_t addr[16];
};

struct netns_route
{
  uint8_t family, dst_len, type, scope;
  uint32_t table;
  int32_t oif;
  bool has_gw, multipath;
  uint32_t nh_id; /* RTA_NH_ID: routed through a nexthop object, else 0 */
  uint8_t dst[16], gw[16];
};

/* Everything gathered, in one fixed-size record (it crosses the checker's
   channel as bytes; the judge validates every count). */
struct netns_facts
{
  int32_t error;        /* errno entering or reading the namespace, else 0 */
  int32_t probe_error;  /* errno of the probe (connect, send, read), else 0 */
  int32_t probe_status; /* the proxy's HTTP status, or 0 */
  uint32_t n_links, n_addrs, n_routes;
  bool truncated; /* more than the arrays hold: judged as unknown */
  /* Who can change it: the user namespace that owns it (NS_GET_USERNS)
     must be the gatherer's own, and root's (NS_GET_OWNER_UID). */
  int32_t owner_error; /* errno reading the owner, else 0 */
  uint32_t owner_uid;  /* who created the owning user namespace */
  bool owner_initial;  /* the gatherer's own user namespace, root's */
  /* Why the path is not trusted (trust.h), else "": someone but root could
     put another namespace under it before Kata opens it. */
  char untrusted[NETNS_WHY_MAX];
  struct netns_link links[NETNS_MAX_LINKS];
  struct netns_addr addrs[NETNS_MAX_ADDRS];
  struct netns_route routes[NETNS_MAX_ROUTES];
};

/* The network namespace of process PID (PATH NULL: /proc/PID/ns/net,
   /proc being the guard's own), or the one PATH names (an nsfs file
   reached by a trusted path: /run/netns/NAME, /var/run/docker/netns/ID),
   entered, when the path is trusted and the host's user namespace owns
   the namespace, by a forked child that reads its links, addresses and
   routes and, when PROBE is not NULL and the namespace has any interface
   but loopback, sends the probe to the proxy from inside.  0 with *OUT filled
   (out->error says why the namespace could not be read, out->untrusted
   and out->owner_* what the path and the owner are), or -1 with ERR
   when the child could not run at all.  Needs CAP_SYS_ADMIN (setns). */
int netns_gather (unsigned long pid, const char *path, const struct netns_probe *probe,
                  struct netns_facts *out, kg_error_t *err);
/* The same, ended (probe included) within WITHIN_MS: the reader is
   killed then, and the probe's timeout is cut to fit. */
int netns_gather_within (unsigned long pid, const char *path, const struct netns_probe *probe,
                         int64_t within_ms, struct netns_facts *out, kg_error_t *err);

struct kg_buf;
/* Judge F: nothing but loopback, or no default route, every route as
   Kata hands it to the VM (any type: destination and gateway) on-link to
   one of ALLOWED (N_ALLOWED of them; none: the network of the interface
   address that holds the PROXY's address), and no interface but loopback
   and ones on those networks, their addresses' prefixes within them.  0
   with what was seen in SEEN, or -1 with every reason in WHY.  The
   probe's answer (f->probe_*) is the caller's to judge. */
int netns_judge (const struct netns_facts *f, const struct conf_net *allowed, size_t n_allowed,
                 const struct sockaddr_storage *proxy, struct kg_buf *why, struct kg_buf *seen);

/* The commands that make F pass as far as its routes go: for each route
   the judge refuses whatever the networks (a default route, a route via
   a gateway), "nsenter --net=NS ip -4|-6 route del DST [via GW] [dev IF]
   [table T]", "; " between them, into CMDS (NS: the namespace's path, as
   the spec names it).  *REST: whether the judge would still refuse F
   without those routes (or F cannot be judged).  The number of commands. */
size_t netns_route_fixes (const struct netns_facts *f, const struct conf_net *allowed,
                          size_t n_allowed, const struct sockaddr_storage *proxy, const char *ns,
                          struct kg_buf *cmds, bool *rest);

#endif
