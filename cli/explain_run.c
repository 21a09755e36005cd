// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "explain_report.h"
#include "explain_run.h"
#include "latscope/explain_result.h"
#include "latscope/log.h"
#include "latscope/result.h"

int explain_run_begin(struct explain_run *x, enum explain_choice choice, struct sysroot *root,
		      const struct cpuset *cpus, const struct explain_session_options *options)
{
	memset(x, 0, sizeof(*x));
	x->choice = choice;
	x->nr_lanes = options->nr_lanes;
	if (choice == EXPLAIN_OFF)
		return 0;
	x->counters = counters_begin(root, cpus);
	if (choice == EXPLAIN_WITH_COUNTERS)
		return 0;
	x->horizon = calloc(x->nr_lanes, sizeof(*x->horizon));
	if (!x->horizon)
		return -ENOMEM;
	x->session = explain_session_start(options);
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
	if (!x->session)
		return 0;
	explain_session_stop_tracing(x->session);
	return explain_session_finish(x->session, end_ns, run_ns);
}

void explain_run_report(FILE *out, const struct explain_run *x, unsigned int lane, int cpu,
			const char *heading, const char *spike_word, uint64_t steal_ns,
			uint64_t origin_ns)
{
	if (x->choice == EXPLAIN_OFF)
		return;
	if (x->session)
		explain_report_cpu(out, heading, spike_word, explain_session_lane(x->session, lane),
				   steal_ns, origin_ns);
	else
		fputc('\n', out);
	if (x->counters && cpu >= 0)
		explain_report_counters(out, heading, x->counters, (unsigned int)cpu);
}

void explain_run_json(const struct explain_run *x, unsigned int lane, int cpu, json_t *entry)
{
	if (x->session) {
		json_t *explained = explain_result_cpu(explain_session_lane(x->session, lane),
						       explain_session_names(x->session));

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
	explain_session_free(x->session);
	counters_free(x->counters);
	free(x->horizon);
	memset(x, 0, sizeof(*x));
}
