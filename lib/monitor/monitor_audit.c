// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "latscope/audit.h"
#include "latscope/clock.h"
#include "latscope/log.h"
#include "monitor_audit.h"
#include "latscope/monitor_state.h"
#include "latscope/rt.h"
#include "latscope/topology.h"

struct monitor_audit {
	struct sysroot *root;
	struct cpuset rt_cpus;
	bool rt_cpus_given;
	uint64_t every_ns;
	pthread_t thread;
	bool started;
	pthread_mutex_t lock;
	pthread_cond_t changed;
	bool stop;
	/* the last run, under lock */
	unsigned long attempts; /* runs, and tries that could not read */
	unsigned long runs;
	json_t *last; /* the state's form */
	struct metrics_rule *failed;
	unsigned int nr_failed;
};

/* One run: the failing rules for the metrics, and the state's summary. */
static void try_once(struct monitor_audit *a)
{
	struct audit_report report = { 0 };
	struct metrics_rule *failed = NULL;
	struct topology topo;
	json_t *doc, *list;
	unsigned int n = 0;
	char cpus[256];
	size_t i;
	int ret;

	ret = topology_load(a->root, &topo);
	if (ret) {
		log_warning("audit: cannot read the cpu topology: %s", strerror(-ret));
		return;
	}
	ret = audit_run(a->root, &topo, a->rt_cpus_given ? &a->rt_cpus : NULL, &report);
	topology_release(&topo);
	if (ret) {
		log_warning("audit: %s", strerror(-ret));
		return;
	}
	failed = calloc(report.nr_findings + 1, sizeof(*failed));
	list = json_array();
	doc = json_object();
	if (!failed || !list || !doc) {
		free(failed);
		json_decref(list);
		json_decref(doc);
		audit_report_release(&report);
		return;
	}
	for (i = 0; i < report.nr_findings; i++) {
		const struct audit_finding *f = &report.findings[i];

		if (f->status != AUDIT_FAIL)
			continue;
		metrics_copy_label(failed[n].id, sizeof(failed[n].id), f->id);
		metrics_copy_label(failed[n].severity, sizeof(failed[n].severity),
				   audit_severity_name(f->severity));
		n++;
		json_array_append_new(list, json_pack("{ssssssss?}", "rule", f->id, "severity",
						      audit_severity_name(f->severity), "title",
						      f->title, "detail", f->detail));
	}
	json_object_set_new(doc, "time", state_time(clock_ns(CLOCK_REALTIME)));
	json_object_set_new(doc, "rt_cpus",
			    json_string(cpuset_format_list(&report.rt_cpus, cpus, sizeof(cpus))));
	json_object_set_new(doc, "failed", list);
	audit_report_release(&report);
	pthread_mutex_lock(&a->lock);
	a->runs++;
	json_object_set_new(doc, "runs", json_integer((json_int_t)a->runs));
	json_decref(a->last);
	a->last = doc;
	free(a->failed);
	a->failed = failed;
	a->nr_failed = n;
	pthread_cond_broadcast(&a->changed);
	pthread_mutex_unlock(&a->lock);
}

static void run_once(struct monitor_audit *a)
{
	try_once(a);
	pthread_mutex_lock(&a->lock);
	a->attempts++;
	pthread_cond_broadcast(&a->changed);
	pthread_mutex_unlock(&a->lock);
}

static void *audit_thread(void *arg)
{
	struct monitor_audit *a = arg;
	struct timespec until;
	uint64_t next;

	for (;;) {
		run_once(a);
		next = clock_ns(CLOCK_MONOTONIC) + a->every_ns;
		until = clock_timespec(next);
		pthread_mutex_lock(&a->lock);
		while (!a->stop && clock_ns(CLOCK_MONOTONIC) < next)
			pthread_cond_timedwait(&a->changed, &a->lock, &until);
		if (a->stop) {
			pthread_mutex_unlock(&a->lock);
			return NULL;
		}
		pthread_mutex_unlock(&a->lock);
	}
}

struct monitor_audit *monitor_audit_start(struct sysroot *root, const struct cpuset *rt_cpus,
					  uint64_t every_ns, const struct cpuset *housekeeping)
{
	struct monitor_audit *a = calloc(1, sizeof(*a));
	pthread_condattr_t attr;

	if (!a)
		return NULL;
	a->root = root;
	a->every_ns = every_ns ? every_ns : 1;
	if (rt_cpus) {
		a->rt_cpus = *rt_cpus;
		a->rt_cpus_given = true;
	}
	pthread_mutex_init(&a->lock, NULL);
	/* timed waits on the monotonic clock: a clock step does not skip a run */
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&a->changed, &attr);
	pthread_condattr_destroy(&attr);
	if (rt_start_housekeeping_thread(&a->thread, housekeeping, audit_thread, a)) {
		monitor_audit_free(a);
		return NULL;
	}
	a->started = true;
	return a;
}

void monitor_audit_wait_first(struct monitor_audit *a)
{
	pthread_mutex_lock(&a->lock);
	while (!a->attempts && !a->stop)
		pthread_cond_wait(&a->changed, &a->lock);
	pthread_mutex_unlock(&a->lock);
}

int monitor_audit_failed(struct monitor_audit *a, struct metrics_rule **rules, unsigned int *nr)
{
	pthread_mutex_lock(&a->lock);
	*nr = a->nr_failed;
	*rules = malloc((a->nr_failed + 1) * sizeof(**rules));
	if (*rules && a->nr_failed)
		memcpy(*rules, a->failed, a->nr_failed * sizeof(**rules));
	pthread_mutex_unlock(&a->lock);
	if (!*rules) {
		*nr = 0;
		return -ENOMEM;
	}
	return 0;
}

json_t *monitor_audit_json(struct monitor_audit *a)
{
	json_t *copy;

	pthread_mutex_lock(&a->lock);
	copy = a->last ? json_deep_copy(a->last) : json_null();
	pthread_mutex_unlock(&a->lock);
	return copy;
}

void monitor_audit_free(struct monitor_audit *a)
{
	if (!a)
		return;
	if (a->started) {
		pthread_mutex_lock(&a->lock);
		a->stop = true;
		pthread_cond_broadcast(&a->changed);
		pthread_mutex_unlock(&a->lock);
		pthread_join(a->thread, NULL);
	}
	pthread_cond_destroy(&a->changed);
	pthread_mutex_destroy(&a->lock);
	json_decref(a->last);
	free(a->failed);
	free(a);
}
