/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_CLI_IRQ_REPORT_H
#define LATSCOPE_CLI_IRQ_REPORT_H

#include <jansson.h>
#include <stdio.h>

#include "irq_context.h"

/* What 'latscope irq' prints on stdout and writes in its JSON document. */

void irq_print_show(const struct irq_context *ctx, const struct irq_options *options,
		    const struct cpuset *rt);
void irq_print_plan(FILE *out, const struct irq_context *ctx, const struct irqplan *plan);
void irq_print_move(FILE *out, const struct irq_table *table, const struct irqplan_move *move,
		    const struct irq_apply_result *result);
/*
 * A verdict reached without every IRQ's affinity files is no verdict: when
 * one is there but does not read or parse (irq_affinity_unreadable()),
 * print one error line naming the first such file, the reason and
 * @verdict ("the placement is not known to be good"), and return
 * EXIT_ERROR; else EXIT_OK, silently.
 */
int irq_unjudged_error(const struct irq_context *ctx, const char *verdict);

/* The document every subcommand starts from; a new reference. */
json_t *irq_json_document(const struct irq_context *ctx, const struct irq_options *options);

/* Members of a document, written into the object @w has open: the IRQs, show's CPUs, a plan. */
struct json_writer;
void irq_write_irqs(struct json_writer *w, const struct irq_context *ctx);
void irq_write_show(struct json_writer *w, const struct irq_context *ctx, const struct cpuset *rt);
void irq_write_plan(struct json_writer *w, const struct irq_context *ctx,
		    const struct irqplan *plan);
/* One move, an object; with the result of its write when @result is not NULL. */
void irq_write_move(struct json_writer *w, const struct irq_table *table,
		    const struct irqplan_move *move, const struct irq_apply_result *result);
/* The same as a new reference, NULL when memory ran out. */
json_t *irq_json_move(const struct irq_table *table, const struct irqplan_move *move,
		      const struct irq_apply_result *result);
/* The document of a plan, for a caller that adds to it: a new reference, or NULL. */
json_t *irq_plan_document(const struct irq_context *ctx, const struct irq_options *options,
			  const struct irqplan *plan);
/*
 * Show's and plan's documents written to --json as they are made, never
 * built in memory (a 1024-CPU machine's are half a million values);
 * EXIT_OK or EXIT_ERROR.
 */
int irq_json_write_show(const struct irq_context *ctx, const struct irq_options *options,
			const struct cpuset *rt);
int irq_json_write_plan(const struct irq_context *ctx, const struct irq_options *options,
			const struct irqplan *plan);
/* Finish and write the document to --json; EXIT_OK or EXIT_ERROR. */
int irq_json_write(json_t *doc, const struct irq_options *options);

#endif
