/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_TEST_FUZZ_IMPORT_CHECKS_H
#define LATSCOPE_TEST_FUZZ_IMPORT_CHECKS_H

/*
 * Shared by the importer harnesses: an input read through import_buffer()
 * (which finds the format from the content, as report, compare and doctor
 * do), and what run.h promises of any run checked, so that a hostile file
 * cannot hand report or compare a histogram their quantiles misread.
 */
#include "fuzz.h"
#include "latscope/import.h"
#include "latscope/run.h"

static inline void fuzz_check_histogram(const struct run_histogram *h)
{
	uint64_t total = h->overflow, ns;
	unsigned int i;
	bool exact;

	if (!h->present)
		return;
	for (i = 0; i < h->nr_buckets; i++) {
		const struct run_bucket *b = &h->buckets[i];

		/* ascending, not overlapping, only non-empty ones */
		if (b->low_ns > b->high_ns || !b->count ||
		    (i && h->buckets[i - 1].high_ns >= b->low_ns))
			abort();
		if (total + b->count < total)
			return; /* counts that overflow are the input's: no total to check */
		total += b->count;
	}
	if (total != h->total)
		abort();
	run_histogram_quantile(h, 0.5, &ns);
	run_histogram_quantile(h, 0.999, &ns);
	run_histogram_above(h, 1000, &exact);
}

/*
 * Time blocks kept are what compare resamples: each block's buckets
 * ascending within the layout, its count their sum, and all of them
 * together the series' histogram (blocks that do not add up are left out
 * with a note, never kept).
 */
static inline void fuzz_check_time_blocks(const struct run_series *s)
{
	const struct time_blocks *tb = s->time_blocks;
	uint64_t total = 0, sum;
	unsigned int i, k;

	if (!tb)
		return;
	if (!tb->base_ns || tb->nr > TIME_BLOCKS_MAX || tb->lost || !s->histogram.present)
		abort();
	for (i = 0; i < tb->nr; i++) {
		const struct time_block *b = &tb->blocks[i];

		sum = 0;
		for (k = 0; k < b->nr; k++) {
			if (b->entries[k].bucket > TIME_BLOCK_OVERFLOW || !b->entries[k].count ||
			    (k && b->entries[k - 1].bucket >= b->entries[k].bucket) ||
			    sum + b->entries[k].count < sum)
				abort();
			sum += b->entries[k].count;
		}
		if (sum != b->count || total + sum < total)
			abort();
		total += sum;
	}
	if (total != s->histogram.total)
		abort();
}

static inline void fuzz_check_series(const struct run_series *s)
{
	size_t i;

	fuzz_check_histogram(&s->histogram);
	fuzz_check_time_blocks(s);
	for (i = 1; i < s->nr_events; i++)
		if (s->events[i - 1].t_ns > s->events[i].t_ns)
			abort();
	for (i = 1; i < s->nr_percentiles; i++)
		if (s->percentiles[i - 1].percent > s->percentiles[i].percent)
			abort();
	for (i = 0; i < s->nr_causes; i++)
		if (s->causes[i].kind >= RUN_CAUSE_KINDS || !s->causes[i].label)
			abort();
}

static inline void fuzz_check_run(const struct run *run)
{
	unsigned int i;

	if (!run->path || !run_kind_name(run->kind) || !run_format_name(run->format))
		abort();
	run_is_measurement(run);
	for (i = 0; i < run->nr_series; i++)
		fuzz_check_series(&run->series[i]);
	for (i = 0; i < run->nr_parts; i++)
		fuzz_check_run(run->parts[i]);
}

/* The whole of one harness: read the input as a file of results. */
static inline int fuzz_import(const uint8_t *data, size_t size)
{
	struct run *run = NULL;

	if (!import_buffer("fuzz.input", (const char *)data, size, &run)) {
		if (!run)
			abort();
		fuzz_check_run(run);
	}
	run_free(run);
	return 0;
}

#endif
