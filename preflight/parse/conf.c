/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <sys/capability.h>
#include <sys/socket.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "cleanup.h"
#include "conf.h"
#include "daemonjson.h"
#include "error.h"
#include "path.h"
#include "text.h"
#include "toml.h"

#ifndef KG_SYSCONFDIR
#define KG_SYSCONFDIR "/etc"
#endif

enum key_type
{
  KEY_STRING,
  KEY_BOOL,
  KEY_INT,
  KEY_STRING_ARRAY,
  KEY_PIN_TABLE, /* a table of "/path" = "sha256 hex" */
  KEY_INT_LIST,  /* an array of 1 .. CONF_MAX_STATUSES integers from min to max */
};

/* How a string value is validated beyond its type. */
enum str_rule
{
  STR_ANY,
  STR_ABS_PATH,          /* absolute path, not empty */
  STR_ABS_PATH_OR_EMPTY, /* absolute path, or "" for "not set" */
  STR_HOSTNAME,          /* a DNS name we will write into a request line */
  STR_HOSTNAME_OR_EMPTY,
  STR_CIDR,              /* an IPv4 or IPv6 network, ADDR/PREFIX */
  STR_HYPERVISOR,        /* a [hypervisor.NAME] Kata knows */
  STR_ENDPOINT_OR_EMPTY, /* "IPv4:port", "[IPv6]:port" or "" (not set) */
  STR_CAPABILITY,        /* "CAP_NAME" that libcap knows */
  STR_REGEX,             /* a POSIX extended regular expression */
  STR_NAMESPACE,         /* a containerd namespace name */
  STR_KATA_RUNTIME,      /* "auto", "go" or "runtime-rs" */
  STR_POLICY_MODE,       /* "enforce" or "audit" */
  STR_SELINUX_TYPE,      /* an SELinux type name: letters, digits, '_' */
  STR_PROFILE_GLOB,      /* an fnmatch(3) pattern of an AppArmor profile name */
  STR_CGROUP_PARENT,     /* "/a/b" (cgroupfs) or "a.slice" (systemd) */
};

struct key_spec
{
  const char *table;
  const char *key;
  enum key_type type;
  size_t offset;       /* of the field in struct guard_config */
  size_t count_offset; /* KEY_STRING_ARRAY: of its size_t count */
  enum str_rule rule;
  int64_t min, max; /* KEY_INT */
};

#define FIELD(f) offsetof (struct guard_config, f)

/* Every key the configuration may hold.  Adding a key is one line here,
   one field in struct guard_config and one default below. */
static const struct key_spec keys[] = {
  { "runtime", "shim", KEY_STRING, FIELD (runtime.shim), 0, STR_ABS_PATH, 0, 0 },
  { "runtime", "oci", KEY_STRING, FIELD (runtime.oci), 0, STR_ABS_PATH_OR_EMPTY, 0, 0 },
  { "runtime", "oci_vm", KEY_BOOL, FIELD (runtime.oci_vm), 0, STR_ANY, 0, 0 },
  { "runtime", "deadline_ms", KEY_INT, FIELD (runtime.deadline_ms), 0, STR_ANY, 100, 60000 },
  { "kvm", "device", KEY_STRING, FIELD (kvm.device), 0, STR_ABS_PATH, 0, 0 },
  { "kvm", "create_vm", KEY_BOOL, FIELD (kvm.create_vm), 0, STR_ANY, 0, 0 },
  { "kata", "config", KEY_STRING, FIELD (kata.config), 0, STR_ABS_PATH_OR_EMPTY, 0, 0 },
  { "kata", "runtime", KEY_STRING, FIELD (kata.runtime), 0, STR_KATA_RUNTIME, 0, 0 },
  { "kata", "hypervisors", KEY_STRING_ARRAY, FIELD (kata.hypervisors), FIELD (kata.n_hypervisors),
    STR_HYPERVISOR, 0, 0 },
  { "egress", "enabled", KEY_BOOL, FIELD (egress.enabled), 0, STR_ANY, 0, 0 },
  { "egress", "proxy", KEY_STRING, FIELD (egress.proxy), 0, STR_ENDPOINT_OR_EMPTY, 0, 0 },
  /* A probe that may take a minute would hold every container start. */
  { "egress", "timeout_ms", KEY_INT, FIELD (egress.timeout_ms), 0, STR_ANY, 1, 60000 },
  { "egress", "probe_host", KEY_STRING, FIELD (egress.probe_host), 0, STR_HOSTNAME_OR_EMPTY, 0, 0 },
  /* 2xx would make an open proxy pass: only 3xx-5xx can mean "denied". */
  { "egress", "expect_status", KEY_INT, FIELD (egress.expect_status), 0, STR_ANY, 300, 599 },
  { "egress", "deny_statuses", KEY_INT_LIST, FIELD (egress.deny_statuses),
    FIELD (egress.n_deny_statuses), STR_ANY, 300, 599 },
  { "egress", "networks", KEY_STRING_ARRAY, FIELD (egress.networks), FIELD (egress.n_networks),
    STR_CIDR, 0, 0 },
  { "assets", "extra", KEY_STRING_ARRAY, FIELD (assets.extra), FIELD (assets.n_extra), STR_ABS_PATH,
    0, 0 },
  { "assets", "sha256", KEY_PIN_TABLE, FIELD (assets.pins), FIELD (assets.n_pins), STR_ABS_PATH, 0,
    0 },
  { "log", "syslog", KEY_BOOL, FIELD (log.syslog), 0, STR_ANY, 0, 0 },
  { "log", "file", KEY_STRING, FIELD (log.file), 0, STR_ABS_PATH_OR_EMPTY, 0, 0 },
  { "policy", "host_namespaces", KEY_BOOL, FIELD (policy.host_namespaces), 0, STR_ANY, 0, 0 },
  { "policy", "privileged", KEY_BOOL, FIELD (policy.privileged), 0, STR_ANY, 0, 0 },
  { "policy", "capabilities", KEY_STRING_ARRAY, FIELD (policy.capabilities),
    FIELD (policy.n_capabilities), STR_CAPABILITY, 0, 0 },
  { "policy", "devices", KEY_STRING_ARRAY, FIELD (policy.devices), FIELD (policy.n_devices),
    STR_ABS_PATH, 0, 0 },
  { "policy", "deny_mounts", KEY_STRING_ARRAY, FIELD (policy.deny_mounts),
    FIELD (policy.n_deny_mounts), STR_ABS_PATH, 0, 0 },
  { "policy", "writable_mounts", KEY_STRING_ARRAY, FIELD (policy.writable_mounts),
    FIELD (policy.n_writable_mounts), STR_ABS_PATH, 0, 0 },
  { "policy", "engine_roots", KEY_STRING_ARRAY, FIELD (policy.engine_roots),
    FIELD (policy.n_engine_roots), STR_ABS_PATH, 0, 0 },
  { "policy", "podman_roots", KEY_STRING_ARRAY, FIELD (policy.podman_roots),
    FIELD (policy.n_podman_roots), STR_ABS_PATH, 0, 0 },
  { "policy", "containerd_roots", KEY_STRING_ARRAY, FIELD (policy.containerd_roots),
    FIELD (policy.n_containerd_roots), STR_ABS_PATH, 0, 0 },
  { "policy", "kubelet_roots", KEY_STRING_ARRAY, FIELD (policy.kubelet_roots),
    FIELD (policy.n_kubelet_roots), STR_ABS_PATH, 0, 0 },
  { "policy", "cri_namespaces", KEY_STRING_ARRAY, FIELD (policy.cri_namespaces),
    FIELD (policy.n_cri_namespaces), STR_NAMESPACE, 0, 0 },
  { "policy", "cgroup_parents", KEY_STRING_ARRAY, FIELD (policy.cgroup_parents),
    FIELD (policy.n_cgroup_parents), STR_CGROUP_PARENT, 0, 0 },
  { "policy", "hooks", KEY_STRING_ARRAY, FIELD (policy.hooks), FIELD (policy.n_hooks), STR_ABS_PATH,
    0, 0 },
  { "policy", "selinux_types", KEY_STRING_ARRAY, FIELD (policy.selinux_types),
    FIELD (policy.n_selinux_types), STR_SELINUX_TYPE, 0, 0 },
  { "policy", "apparmor_profiles", KEY_STRING_ARRAY, FIELD (policy.apparmor_profiles),
    FIELD (policy.n_apparmor_profiles), STR_PROFILE_GLOB, 0, 0 },
  { "policy", "annotations", KEY_STRING_ARRAY, FIELD (policy.annotations),
    FIELD (policy.n_annotations), STR_REGEX, 0, 0 },
  { "policy", "require_memory_limit", KEY_BOOL, FIELD (policy.require_memory_limit), 0, STR_ANY, 0,
    0 },
  /* MiB; 0 = MemTotal.  2^30 MiB (1 PiB) is beyond any host. */
  { "policy", "max_vm_memory_mib", KEY_INT, FIELD (policy.max_vm_memory_mib), 0, STR_ANY, 0,
    INT64_C (1) << 30 },
  /* MiB; 0 = MemTotal less committed_memory_reserve_mib (policy.capacity). */
  { "policy", "max_committed_memory_mib", KEY_INT, FIELD (policy.max_committed_memory_mib), 0,
    STR_ANY, 0, INT64_C (1) << 30 },
  { "policy", "committed_memory_reserve_mib", KEY_INT, FIELD (policy.committed_memory_reserve_mib),
    0, STR_ANY, 0, INT64_C (1) << 30 },
  /* Firecracker's 32 is applied at check time whatever this says. */
  { "policy", "max_vcpus", KEY_INT, FIELD (policy.max_vcpus), 0, STR_ANY, 1, 1024 },
  /* Kernel's range; -998 is CRI's pod sandbox, -997 a Guaranteed pod. */
  { "policy", "min_oom_score_adj", KEY_INT, FIELD (policy.min_oom_score_adj), 0, STR_ANY, -1000,
    1000 },
  { "policy", "intel_rdt", KEY_BOOL, FIELD (policy.intel_rdt), 0, STR_ANY, 0, 0 },
  { "policy", "require_seccomp", KEY_BOOL, FIELD (policy.require_seccomp), 0, STR_ANY, 0, 0 },
  { "policy", "mode", KEY_STRING, FIELD (policy.mode), 0, STR_POLICY_MODE, 0, 0 },
  { "drift", "lock", KEY_BOOL, FIELD (drift.lock), 0, STR_ANY, 0, 0 },
  { "drift", "require_proof", KEY_BOOL, FIELD (drift.require_proof), 0, STR_ANY, 0, 0 },
  { "drift", "record", KEY_STRING, FIELD (drift.record), 0, STR_ABS_PATH, 0, 0 },
  { "drift", "files", KEY_STRING_ARRAY, FIELD (drift.files), FIELD (drift.n_files), STR_ABS_PATH, 0,
    0 },
  { "cri", "endpoint", KEY_STRING, FIELD (cri.endpoint), 0, STR_ABS_PATH_OR_EMPTY, 0, 0 },
  { "cri", "handler", KEY_STRING, FIELD (cri.handler), 0, STR_NAMESPACE, 0, 0 },
  { "nfd", "file", KEY_STRING, FIELD (nfd.file), 0, STR_ABS_PATH_OR_EMPTY, 0, 0 },
  { "docker", "daemon_json", KEY_STRING, FIELD (docker.daemon_json), 0, STR_ABS_PATH, 0, 0 },
  { "storage", "containerd_config", KEY_STRING, FIELD (storage.containerd_config), 0, STR_ABS_PATH,
    0, 0 },
  { "storage", "pool_data_max_percent", KEY_INT, FIELD (storage.pool_data_max_percent), 0, STR_ANY,
    1, 100 },
  { "storage", "pool_metadata_max_percent", KEY_INT, FIELD (storage.pool_metadata_max_percent), 0,
    STR_ANY, 1, 100 },
};

/* Docker's default capability set (moby oci/caps/defaults.go). */
static const char *const default_capabilities[] = {
  "CAP_CHOWN",   "CAP_DAC_OVERRIDE", "CAP_FSETID",           "CAP_FOWNER",
  "CAP_MKNOD",   "CAP_NET_RAW",      "CAP_SETGID",           "CAP_SETUID",
  "CAP_SETFCAP", "CAP_SETPCAP",      "CAP_NET_BIND_SERVICE", "CAP_SYS_CHROOT",
  "CAP_KILL",    "CAP_AUDIT_WRITE",
};
static const char *const default_engine_roots[] = { "/var/lib/docker" };
/* What Docker (cgroupfs: /docker/ID; systemd: system.slice:docker:ID),
   containerd's CRI and CRI-O (/kubepods/..., kubepods-*.slice) and podman
   (/libpod_parent/libpod-ID, machine.slice:libpod:ID) write. */
static const char *const default_cgroup_parents[] = { "/docker",        "/kubepods",
                                                      "/libpod_parent", "system.slice",
                                                      "kubepods.slice", "machine.slice" };
/* podman's (containers/storage's) graph root and run root. */
static const char *const default_podman_roots[] = { "/var/lib/containers/storage",
                                                    "/run/containers/storage" };
/* containerd's root and state (CRI keeps each pod's files in both). */
static const char *const default_containerd_roots[] = { "/var/lib/containerd", "/run/containerd" };
static const char *const default_kubelet_roots[] = { "/var/lib/kubelet" };
/* The containerd namespace of its CRI plugin (pkg/cri constants). */
static const char *const default_cri_namespaces[] = { "k8s.io" };
/* The types the engines give a container's process (container-selinux's
   container_domain; Kubernetes' baseline Pod Security Standard allows
   these four): container_kvm_t is the one for a VM runtime, which Kata's
   kata_agent.go turns back into container_t for the guest;
   svirt_lxc_net_t is container_t's old name (an alias).  Never spc_t or
   unconfined_t: Kata makes the label its hypervisor's and virtiofsd's on
   the host (policy.labels). */
static const char *const default_selinux_types[] = {
  "container_t", "container_init_t", "container_kvm_t", "container_engine_t", "svirt_lxc_net_t",
};
/* The engines' own default profiles: Docker's, podman's (with its
   version), containerd CRI's and CRI-O's. */
static const char *const default_apparmor_profiles[] = {
  "docker-default",
  "containers-default-*",
  "cri-containerd.apparmor.d",
  "crio-default*",
};
/* Docker's libnetwork prestart hook runs dockerd itself. */
static const char *const default_hooks[] = { "/usr/bin/dockerd", "/usr/sbin/dockerd" };

static const char *const known_hypervisors[] = {
  "firecracker", "qemu", "clh", "dragonball", "stratovirt", "remote", "openvmm",
};

bool
kata_hypervisor_known (const char *name)
{
  for (size_t i = 0; i < ARRAY_SIZE (known_hypervisors); i++)
    if (strcmp (name, known_hypervisors[i]) == 0)
      return true;
  return false;
}

const char *
guard_config_default_path (void)
{
  const char *env = getenv (KG_CONFIG_ENV);

  if (env != NULL && *env != '\0')
    return env;
  return KG_SYSCONFDIR "/kata-guard/config.toml";
}

/* A NULL-terminated copy of ITEMS; false when out of memory. */
static bool
set_list (char ***slot, size_t *count, const char *const *items, size_t n)
{
  *slot = calloc (n + 1, sizeof (char *));
  *count = 0;
  if (*slot == NULL)
    return false;
  for (size_t i = 0; i < n; i++, (*count)++)
    if (((*slot)[i] = strdup (items[i])) == NULL)
      return false;
  return true;
}

static int
set_defaults (struct guard_config *cfg, kg_error_t *err)
{
  static const char *const default_hypervisors[] = { "firecracker" };

  cfg->runtime.shim = strdup (KG_DEFAULT_RUNTIME_SHIM);
  cfg->runtime.oci = strdup ("");
  cfg->runtime.deadline_ms = 5000;
  cfg->kvm.device = strdup ("/dev/kvm");
  cfg->kvm.create_vm = true;
  cfg->kata.config = strdup ("");
  cfg->kata.runtime = strdup ("auto");
  cfg->kata.hypervisors = calloc (2, sizeof (char *));
  if (cfg->kata.hypervisors != NULL)
    {
      cfg->kata.hypervisors[0] = strdup (default_hypervisors[0]);
      cfg->kata.n_hypervisors = cfg->kata.hypervisors[0] ? 1 : 0;
    }
  cfg->egress.enabled = true;
  cfg->egress.proxy = strdup ("");
  cfg->egress.timeout_ms = 1000;
  cfg->egress.probe_host = strdup ("");
  cfg->egress.expect_status = 0;
  /* squid and tinyproxy deny with 403, smokescreen with 407 (and the
     probe, like an agent, carries no proxy credentials). */
  cfg->egress.deny_statuses[0] = 403;
  cfg->egress.deny_statuses[1] = 407;
  cfg->egress.n_deny_statuses = 2;
  cfg->log.syslog = true;
  cfg->log.file = strdup ("");
  cfg->docker.daemon_json = strdup (DAEMONJSON_DEFAULT);
  cfg->cri.endpoint = strdup ("");
  cfg->cri.handler = strdup (KG_CRI_HANDLER_DEFAULT);
  cfg->nfd.file = strdup ("");
  cfg->storage.containerd_config = strdup (KG_CONTAINERD_CONFIG_DEFAULT);
  cfg->storage.pool_data_max_percent = 90;
  cfg->storage.pool_metadata_max_percent = 90;
  cfg->policy.mode = strdup ("enforce");
  cfg->drift.record = strdup (KG_POSTURE_RECORD_DEFAULT);
  cfg->policy.require_memory_limit = true;
  cfg->policy.max_vcpus = 32;
  cfg->policy.min_oom_score_adj = -998;
  cfg->policy.committed_memory_reserve_mib = 2048;
  if (! set_list (&cfg->policy.capabilities, &cfg->policy.n_capabilities, default_capabilities,
                  ARRAY_SIZE (default_capabilities))
      || ! set_list (&cfg->policy.devices, &cfg->policy.n_devices, NULL, 0)
      || ! set_list (&cfg->policy.deny_mounts, &cfg->policy.n_deny_mounts, NULL, 0)
      || ! set_list (&cfg->policy.writable_mounts, &cfg->policy.n_writable_mounts, NULL, 0)
      || ! set_list (&cfg->policy.engine_roots, &cfg->policy.n_engine_roots, default_engine_roots,
                     ARRAY_SIZE (default_engine_roots))
      || ! set_list (&cfg->policy.podman_roots, &cfg->policy.n_podman_roots, default_podman_roots,
                     ARRAY_SIZE (default_podman_roots))
      || ! set_list (&cfg->policy.containerd_roots, &cfg->policy.n_containerd_roots,
                     default_containerd_roots, ARRAY_SIZE (default_containerd_roots))
      || ! set_list (&cfg->policy.kubelet_roots, &cfg->policy.n_kubelet_roots,
                     default_kubelet_roots, ARRAY_SIZE (default_kubelet_roots))
      || ! set_list (&cfg->policy.cri_namespaces, &cfg->policy.n_cri_namespaces,
                     default_cri_namespaces, ARRAY_SIZE (default_cri_namespaces))
      || ! set_list (&cfg->policy.cgroup_parents, &cfg->policy.n_cgroup_parents,
                     default_cgroup_parents, ARRAY_SIZE (default_cgroup_parents))
      || ! set_list (&cfg->policy.hooks, &cfg->policy.n_hooks, default_hooks,
                     ARRAY_SIZE (default_hooks))
      || ! set_list (&cfg->policy.selinux_types, &cfg->policy.n_selinux_types,
                     default_selinux_types, ARRAY_SIZE (default_selinux_types))
      || ! set_list (&cfg->policy.apparmor_profiles, &cfg->policy.n_apparmor_profiles,
                     default_apparmor_profiles, ARRAY_SIZE (default_apparmor_profiles))
      || ! set_list (&cfg->policy.annotations, &cfg->policy.n_annotations, NULL, 0)
      || ! set_list (&cfg->egress.networks, &cfg->egress.n_networks, NULL, 0)
      || ! set_list (&cfg->drift.files, &cfg->drift.n_files, NULL, 0))
    return kg_error (err, ENOMEM, "cannot allocate the configuration");
  if (! cfg->storage.containerd_config || ! cfg->policy.mode || ! cfg->drift.record
      || ! cfg->log.file || ! cfg->docker.daemon_json || ! cfg->cri.endpoint || ! cfg->cri.handler
      || ! cfg->nfd.file || ! cfg->runtime.shim || ! cfg->runtime.oci || ! cfg->kvm.device
      || ! cfg->kata.config || ! cfg->kata.runtime || cfg->kata.n_hypervisors != 1
      || ! cfg->egress.proxy || ! cfg->egress.probe_host)
    return kg_error (err, ENOMEM, "cannot allocate the configuration");
  return 0;
}

static bool
valid_hostname (const char *s)
{
  size_t len = strlen (s), label = 0;

  /* Goes into "CONNECT host:443": only what DNS names may hold, so that
     the value can never smuggle a space, a CR or an LF into the request. */
  if (len == 0 || len > 253 || s[0] == '.' || s[0] == '-')
    return false;
  for (const char *p = s; *p; p++)
    {
      if (*p == '.')
        {
          if (label == 0)
            return false;
          label = 0;
          continue;
        }
      if (! ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9')
             || *p == '-'))
        return false;
      if (++label > 63)
        return false;
    }
  return true;
}

int
conf_parse_cidr (const char *s, struct conf_net *out)
{
  char a[64];
  const char *slash = strchr (s, '/');
  char *end;
  long n;

  if (slash == NULL || (size_t) (slash - s) >= sizeof a)
    return -1;
  memcpy (a, s, (size_t) (slash - s));
  a[slash - s] = '\0';
  memset (out, 0, sizeof *out);
  if (inet_pton (AF_INET, a, out->addr) == 1)
    out->family = AF_INET;
  else if (inet_pton (AF_INET6, a, out->addr) == 1)
    out->family = AF_INET6;
  else
    return -1;
  errno = 0;
  n = strtol (slash + 1, &end, 10);
  if (errno != 0 || end == slash + 1 || *end != '\0' || n < 0
      || n > (out->family == AF_INET ? 32 : 128))
    return -1;
  out->prefix = (uint8_t) n;
  return 0;
}

int
conf_parse_endpoint (const char *s, struct sockaddr_storage *ss, unsigned *len, kg_error_t *err)
{
  char host[INET6_ADDRSTRLEN + 1];
  const char *colon, *port_s;
  unsigned long port = 0;
  bool v6 = s[0] == '[';
  size_t hlen;

  memset (ss, 0, sizeof *ss);
  if (v6)
    {
      const char *close = strchr (s, ']');

      if (close == NULL || close[1] != ':')
        return kg_error (err, 0, "\"%s\": expected [IPv6]:port", s);
      hlen = (size_t) (close - s - 1);
      s++;
      port_s = close + 2;
    }
  else
    {
      colon = strrchr (s, ':');
      if (colon == NULL)
        return kg_error (err, 0, "\"%s\": expected IPv4:port", s);
      hlen = (size_t) (colon - s);
      port_s = colon + 1;
    }
  if (hlen == 0 || hlen >= sizeof host)
    return kg_error (err, 0, "\"%s\": not an IP address", s);
  memcpy (host, s, hlen);
  host[hlen] = '\0';
  /* Decimal digits only: no sign, no spaces, no hex, at most 5 digits. */
  if (*port_s == '\0' || strlen (port_s) > 5)
    return kg_error (err, 0, "\"%s\": bad port", port_s);
  for (const char *p = port_s; *p; p++)
    {
      if (! isdigit ((unsigned char) *p))
        return kg_error (err, 0, "\"%s\": bad port", port_s);
      port = port * 10 + (unsigned long) (*p - '0');
    }
  if (port == 0 || port > 65535)
    return kg_error (err, 0, "%lu: port out of range (1..65535)", port);
  if (v6)
    {
      struct sockaddr_in6 *in6 = (struct sockaddr_in6 *) ss;

      if (inet_pton (AF_INET6, host, &in6->sin6_addr) != 1)
        return kg_error (err, 0, "\"%s\": not an IPv6 address", host);
      in6->sin6_family = AF_INET6;
      in6->sin6_port = htons ((uint16_t) port);
      *len = sizeof *in6;
    }
  else
    {
      struct sockaddr_in *in4 = (struct sockaddr_in *) ss;

      /* inet_pton takes only the dotted quad, never a name. */
      if (inet_pton (AF_INET, host, &in4->sin_addr) != 1)
        return kg_error (err, 0, "\"%s\": not an IPv4 address", host);
      in4->sin_family = AF_INET;
      in4->sin_port = htons ((uint16_t) port);
      *len = sizeof *in4;
    }
  return 0;
}

static bool
has_control (const char *s)
{
  for (const unsigned char *p = (const unsigned char *) s; *p; p++)
    if (kg_is_ctl (*p))
      return true;
  return false;
}

/* Whether RE holds two repetition operators in a row ("a++", "a*{2}"):
   POSIX leaves their meaning undefined, and glibc's regcomp takes time
   exponential in their number (found by fuzzing: 21 "+" took seconds). */
static bool
stacked_repetition (const char *re)
{
  bool prev = false;

  for (const char *p = re; *p; p++)
    {
      bool rep = false;

      if (*p == '\\')
        {
          if (p[1] != '\0')
            p++;
        }
      else if (*p == '[')
        {
          /* A bracket expression: its "*+?{" are plain characters. */
          p++;
          if (*p == '^')
            p++;
          if (*p == ']')
            p++;
          while (*p != '\0' && *p != ']')
            {
              if (*p == '[' && (p[1] == ':' || p[1] == '=' || p[1] == '.'))
                {
                  const char *q = p + 2;

                  while (*q != '\0' && ! (*q == p[1] && q[1] == ']'))
                    q++;
                  if (*q == '\0')
                    return false; /* unbalanced: regcomp refuses it */
                  p = q + 2;
                }
              else
                p++;
            }
          if (*p == '\0')
            return false;
        }
      else if (*p == '*' || *p == '+' || *p == '?')
        rep = true;
      else if (*p == '{')
        {
          const char *q = strchr (p, '}');

          if (q == NULL)
            return false;
          p = q;
          rep = true;
        }
      if (rep && prev)
        return true;
      prev = rep;
    }
  return false;
}

int
conf_compile_annotation_re (const char *re, regex_t *out, kg_error_t *err)
{
  cleanup_free char *full = NULL;
  int rc;

  if (stacked_repetition (re))
    return kg_error (err, 0,
                     "two repetition operators in a row (such as \"++\" or \"*?\"): "
                     "POSIX leaves their meaning undefined");

  /* Anchored: "io.katacontainers.config.hypervisor.default_memory" must
     not also allow "...default_memory_and_more". */
  if (asprintf (&full, "^(%s)$", re) < 0)
    return kg_error (err, ENOMEM, "cannot allocate");
  rc = regcomp (out, full, REG_EXTENDED | REG_NOSUB);
  if (rc != 0)
    {
      char msg[128];

      regerror (rc, out, msg, sizeof msg);
      return kg_error (err, 0, "%s", msg);
    }
  return 0;
}

/* libcap parses names case-insensitively and also takes bare numbers;
   only "CAP_" names are accepted, as the OCI runtime spec writes them. */
static bool
valid_capability (const char *s)
{
  cap_value_t v;

  return strncasecmp (s, "CAP_", 4) == 0 && cap_from_name (s, &v) == 0;
}

/* A [policy] cgroup_parents entry: a cgroupfs directory (kg_path_clean)
   or a systemd slice ("name.slice", no '/' or ':', as
   libcontainer/cgroups/systemd ExpandSlice takes it). */
bool
conf_valid_cgroup_parent (const char *s)
{
  size_t n = strlen (s);

  if (s[0] == '/')
    return kg_path_clean (s);
  return n > 6 && strcmp (s + n - 6, ".slice") == 0 && strpbrk (s, "/:") == NULL
         && strstr (s, "--") == NULL && s[0] != '-';
}

/* containerd's namespaces.Validate (identifiers.Validate): labels of
   letters and digits joined by single '.', '_' or '-', at most 76 bytes. */
bool
conf_valid_namespace (const char *s)
{
  size_t n = strlen (s);

  if (n == 0 || n > 76)
    return false;
  for (size_t i = 0; i < n; i++)
    if (! isalnum ((unsigned char) s[i])
        && (strchr ("._-", s[i]) == NULL || i == 0 || i + 1 == n
            || ! isalnum ((unsigned char) s[i + 1])))
      return false;
  return true;
}

/* Returns NULL when S is acceptable, else what is wrong with it. */
static const char *
check_string (enum str_rule rule, const char *s)
{
  if (rule != STR_ANY && has_control (s))
    return "must not contain control characters";
  switch (rule)
    {
    case STR_ANY:
      return NULL;
    case STR_ABS_PATH:
      if (*s == '\0')
        return "must not be empty";
      /* fall through */
    case STR_ABS_PATH_OR_EMPTY:
      if (*s != '\0' && *s != '/')
        return "must be an absolute path";
      if (strlen (s) >= 4096)
        return "is longer than PATH_MAX";
      return NULL;
    case STR_HOSTNAME:
      return valid_hostname (s) ? NULL : "must be a DNS host name (letters, digits, '-', '.')";
    case STR_CIDR:
      {
        struct conf_net n;

        return conf_parse_cidr (s, &n) == 0 ? NULL
                                            : "must be an IPv4 or IPv6 network (ADDR/PREFIX)";
      }
    case STR_HOSTNAME_OR_EMPTY:
      return *s == '\0' || valid_hostname (s)
                 ? NULL
                 : "must be a DNS host name (letters, digits, '-', '.') or empty";
    case STR_HYPERVISOR:
      return kata_hypervisor_known (s)
                 ? NULL
                 : "is not a Kata hypervisor (firecracker, qemu, clh, dragonball, stratovirt, "
                   "remote, openvmm)";
    case STR_KATA_RUNTIME:
      return strcmp (s, "auto") == 0 || strcmp (s, "go") == 0 || strcmp (s, "runtime-rs") == 0
                 ? NULL
                 : "must be \"auto\", \"go\" or \"runtime-rs\"";
    case STR_POLICY_MODE:
      return strcmp (s, "enforce") == 0 || strcmp (s, "audit") == 0
                 ? NULL
                 : "must be \"enforce\" or \"audit\"";
    case STR_ENDPOINT_OR_EMPTY:
      {
        struct sockaddr_storage ss;
        unsigned len;

        if (*s == '\0')
          return NULL;
        if (conf_parse_endpoint (s, &ss, &len, NULL) < 0)
          return "must be a literal IPv4:port or [IPv6]:port (no host names: a guest cannot "
                 "resolve them through the engine's DNS)";
        return NULL;
      }
    case STR_CGROUP_PARENT:
      return conf_valid_cgroup_parent (s) ? NULL
                                          : "must be a clean absolute cgroup path (\"/docker\", "
                                            "not \"/\") or a systemd slice (\"system.slice\")";
    case STR_NAMESPACE:
      return conf_valid_namespace (s) ? NULL
                                      : "is not a containerd namespace name (letters, digits, "
                                        "'.', '_', '-', starting with a letter or digit)";
    case STR_SELINUX_TYPE:
      return *s != '\0' && strlen (s) <= 64 && strspn (s, SELINUX_TYPE_CHARS) == strlen (s)
                 ? NULL
                 : "is not an SELinux type name (letters, digits, '_'; at most 64)";
    case STR_PROFILE_GLOB:
      return *s != '\0' && strlen (s) <= 255 ? NULL
                                             : "must be a profile name or pattern (1 to 255 bytes)";
    case STR_CAPABILITY:
      return valid_capability (s) ? NULL : "is not a capability name libcap knows (CAP_*)";
    case STR_REGEX:
      {
        regex_t re;

        if (*s == '\0')
          return "must not be empty";
        if (conf_compile_annotation_re (s, &re, NULL) < 0)
          return "is not a valid POSIX extended regular expression";
        regfree (&re);
        return NULL;
      }
    }
  return "cannot be validated";
}

static int
key_error (kg_error_t *err, const char *name, const struct key_spec *k, const struct toml_value *v,
           const char *what)
{
  return kg_error (err, 0, "%s:%u: [%s] %s: %s", name, v->line, k->table, k->key, what);
}

/* KEY_BOOL: a boolean. */
static int
apply_bool (const char *name, const struct key_spec *k, const struct toml_value *v,
            struct guard_config *cfg, kg_error_t *err)
{
  char *base = (char *) cfg;
  char msg[160];

  if (v->kind != TOML_BOOLEAN)
    {
      snprintf (msg, sizeof msg, "expected a boolean, found %s", toml_kind_name (v->kind));
      return key_error (err, name, k, v, msg);
    }
  *(bool *) (base + k->offset) = v->u.boolean;
  return 0;
}

/* KEY_INT: an integer within [min, max]. */
static int
apply_int (const char *name, const struct key_spec *k, const struct toml_value *v,
           struct guard_config *cfg, kg_error_t *err)
{
  char *base = (char *) cfg;
  char msg[160];

  if (v->kind != TOML_INTEGER)
    {
      snprintf (msg, sizeof msg, "expected an integer, found %s", toml_kind_name (v->kind));
      return key_error (err, name, k, v, msg);
    }
  if (v->u.integer < k->min || v->u.integer > k->max)
    {
      snprintf (msg, sizeof msg, "%" PRId64 " is out of range (%" PRId64 "..%" PRId64 ")",
                v->u.integer, k->min, k->max);
      return key_error (err, name, k, v, msg);
    }
  *(int64_t *) (base + k->offset) = v->u.integer;
  return 0;
}

/* V, the value of K or (ITEM > 0) the ITEM'th of its array, is a string
   that passes K's rule: 0, or -1 with why. */
static int
string_ok (const char *name, const struct key_spec *k, const struct toml_value *v, size_t item,
           kg_error_t *err)
{
  const char *bad;
  char msg[160];

  if (v->kind != TOML_STRING)
    {
      if (item > 0)
        snprintf (msg, sizeof msg, "item %zu: expected a string, found %s", item,
                  toml_kind_name (v->kind));
      else
        snprintf (msg, sizeof msg, "expected a string, found %s", toml_kind_name (v->kind));
      return key_error (err, name, k, v, msg);
    }
  bad = check_string (k->rule, v->u.string);
  if (bad != NULL)
    {
      snprintf (msg, sizeof msg, "\"%.64s\" %s", v->u.string, bad);
      return key_error (err, name, k, v, msg);
    }
  return 0;
}

/* KEY_STRING: a string that passes its rule. */
static int
apply_string (const char *name, const struct key_spec *k, const struct toml_value *v,
              struct guard_config *cfg, kg_error_t *err)
{
  char **slot = (char **) ((char *) cfg + k->offset);
  char *dup;

  if (string_ok (name, k, v, 0, err) < 0)
    return -1;
  dup = strdup (v->u.string);
  if (dup == NULL)
    return kg_error (err, ENOMEM, "%s: cannot allocate", name);
  free (*slot);
  *slot = dup;
  return 0;
}

/* KEY_STRING_ARRAY: an array of strings, each passing the rule; it replaces the default list. */
static int
apply_string_array (const char *name, const struct key_spec *k, const struct toml_value *v,
                    struct guard_config *cfg, kg_error_t *err)
{
  char *base = (char *) cfg;
  char msg[160];
  char ***slot = (char ***) (base + k->offset);
  size_t *count = (size_t *) (base + k->count_offset);
  char **list;
  size_t n;

  if (v->kind != TOML_ARRAY)
    {
      snprintf (msg, sizeof msg, "expected an array of strings, found %s",
                toml_kind_name (v->kind));
      return key_error (err, name, k, v, msg);
    }
  n = v->u.array.n;
  for (size_t i = 0; i < n; i++)
    if (string_ok (name, k, v->u.array.items[i], i + 1, err) < 0)
      return -1;
  list = calloc (n + 1, sizeof *list);
  if (list == NULL)
    return kg_error (err, ENOMEM, "%s: cannot allocate", name);
  for (size_t i = 0; i < n; i++)
    if ((list[i] = strdup (v->u.array.items[i]->u.string)) == NULL)
      {
        for (size_t j = 0; j < i; j++)
          free (list[j]);
        free (list);
        return kg_error (err, ENOMEM, "%s: cannot allocate", name);
      }
  for (size_t i = 0; i < *count; i++)
    free ((*slot)[i]);
  free (*slot);
  *slot = list;
  *count = n;
  return 0;
}

/* KEY_INT_LIST: 1 to CONF_MAX_STATUSES integers within [min, max]. */
static int
apply_int_list (const char *name, const struct key_spec *k, const struct toml_value *v,
                struct guard_config *cfg, kg_error_t *err)
{
  char *base = (char *) cfg;
  char msg[160];
  int64_t *slot = (int64_t *) (base + k->offset);
  size_t *count = (size_t *) (base + k->count_offset);

  if (v->kind != TOML_ARRAY || v->u.array.n == 0 || v->u.array.n > CONF_MAX_STATUSES)
    {
      snprintf (msg, sizeof msg, "expected an array of 1 to %d integers, found %s",
                CONF_MAX_STATUSES,
                v->kind == TOML_ARRAY ? "another number of items" : toml_kind_name (v->kind));
      return key_error (err, name, k, v, msg);
    }
  for (size_t i = 0; i < v->u.array.n; i++)
    {
      const struct toml_value *item = v->u.array.items[i];

      if (item->kind != TOML_INTEGER || item->u.integer < k->min || item->u.integer > k->max)
        {
          snprintf (msg, sizeof msg, "item %zu: expected an integer from %" PRId64 " to %" PRId64,
                    i + 1, k->min, k->max);
          return key_error (err, name, k, item, msg);
        }
    }
  for (size_t i = 0; i < v->u.array.n; i++)
    slot[i] = v->u.array.items[i]->u.integer;
  *count = v->u.array.n;
  return 0;
}

/* KEY_PIN_TABLE: a table of "/path" = "64 hex digits" (lower-cased). */
static int
apply_pin_table (const char *name, const struct key_spec *k, const struct toml_value *v,
                 struct guard_config *cfg, kg_error_t *err)
{
  char *base = (char *) cfg;
  const char *bad;
  char msg[160];
  struct sha256_pin **slot = (struct sha256_pin **) (base + k->offset);
  size_t *count = (size_t *) (base + k->count_offset);
  struct sha256_pin *pins;
  size_t n;

  if (v->kind != TOML_TABLE)
    {
      snprintf (msg, sizeof msg, "expected a table of \"/path\" = \"sha256\", found %s",
                toml_kind_name (v->kind));
      return key_error (err, name, k, v, msg);
    }
  n = v->u.table.n;
  for (size_t i = 0; i < n; i++)
    {
      const struct toml_entry *e = &v->u.table.items[i];
      const char *hex = e->value->kind == TOML_STRING ? e->value->u.string : NULL;
      size_t hl = hex ? strlen (hex) : 0;

      bad = check_string (k->rule, e->key);
      if (bad != NULL)
        return kg_error (err, 0, "%s:%u: [%s.%s] \"%.64s\": the file %s", name, e->line, k->table,
                         k->key, e->key, bad);
      if (hex == NULL || hl != 64 || strspn (hex, "0123456789abcdefABCDEF") != 64)
        return kg_error (err, 0, "%s:%u: [%s.%s] \"%.64s\": expected 64 hex digits", name, e->line,
                         k->table, k->key, e->key);
    }
  pins = calloc (n + 1, sizeof *pins);
  if (pins == NULL)
    return kg_error (err, ENOMEM, "%s: cannot allocate", name);
  for (size_t i = 0; i < *count; i++)
    {
      free ((*slot)[i].path);
      free ((*slot)[i].hex);
    }
  free (*slot);
  *slot = pins;
  *count = 0;
  for (size_t i = 0; i < n; i++, (*count)++)
    {
      const struct toml_entry *e = &v->u.table.items[i];

      pins[i].path = strdup (e->key);
      pins[i].hex = strdup (e->value->u.string);
      if (pins[i].path == NULL || pins[i].hex == NULL)
        {
          (*count)++;
          return kg_error (err, ENOMEM, "%s: cannot allocate", name);
        }
      for (char *h = pins[i].hex; *h; h++)
        *h = (char) tolower ((unsigned char) *h);
    }
  return 0;
}

/* Apply V to the key K of CFG, checked by its type (NAME: the file, for
   messages). */
static int
apply_key (const char *name, const struct key_spec *k, const struct toml_value *v,
           struct guard_config *cfg, kg_error_t *err)
{
  switch (k->type)
    {
    case KEY_BOOL:
      return apply_bool (name, k, v, cfg, err);
    case KEY_INT:
      return apply_int (name, k, v, cfg, err);
    case KEY_STRING:
      return apply_string (name, k, v, cfg, err);
    case KEY_STRING_ARRAY:
      return apply_string_array (name, k, v, cfg, err);
    case KEY_INT_LIST:
      return apply_int_list (name, k, v, cfg, err);
    case KEY_PIN_TABLE:
      return apply_pin_table (name, k, v, cfg, err);
    }
  return kg_error (err, 0, "%s: internal error: unknown key type", name);
}

static const struct key_spec *
find_key (const char *table, const char *key)
{
  for (size_t i = 0; i < ARRAY_SIZE (keys); i++)
    if (strcmp (keys[i].table, table) == 0 && strcmp (keys[i].key, key) == 0)
      return &keys[i];
  return NULL;
}

static bool
table_known (const char *table)
{
  for (size_t i = 0; i < ARRAY_SIZE (keys); i++)
    if (strcmp (keys[i].table, table) == 0)
      return true;
  return false;
}

static void
free_annotation_res (struct guard_config *cfg)
{
  for (size_t i = 0; i < cfg->policy.n_annotation_res; i++)
    regfree (&cfg->policy.annotation_res[i]);
  free (cfg->policy.annotation_res);
  cfg->policy.annotation_res = NULL;
  cfg->policy.n_annotation_res = 0;
}

/* Compiled once at load time, so that a check never meets a bad regex. */
static int
compile_annotations (const char *name, struct guard_config *cfg, kg_error_t *err)
{
  free_annotation_res (cfg);
  cfg->policy.annotation_res = calloc (cfg->policy.n_annotations + 1, sizeof (regex_t));
  if (cfg->policy.annotation_res == NULL)
    return kg_error (err, ENOMEM, "%s: cannot allocate", name);
  for (size_t i = 0; i < cfg->policy.n_annotations; i++)
    {
      if (conf_compile_annotation_re (cfg->policy.annotations[i], &cfg->policy.annotation_res[i],
                                      err)
          < 0)
        return kg_error_prefix (err, "%s: [policy] annotations: \"%.64s\"", name,
                                cfg->policy.annotations[i]);
      cfg->policy.n_annotation_res++;
    }
  return 0;
}

static void
free_list (char **list, size_t n)
{
  for (size_t i = 0; i < n; i++)
    free (list[i]);
  free (list);
}

int
guard_config_from_toml (const char *name, const struct toml_value *doc, struct guard_config *cfg,
                        kg_error_t *err)
{
  size_t n_keys = 0;

  if (doc->kind != TOML_TABLE)
    return kg_error (err, 0, "%s: not a TOML document", name);
  for (size_t i = 0; i < doc->u.table.n; i++)
    {
      const struct toml_entry *t = &doc->u.table.items[i];

      if (t->value->kind != TOML_TABLE || ! table_known (t->key))
        {
          if (t->value->kind == TOML_TABLE)
            return kg_error (err, 0, "%s:%u: unknown table [%s]", name, t->line, t->key);
          return kg_error (err, 0, "%s:%u: %s: unknown key outside any table", name, t->line,
                           t->key);
        }
      for (size_t j = 0; j < t->value->u.table.n; j++)
        {
          const struct toml_entry *e = &t->value->u.table.items[j];
          const struct key_spec *k = find_key (t->key, e->key);

          if (k == NULL)
            return kg_error (err, 0, "%s:%u: [%s] %s: unknown key", name, e->line, t->key, e->key);
          if (apply_key (name, k, e->value, cfg, err) < 0)
            return -1;
          n_keys++;
        }
    }
  /* An empty file is far more likely a truncated write or the wrong file
     than a wish for every default: refuse it. */
  if (n_keys == 0)
    return kg_error (err, 0,
                     "%s: the configuration is empty (write at least one key; "
                     "see kata-guard.toml(5))",
                     name);
  if (cfg->kata.n_hypervisors == 0)
    return kg_error (err, 0, "%s: [kata] hypervisors: must name at least one hypervisor", name);
  return compile_annotations (name, cfg, err);
}

int
guard_config_defaults (struct guard_config *cfg, kg_error_t *err)
{
  memset (cfg, 0, sizeof *cfg);
  if (set_defaults (cfg, err) < 0)
    {
      guard_config_release (cfg);
      return -1;
    }
  if ((cfg->path = strdup ("(built-in defaults)")) == NULL)
    {
      guard_config_release (cfg);
      return kg_error (err, ENOMEM, "cannot allocate the configuration");
    }
  return 0;
}

/* guard_config_load's steps; CFG is released by the caller on failure. */
static int
config_load (const char *path, struct guard_config *cfg, kg_error_t *err)
{
  cleanup_toml struct toml_value *doc = NULL;

  if (set_defaults (cfg, err) < 0)
    return -1;
  cfg->path = strdup (path);
  if (cfg->path == NULL)
    return kg_error (err, ENOMEM, "%s: cannot allocate", path);
  doc = toml_parse_file (path, err);
  if (doc == NULL)
    return -1;
  return guard_config_from_toml (path, doc, cfg, err);
}

int
guard_config_load (const char *path, struct guard_config *cfg, kg_error_t *err)
{
  memset (cfg, 0, sizeof *cfg);
  if (config_load (path, cfg, err) < 0)
    {
      guard_config_release (cfg);
      return -1;
    }
  return 0;
}

void
guard_config_release (struct guard_config *cfg)
{
  free (cfg->path);
  free (cfg->runtime.shim);
  free (cfg->runtime.oci);
  free (cfg->kvm.device);
  free (cfg->kata.config);
  free (cfg->kata.runtime);
  free (cfg->policy.mode);
  free (cfg->drift.record);
  free_list (cfg->drift.files, cfg->drift.n_files);
  for (size_t i = 0; i < cfg->kata.n_hypervisors; i++)
    free (cfg->kata.hypervisors[i]);
  free (cfg->kata.hypervisors);
  free (cfg->egress.proxy);
  free (cfg->egress.probe_host);
  for (size_t i = 0; i < cfg->assets.n_extra; i++)
    free (cfg->assets.extra[i]);
  free (cfg->assets.extra);
  for (size_t i = 0; i < cfg->assets.n_pins; i++)
    {
      free (cfg->assets.pins[i].path);
      free (cfg->assets.pins[i].hex);
    }
  free (cfg->assets.pins);
  free (cfg->log.file);
  free (cfg->docker.daemon_json);
  free (cfg->cri.endpoint);
  free (cfg->cri.handler);
  free (cfg->nfd.file);
  free (cfg->storage.containerd_config);
  free_list (cfg->policy.capabilities, cfg->policy.n_capabilities);
  free_list (cfg->policy.devices, cfg->policy.n_devices);
  free_list (cfg->policy.deny_mounts, cfg->policy.n_deny_mounts);
  free_list (cfg->policy.writable_mounts, cfg->policy.n_writable_mounts);
  free_list (cfg->policy.engine_roots, cfg->policy.n_engine_roots);
  free_list (cfg->policy.podman_roots, cfg->policy.n_podman_roots);
  free_list (cfg->policy.containerd_roots, cfg->policy.n_containerd_roots);
  free_list (cfg->policy.kubelet_roots, cfg->policy.n_kubelet_roots);
  free_list (cfg->policy.cri_namespaces, cfg->policy.n_cri_namespaces);
  free_list (cfg->policy.cgroup_parents, cfg->policy.n_cgroup_parents);
  free_list (cfg->policy.hooks, cfg->policy.n_hooks);
  free_list (cfg->policy.selinux_types, cfg->policy.n_selinux_types);
  free_list (cfg->policy.apparmor_profiles, cfg->policy.n_apparmor_profiles);
  free_list (cfg->policy.annotations, cfg->policy.n_annotations);
  free_list (cfg->egress.networks, cfg->egress.n_networks);
  free_annotation_res (cfg);
  memset (cfg, 0, sizeof *cfg);
}
