// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * report-generate: large inputs for bench/report, in the shapes latscope
 * writes:
 *
 *   report-generate noise OUT.json    a 64-CPU noise --explain result of 60 s
 *                                     with 100,000 gaps per CPU listed with
 *                                     their times (gaps.records [t_ns, ns])
 *   report-generate monitor OUT.json  a monitor state of 8 CPUs over 35 days
 *                                     as lib/monitor/monitor_state.c writes it:
 *                                     5-minute windows as columns, histograms,
 *                                     causes, the 20 worst spikes, block maxima
 *
 * The numbers follow a made-up but plausible machine (a 20 us tick every
 * 4 ms, a 150 us housekeeping burst every second, rare millisecond spikes)
 * from a fixed seed, so every run writes the same files.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "latscope/hist.h"
#include "latscope/textbuf.h"

#define NOISE_CPUS 64
#define NOISE_GAPS 100000
#define NOISE_RUN_NS 60000000000ULL
#define MONITOR_CPUS 8
#define MONITOR_DAYS 35
#define WINDOW_NS 300000000000ULL

static uint64_t next_random(uint64_t *state)
{
	*state ^= *state << 13;
	*state ^= *state >> 7;
	*state ^= *state << 17;
	return *state;
}

/* uniform in [0, 1) */
static double uniform(uint64_t *state)
{
	return (double)(next_random(state) >> 11) / 9007199254740992.0;
}

static void host(struct textbuf *b, const char *isolated)
{
	textbuf_printf(
		b,
		"\"host\": {\"uname\": {\"sysname\": \"Linux\", \"nodename\": \"rt-bench\","
		" \"release\": \"6.12.0-rt-amd64\", \"version\": \"#1 SMP PREEMPT_RT\","
		" \"machine\": \"x86_64\"}, \"cpu_model\": \"Generated CPU @ 3.0GHz\","
		" \"virtualization\": \"none\", \"kernel_cmdline\": \"isolcpus=%s nohz_full=%s\","
		" \"online_cpus\": \"0-63\", \"isolated_cpus\": \"%s\", \"nohz_full_cpus\": \"%s\","
		" \"housekeeping_cpus\": \"0-1\", \"numa_nodes\": 2, \"clocksource\": \"tsc\"},\n",
		isolated, isolated, isolated, isolated);
}

/* a body of short values and a tail falling by a decade per decade */
static void histogram(struct textbuf *b, struct hist *h, uint64_t *state, uint64_t body_ns,
		      uint64_t samples, uint64_t max_ns)
{
	unsigned int i;
	bool first = true;

	hist_init(h);
	for (i = 0; i < HIST_BUCKETS; i++) {
		double low = (double)hist_bucket_low(i), width;
		double share;
		uint64_t count;

		if (low < (double)body_ns / 2 || low > (double)max_ns)
			continue;
		width = (double)(hist_bucket_high(i) - hist_bucket_low(i) + 1);
		/* a log-normal-like body and a power-law tail */
		if (low < 2.0 * (double)body_ns)
			share = exp(-pow(log(low / (double)body_ns), 2) * 8) * width /
				(double)body_ns;
		else
			share = 1e-4 * pow((double)body_ns / low, 2.2) * width / low;
		count = (uint64_t)(share * (double)samples * (0.8 + 0.4 * uniform(state)));
		if (!count)
			continue;
		h->buckets[i] += count;
		h->count += count;
		textbuf_printf(b, "%s[%llu, %llu, %llu]", first ? "" : ", ",
			       (unsigned long long)hist_bucket_low(i),
			       (unsigned long long)hist_bucket_high(i), (unsigned long long)count);
		first = false;
	}
	/* the max itself */
	i = hist_bucket_of(max_ns);
	h->buckets[i]++;
	h->count++;
	textbuf_printf(b, "%s[%llu, %llu, 1]", first ? "" : ", ",
		       (unsigned long long)hist_bucket_low(i),
		       (unsigned long long)hist_bucket_high(i));
	h->min = body_ns / 2;
	h->max = max_ns;
}

static void percentiles(struct textbuf *b, const struct hist *h)
{
	textbuf_printf(
		b,
		"\"percentiles\": {\"p50\": %llu, \"p90\": %llu, \"p99\": %llu, \"p99.9\": %llu,"
		" \"p99.99\": %llu, \"p99.999\": %llu}",
		(unsigned long long)hist_percentile(h, 50),
		(unsigned long long)hist_percentile(h, 90),
		(unsigned long long)hist_percentile(h, 99),
		(unsigned long long)hist_percentile(h, 99.9),
		(unsigned long long)hist_percentile(h, 99.99),
		(unsigned long long)hist_percentile(h, 99.999));
}

static const struct {
	const char *kind;
	const char *label;
} causes[] = {
	{ "vector", "local_timer" },	 { "unexplained", "unexplained (firmware, hypervisor)" },
	{ "softirq", "RCU softirq" },	 { "thread", "kworker/3:1" },
	{ "irq", "irq 36 nvme0q3" },	 { "softirq", "TIMER softirq" },
	{ "thread", "ksoftirqd/3" },	 { "vector", "IRQ work" },
	{ "irq", "irq 52 eth0-TxRx-3" }, { "scheduling", "scheduling (switch-in)" },
};

static void explain(struct textbuf *b, uint64_t *state, unsigned int nr_worst, bool timer)
{
	unsigned int i, j;
	uint64_t total = 0;

	textbuf_puts(b, ", \"causes\": [");
	for (i = 0; i < sizeof(causes) / sizeof(causes[0]); i++) {
		uint64_t ns = (uint64_t)(5e7 / (i + 1) * (0.5 + uniform(state)));

		total += ns;
		textbuf_printf(
			b,
			"%s{\"kind\": \"%s\", \"name\": \"%s\", \"label\": \"%s\", \"spikes\": %u,"
			" \"total_ns\": %llu, \"max_ns\": %llu, \"share\": 0.1, \"periodic\": %s}",
			i ? ", " : "", causes[i].kind, causes[i].label, causes[i].label,
			1000 / (i + 1), (unsigned long long)ns, (unsigned long long)(ns / (50 + i)),
			i == 0 ? "{\"period_ns\": 4000000, \"duration_ns\": 21000, "
				 "\"jitter_ns\": 800, \"seen\": 14990, \"expected\": 15000}" :
				 "null");
	}
	textbuf_puts(b, "], \"worst_spikes\": [");
	for (i = 0; i < nr_worst; i++) {
		uint64_t duration = 2000000 - i * 50000, offset = 0;

		textbuf_printf(b,
			       "%s{\"t_ns\": %llu, \"start_ns\": %llu, \"duration_ns\": %llu, "
			       "\"incomplete\": false, \"contributions\": [",
			       i ? ", " : "", (unsigned long long)(i * 997000000ULL + 12345),
			       (unsigned long long)(i * 997000000ULL + 12345),
			       (unsigned long long)duration);
		for (j = 0; j < 4; j++)
			textbuf_printf(b, "%s{\"kind\": \"%s\", \"label\": \"%s\", \"ns\": %llu}",
				       j ? ", " : "", timer && !j ? "timer_delay" : causes[j].kind,
				       timer && !j ? "timer irq delay" : causes[j].label,
				       (unsigned long long)(duration >> (j + 1)));
		textbuf_puts(b, "], \"timeline\": [");
		for (j = 0; j < 4; j++) {
			uint64_t part = duration >> (j + 1);

			textbuf_printf(
				b,
				"%s{\"offset_ns\": %llu, \"duration_ns\": %llu, \"label\": \"%s\"}",
				j ? ", " : "", (unsigned long long)offset, (unsigned long long)part,
				timer && !j ? "timer irq delay" : causes[j].label);
			offset += part;
		}
		textbuf_puts(b, "]}");
	}
	textbuf_printf(b,
		       "], \"explained_spikes\": {\"count\": 100000, \"total_ns\": %llu, "
		       "\"incomplete\": 0, \"events\": 400000}, \"lost_events\": 0",
		       (unsigned long long)total);
}

static void noise_cpu(struct textbuf *b, unsigned int cpu, uint64_t *state)
{
	uint64_t t = 0, loops = 3000000000ULL, max_ns = 1500000 + cpu * 10000, lost = 0;
	unsigned int i;
	struct hist h;

	textbuf_printf(b, "%s{\"cpu\": %u, \"loops\": %llu, \"run_ns\": %llu, ", cpu ? ",\n" : "",
		       cpu, (unsigned long long)loops, (unsigned long long)NOISE_RUN_NS);
	textbuf_puts(b, "\"histogram\": {\"unit\": \"ns\", \"buckets\": [");
	histogram(b, &h, state, 20, loops, max_ns);
	textbuf_printf(b,
		       "], \"overflow\": 0, \"overflow_above_ns\": 10000000000}, "
		       "\"min_ns\": 10, \"avg_ns\": 21, \"max_ns\": %llu, ",
		       (unsigned long long)max_ns);
	percentiles(b, &h);
	textbuf_puts(b, ", \"gaps\": {\"threshold_ns\": 1000, \"count\": 100000, \"not_stored\": 0,"
			" \"records\": [");
	/* 15,000 ticks of 20 us every 4 ms, 60 bursts every second, the rest random */
	for (i = 0; i < NOISE_GAPS; i++) {
		uint64_t ns;

		t += NOISE_RUN_NS / NOISE_GAPS / 2 +
		     next_random(state) % (NOISE_RUN_NS / NOISE_GAPS);
		if (i % 7 == 0)
			ns = 20000 + next_random(state) % 1500;
		else if (i % 1667 == 0)
			ns = 150000 + next_random(state) % 20000;
		else if (i % 25000 == 3)
			ns = max_ns - next_random(state) % 400000;
		else
			ns = (uint64_t)(1000 * pow(10, 1.2 * uniform(state)));
		lost += ns;
		textbuf_printf(b, "%s[%llu, %llu]", i ? ", " : "", (unsigned long long)t,
			       (unsigned long long)ns);
	}
	textbuf_printf(b,
		       "], \"lost_ns\": %llu}, \"steal_ns\": 0, \"periodic\": ["
		       "{\"period_ns\": 4000000, \"phase_ns\": 1200000, \"duration_ns\": 20700,"
		       " \"max_duration_ns\": 21500, \"jitter_ns\": 900, \"seen\": 14950,"
		       " \"expected\": 15000}, {\"period_ns\": 1000000000, \"phase_ns\": 300000000,"
		       " \"duration_ns\": 158000, \"max_duration_ns\": 170000, \"jitter_ns\": 5000,"
		       " \"seen\": 60, \"expected\": 60}]",
		       (unsigned long long)lost);
	explain(b, state, 5, false);
	textbuf_puts(b, ", \"block_maxima\": {\"block_ns\": 1000000000, \"max_ns\": [");
	for (i = 0; i < 60; i++)
		textbuf_printf(b, "%s%llu", i ? ", " : "",
			       (unsigned long long)(150000 + next_random(state) % 500000));
	textbuf_puts(b, "]}}");
}

static void noise(struct textbuf *b)
{
	uint64_t state = 0x9e3779b97f4a7c15ULL;
	unsigned int cpu;

	textbuf_puts(
		b,
		"{\"schema\": \"latscope/2\", \"command\": \"noise\", \"version\": \"0.1.0\","
		" \"command_line\": [\"latscope\", \"noise\", \"--cpus\", \"0-63\", \"--duration\","
		" \"60s\", \"--explain\", \"--json\", \"noise-64cpu.json\"],"
		" \"start_time\": \"2026-11-30T10:00:00.000Z\", \"end_time\": "
		"\"2026-11-30T10:01:00.412Z\",\n");
	host(b, "2-63");
	textbuf_puts(b, "\"params\": {\"cpus\": \"0-63\", \"duration_ns\": 60000000000, "
			"\"threshold_ns\": 1000, \"policy\": \"other\", \"priority\": 0},"
			" \"end\": \"complete\", \"cpus\": [\n");
	for (cpu = 0; cpu < NOISE_CPUS; cpu++)
		noise_cpu(b, cpu, &state);
	textbuf_puts(b, "]}\n");
}

/* causes and the worst spikes as the monitor's state keeps them, under "explain" */
static void monitor_explain(struct textbuf *b, uint64_t *state, uint64_t start_ns)
{
	unsigned int i, j;

	textbuf_puts(b, ", \"explain\": {\"lost_events\": 0, \"spikes_missed\": 0, \"causes\": [");
	for (i = 0; i < sizeof(causes) / sizeof(causes[0]); i++)
		textbuf_printf(
			b, "%s{\"kind\": \"%s\", \"cause\": \"%s\", \"spikes\": %u, \"ns\": %llu}",
			i ? ", " : "", causes[i].kind, causes[i].label, 5000 / (i + 1),
			(unsigned long long)(4e8 / (i + 1) * (0.5 + uniform(state))));
	textbuf_puts(b, "], \"worst_spikes\": [");
	for (i = 0; i < 20; i++) {
		uint64_t latency = 95000 - i * 2000,
			 t = start_ns + (i * 150001ULL + 7) * 1000000000ULL;

		textbuf_printf(b,
			       "%s{\"time_ns\": %llu, \"latency_ns\": %llu, \"incomplete\": false,"
			       " \"parts\": [",
			       i ? ", " : "", (unsigned long long)t, (unsigned long long)latency);
		for (j = 0; j < 4; j++)
			textbuf_printf(b, "%s{\"kind\": \"%s\", \"cause\": \"%s\", \"ns\": %llu}",
				       j ? ", " : "", j ? causes[j].kind : "timer_delay",
				       j ? causes[j].label : "timer irq delay",
				       (unsigned long long)(latency >> (j + 1)));
		textbuf_printf(b, "], \"rest_ns\": %llu}", (unsigned long long)(latency >> 4));
	}
	textbuf_puts(b, "]}");
}

/* a column of the windows: one number per window */
static void column(struct textbuf *b, const char *name, const uint64_t *values, uint64_t n)
{
	uint64_t i;

	textbuf_printf(b, ", \"%s\": [", name);
	for (i = 0; i < n; i++)
		textbuf_printf(b, "%s%llu", i ? ", " : "", (unsigned long long)values[i]);
	textbuf_puts(b, "]");
}

/*
 * A CPU as the monitor's state writes it: the windows as columns, window i
 * spanning [index, index + 1) * window_ns on the wall clock.
 */
static void monitor_cpu(struct textbuf *b, unsigned int index, uint64_t *state)
{
	uint64_t windows = MONITOR_DAYS * 86400ULL * 1000000000ULL / WINDOW_NS, w;
	uint64_t start = 1793491200ULL * 1000000000ULL; /* 2026-11-01 00:00 UTC */
	uint64_t samples = windows * 300000, max_ns = 95000 + index * 3000;
	uint64_t *cols = calloc(6 * windows, sizeof(*cols));
	uint64_t *idx = cols, *count = cols + windows, *max = cols + 2 * windows;
	uint64_t *p99 = cols + 3 * windows, *missed = cols + 4 * windows;
	uint64_t *partial = cols + 5 * windows;
	struct hist h;

	if (!cols)
		abort();
	for (w = 0; w < windows; w++) {
		/* a daily pattern, a weekly job and a few bad windows */
		double hour = fmod((double)w * 5 / 60, 24);

		idx[w] = start / WINDOW_NS + w;
		count[w] = 300000;
		max[w] = (uint64_t)(9000 + 3000 * sin(hour / 24 * 2 * M_PI) +
				    (double)(next_random(state) % 4000));
		if (w % 2016 == 1000)
			max[w] = 40000 + next_random(state) % 20000;
		if (w == 5000 + index * 700) {
			max[w] = max_ns;
			missed[w] = 3;
		}
		p99[w] = 4000 + max[w] / 10;
	}
	textbuf_printf(b,
		       "%s{\"cpu\": %u, \"count\": %llu, \"sum_ns\": %llu, \"max_ns\": %llu,"
		       " \"missed\": 3, ",
		       index ? ",\n" : "", index + 2, (unsigned long long)samples,
		       (unsigned long long)(samples * 2610), (unsigned long long)max_ns);
	textbuf_puts(b, "\"histogram\": {\"unit\": \"ns\", \"buckets\": [");
	histogram(b, &h, state, 2500, samples, max_ns);
	textbuf_puts(b, "], \"overflow\": 0, \"overflow_above_ns\": 10000000000}, ");
	percentiles(b, &h);
	textbuf_printf(b, ", \"windows\": {\"window_ns\": %llu", (unsigned long long)WINDOW_NS);
	column(b, "index", idx, windows);
	column(b, "count", count, windows);
	column(b, "max_ns", max, windows);
	column(b, "p99_ns", p99, windows);
	column(b, "missed", missed, windows);
	column(b, "partial", partial, windows);
	textbuf_printf(b, "}, \"block_maxima\": {\"block_ns\": %llu",
		       (unsigned long long)WINDOW_NS);
	column(b, "max_ns", max, windows);
	textbuf_puts(b, "}");
	monitor_explain(b, state, start);
	textbuf_puts(b, "}");
	free(cols);
}

static void monitor(struct textbuf *b)
{
	uint64_t state = 0x2545f4914f6cdd1dULL;
	unsigned int i;

	textbuf_puts(
		b,
		"{\"schema\": \"latscope/1\", \"command\": \"monitor\", \"version\": \"0.1.0\","
		" \"command_line\": [\"latscope\", \"monitor\", \"--cpus\", \"2-9\", \"--explain\"],"
		" \"start_time\": \"2026-11-01T00:00:00.000Z\", \"end_time\": "
		"\"2026-12-06T00:00:00.000Z\",\n");
	host(b, "2-9");
	textbuf_puts(b, "\"params\": {\"cpus\": \"2-9\", \"interval_ns\": 1000000, "
			"\"window_ns\": 300000000000}, \"window_ns\": 300000000000, \"cpus\": [\n");
	for (i = 0; i < MONITOR_CPUS; i++)
		monitor_cpu(b, i, &state);
	textbuf_puts(b, "]}\n");
}

int main(int argc, char **argv)
{
	struct textbuf b;
	int ret;

	if (argc != 3 || (strcmp(argv[1], "noise") && strcmp(argv[1], "monitor"))) {
		fprintf(stderr, "usage: report-generate noise|monitor OUT.json\n");
		return 129;
	}
	textbuf_init(&b);
	if (!strcmp(argv[1], "noise"))
		noise(&b);
	else
		monitor(&b);
	ret = textbuf_write_file(&b, argv[2]);
	textbuf_release(&b);
	if (ret) {
		fprintf(stderr, "report-generate: %s: cannot write\n", argv[2]);
		return 1;
	}
	return 0;
}
