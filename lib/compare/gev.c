// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * GEV maximum likelihood (Coles 2001, section 3.3) with the analytic
 * gradient and Hessian of the negative log-likelihood.
 *
 * Per block maximum x, with z = (x - loc) / scale, u = shape z, y = 1 + u,
 * t = log(y) / shape (= z log1p(u) / u, which is z at shape 0) and
 * w = exp(-t) = y^(-1/shape):
 *
 *   nll = log(scale) + g,  g = log(y) + t + w.
 *
 * The derivatives of t with respect to the shape, A = dt/dshape and
 * B = dA/dshape, are differences of nearly equal terms near shape 0; below
 * |u| = 0.1 they come from their power series in u instead:
 *
 *   A = z^2 sum_{k>=1} (-1)^k k/(k+1) u^(k-1)
 *   B = z^3 sum_{j>=1} (-1)^(j+1) j(j+1)/(j+2) u^(j-1)
 *
 * so the fit is smooth through the Gumbel limit (shape 0). The same is
 * done for the return level's h(shape) = (y_p^-shape - 1) / shape.
 */
#include <errno.h>
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_linalg.h>
#include <gsl/gsl_multimin.h>
#include <gsl/gsl_sf_gamma.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "latscope/gev.h"
#include "latscope/numerics.h"

/*
 * Below |u| = 0.02 the series of A and B (see above) take 12 terms to
 * reach double precision (0.02^12 * 12^2 < 1e-18); above, the closed forms
 * lose at most two digits to cancellation.
 */
#define SERIES_BELOW 0.02
#define SERIES_TERMS 12
/* below -1 the likelihood has no maximum (it grows without bound as the
 * end point approaches the largest value, Smith 1985) */
#define SHAPE_FLOOR (-1.0)
#define EULER_GAMMA 0.57721566490153286

/* (-1)^k k/(k+1), k = 1.. */
static const double series_a_terms[SERIES_TERMS] = {
	-1.0 / 2, 2.0 / 3, -3.0 / 4,  4.0 / 5,	 -5.0 / 6,   6.0 / 7,
	-7.0 / 8, 8.0 / 9, -9.0 / 10, 10.0 / 11, -11.0 / 12, 12.0 / 13,
};

/* (-1)^(j+1) j(j+1)/(j+2), j = 1.. */
static const double series_b_terms[SERIES_TERMS] = {
	2.0 / 3,  -6.0 / 4,   12.0 / 5,	 -20.0 / 6,   30.0 / 7,	  -42.0 / 8,
	56.0 / 9, -72.0 / 10, 90.0 / 11, -110.0 / 12, 132.0 / 13, -156.0 / 14,
};

static double log1p_ratio(double u)
{
	return u == 0 ? 1 : log1p(u) / u;
}

/* sum_k terms[k] u^k, by Horner */
static double series(const double *terms, double u)
{
	double s = 0;
	int k;

	for (k = SERIES_TERMS - 1; k >= 0; k--)
		s = s * u + terms[k];
	return s;
}

/*
 * h(shape) = (y^-shape - 1) / shape = expm1(-shape L) / shape with
 * L = log(y), and its first two derivatives in the shape; -L, L^2/2,
 * -L^3/3 at shape 0.
 */
static void level_h(double shape, double L, double *h, double *h1, double *h2)
{
	double v = -shape * L;

	if (fabs(v) < 0.5) {
		/*
		 * c_k = (-L)^k / k!: h = sum_{k>=1} c_k shape^(k-1),
		 * h' = sum_{k>=2} (k-1) c_k shape^(k-2),
		 * h'' = sum_{k>=3} (k-1)(k-2) c_k shape^(k-3)
		 */
		double c = -L, p0 = 1, p1 = 0, p2 = 0, s0 = 0, s1 = 0, s2 = 0;
		int k;

		for (k = 1; k <= 30; k++) {
			s0 += c * p0;
			s1 += (k - 1) * c * p1;
			s2 += (k - 1) * (k - 2) * c * p2;
			/* shape^(k-3) <- shape^(k-2) <- shape^(k-1) for the next k */
			p2 = k >= 2 ? p1 : 0;
			p1 = p0;
			p0 *= shape;
			c *= -L / (k + 1);
		}
		*h = s0;
		if (h1)
			*h1 = s1;
		if (h2)
			*h2 = s2;
		return;
	}
	{
		double e = exp(v), hh = expm1(v) / shape, d1 = -(L * e + hh) / shape;

		*h = hh;
		if (h1)
			*h1 = d1;
		if (h2)
			*h2 = (L * L * e - 2 * d1) / shape;
	}
}

double gev_cdf(const struct gev_params *g, double x)
{
	return exp(gev_log_cdf(g, x));
}

double gev_return_level(const struct gev_params *g, double p)
{
	double h;

	level_h(g->shape, log(-log1p(-p)), &h, NULL, NULL);
	return g->loc + g->scale * h;
}

double gev_quantile(const struct gev_params *g, double prob)
{
	double h;

	level_h(g->shape, log(-log(prob)), &h, NULL, NULL);
	return g->loc + g->scale * h;
}

double gev_log_cdf(const struct gev_params *g, double x)
{
	double z = (x - g->loc) / g->scale, u = g->shape * z;

	if (!(1 + u > 0))
		return g->shape > 0 ? -INFINITY : 0;
	return -exp(-z * log1p_ratio(u));
}

/*
 * The block maxima, standardised so the search is scale-free, with equal
 * values merged and weighted: maxima read from a histogram or in whole us
 * repeat a lot, and every evaluation is a sweep over them.
 *
 * The standardisation is robust (median, and the interquartile range in
 * units of a Gumbel's), not the mean and standard deviation: with a heavy
 * tail a few maxima set the standard deviation, the bulk of the data then
 * sits within a tiny scale and the search crawls.
 */
struct sample {
	double *x; /* distinct standardised values, ascending; owned */
	double *weight; /* how often each occurs; owned */
	unsigned int nr; /* distinct values */
	unsigned int n; /* all values */
	double shift, unit; /* original = shift + unit * standardised */
	double start[3]; /* L-moment estimates, standardised */
};

/* a Gumbel's interquartile range in scale units: log(log 4) - log(log(4/3)) */
#define GUMBEL_IQR 1.5725

static void sample_release(struct sample *d)
{
	free(d->x);
	free(d->weight);
	d->x = d->weight = NULL;
}

/*
 * The GEV estimates from L-moments (Hosking, Wallis & Wood 1985) of the
 * sorted standardised data: a start close to the maximum for any shape
 * below 1, where the mean exists.
 */
static void lmoment_start(const double *sorted, unsigned int n, double th[3])
{
	double b0 = 0, b1 = 0, b2 = 0, l1, l2, l3, c, k, g;
	unsigned int i;

	for (i = 0; i < n; i++) {
		double r = i;

		b0 += sorted[i];
		b1 += r / (n - 1) * sorted[i];
		b2 += r * (r - 1) / ((n - 1.0) * (n - 2.0)) * sorted[i];
	}
	b0 /= n;
	b1 /= n;
	b2 /= n;
	l1 = b0;
	l2 = 2 * b1 - b0;
	l3 = 6 * b2 - 6 * b1 + b0;
	/* a Gumbel when the L-moments say nothing usable */
	th[0] = -0.3665;
	th[1] = 1;
	th[2] = 0;
	if (!(l2 > 0))
		return;
	c = 2 / (3 + l3 / l2) - M_LN2 / log(3.0);
	k = 7.8590 * c + 2.9554 * c * c;
	if (k < -0.9)
		k = -0.9;
	if (k > 0.8)
		k = 0.8;
	if (fabs(k) < 1e-6) {
		th[1] = l2 / M_LN2;
		th[0] = l1 - EULER_GAMMA * th[1];
		return;
	}
	g = gsl_sf_gamma(1 + k);
	th[1] = l2 * k / ((1 - pow(2, -k)) * g);
	th[0] = l1 + th[1] * (g - 1) / k;
	th[2] = -k;
}

static bool sorted_ascending(const double *x, unsigned int n)
{
	unsigned int i;

	for (i = 1; i < n; i++)
		if (!(x[i - 1] <= x[i]))
			return false;
	return true;
}

static int sample_init(struct sample *d, const double *x, unsigned int n)
{
	double mean = 0, var = 0, spread;
	unsigned int i;

	memset(d, 0, sizeof(*d));
	for (i = 0; i < n; i++)
		mean += x[i];
	mean /= n;
	for (i = 0; i < n; i++)
		var += (x[i] - mean) * (x[i] - mean);
	var /= n - 1;
	if (!(var > 0) || !isfinite(var))
		return -EDOM;
	d->x = malloc(n * sizeof(*d->x));
	d->weight = malloc(n * sizeof(*d->weight));
	if (!d->x || !d->weight) {
		sample_release(d);
		return -ENOMEM;
	}
	memcpy(d->x, x, n * sizeof(*d->x));
	/* a caller that fits one sample many times (tail_estimate) sorts it once */
	if (!sorted_ascending(d->x, n))
		gsl_sort(d->x, 1, n);
	spread = gsl_stats_quantile_from_sorted_data(d->x, 1, n, 0.75) -
		 gsl_stats_quantile_from_sorted_data(d->x, 1, n, 0.25);
	d->shift = gsl_stats_median_from_sorted_data(d->x, 1, n);
	d->unit = spread > 0 ? spread / GUMBEL_IQR : sqrt(var);
	for (i = 0; i < n; i++)
		d->x[i] = (d->x[i] - d->shift) / d->unit;
	lmoment_start(d->x, n, d->start);
	for (i = 0; i < n; i++) {
		if (d->nr && d->x[i] == d->x[d->nr - 1]) {
			d->weight[d->nr - 1]++;
			continue;
		}
		d->x[d->nr] = d->x[i];
		d->weight[d->nr++] = 1;
	}
	d->n = n;
	return 0;
}

/*
 * A = dt/dshape at fixed z (and, when @second, B = dA/dshape), where
 * t = log1p(u) / shape and u = shape z.
 */
static double shape_derivative(double z, double xi, double u, double t, double *second)
{
	double a, y = 1 + u;

	if (fabs(u) < SERIES_BELOW) {
		if (second)
			*second = z * z * z * series(series_b_terms, u);
		return z * z * series(series_a_terms, u);
	}
	a = (z / y - t) / xi;
	if (second)
		*second = -(z * z / (y * y) + 2 * a) / xi;
	return a;
}

/*
 * The negative log-likelihood at th = (loc, scale, shape) on standardised
 * data, with its gradient and Hessian (row-major 3x3) when asked for.
 * Returns false outside the parameter space or the support.
 */
static bool nll_eval(const struct sample *d, const double th[3], double *f, double *grad,
		     double *hess)
{
	double mu = th[0], sigma = th[1], xi = th[2];
	double sum = 0, s_gz = 0, s_zgz = 0, s_gxi = 0;
	double s_gzz = 0, s_zgzz = 0, s_z2gzz = 0, s_gzxi = 0, s_zgzxi = 0, s_gxixi = 0;
	double inv_sigma = 1 / sigma;
	unsigned int i;

	if (!(sigma > 0) || !(xi > SHAPE_FLOOR) || !isfinite(mu) || !isfinite(sigma) ||
	    !isfinite(xi))
		return false;
	for (i = 0; i < d->nr; i++) {
		double z = (d->x[i] - mu) * inv_sigma, u = xi * z, y = 1 + u, m = d->weight[i];
		double ly, t, w, gz, a, b = 0, gxi;

		if (!(y > 0))
			return false;
		ly = log1p(u);
		t = u == 0 ? z : ly / xi;
		w = exp(-t);
		if (!isfinite(w))
			return false;
		sum += m * (ly + t + w);
		if (!grad)
			continue;
		gz = m * (1 + xi - w) / y;
		a = shape_derivative(z, xi, u, t, hess ? &b : NULL);
		gxi = m * (z / y + a * (1 - w));
		s_gz += gz;
		s_zgz += z * gz;
		s_gxi += gxi;
		if (hess) {
			double gzz = m * (w - xi * (1 + xi - w)) / (y * y);
			double gzxi = m * ((1 + w * a) / y - (1 + xi - w) * z / (y * y));

			s_gzz += gzz;
			s_zgzz += z * gzz;
			s_z2gzz += z * z * gzz;
			s_gzxi += gzxi;
			s_zgzxi += z * gzxi;
			s_gxixi += m * (-z * z / (y * y) + b * (1 - w) + w * a * a);
		}
	}
	*f = sum + d->n * log(sigma);
	if (!isfinite(*f))
		return false;
	if (grad) {
		grad[0] = -s_gz / sigma;
		grad[1] = (d->n - s_zgz) / sigma;
		grad[2] = s_gxi;
	}
	if (hess) {
		double s2 = sigma * sigma;

		hess[0] = s_gzz / s2;
		hess[1] = hess[3] = (s_gz + s_zgzz) / s2;
		hess[4] = (-(double)d->n + 2 * s_zgz + s_z2gzz) / s2;
		hess[2] = hess[6] = -s_gzxi / sigma;
		hess[5] = hess[7] = -s_zgzxi / sigma;
		hess[8] = s_gxixi;
	}
	return true;
}

double gev_negative_log_likelihood(const double *x, unsigned int n, const struct gev_params *g)
{
	struct sample d;
	double th[3], f;
	bool inside;

	if (!x || n < 2 || sample_init(&d, x, n))
		return NAN;
	/* the same parameters in the standardised units */
	th[0] = (g->loc - d.shift) / d.unit;
	th[1] = g->scale / d.unit;
	th[2] = g->shape;
	inside = nll_eval(&d, th, &f, NULL, NULL);
	sample_release(&d);
	return inside ? f + n * log(d.unit) : INFINITY;
}

/*
 * A damped Newton minimiser for 2 or 3 parameters with an analytic
 * Hessian, written here because GSL's multimin has no method that uses a
 * known Hessian: from a good start (the L-moment estimates, the point
 * predicted along a profile) Newton needs 2-5 passes over the data where
 * GSL's BFGS needs 15-30, and each pass is a sweep over every block
 * maximum. The damping (H + lambda I, raised while H is not positive
 * definite or a step does not descend) keeps it safe far from the optimum;
 * the linear algebra is GSL's Cholesky.
 */
typedef bool (*objective_fn)(void *ctx, const double *v, double *f, double *g, double *h);

static bool cholesky_solve(const double *h, unsigned int dim, double lambda, const double *g,
			   double *step)
{
	double m[9], rhs[3];
	gsl_matrix_view mv = gsl_matrix_view_array(m, dim, dim);
	gsl_vector_view rv = gsl_vector_view_array(rhs, dim);
	gsl_vector_view sv = gsl_vector_view_array(step, dim);
	unsigned int i;

	memcpy(m, h, dim * dim * sizeof(*m));
	for (i = 0; i < dim; i++) {
		m[i * dim + i] += lambda * (1 + fabs(h[i * dim + i]));
		rhs[i] = -g[i];
	}
	if (gsl_linalg_cholesky_decomp1(&mv.matrix))
		return false;
	return gsl_linalg_cholesky_solve(&mv.matrix, &rv.vector, &sv.vector) == 0;
}

/*
 * Converged when the Newton decrement, the fall of the objective a full
 * step promises, is below @tolerance: 1e-12 for the fit itself, 1e-10 in a
 * profile, whose deviance is wanted to 1e-6.
 */
#define FIT_DECREMENT 1e-12
#define PROFILE_DECREMENT 1e-10
/* a profile bound is where the deviance is within this of the threshold:
 * 2.6e-7 standard errors of the interest away, its slope being ~3.9/se */
#define PROFILE_TOLERANCE 1e-6

static int newton_minimise(objective_fn fn, void *ctx, unsigned int dim, double *v, double *fv,
			   unsigned int max_iter, double tolerance)
{
	double f, g[3], h[9], step[3], trial[3], ft, gt[3], ht[9], lambda = 0;
	unsigned int iter, i, k;

	if (!fn(ctx, v, &f, g, h))
		return -EDOM;
	for (iter = 0; iter < max_iter; iter++) {
		double dec = 0, alpha = 1;
		bool moved = false;

		while (!cholesky_solve(h, dim, lambda, g, step)) {
			lambda = lambda ? lambda * 10 : 1e-6;
			if (lambda > 1e12)
				return -EDOM;
		}
		for (i = 0; i < dim; i++)
			dec -= g[i] * step[i];
		if (lambda == 0 && dec < tolerance) {
			*fv = f;
			return 0;
		}
		for (k = 0; k < 60; k++, alpha /= 2) {
			for (i = 0; i < dim; i++)
				trial[i] = v[i] + alpha * step[i];
			/*
			 * The full step is usually taken: evaluate its
			 * derivatives at once rather than in a second sweep.
			 */
			if (!fn(ctx, trial, &ft, k ? NULL : gt, k ? NULL : ht))
				continue;
			/* near the optimum the value is below its rounding: trust Newton */
			if (ft <= f - 1e-4 * alpha * dec || (lambda == 0 && dec < 1e-6 && k == 0)) {
				moved = true;
				break;
			}
		}
		if (!moved) {
			lambda = lambda ? lambda * 10 : 1e-3;
			if (lambda > 1e12)
				return -EDOM;
			continue;
		}
		memcpy(v, trial, dim * sizeof(*v));
		if (k == 0) {
			f = ft;
			memcpy(g, gt, sizeof(g));
			memcpy(h, ht, sizeof(h));
		} else if (!fn(ctx, v, &f, g, h)) {
			return -EDOM;
		}
		lambda = lambda > 1e-6 ? lambda / 10 : 0;
	}
	return -EDOM;
}

static bool full_objective(void *ctx, const double *v, double *f, double *g, double *h)
{
	return nll_eval(ctx, v, f, g, h);
}

/* GSL multimin works on (loc, log scale, shape), so every point has scale > 0 */
static double gsl_f(const gsl_vector *v, void *ctx)
{
	double th[3] = { gsl_vector_get(v, 0), exp(gsl_vector_get(v, 1)), gsl_vector_get(v, 2) };
	double f;

	return nll_eval(ctx, th, &f, NULL, NULL) ? f : GSL_POSINF;
}

static void gsl_fdf(const gsl_vector *v, void *ctx, double *f, gsl_vector *df)
{
	double th[3] = { gsl_vector_get(v, 0), exp(gsl_vector_get(v, 1)), gsl_vector_get(v, 2) };
	double g[3];

	if (!nll_eval(ctx, th, f, g, NULL)) {
		*f = GSL_POSINF;
		gsl_vector_set_all(df, GSL_NAN);
		return;
	}
	gsl_vector_set(df, 0, g[0]);
	gsl_vector_set(df, 1, g[1] * th[1]);
	gsl_vector_set(df, 2, g[2]);
}

static void gsl_df(const gsl_vector *v, void *ctx, gsl_vector *df)
{
	double f;

	gsl_fdf(v, ctx, &f, df);
}

static bool search_bfgs(struct sample *d, double th[3])
{
	gsl_multimin_function_fdf fn = { gsl_f, gsl_df, gsl_fdf, 3, d };
	gsl_multimin_fdfminimizer *m;
	double start[3] = { th[0], log(th[1]), th[2] };
	gsl_vector_view sv = gsl_vector_view_array(start, 3);
	int status = GSL_CONTINUE, iter;
	bool ok;

	m = gsl_multimin_fdfminimizer_alloc(gsl_multimin_fdfminimizer_vector_bfgs2, 3);
	if (!m)
		return false;
	if (gsl_multimin_fdfminimizer_set(m, &fn, &sv.vector, 0.1, 0.1)) {
		gsl_multimin_fdfminimizer_free(m);
		return false;
	}
	for (iter = 0; iter < 300 && status == GSL_CONTINUE; iter++) {
		if (gsl_multimin_fdfminimizer_iterate(m))
			break;
		status = gsl_multimin_test_gradient(m->gradient, 1e-6 * d->n);
	}
	ok = isfinite(m->f);
	th[0] = gsl_vector_get(m->x, 0);
	th[1] = exp(gsl_vector_get(m->x, 1));
	th[2] = gsl_vector_get(m->x, 2);
	gsl_multimin_fdfminimizer_free(m);
	return ok;
}

/*
 * GSL's Nelder-Mead simplex on @f from @x (@dim values, replaced by the
 * best point found), to a simplex of size 1e-8 or 2000 iterations.
 */
static bool run_simplex(double (*f)(const gsl_vector *, void *), void *ctx, unsigned int dim,
			double *x, const double *steps)
{
	gsl_multimin_function fn = { f, dim, ctx };
	gsl_vector_const_view sv = gsl_vector_const_view_array(steps, dim);
	gsl_vector_view xv = gsl_vector_view_array(x, dim);
	gsl_multimin_fminimizer *m;
	int status = GSL_CONTINUE, iter;
	bool ok = false;

	m = gsl_multimin_fminimizer_alloc(gsl_multimin_fminimizer_nmsimplex2, dim);
	if (!m)
		return false;
	if (!gsl_multimin_fminimizer_set(m, &fn, &xv.vector, &sv.vector)) {
		for (iter = 0; iter < 2000 && status == GSL_CONTINUE; iter++) {
			if (gsl_multimin_fminimizer_iterate(m))
				break;
			status = gsl_multimin_test_size(gsl_multimin_fminimizer_size(m), 1e-8);
		}
		ok = isfinite(m->fval);
		gsl_vector_memcpy(&xv.vector, m->x);
	}
	gsl_multimin_fminimizer_free(m);
	return ok;
}

static bool search_simplex(struct sample *d, double th[3])
{
	double x[3] = { th[0], log(th[1]), th[2] };
	static const double steps[3] = { 0.2, 0.2, 0.1 };
	bool ok = run_simplex(gsl_f, d, 3, x, steps);

	th[0] = x[0];
	th[1] = exp(x[1]);
	th[2] = x[2];
	return ok;
}

/* the inverse of the observed information, if it is positive definite */
static bool invert_information(const double *h, double cov[3][3])
{
	double m[9];
	gsl_matrix_view mv = gsl_matrix_view_array(m, 3, 3);
	unsigned int i, j;

	memcpy(m, h, sizeof(m));
	if (gsl_linalg_cholesky_decomp1(&mv.matrix) || gsl_linalg_cholesky_invert(&mv.matrix))
		return false;
	for (i = 0; i < 3; i++)
		for (j = 0; j < 3; j++)
			cov[i][j] = m[i * 3 + j];
	return true;
}

/*
 * A start for the search: the L-moment estimates, or a Gumbel matched to
 * the median and interquartile range (0 and 1 after standardising) with
 * the given shape; its scale is doubled until every maximum lies inside
 * its support.
 */
static void search_start(const struct sample *d, bool lmoments, double shape, double th[3])
{
	double f;
	int i;

	if (lmoments) {
		memcpy(th, d->start, 3 * sizeof(*th));
	} else {
		th[0] = -0.3665;
		th[1] = 1;
		th[2] = shape;
	}
	for (i = 0; i < 60 && !nll_eval(d, th, &f, NULL, NULL); i++)
		th[1] *= 2;
}

/* Fit on standardised data; th receives the standardised estimate. */
/* no search: the Newton steps that finish every search start right away */
static bool search_none(struct sample *d, double *th)
{
	(void)d;
	(void)th;
	return true;
}

/*
 * Fit on standardised data; th receives the standardised estimate. From a
 * good start (the L-moment estimates, or a given one) damped Newton alone
 * converges in a few sweeps; GSL's BFGS and simplex searches, each
 * finished by Newton, are the fallbacks.
 */
static int fit_standardised(struct sample *d, const double *near, double th[3], double *f,
			    const char **method, char *why, size_t size)
{
	static const struct {
		const char *name;
		bool (*search)(struct sample *, double *);
		bool lmoments;
		double shape;
	} attempts[] = {
		{ "Newton from the L-moment estimates", search_none, true, 0 },
		{ "Newton from a Gumbel", search_none, false, 0 },
		{ "BFGS from the L-moment estimates", search_bfgs, true, 0 },
		{ "BFGS from a Gumbel", search_bfgs, false, 0 },
		{ "simplex from the L-moment estimates", search_simplex, true, 0 },
		{ "simplex from shape 0.3", search_simplex, false, 0.3 },
		{ "simplex from shape -0.3", search_simplex, false, -0.3 },
	};
	double floor_f = INFINITY;
	unsigned int i;
	int len = 0;

	if (near) {
		memcpy(th, near, 3 * sizeof(*th));
		if (nll_eval(d, th, f, NULL, NULL) &&
		    newton_minimise(full_objective, d, 3, th, f, 100, FIT_DECREMENT) == 0) {
			*method = "Newton from the given start";
			return 0;
		}
		if (why)
			len = snprintf(why, size, "tried: Newton from the given start; ");
	}
	for (i = 0; i < sizeof(attempts) / sizeof(attempts[0]); i++) {
		search_start(d, attempts[i].lmoments, attempts[i].shape, th);
		if (attempts[i].search(d, th) &&
		    newton_minimise(full_objective, d, 3, th, f, 100, FIT_DECREMENT) == 0 &&
		    *f < floor_f) {
			*method = attempts[i].name;
			return 0;
		}
		/*
		 * A search that slid to shape -1 found the likelihood rising
		 * without bound there; a regular maximum found later counts
		 * only if it is higher than where that search stopped.
		 */
		if (th[2] < SHAPE_FLOOR + 0.01 && nll_eval(d, th, f, NULL, NULL) && *f < floor_f)
			floor_f = *f;
		if (why && len >= 0 && (size_t)len < size)
			len += snprintf(why + len, size - len, "%s%s",
					i ? "; " : (len ? "" : "tried: "), attempts[i].name);
	}
	if (why && len >= 0 && (size_t)len < size)
		snprintf(why + len, size - len,
			 ", each finished by Newton steps: none reached a maximum of the "
			 "likelihood with a positive definite information matrix%s",
			 isfinite(floor_f) ?
				 "; the likelihood keeps rising as the shape approaches "
				 "-1, where the largest maxima become an end point: there "
				 "is no regular maximum-likelihood fit (Smith 1985)" :
				 "");
	return -EDOM;
}

static int fit(const double *x, unsigned int n, const struct gev_params *near, struct gev_fit *out,
	       char *why, size_t size)
{
	struct sample d;
	double th[3], f, g[3], h[9], cov[3][3], start[3];
	const char *method = "";
	unsigned int i, j;
	int err;

	memset(out, 0, sizeof(*out));
	if (why && size)
		why[0] = 0;
	if (!x || n < 3 || (near && !(near->scale > 0)))
		return -EINVAL;
	numerics_init();
	for (i = 0; i < n; i++)
		if (!isfinite(x[i]))
			return -EINVAL;
	err = sample_init(&d, x, n);
	if (err == -EDOM && why)
		snprintf(why, size, "all %u block maxima are equal (%g): there is no spread to fit",
			 n, x[0]);
	if (err)
		return err;
	if (near) {
		start[0] = (near->loc - d.shift) / d.unit;
		start[1] = near->scale / d.unit;
		start[2] = near->shape;
	}
	err = fit_standardised(&d, near ? start : NULL, th, &f, &method, why, size);
	if (err && why && d.nr < 30) {
		size_t len = strlen(why);

		snprintf(why + len, size - len,
			 " (only %u distinct values among %u maxima: recorded this coarsely they "
			 "cannot be fitted as a continuous distribution)",
			 d.nr, n);
	}
	if (!err && (!nll_eval(&d, th, &f, g, h) || !invert_information(h, cov))) {
		if (why)
			snprintf(why, size, "the information matrix at the maximum is singular");
		err = -EDOM;
	}
	if (err)
		goto out;
	out->n = n;
	out->est.loc = d.shift + d.unit * th[0];
	out->est.scale = d.unit * th[1];
	out->est.shape = th[2];
	out->nll = f + n * log(d.unit);
	/* back to the data's units: loc and scale scale with unit */
	for (i = 0; i < 3; i++)
		for (j = 0; j < 3; j++)
			out->cov[i][j] = cov[i][j] * (i < 2 ? d.unit : 1) * (j < 2 ? d.unit : 1);
	for (i = 0; i < 3; i++)
		out->se[i] = sqrt(out->cov[i][i]);
	snprintf(out->method, sizeof(out->method), "%s", method);
out:
	sample_release(&d);
	return err;
}

int gev_fit(const double *x, unsigned int n, struct gev_fit *out, char *why, size_t size)
{
	return fit(x, n, NULL, out, why, size);
}

int gev_fit_near(const double *x, unsigned int n, const struct gev_params *start,
		 struct gev_fit *out, char *why, size_t size)
{
	return fit(x, n, start, out, why, size);
}

/*
 * Profiles. One parameter of interest is held fixed and the likelihood
 * maximised over location and scale, which the bulk of the data pins
 * down well:
 *   LEVEL: z_p fixed (p through L = log(-log(1 - p))); the shape follows
 *	    from z = loc + scale h(shape; L), h being increasing in the shape;
 *   EXCEEDANCE: the same, with z the level and L the interest;
 *   SHAPE: the shape fixed.
 * (Free scale and shape with the location following, the textbook
 * choice, is so badly conditioned for a heavy tail far out, where h is in
 * the thousands and a step in the shape moves the location by thousands
 * of scales, that Newton needs dozens of steps or fails.)
 */
enum profile_kind { PROFILE_LEVEL, PROFILE_EXCEEDANCE, PROFILE_SHAPE };

/* the largest shape a profile may reach; GEV tails heavier than this have
 * no finite moment of order 1/8 and are not latencies */
#define SHAPE_CEILING 8.0

struct profile {
	struct sample *d;
	enum profile_kind kind;
	double z, L, shape; /* the fixed values (one of them is the interest) */
	double v[2]; /* warm start: the last solution (loc, scale) */
	double best; /* nll at the MLE */
	double threshold; /* chi-square(1) quantile */
	double theta[3], grad[3]; /* full parameters and gradient, last evaluated */
	double dshape; /* d shape / d interest at the last evaluation */
	double estimate[3]; /* the maximum-likelihood estimate */
	double tangent[2]; /* d(loc, scale)/d interest along the profile, at the estimate */
};

/*
 * The shape at which h(shape; L) = r, by Newton steps kept inside a
 * bracket; h runs from 0 (shape to -infinity) to infinity and is convex.
 * Returns false when r is out of reach of shapes in (-1, SHAPE_CEILING).
 */
static bool shape_for_level(double r, double L, double guess, double *shape, double *h1, double *h2)
{
	double lo = SHAPE_FLOOR, hi = SHAPE_CEILING, x = guess, h;
	int i;

	level_h(lo, L, &h, NULL, NULL);
	if (!(r > h))
		return false;
	level_h(hi, L, &h, NULL, NULL);
	if (!(r < h))
		return false;
	if (!(x > lo && x < hi))
		x = 0;
	for (i = 0; i < 200; i++) {
		double d1, next;

		level_h(x, L, &h, &d1, NULL);
		if (h < r)
			lo = x;
		else
			hi = x;
		if (fabs(h - r) <= 4e-16 * fabs(r) || hi - lo <= 4e-16 * (1 + fabs(x)))
			break;
		next = x - (h - r) / d1;
		x = next > lo && next < hi ? next : lo + (hi - lo) / 2;
	}
	*shape = x;
	level_h(x, L, &h, h1, h2);
	return true;
}

/*
 * Map (loc, scale) to the full parameters, with the Jacobian J and the
 * second derivatives K of the shape (the only non-linear component).
 */
static bool profile_map(struct profile *p, const double *v, double th[3], double J[3][2],
			double K[2][2])
{
	double r, xi, h1, h2, r_mu, r_sigma, first, second;

	memset(J, 0, 6 * sizeof(double));
	memset(K, 0, 4 * sizeof(double));
	th[0] = v[0];
	th[1] = v[1];
	J[0][0] = J[1][1] = 1;
	if (p->kind == PROFILE_SHAPE) {
		th[2] = p->shape;
		p->dshape = 1;
		return true;
	}
	if (!(v[1] > 0))
		return false;
	r = (p->z - v[0]) / v[1];
	if (!shape_for_level(r, p->L, p->theta[2], &xi, &h1, &h2))
		return false;
	th[2] = xi;
	/* shape = H(r) with H the inverse of h: H' = 1/h', H'' = -h''/h'^3 */
	first = 1 / h1;
	second = -h2 / (h1 * h1 * h1);
	r_mu = -1 / v[1];
	r_sigma = -r / v[1];
	J[2][0] = first * r_mu;
	J[2][1] = first * r_sigma;
	K[0][0] = second * r_mu * r_mu;
	K[0][1] = K[1][0] = second * r_mu * r_sigma + first / (v[1] * v[1]);
	K[1][1] = second * r_sigma * r_sigma + first * 2 * r / (v[1] * v[1]);
	/* how the shape moves with the interest at fixed (loc, scale) */
	if (p->kind == PROFILE_LEVEL)
		p->dshape = first / v[1];
	else
		p->dshape = first * exp(-xi * p->L); /* dh/dL = -e^(-shape L) */
	return true;
}

static bool profile_objective(void *ctx, const double *v, double *f, double *g, double *h)
{
	struct profile *p = ctx;
	double th[3], J[3][2], K[2][2], fg[3], fh[9];
	unsigned int a, b, i, j;

	if (!profile_map(p, v, th, J, K))
		return false;
	if (!nll_eval(p->d, th, f, g ? fg : NULL, h ? fh : NULL))
		return false;
	memcpy(p->theta, th, sizeof(th));
	if (g) {
		for (a = 0; a < 2; a++)
			g[a] = fg[0] * J[0][a] + fg[1] * J[1][a] + fg[2] * J[2][a];
		memcpy(p->grad, fg, sizeof(fg));
	}
	if (h)
		for (a = 0; a < 2; a++)
			for (b = 0; b < 2; b++) {
				double s = fg[2] * K[a][b];

				for (i = 0; i < 3; i++)
					for (j = 0; j < 3; j++)
						s += J[i][a] * fh[i * 3 + j] * J[j][b];
				h[a * 2 + b] = s;
			}
	return true;
}

static void profile_set_interest(struct profile *p, double s)
{
	if (p->kind == PROFILE_LEVEL)
		p->z = s;
	else if (p->kind == PROFILE_EXCEEDANCE)
		p->L = s;
	else
		p->shape = s;
}

static double profile_gsl_f(const gsl_vector *x, void *ctx)
{
	double v[2] = { gsl_vector_get(x, 0), exp(gsl_vector_get(x, 1)) }, f;

	return profile_objective(ctx, v, &f, NULL, NULL) ? f : GSL_POSINF;
}

/* GSL's simplex on (loc, log scale), for when Newton alone fails */
static bool profile_simplex(struct profile *p, double v[2])
{
	double x[2] = { v[0], log(v[1]) };
	static const double steps[2] = { 0.1, 0.1 };
	bool ok = run_simplex(profile_gsl_f, p, 2, x, steps);

	v[0] = x[0];
	v[1] = exp(x[1]);
	return ok;
}

/*
 * The deviance at interest value @s minus the threshold (< 0 inside the
 * interval), and in @slope its derivative in @s. By the envelope theorem
 * the profile's derivative is the partial derivative of the likelihood in
 * the interest at the inner optimum, here through the shape.
 */
static double profile_excess(struct profile *p, double s, const double start[2], double *slope)
{
	double v[2] = { start[0], start[1] }, f, partial;
	double guess = p->theta[2];

	profile_set_interest(p, s);
	if (newton_minimise(profile_objective, p, 2, v, &f, 50, PROFILE_DECREMENT)) {
		/* from the last solution, then GSL's simplex from there */
		v[0] = p->v[0];
		v[1] = p->v[1];
		p->theta[2] = guess;
		if (newton_minimise(profile_objective, p, 2, v, &f, 50, PROFILE_DECREMENT)) {
			v[0] = p->v[0];
			v[1] = p->v[1];
			p->theta[2] = guess;
			if (!profile_simplex(p, v) ||
			    newton_minimise(profile_objective, p, 2, v, &f, 50, PROFILE_DECREMENT))
				return NAN;
		}
	}
	p->v[0] = v[0];
	p->v[1] = v[1];
	partial = p->grad[2] * p->dshape;
	*slope = 2 * partial;
	return 2 * (f - p->best) - p->threshold;
}

/*
 * Find where the deviance crosses the threshold on one side of the
 * estimate @s0: Newton steps on the deviance (its slope comes free, see
 * above) from the Wald guess @s0 + @direction * @step, growing at most
 * fourfold while no point outside is known, then kept inside the bracket
 * (bisecting when Newton would leave it). GSL's root solvers are either
 * bracketed without derivatives (several more inner fits per bound) or
 * use derivatives unbracketed, and outside the bracket the inner fit may
 * not exist. An inner fit that fails pulls the point back halfway towards
 * the last one inside. The warm start follows the points inside.
 */
static int profile_bound(struct profile *p, const double v0[2], double s0, double step,
			 double direction, double *bound)
{
	double in = s0, out = NAN, s = s0 + direction * step, v_in[2] = { v0[0], v0[1] };
	double before = NAN, v_before[2] = { 0, 0 }, theta_in[3];
	unsigned int iter, failures = 0;

	p->v[0] = v0[0];
	p->v[1] = v0[1];
	memcpy(p->theta, p->estimate, sizeof(p->theta));
	memcpy(theta_in, p->theta, sizeof(theta_in));
	for (iter = 0; iter < 200; iter++) {
		double slope, e, next, start[2], path[2];
		int k;

		/*
		 * Predict the inner solution: along the line through the last
		 * two solutions inside, or along the profile's tangent at the
		 * estimate; the inner Newton then needs a step or two.
		 */
		for (k = 0; k < 2; k++) {
			path[k] = isnan(before) ? p->tangent[k] :
						  (v_in[k] - v_before[k]) / (in - before);
			start[k] = v_in[k] + path[k] * (s - in);
		}
		if (!(start[1] > 0)) {
			start[0] = v_in[0];
			start[1] = v_in[1];
		}
		e = profile_excess(p, s, start, &slope);
		if (isnan(e)) {
			/*
			 * Without a point outside, the profile may simply stay
			 * below the threshold up to the edge of the parameter
			 * space: the interval is open on this side.
			 */
			if (++failures > 40)
				return isnan(out) ? -ERANGE : -EDOM;
			p->v[0] = v_in[0];
			p->v[1] = v_in[1];
			memcpy(p->theta, theta_in, sizeof(theta_in));
			s = in + (s - in) / 2;
			continue;
		}
		if (fabs(e) < PROFILE_TOLERANCE) {
			*bound = s;
			return 0;
		}
		if (e < 0) {
			before = in;
			v_before[0] = v_in[0];
			v_before[1] = v_in[1];
			in = s;
			v_in[0] = p->v[0];
			v_in[1] = p->v[1];
			memcpy(theta_in, p->theta, sizeof(theta_in));
		} else {
			out = s;
		}
		if (!isnan(out) && fabs(out - in) <= 1e-12 * (1 + fabs(in))) {
			*bound = in + (out - in) / 2;
			return 0;
		}
		/* the fallback start of the next inner fit: the last one inside */
		p->v[0] = v_in[0];
		p->v[1] = v_in[1];
		memcpy(p->theta, theta_in, sizeof(theta_in));
		next = s - e / slope;
		if (isnan(out)) {
			double reach = fabs(in - s0) > step ? fabs(in - s0) : step;
			double limit = in + direction * 4 * reach;

			if (!isfinite(next) || direction * (next - in) <= 0 ||
			    direction * (next - limit) > 0)
				next = limit;
		} else if (!isfinite(next) || (next - in) * (next - out) >= 0) {
			next = in + (out - in) / 2;
		}
		s = next;
	}
	return isnan(out) ? -ERANGE : -EDOM;
}

/*
 * The delta-method variance of an interest with gradient @grad (in the
 * standardised parameters), and the profile's tangent at the estimate,
 * cov grad / (grad' cov grad): the direction the other parameters take as
 * the interest moves, to first order.
 */
static double profile_tangent(struct profile *p, const struct gev_fit *fit, const struct sample *d,
			      const double grad[3])
{
	double cov[3][3], cg[3] = { 0, 0, 0 }, var = 0;
	unsigned int i, j;

	for (i = 0; i < 3; i++)
		for (j = 0; j < 3; j++)
			cov[i][j] =
				fit->cov[i][j] / ((i < 2 ? d->unit : 1) * (j < 2 ? d->unit : 1));
	for (i = 0; i < 3; i++) {
		for (j = 0; j < 3; j++)
			cg[i] += cov[i][j] * grad[j];
		var += grad[i] * cg[i];
	}
	p->tangent[0] = var > 0 ? cg[0] / var : 0;
	p->tangent[1] = var > 0 ? cg[1] / var : 0;
	return var;
}

/*
 * Both bounds; a side the data do not bound is set to -/+ infinity and
 * reported as -ERANGE once the other side is done.
 */
static int profile_both(struct profile *p, const double v0[2], double s0, double step, double *lo,
			double *hi)
{
	int err_lo = profile_bound(p, v0, s0, step, -1, lo), err_hi;

	if (err_lo && err_lo != -ERANGE)
		return err_lo;
	err_hi = profile_bound(p, v0, s0, step, 1, hi);
	if (err_hi && err_hi != -ERANGE)
		return err_hi;
	if (err_lo)
		*lo = -INFINITY;
	if (err_hi)
		*hi = INFINITY;
	return err_lo ? err_lo : err_hi;
}

static int profile_prepare(struct profile *p, struct sample *d, const double *x, unsigned int n,
			   const struct gev_fit *fit, double confidence, double th[3])
{
	double f;
	int err;

	if (!x || n < 3 || !fit || !(confidence > 0 && confidence < 1) || n != fit->n)
		return -EINVAL;
	numerics_init();
	err = sample_init(d, x, n);
	if (err)
		return err;
	th[0] = (fit->est.loc - d->shift) / d->unit;
	th[1] = fit->est.scale / d->unit;
	th[2] = fit->est.shape;
	if (!nll_eval(d, th, &f, NULL, NULL)) {
		sample_release(d);
		return -EINVAL;
	}
	memset(p, 0, sizeof(*p));
	p->d = d;
	p->best = f;
	memcpy(p->theta, th, sizeof(p->theta));
	memcpy(p->estimate, th, sizeof(p->estimate));
	p->threshold = gsl_cdf_chisq_Pinv(confidence, 1);
	return 0;
}

int gev_profile_return_level(const double *x, unsigned int n, const struct gev_fit *fit, double p,
			     double confidence, double ci[2])
{
	struct profile pr;
	struct sample d;
	double th[3], v0[2], zhat, h, h1, var, grad[3], step, lo, hi;
	int err;

	if (!(p > 0 && p < 1))
		return -EINVAL;
	err = profile_prepare(&pr, &d, x, n, fit, confidence, th);
	if (err)
		return err;
	pr.kind = PROFILE_LEVEL;
	pr.L = log(-log1p(-p));
	level_h(th[2], pr.L, &h, &h1, NULL);
	zhat = th[0] + th[1] * h;
	/* the Wald bound is the first guess */
	grad[0] = 1;
	grad[1] = h;
	grad[2] = th[1] * h1;
	var = profile_tangent(&pr, fit, &d, grad);
	step = sqrt(pr.threshold) * (var > 0 && isfinite(var) ? sqrt(var) : th[1]);
	v0[0] = th[0];
	v0[1] = th[1];
	err = profile_both(&pr, v0, zhat, step, &lo, &hi);
	if (!err || err == -ERANGE) {
		ci[0] = d.shift + d.unit * lo;
		ci[1] = d.shift + d.unit * hi;
	}
	sample_release(&d);
	return err;
}

int gev_profile_shape(const double *x, unsigned int n, const struct gev_fit *fit, double confidence,
		      double ci[2])
{
	struct profile pr;
	struct sample d;
	double th[3], v0[2], lo, hi, step;
	int err;

	err = profile_prepare(&pr, &d, x, n, fit, confidence, th);
	if (err)
		return err;
	pr.kind = PROFILE_SHAPE;
	v0[0] = th[0];
	v0[1] = th[1];
	profile_tangent(&pr, fit, &d, (const double[3]){ 0, 0, 1 });
	step = sqrt(pr.threshold) * (fit->se[2] > 0 ? fit->se[2] : 0.1);
	err = profile_both(&pr, v0, th[2], step, &lo, &hi);
	if (!err || err == -ERANGE) {
		ci[0] = lo;
		ci[1] = hi;
	}
	sample_release(&d);
	return err;
}

int gev_profile_exceedance(const double *x, unsigned int n, const struct gev_fit *fit, double level,
			   double blocks, double confidence, double ci[2])
{
	struct profile pr;
	struct sample d;
	double th[3], v0[2], zs, z, u, y, t, a, grad[3], var, step, Lhat, lo, hi;
	int err;

	if (!(blocks >= 1) || !isfinite(level))
		return -EINVAL;
	err = profile_prepare(&pr, &d, x, n, fit, confidence, th);
	if (err)
		return err;
	pr.kind = PROFILE_EXCEEDANCE;
	zs = (level - d.shift) / d.unit;
	pr.z = zs;
	v0[0] = th[0];
	v0[1] = th[1];
	z = (zs - th[0]) / th[1];
	u = th[2] * z;
	y = 1 + u;
	if (y > 0) {
		/* L = log(-log G(level)) = -t, and its delta-method variance */
		t = z * log1p_ratio(u);
		Lhat = -t;
		a = shape_derivative(z, th[2], u, t, NULL);
		grad[0] = 1 / (y * th[1]);
		grad[1] = z / (y * th[1]);
		grad[2] = -a;
		var = profile_tangent(&pr, fit, &d, grad);
		step = sqrt(pr.threshold) * (var > 0 && isfinite(var) ? sqrt(var) : 1);
		err = profile_both(&pr, v0, Lhat, step, &lo, &hi);
	} else if (th[2] < 0) {
		/*
		 * The level is beyond the fitted end point: the estimate is 0.
		 * A probability no double can tell from 0 pins the end point
		 * at the level; if even that is rejected, the interval is
		 * {0}, otherwise its upper bound is searched from there.
		 */
		double slope, start = -700, e;

		pr.v[0] = v0[0];
		pr.v[1] = v0[1];
		e = profile_excess(&pr, start, v0, &slope);
		lo = hi = -INFINITY;
		if (isnan(e)) {
			err = -EDOM;
		} else if (e < 0) {
			memcpy(pr.estimate, pr.theta, sizeof(pr.estimate));
			err = profile_bound(&pr, pr.v, start, 1, 1, &hi);
			if (err == -ERANGE)
				hi = INFINITY;
		}
	} else {
		/* below a heavy tail's lower end: every block exceeds it */
		lo = hi = INFINITY;
	}
	if (!err || err == -ERANGE) {
		/* P(one of @blocks maxima above the level) = 1 - G^blocks */
		ci[0] = -expm1(-blocks * exp(lo)) + 0.0;
		ci[1] = -expm1(-blocks * exp(hi)) + 0.0;
	}
	sample_release(&d);
	return err;
}
