/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The checker's seccomp allowlist (confine.h): one list, compiled by
 * libseccomp at build time into seccomp-filter.h (seccomp-gen) for the
 * checker's channel, and at run time for any other descriptor.
 *
 * What the allowlist holds was measured with `strace -f -c` on every check
 * path (kvm, kata with its drop-ins and regcomp, assets with libmount,
 * statx and OpenSSL's SHA-256, egress's socket/connect/poll/send/recv,
 * policy with json-c and libcap's name lookups), including the dlopen of
 * libmount and libcrypto, which are loaded when first needed (lazylib.h):
 * reading and privately mapping a library.  Nothing on it creates,
 * truncates, removes, renames or writes a file: the checker still runs as
 * uid 0, and uid 0 owns most of the host's files whether or not it holds
 * capabilities, so the only descriptor it may write is the channel to its
 * parent.
 */
#include "config.h"

#include <fcntl.h>
#include <linux/fs.h>
#include <linux/kvm.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <seccomp.h>

#include "array.h"
#include "confine-rules.h"
#include "error.h"

/* Allowed with any arguments: reading, memory, time, signals of its own,
   and the calls a connected TCP socket needs.  Measured in the child after
   the filter, a whole `kata-guard check --bundle` makes only brk close
   connect exit_group futex geteuid getrandom getsockopt ioctl newfstatat
   openat poll pread64 read recvfrom sendmsg sendto socket; the rest below
   is what glibc may use instead on other paths (statx, mmap for a large
   allocation, a restarted sleep) and reads or changes nothing outside the
   process.  Names, not numbers, so that
   a call this architecture lacks is simply skipped. */
/* clang-format off */
static const char *const allow_any[] = {
  /* files: read and inspect, never change */
  "read", "pread64", "readv", "close", "lseek", "_llseek",
  "fstat", "stat", "lstat", "newfstatat", "fstatat64", "statx", "fstat64", "stat64", "lstat64",
  "fstatfs", "statfs", "fstatfs64", "statfs64",
  "getdents64", "getdents", "readlink", "readlinkat",
  "access", "faccessat", "faccessat2", "fcntl", "fcntl64", "dup", "dup3",
  "getcwd", "fadvise64", "fadvise64_64",
  /* memory */
  "brk", "munmap", "mremap", "mprotect", "madvise",
  /* the process itself */
  "exit", "exit_group", "getpid", "gettid", "getuid", "geteuid", "getgid",
  "getegid", "getuid32", "geteuid32", "getgid32", "getegid32", "getrandom", "uname",
  "sysinfo", "getrlimit", "ugetrlimit", "sched_getaffinity", "set_robust_list",
  "rseq", "futex", "futex_time64", "restart_syscall",
  "rt_sigaction", "rt_sigprocmask", "rt_sigreturn", "sigreturn", "sigaltstack",
  /* time */
  "clock_gettime", "clock_gettime64", "clock_getres", "gettimeofday", "time",
  "nanosleep", "clock_nanosleep", "clock_nanosleep_time64",
  /* waiting on the proxy connection (egress) */
  "poll", "ppoll", "ppoll_time64", "pselect6", "pselect6_time64", "select", "_newselect",
  /* a TCP socket once made (socket itself is filtered below) */
  "connect", "sendto", "recvfrom", "recvmsg", "getsockopt",
};
/* clang-format on */

static int
add_any (scmp_filter_ctx ctx, const char *name, kg_error_t *err)
{
  int nr = seccomp_syscall_resolve_name (name);
  int r;

  if (nr == __NR_SCMP_ERROR || nr < 0)
    return 0; /* not a system call on this architecture */
  r = seccomp_rule_add (ctx, SCMP_ACT_ALLOW, nr, 0);
  if (r < 0)
    return kg_error (err, -r, "seccomp: allow %s", name);
  return 0;
}

/* Linux 6.11; older headers lack it, older kernels answer EINVAL. */
#ifdef MAP_DROPPABLE
#define KG_MAP_DROPPABLE MAP_DROPPABLE
#else
#define KG_MAP_DROPPABLE 0x08
#endif

/* Opening is allowed, but never so that it creates or truncates. */
#define OPEN_CHANGES (O_CREAT | O_TRUNC | (O_TMPFILE & ~O_DIRECTORY))

static int
add_filtered (scmp_filter_ctx ctx, int report_fd, kg_error_t *err)
{
  /* The socket type without the flags that do not change what it is. */
  const uint64_t type_mask = ~(uint64_t) (SOCK_NONBLOCK | SOCK_CLOEXEC);
  static const int domains[] = { AF_INET, AF_INET6 };
  static const int protocols[] = { 0, IPPROTO_TCP };
  static const unsigned long ioctls[] = { KVM_GET_API_VERSION, KVM_CREATE_VM, FS_IOC_GETFLAGS };
  int r;

#define RULE(nr, n, ...)                                                                           \
  do                                                                                               \
    if ((r = seccomp_rule_add (ctx, SCMP_ACT_ALLOW, (nr), (n), __VA_ARGS__)) < 0)                  \
      return kg_error (err, -r, "seccomp: allow %s", #nr);                                         \
  while (0)

  RULE (SCMP_SYS (openat), 1, SCMP_A2 (SCMP_CMP_MASKED_EQ, OPEN_CHANGES, 0));
  if (seccomp_syscall_resolve_name ("open") >= 0)
    RULE (SCMP_SYS (open), 1, SCMP_A1 (SCMP_CMP_MASKED_EQ, OPEN_CHANGES, 0));
  /* Private mappings only: a shared writable mapping would write the file.
     And anonymous droppable ones, where glibc 2.41 and later keep the vDSO
     getrandom state: memory the kernel may reclaim, of no file. */
  RULE (SCMP_SYS (mmap), 1, SCMP_A3 (SCMP_CMP_MASKED_EQ, MAP_TYPE, MAP_PRIVATE));
  RULE (SCMP_SYS (mmap), 1,
        SCMP_A3 (SCMP_CMP_MASKED_EQ, MAP_TYPE | MAP_ANONYMOUS, KG_MAP_DROPPABLE | MAP_ANONYMOUS));
  /* The one descriptor that may be written: the channel to the parent. */
  RULE (SCMP_SYS (write), 1, SCMP_A0 (SCMP_CMP_EQ, (uint64_t) report_fd));
  RULE (SCMP_SYS (sendmsg), 1, SCMP_A0 (SCMP_CMP_EQ, (uint64_t) report_fd));
  for (size_t d = 0; d < ARRAY_SIZE (domains); d++)
    for (size_t p = 0; p < ARRAY_SIZE (protocols); p++)
      RULE (SCMP_SYS (socket), 3, SCMP_A0 (SCMP_CMP_EQ, (uint64_t) domains[d]),
            SCMP_A1 (SCMP_CMP_MASKED_EQ, type_mask, SOCK_STREAM),
            SCMP_A2 (SCMP_CMP_EQ, (uint64_t) protocols[p]));
  /* The kernel reads the request as 32 bits; compare those. */
  for (size_t i = 0; i < ARRAY_SIZE (ioctls); i++)
    RULE (SCMP_SYS (ioctl), 1, SCMP_A1 (SCMP_CMP_MASKED_EQ, 0xffffffffu, ioctls[i] & 0xffffffffu));
#undef RULE
  return 0;
}

int
confine_rules (scmp_filter_ctx ctx, int report_fd, kg_error_t *err)
{
  int r;

  /* seccomp_init makes a filter for the native architecture only; any
     other (an x32 or i386 call on x86_64) is killed outright. */
  if ((r = seccomp_attr_set (ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS)) < 0)
    return kg_error (err, -r, "seccomp: kill on a foreign architecture");
  for (size_t i = 0; i < ARRAY_SIZE (allow_any); i++)
    if (add_any (ctx, allow_any[i], err) < 0)
      return -1;
  return add_filtered (ctx, report_fd, err);
}
