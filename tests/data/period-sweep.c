// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The scene of tests/system/noise-nested, synthetic, over many draws of
 * what the machine picks at random: a thread every 2 ms spinning 10 us,
 * every third wake-up 60 us, at a random phase to the host's 1 ms train
 * (which fills a random share of its slots, with a random jitter and
 * length), the guest's 4 ms tick, host stalls and random events. Each draw
 * goes through period_detect() as `latscope noise` calls it; a draw whose
 * sources the test would refuse (no 2 ms or 6 ms source, one seen in less
 * than half its slots, the 6 ms one not nested in the 2 ms one or adding
 * less than 25 us) is printed with its draw and the sources found, so
 * that a rare mode of the period finder becomes a seed to replay.
 *
 * usage (run by hand; no root, no kernel):
 *   period-sweep DRAWS [FIRST [CAUSES]]
 * FIRST: the first draw's seed (0); CAUSES: 0 to give no event a cause
 * (as without --explain), else 1. Exits 1 when any draw fails.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "event_stream.h"
#include "latscope/period.h"

#define MS 1e6
#define US 1e3

static int find(const struct period_source *sources, int n, double period)
{
	for (int i = 0; i < n; i++)
		if (fabs((double)sources[i].period_ns - period) <= 0.01 * period)
			return i;
	return -1;
}

static bool half_seen(const struct period_source *s)
{
	return 2 * (s->seen + s->hidden) >= s->expected;
}

/* What tests/system/noise-nested would refuse, or NULL. */
static const char *refused(const struct period_source *sources, int n)
{
	int fast = find(sources, n, 2 * MS), slow = find(sources, n, 6 * MS);

	if (fast < 0)
		return "no 2 ms source";
	if (slow < 0)
		return "no 6 ms source";
	if (!half_seen(&sources[fast]) || !half_seen(&sources[slow]))
		return "seen in less than half its slots";
	if (sources[slow].nested_in == PERIOD_UNASSIGNED ||
	    fabs((double)sources[sources[slow].nested_in].period_ns - 2 * MS) > 0.01 * 2 * MS)
		return "the 6 ms source not nested in a 2 ms one";
	if (sources[slow].duration_ns < 25 * US)
		return "the 6 ms source adds less than 25 us";
	return NULL;
}

int main(int argc, char **argv)
{
	long draws = argc > 1 ? atol(argv[1]) : 0, first = argc > 2 ? atol(argv[2]) : 0, failed = 0;
	bool causes = argc > 3 ? atoi(argv[3]) != 0 : true;

	if (draws <= 0) {
		fprintf(stderr, "usage: period-sweep DRAWS [FIRST [CAUSES]]\n");
		return 2;
	}
	for (long seed = first; seed < first + draws; seed++) {
		struct period_source sources[PERIOD_MAX_SOURCES];
		struct period_params params = { .run_ns = NESTED_DRAW_RUN_NS };
		struct event_list s = { 0 };
		struct nested_draw d = nested_draw_of(seed);
		const char *why;
		int n;

		add_nested_draw(&s, &d, causes);
		n = period_detect(s.events, s.n, &params, sources, PERIOD_MAX_SOURCES, NULL);
		why = n < 0 ? "out of memory" : refused(sources, n);
		if (why) {
			failed++;
			printf("seed %ld: %s; thread +%.0f us, host fill %.2f length 8-%.0f us jitter "
			       "%.1f us, tick +%.0f us, %d stalls, %.0f random/s:",
			       seed, why, d.thread_phase / US, d.host_fill, 8 + d.host_length / US,
			       d.host_jitter / US, d.tick_phase / US, d.stalls, d.random_rate);
			for (int i = 0; i < n; i++)
				printf(" [%d: %.3f ms, %lu of %lu, %lu hidden, %.1f us, in %d]", i,
				       (double)sources[i].period_ns / MS,
				       (unsigned long)sources[i].seen,
				       (unsigned long)sources[i].expected,
				       (unsigned long)sources[i].hidden,
				       (double)sources[i].duration_ns / US,
				       sources[i].nested_in == PERIOD_UNASSIGNED ?
					       -1 :
					       (int)sources[i].nested_in);
			printf("\n");
		}
		free(s.events);
	}
	printf("%ld of %ld draws refused\n", failed, draws);
	return failed ? 1 : 0;
}
