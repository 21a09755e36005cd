// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * How fast --explain digests events. Records the kernel events of a busy
 * CPU (two threads ping-ponging through pipes: a switch and a wake-up per
 * message) through a latscope tracing session, timing the drain (read and
 * decode), then replays the recorded stream into the attribution engine
 * until at least 10 million events went through, with a spike window every
 * millisecond, and prints events per second of one core for each.
 *
 * usage: explain-throughput [CPU] [SECONDS]   (root)
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "latscope/explain.h"
#include "latscope/trace.h"

#define TARGET_EVENTS 10000000UL

struct recording {
	struct trace_record *records;
	size_t nr, capacity;
};

static volatile int stop;

static double cpu_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void keep(const struct trace_record *r, void *context)
{
	struct recording *rec = context;

	if (rec->nr == rec->capacity) {
		rec->capacity = rec->capacity ? 2 * rec->capacity : 1 << 20;
		rec->records = realloc(rec->records, rec->capacity * sizeof(*rec->records));
		if (!rec->records) {
			perror("realloc");
			exit(1);
		}
	}
	rec->records[rec->nr++] = *r;
}

struct pong {
	int in, out, cpu;
};

static void *ping_pong(void *arg)
{
	struct pong *p = arg;
	cpu_set_t set;
	char byte = 0;

	CPU_ZERO(&set);
	CPU_SET(p->cpu, &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	while (!stop) {
		if (p->out >= 0 && write(p->out, &byte, 1) != 1)
			break;
		if (read(p->in, &byte, 1) != 1)
			break;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int cpu = argc > 1 ? atoi(argv[1]) : 1, seconds = argc > 2 ? atoi(argv[2]) : 3;
	struct trace_options options = { .clock = "mono", .buffer_kb = 65536 };
	struct recording rec = { 0 };
	struct names *names = names_new();
	struct trace_session *session;
	int ab[2], ba[2];
	struct pong a, b;
	pthread_t ta, tb;
	double drain_cpu = 0, t0, engine_cpu;
	unsigned long fed = 0;
	long n;

	cpuset_clear(&options.cpus);
	cpuset_add(&options.cpus, (unsigned int)cpu);
	session = trace_session_create(&options, names);
	if (!session) {
		fprintf(stderr, "explain-throughput: cannot trace (root and tracefs needed)\n");
		return 1;
	}
	if (pipe(ab) || pipe(ba))
		return 1;
	a = (struct pong){ ba[0], ab[1], cpu };
	b = (struct pong){ ab[0], ba[1], cpu };
	pthread_create(&ta, NULL, ping_pong, &a);
	pthread_create(&tb, NULL, ping_pong, &b);
	for (int i = 0; i < seconds * 20; i++) {
		usleep(50000);
		t0 = cpu_seconds();
		n = trace_session_drain(session, keep, &rec);
		drain_cpu += cpu_seconds() - t0;
		if (n < 0)
			break;
	}
	stop = 1;
	close(ab[1]);
	close(ba[1]);
	pthread_join(ta, NULL);
	pthread_join(tb, NULL);
	t0 = cpu_seconds();
	trace_session_drain(session, keep, &rec);
	drain_cpu += cpu_seconds() - t0;
	printf("recorded %zu events in %d s (lost %llu); read and decode: %.2f M events/s of one core\n",
	       rec.nr, seconds, (unsigned long long)trace_session_lost(session),
	       (double)rec.nr / drain_cpu / 1e6);
	trace_session_destroy(session);
	if (!rec.nr)
		return 1;

	/* replay, shifted in time, until the target is reached */
	{
		struct explain_cpu *engine =
			explain_cpu_new((unsigned int)cpu, EXPLAIN_NOISE, names, 5);
		uint64_t span = rec.records[rec.nr - 1].ts - rec.records[0].ts + 1000, shift = 0;
		uint64_t next_window = rec.records[0].ts, ts;
		size_t i;

		t0 = cpu_seconds();
		while (fed < TARGET_EVENTS) {
			for (i = 0; i < rec.nr; i++) {
				struct trace_record r = rec.records[i];

				r.ts += shift;
				ts = r.ts;
				while (next_window <= ts) {
					struct explain_window w = { next_window,
								    next_window + 20000, -1, false,
								    0 };

					explain_cpu_add_window(engine, &w);
					next_window += 1000000;
				}
				explain_cpu_feed(engine, &r);
			}
			fed += rec.nr;
			shift += span;
		}
		explain_cpu_finish(engine, rec.records[0].ts + shift, shift);
		engine_cpu = cpu_seconds() - t0;
		printf("attribution engine: %lu events in %.2f s: %.2f M events/s of one core\n",
		       fed, engine_cpu, (double)fed / engine_cpu / 1e6);
		explain_cpu_free(engine);
	}
	free(rec.records);
	names_free(names);
	return 0;
}
