/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_COMPARE_PAIRS_H
#define LATSCOPE_COMPARE_PAIRS_H

#include <stdbool.h>

#include "latscope/run.h"

/*
 * What `compare` compares with what: the series of the first input (A, the
 * baseline) paired with those of each other input (B, and C, D... each
 * against A), per CPU, per thread, or each input as a whole. A pure
 * function of the inputs: nothing is read or computed here.
 *
 * - By CPU: the series measured on one CPU (one, or several threads pinned
 *   there, merged) of A against those of the same CPU of B. Every series
 *   must be pinned to a CPU.
 * - By thread: thread N of A against thread N of B (cyclictest's and
 *   timer's thread numbers). Every series must be a numbered thread; noise
 *   and oslat measure CPUs, not threads.
 * - All: every series of A merged against every series of B.
 *
 * A CPU or thread only one side has is listed as unpaired with the reason,
 * never matched with another one. The inputs must measure the same thing
 * (timer latency: timer, monitor, cyclictest; OS noise: noise, oslat).
 */
enum compare_by {
	COMPARE_BY_CPU,
	COMPARE_BY_THREAD,
	COMPARE_BY_ALL,
};

/* One side of a pair: which series of which input. */
struct compare_side {
	unsigned int input; /* index in the inputs given; 0 is A */
	unsigned int *series; /* indices into the input's run->series, ascending; owned */
	unsigned int nr_series;
};

struct compare_pair {
	char what[48]; /* "cpu 1", "thread 0", "all" */
	int cpu; /* by CPU: the CPU; else -1 */
	int thread; /* by thread: the thread; else -1 */
	struct compare_side a, b;
};

/* A CPU or thread that one input has and the other does not. */
struct compare_unpaired {
	unsigned int input; /* the input that has it */
	unsigned int other; /* the input it was to be paired with */
	char what[48];
	char reason[160];
};

struct compare_plan {
	enum compare_by by;
	struct compare_pair *pairs; /* for each input after A, in input order, then by key */
	unsigned int nr_pairs;
	struct compare_unpaired *unpaired;
	unsigned int nr_unpaired;
	char error[320]; /* why no plan could be made */
};

/**
 * compare_plan_make - pair the series of the inputs
 * @runs: the inputs, A first; at least two
 * @names: what messages call each input (its file name)
 * @nr_runs: how many
 * @by: how to pair
 * @plan: receives the pairs; release with compare_plan_release() whatever
 *	  the outcome
 *
 * Returns 0; -EINVAL when the inputs cannot be compared, with @plan->error
 * saying why in one line (an input that is not a measurement or has no
 * series, inputs that measure different things, a series with no CPU or
 * thread to pair it by, an input with nothing in common with A); or
 * -ENOMEM.
 */
int compare_plan_make(const struct run *const *runs, const char *const *names, unsigned int nr_runs,
		      enum compare_by by, struct compare_plan *plan);

/* Free what a plan holds; safe on a zeroed plan and to repeat. */
void compare_plan_release(struct compare_plan *plan);

/* "cpu", "thread", "all" */
const char *compare_by_name(enum compare_by by);

/* "timer latency" or "OS noise": what an input's series measure */
const char *compare_measure_name(enum run_measure measure);

#endif
