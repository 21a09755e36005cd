// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <math.h>
#include <string.h>

#include "binomial.h"
#include "latscope/miss_rate.h"

/*
 * Walk the buckets (and the overflow, which holds overflow_above_ns + 1
 * up to max_ns) and split them into wholly above the budget, straddling it,
 * and at or below it.
 */
static void count_misses(const struct bucket_hist *h, uint64_t budget, uint64_t *above,
			 uint64_t *straddling, double *part_above)
{
	unsigned int i;

	*above = 0;
	*straddling = 0;
	*part_above = 0;
	for (i = 0; i <= h->nr_buckets; i++) {
		uint64_t low, high, count;

		if (i < h->nr_buckets) {
			low = h->buckets[i].low_ns;
			high = h->buckets[i].high_ns;
			count = h->buckets[i].count;
		} else {
			low = h->overflow_above_ns + 1;
			high = h->max_ns;
			count = h->overflow;
		}
		/* no value lies outside min..max */
		if (low < h->min_ns)
			low = h->min_ns;
		if (high > h->max_ns)
			high = h->max_ns;
		if (!count || high <= budget)
			continue;
		if (low > budget) {
			*above += count;
			continue;
		}
		*straddling = count;
		*part_above = (double)(high - budget) / (double)(high - low + 1);
	}
}

int miss_rate_estimate(const struct bucket_hist *h, uint64_t budget_ns, double confidence,
		       double samples_per_s, struct miss_rate *out)
{
	uint64_t above, straddling;
	double part, ignored;
	int err;

	memset(out, 0, sizeof(*out));
	if (!h->finished || !h->count || !(confidence > 0 && confidence < 1) ||
	    !(samples_per_s >= 0) || !isfinite(samples_per_s))
		return -EINVAL;
	count_misses(h, budget_ns, &above, &straddling, &part);
	out->budget_ns = budget_ns;
	out->samples = h->count;
	out->misses_low = above;
	out->misses_high = above + straddling;
	out->fraction = ((double)above + part * (double)straddling) / (double)h->count;
	err = clopper_pearson(out->misses_low, h->count, confidence, &out->ci[0], &ignored);
	if (!err)
		err = clopper_pearson(out->misses_high, h->count, confidence, &ignored,
				      &out->ci[1]);
	if (err)
		return err;
	if (samples_per_s > 0) {
		out->has_rate = true;
		out->per_hour = out->fraction * samples_per_s * 3600;
		out->per_hour_ci[0] = out->ci[0] * samples_per_s * 3600;
		out->per_hour_ci[1] = out->ci[1] * samples_per_s * 3600;
	}
	return 0;
}
