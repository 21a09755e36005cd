// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "latscope/log.h"
#include "latscope/monitor_explain.h"

#define SPIKES_PER_TAKE 64

struct lane {
	unsigned int cpu;
	uint64_t next_spike; /* the CPU's spike ring reader */
	uint64_t lost_before; /* lost events of earlier runs */
	struct monitor_explained kept; /* under lock */
};

struct monitor_explain {
	struct explain_session *session;
	unsigned int nr_lanes;
	struct lane *lanes;
	uint64_t explain_above_ns;
	int64_t realtime_offset_ns; /* of the pump running the hook */
	pthread_mutex_t lock; /* kept counts: the pump writes, scrapes read */
};

void monitor_explain_cause_label(const struct explain_cpu *engine, const struct names *names,
				 const struct explain_cause *cause, char *kind, char *label)
{
	char text[128];
	const char *comm;

	snprintf(kind, 16, "%s", explain_kind_name((enum cause_kind)cause->key.kind));
	if (cause->key.kind != CAUSE_THREAD) {
		explain_cause_label(engine, cause, text, sizeof(text));
	} else if (cause->key.id == 0) {
		snprintf(text, sizeof(text), "idle");
	} else {
		/* a thread by its name alone: pids come and go, series must not */
		comm = names_get(names, cause->name);
		snprintf(text, sizeof(text), "%s", *comm ? comm : "task");
	}
	metrics_copy_label(label, METRICS_LABEL_SIZE, text);
}

static unsigned int add_cause(struct monitor_explained *kept, const char *kind, const char *label)
{
	struct metrics_cause *c = &kept->causes[kept->nr_causes];

	memset(c, 0, sizeof(*c));
	snprintf(c->kind, sizeof(c->kind), "%s", kind);
	snprintf(c->name, sizeof(c->name), "%s", label);
	return kept->nr_causes++;
}

/*
 * The index of a cause in a CPU's table: the first METRICS_CAUSES_PER_CPU
 * causes keep their own entry for good (their series must not vanish),
 * later ones share "other".
 */
static unsigned int cause_index(struct monitor_explained *kept, const char *kind, const char *label)
{
	unsigned int i, named = 0, other = UINT32_MAX;

	for (i = 0; i < kept->nr_causes; i++) {
		if (!strcmp(kept->causes[i].kind, kind) && !strcmp(kept->causes[i].name, label))
			return i;
		if (!strcmp(kept->causes[i].kind, "other"))
			other = i;
		else
			named++;
	}
	if (named < METRICS_CAUSES_PER_CPU)
		return add_cause(kept, kind, label);
	return other != UINT32_MAX ? other : add_cause(kept, "other", "other");
}

static void keep_if_worst(struct monitor_explained *kept, const struct monitor_spike *spike)
{
	unsigned int at;

	for (at = 0; at < kept->nr_worst; at++)
		if (spike->latency_ns > kept->worst[at].latency_ns)
			break;
	if (at >= MONITOR_WORST_SPIKES)
		return;
	if (kept->nr_worst < MONITOR_WORST_SPIKES)
		kept->nr_worst++;
	memmove(&kept->worst[at + 1], &kept->worst[at],
		(kept->nr_worst - 1 - at) * sizeof(kept->worst[0]));
	kept->worst[at] = *spike;
}

void monitor_explained_count(struct monitor_explained *kept, uint64_t time_ns, uint64_t latency_ns,
			     bool incomplete, const char *const *kinds, const char *const *labels,
			     const uint64_t *ns, unsigned int nr)
{
	struct monitor_spike spike = { .time_ns = time_ns,
				       .latency_ns = latency_ns,
				       .incomplete = incomplete };
	unsigned int i, cause;

	for (i = 0; i < nr; i++) {
		cause = cause_index(kept, kinds[i], labels[i]);
		kept->causes[cause].ns += ns[i];
		/* a spike counts once, under its largest part */
		if (!i)
			kept->causes[cause].spikes++;
		if (spike.nr_parts < MONITOR_SPIKE_PARTS)
			spike.parts[spike.nr_parts++] = (struct monitor_spike_part){ cause, ns[i] };
		else
			spike.rest_ns += ns[i];
	}
	keep_if_worst(kept, &spike);
}

/* The engine's hook: one window closed. */
static void window_closed(void *context, const struct explain_cpu *engine,
			  const struct explain_spike *spike)
{
	struct monitor_explain *x = context;
	const struct names *names = explain_session_names(x->session);
	const char *kinds[64], *labels[64];
	char kind_text[64][16], label_text[64][METRICS_LABEL_SIZE];
	const struct explain_cause *causes;
	unsigned int nr_causes, i, n = 0, lane;
	uint64_t ns[64];

	for (lane = 0; lane < x->nr_lanes; lane++)
		if (x->lanes[lane].cpu == explain_cpu_number(engine))
			break;
	if (lane == x->nr_lanes)
		return;
	causes = explain_cpu_causes(engine, &nr_causes);
	for (i = 0; i < spike->nr_contributions && n < 64; i++) {
		const struct explain_contribution *c = &spike->contributions[i];

		if (c->cause >= nr_causes)
			continue;
		monitor_explain_cause_label(engine, names, &causes[c->cause], kind_text[n],
					    label_text[n]);
		kinds[n] = kind_text[n];
		labels[n] = label_text[n];
		ns[n++] = c->ns;
	}
	pthread_mutex_lock(&x->lock);
	monitor_explained_count(&x->lanes[lane].kept,
				(uint64_t)((int64_t)spike->window.start_ns + x->realtime_offset_ns),
				spike->window.end_ns - spike->window.start_ns, spike->incomplete,
				kinds, labels, ns, n);
	pthread_mutex_unlock(&x->lock);
}

struct monitor_explain *monitor_explain_start(const unsigned int *cpus, unsigned int nr_cpus,
					      uint64_t explain_above_ns)
{
	struct explain_session_options options = { 0 };
	struct monitor_explain *x = calloc(1, sizeof(*x));
	unsigned int i;

	if (!x)
		return NULL;
	pthread_mutex_init(&x->lock, NULL);
	x->nr_lanes = nr_cpus;
	x->explain_above_ns = explain_above_ns;
	x->lanes = calloc(nr_cpus ? nr_cpus : 1, sizeof(*x->lanes));
	if (!x->lanes) {
		monitor_explain_free(x);
		return NULL;
	}
	for (i = 0; i < nr_cpus; i++)
		x->lanes[i].cpu = cpus[i];
	options.nr_lanes = nr_cpus;
	options.lane_cpu = cpus;
	options.mode = EXPLAIN_TIMER;
	options.clock = "mono"; /* the timer's own clock */
	/* the monitor keeps its own worst spikes, with labels that outlive the engine's table */
	options.worst_kept = 0;
	options.capture_margin_ns = 0;
	x->session = explain_session_start(&options);
	if (!x->session) {
		monitor_explain_free(x);
		return NULL;
	}
	explain_session_set_window_hook(x->session, window_closed, x);
	return x;
}

void monitor_explain_restore(struct monitor_explain *x, unsigned int lane,
			     const struct monitor_explained *kept)
{
	if (lane >= x->nr_lanes)
		return;
	pthread_mutex_lock(&x->lock);
	x->lanes[lane].kept = *kept;
	x->lanes[lane].lost_before = kept->lost_events;
	pthread_mutex_unlock(&x->lock);
}

void monitor_explain_set_thresholds(struct monitor_explain *x, struct monitor_cpu *const *cpus)
{
	struct monitor_cpu_reading r;
	unsigned int lane;
	uint64_t threshold;

	if (x->explain_above_ns) {
		for (lane = 0; lane < x->nr_lanes; lane++)
			__atomic_store_n(&cpus[lane]->spike_threshold_ns, x->explain_above_ns,
					 __ATOMIC_RELAXED);
		return;
	}
	r.counts = malloc(NATIVE_SLOTS * sizeof(uint64_t));
	if (!r.counts)
		return;
	for (lane = 0; lane < x->nr_lanes; lane++) {
		monitor_cpu_read(cpus[lane], &r);
		if (r.count < MONITOR_MIN_SAMPLES_FOR_P99)
			continue;
		threshold = monitor_cpu_reading_percentile(&r, 99);
		__atomic_store_n(&cpus[lane]->spike_threshold_ns, threshold ? threshold : 1,
				 __ATOMIC_RELAXED);
	}
	free(r.counts);
}

/* Trace events lost on each lane, earlier runs' included. */
static void count_lost_events(struct monitor_explain *x)
{
	struct explain_totals totals;
	unsigned int lane;

	pthread_mutex_lock(&x->lock);
	for (lane = 0; lane < x->nr_lanes; lane++) {
		explain_cpu_totals(explain_session_lane(x->session, lane), &totals);
		x->lanes[lane].kept.lost_events = x->lanes[lane].lost_before + totals.lost_events;
	}
	pthread_mutex_unlock(&x->lock);
}

int monitor_explain_pump(struct monitor_explain *x, struct monitor_cpu *const *cpus,
			 const pid_t *tids, const uint64_t *horizons, int64_t realtime_offset_ns)
{
	struct timer_spike spikes[SPIKES_PER_TAKE];
	unsigned int lane, n, i;
	uint64_t missed;
	int ret;

	x->realtime_offset_ns = realtime_offset_ns;
	for (lane = 0; lane < x->nr_lanes; lane++) {
		struct lane *l = &x->lanes[lane];

		missed = 0;
		do {
			n = monitor_cpu_take_spikes(cpus[lane], &l->next_spike, spikes,
						    SPIKES_PER_TAKE, &missed);
			for (i = 0; i < n; i++) {
				struct explain_window w = {
					.start_ns = spikes[i].expiry_ns,
					.end_ns = spikes[i].wakeup_ns,
					.own_pid = tids[lane],
					.tag = spikes[i].cycle,
				};

				explain_session_add_window(x->session, lane, &w);
			}
		} while (n == SPIKES_PER_TAKE);
		if (missed) {
			pthread_mutex_lock(&x->lock);
			l->kept.spikes_missed += missed;
			pthread_mutex_unlock(&x->lock);
		}
	}
	ret = explain_session_pump(x->session, horizons);
	explain_session_forget_causes(x->session);
	count_lost_events(x);
	return ret;
}

int monitor_explain_finish(struct monitor_explain *x, uint64_t end_ns)
{
	int ret;

	explain_session_stop_tracing(x->session);
	ret = explain_session_finish(x->session, end_ns, end_ns);
	count_lost_events(x);
	return ret;
}

void monitor_explain_read(struct monitor_explain *x, unsigned int lane,
			  struct monitor_explained *kept)
{
	pthread_mutex_lock(&x->lock);
	*kept = x->lanes[lane].kept;
	pthread_mutex_unlock(&x->lock);
}

void monitor_explain_free(struct monitor_explain *x)
{
	if (!x)
		return;
	explain_session_free(x->session);
	pthread_mutex_destroy(&x->lock);
	free(x->lanes);
	free(x);
}
