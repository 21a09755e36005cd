// SPDX-License-Identifier: GPL-2.0-or-later
#include <stdlib.h>
#include <string.h>

#include "latscope/cpuinfo.h"
#include "latscope/tsc.h"

bool tsc_usable(struct sysroot *root, const char **why)
{
	bool constant, nonstop;
	char *flags;

	if (!TSC_AVAILABLE) {
		*why = "this architecture has no TSC";
		return false;
	}
	if (cpuinfo_flags(root, &flags)) {
		*why = "/proc/cpuinfo cannot be read";
		return false;
	}
	constant = words_have(flags, "constant_tsc");
	nonstop = words_have(flags, "nonstop_tsc");
	free(flags);
	if (!constant || !nonstop) {
		*why = "the CPU lacks a constant, nonstop TSC (constant_tsc/nonstop_tsc flags)";
		return false;
	}
	*why = NULL;
	return true;
}

/*
 * Take a (tsc, ns) pair with the smallest possible window between the two
 * reads, so the pair is accurate to a few tens of ns.
 */
static void anchor_pair(uint64_t *tsc, uint64_t *ns)
{
	uint64_t best = UINT64_MAX;
	int i;

	for (i = 0; i < 16; i++) {
		uint64_t t0 = tsc_read_raw();
		uint64_t mono = tsc_monotonic_raw_ns();
		uint64_t t1 = tsc_read_raw();

		if (t1 - t0 < best) {
			best = t1 - t0;
			*tsc = t0 + (t1 - t0) / 2;
			*ns = mono;
		}
	}
}

static void set_rate(struct tsc_clock *clock, uint64_t cycles, uint64_t ns)
{
	if (!cycles || !ns)
		return;
	clock->cycles_per_ns = (double)cycles / (double)ns;
	clock->mult = (uint64_t)((double)ns / (double)cycles * (double)(1ULL << TSC_SHIFT) + 0.5);
}

void tsc_calibrate_begin(struct tsc_clock *clock, bool use_tsc, uint64_t min_ns)
{
	struct timespec pause;
	uint64_t tsc, ns;

	memset(clock, 0, sizeof(*clock));
	clock->use_tsc = use_tsc;
	if (!use_tsc) {
		clock->mult = 1ULL << TSC_SHIFT;
		clock->cycles_per_ns = 1.0;
		clock->start_ns = tsc_monotonic_raw_ns();
		clock->start_tsc = clock->start_ns;
		return;
	}
	if (min_ns < 100000000ULL)
		min_ns = 100000000ULL;
	anchor_pair(&clock->start_tsc, &clock->start_ns);
	pause = clock_timespec(min_ns);
	while (clock_nanosleep(CLOCK_MONOTONIC, 0, &pause, &pause))
		;
	anchor_pair(&tsc, &ns);
	set_rate(clock, tsc - clock->start_tsc, ns - clock->start_ns);
}

void tsc_calibrate_end(struct tsc_clock *clock)
{
	if (!clock->use_tsc) {
		clock->end_ns = tsc_monotonic_raw_ns();
		clock->end_tsc = clock->end_ns;
		return;
	}
	anchor_pair(&clock->end_tsc, &clock->end_ns);
	set_rate(clock, clock->end_tsc - clock->start_tsc, clock->end_ns - clock->start_ns);
}

static int compare_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

uint64_t tsc_read_cost_ns(const struct tsc_clock *clock)
{
	/*
	 * The median, not the smallest: two reads can overlap in the pipeline,
	 * and the smallest delta seen varied fivefold between runs on a KVM
	 * guest (2 ns, then 10 ns), while the median is what a loop pays.
	 */
	enum { READS = 4095 };
	uint64_t delta[READS], prev = tsc_now(clock), now, ns;
	unsigned int i, n = 0;

	for (i = 0; i < READS; i++) {
		now = tsc_now(clock);
		if (now > prev)
			delta[n++] = now - prev;
		prev = now;
	}
	if (!n)
		return 1;
	qsort(delta, n, sizeof(*delta), compare_u64);
	ns = tsc_delta_ns(clock, delta[n / 2]);
	return ns ? ns : 1;
}

uint64_t tsc_to_ns_since_start(const struct tsc_clock *clock, uint64_t stamp)
{
	if (stamp <= clock->start_tsc)
		return 0;
	return tsc_delta_ns(clock, stamp - clock->start_tsc);
}
