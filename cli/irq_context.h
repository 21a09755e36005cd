/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_CLI_IRQ_CONTEXT_H
#define LATSCOPE_CLI_IRQ_CONTEXT_H

#include <stdbool.h>
#include <stdint.h>

#include "common_options.h"
#include "junit_output.h"
#include "latscope/clock.h"
#include "latscope/irq.h"
#include "latscope/irq_apply.h"
#include "latscope/irq_journal.h"
#include "latscope/irqplan.h"
#include "latscope/sysroot.h"
#include "latscope/topology.h"
#include "part_result.h"

/*
 * What every subcommand of 'latscope irq' shares: the options its table
 * fills (cmd_irq.c) and the machine it works on.
 */

enum irq_subcommand {
	IRQ_SHOW,
	IRQ_PLAN,
	IRQ_APPLY,
	IRQ_BALANCE,
	IRQ_RESTORE,
};

struct irq_options {
	enum irq_subcommand subcommand;
	const char *name; /* "plan" */
	const char *root_dir; /* NULL: the live system */
	struct json_output json;
	struct junit_output junit; /* plan only */
	const char *journal_path; /* NULL: IRQ_JOURNAL_PATH under the root */
	struct cpuset rt_cpus;
	uint64_t sample_ns;
	bool sample_given;
	bool verify;
	uint64_t interval_ns;
	/* the planner's, from irqplan_policy_default(); balance sets the dead
	 * band, the dwell and the budget */
	struct irqplan_policy policy;
	bool restore_on_exit;
	bool force;
	unsigned long long count; /* balance intervals, 0 = until stopped */
	int verbose;
	int argc; /* the command line, for the JSON document */
	char **argv;
};

/* What a subcommand works on: the machine, its IRQs and their rates. */
struct irq_context {
	struct sysroot *root;
	struct topology topo;
	struct irq_table table;
	struct cpuset default_affinity;
	/* counts of the sample window, or since boot when not sampled */
	struct irq_counts window;
	uint64_t window_ns; /* 0: counts since boot */
	double *rates; /* per IRQ row */
	char journal[4096];
	/* held from before the first read of the journal to after the last write */
	struct irq_journal_lock *journal_lock;
};

/* The defaults of every subcommand: the planner's policy, a 1 s rate sample. */
void irq_options_default(struct irq_options *options);

/* The root and the journal's path; 0 or a negative errno code. */
int irq_context_open(struct irq_context *ctx, const struct irq_options *options);
/* topology, table, default affinity, then rates over the sample */
int irq_context_load(struct irq_context *ctx, const struct irq_options *options);
/* Drop what irq_context_load() read (to load again). */
void irq_context_release(struct irq_context *ctx);
/* closes the context; releases the journal's lock when held */
void irq_context_close(struct irq_context *ctx);

/*
 * Take the journal for this run (apply and balance: @create its directory;
 * restore: a missing directory is "no journal"), waiting up to
 * IRQ_JOURNAL_LOCK_WAIT_NS for another holder. 0 or EXIT_ERROR (said).
 */
int irq_lock_journal(struct irq_context *ctx, bool create);

/*
 * Load the machine (irq_context_load()), check --rt-cpus and make the plan;
 * EXIT_OK, or the exit status after the reason was said (by the library or
 * the line) and kept in @why, for a caller that runs the plan as a part
 * (doctor).
 */
int irq_context_plan(struct irq_context *ctx, const struct irq_options *options,
		     struct irqplan *plan, struct part_result *why);

/* usage error when --rt-cpus covers every online CPU, said and kept in @why */
int irq_check_rt_cpus(const struct irq_context *ctx, const struct irq_options *options,
		      struct part_result *why);
void irq_plan_input(const struct irq_context *ctx, const struct irq_options *options,
		    struct irqplan_input *input);
/* The planner's policy for the subcommand: the balance daemon's for balance. */
void irq_policy(const struct irq_options *options, struct irqplan_policy *policy);

/* Sleep, waking for a signal; false when a stop was requested. */
bool irq_sleep(uint64_t ns);

#endif
