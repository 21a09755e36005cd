/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_COMPARE_STATS_H
#define LATSCOPE_COMPARE_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "latscope/bucket_hist.h"

/*
 * Before/after statistics of `compare`: a percentile of A and of B, the
 * difference B - A with its bootstrap interval (quantile_interval.h), and
 * a verdict that calls a change only when it is both real (the interval
 * excludes 0) and large enough to matter (the practical threshold), so
 * that the tiny but "significant" differences of billion-sample runs are
 * `same`.
 */
enum compare_verdict {
	COMPARE_SAME,
	COMPARE_BETTER, /* B lower than A */
	COMPARE_WORSE, /* B higher than A */
	COMPARE_NOT_AVAILABLE,
};

/* A change must exceed both to matter: |B - A| > fraction * A and > ns. */
struct compare_threshold {
	double fraction;
	uint64_t ns;
};

struct compare_options {
	double confidence;
	struct compare_threshold practical;
};

/* the defaults, here once: 95%, 5% and 1 us */
#define COMPARE_DEFAULT_CONFIDENCE 0.95
#define COMPARE_DEFAULT_PRACTICAL_FRACTION 0.05
#define COMPARE_DEFAULT_PRACTICAL_NS 1000

/* the percentiles compared when the user names none */
extern const double compare_default_percentiles[];
extern const unsigned int compare_nr_default_percentiles;

/* Fill @o with the defaults above. */
void compare_options_default(struct compare_options *o);

/*
 * One row of the comparison. A side's value is missing (has_a/has_b
 * false) when it has no samples or too few for the statistic; the
 * interval is missing for max (see compare_stat_max) and whenever a side
 * is. reason says in words why the verdict is what it is.
 */
struct compare_stat {
	char name[16]; /* "p99.9", "max" */
	double percent; /* 100 for max */
	bool has_a, has_b;
	uint64_t a_ns, b_ns;
	bool has_side_ci; /* a_ci_ns and b_ci_ns are set */
	uint64_t a_ci_ns[2], b_ci_ns[2];
	bool has_diff;
	int64_t diff_ns; /* b_ns - a_ns */
	bool has_ci;
	int64_t ci_ns[2]; /* interval of diff_ns */
	enum compare_verdict verdict;
	char reason[200];
};

/**
 * compare_percentile_name - "p50", "p99.9", "p99.99" for a percentile
 * @percent: 0 < percent < 100
 * @buf: receives the name
 * @size: room in @buf (16 is enough)
 */
void compare_percentile_name(double percent, char *buf, size_t size);

/**
 * compare_stat_percentile - compare one percentile of A and B
 * @a: histogram of A (finished)
 * @b: histogram of B (finished)
 * @percent: 0 < percent < 100
 * @o: confidence and practical threshold
 * @out: receives the row
 *
 * A side with too few samples gives verdict COMPARE_NOT_AVAILABLE with
 * the reason; that is not an error. Returns 0, -EINVAL or -ENOMEM.
 */
int compare_stat_percentile(const struct bucket_hist *a, const struct bucket_hist *b,
			    double percent, const struct compare_options *o,
			    struct compare_stat *out);

/**
 * compare_stat_max - compare the maxima of A and B
 * @a: histogram of A (finished)
 * @b: histogram of B (finished)
 * @o: the options (for the threshold named in the reason)
 * @out: receives the row
 *
 * The maxima and their difference are exact, but there is no interval and
 * the verdict is COMPARE_NOT_AVAILABLE: a bootstrap cannot produce values
 * beyond the observed maximum (it is inconsistent for extremes: the
 * resample's max equals the sample's with probability 1 - 1/e), and a
 * run's maximum grows with its length, so two maxima differ by chance far
 * more than any percentile. The GEV return levels (tail_estimate.h)
 * answer "how high will it go" with intervals. Returns 0 or -EINVAL.
 */
int compare_stat_max(const struct bucket_hist *a, const struct bucket_hist *b,
		     const struct compare_options *o, struct compare_stat *out);

/**
 * compare_verdict_of - the verdict for a difference and its interval
 * @a_ns: A's value (the baseline the fraction applies to)
 * @diff_ns: B - A
 * @ci_ns: its interval
 * @t: the practical threshold
 * @why: receives the reason in words
 * @size: room in @why
 *
 * WORSE when diff_ns exceeds both parts of the threshold and the interval
 * lies above 0; BETTER likewise below; SAME otherwise (too small to
 * matter, or not distinguishable from no change).
 */
enum compare_verdict compare_verdict_of(uint64_t a_ns, int64_t diff_ns, const int64_t ci_ns[2],
					const struct compare_threshold *t, char *why, size_t size);

/* "better", "worse", "same", "n/a" */
const char *compare_verdict_name(enum compare_verdict v);

#endif
