/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The kvm family's stand-in, linked beside the product's objects into the
 * test build tests/kvm-standin/kata-guard, never into kata-guard (Makefile.am;
 * tests/standin.test proves the shipped binary holds none of it).  On a build
 * host that is itself a guest without nested KVM there is no /dev/kvm and
 * nothing can make one, yet the engine tests must still run every start
 * through the guard.  So this build answers for one path only, the one the
 * tests configure ([kvm] device = "/dev/kvm"), and only while it does not
 * exist; every other path, and /dev/kvm wherever it exists, is judged by the
 * real family (tests/kvm-real.c), so that the tests that expect a kvm
 * refusal still see the real one.  Its results say what it is.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "checks.h"

void check_kvm_real (struct preflight *pf); /* tests/kvm-real.c */

#define STANDIN_DEVICE "/dev/kvm"
#define STANDIN_SAYS "KVM STAND-IN of the test build: this host has no " STANDIN_DEVICE

void
check_kvm (struct preflight *pf)
{
  static const char *const ids[] = { "kvm.device", "kvm.open", "kvm.api", "kvm.create_vm" };
  const char *dev = pf->cfg->kvm.device;
  int fd;

  if (strcmp (dev, STANDIN_DEVICE) != 0)
    {
      check_kvm_real (pf);
      return;
    }
  fd = open (dev, O_PATH | O_CLOEXEC);
  if (fd >= 0 || errno != ENOENT)
    {
      if (fd >= 0)
        close (fd);
      check_kvm_real (pf);
      return;
    }
  for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++)
    if (i == 3 && ! pf->cfg->kvm.create_vm)
      report_skip (pf->rep, ids[i], "switched off by [kvm] create_vm = false");
    else
      report_pass (pf->rep, ids[i], "%s (tests/kvm-standin.c)", STANDIN_SAYS);
}
