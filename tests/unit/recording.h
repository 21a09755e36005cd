/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_TEST_RECORDING_H
#define LATSCOPE_TEST_RECORDING_H

/*
 * Replays a recording of tests/data/record-explain.c: the gaps of a busy
 * loop and the kernel events of its CPU, in the order `noise --explain`
 * hands them to the attribution engine.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "latscope/explain.h"
#include "latscope/period.h"

struct recording {
	uint64_t run_ns, origin_ns;
	int32_t tid;
	uint32_t cpu;
	struct period_event *gaps; /* start since the loop's first read, duration */
	size_t nr_gaps;
};

/* The id of the recording's name @id in @names. */
static uint32_t recording_name(uint32_t *map, size_t nr_map, uint32_t id)
{
	return id < nr_map ? map[id] : 0;
}

/*
 * Feed @engine every window (tag: the gap's index) and event of @path (plain
 * or gzip), finish it, and return the gap list in @rec. Names go to @names.
 */
static void recording_replay(const char *path, struct explain_cpu *engine, struct names *names,
			     struct recording *rec)
{
	static uint32_t map[65536];
	char line[512], text[256];
	size_t capacity = 0;
	gzFile f = gzopen(path, "r");

	ck_assert_msg(f != NULL, "cannot open %s", path);
	memset(rec, 0, sizeof(*rec));
	memset(map, 0, sizeof(map));
	while (gzgets(f, line, sizeof(line))) {
		unsigned long long a, b, c;
		struct trace_record r = { 0 };
		int kind, pid, n, i[4];
		unsigned int id;

		if (line[0] == '#')
			continue;
		if (sscanf(line, "run %llu %llu %d %u", &a, &b, &pid, &id) == 4) {
			rec->run_ns = a;
			rec->origin_ns = b;
			rec->tid = pid;
			rec->cpu = id;
		} else if (sscanf(line, "n %u %255[^\n]", &id, text) == 2 && id < 65536) {
			map[id] = names_intern(names, text, strlen(text));
		} else if (sscanf(line, "g %llu %llu", &a, &b) == 2) {
			struct explain_window w = { .start_ns = a,
						    .end_ns = a + b,
						    .own_pid = rec->tid,
						    .tag = rec->nr_gaps };

			ck_assert_int_eq(explain_cpu_add_window(engine, &w), 0);
			if (rec->nr_gaps == capacity) {
				capacity = capacity ? 2 * capacity : 4096;
				rec->gaps = realloc(rec->gaps, capacity * sizeof(*rec->gaps));
			}
			rec->gaps[rec->nr_gaps++] =
				(struct period_event){ .t_ns = a - rec->origin_ns,
						       .duration_ns = b };
		} else if (sscanf(line, "e %llu %d %d%n", &a, &pid, &kind, &n) == 3) {
			const char *fields = line + n;

			r.ts = a;
			r.cpu = rec->cpu;
			r.pid = pid;
			r.kind = (uint8_t)kind;
			switch (kind) {
			case TRACE_IRQ_ENTRY:
			case TRACE_IRQ_EXIT:
				ck_assert_int_eq(sscanf(fields, "%d %u", &i[0], &id), 2);
				r.irq.irq = i[0];
				r.irq.name = recording_name(map, 65536, id);
				break;
			case TRACE_SOFTIRQ_ENTRY:
			case TRACE_SOFTIRQ_EXIT:
				ck_assert_int_eq(sscanf(fields, "%u", &r.softirq.vec), 1);
				break;
			case TRACE_VECTOR_ENTRY:
			case TRACE_VECTOR_EXIT:
				ck_assert_int_eq(sscanf(fields, "%u", &r.vector.vector), 1);
				break;
			case TRACE_NMI:
				ck_assert_int_eq(sscanf(fields, "%llu", &c), 1);
				r.nmi.duration_ns = c;
				break;
			case TRACE_SWITCH: {
				unsigned int prev, next;
				long long state;

				ck_assert_int_eq(sscanf(fields, "%d %d %d %d %u %u %lld", &i[0],
							&i[1], &i[2], &i[3], &prev, &next, &state),
						 7);
				r.sched_switch.prev_pid = i[0];
				r.sched_switch.next_pid = i[1];
				r.sched_switch.prev_prio = i[2];
				r.sched_switch.next_prio = i[3];
				r.sched_switch.prev_comm = recording_name(map, 65536, prev);
				r.sched_switch.next_comm = recording_name(map, 65536, next);
				r.sched_switch.prev_state = state;
				break;
			}
			case TRACE_WAKING:
				ck_assert_int_eq(
					sscanf(fields, "%d %d %d %u", &i[0], &i[1], &i[2], &id), 4);
				r.waking.pid = i[0];
				r.waking.prio = i[1];
				r.waking.target_cpu = i[2];
				r.waking.comm = recording_name(map, 65536, id);
				break;
			case TRACE_LOST:
				ck_assert_int_eq(sscanf(fields, "%llu", &c), 1);
				r.lost.count = c;
				break;
			default:
				break;
			}
			explain_cpu_feed(engine, &r);
		}
	}
	gzclose(f);
	ck_assert_uint_gt(rec->run_ns, 0);
	ck_assert_int_eq(explain_cpu_finish(engine, rec->origin_ns + rec->run_ns, rec->run_ns), 0);
}

#endif
