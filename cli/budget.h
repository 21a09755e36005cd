/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_CLI_BUDGET_H
#define LATSCOPE_CLI_BUDGET_H

#include <stdbool.h>
#include <stdint.h>

/*
 * The latency budget (--budget DUR, also spelled --fail-above on timer and
 * noise): a latency above it is a miss. A measuring command (timer, noise,
 * monitor) exits 2 when one of its lanes (a thread, a cpu) missed it;
 * report marks it on the plots, compare counts the misses, doctor judges
 * against it. The option is common_options.h's OPTION_BUDGET.
 */

/* A largest latency above the budget missed it; equal to it kept to it; no budget: none missed. */
bool budget_missed(uint64_t budget_ns, uint64_t max_ns);

/* Where the misses are counted, one lane at a time. */
struct budget_check {
	uint64_t budget_ns; /* 0: no budget, nothing is checked */
	const char *lane; /* "thread", "cpu" */
	int status; /* EXIT_OK, EXIT_BUDGET once a lane missed */
};

/**
 * budget_check_lane - whether one lane kept to the budget
 * @check: the budget and the status so far
 * @id: the lane's number (the thread's, the cpu's)
 * @max_ns: its largest latency
 *
 * A lane above the budget is named in one line on stderr ("thread 1: max
 * 52.100 us is above --budget 50.0 us") and makes the status EXIT_BUDGET.
 */
void budget_check_lane(struct budget_check *check, unsigned int id, uint64_t max_ns);

#endif
