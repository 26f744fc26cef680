/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The check result model: every check appends results to a report; the
 * report is the only thing that leaves preflight/.  A result is a stable id
 * ("kvm.device"), a verdict, a one-line reason and (unless it passed) a
 * remedy.
 */
#ifndef KG_RESULT_H
#define KG_RESULT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Ordered by severity: the overall verdict is the worst one seen, except
   that skip never outranks pass (a skipped check is reported, not failed). */
enum verdict
{
  VERDICT_PASS,
  VERDICT_SKIP,
  VERDICT_WARN,
  VERDICT_FAIL,
};

/* What a refusal stops, and so whether [policy] mode = "audit" may let
   it through: only what stays inside the container's own VM (REACH_VM:
   the limit on its memory inside the guest, its capabilities and seccomp
   filter there, its masks and mount namespace in the guest kernel).
   What reaches the host (its devices, files, namespaces, hooks that run
   there, Kata's own configuration, the SELinux label Kata gives its
   hypervisor and virtiofsd there), another container or its VM, the
   egress or the count of the host's memory is enforced in audit mode
   too (REACH_HOST).  Set where the check is judged (a policy rule's row,
   policy-int.h's POLICY_RULES), carried through the checker's codec;
   every other result, and one added by report_add, reaches the host. */
enum reach
{
  REACH_HOST, /* the host, another container, the egress or the count */
  REACH_VM,   /* only the container's own VM */
};

struct check_result
{
  char *id;
  enum verdict verdict;
  char *reason;
  char *remedy; /* may be NULL */
  enum reach reach;
};

/* The VM a start asks for, as policy.resources sized it (policy-resources.c), for
   policy.capacity (capacity.h) in the parent: which VM it is and what it
   adds to the memory the host has committed to guarded VMs. */
enum vm_role
{
  VM_NONE,    /* not sized (policy.resources could not size it, or no bundle) */
  VM_SOLO,    /* a VM of its own */
  VM_SANDBOX, /* a pod's VM, started by its sandbox */
  VM_MEMBER,  /* a container joining its pod sandbox's VM */
};
#define VM_POD_MAX 64 /* a sandbox id (policy_valid_id) */
struct vm_claim
{
  enum vm_role role;
  int64_t mem_mib;          /* SOLO, SANDBOX: the VM's memory as it boots or grows for this start */
  int64_t base_mib;         /* SANDBOX: the runtime's default memory, what its members' add to */
  int64_t add_mib;          /* MEMBER: what it hot-plugs into the pod's VM (0: static sizing) */
  char pod[VM_POD_MAX + 1]; /* MEMBER: its sandbox's container id */
};

struct report
{
  struct check_result *results;
  size_t n;
  size_t cap;
  char **files; /* files the checks read (configs), in order */
  size_t n_files;
  /* The Kata configuration the kata family loaded: 1 + its index in
     files; 0 when none loaded (report_kata_config ()). */
  size_t kata_file;
  bool oom; /* an allocation failed: the report is incomplete */
  /* What the start itself must know of the container: it is a pod
     sandbox (CRI's io.kubernetes.cri.container-type = "sandbox"), which
     other containers join without a start of their own (kata-guard(8),
     SANDBOXES). */
  bool pod_sandbox;
  struct vm_claim vm;
  /* [policy] mode ("enforce", "audit"), for the output to show first;
     NULL: not said (set by the command, never by the checks). */
  const char *policy_mode;
};

/* Append a result.  Never fails from the caller's point of view: if memory
   runs out the report is marked incomplete and its overall verdict is fail,
   so no allocation failure can turn into a pass. */
void report_add (struct report *r, const char *id, enum verdict v, const char *remedy,
                 const char *fmt, ...) __attribute__ ((format (printf, 5, 6)));
#define report_pass(r, id, ...) report_add ((r), (id), VERDICT_PASS, NULL, __VA_ARGS__)
#define report_fail(r, id, remedy, ...) report_add ((r), (id), VERDICT_FAIL, (remedy), __VA_ARGS__)
#define report_warn(r, id, remedy, ...) report_add ((r), (id), VERDICT_WARN, (remedy), __VA_ARGS__)
#define report_skip(r, id, ...) report_add ((r), (id), VERDICT_SKIP, NULL, __VA_ARGS__)

/* Set the reach of R's results from the FROM'th on (those one check
   added). */
void report_set_reach (struct report *r, size_t from, enum reach reach);

void report_add_file (struct report *r, const char *path);
/* Add PATH to the files as the Kata configuration the checks used. */
void report_add_kata_file (struct report *r, const char *path);
/* That configuration, or NULL. */
const char *report_kata_config (const struct report *r);
enum verdict report_overall (const struct report *r);
const struct check_result *report_find (const struct report *r, const char *id);
size_t report_count (const struct report *r, enum verdict v);
/* Frees what R holds and zeroes it (safe on a zeroed one). */
void report_release (struct report *r);
#define cleanup_report __attribute__ ((cleanup (report_release)))

const char *verdict_name (enum verdict v);

#endif
