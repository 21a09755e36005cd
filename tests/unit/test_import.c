// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The importers on real files: tests/data/peers holds the output of Debian's
 * rt-tests 2.4 run on the development machine (cyclictest --json -t 2 -h 400,
 * oslat --json -c 1, cyclictest -t 2 -h 400 -q text); tests/data/report holds
 * latscope's own results of noise --explain, timer --explain, check and irq
 * of the same machine (schema latscope/1) and their latscope/2 form
 * (tests/data/report/make-v2.py); monitor-state.json is the state the
 * monitor's engine wrote after 12 s on CPU 1 with 1 s windows and --explain
 * (tests/exporter-driver --monitor, as the command will run it).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "latscope/import.h"
#include "latscope/log.h"
#include "unit.h"

static char last_error[1024];

static void remember(enum log_level level, const char *message)
{
	if (level == LATSCOPE_LOG_ERROR)
		snprintf(last_error, sizeof(last_error), "%s", message);
}

static struct run *load(const char *path)
{
	struct run *run = NULL;

	last_error[0] = '\0';
	ck_assert_msg(!import_file(path, &run), "%s: %s", path, last_error);
	ck_assert_ptr_nonnull(run);
	return run;
}

static int refuse(const char *name, const char *text)
{
	struct run *run = (struct run *)1;
	int ret;

	last_error[0] = '\0';
	ret = import_buffer(name, text, strlen(text), &run);
	ck_assert_ptr_null(run);
	ck_assert_int_ne(ret, 0);
	/* one line naming the file */
	ck_assert_msg(!strncmp(last_error, name, strlen(name)), "'%s'", last_error);
	ck_assert_ptr_null(strchr(last_error, '\n'));
	return ret;
}

static struct run *accept(const char *text)
{
	struct run *run = NULL;

	last_error[0] = '\0';
	ck_assert_msg(!import_buffer("mem.json", text, strlen(text), &run), "%s", last_error);
	return run;
}

static uint64_t bucket_sum(const struct run_histogram *h)
{
	uint64_t sum = 0;
	unsigned int i;

	for (i = 0; i < h->nr_buckets; i++)
		sum += h->buckets[i].count;
	return sum;
}

START_TEST(cyclictest_json_of_rt_tests_2_4)
{
	struct run *run = load(FIXTURE("peers/cyclictest-t2-h400.json"));
	const struct run_series *t0 = &run->series[0], *t1 = &run->series[1];

	ck_assert_int_eq(run->format, RUN_FORMAT_CYCLICTEST_JSON);
	ck_assert_int_eq(run->kind, RUN_CYCLICTEST);
	ck_assert_str_eq(run->tool_version, "2.40");
	ck_assert_ptr_nonnull(strstr(run->command_line, "-h 400"));
	/* "Mon, 30 Nov 2026 11:40:10 +0000" */
	ck_assert_int_eq(run->start_ns, 1796038810LL * 1000000000LL);
	ck_assert_int_eq(run->end_ns - run->start_ns, 2LL * 1000000000LL);
	ck_assert_str_eq(run->host.nodename, "vm");
	ck_assert(run->host.preempt_rt_known && !run->host.preempt_rt);
	ck_assert_uint_eq(run->nr_series, 2);
	ck_assert_int_eq(t0->cpu, 0);
	ck_assert_int_eq(t1->cpu, 1);
	ck_assert_int_eq(t0->measure, RUN_MEASURE_TIMER);
	ck_assert_uint_eq(t0->count, 2000);
	ck_assert_uint_eq(t0->min_ns, 17000);
	ck_assert_uint_eq(t0->max_ns, 1531000);
	ck_assert_double_eq_tol(t0->avg_ns, 38350, 1e-6);
	/* 1 us buckets: bucket k holds [k, k + 1) us */
	ck_assert(t0->histogram.present);
	ck_assert_uint_eq(t0->histogram.buckets[0].low_ns, 17000);
	ck_assert_uint_eq(t0->histogram.buckets[0].high_ns, 17999);
	/* cyclictest --json has no overflow count: the cycles the buckets miss */
	ck_assert_uint_eq(bucket_sum(&t0->histogram), 1996);
	ck_assert_uint_eq(t0->histogram.overflow, 4);
	ck_assert_uint_eq(t0->histogram.overflow_from_ns, 400000);
	ck_assert_uint_eq(t0->histogram.total, 2000);
	ck_assert_uint_eq(t1->histogram.overflow, 0);
	/* what cyclictest does not say stays absent */
	ck_assert_uint_eq(t0->nr_percentiles, 0);
	ck_assert_uint_eq(t0->nr_events, 0);
	ck_assert(!run_has(t0->missed));
	ck_assert(!run_has(t0->block_ns));
	ck_assert_uint_eq(run->nr_notes, 0);
	run_free(run);
}
END_TEST

START_TEST(oslat_json_of_rt_tests_2_4)
{
	struct run *run = load(FIXTURE("peers/oslat-c1.json"));
	const struct run_series *s = &run->series[0];

	ck_assert_int_eq(run->format, RUN_FORMAT_OSLAT_JSON);
	ck_assert_int_eq(run->kind, RUN_OSLAT);
	ck_assert_uint_eq(run->nr_series, 1);
	ck_assert_int_eq(s->cpu, 1);
	ck_assert_int_eq(s->measure, RUN_MEASURE_NOISE);
	ck_assert_uint_eq(s->run_ns, 3000000000ULL);
	/* oslat's min 1 and max 2603 are bucket bounds: [0, 1) us and [2602, 2603) us */
	ck_assert_uint_eq(s->min_ns, 0);
	ck_assert_uint_eq(s->max_ns, 2602999);
	/* "1" names the bucket of [0, 1) us */
	ck_assert_uint_eq(s->histogram.buckets[0].low_ns, 0);
	ck_assert_uint_eq(s->histogram.buckets[0].high_ns, 999);
	ck_assert_uint_eq(s->histogram.buckets[0].count, 107329563);
	/* the last of 32 buckets holds every larger value too: an overflow from 31 us */
	ck_assert_uint_eq(s->histogram.overflow, 879);
	ck_assert_uint_eq(s->histogram.overflow_from_ns, 31000);
	ck_assert_uint_eq(s->histogram.nr_buckets, 31);
	ck_assert_uint_eq(s->count, 107336252);
	ck_assert_uint_eq(s->histogram.total, s->count);
	run_free(run);
}
END_TEST

START_TEST(cyclictest_text_with_histogram)
{
	struct run *run = load(FIXTURE("peers/cyclictest-t2-h400.txt"));
	const struct run_series *t0 = &run->series[0], *t1 = &run->series[1];

	ck_assert_int_eq(run->format, RUN_FORMAT_CYCLICTEST_TEXT);
	ck_assert_uint_eq(run->nr_series, 2);
	/* "# Total" counts samples in range; the overflows come on top */
	ck_assert_uint_eq(bucket_sum(&t0->histogram), 2915);
	ck_assert_uint_eq(t0->histogram.overflow, 85);
	ck_assert_uint_eq(t0->count, 3000);
	ck_assert_uint_eq(t1->count, 2847 + 106);
	ck_assert_uint_eq(t0->min_ns, 12000);
	ck_assert_uint_eq(t0->max_ns, 8906000);
	ck_assert_uint_eq(t1->max_ns, 8061000);
	ck_assert_uint_eq(t0->histogram.overflow_from_ns, 400000);
	/* the text has no CPU, host or time */
	ck_assert_int_eq(t0->cpu, -1);
	ck_assert_ptr_null(run->host.nodename);
	ck_assert_int_eq(run->start_ns, RUN_NO_TIME);
	run_free(run);
}
END_TEST

/*
 * The text need not end in a NUL (import_buffer()), and a line is read on
 * its own: "Thread 0 Interval:" with its number on the next line has none
 * (the fuzz harness found sscanf() reading on past the end of the text).
 */
START_TEST(cyclictest_text_lines_read_on_their_own)
{
	static const char text[] = "# Max Latencies: 00010\n"
				   "Thread 0 Interval:\n"
				   "1000\n"
				   "Thread 1 Interval: 500";
	size_t len = sizeof(text) - 1;
	char *exact = malloc(len);
	struct run *run = NULL;

	/* no NUL after the last byte: ASan sees any read past it */
	memcpy(exact, text, len);
	ck_assert_int_eq(import_buffer("exact.txt", exact, len, &run), 0);
	ck_assert_uint_eq(run->nr_series, 1);
	ck_assert_uint_eq(run->series[0].interval_ns, RUN_NONE);
	run_free(run);
	free(exact);
}
END_TEST

START_TEST(cyclictest_text_with_a_sum_column)
{
	/* -H 30: a last column and a last max summing every thread */
	struct run *run = load(FIXTURE("cyclictest-2.4/H30-t2-l60.txt"));

	ck_assert_uint_eq(run->nr_series, 2);
	ck_assert_uint_eq(run->series[0].count, 60);
	ck_assert_uint_eq(run->series[1].count, 60);
	ck_assert_uint_eq(run->series[0].histogram.overflow, 59);
	ck_assert_uint_eq(run->series[1].histogram.overflow, 8);
	ck_assert_uint_eq(run->series[0].max_ns, 184000);
	ck_assert_uint_eq(run->series[1].max_ns, 139000);
	run_free(run);
}
END_TEST

static void check_noise(const struct run *run, unsigned int schema)
{
	const struct run_series *s = &run->series[0];
	struct cpuset expected;

	ck_assert_int_eq(run->format, RUN_FORMAT_LATSCOPE);
	ck_assert_int_eq(run->kind, RUN_NOISE);
	ck_assert_uint_eq(run->schema, schema);
	ck_assert_str_eq(run->command, "noise");
	ck_assert_ptr_nonnull(strstr(run->command_line, "latscope noise --duration 2s"));
	ck_assert(run->host.has_cpus);
	cpuset_parse_list("0-1", &expected);
	ck_assert(cpuset_equal(&run->host.online, &expected));
	ck_assert(cpuset_empty(&run->host.isolated));
	ck_assert_str_eq(run->host.virtualization, "KVMKVMKVM");
	ck_assert_uint_eq(run->nr_series, 1);
	ck_assert_int_eq(s->cpu, 1);
	ck_assert_int_eq(s->measure, RUN_MEASURE_NOISE);
	ck_assert_uint_eq(s->count, 141337465);
	ck_assert_uint_eq(s->max_ns, 2182577);
	ck_assert_uint_eq(s->nr_percentiles, 6);
	ck_assert_double_eq(s->percentiles[0].percent, 50);
	ck_assert_double_eq(s->percentiles[5].percent, 99.999);
	ck_assert_uint_eq(s->percentiles[5].ns, 30015);
	ck_assert_uint_eq(s->histogram.total, s->count);
	ck_assert_uint_eq(bucket_sum(&s->histogram), s->count);
	ck_assert_uint_eq(s->histogram.overflow, 0);
	ck_assert_uint_eq(s->threshold_ns, 1000);
	ck_assert_uint_eq(s->events_above, 6519);
	ck_assert_uint_eq(s->lost_ns, 150445883);
	ck_assert_uint_eq(s->nr_periodic, 2);
	ck_assert_uint_eq(s->periodic[0].period_ns, 3999994);
	ck_assert_uint_eq(s->nr_causes, 36);
	ck_assert_str_eq(s->causes[0].label, "unexplained (firmware, hypervisor)");
	ck_assert_int_eq(s->causes[0].kind, RUN_CAUSE_UNEXPLAINED);
	ck_assert_uint_eq(s->causes[0].period_ns, 3999999);
	ck_assert_uint_eq(s->nr_worst, 5);
	/* noise counts spike times from the start of the run */
	ck_assert_uint_eq(s->worst[0].t_ns, 944853500);
	ck_assert_uint_eq(s->worst[0].duration_ns, 2182577);
	ck_assert_uint_eq(s->worst[0].nr_split, 6);
	ck_assert_uint_eq(s->worst[0].nr_timeline, 10);
	ck_assert_str_eq(s->worst[0].split[0].label, "bash:15851");
	ck_assert_uint_eq(s->explained_ns, 150445883);
	ck_assert_uint_eq(s->nr_interrupts, 6);
	ck_assert_uint_eq(s->nr_softirqs, 4);
	/* today's noise result lists no gap with its time and no block maxima */
	ck_assert_uint_eq(s->nr_events, 0);
	ck_assert(!run_has(s->block_ns));
	ck_assert_ptr_nonnull(run->json);
}

START_TEST(latscope_noise_both_schemas)
{
	struct run *v1 = load(FIXTURE("report/noise-explain.json"));
	struct run *v2 = load(FIXTURE("report/noise-explain-v2.json"));

	check_noise(v1, 1);
	check_noise(v2, 2);
	run_free(v1);
	run_free(v2);
}
END_TEST

START_TEST(latscope_timer_both_schemas)
{
	const char *files[] = { FIXTURE("report/timer-explain.json"),
				FIXTURE("report/timer-explain-v2.json") };
	unsigned int i;

	for (i = 0; i < 2; i++) {
		struct run *run = load(files[i]);
		const struct run_series *t0 = &run->series[0];

		ck_assert_int_eq(run->kind, RUN_TIMER);
		ck_assert_uint_eq(run->nr_series, 2);
		ck_assert_str_eq(t0->label, "thread 0 (cpu 0)");
		ck_assert_int_eq(t0->thread, 0);
		ck_assert_uint_eq(t0->interval_ns, 1000000);
		ck_assert_uint_eq(t0->count, 2979);
		ck_assert_uint_eq(t0->max_ns, 6017345);
		ck_assert_uint_eq(t0->missed, 21);
		/* the spike records and the top spikes, once each, in time order */
		ck_assert_uint_eq(t0->nr_events, 26);
		ck_assert_uint_eq(t0->events[0].t_ns <= t0->events[1].t_ns, 1);
		ck_assert(t0->events_complete);
		ck_assert_uint_eq(t0->threshold_ns, 136703);
		/* a timer spike's start is on the monotonic clock: from the origin */
		ck_assert_uint_eq(t0->worst[0].t_ns, 369176013203ULL - 368773013203ULL);
		ck_assert_int_eq(t0->worst[0].timeline[0].kind, RUN_CAUSE_TIMER_DELAY);
		ck_assert_uint_eq(t0->worst[0].timeline[0].offset_ns, 0);
		run_free(run);
	}
}
END_TEST

START_TEST(latscope_monitor_state)
{
	struct run *run = load(FIXTURE("report/monitor-state.json"));
	const struct run_series *s = &run->series[0];
	uint64_t worst = 0;
	size_t i;

	ck_assert_int_eq(run->kind, RUN_MONITOR);
	ck_assert_uint_eq(run->nr_series, 1);
	ck_assert_int_eq(s->cpu, 1);
	ck_assert_uint_eq(s->count, 11975);
	ck_assert_uint_eq(s->max_ns, 6703012);
	ck_assert(!run_has(s->min_ns));
	/* the mean from the state's sum */
	ck_assert(s->avg_ns > 0);
	ck_assert_uint_eq(s->histogram.total, s->count);
	/* windows from their index: [index, index + 1) s on the wall clock */
	ck_assert_uint_eq(s->window_ns, 1000000000);
	ck_assert_uint_ge(s->nr_windows, 10);
	ck_assert_int_eq(s->windows[0].end_ns, 1796045560LL * 1000000000LL);
	ck_assert(s->windows[0].partial);
	ck_assert(!s->windows[1].partial);
	for (i = 0; i < s->nr_windows; i++)
		worst = s->windows[i].max_ns > worst ? s->windows[i].max_ns : worst;
	ck_assert_uint_eq(worst, s->max_ns);
	ck_assert_uint_eq(s->block_ns, 1000000000);
	ck_assert_uint_gt(s->nr_blocks, 0);
	/* causes and spikes under "explain", spikes timed on the wall clock */
	ck_assert_uint_gt(s->nr_causes, 0);
	ck_assert_uint_eq(s->nr_worst, 20);
	ck_assert_uint_eq(s->worst[0].duration_ns, 6703012);
	ck_assert_uint_eq(s->worst[0].t_ns, 1796045563737102993ULL - 1796045558948000000ULL);
	ck_assert_str_eq(s->worst[0].split[0].label, "timer irq delay");
	ck_assert_int_eq(s->worst[0].split[0].kind, RUN_CAUSE_TIMER_DELAY);
	run_free(run);
}
END_TEST

START_TEST(latscope_check_and_irq)
{
	struct run *check = load(FIXTURE("report/check.json"));
	struct run *plan = load(FIXTURE("report/irq-plan.json"));
	struct run *plan2 = load(FIXTURE("report/irq-plan-v2.json"));
	struct run *check2 = load(FIXTURE("report/check-v2.json"));

	ck_assert_int_eq(check->kind, RUN_CHECK);
	ck_assert_uint_eq(check->nr_series, 0);
	ck_assert(!run_is_measurement(check));
	ck_assert_uint_eq(json_array_size(json_object_get(check->json, "findings")), 41);
	ck_assert_uint_eq(check2->schema, 2);
	ck_assert_int_eq(plan->kind, RUN_IRQ);
	ck_assert_str_eq(plan->subcommand, "plan");
	ck_assert_uint_eq(json_array_size(json_object_get(plan->json, "cpu_loads")), 2);
	ck_assert_str_eq(plan2->subcommand, "plan");
	ck_assert_str_eq(json_string_value(json_object_get(plan2->json, "allowed_cpus")), "0-1");
	run_free(check);
	run_free(check2);
	run_free(plan);
	run_free(plan2);
}
END_TEST

START_TEST(future_and_unknown_schemas_are_refused)
{
	refuse("new.json", "{\"schema\": \"latscope/4\", \"command\": \"noise\", \"cpus\": []}");
	ck_assert_ptr_nonnull(strstr(last_error, "newer latscope (schema latscope/4)"));
	refuse("odd.json", "{\"schema\": \"other/1\", \"command\": \"noise\"}");
	ck_assert_ptr_nonnull(strstr(last_error, "unknown schema 'other/1'"));
	refuse("cmd.json", "{\"schema\": \"latscope/1\", \"command\": \"frobnicate\"}");
	ck_assert_ptr_nonnull(strstr(last_error, "unknown command 'frobnicate'"));
	refuse("rt.json", "{\"file_version\": 2, \"thread\": {\"0\": {}}}");
	ck_assert_ptr_nonnull(strstr(last_error, "file_version"));
}
END_TEST

START_TEST(files_of_no_known_format_are_refused)
{
	refuse("empty.json", "   \n");
	ck_assert_ptr_nonnull(strstr(last_error, "empty file"));
	refuse("other.json", "{\"name\": \"a package.json\"}");
	ck_assert_ptr_nonnull(strstr(last_error, "no known kind"));
	ck_assert_ptr_nonnull(strstr(last_error, "expected latscope JSON"));
	refuse("array.json", "[1, 2, 3]");
	refuse("broken.json", "{\"schema\": \"latscope/1\",\n \"command\": }");
	ck_assert_ptr_nonnull(strstr(last_error, "not valid JSON (line 2"));
	refuse("trailing.json", "{\"schema\": \"latscope/1\"} {}");
	/* a key given twice: refused, naming it, whichever value would have counted */
	refuse("twice.json", "{\"schema\": \"latscope/2\", \"command\": \"timer\",\n"
			     " \"command\": \"noise\"}");
	ck_assert_ptr_nonnull(strstr(last_error, "line 2: the key \"command\" given twice"));
	refuse("notes.txt", "T: 0 ( 1234) P:80 I:1000 C: 100 Min: 3 Act: 4 Avg: 5 Max: 9\n");
	ck_assert_ptr_nonnull(strstr(last_error, "not a result file"));
}
END_TEST

START_TEST(deep_nesting_is_refused)
{
	char text[1400];
	int i;

	/* 600 arrays in an object: deeper than any result, refused before memory runs out */
	text[0] = '{';
	memcpy(text + 1, "\"a\":", 4);
	for (i = 0; i < 600; i++)
		text[5 + i] = '[';
	for (i = 0; i < 600; i++)
		text[605 + i] = ']';
	memcpy(text + 1205, "}", 2);
	refuse("deep.json", text);
	ck_assert_ptr_nonnull(strstr(last_error, "512 levels"));
}
END_TEST

START_TEST(only_regular_files_are_read)
{
	char dir[] = "/tmp/latscope-import-XXXXXX", fifo[64];
	struct run *run;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	ck_assert_int_eq(import_file(dir, &run), -EISDIR);
	ck_assert_ptr_nonnull(strstr(last_error, dir));
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	ck_assert_int_eq(mkfifo(fifo, 0600), 0);
	/* a FIFO without a writer must not block */
	ck_assert_int_eq(import_file(fifo, &run), -EINVAL);
	ck_assert_ptr_nonnull(strstr(last_error, "a FIFO, not a regular file"));
	ck_assert_int_eq(import_file("/nonexistent/x.json", &run), -ENOENT);
	ck_assert_int_eq(import_file("/dev/zero", &run), -EINVAL);
	ck_assert_ptr_nonnull(strstr(last_error, "a character device, not a regular file"));
	/* larger than any result: refused before a byte is read */
	snprintf(fifo, sizeof(fifo), "%s/huge.json", dir);
	{
		FILE *f = fopen(fifo, "w");

		ck_assert_ptr_nonnull(f);
		fclose(f);
		ck_assert_int_eq(truncate(fifo, (off_t)IMPORT_MAX_BYTES + 1), 0);
	}
	ck_assert_int_eq(import_file(fifo, &run), -EFBIG);
	ck_assert_ptr_nonnull(strstr(last_error, "larger than the 512 MiB read"));
	unlink(fifo);
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	unlink(fifo);
	rmdir(dir);
}
END_TEST

START_TEST(cyclictest_histogram_that_contradicts_its_thread)
{
	/* 2000 cycles, one in the histogram, and a max inside its range */
	struct run *run =
		accept("{\"file_version\": 1, \"cmdline:\": \"cyclictest -h 400 --json=x\","
		       "\"thread\": {\"0\": {\"histogram\": {\"255\": 1}, \"cycles\": 2000,"
		       "\"min\": 21, \"max\": 255, \"avg\": 48.55, \"cpu\": 1, \"node\": 0}}}");

	ck_assert(!run->series[0].histogram.present);
	ck_assert_uint_eq(run->nr_notes, 1);
	ck_assert_ptr_nonnull(strstr(run->notes[0], "not used"));
	ck_assert_uint_eq(run->series[0].max_ns, 255000);
	run_free(run);
}
END_TEST

/* "62" and "062" name one bucket: given twice, the file is refused (found by fuzzing) */
START_TEST(peer_bucket_given_twice_is_refused)
{
	refuse("twice.json",
	       "{\"file_version\": 1, \"cmdline:\": \"cyclictest -h 400 --json=x\","
	       "\"thread\": {\"0\": {\"histogram\": {\"62\": 8, \"062\": 1}, \"cycles\": 9,"
	       "\"min\": 62, \"max\": 62, \"avg\": 62, \"cpu\": 1}}}");
	ck_assert_ptr_nonnull(strstr(last_error, "histogram bucket 62 is given twice"));
	refuse("twice.json", "{\"file_version\": 1, \"cmdline:\": \"oslat --json=x\","
			     "\"thread\": {\"0\": {\"histogram\": {\"3\": 8, \"3.0\": 1},"
			     "\"cpu\": 1, \"min\": 1, \"max\": 3, \"avg\": 2}}}");
	ck_assert_ptr_nonnull(strstr(last_error, "histogram bucket 3 is given twice"));
}
END_TEST

/*
 * Numbers past what a uint64_t of nanoseconds holds (found by fuzzing: a
 * -h of 1e23 made a cast out of range): a limit beyond an hour is not
 * used, with a note, and a min, max or duration out of range is absent.
 */
START_TEST(peer_numbers_out_of_range_are_not_used)
{
	struct run *run = accept(
		"{\"file_version\": 1, \"cmdline:\": \"cyclictest -h 99999999999999999999999\","
		"\"thread\": {\"0\": {\"histogram\": {\"7\": 3}, \"cycles\": 5,"
		"\"min\": 7, \"max\": 1e300, \"avg\": 9, \"cpu\": 1}}}");
	const struct run_histogram *h = &run->series[0].histogram;

	ck_assert_uint_eq(run->nr_notes, 1);
	ck_assert_msg(strstr(run->notes[0], "-h 1e+23) is beyond an hour"), "%s", run->notes[0]);
	ck_assert(h->present);
	ck_assert_uint_eq(h->overflow, 2);
	ck_assert_uint_eq(h->overflow_from_ns, 8000);
	ck_assert_uint_eq(run->series[0].min_ns, 7000);
	ck_assert(!run_has(run->series[0].max_ns));
	run_free(run);

	run = accept("{\"file_version\": 1, \"cmdline:\": \"oslat --json=x\","
		     "\"thread\": {\"0\": {\"histogram\": {\"3\": 8}, \"cpu\": 1,"
		     "\"min\": 1, \"max\": 1e17, \"avg\": 2, \"duration\": 1e300}}}");
	ck_assert(!run_has(run->series[0].max_ns));
	ck_assert(!run_has(run->series[0].run_ns));
	run_free(run);
}
END_TEST

START_TEST(cyclictest_in_nanoseconds_and_without_histogram)
{
	struct run *run =
		accept("{\"file_version\": 1, \"resolution_in_ns\": 1, \"thread\": {"
		       "\"0\": {\"histogram\": {\"2500\": 3}, \"cycles\": 3, \"min\": 2400,"
		       " \"max\": 2600, \"avg\": 2500, \"cpu\": -1},"
		       "\"1\": {\"cycles\": 5, \"min\": 2, \"max\": 9, \"avg\": 4, \"cpu\": 0}}}");

	ck_assert_uint_eq(run->series[0].histogram.buckets[0].low_ns, 2500);
	ck_assert_uint_eq(run->series[0].histogram.buckets[0].high_ns, 2500);
	ck_assert_uint_eq(run->series[0].max_ns, 2600);
	ck_assert_int_eq(run->series[0].cpu, -1);
	ck_assert_str_eq(run->series[0].label, "thread 0");
	ck_assert(!run->series[1].histogram.present);
	ck_assert_uint_eq(run->series[1].max_ns, 9);
	run_free(run);
}
END_TEST

/* the fields noise, timer and monitor add for report and compare */
START_TEST(events_block_maxima_and_windows)
{
	struct run *run = accept(
		"{\"schema\": \"latscope/2\", \"command\": \"monitor\", \"window_ns\": 300000000000,"
		" \"host\": {\"online_cpus\": \"0-3,8\", \"isolated_cpus\": \"\"},"
		" \"cpus\": [{\"cpu\": 2, \"count\": 1000, \"max_ns\": 90000,"
		"  \"histogram\": {\"unit\": \"ns\", \"buckets\": [[1000, 1007, 900], [9000, 9063, 100]],"
		"   \"overflow\": 0, \"overflow_above_ns\": 10000000000},"
		"  \"gaps\": {\"threshold_ns\": 5000, \"count\": 3, \"not_stored\": 0,"
		"   \"records\": [[300, 9000], [100, 6000], [200, 7000]]},"
		"  \"block_maxima\": {\"block_ns\": 1000000000, \"max_ns\": [9000, 8000, 90000]},"
		"  \"windows\": [{\"end\": \"2026-11-30T12:00:00Z\", \"max_ns\": 90000, \"p99_ns\": 9000,"
		"    \"count\": 600, \"missed\": 0},"
		"   {\"end_ns\": 1796040300000000000, \"max_ns\": 8000, \"p99_ns\": 7000, \"count\": 400,"
		"    \"missed\": 2}]}]}");
	const struct run_series *s = &run->series[0];
	struct cpuset expected;

	ck_assert_int_eq(run->kind, RUN_MONITOR);
	cpuset_parse_list("0-3,8", &expected);
	ck_assert(cpuset_equal(&run->host.online, &expected));
	ck_assert_uint_eq(s->nr_events, 3);
	ck_assert_uint_eq(s->events[0].t_ns, 100);
	ck_assert_uint_eq(s->events[2].ns, 9000);
	ck_assert(s->events_complete);
	ck_assert_uint_eq(s->block_ns, 1000000000);
	ck_assert_uint_eq(s->nr_blocks, 3);
	ck_assert_uint_eq(s->block_max_ns[2], 90000);
	ck_assert_uint_eq(s->window_ns, 300000000000ULL);
	ck_assert_uint_eq(s->nr_windows, 2);
	ck_assert_int_eq(s->windows[0].end_ns, 1796040000LL * 1000000000LL);
	ck_assert_uint_eq(s->windows[1].missed, 2);
	ck_assert_uint_eq(s->histogram.nr_buckets, 2);
	ck_assert_uint_eq(s->histogram.overflow_from_ns, 10000000001ULL);
	/* absent, not zero */
	ck_assert(!run_has(s->min_ns));
	ck_assert(isnan(s->avg_ns));
	run_free(run);
}
END_TEST

/* a noise result of schema latscope/3 whose one CPU has time blocks @blocks */
static int noise_with_blocks(char *text, size_t size, const char *blocks)
{
	return snprintf(
		text, size,
		"{\"schema\": \"latscope/3\", \"command\": \"noise\", \"cpus\": [{\"cpu\": 1,"
		" \"loops\": 1000, \"min_ns\": 1000, \"max_ns\": 9000,"
		" \"histogram\": {\"unit\": \"ns\", \"buckets\": [[1000, 1007, 900],"
		" [9000, 9063, 100]]}, \"time_blocks\": %s}]}",
		blocks);
}

/* Time blocks that add up to the histogram are kept; others are left out with a note. */
START_TEST(time_blocks_are_read_and_checked)
{
	unsigned int low = hist_bucket_of(1000), high = hist_bucket_of(9000);
	char blocks[256], text[1024];
	struct run *run;

	snprintf(blocks, sizeof(blocks),
		 "{\"block_ns\": 100000000, \"buckets\": \"log-linear\", \"histograms\":"
		 " [[%u, 600], [], [%u, 300, %u, 100]], \"lost\": 0}",
		 low, low, high);
	noise_with_blocks(text, sizeof(text), blocks);
	run = accept(text);
	ck_assert_ptr_nonnull(run->series[0].time_blocks);
	ck_assert_uint_eq(run->series[0].time_blocks->nr, 3);
	ck_assert_uint_eq(run->series[0].time_blocks->blocks[2].count, 400);
	ck_assert_uint_eq(time_blocks_length(run->series[0].time_blocks), 100000000);
	ck_assert_uint_eq(run->nr_notes, 0);
	run_free(run);

	snprintf(blocks, sizeof(blocks),
		 "{\"block_ns\": 100000000, \"buckets\": \"log-linear\", \"histograms\":"
		 " [[%u, 600]], \"lost\": 0}",
		 low);
	noise_with_blocks(text, sizeof(text), blocks);
	run = accept(text);
	ck_assert_ptr_null(run->series[0].time_blocks);
	ck_assert_uint_eq(run->nr_notes, 1);
	ck_assert_msg(strstr(run->notes[0], "hold 600 values, its histogram 1000"), "%s",
		      run->notes[0]);
	run_free(run);

	snprintf(blocks, sizeof(blocks),
		 "{\"block_ns\": 100000000, \"buckets\": \"log-linear\", \"histograms\":"
		 " [[%u, 900, %u, 100]], \"lost\": 3}",
		 low, high);
	noise_with_blocks(text, sizeof(text), blocks);
	run = accept(text);
	ck_assert_ptr_null(run->series[0].time_blocks);
	ck_assert_ptr_nonnull(strstr(run->notes[0], "3 time blocks were lost"));
	run_free(run);

	/* counts past 2^64 that wrap around to the histogram's 1000 */
	snprintf(blocks, sizeof(blocks),
		 "{\"block_ns\": 100000000, \"buckets\": \"log-linear\", \"histograms\":"
		 " [[%u, 9223372036854775807], [%u, 9223372036854775807], [%u, 1002]]}",
		 low, low, high);
	noise_with_blocks(text, sizeof(text), blocks);
	run = accept(text);
	ck_assert_ptr_null(run->series[0].time_blocks);
	ck_assert_ptr_nonnull(strstr(run->notes[0], "more values than a count holds"));
	run_free(run);

	noise_with_blocks(text, sizeof(text),
			  "{\"block_ns\": 100000000, \"buckets\": \"log-linear\","
			  " \"histograms\": [[7, 1, 7, 1]]}");
	refuse("b.json", text);
	ck_assert_ptr_nonnull(strstr(last_error, "cpu 1: block 0: bucket 7 is out of order"));
}
END_TEST

/*
 * A monitor's blocks are in coarse native keys: kept when every key holds
 * what the histogram's buckets within it hold; left out with a note when
 * only their total agrees.
 */
START_TEST(monitor_blocks_are_checked_key_by_key)
{
	unsigned int slow = native_slot_of(20000), sfast = native_slot_of(5000);
	unsigned int kslow = native_coarse_key(slow), kfast = native_coarse_key(sfast);
	char text[1024];
	struct run *run;
	int i;

	for (i = 0; i < 2; i++) {
		snprintf(
			text, sizeof(text),
			"{\"schema\": \"latscope/3\", \"command\": \"monitor\", \"cpus\": [{"
			"\"cpu\": 1, \"count\": 100, \"max_ns\": 20000, \"histogram\": {\"unit\":"
			" \"ns\", \"buckets\": [[%llu, %llu, 90], [%llu, %llu, 10]]},"
			" \"time_blocks\": {\"block_ns\": 100000000, \"buckets\": \"native/2\","
			" \"start_ns\": 100000000, \"histograms\": [[%u, 50], [%u, %d, %u, %d]]}}]}",
			(unsigned long long)native_slot_low(sfast),
			(unsigned long long)native_slot_high[sfast],
			(unsigned long long)native_slot_low(slow),
			(unsigned long long)native_slot_high[slow], kfast, kfast, 40 - i, kslow,
			10 + i);
		run = accept(text);
		if (!i) {
			ck_assert_ptr_nonnull(run->series[0].time_blocks);
			ck_assert_uint_eq(run->nr_notes, 0);
		} else {
			ck_assert_ptr_null(run->series[0].time_blocks);
			ck_assert_msg(strstr(run->notes[0], "bucket by bucket"), "%s",
				      run->notes[0]);
		}
		run_free(run);
	}
}
END_TEST

/* a monitor state that began at 12:00 on CPU 1, 100 wake-ups, 40 of them in its blocks */
static void monitor_with_lost_blocks(char *text, size_t size, const char *start_ns,
				     const char *layout)
{
	unsigned int slot = native_slot_of(5000);

	snprintf(text, size,
		 "{\"schema\": \"latscope/3\", \"command\": \"monitor\","
		 " \"state\": {\"began\": \"2026-11-30T12:00:00Z\", \"restarts\": 1},"
		 " \"cpus\": [{\"cpu\": 1, \"count\": 100, \"max_ns\": 5000, \"histogram\":"
		 " {\"unit\": \"ns\", \"buckets\": [[%llu, %llu, 100]]}, \"time_blocks\":"
		 " {\"block_ns\": 100000000, \"buckets\": \"%s\", \"start_ns\": %s,"
		 " \"lost\": 1, \"histograms\": [[%u, 40]]}}]}",
		 (unsigned long long)native_slot_low(slot),
		 (unsigned long long)native_slot_high[slot], layout, start_ns,
		 native_coarse_key(slot));
}

/*
 * A monitor that continued a state written before time blocks marks that
 * history lost and begins its blocks when it starts: the note says that
 * the history before then predates blocks, not that blocks were lost.
 */
START_TEST(monitor_history_before_blocks_is_named)
{
	char text[1024];
	struct run *run;

	/* blocks from 13:00, an hour after the state began */
	monitor_with_lost_blocks(text, sizeof(text), "1796043600000000000", "native/2");
	run = accept(text);
	ck_assert_ptr_null(run->series[0].time_blocks);
	ck_assert_uint_eq(run->nr_notes, 1);
	ck_assert_str_eq(run->notes[0],
			 "cpu 1: the state's history before 2026-11-30T13:00:00.000000Z predates"
			 " time blocks: intervals for it assume independent samples");
	run_free(run);

	/* blocks from the state's beginning: some were lost in the run */
	monitor_with_lost_blocks(text, sizeof(text), "1796040000100000000", "native/2");
	run = accept(text);
	ck_assert_ptr_null(run->series[0].time_blocks);
	ck_assert_str_eq(run->notes[0],
			 "cpu 1: 1 time blocks were lost in the run: its blocks are left out");
	run_free(run);

	/* read as the monitor reads its state: its blocks are native ones */
	monitor_with_lost_blocks(text, sizeof(text), "1796040000100000000", "log-linear");
	refuse("m.json", text);
	ck_assert_ptr_nonnull(strstr(last_error, "cpu 1: time_blocks are not native/2"));
	monitor_with_lost_blocks(text, sizeof(text), "1796040000150000000", "native/2");
	refuse("m.json", text);
	ck_assert_ptr_nonnull(strstr(last_error, "cpu 1: time_blocks has no start_ns"));
}
END_TEST

/* The state's windows, a column each: one that is there has a number per window. */
START_TEST(monitor_window_columns_are_checked)
{
	static const char *const bad[] = { "\"count\": \"600\"", "\"max_ns\": [1, 2, 3]",
					   "\"partial\": [[1, 2], [0, 3]]" };
	static const char *const why[] = { "cpu 1: windows.count is not 2 numbers",
					   "cpu 1: windows.max_ns is not 2 numbers",
					   "cpu 1: windows.partial is not 2 numbers" };
	char text[512];
	struct run *run;
	size_t i;

	for (i = 0; i < 3; i++) {
		snprintf(text, sizeof(text),
			 "{\"schema\": \"latscope/3\", \"command\": \"monitor\", \"cpus\": [{"
			 "\"cpu\": 1, \"windows\": {\"window_ns\": 1000000000,"
			 " \"index\": [7, 9], %s}}]}",
			 bad[i]);
		refuse("w.json", text);
		ck_assert_msg(strstr(last_error, why[i]), "%s", last_error);
	}
	run = accept("{\"schema\": \"latscope/3\", \"command\": \"monitor\", \"cpus\": [{"
		     "\"cpu\": 1, \"windows\": {\"window_ns\": 1000000000,"
		     " \"index\": [7, 9], \"max_ns\": [5000, -1]}}]}");
	ck_assert_uint_eq(run->series[0].nr_windows, 2);
	ck_assert_int_eq(run->series[0].windows[1].end_ns, 10000000000LL);
	ck_assert_uint_eq(run->series[0].windows[0].max_ns, 5000);
	/* absent columns and negative values are unknown, not zero */
	ck_assert(!run_has(run->series[0].windows[1].max_ns));
	ck_assert(!run_has(run->series[0].windows[0].count));
	run_free(run);
	refuse("w.json", "{\"schema\": \"latscope/3\", \"command\": \"monitor\", \"cpus\": [{"
			 "\"cpu\": 1, \"windows\": {\"window_ns\": 1000000000}}]}");
	ck_assert_ptr_nonnull(strstr(last_error, "cpu 1: windows without window_ns and index"));
}
END_TEST

/*
 * The columns the state writes as runs read as numbers a window, and a
 * state with no block maxima of its own has those of its complete windows.
 */
START_TEST(monitor_windows_as_runs)
{
	struct run *run =
		accept("{\"schema\": \"latscope/3\", \"command\": \"monitor\", \"cpus\": [{"
		       "\"cpu\": 1, \"windows\": {\"window_ns\": 1000000000,"
		       " \"index\": [[7, 3], [12, 2]], \"count\": [[600, 3], [0, 1], [600, 1]],"
		       " \"max_ns\": [5000, 7000, 6000, 0, -1], \"p99_ns\": [1, 2, 3, 0, 0],"
		       " \"missed\": [[0, 2], [3, 3]], \"partial\": [[1, 1], [0, 4]]}}]}");
	const struct run_series *s = &run->series[0];

	ck_assert_uint_eq(s->nr_windows, 5);
	ck_assert_int_eq(s->windows[2].end_ns, 10000000000LL);
	ck_assert_int_eq(s->windows[3].end_ns, 13000000000LL);
	ck_assert_uint_eq(s->windows[1].count, 600);
	ck_assert_uint_eq(s->windows[2].missed, 3);
	ck_assert(s->windows[0].partial && !s->windows[1].partial);
	/* the first is partial, the fourth has no sample, the fifth no known max: not blocks */
	ck_assert_uint_eq(s->block_ns, 1000000000);
	ck_assert_uint_eq(s->nr_blocks, 2);
	ck_assert_uint_eq(s->block_max_ns[0], 7000);
	ck_assert_uint_eq(s->block_max_ns[1], 6000);
	run_free(run);
	/* block maxima of its own are kept (states written before runs) */
	run = accept("{\"schema\": \"latscope/3\", \"command\": \"monitor\", \"cpus\": [{"
		     "\"cpu\": 1, \"block_maxima\": {\"block_ns\": 2000000000, \"max_ns\": [9]},"
		     " \"windows\": {\"window_ns\": 1000000000, \"index\": [7, 8],"
		     " \"max_ns\": [5000, 7000]}}]}");
	ck_assert_uint_eq(run->series[0].block_ns, 2000000000);
	ck_assert_uint_eq(run->series[0].nr_blocks, 1);
	run_free(run);
	/* runs that stand for more windows than a state holds */
	refuse("w.json", "{\"schema\": \"latscope/3\", \"command\": \"monitor\", \"cpus\": [{"
			 "\"cpu\": 1, \"windows\": {\"window_ns\": 1000000000,"
			 " \"index\": [[7, 9000000000]]}}]}");
	ck_assert_ptr_nonnull(
		strstr(last_error, "cpu 1: windows.index: runs of more than 3024000"));
}
END_TEST

START_TEST(malformed_latscope_fields_are_refused)
{
	refuse("h.json",
	       "{\"schema\": \"latscope/1\", \"command\": \"noise\", \"cpus\": [{\"cpu\": 1,"
	       " \"histogram\": {\"buckets\": [[5, 9, 1], [3, 4, 1]]}}]}");
	ck_assert_ptr_nonnull(strstr(last_error, "out of order"));
	refuse("c.json", "{\"schema\": \"latscope/2\", \"command\": \"noise\","
			 " \"host\": {\"online_cpus\": \"0-x\"}, \"cpus\": []}");
	ck_assert_ptr_nonnull(strstr(last_error, "online_cpus"));
	refuse("n.json", "{\"schema\": \"latscope/1\", \"command\": \"noise\"}");
	ck_assert_ptr_nonnull(strstr(last_error, "without \"cpus\""));
}
END_TEST

START_TEST(doctor_parts_are_runs_of_their_own)
{
	struct run *run = accept(
		"{\"schema\": \"latscope/2\", \"command\": \"doctor\", \"verdict\": \"not ready\","
		" \"host\": {\"uname\": {\"nodename\": \"box\"}},"
		" \"check\": {\"findings\": []},"
		" \"timer\": {\"command\": \"timer\", \"threads\": [{\"thread\": 0, \"cpu\": 1,"
		"   \"cycles\": 10, \"max_ns\": 5000}]}}");

	ck_assert_int_eq(run->kind, RUN_DOCTOR);
	ck_assert_uint_eq(run->nr_parts, 2);
	ck_assert_int_eq(run->parts[0]->kind, RUN_CHECK);
	ck_assert_int_eq(run->parts[1]->kind, RUN_TIMER);
	ck_assert_uint_eq(run->parts[1]->series[0].max_ns, 5000);
	/* a part without a host of its own has the doctor's */
	ck_assert_str_eq(run->parts[1]->host.nodename, "box");
	run_free(run);
}
END_TEST

START_TEST(histogram_quantile_and_above)
{
	struct run_bucket buckets[] = { { 1000, 1999, 90 }, { 5000, 5999, 9 } };
	struct run_histogram h = { .present = true,
				   .buckets = buckets,
				   .nr_buckets = 2,
				   .overflow = 1,
				   .overflow_from_ns = 400000,
				   .total = 100 };
	uint64_t ns;
	bool exact;

	ck_assert_int_eq(run_histogram_quantile(&h, 0.5, &ns), 0);
	ck_assert_uint_eq(ns, 1999);
	ck_assert_int_eq(run_histogram_quantile(&h, 0.99, &ns), 0);
	ck_assert_uint_eq(ns, 5999);
	ck_assert_int_eq(run_histogram_quantile(&h, 1, &ns), -ERANGE);
	ck_assert_uint_eq(run_histogram_above(&h, 3000, &exact), 10);
	ck_assert(exact);
	ck_assert_uint_eq(run_histogram_above(&h, 5500, &exact), 10);
	ck_assert(!exact);
	ck_assert_uint_eq(run_histogram_above(&h, 500000, &exact), 1);
	ck_assert(!exact);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("import");
	TCase *tc = tcase_create("import");

	log_set_hook(remember);
	tcase_add_test(tc, cyclictest_json_of_rt_tests_2_4);
	tcase_add_test(tc, oslat_json_of_rt_tests_2_4);
	tcase_add_test(tc, cyclictest_text_with_histogram);
	tcase_add_test(tc, cyclictest_text_with_a_sum_column);
	tcase_add_test(tc, latscope_noise_both_schemas);
	tcase_add_test(tc, latscope_timer_both_schemas);
	tcase_add_test(tc, latscope_monitor_state);
	tcase_add_test(tc, latscope_check_and_irq);
	tcase_add_test(tc, future_and_unknown_schemas_are_refused);
	tcase_add_test(tc, files_of_no_known_format_are_refused);
	tcase_add_test(tc, deep_nesting_is_refused);
	tcase_add_test(tc, only_regular_files_are_read);
	tcase_add_test(tc, cyclictest_histogram_that_contradicts_its_thread);
	tcase_add_test(tc, cyclictest_in_nanoseconds_and_without_histogram);
	tcase_add_test(tc, peer_bucket_given_twice_is_refused);
	tcase_add_test(tc, peer_numbers_out_of_range_are_not_used);
	tcase_add_test(tc, cyclictest_text_lines_read_on_their_own);
	tcase_add_test(tc, events_block_maxima_and_windows);
	tcase_add_test(tc, monitor_windows_as_runs);
	tcase_add_test(tc, time_blocks_are_read_and_checked);
	tcase_add_test(tc, monitor_blocks_are_checked_key_by_key);
	tcase_add_test(tc, monitor_history_before_blocks_is_named);
	tcase_add_test(tc, monitor_window_columns_are_checked);
	tcase_add_test(tc, malformed_latscope_fields_are_refused);
	tcase_add_test(tc, doctor_parts_are_runs_of_their_own);
	tcase_add_test(tc, histogram_quantile_and_above);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
