// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "latscope/atomic_file.h"
#include "latscope/exporter.h"
#include "latscope/log.h"
#include "exporter_families.h"

const struct family exporter_families[FAMILY_COUNT] = {
	[FAMILY_LATENCY] = { "latscope_timer_latency_seconds", FAMILY_HISTOGRAM, "seconds",
			     "Timer wake-up latency: from the programmed expiry to the thread "
			     "running again" },
	[FAMILY_WINDOW_MAX] = { "latscope_timer_latency_window_max_seconds", FAMILY_GAUGE,
				"seconds", "The largest latency of the last closed window" },
	[FAMILY_MAX] = { "latscope_timer_latency_max_seconds", FAMILY_GAUGE, "seconds",
			 "The largest latency since the state began" },
	[FAMILY_MISSED] = { "latscope_timer_missed_periods_total", FAMILY_COUNTER, NULL,
			    "Periods skipped because a wake-up came after the next expiry" },
	[FAMILY_SPIKES] = { "latscope_spikes_total", FAMILY_COUNTER, NULL,
			    "Spikes explained, each counted once under the cause that took its "
			    "largest part" },
	[FAMILY_SPIKE_SECONDS] = { "latscope_spike_seconds_total", FAMILY_COUNTER, "seconds",
				   "Time each cause took in the explained spikes" },
	[FAMILY_LOST] = { "latscope_trace_lost_events_total", FAMILY_COUNTER, NULL,
			  "Trace events the kernel's ring buffer dropped: spikes near them are "
			  "explained in part" },
	[FAMILY_INTERRUPTS] = { "latscope_rt_cpu_interrupts_total", FAMILY_COUNTER, NULL,
				"Interrupts that arrived on the measured CPUs since boot, from "
				"/proc/interrupts" },
	[FAMILY_CHECK_FAILED] = { "latscope_check_failed", FAMILY_GAUGE, NULL,
				  "1 for each real-time audit rule that fails on the measured CPUs "
				  "(absent when it passes)" },
	[FAMILY_BUILD_INFO] = { "latscope_build_info", FAMILY_INFO, NULL,
				"The version of latscope that runs" },
	[FAMILY_START_TIME] = { "latscope_start_time_seconds", FAMILY_GAUGE, "seconds",
				"Unix time the monitor started" },
};

const char *exporter_content_type(enum exporter_format format)
{
	switch (format) {
	case EXPORTER_OPENMETRICS:
		return "application/openmetrics-text; version=1.0.0; charset=utf-8";
	case EXPORTER_PROTOBUF:
		return "application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily; "
		       "encoding=delimited";
	default:
		return "text/plain; version=0.0.4; charset=utf-8";
	}
}

/* Copy one token of @s up to a stop character, spaces trimmed. */
static const char *take_token(const char *s, const char *stops, char *token, size_t size)
{
	size_t n = 0;

	while (*s == ' ' || *s == '\t')
		s++;
	while (*s && !strchr(stops, *s)) {
		if (n + 1 < size)
			token[n++] = *s;
		s++;
	}
	while (n && (token[n - 1] == ' ' || token[n - 1] == '\t'))
		n--;
	token[n] = '\0';
	return s;
}

struct media_range {
	char type[96];
	char proto[96];
	char encoding[32];
	char version[32];
	double q;
};

/* One media range up to the next ',': type, then ;name=value parameters. */
static const char *parse_range(const char *s, struct media_range *r)
{
	char name[32], value[96], *end;

	memset(r, 0, sizeof(*r));
	r->q = 1.0;
	s = take_token(s, ";,", r->type, sizeof(r->type));
	while (*s == ';') {
		s = take_token(s + 1, "=;,", name, sizeof(name));
		value[0] = '\0';
		if (*s == '=')
			s = take_token(s + 1, ";,", value, sizeof(value));
		if (value[0] == '"' && strlen(value) >= 2 && value[strlen(value) - 1] == '"') {
			memmove(value, value + 1, strlen(value) - 2);
			value[strlen(value) - 2] = '\0';
		}
		if (!strcasecmp(name, "q")) {
			r->q = strtod(value, &end);
			if (end == value || *end || r->q < 0 || r->q > 1)
				r->q = 0;
		} else if (!strcasecmp(name, "proto")) {
			snprintf(r->proto, sizeof(r->proto), "%s", value);
		} else if (!strcasecmp(name, "encoding")) {
			snprintf(r->encoding, sizeof(r->encoding), "%s", value);
		} else if (!strcasecmp(name, "version")) {
			snprintf(r->version, sizeof(r->version), "%s", value);
		}
	}
	return *s == ',' ? s + 1 : s;
}

/* The format a range names, or -1 for one this exporter does not speak. */
static int range_format(const struct media_range *r)
{
	if (!strcasecmp(r->type, "application/vnd.google.protobuf"))
		return !strcmp(r->proto, "io.prometheus.client.MetricFamily") &&
				       !strcasecmp(r->encoding, "delimited") ?
			       EXPORTER_PROTOBUF :
			       -1;
	if (!strcasecmp(r->type, "application/openmetrics-text"))
		return !r->version[0] || !strcmp(r->version, "1.0.0") ? EXPORTER_OPENMETRICS : -1;
	if (!strcasecmp(r->type, "text/plain"))
		return !r->version[0] || !strcmp(r->version, "0.0.4") ? EXPORTER_TEXT : -1;
	if (!strcmp(r->type, "*/*") || !strcasecmp(r->type, "text/*"))
		return EXPORTER_TEXT;
	return -1;
}

enum exporter_format exporter_negotiate(const char *accept)
{
	enum exporter_format best = EXPORTER_TEXT;
	double best_q = 0;
	struct media_range r;
	int format;

	if (!accept)
		return EXPORTER_TEXT;
	while (*accept) {
		accept = parse_range(accept, &r);
		format = range_format(&r);
		if (format >= 0 && r.q > best_q) {
			best = (enum exporter_format)format;
			best_q = r.q;
		}
	}
	return best;
}

int exporter_render(const struct metrics *metrics, enum exporter_format format, char **body,
		    size_t *size)
{
	if (format == EXPORTER_PROTOBUF)
		return exporter_render_protobuf(metrics, body, size);
	return exporter_render_text(metrics, format == EXPORTER_OPENMETRICS, body, size);
}

#define TEXTFILE_NAME "latscope.prom"

static int textfile_path(const char *dir, char *path, size_t size)
{
	return snprintf(path, size, "%s/%s", dir, TEXTFILE_NAME) >= (int)size ? -ENAMETOOLONG : 0;
}

int exporter_check_textfile_dir(const char *dir)
{
	char path[4096];
	int ret = textfile_path(dir, path, sizeof(path));

	return ret ? ret : atomic_file_check(path);
}

int exporter_remove_stale_textfile(const char *dir)
{
	char path[4096];
	int ret = textfile_path(dir, path, sizeof(path));

	return ret ? ret : atomic_file_remove_stale(path);
}

int exporter_write_textfile(const struct metrics *metrics, const char *dir)
{
	struct atomic_file file;
	char path[4096], *body;
	size_t size;
	int ret;

	/* the collector reads only *.prom: the temporary name is never read */
	ret = textfile_path(dir, path, sizeof(path));
	if (!ret)
		ret = exporter_render_text(metrics, false, &body, &size);
	if (ret)
		return ret;
	ret = atomic_file_open(&file, path);
	if (!ret) {
		fwrite(body, 1, size, file.stream);
		ret = atomic_file_commit(&file);
	}
	if (ret)
		log_error("cannot write %s: %s", path, strerror(-ret));
	free(body);
	return ret;
}
