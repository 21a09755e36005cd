// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "irq_fixture.h"
#include "latscope/audit.h"
#include "unit.h"

/* --- helpers --- */

static int run_audit(const char *dir, const struct cpuset *rt, struct audit_report *report)
{
	struct sysroot *root = sysroot_new(dir);
	struct topology topo;
	int ret;

	ck_assert_ptr_nonnull(root);
	ck_assert_int_eq(topology_load(root, &topo), 0);
	ret = audit_run(root, &topo, rt, report);
	topology_release(&topo);
	sysroot_free(root);
	return ret;
}

static const struct audit_finding *find(const struct audit_report *report, const char *id)
{
	const struct audit_finding *f = audit_report_find(report, id);

	ck_assert_msg(f != NULL, "no finding %s", id);
	return f;
}

/* what every finding must carry, whatever its status */
static void assert_well_formed(const struct audit_report *report)
{
	size_t i;

	ck_assert_uint_eq(report->nr_findings, audit_rule_count());
	for (i = 0; i < report->nr_findings; i++) {
		const struct audit_finding *f = &report->findings[i];

		ck_assert_msg(f->title && f->title[0] && f->why && f->why[0], "%s: no title or why",
			      f->id);
		ck_assert_msg(f->detail && f->detail[0], "%s: no detail", f->id);
		if (f->status != AUDIT_SKIP)
			ck_assert_msg(f->nr_evidence > 0, "%s: %s without evidence", f->id,
				      audit_status_name(f->status));
		if (f->status == AUDIT_FAIL || f->status == AUDIT_WARN)
			ck_assert_msg(f->fix && f->expected, "%s: no fix or expected", f->id);
	}
}

/* --- the three machines --- */

static void check_fixture(const char *name)
{
	char path[512], expected[8192], got[8192] = "";
	struct audit_report report;
	struct fixture_copy tree;
	size_t i, len;
	FILE *file;

	snprintf(path, sizeof(path), "%s/expected", FIXTURE(""));
	snprintf(path, sizeof(path), TEST_DATA_DIR "/%s/expected", name);
	file = fopen(path, "r");
	ck_assert_ptr_nonnull(file);
	len = fread(expected, 1, sizeof(expected) - 1, file);
	expected[len] = '\0';
	fclose(file);
	snprintf(path, sizeof(path), TEST_DATA_DIR "/%s", name);
	fixture_copy(&tree, path);
	ck_assert_int_eq(run_audit(tree.dir, NULL, &report), 0);
	assert_well_formed(&report);
	for (i = 0; i < report.nr_findings; i++)
		snprintf(got + strlen(got), sizeof(got) - strlen(got), "%s %s\n",
			 report.findings[i].id, audit_status_name(report.findings[i].status));
	ck_assert_msg(!strcmp(got, expected), "%s: findings differ from expected:\n%s", name, got);
	audit_report_release(&report);
	fixture_remove(&tree);
}

START_TEST(rt_box_matches_expected)
{
	check_fixture("check-rt-box");
}
END_TEST

START_TEST(workstation_matches_expected)
{
	check_fixture("check-workstation");
}
END_TEST

START_TEST(vm_matches_expected)
{
	check_fixture("check-vm");
}
END_TEST

START_TEST(rt_box_fails_nothing_at_medium_or_above)
{
	struct audit_report report;
	struct fixture_copy tree;

	fixture_copy(&tree, FIXTURE("check-rt-box"));
	ck_assert_int_eq(run_audit(tree.dir, NULL, &report), 0);
	ck_assert(!audit_fails_at(&report, AUDIT_MEDIUM));
	ck_assert(!audit_fails_at(&report, AUDIT_LOW));
	ck_assert_str_eq(cpuset_format_list(&report.rt_cpus, (char[32]){ 0 }, 32), "2-7");
	audit_report_release(&report);
	fixture_remove(&tree);
}
END_TEST

START_TEST(vm_skips_rt_rules_with_the_reason)
{
	const struct audit_finding *f;
	struct audit_report report;

	ck_assert_int_eq(run_audit(FIXTURE("check-vm"), NULL, &report), 0);
	f = find(&report, "irq.default_affinity");
	ck_assert_str_eq(f->detail, "no RT CPUs (none isolated or nohz_full; use --rt-cpus)");
	/* isolcpus=1 after "--" goes to init, not to the kernel */
	f = find(&report, "isolation.cpus");
	ck_assert_int_eq(f->status, AUDIT_WARN);
	ck_assert_ptr_nonnull(strstr(f->fix, "isolcpus=managed_irq,domain,1 "));
	ck_assert(audit_fails_at(&report, AUDIT_FATAL));
	ck_assert(!audit_fails_at(&report, AUDIT_NR_SEVERITIES));
	audit_report_release(&report);
}
END_TEST

START_TEST(rt_cpus_given_are_judged)
{
	const struct audit_finding *f;
	struct audit_report report;
	struct cpuset rt;

	cpuset_parse_list("1", &rt);
	ck_assert_int_eq(run_audit(FIXTURE("check-vm"), &rt, &report), 0);
	ck_assert(report.rt_cpus_given);
	f = find(&report, "irq.default_affinity");
	ck_assert_int_eq(f->status, AUDIT_FAIL);
	ck_assert_str_eq(f->fix,
			 "echo 1 > /proc/irq/default_smp_affinity; boot with irqaffinity=0");
	ck_assert_int_eq(find(&report, "isolation.cpus")->status, AUDIT_FAIL);
	audit_report_release(&report);
}
END_TEST

START_TEST(offline_rt_cpus_are_refused)
{
	struct audit_report report;
	struct cpuset rt;

	cpuset_parse_list("1,9", &rt);
	ck_assert_int_eq(run_audit(FIXTURE("check-vm"), &rt, &report), -EINVAL);
}
END_TEST

START_TEST(json_has_the_issue_fields)
{
	struct audit_report report;
	json_t *doc, *finding;
	size_t i;

	ck_assert_int_eq(run_audit(FIXTURE("check-workstation"), NULL, &report), 0);
	doc = audit_report_json(&report);
	ck_assert_ptr_nonnull(doc);
	ck_assert_str_eq(json_string_value(json_object_get(doc, "rt_cpus")), "2-3");
	ck_assert_str_eq(json_string_value(json_object_get(doc, "housekeeping_cpus")), "0-1,4-7");
	ck_assert_int_eq(json_array_size(json_object_get(doc, "findings")), report.nr_findings);
	json_array_foreach(json_object_get(doc, "findings"), i, finding)
	{
		static const char *const keys[] = { "id",	"title",    "severity", "status",
						    "evidence", "expected", "why",	"fix" };

		for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
			ck_assert_msg(json_object_get(finding, keys[k]), "finding %zu lacks %s", i,
				      keys[k]);
	}
	ck_assert_int_eq(
		json_integer_value(json_object_get(
			json_object_get(json_object_get(doc, "summary"), "failed"), "fatal")),
		1);
	json_decref(doc);
	audit_report_release(&report);
}
END_TEST

/* --- one rule at a time: a fixture, a few changed files, the status expected --- */

#define REMOVE ((const char *)1)
#define MAKE_DIRECTORY ((const char *)2)

struct change {
	const char *path;
	/* REMOVE, MAKE_DIRECTORY, the new text, or "hex:0a000000" for binary content */
	const char *text;
};

struct rule_case {
	const char *fixture;
	const char *id;
	enum audit_status status;
	struct change changes[6];
};

#define RT_BOX "check-rt-box"
#define WORKSTATION "check-workstation"
#define RT_CMDLINE                                                                              \
	"ro quiet isolcpus=managed_irq,domain,2-7 nohz_full=2-7 rcu_nocbs=2-7 irqaffinity=0-1 " \
	"skew_tick=1 nowatchdog tsc=reliable"
/* swap the rt box's /proc/config.gz for a /boot config holding only @text */
#define BOOT_CONFIG(text)                                                   \
	{ "proc/config.gz", REMOVE }, { "boot/config-6.12.0-rt5", (text) }, \
	{                                                                   \
		"sys/kernel/realtime", REMOVE                               \
	}
/* the CPU header of the rt box's /proc/interrupts, and nothing else */
#define RT_BOX_HEADER                                                                              \
	"           CPU0       CPU1       CPU2       CPU3       CPU4       CPU5       CPU6       " \
	"CPU7\n"
#define NOT_RT_VERSION                                              \
	{                                                           \
		"proc/sys/kernel/version", "#1 SMP PREEMPT_DYNAMIC" \
	}

#define VM "check-vm"
/* the vm's config swapped for one whose default governor samples, with ondemand as a module */
#define VM_SCHEDUTIL_CONFIG                                                            \
	{ "proc/config.gz", REMOVE },                                                  \
	{                                                                              \
		"boot/config-6.18.44-fc",                                              \
			"CONFIG_CPU_FREQ=y\nCONFIG_CPU_FREQ_DEFAULT_GOV_SCHEDUTIL=y\n" \
			"CONFIG_CPU_FREQ_GOV_ONDEMAND=m\n"                             \
	}
/*
 * A PCI config space of 256 bytes: a virtio device (1af4:1000, class
 * 020000) with a capability list (status bit 4, pointer 0x40): MSI-X at
 * 0x40, then @cap at 0x50, "10" a PCI Express capability, "09" a vendor one.
 */
#define ZEROS_16 "00000000000000000000000000000000"
#define PCI_HEADER "f41a0010000010000000000200000000"
#define PCI_CAPABILITY_POINTER "00000000400000000000000000000000"
#define PCI_MSIX_THEN_0X50 "11500000000000000000000000000000"
#define PCI_LAST_CAPABILITY(cap) cap "000000000000000000000000000000"
#define ZEROS_160 \
	ZEROS_16 ZEROS_16 ZEROS_16 ZEROS_16 ZEROS_16 ZEROS_16 ZEROS_16 ZEROS_16 ZEROS_16 ZEROS_16
#define PCI_CONFIG(cap)                                                               \
	"hex:" PCI_HEADER ZEROS_16 ZEROS_16 PCI_CAPABILITY_POINTER PCI_MSIX_THEN_0X50 \
	PCI_LAST_CAPABILITY(cap) ZEROS_160
#define RT_BOX_PCI_CONFIG "sys/bus/pci/devices/0000:01:00.0/config"
#define ASPM_DEFAULT                                                                        \
	{                                                                                   \
		"sys/module/pcie_aspm/parameters/policy", "[default] performance powersave" \
	}

static const struct rule_case rule_cases[] = {
	{ RT_BOX,
	  "kernel.preempt_rt",
	  AUDIT_FAIL,
	  { BOOT_CONFIG("CONFIG_PREEMPT=y\n"), NOT_RT_VERSION } },
	{ RT_BOX,
	  "kernel.preempt_rt",
	  AUDIT_PASS,
	  { BOOT_CONFIG("CONFIG_PREEMPT_RT=y\n"), NOT_RT_VERSION } },
	{ RT_BOX,
	  "kernel.preempt_model",
	  AUDIT_FAIL,
	  { BOOT_CONFIG("CONFIG_PREEMPT_NONE=y\nCONFIG_PREEMPT_DYNAMIC=y\n"), NOT_RT_VERSION } },
	{ RT_BOX,
	  "kernel.preempt_model",
	  AUDIT_PASS,
	  { BOOT_CONFIG("CONFIG_PREEMPT_NONE=y\nCONFIG_PREEMPT_DYNAMIC=y\n"),
	    NOT_RT_VERSION,
	    { "proc/cmdline", "ro preempt=full" } } },
	{ RT_BOX,
	  "kernel.preempt_model",
	  AUDIT_PASS,
	  { BOOT_CONFIG("CONFIG_PREEMPT_NONE=y\nCONFIG_PREEMPT_DYNAMIC=y\n"),
	    NOT_RT_VERSION,
	    { "sys/kernel/debug/sched/preempt", "none voluntary (full) lazy" } } },
	{ RT_BOX,
	  "kernel.preempt_model",
	  AUDIT_FAIL,
	  { BOOT_CONFIG("CONFIG_PREEMPT_VOLUNTARY=y\n"),
	    NOT_RT_VERSION,
	    /* preempt= means nothing without PREEMPT_DYNAMIC */
	    { "proc/cmdline", "ro preempt=full" } } },
	{ RT_BOX, "kernel.lock_debugging", AUDIT_FAIL, { BOOT_CONFIG("CONFIG_LOCK_STAT=y\n") } },
	{ RT_BOX,
	  "kernel.lock_debugging",
	  AUDIT_PASS,
	  { BOOT_CONFIG("# CONFIG_LOCK_STAT is not set\nCONFIG_LOCKDEP_SUPPORT=y\n") } },
	{ RT_BOX, "kernel.debug_options", AUDIT_FAIL, { BOOT_CONFIG("CONFIG_KASAN=y\n") } },
	{ RT_BOX,
	  "kernel.debug_options",
	  AUDIT_PASS,
	  { BOOT_CONFIG("CONFIG_DEBUG_KMEMLEAK=y\nCONFIG_DEBUG_KMEMLEAK_DEFAULT_OFF=y\n"
			"CONFIG_DEBUG_PAGEALLOC=y\nCONFIG_SLUB_DEBUG=y\n") } },
	{ RT_BOX,
	  "kernel.debug_options",
	  AUDIT_FAIL,
	  { BOOT_CONFIG("CONFIG_DEBUG_PAGEALLOC=y\n"),
	    { "proc/cmdline", "ro debug_pagealloc=on" } } },
	{ RT_BOX,
	  "kernel.debug_options",
	  AUDIT_FAIL,
	  { BOOT_CONFIG("CONFIG_SLUB_DEBUG=y\n"), { "proc/cmdline", "ro slub_debug=FZ" } } },
	{ RT_BOX,
	  "kernel.latency_tracers",
	  AUDIT_FAIL,
	  { BOOT_CONFIG("CONFIG_PREEMPT_TRACER=y\n") } },
	{ RT_BOX,
	  "kernel.lockup_detector",
	  AUDIT_FAIL,
	  { { "proc/sys/kernel/watchdog", "1" },
	    { "proc/sys/kernel/soft_watchdog", "1" },
	    { "proc/sys/kernel/watchdog_cpumask", "0-7" } } },
	{ RT_BOX,
	  "kernel.lockup_detector",
	  AUDIT_PASS,
	  { { "proc/sys/kernel/watchdog", "1" }, { "proc/sys/kernel/nmi_watchdog", "1" } } },
	{ RT_BOX,
	  "kernel.cpufreq_default_governor",
	  AUDIT_FAIL,
	  { BOOT_CONFIG("CONFIG_CPU_FREQ=y\nCONFIG_CPU_FREQ_DEFAULT_GOV_SCHEDUTIL=y\n") } },
	{ RT_BOX,
	  "kernel.cpufreq_default_governor",
	  AUDIT_PASS,
	  { BOOT_CONFIG("CONFIG_CPU_FREQ=y\n"),
	    { "proc/cmdline", "ro cpufreq.default_governor=performance" } } },
	{ RT_BOX,
	  "kernel.cpufreq_governors",
	  AUDIT_FAIL,
	  { BOOT_CONFIG("CONFIG_CPU_FREQ_GOV_ONDEMAND=y\n") } },
	/* no CPU has a cpufreq driver: whatever governor the build has runs nowhere */
	{ VM, "kernel.cpufreq_default_governor", AUDIT_PASS, { VM_SCHEDUTIL_CONFIG } },
	{ VM, "kernel.cpufreq_governors", AUDIT_PASS, { VM_SCHEDUTIL_CONFIG } },
	{ RT_BOX, "kernel.efi_runtime", AUDIT_FAIL, { BOOT_CONFIG("CONFIG_EFI=y\n") } },
	{ RT_BOX,
	  "kernel.efi_runtime",
	  AUDIT_PASS,
	  { BOOT_CONFIG("CONFIG_EFI=y\n"), { "proc/cmdline", "ro efi=debug,noruntime" } } },
	{ RT_BOX, "kernel.efi_runtime", AUDIT_PASS, { { "sys/firmware/efi", REMOVE } } },
	{ RT_BOX,
	  "kernel.tracing_active",
	  AUDIT_FAIL,
	  { { "sys/kernel/tracing/current_tracer", "function_graph" } } },
	{ RT_BOX,
	  "kernel.tracing_active",
	  AUDIT_FAIL,
	  { { "sys/kernel/tracing/instances/mine/current_tracer", "nop" },
	    { "sys/kernel/tracing/instances/mine/set_event", "irq:irq_handler_entry" },
	    { "sys/kernel/tracing/instances/mine/tracing_on", "1" } } },
	{ RT_BOX,
	  "kernel.tracing_active",
	  AUDIT_WARN,
	  { { "sys/kernel/tracing/set_event", "irq:irq_handler_entry" },
	    { "sys/kernel/tracing/tracing_on", "0" } } },
	{ RT_BOX, "kernel.tracing_active", AUDIT_SKIP, { { "sys/kernel/tracing", REMOVE } } },
	{ RT_BOX,
	  "cpu.governor",
	  AUDIT_FAIL,
	  { { "sys/devices/system/cpu/cpu3/cpufreq/scaling_governor", "powersave" } } },
	{ RT_BOX,
	  "cpu.governor",
	  AUDIT_PASS,
	  { { "sys/devices/system/cpu/cpu3/cpufreq/scaling_governor", "userspace" } } },
	{ RT_BOX,
	  "cpu.governor",
	  AUDIT_PASS,
	  /* a housekeeping CPU's governor does not matter */
	  { { "sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", "ondemand" } } },
	{ RT_BOX,
	  "cpu.idle_states",
	  AUDIT_FAIL,
	  { { "sys/devices/system/cpu/cpu4/cpuidle/state3/disable", "0" } } },
	{ RT_BOX,
	  "cpu.idle_states",
	  AUDIT_PASS,
	  { { "sys/devices/system/cpu/cpu4/cpuidle/state3/disable", "0" },
	    { "dev/cpu_dma_latency", "hex:0a000000" } /* a PM QoS request of 10 us */ } },
	{ RT_BOX,
	  "cpu.idle_states",
	  AUDIT_PASS,
	  { { "sys/devices/system/cpu/cpu4/cpuidle/state3/disable", "0" },
	    { "sys/devices/system/cpu/cpu4/power/pm_qos_resume_latency_us", "n/a" } } },
	{ RT_BOX,
	  "cpu.idle_states",
	  AUDIT_PASS,
	  { { "sys/devices/system/cpu/cpu4/cpuidle/state3/disable", "0" },
	    { "proc/cmdline", "ro idle=poll isolcpus=2-7" } } },
	{ RT_BOX,
	  "cpu.smt_siblings",
	  AUDIT_FAIL,
	  { { "sys/devices/system/cpu/smt/control", "on" },
	    { "sys/devices/system/cpu/cpu2/topology/thread_siblings_list", "1-2" } } },
	{ RT_BOX,
	  "cpu.smt_siblings",
	  AUDIT_PASS,
	  { { "sys/devices/system/cpu/smt/control", "on" },
	    { "sys/devices/system/cpu/cpu2/topology/thread_siblings_list", "2-3" } } },
	{ RT_BOX, "isolation.cpus", AUDIT_FAIL, { { "sys/devices/system/cpu/isolated", "3-7" } } },
	{ RT_BOX,
	  "isolation.cpus",
	  AUDIT_PASS,
	  /* an isolated cpuset partition isolates too */
	  { { "sys/devices/system/cpu/isolated", "3-7" },
	    { "sys/fs/cgroup/cpuset.cpus.isolated", "2" } } },
	{ RT_BOX,
	  "isolation.nohz_full",
	  AUDIT_WARN,
	  { { "sys/devices/system/cpu/nohz_full", "3-7" } } },
	/* 6.1 booted without nohz_full= prints the unallocated mask, padded to 8 cpu ids */
	{ RT_BOX,
	  "isolation.nohz_full",
	  AUDIT_WARN,
	  { { "sys/devices/system/cpu/nohz_full", "  (null)\n" } } },
	{ RT_BOX,
	  "isolation.nohz_full",
	  AUDIT_WARN,
	  { { "sys/devices/system/cpu/nohz_full", "(null)\n" } } },
	{ RT_BOX,
	  "isolation.rcu_nocbs",
	  AUDIT_FAIL,
	  { { "sys/devices/system/cpu/nohz_full", "3-7" },
	    { "proc/cmdline", "ro isolcpus=managed_irq,domain,2-7 rcu_nocbs=3-7" } } },
	{ RT_BOX,
	  "isolation.rcu_nocbs",
	  AUDIT_PASS,
	  { { "sys/devices/system/cpu/nohz_full", "3-7" },
	    { "proc/cmdline", "ro isolcpus=managed_irq,domain,2-7 rcu_nocbs" } } },
	{ RT_BOX,
	  "isolation.rcu_nocbs",
	  AUDIT_WARN,
	  { { "proc/20/status", "Name:\trcuop/2\nCpus_allowed_list:\t0-7" } } },
	{ RT_BOX,
	  "isolation.workqueues",
	  AUDIT_FAIL,
	  { { "sys/devices/virtual/workqueue/cpumask", "ff" } } },
	{ RT_BOX,
	  "isolation.workqueues",
	  AUDIT_FAIL,
	  { { "sys/devices/virtual/workqueue/cpumask", "0f" },
	    { "sys/devices/virtual/workqueue/writeback/cpumask", "0c" } } },
	{ RT_BOX,
	  "isolation.workqueues",
	  AUDIT_SKIP,
	  { { "sys/devices/virtual/workqueue/cpumask", "zz" } } },
	{ RT_BOX,
	  "isolation.kthreads",
	  AUDIT_WARN,
	  { { "proc/2/status", "Name:\tkthreadd\nCpus_allowed_list:\t0-7" } } },
	{ RT_BOX,
	  "isolation.kthreads",
	  AUDIT_PASS,
	  /* per-CPU kthreads are bound by the kernel */
	  { { "proc/14/status", "Name:\tksoftirqd/2\nCpus_allowed_list:\t0-7" } } },
	{ RT_BOX,
	  "isolation.processes",
	  AUDIT_WARN,
	  { { "proc/1/status", "Name:\tsystemd\nCpus_allowed_list:\t0-7" } } },
	{ RT_BOX,
	  "isolation.processes",
	  AUDIT_FAIL,
	  { { "proc/1/status", "Name:\tsystemd\nCpus_allowed_list:\t0-7" },
	    { "sys/devices/system/cpu/isolated", "3-7" } } },
	{ RT_BOX,
	  "irq.default_affinity",
	  AUDIT_FAIL,
	  { { "proc/irq/default_smp_affinity", "ff" } } },
	{ RT_BOX,
	  "irq.device_affinity",
	  AUDIT_FAIL,
	  { { "proc/irq/24/smp_affinity_list", "0-7" } } },
	{ RT_BOX,
	  "irq.device_affinity",
	  AUDIT_FAIL,
	  /* allowed on housekeeping CPUs only, but delivered to an RT CPU */
	  { { "proc/irq/24/effective_affinity_list", "5" } } },
	{ RT_BOX, "irq.managed", AUDIT_WARN, { { "proc/irq/25/effective_affinity_list", "3" } } },
	{ RT_BOX,
	  "irq.managed",
	  AUDIT_FAIL,
	  { { "proc/irq/25/effective_affinity_list", "3" },
	    { "proc/cmdline", "ro isolcpus=domain,2-7 nohz_full=2-7" } } },
	/* the counts since boot of a tree: a device interrupt served on cpu 3 */
	{ RT_BOX,
	  "irq.arriving",
	  AUDIT_WARN,
	  { { "proc/interrupts",
	      "           CPU0       CPU1       CPU2       CPU3       CPU4       CPU5       CPU6"
	      "       CPU7\n"
	      "  24:        900        300          0         17          0          0          0"
	      "          0 PCI-MSIX-0000:02:00.0   0-edge eth0-rx-0\n"
	      " LOC:       1000       1000       1000       1000       1000       1000       1000"
	      "       1000   Local timer interrupts\n" } } },
	{ RT_BOX, "irq.arriving", AUDIT_PASS, { { NULL, NULL } } },
	{ RT_BOX,
	  "irq.irqbalance",
	  AUDIT_FAIL,
	  { { "proc/900/stat", "900 (irqbalance) S 1 1 1 0 -1 4194560 0 0 0 0" },
	    { "proc/900/status", "Name:\tirqbalance\nCpus_allowed_list:\t0-1" },
	    { "proc/900/environ", "IRQBALANCE_BANNED_CPULIST=7" } } },
	{ RT_BOX,
	  "irq.irqbalance",
	  AUDIT_PASS,
	  { { "proc/900/stat", "900 (irqbalance) S 1 1 1 0 -1 4194560 0 0 0 0" },
	    { "proc/900/status", "Name:\tirqbalance\nCpus_allowed_list:\t0-1" },
	    { "proc/900/environ", "IRQBALANCE_BANNED_CPUS=fc" } } },
	{ RT_BOX,
	  "irq.irqbalance",
	  AUDIT_PASS,
	  /* without a ban list irqbalance bans the isolated and nohz_full CPUs itself */
	  { { "proc/900/stat", "900 (irqbalance) S 1 1 1 0 -1 4194560 0 0 0 0" },
	    { "proc/900/status", "Name:\tirqbalance\nCpus_allowed_list:\t0-1" },
	    { "proc/900/environ", "PATH=/usr/bin" } } },
	{ RT_BOX,
	  "irq.irqbalance",
	  AUDIT_FAIL,
	  /* no environment readable: the config file says what it was started with */
	  { { "proc/900/stat", "900 (irqbalance) S 1 1 1 0 -1 4194560 0 0 0 0" },
	    { "proc/900/status", "Name:\tirqbalance\nCpus_allowed_list:\t0-1" },
	    { "etc/default/irqbalance",
	      "#IRQBALANCE_ONESHOT=\nIRQBALANCE_BANNED_CPULIST=\"\"" } } },
	{ RT_BOX,
	  "sched.rt_throttling",
	  AUDIT_WARN,
	  { { "proc/sys/kernel/sched_rt_runtime_us", "950000" } } },
	{ RT_BOX,
	  "sched.rt_throttling",
	  AUDIT_WARN,
	  { { "sys/kernel/debug/sched/fair_server/cpu3/runtime", "50000000" } } },
	{ RT_BOX, "timer.migration", AUDIT_WARN, { { "proc/sys/kernel/timer_migration", "1" } } },
	{ RT_BOX, "timer.skew_tick", AUDIT_WARN, { { "proc/cmdline", "ro skew_tick=0" } } },
	{ RT_BOX,
	  "sched.hung_task",
	  AUDIT_WARN,
	  { { "proc/sys/kernel/hung_task_timeout_secs", "120" } } },
	{ RT_BOX,
	  "sched.hung_task",
	  AUDIT_PASS,
	  { { "proc/sys/kernel/hung_task_timeout_secs", REMOVE } } },
	{ WORKSTATION,
	  "mem.numa_balancing",
	  AUDIT_PASS,
	  { { "proc/sys/kernel/numa_balancing", "0" } } },
	{ WORKSTATION,
	  "mem.numa_balancing",
	  AUDIT_FAIL,
	  { { "proc/sys/kernel/numa_balancing", "0" }, { "proc/sys/vm/zone_reclaim_mode", "1" } } },
	{ RT_BOX,
	  "mem.numa_balancing",
	  AUDIT_PASS,
	  /* one node: nothing to balance */
	  { { "proc/sys/kernel/numa_balancing", "1" } } },
	{ RT_BOX,
	  "mem.thp",
	  AUDIT_FAIL,
	  { { "sys/kernel/mm/transparent_hugepage/enabled", "[always] madvise never" } } },
	{ RT_BOX,
	  "mem.thp",
	  AUDIT_WARN,
	  { { "sys/kernel/mm/transparent_hugepage/enabled", "always [madvise] never" } } },
	{ RT_BOX,
	  "mem.thp",
	  AUDIT_FAIL,
	  { { "sys/kernel/mm/transparent_hugepage/enabled", "always [madvise] never" },
	    { "sys/kernel/mm/transparent_hugepage/defrag", "[always] defer madvise never" } } },
	{ RT_BOX, "mem.vmstat_interval", AUDIT_WARN, { { "proc/sys/vm/stat_interval", "1" } } },
	{ RT_BOX, "mem.ksm", AUDIT_WARN, { { "sys/kernel/mm/ksm/run", "1" } } },
	{ RT_BOX,
	  "mem.swap",
	  AUDIT_WARN,
	  { { "proc/swaps", "Filename Type Size Used Priority\n/dev/sda3 partition 8388604 0 -2" },
	    { "proc/sys/vm/swappiness", "60" } } },
	{ RT_BOX,
	  "mem.swap",
	  AUDIT_PASS,
	  { { "proc/swaps",
	      "Filename Type Size Used Priority\n/dev/sda3 partition 8388604 0 -2" } } },
	{ RT_BOX,
	  "mem.limits",
	  AUDIT_WARN,
	  { { "proc/self/limits", "Max locked memory         65536   65536    bytes\n"
				  "Max realtime priority     99      99" } } },
	{ RT_BOX,
	  "timer.clocksource",
	  AUDIT_FAIL,
	  { { "sys/devices/system/clocksource/clocksource0/current_clocksource", "hpet" } } },
	{ RT_BOX,
	  "timer.clocksource",
	  AUDIT_WARN,
	  { { "sys/devices/system/clocksource/clocksource0/current_clocksource", "kvm-clock" } } },
	{ RT_BOX,
	  "platform.pcie_aspm",
	  AUDIT_WARN,
	  { { "sys/module/pcie_aspm/parameters/policy", "[default] performance powersave" } } },
	{ RT_BOX,
	  "platform.pcie_aspm",
	  AUDIT_PASS,
	  { { "sys/module/pcie_aspm/parameters/policy", "[default] performance powersave" },
	    { "proc/cmdline", "ro pcie_aspm=off" } } },
	{ RT_BOX, "platform.pcie_aspm", AUDIT_SKIP, { { "sys/module/pcie_aspm", REMOVE } } },
	/* every device on conventional PCI (a QEMU pc guest): no link to sleep */
	{ RT_BOX,
	  "platform.pcie_aspm",
	  AUDIT_PASS,
	  { ASPM_DEFAULT, { RT_BOX_PCI_CONFIG, PCI_CONFIG("09") } } },
	{ RT_BOX,
	  "platform.pcie_aspm",
	  AUDIT_WARN,
	  { ASPM_DEFAULT, { RT_BOX_PCI_CONFIG, PCI_CONFIG("10") } } },
	/* 64 bytes, as a user who is not root reads it: the list cannot be walked */
	{ RT_BOX,
	  "platform.pcie_aspm",
	  AUDIT_WARN,
	  { ASPM_DEFAULT,
	    { RT_BOX_PCI_CONFIG, "hex:" PCI_HEADER ZEROS_16 ZEROS_16 PCI_CAPABILITY_POINTER } } },
	{ RT_BOX,
	  "platform.machine_check",
	  AUDIT_WARN,
	  { { "sys/devices/system/machinecheck/machinecheck0/ignore_ce", "0" } } },
	{ RT_BOX,
	  "kernel.console_loglevel",
	  AUDIT_WARN,
	  { { "proc/sys/kernel/printk", "7 4 1 7" } } },
	{ RT_BOX,
	  "platform.virtualization",
	  AUDIT_WARN,
	  { { "proc/cpuinfo", "processor\t: 0\nflags\t\t: fpu tsc hypervisor" } } },
	{ RT_BOX,
	  "platform.mitigations",
	  AUDIT_WARN,
	  { { "sys/devices/system/cpu/vulnerabilities/spectre_v1",
	      "Mitigation: usercopy barriers" } } },
	{ RT_BOX,
	  "platform.mitigations",
	  AUDIT_PASS,
	  { { "sys/devices/system/cpu/vulnerabilities/spectre_v2", "Not affected" } } },
	/* bad input: never a crash, a skip with the reason */
	{ RT_BOX,
	  "timer.migration",
	  AUDIT_SKIP,
	  { { "proc/sys/kernel/timer_migration", "yes please" } } },
	{ RT_BOX,
	  "mem.vmstat_interval",
	  AUDIT_SKIP,
	  { { "proc/sys/vm/stat_interval", REMOVE },
	    { "proc/sys/vm/stat_interval", MAKE_DIRECTORY } } },
	{ RT_BOX,
	  "kernel.lock_debugging",
	  AUDIT_SKIP,
	  { { "proc/config.gz", "hex:1f8b0800deadbeef" } } },
	{ RT_BOX,
	  "irq.default_affinity",
	  AUDIT_SKIP,
	  { { "proc/irq/default_smp_affinity", "not a mask" } } },
	{ RT_BOX, "irq.device_affinity", AUDIT_SKIP, { { "proc/interrupts", "\x01\x02 binary" } } },
	{ RT_BOX,
	  "isolation.processes",
	  AUDIT_WARN,
	  /* a garbled stat line drops that task, not the audit */
	  { { "proc/1/status", "Name:\tsystemd\nCpus_allowed_list:\t0-7" },
	    { "proc/2/stat", "2 kthreadd no parentheses" } } },
	{ RT_BOX,
	  "cpu.governor",
	  AUDIT_PASS,
	  /* a CPU list nobody can parse in sysfs leaves the other CPUs judged */
	  { { "sys/devices/system/cpu/cpu3/cpufreq", REMOVE } } },
	{ RT_BOX,
	  "cpu.idle_states",
	  AUDIT_SKIP,
	  { { "sys/devices/system/cpu/cpuidle/current_driver", REMOVE },
	    { "sys/devices/system/cpu/cpuidle/current_driver", MAKE_DIRECTORY } } },
	/*
	 * No false pass: an input a verdict depends on that does not read or
	 * parse gives a skip (or the verdict the rest proves), never a pass.
	 */
	/* /proc/interrupts with its header only: the IRQs of /proc/irq are still judged */
	{ RT_BOX,
	  "irq.device_affinity",
	  AUDIT_FAIL,
	  { { "proc/interrupts", RT_BOX_HEADER }, { "proc/irq/24/smp_affinity_list", "0-7" } } },
	/* ... and without /sys/kernel/irq nothing says whether they have a handler */
	{ RT_BOX,
	  "irq.device_affinity",
	  AUDIT_SKIP,
	  { { "proc/interrupts", RT_BOX_HEADER },
	    { "proc/irq/24/smp_affinity_list", "0-7" },
	    { "sys/kernel/irq", REMOVE } } },
	{ RT_BOX, "irq.arriving", AUDIT_SKIP, { { "proc/interrupts", RT_BOX_HEADER } } },
	{ RT_BOX,
	  "irq.arriving",
	  AUDIT_SKIP,
	  { { "proc/interrupts", RT_BOX_HEADER
	      "  24:        900        300          0          0          0          0"
	      "          0          0 PCI-MSIX-0000:02:00.0   0-edge eth0-rx-0\n"
	      "  25:          x          0 broken\n" } } },
	/* an affinity that does not parse is no IRQ that is gone */
	{ RT_BOX,
	  "irq.device_affinity",
	  AUDIT_SKIP,
	  { { "proc/irq/24/smp_affinity_list", "99999" } } },
	{ RT_BOX,
	  "irq.device_affinity",
	  AUDIT_SKIP,
	  { { "proc/irq/24/smp_affinity_list", "5-2" } } },
	{ RT_BOX,
	  "irq.device_affinity",
	  AUDIT_SKIP,
	  { { "proc/irq/24/smp_affinity_list", "garbage" } } },
	{ RT_BOX, "irq.device_affinity", AUDIT_SKIP, { { "proc/irq/24/smp_affinity_list", "" } } },
	{ RT_BOX,
	  "irq.device_affinity",
	  AUDIT_SKIP,
	  { { "proc/irq/24/smp_affinity_list", REMOVE },
	    { "proc/irq/24/smp_affinity_list", MAKE_DIRECTORY } } },
	{ RT_BOX, "irq.managed", AUDIT_SKIP, { { "proc/irq/24/smp_affinity_list", "5-2" } } },
	{ RT_BOX,
	  "irq.device_affinity",
	  AUDIT_SKIP,
	  { { "proc/irq/24/effective_affinity_list", "zz" } } },
	/* no /proc/irq at all: no IRQ is gone, none can be judged */
	{ RT_BOX, "irq.device_affinity", AUDIT_SKIP, { { "proc/irq", REMOVE } } },
	/* an affinity of offline CPUs only is no answer either */
	{ RT_BOX,
	  "irq.device_affinity",
	  AUDIT_SKIP,
	  { { "proc/irq/24/smp_affinity_list", "12" } } },
	/* managed over 0-7: without its effective CPU, where it is delivered is unknown */
	{ RT_BOX, "irq.managed", AUDIT_SKIP, { { "proc/irq/26/effective_affinity_list", "zz" } } },
	/* a task whose stat or status does not read may be the one that matters */
	{ RT_BOX, "irq.irqbalance", AUDIT_SKIP, { { "proc/300/stat", "300 garbled" } } },
	{ RT_BOX,
	  "isolation.kthreads",
	  AUDIT_SKIP,
	  { { "proc/2/stat", "2 kthreadd no parentheses" } } },
	{ RT_BOX,
	  "isolation.processes",
	  AUDIT_SKIP,
	  { { "proc/1000/status", "Name:\trt-app\n" } } },
	{ RT_BOX,
	  "isolation.rcu_nocbs",
	  AUDIT_SKIP,
	  { { "proc/20/status", "Name:\trcuop/2\nCpus_allowed_list:\t5-2\n" } } },
	{ RT_BOX,
	  "isolation.workqueues",
	  AUDIT_SKIP,
	  { { "sys/devices/virtual/workqueue/writeback/cpumask", "zz" } } },
	{ RT_BOX,
	  "kernel.lockup_detector",
	  AUDIT_SKIP,
	  { { "proc/sys/kernel/watchdog", "1" },
	    { "proc/sys/kernel/nmi_watchdog", "garbage" },
	    { "proc/sys/kernel/watchdog_cpumask", "0-7" } } },
	/* ... unless the cpumask keeps whatever runs off the RT CPUs */
	{ RT_BOX,
	  "kernel.lockup_detector",
	  AUDIT_PASS,
	  { { "proc/sys/kernel/watchdog", "1" }, { "proc/sys/kernel/nmi_watchdog", "garbage" } } },
	{ RT_BOX,
	  "kernel.tracing_active",
	  AUDIT_SKIP,
	  { { "sys/kernel/tracing/current_tracer", REMOVE },
	    { "sys/kernel/tracing/current_tracer", MAKE_DIRECTORY } } },
	{ RT_BOX,
	  "cpu.idle_states",
	  AUDIT_SKIP,
	  /* C6 enabled, behind a name that does not read */
	  { { "sys/devices/system/cpu/cpu2/cpuidle/state3/disable", "0" },
	    { "sys/devices/system/cpu/cpu2/cpuidle/state3/name", REMOVE },
	    { "sys/devices/system/cpu/cpu2/cpuidle/state3/name", MAKE_DIRECTORY } } },
	{ RT_BOX,
	  "cpu.idle_states",
	  AUDIT_SKIP,
	  { { "sys/devices/system/cpu/cpu3/cpuidle/state3/disable", "0" },
	    { "sys/devices/system/cpu/cpu3/cpuidle/state3/latency", "garbage" } } },
	{ RT_BOX,
	  "cpu.smt_siblings",
	  AUDIT_FAIL,
	  { { "sys/devices/system/cpu/smt/control", "garbage" },
	    { "sys/devices/system/cpu/cpu2/topology/thread_siblings_list", "1-2" } } },
	{ RT_BOX,
	  "sched.rt_throttling",
	  AUDIT_SKIP,
	  { { "sys/kernel/debug/sched/fair_server/cpu2/runtime", "garbage" } } },
	{ RT_BOX, "mem.swap", AUDIT_SKIP, { { "proc/swaps", "garbage\n" } } },
	{ RT_BOX,
	  "platform.mitigations",
	  AUDIT_SKIP,
	  { { "sys/devices/system/cpu/vulnerabilities/spectre_v2", REMOVE },
	    { "sys/devices/system/cpu/vulnerabilities/spectre_v2", MAKE_DIRECTORY } } },
	{ RT_BOX,
	  "platform.virtualization",
	  AUDIT_SKIP,
	  { { "proc/cpuinfo", "processor\t: 0\nmodel name\t: a cpu\n" } } },
	{ RT_BOX,
	  "timer.clocksource",
	  AUDIT_SKIP,
	  { { "sys/devices/system/clocksource/clocksource0/current_clocksource", "kvm-clock" },
	    { "sys/devices/system/clocksource/clocksource0/available_clocksource", REMOVE },
	    { "sys/devices/system/clocksource/clocksource0/available_clocksource",
	      MAKE_DIRECTORY } } },
};

static void apply(const struct fixture_copy *tree, const struct change *change)
{
	char path[1024];

	snprintf(path, sizeof(path), "%s/%s", tree->dir, change->path);
	if (change->text == REMOVE) {
		unit_remove_tree(path);
	} else if (change->text == MAKE_DIRECTORY) {
		ck_assert_int_eq(mkdir(path, 0755), 0);
	} else {
		FILE *file;

		unit_make_parents(path);
		file = fopen(path, "w");
		ck_assert_ptr_nonnull(file);
		if (!strncmp(change->text, "hex:", 4)) {
			unsigned int byte;
			const char *hex;

			for (hex = change->text + 4; sscanf(hex, "%2x", &byte) == 1; hex += 2)
				fputc((int)byte, file);
		} else {
			fputs(change->text, file);
		}
		ck_assert_int_eq(fclose(file), 0);
	}
}

START_TEST(rule_case)
{
	const struct rule_case *c = &rule_cases[_i];
	const struct audit_finding *f;
	struct audit_report report;
	struct fixture_copy tree;
	char path[256];
	size_t k;

	snprintf(path, sizeof(path), TEST_DATA_DIR "/%s", c->fixture);
	fixture_copy(&tree, path);
	for (k = 0; k < sizeof(c->changes) / sizeof(c->changes[0]) && c->changes[k].path; k++)
		apply(&tree, &c->changes[k]);
	ck_assert_int_eq(run_audit(tree.dir, NULL, &report), 0);
	assert_well_formed(&report);
	f = find(&report, c->id);
	ck_assert_msg(f->status == c->status, "case %d, %s: %s (%s), expected %s", _i, c->id,
		      audit_status_name(f->status), f->detail, audit_status_name(c->status));
	audit_report_release(&report);
	fixture_remove(&tree);
}
END_TEST

/*
 * Rules that only watch the live machine reach no verdict in a tree; the
 * live audit's system test runs them where the machine can (an SMI counter
 * needs the msr PMU's smi event, which the development VM lacks).
 */
static const char *const live_only_rules[] = { "platform.smi" };

static bool live_only(const char *id)
{
	size_t i;

	for (i = 0; i < sizeof(live_only_rules) / sizeof(live_only_rules[0]); i++)
		if (!strcmp(live_only_rules[i], id))
			return true;
	return false;
}

/* The auditing process's own tracing session (the monitor's --explain) is not the machine's. */
START_TEST(own_tracing_session_is_not_a_finding)
{
	const struct audit_finding *f;
	struct audit_report report;
	struct fixture_copy tree;
	char own[256], other[256];
	pid_t pids[] = { getpid(), getpid() + 1 }; /* mine, then another's */
	unsigned int i;

	for (i = 0; i < 2; i++) {
		fixture_copy(&tree, TEST_DATA_DIR "/" RT_BOX);
		snprintf(own, sizeof(own), "sys/kernel/tracing/instances/latscope-%d/set_event",
			 (int)pids[i]);
		apply(&tree, &(struct change){ own, "irq:irq_handler_entry" });
		snprintf(other, sizeof(other),
			 "sys/kernel/tracing/instances/latscope-%d/tracing_on", (int)pids[i]);
		apply(&tree, &(struct change){ other, "1" });
		ck_assert_int_eq(run_audit(tree.dir, NULL, &report), 0);
		f = find(&report, "kernel.tracing_active");
		ck_assert_msg(f->status == (i ? AUDIT_FAIL : AUDIT_PASS), "%s: %s (%s)", own,
			      audit_status_name(f->status), f->detail);
		audit_report_release(&report);
		fixture_remove(&tree);
	}
}
END_TEST

START_TEST(every_rule_has_a_failing_case)
{
	size_t i, k;

	for (i = 0; i < audit_rule_count(); i++) {
		const char *id = audit_rule_id(i);
		bool bad = live_only(id);

		for (k = 0; k < sizeof(rule_cases) / sizeof(rule_cases[0]); k++)
			if (!strcmp(rule_cases[k].id, id) && (rule_cases[k].status == AUDIT_FAIL ||
							      rule_cases[k].status == AUDIT_WARN))
				bad = true;
		ck_assert_msg(bad, "rule %s has no fail or warn case", id);
	}
}
END_TEST

START_TEST(an_empty_tree_does_not_crash)
{
	struct audit_report report;
	struct fixture_copy tree;

	fixture_copy(&tree, FIXTURE("numa2-smt"));
	ck_assert_int_eq(run_audit(tree.dir, NULL, &report), 0);
	assert_well_formed(&report);
	audit_report_release(&report);
	fixture_remove(&tree);
}
END_TEST

/* IRQ 25 of the rt box, managed (0444), now allowed and delivered on RT cpu 3 */
static void managed_irq_on_cpu_3(struct fixture_copy *tree)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/proc/irq/25/smp_affinity_list", tree->dir);
	ck_assert_int_eq(chmod(path, 0644), 0);
	fixture_put(tree, "proc/irq/25/smp_affinity_list", "3\n");
	ck_assert_int_eq(chmod(path, 0444), 0);
	fixture_put(tree, "proc/irq/25/effective_affinity_list", "3\n");
}

static bool evidence_names(const struct audit_finding *f, const char *path)
{
	size_t i;

	for (i = 0; i < f->nr_evidence; i++)
		if (!strcmp(f->evidence[i].path, path))
			return true;
	return false;
}

/*
 * A managed IRQ on an RT CPU is irq.managed's to judge: irq.device_affinity
 * neither lists it nor writes it in its fix (the kernel would refuse it).
 */
START_TEST(managed_irqs_are_left_to_irq_managed)
{
	const struct audit_finding *device, *managed;
	struct audit_report report;
	struct fixture_copy tree;

	fixture_copy(&tree, FIXTURE(RT_BOX));
	managed_irq_on_cpu_3(&tree);
	ck_assert_int_eq(run_audit(tree.dir, NULL, &report), 0);
	device = find(&report, "irq.device_affinity");
	ck_assert_int_eq(device->status, AUDIT_PASS);
	ck_assert(!evidence_names(device, "/proc/irq/25/smp_affinity_list"));
	managed = find(&report, "irq.managed");
	ck_assert_int_eq(managed->status, AUDIT_WARN);
	ck_assert(evidence_names(managed, "/proc/irq/25/smp_affinity_list"));
	audit_report_release(&report);

	/* with a movable IRQ on the RT cpus too: that one alone is listed and fixed */
	fixture_put(&tree, "proc/irq/24/smp_affinity_list", "0-7\n");
	ck_assert_int_eq(run_audit(tree.dir, NULL, &report), 0);
	device = find(&report, "irq.device_affinity");
	ck_assert_int_eq(device->status, AUDIT_FAIL);
	ck_assert_str_eq(device->detail, "1 IRQs may fire on RT CPUs 2-7");
	ck_assert(evidence_names(device, "/proc/irq/24/smp_affinity_list"));
	ck_assert(!evidence_names(device, "/proc/irq/25/smp_affinity_list"));
	ck_assert_str_eq(device->fix,
			 "for i in 24; do echo 0-1 > /proc/irq/$i/smp_affinity_list; done");
	ck_assert_int_eq(find(&report, "irq.managed")->status, AUDIT_WARN);
	audit_report_release(&report);

	/* without managed_irq: the boot line is the fix, but this queue has only cpu 3 */
	fixture_put(&tree, "proc/cmdline", "ro isolcpus=domain,2-7 nohz_full=2-7\n");
	ck_assert_int_eq(run_audit(tree.dir, NULL, &report), 0);
	managed = find(&report, "irq.managed");
	ck_assert_int_eq(managed->status, AUDIT_FAIL);
	ck_assert_ptr_nonnull(strstr(managed->fix, "boot with isolcpus=managed_irq,domain,2-7; "
						   "IRQs 25 stay even then"));
	audit_report_release(&report);
	fixture_remove(&tree);
}
END_TEST

/* Details and fixes say what is true of the machine judged. */
START_TEST(details_fit_the_machine)
{
	const struct audit_finding *f;
	struct audit_report report;
	struct fixture_copy tree;

	/* no RT cpus: a watchdog_cpumask of every cpu would change nothing */
	ck_assert_int_eq(run_audit(FIXTURE(VM), NULL, &report), 0);
	f = find(&report, "kernel.lockup_detector");
	ck_assert_int_eq(f->status, AUDIT_WARN);
	ck_assert_ptr_null(strstr(f->fix, "watchdog_cpumask=0-1"));
	ck_assert_ptr_nonnull(strstr(f->fix, "sysctl -w kernel.watchdog=0"));
	audit_report_release(&report);

	/* smt/control's word, said in words */
	fixture_copy(&tree, FIXTURE(RT_BOX));
	fixture_put(&tree, "sys/devices/system/cpu/smt/control", "notsupported\n");
	ck_assert_int_eq(run_audit(tree.dir, NULL, &report), 0);
	f = find(&report, "cpu.smt_siblings");
	ck_assert_int_eq(f->status, AUDIT_PASS);
	ck_assert_str_eq(f->detail, "SMT is not supported by the CPU");
	audit_report_release(&report);

	/* a kthread allowed everywhere, on nohz_full RT cpus: the boot line did its part */
	fixture_put(&tree, "proc/2/status", "Name:\tkthreadd\nCpus_allowed_list:\t0-7");
	ck_assert_int_eq(run_audit(tree.dir, NULL, &report), 0);
	f = find(&report, "isolation.kthreads");
	ck_assert_int_eq(f->status, AUDIT_WARN);
	ck_assert_ptr_nonnull(strstr(f->fix, "nohz_full= already keeps new kthreads off"));
	audit_report_release(&report);
	/* isolated without nohz_full: isolcpus=domain leaves new kthreads everywhere */
	fixture_put(&tree, "sys/devices/system/cpu/nohz_full", "\n");
	ck_assert_int_eq(run_audit(tree.dir, NULL, &report), 0);
	f = find(&report, "isolation.kthreads");
	ck_assert_int_eq(f->status, AUDIT_WARN);
	ck_assert_ptr_nonnull(strstr(f->fix, "(boot with nohz_full=2-7 to keep new kthreads off "
					     "them; isolcpus=domain does not)"));
	audit_report_release(&report);

	/* no cpufreq driver: the governors pass, saying why */
	fixture_remove(&tree);
	fixture_copy(&tree, FIXTURE(VM));
	{
		const struct change config[] = { VM_SCHEDUTIL_CONFIG };

		apply(&tree, &config[0]);
		apply(&tree, &config[1]);
	}
	ck_assert_int_eq(run_audit(tree.dir, NULL, &report), 0);
	f = find(&report, "kernel.cpufreq_default_governor");
	ck_assert_str_eq(f->detail, "the default governor is not performance, but no CPU has a "
				    "cpufreq driver: no governor runs");
	f = find(&report, "kernel.cpufreq_governors");
	ck_assert_str_eq(f->detail, "enabled: CONFIG_CPU_FREQ_GOV_ONDEMAND, but no CPU has a "
				    "cpufreq driver: no governor runs");
	ck_assert_ptr_null(f->fix);
	audit_report_release(&report);
	fixture_remove(&tree);
}
END_TEST

START_TEST(live_machine_audits)
{
	struct audit_report report;

	ck_assert_int_eq(run_audit("/", NULL, &report), 0);
	assert_well_formed(&report);
	audit_report_release(&report);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("audit");
	TCase *machines = tcase_create("machines"), *rules = tcase_create("rules");

	tcase_add_test(machines, rt_box_matches_expected);
	tcase_add_test(machines, workstation_matches_expected);
	tcase_add_test(machines, vm_matches_expected);
	tcase_add_test(machines, rt_box_fails_nothing_at_medium_or_above);
	tcase_add_test(machines, vm_skips_rt_rules_with_the_reason);
	tcase_add_test(machines, rt_cpus_given_are_judged);
	tcase_add_test(machines, offline_rt_cpus_are_refused);
	tcase_add_test(machines, json_has_the_issue_fields);
	tcase_add_test(machines, an_empty_tree_does_not_crash);
	tcase_add_test(machines, live_machine_audits);
	tcase_add_test(machines, managed_irqs_are_left_to_irq_managed);
	tcase_add_test(machines, details_fit_the_machine);
	tcase_add_loop_test(rules, rule_case, 0, sizeof(rule_cases) / sizeof(rule_cases[0]));
	tcase_add_test(rules, every_rule_has_a_failing_case);
	tcase_add_test(rules, own_tracing_session_is_not_a_finding);
	tcase_set_timeout(rules, 120);
	suite_add_tcase(s, machines);
	suite_add_tcase(s, rules);
	return unit_run(s);
}
