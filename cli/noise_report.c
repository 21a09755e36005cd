// SPDX-License-Identifier: GPL-2.0-or-later
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "noise_report.h"

#define LABEL_WIDTH 20
#define COLUMN_WIDTH 14

static const char *policy_label(const struct noise_run *run, char *buf, size_t size)
{
	if (rt_policy_is_realtime(run->params.policy))
		snprintf(buf, size, "SCHED_%s priority %d",
			 run->params.policy == RT_POLICY_FIFO ? "FIFO" : "RR",
			 run->params.priority);
	else
		snprintf(buf, size, "SCHED_OTHER");
	return buf;
}

void noise_report_header(FILE *out, const struct noise_run *run)
{
	char cpus[128], duration[32], threshold[32], policy[64];

	fprintf(out, "latscope noise: cpus %s for %s, gaps >= %s, %s, clock %s",
		cpuset_format_list(&run->params.cpus, cpus, sizeof(cpus)),
		format_duration(run->params.duration_ns, duration, sizeof(duration)),
		format_duration(run->params.threshold_ns, threshold, sizeof(threshold)),
		policy_label(run, policy, sizeof(policy)),
		run->clock.use_tsc ? "tsc" : "monotonic_raw");
	if (run->clock.use_tsc)
		fprintf(out, " (%.3f GHz)", run->clock.cycles_per_ns);
	fputc('\n', out);
	fflush(out);
}

void noise_report_live(FILE *out, const struct noise_run *run, bool first)
{
	unsigned int i;

	if (!first)
		fprintf(out, "\033[%uA", run->nr_cpus);
	for (i = 0; i < run->nr_cpus; i++) {
		const struct noise_cpu *c = &run->cpus[i];
		struct noise_live live;
		char max[32], lost[32];

		noise_read_live(c, &live);
		fprintf(out, "\033[2Kcpu %3u: %12llu reads  max %12s us  %8llu gaps  lost %s\n",
			c->cpu, (unsigned long long)live.loops,
			format_us(live.max_ns, max, sizeof(max)), (unsigned long long)live.gaps,
			format_duration(live.lost_ns, lost, sizeof(lost)));
	}
	fflush(out);
}

void noise_report_live_clear(FILE *out, const struct noise_run *run)
{
	unsigned int i;

	fprintf(out, "\033[%uA", run->nr_cpus);
	for (i = 0; i < run->nr_cpus; i++)
		fprintf(out, "\033[2K\n");
	fprintf(out, "\033[%uA", run->nr_cpus);
}

typedef void (*cell_fn)(const struct noise_run *run, const struct noise_cpu *c, char *buf,
			size_t size, const void *arg);

static void row(FILE *out, const struct noise_run *run, const char *label, cell_fn cell,
		const void *arg)
{
	unsigned int i;
	char buf[64];

	fprintf(out, "  %-*s", LABEL_WIDTH, label);
	for (i = 0; i < run->nr_cpus; i++) {
		cell(run, &run->cpus[i], buf, sizeof(buf), arg);
		fprintf(out, "%*s", COLUMN_WIDTH, buf);
	}
	fputc('\n', out);
}

static void cell_min(const struct noise_run *run, const struct noise_cpu *c, char *buf, size_t size,
		     const void *arg)
{
	(void)run, (void)arg;
	format_us(c->hist->count ? c->hist->min : 0, buf, size);
}

static void cell_avg(const struct noise_run *run, const struct noise_cpu *c, char *buf, size_t size,
		     const void *arg)
{
	(void)run, (void)arg;
	format_us((uint64_t)(hist_mean(c->hist) + 0.5), buf, size);
}

static void cell_max(const struct noise_run *run, const struct noise_cpu *c, char *buf, size_t size,
		     const void *arg)
{
	(void)run, (void)arg;
	format_us(c->hist->max, buf, size);
}

static void cell_count(const struct noise_run *run, const struct noise_cpu *c, char *buf,
		       size_t size, const void *arg)
{
	(void)run, (void)arg;
	snprintf(buf, size, "%llu", (unsigned long long)c->hist->count);
}

static void cell_time(const struct noise_run *run, const struct noise_cpu *c, char *buf,
		      size_t size, const void *arg)
{
	(void)arg;
	snprintf(buf, size, "%.3f", (double)noise_cpu_run_ns(run, c) / 1e9);
}

static void cell_percentile(const struct noise_run *run, const struct noise_cpu *c, char *buf,
			    size_t size, const void *arg)
{
	(void)run;
	format_us(hist_percentile(c->hist, *(const double *)arg), buf, size);
}

static void cell_gaps(const struct noise_run *run, const struct noise_cpu *c, char *buf,
		      size_t size, const void *arg)
{
	(void)run, (void)arg;
	snprintf(buf, size, "%llu", (unsigned long long)c->gap_count);
}

static void cell_not_stored(const struct noise_run *run, const struct noise_cpu *c, char *buf,
			    size_t size, const void *arg)
{
	(void)run, (void)arg;
	snprintf(buf, size, "%llu", (unsigned long long)c->gaps_not_stored);
}

static void cell_lost(const struct noise_run *run, const struct noise_cpu *c, char *buf,
		      size_t size, const void *arg)
{
	(void)run, (void)arg;
	snprintf(buf, size, "%.3f", (double)c->lost_ns / 1e6);
}

static void cell_lost_share(const struct noise_run *run, const struct noise_cpu *c, char *buf,
			    size_t size, const void *arg)
{
	uint64_t span = noise_cpu_run_ns(run, c);

	(void)arg;
	snprintf(buf, size, "%.4f", span ? 100.0 * (double)c->lost_ns / (double)span : 0.0);
}

static void cell_steal(const struct noise_run *run, const struct noise_cpu *c, char *buf,
		       size_t size, const void *arg)
{
	(void)run, (void)arg;
	snprintf(buf, size, "%.3f", (double)c->steal_ns / 1e6);
}

static void cell_throttled(const struct noise_run *run, const struct noise_cpu *c, char *buf,
			   size_t size, const void *arg)
{
	(void)run, (void)arg;
	snprintf(buf, size, "%llu / %.1f", (unsigned long long)c->throttled_count,
		 (double)c->throttled_ns / 1e6);
}

static void print_table(FILE *out, const struct noise_run *run)
{
	char label[64], threshold[32];
	unsigned int i;
	size_t p;

	fprintf(out, "  %-*s", LABEL_WIDTH, "");
	for (i = 0; i < run->nr_cpus; i++) {
		char head[32];

		snprintf(head, sizeof(head), "cpu %u", run->cpus[i].cpu);
		fprintf(out, "%*s", COLUMN_WIDTH, head);
	}
	fputc('\n', out);
	row(out, run, "Min (us):", cell_min, NULL);
	row(out, run, "Avg (us):", cell_avg, NULL);
	row(out, run, "Max (us):", cell_max, NULL);
	row(out, run, "Count:", cell_count, NULL);
	row(out, run, "Test time (s):", cell_time, NULL);
	for (p = 0; p < HIST_NR_REPORTED; p++) {
		snprintf(label, sizeof(label), "p%g (us):", hist_reported_percentiles[p]);
		row(out, run, label, cell_percentile, &hist_reported_percentiles[p]);
	}
	snprintf(label, sizeof(label), "Gaps >= %s:",
		 format_duration(run->params.threshold_ns, threshold, sizeof(threshold)));
	row(out, run, label, cell_gaps, NULL);
	row(out, run, "  not stored:", cell_not_stored, NULL);
	row(out, run, "Lost (ms):", cell_lost, NULL);
	row(out, run, "Lost (%):", cell_lost_share, NULL);
	row(out, run, "Steal (ms):", cell_steal, NULL);
	if (rt_policy_is_realtime(run->params.policy))
		row(out, run, "Throttled (n / ms):", cell_throttled, NULL);
}

/*
 * Where a nested train's gaps are: ", in the 1.000 ms source's gaps", and
 * that source's phase when trains of its period run at several phases; ""
 * for a free train.
 */
static const char *in_outer_gaps(const struct noise_cpu *c, const struct period_source *p,
				 char *buf, size_t size)
{
	size_t group[PERIOD_MAX_SOURCES], k, siblings = 0;
	char period[32], phase[32];
	const struct period_source *outer;

	*buf = '\0';
	if (p->nested_in >= c->nr_periodic)
		return buf;
	outer = &c->periodic[p->nested_in];
	period_phase_groups(c->periodic, (size_t)c->nr_periodic, group);
	for (k = 0; k < (size_t)c->nr_periodic; k++)
		siblings += group[k] == group[p->nested_in];
	format_duration(outer->period_ns, period, sizeof(period));
	if (siblings > 1)
		snprintf(buf, size, ", in the %s source's gaps at +%s", period,
			 format_duration(outer->phase_ns, phase, sizeof(phase)));
	else
		snprintf(buf, size, ", in the %s source's gaps", period);
	return buf;
}

/* " more" when a train's duration is what it adds to another's gaps. */
static const char *more(const struct period_source *p)
{
	return p->nested_in != PERIOD_UNASSIGNED ? " more" : "";
}

/*
 * "2320 of 2500", and the slots a faster source's gap hid: "1494 of 2500,
 * 826 hidden in faster gaps".
 */
static const char *seen_of(const struct period_source *p, char *buf, size_t size)
{
	int n = snprintf(buf, size, "%llu of %llu", (unsigned long long)p->seen,
			 (unsigned long long)p->expected);

	if (p->hidden && n > 0 && (size_t)n < size)
		snprintf(buf + n, size - (size_t)n, ", %llu hidden in faster gaps",
			 (unsigned long long)p->hidden);
	return buf;
}

/*
 * "42.9 us every 4.000 ms (2496 of 2500), jitter 1.5 us, max 4.621 ms"; a
 * source nested in a faster one: "28.1 us more every 4.000 ms, in the
 * 1.000 ms source's gaps (748 of 750), ..." (its gaps hold that one's).
 */
static void print_source(FILE *out, const struct noise_cpu *c, const struct period_source *p,
			 const char *causes)
{
	char duration[32], period[32], jitter[32], max[32], outer[96], seen[96];

	fprintf(out, "  %s%s every %s%s (%s), jitter %s, max %s%s%s\n",
		format_duration(p->duration_ns, duration, sizeof(duration)), more(p),
		format_duration(p->period_ns, period, sizeof(period)),
		in_outer_gaps(c, p, outer, sizeof(outer)), seen_of(p, seen, sizeof(seen)),
		format_duration(p->jitter_ns, jitter, sizeof(jitter)),
		format_duration(p->max_duration_ns, max, sizeof(max)), *causes ? ": " : "", causes);
}

/*
 * Trains of one period and one nesting at distinct phases: one line when
 * the same causes make them ("~41.3 us every 60.000 ms, 2 phases (124 + 119
 * of 167)"), else one line each under a heading saying they are distinct
 * trains and why.
 */
static void print_phases(FILE *out, const struct noise_cpu *c, unsigned int lane,
			 const struct noise_explain *x, const size_t *group, size_t first)
{
	char duration[32], period[32], jitter[32], max[32], phase[32], counts[128], causes[512];
	char outer[96], seen_text[96];
	const struct period_source *head = &c->periodic[first];
	uint64_t seen = 0, expected = 0, jitter_ns = 0, max_ns = 0;
	double weighted = 0;
	unsigned int phases = 0;
	bool same = true;
	size_t k, used = 0;

	for (k = first; k < (size_t)c->nr_periodic; k++) {
		const struct period_source *p = &c->periodic[k];

		if (group[k] != first)
			continue;
		same &= noise_explain_same_causes(x, lane, (unsigned int)first, (unsigned int)k);
		used += (size_t)snprintf(
			counts + used, used < sizeof(counts) ? sizeof(counts) - used : 0, "%s%llu",
			phases ? " + " : "", (unsigned long long)p->seen);
		weighted += (double)p->duration_ns * (double)p->seen;
		seen += p->seen;
		expected = p->expected > expected ? p->expected : expected;
		jitter_ns = p->jitter_ns > jitter_ns ? p->jitter_ns : jitter_ns;
		max_ns = p->max_duration_ns > max_ns ? p->max_duration_ns : max_ns;
		phases++;
	}
	format_duration(head->period_ns, period, sizeof(period));
	in_outer_gaps(c, head, outer, sizeof(outer));
	if (same) {
		noise_explain_source_causes(x, lane, (unsigned int)first, causes, sizeof(causes));
		fprintf(out, "  ~%s%s every %s, %u phases%s (%s of %llu), jitter %s, max %s%s%s\n",
			format_duration(seen ? (uint64_t)(weighted / (double)seen) : 0, duration,
					sizeof(duration)),
			more(head), period, phases, outer, counts, (unsigned long long)expected,
			format_duration(jitter_ns, jitter, sizeof(jitter)),
			format_duration(max_ns, max, sizeof(max)), *causes ? ": " : "", causes);
		return;
	}
	fprintf(out,
		"  %u distinct trains every %s%s, at different phases and with different causes:\n",
		phases, period, outer);
	for (k = first; k < (size_t)c->nr_periodic; k++) {
		const struct period_source *p = &c->periodic[k];

		if (group[k] != first)
			continue;
		noise_explain_source_causes(x, lane, (unsigned int)k, causes, sizeof(causes));
		fprintf(out, "    %s%s at +%s (%s), jitter %s, max %s: %s\n",
			format_duration(p->duration_ns, duration, sizeof(duration)), more(p),
			format_duration(p->phase_ns, phase, sizeof(phase)),
			seen_of(p, seen_text, sizeof(seen_text)),
			format_duration(p->jitter_ns, jitter, sizeof(jitter)),
			format_duration(p->max_duration_ns, max, sizeof(max)), causes);
	}
}

static void print_periodic(FILE *out, const struct noise_run *run, const struct noise_explain *x)
{
	size_t group[PERIOD_MAX_SOURCES], s, k, members;
	char causes[512];
	unsigned int i;

	for (i = 0; i < run->nr_cpus; i++) {
		const struct noise_cpu *c = &run->cpus[i];

		if (!c->nr_periodic) {
			fprintf(out, "cpu %u: no periodic source among %zu gaps\n", c->cpu,
				c->nr_gaps);
			continue;
		}
		fprintf(out, "cpu %u: periodic sources\n", c->cpu);
		period_phase_groups(c->periodic, (size_t)c->nr_periodic, group);
		for (s = 0; s < (size_t)c->nr_periodic; s++) {
			if (group[s] != s)
				continue;
			for (k = s, members = 0; k < (size_t)c->nr_periodic; k++)
				members += group[k] == s;
			if (members > 1) {
				print_phases(out, c, i, x, group, s);
				continue;
			}
			print_source(out, c, &c->periodic[s],
				     noise_explain_source_causes(x, i, (unsigned int)s, causes,
								 sizeof(causes)));
		}
	}
}

/* Why gaps were counted but not stored: only two things can cause it. */
static void print_not_stored(FILE *out, const struct noise_run *run, const struct noise_cpu *c)
{
	char when[32];

	if (c->gaps_outran)
		fprintf(out,
			"cpu %u: %llu gaps not stored: the measuring thread outran the main "
			"thread's drain (its ring of %zu gaps was full); the periodicity search "
			"and --explain miss them.\n",
			c->cpu, (unsigned long long)c->gaps_outran, record_ring_capacity(&c->ring));
	if (c->gaps_over_cap && c->nr_gaps < run->params.max_gaps)
		fprintf(out,
			"cpu %u: %llu gaps not stored: memory ran out after %zu; the periodicity "
			"search and --explain saw the gaps before.\n",
			c->cpu, (unsigned long long)c->gaps_over_cap, c->nr_gaps);
	else if (c->gaps_over_cap)
		fprintf(out,
			"cpu %u: %llu gaps not stored: --max-gaps %zu was reached at %s; the "
			"periodicity search and --explain saw the gaps before it. Raise "
			"--max-gaps (16 bytes a gap) to keep every gap.\n",
			c->cpu, (unsigned long long)c->gaps_over_cap, run->params.max_gaps,
			format_duration(
				c->cap_stamp > c->first_stamp ?
					tsc_delta_ns(&run->clock, c->cap_stamp - c->first_stamp) :
					0,
				when, sizeof(when)));
}

void noise_report_summary(FILE *out, const struct noise_run *run, const struct rt_throttling *limit,
			  const struct noise_explain *explain)
{
	unsigned int i;

	fputc('\n', out);
	print_table(out, run);
	fputc('\n', out);
	if (rt_policy_is_realtime(run->params.policy) && rt_throttling_active(limit))
		fprintf(out,
			"RT throttling (sched_rt_runtime_us %lld of %lld) is counted apart, "
			"not as noise.\n",
			limit->runtime_us, limit->period_us);
	for (i = 0; i < run->nr_cpus; i++)
		print_not_stored(out, run, &run->cpus[i]);
	print_periodic(out, run, explain);
	if (stop_requested)
		fprintf(out, "Stopped early by %s.\n", strsignal(stop_requested));
	fflush(out);
}

void noise_report_gaps(FILE *f, const struct noise_run *run)
{
	unsigned int i;
	size_t g;

	fprintf(f,
		"# latscope noise gaps >= %llu ns; start: ns since the cpu's first read\n"
		"# cpu start_ns duration_ns throttled\n",
		(unsigned long long)run->params.threshold_ns);
	for (i = 0; i < run->nr_cpus; i++) {
		const struct noise_cpu *c = &run->cpus[i];

		for (g = 0; g < c->nr_gaps; g++)
			fprintf(f, "%u %llu %llu %d\n", c->cpu,
				(unsigned long long)noise_gap_start_ns(run, c, &c->gaps[g]),
				(unsigned long long)c->gaps[g].duration_ns,
				c->throttled ? c->throttled[g] : 0);
	}
}

void noise_report_histogram(FILE *f, const struct noise_run *run)
{
	unsigned int i, b;

	fprintf(f, "# latscope noise histogram: one row per bucket holding a value\n"
		   "# low_ns high_ns");
	for (i = 0; i < run->nr_cpus; i++)
		fprintf(f, " cpu%u", run->cpus[i].cpu);
	fputc('\n', f);
	for (b = 0; b < HIST_BUCKETS; b++) {
		bool any = false;

		for (i = 0; i < run->nr_cpus; i++)
			any |= run->cpus[i].hist->buckets[b] != 0;
		if (!any)
			continue;
		fprintf(f, "%llu %llu", (unsigned long long)hist_bucket_low(b),
			(unsigned long long)hist_bucket_high(b));
		for (i = 0; i < run->nr_cpus; i++)
			fprintf(f, " %llu", (unsigned long long)run->cpus[i].hist->buckets[b]);
		fputc('\n', f);
	}
	fprintf(f, "# overflow (> %llu ns):", (unsigned long long)HIST_MAX_NS);
	for (i = 0; i < run->nr_cpus; i++)
		fprintf(f, " %llu", (unsigned long long)run->cpus[i].hist->overflow);
	fputc('\n', f);
}
