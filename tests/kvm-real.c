/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The real kvm family under another name, for the stand-in test build
 * (tests/kvm-standin.c): preflight/families/kvm.c as the product compiles it, with
 * its entry point renamed so that the stand-in can hand it every device
 * path it does not answer for.  Never linked into kata-guard.
 */
#define check_kvm check_kvm_real
#include "preflight/families/kvm.c"
