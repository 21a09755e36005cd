// SPDX-License-Identifier: GPL-2.0-or-later
/* The validity record: /proc's threads, /proc/stat's load and the rules, on a fixture sysroot. */
#include <errno.h>
#include <unistd.h>

#include "latscope/cpu_times.h"
#include "latscope/sched_rivals.h"
#include "latscope/sched_thread.h"
#include "latscope/validity.h"
#include "unit.h"

#define BOX FIXTURE("validity-box")

START_TEST(stat_line_with_a_hard_comm)
{
	struct sched_thread t = { 0 };

	ck_assert_int_eq(sched_thread_parse_stat("7 (a) b (c)) R 1 7 7 0 -1 2129984 0 0 0 0 0 0 0 "
						 "0 -100 0 1 0 5 0 0 1 0 0 0 0 0 0 0 0 0 0 0 0 "
						 "17 1 99 1 0 0 0",
						 &t),
			 0);
	ck_assert_str_eq(t.comm, "a) b (c)");
	ck_assert_int_eq(t.state, 'R');
	ck_assert_int_eq(t.policy, SCHED_THREAD_FIFO);
	ck_assert_int_eq(t.priority, 99);
	ck_assert(t.flags & SCHED_THREAD_KERNEL);
	ck_assert_int_eq(sched_thread_parse_stat("7 (x) R 1 2 3", &t), -EINVAL);
	/* cut after the flags: who it is, not how it is scheduled */
	ck_assert_int_eq(sched_thread_parse_stat("8 (y) S 0 0 0 0 -1 4194560 0 0 0", &t), -ENODATA);
	ck_assert_str_eq(t.comm, "y");
	ck_assert_uint_eq(t.flags, 4194560);
	ck_assert_int_eq(sched_thread_parse_stat("no comm here", &t), -EINVAL);
}
END_TEST

START_TEST(allowed_list_of_a_status)
{
	struct cpuset set;
	char list[32];

	ck_assert_int_eq(sched_thread_parse_allowed("Name:\tx\nCpus_allowed:\t5\n"
						    "Cpus_allowed_list:\t0,2-3\nMems:\t1\n",
						    &set),
			 0);
	ck_assert_str_eq(cpuset_format_list(&set, list, sizeof(list)), "0,2-3");
	ck_assert_int_eq(sched_thread_parse_allowed("Name:\tx\n", &set), -EINVAL);
}
END_TEST

static void scan(int policy, int priority, struct sched_rivals *rivals)
{
	struct sysroot *root = sysroot_new(BOX);
	struct sched_rival_query query = { .policy = policy,
					   .priority = priority,
					   .exclude_pid = 42 };

	ck_assert_ptr_nonnull(root);
	cpuset_add(&query.cpus, 1);
	ck_assert_int_eq(sched_rivals_scan(root, &query, rivals), 0);
	sysroot_free(root);
}

/* the rival of that tid, or NULL (the scan goes in readdir()'s order) */
static const struct sched_thread *rival(const struct sched_rivals *rivals, int tid)
{
	unsigned int i;

	for (i = 0; i < rivals->nr_threads; i++)
		if (rivals->threads[i].tid == tid)
			return &rivals->threads[i];
	return NULL;
}

START_TEST(rivals_at_or_above_the_priority_on_the_cpu)
{
	struct sched_rivals rivals;

	scan(SCHED_THREAD_FIFO, 90, &rivals);
	/* FIFO 95 on cpu 1 and a deadline task anywhere; not FIFO 50, not the
	 * stopper, not a FIFO 99 kept on cpu 0, not the measuring process, not
	 * a FIFO 99 zombie on cpu 1 */
	ck_assert_uint_eq(rivals.nr_threads, 2);
	ck_assert_ptr_nonnull(rival(&rivals, 100));
	ck_assert_str_eq(rival(&rivals, 100)->comm, "spin (fifo) 95");
	ck_assert_ptr_nonnull(rival(&rivals, 300));
	/* the RR thread that ended mid-read is unknown, not passed; the
	 * others that ended before saying anything are counted */
	ck_assert_uint_eq(rivals.nr_unread, 1);
	ck_assert_int_eq(rivals.unread[0].tid, 600);
	ck_assert_int_eq(rivals.unread[0].error, -ESRCH);
	ck_assert_int_eq(rivals.unread[0].policy, SCHED_THREAD_RR);
	ck_assert_uint_eq(rivals.nr_ended, 1);
	sched_rivals_release(&rivals);

	scan(SCHED_THREAD_FIFO, 50, &rivals);
	ck_assert_uint_eq(rivals.nr_threads, 3);
	ck_assert_ptr_nonnull(rival(&rivals, 101));
	sched_rivals_release(&rivals);

	scan(SCHED_THREAD_FIFO, 99, &rivals);
	ck_assert_uint_eq(rivals.nr_threads, 1);
	ck_assert_ptr_nonnull(rival(&rivals, 300));
	sched_rivals_release(&rivals);

	/* every real-time thread preempts a SCHED_OTHER measurement */
	scan(SCHED_THREAD_OTHER, 0, &rivals);
	ck_assert_uint_eq(rivals.nr_threads, 3);
	sched_rivals_release(&rivals);
}
END_TEST

START_TEST(sibling_load_from_two_readings)
{
	struct cpu_times before[4], after[4];

	cpu_times_parse("cpu  1 2 3 4\ncpu0 100 0 100 800 0 0 0 0\n"
			"cpu3 10 0 10 80 0 0 0 0\nintr 5\n",
			before, 4);
	cpu_times_parse("cpu0 130 0 120 850 0 0 0 0\ncpu3 10 0 10 180\n", after, 4);
	ck_assert(before[0].listed && !before[1].listed && before[3].listed);
	ck_assert_uint_eq(before[0].total, 1000);
	ck_assert_double_eq_tol(cpu_times_busy_share(&before[0], &after[0]), 0.5, 1e-9);
	ck_assert_double_eq_tol(cpu_times_busy_share(&before[3], &after[3]), 0, 1e-9);
	ck_assert_double_eq(cpu_times_busy_share(&before[1], &after[1]), -1);
	ck_assert_double_eq(cpu_times_busy_share(&after[0], &before[0]), -1);
}
END_TEST

static bool has_line(const json_t *lines, const char *part)
{
	size_t i;

	for (i = 0; i < json_array_size(lines); i++)
		if (strstr(json_string_value(json_array_get(lines, i)), part))
			return true;
	return false;
}

static void box_record(struct validity *v, struct sysroot **root, struct topology *topo)
{
	struct cpuset cpus;

	*root = sysroot_new(BOX);
	ck_assert_ptr_nonnull(*root);
	ck_assert_int_eq(topology_load(*root, topo), 0);
	cpuset_clear(&cpus);
	cpuset_add(&cpus, 1);
	ck_assert_int_eq(validity_init(v, *root, topo, &cpus), 0);
	v->pid = 42;
	v->realtime_wanted = true;
}

START_TEST(the_rules_on_the_box)
{
	struct validity v = { 0 };
	struct topology topo;
	struct sysroot *root;
	json_t *lines, *doc;

	box_record(&v, &root, &topo);
	ck_assert(v.cpus[0].isolated && !v.cpus[0].nohz_full);
	ck_assert(cpuset_has(&v.cpus[0].siblings, 3) && !cpuset_has(&v.cpus[0].siblings, 1));
	ck_assert_int_eq(v.preempt_rt, 0);
	ck_assert_int_eq(validity_add_lane(&v, 43, 1, RT_POLICY_FIFO, 90), 0);
	/* asked for 90, runs at 80 (someone changed it) */
	ck_assert_int_eq(validity_add_lane(&v, 44, 1, RT_POLICY_FIFO, 90), 0);
	/* a thread that is not there */
	ck_assert_int_eq(validity_add_lane(&v, 45, 1, RT_POLICY_FIFO, 90), 0);
	validity_read_threads(&v, root);
	ck_assert_int_eq(v.lanes[0].policy, SCHED_THREAD_FIFO);
	ck_assert_int_eq(v.lanes[0].priority, 90);
	ck_assert_int_eq(v.lanes[2].read_error, -ESRCH);
	/* the lowest priority obtained is what a rival must reach */
	ck_assert_int_eq(v.query.priority, 80);
	validity_read_end(&v, root);
	ck_assert_double_eq(v.cpus[0].sibling_busy, -1);

	lines = validity_shortfalls(&v);
	ck_assert(has_line(lines, "measuring thread 44 runs SCHED_FIFO 80, not the SCHED_FIFO 90"));
	ck_assert(has_line(lines, "measuring thread 45: its policy could not be read (it ended"));
	ck_assert(has_line(lines, "pid 100 tid 100 (spin (fifo) 95) runs SCHED_FIFO 95 on cpus 1, "
				  "at or above the measuring SCHED_FIFO 80"));
	ck_assert(has_line(lines, "pid 300 tid 300 (dl-task) runs SCHED_DEADLINE on cpus 0-3"));
	ck_assert(
		has_line(lines, "pid 600 tid 600 (rr-ended) SCHED_RR 97 could not be read whole"));
	ck_assert(!has_line(lines, "migration"));
	ck_assert(!has_line(lines, "tid 101 "));
	ck_assert(has_line(lines, "/dev/cpu_dma_latency was not held"));
	ck_assert(!has_line(lines, "isolated"));
	ck_assert(has_line(lines, "sched_rt_runtime_us is 950000 of 1000000"));
	ck_assert(!has_line(lines, "PREEMPT_RT"));
	ck_assert(!has_line(lines, "--explain"));
	json_decref(lines);

	/* what each fact turns into */
	v.dma_latency_held = true;
	v.rt_verdict = true;
	v.explain_wanted = true;
	v.cpus[0].isolated = false;
	v.cpus[0].sibling_busy = 0.45;
	lines = validity_shortfalls(&v);
	ck_assert(!has_line(lines, "cpu_dma_latency"));
	ck_assert(has_line(lines, "the kernel is not PREEMPT_RT"));
	ck_assert(has_line(lines, "--explain could not trace"));
	ck_assert(has_line(lines, "cpu 1 is neither isolated nor nohz_full"));
	ck_assert(has_line(lines, "cpu 1's SMT sibling (cpu 3) was busy 45% of the run"));
	json_decref(lines);
	v.explain_traced = true;
	v.trace_lost = 12;
	lines = validity_shortfalls(&v);
	ck_assert(!has_line(lines, "--explain could not trace"));
	ck_assert(has_line(lines, "the tracer lost 12 events"));
	json_decref(lines);

	doc = validity_json(&v);
	ck_assert(json_is_false(json_object_get(doc, "ok")));
	ck_assert_uint_eq(json_array_size(json_object_get(doc, "rivals")), 2);
	ck_assert_ptr_nonnull(
		json_object_get(json_array_get(json_object_get(doc, "rivals"), 0), "comm"));
	ck_assert_str_eq(
		json_string_value(json_object_get(json_object_get(doc, "explain"), "cost")),
		"trace_reader");
	ck_assert(json_is_false(json_object_get(doc, "preempt_rt")));
	json_decref(doc);
	validity_release(&v);
	topology_release(&topo);
	sysroot_free(root);
}
END_TEST

START_TEST(a_clean_run_is_ok)
{
	struct validity v = { 0 };
	struct topology topo;
	struct sysroot *root;
	json_t *doc;

	box_record(&v, &root, &topo);
	ck_assert_int_eq(validity_add_lane(&v, 43, 1, RT_POLICY_FIFO, 90), 0);
	validity_read_threads(&v, root);
	/* what the box cannot give: leave out its rivals and its throttling */
	sched_rivals_release(&v.rivals);
	v.throttling.runtime_us = -1;
	v.dma_latency_held = true;
	doc = validity_json(&v);
	ck_assert_uint_eq(json_array_size(json_object_get(doc, "shortfalls")), 0);
	ck_assert(json_is_true(json_object_get(doc, "ok")));
	json_decref(doc);
	validity_release(&v);
	topology_release(&topo);
	sysroot_free(root);
}
END_TEST

START_TEST(the_live_machine)
{
	struct sysroot *root = sysroot_new(NULL);
	struct sched_thread self;

	/*
	 * this thread, as /proc shows it: never a real-time one under a test
	 * (a runner may be SCHED_BATCH or SCHED_IDLE, as chrt -i 0 make test)
	 */
	ck_assert_int_eq(sched_thread_read(root, getpid(), getpid(), &self), 0);
	ck_assert(self.policy == SCHED_THREAD_OTHER || self.policy == SCHED_THREAD_BATCH ||
		  self.policy == SCHED_THREAD_IDLE);
	ck_assert(!cpuset_empty(&self.allowed));
	ck_assert_int_eq(sched_thread_read(root, getpid(), 0x7ffffff0, &self), -ESRCH);
	sysroot_free(root);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("validity");
	TCase *tc = tcase_create("validity");

	tcase_add_test(tc, stat_line_with_a_hard_comm);
	tcase_add_test(tc, allowed_list_of_a_status);
	tcase_add_test(tc, rivals_at_or_above_the_priority_on_the_cpu);
	tcase_add_test(tc, sibling_load_from_two_readings);
	tcase_add_test(tc, the_rules_on_the_box);
	tcase_add_test(tc, a_clean_run_is_ok);
	tcase_add_test(tc, the_live_machine);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
