// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The kernel of bench/irq-policies' simulated machine: replays a load
 * trace against the files a balancer reads, and answers its affinity
 * writes as the kernel would.
 *
 * usage: irq-policies-driver --tree DIR --trace FILE [--sim-dt S]
 *            [--lockstep [--start-at SECOND]] [--arrivals-seed N]
 *            [--warmup SECONDS] [--json FILE] [--check]
 *
 * DIR holds the machine (DIR/machine, written by bench/irq-policies) and
 * receives the files of /proc this driver keeps: proc/interrupts,
 * proc/stat and each proc/irq/N/{smp_affinity,smp_affinity_list,
 * effective_affinity,effective_affinity_list}, rewritten in place (a
 * bind mount stays on its inode). Each simulated second takes 1/S of a
 * real second. Affinity writes arrive on DIR/kernel.sock from
 * irq_policies_shim.so, which the balancers are started with: each is
 * answered with 0 or the errno the kernel would return (EIO for managed
 * IRQs, ENOSPC when no CPU of the mask has a vector left, EINVAL when the
 * mask has no online CPU); the shim also says when a balancer opens
 * /proc/interrupts, once a scan, and those reads are counted. At the end,
 * --json receives the figures, and whether the loop kept up: how late,
 * in simulated seconds, the latest second began (the balancers' clocks
 * run on; a driver behind them would give them fewer seconds than they
 * think).
 *
 * --sim-dt 0 plays the seconds as fast as it can, with no balancer (no
 * balancing); --lockstep with it, as fast as the balancer waits: its shim
 * (IRQ_POLICIES_TIME_SCALE=0) asks for each wait ("0 w NS"), and the
 * answer comes once every second the wait reaches is played. The
 * balancer's clock starts at --start-at (0): runs that differ in it
 * differ in their scans' phase against the trace's seconds, as real-time
 * runs do by chance. --arrivals-seed makes each IRQ's count in a second
 * a Poisson draw around its rate (irq_sim.h), the same draws for every
 * policy given one seed.
 */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "irq_sim.h"
#include "irq_trace.h"

#define COUNT_WIDTH 14
#define STAT_WIDTH 20

struct driver {
	const char *tree;
	double sim_dt; /* 0: no real clock */
	bool lockstep; /* paced by the balancer's waits */
	uint64_t balancer_ns; /* lockstep: the balancer's clock, in simulated ns */
	int waiter; /* lockstep: the connection of the wait not yet over, or -1 */
	bool ready; /* "ready" said: the balancer may start */
	unsigned int warmup;
	struct irq_sim sim;
	struct irq_trace trace;
	char **names; /* per IRQ row: "PCI-MSIX-0000:10:00.0 3-edge eth0-q3" */
	int listen_fd;
	unsigned int second; /* simulated seconds done */
	/* figures after the warm-up */
	double *imbalance, *bound;
	unsigned int nr_seconds;
	unsigned long long moves, initial_moves, eio, enospc, einval;
	unsigned long long scans; /* reads of /proc/interrupts after the warm-up */
	double max_lag; /* simulated seconds a second began late, after the warm-up */
	unsigned int late_seconds; /* those begun a whole simulated second late */
	unsigned int hot_pair_seconds, hot_pair_run, longest_hot_pair;
	unsigned int hot_pair_cpu; /* of the run going on */
	unsigned long long interrupts, node_local, on_rt;
	char *text; /* scratch for the files */
	size_t text_size;
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static int fail(const char *fmt, const char *arg)
{
	fprintf(stderr, "irq-policies-driver: ");
	fprintf(stderr, fmt, arg);
	fputc('\n', stderr);
	return 1;
}

/* A bind mount stays on the inode: write over it, never rename. */
static int rewrite(const char *tree, const char *path, const char *text, size_t len)
{
	char full[4096];
	int fd, ret = 0;

	snprintf(full, sizeof(full), "%s/%s", tree, path);
	fd = open(full, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	if (pwrite(fd, text, len, 0) != (ssize_t)len || ftruncate(fd, (off_t)len))
		ret = -errno;
	close(fd);
	return ret;
}

static int write_affinity(struct driver *d, unsigned int row)
{
	const struct irq_sim_irq *irq = &d->sim.irqs[row];
	char path[64], mask[CPUSET_LIST_SIZE + 2];
	struct cpuset effective;
	size_t n;
	int ret;

	cpuset_clear(&effective);
	if (irq->cpu >= 0)
		cpuset_add(&effective, (unsigned int)irq->cpu);
	snprintf(path, sizeof(path), "proc/irq/%u/smp_affinity", irq->number);
	cpuset_format_mask(&irq->mask, d->sim.nr_cpus, mask, sizeof(mask) - 1);
	n = strlen(mask);
	mask[n++] = '\n';
	ret = rewrite(d->tree, path, mask, n);
	snprintf(path, sizeof(path), "proc/irq/%u/effective_affinity", irq->number);
	cpuset_format_mask(&effective, d->sim.nr_cpus, mask, sizeof(mask) - 1);
	n = strlen(mask);
	mask[n++] = '\n';
	ret = ret ? ret : rewrite(d->tree, path, mask, n);
	snprintf(path, sizeof(path), "proc/irq/%u/smp_affinity_list", irq->number);
	cpuset_format_list(&irq->mask, mask, sizeof(mask) - 1);
	n = strlen(mask);
	mask[n++] = '\n';
	ret = ret ? ret : rewrite(d->tree, path, mask, n);
	snprintf(path, sizeof(path), "proc/irq/%u/effective_affinity_list", irq->number);
	cpuset_format_list(&effective, mask, sizeof(mask) - 1);
	n = strlen(mask);
	mask[n++] = '\n';
	return ret ? ret : rewrite(d->tree, path, mask, n);
}

/* /proc/interrupts and /proc/stat, every field fixed-width so a reader sees old or new digits */
static int write_counts(struct driver *d)
{
	const struct irq_sim *sim = &d->sim;
	size_t need = (size_t)(sim->nr_irqs + 2) * (sim->nr_cpus * COUNT_WIDTH + 128) +
		      (size_t)(sim->nr_cpus + 2) * (10 * STAT_WIDTH + 16) + 4096;
	unsigned long long elapsed = (unsigned long long)d->second * 100, irq;
	unsigned int i, cpu;
	size_t n = 0;
	int ret;

	if (need > d->text_size) {
		free(d->text);
		d->text = malloc(need);
		if (!d->text)
			return -ENOMEM;
		d->text_size = need;
	}
	n += (size_t)sprintf(d->text + n, "%5s", "");
	for (cpu = 0; cpu < sim->nr_cpus; cpu++)
		n += (size_t)sprintf(d->text + n, " %*s%-*u", 3, "CPU", COUNT_WIDTH - 4, cpu);
	d->text[n++] = '\n';
	for (i = 0; i < sim->nr_irqs; i++) {
		n += (size_t)sprintf(d->text + n, "%4u:", sim->irqs[i].number);
		for (cpu = 0; cpu < sim->nr_cpus; cpu++)
			n += (size_t)sprintf(
				d->text + n, " %*llu", COUNT_WIDTH - 1,
				(unsigned long long)sim->counts[(size_t)i * sim->nr_cpus + cpu]);
		n += (size_t)sprintf(d->text + n, "  %s\n", d->names[i]);
	}
	ret = rewrite(d->tree, "proc/interrupts", d->text, n);
	if (ret)
		return ret;
	/* USER_HZ jiffies: all of a CPU's time is idle but for its interrupts */
	n = 0;
	for (cpu = 0; cpu <= sim->nr_cpus; cpu++) {
		unsigned long long idle;

		if (cpu == 0) {
			double all = 0;

			for (i = 0; i < sim->nr_cpus; i++)
				all += sim->cpu_irq_ns[i];
			irq = (unsigned long long)(all / 1e7);
			idle = elapsed * sim->nr_cpus > irq ? elapsed * sim->nr_cpus - irq : 0;
			n += (size_t)sprintf(d->text + n, "cpu  ");
		} else {
			irq = (unsigned long long)(sim->cpu_irq_ns[cpu - 1] / 1e7);
			idle = elapsed > irq ? elapsed - irq : 0;
			n += (size_t)sprintf(d->text + n, "cpu%-*u", 2, cpu - 1);
		}
		n += (size_t)sprintf(d->text + n, " %*u %*u %*u %*llu %*u %*llu %*u %*u %*u %*u\n",
				     STAT_WIDTH, 0, STAT_WIDTH, 0, STAT_WIDTH, 0, STAT_WIDTH, idle,
				     STAT_WIDTH, 0, STAT_WIDTH, irq, STAT_WIDTH, 0, STAT_WIDTH, 0,
				     STAT_WIDTH, 0, STAT_WIDTH, 0);
	}
	n += (size_t)sprintf(d->text + n, "intr 0\nctxt 0\nbtime 0\nprocesses 1\n"
					  "procs_running 1\nprocs_blocked 0\n"
					  "softirq 0 0 0 0 0 0 0 0 0 0 0\n");
	return rewrite(d->tree, "proc/stat", d->text, n);
}

/* DIR/machine: cpus N, vectors N, rt LIST, node N LIST, irq NUMBER NODE MANAGED MASK NAME... */
static int read_machine(struct driver *d)
{
	unsigned int nr_cpus = 0, nr_irqs = 0, vectors = 0, number, row = 0;
	char path[4096], line[1024], list[1024], name[512];
	struct cpuset set;
	int node, managed, end, ret = 0;
	FILE *file;

	snprintf(path, sizeof(path), "%s/machine", d->tree);
	file = fopen(path, "r");
	if (!file)
		return fail("cannot read the machine: %s", path);
	while (!ret && fgets(line, sizeof(line), file)) {
		if (sscanf(line, "cpus %u", &nr_cpus) == 1 ||
		    sscanf(line, "vectors %u", &vectors) == 1)
			continue;
		if (!strncmp(line, "irq ", 4))
			nr_irqs++;
	}
	if (!nr_cpus || !nr_irqs || !vectors || irq_sim_init(&d->sim, nr_cpus, nr_irqs, vectors)) {
		fclose(file);
		return fail("%s: no cpus, vectors or irqs", path);
	}
	d->names = calloc(nr_irqs, sizeof(*d->names));
	rewind(file);
	/* the CPUs' nodes and the RT CPUs first: the boot placement needs them */
	while (fgets(line, sizeof(line), file)) {
		if (sscanf(line, "rt %1023s", list) == 1 && !cpuset_parse_list(list, &set))
			d->sim.rt = set;
		if (sscanf(line, "node %d %1023s", &node, list) == 2 &&
		    !cpuset_parse_list(list, &set))
			for (int cpu = cpuset_next(&set, -1); cpu >= 0 && cpu < (int)nr_cpus;
			     cpu = cpuset_next(&set, cpu))
				d->sim.cpu_node[cpu] = node;
	}
	rewind(file);
	while (!ret && fgets(line, sizeof(line), file)) {
		if (strncmp(line, "irq ", 4))
			continue;
		line[strcspn(line, "\n")] = '\0';
		if (sscanf(line, "irq %u %d %d %1023s %n", &number, &node, &managed, list, &end) !=
			    4 ||
		    cpuset_parse_list(list, &set)) {
			ret = fail("bad machine line: %s", line);
			break;
		}
		snprintf(name, sizeof(name), "%s", line + end);
		d->names[row] = strdup(name);
		if (!d->names[row] || irq_sim_add(&d->sim, row, number, node, managed, &set))
			ret = fail("cannot place irq: %s", line);
		row++;
	}
	fclose(file);
	return ret;
}

static int listen_on(struct driver *d)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };

	snprintf(addr.sun_path, sizeof(addr.sun_path), "%s/kernel.sock", d->tree);
	unlink(addr.sun_path);
	d->listen_fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (d->listen_fd < 0 || bind(d->listen_fd, (struct sockaddr *)&addr, sizeof(addr)) ||
	    chmod(addr.sun_path, 0666) || listen(d->listen_fd, 64))
		return fail("cannot listen on %s", addr.sun_path);
	return 0;
}

/* One write of smp_affinity ("N m MASK") or smp_affinity_list ("N l LIST"). */
static int answer(struct driver *d, char *request)
{
	unsigned int number;
	char kind, text[CPUSET_LIST_SIZE];
	struct cpuset mask;
	int row, ret;

	if (sscanf(request, "%u %c %32767s", &number, &kind, text) != 3)
		return -EINVAL;
	if (kind == 'r') {
		if (d->second >= d->warmup)
			d->scans++;
		return 0;
	}
	row = irq_sim_find(&d->sim, number);
	if (row < 0)
		return -ENOENT;
	/*
	 * As the kernel's write_irq_affinity(): whether user space may set the
	 * IRQ is asked before the value is parsed, so a managed IRQ answers
	 * EIO to any text (latscope's probe writes "x" to tell it so).
	 */
	if (d->sim.irqs[row].managed) {
		d->eio++;
		return -EIO;
	}
	ret = kind == 'l' ? cpuset_parse_list(text, &mask) : cpuset_parse_mask(text, &mask);
	if (ret)
		return -EINVAL;
	ret = irq_sim_set_affinity(&d->sim, (unsigned int)row, &mask);
	if (ret == -EIO)
		d->eio++;
	else if (ret == -ENOSPC)
		d->enospc++;
	else if (ret)
		d->einval++;
	if (ret)
		return ret;
	if (d->second < d->warmup)
		d->initial_moves++;
	else
		d->moves++;
	return write_affinity(d, (unsigned int)row);
}

static void reply(int fd, int err)
{
	char text[16];

	snprintf(text, sizeof(text), "%d", err);
	if (send(fd, text, strlen(text), MSG_NOSIGNAL) < 0)
		perror("irq-policies-driver: reply");
	close(fd);
}

/* The balancer's wait is over: every second it reaches has been played. */
static void end_wait(struct driver *d)
{
	if (d->waiter >= 0)
		reply(d->waiter, 0);
	d->waiter = -1;
}

/* One request, waited for up to @timeout_ms; false when none came. */
static bool serve(struct driver *d, int timeout_ms)
{
	struct pollfd pfd = { .fd = d->listen_fd, .events = POLLIN };
	char request[CPUSET_LIST_SIZE + 64];
	unsigned long long wait_ns;
	ssize_t n;
	int fd;

	if (poll(&pfd, 1, timeout_ms) <= 0)
		return false;
	fd = accept4(d->listen_fd, NULL, NULL, SOCK_CLOEXEC);
	if (fd < 0)
		return false;
	n = recv(fd, request, sizeof(request) - 1, 0);
	if (n <= 0) {
		close(fd);
		return true;
	}
	request[n] = '\0';
	if (sscanf(request, "0 w %llu", &wait_ns) == 1) {
		/* answered once the seconds it reaches are played */
		end_wait(d);
		d->balancer_ns += wait_ns;
		d->waiter = fd;
		return true;
	}
	reply(fd, -answer(d, request));
	return true;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

#define HOT_PAIR_LOGGED 10 /* seconds */
#define LOCKSTEP_SILENCE_MS 60000 /* a balancer that never waits has stopped */

static void account(struct driver *d, const struct irq_sim_second *s)
{
	if (d->second < d->warmup)
		return;
	d->imbalance[d->nr_seconds] = s->imbalance;
	d->bound[d->nr_seconds] = s->bound;
	d->nr_seconds++;
	d->interrupts += s->interrupts;
	d->node_local += s->node_local;
	d->on_rt += s->on_rt;
	if (s->hot_pair) {
		d->hot_pair_seconds++;
		if (++d->hot_pair_run > d->longest_hot_pair)
			d->longest_hot_pair = d->hot_pair_run;
		d->hot_pair_cpu = s->hot_pair_cpu;
	} else {
		/* where the long ones were, to read beside the balancer's log */
		if (d->hot_pair_run >= HOT_PAIR_LOGGED)
			fprintf(stderr, "second %u: a hot pair on cpu %u for %u s\n",
				d->second - d->hot_pair_run, d->hot_pair_cpu, d->hot_pair_run);
		d->hot_pair_run = 0;
	}
}

/* The balancer starts once the files are there (in lockstep, at its first second). */
static void say_ready(struct driver *d)
{
	if (d->ready)
		return;
	printf("ready\n");
	fflush(stdout);
	d->ready = true;
}

static int run(struct driver *d)
{
	uint64_t start = now_ns();
	unsigned int next_event = 0;
	struct irq_sim_second s;
	int ret;

	for (d->second = 0; d->second < d->trace.seconds && !stop; d->second++) {
		uint64_t begin = start, due = start, now = start;

		/* lockstep: a second is played once the balancer's clock is in it */
		while (d->lockstep && !stop && d->balancer_ns < d->second * 1000000000ULL) {
			say_ready(d);
			end_wait(d);
			if (!serve(d, LOCKSTEP_SILENCE_MS)) {
				fprintf(stderr,
					"irq-policies-driver: no wait asked for %d s at second %u: "
					"the balancer stopped\n",
					LOCKSTEP_SILENCE_MS / 1000, d->second);
				return 1;
			}
		}
		if (d->sim_dt > 0) {
			begin = start + (uint64_t)((double)d->second * 1e9 / d->sim_dt);
			due = start + (uint64_t)((double)(d->second + 1) * 1e9 / d->sim_dt);
			now = now_ns();
		}
		if (now > begin && d->second >= d->warmup) {
			double lag = (double)(now - begin) * d->sim_dt / 1e9;

			if (lag > d->max_lag)
				d->max_lag = lag;
			if (lag >= 1)
				d->late_seconds++;
		}

		while (next_event < d->trace.nr_events &&
		       d->trace.events[next_event].second <= d->second) {
			const struct irq_trace_event *e = &d->trace.events[next_event++];

			d->sim.irqs[e->row].rate = e->rate;
			d->sim.irqs[e->row].cost_ns = e->cost_ns;
		}
		irq_sim_second(&d->sim, &s);
		account(d, &s);
		ret = write_counts(d);
		if (ret) {
			fprintf(stderr, "irq-policies-driver: cannot write the counts: %s\n",
				strerror(-ret));
			return 1;
		}
		/* the rest of this second's real time answers writes */
		for (uint64_t t = now_ns(); d->sim_dt > 0 && t < due && !stop; t = now_ns())
			serve(d, (int)((due - t + 999999) / 1000000));
	}
	end_wait(d);
	return stop ? 1 : 0;
}

static int compare_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static json_t *quantiles(double *values, unsigned int n)
{
	if (!n)
		return json_null();
	qsort(values, n, sizeof(*values), compare_double);
	/* p90: a window of the day holding its worst hours is judged there */
	return json_pack("{s:f, s:f, s:f, s:f}", "median", values[(n - 1) / 2], "p90",
			 values[(unsigned int)ceil(0.90 * n) - 1], "p99",
			 values[(unsigned int)ceil(0.99 * n) - 1], "max", values[n - 1]);
}

static int write_json(struct driver *d, const char *path)
{
	double hours = d->nr_seconds / 3600.0;
	json_t *doc;
	int ret;

	doc = json_pack(
		"{s:I, s:i, s:i, s:I, s:I, s:f, s:{s:I, s:I, s:I}, s:o, s:o, s:i, s:i, s:f, s:I, s:I,"
		" s:I, s:f, s:f, s:i}",
		"seed", (json_int_t)d->trace.seed, "seconds", d->nr_seconds, "warmup_seconds",
		d->warmup, "moves", (json_int_t)d->moves, "initial_moves",
		(json_int_t)d->initial_moves, "moves_per_hour", hours > 0 ? d->moves / hours : 0.0,
		"failed_writes", "EIO", (json_int_t)d->eio, "ENOSPC", (json_int_t)d->enospc,
		"EINVAL", (json_int_t)d->einval, "imbalance",
		quantiles(d->imbalance, d->nr_seconds), "bound", quantiles(d->bound, d->nr_seconds),
		"hot_pair_seconds", d->hot_pair_seconds, "longest_hot_pair_seconds",
		d->longest_hot_pair, "numa_local_fraction",
		d->interrupts ? (double)d->node_local / (double)d->interrupts : 0.0,
		"rt_cpu_interrupts", (json_int_t)d->on_rt, "interrupts", (json_int_t)d->interrupts,
		"scans", (json_int_t)d->scans, "scans_per_hour", hours > 0 ? d->scans / hours : 0.0,
		"max_lag_seconds", d->max_lag, "late_seconds", d->late_seconds);
	if (!doc)
		return 1;
	ret = json_dump_file(doc, path, JSON_INDENT(1));
	json_decref(doc);
	return ret ? fail("cannot write %s", path) : 0;
}

int main(int argc, char **argv)
{
	struct driver d = { .sim_dt = 10, .warmup = 300, .listen_fd = -1, .waiter = -1 };
	unsigned long start_at = 0, arrivals_seed = 0;
	bool random_arrivals = false;
	const char *trace_path = NULL, *json_path = NULL;
	bool check = false;
	char error[512];
	FILE *file;
	int status = 1, ret;

	for (int i = 1; i < argc; i++) {
		const char *value = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(argv[i], "--check") || !strcmp(argv[i], "--lockstep")) {
			check |= !strcmp(argv[i], "--check");
			d.lockstep |= !strcmp(argv[i], "--lockstep");
			continue;
		}
		if (!value)
			return fail("%s needs a value", argv[i]);
		if (!strcmp(argv[i], "--tree"))
			d.tree = value;
		else if (!strcmp(argv[i], "--trace"))
			trace_path = value;
		else if (!strcmp(argv[i], "--json"))
			json_path = value;
		else if (!strcmp(argv[i], "--sim-dt"))
			d.sim_dt = strtod(value, NULL);
		else if (!strcmp(argv[i], "--arrivals-seed")) {
			random_arrivals = true;
			arrivals_seed = strtoul(value, NULL, 10);
		} else if (!strcmp(argv[i], "--start-at"))
			start_at = strtoul(value, NULL, 10);
		else if (!strcmp(argv[i], "--warmup"))
			d.warmup = (unsigned int)strtoul(value, NULL, 10);
		else
			return fail("unknown option %s", argv[i]);
		i++;
	}
	if (!d.tree || !trace_path || !(d.sim_dt >= 0) || (d.lockstep && d.sim_dt > 0))
		return fail(
			"%s",
			"usage: irq-policies-driver --tree DIR --trace FILE [--sim-dt S] "
			"[--lockstep [--start-at SECOND]] [--arrivals-seed N] "
			"[--warmup SECONDS] [--json FILE] [--check] (--lockstep with --sim-dt 0)");
	d.balancer_ns = start_at * 1000000000ULL;
	if (read_machine(&d) || (random_arrivals && irq_sim_random_arrivals(&d.sim, arrivals_seed)))
		goto out;
	file = fopen(trace_path, "r");
	if (!file) {
		fail("cannot read the trace %s", trace_path);
		goto out;
	}
	ret = irq_trace_read(file, trace_path, &d.sim, &d.trace, error, sizeof(error));
	fclose(file);
	if (ret) {
		fprintf(stderr, "irq-policies: %s\n", ret == -ENOMEM ? "out of memory" : error);
		goto out;
	}
	if (check) {
		status = 0;
		goto out;
	}
	if (d.trace.seconds <= d.warmup) {
		fail("%s", "the trace is no longer than the warm-up");
		goto out;
	}
	d.imbalance = calloc(d.trace.seconds, sizeof(*d.imbalance));
	d.bound = calloc(d.trace.seconds, sizeof(*d.bound));
	if (!d.imbalance || !d.bound)
		goto out;
	for (unsigned int row = 0; row < d.sim.nr_irqs; row++)
		if (write_affinity(&d, row)) {
			fail("cannot write the affinities under %s", d.tree);
			goto out;
		}
	if (write_counts(&d) || listen_on(&d))
		goto out;
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	if (!d.lockstep)
		say_ready(&d);
	status = run(&d);
	if (!status && json_path)
		status = write_json(&d, json_path);
out:
	end_wait(&d);
	if (d.listen_fd >= 0)
		close(d.listen_fd);
	if (d.names)
		for (unsigned int row = 0; row < d.sim.nr_irqs; row++)
			free(d.names[row]);
	free(d.names);
	free(d.imbalance);
	free(d.bound);
	free(d.text);
	irq_trace_release(&d.trace);
	irq_sim_release(&d.sim);
	return status;
}
