// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * latscope doctor's joins, ranking and verdict: on explain results recorded
 * on a 2-vCPU KVM guest (tests/data/doctor, made by its record script), on
 * the audits of the fixture trees, and on causes written here one kind at
 * a time so that every join has its case.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "latscope/audit.h"
#include "latscope/doctor.h"
#include "latscope/noise.h"
#include "latscope/tsc.h"
#include "json_load.h"
#include "unit.h"

/* --- documents --- */

static json_t *load(const char *name)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/doctor/%s", FIXTURE(""), name);
	return unit_load_json(path);
}

/* The check part of a fixture tree's audit, as check --json writes it. */
static json_t *audit_of(const char *tree, const char *rt_list)
{
	struct audit_report report = { 0 };
	struct sysroot *root = sysroot_new(tree);
	struct topology topo;
	struct cpuset rt;
	json_t *doc;

	ck_assert_ptr_nonnull(root);
	ck_assert_int_eq(topology_load(root, &topo), 0);
	ck_assert_int_eq(cpuset_parse_list(rt_list, &rt), 0);
	ck_assert_int_eq(audit_run(root, &topo, &rt, &report), 0);
	doc = audit_report_json(&report);
	ck_assert_ptr_nonnull(doc);
	json_object_set_new(doc, "command", json_string("check"));
	audit_report_release(&report);
	topology_release(&topo);
	sysroot_free(root);
	return doc;
}

static const char *finding_status(const json_t *check, const char *id)
{
	const json_t *findings = json_object_get(check, "findings");
	size_t i;

	for (i = 0; i < json_array_size(findings); i++)
		if (!strcmp(json_string_value(json_object_get(json_array_get(findings, i), "id")),
			    id))
			return json_string_value(
				json_object_get(json_array_get(findings, i), "status"));
	return NULL;
}

/* A timer or noise document with one entry on @cpu holding @causes (taken). */
static json_t *measurement(enum doctor_part part, int cpu, json_t *causes)
{
	json_int_t total = 0;
	size_t i;

	for (i = 0; i < json_array_size(causes); i++)
		total += json_integer_value(json_object_get(json_array_get(causes, i), "total_ns"));
	if (part == DOCTOR_TIMER)
		return json_pack("{s:s, s:[{s:i, s:i, s:i, s:{s:i}, s:o, s:{s:I}}]}", "command",
				 "timer", "threads", "cpu", cpu, "cycles", 1000, "max_ns", 40000,
				 "percentiles", "p99.99", 39000, "causes", causes,
				 "explained_spikes", "total_ns", total);
	return json_pack("{s:s, s:[{s:i, s:i, s:I, s:i, s:{s:i, s:i}, s:o, s:{s:I}}]}", "command",
			 "noise", "cpus", "cpu", cpu, "loops", 1000000, "run_ns",
			 (json_int_t)1000000000, "max_ns", 20000, "gaps", "count", 10, "lost_ns",
			 100000, "causes", causes, "explained_spikes", "total_ns", total);
}

static json_t *kind_cause(const char *kind, const char *name, json_int_t total_ns)
{
	return json_pack("{s:s, s:s, s:s, s:i, s:I, s:I, s:n}", "kind", kind, "name", name, "label",
			 name, "spikes", 10, "total_ns", total_ns, "max_ns", total_ns / 10,
			 "periodic");
}

static json_t *irq_cause(int irq, const char *name, json_int_t total_ns)
{
	char label[64];

	snprintf(label, sizeof(label), "irq %d %s", irq, name);
	return json_pack("{s:s, s:s, s:s, s:i, s:i, s:I, s:I, s:n}", "kind", "irq", "name", name,
			 "label", label, "irq", irq, "spikes", 10, "total_ns", total_ns, "max_ns",
			 total_ns / 10, "periodic");
}

/* a thread as explain writes it: kernel priority 0-99 is RT (rt 99 - prio) */
static json_t *thread_cause(const char *comm, int pid, int prio, json_int_t total_ns)
{
	char label[96];

	snprintf(label, sizeof(label), "%s:%d", comm, pid);
	return json_pack("{s:s, s:s, s:s, s:i, s:s, s:i, s:i, s:I, s:I, s:n}", "kind", "thread",
			 "name", comm, "label", label, "pid", pid, "comm", comm, "kernel_priority",
			 prio, "spikes", 10, "total_ns", total_ns, "max_ns", total_ns / 10,
			 "periodic");
}

/* The fix that took the cause labelled @label in @part, or NULL. */
static const struct doctor_fix *fix_of(const struct doctor_fixes *fixes, enum doctor_part part,
				       const char *label, const struct doctor_cause **cause)
{
	unsigned int i, k;

	for (i = 0; i < fixes->nr_fixes; i++)
		for (k = 0; k < fixes->fixes[i].nr_causes; k++)
			if (fixes->fixes[i].causes[k].part == part &&
			    strstr(fixes->fixes[i].causes[k].label, label)) {
				if (cause)
					*cause = &fixes->fixes[i].causes[k];
				return &fixes->fixes[i];
			}
	return NULL;
}

static void set_cpus(struct doctor_parts *parts, const char *rt, const char *housekeeping)
{
	ck_assert_int_eq(cpuset_parse_list(rt, &parts->rt_cpus), 0);
	ck_assert_int_eq(cpuset_parse_list(housekeeping, &parts->housekeeping), 0);
}

/* --- recorded on the KVM guest --- */

struct recorded {
	json_t *doc;
	struct doctor_parts parts;
	struct doctor_fixes fixes;
};

static void recorded_open(struct recorded *r)
{
	const json_t *parts;

	memset(r, 0, sizeof(*r));
	r->doc = load("doctor-vm.json");
	parts = json_object_get(r->doc, "parts");
	r->parts.check = json_object_get(parts, "check");
	r->parts.irq_plan = json_object_get(parts, "irq_plan");
	r->parts.timer = json_object_get(parts, "timer");
	r->parts.noise = json_object_get(parts, "noise");
	ck_assert_ptr_nonnull(r->parts.check);
	ck_assert_ptr_nonnull(r->parts.irq_plan);
	ck_assert_ptr_nonnull(r->parts.timer);
	ck_assert_ptr_nonnull(r->parts.noise);
	set_cpus(&r->parts, "1", "0");
	r->parts.timer_priority = DOCTOR_TIMER_PRIORITY;
	ck_assert_int_eq(doctor_join(&r->parts, &r->fixes), 0);
}

static void recorded_close(struct recorded *r)
{
	doctor_fixes_release(&r->fixes);
	json_decref(r->doc);
}

static unsigned int causes_in(const json_t *part, const char *entries)
{
	const json_t *list = json_object_get(part, entries);
	unsigned int n = 0;
	size_t i, k;

	for (i = 0; i < json_array_size(list); i++) {
		const json_t *causes = json_object_get(json_array_get(list, i), "causes");

		for (k = 0; k < json_array_size(causes); k++)
			n += json_integer_value(
				     json_object_get(json_array_get(causes, k), "total_ns")) > 0;
	}
	return n;
}

START_TEST(test_recorded_every_cause_once)
{
	struct recorded r;
	unsigned int i, k, joined = 0;
	double share[DOCTOR_NR_PARTS] = { 0 };

	recorded_open(&r);
	for (i = 0; i < r.fixes.nr_fixes; i++) {
		joined += r.fixes.fixes[i].nr_causes;
		for (k = 0; k < r.fixes.fixes[i].nr_causes; k++)
			share[r.fixes.fixes[i].causes[k].part] += r.fixes.fixes[i].causes[k].share;
	}
	ck_assert_uint_eq(joined,
			  causes_in(r.parts.timer, "threads") + causes_in(r.parts.noise, "cpus"));
	/* the causes split the explained time of each part */
	ck_assert_double_le(share[DOCTOR_TIMER], 1.0 + 1e-9);
	ck_assert_double_ge(share[DOCTOR_TIMER], 0.99);
	ck_assert_double_le(share[DOCTOR_NOISE], 1.0 + 1e-9);
	ck_assert_double_ge(share[DOCTOR_NOISE], 0.99);
	ck_assert(!r.fixes.untraced[DOCTOR_TIMER] && !r.fixes.untraced[DOCTOR_NOISE]);
	recorded_close(&r);
}
END_TEST

START_TEST(test_recorded_ranking)
{
	struct recorded r;
	unsigned int i, k;

	recorded_open(&r);
	ck_assert_uint_gt(r.fixes.nr_known, 3);
	for (i = 0; i < r.fixes.nr_fixes; i++) {
		const struct doctor_fix *f = &r.fixes.fixes[i];

		ck_assert_int_eq(f->kind == DOCTOR_FIX_UNKNOWN, i >= r.fixes.nr_known);
		ck_assert_double_eq_tol(f->impact, fmax(f->share[0], f->share[1]), 1e-12);
		if (i && i != r.fixes.nr_known)
			ck_assert_double_le(f->impact, f[-1].impact);
		for (k = 1; k < f->nr_causes; k++)
			ck_assert_double_le(f->causes[k].share, f->causes[k - 1].share);
		ck_assert_msg(f->action[0], "fix %s has no action", f->title);
	}
	recorded_close(&r);
}
END_TEST

/* The joins the issue names, on what this guest measured. */
START_TEST(test_recorded_joins)
{
	const struct doctor_cause *cause;
	const struct doctor_fix *f;
	struct recorded r;
	char pid[32];

	recorded_open(&r);
	/* a periodic unexplained source in a guest: the virtualization finding */
	f = fix_of(&r.fixes, DOCTOR_NOISE, "unexplained", &cause);
	ck_assert_ptr_nonnull(f);
	ck_assert_str_eq(f->finding_id, "platform.virtualization");
	ck_assert_str_eq(f->finding_status, "warn");
	ck_assert_uint_gt(cause->period_ns, 0);
	ck_assert_ptr_eq(fix_of(&r.fixes, DOCTOR_TIMER, "timer irq delay", NULL), f);
	/* the timer's own interrupt, stretched by the host */
	ck_assert_ptr_eq(fix_of(&r.fixes, DOCTOR_TIMER, "local_timer", NULL), f);
	/* local_timer on an RT CPU: the tick */
	f = fix_of(&r.fixes, DOCTOR_NOISE, "local_timer", NULL);
	ck_assert_str_eq(f->finding_id, "isolation.nohz_full");
	ck_assert_int_eq(f->kind, DOCTOR_FIX_SETTING);
	/* the disk's managed queue interrupt and its bottom half */
	f = fix_of(&r.fixes, DOCTOR_NOISE, "irq 36 virtio1-req.0", &cause);
	ck_assert_str_eq(f->finding_id, "irq.managed");
	ck_assert_str_eq(f->finding_status, "fail");
	ck_assert_ptr_nonnull(strstr(f->action, "isolcpus=managed_irq"));
	ck_assert_ptr_eq(fix_of(&r.fixes, DOCTOR_NOISE, "BLOCK softirq", &cause), f);
	ck_assert_ptr_nonnull(strstr(cause->why, "bottom half of irq 36"));
	/* an RT thread of our own: no configuration fix, its affinity */
	f = fix_of(&r.fixes, DOCTOR_NOISE, "latscope-rt", &cause);
	ck_assert_int_eq(f->kind, DOCTOR_FIX_OWN_THREAD);
	ck_assert_str_eq(f->finding_id, "");
	ck_assert_ptr_nonnull(strstr(f->action, "no configuration fix"));
	snprintf(pid, sizeof(pid), "taskset -apc 0 %s", strchr(cause->label, ':') + 1);
	*strchr(pid + 15, ' ') = '\0';
	ck_assert_msg(strstr(f->action, pid), "%s not in %s", pid, f->action);
	ck_assert_uint_ge(cause->spikes, 190); /* 300 us every 20 ms for 4 s: 200 */
	/* kernel threads and softirqs */
	ck_assert_str_eq(fix_of(&r.fixes, DOCTOR_NOISE, "kworker/", NULL)->finding_id,
			 "isolation.workqueues");
	ck_assert_str_eq(fix_of(&r.fixes, DOCTOR_NOISE, "rcu_preempt", NULL)->finding_id,
			 "isolation.rcu_nocbs");
	ck_assert_str_eq(fix_of(&r.fixes, DOCTOR_NOISE, "RCU softirq", NULL)->finding_id,
			 "isolation.rcu_nocbs");
	ck_assert_str_eq(fix_of(&r.fixes, DOCTOR_NOISE, "SCHED softirq", NULL)->finding_id,
			 "isolation.cpus");
	ck_assert_str_eq(fix_of(&r.fixes, DOCTOR_NOISE, "TIMER softirq", NULL)->finding_id,
			 "isolation.nohz_full");
	ck_assert_str_eq(fix_of(&r.fixes, DOCTOR_NOISE, "reschedule", NULL)->finding_id,
			 "isolation.cpus");
	ck_assert_str_eq(fix_of(&r.fixes, DOCTOR_NOISE, "kdamond", NULL)->finding_id,
			 "isolation.kthreads");
	ck_assert_str_eq(fix_of(&r.fixes, DOCTOR_NOISE, "bash:", NULL)->finding_id,
			 "isolation.processes");
	/* the switch itself: no known fix, what to look at next */
	f = fix_of(&r.fixes, DOCTOR_TIMER, "scheduling", NULL);
	ck_assert_int_eq(f->kind, DOCTOR_FIX_UNKNOWN);
	ck_assert_ptr_nonnull(strstr(f->action, "--trace-dir"));
	recorded_close(&r);
}
END_TEST

START_TEST(test_recorded_throttling)
{
	struct doctor_parts parts = { 0 };
	struct doctor_fixes fixes;
	const struct doctor_fix *f;
	json_t *noise = load("noise-fifo.json"), *check = audit_of(FIXTURE("check-vm"), "1");

	parts.noise = noise;
	parts.check = check;
	set_cpus(&parts, "1", "0");
	ck_assert_int_eq(doctor_join(&parts, &fixes), 0);
	f = fix_of(&fixes, DOCTOR_NOISE, "RT throttling", NULL);
	ck_assert_ptr_nonnull(f);
	ck_assert_str_eq(f->finding_id, "sched.rt_throttling");
	ck_assert_str_eq(f->finding_status, finding_status(check, "sched.rt_throttling"));
	ck_assert_ptr_nonnull(strstr(f->action, "sched_rt_runtime_us"));
	/* 50 ms of every second, and the CPU idle meanwhile */
	ck_assert_double_gt(f->share[DOCTOR_NOISE], 0.1);
	ck_assert_int_eq(f->kind, DOCTOR_FIX_SETTING);
	ck_assert_ptr_eq(fix_of(&fixes, DOCTOR_NOISE, "idle", NULL), f);
	doctor_fixes_release(&fixes);
	json_decref(check);
	json_decref(noise);
}
END_TEST

/* --- every join, one cause at a time --- */

enum tree { NO_AUDIT, VM, WORKSTATION };

struct join_case {
	const char *what;
	enum doctor_part part;
	enum tree tree; /* VM: a guest, RT cpu 1; WORKSTATION: bare metal, RT cpus 2-3 */
	bool plan; /* with the recorded IRQ plan (RT cpu 1) */
	json_t *(*cause)(void);
	enum doctor_fix_kind kind;
	const char *finding; /* "" for none */
	const char *in_action; /* or NULL */
	const char *in_why_or_note; /* or NULL */
};

static json_t *c_irq_moved(void)
{
	return irq_cause(42, "virtio3-tx", 50000);
}
static json_t *c_irq_managed(void)
{
	return irq_cause(36, "virtio1-req.0", 50000);
}
static json_t *c_irq_unplanned(void)
{
	return irq_cause(99, "mystery", 50000);
}
static json_t *c_irq_thread(void)
{
	return thread_cause("irq/42-virtio3-tx", 311, 49, 50000);
}
static json_t *c_local_timer(void)
{
	return kind_cause("vector", "local_timer", 50000);
}
static json_t *c_reschedule(void)
{
	return kind_cause("vector", "reschedule", 50000);
}
static json_t *c_irq_work(void)
{
	return kind_cause("vector", "irq_work", 50000);
}
static json_t *c_timer_softirq(void)
{
	return kind_cause("softirq", "TIMER", 50000);
}
static json_t *c_rcu_softirq(void)
{
	return kind_cause("softirq", "RCU", 50000);
}
static json_t *c_sched_softirq(void)
{
	return kind_cause("softirq", "SCHED", 50000);
}
static json_t *c_net_rx(void)
{
	return kind_cause("softirq", "NET_RX", 50000);
}
static json_t *c_kworker(void)
{
	return thread_cause("kworker/u8:1", 90, 120, 50000);
}
static json_t *c_rcuop(void)
{
	return thread_cause("rcuop/1", 17, 120, 50000);
}
static json_t *c_watchdog(void)
{
	return thread_cause("watchdog/1", 18, 0, 50000);
}
static json_t *c_hung_task(void)
{
	return thread_cause("khungtaskd", 40, 120, 50000);
}
static json_t *c_khugepaged(void)
{
	return thread_cause("khugepaged", 41, 139, 50000);
}
static json_t *c_migration(void)
{
	return thread_cause("migration/1", 21, 0, 50000);
}
static json_t *c_kthread(void)
{
	return thread_cause("kdamond.0", 77, 120, 50000);
}
static json_t *c_idle(void)
{
	return thread_cause("swapper/1", 0, 120, 50000);
}
static json_t *c_main_thread(void)
{
	json_t *c = thread_cause("latscope", 500, 120, 50000);

	json_object_set_new(c, "label", json_string("latscope:500 (this run's main thread)"));
	return c;
}
static json_t *c_own_rt(void)
{
	return thread_cause("spinner", 4242, 9, 50000); /* rt 90 */
}
static json_t *c_process(void)
{
	return thread_cause("make", 4343, 120, 50000);
}
static json_t *c_nmi(void)
{
	return kind_cause("nmi", "nmi", 50000);
}
static json_t *c_throttling(void)
{
	return kind_cause("throttling", "throttling", 50000);
}
static json_t *c_unexplained(void)
{
	return kind_cause("unexplained", "unexplained", 50000);
}
static json_t *c_timer_delay(void)
{
	return kind_cause("timer_delay", "timer_delay", 50000);
}
static json_t *c_scheduling(void)
{
	return kind_cause("scheduling", "scheduling", 50000);
}
static json_t *c_lost(void)
{
	return kind_cause("lost", "lost", 50000);
}

static const struct join_case join_cases[] = {
	{ "an IRQ by number: the plan's move", DOCTOR_NOISE, VM, true, c_irq_moved,
	  DOCTOR_FIX_IRQ_MOVE, "irq.device_affinity", "latscope irq apply --rt-cpus 1",
	  "moves irq 42 from cpus 0-1 to 0" },
	{ "a managed IRQ: isolcpus=managed_irq", DOCTOR_NOISE, VM, true, c_irq_managed,
	  DOCTOR_FIX_SETTING, "irq.managed", NULL, "user space cannot move it" },
	{ "an IRQ the plan leaves alone", DOCTOR_NOISE, VM, true, c_irq_unplanned,
	  DOCTOR_FIX_UNKNOWN, "", "--trace-dir", "leaves it where it is" },
	{ "an IRQ without a plan", DOCTOR_NOISE, VM, false, c_irq_moved, DOCTOR_FIX_IRQ_MOVE,
	  "irq.device_affinity", "latscope irq apply", "the irq plan did not run" },
	{ "a threaded IRQ handler: its IRQ", DOCTOR_TIMER, VM, true, c_irq_thread,
	  DOCTOR_FIX_IRQ_MOVE, "irq.device_affinity", NULL, "handler thread" },
	{ "local_timer on an RT CPU: nohz_full", DOCTOR_NOISE, WORKSTATION, false, c_local_timer,
	  DOCTOR_FIX_SETTING, "isolation.nohz_full", "nohz_full", "tick" },
	{ "local_timer waking the timer in a guest", DOCTOR_TIMER, VM, false, c_local_timer,
	  DOCTOR_FIX_SETTING, "platform.virtualization", NULL, "exits to the host" },
	{ "local_timer waking the timer on bare metal", DOCTOR_TIMER, WORKSTATION, false,
	  c_local_timer, DOCTOR_FIX_SETTING, "isolation.nohz_full", NULL, "stops the tick" },
	{ "IPIs: isolation (passed on the workstation)", DOCTOR_NOISE, WORKSTATION, false,
	  c_reschedule, DOCTOR_FIX_UNKNOWN, "isolation.cpus", NULL, "isolation.cpus passed" },
	{ "IPIs: isolation", DOCTOR_NOISE, VM, false, c_reschedule, DOCTOR_FIX_SETTING,
	  "isolation.cpus", "isolcpus", "IPIs" },
	{ "irq_work: no known fix", DOCTOR_NOISE, VM, false, c_irq_work, DOCTOR_FIX_UNKNOWN, "",
	  "latscope noise --cpus 1 --explain --trace-dir", NULL },
	{ "TIMER softirq: the tick", DOCTOR_NOISE, WORKSTATION, false, c_timer_softirq,
	  DOCTOR_FIX_SETTING, "isolation.nohz_full", NULL, NULL },
	{ "RCU softirq: offloading", DOCTOR_NOISE, WORKSTATION, false, c_rcu_softirq,
	  DOCTOR_FIX_SETTING, "isolation.rcu_nocbs", NULL, NULL },
	{ "SCHED softirq: isolation", DOCTOR_NOISE, VM, false, c_sched_softirq, DOCTOR_FIX_SETTING,
	  "isolation.cpus", NULL, "load balancing" },
	{ "a device's softirq alone: the IRQ moves", DOCTOR_NOISE, VM, true, c_net_rx,
	  DOCTOR_FIX_IRQ_MOVE, "irq.device_affinity", NULL, "bottom half" },
	{ "a kworker: the unbound workqueue cpumask", DOCTOR_NOISE, WORKSTATION, false, c_kworker,
	  DOCTOR_FIX_SETTING, "isolation.workqueues", "workqueue", NULL },
	{ "an RCU offload thread", DOCTOR_NOISE, WORKSTATION, false, c_rcuop, DOCTOR_FIX_SETTING,
	  "isolation.rcu_nocbs", NULL, NULL },
	{ "the watchdog thread", DOCTOR_NOISE, WORKSTATION, false, c_watchdog, DOCTOR_FIX_SETTING,
	  "kernel.lockup_detector", NULL, NULL },
	{ "khungtaskd", DOCTOR_NOISE, VM, false, c_hung_task, DOCTOR_FIX_SETTING, "sched.hung_task",
	  NULL, NULL },
	{ "khugepaged", DOCTOR_NOISE, WORKSTATION, false, c_khugepaged, DOCTOR_FIX_SETTING,
	  "mem.thp", NULL, NULL },
	{ "a per-CPU stopper thread", DOCTOR_NOISE, VM, false, c_migration, DOCTOR_FIX_SETTING,
	  "isolation.cpus", NULL, "per-CPU" },
	{ "another kernel thread", DOCTOR_NOISE, WORKSTATION, false, c_kthread, DOCTOR_FIX_SETTING,
	  "isolation.kthreads", NULL, "kernel thread" },
	{ "an idle CPU", DOCTOR_TIMER, WORKSTATION, false, c_idle, DOCTOR_FIX_SETTING,
	  "cpu.idle_states", NULL, "idle" },
	{ "the CPU idle in a gap of the loop", DOCTOR_NOISE, VM, false, c_idle, DOCTOR_FIX_UNKNOWN,
	  "", "--trace-dir", "the loop was not running" },
	{ "the tool's own main thread", DOCTOR_NOISE, VM, false, c_main_thread, DOCTOR_FIX_UNKNOWN,
	  "", "nothing to change", "measurement's own" },
	{ "an RT thread of the user's own", DOCTOR_TIMER, VM, false, c_own_rt,
	  DOCTOR_FIX_OWN_THREAD, "", "taskset -apc 0 4242", "priority 90" },
	{ "another process", DOCTOR_NOISE, WORKSTATION, false, c_process, DOCTOR_FIX_SETTING,
	  "isolation.processes", NULL, "a process ran on RT cpu 2" },
	{ "NMIs: the lockup detector", DOCTOR_NOISE, WORKSTATION, false, c_nmi, DOCTOR_FIX_SETTING,
	  "kernel.lockup_detector", NULL, NULL },
	{ "RT throttling: sched_rt_runtime_us", DOCTOR_NOISE, VM, false, c_throttling,
	  DOCTOR_FIX_SETTING, "sched.rt_throttling", "sched_rt_runtime_us", NULL },
	{ "unexplained in a guest: the host", DOCTOR_NOISE, VM, false, c_unexplained,
	  DOCTOR_FIX_SETTING, "platform.virtualization", NULL, "host" },
	{ "unexplained on bare metal: SMIs (skipped in a tree)", DOCTOR_NOISE, WORKSTATION, false,
	  c_unexplained, DOCTOR_FIX_UNKNOWN, "platform.smi", NULL, "was skipped" },
	{ "unexplained without an audit: SMIs", DOCTOR_NOISE, NO_AUDIT, false, c_unexplained,
	  DOCTOR_FIX_SETTING, "platform.smi", "firmware", "the audit did not run" },
	{ "a late timer interrupt on bare metal", DOCTOR_TIMER, WORKSTATION, false, c_timer_delay,
	  DOCTOR_FIX_SETTING, "cpu.idle_states", NULL, "deep idle state" },
	{ "a late timer interrupt in a guest", DOCTOR_TIMER, VM, false, c_timer_delay,
	  DOCTOR_FIX_SETTING, "platform.virtualization", NULL, "host" },
	{ "the switch itself", DOCTOR_TIMER, VM, false, c_scheduling, DOCTOR_FIX_UNKNOWN, "",
	  "latscope timer -a 1 -p 95", "no setting removes it" },
	{ "lost events", DOCTOR_NOISE, VM, false, c_lost, DOCTOR_FIX_UNKNOWN, "", "quieter", NULL },
};

START_TEST(test_join_case)
{
	const struct join_case *t = &join_cases[_i];
	struct doctor_parts parts = { 0 };
	const struct doctor_cause *cause;
	const struct doctor_fix *f;
	struct doctor_fixes fixes;
	json_t *check = NULL, *recorded = NULL, *doc, *causes = json_array();
	int cpu = t->tree == WORKSTATION ? 2 : 1;

	if (t->plan) {
		/* the plan and the audit of the same machine */
		recorded = load("doctor-vm.json");
		parts.irq_plan = json_object_get(json_object_get(recorded, "parts"), "irq_plan");
		check = json_incref(json_object_get(json_object_get(recorded, "parts"), "check"));
	} else if (t->tree == VM) {
		check = audit_of(FIXTURE("check-vm"), "1");
	} else if (t->tree == WORKSTATION) {
		check = audit_of(FIXTURE("check-workstation"), "2-3");
	}
	json_array_append_new(causes, t->cause());
	doc = measurement(t->part, cpu, causes);
	parts.check = check;
	if (t->part == DOCTOR_TIMER)
		parts.timer = doc;
	else
		parts.noise = doc;
	if (t->tree == WORKSTATION)
		set_cpus(&parts, "2-3", "0-1");
	else
		set_cpus(&parts, "1", "0");
	ck_assert_int_eq(doctor_join(&parts, &fixes), 0);
	ck_assert_uint_eq(fixes.nr_fixes, 1);
	f = &fixes.fixes[0];
	cause = &f->causes[0];
	ck_assert_msg(f->kind == t->kind, "%s: kind %s, want %s (%s)", t->what,
		      doctor_fix_kind_name(f->kind), doctor_fix_kind_name(t->kind), cause->why);
	ck_assert_msg(!strcmp(f->finding_id, t->finding), "%s: finding '%s', want '%s'", t->what,
		      f->finding_id, t->finding);
	if (t->finding[0] && t->tree != NO_AUDIT) {
		ck_assert_msg(f->finding_read, "%s: the audit has no %s", t->what, t->finding);
		ck_assert_str_eq(f->finding_status, finding_status(check, t->finding));
	}
	if (t->in_action)
		ck_assert_msg(strstr(f->action, t->in_action), "%s: '%s' not in the action '%s'",
			      t->what, t->in_action, f->action);
	if (t->in_why_or_note)
		ck_assert_msg(strstr(cause->why, t->in_why_or_note) ||
				      strstr(f->note, t->in_why_or_note),
			      "%s: '%s' in neither '%s' nor '%s'", t->what, t->in_why_or_note,
			      cause->why, f->note);
	/* one cause: it is all of its part */
	ck_assert_double_eq_tol(f->impact, 1.0, 1e-12);
	ck_assert_uint_eq(fixes.nr_known, t->kind != DOCTOR_FIX_UNKNOWN);
	doctor_fixes_release(&fixes);
	json_decref(doc);
	json_decref(check);
	json_decref(recorded);
}
END_TEST

/* A device softirq goes with the IRQ that ran most on its CPU. */
START_TEST(test_join_bottom_half_follows_irq)
{
	struct doctor_parts parts = { 0 };
	struct doctor_fixes fixes;
	json_t *recorded = load("doctor-vm.json"), *causes = json_array(), *doc;

	json_array_append_new(causes, kind_cause("softirq", "NET_RX", 30000));
	json_array_append_new(causes, irq_cause(42, "virtio3-tx", 20000));
	json_array_append_new(causes, irq_cause(36, "virtio1-req.0", 5000));
	doc = measurement(DOCTOR_NOISE, 1, causes);
	parts.noise = doc;
	parts.irq_plan = json_object_get(json_object_get(recorded, "parts"), "irq_plan");
	set_cpus(&parts, "1", "0");
	ck_assert_int_eq(doctor_join(&parts, &fixes), 0);
	ck_assert_ptr_eq(fix_of(&fixes, DOCTOR_NOISE, "NET_RX", NULL),
			 fix_of(&fixes, DOCTOR_NOISE, "irq 42", NULL));
	ck_assert_int_eq(fix_of(&fixes, DOCTOR_NOISE, "NET_RX", NULL)->kind, DOCTOR_FIX_IRQ_MOVE);
	ck_assert_int_eq(fix_of(&fixes, DOCTOR_NOISE, "irq 36", NULL)->kind, DOCTOR_FIX_SETTING);
	/* the IRQ move holds both: 50 of 55 us */
	ck_assert_double_eq_tol(fixes.fixes[0].impact, 50.0 / 55, 1e-12);
	doctor_fixes_release(&fixes);
	json_decref(doc);
	json_decref(recorded);
}
END_TEST

/* --- ranking --- */

START_TEST(test_ranking_by_share)
{
	struct doctor_parts parts = { 0 };
	struct doctor_top_cause top[3];
	struct doctor_fixes fixes;
	json_t *timer_causes = json_array(), *noise_causes = json_array(), *timer, *noise;

	/* timer: the process 60%, the tick 10%, the switch 30% (no known fix) */
	json_array_append_new(timer_causes, thread_cause("make", 4343, 120, 60000));
	json_array_append_new(timer_causes, kind_cause("scheduling", "scheduling", 30000));
	json_array_append_new(timer_causes, kind_cause("vector", "local_timer", 10000));
	/* noise: the tick 80%, a second process 20% */
	json_array_append_new(noise_causes, kind_cause("vector", "local_timer", 80000));
	json_array_append_new(noise_causes, thread_cause("cc1", 4444, 120, 20000));
	timer = measurement(DOCTOR_TIMER, 2, timer_causes);
	noise = measurement(DOCTOR_NOISE, 2, noise_causes);
	parts.timer = timer;
	parts.noise = noise;
	set_cpus(&parts, "2", "0-1,3");
	ck_assert_int_eq(doctor_join(&parts, &fixes), 0);
	ck_assert_uint_eq(fixes.nr_fixes, 3);
	ck_assert_uint_eq(fixes.nr_known, 2);
	/* the tick: max(10%, 80%); the processes: max(60%, 20%) */
	ck_assert_str_eq(fixes.fixes[0].finding_id, "isolation.nohz_full");
	ck_assert_double_eq_tol(fixes.fixes[0].share[DOCTOR_TIMER], 0.1, 1e-12);
	ck_assert_double_eq_tol(fixes.fixes[0].share[DOCTOR_NOISE], 0.8, 1e-12);
	ck_assert_double_eq_tol(fixes.fixes[0].impact, 0.8, 1e-12);
	ck_assert_str_eq(fixes.fixes[1].finding_id, "isolation.processes");
	ck_assert_uint_eq(fixes.fixes[1].nr_causes, 2);
	ck_assert_double_eq_tol(fixes.fixes[1].impact, 0.6, 1e-12);
	ck_assert_str_eq(fixes.fixes[1].causes[0].label, "make:4343");
	/* no known fix comes last, whatever its share */
	ck_assert_int_eq(fixes.fixes[2].kind, DOCTOR_FIX_UNKNOWN);
	ck_assert_uint_eq(doctor_top_causes(&fixes, top, 3), 3);
	ck_assert_str_eq(top[0].cause->label, "local_timer");
	ck_assert_double_eq_tol(top[0].cause->share, 0.8, 1e-12);
	ck_assert_str_eq(top[1].cause->label, "make:4343");
	ck_assert_str_eq(top[2].cause->label, "scheduling");
	ck_assert_uint_eq(top[2].fix, 2);
	doctor_fixes_release(&fixes);
	json_decref(timer);
	json_decref(noise);
}
END_TEST

/* Only the RT CPUs count; a cause that took nothing is no cause. */
START_TEST(test_join_rt_cpus_only)
{
	struct doctor_parts parts = { 0 };
	struct doctor_fixes fixes;
	json_t *causes = json_array(), *doc;

	json_array_append_new(causes, thread_cause("make", 4343, 120, 60000));
	json_array_append_new(causes, kind_cause("vector", "local_timer", 0));
	doc = measurement(DOCTOR_NOISE, 0, causes);
	parts.noise = doc;
	set_cpus(&parts, "1", "0");
	ck_assert_int_eq(doctor_join(&parts, &fixes), 0);
	ck_assert_uint_eq(fixes.nr_fixes, 0);
	doctor_fixes_release(&fixes);
	cpuset_clear(&parts.rt_cpus);
	cpuset_add(&parts.rt_cpus, 0);
	ck_assert_int_eq(doctor_join(&parts, &fixes), 0);
	ck_assert_uint_eq(fixes.nr_fixes, 1);
	doctor_fixes_release(&fixes);
	json_decref(doc);
}
END_TEST

START_TEST(test_fixes_json)
{
	struct recorded r;
	json_t *known, *unknown;
	size_t i;

	recorded_open(&r);
	known = doctor_fixes_json(&r.fixes, true);
	unknown = doctor_fixes_json(&r.fixes, false);
	ck_assert_uint_eq(json_array_size(known), r.fixes.nr_known);
	ck_assert_uint_eq(json_array_size(unknown), r.fixes.nr_fixes - r.fixes.nr_known);
	for (i = 0; i < json_array_size(known); i++) {
		const json_t *f = json_array_get(known, i);

		ck_assert_int_eq(json_integer_value(json_object_get(f, "rank")), (int)i + 1);
		ck_assert(json_is_string(json_object_get(f, "fix")));
		ck_assert(json_is_null(json_object_get(f, "next")));
		ck_assert(json_array_size(json_object_get(f, "causes")) > 0);
		ck_assert(json_is_string(
			json_object_get(json_array_get(json_object_get(f, "causes"), 0), "why")));
	}
	for (i = 0; i < json_array_size(unknown); i++) {
		const json_t *f = json_array_get(unknown, i);

		ck_assert_str_eq(json_string_value(json_object_get(f, "kind")), "unknown");
		ck_assert(json_is_null(json_object_get(f, "fix")));
		ck_assert(json_is_string(json_object_get(f, "next")));
	}
	json_decref(known);
	json_decref(unknown);
	recorded_close(&r);
}
END_TEST

/* --- the verdict --- */

/* A timer document on cpu 1 with its maximum, p99.99 and block maxima (or none). */
static json_t *timer_doc(json_int_t max_ns, const json_int_t *blocks, unsigned int nr,
			 json_int_t cycles)
{
	json_t *doc = json_pack("{s:s, s:[{s:i, s:I, s:I, s:{s:I}, s:[]}]}", "command", "timer",
				"threads", "cpu", 1, "cycles", cycles, "max_ns", max_ns,
				"percentiles", "p99.99", max_ns - 1000, "causes");
	json_t *thread = json_array_get(json_object_get(doc, "threads"), 0), *list;
	unsigned int i;

	if (blocks) {
		list = json_array();
		for (i = 0; i < nr; i++)
			json_array_append_new(list, json_integer(blocks[i]));
		json_object_set_new(thread, "block_maxima",
				    json_pack("{s:I, s:o, s:i}", "block_ns", (json_int_t)1000000000,
					      "max_ns", list, "lost", 0));
	}
	return doc;
}

static json_t *noise_doc(json_int_t max_ns)
{
	return json_pack("{s:s, s:[{s:i, s:i, s:I, s:I, s:{s:i, s:i}, s:[]}]}", "command", "noise",
			 "cpus", "cpu", 1, "loops", 1000000, "run_ns", (json_int_t)1000000000,
			 "max_ns", max_ns, "gaps", "count", 100, "lost_ns", 1000000, "causes");
}

static struct doctor_verdict_options both(void)
{
	return (struct doctor_verdict_options){ .budget_ns = 100000,
						.timer_asked = true,
						.noise_asked = true };
}

static void verdict_of(json_t *timer, json_t *noise, const struct doctor_verdict_options *o,
		       struct doctor_verdict *v)
{
	struct doctor_parts parts = { 0 };
	struct doctor_fixes fixes;

	parts.timer = timer;
	parts.noise = noise;
	set_cpus(&parts, "1", "0");
	ck_assert_int_eq(doctor_join(&parts, &fixes), 0);
	ck_assert_int_eq(doctor_verdict(&parts, &fixes, o, v), 0);
	doctor_fixes_release(&fixes);
}

static bool said(const struct doctor_verdict *v, const char *text)
{
	unsigned int i;

	for (i = 0; i < v->nr_not_seen; i++)
		if (strstr(v->not_seen[i], text))
			return true;
	return false;
}

START_TEST(test_verdict_ready)
{
	struct doctor_verdict_options o = both();
	json_t *timer = timer_doc(60000, NULL, 0, 1000), *noise = noise_doc(20000);
	struct doctor_verdict v;

	verdict_of(timer, noise, &o, &v);
	ck_assert_int_eq(v.readiness, DOCTOR_READY);
	ck_assert_uint_eq(v.nr_cpus, 1);
	ck_assert(v.cpus[0].timer && v.cpus[0].noise && !v.cpus[0].over_budget);
	ck_assert_uint_eq(v.cpus[0].timer_max_ns, 60000);
	ck_assert_uint_eq(v.cpus[0].timer_p9999_ns, 59000);
	ck_assert(!v.cpus[0].return_level.available);
	ck_assert_str_eq(v.cpus[0].return_level.says,
			 "not enough blocks (0 of 30): this timer result records no block maxima");
	ck_assert_double_eq_tol(v.cpus[0].noise_lost_fraction, 0.001, 1e-12);
	ck_assert_ptr_nonnull(strstr(v.says, "ready for a 100 us budget"));
	/* no audit, no plan in these parts: said */
	ck_assert(said(&v, "the audit"));
	doctor_verdict_release(&v);
	json_decref(timer);
	json_decref(noise);
}
END_TEST

START_TEST(test_verdict_not_ready)
{
	struct doctor_verdict_options o = both();
	json_t *timer = timer_doc(60000, NULL, 0, 1000), *noise = noise_doc(150000), *late;
	struct doctor_verdict v;
	json_t *json;

	verdict_of(timer, noise, &o, &v);
	ck_assert_int_eq(v.readiness, DOCTOR_NOT_READY);
	ck_assert(v.cpus[0].over_budget);
	ck_assert_ptr_nonnull(strstr(v.says, "cpu 1 lost 150 us at once"));
	json = doctor_verdict_json(&v, NULL);
	ck_assert_str_eq(json_string_value(json_object_get(json, "readiness")), "not ready");
	ck_assert(json_is_false(json_object_get(json, "ready")));
	json_decref(json);
	doctor_verdict_release(&v);
	/* the timer alone over the budget: not ready even when the noise did not run */
	late = timer_doc(250000, NULL, 0, 1000);
	o.noise_missing = "cannot run: no";
	verdict_of(late, NULL, &o, &v);
	ck_assert_int_eq(v.readiness, DOCTOR_NOT_READY);
	ck_assert_ptr_nonnull(strstr(v.says, "woke up 250 us late"));
	ck_assert(said(&v, "OS noise: cannot run: no"));
	doctor_verdict_release(&v);
	json_decref(late);
	json_decref(timer);
	json_decref(noise);
}
END_TEST

/* Never "ready" from what was asked and not measured, or from a stopped run. */
START_TEST(test_verdict_unknown)
{
	struct doctor_verdict_options o = both();
	json_t *timer = timer_doc(60000, NULL, 0, 1000), *noise = noise_doc(20000);
	json_t *empty = timer_doc(0, NULL, 0, 0);
	struct doctor_verdict v;

	o.timer_missing = "cannot run: cannot set SCHED_FIFO";
	verdict_of(NULL, noise, &o, &v);
	ck_assert_int_eq(v.readiness, DOCTOR_UNKNOWN);
	ck_assert(said(&v, "timer latency: cannot run: cannot set SCHED_FIFO"));
	doctor_verdict_release(&v);

	o = both();
	o.stopped_by = "SIGINT";
	verdict_of(timer, noise, &o, &v);
	ck_assert_int_eq(v.readiness, DOCTOR_UNKNOWN);
	ck_assert_ptr_nonnull(strstr(v.says, "stopped"));
	doctor_verdict_release(&v);

	o = both();
	verdict_of(empty, noise, &o, &v);
	ck_assert_int_eq(v.readiness, DOCTOR_UNKNOWN);
	ck_assert(said(&v, "no wake-up was measured"));
	doctor_verdict_release(&v);

	o = both();
	o.timer_asked = o.noise_asked = false;
	verdict_of(NULL, NULL, &o, &v);
	ck_assert_int_eq(v.readiness, DOCTOR_NOT_MEASURED);
	ck_assert(said(&v, "--no-timer") && said(&v, "--no-noise"));
	doctor_verdict_release(&v);

	o.budget_ns = 0;
	ck_assert_int_eq(doctor_verdict(&(struct doctor_parts){ 0 }, NULL, &o, &v), -EINVAL);
	json_decref(timer);
	json_decref(noise);
	json_decref(empty);
}
END_TEST

/* Gumbel block maxima from a fixed generator: independent and stationary. */
static void gumbel_blocks(json_int_t *out, unsigned int n, double location, double scale)
{
	uint64_t state = 0x9e3779b97f4a7c15ULL;
	unsigned int i;

	for (i = 0; i < n; i++) {
		double u;

		state = state * 6364136223846793005ULL + 1442695040888963407ULL;
		u = ((double)(state >> 11) + 0.5) / 9007199254740992.0;
		out[i] = (json_int_t)(location - scale * log(-log(u)));
	}
}

START_TEST(test_verdict_return_level)
{
	struct doctor_verdict_options o = both();
	json_int_t blocks[120], max = 0;
	const struct doctor_return_level *r;
	struct doctor_verdict v;
	json_t *timer, *noise = noise_doc(20000), *few;
	unsigned int i;

	/* maxima around 50 us, 5 us wide: the 1-hour level is near 91 us */
	gumbel_blocks(blocks, 120, 50000, 5000);
	for (i = 0; i < 120; i++)
		max = blocks[i] > max ? blocks[i] : max;
	ck_assert_int_lt(max, 85000);
	timer = timer_doc(max, blocks, 120, 120000);
	o.budget_ns = 85000;
	verdict_of(timer, noise, &o, &v);
	r = &v.cpus[0].return_level;
	ck_assert(r->available);
	ck_assert_uint_eq(r->blocks, 120);
	ck_assert_msg(r->value_ns > 80000 && r->value_ns < 110000, "level %.0f", r->value_ns);
	ck_assert(r->has_ci && r->ci_ns[0] < r->value_ns && r->value_ns < r->ci_ns[1]);
	ck_assert_msg(r->reliable, "%s", r->says);
	/* nothing measured went over, but once an hour something would */
	ck_assert_int_eq(v.readiness, DOCTOR_NOT_READY);
	ck_assert_ptr_nonnull(strstr(v.says, "once an hour"));
	doctor_verdict_release(&v);
	/* a budget above the level: ready */
	o.budget_ns = 200000;
	verdict_of(timer, noise, &o, &v);
	ck_assert_int_eq(v.readiness, DOCTOR_READY);
	doctor_verdict_release(&v);
	/* too few blocks for a fit */
	few = timer_doc(max, blocks, 12, 12000);
	verdict_of(few, noise, &o, &v);
	ck_assert(!v.cpus[0].return_level.available);
	ck_assert_str_eq(v.cpus[0].return_level.says, "not enough blocks (12 of 30)");
	doctor_verdict_release(&v);
	json_decref(few);
	json_decref(timer);
	json_decref(noise);
}
END_TEST

START_TEST(test_verdict_recorded)
{
	struct doctor_verdict_options o = both();
	struct doctor_verdict v;
	struct recorded r;
	json_t *json;

	recorded_open(&r);
	ck_assert_int_eq(doctor_verdict(&r.parts, &r.fixes, &o, &v), 0);
	/* milliseconds from the host: this guest is no RT machine */
	ck_assert_int_eq(v.readiness, DOCTOR_NOT_READY);
	ck_assert_uint_eq(v.nr_cpus, 1);
	ck_assert_int_eq(v.cpus[0].cpu, 1);
	ck_assert_uint_gt(v.cpus[0].timer_wakeups, 3000);
	ck_assert_uint_eq(v.nr_not_seen, 0);
	json = doctor_verdict_json(&v, &r.fixes);
	ck_assert_uint_eq(json_array_size(json_object_get(json, "top_causes")), 5);
	ck_assert_str_eq(
		json_string_value(json_object_get(
			json_array_get(json_object_get(json, "top_causes"), 0), "fix_list")),
		"fixes");
	json_decref(json);
	doctor_verdict_release(&v);
	recorded_close(&r);
}
END_TEST

/* A part without "causes" (counters only): said, never joined. */
START_TEST(test_untraced)
{
	struct doctor_verdict_options o = both();
	json_t *timer = timer_doc(60000, NULL, 0, 1000), *noise = noise_doc(20000);
	struct doctor_parts parts = { 0 };
	struct doctor_fixes fixes;
	struct doctor_verdict v;

	json_object_del(json_array_get(json_object_get(noise, "cpus"), 0), "causes");
	parts.timer = timer;
	parts.noise = noise;
	set_cpus(&parts, "1", "0");
	ck_assert_int_eq(doctor_join(&parts, &fixes), 0);
	ck_assert(fixes.untraced[DOCTOR_NOISE] && !fixes.untraced[DOCTOR_TIMER]);
	ck_assert_int_eq(doctor_verdict(&parts, &fixes, &o, &v), 0);
	ck_assert(said(&v, "the causes of the noise's gaps: not traced"));
	ck_assert_int_eq(v.readiness, DOCTOR_READY);
	doctor_verdict_release(&v);
	doctor_fixes_release(&fixes);
	json_decref(timer);
	json_decref(noise);
}
END_TEST

/* --- the noise part's threshold --- */

static uint64_t noise_default_threshold(void)
{
	struct noise_params defaults;

	noise_params_default(&defaults);
	return defaults.threshold_ns;
}

/*
 * A QEMU TCG guest (-cpu max) lists no constant_tsc: the noise loop reads
 * clock_gettime, whose read costs hundreds of ns there, and the default of
 * 1 us is one its own check refuses. doctor raises it to one it resolves.
 */
START_TEST(test_noise_threshold_without_constant_tsc)
{
	struct sysroot *root = sysroot_new(FIXTURE("cpuinfo/qemu-tcg"));
	uint64_t chosen;
	const char *why;

	ck_assert_ptr_nonnull(root);
	ck_assert(!tsc_usable(root, &why));
	ck_assert_ptr_nonnull(strstr(why, "constant, nonstop"));
	ck_assert(!noise_threshold_resolved(noise_default_threshold(), 600));
	chosen = doctor_noise_threshold(600);
	ck_assert(noise_threshold_resolved(chosen, 600));
	ck_assert_uint_gt(chosen, noise_default_threshold());
	/* what noise advises in its refusal, round: 1.8 us */
	ck_assert_uint_eq(chosen, noise_threshold_least(600));
	ck_assert_uint_eq(chosen, 1800);
	sysroot_free(root);
}
END_TEST

/* With a constant TSC a read costs tens of ns: the default stays. */
START_TEST(test_noise_threshold_with_tsc)
{
	struct sysroot *root = sysroot_new(FIXTURE("cpuinfo/constant-tsc"));
	const char *why;

	ck_assert_ptr_nonnull(root);
	if (TSC_AVAILABLE)
		ck_assert(tsc_usable(root, &why));
	ck_assert_uint_eq(doctor_noise_threshold(15), noise_default_threshold());
	ck_assert_uint_eq(noise_default_threshold(), 1000);
	/* not measured: nothing to raise it for */
	ck_assert_uint_eq(doctor_noise_threshold(0), noise_default_threshold());
	sysroot_free(root);
}
END_TEST

/*
 * At the refusal line: a read of 500 ns puts it exactly at the default,
 * which is refused there (a gap must be longer than two reads), so doctor
 * raises it; a nanosecond cheaper and the default is kept.
 */
START_TEST(test_noise_threshold_at_the_refusal_line)
{
	uint64_t line_cost = noise_default_threshold() / 2;

	ck_assert(!noise_threshold_resolved(noise_default_threshold(), line_cost));
	ck_assert_uint_eq(doctor_noise_threshold(line_cost), 1500);
	ck_assert(noise_threshold_resolved(doctor_noise_threshold(line_cost), line_cost));
	ck_assert(noise_threshold_resolved(noise_default_threshold(), line_cost - 1));
	ck_assert_uint_eq(doctor_noise_threshold(line_cost - 1), noise_default_threshold());
}
END_TEST

/*
 * Whatever a read costs, doctor's choice is one the noise resolves, with the
 * noise's margin, in whole 5 ns; and it is the default whenever that is.
 */
START_TEST(test_noise_threshold_always_resolved)
{
	uint64_t cost, chosen, dflt = noise_default_threshold();

	for (cost = 0; cost <= 100000; cost += cost < 2000 ? 1 : 997) {
		chosen = doctor_noise_threshold(cost);
		ck_assert_msg(noise_threshold_resolved(chosen, cost), "%llu ns for a read of %llu",
			      (unsigned long long)chosen, (unsigned long long)cost);
		if (noise_threshold_resolved(dflt, cost)) {
			ck_assert_uint_eq(chosen, dflt);
			continue;
		}
		ck_assert_uint_gt(chosen, dflt);
		ck_assert_uint_ge(chosen, 3 * cost);
		ck_assert_uint_lt(chosen, 3 * cost + 5);
		ck_assert_uint_eq(chosen % 5, 0);
	}
}
END_TEST

static Suite *doctor_suite(void)
{
	Suite *s = suite_create("doctor");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_recorded_every_cause_once);
	tcase_add_test(tc, test_recorded_ranking);
	tcase_add_test(tc, test_recorded_joins);
	tcase_add_test(tc, test_recorded_throttling);
	tcase_add_loop_test(tc, test_join_case, 0, sizeof(join_cases) / sizeof(join_cases[0]));
	tcase_add_test(tc, test_join_bottom_half_follows_irq);
	tcase_add_test(tc, test_ranking_by_share);
	tcase_add_test(tc, test_join_rt_cpus_only);
	tcase_add_test(tc, test_fixes_json);
	tcase_add_test(tc, test_verdict_ready);
	tcase_add_test(tc, test_verdict_not_ready);
	tcase_add_test(tc, test_verdict_unknown);
	tcase_add_test(tc, test_verdict_return_level);
	tcase_add_test(tc, test_verdict_recorded);
	tcase_add_test(tc, test_untraced);
	tcase_add_test(tc, test_noise_threshold_without_constant_tsc);
	tcase_add_test(tc, test_noise_threshold_with_tsc);
	tcase_add_test(tc, test_noise_threshold_at_the_refusal_line);
	tcase_add_test(tc, test_noise_threshold_always_resolved);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_run(doctor_suite());
}
