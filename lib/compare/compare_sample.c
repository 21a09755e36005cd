// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "latscope/compare_sample.h"

void compare_sample_release(struct compare_sample *s)
{
	bucket_hist_release(&s->hist);
	compare_units_release(&s->units);
	free(s->block_max_ns);
	memset(s, 0, sizeof(*s));
}

static int compare_run_buckets(const void *x, const void *y)
{
	const struct run_bucket *a = x, *b = y;

	if (a->low_ns != b->low_ns)
		return a->low_ns < b->low_ns ? -1 : 1;
	return a->high_ns < b->high_ns ? -1 : a->high_ns > b->high_ns;
}

/* the series' buckets in one ascending list, equal buckets added; false: layouts differ */
static int gather_buckets(const struct run_series *const *series, unsigned int n,
			  struct run_bucket **out, unsigned int *nr, bool *disjoint)
{
	struct run_bucket *all;
	size_t total = 0, i, kept = 0;
	unsigned int k;

	for (k = 0; k < n; k++)
		total += series[k]->histogram.nr_buckets;
	all = malloc((total ? total : 1) * sizeof(*all));
	if (!all)
		return -ENOMEM;
	for (k = 0, i = 0; k < n; k++) {
		const struct run_histogram *h = &series[k]->histogram;

		memcpy(all + i, h->buckets, h->nr_buckets * sizeof(*all));
		i += h->nr_buckets;
	}
	if (n > 1)
		qsort(all, total, sizeof(*all), compare_run_buckets);
	*disjoint = true;
	for (i = 0; i < total; i++) {
		if (kept && all[i].low_ns == all[kept - 1].low_ns &&
		    all[i].high_ns == all[kept - 1].high_ns) {
			all[kept - 1].count += all[i].count;
			continue;
		}
		if (kept && all[i].low_ns <= all[kept - 1].high_ns)
			*disjoint = false;
		all[kept++] = all[i];
	}
	*out = all;
	*nr = (unsigned int)kept;
	return 0;
}

static int load_histogram(const struct run_series *const *series, unsigned int n, bool cyclictest,
			  struct compare_sample *out)
{
	uint64_t overflow = 0, from = RUN_NONE, min = RUN_NONE, max = 0;
	bool min_known = true, max_known = true, disjoint;
	struct run_bucket *buckets;
	unsigned int nr, k;
	int ret;

	for (k = 0; k < n; k++) {
		const struct run_series *s = series[k];
		const struct run_histogram *h = &s->histogram;

		if (!h->present || !h->total) {
			snprintf(out->no_hist, sizeof(out->no_hist), "%s has no histogram%s",
				 s->label, cyclictest ? " (cyclictest keeps one with -h N)" : "");
			return 0;
		}
		overflow += h->overflow;
		if (h->overflow && run_has(h->overflow_from_ns) &&
		    (!run_has(from) || h->overflow_from_ns < from))
			from = h->overflow_from_ns;
		if (run_has(s->min_ns) && s->min_ns < min)
			min = s->min_ns;
		min_known &= run_has(s->min_ns);
		if (run_has(s->max_ns) && s->max_ns > max)
			max = s->max_ns;
		max_known &= run_has(s->max_ns);
	}
	ret = gather_buckets(series, n, &buckets, &nr, &disjoint);
	if (ret)
		return ret;
	if (!disjoint) {
		snprintf(out->no_hist, sizeof(out->no_hist),
			 "the histograms of its %u series have different bucket layouts and "
			 "cannot be added",
			 n);
		goto out;
	}
	/* what the input does not say is read from the buckets, which bound it */
	if (!min_known)
		min = nr ? buckets[0].low_ns : RUN_NONE;
	if (!max_known && overflow) {
		snprintf(out->no_hist, sizeof(out->no_hist),
			 "%s has values beyond its histogram but no max", series[0]->label);
		goto out;
	}
	if (!max_known)
		max = buckets[nr - 1].high_ns;
	if (!overflow)
		from = RUN_NONE;
	else if (!run_has(from) || (nr && from <= buckets[nr - 1].high_ns))
		from = nr ? buckets[nr - 1].high_ns + 1 : min;
	if (nr && (min < buckets[0].low_ns || min > buckets[0].high_ns)) {
		snprintf(out->no_hist, sizeof(out->no_hist),
			 "%s: its min %llu ns is not in its histogram's first bucket "
			 "(%llu..%llu ns)",
			 n == 1 ? series[0]->label : "the merged series", (unsigned long long)min,
			 (unsigned long long)buckets[0].low_ns,
			 (unsigned long long)buckets[0].high_ns);
		goto out;
	}
	if (overflow ? max < from :
		       nr && (max < buckets[nr - 1].low_ns || max > buckets[nr - 1].high_ns)) {
		snprintf(out->no_hist, sizeof(out->no_hist),
			 "%s: its max %llu ns is not in its histogram's last bucket "
			 "(%llu..%llu ns)",
			 n == 1 ? series[0]->label : "the merged series", (unsigned long long)max,
			 (unsigned long long)buckets[nr - 1].low_ns,
			 (unsigned long long)buckets[nr - 1].high_ns);
		goto out;
	}
	for (k = 0; k < nr && !ret; k++)
		ret = bucket_hist_add(&out->hist, buckets[k].low_ns, buckets[k].high_ns,
				      buckets[k].count);
	if (!ret)
		ret = bucket_hist_finish(&out->hist, overflow, overflow ? from - 1 : 0, min, max);
	if (ret == -ENOMEM)
		goto out;
	if (ret) {
		snprintf(out->no_hist, sizeof(out->no_hist),
			 "its histogram does not hold together (%s)", strerror(-ret));
		bucket_hist_release(&out->hist);
		ret = 0;
		goto out;
	}
	out->has_hist = true;
	out->samples = out->hist.count;
out:
	free(buckets);
	return ret;
}

/* samples per second of one series: its count over how long it measured */
static double series_rate(const struct run *run, const struct run_series *s)
{
	uint64_t count = s->histogram.present ? s->histogram.total : s->count;
	double seconds = 0;

	if (!run_has(count) || !count)
		return 0;
	if (run_has(s->run_ns) && s->run_ns)
		seconds = (double)s->run_ns / 1e9;
	else if (run_has(s->interval_ns) && s->interval_ns)
		/* a timer wakes once a period, and not for the periods it missed */
		seconds = (double)(count + (run_has(s->missed) ? s->missed : 0)) *
			  (double)s->interval_ns / 1e9;
	else if (s->nr_windows && run_has(s->window_ns) && s->window_ns)
		/* a monitor's histogram covers its windows */
		seconds = (double)s->nr_windows * (double)s->window_ns / 1e9;
	else if (run->start_ns != RUN_NO_TIME && run->end_ns > run->start_ns)
		seconds = (double)(run->end_ns - run->start_ns) / 1e9;
	return seconds > 0 ? (double)count / seconds : 0;
}

/*
 * The block maxima of one run's series: series that ran side by side have
 * block i cover the same second, so they merge block by block (the largest
 * of each, over the blocks every series has). Appended to @out's; returns
 * 0 with blocks_note set when they cannot be had.
 */
static int load_run_blocks(const struct run *run, const struct compare_part *part,
			   struct compare_sample *out)
{
	const struct run_series *first = &run->series[part->series[0]];
	size_t blocks = SIZE_MAX, most = 0, i;
	unsigned int k, n = part->nr_series;
	uint64_t *grown;

	for (k = 0; k < n; k++) {
		const struct run_series *s = &run->series[part->series[k]];

		if (!run_has(s->block_ns) || !s->nr_blocks) {
			snprintf(out->blocks_note, sizeof(out->blocks_note),
				 "%s has no block maxima%s", s->label,
				 run->format == RUN_FORMAT_LATSCOPE ?
					 " (latscope records them from this version on)" :
					 " (rt-tests keeps none)");
			return 0;
		}
		if (s->block_ns != first->block_ns ||
		    (out->block_ns && s->block_ns != out->block_ns)) {
			snprintf(out->blocks_note, sizeof(out->blocks_note),
				 "its series have blocks of different lengths: their maxima "
				 "cannot be merged");
			return 0;
		}
		if (s->nr_blocks < blocks)
			blocks = s->nr_blocks;
		if (s->nr_blocks > most)
			most = s->nr_blocks;
	}
	if (blocks > UINT32_MAX - out->nr_blocks)
		blocks = UINT32_MAX - out->nr_blocks;
	grown = realloc(out->block_max_ns, (out->nr_blocks + blocks + 1) * sizeof(*grown));
	if (!grown)
		return -ENOMEM;
	out->block_max_ns = grown;
	for (i = 0; i < blocks; i++) {
		uint64_t m = 0;

		for (k = 0; k < n; k++)
			if (run->series[part->series[k]].block_max_ns[i] > m)
				m = run->series[part->series[k]].block_max_ns[i];
		out->block_max_ns[out->nr_blocks++] = m;
	}
	out->block_ns = first->block_ns;
	if (most > blocks)
		snprintf(out->blocks_note, sizeof(out->blocks_note),
			 "the largest of %u series per block, over the first %zu blocks that "
			 "every series has (one has %zu)",
			 n, blocks, most);
	else if (n > 1)
		snprintf(out->blocks_note, sizeof(out->blocks_note),
			 "the largest of %u series per block", n);
	return 1;
}

/* the block maxima of every run of the side, run after run */
static int load_blocks(const struct run *const *runs, const struct compare_side *side,
		       struct compare_sample *out)
{
	unsigned int p;
	int ret;

	for (p = 0; p < side->nr_parts; p++) {
		ret = load_run_blocks(runs[side->parts[p].input], &side->parts[p], out);
		if (ret <= 0) {
			free(out->block_max_ns);
			out->block_max_ns = NULL;
			out->nr_blocks = 0;
			out->block_ns = 0;
			return ret;
		}
	}
	if (side->nr_parts > 1)
		snprintf(out->blocks_note, sizeof(out->blocks_note),
			 "the blocks of %u runs, one after the other", side->nr_parts);
	return 0;
}

/* the series of every run of the side, in one list */
static const struct run_series **side_series(const struct run *const *runs,
					     const struct compare_side *side, unsigned int *n,
					     bool *cyclictest)
{
	const struct run_series **list;
	unsigned int p, k, total = 0;

	for (p = 0; p < side->nr_parts; p++)
		total += side->parts[p].nr_series;
	list = malloc((total ? total : 1) * sizeof(*list));
	if (!list)
		return NULL;
	*n = 0;
	*cyclictest = false;
	for (p = 0; p < side->nr_parts; p++) {
		const struct run *run = runs[side->parts[p].input];

		*cyclictest |= run->kind == RUN_CYCLICTEST;
		for (k = 0; k < side->parts[p].nr_series; k++)
			list[(*n)++] = &run->series[side->parts[p].series[k]];
	}
	return list;
}

/*
 * Samples per second: a run's series measured side by side, so their rates
 * add; runs of a side measured one after the other, so theirs average.
 */
static double side_rate(const struct run *const *runs, const struct compare_side *side)
{
	double sum = 0, rate, run_rate;
	unsigned int p, k;

	for (p = 0; p < side->nr_parts; p++) {
		const struct run *run = runs[side->parts[p].input];

		run_rate = 0;
		for (k = 0; k < side->parts[p].nr_series; k++) {
			rate = series_rate(run, &run->series[side->parts[p].series[k]]);
			if (!(rate > 0))
				return 0;
			run_rate += rate;
		}
		sum += run_rate;
	}
	return side->nr_parts ? sum / side->nr_parts : 0;
}

uint64_t compare_sample_percentile(const struct compare_sample *s, double percent)
{
	uint64_t rank = (uint64_t)ceil(percent / 100 * (double)s->hist.count);

	return bucket_hist_value(&s->hist, bucket_hist_rank_index(&s->hist, rank ? rank : 1));
}

int compare_sample_load(const struct run *const *runs, const struct compare_side *side,
			struct compare_sample *out)
{
	const struct run_series **series;
	unsigned int n, p, k;
	bool cyclictest;
	int ret;

	memset(out, 0, sizeof(*out));
	bucket_hist_init(&out->hist);
	if (!side->nr_parts)
		return -EINVAL;
	for (p = 0; p < side->nr_parts; p++) {
		if (!side->parts[p].nr_series)
			return -EINVAL;
		for (k = 0; k < side->parts[p].nr_series; k++)
			if (side->parts[p].series[k] >= runs[side->parts[p].input]->nr_series)
				return -EINVAL;
	}
	out->nr_runs = side->nr_parts;
	series = side_series(runs, side, &n, &cyclictest);
	if (!series)
		return -ENOMEM;
	ret = load_histogram(series, n, cyclictest, out);
	free(series);
	if (ret)
		return ret;
	out->samples_per_s = side_rate(runs, side);
	ret = load_blocks(runs, side, out);
	if (!ret && out->has_hist)
		ret = compare_units_build(runs, side, &out->hist, &out->units);
	return ret;
}
