/* SPDX-License-Identifier: GPL-2.0-or-later */
/* kvm.*: the real /dev/kvm passes; every wrong device fails with its reason. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "array.h"
#include "check-helpers.h"
#include "checks.h"
#include "preflight.h"
#include "kvm.h"
#include "request.h"
#include "tap.h"

static void
run (const char *device, bool create_vm, struct report *rep)
{
  struct guard_config cfg = { 0 };
  struct request req = { .mode = KG_MODE_CHECK };
  struct preflight pf;

  memset (rep, 0, sizeof *rep);
  cfg.kvm.device = (char *) device;
  cfg.kvm.create_vm = create_vm;
  preflight_init (&pf, &req, &cfg, rep);
  check_kvm (&pf);
  preflight_release (&pf);
}

static void
expect_device_failure (const char *label, const char *device, const char *want)
{
  struct report rep;

  run (device, true, &rep);
  is_int (report_verdict (&rep, "kvm.device"), VERDICT_FAIL, "%s: kvm.device fails", label);
  has_str (report_reason (&rep, "kvm.device"), device, "%s: the reason names the path", label);
  has_str (report_reason (&rep, "kvm.device"), want, "%s: the reason says '%s'", label, want);
  ok (report_find (&rep, "kvm.device")->remedy != NULL, "%s: a remedy is given", label);
  is_int (report_verdict (&rep, "kvm.open"), VERDICT_SKIP, "%s: kvm.open is not run", label);
  is_int (report_verdict (&rep, "kvm.create_vm"), VERDICT_SKIP, "%s: kvm.create_vm is not run",
          label);
  is_int (report_overall (&rep), VERDICT_FAIL, "%s: the overall verdict is fail", label);
  report_release (&rep);
}

int
main (void)
{
  char dir[] = "/tmp/kg-test-kvm.XXXXXX";
  char file[sizeof dir + 16], missing[sizeof dir + 16], link[sizeof dir + 16];
  struct report rep;
  int fd;

  if (mkdtemp (dir) == NULL)
    abort ();
  snprintf (file, sizeof file, "%s/regular", dir);
  snprintf (missing, sizeof missing, "%s/missing", dir);
  snprintf (link, sizeof link, "%s/kvm-link", dir);
  fd = open (file, O_WRONLY | O_CREAT | O_EXCL, 0600);
  if (fd < 0)
    abort ();
  close (fd);

  expect_device_failure ("missing path", missing, "No such file or directory");
  expect_device_failure ("regular file", file,
                         "is a regular file, not the KVM character device 10:232");
  expect_device_failure ("directory", dir, "is a directory");
  expect_device_failure ("/dev/null", "/dev/null", "is character device 1:3, not KVM (10:232)");

  /* The real device. */
  fd = open ("/dev/kvm", O_RDWR | O_CLOEXEC);
  if (fd < 0)
    {
      printf ("# /dev/kvm cannot be opened (%s): the real-device cases are skipped\n",
              strerror (errno));
      run ("/dev/kvm", true, &rep);
      ok (report_overall (&rep) == VERDICT_FAIL, "an unusable /dev/kvm fails");
      report_release (&rep);
    }
  else
    {
      close (fd);
      run ("/dev/kvm", true, &rep);
      is_int (report_verdict (&rep, "kvm.device"), VERDICT_PASS, "/dev/kvm: kvm.device passes");
      is_int (report_verdict (&rep, "kvm.open"), VERDICT_PASS, "/dev/kvm: kvm.open passes");
      is_int (report_verdict (&rep, "kvm.api"), VERDICT_PASS, "/dev/kvm: kvm.api passes");
      is_int (report_verdict (&rep, "kvm.create_vm"), VERDICT_PASS,
              "/dev/kvm: kvm.create_vm passes");
      is_int (rep.n, 4, "/dev/kvm: exactly four results");
      is_int (report_overall (&rep), VERDICT_PASS, "/dev/kvm: overall pass");
      report_release (&rep);

      run ("/dev/kvm", false, &rep);
      is_int (report_verdict (&rep, "kvm.create_vm"), VERDICT_SKIP,
              "create_vm = false: kvm.create_vm is skipped, not passed");
      has_str (report_reason (&rep, "kvm.create_vm"), "create_vm = false", "the skip says why");
      is_int (report_overall (&rep), VERDICT_PASS, "create_vm = false: overall pass");
      report_release (&rep);

      if (symlink ("/dev/kvm", link) == 0)
        {
          run (link, true, &rep);
          is_int (report_overall (&rep), VERDICT_PASS, "a symlink to /dev/kvm passes");
          report_release (&rep);
          unlink (link);
        }
    }

  /* Non-root with a device that exists but cannot be opened read-write. */
  if (geteuid () != 0 && access ("/dev/kvm", R_OK | W_OK) != 0 && access ("/dev/kvm", F_OK) == 0)
    {
      run ("/dev/kvm", true, &rep);
      is_int (report_verdict (&rep, "kvm.open"), VERDICT_FAIL, "no access: kvm.open fails");
      report_release (&rep);
    }

  unlink (file);
  rmdir (dir);
  /* The remedy by the CPU's flags (issue 39: a guest without nested
     virtualisation was told to modprobe kvm_intel). */
  {
    static const struct
    {
      const char *what, *cpuinfo, *want;
    } rows[] = {
      { "Intel", "processor\t: 0\nflags\t\t: fpu vme vmx sse\n", "modprobe kvm_intel" },
      { "AMD", "processor\t: 0\nflags\t\t: fpu svm sse\n", "modprobe kvm_amd" },
      { "a guest without nested virtualisation", "processor\t: 0\nflags\t\t: fpu sse hypervisor\n",
        "this host cannot run VMs" },
      { "a flag only like vmx", "flags\t\t: vmxx svm_lock\n", "this host cannot run VMs" },
      { "vmx in another line only", "model name\t: vmx svm\nflags\t\t: fpu\n",
        "this host cannot run VMs" },
      { "the flags last, no newline", "flags\t\t: fpu vmx", "modprobe kvm_intel" },
      { "no /proc/cpuinfo", NULL, "modprobe kvm_intel or modprobe kvm_amd" },
    };

    for (size_t i = 0; i < ARRAY_SIZE (rows); i++)
      has_str (kvm_remedy (rows[i].cpuinfo), rows[i].want, "kvm remedy, %s: '%s'", rows[i].what,
               rows[i].want);
  }
  return tap_done ();
}
