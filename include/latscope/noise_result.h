/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_NOISE_RESULT_H
#define LATSCOPE_NOISE_RESULT_H

#include <jansson.h>

#include "latscope/noise.h"

/*
 * The noise run as JSON fragments of the latscope/2 document. Each function
 * returns a new reference the caller owns.
 */

/* "params": cpus, duration_ns, threshold_ns, policy, priority, clock */
json_t *noise_result_params(const struct noise_run *run);

/* "cpus": per CPU loops, min/avg/max, percentiles, gaps, steal, periodic,
 * throttling (FIFO/RR), histogram, block_maxima {block_ns, max_ns: [...],
 * lost, quiet} */
json_t *noise_result_cpus(const struct noise_run *run);

#endif
