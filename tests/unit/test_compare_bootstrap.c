// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * compare's intervals on streams drawn the way one machine drifts: the
 * median of the latencies wanders as an AR(1) process from block to block
 * within a run, and a whole run sits higher or lower than the next (a
 * level shift between runs). A and B are drawn from one process, so the
 * true difference is 0: a 95% interval must hold it in 93-97% of 400
 * trials, and a verdict of worse or better is a false one.
 *
 * The runs are built as import would hand them over: a histogram and the
 * time blocks of 100 ms that add up to it, at 1 kHz; the comparison goes
 * through compare_plan_make_groups() and compare_result_compute(), as the
 * command runs it, with the command's 2,000 resamples (fewer make the
 * interval's ends noisy, and it covers less).
 *
 * Under the sanitizers (LATSCOPE_SANITIZED, 5x slower) each case runs 10
 * trials for the memory checks alone: the coverage needs all 400.
 */
#include <gsl/gsl_randist.h>
#include <stdio.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "latscope/compare_pairs.h"
#include "latscope/compare_result.h"
#include "latscope/compare_stats.h"
#include "unit.h"

#define TRIALS 400
#define PER_BLOCK 100 /* 1 kHz, 100 ms blocks */
#define MEDIAN_NS 60000.0
#define SPREAD 0.15 /* of the log-normal body */
#define TAIL 0.02 /* share of the values in a Pareto tail above the body */

/* how a stream drifts */
struct drift {
	unsigned int blocks; /* per run */
	double phi; /* AR(1) coefficient of the block's log-median, block to block */
	double sd; /* its stationary standard deviation */
	double shift_sd; /* standard deviation of a run's whole log-level */
	bool monitor; /* as a monitor's state: native buckets, blocks in coarse keys */
};

/* how many fine buckets, and the one of @ns */
#define FINE_BUCKETS (NATIVE_SLOTS > HIST_BUCKETS ? NATIVE_SLOTS : HIST_BUCKETS)

static unsigned int fine_bucket(const struct drift *d, uint64_t ns)
{
	return d->monitor ? native_slot_of(ns) : hist_bucket_of(ns);
}

/* one run's values into a dense histogram per block (log-linear, or coarse native keys) */
static struct run *draw_run(gsl_rng *rng, const struct drift *d, const char *name, double shift)
{
	struct run *run = calloc(1, sizeof(*run));
	struct run_series *s = calloc(1, sizeof(*s));
	struct time_blocks *tb = calloc(1, sizeof(*tb));
	uint64_t *total = calloc(FINE_BUCKETS, sizeof(*total)), min = UINT64_MAX, max = 0;
	uint32_t *counts = calloc(HIST_BUCKETS, sizeof(*counts));
	double level = gsl_ran_gaussian(rng, d->sd);
	unsigned int b, k, i, n;

	ck_assert(run && s && tb && total && counts);
	run->path = strdup(name);
	run->kind = RUN_TIMER;
	run->format = RUN_FORMAT_LATSCOPE;
	run->series = s;
	run->nr_series = 1;
	s->label = strdup("thread 0 (cpu 1)");
	s->cpu = 1;
	s->thread = 0;
	s->measure = RUN_MEASURE_TIMER;
	s->interval_ns = 1000000;
	s->block_ns = RUN_NONE;
	time_blocks_init(tb, TIME_BLOCK_NS);
	tb->layout = d->monitor ? TIME_BLOCK_NATIVE_COARSE : TIME_BLOCK_LOG_LINEAR;
	for (b = 0; b < d->blocks; b++) {
		struct time_block_entry e[HIST_BUCKETS];

		if (b)
			level = d->phi * level +
				gsl_ran_gaussian(rng, d->sd * sqrt(1 - d->phi * d->phi));
		for (k = 0; k < PER_BLOCK; k++) {
			double v = MEDIAN_NS * exp(shift + level + gsl_ran_gaussian(rng, SPREAD));
			uint64_t ns;

			if (gsl_rng_uniform(rng) < TAIL)
				v *= gsl_ran_pareto(rng, 2, 1);
			ns = (uint64_t)v;
			total[fine_bucket(d, ns)]++;
			counts[d->monitor ? native_coarse_key(native_slot_of(ns)) :
					    hist_bucket_of(ns)]++;
			min = ns < min ? ns : min;
			max = ns > max ? ns : max;
		}
		for (i = 0, n = 0; i < HIST_BUCKETS; i++) {
			if (!counts[i])
				continue;
			e[n++] = (struct time_block_entry){ i, counts[i] };
			counts[i] = 0;
		}
		ck_assert_int_eq(time_blocks_add(tb, b, e, n), 0);
	}
	s->time_blocks = tb;
	s->count = (uint64_t)d->blocks * PER_BLOCK;
	s->min_ns = min;
	s->max_ns = max;
	s->histogram.present = true;
	s->histogram.overflow_from_ns = RUN_NONE;
	s->histogram.buckets = calloc(FINE_BUCKETS, sizeof(*s->histogram.buckets));
	ck_assert_ptr_nonnull(s->histogram.buckets);
	for (i = 0; i < FINE_BUCKETS; i++) {
		if (!total[i])
			continue;
		s->histogram.buckets[s->histogram.nr_buckets++] =
			d->monitor ? (struct run_bucket){ native_slot_low(i), native_slot_high[i],
							  total[i] } :
				     (struct run_bucket){ hist_bucket_low(i), hist_bucket_high(i),
							  total[i] };
		s->histogram.total += total[i];
	}
	free(total);
	free(counts);
	return run;
}

/* what TRIALS comparisons of one process against itself said */
struct outcome {
	unsigned int trials;
	unsigned int covered[3]; /* the interval held 0 */
	unsigned int called[3]; /* worse or better */
	unsigned int same[3];
	/* the interval of the values, as if independent, missed 0 */
	unsigned int naive_missed[3];
};

/* whether the interval of the pooled values, were they independent, misses 0 */
static bool naive_misses(const struct compare_pair_result *p, double percent,
			 const struct compare_settings *s)
{
	struct compare_stat row;

	ck_assert_int_eq(compare_stat_percentile(&p->a->sample.hist, &p->b->sample.hist, percent,
						 &s->stats, &row),
			 0);
	return row.ci_ns[0] > 0 || row.ci_ns[1] < 0;
}

static const double percents[3] = { 50, 90, 99 };

/*
 * @runs runs a side (groups A and B), or @runs rounds paired when @paired;
 * each run a level of its own (paired: a level shared by a round pair,
 * drifting from pair to pair). Returns what was said.
 */
static struct outcome trials(const struct drift *d, unsigned int runs, bool paired,
			     unsigned long seed)
{
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	struct outcome out = { 0 };
	struct compare_settings s;
	const char **names = calloc(2 * runs, sizeof(*names));
	unsigned int *groups = calloc(2 * runs, sizeof(*groups));
	unsigned int t, i, k;

	ck_assert(rng && names && groups);
	out.trials = getenv("LATSCOPE_SANITIZED") ? 10 : TRIALS;
	gsl_rng_set(rng, seed);
	compare_settings_default(&s);
	s.nr_percentiles = 3;
	memcpy(s.percentiles, percents, sizeof(percents));
	s.threads = 1;
	for (i = 0; i < 2 * runs; i++) {
		names[i] = i < runs ? "a.json" : "b.json";
		groups[i] = i >= runs;
	}
	for (t = 0; t < out.trials; t++) {
		struct run **r = calloc(2 * runs, sizeof(*r));
		struct compare_plan plan;
		struct compare_result result;
		double shift = 0;

		ck_assert_ptr_nonnull(r);
		for (i = 0; i < runs; i++) {
			/* a round pair shares the machine's state of the moment */
			shift = paired ? 0.5 * shift + gsl_ran_gaussian(rng, d->shift_sd) :
					 gsl_ran_gaussian(rng, d->shift_sd);
			r[i] = draw_run(rng, d, names[i], shift);
			if (!paired)
				shift = gsl_ran_gaussian(rng, d->shift_sd);
			r[runs + i] = draw_run(rng, d, names[runs + i], shift);
		}
		ck_assert_int_eq(compare_plan_make_groups((const struct run *const *)r, names,
							  2 * runs, groups, paired, COMPARE_BY_CPU,
							  &plan),
				 0);
		ck_assert_int_eq(
			compare_result_compute((const struct run *const *)r, &plan, &s, &result),
			0);
		for (k = 0; k < 3; k++) {
			const struct compare_stat *row = &result.pairs[0].stats[k];

			ck_assert_msg(row->has_ci, "%s: %s", row->name, row->reason);
			out.covered[k] += row->ci_ns[0] <= 0 && row->ci_ns[1] >= 0;
			out.called[k] +=
				row->verdict == COMPARE_WORSE || row->verdict == COMPARE_BETTER;
			out.same[k] += row->verdict == COMPARE_SAME;
			out.naive_missed[k] += naive_misses(&result.pairs[0], percents[k], &s);
		}
		compare_result_release(&result);
		compare_plan_release(&plan);
		for (i = 0; i < 2 * runs; i++)
			run_free(r[i]);
		free(r);
	}
	free(names);
	free(groups);
	gsl_rng_free(rng);
	return out;
}

static void assert_calibrated(const struct outcome *o, const char *what)
{
	unsigned int k, n = o->trials;

	for (k = 0; k < 3; k++)
		fprintf(stderr,
			"%s p%g: the interval held 0 in %u of %u, %u worse or better, %u same; "
			"the values' interval missed 0 in %u\n",
			what, percents[k], o->covered[k], n, o->called[k], o->same[k],
			o->naive_missed[k]);
	if (n < TRIALS)
		return;
	for (k = 0; k < 3; k++) {
		ck_assert_msg(o->covered[k] >= n * 93 / 100 && o->covered[k] <= n * 97 / 100,
			      "%s p%g: the 95%% interval held 0 in %u of %u", what, percents[k],
			      o->covered[k], n);
		ck_assert_msg(o->called[k] <= n * 5 / 100, "%s p%g: %u false verdicts of %u", what,
			      percents[k], o->called[k], n);
	}
}

/*
 * The drift is real: the interval of the values, as if independent (what
 * compare had before time blocks), misses the true 0 in at least @least of
 * the trials where a 95% interval should miss it in 5%.
 */
static void assert_naive_fails(const struct outcome *o, double least)
{
	unsigned int k;

	for (k = 0; o->trials == TRIALS && k < 3; k++)
		ck_assert_msg(o->naive_missed[k] >= least * o->trials,
			      "p%g: the values' interval missed 0 in only %u of %u", percents[k],
			      o->naive_missed[k], o->trials);
}

/*
 * One run a side whose median drifts (an AR(1) of 0.9 from one 100 ms block
 * to the next, 10% spread): the blocks are merged until they no longer
 * follow each other, and the block bootstrap's interval covers. Verdicts:
 * never worse or better, one run a side.
 */
static void assert_one_run_covers(const struct drift *d, unsigned long seed, const char *what)
{
	struct outcome o = trials(d, 1, false, seed);
	unsigned int k;

	assert_calibrated(&o, what);
	for (k = 0; k < 3; k++)
		ck_assert_uint_eq(o.called[k] + o.same[k], 0);
	assert_naive_fails(&o, 0.25);
}

START_TEST(block_bootstrap_covers_ar1_drift)
{
	const struct drift d = { .blocks = 600, .phi = 0.9, .sd = 0.1 };

	assert_one_run_covers(&d, 31, "AR(1), one 60 s run a side");
}
END_TEST

/*
 * The same drift measured as the monitor keeps it: a histogram in native
 * buckets and blocks in its coarse keys (4 an octave), which compare
 * spreads over the histogram's buckets in their proportions. The blocks
 * are used (no verdict, one run a side) and the interval covers as well.
 */
START_TEST(coarse_monitor_blocks_cover_ar1_drift)
{
	const struct drift d = { .blocks = 600, .phi = 0.9, .sd = 0.1, .monitor = true };

	assert_one_run_covers(&d, 34, "AR(1), one 60 s monitor state a side, coarse blocks");
}
END_TEST

/*
 * Three runs a side, each at a level of its own (a 10% spread between runs
 * on top of the drift within them): the runs, resampled, bring that
 * variation in; a bootstrap of the values alone would call a change in most
 * trials.
 */
START_TEST(runs_cover_level_shifts)
{
	const struct drift d = { .blocks = 100, .phi = 0.5, .sd = 0.05, .shift_sd = 0.1 };
	struct outcome o = trials(&d, 3, false, 32);

	assert_calibrated(&o, "level shifts, three 10 s runs a side");
	assert_naive_fails(&o, 0.25);
}
END_TEST

/*
 * Ten round pairs, the machine's level drifting from pair to pair and
 * shared by the two rounds of a pair: the paired resampling covers, and
 * the drift it shares cancels.
 */
START_TEST(rounds_cover_drift_between_pairs)
{
	const struct drift d = { .blocks = 20, .phi = 0.9, .sd = 0.1, .shift_sd = 0.1 };
	struct outcome o = trials(&d, 10, true, 33);

	assert_calibrated(&o, "ten paired rounds of 2 s");
	assert_naive_fails(&o, 0.25);
}
END_TEST

/*
 * @rounds round pairs sharing the machine's level, B's rounds raised by a
 * change drawn per round from [@effect_min, @effect_max) (log units):
 * p50's row of the paired comparison into @row.
 */
static void paired_p50(const struct drift *d, unsigned int rounds, double effect_min,
		       double effect_max, unsigned long seed, struct compare_stat *row)
{
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	struct run **r = calloc(2 * rounds, sizeof(*r));
	const char **names = calloc(2 * rounds, sizeof(*names));
	unsigned int *groups = calloc(2 * rounds, sizeof(*groups)), i;
	struct compare_settings s;
	struct compare_plan plan;
	struct compare_result result;

	ck_assert(rng && r && names && groups);
	gsl_rng_set(rng, seed);
	compare_settings_default(&s);
	s.threads = 1;
	for (i = 0; i < rounds; i++) {
		double shift = gsl_ran_gaussian(rng, d->shift_sd);

		names[i] = "a.json";
		names[rounds + i] = "b.json";
		groups[rounds + i] = 1;
		r[i] = draw_run(rng, d, names[i], shift);
		r[rounds + i] = draw_run(rng, d, names[rounds + i],
					 shift + gsl_ran_flat(rng, effect_min, effect_max));
	}
	ck_assert_int_eq(compare_plan_make_groups((const struct run *const *)r, names, 2 * rounds,
						  groups, true, COMPARE_BY_CPU, &plan),
			 0);
	ck_assert_int_eq(compare_result_compute((const struct run *const *)r, &plan, &s, &result),
			 0);
	*row = result.pairs[0].stats[0];
	ck_assert_str_eq(row->name, "p50");
	compare_result_release(&result);
	compare_plan_release(&plan);
	for (i = 0; i < 2 * rounds; i++)
		run_free(r[i]);
	free(r);
	free(names);
	free(groups);
	gsl_rng_free(rng);
}

/*
 * ab's power line: a disturbance that meets the measurement in some rounds
 * more than in others makes B's change vary from round to round. The
 * paired differences then spread with the change itself, and a power
 * taken from them asked for hundreds of thousands of rounds to find 5%;
 * it comes from A's own spread instead, and says so. Without a change,
 * the shared drift cancels in the pairs and their spread is used.
 */
START_TEST(power_of_a_varying_change_is_from_a)
{
	const struct drift d = { .blocks = 20, .phi = 0.5, .sd = 0.05, .shift_sd = 0.1 };
	struct compare_stat varying, unchanged;

	paired_p50(&d, 8, 0.4, 1.2, 41, &varying);
	ck_assert_msg(varying.has_power && varying.power_from_a, "%s", varying.reason);
	ck_assert_msg(varying.verdict == COMPARE_WORSE, "%d: %s", varying.verdict, varying.reason);
	ck_assert_uint_lt(varying.detectable_ns, (uint64_t)varying.diff_ns);
	ck_assert_uint_le(varying.rounds_for_5pct, 200);

	paired_p50(&d, 8, 0, 0, 42, &unchanged);
	ck_assert(unchanged.has_power && !unchanged.power_from_a);
	ck_assert_uint_le(unchanged.rounds_for_5pct, 200);
}
END_TEST

static Suite *bootstrap_suite(void)
{
	Suite *s = suite_create("compare_bootstrap");
	TCase *tc = tcase_create("coverage");

	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, block_bootstrap_covers_ar1_drift);
	tcase_add_test(tc, coarse_monitor_blocks_cover_ar1_drift);
	tcase_add_test(tc, runs_cover_level_shifts);
	tcase_add_test(tc, rounds_cover_drift_between_pairs);
	tcase_add_test(tc, power_of_a_varying_change_is_from_a);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_run(bootstrap_suite());
}
