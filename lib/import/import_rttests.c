// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The result files of rt-tests 2.x (Debian's rt-tests 2.4) into the result
 * model: cyclictest --json, oslat --json and cyclictest's -h N text.
 *
 * cyclictest counts whole microseconds (nanoseconds with -N): bucket k of
 * its histogram holds latencies of k us, i.e. [k, k + 1) us, and every
 * latency of N us or more (-h N) is an overflow, counted only in the text.
 * oslat's JSON names each bucket by its upper bound: "1" holds [0, 1) us;
 * its last bucket (-b, 32 by default) also holds every larger value. Its
 * min and max are such bounds too (whole us of the value, plus 1): a min
 * of 1 is a value under 1 us.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import_internal.h"

#define NS_PER_US 1000ULL
/* bucket keys and -h limits are us (or ns with -N): beyond an hour, not a latency */
#define PEER_KEY_MAX 3.6e12

/*
 * The value of an option in a command line as the tools record it (one
 * string): "-h 400", "-h400", "--histogram=400", "--histogram 400".
 */
static bool option_value(const char *cmdline, const char *short_name, const char *long_name,
			 double *value)
{
	char word[256], next[256];
	const char *p = cmdline;
	int n;
	size_t long_len = strlen(long_name);

	if (!cmdline)
		return false;
	while (sscanf(p, "%255s%n", word, &n) == 1) {
		const char *text = NULL;

		p += n;
		if (!strcmp(word, short_name) || !strcmp(word, long_name)) {
			if (sscanf(p, "%255s", next) == 1)
				text = next;
		} else if (!strncmp(word, short_name, 2) && word[2] &&
			   isdigit((unsigned char)word[2])) {
			text = word + 2;
		} else if (!strncmp(word, long_name, long_len) && word[long_len] == '=') {
			text = word + long_len + 1;
		}
		if (text && import_decimal(text, value) && *value >= 0)
			return true;
	}
	return false;
}

static uint64_t us_to_ns(double us, uint64_t unit_ns)
{
	return import_whole(us * (double)unit_ns);
}

static double number_of(const json_t *obj, const char *key)
{
	const json_t *v = json_object_get(obj, key);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

static int read_sysinfo(struct import_ctx *ctx, const json_t *root)
{
	const json_t *sys = json_object_get(root, "sysinfo");
	struct run *run = ctx->run;
	const json_t *realtime = json_object_get(sys, "realtime");
	bool failed = false;

	run->tool_version = import_strdup(
		json_string_value(json_object_get(root, "rt_test_version:")), &failed);
	run->command_line =
		import_strdup(json_string_value(json_object_get(root, "cmdline:")), &failed);
	run->start_ns = import_rfc2822_time(json_string_value(json_object_get(root, "start_time")));
	run->end_ns = import_rfc2822_time(json_string_value(json_object_get(root, "end_time")));
	if (json_is_integer(json_object_get(root, "return_code")) &&
	    json_integer_value(json_object_get(root, "return_code")))
		run->stopped = true;
	if (json_is_object(sys)) {
		run->host.nodename =
			import_strdup(json_string_value(json_object_get(sys, "nodename")), &failed);
		run->host.kernel =
			import_strdup(json_string_value(json_object_get(sys, "release")), &failed);
		run->host.kernel_version =
			import_strdup(json_string_value(json_object_get(sys, "version")), &failed);
		run->host.machine =
			import_strdup(json_string_value(json_object_get(sys, "machine")), &failed);
	}
	/* rt-tests says whether /sys/kernel/realtime reads 1 */
	if (json_is_integer(realtime)) {
		run->host.preempt_rt_known = true;
		run->host.preempt_rt = json_integer_value(realtime) == 1;
	}
	return failed ? -ENOMEM : 0;
}

/* the run of an rt-tests JSON result, with what its header says */
static int start_peer_run(struct import_ctx *ctx, const json_t *root, enum run_format format,
			  enum run_kind kind, const char *command)
{
	ctx->run = import_new_run(ctx->name, format, kind);
	if (!ctx->run)
		return -ENOMEM;
	ctx->run->command = strdup(command);
	if (!ctx->run->command)
		return -ENOMEM;
	return read_sysinfo(ctx, root);
}

/* the "thread" object: "0", "1", ... in order; each checked to be an object */
static int peer_threads(struct import_ctx *ctx, const json_t *threads, const char *tool,
			unsigned int *n)
{
	unsigned int i;
	char key[16];

	*n = (unsigned int)json_object_size(threads);
	if (!*n)
		return import_fail(ctx, -EINVAL, "no thread in this %s result", tool);
	for (i = 0; i < *n; i++) {
		snprintf(key, sizeof(key), "%u", i);
		if (!json_is_object(json_object_get(threads, key)))
			return import_fail(ctx, -EINVAL, "%s threads are not numbered 0 to %u",
					   tool, *n - 1);
	}
	return 0;
}

struct peer_bucket {
	double key; /* as written: a bucket index (cyclictest) or upper bound (oslat) */
	uint64_t count;
};

static int compare_peer_buckets(const void *a, const void *b)
{
	const struct peer_bucket *x = a, *y = b;

	return x->key < y->key ? -1 : x->key > y->key;
}

/* the "histogram" object of a thread, sorted by key */
static int read_peer_buckets(struct import_ctx *ctx, const json_t *hist, const char *who,
			     struct peer_bucket **out, size_t *nr)
{
	size_t n = json_object_size(hist), i = 0, k;
	struct peer_bucket *b;
	const char *key;
	json_t *v;

	*out = NULL;
	*nr = 0;
	if (!n)
		return 0;
	b = calloc(n, sizeof(*b));
	if (!b)
		return -ENOMEM;
	json_object_foreach((json_t *)hist, key, v)
	{
		if (!import_decimal(key, &b[i].key) || b[i].key < 0 || b[i].key > PEER_KEY_MAX ||
		    !json_is_integer(v) || json_integer_value(v) < 0) {
			free(b);
			return import_fail(ctx, -EINVAL,
					   "%s: histogram entry \"%s\" is not a "
					   "bucket and count",
					   who, key);
		}
		b[i++].count = (uint64_t)json_integer_value(v);
	}
	if (i)
		qsort(b, i, sizeof(*b), compare_peer_buckets);
	/* "62" and "062" are one bucket: twice, its counts would overlap */
	for (k = 1; k < i; k++) {
		if (b[k].key == b[k - 1].key) {
			double twice = b[k].key;

			free(b);
			return import_fail(ctx, -EINVAL, "%s: histogram bucket %g is given twice",
					   who, twice);
		}
	}
	*out = b;
	*nr = i;
	return 0;
}

static const json_t *thread_entry(const json_t *threads, unsigned int i)
{
	char key[16];

	snprintf(key, sizeof(key), "%u", i);
	return json_object_get(threads, key);
}

/*
 * A series for thread @index of an rt-tests result, with its CPU (absent
 * when the thread was not pinned) and a label: "thread 0 (cpu 1)" for
 * cyclictest, "cpu 1" for oslat, which runs one thread per CPU.
 */
static struct run_series *peer_series(struct import_ctx *ctx, const json_t *t, unsigned int index,
				      enum run_measure measure)
{
	struct run_series *s = import_add_series(ctx->run);
	const json_t *cpu = json_object_get(t, "cpu");
	char label[64];
	bool failed = false;

	if (!s)
		return NULL;
	s->measure = measure;
	s->thread = (int)index;
	if (json_is_integer(cpu) && json_integer_value(cpu) >= 0 &&
	    json_integer_value(cpu) < CPUSET_MAX_CPUS)
		s->cpu = (int)json_integer_value(cpu);
	if (s->cpu >= 0 && measure == RUN_MEASURE_NOISE)
		snprintf(label, sizeof(label), "cpu %d", s->cpu);
	else if (s->cpu >= 0)
		snprintf(label, sizeof(label), "thread %u (cpu %d)", index, s->cpu);
	else
		snprintf(label, sizeof(label), "thread %u", index);
	s->label = import_strdup(label, &failed);
	return failed ? NULL : s;
}

static int read_cyclictest_thread(struct import_ctx *ctx, const json_t *t, unsigned int index,
				  uint64_t unit_ns, double limit, bool limit_known)
{
	struct run_series *s = peer_series(ctx, t, index, RUN_MEASURE_TIMER);
	struct run_histogram *h;
	struct peer_bucket *b;
	size_t nr, i;
	uint64_t in_range = 0;
	const char *label;
	double max;
	int ret;

	if (!s)
		return -ENOMEM;
	label = s->label;
	if (json_is_integer(json_object_get(t, "cycles")) &&
	    json_integer_value(json_object_get(t, "cycles")) >= 0)
		s->count = (uint64_t)json_integer_value(json_object_get(t, "cycles"));
	s->min_ns = us_to_ns(number_of(t, "min"), unit_ns);
	max = number_of(t, "max");
	s->max_ns = us_to_ns(max, unit_ns);
	s->avg_ns = number_of(t, "avg") * (double)unit_ns;
	if (run_has(s->count) && !s->count)
		s->min_ns = s->max_ns = RUN_NONE, s->avg_ns = NAN;

	if (!json_is_object(json_object_get(t, "histogram"))) {
		import_note(ctx, "%s: no histogram (cyclictest ran without -h)", label);
		return 0;
	}
	ret = read_peer_buckets(ctx, json_object_get(t, "histogram"), label, &b, &nr);
	if (ret)
		return ret;
	h = &s->histogram;
	h->buckets = calloc(nr ? nr : 1, sizeof(*h->buckets));
	if (!h->buckets) {
		free(b);
		return -ENOMEM;
	}
	for (i = 0; i < nr; i++) {
		if (b[i].key != floor(b[i].key)) {
			ret = import_fail(ctx, -EINVAL,
					  "%s: histogram bucket %g is not a whole number", label,
					  b[i].key);
			free(b);
			return ret;
		}
		if (!b[i].count)
			continue;
		h->buckets[h->nr_buckets].low_ns = (uint64_t)b[i].key * unit_ns;
		h->buckets[h->nr_buckets].high_ns = (uint64_t)b[i].key * unit_ns + unit_ns - 1;
		h->buckets[h->nr_buckets].count = b[i].count;
		h->nr_buckets++;
		in_range += b[i].count;
	}
	/* cyclictest --json has no overflow count: the cycles not in a bucket */
	if (run_has(s->count) && s->count >= in_range)
		h->overflow = s->count - in_range;
	h->overflow_from_ns = limit_known ? (uint64_t)limit * unit_ns :
			      nr	  ? ((uint64_t)b[nr - 1].key + 1) * unit_ns :
					    RUN_NONE;
	h->total = in_range + h->overflow;
	h->present = true;
	/*
	 * A histogram that contradicts the thread's own numbers (more samples
	 * than cycles, or cycles missing although the max lies within the
	 * range) cannot be drawn: counting the missing cycles as overflow would
	 * invent latencies above the max. Use none and say so.
	 */
	if ((run_has(s->count) && in_range > s->count) ||
	    (h->overflow && isfinite(max) && run_has(h->overflow_from_ns) &&
	     max * (double)unit_ns < (double)h->overflow_from_ns)) {
		import_note(ctx,
			    "%s: cyclictest's histogram holds %llu of %llu cycles and its max "
			    "(%g us) lies within the histogram: they disagree, the histogram "
			    "is not used",
			    label, (unsigned long long)in_range,
			    (unsigned long long)(run_has(s->count) ? s->count : 0), max);
		free(h->buckets);
		memset(h, 0, sizeof(*h));
		h->overflow_from_ns = RUN_NONE;
	}
	free(b);
	return 0;
}

int import_cyclictest_json(struct import_ctx *ctx, struct jsondoc *doc)
{
	const json_t *root = jsondoc_root(doc), *threads = json_object_get(root, "thread");
	const json_t *resolution = json_object_get(root, "resolution_in_ns");
	uint64_t unit_ns = NS_PER_US;
	unsigned int i, n;
	double limit;
	bool limit_known;
	int ret;

	ret = start_peer_run(ctx, root, RUN_FORMAT_CYCLICTEST_JSON, RUN_CYCLICTEST, "cyclictest");
	if (ret)
		return ret;
	/* -N: every number, bucket keys included, is in ns */
	if (json_is_integer(resolution) && json_integer_value(resolution) == 1)
		unit_ns = 1;
	limit_known = option_value(ctx->run->command_line, "-h", "--histogram", &limit) ||
		      option_value(ctx->run->command_line, "-H", "--histofall", &limit);
	if (limit_known && limit > PEER_KEY_MAX) {
		import_note(ctx,
			    "cyclictest's histogram limit (-h %g) is beyond an hour: where "
			    "its overflow begins is taken from the buckets",
			    limit);
		limit_known = false;
	}
	ret = peer_threads(ctx, threads, "cyclictest", &n);
	for (i = 0; i < n && !ret; i++)
		ret = read_cyclictest_thread(ctx, thread_entry(threads, i), i, unit_ns, limit,
					     limit_known);
	return ret;
}

static int read_oslat_thread(struct import_ctx *ctx, const json_t *t, unsigned int index,
			     double width_us, double last_bucket)
{
	struct run_series *s = peer_series(ctx, t, index, RUN_MEASURE_NOISE);
	struct run_histogram *h;
	struct peer_bucket *b;
	size_t nr, i;
	const char *label;
	int ret;

	if (!s)
		return -ENOMEM;
	label = s->label;
	/* bounds, not values: the min from the lowest it may be, the max the highest */
	s->min_ns = us_to_ns(number_of(t, "min") - 1, NS_PER_US);
	s->max_ns = us_to_ns(number_of(t, "max"), NS_PER_US);
	if (run_has(s->max_ns) && s->max_ns)
		s->max_ns--;
	s->avg_ns = number_of(t, "avg") * (double)NS_PER_US;
	s->run_ns = import_whole(number_of(t, "duration") * 1e9);

	ret = read_peer_buckets(ctx, json_object_get(t, "histogram"), label, &b, &nr);
	if (ret)
		return ret;
	h = &s->histogram;
	h->buckets = calloc(nr ? nr : 1, sizeof(*h->buckets));
	if (!h->buckets) {
		free(b);
		return -ENOMEM;
	}
	h->present = true;
	for (i = 0; i < nr; i++) {
		double low = b[i].key - width_us;

		/* oslat names a bucket by its upper bound: never 0 */
		if (b[i].key <= 0) {
			free(b);
			return import_fail(ctx, -EINVAL, "%s: histogram bucket 0 is not oslat's",
					   label);
		}

		if (low < 0)
			low = 0;
		if (!b[i].count)
			continue;
		h->total += b[i].count;
		/* the last bucket takes every larger value too: an overflow from its low bound */
		if (fabs(b[i].key - last_bucket) < width_us / 2) {
			h->overflow += b[i].count;
			h->overflow_from_ns = us_to_ns(low, NS_PER_US);
			continue;
		}
		h->buckets[h->nr_buckets].low_ns = us_to_ns(low, NS_PER_US);
		h->buckets[h->nr_buckets].high_ns = us_to_ns(b[i].key, NS_PER_US) - 1;
		h->buckets[h->nr_buckets].count = b[i].count;
		if (h->nr_buckets &&
		    h->buckets[h->nr_buckets].low_ns <= h->buckets[h->nr_buckets - 1].high_ns) {
			free(b);
			return import_fail(ctx, -EINVAL,
					   "%s: histogram buckets overlap (bucket width other "
					   "than the command line says?)",
					   label);
		}
		h->nr_buckets++;
	}
	/* oslat counts every loop in its histogram */
	s->count = h->total;
	if (!h->total)
		s->min_ns = s->max_ns = RUN_NONE, s->avg_ns = NAN;
	free(b);
	return 0;
}

int import_oslat_json(struct import_ctx *ctx, struct jsondoc *doc)
{
	const json_t *root = jsondoc_root(doc), *threads = json_object_get(root, "thread");
	double buckets = 32, width_ns = 1000, bias;
	unsigned int i, n;
	int ret;

	ret = start_peer_run(ctx, root, RUN_FORMAT_OSLAT_JSON, RUN_OSLAT, "oslat");
	if (ret)
		return ret;
	option_value(ctx->run->command_line, "-b", "--bucket-size", &buckets);
	option_value(ctx->run->command_line, "-W", "--bucket-width", &width_ns);
	if (width_ns < 1)
		width_ns = 1000;
	if (option_value(ctx->run->command_line, "-B", "--bias", &bias) ||
	    (ctx->run->command_line && strstr(ctx->run->command_line, " -B")))
		import_note(ctx, "oslat ran with a bias (-B): bucket bounds include it");
	ret = peer_threads(ctx, threads, "oslat", &n);
	for (i = 0; i < n && !ret; i++)
		ret = read_oslat_thread(ctx, thread_entry(threads, i), i, width_ns / 1000.0,
					buckets * width_ns / 1000.0);
	return ret;
}

/* cyclictest -h text ------------------------------------------------------ */

/* one "# Name: v1 v2 ..." summary line of the text */
struct summary_line {
	uint64_t values[1024];
	unsigned int n;
	bool seen;
};

static const char *line_end(const char *p, const char *end)
{
	const char *nl = memchr(p, '\n', (size_t)(end - p));

	return nl ? nl : end;
}

static bool starts_with(const char *p, const char *end, const char *prefix)
{
	size_t n = strlen(prefix);

	return (size_t)(end - p) >= n && !memcmp(p, prefix, n);
}

bool import_is_cyclictest_text(const char *text, size_t len)
{
	const char *p = text, *end = text + len;

	/* the summary lines only cyclictest -h writes */
	while (p < end) {
		const char *eol = line_end(p, end);

		if (starts_with(p, eol, "# Max Latencies:") ||
		    starts_with(p, eol, "# Histogram Overflows:"))
			return true;
		p = eol + 1;
	}
	return false;
}

/* the numbers of a line, at most @max; false when something else is there */
static bool line_numbers(const char *p, const char *eol, uint64_t *values, unsigned int max,
			 unsigned int *n)
{
	*n = 0;
	while (p < eol) {
		uint64_t v = 0;
		bool digits = false;

		while (p < eol && (*p == ' ' || *p == '\t' || *p == '\r'))
			p++;
		if (p == eol)
			break;
		if (*p == '#')
			break; /* "# 00029 others" closes a "# Thread" line */
		while (p < eol && *p >= '0' && *p <= '9') {
			if (v > (UINT64_MAX - 9) / 10)
				return false;
			v = v * 10 + (uint64_t)(*p - '0');
			p++;
			digits = true;
		}
		if (!digits || *n == max)
			return false;
		values[(*n)++] = v;
	}
	return true;
}

static bool read_summary(const char *p, const char *eol, const char *name,
			 struct summary_line *line)
{
	if (!starts_with(p, eol, name))
		return false;
	line->seen = line_numbers(p + strlen(name), eol, line->values, 1024, &line->n);
	return true;
}

struct text_parse {
	struct summary_line total, min, avg, max, overflows;
	unsigned int thread_lines; /* "# Thread N:" lines seen */
	uint64_t *rows; /* bucket, count per column, row after row */
	size_t nr_rows;
	size_t cap_rows;
	unsigned int columns; /* counts per row */
	uint64_t intervals[1024]; /* "T: n ... I:interval" or "Thread n Interval: i" in us */
};

static int add_row(struct text_parse *t, const uint64_t *values, unsigned int n)
{
	if (t->nr_rows == t->cap_rows) {
		size_t cap = t->cap_rows ? t->cap_rows * 2 : 512;
		uint64_t *grown = realloc(t->rows, cap * (t->columns + 1) * sizeof(*grown));

		if (!grown)
			return -ENOMEM;
		t->rows = grown;
		t->cap_rows = cap;
	}
	memcpy(t->rows + t->nr_rows * (t->columns + 1), values, n * sizeof(*values));
	t->nr_rows++;
	return 0;
}

static int parse_text_lines(struct import_ctx *ctx, const char *text, size_t len,
			    struct text_parse *t)
{
	const char *p = text, *end = text + len;
	uint64_t values[1025];
	unsigned int n, line_no = 0;
	int ret;

	while (p < end) {
		const char *eol = line_end(p, end);

		line_no++;
		if (*p == '#') {
			if (!read_summary(p, eol, "# Total:", &t->total) &&
			    !read_summary(p, eol, "# Min Latencies:", &t->min) &&
			    !read_summary(p, eol, "# Avg Latencies:", &t->avg) &&
			    !read_summary(p, eol, "# Max Latencies:", &t->max) &&
			    !read_summary(p, eol, "# Histogram Overflows:", &t->overflows) &&
			    starts_with(p, eol, "# Thread "))
				t->thread_lines++;
		} else if (*p >= '0' && *p <= '9' && line_numbers(p, eol, values, 1025, &n) &&
			   n >= 2 && memchr(p, ':', (size_t)(eol - p)) == NULL) {
			if (!t->columns)
				t->columns = n - 1;
			if (n - 1 != t->columns)
				return import_fail(ctx, -EINVAL,
						   "line %u: %u counts where earlier lines have %u",
						   line_no, n - 1, t->columns);
			ret = add_row(t, values, n);
			if (ret)
				return ret;
		} else {
			size_t length = (size_t)(eol - p);
			unsigned int thread, interval;
			char line[128];

			/* the line alone: the text need not end in a NUL, nor sscanf() stop at it */
			snprintf(line, sizeof(line), "%.*s",
				 (int)(length < sizeof(line) ? length : sizeof(line) - 1), p);
			/* "Thread 0 Interval: 1000" (with -v) and "T: 0 (...) P:80 I:1000 ..." */
			if (sscanf(line, "Thread %u Interval: %u", &thread, &interval) == 2 &&
			    thread < 1024)
				t->intervals[thread] = interval;
			else if (sscanf(line, "T:%u (%*u) P:%*d I:%u", &thread, &interval) == 2 &&
				 thread < 1024)
				t->intervals[thread] = interval;
		}
		p = eol + 1;
	}
	return 0;
}

static int build_text_series(struct import_ctx *ctx, struct text_parse *t, unsigned int threads)
{
	unsigned int i;
	size_t r;
	uint64_t limit = t->nr_rows ? t->rows[(t->nr_rows - 1) * (t->columns + 1)] + 1 : 0;

	for (i = 0; i < threads; i++) {
		struct run_series *s = import_add_series(ctx->run);
		struct run_histogram *h;
		char label[32];
		bool failed = false;

		if (!s)
			return -ENOMEM;
		s->measure = RUN_MEASURE_TIMER;
		s->thread = (int)i;
		snprintf(label, sizeof(label), "thread %u", i);
		s->label = import_strdup(label, &failed);
		if (failed)
			return -ENOMEM;
		if (t->intervals[i])
			s->interval_ns = t->intervals[i] * NS_PER_US;
		if (t->min.seen && i < t->min.n)
			s->min_ns = t->min.values[i] * NS_PER_US;
		if (t->max.seen && i < t->max.n)
			s->max_ns = t->max.values[i] * NS_PER_US;
		if (t->avg.seen && i < t->avg.n)
			s->avg_ns = (double)(t->avg.values[i] * NS_PER_US);
		h = &s->histogram;
		h->buckets = calloc(t->nr_rows ? t->nr_rows : 1, sizeof(*h->buckets));
		if (!h->buckets)
			return -ENOMEM;
		for (r = 0; r < t->nr_rows; r++) {
			const uint64_t *row = t->rows + r * (t->columns + 1);

			if (r && row[0] <= t->rows[(r - 1) * (t->columns + 1)])
				return import_fail(ctx, -EINVAL,
						   "histogram lines are not in ascending order");
			if (!row[1 + i])
				continue;
			h->buckets[h->nr_buckets].low_ns = row[0] * NS_PER_US;
			h->buckets[h->nr_buckets].high_ns = row[0] * NS_PER_US + NS_PER_US - 1;
			h->buckets[h->nr_buckets].count = row[1 + i];
			h->total += row[1 + i];
			h->nr_buckets++;
		}
		if (t->overflows.seen && i < t->overflows.n) {
			h->overflow = t->overflows.values[i];
			h->total += h->overflow;
		}
		h->overflow_from_ns = limit ? limit * NS_PER_US : RUN_NONE;
		h->present = t->nr_rows > 0;
		/* "# Total:" counts the samples in range; overflows come on top */
		s->count = h->total;
		if (t->total.seen && i < t->total.n && t->total.values[i] != h->total - h->overflow)
			import_note(ctx,
				    "thread %u: \"# Total\" says %llu samples in range, the "
				    "histogram lines hold %llu",
				    i, (unsigned long long)t->total.values[i],
				    (unsigned long long)(h->total - h->overflow));
		if (!s->count)
			s->min_ns = s->max_ns = RUN_NONE, s->avg_ns = NAN;
	}
	return 0;
}

int import_cyclictest_text(struct import_ctx *ctx, const char *text, size_t len)
{
	struct text_parse *t = calloc(1, sizeof(*t));
	unsigned int threads;
	int ret;

	if (!t)
		return -ENOMEM;
	ctx->run = import_new_run(ctx->name, RUN_FORMAT_CYCLICTEST_TEXT, RUN_CYCLICTEST);
	if (!ctx->run || !(ctx->run->command = strdup("cyclictest"))) {
		free(t);
		return -ENOMEM;
	}
	ret = parse_text_lines(ctx, text, len, t);
	if (ret)
		goto out;
	/*
	 * Threads: the "# Thread N:" lines, else the columns; with -H the last
	 * column (and the last "# Max Latencies" value) is the sum of all threads.
	 */
	threads = t->thread_lines ? t->thread_lines : t->max.n;
	if (!threads || (t->columns && t->columns != threads && t->columns != threads + 1)) {
		ret = import_fail(
			ctx, -EINVAL,
			"cyclictest -h text whose histogram has %u columns for %u threads",
			t->columns, threads);
		goto out;
	}
	if (!t->nr_rows)
		import_note(ctx, "no histogram lines: cyclictest ran without -h, or they were cut");
	ret = build_text_series(ctx, t, threads);
	if (!ret)
		import_note(ctx, "the text has no CPU numbers, host facts or times");
out:
	free(t->rows);
	free(t);
	return ret;
}
