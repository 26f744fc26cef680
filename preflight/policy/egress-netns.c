/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * egress.netns: a network namespace the spec names (a companion's, a
 * pod's), judged by what the confined checker's parent gathers inside it
 * (netns.c) and by the proxy probe sent from inside.
 * (policy-default.c: the family; policy.c, policy-facts.c: what the rules share.)
 */
#include "config.h"

#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <string.h>

#include "egress.h"
#include "jsonscan.h"
#include "jtree.h"
#include "netns.h"
#include "policy.h"
#include "request-list.h"

#include "array.h"
#include "buf.h"
#include "cleanup.h"
#include "error.h"
#include "policy-int.h"
#include "policy-mounts.h"
/* ---- egress.netns ------------------------------------------------------ */

/* Docker's network hook among the prestart hooks (check_hooks judged its
   form): Docker attaches the container's network through it. */
static bool
has_docker_setkey (const struct policy_ctx *c)
{
  struct jv *hooks = NULL, *list = NULL;

  if (! jv_get_ex (c->spec, "hooks", &hooks) || ! jv_is_type (hooks, json_type_object)
      || ! jv_get_ex (hooks, "prestart", &list) || ! jv_is_type (list, json_type_array))
    return false;
  for (size_t i = 0; i < jv_length (list); i++)
    {
      struct jv *h = jv_at (list, i), *args = NULL, *a0;

      if (jv_is_type (h, json_type_object) && jv_get_ex (h, "args", &args)
          && jv_is_type (args, json_type_array) && jv_length (args) > 0
          && (a0 = jv_at (args, 0)) != NULL && jv_is_type (a0, json_type_string)
          && strcmp (jv_string (a0), "libnetwork-setkey") == 0)
        return true;
    }
  return false;
}

/* Whether this start is Docker's by anything the guard can see: Docker's
   namespace, Docker's network hook, or a bind of Docker's per-container
   files (<engine root>/containers/...). */
static bool
docker_shaped (const struct policy_ctx *c)
{
  struct jv *mounts;
  const struct dir_list *roots = &c->dirs->roots;

  if (c->who.engine == ENGINE_DOCKER || has_docker_setkey (c))
    return true;
  if (! jv_get_ex (c->spec, "mounts", &mounts) || ! jv_is_type (mounts, json_type_array))
    return false;
  for (size_t i = 0; i < jv_length (mounts); i++)
    {
      struct jv *m = jv_at (mounts, i), *src;
      const char *q;

      if (jv_is_type (m, json_type_object) && jv_get_ex (m, "source", &src)
          && jv_is_type (src, json_type_string) && (q = under_root (jv_string (src), roots)) != NULL
          && strncmp (q, "/containers/", 12) == 0)
        return true;
    }
  return false;
}

/* Docker's network mode for this container, from its hostconfig.json
   (under the engine root of Docker's record of it, else under any engine
   root), read whole as a stream whatever its size: 1 with the mode in
   OUT (Docker's "default" when the file has none), -1 with *ERR. */
static int
docker_network_mode (const struct policy_ctx *c, char *out, size_t size, kg_error_t *err)
{
  const struct dir_list *roots = &c->dirs->roots;
  const char *id = c->pf->req->container_id;

  if (! c->dirs->roots_ok)
    return kg_error (err, 0, "[policy] engine_roots cannot be resolved: %s", c->dirs_err->msg);
  if (id == NULL || ! policy_valid_id (id))
    return kg_error (err, 0, "the start names no container id");
  for (size_t i = 0; i < roots->n; i++)
    {
      cleanup_free char *path = NULL;
      int rc;

      if (c->who.docker_root != NULL && roots->paths[i] != c->who.docker_root)
        continue;
      if (asprintf (&path, "%s/containers/%s/hostconfig.json", roots->paths[i], id) < 0)
        return path = NULL, kg_error (err, ENOMEM, "out of memory");
      rc = jscan_top_string (path, "NetworkMode", out, size, err);
      if (rc < 0 && (*err)->errnum == ENOENT)
        {
          kg_error_release (err);
          continue;
        }
      if (rc == 0)
        snprintf (out, size, "default");
      return rc < 0 ? -1 : 1;
    }
  return kg_error (err, ENOENT, "no containers/%s/hostconfig.json under [policy] engine_roots", id);
}

/* egress.netns: the network the container will have, as the VM will get
   it (Kata hands the VM the namespace's interfaces and routes; its
   tcfilter redirect bypasses the namespace's own L3 rules, so addresses
   and routes are what counts, not iptables). */
void
check_egress_netns (const struct policy_ctx *c)
{
  const struct guard_config *cfg = c->cfg;
  cleanup_kg_buf struct kg_buf why = { 0 };
  cleanup_kg_buf struct kg_buf seen = { 0 };
  cleanup_error kg_error_t err = NULL;
  struct jv *linux_, *list, *entry = NULL, *path = NULL;
  struct netns_facts *facts = NULL;
  struct conf_net nets[16];
  struct netns_probe probe;
  size_t n_nets = 0;
  char mode[256] = "";
  unsigned long pid = 0;
  const char *p = NULL, *proxy = cfg->egress.proxy;
  bool docker_attaches, no_path, hook;
  int rc;

  if (! cfg->egress.enabled)
    {
      rule_skip (c, "not run: [egress] enabled = false");
      return;
    }
  linux_ = jv_get_ex (c->spec, "linux", &linux_) ? linux_ : NULL;
  list = linux_ != NULL && jv_get_ex (linux_, "namespaces", &list) ? list : NULL;
  for (size_t i = 0; list != NULL && jv_is_type (list, json_type_array) && i < jv_length (list);
       i++)
    {
      struct jv *e = jv_at (list, i), *t;

      if (jv_is_type (e, json_type_object) && jv_get_ex (e, "type", &t)
          && jv_is_type (t, json_type_string) && strcmp (jv_string (t), "network") == 0)
        entry = e;
    }
  if (entry == NULL)
    {
      rule_fail (c, "give the container its own network namespace",
                 "no network namespace: the container would have the host's network");
      return;
    }
  /* Docker attaches the container's network after create: through the
     libnetwork hook into the namespace the runtime makes (Docker 20.10),
     or into a namespace of its own that the spec names and that holds
     loopback only when the guard looks (Docker 28).  Its hostconfig.json
     says which network: anything but none, host or another container's
     is not there to be checked yet.  Kata hands it to the VM all the
     same: it runs the hook before it boots a VM that cannot hot-plug
     (Firecracker) and hot-plugs what the hook made after boot otherwise
     (QEMU, Cloud Hypervisor): src/runtime/virtcontainers/sandbox.go
     startVM. */
  if (docker_shaped (c) && docker_network_mode (c, mode, sizeof mode, &err) < 0)
    {
      rule_fail (c, "list Docker's data root (dockerd --data-root) in [policy] engine_roots",
                 "a start of Docker's whose network cannot be told: %s (Docker attaches it "
                 "after the guard looked)",
                 err->msg);
      return;
    }
  docker_attaches = mode[0] != '\0' && strcmp (mode, "none") != 0 && strcmp (mode, "host") != 0
                    && strncmp (mode, "container:", 10) != 0;
  no_path = ! jv_get_ex (entry, "path", &path) || jv_is_type (path, json_type_null);
  /* A namespace the runtime creates holds loopback only, unless Docker's
     hook is there to attach a network whose mode is not none. */
  hook = no_path && has_docker_setkey (c);
  if (no_path && ! docker_attaches && (! hook || strcmp (mode, "none") == 0))
    {
      rule_pass (c, "a new network namespace, loopback only (%s)",
                 hook ? "Docker --network none" : "the runtime creates it");
      return;
    }
  if (docker_attaches || no_path)
    {
      rule_fail (c,
                 "run the container with --network none, or in the network namespace of a "
                 "companion on an internal network (--network container:NAME), which is "
                 "inspected",
                 "Docker attaches network \"%s\" after the guard looked (Kata hands it to "
                 "the VM: before boot on Firecracker, hot-plugged on QEMU and Cloud "
                 "Hypervisor), so its routes cannot be checked",
                 mode[0] ? mode : "(unknown)");
      return;
    }
  if (! jv_is_type (path, json_type_string))
    {
      rule_fail (c, NULL, "the network namespace path is %s", jv_kind (path));
      return;
    }
  p = jv_string (path);
  /* A process's namespace (Docker's and CRI's form) is asked by its pid,
     as every rule asks (request_proc_pid); any other path, one with a pid
     no process can have among them, is opened as the path it is. */
  pid = request_proc_pid (p, "ns/net");
  /* The probe from inside, as the VM's traffic will leave. */
  memset (&probe, 0, sizeof probe);
  if (proxy == NULL || *proxy == '\0'
      || conf_parse_endpoint (proxy, &probe.proxy, &probe.proxy_len, &err) < 0
      || (probe.proxy.ss_family != AF_INET && probe.proxy.ss_family != AF_INET6))
    {
      rule_fail (c, "set [egress] proxy (see egress.config)",
                 "network namespace %s: no proxy to probe it with", p);
      return;
    }
  probe.timeout_ms = (uint32_t) cfg->egress.timeout_ms;
  if (egress_probe_host (cfg, probe.host, sizeof probe.host) < 0)
    {
      rule_fail (c, NULL, "cannot make a probe host name: %s", strerror (errno));
      return;
    }
  for (size_t i = 0; i < cfg->egress.n_networks && n_nets < ARRAY_SIZE (nets); i++)
    if (conf_parse_cidr (cfg->egress.networks[i], &nets[n_nets]) == 0)
      n_nets++;
  facts = calloc (1, sizeof *facts);
  if (facts == NULL)
    {
      rule_fail (c, NULL, "out of memory");
      return;
    }
  if (c->pf->req->netns_facts != NULL)
    rc = c->pf->req->netns_facts (pid, pid ? NULL : p, &probe, facts);
  else if ((rc = netns_gather (pid, pid ? NULL : p, &probe, facts, &err)) < 0)
    errno = err->errnum;
  if (rc < 0)
    {
      rule_fail (c, NULL, "network namespace %s cannot be read: %s", p, strerror (errno));
      free (facts);
      return;
    }
  if (netns_judge (facts, nets, n_nets, &probe.proxy, &why, &seen) < 0)
    {
      cleanup_kg_buf struct kg_buf fix = { 0 };
      cleanup_free char *remedy = NULL;
      bool rest = true;
      size_t n_fix = 0;

      /* The exact step for what it holds: a default route or one via a
         gateway (Docker 20.10 gives one to a container on an --internal
         network) is deleted by the commands named; only what those leave
         is the generic advice. */
      if (facts->untrusted[0] == '\0' && facts->owner_initial)
        n_fix = netns_route_fixes (facts, nets, n_nets, &probe.proxy, p, &fix, &rest);
      if (facts->untrusted[0] != '\0' || ! facts->owner_initial)
        remedy = strdup ("name a network namespace that root made in the host's user namespace, "
                         "by a path only root can change (/proc/PID/ns/net, /run/netns/NAME)");
      else if (n_fix > 0
               && asprintf (&remedy,
                            "delete the %s in that namespace before the container joins it: %s%s",
                            n_fix == 1 ? "route" : "routes", sb_str (&fix),
                            rest ? "; and leave it only interfaces, addresses and routes on the "
                                   "proxy's network (see [egress] networks)"
                                 : "")
                      < 0)
        remedy = NULL;
      else if (n_fix == 0)
        remedy = strdup ("leave that namespace only interfaces, addresses and routes on the "
                         "proxy's network, with the proxy on it (see [egress] networks)");
      rule_fail (c, remedy, "network namespace %s: %s", p, sb_str (&why));
    }
  else if (facts->probe_error == 0 && facts->probe_status == 0)
    rule_pass (c, "network namespace %s: %s", p, sb_str (&seen));
  else if (facts->probe_error != 0)
    rule_fail (c, "put the proxy on the container's internal network, at [egress] proxy",
               "network namespace %s (%s): the proxy %s does not answer from inside it: %s", p,
               sb_str (&seen), proxy, strerror (facts->probe_error));
  else if (! egress_denied_status (cfg, facts->probe_status))
    rule_fail (c,
               "make the proxy this namespace reaches deny every destination not on its "
               "allowlist",
               "network namespace %s (%s): the proxy %s, from inside it, answered CONNECT "
               "%s:443 with %d%s",
               p, sb_str (&seen), proxy, probe.host, (int) facts->probe_status,
               facts->probe_status >= 200 && facts->probe_status <= 299 ? " (an open proxy)" : "");
  else
    rule_pass (c,
               "network namespace %s: %s, no way out but the proxy %s, which denied CONNECT "
               "%s:443 with %d from inside",
               p, sb_str (&seen), proxy, probe.host, (int) facts->probe_status);
  free (facts);
}
