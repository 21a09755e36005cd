// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gev_checks.h"
#include "latscope/tail_estimate.h"

/* two-sided 1% point of the standard normal */
#define Z_995 2.5758293035489
/*
 * A lag-1 correlation below 0.1 is let pass however many blocks show it:
 * for an AR(1)-like dependence the effective number of blocks is
 * n (1 - r) / (1 + r), so intervals computed as if independent are then
 * too narrow by at most 10%.
 */
#define SMALL_AUTOCORRELATION 0.1
#define CHECK_LEVEL 0.01
/* below this shape maximum likelihood is not regular (Smith 1985) */
#define REGULAR_SHAPE (-0.5)

void tail_options_default(struct tail_options *o)
{
	memset(o, 0, sizeof(*o));
	o->confidence = 0.95;
	o->block_ns = 1000000000ULL;
	o->nr_periods = 3;
	o->periods_s[0] = 3600;
	o->periods_s[1] = TAIL_DAY_S;
	o->periods_s[2] = 365 * TAIL_DAY_S;
	o->target_halfwidth = 0.10;
}

static bool options_valid(const struct tail_options *o)
{
	unsigned int i;

	if (!(o->confidence > 0 && o->confidence < 1) || !o->block_ns ||
	    o->nr_periods > TAIL_MAX_LEVELS || !(o->target_halfwidth > 0))
		return false;
	for (i = 0; i < o->nr_periods; i++)
		if (!(o->periods_s[i] > 0) || !isfinite(o->periods_s[i]))
			return false;
	return true;
}

/* a duration in s as words: "3.2 h", "4.5 days", "2.1 years" */
static const char *duration_words(double s, char *buf, size_t size)
{
	if (s < 120)
		snprintf(buf, size, "%.0f s", s);
	else if (s < 7200)
		snprintf(buf, size, "%.0f min", s / 60);
	else if (s < 2 * TAIL_DAY_S)
		snprintf(buf, size, "%.1f h", s / 3600);
	else if (s < 730 * TAIL_DAY_S)
		snprintf(buf, size, "%.1f days", s / TAIL_DAY_S);
	else
		snprintf(buf, size, "%.1f years", s / (365 * TAIL_DAY_S));
	return buf;
}

static void estimate_level(const double *x, unsigned int n, const struct tail_estimate *t,
			   double confidence, double period_s, struct tail_level *l)
{
	double block_s = (double)t->block_ns / 1e9;
	int err;

	l->period_s = period_s;
	l->p = block_s / period_s;
	if (!(l->p < 1)) {
		snprintf(l->reason, sizeof(l->reason),
			 "a return period must be longer than a block (%g s)", block_s);
		return;
	}
	l->available = true;
	l->value_ns = gev_return_level(&t->fit.est, l->p);
	err = gev_profile_return_level(x, n, &t->fit, l->p, confidence, l->ci_ns);
	if (!err || err == -ERANGE)
		l->has_ci = true;
	if (err == -ERANGE)
		snprintf(l->reason, sizeof(l->reason),
			 "the data do not bound this level on one side: the interval is open");
	else if (err)
		snprintf(l->reason, sizeof(l->reason),
			 "no interval: the profile likelihood could not be followed");
}

static void check_shape(const double *x, unsigned int n, struct tail_estimate *t, double confidence)
{
	struct tail_check *c = &t->shape;
	const struct gev_params *g = &t->fit.est;
	int err = gev_profile_shape(x, n, &t->fit, confidence, c->ci);

	c->value = g->shape;
	c->bound = REGULAR_SHAPE;
	if (err && err != -ERANGE) {
		snprintf(c->says, sizeof(c->says),
			 "shape %.3f: its profile likelihood could not be followed", g->shape);
		return;
	}
	c->evaluated = true;
	if (err == -ERANGE) {
		snprintf(c->says, sizeof(c->says),
			 "shape %.3f: the data do not bound it on one side (interval %.3f .. %.3f)",
			 g->shape, c->ci[0], c->ci[1]);
		return;
	}
	c->pass = g->shape > REGULAR_SHAPE;
	if (!c->pass)
		snprintf(c->says, sizeof(c->says),
			 "shape %.3f (%.3f .. %.3f) is at or below -0.5, where maximum likelihood "
			 "is not regular (Smith 1985): its standard errors and intervals do not "
			 "hold",
			 g->shape, c->ci[0], c->ci[1]);
	else if (c->ci[0] > 0)
		snprintf(c->says, sizeof(c->says),
			 "shape %.3f (%.3f .. %.3f): a heavy tail; the return levels grow without "
			 "bound with the period",
			 g->shape, c->ci[0], c->ci[1]);
	else if (c->ci[1] < 0)
		snprintf(c->says, sizeof(c->says),
			 "shape %.3f (%.3f .. %.3f): the fit claims a bounded tail ending at "
			 "%.0f ns; such a bound fitted to latencies can be unsafe (Reghenzani et "
			 "al. 2018), read it as optimistic",
			 g->shape, c->ci[0], c->ci[1], g->loc - g->scale / g->shape);
	else
		snprintf(c->says, sizeof(c->says),
			 "shape %.3f (%.3f .. %.3f) is consistent with 0: an exponential "
			 "(Gumbel) tail",
			 g->shape, c->ci[0], c->ci[1]);
}

static void check_independence(const double *x, unsigned int n, struct tail_check *c)
{
	double allowed = Z_995 / sqrt((double)n);

	if (allowed < SMALL_AUTOCORRELATION)
		allowed = SMALL_AUTOCORRELATION;
	c->value = rank_lag1_autocorrelation(x, n);
	c->bound = allowed;
	if (isnan(c->value)) {
		snprintf(c->says, sizeof(c->says), "the autocorrelation could not be computed");
		return;
	}
	c->evaluated = true;
	c->pass = fabs(c->value) <= allowed;
	if (c->pass)
		snprintf(c->says, sizeof(c->says),
			 "lag-1 autocorrelation of the maxima's ranks %.3f is within +-%.3f: no "
			 "sign that successive blocks depend on each other",
			 c->value, allowed);
	else
		snprintf(c->says, sizeof(c->says),
			 "lag-1 autocorrelation of the maxima's ranks %.3f is beyond +-%.3f: "
			 "successive block maxima depend on each other (Griffin & Burns 2010), "
			 "so the intervals are too narrow",
			 c->value, allowed);
}

static int check_stationarity(const double *x, unsigned int n, struct tail_estimate *t)
{
	struct tail_check *c = &t->stationarity;
	char why[700];
	int err = gev_halves_test(x, n, &t->fit, &c->value, &c->bound, why, sizeof(why));

	if (err == -ENOMEM)
		return err;
	if (err) {
		snprintf(c->says, sizeof(c->says), "the halves cannot be compared: %s", why);
		return 0;
	}
	c->evaluated = true;
	c->pass = c->bound >= CHECK_LEVEL;
	if (c->pass)
		snprintf(c->says, sizeof(c->says),
			 "the first and second half fit the same GEV (likelihood ratio %.2f on 3 "
			 "degrees of freedom, p = %.3f)",
			 c->value, c->bound);
	else
		snprintf(c->says, sizeof(c->says),
			 "the first and second half differ (likelihood ratio %.2f on 3 degrees of "
			 "freedom, p = %.2g): the maxima changed during the run and the levels "
			 "describe neither half",
			 c->value, c->bound);
	return 0;
}

static void check_fit_quality(const double *x, unsigned int n, struct tail_estimate *t)
{
	struct tail_check *c = &t->fit_quality;

	c->value = gev_ppcc(x, n, t->fit.est.shape);
	c->bound = gev_ppcc_critical(n, t->fit.est.shape);
	if (isnan(c->value)) {
		snprintf(c->says, sizeof(c->says), "the probability plot could not be computed");
		return;
	}
	c->evaluated = true;
	c->pass = c->value >= c->bound;
	snprintf(c->says, sizeof(c->says),
		 "probability plot correlation %.4f is %s the 1%% critical value %.4f for %u "
		 "maxima of this shape%s",
		 c->value, c->pass ? "above" : "below", c->bound, n,
		 c->pass ? "" : ": the GEV does not describe these maxima");
}

static void exceedance(const double *x, unsigned int n, struct tail_estimate *t,
		       const struct tail_options *o)
{
	double blocks = TAIL_DAY_S * 1e9 / (double)o->block_ns;
	double log_g = gev_log_cdf(&t->fit.est, (double)o->budget_ns);
	int err;

	t->has_exceedance = true;
	t->budget_ns = o->budget_ns;
	/* + 0.0 turns the -0 of -expm1(0) into 0 */
	t->p_block = -expm1(log_g) + 0.0;
	t->p_day = -expm1(blocks * log_g) + 0.0;
	err = gev_profile_exceedance(x, n, &t->fit, (double)o->budget_ns, blocks, o->confidence,
				     t->p_day_ci);
	t->has_p_day_ci = !err || err == -ERANGE;
}

static void long_enough(const double *x, unsigned int n, struct tail_estimate *t,
			const struct tail_options *o)
{
	const struct tail_level *day = NULL;
	struct tail_level own;
	double v, hw;
	char a[32];
	unsigned int i;

	for (i = 0; i < t->nr_levels; i++)
		if (t->levels[i].period_s == TAIL_DAY_S)
			day = &t->levels[i];
	if (!day) {
		memset(&own, 0, sizeof(own));
		estimate_level(x, n, t, o->confidence, TAIL_DAY_S, &own);
		day = &own;
	}
	if (!day->available || !day->has_ci) {
		snprintf(t->long_enough.says, sizeof(t->long_enough.says),
			 "no 1-day return level interval: %s", day->reason);
		return;
	}
	v = day->value_ns;
	t->long_enough.value_ns = v;
	t->long_enough.ci_ns[0] = day->ci_ns[0];
	t->long_enough.ci_ns[1] = day->ci_ns[1];
	hw = fmax(v - day->ci_ns[0], day->ci_ns[1] - v) / v;
	t->long_enough.halfwidth = hw;
	if (!isfinite(hw) || !(v > 0)) {
		snprintf(t->long_enough.says, sizeof(t->long_enough.says),
			 "the 1-day return level's interval is open: this run cannot bound it, "
			 "and no run length can be projected from it");
		return;
	}
	t->long_enough.evaluated = true;
	t->long_enough.blocks_needed =
		ceil(n * (hw / o->target_halfwidth) * (hw / o->target_halfwidth));
	t->long_enough.seconds_needed = t->long_enough.blocks_needed * (double)o->block_ns / 1e9;
	t->long_enough.enough = hw <= o->target_halfwidth;
	if (t->long_enough.enough)
		snprintf(t->long_enough.says, sizeof(t->long_enough.says),
			 "the 1-day return level is known to +-%.1f%% from %u blocks: long enough "
			 "for +-%.0f%%",
			 hw * 100, n, o->target_halfwidth * 100);
	else
		snprintf(t->long_enough.says, sizeof(t->long_enough.says),
			 "the 1-day return level is known to +-%.1f%% from %u blocks; about %.0f "
			 "blocks (%s) would bring it to +-%.0f%% (the interval narrows as "
			 "1/sqrt(blocks), as the inverse of the observed information does)",
			 hw * 100, n, t->long_enough.blocks_needed,
			 duration_words(t->long_enough.seconds_needed, a, sizeof(a)),
			 o->target_halfwidth * 100);
}

static int compare_doubles(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/*
 * The fit, the profiles and the probability plot see the maxima as a set
 * and each would sort them again (a tenth of the time at 3,600 maxima):
 * they get them sorted once. The independence and the halves checks need
 * them in time order.
 */
int tail_estimate(const uint64_t *max_ns, unsigned int n, const struct tail_options *o,
		  struct tail_estimate *out)
{
	char why[700];
	double *x, *in_time;
	unsigned int i;
	int err;

	memset(out, 0, sizeof(*out));
	if (!options_valid(o) || (n && !max_ns))
		return -EINVAL;
	out->blocks = n;
	out->block_ns = o->block_ns;
	if (n < TAIL_MIN_BLOCKS) {
		snprintf(out->error, sizeof(out->error),
			 "only %u block maxima: at least %d are needed for any tail estimate", n,
			 TAIL_MIN_BLOCKS);
		return 0;
	}
	x = malloc(n * sizeof(*x));
	in_time = malloc(n * sizeof(*in_time));
	if (!x || !in_time) {
		free(x);
		free(in_time);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++)
		in_time[i] = x[i] = (double)max_ns[i];
	qsort(x, n, sizeof(*x), compare_doubles);
	err = gev_fit(x, n, &out->fit, why, sizeof(why));
	if (err == -ENOMEM)
		goto out;
	if (err) {
		snprintf(out->error, sizeof(out->error), "no GEV fit: %s", why);
		err = 0;
		goto out;
	}
	out->fitted = true;
	out->nr_levels = o->nr_periods;
	for (i = 0; i < o->nr_periods; i++)
		estimate_level(x, n, out, o->confidence, o->periods_s[i], &out->levels[i]);
	if (o->has_budget)
		exceedance(x, n, out, o);
	check_shape(x, n, out, o->confidence);
	check_independence(in_time, n, &out->independence);
	err = check_stationarity(in_time, n, out);
	if (err)
		goto out;
	check_fit_quality(x, n, out);
	long_enough(x, n, out, o);
	out->reliable = out->shape.pass && out->independence.pass && out->stationarity.pass &&
			out->fit_quality.pass;
out:
	free(x);
	free(in_time);
	return err;
}
