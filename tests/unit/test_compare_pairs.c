// SPDX-License-Identifier: GPL-2.0-or-later
/* compare's pairing (compare_pairs.h) and the sides' samples (compare_sample.h). */
#include <errno.h>
#include <string.h>

#include "compare_inputs.h"
#include "latscope/compare_pairs.h"
#include "latscope/compare_sample.h"

static const char *const names[] = { "a.json", "b.json", "c.json" };

#define TIMER(cpu, thread)                               \
	{                                                \
		cpu, thread, 1000, 10000, 20000, 0, NULL \
	}

/* the sample of @n series of one run: a side of one run */
static int load(const struct run *run, const unsigned int *series, unsigned int n,
		struct compare_sample *s)
{
	struct compare_part part = { 0, (unsigned int *)series, n };
	struct compare_side side = { 0, &part, 1 };

	return compare_sample_load(&run, &side, s);
}

static void free_runs(struct run **runs, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		run_free(runs[i]);
}

START_TEST(by_cpu_pairs_common_cpus_and_names_the_rest)
{
	const struct test_series a[] = { TIMER(0, 0), TIMER(1, 1), TIMER(2, 2) };
	const struct test_series b[] = { TIMER(3, 0), TIMER(2, 1), TIMER(1, 2) };
	struct run *runs[2] = { test_run("a.json", "timer", a, 3),
				test_run("b.json", "timer", b, 3) };
	struct compare_plan plan;

	ck_assert_int_eq(
		compare_plan_make((const struct run *const *)runs, names, 2, COMPARE_BY_CPU, &plan),
		0);
	ck_assert_uint_eq(plan.nr_pairs, 2);
	ck_assert_str_eq(plan.pairs[0].what, "cpu 1");
	ck_assert_int_eq(plan.pairs[0].cpu, 1);
	ck_assert_int_eq(plan.pairs[0].thread, -1);
	/* cpu 1 is A's thread 1 and B's thread 2: pinned places, not numbers, pair */
	ck_assert_uint_eq(plan.pairs[0].a.parts[0].nr_series, 1);
	ck_assert_uint_eq(plan.pairs[0].a.parts[0].series[0], 1);
	ck_assert_uint_eq(plan.pairs[0].b.parts[0].series[0], 2);
	ck_assert_uint_eq(plan.pairs[0].b.parts[0].input, 1);
	ck_assert_str_eq(plan.pairs[1].what, "cpu 2");
	ck_assert_uint_eq(plan.nr_unpaired, 2);
	ck_assert_uint_eq(plan.unpaired[0].input, 0);
	ck_assert_str_eq(plan.unpaired[0].what, "cpu 0");
	ck_assert_str_eq(plan.unpaired[0].reason, "b.json has no cpu 0: not compared");
	ck_assert_uint_eq(plan.unpaired[1].input, 1);
	ck_assert_str_eq(plan.unpaired[1].what, "cpu 3");
	compare_plan_release(&plan);
	compare_plan_release(&plan);
	free_runs(runs, 2);
}
END_TEST

START_TEST(threads_on_one_cpu_are_merged)
{
	const struct test_series a[] = { TIMER(1, 0), TIMER(1, 1) };
	const struct test_series b[] = { TIMER(1, 0) };
	struct run *runs[2] = { test_run("a.json", "timer", a, 2),
				test_run("b.json", "timer", b, 1) };
	struct compare_plan plan;

	ck_assert_int_eq(
		compare_plan_make((const struct run *const *)runs, names, 2, COMPARE_BY_CPU, &plan),
		0);
	ck_assert_uint_eq(plan.nr_pairs, 1);
	ck_assert_uint_eq(plan.pairs[0].a.parts[0].nr_series, 2);
	ck_assert_uint_eq(plan.pairs[0].b.parts[0].nr_series, 1);
	ck_assert_uint_eq(plan.nr_unpaired, 0);
	compare_plan_release(&plan);
	/* by thread, thread 1 has no partner */
	ck_assert_int_eq(compare_plan_make((const struct run *const *)runs, names, 2,
					   COMPARE_BY_THREAD, &plan),
			 0);
	ck_assert_uint_eq(plan.nr_pairs, 1);
	ck_assert_str_eq(plan.pairs[0].what, "thread 0");
	ck_assert_int_eq(plan.pairs[0].thread, 0);
	ck_assert_int_eq(plan.pairs[0].cpu, -1);
	ck_assert_uint_eq(plan.nr_unpaired, 1);
	ck_assert_str_eq(plan.unpaired[0].what, "thread 1");
	compare_plan_release(&plan);
	free_runs(runs, 2);
}
END_TEST

START_TEST(all_merges_every_series_and_more_inputs_face_a)
{
	const struct test_series a[] = { TIMER(0, 0), TIMER(1, 1) };
	const struct test_series b[] = { TIMER(2, 0) };
	const struct test_series c[] = { TIMER(0, 0), TIMER(1, 1), TIMER(2, 2) };
	struct run *runs[3] = { test_run("a.json", "timer", a, 2),
				test_run("b.json", "timer", b, 1),
				test_run("c.json", "timer", c, 3) };
	struct compare_plan plan;

	ck_assert_int_eq(
		compare_plan_make((const struct run *const *)runs, names, 3, COMPARE_BY_ALL, &plan),
		0);
	ck_assert_uint_eq(plan.nr_pairs, 2);
	ck_assert_str_eq(plan.pairs[0].what, "all");
	ck_assert_int_eq(plan.pairs[0].cpu, -1);
	ck_assert_uint_eq(plan.pairs[0].a.parts[0].input, 0);
	ck_assert_uint_eq(plan.pairs[0].a.parts[0].nr_series, 2);
	ck_assert_uint_eq(plan.pairs[0].b.parts[0].input, 1);
	ck_assert_uint_eq(plan.pairs[0].b.parts[0].nr_series, 1);
	ck_assert_uint_eq(plan.pairs[1].a.parts[0].input, 0);
	ck_assert_uint_eq(plan.pairs[1].b.parts[0].input, 2);
	ck_assert_uint_eq(plan.pairs[1].b.parts[0].nr_series, 3);
	compare_plan_release(&plan);
	/* by cpu, B shares no cpu with A: said, not guessed */
	ck_assert_int_eq(
		compare_plan_make((const struct run *const *)runs, names, 3, COMPARE_BY_CPU, &plan),
		-EINVAL);
	ck_assert_str_eq(plan.error,
			 "no cpu was measured in both a.json (cpus 0-1) and b.json (cpus 2): "
			 "compare all series to compare the inputs as wholes");
	compare_plan_release(&plan);
	free_runs(runs, 3);
}
END_TEST

START_TEST(inputs_that_cannot_be_compared)
{
	const struct test_series pinned[] = { TIMER(1, 0) };
	const struct test_series unpinned[] = { TIMER(-1, 0) };
	const struct test_series cpus[] = { TIMER(1, -1) };
	struct run *timer = test_run("a.json", "timer", pinned, 1);
	struct run *loose = test_run("b.json", "timer", unpinned, 1);
	struct run *noise = test_run("b.json", "noise", cpus, 1);
	struct run *check = test_import(
		"b.json", json_pack("{ssss}", "schema", "latscope/1", "command", "check"));
	const struct run *runs[2];
	struct compare_plan plan;

	runs[0] = timer;
	runs[1] = noise;
	ck_assert_int_eq(compare_plan_make(runs, names, 2, COMPARE_BY_CPU, &plan), -EINVAL);
	ck_assert_str_eq(plan.error,
			 "a.json (timer, timer latency) and b.json (noise, OS noise) measure "
			 "different things: compare timer results with timer results and noise "
			 "with noise");
	compare_plan_release(&plan);

	runs[1] = loose;
	ck_assert_int_eq(compare_plan_make(runs, names, 2, COMPARE_BY_CPU, &plan), -EINVAL);
	ck_assert_str_eq(plan.error, "b.json: thread 0 was not pinned to a CPU, so it cannot be "
				     "paired by CPU: pair by thread or compare all series");
	compare_plan_release(&plan);
	ck_assert_int_eq(compare_plan_make(runs, names, 2, COMPARE_BY_THREAD, &plan), 0);
	ck_assert_uint_eq(plan.nr_pairs, 1);
	compare_plan_release(&plan);

	runs[0] = noise;
	runs[1] = noise;
	ck_assert_int_eq(compare_plan_make(runs, names, 2, COMPARE_BY_THREAD, &plan), -EINVAL);
	ck_assert_str_eq(plan.error, "a.json: a noise result measures CPUs, not numbered "
				     "threads: pair by CPU or compare all series");
	compare_plan_release(&plan);

	runs[0] = timer;
	runs[1] = check;
	ck_assert_int_eq(compare_plan_make(runs, names, 2, COMPARE_BY_ALL, &plan), -EINVAL);
	ck_assert_str_eq(plan.error, "b.json: a check result is not a measurement (compare "
				     "reads noise, timer, monitor, cyclictest and oslat results)");
	compare_plan_release(&plan);
	ck_assert_int_eq(compare_plan_make(runs, names, 1, COMPARE_BY_ALL, &plan), -EINVAL);
	compare_plan_release(&plan);
	run_free(timer);
	run_free(loose);
	run_free(noise);
	run_free(check);
}
END_TEST

/* Groups: every run of both pairs' sides; a key some run lacks is named once; one setup per side. */
START_TEST(groups_pair_every_run)
{
	static const char *const files[] = { "a1.json", "a2.json", "b1.json", "b2.json" };
	static const unsigned int groups[] = { 0, 0, 1, 1 };
	const struct test_series both[] = { TIMER(1, 0), TIMER(2, 1) };
	const struct test_series one[] = { TIMER(1, 0) };
	struct run *runs[4] = { test_run("a1.json", "timer", both, 2),
				test_run("a2.json", "timer", both, 2),
				test_run("b1.json", "timer", both, 2),
				test_run("b2.json", "timer", one, 1) };
	struct compare_plan plan;
	json_t *doc;

	ck_assert_int_eq(compare_plan_make_groups((const struct run *const *)runs, files, 4, groups,
						  false, COMPARE_BY_CPU, &plan),
			 0);
	ck_assert_uint_eq(plan.nr_groups, 2);
	ck_assert_uint_eq(plan.nr_pairs, 1);
	ck_assert_uint_eq(plan.pairs[0].a.nr_parts, 2);
	ck_assert_uint_eq(plan.pairs[0].b.nr_parts, 2);
	ck_assert_uint_eq(plan.pairs[0].b.group, 1);
	ck_assert_uint_eq(plan.pairs[0].b.parts[1].input, 3);
	ck_assert_uint_eq(plan.nr_unpaired, 1);
	ck_assert_str_eq(plan.unpaired[0].reason, "b2.json has no cpu 2: not compared");
	compare_plan_release(&plan);
	/* paired runs come in equal numbers */
	ck_assert_int_eq(compare_plan_make_groups((const struct run *const *)runs, files, 3, groups,
						  true, COMPARE_BY_CPU, &plan),
			 -EINVAL);
	ck_assert_str_eq(plan.error, "paired runs need two groups of as many runs (2 and 1)");
	compare_plan_release(&plan);
	run_free(runs[3]);
	/* another period within a side is another setup */
	doc = test_document("timer", one, 1);
	json_object_set_new(json_array_get(json_object_get(doc, "threads"), 0), "interval_ns",
			    json_integer(2000000));
	runs[3] = test_import("b2.json", doc);
	ck_assert_int_eq(compare_plan_make_groups((const struct run *const *)runs, files, 4, groups,
						  false, COMPARE_BY_CPU, &plan),
			 -EINVAL);
	ck_assert_str_eq(plan.error, "b2.json: thread 0 (cpu 1) wakes every 2000 us, in b1.json "
				     "every 1000 us: the runs of a side must be runs of one setup");
	compare_plan_release(&plan);
	run_free(runs[3]);
	/* and another command */
	ck_assert_int_eq(import_file(FIXTURE("peers/cyclictest-t2-h400.json"), &runs[3]), 0);
	ck_assert_int_eq(compare_plan_make_groups((const struct run *const *)runs, files, 4, groups,
						  false, COMPARE_BY_THREAD, &plan),
			 -EINVAL);
	ck_assert_str_eq(plan.error, "b2.json: a cyclictest result among the runs of b1.json "
				     "(timer): the runs of a side must be runs of one command");
	compare_plan_release(&plan);
	free_runs(runs, 4);
}
END_TEST

/* cyclictest's threads against latscope timer's, by thread and by cpu */
START_TEST(peers_pair_with_latscope)
{
	const struct test_series a[] = { TIMER(0, 0), TIMER(1, 1) };
	struct run *runs[2] = { NULL, test_run("b.json", "timer", a, 2) };
	struct compare_plan plan;

	ck_assert_int_eq(import_file(FIXTURE("peers/cyclictest-t2-h400.json"), &runs[0]), 0);
	ck_assert_int_eq(compare_plan_make((const struct run *const *)runs, names, 2,
					   COMPARE_BY_THREAD, &plan),
			 0);
	ck_assert_uint_eq(plan.nr_pairs, 2);
	compare_plan_release(&plan);
	ck_assert_int_eq(
		compare_plan_make((const struct run *const *)runs, names, 2, COMPARE_BY_CPU, &plan),
		0);
	ck_assert_uint_eq(plan.nr_pairs, 2);
	ck_assert_str_eq(plan.pairs[1].what, "cpu 1");
	compare_plan_release(&plan);
	free_runs(runs, 2);
}
END_TEST

/*
 * oslat's CPU against latscope noise's, with oslat's histogram usable (its
 * min of 1 us is a bound of [0, 1) us); cyclictest's -h text names no CPU:
 * by thread; a monitor's CPU against a timer's.
 */
START_TEST(more_peers_pair_with_latscope)
{
	const struct test_series noise[] = { TIMER(1, -1) }, timer[] = { TIMER(0, 0), TIMER(1, 1) };
	struct run *runs[2] = { NULL, test_run("b.json", "noise", noise, 1) };
	struct compare_sample sample;
	struct compare_plan plan;

	ck_assert_int_eq(import_file(FIXTURE("peers/oslat-c1.json"), &runs[0]), 0);
	ck_assert_int_eq(
		compare_plan_make((const struct run *const *)runs, names, 2, COMPARE_BY_CPU, &plan),
		0);
	ck_assert_uint_eq(plan.nr_pairs, 1);
	ck_assert_str_eq(plan.pairs[0].what, "cpu 1");
	ck_assert_int_eq(
		compare_sample_load((const struct run *const *)runs, &plan.pairs[0].a, &sample), 0);
	ck_assert_msg(sample.has_hist, "%s", sample.no_hist);
	ck_assert_uint_eq(sample.samples, 107336252);
	ck_assert_uint_eq(sample.hist.min_ns, 0);
	ck_assert_uint_eq(sample.hist.max_ns, 2602999);
	compare_sample_release(&sample);
	compare_plan_release(&plan);
	free_runs(runs, 2);

	ck_assert_int_eq(import_file(FIXTURE("peers/cyclictest-t2-h400.txt"), &runs[0]), 0);
	runs[1] = test_run("b.json", "timer", timer, 2);
	ck_assert_int_eq(
		compare_plan_make((const struct run *const *)runs, names, 2, COMPARE_BY_CPU, &plan),
		-EINVAL);
	ck_assert_str_eq(plan.error, "a.json: thread 0 was not pinned to a CPU, so it cannot be "
				     "paired by CPU: pair by thread or compare all series");
	compare_plan_release(&plan);
	ck_assert_int_eq(compare_plan_make((const struct run *const *)runs, names, 2,
					   COMPARE_BY_THREAD, &plan),
			 0);
	ck_assert_uint_eq(plan.nr_pairs, 2);
	ck_assert_str_eq(plan.pairs[1].what, "thread 1");
	compare_plan_release(&plan);
	run_free(runs[0]);

	ck_assert_int_eq(import_file(FIXTURE("report/monitor-state.json"), &runs[0]), 0);
	ck_assert_int_eq(
		compare_plan_make((const struct run *const *)runs, names, 2, COMPARE_BY_CPU, &plan),
		0);
	ck_assert_uint_eq(plan.nr_pairs, 1);
	ck_assert_str_eq(plan.pairs[0].what, "cpu 1");
	ck_assert_uint_eq(plan.nr_unpaired, 1);
	ck_assert_str_eq(plan.unpaired[0].what, "cpu 0");
	compare_plan_release(&plan);
	free_runs(runs, 2);
}
END_TEST

START_TEST(sample_adds_histograms_of_one_layout)
{
	const struct test_series a[] = {
		{ 1, 0, 1000, 10000, 20000, 40, NULL },
		{ 1, 1, 3000, 5000, 30000, 35, NULL },
	};
	struct run *run = test_run("a.json", "timer", a, 2);
	const unsigned int both[] = { 0, 1 }, first[] = { 0 };
	struct compare_sample s;

	ck_assert_int_eq(load(run, both, 2, &s), 0);
	ck_assert(s.has_hist);
	ck_assert_uint_eq(s.samples, 4000);
	ck_assert_uint_eq(s.hist.count, 4000);
	ck_assert_uint_eq(s.hist.min_ns, 5000);
	ck_assert_uint_eq(s.hist.max_ns, 30000);
	/* block by block, the larger; over the 35 blocks both have */
	ck_assert_uint_eq(s.nr_blocks, 35);
	ck_assert_uint_eq(s.block_ns, 1000000000);
	ck_assert_uint_eq(s.block_max_ns[0], 30000);
	ck_assert_uint_eq(s.block_max_ns[34], 30000 - 34);
	ck_assert_ptr_nonnull(strstr(s.blocks_note, "first 35 blocks"));
	/* 1000 wake-ups at 1 ms plus 3000: rates add */
	ck_assert_double_eq_tol(s.samples_per_s, 2000, 1e-9);
	compare_sample_release(&s);
	compare_sample_release(&s);

	ck_assert_int_eq(load(run, first, 1, &s), 0);
	ck_assert_uint_eq(s.samples, 1000);
	ck_assert_uint_eq(s.nr_blocks, 40);
	ck_assert_str_eq(s.blocks_note, "");
	compare_sample_release(&s);
	ck_assert_int_eq(load(run, first, 0, &s), -EINVAL);
	compare_sample_release(&s);
	run_free(run);
}
END_TEST

START_TEST(sample_says_what_it_cannot_hold)
{
	struct run *run;
	struct compare_sample s;
	const unsigned int first[] = { 0 };

	/* a min that its histogram does not hold: no statistic from it */
	run = test_import("x.json",
			  json_pack("{sssss[{sisisIsIsIs{ss s[[IIi]]}}]}", "schema", "latscope/1",
				    "command", "timer", "threads", "thread", 0, "cpu", 1, "cycles",
				    (json_int_t)5, "min_ns", (json_int_t)10, "max_ns",
				    (json_int_t)2000, "histogram", "unit", "ns", "buckets",
				    (json_int_t)1000, (json_int_t)2000, 5));
	ck_assert_int_eq(load(run, first, 1, &s), 0);
	ck_assert(!s.has_hist);
	ck_assert_str_eq(s.no_hist, "thread 0 (cpu 1): its min 10 ns is not in its histogram's "
				    "first bucket (1000..2000 ns)");
	ck_assert_uint_eq(s.nr_blocks, 0);
	ck_assert_str_eq(s.blocks_note, "thread 0 (cpu 1) has no block maxima (latscope records "
					"them from this version on)");
	compare_sample_release(&s);
	run_free(run);

	/* cyclictest without -h keeps no histogram */
	ck_assert_int_eq(import_file(FIXTURE("peers/cyclictest-t2-h400.json"), &run), 0);
	ck_assert_int_eq(load(run, first, 1, &s), 0);
	ck_assert(s.has_hist);
	ck_assert_uint_eq(s.samples, 2000);
	ck_assert_str_eq(s.blocks_note,
			 "thread 0 (cpu 0) has no block maxima (rt-tests keeps none)");
	compare_sample_release(&s);
	run_free(run);
}
END_TEST

int main(void)
{
	Suite *suite = suite_create("compare_pairs");
	TCase *tc = tcase_create("pairs");

	tcase_add_test(tc, by_cpu_pairs_common_cpus_and_names_the_rest);
	tcase_add_test(tc, threads_on_one_cpu_are_merged);
	tcase_add_test(tc, all_merges_every_series_and_more_inputs_face_a);
	tcase_add_test(tc, inputs_that_cannot_be_compared);
	tcase_add_test(tc, groups_pair_every_run);
	tcase_add_test(tc, peers_pair_with_latscope);
	tcase_add_test(tc, more_peers_pair_with_latscope);
	tcase_add_test(tc, sample_adds_histograms_of_one_layout);
	tcase_add_test(tc, sample_says_what_it_cannot_hold);
	suite_add_tcase(suite, tc);
	return unit_run(suite);
}
