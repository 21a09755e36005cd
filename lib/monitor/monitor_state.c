// SPDX-License-Identifier: GPL-2.0-or-later
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "latscope/atomic_file.h"
#include "latscope/blocks_text.h"
#include "latscope/clock.h"
#include "latscope/decimal.h"
#include "latscope/input_file.h"
#include "latscope/log.h"
#include "latscope/monitor_state.h"
#include "latscope/window_text.h"

/* A column of numbers as text, formatted whole and written in one call. */
struct column_text {
	char *text;
	size_t size;
};

struct state_writer {
	struct atomic_file file;
	FILE *f; /* where the put functions write: file.stream, or one CPU's buffer */
	int error;
	bool any_cpu;
	bool pretty; /* indented by two, as result_write_as() lays out a document */
	/* kept from one column and CPU to the next: no allocation per column */
	struct column_text column;
	/* for CPUs that come without texts of their own */
	struct window_text *text;
	struct blocks_text *blocks_text;
};

static void put(struct state_writer *w, const char *text)
{
	fputs_unlocked(text, w->f);
}

/* the stream unlocked: one writer */
static void put_u64(struct state_writer *w, uint64_t value)
{
	char text[24];

	fwrite_unlocked(text, 1, decimal_u64(text, value), w->f);
}

static void put_key(struct state_writer *w, const char *key, bool first)
{
	put(w, first ? "\"" : ",\"");
	put(w, key);
	put(w, "\":");
}

/* Any JSON value (a string to escape, a small object), compact. */
static void put_json(struct state_writer *w, json_t *value)
{
	if (!value || json_dumpf(value, w->f, JSON_COMPACT | JSON_ENCODE_ANY))
		w->error = w->error ? w->error : -ENOMEM;
}

static void put_string(struct state_writer *w, const char *text)
{
	json_t *s = json_string(text);

	put_json(w, s);
	json_decref(s);
}

/*
 * @value laid out by jansson with an indent of two, each of its lines
 * after the first moved right by @depth spaces: a member of the document
 * at that depth, the same bytes json_dumpf() writes for the whole.
 */
static void put_indented(struct state_writer *w, json_t *value, unsigned int depth)
{
	char *text =
		value ? json_dumps(value, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_ENCODE_ANY) :
			NULL;
	const char *p;

	if (!text) {
		w->error = w->error ? w->error : -ENOMEM;
		return;
	}
	for (p = text; *p; p++) {
		putc_unlocked(*p, w->f);
		if (*p == '\n')
			fprintf(w->f, "%*s", (int)depth, "");
	}
	free(text);
}

static int flush_error(struct state_writer *w)
{
	if (!w->error && (ferror(w->f) || fflush(w->f)))
		w->error = errno ? -errno : -EIO;
	return w->error;
}

static bool wants_pretty(FILE *stream, enum result_layout layout)
{
	return layout == RESULT_LAYOUT_PRETTY ||
	       (layout == RESULT_LAYOUT_AUTO && isatty(fileno(stream)));
}

int state_writer_open(struct state_writer **writer, const char *path, json_t *header,
		      enum result_layout layout)
{
	struct state_writer *w = calloc(1, sizeof(*w));
	const char *key;
	json_t *value;
	bool first = true;
	int ret;

	*writer = NULL;
	if (!w)
		return -ENOMEM;
	ret = atomic_file_open(&w->file, path);
	if (ret) {
		free(w);
		return ret;
	}
	w->f = w->file.stream;
	w->pretty = wants_pretty(w->f, layout);
	put(w, "{");
	json_object_foreach(header, key, value)
	{
		put(w, first ? "" : ",");
		put(w, w->pretty ? "\n  " : "");
		put_string(w, key);
		if (w->pretty) {
			put(w, ": ");
			put_indented(w, value, 2);
		} else {
			put(w, ":");
			put_json(w, value);
		}
		first = false;
	}
	put(w, first ? "" : ",");
	put(w, w->pretty ? "\n  \"cpus\": [" : "\"cpus\":[");
	*writer = w;
	return 0;
}

/*
 * A CPU's native counts are thousands of numbers: a column is made in one
 * buffer, sized once for its numbers, and written in one call, where a
 * call into stdio for each cost more than the digits.
 */
static char *column_begin(struct state_writer *w, struct column_text *c, size_t values)
{
	/* 20 digits and a comma each, the brackets, and decimal_put()'s slack */
	size_t need = values * 21 + 32;
	char *text;

	if (need > c->size) {
		text = realloc(c->text, need);
		if (!text) {
			w->error = w->error ? w->error : -ENOMEM;
			return NULL;
		}
		c->text = text;
		c->size = need;
	}
	c->text[0] = '[';
	return c->text + 1;
}

/* The column's last comma made its closing bracket; its length returned. */
static size_t column_end(struct column_text *c, char *end)
{
	if (end[-1] == ',')
		end[-1] = ']';
	else
		*end++ = ']';
	return (size_t)(end - c->text);
}

static void column_put(struct state_writer *w, struct column_text *c, size_t length)
{
	fwrite_unlocked(c->text, 1, length, w->f);
}

static void put_percentiles(struct state_writer *w, const struct monitor_cpu_reading *r)
{
	static const struct {
		const char *key;
		double percent;
	} points[] = { { "p50", 50 },	  { "p90", 90 },       { "p99", 99 },
		       { "p99.9", 99.9 }, { "p99.99", 99.99 }, { "p99.999", 99.999 } };
	size_t i;

	put(w, "{");
	for (i = 0; i < sizeof(points) / sizeof(points[0]); i++) {
		put_key(w, points[i].key, !i);
		put_u64(w, monitor_cpu_reading_percentile(r, points[i].percent));
	}
	put(w, "}");
}

static void put_counts(struct state_writer *w, const struct monitor_cpu_reading *r)
{
	struct decimal_repeat low = { 0 }, high = { 0 }, count = { 0 };
	unsigned int i;
	char *p;

	put_key(w, "classic", false);
	put(w, "{\"bounds_ns\":[");
	for (i = 0; i < METRICS_CLASSIC_BOUNDS; i++) {
		put(w, i ? "," : "");
		put_u64(w, metrics_classic_bound_ns[i]);
	}
	put(w, "],\"counts\":[");
	for (i = 0; i <= METRICS_CLASSIC_BOUNDS; i++) {
		put(w, i ? "," : "");
		put_u64(w, r->classic[i]);
	}
	put(w, "]}");
	put_key(w, "native", false);
	fprintf(w->f,
		"{\"schema\":%d,\"zero_threshold_ns\":%" PRIu64 ",\"zero_count\":%" PRIu64
		",\"first_index\":%d,\"counts\":",
		NATIVE_SCHEMA, native_slot_high[0], r->zero_count,
		r->nr ? native_slot_index(r->first) : 0);
	/* thousands of numbers a CPU: a column each, as the windows' */
	p = column_begin(w, &w->column, r->nr);
	if (!p)
		return;
	for (i = 0; i < r->nr; i++)
		p = decimal_put(p, &count, r->counts[i]);
	column_put(w, &w->column, column_end(&w->column, p));
	put(w, "}");
	/* the same counts in the form every latscope result has: [low, high, count] */
	put_key(w, "histogram", false);
	put(w, "{\"unit\":\"ns\",\"buckets\":");
	/* three numbers and a bracket a bucket */
	p = column_begin(w, &w->column, 4 * ((size_t)r->nr + 1));
	if (!p)
		return;
	for (i = 0; i <= r->nr; i++) {
		/* the zero bucket first, then the counted slots */
		uint64_t n = i ? r->counts[i - 1] : r->zero_count;

		if (!n)
			continue;
		*p++ = '[';
		p = decimal_put(p, &low, i ? native_slot_low(r->first + i - 1) : 0);
		p = decimal_put(p, &high, native_slot_high[i ? r->first + i - 1 : 0]);
		p = decimal_put(p, &count, n);
		p[-1] = ']';
		*p++ = ',';
	}
	column_put(w, &w->column, column_end(&w->column, p));
	fprintf(w->f, ",\"overflow\":0,\"overflow_above_ns\":%" PRIu64 "}",
		native_slot_high[NATIVE_SLOTS - 1]);
}

/*
 * The windows' columns, from the CPU's window text: what the last
 * checkpoint made of the ring's full blocks is written again as it was.
 */
static void put_windows(struct state_writer *w, const struct state_cpu *cpu)
{
	struct window_text *text = cpu->text;
	unsigned int column;
	int ret;

	if (!text) {
		/* a caller with no text of its own: the writer's, which knows no ring */
		if (!w->text)
			w->text = window_text_new();
		text = w->text;
	}
	ret = text ? window_text_update(text, cpu->windows) : -ENOMEM;
	if (ret) {
		w->error = w->error ? w->error : ret;
		return;
	}
	put_key(w, "windows", false);
	fprintf(w->f, "{\"window_ns\":%" PRIu64, cpu->window_ns);
	for (column = 0; column < STATE_WINDOW_COLUMNS; column++) {
		put_key(w, state_window_column_name(column), false);
		window_text_put(text, column, w->f);
	}
	put(w, "}");
}

json_t *state_time(uint64_t realtime_ns)
{
	time_t seconds = (time_t)(realtime_ns / 1000000000ULL);
	char text[80];
	struct tm tm;

	gmtime_r(&seconds, &tm);
	snprintf(text, sizeof(text), "%04d-%02d-%02dT%02d:%02d:%02d.%06uZ", tm.tm_year + 1900,
		 tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
		 (unsigned int)(realtime_ns % 1000000000ULL / 1000));
	return json_string(text);
}

bool state_time_valid(const char *text)
{
	struct tm tm = { 0 };
	const char *rest = text ? strptime(text, "%Y-%m-%dT%H:%M:%S", &tm) : NULL;

	if (!rest || tm.tm_year < 70 || tm.tm_year > 8099)
		return false;
	if (*rest == '.') {
		rest++;
		if (!isdigit((unsigned char)*rest))
			return false;
		while (isdigit((unsigned char)*rest))
			rest++;
	}
	return !strcmp(rest, "Z");
}

static void put_time(struct state_writer *w, uint64_t ns)
{
	json_t *text = state_time(ns);

	put_json(w, text);
	json_decref(text);
}

static void put_cause_reference(struct state_writer *w, const struct metrics_cause *cause)
{
	put(w, "\"kind\":");
	put_string(w, cause->kind);
	put(w, ",\"cause\":");
	put_string(w, cause->name);
}

static void put_explained(struct state_writer *w, const struct monitor_explained *x)
{
	unsigned int i, k;

	put_key(w, "explain", false);
	fprintf(w->f, "{\"lost_events\":%" PRIu64 ",\"spikes_missed\":%" PRIu64 ",\"causes\":[",
		x->lost_events, x->spikes_missed);
	for (i = 0; i < x->nr_causes; i++) {
		put(w, i ? ",{" : "{");
		put_cause_reference(w, &x->causes[i]);
		fprintf(w->f, ",\"spikes\":%" PRIu64 ",\"ns\":%" PRIu64 "}", x->causes[i].spikes,
			x->causes[i].ns);
	}
	put(w, "],\"worst_spikes\":[");
	for (i = 0; i < x->nr_worst; i++) {
		const struct monitor_spike *s = &x->worst[i];

		put(w, i ? ",{\"time\":" : "{\"time\":");
		put_time(w, s->time_ns);
		fprintf(w->f,
			",\"time_ns\":%" PRIu64 ",\"latency_ns\":%" PRIu64
			",\"incomplete\":%s,\"parts\":[",
			s->time_ns, s->latency_ns, s->incomplete ? "true" : "false");
		for (k = 0; k < s->nr_parts; k++) {
			put(w, k ? ",{" : "{");
			if (s->parts[k].cause < x->nr_causes)
				put_cause_reference(w, &x->causes[s->parts[k].cause]);
			fprintf(w->f, ",\"ns\":%" PRIu64 "}", s->parts[k].ns);
		}
		fprintf(w->f, "],\"rest_ns\":%" PRIu64 "}", s->rest_ns);
	}
	put(w, "]}");
}

/* The time blocks, as time_blocks_json() lays them out, with their start. */
static void put_blocks(struct state_writer *w, const struct state_cpu *cpu)
{
	const struct time_blocks *tb = &cpu->blocks->store;
	struct blocks_text *text = cpu->blocks_text;
	int ret;

	if (!text) {
		/* a caller with no text of its own: the writer's */
		if (!w->blocks_text)
			w->blocks_text = blocks_text_new();
		text = w->blocks_text;
	}
	ret = text ? blocks_text_update(text, tb) : -ENOMEM;
	if (ret) {
		w->error = w->error ? w->error : ret;
		return;
	}
	put_key(w, "time_blocks", false);
	fprintf(w->f,
		"{\"block_ns\":%" PRIu64 ",\"buckets\":\"%s\",\"start_ns\":%" PRIu64
		",\"lost\":%" PRIu64 ",\"histograms\":",
		time_blocks_length(tb), time_block_layout_name(tb->layout), cpu->blocks->start_ns,
		tb->lost);
	blocks_text_put(text, w->f);
	put(w, "}");
}

/* One CPU's object, compact, as the state keeps it. */
static void put_cpu(struct state_writer *w, const struct state_cpu *cpu)
{
	const struct monitor_cpu_reading *r = cpu->reading;

	fprintf(w->f,
		"{\"cpu\":%u,\"count\":%" PRIu64 ",\"sum_ns\":%" PRIu64 ",\"max_ns\":%" PRIu64
		",\"missed\":%" PRIu64,
		cpu->cpu, r->count, r->sum_ns, r->max_ns, r->missed);
	put_key(w, "percentiles", false);
	put_percentiles(w, r);
	put_counts(w, r);
	put_windows(w, cpu);
	if (cpu->blocks && cpu->blocks->start_ns)
		put_blocks(w, cpu);
	if (cpu->explained)
		put_explained(w, cpu->explained);
	put(w, "}");
}

/*
 * Laid out for a reader: the CPU's compact object, one CPU at a time in
 * memory (never the whole state), read back and indented by jansson.
 */
static void put_cpu_pretty(struct state_writer *w, const struct state_cpu *cpu)
{
	FILE *document = w->f;
	char *text = NULL;
	size_t size = 0;
	json_t *object;

	w->f = open_memstream(&text, &size);
	if (!w->f) {
		w->f = document;
		w->error = w->error ? w->error : -ENOMEM;
		return;
	}
	put_cpu(w, cpu);
	if (fclose(w->f))
		w->error = w->error ? w->error : -ENOMEM;
	w->f = document;
	object = w->error ? NULL : json_loadb(text, size, 0, NULL);
	free(text);
	if (!object) {
		w->error = w->error ? w->error : -ENOMEM;
		return;
	}
	put(w, "\n    ");
	put_indented(w, object, 4);
	json_decref(object);
}

int state_cpu_text(const struct state_cpu *cpu)
{
	int ret = 0;

	if (cpu->text)
		ret = window_text_update(cpu->text, cpu->windows);
	if (!ret && cpu->blocks_text && cpu->blocks && cpu->blocks->start_ns)
		ret = blocks_text_update(cpu->blocks_text, &cpu->blocks->store);
	return ret;
}

int state_writer_cpu(struct state_writer *w, const struct state_cpu *cpu)
{
	if (w->error)
		return w->error;
	put(w, w->any_cpu ? "," : "");
	if (w->pretty)
		put_cpu_pretty(w, cpu);
	else
		put_cpu(w, cpu);
	w->any_cpu = true;
	if (flush_error(w))
		return w->error;
	/* the disk writes this CPU while the next ones are formatted */
	atomic_file_write_behind(&w->file);
	return 0;
}

static void writer_free(struct state_writer *w)
{
	free(w->column.text);
	window_text_free(w->text);
	blocks_text_free(w->blocks_text);
	free(w);
}

int state_writer_close(struct state_writer *w)
{
	int ret;

	put(w, w->pretty && w->any_cpu ? "\n  ]" : "]");
	put(w, w->pretty ? "\n}\n" : "}\n");
	ret = flush_error(w);
	if (ret)
		atomic_file_abandon(&w->file);
	else
		ret = atomic_file_commit(&w->file);
	writer_free(w);
	return ret;
}

void state_writer_abandon(struct state_writer *w)
{
	atomic_file_abandon(&w->file);
	writer_free(w);
}

/* ---- reading ---- */

struct scanner {
	const char *text;
	size_t size, at;
	size_t released; /* bytes given back to the kernel so far */
	struct jsondoc_reader *reader; /* one for every CPU's object */
};

static void skip_space(struct scanner *s)
{
	while (s->at < s->size && strchr(" \t\r\n", s->text[s->at]))
		s->at++;
}

static bool expect(struct scanner *s, char c)
{
	skip_space(s);
	if (s->at < s->size && s->text[s->at] == c) {
		s->at++;
		return true;
	}
	return false;
}

/*
 * A member of the header: few and small, and handed on as plain jansson
 * values the callbacks may keep (a jsondoc's packed arrays live only as
 * long as their document).
 */
static json_t *take_value(struct scanner *s, char *why, size_t size)
{
	json_error_t error;
	json_t *value;

	skip_space(s);
	value = json_loadb(s->text + s->at, s->size - s->at,
			   JSON_DECODE_ANY | JSON_DISABLE_EOF_CHECK | JSON_REJECT_DUPLICATES,
			   &error);
	if (!value) {
		snprintf(why, size, "at byte %zu: %s", s->at + (size_t)error.position, error.text);
		return NULL;
	}
	s->at += (size_t)error.position;
	return value;
}

/*
 * A CPU's object, read by jsondoc: its long columns of numbers go into
 * flat tables, where jansson made a value (an allocation) of each of the
 * 2.6 million numbers of a 256-CPU state of 35 days, most of its load.
 */
static struct jsondoc *take_cpu(struct scanner *s, char *why, size_t size)
{
	struct jsondoc *doc;
	size_t used;

	doc = jsondoc_reader_parse_first(s->reader, s->text + s->at, s->size - s->at, &used, why,
					 size);
	if (!doc) {
		char reason[256];

		snprintf(reason, sizeof(reason), "%s", why);
		snprintf(why, size, "at byte %zu: %s", s->at + used, reason);
		return NULL;
	}
	s->at += used;
	return doc;
}

/* Pages read already leave the process's memory: a big state costs one CPU's worth. */
static void release_read(struct scanner *s)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), upto = s->at / page * page;

	if (upto > s->released) {
		madvise((char *)s->text + s->released, upto - s->released, MADV_DONTNEED);
		s->released = upto;
	}
}

static int corrupt(char *why, size_t size, const char *what)
{
	snprintf(why, size, "%s", what);
	return STATE_CORRUPT;
}

static int read_cpus(struct scanner *s, state_cpu_fn on_cpu, void *context, char *why, size_t size)
{
	struct jsondoc *doc;
	json_t *cpu;
	int ret;

	if (!expect(s, '['))
		return corrupt(why, size, "\"cpus\" is not a list");
	if (expect(s, ']'))
		return 0;
	do {
		doc = take_cpu(s, why, size);
		if (!doc)
			return STATE_CORRUPT;
		cpu = jsondoc_root(doc);
		ret = json_is_object(cpu) ? on_cpu(context, doc, cpu, why, size) :
					    corrupt(why, size, "a cpu is not an object");
		jsondoc_free(doc);
		if (ret)
			return ret;
		release_read(s);
	} while (expect(s, ','));
	return expect(s, ']') ? 0 : corrupt(why, size, "the cpu list is not closed");
}

static int read_document(struct scanner *s, state_header_fn on_header, state_cpu_fn on_cpu,
			 void *context, char *why, size_t size)
{
	json_t *header = json_object(), *key, *value;
	bool cpus_seen = false;
	int ret = 0;

	if (!header)
		return -ENOMEM;
	if (!expect(s, '{')) {
		json_decref(header);
		return corrupt(why, size, "not a JSON object");
	}
	do {
		key = take_value(s, why, size);
		if (!key || !json_is_string(key) || !expect(s, ':')) {
			if (key && !why[0])
				corrupt(why, size, "malformed member");
			json_decref(key);
			ret = STATE_CORRUPT;
			break;
		}
		if ((!strcmp(json_string_value(key), "cpus") && cpus_seen) ||
		    json_object_get(header, json_string_value(key))) {
			/* which of the two a reader takes is not defined: neither is */
			snprintf(why, size, "the key \"%.100s\" is given twice",
				 json_string_value(key));
			ret = STATE_CORRUPT;
		} else if (!strcmp(json_string_value(key), "cpus")) {
			cpus_seen = true;
			ret = on_header(context, header, why, size);
			if (!ret)
				ret = read_cpus(s, on_cpu, context, why, size);
		} else {
			value = take_value(s, why, size);
			if (value)
				json_object_set_new(header, json_string_value(key), value);
			else
				ret = STATE_CORRUPT;
		}
		json_decref(key);
	} while (!ret && expect(s, ','));
	json_decref(header);
	if (ret)
		return ret;
	if (!expect(s, '}'))
		return corrupt(why, size, "the document is not closed (truncated?)");
	skip_space(s);
	if (s->at != s->size)
		return corrupt(why, size, "data after the document");
	if (!cpus_seen)
		return corrupt(why, size, "no \"cpus\"");
	return STATE_CONTINUED;
}

int state_read(const char *path, state_header_fn on_header, state_cpu_fn on_cpu, void *context,
	       char *why, size_t size)
{
	struct scanner s = { 0 };
	struct stat st;
	void *map;
	int fd, ret;

	why[0] = '\0';
	/* mapped and read a CPU at a time: no bound on its size */
	fd = input_file_open(path, UINT64_MAX, &st);
	if (fd == -ENOENT)
		return STATE_ABSENT;
	if (fd < 0)
		return fd;
	if (!st.st_size) {
		close(fd);
		return corrupt(why, size, "the file is empty");
	}
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return -errno;
	madvise(map, (size_t)st.st_size, MADV_SEQUENTIAL);
	s.text = map;
	s.size = (size_t)st.st_size;
	s.reader = jsondoc_reader_new();
	ret = s.reader ? read_document(&s, on_header, on_cpu, context, why, size) : -ENOMEM;
	jsondoc_reader_free(s.reader);
	munmap(map, (size_t)st.st_size);
	return ret;
}

/* ---- one CPU's object ---- */

static bool get_u64(json_t *object, const char *key, uint64_t *value)
{
	json_t *v = json_object_get(object, key);

	if (!json_is_integer(v) || json_integer_value(v) < 0)
		return false;
	*value = (uint64_t)json_integer_value(v);
	return true;
}

/*
 * @array as a column of counts: a flat list of numbers, none negative.
 * Its values are @doc's.
 */
static bool get_column(struct jsondoc *doc, const json_t *array, struct jsondoc_table *column)
{
	size_t i;

	if (jsondoc_table(doc, array, column) || column->width > 1)
		return false;
	for (i = 0; i < column->rows; i++)
		if (column->values[i] < 0)
			return false;
	return true;
}

/*
 * What the counts say of the max and the sum, checked: a state a monitor
 * wrote always agrees with itself, and one that does not would carry a
 * wrong max or mean on for weeks.
 */
static int check_extremes(const struct monitor_cpu_reading *r, char *why, size_t size)
{
	unsigned int top = 0, i;

	if (!r->count)
		return r->max_ns || r->sum_ns ?
			       corrupt(why, size, "a cpu with no sample has a max or a sum") :
			       0;
	for (i = r->nr; i > 0 && !top; i--)
		if (r->counts[i - 1])
			top = r->first + i - 1;
	if (native_slot_of(r->max_ns) != top)
		return corrupt(why, size, "max_ns is not in the highest bucket counted");
	/* the sum saturates at MONITOR_COUNTER_MAX; the mean can never exceed the max */
	if (r->sum_ns > MONITOR_COUNTER_MAX || r->sum_ns / r->count > r->max_ns)
		return corrupt(why, size, "sum_ns is above count times max_ns");
	return 0;
}

static int parse_counts(struct jsondoc *doc, json_t *object, struct monitor_cpu_reading *r,
			char *why, size_t size)
{
	json_t *classic = json_object_get(json_object_get(object, "classic"), "counts");
	json_t *native = json_object_get(object, "native"), *counts;
	struct jsondoc_table column;
	uint64_t schema, total = 0;
	long long first_slot;
	size_t i;

	if (!get_u64(object, "count", &r->count) || !get_u64(object, "sum_ns", &r->sum_ns) ||
	    !get_u64(object, "max_ns", &r->max_ns) || !get_u64(object, "missed", &r->missed))
		return corrupt(why, size, "a cpu lacks count, sum_ns, max_ns or missed");
	if (!get_column(doc, classic, &column))
		return corrupt(why, size, "a classic count is not a number");
	if (column.rows != METRICS_CLASSIC_BOUNDS + 1)
		return corrupt(why, size, "classic counts are not 17 numbers");
	for (i = 0; i <= METRICS_CLASSIC_BOUNDS; i++) {
		r->classic[i] = (uint64_t)column.values[i];
		total += r->classic[i];
	}
	if (total != r->count)
		return corrupt(why, size, "classic counts do not add up to count");
	counts = json_object_get(native, "counts");
	if (!get_u64(native, "schema", &schema) || schema != NATIVE_SCHEMA ||
	    !get_u64(native, "zero_count", &r->zero_count) || !json_is_array(counts) ||
	    !json_is_integer(json_object_get(native, "first_index")))
		return corrupt(why, size, "native counts are not schema 7 with their fields");
	if (!get_column(doc, counts, &column))
		return corrupt(why, size, "a native count is not a number");
	first_slot =
		json_integer_value(json_object_get(native, "first_index")) - NATIVE_FIRST_INDEX + 1;
	if (column.rows > NATIVE_SLOTS)
		return corrupt(why, size, "native counts are out of range");
	r->nr = (unsigned int)column.rows;
	if (r->nr && (first_slot < 1 || first_slot + r->nr > NATIVE_SLOTS))
		return corrupt(why, size, "native counts are out of range");
	r->first = r->nr ? (unsigned int)first_slot : 1;
	total = r->zero_count;
	for (i = 0; i < r->nr; i++) {
		r->counts[i] = (uint64_t)column.values[i];
		total += r->counts[i];
	}
	if (total != r->count)
		return corrupt(why, size, "native counts do not add up to count");
	return check_extremes(r, why, size);
}

/*
 * A window as the monitor closes it: after the one before it on the wall
 * clock's grid and not after now, within the 32-bit count a window holds,
 * its p99 and max no higher than the CPU's max. Two partial windows of one
 * index are two runs' parts of it: one stopped inside the window, the
 * next began inside it.
 */
static int check_window(const struct monitor_window *w, const struct monitor_window *before,
			uint64_t now_index, const struct monitor_cpu_reading *r, char *why,
			size_t size)
{
	bool one_window_two_runs =
		before && w->index == before->index && w->partial && before->partial;

	if ((before && w->index <= before->index && !one_window_two_runs) ||
	    w->index > now_index + 1)
		return corrupt(why, size, "a window's index is out of order or in the future");
	/* the p99's slot above the max's: the max at or below the slot before the p99's */
	if (w->count > MONITOR_MAX_SAMPLES_PER_WINDOW || w->max_ns > r->max_ns ||
	    (w->p99_slot && w->max_ns <= native_slot_high[w->p99_slot - 1]))
		return corrupt(why, size, "a window's count, max or p99 is out of range");
	return 0;
}

const char *state_window_column_name(enum state_window_column column)
{
	static const char *const names[] = { "index",  "count",	 "max_ns",
					     "p99_ns", "missed", "partial" };

	return column < STATE_WINDOW_COLUMNS ? names[column] : NULL;
}

bool state_window_column_in_runs(enum state_window_column column)
{
	return column == STATE_WINDOW_INDEX || column == STATE_WINDOW_COUNT ||
	       column == STATE_WINDOW_MISSED || column == STATE_WINDOW_PARTIAL;
}

unsigned int state_window_column_step(enum state_window_column column)
{
	return column == STATE_WINDOW_INDEX;
}

/* Runs [value, windows]: OK and how many windows they stand for, or why not. */
static enum state_column_status runs_status(const struct jsondoc_table *t, unsigned int step,
					    size_t *rows)
{
	size_t n = 0, i;

	for (i = 0; i < t->rows; i++) {
		int64_t value = t->values[2 * i], windows = t->values[2 * i + 1];

		if (value < 0 || windows < 1 || (step && value > INT64_MAX - windows))
			return STATE_COLUMN_NOT_NUMBERS;
		if ((uint64_t)windows > STATE_MAX_RUN_WINDOWS - n)
			return STATE_COLUMN_LENGTH;
		n += (size_t)windows;
	}
	*rows = n;
	return STATE_COLUMN_OK;
}

static void lay_out_runs(const struct jsondoc_table *t, unsigned int step, int64_t *values)
{
	size_t n = 0, i;
	int64_t j;

	for (i = 0; i < t->rows; i++)
		for (j = 0; j < t->values[2 * i + 1]; j++)
			values[n++] = t->values[2 * i] + (int64_t)step * j;
}

/* A column's form: OK with its rows (a number a window, or runs), or why not. */
static enum state_column_status column_form(struct jsondoc *doc, const json_t *column,
					    unsigned int step, struct jsondoc_table *t,
					    size_t *rows)
{
	if (!column)
		return STATE_COLUMN_ABSENT;
	if (!json_is_array(column))
		return STATE_COLUMN_NOT_ARRAY;
	if (jsondoc_table(doc, column, t) || t->width > 2)
		return STATE_COLUMN_NOT_NUMBERS;
	if (t->width == 2)
		return runs_status(t, step, rows);
	*rows = t->rows;
	return STATE_COLUMN_OK;
}

/*
 * A column's status, and its values when OK. The index's rows go to
 * view->rows; any other column must have as many, checked before its runs
 * are laid out, so that runs cannot ask for memory the index did not.
 * 0 or -ENOMEM.
 */
static int view_column(struct jsondoc *doc, const json_t *column, unsigned int c,
		       struct state_windows *view)
{
	unsigned int step = state_window_column_step(c);
	struct jsondoc_table t;
	size_t rows = 0;

	view->status[c] = column_form(doc, column, step, &t, &rows);
	if (view->status[c] != STATE_COLUMN_OK)
		return 0;
	if (c == STATE_WINDOW_INDEX)
		view->rows = rows;
	else if (rows != view->rows) {
		view->status[c] = STATE_COLUMN_LENGTH;
		return 0;
	}
	if (t.width < 2) {
		view->values[c] = t.values;
		return 0;
	}
	view->laid_out[c] = malloc((rows ? rows : 1) * sizeof(int64_t));
	if (!view->laid_out[c])
		return -ENOMEM;
	lay_out_runs(&t, step, view->laid_out[c]);
	view->values[c] = view->laid_out[c];
	return 0;
}

int state_windows_view(struct jsondoc *doc, const json_t *windows, struct state_windows *view)
{
	unsigned int c;

	memset(view, 0, sizeof(*view));
	for (c = 0; c < STATE_WINDOW_COLUMNS; c++)
		if (view_column(doc, json_object_get(windows, state_window_column_name(c)), c,
				view)) {
			state_windows_release(view);
			return -ENOMEM;
		}
	return 0;
}

void state_windows_release(struct state_windows *view)
{
	unsigned int c;

	for (c = 0; c < STATE_WINDOW_COLUMNS; c++) {
		free(view->laid_out[c]);
		view->laid_out[c] = NULL;
	}
}

/* Every column there, as long as the index, none negative: 0 or STATE_CORRUPT. */
static int check_columns(const struct state_windows *view, char *why, size_t size)
{
	size_t i, c;

	for (c = 0; c < STATE_WINDOW_COLUMNS; c++) {
		if (view->status[c] == STATE_COLUMN_NOT_NUMBERS)
			return corrupt(why, size, "a window value is not a number");
		if (view->status[c] != STATE_COLUMN_OK)
			return corrupt(why, size, "the window columns differ in length");
		for (i = 0; i < view->rows; i++)
			if (view->values[c][i] < 0)
				return corrupt(why, size, "a window value is not a number");
	}
	return 0;
}

static int restore_windows(const struct state_windows *view, struct window_ring *ring,
			   uint64_t window_ns, struct monitor_cpu_reading *r, char *why,
			   size_t size)
{
	uint64_t now_index = clock_ns(CLOCK_REALTIME) / window_ns;
	const int64_t *const *columns = view->values;
	struct monitor_window before;
	size_t n = view->rows, i;
	int ret;

	for (i = 0; i < n; i++) {
		struct monitor_window w;
		uint64_t p99 = (uint64_t)columns[STATE_WINDOW_P99][i];

		w.index = (uint64_t)columns[STATE_WINDOW_INDEX][i];
		w.count = (uint64_t)columns[STATE_WINDOW_COUNT][i];
		w.max_ns = (uint64_t)columns[STATE_WINDOW_MAX][i];
		/* most windows have the p99 of the one before: its slot is not searched again */
		w.p99_slot = i && p99 == (uint64_t)columns[STATE_WINDOW_P99][i - 1] ?
				     before.p99_slot :
				     native_slot_of(p99);
		w.missed = (uint64_t)columns[STATE_WINDOW_MISSED][i];
		w.partial = columns[STATE_WINDOW_PARTIAL][i] != 0;
		ret = check_window(&w, i ? &before : NULL, now_index, r, why, size);
		if (ret)
			return ret;
		before = w;
		if (window_ring_append(ring, &w))
			return -ENOMEM;
		if (i == n - 1) {
			r->has_closed = true;
			r->last_closed = w;
		}
	}
	return 0;
}

static int parse_windows(struct jsondoc *doc, json_t *object, struct window_ring *ring,
			 uint64_t window_ns, struct monitor_cpu_reading *r, char *why, size_t size)
{
	json_t *windows = json_object_get(object, "windows");
	struct state_windows view;
	uint64_t ns;
	int ret;

	if (!get_u64(windows, "window_ns", &ns) || ns != window_ns)
		return corrupt(why, size, "the windows are not of the run's length");
	ret = state_windows_view(doc, windows, &view);
	if (ret)
		return ret;
	ret = check_columns(&view, why, size);
	if (!ret)
		ret = restore_windows(&view, ring, window_ns, r, why, size);
	state_windows_release(&view);
	return ret;
}

static const char *string_of(json_t *object, const char *key)
{
	return json_string_value(json_object_get(object, key));
}

static int parse_explained(json_t *object, struct monitor_explained *x, char *why, size_t size)
{
	json_t *explain = json_object_get(object, "explain"), *causes, *worst, *parts;
	size_t i, k, c;

	memset(x, 0, sizeof(*x));
	if (!explain)
		return 0;
	causes = json_object_get(explain, "causes");
	worst = json_object_get(explain, "worst_spikes");
	if (!get_u64(explain, "lost_events", &x->lost_events) ||
	    !get_u64(explain, "spikes_missed", &x->spikes_missed) || !json_is_array(causes) ||
	    json_array_size(causes) > METRICS_CAUSES_PER_CPU + 1 || !json_is_array(worst) ||
	    json_array_size(worst) > MONITOR_WORST_SPIKES)
		return corrupt(why, size, "the explain part is malformed");
	for (i = 0; i < json_array_size(causes); i++) {
		json_t *cause = json_array_get(causes, i);
		struct metrics_cause *to = &x->causes[i];

		if (!string_of(cause, "kind") || !string_of(cause, "cause") ||
		    !get_u64(cause, "spikes", &to->spikes) || !get_u64(cause, "ns", &to->ns))
			return corrupt(why, size, "a cause is malformed");
		metrics_copy_label(to->kind, sizeof(to->kind), string_of(cause, "kind"));
		metrics_copy_label(to->name, sizeof(to->name), string_of(cause, "cause"));
		x->nr_causes++;
	}
	for (i = 0; i < json_array_size(worst); i++) {
		json_t *spike = json_array_get(worst, i);
		struct monitor_spike *to = &x->worst[i];

		parts = json_object_get(spike, "parts");
		if (!get_u64(spike, "time_ns", &to->time_ns) ||
		    !get_u64(spike, "latency_ns", &to->latency_ns) ||
		    !get_u64(spike, "rest_ns", &to->rest_ns) || !json_is_array(parts) ||
		    json_array_size(parts) > MONITOR_SPIKE_PARTS)
			return corrupt(why, size, "a worst spike is malformed");
		to->incomplete = json_is_true(json_object_get(spike, "incomplete"));
		for (k = 0; k < json_array_size(parts); k++) {
			json_t *part = json_array_get(parts, k);
			const char *kind = string_of(part, "kind"),
				   *label = string_of(part, "cause");

			for (c = 0; kind && label && c < x->nr_causes; c++)
				if (!strcmp(x->causes[c].kind, kind) &&
				    !strcmp(x->causes[c].name, label))
					break;
			if (!kind || !label || c == x->nr_causes ||
			    !get_u64(part, "ns", &to->parts[k].ns))
				return corrupt(why, size, "a spike's part names no known cause");
			to->parts[k].cause = (uint32_t)c;
			to->nr_parts++;
		}
		x->nr_worst++;
	}
	return 0;
}

int state_cpu_parse(struct jsondoc *doc, json_t *object, struct monitor_cpu_reading *reading,
		    struct window_ring *windows, uint64_t window_ns,
		    struct monitor_explained *explained, struct monitor_blocks *blocks, char *why,
		    size_t size)
{
	int ret;

	monitor_blocks_init(blocks);
	reading->has_closed = false;
	ret = parse_counts(doc, object, reading, why, size);
	if (!ret)
		ret = parse_windows(doc, object, windows, window_ns, reading, why, size);
	if (!ret)
		ret = parse_explained(object, explained, why, size);
	if (!ret) {
		ret = monitor_blocks_parse(doc, json_object_get(object, "time_blocks"), blocks,
					   reading, why, size);
		if (ret == -EINVAL)
			ret = STATE_CORRUPT;
	}
	return ret;
}

int state_keep_aside(const char *path, const char *suffix, char *aside, size_t size)
{
	time_t now = time(NULL);
	unsigned int attempt;
	struct tm tm;
	char stamp[32];
	int n, err;

	gmtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", &tm);
	/* never over another one: two set aside in one second get a count */
	for (attempt = 1; attempt < 100; attempt++) {
		n = attempt == 1 ?
			    snprintf(aside, size, "%s.%s.%s", path, suffix, stamp) :
			    snprintf(aside, size, "%s.%s.%s.%u", path, suffix, stamp, attempt);
		if (n < 0 || (size_t)n >= size) {
			err = ENAMETOOLONG;
			break;
		}
		if (!renameat2(AT_FDCWD, path, AT_FDCWD, aside, RENAME_NOREPLACE))
			return 0;
		err = errno;
		if (err != EEXIST)
			break;
	}
	log_error("cannot keep the state %s aside as %s: %s", path, aside, strerror(err));
	return -err;
}

int state_check_writable(const char *path, bool make_directory)
{
	char copy[4096];
	const char *dir;
	struct stat st;

	/* read before it is written: only a regular file can be a state */
	if (!stat(path, &st) && !S_ISREG(st.st_mode))
		return S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
	snprintf(copy, sizeof(copy), "%s", path);
	dir = dirname(copy);
	if (make_directory && mkdir(dir, 0755) && errno != EEXIST)
		return -errno;
	return atomic_file_check(path);
}
