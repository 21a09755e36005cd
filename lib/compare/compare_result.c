// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compare_bootstrap.h"
#include "latscope/compare_result.h"
#include "latscope/numerics.h"
#include "quantile_interval.h"

/* the exceedance curve's percentiles: three a decade */
static const double curve_percents[COMPARE_CURVE_POINTS] = {
	50, 75, 90, 95, 99, 99.5, 99.9, 99.95, 99.99, 99.995, 99.999, 99.9995, 99.9999, 99.99999,
};

void compare_settings_default(struct compare_settings *s)
{
	unsigned int i;

	memset(s, 0, sizeof(*s));
	compare_options_default(&s->stats);
	s->replicates = COMPARE_BOOT_REPLICATES;
	for (i = 0; i < compare_nr_default_percentiles && i < COMPARE_MAX_PERCENTILES; i++)
		s->percentiles[i] = compare_default_percentiles[i];
	s->nr_percentiles = i;
}

static bool settings_valid(const struct compare_settings *s)
{
	unsigned int i;

	if (!(s->stats.confidence > 0 && s->stats.confidence < 1) ||
	    s->nr_percentiles > COMPARE_MAX_PERCENTILES || !s->replicates)
		return false;
	for (i = 0; i < s->nr_percentiles; i++)
		if (!(s->percentiles[i] > 0 && s->percentiles[i] < 100))
			return false;
	return true;
}

void compare_result_release(struct compare_result *r)
{
	unsigned int i;

	for (i = 0; i < r->nr_sides; i++)
		compare_sample_release(&r->sides[i].sample);
	free(r->sides);
	free(r->pairs);
	memset(r, 0, sizeof(*r));
}

static bool same_side(const struct compare_side *x, const struct compare_side *y)
{
	unsigned int i;

	if (x->group != y->group || x->nr_parts != y->nr_parts)
		return false;
	for (i = 0; i < x->nr_parts; i++)
		if (x->parts[i].input != y->parts[i].input ||
		    x->parts[i].nr_series != y->parts[i].nr_series ||
		    memcmp(x->parts[i].series, y->parts[i].series,
			   x->parts[i].nr_series * sizeof(*x->parts[i].series)))
			return false;
	return true;
}

/* the distinct sides of the plan; pair i's sides are index[2i] and index[2i + 1] */
static int find_sides(const struct compare_plan *plan, const struct compare_side ***sides,
		      unsigned int *nr, unsigned int **index)
{
	const struct compare_side **list;
	unsigned int i, k, n = 0;

	list = calloc(2 * plan->nr_pairs + 1, sizeof(*list));
	*index = calloc(2 * plan->nr_pairs + 1, sizeof(**index));
	if (!list || !*index) {
		free(list);
		return -ENOMEM;
	}
	for (i = 0; i < 2 * plan->nr_pairs; i++) {
		const struct compare_pair *p = &plan->pairs[i / 2];
		const struct compare_side *side = i % 2 ? &p->b : &p->a;

		for (k = 0; k < n && !same_side(list[k], side); k++)
			;
		if (k == n)
			list[n++] = side;
		(*index)[i] = k;
	}
	*sides = list;
	*nr = n;
	return 0;
}

static void exceedance_curve(struct compare_side_result *r, double confidence)
{
	struct quantile_interval q;
	unsigned int i;

	for (i = 0; i < COMPARE_CURVE_POINTS; i++) {
		if (quantile_interval_estimate(&r->sample.hist, curve_percents[i], confidence,
					       &q)) {
			r->error = -ENOMEM;
			return;
		}
		if (q.available) {
			struct compare_point *p = &r->curve[r->nr_curve++];

			p->percent = curve_percents[i];
			p->value_ns = q.value_ns;
			p->ci_ns[0] = q.ci_ns[0];
			p->ci_ns[1] = q.ci_ns[1];
		}
		quantile_interval_release(&q);
		if (!q.available)
			break;
	}
}

static int descending(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a > b ? -1 : a < b;
}

/*
 * The block maxima at their plotting positions: the i-th largest of n is
 * exceeded in a block with probability about i / (n + 1), so its return
 * period is (n + 1) / i blocks. The largest are all kept; the rest are
 * thinned to ranks spaced evenly on the log scale of the plot.
 */
static void empirical_maxima(struct compare_side_result *r)
{
	unsigned int n = r->sample.nr_blocks, i, rank, last = 0, all = COMPARE_MAXIMA_POINTS / 2;
	double block_s = (double)r->sample.block_ns / 1e9, step;
	uint64_t *sorted;

	if (!n)
		return;
	sorted = malloc(n * sizeof(*sorted));
	if (!sorted) {
		r->error = -ENOMEM;
		return;
	}
	memcpy(sorted, r->sample.block_max_ns, n * sizeof(*sorted));
	qsort(sorted, n, sizeof(*sorted), descending);
	step = n > all ? log((double)n / all) / (COMPARE_MAXIMA_POINTS - all) : 0;
	for (i = 0; i < COMPARE_MAXIMA_POINTS; i++) {
		rank = i < all ? i + 1 : (unsigned int)lround(all * exp(step * (i - all + 1)));
		if (rank > n || rank <= last)
			continue;
		last = rank;
		r->maxima[r->nr_maxima].period_s = block_s * (n + 1.0) / rank;
		r->maxima[r->nr_maxima].value_ns = sorted[rank - 1];
		r->nr_maxima++;
	}
	free(sorted);
}

static void compute_side(struct compare_side_result *r, const struct compare_settings *s)
{
	struct tail_options o;
	int err;

	if (r->sample.has_hist) {
		if (s->has_budget) {
			err = miss_rate_estimate(&r->sample.hist, s->budget_ns, s->stats.confidence,
						 r->sample.samples_per_s, &r->misses);
			r->has_misses = !err;
		}
		exceedance_curve(r, s->stats.confidence);
	}
	if (!r->sample.nr_blocks) {
		memset(&r->tail, 0, sizeof(r->tail));
		snprintf(r->tail.error, sizeof(r->tail.error), "no tail estimate: %s",
			 r->sample.blocks_note);
		return;
	}
	tail_options_default(&o);
	o.confidence = s->stats.confidence;
	o.block_ns = r->sample.block_ns;
	o.has_budget = s->has_budget;
	o.budget_ns = s->budget_ns;
	err = tail_estimate(r->sample.block_max_ns, r->sample.nr_blocks, &o, &r->tail);
	if (err)
		r->error = err;
	empirical_maxima(r);
}

/* work shared among threads: item i to fn(context, i), each taken once */
struct parallel_work {
	unsigned int nr;
	unsigned int next; /* the next item to take, atomically */
	void (*fn)(void *context, unsigned int i);
	void *context;
};

static void *parallel_worker(void *data)
{
	struct parallel_work *w = data;
	unsigned int i;

	while ((i = __atomic_fetch_add(&w->next, 1, __ATOMIC_RELAXED)) < w->nr)
		w->fn(w->context, i);
	return NULL;
}

/* @nr items on @threads threads, this one among them; returns the threads that ran */
static unsigned int run_parallel(unsigned int nr, unsigned int threads,
				 void (*fn)(void *context, unsigned int i), void *context)
{
	struct parallel_work w = { nr, 0, fn, context };
	pthread_t *ids = NULL;
	unsigned int started = 0, i;

	if (threads > nr)
		threads = nr;
	if (threads > 1)
		ids = calloc(threads - 1, sizeof(*ids));
	/* a thread that does not start leaves its share to the others */
	for (i = 0; ids && i + 1 < threads; i++, started++)
		if (pthread_create(&ids[i], NULL, parallel_worker, &w))
			break;
	parallel_worker(&w);
	for (i = 0; i < started; i++)
		pthread_join(ids[i], NULL);
	free(ids);
	return started + 1;
}

static void side_missing(struct compare_stat *row, const char *side,
			 const struct compare_sample *sample)
{
	row->verdict = COMPARE_NOT_AVAILABLE;
	snprintf(row->reason, sizeof(row->reason), "%s: no histogram: %.170s", side,
		 sample->no_hist);
}

static void start_row(struct compare_stat *row, double percent)
{
	memset(row, 0, sizeof(*row));
	row->percent = percent;
	row->verdict = COMPARE_NOT_AVAILABLE;
	if (percent < 100)
		compare_percentile_name(percent, row->name, sizeof(row->name));
	else
		snprintf(row->name, sizeof(row->name), "max");
}

/* how a pair's intervals are had: the units its sides can be resampled in */
static enum compare_method pair_method(const struct compare_sample *a,
				       const struct compare_sample *b, bool paired)
{
	if (paired)
		return COMPARE_METHOD_ROUNDS;
	if (a->nr_runs > 1 || b->nr_runs > 1)
		return COMPARE_METHOD_RUNS;
	if (a->units.block_ns || b->units.block_ns)
		return COMPARE_METHOD_BLOCKS;
	return COMPARE_METHOD_VALUES;
}

/* " (about N runs a side would decide)": what would make an inconclusive row decide */
static void add_units_to_decide(struct compare_stat *row, const struct compare_boot_interval *iv,
				const struct compare_options *o)
{
	double threshold = compare_threshold_ns(row->a_ns, &o->practical);
	double magnitude = fabs((double)row->diff_ns), target;
	size_t len = strlen(row->reason);

	/* beyond the threshold the interval must clear 0; within, fit inside the threshold */
	target = magnitude > threshold ? magnitude : threshold - magnitude;
	row->units_to_decide = compare_boot_units_to_decide(iv, target, o->confidence);
	if (row->units_to_decide == UINT32_MAX || len + 64 > sizeof(row->reason))
		return;
	snprintf(row->reason + len, sizeof(row->reason) - len, "; about %u %s would decide",
		 row->units_to_decide,
		 row->method == COMPARE_METHOD_ROUNDS ? "rounds" : "runs a side");
}

/* one percentile's row from the bootstrap */
static void resampled_row(struct compare_stat *row, const struct compare_boot *bt, unsigned int k,
			  const struct compare_sample *a, const struct compare_sample *b,
			  bool between_runs, const struct compare_options *o)
{
	struct compare_boot_interval iv;
	int err;

	row->has_a = row->has_b = row->has_diff = true;
	row->a_ns = compare_sample_percentile(a, row->percent);
	row->b_ns = compare_sample_percentile(b, row->percent);
	row->diff_ns = (int64_t)row->b_ns - (int64_t)row->a_ns;
	err = compare_boot_interval(bt, k, row->diff_ns, o->confidence, &iv);
	if (err) {
		snprintf(row->reason, sizeof(row->reason),
			 "too few units to resample: a side needs two runs, blocks or rounds "
			 "at least");
		return;
	}
	row->has_side_ci =
		!compare_boot_side_interval(bt, false, k, row->a_ns, o->confidence, row->a_ci_ns) &&
		!compare_boot_side_interval(bt, true, k, row->b_ns, o->confidence, row->b_ci_ns);
	row->has_ci = true;
	memcpy(row->ci_ns, iv.ci_ns, sizeof(row->ci_ns));
	row->units = iv.units;
	row->df = iv.df;
	row->verdict = compare_verdict_of(row->a_ns, row->diff_ns, row->ci_ns, &o->practical,
					  between_runs, row->reason, sizeof(row->reason));
	if (row->method == COMPARE_METHOD_ROUNDS) {
		row->has_power = true;
		row->power_from_a = compare_boot_power(bt, k, &iv, row->a_ns, o->confidence,
						       &row->detectable_ns, &row->rounds_for_5pct);
	}
	if (row->verdict == COMPARE_INCONCLUSIVE && between_runs)
		add_units_to_decide(row, &iv, o);
}

/*
 * The percentiles of a pair by resampling: one bootstrap for all of them.
 * A percentile a side has too few samples for is n/a, with the reason.
 */
static int resample_pair(struct compare_pair_result *p, const struct compare_settings *s,
			 enum compare_method method, bool between_runs)
{
	const struct compare_sample *a = &p->a->sample, *b = &p->b->sample;
	double percents[COMPARE_MAX_PERCENTILES];
	unsigned int map[COMPARE_MAX_PERCENTILES], n = 0, i;
	struct compare_boot bt;
	uint64_t need;
	int err;

	for (i = 0; i < s->nr_percentiles; i++) {
		struct compare_stat *row = &p->stats[i];

		row->method = method;
		need = quantile_interval_min_samples(row->percent, s->stats.confidence);
		if (a->samples < need || b->samples < need) {
			char name[sizeof(row->name)];

			/* a copy: gcc under ASan takes the two fields for one buffer */
			memcpy(name, row->name, sizeof(name));
			snprintf(row->reason, sizeof(row->reason),
				 "%s: %llu samples, fewer than the %llu %s needs",
				 a->samples < need ? "A" : "B",
				 (unsigned long long)(a->samples < need ? a->samples : b->samples),
				 (unsigned long long)need, name);
			continue;
		}
		map[n] = i;
		percents[n++] = row->percent;
	}
	if (!n)
		return 0;
	err = compare_boot_run(&a->units, &a->hist, &b->units, &b->hist,
			       method == COMPARE_METHOD_ROUNDS, percents, n, s->replicates,
			       COMPARE_BOOT_SEED, &bt);
	if (err == -EINVAL)
		err = 0;
	for (i = 0; !err && i < n && bt.a; i++)
		resampled_row(&p->stats[map[i]], &bt, i, a, b, between_runs, &s->stats);
	compare_boot_release(&bt);
	return err;
}

static int compute_pair(struct compare_pair_result *p, const struct compare_settings *s,
			bool paired);

/* what the threads share: the result being computed and how */
struct compute_context {
	struct compare_result *result;
	const struct compare_settings *settings;
	bool paired;
};

static void side_item(void *context, unsigned int i)
{
	struct compute_context *c = context;

	compute_side(&c->result->sides[i], c->settings);
}

static void pair_item(void *context, unsigned int i)
{
	struct compute_context *c = context;

	c->result->pairs[i].error = compute_pair(&c->result->pairs[i], c->settings, c->paired);
}

static int compute_pair(struct compare_pair_result *p, const struct compare_settings *s,
			bool paired)
{
	const struct compare_sample *a = &p->a->sample, *b = &p->b->sample;
	enum compare_method method = pair_method(a, b, paired);
	bool between_runs = paired || (a->nr_runs > 1 && b->nr_runs > 1);
	unsigned int i;
	int err = 0;

	for (i = 0; i <= s->nr_percentiles; i++)
		start_row(&p->stats[i], i == s->nr_percentiles ? 100 : s->percentiles[i]);
	p->nr_stats = s->nr_percentiles + 1;
	if (!a->has_hist || !b->has_hist) {
		for (i = 0; i < p->nr_stats; i++)
			side_missing(&p->stats[i], a->has_hist ? "B" : "A", a->has_hist ? b : a);
		goto count;
	}
	if (method == COMPARE_METHOD_VALUES) {
		for (i = 0; i < s->nr_percentiles && !err; i++)
			err = compare_stat_percentile(&a->hist, &b->hist, s->percentiles[i],
						      &s->stats, &p->stats[i]);
	} else {
		err = resample_pair(p, s, method, between_runs);
	}
	if (!err)
		err = compare_stat_max(&a->hist, &b->hist, &s->stats, &p->stats[s->nr_percentiles]);
	if (err)
		return err;
count:
	for (i = 0; i < p->nr_stats; i++) {
		switch (p->stats[i].verdict) {
		case COMPARE_WORSE:
			p->worse++;
			break;
		case COMPARE_BETTER:
			p->better++;
			break;
		case COMPARE_SAME:
			p->same++;
			break;
		case COMPARE_INCONCLUSIVE:
			p->inconclusive++;
			break;
		default:
			p->not_available++;
		}
	}
	return 0;
}

/* the CPUs this process may run on (taskset, cgroups), else the online ones */
static unsigned int usable_cpus(void)
{
	cpu_set_t allowed;
	long online;

	if (!sched_getaffinity(0, sizeof(allowed), &allowed) && CPU_COUNT(&allowed) > 0)
		return (unsigned int)CPU_COUNT(&allowed);
	online = sysconf(_SC_NPROCESSORS_ONLN);
	return online > 0 ? (unsigned int)online : 1;
}

int compare_result_compute(const struct run *const *runs, const struct compare_plan *plan,
			   const struct compare_settings *s, struct compare_result *out)
{
	const struct compare_side **sides = NULL;
	struct compute_context context = { out, s, plan->paired };
	unsigned int *index = NULL, i, threads;
	int err;

	memset(out, 0, sizeof(*out));
	if (!settings_valid(s))
		return -EINVAL;
	numerics_init();
	err = find_sides(plan, &sides, &out->nr_sides, &index);
	if (err)
		return err;
	out->sides = calloc(out->nr_sides + 1, sizeof(*out->sides));
	out->pairs = calloc(plan->nr_pairs + 1, sizeof(*out->pairs));
	if (!out->sides || !out->pairs) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < out->nr_sides; i++) {
		out->sides[i].group = sides[i]->group;
		err = compare_sample_load(runs, sides[i], &out->sides[i].sample);
		if (err)
			goto out;
	}
	threads = s->threads ? s->threads : usable_cpus();
	out->threads = run_parallel(out->nr_sides, threads, side_item, &context);
	for (i = 0; i < out->nr_sides; i++)
		if (out->sides[i].error) {
			err = out->sides[i].error;
			goto out;
		}
	out->nr_pairs = plan->nr_pairs;
	for (i = 0; i < plan->nr_pairs; i++) {
		out->pairs[i].pair = &plan->pairs[i];
		out->pairs[i].a = &out->sides[index[2 * i]];
		out->pairs[i].b = &out->sides[index[2 * i + 1]];
	}
	/* the pairs' bootstraps, on the same threads */
	run_parallel(out->nr_pairs, threads, pair_item, &context);
	for (i = 0; i < out->nr_pairs; i++)
		if (out->pairs[i].error) {
			err = out->pairs[i].error;
			goto out;
		}
out:
	free(sides);
	free(index);
	return err;
}

bool compare_result_worse(const struct compare_result *r)
{
	unsigned int i;

	for (i = 0; i < r->nr_pairs; i++)
		if (r->pairs[i].worse)
			return true;
	return false;
}

const char *compare_result_verdict(const struct compare_result *r)
{
	unsigned int i, worse = 0, better = 0, same = 0, inconclusive = 0;

	for (i = 0; i < r->nr_pairs; i++) {
		worse += r->pairs[i].worse;
		better += r->pairs[i].better;
		same += r->pairs[i].same;
		inconclusive += r->pairs[i].inconclusive;
	}
	if (worse && better)
		return "mixed";
	if (worse)
		return "worse";
	if (better)
		return "better";
	if (inconclusive)
		return "inconclusive";
	return same ? "same" : "n/a";
}
