// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "latscope/compare_stats.h"
#include "latscope/hist.h"
#include "quantile_interval.h"

/*
 * The percentiles every result reports, p50 to p99.99, but the last:
 * p99.999 is compared only when --percentiles names it.
 */
const double *const compare_default_percentiles = hist_reported_percentiles;
const unsigned int compare_nr_default_percentiles = HIST_NR_REPORTED - 1;

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
	case COMPARE_INCONCLUSIVE:
		return "inconclusive";
	case COMPARE_NOT_AVAILABLE:
		break;
	}
	return "n/a";
}

const char *compare_method_name(enum compare_method m)
{
	switch (m) {
	case COMPARE_METHOD_BLOCKS:
		return "blocks";
	case COMPARE_METHOD_RUNS:
		return "runs";
	case COMPARE_METHOD_ROUNDS:
		return "rounds";
	case COMPARE_METHOD_VALUES:
		break;
	}
	return "values";
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

double compare_threshold_ns(uint64_t a_ns, const struct compare_threshold *t)
{
	double threshold = t->fraction * (double)a_ns;

	return threshold < (double)t->ns ? (double)t->ns : threshold;
}

enum compare_verdict compare_verdict_of(uint64_t a_ns, int64_t diff_ns, const int64_t ci_ns[2],
					const struct compare_threshold *t, bool between_runs,
					char *why, size_t size)
{
	double relative = a_ns ? (double)diff_ns / (double)a_ns : 0;
	double threshold = compare_threshold_ns(a_ns, t);
	int64_t magnitude = diff_ns < 0 ? -diff_ns : diff_ns;
	char d[32], lo[32], hi[32], limit[32];
	bool beyond = (double)magnitude > threshold;
	bool within = (double)ci_ns[0] >= -threshold && (double)ci_ns[1] <= threshold;
	bool clear = (diff_ns > 0 && ci_ns[0] > 0) || (diff_ns < 0 && ci_ns[1] < 0);

	signed_us(diff_ns, d, sizeof(d));
	signed_us(ci_ns[0], lo, sizeof(lo));
	signed_us(ci_ns[1], hi, sizeof(hi));
	snprintf(limit, sizeof(limit), "%.3f us", threshold / 1e3);
	if (!between_runs) {
		snprintf(why, size,
			 "one run a side does not measure the variation between runs, which "
			 "alone can exceed a change: within these runs B is %s by %s (%+.1f%%, "
			 "interval %s .. %s); repeat each side (compare A1 A2 A3 --vs B1 B2 B3) "
			 "or interleave them (latscope ab)",
			 diff_ns > 0 ? "higher" :
			 diff_ns < 0 ? "lower" :
				       "the same",
			 d, relative * 100, lo, hi);
		return COMPARE_INCONCLUSIVE;
	}
	if (beyond && clear) {
		snprintf(why, size, "B is %s by %s (%+.1f%%), interval %s .. %s",
			 diff_ns > 0 ? "higher" : "lower", d, relative * 100, lo, hi);
		return diff_ns > 0 ? COMPARE_WORSE : COMPARE_BETTER;
	}
	if (within) {
		snprintf(why, size,
			 "the whole interval %s .. %s lies within the practical threshold of "
			 "+-%s (%g%% and %.3f us)",
			 lo, hi, limit, t->fraction * 100, (double)t->ns / 1e3);
		return COMPARE_SAME;
	}
	if (beyond)
		snprintf(why, size,
			 "the change (%s, %+.1f%%) exceeds the practical threshold of +-%s but its "
			 "interval %s .. %s holds 0",
			 d, relative * 100, limit, lo, hi);
	else
		snprintf(why, size,
			 "the change (%s, %+.1f%%) is within the practical threshold of +-%s but "
			 "its interval %s .. %s reaches beyond it",
			 d, relative * 100, limit, lo, hi);
	return COMPARE_INCONCLUSIVE;
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
	out->method = COMPARE_METHOD_VALUES;
	out->verdict = compare_verdict_of(qa.value_ns, out->diff_ns, out->ci_ns, &o->practical,
					  false, out->reason, sizeof(out->reason));
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
