// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cyclictest's output formats, byte for byte as rt-tests 2.4 prints them
 * (checked against it on the development machine), so that the scripts and
 * plots built on them keep working; and latscope's own summary, written as
 * '#' lines, which those scripts skip.
 */
#include <inttypes.h>
#include <stdlib.h>

#include "cli.h"
#include "timer_render.h"

void timer_line_from_live(struct timer_line *line, unsigned int thread,
			  const struct timer_live *live, int tid,
			  const struct timer_thread_params *config, uint64_t unit_ns)
{
	line->thread = thread;
	line->tid = tid;
	line->priority = config->priority;
	line->interval_us = config->interval_ns / 1000;
	line->cycles = live->cycles;
	line->min = live->min_ns / unit_ns;
	line->act = live->act_ns / unit_ns;
	line->avg = live->cycles ? live->sum_ns / live->cycles / unit_ns : 0;
	line->max = live->max_ns / unit_ns;
}

void timer_render_line(FILE *out, const struct timer_line *line, bool nsecs)
{
	/* -N widens Act and Avg, nothing else */
	int width = nsecs ? 8 : 5;

	fprintf(out,
		"T:%2u (%5d) P:%2d I:%" PRIu64 " C:%7" PRIu64 " Min:%7" PRIu64 " Act:%*" PRIu64
		" Avg:%*" PRIu64 " Max:%8" PRIu64 "\n",
		line->thread, line->tid, line->priority, line->interval_us, line->cycles, line->min,
		width, line->act, width, line->avg, line->max);
}

static uint64_t mean_in_unit(const struct timer_stats *stats)
{
	const struct hist *h = &stats->hist;

	return h->count ? (uint64_t)(h->sum / h->count) / stats->unit_ns : 0;
}

/* one "# Name:" line of per-thread values, with the summary column */
static void footer_line(FILE *out, const char *name, const uint64_t *values, unsigned int nr,
			const char *format, bool sum_column, uint64_t summary)
{
	unsigned int i;

	fprintf(out, "# %s:", name);
	for (i = 0; i < nr; i++)
		fprintf(out, format, values[i]);
	if (sum_column)
		fprintf(out, format, summary);
	fputc('\n', out);
}

/* "%0*" PRIu64 into @p; returns the end */
static char *put_padded(char *p, uint64_t value, int width)
{
	char digits[20];
	int n = 0;

	do
		digits[n++] = (char)('0' + value % 10);
	while ((value /= 10));
	for (; width > n; width--)
		*p++ = '0';
	while (n)
		*p++ = digits[--n];
	return p;
}

void timer_render_histogram(FILE *out, const struct timer_stats *const *threads,
			    unsigned int nr_threads, bool sum_column)
{
	unsigned int bucket, i, nr_buckets = nr_threads ? threads[0]->nr_buckets : 0;
	uint64_t *values = calloc(nr_threads ? nr_threads : 1, sizeof(*values)), summary;
	bool sum = sum_column && nr_threads > 1;

	/* a bucket's line: its number, a tab-separated count per thread, the sum */
	char *line = malloc(8 + (nr_threads + 1) * 21);

	if (!values || !line) {
		free(values);
		free(line);
		return;
	}

	/*
	 * One line per bucket, empty ones included as cyclictest prints them:
	 * -h 1000000 is millions of numbers, formatted here rather than by
	 * fprintf, which took most of a minute for a hundred threads.
	 */
	fprintf(out, "# Histogram\n");
	for (bucket = 0; bucket < nr_buckets; bucket++) {
		char *p = put_padded(line, bucket, 6);

		*p++ = ' ';
		summary = 0;
		for (i = 0; i < nr_threads; i++) {
			if (i)
				*p++ = '\t';
			p = put_padded(p, threads[i]->buckets[bucket], 6);
			summary += threads[i]->buckets[bucket];
		}
		if (sum) {
			*p++ = '\t';
			p = put_padded(p, summary, 6);
		}
		*p++ = '\n';
		fwrite(line, 1, (size_t)(p - line), out);
	}
	free(line);

	for (summary = 0, i = 0; i < nr_threads; i++) {
		values[i] = threads[i]->hist.count - threads[i]->bucket_overflows;
		summary += values[i];
	}
	footer_line(out, "Total", values, nr_threads, " %09" PRIu64, sum, summary);
	for (i = 0; i < nr_threads; i++)
		values[i] = threads[i]->hist.count ? threads[i]->hist.min / threads[i]->unit_ns : 0;
	footer_line(out, "Min Latencies", values, nr_threads, " %05" PRIu64, false, 0);
	for (i = 0; i < nr_threads; i++)
		values[i] = mean_in_unit(threads[i]);
	footer_line(out, "Avg Latencies", values, nr_threads, " %05" PRIu64, false, 0);
	for (summary = 0, i = 0; i < nr_threads; i++) {
		values[i] = threads[i]->hist.max / threads[i]->unit_ns;
		if (values[i] > summary)
			summary = values[i];
	}
	footer_line(out, "Max Latencies", values, nr_threads, " %05" PRIu64, sum, summary);
	for (summary = 0, i = 0; i < nr_threads; i++) {
		values[i] = threads[i]->bucket_overflows;
		summary += values[i];
	}
	footer_line(out, "Histogram Overflows", values, nr_threads, " %05" PRIu64, sum, summary);

	fprintf(out, "# Histogram Overflow at cycle number:\n");
	for (i = 0; i < nr_threads; i++) {
		const struct timer_stats *stats = threads[i];
		uint64_t kept = stats->bucket_overflows < stats->nr_buckets ?
					stats->bucket_overflows :
					stats->nr_buckets;
		uint64_t j;

		fprintf(out, "# Thread %u: ", i);
		for (j = 0; j < kept; j++)
			fprintf(out, "%s%05" PRIu64, j ? " " : "", stats->overflow_cycles[j]);
		if (stats->bucket_overflows > kept)
			fprintf(out, " # %05" PRIu64 " others", stats->bucket_overflows - kept);
		fputc('\n', out);
	}
	fputc('\n', out);
	free(values);
}

void timer_render_summary(FILE *out, const struct timer_stats *const *threads,
			  unsigned int nr_threads, uint64_t origin_ns)
{
	char us[32], overrun[32];
	unsigned int i, j;

	fprintf(out, "# latscope: latencies in us with ns precision; spikes: latency at seconds "
		     "since start\n");
	for (i = 0; i < nr_threads; i++) {
		const struct timer_stats *stats = threads[i];

		fprintf(out, "# T:%2u ", i);
		if (stats->cpu >= 0)
			fprintf(out, "cpu %d", stats->cpu);
		else
			fprintf(out, "unpinned");
		for (j = 0; j < HIST_NR_REPORTED; j++)
			fprintf(out, " p%g %s", hist_reported_percentiles[j],
				format_us(
					hist_percentile(&stats->hist, hist_reported_percentiles[j]),
					us, sizeof(us)));
		fputc('\n', out);

		fprintf(out, "# T:%2u ", i);
		if (!stats->count_missed)
			fprintf(out, "missed periods: not counted with a relative timer\n");
		else if (stats->missed)
			fprintf(out, "missed %" PRIu64 " period%s, largest overrun %s\n",
				stats->missed, stats->missed == 1 ? "" : "s",
				format_duration(stats->max_overrun_ns, overrun, sizeof(overrun)));
		else
			fprintf(out, "missed 0 periods\n");

		fprintf(out, "# T:%2u largest", i);
		for (j = 0; j < stats->nr_top; j++)
			fprintf(out, "%s %s us at %.3f s", j ? "," : "",
				format_us(stats->top[j].latency_ns, us, sizeof(us)),
				(double)(stats->top[j].wakeup_ns - origin_ns) / 1e9);
		if (!stats->nr_top)
			fprintf(out, " none: no sample");
		fputc('\n', out);
	}
}
