/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The checker's confinement (confine.h).  The order matters: the bounding
 * set can only shrink while CAP_SETPCAP is still held, the seccomp filter
 * can only be loaded unprivileged once no_new_privs is set, and the filter
 * comes last so that none of the set-up calls need to be on its list.
 *
 * What the allowlist holds was measured with `strace -f -c` on every check
 * path (kvm, kata with its drop-ins and regcomp, assets with libmount,
 * statx and OpenSSL's SHA-256, egress's socket/connect/poll/send/recv,
 * policy with json-c and libcap's name lookups), including the dlopen of
 * libmount and libcrypto, which are loaded here when first needed
 * (lazylib.h): reading and privately mapping a library.  Nothing on it creates,
 * truncates, removes, renames or writes a file: the checker still runs as
 * uid 0, and uid 0 owns most of the host's files whether or not it holds
 * capabilities, so the only descriptor it may write is the channel to its
 * parent.
 */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <seccomp.h>

#include "array.h"
#include "confine-rules.h"
#include "confine.h"
#include "error.h"
#include "seccomp-filter.h"

static bool
have_setpcap (void)
{
  cap_t now = cap_get_proc ();
  cap_flag_value_t v = CAP_CLEAR;

  if (now != NULL)
    cap_get_flag (now, CAP_SETPCAP, CAP_EFFECTIVE, &v);
  cap_free (now);
  return v == CAP_SET;
}

static int
drop_capabilities (kg_error_t *err)
{
  cap_t none = NULL;
  int r;

  if (prctl (PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 && errno != EINVAL)
    return kg_error (err, errno, "clear the ambient capabilities");
  /* Every capability the kernel knows, without asking first which the
     set holds: dropping one it lacks succeeds and changes nothing. */
  for (cap_value_t c = 0, n = (cap_value_t) cap_max_bits (); c < n; c++)
    if (cap_drop_bound (c) < 0)
      {
        /* Without CAP_SETPCAP (an unprivileged `kata-guard check`) the
           bounding set cannot shrink; it only limits what an execve could
           gain, and no_new_privs and the filter rule out both. */
        if (errno == EPERM && ! have_setpcap ())
          break;
        return kg_error (err, errno, "drop capability %d from the bounding set", (int) c);
      }
  none = cap_init ();
  if (none == NULL)
    return kg_error (err, errno, "cap_init");
  r = cap_set_proc (none);
  cap_free (none);
  if (r < 0)
    return kg_error (err, errno, "drop every capability");
  return 0;
}

/* A refused call traps instead of killing outright, so that its number
   reaches the parent through memory it shares with the child; then the
   process dies of SIGSYS all the same.  Trapping gives a compromised
   child nothing: the refused call has not run whether or not the signal
   is caught, and what it writes into the word only names a call in a
   refusal that happens anyway. */
static volatile uint32_t *refused_word;

#ifndef SYS_SECCOMP
#define SYS_SECCOMP 1 /* si_code of a seccomp trap; glibc hides it without __USE_GNU */
#endif

static void
on_refused (int sig, siginfo_t *si, void *ctx)
{
  (void) sig;
  (void) ctx;
  if (refused_word != NULL && si->si_code == SYS_SECCOMP)
    *refused_word = (uint32_t) si->si_syscall + 1;
  /* SIGSYS is blocked while its handler runs, so the kernel delivers a
     second refusal with the default action: the process ends, killed by
     SIGSYS.  getppid is on no list (tests/test-confine.c shows it). */
  syscall (SYS_getppid);
  _exit (127);
}

int
confine_enter (int report_fd, volatile uint32_t *refused, kg_error_t *err)
{
  struct sigaction sa;
  scmp_filter_ctx ctx;
  int r = 0;

  if (report_fd < 0)
    return kg_error (err, EBADF, "confine: no report descriptor");
  if (drop_capabilities (err) < 0)
    return -1;
  if (prctl (PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
    return kg_error (err, errno, "set no_new_privs");
  refused_word = refused;
  memset (&sa, 0, sizeof sa);
  sa.sa_sigaction = on_refused;
  sa.sa_flags = SA_SIGINFO;
  sigemptyset (&sa.sa_mask);
  if (sigaction (SIGSYS, &sa, NULL) < 0)
    return kg_error (err, errno, "catch SIGSYS");

  /* The filter for CONFINE_REPORT_FD was compiled at build time
     (seccomp-gen, from confine_rules: the same list), and is loaded as it
     is; for any other descriptor libseccomp builds it from the same
     rules here. */
  if (report_fd == CONFINE_REPORT_FD)
    {
      struct sock_fprog prog = { .len = (unsigned short) ARRAY_SIZE (kg_seccomp_filter),
                                 .filter = (struct sock_filter *) kg_seccomp_filter };

      if (syscall (SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) < 0)
        return kg_error (err, errno, "seccomp: load the filter");
      return 0;
    }
  ctx = seccomp_init (SCMP_ACT_TRAP);
  if (ctx == NULL)
    return kg_error (err, ENOMEM, "seccomp_init");
  r = confine_rules (ctx, report_fd, err);
  if (r == 0 && (r = seccomp_load (ctx)) < 0)
    r = kg_error (err, -r, "seccomp: load the filter");
  seccomp_release (ctx);
  return r < 0 ? -1 : 0;
}
