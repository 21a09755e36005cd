/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_MONITOR_INTERRUPTS_H
#define LATSCOPE_MONITOR_INTERRUPTS_H

#ifndef LATSCOPE_INSIDE_MONITOR
#error "lib/monitor/monitor_interrupts.h is private to lib/monitor/: outside it, use the headers of include/latscope/"
#endif

#include "monitor_engine.h"

/*
 * The interrupts that reach the measured CPUs: /proc/interrupts read by the
 * housekeeping thread every few seconds, its 32-bit counts extended to 64
 * bits per CPU (lane->interrupts, under m->irq_lock), for the exporter.
 */

/* Read the table of IRQs; without it (logged) no interrupt is counted. */
void monitor_interrupts_load(struct monitor *m);

/* One reading: what came since the last one added to each CPU's counts. */
void monitor_interrupts_read(struct monitor *m);

/* Free the table and the last reading (the lanes' counts are the lanes'). */
void monitor_interrupts_release(struct monitor *m);

#endif
