// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Prometheus text 0.0.4 and OpenMetrics 1.0 text. The two differ in the
 * metadata: OpenMetrics names a counter's family without _total and an
 * info metric without _info, adds # UNIT and ends with # EOF.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exporter_families.h"
#include "latscope/exporter.h"

#define F(id) (&exporter_families[id])

struct writer {
	FILE *out;
	bool openmetrics;
};

/* HELP text: backslash and newline escaped; OpenMetrics also the double quote. */
static void put_help(struct writer *w, const char *text)
{
	for (; *text; text++) {
		if (*text == '\\')
			fputs("\\\\", w->out);
		else if (*text == '\n')
			fputs("\\n", w->out);
		else if (*text == '"' && w->openmetrics)
			fputs("\\\"", w->out);
		else
			fputc(*text, w->out);
	}
}

/* A label value: backslash, double quote and newline escaped. */
static void put_label_value(FILE *out, const char *text)
{
	for (; *text; text++) {
		if (*text == '\\')
			fputs("\\\\", out);
		else if (*text == '"')
			fputs("\\\"", out);
		else if (*text == '\n')
			fputs("\\n", out);
		else
			fputc(*text, out);
	}
}

/* The family's name in the metadata: OpenMetrics drops _total and _info. */
static void put_family_name(struct writer *w, const struct family *f)
{
	size_t len = strlen(f->name);

	if (w->openmetrics && f->type == FAMILY_COUNTER)
		len -= strlen("_total");
	else if (w->openmetrics && f->type == FAMILY_INFO)
		len -= strlen("_info");
	fwrite(f->name, 1, len, w->out);
}

static void put_metadata(struct writer *w, const struct family *f)
{
	static const char *const types[] = {
		[FAMILY_COUNTER] = "counter",
		[FAMILY_GAUGE] = "gauge",
		[FAMILY_HISTOGRAM] = "histogram",
		[FAMILY_INFO] = "info",
	};
	const char *type = f->type == FAMILY_INFO && !w->openmetrics ? "gauge" : types[f->type];

	fputs("# HELP ", w->out);
	put_family_name(w, f);
	fputc(' ', w->out);
	put_help(w, f->help);
	fputs("\n# TYPE ", w->out);
	put_family_name(w, f);
	fprintf(w->out, " %s\n", type);
	if (w->openmetrics && f->unit) {
		fputs("# UNIT ", w->out);
		put_family_name(w, f);
		fprintf(w->out, " %s\n", f->unit);
	}
}

/*
 * The shortest decimal that reads back as the same double, as Prometheus'
 * own clients print floats.
 */
static void put_float(FILE *out, double value)
{
	char text[32];
	int precision;

	for (precision = 1; precision < 17; precision++) {
		snprintf(text, sizeof(text), "%.*g", precision, value);
		if (strtod(text, NULL) == value)
			break;
	}
	if (precision == 17)
		snprintf(text, sizeof(text), "%.17g", value);
	fputs(text, out);
}

static void put_u64(FILE *out, uint64_t value)
{
	char text[24], *p = text + sizeof(text);

	*--p = '\0';
	do
		*--p = (char)('0' + value % 10);
	while (value /= 10);
	fputs(p, out);
}

/*
 * ns as seconds: the exact decimal ("0.000150007"), which reads back as the
 * double ns / 1e9; a dozen times cheaper than searching the shortest form,
 * for the thousands of values of a large monitor.
 */
static void put_seconds(FILE *out, uint64_t ns)
{
	char fraction[16];
	int digits = 9;

	put_u64(out, ns / 1000000000ULL);
	ns %= 1000000000ULL;
	if (!ns)
		return;
	while (ns % 10 == 0) {
		ns /= 10;
		digits--;
	}
	snprintf(fraction, sizeof(fraction), ".%0*llu", digits, (unsigned long long)ns);
	fputs(fraction, out);
}

static void put_cpu(FILE *out, unsigned int cpu)
{
	fputs("{cpu=\"", out);
	put_u64(out, cpu);
	fputc('"', out);
}

static void put_histogram(struct writer *w, const struct metrics_cpu *c)
{
	uint64_t cumulative = 0;
	unsigned int i;

	for (i = 0; i <= METRICS_CLASSIC_BOUNDS; i++) {
		cumulative += c->classic[i];
		fputs(F(FAMILY_LATENCY)->name, w->out);
		fputs("_bucket", w->out);
		put_cpu(w->out, c->cpu);
		fputs(",le=\"", w->out);
		fputs(i < METRICS_CLASSIC_BOUNDS ? metrics_classic_le[i] : "+Inf", w->out);
		fputs("\"} ", w->out);
		put_u64(w->out, cumulative);
		fputc('\n', w->out);
	}
	fputs(F(FAMILY_LATENCY)->name, w->out);
	fputs("_sum", w->out);
	put_cpu(w->out, c->cpu);
	fputs("} ", w->out);
	put_seconds(w->out, c->sum_ns);
	fputc('\n', w->out);
	fputs(F(FAMILY_LATENCY)->name, w->out);
	fputs("_count", w->out);
	put_cpu(w->out, c->cpu);
	fputs("} ", w->out);
	put_u64(w->out, cumulative);
	fputc('\n', w->out);
}

static void put_causes(struct writer *w, const struct metrics *m, const struct family *f,
		       bool seconds)
{
	unsigned int i, k;

	put_metadata(w, f);
	for (i = 0; i < m->nr_cpus; i++) {
		const struct metrics_cpu *c = &m->cpus[i];

		for (k = 0; k < c->nr_causes; k++) {
			fputs(f->name, w->out);
			put_cpu(w->out, c->cpu);
			fputs(",kind=\"", w->out);
			put_label_value(w->out, c->causes[k].kind);
			fputs("\",cause=\"", w->out);
			put_label_value(w->out, c->causes[k].name);
			fputs("\"} ", w->out);
			if (seconds)
				put_seconds(w->out, c->causes[k].ns);
			else
				put_u64(w->out, c->causes[k].spikes);
			fputc('\n', w->out);
		}
	}
}

static void put_per_cpu(struct writer *w, const struct metrics *m, const struct family *f)
{
	unsigned int i;

	put_metadata(w, f);
	for (i = 0; i < m->nr_cpus; i++) {
		const struct metrics_cpu *c = &m->cpus[i];

		if (f == F(FAMILY_WINDOW_MAX) && !c->has_window)
			continue;
		if (f == F(FAMILY_LOST) && !c->explained)
			continue;
		fputs(f->name, w->out);
		put_cpu(w->out, c->cpu);
		fputs("} ", w->out);
		if (f == F(FAMILY_WINDOW_MAX))
			put_seconds(w->out, c->window_max_ns);
		else if (f == F(FAMILY_MAX))
			put_seconds(w->out, c->max_ns);
		else if (f == F(FAMILY_MISSED))
			put_u64(w->out, c->missed);
		else
			put_u64(w->out, c->lost_events);
		fputc('\n', w->out);
	}
}

static void put_interrupts(struct writer *w, const struct metrics *m)
{
	unsigned int i, k;

	put_metadata(w, F(FAMILY_INTERRUPTS));
	for (i = 0; i < m->nr_cpus; i++) {
		const struct metrics_cpu *c = &m->cpus[i];

		for (k = 0; k < c->nr_interrupts; k++) {
			fputs(F(FAMILY_INTERRUPTS)->name, w->out);
			put_cpu(w->out, c->cpu);
			fputs(",irq=\"", w->out);
			put_label_value(w->out, c->interrupts[k].irq);
			fputs("\",name=\"", w->out);
			put_label_value(w->out, c->interrupts[k].name);
			fputs("\"} ", w->out);
			put_u64(w->out, c->interrupts[k].count);
			fputc('\n', w->out);
		}
	}
}

static void put_all(struct writer *w, const struct metrics *m)
{
	unsigned int i;

	put_metadata(w, F(FAMILY_LATENCY));
	for (i = 0; i < m->nr_cpus; i++)
		put_histogram(w, &m->cpus[i]);
	put_per_cpu(w, m, F(FAMILY_WINDOW_MAX));
	put_per_cpu(w, m, F(FAMILY_MAX));
	put_per_cpu(w, m, F(FAMILY_MISSED));
	if (metrics_any_explained(m)) {
		put_causes(w, m, F(FAMILY_SPIKES), false);
		put_causes(w, m, F(FAMILY_SPIKE_SECONDS), true);
		put_per_cpu(w, m, F(FAMILY_LOST));
	}
	put_interrupts(w, m);
	put_metadata(w, F(FAMILY_CHECK_FAILED));
	for (i = 0; i < m->nr_failed; i++) {
		fprintf(w->out, "%s{rule=\"", F(FAMILY_CHECK_FAILED)->name);
		put_label_value(w->out, m->failed[i].id);
		fputs("\",severity=\"", w->out);
		put_label_value(w->out, m->failed[i].severity);
		fputs("\"} 1\n", w->out);
	}
	put_metadata(w, F(FAMILY_BUILD_INFO));
	fprintf(w->out, "%s{version=\"", F(FAMILY_BUILD_INFO)->name);
	put_label_value(w->out, m->version ? m->version : "");
	fputs("\"} 1\n", w->out);
	put_metadata(w, F(FAMILY_START_TIME));
	fputs(F(FAMILY_START_TIME)->name, w->out);
	fputc(' ', w->out);
	put_float(w->out, m->start_time);
	fputc('\n', w->out);
	if (w->openmetrics)
		fputs("# EOF\n", w->out);
}

int exporter_render_text(const struct metrics *metrics, bool openmetrics, char **body, size_t *size)
{
	struct writer w = { .openmetrics = openmetrics };

	*body = NULL;
	*size = 0;
	w.out = open_memstream(body, size);
	if (!w.out)
		return -ENOMEM;
	put_all(&w, metrics);
	if (fclose(w.out) || !*body) {
		free(*body);
		*body = NULL;
		return -ENOMEM;
	}
	return 0;
}
