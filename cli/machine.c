// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "latscope/allowed_cpus.h"
#include "latscope/validity.h"
#include "machine.h"

int machine_open(const char *root_dir, struct sysroot **root, struct topology *topo)
{
	memset(topo, 0, sizeof(*topo));
	*root = sysroot_new(root_dir);
	if (!*root)
		return runtime_error("out of memory");
	/* the library said why */
	return topology_load(*root, topo) ? EXIT_ERROR : 0;
}

int machine_affinity_cpus(const struct cpuset *online, struct cpuset *affinity)
{
	size_t size = CPU_ALLOC_SIZE(CPUSET_MAX_CPUS);
	cpu_set_t *mask;
	int cpu, err;

	/* sized for CPUSET_MAX_CPUS: a cpu_set_t's 1024 fails on larger kernels */
	mask = CPU_ALLOC(CPUSET_MAX_CPUS);
	if (!mask)
		return runtime_error("out of memory");
	if (sched_getaffinity(0, size, mask)) {
		err = errno;
		CPU_FREE(mask);
		return runtime_error("cannot read this process's cpu affinity: %s", strerror(err));
	}
	cpuset_clear(affinity);
	for (cpu = 0; cpu < CPUSET_MAX_CPUS; cpu++)
		if (CPU_ISSET_S(cpu, size, mask) && cpuset_has(online, (unsigned int)cpu))
			cpuset_add(affinity, (unsigned int)cpu);
	CPU_FREE(mask);
	return 0;
}

int machine_allowed_cpus(struct sysroot *root, const struct cpuset *online, struct cpuset *allowed)
{
	struct cpuset affinity;
	int ret = machine_affinity_cpus(online, &affinity);

	/* the cpuset, not the affinity the shell gave: what sched_setaffinity() accepts */
	if (!ret)
		allowed_cpus_read(root, online, &affinity, allowed);
	return ret;
}

bool machine_cpus_refused(const char *option, const struct cpuset *set, const struct cpuset *online,
			  const struct cpuset *allowed, char *why, size_t size)
{
	struct cpuset outside;
	char cpus[256], list[256];

	cpuset_andnot(&outside, set, online);
	if (!cpuset_empty(&outside)) {
		snprintf(why, size, "cpu %s in %s is not online (online: %s)",
			 cpuset_format_list(&outside, cpus, sizeof(cpus)), option,
			 cpuset_format_list(online, list, sizeof(list)));
		return true;
	}
	cpuset_andnot(&outside, set, allowed);
	if (!cpuset_empty(&outside)) {
		snprintf(why, size, "cpu %s in %s is not available to this process (allowed: %s)",
			 cpuset_format_list(&outside, cpus, sizeof(cpus)), option,
			 cpuset_format_list(allowed, list, sizeof(list)));
		return true;
	}
	return false;
}

int machine_hold(struct machine_hold *hold, struct sysroot *root, const struct machine_wants *wants)
{
	bool required = wants->lock == MACHINE_LOCK_REQUIRED;
	int ret;

	if (wants->lock != MACHINE_LOCK_NONE) {
		ret = rt_lock_memory(required, wants->fault_shows_as);
		hold->memory_locked = !ret;
		if (ret && required) {
			snprintf(hold->failed, sizeof(hold->failed), "cannot lock memory: %s",
				 strerror(-ret));
			return EXIT_ERROR;
		}
	}
	if (wants->pm_qos) {
		ret = rt_dma_latency_hold(root, wants->pm_qos_us, &hold->pm_qos);
		if (ret) {
			snprintf(hold->failed, sizeof(hold->failed),
				 "cannot hold /dev/cpu_dma_latency: %s", strerror(-ret));
			return EXIT_ERROR;
		}
		hold->pm_qos_held = true;
		hold->pm_qos_us = wants->pm_qos_us;
	}
	return 0;
}

void machine_place_main(const struct cpuset *online, const struct cpuset *measured,
			const struct cpuset *chosen)
{
	/* rt_place_main_thread() said why when it could not */
	rt_place_main_thread(online, measured, chosen);
}

void machine_release(struct machine_hold *hold)
{
	if (hold->pm_qos_held)
		rt_dma_latency_release(&hold->pm_qos);
	hold->pm_qos_held = false;
	if (hold->memory_locked)
		rt_unlock_memory();
	hold->memory_locked = false;
}

void machine_hold_validity(const struct machine_hold *hold, struct validity *v)
{
	v->dma_latency_held = hold->pm_qos_held;
	v->dma_latency_us = hold->pm_qos_held ? hold->pm_qos_us : 0;
}

void machine_block_stop_signals(sigset_t *outside)
{
	sigset_t stop_signals;

	sigemptyset(&stop_signals);
	sigaddset(&stop_signals, SIGINT);
	sigaddset(&stop_signals, SIGTERM);
	sigaddset(&stop_signals, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &stop_signals, outside);
}
