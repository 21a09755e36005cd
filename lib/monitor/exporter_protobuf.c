// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The delimited protobuf exposition: per metric family a varint length and
 * one io.prometheus.client.MetricFamily message (lib/monitor/metric_family.proto,
 * compiled by protoc-c). It is the only format with native histograms: the
 * latency histogram carries its classic buckets and, beside them, schema 7
 * buckets as spans and deltas.
 *
 * A family of a 256-CPU monitor holds thousands of messages. Rather than
 * building them all, each family is written metric by metric: protobuf-c
 * packs the family's header (name, help, type, no metric), then each metric
 * alone, appended as field 4 (a repeated message is the concatenation of
 * its tagged, length-delimited elements), so one metric's messages exist
 * at a time.
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

/* MetricFamily.metric: field 4, length-delimited (wire type 2) */
#define METRIC_FIELD_TAG ((4 << 3) | 2)
#define MAX_LABELS 3

struct buffer {
	uint8_t *data;
	size_t size, capacity;
	int error;
};

static uint8_t *reserve(struct buffer *b, size_t more)
{
	size_t need = b->size + more, capacity;
	uint8_t *grown;

	if (b->error)
		return NULL;
	if (need > b->capacity) {
		capacity = b->capacity ? b->capacity : 16384;
		while (capacity < need)
			capacity *= 2;
		grown = realloc(b->data, capacity);
		if (!grown) {
			b->error = -ENOMEM;
			return NULL;
		}
		b->data = grown;
		b->capacity = capacity;
	}
	return b->data + b->size;
}

static void put_varint(struct buffer *b, uint64_t value)
{
	uint8_t *p = reserve(b, 10);

	if (!p)
		return;
	while (value >= 0x80) {
		*p++ = (uint8_t)(value | 0x80);
		value >>= 7;
	}
	*p++ = (uint8_t)value;
	b->size = (size_t)(p - b->data);
}

static void put_message(struct buffer *b, const ProtobufCMessage *message)
{
	size_t size = protobuf_c_message_get_packed_size(message);
	uint8_t *p = reserve(b, size);

	if (p)
		b->size += protobuf_c_message_pack(message, p);
}

/* One family being written: its body grows metric by metric. */
struct family_writer {
	struct buffer *out, *body;
	unsigned int nr_metrics;
};

static void family_begin(struct family_writer *w, struct buffer *out, struct buffer *body,
			 enum family_id id)
{
	static const Io__Prometheus__Client__MetricType types[] = {
		[FAMILY_COUNTER] = IO__PROMETHEUS__CLIENT__METRIC_TYPE__COUNTER,
		[FAMILY_GAUGE] = IO__PROMETHEUS__CLIENT__METRIC_TYPE__GAUGE,
		[FAMILY_HISTOGRAM] = IO__PROMETHEUS__CLIENT__METRIC_TYPE__HISTOGRAM,
		[FAMILY_INFO] = IO__PROMETHEUS__CLIENT__METRIC_TYPE__GAUGE,
	};
	const struct family *f = &exporter_families[id];
	Family header;

	w->out = out;
	w->body = body;
	w->nr_metrics = 0;
	body->size = 0;
	io__prometheus__client__metric_family__init(&header);
	header.name = (char *)f->name;
	header.help = (char *)f->help;
	header.has_type = 1;
	header.type = types[f->type];
	put_message(body, &header.base);
}

static void family_add(struct family_writer *w, const Metric *metric)
{
	put_varint(w->body, METRIC_FIELD_TAG);
	put_varint(w->body, protobuf_c_message_get_packed_size(&metric->base));
	put_message(w->body, &metric->base);
	w->nr_metrics++;
}

/* The family goes out only with a metric: an empty one says nothing. */
static void family_end(struct family_writer *w)
{
	uint8_t *p;

	if (w->body->error)
		w->out->error = w->body->error;
	if (!w->nr_metrics || w->out->error)
		return;
	put_varint(w->out, w->body->size);
	p = reserve(w->out, w->body->size);
	if (p) {
		memcpy(p, w->body->data, w->body->size);
		w->out->size += w->body->size;
	}
}

/* A metric with up to three labels, on the caller's stack. */
struct metric_build {
	Metric metric;
	LabelPair labels[MAX_LABELS];
	LabelPair *label_pointers[MAX_LABELS];
	char cpu[16];
	Gauge gauge;
	Counter counter;
};

static Metric *metric_init(struct metric_build *b, int cpu)
{
	io__prometheus__client__metric__init(&b->metric);
	b->metric.label = b->label_pointers;
	if (cpu >= 0) {
		snprintf(b->cpu, sizeof(b->cpu), "%d", cpu);
		io__prometheus__client__label_pair__init(&b->labels[0]);
		b->labels[0].name = "cpu";
		b->labels[0].value = b->cpu;
		b->label_pointers[b->metric.n_label++] = &b->labels[0];
	}
	return &b->metric;
}

static void add_label(struct metric_build *b, const char *name, const char *value)
{
	LabelPair *l = &b->labels[b->metric.n_label];

	io__prometheus__client__label_pair__init(l);
	l->name = (char *)name;
	l->value = (char *)value;
	b->label_pointers[b->metric.n_label++] = l;
}

static void set_gauge(struct metric_build *b, double value)
{
	io__prometheus__client__gauge__init(&b->gauge);
	b->gauge.has_value = 1;
	b->gauge.value = value;
	b->metric.gauge = &b->gauge;
}

static void set_counter(struct metric_build *b, double value)
{
	io__prometheus__client__counter__init(&b->counter);
	b->counter.has_value = 1;
	b->counter.value = value;
	b->metric.counter = &b->counter;
}

static double seconds(uint64_t ns)
{
	return (double)ns / 1e9;
}

/* Room for one CPU's native spans and deltas, sized for the largest CPU. */
struct native_scratch {
	struct native_span *spans;
	int64_t *deltas;
	BucketSpan *messages;
	BucketSpan **pointers;
};

static int scratch_init(struct native_scratch *s, const struct metrics *m)
{
	unsigned int i, most = 1;

	for (i = 0; i < m->nr_cpus; i++)
		if (m->cpus[i].native.nr + 1 > most)
			most = m->cpus[i].native.nr + 1;
	s->spans = calloc(most, sizeof(*s->spans));
	s->deltas = calloc(most, sizeof(*s->deltas));
	s->messages = calloc(most, sizeof(*s->messages));
	s->pointers = calloc(most, sizeof(*s->pointers));
	return s->spans && s->deltas && s->messages && s->pointers ? 0 : -ENOMEM;
}

static void scratch_release(struct native_scratch *s)
{
	free(s->spans);
	free(s->deltas);
	free(s->messages);
	free(s->pointers);
}

/* One CPU's latency histogram: classic buckets and native buckets in one message. */
static void add_histogram(struct family_writer *w, const struct metrics_cpu *c,
			  struct native_scratch *s)
{
	Bucket buckets[METRICS_CLASSIC_BOUNDS], *bucket_pointers[METRICS_CLASSIC_BOUNDS];
	struct metric_build b;
	Histogram h;
	uint64_t cumulative = 0;
	unsigned int k, nr_spans, nr_deltas;

	metric_init(&b, (int)c->cpu);
	io__prometheus__client__histogram__init(&h);
	for (k = 0; k <= METRICS_CLASSIC_BOUNDS; k++)
		cumulative += c->classic[k];
	h.has_sample_count = 1;
	h.sample_count = cumulative;
	h.has_sample_sum = 1;
	h.sample_sum = seconds(c->sum_ns);
	h.bucket = bucket_pointers;
	cumulative = 0;
	for (k = 0; k < METRICS_CLASSIC_BOUNDS; k++) {
		io__prometheus__client__bucket__init(&buckets[k]);
		cumulative += c->classic[k];
		buckets[k].has_cumulative_count = 1;
		buckets[k].cumulative_count = cumulative;
		buckets[k].has_upper_bound = 1;
		buckets[k].upper_bound = seconds(metrics_classic_bound_ns[k]);
		bucket_pointers[h.n_bucket++] = &buckets[k];
	}
	h.has_schema = 1;
	h.schema = NATIVE_SCHEMA;
	h.has_zero_threshold = 1;
	h.zero_threshold = native_zero_threshold();
	h.has_zero_count = 1;
	h.zero_count = c->native.zero_count;
	nr_spans = native_encode_spans(&c->native, s->spans, s->deltas, &nr_deltas);
	if (!nr_spans) {
		/* no sample yet: a no-op span marks it as a native histogram */
		s->spans[0].offset = 0;
		s->spans[0].length = 0;
		nr_spans = 1;
	}
	h.positive_span = s->pointers;
	for (k = 0; k < nr_spans; k++) {
		io__prometheus__client__bucket_span__init(&s->messages[k]);
		s->messages[k].has_offset = 1;
		s->messages[k].offset = s->spans[k].offset;
		s->messages[k].has_length = 1;
		s->messages[k].length = s->spans[k].length;
		h.positive_span[h.n_positive_span++] = &s->messages[k];
	}
	h.n_positive_delta = nr_deltas;
	h.positive_delta = s->deltas;
	b.metric.histogram = &h;
	family_add(w, &b.metric);
}

enum per_cpu_value {
	WINDOW_MAX,
	MAX_SINCE,
	MISSED,
	LOST,
};

static void emit_per_cpu(struct buffer *out, struct buffer *body, const struct metrics *m,
			 enum family_id id, enum per_cpu_value which)
{
	struct family_writer w;
	struct metric_build b;
	unsigned int i;

	family_begin(&w, out, body, id);
	for (i = 0; i < m->nr_cpus; i++) {
		const struct metrics_cpu *c = &m->cpus[i];

		if ((which == WINDOW_MAX && !c->has_window) || (which == LOST && !c->explained))
			continue;
		metric_init(&b, (int)c->cpu);
		if (which == WINDOW_MAX)
			set_gauge(&b, seconds(c->window_max_ns));
		else if (which == MAX_SINCE)
			set_gauge(&b, seconds(c->max_ns));
		else if (which == MISSED)
			set_counter(&b, (double)c->missed);
		else
			set_counter(&b, (double)c->lost_events);
		family_add(&w, &b.metric);
	}
	family_end(&w);
}

static void emit_causes(struct buffer *out, struct buffer *body, const struct metrics *m,
			bool seconds_wanted)
{
	struct family_writer w;
	struct metric_build b;
	unsigned int i, k;

	family_begin(&w, out, body, seconds_wanted ? FAMILY_SPIKE_SECONDS : FAMILY_SPIKES);
	for (i = 0; i < m->nr_cpus; i++) {
		const struct metrics_cpu *c = &m->cpus[i];

		for (k = 0; k < c->nr_causes; k++) {
			metric_init(&b, (int)c->cpu);
			add_label(&b, "kind", c->causes[k].kind);
			add_label(&b, "cause", c->causes[k].name);
			set_counter(&b, seconds_wanted ? seconds(c->causes[k].ns) :
							 (double)c->causes[k].spikes);
			family_add(&w, &b.metric);
		}
	}
	family_end(&w);
}

static void emit_interrupts(struct buffer *out, struct buffer *body, const struct metrics *m)
{
	struct family_writer w;
	struct metric_build b;
	unsigned int i, k;

	family_begin(&w, out, body, FAMILY_INTERRUPTS);
	for (i = 0; i < m->nr_cpus; i++) {
		const struct metrics_cpu *c = &m->cpus[i];

		for (k = 0; k < c->nr_interrupts; k++) {
			metric_init(&b, (int)c->cpu);
			add_label(&b, "irq", c->interrupts[k].irq);
			add_label(&b, "name", c->interrupts[k].name);
			set_counter(&b, (double)c->interrupts[k].count);
			family_add(&w, &b.metric);
		}
	}
	family_end(&w);
}

static void emit_globals(struct buffer *out, struct buffer *body, const struct metrics *m)
{
	struct family_writer w;
	struct metric_build b;
	unsigned int i;

	family_begin(&w, out, body, FAMILY_CHECK_FAILED);
	for (i = 0; i < m->nr_failed; i++) {
		metric_init(&b, -1);
		add_label(&b, "rule", m->failed[i].id);
		add_label(&b, "severity", m->failed[i].severity);
		set_gauge(&b, 1);
		family_add(&w, &b.metric);
	}
	family_end(&w);
	family_begin(&w, out, body, FAMILY_BUILD_INFO);
	metric_init(&b, -1);
	add_label(&b, "version", m->version ? m->version : "");
	set_gauge(&b, 1);
	family_add(&w, &b.metric);
	family_end(&w);
	family_begin(&w, out, body, FAMILY_START_TIME);
	metric_init(&b, -1);
	set_gauge(&b, m->start_time);
	family_add(&w, &b.metric);
	family_end(&w);
}

int exporter_render_protobuf(const struct metrics *metrics, char **body, size_t *size)
{
	struct buffer out = { 0 }, family = { 0 };
	struct native_scratch scratch;
	struct family_writer w;
	unsigned int i;
	int ret = scratch_init(&scratch, metrics);

	if (!ret) {
		family_begin(&w, &out, &family, FAMILY_LATENCY);
		for (i = 0; i < metrics->nr_cpus; i++)
			add_histogram(&w, &metrics->cpus[i], &scratch);
		family_end(&w);
		emit_per_cpu(&out, &family, metrics, FAMILY_WINDOW_MAX, WINDOW_MAX);
		emit_per_cpu(&out, &family, metrics, FAMILY_MAX, MAX_SINCE);
		emit_per_cpu(&out, &family, metrics, FAMILY_MISSED, MISSED);
		if (metrics_any_explained(metrics)) {
			emit_causes(&out, &family, metrics, false);
			emit_causes(&out, &family, metrics, true);
			emit_per_cpu(&out, &family, metrics, FAMILY_LOST, LOST);
		}
		emit_interrupts(&out, &family, metrics);
		emit_globals(&out, &family, metrics);
		ret = out.error ? out.error : family.error;
	}
	scratch_release(&scratch);
	free(family.data);
	if (ret) {
		free(out.data);
		return ret;
	}
	*body = (char *)out.data;
	*size = out.size;
	return 0;
}
