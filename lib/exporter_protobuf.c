// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The delimited protobuf exposition: per metric family a varint length and
 * one io.prometheus.client.MetricFamily message (lib/metric_family.proto,
 * compiled by protoc-c). It is the only format with native histograms: the
 * latency histogram carries its classic buckets and, beside them, schema 7
 * buckets as spans and deltas.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exporter_families.h"
#include "latscope/exporter.h"
#include "metric_family.pb-c.h"

typedef Io__Prometheus__Client__MetricFamily Family;
typedef Io__Prometheus__Client__Metric Metric;
typedef Io__Prometheus__Client__LabelPair LabelPair;
typedef Io__Prometheus__Client__Gauge Gauge;
typedef Io__Prometheus__Client__Counter Counter;
typedef Io__Prometheus__Client__Histogram Histogram;
typedef Io__Prometheus__Client__Bucket Bucket;
typedef Io__Prometheus__Client__BucketSpan BucketSpan;

#define MAX_LABELS 3

/* Every message of one family, allocated together and freed together. */
struct family_build {
	Family family;
	unsigned int nr, capacity;
	Metric *metrics;
	Metric **metric_pointers;
	LabelPair *labels; /* MAX_LABELS per metric */
	LabelPair **label_pointers;
	Gauge *gauges;
	Counter *counters;
	char (*cpu_names)[16];
};

struct output {
	uint8_t *data;
	size_t size, capacity;
	int error;
};

static int family_init(struct family_build *b, enum family_id id, unsigned int capacity)
{
	static const Io__Prometheus__Client__MetricType types[] = {
		[FAMILY_COUNTER] = IO__PROMETHEUS__CLIENT__METRIC_TYPE__COUNTER,
		[FAMILY_GAUGE] = IO__PROMETHEUS__CLIENT__METRIC_TYPE__GAUGE,
		[FAMILY_HISTOGRAM] = IO__PROMETHEUS__CLIENT__METRIC_TYPE__HISTOGRAM,
		[FAMILY_INFO] = IO__PROMETHEUS__CLIENT__METRIC_TYPE__GAUGE,
	};
	const struct family *f = &exporter_families[id];
	unsigned int n = capacity ? capacity : 1;

	memset(b, 0, sizeof(*b));
	io__prometheus__client__metric_family__init(&b->family);
	b->family.name = (char *)f->name;
	b->family.help = (char *)f->help;
	b->family.has_type = 1;
	b->family.type = types[f->type];
	b->capacity = capacity;
	b->metrics = calloc(n, sizeof(*b->metrics));
	b->metric_pointers = calloc(n, sizeof(*b->metric_pointers));
	b->labels = calloc((size_t)n * MAX_LABELS, sizeof(*b->labels));
	b->label_pointers = calloc((size_t)n * MAX_LABELS, sizeof(*b->label_pointers));
	b->gauges = calloc(n, sizeof(*b->gauges));
	b->counters = calloc(n, sizeof(*b->counters));
	b->cpu_names = calloc(n, sizeof(*b->cpu_names));
	if (!b->metrics || !b->metric_pointers || !b->labels || !b->label_pointers || !b->gauges ||
	    !b->counters || !b->cpu_names)
		return -ENOMEM;
	return 0;
}

static void family_release(struct family_build *b)
{
	free(b->metrics);
	free(b->metric_pointers);
	free(b->labels);
	free(b->label_pointers);
	free(b->gauges);
	free(b->counters);
	free(b->cpu_names);
}

/* The next metric of the family, with its cpu label (cpu < 0: none). */
static Metric *family_add(struct family_build *b, int cpu)
{
	Metric *m = &b->metrics[b->nr];

	io__prometheus__client__metric__init(m);
	m->label = &b->label_pointers[(size_t)b->nr * MAX_LABELS];
	b->metric_pointers[b->nr] = m;
	b->nr++;
	b->family.n_metric = b->nr;
	b->family.metric = b->metric_pointers;
	if (cpu >= 0) {
		LabelPair *l = &b->labels[(size_t)(b->nr - 1) * MAX_LABELS];

		snprintf(b->cpu_names[b->nr - 1], sizeof(b->cpu_names[0]), "%d", cpu);
		io__prometheus__client__label_pair__init(l);
		l->name = "cpu";
		l->value = b->cpu_names[b->nr - 1];
		m->label[m->n_label++] = l;
	}
	return m;
}

static void add_label(struct family_build *b, Metric *m, const char *name, const char *value)
{
	LabelPair *l = &b->labels[(size_t)(m - b->metrics) * MAX_LABELS + m->n_label];

	io__prometheus__client__label_pair__init(l);
	l->name = (char *)name;
	l->value = (char *)value;
	m->label[m->n_label++] = l;
}

static void set_gauge(struct family_build *b, Metric *m, double value)
{
	Gauge *g = &b->gauges[m - b->metrics];

	io__prometheus__client__gauge__init(g);
	g->has_value = 1;
	g->value = value;
	m->gauge = g;
}

static void set_counter(struct family_build *b, Metric *m, double value)
{
	Counter *c = &b->counters[m - b->metrics];

	io__prometheus__client__counter__init(c);
	c->has_value = 1;
	c->value = value;
	m->counter = c;
}

static void put_varint(struct output *out, uint64_t value)
{
	while (value >= 0x80) {
		out->data[out->size++] = (uint8_t)(value | 0x80);
		value >>= 7;
	}
	out->data[out->size++] = (uint8_t)value;
}

/* Append the family as a length-delimited message. */
static void emit(struct output *out, const struct family_build *b)
{
	size_t size = protobuf_c_message_get_packed_size(&b->family.base), need;

	if (out->error)
		return;
	need = out->size + size + 10;
	if (need > out->capacity) {
		size_t capacity = out->capacity ? out->capacity : 65536;
		uint8_t *grown;

		while (capacity < need)
			capacity *= 2;
		grown = realloc(out->data, capacity);
		if (!grown) {
			out->error = -ENOMEM;
			return;
		}
		out->data = grown;
		out->capacity = capacity;
	}
	put_varint(out, size);
	out->size += protobuf_c_message_pack(&b->family.base, out->data + out->size);
}

static double seconds(uint64_t ns)
{
	return (double)ns / 1e9;
}

/* The latency histograms: classic buckets and native buckets in one message. */
static int emit_histograms(struct output *out, const struct metrics *m)
{
	struct family_build b;
	Histogram *h = calloc(m->nr_cpus + 1, sizeof(*h));
	Bucket *buckets =
		calloc((size_t)(m->nr_cpus + 1) * METRICS_CLASSIC_BOUNDS, sizeof(*buckets));
	Bucket **bucket_pointers =
		calloc((size_t)(m->nr_cpus + 1) * METRICS_CLASSIC_BOUNDS, sizeof(*bucket_pointers));
	size_t nr_native = 0;
	unsigned int i, k;
	int ret = family_init(&b, FAMILY_LATENCY, m->nr_cpus);
	BucketSpan *spans = NULL, **span_pointers = NULL;
	struct native_span *native_spans = NULL;
	int64_t *deltas = NULL;

	for (i = 0; i < m->nr_cpus; i++)
		nr_native += m->cpus[i].native.nr + 1;
	spans = calloc(nr_native, sizeof(*spans));
	span_pointers = calloc(nr_native, sizeof(*span_pointers));
	native_spans = calloc(nr_native, sizeof(*native_spans));
	deltas = calloc(nr_native, sizeof(*deltas));
	if (ret || !h || !buckets || !bucket_pointers || !spans || !span_pointers ||
	    !native_spans || !deltas) {
		ret = -ENOMEM;
		goto out;
	}
	nr_native = 0;
	for (i = 0; i < m->nr_cpus; i++) {
		const struct metrics_cpu *c = &m->cpus[i];
		Histogram *hist = &h[i];
		Metric *metric = family_add(&b, (int)c->cpu);
		uint64_t cumulative = 0;
		unsigned int nr_spans, nr_deltas;

		io__prometheus__client__histogram__init(hist);
		for (k = 0; k <= METRICS_CLASSIC_BOUNDS; k++)
			cumulative += c->classic[k];
		hist->has_sample_count = 1;
		hist->sample_count = cumulative;
		hist->has_sample_sum = 1;
		hist->sample_sum = seconds(c->sum_ns);
		hist->bucket = &bucket_pointers[(size_t)i * METRICS_CLASSIC_BOUNDS];
		cumulative = 0;
		for (k = 0; k < METRICS_CLASSIC_BOUNDS; k++) {
			Bucket *bucket = &buckets[(size_t)i * METRICS_CLASSIC_BOUNDS + k];

			io__prometheus__client__bucket__init(bucket);
			cumulative += c->classic[k];
			bucket->has_cumulative_count = 1;
			bucket->cumulative_count = cumulative;
			bucket->has_upper_bound = 1;
			bucket->upper_bound = seconds(metrics_classic_bound_ns[k]);
			hist->bucket[hist->n_bucket++] = bucket;
		}
		hist->has_schema = 1;
		hist->schema = NATIVE_SCHEMA;
		hist->has_zero_threshold = 1;
		hist->zero_threshold = native_zero_threshold();
		hist->has_zero_count = 1;
		hist->zero_count = c->native.zero_count;
		nr_spans = native_encode_spans(&c->native, &native_spans[nr_native],
					       &deltas[nr_native], &nr_deltas);
		hist->positive_span = &span_pointers[nr_native];
		for (k = 0; k < nr_spans; k++) {
			BucketSpan *span = &spans[nr_native + k];

			io__prometheus__client__bucket_span__init(span);
			span->has_offset = 1;
			span->offset = native_spans[nr_native + k].offset;
			span->has_length = 1;
			span->length = native_spans[nr_native + k].length;
			hist->positive_span[hist->n_positive_span++] = span;
		}
		if (!nr_spans) {
			/* no sample yet: a no-op span marks it as a native histogram */
			io__prometheus__client__bucket_span__init(&spans[nr_native]);
			spans[nr_native].has_offset = spans[nr_native].has_length = 1;
			hist->positive_span[hist->n_positive_span++] = &spans[nr_native];
		}
		hist->n_positive_delta = nr_deltas;
		hist->positive_delta = &deltas[nr_native];
		nr_native += c->native.nr + 1;
		metric->histogram = hist;
	}
	emit(out, &b);
out:
	family_release(&b);
	free(h);
	free(buckets);
	free(bucket_pointers);
	free(spans);
	free(span_pointers);
	free(native_spans);
	free(deltas);
	return ret ? ret : out->error;
}

enum per_cpu_value {
	WINDOW_MAX,
	MAX_SINCE,
	MISSED,
	LOST,
};

static int emit_per_cpu(struct output *out, const struct metrics *m, enum family_id id,
			enum per_cpu_value which)
{
	struct family_build b;
	unsigned int i;
	int ret = family_init(&b, id, m->nr_cpus);

	for (i = 0; !ret && i < m->nr_cpus; i++) {
		const struct metrics_cpu *c = &m->cpus[i];
		Metric *metric;

		if ((which == WINDOW_MAX && !c->has_window) || (which == LOST && !c->explained))
			continue;
		metric = family_add(&b, (int)c->cpu);
		if (which == WINDOW_MAX)
			set_gauge(&b, metric, seconds(c->window_max_ns));
		else if (which == MAX_SINCE)
			set_gauge(&b, metric, seconds(c->max_ns));
		else if (which == MISSED)
			set_counter(&b, metric, (double)c->missed);
		else
			set_counter(&b, metric, (double)c->lost_events);
	}
	if (!ret && b.nr)
		emit(out, &b);
	family_release(&b);
	return ret ? ret : out->error;
}

static int emit_causes(struct output *out, const struct metrics *m, bool seconds_wanted)
{
	struct family_build b;
	unsigned int i, k, n = 0;
	int ret;

	for (i = 0; i < m->nr_cpus; i++)
		n += m->cpus[i].nr_causes;
	ret = family_init(&b, seconds_wanted ? FAMILY_SPIKE_SECONDS : FAMILY_SPIKES, n);
	for (i = 0; !ret && i < m->nr_cpus; i++) {
		const struct metrics_cpu *c = &m->cpus[i];

		for (k = 0; k < c->nr_causes; k++) {
			Metric *metric = family_add(&b, (int)c->cpu);

			add_label(&b, metric, "kind", c->causes[k].kind);
			add_label(&b, metric, "cause", c->causes[k].name);
			set_counter(&b, metric,
				    seconds_wanted ? seconds(c->causes[k].ns) :
						     (double)c->causes[k].spikes);
		}
	}
	if (!ret && b.nr)
		emit(out, &b);
	family_release(&b);
	return ret ? ret : out->error;
}

static int emit_interrupts(struct output *out, const struct metrics *m)
{
	struct family_build b;
	unsigned int i, k, n = 0;
	int ret;

	for (i = 0; i < m->nr_cpus; i++)
		n += m->cpus[i].nr_interrupts;
	ret = family_init(&b, FAMILY_INTERRUPTS, n);
	for (i = 0; !ret && i < m->nr_cpus; i++) {
		const struct metrics_cpu *c = &m->cpus[i];

		for (k = 0; k < c->nr_interrupts; k++) {
			Metric *metric = family_add(&b, (int)c->cpu);

			add_label(&b, metric, "irq", c->interrupts[k].irq);
			add_label(&b, metric, "name", c->interrupts[k].name);
			set_counter(&b, metric, (double)c->interrupts[k].count);
		}
	}
	if (!ret && b.nr)
		emit(out, &b);
	family_release(&b);
	return ret ? ret : out->error;
}

static int emit_globals(struct output *out, const struct metrics *m)
{
	struct family_build b;
	unsigned int i;
	int ret;

	ret = family_init(&b, FAMILY_CHECK_FAILED, m->nr_failed);
	for (i = 0; !ret && i < m->nr_failed; i++) {
		Metric *metric = family_add(&b, -1);

		add_label(&b, metric, "rule", m->failed[i].id);
		add_label(&b, metric, "severity", m->failed[i].severity);
		set_gauge(&b, metric, 1);
	}
	if (!ret && b.nr)
		emit(out, &b);
	family_release(&b);
	if (!ret)
		ret = family_init(&b, FAMILY_BUILD_INFO, 1);
	if (!ret) {
		Metric *metric = family_add(&b, -1);

		add_label(&b, metric, "version", m->version ? m->version : "");
		set_gauge(&b, metric, 1);
		emit(out, &b);
	}
	family_release(&b);
	if (!ret)
		ret = family_init(&b, FAMILY_START_TIME, 1);
	if (!ret) {
		set_gauge(&b, family_add(&b, -1), m->start_time);
		emit(out, &b);
	}
	family_release(&b);
	return ret ? ret : out->error;
}

static bool any_explained(const struct metrics *m)
{
	unsigned int i;

	for (i = 0; i < m->nr_cpus; i++)
		if (m->cpus[i].explained)
			return true;
	return false;
}

int exporter_render_protobuf(const struct metrics *metrics, char **body, size_t *size)
{
	struct output out = { 0 };
	int ret;

	ret = emit_histograms(&out, metrics);
	if (!ret)
		ret = emit_per_cpu(&out, metrics, FAMILY_WINDOW_MAX, WINDOW_MAX);
	if (!ret)
		ret = emit_per_cpu(&out, metrics, FAMILY_MAX, MAX_SINCE);
	if (!ret)
		ret = emit_per_cpu(&out, metrics, FAMILY_MISSED, MISSED);
	if (!ret && any_explained(metrics)) {
		ret = emit_causes(&out, metrics, false);
		if (!ret)
			ret = emit_causes(&out, metrics, true);
		if (!ret)
			ret = emit_per_cpu(&out, metrics, FAMILY_LOST, LOST);
	}
	if (!ret)
		ret = emit_interrupts(&out, metrics);
	if (!ret)
		ret = emit_globals(&out, metrics);
	if (ret) {
		free(out.data);
		return ret;
	}
	*body = (char *)out.data;
	*size = out.size;
	return 0;
}
