/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * kvm.*: the configured device really is KVM and can build a VM (kata-guard(8), CHECKS).
 *
 * The device is opened once with O_PATH and every later step works on that
 * descriptor (fstat, then a read-write reopen through /proc/self/fd), so a
 * path swapped between the checks cannot make them look at different files.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/kvm.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "array.h"
#include "checks.h"
#include "cleanup.h"
#include "kvm.h"

#define KVM_MAJOR 10
#define KVM_MINOR 232

static const char remedy_module[]
    = "load the KVM module (modprobe kvm_intel or modprobe kvm_amd), enable virtualisation "
      "in the firmware, or nested virtualisation when this host is itself a VM";

/* Whether WORD is one of the words of the first "flags" line of CPUINFO. */
static bool
cpu_flag (const char *cpuinfo, const char *word)
{
  const char *line = cpuinfo;
  size_t n = strlen (word);

  while (line != NULL && *line != '\0')
    {
      const char *end = strchr (line, '\n');
      size_t len = end ? (size_t) (end - line) : strlen (line);

      if (len > 5 && strncmp (line, "flags", 5) == 0 && (line[5] == '\t' || line[5] == ' '))
        {
          const char *colon = memchr (line, ':', len);

          for (const char *p = colon ? colon + 1 : line + len; p < line + len;)
            {
              size_t w;

              while (p < line + len && *p == ' ')
                p++;
              w = strcspn (p, " \n");
              if (p + w > line + len)
                w = (size_t) (line + len - p);
              if (w == n && memcmp (p, word, n) == 0)
                return true;
              p += w;
            }
          return false;
        }
      line = end ? end + 1 : NULL;
    }
  return false;
}

const char *
kvm_remedy (const char *cpuinfo)
{
  if (cpuinfo == NULL)
    return remedy_module;
  if (cpu_flag (cpuinfo, "vmx"))
    return "load the KVM module (modprobe kvm_intel); if it refuses, enable VT-x in the "
           "firmware";
  if (cpu_flag (cpuinfo, "svm"))
    return "load the KVM module (modprobe kvm_amd); if it refuses, enable AMD-V (SVM) in the "
           "firmware";
  return "this host cannot run VMs: its CPU offers no hardware virtualisation (no vmx or svm "
         "flag in /proc/cpuinfo), as in a VM without nested virtualisation or with "
         "virtualisation off in the firmware; no module can change that: run the guarded "
         "runtime on a host or instance type that offers it";
}

/* kvm_remedy for this host (the first 64 KiB of /proc/cpuinfo hold the
   first processor's flags). */
static const char *
host_remedy (char *buf, size_t size)
{
  cleanup_close int fd = open ("/proc/cpuinfo", O_RDONLY | O_CLOEXEC);
  size_t len = 0;

  if (fd < 0)
    return kvm_remedy (NULL);
  while (len + 1 < size)
    {
      ssize_t n = read (fd, buf + len, size - 1 - len);

      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        break;
      len += (size_t) n;
    }
  buf[len] = '\0';
  return kvm_remedy (len > 0 ? buf : NULL);
}

static void
skip_rest (struct report *rep, const char *from, const char *why)
{
  static const char *const ids[] = { "kvm.device", "kvm.open", "kvm.api", "kvm.create_vm" };
  bool after = false;

  for (size_t i = 0; i < ARRAY_SIZE (ids); i++)
    {
      if (after)
        report_skip (rep, ids[i], "not run: %s", why);
      if (strcmp (ids[i], from) == 0)
        after = true;
    }
}

void
check_kvm (struct preflight *pf)
{
  const struct guard_config *cfg = pf->cfg;
  struct report *rep = pf->rep;
  const char *dev = cfg->kvm.device;
  cleanup_close int pfd = -1;
  cleanup_close int fd = -1;
  cleanup_close int vm = -1;
  char proc[64];
  struct stat st;
  int api;

  /* kvm.device: a character device with KVM's numbers. */
  pfd = open (dev, O_PATH | O_CLOEXEC);
  if (pfd < 0 || fstat (pfd, &st) < 0)
    {
      int e = errno;
      static char cpuinfo[1 << 16];

      report_fail (rep, "kvm.device",
                   e == ENOENT ? host_remedy (cpuinfo, sizeof cpuinfo) : remedy_module, "%s: %s",
                   dev, strerror (e));
      skip_rest (rep, "kvm.device", "kvm.device failed");
      return;
    }
  if (! S_ISCHR (st.st_mode))
    {
      const char *kind = S_ISDIR (st.st_mode)   ? "a directory"
                         : S_ISREG (st.st_mode) ? "a regular file"
                         : S_ISBLK (st.st_mode) ? "a block device"
                                                : "not a character device";
      report_fail (rep, "kvm.device", remedy_module, "%s is %s, not the KVM character device %d:%d",
                   dev, kind, KVM_MAJOR, KVM_MINOR);
      skip_rest (rep, "kvm.device", "kvm.device failed");
      return;
    }
  if (major (st.st_rdev) != KVM_MAJOR || minor (st.st_rdev) != KVM_MINOR)
    {
      report_fail (rep, "kvm.device",
                   "point [kvm] device at the KVM device (mknod /dev/kvm c 10 232), or load "
                   "the KVM module",
                   "%s is character device %u:%u, not KVM (%d:%d)", dev, major (st.st_rdev),
                   minor (st.st_rdev), KVM_MAJOR, KVM_MINOR);
      skip_rest (rep, "kvm.device", "kvm.device failed");
      return;
    }
  report_pass (rep, "kvm.device", "%s is the KVM character device %d:%d", dev, KVM_MAJOR,
               KVM_MINOR);

  /* kvm.open: the very inode checked above, read-write. */
  snprintf (proc, sizeof proc, "/proc/self/fd/%d", pfd);
  fd = open (proc, O_RDWR | O_CLOEXEC | O_NOCTTY);
  if (fd < 0)
    {
      int e = errno;

      report_fail (rep, "kvm.open",
                   e == EACCES || e == EPERM
                       ? "run the engine as root, or give its user read-write access to the "
                         "device (group kvm, mode 0660)"
                       : remedy_module,
                   "cannot open %s read-write: %s", dev, strerror (e));
      skip_rest (rep, "kvm.open", "kvm.open failed");
      return;
    }
  report_pass (rep, "kvm.open", "%s opens read-write", dev);

  /* kvm.api: the stable API every hypervisor is written against. */
  api = ioctl (fd, KVM_GET_API_VERSION, 0);
  if (api != KVM_API_VERSION)
    {
      int e = errno;

      if (api < 0)
        report_fail (rep, "kvm.api", remedy_module, "KVM_GET_API_VERSION on %s failed: %s", dev,
                     strerror (e));
      else
        report_fail (rep, "kvm.api", "use a kernel whose KVM API version is 12",
                     "%s reports KVM API version %d, not %d", dev, api, KVM_API_VERSION);
      skip_rest (rep, "kvm.api", "kvm.api failed");
      return;
    }
  report_pass (rep, "kvm.api", "%s speaks KVM API version %d", dev, api);

  /* kvm.create_vm: the device can actually make a VM (no memory is mapped,
     so this is cheap; the VM is gone when its descriptor is closed). */
  if (! cfg->kvm.create_vm)
    {
      report_skip (rep, "kvm.create_vm", "switched off by [kvm] create_vm = false");
      return;
    }
  vm = ioctl (fd, KVM_CREATE_VM, 0UL);
  if (vm < 0)
    {
      int e = errno;

      report_fail (rep, "kvm.create_vm",
                   "check dmesg for KVM errors; enable nested virtualisation when this host is "
                   "a VM (kvm_intel nested=1 / kvm_amd nested=1), or free memory",
                   "KVM_CREATE_VM on %s failed: %s", dev, strerror (e));
      return;
    }
  report_pass (rep, "kvm.create_vm", "%s created a VM", dev);
}
