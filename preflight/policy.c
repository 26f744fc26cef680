/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * policy.*: what one container asks for, read from its bundle's
 * config.json (kata-guard(8), CHECKS, Per-container policy).  Per
 * container: without a bundle (plain `kata-guard check`) this family
 * reports nothing.
 *
 * The spec is untrusted input written by whoever called `docker run`, so it
 * is read bounded (size, depth), strictly (json-c strict mode, valid UTF-8,
 * no trailing data) and without following a symlink.  Every rule reports
 * exactly one result; a value the guard cannot interpret refuses, it never
 * means "not set".
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <limits.h>
#include <seccomp.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "checks.h"
#include "daemonjson.h"
#include "egress.h"
#include "jscan.h"
#include "kata.h"
#include "netns.h"
#include "policy.h"
#include "trust.h"
#include "toml.h"
#include "util.h"

/* ---- small helpers -------------------------------------------------- */

/* One finding of a rule: counted (the verdict) and listed (the reason). */
struct findings
{
  struct strbuf text;
  size_t n;
};

static void
findings_release (struct findings *f)
{
  sb_release (&f->text);
}
#define cleanup_findings __attribute__ ((cleanup (findings_release)))

__attribute__ ((format (printf, 2, 3))) static void
finding (struct findings *f, const char *fmt, ...)
{
  cleanup_free char *item = NULL;
  va_list ap;
  int r;

  va_start (ap, fmt);
  r = vasprintf (&item, fmt, ap);
  va_end (ap);
  f->n++;
  /* Long lists are cut: the reason must stay short enough for a terminal. */
  if (f->n <= 8)
    sb_printf (&f->text, "%s%s", f->n > 1 ? "; " : "", r >= 0 ? item : "(out of memory)");
  else if (f->n == 9)
    sb_printf (&f->text, "; ...");
}

/* KEY of OBJ.  Go's encoding/json (containerd, Kata's Go shim) matches
   object keys case-insensitively, runtime-rs does not: a key that differs
   from a known one only in case would be read by one and not by the other,
   so it is a finding, not something to skip.  WHERE names OBJ. */
static struct json_object *
jget (struct json_object *obj, const char *where, const char *key, struct findings *f)
{
  struct json_object *found = NULL;

  if (obj == NULL || ! json_object_is_type (obj, json_type_object))
    return NULL;
  json_object_object_foreach (obj, k, v)
    {
      if (strcmp (k, key) == 0)
        found = v;
      else if (strcasecmp (k, key) == 0)
        finding (f, "%s key \"%s\" differs from \"%s\" only in case (runtimes disagree on it)",
                 where, k, key);
    }
  /* null is what Go writes for an empty slice or map. */
  if (found != NULL && json_object_is_type (found, json_type_null))
    return NULL;
  return found;
}

/* jget, and the value must be of TYPE (else a finding and NULL). */
static struct json_object *
jget_type (struct json_object *obj, const char *where, const char *key, json_type type,
           struct findings *f)
{
  struct json_object *v = jget (obj, where, key, f);
  static const char *const names[] = {
    [json_type_object] = "an object", [json_type_array] = "an array",
    [json_type_string] = "a string",  [json_type_boolean] = "a boolean",
    [json_type_int] = "an integer",
  };

  if (v == NULL || json_object_is_type (v, type))
    return v;
  finding (f, "%s.%s is %s, not %s", where, key, json_kind (v),
           (size_t) type < ARRAY_SIZE (names) && names[type] ? names[type] : "valid");
  return NULL;
}

static bool
path_under (const char *p, const char *dir)
{
  size_t n = strlen (dir);

  if (strcmp (dir, "/") == 0)
    return true;
  return strncmp (p, dir, n) == 0 && (p[n] == '\0' || p[n] == '/');
}

/* ---- paths ---------------------------------------------------------- */

#define MAX_SYMLINKS 40

/* What a resolution with FOLLOW learned of its result: EXISTS when every
   component exists; then, with HAVE_ST, ST is the last component's lstat
   (the result holds no symlink, so it is its stat too). */
struct resolved_info
{
  bool exists;
  bool have_st;
  struct stat st;
};

static int
resolve_path (const char *base, const char *path, bool follow, char **out,
              struct resolved_info *ri, kg_error_t *err)
{
  cleanup_free char *todo = NULL;
  cleanup_free char *cur = NULL;
  size_t cur_len = 0;
  bool exists = follow;
  bool have_st = false;
  struct stat st;
  int links = 0;
  char *p;

  if (path[0] == '/')
    todo = strdup (path);
  else if (asprintf (&todo, "%s/%s", base, path) < 0)
    todo = NULL;
  /* Every step writes its terminator: no need to clear PATH_MAX bytes. */
  cur = malloc (PATH_MAX + 1);
  if (todo == NULL || cur == NULL)
    return kg_error (err, ENOMEM, "%s: cannot allocate", path);
  cur[0] = '\0';
  if (todo[0] != '/')
    return kg_error (err, 0, "%s: not an absolute path", path);

  p = todo;
  while (*p)
    {
      char *comp, *next;
      size_t clen;

      while (*p == '/')
        p++;
      if (*p == '\0')
        break;
      comp = p;
      clen = strcspn (p, "/");
      p += clen;
      if (clen == 1 && comp[0] == '.')
        continue;
      if (clen == 2 && comp[0] == '.' && comp[1] == '.')
        {
          /* CUR has no symlinks in it, so its parent is a string cut. */
          while (cur_len > 0 && cur[cur_len - 1] != '/')
            cur_len--;
          if (cur_len > 0)
            cur_len--;
          cur[cur_len] = '\0';
          have_st = false;
          continue;
        }
      if (cur_len + 1 + clen > PATH_MAX)
        return kg_error (err, ENAMETOOLONG, "%s", path);
      next = cur + cur_len;
      next[0] = '/';
      memcpy (next + 1, comp, clen);
      next[1 + clen] = '\0';
      if (exists)
        {
          have_st = false;
          if (lstat (cur, &st) < 0)
            {
              if (errno != ENOENT && errno != ENOTDIR)
                return kg_error (err, errno, "%s: cannot resolve %s", path, cur);
              /* The rest does not exist: an engine would create it as
                 written, so it is taken as written. */
              exists = false;
            }
          else if (S_ISLNK (st.st_mode))
            {
              char target[PATH_MAX + 1];
              ssize_t tl;
              char *rest;

              if (++links > MAX_SYMLINKS)
                return kg_error (err, ELOOP, "%s", path);
              tl = readlink (cur, target, PATH_MAX);
              if (tl < 0)
                return kg_error (err, errno, "%s: cannot read the link %s", path, cur);
              target[tl] = '\0';
              if (asprintf (&rest, "%s/%s", target, p) < 0)
                return kg_error (err, ENOMEM, "%s: cannot allocate", path);
              free (todo);
              todo = rest;
              p = todo;
              /* A relative target is resolved from the link's directory. */
              cur[cur_len] = '\0';
              if (target[0] == '/')
                cur_len = 0, cur[0] = '\0';
              continue;
            }
          else
            have_st = true;
        }
      cur_len += 1 + clen;
    }
  if (cur_len == 0)
    strcpy (cur, "/");
  if (ri != NULL)
    {
      ri->exists = exists;
      ri->have_st = exists && have_st;
      if (ri->have_st)
        ri->st = st;
    }
  *out = steal_pointer (&cur);
  return 0;
}

int
policy_path_resolve (const char *base, const char *path, bool follow, char **out,
                     kg_error_t *err)
{
  return resolve_path (base, path, follow, out, NULL, err);
}

/* The bind sources of one spec mostly share their directory (Docker's
   per-container files, a volume's files): resolve_path with FOLLOW through
   a memo of the last directory resolved, so that each source costs one
   lstat of its own name.  Anything but a plain last name, a last name
   that is a symlink, or a directory that does not resolve goes the whole
   way, so results and messages are resolve_path's. */
struct resolve_memo
{
  char *dir;       /* the directory as written, absolute */
  char *resolved;  /* resolve_path of it */
  bool exists;     /* every component of it exists */
};

static void
resolve_memo_release (struct resolve_memo *m)
{
  free (m->dir);
  free (m->resolved);
}

static int
resolve_memo (struct resolve_memo *m, const char *base, const char *path, char **out,
              struct resolved_info *ri, kg_error_t *err)
{
  cleanup_free char *abs = NULL;
  cleanup_free char *cand = NULL;
  const char *slash, *last;
  size_t dlen;

  if (path[0] == '/')
    abs = strdup (path);
  else if (asprintf (&abs, "%s/%s", base, path) < 0)
    abs = NULL;
  if (abs == NULL)
    return kg_error (err, ENOMEM, "%s: cannot allocate", path);
  slash = strrchr (abs, '/');
  if (abs[0] != '/' || slash == NULL)
    return resolve_path (base, path, true, out, ri, err);
  last = slash + 1;
  if (*last == '\0' || strcmp (last, ".") == 0 || strcmp (last, "..") == 0)
    return resolve_path (base, path, true, out, ri, err);
  dlen = slash == abs ? 1 : (size_t) (slash - abs);
  if (m->dir == NULL || strlen (m->dir) != dlen || strncmp (m->dir, abs, dlen) != 0)
    {
      cleanup_error kg_error_t derr = NULL;
      cleanup_free char *dir = strndup (abs, dlen);
      char *resolved = NULL;
      struct resolved_info dri;

      if (dir == NULL)
        return kg_error (err, ENOMEM, "%s: cannot allocate", path);
      if (resolve_path ("/", dir, true, &resolved, &dri, &derr) < 0)
        return resolve_path (base, path, true, out, ri, err);
      resolve_memo_release (m);
      m->dir = steal_pointer (&dir);
      m->resolved = resolved;
      m->exists = dri.exists;
    }
  if (asprintf (&cand, "%s/%s", strcmp (m->resolved, "/") == 0 ? "" : m->resolved, last) < 0)
    return kg_error (err, ENOMEM, "%s: cannot allocate", path);
  if (strlen (cand) > PATH_MAX)
    return kg_error (err, ENAMETOOLONG, "%s", path);
  ri->exists = false;
  ri->have_st = false;
  if (m->exists)
    {
      if (lstat (cand, &ri->st) < 0)
        {
          if (errno != ENOENT && errno != ENOTDIR)
            return kg_error (err, errno, "%s: cannot resolve %s", path, cand);
        }
      else if (S_ISLNK (ri->st.st_mode))
        return resolve_path (base, path, true, out, ri, err);
      else
        ri->exists = ri->have_st = true;
    }
  *out = steal_pointer (&cand);
  return 0;
}
#define cleanup_resolve_memo __attribute__ ((cleanup (resolve_memo_release)))

/* ---- the run's context ---------------------------------------------- */

enum ns_kind
{
  NS_NET,
  NS_PID,
  NS_IPC,
  NS_UTS,
  NS_COUNT,
};
static const char *const ns_types[NS_COUNT] = { "network", "pid", "ipc", "uts" };
static const char *const ns_proc[NS_COUNT] = { "net", "pid", "ipc", "uts" };

_Static_assert (NS_COUNT == KG_NS_COUNT, "checks.h KG_NS_COUNT is policy.c's NS_COUNT");

const char *
engine_ns_proc_name (int k)
{
  return k >= 0 && k < NS_COUNT ? ns_proc[k] : NULL;
}

/* This process's capability bounding set (/proc/self/status CapBnd). */
static bool
read_capbnd (uint64_t *out)
{
  cleanup_error kg_error_t err = NULL;
  cleanup_free char *buf = NULL;
  unsigned long long v;
  const char *p;
  char *end;
  size_t len;

  if (kg_read_file_bounded ("/proc/self/status", 0, 1 << 16, &buf, &len, &err) < 0
      || (p = strstr (buf, "\nCapBnd:\t")) == NULL)
    return false;
  errno = 0;
  v = strtoull (p + 9, &end, 16);
  if (errno != 0 || end == p + 9 || *end != '\n')
    return false;
  *out = v;
  return true;
}

/* The engine's namespaces (struct engine_ns, checks.h): the guard runs in
   the namespaces of the engine that started it (containerd, or dockerd
   through containerd), and pid 1's are the host's where they can be read;
   its capability bounding set is the engine's too.  The confined checker
   gets them from its privileged parent (req->engine_ns); this reads them
   in place. */
void
engine_ns_gather (struct engine_ns *e)
{
  for (int i = 0; i < NS_COUNT; i++)
    {
      char path[64];
      struct stat st;

      snprintf (path, sizeof path, "/proc/self/ns/%s", ns_proc[i]);
      if (stat (path, &st) == 0)
        e->self[i] = (struct ns_id){ true, 0, st.st_dev, st.st_ino };
      else
        e->self[i] = (struct ns_id){ false, errno, 0, 0 };
      snprintf (path, sizeof path, "/proc/1/ns/%s", ns_proc[i]);
      if (stat (path, &st) == 0)
        e->init[i] = (struct ns_id){ true, 0, st.st_dev, st.st_ino };
      else
        e->init[i] = (struct ns_id){ false, errno, 0, 0 };
    }
  e->capbnd_ok = read_capbnd (&e->capbnd);
}

struct mount_dirs;


struct who
{
  enum engine engine;
  char ns[80];              /* the containerd namespace, or "" */
  /* ENGINE_DOCKER: the engine root whose containers/<id>/config.v2.json
     names this id (Docker's own record of the container), or NULL. */
  const char *docker_root;
  /* ENGINE_PODMAN, ENGINE_CRIO: the containers/storage root and graph
     driver of the bundle. */
  const char *podman_root;
  char podman_driver[32];
  /* ENGINE_PODMAN, ENGINE_CRIO: the layer of the container's storage
     record (its rootfs is the graph driver's mount of it), or "". */
  char layer[72];
  /* ENGINE_CRIO: the pod of CRI-O's storage record ("pod-id"), whether
     this is its sandbox, and when the pod holds together (the sandbox's
     own record names itself, with the pod uid) that uid. */
  char pod_id[72], pod_uid[72];
  bool pod_sandbox, pod_ok;
  /* ENGINE_CRIO: the container's name and its pod's name and namespace,
     as CRI-O's records hold them (Kata reads the annotations of these). */
  char crio_name[256], kube_name[256], kube_ns[256];
};

struct ctx
{
  struct preflight *pf;
  const struct guard_config *cfg;
  struct report *rep;
  const char *bundle;
  struct json_object *spec;
  struct engine_ns ns;
  bool privileged;  /* the spec is --privileged (see check_privileged) */
  /* The process whose network / pid / ipc namespace the container joins
     (a /proc/PID/ns path that passed policy.namespaces), or 0. */
  unsigned long joined_pid[NS_COUNT];
  /* The [policy] directories, resolved once (check_policy); when
     dirs->ok is false, DIRS_ERR says why. */
  const struct mount_dirs *dirs;
  const struct kg_error *dirs_err;
  /* cri_pod's answer: 0 not looked up yet, 1 a CRI pod's (its sandbox
     id and pod uid), -1 none. */
  int pod;
  const char *pod_sid, *pod_uid;
  struct who who;  /* who_resolve, before every rule */
};

/* The spec's annotation NAME when it is a string, else NULL. */
static const char *
annotation (const struct ctx *c, const char *name)
{
  struct json_object *ann, *v;

  if (c->spec == NULL || ! json_object_object_get_ex (c->spec, "annotations", &ann)
      || ! json_object_is_type (ann, json_type_object) || ! json_object_object_get_ex (ann, name, &v)
      || ! json_object_is_type (v, json_type_string))
    return NULL;
  return json_object_get_string (v);
}

/* containerd's CRI marks the pause container so; the mark counts only
   in a start CRI made (policy.annotations refuses it anywhere else). */
static bool
is_pod_sandbox (const struct ctx *c)
{
  const char *t = annotation (c, "io.kubernetes.cri.container-type");

  return c->who.engine == ENGINE_CRI && t != NULL && strcmp (t, "sandbox") == 0;
}

/* ---- policy.spec ---------------------------------------------------- */

/* Every JSON field name of runtime-spec's Go types (specs-go 1.0 as Debian
   packages it, and the fields 1.1 and 1.2 added): Go's encoding/json
   (runc, containerd, Kata) matches a key to a field exactly or, failing
   that, case-insensitively under Unicode's simple folding.  Sorted as
   strcmp orders them (folded_spec_key searches it). */
static const char *const spec_fields[] = {
  "DNSSearchList", "access", "action", "additionalGids", "allow", "allowUnqualifiedDNSQuery",
  "allowedAddress", "ambient", "anet", "annotations", "apparmorProfile", "architectures",
  "args", "blockIO", "bounding", "bps", "bundle", "burst",
  "capabilities", "cappedCPU", "cappedMemory", "cgroupsPath", "checkBeforeUpdate", "class",
  "classID", "closID", "commandLine", "configureAllowedAddress", "consoleSize", "containerID",
  "count", "cpu", "cpus", "createContainer", "createRuntime", "credentialSpec",
  "cwd", "deadline", "defaultAction", "defaultErrnoRet", "defrouter", "destination",
  "devices", "disableOOMKiller", "domain", "domainname", "effective", "enableCMT",
  "enableMBM", "enableMonitoring", "endpointList", "env", "errnoRet", "execCPUAffinity",
  "fds", "fileMode", "final", "flags", "format", "gid",
  "gidMappings", "hard", "hcaHandles", "hcaObjects", "height", "hooks",
  "hostID", "hostname", "hugepageLimits", "hyperv", "hypervisor", "id",
  "idType", "idle", "ignoreFlushesDuringBoot", "image", "index", "inheritable",
  "initial", "initrd", "intelRdt", "ioPriority", "iops", "kernel",
  "kernelTCP", "l3CacheSchema", "layerFolders", "leafWeight", "limit", "limitpriv",
  "linkProtection", "linkname", "linux", "listenerMetadata", "listenerPath", "lowerLink",
  "macAddress", "major", "maskedPaths", "maxShmMemory", "maximum", "memBwSchema",
  "memory", "memoryPolicy", "mems", "metadata", "milestone", "minor",
  "mountLabel", "mounts", "name", "names", "namespaces", "ncpus",
  "netDevices", "network", "networkNamespace", "networkSharedContainerName", "nice", "noNewPrivileges",
  "nodes", "ociVersion", "oomScoreAdj", "op", "options", "pageSize",
  "parameters", "path", "period", "permitted", "personality", "physical",
  "pid", "pids", "policy", "poststart", "poststop", "prestart",
  "priorities", "priority", "process", "quota", "rate", "rdma",
  "readonly", "readonlyPaths", "realtimePeriod", "realtimeRuntime", "reservation", "resources",
  "rlimits", "root", "rootfsPropagation", "runtime", "sandboxSize", "scheduler",
  "schemata", "seccomp", "selinuxLabel", "servicing", "shares", "size",
  "soft", "solaris", "source", "startContainer", "state", "status",
  "storage", "swap", "swappiness", "syscalls", "sysctl", "terminal",
  "throttleReadBpsDevice", "throttleReadIOPSDevice", "throttleWriteBpsDevice", "throttleWriteIOPSDevice", "timeOffsets", "timeout",
  "type", "uid", "uidMappings", "umask", "unified", "useHierarchy",
  "user", "username", "utilityVMPath", "value", "valueTwo", "vm",
  "weight", "weightDevice", "width", "windows", "zos",
};

/* The fields whose value is a map: their keys are data, compared exactly. */
static const char *const spec_maps[] = { "annotations", "sysctl", "unified", "rdma",
                                         "netDevices", "timeOffsets" };

/* KEY folded as Go's EqualFold folds it onto ASCII: letters to lower case,
   U+017F (long s) to s, U+212A (Kelvin sign) to k.  False when KEY holds
   anything else past ASCII (it can then match no field) or is too long. */
static bool
fold_key (const char *key, char *out, size_t size)
{
  const unsigned char *p = (const unsigned char *) key;
  size_t o = 0;

  while (*p != '\0')
    {
      char c;

      if (*p < 0x80)
        c = (char) (*p >= 'A' && *p <= 'Z' ? *p + 32 : *p), p++;
      else if (p[0] == 0xc5 && p[1] == 0xbf)
        c = 's', p += 2;
      else if (p[0] == 0xe2 && p[1] == 0x84 && p[2] == 0xaa)
        c = 'k', p += 3;
      else
        return false;
      if (o + 1 >= size)
        return false;
      out[o++] = c;
    }
  out[o] = '\0';
  return true;
}

static int
cmp_field (const void *a, const void *b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

/* Whether the field name FIELD (ASCII, as every one is) folds onto
   FOLDED (fold_key's output). */
static bool
folds_onto (const char *field, const char *folded)
{
  for (; *field != '\0'; field++, folded++)
    if ((*field >= 'A' && *field <= 'Z' ? *field + 32 : *field) != *folded)
      return false;
  return *folded == '\0';
}

/* The first key of O, at any depth (but inside the map fields), that is
   not a field's exact name but folds onto one, and that field. */
static const char *
folded_spec_key (struct json_object *o, const char **field)
{
  if (json_object_is_type (o, json_type_array))
    {
      for (size_t i = 0; i < json_object_array_length (o); i++)
        {
          const char *k = folded_spec_key (json_object_array_get_idx (o, i), field);

          if (k != NULL)
            return k;
        }
      return NULL;
    }
  if (! json_object_is_type (o, json_type_object))
    return NULL;
  json_object_object_foreach (o, key, val)
    {
      char folded[64];
      bool exact, map = false;
      const char *k;

      /* Nearly every key is a field's exact name: a binary search of the
         sorted table.  Only a key it misses is folded and compared with
         every field (which also finds an exact name bsearch missed, were
         the table ever out of order: the result is the same, only
         slower). */
      exact = bsearch (&key, spec_fields, ARRAY_SIZE (spec_fields), sizeof spec_fields[0],
                       cmp_field) != NULL;
      if (! exact && fold_key (key, folded, sizeof folded))
        for (size_t i = 0; i < ARRAY_SIZE (spec_fields) && ! exact; i++)
          {
            if (strcmp (key, spec_fields[i]) == 0)
              exact = true;
            else if (folds_onto (spec_fields[i], folded))
              {
                *field = spec_fields[i];
                return key;
              }
          }
      for (size_t i = 0; i < ARRAY_SIZE (spec_maps) && exact; i++)
        map = map || strcmp (key, spec_maps[i]) == 0;
      if (! map && (k = folded_spec_key (val, field)) != NULL)
        return k;
    }
  return NULL;
}


struct json_object *
policy_spec_load (const char *bundle, kg_error_t *err)
{
  cleanup_close int dfd = -1;
  cleanup_close int fd = -1;
  cleanup_free char *buf = NULL;
  cleanup_free char *name = NULL;
  struct stat st;
  size_t len;

  if (asprintf (&name, "%s/config.json", bundle) < 0)
    return kg_error (err, ENOMEM, "cannot allocate"), NULL;
  dfd = open (bundle, O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (dfd < 0)
    return kg_error (err, errno, "bundle %s", bundle), NULL;
  /* O_NOFOLLOW: a link could point the guard at another file than the
     one the runtime reads; O_NONBLOCK: a FIFO must not hang the start. */
  fd = openat (dfd, "config.json", O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0)
    {
      if (errno == ELOOP)
        return kg_error (err, 0, "%s is a symbolic link (refused: the runtime reads the file "
                                 "in the bundle itself)",
                         name),
               NULL;
      return kg_error (err, errno, "%s", name), NULL;
    }
  if (fstat (fd, &st) < 0)
    return kg_error (err, errno, "%s", name), NULL;
  if (! S_ISREG (st.st_mode))
    return kg_error (err, 0, "%s is not a regular file", name), NULL;
  if (st.st_size > POLICY_MAX_SPEC)
    return kg_error (err, 0, "%s is %jd bytes, more than the %d allowed", name,
                     (intmax_t) st.st_size, POLICY_MAX_SPEC),
           NULL;
  if (kg_read_fd_bounded (fd, name, POLICY_MAX_SPEC, &buf, &len, err) < 0)
    return NULL;
  return policy_spec_parse (name, buf, len, err);
}

/* policy_json_parse's reading, of a document of any type. */
static struct json_object *
json_parse_strict (const char *name, const char *buf, size_t len, bool spec_keys,
                   kg_error_t *err)
{
  cleanup_free char *ascii = NULL;
  struct json_tokener *tok;
  struct json_object *obj;
  enum json_tokener_error jerr;
  size_t end, ascii_len = 0;

  /* JSON is UTF-8 (RFC 8259), and only strings may hold more than ASCII:
     the whole text is checked here, with a validator that knows the four
     byte forms (json-c 0.18's refuses them). */
  if ((end = kg_utf8_valid_prefix (buf, len)) != len)
    return kg_error (err, 0, "%s: invalid JSON at byte %zu: invalid UTF-8", name, end), NULL;
  /* json-c 0.18's strict mode refuses every byte past ASCII in a string
     value: it reads the same characters as escapes. */
  ascii = kg_json_ascii (buf, len, &ascii_len);
  if (ascii == NULL)
    return kg_error (err, ENOMEM, "%s: cannot allocate", name), NULL;
  tok = json_tokener_new_ex (POLICY_MAX_DEPTH);
  if (tok == NULL)
    return kg_error (err, ENOMEM, "%s: cannot allocate a JSON parser", name), NULL;
  json_tokener_set_flags (tok, JSON_TOKENER_STRICT);
  obj = json_tokener_parse_ex (tok, ascii, (int) ascii_len);
  jerr = json_tokener_get_error (tok);
  end = kg_json_ascii_offset (buf, len, json_tokener_get_parse_end (tok));
  json_tokener_free (tok);
  if (obj == NULL || jerr != json_tokener_success)
    {
      json_object_put (obj);
      if (jerr == json_tokener_continue)
        return kg_error (err, 0, "%s: truncated JSON (%zu bytes)", name, len), NULL;
      if (jerr == json_tokener_error_depth)
        return kg_error (err, 0, "%s: nested deeper than %d levels (at byte %zu)", name,
                         POLICY_MAX_DEPTH, end),
               NULL;
      return kg_error (err, 0, "%s: invalid JSON at byte %zu: %s", name, end,
                       json_tokener_error_desc (jerr)),
             NULL;
    }
  /* Go reads more than json-c keeps: both of two equal keys (merged into
     one struct), and keys that fold onto a field's name. */
  if (json_strict_scan (name, buf, len, err) < 0)
    {
      json_object_put (obj);
      return NULL;
    }
  if (spec_keys)
  {
    const char *field = NULL, *key = folded_spec_key (obj, &field);

    if (key != NULL)
      {
        kg_error (err, 0, "%s: key \"%.64s\" is not \"%s\" but Go's decoders (runc, containerd, "
                          "Kata) read it as that field",
                  name, key, field);
        json_object_put (obj);
        return NULL;
      }
  }
  /* Whatever follows the document (whitespace aside) is an error: a
     second document could be what another reader takes. */
  while (end < len && (buf[end] == ' ' || buf[end] == '\n' || buf[end] == '\t'
                       || buf[end] == '\r'))
    end++;
  if (end != len)
    {
      json_object_put (obj);
      return kg_error (err, 0, "%s: data after the JSON document at byte %zu", name, end),
             NULL;
    }
  return obj;
}

struct json_object *
policy_json_parse (const char *name, const char *buf, size_t len, bool spec_keys,
                   kg_error_t *err)
{
  struct json_object *obj = json_parse_strict (name, buf, len, spec_keys, err);

  if (obj != NULL && ! json_object_is_type (obj, json_type_object))
    {
      kg_error (err, 0, "%s: the document is %s, not an object", name, json_kind (obj));
      json_object_put (obj);
      return NULL;
    }
  return obj;
}

struct json_object *
policy_spec_parse (const char *name, const char *buf, size_t len, kg_error_t *err)
{
  struct json_object *obj = policy_json_parse (name, buf, len, true, err), *ver = NULL;
  const char *v;

  if (obj == NULL)
    return NULL;
  json_object_object_get_ex (obj, "ociVersion", &ver);
  if (ver == NULL || ! json_object_is_type (ver, json_type_string))
    {
      kg_error (err, 0, "%s: ociVersion is %s", name,
                ver == NULL ? "missing" : json_kind (ver));
      json_object_put (obj);
      return NULL;
    }
  v = json_object_get_string (ver);
  /* Only major version 1 exists; a 2.x spec may mean things this guard
     does not know to check. */
  if (strncmp (v, "1.", 2) != 0 || ! isdigit ((unsigned char) v[2]))
    {
      kg_error (err, 0, "%s: ociVersion \"%.32s\" is not 1.x", name, v);
      json_object_put (obj);
      return NULL;
    }
  return obj;
}

/* ---- policy.privileged ---------------------------------------------- */

/* An allow rule with no type (or "a") and no numbers: every device. */
static bool
device_rule_allows_all (struct json_object *rule)
{
  struct json_object *allow = NULL, *type = NULL, *maj = NULL, *min = NULL;

  json_object_object_get_ex (rule, "allow", &allow);
  json_object_object_get_ex (rule, "type", &type);
  json_object_object_get_ex (rule, "major", &maj);
  json_object_object_get_ex (rule, "minor", &min);
  if (allow == NULL || ! json_object_get_boolean (allow))
    return false;
  if (type != NULL && json_object_is_type (type, json_type_string)
      && strcmp (json_object_get_string (type), "a") != 0)
    return false;
  return (maj == NULL || json_object_is_type (maj, json_type_null) || json_object_get_int64 (maj) < 0)
         && (min == NULL || json_object_is_type (min, json_type_null)
             || json_object_get_int64 (min) < 0);
}

/* The capabilities in the bounding set, as a bit set; false when a name
   is not one (policy.capabilities reports that). */
static uint64_t
bounding_set (struct json_object *spec)
{
  struct json_object *process = NULL, *caps = NULL, *b = NULL;
  uint64_t set = 0;

  json_object_object_get_ex (spec, "process", &process);
  if (process != NULL)
    json_object_object_get_ex (process, "capabilities", &caps);
  if (caps != NULL)
    json_object_object_get_ex (caps, "bounding", &b);
  if (b == NULL || ! json_object_is_type (b, json_type_array))
    return 0;
  for (size_t i = 0; i < json_object_array_length (b); i++)
    {
      struct json_object *n = json_object_array_get_idx (b, i);
      cap_value_t v;

      if (json_object_is_type (n, json_type_string)
          && strncasecmp (json_object_get_string (n), "CAP_", 4) == 0
          && cap_from_name (json_object_get_string (n), &v) == 0 && v >= 0 && v < 64)
        set |= UINT64_C (1) << v;
    }
  return set;
}

/* --privileged is what engines write as: a device cgroup that allows every
   device, and every capability.  Either one alone is reported as
   privileged: each gives the container the host's devices or the powers
   to reach them.  "Every capability" is every one up to CAP_AUDIT_READ
   (Linux 3.16), so that an engine that does not know the newest ones
   still counts. */
static void
check_privileged (struct ctx *c)
{
  struct json_object *linux_ = NULL, *res = NULL, *devs = NULL, *seccomp = NULL;
  cleanup_findings struct findings f = { 0 };
  uint64_t all = (UINT64_C (1) << (CAP_AUDIT_READ + 1)) - 1;
  uint64_t caps = bounding_set (c->spec);
  /* What a privileged container gets is the engine's own bounding set,
     which lacks what the engine lacks (CAP_SYS_RESOURCE on a host whose
     root has given it up): that counts as every capability too, when it
     is a privileged set at all (CAP_SYS_ADMIN among it). */
  uint64_t engine = c->ns.capbnd_ok ? c->ns.capbnd & all : 0;
  bool all_engine = (engine & (UINT64_C (1) << CAP_SYS_ADMIN)) != 0 && (caps & engine) == engine;

  json_object_object_get_ex (c->spec, "linux", &linux_);
  if (linux_ != NULL)
    {
      json_object_object_get_ex (linux_, "resources", &res);
      json_object_object_get_ex (linux_, "seccomp", &seccomp);
    }
  if (res != NULL)
    json_object_object_get_ex (res, "devices", &devs);
  if (devs != NULL && json_object_is_type (devs, json_type_array))
    for (size_t i = 0; i < json_object_array_length (devs); i++)
      {
        struct json_object *r = json_object_array_get_idx (devs, i);

        if (json_object_is_type (r, json_type_object) && device_rule_allows_all (r))
          {
            finding (&f, "the device cgroup allows every host device (a *:* rwm)");
            break;
          }
      }
  if ((caps & all) == all)
    finding (&f, "it has every capability (%d or more)", CAP_AUDIT_READ + 1);
  else if (all_engine)
    finding (&f, "it has every capability of the engine's bounding set (%d)",
             __builtin_popcountll (engine));
  c->privileged = f.n > 0;
  if (! c->privileged)
    {
      report_pass (c->rep, "policy.privileged", "not a privileged container");
      return;
    }
  if (seccomp == NULL)
    sb_printf (&f.text, "; no seccomp profile");
  if (c->cfg->policy.privileged)
    {
      report_pass (c->rep, "policy.privileged",
                   "privileged container (%s), allowed by [policy] privileged = true",
                   sb_str (&f.text));
      return;
    }
  report_fail (c->rep, "policy.privileged",
               "run the container without --privileged (add only the capabilities and devices "
               "it needs), or set [policy] privileged = true",
               "privileged container: %s", sb_str (&f.text));
}

/* ---- policy.namespaces ---------------------------------------------- */

/* stat(2) of the namespace PATH names for namespace K: /proc/PID/ns/NAME
   through req->ns_stat (privilege the checker has given up; *PID is then
   set), any other path in place.  A /proc path that names another kind of
   namespace, or not by a process id, is refused (EINVAL). */
static int
ns_path_stat (const struct request *req, int k, const char *path, struct stat *st,
              unsigned long *pid)
{
  const char *q = path + 6;
  size_t digits;
  char *end;

  if (strncmp (path, "/proc/", 6) != 0)
    return stat (path, st);
  digits = strspn (q, "0123456789");
  if (digits == 0 || strncmp (q + digits, "/ns/", 4) != 0 || strcmp (q + digits + 4, ns_proc[k]) != 0)
    {
      /* /proc/self, /proc/thread-self: whichever process opens it (the
         runtime), so the engine's own; anything else is not this kind. */
      if (digits == 0 && (strncmp (q, "self/", 5) == 0 || strncmp (q, "thread-self/", 12) == 0))
        return stat (path, st);
      errno = EINVAL;
      return -1;
    }
  errno = 0;
  *pid = strtoul (q, &end, 10);
  if (errno != 0 || end != q + digits || *pid == 0 || *pid > INT32_MAX)
    {
      *pid = 0;
      errno = EINVAL;
      return -1;
    }
  if (req->ns_stat != NULL)
    return req->ns_stat (*pid, k, st);
  return stat (path, st);
}

static void
check_namespaces (struct ctx *c)
{
  cleanup_findings struct findings f = { 0 };
  cleanup_strbuf struct strbuf ok = { 0 };
  struct json_object *linux_, *list;
  size_t n_host = 0, n_unreadable = 0;

  linux_ = jget_type (c->spec, "spec", "linux", json_type_object, &f);
  list = jget_type (linux_, "linux", "namespaces", json_type_array, &f);
  for (int k = 0; k < NS_COUNT; k++)
    {
      struct json_object *entry = NULL, *path;
      size_t seen = 0;

      for (size_t i = 0; list != NULL && i < json_object_array_length (list); i++)
        {
          struct json_object *e = json_object_array_get_idx (list, i);
          struct json_object *t;
          cleanup_findings struct findings tf = { 0 };

          if (! json_object_is_type (e, json_type_object))
            {
              if (k == 0)
                finding (&f, "linux.namespaces[%zu] is %s, not an object", i, json_kind (e));
              continue;
            }
          t = jget_type (e, "namespace", "type", json_type_string, k == 0 ? &f : &tf);
          if (t != NULL && strcmp (json_object_get_string (t), ns_types[k]) == 0)
            {
              entry = e;
              seen++;
            }
        }
      if (seen > 1)
        {
          finding (&f, "%s namespace listed %zu times", ns_types[k], seen);
          continue;
        }
      if (entry == NULL)
        {
          n_host++;
          if (c->cfg->policy.host_namespaces)
            sb_printf (&ok, "%shost %s namespace allowed", ok.len ? ", " : "", ns_types[k]);
          else
            finding (&f, "no %s namespace: the container would share the host's", ns_types[k]);
          continue;
        }
      path = jget (entry, "namespace", "path", &f);
      if (path == NULL)
        {
          sb_printf (&ok, "%snew %s namespace", ok.len ? ", " : "", ns_types[k]);
          continue;
        }
      if (! json_object_is_type (path, json_type_string))
        {
          finding (&f, "%s namespace path is %s, not a string", ns_types[k], json_kind (path));
          continue;
        }
      {
        const char *p = json_object_get_string (path);
        const struct ns_id *self = &c->ns.self[k], *init = &c->ns.init[k];
        struct stat st;
        unsigned long pid = 0;

        if (ns_path_stat (c->pf->req, k, p, &st, &pid) < 0)
          {
            finding (&f, "%s namespace %s cannot be checked: %s%s", ns_types[k], p,
                     strerror (errno),
                     pid ? " (the process it names is gone, or not a container's)" : "");
            n_unreadable++;
            continue;
          }
        if (! self->ok)
          {
            finding (&f, "%s namespace %s cannot be compared: /proc/self/ns/%s: %s",
                     ns_types[k], p, ns_proc[k], strerror (self->error));
            continue;
          }
        if ((st.st_dev == self->dev && st.st_ino == self->ino)
            || (init->ok && st.st_dev == init->dev && st.st_ino == init->ino))
          {
            n_host++;
            if (c->cfg->policy.host_namespaces)
              sb_printf (&ok, "%shost %s namespace %s allowed", ok.len ? ", " : "",
                         ns_types[k], p);
            else
              finding (&f, "%s namespace %s is the engine's own (the host's)", ns_types[k], p);
            continue;
          }
        sb_printf (&ok, "%s%s namespace %s", ok.len ? ", " : "", ns_types[k], p);
        c->joined_pid[k] = pid;
      }
    }
  if (f.n > 0 && f.n == n_unreadable)
    report_fail (c->rep, "policy.namespaces",
                 "join the namespace of a running container (docker run --network "
                 "container:NAME with NAME running), or give the container its own",
                 "%s", sb_str (&f.text));
  else if (f.n > 0)
    report_fail (c->rep, "policy.namespaces",
                 "give the container its own network, pid, ipc and uts namespaces (no --network "
                 "host, --pid host, --ipc host, --uts host), or set [policy] host_namespaces = "
                 "true",
                 "%s", sb_str (&f.text));
  else
    report_pass (c->rep, "policy.namespaces", "%s%s", sb_str (&ok),
                 n_host ? " by [policy] host_namespaces = true" : "");
}

/* ---- policy.mounts -------------------------------------------------- */

/* Bind sources refused even read-only: PATTERN and everything under it,
   and every directory above it (which contains it).  fnmatch patterns,
   one per path component. */
static const struct
{
  const char *pattern;
  const char *why;
} deny_builtin[] = {
  { "/run/containerd", "containerd's state and socket" },
  { "/var/run/containerd", "containerd's state and socket" },
  { "/var/lib/containerd", "containerd's state" },
  { "/run/docker", "Docker's state" },
  { "/var/run/docker", "Docker's state" },
  /* The same engines under other packagings: snap's Docker, k3s. */
  { "/var/snap/docker/common/var-lib-docker", "Docker's state (snap)" },
  { "/var/snap/docker/*/run", "Docker's state and socket (snap)" },
  { "/var/lib/rancher/k3s", "k3s's state, keys and tokens" },
  { "/root", "root's home (credentials)" },
  { "/home/*/.ssh", "credentials" },
  { "/home/*/.aws", "credentials" },
  { "/home/*/.config/gcloud", "credentials" },
  { "/home/*/.kube", "credentials" },
  { "/home/*/.docker", "credentials" },
  { "/home/*/.gnupg", "credentials" },
  { "/etc", "the host's configuration" },
  { "/proc", "the host's /proc" },
  { "/sys", "the host's /sys" },
  { "/dev", "the host's devices" },
  { "/boot", "the host's boot files" },
  { "/run", "the host's runtime state and sockets" },
  { "/var/run", "the host's runtime state and sockets" },
  /* Everybody's: ssh-agent, tmux, X and D-Bus sockets live below it. */
  { "/tmp", "the host's shared temporary files (ssh-agent, tmux and X sockets)" },
  { "/var/tmp", "the host's shared temporary files" },
};

/* Names refused wherever they appear in a path: credential directories,
   dotenv files and engine sockets. */
static const char *
credential_component (const char *comp, size_t len, const char *prev, size_t prev_len)
{
  static const char *const dirs[] = { ".ssh", ".aws", ".kube", ".docker", ".gnupg" };

  for (size_t i = 0; i < ARRAY_SIZE (dirs); i++)
    if (len == strlen (dirs[i]) && memcmp (comp, dirs[i], len) == 0)
      return "credentials";
  if (len == 6 && memcmp (comp, "gcloud", 6) == 0 && prev_len == 7
      && memcmp (prev, ".config", 7) == 0)
    return "credentials";
  if ((len == 4 && memcmp (comp, ".env", 4) == 0) || (len > 5 && memcmp (comp, ".env.", 5) == 0))
    return "a .env file (secrets)";
  if (memmem (comp, len, "docker.sock", 11) != NULL
      || memmem (comp, len, "containerd.sock", 15) != NULL)
    return "an engine socket";
  return NULL;
}

static const char *
scan_components (const char *p)
{
  const char *prev = "", *why;
  size_t prev_len = 0;

  while (*p)
    {
      size_t len;

      while (*p == '/')
        p++;
      len = strcspn (p, "/");
      if (len == 0)
        break;
      why = credential_component (p, len, prev, prev_len);
      if (why != NULL)
        return why;
      prev = p;
      prev_len = len;
      p += len;
    }
  return NULL;
}

/* True when the LEN bytes at S hold an fnmatch special character. */
static bool
has_glob (const char *s, size_t len)
{
  for (size_t i = 0; i < len; i++)
    if (s[i] == '*' || s[i] == '?' || s[i] == '[' || s[i] == '\\')
      return true;
  return false;
}

/* 1 when P is PATTERN or under it, 2 when P is a directory above it, else 0.
   LITERAL compares strings, not fnmatch patterns.  A pattern component
   without special characters matches only itself, so it is compared as
   bytes; fnmatch runs only for the components that need it. */
static int
match_entry (const char *pattern, const char *p, bool literal)
{
  const char *a = pattern, *b = p;

  for (;;)
    {
      size_t la, lb;

      while (*a == '/')
        a++;
      while (*b == '/')
        b++;
      if (*a == '\0')
        return 1;
      if (*b == '\0')
        return 2;
      la = strcspn (a, "/");
      lb = strcspn (b, "/");
      if (la > NAME_MAX || lb > NAME_MAX)
        return 0;
      if (literal || ! has_glob (a, la))
        {
          if (la != lb || memcmp (a, b, la) != 0)
            return 0;
        }
      else
        {
          char ca[NAME_MAX + 1], cb[NAME_MAX + 1];

          memcpy (ca, a, la);
          ca[la] = '\0';
          memcpy (cb, b, lb);
          cb[lb] = '\0';
          if (fnmatch (ca, cb, 0) != 0)
            return 0;
        }
      a += la;
      b += lb;
    }
}

/* Resolved once per run: the configured directories, with symlinks
   followed as far as they exist. */
struct dirs
{
  char **paths;
  size_t n;
};

static void
dirs_release (struct dirs *d)
{
  for (size_t i = 0; i < d->n; i++)
    free (d->paths[i]);
  free (d->paths);
}
#define cleanup_dirs __attribute__ ((cleanup (dirs_release)))

/* Both the lexical and the resolved form of every entry. */
static int
dirs_resolve (char *const *list, size_t n, struct dirs *d, kg_error_t *err)
{
  d->paths = calloc (2 * n + 1, sizeof (char *));
  if (d->paths == NULL)
    return kg_error (err, ENOMEM, "cannot allocate");
  for (size_t i = 0; i < n; i++)
    for (int follow = 0; follow < 2; follow++)
      {
        if (policy_path_resolve ("/", list[i], follow, &d->paths[d->n], err) < 0)
          return -1;
        d->n++;
      }
  return 0;
}

/* The [policy] directories the per-container rules judge by, resolved
   once per start (check_policy). */
struct mount_dirs
{
  struct dirs roots, podman, ctd, kubelet, extra, writable;
  bool ok;        /* every list resolved */
  bool roots_ok;  /* engine_roots resolved (the first list), whatever came after */
};

static void
mount_dirs_release (struct mount_dirs *d)
{
  dirs_release (&d->roots);
  dirs_release (&d->podman);
  dirs_release (&d->ctd);
  dirs_release (&d->kubelet);
  dirs_release (&d->extra);
  dirs_release (&d->writable);
}
#define cleanup_mount_dirs __attribute__ ((cleanup (mount_dirs_release)))

static int
mount_dirs_resolve (const struct guard_config *cfg, struct mount_dirs *d, kg_error_t *err)
{
  if (dirs_resolve (cfg->policy.engine_roots, cfg->policy.n_engine_roots, &d->roots, err) < 0)
    return -1;
  d->roots_ok = true;
  if (dirs_resolve (cfg->policy.podman_roots, cfg->policy.n_podman_roots, &d->podman, err) < 0
      || dirs_resolve (cfg->policy.containerd_roots, cfg->policy.n_containerd_roots, &d->ctd, err)
             < 0
      || dirs_resolve (cfg->policy.kubelet_roots, cfg->policy.n_kubelet_roots, &d->kubelet, err)
             < 0
      || dirs_resolve (cfg->policy.deny_mounts, cfg->policy.n_deny_mounts, &d->extra, err) < 0
      || dirs_resolve (cfg->policy.writable_mounts, cfg->policy.n_writable_mounts, &d->writable,
                       err)
             < 0)
    return -1;
  d->ok = true;
  return 0;
}

bool
policy_valid_id (const char *id)
{
  return id != NULL && *id != '\0' && strchr (id, '/') == NULL && strcmp (id, ".") != 0
         && strcmp (id, "..") != 0;
}

/* P below directory ROOT: what follows ROOT and its '/' in P, or NULL. */
static const char *
below (const char *p, const char *root)
{
  const char *r = strcmp (root, "/") ? root : "";
  size_t rl = strlen (r);

  return strncmp (p, r, rl) == 0 && p[rl] == '/' ? p + rl + 1 : NULL;
}

/* Where an engine keeps the per-container files it binds writable into
   the container: ROOT/[DRIVER-]containers/ID/SUB/FILE. */
struct own_layout
{
  bool driver;               /* "<driver>-containers" (podman's graph driver) */
  const char *sub;           /* "" or the directory below the container's */
  const char *const *files;
  size_t n_files;
};

static bool
own_file (const char *p, const struct dirs *roots, const char *id, const struct own_layout *l)
{
  size_t il, sl = strlen (l->sub);

  if (! policy_valid_id (id))
    return false;
  il = strlen (id);
  for (size_t i = 0; i < roots->n; i++)
    {
      const char *q = below (p, roots->paths[i]);

      if (q == NULL)
        continue;
      if (l->driver)
        {
          size_t dl = strspn (q, "abcdefghijklmnopqrstuvwxyz0123456789");

          if (dl == 0 || q[dl] != '-')
            continue;
          q += dl + 1;
        }
      if (strncmp (q, "containers/", 11) != 0)
        continue;
      q += 11;
      if (strncmp (q, id, il) != 0 || q[il] != '/' || strncmp (q + il + 1, l->sub, sl) != 0)
        continue;
      q += il + 1 + sl;
      for (size_t j = 0; j < l->n_files; j++)
        if (strcmp (q, l->files[j]) == 0)
          return true;
    }
  return false;
}

/* Docker's own per-container files for this container:
   <root>/containers/<id>/{resolv.conf,hostname,hosts,mounts/shm}. */
static bool
own_engine_file (const char *p, const struct dirs *roots, const char *id)
{
  static const char *const files[] = { "resolv.conf", "hostname", "hosts", "mounts/shm" };
  static const struct own_layout docker = { false, "", files, ARRAY_SIZE (files) };

  return own_file (p, roots, id, &docker);
}

/* podman's own per-container files for this container:
   <root>/<driver>-containers/<id>/userdata/{hosts,hostname,resolv.conf,
   .containerenv,shm}, under its graph root or run root. */
static bool
own_podman_file (const char *p, const struct dirs *roots, const char *id)
{
  static const char *const files[] = { "hosts", "hostname", "resolv.conf", ".containerenv",
                                       "shm" };
  static const struct own_layout podman = { true, "userdata/", files, ARRAY_SIZE (files) };

  return own_file (p, roots, id, &podman);
}

/* An engine's own JSON file (its state, not the container's input): the
   document (an object, or with ARRAY an array), or NULL when it cannot be
   read as JSON. */
static struct json_object *
engine_json_of (const char *path, bool array)
{
  cleanup_error kg_error_t err = NULL;
  cleanup_free char *buf = NULL;
  struct json_object *doc;
  size_t len;

  if (kg_read_file_bounded (path, O_NOFOLLOW, 4 << 20, &buf, &len, &err) < 0)
    return NULL;
  /* The engine's own format (Docker's config.v2.json has "State"), so
     not judged by the spec's field names; strict all the same. */
  if (! array)
    return policy_json_parse (path, buf, len, false, &err);
  doc = json_parse_strict (path, buf, len, false, &err);
  if (doc != NULL && ! json_object_is_type (doc, json_type_array))
    {
      json_object_put (doc);
      return NULL;
    }
  return doc;
}

static struct json_object *
engine_json (const char *path)
{
  return engine_json_of (path, false);
}

/* ---- whose start this is ------------------------------------------- */

/* containers/storage's record of container ID (a pointer into DOC), from
   the array DOC, or NULL. */
static struct json_object *
storage_entry (struct json_object *doc, const char *id)
{
  for (size_t i = 0; doc != NULL && json_object_is_type (doc, json_type_array)
                     && i < json_object_array_length (doc);
       i++)
    {
      struct json_object *e = json_object_array_get_idx (doc, i), *v;

      if (json_object_object_get_ex (e, "id", &v) && json_object_is_type (v, json_type_string)
          && strcmp (json_object_get_string (v), id) == 0)
        return e;
    }
  return NULL;
}

/* containers/storage's records (podman's and CRI-O's storage):
   <root>/<driver>-containers/containers.json and volatile-containers.json
   (podman run --rm, a transient store) of every store of [policy]
   podman_roots (the graph root keeps the stable records, the run root the
   volatile ones), each read once per start.  A file that cannot be read
   holds no record. */
struct storage
{
  struct json_object **docs;
  size_t n;
};

static void
storage_release (struct storage *st)
{
  for (size_t i = 0; i < st->n; i++)
    json_object_put (st->docs[i]);
  free (st->docs);
  st->docs = NULL;
  st->n = 0;
}
#define cleanup_storage __attribute__ ((cleanup (storage_release)))

/* Read the records of graph driver DRIVER into ST; -1 when out of memory. */
static int
storage_load (const struct ctx *c, const char *driver, struct storage *st)
{
  static const char *const files[] = { "containers.json", "volatile-containers.json" };
  const struct dirs *roots = &c->dirs->podman;

  st->docs = calloc (roots->n + 1, sizeof *st->docs);
  if (st->docs == NULL)
    return -1;
  for (size_t i = 0; i < roots->n; i += 2)
    {
      bool seen = false;

      /* (A root listed twice, or two that resolve alike, is one store.) */
      for (size_t k = 1; k < i; k += 2)
        seen = seen || strcmp (roots->paths[k], roots->paths[i | 1]) == 0;
      for (size_t j = 0; ! seen && j < ARRAY_SIZE (files); j++)
        {
          cleanup_free char *path = NULL;

          if (asprintf (&path, "%s/%s-containers/%s", roots->paths[i | 1], driver, files[j]) < 0)
            return path = NULL, -1;
          st->docs[st->n++] = engine_json_of (path, true);
        }
    }
  return 0;
}

/* The record of container ID in ST (a pointer into it); NULL when no
   file holds one, or more than one does: an id that two stores hold
   (podman can make a container of any id in a store of its own, podman
   container restore) is nobody's record. */
static struct json_object *
storage_find (const struct storage *st, const char *id)
{
  struct json_object *found = NULL;

  if (! policy_valid_id (id))
    return NULL;
  for (size_t i = 0; i < st->n; i++)
    {
      struct json_object *e = storage_entry (st->docs[i], id);

      if (e != NULL && found != NULL)
        return NULL;
      if (e != NULL)
        found = e;
    }
  return found;
}

/* The layer of record E into OUT ("" when it names none). */
static void
storage_layer (struct json_object *e, char *out, size_t size)
{
  struct json_object *l;

  out[0] = '\0';
  if (e != NULL && json_object_object_get_ex (e, "layer", &l)
      && json_object_is_type (l, json_type_string) && policy_valid_id (json_object_get_string (l))
      && strlen (json_object_get_string (l)) < size)
    snprintf (out, size, "%s", json_object_get_string (l));
}

/* Docker's containerd namespace (moby's daemon ContainersNamespace). */
#define DOCKER_NAMESPACE "moby"
/* containerd's v2 task state: <state>/io.containerd.runtime.v2.task/<ns>/<id>. */
#define TASK_DIR "io.containerd.runtime.v2.task"

static const char *
engine_name (const struct who *w)
{
  static const char *const names[] = {
    [ENGINE_UNKNOWN] = "no engine kata-guard can tell",
    [ENGINE_CONTAINERD] = "containerd",
    [ENGINE_CRI] = "containerd's CRI",
    [ENGINE_DOCKER] = "Docker",
    [ENGINE_PODMAN] = "podman",
    [ENGINE_CRIO] = "CRI-O",
  };

  return names[w->engine];
}

/* The containerd namespace of BUNDLE, when it is containerd's task
   directory of container ID: .../io.containerd.runtime.v2.task/NS/ID. */
static bool
bundle_namespace (const char *bundle, const char *id, char *out, size_t size)
{
  const char *last, *ns;
  size_t tl = strlen (TASK_DIR);

  if (bundle == NULL || ! policy_valid_id (id) || (last = strrchr (bundle, '/')) == NULL
      || strcmp (last + 1, id) != 0)
    return false;
  for (ns = last - 1; ns > bundle && *ns != '/'; ns--)
    ;
  if (ns <= bundle || (size_t) (ns - bundle) < tl + 1 || ns[-(ptrdiff_t) tl - 1] != '/'
      || strncmp (ns - tl, TASK_DIR, tl) != 0 || (size_t) (last - ns - 1) >= size)
    return false;
  memcpy (out, ns + 1, (size_t) (last - ns - 1));
  out[last - ns - 1] = '\0';
  return conf_valid_namespace (out);
}

/* The engine root under which Docker's own record of container ID,
   <root>/containers/<id>/config.v2.json, names that id; NULL when none
   does.  Read as a stream: its size is the container's to choose. */
static const char *
docker_record_root (const struct dirs *roots, const char *id)
{
  for (size_t i = 0; i < roots->n; i++)
    {
      cleanup_error kg_error_t err = NULL;
      cleanup_free char *path = NULL;
      char got[128];

      if (asprintf (&path, "%s/containers/%s/config.v2.json", roots->paths[i], id) < 0)
        return path = NULL, NULL;
      /* (Its resolved form, which rootfs paths are compared with.) */
      if (jscan_top_string (path, "ID", got, sizeof got, &err) == 1 && strcmp (got, id) == 0)
        return roots->paths[i | 1];
    }
  return NULL;
}

/* podman's bundle for container ID: <root>/<driver>-containers/<id>/userdata
   under a podman root; the root and the driver in W. */
static bool
podman_bundle (const char *bundle, const struct dirs *roots, const char *id, struct who *w)
{
  for (size_t i = 0; bundle != NULL && policy_valid_id (id) && i < roots->n; i++)
    {
      const char *q = below (bundle, roots->paths[i]);
      size_t dl, il = strlen (id);

      if (q == NULL)
        continue;
      dl = strspn (q, "abcdefghijklmnopqrstuvwxyz0123456789");
      if (dl == 0 || dl >= sizeof w->podman_driver || strncmp (q + dl, "-containers/", 12) != 0)
        continue;
      if (strncmp (q + dl + 12, id, il) != 0 || strcmp (q + dl + 12 + il, "/userdata") != 0)
        continue;
      memcpy (w->podman_driver, q, dl);
      w->podman_driver[dl] = '\0';
      w->podman_root = roots->paths[i | 1];
      return true;
    }
  return false;
}

/* CRI-O's metadata of one storage record (CRI-O's
   RuntimeContainerMetadata, a JSON document in a string: podman's and
   buildah's have no "pod-id"). */
struct crio_meta
{
  char pod_id[72];     /* "pod-id" */
  char uid[72];        /* "uid" (sandboxes), or "" */
  char name[256];      /* "name": the container's, io.kubernetes.cri-o.ContainerName */
  char kube_name[256]; /* "metadata-name": a sandbox's pod name (KubeName) */
  char kube_ns[256];   /* "namespace": a sandbox's pod namespace */
  bool sandbox;        /* "pod": true, and the pod id is its own */
};

/* OUT gets the string member KEY of DOC when it fits, else "". */
static void
meta_string (struct json_object *doc, const char *key, char *out, size_t size)
{
  struct json_object *v;

  out[0] = '\0';
  if (json_object_object_get_ex (doc, key, &v) && json_object_is_type (v, json_type_string)
      && strlen (json_object_get_string (v)) < size)
    snprintf (out, size, "%s", json_object_get_string (v));
}

/* Whether storage record E (of container ID) is CRI-O's: its metadata
   into M. */
static bool
crio_metadata (struct json_object *e, const char *id, struct crio_meta *m)
{
  cleanup_error kg_error_t err = NULL;
  struct json_object *md, *doc, *v;
  const char *text;
  bool yes = false;

  memset (m, 0, sizeof *m);
  if (! json_object_object_get_ex (e, "metadata", &md) || ! json_object_is_type (md, json_type_string))
    return false;
  text = json_object_get_string (md);
  doc = json_parse_strict ("CRI-O's storage metadata", text, strlen (text), false, &err);
  if (doc != NULL && json_object_is_type (doc, json_type_object)
      && json_object_object_get_ex (doc, "pod-id", &v) && json_object_is_type (v, json_type_string))
    {
      yes = true;
      meta_string (doc, "pod-id", m->pod_id, sizeof m->pod_id);
      meta_string (doc, "uid", m->uid, sizeof m->uid);
      meta_string (doc, "name", m->name, sizeof m->name);
      meta_string (doc, "metadata-name", m->kube_name, sizeof m->kube_name);
      meta_string (doc, "namespace", m->kube_ns, sizeof m->kube_ns);
      if (! policy_valid_id (m->pod_id))
        m->pod_id[0] = '\0';
      if (! policy_valid_id (m->uid))
        m->uid[0] = '\0';
      m->sandbox = m->pod_id[0] != '\0' && strcmp (m->pod_id, id) == 0
                   && json_object_object_get_ex (doc, "pod", &v)
                   && json_object_is_type (v, json_type_boolean) && json_object_get_boolean (v);
    }
  json_object_put (doc);
  return yes;
}

/* Whether OWN, containers/storage's record of container ID in ST, is
   CRI-O's, and then its pod in W: the pod's sandbox is the record whose
   metadata names itself as a pod sandbox, in the same storage; its uid,
   name and namespace are the pod's. */
static bool
crio_start (const struct storage *st, struct json_object *own_rec, const char *id, struct who *w)
{
  struct json_object *e;
  struct crio_meta own, sb;

  if (! crio_metadata (own_rec, id, &own))
    return false;
  snprintf (w->pod_id, sizeof w->pod_id, "%s", own.pod_id);
  snprintf (w->crio_name, sizeof w->crio_name, "%s", own.name);
  w->pod_sandbox = own.sandbox;
  sb = own;
  if (! own.sandbox && own.pod_id[0] != '\0' && (e = storage_find (st, own.pod_id)) != NULL
      && (! crio_metadata (e, own.pod_id, &sb) || ! sb.sandbox))
    sb.uid[0] = '\0';
  w->pod_ok = own.pod_id[0] != '\0' && (own.sandbox || sb.sandbox) && sb.uid[0] != '\0';
  if (w->pod_ok)
    {
      snprintf (w->pod_uid, sizeof w->pod_uid, "%s", sb.uid);
      snprintf (w->kube_name, sizeof w->kube_name, "%s", sb.kube_name);
      snprintf (w->kube_ns, sizeof w->kube_ns, "%s", sb.kube_ns);
    }
  return true;
}

/* Who started this container.  The namespace is containerd's -namespace
   argument in shim mode, else the bundle's place in containerd's state
   (runc under containerd's runc shim; kata-guard check --bundle). */
static void
who_resolve (struct ctx *c)
{
  const struct request *req = c->pf->req;
  const char *id = req->container_id;
  struct who *w = &c->who;

  memset (w, 0, sizeof *w);
  if (req->mode == KG_MODE_SHIM)
    {
      if (req->ns != NULL && conf_valid_namespace (req->ns))
        snprintf (w->ns, sizeof w->ns, "%s", req->ns);
    }
  else
    bundle_namespace (c->bundle, id, w->ns, sizeof w->ns);
  /* A bundle in containers/storage: CRI-O's when the storage record is
     CRI-O's (a shim start of its runtime_type "vm", or conmon's OCI
     start), else podman's (conmon's OCI start only). */
  if (c->dirs->ok && podman_bundle (c->bundle, &c->dirs->podman, id, w))
    {
      cleanup_storage struct storage st = { 0 };
      struct json_object *own
          = storage_load (c, w->podman_driver, &st) == 0 ? storage_find (&st, id) : NULL;

      storage_layer (own, w->layer, sizeof w->layer);
      if (own != NULL && crio_start (&st, own, id, w))
        {
          w->engine = ENGINE_CRIO;
          return;
        }
      if (w->ns[0] == '\0')
        {
          w->engine = ENGINE_PODMAN;
          return;
        }
      w->podman_root = NULL;
      w->podman_driver[0] = w->layer[0] = '\0';
    }
  if (w->ns[0] == '\0')
    return;
  if (strcmp (w->ns, DOCKER_NAMESPACE) == 0)
    {
      w->engine = ENGINE_DOCKER;
      if (c->dirs->roots_ok && policy_valid_id (id))
        w->docker_root = docker_record_root (&c->dirs->roots, id);
    }
  /* CRI runs Kata as a shim; an OCI-mode start is not CRI's. */
  else if (req->mode != KG_MODE_OCI
           && kg_strv_has ((const char *const *) c->cfg->policy.cri_namespaces,
                           c->cfg->policy.n_cri_namespaces, w->ns))
    w->engine = ENGINE_CRI;
  else
    w->engine = ENGINE_CONTAINERD;
}

/* Docker's per-container files count only for a start in Docker's
   namespace whose own record names the container. */
static bool
docker_start (const struct ctx *c)
{
  return c->who.engine == ENGINE_DOCKER && c->who.docker_root != NULL;
}

/* This container's pod, as containerd's CRI describes it: the sandbox
   id and the pod uid of its annotations, when they hold together: the
   sandbox's bundle (beside this one, in containerd's state) is a pod
   sandbox of the same pod uid.  Returns false when the container is no
   CRI pod's. */
static bool
cri_pod_lookup (const struct ctx *c, const char **sandbox_id, const char **pod_uid)
{
  const char *sid = annotation (c, "io.kubernetes.cri.sandbox-id");
  const char *uid = annotation (c, "io.kubernetes.cri.sandbox-uid");
  cleanup_free char *path = NULL;
  cleanup_free char *dir = NULL;
  struct json_object *doc, *ann, *v, *t;
  bool yes = false;
  char *slash;

  const char *type = annotation (c, "io.kubernetes.cri.container-type");

  if (c->who.engine != ENGINE_CRI || type == NULL || ! policy_valid_id (sid) || ! policy_valid_id (uid)
      || c->bundle == NULL)
    return false;
  if (strcmp (type, "sandbox") == 0)
    {
      /* The sandbox itself: the id is its own. */
      *sandbox_id = sid;
      *pod_uid = uid;
      return strcmp (sid, c->pf->req->container_id ? c->pf->req->container_id : "") == 0;
    }
  if (strcmp (type, "container") != 0
      || strcmp (sid, c->pf->req->container_id ? c->pf->req->container_id : "") == 0)
    return false;
  dir = strdup (c->bundle);
  if (dir == NULL || (slash = strrchr (dir, '/')) == NULL)
    return false;
  *slash = '\0';
  if (asprintf (&path, "%s/%s/config.json", dir, sid) < 0)
    return path = NULL, false;
  doc = engine_json (path);
  if (doc != NULL && json_object_object_get_ex (doc, "annotations", &ann)
      && json_object_object_get_ex (ann, "io.kubernetes.cri.container-type", &t)
      && json_object_is_type (t, json_type_string) && strcmp (json_object_get_string (t), "sandbox") == 0
      && json_object_object_get_ex (ann, "io.kubernetes.cri.sandbox-uid", &v)
      && json_object_is_type (v, json_type_string) && strcmp (json_object_get_string (v), uid) == 0)
    yes = true;
  json_object_put (doc);
  if (yes)
    {
      *sandbox_id = sid;
      *pod_uid = uid;
    }
  return yes;
}

/* The same, looked up (the sandbox's config.json read) once per spec,
   however many of its binds ask. */
static bool
cri_pod (struct ctx *c, const char **sandbox_id, const char **pod_uid)
{
  if (c->pod == 0)
    c->pod = cri_pod_lookup (c, &c->pod_sid, &c->pod_uid) ? 1 : -1;
  *sandbox_id = c->pod_sid;
  *pod_uid = c->pod_uid;
  return c->pod > 0;
}

/* This container's pod, as its engine keeps it: containerd's CRI's (its
   annotations, held together by the sandbox's bundle) or CRI-O's (its
   storage records).  False for no pod. */
static bool
pod_of (struct ctx *c, const char **sandbox_id, const char **pod_uid)
{
  if (c->who.engine == ENGINE_CRIO)
    {
      *sandbox_id = c->who.pod_id;
      *pod_uid = c->who.pod_uid;
      return c->who.pod_ok;
    }
  return cri_pod (c, sandbox_id, pod_uid);
}

/* A CRI-O pod's sandbox (its infra container): Kata builds the pod's VM
   for it. */
static bool
is_crio_sandbox (const struct ctx *c)
{
  return c->who.engine == ENGINE_CRIO && c->who.pod_sandbox && c->who.pod_ok;
}

/* A pod member, of containerd's CRI or of CRI-O: Kata runs it in the VM
   of its pod's sandbox. */
static bool
is_pod_member (const struct ctx *c)
{
  const char *t = annotation (c, "io.kubernetes.cri.container-type");

  if (c->who.engine == ENGINE_CRIO)
    return ! c->who.pod_sandbox;
  return c->who.engine == ENGINE_CRI && t != NULL && strcmp (t, "container") == 0;
}

/* The path under one of ROOTS, or NULL. */
static const char *
under_root (const char *p, const struct dirs *roots)
{
  for (size_t i = 0; i < roots->n; i++)
    {
      const char *q = below (p, roots->paths[i]);

      if (q != NULL)
        return q - 1;
    }
  return NULL;
}

enum own
{
  OWN_NOT,       /* not this container's or pod's */
  OWN_ANY,       /* the engine's file of this container: bound as the engine binds it */
  OWN_READONLY,  /* the same, which the engine binds read-only */
};

/* CRI's per-pod files of this container's pod, in containerd's root and
   state: <root>/io.containerd.grpc.v1.cri/sandboxes/<sandbox-id>/{hosts,
   hostname,resolv.conf,shm}. */
static enum own
own_cri_file (struct ctx *c, const char *p, const struct dirs *roots)
{
  static const char *const files[] = { "hosts", "hostname", "resolv.conf", "shm" };
  const char *q = under_root (p, roots), *sid, *uid;
  size_t sl;

  if (q == NULL || strncmp (q, "/io.containerd.grpc.v1.cri/sandboxes/", 37) != 0
      || ! cri_pod (c, &sid, &uid))
    return OWN_NOT;
  q += 37;
  sl = strlen (sid);
  if (strncmp (q, sid, sl) != 0 || q[sl] != '/')
    return OWN_NOT;
  for (size_t j = 0; j < ARRAY_SIZE (files); j++)
    if (strcmp (q + sl + 1, files[j]) == 0)
      return OWN_ANY;
  return OWN_NOT;
}

/* The kubelet's files of this container's pod, <root>/pods/<pod uid>/:
   etc-hosts, containers/<name>/<file> (termination logs), and volumes
   (volumes/kubernetes.io~<type>/...), configMap, secret, projected and
   downward-API ones read-only as the kubelet binds them. */
static enum own
kubelet_file (struct ctx *c, const char *p, const struct dirs *roots)
{
  static const char *const readonly[] = { "configmap", "secret", "projected", "downward-api" };
  const char *q = under_root (p, roots), *sid, *uid, *type;
  size_t ul;

  if (q == NULL || strncmp (q, "/pods/", 6) != 0 || ! pod_of (c, &sid, &uid))
    return OWN_NOT;
  q += 6;
  ul = strlen (uid);
  if (strncmp (q, uid, ul) != 0 || q[ul] != '/')
    return OWN_NOT;
  q += ul + 1;
  if (strcmp (q, "etc-hosts") == 0)
    return OWN_ANY;
  if (strncmp (q, "containers/", 11) == 0 && strchr (q + 11, '/') != NULL && q[11] != '/')
    return OWN_ANY;
  if (strncmp (q, "volumes/kubernetes.io~", 22) != 0)
    return OWN_NOT;
  type = q + 22;
  if (strchr (type, '/') == NULL || type[0] == '/')
    return OWN_NOT;
  for (size_t j = 0; j < ARRAY_SIZE (readonly); j++)
    if (strncmp (type, readonly[j], strlen (readonly[j])) == 0 && type[strlen (readonly[j])] == '/')
      return OWN_READONLY;
  return OWN_ANY;
}

/* Whether Docker's container CID (its state, <root>/containers/CID/
   config.v2.json) is running with PID as its init process. */
static bool
docker_container_pid (const char *root, const char *cid, unsigned long pid)
{
  cleanup_free char *path = NULL;
  struct json_object *doc, *state, *v;
  bool yes = false;

  if (asprintf (&path, "%s/containers/%s/config.v2.json", root, cid) < 0)
    return path = NULL, false;
  doc = engine_json (path);
  if (doc != NULL && json_object_object_get_ex (doc, "State", &state)
      && json_object_object_get_ex (state, "Running", &v) && json_object_get_boolean (v)
      && json_object_object_get_ex (state, "Pid", &v) && json_object_is_type (v, json_type_int)
      && json_object_get_int64 (v) > 0 && (unsigned long) json_object_get_int64 (v) == pid)
    yes = true;
  json_object_put (doc);
  return yes;
}

/* Docker's per-container files of the container whose namespace this one
   joins (--network container:X binds X's resolv.conf, hostname and hosts;
   --ipc container:X its mounts/shm): <root>/containers/CID/FILE, where
   CID's recorded init process is the one whose namespace the spec names. */
static bool
joined_engine_file (const struct ctx *c, const char *p, const struct dirs *roots)
{
  static const struct
  {
    int ns;
    const char *file;
  } files[] = {
    { NS_NET, "resolv.conf" }, { NS_NET, "hostname" }, { NS_NET, "hosts" }, { NS_IPC, "mounts/shm" },
  };

  for (size_t i = 0; i < roots->n; i++)
    {
      const char *q = below (p, roots->paths[i]), *slash;
      char cid[NAME_MAX + 1];

      if (q == NULL || strncmp (q, "containers/", 11) != 0)
        continue;
      q += 11;
      slash = strchr (q, '/');
      if (slash == NULL || slash == q || (size_t) (slash - q) > NAME_MAX)
        continue;
      memcpy (cid, q, (size_t) (slash - q));
      cid[slash - q] = '\0';
      if (! policy_valid_id (cid))
        continue;
      for (size_t j = 0; j < ARRAY_SIZE (files); j++)
        if (strcmp (slash + 1, files[j].file) == 0 && c->joined_pid[files[j].ns] != 0
            && docker_container_pid (roots->paths[i], cid, c->joined_pid[files[j].ns]))
          return true;
    }
  return false;
}

/* A named volume's data, <root>/volumes/<name>/_data[/...]: the
   container's data, not the engine's state (but writable only under
   writable_mounts, like any other bind). */
/* The volume directory (ROOT/volumes/NAME/_data) of P, in OUT. */
static bool
volume_dir (const char *p, const struct dirs *roots, char *out, size_t size)
{
  for (size_t i = 0; i < roots->n; i++)
    {
      const char *q = below (p, roots->paths[i]), *slash;

      if (q == NULL || strncmp (q, "volumes/", 8) != 0)
        continue;
      q += 8;
      slash = strchr (q, '/');
      if (slash == NULL || slash == q || strncmp (slash, "/_data", 6) != 0
          || (slash[6] != '\0' && slash[6] != '/'))
        continue;
      return snprintf (out, size, "%.*s", (int) (slash + 6 - p), p) < (int) size;
    }
  return false;
}

/* A mount point at DIR or below it, other than a tmpfs (a fresh file
   system holds no host file), in /proc/self/mountinfo: the local volume
   driver's volume-opt o=bind,device=/ mounts the host's / on the volume
   directory, which is otherwise a plain directory.  1 with the mount point
   and its type in WHAT, 0 none, -1 when mountinfo cannot be read. */
static int
mount_within (const char *dir, char *what, size_t size)
{
  cleanup_free char *line = NULL;
  size_t cap = 0, dl = strlen (dir);
  FILE *f = fopen ("/proc/self/mountinfo", "re");
  int found = 0;

  if (f == NULL)
    return -1;
  while (found == 0 && getline (&line, &cap, f) > 0)
    {
      char mp[PATH_MAX], *sep, *tok, *save = NULL;
      size_t o = 0;
      int field = 0;

      sep = strstr (line, " - ");
      if (sep == NULL)
        continue;
      *sep = '\0';
      for (tok = strtok_r (line, " ", &save); tok != NULL && field < 4;
           tok = strtok_r (NULL, " ", &save))
        field++;
      if (tok == NULL)
        continue;
      /* The mount point, with mountinfo's octal escapes (\040) undone. */
      for (const char *q = tok; *q && o + 1 < sizeof mp; q++)
        if (q[0] == '\\' && q[1] >= '0' && q[1] <= '3' && q[2] >= '0' && q[2] <= '7'
            && q[3] >= '0' && q[3] <= '7')
          {
            mp[o++] = (char) ((q[1] - '0') * 64 + (q[2] - '0') * 8 + (q[3] - '0'));
            q += 3;
          }
        else
          mp[o++] = *q;
      mp[o] = '\0';
      if (strncmp (mp, dir, dl) != 0 || (mp[dl] != '\0' && mp[dl] != '/'))
        continue;
      {
        char *fstype = strtok_r (sep + 3, " ", &save);

        if (fstype != NULL && strcmp (fstype, "tmpfs") == 0)
          continue;
        snprintf (what, size, "%s is a %s mount", mp, fstype ? fstype : "?");
      }
      found = 1;
    }
  if (found == 0 && ferror (f))
    found = -1;
  fclose (f);
  return found;
}

static bool
engine_volume (const char *p, const struct dirs *roots)
{
  char dir[PATH_MAX];

  return volume_dir (p, roots, dir, sizeof dir);
}

/* Why P may not be bound at all, or NULL. */
static const char *
denied (const char *p, const struct mount_dirs *d, const char **entry)
{
  const struct dirs *roots = &d->roots, *extra = &d->extra;
  const char *why = scan_components (p);
  int m;

  *entry = NULL;
  if (why != NULL)
    return why;
  for (size_t i = 0; i < ARRAY_SIZE (deny_builtin); i++)
    if ((m = match_entry (deny_builtin[i].pattern, p, false)) != 0)
      {
        *entry = deny_builtin[i].pattern;
        return m == 1 ? deny_builtin[i].why : "contains";
      }
  for (size_t i = 0; i < d->kubelet.n; i++)
    if ((m = match_entry (d->kubelet.paths[i], p, true)) != 0)
      {
        *entry = d->kubelet.paths[i];
        return m == 2 ? "contains" : "the kubelet's state ([policy] kubelet_roots; not this pod's files)";
      }
  for (size_t i = 0; i < d->ctd.n; i++)
    if ((m = match_entry (d->ctd.paths[i], p, true)) != 0)
      {
        *entry = d->ctd.paths[i];
        return m == 2 ? "contains" : "containerd's state ([policy] containerd_roots; not this pod's files)";
      }
  for (size_t i = 0; i < d->podman.n; i++)
    if ((m = match_entry (d->podman.paths[i], p, true)) != 0)
      {
        *entry = d->podman.paths[i];
        return m == 2 ? "contains" : "podman's storage ([policy] podman_roots; not this container's files)";
      }
  for (size_t i = 0; i < roots->n; i++)
    if ((m = match_entry (roots->paths[i], p, true)) != 0)
      {
        *entry = roots->paths[i];
        if (m == 2)
          return "contains";
        if (match_entry ("/containers", p + strlen (roots->paths[i]), true) == 1)
          return "the engine's per-container files (not this container's)";
        return "the engine's state ([policy] engine_roots)";
      }
  for (size_t i = 0; i < extra->n; i++)
    if ((m = match_entry (extra->paths[i], p, true)) != 0)
      {
        *entry = extra->paths[i];
        return m == 1 ? "listed in [policy] deny_mounts" : "contains";
      }
  return NULL;
}

/* A directory bound whole brings what is in it: look one level down for
   the names the deny list refuses anywhere. */
static const char *
contains_credentials (const char *p)
{
  static const char *const names[]
      = { ".ssh", ".aws", ".kube", ".docker", ".gnupg", ".config/gcloud", ".env",
          "docker.sock", "containerd.sock" };
  cleanup_close int dfd = open (p, O_PATH | O_DIRECTORY | O_CLOEXEC);
  struct stat st;

  if (dfd < 0)
    return NULL;
  for (size_t i = 0; i < ARRAY_SIZE (names); i++)
    if (fstatat (dfd, names[i], &st, AT_SYMLINK_NOFOLLOW) == 0)
      return names[i];
  return NULL;
}

/* Whether someone other than root could put another object under the
   bind source PATH (absolute, as the runtime will follow it) between this
   check and the mount: every directory on the way, and every symlink,
   must be root's and not writable by group or others (trust.h; the sticky
   bit does not count, a file's owner may still rename it).  A path that
   does not exist yet (the engine creates it) is judged by its deepest
   existing directory.  NULL, or why in WHY. */
static const char *
redirectable_as (const char *path, enum trust_final final, char *why, size_t size)
{
  char p[PATH_MAX];

  if (snprintf (p, sizeof p, "%s", path) >= (int) sizeof p)
    return snprintf (why, size, "path too long"), why;
  for (;;)
    {
      cleanup_error kg_error_t err = NULL;
      struct trust_info info;
      int fd = trust_open (p, final, &info, &err);
      char *slash;

      if (fd >= 0)
        {
          close (fd);
          return NULL;
        }
      if (err->errnum != ENOENT || strcmp (p, "/") == 0 || (slash = strrchr (p, '/')) == NULL)
        {
          snprintf (why, size, "others could swap it for another path before the runtime "
                               "mounts it (%s)",
                    err->msg);
          return why;
        }
      slash[slash == p] = '\0';  /* "/x" -> "/" */
      final = TRUST_DIR;
    }
}

static const char *
redirectable (const char *path, char *why, size_t size)
{
  return redirectable_as (path, TRUST_ANY, why, size);
}

/* Whether "rro" without "ro" is read-only.  An OCI runtime that lists it
   in its features (the real one answers kata-guard's `features`) applies
   it, and only then do Docker 25 and later write it alone.  Kata's shim
   (3.30) ignores it, and shares such a source read-write: behind the shim
   and in `kata-guard check`, which cannot tell, it takes "ro" as well. */
/* redirectable () of many sources in one directory (Docker's and the
   kubelet's layouts) walks that directory once: once it is known that
   nobody but root can change what is in it, an entry below it that is
   not a symlink, or is not there, is judged; a symlink is walked. */
struct redirect_memo
{
  char dir[PATH_MAX];  /* the parent last judged, or "" */
  bool dir_ok;         /* it passed (as an existing or a missing directory) */
  bool dir_exists;
};

static const char *
redirectable_memo (struct redirect_memo *m, const char *path, char *why, size_t size)
{
  const char *slash = strrchr (path, '/');
  size_t dl;
  struct stat st;

  if (slash == NULL || path[0] != '/')
    return redirectable (path, why, size);
  dl = slash == path ? 1 : (size_t) (slash - path);
  if (dl >= sizeof m->dir)
    return redirectable (path, why, size);
  if (strlen (m->dir) != dl || strncmp (m->dir, path, dl) != 0)
    {
      memcpy (m->dir, path, dl);
      m->dir[dl] = '\0';
      /* As the walk to PATH would pass it: a trusted directory. */
      m->dir_ok = redirectable_as (m->dir, TRUST_DIR, why, size) == NULL;
      m->dir_exists = m->dir_ok && stat (m->dir, &st) == 0 && S_ISDIR (st.st_mode);
    }
  if (! m->dir_ok)
    return redirectable (path, why, size);
  if (! m->dir_exists)
    return NULL;
  if (lstat (path, &st) < 0 ? errno == ENOENT : ! S_ISLNK (st.st_mode))
    return NULL;
  return redirectable (path, why, size);
}

static bool
rro_alone_counts (const struct ctx *c)
{
  return c->pf->req->mode == KG_MODE_OCI;
}

static const char *const virtual_fs[] = {
  "proc", "sysfs", "tmpfs", "devpts", "mqueue", "cgroup", "cgroup2",
};

/* What a mount's options (OPTS, of the mount of source S) say as the
   runtime reads them: *BIND for bind/rbind, *RO when the mount ends up
   read-only, *RRO when "rro" was there at all (for the message). */
static void
mount_options (const struct ctx *c, struct json_object *opts, const char *s, struct findings *f,
               bool *bind, bool *ro, bool *rro)
{
  bool rw = false, rrw = false;

  *ro = *rro = false;
  for (size_t j = 0; opts != NULL && j < json_object_array_length (opts); j++)
    {
      struct json_object *o = json_object_array_get_idx (opts, j);
      const char *os;

      if (! json_object_is_type (o, json_type_string))
        {
          finding (f, "mount %s: option %zu is %s, not a string", s, j, json_kind (o));
          continue;
        }
      os = json_object_get_string (o);
      /* Only the whole word: "ro=x" or "nosuid,ro" are not "ro" to
         every runtime, so they do not count.  "rro" is the recursive
         read-only of runc 1.1 and crun 1.4 (mount_setattr(2) with
         AT_RECURSIVE, after the mount), what Docker 25 and later and
         containerd 2's CRI write when the runtime lists it. */
      if (strcmp (os, "ro") == 0)
        *ro = true;
      else if (strcmp (os, "rw") == 0)
        rw = true;
      else if (strcmp (os, "rro") == 0)
        *rro = true;
      else if (strcmp (os, "rrw") == 0)
        rrw = true;
      else if (strcmp (os, "bind") == 0 || strcmp (os, "rbind") == 0)
        *bind = true;
    }
  /* "ro" then "rw" is writable to runc (the last one wins): either
     one next to "rw" is not read-only.  The recursive change is made
     after the mount, so "rro" wins over "rw" and "rrw" over "ro";
     "rro" next to "rrw" is, like "ro" next to "rw", not read-only. */
  *ro = (*ro && ! rw && ! rrw) || (*rro && ! rrw && rro_alone_counts (c));
}

enum bind_verdict
{
  BIND_REFUSED,   /* a finding was made */
  BIND_ENGINE,    /* a file the engine made for this container */
  BIND_READONLY,
  BIND_WRITABLE,  /* under [policy] writable_mounts */
};

/* One bind mount of source S (as written), read-only or not (RO; RRO:
   "rro" was among its options). */
static enum bind_verdict
judge_bind (struct ctx *c, const struct mount_dirs *d, struct resolve_memo *memo,
            struct redirect_memo *rmemo, const char *s, bool ro, bool rro, struct findings *f)
{
  cleanup_error kg_error_t err = NULL;
  cleanup_free char *lex = NULL;
  cleanup_free char *res = NULL;
  const char *why = NULL, *entry;
  char rwhy[PATH_MAX + 128];
  struct resolved_info ri;
  bool under = false;
  enum own own;

  if (policy_path_resolve (c->bundle, s, false, &lex, &err) < 0
      || resolve_memo (memo, c->bundle, s, &res, &ri, &err) < 0)
    {
      finding (f, "%s: %s", s, err->msg);
      return BIND_REFUSED;
    }
  own = own_cri_file (c, res, &d->ctd);
  if (own == OWN_NOT)
    own = kubelet_file (c, res, &d->kubelet);
  if (own == OWN_READONLY && ! ro)
    {
      finding (f, "%s: writable, but the kubelet binds it read-only", s);
      return BIND_REFUSED;
    }
  if (own != OWN_NOT
      || (docker_start (c)
          && (own_engine_file (res, &d->roots, c->pf->req->container_id)
              || joined_engine_file (c, res, &d->roots)))
      || ((c->who.engine == ENGINE_PODMAN || c->who.engine == ENGINE_CRIO)
          && own_podman_file (res, &d->podman, c->pf->req->container_id))
      || (c->who.engine == ENGINE_CRIO && is_pod_member (c) && c->who.pod_ok
          && own_podman_file (res, &d->podman, c->who.pod_id)))
    return BIND_ENGINE;
  if (engine_volume (res, &d->roots) && engine_volume (lex, &d->roots))
    {
      char vdir[PATH_MAX], what[PATH_MAX + 64];
      int mounted = volume_dir (res, &d->roots, vdir, sizeof vdir)
                        ? mount_within (vdir, what, sizeof what)
                        : -1;

      if (mounted != 0)
        {
          finding (f, "%s: a volume that is a mount of something else (%s)", s,
                   mounted < 0 ? "/proc/self/mountinfo cannot be read" : what);
          return BIND_REFUSED;
        }
    }
  else
    {
      why = denied (lex, d, &entry);
      if (why == NULL && strcmp (lex, res) != 0)
        why = denied (res, d, &entry);
    }
  if (why != NULL)
    {
      if (strcmp (why, "contains") == 0)
        finding (f, "%s%s%s: contains %s", s, strcmp (s, res) ? " -> " : "",
                 strcmp (s, res) ? res : "", entry);
      else
        finding (f, "%s%s%s: %s", s, strcmp (s, res) ? " -> " : "", strcmp (s, res) ? res : "",
                 why);
      return BIND_REFUSED;
    }
  /* What the resolution saw of the source spares a second look:
     a source that does not exist holds nothing and is no socket. */
  if (! ri.have_st)
    {
      ri.have_st = ri.exists && stat (res, &ri.st) == 0;
      ri.exists = ri.have_st;
    }
  if (ri.exists && S_ISDIR (ri.st.st_mode) && (why = contains_credentials (res)) != NULL)
    {
      finding (f, "%s: contains %s", s, why);
      return BIND_REFUSED;
    }
  if (redirectable_memo (rmemo, lex, rwhy, sizeof rwhy) != NULL)
    {
      finding (f, "%s: %s", s, rwhy);
      return BIND_REFUSED;
    }
  for (size_t j = 0; j < d->writable.n; j++)
    if (path_under (res, d->writable.paths[j]))
      under = true;
  /* "ro" does not stop connect (2): a bound socket is a line into a
     host service whatever the options say. */
  if (! under && ri.exists && S_ISSOCK (ri.st.st_mode))
    {
      finding (f, "%s: a host socket (read-only does not stop connecting to it)", s);
      return BIND_REFUSED;
    }
  if (ro)
    return BIND_READONLY;
  if (under)
    return BIND_WRITABLE;
  finding (f, "%s%s%s: writable bind mount outside [policy] writable_mounts%s", s,
           strcmp (s, res) ? " -> " : "", strcmp (s, res) ? res : "",
           rro ? " (\"rro\" without \"ro\": Kata's shim ignores rro)" : "");
  return BIND_REFUSED;
}

/* ---- the rootfs (policy.mounts) ------------------------------------- */

/* Whether Q is A/B/C. */
static bool
is_path3 (const char *q, const char *a, const char *b, const char *c)
{
  size_t al = strlen (a), bl = strlen (b);

  return strncmp (q, a, al) == 0 && q[al] == '/' && strncmp (q + al + 1, b, bl) == 0
         && q[al + 1 + bl] == '/' && strcmp (q + al + bl + 2, c) == 0;
}

/* A graph driver's mount of layer (or mount id) L, Q relative to the
   driver's root: DRIVER/L/merged (overlay2, overlay, fuse-overlayfs) or
   the driver's own place (vfs/dir/L, btrfs/subvolumes/L, zfs/graph/L). */
static bool
driver_mount (const char *q, const char *driver, const char *l)
{
  return is_path3 (q, driver, l, "merged") || is_path3 (q, "vfs", "dir", l)
         || is_path3 (q, "btrfs", "subvolumes", l) || is_path3 (q, "zfs", "graph", l);
}

/* Docker's mount of this container's rootfs, under the engine root of
   Docker's record of it: the mount id of
   <root>/image/<driver>/layerdb/mounts/<id>/mount-id, mounted by the
   graph driver under <root>/<driver>; with the containerd image store,
   <root>/rootfs/<snapshotter>/<id>. */
static bool
docker_rootfs (const struct ctx *c, const char *res)
{
  cleanup_error kg_error_t err = NULL;
  cleanup_free char *path = NULL;
  cleanup_free char *mid = NULL;
  const char *id = c->pf->req->container_id, *q, *slash;
  char driver[64];
  size_t dl, len;

  if (! docker_start (c) || (q = below (res, c->who.docker_root)) == NULL)
    return false;
  dl = strcspn (q, "/");
  if (dl == 0 || dl >= sizeof driver || q[dl] != '/')
    return false;
  memcpy (driver, q, dl);
  driver[dl] = '\0';
  if (strcmp (driver, "rootfs") == 0)
    return (slash = strchr (q + dl + 1, '/')) != NULL && slash > q + dl + 1
           && strcmp (slash + 1, id) == 0;
  if (asprintf (&path, "%s/image/%s/layerdb/mounts/%s/mount-id", c->who.docker_root, driver, id)
      < 0)
    return path = NULL, false;
  if (kg_read_file_bounded (path, O_NOFOLLOW, 256, &mid, &len, &err) < 0)
    return false;
  return len > 0 && strspn (mid, "0123456789abcdef") == len && driver_mount (q, driver, mid);
}

/* podman's or CRI-O's mount of this container's rootfs: the layer of its
   storage record (who_resolve), mounted by the graph driver under a root
   of that storage. */
static bool
podman_rootfs (const struct ctx *c, const char *res)
{
  const struct who *w = &c->who;

  if ((w->engine != ENGINE_PODMAN && w->engine != ENGINE_CRIO) || w->layer[0] == '\0')
    return false;
  for (size_t i = 0; i < c->dirs->podman.n; i += 2)
    {
      const char *q = below (res, c->dirs->podman.paths[i | 1]);

      if (q != NULL && driver_mount (q, w->podman_driver, w->layer))
        return true;
    }
  return false;
}

/* The container's root filesystem, root.path (relative to the bundle):
   the engine's own mount of this container's image passes (the bundle's
   rootfs, where containerd mounts the snapshot; Docker's and podman's
   graph-driver mount of this container); any other directory is judged
   as a writable bind source would be (ctr run --rootfs, podman run
   --rootfs).  What it is, in *HOW. */
static void
judge_rootfs (struct ctx *c, struct resolve_memo *memo, struct redirect_memo *rmemo,
              struct findings *f, const char **how)
{
  cleanup_findings struct findings sub = { 0 };
  cleanup_error kg_error_t err = NULL;
  cleanup_free char *res = NULL;
  cleanup_free char *own = NULL;
  struct json_object *root, *path;
  struct resolved_info ri;
  const char *s;

  *how = NULL;
  root = jget_type (c->spec, "spec", "root", json_type_object, f);
  path = jget_type (root, "root", "path", json_type_string, f);
  /* (root.readonly is judged for its type alone: see below.) */
  jget_type (root, "root", "readonly", json_type_boolean, f);
  s = path ? json_object_get_string (path) : "";
  if (*s == '\0')
    {
      finding (f, "the spec names no root filesystem (root.path)");
      return;
    }
  if (resolve_memo (memo, c->bundle, s, &res, &ri, &err) < 0)
    {
      finding (f, "root.path %s: %s", s, err->msg);
      return;
    }
  if (asprintf (&own, "%s/rootfs", c->bundle) < 0)
    own = NULL;
  if (own != NULL && strcmp (res, own) == 0)
    *how = "the bundle's rootfs";
  else if (docker_rootfs (c, res))
    *how = "Docker's mount of this container's image";
  else if (podman_rootfs (c, res))
    *how = "podman's mount of this container's image";
  if (*how != NULL)
    return;
  /* Kata binds a directory rootfs into the VM's share writable whatever
     root.readonly says (bindMountContainerRootfs, fs_share_linux.go):
     the guest's read-only view does not hold against the guest. */
  switch (judge_bind (c, c->dirs, memo, rmemo, s, false, false, &sub))
    {
    case BIND_REFUSED:
      finding (f, "root.path %s", sb_str (&sub.text));
      return;
    case BIND_ENGINE:
      finding (f, "root.path %s: an engine's file of the container, not a root filesystem", s);
      return;
    case BIND_READONLY: /* (not for a writable source) */
    case BIND_WRITABLE:
      *how = "a directory under [policy] writable_mounts";
      return;
    }
}

static void
check_mounts (struct ctx *c)
{
  cleanup_findings struct findings f = { 0 };
  cleanup_resolve_memo struct resolve_memo memo = { 0 };
  struct redirect_memo rmemo = { "", false, false };
  struct json_object *mounts;
  size_t n_bind = 0, n_ro = 0, n_engine = 0;
  const char *rootfs;

  if (! c->dirs->ok)
    {
      report_fail (c->rep, "policy.mounts", "fix the paths in [policy]",
                   "cannot resolve a [policy] path: %s", c->dirs_err->msg);
      return;
    }
  judge_rootfs (c, &memo, &rmemo, &f, &rootfs);
  mounts = jget_type (c->spec, "spec", "mounts", json_type_array, &f);
  for (size_t i = 0; mounts != NULL && i < json_object_array_length (mounts); i++)
    {
      struct json_object *m = json_object_array_get_idx (mounts, i);
      struct json_object *type, *src, *opts;
      const char *t, *s;
      bool bind = false, ro, rro, known = false;

      if (! json_object_is_type (m, json_type_object))
        {
          finding (&f, "mounts[%zu] is %s, not an object", i, json_kind (m));
          continue;
        }
      type = jget_type (m, "mount", "type", json_type_string, &f);
      src = jget_type (m, "mount", "source", json_type_string, &f);
      opts = jget_type (m, "mount", "options", json_type_array, &f);
      t = type ? json_object_get_string (type) : "";
      s = src ? json_object_get_string (src) : "";
      mount_options (c, opts, s, &f, &bind, &ro, &rro);
      if (strcmp (t, "bind") == 0)
        bind = true;
      if (! bind)
        {
          for (size_t j = 0; j < ARRAY_SIZE (virtual_fs); j++)
            if (strcmp (t, virtual_fs[j]) == 0)
              known = true;
          if (! known)
            {
              struct json_object *dst = jget (m, "mount", "destination", &f);

              finding (&f, "mount of %s type \"%s\" on %s: neither a bind mount nor a virtual "
                           "filesystem kata-guard knows",
                       s, t, dst && json_object_is_type (dst, json_type_string)
                                 ? json_object_get_string (dst) : "?");
            }
          continue;
        }
      n_bind++;
      if (src == NULL || *s == '\0')
        {
          finding (&f, "bind mount %zu has no source", i);
          continue;
        }
      switch (judge_bind (c, c->dirs, &memo, &rmemo, s, ro, rro, &f))
        {
        case BIND_ENGINE:
          n_engine++;
          break;
        case BIND_READONLY:
          n_ro++;
          break;
        case BIND_WRITABLE:
        case BIND_REFUSED:
          break;
        }
    }
  if (f.n > 0)
    report_fail (c->rep, "policy.mounts",
                 "do not bind engine sockets, engine state, credentials or system directories "
                 "into the container; bind data read-only (:ro) or from a directory listed in "
                 "[policy] writable_mounts",
                 "%s", sb_str (&f.text));
  else
    report_pass (c->rep, "policy.mounts",
                 "%zu bind mount%s: %zu read-only, %zu this container's engine file%s, %zu "
                 "under [policy] writable_mounts; the rootfs is %s",
                 n_bind, n_bind == 1 ? "" : "s", n_ro, n_engine, n_engine == 1 ? "" : "s",
                 n_bind - n_ro - n_engine, rootfs);
}

/* ---- policy.capabilities -------------------------------------------- */

static void
cap_upper (cap_value_t v, char *out, size_t size)
{
  char *name = cap_to_name (v);

  snprintf (out, size, "%s", name ? name : "CAP_?");
  for (char *p = out; *p; p++)
    *p = (char) toupper ((unsigned char) *p);
  cap_free (name);
}

/* The capabilities [policy] capabilities allows, as a mask. */
static uint64_t
allowed_caps (const struct guard_config *cfg)
{
  uint64_t allowed = 0;

  for (size_t i = 0; i < cfg->policy.n_capabilities; i++)
    {
      cap_value_t v;

      /* Validated when the configuration loaded. */
      if (cap_from_name (cfg->policy.capabilities[i], &v) == 0 && v >= 0 && v < 64)
        allowed |= UINT64_C (1) << v;
    }
  return allowed;
}

/* NAME as a capability number: what libcap accepts, case-insensitively,
   with the CAP_ prefix (no bare numbers). */
static bool
cap_parse (const char *name, cap_value_t *v)
{
  return strncasecmp (name, "CAP_", 4) == 0 && cap_from_name (name, v) == 0 && *v >= 0 && *v < 64;
}

static void
check_capabilities (struct ctx *c)
{
  static const char *const sets[] = { "bounding", "effective", "inheritable", "permitted",
                                      "ambient" };
  cleanup_findings struct findings f = { 0 };
  struct json_object *process, *caps;
  uint64_t allowed = allowed_caps (c->cfg), reported = 0, used = 0;

  process = jget_type (c->spec, "spec", "process", json_type_object, &f);
  caps = jget_type (process, "process", "capabilities", json_type_object, &f);
  for (size_t s = 0; s < ARRAY_SIZE (sets); s++)
    {
      struct json_object *list = jget_type (caps, "capabilities", sets[s], json_type_array, &f);

      for (size_t i = 0; list != NULL && i < json_object_array_length (list); i++)
        {
          struct json_object *n = json_object_array_get_idx (list, i);
          const char *name;
          char up[64];
          cap_value_t v;

          if (! json_object_is_type (n, json_type_string))
            {
              finding (&f, "capabilities.%s[%zu] is %s, not a name", sets[s], i, json_kind (n));
              continue;
            }
          name = json_object_get_string (n);
          if (! cap_parse (name, &v))
            {
              finding (&f, "unknown capability \"%.64s\" in %s", name, sets[s]);
              continue;
            }
          used |= UINT64_C (1) << v;
          if (allowed & (UINT64_C (1) << v) || reported & (UINT64_C (1) << v))
            continue;
          reported |= UINT64_C (1) << v;
          if (c->privileged && c->cfg->policy.privileged)
            continue;
          cap_upper (v, up, sizeof up);
          finding (&f, "%s", up);
        }
    }
  if (f.n > 0)
    report_fail (c->rep, "policy.capabilities",
                 "drop the capability (no --cap-add), or add it to [policy] capabilities",
                 "beyond [policy] capabilities: %s", sb_str (&f.text));
  else if (reported)
    report_pass (c->rep, "policy.capabilities",
                 "privileged container allowed by [policy] privileged = true");
  else
    report_pass (c->rep, "policy.capabilities", "%d capabilit%s, all in [policy] capabilities",
                 __builtin_popcountll (used), __builtin_popcountll (used) == 1 ? "y" : "ies");
}

/* ---- policy.devices ------------------------------------------------- */

/* What every engine grants: null, zero, full, random, urandom, tty,
   console, ptmx and the pty slaves. */
static bool
default_device (char type, int64_t maj, int64_t min)
{
  static const int pairs[][2] = { { 1, 3 }, { 1, 5 }, { 1, 7 }, { 1, 8 },
                                  { 1, 9 }, { 5, 0 }, { 5, 1 }, { 5, 2 } };

  if (type != 'c')
    return false;
  if (maj == 136)
    return true;
  for (size_t i = 0; i < ARRAY_SIZE (pairs); i++)
    if (maj == pairs[i][0] && min == pairs[i][1])
      return true;
  return false;
}

struct host_dev
{
  bool ok;
  char type;
  unsigned maj, min;
};

static bool
allowed_device (const struct host_dev *hd, size_t n, char type, int64_t maj, int64_t min)
{
  for (size_t i = 0; i < n; i++)
    if (hd[i].ok && hd[i].type == type && (int64_t) hd[i].maj == maj && (int64_t) hd[i].min == min)
      return true;
  return false;
}

/* major/minor: a non-negative integer, or absent (= wildcard, -1). */
static bool
dev_number (struct json_object *o, const char *key, int64_t *out, struct findings *f)
{
  struct json_object *v = jget (o, "device", key, f);

  *out = -1;
  if (v == NULL)
    return true;
  if (! json_object_is_type (v, json_type_int))
    return false;
  *out = json_object_get_int64 (v);
  return *out >= -1 && *out < (INT64_C (1) << 32);
}

static void
check_devices (struct ctx *c)
{
  cleanup_findings struct findings f = { 0 };
  cleanup_free struct host_dev *hd = calloc (c->cfg->policy.n_devices + 1, sizeof *hd);
  struct json_object *linux_, *devs, *res, *rules;
  size_t n_dev = 0;
  bool waived = c->privileged && c->cfg->policy.privileged;

  if (hd == NULL)
    {
      report_fail (c->rep, "policy.devices", "free memory", "cannot allocate");
      return;
    }
  for (size_t i = 0; i < c->cfg->policy.n_devices; i++)
    {
      struct stat st;

      if (stat (c->cfg->policy.devices[i], &st) == 0 && (S_ISCHR (st.st_mode) || S_ISBLK (st.st_mode)))
        hd[i] = (struct host_dev){ true, S_ISCHR (st.st_mode) ? 'c' : 'b', major (st.st_rdev),
                                   minor (st.st_rdev) };
    }
  linux_ = jget_type (c->spec, "spec", "linux", json_type_object, &f);
  devs = jget_type (linux_, "linux", "devices", json_type_array, &f);
  for (size_t i = 0; devs != NULL && i < json_object_array_length (devs); i++)
    {
      struct json_object *d = json_object_array_get_idx (devs, i);
      struct json_object *path, *type;
      const char *p, *t;
      int64_t maj, min;

      if (! json_object_is_type (d, json_type_object))
        {
          finding (&f, "linux.devices[%zu] is %s, not an object", i, json_kind (d));
          continue;
        }
      path = jget_type (d, "device", "path", json_type_string, &f);
      type = jget_type (d, "device", "type", json_type_string, &f);
      p = path ? json_object_get_string (path) : "(no path)";
      t = type ? json_object_get_string (type) : "";
      n_dev++;
      if (! dev_number (d, "major", &maj, &f) || ! dev_number (d, "minor", &min, &f) || maj < 0
          || min < 0 || strlen (t) != 1 || (t[0] != 'c' && t[0] != 'b' && t[0] != 'u'))
        {
          finding (&f, "%s: not a device kata-guard can identify", p);
          continue;
        }
      if (waived || default_device (t[0] == 'u' ? 'c' : t[0], maj, min)
          || allowed_device (hd, c->cfg->policy.n_devices, t[0] == 'u' ? 'c' : t[0], maj, min))
        continue;
      finding (&f, "%s (%c %" PRId64 ":%" PRId64 ")", p, t[0], maj, min);
    }
  res = jget_type (linux_, "linux", "resources", json_type_object, &f);
  rules = jget_type (res, "resources", "devices", json_type_array, &f);
  for (size_t i = 0; rules != NULL && i < json_object_array_length (rules); i++)
    {
      struct json_object *r = json_object_array_get_idx (rules, i);
      struct json_object *allow, *type, *access;
      const char *t;
      int64_t maj, min;
      char smaj[24], smin[24];

      if (! json_object_is_type (r, json_type_object))
        {
          finding (&f, "linux.resources.devices[%zu] is %s, not an object", i, json_kind (r));
          continue;
        }
      allow = jget_type (r, "device rule", "allow", json_type_boolean, &f);
      if (allow == NULL || ! json_object_get_boolean (allow))
        continue;  /* a deny rule takes nothing away from the sandbox */
      if (device_rule_allows_all (r))
        continue;  /* privileged: reported by policy.privileged */
      type = jget_type (r, "device rule", "type", json_type_string, &f);
      access = jget_type (r, "device rule", "access", json_type_string, &f);
      t = type ? json_object_get_string (type) : "a";
      if (! dev_number (r, "major", &maj, &f) || ! dev_number (r, "minor", &min, &f))
        {
          finding (&f, "device rule %zu: major/minor is not a device number", i);
          continue;
        }
      if (waived || (strlen (t) == 1 && maj >= 0 && (min >= 0 || maj == 136)
                     && (default_device (t[0], maj, min)
                         || (min >= 0
                             && allowed_device (hd, c->cfg->policy.n_devices, t[0], maj, min)))))
        continue;
      snprintf (smaj, sizeof smaj, maj < 0 ? "*" : "%" PRId64, maj);
      snprintf (smin, sizeof smin, min < 0 ? "*" : "%" PRId64, min);
      finding (&f, "device cgroup rule %s %s:%s %s", t, smaj, smin,
               access ? json_object_get_string (access) : "");
    }
  if (f.n > 0)
    report_fail (c->rep, "policy.devices",
                 "do not pass host devices (--device) to the container, or list them in "
                 "[policy] devices",
                 "host devices beyond [policy] devices: %s", sb_str (&f.text));
  else if (waived)
    report_pass (c->rep, "policy.devices",
                 "privileged container allowed by [policy] privileged = true");
  else
    report_pass (c->rep, "policy.devices", "%zu device%s, all granted by default or in [policy] "
                 "devices", n_dev, n_dev == 1 ? "" : "s");
}

/* ---- policy.hooks --------------------------------------------------- */

/* /proc/PID/exe -> the program; any other /proc path cannot be judged
   (/proc/self/exe is whichever program runs the hook). */
static int
hook_program (const struct request *req, const char *path, char **out, kg_error_t *err)
{
  if (strncmp (path, "/proc/", 6) == 0)
    {
      const char *q = path + 6;
      char target[PATH_MAX + 1];
      size_t digits = strspn (q, "0123456789");
      ssize_t n;

      if (digits == 0 || strcmp (q + digits, "/exe") != 0)
        return kg_error (err, 0, "%s: names whichever program runs the hook", path);
      if (req->proc_exe != NULL)
        {
          char *end;
          unsigned long pid;

          errno = 0;
          pid = strtoul (q, &end, 10);
          if (errno != 0 || end != q + digits || pid == 0 || pid > INT32_MAX)
            return kg_error (err, 0, "%s: not a process id", path);
          n = req->proc_exe (pid, target, PATH_MAX);
        }
      else
        n = readlink (path, target, PATH_MAX);
      if (n < 0)
        return kg_error (err, errno, "%s: cannot resolve (the process is gone?)", path);
      target[n] = '\0';
      if (n > 10 && strcmp (target + n - 10, " (deleted)") == 0)
        return kg_error (err, 0, "%s: the program %s was deleted", path, target);
      return policy_path_resolve ("/", target, true, out, err);
    }
  if (path[0] != '/')
    return kg_error (err, 0, "%s: not an absolute path", path);
  return policy_path_resolve ("/", path, true, out, err);
}

static bool
hex_string (const char *s, size_t min, size_t max)
{
  size_t n = strspn (s, "0123456789abcdef");

  return s[n] == '\0' && n >= min && n <= max;
}

/* Docker's one hook: dockerd re-executed as libnetwork-setkey
   (daemon/oci_linux.go: args "libnetwork-setkey", "-exec-root=DIR", the
   container id, the network controller's id; before Docker 18.09 without
   -exec-root).  dockerd picks what it runs by argv[0] (pkg/reexec): any
   other args start a daemon, as root, listening where they say.  NULL
   when ARGS are that form for container ID, else why not. */
static const char *
dockerd_hook_args (struct json_object *args, const char *id)
{
  size_t n, i = 1;
  const char *a[4];

  if (args == NULL || ! json_object_is_type (args, json_type_array))
    return "dockerd runs as a daemon without the args libnetwork-setkey";
  n = json_object_array_length (args);
  if (n < 3 || n > 4)
    return "args are not dockerd's libnetwork-setkey form";
  for (size_t k = 0; k < n; k++)
    {
      struct json_object *v = json_object_array_get_idx (args, k);

      if (! json_object_is_type (v, json_type_string))
        return "args are not all strings";
      a[k] = json_object_get_string (v);
    }
  if (strcmp (a[0], "libnetwork-setkey") != 0)
    return "args[0] is not libnetwork-setkey: dockerd would start a daemon";
  if (n == 4)
    {
      if (strncmp (a[1], "-exec-root=/", 12) != 0)
        return "args[1] is not -exec-root=/...";
      i = 2;
    }
  if (id == NULL || strcmp (a[i], id) != 0)
    return "libnetwork-setkey names another container";
  if (! hex_string (a[i + 1], 12, 64))
    return "libnetwork-setkey's controller id is not hexadecimal";
  return NULL;
}

static void
check_hooks (struct ctx *c)
{
  cleanup_findings struct findings f = { 0 };
  cleanup_dirs struct dirs allowed = { 0 };
  cleanup_error kg_error_t err = NULL;
  struct json_object *hooks;
  size_t n_hooks = 0;

  if (dirs_resolve (c->cfg->policy.hooks, c->cfg->policy.n_hooks, &allowed, &err) < 0)
    {
      report_fail (c->rep, "policy.hooks", "fix [policy] hooks", "cannot resolve [policy] hooks: %s",
                   err->msg);
      return;
    }
  hooks = jget_type (c->spec, "spec", "hooks", json_type_object, &f);
  if (hooks != NULL)
    {
      json_object_object_foreach (hooks, kind, list)
        {
          if (json_object_is_type (list, json_type_null))
            continue;
          if (! json_object_is_type (list, json_type_array))
            {
              finding (&f, "hooks.%s is %s, not an array", kind, json_kind (list));
              continue;
            }
          for (size_t i = 0; i < json_object_array_length (list); i++)
            {
              struct json_object *h = json_object_array_get_idx (list, i);
              struct json_object *path = jget_type (h, "hook", "path", json_type_string, &f);
              cleanup_free char *prog = NULL;
              struct json_object *env;
              const char *p, *slash, *why;
              bool ok = false;

              n_hooks++;
              if (path == NULL)
                {
                  finding (&f, "%s hook %zu has no program path", kind, i);
                  continue;
                }
              p = json_object_get_string (path);
              if (hook_program (c->pf->req, p, &prog, &err) < 0)
                {
                  finding (&f, "%s hook %s", kind, err->msg);
                  kg_error_release (&err);
                  continue;
                }
              for (size_t j = 0; j < allowed.n; j++)
                if (strcmp (prog, allowed.paths[j]) == 0)
                  ok = true;
              if (! ok)
                {
                  finding (&f, "%s hook %s%s%s is not in [policy] hooks", kind, p,
                           strcmp (p, prog) ? " -> " : "", strcmp (p, prog) ? prog : "");
                  continue;
                }
              /* The program runs as root in the host's namespaces: an
                 environment (LD_PRELOAD, LD_LIBRARY_PATH...) is code of
                 the spec author's choosing in it. */
              env = jget (h, "hook", "env", &f);
              if (env != NULL
                  && (! json_object_is_type (env, json_type_array)
                      || json_object_array_length (env) > 0))
                finding (&f, "%s hook %s sets an environment (it runs as root on the host)", kind,
                         p);
              slash = strrchr (prog, '/');
              if (strcmp (slash != NULL ? slash + 1 : prog, "dockerd") == 0
                  && (why = dockerd_hook_args (jget (h, "hook", "args", &f),
                                               c->pf->req->container_id))
                         != NULL)
                finding (&f, "%s hook %s: %s", kind, p, why);
            }
        }
    }
  if (f.n > 0)
    report_fail (c->rep, "policy.hooks",
                 "OCI hooks run on the host as root: remove the hook, or add its program to "
                 "[policy] hooks (a hook may set no environment, and dockerd may run only as "
                 "Docker's own libnetwork-setkey hook)",
                 "%s", sb_str (&f.text));
  else
    report_pass (c->rep, "policy.hooks", "%zu hook%s, all in [policy] hooks", n_hooks,
                 n_hooks == 1 ? "" : "s");
}

/* ---- policy.annotations --------------------------------------------- */

/* Which runtime applies an annotation whatever enable_annotations says. */
enum
{
  UNGATED_GO = 1 << 0,  /* the Go shim, 3.30.0 and 4.1.0 alike */
  UNGATED_RS = 1 << 1,  /* runtime-rs 4.1.0 (3.30.0 too, but for cdh_api_timeout_ms) */
  UNGATED_RS3 = 1 << 2, /* runtime-rs 3.30.0 alone */
};

/* Kata annotations that a runtime applies without enable_annotations: the
   Go shim in addRuntimeConfigOverrides and addAgentConfigOverrides
   (src/runtime/pkg/oci/utils.go), runtime-rs in update_config_by_annotation
   (src/libs/kata-types/src/annotations/mod.rs: the runtime and agent names
   before its loop, then every key its hypervisor's enable_annotations does
   not match), at 3.30.0 and 4.1.0.  WEAKENS: the annotation weakens the
   sandbox, and is refused even when [policy] annotations matches it; the
   others are refused unless [policy] annotations allows them, as every Kata
   annotation is, and are listed for the reason. */
static const struct
{
  const char *name, *why;
  unsigned runtimes;
  bool weakens;
} ungated_annotations[] = {
  /* 3.x: GetSandboxConfigPath (Go), load_config's first choice
     (runtime-rs); 4.x dropped it.  Refused for every runtime: the guard
     cannot tell 3.x from 4.x. */
  { "io.katacontainers.config_path",
    "Kata 3.x loads the configuration it names in place of the one checked; 4.x ignores it",
    UNGATED_GO | UNGATED_RS | UNGATED_RS3, true },
  { "io.katacontainers.config.runtime.disable_guest_seccomp", "no seccomp filter in the guest",
    UNGATED_GO | UNGATED_RS, true },
  { "io.katacontainers.config.runtime.sandbox_cgroup_only", "moves the VM's host cgroup",
    UNGATED_GO | UNGATED_RS, true },
  { "io.katacontainers.config.runtime.disable_new_netns",
    "the VM's network device in the host's network namespace", UNGATED_GO | UNGATED_RS, true },
  { "io.katacontainers.config.runtime.internetworking_model", "changes how the VM is networked",
    UNGATED_GO | UNGATED_RS, true },
  { "io.katacontainers.config.runtime.vfio_mode", "changes how host devices reach the VM",
    UNGATED_GO | UNGATED_RS, true },
  { "io.katacontainers.config.runtime.experimental", "turns on experimental features",
    UNGATED_GO | UNGATED_RS, true },
  { "io.katacontainers.config.agent.kernel_modules", "loads kernel modules in the guest",
    UNGATED_GO | UNGATED_RS, true },
  { "io.katacontainers.config.agent.policy", "replaces the agent's policy", UNGATED_GO, true },
  { "io.katacontainers.config.agent.enable_tracing", "turns on the agent's tracing",
    UNGATED_GO | UNGATED_RS, true },
  { "io.katacontainers.config.runtime.hypervisor_name",
    "picks the [hypervisor.*] table the VM is built from", UNGATED_RS, true },
  { "io.katacontainers.config.runtime.agent_name", "picks the [agent.*] table the agent runs by",
    UNGATED_RS, true },
  { "io.katacontainers.config.runtime.name",
    "picks the runtime handler (linux-container runs no VM)", UNGATED_RS, true },
  { "io.katacontainers.config.runtime.shared_mounts",
    "shares mounts between the pod's containers in the guest", UNGATED_RS, true },
  { "io.katacontainers.config.runtime.sandbox_bind_mounts",
    "host bind mounts chosen by the workload (runtime-rs 3.x)", UNGATED_RS3, true },
  { "io.katacontainers.config.runtime.create_container_timeout",
    "sets the agent's request timeout", UNGATED_GO | UNGATED_RS, false },
  { "io.katacontainers.config.runtime.experimental_force_guest_pull",
    "pulls the images in the guest", UNGATED_GO, false },
  { "io.katacontainers.enable_vcpus_pinning", "pins the vCPU threads to host CPUs", UNGATED_GO,
    false },
  { "io.katacontainers.config.runtime.enable_vcpus_pinning", "pins the vCPU threads to host CPUs",
    UNGATED_RS, false },
  { "io.katacontainers.config.runtime.enable_pprof", "turns on the shim's pprof endpoint",
    UNGATED_RS, false },
  { "io.katacontainers.config.runtime.disable_guest_empty_dir",
    "emptyDir volumes on the host's shared filesystem (runtime-rs 3.x)", UNGATED_RS3, false },
  { "io.katacontainers.config.agent.container_pipe_size", "sizes the container's pipes",
    UNGATED_GO | UNGATED_RS, false },
  { "io.katacontainers.config.agent.cdh_api_timeout_ms",
    "sets the confidential data hub's timeout", UNGATED_RS, false },
};

/* The runtimes whose ungated annotations apply: the one that reads the
   configuration, of either version (the guard does not know which 4.x or
   3.x it is, so it refuses what either applies), or, with no
   configuration, both. */
static unsigned
ungated_runtimes (const struct ctx *c)
{
  const struct kata_config *k = c->pf->from_kata.config;

  if (k == NULL)
    return UNGATED_GO | UNGATED_RS | UNGATED_RS3;
  return k->runtime == KATA_RUNTIME_RS ? UNGATED_RS | UNGATED_RS3 : UNGATED_GO;
}

/* The ungated annotation KEY as the runtimes in MASK apply it, or -1. */
static ssize_t
ungated_index (const char *key, unsigned mask)
{
  for (size_t i = 0; i < ARRAY_SIZE (ungated_annotations); i++)
    if ((ungated_annotations[i].runtimes & mask) != 0
        && strcmp (key, ungated_annotations[i].name) == 0)
      return (ssize_t) i;
  return -1;
}

/* The annotations by which Kata places a container in a pod, sizes the
   pod's VM or reaches into the node for it (CRIContainerTypeKeyList and
   CRISandboxNameKeyList in src/runtime/pkg/oci/utils.go, containerd's
   sandbox-* sizing keys, the pod's name and namespace by which
   device_cold_plug.go asks the kubelet for a pod's devices, the
   termination message path container.go writes back to the host), each
   with the engines that write it: containerd's CRI its own, the kubelet's
   through containerd's CRI or CRI-O, CRI-O its own and podman four of
   CRI-O's (for the members of its pods), and nothing writes dockershim's
   any more.  CDI device names make Kata inject host devices: no engine's
   claim (policy.devices judges devices). */
#define OWNER(e) (1u << (e))
static const struct
{
  const char *name;
  bool prefix;
  unsigned owners;  /* OWNER (engine)s; 0: no start may carry it */
  const char *owner_name;
} claim_keys[] = {
  { "io.kubernetes.cri.", true, OWNER (ENGINE_CRI),
    "containerd's CRI (in a namespace of [policy] cri_namespaces)" },
  { "io.kubernetes.container.", true, OWNER (ENGINE_CRI) | OWNER (ENGINE_CRIO),
    "the kubelet, through containerd's CRI or CRI-O" },
  { "io.kubernetes.pod.", true, OWNER (ENGINE_CRI) | OWNER (ENGINE_CRIO),
    "the kubelet, through containerd's CRI or CRI-O" },
  { "io.kubernetes.cri-o.ContainerType", false, OWNER (ENGINE_PODMAN) | OWNER (ENGINE_CRIO),
    "CRI-O, or podman for its pods" },
  { "io.kubernetes.cri-o.SandboxID", false, OWNER (ENGINE_PODMAN) | OWNER (ENGINE_CRIO),
    "CRI-O, or podman for its pods" },
  { "io.kubernetes.cri-o.Created", false, OWNER (ENGINE_PODMAN) | OWNER (ENGINE_CRIO),
    "CRI-O, or podman" },
  { "io.kubernetes.cri-o.TTY", false, OWNER (ENGINE_PODMAN) | OWNER (ENGINE_CRIO),
    "CRI-O, or podman" },
  { "io.kubernetes.cri-o.", true, OWNER (ENGINE_CRIO),
    "CRI-O (a start whose containers/storage record is CRI-O's)" },
  { "io.kubernetes.docker.type", false, 0, "dockershim (no engine now)" },
  { "io.kubernetes.sandbox.id", false, 0, "dockershim (no engine now)" },
  { "cdi.k8s.io/", true, 0, "a device plugin (CDI: Kata injects the host devices it names)" },
};

/* Annotation KEY, when present, must be WANT (CRI-O's record of WHAT;
   NULL or "": none to compare with, so the key refuses). */
static void
crio_key_is (struct ctx *c, const char *key, const char *want, const char *what,
             struct findings *f)
{
  const char *v = annotation (c, key);

  if (v == NULL)
    {
      struct json_object *ann, *x;

      if (json_object_object_get_ex (c->spec, "annotations", &ann)
          && json_object_object_get_ex (ann, key, &x))
        finding (f, "%s is not a string", key);
      return;
    }
  if (want == NULL || want[0] == '\0' || strcmp (v, want) != 0)
    finding (f, "%s \"%.80s\", but CRI-O's records say %s is \"%.80s\" (a pod's own annotation "
                "over CRI-O's: Kata would act on that pod)",
             key, v, what, want && want[0] ? want : "unknown");
}

/* A CRI-O start's own claim: the container type and the sandbox that
   Kata reads (io.kubernetes.cri-o.ContainerType, .SandboxID) must be
   what CRI-O's storage record says, and a member's pod a sandbox of that
   storage. */
static void
judge_crio_claim (struct ctx *c, struct findings *f)
{
  const struct who *w = &c->who;
  const char *type = annotation (c, "io.kubernetes.cri-o.ContainerType");
  const char *sid = annotation (c, "io.kubernetes.cri-o.SandboxID");
  const char *want = w->pod_sandbox ? "sandbox" : "container";

  if (type != NULL && strcmp (type, want) != 0)
    finding (f, "io.kubernetes.cri-o.ContainerType \"%.40s\", but CRI-O's record of the "
                "container makes it a pod %s",
             type, want);
  if (sid != NULL && strcmp (sid, w->pod_id) != 0)
    finding (f, "io.kubernetes.cri-o.SandboxID %.80s, but CRI-O's record of the container names "
                "pod %.80s (Kata would run this container in the VM of the container it names)",
             sid, w->pod_id);
  if (! w->pod_ok)
    finding (f, "CRI-O's record of the container names pod %.80s, which is no pod sandbox of its "
                "storage with a pod uid",
             w->pod_id[0] ? w->pod_id : "(none)");
  /* CRI-O copies a pod's own annotations over its keys: the ones Kata
     reads must be what CRI-O's records say (KubeName and Namespace pick
     the pod whose devices Kata asks the kubelet for). */
  crio_key_is (c, "io.kubernetes.cri-o.KubeName", w->pod_ok ? w->kube_name : NULL,
               "the pod's name", f);
  crio_key_is (c, "io.kubernetes.cri-o.Namespace", w->pod_ok ? w->kube_ns : NULL,
               "the pod's namespace", f);
  crio_key_is (c, "io.kubernetes.cri-o.ContainerName", w->crio_name, "the container's name", f);
}

/* A CRI start's own claim: a sandbox is its own sandbox, a pod member's
   sandbox is a pod sandbox of this namespace with the same pod uid (else
   Kata's shim would run it in the VM of whatever container it names). */
static void
judge_cri_claim (struct ctx *c, struct json_object *ann, struct findings *f)
{
  const char *type = annotation (c, "io.kubernetes.cri.container-type");
  const char *sid = annotation (c, "io.kubernetes.cri.sandbox-id");
  const char *uid = annotation (c, "io.kubernetes.cri.sandbox-uid");
  const char *id = c->pf->req->container_id ? c->pf->req->container_id : "";
  const char *psid, *puid;

  json_object_object_foreach (ann, key, val)
    if (strncmp (key, "io.kubernetes.cri.", 18) == 0 && ! json_object_is_type (val, json_type_string))
      finding (f, "%s is %s, not a string", key, json_kind (val));
  if (type == NULL)
    return;
  if (strcmp (type, "sandbox") == 0)
    {
      if (sid == NULL || strcmp (sid, id) != 0)
        finding (f, "a pod sandbox whose io.kubernetes.cri.sandbox-id (%.80s) is not its own id",
                 sid ? sid : "absent");
    }
  else if (strcmp (type, "container") != 0)
    finding (f, "io.kubernetes.cri.container-type \"%.40s\" is neither sandbox nor container",
             type);
  else if (! cri_pod (c, &psid, &puid))
    finding (f, "io.kubernetes.cri.sandbox-id %.80s is no pod sandbox of namespace \"%s\" with "
                "pod uid %.80s (Kata would run this container in the VM of the container it "
                "names)",
             sid ? sid : "(absent)", c->who.ns, uid ? uid : "(absent)");
}

/* The spec's mount whose destination is DEST: its source, or NULL. */
static const char *
mount_source_at (const struct ctx *c, const char *dest)
{
  struct json_object *mounts, *m, *d, *src;

  if (! json_object_object_get_ex (c->spec, "mounts", &mounts)
      || ! json_object_is_type (mounts, json_type_array))
    return NULL;
  for (size_t i = 0; i < json_object_array_length (mounts); i++)
    if ((m = json_object_array_get_idx (mounts, i)) != NULL
        && json_object_object_get_ex (m, "destination", &d) && json_object_is_type (d, json_type_string)
        && strcmp (json_object_get_string (d), dest) == 0
        && json_object_object_get_ex (m, "source", &src) && json_object_is_type (src, json_type_string))
      return json_object_get_string (src);
  return NULL;
}

/* Kata writes the guest's termination log back, as root, to the host
   source of the mount at io.kubernetes.container.terminationMessagePath
   (when nothing is shared: container.go): that must be the kubelet's
   termination-log file of this pod. */
static void
judge_termination_path (struct ctx *c, struct findings *f)
{
  cleanup_error kg_error_t err = NULL;
  cleanup_free char *res = NULL;
  const char *path = annotation (c, "io.kubernetes.container.terminationMessagePath");
  const char *src = path ? mount_source_at (c, path) : NULL;
  const char *q;

  if (src == NULL)
    return;
  if (policy_path_resolve (c->bundle, src, true, &res, &err) < 0
      || kubelet_file (c, res, &c->dirs->kubelet) != OWN_ANY
      || (q = under_root (res, &c->dirs->kubelet)) == NULL || strstr (q, "/containers/") == NULL)
    finding (f, "io.kubernetes.container.terminationMessagePath %.80s is the mount of %.120s, not "
                "the kubelet's termination log of this pod (Kata writes the guest's log back to "
                "it)",
             path, src);
}

/* Claims of a pod, or of the node's devices, by annotations their engine
   did not write: the first key of claim_keys that matches decides. */
static void
judge_claims (struct ctx *c, struct json_object *ann, struct findings *f)
{
  json_object_object_foreach (ann, key, val)
    {
      (void) val;
      for (size_t i = 0; i < ARRAY_SIZE (claim_keys); i++)
        if ((claim_keys[i].prefix ? strncmp (key, claim_keys[i].name, strlen (claim_keys[i].name))
                                  : strcmp (key, claim_keys[i].name))
            == 0)
          {
            if ((claim_keys[i].owners & OWNER (c->who.engine)) == 0)
              finding (f, "%.128s: only %s writes it; this start is %s%s%s%s", key,
                       claim_keys[i].owner_name, engine_name (&c->who),
                       c->who.ns[0] ? " (namespace \"" : "", c->who.ns,
                       c->who.ns[0] ? "\")" : "");
            break;
          }
    }
  if (c->who.engine == ENGINE_CRI)
    judge_cri_claim (c, ann, f);
  if (c->who.engine == ENGINE_CRIO)
    judge_crio_claim (c, f);
  if ((c->who.engine == ENGINE_CRI || c->who.engine == ENGINE_CRIO) && c->dirs->ok)
    judge_termination_path (c, f);
}

/* Kata's state of a sandbox is kept by id alone (Go: /run/vc/sbs/ID,
   runtime-rs: /run/kata/ID), and ids are unique only per containerd
   namespace: a start whose id names a sandbox that exists would restore
   that sandbox (newSandbox's Restore), another namespace's container.
   A pod member joins its sandbox's, which is why it has its own id. */
static void
judge_kata_state (struct ctx *c, struct findings *f)
{
  static const char *const stores[] = { KATA_GO_SANDBOX_STATE, KATA_RS_SANDBOX_STATE };
  const char *id = c->pf->req->container_id;

  if (c->pf->req->mode != KG_MODE_SHIM || ! policy_valid_id (id) || is_pod_member (c))
    return;
  for (size_t i = 0; i < ARRAY_SIZE (stores); i++)
    {
      char path[PATH_MAX];
      struct stat st;

      if (snprintf (path, sizeof path, "%s/%s", stores[i], id) >= (int) sizeof path)
        continue;
      if (lstat (path, &st) == 0)
        finding (f, "a Kata sandbox of id %.80s exists already (%s): another namespace's "
                    "container of that id, or one Kata did not clean up; this start would be "
                    "handed its VM",
                 id, path);
      else if (errno != ENOENT && errno != ENOTDIR)
        finding (f, "cannot tell whether a Kata sandbox of id %.80s exists (%s: %s)", id, path,
                 strerror (errno));
    }
}

/* The start's identity as a line: engine, namespace, pod. */
static void
who_line (struct ctx *c, struct strbuf *out)
{
  const char *sid, *uid;

  sb_printf (out, "%s", engine_name (&c->who));
  if (c->who.ns[0] != '\0')
    sb_printf (out, ", namespace \"%s\"", c->who.ns);
  if (c->who.engine == ENGINE_DOCKER)
    sb_printf (out, c->who.docker_root ? ", its record of the container in %s"
                                       : ", without its record of the container%s",
               c->who.docker_root ? c->who.docker_root : "");
  if (c->who.engine == ENGINE_PODMAN || c->who.engine == ENGINE_CRIO)
    sb_printf (out, ", its storage %s", c->who.podman_root);
  if (is_crio_sandbox (c))
    sb_printf (out, ", a pod sandbox (pod uid %.80s)", c->who.pod_uid);
  else if (is_pod_sandbox (c))
    sb_printf (out, ", a pod sandbox");
  else if ((c->who.engine == ENGINE_CRI || c->who.engine == ENGINE_CRIO) && pod_of (c, &sid, &uid))
    sb_printf (out, ", a member of pod sandbox %.80s", sid);
}

/* policy.identity: whose start this is, and nothing the spec claims
   beyond it (kata-guard(8), Whose start it is). */
static void
check_identity (struct ctx *c)
{
  cleanup_findings struct findings f = { 0 };
  cleanup_strbuf struct strbuf who = { 0 };
  struct json_object *ann = jget_type (c->spec, "spec", "annotations", json_type_object, &f);

  if (ann != NULL)
    judge_claims (c, ann, &f);
  judge_kata_state (c, &f);
  who_line (c, &who);
  if (f.n > 0)
    report_fail (c->rep, "policy.identity",
                 "a container cannot say which pod, engine or sandbox it belongs to: remove the "
                 "annotation; a pod's annotations are its engine's own",
                 "%s", sb_str (&f.text));
  else
    report_pass (c->rep, "policy.identity", "%s", sb_str (&who));
}

/* Kata's own annotations: the allowed ones, each judged as Kata applies it. */
static size_t
judge_kata_annotations (struct ctx *c, struct json_object *ann, struct findings *f)
{
  size_t n_kata = 0;
  unsigned mask = ungated_runtimes (c);

  json_object_object_foreach (ann, key, val)
    {
      bool ok = false;
      ssize_t ungated;

      /* Kata matches the prefix exactly; any case is refused here. */
      if (strncasecmp (key, "io.katacontainers.", 18) != 0)
        continue;
      n_kata++;
      ungated = ungated_index (key, mask);
      if (ungated >= 0 && ungated_annotations[ungated].weakens)
        {
          finding (f, "%s (%s; Kata applies it without enable_annotations)", key,
                   ungated_annotations[ungated].why);
          continue;
        }
      for (size_t i = 0; i < c->cfg->policy.n_annotation_res; i++)
        if (regexec (&c->cfg->policy.annotation_res[i], key, 0, NULL, 0) == 0)
          ok = true;
      if (! ok && ungated >= 0)
        finding (f, "%s (%s; Kata applies it without enable_annotations)", key,
                 ungated_annotations[ungated].why);
      else if (! ok)
        finding (f, "%.128s", key);
      /* Kata appends it to the guest's command line unchecked
         (Kata's shipped configurations enable it). */
      else if (strcmp (key, "io.katacontainers.config.hypervisor.kernel_params") == 0)
        {
          char why[256];

          if (! json_object_is_type (val, json_type_string))
            finding (f, "%s is %s, not a string", key, json_kind (val));
          else if (kata_kernel_params_judge (json_object_get_string (val), why, sizeof why)
                   != KATA_PARAMS_OK)
            finding (f, "%s: %s", key, why);
        }
    }
  return n_kata;
}

static void
check_annotations (struct ctx *c)
{
  cleanup_findings struct findings f = { 0 };
  struct json_object *ann = jget_type (c->spec, "spec", "annotations", json_type_object, &f);
  size_t n_kata = 0;

  if (ann != NULL)
    n_kata = judge_kata_annotations (c, ann, &f);
  /* A pod sandbox: the start must see what its shim answers. */
  if (is_pod_sandbox (c))
    c->rep->pod_sandbox = true;
  if (f.n > 0)
    report_fail (c->rep, "policy.annotations",
                 "remove the annotation (a Kata annotation changes how the VM is built), or "
                 "allow its name with a regex in [policy] annotations",
                 "Kata annotations not allowed: %s", sb_str (&f.text));
  else
    report_pass (c->rep, "policy.annotations", "%zu Kata annotation%s, all allowed", n_kata,
                 n_kata == 1 ? "" : "s");
}

/* ---- policy.seccomp ------------------------------------------------- */

static void
check_seccomp (struct ctx *c)
{
  static const char *const deny_actions[] = {
    "SCMP_ACT_ERRNO", "SCMP_ACT_KILL", "SCMP_ACT_KILL_PROCESS", "SCMP_ACT_KILL_THREAD",
    "SCMP_ACT_TRAP",
  };
  cleanup_findings struct findings f = { 0 };
  struct json_object *linux_, *sc, *def, *arches, *rules;
  const struct toml_value *dgs;
  size_t n_names = 0;
  bool ok = false;

  if (! c->cfg->policy.require_seccomp)
    {
      report_skip (c->rep, "policy.seccomp", "switched off by [policy] require_seccomp = false");
      return;
    }
  linux_ = jget_type (c->spec, "spec", "linux", json_type_object, &f);
  sc = jget_type (linux_, "linux", "seccomp", json_type_object, &f);
  if (sc == NULL)
    finding (&f, "no seccomp profile (linux.seccomp)");
  def = jget_type (sc, "seccomp", "defaultAction", json_type_string, &f);
  if (sc != NULL && def == NULL)
    finding (&f, "no defaultAction");
  else if (def != NULL)
    {
      for (size_t i = 0; i < ARRAY_SIZE (deny_actions); i++)
        if (strcmp (json_object_get_string (def), deny_actions[i]) == 0)
          ok = true;
      if (! ok)
        finding (&f, "defaultAction %.64s lets unlisted system calls through",
                 json_object_get_string (def));
    }
  arches = jget_type (sc, "seccomp", "architectures", json_type_array, &f);
  for (size_t i = 0; arches != NULL && i < json_object_array_length (arches); i++)
    {
      struct json_object *a = json_object_array_get_idx (arches, i);
      const char *s = json_object_is_type (a, json_type_string) ? json_object_get_string (a) : "";
      char lower[64];
      size_t j;

      if (strncmp (s, "SCMP_ARCH_", 10) != 0 || strlen (s + 10) >= sizeof lower)
        {
          finding (&f, "unknown architecture \"%.64s\"", s);
          continue;
        }
      for (j = 0; s[10 + j]; j++)
        lower[j] = (char) tolower ((unsigned char) s[10 + j]);
      lower[j] = '\0';
      if (seccomp_arch_resolve_name (lower) == 0)
        finding (&f, "unknown architecture %s", s);
    }
  rules = jget_type (sc, "seccomp", "syscalls", json_type_array, &f);
  for (size_t i = 0; rules != NULL && i < json_object_array_length (rules); i++)
    {
      struct json_object *r = json_object_array_get_idx (rules, i);
      struct json_object *names = jget_type (r, "syscall rule", "names", json_type_array, &f);

      for (size_t j = 0; names != NULL && j < json_object_array_length (names); j++)
        {
          struct json_object *n = json_object_array_get_idx (names, j);
          const char *s
              = json_object_is_type (n, json_type_string) ? json_object_get_string (n) : "";

          n_names++;
          if (seccomp_syscall_resolve_name (s) == __NR_SCMP_ERROR)
            finding (&f, "unknown system call \"%.64s\"", s);
        }
    }
  if (c->pf->from_kata.config == NULL)
    finding (&f, "cannot tell whether Kata applies the profile: the Kata configuration did not "
                 "load");
  else
    {
      dgs = toml_get_path (c->pf->from_kata.config->doc, "runtime", "disable_guest_seccomp", NULL);
      if (dgs != NULL && (dgs->kind != TOML_BOOLEAN || dgs->u.boolean))
        finding (&f, "the Kata configuration says disable_guest_seccomp = %s (line %u): the "
                     "profile would never be applied",
                 dgs->kind == TOML_BOOLEAN ? "true" : "a non-boolean", dgs->line);
    }
  if (f.n > 0)
    report_fail (c->rep, "policy.seccomp",
                 "run the container with a seccomp profile (Docker's default) and set "
                 "disable_guest_seccomp = false in the Kata configuration, or set [policy] "
                 "require_seccomp = false",
                 "%s", sb_str (&f.text));
  else
    report_pass (c->rep, "policy.seccomp",
                 "profile with default action %s, %zu system call names, applied in the guest",
                 json_object_get_string (def), n_names);
}

/* ---- policy.resources ----------------------------------------------- */

/* A positive integer from the spec: not a string, not a float, not
   negative, not beyond int64 (json-c saturates there). */
static bool
positive_int (struct json_object *v, const char *what, int64_t *out, struct findings *f)
{
  if (! json_object_is_type (v, json_type_int))
    {
      finding (f, "%s is %s, not an integer", what, json_kind (v));
      return false;
    }
  *out = json_object_get_int64 (v);
  if (*out == INT64_MAX || *out == INT64_MIN)
    {
      finding (f, "%s %s is out of range", what, json_object_to_json_string (v));
      return false;
    }
  if (*out <= 0)
    {
      finding (f, "%s is %" PRId64 ", not a positive number", what, *out);
      return false;
    }
  return true;
}

/* ceil (QUOTA / PERIOD) vCPUs, as Kata counts them: in float32
   (CalculateCPUsF), whose rounding can make one more. */
static int64_t
cpus_of (int64_t quota, int64_t period)
{
  int64_t exact = quota / period + (quota % period != 0);
  float f = (float) quota / (float) period;

  if (f > (float) exact && exact < INT64_MAX)
    exact++;
  return exact;
}

/* CRI's sandbox sizing annotation NAME as Kata parses it (strconv, base
   10) into *OUT: 0 when absent; one that is not a decimal integer is a
   finding (Kata would read 0 and size the VM by default alone). */
static bool
sizing_int (const struct ctx *c, const char *name, bool sign_ok, int64_t *out,
            struct findings *f)
{
  const char *v = annotation (c, name);
  char *end;
  long long n;

  *out = 0;
  if (v == NULL)
    return true;
  errno = 0;
  n = strtoll (v, &end, 10);
  if (errno != 0 || end == v || *end != '\0' || v[0] == '+' || v[0] == ' '
      || (! sign_ok && n < 0))
    {
      finding (f, "%s is \"%.40s\", not a number", name, v);
      return false;
    }
  *out = n;
  return true;
}

/* The workload Kata sizes the VM for: a container's own limits, or a pod
   sandbox's CRI annotations. */
enum
{
  WORKLOAD_WHY = 96,
};
struct workload
{
  bool sandbox;
  bool crio;              /* a CRI-O pod's sandbox: Kata reads no sizing of it */
  int64_t mem;            /* bytes; 0: none */
  int64_t quota, period;  /* CPUs when quota >= 0 and period > 0 */
  int64_t shares;         /* a pod sandbox's sandbox-cpu-shares; 0: none */
  int64_t cpuset;         /* CPUs linux.resources.cpu.cpus names (runtime-rs); 0: none */
  char cpu_src[WORKLOAD_WHY]; /* where QUOTA and PERIOD came from */
};

/* What the workload's memory is, in a size's formula. */
static const char *
workload_mem_name (const struct workload *w)
{
  if (w->crio)
    return "a CRI-O pod's sizing (none that Kata reads)";
  return w->sandbox ? "the pod's sandbox-memory" : "limit";
}

/* The VM a runtime builds for a workload, each size with its formula. */
struct vm_size
{
  int64_t mem, vcpus;
  char mem_why[256], vcpus_why[256];
};

/* A pod sandbox's workload as Kata sizes the pod's VM from it
   (CalculateSandboxSizing in src/runtime/pkg/oci/utils.go, get_sizing_info
   in runtime-rs's initial_size.rs): CRI's sandbox-memory,
   sandbox-cpu-quota / sandbox-cpu-period and sandbox-cpu-shares.  The
   sandbox spec's own limits do not count: Kata does not read them. */
static bool
sandbox_workload (const struct ctx *c, struct workload *w, struct findings *f)
{
  bool ok = sizing_int (c, "io.kubernetes.cri.sandbox-memory", true, &w->mem, f);

  ok = sizing_int (c, "io.kubernetes.cri.sandbox-cpu-quota", true, &w->quota, f) && ok;
  ok = sizing_int (c, "io.kubernetes.cri.sandbox-cpu-period", false, &w->period, f) && ok;
  ok = sizing_int (c, "io.kubernetes.cri.sandbox-cpu-shares", false, &w->shares, f) && ok;
  if (w->mem < 0)
    w->mem = 0;
  snprintf (w->cpu_src, sizeof w->cpu_src, "sandbox-cpu-quota %" PRId64 " / period %" PRId64,
            w->quota, w->period);
  if (w->mem == 0 && c->cfg->policy.require_memory_limit)
    finding (f, "a pod sandbox that nothing bounds: io.kubernetes.cri.sandbox-memory is "
                "absent or 0 (give the pod's containers memory limits)");
  return ok;
}

/* A CRI-O pod's sandbox: CRI-O writes none of the sizing annotations
   Kata reads (CalculateSandboxSizing, get_sizing_info: containerd's
   sandbox-* keys), so the pod's VM boots at the defaults and each
   member's limits are added at its own start, where policy.resources
   judges them.  What bounds the pod is CRI-O's record of the kubelet's
   pod resources (pod-linux-resources.crio.io, formerly
   io.kubernetes.cri-o.PodLinuxResources: memory_limit_in_bytes, the sum
   of the members' limits): without one, the pod has a member that
   nothing bounds. */
static bool
crio_sandbox_workload (const struct ctx *c, struct workload *w, struct findings *f)
{
  static const char *const keys[] = { "pod-linux-resources.crio.io",
                                      "io.kubernetes.cri-o.PodLinuxResources" };
  const char *text = annotation (c, keys[0]), *old = annotation (c, keys[1]);
  int64_t mem = 0;
  bool ok = true;

  w->quota = -1;
  w->crio = true;
  /* CRI-O 1.35 writes the first, earlier ones the second; a release that
     writes one does not filter the other from the pod's own annotations:
     both there and apart, one is the pod's. */
  if (text == NULL)
    text = old;
  else if (old != NULL && strcmp (old, text) != 0)
    {
      finding (f, "%s and %s differ (one of them is the pod's own annotation)", keys[0], keys[1]);
      ok = false;
    }
  if (text != NULL && strcmp (text, "null") == 0)
    text = NULL;
  if (text != NULL)
    {
      cleanup_error kg_error_t err = NULL;
      struct json_object *doc = json_parse_strict (keys[0], text, strlen (text), false, &err), *v;

      /* CRI-O writes the kubelet's pod resources as JSON, "null" when
         the kubelet sent none (crictl runp, critest, older kubelets). */
      if (doc != NULL && json_object_is_type (doc, json_type_object)
          && json_object_object_get_ex (doc, "memory_limit_in_bytes", &v)
          && json_object_is_type (v, json_type_int))
        mem = json_object_get_int64 (v);
      else if (doc == NULL || ! json_object_is_type (doc, json_type_object))
        {
          finding (f, "%s is neither null nor a JSON object of the pod's resources", keys[0]);
          ok = false;
        }
      json_object_put (doc);
    }
  if (mem <= 0 && c->cfg->policy.require_memory_limit)
    finding (f, "a pod sandbox that nothing bounds: CRI-O's pod resources "
                "(pod-linux-resources.crio.io) have no memory_limit_in_bytes (give the pod's "
                "containers memory limits)");
  snprintf (w->cpu_src, sizeof w->cpu_src, "no sizing (a CRI-O pod)");
  return ok;
}

/* The CPUs a cpuset list ("0-3,8") names, each once, as runtime-rs
   counts them (CpuSet in kata-types), into *N; false for what is not such
   a list or names a CPU past POLICY_MAX_CPUSET. */
static bool
cpuset_count (const char *s, int64_t *n)
{
  unsigned char seen[POLICY_MAX_CPUSET / 8] = { 0 };

  *n = 0;
  while (*s != '\0')
    {
      char *end;
      unsigned long lo, hi;

      if (! isdigit ((unsigned char) *s))
        return false;
      lo = hi = strtoul (s, &end, 10);
      if (*end == '-' && isdigit ((unsigned char) end[1]))
        hi = strtoul (end + 1, &end, 10);
      if (lo > hi || hi >= POLICY_MAX_CPUSET || (*end != ',' && *end != '\0')
          || (*end == ',' && end[1] == '\0'))
        return false;
      for (unsigned long i = lo; i <= hi; i++)
        if (! (seen[i / 8] & (1u << (i % 8))))
          {
            seen[i / 8] |= (unsigned char) (1u << (i % 8));
            (*n)++;
          }
      s = *end == ',' ? end + 1 : end;
    }
  return true;
}

/* A container's own workload: its memory LIMIT, CPU QUOTA and PERIOD
   (quota -1 when absent, as Kata reads it), and CPUS, its cpuset (NULL
   but for runtime-rs, which sizes the VM by it when there is no quota). */
static bool
container_workload (const struct ctx *c, struct json_object *limit, struct json_object *quota,
                    struct json_object *period, struct json_object *cpus, struct workload *w,
                    struct findings *f)
{
  bool ok = true;

  w->quota = -1;
  if (limit != NULL)
    ok = positive_int (limit, "memory limit", &w->mem, f);
  else if (c->cfg->policy.require_memory_limit)
    finding (f, "no memory limit (linux.resources.memory.limit)");
  if (quota != NULL)
    {
      ok = positive_int (quota, "CPU quota", &w->quota, f) && ok;
      if (period == NULL)
        {
          finding (f, "CPU quota %s without a period", json_object_to_json_string (quota));
          ok = false;
        }
    }
  if (period != NULL && ! positive_int (period, "CPU period", &w->period, f))
    ok = false;
  if (cpus != NULL
      && (! json_object_is_type (cpus, json_type_string)
          || ! cpuset_count (json_object_get_string (cpus), &w->cpuset)))
    {
      finding (f, "the cpuset %.64s is not a CPU list runtime-rs counts",
               json_object_to_json_string (cpus));
      ok = false;
    }
  snprintf (w->cpu_src, sizeof w->cpu_src, "quota %" PRId64 " / period %" PRId64, w->quota,
            w->period);
  return ok;
}

/* The workload of this start, as the runtime that reads the Kata
   configuration takes it. */
static bool
workload_of (const struct ctx *c, struct workload *w, struct findings *f)
{
  const struct kata_config *k = c->pf->from_kata.config;
  bool rs = k != NULL && k->runtime == KATA_RUNTIME_RS;
  struct json_object *linux_, *res, *mem, *cpu, *limit, *quota, *period, *cpus;

  linux_ = jget_type (c->spec, "spec", "linux", json_type_object, f);
  res = jget_type (linux_, "linux", "resources", json_type_object, f);
  mem = jget_type (res, "resources", "memory", json_type_object, f);
  cpu = jget_type (res, "resources", "cpu", json_type_object, f);
  limit = jget (mem, "memory", "limit", f);
  quota = jget (cpu, "cpu", "quota", f);
  period = jget (cpu, "cpu", "period", f);
  cpus = rs ? jget (cpu, "cpu", "cpus", f) : NULL;
  /* The pause container: Kata sizes the pod's VM from CRI's sandbox
     annotations (the sums of the pod's container limits), whatever the
     sandbox's own spec says. */
  if (w->sandbox && is_crio_sandbox (c))
    return crio_sandbox_workload (c, w, f);
  if (w->sandbox)
    return sandbox_workload (c, w, f);
  return container_workload (c, limit, quota, period, cpus, w, f);
}

/* A Kata size: integer (or, for vCPUs since Kata 3, a float) > 0, or
   absent (DEF). */
static bool
kata_number (const struct toml_value *hv, const char *key, bool float_ok, int64_t def,
             int64_t *out, struct findings *f)
{
  const struct toml_value *v = toml_get (hv, key);

  if (v == NULL)
    {
      *out = def;
      return true;
    }
  if (v->kind == TOML_INTEGER && v->u.integer > 0 && v->u.integer < (INT64_C (1) << 30))
    {
      *out = v->u.integer;
      return true;
    }
  if (float_ok && v->kind == TOML_FLOAT && v->u.floating > 0 && v->u.floating < 1024)
    {
      *out = (int64_t) v->u.floating;
      if ((double) *out < v->u.floating)
        (*out)++;
      return true;
    }
  finding (f, "the Kata configuration's %s (line %u) is not a usable size", key, v->line);
  return false;
}

/* A runtime-rs overhead (overhead_vcpus, a float like its f32, or
   overhead_memory, MiB): >= 0, or absent (serde's default: 0). */
static bool
kata_overhead (const struct toml_value *hv, const char *key, bool float_ok, double *out,
               struct findings *f)
{
  const struct toml_value *v = toml_get (hv, key);

  *out = 0;
  if (v == NULL)
    return true;
  if (v->kind == TOML_INTEGER && v->u.integer >= 0 && v->u.integer < (INT64_C (1) << 30))
    {
      *out = (double) v->u.integer;
      return true;
    }
  if (float_ok && v->kind == TOML_FLOAT && v->u.floating >= 0 && v->u.floating < 1024)
    {
      *out = v->u.floating;
      return true;
    }
  finding (f, "the Kata configuration's %s (line %u) is not a usable size", key, v->line);
  return false;
}

/* [runtime] static_sandbox_resource_mgmt: false when absent. */
static bool
kata_static_sizing (const struct kata_config *k, bool *out, struct findings *f)
{
  const struct toml_value *v
      = toml_get_path (k->doc, "runtime", "static_sandbox_resource_mgmt", NULL);

  *out = false;
  if (v == NULL)
    return true;
  if (v->kind == TOML_BOOLEAN)
    {
      *out = v->u.boolean;
      return true;
    }
  finding (f, "the Kata configuration's static_sandbox_resource_mgmt (line %u) is not a boolean",
           v->line);
  return false;
}

/* BYTES in MiB, rounded up. */
static int64_t
mib_ceil (int64_t bytes)
{
  return bytes / (1024 * 1024) + (bytes % (1024 * 1024) != 0);
}

/* ceil (V) vCPUs, as runtime-rs rounds its f32 (default_vcpus.ceil ()). */
static int64_t
vcpus_ceil (float v)
{
  int64_t n;

  if (! (v < 1e9f))
    return INT64_MAX;
  n = (int64_t) v;
  return n + ((float) n < v);
}

/* The VM of Kata's Go runtime: default_memory + the limit, default_vcpus
   + the workload's CPUs, booted so with static_sandbox_resource_mgmt
   (SandboxConfig in src/runtime/pkg/oci/utils.go adds WorkloadMemMB and
   WorkloadCPUs to the defaults) or hot-plugged up to it without.  A pod
   sandbox whose quota is negative (the kubelet's static CPU manager) has
   the sandbox-cpu-shares in whole CPUs of 1024: Kata 4 does, 3.30 gives
   none, so that counts the larger. */
static bool
go_vm_size (const struct toml_value *hv, const struct workload *w, struct vm_size *vm,
            struct findings *f)
{
  int64_t def_mem, def_vcpus, mib = mib_ceil (w->mem), cpus = 0;
  char why[WORKLOAD_WHY] = "no CPU quota";

  if (! kata_number (hv, "default_memory", false, POLICY_KATA_DEFAULT_MEMORY_MIB, &def_mem, f)
      || ! kata_number (hv, "default_vcpus", true, POLICY_KATA_DEFAULT_VCPUS, &def_vcpus, f))
    return false;
  if (w->quota >= 0 && w->period > 0)
    {
      cpus = cpus_of (w->quota, w->period);
      snprintf (why, sizeof why, "%s", w->cpu_src);
    }
  else if (w->sandbox && w->quota < 0 && w->shares > 0)
    {
      cpus = w->shares / 1024 + (w->shares % 1024 != 0);
      snprintf (why, sizeof why, "sandbox-cpu-shares %" PRId64 " with a quota of %" PRId64,
                w->shares, w->quota);
    }
  /* A quota of 2^63-1 over a period of 1 is that many vCPUs: the sums
     must not wrap. */
  if (__builtin_add_overflow (def_mem, mib, &vm->mem))
    vm->mem = INT64_MAX;
  if (__builtin_add_overflow (def_vcpus, cpus, &vm->vcpus))
    vm->vcpus = INT64_MAX;
  snprintf (vm->mem_why, sizeof vm->mem_why, "default_memory %" PRId64 " + %s %" PRId64 " MiB",
            def_mem, workload_mem_name (w), mib);
  snprintf (vm->vcpus_why, sizeof vm->vcpus_why,
            "default_vcpus %" PRId64 " + %" PRId64 " from %s", def_vcpus, cpus, why);
  return true;
}

/* The workload's vCPUs as runtime-rs counts them (LinuxContainerCpuResources
   in kata-types/src/cpu.rs): quota / period in floating point when the
   quota is >= 0 and the period > 0, else the cpuset's CPUs, else none. */
static float
rs_workload_vcpus (const struct workload *w, char *why, size_t size)
{
  if (w->quota >= 0 && w->period > 0)
    {
      snprintf (why, size, "%s", w->cpu_src);
      return (float) ((double) w->quota / (double) w->period);
    }
  if (w->cpuset > 0)
    {
      snprintf (why, size, "a cpuset of %" PRId64 " CPUs", w->cpuset);
      return (float) w->cpuset;
    }
  snprintf (why, size, "no CPU quota");
  return 0;
}

/* runtime-rs's sizing with static_sandbox_resource_mgmt
   (InitialSizeManager::setup_config in
   src/runtime-rs/crates/resource/src/cpu_mem/initial_size.rs, 4.1.0):
   with a workload (vCPUs or memory) max (1, overhead_vcpus + the
   workload's vCPUs), rounded up, and overhead_memory + the workload's MiB
   (convert_memory_to_mb: rounded down, then up to an even number) replace
   the defaults; without one, the defaults. */
static bool
rs_static_size (const struct toml_value *hv, const struct workload *w, struct vm_size *vm,
                struct findings *f)
{
  int64_t mib = w->mem / (1024 * 1024), def;
  double ov_vcpus, ov_mem;
  char why[WORKLOAD_WHY];
  float cpus = rs_workload_vcpus (w, why, sizeof why), total;

  mib += mib % 2;
  if (cpus <= 0 && mib == 0)
    {
      if (! kata_number (hv, "default_memory", false, POLICY_KATA_RS_DEFAULT_MEMORY_MIB,
                         &vm->mem, f)
          || ! kata_number (hv, "default_vcpus", true, POLICY_KATA_DEFAULT_VCPUS, &def, f))
        return false;
      vm->vcpus = def;
      snprintf (vm->mem_why, sizeof vm->mem_why,
                "runtime-rs static sizing without a workload: default_memory %" PRId64, vm->mem);
      snprintf (vm->vcpus_why, sizeof vm->vcpus_why,
                "runtime-rs static sizing without a workload: default_vcpus %" PRId64, def);
      return true;
    }
  if (! kata_overhead (hv, "overhead_vcpus", true, &ov_vcpus, f)
      || ! kata_overhead (hv, "overhead_memory", false, &ov_mem, f))
    return false;
  total = (float) ov_vcpus + cpus;
  vm->vcpus = vcpus_ceil (total < 1.0f ? 1.0f : total);
  vm->mem = (int64_t) ov_mem + mib;
  snprintf (vm->mem_why, sizeof vm->mem_why,
            "runtime-rs static sizing: overhead_memory %" PRId64 " + %s %" PRId64 " MiB",
            (int64_t) ov_mem, workload_mem_name (w), mib);
  snprintf (vm->vcpus_why, sizeof vm->vcpus_why,
            "runtime-rs static sizing: max (1, overhead_vcpus %g + %g from %s), rounded up",
            ov_vcpus, (double) cpus, why);
  return true;
}

/* runtime-rs without static_sandbox_resource_mgmt: the VM boots at the
   defaults and each container's resources are hot-plugged on top
   (calc_cpu_resources in cpu_mem/cpu.rs: default_vcpus + quota / period,
   or the cpuset's CPUs alone; get_current_mb in mem.rs: default_memory +
   the limits). */
static bool
rs_hotplug_size (const struct toml_value *hv, const struct workload *w, struct vm_size *vm,
                 struct findings *f)
{
  int64_t def_mem, def_vcpus, mib = mib_ceil (w->mem);
  char why[WORKLOAD_WHY];
  float cpus = rs_workload_vcpus (w, why, sizeof why);

  if (! kata_number (hv, "default_memory", false, POLICY_KATA_RS_DEFAULT_MEMORY_MIB, &def_mem, f)
      || ! kata_number (hv, "default_vcpus", true, POLICY_KATA_DEFAULT_VCPUS, &def_vcpus, f))
    return false;
  vm->mem = def_mem + mib;
  if (w->quota >= 0 && w->period > 0)
    vm->vcpus = vcpus_ceil ((float) def_vcpus + cpus);
  else
    vm->vcpus = w->cpuset > def_vcpus ? w->cpuset : def_vcpus;
  snprintf (vm->mem_why, sizeof vm->mem_why,
            "runtime-rs hot-plug: default_memory %" PRId64 " + %s %" PRId64 " MiB", def_mem,
            workload_mem_name (w), mib);
  snprintf (vm->vcpus_why, sizeof vm->vcpus_why,
            "runtime-rs hot-plug: default_vcpus %" PRId64 " and %g from %s", def_vcpus,
            (double) cpus, why);
  return true;
}

/* The VM that the runtime reading the Kata configuration builds for W. */
static bool
vm_size_of (const struct ctx *c, const struct workload *w, struct vm_size *vm,
            struct findings *f)
{
  const struct kata_config *k = c->pf->from_kata.config;
  bool stat;

  if (k == NULL || k->hypervisor == NULL)
    {
      finding (f, "cannot compute the VM size: the Kata configuration did not load");
      return false;
    }
  if (k->runtime != KATA_RUNTIME_RS)
    return go_vm_size (k->hypervisor, w, vm, f);
  if (! kata_static_sizing (k, &stat, f))
    return false;
  return stat ? rs_static_size (k->hypervisor, w, vm, f) : rs_hotplug_size (k->hypervisor, w, vm, f);
}

/* The largest VM allowed, *MAX_MEM MiB and *MAX_VCPUS, and who says so. */
static bool
vm_bounds (const struct ctx *c, int64_t *max_mem, const char **mem_from, int64_t *max_vcpus,
           const char **vcpus_from, struct findings *f)
{
  const struct kata_config *k = c->pf->from_kata.config;
  cleanup_error kg_error_t err = NULL;

  *max_mem = c->cfg->policy.max_vm_memory_mib;
  *mem_from = "[policy] max_vm_memory_mib";
  *max_vcpus = c->cfg->policy.max_vcpus;
  *vcpus_from = "[policy] max_vcpus";
  if (k != NULL && k->hypervisor_name != NULL && strcmp (k->hypervisor_name, "firecracker") == 0
      && *max_vcpus > POLICY_FIRECRACKER_MAX_VCPUS)
    {
      *max_vcpus = POLICY_FIRECRACKER_MAX_VCPUS;
      *vcpus_from = "Firecracker's limit";
    }
  if (*max_mem != 0)
    return true;
  *mem_from = "this host's MemTotal";
  if (kg_mem_total_mib (max_mem, &err) == 0)
    return true;
  finding (f, "cannot read the host's memory size: %s", err->msg);
  return false;
}

/* What this start adds to the memory the host has committed to guarded
   VMs, for policy.capacity in the parent (capacity.h): a VM of its own,
   its pod's VM as the sandbox sizes it, or what a member hot-plugs into
   its pod's VM: its limit, as both runtimes add a container's memory
   without static_sandbox_resource_mgmt, and nothing with it (the pod's VM
   was sized at the sandbox's start and nothing is plugged later). */
static void
claim_vm (struct ctx *c, const struct workload *w, const struct vm_size *vm)
{
  const struct kata_config *k = c->pf->from_kata.config;
  struct vm_claim *v = &c->rep->vm;
  cleanup_findings struct findings f = { 0 };
  const char *sid = NULL, *uid = NULL;
  bool stat;
  int64_t base;

  memset (v, 0, sizeof *v);
  if (! kata_static_sizing (k, &stat, &f)
      || ! kata_number (k->hypervisor, "default_memory", false,
                        k->runtime == KATA_RUNTIME_RS ? POLICY_KATA_RS_DEFAULT_MEMORY_MIB
                                                      : POLICY_KATA_DEFAULT_MEMORY_MIB,
                        &base, &f))
    return;
  if (is_pod_member (c))
    {
      if (! pod_of (c, &sid, &uid) || strlen (sid) > VM_POD_MAX)
        return;
      snprintf (v->pod, sizeof v->pod, "%s", sid);
      v->add_mib = stat ? 0 : mib_ceil (w->mem);
      v->role = VM_MEMBER;
      return;
    }
  v->mem_mib = vm->mem;
  v->base_mib = base;
  v->role = w->sandbox ? VM_SANDBOX : VM_SOLO;
}

static void
check_resources (struct ctx *c)
{
  cleanup_findings struct findings f = { 0 };
  struct workload w = { .sandbox = is_pod_sandbox (c) || is_crio_sandbox (c) };
  struct vm_size vm = { 0 };
  int64_t max_mem, max_vcpus;
  const char *mem_from, *vcpus_from;
  bool sizes = workload_of (c, &w, &f);

  sizes = vm_size_of (c, &w, &vm, &f) && sizes;
  sizes = vm_bounds (c, &max_mem, &mem_from, &max_vcpus, &vcpus_from, &f) && sizes;
  if (sizes && vm.mem > max_mem)
    finding (&f, "the VM would have %" PRId64 " MiB (%s), more than %s (%" PRId64 " MiB)", vm.mem,
             vm.mem_why, mem_from, max_mem);
  if (sizes && vm.vcpus > max_vcpus)
    finding (&f, "the VM would have %" PRId64 " vCPUs (%s), more than %s (%" PRId64 ")",
             vm.vcpus, vm.vcpus_why, vcpus_from, max_vcpus);
  if (f.n == 0)
    claim_vm (c, &w, &vm);
  if (f.n > 0)
    report_fail (c->rep, "policy.resources",
                 "give the container a memory limit (--memory) and CPU limit (--cpus) that fit "
                 "the VM maximums in [policy]",
                 "%s", sb_str (&f.text));
  else
    report_pass (c->rep, "policy.resources",
                 "the VM: %" PRId64 " MiB (%s) of at most %" PRId64 ", %" PRId64
                 " vCPUs of at most %" PRId64 " (%s)",
                 vm.mem, vm.mem_why, max_mem, vm.vcpus, max_vcpus, vm.vcpus_why);
}

/* ---- the family ----------------------------------------------------- */

static const char *const rule_ids[] = {
  "policy.privileged", "policy.namespaces", "policy.identity",   "policy.mounts",
  "policy.capabilities", "policy.devices",  "policy.hooks",      "policy.annotations",
  "policy.seccomp",    "policy.resources",  "policy.confinement", "egress.netns",
};

/* ---- policy.confinement --------------------------------------------- */

/* What Docker, containerd (ctr and CRI) and podman all mask and make
   read-only by default: Kubernetes' "baseline" Pod Security Standard
   (procMount Default) refuses less. */
static const char *const required_masked[] = {
  "/proc/acpi",      "/proc/kcore",       "/proc/keys",        "/proc/latency_stats",
  "/proc/timer_list", "/proc/timer_stats", "/proc/sched_debug", "/proc/scsi",
  "/sys/firmware",
};
static const char *const required_readonly[] = {
  "/proc/bus", "/proc/fs", "/proc/irq", "/proc/sys", "/proc/sysrq-trigger",
};

static bool
listed (struct json_object *list, const char *path)
{
  if (list == NULL || ! json_object_is_type (list, json_type_array))
    return false;
  for (size_t i = 0; i < json_object_array_length (list); i++)
    {
      struct json_object *v = json_object_array_get_idx (list, i);

      if (json_object_is_type (v, json_type_string) && strcmp (json_object_get_string (v), path) == 0)
        return true;
    }
  return false;
}

/* The sysctls a container's own namespaces hold (runc's validateSysctl:
   IPC and network namespaced ones); the rest are the kernel's, for
   everybody. */
static bool
sysctl_namespaced (const char *key)
{
  static const char *const ipc[] = { "kernel.msgmax", "kernel.msgmnb", "kernel.msgmni",
                                     "kernel.sem",    "kernel.shmall", "kernel.shmmax",
                                     "kernel.shmmni", "kernel.shm_rmid_forced" };
  char k[128];
  size_t n = strlen (key);

  if (n >= sizeof k)
    return false;
  for (size_t i = 0; i <= n; i++)
    k[i] = key[i] == '/' ? '.' : key[i];
  for (size_t i = 0; i < ARRAY_SIZE (ipc); i++)
    if (strcmp (k, ipc[i]) == 0)
      return true;
  return strncmp (k, "fs.mqueue.", 10) == 0 || strncmp (k, "net.", 4) == 0;
}

/* policy.confinement: the container's own confinement, as the engines
   set it by default, not switched off.  The VM is the isolation, but the
   agent applies these in the guest too; without them the workload reaches
   the guest's own files (the agent's), and behind a runtime that is not a
   VM, the host's.  docker run --privileged switches them all off: allowed
   with [policy] privileged = true. */
static void
check_confinement (struct ctx *c)
{
  cleanup_findings struct findings f = { 0 };
  struct json_object *linux_, *list, *masked, *ro, *process, *v, *mounts, *sysctl;
  bool mount_ns = false;

  linux_ = jget_type (c->spec, "spec", "linux", json_type_object, &f);
  process = jget_type (c->spec, "spec", "process", json_type_object, &f);
  list = jget_type (linux_, "linux", "namespaces", json_type_array, &f);
  for (size_t i = 0; list != NULL && i < json_object_array_length (list); i++)
    {
      struct json_object *e = json_object_array_get_idx (list, i), *t, *path;
      const char *type;

      t = jget (e, "namespace", "type", &f);
      if (t == NULL || ! json_object_is_type (t, json_type_string))
        continue;  /* policy.namespaces says so */
      type = json_object_get_string (t);
      path = jget (e, "namespace", "path", &f);
      if (strcmp (type, "mount") == 0)
        {
          mount_ns = true;
          if (path != NULL)
            finding (&f, "the mount namespace is joined (%s), not new",
                     json_object_is_type (path, json_type_string) ? json_object_get_string (path)
                                                                   : json_kind (path));
        }
      else if (strcmp (type, "user") == 0 && path != NULL)
        finding (&f, "the user namespace is joined (%s), not new",
                 json_object_is_type (path, json_type_string) ? json_object_get_string (path)
                                                               : json_kind (path));
    }
  if (! mount_ns)
    finding (&f, "no mount namespace: the container would share the runtime's mounts");
  masked = jget_type (linux_, "linux", "maskedPaths", json_type_array, &f);
  ro = jget_type (linux_, "linux", "readonlyPaths", json_type_array, &f);
  /* CRI-O's infra container masks nothing: its process is CRI-O's
     pause_command in CRI-O's pause_image (crio.conf), not the pod's. */
  for (size_t i = 0; ! is_crio_sandbox (c) && i < ARRAY_SIZE (required_masked); i++)
    if (! listed (masked, required_masked[i]))
      {
        finding (&f, "%s is not masked (linux.maskedPaths)", required_masked[i]);
        break;
      }
  for (size_t i = 0; ! is_crio_sandbox (c) && i < ARRAY_SIZE (required_readonly); i++)
    if (! listed (ro, required_readonly[i]) && ! listed (masked, required_readonly[i]))
      {
        finding (&f, "%s is not read-only (linux.readonlyPaths)", required_readonly[i]);
        break;
      }
  v = jget (process, "process", "apparmorProfile", &f);
  if (v != NULL && json_object_is_type (v, json_type_string)
      && strcmp (json_object_get_string (v), "unconfined") == 0)
    finding (&f, "AppArmor profile \"unconfined\"");
  v = jget (process, "process", "selinuxLabel", &f);
  if (v != NULL && json_object_is_type (v, json_type_string)
      && (strstr (json_object_get_string (v), ":spc_t") != NULL
          || strstr (json_object_get_string (v), ":unconfined_t") != NULL))
    finding (&f, "SELinux label %.64s (an unconfined type)", json_object_get_string (v));
  v = jget (linux_, "linux", "rootfsPropagation", &f);
  if (v != NULL && json_object_is_type (v, json_type_string)
      && (strcmp (json_object_get_string (v), "shared") == 0
          || strcmp (json_object_get_string (v), "rshared") == 0))
    finding (&f, "rootfsPropagation \"%s\" (mounts made inside would appear outside)",
             json_object_get_string (v));
  sysctl = jget_type (linux_, "linux", "sysctl", json_type_object, &f);
  if (sysctl != NULL)
    {
      json_object_object_foreach (sysctl, key, val)
        {
          (void) val;
          if (! sysctl_namespaced (key))
            finding (&f, "sysctl %.64s is the kernel's, not the container's namespace's", key);
        }
    }
  mounts = jget_type (c->spec, "spec", "mounts", json_type_array, &f);
  for (size_t i = 0; mounts != NULL && i < json_object_array_length (mounts); i++)
    {
      struct json_object *m = json_object_array_get_idx (mounts, i), *type, *dest, *opts;
      const char *t, *d;

      type = jget (m, "mount", "type", &f);
      dest = jget (m, "mount", "destination", &f);
      opts = jget (m, "mount", "options", &f);
      t = type != NULL && json_object_is_type (type, json_type_string) ? json_object_get_string (type) : "";
      d = dest != NULL && json_object_is_type (dest, json_type_string) ? json_object_get_string (dest) : "?";
      if (listed (opts, "shared") || listed (opts, "rshared"))
        finding (&f, "mount %.128s is shared (mounts made inside would appear outside)", d);
      if (jget (m, "mount", "uidMappings", &f) != NULL || jget (m, "mount", "gidMappings", &f) != NULL
          || listed (opts, "idmap") || listed (opts, "ridmap"))
        finding (&f, "mount %.128s is id-mapped (the files would be another owner's)", d);
      if (strcmp (t, "proc") == 0 && strcmp (d, "/proc") != 0)
        finding (&f, "a second procfs at %.128s (the masks apply at /proc only)", d);
      if ((strcmp (t, "sysfs") == 0 || strcmp (t, "cgroup") == 0 || strcmp (t, "cgroup2") == 0)
          && (! listed (opts, "ro") || listed (opts, "rw")))
        finding (&f, "%s at %.128s is writable", t, d);
    }
  if (f.n > 0 && c->privileged && c->cfg->policy.privileged)
    report_pass (c->rep, "policy.confinement",
                 "privileged container allowed by [policy] privileged = true");
  else if (f.n > 0)
    report_fail (c->rep, "policy.confinement",
                 "keep the engine's default confinement (no --security-opt apparmor=unconfined, "
                 "no procMount Unmasked, no shared propagation, only namespaced sysctls)",
                 "%s", sb_str (&f.text));
  else
    report_pass (c->rep, "policy.confinement",
                 "own mount namespace, /proc masked and read-only as the engines default, no "
                 "unconfined profile, no shared propagation, only namespaced sysctls");
}

/* ---- egress.netns ------------------------------------------------------ */

/* Docker's network hook among the prestart hooks (check_hooks judged its
   form): Docker attaches the container's network through it. */
static bool
has_docker_setkey (struct ctx *c)
{
  struct json_object *hooks = NULL, *list = NULL;

  if (! json_object_object_get_ex (c->spec, "hooks", &hooks)
      || ! json_object_is_type (hooks, json_type_object)
      || ! json_object_object_get_ex (hooks, "prestart", &list)
      || ! json_object_is_type (list, json_type_array))
    return false;
  for (size_t i = 0; i < json_object_array_length (list); i++)
    {
      struct json_object *h = json_object_array_get_idx (list, i), *args = NULL, *a0;

      if (json_object_is_type (h, json_type_object) && json_object_object_get_ex (h, "args", &args)
          && json_object_is_type (args, json_type_array) && json_object_array_length (args) > 0
          && (a0 = json_object_array_get_idx (args, 0)) != NULL
          && json_object_is_type (a0, json_type_string)
          && strcmp (json_object_get_string (a0), "libnetwork-setkey") == 0)
        return true;
    }
  return false;
}

/* Whether this start is Docker's by anything the guard can see: Docker's
   namespace, Docker's network hook, or a bind of Docker's per-container
   files (<engine root>/containers/...). */
static bool
docker_shaped (struct ctx *c)
{
  struct json_object *mounts;
  const struct dirs *roots = &c->dirs->roots;

  if (c->who.engine == ENGINE_DOCKER || has_docker_setkey (c))
    return true;
  if (! json_object_object_get_ex (c->spec, "mounts", &mounts)
      || ! json_object_is_type (mounts, json_type_array))
    return false;
  for (size_t i = 0; i < json_object_array_length (mounts); i++)
    {
      struct json_object *m = json_object_array_get_idx (mounts, i), *src;
      const char *q;

      if (json_object_is_type (m, json_type_object) && json_object_object_get_ex (m, "source", &src)
          && json_object_is_type (src, json_type_string)
          && (q = under_root (json_object_get_string (src), roots)) != NULL
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
docker_network_mode (struct ctx *c, char *out, size_t size, kg_error_t *err)
{
  const struct dirs *roots = &c->dirs->roots;
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
  return kg_error (err, ENOENT, "no containers/%s/hostconfig.json under [policy] engine_roots",
                   id);
}

/* egress.netns: the network the container will have, as the VM will get
   it (Kata hands the VM the namespace's interfaces and routes; its
   tcfilter redirect bypasses the namespace's own L3 rules, so addresses
   and routes are what counts, not iptables). */
static void
check_network (struct ctx *c)
{
  const struct guard_config *cfg = c->cfg;
  cleanup_strbuf struct strbuf why = { 0 };
  cleanup_strbuf struct strbuf seen = { 0 };
  cleanup_error kg_error_t err = NULL;
  struct json_object *linux_, *list, *entry = NULL, *path = NULL;
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
      report_skip (c->rep, "egress.netns", "not run: [egress] enabled = false");
      return;
    }
  linux_ = json_object_object_get_ex (c->spec, "linux", &linux_) ? linux_ : NULL;
  list = linux_ != NULL && json_object_object_get_ex (linux_, "namespaces", &list) ? list : NULL;
  for (size_t i = 0; list != NULL && json_object_is_type (list, json_type_array)
                     && i < json_object_array_length (list);
       i++)
    {
      struct json_object *e = json_object_array_get_idx (list, i), *t;

      if (json_object_is_type (e, json_type_object) && json_object_object_get_ex (e, "type", &t)
          && json_object_is_type (t, json_type_string)
          && strcmp (json_object_get_string (t), "network") == 0)
        entry = e;
    }
  if (entry == NULL)
    {
      report_fail (c->rep, "egress.netns", "give the container its own network namespace",
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
      report_fail (c->rep, "egress.netns",
                   "list Docker's data root (dockerd --data-root) in [policy] engine_roots",
                   "a start of Docker's whose network cannot be told: %s (Docker attaches it "
                   "after the guard looked)",
                   err->msg);
      return;
    }
  docker_attaches = mode[0] != '\0' && strcmp (mode, "none") != 0 && strcmp (mode, "host") != 0
                    && strncmp (mode, "container:", 10) != 0;
  no_path = ! json_object_object_get_ex (entry, "path", &path)
            || json_object_is_type (path, json_type_null);
  /* A namespace the runtime creates holds loopback only, unless Docker's
     hook is there to attach a network whose mode is not none. */
  hook = no_path && has_docker_setkey (c);
  if (no_path && ! docker_attaches && (! hook || strcmp (mode, "none") == 0))
    {
      report_pass (c->rep, "egress.netns", "a new network namespace, loopback only (%s)",
                   hook ? "Docker --network none" : "the runtime creates it");
      return;
    }
  if (docker_attaches || no_path)
    {
      report_fail (c->rep, "egress.netns",
                   "run the container with --network none, or in the network namespace of a "
                   "companion on an internal network (--network container:NAME), which is "
                   "inspected",
                   "Docker attaches network \"%s\" after the guard looked (Kata hands it to "
                   "the VM: before boot on Firecracker, hot-plugged on QEMU and Cloud "
                   "Hypervisor), so its routes cannot be checked",
                   mode[0] ? mode : "(unknown)");
      return;
    }
  if (! json_object_is_type (path, json_type_string))
    {
      report_fail (c->rep, "egress.netns", NULL, "the network namespace path is %s",
                   json_kind (path));
      return;
    }
  p = json_object_get_string (path);
  if (strncmp (p, "/proc/", 6) == 0)
    {
      const char *q = p + 6;
      size_t digits = strspn (q, "0123456789");

      if (digits > 0 && strcmp (q + digits, "/ns/net") == 0)
        pid = strtoul (q, NULL, 10);
    }
  /* The probe from inside, as the VM's traffic will leave. */
  memset (&probe, 0, sizeof probe);
  if (proxy == NULL || *proxy == '\0'
      || conf_parse_endpoint (proxy, &probe.proxy, &probe.proxy_len, &err) < 0
      || (probe.proxy.ss_family != AF_INET && probe.proxy.ss_family != AF_INET6))
    {
      report_fail (c->rep, "egress.netns", "set [egress] proxy (see egress.config)",
                   "network namespace %s: no proxy to probe it with", p);
      return;
    }
  probe.timeout_ms = (uint32_t) cfg->egress.timeout_ms;
  if (egress_probe_host (cfg, probe.host, sizeof probe.host) < 0)
    {
      report_fail (c->rep, "egress.netns", NULL, "cannot make a probe host name: %s",
                   strerror (errno));
      return;
    }
  for (size_t i = 0; i < cfg->egress.n_networks && n_nets < ARRAY_SIZE (nets); i++)
    if (conf_parse_cidr (cfg->egress.networks[i], &nets[n_nets]) == 0)
      n_nets++;
  facts = calloc (1, sizeof *facts);
  if (facts == NULL)
    {
      report_fail (c->rep, "egress.netns", NULL, "out of memory");
      return;
    }
  if (c->pf->req->netns_facts != NULL)
    rc = c->pf->req->netns_facts (pid, pid ? NULL : p, &probe, facts);
  else if ((rc = netns_gather (pid, pid ? NULL : p, &probe, facts, &err)) < 0)
    errno = err->errnum;
  if (rc < 0)
    {
      report_fail (c->rep, "egress.netns", NULL, "network namespace %s cannot be read: %s", p,
                   strerror (errno));
      free (facts);
      return;
    }
  if (netns_judge (facts, nets, n_nets, &probe.proxy, &why, &seen) < 0)
    report_fail (c->rep, "egress.netns",
                 facts->untrusted[0] != '\0' || ! facts->owner_initial
                     ? "name a network namespace that root made in the host's user namespace, by "
                       "a path only root can change (/proc/PID/ns/net, /run/netns/NAME)"
                     : "put the container on an internal network only (no default route, no "
                       "route via a gateway, no other interface), with the proxy on it; see "
                       "[egress] networks",
                 "network namespace %s: %s", p, sb_str (&why));
  else if (facts->probe_error == 0 && facts->probe_status == 0)
    report_pass (c->rep, "egress.netns", "network namespace %s: %s", p, sb_str (&seen));
  else if (facts->probe_error != 0)
    report_fail (c->rep, "egress.netns",
                 "put the proxy on the container's internal network, at [egress] proxy",
                 "network namespace %s (%s): the proxy %s does not answer from inside it: %s", p,
                 sb_str (&seen), proxy, strerror (facts->probe_error));
  else if (! egress_denied_status (cfg, facts->probe_status))
    report_fail (c->rep, "egress.netns",
                 "make the proxy this namespace reaches deny every destination not on its "
                 "allowlist",
                 "network namespace %s (%s): the proxy %s, from inside it, answered CONNECT "
                 "%s:443 with %d%s",
                 p, sb_str (&seen), proxy, probe.host, (int) facts->probe_status,
                 facts->probe_status >= 200 && facts->probe_status <= 299 ? " (an open proxy)" : "");
  else
    report_pass (c->rep, "egress.netns",
                 "network namespace %s: %s, no way out but the proxy %s, which denied CONNECT "
                 "%s:443 with %d from inside",
                 p, sb_str (&seen), proxy, probe.host, (int) facts->probe_status);
  free (facts);
}

void
check_policy (struct preflight *pf)
{
  struct ctx c = { .pf = pf, .cfg = pf->cfg, .rep = pf->rep };
  cleanup_mount_dirs struct mount_dirs dirs = { 0 };
  cleanup_error kg_error_t err = NULL;
  cleanup_error kg_error_t dirs_err = NULL;
  cleanup_free char *bundle = NULL;

  /* Per container: nothing to say without one. */
  if (pf->req->bundle == NULL)
    return;
  if (pf->req->bundle[0] != '/')
    {
      report_fail (pf->rep, "policy.spec", "pass an absolute bundle directory",
                   "bundle %s is not an absolute path", pf->req->bundle);
      goto not_run;
    }
  if (policy_path_resolve ("/", pf->req->bundle, false, &bundle, &err) < 0)
    {
      report_fail (pf->rep, "policy.spec", "pass an absolute bundle directory", "%s", err->msg);
      goto not_run;
    }
  c.bundle = bundle;
  c.spec = policy_spec_load (bundle, &err);
  if (c.spec == NULL)
    {
      report_fail (pf->rep, "policy.spec",
                   "the engine wrote a config.json kata-guard will not read; recreate the "
                   "container, or fix the spec",
                   "%s", err->msg);
      goto not_run;
    }
  report_pass (pf->rep, "policy.spec", "%s/config.json: OCI %s", bundle,
               json_object_get_string (json_object_object_get (c.spec, "ociVersion")));
  if (pf->req->engine_ns != NULL)
    c.ns = *pf->req->engine_ns;
  else
    engine_ns_gather (&c.ns);
  /* policy.mounts and egress.netns judge by the same directories. */
  mount_dirs_resolve (c.cfg, &dirs, &dirs_err);
  c.dirs = &dirs;
  c.dirs_err = dirs_err;
  who_resolve (&c);
  pf->from_policy.engine = c.who.engine;
  /* Privileged first: a --privileged refusal should lead with that. */
  check_privileged (&c);
  check_namespaces (&c);
  check_identity (&c);
  check_mounts (&c);
  check_capabilities (&c);
  check_devices (&c);
  check_hooks (&c);
  check_annotations (&c);
  check_seccomp (&c);
  check_resources (&c);
  check_confinement (&c);
  check_network (&c);
  json_object_put (c.spec);
  return;

not_run:
  for (size_t i = 0; i < ARRAY_SIZE (rule_ids); i++)
    report_skip (pf->rep, rule_ids[i], "not run: policy.spec failed");
}

/* ---- runc exec and update (OCI mode) ---------------------------------- */

int
policy_exec_judge (const struct guard_config *cfg, struct json_object *process,
                   const char *const *caps, size_t n_caps, kg_error_t *err)
{
  static const char *const sets[] = { "bounding", "effective", "inheritable", "permitted",
                                      "ambient" };
  cleanup_findings struct findings f = { 0 };
  uint64_t allowed = allowed_caps (cfg), reported = 0;
  struct json_object *set_lists[ARRAY_SIZE (sets)] = { NULL };
  struct json_object *pcaps;

  if (cfg->policy.privileged)
    return 0;
  pcaps = jget_type (process, "process", "capabilities", json_type_object, &f);
  for (size_t s = 0; s < ARRAY_SIZE (sets); s++)
    set_lists[s] = jget_type (pcaps, "capabilities", sets[s], json_type_array, &f);
  /* The --cap names first, then every set of the process. */
  for (size_t s = 0; s <= ARRAY_SIZE (sets); s++)
    {
      size_t n = s == 0 ? n_caps : set_lists[s - 1] ? json_object_array_length (set_lists[s - 1]) : 0;

      for (size_t i = 0; i < n; i++)
        {
          struct json_object *o = s == 0 ? NULL : json_object_array_get_idx (set_lists[s - 1], i);
          const char *name;
          char up[64];
          cap_value_t v;

          if (s > 0 && ! json_object_is_type (o, json_type_string))
            {
              finding (&f, "capabilities.%s[%zu] is %s, not a name", sets[s - 1], i, json_kind (o));
              continue;
            }
          name = s == 0 ? caps[i] : json_object_get_string (o);
          if (! cap_parse (name, &v))
            {
              finding (&f, "unknown capability \"%.64s\"", name);
              continue;
            }
          if ((allowed | reported) & (UINT64_C (1) << v))
            continue;
          reported |= UINT64_C (1) << v;
          cap_upper (v, up, sizeof up);
          finding (&f, "%s", up);
        }
    }
  if (f.n > 0)
    return kg_error (err, 0, "the process would have capabilities beyond [policy] "
                             "capabilities: %s", sb_str (&f.text));
  return 0;
}

int
policy_update_judge (const struct guard_config *cfg, struct json_object *resources,
                     kg_error_t *err)
{
  cleanup_findings struct findings f = { 0 };
  cleanup_error kg_error_t merr = NULL;
  struct json_object *mem, *cpu, *limit, *quota, *period;
  int64_t max_mem = cfg->policy.max_vm_memory_mib;

  mem = jget_type (resources, "resources", "memory", json_type_object, &f);
  cpu = jget_type (resources, "resources", "cpu", json_type_object, &f);
  limit = jget (mem, "memory", "limit", &f);
  quota = jget (cpu, "cpu", "quota", &f);
  period = jget (cpu, "cpu", "period", &f);
  if (max_mem == 0 && kg_mem_total_mib (&max_mem, &merr) < 0)
    finding (&f, "cannot read the host's memory size: %s", merr->msg);
  if (limit != NULL && ! json_object_is_type (limit, json_type_int))
    finding (&f, "the memory limit is %s, not an integer", json_kind (limit));
  else if (limit != NULL)
    {
      /* 0 leaves the limit as it is; a negative one lifts it. */
      int64_t l = json_object_get_int64 (limit);
      int64_t mib = mib_ceil (l);

      if (l < 0 && cfg->policy.require_memory_limit)
        finding (&f, "the memory limit would be lifted (%" PRId64 ")", l);
      else if (max_mem > 0 && mib > max_mem)
        finding (&f, "a memory limit of %" PRId64 " MiB is more than %s (%" PRId64 " MiB)", mib,
                 cfg->policy.max_vm_memory_mib ? "[policy] max_vm_memory_mib"
                                               : "this host's MemTotal",
                 max_mem);
    }
  if (quota != NULL && ! json_object_is_type (quota, json_type_int))
    finding (&f, "the CPU quota is %s, not an integer", json_kind (quota));
  else if (period != NULL && ! json_object_is_type (period, json_type_int))
    finding (&f, "the CPU period is %s, not an integer", json_kind (period));
  else if (quota != NULL && json_object_get_int64 (quota) > 0)
    {
      /* Without a period the kernel's default is the one in force for a
         container the guard started (none of the engines sets another). */
      int64_t q = json_object_get_int64 (quota);
      int64_t p = period != NULL && json_object_get_int64 (period) > 0
                      ? json_object_get_int64 (period)
                      : 100000;
      int64_t cpus = q / p + (q % p != 0);

      if (cpus > cfg->policy.max_vcpus)
        finding (&f, "a CPU quota of %" PRId64 " / period %" PRId64 " is %" PRId64 " vCPUs, more "
                     "than [policy] max_vcpus (%" PRId64 ")",
                 q, p, cpus, cfg->policy.max_vcpus);
    }
  if (f.n > 0)
    return kg_error (err, 0, "%s", sb_str (&f.text));
  return 0;
}
