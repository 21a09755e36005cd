// SPDX-License-Identifier: GPL-2.0-or-later
/* latscope monitor's option table and the rules between its options. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "cli.h"
#include "common_options.h"
#include "latscope/exporter_http.h"
#include "latscope/log.h"
#include "latscope/parse.h"
#include "monitor_options.h"
#include "option_table.h"

#define MONITOR(member) OPTION_FIELD(struct monitor_options, member)

static const struct option_choice policies[] = {
	{ "fifo", RT_POLICY_FIFO },
	{ "rr", RT_POLICY_RR },
	{ NULL, 0 },
};

/*
 * The exporter's parser says what is wrong with an address; its line is
 * kept here and said once, naming the option, as every usage error is.
 */
static char listen_reason[256];

static void keep_listen_reason(enum log_level level, const char *message)
{
	if (level <= LATSCOPE_LOG_WARNING)
		snprintf(listen_reason, sizeof(listen_reason), "%s", message);
}

static int parse_listen(const struct option_value *value)
{
	struct sockaddr_storage addr;
	socklen_t len;
	int ret;

	listen_reason[0] = '\0';
	log_set_hook(keep_listen_reason);
	ret = exporter_listen_parse(value->text, &addr, &len);
	cli_install_log_hook();
	if (ret)
		return usage_error("%s for %s",
				   listen_reason[0] ? listen_reason : "invalid listen address",
				   value->spelled);
	*(const char **)value->field = value->text;
	return 0;
}

/*
 * The state is checked with the default's path, once every option is read
 * (cmd_monitor.c): it is read before it is written, and a directory that
 * cannot be written now is a runtime error there, not a usage error.
 */
static int parse_state(const struct option_value *value)
{
	if (!*value->text)
		return usage_error("empty path for %s", value->spelled);
	*(const char **)value->field = value->text;
	return 0;
}

static const struct option_spec monitor_option_specs[] = {
	OPTION_MEASURED_CPUS(MONITOR(params.cpus), MONITOR(cpus_given),
			     "isolated and nohz_full cpus, else all online"),
	{ .long_name = "interval",
	  .short_name = 'i',
	  .kind = OPTION_DURATION,
	  .where = MONITOR(params.interval_ns),
	  .duration = { NS_PER_US, 10 * NS_PER_US, NS_PER_SEC },
	  .help = "time between two wake-ups" },
	{ .long_name = "policy",
	  .kind = OPTION_CHOICE,
	  .where = MONITOR(params.policy),
	  .choices = policies,
	  .noun = "policy",
	  .value_name = "POLICY",
	  .help = "scheduling policy of the measuring threads" },
	{ .long_name = "priority",
	  .short_name = 'p',
	  .kind = OPTION_INTEGER,
	  .where = MONITOR(params.priority),
	  .integer = { 1, 99 },
	  .help = "their real-time priority" },
	{ .long_name = "explain",
	  .short_name = 'e',
	  .kind = OPTION_FLAG,
	  .where = MONITOR(params.explain),
	  .help = "attribute every spike to its cause from tracepoints in a private tracefs "
		  "instance, for as long as the monitor runs" },
	{ .long_name = "explain-above",
	  .kind = OPTION_DURATION,
	  .where = MONITOR(params.explain_above_ns),
	  .given = MONITOR(explain_above_given),
	  .duration = { NS_PER_US, 1, 1000 * NS_PER_SEC },
	  .help = "spikes are latencies at or above DUR",
	  .default_text = "above each cpu's p99, followed as it runs" },
	{ .long_name = "window",
	  .short_name = 'w',
	  .kind = OPTION_DURATION,
	  .where = MONITOR(params.window_ns),
	  .duration = { NS_PER_SEC, NS_PER_SEC, NS_PER_DAY },
	  .help = "close a window (max, p99, count, missed) every DUR of the wall clock" },
	{ .long_name = "audit-every",
	  .kind = OPTION_DURATION,
	  .where = MONITOR(params.audit_every_ns),
	  .duration = { NS_PER_SEC, 0, 30 * NS_PER_DAY },
	  .help = "re-run check's audit on the measured cpus every DUR; 0: never" },
	{ .long_name = "listen",
	  .short_name = 'l',
	  .kind = OPTION_CUSTOM,
	  .where = MONITOR(listen),
	  .parse = parse_listen,
	  .value_name = "ADDR:PORT",
	  .help = "serve /metrics there; another machine can scrape only an address given "
		  "here (:PORT is every address, port 0 a free one)",
	  .default_text = EXPORTER_DEFAULT_LISTEN },
	{ .long_name = "web-config",
	  .kind = OPTION_INPUT_FILE,
	  .where = MONITOR(web_config_path),
	  .help = "TLS and basic auth, in the Prometheus exporter-toolkit's YAML" },
	{ .long_name = "textfile",
	  .kind = OPTION_OUTPUT_DIR,
	  .where = MONITOR(params.textfile_dir),
	  .value_name = "DIR",
	  .help = "write DIR/latscope.prom for node_exporter's textfile collector every 15s" },
	{ .long_name = "state",
	  .kind = OPTION_CUSTOM,
	  .where = MONITOR(params.state_path),
	  .given = MONITOR(state_given),
	  .parse = parse_state,
	  .complete_as = OPTION_OUTPUT_FILE,
	  .value_name = "FILE",
	  .help = "the state: continued when it matches, else kept aside and begun anew" },
	{ .long_name = "checkpoint",
	  .kind = OPTION_DURATION,
	  .where = MONITOR(params.checkpoint_ns),
	  .duration = { NS_PER_SEC, NS_PER_SEC, NS_PER_DAY },
	  .help = "write the state every DUR (and at the end)" },
	OPTION_RUN_DURATION(MONITOR(duration_ns),
			    .default_text = "until SIGINT, SIGTERM or SIGHUP"),
	OPTION_BUDGET(MONITOR(budget_ns), 'b'),
	/* at the end: the state's document with how the run ended */
	OPTION_INCLUDE_AT(json_output_options, MONITOR(json)),
	OPTION_STRICT(MONITOR(strict)),
	{ .long_name = "no-dma-latency",
	  .kind = OPTION_FLAG,
	  .where = MONITOR(no_dma_latency),
	  .help = "do not hold /dev/cpu_dma_latency at 0 while measuring" },
	{ .long_name = "quiet",
	  .short_name = 'q',
	  .kind = OPTION_FLAG,
	  .where = MONITOR(quiet),
	  .help = "no live view and no header; the summary at the end only" },
	OPTION_INCLUDE_AT(verbose_options, MONITOR(verbose)),
	OPTION_TABLE_END,
};

static void monitor_defaults(void *options)
{
	struct monitor_options *o = options;

	monitor_params_default(&o->params);
	o->params.state_path = MONITOR_DEFAULT_STATE;
}

/* Rules between options, once every word is read. */
static int monitor_finish(void *options, void *context)
{
	struct monitor_options *o = options;
	const struct monitor_params *p = &o->params;
	char a[32], b[32];

	(void)context;
	if (o->explain_above_given && !p->explain)
		return usage_error("--explain-above needs --explain");
	if (p->audit_every_ns && p->audit_every_ns < MONITOR_MIN_AUDIT_EVERY_NS)
		return usage_error("--audit-every %s is too often: at least 1s (0: never)",
				   format_duration(p->audit_every_ns, a, sizeof(a)));
	/* a window is at least 1 s and an interval at most 1 s: it holds one at least */
	if (p->window_ns / p->interval_ns > MONITOR_MAX_SAMPLES_PER_WINDOW)
		return usage_error("--window %s holds %" PRIu64 " intervals of %s: at most %llu",
				   format_duration(p->window_ns, a, sizeof(a)),
				   p->window_ns / p->interval_ns,
				   format_duration(p->interval_ns, b, sizeof(b)),
				   MONITOR_MAX_SAMPLES_PER_WINDOW);
	return json_output_finish(&o->json);
}

const struct option_command monitor_command = {
	.name = "monitor",
	.description =
		"Measure the timer wake-up latency of the real-time CPUs for as long as it\n"
		"runs, keep the histogram and 35 days of windowed maxima across restarts,\n"
		"explain every spike, watch the audit drift, and serve it all to Prometheus\n"
		"(OpenMetrics, protobuf native histograms) and node_exporter's textfile.",
	.options = monitor_option_specs,
	.size = sizeof(struct monitor_options),
	.init = monitor_defaults,
	.finish = monitor_finish,
	.footer = "Durations take a unit: ns, us, ms, s, m, h, d. SIGINT, SIGTERM or SIGHUP:\n"
		  "the last checkpoint, every kernel setting restored, exit 0. Exit status:\n"
		  "0 ok, 1 error, 2 a latency above --budget, 129 usage error.\n"
		  "See latscope-monitor(1).",
};
