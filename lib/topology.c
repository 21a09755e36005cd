// SPDX-License-Identifier: GPL-2.0-or-later
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "latscope/log.h"
#include "latscope/topology.h"

#define CPU_DIR "/sys/devices/system/cpu"
#define NODE_DIR "/sys/devices/system/node"

static int read_optional_list(struct sysroot *root, struct cpuset *set, const char *name)
{
	int ret = sysroot_read_cpulist(root, set, CPU_DIR "/%s", name);

	if (ret == -ENOENT) {
		cpuset_clear(set);
		return 0;
	}
	if (ret)
		log_error("cannot read %s" CPU_DIR "/%s: %s",
			  sysroot_is_live(root) ? "" : sysroot_dir(root), name,
			  sysroot_strerror(ret));
	return ret;
}

static int load_nodes(struct sysroot *root, struct topology *topo)
{
	struct cpuset nodes, cpus;
	int node, cpu;

	/* Without NUMA there is no node directory: one node holds every CPU. */
	if (sysroot_read_cpulist(root, &nodes, NODE_DIR "/possible") || cpuset_empty(&nodes)) {
		cpuset_clear(&nodes);
		cpuset_add(&nodes, 0);
	}
	for (node = cpuset_next(&nodes, -1), topo->nr_nodes = 0; node >= 0;
	     node = cpuset_next(&nodes, node))
		topo->nr_nodes = (unsigned int)node + 1;
	if (topo->nr_nodes > TOPOLOGY_MAX_NODES)
		return -ERANGE;
	topo->node_cpus = calloc(topo->nr_nodes, sizeof(*topo->node_cpus));
	if (!topo->node_cpus)
		return -ENOMEM;
	cpuset_for_each(node, &nodes) {
		if (sysroot_read_cpulist(root, &cpus, NODE_DIR "/node%d/cpulist", node)) {
			if (node == 0 && topo->nr_nodes == 1)
				cpus = topo->possible;
			else
				cpuset_clear(&cpus);
		}
		topo->node_cpus[node] = cpus;
		cpuset_for_each(cpu, &cpus)
			if ((unsigned int)cpu < topo->nr_cpus)
				topo->cpus[cpu].node = node;
	}
	return 0;
}

/*
 * The SMT sibling groups. Siblings share one list, so a CPU already met in
 * an earlier CPU's list is not read again: a 1024-CPU machine with two
 * threads per core reads 512 files, not 1024.
 */
static void load_siblings(struct sysroot *root, struct topology *topo)
{
	struct cpuset siblings, known;
	int cpu, other;

	cpuset_clear(&known);
	for (cpu = 0; (unsigned int)cpu < topo->nr_cpus; cpu++) {
		struct cpu_place *place = &topo->cpus[cpu];

		place->node = -1;
		if (cpuset_has(&known, (unsigned int)cpu))
			continue;
		place->first_sibling = cpu;
		if (sysroot_read_cpulist(root, &siblings,
					 CPU_DIR "/cpu%d/topology/thread_siblings_list", cpu) ||
		    !cpuset_has(&siblings, (unsigned int)cpu))
			continue;
		place->first_sibling = cpuset_next(&siblings, -1);
		/* a list that names a CPU below this one is not a group this loop has met */
		if (place->first_sibling != cpu)
			continue;
		cpuset_for_each(other, &siblings)
			if ((unsigned int)other < topo->nr_cpus) {
				topo->cpus[other].first_sibling = cpu;
				cpuset_add(&known, (unsigned int)other);
			}
	}
}

int topology_load(struct sysroot *root, struct topology *topo)
{
	struct cpuset rt;
	int ret, cpu;

	memset(topo, 0, sizeof(*topo));
	ret = sysroot_read_cpulist(root, &topo->online, CPU_DIR "/online");
	if (ret || cpuset_empty(&topo->online)) {
		log_error("cannot read the online CPUs from %s" CPU_DIR "/online: %s",
			  sysroot_is_live(root) ? "" : sysroot_dir(root),
			  ret ? sysroot_strerror(ret) : "empty list");
		return ret ? ret : -EINVAL;
	}
	if (sysroot_read_cpulist(root, &topo->possible, CPU_DIR "/possible") ||
	    !cpuset_subset(&topo->online, &topo->possible))
		cpuset_or(&topo->possible, &topo->possible, &topo->online);
	ret = read_optional_list(root, &topo->isolated, "isolated");
	if (!ret)
		ret = read_optional_list(root, &topo->nohz_full, "nohz_full");
	if (ret)
		return ret;
	cpuset_or(&rt, &topo->isolated, &topo->nohz_full);
	cpuset_andnot(&topo->housekeeping, &topo->online, &rt);

	cpuset_for_each(cpu, &topo->possible)
		topo->nr_cpus = (unsigned int)cpu + 1;
	topo->cpus = calloc(topo->nr_cpus, sizeof(*topo->cpus));
	if (!topo->cpus) {
		log_error("out of memory loading the cpu topology");
		return -ENOMEM;
	}
	load_siblings(root, topo);
	ret = load_nodes(root, topo);
	if (ret) {
		if (ret == -ERANGE)
			log_error("more than %d NUMA nodes", TOPOLOGY_MAX_NODES);
		else
			log_error("out of memory loading the cpu topology");
		topology_release(topo);
		return ret;
	}
	return 0;
}

void topology_release(struct topology *topo)
{
	free(topo->node_cpus);
	free(topo->cpus);
	topo->node_cpus = NULL;
	topo->cpus = NULL;
}

int topology_cpu_node(const struct topology *topo, unsigned int cpu)
{
	if (cpu >= topo->nr_cpus || topo->cpus[cpu].node < 0)
		return 0;
	return topo->cpus[cpu].node;
}

void topology_smt_siblings(const struct topology *topo, unsigned int cpu, struct cpuset *siblings)
{
	unsigned int other;

	cpuset_clear(siblings);
	if (cpu >= topo->nr_cpus)
		return;
	for (other = 0; other < topo->nr_cpus; other++)
		if (topo->cpus[other].first_sibling == topo->cpus[cpu].first_sibling)
			cpuset_add(siblings, other);
}
