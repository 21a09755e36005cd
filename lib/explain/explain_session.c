// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "latscope/array.h"
#include "latscope/atomic_file.h"
#include "latscope/clock.h"
#include "latscope/explain_session.h"
#include "latscope/log.h"

/*
 * The ring buffer of each traced CPU: 8 MiB holds a second and a half of
 * the busiest case measured (40,000 wake-ups a second on one CPU, about
 * 5 MB/s of events) against a reader that drains every 250 ms. Kernel
 * memory, so the total is capped: past 32 CPUs each gets its share of
 * 256 MiB, never less than 256 KiB (so past 1024 CPUs the total grows
 * again, 256 KiB a CPU). A CPU whose buffer fills loses events; they are
 * counted exactly and the spikes they touch are marked.
 */
#define TRACE_BUFFER_KB 8192
#define TRACE_BUFFERS_TOTAL_KB (256 * 1024)
#define TRACE_BUFFER_MIN_KB 256
#define HISTORY_MAX 65536
#define NO_LANE UINT32_MAX

struct record_list {
	struct trace_record *records;
	unsigned int nr, capacity;
};

/* The raw events around one of the largest spikes. */
struct capture {
	struct explain_window window;
	struct record_list records;
};

struct lane {
	unsigned int cpu;
	struct explain_cpu *engine;
	uint64_t horizon;
	struct record_list waiting; /* read, at or after the horizon */
	struct record_list history; /* the last events fed, for captures */
	unsigned int history_start; /* the older ones before it are dropped */
	unsigned int next_on_cpu; /* the next lane of the same CPU, or NO_LANE */
	struct capture *captures; /* the largest windows, largest first */
	unsigned int nr_captures;
};

struct explain_session {
	struct explain_session_options options;
	struct names *names;
	struct trace_session *trace;
	struct lane *lanes;
	unsigned int nr_lanes;
	unsigned int *first_lane; /* per CPU up to the highest traced: a lane or NO_LANE */
	unsigned int nr_first_lane;
	struct cpuset cpus;
	uint64_t lost;
	uint64_t records_read; /* by every pump */
	uint64_t reader_cpu_ns; /* spent reading and attributing them */
};

static int list_push(struct record_list *list, const struct trace_record *r)
{
	struct trace_record *grown =
		array_grow(list->records, &list->capacity, list->nr + 1, sizeof(*grown));

	if (!grown)
		return -ENOMEM;
	list->records = grown;
	list->records[list->nr++] = *r;
	return 0;
}

static void list_free(struct record_list *list)
{
	free(list->records);
	memset(list, 0, sizeof(*list));
}

size_t explain_session_buffer_kb(unsigned int nr_cpus)
{
	size_t share = nr_cpus ? TRACE_BUFFERS_TOTAL_KB / nr_cpus : TRACE_BUFFER_KB;

	if (share > TRACE_BUFFER_KB)
		return TRACE_BUFFER_KB;
	return share < TRACE_BUFFER_MIN_KB ? TRACE_BUFFER_MIN_KB : share;
}

struct explain_session *explain_session_start(const struct explain_session_options *options)
{
	struct explain_session *s = calloc(1, sizeof(*s));
	struct trace_options trace = { 0 };
	unsigned int i;

	if (!s)
		return NULL;
	s->options = *options;
	s->options.lane_cpu = NULL;
	s->names = names_new();
	s->nr_lanes = options->nr_lanes;
	s->lanes = calloc(s->nr_lanes, sizeof(*s->lanes));
	if (!s->names || !s->lanes)
		goto fail;
	for (i = 0; i < s->nr_lanes; i++)
		if (options->lane_cpu[i] >= s->nr_first_lane)
			s->nr_first_lane = options->lane_cpu[i] + 1;
	s->first_lane = malloc((s->nr_first_lane + 1) * sizeof(*s->first_lane));
	if (!s->first_lane)
		goto fail;
	for (i = 0; i < s->nr_first_lane; i++)
		s->first_lane[i] = NO_LANE;
	/* each CPU's lanes in a chain, so an event finds its lanes at once */
	for (i = s->nr_lanes; i-- > 0;) {
		struct lane *l = &s->lanes[i];

		l->cpu = options->lane_cpu[i];
		l->next_on_cpu = s->first_lane[l->cpu];
		s->first_lane[l->cpu] = i;
	}
	for (i = 0; i < s->nr_lanes; i++) {
		struct lane *l = &s->lanes[i];

		cpuset_add(&s->cpus, l->cpu);
		l->engine = explain_cpu_new(l->cpu, options->mode, s->names, options->worst_kept);
		l->captures = calloc(options->worst_kept + 1, sizeof(struct capture));
		if (!l->engine || !l->captures)
			goto fail;
		/* it reads the trace while measuring: name it when it is in the way */
		explain_cpu_set_tool_pid(l->engine, (int32_t)getpid());
		explain_cpu_set_threaded_softirqs(l->engine, options->threaded_softirqs);
	}
	trace.cpus = s->cpus;
	trace.clock = options->clock;
	trace.tsc = options->tsc;
	trace.buffer_kb = explain_session_buffer_kb(cpuset_count(&s->cpus));
	s->trace = trace_session_create(&trace, s->names);
	if (!s->trace)
		goto fail;
	return s;
fail:
	explain_session_free(s);
	return NULL;
}

static uint64_t window_length(const struct explain_window *w)
{
	return w->end_ns - w->start_ns;
}

static bool capture_wants(const struct capture *capture, uint64_t margin, uint64_t ts)
{
	uint64_t from = capture->window.start_ns > margin ? capture->window.start_ns - margin : 0;

	return ts >= from && ts <= capture->window.end_ns + margin;
}

/*
 * A window among the largest starts a capture: the events of the margin
 * before it come from the history, the rest as they are fed.
 */
static void start_capture(struct explain_session *s, struct lane *c, const struct explain_window *w)
{
	unsigned int kept = s->options.worst_kept, at;
	struct capture *capture;
	size_t i;

	for (at = 0; at < c->nr_captures; at++)
		if (window_length(w) > window_length(&c->captures[at].window))
			break;
	if (at >= kept)
		return;
	if (c->nr_captures == kept)
		list_free(&c->captures[--c->nr_captures].records);
	memmove(&c->captures[at + 1], &c->captures[at], (c->nr_captures - at) * sizeof(*capture));
	c->nr_captures++;
	capture = &c->captures[at];
	memset(capture, 0, sizeof(*capture));
	capture->window = *w;
	for (i = c->history_start; i < c->history.nr; i++)
		if (capture_wants(capture, s->options.capture_margin_ns, c->history.records[i].ts))
			list_push(&capture->records, &c->history.records[i]);
}

int explain_session_add_window(struct explain_session *s, unsigned int lane,
			       const struct explain_window *window)
{
	struct lane *c = lane < s->nr_lanes ? &s->lanes[lane] : NULL;

	if (!c)
		return -EINVAL;
	if (s->options.capture_margin_ns && s->options.worst_kept)
		start_capture(s, c, window);
	return explain_cpu_add_window(c->engine, window);
}

/* Keep the recent events, for captures of windows still to come. */
static void remember(struct explain_session *s, struct lane *c, const struct trace_record *r)
{
	uint64_t margin = s->options.capture_margin_ns;
	uint64_t keep_from = r->ts > 2 * margin ? r->ts - 2 * margin : 0;
	struct record_list *h = &c->history;
	unsigned int i;

	for (i = 0; i < c->nr_captures; i++)
		if (capture_wants(&c->captures[i], margin, r->ts))
			list_push(&c->captures[i].records, r);
	while (c->history_start < h->nr && (h->records[c->history_start].ts < keep_from ||
					    h->nr - c->history_start >= HISTORY_MAX))
		c->history_start++;
	/* move the kept events down only once half the list is dropped: each
	 * event is moved a bounded number of times, not once per event fed */
	if (c->history_start > h->nr / 2) {
		memmove(h->records, h->records + c->history_start,
			(h->nr - c->history_start) * sizeof(*h->records));
		h->nr -= c->history_start;
		c->history_start = 0;
	}
	list_push(h, r);
}

static void feed(struct explain_session *s, struct lane *c, const struct trace_record *r)
{
	explain_cpu_feed(c->engine, r);
	if (s->options.capture_margin_ns && s->options.worst_kept)
		remember(s, c, r);
}

struct drain_context {
	struct explain_session *session;
	int error;
};

/* An event goes to every lane of its CPU. */
static void take_record(const struct trace_record *r, void *context)
{
	struct drain_context *d = context;
	struct explain_session *s = d->session;
	unsigned int i;

	if (r->cpu >= s->nr_first_lane)
		return;
	for (i = s->first_lane[r->cpu]; i != NO_LANE; i = s->lanes[i].next_on_cpu) {
		struct lane *c = &s->lanes[i];

		if (r->ts < c->horizon && !c->waiting.nr)
			feed(d->session, c, r);
		else if (list_push(&c->waiting, r))
			d->error = -ENOMEM;
	}
}

/* Feed the waiting events that are now before the horizon. */
static void release_waiting(struct explain_session *s, struct lane *c)
{
	size_t i;

	for (i = 0; i < c->waiting.nr && c->waiting.records[i].ts < c->horizon; i++)
		feed(s, c, &c->waiting.records[i]);
	if (!i)
		return;
	memmove(c->waiting.records, c->waiting.records + i,
		(c->waiting.nr - i) * sizeof(*c->waiting.records));
	c->waiting.nr -= i;
}

int explain_session_pump(struct explain_session *s, const uint64_t *horizon_ns)
{
	struct drain_context context = { .session = s };
	uint64_t started = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	unsigned int i;
	long n = 0;

	for (i = 0; i < s->nr_lanes; i++) {
		s->lanes[i].horizon = horizon_ns[i];
		release_waiting(s, &s->lanes[i]);
	}
	if (s->trace)
		n = trace_session_drain(s->trace, take_record, &context);
	if (n > 0)
		s->records_read += (uint64_t)n;
	/* exact while it runs too: the monitor exports the count */
	for (i = 0; s->trace && i < s->nr_lanes; i++)
		explain_cpu_count_lost(s->lanes[i].engine,
				       trace_session_lost_on(s->trace, s->lanes[i].cpu));
	s->reader_cpu_ns += clock_ns(CLOCK_THREAD_CPUTIME_ID) - started;
	if (n < 0)
		return (int)n;
	return context.error;
}

void explain_session_stop_tracing(struct explain_session *s)
{
	unsigned int i;

	if (!s->trace)
		return;
	/* the kernel's counts, read before its instance goes */
	for (i = 0; i < s->nr_lanes; i++)
		explain_cpu_count_lost(s->lanes[i].engine,
				       trace_session_lost_on(s->trace, s->lanes[i].cpu));
	s->lost = trace_session_lost(s->trace);
	trace_session_destroy(s->trace);
	s->trace = NULL;
}

int explain_session_finish(struct explain_session *s, uint64_t end_ns, uint64_t run_ns)
{
	uint64_t *everything = malloc((s->nr_lanes + 1) * sizeof(*everything));
	unsigned int i;
	int ret = 0;

	if (!everything)
		return -ENOMEM;
	for (i = 0; i < s->nr_lanes; i++)
		everything[i] = UINT64_MAX;
	ret = explain_session_pump(s, everything);
	free(everything);
	for (i = 0; i < s->nr_lanes && !ret; i++)
		ret = explain_cpu_finish(s->lanes[i].engine, end_ns, run_ns);
	return ret;
}

const struct explain_cpu *explain_session_lane(const struct explain_session *s, unsigned int lane)
{
	return lane < s->nr_lanes ? s->lanes[lane].engine : NULL;
}

const struct names *explain_session_names(const struct explain_session *s)
{
	return s->names;
}

uint64_t explain_session_lost(const struct explain_session *s)
{
	return s->trace ? trace_session_lost(s->trace) : s->lost;
}

void explain_session_reader(const struct explain_session *s, struct explain_reader *reader)
{
	reader->cpu_ns = s->reader_cpu_ns;
	reader->records = s->records_read;
	reader->lost = explain_session_lost(s);
}

static int write_capture(const struct explain_session *s, const struct lane *c,
			 const char *lane_name, unsigned int rank, const char *dir)
{
	const struct capture *capture = &c->captures[rank];
	char path[4200], line[512];
	struct atomic_file file;
	size_t i;
	FILE *f;
	int ret;

	snprintf(path, sizeof(path), "%s/%s-spike%u.txt", dir, lane_name, rank + 1);
	/* a full disk leaves the trace of a spike whole or absent, never cut */
	ret = atomic_file_open(&file, path);
	if (ret) {
		log_error("cannot write %s: %s", path, strerror(-ret));
		return ret;
	}
	f = file.stream;
	fprintf(f,
		"# latscope: spike %u of %s, %" PRIu64 " ns from %" PRIu64 " to %" PRIu64
		" ns\n# the events of cpu %u from %" PRIu64 " ns before it to as long after it\n"
		"# time_ns cpu pid(current task) event fields\n",
		rank + 1, lane_name, window_length(&capture->window), capture->window.start_ns,
		capture->window.end_ns, c->cpu, s->options.capture_margin_ns);
	for (i = 0; i < capture->records.nr; i++) {
		const struct trace_record *r = &capture->records.records[i];
		const char *mark = r->ts < capture->window.start_ns ? " " :
				   r->ts <= capture->window.end_ns  ? "*" :
								      " ";

		fprintf(f, "%s %15" PRIu64 " [%03u] %7d %s\n", mark, r->ts, r->cpu, r->pid,
			trace_record_format(r, s->names, line, sizeof(line)));
	}
	ret = atomic_file_commit(&file);
	if (ret)
		log_error("cannot write %s: %s", path, strerror(-ret));
	return ret;
}

int explain_session_write_captures(const struct explain_session *s, const char *dir,
				   const char *prefix, const unsigned int *numbers)
{
	unsigned int i, rank;
	int written = 0, ret;
	char name[64];

	for (i = 0; i < s->nr_lanes; i++) {
		snprintf(name, sizeof(name), "%s%u", prefix, numbers ? numbers[i] : i);
		for (rank = 0; rank < s->lanes[i].nr_captures; rank++) {
			ret = write_capture(s, &s->lanes[i], name, rank, dir);
			if (ret)
				return ret;
			written++;
		}
	}
	return written;
}

void explain_session_set_window_hook(struct explain_session *s, explain_window_hook hook,
				     void *context)
{
	unsigned int i;

	for (i = 0; i < s->nr_lanes; i++)
		explain_cpu_set_window_hook(s->lanes[i].engine, hook, context);
}

void explain_session_forget_causes(struct explain_session *s)
{
	unsigned int i;

	/* a lane inside a window keeps its table until the next call */
	for (i = 0; i < s->nr_lanes; i++)
		explain_cpu_forget_causes(s->lanes[i].engine);
}

void explain_session_free(struct explain_session *s)
{
	unsigned int i, k;

	if (!s)
		return;
	trace_session_destroy(s->trace);
	for (i = 0; s->lanes && i < s->nr_lanes; i++) {
		explain_cpu_free(s->lanes[i].engine);
		list_free(&s->lanes[i].waiting);
		list_free(&s->lanes[i].history);
		for (k = 0; k < s->lanes[i].nr_captures; k++)
			list_free(&s->lanes[i].captures[k].records);
		free(s->lanes[i].captures);
	}
	free(s->lanes);
	free(s->first_lane);
	names_free(s->names);
	free(s);
}
