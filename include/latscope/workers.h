/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_WORKERS_H
#define LATSCOPE_WORKERS_H

#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "latscope/rt.h"

/*
 * Measurement threads, one per CPU, started together: each pins itself,
 * takes its policy, prefaults its stack, runs its own setup (allocating its
 * buffers on its node), and only when every thread is ready do they all
 * start measuring. Signals go to the main thread only. run() is entered with
 * cancellation disabled; a run() that sleeps long may enable it around its
 * waits so that its owner can end it with pthread_cancel().
 */
/*
 * The default 8 MB stack is locked and resident in full under mlockall; a
 * measurement thread needs what it prefaults and a margin.
 */
#define WORKER_PREFAULT_STACK_BYTES (256 * 1024)
#define WORKER_STACK_BYTES (2 * WORKER_PREFAULT_STACK_BYTES)

/* A worker's cpu when the scheduler may place it (cyclictest without -a). */
#define WORKER_UNPINNED UINT_MAX

struct worker {
	/* set by the caller */
	unsigned int cpu; /* or WORKER_UNPINNED */
	enum rt_policy policy;
	int priority;
	int (*setup)(struct worker *worker); /* optional; 0 or -errno */
	void (*run)(struct worker *worker);
	void *data;
	/* the thread's stack, locked and resident under mlockall; half of it is
	 * prefaulted. 0: the default (512 KiB) */
	size_t stack_bytes;
	/* set by the thread */
	pid_t tid;
	int error;
	/* private */
	pthread_t thread;
	struct worker_group *group;
};

struct worker_group {
	unsigned int nr_workers;
	struct worker *workers;
	pthread_mutex_t lock;
	pthread_cond_t changed;
	unsigned int nr_started;
	unsigned int nr_ready;
	bool go;
	bool abort;
};

/**
 * worker_group_start - start one thread per worker and wait until all run
 * @group: receives the group state
 * @workers: @nr_workers workers, owned by the caller, alive until
 *	     worker_group_join() returns
 * @nr_workers: how many
 *
 * When a thread cannot start or its setup fails, no thread measures: all are
 * joined and the first error is returned (already logged).
 * Returns 0 when every worker's run() has been entered, or a negative errno.
 */
int worker_group_start(struct worker_group *group, struct worker *workers, unsigned int nr_workers);

/* Wait for every worker's run() to return. */
void worker_group_join(struct worker_group *group);

#endif
