// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "cmd_irq.h"
#include "latscope/log.h"
#include "latscope/parse.h"
#include "latscope/result.h"

#define DEFAULT_SAMPLE_NS NS_PER_SEC
#define DEFAULT_VERIFY_NS (3 * NS_PER_SEC)

void cmd_irq_usage(FILE *out)
{
	fprintf(out,
		"usage: latscope irq show    [--root DIR] [--rt-cpus LIST] [--sample DUR] [--json FILE]\n"
		"       latscope irq plan    [--root DIR] [--rt-cpus LIST] [--sample DUR] [--json FILE]\n"
		"       latscope irq apply   [plan options] [--verify] [--journal FILE]\n"
		"       latscope irq balance [plan options] [--interval DUR] [--max-moves-per-hour N]\n"
		"                            [--min-dwell DUR] [--dead-band PCT] [--restore-on-exit]\n"
		"                            [--force] [--journal FILE] [--count N]\n"
		"       latscope irq restore [--root DIR] [--journal FILE] [--json FILE]\n"
		"\n"
		"Keep interrupts off real-time CPUs, place them on their device's NUMA node,\n"
		"move them rarely and say why.\n"
		"\n"
		"  show     per CPU, what can interrupt it and how often; flags movable IRQs\n"
		"           that can reach an RT CPU and managed IRQs delivered to one\n"
		"  plan     the moves that would be made, each with its reason (a dry run)\n"
		"  apply    make them: journal first, write, read back, check effective CPUs\n"
		"  balance  plan and apply every interval, with hysteresis, dwell and budget\n"
		"  restore  put back every affinity the journal holds\n"
		"\n"
		"  --root DIR               read and write a fixture tree instead of / \n"
		"  --rt-cpus LIST           RT CPUs on top of isolated and nohz_full ones\n"
		"  --sample DUR             rate window (default 1s; a fixture uses counts\n"
		"                           since boot)\n"
		"  --json FILE              write the result document\n"
		"  --verify                 count interrupts on RT CPUs before and after (3s)\n"
		"  --journal FILE           default " IRQ_JOURNAL_PATH " under the root\n"
		"  --interval DUR           balance interval (default 10s)\n"
		"  --max-moves-per-hour N   balance budget (default 12)\n"
		"  --min-dwell DUR          an IRQ moved stays at least this long (default 5m)\n"
		"  --dead-band PCT          overload above the node mean + PCT%% (default 25)\n"
		"  --restore-on-exit        balance restores the journal on SIGINT/SIGTERM\n"
		"  --force                  balance even while irqbalance runs\n"
		"  --count N                balance N intervals, then stop\n"
		"  -v, --verbose            more detail (twice: debug)\n"
		"\n"
		"exit status: 0 ok, 1 error (a write failed, no CPU left), 129 usage error\n");
}

enum {
	OPT_ROOT = 1000,
	OPT_JSON,
	OPT_RT_CPUS,
	OPT_SAMPLE,
	OPT_VERIFY,
	OPT_JOURNAL,
	OPT_INTERVAL,
	OPT_MAX_MOVES,
	OPT_MIN_DWELL,
	OPT_DEAD_BAND,
	OPT_RESTORE_ON_EXIT,
	OPT_FORCE,
	OPT_COUNT,
};

static const struct option long_options[] = {
	{ "root", required_argument, NULL, OPT_ROOT },
	{ "json", required_argument, NULL, OPT_JSON },
	{ "rt-cpus", required_argument, NULL, OPT_RT_CPUS },
	{ "sample", required_argument, NULL, OPT_SAMPLE },
	{ "verify", no_argument, NULL, OPT_VERIFY },
	{ "journal", required_argument, NULL, OPT_JOURNAL },
	{ "interval", required_argument, NULL, OPT_INTERVAL },
	{ "max-moves-per-hour", required_argument, NULL, OPT_MAX_MOVES },
	{ "min-dwell", required_argument, NULL, OPT_MIN_DWELL },
	{ "dead-band", required_argument, NULL, OPT_DEAD_BAND },
	{ "restore-on-exit", no_argument, NULL, OPT_RESTORE_ON_EXIT },
	{ "force", no_argument, NULL, OPT_FORCE },
	{ "count", required_argument, NULL, OPT_COUNT },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

#define BIT(opt) (1U << ((opt)-OPT_ROOT))
#define PLAN_OPTIONS (BIT(OPT_ROOT) | BIT(OPT_JSON) | BIT(OPT_RT_CPUS) | BIT(OPT_SAMPLE))

static const struct {
	const char *name;
	const char *command_name; /* for error messages: "latscope irq plan: ..." */
	unsigned int options; /* the BIT()s it accepts */
} subcommands[] = {
	[IRQ_SHOW] = { "show", "irq show", PLAN_OPTIONS },
	[IRQ_PLAN] = { "plan", "irq plan", PLAN_OPTIONS },
	[IRQ_APPLY] = { "apply", "irq apply", PLAN_OPTIONS | BIT(OPT_VERIFY) | BIT(OPT_JOURNAL) },
	[IRQ_BALANCE] = { "balance", "irq balance",
			  PLAN_OPTIONS | BIT(OPT_JOURNAL) | BIT(OPT_INTERVAL) | BIT(OPT_MAX_MOVES) |
				  BIT(OPT_MIN_DWELL) | BIT(OPT_DEAD_BAND) |
				  BIT(OPT_RESTORE_ON_EXIT) | BIT(OPT_FORCE) | BIT(OPT_COUNT) },
	[IRQ_RESTORE] = { "restore", "irq restore",
			  BIT(OPT_ROOT) | BIT(OPT_JOURNAL) | BIT(OPT_JSON) },
};

#define NR_SUBCOMMANDS (sizeof(subcommands) / sizeof(subcommands[0]))

static const char *option_name(int opt)
{
	const struct option *o;

	for (o = long_options; o->name; o++)
		if (o->val == opt)
			return o->name;
	return "?";
}

static int parse_value(struct irq_options *o, int opt, const char *arg)
{
	long long value;
	int ret = 0;

	switch (opt) {
	case OPT_ROOT:
		o->root_dir = arg;
		break;
	case OPT_JSON:
		o->json_path = arg;
		break;
	case OPT_JOURNAL:
		o->journal_path = arg;
		break;
	case OPT_RT_CPUS:
		ret = option_cpus("--rt-cpus", arg, &o->rt_cpus);
		break;
	case OPT_SAMPLE:
		ret = option_duration("--sample", arg, NS_PER_SEC, 10 * NS_PER_MS, NS_PER_HOUR,
				      &o->sample_ns);
		o->sample_given = true;
		break;
	case OPT_INTERVAL:
		ret = option_duration("--interval", arg, NS_PER_SEC, 100 * NS_PER_MS, NS_PER_DAY,
				      &o->interval_ns);
		break;
	case OPT_MIN_DWELL:
		ret = option_duration("--min-dwell", arg, NS_PER_SEC, 0, 7 * NS_PER_DAY,
				      &o->min_dwell_ns);
		break;
	case OPT_MAX_MOVES:
		ret = option_integer("--max-moves-per-hour", arg, 0, 100000, &value);
		o->max_moves_per_hour = (unsigned int)value;
		break;
	case OPT_DEAD_BAND:
		ret = option_integer("--dead-band", arg, 1, 1000, &value);
		o->dead_band = (double)value / 100;
		break;
	case OPT_COUNT:
		ret = option_integer("--count", arg, 1, 1000000000, &value);
		o->count = (unsigned long long)value;
		break;
	case OPT_VERIFY:
		o->verify = true;
		break;
	case OPT_RESTORE_ON_EXIT:
		o->restore_on_exit = true;
		break;
	case OPT_FORCE:
		o->force = true;
		break;
	}
	return ret;
}

static int parse_options(struct irq_options *o, int argc, char **argv, bool *help)
{
	size_t i;
	int opt;

	memset(o, 0, sizeof(*o));
	o->sample_ns = DEFAULT_SAMPLE_NS;
	o->interval_ns = 10 * NS_PER_SEC;
	o->max_moves_per_hour = 12;
	o->min_dwell_ns = 5 * NS_PER_MIN;
	o->dead_band = 0.25;
	o->argc = argc;
	o->argv = argv;
	*help = false;
	if (argc < 2)
		return usage_error("missing subcommand: show, plan, apply, balance or restore");
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		*help = true;
		return 0;
	}
	for (i = 0; i < NR_SUBCOMMANDS; i++)
		if (!strcmp(argv[1], subcommands[i].name))
			break;
	if (i == NR_SUBCOMMANDS)
		return usage_error("no subcommand '%s' (show, plan, apply, balance or restore)",
				   argv[1]);
	o->subcommand = (enum irq_subcommand)i;
	o->name = subcommands[i].name;
	cli_set_command_name(subcommands[i].command_name);
	opterr = 0;
	optind = 2;
	while ((opt = getopt_long(argc, argv, "vh", long_options, NULL)) != -1) {
		int ret;

		if (opt == 'h') {
			*help = true;
			return 0;
		}
		if (opt == 'v') {
			o->verbose++;
			continue;
		}
		if (opt == '?')
			return option_rejected(argc, argv, "vh", long_options);
		if (!(subcommands[i].options & BIT(opt)))
			return usage_error("option '--%s' is not for 'latscope irq %s'",
					   option_name(opt), o->name);
		ret = parse_value(o, opt, optarg);
		if (ret)
			return ret;
	}
	if (optind < argc)
		return usage_error("unexpected argument '%s'", argv[optind]);
	return 0;
}

bool irq_sleep(uint64_t ns)
{
	uint64_t end = clock_ns(CLOCK_MONOTONIC) + ns, now;
	struct timespec ts;

	while (!stop_requested && (now = clock_ns(CLOCK_MONOTONIC)) < end) {
		ts = clock_timespec(end - now);
		/* a signal (no SA_RESTART) ends the sleep early */
		if (nanosleep(&ts, NULL) && errno == EINTR && (stop_requested || reload_requested))
			break;
	}
	return !stop_requested;
}

int irq_context_open(struct irq_context *ctx, const struct irq_options *options)
{
	int ret;

	memset(ctx, 0, sizeof(*ctx));
	ctx->root = sysroot_new(options->root_dir);
	if (!ctx->root)
		return -ENOMEM;
	if (options->journal_path) {
		if (strlen(options->journal_path) >= sizeof(ctx->journal))
			return -ENAMETOOLONG;
		strcpy(ctx->journal, options->journal_path);
		return 0;
	}
	ret = irq_journal_default_path(ctx->root, ctx->journal, sizeof(ctx->journal));
	return ret;
}

void irq_context_release(struct irq_context *ctx)
{
	free(ctx->rates);
	ctx->rates = NULL;
	irq_counts_release(&ctx->window);
	irq_table_release(&ctx->table);
	topology_release(&ctx->topo);
}

void irq_context_close(struct irq_context *ctx)
{
	irq_journal_unlock(ctx->journal_lock);
	ctx->journal_lock = NULL;
	irq_context_release(ctx);
	sysroot_free(ctx->root);
	ctx->root = NULL;
}

int irq_lock_journal(struct irq_context *ctx, bool create)
{
	int ret = irq_journal_lock(ctx->journal, create, IRQ_JOURNAL_LOCK_WAIT_NS,
				   &ctx->journal_lock);

	if (ret == -ENOENT)
		log_error("no journal %s: nothing to restore", ctx->journal);
	return ret ? EXIT_ERROR : EXIT_OK;
}

/* Only show lists per-CPU counts: 40 MB on a 1024-CPU machine with 10,000 IRQs. */
static bool wants_window(const struct irq_options *options)
{
	return options->subcommand == IRQ_SHOW;
}

/* Rates from two reads @ns apart; -ESTALE when IRQs came or went meanwhile. */
static int sample(struct irq_context *ctx, const struct irq_options *options, uint64_t ns)
{
	struct irq_counts after;
	int ret;

	ret = irq_counts_init(&after, &ctx->table);
	if (ret)
		return ret;
	if (!irq_sleep(ns)) {
		irq_counts_release(&after);
		return -EINTR;
	}
	ret = irq_counts_read(ctx->root, &ctx->table, &after);
	if (!ret && wants_window(options))
		ret = irq_counts_delta(&ctx->table.counts, &after, &ctx->window);
	if (!ret) {
		ctx->window_ns = after.time_ns - ctx->table.counts.time_ns;
		irq_rates(&ctx->table, &ctx->table.counts, &after, ctx->rates);
	}
	irq_counts_release(&after);
	return ret;
}

static int load_once(struct irq_context *ctx, const struct irq_options *options)
{
	uint64_t start = clock_ns(CLOCK_MONOTONIC);
	int ret;

	ret = topology_load(ctx->root, &ctx->topo);
	if (!ret)
		ret = irq_table_load(ctx->root, &ctx->table);
	if (!ret)
		ret = irq_read_default_affinity(ctx->root, &ctx->default_affinity);
	if (!ret && wants_window(options))
		ret = irq_counts_init(&ctx->window, &ctx->table);
	if (!ret) {
		ctx->rates = calloc(ctx->table.nr_irqs + 1, sizeof(double));
		if (!ctx->rates)
			ret = -ENOMEM;
	}
	if (ret)
		return ret;
	log_info("inventory: %u irqs, %u vectors, %u cpus read in %.1f ms", ctx->table.nr_irqs,
		 ctx->table.nr_vectors, ctx->table.nr_columns,
		 (double)(clock_ns(CLOCK_MONOTONIC) - start) / 1e6);
	/* a fixture is one snapshot: its counts since boot are the weights */
	if (!sysroot_is_live(ctx->root) || !options->sample_ns) {
		if (options->sample_given && !sysroot_is_live(ctx->root))
			log_info("--sample ignored: a fixture has a single snapshot");
		if (wants_window(options))
			memcpy(ctx->window.values, ctx->table.counts.values,
			       (size_t)ctx->window.nr_rows * ctx->window.nr_columns *
				       sizeof(uint32_t));
		ctx->window_ns = 0;
		irq_rates(&ctx->table, NULL, &ctx->table.counts, ctx->rates);
		return 0;
	}
	return sample(ctx, options, options->sample_ns);
}

int irq_context_load(struct irq_context *ctx, const struct irq_options *options)
{
	int ret = load_once(ctx, options);

	/* an IRQ came or went while sampling: once more */
	if (ret == -ESTALE) {
		irq_context_release(ctx);
		ret = load_once(ctx, options);
	}
	if (ret == -ESTALE)
		log_error("the IRQs keep changing while sampled; try again");
	if (ret == -EINTR)
		log_error("interrupted while sampling the interrupt counts");
	return ret;
}

void irq_policy(const struct irq_options *options, struct irqplan_policy *policy)
{
	irqplan_policy_default(policy);
	policy->dead_band = options->dead_band;
	if (options->subcommand == IRQ_BALANCE) {
		policy->overload_intervals = 3;
		policy->min_dwell_ns = options->min_dwell_ns;
		policy->max_moves_per_hour = options->max_moves_per_hour;
	}
}

void irq_plan_input(const struct irq_context *ctx, const struct irq_options *options,
		    struct irqplan_input *input)
{
	memset(input, 0, sizeof(*input));
	input->topo = &ctx->topo;
	input->table = &ctx->table;
	input->rates = ctx->rates;
	input->rates_are_counts = ctx->window_ns == 0;
	input->rt_cpus = options->rt_cpus;
	input->default_affinity = ctx->default_affinity;
}

/* --rt-cpus alone must leave a CPU: otherwise it is the argument that is wrong. */
int irq_check_rt_cpus(const struct irq_context *ctx, const struct irq_options *options)
{
	char text[256];
	struct cpuset left;

	if (cpuset_empty(&options->rt_cpus))
		return 0;
	cpuset_andnot(&left, &ctx->topo.online, &options->rt_cpus);
	if (cpuset_empty(&left))
		return usage_error(
			"--rt-cpus '%s' covers every online cpu: none is left for interrupts",
			cpuset_format_list(&options->rt_cpus, text, sizeof(text)));
	cpuset_andnot(&left, &options->rt_cpus, &ctx->topo.online);
	if (!cpuset_empty(&left))
		log_warning("--rt-cpus: cpu %s not online",
			    cpuset_format_list(&left, text, sizeof(text)));
	return 0;
}

static int load_and_plan(struct irq_context *ctx, const struct irq_options *options,
			 struct irqplan *plan)
{
	struct irqplan_policy policy;
	struct irqplan_input input;
	uint64_t start;
	int ret;

	if (irq_context_load(ctx, options))
		return EXIT_ERROR;
	ret = irq_check_rt_cpus(ctx, options);
	if (ret)
		return ret;
	irq_plan_input(ctx, options, &input);
	irq_policy(options, &policy);
	start = clock_ns(CLOCK_MONOTONIC);
	if (irqplan_make(&input, &policy, plan))
		return EXIT_ERROR;
	log_info("planner: %u moves in %.2f ms", plan->nr_moves,
		 (double)(clock_ns(CLOCK_MONOTONIC) - start) / 1e6);
	return EXIT_OK;
}

static void rt_set(const struct irq_context *ctx, const struct irq_options *options,
		   struct cpuset *rt)
{
	cpuset_or(rt, &ctx->topo.isolated, &ctx->topo.nohz_full);
	cpuset_or(rt, rt, &options->rt_cpus);
}

static int run_show(const struct irq_options *options, struct irq_context *ctx)
{
	struct cpuset rt;
	json_t *doc;
	int ret;

	if (irq_context_load(ctx, options))
		return EXIT_ERROR;
	rt_set(ctx, options, &rt);
	irq_print_show(ctx, options, &rt);
	if (!options->json_path)
		return EXIT_OK;
	doc = irq_json_document(ctx, options);
	irq_json_add_irqs(doc, ctx);
	irq_json_add_show(doc, ctx, &rt);
	ret = irq_json_write(doc, options);
	json_decref(doc);
	return ret;
}

static int run_plan(const struct irq_options *options, struct irq_context *ctx)
{
	struct irqplan plan;
	json_t *doc;
	int ret;

	ret = load_and_plan(ctx, options, &plan);
	if (ret)
		return ret;
	irq_print_plan(ctx, &plan);
	if (options->json_path) {
		doc = irq_json_document(ctx, options);
		irq_json_add_irqs(doc, ctx);
		irq_json_add_plan(doc, ctx, &plan);
		ret = irq_json_write(doc, options);
		json_decref(doc);
	}
	irqplan_release(&plan);
	return ret;
}

/* Device interrupts per second on each RT CPU over @ns (--verify). */
static int rt_rates(struct irq_context *ctx, const struct cpuset *rt, uint64_t ns, double *rates)
{
	struct irq_counts before, after;
	unsigned int row, column;
	double seconds;
	int ret;

	memset(rates, 0, ctx->table.nr_columns * sizeof(double));
	ret = irq_counts_init(&before, &ctx->table);
	if (ret)
		return ret;
	ret = irq_counts_init(&after, &ctx->table);
	if (!ret)
		ret = irq_counts_read(ctx->root, &ctx->table, &before);
	if (!ret && !irq_sleep(ns))
		ret = -EINTR;
	if (!ret)
		ret = irq_counts_read(ctx->root, &ctx->table, &after);
	if (!ret) {
		seconds = (double)(after.time_ns - before.time_ns) / 1e9;
		for (column = 0; column < ctx->table.nr_columns; column++) {
			if (!cpuset_has(rt, ctx->table.column_cpu[column]))
				continue;
			for (row = 0; row < ctx->table.nr_irqs; row++)
				rates[column] += (uint32_t)(irq_count(&after, row, column) -
							    irq_count(&before, row, column));
			rates[column] /= seconds > 0 ? seconds : 1;
		}
	}
	irq_counts_release(&before);
	irq_counts_release(&after);
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
			irq_print_move(&ctx->table, &plan->moves[i], result);
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
	struct irqplan plan;
	json_t *doc = NULL;
	struct cpuset rt;
	int ret, status;

	if (sysroot_is_live(ctx->root) && geteuid())
		return runtime_error("apply writes /proc/irq: run it as root");
	if (options->verify && !sysroot_is_live(ctx->root))
		return usage_error(
			"--verify counts live interrupts: it cannot be used with --root");
	/* before the affinities are read: a second apply plans from what this one leaves */
	if (irq_lock_journal(ctx, true))
		return EXIT_ERROR;
	ret = load_and_plan(ctx, options, &plan);
	if (ret)
		return ret;
	irq_print_plan(ctx, &plan);
	if (options->json_path) {
		doc = irq_json_document(ctx, options);
		irq_json_add_irqs(doc, ctx);
		irq_json_add_plan(doc, ctx, &plan);
	}
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
	json_t *doc;
	int ret, status;

	if (sysroot_is_live(ctx->root) && geteuid())
		return runtime_error("restore writes /proc/irq: run it as root");
	if (irq_lock_journal(ctx, false))
		return EXIT_ERROR;
	ret = irq_journal_restore(ctx->root, ctx->journal_lock, &report);
	irq_journal_unlock(ctx->journal_lock);
	ctx->journal_lock = NULL;
	/* refused or unreadable: nothing was written, the library said why */
	if (ret && ret != -EIO && ret != -ESTALE)
		return EXIT_ERROR;
	status = ret ? EXIT_ERROR : EXIT_OK;
	printf("restored: %u irqs%s, %u gone, %u skipped, %u failed; journal %s\n", report.restored,
	       report.default_restored ? " and default_smp_affinity" : "", report.gone,
	       report.stale, report.failed, ret ? "kept" : "removed");
	if (!options->json_path)
		return status;
	/* the host facts name the CPUs; restore needed no topology until now */
	if (topology_load(ctx->root, &ctx->topo))
		memset(&ctx->topo, 0, sizeof(ctx->topo));
	doc = irq_json_document(ctx, options);
	json_object_set_new(doc, "journal", json_string(ctx->journal));
	json_object_set_new(doc, "restored", json_integer(report.restored));
	json_object_set_new(doc, "gone", json_integer(report.gone));
	json_object_set_new(doc, "skipped", json_integer(report.stale));
	json_object_set_new(doc, "failed", json_integer(report.failed));
	json_object_set_new(doc, "default_restored", json_boolean(report.default_restored));
	if (irq_json_write(doc, options))
		status = EXIT_ERROR;
	json_decref(doc);
	return status;
}

int cmd_irq(int argc, char **argv)
{
	struct irq_options options;
	struct irq_context ctx;
	bool help;
	int status;

	status = parse_options(&options, argc, argv, &help);
	if (status)
		return status;
	if (help) {
		cmd_irq_usage(stdout);
		return EXIT_OK;
	}
	cli_set_verbosity(options.verbose);
	if (options.json_path) {
		status = result_check_writable(options.json_path);
		if (status)
			return runtime_error("cannot write '%s': %s", options.json_path,
					     strerror(-status));
	}
	if (options.journal_path) {
		status = irq_journal_check_path(options.journal_path);
		if (status)
			return usage_error("invalid --journal '%.64s%s': %s", options.journal_path,
					   strlen(options.journal_path) > 64 ? "..." : "",
					   status == -EINVAL ? "not a regular file" :
					   status == -EISDIR ? "a directory; name a file in it" :
							       strerror(-status));
	}
	if (signals_catch())
		return runtime_error("cannot catch signals: %s", strerror(errno));
	if (options.subcommand == IRQ_BALANCE)
		return irq_balance(&options);
	status = irq_context_open(&ctx, &options);
	if (status) {
		status =
			runtime_error("cannot use the root '%s': %s",
				      options.root_dir ? options.root_dir : "/", strerror(-status));
		irq_context_close(&ctx);
		return status;
	}
	switch (options.subcommand) {
	case IRQ_SHOW:
		status = run_show(&options, &ctx);
		break;
	case IRQ_PLAN:
		status = run_plan(&options, &ctx);
		break;
	case IRQ_APPLY:
		status = run_apply(&options, &ctx);
		break;
	case IRQ_RESTORE:
		status = run_restore(&options, &ctx);
		break;
	default:
		status = EXIT_ERROR;
	}
	irq_context_close(&ctx);
	return status;
}
