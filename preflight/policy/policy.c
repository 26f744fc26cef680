/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What every policy.* rule uses, below them all (policy-rules.c has the family):
 * findings, keys of a type, paths resolved inside a root, the engines' own
 * records read as JSON, the run's context (the engine's namespaces), and
 * policy.spec: config.json read strictly, its keys against the runtime
 * spec's field names.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "policy.h"

#include "array.h"
#include "buf.h"
#include "cleanup.h"
#include "error.h"
#include "fdio.h"
#include "hash.h"
#include "policy-int.h"
#include "proc.h"
#include "policy-path.h"

#define MAX_SYMLINKS 40
/* ---- small helpers -------------------------------------------------- */

void
policy_findings_release (struct policy_findings *f)
{
  kg_buf_release (&f->text);
  free (f->engine_root);
}

#define POLICY_FINDINGS_SHOWN 8

__attribute__ ((format (printf, 2, 3))) void
policy_finding (struct policy_findings *f, const char *fmt, ...)
{
  cleanup_free char *item = NULL;
  va_list ap;
  int r;

  va_start (ap, fmt);
  r = vasprintf (&item, fmt, ap);
  va_end (ap);
  f->n++;
  /* Long lists are cut, and say by how much: the reason must stay short
     enough for a terminal, and a "..." is what a cut in transport looks
     like (the checker's wire, the engine's message). */
  if (f->n <= POLICY_FINDINGS_SHOWN)
    {
      sb_printf (&f->text, "%s%s", f->n > 1 ? "; " : "", r >= 0 ? item : "(out of memory)");
      f->shown_len = f->text.len;
    }
  else
    {
      kg_buf_truncate (&f->text, f->shown_len);
      sb_printf (&f->text, "; and %zu more", f->n - POLICY_FINDINGS_SHOWN);
    }
}

/* KEY of OBJ.  Go's encoding/json (containerd, Kata's Go shim) matches
   object keys case-insensitively, runtime-rs does not: a key that differs
   from a known one only in case would be read by one and not by the other,
   so it is a finding, not something to skip.  WHERE names OBJ. */
struct jv *
policy_jget (struct jv *obj, const char *where, const char *key, struct policy_findings *f)
{
  struct jv *found = NULL;

  if (obj == NULL || ! jv_is_type (obj, json_type_object))
    return NULL;
  jv_foreach (obj, k, v)
  {
    /* Two keys equal but for case have first bytes equal but for bit
         0x20: any other key is neither. */
    if ((k[0] | 0x20) != (key[0] | 0x20))
      continue;
    if (strcmp (k, key) == 0)
      found = v;
    else if (strcasecmp (k, key) == 0)
      policy_finding (f, "%s key \"%s\" differs from \"%s\" only in case (runtimes disagree on it)",
                      where, k, key);
  }
  /* null is what Go writes for an empty slice or map. */
  if (found != NULL && jv_is_type (found, json_type_null))
    return NULL;
  return found;
}

/* policy_jget, and the value must be of TYPE (else a finding and NULL). */
struct jv *
policy_jget_type (struct jv *obj, const char *where, const char *key, json_type type,
                  struct policy_findings *f)
{
  struct jv *v = policy_jget (obj, where, key, f);
  static const char *const names[] = {
    [json_type_object] = "an object", [json_type_array] = "an array",
    [json_type_string] = "a string",  [json_type_boolean] = "a boolean",
    [json_type_int] = "an integer",
  };

  if (v == NULL || jv_is_type (v, type))
    return v;
  policy_finding (f, "%s.%s is %s, not %s", where, key, jv_kind (v),
                  (size_t) type < ARRAY_SIZE (names) && names[type] ? names[type] : "valid");
  return NULL;
}

bool
path_under (const char *p, const char *dir)
{
  size_t n = strlen (dir);

  if (strcmp (dir, "/") == 0)
    return true;
  return strncmp (p, dir, n) == 0 && (p[n] == '\0' || p[n] == '/');
}

/* Whether the JSON array LIST holds the string PATH. */
bool
policy_list_has (struct jv *list, const char *path)
{
  size_t n;

  if (list == NULL || ! jv_is_type (list, json_type_array))
    return false;
  n = jv_length (list);
  for (size_t i = 0; i < n; i++)
    {
      struct jv *v = jv_at (list, i);

      if (jv_is_type (v, json_type_string) && strcmp (jv_string (v), path) == 0)
        return true;
    }
  return false;
}

/* ---- paths ---------------------------------------------------------- */

/* What a path of a container's spec names on the host, as the runtime
   will follow it (policy.h's policy_path_resolve): by lstat and readlink
   from "/", a relative path from the bundle, a missing tail taken as
   written (the engine creates a missing bind source).  Not trust.c's
   walk, which answers another question: whether a host file the guard
   itself relies on is root's all the way and held open (it refuses a
   missing file and judges owner and mode at every step).  This one
   judges nothing and opens nothing: its answer is a name for the rules'
   lists, and a source is relied on only where redirectable_as
   (policy-mounts.c) ran that walk over it too. */
static int
resolve_path (const char *base, const char *path, bool follow, char **out, struct resolved_info *ri,
              kg_error_t *err)
{
  cleanup_free char *todo = NULL;
  char cur[PATH_MAX + 1];
  size_t cur_len = 0;
  bool exists = follow;
  bool have_st = false, absent = false;
  struct stat st;
  int links = 0;
  char *p;

  if (path[0] == '/')
    todo = strdup (path);
  else if (asprintf (&todo, "%s/%s", base, path) < 0)
    todo = NULL;
  if (todo == NULL)
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
      /* Known only of the last name lstat'd, while it is the last. */
      absent = false;
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
              absent = errno == ENOENT;
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
      ri->absent = absent;
      if (ri->have_st)
        ri->st = st;
    }
  if ((*out = strdup (cur)) == NULL)
    return kg_error (err, ENOMEM, "%s: cannot allocate", path);
  return 0;
}

/* Whether absolute PATH is already what a lexical resolution makes of it:
   no empty, "." or ".." component, no slash at its end (but "/"), and
   not longer than a path may be. */
static bool
lexically_resolved (const char *path)
{
  const char *q = path;

  if (path[0] != '/')
    return false;
  if (path[1] == '\0')
    return true;
  for (; q != NULL; q = strchr (q + 1, '/'))
    if (q[1] == '/' || q[1] == '\0'
        || (q[1] == '.'
            && (q[2] == '/' || q[2] == '\0' || (q[2] == '.' && (q[3] == '/' || q[3] == '\0')))))
      return false;
  return strlen (path) <= PATH_MAX;
}

int
policy_path_resolve (const char *base, const char *path, bool follow, char **out, kg_error_t *err)
{
  /* Nearly every bind source is written resolved (the engines write
     them so): a copy is the answer. */
  if (! follow && lexically_resolved (path))
    return (*out = strdup (path)) != NULL ? 0 : kg_error (err, ENOMEM, "%s: cannot allocate", path);
  return resolve_path (base, path, follow, out, NULL, err);
}

void
resolve_memo_release (struct resolve_memo *m)
{
  free (m->dir);
  free (m->resolved);
  if (m->have_fd)
    close (m->fd);
  m->have_fd = false;
}

int
resolve_memo (struct resolve_memo *m, const char *base, const char *path, char **out,
              struct resolved_info *ri, kg_error_t *err)
{
  char abs[PATH_MAX + 1], cand[PATH_MAX + 1];
  size_t pl = strlen (path), bl = path[0] == '/' ? 0 : strlen (base) + 1, rl, ll;
  const char *slash, *last;
  size_t dlen;

  /* Longer than a path may be: resolve_path says so, or cuts it down
     with "..". */
  if (bl + pl > PATH_MAX)
    return resolve_path (base, path, true, out, ri, err);
  if (bl > 0)
    {
      memcpy (abs, base, bl - 1);
      abs[bl - 1] = '/';
    }
  memcpy (abs + bl, path, pl + 1);
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
      if (m->exists)
        {
          m->fd = open (resolved, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
          m->have_fd = m->fd >= 0;
        }
    }
  rl = strcmp (m->resolved, "/") == 0 ? 0 : strlen (m->resolved);
  ll = strlen (last);
  if (rl + 1 + ll > PATH_MAX)
    return kg_error (err, ENAMETOOLONG, "%s", path);
  memcpy (cand, m->resolved, rl);
  cand[rl] = '/';
  memcpy (cand + rl + 1, last, ll + 1);
  ri->exists = false;
  ri->have_st = false;
  ri->absent = false;
  if (m->exists)
    {
      if ((m->have_fd ? fstatat (m->fd, last, &ri->st, AT_SYMLINK_NOFOLLOW) : lstat (cand, &ri->st))
          < 0)
        {
          if (errno != ENOENT && errno != ENOTDIR)
            return kg_error (err, errno, "%s: cannot resolve %s", path, cand);
          ri->absent = errno == ENOENT;
        }
      else if (S_ISLNK (ri->st.st_mode))
        return resolve_path (base, path, true, out, ri, err);
      else
        ri->exists = ri->have_st = true;
    }
  if ((*out = strdup (cand)) == NULL)
    return kg_error (err, ENOMEM, "%s: cannot allocate", path);
  return 0;
}

/* ---- the run's context ---------------------------------------------- */

const char *const ns_types[NS_COUNT] = { "network", "pid", "ipc", "uts" };
const char *const ns_proc[NS_COUNT] = { "net", "pid", "ipc", "uts" };

_Static_assert(NS_COUNT == KG_NS_COUNT, "checks.h KG_NS_COUNT is policy.c's NS_COUNT");

const char *
engine_ns_proc_name (int k)
{
  return k >= 0 && k < NS_COUNT ? ns_proc[k] : NULL;
}

struct mount_dirs;

/* The spec's annotation NAME when it is a string, else NULL. */
const char *
policy_annotation (const struct policy_ctx *c, const char *name)
{
  struct jv *ann, *v;

  if (c->spec == NULL || ! jv_get_ex (c->spec, "annotations", &ann)
      || ! jv_is_type (ann, json_type_object) || ! jv_get_ex (ann, name, &v)
      || ! jv_is_type (v, json_type_string))
    return NULL;
  return jv_string (v);
}

/* ---- policy.spec ---------------------------------------------------- */

/* Every JSON field name of runtime-spec's Go types (specs-go 1.0 as Debian
   packages it, and the fields 1.1 and 1.2 added): Go's encoding/json
   (runc, containerd, Kata) matches a key to a field exactly or, failing
   that, case-insensitively under Unicode's simple folding.  Sorted as
   strcmp orders them (folded_spec_key looks keys up in a hash set of
   them, field_index). */
/* clang-format off */
static const struct
{
  char name[28];
} spec_fields[] = {
  { "DNSSearchList" }, { "access" }, { "action" },
  { "additionalGids" }, { "allow" }, { "allowUnqualifiedDNSQuery" },
  { "allowedAddress" }, { "ambient" }, { "anet" },
  { "annotations" }, { "apparmorProfile" }, { "architectures" },
  { "args" }, { "blockIO" }, { "bounding" },
  { "bps" }, { "bundle" }, { "burst" },
  { "capabilities" }, { "cappedCPU" }, { "cappedMemory" },
  { "cgroupsPath" }, { "checkBeforeUpdate" }, { "class" },
  { "classID" }, { "closID" }, { "commandLine" },
  { "configureAllowedAddress" }, { "consoleSize" }, { "containerID" },
  { "count" }, { "cpu" }, { "cpus" },
  { "createContainer" }, { "createRuntime" }, { "credentialSpec" },
  { "cwd" }, { "deadline" }, { "defaultAction" },
  { "defaultErrnoRet" }, { "defrouter" }, { "destination" },
  { "devices" }, { "disableOOMKiller" }, { "domain" },
  { "domainname" }, { "effective" }, { "enableCMT" },
  { "enableMBM" }, { "enableMonitoring" }, { "endpointList" },
  { "env" }, { "errnoRet" }, { "execCPUAffinity" },
  { "fds" }, { "fileMode" }, { "final" },
  { "flags" }, { "format" }, { "gid" },
  { "gidMappings" }, { "hard" }, { "hcaHandles" },
  { "hcaObjects" }, { "height" }, { "hooks" },
  { "hostID" }, { "hostname" }, { "hugepageLimits" },
  { "hyperv" }, { "hypervisor" }, { "id" },
  { "idType" }, { "idle" }, { "ignoreFlushesDuringBoot" },
  { "image" }, { "index" }, { "inheritable" },
  { "initial" }, { "initrd" }, { "intelRdt" },
  { "ioPriority" }, { "iops" }, { "kernel" },
  { "kernelTCP" }, { "l3CacheSchema" }, { "layerFolders" },
  { "leafWeight" }, { "limit" }, { "limitpriv" },
  { "linkProtection" }, { "linkname" }, { "linux" },
  { "listenerMetadata" }, { "listenerPath" }, { "lowerLink" },
  { "macAddress" }, { "major" }, { "maskedPaths" },
  { "maxShmMemory" }, { "maximum" }, { "memBwSchema" },
  { "memory" }, { "memoryPolicy" }, { "mems" },
  { "metadata" }, { "milestone" }, { "minor" },
  { "mountLabel" }, { "mounts" }, { "name" },
  { "names" }, { "namespaces" }, { "ncpus" },
  { "netDevices" }, { "network" }, { "networkNamespace" },
  { "networkSharedContainerName" }, { "nice" }, { "noNewPrivileges" },
  { "nodes" }, { "ociVersion" }, { "oomScoreAdj" },
  { "op" }, { "options" }, { "pageSize" },
  { "parameters" }, { "path" }, { "period" },
  { "permitted" }, { "personality" }, { "physical" },
  { "pid" }, { "pids" }, { "policy" },
  { "poststart" }, { "poststop" }, { "prestart" },
  { "priorities" }, { "priority" }, { "process" },
  { "quota" }, { "rate" }, { "rdma" },
  { "readonly" }, { "readonlyPaths" }, { "realtimePeriod" },
  { "realtimeRuntime" }, { "reservation" }, { "resources" },
  { "rlimits" }, { "root" }, { "rootfsPropagation" },
  { "runtime" }, { "sandboxSize" }, { "scheduler" },
  { "schemata" }, { "seccomp" }, { "selinuxLabel" },
  { "servicing" }, { "shares" }, { "size" },
  { "soft" }, { "solaris" }, { "source" },
  { "startContainer" }, { "state" }, { "status" },
  { "storage" }, { "swap" }, { "swappiness" },
  { "syscalls" }, { "sysctl" }, { "terminal" },
  { "throttleReadBpsDevice" }, { "throttleReadIOPSDevice" }, { "throttleWriteBpsDevice" },
  { "throttleWriteIOPSDevice" }, { "timeOffsets" }, { "timeout" },
  { "type" }, { "uid" }, { "uidMappings" },
  { "umask" }, { "unified" }, { "useHierarchy" },
  { "user" }, { "username" }, { "utilityVMPath" },
  { "value" }, { "valueTwo" }, { "vm" },
  { "weight" }, { "weightDevice" }, { "width" },
  { "windows" }, { "zos" },
};
/* clang-format on */

/* The fields whose value is a map: their keys are data, compared exactly. */
static const char *const spec_maps[] = { "annotations", "sysctl",     "unified",
                                         "rdma",        "netDevices", "timeOffsets" };

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

/* spec_fields as a hash set (open addressing, FNV-1a, built at the first
   look-up): each slot holds a field's index + 1, 0 when empty; and which
   fields are maps. */
#define FIELD_SLOTS 1024
static uint16_t field_slot[FIELD_SLOTS];
static bool field_map[ARRAY_SIZE (spec_fields)];
static bool field_slots_built;

static uint32_t
field_hash (const char *s)
{
  return kg_fnv1a (s, strlen (s));
}

/* The index of the field named exactly KEY, -1 when none is. */
static int
field_index (const char *key)
{
  uint32_t h;

  if (! field_slots_built)
    {
      for (size_t i = 0; i < ARRAY_SIZE (spec_fields); i++)
        {
          for (h = field_hash (spec_fields[i].name) % FIELD_SLOTS; field_slot[h] != 0;
               h = (h + 1) % FIELD_SLOTS)
            ;
          field_slot[h] = (uint16_t) (i + 1);
        }
      field_slots_built = true;
      for (size_t m = 0; m < ARRAY_SIZE (spec_maps); m++)
        {
          int f = field_index (spec_maps[m]);

          if (f >= 0)
            field_map[f] = true;
        }
    }
  for (h = field_hash (key) % FIELD_SLOTS; field_slot[h] != 0; h = (h + 1) % FIELD_SLOTS)
    if (strcmp (spec_fields[field_slot[h] - 1].name, key) == 0)
      return field_slot[h] - 1;
  return -1;
}

/* The field named exactly KEY, as spec_fields spells it, or NULL: the
   tree keeps that string for the key (jv_read_strict). */
static const char *
spec_field (const char *key)
{
  int f = field_index (key);

  return f >= 0 ? spec_fields[f].name : NULL;
}

/* The index of the field whose own string (spec_fields[].name) KEY is,
   as the tree keeps a field's key (spec_field); -1 for any other string,
   of the same text or not. */
static int
kept_field (const char *key)
{
  uintptr_t at = (uintptr_t) key - (uintptr_t) spec_fields;

  if (at >= sizeof spec_fields || at % sizeof spec_fields[0] != 0)
    return -1;
  return (int) (at / sizeof spec_fields[0]);
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
folded_spec_key (struct jv *o, const char **field)
{
  enum json_type t = jv_type (o);

  if (t == json_type_array)
    {
      size_t n = jv_length (o);

      for (size_t i = 0; i < n; i++)
        {
          struct jv *e = jv_at (o, i);
          enum json_type et = jv_type (e);
          const char *k;

          /* Only an object holds keys (the arrays of names hold none). */
          if ((et == json_type_object || et == json_type_array)
              && (k = folded_spec_key (e, field)) != NULL)
            return k;
        }
      return NULL;
    }
  if (t != json_type_object)
    return NULL;
  jv_foreach (o, key, val)
  {
    char folded[64];
    int f = kept_field (key);
    bool exact, map;

    if (f < 0)
      f = field_index (key);
    exact = f >= 0;
    map = f >= 0 && field_map[f];
    const char *k;

    /* Nearly every key is a field's exact name, kept as spec_fields'
         own string (else one look-up in the hash set).  Only a key that
         is no field's name is folded and compared with every field. */
    if (! exact && fold_key (key, folded, sizeof folded))
      for (size_t i = 0; i < ARRAY_SIZE (spec_fields) && ! exact; i++)
        {
          if (strcmp (key, spec_fields[i].name) == 0)
            exact = true;
          else if (folds_onto (spec_fields[i].name, folded))
            {
              *field = spec_fields[i].name;
              return key;
            }
        }
    if (! map && (jv_is_type (val, json_type_object) || jv_is_type (val, json_type_array))
        && (k = folded_spec_key (val, field)) != NULL)
      return k;
  }
  return NULL;
}

struct jv *
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
        return kg_error (err, 0,
                         "%s is a symbolic link (refused: the runtime reads the file "
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
  if (kg_read_fd_sized (fd, name, POLICY_MAX_SPEC, (size_t) st.st_size, &buf, &len, err) < 0)
    return NULL;
  return policy_spec_parse (name, buf, len, err);
}

/* Keys that Go's decoders fold onto a field of runtime-spec's. */
static int
spec_keys_check (const char *name, struct jv *obj, kg_error_t *err)
{
  const char *field = NULL, *key = folded_spec_key (obj, &field);

  if (key != NULL)
    return kg_error (err, 0,
                     "%s: key \"%.64s\" is not \"%s\" but Go's decoders (runc, "
                     "containerd, Kata) read it as that field",
                     name, key, field);
  return 0;
}

/* policy_json_parse's reading, of a document of any type. */
struct jv *
json_parse_strict (const char *name, const char *buf, size_t len, bool spec_keys, kg_error_t *err)
{
  struct jv *doc = jv_read_strict (name, buf, len, POLICY_MAX_DEPTH, spec_field, err);

  if (doc != NULL && spec_keys && spec_keys_check (name, doc, err) < 0)
    {
      jv_free (doc);
      return NULL;
    }
  return doc;
}

struct jv *
policy_json_parse (const char *name, const char *buf, size_t len, bool spec_keys, kg_error_t *err)
{
  struct jv *obj = json_parse_strict (name, buf, len, spec_keys, err);

  if (obj != NULL && ! jv_is_type (obj, json_type_object))
    {
      kg_error (err, 0, "%s: the document is %s, not an object", name, jv_kind (obj));
      jv_free (obj);
      return NULL;
    }
  return obj;
}

struct jv *
policy_spec_parse (const char *name, const char *buf, size_t len, kg_error_t *err)
{
  struct jv *obj = policy_json_parse (name, buf, len, true, err), *ver = NULL;
  const char *v;

  if (obj == NULL)
    return NULL;
  jv_get_ex (obj, "ociVersion", &ver);
  if (ver == NULL || ! jv_is_type (ver, json_type_string))
    {
      kg_error (err, 0, "%s: ociVersion is %s", name, ver == NULL ? "missing" : jv_kind (ver));
      jv_free (obj);
      return NULL;
    }
  v = jv_string (ver);
  /* Only major version 1 exists; a 2.x spec may mean things this guard
     does not know to check. */
  if (strncmp (v, "1.", 2) != 0 || ! isdigit ((unsigned char) v[2]))
    {
      kg_error (err, 0, "%s: ociVersion \"%.32s\" is not 1.x", name, v);
      jv_free (obj);
      return NULL;
    }
  return obj;
}

/* ---- the engines' own records -------------------------------------- */

bool
policy_valid_id (const char *id)
{
  return id != NULL && *id != '\0' && strchr (id, '/') == NULL && strcmp (id, ".") != 0
         && strcmp (id, "..") != 0;
}

/* P below directory ROOT: what follows ROOT and its '/' in P, or NULL. */
const char *
path_below (const char *p, const char *root)
{
  const char *r = strcmp (root, "/") ? root : "";
  size_t rl = strlen (r);

  return strncmp (p, r, rl) == 0 && p[rl] == '/' ? p + rl + 1 : NULL;
}

/* An engine's own JSON file (its state, not the container's input): the
   document (an object, or with ARRAY an array), or NULL when it cannot be
   read as JSON. */
struct jv *
engine_json_of (const char *path, bool array)
{
  cleanup_error kg_error_t err = NULL;
  cleanup_free char *buf = NULL;
  struct jv *doc;
  size_t len;

  if (kg_read_file_bounded (path, O_NOFOLLOW, 4 << 20, &buf, &len, &err) < 0)
    return NULL;
  /* The engine's own format (Docker's config.v2.json has "State"), so
     not judged by the spec's field names; strict all the same. */
  if (! array)
    return policy_json_parse (path, buf, len, false, &err);
  doc = json_parse_strict (path, buf, len, false, &err);
  if (doc != NULL && ! jv_is_type (doc, json_type_array))
    {
      jv_free (doc);
      return NULL;
    }
  return doc;
}

struct jv *
engine_json (const char *path)
{
  return engine_json_of (path, false);
}

int
policy_committed_bound (const struct guard_config *cfg, int64_t *max, char *why, size_t size,
                        kg_error_t *err)
{
  int64_t total;

  if (cfg->policy.max_committed_memory_mib > 0)
    {
      *max = cfg->policy.max_committed_memory_mib;
      snprintf (why, size, "[policy] max_committed_memory_mib");
      return 0;
    }
  if (kg_mem_total_mib (&total, err) < 0)
    return -1;
  *max = total - cfg->policy.committed_memory_reserve_mib;
  snprintf (why, size,
            "this host's MemTotal %" PRId64 " MiB less committed_memory_reserve_mib %" PRId64,
            total, cfg->policy.committed_memory_reserve_mib);
  if (*max <= 0)
    return kg_error (err, 0, "%s leaves no memory for VMs", why);
  return 0;
}
