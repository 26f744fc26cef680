/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * policy.capacity (kata-guard(8), CAPACITY): the memory the host has
 * committed to the guarded VMs alive now, plus what this start adds,
 * must fit [policy] max_committed_memory_mib (0: MemTotal less
 * committed_memory_reserve_mib).
 *
 * A Kata VM is counted at the most it can grow to (policy.resources
 * computes it: its boot size where Kata never resizes it, else up to
 * default_maxmemory); the host hands the memory out as the guest touches
 * it, so every VM alive may grow to that.  Each allowed start records its VM in
 * RUNDIR/capacity (rundir.h), named as the runtime records are (the
 * SHA-256 of mode, scope and id: record.h); every reader tells records
 * apart by the identity inside (a start refuses when its name holds
 * another container's record), and a count reads every record, under one lock
 * that a start holds from the count to the write of its record, so
 * concurrent starts are counted one after the other.
 *
 * A record is alive while the engine still holds the container: its
 * bundle directory is the one that was checked (same device and inode:
 * containerd removes a task's bundle when the task is deleted, and when
 * its shim died), and in OCI mode, once the runtime wrote its --pid-file,
 * the process it names is alive and no younger than that file.  A dead
 * record is removed by the next start's count.  A pod's VM is its
 * sandbox's record, at the pod VM's ceiling; its members are listed under
 * that record.  (A member's add, the larger of the sandbox's size and the
 * highest sum its live members reached, is still summed here: the checker
 * now claims 0 for every member, as the pod's ceiling holds whatever they
 * hot-plug.)
 *
 * The sizes come from the confined checker's report (report.vm), as
 * bounded numbers checked by the codec; the bound, the records, their
 * liveness and the sum are the parent's own.
 */
#ifndef KG_CAPACITY_H
#define KG_CAPACITY_H

#include <stddef.h>

#include "conf.h"
#include "error.h"
#include "mode.h"
#include "record.h"
#include "result.h"

/* The start being counted. */
struct capacity_start
{
  enum kg_mode mode;    /* KG_MODE_CHECK: count only, lock and write nothing */
  const char *scope;    /* record.h's scope: the namespace, or OCI --root */
  const char *id;       /* the container, or NULL (check without a bundle) */
  const char *bundle;   /* its bundle directory, or NULL */
  const char *pid_file; /* OCI mode: runc's --pid-file, absolute, or NULL */
};

/* A count in progress: the lock, and the record to write if the start
   goes ahead. */
struct capacity
{
  int dir, lock;               /* -1 when not open */
  char name[RECORD_NAME_SIZE]; /* the record to write (its file name), "" for none */
  char *text;
  size_t len;
};
#define CAPACITY_INIT                                                                              \
  {                                                                                                \
    .dir = -1, .lock = -1                                                                          \
  }

/* policy.capacity is the parent's own step of a start's decision
   (wrapper.c's decide: the guard config, the confined checker's report,
   then this), not one of the checker's rules: it needs the records in
   RUNDIR and a lock held from the count until the start's record is
   written, which the confined child cannot hold.  Its result comes after
   the checker's, under its own id, and reaches the host's count: audit
   mode never lets it through. */
#define CAPACITY_ID "policy.capacity"
#define CAPACITY_REACH REACH_HOST

/* Count the live records, judge VM (the start's claim) against the bound
   and add CAPACITY_ID to REP, of CAPACITY_REACH.  A start (mode shim or OCI) takes the
   lock, removes the dead records and keeps the lock in *CAP until
   capacity_commit or capacity_release; `check` only reads.  DEADLINE_MS
   bounds the wait for the lock. */
void capacity_judge (const struct guard_config *cfg, const struct capacity_start *s,
                     const struct vm_claim *vm, int64_t deadline_ms, struct report *rep,
                     struct capacity *cap);
/* The start goes ahead: write its record, then release the lock. */
int capacity_commit (struct capacity *cap, kg_error_t *err);
/* Release the lock without writing anything. */
void capacity_release (struct capacity *cap);
/* Whether the guard allowed a start of container ID of SCOPE in BUNDLE
   and still holds its record (alive or not yet pruned): 1 yes, 0 no (no
   record, another container's, another bundle's), -1 with *ERR. */
int capacity_started_in (enum kg_mode mode, const char *scope, const char *id, const char *bundle,
                         kg_error_t *err);
/* Remove the record of container ID (OCI delete, an undone start), when
   it is that container's.  ERR may be NULL. */
int capacity_forget (enum kg_mode mode, const char *scope, const char *id, kg_error_t *err);

#endif
