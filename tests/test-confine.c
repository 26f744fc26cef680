/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The confined checker: the confinement the product enters (confine.c)
   stops what it must and allows what the checks need; the parent's reader
   (checker.c) refuses every report that is not exactly well formed. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <linux/kvm.h>
#include <net/if.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "array.h"
#include "checker.h"
#include "cleanup.h"
#include "confine-rules.h"
#include "confine.h"
#include "error.h"
#include "seccomp-filter.h"
#include "tap.h"

/* ---- the confinement -------------------------------------------------- */

static bool use_compiled;

/* Fork; the child confines itself (channel: a pipe it may write), runs
   FN and exits with FN's value.  Returns the wait status. */
static int
confined (int (*fn) (void), int *chan_out)
{
  int p[2], status = 0;
  pid_t pid;

  if (pipe2 (p, O_CLOEXEC) < 0)
    return -1;
  pid = fork ();
  if (pid == 0)
    {
      kg_error_t err = NULL;

      close (p[0]);
      /* The channel at the descriptor whose filter was compiled at build
         time (seccomp-filter.h), or at one libseccomp builds for here. */
      if (dup2 (p[1], use_compiled ? CONFINE_REPORT_FD : 10) < 0)
        _exit (101);
      p[1] = use_compiled ? CONFINE_REPORT_FD : 10;
      if (chan_out)
        *chan_out = p[1];
      if (confine_enter (p[1], NULL, &err) < 0)
        _exit (100);
      _exit (fn ());
    }
  close (p[1]);
  waitpid (pid, &status, 0);
  close (p[0]);
  return status;
}

static int chan = -1;

static int
try_execve (void)
{
  char *argv[] = { (char *) "/bin/true", NULL };
  execve ("/bin/true", argv, NULL);
  return 1;
}
static int
try_ptrace (void)
{
  ptrace (PTRACE_TRACEME, 0, NULL, NULL);
  return 1;
}
static int
try_mount (void)
{
  mount ("none", "/mnt", "tmpfs", 0, NULL);
  return 1;
}
static int
try_packet (void)
{
  socket (AF_PACKET, SOCK_RAW, 0);
  return 1;
}
static int
try_unix (void)
{
  socket (AF_UNIX, SOCK_STREAM, 0);
  return 1;
}
static int
try_udp (void)
{
  socket (AF_INET, SOCK_DGRAM, 0);
  return 1;
}
static int
try_sctp (void)
{
  socket (AF_INET, SOCK_STREAM, 132 /* IPPROTO_SCTP */);
  return 1;
}
static int
try_unshare (void)
{
  unshare (CLONE_NEWNS);
  return 1;
}
static int
try_kill (void)
{
  kill (1, 0);
  return 1;
}
static int
try_create (void)
{
  open ("/tmp/kg-confine-never", O_WRONLY | O_CREAT, 0600);
  return 1;
}
static int
try_trunc (void)
{
  open ("/etc/hostname", O_RDWR | O_TRUNC);
  return 1;
}
static int
try_unlink (void)
{
  unlink ("/tmp/kg-confine-never");
  return 1;
}

static int
try_ioctl (void)
{
  int p[2], n = 0;

  if (pipe (p) < 0)
    return 2;
  ioctl (p[0], FIONREAD, &n);
  return 1;
}

static int
try_setns (void)
{
  int fd = open ("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);

  if (fd < 0)
    return 2;
  setns (fd, 0);
  return 1;
}

static int
try_write_file (void)
{
  /* Opening read-write is allowed (the KVM device needs it); writing is
     not, except to the channel. */
  int fd = open ("/dev/null", O_RDWR | O_CLOEXEC);

  if (fd < 0)
    return 2;
  return write (fd, "x", 1) == 1 ? 1 : 3;
}

static int
try_mmap_shared (void)
{
  int fd = open ("/etc/passwd", O_RDONLY | O_CLOEXEC);

  mmap (NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
  return 1;
}

#ifndef MAP_DROPPABLE
#define MAP_DROPPABLE 0x08
#endif

/* glibc 2.41 and later keep the vDSO getrandom state (json-c asks for
   random bytes) in such a mapping.  A kernel before 6.11 answers EINVAL;
   either way the call must reach the kernel. */
static int
ok_mmap_droppable (void)
{
  void *p = mmap (NULL, 4096, PROT_READ | PROT_WRITE, MAP_DROPPABLE | MAP_ANONYMOUS, -1, 0);

  if (p == MAP_FAILED)
    return errno == EINVAL ? 0 : 1;
  return munmap (p, 4096) == 0 ? 0 : 1;
}

/* A droppable mapping of a file is not what glibc asks for. */
static int
try_mmap_droppable_file (void)
{
  int fd = open ("/etc/passwd", O_RDONLY | O_CLOEXEC);

  mmap (NULL, 4096, PROT_READ, MAP_DROPPABLE, fd, 0);
  return 1;
}

static int
ok_malloc_big (void)
{
  /* Large enough for malloc to mmap it. */
  char *p = malloc (8 << 20);

  if (p == NULL)
    return 1;
  memset (p, 1, 8 << 20);
  free (p);
  return 0;
}

static int
ok_read_file (void)
{
  char buf[64];
  int fd = open ("/etc/passwd", O_RDONLY | O_CLOEXEC);

  return fd >= 0 && read (fd, buf, sizeof buf) > 0 && close (fd) == 0 ? 0 : 1;
}

static int
ok_inet (void)
{
  int a = socket (AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  int b = socket (AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, IPPROTO_TCP);

  return a >= 0 && b >= 0 ? 0 : 1;
}

static int
ok_kvm (void)
{
  int fd = open ("/dev/kvm", O_RDWR | O_CLOEXEC);

  return fd >= 0 && ioctl (fd, KVM_GET_API_VERSION, 0) == KVM_API_VERSION ? 0 : 1;
}

/* KVM's two requests on /dev/null, which every host has: the kernel
   answers ENOTTY, so the filter let them through. */
static int
ok_kvm_requests (void)
{
  int fd = open ("/dev/null", O_RDONLY | O_CLOEXEC);

  if (fd < 0)
    return 2;
  if (ioctl (fd, KVM_GET_API_VERSION, 0) != -1 || errno != ENOTTY)
    return 1;
  if (ioctl (fd, KVM_CREATE_VM, 0) != -1 || errno != ENOTTY)
    return 1;
  return 0;
}

static int
ok_getflags (void)
{
  long flags = 0;
  int fd = open ("/etc/passwd", O_RDONLY | O_CLOEXEC);

  if (fd < 0)
    return 2;
  if (ioctl (fd, FS_IOC_GETFLAGS, &flags) == 0)
    return 0;
  /* A file system without flags says so; it is not stopped. */
  return errno == ENOTTY || errno == EOPNOTSUPP ? 0 : 1;
}

static int
ok_channel (void)
{
  return write (chan, "ok", 2) == 2 ? 0 : 1;
}

/* /proc/self/status, whole, into BUF (SIZE > 1); false when unreadable. */
static bool
read_status (char *buf, size_t size)
{
  ssize_t n, len = 0;
  int fd = open ("/proc/self/status", O_RDONLY | O_CLOEXEC);

  if (fd < 0)
    return false;
  while ((n = read (fd, buf + len, size - 1 - (size_t) len)) > 0)
    len += n;
  buf[len] = '\0';
  close (fd);
  return true;
}

/* The bounding set a confined child must show (main sets it): none when
   this process may shrink it (CAP_SETPCAP), else this process's own,
   which only root can shrink (confine.c: it limits only what an execve
   could gain, and no_new_privs and the filter rule out both). */
static char want_bnd[64] = "CapBnd:\t0000000000000000\n";

static void
bounding_set_wanted (void)
{
  char buf[8192];
  const char *bnd;
  cap_t now = cap_get_proc ();
  cap_flag_value_t v = CAP_CLEAR;

  if (now != NULL)
    cap_get_flag (now, CAP_SETPCAP, CAP_EFFECTIVE, &v);
  cap_free (now);
  if (v == CAP_SET)
    return;
  if (! read_status (buf, sizeof buf) || (bnd = strstr (buf, "CapBnd:")) == NULL)
    abort ();
  snprintf (want_bnd, sizeof want_bnd, "%.*s", (int) strcspn (bnd, "\n") + 1, bnd);
  printf ("# without CAP_SETPCAP: a confined child keeps this process's bounding set\n");
}

/* Every capability set empty (the bounding set as want_bnd says),
   no_new_privs, a filter: as the kernel shows them (prctl itself is not
   on the list). */
static int
ok_status (void)
{
  const char *const want[] = {
    "CapInh:\t0000000000000000\n",
    "CapPrm:\t0000000000000000\n",
    "CapEff:\t0000000000000000\n",
    want_bnd,
    "CapAmb:\t0000000000000000\n",
    "NoNewPrivs:\t1\n",
    "Seccomp:\t2\n",
  };
  char buf[8192];
  int bad = 0;

  if (! read_status (buf, sizeof buf))
    return 64;
  for (size_t i = 0; i < ARRAY_SIZE (want); i++)
    if (strstr (buf, want[i]) == NULL)
      bad |= 1 << i;
  return bad;
}

static void
test_confinement (void)
{
  static const struct
  {
    const char *name;
    int (*fn) (void);
  } stopped[] = {
    { "execve", try_execve },
    { "ptrace(PTRACE_TRACEME)", try_ptrace },
    { "mount", try_mount },
    { "socket(AF_PACKET)", try_packet },
    { "socket(AF_UNIX)", try_unix },
    { "socket(AF_INET, SOCK_DGRAM)", try_udp },
    { "socket(AF_INET, SOCK_STREAM, IPPROTO_SCTP)", try_sctp },
    { "ioctl(FIONREAD) on a pipe", try_ioctl },
    { "setns", try_setns },
    { "unshare", try_unshare },
    { "kill", try_kill },
    { "open with O_CREAT", try_create },
    { "open with O_TRUNC", try_trunc },
    { "unlink", try_unlink },
    { "write to a file that is not the channel", try_write_file },
    { "a shared file mapping", try_mmap_shared },
    { "a droppable file mapping", try_mmap_droppable_file },
  };
  static const struct
  {
    const char *name;
    int (*fn) (void);
  } allowed[] = {
    { "open and read a file", ok_read_file },
    { "a large allocation (private mmap)", ok_malloc_big },
    { "an anonymous MAP_DROPPABLE mapping (glibc >= 2.41)", ok_mmap_droppable },
    { "socket(AF_INET/AF_INET6, SOCK_STREAM|SOCK_CLOEXEC|SOCK_NONBLOCK)", ok_inet },
    { "FS_IOC_GETFLAGS", ok_getflags },
    { "write to the channel", ok_channel },
    { "no capability in any set it may empty, no_new_privs, seccomp filter", ok_status },
  };

  bounding_set_wanted ();
  for (int pass = 0; pass < 2; pass++)
    {
      const char *how = pass ? " (the filter compiled at build time)" : "";

      use_compiled = pass == 1;
      for (size_t i = 0; i < ARRAY_SIZE (stopped); i++)
        {
          int st = confined (stopped[i].fn, &chan);

          ok (WIFSIGNALED (st) && WTERMSIG (st) == SIGSYS,
              "%s is stopped with SIGSYS (status %#x)%s", stopped[i].name, st, how);
        }
      for (size_t i = 0; i < ARRAY_SIZE (allowed); i++)
        {
          int st = confined (allowed[i].fn, &chan);

          ok (WIFEXITED (st) && WEXITSTATUS (st) == 0, "%s works confined (status %#x)%s",
              allowed[i].name, st, how);
        }
    }
  use_compiled = false;
  {
    /* The compiled filter is what libseccomp makes of the rules here. */
    scmp_filter_ctx ctx = seccomp_init (SCMP_ACT_TRAP);
    kg_error_t err = NULL;
    int fd = memfd_create ("test-confine", MFD_CLOEXEC);
    struct stat st;
    cleanup_free char *bpf = NULL;

    ok (ctx != NULL && fd >= 0 && confine_rules (ctx, CONFINE_REPORT_FD, &err) == 0
            && seccomp_export_bpf (ctx, fd) == 0 && fstat (fd, &st) == 0,
        "the rules compile for descriptor %d", CONFINE_REPORT_FD);
    bpf = malloc (st.st_size > 0 ? (size_t) st.st_size : 1);
    ok (bpf != NULL && (size_t) st.st_size == sizeof kg_seccomp_filter
            && pread (fd, bpf, (size_t) st.st_size, 0) == st.st_size
            && memcmp (bpf, kg_seccomp_filter, sizeof kg_seccomp_filter) == 0,
        "seccomp-filter.h is exactly libseccomp's filter of the same rules (%zu and %lld bytes)",
        sizeof kg_seccomp_filter, (long long) st.st_size);
    kg_error_release (&err);
    seccomp_release (ctx);
    close (fd);
  }
  /* On /dev/kvm where there is a usable one; else the same requests on
     /dev/null, where the kernel (not the filter) refuses them. */
  if (access ("/dev/kvm", R_OK | W_OK) == 0)
    {
      int st = confined (ok_kvm, &chan);

      ok (WIFEXITED (st) && WEXITSTATUS (st) == 0, "KVM_GET_API_VERSION works confined (%#x)", st);
    }
  else
    {
      int st = confined (ok_kvm_requests, &chan);

      ok (WIFEXITED (st) && WEXITSTATUS (st) == 0,
          "KVM_GET_API_VERSION and KVM_CREATE_VM pass the filter (on /dev/null: ENOTTY) (%#x)", st);
    }
}

/* ---- the report ------------------------------------------------------- */

static void
sample (struct report *r)
{
  memset (r, 0, sizeof *r);
  report_pass (r, "kvm.device", "/dev/kvm is a KVM device");
  report_fail (r, "egress.proxy", "start the proxy", "cannot connect to 127.0.0.1:3128: %s",
               "Connection refused");
  report_skip (r, "policy.spec", "not a container start");
  report_add_file (r, "/etc/kata-guard/config.toml");
}

static void
decode_err (const unsigned char *buf, size_t len, const char *want, const char *name)
{
  struct report r = { 0 };
  kg_error_t err = NULL;
  bool want_fd;
  int rc = checker_decode (buf, len, &r, &want_fd, NULL, NULL, &err);

  ok (rc < 0 && r.n == 0, "%s is refused", name);
  has_str (err ? err->msg : "", want, "%s: says why", name);
  kg_error_release (&err);
  report_release (&r);
}

static void
test_codec (void)
{
  struct report in, out = { 0 };
  unsigned char *buf = NULL, *big;
  size_t len = 0;
  kg_error_t err = NULL;
  bool want_fd = false;
  uint32_t v32;

  sample (&in);
  ok (checker_encode (&in, true, NULL, 0, &buf, &len, &err) == 0, "a report encodes");
  ok (checker_decode (buf, len, &out, &want_fd, NULL, NULL, &err) == 0, "and decodes");
  ok (out.n == 3 && out.n_files == 1 && want_fd, "with its 3 results, 1 file and the fd flag");
  is_str (out.results[1].id, "egress.proxy", "ids survive");
  ok (out.results[1].verdict == VERDICT_FAIL, "verdicts survive");
  is_str (out.results[1].reason, "cannot connect to 127.0.0.1:3128: Connection refused",
          "reasons survive");
  is_str (out.results[1].remedy, "start the proxy", "remedies survive");
  ok (out.results[0].remedy == NULL, "a missing remedy stays missing");
  is_str (out.files[0], "/etc/kata-guard/config.toml", "files survive");
  /* The parent's own results already hold an id: the child may not repeat it. */
  ok (checker_decode (buf, len, &out, &want_fd, NULL, NULL, &err) < 0 && out.n == 3,
      "an id the parent's report already holds is refused");
  has_str (err ? err->msg : "", "twice", "as reported twice");
  kg_error_release (&err);
  report_release (&out);

  big = malloc (len + 1);
  memcpy (big, buf, len);
  big[len] = 'x';
  decode_err (big, len + 1, "too long", "a report longer than its header says");
  decode_err (buf, len - 1, "truncated", "a truncated report");
  decode_err (buf, 10, "truncated", "a report cut inside its header");
  decode_err (buf, 0, "truncated", "an empty report");

  memcpy (big, buf, len);
  big[CHECKER_HEADER_LEN] = 7; /* the first result's verdict */
  decode_err (big, len, "malformed", "an unknown verdict byte");

  memcpy (big, buf, len);
  v32 = 4;
  memcpy (big + 8, &v32, 4);
  decode_err (big, len, "result 3", "a result count one too high");

  memcpy (big, buf, len);
  v32 = 2;
  memcpy (big + 12, &v32, 4);
  decode_err (big, len, "does not hold", "a file count one too high");

  memcpy (big, buf, len);
  v32 = 2;
  memcpy (big + 8, &v32, 4);
  decode_err (big, len, "does not hold", "a result count one too low");

  memcpy (big, buf, len);
  v32 = CHECKER_MAX_RESULTS + 1;
  memcpy (big + 8, &v32, 4);
  decode_err (big, len, "at most", "a count over the bound");

  memcpy (big, buf, len);
  big[CHECKER_HEADER_LEN + CHECKER_RESULT_HEAD] = 'K'; /* "Kvm.device" */
  decode_err (big, len, "bad id", "an id outside the charset");

  memcpy (big, buf, len);
  big[CHECKER_HEADER_LEN + CHECKER_RESULT_HEAD + 10] = '\033'; /* the reason's first byte */
  decode_err (big, len, "bad id or text", "a control character in a reason");

  memcpy (big, buf, len);
  big[4] = CHECKER_VERSION + 1;
  decode_err (big, len, "not this format", "another version");

  for (size_t i = 0; i < len; i++)
    big[i] = (unsigned char) (i * 131 + 7);
  decode_err (big, len, "garbage", "garbage");
  free (big);
  free (buf);

  /* Encoding clamps what it must and refuses what it cannot. */
  {
    struct report many = { 0 };

    for (int i = 0; i <= CHECKER_MAX_RESULTS; i++)
      {
        char id[32];

        snprintf (id, sizeof id, "x.%d", i);
        report_pass (&many, id, "fine");
      }
    ok (checker_encode (&many, false, NULL, 0, &buf, &len, &err) < 0,
        "more results than the bound do not encode");
    kg_error_release (&err);
    report_release (&many);
  }
  report_release (&in);
}

/* ---- the parent's reader against real children ------------------------ */

static pid_t
child (int *sock, void (*fn) (int fd))
{
  int sv[2];
  pid_t pid;

  socketpair (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv);
  pid = fork ();
  if (pid == 0)
    {
      close (sv[0]);
      fn (sv[1]);
      _exit (0);
    }
  close (sv[1]);
  *sock = sv[0];
  return pid;
}

static bool under_valgrind (void);
static unsigned char *msg;
static size_t msg_len;

static void
write_all (int fd, const unsigned char *p, size_t n)
{
  while (n > 0)
    {
      ssize_t w = write (fd, p, n);

      if (w <= 0)
        _exit (9);
      p += w;
      n -= (size_t) w;
    }
}

static void
half_then_kill (int fd)
{
  write_all (fd, msg, msg_len / 2);
  raise (SIGKILL);
}
static void
whole (int fd)
{
  write_all (fd, msg, msg_len);
}
static void
whole_then_fail (int fd)
{
  write_all (fd, msg, msg_len);
  _exit (1);
}
static void
hang (int fd)
{
  (void) fd;
  pause ();
}
static void
whole_then_hang (int fd)
{
  write_all (fd, msg, msg_len);
  pause ();
}

static void
flood (int fd)
{
  static unsigned char junk[65536];

  for (int i = 0; i < (CHECKER_MSG_MAX / (int) sizeof junk) + 2; i++)
    write_all (fd, junk, sizeof junk);
}

static int sandbox_fd;
/* Shared with the children, as checker_run shares it with the checker. */
static volatile uint32_t *shared_word;
static char asked[4096];

/* ---- what the parent knows itself ------------------------------------ */

/* The parent's own guard config and this start's bundle: its spec names
   the test's own process by a hook (/proc/PID/exe), by its network, pid
   and uts namespaces, and one network namespace path, a second of that
   kind (so policy.namespaces asks about neither: it refuses a kind
   listed twice unasked); and a hook by its program's path, which the
   child resolves itself. */
static struct guard_config parent_cfg;
static struct checker_parent parent;
static char bundle[] = "/tmp/kg-test-confine.XXXXXX";
static char proxy[64];
/* Shared: what the parent answered each request of the hostile child. */
static volatile int32_t *answers;
#define NETNS_NAMED "/run/netns/kg-test-confine-named"

static void
parent_setup (int proxy_port)
{
  char path[PATH_MAX];
  FILE *f;
  pid_t me = getpid ();

  if (mkdtemp (bundle) == NULL)
    abort ();
  snprintf (path, sizeof path, "%s/config.json", bundle);
  f = fopen (path, "we");
  if (f == NULL)
    abort ();
  fprintf (f,
           "{\"ociVersion\": \"1.0.2\", \"hooks\": {\"prestart\": [{\"path\": "
           "\"/proc/%d/exe\"}, {\"path\": \"/usr/libexec/kg-test-hook\"}]}, \"linux\": "
           "{\"namespaces\": [{\"type\": \"network\", \"path\": \"/proc/%d/ns/net\"}, "
           "{\"type\": \"pid\", \"path\": \"/proc/%d/ns/pid\"}, {\"type\": \"uts\", "
           "\"path\": \"/proc/%d/ns/uts\"}, {\"type\": \"network\", \"path\": \"" NETNS_NAMED
           "\"}]}}\n",
           (int) me, (int) me, (int) me, (int) me);
  if (fclose (f) != 0)
    abort ();
  snprintf (proxy, sizeof proxy, "127.0.0.1:%d", proxy_port);
  memset (&parent_cfg, 0, sizeof parent_cfg);
  parent_cfg.runtime.shim = (char *) "/usr/bin/true";
  parent_cfg.runtime.oci = (char *) "";
  parent_cfg.egress.enabled = true;
  parent_cfg.egress.proxy = proxy;
  parent_cfg.egress.timeout_ms = 300;
  parent_cfg.egress.probe_host = (char *) "";
  parent_cfg.storage.containerd_config = (char *) "/nonexistent/kg-test-confine.toml";
  parent.cfg = &parent_cfg;
  parent.mode = KG_MODE_SHIM;
  parent.bundle = bundle;
  answers = mmap (NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (answers == MAP_FAILED)
    abort ();
}

static void
parent_cleanup (void)
{
  char path[PATH_MAX];

  snprintf (path, sizeof path, "%s/config.json", bundle);
  unlink (path);
  rmdir (bundle);
  checker_parent_release (&parent);
}

/* Ask the parent for /proc/<parent>/exe, then send the report. */
static void
ask_then_whole (int fd)
{
  unsigned char rq[8] = { 'K', 'G', 'R', 'Q' };
  uint32_t pid = (uint32_t) getppid (), n;
  int32_t e;

  memcpy (rq + 4, &pid, 4);
  write_all (fd, rq, 8);
  if (read (fd, &e, 4) != 4 || read (fd, &n, 4) != 4 || e != 0 || n >= sizeof asked
      || read (fd, asked, n) != (ssize_t) n)
    _exit (8);
  asked[n] = '\0';
  if (strstr (asked, "test-confine") == NULL)
    _exit (7);
  write_all (fd, msg, msg_len);
}

static void
ask_forever (int fd)
{
  unsigned char rq[8] = { 'K', 'G', 'R', 'Q', 1, 0, 0, 0 };
  char reply[8192];

  for (int i = 0; i < CHECKER_MAX_REQUESTS + 2; i++)
    {
      write_all (fd, rq, 8);
      if (read (fd, reply, sizeof reply) <= 0)
        _exit (0);
    }
  /* Stay until the parent gives up on us: exiting now could close the
     socket while it still writes a reply, and the test would see that
     instead of the bound. */
  while (read (fd, reply, sizeof reply) > 0)
    ;
  _exit (0);
}

static bool
read_exact (int fd, void *buf, size_t n)
{
  char *p = buf;

  while (n > 0)
    {
      ssize_t r = read (fd, p, n);

      if (r <= 0)
        return false;
      p += r;
      n -= (size_t) r;
    }
  return true;
}

/* One request, its reply read whole (EXE: the target after the length);
   the errno the parent answered. */
static int32_t
ask (int fd, const unsigned char *rq, size_t len, size_t reply_len, struct netns_facts *facts)
{
  static unsigned char reply[sizeof (struct netns_facts) + 32];
  static char target[CHECKER_PATH_MAX];
  int32_t e;
  uint32_t n;

  write_all (fd, rq, len);
  if (! read_exact (fd, reply, reply_len))
    _exit (8);
  memcpy (&e, reply, 4);
  if (rq[3] == 'Q') /* KGRQ */
    {
      memcpy (&n, reply + 4, 4);
      if (n > sizeof target || ! read_exact (fd, target, n))
        _exit (8);
    }
  if (facts != NULL)
    memcpy (facts, reply + 4, sizeof *facts);
  return e;
}

static struct netns_probe
hostile_probe (int port)
{
  struct netns_probe p;
  struct sockaddr_in *in = (struct sockaddr_in *) &p.proxy;

  memset (&p, 0, sizeof p);
  in->sin_family = AF_INET;
  in->sin_port = htons ((uint16_t) port);
  in->sin_addr.s_addr = htonl (INADDR_LOOPBACK);
  p.proxy_len = sizeof *in;
  p.timeout_ms = 300;
  snprintf (p.host, sizeof p.host, "evil.example");
  return p;
}

/* A hostile child: asks about what the spec names and what it does not,
   keeps each answer in ANSWERS, then sends the report. */
static void
ask_each (int fd)
{
  static unsigned char nn[CHECKER_NETNS_REQUEST_LEN];
  struct netns_probe probe = hostile_probe (9);
  unsigned long me = (unsigned long) getppid ();
  unsigned char rq[CHECKER_REQUEST_HEAD];

  checker_request_exe (1, rq);
  answers[0] = ask (fd, rq, sizeof rq, 8, NULL);
  checker_request_exe (me, rq);
  answers[1] = ask (fd, rq, sizeof rq, 8, NULL);
  checker_request_ns (1, 0, rq);
  answers[2] = ask (fd, rq, sizeof rq, 20, NULL);
  checker_request_ns (me, 1, rq);
  answers[3] = ask (fd, rq, sizeof rq, 20, NULL);
  checker_request_ns (me, 2, rq);
  answers[4] = ask (fd, rq, sizeof rq, 20, NULL);
  checker_request_netns (0, "/proc/1/ns/net", &probe, nn);
  answers[5] = ask (fd, nn, sizeof nn, 4 + sizeof (struct netns_facts), NULL);
  checker_request_netns (1, NULL, &probe, nn);
  answers[6] = ask (fd, nn, sizeof nn, 4 + sizeof (struct netns_facts), NULL);
  checker_request_netns (0, NETNS_NAMED, &probe, nn);
  answers[7] = ask (fd, nn, sizeof nn, 4 + sizeof (struct netns_facts), NULL);
  write_all (fd, msg, msg_len);
}

/* The port the hostile child's probe names (answers[8]), the parent's
   answer (answers[9]), the probe's status and error (10, 11), and
   whether the namespace was entered: the error entering it (12) and
   whether the host's user namespace owns it (13). */
static void
ask_probe (int fd)
{
  static unsigned char nn[CHECKER_NETNS_REQUEST_LEN];
  static struct netns_facts facts;
  struct netns_probe probe = hostile_probe (answers[8]);

  checker_request_netns (getppid (), NULL, &probe, nn);
  answers[9] = ask (fd, nn, sizeof nn, 4 + sizeof facts, &facts);
  answers[10] = facts.probe_status;
  answers[11] = facts.probe_error;
  answers[12] = facts.error;
  answers[13] = facts.owner_initial;
  write_all (fd, msg, msg_len);
}

/* A child within each kind's budget, then past it: the spec names one
   hook by /proc/PID/exe (and one by a program path), three namespace
   kinds by /proc/PID/ns/NAME, one of which, network, it lists twice (by
   a path the second time), so policy.namespaces asks about two; one
   network namespace and one pool a start.  answers[20..]:
   the parent's errno for each. */
static void
ask_past_budgets (int fd)
{
  static unsigned char nn[CHECKER_NETNS_REQUEST_LEN];
  struct netns_probe probe = hostile_probe (9);
  unsigned long me = (unsigned long) getppid ();
  unsigned char rq[CHECKER_REQUEST_HEAD];
  int i = 20;

  checker_request_exe (me, rq);
  answers[i++] = ask (fd, rq, sizeof rq, 8, NULL);
  answers[i++] = ask (fd, rq, sizeof rq, 8, NULL);
  checker_request_ns (me, 1, rq);
  for (int k = 0; k < 3; k++)
    answers[i++] = ask (fd, rq, sizeof rq, 20, NULL);
  checker_request_netns (0, NETNS_NAMED, &probe, nn);
  answers[i++] = ask (fd, nn, sizeof nn, 4 + sizeof (struct netns_facts), NULL);
  answers[i++] = ask (fd, nn, sizeof nn, 4 + sizeof (struct netns_facts), NULL);
  checker_request_pool (rq);
  for (int k = 0; k < 2; k++)
    {
      uint32_t n;
      int32_t e;
      char text[1024];

      write_all (fd, rq, sizeof rq);
      if (! read_exact (fd, &e, 4) || ! read_exact (fd, &n, 4) || n > sizeof text
          || ! read_exact (fd, text, n))
        _exit (8);
      answers[i++] = e;
    }
  write_all (fd, msg, msg_len);
}

/* A child that asks for its own network namespace's facts, whose probe
   the parent sends to a proxy that never answers. */
static void
ask_slow_probe (int fd)
{
  static unsigned char nn[CHECKER_NETNS_REQUEST_LEN];
  struct netns_probe probe = hostile_probe (9);

  checker_request_netns (getppid (), NULL, &probe, nn);
  answers[40] = ask (fd, nn, sizeof nn, 4 + sizeof (struct netns_facts), NULL);
  write_all (fd, msg, msg_len);
}

static void
violate (int fd)
{
  if (under_valgrind ())
    raise (SIGSYS);
  kg_error_t err = NULL;

  if (confine_enter (fd, shared_word, &err) < 0)
    _exit (100);
  write_all (fd, msg, msg_len / 2);
  try_execve ();
}

/* What glibc 2.41 did at the first json-c call, before the filter knew. */
static void
violate_mmap (int fd)
{
  if (under_valgrind ())
    raise (SIGSYS);
  kg_error_t err = NULL;
  int file = open ("/etc/passwd", O_RDONLY | O_CLOEXEC);

  if (confine_enter (fd, shared_word, &err) < 0)
    _exit (100);
  mmap (NULL, 4096, PROT_READ, MAP_SHARED, file, 0);
  _exit (0);
}

/* The handler's own way out must be refused too, or the child would
   exit instead of dying of SIGSYS. */
static void
violate_getppid (int fd)
{
  if (under_valgrind ())
    raise (SIGSYS);
  kg_error_t err = NULL;

  if (confine_enter (fd, shared_word, &err) < 0)
    _exit (100);
  getppid ();
  _exit (0);
}

static void
with_fd (int fd)
{
  union
  {
    struct cmsghdr h;
    char space[CMSG_SPACE (sizeof (int))];
  } ctl;
  struct iovec iov = { msg, msg_len };
  struct msghdr mh = {
    .msg_iov = &iov, .msg_iovlen = 1, .msg_control = &ctl, .msg_controllen = sizeof ctl
  };

  memset (&ctl, 0, sizeof ctl);
  ctl.h.cmsg_level = SOL_SOCKET;
  ctl.h.cmsg_type = SCM_RIGHTS;
  ctl.h.cmsg_len = CMSG_LEN (sizeof (int));
  memcpy (CMSG_DATA (&ctl.h), &sandbox_fd, sizeof (int));
  if (sendmsg (fd, &mh, 0) != (ssize_t) msg_len)
    _exit (9);
}

static void
collect (void (*fn) (int), int64_t deadline, const char *want, const char *name)
{
  struct report r = { 0 };
  kg_error_t err = NULL;
  int sock, fd = -1;
  pid_t pid;
  int rc;

  *shared_word = 0;
  pid = child (&sock, fn);
  rc = checker_collect (pid, sock, deadline, shared_word, &parent, &r, &fd, NULL, NULL, &err);

  close (sock);
  if (want == NULL)
    {
      ok (rc == 0 && r.n == 3, "%s: accepted (%s)", name, err ? err->msg : "ok");
      if (fd >= 0)
        close (fd);
    }
  else
    {
      ok (rc < 0 && r.n == 0 && fd < 0, "%s: refused", name);
      has_str (err ? err->msg : "", want, "%s: says why", name);
    }
  ok (kill (pid, 0) < 0 && errno == ESRCH, "%s: the child is reaped", name);
  kg_error_release (&err);
  report_release (&r);
}

static void
hand_over (const char *path, const char *want, const char *name)
{
  sandbox_fd = open (path, O_PATH | O_CLOEXEC);
  collect (with_fd, 5000, want, name);
  close (sandbox_fd);
}

static int
listener (int *port)
{
  struct sockaddr_in a = { .sin_family = AF_INET };
  socklen_t len = sizeof a;
  int s = socket (AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);

  a.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
  if (s < 0 || bind (s, (struct sockaddr *) &a, sizeof a) < 0 || listen (s, 4) < 0
      || getsockname (s, (struct sockaddr *) &a, &len) < 0)
    abort ();
  *port = ntohs (a.sin_port);
  return s;
}

/* The first bytes a connection to listener S sent, or "" when none came. */
static void
came (int s, char *buf, size_t size)
{
  int c = accept4 (s, NULL, NULL, SOCK_CLOEXEC);
  struct pollfd p = { c, POLLIN, 0 };
  ssize_t n = -1;

  buf[0] = '\0';
  if (c < 0)
    return;
  if (poll (&p, 1, 2000) == 1)
    n = read (c, buf, size - 1);
  buf[n > 0 ? n : 0] = '\0';
  /* The request line alone, so that it prints on one line. */
  buf[strcspn (buf, "\r\n")] = '\0';
  close (c);
}

/* Whether this network namespace has an interface but loopback (else
   netns_gather does not probe). */
static bool
has_interface (void)
{
  struct if_nameindex *ifs = if_nameindex (), *i;
  bool any = false;

  for (i = ifs; i != NULL && i->if_index != 0; i++)
    any = any || strcmp (i->if_name, "lo") != 0;
  if (ifs != NULL)
    if_freenameindex (ifs);
  return any;
}

/* A hostile child's requests: answered only for what the spec names, and
   probed with the parent's own [egress], never the child's. */
static void
test_requests (int hostile, int hostile_port, int own)
{
  char got[512];
  struct report in;
  kg_error_t err = NULL;

  sample (&in);
  checker_encode (&in, false, NULL, 0, &msg, &msg_len, &err);
  report_release (&in);
  collect (ask_each, 5000, NULL, "a child that asks about what its spec does not name");
  ok (answers[0] == EPERM, "/proc/1/exe, which no hook names: EPERM (got %d)", answers[0]);
  ok (answers[1] == 0, "a hook's /proc/PID/exe: answered (got %d)", answers[1]);
  ok (answers[2] == EPERM, "/proc/1/ns/net, which no namespace names: EPERM (got %d)", answers[2]);
  ok (answers[3] == 0, "a namespace path's /proc/PID/ns/pid: answered (got %d)", answers[3]);
  ok (answers[4] == EPERM, "the same process's ipc namespace, not named: EPERM (got %d)",
      answers[4]);
  ok (answers[5] == EPERM, "a network namespace path no entry names: EPERM (got %d)", answers[5]);
  ok (answers[6] == EPERM, "pid 1's network namespace, not named: EPERM (got %d)", answers[6]);
  ok (answers[7] != EPERM && answers[7] != EINVAL,
      "a named network namespace path: gathered (got %d)", answers[7]);

  answers[8] = hostile_port;
  collect (ask_probe, 5000, NULL, "a child whose probe names its own proxy and host");
  ok (answers[9] == 0, "its own network namespace (named): answered (got %d)", answers[9]);
  if (! has_interface ())
    ok (1, "# SKIP no interface but loopback here: netns_gather does not probe");
  else
    {
      came (hostile, got, sizeof got);
      ok (got[0] == '\0', "nothing reached the child's proxy (got \"%.60s\")", got);
      came (own, got, sizeof got);
      /* The gatherer enters the namespace only as a member of the user
         namespace that owns it, with CAP_SYS_ADMIN over it: not as
         root in a user namespace of its own, nor without root. */
      if (! answers[13])
        ok (1, "# SKIP the probe: not in the host's user namespace, which owns this network "
               "namespace (the gatherer does not enter it)");
      else if (answers[12] != 0)
        ok (1, "# SKIP the probe: this process cannot enter its own network namespace (%s)",
            strerror (answers[12]));
      else
        ok (strncmp (got, "CONNECT kg-", 11) == 0 && strstr (got, ".invalid:443 HTTP/1.1") != NULL,
            "the parent's proxy got the probe, for a fresh .invalid name (got \"%.60s\")", got);
    }
  free (msg);
}

/* The parent's boundary (issue 35): a request past its kind's budget is
   refused before its answer runs, and an answer gets only the start's
   time left. */
static void
test_budgets (int slow, int slow_port)
{
  struct report in;
  kg_error_t err = NULL;
  static const char *const what[] = {
    "a hook's /proc/PID/exe, once",
    "  and again: past the one /proc/PID/exe hook (the other names a program)",
    "a named namespace, 1st of 2",
    "  2nd",
    ("  3rd: past the two kinds policy.namespaces asks about (network, listed twice, it "
     "refuses unasked)"),
    "a named network namespace, once",
    "  and again: egress.netns asks once a start",
    "the pool, once",
    "  and again: storage.pool asks once a start",
  };
  static const int32_t past[] = { 0, 1, 0, 0, 1, 0, 1, 0, 1 };

  sample (&in);
  checker_encode (&in, false, NULL, 0, &msg, &msg_len, &err);
  report_release (&in);
  collect (ask_past_budgets, 5000, NULL, "a child that asks past each kind's budget");
  for (size_t i = 0; i < ARRAY_SIZE (what); i++)
    if (past[i])
      ok (answers[20 + i] == EDQUOT, "%s: EDQUOT (got %d)", what[i], answers[20 + i]);
    else
      ok (answers[20 + i] != EDQUOT && answers[20 + i] != EPERM && answers[20 + i] != EINVAL,
          "%s: answered (got %d)", what[i], answers[20 + i]);

  /* A proxy that takes the connection and never answers, a probe timeout
     of 20 s, a start with 400 ms left: the answer ends with the start. */
  if (! has_interface () || geteuid () != 0)
    ok (1, "# SKIP the probe's time: no interface but loopback, or not root (netns_gather "
           "does not probe)");
  else
    {
      char slow_proxy[64];
      struct timespec a, b;
      int64_t ms;
      char *keep_proxy = parent_cfg.egress.proxy;
      int keep_timeout = parent_cfg.egress.timeout_ms;

      snprintf (slow_proxy, sizeof slow_proxy, "127.0.0.1:%d", slow_port);
      parent_cfg.egress.proxy = slow_proxy;
      parent_cfg.egress.timeout_ms = 20000;
      clock_gettime (CLOCK_MONOTONIC, &a);
      collect (ask_slow_probe, 400, "deadline_ms (400 ms)",
               "a netns answer whose probe outlasts the start");
      clock_gettime (CLOCK_MONOTONIC, &b);
      ms = (b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000;
      /* A bound of the start's, not a measure: 20 s without it. */
      ok (ms < 10000, "the start ended with its deadline, not the probe's 20 s (%lld ms)",
          (long long) ms);
      parent_cfg.egress.proxy = keep_proxy;
      parent_cfg.egress.timeout_ms = keep_timeout;
      (void) slow;
    }
  free (msg);
}

static void
test_collect (void)
{
  struct report in;
  kg_error_t err = NULL;

  shared_word = mmap (NULL, sizeof *shared_word, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
                      -1, 0);
  if (shared_word == MAP_FAILED)
    {
      perror ("mmap");
      exit (99);
    }
  sample (&in);
  checker_encode (&in, false, NULL, 0, &msg, &msg_len, &err);
  report_release (&in);

  collect (whole, 5000, NULL, "a whole report from a child that exits 0");
  collect (half_then_kill, 5000, "killed by signal SIGKILL", "a child killed mid-way");
  /* Under valgrind the child raises SIGSYS itself: no call is named. */
  collect (violate, 5000,
           under_valgrind () ? "violated its sandbox: killed by signal SIGSYS"
                             : "violated its sandbox: the filter refused system call execve (",
           "a child that breaks its sandbox");
  if (! under_valgrind ())
    {
      collect (violate_mmap, 5000, "the filter refused system call mmap (",
               "a shared file mapping");
      collect (violate_getppid, 5000, "refused system call getppid (", "getppid");
    }
  collect (whole_then_fail, 5000, "exited with status 1", "a whole report, then exit 1");
  collect (hang, 200, "deadline_ms (200 ms)", "a child that sends nothing");
  collect (whole_then_hang, 200, "deadline_ms (200 ms)", "a child that never exits");
  collect (flood, 5000, "too long", "a report longer than the bound");
  collect (ask_then_whole, 5000, NULL, "a /proc/PID/exe request answered, then a report");
  collect (ask_forever, 5000, "too many requests", "more requests than the bound");
  sandbox_fd = open ("/etc/passwd", O_PATH | O_CLOEXEC);
  collect (with_fd, 5000, "does not announce a runtime descriptor but one came",
           "a descriptor the report does not announce");
  close (sandbox_fd);
  free (msg);

  /* The same report announcing the descriptor, and carrying it: the
     parent's own [runtime] shim (/usr/bin/true), and nothing else. */
  sample (&in);
  checker_encode (&in, true, NULL, 0, &msg, &msg_len, &err);
  report_release (&in);
  {
    struct report r = { 0 };
    struct stat a, b;
    int sock, fd = -1;
    pid_t pid;

    sandbox_fd = open ("/usr/bin/true", O_PATH | O_CLOEXEC);
    pid = child (&sock, with_fd);
    ok (checker_collect (pid, sock, 5000, NULL, &parent, &r, &fd, NULL, NULL, &err) == 0 && fd >= 0,
        "an announced descriptor of [runtime] shim is handed over");
    ok (fd >= 0 && fstat (fd, &a) == 0 && fstat (sandbox_fd, &b) == 0 && a.st_ino == b.st_ino
            && (fcntl (fd, F_GETFD) & FD_CLOEXEC),
        "it is the child's file, close-on-exec");
    close (sock);
    close (fd);
    close (sandbox_fd);
    report_release (&r);
  }
  hand_over ("/etc/passwd", "not a regular executable file",
             "a descriptor of a file that is no executable");
  hand_over ("/usr/bin/false", "is not [runtime] shim /usr/bin/true",
             "a descriptor of another trusted executable");
  hand_over ("/usr/bin", "not a regular executable file", "a descriptor of a directory");
  parent.mode = KG_MODE_OCI;
  hand_over ("/usr/bin/true", "[runtime] oci is not set",
             "a descriptor in OCI mode, no [runtime] oci");
  parent_cfg.runtime.oci = (char *) "/usr/bin/true";
  hand_over ("/usr/bin/true", "[runtime] oci_vm is false",
             "a descriptor in OCI mode, [runtime] oci not declared a VM runtime");
  parent_cfg.runtime.oci_vm = true;
  hand_over ("/usr/bin/true", NULL, "a descriptor of [runtime] oci, declared a VM runtime");
  parent.mode = KG_MODE_SHIM;
  parent_cfg.runtime.shim = (char *) "/etc/passwd";
  hand_over ("/usr/bin/true", "fails the parent's own check",
             "a descriptor when the parent's own [runtime] does not pass");
  parent_cfg.runtime.shim = (char *) "/usr/bin/true";
  collect (whole, 5000, "announces a runtime descriptor but none came",
           "an announced descriptor that does not come");
  free (msg);
}

/* Valgrind cannot run a seccomp filter (it has no handler for the call):
   under it only the reader's tests run. */
static bool
under_valgrind (void)
{
  const char *p = getenv ("LD_PRELOAD");

  return p != NULL && strstr (p, "vgpreload") != NULL;
}

int
main (void)
{
  if (under_valgrind ())
    ok (1, "# SKIP the confinement under valgrind (no seccomp there)");
  else
    test_confinement ();
  {
    int hostile_port, own_port, slow_port;
    int hostile = listener (&hostile_port), own = listener (&own_port);
    int slow = listener (&slow_port);

    parent_setup (own_port);
    test_codec ();
    test_collect ();
    test_requests (hostile, hostile_port, own);
    test_budgets (slow, slow_port);
    parent_cleanup ();
    close (hostile);
    close (own);
    close (slow);
  }
  return tap_done ();
}
