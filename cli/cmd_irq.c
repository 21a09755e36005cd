// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "common_options.h"
#include "irq_balance.h"
#include "irq_context.h"
#include "irq_junit.h"
#include "irq_report.h"
#include "latscope/log.h"
#include "latscope/parse.h"
#include "option_table.h"

#define DEFAULT_VERIFY_NS (3 * NS_PER_SEC)

#define IRQ(member) OPTION_FIELD(struct irq_options, member)

/* The options of every subcommand: which tree, which document. */
static const struct option_spec irq_common_specs[] = {
	{ .long_name = "root",
	  .kind = OPTION_INPUT_DIR,
	  .where = IRQ(root_dir),
	  .help = "read and write a fixture tree instead of /" },
	OPTION_INCLUDE_AT(json_output_options, IRQ(json)),
	OPTION_INCLUDE_AT(verbose_options, IRQ(verbose)),
	OPTION_TABLE_END,
};

/* What a plan is made from: show, plan, apply and balance. */
static const struct option_spec irq_plan_specs[] = {
	OPTION_INCLUDE_TABLE(irq_common_specs),
	OPTION_RT_CPUS(IRQ(rt_cpus), 0),
	{ .long_name = "sample",
	  .kind = OPTION_DURATION,
	  .where = IRQ(sample_ns),
	  .given = IRQ(sample_given),
	  .duration = { NS_PER_SEC, 10 * NS_PER_MS, NS_PER_HOUR },
	  .help = "rate window; a fixture uses counts since boot" },
	OPTION_TABLE_END,
};

/* apply and balance write the journal first, restore removes it: one rule for its path */
static const struct option_spec irq_journal_specs[] = {
	{ .long_name = "journal",
	  .kind = OPTION_OUTPUT_FILE,
	  .where = IRQ(journal_path),
	  .help = "the affinities before the moves: apply and balance write it, restore "
		  "reads it",
	  .default_text = IRQ_JOURNAL_PATH " under the root" },
	OPTION_TABLE_END,
};

static const struct option_spec irq_show_specs[] = {
	OPTION_INCLUDE_TABLE(irq_plan_specs),
	OPTION_TABLE_END,
};

/* plan alone gives a verdict: the unmovable IRQs on RT CPUs */
static const struct option_spec irq_plan_command_specs[] = {
	OPTION_INCLUDE_TABLE(irq_plan_specs),
	OPTION_INCLUDE_AT(junit_output_options, IRQ(junit)),
	OPTION_TABLE_END,
};

static const struct option_spec irq_apply_specs[] = {
	OPTION_INCLUDE_TABLE(irq_plan_specs),
	{ .long_name = "verify",
	  .kind = OPTION_FLAG,
	  .where = IRQ(verify),
	  .help = "count interrupts on RT CPUs before and after (3s, or --sample)" },
	OPTION_INCLUDE_TABLE(irq_journal_specs),
	OPTION_TABLE_END,
};

static const struct option_spec irq_balance_specs[] = {
	OPTION_INCLUDE_TABLE(irq_plan_specs),
	OPTION_INCLUDE_TABLE(irq_journal_specs),
	{ .long_name = "interval",
	  .kind = OPTION_DURATION,
	  .where = IRQ(interval_ns),
	  .duration = { NS_PER_SEC, 100 * NS_PER_MS, NS_PER_DAY },
	  .help = "balance interval" },
	{ .long_name = "max-moves-per-hour",
	  .kind = OPTION_INTEGER,
	  .where = IRQ(policy.max_moves_per_hour),
	  .integer = { 0, 100000 },
	  .help = "balance budget" },
	{ .long_name = "min-dwell",
	  .kind = OPTION_DURATION,
	  .where = IRQ(policy.min_dwell_ns),
	  .duration = { NS_PER_SEC, 0, 7 * NS_PER_DAY },
	  .help = "an IRQ moved stays at least this long" },
	{ .long_name = "max-burst",
	  .kind = OPTION_DURATION,
	  .where = IRQ(policy.max_burst_ns),
	  .duration = { NS_PER_SEC, 0, 7 * NS_PER_DAY },
	  .help = "one IRQ holding a CPU up longer is no burst: the CPU's other IRQs leave it" },
	{ .long_name = "dead-band",
	  .kind = OPTION_NUMBER,
	  .where = IRQ(policy.dead_band),
	  .number = { 1, 1000, 100 },
	  .value_name = "PCT",
	  .help = "a CPU is overloaded above its node's mean + PCT%" },
	{ .long_name = "restore-on-exit",
	  .kind = OPTION_FLAG,
	  .where = IRQ(restore_on_exit),
	  .help = "restore the journal on SIGINT/SIGTERM" },
	{ .long_name = "force",
	  .kind = OPTION_FLAG,
	  .where = IRQ(force),
	  .help = "balance even while irqbalance runs" },
	{ .long_name = "count",
	  .kind = OPTION_INTEGER,
	  .where = IRQ(count),
	  .integer = { 1, 1000000000 },
	  .help = "balance N intervals, then stop" },
	OPTION_TABLE_END,
};

/* restore reads the journal and removes it */
static const struct option_spec irq_restore_specs[] = {
	OPTION_INCLUDE_TABLE(irq_common_specs),
	OPTION_INCLUDE_TABLE(irq_journal_specs),
	OPTION_TABLE_END,
};

/* The defaults: the planner's own (one definition, in the library), the daemon's. */
static void irq_defaults(void *options)
{
	irq_options_default(options);
}

static int irq_finish(void *options, void *context)
{
	struct irq_options *o = options;

	(void)context;
	return junit_output_finish(&o->junit, &o->json);
}

#define IRQ_SUBCOMMAND(id, table, text)                                                         \
	{                                                                                       \
		.name = "irq " id, .summary = text, .options = table,                           \
		.size = sizeof(struct irq_options), .init = irq_defaults, .finish = irq_finish, \
		.group = &irq_group                                                             \
	}

static const struct option_command irq_subcommand_specs[] = {
	[IRQ_SHOW] =
		IRQ_SUBCOMMAND("show", irq_show_specs,
			       "per CPU, what can interrupt it and how often; flags movable "
			       "IRQs that can reach an RT CPU and managed IRQs delivered to one"),
	[IRQ_PLAN] =
		IRQ_SUBCOMMAND("plan", irq_plan_command_specs,
			       "the moves that would be made, each with its reason (a dry run)"),
	[IRQ_APPLY] = IRQ_SUBCOMMAND("apply", irq_apply_specs,
				     "make them: journal first, write, read back, check effective "
				     "CPUs"),
	[IRQ_BALANCE] = IRQ_SUBCOMMAND("balance", irq_balance_specs,
				       "plan and apply every interval, with hysteresis, dwell and "
				       "budget"),
	[IRQ_RESTORE] = IRQ_SUBCOMMAND("restore", irq_restore_specs,
				       "put back every affinity the journal holds"),
};

static const struct option_command *const irq_subcommands[] = {
	&irq_subcommand_specs[IRQ_SHOW],    &irq_subcommand_specs[IRQ_PLAN],
	&irq_subcommand_specs[IRQ_APPLY],   &irq_subcommand_specs[IRQ_BALANCE],
	&irq_subcommand_specs[IRQ_RESTORE], NULL,
};

const struct option_group irq_group = {
	.name = "irq",
	.description =
		"Keep interrupts off real-time CPUs, place them on their device's NUMA node,\n"
		"move them rarely and say why.",
	.subcommands = irq_subcommands,
	.footer = "exit status: 0 ok, 1 error (a write failed, no CPU left), 129 usage error",
};

static void rt_set(const struct irq_context *ctx, const struct irq_options *options,
		   struct cpuset *rt)
{
	cpuset_or(rt, &ctx->topo.isolated, &ctx->topo.nohz_full);
	cpuset_or(rt, rt, &options->rt_cpus);
}

static int run_show(const struct irq_options *options, struct irq_context *ctx)
{
	struct cpuset rt;
	int status = EXIT_OK;

	if (irq_context_load(ctx, options)) {
		status = EXIT_ERROR;
		goto out;
	}
	rt_set(ctx, options, &rt);
	irq_print_show(ctx, options, &rt);
	if (options->json.path)
		status = irq_json_write_show(ctx, options, &rt);
	if (!status)
		status = irq_unjudged_error(ctx, "what can reach the RT cpus is not known");
out:
	return status;
}

static int run_plan(const struct irq_options *options, struct irq_context *ctx)
{
	struct irqplan plan = { 0 };
	struct part_result why = { 0 };
	int status;

	status = irq_context_plan(ctx, options, &plan, &why);
	if (status)
		goto out;
	irq_print_plan(stdout, ctx, &plan);
	if (options->json.path)
		status = irq_json_write_plan(ctx, options, &plan);
	if (!status && options->junit.path)
		status = irq_plan_junit(ctx, options, &plan);
	if (!status)
		status = irq_unjudged_error(ctx, "the placement is not known to be good");
out:
	irqplan_release(&plan);
	return status;
}

/* Device interrupts per second on each RT CPU over @ns (--verify). */
static int rt_rates(struct irq_context *ctx, const struct cpuset *rt, uint64_t ns, double *rates)
{
	struct irq_counts before, after, delta = { 0 };
	unsigned int row, column, i, n;
	const uint16_t *columns;
	const uint32_t *values;
	double seconds;
	int ret;

	memset(rates, 0, ctx->table.nr_columns * sizeof(double));
	ret = irq_counts_init(&before, &ctx->table);
	if (ret)
		return ret;
	ret = irq_counts_init(&after, &ctx->table);
	if (!ret)
		ret = irq_counts_init(&delta, &ctx->table);
	if (!ret)
		ret = irq_counts_read(ctx->root, &ctx->table, &before);
	if (!ret && !irq_sleep(ns))
		ret = -EINTR;
	if (!ret)
		ret = irq_counts_read(ctx->root, &ctx->table, &after);
	if (!ret)
		ret = irq_counts_delta(&before, &after, &delta);
	if (!ret) {
		seconds = (double)(after.time_ns - before.time_ns) / 1e9;
		for (row = 0; row < ctx->table.nr_irqs; row++) {
			n = irq_counts_row(&delta, row, &columns, &values);
			for (i = 0; i < n; i++)
				if (cpuset_has(rt, ctx->table.column_cpu[columns[i]]))
					rates[columns[i]] += values[i];
		}
		for (column = 0; column < ctx->table.nr_columns; column++)
			rates[column] /= seconds > 0 ? seconds : 1;
	}
	irq_counts_release(&before);
	irq_counts_release(&after);
	irq_counts_release(&delta);
	return ret;
}

static void print_verify(const struct irq_context *ctx, const struct cpuset *rt,
			 const double *before, const double *after, uint64_t ns, json_t *doc)
{
	json_t *cpus = json_array();
	char a[32], b[32];
	unsigned int column;

	printf("verify: device interrupts per second on RT cpus over %.1f s, before -> after:\n",
	       (double)ns / 1e9);
	for (column = 0; column < ctx->table.nr_columns; column++) {
		unsigned int cpu = ctx->table.column_cpu[column];

		if (!cpuset_has(rt, cpu))
			continue;
		printf("  cpu %u: %s -> %s", cpu, irqplan_format_rate(before[column], a, sizeof(a)),
		       irqplan_format_rate(after[column], b, sizeof(b)));
		if (before[column] > 0)
			printf(" (%+.0f%%)", (after[column] / before[column] - 1) * 100);
		printf("\n");
		json_array_append_new(cpus,
				      json_pack("{s:i, s:f, s:f}", "cpu", (json_int_t)cpu, "before",
						before[column], "after", after[column]));
	}
	if (doc)
		json_object_set_new(
			doc, "verify",
			json_pack("{s:I, s:o}", "window_ns", (json_int_t)ns, "cpus", cpus));
	else
		json_decref(cpus);
}

static int report_apply(const struct irq_context *ctx, const struct irq_options *options,
			const struct irqplan *plan, const struct irq_apply_report *report,
			json_t *doc)
{
	json_t *results = json_array();
	char mask[256];
	unsigned int i;
	int status = EXIT_OK;

	for (i = 0; i < plan->nr_moves; i++) {
		const struct irq_apply_result *result = &report->moves[i];

		if (result->status != IRQ_WRITE_DONE || !result->effective_ok)
			irq_print_move(stdout, &ctx->table, &plan->moves[i], result);
		json_array_append_new(results, irq_json_move(&ctx->table, &plan->moves[i], result));
	}
	if (plan->default_change && !report->default_written)
		status = EXIT_ERROR;
	if (report->temporary || report->changed)
		status = EXIT_ERROR;
	printf("applied: %u done, %u temporary failures, %u unmovable, %u gone, %u changed meanwhile",
	       report->done, report->temporary, report->permanent, report->gone, report->changed);
	if (plan->default_change)
		printf("; default_smp_affinity %s %s",
		       report->default_written ? "set to" : "NOT set to",
		       cpuset_format_list(&plan->default_to, mask, sizeof(mask)));
	printf("\njournal: %s (undo with 'latscope irq restore%s%s%s%s')\n", ctx->journal,
	       sysroot_is_live(ctx->root) ? "" : " --root ",
	       sysroot_is_live(ctx->root) ? "" : sysroot_dir(ctx->root),
	       options->journal_path ? " --journal " : "",
	       options->journal_path ? options->journal_path : "");
	if (doc) {
		json_object_set_new(doc, "results", results);
		json_object_set_new(doc, "journal", json_string(ctx->journal));
		json_object_set_new(doc, "default_written", json_boolean(report->default_written));
	} else {
		json_decref(results);
	}
	return status;
}

static int run_apply(const struct irq_options *options, struct irq_context *ctx)
{
	struct irq_apply_report report = { 0 };
	uint64_t verify_ns = options->sample_given ? options->sample_ns : DEFAULT_VERIFY_NS;
	double *before = NULL, *after = NULL;
	struct irqplan plan = { 0 };
	struct part_result why = { 0 };
	json_t *doc = NULL;
	struct cpuset rt;
	int status, ret;

	if (sysroot_is_live(ctx->root) && geteuid()) {
		status = runtime_error("apply writes /proc/irq: run it as root");
		goto out;
	}
	if (options->verify && !sysroot_is_live(ctx->root)) {
		status = usage_error(
			"--verify counts live interrupts: it cannot be used with --root");
		goto out;
	}
	/* before the affinities are read: a second apply plans from what this one leaves */
	status = irq_lock_journal(ctx, true);
	if (status)
		goto out;
	status = irq_context_plan(ctx, options, &plan, &why);
	if (status)
		goto out;
	irq_print_plan(stdout, ctx, &plan);
	/* a plan made without some IRQs' affinities is no plan to write */
	status = irq_unjudged_error(ctx, "nothing was changed");
	if (status)
		goto out;
	if (options->json.path)
		doc = irq_plan_document(ctx, options, &plan);
	rt = plan.rt;
	if (options->verify) {
		before = calloc(ctx->table.nr_columns, sizeof(double));
		after = calloc(ctx->table.nr_columns, sizeof(double));
		if (!before || !after || rt_rates(ctx, &rt, verify_ns, before)) {
			status = runtime_error("cannot count the interrupts before the moves");
			goto out;
		}
	}
	report.moves = calloc(plan.nr_moves + 1, sizeof(*report.moves));
	if (!report.moves) {
		status = runtime_error("out of memory");
		goto out;
	}
	ret = irq_apply(ctx->root, &ctx->topo, &ctx->table, &plan, ctx->journal_lock, &report);
	irq_journal_unlock(ctx->journal_lock);
	ctx->journal_lock = NULL;
	if (ret) {
		status = EXIT_ERROR;
		goto out;
	}
	status = report_apply(ctx, options, &plan, &report, doc);
	if (options->verify) {
		if (rt_rates(ctx, &rt, verify_ns, after))
			log_warning("cannot count the interrupts after the moves");
		else
			print_verify(ctx, &rt, before, after, verify_ns, doc);
	}
	if (doc && irq_json_write(doc, options))
		status = EXIT_ERROR;
out:
	free(report.moves);
	free(before);
	free(after);
	json_decref(doc);
	irqplan_release(&plan);
	return status;
}

static int run_restore(const struct irq_options *options, struct irq_context *ctx)
{
	struct irq_restore_report report;
	char unmovable[32];
	json_t *doc = NULL;
	int ret, status;

	if (sysroot_is_live(ctx->root) && geteuid()) {
		status = runtime_error("restore writes /proc/irq: run it as root");
		goto out;
	}
	status = irq_lock_journal(ctx, false);
	if (status)
		goto out;
	ret = irq_journal_restore(ctx->root, ctx->journal_lock, &report);
	irq_journal_unlock(ctx->journal_lock);
	ctx->journal_lock = NULL;
	/* refused or unreadable: nothing was written, the library said why */
	if (ret && ret != -EIO && ret != -ESTALE) {
		status = EXIT_ERROR;
		goto out;
	}
	status = ret ? EXIT_ERROR : EXIT_OK;
	/* "N unmovable" only where there are some: the line as it was for the others */
	snprintf(unmovable, sizeof(unmovable), ", %u unmovable", report.unmovable);
	printf("restored: %u irqs%s, %u gone, %u skipped%s, %u failed; journal %s\n",
	       report.restored, report.default_restored ? " and default_smp_affinity" : "",
	       report.gone, report.stale, report.unmovable ? unmovable : "", report.failed,
	       ret ? "kept" : "removed");
	if (!options->json.path)
		goto out;
	/* the host facts name the CPUs; restore needed no topology until now */
	if (topology_load(ctx->root, &ctx->topo))
		memset(&ctx->topo, 0, sizeof(ctx->topo));
	doc = irq_json_document(ctx, options);
	json_object_set_new(doc, "journal", json_string(ctx->journal));
	json_object_set_new(doc, "restored", json_integer(report.restored));
	json_object_set_new(doc, "gone", json_integer(report.gone));
	json_object_set_new(doc, "skipped", json_integer(report.stale));
	json_object_set_new(doc, "unmovable", json_integer(report.unmovable));
	json_object_set_new(doc, "failed", json_integer(report.failed));
	json_object_set_new(doc, "default_restored", json_boolean(report.default_restored));
	if (irq_json_write(doc, options))
		status = EXIT_ERROR;
out:
	json_decref(doc);
	return status;
}

static int run(const struct irq_options *options, struct irq_context *ctx)
{
	switch (options->subcommand) {
	case IRQ_SHOW:
		return run_show(options, ctx);
	case IRQ_PLAN:
		return run_plan(options, ctx);
	case IRQ_APPLY:
		return run_apply(options, ctx);
	case IRQ_RESTORE:
		return run_restore(options, ctx);
	case IRQ_BALANCE:
		return irq_balance(options);
	}
	return EXIT_ERROR;
}

int cmd_irq(int argc, char **argv)
{
	const struct option_command *sub;
	struct irq_options options = { 0 };
	struct irq_context ctx = { 0 };
	int status, ret;

	sub = option_subcommand(&irq_group, argc, argv, &status);
	if (!sub)
		goto out;
	if (!option_parse(sub, argc - 1, argv + 1, &options, NULL, &status))
		goto out;
	options.subcommand = (enum irq_subcommand)(sub - irq_subcommand_specs);
	options.name = argv[1];
	options.argc = argc;
	options.argv = argv;
	cli_set_verbosity(options.verbose);
	if (signals_catch()) {
		status = runtime_error("cannot catch signals: %s", strerror(errno));
		goto out;
	}
	/* balance keeps a context of its own, reloaded as the machine changes */
	if (options.subcommand != IRQ_BALANCE) {
		ret = irq_context_open(&ctx, &options);
		if (ret) {
			status = runtime_error("cannot use the root '%s': %s",
					       options.root_dir ? options.root_dir : "/",
					       strerror(-ret));
			goto out;
		}
	}
	status = run(&options, &ctx);
out:
	irq_context_close(&ctx);
	return status;
}
