// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "import_internal.h"
#include "latscope/input_file.h"
#include "latscope/log.h"

int import_fail(struct import_ctx *ctx, int err, const char *fmt, ...)
{
	va_list ap;

	/* the first reason is the one that matters */
	if (!ctx->error[0]) {
		va_start(ap, fmt);
		vsnprintf(ctx->error, sizeof(ctx->error), fmt, ap);
		va_end(ap);
	}
	return err;
}

int import_note(struct import_ctx *ctx, const char *fmt, ...)
{
	struct run *run = ctx->run;
	char **grown, *line;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&line, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -ENOMEM;
	grown = realloc(run->notes, (run->nr_notes + 1) * sizeof(*grown));
	if (!grown) {
		free(line);
		return -ENOMEM;
	}
	run->notes = grown;
	run->notes[run->nr_notes++] = line;
	return 0;
}

char *import_strdup(const char *text, bool *failed)
{
	char *copy;

	if (!text)
		return NULL;
	copy = strdup(text);
	if (!copy)
		*failed = true;
	return copy;
}

struct run *import_new_run(const char *name, enum run_format format, enum run_kind kind)
{
	struct run *run = calloc(1, sizeof(*run));

	if (!run)
		return NULL;
	run->path = strdup(name);
	if (!run->path) {
		free(run);
		return NULL;
	}
	run->format = format;
	run->kind = kind;
	run->start_ns = RUN_NO_TIME;
	run->end_ns = RUN_NO_TIME;
	return run;
}

struct run_series *import_add_series(struct run *run)
{
	struct run_series *grown, *s;

	grown = realloc(run->series, (run->nr_series + 1) * sizeof(*grown));
	if (!grown)
		return NULL;
	run->series = grown;
	s = &run->series[run->nr_series++];
	memset(s, 0, sizeof(*s));
	s->cpu = -1;
	s->thread = -1;
	s->interval_ns = RUN_NONE;
	s->run_ns = RUN_NONE;
	s->count = RUN_NONE;
	s->min_ns = RUN_NONE;
	s->max_ns = RUN_NONE;
	s->avg_ns = NAN;
	s->histogram.overflow_from_ns = RUN_NONE;
	s->threshold_ns = RUN_NONE;
	s->events_above = RUN_NONE;
	s->lost_ns = RUN_NONE;
	s->missed = RUN_NONE;
	s->explained_ns = RUN_NONE;
	s->block_ns = RUN_NONE;
	s->window_ns = RUN_NONE;
	return s;
}

static int64_t epoch_ns(struct tm *tm, long long offset_s, long long nanos)
{
	time_t t;

	/* ns since 1970 in an int64 reach to 2262: a year beyond is no result's */
	if (tm->tm_year < 70 || tm->tm_year > 2200 - 1900)
		return RUN_NO_TIME;
	t = timegm(tm);
	if (t == (time_t)-1)
		return RUN_NO_TIME;
	return ((int64_t)t - offset_s) * 1000000000LL + nanos;
}

int64_t import_iso_time(const char *text)
{
	int year, month, day, hour, minute, second, consumed = 0;
	long long nanos = 0, offset = 0, scale = 100000000;
	const char *p;
	struct tm tm = { 0 };

	if (!text ||
	    sscanf(text, "%4d-%2d-%2dT%2d:%2d:%2d%n", &year, &month, &day, &hour, &minute, &second,
		   &consumed) != 6 ||
	    !consumed)
		return RUN_NO_TIME;
	p = text + consumed;
	if (*p == '.' || *p == ',') {
		for (p++; *p >= '0' && *p <= '9'; p++) {
			nanos += (*p - '0') * scale;
			scale /= 10;
		}
	}
	if (*p == '+' || *p == '-') {
		int oh, om;

		if (sscanf(p + 1, "%2d:%2d", &oh, &om) != 2 &&
		    sscanf(p + 1, "%2d%2d", &oh, &om) != 2)
			return RUN_NO_TIME;
		offset = (oh * 3600LL + om * 60LL) * (*p == '-' ? -1 : 1);
	} else if (*p != 'Z' && *p != '\0') {
		return RUN_NO_TIME;
	}
	if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 ||
	    second > 60)
		return RUN_NO_TIME;
	tm.tm_year = year - 1900;
	tm.tm_mon = month - 1;
	tm.tm_mday = day;
	tm.tm_hour = hour;
	tm.tm_min = minute;
	tm.tm_sec = second;
	return epoch_ns(&tm, offset, nanos);
}

int64_t import_rfc2822_time(const char *text)
{
	static const char months[] = "JanFebMarAprMayJunJulAugSepOctNovDec";
	int day, year, hour, minute, second, zone = 0;
	char month[4], sign = '+';
	const char *found;
	struct tm tm = { 0 };
	long long offset;

	if (!text)
		return RUN_NO_TIME;
	/* the weekday is optional in RFC 2822 */
	if (strchr(text, ','))
		text = strchr(text, ',') + 1;
	if (sscanf(text, " %d %3s %d %d:%d:%d %c%4d", &day, month, &year, &hour, &minute, &second,
		   &sign, &zone) < 6)
		return RUN_NO_TIME;
	found = strlen(month) == 3 ? strstr(months, month) : NULL;
	if (!found || (found - months) % 3 || day < 1 || day > 31 || hour > 23 || minute > 59 ||
	    second > 60)
		return RUN_NO_TIME;
	tm.tm_year = year - 1900;
	tm.tm_mon = (int)(found - months) / 3;
	tm.tm_mday = day;
	tm.tm_hour = hour;
	tm.tm_min = minute;
	tm.tm_sec = second;
	offset = (zone / 100) * 3600LL + (zone % 100) * 60LL;
	if (sign == '-')
		offset = -offset;
	return epoch_ns(&tm, offset, 0);
}

uint64_t import_whole(double real)
{
	if (!isfinite(real) || real < 0 || real >= 0x1p63)
		return RUN_NONE;
	return (uint64_t)llround(real);
}

bool import_decimal(const char *text, double *value)
{
	double whole = 0, scale = 1, fraction = 0;
	bool digits = false, negative = false;
	const char *p = text;

	if (*p == '-') {
		negative = true;
		p++;
	}
	for (; *p >= '0' && *p <= '9'; p++) {
		whole = whole * 10 + (*p - '0');
		digits = true;
	}
	if (*p == '.')
		for (p++; *p >= '0' && *p <= '9'; p++) {
			scale /= 10;
			fraction += (*p - '0') * scale;
			digits = true;
		}
	if (!digits || *p)
		return false;
	*value = negative ? -(whole + fraction) : whole + fraction;
	return true;
}

static int compare_events(const void *a, const void *b)
{
	const struct run_event *x = a, *y = b;

	if (x->t_ns != y->t_ns)
		return x->t_ns < y->t_ns ? -1 : 1;
	return x->ns < y->ns ? -1 : x->ns > y->ns;
}

static int compare_causes(const void *a, const void *b)
{
	const struct run_cause *x = a, *y = b;

	if (x->total_ns != y->total_ns)
		return x->total_ns > y->total_ns ? -1 : 1;
	return 0;
}

static int compare_parts(const void *a, const void *b)
{
	const struct run_part *x = a, *y = b;

	return x->ns > y->ns ? -1 : x->ns < y->ns;
}

void import_finish_series(struct run_series *s)
{
	size_t i, kept;
	unsigned int j;
	bool sorted = true;

	for (i = 1; i < s->nr_events && sorted; i++)
		sorted = compare_events(&s->events[i - 1], &s->events[i]) <= 0;
	if (!sorted)
		qsort(s->events, s->nr_events, sizeof(*s->events), compare_events);
	/* an event listed twice (a timer's top spikes are also in its records) */
	for (i = 1, kept = s->nr_events ? 1 : 0; i < s->nr_events; i++)
		if (compare_events(&s->events[kept - 1], &s->events[i]))
			s->events[kept++] = s->events[i];
	s->nr_events = kept;
	if (s->nr_causes)
		qsort(s->causes, s->nr_causes, sizeof(*s->causes), compare_causes);
	for (j = 0; j < s->nr_worst; j++)
		if (s->worst[j].nr_split)
			qsort(s->worst[j].split, s->worst[j].nr_split, sizeof(*s->worst[j].split),
			      compare_parts);
}

static const char expected_formats[] =
	"expected latscope JSON (\"schema\": \"latscope/1\" to \"latscope/3\"), cyclictest or "
	"oslat --json (rt-tests 2.x, \"file_version\": 1), or the text of cyclictest -h N";

static int detect_json(struct import_ctx *ctx, struct jsondoc *doc)
{
	json_t *root = jsondoc_root(doc), *version;

	if (!json_is_object(root))
		return import_fail(ctx, -EINVAL, "a JSON %s, not a result: %s",
				   json_is_array(root) ? "array" : "value", expected_formats);
	if (json_object_get(root, "schema"))
		return import_latscope(ctx, doc);
	version = json_object_get(root, "file_version");
	if (version && json_is_object(json_object_get(root, "thread"))) {
		json_t *threads = json_object_get(root, "thread"), *first;
		const char *cmdline = json_string_value(json_object_get(root, "cmdline:"));
		const char *key;

		if (!json_is_integer(version) || json_integer_value(version) != 1)
			return import_fail(
				ctx, -EINVAL,
				"rt-tests result of file_version %s; this latscope reads "
				"file_version 1 (rt-tests 2.x)",
				json_is_integer(version) ? "other than 1" : "not a number");
		first = NULL;
		json_object_foreach(threads, key, first) break;
		(void)key;
		if ((first && json_object_get(first, "freq")) ||
		    (cmdline && strstr(cmdline, "oslat")))
			return import_oslat_json(ctx, doc);
		return import_cyclictest_json(ctx, doc);
	}
	return import_fail(ctx, -EINVAL, "a JSON document of no known kind: %s", expected_formats);
}

int import_buffer(const char *name, const char *text, size_t len, struct run **out)
{
	struct import_ctx ctx = { .name = name };
	struct jsondoc *doc;
	size_t start = 0;
	int ret;

	*out = NULL;
	/* a byte-order mark and leading white space say nothing of the format */
	if (len >= 3 && !memcmp(text, "\xef\xbb\xbf", 3))
		start = 3;
	while (start < len && (text[start] == ' ' || text[start] == '\n' || text[start] == '\t' ||
			       text[start] == '\r'))
		start++;
	if (start == len) {
		log_error("%s: empty file: %s", name, expected_formats);
		return -EINVAL;
	}
	if (text[start] == '{' || text[start] == '[') {
		char why[256];

		doc = jsondoc_parse(text + start, len - start, why, sizeof(why));
		if (!doc) {
			log_error("%s: not valid JSON (%s)", name, why);
			return -EINVAL;
		}
		ret = detect_json(&ctx, doc);
		if (ret) {
			jsondoc_free(doc);
		} else if (!ctx.run->doc) {
			/* importers that keep nothing of the tree */
			jsondoc_free(doc);
		}
	} else if (import_is_cyclictest_text(text + start, len - start)) {
		ret = import_cyclictest_text(&ctx, text + start, len - start);
	} else {
		ret = import_fail(&ctx, -EINVAL, "not a result file: %s", expected_formats);
	}
	if (ret) {
		run_free(ctx.run);
		log_error("%s: %s", name, ctx.error[0] ? ctx.error : strerror(-ret));
		return ret;
	}
	*out = ctx.run;
	return 0;
}

static int read_bounded(const char *path, char **text, size_t *len, struct stat *st)
{
	size_t have = 0, cap;
	char *buf;
	int fd, ret = 0;

	fd = input_file_open(path, IMPORT_MAX_BYTES, st);
	if (fd < 0)
		return fd;
	cap = (size_t)st->st_size + 1;
	buf = malloc(cap);
	if (!buf) {
		ret = -ENOMEM;
		goto out;
	}
	for (;;) {
		ssize_t n;

		if (have + 1 >= cap) {
			/* the file grew while read: take more, within the bound */
			char *grown;

			if (cap > IMPORT_MAX_BYTES) {
				free(buf);
				ret = -EFBIG;
				goto out;
			}
			grown = realloc(buf, cap * 2);
			if (!grown) {
				free(buf);
				ret = -ENOMEM;
				goto out;
			}
			buf = grown;
			cap *= 2;
		}
		n = read(fd, buf + have, cap - have - 1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			ret = -errno;
			free(buf);
			goto out;
		}
		if (!n)
			break;
		have += (size_t)n;
	}
	buf[have] = '\0';
	*text = buf;
	*len = have;
out:
	close(fd);
	return ret;
}

int import_file(const char *path, struct run **run)
{
	char *text = NULL, why[128];
	struct stat st;
	size_t len = 0;
	int ret;

	*run = NULL;
	ret = read_bounded(path, &text, &len, &st);
	if (ret) {
		log_error("%s: %s%s", path,
			  input_file_describe(ret, &st, IMPORT_MAX_BYTES, why, sizeof(why)),
			  ret == -EFBIG ? ", more than any result" : "");
		return ret;
	}
	ret = import_buffer(path, text, len, run);
	free(text);
	return ret;
}
