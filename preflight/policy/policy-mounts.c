/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * policy.mounts and the root filesystem: every mount of the spec against
 * the deny lists, the engines' own files a container may bind, and where
 * its rootfs is.
 * (policy-default.c: the family; policy.c, policy-facts.c: what the rules share.)
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <json-c/json.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "conf.h"
#include "mountinfo.h"
#include "policy.h"
#include "rundir.h"
#include "trust.h"

#include "array.h"
#include "buf.h"
#include "cleanup.h"
#include "error.h"
#include "fdio.h"
#include "policy-int.h"
#include "policy-mounts.h"
#include "policy-path.h"

/* Where an engine keeps the per-container files it binds writable into
   the container: ROOT/[DRIVER-]containers/ID/SUB/FILE. */
struct own_layout
{
  bool driver;     /* "<driver>-containers" (podman's graph driver) */
  const char *sub; /* "" or the directory below the container's */
  const char *const *files;
  size_t n_files;
};

/* redirectable () of many sources in one directory (Docker's and the
   kubelet's layouts) walks that directory once: once it is known that
   nobody but root can change what is in it, an entry below it that is
   not a symlink, or is not there, is judged; a symlink is walked. */
struct redirect_memo
{
  char dir[PATH_MAX]; /* the parent last judged, or "" */
  bool dir_ok;        /* it passed (as an existing or a missing directory) */
  bool dir_exists;
};

/* source_denied () of the bind sources that share a directory: when nothing
   denies the directory itself (no pattern above it, none in it, no
   refused name on the way), a path in it is denied only for its own
   last name (credential_component).  The directory is judged at its
   second source, so that sources in directories of their own cost
   nothing more. */
struct deny_memo
{
  char dir[PATH_MAX]; /* the directory of the last source judged, or "" */
  int clear;          /* 1: nothing denies it, -1: something does, 0: not judged */
};

enum bind_verdict
{
  BIND_REFUSED, /* a finding was made */
  BIND_NOT_RO,  /* a finding: writable outside writable_mounts, which read-only would pass */
  BIND_ENGINE,  /* a file the engine made for this container */
  BIND_READONLY,
  BIND_WRITABLE, /* under [policy] writable_mounts */
};
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
  /* Direct-assigned volumes' state (direct-volume/utils.go@3.30.0) and
     the VMs' shares: before /run, to be named for what it is. */
  { "/run/kata-containers", "Kata's runtime state (direct-assigned volumes, the VMs' shares)" },
  { "/var/run/kata-containers", "Kata's runtime state (direct-assigned volumes, the VMs' shares)" },
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

  /* Every name below begins with '.' or 'g', but the sockets', which
     are 11 bytes or more. */
  if (comp[0] != '.' && comp[0] != 'g' && len < 11)
    return NULL;
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

/* The length of the path component at S (up to a slash or the end):
   components are short, and strcspn's set-up costs more than the walk. */
static inline size_t
component_len (const char *s)
{
  size_t n = 0;

  while (s[n] != '\0' && s[n] != '/')
    n++;
  return n;
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
      len = component_len (p);
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

/* Whether C is special to fnmatch. */
static bool
glob_char (char c)
{
  return c == '*' || c == '?' || c == '[' || c == '\\';
}

/* True when the LEN bytes at S hold an fnmatch special character. */
static bool
has_glob (const char *s, size_t len)
{
  for (size_t i = 0; i < len; i++)
    if (glob_char (s[i]))
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
      /* Components whose first bytes differ differ, unless the pattern's
         starts with a special character (most patterns end here). */
      if (*a != *b && (literal || ! glob_char (*a)))
        return 0;
      la = component_len (a);
      if (la > NAME_MAX)
        return 0;
      if (literal || ! has_glob (a, la))
        {
          /* The same LA bytes (no NUL among A's: strncmp stops at P's
             end) and there P's component ends too. */
          if (strncmp (a, b, la) != 0 || (b[la] != '\0' && b[la] != '/'))
            return 0;
          lb = la;
        }
      else
        {
          char ca[NAME_MAX + 1], cb[NAME_MAX + 1];

          if ((lb = component_len (b)) > NAME_MAX)
            return 0;

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

void
dir_list_release (struct dir_list *d)
{
  for (size_t i = 0; i < d->n; i++)
    free (d->paths[i]);
  free (d->paths);
}

/* Both the lexical and the resolved form of every entry. */
int
dir_list_resolve (char *const *list, size_t n, struct dir_list *d, kg_error_t *err)
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

void
mount_dirs_release (struct mount_dirs *d)
{
  dir_list_release (&d->roots);
  dir_list_release (&d->podman);
  dir_list_release (&d->ctd);
  dir_list_release (&d->kubelet);
  dir_list_release (&d->extra);
  dir_list_release (&d->writable);
  dir_list_release (&d->guard_dirs);
  dir_list_release (&d->guard_files);
}

/* The guard's own directories and files, which no container may read
   (policy.mounts refuses them even read-only): the posture record holds
   the hashes, paths and proxy of the sandbox, the decision log every
   container's findings, the configuration all of it.  The directories
   whole; the files with their directories' other names kept out of it
   (a bind of /var/log is refused as containing the log, /var/log/pods is
   not), but for what is written beside a file under its name: the
   writer's temporary copy (".NAME..."), logrotate's "NAME.1". */
static int
guard_dirs_resolve (const struct guard_config *cfg, struct mount_dirs *d, kg_error_t *err)
{
  char *dirs[] = { (char *) KG_STATE_DIR, (char *) RUNDIR, (char *) KG_SYSCONFDIR "/kata-guard" };
  char *files[3];
  size_t n = 0;

  if (cfg->drift.record != NULL && cfg->drift.record[0] == '/')
    files[n++] = cfg->drift.record;
  if (cfg->log.file != NULL && cfg->log.file[0] == '/')
    files[n++] = cfg->log.file;
  if (cfg->path != NULL && cfg->path[0] == '/')
    files[n++] = cfg->path;
  if (dir_list_resolve (dirs, ARRAY_SIZE (dirs), &d->guard_dirs, err) < 0)
    return -1;
  return dir_list_resolve (files, n, &d->guard_files, err);
}

/* Whether P is a name written beside the guard's file F: in F's
   directory, F's name with something after it, or with a dot before. */
static bool
guard_sibling (const char *p, const char *f)
{
  const char *fs = strrchr (f, '/'), *ps = strrchr (p, '/'), *name;
  size_t dl = (size_t) (fs - f), fl;

  if (fs == NULL || ps == NULL || (size_t) (ps - p) != dl || strncmp (p, f, dl) != 0)
    return false;
  name = ps + 1;
  fl = strlen (fs + 1);
  if (name[0] == '.' && fs[1] != '.')
    name++;
  return fl > 0 && strncmp (name, fs + 1, fl) == 0;
}

int
mount_dirs_resolve (const struct guard_config *cfg, struct mount_dirs *d, kg_error_t *err)
{
  if (dir_list_resolve (cfg->policy.engine_roots, cfg->policy.n_engine_roots, &d->roots, err) < 0)
    return -1;
  d->roots_ok = true;
  if (dir_list_resolve (cfg->policy.podman_roots, cfg->policy.n_podman_roots, &d->podman, err) < 0
      || dir_list_resolve (cfg->policy.containerd_roots, cfg->policy.n_containerd_roots, &d->ctd,
                           err)
             < 0
      || dir_list_resolve (cfg->policy.kubelet_roots, cfg->policy.n_kubelet_roots, &d->kubelet, err)
             < 0
      || dir_list_resolve (cfg->policy.deny_mounts, cfg->policy.n_deny_mounts, &d->extra, err) < 0
      || dir_list_resolve (cfg->policy.writable_mounts, cfg->policy.n_writable_mounts, &d->writable,
                           err)
             < 0
      || guard_dirs_resolve (cfg, d, err) < 0)
    return -1;
  d->ok = true;
  return 0;
}

static bool
own_file (const char *p, const struct dir_list *roots, const char *id, const struct own_layout *l)
{
  size_t il, sl = strlen (l->sub);

  if (! policy_valid_id (id))
    return false;
  il = strlen (id);
  for (size_t i = 0; i < roots->n; i++)
    {
      const char *q = path_below (p, roots->paths[i]);

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
own_engine_file (const char *p, const struct dir_list *roots, const char *id)
{
  static const char *const files[] = { "resolv.conf", "hostname", "hosts", "mounts/shm" };
  static const struct own_layout docker = { false, "", files, ARRAY_SIZE (files) };

  return own_file (p, roots, id, &docker);
}

/* podman's own per-container files for this container:
   <root>/<driver>-containers/<id>/userdata/{hosts,hostname,resolv.conf,
   .containerenv,shm}, under its graph root or run root. */
static bool
own_podman_file (const char *p, const struct dir_list *roots, const char *id)
{
  static const char *const files[] = { "hosts", "hostname", "resolv.conf", ".containerenv", "shm" };
  static const struct own_layout podman = { true, "userdata/", files, ARRAY_SIZE (files) };

  return own_file (p, roots, id, &podman);
}

/* The path under one of ROOTS, or NULL. */
const char *
under_root (const char *p, const struct dir_list *roots)
{
  for (size_t i = 0; i < roots->n; i++)
    {
      const char *q = path_below (p, roots->paths[i]);

      if (q != NULL)
        return q - 1;
    }
  return NULL;
}

/* CRI's per-pod files of this container's pod, in containerd's root and
   state: <root>/io.containerd.grpc.v1.cri/sandboxes/<sandbox-id>/{hosts,
   hostname,resolv.conf,shm}. */
static enum own_file
own_cri_file (const struct policy_ctx *c, const char *p, const struct dir_list *roots)
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
enum own_file
kubelet_file (const struct policy_ctx *c, const char *p, const struct dir_list *roots)
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
  struct jv *doc, *state, *v;
  bool yes = false;

  if (asprintf (&path, "%s/containers/%s/config.v2.json", root, cid) < 0)
    return path = NULL, false;
  doc = engine_json (path);
  if (doc != NULL && jv_get_ex (doc, "State", &state) && jv_get_ex (state, "Running", &v)
      && jv_bool (v) && jv_get_ex (state, "Pid", &v) && jv_is_type (v, json_type_int)
      && jv_int64 (v) > 0 && (unsigned long) jv_int64 (v) == pid)
    yes = true;
  jv_free (doc);
  return yes;
}

/* Docker's per-container files of the container whose namespace this one
   joins (--network container:X binds X's resolv.conf, hostname and hosts;
   --ipc container:X its mounts/shm): <root>/containers/CID/FILE, where
   CID's recorded init process is the one whose namespace the spec names. */
static bool
joined_engine_file (const struct policy_ctx *c, const char *p, const struct dir_list *roots)
{
  static const struct
  {
    int ns;
    const char *file;
  } files[] = {
    { NS_NET, "resolv.conf" },
    { NS_NET, "hostname" },
    { NS_NET, "hosts" },
    { NS_IPC, "mounts/shm" },
  };

  for (size_t i = 0; i < roots->n; i++)
    {
      const char *q = path_below (p, roots->paths[i]), *slash;
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
volume_dir (const char *p, const struct dir_list *roots, char *out, size_t size)
{
  for (size_t i = 0; i < roots->n; i++)
    {
      const char *q = path_below (p, roots->paths[i]), *slash;

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
   system holds no host file), in the mount table (mountinfo.h): the local
   volume driver's volume-opt o=bind,device=/ mounts the host's / on the
   volume directory, which is otherwise a plain directory.  1 with the
   mount point and its type in WHAT, 0 none, -1 with why in WHAT when the
   table cannot be read (a line libmount cannot parse included). */
static int
mount_within (const char *dir, char *what, size_t size)
{
  struct libmnt_table *tb = mountinfo_read (MOUNTINFO, what, size);
  struct libmnt_iter *it = tb != NULL ? kg_mnt.new_iter (MNT_ITER_FORWARD) : NULL;
  struct libmnt_fs *fs;
  size_t dl = strlen (dir);
  int found = 0;

  if (it == NULL)
    {
      if (tb != NULL)
        {
          snprintf (what, size, "cannot read %s: %s", MOUNTINFO, strerror (ENOMEM));
          kg_mnt.unref_table (tb);
        }
      return -1;
    }
  while (found == 0 && kg_mnt.next_fs (tb, it, &fs) == 0)
    {
      const char *mp = kg_mnt.get_target (fs), *type = kg_mnt.get_fstype (fs);

      if (mp == NULL || strncmp (mp, dir, dl) != 0 || (mp[dl] != '\0' && mp[dl] != '/'))
        continue;
      if (type != NULL && strcmp (type, "tmpfs") == 0)
        continue;
      snprintf (what, size, "%s is a %s mount", mp, type ? type : "?");
      found = 1;
    }
  kg_mnt.free_iter (it);
  kg_mnt.unref_table (tb);
  return found;
}

static bool
engine_volume (const char *p, const struct dir_list *roots)
{
  char dir[PATH_MAX];

  return volume_dir (p, roots, dir, sizeof dir);
}

/* Why P may not be bound at all, or NULL. */
static const char *
source_denied (const char *p, const struct mount_dirs *d, const char **entry)
{
  const struct dir_list *roots = &d->roots, *extra = &d->extra;
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
        return m == 2 ? "contains"
                      : "the kubelet's state ([policy] kubelet_roots; not this pod's files)";
      }
  for (size_t i = 0; i < d->ctd.n; i++)
    if ((m = match_entry (d->ctd.paths[i], p, true)) != 0)
      {
        *entry = d->ctd.paths[i];
        return m == 2 ? "contains"
                      : "containerd's state ([policy] containerd_roots; not this pod's files)";
      }
  for (size_t i = 0; i < d->podman.n; i++)
    if ((m = match_entry (d->podman.paths[i], p, true)) != 0)
      {
        *entry = d->podman.paths[i];
        return m == 2 ? "contains"
                      : "podman's storage ([policy] podman_roots; not this container's files)";
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
  for (size_t i = 0; i < d->guard_dirs.n; i++)
    if ((m = match_entry (d->guard_dirs.paths[i], p, true)) != 0)
      {
        *entry = d->guard_dirs.paths[i];
        return m == 1 ? "kata-guard's own state" : "contains";
      }
  for (size_t i = 0; i < d->guard_files.n; i++)
    if ((m = match_entry (d->guard_files.paths[i], p, true)) != 0
        || guard_sibling (p, d->guard_files.paths[i]))
      {
        *entry = d->guard_files.paths[i];
        return m == 2 ? "contains" : "kata-guard's own file (its record, log or configuration)";
      }
  return NULL;
}

/* denied (P) through M (policy-int.h).  A pattern matches no path in a
   directory that it matches no part of: match_entry walks the two
   component by component, so a pattern that covers D/NAME, or that
   D/NAME holds, covers D or is held by it. */
static const char *
source_denied_memo (struct deny_memo *m, const char *p, const struct mount_dirs *d,
                    const char **entry)
{
  const char *slash = strrchr (p, '/'), *last;
  size_t dl;

  if (p[0] != '/' || slash == p || slash[1] == '\0' || (dl = (size_t) (slash - p)) >= sizeof m->dir)
    return source_denied (p, d, entry);
  if (strncmp (m->dir, p, dl) != 0 || m->dir[dl] != '\0')
    {
      memcpy (m->dir, p, dl);
      m->dir[dl] = '\0';
      m->clear = 0;
      return source_denied (p, d, entry);
    }
  if (m->clear == 0)
    {
      const char *e;

      m->clear = source_denied (m->dir, d, &e) == NULL ? 1 : -1;
    }
  if (m->clear < 0)
    return source_denied (p, d, entry);
  *entry = NULL;
  for (last = slash; last > p && last[-1] != '/'; last--)
    ;
  return credential_component (slash + 1, strlen (slash + 1), last, (size_t) (slash - last));
}

/* A directory bound whole brings what is in it: look one level down for
   the names the deny list refuses anywhere. */
static const char *
contains_credentials (const char *p)
{
  static const char *const names[] = { ".ssh",    ".aws",        ".kube",
                                       ".docker", ".gnupg",      ".config/gcloud",
                                       ".env",    "docker.sock", "containerd.sock" };
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
          snprintf (why, size,
                    "others could swap it for another path before the runtime "
                    "mounts it (%s)",
                    err->msg);
          return why;
        }
      slash[slash == p] = '\0'; /* "/x" -> "/" */
      final = TRUST_DIR;
    }
}

static const char *
redirectable (const char *path, char *why, size_t size)
{
  return redirectable_as (path, TRUST_ANY, why, size);
}

/* redirectable (PATH) through M, the memo of PATH's directory, judged
   once for the sources that share it: PATH itself then needs only its own
   lstat, or none when PLAIN (its lstat is known: it fails with ENOENT, or
   finds no symlink). */
static const char *
redirectable_memo (struct redirect_memo *m, const char *path, bool plain, char *why, size_t size)
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
  if (! m->dir_exists || plain)
    return NULL;
  if (lstat (path, &st) < 0 ? errno == ENOENT : ! S_ISLNK (st.st_mode))
    return NULL;
  return redirectable (path, why, size);
}

/* Whether "rro" without "ro" is read-only.  An OCI runtime that lists it
   in its features (the real one answers kata-guard's `features`) applies
   it, and only then do Docker 25 and later write it alone.  Kata's shim
   (3.30) ignores it, and shares such a source read-write: behind the shim
   and in `kata-guard check`, which cannot tell, it takes "ro" as well. */

static bool
rro_alone_counts (const struct policy_ctx *c)
{
  return c->pf->req->mode == KG_MODE_OCI;
}

static const char *const virtual_fs[] = {
  "proc", "sysfs", "tmpfs", "devpts", "mqueue", "cgroup", "cgroup2",
};

/* (policy-int.h) Each option is looked up in one table of the words. */
unsigned
mount_option_words (struct jv *opts, const char *s, struct policy_findings *f)
{
  static const struct
  {
    const char *word;
    unsigned bit;
  } words[] = {
    { "ro", OPT_RO },         { "rw", OPT_RW },          { "rro", OPT_RRO },
    { "rrw", OPT_RRW },       { "bind", OPT_BIND },      { "rbind", OPT_BIND },
    { "shared", OPT_SHARED }, { "rshared", OPT_SHARED }, { "idmap", OPT_IDMAP },
    { "ridmap", OPT_IDMAP },
  };
  unsigned w = 0;

  for (size_t j = 0; j < jv_length (opts); j++)
    {
      struct jv *o = jv_at (opts, j);
      const char *os;

      if (! jv_is_type (o, json_type_string))
        {
          if (f != NULL)
            policy_finding (f, "mount %s: option %zu is %s, not a string", s, j, jv_kind (o));
          continue;
        }
      os = jv_string (o);
      for (size_t k = 0; k < ARRAY_SIZE (words); k++)
        if (strcmp (os, words[k].word) == 0)
          {
            w |= words[k].bit;
            break;
          }
    }
  return w;
}

/* What a mount's options (OPTS, of the mount of source S) say as the
   runtime reads them: *BIND for bind/rbind, *RO when the mount ends up
   read-only, *RRO when "rro" was there at all (for the message).  "rro"
   is what Docker 25 and later and containerd 2's CRI write when the
   runtime lists it (mount_setattr(2) with AT_RECURSIVE, after the mount). */
static void
mount_options (const struct policy_ctx *c, struct jv *opts, const char *s,
               struct policy_findings *f, bool *bind, bool *ro, bool *rro)
{
  unsigned w = mount_option_words (opts, s, f);

  if (w & OPT_BIND)
    *bind = true;
  *rro = (w & OPT_RRO) != 0;
  /* "ro" then "rw" is writable to runc (the last one wins): either
     one next to "rw" is not read-only.  The recursive change is made
     after the mount, so "rro" wins over "rw" and "rrw" over "ro";
     "rro" next to "rrw" is, like "ro" next to "rw", not read-only. */
  *ro = ((w & OPT_RO) && ! (w & (OPT_RW | OPT_RRW)))
        || (*rro && ! (w & OPT_RRW) && rro_alone_counts (c));
}

/* When RES is one of this container's own engine files, DIR/containers/
   ID/FILE (Docker's resolv.conf, hostname, hosts), under a DIR that is
   not in [policy] engine_roots: note DIR in F, so that the remedy names
   engine_roots, not writable_mounts (which would open the engine's whole
   state to every container). */
static void
note_engine_root (const struct policy_ctx *c, const char *res, struct policy_findings *f)
{
  const char *id = c->pf->req->container_id, *p;
  size_t il;

  if (f->engine_root != NULL || id == NULL || (il = strlen (id)) == 0)
    return;
  for (p = strstr (res, "/containers/"); p != NULL; p = strstr (p + 1, "/containers/"))
    if (strncmp (p + 12, id, il) == 0 && p[12 + il] == '/' && strchr (p + 13 + il, '/') == NULL
        && p > res
        && (strcmp (p + 13 + il, "resolv.conf") == 0 || strcmp (p + 13 + il, "hostname") == 0
            || strcmp (p + 13 + il, "hosts") == 0))
      {
        /* Only a directory that is Docker's record of this container (a
           spec's author cannot write one), so that no spec can make the
           remedy name a directory of its choosing. */
        cleanup_free char *rec = NULL;
        struct stat st;

        if (asprintf (&rec, "%.*s/config.v2.json", (int) (p + 12 + il - res), res) < 0)
          return;
        if (lstat (rec, &st) == 0 && S_ISREG (st.st_mode) && st.st_uid == 0)
          f->engine_root = strndup (res, (size_t) (p - res));
        return;
      }
}

/* ---- what Kata attaches (policy.mounts) ------------------------------- */

/* Where kata-runtime direct-volume add (and a CSI driver) records a
   direct-assigned volume: DIR/<base64url (source)>/mountInfo.json
   (kataDirectVolumeRootPath, direct-volume/utils.go@3.30.0, 4.1.0;
   DEFAULT_KATA_DIRECT_VOLUME_ROOT_PATH, kata-types mount.rs@4.1.0). */
#define KATA_DIRECT_VOLUMES "/run/kata-containers/shared/direct-volumes"

/* S base64url-encoded with padding, as Go's base64.URLEncoding and
   Rust's URL_SAFE write it, in OUT; false when it does not fit. */
static bool
base64url (const char *s, char *out, size_t size)
{
  static const char abc[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  size_t n = strlen (s), o = 0;

  if ((n + 2) / 3 * 4 >= size)
    return false;
  for (size_t i = 0; i < n; i += 3)
    {
      unsigned v = (unsigned) (unsigned char) s[i] << 16;

      v |= i + 1 < n ? (unsigned) (unsigned char) s[i + 1] << 8 : 0;
      v |= i + 2 < n ? (unsigned) (unsigned char) s[i + 2] : 0;
      out[o++] = abc[v >> 18 & 63];
      out[o++] = abc[v >> 12 & 63];
      out[o++] = i + 1 < n ? abc[v >> 6 & 63] : '=';
      out[o++] = i + 2 < n ? abc[v & 63] : '=';
    }
  out[o] = '\0';
  return true;
}

/* Whether a direct-assigned volume is recorded for source S (or cannot
   be told): Kata then attaches the recorded device to the VM instead of
   sharing S, writable unless the record says "ro" (createBlockDevices,
   container.go@3.30.0; is_direct_volume, handle_direct_volume,
   direct_volume.rs@4.1.0).  The record's directory in DIR. */
static bool
direct_volume (const char *s, char *dir, size_t size)
{
  char enc[NAME_MAX + 1];
  struct stat st;

  /* (A longer name is one Kata's own stat fails on: no record.) */
  if (! base64url (s, enc, sizeof enc))
    return false;
  snprintf (dir, size, "%s/%s", KATA_DIRECT_VOLUMES, enc);
  return lstat (dir, &st) == 0 || errno != ENOENT;
}

/* Whether the file system that holds a source (of device DEV) is a loop
   device whose backing file Kata attaches to the VM as an NVDIMM: one
   with the PFN signature (PmemDeviceInfo, hasPFNSignature, pmem.go;
   getBackingFile, config.go: pkg/device/config@3.30.0), or one the guard
   cannot read.  The backing file in FILE. */
static bool
pmem_backing (dev_t dev, char *file, size_t size)
{
  static const char sig[] = "NVDIMM_PFN_INFO";
  cleanup_error kg_error_t err = NULL;
  cleanup_free char *path = NULL;
  cleanup_free char *text = NULL;
  char got[sizeof sig - 1];
  size_t len;
  ssize_t r;
  int fd;

  if (asprintf (&path, "/sys/dev/block/%u:%u/loop/backing_file", major (dev), minor (dev)) < 0)
    {
      path = NULL;
      snprintf (file, size, "?");
      return true;
    }
  if (access (path, F_OK) != 0 && errno == ENOENT)
    return false;
  if (kg_read_file_bounded (path, O_NOFOLLOW, PATH_MAX, &text, &len, &err) < 0)
    {
      snprintf (file, size, "%s cannot be read", path);
      return true;
    }
  while (len > 0 && (text[len - 1] == '\n' || text[len - 1] == ' '))
    text[--len] = '\0';
  snprintf (file, size, "%s", text);
  fd = open (text, O_RDONLY | O_CLOEXEC | O_NOCTTY);
  if (fd < 0)
    return true;
  /* (4 KiB in: pfnSignatureOffset.  A shorter file is no NVDIMM.) */
  r = pread (fd, got, sizeof got, 4096);
  close (fd);
  return r < 0 || (r == (ssize_t) sizeof got && memcmp (got, sig, sizeof got) == 0);
}

/* Why Kata would attach source S (as written; LEX and RES its lexical
   and resolved forms, ST the resolved one's stat when EXISTS) to the VM
   as a device rather than share it, in WHY; NULL when it would not. */
static const char *
kata_attaches (const char *s, const char *lex, const char *res, bool exists, const struct stat *st,
               char *why, size_t size)
{
  char where[PATH_MAX];

  if (direct_volume (s, where, sizeof where) || direct_volume (lex, where, sizeof where)
      || direct_volume (res, where, sizeof where))
    {
      snprintf (why, size,
                "a direct-assigned volume (%.*s): Kata attaches the device recorded there to the "
                "VM instead of sharing the path",
                (int) (size > 128 ? size - 128 : 0), where);
      return why;
    }
  if (exists && S_ISBLK (st->st_mode))
    {
      snprintf (why, size,
                "a block device (Kata hot-plugs it into the VM, writable unless \"ro\")");
      return why;
    }
  if (exists && pmem_backing (st->st_dev, where, sizeof where))
    {
      snprintf (why, size,
                "on a loop device whose backing file (%.*s) Kata attaches to the VM as an NVDIMM, "
                "writable",
                (int) (size > 128 ? size - 128 : 0), where);
      return why;
    }
  return NULL;
}

/* One bind mount of source S (as written), read-only or not (RO; RRO:
   "rro" was among its options). */
static enum bind_verdict
judge_bind (const struct policy_ctx *c, const struct mount_dirs *d, struct resolve_memo *memo,
            struct redirect_memo *rmemo, struct deny_memo *dmemo, const char *s, bool ro, bool rro,
            struct policy_findings *f)
{
  cleanup_error kg_error_t err = NULL;
  cleanup_free char *lex = NULL;
  cleanup_free char *res = NULL;
  const char *why = NULL, *entry;
  char rwhy[PATH_MAX + 128];
  struct resolved_info ri;
  bool under = false, plain;
  enum own_file own;

  if (policy_path_resolve (c->bundle, s, false, &lex, &err) < 0
      || resolve_memo (memo, c->bundle, s, &res, &ri, &err) < 0)
    {
      policy_finding (f, "%s: %s", s, err->msg);
      return BIND_REFUSED;
    }
  /* What the resolution saw of the source spares a second look: a
     source that does not exist holds nothing and is no socket, and where
     nothing on the way was a symlink (RES is LEX), the lstat of its name
     is the one redirectable_memo would make. */
  plain = (ri.have_st || ri.absent) && strcmp (lex, res) == 0;
  if (! ri.have_st)
    {
      ri.have_st = ri.exists && stat (res, &ri.st) == 0;
      ri.exists = ri.have_st;
    }
  /* Before the engine's own files: Kata attaches a device whoever's path
     names it. */
  if (kata_attaches (s, lex, res, ri.exists, &ri.st, rwhy, sizeof rwhy) != NULL)
    {
      policy_finding (f, "%s: %s", s, rwhy);
      return BIND_REFUSED;
    }
  own = own_cri_file (c, res, &d->ctd);
  if (own == OWN_NOT)
    own = kubelet_file (c, res, &d->kubelet);
  if (own == OWN_READONLY && ! ro)
    {
      policy_finding (f, "%s: writable, but the kubelet binds it read-only", s);
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
          policy_finding (f, "%s: a volume that is a mount of something else (%s)", s, what);
          return BIND_REFUSED;
        }
    }
  else
    {
      why = source_denied_memo (dmemo, lex, d, &entry);
      if (why == NULL && strcmp (lex, res) != 0)
        why = source_denied_memo (dmemo, res, d, &entry);
    }
  if (why != NULL)
    {
      if (strcmp (why, "contains") == 0)
        policy_finding (f, "%s%s%s: contains %s", s, strcmp (s, res) ? " -> " : "",
                        strcmp (s, res) ? res : "", entry);
      else
        policy_finding (f, "%s%s%s: %s", s, strcmp (s, res) ? " -> " : "",
                        strcmp (s, res) ? res : "", why);
      return BIND_REFUSED;
    }
  if (ri.exists && S_ISDIR (ri.st.st_mode) && (why = contains_credentials (res)) != NULL)
    {
      policy_finding (f, "%s: contains %s", s, why);
      return BIND_REFUSED;
    }
  if (redirectable_memo (rmemo, lex, plain, rwhy, sizeof rwhy) != NULL)
    {
      policy_finding (f, "%s: %s", s, rwhy);
      return BIND_REFUSED;
    }
  for (size_t j = 0; j < d->writable.n; j++)
    if (path_under (res, d->writable.paths[j]))
      under = true;
  /* "ro" does not stop connect (2): a bound socket is a line into a
     host service whatever the options say. */
  if (! under && ri.exists && S_ISSOCK (ri.st.st_mode))
    {
      policy_finding (f, "%s: a host socket (read-only does not stop connecting to it)", s);
      return BIND_REFUSED;
    }
  if (ro)
    return BIND_READONLY;
  if (under)
    return BIND_WRITABLE;
  policy_finding (f, "%s%s%s: writable bind mount outside [policy] writable_mounts%s", s,
                  strcmp (s, res) ? " -> " : "", strcmp (s, res) ? res : "",
                  rro ? " (\"rro\" without \"ro\": Kata's shim ignores rro)" : "");
  note_engine_root (c, res, f);
  return BIND_NOT_RO;
}

/* ---- Kata's own options and types (policy.mounts) --------------------- */

/* The io.katacontainers options either runtime reads from a mount, and
   what it does with each.  None is harmless in a spec: every option with
   "io.katacontainers" in it, in any case, is refused, known or not. */
static const struct
{
  const char *option;
  bool prefix; /* OPTION is the start of the option, not all of it */
  const char *what;
} kata_option_table[] = {
  { "io.katacontainers.fs-opt.block_device=file", false,
    "Kata hot-plugs the source, a regular file or a block device, into the VM as a disk, "
    "writable unless \"ro\", whatever the mount's type (createBlockDevices, createDeviceInfo: "
    "container.go@3.30.0, 4.1.0)" },
  { "io.katacontainers.fs-opt.is-layer", false,
    "Kata drops the mount from the container and makes the device of its source a layer of "
    "the rootfs (removeIgnoredOCIMount, handleBlkOCIMounts: kata_agent.go@3.30.0, 4.1.0)" },
  { "io.katacontainers.fs-opt.layer=", true,
    "a rootfs layer: Kata makes a mount of the host path it names (copyLayersToMounts, "
    "containerd-shim-v2/create.go@3.30.0, 4.1.0)" },
  { "io.katacontainers.volume=", true,
    "a virtual volume: Kata attaches the device it describes (createVirtualVolumeDevices, "
    "container.go; handleVirtualVolume, fs_share_linux.go@3.30.0; KATA_VIRTUAL_VOLUME_PREFIX, "
    "kata-types mount.rs@4.1.0)" },
  { "io.katacontainers.volume.overlayfs.create_directory", true,
    "a storage option of Kata's own (handleVirtualVolume, fs_share_linux.go@3.30.0; "
    "KATA_VOLUME_OVERLAYFS_CREATE_DIR, kata-types mount.rs@4.1.0)" },
  { "io.katacontainers.fs-opt.overlay-rw", false,
    "a storage option of Kata's agent (fs_handler.rs@4.1.0)" },
};

/* Each io.katacontainers option of mount I (on DST) refused in F: how
   many there were. */
static size_t
kata_options (struct jv *opts, size_t i, const char *dst, struct policy_findings *f)
{
  size_t n = 0;

  for (size_t j = 0; j < jv_length (opts); j++)
    {
      struct jv *o = jv_at (opts, j);
      const char *os, *what = NULL;

      if (! jv_is_type (o, json_type_string)
          || strcasestr (os = jv_string (o), "io.katacontainers") == NULL)
        continue;
      for (size_t k = 0; k < ARRAY_SIZE (kata_option_table) && what == NULL; k++)
        if (kata_option_table[k].prefix
                ? strncmp (os, kata_option_table[k].option, strlen (kata_option_table[k].option))
                      == 0
                : strcmp (os, kata_option_table[k].option) == 0)
          what = kata_option_table[k].what;
      policy_finding (
          f, "mounts[%zu] on %s: option \"%s\": %s", i, dst, os,
          what ? what
               : "an io.katacontainers option kata-guard does not know (Kata reads its own "
                 "options from a mount, annotations.go@3.30.0: kata-guard refuses every "
                 "one it cannot tell harmless)");
      n++;
    }
  return n;
}

/* What Kata makes of a mount of type T beyond the type, or NULL. */
static const char *
kata_type (const char *t)
{
  static const struct
  {
    const char *type, *what;
  } types[] = {
    { "ephemeral", "Kata stats the source and puts a tmpfs of the VM's in its stead "
                   "(handleEphemeralStorage, kata_agent.go@3.30.0; ephemeral_volume.rs@4.1.0)" },
    { "local", "Kata stats the source and makes a directory of the VM's, or a hugetlbfs where "
               "the source is one (handleLocalStorage, handleHugepages: kata_agent.go@3.30.0)" },
    { "directvol", "runtime-rs attaches the device that the source's direct-assigned volume "
                   "names (is_direct_volume, direct_volume.rs@4.1.0)" },
    { "vfiovol", "runtime-rs passes the VFIO device that the source's direct-assigned volume "
                 "names to the VM (is_direct_volume, direct_volume.rs@4.1.0)" },
    { "spdkvol", "runtime-rs attaches the SPDK disk that the source's direct-assigned volume "
                 "names (is_direct_volume, direct_volume.rs@4.1.0)" },
    { "spoolvol", "runtime-rs attaches the SPDK disk that the source's direct-assigned volume "
                  "names (is_direct_volume, direct_volume.rs@4.1.0)" },
  };

  for (size_t k = 0; k < ARRAY_SIZE (types); k++)
    if (strcmp (t, types[k].type) == 0)
      return types[k].what;
  if (strncmp (t, "kata:", 5) == 0)
    return "a volume type of Kata's own (KATA_VOLUME_TYPE_PREFIX, kata-types mount.rs@4.1.0), "
           "which kata-guard cannot judge";
  return NULL;
}

/* Whether Kata reads source S as a Kubernetes emptyDir whatever the
   mount's type: it stats it, makes it a type of its own, and with
   emptydir_mode "block-encrypted" writes a disk image in it and attaches
   that (Isk8sHostEmptyDir, mount.go; SetEphemeralStorageType,
   katautils/create.go; createEphemeralDisks, container.go@3.30.0;
   need_local_volume, volume/mod.rs; is_disk_empty_dir, k8s.rs@4.1.0). */
static bool
k8s_empty_dir (const char *s)
{
  return strstr (s, "kubernetes.io~empty-dir") != NULL;
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
docker_rootfs (const struct policy_ctx *c, const char *res)
{
  cleanup_error kg_error_t err = NULL;
  cleanup_free char *path = NULL;
  cleanup_free char *mid = NULL;
  const char *id = c->pf->req->container_id, *q, *slash;
  char driver[64];
  size_t dl, len;

  if (! docker_start (c) || (q = path_below (res, c->who.docker_root)) == NULL)
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
podman_rootfs (const struct policy_ctx *c, const char *res)
{
  const struct policy_who *w = &c->who;

  if ((w->engine != ENGINE_PODMAN && w->engine != ENGINE_CRIO) || w->layer[0] == '\0')
    return false;
  for (size_t i = 0; i < c->dirs->podman.n; i += 2)
    {
      const char *q = path_below (res, c->dirs->podman.paths[i | 1]);

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
judge_rootfs (const struct policy_ctx *c, struct resolve_memo *memo, struct redirect_memo *rmemo,
              struct deny_memo *dmemo, struct policy_findings *f, const char **how)
{
  cleanup_policy_findings struct policy_findings sub = { 0 };
  cleanup_error kg_error_t err = NULL;
  cleanup_free char *res = NULL;
  cleanup_free char *own = NULL;
  struct jv *root, *path;
  struct resolved_info ri;
  const char *s;

  *how = NULL;
  root = policy_jget_type (c->spec, "spec", "root", json_type_object, f);
  path = policy_jget_type (root, "root", "path", json_type_string, f);
  /* (root.readonly is judged for its type alone: see below.) */
  policy_jget_type (root, "root", "readonly", json_type_boolean, f);
  s = path ? jv_string (path) : "";
  if (*s == '\0')
    {
      policy_finding (f, "the spec names no root filesystem (root.path)");
      return;
    }
  if (resolve_memo (memo, c->bundle, s, &res, &ri, &err) < 0)
    {
      policy_finding (f, "root.path %s: %s", s, err->msg);
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
  switch (judge_bind (c, c->dirs, memo, rmemo, dmemo, s, false, false, &sub))
    {
    case BIND_REFUSED:
    case BIND_NOT_RO:
      policy_finding (f, "root.path %s", sb_str (&sub.text));
      return;
    case BIND_ENGINE:
      policy_finding (f, "root.path %s: an engine's file of the container, not a root filesystem",
                      s);
      return;
    case BIND_READONLY: /* (not for a writable source) */
    case BIND_WRITABLE:
      *how = "a directory under [policy] writable_mounts";
      return;
    }
}

void
check_mounts (const struct policy_ctx *c)
{
  cleanup_policy_findings struct policy_findings f = { 0 };
  cleanup_resolve_memo struct resolve_memo memo = { 0 };
  struct redirect_memo rmemo = { "", false, false };
  struct deny_memo dmemo = { "", 0 };
  struct jv *mounts;
  size_t n_bind = 0, n_ro = 0, n_engine = 0, n_not_ro = 0;
  const char *rootfs;

  if (! c->dirs->ok)
    {
      rule_fail (c, "fix the paths in [policy]", "cannot resolve a [policy] path: %s",
                 c->dirs_err->msg);
      return;
    }
  judge_rootfs (c, &memo, &rmemo, &dmemo, &f, &rootfs);
  mounts = policy_jget_type (c->spec, "spec", "mounts", json_type_array, &f);
  for (size_t i = 0; mounts != NULL && i < jv_length (mounts); i++)
    {
      struct jv *m = jv_at (mounts, i);
      struct jv *type, *src, *opts, *dst;
      const char *t, *s, *d, *what;
      bool bind = false, ro, rro, known = false;
      size_t n_kata;

      if (! jv_is_type (m, json_type_object))
        {
          policy_finding (&f, "mounts[%zu] is %s, not an object", i, jv_kind (m));
          continue;
        }
      type = policy_jget_type (m, "mount", "type", json_type_string, &f);
      src = policy_jget_type (m, "mount", "source", json_type_string, &f);
      opts = policy_jget_type (m, "mount", "options", json_type_array, &f);
      t = type ? jv_string (type) : "";
      s = src ? jv_string (src) : "";
      mount_options (c, opts, s, &f, &bind, &ro, &rro);
      if (strcmp (t, "bind") == 0)
        bind = true;
      dst = policy_jget (m, "mount", "destination", &f);
      d = dst && jv_is_type (dst, json_type_string) ? jv_string (dst) : "?";
      n_kata = kata_options (opts, i, d, &f);
      if (! bind && (what = kata_type (t)) != NULL)
        {
          policy_finding (&f, "mounts[%zu] of %s type \"%s\" on %s: %s", i, s, t, d, what);
          continue;
        }
      /* Any other type is a file system of the VM's, its source no path
         of the host's, unless Kata reads the source anyway: an
         io.katacontainers option, or an emptyDir's path.  Such a source
         is judged as a bind's. */
      if (! bind && n_kata == 0 && ! k8s_empty_dir (s))
        {
          for (size_t j = 0; j < ARRAY_SIZE (virtual_fs); j++)
            if (strcmp (t, virtual_fs[j]) == 0)
              known = true;
          if (! known)
            policy_finding (&f,
                            "mount of %s type \"%s\" on %s: neither a bind mount nor a virtual "
                            "filesystem kata-guard knows",
                            s, t, d);
          continue;
        }
      n_bind++;
      if (src == NULL || *s == '\0')
        {
          policy_finding (&f, "bind mount %zu has no source", i);
          continue;
        }
      switch (judge_bind (c, c->dirs, &memo, &rmemo, &dmemo, s, ro, rro, &f))
        {
        case BIND_ENGINE:
          n_engine++;
          break;
        case BIND_READONLY:
          n_ro++;
          break;
        case BIND_NOT_RO:
          n_not_ro++;
          break;
        case BIND_WRITABLE:
        case BIND_REFUSED:
          break;
        }
    }
  if (f.n > 0 && f.engine_root != NULL)
    {
      cleanup_free char *remedy = NULL;

      if (asprintf (&remedy,
                    "this container's own engine files are under %s, which [policy] "
                    "engine_roots does not list: add the engine's data root there (never to "
                    "writable_mounts, which would open it to every container)",
                    f.engine_root)
          < 0)
        remedy = NULL;
      rule_fail (c, remedy ? remedy : "add the engine's data root to [policy] engine_roots", "%s",
                 sb_str (&f.text));
    }
  else if (f.n > 0)
    {
      /* Read-only is named only for what it would let through: a bind
         refused whatever its options (a socket, engine state) is not told
         to add ":ro", nor one that has it. */
      char remedy[512];
      const char *ro = engine_words (&c->who, ASK_READONLY);

      if (n_not_ro == 0)
        snprintf (remedy, sizeof remedy,
                  "do not bind engine sockets, engine state, credentials or system directories "
                  "into the container (read-only does not make them safe)");
      else if (n_not_ro == f.n)
        snprintf (remedy, sizeof remedy,
                  "bind it read-only (%s), or from a directory listed in [policy] "
                  "writable_mounts",
                  ro);
      else
        snprintf (remedy, sizeof remedy,
                  "do not bind engine sockets, engine state, credentials or system directories "
                  "into the container; bind data read-only (%s) or from a directory listed in "
                  "[policy] writable_mounts",
                  ro);
      rule_fail (c, remedy, "%s", sb_str (&f.text));
    }
  else
    rule_pass (c,
               "%zu bind mount%s: %zu read-only, %zu this container's engine file%s, %zu "
               "under [policy] writable_mounts; the rootfs is %s",
               n_bind, n_bind == 1 ? "" : "s", n_ro, n_engine, n_engine == 1 ? "" : "s",
               n_bind - n_ro - n_engine, rootfs);
}
