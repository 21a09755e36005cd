// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "explain_report.h"
#include "explain_run.h"
#include "latscope/explain_result.h"
#include "latscope/log.h"
#include "latscope/result.h"

int explain_choice_parse(const char *option, const char *value, enum explain_choice *choice)
{
	if (!value || !strcmp(value, "trace"))
		*choice = EXPLAIN_WITH_TRACE;
	else if (!strcmp(value, "counters"))
		*choice = EXPLAIN_WITH_COUNTERS;
	else
		return usage_error("invalid value '%s' for %s (trace or counters)", value, option);
	return 0;
}

/*
 * Checked without being made: the directory is created when the traces are
 * written, so that a run refused by a later check leaves nothing behind.
 */
int explain_check_trace_dir(const char *dir)
{
	char parent[4096], probe[sizeof(parent) + 32], *slash;
	struct stat st;
	int ret;

	if (!stat(dir, &st)) {
		if (!S_ISDIR(st.st_mode))
			return usage_error("--trace-dir '%s' is not a directory", dir);
		snprintf(probe, sizeof(probe), "%s/.latscope-probe", dir);
		ret = result_check_writable(probe);
		if (ret)
			return usage_error("cannot write into --trace-dir '%s': %s", dir,
					   strerror(-ret));
		return 0;
	}
	if (errno != ENOENT)
		return usage_error("cannot create --trace-dir '%s': %s", dir, strerror(errno));
	/* a new directory: its parent must exist and take a new entry */
	snprintf(parent, sizeof(parent), "%s", dir);
	while ((slash = strrchr(parent, '/')) && slash > parent && !slash[1])
		*slash = '\0';
	slash = strrchr(parent, '/');
	if (!slash)
		snprintf(parent, sizeof(parent), ".");
	else
		slash[slash == parent] = '\0';
	snprintf(probe, sizeof(probe), "%s/.latscope-probe", parent);
	ret = result_check_writable(probe);
	if (ret)
		return usage_error("cannot create --trace-dir '%s': %s", dir, strerror(-ret));
	return 0;
}

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
	if (mkdir(dir, 0755) && errno != EEXIST) {
		int err = errno;

		log_error("cannot create --trace-dir '%s': %s", dir, strerror(err));
		return -err;
	}
	return x->session ? explain_session_write_captures(x->session, dir, prefix, numbers) : 0;
}

void explain_run_release(struct explain_run *x)
{
	explain_session_free(x->session);
	counters_free(x->counters);
	free(x->horizon);
	memset(x, 0, sizeof(*x));
}
