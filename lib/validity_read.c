// SPDX-License-Identifier: GPL-2.0-or-later
/* The facts of a validity record, read from the machine before, during and after a run. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "latscope/validity.h"

static int kernel_policy(enum rt_policy policy)
{
	switch (policy) {
	case RT_POLICY_FIFO:
		return SCHED_THREAD_FIFO;
	case RT_POLICY_RR:
		return SCHED_THREAD_RR;
	case RT_POLICY_BATCH:
		return SCHED_THREAD_BATCH;
	case RT_POLICY_IDLE:
		return SCHED_THREAD_IDLE;
	case RT_POLICY_OTHER:
		break;
	}
	return SCHED_THREAD_OTHER;
}

int validity_kernel_preempt_rt(struct sysroot *root)
{
	char version[512];
	long long realtime;
	int known = -1;

	if (!sysroot_read_integer(root, &realtime, "/sys/kernel/realtime")) {
		if (realtime == 1)
			return 1;
		known = 0;
	}
	if (sysroot_read(root, version, sizeof(version), "/proc/sys/kernel/version") >= 0)
		return strstr(version, "PREEMPT_RT") ? 1 : 0;
	return known;
}

int validity_init(struct validity *v, struct sysroot *root, const struct topology *topo,
		  const struct cpuset *cpus)
{
	unsigned int n = 0;
	int cpu;

	v->pid = getpid();
	v->query.cpus = *cpus;
	v->dma_latency_us = -1;
	v->cpus = calloc(cpuset_count(cpus) + 1, sizeof(*v->cpus));
	v->nr_times = topo->nr_cpus;
	v->times_before = calloc(v->nr_times + 1, sizeof(*v->times_before));
	if (!v->cpus || !v->times_before)
		return -ENOMEM;
	for (cpu = cpuset_next(cpus, -1); cpu >= 0; cpu = cpuset_next(cpus, cpu)) {
		struct validity_cpu *c = &v->cpus[n++];

		c->cpu = (unsigned int)cpu;
		c->isolated = cpuset_has(&topo->isolated, (unsigned int)cpu);
		c->nohz_full = cpuset_has(&topo->nohz_full, (unsigned int)cpu);
		c->sibling_busy = -1;
		if ((unsigned int)cpu < topo->nr_cpus)
			topology_smt_siblings(topo, (unsigned int)cpu, &c->siblings);
		cpuset_remove(&c->siblings, (unsigned int)cpu);
	}
	v->nr_cpus = n;
	if (cpu_times_read(root, v->times_before, v->nr_times))
		memset(v->times_before, 0, v->nr_times * sizeof(*v->times_before));
	v->throttling_known = !rt_read_throttling(root, &v->throttling);
	v->preempt_rt = validity_kernel_preempt_rt(root);
	return 0;
}

int validity_add_lane(struct validity *v, pid_t tid, int cpu, enum rt_policy policy, int priority)
{
	struct validity_lane *lanes = realloc(v->lanes, (v->nr_lanes + 1) * sizeof(*lanes));

	if (!lanes)
		return -ENOMEM;
	v->lanes = lanes;
	lanes[v->nr_lanes++] = (struct validity_lane){
		.tid = tid,
		.cpu = cpu,
		.want_policy = kernel_policy(policy),
		.want_priority = rt_policy_is_realtime(policy) ? priority : 0,
	};
	return 0;
}

/* The lowest policy and priority among the lanes: a rival at or above it preempts one. */
static void lowest_lane(struct validity *v)
{
	unsigned int i;

	v->query.policy = SCHED_THREAD_DEADLINE;
	v->query.priority = 99;
	for (i = 0; i < v->nr_lanes; i++) {
		const struct validity_lane *lane = &v->lanes[i];
		int policy = lane->read_error ? lane->want_policy : lane->policy;
		int priority = lane->read_error ? lane->want_priority : lane->priority;

		if (!sched_thread_policy_is_realtime(policy)) {
			v->query.policy = policy;
			v->query.priority = 0;
			return;
		}
		if (policy != SCHED_THREAD_DEADLINE) {
			v->query.policy = policy;
			if (priority < v->query.priority)
				v->query.priority = priority;
		}
	}
}

void validity_read_threads(struct validity *v, struct sysroot *root)
{
	unsigned int i;

	for (i = 0; i < v->nr_lanes; i++) {
		struct validity_lane *lane = &v->lanes[i];
		struct sched_thread thread;

		lane->read_error = sched_thread_read(root, v->pid, lane->tid, &thread);
		lane->policy = thread.policy;
		lane->priority = thread.priority;
	}
	lowest_lane(v);
	v->query.exclude_pid = v->pid;
	sched_rivals_release(&v->rivals);
	v->rivals_error = sched_rivals_scan(root, &v->query, &v->rivals);
	v->rivals_read = true;
}

void validity_read_end(struct validity *v, struct sysroot *root)
{
	struct cpu_times *after = calloc(v->nr_times + 1, sizeof(*after));
	unsigned int i;

	if (!after || cpu_times_read(root, after, v->nr_times)) {
		free(after);
		return;
	}
	for (i = 0; i < v->nr_cpus; i++) {
		struct validity_cpu *c = &v->cpus[i];
		double busy = -1;
		int s;

		/* the busiest sibling is the one that took the core from us */
		for (s = cpuset_next(&c->siblings, -1); s >= 0; s = cpuset_next(&c->siblings, s)) {
			double share;

			if ((unsigned int)s >= v->nr_times)
				continue;
			share = cpu_times_busy_share(&v->times_before[s], &after[s]);
			if (share > busy)
				busy = share;
		}
		c->sibling_busy = busy;
	}
	free(after);
}

void validity_release(struct validity *v)
{
	free(v->lanes);
	free(v->cpus);
	free(v->times_before);
	sched_rivals_release(&v->rivals);
	memset(v, 0, sizeof(*v));
}
