// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "irq_context.h"
#include "latscope/log.h"
#include "latscope/parse.h"

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

/* Only show lists per-CPU counts. */
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
		ctx->window_ns = 0;
		irq_rates(&ctx->table, NULL, &ctx->table.counts, ctx->rates);
		return wants_window(options) ? irq_counts_copy(&ctx->window, &ctx->table.counts) :
					       0;
	}
	return sample(ctx, options, options->sample_ns);
}

/* Why irq_context_load() failed with @ret, in words; the library said the rest. */
static const char *load_failure(int ret, char *buf, size_t size)
{
	if (ret == -ESTALE)
		return "the IRQs keep changing while sampled; try again";
	if (ret == -EINTR)
		return "interrupted while sampling the interrupt counts";
	snprintf(buf, size, "cannot read the IRQs: %s", strerror(-ret));
	return buf;
}

int irq_context_load(struct irq_context *ctx, const struct irq_options *options)
{
	int ret = load_once(ctx, options);
	char words[128];

	/* an IRQ came or went while sampling: once more */
	if (ret == -ESTALE) {
		irq_context_release(ctx);
		ret = load_once(ctx, options);
	}
	if (ret == -ESTALE || ret == -EINTR)
		log_error("%s", load_failure(ret, words, sizeof(words)));
	return ret;
}

void irq_options_default(struct irq_options *options)
{
	irqplan_policy_default(&options->policy);
	options->sample_ns = NS_PER_SEC;
	/* a burst that piles two hot queues on one CPU lasts 10-60 s: seen within 2 */
	options->interval_ns = 2 * NS_PER_SEC;
}

int irq_context_plan(struct irq_context *ctx, const struct irq_options *options,
		     struct irqplan *plan, struct part_result *why)
{
	struct irqplan_policy policy;
	struct irqplan_input input;
	char words[128];
	uint64_t start;
	int ret;

	ret = irq_context_load(ctx, options);
	if (ret)
		return part_record(why, ret == -EINTR ? PART_STOPPED : PART_NO_MACHINE, EXIT_ERROR,
				   "%s", load_failure(ret, words, sizeof(words)));
	ret = irq_check_rt_cpus(ctx, options, why);
	if (ret)
		return ret;
	irq_plan_input(ctx, options, &input);
	irq_policy(options, &policy);
	start = clock_ns(CLOCK_MONOTONIC);
	ret = irqplan_make(&input, &policy, plan);
	if (ret == -ENOMEM)
		return part_record(why, PART_NO_MEMORY, EXIT_ERROR,
				   "out of memory planning the IRQ placement");
	if (ret)
		return part_record(why, PART_REFUSED, EXIT_ERROR, "no cpu is left for interrupts");
	log_info("planner: %u moves in %.2f ms", plan->nr_moves,
		 (double)(clock_ns(CLOCK_MONOTONIC) - start) / 1e6);
	return EXIT_OK;
}

void irq_policy(const struct irq_options *options, struct irqplan_policy *policy)
{
	*policy = options->policy;
	if (options->subcommand == IRQ_BALANCE)
		irqplan_policy_for_balance(policy);
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
int irq_check_rt_cpus(const struct irq_context *ctx, const struct irq_options *options,
		      struct part_result *why)
{
	char text[256];
	struct cpuset left;

	if (cpuset_empty(&options->rt_cpus))
		return 0;
	cpuset_andnot(&left, &ctx->topo.online, &options->rt_cpus);
	if (cpuset_empty(&left))
		return part_refuse(
			why, PART_REFUSED, EXIT_USAGE,
			"--rt-cpus '%s' covers every online cpu: none is left for interrupts",
			cpuset_format_list(&options->rt_cpus, text, sizeof(text)));
	cpuset_andnot(&left, &options->rt_cpus, &ctx->topo.online);
	if (!cpuset_empty(&left))
		log_warning("--rt-cpus: cpu %s not online",
			    cpuset_format_list(&left, text, sizeof(text)));
	return 0;
}
