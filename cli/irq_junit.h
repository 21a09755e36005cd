/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_CLI_IRQ_JUNIT_H
#define LATSCOPE_CLI_IRQ_JUNIT_H

#include "irq_context.h"
#include "latscope/irqplan.h"
#include "latscope/junit.h"

/**
 * irq_plan_junit - --junit of irq plan: a failed case per unmovable IRQ
 * that reaches an RT CPU
 * @ctx: the loaded machine
 * @options: the command's (--junit, --json)
 * @plan: the plan made
 *
 * Each failure names the IRQ, the RT CPUs it is delivered to and why
 * nothing can move it; an IRQ whose affinity files do not read is an
 * <error> (where it fires is unknown). With none of either, one case says
 * the RT CPUs hold no unmovable IRQ and passes. The plan's exit status is
 * unchanged: it is a dry run. Returns EXIT_OK, or EXIT_ERROR after one line.
 */
int irq_plan_junit(const struct irq_context *ctx, const struct irq_options *options,
		   const struct irqplan *plan);

#endif
