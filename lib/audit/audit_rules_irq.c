// SPDX-License-Identifier: GPL-2.0-or-later
/* Rules about where interrupts may land and who moves them. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit_internal.h"
#include "latscope/array.h"
#include "latscope/irq.h"

static void check_default_affinity(struct audit_context *ctx, struct audit_finding *f)
{
	struct cpuset mask, on_rt;
	struct cpus_text a, b, c;
	char text[4096];

	finding_expected(f, "/proc/irq/default_smp_affinity within the housekeeping CPUs "
			    "(irqaffinity=)");
	if (!audit_need_rt(ctx, f) ||
	    !audit_need_read(ctx, f, text, sizeof(text), "/proc/irq/default_smp_affinity"))
		return;
	if (cpuset_parse_mask(text, &mask)) {
		finding_skip(f, "/proc/irq/default_smp_affinity is not a cpu mask");
		return;
	}
	finding_evidence(f, "/proc/irq/default_smp_affinity", "%s (CPUs %s)",
			 cpus_mask_text(ctx, &mask, &a), cpus_text(&mask, &b));
	audit_cmdline(ctx, f, "irqaffinity", NULL, 0);
	cpuset_and(&on_rt, &mask, &ctx->rt);
	if (cpuset_empty(&on_rt)) {
		finding_pass(f, "new IRQs start on CPUs %s", cpus_text(&mask, &a));
		return;
	}
	finding_fail(f, "new IRQs may start on RT CPUs %s", cpus_text(&on_rt, &a));
	finding_fix(f, "echo %s > /proc/irq/default_smp_affinity; boot with irqaffinity=%s",
		    cpus_mask_text(ctx, &ctx->housekeeping, &b), cpus_text(&ctx->housekeeping, &c));
}

/* The interrupt inventory, loaded once for the rules that need it. */
static int load_irqs(struct audit_context *ctx)
{
	if (!ctx->irqs_loaded) {
		ctx->irqs_loaded = true;
		ctx->irqs_ret = irq_table_load(ctx->root, &ctx->irqs);
	}
	return ctx->irqs_ret;
}

void audit_irqs_release(struct audit_context *ctx)
{
	irq_table_release(&ctx->irqs);
	ctx->irqs_loaded = false;
}

/* false, with the finding skipped, when there are no RT CPUs or no interrupt table */
static bool need_irqs(struct audit_context *ctx, struct audit_finding *f)
{
	int ret;

	if (!audit_need_rt(ctx, f))
		return false;
	ret = load_irqs(ctx);
	if (!ret)
		return true;
	finding_skip_unreadable(f, "/proc/interrupts", ret);
	return false;
}

/* IRQs with a handler: one without can be requested later but fires nowhere now */
static bool irq_in_use(const struct irq_info *irq)
{
	return irq->has_affinity && irq->name && irq->name[0];
}

/*
 * An IRQ absent from /proc/interrupts is in the table only when nothing says
 * it has no handler; without /sys/kernel/irq/N/actions nothing says it has
 * one either.
 */
static bool handler_unknown(const struct irq_info *irq)
{
	return !irq->listed && !irq->name[0];
}

/*
 * Record an IRQ that can fire on RT CPUs; @numbers collects "41 42 ..." for
 * the fix, @names "41 (eth0-rx-0)" for the detail.
 */
static void note_irq(struct audit_finding *f, const struct irq_info *irq, unsigned int *listed,
		     char *numbers, size_t numbers_size)
{
	struct cpus_text a, b;
	char path[64];

	snprintf(path, sizeof(path), "/proc/irq/%u/smp_affinity_list", irq->number);
	if (*listed < AUDIT_MAX_LISTED)
		audit_list_append(numbers, numbers_size, "%u", irq->number);
	audit_evidence_listed(f, listed, path, "%s, effective %s (%s%s%s)",
			      cpus_text(irq->affinity, &a),
			      irq->has_effective ? cpus_text(irq->effective, &b) : "not exported",
			      irq->name, irq->device[0] ? " at " : "", irq->device);
}

/*
 * IRQs a rule cannot judge: the first one's path and reason make the
 * detail of a skip, each one is evidence.
 */
struct unjudged {
	unsigned int count;
	char first[320];
};

static void note_unjudged(struct audit_finding *f, struct unjudged *u, const char *path,
			  const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static void note_unjudged(struct audit_finding *f, struct unjudged *u, const char *path,
			  const char *fmt, ...)
{
	char why[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	if (!u->count)
		snprintf(u->first, sizeof(u->first), "%.60s: %s", path, why);
	audit_evidence_listed(f, &u->count, path, "%s", why);
}

/*
 * An affinity file that is there but says nothing usable (a directory, a
 * read error, "5-2", "99999"): the IRQ is not gone, it may fire anywhere
 * for all the rule knows. True when the file is @irq's problem (noted).
 */
static bool note_unusable_file(struct audit_finding *f, struct unjudged *u,
			       const struct irq_info *irq, bool effective)
{
	int err = effective ? irq->effective_error : irq->affinity_error;
	char path[80];

	if (!err || err == -ENOENT)
		return false;
	snprintf(path, sizeof(path), "/proc/irq/%u/%s", irq->number,
		 effective ? "effective_affinity_list" : "smp_affinity_list");
	note_unjudged(f, u, path, "%s: where irq %u%s%s%s fires is unknown",
		      irq_file_error_text(err), irq->number, irq->name[0] ? " (" : "", irq->name,
		      irq->name[0] ? ")" : "");
	return true;
}

static void note_unknown_handler(struct audit_finding *f, struct unjudged *u,
				 const struct irq_info *irq)
{
	struct cpus_text a;

	note_unjudged(f, u, "/proc/interrupts",
		      "no line for irq %u (allowed on CPUs %s) and no /sys/kernel/irq/%u/actions: "
		      "whether it has a handler is unknown",
		      irq->number, cpus_text(irq->affinity, &a), irq->number);
}

/* "cannot judge 3 IRQs: /proc/irq/30/smp_affinity_list: not a cpu list: ..." */
static void skip_unjudged(struct audit_finding *f, const struct unjudged *u)
{
	audit_evidence_rest(f, u->count, "/proc/irq", "IRQs not judged");
	finding_skip(f, "cannot judge %u IRQ%s: %s", u->count, u->count == 1 ? "" : "s", u->first);
}

/*
 * How the IRQs a rule listed were told movable or not, when not by the mode
 * alone on a tree: the kernel's answers to test writes (irq_probe_verdict()),
 * or, on the live system, a mode nothing confirmed. @by_probe and
 * @by_mode_live count the listed IRQs of each kind (a rule lists movable
 * IRQs only, or unmovable ones only); @first_probed and @first are the
 * first of each.
 */
struct movable_sources {
	unsigned int by_probe, by_mode_live;
	const struct irq_info *first, *first_probed;
};

static void count_source(struct audit_context *ctx, struct movable_sources *s,
			 const struct irq_info *irq)
{
	if (irq->movable_by == IRQ_MOVABLE_BY_PROBE) {
		if (!s->by_probe++)
			s->first_probed = irq;
	} else if (sysroot_is_live(ctx->root) && irq->movable) {
		if (!s->by_mode_live++)
			s->first = irq;
	}
}

static void note_sources(struct audit_finding *f, const struct movable_sources *s)
{
	if (s->by_probe)
		finding_evidence(f, "/proc/irq/N/smp_affinity_list",
				 "%u of them told %s by a test write of a value no parser takes "
				 "(the kernel refuses a managed IRQ's affinity before parsing it)",
				 s->by_probe, s->first_probed->movable ? "movable" : "not movable");
	if (!s->by_mode_live)
		return;
	if (s->first->probed)
		finding_evidence(f, "/proc/irq/N/smp_affinity_list",
				 "%u told movable by the file's write bit alone: a test write "
				 "answered %s (some kernels, Debian's 6.1, leave a managed IRQ's "
				 "file writable)",
				 s->by_mode_live,
				 s->first->probe_error ? strerror(s->first->probe_error) :
							 "by taking it");
	else
		finding_evidence(f, "/proc/irq/N/smp_affinity_list",
				 "%u told movable by the file's write bit alone, not asked by a "
				 "test write (root only; some kernels, Debian's 6.1, leave a "
				 "managed IRQ's file writable)",
				 s->by_mode_live);
}

/* "41, 42" as written by audit_list_append() into "41 42" for a shell loop */
static void commas_to_spaces(char *text)
{
	char *out = text;

	for (; *text; text++)
		if (*text != ',')
			*out++ = *text;
	*out = '\0';
}

static void check_device_affinity(struct audit_context *ctx, struct audit_finding *f)
{
	struct cpuset on_rt;
	struct cpus_text a, b;
	struct unjudged unjudged = { 0 };
	struct movable_sources sources = { 0 };
	char numbers[256] = "";
	unsigned int i, listed = 0;

	finding_expected(f, "smp_affinity and effective_affinity of every movable IRQ within "
			    "the housekeeping CPUs");
	if (!need_irqs(ctx, f))
		return;
	cpuset_clear(&on_rt);
	for (i = 0; i < ctx->irqs.nr_irqs; i++) {
		const struct irq_info *irq = &ctx->irqs.irqs[i];
		struct cpuset reach;

		if (note_unusable_file(f, &unjudged, irq, false) || !irq->movable)
			continue;
		/* allowed there, or delivered there now: either reaches the RT CPU */
		cpuset_or(&reach, irq->affinity,
			  irq->has_effective ? irq->effective : irq->affinity);
		cpuset_and(&reach, &reach, &ctx->rt);
		if (handler_unknown(irq)) {
			if (!cpuset_empty(&reach))
				note_unknown_handler(f, &unjudged, irq);
			continue;
		}
		if (!irq_in_use(irq))
			continue;
		if (cpuset_empty(&reach)) {
			/* allowed off the RT CPUs; where it is delivered now may be unknown */
			note_unusable_file(f, &unjudged, irq, true);
			if (!cpuset_intersects(irq->affinity, &ctx->topo->online))
				note_unjudged(f, &unjudged, "/proc/irq",
					      "irq %u %s: affinity %s has no online CPU",
					      irq->number, irq->name, cpus_text(irq->affinity, &a));
			continue;
		}
		cpuset_or(&on_rt, &on_rt, &reach);
		note_irq(f, irq, &listed, numbers, sizeof(numbers));
		count_source(ctx, &sources, irq);
	}
	audit_evidence_rest(f, listed, "/proc/irq", "IRQs");
	note_sources(f, &sources);
	if (!listed && unjudged.count) {
		skip_unjudged(f, &unjudged);
		return;
	}
	if (!listed) {
		finding_evidence(f, "/proc/irq", "%u IRQs, none movable onto RT CPUs",
				 ctx->irqs.nr_irqs);
		finding_pass(f, "no movable IRQ may fire on RT CPUs %s", cpus_text(&ctx->rt, &a));
		return;
	}
	finding_fail(f, "%u IRQs may fire on RT CPUs %s", listed, cpus_text(&on_rt, &a));
	commas_to_spaces(numbers);
	finding_fix(f, "for i in %s%s; do echo %s > /proc/irq/$i/smp_affinity_list; done", numbers,
		    listed > AUDIT_MAX_LISTED ? " (and the others listed)" : "",
		    cpus_text(&ctx->housekeeping, &b));
}

static void check_managed(struct audit_context *ctx, struct audit_finding *f)
{
	char isolcpus[512], numbers[256] = "", stuck[256] = "";
	struct unjudged unjudged = { 0 };
	struct movable_sources sources = { 0 };
	struct cpuset on_rt;
	struct cpus_text a, b;
	unsigned int i, listed = 0;
	bool flag;

	finding_expected(f, "no managed IRQ delivered to an RT CPU (isolcpus=managed_irq,...)");
	if (!need_irqs(ctx, f))
		return;
	flag = audit_cmdline(ctx, f, "isolcpus", isolcpus, sizeof(isolcpus)) &&
	       strstr(isolcpus, "managed_irq");
	cpuset_clear(&on_rt);
	for (i = 0; i < ctx->irqs.nr_irqs; i++) {
		const struct irq_info *irq = &ctx->irqs.irqs[i];
		struct cpuset reach;

		/* not movable (0444, or a test write refused): the kernel placed it */
		if (note_unusable_file(f, &unjudged, irq, false) || irq->movable ||
		    !irq->has_affinity)
			continue;
		/* without its effective affinity, the whole mask: a superset */
		cpuset_and(&reach, irq_delivery_cpus(irq), &ctx->rt);
		if (handler_unknown(irq)) {
			if (!cpuset_empty(&reach))
				note_unknown_handler(f, &unjudged, irq);
			continue;
		}
		if (!irq_in_use(irq) || cpuset_empty(&reach) ||
		    note_unusable_file(f, &unjudged, irq, true))
			continue;
		cpuset_or(&on_rt, &on_rt, &reach);
		if (listed < AUDIT_MAX_LISTED &&
		    !cpuset_intersects(irq->affinity, &ctx->housekeeping))
			audit_list_append(stuck, sizeof(stuck), "%u", irq->number);
		note_irq(f, irq, &listed, numbers, sizeof(numbers));
		count_source(ctx, &sources, irq);
	}
	audit_evidence_rest(f, listed, "/proc/irq", "IRQs");
	note_sources(f, &sources);
	if (!listed && unjudged.count) {
		skip_unjudged(f, &unjudged);
		return;
	}
	if (!listed) {
		finding_pass(f, "no managed IRQ is delivered to RT CPUs %s",
			     cpus_text(&ctx->rt, &a));
		return;
	}
	if (flag) {
		finding_warn(f,
			     "%u managed IRQs are delivered to RT CPUs %s despite "
			     "isolcpus=managed_irq (their queues have no housekeeping CPU); they "
			     "fire when those CPUs do I/O",
			     listed, cpus_text(&on_rt, &a));
		finding_fix(f,
			    "keep I/O off the RT CPUs %s, or reduce the device's queues so each "
			    "includes a housekeeping CPU",
			    cpus_text(&on_rt, &b));
		return;
	}
	finding_fail(f,
		     "%u managed IRQs (%s) are delivered to RT CPUs %s and cannot be moved "
		     "from user space",
		     listed, numbers, cpus_text(&on_rt, &a));
	/* managed_irq keeps a queue off isolated CPUs only where it has another CPU */
	if (stuck[0])
		finding_fix(f,
			    "boot with isolcpus=managed_irq,domain,%s; IRQs %s stay even then "
			    "(their queues have no housekeeping CPU): keep I/O off the RT CPUs, "
			    "or reduce the device's queues so each includes a housekeeping CPU",
			    cpus_text(&ctx->rt, &b), stuck);
	else
		finding_fix(f, "boot with isolcpus=managed_irq,domain,%s", cpus_text(&ctx->rt, &b));
}

/* The banned CPUs irqbalance was started with, from its environment or its config file. */
struct irqbalance_ban {
	bool explicit; /* set by a variable: replaces the automatic ban */
	bool parsed;
	struct cpuset cpus;
	char source[64];
};

static void parse_ban(const char *name, const char *value, struct irqbalance_ban *ban)
{
	char text[512];
	size_t len = strlen(value);

	/* a config file may quote the value */
	if (len >= 2 && (value[0] == '"' || value[0] == '\'') && value[len - 1] == value[0]) {
		value++;
		len -= 2;
	}
	snprintf(text, sizeof(text), "%.*s", (int)len, value);
	ban->explicit = true;
	/* an empty value bans nothing */
	if (!strcmp(name, "IRQBALANCE_BANNED_CPUS") && text[0])
		ban->parsed = !cpuset_parse_mask(text, &ban->cpus);
	else
		ban->parsed = !cpuset_parse_list(text, &ban->cpus);
}

/*
 * irqbalance reads IRQBALANCE_BANNED_CPUS (hex, deprecated) before
 * IRQBALANCE_BANNED_CPULIST; either replaces the automatic ban of the
 * isolated and nohz_full CPUs.
 */
static void find_ban(const char *text, size_t len, char separator, struct irqbalance_ban *ban)
{
	static const char *const names[] = { "IRQBALANCE_BANNED_CPUS",
					     "IRQBALANCE_BANNED_CPULIST" };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(names) && !ban->explicit; i++) {
		size_t name_len = strlen(names[i]);
		const char *p = text, *end = text + len;

		while (p < end) {
			const char *line_end = memchr(p, separator, (size_t)(end - p));
			char value[512];

			if (!line_end)
				line_end = end;
			while (p < line_end && (*p == ' ' || *p == '\t'))
				p++;
			if ((size_t)(line_end - p) > name_len && !strncmp(p, names[i], name_len) &&
			    p[name_len] == '=') {
				snprintf(value, sizeof(value), "%.*s",
					 (int)(line_end - p - (long)name_len - 1),
					 p + name_len + 1);
				parse_ban(names[i], value, ban);
			}
			p = line_end + 1;
		}
	}
}

static bool read_ban(struct audit_context *ctx, struct audit_finding *f, int pid,
		     struct irqbalance_ban *ban)
{
	static const char *const files[] = { "/etc/default/irqbalance",
					     "/etc/sysconfig/irqbalance" };
	char *text;
	size_t len, i;

	memset(ban, 0, sizeof(*ban));
	if (!sysroot_read_alloc(ctx->root, &text, &len, "/proc/%d/environ", pid)) {
		find_ban(text, len, '\0', ban);
		free(text);
		snprintf(ban->source, sizeof(ban->source), "/proc/%d/environ", pid);
		return true;
	}
	/* without the environment, the config file the service loads says the same */
	for (i = 0; i < ARRAY_SIZE(files); i++) {
		if (sysroot_read_alloc(ctx->root, &text, &len, "%s", files[i]))
			continue;
		find_ban(text, len, '\n', ban);
		free(text);
		snprintf(ban->source, sizeof(ban->source), "%s", files[i]);
		return true;
	}
	finding_evidence(f, "/proc/PID/environ",
			 "unreadable, and no /etc/default/irqbalance "
			 "or /etc/sysconfig/irqbalance");
	return false;
}

static void check_irqbalance(struct audit_context *ctx, struct audit_finding *f)
{
	struct cpuset banned, unbanned;
	struct irqbalance_ban ban;
	const struct audit_task *daemon = NULL;
	struct cpus_text a, b;
	char path[64];
	size_t i;

	finding_expected(f, "irqbalance stopped, or banning every RT CPU");
	if (!audit_need_tasks(ctx, f))
		return;
	for (i = 0; i < ctx->nr_tasks && !daemon; i++)
		if (!(ctx->tasks[i].flags & AUDIT_PF_KTHREAD) &&
		    !strcmp(ctx->tasks[i].comm, "irqbalance") &&
		    irq_balancer_on_this_machine(ctx->root, (unsigned long)ctx->tasks[i].pid))
			daemon = &ctx->tasks[i];
	if (!daemon) {
		unsigned int unknown = 0;
		char first[160] = "";

		finding_evidence(f, "/proc/*/stat", "no irqbalance process");
		/* a task whose stat does not read may be the daemon */
		audit_tasks_note_unreadable(ctx, f, &unknown, first, sizeof(first));
		if (unknown)
			finding_skip(f, "no irqbalance among the tasks read, but %u were not: %s",
				     unknown, first);
		else
			finding_pass(f, "irqbalance is not running");
		return;
	}
	snprintf(path, sizeof(path), "/proc/%d/stat", daemon->pid);
	finding_evidence(f, path, "irqbalance");
	if (!read_ban(ctx, f, daemon->pid, &ban)) {
		finding_skip(f, "irqbalance (pid %d) runs, but its banned CPUs cannot be read",
			     daemon->pid);
		return;
	}
	if (ban.explicit && !ban.parsed) {
		finding_evidence(f, ban.source, "unparsable banned CPU setting");
		finding_skip(f, "cannot parse the banned CPUs in %s", ban.source);
		return;
	}
	if (ban.explicit) {
		banned = ban.cpus;
		finding_evidence(f, ban.source, "banned CPUs %s", cpus_text(&banned, &a));
	} else {
		cpuset_or(&banned, &ctx->topo->isolated, &ctx->topo->nohz_full);
		finding_evidence(f, ban.source,
				 "no IRQBALANCE_BANNED_CPUS or _CPULIST: it bans the "
				 "isolated and nohz_full CPUs %s",
				 cpus_text(&banned, &a));
	}
	cpuset_andnot(&unbanned, &ctx->rt, &banned);
	if (cpuset_empty(&unbanned)) {
		finding_pass(f, "irqbalance (pid %d) runs but bans every RT CPU", daemon->pid);
		return;
	}
	finding_fail(f, "irqbalance (pid %d) may move IRQs onto RT CPUs %s%s", daemon->pid,
		     cpus_text(&unbanned, &a),
		     ban.explicit ? " (an explicit ban list replaces the automatic one)" : "");
	finding_fix(f,
		    "systemctl disable --now irqbalance, or set "
		    "IRQBALANCE_BANNED_CPULIST=%s in /etc/default/irqbalance and "
		    "systemctl restart irqbalance",
		    cpus_text(&ctx->rt, &b));
}

/* The interrupts of one RT CPU that matter here, from a delta or a count. */
static void note_arrival(struct audit_finding *f, unsigned int cpu, const char *name,
			 uint64_t count, const char *when, unsigned int *listed, uint64_t *device,
			 uint64_t *ipis)
{
	bool is_device = name[0] >= '0' && name[0] <= '9';

	if (!count || (!is_device && strcmp(name, "TLB") && strcmp(name, "CAL")))
		return;
	if (is_device)
		*device += count;
	else
		*ipis += count;
	audit_evidence_listed(f, listed, "/proc/interrupts", "cpu %u: %s %llu %s", cpu, name,
			      (unsigned long long)count, when);
}

/* A count of the table on an RT CPU that matters here. */
struct arrival {
	unsigned int column, row;
	uint32_t count;
};

static int compare_arrivals(const void *a, const void *b)
{
	const struct arrival *x = a, *y = b;

	if (x->column != y->column)
		return x->column < y->column ? -1 : 1;
	return x->row < y->row ? -1 : x->row > y->row;
}

/* a vector that tells of other CPUs' work: TLB shootdowns, function calls */
static bool is_ipi_row(const struct irq_table *table, unsigned int row)
{
	const char *name = table->vectors[row - table->nr_irqs].name;

	return !strcmp(name, "TLB") || !strcmp(name, "CAL");
}

/*
 * The counts since boot of the RT CPUs, CPU by CPU as note_arrival() lists
 * them: the counts that are there, gathered row by row, not every (CPU,
 * IRQ) pair of a 1024-CPU machine.
 */
static void note_counted_arrivals(struct audit_context *ctx, struct audit_finding *f,
				  const char *when, unsigned int *listed, uint64_t *device,
				  uint64_t *ipis)
{
	const struct irq_table *table = &ctx->irqs;
	struct arrival *arrivals = NULL, *grown;
	unsigned int row, i, n, nr = 0, cap = 0;
	const uint16_t *columns;
	const uint32_t *values;
	char name[96];

	for (row = 0; row < irq_table_rows(table); row++) {
		if (row >= table->nr_irqs && !is_ipi_row(table, row))
			continue;
		n = irq_counts_row(&table->counts, row, &columns, &values);
		for (i = 0; i < n; i++) {
			if (!cpuset_has(&ctx->rt, table->column_cpu[columns[i]]))
				continue;
			grown = array_grow(arrivals, &cap, nr + 1, sizeof(*arrivals));
			if (!grown)
				break;
			arrivals = grown;
			arrivals[nr++] = (struct arrival){ columns[i], row, values[i] };
		}
	}
	if (nr)
		qsort(arrivals, nr, sizeof(*arrivals), compare_arrivals);
	for (i = 0; i < nr; i++) {
		row = arrivals[i].row;
		if (row < table->nr_irqs)
			snprintf(name, sizeof(name), "%u:%s", table->irqs[row].number,
				 table->irqs[row].name);
		else
			snprintf(name, sizeof(name), "%s",
				 table->vectors[row - table->nr_irqs].name);
		note_arrival(f, table->column_cpu[arrivals[i].column], name, arrivals[i].count,
			     when, listed, device, ipis);
	}
	free(arrivals);
}

/*
 * What actually arrives, the truth behind the affinity rules. The live
 * machine's RT CPUs are watched for a moment; a tree has only the counts
 * since boot, which may predate the isolation.
 */
static void check_arriving(struct audit_context *ctx, struct audit_finding *f)
{
	struct counter_delta deltas[64];
	const struct counters_run *sample;
	struct unjudged unknown = { 0 };
	unsigned int listed = 0, n, i, row;
	uint64_t device = 0, ipis = 0;
	struct cpus_text a;
	const char *when;
	int cpu;

	finding_expected(f, "no device interrupt on RT CPUs; TLB and CAL IPIs rare");
	if (!need_irqs(ctx, f))
		return;
	if (sysroot_is_live(ctx->root)) {
		sample = audit_sample(ctx, f);
		if (!sample)
			return;
		/* an IRQ came or went while watched: no delta is no interrupt */
		if (!counters_have_interrupts(sample)) {
			finding_skip(f, "the interrupt counts of /proc/interrupts could not be "
					"compared over the 20 ms watched (an IRQ or a CPU came or "
					"went): run it again");
			return;
		}
		when = "in 20 ms";
		cpuset_for_each(cpu, &ctx->rt) {
			n = counters_deltas(sample, (unsigned int)cpu, deltas, ARRAY_SIZE(deltas));
			for (i = 0; i < n; i++)
				if (!strcmp(deltas[i].group, "interrupts"))
					note_arrival(f, (unsigned int)cpu, deltas[i].name,
						     deltas[i].count, when, &listed, &device,
						     &ipis);
		}
	} else {
		when = "since boot";
		/* what a count the file did not give would add is unknown */
		if (ctx->irqs.skipped_lines)
			note_unjudged(f, &unknown, "/proc/interrupts",
				      "%u lines do not parse: their counts are unknown",
				      ctx->irqs.skipped_lines);
		for (row = 0; row < ctx->irqs.nr_irqs; row++)
			if (!ctx->irqs.irqs[row].listed)
				note_unjudged(f, &unknown, "/proc/interrupts",
					      "no line for irq %u%s%s, which /proc/irq has: its "
					      "counts are unknown",
					      ctx->irqs.irqs[row].number,
					      ctx->irqs.irqs[row].name[0] ? " " : "",
					      ctx->irqs.irqs[row].name);
		note_counted_arrivals(ctx, f, when, &listed, &device, &ipis);
	}
	audit_evidence_rest(f, listed, "/proc/interrupts", "counts");
	audit_evidence_rest(f, unknown.count, "/proc/interrupts", "counts unknown");
	if (!listed)
		finding_evidence(f, "/proc/interrupts",
				 "RT CPUs %s: no device interrupt, no TLB or "
				 "CAL IPI %s",
				 cpus_text(&ctx->rt, &a), when);
	finding_fix(f, "latscope irq apply --rt-cpus %s (then watch with latscope irq show)",
		    cpus_text(&ctx->rt, &a));
	if (device && sysroot_is_live(ctx->root))
		finding_fail(f, "%llu device interrupts reached RT CPUs %s",
			     (unsigned long long)device, when);
	else if (device || ipis)
		finding_warn(f, "%llu device interrupts and %llu TLB/CAL IPIs reached RT CPUs %s",
			     (unsigned long long)device, (unsigned long long)ipis, when);
	else if (unknown.count)
		finding_skip(f, "cannot count what reached RT CPUs %s %s: %s",
			     cpus_text(&ctx->rt, &a), when, unknown.first);
	else
		finding_pass(f, "nothing reached RT CPUs %s %s", cpus_text(&ctx->rt, &a), when);
}

const struct audit_rule audit_irq_rules[] = {
	{ "irq.default_affinity", "Default IRQ affinity", AUDIT_HIGH,
	  "A newly requested IRQ starts on the default affinity, before any daemon or script "
	  "moves it.",
	  check_default_affinity },
	{ "irq.device_affinity", "Device IRQ affinity", AUDIT_HIGH,
	  "A device interrupt delivered to an RT CPU preempts the RT task for the handler and "
	  "the softirq work it raises.",
	  check_device_affinity },
	{ "irq.managed", "Managed IRQs on RT CPUs", AUDIT_MEDIUM,
	  "The kernel spreads managed IRQs (per-queue NVMe, virtio) over all CPUs and user "
	  "space cannot move them.",
	  check_managed },
	{ "irq.arriving", "Interrupts arriving on RT CPUs", AUDIT_HIGH,
	  "Whatever the affinities say, an interrupt that arrives on an RT CPU preempts the RT "
	  "task; TLB and call-function IPIs come from other CPUs' work.",
	  check_arriving },
	{ "irq.irqbalance", "irqbalance and its banned CPUs", AUDIT_HIGH,
	  "irqbalance rewrites IRQ affinities every 10 s and puts device interrupts on any "
	  "CPU it does not ban.",
	  check_irqbalance },
};
const size_t audit_irq_rule_count = ARRAY_SIZE(audit_irq_rules);
