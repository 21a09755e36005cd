/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_COMPARE_STATS_H
#define LATSCOPE_COMPARE_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "latscope/bucket_hist.h"

/*
 * Before/after statistics of `compare`: a percentile of A and of B, the
 * difference B - A with its interval, and one of four verdicts:
 *
 * - worse / better: the change exceeds the practical threshold and its
 *   interval is clear of 0;
 * - same: the whole interval lies within the practical threshold (an
 *   equivalence shown, not an absence of evidence), so that the tiny but
 *   "significant" differences of billion-sample runs are `same`;
 * - inconclusive: anything else, with the reason and the runs or rounds
 *   that would decide it. Always when a side is one run: one run cannot
 *   tell the change from the machine's variation between runs, which on a
 *   VM can exceed the change (two unchanged 10 s timer runs here differed
 *   by 25% at p50);
 * - n/a: not computable (too few samples, no histogram).
 */
enum compare_verdict {
	COMPARE_SAME,
	COMPARE_BETTER, /* B lower than A */
	COMPARE_WORSE, /* B higher than A */
	COMPARE_INCONCLUSIVE,
	COMPARE_NOT_AVAILABLE,
};

/* How a statistic's interval was had (compare_bootstrap.h). */
enum compare_method {
	COMPARE_METHOD_VALUES, /* one run a side, no blocks: values as if independent (exact) */
	COMPARE_METHOD_BLOCKS, /* one run a side: its time blocks resampled */
	COMPARE_METHOD_RUNS, /* replicates: runs, then blocks within them */
	COMPARE_METHOD_ROUNDS, /* ab: round pairs */
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

/* the percentiles compared when the user names none: hist_reported_percentiles but p99.999 */
extern const double *const compare_default_percentiles;
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
	enum compare_method method;
	unsigned int units; /* resampled at the top: runs, blocks or rounds (0: values) */
	double df; /* degrees of freedom of the interval's expansion (0: none) */
	unsigned int units_to_decide; /* inconclusive: the runs or rounds that would decide */
	bool has_power; /* rounds: what this many could find */
	uint64_t detectable_ns; /* the smallest change found with 80% power */
	unsigned int rounds_for_5pct; /* rounds finding a 5% change with 80% power */
	bool power_from_a; /* B's change varies between rounds: the power is from A's spread */
	enum compare_verdict verdict;
	char reason[400];
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
 * The interval treats the values as independent (the exact bootstrap of
 * quantile_interval.h): for one run a side without time blocks. The
 * verdict is then INCONCLUSIVE (one run a side). A side with too few
 * samples gives verdict COMPARE_NOT_AVAILABLE with the reason; that is not
 * an error. Returns 0, -EINVAL or -ENOMEM.
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

/* the practical threshold at a baseline: the larger of its fraction and its duration, in ns */
double compare_threshold_ns(uint64_t a_ns, const struct compare_threshold *t);

/**
 * compare_verdict_of - the verdict for a difference and its interval
 * @a_ns: A's value (the baseline the fraction applies to)
 * @diff_ns: B - A
 * @ci_ns: its interval
 * @t: the practical threshold
 * @between_runs: the interval holds the variation between runs
 *		  (replicates or rounds); false: a side is one run
 * @why: receives the reason in words
 * @size: room in @why
 *
 * WORSE when diff_ns exceeds both parts of the threshold and the interval
 * lies above 0; BETTER likewise below; SAME when the whole interval lies
 * within the threshold; INCONCLUSIVE otherwise, and always without
 * @between_runs (the reason then says what the runs show within them).
 */
enum compare_verdict compare_verdict_of(uint64_t a_ns, int64_t diff_ns, const int64_t ci_ns[2],
					const struct compare_threshold *t, bool between_runs,
					char *why, size_t size);

/* "better", "worse", "same", "inconclusive", "n/a" */
const char *compare_verdict_name(enum compare_verdict v);

/* "values", "blocks", "runs", "rounds" */
const char *compare_method_name(enum compare_method m);

#endif
