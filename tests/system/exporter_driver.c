// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A small program serving latscope's exporter, for the tests that scrape it
 * with a real Prometheus before `latscope monitor` exists as a command:
 *
 *   exporter-driver [--listen ADDR] [--web-config FILE] [--port-file FILE]
 *                   [--p99-file FILE] --synthetic CPUS [--causes N]
 *
 * --synthetic serves a fixed snapshot of CPUS CPUs whose latencies follow
 * a log-normal law (the counts of every native slot computed, each sample
 * taken at its slot's middle, so classic and native buckets agree).
 * --p99-file writes the snapshot's own p99 per CPU as JSON. It runs until
 * SIGTERM or SIGINT.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "latscope/exporter_http.h"
#include "latscope/log.h"
#include "latscope/metrics.h"
#include "latscope/web_config.h"

static volatile sig_atomic_t stop;

static void on_signal(int signo)
{
	stop = signo;
}

static void to_stderr(enum log_level level, const char *message)
{
	if (level <= LOG_WARNING)
		fprintf(stderr, "exporter-driver: %s\n", message);
}

/* log-normal CDF of a latency in ns */
static double cdf(double ns, double median_ns, double sigma)
{
	if (ns <= 0)
		return 0;
	return 0.5 * erfc(-(log(ns) - log(median_ns)) / (sigma * sqrt(2)));
}

static void fill_cpu(struct metrics_cpu *c, unsigned int cpu, uint64_t samples,
		     unsigned int nr_causes)
{
	double median = 4000 + 500 * (cpu % 7), sigma = 0.6 + 0.05 * (cpu % 5);
	unsigned int slot, lo = NATIVE_SLOTS, hi = 0, k;
	uint64_t *counts = calloc(NATIVE_SLOTS, sizeof(uint64_t));

	c->cpu = cpu;
	for (slot = 1; slot < NATIVE_SLOTS; slot++) {
		uint64_t low = native_slot_low(slot), high = native_slot_high[slot], mid;
		double p;

		if (low > high)
			continue;
		p = cdf((double)high + 0.5, median, sigma) - cdf((double)low - 0.5, median, sigma);
		counts[slot] = (uint64_t)llround(p * (double)samples);
		if (!counts[slot])
			continue;
		mid = low + (high - low) / 2;
		lo = slot < lo ? slot : lo;
		hi = slot > hi ? slot : hi;
		c->count += counts[slot];
		c->sum_ns += counts[slot] * mid;
		c->classic[metrics_classic_slot_of(mid)] += counts[slot];
		if (mid > c->max_ns)
			c->max_ns = mid;
	}
	c->native.first = lo;
	c->native.nr = hi - lo + 1;
	c->native.counts = malloc(c->native.nr * sizeof(uint64_t));
	memcpy(c->native.counts, counts + lo, c->native.nr * sizeof(uint64_t));
	free(counts);
	c->missed = cpu % 3;
	c->has_window = true;
	c->window_max_ns = c->max_ns;
	c->explained = nr_causes > 0;
	c->lost_events = cpu % 2;
	c->nr_causes = nr_causes;
	c->causes = calloc(nr_causes + 1, sizeof(*c->causes));
	for (k = 0; k < nr_causes; k++) {
		snprintf(c->causes[k].kind, sizeof(c->causes[k].kind), "%s",
			 k % 3 ? "thread" : "irq");
		snprintf(c->causes[k].name, sizeof(c->causes[k].name),
			 k % 3 ? "kworker/%u:%u" : "irq %u virtio%u-req.0", cpu, k);
		c->causes[k].spikes = 10 + k;
		c->causes[k].ns = 1000000ULL * (k + 1);
	}
	c->nr_interrupts = 2;
	c->interrupts = calloc(2, sizeof(*c->interrupts));
	snprintf(c->interrupts[0].irq, sizeof(c->interrupts[0].irq), "LOC");
	snprintf(c->interrupts[0].name, sizeof(c->interrupts[0].name), "Local timer interrupts");
	c->interrupts[0].count = 1000000 + cpu;
	snprintf(c->interrupts[1].irq, sizeof(c->interrupts[1].irq), "RES");
	snprintf(c->interrupts[1].name, sizeof(c->interrupts[1].name),
		 "Rescheduling interrupts");
	c->interrupts[1].count = 1000 + cpu;
}

static struct metrics *template;

/* Each scrape gets its own copy, as a live monitor's collector gives. */
static struct metrics *collect_copy(void *context)
{
	const struct metrics *from = context;
	struct metrics *m = metrics_new(from->nr_cpus);
	unsigned int i;

	if (!m)
		return NULL;
	m->version = from->version;
	m->start_time = from->start_time;
	for (i = 0; i < from->nr_cpus; i++) {
		struct metrics_cpu *c = &m->cpus[i];

		*c = from->cpus[i];
		c->native.counts = malloc(c->native.nr * sizeof(uint64_t) + 1);
		c->causes = malloc(c->nr_causes * sizeof(*c->causes) + 1);
		c->interrupts = malloc(c->nr_interrupts * sizeof(*c->interrupts) + 1);
		if (!c->native.counts || !c->causes || !c->interrupts) {
			metrics_free(m);
			return NULL;
		}
		memcpy(c->native.counts, from->cpus[i].native.counts,
		       c->native.nr * sizeof(uint64_t));
		memcpy(c->causes, from->cpus[i].causes, c->nr_causes * sizeof(*c->causes));
		memcpy(c->interrupts, from->cpus[i].interrupts,
		       c->nr_interrupts * sizeof(*c->interrupts));
	}
	m->nr_failed = from->nr_failed;
	m->failed = malloc(m->nr_failed * sizeof(*m->failed) + 1);
	if (!m->failed) {
		metrics_free(m);
		return NULL;
	}
	memcpy(m->failed, from->failed, m->nr_failed * sizeof(*m->failed));
	return m;
}

static int write_p99(const char *path, const struct metrics *m)
{
	FILE *f = fopen(path, "w");
	unsigned int i;

	if (!f)
		return -errno;
	fprintf(f, "{");
	for (i = 0; i < m->nr_cpus; i++) {
		const struct metrics_cpu *c = &m->cpus[i];

		fprintf(f, "%s\"%u\": %llu", i ? ", " : "", c->cpu,
			(unsigned long long)native_percentile(c->native.counts, c->native.first,
							      c->native.nr, c->count, 99, 0,
							      c->max_ns));
	}
	fprintf(f, "}\n");
	return fclose(f) ? -errno : 0;
}

int main(int argc, char **argv)
{
	static const struct option options[] = {
		{ "listen", required_argument, NULL, 'l' },
		{ "web-config", required_argument, NULL, 'w' },
		{ "port-file", required_argument, NULL, 'P' },
		{ "p99-file", required_argument, NULL, '9' },
		{ "synthetic", required_argument, NULL, 's' },
		{ "causes", required_argument, NULL, 'c' },
		{ NULL, 0, NULL, 0 },
	};
	const char *listen = NULL, *web_path = NULL, *port_file = NULL, *p99_file = NULL;
	struct exporter_http_options http = { 0 };
	struct web_config *web = NULL;
	struct exporter_http *server;
	unsigned int nr_cpus = 0, nr_causes = 0, i;
	struct sigaction action = { 0 };
	int opt;

	while ((opt = getopt_long(argc, argv, "", options, NULL)) != -1) {
		switch (opt) {
		case 'l':
			listen = optarg;
			break;
		case 'w':
			web_path = optarg;
			break;
		case 'P':
			port_file = optarg;
			break;
		case '9':
			p99_file = optarg;
			break;
		case 's':
			nr_cpus = (unsigned int)strtoul(optarg, NULL, 10);
			break;
		case 'c':
			nr_causes = (unsigned int)strtoul(optarg, NULL, 10);
			break;
		default:
			return 129;
		}
	}
	if (!nr_cpus) {
		fprintf(stderr, "exporter-driver: --synthetic CPUS is needed\n");
		return 129;
	}
	log_set_hook(to_stderr);
	if (web_path && web_config_load(web_path, &web))
		return 129;
	template = metrics_new(nr_cpus);
	template->version = "0.1.0";
	template->start_time = (double)time(NULL);
	for (i = 0; i < nr_cpus; i++)
		fill_cpu(&template->cpus[i], i, 1000000, nr_causes);
	if (p99_file && write_p99(p99_file, template))
		return 1;
	http.listen = listen;
	http.web = web;
	http.collect = collect_copy;
	http.context = template;
	server = exporter_http_open(&http);
	if (!server)
		return 1;
	if (port_file) {
		FILE *f = fopen(port_file, "w");

		if (!f)
			return 1;
		fprintf(f, "%u\n", exporter_http_port(server));
		fclose(f);
	}
	action.sa_handler = on_signal;
	sigaction(SIGTERM, &action, NULL);
	sigaction(SIGINT, &action, NULL);
	if (exporter_http_start(server))
		return 1;
	while (!stop)
		pause();
	exporter_http_free(server);
	metrics_free(template);
	web_config_free(web);
	return 0;
}
