// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Golden tests of the cyclictest formats. The fixtures in
 * tests/data/cyclictest-2.4 are the output of Debian's cyclictest 2.4 run
 * with -v (every sample, "thread:cycle:value" in us) and -h/-H: replaying
 * the same samples through latscope must print the same histogram, byte for
 * byte.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "timer_render.h"
#include "unit.h"

#define MS 1000000ULL
#define T0 (5000ULL * 1000 * MS)

static void check_line(const struct timer_line *line, bool nsecs, const char *golden)
{
	char *text = NULL;
	size_t size = 0;
	FILE *out = open_memstream(&text, &size);

	timer_render_line(out, line, nsecs);
	fclose(out);
	ck_assert_str_eq(text, golden);
	free(text);
}

START_TEST(thread_lines_as_cyclictest_prints_them)
{
	static const struct {
		struct timer_line line;
		bool nsecs;
		const char *golden;
	} cases[] = {
		/* the example */
		{ { 0, 3621, 90, 1000, 1596828, 20, 25, 93, 512 },
		  false,
		  "T: 0 ( 3621) P:90 I:1000 C:1596828 Min:     20 Act:   25 Avg:   93 Max:     512\n" },
		{ { 1, 3622, 89, 1500, 1064525, 53, 95, 94, 15586 },
		  false,
		  "T: 1 ( 3622) P:89 I:1500 C:1064525 Min:     53 Act:   95 Avg:   94 Max:   15586\n" },
		/* cyclictest 2.4 on the development machine, -q and -N -q */
		{ { 0, 5804, 90, 1000, 200, 15, 19, 23, 51 },
		  false,
		  "T: 0 ( 5804) P:90 I:1000 C:    200 Min:     15 Act:   19 Avg:   23 Max:      51\n" },
		{ { 0, 5853, 90, 1000, 20, 26276, 36241, 33640, 44415 },
		  true,
		  "T: 0 ( 5853) P:90 I:1000 C:     20 Min:  26276 Act:   36241 Avg:   33640 Max:   "
		  "44415\n" },
		{ { 12, 123456, 0, 250, 0, 0, 0, 0, 0 },
		  false,
		  "T:12 (123456) P: 0 I:250 C:      0 Min:      0 Act:    0 Avg:    0 Max:       0\n" },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		check_line(&cases[i].line, cases[i].nsecs, cases[i].golden);
}
END_TEST

START_TEST(line_from_live_values)
{
	struct timer_live live = {
		.cycles = 4, .min_ns = 15999, .act_ns = 19000, .max_ns = 51001, .sum_ns = 4 * 23999
	};
	struct timer_thread_params config = { 1, 90, 1500000 };
	struct timer_line line;

	timer_line_from_live(&line, 1, &live, 77, &config, 1000);
	ck_assert_uint_eq(line.interval_us, 1500);
	ck_assert_uint_eq(line.min, 15);
	ck_assert_uint_eq(line.act, 19);
	ck_assert_uint_eq(line.avg, 23);
	ck_assert_uint_eq(line.max, 51);
	ck_assert_int_eq(line.priority, 90);
	timer_line_from_live(&line, 1, &live, 77, &config, 1);
	ck_assert_uint_eq(line.avg, 23999);
}
END_TEST

/* Replay a fixture's samples, render, compare with its histogram part. */
static void replay(const char *fixture, unsigned int nr_threads, unsigned int histogram_us,
		   bool sum_column)
{
	struct timer_thread_params configs[4];
	struct timer_params params = {
		.nr_threads = nr_threads,
		.threads = configs,
		.mode = TIMER_WAIT_ABSOLUTE,
		.spike_threshold_ns = UINT64_MAX,
		.histogram_buckets = histogram_us,
		.unit_ns = 1000,
	};
	struct timer_stats *stats[4];
	uint64_t expiry[4];
	char *line = NULL, *golden, *text = NULL;
	size_t cap = 0, size = 0;
	FILE *in, *out, *want;
	unsigned int i, thread;
	unsigned long cycle;
	long value;
	bool in_histogram = false;
	size_t want_size = 0;

	for (i = 0; i < nr_threads; i++) {
		configs[i] = (struct timer_thread_params){ -1, 90, MS };
		stats[i] = timer_stats_new(&params, i);
		ck_assert_ptr_nonnull(stats[i]);
		expiry[i] = T0;
	}
	in = fopen(fixture, "r");
	ck_assert_ptr_nonnull(in);
	golden = NULL;
	want = open_memstream(&golden, &want_size);
	while (getline(&line, &cap, in) > 0) {
		if (!strncmp(line, "# Histogram", 11) && !strchr(line + 11, ':'))
			in_histogram = true;
		if (in_histogram) {
			fputs(line, want);
			continue;
		}
		if (sscanf(line, " %u: %lu: %ld", &thread, &cycle, &value) != 3)
			continue;
		ck_assert_uint_lt(thread, nr_threads);
		ck_assert_uint_eq(cycle, stats[thread]->live.cycles);
		/* whole us: latscope truncates them exactly as cyclictest did */
		expiry[thread] = timer_stats_add(stats[thread], expiry[thread],
						 expiry[thread] + (uint64_t)value * 1000, 0);
	}
	fclose(want);
	fclose(in);
	free(line);

	out = open_memstream(&text, &size);
	timer_render_histogram(out, (const struct timer_stats *const *)stats, nr_threads,
			       sum_column);
	fclose(out);
	ck_assert_str_eq(text, golden);
	for (i = 0; i < nr_threads; i++)
		timer_stats_free(stats[i]);
	free(text);
	free(golden);
}

START_TEST(histogram_as_cyclictest_h25_one_thread)
{
	/* cyclictest -p 90 -h 25 -l 40 -v -q */
	replay(FIXTURE("cyclictest-2.4/h25-t1-l40.txt"), 1, 25, false);
}
END_TEST

START_TEST(histofall_as_cyclictest_H30_two_threads)
{
	/* cyclictest -p 90 -t 2 -H 30 -l 60 -v -q: sum column, "others" */
	replay(FIXTURE("cyclictest-2.4/H30-t2-l60.txt"), 2, 30, true);
}
END_TEST

START_TEST(histofall_with_one_thread_has_no_sum_column)
{
	/* cyclictest -p 90 -H 3 -l 10 -q printed this (values 21..47 us) */
	static const char golden[] = "# Histogram\n"
				     "000000 000000\n"
				     "000001 000000\n"
				     "000002 000000\n"
				     "# Total: 000000000\n"
				     "# Min Latencies: 00021\n"
				     "# Avg Latencies: 00033\n"
				     "# Max Latencies: 00047\n"
				     "# Histogram Overflows: 00010\n"
				     "# Histogram Overflow at cycle number:\n"
				     "# Thread 0: 00000 00001 00002 # 00007 others\n"
				     "\n";
	static const unsigned int us[] = { 21, 47, 33, 33, 33, 33, 33, 33, 32, 32 };
	struct timer_thread_params config = { -1, 90, MS };
	struct timer_params params = { .nr_threads = 1,
				       .threads = &config,
				       .spike_threshold_ns = UINT64_MAX,
				       .histogram_buckets = 3,
				       .unit_ns = 1000 };
	struct timer_stats *stats = timer_stats_new(&params, 0);
	uint64_t expiry = T0;
	char *text = NULL;
	size_t size = 0, i;
	FILE *out;

	for (i = 0; i < sizeof(us) / sizeof(us[0]); i++)
		expiry = timer_stats_add(stats, expiry, expiry + us[i] * 1000ULL, 0);
	out = open_memstream(&text, &size);
	timer_render_histogram(out, (const struct timer_stats *const *)&stats, 1, true);
	fclose(out);
	ck_assert_str_eq(text, golden);
	free(text);
	timer_stats_free(stats);
}
END_TEST

START_TEST(summary_lines_are_comments)
{
	struct timer_thread_params config = { 1, 90, MS };
	struct timer_params params = { .nr_threads = 1,
				       .threads = &config,
				       .spike_threshold_ns = UINT64_MAX,
				       .unit_ns = 1000 };
	struct timer_stats *stats = timer_stats_new(&params, 0);
	char *text = NULL, *line, *save = NULL;
	size_t size = 0;
	FILE *out;

	stats->start_ns = T0 - MS;
	timer_stats_add(stats, T0, T0 + 20500, 0);
	timer_stats_add(stats, T0 + MS, T0 + 4 * MS + 123, 0); /* +2, +3, +4 ms missed */
	out = open_memstream(&text, &size);
	timer_render_summary(out, (const struct timer_stats *const *)&stats, 1, T0 - MS);
	fclose(out);
	ck_assert_ptr_nonnull(strstr(text, "# T: 0 cpu 1 p50 "));
	ck_assert_ptr_nonnull(strstr(text, "# T: 0 missed 3 periods, largest overrun 2.000 ms\n"));
	ck_assert_ptr_nonnull(
		strstr(text, "# T: 0 largest 3000.123 us at 0.005 s, 20.500 us at 0.001 s\n"));
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		ck_assert_msg(line[0] == '#', "not a comment: %s", line);
	free(text);
	timer_stats_free(stats);
}
END_TEST

int main(void)
{
	Suite *suite = suite_create("timer_render");
	TCase *tc = tcase_create("render");

	tcase_add_test(tc, thread_lines_as_cyclictest_prints_them);
	tcase_add_test(tc, line_from_live_values);
	tcase_add_test(tc, histogram_as_cyclictest_h25_one_thread);
	tcase_add_test(tc, histofall_as_cyclictest_H30_two_threads);
	tcase_add_test(tc, histofall_with_one_thread_has_no_sum_column);
	tcase_add_test(tc, summary_lines_are_comments);
	suite_add_tcase(suite, tc);
	return unit_run(suite);
}
