// SPDX-License-Identifier: GPL-2.0-or-later
/* Rules about how the kernel was built and booted: preemption, debug options, watchdogs. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "audit_internal.h"

/* Whether the running kernel is PREEMPT_RT, from every source that says so. */
static bool kernel_is_rt(struct audit_context *ctx, struct audit_finding *f, bool *known)
{
	char version[512];
	long long realtime;
	bool rt = false;

	*known = false;
	if (!audit_read_integer(ctx, f, &realtime, "/sys/kernel/realtime")) {
		*known = true;
		rt |= realtime == 1;
	}
	if (audit_read(ctx, f, version, sizeof(version), "/proc/sys/kernel/version") >= 0) {
		*known = true;
		rt |= strstr(version, "PREEMPT_RT") != NULL;
	}
	if (!ctx->config_ret) {
		*known = true;
		rt |= audit_config_enabled(ctx, f, "PREEMPT_RT");
	}
	return rt;
}

static void check_preempt_rt(struct audit_context *ctx, struct audit_finding *f)
{
	bool known, rt = kernel_is_rt(ctx, f, &known);

	finding_expected(f, "a PREEMPT_RT kernel (CONFIG_PREEMPT_RT=y)");
	if (!known) {
		finding_skip(f, "neither /proc/sys/kernel/version nor the kernel configuration "
				"can be read");
		return;
	}
	if (rt) {
		finding_pass(f, "the kernel is PREEMPT_RT");
		return;
	}
	finding_fail(f, "the kernel is not PREEMPT_RT: spinlocks and interrupt handlers "
			"cannot be preempted");
	finding_fix(f, "install and boot a kernel built with CONFIG_PREEMPT_RT=y "
		       "(Debian: apt install linux-image-rt-amd64; mainline since 6.12)");
}

/* "none voluntary (full) lazy": the model in parentheses is the current one */
static bool parse_debugfs_preempt(const char *text, char *model, size_t size)
{
	const char *open = strchr(text, '('), *close = open ? strchr(open, ')') : NULL;

	if (!close || (size_t)(close - open - 1) >= size || close == open + 1)
		return false;
	memcpy(model, open + 1, (size_t)(close - open - 1));
	model[close - open - 1] = '\0';
	return true;
}

static const char *config_model(struct audit_context *ctx, struct audit_finding *f)
{
	static const struct {
		const char *option, *model;
	} models[] = {
		{ "PREEMPT_NONE", "none" },
		{ "PREEMPT_VOLUNTARY", "voluntary" },
		{ "PREEMPT", "full" },
		{ "PREEMPT_LAZY", "lazy" },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(models); i++)
		if (kconfig_enabled(&ctx->config, models[i].option)) {
			audit_config(ctx, f, models[i].option);
			return models[i].model;
		}
	return NULL;
}

static void check_preempt_model(struct audit_context *ctx, struct audit_finding *f)
{
	char text[256], model[32] = "";
	const char *source = NULL, *built;
	bool known, dynamic = false;

	finding_expected(f, "PREEMPT_RT, or at least preempt=full");
	if (kernel_is_rt(ctx, f, &known)) {
		finding_pass(f, "the kernel is PREEMPT_RT (fully preemptible)");
		return;
	}
	if (!ctx->config_ret)
		dynamic = audit_config_enabled(ctx, f, "PREEMPT_DYNAMIC");
	/* debugfs shows the model in force, whatever chose it */
	if (audit_read(ctx, f, text, sizeof(text), "/sys/kernel/debug/sched/preempt") >= 0 &&
	    parse_debugfs_preempt(text, model, sizeof(model))) {
		dynamic = true;
		source = "/sys/kernel/debug/sched/preempt";
	} else if (audit_cmdline(ctx, f, "preempt", text, sizeof(text)) && text[0] && dynamic) {
		snprintf(model, sizeof(model), "%.31s", text);
		source = "preempt= on the kernel command line";
	} else if (!ctx->config_ret && (built = config_model(ctx, f))) {
		snprintf(model, sizeof(model), "%s", built);
		source = dynamic ? "the build default of a PREEMPT_DYNAMIC kernel" : "the build";
	}
	if (!source) {
		finding_skip(f, "no source tells the preemption model (no debugfs, no preempt=, "
				"no kernel configuration)");
		return;
	}
	if (!strcmp(model, "full") || !strcmp(model, "lazy")) {
		finding_pass(f, "preemption model %s (from %s)", model, source);
		return;
	}
	finding_fail(f,
		     "preemption model %s (from %s): kernel code runs to the next "
		     "preemption point before a woken RT task",
		     model, source);
	if (dynamic)
		finding_fix(f, "boot with preempt=full (now: echo full > "
			       "/sys/kernel/debug/sched/preempt)");
	else
		finding_fix(f, "rebuild with CONFIG_PREEMPT=y or CONFIG_PREEMPT_RT=y");
}

/* " --disable A --disable B" for scripts/config: the one command that fixes them all */
static const char *disable_arguments(const char *const *names, const bool *on, size_t n, char *buf,
				     size_t size)
{
	size_t i, len = 0;

	buf[0] = '\0';
	for (i = 0; i < n; i++) {
		int added;

		if (!on[i])
			continue;
		added = snprintf(buf + len, size - len, " --disable %s", names[i]);
		if (added < 0 || (size_t)added >= size - len)
			break;
		len += (size_t)added;
	}
	return buf;
}

static void check_options_off(struct audit_context *ctx, struct audit_finding *f,
			      const char *const *names, size_t n)
{
	bool on[16] = { false }, any = false;
	char list[256] = "", arguments[512];
	size_t i;

	if (!audit_need_config(ctx, f))
		return;
	for (i = 0; i < n && i < ARRAY_SIZE(on); i++) {
		on[i] = audit_config_enabled(ctx, f, names[i]);
		if (on[i])
			audit_list_append(list, sizeof(list), "CONFIG_%s", names[i]);
		any |= on[i];
	}
	if (!any) {
		finding_pass(f, "none enabled");
		return;
	}
	finding_fail(f, "enabled: %s", list);
	finding_fix(f, "rebuild the kernel: scripts/config%s && make olddefconfig",
		    disable_arguments(names, on, n, arguments, sizeof(arguments)));
}

static void check_lock_debugging(struct audit_context *ctx, struct audit_finding *f)
{
	static const char *const names[] = {
		"PROVE_LOCKING", "DEBUG_LOCK_ALLOC", "LOCKDEP",
		"DEBUG_LOCKDEP", "LOCK_STAT",	     "PROVE_RCU",
	};

	finding_expected(f, "all of CONFIG_PROVE_LOCKING, DEBUG_LOCK_ALLOC, LOCKDEP, "
			    "DEBUG_LOCKDEP, LOCK_STAT, PROVE_RCU not set");
	check_options_off(ctx, f, names, ARRAY_SIZE(names));
}

static void check_latency_tracers(struct audit_context *ctx, struct audit_finding *f)
{
	static const char *const names[] = { "IRQSOFF_TRACER", "PREEMPT_TRACER" };

	finding_expected(f, "CONFIG_IRQSOFF_TRACER and CONFIG_PREEMPT_TRACER not set");
	check_options_off(ctx, f, names, ARRAY_SIZE(names));
}

/* a boot parameter with exactly this value */
static bool cmdline_is(struct audit_context *ctx, struct audit_finding *f, const char *name,
		       const char *value)
{
	char seen[64];

	return audit_cmdline(ctx, f, name, seen, sizeof(seen)) && !strcmp(seen, value);
}

/*
 * Debug options that add work in hot paths. Some are built in but dormant
 * until a boot parameter (or a default-on option) wakes them; those count
 * only when active.
 */
static bool debug_option_active(struct audit_context *ctx, struct audit_finding *f,
				const char *name)
{
	char value[64];

	if (!audit_config_enabled(ctx, f, name))
		return false;
	if (!strcmp(name, "DEBUG_PAGEALLOC")) {
		if (audit_config_enabled(ctx, f, "DEBUG_PAGEALLOC_ENABLE_DEFAULT"))
			return !cmdline_is(ctx, f, "debug_pagealloc", "off");
		return cmdline_is(ctx, f, "debug_pagealloc", "on");
	}
	if (!strcmp(name, "DEBUG_KMEMLEAK")) {
		if (audit_cmdline(ctx, f, "kmemleak", value, sizeof(value)))
			return !strcmp(value, "on");
		return !audit_config_enabled(ctx, f, "DEBUG_KMEMLEAK_DEFAULT_OFF");
	}
	return true;
}

static void check_debug_options(struct audit_context *ctx, struct audit_finding *f)
{
	/* not listed: DEBUG_LIST and UBSAN, cheap checks distributions ship as hardening */
	static const char *const names[] = {
		"DEBUG_PREEMPT",
		"DEBUG_OBJECTS",
		"KASAN",
		"KCSAN",
		"KMSAN",
		"SLUB_DEBUG_ON",
		"DEBUG_PAGEALLOC",
		"DEBUG_KMEMLEAK",
		"DEBUG_SPINLOCK",
		"DEBUG_MUTEXES",
		"DEBUG_RT_MUTEXES",
		"DEBUG_VM",
	};
	bool on[ARRAY_SIZE(names)] = { false }, slub_cmdline, any = false;
	char list[384] = "", value[128], arguments[512];
	size_t i;

	finding_expected(f, "no debug option active in hot paths (CONFIG_SLUB_DEBUG alone, "
			    "DEBUG_INFO, DEBUG_FS and DEBUG_ATOMIC_SLEEP are fine)");
	if (!audit_need_config(ctx, f))
		return;
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		on[i] = debug_option_active(ctx, f, names[i]);
		if (on[i])
			audit_list_append(list, sizeof(list), "CONFIG_%s", names[i]);
		any |= on[i];
	}
	/* slub_debug=- turns every SLUB check off */
	slub_cmdline =
		audit_cmdline(ctx, f, "slub_debug", value, sizeof(value)) && strcmp(value, "-");
	if (slub_cmdline)
		audit_list_append(list, sizeof(list), "slub_debug= on the command line");
	if (!any && !slub_cmdline) {
		finding_pass(f, "no hot-path debug option active");
		return;
	}
	finding_fail(f, "active: %s", list);
	disable_arguments(names, on, ARRAY_SIZE(names), arguments, sizeof(arguments));
	if (any)
		finding_fix(f, "rebuild the kernel: scripts/config%s && make olddefconfig%s",
			    arguments,
			    slub_cmdline ? "; remove slub_debug= from the command line" : "");
	else
		finding_fix(f, "remove slub_debug= from the kernel command line");
}

static void check_lockup_detector(struct audit_context *ctx, struct audit_finding *f)
{
	long long watchdog, nmi = 0, soft = 0;
	struct cpuset mask, on_rt;
	struct cpus_text a, hk;
	const char *unknown = NULL;
	int ret;

	finding_expected(f, "lockup detectors off (nowatchdog), or watchdog_cpumask "
			    "without RT CPUs");
	finding_fix(f,
		    "sysctl -w kernel.watchdog=0 (boot: nowatchdog), or keep it off the RT "
		    "CPUs: sysctl -w kernel.watchdog_cpumask=%s",
		    cpus_text(&ctx->housekeeping, &hk));
	if (!ctx->config_ret && !kconfig_enabled(&ctx->config, "SOFTLOCKUP_DETECTOR") &&
	    !kconfig_enabled(&ctx->config, "HARDLOCKUP_DETECTOR")) {
		audit_config(ctx, f, "SOFTLOCKUP_DETECTOR");
		audit_config(ctx, f, "HARDLOCKUP_DETECTOR");
		finding_pass(f, "no lockup detector built in");
		return;
	}
	if (!audit_need_integer(ctx, f, &watchdog, "/proc/sys/kernel/watchdog"))
		return;
	if (!watchdog) {
		finding_pass(f, "lockup detectors disabled at run time");
		return;
	}
	/*
	 * Absent: that detector is not built in. There but unreadable or
	 * garbled: it may run, so only a cpumask that keeps both off the RT
	 * CPUs can pass.
	 */
	ret = audit_read_integer(ctx, f, &nmi, "/proc/sys/kernel/nmi_watchdog");
	if (ret)
		nmi = 0;
	if (ret && ret != -ENOENT)
		unknown = "/proc/sys/kernel/nmi_watchdog";
	ret = audit_read_integer(ctx, f, &soft, "/proc/sys/kernel/soft_watchdog");
	if (ret)
		soft = 0;
	if (ret && ret != -ENOENT && !unknown)
		unknown = "/proc/sys/kernel/soft_watchdog";
	if (!nmi && !soft && !unknown) {
		finding_pass(f, "lockup detectors disabled at run time");
		return;
	}
	if (audit_read_cpulist(ctx, f, &mask, "/proc/sys/kernel/watchdog_cpumask")) {
		finding_skip(f, "cannot read /proc/sys/kernel/watchdog_cpumask");
		return;
	}
	cpuset_and(&on_rt, &mask, &ctx->rt);
	if (!cpuset_empty(&ctx->rt) && cpuset_empty(&on_rt)) {
		finding_pass(f, "watchdog_cpumask keeps the detectors on housekeeping CPUs");
		return;
	}
	if (!nmi && !soft) {
		finding_skip(f,
			     "cannot tell whether a lockup detector runs on CPUs %s: %s does "
			     "not read",
			     cpus_text(&mask, &a), unknown);
		return;
	}
	if (cpuset_empty(&ctx->rt)) {
		finding_warn(f,
			     "the %s%s%s detector runs on CPUs %s, every 4 s per CPU by "
			     "default",
			     soft ? "soft" : "", soft && nmi ? " and " : "", nmi ? "NMI" : "",
			     cpus_text(&mask, &a));
		/* every CPU is housekeeping: a cpumask of them keeps it everywhere */
		finding_fix(f, "sysctl -w kernel.watchdog=0 (boot: nowatchdog); once there are RT "
			       "CPUs, kernel.watchdog_cpumask can keep it off them instead");
		return;
	}
	finding_fail(f, "the lockup detectors run on RT CPUs %s", cpus_text(&on_rt, &a));
}

/*
 * True when no online CPU has a cpufreq driver (no
 * /sys/devices/system/cpu/cpuN/cpufreq): no governor runs, whichever the
 * build chose, and the frequency is the firmware's or the hypervisor's.
 * Said as evidence.
 */
static bool no_cpufreq_driver(struct audit_context *ctx, struct audit_finding *f)
{
	struct cpus_text a;
	int cpu;

	if (cpuset_empty(&ctx->topo->online))
		return false;
	cpuset_for_each(cpu, &ctx->topo->online)
		if (sysroot_exists(ctx->root, "/sys/devices/system/cpu/cpu%d/cpufreq", cpu))
			return false;
	finding_evidence(f, "/sys/devices/system/cpu/cpuN/cpufreq", "absent on CPUs %s",
			 cpus_text(&ctx->topo->online, &a));
	return true;
}

static void check_cpufreq_default(struct audit_context *ctx, struct audit_finding *f)
{
	char value[64];

	finding_expected(f, "CONFIG_CPU_FREQ=y with CONFIG_CPU_FREQ_DEFAULT_GOV_PERFORMANCE=y");
	if (!audit_need_config(ctx, f))
		return;
	if (!audit_config_enabled(ctx, f, "CPU_FREQ")) {
		finding_warn(f, "built without cpufreq: the firmware alone picks the frequency");
		finding_fix(f, "rebuild with CONFIG_CPU_FREQ=y and "
			       "CONFIG_CPU_FREQ_DEFAULT_GOV_PERFORMANCE=y");
		return;
	}
	if (audit_config_enabled(ctx, f, "CPU_FREQ_DEFAULT_GOV_PERFORMANCE")) {
		finding_pass(f, "performance is the default governor");
		return;
	}
	if (audit_cmdline(ctx, f, "cpufreq.default_governor", value, sizeof(value)) &&
	    !strcmp(value, "performance")) {
		finding_pass(f, "cpufreq.default_governor=performance on the command line");
		return;
	}
	if (no_cpufreq_driver(ctx, f)) {
		finding_pass(f, "the default governor is not performance, but no CPU has a cpufreq "
				"driver: no governor runs");
		return;
	}
	finding_fail(f, "the default governor is not performance: each CPU starts with a "
			"governor that changes its frequency");
	finding_fix(f, "boot with cpufreq.default_governor=performance, or rebuild with "
		       "CONFIG_CPU_FREQ_DEFAULT_GOV_PERFORMANCE=y");
}

static void check_cpufreq_governors(struct audit_context *ctx, struct audit_finding *f)
{
	static const char *const names[] = { "CPU_FREQ_GOV_ONDEMAND", "CPU_FREQ_GOV_CONSERVATIVE" };
	char *enabled;

	finding_expected(f, "CONFIG_CPU_FREQ_GOV_ONDEMAND and CONFIG_CPU_FREQ_GOV_CONSERVATIVE "
			    "not set");
	check_options_off(ctx, f, names, ARRAY_SIZE(names));
	if (f->status != AUDIT_FAIL || !no_cpufreq_driver(ctx, f))
		return;
	/* built, but nothing can use them here: the rebuild fixes nothing on this machine */
	enabled = f->detail ? strdup(f->detail) : NULL;
	finding_pass(f, "%s, but no CPU has a cpufreq driver: no governor runs",
		     enabled ? enabled : "enabled");
	free(enabled);
	free(f->fix);
	f->fix = NULL;
}

static bool has_word(const char *list, const char *word)
{
	size_t len = strlen(word);
	const char *p = list;

	while ((p = strstr(p, word))) {
		if ((p == list || p[-1] == ',') && (p[len] == '\0' || p[len] == ','))
			return true;
		p += len;
	}
	return false;
}

static void check_efi_runtime(struct audit_context *ctx, struct audit_finding *f)
{
	char value[128];
	bool disabled = false, cmdline;

	finding_expected(f, "EFI runtime services off (CONFIG_EFI_DISABLE_RUNTIME=y or "
			    "efi=noruntime)");
	if (!sysroot_exists(ctx->root, "/sys/firmware/efi")) {
		finding_evidence(f, "/sys/firmware/efi", "absent");
		finding_pass(f, "not booted through EFI");
		return;
	}
	finding_evidence(f, "/sys/firmware/efi", "present");
	if (!ctx->config_ret)
		disabled = audit_config_enabled(ctx, f, "EFI_DISABLE_RUNTIME");
	cmdline = audit_cmdline(ctx, f, "efi", value, sizeof(value));
	if (cmdline && has_word(value, "noruntime"))
		disabled = true;
	else if (cmdline && has_word(value, "runtime"))
		disabled = false;
	if (disabled) {
		finding_pass(f, "EFI runtime services disabled");
		return;
	}
	finding_fail(f, "EFI runtime services are enabled: a firmware call runs with "
			"preemption off for as long as the firmware takes");
	finding_fix(f, "boot with efi=noruntime (EFI variables become read-only)");
}

const struct audit_rule audit_kernel_rules[] = {
	{ "kernel.preempt_rt", "PREEMPT_RT kernel", AUDIT_FATAL,
	  "Only PREEMPT_RT makes spinlock sections and interrupt handlers preemptible, "
	  "which bounds the latency of a woken RT task.",
	  check_preempt_rt },
	{ "kernel.preempt_model", "Preemption model", AUDIT_HIGH,
	  "Without full preemption a woken RT task waits until the running kernel code "
	  "reaches a preemption point.",
	  check_preempt_model },
	{ "kernel.lock_debugging", "Lock debugging off", AUDIT_HIGH,
	  "Lock debugging validates every lock operation, lengthening every critical "
	  "section and interrupts-off region.",
	  check_lock_debugging },
	{ "kernel.debug_options", "Hot-path debug options off", AUDIT_HIGH,
	  "Sanitizers and object, page and lock debugging add work to allocation, locking "
	  "and scheduling paths, some with interrupts off.",
	  check_debug_options },
	{ "kernel.latency_tracers", "Always-on latency tracers off", AUDIT_HIGH,
	  "The irqsoff and preemptoff tracers hook every interrupt and preemption toggle and "
	  "cost even when no tracing is active.",
	  check_latency_tracers },
	{ "kernel.lockup_detector", "Lockup detectors", AUDIT_HIGH,
	  "The soft and hard lockup detectors run an hrtimer and an NMI on every CPU they "
	  "watch, every few seconds.",
	  check_lockup_detector },
	{ "kernel.cpufreq_default_governor", "Default cpufreq governor", AUDIT_HIGH,
	  "A CPU whose frequency changes runs the same code in varying time, and governor "
	  "work interrupts it.",
	  check_cpufreq_default },
	{ "kernel.cpufreq_governors", "Sampling cpufreq governors not built", AUDIT_MEDIUM,
	  "The ondemand and conservative governors sample load with a timer on every CPU; "
	  "built in, any CPU may end up using them.",
	  check_cpufreq_governors },
	{ "kernel.efi_runtime", "EFI runtime services", AUDIT_MEDIUM,
	  "An EFI runtime call runs firmware code for an unbounded time with preemption "
	  "disabled.",
	  check_efi_runtime },
};
const size_t audit_kernel_rule_count = ARRAY_SIZE(audit_kernel_rules);
