/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * kvm.*: what the family exposes for the tests.  check_kvm () is the
 * family (checks.h).
 */
#ifndef KG_KVM_H
#define KG_KVM_H

/* The remedy for a KVM device that is missing or cannot make a VM, by
   the CPU flags of CPUINFO (the text of /proc/cpuinfo, or NULL when it
   could not be read): a CPU with vmx or svm needs its module (kvm_intel,
   kvm_amd) or the firmware's switch; one with neither offers no hardware
   virtualisation at all (a VM without nested virtualisation), and no
   module can help. */
const char *kvm_remedy (const char *cpuinfo);

#endif
