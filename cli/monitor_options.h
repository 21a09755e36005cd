/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_CLI_MONITOR_OPTIONS_H
#define LATSCOPE_CLI_MONITOR_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>

#include "common_options.h"
#include "latscope/monitor.h"

/* Everything `latscope monitor` was asked to do, checked (monitor_command's struct). */
struct monitor_options {
	/* the engine's own: cpus (empty: the library's default), interval,
	 * policy, priority, window, explain, audit, state, checkpoint, textfile */
	struct monitor_params params;
	bool cpus_given;
	bool explain_above_given;
	bool state_given; /* else the default, whose directory may be made */
	const char *listen; /* NULL: EXPORTER_DEFAULT_LISTEN */
	const char *web_config_path;
	uint64_t duration_ns; /* 0: until a signal */
	uint64_t budget_ns; /* 0: none */
	struct json_output json; /* --json FILE, --json-compact */
	bool no_dma_latency;
	bool strict; /* a validity shortfall is exit 1 */
	bool quiet;
	int verbose;
};

/* an audit more often than this would only load the machine */
#define MONITOR_MIN_AUDIT_EVERY_NS 1000000000ULL

#endif
