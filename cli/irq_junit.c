// SPDX-License-Identifier: GPL-2.0-or-later
#include <stdio.h>

#include "cli.h"
#include "irq_junit.h"
#include "junit_output.h"
#include "latscope/result.h"

#define CLASSNAME "latscope.irq.plan"

static struct junit_case *irq_case(struct junit_suite *suite, const struct irq_context *ctx,
				   const struct irqplan_unmovable *u)
{
	const char *name = ctx->table.irqs[u->row].name;
	char title[160];

	snprintf(title, sizeof(title), "irq %u%s%s", u->irq, *name ? " " : "", name);
	return junit_suite_case(suite, CLASSNAME, title);
}

static void cases(struct junit_suite *suite, const struct irq_context *ctx,
		  const struct irqplan *plan)
{
	char rt[256], on[256];
	struct cpuset where;
	unsigned int i, judged = 0;

	cpuset_format_list(&plan->rt, rt, sizeof(rt));
	for (i = 0; i < plan->nr_unmovable; i++) {
		const struct irqplan_unmovable *u = &plan->unmovable[i];
		const struct irq_info *irq = &ctx->table.irqs[u->row];

		if (!u->reaches_rt)
			continue;
		cpuset_and(&where, irq->has_effective ? irq->effective : irq->affinity, &plan->rt);
		judged++;
		junit_case_set(
			suite, irq_case(suite, ctx, u), JUNIT_FAILED, "unmovable",
			"irq %u is delivered to RT cpu %s (RT cpus: %s) and cannot be moved: %s",
			u->irq, cpuset_format_list(&where, on, sizeof(on)), rt, u->reason);
	}
	for (i = 0; i < plan->nr_unreadable; i++) {
		const struct irqplan_unmovable *u = &plan->unreadable[i];

		judged++;
		junit_case_set(suite, irq_case(suite, ctx, u), JUNIT_ERROR, "unreadable",
			       "irq %u: where it fires is unknown: %s", u->irq, u->reason);
	}
	if (!judged)
		junit_case_output(
			suite,
			junit_suite_case(suite, CLASSNAME, "no unmovable irq on the RT cpus"),
			"RT cpus: %s", rt);
}

int irq_plan_junit(const struct irq_context *ctx, const struct irq_options *options,
		   const struct irqplan *plan)
{
	json_t *doc = json_pack("{s:o}", "host", result_host_facts(ctx->root, &ctx->topo));
	struct junit_suite suite;
	int status;

	junit_output_start(&suite, "irq plan", doc, options->json.path);
	json_decref(doc);
	cases(&suite, ctx, plan);
	status = output_junit_write(&options->junit, &suite);
	junit_suite_release(&suite);
	return status;
}
