/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_EXPORTER_FAMILIES_H
#define LATSCOPE_EXPORTER_FAMILIES_H

#ifndef LATSCOPE_INSIDE_MONITOR
#error "lib/monitor/exporter_families.h is private to lib/monitor/: outside it, use the headers of include/latscope/"
#endif

/*
 * The metric families every exposition format writes, once: their sample
 * names (counters with _total, the build info with _info), types, units
 * and help lines. Internal to the exporters.
 */
enum family_type {
	FAMILY_COUNTER,
	FAMILY_GAUGE,
	FAMILY_HISTOGRAM,
	FAMILY_INFO, /* a gauge of value 1 in text 0.0.4 and protobuf */
};

struct family {
	const char *name;
	enum family_type type;
	const char *unit; /* or NULL */
	const char *help;
};

enum family_id {
	FAMILY_LATENCY,
	FAMILY_WINDOW_MAX,
	FAMILY_MAX,
	FAMILY_MISSED,
	FAMILY_SPIKES,
	FAMILY_SPIKE_SECONDS,
	FAMILY_LOST,
	FAMILY_INTERRUPTS,
	FAMILY_CHECK_FAILED,
	FAMILY_BUILD_INFO,
	FAMILY_START_TIME,
	FAMILY_COUNT,
};

extern const struct family exporter_families[FAMILY_COUNT];

#endif
