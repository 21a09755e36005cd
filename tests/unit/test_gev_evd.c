// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The GEV fit against R's evd::fgev (Debian r-cran-evd) on samples of
 * every kind of tail and on latency-like block maxima: estimates within
 * 1% of a standard error, standard errors within 1%, and a likelihood at
 * least as high. Skipped (exit 77) without Rscript and evd.
 *
 * The reference standard errors come from R's optimHess on evd's dgev
 * with steps scaled to the parameters: fgev's own Hessian uses steps of
 * 0.001 whatever the data's unit, which for maxima in ns (scale ~6000)
 * gives standard errors 4% off (293 against 306 for the location here;
 * with scaled steps R agrees with the analytic 305.9 to 0.05%).
 */
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "latency_models.h"
#include "latscope/gev.h"
#include "unit.h"

#define SKIP 77
#define NR_SAMPLES 4
#define MOST 500

static struct {
	const char *what;
	unsigned int n;
	double x[MOST];
	double r[7]; /* evd: loc, scale, shape, their standard errors, deviance */
	bool answered;
} samples[NR_SAMPLES] = {
	{ .what = "shape 0.2", .n = 200 },
	{ .what = "shape 0", .n = 150 },
	{ .what = "shape -0.2", .n = 300 },
	{ .what = "latency-like", .n = 500 },
};

static void gev_sample(unsigned long seed, struct gev_params g, double *x, unsigned int n)
{
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	unsigned int i;

	gsl_rng_set(rng, seed);
	for (i = 0; i < n; i++)
		x[i] = gev_quantile(&g, gsl_rng_uniform_pos(rng));
	gsl_rng_free(rng);
}

/* 500 one-second maxima (in ns) of a 10 kHz timer with a Pareto tail */
static void latency_sample(double *x, unsigned int n)
{
	struct latency_model m = { MODEL_BODY_TAIL, 1 };
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	unsigned int i;

	gsl_rng_set(rng, 64);
	for (i = 0; i < n; i++)
		x[i] = floor(model_block_max(&m, rng, 10000));
	gsl_rng_free(rng);
}

/*
 * One Rscript for every sample (R takes a second to start): each file's
 * evd estimates, tightly converged, standard errors and deviance, a line
 * each. Returns false when R or evd is missing.
 */
static bool fit_all_with_r(void)
{
	char paths[NR_SAMPLES][32], command[2048];
	unsigned int s, i;
	int len;
	FILE *out;

	len = snprintf(command, sizeof(command),
		       "Rscript --vanilla -e 'suppressMessages(library(evd)); "
		       "for (f in commandArgs(TRUE)) { x <- scan(f, quiet = TRUE); "
		       "m <- fgev(x, control = list(reltol = 1e-13, maxit = 20000)); "
		       "nll <- function(p) -sum(dgev(x, p[1], p[2], p[3], log = TRUE)); "
		       "s <- m$estimate[2]; "
		       "h <- optimHess(m$estimate, nll, "
		       "control = list(parscale = c(s / 5, s / 5, 0.01))); "
		       "cat(sprintf(\"%%.17g\", c(m$estimate, sqrt(diag(solve(h))), "
		       "m$deviance)), \"\\n\") }'");
	for (s = 0; s < NR_SAMPLES; s++) {
		int fd;
		FILE *f;

		snprintf(paths[s], sizeof(paths[s]), "/tmp/latscope-evd-XXXXXX");
		fd = mkstemp(paths[s]);
		if (fd < 0)
			return false;
		f = fdopen(fd, "w");
		for (i = 0; i < samples[s].n; i++)
			fprintf(f, "%.17g\n", samples[s].x[i]);
		fclose(f);
		len += snprintf(command + len, sizeof(command) - len, " %s", paths[s]);
	}
	snprintf(command + len, sizeof(command) - len, " 2>/dev/null");
	out = popen(command, "r");
	if (out) {
		for (s = 0; s < NR_SAMPLES; s++) {
			unsigned int got = 0;

			while (got < 7 && fscanf(out, "%lf", &samples[s].r[got]) == 1)
				got++;
			samples[s].answered = got == 7;
		}
		pclose(out);
	}
	for (s = 0; s < NR_SAMPLES; s++)
		unlink(paths[s]);
	return out && samples[0].answered;
}

static bool have_evd(void)
{
	return system("Rscript --vanilla -e 'quit(status = !requireNamespace(\"evd\", "
		      "quietly = TRUE))' >/dev/null 2>&1") == 0;
}

START_TEST(agrees_with_evd)
{
	static const char *names[] = { "loc", "scale", "shape" };
	unsigned int s = (unsigned int)_i, i;
	const double *r = samples[s].r;
	struct gev_fit fit;
	double ours[3];

	ck_assert_msg(samples[s].answered, "%s: no answer from evd::fgev", samples[s].what);
	ck_assert_int_eq(gev_fit(samples[s].x, samples[s].n, &fit, NULL, 0), 0);
	ours[0] = fit.est.loc;
	ours[1] = fit.est.scale;
	ours[2] = fit.est.shape;
	for (i = 0; i < 3; i++) {
		ck_assert_msg(fabs(ours[i] - r[i]) <= 0.01 * fit.se[i],
			      "%s: %s %.8g, evd %.8g (se %.3g)", samples[s].what, names[i], ours[i],
			      r[i], fit.se[i]);
		ck_assert_msg(fabs(fit.se[i] - r[3 + i]) <= 0.01 * r[3 + i],
			      "%s: se of %s %.6g, evd %.6g", samples[s].what, names[i], fit.se[i],
			      r[3 + i]);
	}
	/* evd's deviance is 2 nll */
	ck_assert_msg(2 * fit.nll <= r[6] + 1e-6, "%s: deviance %.10g, evd %.10g", samples[s].what,
		      2 * fit.nll, r[6]);
}
END_TEST

int main(void)
{
	Suite *suite = suite_create("gev_evd");
	TCase *tc = tcase_create("gev_evd");

	if (!have_evd())
		return SKIP;
	gev_sample(61, (struct gev_params){ 100, 10, 0.2 }, samples[0].x, samples[0].n);
	gev_sample(62, (struct gev_params){ 0, 1, 0 }, samples[1].x, samples[1].n);
	gev_sample(63, (struct gev_params){ 50, 5, -0.2 }, samples[2].x, samples[2].n);
	latency_sample(samples[3].x, samples[3].n);
	if (!fit_all_with_r())
		return SKIP;
	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, agrees_with_evd, 0, NR_SAMPLES);
	suite_add_tcase(suite, tc);
	return unit_run(suite);
}
