// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The joins of latscope doctor: each cause an explanation measured on an
 * RT CPU goes to the change that removes it, and the fixes are ranked by
 * the share of the measured time they account for.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "latscope/array.h"
#include "doctor_internal.h"
#include "latscope/doctor.h"
#include "latscope/parse.h"

/* Where a cause leads, before the audit's finding is looked up. */
struct join {
	enum doctor_fix_kind kind;
	const char *finding; /* an audit rule id, or NULL */
	const char *title; /* the fix's title when the audit has no finding */
	const char *fallback; /* its fix when the audit has no finding */
	char why[256];
	char key[96];
	char action[1024]; /* own thread, unknown: the whole action */
};

/* What every join looks at besides the cause. */
struct join_context {
	const struct doctor_parts *parts;
	const json_t *findings; /* the check's, or NULL */
	bool guest; /* running under a hypervisor */
	char rt_list[256], housekeeping_list[256];
};

static const char *get_str(const json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

static uint64_t get_u64(const json_t *o, const char *key)
{
	json_int_t v = json_integer_value(json_object_get(o, key));

	return v > 0 ? (uint64_t)v : 0;
}

static bool get_int(const json_t *o, const char *key, long long *value)
{
	const json_t *v = json_object_get(o, key);

	if (!json_is_integer(v))
		return false;
	*value = json_integer_value(v);
	return true;
}

static bool starts_with(const char *s, const char *prefix)
{
	return s && !strncmp(s, prefix, strlen(prefix));
}

static void set_text(char *buf, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void set_text(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, size, fmt, ap);
	va_end(ap);
}

/* A CPU set as a result writes it: an array of numbers (latscope/1) or a list (latscope/2). */
static const char *cpus_text(const json_t *cpus, char *buf, size_t size)
{
	struct cpuset set;
	size_t i;

	if (json_is_string(cpus)) {
		snprintf(buf, size, "%s", json_string_value(cpus));
		return buf;
	}
	cpuset_clear(&set);
	for (i = 0; i < json_array_size(cpus); i++) {
		json_int_t cpu = json_integer_value(json_array_get(cpus, i));

		if (cpu >= 0 && cpu < CPUSET_MAX_CPUS)
			cpuset_add(&set, (unsigned int)cpu);
	}
	cpuset_format_list(&set, buf, size);
	if (!buf[0])
		snprintf(buf, size, "none");
	return buf;
}

const char *doctor_fix_kind_name(enum doctor_fix_kind kind)
{
	static const char *const names[] = {
		[DOCTOR_FIX_SETTING] = "setting",
		[DOCTOR_FIX_IRQ_MOVE] = "irq_move",
		[DOCTOR_FIX_OWN_THREAD] = "own_thread",
		[DOCTOR_FIX_UNKNOWN] = "unknown",
	};

	return kind <= DOCTOR_FIX_UNKNOWN ? names[kind] : "unknown";
}

const char *doctor_part_name(enum doctor_part part)
{
	return part == DOCTOR_TIMER ? "timer" : "noise";
}

static const json_t *find_finding(const struct join_context *ctx, const char *id)
{
	size_t i;

	for (i = 0; id && i < json_array_size(ctx->findings); i++) {
		const char *fid = get_str(json_array_get(ctx->findings, i), "id");

		if (fid && !strcmp(fid, id))
			return json_array_get(ctx->findings, i);
	}
	return NULL;
}

/*
 * In a guest the host decides when a vCPU runs: what the audit says about
 * virtualization, else what the measurements' host facts say.
 */
static bool under_hypervisor(const struct join_context *ctx)
{
	const json_t *f = find_finding(ctx, "platform.virtualization");
	const json_t *docs[] = { ctx->parts->timer, ctx->parts->noise, ctx->parts->check };
	const char *status = get_str(f, "status"), *v;
	size_t i;

	if (status && strcmp(status, "skip"))
		return !strcmp(status, "warn") || !strcmp(status, "fail");
	for (i = 0; i < sizeof(docs) / sizeof(docs[0]); i++) {
		v = get_str(json_object_get(docs[i], "host"), "virtualization");
		if (v)
			return *v && strcmp(v, "none");
	}
	return false;
}

/* ----- the joins ----- */

static void setting(struct join *j, const char *finding, const char *title, const char *fallback)
{
	j->kind = DOCTOR_FIX_SETTING;
	j->finding = finding;
	j->title = title;
	j->fallback = fallback;
	set_text(j->key, sizeof(j->key), "finding:%s", finding);
}

static void unknown(struct join *j, const char *key, const char *title, const char *next)
{
	j->kind = DOCTOR_FIX_UNKNOWN;
	j->finding = NULL;
	j->title = title;
	set_text(j->key, sizeof(j->key), "unknown:%s", key);
	set_text(j->action, sizeof(j->action), "%s", next);
}

/* What to look at when no setting is known to remove a cause. */
static void next_step(const struct join_context *ctx, enum doctor_part part, char *buf, size_t size)
{
	if (part == DOCTOR_TIMER)
		set_text(buf, size,
			 "read the events around the largest spikes: latscope timer -a %s -p %d "
			 "-m --explain --trace-dir DIR",
			 ctx->rt_list,
			 ctx->parts->timer_priority ? ctx->parts->timer_priority :
						      DOCTOR_TIMER_PRIORITY);
	else
		set_text(buf, size,
			 "read the events around the largest gaps: latscope noise --cpus %s "
			 "--explain --trace-dir DIR",
			 ctx->rt_list);
}

static void irq_move(struct join *j, const char *why)
{
	j->kind = DOCTOR_FIX_IRQ_MOVE;
	j->finding = "irq.device_affinity";
	j->title = "Move the IRQs off the RT CPUs";
	j->fallback = NULL;
	set_text(j->key, sizeof(j->key), "irq-apply");
	set_text(j->why, sizeof(j->why), "%s", why);
}

static const json_t *plan_entry(const json_t *plan, const char *list, const char *key,
				long long irq)
{
	const json_t *entries = json_object_get(plan, list);
	long long n;
	size_t i;

	for (i = 0; i < json_array_size(entries); i++)
		if (get_int(json_array_get(entries, i), key, &n) && n == irq)
			return json_array_get(entries, i);
	return NULL;
}

/* An IRQ by number: the plan's move for it, or why it cannot move. */
static void join_irq(const struct join_context *ctx, enum doctor_part part, long long irq, int cpu,
		     struct join *j)
{
	const json_t *plan = ctx->parts->irq_plan, *move, *unmovable, *entry;
	char from[128], to[128], why[256], next[512];

	if (!plan) {
		irq_move(j, "the irq plan did not run: latscope irq plan --rt-cpus shows the move");
		return;
	}
	move = plan_entry(plan, "moves", "irq", irq);
	if (move) {
		snprintf(why, sizeof(why), "the irq plan moves irq %lld from cpus %s to %s", irq,
			 cpus_text(json_object_get(move, "from"), from, sizeof(from)),
			 cpus_text(json_object_get(move, "to"), to, sizeof(to)));
		irq_move(j, why);
		return;
	}
	unmovable = plan_entry(plan, "unmovable", "irq", irq);
	entry = plan_entry(plan, "irqs", "number", irq);
	if (unmovable || (entry && json_is_false(json_object_get(entry, "movable")))) {
		setting(j, "irq.managed", "Managed IRQs on RT CPUs",
			"boot with isolcpus=managed_irq,domain,<the RT CPUs>");
		set_text(j->why, sizeof(j->why),
			 "irq %lld is managed (or its affinity is read-only): the kernel places it "
			 "and user space cannot move it",
			 irq);
		return;
	}
	next_step(ctx, part, next, sizeof(next));
	snprintf(why, sizeof(why), "%lld", irq);
	unknown(j, why, "An IRQ the plan leaves in place", next);
	set_text(j->why, sizeof(j->why),
		 "irq %lld fired on cpu %d during the run, but the plan leaves it where it is "
		 "(effective cpus %s now): a balancer may have moved it meanwhile, or it is "
		 "per CPU",
		 irq, cpu,
		 entry ? cpus_text(json_object_get(entry, "effective"), from, sizeof(from)) :
			 "unknown");
}

static void join_vector(const struct join_context *ctx, enum doctor_part part, const char *name,
			struct join *j)
{
	char next[512];

	if (!strcmp(name, "local_timer") && part == DOCTOR_TIMER && ctx->guest) {
		setting(j, "platform.virtualization", "Virtualization",
			"on the host: pin each vCPU to an isolated host CPU and run an RT kernel "
			"there");
		set_text(j->why, sizeof(j->why),
			 "the timer interrupt that wakes the thread: in a guest its handler exits "
			 "to the host to reprogram the timer, and the host can keep it there");
		return;
	}
	if (!strcmp(name, "local_timer")) {
		setting(j, "isolation.nohz_full", "Tick on RT CPUs",
			"boot with nohz_full=<the RT CPUs> (a kernel built with NO_HZ_FULL)");
		set_text(j->why, sizeof(j->why), "%s",
			 part == DOCTOR_TIMER ?
				 "the timer interrupt that wakes the thread also runs the CPU's "
				 "tick and other expired timers: nohz_full stops the tick" :
				 "the scheduler tick: nohz_full stops it on a CPU that runs one "
				 "task");
		return;
	}
	if (!strcmp(name, "reschedule") || starts_with(name, "call_function")) {
		setting(j, "isolation.cpus", "RT CPUs isolated",
			"boot with isolcpus=managed_irq,domain,<the RT CPUs>");
		set_text(j->why, sizeof(j->why),
			 "%s IPIs from other CPUs (wake-ups, TLB flushes, function calls): fewer "
			 "reach an isolated CPU",
			 name);
		return;
	}
	next_step(ctx, part, next, sizeof(next));
	unknown(j, name, name, next);
	set_text(j->why, sizeof(j->why), "the %s vector: no setting is known to remove it", name);
}

/*
 * A device's softirq runs where its IRQ ran: it goes with the IRQ that took
 * the most time on the same CPU in the same part, else with the IRQ moves.
 */
static void join_bottom_half(const struct join_context *ctx, enum doctor_part part,
			     const char *name, const json_t *entry, int cpu, struct join *j)
{
	const json_t *causes = json_object_get(entry, "causes"), *irq = NULL;
	uint64_t most = 0;
	long long number;
	char head[256];
	size_t k;

	for (k = 0; k < json_array_size(causes); k++) {
		const json_t *c = json_array_get(causes, k);
		const char *kind = get_str(c, "kind");

		if (kind && !strcmp(kind, "irq") && get_int(c, "irq", &number) &&
		    get_u64(c, "total_ns") > most) {
			most = get_u64(c, "total_ns");
			irq = c;
		}
	}
	if (!irq) {
		irq_move(j, "");
		set_text(j->why, sizeof(j->why),
			 "%s softirq: a device's bottom half runs where its IRQ ran", name);
		return;
	}
	get_int(irq, "irq", &number);
	join_irq(ctx, part, number, cpu, j);
	set_text(head, sizeof(head), "%s", j->why);
	set_text(j->why, sizeof(j->why), "%s softirq: the bottom half of %s, which ran here; %s",
		 name, get_str(irq, "label") ? get_str(irq, "label") : "its IRQ", head);
}

static void join_softirq(const struct join_context *ctx, enum doctor_part part, const char *name,
			 const json_t *entry, int cpu, struct join *j)
{
	static const char *const device_softirqs[] = { "NET_RX",   "NET_TX",  "BLOCK",
						       "IRQ_POLL", "TASKLET", "HI" };
	char next[512];
	size_t i;

	if (!strcmp(name, "TIMER") || !strcmp(name, "HRTIMER")) {
		setting(j, "isolation.nohz_full", "Tick on RT CPUs",
			"boot with nohz_full=<the RT CPUs> (a kernel built with NO_HZ_FULL)");
		set_text(j->why, sizeof(j->why),
			 "%s softirq: timer callbacks run from the tick of the CPU that armed them",
			 name);
		return;
	}
	if (!strcmp(name, "RCU")) {
		setting(j, "isolation.rcu_nocbs", "RCU callbacks offloaded",
			"boot with rcu_nocbs=<the RT CPUs>");
		set_text(
			j->why, sizeof(j->why),
			"RCU softirq: the CPU runs its own RCU callbacks unless they are offloaded");
		return;
	}
	if (!strcmp(name, "SCHED")) {
		setting(j, "isolation.cpus", "RT CPUs isolated",
			"boot with isolcpus=managed_irq,domain,<the RT CPUs>");
		set_text(
			j->why, sizeof(j->why),
			"SCHED softirq: load balancing, which isolcpus=domain takes the CPU out of");
		return;
	}
	for (i = 0; i < sizeof(device_softirqs) / sizeof(device_softirqs[0]); i++)
		if (!strcmp(name, device_softirqs[i])) {
			join_bottom_half(ctx, part, name, entry, cpu, j);
			return;
		}
	next_step(ctx, part, next, sizeof(next));
	unknown(j, name, name, next);
	set_text(j->why, sizeof(j->why), "the %s softirq: no setting is known to remove it", name);
}

static void join_throttling(struct join *j)
{
	setting(j, "sched.rt_throttling", "RT throttling",
		"sysctl -w kernel.sched_rt_runtime_us=-1 (and run stalld)");
	set_text(j->why, sizeof(j->why),
		 "RT throttling stopped the measuring thread for the rest of its period "
		 "(sched_rt_runtime_us)");
}

/* Whether an entry of a part has a cause of @kind. */
static bool has_kind(const json_t *entry, const char *kind)
{
	const json_t *causes = json_object_get(entry, "causes");
	size_t k;

	for (k = 0; k < json_array_size(causes); k++) {
		const char *c = get_str(json_array_get(causes, k), "kind");

		if (c && !strcmp(c, kind))
			return true;
	}
	return false;
}

/*
 * Kernel threads by name: the trace gives a thread's comm and priority, not
 * whether it is a kernel thread. These are the kernel's own names (a user
 * could take one, and would then be joined as a kernel thread).
 */
static const char *const kernel_thread_prefixes[] = {
	"kworker/",  "ksoftirqd/", "migration/",  "cpuhp/",	   "idle_inject/",
	"watchdog",  "rcu",	   "irq/",	  "kthreadd",	   "kswapd",
	"kcompactd", "khugepaged", "kdamond",	  "ksmd",	   "khungtaskd",
	"kauditd",   "kblockd",	   "kintegrityd", "oom_reaper",	   "writeback",
	"jbd2/",     "ext4-",	   "xfs",	  "scsi_",	   "nvme",
	"kthrotld",  "kdevtmpfs",  "psimon",	  "ipv6_addrconf", "mld",
	"khvcd",     "hwrng",	   "card",	  "kstrp",	   "pool_workqueue_",
	"ksgxd",
};

static bool kernel_thread_name(const char *comm)
{
	size_t i;

	for (i = 0; i < sizeof(kernel_thread_prefixes) / sizeof(kernel_thread_prefixes[0]); i++)
		if (starts_with(comm, kernel_thread_prefixes[i]))
			return true;
	return false;
}

static void join_kernel_thread(const struct join_context *ctx, enum doctor_part part,
			       const char *comm, int cpu, struct join *j)
{
	long long irq;
	char *end;

	if (starts_with(comm, "irq/")) {
		/* a threaded IRQ handler: "irq/36-virtio1-req.0" */
		irq = strtoll(comm + 4, &end, 10);
		if (end != comm + 4 && *end == '-') {
			join_irq(ctx, part, irq, cpu, j);
			set_text(j->why + strlen(j->why), sizeof(j->why) - strlen(j->why),
				 " (the IRQ's handler thread)");
			return;
		}
	}
	if (starts_with(comm, "kworker/")) {
		setting(j, "isolation.workqueues", "Unbound workqueues off RT CPUs",
			"echo <the housekeeping CPUs as a mask> > "
			"/sys/devices/virtual/workqueue/cpumask");
		set_text(j->why, sizeof(j->why),
			 "a workqueue worker: unbound work follows the workqueue cpumask, per-CPU "
			 "work the CPU's own activity");
	} else if (starts_with(comm, "rcu")) {
		setting(j, "isolation.rcu_nocbs", "RCU callbacks offloaded",
			"boot with rcu_nocbs=<the RT CPUs>");
		set_text(j->why, sizeof(j->why),
			 "an RCU thread: offloaded callbacks run on the housekeeping CPUs");
	} else if (starts_with(comm, "watchdog")) {
		setting(j, "kernel.lockup_detector", "Lockup detectors",
			"sysctl -w kernel.watchdog=0 (boot: nowatchdog)");
		set_text(j->why, sizeof(j->why), "the lockup detector's thread");
	} else if (starts_with(comm, "khungtaskd")) {
		setting(j, "sched.hung_task", "Hung task detector",
			"sysctl -w kernel.hung_task_timeout_secs=600");
		set_text(j->why, sizeof(j->why), "the hung task detector walks every task");
	} else if (starts_with(comm, "kcompactd") || starts_with(comm, "khugepaged")) {
		setting(j, "mem.thp", "Transparent hugepages",
			"echo never > /sys/kernel/mm/transparent_hugepage/enabled");
		set_text(j->why, sizeof(j->why), "compacts memory for transparent hugepages");
	} else if (starts_with(comm, "ksmd")) {
		setting(j, "mem.ksm", "Kernel samepage merging", "echo 0 > /sys/kernel/mm/ksm/run");
		set_text(j->why, sizeof(j->why), "merges identical pages");
	} else if (starts_with(comm, "ksoftirqd/") || starts_with(comm, "migration/")) {
		setting(j, "isolation.cpus", "RT CPUs isolated",
			"boot with isolcpus=managed_irq,domain,<the RT CPUs>");
		set_text(j->why, sizeof(j->why),
			 "a per-CPU thread: it runs softirqs and load balancing the CPU takes part "
			 "in until it is isolated");
	} else {
		setting(j, "isolation.kthreads", "Kernel threads off RT CPUs",
			"taskset -pc <the housekeeping CPUs> PID for each movable kernel thread");
		set_text(j->why, sizeof(j->why), "a kernel thread allowed on RT cpu %d", cpu);
	}
}

static void join_thread(const struct join_context *ctx, enum doctor_part part, const json_t *cause,
			const json_t *entry, int cpu, struct join *j)
{
	const char *comm = get_str(cause, "comm"), *label = get_str(cause, "label");
	long long pid = 0, prio = -1;

	get_int(cause, "pid", &pid);
	get_int(cause, "kernel_priority", &prio);
	if (!comm)
		comm = "";
	if (!label)
		label = comm;
	if ((pid == 0 || starts_with(comm, "swapper")) && part == DOCTOR_NOISE) {
		/* a busy loop leaves the CPU idle only when it is held off */
		if (has_kind(entry, "throttling")) {
			join_throttling(j);
			set_text(j->why, sizeof(j->why),
				 "the CPU idled while RT throttling held the loop off");
			return;
		}
		unknown(j, "idle", "The CPU idled while the loop could not run",
			"read the events around the largest gaps (--trace-dir of latscope "
			"noise): what kept the loop from running");
		set_text(j->why, sizeof(j->why), "the loop was not running and nothing else was");
		return;
	}
	if (pid == 0 || starts_with(comm, "swapper")) {
		setting(j, "cpu.idle_states", "Idle states and PM QoS",
			"hold /dev/cpu_dma_latency at 0 while the RT work runs, or boot with "
			"idle=poll");
		set_text(j->why, sizeof(j->why),
			 "the CPU was idle: the wake-up waited for it to leave an idle state");
		return;
	}
	if (strstr(label, "(this run's main thread)")) {
		unknown(j, "main-thread", "latscope's own main thread",
			"nothing to change: it reads the results, and runs on an RT CPU only when "
			"no other CPU is allowed");
		set_text(j->why, sizeof(j->why), "the measurement's own");
		return;
	}
	if (kernel_thread_name(comm)) {
		join_kernel_thread(ctx, part, comm, cpu, j);
		return;
	}
	if (prio >= 0 && prio < 100) {
		j->kind = DOCTOR_FIX_OWN_THREAD;
		j->finding = NULL;
		j->title = "An RT thread of your own";
		set_text(j->key, sizeof(j->key), "thread:%lld", pid);
		set_text(j->action, sizeof(j->action),
			 "no configuration fix for an RT thread of your own: move it off the RT "
			 "CPUs (taskset -apc %s %lld) or run it below the real-time work's "
			 "priority",
			 ctx->housekeeping_list, pid);
		set_text(j->why, sizeof(j->why),
			 "a SCHED_FIFO/RR thread at priority %lld ran on RT cpu %d", 99 - prio,
			 cpu);
		return;
	}
	setting(j, "isolation.processes", "Processes off RT CPUs",
		"taskset -apc <the housekeeping CPUs> PID for each process; for services "
		"CPUAffinity= in /etc/systemd/system.conf");
	set_text(j->why, sizeof(j->why),
		 part == DOCTOR_TIMER ?
			 "a process ran on RT cpu %d and held off the wake-up: keep processes off "
			 "the RT CPUs (and a preemptible kernel ends what they do sooner)" :
			 "a process ran on RT cpu %d: keep processes off the RT CPUs",
		 cpu);
}

/* The cause's kind from the explanation's own words ("irq", "thread", ...). */
static void join_cause(const struct join_context *ctx, enum doctor_part part, const json_t *cause,
		       const json_t *entry, int cpu, struct join *j)
{
	const char *kind = get_str(cause, "kind"), *name = get_str(cause, "name");
	char next[512];
	long long irq;

	memset(j, 0, sizeof(*j));
	if (!kind)
		kind = "";
	if (!name)
		name = "";
	if (!strcmp(kind, "irq") && get_int(cause, "irq", &irq)) {
		join_irq(ctx, part, irq, cpu, j);
	} else if (!strcmp(kind, "vector")) {
		join_vector(ctx, part, name, j);
	} else if (!strcmp(kind, "softirq")) {
		join_softirq(ctx, part, name, entry, cpu, j);
	} else if (!strcmp(kind, "thread")) {
		join_thread(ctx, part, cause, entry, cpu, j);
	} else if (!strcmp(kind, "nmi")) {
		setting(j, "kernel.lockup_detector", "Lockup detectors",
			"sysctl -w kernel.nmi_watchdog=0 (boot: nmi_watchdog=0)");
		set_text(j->why, sizeof(j->why),
			 "NMIs: the hard lockup detector and perf counters send them");
	} else if (!strcmp(kind, "throttling")) {
		join_throttling(j);
	} else if (!strcmp(kind, "unexplained") || !strcmp(kind, "timer_delay")) {
		bool unexplained = !strcmp(kind, "unexplained");

		if (ctx->guest) {
			setting(j, "platform.virtualization", "Virtualization",
				"on the host: pin each vCPU to an isolated host CPU and run an RT "
				"kernel there");
			set_text(
				j->why, sizeof(j->why),
				unexplained ?
					"time no guest event covers is the host's: its tick, its "
					"other work, steal time" :
					"the host delivered the timer interrupt late (it ran other "
					"work, or the vCPU was not running)");
		} else if (unexplained) {
			setting(j, "platform.smi", "System management interrupts",
				"ask the vendor for a firmware with fewer SMIs, or turn off what "
				"triggers them in the firmware setup");
			set_text(j->why, sizeof(j->why),
				 "time no kernel event covers: firmware (SMIs) or entry code");
		} else {
			setting(j, "cpu.idle_states", "Idle states and PM QoS",
				"hold /dev/cpu_dma_latency at 0 while the RT work runs, or boot "
				"with idle=poll");
			set_text(
				j->why, sizeof(j->why),
				"the timer interrupt came late: the CPU left a deep idle state, or "
				"interrupts were off");
		}
	} else if (!strcmp(kind, "scheduling")) {
		next_step(ctx, part, next, sizeof(next));
		unknown(j, "scheduling", "Switching to the woken thread", next);
		set_text(j->why, sizeof(j->why),
			 "the switch to the woken thread and the return to user space: the "
			 "floor of any wake-up, no setting removes it");
	} else if (!strcmp(kind, "lost")) {
		unknown(j, "lost", "Events the trace lost",
			"measure again at a quieter moment: the trace buffer overflowed, so "
			"these spikes' causes are unknown");
		set_text(j->why, sizeof(j->why), "the trace lost events during these spikes");
	} else {
		next_step(ctx, part, next, sizeof(next));
		unknown(j, kind, kind, next);
		set_text(j->why, sizeof(j->why), "no setting is known to remove it");
	}
}

/* ----- fixes ----- */

static struct doctor_fix *fix_for(struct doctor_fixes *out, const struct join_context *ctx,
				  const struct join *j)
{
	const json_t *finding;
	struct doctor_fix *fix, *grown;
	unsigned int i;
	const char *status;
	char key[96];
	bool passed;

	finding = find_finding(ctx, j->finding);
	status = get_str(finding, "status");
	/* a finding that passed or was skipped has nothing to change: no known fix */
	passed = status && (!strcmp(status, "pass") || !strcmp(status, "skip"));
	if (passed && j->kind == DOCTOR_FIX_SETTING)
		set_text(key, sizeof(key), "unknown:%s", j->finding);
	else
		set_text(key, sizeof(key), "%s", j->key);
	for (i = 0; i < out->nr_fixes; i++)
		if (!strcmp(out->fixes[i].key, key))
			return &out->fixes[i];
	grown = array_grow(out->fixes, &out->cap_fixes, out->nr_fixes + 1, sizeof(*grown));
	if (!grown)
		return NULL;
	out->fixes = grown;
	fix = &out->fixes[out->nr_fixes++];
	memset(fix, 0, sizeof(*fix));
	fix->kind = j->kind;
	set_text(fix->key, sizeof(fix->key), "%s", key);
	set_text(fix->title, sizeof(fix->title), "%s",
		 finding && get_str(finding, "title") ? get_str(finding, "title") : j->title);
	if (j->finding) {
		set_text(fix->finding_id, sizeof(fix->finding_id), "%s", j->finding);
		if (finding) {
			fix->finding_read = true;
			set_text(fix->finding_status, sizeof(fix->finding_status), "%s",
				 status ? status : "?");
			set_text(fix->finding_severity, sizeof(fix->finding_severity), "%s",
				 get_str(finding, "severity") ? get_str(finding, "severity") : "?");
			set_text(fix->finding_detail, sizeof(fix->finding_detail), "%s",
				 get_str(finding, "detail") ? get_str(finding, "detail") : "");
		}
	}
	switch (j->kind) {
	case DOCTOR_FIX_SETTING:
		if (passed) {
			fix->kind = DOCTOR_FIX_UNKNOWN;
			set_text(fix->note, sizeof(fix->note),
				 "the audit finds nothing to change: %s %s (%s)", j->finding,
				 strcmp(status, "pass") ? "was skipped" : "passed",
				 fix->finding_detail);
			set_text(fix->action, sizeof(fix->action),
				 "read the events around the largest spikes of these causes "
				 "(--trace-dir of latscope timer or noise)");
		} else if (finding && get_str(finding, "fix")) {
			set_text(fix->action, sizeof(fix->action), "%s", get_str(finding, "fix"));
		} else {
			set_text(fix->action, sizeof(fix->action), "%s", j->fallback);
			set_text(fix->note, sizeof(fix->note), "%s",
				 ctx->parts->check ? "the audit has no such finding" :
						     "the audit did not run");
		}
		break;
	case DOCTOR_FIX_IRQ_MOVE:
		set_text(fix->action, sizeof(fix->action), "latscope irq apply --rt-cpus %s",
			 ctx->rt_list);
		if (!ctx->parts->irq_plan)
			set_text(fix->note, sizeof(fix->note), "the irq plan did not run");
		break;
	default:
		set_text(fix->action, sizeof(fix->action), "%s", j->action);
		break;
	}
	return fix;
}

static int add_cause(struct doctor_fix *fix, const struct doctor_cause *cause)
{
	struct doctor_cause *grown;

	grown = array_grow(fix->causes, &fix->cap_causes, fix->nr_causes + 1, sizeof(*grown));
	if (!grown)
		return -ENOMEM;
	fix->causes = grown;
	fix->causes[fix->nr_causes++] = *cause;
	fix->share[cause->part] += cause->share;
	if (cause->max_ns > fix->max_ns)
		fix->max_ns = cause->max_ns;
	return 0;
}

/* The entries of a part: the timer's threads, the noise's CPUs. */
static const json_t *part_entries(const struct doctor_parts *parts, enum doctor_part part)
{
	return part == DOCTOR_TIMER ? json_object_get(parts->timer, "threads") :
				      json_object_get(parts->noise, "cpus");
}

bool doctor_entry_cpu(const struct doctor_parts *parts, const json_t *entry, int *cpu)
{
	long long n;

	if (!get_int(entry, "cpu", &n) || n < 0 || n >= CPUSET_MAX_CPUS)
		return false;
	*cpu = (int)n;
	return cpuset_empty(&parts->rt_cpus) || cpuset_has(&parts->rt_cpus, (unsigned int)n);
}

/* The explained time of a part on the RT CPUs: what the shares are of. */
static uint64_t part_total(const struct doctor_parts *parts, enum doctor_part part)
{
	const json_t *entries = part_entries(parts, part);
	uint64_t total = 0, sum;
	size_t i, k;
	int cpu;

	for (i = 0; i < json_array_size(entries); i++) {
		const json_t *e = json_array_get(entries, i),
			     *causes = json_object_get(e, "causes");

		if (!doctor_entry_cpu(parts, e, &cpu))
			continue;
		sum = get_u64(json_object_get(e, "explained_spikes"), "total_ns");
		if (!sum)
			for (k = 0; k < json_array_size(causes); k++)
				sum += get_u64(json_array_get(causes, k), "total_ns");
		total += sum;
	}
	return total;
}

static int join_part(struct doctor_fixes *out, const struct join_context *ctx,
		     enum doctor_part part)
{
	const json_t *entries = part_entries(ctx->parts, part);
	uint64_t total = part_total(ctx->parts, part);
	bool traced = false;
	size_t i, k;
	int cpu;

	for (i = 0; i < json_array_size(entries); i++) {
		const json_t *e = json_array_get(entries, i),
			     *causes = json_object_get(e, "causes");

		if (!doctor_entry_cpu(ctx->parts, e, &cpu))
			continue;
		traced |= json_is_array(causes);
		for (k = 0; k < json_array_size(causes); k++) {
			const json_t *c = json_array_get(causes, k);
			struct doctor_cause cause = { .part = part, .cpu = cpu };
			struct doctor_fix *fix;
			struct join j;

			cause.total_ns = get_u64(c, "total_ns");
			if (!cause.total_ns)
				continue;
			join_cause(ctx, part, c, e, cpu, &j);
			set_text(cause.kind, sizeof(cause.kind), "%s",
				 get_str(c, "kind") ? get_str(c, "kind") : "?");
			set_text(cause.label, sizeof(cause.label), "%s",
				 get_str(c, "label") ? get_str(c, "label") : cause.kind);
			cause.spikes = get_u64(c, "spikes");
			cause.max_ns = get_u64(c, "max_ns");
			cause.share = total ? (double)cause.total_ns / (double)total : 0;
			cause.period_ns = get_u64(json_object_get(c, "periodic"), "period_ns");
			set_text(cause.why, sizeof(cause.why), "%s", j.why);
			fix = fix_for(out, ctx, &j);
			if (!fix || add_cause(fix, &cause))
				return -ENOMEM;
		}
	}
	out->untraced[part] = !traced && json_array_size(entries);
	return 0;
}

static int compare_causes(const void *a, const void *b)
{
	const struct doctor_cause *x = a, *y = b;

	if (x->share != y->share)
		return x->share < y->share ? 1 : -1;
	return x->max_ns < y->max_ns ? 1 : x->max_ns > y->max_ns ? -1 : 0;
}

/* Known fixes first; then by impact, by the largest single part, by title. */
static int compare_fixes(const void *a, const void *b)
{
	const struct doctor_fix *x = a, *y = b;
	bool xk = x->kind != DOCTOR_FIX_UNKNOWN, yk = y->kind != DOCTOR_FIX_UNKNOWN;

	if (xk != yk)
		return xk ? -1 : 1;
	if (x->impact != y->impact)
		return x->impact < y->impact ? 1 : -1;
	if (x->max_ns != y->max_ns)
		return x->max_ns < y->max_ns ? 1 : -1;
	return strcmp(x->key, y->key);
}

int doctor_join(const struct doctor_parts *parts, struct doctor_fixes *out)
{
	struct join_context ctx = { .parts = parts };
	unsigned int i;
	int ret = 0;

	memset(out, 0, sizeof(*out));
	ctx.findings = json_object_get(parts->check, "findings");
	ctx.guest = under_hypervisor(&ctx);
	cpuset_format_list(&parts->rt_cpus, ctx.rt_list, sizeof(ctx.rt_list));
	cpuset_format_list(&parts->housekeeping, ctx.housekeeping_list,
			   sizeof(ctx.housekeeping_list));
	if (!ctx.housekeeping_list[0])
		snprintf(ctx.housekeeping_list, sizeof(ctx.housekeeping_list), "<other CPUs>");
	if (parts->timer)
		ret = join_part(out, &ctx, DOCTOR_TIMER);
	if (!ret && parts->noise)
		ret = join_part(out, &ctx, DOCTOR_NOISE);
	if (ret) {
		doctor_fixes_release(out);
		return ret;
	}
	for (i = 0; i < out->nr_fixes; i++) {
		struct doctor_fix *f = &out->fixes[i];

		f->impact = f->share[DOCTOR_TIMER] > f->share[DOCTOR_NOISE] ?
				    f->share[DOCTOR_TIMER] :
				    f->share[DOCTOR_NOISE];
		qsort(f->causes, f->nr_causes, sizeof(*f->causes), compare_causes);
		out->nr_known += f->kind != DOCTOR_FIX_UNKNOWN;
	}
	if (out->nr_fixes)
		qsort(out->fixes, out->nr_fixes, sizeof(*out->fixes), compare_fixes);
	return 0;
}

void doctor_fixes_release(struct doctor_fixes *fixes)
{
	unsigned int i;

	for (i = 0; i < fixes->nr_fixes; i++)
		free(fixes->fixes[i].causes);
	free(fixes->fixes);
	memset(fixes, 0, sizeof(*fixes));
}

unsigned int doctor_top_causes(const struct doctor_fixes *fixes, struct doctor_top_cause *top,
			       unsigned int max)
{
	unsigned int n = 0, i, k, at, end;

	for (i = 0; i < fixes->nr_fixes; i++)
		for (k = 0; k < fixes->fixes[i].nr_causes; k++) {
			const struct doctor_cause *c = &fixes->fixes[i].causes[k];

			/* insertion into the few kept, largest share first */
			for (at = n; at > 0 && top[at - 1].cause->share < c->share; at--)
				;
			if (at >= max)
				continue;
			end = n < max ? n : max - 1;
			memmove(&top[at + 1], &top[at], (end - at) * sizeof(*top));
			top[at] = (struct doctor_top_cause){ .cause = c, .fix = i };
			if (n < max)
				n++;
		}
	return n;
}

/* ----- JSON ----- */

static json_t *cause_json(const struct doctor_cause *c)
{
	return json_pack(
		"{s:s, s:i, s:s, s:s, s:I, s:I, s:I, s:f, s:o, s:s}", "part",
		doctor_part_name(c->part), "cpu", c->cpu, "kind", c->kind, "label", c->label,
		"spikes", (json_int_t)c->spikes, "total_ns", (json_int_t)c->total_ns, "max_ns",
		(json_int_t)c->max_ns, "share", c->share, "period_ns",
		c->period_ns ? json_integer((json_int_t)c->period_ns) : json_null(), "why", c->why);
}

static json_t *finding_json(const struct doctor_fix *f)
{
	if (!f->finding_id[0])
		return json_null();
	if (!f->finding_read)
		return json_pack("{s:s, s:n, s:n, s:n}", "id", f->finding_id, "status", "severity",
				 "detail");
	return json_pack("{s:s, s:s, s:s, s:s}", "id", f->finding_id, "status", f->finding_status,
			 "severity", f->finding_severity, "detail", f->finding_detail);
}

static json_t *fix_json(const struct doctor_fix *f, unsigned int rank)
{
	bool known = f->kind != DOCTOR_FIX_UNKNOWN;
	json_t *causes = json_array(), *fix;
	unsigned int k;

	for (k = 0; k < f->nr_causes; k++)
		json_array_append_new(causes, cause_json(&f->causes[k]));
	fix = json_pack("{s:i, s:s, s:s, s:o, s:o, s:o, s:o, s:{s:f, s:f}, s:f, s:I, s:o}", "rank",
			rank, "kind", doctor_fix_kind_name(f->kind), "title", f->title, "finding",
			finding_json(f), "fix", known ? json_string(f->action) : json_null(),
			"next", known ? json_null() : json_string(f->action), "note",
			f->note[0] ? json_string(f->note) : json_null(), "share", "timer",
			f->share[DOCTOR_TIMER], "noise", f->share[DOCTOR_NOISE], "impact",
			f->impact, "max_ns", (json_int_t)f->max_ns, "causes", causes);
	return fix;
}

json_t *doctor_fixes_json(const struct doctor_fixes *fixes, bool known)
{
	json_t *list = json_array();
	unsigned int i, rank = 0;

	if (!list)
		return NULL;
	for (i = 0; i < fixes->nr_fixes; i++) {
		const struct doctor_fix *f = &fixes->fixes[i];

		if ((f->kind != DOCTOR_FIX_UNKNOWN) != known)
			continue;
		if (json_array_append_new(list, fix_json(f, ++rank))) {
			json_decref(list);
			return NULL;
		}
	}
	return list;
}
