// SPDX-License-Identifier: GPL-2.0-or-later
#include <math.h>
#include <string.h>

#include "latscope/explain_join.h"
#include "latscope/explain_result.h"
#include "latscope/result.h"
#include "recording.h"
#include "unit.h"

#define MS 1000000ULL
#define US 1000ULL
#define SEC 1000000000ULL

static struct names *names;
static struct explain_cpu *engine;
static struct explain_join *join;
static struct period_source sources[PERIOD_MAX_SOURCES];
static int nr_sources;

static void setup(void)
{
	names = names_new();
	engine = explain_cpu_new(1, EXPLAIN_NOISE, names, 5);
	join = NULL;
	nr_sources = 0;
}

static void teardown(void)
{
	explain_join_free(join);
	explain_cpu_free(engine);
	names_free(names);
}

/* The gap list's periodicity search, then the join, as noise --explain does. */
static void join_gap_list(const struct period_event *gaps, size_t nr_gaps, uint64_t run_ns)
{
	struct period_params params = { .run_ns = run_ns };
	uint8_t *assignment = malloc(nr_gaps);
	struct window_source *windows = malloc(nr_gaps * sizeof(*windows));
	size_t g;

	nr_sources = period_detect(gaps, nr_gaps, &params, sources, PERIOD_MAX_SOURCES, assignment);
	ck_assert_int_ge(nr_sources, 0);
	for (g = 0; g < nr_gaps; g++) {
		windows[g].source = assignment[g];
		windows[g].slot = assignment[g] == PERIOD_UNASSIGNED ?
					  0 :
					  period_slot(&sources[assignment[g]], gaps[g].t_ns);
	}
	join = explain_join_new(engine, sources, (unsigned int)nr_sources, windows, nr_gaps);
	ck_assert_ptr_nonnull(join);
	free(windows);
	free(assignment);
}

static bool near(uint64_t value, uint64_t want)
{
	return fabs((double)value - (double)want) <= 0.002 * (double)want;
}

/* The gap list's sources of one period, by index. */
static int sources_at(uint64_t period, int *found, int most)
{
	int s, n = 0;

	for (s = 0; s < nr_sources && n < most; s++)
		if (near(sources[s].period_ns, period))
			found[n++] = s;
	return n;
}

static unsigned int cause_index(uint8_t kind, const char *label_prefix)
{
	const struct explain_cause *causes;
	unsigned int n, i;
	char label[128];

	causes = explain_cpu_causes(engine, &n);
	for (i = 0; i < n; i++)
		if (causes[i].key.kind == kind &&
		    (!label_prefix ||
		     !strncmp(explain_cause_label(engine, &causes[i], label, sizeof(label)),
			      label_prefix, strlen(label_prefix))))
			return i;
	ck_abort_msg("no cause of kind %s named %s", explain_kind_name(kind),
		     label_prefix ? label_prefix : "-");
	return 0;
}

static uint64_t phase_distance_ns(const struct period_source *a, const struct period_source *b)
{
	uint64_t offset = (a->phase_ns > b->phase_ns ? a->phase_ns - b->phase_ns :
						       b->phase_ns - a->phase_ns) %
			  a->period_ns;

	return offset < a->period_ns - offset ? offset : a->period_ns - offset;
}

static bool main_cause_of(unsigned int source, unsigned int cause)
{
	const struct explain_source *src = explain_join_source(join, source);
	unsigned int k;

	for (k = 0; k < src->nr_main; k++)
		if (src->causes[k].cause == cause)
			return true;
	return false;
}

/* The train of @cause that is gap source @source, or NULL. */
static const struct explain_train *train_for(unsigned int cause, unsigned int source)
{
	const struct explain_train *trains;
	unsigned int nr, t;

	trains = explain_join_trains(join, cause, &nr);
	for (t = 0; t < nr; t++)
		if (trains[t].source == source)
			return &trains[t];
	return NULL;
}

static bool with(const struct explain_train *train, unsigned int cause)
{
	unsigned int k;

	for (k = 0; k < train->nr_with; k++)
		if (train->with[k] == cause)
			return true;
	return false;
}

#define RECORDING FIXTURE("explain/kvm-two-60ms-threads.txt.gz")

/*
 * The story is one: every cause the period list names for a source has
 * that source among its own trains, at its period.
 */
START_TEST(every_source_is_in_its_causes_rows)
{
	struct recording rec;
	unsigned int s, k;

	recording_replay(RECORDING, engine, names, &rec);
	join_gap_list(rec.gaps, rec.nr_gaps, rec.run_ns);
	ck_assert_int_ge(nr_sources, 4);
	for (s = 0; s < (unsigned int)nr_sources; s++) {
		const struct explain_source *src = explain_join_source(join, s);

		ck_assert_uint_ge(src->nr_main, 1);
		ck_assert_uint_eq(src->occurrences, sources[s].seen);
		for (k = 0; k < src->nr_causes; k++) {
			const struct explain_train *train = train_for(src->causes[k].cause, s);

			ck_assert_msg(train != NULL, "source %u: cause %u has no train for it", s,
				      src->causes[k].cause);
			ck_assert(period_same_period(&train->period, &sources[s]));
		}
	}
	free(rec.gaps);
}
END_TEST

/*
 * The guest's 4 ms tick is two causes at once: the VM exit (unexplained)
 * and local_timer, each with the other as company. The unexplained time
 * has a second period of its own: the host's 10 ms tick, alone.
 */
START_TEST(a_source_of_two_causes_and_a_cause_of_two_periods)
{
	const struct explain_train *tick, *host, *timer;
	unsigned int unexplained, local_timer;
	struct recording rec;
	int guest[2], hosts[2];

	recording_replay(RECORDING, engine, names, &rec);
	join_gap_list(rec.gaps, rec.nr_gaps, rec.run_ns);
	unexplained = cause_index(CAUSE_UNEXPLAINED, NULL);
	local_timer = cause_index(CAUSE_VECTOR, "local_timer");
	ck_assert_int_eq(sources_at(4 * MS, guest, 2), 1);
	ck_assert_int_eq(sources_at(10 * MS, hosts, 2), 1);
	/* one source, two causes */
	ck_assert(main_cause_of((unsigned int)guest[0], unexplained));
	ck_assert(main_cause_of((unsigned int)guest[0], local_timer));
	tick = train_for(unexplained, (unsigned int)guest[0]);
	timer = train_for(local_timer, (unsigned int)guest[0]);
	ck_assert_ptr_nonnull(tick);
	ck_assert_ptr_nonnull(timer);
	ck_assert(with(tick, local_timer));
	ck_assert(with(timer, unexplained));
	ck_assert(!tick->alone);
	/* one cause, two periods: the host's tick has nothing else in its gaps */
	ck_assert(main_cause_of((unsigned int)hosts[0], unexplained));
	ck_assert(!main_cause_of((unsigned int)hosts[0], local_timer));
	host = train_for(unexplained, (unsigned int)hosts[0]);
	ck_assert_ptr_nonnull(host);
	ck_assert(host->alone);
	ck_assert_uint_eq(host->nr_with, 0);
	ck_assert(!period_same_period(&tick->period, &host->period));
	free(rec.gaps);
}
END_TEST

/*
 * Two threads wake every 60 ms at different phases: the gap list has two
 * sources of one period, each caused by its own thread, so they are
 * distinct trains; the unexplained time (the VM exit of each wake-up) has
 * both, as one period with two phases.
 */
START_TEST(one_period_two_phases_two_threads)
{
	const struct explain_train *trains, *a_train, *b_train;
	unsigned int a, b, unexplained, nr, t, in_group = 0;
	size_t group[PERIOD_MAX_SOURCES];
	struct recording rec;
	int slow[3];

	recording_replay(RECORDING, engine, names, &rec);
	join_gap_list(rec.gaps, rec.nr_gaps, rec.run_ns);
	a = cause_index(CAUSE_THREAD, "latscope-a:");
	b = cause_index(CAUSE_THREAD, "latscope-b:");
	unexplained = cause_index(CAUSE_UNEXPLAINED, NULL);
	ck_assert_int_eq(sources_at(60 * MS, slow, 3), 2);
	period_phase_groups(sources, (size_t)nr_sources, group);
	ck_assert_uint_eq(group[slow[0]], group[slow[1]]);
	ck_assert_uint_ge(phase_distance_ns(&sources[slow[0]], &sources[slow[1]]), 5 * MS);
	/* each source is one thread's, not both */
	ck_assert(main_cause_of((unsigned int)slow[0], a) !=
		  main_cause_of((unsigned int)slow[0], b));
	ck_assert(main_cause_of((unsigned int)slow[1], a) !=
		  main_cause_of((unsigned int)slow[1], b));
	ck_assert(main_cause_of((unsigned int)slow[0], a) ==
		  main_cause_of((unsigned int)slow[1], b));
	a_train = train_for(
		a, (unsigned int)(main_cause_of((unsigned int)slow[0], a) ? slow[0] : slow[1]));
	b_train = train_for(
		b, (unsigned int)(main_cause_of((unsigned int)slow[0], b) ? slow[0] : slow[1]));
	ck_assert_ptr_nonnull(a_train);
	ck_assert_ptr_nonnull(b_train);
	ck_assert(!a_train->from_source && !b_train->from_source);
	/* the unexplained time: both trains, one period */
	trains = explain_join_trains(join, unexplained, &nr);
	for (t = 0; t < nr; t++)
		if (near(trains[t].period.period_ns, 60 * MS)) {
			ck_assert_uint_eq(trains[t].phase_group,
					  in_group ? trains[t].phase_group : t);
			in_group++;
		}
	ck_assert_uint_eq(in_group, 2);
	free(rec.gaps);
}
END_TEST

/* Synthetic: a gap that a softirq fills. */
static void gap_with_softirq(uint64_t tag, uint64_t start, unsigned int vec, uint64_t ns)
{
	struct explain_window w = {
		.start_ns = start, .end_ns = start + ns, .own_pid = 100, .tag = tag
	};
	struct trace_record r = { .cpu = 1, .pid = 100 };

	ck_assert_int_eq(explain_cpu_add_window(engine, &w), 0);
	r.ts = start;
	r.kind = TRACE_SOFTIRQ_ENTRY;
	r.softirq.vec = vec;
	explain_cpu_feed(engine, &r);
	r.ts = start + ns;
	r.kind = TRACE_SOFTIRQ_EXIT;
	explain_cpu_feed(engine, &r);
}

/*
 * One cause at two phases of one period (a softirq raised by two timers of
 * 60 ms): two sources of the gap list with the same cause, and the cause
 * has both as one period in two phases.
 */
START_TEST(one_cause_two_phases)
{
	struct period_event *gaps = malloc(400 * sizeof(*gaps));
	struct window_source *windows;
	struct period_params params = { .run_ns = 6 * SEC };
	const struct explain_train *trains;
	uint8_t assignment[400];
	size_t group[PERIOD_MAX_SOURCES], n = 0, g;
	unsigned int sched, nr, k;
	uint64_t t;

	for (t = 0; t + 60 * MS <= 6 * SEC; t += 60 * MS) {
		gaps[n++] = (struct period_event){ .t_ns = t + 7 * MS, .duration_ns = 12 * US };
		gaps[n++] = (struct period_event){ .t_ns = t + 29 * MS, .duration_ns = 12 * US };
	}
	for (g = 0; g < n; g++)
		gap_with_softirq(g, gaps[g].t_ns, 7, 10 * US);
	ck_assert_int_eq(explain_cpu_finish(engine, 6 * SEC, 6 * SEC), 0);
	nr_sources = period_detect(gaps, n, &params, sources, PERIOD_MAX_SOURCES, assignment);
	ck_assert_int_eq(nr_sources, 2);
	ck_assert_uint_eq(period_phase_groups(sources, 2, group), 1);
	windows = calloc(n, sizeof(*windows));
	for (g = 0; g < n; g++)
		windows[g] =
			(struct window_source){ assignment[g], period_slot(&sources[assignment[g]],
									   gaps[g].t_ns) };
	join = explain_join_new(engine, sources, 2, windows, n);
	ck_assert_ptr_nonnull(join);
	sched = cause_index(CAUSE_SOFTIRQ, NULL);
	for (k = 0; k < 2; k++) {
		ck_assert_uint_eq(explain_join_source(join, k)->nr_main, 1);
		ck_assert_uint_eq(explain_join_source(join, k)->causes[0].cause, sched);
		ck_assert_uint_eq(explain_join_source(join, k)->causes[0].occurrences, 100);
		ck_assert_uint_eq(explain_join_source(join, k)->causes[0].duration_ns, 10 * US);
	}
	trains = explain_join_trains(join, sched, &nr);
	ck_assert_uint_eq(nr, 2);
	ck_assert(near(trains[0].period.period_ns, 60 * MS));
	ck_assert_uint_eq(trains[1].phase_group, 0);
	ck_assert_uint_ne(trains[0].source, trains[1].source);
	ck_assert(trains[0].alone && trains[1].alone);
	free(windows);
	free(gaps);
}
END_TEST

/*
 * Under --explain the gap list's search sees each gap's causes: every 1 ms
 * a gap the trace cannot explain (the host), every fourth one with the
 * guest's local_timer inside, no longer than the others. The 4 ms tick is a
 * source of its own, nested in the 1 ms one, and the cause table says so:
 * local_timer's train is the 4 ms source.
 */
START_TEST(causes_split_a_nested_source)
{
	struct period_event *gaps = malloc(3000 * sizeof(*gaps));
	struct period_params params = { .run_ns = 3 * SEC };
	uint64_t *causes = malloc(3000 * sizeof(*causes));
	const struct explain_train *train;
	unsigned int local_timer;
	int tick[2], host[2];
	size_t n = 0, g;
	uint64_t t;

	for (t = 400 * US; t < 3 * SEC; t += MS, n++) {
		struct explain_window w = { .start_ns = t, .end_ns = t + 30 * US, .tag = n };
		struct trace_record r = { .cpu = 1, .pid = 100, .kind = TRACE_VECTOR_ENTRY };

		w.own_pid = 100;
		gaps[n] = (struct period_event){ .t_ns = t, .duration_ns = 30 * US };
		ck_assert_int_eq(explain_cpu_add_window(engine, &w), 0);
		if (n % 4 != 1)
			continue;
		r.ts = t + 12 * US;
		r.vector.vector = VECTOR_LOCAL_TIMER;
		explain_cpu_feed(engine, &r);
		r.ts = t + 20 * US;
		r.kind = TRACE_VECTOR_EXIT;
		explain_cpu_feed(engine, &r);
	}
	ck_assert_int_eq(explain_cpu_finish(engine, 3 * SEC, 3 * SEC), 0);
	/* without the causes, one train */
	ck_assert_int_eq(period_detect(gaps, n, &params, sources, PERIOD_MAX_SOURCES, NULL), 1);
	/* the unexplained time in every gap, local_timer in every fourth */
	explain_cpu_window_causes(engine, causes, n);
	for (g = 0; g < n; g++) {
		gaps[g].causes = causes[g];
		ck_assert_uint_eq(__builtin_popcountll(causes[g]), g % 4 == 1 ? 2 : 1);
	}
	join_gap_list(gaps, n, 3 * SEC);
	ck_assert_int_eq(nr_sources, 2);
	ck_assert_int_eq(sources_at(1 * MS, host, 2), 1);
	ck_assert_int_eq(sources_at(4 * MS, tick, 2), 1);
	ck_assert_uint_eq(sources[host[0]].seen, 3000);
	ck_assert_uint_eq(sources[tick[0]].seen, 750);
	local_timer = cause_index(CAUSE_VECTOR, "local_timer");
	ck_assert(main_cause_of((unsigned int)tick[0], local_timer));
	ck_assert(!main_cause_of((unsigned int)host[0], local_timer));
	train = train_for(local_timer, (unsigned int)tick[0]);
	ck_assert_ptr_nonnull(train);
	ck_assert(near(train->period.period_ns, 4 * MS));
	ck_assert_ptr_null(train_for(local_timer, (unsigned int)host[0]));
	free(causes);
	free(gaps);
}
END_TEST

/*
 * A softirq every 2 ms, every third time six times longer: the cause's own
 * search finds a 6 ms train nested in its 2 ms one, and so does the gap
 * list's; in the JSON each says which train or source it is nested in, its
 * duration what it adds.
 */
START_TEST(nested_trains_and_sources_say_so)
{
	struct period_event *gaps = malloc(1500 * sizeof(*gaps));
	struct period_params params = { .run_ns = 3 * SEC };
	const struct explain_train *trains;
	unsigned int softirq, nr, t, slow = 0, fast = 0;
	json_t *cpu, *periods, *list;
	size_t n = 0;
	uint64_t at;

	for (at = 300 * US; at < 3 * SEC; at += 2 * MS, n++) {
		uint64_t ns = n % 3 == 2 ? 60 * US : 10 * US;

		gaps[n] = (struct period_event){ .t_ns = at, .duration_ns = ns };
		gap_with_softirq(n, at, 7, ns);
	}
	ck_assert_int_eq(explain_cpu_finish(engine, 3 * SEC, 3 * SEC), 0);
	join = explain_join_new(engine, NULL, 0, NULL, 0);
	ck_assert_ptr_nonnull(join);
	softirq = cause_index(CAUSE_SOFTIRQ, NULL);
	trains = explain_join_trains(join, softirq, &nr);
	ck_assert_uint_eq(nr, 2);
	for (t = 0; t < nr; t++) {
		if (near(trains[t].period.period_ns, 6 * MS))
			slow = t;
		else
			fast = t;
	}
	ck_assert(near(trains[fast].period.period_ns, 2 * MS));
	ck_assert_int_eq(explain_train_nested_in(trains, nr, slow), (int)fast);
	ck_assert_int_eq(explain_train_nested_in(trains, nr, fast), -1);
	ck_assert_uint_eq(trains[slow].period.duration_ns, 50 * US);
	ck_assert_uint_eq(trains[fast].period.seen, 1500);
	cpu = explain_result_cpu(engine, names, join);
	periods =
		json_object_get(json_array_get(json_object_get(cpu, "causes"), softirq), "periods");
	ck_assert_int_eq(
		json_integer_value(json_object_get(json_array_get(periods, slow), "nested_in")),
		fast);
	ck_assert(json_is_null(json_object_get(json_array_get(periods, fast), "nested_in")));
	json_decref(cpu);
	/* the gap list, as noise writes it */
	nr_sources = period_detect(gaps, n, &params, sources, PERIOD_MAX_SOURCES, NULL);
	ck_assert_int_eq(nr_sources, 2);
	list = result_period_sources(sources, nr_sources);
	for (t = 0; t < 2; t++)
		if (near(sources[t].period_ns, 6 * MS))
			ck_assert_int_eq(json_integer_value(json_object_get(json_array_get(list, t),
									    "nested_in")),
					 1 - t);
		else
			ck_assert(json_is_null(
				json_object_get(json_array_get(list, t), "nested_in")));
	json_decref(list);
	free(gaps);
}
END_TEST

/* Without a gap list the join still gives every train its company. */
START_TEST(no_sources_keeps_own_trains)
{
	const struct explain_train *trains;
	unsigned int sched, nr;
	uint64_t t;

	for (t = 5 * MS; t < 2 * SEC; t += 10 * MS)
		gap_with_softirq(t / MS, t, 7, 4 * US);
	ck_assert_int_eq(explain_cpu_finish(engine, 2 * SEC, 2 * SEC), 0);
	join = explain_join_new(engine, NULL, 0, NULL, 0);
	ck_assert_ptr_nonnull(join);
	sched = cause_index(CAUSE_SOFTIRQ, NULL);
	trains = explain_join_trains(join, sched, &nr);
	ck_assert_uint_eq(nr, 1);
	ck_assert(near(trains[0].period.period_ns, 10 * MS));
	ck_assert(!trains[0].from_source);
	ck_assert_uint_eq(trains[0].source, PERIOD_UNASSIGNED);
	ck_assert(trains[0].alone);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("explain_join");
	TCase *recorded = tcase_create("recorded"), *synthetic = tcase_create("synthetic");

	tcase_set_timeout(recorded, 60);
	tcase_add_checked_fixture(recorded, setup, teardown);
	tcase_add_test(recorded, every_source_is_in_its_causes_rows);
	tcase_add_test(recorded, a_source_of_two_causes_and_a_cause_of_two_periods);
	tcase_add_test(recorded, one_period_two_phases_two_threads);
	tcase_add_checked_fixture(synthetic, setup, teardown);
	tcase_add_test(synthetic, one_cause_two_phases);
	tcase_add_test(synthetic, no_sources_keeps_own_trains);
	tcase_add_test(synthetic, causes_split_a_nested_source);
	tcase_add_test(synthetic, nested_trains_and_sources_say_so);
	suite_add_tcase(s, recorded);
	suite_add_tcase(s, synthetic);
	return unit_run(s);
}
