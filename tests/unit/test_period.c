// SPDX-License-Identifier: GPL-2.0-or-later
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "event_stream.h"
#include "latscope/period.h"
#include "unit.h"

#define MS 1000000ULL
#define US 1000ULL
#define SEC 1000000000ULL

static void add_train(struct event_list *list, uint64_t run, double period, double phase,
		      double jitter, double missing, uint64_t duration)
{
	double t;

	for (t = phase; t < (double)run; t += period) {
		if (uniform() < missing)
			continue;
		ADD_DRAWN(list, t + jitter * gaussian(), duration + (uint64_t)(uniform() * 2000),
			  0);
	}
}

static void add_random(struct event_list *list, uint64_t run, double per_second)
{
	double t = 0;

	for (;;) {
		t += -log(uniform() + 1e-300) / per_second * (double)SEC;
		if (t >= (double)run)
			break;
		add_event(list, t, 1500 + (uint64_t)(uniform() * 20000));
	}
}

static int detect(struct event_list *list, uint64_t run, struct period_source *sources)
{
	struct period_params params = { .run_ns = run };

	qsort(list->events, list->n, sizeof(*list->events), compare_events);
	return period_detect(list->events, list->n, &params, sources, PERIOD_MAX_SOURCES, NULL);
}

static void assert_period(const struct period_source *s, double period, double tolerance)
{
	ck_assert_msg(fabs((double)s->period_ns - period) <= tolerance * period,
		      "period %lu ns, want %.0f", s->period_ns, period);
}

START_TEST(one_source_with_jitter_and_missing)
{
	struct event_list list = { 0 };
	struct period_source sources[PERIOD_MAX_SOURCES];
	uint64_t run = 5 * SEC;
	int n;

	rng_state = 1;
	add_train(&list, run, 4 * MS, 1.3 * MS, 20 * US, 0.10, 21700);
	n = detect(&list, run, sources);
	ck_assert_int_eq(n, 1);
	assert_period(&sources[0], 4 * MS, 0.001);
	ck_assert_uint_ge(sources[0].seen, 1080);
	ck_assert_uint_le(sources[0].seen, 1170);
	ck_assert_uint_ge(sources[0].expected, 1249);
	ck_assert_uint_le(sources[0].expected, 1251);
	ck_assert_uint_ge(sources[0].duration_ns, 21700);
	ck_assert_uint_le(sources[0].duration_ns, 23700);
	ck_assert_uint_ge(sources[0].jitter_ns, 10 * US);
	ck_assert_uint_le(sources[0].jitter_ns, 30 * US);
	free(list.events);
}
END_TEST

START_TEST(two_interleaved_sources)
{
	struct event_list list = { 0 };
	struct period_source sources[PERIOD_MAX_SOURCES];
	uint64_t run = 3 * SEC;
	int n, i, found_4 = 0, found_5 = 0;

	rng_state = 2;
	add_train(&list, run, 4 * MS, 0.2 * MS, 5 * US, 0.0, 3000);
	add_train(&list, run, 5 * MS, 2.9 * MS, 10 * US, 0.05, 30000);
	n = detect(&list, run, sources);
	ck_assert_int_eq(n, 2);
	for (i = 0; i < n; i++) {
		if (fabs((double)sources[i].period_ns - 4e6) < 4e3) {
			found_4 = 1;
			ck_assert_uint_lt(sources[i].duration_ns, 6000);
		}
		if (fabs((double)sources[i].period_ns - 5e6) < 5e3) {
			found_5 = 1;
			ck_assert_uint_gt(sources[i].duration_ns, 29000);
		}
	}
	ck_assert(found_4 && found_5);
	free(list.events);
}
END_TEST

START_TEST(source_plus_random_noise)
{
	struct event_list list = { 0 };
	struct period_source sources[PERIOD_MAX_SOURCES];
	uint64_t run = 10 * SEC;
	int n;

	rng_state = 3;
	add_train(&list, run, 100 * MS, 7 * MS, 50 * US, 0.0, 40000);
	add_random(&list, run, 300);
	n = detect(&list, run, sources);
	ck_assert_int_eq(n, 1);
	assert_period(&sources[0], 100 * MS, 0.001);
	ck_assert_uint_ge(sources[0].seen, 98);
	free(list.events);
}
END_TEST

START_TEST(harmonics_are_not_sources)
{
	struct event_list list = { 0 };
	struct period_source sources[PERIOD_MAX_SOURCES];
	uint64_t run = 4 * SEC;
	int n;

	rng_state = 4;
	/* a clean tick with a few late occurrences beyond the tolerance */
	add_train(&list, run, 4 * MS, 0.5 * MS, 2 * US, 0.3, 2500);
	n = detect(&list, run, sources);
	ck_assert_int_eq(n, 1);
	assert_period(&sources[0], 4 * MS, 0.001);
	free(list.events);
}
END_TEST

START_TEST(slow_source_over_a_long_run)
{
	struct event_list list = { 0 };
	struct period_source sources[PERIOD_MAX_SOURCES];
	uint64_t run = 215 * SEC;
	int n, i, found = 0;

	rng_state = 5;
	/* the 21.7 us preemption every second, under a 250 Hz tick */
	add_train(&list, run, 1 * SEC, 0.31 * SEC, 30 * US, 0.0, 21700);
	add_train(&list, run, 4 * MS, 0.1 * MS, 3 * US, 0.0, 1200);
	n = detect(&list, run, sources);
	ck_assert_int_eq(n, 2);
	for (i = 0; i < n; i++) {
		if (fabs((double)sources[i].period_ns - 1e9) < 1e6) {
			found = 1;
			ck_assert_uint_ge(sources[i].seen, 214);
			ck_assert_uint_ge(sources[i].duration_ns, 21700);
		}
	}
	ck_assert(found);
	free(list.events);
}
END_TEST

START_TEST(too_few_or_random_events_give_no_source)
{
	struct event_list list = { 0 };
	struct period_source sources[PERIOD_MAX_SOURCES];
	int seed;

	add_event(&list, 1 * MS, 100);
	add_event(&list, 5 * MS, 100);
	add_event(&list, 9 * MS, 100);
	ck_assert_int_eq(detect(&list, SEC, sources), 0);
	for (seed = 10; seed < 30; seed++) {
		list.n = 0;
		rng_state = (uint64_t)seed;
		add_random(&list, 5 * SEC, seed % 2 ? 50 : 2000);
		ck_assert_msg(detect(&list, 5 * SEC, sources) == 0,
			      "seed %d: false source of %lu ns (%lu of %lu)", seed,
			      sources[0].period_ns, sources[0].seen, sources[0].expected);
	}
	free(list.events);
}
END_TEST

START_TEST(assignment_marks_each_event)
{
	struct event_list list = { 0 };
	struct period_source sources[PERIOD_MAX_SOURCES];
	struct period_params params = { .run_ns = 2 * SEC };
	uint8_t *owner;
	size_t i, assigned = 0;
	int n;

	rng_state = 6;
	add_train(&list, 2 * SEC, 10 * MS, 1 * MS, 1 * US, 0.0, 5000);
	add_random(&list, 2 * SEC, 20);
	qsort(list.events, list.n, sizeof(*list.events), compare_events);
	owner = malloc(list.n);
	n = period_detect(list.events, list.n, &params, sources, PERIOD_MAX_SOURCES, owner);
	ck_assert_int_eq(n, 1);
	for (i = 0; i < list.n; i++)
		if (owner[i] == 0)
			assigned++;
	ck_assert_uint_eq(assigned, sources[0].seen);
	free(owner);
	free(list.events);
}
END_TEST

/* A recording: "# comments", the run length, then "start_ns duration_ns" lines. */
static uint64_t load_recording(const char *path, struct event_list *list)
{
	unsigned long long run = 0, t, duration;
	char line[256];
	FILE *f = fopen(path, "r");

	ck_assert_msg(f != NULL, "cannot open %s", path);
	while (fgets(line, sizeof(line), f)) {
		if (line[0] == '#')
			continue;
		if (!run) {
			run = strtoull(line, NULL, 10);
			continue;
		}
		if (sscanf(line, "%llu %llu", &t, &duration) == 2)
			add_event(list, (double)t, duration);
	}
	fclose(f);
	return run;
}

/* The sources found in a recording of latscope noise --gaps. */
static int detect_recorded(const char *path, struct period_source *sources)
{
	struct event_list list = { 0 };
	uint64_t run = load_recording(path, &list);
	int n = detect(&list, run, sources);

	free(list.events);
	return n;
}

static const struct period_source *find_source(const struct period_source *sources, int n,
					       double period)
{
	for (int i = 0; i < n; i++)
		if (fabs((double)sources[i].period_ns - period) <= 0.001 * period)
			return &sources[i];
	return NULL;
}

/*
 * Nothing but the known periods below 50 ms: no halves, no sub-harmonics,
 * no train where two sources meet. (Slower nested sources, a host's job
 * every 100 ticks, are the machine's.)
 */
static void assert_only_known_below_50ms(const struct period_source *sources, int n,
					 const double *known, size_t nr_known, const char *name)
{
	size_t k;
	int i;

	for (i = 0; i < n; i++) {
		for (k = 0; k < nr_known && !find_source(sources + i, 1, known[k]); k++)
			;
		ck_assert_msg(k < nr_known || sources[i].period_ns >= 50 * MS,
			      "%s: a %llu ns source", name,
			      (unsigned long long)sources[i].period_ns);
	}
}

/*
 * Real gaps from this project's VM: every train there is in step with the
 * host's 1 ms tick, the 5 ms thread lands on the 4 ms tick every 20 ms, and
 * each occurrence trails followers. The four sources, at their own periods,
 * and nothing else below 50 ms: no 8, 10 or 14 ms halves, no sub-harmonics,
 * no 20, 28 or 35 ms train where two of them meet. Every 100 host ticks the
 * host's interruption lasts 80 us longer (a host job on its tick): that is
 * a source of its own, nested in the 1 ms train.
 */
static void check_recording(const char *name)
{
	static const double periods[] = { 1 * MS, 4 * MS, 5 * MS, 7 * MS };
	struct period_source sources[PERIOD_MAX_SOURCES];
	struct event_list list = { 0 };
	uint64_t run = load_recording(name, &list);
	const struct period_source *thread, *host, *host_job;
	int n, i;

	n = detect(&list, run, sources);
	for (i = 0; i < 4; i++)
		ck_assert_msg(find_source(sources, n, periods[i]), "%s: no %.0f ns source", name,
			      periods[i]);
	assert_only_known_below_50ms(sources, n, periods, 4, name);
	thread = find_source(sources, n, 5 * MS);
	ck_assert_uint_ge(thread->seen, 450);
	ck_assert_uint_ge(thread->duration_ns, 50 * US);
	host = find_source(sources, n, 1 * MS);
	host_job = find_source(sources, n, 100 * host->period_ns);
	ck_assert_msg(host_job != NULL, "%s: no host job every 100 host ticks", name);
	ck_assert_uint_ge(host_job->seen, 28);
	ck_assert_ptr_eq(&sources[host_job->nested_in], host);
	/* what it adds to the host's interruption */
	ck_assert_uint_ge(host_job->duration_ns, 2 * host->duration_ns);
	free(list.events);
}

START_TEST(recorded_guest_with_two_threads)
{
	check_recording(FIXTURE("gaps/kvm-1ms-4ms-5ms-7ms-4.txt"));
	check_recording(FIXTURE("gaps/kvm-1ms-4ms-5ms-7ms-8.txt"));
}
END_TEST

/*
 * Real gaps of noise-periodic while the host's 1 ms train drifted through
 * the guest's sources: the 4 ms tick swallowing every fourth host
 * interruption (it was reported only as the 1 ms train, and noise-periodic
 * failed), then the 5 ms and 7 ms threads waking inside them.
 */
START_TEST(recorded_sources_inside_the_host_train)
{
	static const char *const names[] = { FIXTURE("gaps/kvm-tick-in-host-train.txt"),
					     FIXTURE("gaps/kvm-threads-in-host-train.txt") };
	static const double periods[] = { 1 * MS, 4 * MS, 5 * MS, 7 * MS };
	struct period_source sources[PERIOD_MAX_SOURCES];
	const struct period_source *s;
	unsigned int f, i;
	int n;

	for (f = 0; f < 2; f++) {
		struct event_list list = { 0 };
		uint64_t run = load_recording(names[f], &list);

		n = detect(&list, run, sources);
		for (i = 0; i < 4; i++) {
			s = find_source(sources, n, periods[i]);
			ck_assert_msg(s != NULL, "%s: no %.0f ns source", names[f], periods[i]);
			ck_assert_msg(s->seen * 2 >= s->expected,
				      "%s: %.0f ns source seen %llu of %llu", names[f], periods[i],
				      (unsigned long long)s->seen, (unsigned long long)s->expected);
		}
		assert_only_known_below_50ms(sources, n, periods, 4, names[f]);
		free(list.events);
	}
}
END_TEST

/*
 * A FIFO thread wakes every 2 ms and spins 10 us, every third time 60 us: a
 * 6 ms source in phase with the 2 ms one. Two sources; the 2 ms one was
 * there at every slot (1500 of 1500), its duration that of its own slots.
 */
/*
 * A thread every @period from @phase (jittering by 2 us) spinning
 * @short_ns, and @long_ns in slots of residue @which modulo @every, each
 * up to @spread_ns more.
 */
static void add_every_nth_longer(struct event_list *list, uint64_t run, double phase, double period,
				 int every, int which, uint64_t short_ns, uint64_t long_ns,
				 double spread_ns)
{
	for (int k = 0; phase + k * period < (double)run; k++)
		ADD_DRAWN(list, phase + k * period + 2 * US * gaussian(),
			  (k % every == which ? long_ns : short_ns) +
				  (uint64_t)(spread_ns * uniform()),
			  0);
}

START_TEST(every_third_occurrence_longer)
{
	struct event_list list = { 0 };
	struct period_source sources[PERIOD_MAX_SOURCES];
	const struct period_source *fast, *slow;
	uint64_t run = 3 * SEC;
	int n;

	rng_state = 10;
	add_every_nth_longer(&list, run, 0.7 * MS, 2 * MS, 3, 2, 10 * US, 60 * US, 3000);
	add_random(&list, run, 50);
	n = detect(&list, run, sources);
	ck_assert_int_eq(n, 2);
	fast = find_source(sources, n, 2 * MS);
	slow = find_source(sources, n, 6 * MS);
	ck_assert_ptr_nonnull(fast);
	ck_assert_ptr_nonnull(slow);
	ck_assert_uint_eq(fast->expected, 1500);
	ck_assert_uint_ge(fast->seen, 1495);
	ck_assert_uint_le(fast->duration_ns, 13 * US);
	ck_assert_uint_eq(slow->expected, 500);
	ck_assert_uint_ge(slow->seen, 495);
	/* nested in the 2 ms source: what the long spin adds to a short one */
	ck_assert_ptr_eq(&sources[slow->nested_in], fast);
	ck_assert_uint_eq(fast->nested_in, PERIOD_UNASSIGNED);
	ck_assert_uint_ge(slow->duration_ns, 48 * US);
	ck_assert_uint_le(slow->duration_ns, 52 * US);
	/* in phase: the 6 ms slots are 2 ms slots, to the jitter */
	ck_assert_uint_lt(
		llabs((int64_t)slow->phase_ns -
		      (int64_t)(fast->phase_ns +
				(uint64_t)period_slot(fast, slow->phase_ns) * fast->period_ns)),
		10 * US);
	free(list.events);
}
END_TEST

/*
 * A minute of a 1 ms train whose every second occurrence lasts 60 us, not
 * 20 us: 60,000 occurrences, and the long ones show at every even modulus
 * up to the search's limit, in every residue of the nested one's. Each
 * median of those residues was a pass over all occurrences, and the search
 * took 50 s here, more than the 30 s this case may take; it takes 2 s now.
 */
START_TEST(every_second_occurrence_longer_for_a_minute)
{
	struct event_list list = { 0 };
	struct period_source sources[PERIOD_MAX_SOURCES];
	const struct period_source *fast, *slow;
	uint64_t run = 60 * SEC;
	int n;

	rng_state = 12;
	add_every_nth_longer(&list, run - 1 * MS, 0.1 * MS, 1 * MS, 2, 0, 20 * US, 60 * US, 4000);
	n = detect(&list, run, sources);
	ck_assert_int_eq(n, 2);
	fast = find_source(sources, n, 1 * MS);
	slow = find_source(sources, n, 2 * MS);
	ck_assert_ptr_nonnull(fast);
	ck_assert_ptr_nonnull(slow);
	ck_assert_uint_ge(fast->seen, 59990);
	ck_assert_uint_ge(slow->seen, 29995);
	ck_assert_ptr_eq(&sources[slow->nested_in], fast);
	/* what the long ones add to the short ones */
	ck_assert_uint_ge(slow->duration_ns, 38 * US);
	ck_assert_uint_le(slow->duration_ns, 42 * US);
	free(list.events);
}
END_TEST

/*
 * The scene of tests/system/noise-nested: a thread every 2 ms from @phase
 * (jittering by @jitter), spinning 10 us and every third time 60 us (cause
 * 1); a host tick every 1 ms from @host_phase in a share @fill of its slots,
 * jittering by @host_jitter, lasting @host_length and up to @host_spread
 * more (cause 0); and @stalls host stalls of 16 to 24 ms (cause 0).
 */
static void add_nested_scene(struct event_list *list, uint64_t run, double phase, double jitter,
			     double host_phase, double fill, double host_jitter,
			     uint64_t host_length, double host_spread, int stalls)
{
	int k;

	for (k = 0; k * 2 * MS < run; k++)
		ADD_DRAWN(list, phase + k * 2.0 * MS + jitter * gaussian(),
			  (k % 3 == 0 ? 60 * US : 10 * US) + (uint64_t)(2000 * uniform()),
			  1ULL << 1);
	for (k = 0; k * MS < run; k++) {
		if (uniform() >= fill)
			continue;
		ADD_DRAWN(list, host_phase + k * 1.0 * MS + host_jitter * gaussian(),
			  host_length + (uint64_t)(host_spread * uniform()), 1ULL << 0);
	}
	for (k = 0; k < stalls; k++)
		ADD_DRAWN(list, uniform() * (double)run, 16 * MS + (uint64_t)(8e6 * uniform()),
			  1ULL << 0);
}

/*
 * The thread of every_third_occurrence_longer half a millisecond off the
 * host's 1 ms train, on a loaded VM (the host in three of four slots,
 * stalls of 16 to 24 ms), with causes as --explain gives them: together
 * they make a 0.5 ms grid whose every fourth slot stays empty. That grid
 * is the two trains in step, not a source: once it won, the thread came
 * out as a 1 ms source nested in it, seen in half of its slots, and the
 * long spins as a 3 ms one.
 */
START_TEST(thread_half_a_period_off_the_host_train)
{
	struct event_list list = { 0 };
	struct period_source sources[PERIOD_MAX_SOURCES];
	const struct period_source *host, *fast, *slow;
	uint64_t run = 5 * SEC;
	int n;

	rng_state = 13;
	add_nested_scene(&list, run, 0.278 * MS, 1 * US, 0.778 * MS, 0.77, 2 * US, 15 * US, 25000,
			 10);
	merge_overlapping(&list);
	n = detect(&list, run, sources);
	ck_assert_int_eq(n, 3);
	host = find_source(sources, n, 1 * MS);
	fast = find_source(sources, n, 2 * MS);
	slow = find_source(sources, n, 6 * MS);
	ck_assert_ptr_nonnull(host);
	ck_assert_ptr_nonnull(fast);
	ck_assert_ptr_nonnull(slow);
	ck_assert_uint_ge(fast->seen, 9 * fast->expected / 10);
	ck_assert_uint_ge(slow->seen, 9 * slow->expected / 10);
	ck_assert_uint_eq(fast->nested_in, PERIOD_UNASSIGNED);
	ck_assert_ptr_eq(&sources[slow->nested_in], fast);
	ck_assert_uint_ge(slow->duration_ns, 45 * US);
	free(list.events);
}
END_TEST

/*
 * The thread of every_third_occurrence_longer 73 us after every other tick
 * of a host whose ticks jitter by 9 us (a draw of tests/data/period-sweep):
 * the thread's 2 ms train lies half a period from the host's odd ticks to
 * within the host's walking tolerance, yet far beyond what either train's
 * jitter allows. Taken for two halves of one train, the two made a 1 ms
 * train, and the long spins a 3 ms source nested in it.
 */
START_TEST(thread_just_after_a_jittery_host_tick)
{
	struct event_list list = { 0 };
	struct period_source sources[PERIOD_MAX_SOURCES];
	const struct period_source *fast = NULL, *slow;
	uint64_t run = 5 * SEC;
	int n, k, i;

	rng_state = 15;
	add_nested_scene(&list, run, 0.073 * MS, 2 * US, 0, 0.72, 8.8 * US, 8 * US, 28000, 0);
	/* the guest's 4 ms tick (cause 2), then the stalls */
	for (k = 0; k * 4 * MS < run; k++)
		ADD_DRAWN(&list, 3.647 * MS + k * 4.0 * MS + 2 * US * gaussian(),
			  11 * US + (uint64_t)(3000 * uniform()), 1ULL << 2);
	for (k = 0; k < 11; k++)
		ADD_DRAWN(&list, uniform() * (double)run, 16 * MS + (uint64_t)(8e6 * uniform()),
			  1ULL << 0);
	add_random(&list, run, 121);
	merge_overlapping(&list);
	n = detect(&list, run, sources);
	/* the thread's train: free, at 2 ms, its every wake-up seen */
	for (i = 0; i < n; i++)
		if (fabs((double)sources[i].period_ns - 2 * MS) <= 0.001 * 2 * MS &&
		    sources[i].nested_in == PERIOD_UNASSIGNED &&
		    sources[i].seen >= 9 * sources[i].expected / 10)
			fast = &sources[i];
	ck_assert_msg(fast != NULL, "no 2 ms train holds the thread's wake-ups");
	slow = find_source(sources, n, 6 * MS);
	ck_assert_ptr_nonnull(slow);
	ck_assert_ptr_eq(&sources[slow->nested_in], fast);
	ck_assert_uint_ge(slow->seen, 9 * slow->expected / 10);
	ck_assert_uint_ge(slow->duration_ns, 45 * US);
	ck_assert_ptr_null(find_source(sources, n, 3 * MS));
	free(list.events);
}
END_TEST

/*
 * Draws 33 and 173 of tests/data/period-sweep: a host whose 1 ms ticks
 * jitter by 9-10.5 us, in 57% and 82% of its slots. Four times that
 * jitter is wider than the 30 us window a 1 ms train starts with, so the
 * window never narrowed and the host's train was found only at 3 ms, as
 * three trains a millisecond apart; the 6 ms long spins were then lost.
 * The three are phases of one train.
 */
START_TEST(jittery_host_tick_found_in_three_phases)
{
	static const long draws[] = { 33, 173 };
	struct period_source sources[PERIOD_MAX_SOURCES];
	const struct period_source *host, *fast, *slow;
	unsigned int i;
	int n;

	for (i = 0; i < sizeof(draws) / sizeof(draws[0]); i++) {
		struct event_list list = { 0 };
		struct nested_draw draw = nested_draw_of(draws[i]);

		add_nested_draw(&list, &draw, true);
		n = detect(&list, NESTED_DRAW_RUN_NS, sources);
		ck_assert_msg(!find_source(sources, n, 3 * MS), "draw %ld: a 3 ms source",
			      draws[i]);
		host = find_source(sources, n, 1 * MS);
		fast = find_source(sources, n, 2 * MS);
		slow = find_source(sources, n, 6 * MS);
		ck_assert_msg(host && fast && slow, "draw %ld: no 1, 2 or 6 ms source", draws[i]);
		ck_assert_uint_ge(host->seen, host->expected / 2);
		ck_assert_uint_ge(fast->seen, 9 * fast->expected / 10);
		ck_assert_ptr_eq(&sources[slow->nested_in], fast);
		ck_assert_uint_ge(slow->seen, 9 * slow->expected / 10);
		ck_assert_uint_ge(slow->duration_ns, 45 * US);
		free(list.events);
	}
}
END_TEST

/*
 * With the list full (a loaded VM's disk interrupts and host stalls make
 * weak trains of their own), the nested source of a strong one takes the
 * place of the weakest: here a list of two, a 7 ms train seen 250 times
 * and the 6 ms long spins seen 500 times.
 */
START_TEST(nested_source_displaces_a_weaker_one)
{
	struct event_list list = { 0 };
	struct period_source sources[PERIOD_MAX_SOURCES];
	struct period_params params = { .run_ns = 3 * SEC };
	const struct period_source *fast, *slow;
	int n, k;

	rng_state = 14;
	for (k = 0; k * 2 * MS < params.run_ns; k++)
		ADD_DRAWN(&list, 0.7 * MS + k * 2.0 * MS + 2 * US * gaussian(),
			  (k % 3 == 2 ? 60 * US : 10 * US) + (uint64_t)(3000 * uniform()), 0);
	add_train(&list, params.run_ns, 7 * MS, 1.9 * MS, 2 * US, 0.4, 20000);
	qsort(list.events, list.n, sizeof(*list.events), compare_events);
	n = period_detect(list.events, list.n, &params, sources, 2, NULL);
	ck_assert_int_eq(n, 2);
	fast = find_source(sources, n, 2 * MS);
	slow = find_source(sources, n, 6 * MS);
	ck_assert_ptr_nonnull(fast);
	ck_assert_ptr_nonnull(slow);
	ck_assert_ptr_eq(&sources[slow->nested_in], fast);
	ck_assert_uint_ge(slow->seen, 495);
	free(list.events);
}
END_TEST

/*
 * The same on this VM, recorded: the thread's slots are in phase with the
 * host's 1 ms train too, which meets each of them alike (the 6 ms source
 * was once dropped as a meeting of the two). Measured with the loop at
 * FIFO 10, and with the default policy on a CPU busy with builds, whose
 * tasks lengthen a tenth of the thread's gaps by more than the spin.
 */
START_TEST(recorded_every_third_wake_up_longer)
{
	static const char *const names[] = {
		FIXTURE("gaps/kvm-2ms-thread-every-third-longer.txt"),
		FIXTURE("gaps/kvm-2ms-thread-every-third-longer-other.txt"),
	};
	static const double periods[] = { 1 * MS, 2 * MS, 4 * MS, 6 * MS };
	struct period_source sources[PERIOD_MAX_SOURCES];
	const struct period_source *fast, *slow;
	unsigned int f;
	int n;

	for (f = 0; f < 2; f++) {
		struct event_list list = { 0 };
		uint64_t run = load_recording(names[f], &list);

		n = detect(&list, run, sources);
		fast = find_source(sources, n, 2 * MS);
		slow = find_source(sources, n, 6 * MS);
		ck_assert_msg(fast && slow, "%s: no 2 ms or no 6 ms source", names[f]);
		ck_assert_uint_ge(slow->seen, 400);
		ck_assert_ptr_eq(&sources[slow->nested_in], fast);
		ck_assert_uint_ge(slow->duration_ns, 40 * US);
		ck_assert_uint_ge(fast->seen, 1300);
		assert_only_known_below_50ms(sources, n, periods, 4, names[f]);
		free(list.events);
	}
}
END_TEST

/*
 * Recorded while the machine compiled (load 9): the thread's 2 ms slots and
 * the host's train came out as two 2 ms trains, one holding the spins, and
 * beside the 6 ms source nested in it two free 6 ms trains of host
 * interruptions. A nested train's duration is what it adds to another's
 * gaps, a free one's a whole gap: they are never one period's phases (the
 * period list once printed the three as "3 distinct trains" and lost the
 * nesting).
 */
START_TEST(nested_train_is_not_a_phase_of_free_ones)
{
	struct period_source sources[PERIOD_MAX_SOURCES];
	size_t group[PERIOD_MAX_SOURCES];
	int n = detect_recorded(FIXTURE("gaps/kvm-2ms-thread-every-third-longer-loaded.txt"),
				sources);
	bool nested = false;
	int i, j;

	period_phase_groups(sources, (size_t)n, group);
	for (i = 0; i < n; i++) {
		nested |= sources[i].nested_in != PERIOD_UNASSIGNED;
		for (j = 0; j < n; j++)
			if (group[i] == group[j])
				ck_assert_uint_eq(sources[i].nested_in, sources[j].nested_in);
	}
	ck_assert_msg(nested, "no nested source: the recording no longer shows the case");
}
END_TEST

/*
 * Recorded: the thread woke about 50 us after the host's tick, and in
 * about 1000 of its 2500 slots the tick's gap lasted into the spin, so one
 * gap held both and went to the host's 1 ms train. Those slots are the
 * 2 ms source's hidden ones (not seen: its causes are counted from what it
 * saw), and with them it accounts for nearly all its slots. A host gap of
 * usual length near a slot hides nothing. (Counting any faster gap that
 * covers the slot finds 233: a merged gap often ends just before the slot,
 * which the fit puts at the thread's wake-up.)
 */
START_TEST(slots_inside_a_faster_gap_are_hidden)
{
	struct period_source sources[PERIOD_MAX_SOURCES];
	int n = detect_recorded(FIXTURE("gaps/kvm-2ms-thread-inside-host-gaps.txt"), sources);
	const struct period_source *host, *thread;

	host = find_source(sources, n, 1 * MS);
	thread = find_source(sources, n, 2 * MS);
	ck_assert_ptr_nonnull(host);
	ck_assert_ptr_nonnull(thread);
	ck_assert_uint_eq(host->hidden, 0); /* nothing faster */
	ck_assert_uint_ge(thread->hidden, 500);
	/* the rest were in the four RT-throttled gaps left out (about 100) */
	ck_assert_uint_ge(thread->seen + thread->hidden, thread->expected * 85 / 100);
	ck_assert_uint_le(thread->seen + thread->hidden, thread->expected);
}
END_TEST

/*
 * A guest's 4 ms tick inside the host's 1 ms train: the tick comes 14 us
 * before every fourth host interruption and its gap swallows it. Two
 * sources, the tick's gap its own, the host's 1 ms train at every slot.
 */
START_TEST(tick_inside_a_faster_train)
{
	struct event_list list = { 0 };
	struct period_source sources[PERIOD_MAX_SOURCES];
	const struct period_source *host, *tick;
	uint64_t run = 3 * SEC;
	double t;
	int n, k;

	rng_state = 11;
	for (k = 0; k * MS < run; k++) {
		t = 0.4 * MS + k * 1.0 * MS + 500 * gaussian();
		if (k % 4 == 1)
			add_event(&list, t - 14 * US,
				  (uint64_t)(14 * US + 36 * US + 12 * US + 4000 * uniform()));
		else
			add_event(&list, t, (uint64_t)(33 * US + 6000 * uniform()));
	}
	add_random(&list, run, 100);
	n = detect(&list, run, sources);
	ck_assert_int_eq(n, 2);
	host = find_source(sources, n, 1 * MS);
	tick = find_source(sources, n, 4 * MS);
	ck_assert_ptr_nonnull(host);
	ck_assert_ptr_nonnull(tick);
	ck_assert_uint_ge(host->seen, 2990);
	ck_assert_uint_le(host->duration_ns, 40 * US);
	ck_assert_uint_ge(tick->seen, 745);
	ck_assert_ptr_eq(&sources[tick->nested_in], host);
	/* 14 us before the host's slot, 12 us after its interruption */
	ck_assert_uint_ge(tick->duration_ns, 24 * US);
	ck_assert_uint_le(tick->duration_ns, 32 * US);
	free(list.events);
}
END_TEST

/*
 * Under --explain the gaps carry their causes: a 4 ms train whose gaps are
 * no longer than the 1 ms train's, but whose cause the others lack, is a
 * source of its own; without the causes nothing tells it apart.
 */
START_TEST(causes_tell_a_nested_source_apart)
{
	struct event_list list = { 0 };
	struct period_source sources[PERIOD_MAX_SOURCES];
	uint64_t run = 3 * SEC;
	size_t i;
	int n, k;

	rng_state = 12;
	for (k = 0; k * MS < run; k++) {
		ADD_DRAWN(&list, 0.4 * MS + k * 1.0 * MS + 500 * gaussian(),
			  (uint64_t)(30 * US + 10000 * uniform()), 0);
		list.events[list.n - 1].causes = k % 4 == 3 ? 1ULL << 7 | 1ULL << 2 : 1ULL << 2;
	}
	n = detect(&list, run, sources);
	ck_assert_int_eq(n, 2);
	ck_assert_ptr_nonnull(find_source(sources, n, 1 * MS));
	ck_assert_uint_ge(find_source(sources, n, 4 * MS)->seen, 745);
	for (i = 0; i < list.n; i++)
		list.events[i].causes = 0;
	ck_assert_int_eq(detect(&list, run, sources), 1);
	free(list.events);
}
END_TEST

/*
 * One 5 ms source with no structure in its durations (random lengths, a
 * slow trend, random causes, missed occurrences) is one source: not also
 * 10, 15 or 20 ms.
 */
START_TEST(lone_source_has_no_nested_harmonics)
{
	struct event_list list = { 0 };
	struct period_source sources[PERIOD_MAX_SOURCES];
	uint64_t run = 10 * SEC;
	int seed, n;
	double t;

	for (seed = 20; seed < 30; seed++) {
		list.n = 0;
		rng_state = (uint64_t)seed;
		for (t = 1.1 * MS; t < (double)run; t += 5 * MS) {
			if (uniform() < 0.1)
				continue;
			ADD_DRAWN(&list, t + 3 * US * gaussian(),
				  (uint64_t)((20 + 40 * t / (double)run) * US *
					     exp(0.5 * gaussian())),
				  0);
			if (seed % 2)
				list.events[list.n - 1].causes = 1ULL
								 << (unsigned int)(4 * uniform());
		}
		add_random(&list, run, 30);
		n = detect(&list, run, sources);
		ck_assert_msg(n == 1, "seed %d: %d sources, the second every %llu ns", seed, n,
			      (unsigned long long)sources[n > 1].period_ns);
		assert_period(&sources[0], 5 * MS, 0.001);
	}
	free(list.events);
}
END_TEST

/* Nested twice: a 100 ms job on every 25th tick of a 4 ms tick inside a 1 ms train. */
START_TEST(nested_twice)
{
	struct event_list list = { 0 };
	struct period_source sources[PERIOD_MAX_SOURCES];
	const struct period_source *host, *tick, *job;
	uint64_t run = 5 * SEC;
	int n, k;

	rng_state = 13;
	for (k = 0; k * MS < run; k++)
		ADD_DRAWN(&list, 0.2 * MS + k * 1.0 * MS + 300 * gaussian(),
			  (uint64_t)((k % 100 == 7 ? 300 :
				      k % 4 == 3   ? 70 :
						     25) *
					     US +
				     5000 * uniform()),
			  0);
	n = detect(&list, run, sources);
	ck_assert_int_eq(n, 3);
	host = find_source(sources, n, 1 * MS);
	tick = find_source(sources, n, 4 * MS);
	job = find_source(sources, n, 100 * MS);
	ck_assert_uint_ge(host->seen, 4995);
	ck_assert_uint_ge(tick->seen, 1245);
	ck_assert_uint_eq(job->seen, 50);
	ck_assert_ptr_eq(&sources[tick->nested_in], host);
	ck_assert_ptr_eq(&sources[job->nested_in], tick);
	/* 300 us where the tick's gaps are 70 us */
	ck_assert_uint_ge(job->duration_ns, 225 * US);
	ck_assert_uint_le(job->duration_ns, 240 * US);
	free(list.events);
}
END_TEST

START_TEST(recorded_idle_guest)
{
	struct period_source sources[PERIOD_MAX_SOURCES];
	int n = detect_recorded(FIXTURE("gaps/kvm-idle.txt"), sources);
	const struct period_source *host, *tick;

	host = find_source(sources, n, 1 * MS);
	tick = find_source(sources, n, 4 * MS);
	ck_assert_ptr_nonnull(host);
	ck_assert_ptr_nonnull(tick);
	ck_assert_uint_ge(tick->seen, 740);
	ck_assert_uint_eq(tick->expected, 750);
}
END_TEST

/*
 * Real gaps of noise-periodic's run: a 10.0001 ms train drifts 32 us past the
 * 5 ms thread's slots over the run. A grid at 5/3 or 5/2 ms through both held
 * more events than either and was once reported instead of the 5 ms thread:
 * the 10 ms train lies off the thread's own line, so the grid is folded.
 */
static void check_drifting_train(const char *name)
{
	struct period_source sources[PERIOD_MAX_SOURCES];
	struct event_list list = { 0 };
	uint64_t run = load_recording(name, &list);
	const struct period_source *thread, *drifting;
	int n, i;

	n = detect(&list, run, sources);
	thread = find_source(sources, n, 5 * MS);
	drifting = find_source(sources, n, 10 * MS);
	ck_assert_msg(thread != NULL, "%s: no 5 ms source", name);
	ck_assert_msg(drifting != NULL, "%s: no 10 ms source", name);
	ck_assert_uint_ge(thread->seen, 550);
	ck_assert_uint_ge(drifting->seen, 280);
	ck_assert_ptr_nonnull(find_source(sources, n, 4 * MS));
	ck_assert_ptr_nonnull(find_source(sources, n, 7 * MS));
	for (i = 0; i < n; i++)
		ck_assert_msg(sources[i].period_ns >= 4 * MS, "%s: a %llu ns sub-harmonic", name,
			      (unsigned long long)sources[i].period_ns);
	free(list.events);
}

START_TEST(drifting_train_does_not_make_a_subharmonic)
{
	check_drifting_train(FIXTURE("gaps/kvm-5ms-drifting-10ms-1.txt"));
	check_drifting_train(FIXTURE("gaps/kvm-5ms-drifting-10ms-2.txt"));
}
END_TEST

/* Each occurrence is an interrupt gap and, 30 us later, a softirq gap. */
START_TEST(followers_belong_to_their_occurrence)
{
	struct event_list list = { 0 };
	struct period_source sources[PERIOD_MAX_SOURCES];
	uint64_t run = 2 * SEC;
	double t;
	int n;

	rng_state = 7;
	for (t = 0.3 * MS; t < (double)run; t += 4 * MS) {
		add_event(&list, t + 2 * US * gaussian(), 3000);
		add_event(&list, t + 30 * US + 5 * US * gaussian(), 2000);
	}
	n = detect(&list, run, sources);
	ck_assert_int_eq(n, 1);
	assert_period(&sources[0], 4 * MS, 0.001);
	ck_assert_uint_eq(sources[0].seen, 500);
	ck_assert_uint_eq(sources[0].duration_ns, 5000);
	free(list.events);
}
END_TEST

/* A 5 ms train losing every 4th occurrence to a 4 ms train that lands on it. */
START_TEST(regular_losses_do_not_halve_the_period)
{
	struct event_list list = { 0 };
	struct period_source sources[PERIOD_MAX_SOURCES];
	uint64_t run = 3 * SEC;
	int n, k;

	rng_state = 8;
	for (k = 0; k * 5 * MS < run; k++)
		if (k % 4 != 0)
			add_event(&list, 1.0 * MS + k * 5.0 * MS + 1 * US * gaussian(), 70000);
	for (k = 0; k * 4 * MS < run; k++)
		add_event(&list, 1.0 * MS + k * 4.0 * MS + 1 * US * gaussian(),
			  k % 5 == 0 ? 90000 : 25000);
	n = detect(&list, run, sources);
	ck_assert_int_eq(n, 2);
	ck_assert_ptr_nonnull(find_source(sources, n, 4 * MS));
	ck_assert_ptr_nonnull(find_source(sources, n, 5 * MS));
	free(list.events);
}
END_TEST

/*
 * Two trains of one period at distinct phases are two sources (never one at
 * half the period, never merged), and group as one period.
 */
START_TEST(one_period_two_phases)
{
	struct event_list list = { 0 };
	struct period_source sources[PERIOD_MAX_SOURCES];
	size_t group[PERIOD_MAX_SOURCES];
	uint64_t run = 10 * SEC;
	int n;

	rng_state = 9;
	add_train(&list, run, 60 * MS, 4 * MS, 2 * US, 0.25, 40000);
	add_train(&list, run, 60 * MS, 25 * MS, 2 * US, 0.25, 42000);
	add_train(&list, run, 4 * MS, 1 * MS, 1 * US, 0.0, 20000);
	n = detect(&list, run, sources);
	ck_assert_int_eq(n, 3);
	ck_assert_uint_eq(period_phase_groups(sources, (size_t)n, group), 2);
	ck_assert_ptr_nonnull(find_source(sources, n, 60 * MS));
	for (int i = 0; i < n; i++)
		if (fabs((double)sources[i].period_ns - 60e6) < 60e3)
			ck_assert_uint_eq(group[i],
					  (size_t)(find_source(sources, n, 60 * MS) - sources));
		else
			ck_assert_uint_eq(group[i], (size_t)i);
	free(list.events);
}
END_TEST

START_TEST(slot_of_a_time)
{
	struct period_source s = { .period_ns = 4 * MS, .phase_ns = 1 * MS };

	ck_assert_int_eq(period_slot(&s, 1 * MS), 0);
	ck_assert_int_eq(period_slot(&s, 5 * MS + 100 * US), 1);
	ck_assert_int_eq(period_slot(&s, 4 * SEC + 1 * MS - 30 * US), 1000);
	ck_assert_int_eq(period_slot(&s, 0), 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("period");
	TCase *tc = tcase_create("period");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, one_source_with_jitter_and_missing);
	tcase_add_test(tc, two_interleaved_sources);
	tcase_add_test(tc, source_plus_random_noise);
	tcase_add_test(tc, harmonics_are_not_sources);
	tcase_add_test(tc, slow_source_over_a_long_run);
	tcase_add_test(tc, too_few_or_random_events_give_no_source);
	tcase_add_test(tc, assignment_marks_each_event);
	tcase_add_test(tc, recorded_guest_with_two_threads);
	tcase_add_test(tc, recorded_sources_inside_the_host_train);
	tcase_add_test(tc, every_third_occurrence_longer);
	tcase_add_test(tc, every_second_occurrence_longer_for_a_minute);
	tcase_add_test(tc, thread_half_a_period_off_the_host_train);
	tcase_add_test(tc, thread_just_after_a_jittery_host_tick);
	tcase_add_test(tc, jittery_host_tick_found_in_three_phases);
	tcase_add_test(tc, nested_source_displaces_a_weaker_one);
	tcase_add_test(tc, recorded_every_third_wake_up_longer);
	tcase_add_test(tc, nested_train_is_not_a_phase_of_free_ones);
	tcase_add_test(tc, slots_inside_a_faster_gap_are_hidden);
	tcase_add_test(tc, tick_inside_a_faster_train);
	tcase_add_test(tc, causes_tell_a_nested_source_apart);
	tcase_add_test(tc, lone_source_has_no_nested_harmonics);
	tcase_add_test(tc, nested_twice);
	tcase_add_test(tc, recorded_idle_guest);
	tcase_add_test(tc, drifting_train_does_not_make_a_subharmonic);
	tcase_add_test(tc, followers_belong_to_their_occurrence);
	tcase_add_test(tc, regular_losses_do_not_halve_the_period);
	tcase_add_test(tc, one_period_two_phases);
	tcase_add_test(tc, slot_of_a_time);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
