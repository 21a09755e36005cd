// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "explain_report.h"
#include "explain_run.h"
#include "latscope/cpuinfo.h"
#include "latscope/explain_result.h"
#include "latscope/log.h"
#include "latscope/result.h"
#include "latscope/validity.h"

int explain_run_begin(struct explain_run *x, enum explain_choice choice, struct sysroot *root,
		      const struct cpuset *cpus, const struct explain_session_options *options)
{
	struct explain_session_options session = *options;

	memset(x, 0, sizeof(*x));
	x->choice = choice;
	x->nr_lanes = options->nr_lanes;
	if (choice == EXPLAIN_OFF)
		return 0;
	/* in a guest, unexplained time is mostly the host's */
	x->virtual_machine = cpuinfo_under_hypervisor(root);
	x->counters = counters_begin(root, cpus);
	if (choice == EXPLAIN_WITH_COUNTERS)
		return 0;
	x->horizon = calloc(x->nr_lanes, sizeof(*x->horizon));
	x->joins = calloc(x->nr_lanes, sizeof(*x->joins));
	if (!x->horizon || !x->joins)
		return -ENOMEM;
	/* a softirq right after a hardirq still ran in a thread there */
	session.threaded_softirqs = validity_kernel_preempt_rt(root) == 1;
	x->session = explain_session_start(&session);
	if (!x->session) {
		log_warning("cannot trace: explaining with interrupt and softirq counts only");
		x->choice = EXPLAIN_WITH_COUNTERS;
	}
	return 0;
}

void explain_run_pump(struct explain_run *x)
{
	if (x->session && explain_session_pump(x->session, x->horizon))
		log_warning("cannot read the trace");
}

void explain_run_stop_counters(struct explain_run *x)
{
	if (x->counters)
		counters_end(x->counters);
}

int explain_run_finish(struct explain_run *x, uint64_t end_ns, uint64_t run_ns)
{
	unsigned int i;
	int ret;

	if (!x->session)
		return 0;
	x->run_ns = run_ns;
	explain_session_stop_tracing(x->session);
	ret = explain_session_finish(x->session, end_ns, run_ns);
	/* each cause's own trains and what they share their windows with */
	for (i = 0; !ret && i < x->nr_lanes; i++) {
		x->joins[i] =
			explain_join_new(explain_session_lane(x->session, i), NULL, 0, NULL, 0);
		if (!x->joins[i])
			ret = -ENOMEM;
	}
	return ret;
}

int explain_run_join_sources(struct explain_run *x, unsigned int lane,
			     const struct period_source *sources, unsigned int nr_sources,
			     const struct window_source *windows, size_t nr_windows)
{
	struct explain_join *join;

	if (!x->session || lane >= x->nr_lanes)
		return 0;
	join = explain_join_new(explain_session_lane(x->session, lane), sources, nr_sources,
				windows, nr_windows);
	if (!join)
		return -ENOMEM;
	explain_join_free(x->joins[lane]);
	x->joins[lane] = join;
	return 0;
}

static double reader_share(const struct explain_reader *reader, uint64_t run_ns)
{
	return run_ns ? 100.0 * (double)reader->cpu_ns / (double)run_ns : 0;
}

void explain_run_report_reader(FILE *out, const struct explain_run *x)
{
	struct explain_reader reader;
	char cpu[32], run[32];

	if (!x->session)
		return;
	explain_session_reader(x->session, &reader);
	fprintf(out,
		"\ntrace reader: %s of cpu in %s (%.2f%% of one cpu), %llu events read, "
		"%llu lost%s\n",
		format_duration(reader.cpu_ns, cpu, sizeof(cpu)),
		format_duration(x->run_ns, run, sizeof(run)), reader_share(&reader, x->run_ns),
		(unsigned long long)reader.records, (unsigned long long)reader.lost,
		reader.lost ? " (the spikes they touch are marked, not attributed)" : "");
}

void explain_run_validity(const struct explain_run *x, struct validity *v)
{
	struct explain_reader reader;

	if (!x->session)
		return;
	explain_session_reader(x->session, &reader);
	v->trace_lost = reader.lost;
	v->trace_cpu_share = reader_share(&reader, x->run_ns) / 100.0;
}

json_t *explain_run_reader_json(const struct explain_run *x)
{
	struct explain_reader reader;

	if (!x->session)
		return NULL;
	explain_session_reader(x->session, &reader);
	return json_pack("{s:I, s:I, s:f, s:I, s:I}", "cpu_ns", (json_int_t)reader.cpu_ns, "run_ns",
			 (json_int_t)x->run_ns, "cpu_share",
			 reader_share(&reader, x->run_ns) / 100.0, "records",
			 (json_int_t)reader.records, "lost_events", (json_int_t)reader.lost);
}

const struct explain_join *explain_run_join(const struct explain_run *x, unsigned int lane)
{
	return x->joins && lane < x->nr_lanes ? x->joins[lane] : NULL;
}

const struct explain_cpu *explain_run_engine(const struct explain_run *x, unsigned int lane)
{
	return x->session ? explain_session_lane(x->session, lane) : NULL;
}

void explain_run_report(FILE *out, const struct explain_run *x, unsigned int lane, int cpu,
			const char *heading, const char *spike_word, uint64_t steal_ns,
			uint64_t origin_ns)
{
	if (x->choice == EXPLAIN_OFF)
		return;
	if (x->session)
		explain_report_cpu(out, heading, spike_word, explain_session_lane(x->session, lane),
				   explain_run_join(x, lane), x->virtual_machine, steal_ns,
				   origin_ns);
	else
		fputc('\n', out);
	if (x->counters && cpu >= 0)
		explain_report_counters(out, heading, x->counters, (unsigned int)cpu);
}

void explain_run_json(const struct explain_run *x, unsigned int lane, int cpu, json_t *entry)
{
	if (x->session) {
		json_t *explained = explain_result_cpu(explain_session_lane(x->session, lane),
						       explain_session_names(x->session),
						       explain_run_join(x, lane));

		json_object_update(entry, explained);
		json_decref(explained);
	}
	if (x->counters && cpu >= 0)
		json_object_set_new(entry, "counters",
				    counters_result_cpu(x->counters, (unsigned int)cpu));
}

int explain_run_write_captures(const struct explain_run *x, const char *dir, const char *prefix,
			       const unsigned int *numbers)
{
	return x->session ? explain_session_write_captures(x->session, dir, prefix, numbers) : 0;
}

void explain_run_release(struct explain_run *x)
{
	unsigned int i;

	for (i = 0; x->joins && i < x->nr_lanes; i++)
		explain_join_free(x->joins[i]);
	free(x->joins);
	explain_session_free(x->session);
	counters_free(x->counters);
	free(x->horizon);
	memset(x, 0, sizeof(*x));
}
