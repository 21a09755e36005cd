/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_COMPARE_JSON_H
#define LATSCOPE_COMPARE_JSON_H

#ifndef LATSCOPE_INSIDE_COMPARE
#error "lib/compare/compare_json.h is private to lib/compare/: outside it, use the headers of include/latscope/"
#endif

#include <jansson.h>

#include "latscope/compare_stats.h"
#include "latscope/miss_rate.h"
#include "latscope/tail_estimate.h"

/*
 * The JSON of `compare`'s statistics, so the command only assembles them.
 * Durations are integers in ns. A figure that does not exist (a side with
 * too few samples, an interval the data leave open) is null, never NaN or
 * infinity, which JSON cannot hold.
 */

/**
 * compare_stat_json - one row of `stats`
 * @s: the row
 *
 * {"name", "a_ns", "b_ns", "diff_ns", "ci_ns": [low, high], "verdict",
 *  "reason", "method" ("values", "blocks", "runs" or "rounds"), "units"
 *  (resampled at the top), "df", "units_to_decide" (inconclusive: the runs
 *  or rounds that would decide), "power": {"detectable_ns",
 *  "rounds_for_5pct", "spread": "paired" or "a" when B's change varies
 *  between rounds} (rounds only), "a_ci_ns": [low, high], "b_ci_ns":
 *  [low, high]}; a figure a side cannot give is null. Returns a new
 *  reference, or NULL.
 */
json_t *compare_stat_json(const struct compare_stat *s);

/**
 * tail_estimate_json - one side's `gev` object
 * @t: the estimate
 *
 * {"blocks", "block_ns", "loc_ns", "scale_ns", "shape",
 *  "se": {"loc_ns", "scale_ns", "shape"},
 *  "return_levels": [{"period_s", "value_ns", "ci_ns": [low, high]}],
 *  "exceedance": {"budget_ns", "p_block", "p_day", "p_day_ci"} (with a budget),
 *  "checks": {"shape": {...}, "independence": {...}, "stationarity": {...},
 *	       "fit": {...}} each {"value", "bound", "pass", "says"} ("shape"
 *	       also "ci"),
 *  "long_enough": {"enough", "return_level_1d_ns", "ci_ns", "halfwidth",
 *		    "blocks_needed", "seconds_needed", "says"},
 *  "reliable", "method"}
 * or, when there is no fit, {"blocks", "block_ns", "error", "reliable": false}.
 * Returns a new reference, or NULL.
 */
json_t *tail_estimate_json(const struct tail_estimate *t);

/**
 * miss_rate_json - one side's deadline misses
 * @m: the estimate
 *
 * {"budget_ns", "samples", "misses": [low, high], "fraction", "ci": [low,
 * high], "per_hour", "per_hour_ci": [low, high]} (the per-hour figures
 * null without a sample rate). Returns a new reference, or NULL.
 */
json_t *miss_rate_json(const struct miss_rate *m);

#endif
