/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_CLI_IRQ_BALANCE_H
#define LATSCOPE_CLI_IRQ_BALANCE_H

#include "irq_context.h"

/*
 * 'latscope irq balance': plan and apply every interval until stopped (or
 * --count intervals), with hysteresis, dwell and a budget; SIGHUP re-reads
 * the topology. Returns the exit status.
 */
int irq_balance(const struct irq_options *options);

#endif
