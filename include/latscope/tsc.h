/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_TSC_H
#define LATSCOPE_TSC_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "latscope/clock.h"
#include "latscope/sysroot.h"

/*
 * Timestamps for the measurement loops. On x86 with a constant, nonstop TSC
 * a timestamp is a raw rdtsc; elsewhere it is CLOCK_MONOTONIC_RAW in ns.
 * Only deltas are converted to ns, with a fixed-point multiply cheap enough
 * for the hot loop (the kernel's clocksource mult/shift scheme).
 */
struct tsc_clock {
	bool use_tsc; /* false: timestamps are CLOCK_MONOTONIC_RAW ns */
	uint64_t mult; /* ns = (delta * mult) >> TSC_SHIFT */
	double cycles_per_ns;
	/* calibration anchors: a TSC value and CLOCK_MONOTONIC_RAW at one instant */
	uint64_t start_tsc, start_ns;
	uint64_t end_tsc, end_ns;
};

#define TSC_SHIFT 32

#if defined(__x86_64__) || defined(__i386__)
static inline uint64_t tsc_read_raw(void)
{
	uint32_t lo, hi;

	__asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}
#define TSC_AVAILABLE 1
#else
static inline uint64_t tsc_read_raw(void)
{
	return 0;
}
#define TSC_AVAILABLE 0
#endif

static inline uint64_t tsc_monotonic_raw_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC_RAW);
}

/* A timestamp in the clock's unit (cycles or ns). */
static inline uint64_t tsc_now(const struct tsc_clock *clock)
{
	return clock->use_tsc ? tsc_read_raw() : tsc_monotonic_raw_ns();
}

/* A delta in the clock's unit converted to ns, rounded to the nearest. */
static inline uint64_t tsc_delta_ns(const struct tsc_clock *clock, uint64_t delta)
{
	return (uint64_t)(((unsigned __int128)delta * clock->mult + (1ULL << (TSC_SHIFT - 1))) >>
			  TSC_SHIFT);
}

/**
 * tsc_usable - whether this CPU has a TSC the loops can trust
 * @root: where /proc/cpuinfo is read
 * @why: receives a reason when not usable (static string)
 *
 * True on x86 when /proc/cpuinfo lists constant_tsc and nonstop_tsc.
 */
bool tsc_usable(struct sysroot *root, const char **why);

/**
 * tsc_calibrate_begin - start calibrating the TSC against CLOCK_MONOTONIC_RAW
 * @clock: the clock to set up
 * @use_tsc: false to use CLOCK_MONOTONIC_RAW timestamps
 * @min_ns: how long to calibrate (at least 100 ms is enforced); the function
 *	    sleeps that long and then sets a provisional rate
 */
void tsc_calibrate_begin(struct tsc_clock *clock, bool use_tsc, uint64_t min_ns);

/**
 * tsc_calibrate_end - refine the rate with a pair taken at the end of a run
 * @clock: a clock set up by tsc_calibrate_begin()
 *
 * Uses the whole span from the first anchor, so a long run gives a rate
 * accurate to parts per billion.
 */
void tsc_calibrate_end(struct tsc_clock *clock);

/**
 * tsc_read_cost_ns - the median read-to-read delta of back-to-back reads
 * @clock: a calibrated clock
 *
 * What one read costs a busy loop on this clock, in ns (at least 1): a
 * threshold at or below it makes every read a gap.
 */
uint64_t tsc_read_cost_ns(const struct tsc_clock *clock);

/* Convert a timestamp to ns since the calibration start anchor. */
uint64_t tsc_to_ns_since_start(const struct tsc_clock *clock, uint64_t stamp);

#endif
