// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What a PREEMPT_RT kernel runs in threads: a device's handler in irq/NN-name
 * woken by a short hardirq, softirqs in ktimers, ksoftirqd, IRQ threads and
 * any thread enabling bottom halves. Synthetic streams for each rule, and
 * two streams recorded in the lab's rt-tuned guest.
 */
/* before explain_stream.h: its parameters are named as that file's engine */
#include "recording.h"

#include "explain_stream.h"
#include "latscope/explain_analysis.h"
#include "latscope/explain_result.h"

#define IRQ_THREAD 150
#define SOFTIRQ_VEC_TIMER 1
#define SOFTIRQ_VEC_NET_RX 3

/* the recordings are of the lab's CPU 2 */
static void setup_recorded(void)
{
	engine_open(2, EXPLAIN_NOISE);
}

static void waking(uint64_t ts, int pid, int prio, const char *comm)
{
	waking_on(ts, pid, prio, comm, -1);
}

static const struct explain_cause *find(uint8_t kind, int64_t id, int32_t thread)
{
	const struct explain_cause *causes;
	unsigned int n, i;

	causes = explain_cpu_causes(engine, &n);
	for (i = 0; i < n; i++)
		if (causes[i].key.kind == kind && causes[i].key.id == id &&
		    (kind != CAUSE_SOFTIRQ || causes[i].key.thread == thread))
			return &causes[i];
	return NULL;
}

static const char *label(const struct explain_cause *cause)
{
	static char text[128];

	ck_assert_ptr_nonnull(cause);
	return explain_cause_label(engine, cause, text, sizeof(text));
}

/* The hardirq of IRQ 31 wakes its thread, which does the handler's work. */
static void threaded_handler(uint64_t t, const char *comm)
{
	irq(t, true, 31, "virtio2-req.2");
	waking(t + 2, IRQ_THREAD, 49, comm);
	irq(t + 5, false, 31, NULL);
	sw(t + 6, IRQ_THREAD, comm, 49);
	sw(t + 40, OWN, "latscope", 120);
}

START_TEST(irq_thread_joined_to_the_hardirq_that_woke_it)
{
	const struct explain_cause *thread, *hardirq;
	char full[64];

	sw(0, OWN, "latscope", 120);
	window(100, 150);
	threaded_handler(100, "irq/31-virtio2-");
	ck_assert_int_eq(explain_cpu_finish(engine, 200, 200), 0);
	hardirq = find(CAUSE_IRQ, 31, 0);
	thread = find(CAUSE_THREAD, IRQ_THREAD, 0);
	ck_assert_str_eq(label(hardirq), "irq 31 virtio2-req.2");
	/* the comm is cut at 15 characters: the hardirq says the rest */
	ck_assert_str_eq(label(thread), "irq/31-virtio2-req.2:150 (rt 50), thread of irq 31");
	ck_assert_int_eq(thread->irq_thread_of, 31);
	ck_assert_str_eq(names_get(names, thread->irq_action), "virtio2-req.2");
	ck_assert(explain_irq_thread_name(engine, thread, full, sizeof(full)));
	ck_assert_str_eq(full, "irq/31-virtio2-req.2");
	ck_assert_uint_eq(hardirq->spikes, 1);
	ck_assert_uint_eq(thread->spikes, 1);
	ck_assert_uint_eq(thread->total_ns, 34);
}
END_TEST

/* The cause in the JSON whose label is @text. */
static json_t *json_cause(json_t *result, const char *text)
{
	json_t *causes = json_object_get(result, "causes"), *cause;
	size_t i;

	json_array_foreach(causes, i,
			   cause) if (!strcmp(json_string_value(json_object_get(cause, "label")),
					      text)) return cause;
	ck_abort_msg("no cause %s", text);
	return NULL;
}

START_TEST(irq_thread_and_softirq_thread_in_the_json)
{
	json_t *result, *thread, *net_rx;

	explain_cpu_set_threaded_softirqs(engine, true);
	sw(0, OWN, "latscope", 120);
	window(100, 200);
	threaded_handler(100, "irq/31-virtio2-");
	window(300, 400);
	sw(300, IRQ_THREAD, "irq/31-virtio2-", 49);
	softirq(310, true, SOFTIRQ_VEC_NET_RX);
	softirq(320, false, SOFTIRQ_VEC_NET_RX);
	sw(330, OWN, "latscope", 120);
	ck_assert_int_eq(explain_cpu_finish(engine, 500, 500), 0);
	result = explain_result_cpu(engine, names, NULL);
	thread = json_object_get(
		json_cause(result, "irq/31-virtio2-req.2:150 (rt 50), thread of irq 31"),
		"irq_thread");
	ck_assert_int_eq(json_integer_value(json_object_get(thread, "irq")), 31);
	ck_assert_str_eq(json_string_value(json_object_get(thread, "name")), "virtio2-req.2");
	ck_assert_str_eq(json_string_value(json_object_get(thread, "thread")),
			 "irq/31-virtio2-req.2");
	net_rx = json_object_get(json_cause(result, "NET_RX softirq in irq/31-virtio2-req.2"),
				 "thread");
	ck_assert_int_eq(json_integer_value(json_object_get(net_rx, "pid")), IRQ_THREAD);
	ck_assert_str_eq(json_string_value(json_object_get(net_rx, "comm")), "irq/31-virtio2-");
	ck_assert_int_eq(json_integer_value(json_object_get(net_rx, "irq")), 31);
	/* the hardirq ran in no thread */
	ck_assert_ptr_null(json_object_get(json_cause(result, "irq 31 virtio2-req.2"), "thread"));
	json_decref(result);
}
END_TEST

/* The trace began with the thread running: the IRQ's hardirq seen later names it. */
START_TEST(irq_thread_named_by_its_irq_without_a_wake_up)
{
	const struct explain_cause *thread;

	sw(0, OWN, "latscope", 120);
	window(10, 30);
	sw(10, IRQ_THREAD, "irq/31-virtio2-", 49);
	sw(20, OWN, "latscope", 120);
	window(100, 120);
	irq(100, true, 31, "virtio2-req.2");
	irq(105, false, 31, NULL);
	ck_assert_int_eq(explain_cpu_finish(engine, 200, 200), 0);
	thread = find(CAUSE_THREAD, IRQ_THREAD, 0);
	ck_assert_str_eq(label(thread), "irq/31-virtio2-req.2:150 (rt 50), thread of irq 31");
	ck_assert_uint_eq(thread->irq_action, 0);
}
END_TEST

/* Names the full name would contradict are left as they are. */
START_TEST(irq_thread_names_that_are_not_the_action)
{
	sw(0, OWN, "latscope", 120);
	window(100, 150);
	/* a secondary handler's thread */
	threaded_handler(100, "irq/31-s-virtio");
	window(200, 250);
	/* a thread another IRQ's hardirq woke: no join */
	irq(200, true, 40, "eth0");
	waking(202, 151, 49, "irq/31-lookalik");
	irq(205, false, 40, NULL);
	sw(206, 151, "irq/31-lookalik", 49);
	sw(240, OWN, "latscope", 120);
	/* a user thread named like none */
	window(300, 350);
	sw(300, 152, "irq/x-worker", 120);
	sw(340, OWN, "latscope", 120);
	ck_assert_int_eq(explain_cpu_finish(engine, 400, 400), 0);
	ck_assert_str_eq(label(find(CAUSE_THREAD, IRQ_THREAD, 0)),
			 "irq/31-s-virtio:150 (rt 50), thread of irq 31");
	ck_assert_uint_eq(find(CAUSE_THREAD, 151, 0)->irq_action, 0);
	ck_assert_int_eq(find(CAUSE_THREAD, 152, 0)->irq_thread_of, -1);
	ck_assert_str_eq(label(find(CAUSE_THREAD, 152, 0)), "irq/x-worker:152");
}
END_TEST

START_TEST(softirq_in_ktimers_and_ksoftirqd)
{
	sw(0, OWN, "latscope", 120);
	window(10, 100);
	sw(10, 20, "ktimers/1", 98);
	softirq(12, true, SOFTIRQ_VEC_TIMER);
	softirq(30, false, SOFTIRQ_VEC_TIMER);
	sw(32, 21, "ksoftirqd/1", 120);
	softirq(34, true, SOFTIRQ_VEC_NET_RX);
	/* an interrupt does not take ksoftirqd's next softirq out of it */
	irq(40, true, 36, "virtio1-input.0");
	irq(42, false, 36, NULL);
	softirq(50, false, SOFTIRQ_VEC_NET_RX);
	softirq(52, true, SOFTIRQ_VEC_NET_RX);
	softirq(60, false, SOFTIRQ_VEC_NET_RX);
	sw(70, OWN, "latscope", 120);
	ck_assert_int_eq(explain_cpu_finish(engine, 200, 200), 0);
	ck_assert_str_eq(label(find(CAUSE_SOFTIRQ, SOFTIRQ_VEC_TIMER, 20)),
			 "TIMER softirq in ktimers/1");
	ck_assert_str_eq(label(find(CAUSE_SOFTIRQ, SOFTIRQ_VEC_NET_RX, 21)),
			 "NET_RX softirq in ksoftirqd/1");
	ck_assert_uint_eq(find(CAUSE_SOFTIRQ, SOFTIRQ_VEC_NET_RX, 21)->total_ns, 22);
	ck_assert_ptr_null(find(CAUSE_SOFTIRQ, SOFTIRQ_VEC_NET_RX, 0));
}
END_TEST

/* On a generic kernel a softirq on an interrupt's way out belongs to no thread. */
START_TEST(softirq_on_the_way_out_of_an_interrupt)
{
	sw(0, OWN, "latscope", 120);
	window(10, 100);
	irq(10, true, 36, "virtio1-input.0");
	irq(20, false, 36, NULL);
	softirq(21, true, SOFTIRQ_VEC_NET_RX);
	softirq(40, false, SOFTIRQ_VEC_NET_RX);
	softirq(41, true, SOFTIRQ_VEC_TIMER);
	softirq(45, false, SOFTIRQ_VEC_TIMER);
	/* the same thread enabling bottom halves after a switch runs its own */
	sw(50, 300, "sender", 120);
	softirq(60, true, SOFTIRQ_VEC_NET_RX);
	softirq(70, false, SOFTIRQ_VEC_NET_RX);
	sw(80, OWN, "latscope", 120);
	ck_assert_int_eq(explain_cpu_finish(engine, 200, 200), 0);
	ck_assert_str_eq(label(find(CAUSE_SOFTIRQ, SOFTIRQ_VEC_NET_RX, 0)), "NET_RX softirq");
	ck_assert_uint_eq(find(CAUSE_SOFTIRQ, SOFTIRQ_VEC_NET_RX, 0)->total_ns, 19);
	ck_assert_ptr_nonnull(find(CAUSE_SOFTIRQ, SOFTIRQ_VEC_TIMER, 0));
	ck_assert_str_eq(label(find(CAUSE_SOFTIRQ, SOFTIRQ_VEC_NET_RX, 300)),
			 "NET_RX softirq in sender");
}
END_TEST

/*
 * A tick raises TIMER, never device work: NET_RX right after it was raised
 * by the thread with bottom halves off (loopback), and runs in the thread.
 */
START_TEST(device_softirq_after_a_tick_runs_in_the_thread)
{
	sw(0, OWN, "latscope", 120);
	window(10, 100);
	sw(10, 300, "sender", 79);
	vector(20, true, VECTOR_LOCAL_TIMER);
	vector(25, false, VECTOR_LOCAL_TIMER);
	softirq(26, true, SOFTIRQ_VEC_TIMER);
	softirq(30, false, SOFTIRQ_VEC_TIMER);
	softirq(40, true, SOFTIRQ_VEC_NET_RX);
	softirq(60, false, SOFTIRQ_VEC_NET_RX);
	sw(80, OWN, "latscope", 120);
	ck_assert_int_eq(explain_cpu_finish(engine, 200, 200), 0);
	ck_assert_str_eq(label(find(CAUSE_SOFTIRQ, SOFTIRQ_VEC_TIMER, 0)), "TIMER softirq");
	ck_assert_str_eq(label(find(CAUSE_SOFTIRQ, SOFTIRQ_VEC_NET_RX, 300)),
			 "NET_RX softirq in sender");
	ck_assert_ptr_null(find(CAUSE_SOFTIRQ, SOFTIRQ_VEC_NET_RX, 0));
}
END_TEST

/*
 * PREEMPT_RT: an IRQ thread already running takes the next interrupt's
 * work without a switch, and the softirq it raises runs in it.
 */
START_TEST(softirq_in_an_irq_thread_on_preempt_rt)
{
	const struct explain_cause *net_rx;

	explain_cpu_set_threaded_softirqs(engine, true);
	sw(0, OWN, "latscope", 120);
	window(100, 200);
	threaded_handler(100, "irq/31-virtio2-");
	window(300, 400);
	irq(300, true, 31, "virtio2-req.2");
	waking(302, IRQ_THREAD, 49, "irq/31-virtio2-");
	irq(305, false, 31, NULL);
	sw(306, IRQ_THREAD, "irq/31-virtio2-", 49);
	irq(310, true, 31, "virtio2-req.2");
	irq(312, false, 31, NULL);
	softirq(313, true, SOFTIRQ_VEC_NET_RX);
	softirq(330, false, SOFTIRQ_VEC_NET_RX);
	sw(340, OWN, "latscope", 120);
	ck_assert_int_eq(explain_cpu_finish(engine, 500, 500), 0);
	net_rx = find(CAUSE_SOFTIRQ, SOFTIRQ_VEC_NET_RX, IRQ_THREAD);
	ck_assert_str_eq(label(net_rx), "NET_RX softirq in irq/31-virtio2-req.2");
	ck_assert_uint_eq(net_rx->total_ns, 17);
	ck_assert_ptr_null(find(CAUSE_SOFTIRQ, SOFTIRQ_VEC_NET_RX, 0));
}
END_TEST

/* The windows a cause took part in, as a set of tags. */
static bool took_part(const struct explain_cause *cause, uint64_t window)
{
	unsigned int i;

	for (i = 0; i < cause->nr_occurrences; i++)
		if (cause->occurrences[i].window == window)
			return true;
	return false;
}

/*
 * The lab's rt-tuned guest: every gap the disk IRQ's thread ran in names it
 * by its IRQ and the device, with the hardirq that woke it. The recording
 * says which gaps those are: 200 reads in the second, in bursts as TCG's
 * guest ran late, switched the thread in inside 74 gaps, and the hardirq of
 * IRQ 31 entered inside the same 74 (counted from the file's g and e lines).
 */
START_TEST(recorded_irq_thread_on_preempt_rt)
{
	const struct explain_cause *thread = NULL, *hardirq, *causes;
	unsigned int n, i, both = 0;
	struct recording rec;

	explain_cpu_set_threaded_softirqs(engine, true);
	recording_replay(FIXTURE("explain/rt-irq-thread.txt.gz"), engine, names, &rec);
	causes = explain_cpu_causes(engine, &n);
	for (i = 0; i < n; i++)
		if (causes[i].key.kind == CAUSE_THREAD && causes[i].irq_thread_of == 31)
			thread = &causes[i];
	ck_assert_ptr_nonnull(thread);
	hardirq = find(CAUSE_IRQ, 31, 0);
	ck_assert_str_eq(label(hardirq), "irq 31 virtio3-req.2");
	ck_assert_str_eq(label(thread), "irq/31-virtio3-req.2:147 (rt 50), thread of irq 31");
	ck_assert_uint_eq(thread->spikes, 74);
	for (i = 0; i < thread->nr_occurrences; i++)
		both += took_part(hardirq, thread->occurrences[i].window);
	ck_assert_uint_eq(both, 74);
	free(rec.gaps);
}
END_TEST

/*
 * The lab's rt-tuned guest: NET_RX of loopback runs in the sender, never on
 * its own. Its 3980 runs in the second entered inside 61 gaps (counted
 * from the file), each named with the sender.
 */
START_TEST(recorded_net_rx_in_the_sender_on_preempt_rt)
{
	const struct explain_cause *net_rx, *sender;
	struct recording rec;

	explain_cpu_set_threaded_softirqs(engine, true);
	recording_replay(FIXTURE("explain/rt-net-rx-in-sender.txt.gz"), engine, names, &rec);
	net_rx = find(CAUSE_SOFTIRQ, SOFTIRQ_VEC_NET_RX, 198);
	sender = find(CAUSE_THREAD, 198, 0);
	ck_assert_str_eq(label(net_rx), "NET_RX softirq in lab-udp");
	ck_assert_ptr_null(find(CAUSE_SOFTIRQ, SOFTIRQ_VEC_NET_RX, 0));
	ck_assert_uint_eq(net_rx->spikes, 61);
	ck_assert_uint_ge(sender->spikes, net_rx->spikes);
	free(rec.gaps);
}
END_TEST

/* Priority inheritance changes @pid's priority from @old to @new on CPU 1. */
static void pi_setprio(uint64_t ts, int pid, const char *comm, int old, int new)
{
	struct trace_record r = { .ts = ts, .kind = TRACE_PI_SETPRIO };

	r.pi.pid = pid;
	r.pi.comm = name(comm);
	r.pi.oldprio = old;
	r.pi.newprio = new;
	feed(r);
}

static void setup_timer(void)
{
	engine_open(1, EXPLAIN_TIMER);
}

#define HOLDER 300

/*
 * A SCHED_OTHER thread holds a lock a FIFO 90 thread on another CPU waits
 * for: boosted there (out of this CPU's trace), it holds off the timer
 * thread at FIFO 80 until it releases the lock, and the end of its boost
 * is traced here. It is the blocking thread, boosted to rt 90.
 */
START_TEST(lock_holder_boosted_elsewhere_is_the_blocking_thread)
{
	const struct explain_cause *holder;
	const struct explain_spike *worst;
	struct explain_analysis a;
	unsigned int nr;

	sw(0, HOLDER, "lab-holder", 120);
	window(100, 320);
	vector(110, true, VECTOR_LOCAL_TIMER);
	waking(112, OWN, 19, "latscope");
	vector(115, false, VECTOR_LOCAL_TIMER);
	pi_setprio(300, HOLDER, "lab-holder", 9, 120);
	sw(301, OWN, "latscope", 19);
	ck_assert_int_eq(explain_cpu_finish(engine, 400, 400), 0);
	holder = find(CAUSE_THREAD, HOLDER, 0);
	ck_assert_int_eq(holder->prio, 120);
	ck_assert_int_eq(holder->boosted_prio, 9);
	ck_assert_str_eq(label(holder), "lab-holder:300 (boosted to rt 90)");
	worst = explain_cpu_worst(engine, &nr);
	ck_assert_uint_eq(nr, 1);
	explain_analyse(engine, worst, &a);
	ck_assert_ptr_eq(&explain_cpu_causes(engine, &nr)[a.blocking_thread], holder);
	ck_assert_uint_eq(a.blocking_ns, 186);
}
END_TEST

/* The boost seen here, and a holder with a priority of its own. */
START_TEST(lock_holder_boosted_here_keeps_its_own_priority)
{
	const struct explain_cause *holder;

	sw(0, HOLDER, "lab-holder", 89);
	window(100, 320);
	pi_setprio(105, HOLDER, "lab-holder", 89, 9);
	waking(112, OWN, 19, "latscope");
	pi_setprio(300, HOLDER, "lab-holder", 9, 89);
	sw(301, OWN, "latscope", 19);
	ck_assert_int_eq(explain_cpu_finish(engine, 400, 400), 0);
	holder = find(CAUSE_THREAD, HOLDER, 0);
	ck_assert_str_eq(label(holder), "lab-holder:300 (rt 10, boosted to rt 90)");
}
END_TEST

/* A thread whose priority no lock ever changed keeps its plain label. */
START_TEST(unboosted_thread_label_is_unchanged)
{
	sw(0, HOLDER, "lab-fifo", 9);
	window(100, 200);
	waking(112, OWN, 19, "latscope");
	sw(190, OWN, "latscope", 19);
	ck_assert_int_eq(explain_cpu_finish(engine, 400, 400), 0);
	ck_assert_str_eq(label(find(CAUSE_THREAD, HOLDER, 0)), "lab-fifo:300 (rt 90)");
	ck_assert_int_eq(find(CAUSE_THREAD, HOLDER, 0)->boosted_prio, -1);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("explain_rt");
	TCase *synthetic = tcase_create("synthetic"), *recorded = tcase_create("recorded");
	TCase *inheritance = tcase_create("priority inheritance");

	tcase_add_checked_fixture(synthetic, setup, teardown);
	tcase_add_test(synthetic, irq_thread_joined_to_the_hardirq_that_woke_it);
	tcase_add_test(synthetic, irq_thread_and_softirq_thread_in_the_json);
	tcase_add_test(synthetic, irq_thread_named_by_its_irq_without_a_wake_up);
	tcase_add_test(synthetic, irq_thread_names_that_are_not_the_action);
	tcase_add_test(synthetic, softirq_in_ktimers_and_ksoftirqd);
	tcase_add_test(synthetic, softirq_on_the_way_out_of_an_interrupt);
	tcase_add_test(synthetic, device_softirq_after_a_tick_runs_in_the_thread);
	tcase_add_test(synthetic, softirq_in_an_irq_thread_on_preempt_rt);
	tcase_add_checked_fixture(recorded, setup_recorded, teardown);
	tcase_add_test(recorded, recorded_irq_thread_on_preempt_rt);
	tcase_add_test(recorded, recorded_net_rx_in_the_sender_on_preempt_rt);
	suite_add_tcase(s, synthetic);
	suite_add_tcase(s, recorded);
	tcase_add_checked_fixture(inheritance, setup_timer, teardown);
	tcase_add_test(inheritance, lock_holder_boosted_elsewhere_is_the_blocking_thread);
	tcase_add_test(inheritance, lock_holder_boosted_here_keeps_its_own_priority);
	tcase_add_test(inheritance, unboosted_thread_label_is_unchanged);
	suite_add_tcase(s, inheritance);
	return unit_run(s);
}
