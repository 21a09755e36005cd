/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_EXPLAIN_RESULT_H
#define LATSCOPE_EXPLAIN_RESULT_H

#include <jansson.h>

#include "latscope/explain.h"
#include "latscope/explain_join.h"

/**
 * explain_result_cpu - a finished engine as JSON fields of a CPU or thread
 * entry: "causes" (kind, name, irq, pid, comm, priority, spikes, total_ns,
 * max_ns, share, periodic: the strongest train or null, periods: every
 * train with found_by, spike_source, with, alone, phase_group),
 * "worst_spikes" (start_ns, duration_ns, incomplete, contributions,
 * timeline, analysis: rtla's parts, latscope/explain_analysis.h) and
 * "explained_spikes" (with by_main_part)
 * @engine: a finished engine
 * @names: the names its records use
 * @join: its join, or NULL (then "periods" lists the cause's own trains)
 * Returns a new object the caller merges and drops.
 */
json_t *explain_result_cpu(const struct explain_cpu *engine, const struct names *names,
			   const struct explain_join *join);

/**
 * explain_result_sources - add to each periodic source of a spike list
 * (the objects of @sources, in the join's order) "occurrences" and
 * "causes" (kind, name, label, cause: its index in "causes", occurrences,
 * share, duration_ns, main)
 */
void explain_result_sources(const struct explain_cpu *engine, const struct names *names,
			    const struct explain_join *join, json_t *sources);

/**
 * explain_result_spike - one spike of a finished engine as JSON: start_ns,
 * duration_ns, incomplete, contributions, timeline and analysis, as in
 * "worst_spikes"
 * Returns a new reference, or NULL.
 */
json_t *explain_result_spike(const struct explain_cpu *engine, const struct explain_spike *spike);

#endif
