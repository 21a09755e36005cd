// SPDX-License-Identifier: GPL-2.0-or-later
/* Rules about the scheduler and timers: RT throttling, timer placement, periodic checks. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "audit_internal.h"

/*
 * Since 6.12 the fair server (a deadline server) reserves time for normal
 * tasks on each CPU even when RT throttling is off; debugfs shows it.
 */
/*
 * Returns 0, or the first error of a runtime file that is there but does
 * not read or parse (debugfs is root's only): whether the fair server
 * reserves time there is unknown. An absent file is an older kernel.
 */
static int fair_server(struct audit_context *ctx, struct audit_finding *f, struct cpuset *reserving)
{
	const struct cpuset *cpus = audit_rt_or_online(ctx);
	unsigned int listed = 0;
	char path[128];
	long long runtime;
	int cpu, ret, first = 0;

	cpuset_clear(reserving);
	cpuset_for_each(cpu, cpus) {
		snprintf(path, sizeof(path), "/sys/kernel/debug/sched/fair_server/cpu%d/runtime",
			 cpu);
		ret = sysroot_read_integer(ctx->root, &runtime, "%s", path);
		if (ret == -ENOENT)
			continue;
		if (ret) {
			if (!first) {
				finding_evidence(f, path, "%s",
						 ret == -EINVAL ? "does not parse" :
								  strerror(-ret));
				first = ret;
			}
			continue;
		}
		if (runtime <= 0)
			continue;
		cpuset_add(reserving, (unsigned int)cpu);
		audit_evidence_listed(f, &listed, path, "%lld", runtime);
	}
	audit_evidence_rest(f, listed, "/sys/kernel/debug/sched/fair_server", "CPUs");
	return first;
}

static void check_rt_throttling(struct audit_context *ctx, struct audit_finding *f)
{
	long long runtime, period;
	struct cpuset reserving;
	struct cpus_text a;
	int unknown;

	finding_expected(f, "kernel.sched_rt_runtime_us=-1 (with stalld to rescue starved "
			    "threads), or a conscious choice of the share");
	if (!audit_need_integer(ctx, f, &runtime, "/proc/sys/kernel/sched_rt_runtime_us") ||
	    !audit_need_integer(ctx, f, &period, "/proc/sys/kernel/sched_rt_period_us"))
		return;
	unknown = fair_server(ctx, f, &reserving);
	if (runtime >= 0 && runtime < period) {
		finding_warn(f,
			     "RT tasks that use more than %lld of every %lld us are stopped "
			     "for the rest of the period",
			     runtime, period);
		finding_fix(f, "sysctl -w kernel.sched_rt_runtime_us=-1 (and run stalld)");
		return;
	}
	if (!cpuset_empty(&reserving)) {
		finding_warn(f,
			     "RT throttling is off, but the fair server still reserves time "
			     "for normal tasks on CPUs %s",
			     cpus_text(&reserving, &a));
		finding_fix(f,
			    "for c in %s; do echo 0 > "
			    "/sys/kernel/debug/sched/fair_server/cpu$c/runtime; done",
			    cpus_text(&reserving, &a));
		return;
	}
	if (unknown) {
		finding_skip(f,
			     "RT throttling is off, but whether the fair server reserves time "
			     "cannot be read: /sys/kernel/debug/sched/fair_server/cpuN/runtime: %s",
			     unknown == -EINVAL ? "does not parse" : strerror(-unknown));
		return;
	}
	finding_pass(f, "RT throttling is off");
}

static void check_timer_migration(struct audit_context *ctx, struct audit_finding *f)
{
	long long migration;

	finding_expected(f, "kernel.timer_migration=0 with static isolation (1 suits "
			    "partitioning that changes at run time)");
	if (!audit_need_integer(ctx, f, &migration, "/proc/sys/kernel/timer_migration"))
		return;
	if (!migration) {
		finding_pass(f, "timers stay on the CPU that armed them");
		return;
	}
	finding_warn(f, "timers armed by a CPU may expire on another one");
	finding_fix(f, "sysctl -w kernel.timer_migration=0");
}

static void check_skew_tick(struct audit_context *ctx, struct audit_finding *f)
{
	char value[16];

	finding_expected(f, "skew_tick=1 on the kernel command line");
	if (ctx->cmdline_ret) {
		finding_skip_unreadable(f, "/proc/cmdline", ctx->cmdline_ret);
		return;
	}
	if (audit_cmdline(ctx, f, "skew_tick", value, sizeof(value)) && strcmp(value, "0")) {
		finding_pass(f, "the CPUs' ticks are offset from each other");
		return;
	}
	finding_warn(f, "every CPU ticks at the same instant and they contend for the same "
			"locks");
	finding_fix(f, "boot with skew_tick=1");
}

static void check_hung_task(struct audit_context *ctx, struct audit_finding *f)
{
	long long timeout;
	int ret;

	finding_expected(f, "kernel.hung_task_timeout_secs 0 or at least 600");
	ret = audit_read_optional_integer(ctx, f, &timeout,
					  "/proc/sys/kernel/hung_task_timeout_secs");
	if (ret == -ENOENT)
		finding_pass(f, "no hung task detector built in");
	if (ret)
		return;
	if (timeout == 0 || timeout >= 600) {
		finding_pass(f, "khungtaskd %s", timeout ? "wakes rarely" : "is disabled");
		return;
	}
	finding_warn(f, "khungtaskd walks every task each %lld s", timeout);
	finding_fix(f, "sysctl -w kernel.hung_task_timeout_secs=600");
}

const struct audit_rule audit_sched_rules[] = {
	{ "sched.rt_throttling", "RT throttling", AUDIT_MEDIUM,
	  "With throttling on, an RT task that runs long is stopped for the rest of the "
	  "period (50 ms in every second by default).",
	  check_rt_throttling },
	{ "timer.migration", "Timer migration", AUDIT_LOW,
	  "Timer migration moves timers between CPUs, so a timer armed elsewhere can expire "
	  "on a CPU doing RT work.",
	  check_timer_migration },
	{ "timer.skew_tick", "Skewed ticks", AUDIT_LOW,
	  "Ticks that fire on every CPU at once contend for jiffies and RCU locks, lengthening "
	  "each tick.",
	  check_skew_tick },
	{ "sched.hung_task", "Hung task detector", AUDIT_LOW,
	  "The hung task detector periodically walks every task with RCU held.", check_hung_task },
};
const size_t audit_sched_rule_count = ARRAY_SIZE(audit_sched_rules);
