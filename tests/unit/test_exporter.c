// SPDX-License-Identifier: GPL-2.0-or-later
#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "latscope/exporter.h"
#include "latscope/exporter_http.h"
#include "metric_family.pb-c.h"
#include "unit.h"

#define GOLDEN(name) TEST_DATA_DIR "/exporter/" name

/* Fill one CPU's native counts from a list of latencies. */
static void add_native(struct metrics_cpu *c, const uint64_t *values, size_t n)
{
	unsigned int lo = NATIVE_SLOTS, hi = 0, slot;
	size_t i;

	for (i = 0; i < n; i++) {
		slot = native_slot_of(values[i]);
		if (!slot)
			continue;
		lo = slot < lo ? slot : lo;
		hi = slot > hi ? slot : hi;
	}
	c->native.first = lo;
	c->native.nr = lo <= hi ? hi - lo + 1 : 0;
	c->native.counts = calloc(c->native.nr + 1, sizeof(uint64_t));
	for (i = 0; i < n; i++) {
		slot = native_slot_of(values[i]);
		if (!slot)
			c->native.zero_count++;
		else
			c->native.counts[slot - lo]++;
		c->classic[metrics_classic_slot_of(values[i])]++;
		c->count++;
		c->sum_ns += values[i];
		if (values[i] > c->max_ns)
			c->max_ns = values[i];
	}
}

/* Two CPUs with causes whose names need escaping, interrupts and two failed rules. */
static struct metrics *sample_metrics(void)
{
	static const uint64_t cpu1[] = { 3,    1000, 1001, 2000,   2500,   2501,      2502,
					 4999, 5000, 5001, 150000, 999999, 100000000, 100000001 };
	static const uint64_t cpu3[] = { 1800, 1810, 1820, 1830, 40000 };
	struct metrics *m = metrics_new(2);
	struct metrics_cpu *c;

	ck_assert_ptr_nonnull(m);
	m->version = "0.1.0";
	m->start_time = 1700000000.25;
	c = &m->cpus[0];
	c->cpu = 1;
	add_native(c, cpu1, sizeof(cpu1) / sizeof(cpu1[0]));
	c->missed = 7;
	c->has_window = true;
	c->window_max_ns = 150000;
	c->explained = true;
	c->lost_events = 12;
	c->nr_causes = 4;
	c->causes = calloc(c->nr_causes, sizeof(*c->causes));
	strcpy(c->causes[0].kind, "vector");
	strcpy(c->causes[0].name, "local_timer");
	c->causes[0].spikes = 5;
	c->causes[0].ns = 123456;
	strcpy(c->causes[1].kind, "thread");
	metrics_copy_label(c->causes[1].name, sizeof(c->causes[1].name), "bad \"name\"\\\n\xff!");
	c->causes[1].spikes = 2;
	c->causes[1].ns = 1500000000;
	strcpy(c->causes[2].kind, "irq");
	strcpy(c->causes[2].name, "irq 36 virtio1-req.0");
	c->causes[2].spikes = 1;
	c->causes[2].ns = 20000;
	strcpy(c->causes[3].kind, "timer_delay");
	strcpy(c->causes[3].name, "timer irq delay");
	c->causes[3].ns = 99;
	c->nr_interrupts = 2;
	c->interrupts = calloc(2, sizeof(*c->interrupts));
	strcpy(c->interrupts[0].irq, "36");
	strcpy(c->interrupts[0].name, "virtio1-req.0");
	c->interrupts[0].count = 42;
	strcpy(c->interrupts[1].irq, "LOC");
	strcpy(c->interrupts[1].name, "Local timer interrupts");
	c->interrupts[1].count = 4000000000ULL;
	c = &m->cpus[1];
	c->cpu = 3;
	add_native(c, cpu3, sizeof(cpu3) / sizeof(cpu3[0]));
	c->explained = true;
	m->nr_failed = 2;
	m->failed = calloc(2, sizeof(*m->failed));
	strcpy(m->failed[0].id, "kernel.preempt_rt");
	strcpy(m->failed[0].severity, "fatal");
	strcpy(m->failed[1].id, "irq.affinity");
	strcpy(m->failed[1].severity, "high");
	return m;
}

static char *read_file(const char *path, size_t *size)
{
	FILE *f = fopen(path, "r");
	char *text;
	long n;

	ck_assert_msg(f != NULL, "cannot open %s", path);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	text = malloc((size_t)n + 1);
	ck_assert_uint_eq(fread(text, 1, (size_t)n, f), (size_t)n);
	text[n] = '\0';
	fclose(f);
	*size = (size_t)n;
	return text;
}

static void check_golden(bool openmetrics, const char *golden)
{
	struct metrics *m = sample_metrics();
	char *body, *want;
	size_t size, want_size;

	ck_assert_int_eq(exporter_render_text(m, openmetrics, &body, &size), 0);
	if (getenv("UPDATE_GOLDEN")) {
		FILE *f = fopen(golden, "w");

		fwrite(body, 1, size, f);
		fclose(f);
	}
	want = read_file(golden, &want_size);
	if (size != want_size || memcmp(body, want, size)) {
		size_t at = 0, line = 1, start = 0;

		while (at < size && at < want_size && body[at] == want[at])
			if (body[at++] == '\n') {
				line++;
				start = at;
			}
		ck_abort_msg("%s: line %zu differs: got \"%.*s\"", golden, line,
			     (int)strcspn(body + start, "\n"), body + start);
	}
	free(want);
	free(body);
	metrics_free(m);
}

START_TEST(text_matches_golden)
{
	check_golden(false, GOLDEN("metrics.txt"));
}
END_TEST

START_TEST(openmetrics_matches_golden)
{
	check_golden(true, GOLDEN("metrics.om"));
}
END_TEST

/* promtool, Prometheus' own linter, reads the exposition on stdin. */
static int promtool_check(const char *body, size_t size, char *output, size_t output_size)
{
	int to_child[2], from_child[2], status;
	size_t got = 0;
	ssize_t n;
	pid_t pid;

	ck_assert_int_eq(pipe(to_child), 0);
	ck_assert_int_eq(pipe(from_child), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (!pid) {
		dup2(to_child[0], 0);
		dup2(from_child[1], 1);
		dup2(from_child[1], 2);
		close(to_child[1]);
		close(from_child[0]);
		execlp("promtool", "promtool", "check", "metrics", (char *)NULL);
		_exit(127);
	}
	close(to_child[0]);
	close(from_child[1]);
	ck_assert_int_eq(write(to_child[1], body, size), (ssize_t)size);
	close(to_child[1]);
	while (got + 1 < output_size &&
	       (n = read(from_child[0], output + got, output_size - got - 1)) > 0)
		got += (size_t)n;
	output[got] = '\0';
	close(from_child[0]);
	waitpid(pid, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

START_TEST(promtool_accepts_the_text)
{
	struct metrics *m = sample_metrics();
	char *body, output[8192];
	size_t size;
	int status;

	ck_assert_int_eq(exporter_render_text(m, false, &body, &size), 0);
	status = promtool_check(body, size, output, sizeof(output));
	ck_assert_msg(status != 127, "promtool is not installed (apt-get install prometheus)");
	ck_assert_msg(status == 0, "promtool check metrics: %s", output);
	free(body);
	metrics_free(m);
}
END_TEST

START_TEST(promtool_notices_a_broken_exposition)
{
	static const char broken[] = "# TYPE x counter\nx{a=\"b} 1\n";
	char output[4096];

	/* the check above is worth something only if promtool can say no */
	ck_assert_int_ne(promtool_check(broken, sizeof(broken) - 1, output, sizeof(output)), 0);
}
END_TEST

/* Decode the delimited stream back with protobuf-c. */
static Io__Prometheus__Client__MetricFamily **decode(const char *body, size_t size,
						     unsigned int *nr)
{
	Io__Prometheus__Client__MetricFamily **families = calloc(64, sizeof(*families));
	size_t at = 0;

	*nr = 0;
	while (at < size) {
		uint64_t length = 0;
		unsigned int shift = 0;

		while ((uint8_t)body[at] & 0x80) {
			length |= (uint64_t)((uint8_t)body[at++] & 0x7f) << shift;
			shift += 7;
		}
		length |= (uint64_t)(uint8_t)body[at++] << shift;
		ck_assert_uint_le(at + length, size);
		families[*nr] = io__prometheus__client__metric_family__unpack(
			NULL, length, (const uint8_t *)body + at);
		ck_assert_ptr_nonnull(families[*nr]);
		(*nr)++;
		at += length;
	}
	return families;
}

static const Io__Prometheus__Client__MetricFamily *
find_family(Io__Prometheus__Client__MetricFamily **families, unsigned int nr, const char *name)
{
	unsigned int i;

	for (i = 0; i < nr; i++)
		if (!strcmp(families[i]->name, name))
			return families[i];
	return NULL;
}

START_TEST(native_histogram_decodes_back)
{
	struct metrics *m = sample_metrics();
	Io__Prometheus__Client__MetricFamily **families;
	const Io__Prometheus__Client__MetricFamily *f;
	unsigned int nr, i, c;
	char *body;
	size_t size;

	ck_assert_int_eq(exporter_render_protobuf(m, &body, &size), 0);
	families = decode(body, size, &nr);
	f = find_family(families, nr, "latscope_timer_latency_seconds");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(f->type, IO__PROMETHEUS__CLIENT__METRIC_TYPE__HISTOGRAM);
	ck_assert_uint_eq(f->n_metric, 2);
	for (c = 0; c < 2; c++) {
		const Io__Prometheus__Client__Histogram *h = f->metric[c]->histogram;
		const struct metrics_cpu *cpu = &m->cpus[c];
		uint64_t *counts = calloc(NATIVE_SLOTS, sizeof(uint64_t)), cumulative = 0;
		int64_t running = 0;
		int index = 0;
		size_t d = 0, s;

		ck_assert_str_eq(f->metric[c]->label[0]->value, c ? "3" : "1");
		ck_assert_uint_eq(h->sample_count, cpu->count);
		ck_assert(fabs(h->sample_sum - cpu->sum_ns / 1e9) < 1e-12);
		ck_assert_int_eq(h->schema, NATIVE_SCHEMA);
		ck_assert(h->zero_threshold == ldexp(1, -26));
		ck_assert_uint_eq(h->zero_count, cpu->native.zero_count);
		/* classic buckets: cumulative, the bounds in seconds */
		ck_assert_uint_eq(h->n_bucket, METRICS_CLASSIC_BOUNDS);
		for (i = 0; i < METRICS_CLASSIC_BOUNDS; i++) {
			cumulative += cpu->classic[i];
			ck_assert_uint_eq(h->bucket[i]->cumulative_count, cumulative);
			ck_assert(h->bucket[i]->upper_bound == metrics_classic_bound_ns[i] / 1e9);
		}
		/* native buckets: spans and deltas give back every count */
		for (s = 0; s < h->n_positive_span; s++) {
			index += h->positive_span[s]->offset;
			for (i = 0; i < h->positive_span[s]->length; i++, index++) {
				running += h->positive_delta[d++];
				ck_assert_int_ge(running, 0);
				ck_assert_int_ge(index, NATIVE_FIRST_INDEX);
				counts[index - NATIVE_FIRST_INDEX + 1] = (uint64_t)running;
			}
		}
		ck_assert_uint_eq(d, h->n_positive_delta);
		for (i = 1; i < NATIVE_SLOTS; i++) {
			uint64_t want =
				i >= cpu->native.first && i < cpu->native.first + cpu->native.nr ?
					cpu->native.counts[i - cpu->native.first] :
					0;

			ck_assert_msg(counts[i] == want, "slot %u: %llu, want %llu", i,
				      (unsigned long long)counts[i], (unsigned long long)want);
		}
		free(counts);
	}
	f = find_family(families, nr, "latscope_spike_seconds_total");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(f->n_metric, 4);
	ck_assert_str_eq(f->metric[1]->label[2]->value, "bad \"name\"\\\n?!");
	ck_assert(f->metric[1]->counter->value == 1.5);
	f = find_family(families, nr, "latscope_build_info");
	ck_assert_str_eq(f->metric[0]->label[0]->name, "version");
	for (i = 0; i < nr; i++)
		io__prometheus__client__metric_family__free_unpacked(families[i], NULL);
	free(families);
	free(body);
	metrics_free(m);
}
END_TEST

START_TEST(a_histogram_without_samples_is_still_native)
{
	struct metrics *m = metrics_new(1);
	Io__Prometheus__Client__MetricFamily **families;
	const Io__Prometheus__Client__Histogram *h;
	unsigned int nr, i;
	char *body;
	size_t size;

	m->cpus[0].cpu = 0;
	ck_assert_int_eq(exporter_render_protobuf(m, &body, &size), 0);
	families = decode(body, size, &nr);
	h = find_family(families, nr, "latscope_timer_latency_seconds")->metric[0]->histogram;
	ck_assert_uint_eq(h->n_positive_span, 1);
	ck_assert_int_eq(h->positive_span[0]->offset, 0);
	ck_assert_uint_eq(h->positive_span[0]->length, 0);
	ck_assert(find_family(families, nr, "latscope_spikes_total") == NULL);
	for (i = 0; i < nr; i++)
		io__prometheus__client__metric_family__free_unpacked(families[i], NULL);
	free(families);
	free(body);
	metrics_free(m);
}
END_TEST

START_TEST(spans_skip_long_gaps_and_keep_short_ones)
{
	uint64_t counts[] = { 1, 0, 0, 2, 0, 0, 0, 5, 0 };
	struct native_counts native = { .first = 100, .nr = 9, .counts = counts };
	struct native_span spans[8];
	int64_t deltas[16];
	unsigned int nr_deltas, nr = native_encode_spans(&native, spans, deltas, &nr_deltas);

	ck_assert_uint_eq(nr, 2);
	ck_assert_int_eq(spans[0].offset, native_slot_index(100));
	ck_assert_uint_eq(spans[0].length, 4);
	ck_assert_int_eq(spans[1].offset, 3);
	ck_assert_uint_eq(spans[1].length, 1);
	ck_assert_uint_eq(nr_deltas, 5);
	ck_assert_int_eq(deltas[0], 1);
	ck_assert_int_eq(deltas[1], -1);
	ck_assert_int_eq(deltas[2], 0);
	ck_assert_int_eq(deltas[3], 2);
	ck_assert_int_eq(deltas[4], 3);
}
END_TEST

START_TEST(accept_headers_pick_the_format)
{
	ck_assert_int_eq(exporter_negotiate(NULL), EXPORTER_TEXT);
	ck_assert_int_eq(exporter_negotiate(""), EXPORTER_TEXT);
	ck_assert_int_eq(exporter_negotiate("*/*"), EXPORTER_TEXT);
	/* Prometheus 2.42 with native histograms enabled */
	ck_assert_int_eq(
		exporter_negotiate(
			"application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;"
			"encoding=delimited;q=0.8,application/openmetrics-text;version=1.0.0;"
			"q=0.6,application/openmetrics-text;version=0.0.1;q=0.5,text/plain;"
			"version=0.0.4;q=0.4,*/*;q=0.1"),
		EXPORTER_PROTOBUF);
	/* and without */
	ck_assert_int_eq(exporter_negotiate("application/openmetrics-text;version=1.0.0,"
					    "application/openmetrics-text;version=0.0.1;q=0.75,"
					    "text/plain;version=0.0.4;q=0.5,*/*;q=0.1"),
			 EXPORTER_OPENMETRICS);
	ck_assert_int_eq(exporter_negotiate("text/plain; version=0.0.4"), EXPORTER_TEXT);
	/* protobuf of another message or a text encoding is not ours */
	ck_assert_int_eq(exporter_negotiate("application/vnd.google.protobuf;proto=other;"
					    "encoding=delimited"),
			 EXPORTER_TEXT);
	ck_assert_int_eq(
		exporter_negotiate("application/vnd.google.protobuf;"
				   "proto=io.prometheus.client.MetricFamily;encoding=text"),
		EXPORTER_TEXT);
	/* q decides, then the order */
	ck_assert_int_eq(exporter_negotiate("text/plain;q=0.9, application/openmetrics-text;q=0.5"),
			 EXPORTER_TEXT);
	ck_assert_int_eq(exporter_negotiate("application/openmetrics-text, text/plain"),
			 EXPORTER_OPENMETRICS);
	ck_assert_int_eq(exporter_negotiate("application/openmetrics-text;q=0"), EXPORTER_TEXT);
	ck_assert_str_eq(exporter_content_type(EXPORTER_OPENMETRICS),
			 "application/openmetrics-text; version=1.0.0; charset=utf-8");
}
END_TEST

START_TEST(labels_stay_valid_utf8)
{
	char out[8];

	metrics_copy_label(out, sizeof(out), "abc\xff\xc3\xa9z");
	ck_assert_str_eq(out, "abc?\xc3\xa9z");
	/* a character that does not fit whole is left out */
	metrics_copy_label(out, 6, "abcd\xc3\xa9");
	ck_assert_str_eq(out, "abcd");
	/* overlong and surrogate forms are not UTF-8 */
	metrics_copy_label(out, sizeof(out), "\xc0\xaf\xed\xa0\x80");
	ck_assert_str_eq(out, "?????");
}
END_TEST

START_TEST(textfile_is_written_whole)
{
	char dir[] = "/tmp/latscope-textfile-XXXXXX", path[256], *text;
	struct metrics *m = sample_metrics();
	size_t size;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	ck_assert_int_eq(exporter_check_textfile_dir(dir), 0);
	ck_assert_int_eq(exporter_write_textfile(m, dir), 0);
	snprintf(path, sizeof(path), "%s/latscope.prom", dir);
	text = read_file(path, &size);
	ck_assert(strstr(text, "latscope_build_info{version=\"0.1.0\"} 1\n") != NULL);
	free(text);
	unlink(path);
	rmdir(dir);
	ck_assert_int_eq(exporter_check_textfile_dir(dir), -ENOENT);
	ck_assert_int_eq(exporter_write_textfile(m, dir), -ENOENT);
	metrics_free(m);
}
END_TEST

START_TEST(classic_slots_are_exact_at_their_bounds)
{
	unsigned int i;

	for (i = 0; i < METRICS_CLASSIC_BOUNDS; i++) {
		uint64_t bound = metrics_classic_bound_ns[i];

		/* le is inclusive: the bound itself is in, one ns more is out */
		ck_assert_uint_eq(metrics_classic_slot_of(bound), i);
		ck_assert_uint_eq(metrics_classic_slot_of(bound + 1), i + 1);
		ck_assert(strtod(metrics_classic_le[i], NULL) == bound / 1e9);
	}
	ck_assert_uint_eq(metrics_classic_slot_of(0), 0);
}
END_TEST

START_TEST(native_slots_match_the_bounds)
{
	unsigned int slot;

	ck_assert_uint_eq(native_slot_of(0), 0);
	ck_assert_uint_eq(native_slot_of(14), 0);
	for (slot = 1; slot < NATIVE_SLOTS; slot++) {
		uint64_t low = native_slot_low(slot), high = native_slot_high[slot];
		/* the bucket's real bounds in ns, from the schema's definition */
		long double upper = 1e9L * exp2l((long double)native_slot_index(slot) / 128);
		long double lower = 1e9L * exp2l((long double)(native_slot_index(slot) - 1) / 128);

		ck_assert((long double)high <= upper && (long double)(high + 1) > upper);
		if (low > high)
			continue; /* no integer ns falls in this bucket */
		ck_assert((long double)low > lower);
		ck_assert_uint_eq(native_slot_of(low), slot);
		ck_assert_uint_eq(native_slot_of(high), slot);
		ck_assert_uint_eq(native_slot_of(low + (high - low) / 2), slot);
	}
	/* above 32 s: the last slot */
	ck_assert_uint_eq(native_slot_of(32000000001ULL), NATIVE_SLOTS - 1);
	ck_assert_uint_eq(native_slot_of(UINT64_MAX), NATIVE_SLOTS - 1);
	/* 1 s and 2^-9 s are exact bounds: the last ns of their buckets */
	ck_assert_int_eq(native_slot_index(native_slot_of(1000000000)), 0);
	ck_assert_int_eq(native_slot_index(native_slot_of(1000000001)), 1);
	ck_assert_int_eq(native_slot_index(native_slot_of(1953125)), -9 * 128);
	ck_assert_int_eq(native_slot_index(native_slot_of(1953126)), -9 * 128 + 1);
	/* a bucket is at most 0.55% wide: the bucket error the issue bounds by 1% */
	for (slot = 2000; slot < NATIVE_SLOTS; slot++)
		ck_assert((native_slot_high[slot] - native_slot_high[slot - 1]) /
				  (double)native_slot_high[slot] <
			  0.0055);
}
END_TEST

START_TEST(native_percentile_reads_the_middle)
{
	uint64_t *counts = calloc(NATIVE_SLOTS, sizeof(uint64_t));
	unsigned int a = native_slot_of(10000), b = native_slot_of(200000);
	uint64_t p;

	counts[a] = 99;
	counts[b] = 1;
	p = native_percentile(counts, 0, NATIVE_SLOTS, 100, 99, 9990, 200100);
	ck_assert_uint_ge(p, native_slot_low(a));
	ck_assert_uint_le(p, native_slot_high[a]);
	p = native_percentile(counts, 0, NATIVE_SLOTS, 100, 99.5, 9990, 200100);
	ck_assert_uint_ge(p, native_slot_low(b));
	ck_assert_uint_le(p, 200100);
	ck_assert_uint_eq(native_percentile(counts, 0, NATIVE_SLOTS, 100, 100, 0, 200100), 200100);
	ck_assert_uint_eq(native_percentile(counts, 0, NATIVE_SLOTS, 0, 99, 0, 0), 0);
	free(counts);
}
END_TEST

START_TEST(listen_addresses_parse)
{
	struct sockaddr_storage addr;
	socklen_t len;

	ck_assert_int_eq(exporter_listen_parse(EXPORTER_DEFAULT_LISTEN, &addr, &len), 0);
	ck_assert(exporter_address_is_loopback(&addr));
	ck_assert_int_eq(ntohs(((struct sockaddr_in *)&addr)->sin_port), 9737);
	ck_assert_int_eq(exporter_listen_parse("[::1]:19001", &addr, &len), 0);
	ck_assert_int_eq(addr.ss_family, AF_INET6);
	ck_assert(exporter_address_is_loopback(&addr));
	ck_assert_int_eq(exporter_listen_parse("127.5.6.7:0", &addr, &len), 0);
	ck_assert(exporter_address_is_loopback(&addr));
	/* every address, only when asked for */
	ck_assert_int_eq(exporter_listen_parse(":9737", &addr, &len), 0);
	ck_assert(!exporter_address_is_loopback(&addr));
	ck_assert_int_eq(exporter_listen_parse("0.0.0.0:9737", &addr, &len), 0);
	ck_assert(!exporter_address_is_loopback(&addr));
	ck_assert_int_eq(exporter_listen_parse("127.0.0.1", &addr, &len), -EINVAL);
	ck_assert_int_eq(exporter_listen_parse("127.0.0.1:65536", &addr, &len), -EINVAL);
	ck_assert_int_eq(exporter_listen_parse("127.0.0.1:-1", &addr, &len), -EINVAL);
	ck_assert_int_eq(exporter_listen_parse("127.0.0.1:9x", &addr, &len), -EINVAL);
	ck_assert_int_eq(exporter_listen_parse("::1:9737", &addr, &len), -EINVAL);
	ck_assert_int_eq(exporter_listen_parse("[::1]9737", &addr, &len), -EINVAL);
	ck_assert_int_eq(exporter_listen_parse("", &addr, &len), -EINVAL);
}
END_TEST

int main(void)
{
	Suite *suite = suite_create("exporter");
	TCase *text = tcase_create("text"), *proto = tcase_create("protobuf"),
	      *buckets = tcase_create("buckets");

	tcase_set_timeout(text, 30);
	tcase_add_test(text, text_matches_golden);
	tcase_add_test(text, openmetrics_matches_golden);
	tcase_add_test(text, promtool_accepts_the_text);
	tcase_add_test(text, promtool_notices_a_broken_exposition);
	tcase_add_test(text, accept_headers_pick_the_format);
	tcase_add_test(text, labels_stay_valid_utf8);
	tcase_add_test(text, textfile_is_written_whole);
	tcase_add_test(text, listen_addresses_parse);
	tcase_add_test(proto, native_histogram_decodes_back);
	tcase_add_test(proto, a_histogram_without_samples_is_still_native);
	tcase_add_test(proto, spans_skip_long_gaps_and_keep_short_ones);
	tcase_add_test(buckets, classic_slots_are_exact_at_their_bounds);
	tcase_add_test(buckets, native_slots_match_the_bounds);
	tcase_add_test(buckets, native_percentile_reads_the_middle);
	suite_add_tcase(suite, text);
	suite_add_tcase(suite, proto);
	suite_add_tcase(suite, buckets);
	return unit_run(suite);
}
