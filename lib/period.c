// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Periodicity detection.
 *
 * 1. Candidate periods: the differences between each event and its next few
 *    neighbours, and its next few neighbours of about the same duration,
 *    binned on a log scale (0.5% wide); the peaks that stand highest above
 *    the counts around them are the candidates.
 * 2. Each candidate is fitted as a train t = a + b*k: seeds are events with
 *    a partner one period later and another after that at the same spacing;
 *    a walk from each takes the event nearest each predicted slot, refines
 *    (a, b) by least squares as it goes (slow drift between clocks is
 *    followed) and narrows its window to the train's jitter. A sweep of
 *    every event against the line then narrows the window to the train's
 *    robust spread, so background events scattered over it fall away.
 * 3. A train is a source when it has enough occurrences, fills enough of
 *    its slots, and has clearly more occurrences than background events
 *    landing in its windows by chance would give.
 * 4. The best train (most occurrences beyond chance; among near ties the
 *    fuller) is taken out and the search repeats on what is left, which
 *    finds interleaved sources. A winner whose occurrences crowd into one
 *    residue of its slots is a sub-harmonic and is refitted at a multiple
 *    of its period. A train repeating a known source in phase (a harmonic
 *    filling missed occurrences, or the followers of its occurrences) joins
 *    it; two halves at twice a period, or three phases at three times it
 *    (a jittery train whose first window could not narrow), become one.
 * 5. A slower source in phase with a faster one shares its slots: found
 *    on its own (its gap swallowed the faster one's occurrence) it is
 *    nested in it; found inside the faster train, it is split off when the
 *    occurrences of one residue of the slots modulo m are longer than the
 *    others or have a cause the others lack. The faster source counts the
 *    nested slots among its occurrences.
 * 6. Events just after a source's slots (the softirq after an interrupt)
 *    are part of its occurrences: their durations add up.
 *
 * Everything in a virtual machine runs in step with the host's tick, so
 * trains meet each other regularly; the recorded gap streams in the unit
 * tests hold those cases.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "latscope/period.h"

#define DEFAULT_MIN_PERIOD_NS 20000ULL
#define NEIGHBOURS 10
#define BIN_RATIO 1.005
#define MAX_CANDIDATES 32
#define MAX_SEEDS 4
#define MIN_SEEN 10
#define MIN_FILL 0.25
#define TOLERANCE_FRACTION 0.03
#define MIN_TOLERANCE_NS 2000.0
#define SATELLITE_MIN_NS 50000.0

struct candidate {
	double period;
	double score; /* how far its peak stands above the background */
};

/* A least-squares line t = a + b*k, fed one (k, t) point at a time. */
struct line_fit {
	double n, mean_k, mean_t, m2_k, c_kt;
	double fallback_b;
};

static void fit_reset(struct line_fit *fit, double fallback_b)
{
	memset(fit, 0, sizeof(*fit));
	fit->fallback_b = fallback_b;
}

static void fit_add(struct line_fit *fit, double k, double t)
{
	double dk = k - fit->mean_k;

	fit->n += 1;
	fit->mean_k += dk / fit->n;
	fit->mean_t += (t - fit->mean_t) / fit->n;
	fit->m2_k += dk * (k - fit->mean_k);
	fit->c_kt += dk * (t - fit->mean_t);
}

static double fit_slope(const struct line_fit *fit)
{
	double b;

	if (fit->n < 2 || fit->m2_k <= 0)
		return fit->fallback_b;
	b = fit->c_kt / fit->m2_k;
	/* a wild slope means the points are not one train: keep the candidate */
	if (b < 0.9 * fit->fallback_b || b > 1.1 * fit->fallback_b)
		return fit->fallback_b;
	return b;
}

static double fit_intercept(const struct line_fit *fit)
{
	return fit->mean_t - fit_slope(fit) * fit->mean_k;
}

/* Work space for one detection. */
struct detector {
	const struct period_event *events;
	size_t nr_events;
	uint64_t run_ns, min_period, max_period;
	uint8_t *owner; /* per event: source index or PERIOD_UNASSIGNED */
	size_t *unused; /* indices of unassigned events, ascending */
	size_t nr_unused;
	/* per unused position: slot of the train being fitted, or -1 */
	int64_t *slot;
	int64_t *best_slot;
	size_t *octave_previous; /* per unused position: previous one of its octave */
	double *residuals; /* scratch for the sweep */
	uint64_t *bin_count;
	uint64_t *bin_prefix; /* nr_bins + 1 running sums of bin_count */
	double *bin_sum;
	size_t nr_bins;
	/* per source: the faster source it is nested in, or PERIOD_UNASSIGNED */
	uint8_t nested_in[PERIOD_MAX_SOURCES];
	const struct period_source *sources; /* as described so far */
};

struct train {
	double period, tolerance;
	double a, b; /* t = a + b*k, t relative to the first event */
	uint64_t seen, expected;
	double chance;
};

static double event_t(const struct detector *d, size_t position)
{
	return (double)(d->events[d->unused[position]].t_ns - d->events[0].t_ns);
}

static size_t bin_of(const struct detector *d, double diff)
{
	return (size_t)(log(diff / (double)d->min_period) / log(BIN_RATIO));
}

static int compare_candidates(const void *x, const void *y)
{
	const struct candidate *a = x, *b = y;

	if (a->score != b->score)
		return a->score < b->score ? 1 : -1;
	return a->period < b->period ? -1 : a->period > b->period;
}

static void add_difference(struct detector *d, double diff)
{
	size_t b;

	if (diff < (double)d->min_period || diff > (double)d->max_period)
		return;
	b = bin_of(d, diff);
	if (b >= d->nr_bins)
		return;
	d->bin_count[b]++;
	d->bin_sum[b] += diff;
}

static unsigned int duration_octave(const struct detector *d, size_t position)
{
	uint64_t duration = d->events[d->unused[position]].duration_ns;

	return duration ? 64U - (unsigned int)__builtin_clzll(duration) : 0;
}

/*
 * Differences to the next few events, and to the next few events of about
 * the same duration (the same power of two): a slow source hidden among
 * frequent short gaps usually differs from them in duration, and its
 * neighbours of its own kind are its own next occurrences.
 */
static void collect_differences(struct detector *d)
{
	size_t last_in_octave[65];
	size_t *chain = d->octave_previous;
	size_t i, j;

	for (i = 0; i < 65; i++)
		last_in_octave[i] = SIZE_MAX;
	for (i = 0; i < d->nr_unused; i++) {
		unsigned int octave = duration_octave(d, i);
		size_t k, previous;

		for (j = i + 1; j < d->nr_unused && j <= i + NEIGHBOURS; j++) {
			double diff = event_t(d, j) - event_t(d, i);

			if (diff > (double)d->max_period)
				break;
			add_difference(d, diff);
		}
		/* walk back through earlier events of this octave */
		chain[i] = last_in_octave[octave];
		last_in_octave[octave] = i;
		for (k = 0, previous = chain[i]; k < NEIGHBOURS && previous != SIZE_MAX;
		     k++, previous = chain[previous]) {
			double diff = event_t(d, i) - event_t(d, previous);

			if (diff > (double)d->max_period)
				break;
			/* already counted among the plain neighbours */
			if (i - previous <= NEIGHBOURS)
				continue;
			add_difference(d, diff);
		}
	}
}

#define BACKGROUND_NEAR 4
#define BACKGROUND_FAR 40

/* (peak - background) / sqrt(background + 1) of a 3-bin window at bin b */
static double prominence(const struct detector *d, size_t b, uint64_t here)
{
	size_t near_low = b > BACKGROUND_NEAR ? b - BACKGROUND_NEAR : 0;
	size_t far_low = b > BACKGROUND_FAR ? b - BACKGROUND_FAR : 0;
	size_t near_high = b + BACKGROUND_NEAR < d->nr_bins ? b + BACKGROUND_NEAR : d->nr_bins;
	size_t far_high = b + BACKGROUND_FAR < d->nr_bins ? b + BACKGROUND_FAR : d->nr_bins;
	uint64_t around = d->bin_prefix[near_low] - d->bin_prefix[far_low] +
			  d->bin_prefix[far_high] - d->bin_prefix[near_high];
	size_t bins = (near_low - far_low) + (far_high - near_high);
	double background = bins ? 3.0 * (double)around / (double)bins : 0;

	return ((double)here - background) / sqrt(background + 1);
}

static size_t find_candidates(struct detector *d, struct candidate *out)
{
	size_t b, n = 0;

	memset(d->bin_count, 0, d->nr_bins * sizeof(*d->bin_count));
	memset(d->bin_sum, 0, d->nr_bins * sizeof(*d->bin_sum));
	collect_differences(d);
	/* prefix sums, for the background around each bin */
	d->bin_prefix[0] = 0;
	for (b = 0; b < d->nr_bins; b++)
		d->bin_prefix[b + 1] = d->bin_prefix[b] + d->bin_count[b];
	/*
	 * Peaks of the count smoothed over three bins (a 1.5% window), ranked
	 * by how far they stand above the counts around them: random events
	 * give many differences at short spans, a slow source few but all in
	 * one place.
	 */
	for (b = 1; b + 1 < d->nr_bins; b++) {
		uint64_t here = d->bin_count[b - 1] + d->bin_count[b] + d->bin_count[b + 1];
		uint64_t left =
			b >= 2 ? d->bin_count[b - 2] + d->bin_count[b - 1] + d->bin_count[b] : 0;
		uint64_t right = b + 2 < d->nr_bins ? d->bin_count[b] + d->bin_count[b + 1] +
							      d->bin_count[b + 2] :
						      0;
		struct candidate c;

		if (here < 3 || here <= left || here < right)
			continue;
		c.score = prominence(d, b, here);
		if (c.score <= 0)
			continue;
		c.period = (d->bin_sum[b - 1] + d->bin_sum[b] + d->bin_sum[b + 1]) / (double)here;
		if (n < MAX_CANDIDATES) {
			out[n++] = c;
		} else if (c.score > out[MAX_CANDIDATES - 1].score) {
			out[MAX_CANDIDATES - 1] = c;
		} else {
			continue;
		}
		qsort(out, n, sizeof(*out), compare_candidates);
	}
	return n;
}

/* first unused position at or after time t */
static size_t position_at(const struct detector *d, double t)
{
	size_t low = 0, high = d->nr_unused;

	while (low < high) {
		size_t mid = low + (high - low) / 2;

		if (event_t(d, mid) < t)
			low = mid + 1;
		else
			high = mid;
	}
	return low;
}

static int64_t nearest_slot(double t, double a, double b)
{
	return (int64_t)llround((t - a) / b);
}

struct walk {
	struct line_fit fit;
	uint64_t accepted;
	double spread; /* root mean square distance of accepted events from the line */
};

#define WALK_MEMORY 32

static double median_of(const double *values, size_t n)
{
	double sorted[WALK_MEMORY];
	size_t i, j;

	for (i = 0; i < n; i++) {
		for (j = i; j > 0 && sorted[j - 1] > values[i]; j--)
			sorted[j] = sorted[j - 1];
		sorted[j] = values[i];
	}
	return n ? sorted[n / 2] : 0;
}

/*
 * Walk forward from a seed: in each slot take the event closest to the
 * predicted time, and refine the line as the walk goes, so slow drift
 * between the clocks is followed. Once the train shows its jitter, the
 * window shrinks to it, so slots the source left empty do not pull in
 * background events that would bend the line.
 */
static void walk_from(const struct detector *d, size_t seed, double period, double tolerance,
		      struct walk *walk)
{
	int64_t last = 0, pending_slot = -1;
	double pending_t = 0, pending_residual = 0, sum_squares = 0;
	double recent[WALK_MEMORY];
	size_t p, nr_recent = 0;

	fit_reset(&walk->fit, period);
	fit_add(&walk->fit, 0, event_t(d, seed));
	walk->accepted = 1;
	for (p = seed + 1; p <= d->nr_unused; p++) {
		double t = p < d->nr_unused ? event_t(d, p) : INFINITY;
		double a = fit_intercept(&walk->fit), b = fit_slope(&walk->fit), residual;
		int64_t k = isinf(t) ? INT64_MAX : nearest_slot(t, a, b);

		if (pending_slot >= 0 && k != pending_slot) {
			fit_add(&walk->fit, (double)pending_slot, pending_t);
			sum_squares += pending_residual * pending_residual;
			recent[nr_recent++ % WALK_MEMORY] = pending_residual;
			if (nr_recent >= 4)
				tolerance =
					fmin(tolerance,
					     fmax(8 * median_of(recent, nr_recent < WALK_MEMORY ?
										nr_recent :
										WALK_MEMORY),
						  MIN_TOLERANCE_NS));
			walk->accepted++;
			last = pending_slot;
			pending_slot = -1;
			a = fit_intercept(&walk->fit);
			b = fit_slope(&walk->fit);
			k = isinf(t) ? INT64_MAX : nearest_slot(t, a, b);
		}
		if (isinf(t))
			break;
		residual = fabs(t - (a + b * (double)k));
		if (k <= last || residual > tolerance)
			continue;
		if (pending_slot < 0 || residual < pending_residual) {
			pending_slot = k;
			pending_t = t;
			pending_residual = residual;
		}
	}
	walk->spread =
		walk->accepted > 1 ? sqrt(sum_squares / (double)(walk->accepted - 1)) : tolerance;
}

/* The median of @n values, which it reorders: the one a sort would put in the middle. */
static double median_in_place(double *v, size_t n)
{
	ptrdiff_t want = (ptrdiff_t)n / 2, low = 0, high = (ptrdiff_t)n - 1, i, j;
	double pivot, swap;

	/* Hoare's selection: partition around a value, keep the side holding the middle */
	while (low < high) {
		pivot = v[want];
		i = low;
		j = high;
		do {
			while (v[i] < pivot)
				i++;
			while (pivot < v[j])
				j--;
			if (i <= j) {
				swap = v[i];
				v[i++] = v[j];
				v[j--] = swap;
			}
		} while (i <= j);
		if (j < want)
			low = i;
		if (want < i)
			high = j;
	}
	return v[want];
}

/*
 * Assign every unused event to its nearest slot of the line, keeping the
 * closest event per slot; refit the line. @spread receives a robust spread
 * of the kept events around the line (1.4826 x their median distance, the
 * standard deviation for normal jitter), which background events filling
 * a minority of the slots cannot inflate. The spread is taken around the
 * median offset from the line, not the line itself: when another source
 * lands on every m-th slot a little early (a tick whose gap swallows the
 * host's interruption), a least-squares line sits between the two clusters
 * and neither would look tight around it.
 */
static uint64_t sweep(struct detector *d, struct line_fit *fit, double tolerance, double *spread)
{
	double a = fit_intercept(fit), b = fit_slope(fit), best_residual = 0, inlier, centre;
	int64_t previous_slot = INT64_MIN;
	size_t p, previous = 0, n = 0;
	uint64_t seen = 0;
	struct line_fit refit;

	for (p = 0; p < d->nr_unused; p++) {
		double t = event_t(d, p), residual;
		int64_t k = nearest_slot(t, a, b);

		d->slot[p] = -1;
		residual = fabs(t - (a + b * (double)k));
		if (residual > tolerance)
			continue;
		if (k == previous_slot) {
			if (residual >= best_residual)
				continue;
			d->slot[previous] = -1;
			seen--;
		}
		d->slot[p] = k;
		previous = p;
		previous_slot = k;
		best_residual = residual;
		seen++;
	}
	for (p = 0; p < d->nr_unused; p++)
		if (d->slot[p] != -1)
			d->residuals[n++] = event_t(d, p) - (a + b * (double)d->slot[p]);
	if (!n) {
		*spread = tolerance;
		return 0;
	}
	centre = median_in_place(d->residuals, n);
	for (p = 0; p < n; p++)
		d->residuals[p] = fabs(d->residuals[p] - centre);
	*spread = 1.4826 * median_in_place(d->residuals, n);
	/* refit on the inliers only: a few background events must not bend it */
	inlier = fmax(3 * *spread, MIN_TOLERANCE_NS);
	fit_reset(&refit, fit->fallback_b);
	for (p = 0; p < d->nr_unused; p++)
		if (d->slot[p] != -1 &&
		    fabs(event_t(d, p) - (a + b * (double)d->slot[p]) - centre) <= inlier)
			fit_add(&refit, (double)d->slot[p], event_t(d, p));
	if (refit.n >= 2)
		*fit = refit;
	return seen;
}

static void train_measure(const struct detector *d, struct train *train)
{
	double origin = -(double)d->events[0].t_ns, phase, background_rate, window;
	uint64_t others;

	/* slots between the run's start (t = origin) and its end */
	phase = fmod(train->a - origin, train->b);
	if (phase < 0)
		phase += train->b;
	train->expected = phase <= (double)d->run_ns ?
				  (uint64_t)(((double)d->run_ns - phase) / train->b) + 1 :
				  0;
	/* background events landing in the train's windows by chance */
	others = d->nr_unused > train->seen ? d->nr_unused - train->seen : 0;
	background_rate = (double)others / (double)(d->run_ns ? d->run_ns : 1);
	window = 2 * train->tolerance;
	train->chance = (double)train->expected * (1 - exp(-background_rate * window));
}

static bool train_significant(const struct train *train)
{
	if (train->seen < MIN_SEEN || !train->expected)
		return false;
	if ((double)train->seen < MIN_FILL * (double)train->expected)
		return false;
	return (double)train->seen > train->chance + 4 * sqrt(train->chance) + 3;
}

/*
 * The train explaining the most occurrences beyond chance wins; near ties go
 * to the fuller train, which is the fundamental rather than a sub-harmonic.
 */
static bool train_better(const struct train *a, const struct train *b)
{
	double score_a = (double)a->seen - a->chance, score_b = (double)b->seen - b->chance;
	double fill_a = (double)a->seen / (double)a->expected;
	double fill_b = (double)b->seen / (double)b->expected;

	if (score_a > 1.05 * score_b)
		return true;
	if (score_b > 1.05 * score_a)
		return false;
	if (fabs(fill_a - fill_b) > 1e-9)
		return fill_a > fill_b;
	return a->period < b->period;
}

static double initial_tolerance(double period)
{
	return fmin(fmax(TOLERANCE_FRACTION * period, MIN_TOLERANCE_NS), period / 4);
}

/*
 * From a rough line to a train: sweep every event against the line, narrow
 * the window to the train's own spread (occurrences of a real source
 * cluster tightly around its slots while background events spread over the
 * whole window, so a tight window keeps the first and sheds the second),
 * and measure it. Background scattered over the window never narrows it:
 * then there is no train.
 */
static bool settle_train(struct detector *d, const struct line_fit *line, double period,
			 double tolerance, struct train *train)
{
	double first_tolerance = tolerance, spread, narrower;
	struct line_fit fit = *line;
	uint64_t seen = 0;
	int round;

	for (round = 0; round < 3; round++) {
		seen = sweep(d, &fit, tolerance, &spread);
		narrower = fmax(4 * spread, MIN_TOLERANCE_NS);
		if (narrower >= tolerance)
			break;
		tolerance = narrower;
	}
	train->seen = sweep(d, &fit, tolerance, &spread);
	if (!seen || (tolerance >= first_tolerance && tolerance > MIN_TOLERANCE_NS))
		return false;
	train->period = period;
	train->tolerance = tolerance;
	train->a = fit_intercept(&fit);
	train->b = fit_slope(&fit);
	train_measure(d, train);
	return true;
}

struct seed {
	size_t position;
	double period; /* the seed's own first difference */
	double irregularity; /* |second difference|: ~0 for a real train */
};

/*
 * A member of a train has a partner one period later and another one
 * period after that, at the same spacing: its second difference is about
 * the train's jitter, while a background event's is anything up to the
 * window. The first difference of a good seed also gives the period far
 * more precisely than the candidate's bin.
 */
static bool seed_quality(const struct detector *d, size_t position, double period, double tolerance,
			 struct seed *seed)
{
	double t0 = event_t(d, position), t1 = 0, t2 = 0, best, distance;
	size_t p;

	best = tolerance;
	for (p = position_at(d, t0 + period - tolerance);
	     p < d->nr_unused && event_t(d, p) <= t0 + period + tolerance; p++) {
		distance = fabs(event_t(d, p) - (t0 + period));
		if (distance <= best) {
			best = distance;
			t1 = event_t(d, p);
		}
	}
	if (t1 == 0)
		return false;
	best = tolerance;
	for (p = position_at(d, 2 * t1 - t0 - tolerance);
	     p < d->nr_unused && event_t(d, p) <= 2 * t1 - t0 + tolerance; p++) {
		distance = fabs(event_t(d, p) - (2 * t1 - t0));
		if (distance <= best) {
			best = distance;
			t2 = event_t(d, p);
		}
	}
	if (t2 == 0)
		return false;
	seed->position = position;
	seed->period = t1 - t0;
	seed->irregularity = fabs(t2 - 2 * t1 + t0);
	return true;
}

#define MAX_SEED_PROBES 20000

static size_t pick_seeds(const struct detector *d, double period, double tolerance,
			 struct seed *seeds)
{
	size_t p, n = 0, i, stride = d->nr_unused / MAX_SEED_PROBES + 1;
	struct seed seed;

	for (p = 0; p < d->nr_unused; p += stride) {
		if (!seed_quality(d, p, period, tolerance, &seed))
			continue;
		if (n == MAX_SEEDS && seed.irregularity >= seeds[n - 1].irregularity)
			continue;
		if (n < MAX_SEEDS)
			n++;
		/* keep the list sorted, most regular first */
		for (i = n - 1; i > 0 && seeds[i - 1].irregularity > seed.irregularity; i--)
			seeds[i] = seeds[i - 1];
		seeds[i] = seed;
	}
	return n;
}

static bool fit_candidate(struct detector *d, double period, struct train *train)
{
	double tolerance = initial_tolerance(period);
	struct seed seeds[MAX_SEEDS];
	struct walk best = { 0 }, walk;
	uint64_t best_accepted = 0;
	size_t nr_seeds, i;

	nr_seeds = pick_seeds(d, period, tolerance, seeds);
	for (i = 0; i < nr_seeds; i++) {
		walk_from(d, seeds[i].position, seeds[i].period, tolerance, &walk);
		/* the tightest of the long chains: a real train hugs its line */
		if (!best_accepted || (double)walk.accepted > 2.0 * (double)best.accepted ||
		    ((double)walk.accepted * 2.0 >= (double)best.accepted &&
		     walk.spread < best.spread)) {
			best = walk;
			best_accepted = walk.accepted;
		}
	}
	if (best_accepted < 2)
		return false;
	return settle_train(d, &best.fit, period, tolerance, train);
}

static int compare_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a < b ? -1 : a > b;
}

/* Whether source @inner is nested, at any depth, in source @outer. */
static bool nested_within(const struct detector *d, uint8_t inner, uint8_t outer)
{
	unsigned int depth;

	for (depth = 0; inner < PERIOD_MAX_SOURCES && depth < PERIOD_MAX_SOURCES; depth++) {
		inner = d->nested_in[inner];
		if (inner == outer)
			return true;
	}
	return false;
}

/* How many sources @index is nested in, one inside the other. */
static unsigned int nesting_depth(const struct detector *d, uint8_t index)
{
	unsigned int depth = 0;

	while (index < PERIOD_MAX_SOURCES && d->nested_in[index] != PERIOD_UNASSIGNED &&
	       depth < PERIOD_MAX_SOURCES) {
		index = d->nested_in[index];
		depth++;
	}
	return depth;
}

/*
 * Whether an event of source @owner on a slot of source @index is an
 * occurrence of @index too: @owner is nested in @index, or in what @index
 * is nested in (where two sources nested in one meet, the slots went to
 * one of them, and both were there).
 */
static bool holds_slots_of(const struct detector *d, uint8_t owner, uint8_t index)
{
	uint8_t outer = d->nested_in[index];

	return owner != index && owner != PERIOD_UNASSIGNED &&
	       (nested_within(d, owner, index) ||
		(outer != PERIOD_UNASSIGNED && nested_within(d, owner, outer)));
}

/*
 * The slots of @index's line (t = a + b*k) that other sources hold for it
 * (holds_slots_of()) and it does not. An event counts on the slot it lies
 * on, within half the period of the train @index is nested in.
 */
static uint64_t nested_slots(const struct detector *d, uint8_t index, double a, double b)
{
	double origin = (double)d->events[0].t_ns, reach = b / 2, t;
	uint8_t outer = d->nested_in[index];
	int64_t slot, current = INT64_MIN;
	bool own = false, nested = false;
	uint64_t n = 0;
	size_t i;

	if (outer != PERIOD_UNASSIGNED)
		reach = (double)d->sources[outer].period_ns / 2;
	/* in time order the slots never go back: one group of events per slot */
	for (i = 0; i <= d->nr_events; i++) {
		slot = INT64_MAX;
		if (i < d->nr_events) {
			if (d->owner[i] != index && !holds_slots_of(d, d->owner[i], index))
				continue;
			t = (double)d->events[i].t_ns - origin;
			slot = nearest_slot(t, a, b);
			if (fabs(t - (a + b * (double)slot)) > reach)
				continue;
		}
		if (slot != current) {
			n += nested && !own;
			own = nested = false;
			current = slot;
		}
		if (i < d->nr_events) {
			own |= d->owner[i] == index;
			nested |= d->owner[i] != index;
		}
	}
	return n;
}

static int compare_i64(const void *x, const void *y)
{
	int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;

	return a < b ? -1 : a > b;
}

/*
 * The slots of free source @index with no occurrence of its own or held
 * for it (holds_slots_of()) where a free faster source's occurrence, near
 * the slot, lasted longer than that source's median by half of @index's:
 * the two came together and one gap holds both (a thread waking 50 us
 * after the host's tick while the tick's gap lasted into its spin, the gap
 * going to the tick's train). Whether @index was there cannot be seen, so
 * these are not among its occurrences (its causes are counted from those).
 */
static int hidden_slots(const struct detector *d, uint8_t index, const struct period_source *source,
			uint64_t *hidden)
{
	double origin = (double)d->events[0].t_ns, b = (double)source->period_ns;
	double a = (double)source->phase_ns - origin, t;
	int64_t *taken, *inside, k, last_k = (int64_t)floor(((double)d->run_ns - origin - a) / b);
	size_t nr_taken = 0, nr_inside = 0, i;

	*hidden = 0;
	if (!d->nr_events || b <= 0 || d->nested_in[index] != PERIOD_UNASSIGNED)
		return 0;
	taken = malloc(d->nr_events * sizeof(*taken));
	inside = malloc(d->nr_events * sizeof(*inside));
	if (!taken || !inside) {
		free(taken);
		free(inside);
		return -ENOMEM;
	}
	for (i = 0; i < d->nr_events; i++) {
		const struct period_source *faster;

		if (d->owner[i] == PERIOD_UNASSIGNED)
			continue;
		faster = &d->sources[d->owner[i]];
		t = (double)d->events[i].t_ns - origin;
		k = nearest_slot(t, a, b);
		if (d->owner[i] == index || holds_slots_of(d, d->owner[i], index)) {
			taken[nr_taken++] = k;
			continue;
		}
		if ((double)faster->period_ns >= 0.998 * b ||
		    d->nested_in[d->owner[i]] != PERIOD_UNASSIGNED || k < 0 || k > last_k ||
		    fabs(t - (a + b * (double)k)) > (double)faster->period_ns / 2 ||
		    d->events[i].duration_ns < faster->duration_ns + source->duration_ns / 2)
			continue;
		inside[nr_inside++] = k;
	}
	qsort(taken, nr_taken, sizeof(*taken), compare_i64);
	qsort(inside, nr_inside, sizeof(*inside), compare_i64);
	for (i = 0; i < nr_inside; i++)
		if ((!i || inside[i] != inside[i - 1]) &&
		    !bsearch(&inside[i], taken, nr_taken, sizeof(*taken), compare_i64))
			(*hidden)++;
	free(taken);
	free(inside);
	return 0;
}

/*
 * Statistics of a source from the events assigned to it. Events falling in
 * the same slot are one occurrence (an interrupt and the softirq after it
 * are two gaps of one tick): their durations add up, the first one times it.
 * The slots other sources hold for it count as seen (holds_slots_of()): it
 * was there, inside their gaps.
 */
static int describe_source(const struct detector *d, uint8_t index, struct period_source *source)
{
	double origin = (double)d->events[0].t_ns, period = (double)source->period_ns;
	double a, b, sum_squares = 0, phase, first = 0;
	uint64_t *durations, n = 0, i;
	int64_t slot, previous_slot = INT64_MIN;
	struct line_fit fit;

	durations = malloc(d->nr_events * sizeof(*durations));
	if (!durations)
		return -ENOMEM;
	fit_reset(&fit, period);
	for (i = 0; i < d->nr_events; i++) {
		double t = (double)d->events[i].t_ns - origin;

		if (d->owner[i] != index)
			continue;
		/* slots counted from the first occurrence: jitter stays well
		 * below half a period, so rounding cannot skip a slot */
		if (!n && previous_slot == INT64_MIN)
			first = t;
		slot = nearest_slot(t, first, period);
		if (slot == previous_slot) {
			durations[n - 1] += d->events[i].duration_ns;
			continue;
		}
		fit_add(&fit, (double)slot, t);
		durations[n++] = d->events[i].duration_ns;
		previous_slot = slot;
	}
	a = fit_intercept(&fit);
	b = fit_slope(&fit);
	previous_slot = INT64_MIN;
	for (i = 0; i < d->nr_events; i++) {
		double t = (double)d->events[i].t_ns - origin, r;

		if (d->owner[i] != index)
			continue;
		slot = nearest_slot(t, a, b);
		if (slot == previous_slot)
			continue;
		previous_slot = slot;
		r = t - (a + b * (double)slot);
		sum_squares += r * r;
	}
	qsort(durations, n, sizeof(*durations), compare_u64);
	phase = fmod(a + origin, b);
	if (phase < 0)
		phase += b;
	source->period_ns = (uint64_t)llround(b);
	source->phase_ns = (uint64_t)llround(phase);
	source->jitter_ns = n ? (uint64_t)llround(sqrt(sum_squares / (double)n)) : 0;
	source->duration_ns = n ? durations[(n - 1) / 2] : 0;
	source->max_duration_ns = n ? durations[n - 1] : 0;
	/*
	 * A nested source's gaps hold the faster one's occurrence, and that
	 * one's the occurrence of any it is nested in: what it adds to them.
	 */
	source->nested_in = d->nested_in[index];
	if (source->nested_in != PERIOD_UNASSIGNED) {
		uint64_t faster = 0;
		unsigned int depth;
		uint8_t outer;

		for (outer = source->nested_in, depth = 0;
		     outer < PERIOD_MAX_SOURCES && depth < PERIOD_MAX_SOURCES;
		     outer = d->nested_in[outer], depth++)
			faster += d->sources[outer].duration_ns;

		source->duration_ns =
			source->duration_ns > faster ? source->duration_ns - faster : 0;
		source->max_duration_ns =
			source->max_duration_ns > faster ? source->max_duration_ns - faster : 0;
	}
	source->seen = n + nested_slots(d, index, a, b);
	source->expected =
		phase <= (double)d->run_ns ? (uint64_t)(((double)d->run_ns - phase) / b) + 1 : 0;
	/* a train may begin a little before the run's first event */
	if (source->seen > source->expected)
		source->expected = source->seen;
	free(durations);
	return 0;
}

static void collect_unused(struct detector *d)
{
	size_t i;

	d->nr_unused = 0;
	for (i = 0; i < d->nr_events; i++)
		if (d->owner[i] == PERIOD_UNASSIGNED)
			d->unused[d->nr_unused++] = i;
}

/*
 * A train at m times an earlier source's period whose slots fall on that
 * source's slots is the same source seen past its tolerance: merge it.
 */
/* how far after a slot the followers of an occurrence may come */
static double satellite_reach(double duration, double tolerance, double period)
{
	return fmin(fmax(4.0 * duration, SATELLITE_MIN_NS) + tolerance, period / 4);
}

/*
 * A train at m times an earlier source's period (m >= 1) whose slots fall
 * on that source's slots, or just after them where the followers of its
 * occurrences come, is the same source: merge it.
 */
static bool is_harmonic(const struct period_source *base, const struct period_source *other)
{
	double base_period = (double)base->period_ns, other_period = (double)other->period_ns;
	double m = round(other_period / base_period), tolerance, offset;

	if (m < 1 || fabs(other_period - m * base_period) > 0.002 * other_period)
		return false;
	tolerance = 3 * fmax(4 * (double)base->jitter_ns, MIN_TOLERANCE_NS);
	offset = fmod((double)other->phase_ns - (double)base->phase_ns, base_period);
	if (offset < 0)
		offset += base_period;
	return offset <= satellite_reach((double)base->duration_ns, tolerance, base_period) ||
	       base_period - offset <= tolerance;
}

/*
 * An occurrence often shows as more than one gap: the interrupt, then the
 * softirq or the switch back a few microseconds later. Those followers sit
 * just after the source's slots; left alone they would look like a train of
 * their own, or line up with any grid commensurate with the source. They
 * belong to the occurrence. Returns how many were taken.
 */
static size_t absorb_satellites(struct detector *d, const struct train *train, uint8_t index,
				const struct period_source *source)
{
	double origin = (double)d->events[0].t_ns, reach;
	size_t i, taken = 0;

	reach = satellite_reach((double)source->duration_ns, train->tolerance, train->b);
	for (i = 0; i < d->nr_events; i++) {
		double t = (double)d->events[i].t_ns - origin, residual;

		if (d->owner[i] != PERIOD_UNASSIGNED)
			continue;
		residual = t - (train->a + train->b * (double)nearest_slot(t, train->a, train->b));
		if (residual < -train->tolerance || residual > reach)
			continue;
		d->owner[i] = index;
		taken++;
	}
	return taken;
}

#define MAX_FOLD 10
#define FOLD_SHARE 0.6
#define FOLD_OTHERS 0.25

/*
 * Of the events the sub-harmonic @best took outside the folded train, how
 * many lie on the folded train's own line at the sub-harmonic's spacing,
 * within the folded train's tolerance. d->slot holds the folded train's
 * events, d->best_slot the sub-harmonic's.
 */
static uint64_t others_on_folded_line(const struct detector *d, const struct train *folded,
				      int64_t m)
{
	double step = folded->b / (double)m;
	uint64_t on = 0;
	size_t p;

	for (p = 0; p < d->nr_unused; p++) {
		double t = event_t(d, p);

		if (d->best_slot[p] == -1 || d->slot[p] != -1)
			continue;
		if (fabs(t - (folded->a + step * (double)nearest_slot(t, folded->a, step))) <=
		    folded->tolerance)
			on++;
	}
	return on;
}

static int64_t residue_of(int64_t slot, int64_t m)
{
	return ((slot % m) + m) % m;
}

#define FOLD_EMPTY 0.1
#define FOLD_EMPTY_SLOTS (10 * MIN_SEEN) /* per residue, for an empty one to mean something */

/* Count slots @first to @last of a line in @held, per residue modulo each m up to @max_m. */
static void count_slots(int64_t first, int64_t last, int64_t max_m,
			uint64_t held[MAX_FOLD + 1][MAX_FOLD])
{
	int64_t n = last - first + 1, m, r;

	for (m = 2; n > 0 && m <= max_m; m++) {
		for (r = 0; r < m; r++)
			held[m][r] += (uint64_t)(n / m);
		for (r = 0; r < n % m; r++)
			held[m][residue_of(first + r, m)]++;
	}
}

/*
 * Whether one residue of @best's slots modulo some m stays empty: a train
 * that never shows in a whole class of its slots, hundreds of them, is
 * slower trains in step (a 1 ms host train and a 2 ms thread half a
 * millisecond off it make a 0.5 ms grid with every fourth slot empty). A
 * slot inside another event's gap is not empty: that one swallowed it (a
 * 7 ms thread meeting a 5 ms one every 35 ms, a thread's longer spin every
 * third time running over the host's slot).
 */
static bool is_union(const struct detector *d, const struct train *best)
{
	uint64_t held[MAX_FOLD + 1][MAX_FOLD];
	int64_t m, r, max_m, first, last;
	double t;
	size_t i, p;

	max_m = (int64_t)fmin((double)best->expected / FOLD_EMPTY_SLOTS, MAX_FOLD);
	if (max_m < 2)
		return false;
	memset(held, 0, sizeof(held));
	for (i = 0, p = 0; i < d->nr_events; i++) {
		if (p < d->nr_unused && d->unused[p] == i && d->best_slot[p++] != -1) {
			count_slots(d->best_slot[p - 1], d->best_slot[p - 1], max_m, held);
			continue;
		}
		t = (double)(d->events[i].t_ns - d->events[0].t_ns);
		first = (int64_t)ceil((t - best->tolerance - best->a) / best->b);
		last = (int64_t)floor(
			(t + (double)d->events[i].duration_ns + best->tolerance - best->a) /
			best->b);
		count_slots(first, last, max_m, held);
	}
	for (m = 2; m <= max_m; m++)
		for (r = 0; r < m; r++)
			if ((double)held[m][r] < FOLD_EMPTY * (double)best->expected / (double)m)
				return true;
	return false;
}

/* Refit @best's events of residue @r modulo @m as a train at m times its period. */
static bool fold_residue(struct detector *d, const struct train *best, int64_t m, int64_t r,
			 struct train *folded)
{
	struct line_fit line;
	size_t p;

	fit_reset(&line, (double)m * best->b);
	for (p = 0; p < d->nr_unused; p++)
		if (d->best_slot[p] != -1 && residue_of(d->best_slot[p], m) == r)
			fit_add(&line, (double)((d->best_slot[p] - r) / m), event_t(d, p));
	return settle_train(d, &line, (double)m * best->b,
			    fmax(best->tolerance, initial_tolerance((double)m * best->b) / 4),
			    folded) &&
	       train_significant(folded);
}

/*
 * A grid at a fraction of the true period can gather more events than the
 * true train: every m-th slot holds the source, the others pick up events of
 * other trains near its slots (a 10 ms train drifting past the slots of a
 * 5 ms one makes a 2.5 ms grid look full). Such a train's occurrences crowd
 * into one residue of its slots modulo m; refit at m times the period then.
 * A source that merely loses every n-th occurrence (to another train landing
 * on it) also leaves one residue fuller than the others, but its other
 * residues lie on the folded train's own line, to its jitter: then it stays.
 * Counting residues cannot tell the two apart; the line can. A grid that is
 * slower trains in step (is_union()) is the one of them that explains the
 * most; the others are found in the rounds after.
 */
static void fold_subharmonic(struct detector *d, struct train *best)
{
	uint64_t residues[MAX_FOLD], top;
	struct train folded, chosen = { 0 };
	int64_t m, r, top_residue = 0, chosen_m = 0, chosen_residue = 0;
	bool a_union = is_union(d, best);
	size_t p;

	for (m = MAX_FOLD; m >= 2; m--) {
		if ((double)m * best->b > (double)d->max_period)
			continue;
		memset(residues, 0, sizeof(residues));
		for (p = 0; p < d->nr_unused; p++)
			if (d->best_slot[p] != -1)
				residues[residue_of(d->best_slot[p], m)]++;
		for (r = 0, top = 0; r < m; r++) {
			if (residues[r] > top) {
				top = residues[r];
				top_residue = r;
			}
		}
		if (!a_union && (double)top < FOLD_SHARE * (double)best->seen)
			continue;
		if (!fold_residue(d, best, m, top_residue, &folded))
			continue;
		if (a_union) {
			if (!chosen_m || train_better(&folded, &chosen)) {
				chosen = folded;
				chosen_m = m;
				chosen_residue = top_residue;
			}
			continue;
		}
		if ((double)others_on_folded_line(d, &folded, m) >
		    FOLD_OTHERS * (double)folded.seen)
			continue;
		*best = folded;
		memcpy(d->best_slot, d->slot, d->nr_unused * sizeof(*d->slot));
		return;
	}
	/* the sweep of the one chosen again: d->slot holds the last one tried */
	if (chosen_m && fold_residue(d, best, chosen_m, chosen_residue, &folded)) {
		*best = folded;
		memcpy(d->best_slot, d->slot, d->nr_unused * sizeof(*d->slot));
	}
}

#define MAX_ROUNDS (4 * PERIOD_MAX_SOURCES)
#define SPLIT_PART_JITTERS 3.0
#define MAX_PARTS 3

/*
 * How far train @b lies from @k / @parts of a period after train @a, both
 * of one period, or INFINITY when that is further than their jitters
 * allow: the phases of one train lie evenly apart to within a few of
 * their jitters, each fitted on hundreds of occurrences. (A thread waking
 * 73 us after every other tick of a host jittering by 9 us is no half of
 * that host's train: once it was merged with the host's odd ticks into a
 * 1 ms train.)
 */
static double split_part_error(const struct period_source *a, const struct period_source *b,
			       unsigned int k, unsigned int parts)
{
	double period = (double)a->period_ns, offset, error;

	if (fabs((double)b->period_ns - period) > 0.002 * period)
		return INFINITY;
	offset = fmod((double)b->phase_ns - (double)a->phase_ns + period, period);
	error = fabs(offset - period * k / parts);
	return error <= fmax(SPLIT_PART_JITTERS * hypot((double)a->jitter_ns, (double)b->jitter_ns),
			     4 * MIN_TOLERANCE_NS) ?
		       error :
		       INFINITY;
}

/*
 * The sources after @i that lie 1 / @parts, 2 / @parts, ... of a period
 * after it, the closest at each, highest index first into @part: true when
 * every phase is there.
 */
static bool find_parts(const struct period_source *sources, size_t nr_sources, size_t i,
		       unsigned int parts, size_t *part)
{
	unsigned int k, j;
	size_t c, swap;

	for (k = 1; k < parts; k++) {
		double error, closest = INFINITY;

		part[k - 1] = nr_sources;
		for (c = i + 1; c < nr_sources; c++) {
			error = split_part_error(&sources[i], &sources[c], k, parts);
			if (error < closest) {
				closest = error;
				part[k - 1] = c;
			}
		}
		if (part[k - 1] == nr_sources)
			return false;
		for (j = 0; j + 1 < k; j++)
			if (part[j] == part[k - 1])
				return false;
	}
	for (k = 1; k + 1 < parts; k++)
		for (j = k; j > 0 && part[j - 1] < part[j]; j--) {
			swap = part[j];
			part[j] = part[j - 1];
			part[j - 1] = swap;
		}
	return true;
}

/*
 * Of the events of source @train, the share falling in a slot of source
 * @base that already holds an occurrence of @base.
 */
static double share_on_occupied_slots(const struct detector *d, uint8_t base,
				      const struct period_source *base_source, uint8_t train)
{
	double period = (double)base_source->period_ns, phase = (double)base_source->phase_ns;
	uint64_t on = 0, all = 0;
	int64_t *slots = d->best_slot, k;
	size_t i, n = 0;

	/* best_slot is free between rounds: reuse it for the base's slots */
	for (i = 0; i < d->nr_events; i++)
		if (d->owner[i] == base)
			slots[n++] = (int64_t)llround(((double)d->events[i].t_ns - phase) / period);
	qsort(slots, n, sizeof(*slots), compare_i64);
	for (i = 0; i < d->nr_events; i++) {
		if (d->owner[i] != train)
			continue;
		k = (int64_t)llround(((double)d->events[i].t_ns - phase) / period);
		all++;
		if (bsearch(&k, slots, n, sizeof(*slots), compare_i64))
			on++;
	}
	return all ? (double)on / (double)all : 0;
}

/*
 * The source a new train repeats, or -1. A train in phase with a known
 * source at the same period is the followers of its occurrences. At m > 1
 * times the period it repeats the source only when it fills occurrences
 * the source missed; when it lands on occurrences the source already has,
 * it is a slower source that happens to share the phase (everything in a
 * guest is in step with the host's tick), and stays apart.
 */
static int repeated_source(const struct detector *d, const struct period_source *sources,
			   size_t nr_sources, const struct period_source *train)
{
	size_t c;

	for (c = 0; c < nr_sources; c++) {
		if (!is_harmonic(&sources[c], train))
			continue;
		if (llround((double)train->period_ns / (double)sources[c].period_ns) == 1 ||
		    share_on_occupied_slots(d, (uint8_t)c, &sources[c], (uint8_t)nr_sources) < 0.5)
			return (int)c;
	}
	return -1;
}

/*
 * Source @from becomes part of source @into: its events are @into's, and
 * the sources after it move down one place. Returns @into's new index.
 */
static uint8_t merge_source(struct detector *d, struct period_source *sources, struct train *trains,
			    size_t *nr_sources, uint8_t into, uint8_t from)
{
	size_t p, after = *nr_sources - from - 1;

	for (p = 0; p < d->nr_events; p++)
		if (d->owner[p] == from)
			d->owner[p] = into;
	for (p = 0; p < d->nr_events; p++)
		if (d->owner[p] != PERIOD_UNASSIGNED && d->owner[p] > from)
			d->owner[p]--;
	for (p = 0; p < *nr_sources; p++)
		if (d->nested_in[p] == from)
			d->nested_in[p] = into;
	for (p = 0; p < *nr_sources; p++)
		if (d->nested_in[p] != PERIOD_UNASSIGNED && d->nested_in[p] > from)
			d->nested_in[p]--;
	memmove(&sources[from], &sources[from + 1], after * sizeof(*sources));
	memmove(&trains[from], &trains[from + 1], after * sizeof(*trains));
	memmove(&d->nested_in[from], &d->nested_in[from + 1], after * sizeof(*d->nested_in));
	d->nested_in[*nr_sources - 1] = PERIOD_UNASSIGNED;
	(*nr_sources)--;
	return into > from ? into - 1 : into;
}

/*
 * Nested sources. A slower source in phase with a faster one lands on every
 * m-th of its slots: its gap swallows the faster one's (a guest's 4 ms tick
 * on every fourth of the host's 1 ms interruptions), or one thread does more
 * every m-th time (every third wake-up spins longer). The search sees one
 * train; what the occurrences are tells the two apart. Those of one residue
 * of the slots modulo m are longer than the others (by rank: the chance
 * that one of them outlasts one of the others, and by a quarter at the
 * median), or have a cause the others lack. Such a residue is a source of
 * its own at m times the period. A plain source's residues do not differ,
 * whatever m: its harmonics stay one source.
 *
 * The chance that a nested occurrence outlasts another one need only be 0.7: a spin
 * 50 us longer every third wake-up shows when other tasks of a busy CPU
 * lengthen a tenth of the gaps by more than that (the median test and the
 * z score keep chance and small shifts out).
 */
#define NEST_MIN_LONGER 0.7
#define NEST_MIN_RATIO 1.25 /* their median over the others' */
#define NEST_MIN_CAUSE 0.6 /* share of the nested ones with a cause, less the others' */
#define NEST_MIN_Z 6.0 /* thousands of moduli and residues are tried: only clear cases */
#define NEST_CLEARER 0.05 /* a larger modulus wins only when this much clearer */
/*
 * Occurrences times moduli tried, per source: a 1 ms train of a 10 s run is
 * searched for nested periods up to the usual third of the run, one of a
 * 60 s run up to 1.1 s, one of an hour up to 18 ms.
 */
#define NEST_WORK (1ULL << 26)
#define CAUSE_BITS 64

struct occurrence {
	int64_t slot;
	uint64_t duration;
	uint64_t causes;
	double rank; /* of its duration among the source's occurrences, from 1; ties share */
};

/* A source's occurrences, and what those of each residue modulo m add up to. */
struct residues {
	struct occurrence *occurrences; /* in slot order */
	struct occurrence **order; /* by duration */
	uint64_t n;
	int64_t m; /* the modulus counted last (count_residues()) */
	uint64_t *count; /* per residue */
	double *rank_sum;
	/*
	 * The places in order[] of each residue's occurrences, residue by
	 * residue (from start[r]), ascending: built for modulus m when a
	 * median is first asked for (by_residue_m), so that each median is
	 * a lookup, not a pass over all occurrences.
	 */
	size_t *by_residue;
	size_t *start;
	int64_t by_residue_m;
	uint32_t *with_cause; /* CAUSE_BITS per residue; NULL when no event has causes */
	uint64_t cause_total[CAUSE_BITS];
	double expected; /* slots of one residue within the run */
};

static void collect_occurrences(const struct detector *d, uint8_t index,
				const struct period_source *source, struct residues *x)
{
	struct occurrence *o = x->occurrences;
	size_t i;

	x->n = 0;
	for (i = 0; i < d->nr_events; i++) {
		const struct period_event *e = &d->events[i];
		int64_t slot;

		if (d->owner[i] != index)
			continue;
		slot = period_slot(source, e->t_ns);
		if (x->n && o[x->n - 1].slot == slot) {
			o[x->n - 1].duration += e->duration_ns;
			o[x->n - 1].causes |= e->causes;
			continue;
		}
		o[x->n++] = (struct occurrence){ slot, e->duration_ns, e->causes, 0 };
	}
}

static int compare_durations(const void *x, const void *y)
{
	const struct occurrence *a = *(const struct occurrence *const *)x;
	const struct occurrence *b = *(const struct occurrence *const *)y;

	return a->duration < b->duration ? -1 : a->duration > b->duration;
}

static void rank_durations(struct residues *x)
{
	size_t i, j, k;

	memset(x->cause_total, 0, sizeof(x->cause_total));
	for (i = 0; i < x->n; i++)
		x->order[i] = &x->occurrences[i];
	qsort(x->order, x->n, sizeof(*x->order), compare_durations);
	for (i = 0; i < x->n; i = j) {
		for (j = i + 1; j < x->n && x->order[j]->duration == x->order[i]->duration; j++)
			;
		for (k = i; k < j; k++)
			x->order[k]->rank = (double)(i + j + 1) / 2;
	}
	for (i = 0; i < x->n; i++)
		for (uint64_t c = x->occurrences[i].causes; c; c &= c - 1)
			x->cause_total[__builtin_ctzll(c)]++;
}

static void count_residues(struct residues *x, int64_t m)
{
	size_t i;
	int64_t r;

	x->m = m;
	x->by_residue_m = 0;
	memset(x->count, 0, (size_t)m * sizeof(*x->count));
	memset(x->rank_sum, 0, (size_t)m * sizeof(*x->rank_sum));
	if (x->with_cause)
		memset(x->with_cause, 0, (size_t)m * CAUSE_BITS * sizeof(*x->with_cause));
	/* slots ascend, mostly one by one: the residue follows without dividing */
	for (i = 0, r = x->n ? residue_of(x->occurrences[0].slot, m) : 0; i < x->n; i++) {
		uint64_t causes = x->occurrences[i].causes;

		if (i) {
			r += x->occurrences[i].slot - x->occurrences[i - 1].slot;
			if (r >= m)
				r %= m;
		}
		x->count[r]++;
		x->rank_sum[r] += x->occurrences[i].rank;
		for (; x->with_cause && causes; causes &= causes - 1)
			x->with_cause[r * CAUSE_BITS + __builtin_ctzll(causes)]++;
	}
}

/* Where each residue's occurrences stand in order[], for the modulus counted last. */
static void index_residues(struct residues *x)
{
	size_t i;
	int64_t r;

	x->start[0] = 0;
	for (r = 0; r < x->m; r++)
		x->start[r + 1] = x->start[r] + x->count[r];
	for (i = 0; i < x->n; i++) {
		r = residue_of(x->order[i]->slot, x->m);
		x->by_residue[x->start[r]++] = i;
	}
	/* each start moved up to the next one's: put them back */
	for (r = x->m; r > 0; r--)
		x->start[r] = x->start[r - 1];
	x->start[0] = 0;
	x->by_residue_m = x->m;
}

/*
 * The median duration of residue @r's occurrences (@inside) or the others'
 * (!@inside), modulo the modulus counted last: the one a sort by duration
 * puts in the middle, 0 when there is none. Every residue of a modulus may
 * be asked (a 1 ms train whose every second occurrence is longer shows at
 * every even modulus), so the medians are looked up in an index of the
 * occurrences by residue, one pass over them per modulus: a pass per
 * median made a 60 s run's 1 ms train take 50 s.
 */
static double residue_median(struct residues *x, int64_t r, bool inside)
{
	uint64_t mine = x->count[r], others = x->n - mine, k, low = 0, high = mine, q;
	const size_t *place;

	if (x->by_residue_m != x->m)
		index_residues(x);
	place = x->by_residue + x->start[r];
	if (inside)
		return mine ? (double)x->order[place[(mine - 1) / 2]]->duration : 0;
	if (!others)
		return 0;
	/*
	 * The k-th of the others stands at k + q in order[], q the residue's
	 * occurrences before it: the fewest q whose next one stands past k + q.
	 */
	k = (others - 1) / 2;
	while (low < high) {
		q = low + (high - low) / 2;
		if (place[q] - q > k)
			high = q;
		else
			low = q + 1;
	}
	return (double)x->order[k + low]->duration;
}

/*
 * How clearly residue @r's occurrences are another source's, from 0 (not
 * at all) through 0.5 + half the difference: the chance that one of them
 * outlasts one of the others, or the share of them with a cause less the
 * share of the others with it. Either must stand clear of chance.
 */
static double nested_score(struct residues *x, int64_t r)
{
	double a = (double)x->count[r], b = (double)x->n - a, n = (double)x->n;
	double longer, z, score = 0;
	unsigned int c;

	if (a < MIN_SEEN || b < MIN_SEEN || a < MIN_FILL * x->expected)
		return 0;
	longer = (x->rank_sum[r] - a * (a + 1) / 2) / (a * b);
	z = (longer - 0.5) / sqrt((n + 1) / (12 * a * b));
	if (longer >= NEST_MIN_LONGER && z >= NEST_MIN_Z &&
	    residue_median(x, r, true) >= NEST_MIN_RATIO * residue_median(x, r, false))
		score = longer;
	for (c = 0; x->with_cause && c < CAUSE_BITS; c++) {
		double with = (double)x->with_cause[r * CAUSE_BITS + c];
		double pooled = (double)x->cause_total[c] / n;
		double difference = with / a - ((double)x->cause_total[c] - with) / b;
		double error = sqrt(pooled * (1 - pooled) * (1 / a + 1 / b));

		if (difference >= NEST_MIN_CAUSE && error > 0 && difference / error >= NEST_MIN_Z)
			score = fmax(score, 0.5 + difference / 2);
	}
	return score;
}

struct nest {
	int64_t m, r;
	double score;
	uint8_t followers; /* a known source that is its followers, or PERIOD_UNASSIGNED */
};

/* Whether @a's period is a whole multiple of @b's (within 0.2%). */
static bool multiple_of(const struct period_source *a, const struct period_source *b)
{
	double pa = (double)a->period_ns, pb = (double)b->period_ns, m = pb ? round(pa / pb) : 0;

	return m >= 1 && fabs(pa - m * pb) <= 0.002 * pa;
}

/*
 * Where a nested train stands to another known source (not @base, nor what
 * @base is nested in). Its period must be a multiple of the other's for
 * them to meet at all, and @base's must not be (the other would meet every
 * slot of @base alike, not one residue). The other's slots just after its slots, at one
 * period, are its followers (its occurrences' softirqs, found as a train
 * while it hid in @base): they join it. Otherwise, the other's slots inside
 * its occurrences (@duration long), or its slots inside the other's
 * occurrences or among their followers, make it where the other meets
 * @base: where a 5 ms and a 7 ms thread meet every 35 ms, or a 7 ms thread
 * wakes just after every fourth 4 ms tick, the gaps are longer, but no
 * 35 ms or 28 ms source is there. Returns false for a meeting.
 */
static bool apart_from_others(const struct detector *d, const struct period_source *sources,
			      size_t nr_sources, uint8_t base, const struct period_source *train,
			      double duration, struct nest *nest)
{
	double period = (double)train->period_ns, other, m, offset, tolerance;
	size_t j;

	nest->followers = PERIOD_UNASSIGNED;
	for (j = 0; j < nr_sources; j++) {
		if (j == base || nested_within(d, base, (uint8_t)j) || !sources[j].period_ns)
			continue;
		other = (double)sources[j].period_ns;
		m = round(period / other);
		if (m < 1 || fabs(period - m * other) > 0.002 * period ||
		    multiple_of(&sources[base], &sources[j]))
			continue;
		tolerance = 3 * fmax(4 * (double)sources[j].jitter_ns, MIN_TOLERANCE_NS);
		/* from the train's slots to the other's next ones */
		offset = fmod((double)sources[j].phase_ns - (double)train->phase_ns, other);
		if (offset < 0)
			offset += other;
		if (m == 1 && offset <= satellite_reach(duration, tolerance, period) &&
		    nest->followers == PERIOD_UNASSIGNED) {
			nest->followers = (uint8_t)j;
			continue;
		}
		if (offset <= duration + tolerance ||
		    other - offset <=
			    satellite_reach((double)sources[j].duration_ns, tolerance, other))
			return false;
	}
	return true;
}

/*
 * The clearest residue of any modulus up to @max_m: for each modulus its
 * clearest residue that is not another source's meeting with @base; a
 * larger modulus only when clearly clearer (the 6 ms source in a 2 ms
 * train also shows at 12 ms).
 */
static bool clearest_residue(const struct detector *d, const struct period_source *sources,
			     size_t nr_sources, uint8_t base, struct residues *x, int64_t max_m,
			     struct nest *best)
{
	const struct period_source *s = &sources[base];
	struct period_source train = *s;
	int64_t m, r;
	bool found = false;

	for (m = 2; m <= max_m; m++) {
		struct nest here = { m, 0, 0, PERIOD_UNASSIGNED }, candidate = here;

		x->expected = (double)s->expected / (double)m;
		count_residues(x, m);
		for (r = 0; r < m; r++) {
			candidate.score = nested_score(x, r);
			if (candidate.score <= here.score)
				continue;
			candidate.r = r;
			train.period_ns = (uint64_t)m * s->period_ns;
			train.phase_ns =
				(s->phase_ns + (uint64_t)r * s->period_ns) % train.period_ns;
			if (apart_from_others(d, sources, nr_sources, base, &train,
					      residue_median(x, r, true), &candidate))
				here = candidate;
		}
		if (here.score > 0 && (!found || here.score > best->score + NEST_CLEARER)) {
			*best = here;
			found = true;
		}
	}
	return found;
}

static int64_t common_divisor(int64_t a, int64_t b)
{
	while (b) {
		int64_t r = a % b;

		a = b;
		b = r;
	}
	return a;
}

/*
 * The clearest nested train among @base's occurrences. Two of them meeting
 * (a thread's long spins every 6 ms and the 4 ms tick, both in its 2 ms
 * gaps, every 12 ms) make the clearest residue of all, each only half as
 * clear on its own: the other one lengthens half of the gaps it is
 * compared with. So the clearest residue r modulo m = m1 * m2 (m1 and m2
 * coprime, r modulo m the slots of r modulo m1 and of r modulo m2) yields
 * to the train of r modulo m1 when, away from the slots of r modulo m2,
 * that one's are clearly apart from those of neither; then the other shows
 * once it is gone (the smallest such m1 first). @rest is work space for
 * that.
 */
static bool find_nested(const struct detector *d, const struct period_source *sources,
			size_t nr_sources, uint8_t base, struct residues *x, struct residues *rest,
			int64_t max_m, struct nest *best)
{
	const struct period_source *s = &sources[base];
	struct period_source train = *s;
	struct nest meeting, factor;
	int64_t m1, m2;
	size_t i;

	if (!clearest_residue(d, sources, nr_sources, base, x, max_m, best))
		return false;
	meeting = *best;
	for (m1 = 2; m1 < meeting.m; m1++) {
		m2 = meeting.m / m1;
		if (meeting.m % m1 || common_divisor(m1, m2) != 1)
			continue;
		for (i = 0, rest->n = 0; i < x->n; i++)
			if (residue_of(x->occurrences[i].slot, m2) != meeting.r % m2)
				rest->occurrences[rest->n++] = x->occurrences[i];
		rank_durations(rest);
		count_residues(rest, m1);
		rest->expected = (double)s->expected / (double)m1 * (1 - 1 / (double)m2);
		factor = (struct nest){ m1, meeting.r % m1, 0, PERIOD_UNASSIGNED };
		factor.score = nested_score(rest, factor.r);
		train.period_ns = (uint64_t)m1 * s->period_ns;
		train.phase_ns =
			(s->phase_ns + (uint64_t)factor.r * s->period_ns) % train.period_ns;
		if (factor.score > 0 &&
		    apart_from_others(d, sources, nr_sources, base, &train,
				      residue_median(rest, factor.r, true), &factor)) {
			/* the smallest: the trains of the larger ones show after it */
			*best = factor;
			break;
		}
	}
	return true;
}

/* Give residue @nest of @base's slots to a new source nested in it. */
static int split_off(struct detector *d, struct period_source *sources, struct train *trains,
		     size_t *nr_sources, uint8_t base, const struct nest *nest)
{
	uint8_t inner = (uint8_t)*nr_sources;
	size_t i;
	int ret;

	for (i = 0; i < d->nr_events; i++)
		if (d->owner[i] == base &&
		    residue_of(period_slot(&sources[base], d->events[i].t_ns), nest->m) == nest->r)
			d->owner[i] = inner;
	d->nested_in[inner] = base;
	sources[inner].period_ns = (uint64_t)nest->m * sources[base].period_ns;
	trains[inner] = trains[base];
	(*nr_sources)++;
	if (nest->followers != PERIOD_UNASSIGNED) {
		if (base > nest->followers)
			base--;
		inner = merge_source(d, sources, trains, nr_sources, inner, nest->followers);
	}
	/* the faster one first: the nested one's durations are beyond its */
	ret = describe_source(d, base, &sources[base]);
	if (!ret)
		ret = describe_source(d, inner, &sources[inner]);
	trains[inner].b = (double)sources[inner].period_ns;
	trains[inner].a = (double)sources[inner].phase_ns - (double)d->events[0].t_ns;
	return ret;
}

static void residues_free(struct residues *x)
{
	free(x->occurrences);
	free(x->order);
	free(x->count);
	free(x->rank_sum);
	free(x->with_cause);
	free(x->by_residue);
	free(x->start);
}

/* Room for @n occurrences and @max_m residues; returns 0 or -ENOMEM. */
static int residues_alloc(struct residues *x, size_t n, int64_t max_m, bool causes)
{
	x->occurrences = malloc(n * sizeof(*x->occurrences));
	x->order = malloc(n * sizeof(*x->order));
	x->count = malloc((size_t)max_m * sizeof(*x->count));
	x->rank_sum = malloc((size_t)max_m * sizeof(*x->rank_sum));
	x->by_residue = malloc(n * sizeof(*x->by_residue));
	x->start = malloc(((size_t)max_m + 1) * sizeof(*x->start));
	if (causes)
		x->with_cause = malloc((size_t)max_m * CAUSE_BITS * sizeof(*x->with_cause));
	return x->occurrences && x->order && x->count && x->rank_sum && x->by_residue && x->start &&
			       (!causes || x->with_cause) ?
		       0 :
		       -ENOMEM;
}

/*
 * With the list full, the source a nested one of @occurrences takes the
 * place of: the one seen least, if less often; none that @base or another
 * source is nested in, nor @keep. Weak trains of irregular events (a disk's
 * interrupts, host stalls on a loaded machine) must not crowd out what a
 * strong source holds. Returns its index, or PERIOD_UNASSIGNED.
 */
static uint8_t weakest_source(const struct detector *d, const struct period_source *sources,
			      size_t nr_sources, uint8_t base, uint8_t keep, uint64_t occurrences)
{
	uint8_t weakest = PERIOD_UNASSIGNED;
	size_t j, k;

	for (j = 0; j < nr_sources; j++) {
		if (j == base || j == keep || nested_within(d, base, (uint8_t)j) ||
		    sources[j].seen >= occurrences ||
		    (weakest != PERIOD_UNASSIGNED && sources[j].seen >= sources[weakest].seen))
			continue;
		for (k = 0; k < nr_sources && d->nested_in[k] != j; k++)
			;
		if (k == nr_sources)
			weakest = (uint8_t)j;
	}
	return weakest;
}

/*
 * Split off the clearest nested source of @base, if any, making room in a
 * full list (weakest_source()); *split says whether, *removed how many
 * sources before @base went (followers merged into the nested one, the one
 * it replaced).
 */
static int split_one(struct detector *d, struct period_source *sources, struct train *trains,
		     size_t *nr_sources, size_t max_sources, uint8_t base, bool *split,
		     size_t *removed)
{
	struct residues x = { 0 }, rest = { 0 };
	const struct period_source *s = &sources[base];
	struct nest nest = { 0 };
	uint64_t n = 0, all_causes = 0, nested = 0;
	uint8_t weakest;
	int64_t max_m = 0;
	size_t i;
	int ret;

	*split = false;
	*removed = 0;
	for (i = 0; i < d->nr_events; i++) {
		n += d->owner[i] == base;
		all_causes |= d->owner[i] == base ? d->events[i].causes : 0;
	}
	if (n >= 2 * MIN_SEEN && s->period_ns)
		max_m = (int64_t)fmin(
			fmin((double)d->max_period / (double)s->period_ns, (double)n / MIN_SEEN),
			(double)NEST_WORK / (double)n);
	if (max_m < 2)
		return 0;
	ret = residues_alloc(&x, n, max_m, all_causes);
	if (!ret)
		ret = residues_alloc(&rest, n, max_m, all_causes);
	if (ret)
		goto out;
	collect_occurrences(d, base, s, &x);
	rank_durations(&x);
	if (!find_nested(d, sources, *nr_sources, base, &x, &rest, max_m, &nest))
		goto out;
	if (*nr_sources == max_sources) {
		for (i = 0; i < x.n; i++)
			nested += residue_of(x.occurrences[i].slot, nest.m) == nest.r;
		weakest = weakest_source(d, sources, *nr_sources, base, nest.followers, nested);
		if (weakest == PERIOD_UNASSIGNED)
			goto out;
		/* its events are free again */
		merge_source(d, sources, trains, nr_sources, PERIOD_UNASSIGNED, weakest);
		if (weakest < base) {
			base--;
			(*removed)++;
		}
		if (nest.followers != PERIOD_UNASSIGNED && nest.followers > weakest)
			nest.followers--;
	}
	*removed += nest.followers < base;
	ret = split_off(d, sources, trains, nr_sources, base, &nest);
	*split = !ret;
out:
	residues_free(&x);
	residues_free(&rest);
	return ret;
}

/*
 * A slower source the search found on its own, whose occurrences hold the
 * slots of a faster one (every m-th of them, which the faster one lacks:
 * the slower one's gap swallowed them), is nested in it, as a split would
 * have made it. The slowest such faster source is its place.
 */
static void link_nested(struct detector *d, const struct period_source *sources, size_t nr_sources)
{
	double inner, outer, m, offset, tolerance;
	size_t i, j, best;

	for (j = 0; j < nr_sources; j++) {
		if (d->nested_in[j] != PERIOD_UNASSIGNED)
			continue;
		inner = (double)sources[j].period_ns;
		for (i = 0, best = SIZE_MAX; i < nr_sources; i++) {
			outer = (double)sources[i].period_ns;
			m = outer ? round(inner / outer) : 0;
			if (i == j || m < 2 || fabs(inner - m * outer) > 0.002 * inner ||
			    (best != SIZE_MAX && sources[best].period_ns >= sources[i].period_ns) ||
			    nested_within(d, (uint8_t)i, (uint8_t)j))
				continue;
			tolerance = 3 * fmax(4 * (double)sources[i].jitter_ns, MIN_TOLERANCE_NS);
			/* from the slower one's slots to the faster one's next ones */
			offset = fmod((double)sources[i].phase_ns - (double)sources[j].phase_ns,
				      outer);
			if (offset < 0)
				offset += outer;
			if ((offset <= (double)sources[j].duration_ns + tolerance ||
			     outer - offset <= tolerance) &&
			    share_on_occupied_slots(d, (uint8_t)i, &sources[i], (uint8_t)j) < 0.5)
				best = i;
		}
		if (best != SIZE_MAX)
			d->nested_in[j] = (uint8_t)best;
	}
}

/* Every source, those split off included, until none has a nested one left. */
static int split_nested(struct detector *d, struct period_source *sources, struct train *trains,
			size_t *nr_sources, size_t max_sources)
{
	size_t i, removed;
	bool split;
	int ret;

	for (i = 0; i < *nr_sources; i++) {
		for (split = true; split;) {
			ret = split_one(d, sources, trains, nr_sources, max_sources, (uint8_t)i,
					&split, &removed);
			if (ret)
				return ret;
			i -= removed;
		}
	}
	return 0;
}

static int detect(struct detector *d, struct period_source *sources, size_t max_sources)
{
	struct candidate candidates[MAX_CANDIDATES];
	struct train trains[PERIOD_MAX_SOURCES];
	size_t nr_sources = 0, nr_candidates, c, i, p;
	int ret, round, owner, pass;
	unsigned int depth;

	d->sources = sources;
	for (round = 0; round < MAX_ROUNDS && nr_sources < max_sources; round++) {
		struct train best = { 0 }, train;
		bool found = false;

		collect_unused(d);
		if (d->nr_unused < MIN_SEEN)
			break;
		nr_candidates = find_candidates(d, candidates);
		for (c = 0; c < nr_candidates; c++) {
			if (!fit_candidate(d, candidates[c].period, &train) ||
			    !train_significant(&train))
				continue;
			if (!found || train_better(&train, &best)) {
				best = train;
				found = true;
				memcpy(d->best_slot, d->slot, d->nr_unused * sizeof(*d->slot));
			}
		}
		if (!found)
			break;
		fold_subharmonic(d, &best);
		for (p = 0; p < d->nr_unused; p++)
			if (d->best_slot[p] != -1)
				d->owner[d->unused[p]] = (uint8_t)nr_sources;
		sources[nr_sources].period_ns = (uint64_t)llround(best.b);
		ret = describe_source(d, (uint8_t)nr_sources, &sources[nr_sources]);
		if (ret)
			return ret;
		/* what repeats a known source in phase is that source again */
		owner = repeated_source(d, sources, nr_sources, &sources[nr_sources]);
		if (owner < 0) {
			trains[nr_sources++] = best;
			continue;
		}
		for (p = 0; p < d->nr_events; p++)
			if (d->owner[p] == nr_sources)
				d->owner[p] = (uint8_t)owner;
		ret = describe_source(d, (uint8_t)owner, &sources[owner]);
		if (ret)
			return ret;
	}
	/*
	 * a train the search found as two halves at twice its period, or as
	 * three phases at three times it (a jittery 1 ms host tick comes out
	 * as 3 ms trains when its window cannot narrow at 1 ms): its closest
	 * phases
	 */
	for (i = 0; i < nr_sources; i++) {
		unsigned int parts = 2, k;
		size_t part[MAX_PARTS - 1];

		while (parts <= MAX_PARTS) {
			if (!find_parts(sources, nr_sources, i, parts, part)) {
				parts++;
				continue;
			}
			for (k = 0; k + 1 < parts; k++)
				merge_source(d, sources, trains, &nr_sources, (uint8_t)i,
					     (uint8_t)part[k]);
			sources[i].period_ns /= parts;
			trains[i].b /= parts;
			ret = describe_source(d, (uint8_t)i, &sources[i]);
			if (ret)
				return ret;
			parts = 2;
		}
	}
	link_nested(d, sources, nr_sources);
	ret = split_nested(d, sources, trains, &nr_sources, max_sources);
	if (ret)
		return ret;
	/*
	 * The followers of each occurrence are part of it; nested sources
	 * take theirs first (the faster source's other slots lack them). Then
	 * every source is described again, each before those nested in it.
	 */
	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < nr_sources; i++)
			if ((d->nested_in[i] == PERIOD_UNASSIGNED) == (pass == 1))
				absorb_satellites(d, &trains[i], (uint8_t)i, &sources[i]);
	for (depth = 0; depth < PERIOD_MAX_SOURCES; depth++) {
		for (i = 0; i < nr_sources; i++) {
			if (nesting_depth(d, (uint8_t)i) != depth)
				continue;
			ret = describe_source(d, (uint8_t)i, &sources[i]);
			if (ret)
				return ret;
		}
	}
	/* counted once the list is final: the search ranks by what it saw */
	for (i = 0; i < nr_sources; i++) {
		ret = hidden_slots(d, (uint8_t)i, &sources[i], &sources[i].hidden);
		if (ret)
			return ret;
	}
	return (int)nr_sources;
}

static void sort_by_seen(struct period_source *sources, size_t n, uint8_t *owner, size_t nr_events)
{
	uint8_t order[PERIOD_MAX_SOURCES], rank[PERIOD_MAX_SOURCES];
	struct period_source sorted[PERIOD_MAX_SOURCES];
	size_t i, j;

	for (i = 0; i < n; i++)
		order[i] = (uint8_t)i;
	for (i = 1; i < n; i++)
		for (j = i; j > 0 && sources[order[j]].seen > sources[order[j - 1]].seen; j--) {
			uint8_t swap = order[j];

			order[j] = order[j - 1];
			order[j - 1] = swap;
		}
	for (i = 0; i < n; i++) {
		sorted[i] = sources[order[i]];
		rank[order[i]] = (uint8_t)i;
	}
	memcpy(sources, sorted, n * sizeof(*sources));
	for (i = 0; i < n; i++)
		if (sources[i].nested_in != PERIOD_UNASSIGNED)
			sources[i].nested_in = rank[sources[i].nested_in];
	for (i = 0; i < nr_events; i++)
		if (owner[i] != PERIOD_UNASSIGNED)
			owner[i] = rank[owner[i]];
}

int period_detect(const struct period_event *events, size_t nr_events,
		  const struct period_params *params, struct period_source *sources,
		  size_t max_sources, uint8_t *assignment)
{
	struct detector d = { 0 };
	int found = -ENOMEM;

	if (max_sources > PERIOD_MAX_SOURCES)
		max_sources = PERIOD_MAX_SOURCES;
	if (assignment)
		memset(assignment, PERIOD_UNASSIGNED, nr_events);
	if (nr_events < MIN_SEEN || !params->run_ns || !max_sources)
		return 0;
	d.events = events;
	d.nr_events = nr_events;
	d.run_ns = params->run_ns;
	d.min_period = params->min_period_ns ? params->min_period_ns : DEFAULT_MIN_PERIOD_NS;
	d.max_period = params->max_period_ns ? params->max_period_ns : params->run_ns / 3;
	if (d.max_period <= d.min_period)
		return 0;
	d.nr_bins = (size_t)(log((double)d.max_period / (double)d.min_period) / log(BIN_RATIO)) + 2;
	d.owner = malloc(nr_events);
	d.unused = malloc(nr_events * sizeof(*d.unused));
	d.slot = malloc(nr_events * sizeof(*d.slot));
	d.best_slot = malloc(nr_events * sizeof(*d.best_slot));
	d.octave_previous = malloc(nr_events * sizeof(*d.octave_previous));
	d.residuals = malloc(nr_events * sizeof(*d.residuals));
	d.bin_count = malloc(d.nr_bins * sizeof(*d.bin_count));
	d.bin_prefix = malloc((d.nr_bins + 1) * sizeof(*d.bin_prefix));
	d.bin_sum = malloc(d.nr_bins * sizeof(*d.bin_sum));
	memset(d.nested_in, PERIOD_UNASSIGNED, sizeof(d.nested_in));
	if (d.owner && d.unused && d.slot && d.best_slot && d.octave_previous && d.residuals &&
	    d.bin_count && d.bin_prefix && d.bin_sum) {
		memset(d.owner, PERIOD_UNASSIGNED, nr_events);
		found = detect(&d, sources, max_sources);
		if (found > 0)
			sort_by_seen(sources, (size_t)found, d.owner, nr_events);
		if (found >= 0 && assignment)
			memcpy(assignment, d.owner, nr_events);
	}
	free(d.owner);
	free(d.unused);
	free(d.slot);
	free(d.best_slot);
	free(d.octave_previous);
	free(d.residuals);
	free(d.bin_count);
	free(d.bin_prefix);
	free(d.bin_sum);
	return found;
}

int64_t period_slot(const struct period_source *source, uint64_t t_ns)
{
	if (!source->period_ns)
		return 0;
	return (int64_t)llround(((double)t_ns - (double)source->phase_ns) /
				(double)source->period_ns);
}

bool period_same_period(const struct period_source *a, const struct period_source *b)
{
	double pa = (double)a->period_ns, pb = (double)b->period_ns;

	return fabs(pa - pb) <= 0.002 * fmax(pa, pb);
}

size_t period_phase_groups(const struct period_source *sources, size_t n, size_t *group)
{
	size_t i, j, groups = 0;

	for (i = 0; i < n; i++) {
		group[i] = i;
		for (j = 0; j < i; j++) {
			if (group[j] == j && period_same_period(&sources[j], &sources[i]) &&
			    sources[j].nested_in == sources[i].nested_in) {
				group[i] = j;
				break;
			}
		}
		if (group[i] == i)
			groups++;
	}
	return groups;
}
