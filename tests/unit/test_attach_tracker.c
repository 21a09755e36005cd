// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Activations of another program's threads from synthetic event streams:
 * clock_nanosleep, a periodic timerfd re-armed in read(), a futex
 * hand-off, a preemption, a wake-up on a CPU that was not traced.
 */
#include "latscope/attach_tracker.h"
#include "unit.h"

#define APP 500
#define OTHER 600
#define MAX_SEEN 16

static struct attach_tracker *tracker;
static struct attach_activation seen[MAX_SEEN];
static unsigned int nr_seen;

static void keep(const struct attach_activation *a, void *context)
{
	(void)context;
	ck_assert_uint_lt(nr_seen, MAX_SEEN);
	seen[nr_seen++] = *a;
}

static void setup(void)
{
	nr_seen = 0;
	tracker = attach_tracker_new(keep, NULL);
	ck_assert_ptr_nonnull(tracker);
	ck_assert_int_eq(attach_tracker_follow(tracker, APP), 0);
}

static void teardown(void)
{
	attach_tracker_free(tracker);
}

static void feed(struct trace_record r)
{
	r.cpu = 1;
	attach_tracker_feed(tracker, &r);
}

/* @pid arms a timer for @expires */
static void timer_start(uint64_t ts, int pid, uint64_t expires)
{
	struct trace_record r = { .ts = ts, .kind = TRACE_HRTIMER_START, .pid = pid };

	r.hrtimer.timer = 0xffff1000;
	r.hrtimer.expires_ns = expires;
	feed(r);
}

/* @prev leaves the CPU in @state (1 sleeping, 0x100 preempted) for @next */
static void sw(uint64_t ts, int prev, int64_t state, int next)
{
	struct trace_record r = { .ts = ts, .kind = TRACE_SWITCH, .pid = prev };

	r.sched_switch.prev_pid = prev;
	r.sched_switch.prev_state = state;
	r.sched_switch.next_pid = next;
	feed(r);
}

static void waking(uint64_t ts, int pid)
{
	struct trace_record r = { .ts = ts, .kind = TRACE_WAKING, .pid = 0 };

	r.waking.pid = pid;
	feed(r);
}

static void sys_exit(uint64_t ts, int pid)
{
	struct trace_record r = { .ts = ts, .kind = TRACE_SYS_EXIT, .pid = pid };

	feed(r);
}

/* clock_nanosleep to an absolute expiry: cyclictest's loop, twice */
START_TEST(clock_nanosleep_is_a_timer_wakeup)
{
	uint64_t period;

	for (period = 0; period < 2; period++) {
		uint64_t expiry = 1000000 * (period + 1);

		timer_start(expiry - 900000, APP, expiry);
		sw(expiry - 899000, APP, 1, 0);
		waking(expiry + 3000, APP);
		sw(expiry + 5000, 0, 0, APP);
		sys_exit(expiry + 6000, APP);
	}
	ck_assert_uint_eq(nr_seen, 2);
	ck_assert_int_eq(seen[1].kind, ATTACH_WAKEUP_TIMER);
	ck_assert_int_eq(seen[1].tid, APP);
	ck_assert_uint_eq(seen[1].expiry_ns, 2000000);
	ck_assert_uint_eq(seen[1].woken_ns, 2003000);
	ck_assert_uint_eq(seen[1].switch_in_ns, 2005000);
	ck_assert_uint_eq(attach_activation_latency(&seen[1]), 6000);
}
END_TEST

/*
 * A periodic timerfd: armed once, then re-armed by each read() on its way
 * out, after the wake-up; the next read sleeps without arming anything.
 */
START_TEST(timerfd_rearmed_in_read)
{
	timer_start(100, APP, 1000000);
	sw(200, APP, 1, 0);
	waking(1002000, APP);
	sw(1004000, 0, 0, APP);
	timer_start(1005000, APP, 2000000); /* read() re-arms it */
	sys_exit(1006000, APP);
	sw(1007000, APP, 1, 0);
	waking(2001000, APP);
	sw(2002000, 0, 0, APP);
	timer_start(2003000, APP, 3000000);
	sys_exit(2004000, APP);
	ck_assert_uint_eq(nr_seen, 2);
	ck_assert_int_eq(seen[0].kind, ATTACH_WAKEUP_TIMER);
	ck_assert_uint_eq(attach_activation_latency(&seen[0]), 6000);
	ck_assert_int_eq(seen[1].kind, ATTACH_WAKEUP_TIMER);
	ck_assert_uint_eq(seen[1].expiry_ns, 2000000);
	ck_assert_uint_eq(attach_activation_latency(&seen[1]), 4000);
}
END_TEST

/* A futex hand-off: woken by another thread, no timer armed. */
START_TEST(futex_wakeup_is_another_wakeup)
{
	sw(100, APP, 1, OTHER);
	waking(5000, APP);
	sw(9000, OTHER, 1, APP);
	sys_exit(9500, APP);
	ck_assert_uint_eq(nr_seen, 1);
	ck_assert_int_eq(seen[0].kind, ATTACH_WAKEUP_OTHER);
	ck_assert_uint_eq(seen[0].expiry_ns, 0);
	ck_assert_uint_eq(attach_activation_latency(&seen[0]), 4500);
}
END_TEST

/* A wait with a timeout, woken before it: another wake-up, the timer spent. */
START_TEST(woken_before_the_timeout)
{
	timer_start(100, APP, 1000000);
	sw(200, APP, 1, OTHER);
	waking(5000, APP);
	sw(6000, OTHER, 1, APP);
	sys_exit(7000, APP);
	/* the next sleep arms nothing: it must not inherit that timeout */
	sw(8000, APP, 1, OTHER);
	waking(2000000, APP);
	sw(2001000, OTHER, 1, APP);
	sys_exit(2002000, APP);
	ck_assert_uint_eq(nr_seen, 2);
	ck_assert_int_eq(seen[0].kind, ATTACH_WAKEUP_OTHER);
	ck_assert_int_eq(seen[1].kind, ATTACH_WAKEUP_OTHER);
}
END_TEST

/* Preempted on its way out ("R+"): still the same activation. */
START_TEST(preemption_is_no_sleep)
{
	timer_start(100, APP, 1000000);
	sw(200, APP, 1, 0);
	waking(1001000, APP);
	sw(1002000, 0, 0, APP);
	sw(1003000, APP, 0x100, OTHER);
	sw(1050000, OTHER, 1, APP);
	sys_exit(1051000, APP);
	ck_assert_uint_eq(nr_seen, 1);
	ck_assert_int_eq(seen[0].kind, ATTACH_WAKEUP_TIMER);
	ck_assert_uint_eq(attach_activation_latency(&seen[0]), 51000);
}
END_TEST

/* The wake-up issued where nothing was traced: the switch-in stands for it. */
START_TEST(wakeup_not_traced)
{
	timer_start(100, APP, 1000000);
	sw(200, APP, 1, 0);
	sw(1002000, 0, 0, APP);
	sys_exit(1003000, APP);
	ck_assert_uint_eq(nr_seen, 1);
	ck_assert_int_eq(seen[0].kind, ATTACH_WAKEUP_TIMER);
	ck_assert_uint_eq(seen[0].woken_ns, 0);
	ck_assert_uint_eq(attach_activation_latency(&seen[0]), 3000);
}
END_TEST

/*
 * Neither the wake-up nor the switch-in traced (this machine's 6.18 left
 * both out, now and then): the return says it ran.
 */
START_TEST(return_with_nothing_traced_before_it)
{
	timer_start(100, APP, 1000000);
	sw(200, APP, 1, 0);
	sys_exit(1047600, APP);
	sw(1100000, APP, 1, 0);
	sys_exit(1200000, APP);
	ck_assert_uint_eq(nr_seen, 2);
	ck_assert_int_eq(seen[0].kind, ATTACH_WAKEUP_TIMER);
	ck_assert_uint_eq(attach_activation_latency(&seen[0]), 47600);
	ck_assert_int_eq(seen[1].kind, ATTACH_WAKEUP_UNSEEN);
	ck_assert_uint_eq(attach_activation_latency(&seen[1]), 0);
	/* after a traced one: nothing of it stands for the next one's */
	sw(1300000, APP, 1, 0);
	waking(1400000, APP);
	sw(1500000, 0, 0, APP);
	sys_exit(1600000, APP);
	timer_start(1700000, APP, 2000000);
	sw(1700100, APP, 1, 0);
	sys_exit(2004000, APP);
	ck_assert_uint_eq(nr_seen, 4);
	ck_assert_int_eq(seen[3].kind, ATTACH_WAKEUP_TIMER);
	ck_assert_uint_eq(seen[3].switch_in_ns, 0);
	ck_assert_uint_eq(attach_activation_latency(&seen[3]), 4000);
}
END_TEST

/* Other tasks, and a timer of another clock (CLOCK_REALTIME), are no one's. */
START_TEST(others_and_other_clocks_are_ignored)
{
	timer_start(100, OTHER, 1000000);
	sw(200, OTHER, 1, 0);
	waking(1001000, OTHER);
	sw(1002000, 0, 0, OTHER);
	sys_exit(1003000, OTHER);
	ck_assert_uint_eq(nr_seen, 0);
	timer_start(2000000, APP, 1765000000000000000ULL);
	sw(2000100, APP, 1, 0);
	waking(3000000, APP);
	sw(3001000, 0, 0, APP);
	sys_exit(3002000, APP);
	ck_assert_uint_eq(nr_seen, 1);
	ck_assert_int_eq(seen[0].kind, ATTACH_WAKEUP_OTHER);
}
END_TEST

/* clock_nanosleep to an expiry already past: cyclictest counts it, so do we */
START_TEST(expiry_already_past_returns_without_sleep)
{
	timer_start(1000, APP, 1000000);
	sw(1100, APP, 1, 0);
	waking(3000000, APP);
	sw(3001000, 0, 0, APP);
	sys_exit(3002000, APP);
	/* the next expiry (2 ms) is past: no sleep, at once back */
	timer_start(3003000, APP, 2000000);
	sys_exit(3004000, APP);
	/* a return before any expiry is nobody's activation */
	timer_start(3005000, APP, 4000000);
	sys_exit(3006000, APP);
	ck_assert_uint_eq(nr_seen, 2);
	ck_assert_int_eq(seen[1].kind, ATTACH_WAKEUP_TIMER);
	ck_assert_uint_eq(seen[1].expiry_ns, 2000000);
	ck_assert_uint_eq(seen[1].switch_in_ns, 0);
	ck_assert_uint_eq(attach_activation_latency(&seen[1]), 1004000);
}
END_TEST

/* A periodic timerfd read late: the read re-arms it and returns at once. */
START_TEST(late_timerfd_read_without_sleep)
{
	timer_start(100, APP, 1000000);
	sw(200, APP, 1, 0);
	waking(1001000, APP);
	sw(1002000, 0, 0, APP);
	timer_start(1003000, APP, 2000000);
	sys_exit(1004000, APP);
	/* the thread is busy past 2 ms, then reads: no sleep */
	timer_start(2500000, APP, 3000000);
	sys_exit(2501000, APP);
	ck_assert_uint_eq(nr_seen, 2);
	ck_assert_int_eq(seen[1].kind, ATTACH_WAKEUP_TIMER);
	ck_assert_uint_eq(seen[1].expiry_ns, 2000000);
	ck_assert_uint_eq(attach_activation_latency(&seen[1]), 501000);
}
END_TEST

/* Threads followed later (the target made them) are tracked too. */
START_TEST(many_threads)
{
	int tid;

	for (tid = 1000; tid < 1100; tid++)
		ck_assert_int_eq(attach_tracker_follow(tracker, tid), 0);
	ck_assert_int_eq(attach_tracker_follow(tracker, 1050), 0);
	ck_assert_int_eq(attach_tracker_follow(tracker, 0), -EINVAL);
	sw(100, 1077, 1, 0);
	waking(200, 1077);
	sw(300, 0, 0, 1077);
	sys_exit(400, 1077);
	ck_assert_uint_eq(nr_seen, 1);
	ck_assert_int_eq(seen[0].tid, 1077);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("attach_tracker");
	TCase *c = tcase_create("activations");

	tcase_add_checked_fixture(c, setup, teardown);
	tcase_add_test(c, clock_nanosleep_is_a_timer_wakeup);
	tcase_add_test(c, timerfd_rearmed_in_read);
	tcase_add_test(c, futex_wakeup_is_another_wakeup);
	tcase_add_test(c, woken_before_the_timeout);
	tcase_add_test(c, preemption_is_no_sleep);
	tcase_add_test(c, wakeup_not_traced);
	tcase_add_test(c, others_and_other_clocks_are_ignored);
	tcase_add_test(c, expiry_already_past_returns_without_sleep);
	tcase_add_test(c, late_timerfd_read_without_sleep);
	tcase_add_test(c, return_with_nothing_traced_before_it);
	tcase_add_test(c, many_threads);
	suite_add_tcase(s, c);
	return unit_run(s);
}
