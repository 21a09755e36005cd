// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "latscope/array.h"
#include "latscope/bucket_hist.h"
#include "latscope/log.h"

void bucket_hist_init(struct bucket_hist *h)
{
	memset(h, 0, sizeof(*h));
}

void bucket_hist_release(struct bucket_hist *h)
{
	free(h->buckets);
	free(h->cumulative);
	bucket_hist_init(h);
}

int bucket_hist_add(struct bucket_hist *h, uint64_t low_ns, uint64_t high_ns, uint64_t count)
{
	struct bucket *grown;

	if (h->finished || low_ns > high_ns)
		return -EINVAL;
	if (!count)
		return 0;
	grown = array_grow(h->buckets, &h->cap, h->nr_buckets + 1, sizeof(*h->buckets));
	if (!grown)
		return -ENOMEM;
	h->buckets = grown;
	h->buckets[h->nr_buckets++] = (struct bucket){ low_ns, high_ns, count };
	return 0;
}

static int compare_low(const void *a, const void *b)
{
	const struct bucket *x = a, *y = b;

	return x->low_ns < y->low_ns ? -1 : x->low_ns > y->low_ns;
}

static bool is_sorted(const struct bucket *b, unsigned int nr)
{
	unsigned int i;

	for (i = 1; i < nr; i++)
		if (b[i].low_ns < b[i - 1].low_ns)
			return false;
	return true;
}

static int check_extremes(const struct bucket_hist *h)
{
	const struct bucket *first, *last;

	if (h->min_ns > h->max_ns) {
		log_error("histogram: min %llu ns above max %llu ns", (unsigned long long)h->min_ns,
			  (unsigned long long)h->max_ns);
		return -EINVAL;
	}
	if (!h->nr_buckets) {
		/* everything overflowed */
		if (h->min_ns <= h->overflow_above_ns) {
			log_error("histogram: every value overflowed, yet min is %llu ns",
				  (unsigned long long)h->min_ns);
			return -EINVAL;
		}
		return 0;
	}
	first = &h->buckets[0];
	last = &h->buckets[h->nr_buckets - 1];
	if (h->min_ns < first->low_ns || h->min_ns > first->high_ns) {
		log_error("histogram: min %llu ns is not in the first bucket %llu..%llu ns",
			  (unsigned long long)h->min_ns, (unsigned long long)first->low_ns,
			  (unsigned long long)first->high_ns);
		return -EINVAL;
	}
	if (h->overflow) {
		if (last->high_ns > h->overflow_above_ns || h->max_ns <= h->overflow_above_ns) {
			log_error("histogram: %llu values overflowed above %llu ns, but the last "
				  "bucket ends at %llu ns and max is %llu ns",
				  (unsigned long long)h->overflow,
				  (unsigned long long)h->overflow_above_ns,
				  (unsigned long long)last->high_ns, (unsigned long long)h->max_ns);
			return -EINVAL;
		}
	} else if (h->max_ns < last->low_ns || h->max_ns > last->high_ns) {
		log_error("histogram: max %llu ns is not in the last bucket %llu..%llu ns",
			  (unsigned long long)h->max_ns, (unsigned long long)last->low_ns,
			  (unsigned long long)last->high_ns);
		return -EINVAL;
	}
	return 0;
}

int bucket_hist_finish(struct bucket_hist *h, uint64_t overflow, uint64_t overflow_above_ns,
		       uint64_t min_ns, uint64_t max_ns)
{
	uint64_t total = 0;
	unsigned int i;
	int err;

	if (h->finished)
		return -EINVAL;
	if (!is_sorted(h->buckets, h->nr_buckets))
		qsort(h->buckets, h->nr_buckets, sizeof(*h->buckets), compare_low);
	for (i = 1; i < h->nr_buckets; i++) {
		if (h->buckets[i].low_ns <= h->buckets[i - 1].high_ns) {
			log_error("histogram: buckets %llu..%llu and %llu..%llu ns overlap",
				  (unsigned long long)h->buckets[i - 1].low_ns,
				  (unsigned long long)h->buckets[i - 1].high_ns,
				  (unsigned long long)h->buckets[i].low_ns,
				  (unsigned long long)h->buckets[i].high_ns);
			return -EINVAL;
		}
	}
	free(h->cumulative);
	h->cumulative = NULL;
	if (h->nr_buckets) {
		h->cumulative = malloc(h->nr_buckets * sizeof(*h->cumulative));
		if (!h->cumulative)
			return -ENOMEM;
	}
	for (i = 0; i < h->nr_buckets; i++) {
		if (__builtin_add_overflow(total, h->buckets[i].count, &total))
			return -EOVERFLOW;
		h->cumulative[i] = total;
	}
	if (__builtin_add_overflow(total, overflow, &total))
		return -EOVERFLOW;
	h->overflow = overflow;
	h->overflow_above_ns = overflow ? overflow_above_ns : 0;
	h->count = total;
	h->min_ns = total ? min_ns : 0;
	h->max_ns = total ? max_ns : 0;
	if (total) {
		err = check_extremes(h);
		if (err)
			return err;
	}
	h->finished = true;
	return 0;
}

int bucket_hist_from_hist(struct bucket_hist *out, const struct hist *from)
{
	unsigned int i;
	int err;

	bucket_hist_init(out);
	for (i = 0; i < HIST_BUCKETS; i++) {
		if (!from->buckets[i])
			continue;
		err = bucket_hist_add(out, hist_bucket_low(i), hist_bucket_high(i),
				      from->buckets[i]);
		if (err)
			goto fail;
	}
	err = bucket_hist_finish(out, from->overflow, HIST_MAX_NS, from->min, from->max);
	if (err)
		goto fail;
	return 0;
fail:
	bucket_hist_release(out);
	return err;
}

uint64_t bucket_hist_value(const struct bucket_hist *h, unsigned int index)
{
	const struct bucket *b;
	uint64_t v;

	if (index >= h->nr_buckets)
		return h->max_ns;
	b = &h->buckets[index];
	v = b->low_ns + (b->high_ns - b->low_ns) / 2;
	if (v < h->min_ns)
		v = h->min_ns;
	if (v > h->max_ns)
		v = h->max_ns;
	return v;
}

unsigned int bucket_hist_rank_index(const struct bucket_hist *h, uint64_t rank)
{
	unsigned int lo = 0, hi = h->nr_buckets;

	/* the first bucket whose cumulative count reaches the rank */
	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;

		if (h->cumulative[mid] >= rank)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}
