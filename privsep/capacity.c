/* SPDX-License-Identifier: GPL-2.0-or-later */
/* policy.capacity: the memory committed to guarded VMs (capacity.h). */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stddef.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysinfo.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "capacity.h"
#include "cleanup.h"
#include "error.h"
#include "fdio.h"
#include "policy.h"
#include "proc.h"
#include "record.h"
#include "rundir.h"

#define CAP_SUB "capacity"
#define CAP_DIR RUNDIR "/" CAP_SUB
#define CAP_MAGIC "kata-guard capacity record 1"
#define CAP_LOCK "lock"
#define CAP_MAX (64 * 1024)
#define CAP_MEMBERS_MAX 256
/* A --pid-file not written this long after the record: the create failed. */
#define CAP_CREATE_GRACE_S 120
#define CAP_REMEDY                                                                                 \
  "wait for a guarded VM to end, or raise [policy] max_committed_memory_mib; see "                 \
  "kata-guard(8), CAPACITY"

/* A pod member that hot-plugs memory into its sandbox's VM. */
struct cap_member
{
  char *id, *bundle;
  dev_t dev;
  ino_t ino;
  int64_t add;
};

/* One record: a VM, what it commits, and how to tell it is alive. */
struct cap_record
{
  char name[RECORD_NAME_SIZE];
  char *mode, *scope, *id, *bundle, *pid_file;
  dev_t dev;
  ino_t ino;
  int64_t when;            /* written, seconds of CLOCK_REALTIME */
  int64_t mem, base, peak; /* the VM's size, the runtime's default, its members' highest */
  struct cap_member *m;
  size_t n_m;
  char *text; /* the file's text, which the strings above point into */
};

static void
cap_record_release (struct cap_record *r)
{
  free (r->m);
  free (r->text);
  memset (r, 0, sizeof *r);
}

/* What the pod or VM of R commits: its size, or more when its members
   plugged more into it. */
static int64_t
committed (const struct cap_record *r)
{
  return r->peak > r->mem ? r->peak : r->mem;
}

/* The fields before the members: mode, scope, id, bundle, its device
   and inode, pid file, when, the sizes, how many members; then three a
   member: id, bundle, its device, inode and add. */
#define CAP_HEAD 9
#define CAP_LINES (CAP_HEAD + 3 * CAP_MEMBERS_MAX)

/* Parse TEXT, LEN bytes (taken over, released with R even on failure),
   into R: the record-line format (record.h). */
static int
cap_record_parse (char *text, size_t len, const char *name, struct cap_record *r, kg_error_t *err)
{
  char *l[CAP_LINES];
  uint64_t v[3], n = 0;
  size_t got;
  bool ok;

  memset (r, 0, sizeof *r);
  r->text = text;
  snprintf (r->name, sizeof r->name, "%s", name);
  ok = record_lines (text, len, CAP_MAGIC, l, CAP_LINES, &got) && got >= CAP_HEAD
       && record_numbers (l[8], &n, 1) && n <= CAP_MEMBERS_MAX && got == CAP_HEAD + 3 * n;
  if (ok)
    {
      r->mode = l[0];
      r->scope = l[1];
      r->id = l[2];
      r->bundle = l[3];
      r->pid_file = l[5];
      ok = record_numbers (l[4], v, 2);
      r->dev = (dev_t) v[0];
      r->ino = (ino_t) v[1];
      ok = ok && record_numbers (l[6], v, 1) && v[0] <= INT64_MAX;
      r->when = (int64_t) v[0];
      ok = ok && record_numbers (l[7], v, 3) && v[0] <= INT64_MAX && v[1] <= INT64_MAX
           && v[2] <= INT64_MAX;
      r->mem = (int64_t) v[0];
      r->base = (int64_t) v[1];
      r->peak = (int64_t) v[2];
      ok = ok && r->bundle[0] == '/' && (r->pid_file[0] == '\0' || r->pid_file[0] == '/');
    }
  if (ok && n > 0 && (r->m = calloc ((size_t) n, sizeof *r->m)) == NULL)
    return kg_error (err, ENOMEM, "%s/%s: cannot allocate", CAP_DIR, name);
  for (size_t i = 0; ok && i < n; i++)
    {
      struct cap_member *m = &r->m[r->n_m++];
      char **f = &l[CAP_HEAD + 3 * i];

      m->id = f[0];
      m->bundle = f[1];
      ok = m->bundle[0] == '/' && record_numbers (f[2], v, 3) && v[2] <= INT64_MAX;
      m->dev = (dev_t) v[0];
      m->ino = (ino_t) v[1];
      m->add = (int64_t) v[2];
    }
  if (! ok)
    return kg_error (err, 0, "%s/%s: not a capacity record", CAP_DIR, name);
  return 0;
}

/* R as a record's text, into *TEXT and *LEN. */
static int
cap_record_format (const struct cap_record *r, char **text, size_t *len, kg_error_t *err)
{
  struct record_out o;

  record_out_start (&o, CAP_MAGIC);
  record_put (&o, r->mode);
  record_put (&o, r->scope);
  record_put (&o, r->id);
  record_put (&o, r->bundle);
  record_put_numbers (&o, (uint64_t[]){ r->dev, r->ino }, 2);
  record_put (&o, r->pid_file);
  record_put_numbers (&o, (uint64_t[]){ (uint64_t) r->when }, 1);
  record_put_numbers (&o, (uint64_t[]){ (uint64_t) r->mem, (uint64_t) r->base, (uint64_t) r->peak },
                      3);
  record_put_numbers (&o, (uint64_t[]){ r->n_m }, 1);
  for (size_t i = 0; i < r->n_m; i++)
    {
      record_put (&o, r->m[i].id);
      record_put (&o, r->m[i].bundle);
      record_put_numbers (&o, (uint64_t[]){ r->m[i].dev, r->m[i].ino, (uint64_t) r->m[i].add }, 3);
    }
  return record_out_end (&o, CAP_DIR, CAP_MAX, text, len, err);
}

/* PATH is still the directory of device DEV, inode INO. */
static bool
same_dir (const char *path, dev_t dev, ino_t ino)
{
  struct stat st;

  return stat (path, &st) == 0 && S_ISDIR (st.st_mode) && st.st_dev == dev && st.st_ino == ino;
}

/* Boot time, CLOCK_REALTIME seconds less the uptime (sysinfo), two
   seconds early for the rounding of both; 0 unknown. */
static int64_t
boot_time (void)
{
  struct sysinfo si;
  int64_t now = time (NULL);

  if (sysinfo (&si) < 0 || now <= si.uptime + 2)
    return 0;
  return now - si.uptime - 2;
}

/* A pid as the runtime writes it to its --pid-file (runc's "%d"; not a
   record). */
static bool
number (const char *s, int64_t *out)
{
  char *end;
  long long v;

  errno = 0;
  v = strtoll (s, &end, 10);
  if (errno != 0 || end == s || *end != '\0' || v < 0)
    return false;
  *out = v;
  return true;
}

/* The process of the OCI runtime's --pid-file PATH, for a record written
   at WHEN: alive while the file is not written yet (a create in flight,
   for CAP_CREATE_GRACE_S), or names a process that is alive, not a
   zombie, and started before the file was written (a pid reused later is
   younger).  What cannot be read is alive: counted, never forgotten. */
static bool
pid_alive (const char *path, int64_t when, int64_t now, int64_t btime)
{
  cleanup_close int fd = open (path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
  cleanup_free char *buf = NULL;
  cleanup_error kg_error_t err = NULL;
  char state;
  struct stat st;
  size_t len;
  int64_t pid;
  uint64_t start;
  long tck = sysconf (_SC_CLK_TCK);

  if (fd < 0)
    return errno != ENOENT || now - when < CAP_CREATE_GRACE_S;
  if (fstat (fd, &st) < 0 || ! S_ISREG (st.st_mode)
      || kg_read_fd_bounded (fd, path, 64, &buf, &len, &err) < 0)
    return true;
  buf[strcspn (buf, "\n")] = '\0';
  if (! number (buf, &pid) || pid <= 0 || pid > INT32_MAX)
    return true;
  if (kg_proc_start ((unsigned long) pid, &state, &start) < 0)
    return errno != ENOENT && errno != ESRCH;
  if (state == 'Z' || state == 'X')
    return false;
  if (btime == 0 || tck <= 0)
    return true;
  return btime + (int64_t) (start / (uint64_t) tck) <= (int64_t) st.st_mtime + 2;
}

/* The shim of the bundle BUNDLE: alive until the socket it wrote to the
   bundle's "address" file (as containerd-shim-runc-v2 and both Kata
   shims do once they listen) refuses a connection or is gone.  No such
   file yet, or one that cannot be read: alive. */
static bool
shim_alive (const char *bundle)
{
  cleanup_close int dir = open (bundle, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  cleanup_close int fd = -1;
  cleanup_close int sock = -1;
  cleanup_free char *buf = NULL;
  cleanup_error kg_error_t err = NULL;
  struct sockaddr_un sun = { .sun_family = AF_UNIX };
  const char *path;
  size_t len, n;
  socklen_t sl;

  if (dir < 0 || (fd = openat (dir, "address", O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)) < 0
      || kg_read_fd_bounded (fd, "address", 4096, &buf, &len, &err) < 0)
    return true;
  buf[strcspn (buf, "\n")] = '\0';
  path = strncmp (buf, "unix://", 7) == 0 ? buf + 7 : buf;
  n = strlen (path);
  if (n == 0 || n >= sizeof sun.sun_path || (path[0] != '/' && path[0] != '@'))
    return true;
  memcpy (sun.sun_path, path, n);
  if (path[0] == '@')
    sun.sun_path[0] = '\0'; /* an abstract socket */
  sl = (socklen_t) (offsetof (struct sockaddr_un, sun_path) + n + (path[0] == '/'));
  sock = socket (AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (sock < 0 || connect (sock, (struct sockaddr *) &sun, sl) == 0)
    return true;
  return errno != ECONNREFUSED && errno != ENOENT;
}

/* R's VM is alive (capacity.h). */
static bool
cap_record_alive (const struct cap_record *r, int64_t now, int64_t btime)
{
  if (! same_dir (r->bundle, r->dev, r->ino))
    return false;
  if (strcmp (r->mode, "shim") == 0)
    return shim_alive (r->bundle);
  return r->pid_file[0] == '\0' || pid_alive (r->pid_file, r->when, now, btime);
}

/* Take the lock on DIR, waiting at most DEADLINE_MS. */
static int
lock_take (int dir, int64_t deadline_ms, kg_error_t *err)
{
  cleanup_close int fd = openat (dir, CAP_LOCK, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
  struct timespec pause = { 0, 20000 };
  int64_t waited_us = 0;

  if (fd < 0)
    return kg_error (err, errno, "%s/%s", CAP_DIR, CAP_LOCK);
  while (flock (fd, LOCK_EX | LOCK_NB) < 0)
    {
      if (errno != EWOULDBLOCK && errno != EINTR)
        return kg_error (err, errno, "flock %s/%s", CAP_DIR, CAP_LOCK);
      if (waited_us / 1000 >= deadline_ms)
        return kg_error (err, ETIMEDOUT,
                         "%s/%s: another start held the lock for more than %" PRId64 " ms", CAP_DIR,
                         CAP_LOCK, deadline_ms);
      nanosleep (&pause, NULL);
      waited_us += pause.tv_nsec / 1000;
      if (pause.tv_nsec < 2000000)
        pause.tv_nsec *= 2;
    }
  return steal_fd (&fd);
}

/* What a count found. */
struct tally
{
  int64_t total;         /* MiB committed by the live records */
  size_t vms;            /* how many */
  struct cap_record pod; /* a member's pod record, when found alive */
  bool have_pod;
};

/* Whether R is the record of MODE, SCOPE and ID. */
static bool
cap_record_is_of (const struct cap_record *r, enum kg_mode mode, const char *scope, const char *id)
{
  return record_identity_is (r->mode, r->scope, r->id, mode, scope, id);
}

/* Read and sum every live record in DIR; a start (PRUNE) removes the
   dead ones.  Records are told apart by the identity inside, never by
   their names alone.  S (a start, or NULL): its own record is skipped
   (this start replaces it), and a record of another container under the
   name OWN, which this start would write, refuses.  POD: the id of the
   member's pod sandbox, whose live record is kept in T. */
static int
tally (int dir, bool prune, const struct capacity_start *s, const char *own, const char *pod,
       struct tally *t, kg_error_t *err)
{
  cleanup_close int scan = dup (dir);
  DIR *d = scan >= 0 ? fdopendir (scan) : NULL;
  struct dirent *e;
  int64_t now = time (NULL), btime = boot_time ();
  int rc = 0;

  if (d == NULL)
    return kg_error (err, errno, "%s", CAP_DIR);
  scan = -1;
  while (rc == 0 && (e = readdir (d)) != NULL)
    {
      struct cap_record r;
      struct stat st;
      char *text = NULL;
      size_t len;

      if (! record_name_valid (e->d_name))
        continue;
      /* A record from before this boot (RUNDIR on a disk): its VM is gone
         and, unsynced, the file may be torn; never parsed. */
      if (btime > 0 && fstatat (dir, e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0
          && (int64_t) st.st_mtime < btime)
        {
          if (prune)
            unlinkat (dir, e->d_name, 0);
          continue;
        }
      if (rundir_read (dir, CAP_DIR, e->d_name, CAP_MAX, &text, &len, err) < 0)
        {
          if ((*err)->errnum != ENOENT)
            rc = -1;
          else
            kg_error_release (err);
          continue;
        }
      if (cap_record_parse (text, len, e->d_name, &r, err) < 0)
        {
          cap_record_release (&r);
          rc = -1;
          continue;
        }
      if (s != NULL && cap_record_is_of (&r, s->mode, s->scope, s->id))
        {
          /* This start's own, replaced (under its name) or, under a name
             of before the upgrade, removed. */
          if (prune && own != NULL && strcmp (e->d_name, own) != 0)
            unlinkat (dir, e->d_name, 0);
          cap_record_release (&r);
          continue;
        }
      if (own != NULL && strcmp (e->d_name, own) == 0)
        {
          rc = kg_error (err, EEXIST,
                         "%s/%s, the name of this container's record, holds container %s's "
                         "(scope \"%s\")",
                         CAP_DIR, e->d_name, r.id, r.scope);
          cap_record_release (&r);
          continue;
        }
      if (! cap_record_alive (&r, now, btime))
        {
          if (prune)
            unlinkat (dir, e->d_name, 0);
          cap_record_release (&r);
          continue;
        }
      t->total += committed (&r);
      t->vms++;
      if (pod != NULL && ! t->have_pod && cap_record_is_of (&r, s->mode, s->scope, pod))
        {
          t->pod = r;
          t->have_pod = true;
        }
      else
        cap_record_release (&r);
    }
  closedir (d);
  return rc;
}

/* The member's pod record in T with ID added (or replaced) and its dead
   members gone: its new peak into T->pod.  *SHARE: what that adds to
   what the pod commits. */
static int
pod_add (struct tally *t, const struct capacity_start *s, const struct stat *bst, int64_t add,
         int64_t *share, kg_error_t *err)
{
  struct cap_record *r = &t->pod;
  int64_t before = committed (r), sum = r->base;
  size_t keep = 0;

  for (size_t i = 0; i < r->n_m; i++)
    if (strcmp (r->m[i].id, s->id) != 0 && same_dir (r->m[i].bundle, r->m[i].dev, r->m[i].ino))
      {
        r->m[keep++] = r->m[i];
        sum += r->m[i].add;
      }
  r->n_m = keep;
  if (r->n_m >= CAP_MEMBERS_MAX)
    return kg_error (err, E2BIG, "pod sandbox %s has %d members that plug memory in", r->id,
                     CAP_MEMBERS_MAX);
  {
    struct cap_member *m = realloc (r->m, (r->n_m + 1) * sizeof *m);

    if (m == NULL)
      return kg_error (err, ENOMEM, "cannot allocate the pod's members");
    r->m = m;
  }
  r->m[r->n_m++] = (struct cap_member){ (char *) s->id, (char *) s->bundle, bst->st_dev,
                                        bst->st_ino, add };
  sum += add;
  if (sum > r->peak)
    r->peak = sum;
  *share = committed (r) - before;
  return 0;
}

/* check: what is committed now, against the bound. */
static void
show (const struct tally *t, int64_t max, const char *why, struct report *rep)
{
  if (t->total > max)
    report_warn (rep, CAPACITY_ID, CAP_REMEDY,
                 "%zu guarded VMs commit %" PRId64 " MiB, more than %" PRId64 " MiB (%s): "
                 "starts are refused until some end",
                 t->vms, t->total, max, why);
  else
    report_pass (rep, CAPACITY_ID,
                 "%zu guarded VMs commit %" PRId64 " MiB of at most %" PRId64 " MiB (%s)", t->vms,
                 t->total, max, why);
}

/* This start's own record (a VM of its own, or a pod's sandbox), into
   CAP. */
static int
cap_own (const struct capacity_start *s, const struct stat *bst, const struct vm_claim *vm,
         struct capacity *cap, kg_error_t *err)
{
  struct cap_record r = { 0 };

  if (s->pid_file != NULL && s->pid_file[0] != '/')
    return kg_error (err, EINVAL, "the container's pid file %s is not an absolute path",
                     s->pid_file);
  r.mode = (char *) record_mode_word (s->mode);
  r.scope = (char *) (s->scope ? s->scope : "");
  r.id = (char *) s->id;
  r.bundle = (char *) s->bundle;
  r.dev = bst->st_dev;
  r.ino = bst->st_ino;
  r.pid_file = (char *) (s->pid_file ? s->pid_file : "");
  r.when = time (NULL);
  r.mem = vm->mem_mib;
  r.base = vm->base_mib;
  if (cap_record_format (&r, &cap->text, &cap->len, err) < 0)
    return -1;
  record_name (s->mode, s->scope, s->id, cap->name);
  return 0;
}

static void
tally_release (struct tally *t)
{
  cap_record_release (&t->pod);
}
#define cleanup_tally __attribute__ ((cleanup (tally_release)))

/* capacity_judge's count: 0 when it added its result to REP, -1 with
   *ERR when it could not count. */
static int
capacity_count (const struct guard_config *cfg, const struct capacity_start *s,
                const struct vm_claim *vm, int64_t deadline_ms, struct report *rep,
                struct capacity *cap, kg_error_t *err)
{
  cleanup_tally struct tally t = { 0 };
  struct stat bst;
  bool start = s->mode != KG_MODE_CHECK;
  char why[160], own[RECORD_NAME_SIZE] = "", what[200], sum[32];
  int64_t max, share = 0;

  if (policy_committed_bound (cfg, &max, why, sizeof why, err) < 0)
    return -1;
  if (s->bundle != NULL && vm->role == VM_NONE)
    {
      const struct check_result *res = report_find (rep, "policy.resources");

      /* Not twice: policy.resources refuses already (or did not run, for
         a spec that another rule refused).  A VM it passed but
         did not size for the count (a member whose pod is not known) is
         a VM the guard cannot count: refused. */
      if (res != NULL && res->verdict != VERDICT_PASS)
        report_skip (rep, CAPACITY_ID, "not counted: policy.resources did not size the VM");
      else
        report_fail (rep, CAPACITY_ID, "see policy.identity; kata-guard(8), CAPACITY",
                     "cannot count this start: the checks sized no VM for it%s",
                     res == NULL ? " (policy.resources did not run)" : "");
      return 0;
    }
  if (! start && vm->role == VM_MEMBER)
    {
      /* The pod's record is found by the engine's scope (the namespace, or
         runc's --root), which check is not told. */
      report_skip (rep, CAPACITY_ID,
                   "not counted: a member of pod sandbox %s plugs %" PRId64 " MiB into the pod's "
                   "VM; its start counts it against the pod's record",
                   vm->pod, vm->add_mib);
      return 0;
    }
  if (s->bundle != NULL && (stat (s->bundle, &bst) < 0 || ! S_ISDIR (bst.st_mode)))
    return kg_error (err, errno, "the bundle %s is not a directory", s->bundle);
  /* check only reads: a directory not made yet holds no record. */
  cap->dir = rundir_open (CAP_SUB, start, err);
  if (cap->dir < 0 && ! start && (*err)->errnum == EACCES)
    {
      report_skip (rep, CAPACITY_ID, "not counted: %s (root's)", (*err)->msg);
      return 0;
    }
  if (cap->dir < 0 && (start || (*err)->errnum != ENOENT))
    return -1;
  kg_error_release (err);
  if (start && (cap->lock = lock_take (cap->dir, deadline_ms, err)) < 0)
    return -1;
  if (s->id != NULL && vm->role != VM_MEMBER && start)
    record_name (s->mode, s->scope, s->id, own);
  if (cap->dir >= 0
      && tally (cap->dir, start, start && s->id != NULL ? s : NULL, own[0] ? own : NULL,
                vm->role == VM_MEMBER ? vm->pod : NULL, &t, err)
             < 0)
    return -1;
  if (s->bundle == NULL)
    {
      show (&t, max, why, rep);
      return 0;
    }
  if (vm->role == VM_MEMBER)
    {
      if (! t.have_pod)
        {
          report_fail (rep, CAPACITY_ID,
                       "recreate the pod: its VM must be started through kata-guard",
                       "pod sandbox %s has no live capacity record (it was not started through "
                       "this kata-guard, or its record is gone): the size of its VM is unknown",
                       vm->pod);
          return 0;
        }
      /* One that plugs nothing in (static sizing, or no limit) leaves the
         pod's VM as it is: the sum of its members says nothing then (with
         runtime-rs's static sizing the VM can be smaller than
         default_memory, which would count as growth). */
      if (vm->add_mib > 0 && pod_add (&t, s, &bst, vm->add_mib, &share, err) < 0)
        return -1;
      snprintf (what, sizeof what,
                "this member of pod sandbox %s plugs %" PRId64
                " MiB into its VM, which then commits %" PRId64 " MiB (%" PRId64 " more)",
                vm->pod, vm->add_mib, committed (&t.pod), share);
    }
  else
    {
      share = vm->mem_mib;
      snprintf (what, sizeof what, "this %s %" PRId64 " MiB",
                vm->role == VM_SANDBOX ? "pod's VM" : "VM", share);
    }
  if (t.total + share > max)
    {
      report_fail (rep, CAPACITY_ID, CAP_REMEDY,
                   "%zu guarded VMs commit %" PRId64 " MiB; %s would make %" PRId64
                   " MiB, more than %" PRId64 " MiB (%s)",
                   t.vms, t.total, what, t.total + share, max, why);
      cap_record_release (&t.pod);
      return 0;
    }
  /* The record to write when the start goes ahead: the pod's, with this
     member (one that plugs nothing in changes nothing), or its own. */
  if (start && vm->role == VM_MEMBER && vm->add_mib > 0)
    {
      if (cap_record_format (&t.pod, &cap->text, &cap->len, err) < 0)
        return -1;
      snprintf (cap->name, sizeof cap->name, "%s", t.pod.name);
    }
  if (start && vm->role != VM_MEMBER && cap_own (s, &bst, vm, cap, err) < 0)
    return -1;
  snprintf (sum, sizeof sum, "%" PRId64 " MiB", t.total + share);
  report_pass (rep, CAPACITY_ID,
               "%zu guarded VMs commit %" PRId64 " MiB; %s makes %s of at most %" PRId64
               " MiB (%s)",
               t.vms, t.total, what, sum, max, why);
  return 0;
}

void
capacity_judge (const struct guard_config *cfg, const struct capacity_start *s,
                const struct vm_claim *vm, int64_t deadline_ms, struct report *rep,
                struct capacity *cap)
{
  cleanup_error kg_error_t err = NULL;
  size_t from = rep->n;

  if (capacity_count (cfg, s, vm, deadline_ms, rep, cap, &err) < 0)
    report_fail (rep, CAPACITY_ID, "see the error; kata-guard(8), CAPACITY",
                 "cannot count the memory committed to guarded VMs: %s", err->msg);
  /* The parent's own step, judged here: its result reaches the host's
     count (capacity.h). */
  report_set_reach (rep, from, CAPACITY_REACH);
}

int
capacity_commit (struct capacity *cap, kg_error_t *err)
{
  int rc = 0;

  if (cap->name[0] != '\0' && cap->text != NULL)
    rc = rundir_write (cap->dir, CAP_DIR, cap->name, cap->text, cap->len, err);
  capacity_release (cap);
  return rc;
}

void
capacity_release (struct capacity *cap)
{
  if (cap->lock >= 0)
    close (cap->lock);
  if (cap->dir >= 0)
    close (cap->dir);
  free (cap->text);
  *cap = (struct capacity) CAPACITY_INIT;
}

/* The record of MODE, SCOPE and ID in DIR under NAME (its SHA-256 name,
   or with LEGACY the name a guard before the upgrade gave it), into *R
   (NAME set): 1, or 0 when there is none or it is another container's,
   or -1 with *ERR. */
static int
cap_own_read (int dir, bool legacy, enum kg_mode mode, const char *scope, const char *id,
              char name[RECORD_NAME_SIZE], struct cap_record *r, kg_error_t *err)
{
  char *text = NULL;
  size_t len;

  memset (r, 0, sizeof *r);
  (legacy ? record_name_legacy : record_name) (mode, scope, id, name);
  if (rundir_read (dir, CAP_DIR, name, CAP_MAX, &text, &len, err) < 0)
    {
      if ((*err)->errnum != ENOENT)
        return -1;
      kg_error_release (err);
      return 0;
    }
  if (cap_record_parse (text, len, name, r, err) < 0)
    {
      cap_record_release (r);
      return -1;
    }
  if (cap_record_is_of (r, mode, scope, id))
    return 1;
  cap_record_release (r);
  return 0;
}

/* The records' directory, or -1 with *ERR; -1 without one (*ERR NULL)
   when there is none yet. */
static int
cap_records_open (kg_error_t *err)
{
  int dir = rundir_open (CAP_SUB, false, err);

  if (dir < 0 && (*err)->errnum == ENOENT)
    kg_error_release (err);
  return dir;
}

int
capacity_started_in (enum kg_mode mode, const char *scope, const char *id, const char *bundle,
                     kg_error_t *err)
{
  cleanup_close int dir = cap_records_open (err);
  char name[RECORD_NAME_SIZE];

  if (dir < 0)
    return *err != NULL ? -1 : 0;
  for (int legacy = 0; legacy < 2; legacy++)
    {
      struct cap_record r;
      int rc = cap_own_read (dir, legacy, mode, scope, id, name, &r, err);
      bool same;

      if (rc <= 0)
        {
          if (rc < 0)
            return -1;
          continue;
        }
      /* The bundle the start checked: the same directory now, or, once
         it is gone, the same path. */
      same = same_dir (bundle, r.dev, r.ino)
             || (strcmp (r.bundle, bundle) == 0 && access (bundle, F_OK) < 0);
      cap_record_release (&r);
      if (same)
        return 1;
    }
  return 0;
}

int
capacity_forget (enum kg_mode mode, const char *scope, const char *id, kg_error_t *err_out)
{
  /* ERR may be NULL (error.h): a best-effort caller that wants no message. */
  cleanup_error kg_error_t local = NULL;
  kg_error_t *err = err_out != NULL ? err_out : &local;
  cleanup_close int dir = -1;
  char name[RECORD_NAME_SIZE];

  if (id == NULL)
    return 0;
  if ((dir = cap_records_open (err)) < 0)
    return *err != NULL ? -1 : 0;
  /* Under its name, or the name a guard before the upgrade gave it; only
     this container's: another's stays. */
  for (int legacy = 0; legacy < 2; legacy++)
    {
      struct cap_record r;
      int rc = cap_own_read (dir, legacy, mode, scope, id, name, &r, err);

      if (rc < 0)
        return -1;
      if (rc == 0)
        continue;
      cap_record_release (&r);
      if (unlinkat (dir, name, 0) < 0 && errno != ENOENT)
        return kg_error (err, errno, "%s/%s", CAP_DIR, name);
    }
  return 0;
}
