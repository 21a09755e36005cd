// SPDX-License-Identifier: GPL-2.0-or-later
/* Rules about memory management work that interrupts or stalls RT tasks. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit_internal.h"

#define THP_DIR "/sys/kernel/mm/transparent_hugepage"

static void check_numa_balancing(struct audit_context *ctx, struct audit_finding *f)
{
	long long balancing = 0, reclaim = 0;
	bool have_balancing, have_reclaim;
	char what[96] = "";
	int ret;

	finding_expected(f, "kernel.numa_balancing=0 and vm.zone_reclaim_mode=0");
	ret = audit_read_integer(ctx, f, &balancing, "/proc/sys/kernel/numa_balancing");
	have_balancing = !ret;
	if (ret && ret != -ENOENT) {
		finding_skip_unreadable(f, "/proc/sys/kernel/numa_balancing", ret);
		return;
	}
	ret = audit_read_integer(ctx, f, &reclaim, "/proc/sys/vm/zone_reclaim_mode");
	have_reclaim = !ret;
	if (ret && ret != -ENOENT) {
		finding_skip_unreadable(f, "/proc/sys/vm/zone_reclaim_mode", ret);
		return;
	}
	if (!have_balancing && !have_reclaim) {
		finding_evidence(f, "/proc/sys/kernel/numa_balancing", "absent");
		finding_pass(f, "no NUMA balancing in this kernel");
		return;
	}
	if (ctx->topo->nr_nodes <= 1) {
		finding_pass(f, "one NUMA node: nothing to balance");
		return;
	}
	if (have_balancing && balancing)
		audit_list_append(what, sizeof(what), "NUMA balancing");
	if (have_reclaim && reclaim)
		audit_list_append(what, sizeof(what), "zone reclaim");
	if (!what[0]) {
		finding_pass(f, "NUMA balancing and zone reclaim are off");
		return;
	}
	finding_fail(f, "%s on, over %u NUMA nodes", what, ctx->topo->nr_nodes);
	finding_fix(f, "sysctl -w kernel.numa_balancing=0 vm.zone_reclaim_mode=0 (boot: "
		       "numa_balancing=disable)");
}

static void check_thp(struct audit_context *ctx, struct audit_finding *f)
{
	char enabled_text[128], defrag_text[128], enabled[32], defrag[32];
	int ret;

	finding_expected(f, "transparent hugepages never (or madvise, with defrag not always)");
	ret = audit_read(ctx, f, enabled_text, sizeof(enabled_text), THP_DIR "/enabled");
	if (ret == -ENOENT) {
		finding_evidence(f, THP_DIR "/enabled", "absent");
		finding_pass(f, "no transparent hugepages in this kernel");
		return;
	}
	if (ret < 0) {
		finding_skip_unreadable(f, THP_DIR "/enabled", ret);
		return;
	}
	audit_selected_word(enabled_text, enabled, sizeof(enabled));
	if (audit_read(ctx, f, defrag_text, sizeof(defrag_text), THP_DIR "/defrag") >= 0)
		audit_selected_word(defrag_text, defrag, sizeof(defrag));
	else
		defrag[0] = '\0';
	if (!enabled[0]) {
		finding_skip(f, "cannot parse " THP_DIR "/enabled");
		return;
	}
	if (!strcmp(enabled, "never")) {
		finding_pass(f, "transparent hugepages are off");
		return;
	}
	if (!strcmp(enabled, "always") || !strcmp(defrag, "always"))
		finding_fail(f,
			     "enabled=%s, defrag=%s: page faults may compact memory and "
			     "khugepaged collapses pages in the background",
			     enabled, defrag[0] ? defrag : "?");
	else
		finding_warn(f,
			     "enabled=%s, defrag=%s: regions that ask for hugepages get "
			     "compaction stalls and khugepaged work",
			     enabled, defrag[0] ? defrag : "?");
	finding_fix(f, "echo never > " THP_DIR "/enabled (boot: transparent_hugepage=never)");
}

static void check_vmstat_interval(struct audit_context *ctx, struct audit_finding *f)
{
	long long interval;

	finding_expected(f, "vm.stat_interval of at least 10 s");
	if (!audit_need_integer(ctx, f, &interval, "/proc/sys/vm/stat_interval"))
		return;
	if (interval >= 10) {
		finding_pass(f, "per-CPU statistics fold every %lld s", interval);
		return;
	}
	finding_warn(f, "vmstat work runs on each CPU every %lld s", interval);
	finding_fix(f, "sysctl -w vm.stat_interval=10");
}

static void check_ksm(struct audit_context *ctx, struct audit_finding *f)
{
	long long run;
	int ret;

	finding_expected(f, "/sys/kernel/mm/ksm/run 0 (or 2 to unmerge)");
	ret = audit_read_optional_integer(ctx, f, &run, "/sys/kernel/mm/ksm/run");
	if (ret == -ENOENT)
		finding_pass(f, "no KSM in this kernel");
	if (ret)
		return;
	if (run != 1) {
		finding_pass(f, "ksmd is not merging pages");
		return;
	}
	finding_warn(f, "ksmd scans memory and merges pages, whose next write then faults");
	finding_fix(f, "echo 2 > /sys/kernel/mm/ksm/run");
}

static void check_swap(struct audit_context *ctx, struct audit_finding *f)
{
	char *swaps, *line;
	long long swappiness;
	unsigned int devices = 0;
	int ret;

	finding_expected(f, "no swap, or vm.swappiness of at most 10 (and RT memory locked)");
	ret = sysroot_read_alloc(ctx->root, &swaps, NULL, "/proc/swaps");
	if (ret) {
		finding_skip_unreadable(f, "/proc/swaps", ret);
		return;
	}
	/* the first line is the header: without it, the file is not what the kernel writes */
	if (strncmp(swaps, "Filename", 8)) {
		free(swaps);
		finding_evidence(f, "/proc/swaps", "no 'Filename Type Size ...' header");
		finding_skip(f, "cannot parse /proc/swaps");
		return;
	}
	line = strchr(swaps, '\n');
	while (line && *++line) {
		devices++;
		line = strchr(line, '\n');
	}
	free(swaps);
	finding_evidence(f, "/proc/swaps", "%u swap area%s", devices, devices == 1 ? "" : "s");
	if (!devices) {
		finding_pass(f, "no swap");
		return;
	}
	if (!audit_need_integer(ctx, f, &swappiness, "/proc/sys/vm/swappiness"))
		return;
	if (swappiness <= 10) {
		finding_pass(f, "swap on, swappiness %lld", swappiness);
		return;
	}
	finding_warn(f,
		     "swap on with swappiness %lld: unlocked memory of a process may be "
		     "swapped out and fault back in",
		     swappiness);
	finding_fix(f, "sysctl -w vm.swappiness=10 (or swapoff -a), and mlockall() in the RT "
		       "application");
}

/* "Max locked memory  8388608  8388608  bytes": the soft limit, -1 for unlimited */
static bool limit_of(const char *limits, const char *name, long long *soft)
{
	const char *line = strstr(limits, name), *p;
	char *end;

	if (!line)
		return false;
	p = line + strlen(name);
	while (*p == ' ')
		p++;
	if (!strncmp(p, "unlimited", 9)) {
		*soft = -1;
		return true;
	}
	*soft = strtoll(p, &end, 10);
	return end != p;
}

static void check_limits(struct audit_context *ctx, struct audit_finding *f)
{
	long long memlock, rtprio;
	char *limits;
	int ret;

	finding_expected(f, "memlock unlimited and rtprio above 0 for the RT user "
			    "(/etc/security/limits.d)");
	ret = sysroot_read_alloc(ctx->root, &limits, NULL, "/proc/self/limits");
	if (ret) {
		finding_skip_unreadable(f, "/proc/self/limits", ret);
		return;
	}
	if (!limit_of(limits, "Max locked memory", &memlock) ||
	    !limit_of(limits, "Max realtime priority", &rtprio)) {
		free(limits);
		finding_skip(f, "cannot parse /proc/self/limits");
		return;
	}
	free(limits);
	finding_evidence(f, "/proc/self/limits", "Max locked memory %lld%s", memlock,
			 memlock < 0 ? " (unlimited)" : " bytes");
	finding_evidence(f, "/proc/self/limits", "Max realtime priority %lld", rtprio);
	if (memlock < 0 && rtprio > 0) {
		finding_pass(f, "this session may lock all memory and use RT priorities");
		return;
	}
	finding_warn(f,
		     "in this session a process without CAP_IPC_LOCK and CAP_SYS_NICE "
		     "%s%s%s",
		     memlock >= 0 ? "cannot lock all its memory" : "",
		     memlock >= 0 && rtprio <= 0 ? " and " : "",
		     rtprio <= 0 ? "cannot use SCHED_FIFO" : "");
	finding_fix(f, "printf '@realtime - rtprio 98\\n@realtime - memlock unlimited\\n' > "
		       "/etc/security/limits.d/99-realtime.conf; add the RT user to group "
		       "realtime");
}

const struct audit_rule audit_memory_rules[] = {
	{ "mem.numa_balancing", "NUMA balancing and zone reclaim", AUDIT_MEDIUM,
	  "NUMA balancing unmaps pages periodically to sample accesses, so RT tasks take "
	  "hinting faults and page migrations.",
	  check_numa_balancing },
	{ "mem.thp", "Transparent hugepages", AUDIT_MEDIUM,
	  "A fault that allocates a hugepage may compact memory synchronously, and khugepaged "
	  "rewrites page tables in the background.",
	  check_thp },
	{ "mem.vmstat_interval", "vmstat interval", AUDIT_LOW,
	  "The vmstat worker folds per-CPU counters on every CPU once per interval.",
	  check_vmstat_interval },
	{ "mem.ksm", "Kernel samepage merging", AUDIT_LOW,
	  "Merged pages are copy-on-write: the first write after a merge faults.", check_ksm },
	{ "mem.swap", "Swap", AUDIT_LOW,
	  "A page swapped out faults back in from disk, milliseconds the RT task waits.",
	  check_swap },
	{ "mem.limits", "Memory locking and RT priority limits", AUDIT_LOW,
	  "An RT process must lock its memory and use a real-time policy; resource limits "
	  "decide whether it may without privileges.",
	  check_limits },
};
const size_t audit_memory_rule_count = ARRAY_SIZE(audit_memory_rules);
