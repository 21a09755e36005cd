/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_COMPARE_PAIRS_H
#define LATSCOPE_COMPARE_PAIRS_H

#include <stdbool.h>

#include "latscope/run.h"

/*
 * What `compare` compares with what. The inputs form groups: A (the
 * baseline) and each group compared with it (B, then C, D...). A group is
 * one run, or several runs of one setup (replicates: `compare A1 A2 A3
 * --vs B1 B2 B3`), or the rounds of one side of an interleaved A/B
 * (paired: B's round i ran next to A's round i). The series of A are
 * paired with those of each other group per CPU, per thread, or each group
 * as a whole. A pure function of the inputs: nothing is read or computed
 * here.
 *
 * - By CPU: the series measured on one CPU (one, or several threads pinned
 *   there, merged) of each run of A against those of the same CPU of each
 *   run of B. Every series must be pinned to a CPU.
 * - By thread: thread N of A against thread N of B (cyclictest's and
 *   timer's thread numbers). Every series must be a numbered thread; noise
 *   and oslat measure CPUs, not threads.
 * - All: every series of each run merged.
 *
 * A CPU or thread that not every run of both groups has is listed as
 * unpaired with the reason, never matched with another one. The inputs
 * must measure the same thing (timer latency: timer, monitor, cyclictest;
 * OS noise: noise, oslat).
 */
enum compare_by {
	COMPARE_BY_CPU,
	COMPARE_BY_THREAD,
	COMPARE_BY_ALL,
};

/* One run's part of a side: which series of which input. */
struct compare_part {
	unsigned int input; /* index in the inputs given; 0 is the first of A */
	unsigned int *series; /* indices into the input's run->series, ascending; owned */
	unsigned int nr_series;
};

/* One side of a pair: a group's runs, each with its series. */
struct compare_side {
	unsigned int group; /* 0 is A */
	struct compare_part *parts; /* one per run of the group, in input order; owned */
	unsigned int nr_parts;
};

struct compare_pair {
	char what[48]; /* "cpu 1", "thread 0", "all" */
	int cpu; /* by CPU: the CPU; else -1 */
	int thread; /* by thread: the thread; else -1 */
	struct compare_side a, b;
};

/* A CPU or thread that one input has and another of the comparison does not. */
struct compare_unpaired {
	unsigned int input; /* an input that has it */
	unsigned int other; /* the input that lacks it */
	char what[48];
	char reason[160];
};

struct compare_plan {
	enum compare_by by;
	bool paired; /* two groups whose runs pair by their order (ab's rounds) */
	unsigned int nr_groups;
	unsigned int *group_first; /* the first input of each group; owned */
	unsigned int *group_size; /* its runs; owned */
	struct compare_pair *pairs; /* for each group after A, in order, then by key */
	unsigned int nr_pairs;
	struct compare_unpaired *unpaired;
	unsigned int nr_unpaired;
	char error[320]; /* why no plan could be made */
};

/**
 * compare_plan_make_groups - pair the series of groups of inputs
 * @runs: the inputs, A's first; at least two
 * @names: what messages call each input (its file name)
 * @nr_runs: how many
 * @group_of: the group of each input: 0 for A's runs, then 1, 2...,
 *	      ascending, every group holding at least one input
 * @paired: the two groups' runs pair by their order (as many in each)
 * @by: how to pair
 * @plan: receives the pairs; release with compare_plan_release() whatever
 *	  the outcome
 *
 * Returns 0; -EINVAL when the inputs cannot be compared, with @plan->error
 * saying why in one line (an input that is not a measurement or has no
 * series, inputs that measure different things, a series with no CPU or
 * thread to pair it by, groups with nothing in common, groups out of
 * order, paired groups of different sizes); or -ENOMEM.
 */
int compare_plan_make_groups(const struct run *const *runs, const char *const *names,
			     unsigned int nr_runs, const unsigned int *group_of, bool paired,
			     enum compare_by by, struct compare_plan *plan);

/**
 * compare_plan_make - pair the series of inputs that are each a group of
 * their own: A, and B, C... each compared with it
 *
 * As compare_plan_make_groups() with group_of[i] = i.
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
