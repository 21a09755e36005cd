// SPDX-License-Identifier: GPL-2.0-or-later
/* Rules about keeping the kernel's own work off the RT CPUs. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "audit_internal.h"

#define CPU_DIR "/sys/devices/system/cpu"
#define WQ_DIR "/sys/devices/virtual/workqueue"

/* CPUs out of the scheduler's load balancing: isolcpus= and isolated cpuset partitions */
static void domain_isolated(struct audit_context *ctx, struct audit_finding *f,
			    struct cpuset *isolated)
{
	struct cpuset partitions;

	if (audit_read_cpulist(ctx, f, isolated, CPU_DIR "/isolated"))
		cpuset_clear(isolated);
	if (!audit_read_cpulist(ctx, f, &partitions, "/sys/fs/cgroup/cpuset.cpus.isolated"))
		cpuset_or(isolated, isolated, &partitions);
}

static void check_isolation(struct audit_context *ctx, struct audit_finding *f)
{
	struct cpuset isolated, missing;
	struct cpus_text a, b, c;
	int boot_cpu = cpuset_next(&ctx->topo->online, -1);

	finding_expected(f, "every RT CPU isolated (isolcpus=domain or an isolated cpuset "
			    "partition), the boot CPU kept for housekeeping");
	domain_isolated(ctx, f, &isolated);
	audit_cmdline(ctx, f, "isolcpus", NULL, 0);
	if (cpuset_empty(&ctx->rt)) {
		finding_warn(f, "no CPU is isolated: the scheduler may put any task on the CPU "
				"that runs the RT task");
		finding_fix(f,
			    "boot with isolcpus=managed_irq,domain,%s nohz_full=%s "
			    "rcu_nocbs=%s (or make an isolated cpuset partition)",
			    rt_cpus_for_fix(ctx, &a), rt_cpus_for_fix(ctx, &b),
			    rt_cpus_for_fix(ctx, &c));
		return;
	}
	cpuset_andnot(&missing, &ctx->rt, &isolated);
	if (!cpuset_empty(&missing)) {
		finding_fail(f,
			     "RT CPUs %s are not isolated: the load balancer moves other tasks "
			     "onto them",
			     cpus_text(&missing, &a));
		finding_fix(f,
			    "boot with isolcpus=managed_irq,domain,%s (or: echo isolated > "
			    "cpuset.cpus.partition of a cgroup holding them)",
			    cpus_text(&ctx->rt, &b));
		return;
	}
	if (boot_cpu >= 0 && cpuset_has(&ctx->rt, (unsigned int)boot_cpu)) {
		finding_warn(f,
			     "the boot CPU %d is an RT CPU: it keeps timekeeping and boot-time "
			     "interrupts",
			     boot_cpu);
		finding_fix(f, "leave CPU %d out of the RT CPUs", boot_cpu);
		return;
	}
	finding_pass(f, "RT CPUs %s are isolated", cpus_text(&ctx->rt, &a));
}

static void check_nohz_full(struct audit_context *ctx, struct audit_finding *f)
{
	struct cpuset nohz, missing;
	struct cpus_text a, b;
	bool built = true;
	int ret;

	finding_expected(f, "nohz_full= covering the RT CPUs for polling or computing RT tasks "
			    "(a periodic RT loop may keep the tick)");
	if (!audit_need_rt(ctx, f))
		return;
	if (!ctx->config_ret)
		built = audit_config_enabled(ctx, f, "NO_HZ_FULL");
	ret = audit_read_cpulist(ctx, f, &nohz, CPU_DIR "/nohz_full");
	if (ret == -ENOENT) {
		finding_evidence(f, CPU_DIR "/nohz_full", "absent");
		cpuset_clear(&nohz);
	} else if (ret) {
		finding_skip_unreadable(f, CPU_DIR "/nohz_full", ret);
		return;
	}
	audit_cmdline(ctx, f, "nohz_full", NULL, 0);
	cpuset_andnot(&missing, &ctx->rt, &nohz);
	if (cpuset_empty(&missing)) {
		finding_pass(f, "the tick stops on RT CPUs %s when one task runs",
			     cpus_text(&ctx->rt, &a));
		return;
	}
	finding_warn(f, "RT CPUs %s keep the periodic tick%s", cpus_text(&missing, &a),
		     built ? "" : " (the kernel is built without CONFIG_NO_HZ_FULL)");
	if (built)
		finding_fix(f, "boot with nohz_full=%s", cpus_text(&ctx->rt, &b));
	else
		finding_fix(f, "rebuild with CONFIG_NO_HZ_FULL=y, then boot with nohz_full=%s",
			    cpus_text(&ctx->rt, &b));
}

/* rcu_nocbs= takes a cpu list, "all", or nothing (all CPUs) on recent kernels */
static void offloaded_cpus(struct audit_context *ctx, struct audit_finding *f,
			   struct cpuset *offloaded)
{
	char value[512];
	struct cpuset list, nohz;

	cpuset_clear(offloaded);
	if (audit_cmdline(ctx, f, "rcu_nocbs", value, sizeof(value))) {
		if (!value[0] || !strcmp(value, "all"))
			*offloaded = ctx->topo->possible;
		else if (!cpuset_parse_list(value, &list))
			*offloaded = list;
	}
	if (!ctx->config_ret && audit_config_enabled(ctx, f, "RCU_NOCB_CPU_DEFAULT_ALL"))
		*offloaded = ctx->topo->possible;
	/* nohz_full= offloads its CPUs' callbacks too */
	if (!sysroot_read_cpulist(ctx->root, &nohz, CPU_DIR "/nohz_full"))
		cpuset_or(offloaded, offloaded, &nohz);
}

static void check_rcu_nocbs(struct audit_context *ctx, struct audit_finding *f)
{
	struct cpuset offloaded, missing, on_rt;
	struct cpus_text a, b;
	unsigned int listed = 0, unknown = 0;
	char path[64], first[160] = "";
	size_t i;
	int ret;

	finding_expected(f, "RCU callbacks of the RT CPUs offloaded (rcu_nocbs= or nohz_full=), "
			    "their rcuo kthreads on housekeeping CPUs");
	if (!audit_need_rt(ctx, f))
		return;
	if (!audit_need_config(ctx, f))
		return;
	if (!audit_config_enabled(ctx, f, "RCU_NOCB_CPU")) {
		finding_fail(f,
			     "built without CONFIG_RCU_NOCB_CPU: RCU callbacks run in softirq on "
			     "the RT CPUs");
		finding_fix(f, "rebuild with CONFIG_RCU_NOCB_CPU=y, then boot with rcu_nocbs=%s",
			    cpus_text(&ctx->rt, &a));
		return;
	}
	offloaded_cpus(ctx, f, &offloaded);
	cpuset_andnot(&missing, &ctx->rt, &offloaded);
	if (!cpuset_empty(&missing)) {
		finding_fail(f, "RCU callbacks of RT CPUs %s are not offloaded",
			     cpus_text(&missing, &a));
		finding_fix(f, "boot with rcu_nocbs=%s", cpus_text(&ctx->rt, &b));
		return;
	}
	cpuset_clear(&on_rt);
	/* where the rcuo kthreads run is half the verdict: without the task list, no pass */
	ret = audit_tasks(ctx);
	if (ret) {
		finding_skip_unreadable(f, "/proc", ret);
		return;
	}
	for (i = 0; i < ctx->nr_tasks; i++) {
		const struct audit_task *t = &ctx->tasks[i];

		if (!(t->flags & AUDIT_PF_KTHREAD) || strncmp(t->comm, "rcuo", 4))
			continue;
		if (!t->allowed_known) {
			audit_task_note_unknown(f, t, &unknown, first, sizeof(first));
			continue;
		}
		if (!cpuset_intersects(&t->allowed, &ctx->rt))
			continue;
		cpuset_or(&on_rt, &on_rt, &t->allowed);
		snprintf(path, sizeof(path), "/proc/%d/status", t->pid);
		audit_evidence_listed(f, &listed, path, "%s Cpus_allowed_list: %s", t->comm,
				      cpus_text(&t->allowed, &a));
	}
	audit_evidence_rest(f, listed, "/proc", "rcuo kthreads");
	audit_tasks_note_unreadable(ctx, f, &unknown, first, sizeof(first));
	if (!listed && unknown) {
		finding_skip(f,
			     "callbacks are offloaded, but where %u tasks (rcuo kthreads among "
			     "them?) may run is unknown: %s",
			     unknown, first);
		return;
	}
	if (listed) {
		finding_warn(f, "callbacks are offloaded, but %u rcuo kthreads may run on RT CPUs",
			     listed);
		finding_fix(f, "pin them: for p in $(pgrep '^rcuo'); do taskset -pc %s $p; done",
			    cpus_text(&ctx->housekeeping, &b));
		return;
	}
	finding_pass(f, "RCU callbacks of RT CPUs %s are offloaded", cpus_text(&ctx->rt, &a));
}

static void add_mask_evidence(struct audit_finding *f, const char *path, const char *text)
{
	finding_evidence(f, path, "%s", text);
}

static void check_workqueues(struct audit_context *ctx, struct audit_finding *f)
{
	struct cpuset global, own, effective, on_rt;
	struct cpus_text a, b;
	char text[1024], path[320], bad[256] = "", first[400] = "";
	unsigned int unknown = 0;
	struct dirent *entry;
	DIR *dir;
	int ret;

	finding_expected(f, "the unbound workqueue cpumask, and each workqueue's, within the "
			    "housekeeping CPUs");
	if (!audit_need_rt(ctx, f))
		return;
	ret = sysroot_read(ctx->root, text, sizeof(text), WQ_DIR "/cpumask");
	if (ret < 0 || cpuset_parse_mask(text, &global)) {
		if (ret >= 0)
			add_mask_evidence(f, WQ_DIR "/cpumask", text);
		finding_skip_unreadable(f, WQ_DIR "/cpumask", ret < 0 ? ret : -EINVAL);
		return;
	}
	add_mask_evidence(f, WQ_DIR "/cpumask", text);
	cpuset_and(&on_rt, &global, &ctx->rt);
	if (!cpuset_empty(&on_rt))
		snprintf(bad, sizeof(bad), "cpumask");
	/* a workqueue's own mask applies within the global one */
	dir = sysroot_opendir(ctx->root, WQ_DIR);
	while (dir && (entry = readdir(dir))) {
		if (entry->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), WQ_DIR "/%s/cpumask", entry->d_name);
		ret = sysroot_read(ctx->root, text, sizeof(text), "%s", path);
		/* no cpumask: not a workqueue (power/, uevent), or not an unbound one */
		if (ret == -ENOENT || ret == -ENOTDIR)
			continue;
		if (ret < 0 || cpuset_parse_mask(text, &own)) {
			/* there, but saying nothing: that workqueue may run anywhere */
			finding_evidence(f, path, "%s",
					 ret < 0 ? strerror(-ret) : "not a cpu mask");
			if (!unknown++)
				snprintf(first, sizeof(first), "%s: %s", path,
					 ret < 0 ? strerror(-ret) : "not a cpu mask");
			continue;
		}
		cpuset_and(&effective, &own, &global);
		if (cpuset_empty(&effective))
			effective = global;
		if (!cpuset_intersects(&effective, &ctx->rt))
			continue;
		add_mask_evidence(f, path, text);
		cpuset_or(&on_rt, &on_rt, &effective);
		audit_list_append(bad, sizeof(bad), "%s", entry->d_name);
	}
	if (dir)
		closedir(dir);
	cpuset_and(&on_rt, &on_rt, &ctx->rt);
	if (cpuset_empty(&on_rt) && unknown) {
		finding_skip(f, "cannot read the cpumask of %u workqueues: %s", unknown, first);
		return;
	}
	if (cpuset_empty(&on_rt)) {
		finding_pass(f, "unbound workqueues stay off the RT CPUs");
		return;
	}
	finding_fail(f, "unbound work may run on RT CPUs %s (%s)", cpus_text(&on_rt, &a), bad);
	finding_fix(f,
		    "echo %s > " WQ_DIR "/cpumask (and the same into each listed "
		    "workqueue's cpumask)",
		    cpus_mask_text(ctx, &ctx->housekeeping, &b));
}

/*
 * Tasks allowed on both RT and housekeeping CPUs were never confined. Tasks
 * allowed only on RT CPUs were put there on purpose: they are the RT work.
 */
static void check_task_affinity(struct audit_context *ctx, struct audit_finding *f, bool kthreads)
{
	struct cpuset isolated, on_rt, not_isolated;
	struct cpus_text a, b;
	unsigned int listed = 0, unknown = 0;
	char path[64], pids[256] = "", first[160] = "";
	size_t i;

	if (!audit_need_tasks(ctx, f))
		return;
	cpuset_clear(&on_rt);
	for (i = 0; i < ctx->nr_tasks; i++) {
		const struct audit_task *t = &ctx->tasks[i];
		struct cpuset here;

		if (!!(t->flags & AUDIT_PF_KTHREAD) != kthreads ||
		    (kthreads && audit_task_is_per_cpu(t)))
			continue;
		if (!t->allowed_known) {
			audit_task_note_unknown(f, t, &unknown, first, sizeof(first));
			continue;
		}
		cpuset_and(&here, &t->allowed, &ctx->rt);
		if (cpuset_empty(&here) || cpuset_subset(&t->allowed, &ctx->rt))
			continue;
		cpuset_or(&on_rt, &on_rt, &here);
		snprintf(path, sizeof(path), "/proc/%d/status", t->pid);
		if (listed < AUDIT_MAX_LISTED)
			snprintf(pids + strlen(pids), sizeof(pids) - strlen(pids), "%s%d",
				 pids[0] ? " " : "", t->pid);
		audit_evidence_listed(f, &listed, path, "%s Cpus_allowed_list: %s", t->comm,
				      cpus_text(&t->allowed, &a));
	}
	audit_evidence_rest(f, listed, "/proc", kthreads ? "kthreads" : "processes");
	audit_evidence_rest(f, unknown, "/proc", "tasks with unknown CPUs");
	audit_tasks_note_unreadable(ctx, f, &unknown, first, sizeof(first));
	if (!listed && unknown) {
		finding_skip(f, "cannot tell where %u tasks may run: %s", unknown, first);
		return;
	}
	if (!listed) {
		finding_evidence(f, "/proc/*/status", "%zu tasks read, none %s", ctx->nr_tasks,
				 "allowed on both RT and housekeeping CPUs");
		finding_pass(f, "no %s may run on both RT and housekeeping CPUs",
			     kthreads ? "movable kthread" : "process");
		return;
	}
	domain_isolated(ctx, f, &isolated);
	cpuset_andnot(&not_isolated, &on_rt, &isolated);
	if (cpuset_empty(&not_isolated))
		finding_warn(f,
			     "%u %s may run on RT CPUs %s (isolated: the load balancer will "
			     "not move them there, but a wake-up or an affinity change can)",
			     listed, kthreads ? "kthreads" : "processes", cpus_text(&on_rt, &a));
	else
		finding_fail(f, "%u %s may run on RT CPUs %s", listed,
			     kthreads ? "kthreads" : "processes", cpus_text(&on_rt, &a));
	/*
	 * kthreadd gives new kthreads the housekeeping CPUs of nohz_full=
	 * (HK_TYPE_KTHREAD); isolcpus=domain leaves them everywhere. With
	 * nohz_full= over the RT CPUs, what is left set its own affinity:
	 * kswapd and kcompactd take their node's CPUs.
	 */
	if (kthreads && cpuset_subset(&ctx->rt, &ctx->topo->nohz_full))
		finding_fix(f,
			    "for p in %s; do taskset -pc %s $p; done (after each boot: nohz_full= "
			    "already keeps new kthreads off the RT CPUs; these set their own "
			    "affinity, as kswapd and kcompactd take their node's CPUs)",
			    pids, cpus_text(&ctx->housekeeping, &b));
	else if (kthreads)
		finding_fix(
			f,
			"for p in %s; do taskset -pc %s $p; done (boot with nohz_full=%s to keep "
			"new kthreads off them; isolcpus=domain does not)",
			pids, cpus_text(&ctx->housekeeping, &b), cpus_text(&ctx->rt, &a));
	else
		finding_fix(f,
			    "for p in %s; do taskset -apc %s $p; done; for services: "
			    "CPUAffinity=%s in /etc/systemd/system.conf",
			    pids, cpus_text(&ctx->housekeeping, &b),
			    cpus_text(&ctx->housekeeping, &b));
}

static void check_kthreads(struct audit_context *ctx, struct audit_finding *f)
{
	finding_expected(f, "no movable kthread allowed on RT CPUs");
	check_task_affinity(ctx, f, true);
}

static void check_processes(struct audit_context *ctx, struct audit_finding *f)
{
	finding_expected(f, "no process allowed on both RT and housekeeping CPUs (RT work is "
			    "pinned to RT CPUs)");
	check_task_affinity(ctx, f, false);
}

const struct audit_rule audit_isolation_rules[] = {
	{ "isolation.cpus", "RT CPUs isolated", AUDIT_HIGH,
	  "On a CPU the scheduler balances, any task can be placed beside the RT task and "
	  "delay it.",
	  check_isolation },
	{ "isolation.nohz_full", "Tick on RT CPUs", AUDIT_MEDIUM,
	  "The periodic tick interrupts the RT CPU HZ times a second; nohz_full stops it while "
	  "one task runs.",
	  check_nohz_full },
	{ "isolation.rcu_nocbs", "RCU callbacks offloaded", AUDIT_MEDIUM,
	  "Without offloading, RCU callbacks run in softirq on the CPU that queued them, RT "
	  "CPUs included.",
	  check_rcu_nocbs },
	{ "isolation.workqueues", "Unbound workqueues off RT CPUs", AUDIT_MEDIUM,
	  "Unbound kworkers run wherever the workqueue cpumask allows, RT CPUs included.",
	  check_workqueues },
	{ "isolation.kthreads", "Kernel threads off RT CPUs", AUDIT_MEDIUM,
	  "A kernel thread allowed on an RT CPU can be scheduled there and preempt or delay "
	  "the RT task.",
	  check_kthreads },
	{ "isolation.processes", "Processes off RT CPUs", AUDIT_MEDIUM,
	  "A process allowed on an RT CPU can be scheduled there and compete with the RT task.",
	  check_processes },
};
const size_t audit_isolation_rule_count = ARRAY_SIZE(audit_isolation_rules);
