// SPDX-License-Identifier: GPL-2.0-or-later
/* Rules about the platform under the kernel: clocks, PCIe, firmware, hypervisor, console. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit_internal.h"
#include "latscope/cpuinfo.h"

#define CLOCK_DIR "/sys/devices/system/clocksource/clocksource0"

static bool in_list(const char *name, const char *const *list, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(name, list[i]))
			return true;
	return false;
}

static void check_clocksource(struct audit_context *ctx, struct audit_finding *f)
{
	/* read through the vDSO in tens of nanoseconds */
	static const char *const fast[] = { "tsc", "arch_sys_counter", "timebase",
					    "riscv_clocksource" };
	/* read through an I/O port or MMIO access: a microsecond or more */
	static const char *const slow[] = { "hpet", "acpi_pm", "jiffies", "pit", "i8253" };
	char current[64], available[256] = "";
	int available_ret;

	finding_expected(f, "a CPU-local clocksource (tsc on x86)");
	if (!audit_need_read(ctx, f, current, sizeof(current), CLOCK_DIR "/current_clocksource"))
		return;
	/* the fix depends on it; only "no tsc offered" is a verdict that needs it */
	available_ret = audit_read(ctx, f, available, sizeof(available),
				   CLOCK_DIR "/available_clocksource");
	if (available_ret < 0)
		available[0] = '\0';
	audit_cmdline(ctx, f, "tsc", NULL, 0);
	if (in_list(current, fast, ARRAY_SIZE(fast))) {
		finding_pass(f, "clocksource %s", current);
		return;
	}
	if (in_list(current, slow, ARRAY_SIZE(slow))) {
		finding_fail(f, "clocksource %s: every clock read costs microseconds", current);
		finding_fix(f, "%s",
			    words_have(available, "tsc") ?
				    "echo tsc > " CLOCK_DIR "/current_clocksource "
				    "(boot: clocksource=tsc, tsc=reliable if the TSC is "
				    "known stable)" :
				    "find why no CPU-local clocksource is available "
				    "(dmesg | grep -iE 'clocksource|tsc')");
		return;
	}
	if (words_have(available, "tsc")) {
		finding_warn(f, "clocksource %s although tsc is available", current);
		finding_fix(f, "echo tsc > " CLOCK_DIR "/current_clocksource (boot: "
			       "clocksource=tsc)");
		return;
	}
	if (available_ret < 0) {
		finding_skip_unreadable(f, CLOCK_DIR "/available_clocksource", available_ret);
		return;
	}
	finding_pass(f, "clocksource %s (paravirtual; no tsc offered)", current);
}

#define PCI_DIR "/sys/bus/pci/devices"
/* config space: the status register, its capability list bit, the header type */
#define PCI_STATUS 0x06
#define PCI_STATUS_CAP_LIST 0x10
#define PCI_HEADER_TYPE 0x0e
#define PCI_CAPABILITY_LIST 0x34
#define PCI_CB_CAPABILITY_LIST 0x14 /* a CardBus bridge's */
#define PCI_CAP_ID_EXP 0x10

/* 1 when the config space has a PCI Express capability, 0 when not, -1 when it cannot tell */
static int has_express_capability(const unsigned char *config, size_t len)
{
	unsigned int at, hops;

	/* 64 bytes without CAP_SYS_ADMIN: the list is past them */
	if (len < 256)
		return -1;
	if (!(config[PCI_STATUS] & PCI_STATUS_CAP_LIST))
		return 0;
	at = config[(config[PCI_HEADER_TYPE] & 0x7f) == 2 ? PCI_CB_CAPABILITY_LIST :
							    PCI_CAPABILITY_LIST];
	/* 48 capabilities fit the 192 bytes after the header: a longer chain loops */
	for (hops = 0; hops < 48; hops++) {
		at &= 0xfc;
		if (at < 0x40)
			return 0;
		if (config[at] == PCI_CAP_ID_EXP)
			return 1;
		at = config[at + 1];
	}
	return -1;
}

/*
 * Whether this machine has a PCI Express device at all: 0 when every
 * device's config space reads and none has the capability (a guest on a
 * conventional PCI bus: no link can enter a power-saving state), 1 when
 * one has it, -1 when it cannot be told (no device listed, a config space
 * unreadable, a tree without them). @nr_devices receives the count.
 */
static int express_devices(struct audit_context *ctx, unsigned int *nr_devices)
{
	struct dirent *entry;
	int verdict = 0;
	DIR *dir;

	*nr_devices = 0;
	dir = sysroot_opendir(ctx->root, PCI_DIR);
	if (!dir)
		return -1;
	while (verdict == 0 && (entry = readdir(dir))) {
		unsigned char *config;
		size_t len;

		if (entry->d_name[0] == '.')
			continue;
		(*nr_devices)++;
		if (sysroot_read_alloc(ctx->root, (char **)&config, &len, PCI_DIR "/%s/config",
				       entry->d_name)) {
			verdict = -1;
			break;
		}
		verdict = has_express_capability(config, len);
		free(config);
	}
	closedir(dir);
	return *nr_devices ? verdict : -1;
}

static void check_pcie_aspm(struct audit_context *ctx, struct audit_finding *f)
{
	char text[128], policy[32], value[32];
	unsigned int nr_devices;
	int ret;

	finding_expected(f, "PCIe ASPM policy performance (or pcie_aspm=off)");
	if (audit_cmdline(ctx, f, "pcie_aspm", value, sizeof(value)) && !strcmp(value, "off")) {
		finding_pass(f, "pcie_aspm=off: links never enter power-saving states");
		return;
	}
	ret = audit_read(ctx, f, text, sizeof(text), "/sys/module/pcie_aspm/parameters/policy");
	if (ret == -ENOENT) {
		finding_skip(f, "the kernel does not manage PCIe ASPM (no "
				"/sys/module/pcie_aspm): the firmware's setting stays");
		return;
	}
	if (ret < 0) {
		finding_skip_unreadable(f, "/sys/module/pcie_aspm/parameters/policy", ret);
		return;
	}
	audit_selected_word(text, policy, sizeof(policy));
	if (!policy[0]) {
		finding_skip(f, "cannot parse /sys/module/pcie_aspm/parameters/policy");
		return;
	}
	if (!strcmp(policy, "performance")) {
		finding_pass(f, "ASPM policy performance");
		return;
	}
	if (!express_devices(ctx, &nr_devices)) {
		finding_evidence(f, PCI_DIR "/*/config",
				 "%u devices, none with a PCI Express "
				 "capability",
				 nr_devices);
		finding_pass(f, "ASPM policy %s, but no PCI Express device: no link to sleep",
			     policy);
		return;
	}
	finding_warn(f,
		     "ASPM policy %s: links may sleep and take microseconds to wake for a "
		     "DMA or an interrupt",
		     policy);
	finding_fix(f, "echo performance > /sys/module/pcie_aspm/parameters/policy (boot: "
		       "pcie_aspm.policy=performance)");
}

static void check_machine_check(struct audit_context *ctx, struct audit_finding *f)
{
	static const char path[] = "/sys/devices/system/machinecheck/machinecheck0/ignore_ce";
	long long ignore;
	int ret;

	finding_expected(f, "machinecheck ignore_ce=1 (no corrected-error polling)");
	ret = audit_read_optional_integer(ctx, f, &ignore, path);
	if (ret == -ENOENT)
		finding_skip(f, "no machine-check sysfs (not x86, or no MCE in this machine)");
	if (ret)
		return;
	if (ignore) {
		finding_pass(f, "corrected errors are not polled");
		return;
	}
	finding_warn(f, "a timer polls each CPU's machine-check banks for corrected errors");
	finding_fix(f, "echo 1 > %s (it applies to every CPU)", path);
}

static void check_console(struct audit_context *ctx, struct audit_finding *f)
{
	char text[64], console[128];
	long long level;
	bool serial;

	finding_expected(f, "console loglevel at most 4 (quiet)");
	if (!audit_need_read(ctx, f, text, sizeof(text), "/proc/sys/kernel/printk"))
		return;
	if (sscanf(text, "%lld", &level) != 1) {
		finding_skip(f, "cannot parse /proc/sys/kernel/printk");
		return;
	}
	serial = audit_cmdline(ctx, f, "console", console, sizeof(console)) &&
		 (!strncmp(console, "ttyS", 4) || !strncmp(console, "ttyAMA", 6));
	if (level <= 4) {
		finding_pass(f, "console loglevel %lld", level);
		return;
	}
	finding_warn(f,
		     "console loglevel %lld: warnings and notices are printed to the "
		     "%sconsole, synchronously",
		     level, serial ? "serial " : "");
	finding_fix(f, "sysctl -w kernel.printk='4 4 1 7' (boot: quiet)");
}

/* the steal column of /proc/stat's cpu line: time the hypervisor ran something else */
static bool steal_ticks(struct audit_context *ctx, long long *steal)
{
	char line[512];
	long long v[8];
	int ret;

	/* only the first line is needed: a file longer than the buffer is fine */
	ret = sysroot_read(ctx->root, line, sizeof(line), "/proc/stat");
	if (ret < 0 && ret != -EFBIG)
		return false;
	if (sscanf(line, "cpu %lld %lld %lld %lld %lld %lld %lld %lld", &v[0], &v[1], &v[2], &v[3],
		   &v[4], &v[5], &v[6], &v[7]) != 8)
		return false;
	*steal = v[7];
	return true;
}

static void check_virtualization(struct audit_context *ctx, struct audit_finding *f)
{
	char *flags, type[64], driver[64];
	bool hypervisor, have_flags;
	long long steal;

	finding_expected(f, "bare metal, or a guest whose vCPUs the host pins and isolates");
	if (cpuinfo_flags(ctx->root, &flags)) {
		finding_skip(f, "cannot read /proc/cpuinfo");
		return;
	}
	hypervisor = words_have(flags, "hypervisor");
	/* no flags line (not x86, or not what the kernel writes): its silence proves nothing */
	have_flags = flags[0] != '\0';
	free(flags);
	finding_evidence(f, "/proc/cpuinfo", "%s",
			 hypervisor ? "flag hypervisor" :
			 have_flags ? "no hypervisor flag" :
				      "no flags line");
	if (audit_read(ctx, f, type, sizeof(type), "/sys/hypervisor/type") >= 0)
		hypervisor = true;
	else
		type[0] = '\0';
	if (!hypervisor && !have_flags) {
		finding_skip(f, "/proc/cpuinfo has no flags line to tell a guest from bare metal, "
				"and there is no /sys/hypervisor/type");
		return;
	}
	if (!hypervisor) {
		finding_pass(f, "no hypervisor seen");
		return;
	}
	if (steal_ticks(ctx, &steal))
		finding_evidence(f, "/proc/stat", "steal %lld ticks since boot", steal);
	audit_read(ctx, f, driver, sizeof(driver),
		   "/sys/devices/system/cpu/cpuidle/current_driver");
	finding_warn(f,
		     "running under a hypervisor%s%s: the host decides when this vCPU "
		     "runs, so latency is bounded by the host",
		     type[0] ? " of type " : "", type);
	finding_fix(f, "on the host: pin each vCPU to an isolated host CPU and run an RT "
		       "kernel there; in the guest: idle=poll or cpuidle haltpoll; measure with "
		       "latscope noise");
}

static void check_mitigations(struct audit_context *ctx, struct audit_finding *f)
{
	static const char dir_path[] = "/sys/devices/system/cpu/vulnerabilities";
	char text[512], names[256] = "";
	unsigned int active = 0, listed = 0, unreadable = 0;
	struct dirent *entry;
	DIR *dir;

	finding_expected(f, "a conscious choice: mitigations cost syscall and context-switch "
			    "time (report only)");
	audit_cmdline(ctx, f, "mitigations", NULL, 0);
	dir = sysroot_opendir(ctx->root, "%s", dir_path);
	if (!dir) {
		finding_skip(f, "no %s", dir_path);
		return;
	}
	while ((entry = readdir(dir))) {
		char path[320];
		int ret;

		if (entry->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir_path, entry->d_name);
		ret = sysroot_read(ctx->root, text, sizeof(text), "%s", path);
		if (ret < 0 && ret != -ENOENT) {
			/* one that does not read may be a mitigation */
			finding_evidence(f, path, "unreadable: %s", strerror(-ret));
			unreadable++;
			continue;
		}
		if (ret < 0 || strncmp(text, "Mitigation", 10))
			continue;
		active++;
		audit_evidence_listed(f, &listed, path, "%s", text);
		audit_list_append(names, sizeof(names), "%s", entry->d_name);
	}
	closedir(dir);
	audit_evidence_rest(f, listed, dir_path, "mitigations");
	if (!active && unreadable) {
		finding_skip(f, "no mitigation found, but %u files of %s did not read", unreadable,
			     dir_path);
		return;
	}
	if (!active) {
		finding_pass(f, "no mitigation active");
		return;
	}
	finding_warn(f, "%u mitigations active (%s)", active, names);
	finding_fix(f, "a trade-off, not a defect: mitigations=off removes their cost and "
		       "their protection; decide by threat model");
}

/*
 * SMIs stop every CPU for as long as the firmware likes; no kernel event
 * shows them. The msr PMU counts them where the CPU has the counter.
 */
static void check_smi(struct audit_context *ctx, struct audit_finding *f)
{
	const struct counters_run *sample;
	unsigned int listed = 0;
	uint64_t total = 0, count;
	const char *why;
	int cpu;

	finding_expected(f, "no SMI on RT CPUs");
	if (!audit_need_rt(ctx, f))
		return;
	sample = audit_sample(ctx, f);
	if (!sample)
		return;
	cpuset_for_each(cpu, &ctx->rt) {
		if (!counters_smi(sample, (unsigned int)cpu, &count, &why)) {
			finding_evidence(f, "/sys/bus/event_source/devices/msr", "%s", why);
			finding_skip(f,
				     "SMIs cannot be counted here (%s); latscope noise shows the "
				     "time no event explains",
				     why);
			return;
		}
		total += count;
		audit_evidence_listed(f, &listed, "msr/smi", "cpu %d: %llu SMIs in 20 ms%s", cpu,
				      (unsigned long long)count,
				      counters_smi_in_guest(sample) ? " (as this guest sees them)" :
								      "");
	}
	finding_fix(f, "in the firmware setup: disable legacy USB emulation, OS-invisible power "
		       "management and error reporting SMIs; measure with latscope noise");
	if (total)
		finding_fail(f, "%llu SMIs on RT CPUs in 20 ms", (unsigned long long)total);
	else
		finding_pass(f, "no SMI on RT CPUs in 20 ms");
}

const struct audit_rule audit_platform_rules[] = {
	{ "timer.clocksource", "Clocksource", AUDIT_MEDIUM,
	  "Every timestamp and timer reads the clocksource; an I/O-port or MMIO clock costs "
	  "microseconds per read.",
	  check_clocksource },
	{ "platform.pcie_aspm", "PCIe ASPM", AUDIT_MEDIUM,
	  "A PCIe link in a low-power state takes microseconds to wake for a DMA or an "
	  "interrupt.",
	  check_pcie_aspm },
	{ "platform.smi", "System management interrupts", AUDIT_HIGH,
	  "An SMI takes every CPU into firmware for microseconds to milliseconds, unseen by the "
	  "kernel.",
	  check_smi },
	{ "platform.machine_check", "Corrected machine-check polling", AUDIT_LOW,
	  "Polling for corrected machine-check errors runs a timer on every CPU.",
	  check_machine_check },
	{ "kernel.console_loglevel", "Console log level", AUDIT_LOW,
	  "printk writes to the console synchronously, slowly on a serial line, with "
	  "interrupts off on non-RT kernels.",
	  check_console },
	{ "platform.virtualization", "Virtualization", AUDIT_INFO,
	  "In a guest the host can preempt a vCPU at any time: no guest setting bounds that "
	  "latency.",
	  check_virtualization },
	{ "platform.mitigations", "CPU vulnerability mitigations", AUDIT_INFO,
	  "Speculation mitigations add work to every syscall, interrupt and context switch.",
	  check_mitigations },
};
const size_t audit_platform_rule_count = ARRAY_SIZE(audit_platform_rules);
