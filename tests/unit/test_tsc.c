// SPDX-License-Identifier: GPL-2.0-or-later
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "latscope/tsc.h"
#include "unit.h"

START_TEST(conversion_of_deltas)
{
	struct tsc_clock clock = { .use_tsc = true };

	/* 2.5 GHz: 0.4 ns per cycle */
	clock.mult = (uint64_t)(0.4 * (double)(1ULL << TSC_SHIFT) + 0.5);
	ck_assert_uint_eq(tsc_delta_ns(&clock, 0), 0);
	ck_assert_uint_eq(tsc_delta_ns(&clock, 25), 10);
	ck_assert_uint_eq(tsc_delta_ns(&clock, 2500000000ULL), 1000000000ULL);
	/* an hour of cycles does not overflow; fixed point costs < 1e-9 */
	ck_assert(llabs((long long)tsc_delta_ns(&clock, 9000000000000ULL) - 3600000000000LL) <
		  3600);
	/* rounded to the nearest ns, not truncated */
	ck_assert_uint_eq(tsc_delta_ns(&clock, 4), 2);
	clock.start_tsc = 1000;
	ck_assert_uint_eq(tsc_to_ns_since_start(&clock, 3500), 1000);
	ck_assert_uint_eq(tsc_to_ns_since_start(&clock, 500), 0);
}
END_TEST

START_TEST(usable_needs_constant_nonstop)
{
	struct sysroot *good = sysroot_new(FIXTURE("cpuinfo/constant-tsc"));
	struct sysroot *old = sysroot_new(FIXTURE("cpuinfo/no-constant-tsc"));
	struct sysroot *none = sysroot_new(FIXTURE("does-not-exist"));
	const char *why;

	ck_assert(tsc_usable(good, &why));
	ck_assert(!tsc_usable(old, &why));
	ck_assert_ptr_nonnull(strstr(why, "constant, nonstop"));
	ck_assert(!tsc_usable(none, &why));
	sysroot_free(good);
	sysroot_free(old);
	sysroot_free(none);
}
END_TEST

static uint64_t monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* The calibrated TSC agrees with CLOCK_MONOTONIC_RAW over a second. */
START_TEST(calibration_matches_the_kernel_clock)
{
	struct sysroot *live = sysroot_new(NULL);
	struct timespec pause = { .tv_sec = 0, .tv_nsec = 300000000 };
	struct tsc_clock clock;
	uint64_t t0, n0, t1, n1;
	const char *why;
	double error;

	if (!tsc_usable(live, &why)) {
		sysroot_free(live);
		return;
	}
	tsc_calibrate_begin(&clock, true, 100000000ULL);
	t0 = tsc_now(&clock);
	n0 = monotonic_ns();
	nanosleep(&pause, NULL);
	t1 = tsc_now(&clock);
	n1 = monotonic_ns();
	error = fabs((double)tsc_delta_ns(&clock, t1 - t0) - (double)(n1 - n0));
	/* the two reads of each pair are a few us apart at worst */
	ck_assert_msg(error < 0.001 * (double)(n1 - n0) + 50000, "off by %.0f ns", error);
	tsc_calibrate_end(&clock);
	ck_assert(clock.cycles_per_ns > 0.1 && clock.cycles_per_ns < 10);
	ck_assert_uint_ge(tsc_read_cost_ns(&clock), 1);
	sysroot_free(live);
}
END_TEST

START_TEST(monotonic_fallback_is_identity)
{
	struct tsc_clock clock;

	tsc_calibrate_begin(&clock, false, 0);
	ck_assert(!clock.use_tsc);
	ck_assert_uint_eq(tsc_delta_ns(&clock, 123456789), 123456789);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("tsc");
	TCase *tc = tcase_create("tsc");

	tcase_add_test(tc, conversion_of_deltas);
	tcase_add_test(tc, usable_needs_constant_nonstop);
	tcase_add_test(tc, calibration_matches_the_kernel_clock);
	tcase_add_test(tc, monotonic_fallback_is_identity);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
