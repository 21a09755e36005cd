// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The exporter's snapshot of the monitor (monitor_collect()): each CPU's
 * counts, last window, causes and interrupts, and the audit's failed rules,
 * copied out under the engine's locks for one scrape or one textfile.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "latscope-config.h"
#include "latscope/metrics.h"
#include "latscope/monitor_explain.h"
#include "monitor_audit.h"
#include "monitor_engine.h"

static void collect_cpu(struct monitor *m, unsigned int lane, struct monitor_cpu_reading *r,
			struct monitor_explained *kept, struct metrics_cpu *c)
{
	struct lane *l = &m->lanes[lane];

	monitor_cpu_read(l->state, r);
	c->cpu = l->cpu;
	c->count = r->count;
	c->sum_ns = r->sum_ns;
	c->max_ns = r->max_ns;
	c->missed = r->missed;
	memcpy(c->classic, r->classic, sizeof(c->classic));
	c->native.zero_count = r->zero_count;
	c->native.first = r->first;
	c->native.counts = malloc((r->nr + 1) * sizeof(uint64_t));
	if (c->native.counts) {
		c->native.nr = r->nr;
		memcpy(c->native.counts, r->counts, r->nr * sizeof(uint64_t));
	}
	c->has_window = r->has_closed;
	c->window_max_ns = r->last_closed.max_ns;
	if (m->explain || m->params.explain) {
		if (m->explain)
			monitor_explain_read(m->explain, lane, kept);
		else
			*kept = l->kept;
		c->explained = true;
		c->lost_events = kept->lost_events;
		c->causes = malloc((kept->nr_causes + 1) * sizeof(*c->causes));
		if (c->causes) {
			c->nr_causes = kept->nr_causes;
			memcpy(c->causes, kept->causes, kept->nr_causes * sizeof(*c->causes));
		}
	}
	pthread_mutex_lock(&m->irq_lock);
	c->interrupts = malloc((l->nr_interrupts + 1) * sizeof(*c->interrupts));
	if (c->interrupts) {
		unsigned int i;

		/* only what reached this CPU: series of zeros say nothing */
		for (i = 0; i < l->nr_interrupts; i++)
			if (l->interrupts[i].count)
				c->interrupts[c->nr_interrupts++] = l->interrupts[i];
	}
	pthread_mutex_unlock(&m->irq_lock);
}

struct metrics *monitor_collect(void *monitor)
{
	struct monitor *m = monitor;
	struct metrics *metrics = metrics_new(m->nr_lanes);
	struct monitor_cpu_reading reading;
	struct monitor_explained *kept = malloc(sizeof(*kept));
	unsigned int lane;

	reading.counts = malloc(NATIVE_SLOTS * sizeof(uint64_t));
	if (!metrics || !reading.counts || !kept) {
		metrics_free(metrics);
		metrics = NULL;
		goto out;
	}
	metrics->version = LATSCOPE_VERSION;
	metrics->start_time = m->start_time;
	for (lane = 0; lane < m->nr_lanes; lane++)
		collect_cpu(m, lane, &reading, kept, &metrics->cpus[lane]);
	if (m->audit && monitor_audit_failed(m->audit, &metrics->failed, &metrics->nr_failed))
		metrics->nr_failed = 0;
	if (!m->audit && m->nr_final_failed) {
		metrics->failed = malloc(m->nr_final_failed * sizeof(*metrics->failed));
		if (metrics->failed) {
			metrics->nr_failed = m->nr_final_failed;
			memcpy(metrics->failed, m->final_failed,
			       m->nr_final_failed * sizeof(*metrics->failed));
		}
	}
out:
	free(reading.counts);
	free(kept);
	return metrics;
}
