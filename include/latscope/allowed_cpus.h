/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_ALLOWED_CPUS_H
#define LATSCOPE_ALLOWED_CPUS_H

#include "latscope/cpuset.h"
#include "latscope/sysroot.h"

/*
 * The CPUs this process may be placed on are those its cpuset allows: the
 * kernel checks a new affinity against the cpuset, never against the
 * affinity the process started with. isolcpus= starts every task on the
 * housekeeping CPUs, yet leaves the isolated ones in the root cpuset, so
 * taskset -c (and latscope's own pinning) may still move there.
 */

/* Where the answer of allowed_cpus_read() came from. */
enum allowed_cpus_source {
	ALLOWED_CPUS_CGROUP2, /* cpuset.cpus.effective of the process's cgroup v2, or a parent's */
	ALLOWED_CPUS_CGROUP1, /* the cgroup v1 cpuset hierarchy's effective_cpus (or cpus) */
	ALLOWED_CPUS_NO_CPUSET, /* no cpuset confines the process: every online CPU */
	ALLOWED_CPUS_AFFINITY, /* the cpuset could not be read: the affinity, as given */
};

/**
 * allowed_cpus_read - the online CPUs sched_setaffinity() would accept
 * @root: where /proc/self/cgroup, /proc/self/mountinfo and the cgroup file
 *	  systems are read
 * @online: the online CPUs
 * @affinity: the process's current affinity (sched_getaffinity()): always
 *	      allowed, and the whole answer when the cpuset cannot be read
 * @allowed: receives the CPUs, a subset of @online
 *
 * On cgroup v2, reads cpuset.cpus.effective of the process's cgroup, walking
 * up to the parents while the file is absent (the controller is not enabled
 * there) or names no online CPU, as the kernel does. On cgroup v1, the same
 * on the cpuset hierarchy's cpuset.effective_cpus (cpuset.cpus before it
 * existed). Without cgroups, or with no cpuset controller anywhere, every
 * online CPU is allowed.
 *
 * A file that cannot be read or parsed, a cgroup not found under its mount,
 * or a cgroup namespace that hides the cpuset above it leaves the answer to
 * the affinity, with a warning through the log hook: that refuses no CPU
 * the process could not already use, where a guess could promise one the
 * kernel refuses.
 *
 * Returns where the answer came from; it cannot fail.
 */
enum allowed_cpus_source allowed_cpus_read(struct sysroot *root, const struct cpuset *online,
					   const struct cpuset *affinity, struct cpuset *allowed);

#endif
