// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Records what `latscope noise --explain` sees on one CPU, as a fixture for
 * the unit tests of the attribution engine and the join: the gaps of the
 * busy loop and the kernel events of that CPU, on one timeline (ns).
 *
 * usage (root, under the machine lock):
 *   record-explain CPU SECONDS OUTPUT
 *
 * The file: '#' comments; "run RUN_NS ORIGIN_NS TID CPU" (the run's
 * length, the loop's first read on the timeline, the measuring thread's
 * tid, its CPU);
 * "n ID TEXT" before the first record using the name ID; "g START_NS
 * DURATION_NS" per gap; "e TS PID KIND FIELDS" per event, with FIELDS as
 * tests/unit/recording.h reads them. hrtimer events are left out: in
 * noise mode they only split time between what already runs.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "latscope/clock.h"
#include "latscope/names.h"
#include "latscope/noise.h"
#include "latscope/topology.h"
#include "latscope/trace.h"

struct recording {
	struct trace_record *records;
	size_t nr, capacity;
};

static void keep(const struct trace_record *r, void *context)
{
	struct recording *rec = context;

	if (r->kind == TRACE_HRTIMER_START || r->kind == TRACE_HRTIMER_EXPIRE_ENTRY ||
	    r->kind == TRACE_HRTIMER_EXPIRE_EXIT)
		return;
	if (rec->nr == rec->capacity) {
		rec->capacity = rec->capacity ? 2 * rec->capacity : 65536;
		rec->records = realloc(rec->records, rec->capacity * sizeof(*rec->records));
		if (!rec->records) {
			fprintf(stderr, "record-explain: out of memory\n");
			exit(1);
		}
	}
	rec->records[rec->nr++] = *r;
}

/* "n ID TEXT" the first time a name is used */
static void name(FILE *f, const struct names *names, uint8_t *written, uint32_t id)
{
	if (id && id < 65536 && !written[id]) {
		fprintf(f, "n %" PRIu32 " %s\n", id, names_get(names, id));
		written[id] = 1;
	}
}

static void write_record(FILE *f, const struct names *names, uint8_t *written,
			 const struct trace_record *r)
{
	/* the names first: a record's line refers to them */
	if (r->kind == TRACE_IRQ_ENTRY || r->kind == TRACE_IRQ_EXIT)
		name(f, names, written, r->irq.name);
	if (r->kind == TRACE_SWITCH) {
		name(f, names, written, r->sched_switch.prev_comm);
		name(f, names, written, r->sched_switch.next_comm);
	}
	if (r->kind == TRACE_WAKING)
		name(f, names, written, r->waking.comm);
	fprintf(f, "e %" PRIu64 " %d %d", r->ts, r->pid, r->kind);
	switch (r->kind) {
	case TRACE_IRQ_ENTRY:
	case TRACE_IRQ_EXIT:
		fprintf(f, " %d %" PRIu32 "\n", r->irq.irq, r->irq.name);
		break;
	case TRACE_SOFTIRQ_ENTRY:
	case TRACE_SOFTIRQ_EXIT:
		fprintf(f, " %" PRIu32 "\n", r->softirq.vec);
		break;
	case TRACE_VECTOR_ENTRY:
	case TRACE_VECTOR_EXIT:
		fprintf(f, " %" PRIu32 "\n", r->vector.vector);
		break;
	case TRACE_NMI:
		fprintf(f, " %" PRIu64 "\n", r->nmi.duration_ns);
		break;
	case TRACE_SWITCH:
		fprintf(f, " %d %d %d %d %" PRIu32 " %" PRIu32 " %" PRId64 "\n",
			r->sched_switch.prev_pid, r->sched_switch.next_pid,
			r->sched_switch.prev_prio, r->sched_switch.next_prio,
			r->sched_switch.prev_comm, r->sched_switch.next_comm,
			r->sched_switch.prev_state);
		break;
	case TRACE_WAKING:
		fprintf(f, " %d %d %d %" PRIu32 "\n", r->waking.pid, r->waking.prio,
			r->waking.target_cpu, r->waking.comm);
		break;
	case TRACE_LOST:
		fprintf(f, " %" PRIu64 "\n", r->lost.count);
		break;
	default:
		fputc('\n', f);
		break;
	}
}

int main(int argc, char **argv)
{
	struct noise_params params = { .threshold_ns = 1000, .max_gaps = 1U << 24 };
	struct trace_options options = { .clock = "x86-tsc", .buffer_kb = 8192 };
	struct recording rec = { 0 };
	struct trace_session *trace;
	struct topology topo;
	struct sysroot *root;
	struct noise_run run;
	struct names *names;
	uint8_t *written;
	const char *why;
	size_t g, e;
	char *end;
	long cpu;
	FILE *f;

	if (argc != 4) {
		fprintf(stderr, "usage: record-explain CPU SECONDS OUTPUT\n");
		return 2;
	}
	cpu = strtol(argv[1], &end, 10);
	params.duration_ns = strtoull(argv[2], NULL, 10) * 1000000000ULL;
	root = sysroot_new(NULL);
	names = names_new();
	written = calloc(65536, 1);
	if (*end || cpu < 0 || !params.duration_ns || !root || !names || !written ||
	    topology_load(root, &topo))
		return 2;
	cpuset_add(&params.cpus, (unsigned int)cpu);
	params.use_tsc = tsc_usable(root, &why);
	rt_place_main_thread(&topo.online, &params.cpus, NULL);
	if (noise_prepare(&run, root, &params))
		return 1;
	options.cpus = params.cpus;
	options.tsc = &run.clock;
	if (!params.use_tsc)
		options.clock = "mono_raw";
	trace = trace_session_create(&options, names);
	if (!trace || noise_start(&run))
		return 1;
	while (noise_running(&run)) {
		struct timespec pause = { 0, 100000000 };

		nanosleep(&pause, NULL);
		noise_drain(&run);
		trace_session_drain(trace, keep, &rec);
	}
	noise_stop(&run);
	trace_session_drain(trace, keep, &rec);
	trace_session_destroy(trace);

	f = fopen(argv[3], "w");
	if (!f)
		return 1;
	fprintf(f,
		"# latscope explain recording: cpu %ld, %s s, gaps >= 1 us, SCHED_OTHER\n"
		"# run RUN_NS ORIGIN_NS TID CPU; n ID NAME; g START_NS DURATION_NS;\n"
		"# e TS PID KIND FIELDS (see tests/data/record-explain.c)\n",
		cpu, argv[2]);
	fprintf(f, "run %" PRIu64 " %" PRIu64 " %d %ld\n", noise_cpu_run_ns(&run, &run.cpus[0]),
		noise_stamp_ns(&run, run.cpus[0].first_stamp), run.workers[0].tid, cpu);
	/* in time order, each gap before the events at or after its start */
	for (g = 0, e = 0; g < run.cpus[0].nr_gaps || e < rec.nr;) {
		uint64_t start = g < run.cpus[0].nr_gaps ?
					 noise_stamp_ns(&run, run.cpus[0].gaps[g].stamp) :
					 UINT64_MAX;

		if (e < rec.nr && rec.records[e].ts < start) {
			write_record(f, names, written, &rec.records[e++]);
			continue;
		}
		fprintf(f, "g %" PRIu64 " %" PRIu64 "\n", start, run.cpus[0].gaps[g].duration_ns);
		g++;
	}
	fprintf(stderr, "record-explain: %zu gaps (%llu not stored), %zu events\n",
		run.cpus[0].nr_gaps, (unsigned long long)run.cpus[0].gaps_not_stored, rec.nr);
	noise_release(&run);
	fclose(f);
	names_free(names);
	free(written);
	free(rec.records);
	topology_release(&topo);
	sysroot_free(root);
	return 0;
}
