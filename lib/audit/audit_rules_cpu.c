// SPDX-License-Identifier: GPL-2.0-or-later
/* Rules about the CPUs' power management and SMT: frequency, idle states, siblings. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "audit_internal.h"

#define CPU_DIR "/sys/devices/system/cpu"

/* Idle states that take longer than this to leave cost an RT wake-up too much. */
#define AUDIT_MAX_EXIT_LATENCY_US 10

/* PM QoS: the value /dev/cpu_dma_latency reads when nobody asks for a limit */
#define PM_QOS_NO_LIMIT 2000000000LL

static void check_governor(struct audit_context *ctx, struct audit_finding *f)
{
	const struct cpuset *cpus = audit_rt_or_online(ctx);
	char governor[64], path[128], governors[128] = "", driver[64];
	struct cpuset bad, with_cpufreq;
	struct cpus_text a, b;
	unsigned int listed = 0;
	int cpu, ret;

	finding_expected(f, "scaling_governor performance (or a fixed userspace frequency) on %s",
			 cpuset_empty(&ctx->rt) ? "every CPU" : "the RT CPUs");
	cpuset_clear(&bad);
	cpuset_clear(&with_cpufreq);
	cpuset_for_each(cpu, cpus) {
		snprintf(path, sizeof(path), CPU_DIR "/cpu%d/cpufreq/scaling_governor", cpu);
		ret = sysroot_read(ctx->root, governor, sizeof(governor), "%s", path);
		if (ret == -ENOENT)
			continue;
		if (ret < 0) {
			finding_skip_unreadable(f, path, ret);
			return;
		}
		cpuset_add(&with_cpufreq, (unsigned int)cpu);
		if (!strcmp(governor, "performance") || !strcmp(governor, "userspace"))
			continue;
		cpuset_add(&bad, (unsigned int)cpu);
		audit_evidence_listed(f, &listed, path, "%s", governor);
		if (!audit_list_has(governors, governor))
			audit_list_append(governors, sizeof(governors), "%s", governor);
	}
	audit_evidence_rest(f, listed, CPU_DIR, "CPUs");
	if (cpuset_empty(&with_cpufreq)) {
		finding_evidence(f, CPU_DIR "/cpuN/cpufreq", "absent on CPUs %s",
				 cpus_text(cpus, &a));
		finding_skip(f, "no cpufreq on these CPUs (no driver: the frequency is the "
				"firmware's or the hypervisor's)");
		return;
	}
	cpu = cpuset_next(&with_cpufreq, -1);
	audit_read(ctx, f, driver, sizeof(driver), CPU_DIR "/cpu%d/cpufreq/scaling_driver", cpu);
	if (cpuset_empty(&bad)) {
		if (listed == 0)
			finding_evidence(f, CPU_DIR "/cpuN/cpufreq/scaling_governor",
					 "performance or userspace on CPUs %s",
					 cpus_text(&with_cpufreq, &a));
		finding_pass(f, "performance governor on CPUs %s", cpus_text(&with_cpufreq, &a));
		return;
	}
	finding_fail(f, "governor %s on CPUs %s", governors, cpus_text(&bad, &a));
	finding_fix(f,
		    "cpupower -c %s frequency-set -g performance (persist with tuned "
		    "latency-performance or cpufreq.default_governor=performance)",
		    cpus_text(&bad, &b));
}

/* the system-wide PM QoS limit in us, PM_QOS_NO_LIMIT when none or unknown */
static long long global_latency_limit(struct audit_context *ctx, struct audit_finding *f)
{
	int32_t value;
	ssize_t n;
	int fd;

	fd = sysroot_open(ctx->root, O_RDONLY, "/dev/cpu_dma_latency");
	if (fd < 0) {
		finding_evidence(f, "/dev/cpu_dma_latency", "unreadable: %s", strerror(-fd));
		return PM_QOS_NO_LIMIT;
	}
	/* the device reads as the current target, a native 32-bit integer */
	n = read(fd, &value, sizeof(value));
	close(fd);
	if (n != (ssize_t)sizeof(value) || value < 0) {
		finding_evidence(f, "/dev/cpu_dma_latency", "not a 4-byte latency");
		return PM_QOS_NO_LIMIT;
	}
	finding_evidence(f, "/dev/cpu_dma_latency", "%d%s", (int)value,
			 value >= PM_QOS_NO_LIMIT ? " (no limit)" : " us");
	return value;
}

/*
 * The per-CPU resume latency limit: "0" means no constraint and "n/a" a
 * zero-latency one (the kernel's own encoding in power/sysfs.c).
 */
static long long cpu_latency_limit(struct audit_context *ctx, int cpu)
{
	char text[32];
	long long v;
	char *end;

	if (sysroot_read(ctx->root, text, sizeof(text),
			 CPU_DIR "/cpu%d/power/pm_qos_resume_latency_us", cpu) < 0)
		return PM_QOS_NO_LIMIT;
	if (!strcmp(text, "n/a"))
		return 0;
	v = strtoll(text, &end, 10);
	if (end == text || *end || v < 0)
		return PM_QOS_NO_LIMIT;
	return v ? v : PM_QOS_NO_LIMIT;
}

struct idle_state {
	char name[32];
	long long latency;
	bool disabled;
};

/*
 * The deepest state the governor may pick on a CPU: enabled, and with an exit
 * latency within the PM QoS limit. Returns the state's index, -1 for none
 * deeper than polling, or -2 when the states cannot be read.
 */
static int deepest_state(struct audit_context *ctx, int cpu, long long limit,
			 struct idle_state *deepest)
{
	struct idle_state state;
	int k, found = -1;
	long long disable;

	for (k = 0; k < 64; k++) {
		int ret = sysroot_read(ctx->root, state.name, sizeof(state.name),
				       CPU_DIR "/cpu%d/cpuidle/state%d/name", cpu, k);

		/* the states end at the first absent one; one that does not read hides the rest */
		if (ret == -ENOENT)
			break;
		if (ret < 0)
			return -2;
		if (sysroot_read_integer(ctx->root, &state.latency,
					 CPU_DIR "/cpu%d/cpuidle/state%d/latency", cpu, k))
			return -2;
		if (sysroot_read_integer(ctx->root, &disable,
					 CPU_DIR "/cpu%d/cpuidle/state%d/disable", cpu, k))
			disable = 0;
		state.disabled = disable != 0;
		if (state.disabled || state.latency > limit)
			continue;
		if (found < 0 || state.latency >= deepest->latency) {
			*deepest = state;
			found = k;
		}
	}
	return found;
}

static void check_idle_states(struct audit_context *ctx, struct audit_finding *f)
{
	const struct cpuset *cpus = audit_rt_or_online(ctx);
	char driver[64], idle[64], path[160];
	struct cpuset deep, readable, unread;
	long long global, limit;
	struct idle_state state;
	struct cpus_text a, b;
	unsigned int listed = 0;
	long long worst = 0;
	int cpu, k;

	finding_expected(f,
			 "no idle state with an exit latency above %d us allowed on %s "
			 "(disabled, or excluded by PM QoS)",
			 AUDIT_MAX_EXIT_LATENCY_US,
			 cpuset_empty(&ctx->rt) ? "any CPU" : "the RT CPUs");
	if (audit_cmdline(ctx, f, "idle", idle, sizeof(idle)) && !strcmp(idle, "poll")) {
		finding_pass(f, "idle=poll: the CPUs poll instead of entering idle states");
		return;
	}
	k = audit_read(ctx, f, driver, sizeof(driver), CPU_DIR "/cpuidle/current_driver");
	if (k == -ENOENT || (k >= 0 && !strcmp(driver, "none"))) {
		if (k == -ENOENT)
			finding_evidence(f, CPU_DIR "/cpuidle/current_driver", "absent");
		finding_pass(f, "no cpuidle driver: idle CPUs only halt (C1)");
		return;
	}
	if (k < 0) {
		finding_skip_unreadable(f, CPU_DIR "/cpuidle/current_driver", k);
		return;
	}
	global = global_latency_limit(ctx, f);
	cpuset_clear(&deep);
	cpuset_clear(&readable);
	cpuset_for_each(cpu, cpus) {
		limit = cpu_latency_limit(ctx, cpu);
		if (global < limit)
			limit = global;
		k = deepest_state(ctx, cpu, limit, &state);
		if (k == -2)
			continue;
		cpuset_add(&readable, (unsigned int)cpu);
		if (k < 0 || state.latency <= AUDIT_MAX_EXIT_LATENCY_US)
			continue;
		cpuset_add(&deep, (unsigned int)cpu);
		if (state.latency > worst)
			worst = state.latency;
		snprintf(path, sizeof(path), CPU_DIR "/cpu%d/cpuidle/state%d", cpu, k);
		audit_evidence_listed(f, &listed, path, "%s: exit latency %lld us, enabled%s",
				      state.name, state.latency,
				      limit < PM_QOS_NO_LIMIT ? ", within the PM QoS limit" : "");
	}
	audit_evidence_rest(f, listed, CPU_DIR, "CPUs");
	if (cpuset_empty(&readable)) {
		finding_skip(f, "cannot read the idle states of CPUs %s (cpuidle driver %s)",
			     cpus_text(cpus, &a), driver);
		return;
	}
	cpuset_andnot(&unread, cpus, &readable);
	if (cpuset_empty(&deep) && !cpuset_empty(&unread)) {
		/* the CPUs read are fine; the others may not be */
		finding_evidence(f, CPU_DIR "/cpuN/cpuidle", "unreadable on CPUs %s",
				 cpus_text(&unread, &a));
		finding_skip(f,
			     "cannot read the idle states of CPUs %s (those of CPUs %s are fine)",
			     cpus_text(&unread, &a), cpus_text(&readable, &b));
		return;
	}
	if (cpuset_empty(&deep)) {
		finding_pass(f, "no enabled idle state deeper than %d us on CPUs %s",
			     AUDIT_MAX_EXIT_LATENCY_US, cpus_text(&readable, &a));
		return;
	}
	finding_fail(f,
		     "CPUs %s may enter idle states with exit latencies up to %lld us and "
		     "no PM QoS request prevents it",
		     cpus_text(&deep, &a), worst);
	finding_fix(f,
		    "let the RT application hold /dev/cpu_dma_latency open with %d (tuned "
		    "latency-performance does), or cpupower -c %s idle-set -D %d",
		    AUDIT_MAX_EXIT_LATENCY_US, cpus_text(&deep, &b), AUDIT_MAX_EXIT_LATENCY_US + 1);
}

/* what the kernel writes in smt/control when there are no siblings, in words */
static const struct {
	const char *control, *words;
} smt_off[] = {
	{ "off", "off" },
	{ "forceoff", "forced off (nosmt=force)" },
	{ "notsupported", "not supported by the CPU" },
	{ "notimplemented", "not implemented by the kernel for this architecture" },
};

static void check_smt_siblings(struct audit_context *ctx, struct audit_finding *f)
{
	struct cpuset siblings, shared, all_shared;
	struct cpus_text a, b;
	char control[32];
	int cpu, ret;

	finding_expected(f, "SMT off, or each RT CPU's siblings also RT CPUs (and idle)");
	if (!audit_need_rt(ctx, f))
		return;
	/* only what the kernel writes there says SMT is off; anything else: the siblings tell */
	ret = audit_read(ctx, f, control, sizeof(control), CPU_DIR "/smt/control");
	for (size_t i = 0; ret >= 0 && i < ARRAY_SIZE(smt_off); i++) {
		if (!strcmp(control, smt_off[i].control)) {
			finding_pass(f, "SMT is %s", smt_off[i].words);
			return;
		}
	}
	cpuset_clear(&all_shared);
	cpuset_for_each(cpu, &ctx->rt) {
		ret = audit_read_cpulist(ctx, f, &siblings,
					 CPU_DIR "/cpu%d/topology/thread_siblings_list", cpu);
		if (ret) {
			char path[96];

			snprintf(path, sizeof(path), CPU_DIR "/cpu%d/topology/thread_siblings_list",
				 cpu);
			finding_skip_unreadable(f, path, ret);
			return;
		}
		cpuset_andnot(&shared, &siblings, &ctx->rt);
		cpuset_or(&all_shared, &all_shared, &shared);
	}
	if (cpuset_empty(&all_shared)) {
		finding_pass(f, "every sibling of an RT CPU is an RT CPU");
		return;
	}
	finding_fail(f, "housekeeping CPUs %s share cores with RT CPUs",
		     cpus_text(&all_shared, &a));
	finding_fix(f,
		    "echo off > /sys/devices/system/cpu/smt/control (boot: nosmt), or add "
		    "%s to the isolated CPUs and leave them idle",
		    cpus_text(&all_shared, &b));
}

const struct audit_rule audit_cpu_rules[] = {
	{ "cpu.governor", "cpufreq governor", AUDIT_HIGH,
	  "A governor that changes the frequency makes the same code take varying time, and "
	  "sampling governors run timers on the CPU.",
	  check_governor },
	{ "cpu.idle_states", "Idle states and PM QoS", AUDIT_HIGH,
	  "Waking a CPU from a deep idle state takes tens to hundreds of microseconds, added to "
	  "every wake-up of the RT task.",
	  check_idle_states },
	{ "cpu.smt_siblings", "SMT siblings of RT CPUs", AUDIT_MEDIUM,
	  "An SMT sibling shares the core's pipeline and L1/L2 caches: work on it slows the RT "
	  "task.",
	  check_smt_siblings },
};
const size_t audit_cpu_rule_count = ARRAY_SIZE(audit_cpu_rules);
