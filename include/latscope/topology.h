/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_TOPOLOGY_H
#define LATSCOPE_TOPOLOGY_H

#include "latscope/cpuset.h"
#include "latscope/sysroot.h"

#define TOPOLOGY_MAX_NODES 1024

/* Where one CPU sits. -1 when the kernel does not say. */
struct cpu_place {
	int node;
	int first_sibling; /* lowest CPU of its SMT sibling group: one per physical core */
};

/*
 * What the kernel says about the CPUs: online and possible CPUs, NUMA nodes,
 * SMT siblings, and the CPUs kept for real-time work (isolated, nohz_full);
 * housekeeping is online minus both.
 */
struct topology {
	struct cpuset possible;
	struct cpuset online;
	struct cpuset isolated;
	struct cpuset nohz_full;
	struct cpuset housekeeping;
	unsigned int nr_cpus; /* highest possible CPU + 1 */
	unsigned int nr_nodes; /* highest node + 1; 1 without NUMA */
	struct cpuset *node_cpus; /* nr_nodes entries */
	struct cpu_place *cpus; /* nr_cpus entries */
};

/**
 * topology_load - read the CPU topology from sysfs
 * @root: where to read
 * @topo: receives the topology; release it with topology_release()
 *
 * Missing optional files (isolated, nohz_full, node directories) mean empty
 * sets; a missing or malformed online list is an error.
 * Returns 0 or a negative errno code, logged.
 */
int topology_load(struct sysroot *root, struct topology *topo);
void topology_release(struct topology *topo);

/* the node of @cpu, 0 when unknown */
int topology_cpu_node(const struct topology *topo, unsigned int cpu);

/**
 * topology_smt_siblings - the CPUs sharing a physical core with @cpu
 * @topo: the topology
 * @cpu: a CPU
 * @siblings: receives the set, @cpu included
 */
void topology_smt_siblings(const struct topology *topo, unsigned int cpu, struct cpuset *siblings);

#endif
