// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * compare-stats: time the statistics of `latscope compare` at the size of
 * the target: two inputs of 64 CPUs and 10^9 samples each (the
 * samples shared among the CPUs, or --per-cpu for 10^9 on every CPU).
 *
 * Each CPU's histogram is drawn as multinomial bucket counts of the
 * log-linear histogram from a latency model (log-normal body around 2 us
 * with a Pareto tail; B's tail 5% longer), so generating 10^9 samples
 * takes no time. Then, for every CPU pair, it times what the command
 * computes: p50, p90, p99, p99.9, p99.99 of A and B with their bootstrap
 * intervals, the difference's interval and verdict, the max, and the miss
 * rate of a budget on both sides (the exact bootstrap distribution is what
 * infinitely many resamples would give, so "10,000 resamples" is met with
 * room). Separately it times the GEV tail estimate of every CPU's block
 * maxima (--blocks per CPU, 1 s blocks).
 *
 * usage: compare-stats [--cpus N] [--samples N] [--per-cpu] [--blocks N]
 * Run it under flock /tmp/latscope-machine.lock so others' measurements
 * are not disturbed.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "compare_size.h"
#include "latency_models.h"
#include "latscope/compare_stats.h"
#include "latscope/miss_rate.h"
#include "latscope/tail_estimate.h"

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static double cpu_s(void)
{
	struct rusage r;

	getrusage(RUSAGE_SELF, &r);
	return (double)r.ru_utime.tv_sec + (double)r.ru_utime.tv_usec * 1e-6 +
	       (double)r.ru_stime.tv_sec + (double)r.ru_stime.tv_usec * 1e-6;
}

static void usage(void)
{
	fprintf(stderr, "usage: compare-stats [--cpus N] [--samples N] [--per-cpu] [--blocks N]\n");
	exit(129);
}

int main(int argc, char **argv)
{
	static const struct option options[] = {
		COMPARE_SIZE_OPTIONS,
		{ NULL, 0, NULL, 0 },
	};
	struct latency_model ma = { MODEL_BODY_TAIL, 1 }, mb = { MODEL_BODY_TAIL, 1.05 };
	unsigned int cpus, blocks, cpu, i, statistics = 0, rows_same = 0;
	double per_cpu, *pa, *pb, t0, c0, t_stats, c_stats, t_tail, c_tail;
	struct bucket_hist *a, *b;
	struct compare_options o;
	struct compare_size size;
	struct tail_options to;
	uint64_t *maxima;
	gsl_rng *rng;
	int opt;

	compare_size_default(&size);
	while ((opt = getopt_long(argc, argv, "", options, NULL)) != -1)
		if (!compare_size_option(&size, opt, optarg))
			usage();
	cpus = size.cpus;
	blocks = size.blocks;
	if (!cpus || !(size.samples >= 1) || size.samples * (size.per_cpu ? 1 : 1.0 / cpus) > 4e9)
		usage();
	per_cpu = compare_size_per_cpu(&size);
	rng = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(rng, 1);
	pa = model_bucket_probabilities(&ma);
	pb = model_bucket_probabilities(&mb);
	a = calloc(cpus, sizeof(*a));
	b = calloc(cpus, sizeof(*b));
	for (cpu = 0; cpu < cpus; cpu++) {
		model_draw_hist(rng, pa, (unsigned int)per_cpu, &a[cpu]);
		model_draw_hist(rng, pb, (unsigned int)per_cpu, &b[cpu]);
	}
	printf("%u CPUs, %.3g samples per input (%.3g per CPU), %u and %u buckets on CPU 0\n", cpus,
	       per_cpu * cpus, per_cpu, a[0].nr_buckets, b[0].nr_buckets);

	compare_options_default(&o);
	t0 = now_s();
	c0 = cpu_s();
	for (cpu = 0; cpu < cpus; cpu++) {
		struct compare_stat s;
		struct miss_rate m;

		for (i = 0; i < compare_nr_default_percentiles; i++) {
			if (compare_stat_percentile(&a[cpu], &b[cpu],
						    compare_default_percentiles[i], &o, &s))
				return 1;
			statistics++;
			rows_same += s.verdict == COMPARE_SAME;
		}
		if (compare_stat_max(&a[cpu], &b[cpu], &o, &s) ||
		    miss_rate_estimate(&a[cpu], 20000, 0.95, 1000, &m) ||
		    miss_rate_estimate(&b[cpu], 20000, 0.95, 1000, &m))
			return 1;
		statistics++;
	}
	t_stats = now_s() - t0;
	c_stats = cpu_s() - c0;
	printf("percentiles: %u statistics with intervals and verdicts (%u same) and %u miss "
	       "rates in %.1f ms wall, %.1f ms CPU (%.3f ms per CPU pair)\n",
	       statistics, rows_same, 2 * cpus, t_stats * 1e3, c_stats * 1e3, t_stats * 1e3 / cpus);

	if (blocks) {
		unsigned int reliable = 0;

		tail_options_default(&to);
		to.has_budget = true;
		to.budget_ns = 100000;
		maxima = malloc(2 * (size_t)cpus * blocks * sizeof(*maxima));
		for (i = 0; i < 2 * cpus * blocks; i++)
			maxima[i] = (uint64_t)model_block_max(i < cpus * blocks ? &ma : &mb, rng,
							      per_cpu / blocks);
		t0 = now_s();
		c0 = cpu_s();
		for (i = 0; i < 2 * cpus; i++) {
			struct tail_estimate t;

			if (tail_estimate(maxima + (size_t)i * blocks, blocks, &to, &t))
				return 1;
			reliable += t.reliable;
		}
		t_tail = now_s() - t0;
		c_tail = cpu_s() - c0;
		printf("tails: %u GEV fits of %u block maxima with 3 return levels, exceedance, "
		       "checks and run length (%u reliable) in %.0f ms wall, %.0f ms CPU (%.1f ms "
		       "per side)\n",
		       2 * cpus, blocks, reliable, t_tail * 1e3, c_tail * 1e3,
		       t_tail * 1e3 / (2 * cpus));
		free(maxima);
	}
	for (cpu = 0; cpu < cpus; cpu++) {
		bucket_hist_release(&a[cpu]);
		bucket_hist_release(&b[cpu]);
	}
	free(a);
	free(b);
	free(pa);
	free(pb);
	gsl_rng_free(rng);
	return 0;
}
