// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <string.h>

#include "explain_stream.h"
#include "latscope/explain_session.h"

static void setup_timer(void)
{
	engine_open(1, EXPLAIN_TIMER);
}

static void waking(uint64_t ts, int pid)
{
	waking_on(ts, pid, 120, "task", -1);
}

/* total ns charged to a cause over the run, 0 when absent */
static uint64_t total(uint8_t kind, int64_t id)
{
	const struct explain_cause *causes;
	unsigned int n, i;

	causes = explain_cpu_causes(engine, &n);
	for (i = 0; i < n; i++)
		if (causes[i].key.kind == kind && causes[i].key.id == id)
			return causes[i].total_ns;
	return 0;
}

static uint64_t all_charged(void)
{
	const struct explain_cause *causes;
	unsigned int n, i;
	uint64_t sum = 0;

	causes = explain_cpu_causes(engine, &n);
	for (i = 0; i < n; i++)
		sum += causes[i].total_ns;
	return sum;
}

START_TEST(irq_in_softirq_in_thread)
{
	sw(0, OWN, "latscope", 120);
	window(5, 70);
	sw(10, 200, "worker", 120);
	softirq(20, true, 1);
	irq(30, true, 36, "virtio1-req.0");
	irq(40, false, 36, NULL);
	softirq(50, false, 1);
	sw(60, OWN, "latscope", 120);
	ck_assert_int_eq(explain_cpu_finish(engine, 100, 100), 0);
	ck_assert_uint_eq(total(CAUSE_IRQ, 36), 10);
	ck_assert_uint_eq(total(CAUSE_SOFTIRQ, 1), 20);
	ck_assert_uint_eq(total(CAUSE_THREAD, 200), 20);
	ck_assert_uint_eq(total(CAUSE_UNEXPLAINED, 0), 15);
	ck_assert_uint_eq(all_charged(), 65);
}
END_TEST

START_TEST(names_and_order)
{
	const struct explain_cause *causes;
	char label[64];
	unsigned int n;

	sw(0, OWN, "latscope", 120);
	window(10, 100);
	sw(10, 4242, "stress", 49);
	irq(50, true, 36, "virtio1-req.0");
	irq(55, false, 36, NULL);
	sw(90, OWN, "latscope", 120);
	ck_assert_int_eq(explain_cpu_finish(engine, 100, 100), 0);
	causes = explain_cpu_causes(engine, &n);
	ck_assert_uint_eq(n, 3);
	ck_assert_str_eq(explain_cause_label(engine, &causes[0], label, sizeof(label)),
			 "stress:4242 (rt 50)");
	ck_assert_uint_eq(causes[1].key.kind, CAUSE_UNEXPLAINED);
	ck_assert_str_eq(explain_cause_label(engine, &causes[2], label, sizeof(label)),
			 "irq 36 virtio1-req.0");
	ck_assert_uint_eq(causes[0].total_ns, 75);
	ck_assert_uint_eq(causes[0].spikes, 1);
}
END_TEST

START_TEST(exit_missing_at_window_edge)
{
	sw(0, OWN, "latscope", 120);
	window(20, 50);
	irq(30, true, 36, "virtio1-req.0");
	ck_assert_int_eq(explain_cpu_finish(engine, 60, 60), 0);
	ck_assert_uint_eq(total(CAUSE_IRQ, 36), 20);
	ck_assert_uint_eq(total(CAUSE_UNEXPLAINED, 0), 10);
}
END_TEST

START_TEST(window_starts_inside_a_handler)
{
	/* the trace begins inside the handler: its exit is the first event */
	window(20, 60);
	irq(40, false, 36, NULL);
	sw(45, OWN, "latscope", 120);
	ck_assert_int_eq(explain_cpu_finish(engine, 60, 60), 0);
	ck_assert_uint_eq(total(CAUSE_IRQ, 36), 20);
	ck_assert_uint_eq(all_charged(), 40);
}
END_TEST

START_TEST(lost_events_are_counted_and_flagged)
{
	struct trace_record lost = { .ts = 50, .kind = TRACE_LOST };
	const struct explain_spike *worst;
	struct explain_totals totals;
	unsigned int n;

	sw(0, OWN, "latscope", 120);
	window(40, 80);
	softirq(45, true, 9);
	lost.lost.count = 123;
	feed(lost);
	sw(60, OWN, "latscope", 120);
	ck_assert_int_eq(explain_cpu_finish(engine, 100, 100), 0);
	explain_cpu_totals(engine, &totals);
	ck_assert_uint_eq(totals.lost_events, 123);
	ck_assert_uint_eq(totals.incomplete, 1);
	ck_assert_uint_eq(total(CAUSE_LOST, 0), 5);
	ck_assert_uint_eq(total(CAUSE_SOFTIRQ, 9), 0);
	worst = explain_cpu_worst(engine, &n);
	ck_assert_uint_eq(n, 1);
	ck_assert(worst[0].incomplete);
}
END_TEST

/* Windows that start and end inside the lost span are not attributed either. */
START_TEST(windows_inside_a_loss_are_incomplete)
{
	struct trace_record lost = { .ts = 90, .kind = TRACE_LOST };
	const struct explain_spike *worst;
	struct explain_totals totals;
	unsigned int n;

	sw(0, OWN, "latscope", 120);
	window(10, 20); /* before the last event seen: attributed */
	irq(25, true, 36, "eth0");
	irq(30, false, 36, "eth0");
	window(40, 50); /* both inside (30, 90): events lost there */
	window(60, 95); /* ends after the loss */
	lost.lost.count = 0; /* "some": a full sub-buffer had no room for the number */
	feed(lost);
	sw(100, OWN, "latscope", 120);
	explain_cpu_count_lost(engine, 77); /* the kernel's count */
	explain_cpu_count_lost(engine, 5); /* never lowered */
	ck_assert_int_eq(explain_cpu_finish(engine, 120, 120), 0);
	explain_cpu_totals(engine, &totals);
	ck_assert_uint_eq(totals.windows, 3);
	ck_assert_uint_eq(totals.incomplete, 2);
	ck_assert_uint_eq(totals.lost_events, 77);
	worst = explain_cpu_worst(engine, &n);
	ck_assert_uint_eq(n, 3);
	ck_assert(worst[0].incomplete); /* 60-95 */
	ck_assert(!worst[1].incomplete); /* 10-20 */
	ck_assert(worst[2].incomplete); /* 40-50 */
}
END_TEST

static void assert_span(const struct explain_lost_span *span, uint64_t start, uint64_t end,
			uint64_t events)
{
	ck_assert_uint_eq(span->start_ns, start);
	ck_assert_uint_eq(span->end_ns, end);
	ck_assert_uint_eq(span->events, events);
}

/*
 * A window is incomplete when a hole in the trace overlaps it, whether it
 * was added before the loss came or after: under load the measuring thread
 * may publish its window before the reader drains the hole, or after it.
 * The holes are kept, in time order, adjacent ones joined.
 */
START_TEST(a_window_after_a_loss_is_complete)
{
	struct trace_record lost = { .kind = TRACE_LOST };
	const struct explain_lost_span *spans;
	const struct explain_spike *worst;
	struct explain_totals totals;
	unsigned int n;
	uint64_t not_kept;

	sw(0, OWN, "latscope", 120);
	window(40, 48); /* added before the hole [10, 30) is read: after it all the same */
	sw(10, OWN, "latscope", 120);
	lost.ts = 30;
	lost.lost.count = 7;
	feed(lost);
	sw(50, OWN, "latscope", 120);
	window(60, 80); /* inside the hole [50, 70), then [70, 75) right after it */
	lost.ts = 70;
	lost.lost.count = 0;
	feed(lost);
	lost.ts = 75;
	lost.lost.count = 4;
	feed(lost);
	sw(85, OWN, "latscope", 120);
	window(90, 95); /* added after the holes */
	sw(97, OWN, "latscope", 120);
	ck_assert_int_eq(explain_cpu_finish(engine, 100, 100), 0);
	explain_cpu_totals(engine, &totals);
	ck_assert_uint_eq(totals.windows, 3);
	ck_assert_uint_eq(totals.incomplete, 1);
	worst = explain_cpu_worst(engine, &n);
	ck_assert_uint_eq(n, 3);
	ck_assert_uint_eq(worst[0].window.start_ns, 60);
	ck_assert(worst[0].incomplete);
	ck_assert_uint_eq(worst[1].window.start_ns, 40);
	ck_assert(!worst[1].incomplete);
	ck_assert(!worst[2].incomplete);
	spans = explain_cpu_lost_spans(engine, &n, &not_kept);
	ck_assert_uint_eq(n, 2);
	ck_assert_uint_eq(not_kept, 0);
	assert_span(&spans[0], 10, 30, 7);
	assert_span(&spans[1], 50, 75, 4);
}
END_TEST

/* Past the spans kept, holes are counted. */
START_TEST(lost_spans_beyond_those_kept_are_counted)
{
	struct trace_record lost = { .kind = TRACE_LOST };
	uint64_t not_kept, t;
	unsigned int n;

	for (t = 0; t < EXPLAIN_LOST_SPANS_KEPT + 3; t++) {
		sw(10 * t, OWN, "latscope", 120);
		lost.ts = 10 * t + 5;
		feed(lost);
	}
	explain_cpu_lost_spans(engine, &n, &not_kept);
	ck_assert_uint_eq(n, EXPLAIN_LOST_SPANS_KEPT);
	ck_assert_uint_eq(not_kept, 3);
}
END_TEST

START_TEST(two_cpus_interleaved)
{
	struct explain_cpu *other = explain_cpu_new(0, EXPLAIN_NOISE, names, 5);
	struct explain_window w0 = { .start_ns = 0, .end_ns = 100, .own_pid = 7 };
	struct trace_record stream[] = {
		{ .ts = 0, .cpu = 0, .kind = TRACE_SWITCH },
		{ .ts = 5, .cpu = 1, .kind = TRACE_SWITCH },
		{ .ts = 10, .cpu = 0, .kind = TRACE_IRQ_ENTRY },
		{ .ts = 12, .cpu = 1, .kind = TRACE_SOFTIRQ_ENTRY },
		{ .ts = 30, .cpu = 0, .kind = TRACE_IRQ_EXIT },
		{ .ts = 32, .cpu = 1, .kind = TRACE_SOFTIRQ_EXIT },
	};
	size_t i;

	stream[0].sched_switch.next_pid = 7;
	stream[1].sched_switch.next_pid = OWN;
	stream[2].irq.irq = stream[4].irq.irq = 19;
	stream[3].softirq.vec = stream[5].softirq.vec = 3;
	window(0, 100);
	explain_cpu_add_window(other, &w0);
	for (i = 0; i < sizeof(stream) / sizeof(stream[0]); i++)
		explain_cpu_feed(stream[i].cpu ? engine : other, &stream[i]);
	ck_assert_int_eq(explain_cpu_finish(engine, 100, 100), 0);
	ck_assert_int_eq(explain_cpu_finish(other, 100, 100), 0);
	ck_assert_uint_eq(total(CAUSE_SOFTIRQ, 3), 20);
	ck_assert_uint_eq(total(CAUSE_IRQ, 19), 0);
	explain_cpu_free(engine);
	engine = other;
	ck_assert_uint_eq(total(CAUSE_IRQ, 19), 20);
	ck_assert_uint_eq(total(CAUSE_SOFTIRQ, 3), 0);
}
END_TEST

START_TEST(nmi_is_carved_out_of_what_it_interrupted)
{
	struct trace_record nmi = { .ts = 40, .kind = TRACE_NMI };

	sw(0, OWN, "latscope", 120);
	window(0, 100);
	irq(10, true, 5, "eth0");
	nmi.nmi.duration_ns = 15;
	feed(nmi);
	irq(50, false, 5, NULL);
	ck_assert_int_eq(explain_cpu_finish(engine, 100, 100), 0);
	ck_assert_uint_eq(total(CAUSE_NMI, 0), 15);
	ck_assert_uint_eq(total(CAUSE_IRQ, 5), 25);
	ck_assert_uint_eq(all_charged(), 100);
}
END_TEST

/*
 * A timer wake-up 80 ns late, split: the timer interrupt came 10 ns after
 * expiry (CPU idle), the local timer handler ran 10 ns, another IRQ 10 ns,
 * then idle scheduled the thread in. The parts add up to the latency.
 */
START_TEST(timer_split_adds_up)
{
	const struct explain_spike *worst;
	unsigned int n, i;
	uint64_t sum = 0;

	sw(900, 0, "swapper/1", 120);
	window(1000, 1080);
	vector(1010, true, VECTOR_LOCAL_TIMER);
	waking(1015, OWN);
	vector(1020, false, VECTOR_LOCAL_TIMER);
	irq(1025, true, 36, "virtio1-req.0");
	irq(1035, false, 36, NULL);
	sw(1040, OWN, "cyclic", 9);
	ck_assert_int_eq(explain_cpu_finish(engine, 1100, 1100), 0);
	ck_assert_uint_eq(total(CAUSE_TIMER_DELAY, 0), 10);
	ck_assert_uint_eq(total(CAUSE_VECTOR, VECTOR_LOCAL_TIMER), 10);
	ck_assert_uint_eq(total(CAUSE_IRQ, 36), 10);
	ck_assert_uint_eq(total(CAUSE_SCHEDULING, 0), 50);
	worst = explain_cpu_worst(engine, &n);
	ck_assert_uint_eq(n, 1);
	for (i = 0; i < worst[0].nr_contributions; i++)
		sum += worst[0].contributions[i].ns;
	ck_assert_uint_eq(sum, 80);
	ck_assert_uint_eq(worst[0].timeline[0].start_ns, 1000);
	ck_assert_uint_eq(worst[0].timeline[worst[0].nr_segments - 1].end_ns, 1080);
}
END_TEST

START_TEST(timer_blocked_by_a_thread)
{
	sw(900, 555, "hog", 120);
	window(1000, 1200);
	vector(1002, true, VECTOR_LOCAL_TIMER);
	waking(1003, OWN);
	vector(1005, false, VECTOR_LOCAL_TIMER);
	sw(1150, OWN, "cyclic", 9);
	ck_assert_int_eq(explain_cpu_finish(engine, 1300, 1300), 0);
	ck_assert_uint_eq(total(CAUSE_THREAD, 555), 145);
	ck_assert_uint_eq(total(CAUSE_TIMER_DELAY, 0), 2);
	ck_assert_uint_eq(all_charged(), 200);
}
END_TEST

struct seen_windows {
	unsigned int nr;
	uint64_t ns[4];
	uint64_t largest_cause_ns[4];
	bool thread_first;
};

static void see_window(void *context, const struct explain_cpu *e,
		       const struct explain_spike *spike)
{
	struct seen_windows *seen = context;
	const struct explain_cause *causes;
	unsigned int n, i;
	uint64_t sum = 0;

	causes = explain_cpu_causes(e, &n);
	ck_assert_uint_eq(explain_cpu_number(e), 1);
	for (i = 0; i < spike->nr_contributions; i++) {
		ck_assert_uint_lt(spike->contributions[i].cause, n);
		sum += spike->contributions[i].ns;
	}
	if (seen->nr < 4) {
		seen->ns[seen->nr] = sum;
		seen->largest_cause_ns[seen->nr] = spike->contributions[0].ns;
		seen->thread_first = causes[spike->contributions[0].cause].key.kind == CAUSE_THREAD;
	}
	seen->nr++;
}

/* The timer fires at t + 2 in a window from t to end; "hog" runs meanwhile. */
static void timer_fires_under_a_hog(uint64_t t, uint64_t end)
{
	window(t, end);
	vector(t + 2, true, VECTOR_LOCAL_TIMER);
	waking(t + 3, OWN);
	vector(t + 5, false, VECTOR_LOCAL_TIMER);
}

/* A monitor sees each window as it closes and keeps the engine bounded. */
START_TEST(window_hook_and_forgotten_causes)
{
	struct seen_windows seen = { 0 };
	unsigned int n;

	explain_cpu_set_window_hook(engine, see_window, &seen);
	sw(900, 555, "hog", 120);
	timer_fires_under_a_hog(1000, 1200);
	/* the window is open: its contributions refer to the causes */
	ck_assert_int_eq(explain_cpu_forget_causes(engine), -EBUSY);
	sw(1150, OWN, "cyclic", 9);
	sw(1250, 555, "hog", 120);
	ck_assert_uint_eq(seen.nr, 1);
	ck_assert_uint_eq(seen.ns[0], 200);
	ck_assert_uint_eq(seen.largest_cause_ns[0], 145);
	ck_assert(seen.thread_first);
	explain_cpu_causes(engine, &n);
	ck_assert_uint_gt(n, 0);
	/* worst_kept 5 in this fixture: kept spikes refer to causes too */
	ck_assert_int_eq(explain_cpu_forget_causes(engine), -EBUSY);
}
END_TEST

START_TEST(forgetting_causes_between_windows)
{
	struct seen_windows seen = { 0 };
	unsigned int n;

	explain_cpu_free(engine);
	engine = explain_cpu_new(1, EXPLAIN_TIMER, names, 0);
	explain_cpu_set_window_hook(engine, see_window, &seen);
	sw(900, 555, "hog", 120);
	timer_fires_under_a_hog(1000, 1200);
	sw(1150, OWN, "cyclic", 9);
	sw(1250, 555, "hog", 120);
	ck_assert_int_eq(explain_cpu_forget_causes(engine), 0);
	explain_cpu_causes(engine, &n);
	ck_assert_uint_eq(n, 0);
	/* the next window is charged as before, causes made anew */
	timer_fires_under_a_hog(2000, 2100);
	sw(2050, OWN, "cyclic", 9);
	sw(2150, 555, "hog", 120);
	ck_assert_uint_eq(seen.nr, 2);
	ck_assert_uint_eq(seen.ns[1], 100);
	ck_assert_uint_eq(total(CAUSE_THREAD, 555), 45);
}
END_TEST

/* The blocker of the two tests below, pid 777 at FIFO 95, switches to ours. */
static void blocker_yields_to_own(uint64_t ts)
{
	struct trace_record r = { .ts = ts, .kind = TRACE_SWITCH };

	r.sched_switch.prev_pid = 777;
	r.sched_switch.prev_comm = name("blocker");
	r.sched_switch.next_pid = OWN;
	r.sched_switch.next_comm = name("cyclic");
	r.sched_switch.next_prio = 9;
	feed_as(r, 777);
}

/*
 * This VM traces no sched_switch when a CPU leaves idle. The timer and a
 * higher-priority thread wake together on an idle CPU: the CPU goes to the
 * most urgent one, which blocks the wake-up until it switches to ours.
 */
START_TEST(idle_exit_without_a_switch_event)
{
	struct trace_record exit = { .ts = 1020, .kind = TRACE_VECTOR_EXIT };

	sw(900, 0, "swapper/1", 120);
	window(1000, 1330);
	vector(1010, true, VECTOR_LOCAL_TIMER);
	waking_on(1012, OWN, 9, "cyclic", 0);
	waking_on(1014, 777, 4, "blocker", 0);
	exit.vector.vector = VECTOR_LOCAL_TIMER;
	feed_as(exit, 0);
	/* no switch out of idle: the blocker's own switch away is the next event */
	blocker_yields_to_own(1300);
	ck_assert_int_eq(explain_cpu_finish(engine, 1400, 1400), 0);
	ck_assert_uint_eq(total(CAUSE_THREAD, 777), 280);
	ck_assert_uint_eq(total(CAUSE_SCHEDULING, 0), 30);
	ck_assert_uint_eq(all_charged(), 330);
}
END_TEST

/*
 * The same with the blocker's timer a little earlier (tests/system/
 * explain-break, once in about 30 runs): the blocker is woken in one
 * local_timer, and ours in a second that comes before the CPU has left idle
 * (its common_pid is still the idle task's). Both woken wait; the blocker
 * runs first.
 */
START_TEST(second_interrupt_before_idle_exit)
{
	struct trace_record exit = { .ts = 1020, .kind = TRACE_VECTOR_EXIT };
	struct trace_record entry = { .ts = 1030, .kind = TRACE_VECTOR_ENTRY };

	sw(900, 0, "swapper/1", 120);
	window(1000, 1330);
	vector(1000, true, VECTOR_LOCAL_TIMER);
	waking_on(1005, 777, 4, "blocker", 0);
	exit.vector.vector = entry.vector.vector = VECTOR_LOCAL_TIMER;
	feed_as(exit, 0);
	feed_as(entry, 0);
	waking_on(1032, OWN, 9, "cyclic", 0);
	exit.ts = 1040;
	feed_as(exit, 0);
	blocker_yields_to_own(1300);
	ck_assert_int_eq(explain_cpu_finish(engine, 1400, 1400), 0);
	ck_assert_uint_eq(total(CAUSE_VECTOR, VECTOR_LOCAL_TIMER), 30);
	ck_assert_uint_eq(total(CAUSE_TIMER_DELAY, 0), 10);
	ck_assert_uint_eq(total(CAUSE_THREAD, 777), 260);
	ck_assert_uint_eq(total(CAUSE_SCHEDULING, 0), 30);
	ck_assert_uint_eq(all_charged(), 330);
}
END_TEST

/* common_pid tells what runs even when its switch-in was not seen. */
START_TEST(common_pid_names_the_current_task)
{
	struct trace_record softirq_entry = { .ts = 50, .kind = TRACE_SOFTIRQ_ENTRY };
	struct trace_record softirq_exit = { .ts = 60, .kind = TRACE_SOFTIRQ_EXIT };

	sw(0, OWN, "latscope", 120);
	waking_on(5, 313, 120, "kworker/1:1", OWN);
	window(10, 100);
	softirq_entry.softirq.vec = softirq_exit.softirq.vec = 1;
	feed_as(softirq_entry, 313);
	feed_as(softirq_exit, 313);
	sw(90, OWN, "latscope", 120);
	ck_assert_int_eq(explain_cpu_finish(engine, 100, 100), 0);
	/* before the first sign of it, the time is ours: unexplained */
	ck_assert_uint_eq(total(CAUSE_UNEXPLAINED, 0), 40 + 10);
	ck_assert_uint_eq(total(CAUSE_SOFTIRQ, 1), 10);
	ck_assert_uint_eq(total(CAUSE_THREAD, 313), 30);
}
END_TEST

/* local_timer costs 3 us in every gap, every 4 ms: a periodic cause. */
START_TEST(periodic_cause)
{
	const struct explain_cause *causes;
	unsigned int n;
	uint64_t t;

	sw(0, OWN, "latscope", 120);
	for (t = 1000000; t < 1000000000; t += 4000000) {
		window(t, t + 5000);
		vector(t + 1000, true, VECTOR_LOCAL_TIMER);
		vector(t + 4000, false, VECTOR_LOCAL_TIMER);
	}
	ck_assert_int_eq(explain_cpu_finish(engine, 1000000000, 1000000000), 0);
	causes = explain_cpu_causes(engine, &n);
	ck_assert_uint_eq(causes[0].key.kind, CAUSE_VECTOR);
	ck_assert(causes[0].periodic);
	ck_assert_uint_eq(causes[0].period.period_ns, 4000000);
	ck_assert_uint_eq(causes[0].period.duration_ns, 3000);
	ck_assert_uint_eq(causes[0].spikes, 250);
}
END_TEST

START_TEST(worst_spikes_largest_first)
{
	const struct explain_spike *worst;
	unsigned int n, i;

	sw(0, OWN, "latscope", 120);
	for (i = 0; i < 20; i++)
		window(1000 * i, 1000 * i + 10 + (i * 37) % 100);
	ck_assert_int_eq(explain_cpu_finish(engine, 30000, 30000), 0);
	worst = explain_cpu_worst(engine, &n);
	ck_assert_uint_eq(n, 5);
	for (i = 1; i < n; i++)
		ck_assert_uint_ge(worst[i - 1].window.end_ns - worst[i - 1].window.start_ns,
				  worst[i].window.end_ns - worst[i].window.start_ns);
	ck_assert_uint_eq(worst[0].window.end_ns - worst[0].window.start_ns, 10 + 96);
}
END_TEST

/* 8 MiB a CPU up to 32 CPUs, 256 MiB in all up to 1024, then 256 KiB a CPU */
START_TEST(trace_buffers_are_capped)
{
	ck_assert_uint_eq(explain_session_buffer_kb(1), 8192);
	ck_assert_uint_eq(explain_session_buffer_kb(32), 8192);
	ck_assert_uint_eq(explain_session_buffer_kb(33), 262144 / 33);
	ck_assert_uint_eq(256 * explain_session_buffer_kb(256), 256 * 1024);
	ck_assert_uint_eq(explain_session_buffer_kb(1024), 256);
	ck_assert_uint_eq(explain_session_buffer_kb(8192), 256);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("explain");
	TCase *noise = tcase_create("noise"), *timer = tcase_create("timer");
	TCase *buffers = tcase_create("buffers");

	tcase_add_checked_fixture(noise, setup, teardown);
	tcase_add_test(noise, irq_in_softirq_in_thread);
	tcase_add_test(noise, names_and_order);
	tcase_add_test(noise, exit_missing_at_window_edge);
	tcase_add_test(noise, window_starts_inside_a_handler);
	tcase_add_test(noise, lost_events_are_counted_and_flagged);
	tcase_add_test(noise, windows_inside_a_loss_are_incomplete);
	tcase_add_test(noise, a_window_after_a_loss_is_complete);
	tcase_add_test(noise, lost_spans_beyond_those_kept_are_counted);
	tcase_add_test(noise, two_cpus_interleaved);
	tcase_add_test(noise, nmi_is_carved_out_of_what_it_interrupted);
	tcase_add_test(noise, periodic_cause);
	tcase_add_test(noise, worst_spikes_largest_first);
	tcase_add_test(noise, common_pid_names_the_current_task);
	tcase_add_checked_fixture(timer, setup_timer, teardown);
	tcase_add_test(timer, timer_split_adds_up);
	tcase_add_test(timer, timer_blocked_by_a_thread);
	tcase_add_test(timer, window_hook_and_forgotten_causes);
	tcase_add_test(timer, forgetting_causes_between_windows);
	tcase_add_test(timer, idle_exit_without_a_switch_event);
	tcase_add_test(timer, second_interrupt_before_idle_exit);
	tcase_add_test(buffers, trace_buffers_are_capped);
	suite_add_tcase(s, noise);
	suite_add_tcase(s, timer);
	suite_add_tcase(s, buffers);
	return unit_run(s);
}
