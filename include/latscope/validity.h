/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_VALIDITY_H
#define LATSCOPE_VALIDITY_H

#include <jansson.h>
#include <stdbool.h>
#include <sys/types.h>

#include "latscope/cpu_times.h"
#include "latscope/rt.h"
#include "latscope/sched_rivals.h"
#include "latscope/sysroot.h"
#include "latscope/topology.h"

/*
 * The conditions a measurement was taken under, and where they fall short
 * of what its numbers claim: the policy the measuring threads obtained, the
 * real-time threads that could preempt them, the PM QoS request, isolation,
 * the SMT siblings' load, RT throttling, the kernel (for an RT verdict),
 * and the tracer (its prerequisites, its events lost). The facts are filled
 * by validity_read_*() and the command; validity_shortfalls() is a pure
 * function of them, so that fixtures test every rule.
 */

/* a measuring thread: what it asked for and what /proc says it got */
struct validity_lane {
	pid_t tid;
	int cpu; /* -1 when not pinned */
	int want_policy; /* SCHED_THREAD_* */
	int want_priority;
	int read_error; /* 0, or why its stat could not be read (-ESRCH: it ended) */
	int policy;
	int priority;
};

/* a measured CPU */
struct validity_cpu {
	unsigned int cpu;
	bool isolated;
	bool nohz_full;
	struct cpuset siblings; /* its SMT siblings, itself left out */
	double sibling_busy; /* their busy share during the run, 0-1; -1 unknown or none */
};

struct validity {
	/* the measuring threads, their process and whether they must be RT */
	pid_t pid;
	bool realtime_wanted; /* a timer measures an RT task; noise may run SCHED_OTHER */
	unsigned int nr_lanes;
	struct validity_lane *lanes;
	/* the other real-time threads */
	bool rivals_read;
	int rivals_error;
	struct sched_rival_query query;
	struct sched_rivals rivals;
	/* /dev/cpu_dma_latency */
	bool dma_latency_held;
	int dma_latency_us;
	/* the measured CPUs, and /proc/stat at the start for the siblings' load */
	unsigned int nr_cpus;
	struct validity_cpu *cpus;
	unsigned int nr_times;
	struct cpu_times *times_before;
	/* sched_rt_runtime_us */
	bool throttling_known;
	struct rt_throttling throttling;
	/* the kernel, for a result that claims an RT verdict */
	bool rt_verdict;
	int preempt_rt; /* 1 yes, 0 no, -1 unknown */
	/* --explain */
	bool explain_wanted; /* with tracepoints */
	bool explain_traced; /* the session started */
	unsigned long long trace_lost; /* events the kernel or the reader lost */
	double trace_cpu_share; /* the reader's cpu, a share of one cpu */
};

/* how much of the run an SMT sibling may be busy before it is a shortfall */
#define VALIDITY_SIBLING_BUSY_LIMIT 0.10

/**
 * validity_init - the measured CPUs and the machine's settings, before the run
 * @v: zeroed; release with validity_release()
 * @root: where to read
 * @topo: the topology
 * @cpus: the measured CPUs
 *
 * Reads isolation, nohz_full, the SMT siblings, /proc/stat (for their load),
 * sched_rt_runtime_us and whether the kernel is PREEMPT_RT. A fact that
 * cannot be read stays unknown and is said so. Returns 0 or -ENOMEM.
 */
int validity_init(struct validity *v, struct sysroot *root, const struct topology *topo,
		  const struct cpuset *cpus);

/**
 * validity_add_lane - a measuring thread and what it asked for
 * @v: the record
 * @tid: its thread id
 * @cpu: where it is pinned, -1 when not
 * @policy: the policy it asked for (enum rt_policy)
 * @priority: the priority it asked for (0 for non-RT policies)
 * Returns 0 or -ENOMEM.
 */
int validity_add_lane(struct validity *v, pid_t tid, int cpu, enum rt_policy policy, int priority);

/**
 * validity_read_threads - while the measuring threads run: what each
 * obtained, and every other real-time thread that can preempt them
 * @v: the record, lanes added, pid set
 * @root: where /proc is
 */
void validity_read_threads(struct validity *v, struct sysroot *root);

/**
 * validity_read_end - after the run: the SMT siblings' load during it
 * @v: the record
 * @root: where /proc/stat is
 */
void validity_read_end(struct validity *v, struct sysroot *root);

/**
 * validity_kernel_preempt_rt - whether the kernel is PREEMPT_RT, from
 * /sys/kernel/realtime and /proc/sys/kernel/version
 * Returns 1, 0, or -1 when neither can be read.
 */
int validity_kernel_preempt_rt(struct sysroot *root);

/**
 * validity_kernel_shortfall - the line for a result that claims an RT
 * verdict on a kernel not known to be PREEMPT_RT
 * @rt_verdict: the result claims one (doctor's READY)
 * @preempt_rt: validity_kernel_preempt_rt()'s answer
 * Returns a static line, or NULL when nothing falls short.
 */
const char *validity_kernel_shortfall(bool rt_verdict, int preempt_rt);

/**
 * validity_shortfalls - every condition that falls short, one line each
 * @v: the facts
 * Returns a JSON array of strings (a new reference the caller owns), or NULL
 * when memory ran out.
 */
json_t *validity_shortfalls(const struct validity *v);

/**
 * validity_json - the facts and the shortfalls for the result document
 * @v: the facts
 * Returns a new object the caller owns ("ok", "shortfalls" and one member
 * per condition), or NULL when memory ran out.
 */
json_t *validity_json(const struct validity *v);

/* Free what the record holds; safe on a zeroed one. */
void validity_release(struct validity *v);

#endif
