/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_BENCH_COMPARE_SIZE_H
#define LATSCOPE_BENCH_COMPARE_SIZE_H

/*
 * The size of a compare benchmark's input, as bench/compare-generate and
 * bench/compare-stats both take it: --cpus N, --samples N (the input's
 * total, shared among the CPUs, or every CPU's with --per-cpu) and
 * --blocks N (block maxima per CPU).
 */

#include <getopt.h>
#include <stdbool.h>

struct compare_size {
	unsigned int cpus;
	double samples;
	bool per_cpu; /* @samples on every CPU */
	unsigned int blocks;
};

/* the entries of getopt_long()'s table for the size options */
/* clang-format off */
#define COMPARE_SIZE_OPTIONS					\
	{ "cpus", required_argument, NULL, 'c' },		\
	{ "samples", required_argument, NULL, 's' },		\
	{ "per-cpu", no_argument, NULL, 'p' },			\
	{ "blocks", required_argument, NULL, 'b' }
/* clang-format on */

/* the size: 64 CPUs, 10^9 samples shared among them, 3600 blocks */
void compare_size_default(struct compare_size *size);

/* take option @opt (what getopt_long() returned) with @arg; false when it is no size option */
bool compare_size_option(struct compare_size *size, int opt, const char *arg);

/* the samples each CPU draws */
double compare_size_per_cpu(const struct compare_size *size);

#endif
