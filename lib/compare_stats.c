// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "latscope/compare_stats.h"
#include "latscope/quantile_interval.h"

const double compare_default_percentiles[] = { 50, 90, 99, 99.9, 99.99 };
const unsigned int compare_nr_default_percentiles =
	sizeof(compare_default_percentiles) / sizeof(compare_default_percentiles[0]);

void compare_options_default(struct compare_options *o)
{
	o->confidence = COMPARE_DEFAULT_CONFIDENCE;
	o->practical.fraction = COMPARE_DEFAULT_PRACTICAL_FRACTION;
	o->practical.ns = COMPARE_DEFAULT_PRACTICAL_NS;
}

const char *compare_verdict_name(enum compare_verdict v)
{
	switch (v) {
	case COMPARE_SAME:
		return "same";
	case COMPARE_BETTER:
		return "better";
	case COMPARE_WORSE:
		return "worse";
	case COMPARE_NOT_AVAILABLE:
		break;
	}
	return "n/a";
}

void compare_percentile_name(double percent, char *buf, size_t size)
{
	snprintf(buf, size, "p%g", percent);
}

/* ns as signed microseconds, "+1.234 us" */
static const char *signed_us(int64_t ns, char *buf, size_t size)
{
	snprintf(buf, size, "%+.3f us", (double)ns / 1e3);
	return buf;
}

enum compare_verdict compare_verdict_of(uint64_t a_ns, int64_t diff_ns, const int64_t ci_ns[2],
					const struct compare_threshold *t, char *why, size_t size)
{
	double relative = a_ns ? (double)diff_ns / (double)a_ns : 0;
	double threshold = t->fraction * (double)a_ns;
	int64_t magnitude = diff_ns < 0 ? -diff_ns : diff_ns;
	char d[32], lo[32], hi[32];

	if (threshold < (double)t->ns)
		threshold = (double)t->ns;
	signed_us(diff_ns, d, sizeof(d));
	signed_us(ci_ns[0], lo, sizeof(lo));
	signed_us(ci_ns[1], hi, sizeof(hi));
	if ((double)magnitude <= threshold) {
		snprintf(why, size,
			 "the change (%s, %+.1f%%) is within the practical threshold "
			 "(%g%% and %.3f us)",
			 d, relative * 100, t->fraction * 100, (double)t->ns / 1e3);
		return COMPARE_SAME;
	}
	if (diff_ns > 0 && ci_ns[0] > 0) {
		snprintf(why, size, "B is higher by %s (%+.1f%%), interval %s .. %s", d,
			 relative * 100, lo, hi);
		return COMPARE_WORSE;
	}
	if (diff_ns < 0 && ci_ns[1] < 0) {
		snprintf(why, size, "B is lower by %s (%+.1f%%), interval %s .. %s", d,
			 relative * 100, lo, hi);
		return COMPARE_BETTER;
	}
	snprintf(why, size,
		 "the change (%s, %+.1f%%) is not told apart from none: its interval "
		 "%s .. %s holds 0",
		 d, relative * 100, lo, hi);
	return COMPARE_SAME;
}

static void start_row(struct compare_stat *out, double percent)
{
	memset(out, 0, sizeof(*out));
	out->percent = percent;
	out->verdict = COMPARE_NOT_AVAILABLE;
	if (percent < 100)
		compare_percentile_name(percent, out->name, sizeof(out->name));
	else
		snprintf(out->name, sizeof(out->name), "max");
}

int compare_stat_percentile(const struct bucket_hist *a, const struct bucket_hist *b,
			    double percent, const struct compare_options *o,
			    struct compare_stat *out)
{
	struct quantile_interval qa, qb;
	int err;

	start_row(out, percent);
	err = quantile_interval_estimate(a, percent, o->confidence, &qa);
	if (err)
		return err;
	err = quantile_interval_estimate(b, percent, o->confidence, &qb);
	if (err) {
		quantile_interval_release(&qa);
		return err;
	}
	out->has_a = qa.available;
	out->has_b = qb.available;
	out->a_ns = qa.value_ns;
	out->b_ns = qb.value_ns;
	if (!qa.available || !qb.available) {
		snprintf(out->reason, sizeof(out->reason), "%s: %s", qa.available ? "B" : "A",
			 qa.available ? qb.reason : qa.reason);
		goto out;
	}
	out->has_side_ci = true;
	memcpy(out->a_ci_ns, qa.ci_ns, sizeof(out->a_ci_ns));
	memcpy(out->b_ci_ns, qb.ci_ns, sizeof(out->b_ci_ns));
	err = quantile_interval_difference(&qa, &qb, o->confidence, &out->diff_ns, out->ci_ns);
	if (err)
		goto out;
	out->has_diff = true;
	out->has_ci = true;
	out->verdict = compare_verdict_of(qa.value_ns, out->diff_ns, out->ci_ns, &o->practical,
					  out->reason, sizeof(out->reason));
out:
	quantile_interval_release(&qa);
	quantile_interval_release(&qb);
	return err;
}

int compare_stat_max(const struct bucket_hist *a, const struct bucket_hist *b,
		     const struct compare_options *o, struct compare_stat *out)
{
	(void)o;
	start_row(out, 100);
	if (!a->finished || !b->finished)
		return -EINVAL;
	out->has_a = a->count > 0;
	out->has_b = b->count > 0;
	out->a_ns = a->max_ns;
	out->b_ns = b->max_ns;
	if (!out->has_a || !out->has_b) {
		snprintf(out->reason, sizeof(out->reason), "%s: no samples",
			 out->has_a ? "B" : "A");
		return 0;
	}
	out->has_diff = true;
	out->diff_ns = (int64_t)b->max_ns - (int64_t)a->max_ns;
	snprintf(out->reason, sizeof(out->reason),
		 "a maximum has no confidence interval (a bootstrap cannot go beyond the "
		 "observed one, and it grows with the run's length): see the return levels");
	return 0;
}
