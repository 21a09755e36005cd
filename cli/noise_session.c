// SPDX-License-Identifier: GPL-2.0-or-later
/* latscope noise's run: the machine, the options checked against it, the measurement. */
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "latscope/clock.h"
#include "latscope/log.h"
#include "latscope/noise_result.h"
#include "latscope/parse.h"
#include "latscope/result.h"
#include "machine.h"
#include "noise_report.h"
#include "noise_session.h"
#include "option_table.h"
#include "part_result.h"
#include "validity_report.h"

/* What only the machine can tell: online cpus, the default set, RT spinning. */
static int check_against_machine(struct noise_session *s)
{
	struct noise_options *o = &s->opts;
	const struct topology *topo = &s->topo;
	struct cpuset allowed;
	char why[1024], online[256];
	int ret;

	if (!o->cpus_given)
		o->params.cpus = cpuset_empty(&topo->isolated) ? topo->online : topo->isolated;
	ret = machine_allowed_cpus(s->root, &topo->online, &allowed);
	if (ret)
		return part_refuse(&s->result, PART_NO_MACHINE, ret,
				   "cannot read the machine's cpus");
	if (machine_cpus_refused("--cpus", &o->params.cpus, &topo->online, &allowed, why,
				 sizeof(why)))
		return part_refuse(&s->result, PART_REFUSED, EXIT_USAGE, "%s", why);
	if (rt_policy_is_realtime(o->params.policy) && !o->force &&
	    cpuset_subset(&topo->online, &o->params.cpus))
		return part_refuse(&s->result, PART_REFUSED, EXIT_USAGE,
				   "refusing to spin at SCHED_%s on every online cpu (%s): the "
				   "kernel's own threads would starve; leave a housekeeping cpu "
				   "or pass --force",
				   o->params.policy == RT_POLICY_FIFO ? "FIFO" : "RR",
				   cpuset_format_list(&topo->online, online, sizeof(online)));
	return 0;
}

static void choose_clock(struct noise_options *o, struct sysroot *root)
{
	const char *why;

	if (o->params.use_tsc && !tsc_usable(root, &why)) {
		log_warning("%s: measuring with clock_gettime(CLOCK_MONOTONIC_RAW) instead, "
			    "which costs more per read",
			    why);
		o->params.use_tsc = false;
	}
}

/* Every ring is allocated and locked before the first read: refuse what cannot fit. */
static int check_size(struct noise_session *s)
{
	const struct noise_options *o = &s->opts;
	unsigned int nr_cpus = cpuset_count(&o->params.cpus);
	uint64_t need = noise_memory_estimate(&o->params), limit;
	const char *source = rt_memory_limit(true, &limit);
	char a[32], b[32], c[32];

	if (need <= limit)
		return 0;
	return part_refuse(&s->result, PART_REFUSED, EXIT_USAGE,
			   "%u cpu%s would lock %s of memory before the first read (%s a cpu), "
			   "more than the %s allowed (%s): measure fewer cpus",
			   nr_cpus, nr_cpus == 1 ? "" : "s", format_bytes(need, a, sizeof(a)),
			   format_bytes(need / nr_cpus, b, sizeof(b)),
			   format_bytes(limit, c, sizeof(c)), source);
}

/* Reject a threshold the loop cannot resolve: every read would be a gap. */
static int check_threshold(struct noise_session *s)
{
	const struct noise_options *o = &s->opts;
	uint64_t cost_ns = noise_read_cost_ns(o->params.use_tsc);
	char a[32], b[32], c[32];

	if (!noise_threshold_resolved(o->params.threshold_ns, cost_ns))
		return part_refuse(&s->result, PART_REFUSED, EXIT_USAGE,
				   "--threshold %s is below what the loop resolves on this "
				   "machine (a read costs %s; use %s or more)",
				   format_duration(o->params.threshold_ns, a, sizeof(a)),
				   format_duration(cost_ns, b, sizeof(b)),
				   format_duration(noise_threshold_least(cost_ns), c, sizeof(c)));
	return 0;
}

/* Sleep up to @most, less when the run ends sooner; a signal ends it early. */
static void wait_a_while(const struct noise_run *run, uint64_t most)
{
	uint64_t left = noise_remaining_ns(run);
	struct timespec pause = clock_timespec(left < most ? left : most);

	clock_nanosleep(CLOCK_MONOTONIC, 0, &pause, NULL);
}

/*
 * The gaps are drained at least 4 times a second (more often when they come
 * fast), the trace read after each drain, the live view redrawn once a second.
 */
static void follow_run(const struct noise_options *o, struct noise_run *run,
		       struct noise_explain *explain)
{
	bool live = !o->quiet && isatty(STDOUT_FILENO), first = true;
	uint64_t step = NOISE_DRAIN_EVERY_NS, last_view = clock_ns(CLOCK_MONOTONIC), now;

	while (!stop_requested && noise_running(run)) {
		wait_a_while(run, step);
		step = noise_drain(run);
		noise_explain_pump(explain, run);
		now = clock_ns(CLOCK_MONOTONIC);
		if (live && now - last_view >= NS_PER_SEC) {
			noise_report_live(stdout, run, first);
			first = false;
			last_view = now;
		}
	}
	if (live && !first)
		noise_report_live_clear(stdout, run);
}

/* What every run is checked for, whoever filled its options; the document begun. */
static bool check_run(struct noise_session *s, int argc, char **argv)
{
	int status;

	s->limit = (struct rt_throttling){ .runtime_us = -1, .period_us = 1000000 };
	cli_set_verbosity(s->opts.verbose);
	status = machine_open(NULL, &s->root, &s->topo);
	if (status) {
		part_record(&s->result, PART_NO_MACHINE, status, "cannot read the machine's cpus");
		return false;
	}
	status = validity_strict_check_root(s->opts.strict);
	if (status) {
		part_record(&s->result, PART_STRICT, status, "--strict needs root");
		return false;
	}
	if (check_against_machine(s) || check_size(s))
		return false;
	choose_clock(&s->opts, s->root);
	if (check_threshold(s))
		return false;
	s->doc = result_new("noise", argc, argv);
	if (!s->doc)
		return !part_refuse(&s->result, PART_NO_MEMORY, EXIT_ERROR, "out of memory");
	return true;
}

bool noise_session_prepare(struct noise_session *s, int argc, char **argv, int *status)
{
	if (!option_parse(&noise_command, argc, argv, &s->opts, NULL, status))
		return false;
	if (check_run(s, argc, argv))
		return true;
	*status = s->result.status;
	return false;
}

void noise_options_default(struct noise_options *o)
{
	memset(o, 0, sizeof(*o));
	noise_command.init(o);
}

bool noise_session_configure(struct noise_session *s, int argc, char **argv)
{
	int status = noise_command.finish(&s->opts, NULL);

	if (status) {
		part_record(&s->result, PART_REFUSED, status, "refused by its own checks");
		return false;
	}
	return check_run(s, argc, argv);
}

/* @ret: what noise_prepare(), noise_explain_begin() or noise_start() returned */
static int not_started(struct noise_session *s, int ret)
{
	if (rt_stop_requested())
		return part_refuse(&s->result, PART_STOPPED, EXIT_ERROR,
				   "stopped before the measurement began");
	return part_record(&s->result, PART_NOT_STARTED, EXIT_ERROR,
			   "the measurement did not start: %s", strerror(-ret));
}

/* Once the threads spin: what each obtained and who else may run above them. */
static int read_threads(struct noise_session *s)
{
	unsigned int i;

	for (i = 0; i < s->run.nr_cpus; i++)
		if (validity_add_lane(&s->validity, s->run.workers[i].tid, (int)s->run.cpus[i].cpu,
				      s->opts.params.policy, s->opts.params.priority))
			return part_refuse(&s->result, PART_NO_MEMORY, EXIT_ERROR, "out of memory");
	validity_read_threads(&s->validity, s->root);
	return 0;
}

int noise_session_run(struct noise_session *s, FILE *out)
{
	struct noise_options *o = &s->opts;
	int ret;

	if (validity_init(&s->validity, s->root, &s->topo, &o->params.cpus))
		return part_refuse(&s->result, PART_NO_MEMORY, EXIT_ERROR, "out of memory");

	if (rt_policy_is_realtime(o->params.policy) && rt_read_throttling(s->root, &s->limit))
		log_warning(
			"cannot read sched_rt_runtime_us: RT throttling will not be recognised");
	/* the library said why in its line: the result keeps the reason */
	ret = machine_hold(&s->hold, s->root,
			   &(struct machine_wants){ .lock = MACHINE_LOCK_TRY,
						    .fault_shows_as = "gaps",
						    .pm_qos = !o->no_dma_latency });
	if (ret)
		return part_record(&s->result, PART_NOT_HELD, ret, "%s", s->hold.failed);
	machine_place_main(&s->topo.online, &o->params.cpus, NULL);
	ret = noise_prepare(&s->run, s->root, &o->params);
	if (!ret)
		ret = noise_explain_begin(&s->explain, o->explain, &s->run, s->root, &s->limit,
					  o->trace_dir != NULL);
	if (ret)
		return not_started(s, ret);
	machine_hold_validity(&s->hold, &s->validity);
	s->validity.explain_wanted = o->explain == EXPLAIN_WITH_TRACE;
	s->validity.explain_traced = s->explain.run.session != NULL;
	ret = validity_say_explain(&s->validity, o->strict);
	if (ret)
		return part_record(&s->result, PART_STRICT, ret,
				   "--strict: the tracing --explain asked for is not available");
	ret = noise_start(&s->run);
	if (ret)
		return not_started(s, ret);
	if (read_threads(s))
		return EXIT_ERROR;
	noise_report_header(out, &s->run);
	follow_run(o, &s->run, &s->explain);
	noise_stop(&s->run);
	validity_read_end(&s->validity, s->root);
	/* kernel state first: nothing of ours outlives the measurement */
	machine_release(&s->hold);
	if (noise_explain_end(&s->explain, &s->run) ||
	    noise_explain_gap_causes(&s->explain, &s->run))
		log_warning("out of memory explaining the gaps");
	explain_run_validity(&s->explain.run, &s->validity);
	noise_classify_throttling(&s->run, &s->limit);
	if (noise_find_periods(&s->run))
		log_warning("out of memory looking for periodic gaps");
	else if (noise_explain_join(&s->explain, &s->run))
		log_warning("out of memory joining the periodic gaps to their causes");
	return EXIT_OK;
}

void noise_session_report(struct noise_session *s, FILE *out)
{
	noise_report_summary(out, &s->run, &s->limit, &s->explain);
	noise_explain_report(out, &s->explain, &s->run);
}

json_t *noise_session_document(struct noise_session *s)
{
	const struct noise_run *run = &s->run;
	json_t *doc = s->doc, *cpus, *reader;

	result_set_end_time(doc);
	json_object_set_new(doc, "host", result_host_facts(s->root, &s->topo));
	json_object_set_new(doc, "params", noise_result_params(run));
	json_object_set_new(doc, "elapsed_ns", json_integer((json_int_t)run->elapsed_ns));
	/* as timer says it: how the run ended, and the signal that ended it */
	json_object_set_new(doc, "end", json_string(stop_requested ? "stopped" : "complete"));
	json_object_set_new(doc, "signal",
			    stop_requested ? json_sprintf("SIG%s", sigabbrev_np(stop_requested)) :
					     json_null());
	cpus = noise_result_cpus(run);
	noise_explain_json(&s->explain, run, cpus);
	json_object_set_new(doc, "cpus", cpus);
	reader = explain_run_reader_json(&s->explain.run);
	if (reader)
		json_object_set_new(doc, "trace_reader", reader);
	json_object_set_new(doc, "validity", validity_json(&s->validity));
	return doc;
}

void noise_session_free(struct noise_session *s)
{
	machine_release(&s->hold);
	noise_explain_release(&s->explain);
	noise_release(&s->run);
	validity_release(&s->validity);
	json_decref(s->doc);
	topology_release(&s->topo);
	sysroot_free(s->root);
	option_release(&noise_command, &s->opts);
	memset(s, 0, sizeof(*s));
}
