/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_CLI_NOISE_EXPLAIN_H
#define LATSCOPE_CLI_NOISE_EXPLAIN_H

#include <jansson.h>
#include <stdio.h>

#include "explain_run.h"
#include "latscope/noise.h"

/* --explain for a noise run: each gap becomes a window of its CPU's lane. */
struct noise_explain {
	struct explain_run run;
	const struct rt_throttling *limit;
	size_t *next_gap; /* per measured CPU: first gap not yet a window */
};

/**
 * noise_explain_begin - set up after noise_prepare(), before noise_start()
 * Falls back to counters (with a warning) when tracing is impossible.
 * Returns 0 or a negative errno code.
 */
int noise_explain_begin(struct noise_explain *x, enum explain_choice choice, struct noise_run *run,
			struct sysroot *root, const struct rt_throttling *limit,
			bool keep_raw_events);

/* While the run goes: new gaps become windows, the trace is read. */
void noise_explain_pump(struct noise_explain *x, const struct noise_run *run);

/* After noise_stop(): read the rest, end tracing, attribute. */
int noise_explain_end(struct noise_explain *x, const struct noise_run *run);

/**
 * noise_explain_gap_causes - after noise_explain_end(), before
 * noise_find_periods(): give each CPU's gaps the causes found in them
 * Returns 0 or -ENOMEM.
 */
int noise_explain_gap_causes(const struct noise_explain *x, struct noise_run *run);

/**
 * noise_explain_join - after noise_find_periods(): join each CPU's periodic
 * sources with the causes of their gaps
 * Returns 0 or -ENOMEM.
 */
int noise_explain_join(struct noise_explain *x, const struct noise_run *run);

/* The causes of a CPU's periodic source in words ("" without --explain). */
const char *noise_explain_source_causes(const struct noise_explain *x, unsigned int lane,
					unsigned int source, char *buf, size_t size);

/* Whether two sources of a CPU have the same main causes (true without --explain). */
bool noise_explain_same_causes(const struct noise_explain *x, unsigned int lane, unsigned int a,
			       unsigned int b);

/* The explanations, after the summary. */
void noise_explain_report(FILE *out, const struct noise_explain *x, const struct noise_run *run);

/* Add causes, worst spikes, lost events and counters to each CPU entry. */
void noise_explain_json(const struct noise_explain *x, const struct noise_run *run, json_t *cpus);

/* --trace-dir: the raw events around the worst gaps, cpu<N>-spike<K>.txt.
 * Returns the files written or a negative errno code (logged). */
int noise_explain_write_captures(const struct noise_explain *x, const struct noise_run *run,
				 const char *dir);

void noise_explain_release(struct noise_explain *x);

#endif
