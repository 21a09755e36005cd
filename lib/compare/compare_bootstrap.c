// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compare_bootstrap.h"
#include "latscope/numerics.h"

void compare_boot_release(struct compare_boot *bt)
{
	free(bt->a);
	free(bt->b);
	memset(bt, 0, sizeof(*bt));
}

/*
 * One side's resampling. What is drawn are its top units: its runs (two or
 * more runs, or paired rounds), or the blocks of its one run; a resample is
 * how often each is drawn. The percentile of rank r of a resample is the
 * first bucket k at which sum over units of (times drawn) x (values of the
 * unit at or below k) reaches r: with every unit's cumulative counts at
 * hand (cum, bucket by bucket, the units side by side), each step of the
 * search is one short dot product, and the search starts at the pooled
 * percentile, near which a resample's falls. A run without blocks, alone
 * on its side, is drawn value by value instead (a multinomial).
 */
struct side {
	const struct compare_units *u;
	const struct bucket_hist *h;
	unsigned int nr_top;
	uint64_t *cum; /* cum[k * nr_top + t]: values of unit t at or below bucket k */
	uint64_t *top_count; /* values of each unit */
	uint32_t *times; /* how often each unit is in the resample */
	uint32_t *drawn; /* the units drawn at least once, and how many */
	unsigned int nr_drawn;
	unsigned int *start; /* the pooled percentile's bucket, per percentile */
	/* a run without blocks drawn value by value */
	bool values;
	uint64_t *counts; /* support entries */
	double *weights;
	unsigned int *draws;
};

/* the units a side resamples at the top: runs, or the blocks of its one run */
static bool by_runs(const struct compare_units *u, bool paired)
{
	return paired || u->nr_runs > 1;
}

/*
 * The units a side resamples at the top: its runs, or the blocks of its one
 * run, or the values of a run without blocks.
 */
static unsigned int top_units(const struct compare_units *u)
{
	uint64_t values = u->nr_runs ? u->runs[0].count : 0;

	if (u->nr_runs > 1)
		return u->nr_runs;
	if (u->nr_runs && u->runs[0].blocks)
		return u->runs[0].nr;
	return values > UINT32_MAX ? UINT32_MAX : (unsigned int)values;
}

/* unit @t's entries added into column @t of @cum, then made cumulative over the buckets */
static void cumulate(struct side *s, unsigned int t, const struct compare_unit *units,
		     unsigned int nr)
{
	const struct compare_units *u = s->u;
	unsigned int k, i;
	uint64_t sum = 0;
	size_t e;

	for (i = 0; i < nr; i++)
		for (e = units[i].first; e < units[i].first + units[i].nr; e++)
			s->cum[(size_t)u->index[e] * s->nr_top + t] += u->count[e];
	for (k = 0; k < u->support; k++) {
		sum += s->cum[(size_t)k * s->nr_top + t];
		s->cum[(size_t)k * s->nr_top + t] = sum;
	}
	s->top_count[t] = sum;
}

static int side_init(struct side *s, const struct compare_units *u, const struct bucket_hist *h,
		     bool paired, const double *percents, unsigned int nr_percents)
{
	unsigned int widest = 1, i, t;

	s->u = u;
	s->h = h;
	s->values = !by_runs(u, paired) && !u->runs[0].blocks;
	if (s->values) {
		for (i = 0; i < u->nr_units; i++)
			if (u->units[i].nr > widest)
				widest = u->units[i].nr;
		s->counts = calloc(u->support, sizeof(*s->counts));
		s->weights = malloc(widest * sizeof(*s->weights));
		s->draws = malloc(widest * sizeof(*s->draws));
		return s->counts && s->weights && s->draws ? 0 : -ENOMEM;
	}
	s->nr_top = by_runs(u, paired) ? u->nr_runs : u->runs[0].nr;
	s->cum = calloc((size_t)u->support * s->nr_top, sizeof(*s->cum));
	s->top_count = calloc(s->nr_top, sizeof(*s->top_count));
	s->times = calloc(s->nr_top, sizeof(*s->times));
	s->drawn = malloc(s->nr_top * sizeof(*s->drawn));
	s->start = malloc((nr_percents ? nr_percents : 1) * sizeof(*s->start));
	if (!s->cum || !s->top_count || !s->times || !s->drawn || !s->start)
		return -ENOMEM;
	for (t = 0; t < s->nr_top; t++) {
		if (by_runs(u, paired))
			cumulate(s, t, &u->units[u->runs[t].first], u->runs[t].nr);
		else
			cumulate(s, t, &u->units[u->runs[0].first + t], 1);
	}
	for (i = 0; i < nr_percents; i++) {
		uint64_t rank = (uint64_t)ceil(percents[i] / 100 * (double)h->count);

		s->start[i] = bucket_hist_rank_index(h, rank ? rank : 1);
	}
	return 0;
}

static void side_release(struct side *s)
{
	free(s->cum);
	free(s->top_count);
	free(s->times);
	free(s->drawn);
	free(s->start);
	free(s->counts);
	free(s->weights);
	free(s->draws);
}

/* unit @t drawn once more */
static void draw(struct side *s, unsigned int t)
{
	if (!s->times[t]++)
		s->drawn[s->nr_drawn++] = t;
}

/* the values of the resample at or below bucket @k */
static uint64_t at_or_below(const struct side *s, unsigned int k)
{
	const uint64_t *row = s->cum + (size_t)k * s->nr_top;
	uint64_t sum = 0;
	unsigned int i;

	for (i = 0; i < s->nr_drawn; i++)
		sum += s->times[s->drawn[i]] * row[s->drawn[i]];
	return sum;
}

/* the first bucket at which the resample reaches @rank, searched from @from */
static unsigned int find_rank(const struct side *s, uint64_t rank, unsigned int from)
{
	unsigned int last = s->u->support - 1, lo, hi, step = 1, mid;

	/* gallop to a bracket [lo, hi]: below lo too few, at hi enough */
	if (at_or_below(s, from) >= rank) {
		hi = from;
		for (;;) {
			if (hi < step) {
				lo = 0;
				if (at_or_below(s, 0) >= rank)
					return 0;
				break;
			}
			lo = hi - step;
			if (at_or_below(s, lo) < rank)
				break;
			hi = lo;
			step *= 2;
		}
	} else {
		lo = from;
		for (;;) {
			hi = last - lo < step ? last : lo + step;
			if (hi == last || at_or_below(s, hi) >= rank)
				break;
			lo = hi;
			step *= 2;
		}
	}
	/* at_or_below(lo) < rank <= at_or_below(hi) */
	while (hi - lo > 1) {
		mid = lo + (hi - lo) / 2;
		if (at_or_below(s, mid) >= rank)
			hi = mid;
		else
			lo = mid;
	}
	return hi;
}

/* the percentiles of the resample drawn, into @out; the draw is cleared */
static void read_drawn(struct side *s, const double *percents, unsigned int n, double *out)
{
	uint64_t total = 0, rank;
	unsigned int i;

	for (i = 0; i < s->nr_drawn; i++)
		total += s->times[s->drawn[i]] * s->top_count[s->drawn[i]];
	for (i = 0; i < n; i++) {
		rank = (uint64_t)ceil(percents[i] / 100 * (double)total);
		out[i] =
			(double)bucket_hist_value(s->h, find_rank(s, rank ? rank : 1, s->start[i]));
	}
	for (i = 0; i < s->nr_drawn; i++)
		s->times[s->drawn[i]] = 0;
	s->nr_drawn = 0;
}

/*
 * A run's values drawn one by one with replacement: a multinomial over its
 * buckets. GSL draws at most UINT32_MAX values; a larger run (hours of
 * noise loops) draws that many and scales them, which keeps the shape and
 * widens the spread a little.
 */
static void draw_values(struct side *s, gsl_rng *rng)
{
	const struct compare_units *u = s->u;
	const struct compare_unit *unit = &u->units[u->runs[0].first];
	unsigned int n = unit->count > UINT32_MAX ? UINT32_MAX : (unsigned int)unit->count;
	double scale = (double)unit->count / (double)(n ? n : 1);
	unsigned int k;

	if (!unit->nr)
		return;
	for (k = 0; k < unit->nr; k++)
		s->weights[k] = (double)u->count[unit->first + k];
	gsl_ran_multinomial(rng, unit->nr, n, s->weights, s->draws);
	for (k = 0; k < unit->nr; k++)
		s->counts[u->index[unit->first + k]] += (uint64_t)llround(s->draws[k] * scale);
}

/* the percentiles of the values drawn, into @out; the counts are cleared */
static void read_values(struct side *s, const double *percents, unsigned int n, double *out)
{
	uint64_t total = 0, seen = 0, rank;
	unsigned int i, p = 0;

	for (i = 0; i < s->u->support; i++)
		total += s->counts[i];
	for (i = 0; i < s->u->support && p < n; i++) {
		seen += s->counts[i];
		while (p < n) {
			rank = (uint64_t)ceil(percents[p] / 100 * (double)total);
			if (seen < (rank ? rank : 1))
				break;
			out[p++] = (double)bucket_hist_value(s->h, i);
		}
	}
	while (p < n)
		out[p++] = (double)s->h->max_ns;
	memset(s->counts, 0, s->u->support * sizeof(*s->counts));
}

/*
 * One resample of a side on its own, its percentiles into @out: as many
 * runs, drawn with replacement and taken whole; or the blocks (values) of
 * its one run. A run's own noise is already in how runs differ: drawing
 * its blocks again as well would count it twice (Davison and Hinkley
 * 1997, 3.8), which the simulations confirm (over 97% coverage for a 95%
 * interval).
 */
static void resample_side(struct side *s, gsl_rng *rng, const double *percents, unsigned int n,
			  double *out)
{
	unsigned int k;

	if (s->values) {
		draw_values(s, rng);
		read_values(s, percents, n, out);
		return;
	}
	for (k = 0; k < s->nr_top; k++)
		draw(s, (unsigned int)gsl_rng_uniform_int(rng, s->nr_top));
	read_drawn(s, percents, n, out);
}

/*
 * Blocks that still follow each other (lag-1 autocorrelation r > 0) hold
 * less than they seem: the variance of their mean is (1 + r) / (1 - r)
 * times that of independent ones. r is estimated from the blocks, which
 * underestimates it by about (1 + 3r) / n for n blocks (Kendall): that is
 * added back. Only for a side resampled in its blocks.
 */
static double residual_inflation(const struct compare_units *u)
{
	double r = u->lag1;

	if (u->nr_runs != 1 || !u->runs[0].blocks || isnan(r) || !u->runs[0].nr)
		return 1;
	r += (1 + 3 * r) / u->runs[0].nr;
	if (r <= 0)
		return 1;
	if (r > 0.9)
		r = 0.9;
	return (1 + r) / (1 - r);
}

int compare_boot_run(const struct compare_units *a, const struct bucket_hist *ha,
		     const struct compare_units *b, const struct bucket_hist *hb, bool paired,
		     const double *percents, unsigned int nr_percents, unsigned int replicates,
		     uint64_t seed, struct compare_boot *out)
{
	struct side sa = { 0 }, sb = { 0 };
	unsigned int r, k, pick;
	gsl_rng *rng = NULL;
	int ret;

	memset(out, 0, sizeof(*out));
	if (!a->nr_runs || !b->nr_runs || !ha->count || !hb->count || !replicates ||
	    (paired && a->nr_runs != b->nr_runs))
		return -EINVAL;
	numerics_init();
	out->replicates = replicates;
	out->nr_percents = nr_percents;
	out->paired = paired;
	out->units_a = paired ? a->nr_runs : top_units(a);
	out->units_b = paired ? b->nr_runs : top_units(b);
	out->inflate_a = paired ? 1 : residual_inflation(a);
	out->inflate_b = paired ? 1 : residual_inflation(b);
	out->a = malloc((size_t)replicates * nr_percents * sizeof(*out->a));
	out->b = malloc((size_t)replicates * nr_percents * sizeof(*out->b));
	rng = gsl_rng_alloc(gsl_rng_mt19937);
	ret = out->a && out->b && rng ? 0 : -ENOMEM;
	if (!ret)
		ret = side_init(&sa, a, ha, paired, percents, nr_percents);
	if (!ret)
		ret = side_init(&sb, b, hb, paired, percents, nr_percents);
	if (ret)
		goto out;
	gsl_rng_set(rng, (unsigned long)seed);
	for (r = 0; r < replicates; r++) {
		double *ra = out->a + (size_t)r * nr_percents,
		       *rb = out->b + (size_t)r * nr_percents;

		if (!paired) {
			resample_side(&sa, rng, percents, nr_percents, ra);
			resample_side(&sb, rng, percents, nr_percents, rb);
			continue;
		}
		/* a round pair drawn for both sides at once */
		for (k = 0; k < a->nr_runs; k++) {
			pick = (unsigned int)gsl_rng_uniform_int(rng, a->nr_runs);
			draw(&sa, pick);
			draw(&sb, pick);
		}
		read_drawn(&sa, percents, nr_percents, ra);
		read_drawn(&sb, percents, nr_percents, rb);
	}
out:
	side_release(&sa);
	side_release(&sb);
	if (rng)
		gsl_rng_free(rng);
	return ret;
}

static int compare_doubles(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return a < b ? -1 : a > b;
}

/* the value below which @fraction of the sorted @v lie (linear between order statistics) */
static double quantile(const double *v, unsigned int n, double fraction)
{
	double at = fraction * (n - 1);
	unsigned int i = (unsigned int)floor(at);

	if (i + 1 >= n)
		return v[n - 1];
	return v[i] + (at - i) * (v[i + 1] - v[i]);
}

/* the variance of column @p of the resamples in @v (divisor n) */
static double variance(const double *v, unsigned int replicates, unsigned int stride,
		       unsigned int p)
{
	double mean = 0, sum = 0;
	unsigned int r;

	for (r = 0; r < replicates; r++)
		mean += v[(size_t)r * stride + p];
	mean /= replicates;
	for (r = 0; r < replicates; r++) {
		double d = v[(size_t)r * stride + p] - mean;

		sum += d * d;
	}
	return sum / replicates;
}

int compare_boot_interval(const struct compare_boot *bt, unsigned int p, int64_t diff_ns,
			  double confidence, struct compare_boot_interval *out)
{
	double *d = malloc(bt->replicates * sizeof(*d));
	double lo, hi, va, vb, v, inflated, z, t, scale;
	unsigned int r, na = bt->units_a, nb = bt->units_b;

	memset(out, 0, sizeof(*out));
	if (!d)
		return -ENOMEM;
	if (na < 2 || nb < 2) {
		free(d);
		return -EDOM;
	}
	for (r = 0; r < bt->replicates; r++)
		d[r] = bt->b[(size_t)r * bt->nr_percents + p] -
		       bt->a[(size_t)r * bt->nr_percents + p];
	if (bt->paired) {
		v = variance(d, bt->replicates, 1, 0);
		inflated = v * na / (na - 1.0);
		out->df = na - 1.0;
		out->units = na;
	} else {
		va = variance(bt->a, bt->replicates, bt->nr_percents, p);
		vb = variance(bt->b, bt->replicates, bt->nr_percents, p);
		v = va + vb;
		va *= na / (na - 1.0) * bt->inflate_a;
		vb *= nb / (nb - 1.0) * bt->inflate_b;
		inflated = va + vb;
		/* Welch-Satterthwaite; a side that did not vary adds no uncertainty */
		out->df = inflated > 0 ? inflated * inflated /
						 (va * va / (na - 1.0) + vb * vb / (nb - 1.0)) :
					 (double)(na < nb ? na : nb) - 1;
		out->units = na < nb ? na : nb;
	}
	qsort(d, bt->replicates, sizeof(*d), compare_doubles);
	lo = quantile(d, bt->replicates, (1 - confidence) / 2);
	hi = quantile(d, bt->replicates, (1 + confidence) / 2);
	free(d);
	z = gsl_cdf_ugaussian_Pinv((1 + confidence) / 2);
	t = gsl_cdf_tdist_Pinv((1 + confidence) / 2, out->df);
	scale = v > 0 ? t / z * sqrt(inflated / v) : 1;
	/*
	 * Each side at least t standard errors from the estimate: with few
	 * units the resamples take few distinct values, and their quantiles
	 * alone fall short of the t interval they should approach
	 */
	lo = (double)diff_ns - fmax(((double)diff_ns - lo) * scale, t * sqrt(inflated));
	hi = (double)diff_ns + fmax((hi - (double)diff_ns) * scale, t * sqrt(inflated));
	out->ci_ns[0] = (int64_t)floor(lo);
	out->ci_ns[1] = (int64_t)ceil(hi);
	out->se_ns = sqrt(inflated);
	out->half_ns = (hi - lo) / 2;
	return 0;
}

int compare_boot_side_interval(const struct compare_boot *bt, bool b_side, unsigned int p,
			       uint64_t value_ns, double confidence, uint64_t ci_ns[2])
{
	const double *from = b_side ? bt->b : bt->a;
	unsigned int n = b_side ? bt->units_b : bt->units_a, r;
	double inflate = b_side ? bt->inflate_b : bt->inflate_a;
	double *v, lo, hi, scale, value = (double)value_ns;

	if (n < 2)
		return -EDOM;
	v = malloc(bt->replicates * sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (r = 0; r < bt->replicates; r++)
		v[r] = from[(size_t)r * bt->nr_percents + p];
	qsort(v, bt->replicates, sizeof(*v), compare_doubles);
	lo = quantile(v, bt->replicates, (1 - confidence) / 2);
	hi = quantile(v, bt->replicates, (1 + confidence) / 2);
	free(v);
	scale = gsl_cdf_tdist_Pinv((1 + confidence) / 2, n - 1.0) /
		gsl_cdf_ugaussian_Pinv((1 + confidence) / 2) * sqrt(n / (n - 1.0) * inflate);
	lo = value - (value - lo) * scale;
	hi = value + (hi - value) * scale;
	ci_ns[0] = lo > 0 ? (uint64_t)floor(lo) : 0;
	ci_ns[1] = hi > 0 ? (uint64_t)ceil(hi) : 0;
	return 0;
}

/* t at the interval's level for @units units */
static double interval_factor(double units, double confidence)
{
	return gsl_cdf_tdist_Pinv((1 + confidence) / 2, units - 1);
}

/* (t at the interval's level + t at 80% power) for @units units */
static double power_factor(double units, double confidence)
{
	return interval_factor(units, confidence) + gsl_cdf_tdist_Pinv(0.8, units - 1);
}

/*
 * The fewest units (2, 3... then 5% steps up to a million) at which
 * @factor(n) x the spread of one unit / sqrt(n) is within @target_ns;
 * UINT32_MAX when none is.
 */
static unsigned int fewest_units(double per_unit_ns, double target_ns, double confidence,
				 double (*factor)(double units, double confidence))
{
	unsigned int n;

	for (n = 2; n <= 1000000; n += n < 100 ? 1 : n / 20)
		if (factor(n, confidence) * per_unit_ns / sqrt(n) <= target_ns)
			return n;
	return UINT32_MAX;
}

unsigned int compare_boot_units_to_decide(const struct compare_boot_interval *iv, double half_ns,
					  double confidence)
{
	if (!(half_ns > 0))
		return UINT32_MAX;
	return fewest_units(iv->se_ns * sqrt(iv->units), half_ns, confidence, interval_factor);
}

bool compare_boot_power(const struct compare_boot *bt, unsigned int p,
			const struct compare_boot_interval *iv, uint64_t baseline_ns,
			double confidence, uint64_t *detectable_ns, unsigned int *rounds_for_5pct)
{
	/*
	 * Power is about finding a change from nothing, so it needs the spread
	 * the paired differences would have without one. When B's change itself
	 * varies between rounds (a disturbance that meets the measurement in
	 * some rounds more than in others), the observed differences spread far
	 * more, and would ask for absurd round counts: then the spread is A's
	 * own, as if B varied as A does (what an unchanged B would show, without
	 * the credit pairing gives for drift that both sides share).
	 */
	double null_se = M_SQRT2 *
			 sqrt(variance(bt->a, bt->replicates, bt->nr_percents, p) * bt->inflate_a),
	       target = 0.05 * (double)baseline_ns;
	bool varies = iv->se_ns > null_se;
	double se = varies ? null_se : iv->se_ns;

	*detectable_ns = (uint64_t)ceil(power_factor(iv->units, confidence) * se);
	*rounds_for_5pct = fewest_units(se * sqrt(iv->units), target, confidence, power_factor);
	return varies;
}
