// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "audit_internal.h"
#include "latscope/log.h"

struct rule_table {
	const struct audit_rule *rules;
	const size_t *count;
};

/* The order of the output when severities tie: build, then run time, then platform. */
static const struct rule_table tables[] = {
	{ audit_kernel_rules, &audit_kernel_rule_count },
	{ audit_tracing_rules, &audit_tracing_rule_count },
	{ audit_cpu_rules, &audit_cpu_rule_count },
	{ audit_isolation_rules, &audit_isolation_rule_count },
	{ audit_irq_rules, &audit_irq_rule_count },
	{ audit_sched_rules, &audit_sched_rule_count },
	{ audit_memory_rules, &audit_memory_rule_count },
	{ audit_platform_rules, &audit_platform_rule_count },
};

size_t audit_rule_count(void)
{
	size_t n = 0, t;

	for (t = 0; t < ARRAY_SIZE(tables); t++)
		n += *tables[t].count;
	return n;
}

static const struct audit_rule *rule_at(size_t index)
{
	size_t t;

	for (t = 0; t < ARRAY_SIZE(tables); t++) {
		if (index < *tables[t].count)
			return &tables[t].rules[index];
		index -= *tables[t].count;
	}
	return NULL;
}

const char *audit_rule_id(size_t index)
{
	const struct audit_rule *rule = rule_at(index);

	return rule ? rule->id : NULL;
}

/*
 * The kernel's own parameters end at a lone "--"; what follows goes to init
 * and must not be mistaken for kernel settings.
 */
static void load_cmdline(struct audit_context *ctx)
{
	char *end;
	int ret;

	ret = sysroot_read(ctx->root, ctx->cmdline, sizeof(ctx->cmdline), "/proc/cmdline");
	if (ret < 0) {
		ctx->cmdline[0] = '\0';
		ctx->cmdline_ret = ret;
		return;
	}
	ctx->cmdline_ret = 0;
	end = strstr(ctx->cmdline, " -- ");
	if (end)
		*end = '\0';
	else if (!strncmp(ctx->cmdline, "-- ", 3) || !strcmp(ctx->cmdline, "--"))
		ctx->cmdline[0] = '\0';
}

static int setup(struct audit_context *ctx, struct sysroot *root, const struct topology *topo,
		 const struct cpuset *rt_cpus)
{
	memset(ctx, 0, sizeof(*ctx));
	ctx->root = root;
	ctx->topo = topo;
	if (rt_cpus) {
		if (!cpuset_subset(rt_cpus, &topo->online)) {
			struct cpuset offline;
			struct cpus_text a, b;

			cpuset_andnot(&offline, rt_cpus, &topo->online);
			log_error("RT CPUs %s are not online (online: %s)", cpus_text(&offline, &a),
				  cpus_text(&topo->online, &b));
			return -EINVAL;
		}
		ctx->rt = *rt_cpus;
		ctx->rt_given = true;
	} else {
		cpuset_or(&ctx->rt, &topo->isolated, &topo->nohz_full);
		cpuset_and(&ctx->rt, &ctx->rt, &topo->online);
	}
	cpuset_andnot(&ctx->housekeeping, &topo->online, &ctx->rt);
	ctx->config_ret = kconfig_load(root, &ctx->config);
	load_cmdline(ctx);
	return 0;
}

/* Each cache goes back through the file that filled it. */
static void teardown(struct audit_context *ctx)
{
	kconfig_release(&ctx->config);
	audit_irqs_release(ctx);
	audit_sample_release(ctx);
	audit_tasks_release(ctx);
}

int audit_run(struct sysroot *root, const struct topology *topo, const struct cpuset *rt_cpus,
	      struct audit_report *report)
{
	struct audit_context *ctx;
	size_t i, n = audit_rule_count();
	int ret;

	memset(report, 0, sizeof(*report));
	/* the context holds a 4 KiB command line and cpusets: keep it off the stack */
	ctx = malloc(sizeof(*ctx));
	if (!ctx)
		return -ENOMEM;
	ret = setup(ctx, root, topo, rt_cpus);
	if (ret) {
		free(ctx);
		return ret;
	}
	report->findings = calloc(n, sizeof(*report->findings));
	if (!report->findings) {
		teardown(ctx);
		free(ctx);
		return -ENOMEM;
	}
	report->rt_cpus = ctx->rt;
	report->housekeeping = ctx->housekeeping;
	report->rt_cpus_given = ctx->rt_given;
	for (i = 0; i < n; i++) {
		const struct audit_rule *rule = rule_at(i);
		struct audit_finding *f = &report->findings[i];

		f->id = rule->id;
		f->title = rule->title;
		f->severity = rule->severity;
		f->why = rule->why;
		f->status = AUDIT_NR_STATUSES;
		rule->check(ctx, f);
		if (f->status == AUDIT_NR_STATUSES)
			finding_skip(f, "the rule reached no verdict");
		/* a rule may set its fix before it knows the verdict; only a problem has one */
		if (f->status == AUDIT_PASS || f->status == AUDIT_SKIP) {
			free(f->fix);
			f->fix = NULL;
		}
		report->nr_findings++;
		log_debug("rule %s: %s", f->id, audit_status_name(f->status));
	}
	teardown(ctx);
	free(ctx);
	return 0;
}

void audit_report_release(struct audit_report *report)
{
	size_t i;

	for (i = 0; i < report->nr_findings; i++)
		finding_release(&report->findings[i]);
	free(report->findings);
	report->findings = NULL;
	report->nr_findings = 0;
}
