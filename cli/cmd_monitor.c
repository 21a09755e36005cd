// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * latscope monitor: the engine of lib/monitor/monitor.c run as a service. The
 * options are monitor_options.c's and what is printed monitor_render.c's;
 * this is the order of the run. Everything that can refuse (the options,
 * the web configuration, the state and textfile paths, the port) is checked
 * before the first kernel setting changes; a signal ends the run with the
 * last checkpoint and every setting given back.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "budget.h"
#include "cli.h"
#include "latscope/clock.h"
#include "latscope/exporter.h"
#include "latscope/exporter_http.h"
#include "latscope/input_file.h"
#include "latscope/log.h"
#include "latscope/parse.h"
#include "latscope/result.h"
#include "latscope/web_config.h"
#include "machine.h"
#include "monitor_options.h"
#include "monitor_render.h"
#include "option_table.h"
#include "output_path.h"
#include "validity_report.h"

#define LIVE_EVERY_MS 1000

/* One run: what it was asked, what it holds, what it changed. */
struct monitor_run {
	struct monitor_options o;
	struct sysroot *root;
	struct topology topo;
	struct web_config *web;
	struct monitor *m;
	struct exporter_http *http;
	struct monitor_setup setup;
	struct machine_hold hold; /* while measuring: locked memory, PM QoS */
	sigset_t wait_mask; /* the mask outside the wait: stop signals blocked */
	bool signals_blocked;
	uint64_t started_ns;
	uint64_t elapsed_ns;
	enum monitor_end end;
	int signo;
	struct validity validity; /* the conditions of the run, read as it starts */
};

/*
 * The measured CPUs must be online and allowed; the library says the first
 * too, but as a usage error here, before any work.
 */
static int check_cpus(const struct monitor_run *r)
{
	struct cpuset allowed;
	char why[1024];
	int ret;

	if (!r->o.cpus_given)
		return 0;
	ret = machine_allowed_cpus(r->root, &r->topo.online, &allowed);
	if (ret)
		return ret;
	if (machine_cpus_refused("--cpus", &r->o.params.cpus, &r->topo.online, &allowed, why,
				 sizeof(why)))
		return usage_error("%s", why);
	return 0;
}

/* --web-config: every file read and every hash checked now (the library says what is wrong). */
static int load_web_config(struct monitor_run *r)
{
	struct sockaddr_storage addr;
	socklen_t len;
	const char *listen = r->o.listen ? r->o.listen : EXPORTER_DEFAULT_LISTEN;

	if (r->o.web_config_path && web_config_load(r->o.web_config_path, &r->web))
		return EXIT_USAGE;
	r->setup.listen = listen;
	r->setup.tls = r->web && r->web->tls;
	r->setup.basic_auth = r->web && r->web->nr_users;
	/* only an address given on the command line can be another machine's */
	if (!exporter_listen_parse(listen, &addr, &len) && !exporter_address_is_loopback(&addr) &&
	    !r->setup.tls && !r->setup.basic_auth)
		log_warning("--listen %s: every machine that reaches it can scrape it, without "
			    "TLS or a password (--web-config)",
			    listen);
	return 0;
}

/*
 * A directory the service keeps its files in that cannot be written now (a
 * read-only file system at boot, no permission yet) is the machine's
 * state, not a wrong path: a runtime error, which systemd retries.
 */
static bool not_writable_now(int err)
{
	return err == -EROFS || err == -EACCES;
}

/*
 * The state and textfile paths, before any work: a path that can never be
 * one is a usage error; a state directory that cannot be written now, a
 * runtime error.
 */
static int check_outputs(struct monitor_run *r)
{
	const struct monitor_params *p = &r->o.params;
	/* as every path option is named, or the default with the way to change it */
	const char *before = r->o.state_given ? "--state '" : "the state ";
	const char *after = r->o.state_given ? "'" : "";
	const char *hint = r->o.state_given ? "" : " (choose one with --state)";
	struct stat st;
	int ret, status;

	/* the default's directory is made, as a package would have made it */
	ret = state_check_writable(p->state_path, !r->o.state_given);
	if (ret == -EINVAL && !stat(p->state_path, &st))
		return usage_error("cannot use %s%s%s: %s, not a regular file%s", before,
				   p->state_path, after, input_file_kind(st.st_mode), hint);
	if (not_writable_now(ret))
		return runtime_error("cannot write %s%s%s: %s%s", before, p->state_path, after,
				     strerror(-ret), hint);
	if (ret)
		return usage_error("cannot write %s%s%s: %s%s", before, p->state_path, after,
				   strerror(-ret), hint);
	if (!p->textfile_dir)
		return 0;
	status = output_dir_create("--textfile", p->textfile_dir);
	if (status)
		return status;
	ret = exporter_check_textfile_dir(p->textfile_dir);
	if (ret)
		return usage_error("cannot write --textfile '%s': %s", p->textfile_dir,
				   strerror(-ret));
	return 0;
}

/* The engine, the port and the state, in that order: a port in use leaves the state as it was. */
static int prepare(struct monitor_run *r, int argc, char **argv)
{
	struct exporter_http_options http = { 0 };
	int ret;

	r->o.params.root = r->root;
	r->o.params.argc = argc;
	r->o.params.argv = argv;
	r->m = monitor_new(&r->o.params, &r->topo);
	if (!r->m)
		return EXIT_ERROR;
	http.listen = r->setup.listen;
	http.web = r->web;
	http.cpus = monitor_housekeeping_cpus(r->m);
	http.collect = monitor_collect;
	http.context = r->m;
	r->http = exporter_http_open(&http);
	if (!r->http)
		return EXIT_ERROR;
	r->setup.port = exporter_http_port(r->http);
	ret = monitor_load_state(r->m, &r->setup.outcome);
	return ret ? EXIT_ERROR : 0;
}

/* Once the threads run: what each obtained and who else may run above them. */
static int read_threads(struct monitor_run *r)
{
	struct validity *v = &r->validity;
	struct timer_live live;
	unsigned int lane, cpu;

	machine_hold_validity(&r->hold, v);
	/* --explain refuses to start without tracing: it traces when it runs */
	v->explain_wanted = v->explain_traced = r->o.params.explain;
	for (lane = 0; lane < monitor_nr_cpus(r->m); lane++)
		if (monitor_read_run(r->m, lane, &cpu, &live) &&
		    validity_add_lane(v, monitor_thread_tid(r->m, lane), (int)cpu,
				      r->o.params.policy, r->o.params.priority))
			return runtime_error("out of memory");
	validity_read_threads(v, r->root);
	return 0;
}

/*
 * Before the port is opened: a stop asked for while the state loads (the
 * port already listening) waits, blocked, for the wait, where it ends the
 * run with its checkpoint; stop signals are taken only there.
 */
static int catch_stop_signals(struct monitor_run *r)
{
	if (signals_catch())
		return runtime_error("cannot catch signals: %s", strerror(errno));
	machine_block_stop_signals(&r->wait_mask);
	r->signals_blocked = true;
	return 0;
}

/*
 * A stop asked for while the threads were set up (their memory is prefaulted
 * a chunk at a time, the stop checked in between): the run ends as a stopped
 * one, having measured nothing and left the state as it was.
 */
static bool stopped_while_starting(struct monitor_run *r)
{
	if (!rt_stop_requested())
		return false;
	/* the handler takes the pending signal and names it */
	pthread_sigmask(SIG_SETMASK, &r->wait_mask, NULL);
	r->signals_blocked = false;
	log_warning("stopped by SIG%s before the first wake-up: nothing measured, the state as "
		    "it was",
		    stop_requested ? sigabbrev_np(stop_requested) : "?");
	return true;
}

static int start(struct monitor_run *r)
{
	int ret;

	if (machine_hold(&r->hold, r->root,
			 &(struct machine_wants){ .lock = MACHINE_LOCK_TRY,
						  .fault_shows_as = "latency",
						  .pm_qos = !r->o.no_dma_latency }))
		return EXIT_ERROR;
	r->setup.dma_latency_held = r->hold.pm_qos_held;
	r->setup.memory_locked = r->hold.memory_locked;
	machine_place_main(&r->topo.online, monitor_cpus(r->m), NULL);
	if (validity_init(&r->validity, r->root, &r->topo, monitor_cpus(r->m)))
		return runtime_error("out of memory");
	/*
	 * --explain without tracing refuses rather than falls back: the cause
	 * series are what the user asked to scrape, and the interrupt counts a
	 * fallback would offer are exported anyway.
	 */
	ret = monitor_start(r->m);
	r->started_ns = clock_ns(CLOCK_MONOTONIC);
	if (ret && !stopped_while_starting(r))
		return EXIT_ERROR;
	if (read_threads(r))
		return EXIT_ERROR;
	if (ret)
		return EXIT_OK; /* stopped: nothing to serve */
	if (exporter_http_start(r->http)) {
		/* the measurement ends before the settings it ran under */
		monitor_stop(r->m);
		return EXIT_ERROR;
	}
	return 0;
}

/* Until a signal, --duration, or a measuring thread failing; the live view meanwhile. */
static void follow(struct monitor_run *r)
{
	bool live = !r->o.quiet && isatty(STDOUT_FILENO), drawn = false;
	uint64_t deadline = r->o.duration_ns ? r->started_ns + r->o.duration_ns : 0, now;
	int timeout;

	r->end = MONITOR_END_STOPPED;
	while (!stop_requested) {
		now = clock_ns(CLOCK_MONOTONIC);
		if (deadline && now >= deadline) {
			r->end = MONITOR_END_COMPLETE;
			break;
		}
		timeout = live ? LIVE_EVERY_MS : -1;
		if (deadline && (timeout < 0 || deadline - now < (uint64_t)timeout * NS_PER_MS))
			timeout = (int)((deadline - now + NS_PER_MS - 1) / NS_PER_MS);
		if (monitor_wait(r->m, timeout, &r->wait_mask)) {
			r->end = MONITOR_END_FAILED;
			break;
		}
		if (live && !stop_requested) {
			monitor_render_live(stdout, r->m, !drawn);
			drawn = true;
		}
	}
	r->signo = stop_requested;
	if (drawn)
		monitor_render_live_clear(stdout, r->m);
}

/* --budget: name every CPU over it. */
static int check_budget(const struct monitor_run *r)
{
	struct budget_check check = { r->o.budget_ns, "cpu", EXIT_OK };
	unsigned int lane, cpu;
	struct timer_live live;

	for (lane = 0; check.budget_ns && lane < monitor_nr_cpus(r->m); lane++)
		if (monitor_read_run(r->m, lane, &cpu, &live))
			budget_check_lane(&check, cpu, live.max_ns);
	return check.status;
}

/* --json: the state's document with how this run went. */
static int write_json(struct monitor_run *r)
{
	json_t *extra, *run = json_array();
	unsigned int lane, cpu;
	struct timer_live live;
	int ret;

	for (lane = 0; run && lane < monitor_nr_cpus(r->m); lane++) {
		if (!monitor_read_run(r->m, lane, &cpu, &live))
			continue;
		json_array_append_new(
			run, json_pack("{sIsIsIsIsI}", "cpu", (json_int_t)cpu, "count",
				       (json_int_t)live.cycles, "min_ns", (json_int_t)live.min_ns,
				       "avg_ns",
				       (json_int_t)(live.cycles ? live.sum_ns / live.cycles : 0),
				       "max_ns", (json_int_t)live.max_ns));
	}
	extra = json_pack("{sssosIsosssIso}", "end", monitor_end_name(r->end), "signal",
			  r->signo ? json_sprintf("SIG%s", sigabbrev_np(r->signo)) : json_null(),
			  "elapsed_ns", (json_int_t)r->elapsed_ns, "budget_ns",
			  r->o.budget_ns ? json_integer((json_int_t)r->o.budget_ns) : json_null(),
			  "listen", r->setup.listen, "port", (json_int_t)r->setup.port, "run",
			  run ? run : json_null());
	json_object_set_new(extra, "validity", validity_json(&r->validity));
	if (!extra)
		return runtime_error("out of memory");
	result_set_end_time(extra);
	/* streamed by the library (the state is too large to build), laid out as every --json */
	ret = monitor_write_result(r->m, r->o.json.path, extra, json_output_layout(&r->o.json));
	json_decref(extra);
	return ret ? output_json_failed(&r->o.json, ret) : EXIT_OK;
}

/* In order: systemd told, threads stopped and the last checkpoint, no more scrapes, the machine back. */
static int finish(struct monitor_run *r)
{
	int status;

	monitor_notify_stopping();
	status = monitor_stop(r->m) ? EXIT_ERROR : EXIT_OK;
	r->elapsed_ns = clock_ns(CLOCK_MONOTONIC) - r->started_ns;
	validity_read_end(&r->validity, r->root);
	exporter_http_free(r->http);
	r->http = NULL;
	machine_release(&r->hold);
	monitor_render_summary(stdout, r->m, r->end, r->signo, r->elapsed_ns);
	if (r->end == MONITOR_END_FAILED)
		status = EXIT_ERROR;
	if (r->o.json.path && write_json(r))
		status = EXIT_ERROR;
	if (status == EXIT_OK)
		status = check_budget(r);
	return validity_say(&r->validity, r->o.strict, status);
}

int cmd_monitor(int argc, char **argv)
{
	struct monitor_run r = { 0 };
	char status_line[320], cpus[256];
	int status;

	if (!option_parse(&monitor_command, argc, argv, &r.o, NULL, &status))
		goto out;
	cli_set_verbosity(r.o.verbose);
	status = validity_strict_check_root(r.o.strict);
	if (!status)
		status = machine_open(NULL, &r.root, &r.topo);
	if (!status)
		status = check_cpus(&r);
	if (!status)
		status = load_web_config(&r);
	if (!status)
		status = check_outputs(&r);
	if (!status)
		status = catch_stop_signals(&r);
	if (!status)
		status = prepare(&r, argc, argv);
	if (status)
		goto out;
	status = start(&r);
	if (status)
		goto out;
	if (!stop_requested) {
		if (!r.o.quiet)
			monitor_render_header(stdout, &r.o, r.m, &r.setup);
		snprintf(status_line, sizeof(status_line), "measuring cpus %s, serving port %u",
			 cpuset_format_list(monitor_cpus(r.m), cpus, sizeof(cpus)), r.setup.port);
		monitor_notify_ready(status_line);
	}
	follow(&r);
	status = finish(&r);
out:
	exporter_http_free(r.http);
	machine_release(&r.hold);
	if (r.signals_blocked)
		pthread_sigmask(SIG_SETMASK, &r.wait_mask, NULL);
	monitor_free(r.m);
	validity_release(&r.validity);
	web_config_free(r.web);
	topology_release(&r.topo);
	sysroot_free(r.root);
	option_release(&monitor_command, &r.o);
	return status;
}
