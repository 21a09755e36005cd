// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * compare-generate: a latscope timer result of many CPUs and many samples,
 * with block maxima, for bench/compare (the size: 64 CPUs and 10^9
 * samples per input). Each CPU's histogram is drawn as multinomial counts
 * of the log-linear histogram's buckets from a latency model (a log-normal
 * body around 2 us with a Pareto tail, tests/unit/latency_models.h), so
 * 10^9 samples take no time to make; its block maxima are drawn exactly
 * as the largest of (samples / blocks) values of the same model. --stretch
 * lengthens the tail (1.2: B's tail 20% longer). --time-blocks N draws the
 * histogram as N time blocks of as many samples each (schema latscope/3),
 * the histogram their sum, as timer writes them: at most 256, so that an
 * hour's run has blocks of 14 s.
 *
 * usage: compare-generate [--cpus N] [--samples N] [--per-cpu] [--blocks N]
 *			   [--time-blocks N] [--stretch F] [--seed N] OUTPUT
 */
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>

#include "compare_size.h"
#include "latency_models.h"
#include "latscope/hist.h"

static void usage(void)
{
	fprintf(stderr, "usage: compare-generate [--cpus N] [--samples N] [--per-cpu] "
			"[--blocks N] [--time-blocks N] [--stretch F] [--seed N] OUTPUT\n");
	exit(129);
}

/*
 * @samples - 1 values in @time_blocks blocks (one when 0), each a
 * multinomial draw, into @counts; the blocks' non-empty buckets as timer's
 * time_blocks writes them, or NULL
 */
static json_t *draw_blocks(gsl_rng *rng, const double *probabilities, double samples,
			   unsigned int time_blocks, unsigned int duration_s, unsigned int *counts)
{
	unsigned int *block = calloc(HIST_BUCKETS, sizeof(*block)), n = time_blocks ?: 1, b, i;
	unsigned int per = (unsigned int)((samples - 1) / n);
	json_t *list = json_array(), *entries;

	for (b = 0; b < n; b++) {
		/* the last block takes what the division left */
		gsl_ran_multinomial(rng, HIST_BUCKETS,
				    b + 1 < n ? per : (unsigned int)(samples - 1) - per * (n - 1),
				    probabilities, block);
		entries = json_array();
		for (i = 0; i < HIST_BUCKETS; i++) {
			counts[i] += block[i];
			if (!block[i])
				continue;
			json_array_append_new(entries, json_integer(i));
			json_array_append_new(entries, json_integer(block[i]));
		}
		json_array_append_new(list, entries);
	}
	free(block);
	if (!time_blocks) {
		json_decref(list);
		return NULL;
	}
	return json_pack("{sIsssosI}", "block_ns", (json_int_t)duration_s * 1000000000 / n,
			 "buckets", "log-linear", "histograms", list, "lost", (json_int_t)0);
}

/* one more value in @bucket of the first block of @histograms (its pairs kept ascending) */
static void add_to_first_block(json_t *histograms, unsigned int bucket)
{
	json_t *first = json_array_get(histograms, 0);
	size_t i, n = json_array_size(first);

	for (i = 0; i < n; i += 2) {
		json_int_t b = json_integer_value(json_array_get(first, i));

		if (b == bucket) {
			json_integer_set(json_array_get(first, i + 1),
					 json_integer_value(json_array_get(first, i + 1)) + 1);
			return;
		}
		if (b > bucket)
			break;
	}
	json_array_insert_new(first, i, json_integer(1));
	json_array_insert_new(first, i, json_integer(bucket));
}

/* one CPU's entry as latscope timer writes it */
static json_t *thread_entry(unsigned int cpu, gsl_rng *rng, const struct latency_model *m,
			    const double *probabilities, double samples, unsigned int blocks,
			    unsigned int time_blocks)
{
	unsigned int *counts = calloc(HIST_BUCKETS, sizeof(*counts));
	json_t *buckets = json_array(), *maxima = json_array(), *entry, *drawn;
	uint64_t largest = 0, min = 0, max = 0, v;
	unsigned int i, top;
	double sum = 0;

	for (i = 0; i < blocks; i++) {
		v = (uint64_t)model_block_max(m, rng, samples / blocks);
		json_array_append_new(maxima, json_integer((json_int_t)v));
		if (v > largest)
			largest = v;
	}
	drawn = draw_blocks(rng, probabilities, samples, time_blocks, blocks, counts);
	/* the largest block maximum is a sample too: the histogram holds it (in block 0) */
	top = hist_bucket_of(largest);
	counts[top]++;
	if (drawn)
		add_to_first_block(json_object_get(drawn, "histograms"), top);
	for (i = 0; i < HIST_BUCKETS; i++) {
		if (!counts[i])
			continue;
		if (!min)
			min = hist_bucket_low(i);
		max = i == top ? largest : hist_bucket_high(i);
		sum += (double)counts[i] * (hist_bucket_low(i) + hist_bucket_high(i)) / 2.0;
		json_array_append_new(buckets, json_pack("[III]", (json_int_t)hist_bucket_low(i),
							 (json_int_t)hist_bucket_high(i),
							 (json_int_t)counts[i]));
	}
	free(counts);
	entry = json_pack("{sisisIsIsIsIsIsIs{sssosIsI}s{sIso}}", "thread", cpu, "cpu", cpu,
			  "interval_ns", (json_int_t)(blocks * 1e9 / samples), "cycles",
			  (json_int_t)samples, "min_ns", (json_int_t)min, "avg_ns",
			  (json_int_t)(sum / samples), "max_ns", (json_int_t)max, "missed",
			  (json_int_t)0, "histogram", "unit", "ns", "buckets", buckets, "overflow",
			  (json_int_t)0, "overflow_above_ns", (json_int_t)HIST_MAX_NS,
			  "block_maxima", "block_ns", (json_int_t)1000000000, "max_ns", maxima);
	if (drawn)
		json_object_set_new(entry, "time_blocks", drawn);
	return entry;
}

int main(int argc, char **argv)
{
	static const struct option options[] = {
		COMPARE_SIZE_OPTIONS,
		{ "stretch", required_argument, NULL, 't' },
		{ "time-blocks", required_argument, NULL, 'T' },
		{ "seed", required_argument, NULL, 'r' },
		{ NULL, 0, NULL, 0 },
	};
	struct latency_model m = { MODEL_BODY_TAIL, 1 };
	struct compare_size size;
	unsigned int cpus, blocks, cpu, time_blocks = 0;
	unsigned long seed = 1;
	double per_cpu, *probabilities;
	json_t *doc, *threads;
	gsl_rng *rng;
	int opt;

	compare_size_default(&size);
	while ((opt = getopt_long(argc, argv, "", options, NULL)) != -1) {
		if (compare_size_option(&size, opt, optarg))
			continue;
		switch (opt) {
		case 't':
			m.stretch = strtod(optarg, NULL);
			break;
		case 'r':
			seed = strtoul(optarg, NULL, 10);
			break;
		case 'T':
			time_blocks = (unsigned int)strtoul(optarg, NULL, 10);
			if (time_blocks > 256)
				usage();
			break;
		default:
			usage();
		}
	}
	cpus = size.cpus;
	blocks = size.blocks;
	if (optind + 1 != argc || !cpus || !blocks || !(m.stretch >= 1))
		usage();
	per_cpu = compare_size_per_cpu(&size);
	if (!(per_cpu >= blocks) || per_cpu > 4e9)
		usage();
	rng = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(rng, seed);
	probabilities = model_bucket_probabilities(&m);
	threads = json_array();
	for (cpu = 0; cpu < cpus; cpu++)
		json_array_append_new(threads, thread_entry(cpu, rng, &m, probabilities,
							    floor(per_cpu), blocks, time_blocks));
	doc = json_pack("{sssssssssssoso}", "schema", time_blocks ? "latscope/3" : "latscope/1",
			"command", "timer", "version", "compare-generate", "start_time",
			"2026-11-30T00:00:00Z", "end", "complete", "params",
			json_pack("{sIsI}", "duration_ns", (json_int_t)blocks * 1000000000,
				  "threads", (json_int_t)cpus),
			"threads", threads);
	if (json_dump_file(doc, argv[optind], JSON_COMPACT)) {
		fprintf(stderr, "compare-generate: cannot write %s\n", argv[optind]);
		return 1;
	}
	json_decref(doc);
	free(probabilities);
	gsl_rng_free(rng);
	return 0;
}
