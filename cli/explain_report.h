/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_CLI_EXPLAIN_REPORT_H
#define LATSCOPE_CLI_EXPLAIN_REPORT_H

#include <stdio.h>

#include <stdbool.h>

#include "latscope/counters.h"
#include "latscope/explain.h"
#include "latscope/explain_join.h"

/**
 * explain_report_cpu - the cause table of one CPU (or thread) and its worst
 * spikes with their timelines
 * @out: where to print
 * @heading: "cpu 1" or "thread 0 (cpu 1)"
 * @spike_word: "gaps" or "spikes"
 * @engine: a finished engine
 * @join: its join (every train of every cause, with their company), or NULL
 * @virtual_machine: name the hypervisor as what unexplained time is
 * @steal_ns: the CPU's steal time during the run, printed beside the
 *	      unexplained time
 * @origin_ns: the run's start on the timeline, for "at 1.234 s"
 */
void explain_report_cpu(FILE *out, const char *heading, const char *spike_word,
			const struct explain_cpu *engine, const struct explain_join *join,
			bool virtual_machine, uint64_t steal_ns, uint64_t origin_ns);

/**
 * explain_report_source_causes - the causes of a periodic source of the
 * spike list in words: "local_timer + unexplained (firmware, hypervisor);
 * also RCU softirq (27%)"; "" when the join has none
 * Returns @buf.
 */
char *explain_report_source_causes(const struct explain_cpu *engine,
				   const struct explain_join *join, unsigned int source, char *buf,
				   size_t size);

/**
 * explain_report_spike - one spike: "<prefix>3.012 ms at 0.087000 s", then
 * its timeline, a line per cause in the order they ran
 * @out: where to print
 * @prefix: what comes first on the spike's line ("  1. ")
 * @engine: the finished engine the spike is from
 * @spike: the spike
 * @origin_ns: the run's start on the timeline
 */
void explain_report_spike(FILE *out, const char *prefix, const struct explain_cpu *engine,
			  const struct explain_spike *spike, uint64_t origin_ns);

/* The interrupt and softirq counts of a CPU during the run, and its SMIs. */
void explain_report_counters(FILE *out, const char *heading, const struct counters_run *counters,
			     unsigned int cpu);

#endif
