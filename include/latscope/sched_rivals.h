/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_SCHED_RIVALS_H
#define LATSCOPE_SCHED_RIVALS_H

#include <stdbool.h>
#include <sys/types.h>

#include "latscope/cpuset.h"
#include "latscope/sched_thread.h"
#include "latscope/sysroot.h"

/*
 * The threads that can preempt a measurement: every SCHED_FIFO, SCHED_RR
 * or SCHED_DEADLINE thread allowed on a measured CPU at the measuring
 * threads' priority or above. A run measures them as well as the machine.
 * The CPU stoppers (the kernel threads "migration/N", FIFO 99 in /proc but
 * of the stop class above every policy) are left out: no priority avoids
 * them, and they run only to move tasks or stop the machine.
 */
struct sched_rival_query {
	struct cpuset cpus; /* the measured CPUs */
	int policy; /* the measuring threads' policy (SCHED_THREAD_*) */
	int priority; /* their lowest real-time priority */
	pid_t exclude_pid; /* the measuring process itself */
};

/*
 * A thread listed but not read whole: unknown, so never counted as passed.
 * Either its files could not be read (an error other than its end), or it
 * ended after its stat showed a real-time policy, before its CPUs were
 * read. A thread gone before its stat said anything is only counted
 * (nr_ended): it can no longer run, and nothing about it is known.
 */
struct sched_unread {
	pid_t pid;
	pid_t tid;
	int error; /* -ESRCH: it ended during the read */
	char comm[64]; /* "" when its stat was not read */
	int policy;
	int priority;
};

struct sched_rivals {
	struct sched_thread *threads; /* the rivals, in /proc's order */
	unsigned int nr_threads, cap_threads;
	struct sched_unread *unread;
	unsigned int nr_unread, cap_unread;
	unsigned int nr_ended; /* threads that ended before their stat was read */
	unsigned int nr_seen; /* threads read in all */
};

/**
 * sched_rival_preempts - whether a thread can preempt the measurement
 * @query: what is measured, and how
 * @thread: a thread as sched_thread_read() gave it
 */
bool sched_rival_preempts(const struct sched_rival_query *query, const struct sched_thread *thread);

/**
 * sched_rivals_scan - read every thread of /proc/PID/task/TID
 * @root: where /proc is
 * @query: what is measured
 * @rivals: receives the rivals and the threads that could not be read;
 *	    zeroed by the call, released with sched_rivals_release()
 *
 * Returns 0, or a negative errno code when /proc cannot be listed or
 * memory ran out (@rivals then holds what was found).
 */
int sched_rivals_scan(struct sysroot *root, const struct sched_rival_query *query,
		      struct sched_rivals *rivals);

/* Free the lists; safe on a zeroed struct. */
void sched_rivals_release(struct sched_rivals *rivals);

#endif
