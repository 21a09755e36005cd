// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "latscope/array.h"
#include "latscope/compare_units.h"

void compare_units_release(struct compare_units *u)
{
	free(u->runs);
	free(u->units);
	free(u->index);
	free(u->count);
	memset(u, 0, sizeof(*u));
}

bool compare_units_all_blocks(const struct compare_units *u)
{
	unsigned int i;

	for (i = 0; i < u->nr_runs; i++)
		if (!u->runs[i].blocks)
			return false;
	return u->nr_runs > 0;
}

/* a dense array of counts over the support, and the indices it touched */
struct accumulator {
	uint64_t *counts;
	uint32_t *touched;
	unsigned int nr_touched;
	bool unordered; /* touched out of ascending order (several series merged) */
	long double phase; /* of accumulate_spread(), in [0, 1) */
};

static void accumulate(struct accumulator *acc, uint32_t index, uint64_t n)
{
	if (!acc->counts[index]) {
		if (acc->nr_touched && acc->touched[acc->nr_touched - 1] > index)
			acc->unordered = true;
		acc->touched[acc->nr_touched++] = index;
	}
	acc->counts[index] += n;
}

static int compare_indices(const void *x, const void *y)
{
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;

	return a < b ? -1 : a > b;
}

/* the accumulated counts as one more unit (empty or not); the accumulator is cleared */
static int emit_unit(struct compare_units *u, struct accumulator *acc, unsigned int *units_cap,
		     unsigned int *entries_cap)
{
	struct compare_unit *unit;
	unsigned int i;
	void *grown;

	grown = array_grow(u->units, units_cap, u->nr_units + 1, sizeof(*u->units));
	if (!grown)
		return -ENOMEM;
	u->units = grown;
	if (u->nr_entries + acc->nr_touched > UINT32_MAX)
		return -ENOMEM;
	if (u->nr_entries + acc->nr_touched > *entries_cap) {
		unsigned int cap = *entries_cap;

		grown = array_grow(u->index, &cap, (unsigned int)(u->nr_entries + acc->nr_touched),
				   sizeof(*u->index));
		if (!grown)
			return -ENOMEM;
		u->index = grown;
		grown = realloc(u->count, (size_t)cap * sizeof(*u->count));
		if (!grown)
			return -ENOMEM;
		u->count = grown;
		*entries_cap = cap;
	}
	unit = &u->units[u->nr_units++];
	unit->first = u->nr_entries;
	unit->nr = acc->nr_touched;
	unit->count = 0;
	/* one series' block comes in ascending order already */
	if (acc->unordered)
		qsort(acc->touched, acc->nr_touched, sizeof(*acc->touched), compare_indices);
	acc->unordered = false;
	for (i = 0; i < acc->nr_touched; i++) {
		uint32_t index = acc->touched[i];

		u->index[u->nr_entries] = index;
		u->count[u->nr_entries++] = acc->counts[index];
		unit->count += acc->counts[index];
		acc->counts[index] = 0;
	}
	acc->nr_touched = 0;
	return 0;
}

/* the pooled histogram's first bucket whose low is at least @low */
static unsigned int pooled_from(const struct bucket_hist *pooled, uint64_t low)
{
	unsigned int lo = 0, hi = pooled->nr_buckets;

	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;

		if (pooled->buckets[mid].low_ns < low)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* the pooled buckets a block's bucket stands for: first..last; first UINT32_MAX: none */
struct span {
	uint32_t first, last;
};

/*
 * The pooled buckets that make up exactly [low, high]: one for a block in
 * the histogram's own layout, several for the monitor's coarse keys. None
 * when a pooled bucket straddles an end (the layouts do not nest).
 */
static struct span pooled_span(const struct bucket_hist *pooled, uint64_t low, uint64_t high)
{
	struct span none = { UINT32_MAX, UINT32_MAX };
	unsigned int first = pooled_from(pooled, low), last = first;

	if (first && pooled->buckets[first - 1].high_ns >= low)
		return none;
	while (last < pooled->nr_buckets && pooled->buckets[last].high_ns <= high)
		last++;
	if (last == first || (last < pooled->nr_buckets && pooled->buckets[last].low_ns <= high))
		return none;
	return (struct span){ first, last - 1 };
}

/* the pooled span of every bucket of a block layout (its overflow key: the pooled overflow) */
static struct span *layout_map(const struct bucket_hist *pooled, enum time_block_layout layout)
{
	unsigned int keys = time_block_layout_keys(layout), key;
	struct span *map = malloc(keys * sizeof(*map));
	uint64_t low, high;

	for (key = 0; map && key < keys; key++)
		map[key] = time_block_bounds(layout, key, &low, &high) ?
				   pooled_span(pooled, low, high) :
				   (struct span){ pooled->nr_buckets, pooled->nr_buckets };
	return map;
}

/*
 * A block's @count in a bucket that spans several pooled buckets, spread
 * over them in the proportions of the pooled histogram (the run's own
 * shape within 19%), in whole counts that add up to @count: systematic
 * sampling along the span's cumulative share, from a phase that moves by
 * the golden ratio each time. Rounding each share on its own would put
 * every lone tail count in the span's largest bucket, the same one block
 * after block, and lump the tail; the moving phase spreads them as the
 * histogram has them.
 */
static void accumulate_spread(struct accumulator *acc, const struct bucket_hist *pooled,
			      struct span span, uint64_t count)
{
	long double weight = 0, below = 0;
	uint64_t given = 0, upto;
	unsigned int i;

	for (i = span.first; i <= span.last; i++)
		weight += (long double)pooled->buckets[i].count;
	for (i = span.first; i <= span.last; i++) {
		below += (long double)pooled->buckets[i].count;
		upto = i == span.last ?
			       count :
			       (uint64_t)(acc->phase + (long double)count * below / weight);
		if (upto > count)
			upto = count;
		if (upto > given)
			accumulate(acc, i, upto - given);
		given = upto > given ? upto : given;
	}
	acc->phase += 0.6180339887498948482L;
	if (acc->phase >= 1)
		acc->phase -= 1;
}

/* the longest block of the part's series, or 0 when one has none or the lengths do not nest */
static uint64_t part_block_ns(const struct run *run, const struct compare_part *part)
{
	uint64_t longest = 0, length;
	unsigned int k;

	for (k = 0; k < part->nr_series; k++) {
		const struct time_blocks *tb = run->series[part->series[k]].time_blocks;

		if (!tb || !tb->nr)
			return 0;
		length = time_blocks_length(tb);
		if (length > longest)
			longest = length;
	}
	for (k = 0; k < part->nr_series; k++) {
		length = time_blocks_length(run->series[part->series[k]].time_blocks);
		if (longest % length || ((longest / length) & (longest / length - 1)))
			return 0;
	}
	return longest;
}

/* whether every bucket of the part's blocks is one of the pooled histogram's */
static bool blocks_pooled(const struct run *run, const struct compare_part *part,
			  struct span *const *maps)
{
	unsigned int k, i, e;

	for (k = 0; k < part->nr_series; k++) {
		const struct time_blocks *tb = run->series[part->series[k]].time_blocks;

		for (i = 0; i < tb->nr; i++)
			for (e = 0; e < tb->blocks[i].nr; e++)
				if (maps[tb->layout][tb->blocks[i].entries[e].bucket].first ==
				    UINT32_MAX)
					return false;
	}
	return true;
}

/* one entry of a block onto the pooled buckets it stands for */
static void accumulate_entry(struct accumulator *acc, const struct bucket_hist *pooled,
			     const struct span *map, const struct time_block_entry *entry)
{
	struct span span = map[entry->bucket];

	if (span.first == span.last)
		accumulate(acc, span.first, entry->count);
	else
		accumulate_spread(acc, pooled, span, entry->count);
}

/* a run cut into its blocks of @block_ns, its series merged block by block */
static int add_block_run(struct compare_units *u, const struct run *run,
			 const struct compare_part *part, uint64_t block_ns,
			 const struct bucket_hist *pooled, struct span *const *maps,
			 struct accumulator *acc, unsigned int *units_cap,
			 unsigned int *entries_cap)
{
	unsigned int k, j, nr = 0, i, e;
	int ret;

	for (k = 0; k < part->nr_series; k++) {
		const struct time_blocks *tb = run->series[part->series[k]].time_blocks;
		uint64_t factor = block_ns / time_blocks_length(tb);
		unsigned int n = (unsigned int)((tb->nr + factor - 1) / factor);

		if (n > nr)
			nr = n;
	}
	for (j = 0; j < nr; j++) {
		for (k = 0; k < part->nr_series; k++) {
			const struct time_blocks *tb = run->series[part->series[k]].time_blocks;
			uint64_t factor = block_ns / time_blocks_length(tb);

			for (i = (unsigned int)(j * factor); i < (j + 1) * factor && i < tb->nr;
			     i++)
				for (e = 0; e < tb->blocks[i].nr; e++)
					accumulate_entry(acc, pooled, maps[tb->layout],
							 &tb->blocks[i].entries[e]);
		}
		ret = emit_unit(u, acc, units_cap, entries_cap);
		if (ret)
			return ret;
	}
	return 0;
}

/* a run as one unit: its series' histograms added */
static int add_histogram_run(struct compare_units *u, const struct run *run,
			     const struct compare_part *part, const struct bucket_hist *pooled,
			     struct accumulator *acc, unsigned int *units_cap,
			     unsigned int *entries_cap)
{
	unsigned int k, i;
	struct span span;

	for (k = 0; k < part->nr_series; k++) {
		const struct run_histogram *h = &run->series[part->series[k]].histogram;

		for (i = 0; i < h->nr_buckets; i++) {
			span = pooled_span(pooled, h->buckets[i].low_ns, h->buckets[i].high_ns);
			if (span.first == UINT32_MAX || span.first != span.last)
				return -EINVAL;
			if (h->buckets[i].count)
				accumulate(acc, span.first, h->buckets[i].count);
		}
		if (h->overflow)
			accumulate(acc, pooled->nr_buckets, h->overflow);
	}
	return emit_unit(u, acc, units_cap, entries_cap);
}

/* the bucket holding the value of rank ceil(fraction * count) of the pooled histogram */
static uint32_t rank_index(const struct bucket_hist *pooled, double fraction)
{
	uint64_t rank = (uint64_t)ceil(fraction * (double)pooled->count);

	return bucket_hist_rank_index(pooled, rank ? rank : 1);
}

/* a block's fraction of values above bucket @above; NAN for an empty block */
static double fraction_above(const struct compare_units *u, const struct compare_unit *unit,
			     unsigned int f, uint32_t above)
{
	uint64_t total = 0, over = 0;
	unsigned int k;
	size_t e;

	for (k = 0; k < f; k++, unit++) {
		total += unit->count;
		for (e = unit->first; e < unit->first + unit->nr; e++)
			if (u->index[e] > above)
				over += u->count[e];
	}
	return total ? (double)over / (double)total : NAN;
}

/*
 * The lag-1 autocorrelation of the blocks' fractions above bucket @above,
 * with blocks of @f units, pooled over the runs (each about its own mean:
 * a level that differs between runs is no correlation within them);
 * *blocks receives the blocks counted.
 */
static double lag1(const struct compare_units *u, unsigned int f, uint32_t above,
		   unsigned int *blocks)
{
	double num = 0, den = 0;
	unsigned int r, j, n;

	*blocks = 0;
	for (r = 0; r < u->nr_runs; r++) {
		const struct compare_unit_run *run = &u->runs[r];
		double *x, mean = 0;
		unsigned int kept = 0;

		if (!run->blocks)
			continue;
		n = run->nr / f;
		x = malloc((n ? n : 1) * sizeof(*x));
		if (!x)
			return NAN;
		for (j = 0; j < n; j++) {
			x[j] = fraction_above(u, &u->units[run->first + j * f], f, above);
			if (!isnan(x[j])) {
				mean += x[j];
				kept++;
			}
		}
		mean = kept ? mean / kept : 0;
		for (j = 0; j < n; j++) {
			if (isnan(x[j]))
				continue;
			den += (x[j] - mean) * (x[j] - mean);
			if (j + 1 < n && !isnan(x[j + 1]))
				num += (x[j] - mean) * (x[j + 1] - mean);
		}
		*blocks += kept;
		free(x);
	}
	return den > 0 ? num / den : 0;
}

/* the runs' units merged @f at a time (the last merge of a run may be partial) */
static int merge_units(struct compare_units *u, unsigned int f, struct accumulator *acc)
{
	struct compare_units merged = { 0 };
	unsigned int units_cap = 0, entries_cap = 0, r, j, k;
	size_t e;
	int ret = 0;

	merged.runs = u->runs;
	for (r = 0; r < u->nr_runs && !ret; r++) {
		struct compare_unit_run *run = &u->runs[r];
		unsigned int first = merged.nr_units;

		for (j = 0; j < run->nr && !ret; j += f) {
			for (k = j; k < j + f && k < run->nr; k++) {
				const struct compare_unit *unit = &u->units[run->first + k];

				for (e = unit->first; e < unit->first + unit->nr; e++)
					accumulate(acc, u->index[e], u->count[e]);
			}
			ret = emit_unit(&merged, acc, &units_cap, &entries_cap);
			if (!run->blocks)
				break;
		}
		run->first = first;
		run->nr = merged.nr_units - first;
	}
	free(u->units);
	free(u->index);
	free(u->count);
	u->units = merged.units;
	u->nr_units = merged.nr_units;
	u->index = merged.index;
	u->count = merged.count;
	u->nr_entries = merged.nr_entries;
	return ret;
}

/*
 * Blocks long enough that one's drift is not the next's: double them while
 * the larger lag-1 autocorrelation (above the median, above p90) exceeds
 * COMPARE_UNITS_MAX_LAG1 and every run keeps COMPARE_UNITS_MIN_BLOCKS. The
 * side is said to stay correlated when what is left exceeds chance too.
 */
static int choose_block_length(struct compare_units *u, const struct bucket_hist *pooled,
			       struct accumulator *acc)
{
	uint32_t median = rank_index(pooled, 0.5), p90 = rank_index(pooled, 0.9);
	unsigned int f = 1, fewest = UINT32_MAX, blocks, r;
	double r1, limit;

	for (r = 0; r < u->nr_runs; r++)
		if (u->runs[r].blocks && u->runs[r].nr < fewest)
			fewest = u->runs[r].nr;
	if (fewest == UINT32_MAX)
		return 0;
	for (;;) {
		r1 = fmax(lag1(u, f, median, &blocks), lag1(u, f, p90, &blocks));
		if (isnan(r1))
			return -ENOMEM;
		if (r1 <= COMPARE_UNITS_MAX_LAG1 || fewest / (2 * f) < COMPARE_UNITS_MIN_BLOCKS)
			break;
		f *= 2;
	}
	/* what is left is correlation only when chance cannot explain it */
	limit = fmax(COMPARE_UNITS_MAX_LAG1, 1.96 / sqrt(blocks ? blocks : 1));
	u->lag1 = r1;
	u->correlated = r1 > limit;
	u->block_ns *= f;
	u->fewest_blocks = fewest / f;
	return f > 1 ? merge_units(u, f, acc) : 0;
}

int compare_units_build(const struct run *const *runs, const struct compare_side *side,
			const struct bucket_hist *pooled, struct compare_units *out)
{
	unsigned int units_cap = 0, entries_cap = 0, p, k, without = 0;
	struct accumulator acc = { 0 };
	struct span *maps[2] = { NULL, NULL };
	uint64_t block_ns = 0;
	int ret = 0;

	memset(out, 0, sizeof(*out));
	out->lag1 = NAN;
	out->support = pooled->nr_buckets + 1;
	out->runs = calloc(side->nr_parts ? side->nr_parts : 1, sizeof(*out->runs));
	acc.counts = calloc(out->support, sizeof(*acc.counts));
	acc.touched = malloc(out->support * sizeof(*acc.touched));
	maps[TIME_BLOCK_LOG_LINEAR] = layout_map(pooled, TIME_BLOCK_LOG_LINEAR);
	maps[TIME_BLOCK_NATIVE_COARSE] = layout_map(pooled, TIME_BLOCK_NATIVE_COARSE);
	if (!out->runs || !acc.counts || !acc.touched || !maps[0] || !maps[1]) {
		ret = -ENOMEM;
		goto out;
	}
	/* one block length for the side: the longest any run has */
	for (p = 0; p < side->nr_parts; p++) {
		uint64_t length = part_block_ns(runs[side->parts[p].input], &side->parts[p]);

		if (length > block_ns)
			block_ns = length;
	}
	for (p = 0; p < side->nr_parts && !ret; p++) {
		const struct compare_part *part = &side->parts[p];
		const struct run *run = runs[part->input];
		struct compare_unit_run *r = &out->runs[out->nr_runs++];
		uint64_t length = part_block_ns(run, part);

		r->first = out->nr_units;
		/* several runs are resampled whole: their blocks are not needed */
		r->blocks = side->nr_parts == 1 && length && block_ns % length == 0 &&
			    !((block_ns / length) & (block_ns / length - 1)) &&
			    blocks_pooled(run, part, maps);
		if (r->blocks) {
			ret = add_block_run(out, run, part, block_ns, pooled, maps, &acc,
					    &units_cap, &entries_cap);
		} else {
			without += side->nr_parts == 1;
			ret = add_histogram_run(out, run, part, pooled, &acc, &units_cap,
						&entries_cap);
		}
		r->nr = out->nr_units - r->first;
		for (k = 0; k < r->nr; k++)
			r->count += out->units[r->first + k].count;
	}
	if (ret)
		goto out;
	if (without)
		snprintf(out->note, sizeof(out->note),
			 "its run has no time blocks (rt-tests, or latscope before schema "
			 "latscope/3): its values are resampled as if independent");
	out->block_ns = out->nr_runs == 1 && !without ? block_ns : 0;
	if (out->block_ns)
		ret = choose_block_length(out, pooled, &acc);
out:
	free(acc.counts);
	free(acc.touched);
	free(maps[0]);
	free(maps[1]);
	return ret;
}
