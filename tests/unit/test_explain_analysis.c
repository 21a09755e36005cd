// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A spike in rtla's auto-analysis parts (lib/explain/explain_analysis.c):
 * synthetic timer and noise windows whose every nanosecond is known.
 */
#include "explain_stream.h"
#include "latscope/explain_analysis.h"

#define FIFO 200
#define OTHER 300

static void setup_timer(void)
{
	engine_open(1, EXPLAIN_TIMER);
}

static void own_wakes(uint64_t ts)
{
	waking_on(ts, OWN, 19, "latscope", -1);
}

static const struct explain_spike *only_spike(void)
{
	const struct explain_spike *worst;
	unsigned int nr;

	worst = explain_cpu_worst(engine, &nr);
	ck_assert_uint_eq(nr, 1);
	return worst;
}

static const char *label_of(uint32_t cause)
{
	static char text[128];
	const struct explain_cause *causes;
	unsigned int nr;

	ck_assert_uint_ne(cause, UINT32_MAX);
	causes = explain_cpu_causes(engine, &nr);
	ck_assert_uint_lt(cause, nr);
	return explain_cause_label(engine, &causes[cause], text, sizeof(text));
}

static uint64_t sum_of_parts(const struct explain_analysis *a)
{
	uint64_t sum = 0;
	unsigned int i;

	for (i = 0; i < EXPLAIN_PARTS; i++)
		sum += a->part_ns[i];
	return sum;
}

/*
 * Expiry at 100 while a FIFO thread spins with interrupts off; a device
 * IRQ at 110, the timer's vector at 120 wakes the thread at 123; the FIFO
 * thread goes on to 300, NET_RX runs in another thread, the measuring
 * thread is switched in at 330 and back in user space at 340.
 */
START_TEST(timer_spike_in_rtla_parts)
{
	const struct explain_spike *s;
	struct explain_analysis a;
	struct explain_totals totals;

	sw(0, FIFO, "lab-fifo", 9);
	window(100, 340);
	irq(110, true, 31, "virtio2-req.2");
	irq(115, false, 31, NULL);
	vector(120, true, VECTOR_LOCAL_TIMER);
	own_wakes(123);
	vector(126, false, VECTOR_LOCAL_TIMER);
	sw(300, OTHER, "sender", 120);
	softirq(310, true, 3);
	softirq(320, false, 3);
	sw(330, OWN, "latscope", 19);
	ck_assert_int_eq(explain_cpu_finish(engine, 400, 400), 0);
	s = only_spike();
	ck_assert_uint_eq(s->woken_ns, 123);
	explain_analyse(engine, s, &a);
	ck_assert(a.has_irq_latency);
	ck_assert_uint_eq(a.thread_latency_ns, 240);
	/* to the handler's entry: 15 of delay, 5 of a previous IRQ */
	ck_assert_uint_eq(a.irq_latency_ns, 20);
	ck_assert_uint_eq(a.part_ns[PART_IRQ_HANDLER_DELAY], 15);
	ck_assert_uint_eq(a.previous_irq_ns, 5);
	ck_assert_str_eq(label_of(a.handler), "local_timer");
	ck_assert_uint_eq(a.part_ns[PART_TIMER_IRQ], 6);
	ck_assert_str_eq(label_of(a.blocking_thread), "lab-fifo:200 (rt 90)");
	ck_assert_uint_eq(a.blocking_ns, 174);
	/* after the handler: the other thread and the softirq it ran */
	ck_assert_uint_eq(a.interference_ns[PART_THREAD], 20);
	ck_assert_uint_eq(a.interference_ns[PART_SOFTIRQ], 10);
	ck_assert_uint_eq(a.interference_ns[PART_IRQ], 0);
	ck_assert_uint_eq(a.part_ns[PART_IRQ], 5);
	ck_assert_uint_eq(a.part_ns[PART_THREAD], 194);
	ck_assert_uint_eq(a.part_ns[PART_SCHEDULING], 10);
	ck_assert_uint_eq(sum_of_parts(&a), a.thread_latency_ns);
	ck_assert_int_eq(a.main, PART_THREAD);
	ck_assert_uint_eq(a.nr_sources, 3);
	ck_assert_str_eq(label_of(a.sources[0].cause), "lab-fifo:200 (rt 90)");
	explain_cpu_totals(engine, &totals);
	ck_assert_uint_eq(totals.by_main_part[PART_THREAD], 1);
}
END_TEST

/* An NMI inside the timer's handler splits it: both pieces are the handler. */
START_TEST(nmi_in_the_handler)
{
	struct explain_analysis a;
	struct trace_record r = { .kind = TRACE_NMI };

	sw(0, 0, "swapper/1", 120);
	window(100, 200);
	vector(150, true, VECTOR_LOCAL_TIMER);
	r.ts = 170;
	r.nmi.duration_ns = 10;
	feed(r);
	own_wakes(185);
	vector(190, false, VECTOR_LOCAL_TIMER);
	sw(195, OWN, "latscope", 19);
	ck_assert_int_eq(explain_cpu_finish(engine, 300, 300), 0);
	explain_analyse(engine, only_spike(), &a);
	ck_assert_uint_eq(a.irq_latency_ns, 50);
	ck_assert_uint_eq(a.part_ns[PART_IRQ_HANDLER_DELAY], 50);
	ck_assert_uint_eq(a.previous_irq_ns, 0);
	ck_assert_uint_eq(a.part_ns[PART_TIMER_IRQ], 30);
	ck_assert_uint_eq(a.part_ns[PART_NMI], 10);
	ck_assert_uint_eq(a.interference_ns[PART_NMI], 10);
	/* idle until the switch: the way through the scheduler */
	ck_assert_uint_eq(a.blocking_thread, UINT32_MAX);
	ck_assert_uint_eq(sum_of_parts(&a), 100);
	ck_assert_int_eq(a.main, PART_IRQ_HANDLER_DELAY);
}
END_TEST

/* No wake-up seen: no latency is claimed, every part is still there. */
START_TEST(timer_spike_without_its_wakeup)
{
	struct explain_analysis a;

	sw(0, FIFO, "lab-fifo", 9);
	window(100, 200);
	vector(120, true, VECTOR_LOCAL_TIMER);
	vector(130, false, VECTOR_LOCAL_TIMER);
	ck_assert_int_eq(explain_cpu_finish(engine, 300, 300), 0);
	explain_analyse(engine, only_spike(), &a);
	ck_assert(!a.has_irq_latency);
	ck_assert_uint_eq(a.handler, UINT32_MAX);
	ck_assert_uint_eq(a.blocking_thread, UINT32_MAX);
	ck_assert_uint_eq(a.part_ns[PART_IRQ], 10);
	ck_assert_uint_eq(sum_of_parts(&a), 100);
}
END_TEST

/* A noise gap: no handler, everything is interference by class. */
START_TEST(noise_gap_is_interference)
{
	struct explain_analysis a;
	struct explain_totals totals;

	sw(0, OWN, "latscope", 120);
	window(100, 200);
	irq(100, true, 31, "virtio2-req.2");
	waking_on(104, FIFO, 49, "irq/31-virtio2-", -1);
	irq(110, false, 31, NULL);
	sw(110, FIFO, "irq/31-virtio2-", 49);
	sw(190, OWN, "latscope", 120);
	ck_assert_int_eq(explain_cpu_finish(engine, 300, 300), 0);
	explain_analyse(engine, only_spike(), &a);
	ck_assert(!a.has_irq_latency);
	ck_assert_uint_eq(a.blocking_thread, UINT32_MAX);
	ck_assert_uint_eq(a.interference_ns[PART_IRQ], 10);
	ck_assert_uint_eq(a.interference_ns[PART_THREAD], 80);
	ck_assert_uint_eq(a.part_ns[PART_UNEXPLAINED], 10);
	ck_assert_uint_eq(sum_of_parts(&a), 100);
	ck_assert_int_eq(a.main, PART_THREAD);
	ck_assert_str_eq(explain_part_name(a.main), "thread");
	explain_cpu_totals(engine, &totals);
	ck_assert_uint_eq(totals.by_main_part[PART_THREAD], 1);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("explain_analysis");
	TCase *timer = tcase_create("timer"), *noise = tcase_create("noise");

	tcase_add_checked_fixture(timer, setup_timer, teardown);
	tcase_add_test(timer, timer_spike_in_rtla_parts);
	tcase_add_test(timer, nmi_in_the_handler);
	tcase_add_test(timer, timer_spike_without_its_wakeup);
	suite_add_tcase(s, timer);
	tcase_add_checked_fixture(noise, setup, teardown);
	tcase_add_test(noise, noise_gap_is_interference);
	suite_add_tcase(s, noise);
	return unit_run(s);
}
