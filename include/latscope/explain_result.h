/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_EXPLAIN_RESULT_H
#define LATSCOPE_EXPLAIN_RESULT_H

#include <jansson.h>

#include "latscope/explain.h"

/**
 * explain_result_cpu - a finished engine as JSON fields of a CPU or thread
 * entry: "causes" (kind, name, irq, pid, comm, priority, spikes, total_ns,
 * max_ns, share, periodic), "worst_spikes" (start_ns, duration_ns,
 * incomplete, contributions, timeline) and "explained_spikes"
 * Returns a new object the caller merges and drops.
 */
json_t *explain_result_cpu(const struct explain_cpu *engine, const struct names *names);

/**
 * explain_result_spike - one spike of a finished engine as JSON: start_ns,
 * duration_ns, incomplete, contributions and timeline, as in "worst_spikes"
 * Returns a new reference, or NULL.
 */
json_t *explain_result_spike(const struct explain_cpu *engine, const struct explain_spike *spike);

#endif
