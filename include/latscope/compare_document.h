/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_COMPARE_DOCUMENT_H
#define LATSCOPE_COMPARE_DOCUMENT_H

#include <jansson.h>

#include "latscope/compare_pairs.h"
#include "latscope/compare_result.h"
#include "latscope/run.h"

/*
 * The parts of compare's result document (--json), which the command puts
 * into a result_new() document beside its command line and times:
 *
 *   "params":   {"by", "percentiles", "confidence", "practical":
 *		  {"fraction", "ns"}, "budget_ns"}
 *   "inputs":   [{"file", "role" ("A", "B", "C"...: its group), "run" (its
 *		  number in the group), "command", "format", "command_line",
 *		  "start_time", "series"}]
 *   "pairs":    [{"what", "cpu", "thread", "a", "b", "sides": {"a", "b"},
 *		  "stats": [compare_stat_json()...], "misses": {"a", "b"}
 *		  (with a budget), "gev": {"a", "b"} (tail_estimate_json()),
 *		  "verdicts": {"worse", "better", "same", "inconclusive", "n/a"}}]
 *   "unpaired": [{"file", "what", "reason"}]
 *
 * A side is {"role", "input", "file" (its first run's), "files", "runs",
 * "series": [labels], "samples", "samples_per_s", "min_ns", "max_ns",
 * "no_histogram" (when it has none), "exceedance": [{"percent",
 * "value_ns", "ci_ns"}], "block_maxima": {"blocks", "block_ns", "note",
 * "largest": [[period_s, value_ns]...]}, "resampling": {"block_ns" (the
 * time blocks' length used), "fewest_blocks", "lag1", "correlated",
 * "note"}}.
 * Durations are integers in ns; what a side cannot give is null.
 */

/* "params" (new reference, or NULL) */
json_t *compare_document_params(const struct compare_settings *s, enum compare_by by);

/* "inputs" (new reference, or NULL): each input with its group's role and its run number in it */
json_t *compare_document_inputs(const struct run *const *runs, const char *const *names,
				unsigned int nr_runs, const struct compare_plan *plan);

/**
 * compare_document_pairs - the "pairs" array
 * @runs: the inputs
 * @names: their file names, as given
 * @r: the result
 *
 * Returns a new reference, or NULL.
 */
json_t *compare_document_pairs(const struct run *const *runs, const char *const *names,
			       const struct compare_result *r);

/* "unpaired" (new reference, or NULL) */
json_t *compare_document_unpaired(const struct compare_plan *plan, const char *const *names);

/* "A", "B", ... "Z", then "27", "28"...: a group's role; @buf holds 12 */
const char *compare_role_name(unsigned int group, char *buf, size_t size);

#endif
