// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "latscope/counters.h"
#include "latscope/cpuinfo.h"
#include "latscope/irq.h"
#include "latscope/log.h"
#include "latscope/trace_record.h"

#define NR_SOFTIRQS 10
#define MAX_DELTAS 512

struct counters_run {
	struct sysroot *root;
	struct cpuset cpus;
	struct irq_table irqs;
	struct irq_counts after, delta;
	bool irqs_ok;
	unsigned int nr_possible;
	uint64_t *softirq_before, *softirq_after; /* [cpu * NR_SOFTIRQS + vec] */
	bool softirqs_ok;
	int *smi_fd; /* per possible CPU, -1 when not counting */
	uint64_t *smi_before, *smi_after;
	const char *smi_why;
	bool in_guest;
};

/* /proc/softirqs: a header of CPUs, then "NAME: count count ..." lines. */
static int read_softirqs(struct counters_run *run, uint64_t *values)
{
	unsigned int *columns, nr_columns = 0, vec, i;
	char *text, *line, *next, *p;
	int ret;

	ret = sysroot_read_alloc(run->root, &text, NULL, "/proc/softirqs");
	if (ret)
		return ret;
	columns = malloc(CPUSET_MAX_CPUS * sizeof(*columns));
	if (!columns) {
		free(text);
		return -ENOMEM;
	}
	memset(values, 0, (size_t)run->nr_possible * NR_SOFTIRQS * sizeof(*values));
	line = text;
	next = strchr(line, '\n');
	if (next)
		*next++ = '\0';
	for (p = line; (p = strstr(p, "CPU")) && nr_columns < CPUSET_MAX_CPUS;)
		columns[nr_columns++] = (unsigned int)strtoul(p + 3, &p, 10);
	for (line = next; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		while (*line == ' ')
			line++;
		for (vec = 0; vec < NR_SOFTIRQS; vec++) {
			const char *name = trace_softirq_name(vec);

			if (!strncmp(line, name, strlen(name)) && line[strlen(name)] == ':')
				break;
		}
		if (vec == NR_SOFTIRQS)
			continue;
		p = strchr(line, ':') + 1;
		for (i = 0; i < nr_columns; i++) {
			unsigned long long v = strtoull(p, &p, 10);

			if (columns[i] < run->nr_possible)
				values[columns[i] * NR_SOFTIRQS + vec] = v;
		}
	}
	free(columns);
	free(text);
	return 0;
}

/* The msr PMU's "smi" event, read from sysfs like perf does. */
static int smi_event(struct sysroot *root, uint32_t *type, uint64_t *config, const char **why)
{
	char text[64], *p;
	long long value;

	if (sysroot_read_integer(root, &value, "/sys/bus/event_source/devices/msr/type")) {
		*why = "no msr PMU";
		return -ENOENT;
	}
	*type = (uint32_t)value;
	if (sysroot_read(root, text, sizeof(text), "/sys/bus/event_source/devices/msr/events/smi") <
		    0 ||
	    !(p = strstr(text, "event="))) {
		*why = "the msr PMU offers no smi event";
		return -ENOENT;
	}
	*config = strtoull(p + 6, NULL, 0);
	return 0;
}

static void open_smi_counters(struct counters_run *run)
{
	struct perf_event_attr attr;
	uint64_t config;
	uint32_t type;
	int cpu, fd;

	if (smi_event(run->root, &type, &config, &run->smi_why))
		return;
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = type;
	attr.config = config;
	cpuset_for_each(cpu, &run->cpus) {
		fd = (int)syscall(SYS_perf_event_open, &attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
		if (fd < 0) {
			run->smi_why = "perf_event_open of msr/smi failed (needs root)";
			continue;
		}
		run->smi_fd[cpu] = fd;
		if (read(fd, &run->smi_before[cpu], sizeof(uint64_t)) != sizeof(uint64_t))
			run->smi_before[cpu] = 0;
	}
}

struct counters_run *counters_begin(struct sysroot *root, const struct cpuset *cpus)
{
	struct counters_run *run = calloc(1, sizeof(*run));
	int cpu;

	if (!run)
		return NULL;
	run->root = root;
	run->cpus = *cpus;
	cpuset_for_each(cpu, cpus)
		run->nr_possible = (unsigned int)cpu + 1;
	run->softirq_before = calloc((size_t)run->nr_possible * NR_SOFTIRQS, sizeof(uint64_t));
	run->softirq_after = calloc((size_t)run->nr_possible * NR_SOFTIRQS, sizeof(uint64_t));
	run->smi_fd = malloc(run->nr_possible * sizeof(int));
	run->smi_before = calloc(run->nr_possible, sizeof(uint64_t));
	run->smi_after = calloc(run->nr_possible, sizeof(uint64_t));
	if (!run->softirq_before || !run->softirq_after || !run->smi_fd || !run->smi_before ||
	    !run->smi_after) {
		counters_free(run);
		return NULL;
	}
	for (cpu = 0; (unsigned int)cpu < run->nr_possible; cpu++)
		run->smi_fd[cpu] = -1;
	run->in_guest = cpuinfo_under_hypervisor(root);
	run->irqs_ok = !irq_table_load(root, &run->irqs) &&
		       !irq_counts_init(&run->after, &run->irqs) &&
		       !irq_counts_init(&run->delta, &run->irqs);
	run->softirqs_ok = !read_softirqs(run, run->softirq_before);
	open_smi_counters(run);
	return run;
}

int counters_end(struct counters_run *run)
{
	int cpu, ret = 0;

	if (run->irqs_ok) {
		ret = irq_counts_read(run->root, &run->irqs, &run->after);
		if (!ret)
			ret = irq_counts_delta(&run->irqs.counts, &run->after, &run->delta);
		if (ret) {
			log_warning("interrupt counts changed shape during the run (an IRQ or cpu "
				    "came or went): no interrupt deltas");
			run->irqs_ok = false;
		}
	}
	if (run->softirqs_ok)
		run->softirqs_ok = !read_softirqs(run, run->softirq_after);
	cpuset_for_each(cpu, &run->cpus)
		if (run->smi_fd[cpu] >= 0 && read(run->smi_fd[cpu], &run->smi_after[cpu],
						  sizeof(uint64_t)) != sizeof(uint64_t))
			run->smi_after[cpu] = run->smi_before[cpu];
	return 0;
}

static int compare_deltas(const void *x, const void *y)
{
	const struct counter_delta *a = x, *b = y;

	return a->count < b->count ? 1 : a->count > b->count ? -1 : 0;
}

static int column_of(const struct irq_table *table, unsigned int cpu)
{
	unsigned int c;

	for (c = 0; c < table->nr_columns; c++)
		if (table->column_cpu[c] == cpu)
			return (int)c;
	return -1;
}

unsigned int counters_deltas(const struct counters_run *run, unsigned int cpu,
			     struct counter_delta *deltas, unsigned int max)
{
	unsigned int n = 0, row, vec;
	int column = run->irqs_ok ? column_of(&run->irqs, cpu) : -1;

	for (row = 0; column >= 0 && row < irq_table_rows(&run->irqs) && n < max; row++) {
		uint32_t count = irq_count(&run->delta, row, (unsigned int)column);
		struct counter_delta *d = &deltas[n];

		if (!count)
			continue;
		if (row < run->irqs.nr_irqs)
			snprintf(d->name, sizeof(d->name), "%u:%s", run->irqs.irqs[row].number,
				 run->irqs.irqs[row].name);
		else
			snprintf(d->name, sizeof(d->name), "%s",
				 run->irqs.vectors[row - run->irqs.nr_irqs].name);
		d->group = "interrupts";
		d->count = count;
		n++;
	}
	for (vec = 0; run->softirqs_ok && cpu < run->nr_possible && vec < NR_SOFTIRQS && n < max;
	     vec++) {
		uint64_t count = run->softirq_after[cpu * NR_SOFTIRQS + vec] -
				 run->softirq_before[cpu * NR_SOFTIRQS + vec];

		if (!count)
			continue;
		snprintf(deltas[n].name, sizeof(deltas[n].name), "%s", trace_softirq_name(vec));
		deltas[n].group = "softirqs";
		deltas[n].count = count;
		n++;
	}
	qsort(deltas, n, sizeof(*deltas), compare_deltas);
	return n;
}

bool counters_smi(const struct counters_run *run, unsigned int cpu, uint64_t *count,
		  const char **why)
{
	if (cpu >= run->nr_possible || run->smi_fd[cpu] < 0) {
		*why = run->smi_why ? run->smi_why : "not counted";
		return false;
	}
	*count = run->smi_after[cpu] - run->smi_before[cpu];
	return true;
}

bool counters_have_interrupts(const struct counters_run *run)
{
	return run->irqs_ok;
}

bool counters_smi_in_guest(const struct counters_run *run)
{
	return run->in_guest;
}

json_t *counters_result_cpu(const struct counters_run *run, unsigned int cpu)
{
	struct counter_delta *deltas = calloc(MAX_DELTAS, sizeof(*deltas));
	json_t *out = json_object(), *interrupts = json_object(), *softirqs = json_object();
	unsigned int n, i;
	const char *why;
	uint64_t smi;

	n = deltas ? counters_deltas(run, cpu, deltas, MAX_DELTAS) : 0;
	for (i = 0; i < n; i++)
		json_object_set_new(strcmp(deltas[i].group, "softirqs") ? interrupts : softirqs,
				    deltas[i].name, json_integer((json_int_t)deltas[i].count));
	free(deltas);
	json_object_set_new(out, "interrupts", interrupts);
	json_object_set_new(out, "softirqs", softirqs);
	if (counters_smi(run, cpu, &smi, &why)) {
		json_object_set_new(out, "smi", json_integer((json_int_t)smi));
		json_object_set_new(
			out, "smi_note",
			json_string(run->in_guest ? "as seen by this guest" : "msr/smi"));
	} else {
		json_object_set_new(out, "smi", json_null());
		json_object_set_new(out, "smi_note", json_string(why));
	}
	return out;
}

void counters_free(struct counters_run *run)
{
	unsigned int cpu;

	if (!run)
		return;
	for (cpu = 0; run->smi_fd && cpu < run->nr_possible; cpu++)
		if (run->smi_fd[cpu] >= 0)
			close(run->smi_fd[cpu]);
	irq_counts_release(&run->after);
	irq_counts_release(&run->delta);
	irq_table_release(&run->irqs);
	free(run->softirq_before);
	free(run->softirq_after);
	free(run->smi_fd);
	free(run->smi_before);
	free(run->smi_after);
	free(run);
}
