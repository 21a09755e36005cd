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
#define RUN_NS (5 * 1000000000ULL)

struct draw {
	double thread_phase, host_fill, host_length, host_jitter, tick_phase, random_rate;
	int stalls;
};

/* a gap of @duration ns (a fraction of a ns dropped) */
static void add(struct event_list *s, double t, double duration, uint64_t causes)
{
	add_caused_event(s, t, (uint64_t)duration, causes);
}

static void make_stream(struct event_list *s, const struct draw *d, bool causes)
{
	double t;
	int k;

	for (k = 0; k * 2 * MS < RUN_NS; k++)
		add(s, d->thread_phase + k * 2 * MS + 2 * US * gaussian(),
		    (k % 3 == 0 ? 60 : 10) * US + 2000 * uniform(), causes ? 2 : 0);
	for (k = 0; k * MS < RUN_NS; k++)
		if (uniform() < d->host_fill)
			add(s, k * MS + d->host_jitter * gaussian(),
			    8 * US + d->host_length * uniform(), causes ? 1 : 0);
	for (k = 0; k * 4 * MS < RUN_NS; k++)
		add(s, d->tick_phase + k * 4 * MS + 2 * US * gaussian(), 11 * US + 3000 * uniform(),
		    causes ? 4 : 0);
	for (k = 0; k < d->stalls; k++)
		add(s, uniform() * RUN_NS, 16 * MS + 8 * MS * uniform(), causes ? 1 : 0);
	for (t = 0;;) {
		t += -log(uniform() + 1e-300) / d->random_rate * 1e9;
		if (t >= RUN_NS)
			break;
		add(s, t, 1500 + 20000 * uniform(), causes ? 8 : 0);
	}
	merge_overlapping(s);
}

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
		struct period_params params = { .run_ns = RUN_NS };
		struct event_list s = { 0 };
		struct draw d;
		const char *why;
		int n;

		rng_state = (uint64_t)seed * 7919 + 1;
		for (int warm = 0; warm < 5; warm++)
			uniform();
		d = (struct draw){ .thread_phase = uniform() * MS,
				   .host_fill = 0.5 + 0.5 * uniform(),
				   .host_length = (10 + 30 * uniform()) * US,
				   .host_jitter = (1 + 10 * uniform()) * US,
				   .tick_phase = uniform() * 4 * MS,
				   .stalls = (int)(uniform() * 20),
				   .random_rate = 1 + 200 * uniform() };
		make_stream(&s, &d, causes);
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
