// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Serves latscope's exporter where a real `latscope monitor` cannot give the
 * state a test needs: exporter-prometheus's wire tests against a fixed
 * snapshot, and bench/monitor-scale's generated 256-CPU state on this
 * 2-CPU machine. Everything that measures is `latscope monitor` itself.
 *
 *   exporter-driver [--listen ADDR] [--web-config FILE] [--port-file FILE]
 *                   [--p99-file FILE] --synthetic CPUS [--causes N]
 *   exporter-driver [--listen ADDR] [--web-config FILE] [--port-file FILE]
 *                   --monitor --no-start [--online LIST] [--cpus LIST]
 *                   [--interval NS] [--window NS] [--explain] [--audit-every NS]
 *                   [--mlockall] --state FILE
 *
 * --synthetic serves a fixed snapshot of CPUS CPUs whose latencies follow
 * a log-normal law (the counts of every native slot computed, each sample
 * taken at its slot's middle, so classic and native buckets agree);
 * --p99-file writes the exporter's own p99 per CPU as JSON at start.
 * --monitor --no-start loads a state into the monitor's engine and serves
 * it without measuring (--online pretends those CPUs are online) until
 * SIGTERM, then checkpoints it; --mlockall locks its memory once the state
 * is loaded, where `latscope monitor` locks it, so that its peak RSS is the
 * monitor's.
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

#include "latscope/clock.h"
#include "latscope/exporter_http.h"
#include "latscope/log.h"
#include "latscope/metrics.h"
#include "latscope/monitor.h"
#include "latscope/rt.h"
#include "latscope/sysroot.h"
#include "latscope/topology.h"
#include "latscope/web_config.h"

static volatile sig_atomic_t stop;

static void on_signal(int signo)
{
	stop = signo;
}

static void to_stderr(enum log_level level, const char *message)
{
	if (level <= LATSCOPE_LOG_WARNING)
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
	snprintf(c->interrupts[1].name, sizeof(c->interrupts[1].name), "Rescheduling interrupts");
	c->interrupts[1].count = 1000 + cpu;
}

static struct metrics *template;

/* memcpy() of what may be empty, and then NULL (which memcpy may not be given) */
static void copy(void *to, const void *from, size_t size)
{
	if (size)
		memcpy(to, from, size);
}

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
		copy(c->native.counts, from->cpus[i].native.counts,
		     c->native.nr * sizeof(uint64_t));
		copy(c->causes, from->cpus[i].causes, c->nr_causes * sizeof(*c->causes));
		copy(c->interrupts, from->cpus[i].interrupts,
		     c->nr_interrupts * sizeof(*c->interrupts));
	}
	m->nr_failed = from->nr_failed;
	m->failed = malloc(m->nr_failed * sizeof(*m->failed) + 1);
	if (!m->failed) {
		metrics_free(m);
		return NULL;
	}
	copy(m->failed, from->failed, m->nr_failed * sizeof(*m->failed));
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

		struct monitor_cpu_reading r = { .count = c->count,
						 .max_ns = c->max_ns,
						 .zero_count = c->native.zero_count,
						 .first = c->native.first,
						 .nr = c->native.nr,
						 .counts = c->native.counts };

		fprintf(f, "%s\"%u\": %llu", i ? ", " : "", c->cpu,
			(unsigned long long)monitor_cpu_reading_percentile(&r, 99));
	}
	fprintf(f, "}\n");
	return fclose(f) ? -errno : 0;
}

static void to_stderr_info(enum log_level level, const char *message)
{
	if (level <= LATSCOPE_LOG_INFO)
		fprintf(stderr, "exporter-driver: %s\n", message);
}

static uint64_t number(const char *text)
{
	return strtoull(text, NULL, 10);
}

struct monitor_options {
	struct monitor_params params;
	bool no_start;
	bool lock_memory;
	const char *online;
};

/* A state served by the monitor's engine, as `latscope monitor` serves it, without measuring. */
static int serve_state(struct monitor_options *o, struct exporter_http_options *http,
		       const char *port_file)
{
	struct sysroot *root = sysroot_new(NULL);
	enum state_outcome outcome;
	struct exporter_http *server;
	struct topology topo;
	struct monitor *m;
	sigset_t stop_signals, wait_mask;
	struct monitor_checkpoint_times times;
	int ret = 0;

	if (!o->no_start) {
		fprintf(stderr, "exporter-driver: --monitor serves a state (--no-start); "
				"`latscope monitor` measures\n");
		return 129;
	}
	if (!root || topology_load(root, &topo))
		return 1;
	if (o->online && cpuset_parse_list(o->online, &topo.online))
		return 129;
	o->params.root = root;
	m = monitor_new(&o->params, &topo);
	if (!m)
		return 1;
	if (monitor_load_state(m, &outcome))
		return 1;
	if (o->lock_memory && rt_lock_memory(true, "latency"))
		return 1;
	http->collect = monitor_collect;
	http->context = m;
	server = exporter_http_open(http);
	if (!server)
		return 1;
	if (port_file) {
		FILE *f = fopen(port_file, "w");

		fprintf(f, "%u\n", exporter_http_port(server));
		fclose(f);
	}
	sigemptyset(&stop_signals);
	sigaddset(&stop_signals, SIGINT);
	sigaddset(&stop_signals, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &stop_signals, &wait_mask);
	if (exporter_http_start(server))
		return 1;
	while (!stop)
		sigsuspend(&wait_mask);
	/*
	 * The served state is written back on the way out, as the monitor's
	 * housekeeping thread checkpoints it: behind, a CPU at a time.
	 */
	/* the windows' text made behind after the state was loaded, when it was */
	if (monitor_checkpoint_wait(m, &times))
		ret = 1;
	if (times.text_only)
		fprintf(stderr,
			"exporter-driver: window text made ahead in %.1f ms (%.1f ms of CPU), the "
			"state held %.2f ms in all, at most %.3f ms at a time\n",
			(double)times.written_ns / 1e6, (double)times.cpu_ns / 1e6,
			(double)times.held_ns / 1e6, (double)times.longest_hold_ns / 1e6);
	if (monitor_checkpoint_behind(m) || monitor_checkpoint_wait(m, &times))
		ret = 1;
	fprintf(stderr,
		"exporter-driver: checkpoint on disk in %.1f ms (%.1f ms of CPU), the state held "
		"%.2f ms in all, at most %.3f ms at a time\n",
		(double)times.written_ns / 1e6, (double)times.cpu_ns / 1e6,
		(double)times.held_ns / 1e6, (double)times.longest_hold_ns / 1e6);
	exporter_http_free(server);
	monitor_free(m);
	topology_release(&topo);
	sysroot_free(root);
	return ret;
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
		{ "monitor", no_argument, NULL, 'M' },
		{ "cpus", required_argument, NULL, 'C' },
		{ "interval", required_argument, NULL, 'i' },
		{ "window", required_argument, NULL, 'W' },
		{ "explain", no_argument, NULL, 'e' },
		{ "audit-every", required_argument, NULL, 'a' },
		{ "state", required_argument, NULL, 'S' },
		{ "no-start", no_argument, NULL, 'n' },
		{ "online", required_argument, NULL, 'o' },
		{ "mlockall", no_argument, NULL, 'm' },
		{ NULL, 0, NULL, 0 },
	};
	struct monitor_options monitor = { 0 };
	bool monitor_mode = false;
	const char *listen = NULL, *web_path = NULL, *port_file = NULL, *p99_file = NULL;
	struct exporter_http_options http = { 0 };
	struct web_config *web = NULL;
	struct exporter_http *server;
	unsigned int nr_cpus = 0, nr_causes = 0, i;
	struct sigaction action = { 0 };
	int opt;

	monitor_params_default(&monitor.params);
	monitor.params.argc = argc - 1;
	monitor.params.argv = argv + 1;
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
		case 'M':
			monitor_mode = true;
			break;
		case 'C':
			if (cpuset_parse_list(optarg, &monitor.params.cpus))
				return 129;
			break;
		case 'i':
			monitor.params.interval_ns = number(optarg);
			break;
		case 'W':
			monitor.params.window_ns = number(optarg);
			break;
		case 'e':
			monitor.params.explain = true;
			break;
		case 'a':
			monitor.params.audit_every_ns = number(optarg);
			break;
		case 'S':
			monitor.params.state_path = optarg;
			break;
		case 'n':
			monitor.no_start = true;
			break;
		case 'o':
			monitor.online = optarg;
			break;
		case 'm':
			monitor.lock_memory = true;
			break;
		default:
			return 129;
		}
	}
	if (!nr_cpus && !monitor_mode) {
		fprintf(stderr, "exporter-driver: --synthetic CPUS or --monitor is needed\n");
		return 129;
	}
	log_set_hook(monitor_mode ? to_stderr_info : to_stderr);
	if (web_path && web_config_load(web_path, &web))
		return 129;
	action.sa_handler = on_signal;
	sigaction(SIGTERM, &action, NULL);
	sigaction(SIGINT, &action, NULL);
	if (monitor_mode) {
		http.listen = listen;
		http.web = web;
		opt = serve_state(&monitor, &http, port_file);
		web_config_free(web);
		return opt;
	}
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
	if (exporter_http_start(server))
		return 1;
	while (!stop)
		pause();
	exporter_http_free(server);
	metrics_free(template);
	web_config_free(web);
	return 0;
}
