// SPDX-License-Identifier: GPL-2.0-or-later
/* latscope timer's run: the machine, the options, what is held while measuring. */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "latscope/log.h"
#include "latscope/result.h"
#include "machine.h"
#include "part_result.h"
#include "timer_session.h"
#include "validity_report.h"

void timer_session_free(struct timer_session *s)
{
	machine_release(&s->hold);
	timer_explain_release(&s->explain);
	validity_release(&s->validity);
	timer_free(s->run);
	json_decref(s->doc);
	free(s->shown_max);
	free(s->next_sample);
	timer_options_release(&s->opts);
	topology_release(&s->topo);
	sysroot_free(s->root);
}

/* An option weighs when the run without what it adds is 10% smaller or more. */
static bool weighs(const struct timer_params *all, const struct timer_params *without,
		   uint64_t need)
{
	return (timer_memory_estimate(all) - timer_memory_estimate(without)) * 10 >= need;
}

/*
 * Threads, histogram and spike records are all allocated, prefaulted and
 * possibly locked before the first sample: a run that cannot fit is
 * refused now, naming what makes it big, rather than taking the machine's
 * memory (-t 1000 -h 1000000 would take 16 GB).
 */
static int check_size(struct timer_session *s)
{
	const struct timer_options *opts = &s->opts;
	const struct timer_params *params = &opts->params;
	unsigned int nr = params->nr_threads, max_threads, online = cpuset_count(&s->topo.online);
	struct timer_params without;
	char culprits[160], a[32], b[32], c[32];
	uint64_t need, limit;
	const char *source;
	bool explain;
	size_t used;

	max_threads = TIMER_THREADS_PER_CPU * online;
	if (nr > max_threads && !opts->force)
		return part_refuse(&s->result, PART_REFUSED, EXIT_USAGE,
				   "-t %u is more than %d threads per online cpu (%u online: at "
				   "most %u); pass --force to run them anyway",
				   nr, TIMER_THREADS_PER_CPU, online, max_threads);
	/* the command's own share: the p99 followed per thread for --explain */
	need = timer_memory_estimate(params) +
	       (opts->explain == EXPLAIN_OFF ? 0 : (uint64_t)nr * sizeof(struct hist));
	source = rt_memory_limit(opts->mlockall, &limit);
	if (need <= limit)
		return 0;
	/* "-t 700", "-t 700 and -h 1000000", "-t 700, -h 1000000 and --explain" */
	used = (size_t)snprintf(culprits, sizeof(culprits), "-t %u", nr);
	without = *params;
	without.spike_capacity = TIMER_SPIKE_CAPACITY;
	without.sample_ring = opts->verbose ? TIMER_SAMPLE_RING : 0;
	explain = opts->explain != EXPLAIN_OFF && weighs(params, &without, need);
	without = *params;
	without.histogram_buckets = 0;
	if (weighs(params, &without, need))
		used += (size_t)snprintf(culprits + used, sizeof(culprits) - used, "%s%s %u",
					 explain ? ", " : " and ", opts->histofall ? "-H" : "-h",
					 params->histogram_buckets);
	if (explain)
		snprintf(culprits + used, sizeof(culprits) - used, " and --explain");
	return part_refuse(&s->result, PART_REFUSED, EXIT_USAGE,
			   "%s would take %s of memory (%s a thread), more than the %s allowed "
			   "(%s): use fewer threads or smaller buffers",
			   culprits, format_bytes(need, a, sizeof(a)),
			   format_bytes(need / nr, b, sizeof(b)), format_bytes(limit, c, sizeof(c)),
			   source);
}

/* The machine the options are checked against: its CPUs, and those this process may use. */
static bool open_machine(struct timer_session *s)
{
	int status;

	s->out = stdout;
	status = machine_open(NULL, &s->root, &s->topo);
	if (!status)
		status = machine_allowed_cpus(s->root, &s->topo.online, &s->allowed);
	if (!status)
		status = machine_affinity_cpus(&s->topo.online, &s->affinity);
	if (status)
		part_record(&s->result, PART_NO_MACHINE, status, "cannot read the machine's cpus");
	return !status;
}

/* What every run is checked for, whoever filled its options; the document begun. */
static bool check_run(struct timer_session *s, int argc, char **argv)
{
	int status;

	s->opts.params.root = s->root;
	status = validity_strict_check_root(s->opts.strict);
	if (status) {
		part_record(&s->result, PART_STRICT, status, "--strict needs root");
		return false;
	}
	if (check_size(s))
		return false;
	s->shown_max = calloc(s->opts.params.nr_threads, sizeof(*s->shown_max));
	s->next_sample = calloc(s->opts.params.nr_threads, sizeof(*s->next_sample));
	s->doc = result_new("timer", argc, argv);
	if (!s->shown_max || !s->next_sample || !s->doc)
		return !part_refuse(&s->result, PART_NO_MEMORY, EXIT_ERROR, "out of memory");
	if (s->opts.verbose)
		cli_set_verbosity(s->opts.verbose);
	if (s->opts.unbuffered)
		setvbuf(stdout, NULL, _IONBF, 0);
	s->live = isatty(STDOUT_FILENO) && !s->opts.quiet && !s->opts.verbose;
	return true;
}

/* The CPUs the timer's options are checked against and laid out on. */
static struct timer_machine session_machine(const struct timer_session *s)
{
	return (struct timer_machine){ &s->topo.online, &s->allowed, &s->affinity };
}

bool timer_session_prepare(struct timer_session *s, int argc, char **argv, int *status)
{
	struct timer_machine machine = session_machine(s);

	if (!open_machine(s)) {
		*status = s->result.status;
		return false;
	}
	if (!timer_options_parse(argc, argv, &machine, &s->opts, status))
		return false;
	if (check_run(s, argc, argv))
		return true;
	*status = s->result.status;
	return false;
}

bool timer_session_open(struct timer_session *s)
{
	if (!open_machine(s))
		return false;
	timer_options_default(&s->opts);
	return true;
}

bool timer_session_configure(struct timer_session *s, int argc, char **argv)
{
	const struct timer_words *words = &s->opts.words;
	struct timer_machine machine = session_machine(s);
	char why[1024];
	int status;

	/* what the parser checks of -a LIST as it reads it */
	if (words->affinity_given && machine_cpus_refused("-a", &words->affinity, &s->topo.online,
							  &s->allowed, why, sizeof(why)))
		return !part_refuse(&s->result, PART_REFUSED, EXIT_USAGE, "%s", why);
	status = timer_options_finish(&s->opts, &machine);
	if (status) {
		part_record(&s->result, PART_REFUSED, status, "refused by its own checks");
		return false;
	}
	return check_run(s, argc, argv);
}

/* Once the threads run: what each obtained and who else may run above them. */
static int read_threads(struct timer_session *s)
{
	const struct timer_params *params = &s->opts.params;
	unsigned int i;

	for (i = 0; i < params->nr_threads; i++)
		if (validity_add_lane(&s->validity, timer_thread_tid(s->run, i),
				      params->threads[i].cpu, params->policy,
				      params->threads[i].priority))
			return part_refuse(&s->result, PART_NO_MEMORY, EXIT_ERROR, "out of memory");
	validity_read_threads(&s->validity, s->root);
	return 0;
}

int timer_session_start(struct timer_session *s)
{
	const struct timer_options *opts = &s->opts;
	int ret;

	if (validity_init(&s->validity, s->root, &s->topo,
			  opts->pinned ? &opts->measured : &s->affinity))
		return part_refuse(&s->result, PART_NO_MEMORY, EXIT_ERROR, "out of memory");
	s->validity.realtime_wanted = true;

	if (opts->params.policy == RT_POLICY_OTHER)
		log_warning("threads run SCHED_OTHER (no -p): use -p PRIO to measure as a "
			    "SCHED_FIFO task");
	ret = machine_hold(
		&s->hold, s->root,
		&(struct machine_wants){
			.lock = opts->mlockall ? MACHINE_LOCK_REQUIRED : MACHINE_LOCK_NONE,
			.fault_shows_as = "latency",
			.pm_qos = opts->pm_qos,
			.pm_qos_us = opts->latency_us,
		});
	/* the library said why in its line: the result keeps the reason */
	if (ret)
		return part_record(&s->result, PART_NOT_HELD, ret, "%s", s->hold.failed);
	if (s->hold.pm_qos_held) {
		fprintf(s->out, "# /dev/cpu_dma_latency set to %dus\n", opts->latency_us);
		fflush(s->out);
	}
	/* tracing must run before the first wake-up it may have to explain */
	if (timer_explain_begin(&s->explain, opts, s->root))
		return part_refuse(&s->result, PART_NO_MEMORY, EXIT_ERROR, "out of memory");
	machine_hold_validity(&s->hold, &s->validity);
	s->validity.explain_wanted = opts->explain == EXPLAIN_WITH_TRACE;
	s->validity.explain_traced = s->explain.run.session != NULL;
	ret = validity_say_explain(&s->validity, opts->strict);
	if (ret)
		return part_record(&s->result, PART_STRICT, ret,
				   "--strict: the tracing --explain asked for is not available");
	ret = timer_start(&s->run, &opts->params);
	if (ret && rt_stop_requested())
		return part_refuse(&s->result, PART_STOPPED, EXIT_ERROR,
				   "stopped before the first sample");
	if (ret)
		return part_record(&s->result, PART_NOT_STARTED, EXIT_ERROR,
				   "the measuring threads did not start: %s", strerror(-ret));
	/*
	 * After the threads exist: unpinned ones inherit the main thread's
	 * cpus. Pinned ones leave their cpus to themselves when a
	 * housekeeping cpu exists; a failure here costs accuracy, not the run.
	 */
	machine_place_main(&s->affinity, opts->pinned ? &opts->measured : &s->affinity,
			   opts->main_affinity_given ? &opts->main_affinity : NULL);
	return read_threads(s);
}

int timer_session_run(struct timer_session *s)
{
	sigset_t wait_mask;
	int status;

	/* stop signals are taken only inside the wait */
	machine_block_stop_signals(&wait_mask);

	status = timer_session_start(s);
	if (status) {
		machine_release(&s->hold);
		pthread_sigmask(SIG_SETMASK, &wait_mask, NULL);
		return status;
	}
	timer_live_follow(s, &wait_mask);
	status = timer_stop(s->run) ? EXIT_ERROR : EXIT_OK;
	validity_read_end(&s->validity, s->root);
	machine_release(&s->hold);
	if (timer_explain_end(&s->explain, s->run))
		log_warning("out of memory explaining the spikes");
	explain_run_validity(&s->explain.run, &s->validity);
	pthread_sigmask(SIG_SETMASK, &wait_mask, NULL);
	return status;
}
