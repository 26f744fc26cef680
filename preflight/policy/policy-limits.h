/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What policy.resources' limits (policy-limits.c) lend the rest of
   policy.resources (policy-resources.c) and runc's exec and update
   (policy-runc.c) */
#ifndef KG_POLICY_LIMITS_H
#define KG_POLICY_LIMITS_H

#include "policy-int.h"

void host_limits (const struct policy_ctx *c, struct policy_findings *f);
/* The pieces of host_limits, for every entry point that hands the runtime
   the same fields (a start's config.json; runc exec's process.json and
   runc update's resources, policy-runc.c): cpu.cpus and cpu.mems of CPU
   (a linux.resources.cpu object, or NULL) against NS's online lists;
   PROCESS's oomScoreAdj against CFG and rlimits against NS's hard limits;
   a resctrl group (WHAT asks for it) unless [policy] intel_rdt. */
void limits_cpuset (const struct engine_ns *ns, struct jv *cpu, struct policy_findings *f);
void limits_process (const struct guard_config *cfg, const struct engine_ns *ns, struct jv *process,
                     struct policy_findings *f);
void limits_intel_rdt (const struct guard_config *cfg, const char *what, struct policy_findings *f);

#endif
