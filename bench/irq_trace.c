// SPDX-License-Identifier: GPL-2.0-or-later
/* The load trace of bench/irq-policies: read and checked line by line. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "irq_trace.h"
#include "latscope/array.h"

static int refuse(char *error, size_t size, const char *name, unsigned long line, const char *fmt,
		  ...)
{
	size_t n;
	va_list ap;

	n = (size_t)snprintf(error, size, "%s:%lu: ", name, line);
	if (n < size) {
		va_start(ap, fmt);
		vsnprintf(error + n, size - n, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

static int read_line(const char *text, const char *name, unsigned long line,
		     const struct irq_sim *sim, struct irq_trace *trace,
		     struct irq_trace_event *event, char *error, size_t size)
{
	unsigned long long value;
	unsigned int second, irq;
	double rate, cost;
	int row, end = 0;

	if (sscanf(text, "seed %llu %n", &value, &end) == 1 && !text[end]) {
		trace->seed = value;
		return 1;
	}
	if (sscanf(text, "seconds %llu %n", &value, &end) == 1 && !text[end]) {
		if (!value || value > 366ULL * 86400 || trace->nr_events)
			return refuse(error, size, name, line,
				      "the length must be 1 s to a year, before any change");
		trace->seconds = (unsigned int)value;
		return 1;
	}
	if (sscanf(text, "%u %u %lf %lf %n", &second, &irq, &rate, &cost, &end) != 4 || text[end] ||
	    !isfinite(rate) || !isfinite(cost))
		return refuse(error, size, name, line,
			      "malformed line '%.60s' (want SECOND IRQ RATE COST_NS)", text);
	if (!trace->seconds)
		return refuse(error, size, name, line, "a change before the 'seconds N' line");
	if (rate < 0)
		return refuse(error, size, name, line, "negative rate %g for irq %u", rate, irq);
	if (cost < 0)
		return refuse(error, size, name, line, "negative cost %g for irq %u", cost, irq);
	row = irq_sim_find(sim, irq);
	if (row < 0)
		return refuse(error, size, name, line,
			      "unknown irq %u: the machine has no such irq", irq);
	if (second >= trace->seconds)
		return refuse(error, size, name, line, "second %u is past the trace's %u seconds",
			      second, trace->seconds);
	if (trace->nr_events && second < trace->events[trace->nr_events - 1].second)
		return refuse(error, size, name, line,
			      "second %u comes after second %u: changes must be in time order",
			      second, trace->events[trace->nr_events - 1].second);
	event->second = second;
	event->row = (unsigned int)row;
	event->rate = rate;
	event->cost_ns = cost;
	return 0;
}

int irq_trace_read(FILE *file, const char *name, const struct irq_sim *sim, struct irq_trace *trace,
		   char *error, size_t error_size)
{
	struct irq_trace_event event, *events;
	unsigned long line = 0;
	unsigned int cap = 0;
	size_t len;
	char text[256];
	int ret;

	memset(trace, 0, sizeof(*trace));
	while (fgets(text, sizeof(text), file)) {
		line++;
		len = strlen(text);
		if (len && text[len - 1] == '\n')
			text[--len] = '\0';
		else if (!feof(file))
			return refuse(error, error_size, name, line, "line too long");
		if (!len || text[0] == '#')
			continue;
		ret = read_line(text, name, line, sim, trace, &event, error, error_size);
		if (ret < 0)
			return ret;
		if (ret)
			continue;
		events = array_grow(trace->events, &cap, trace->nr_events + 1, sizeof(*events));
		if (!events)
			return -ENOMEM;
		trace->events = events;
		trace->events[trace->nr_events++] = event;
	}
	if (ferror(file))
		return refuse(error, error_size, name, line, "read error");
	if (!trace->seconds)
		return refuse(error, error_size, name, line, "no 'seconds N' line");
	return 0;
}

void irq_trace_release(struct irq_trace *trace)
{
	free(trace->events);
	memset(trace, 0, sizeof(*trace));
}
