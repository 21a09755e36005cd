/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Synthetic trace records fed to one attribution engine (a CPU of
 * lib/explain): the engine and its names, a window of the measuring
 * thread, and a record of each kind. Used by tests/unit/test_explain.c and
 * tests/unit/test_explain_rt.c.
 */
#ifndef LATSCOPE_TESTS_EXPLAIN_STREAM_H
#define LATSCOPE_TESTS_EXPLAIN_STREAM_H

#include <string.h>

#include "latscope/explain.h"
#include "unit.h"

/* the measuring thread's pid */
#define OWN 100

static struct names *names;
static struct explain_cpu *engine;

static inline void engine_open(unsigned int cpu, enum explain_mode mode)
{
	names = names_new();
	engine = explain_cpu_new(cpu, mode, names, 5);
}

/* the fixture of most cases: the noise's engine of CPU 1 */
static inline void setup(void)
{
	engine_open(1, EXPLAIN_NOISE);
}

static inline void teardown(void)
{
	explain_cpu_free(engine);
	names_free(names);
}

static inline uint32_t name(const char *text)
{
	return names_intern(names, text, strlen(text));
}

static inline void window(uint64_t start, uint64_t end)
{
	struct explain_window w = { .start_ns = start, .end_ns = end, .own_pid = OWN };

	ck_assert_int_eq(explain_cpu_add_window(engine, &w), 0);
}

/* Records on CPU 1 leave common_pid unknown unless they set it. */
static inline void feed_as(struct trace_record r, int32_t current)
{
	r.cpu = 1;
	r.pid = current;
	explain_cpu_feed(engine, &r);
}

static inline void feed(struct trace_record r)
{
	feed_as(r, -1);
}

static inline void sw(uint64_t ts, int pid, const char *comm, int prio)
{
	struct trace_record r = { .ts = ts, .kind = TRACE_SWITCH };

	r.sched_switch.next_pid = pid;
	r.sched_switch.next_comm = name(comm);
	r.sched_switch.next_prio = prio;
	feed(r);
}

static inline void irq(uint64_t ts, bool entry, int number, const char *action)
{
	struct trace_record r = { .ts = ts, .kind = entry ? TRACE_IRQ_ENTRY : TRACE_IRQ_EXIT };

	r.irq.irq = number;
	r.irq.name = entry ? name(action) : 0;
	feed(r);
}

static inline void softirq(uint64_t ts, bool entry, unsigned int vec)
{
	struct trace_record r = { .ts = ts,
				  .kind = entry ? TRACE_SOFTIRQ_ENTRY : TRACE_SOFTIRQ_EXIT };

	r.softirq.vec = vec;
	feed(r);
}

static inline void vector(uint64_t ts, bool entry, enum trace_vector v)
{
	struct trace_record r = { .ts = ts,
				  .kind = entry ? TRACE_VECTOR_ENTRY : TRACE_VECTOR_EXIT };

	r.vector.vector = v;
	feed(r);
}

/* @current wakes @pid (@comm at kernel priority @prio) onto CPU 1 */
static inline void waking_on(uint64_t ts, int pid, int prio, const char *comm, int current)
{
	struct trace_record r = { .ts = ts, .kind = TRACE_WAKING };

	r.waking.pid = pid;
	r.waking.prio = prio;
	r.waking.comm = name(comm);
	r.waking.target_cpu = 1;
	feed_as(r, current);
}

#endif
