// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include "latscope-config.h"
#include "latscope/cpuinfo.h"
#include "latscope/log.h"
#include "latscope/json_writer.h"
#include "latscope/result.h"

static json_t *iso_time_now(void)
{
	struct timespec now;
	struct tm tm;
	char text[64];

	clock_gettime(CLOCK_REALTIME, &now);
	gmtime_r(&now.tv_sec, &tm);
	snprintf(text, sizeof(text), "%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ", tm.tm_year + 1900,
		 tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
		 now.tv_nsec / 1000000);
	return json_string(text);
}

json_t *result_new(const char *command, int argc, char **argv)
{
	json_t *doc = json_object(), *line = json_array();
	int i;

	if (!doc || !line) {
		json_decref(doc);
		json_decref(line);
		return NULL;
	}
	json_array_append_new(line, json_string("latscope"));
	for (i = 0; i < argc; i++)
		json_array_append_new(line, json_string(argv[i]));
	json_object_set_new(doc, "schema", json_string(RESULT_SCHEMA));
	json_object_set_new(doc, "command", json_string(command));
	json_object_set_new(doc, "version", json_string(LATSCOPE_VERSION));
	json_object_set_new(doc, "command_line", line);
	json_object_set_new(doc, "start_time", iso_time_now());
	return doc;
}

void result_set_end_time(json_t *doc)
{
	json_object_set_new(doc, "end_time", iso_time_now());
}

/*
 * @set as a cpu list in @small, or in memory the caller frees when it does
 * not fit: *@text is either, NULL when out of memory.
 */
static char *cpuset_text(const struct cpuset *set, char *small, size_t size, char **text)
{
	/* most sets are short; "..." is how a list says it did not fit */
	cpuset_format_list(set, small, size);
	*text = small;
	if (!strstr(small, "..."))
		return NULL;
	*text = malloc(CPUSET_LIST_SIZE);
	if (*text)
		cpuset_format_list(set, *text, CPUSET_LIST_SIZE);
	return *text;
}

json_t *result_cpuset(const struct cpuset *set)
{
	char small[256], *text, *allocated = cpuset_text(set, small, sizeof(small), &text);
	json_t *list = text ? json_string(text) : NULL;

	free(allocated);
	return list;
}

void result_write_cpuset(struct json_writer *w, const struct cpuset *set)
{
	char small[256], *text, *allocated = cpuset_text(set, small, sizeof(small), &text);

	if (text)
		json_writer_string(w, text);
	else
		json_writer_fail(w, -ENOMEM);
	free(allocated);
}

int result_read_cpuset(const json_t *value, struct cpuset *set)
{
	json_t *item;
	size_t i;

	if (json_is_string(value))
		return cpuset_parse_list(json_string_value(value), set);
	if (!json_is_array(value))
		return -EINVAL;
	cpuset_clear(set);
	json_array_foreach(value, i, item)
	{
		json_int_t cpu;

		if (!json_is_integer(item))
			return -EINVAL;
		cpu = json_integer_value(item);
		if (cpu < 0)
			return -EINVAL;
		if (cpu >= CPUSET_MAX_CPUS)
			return -ERANGE;
		cpuset_add(set, (unsigned int)cpu);
	}
	return 0;
}

bool result_schema_readable(const json_t *doc)
{
	const char *schema = json_string_value(json_object_get(doc, "schema"));

	return schema && (!strcmp(schema, RESULT_SCHEMA) || !strcmp(schema, RESULT_SCHEMA_V2) ||
			  !strcmp(schema, RESULT_SCHEMA_V1));
}

static json_t *file_string(struct sysroot *root, const char *path)
{
	char buf[4096];

	if (sysroot_read(root, buf, sizeof(buf), "%s", path) < 0)
		return json_null();
	return json_string(buf);
}

/*
 * The cpuinfo "hypervisor" flag says a guest runs; on the live machine the
 * hypervisor's CPUID signature says which one ("KVMKVMKVM", "Microsoft Hv").
 */
static json_t *hypervisor_name(struct sysroot *root)
{
#if defined(__x86_64__) || defined(__i386__)
	unsigned int eax, sig[3];
	char name[13];

	if (sysroot_is_live(root)) {
		__cpuid(0x40000000, eax, sig[0], sig[1], sig[2]);
		memcpy(name, sig, sizeof(sig));
		name[12] = '\0';
		for (int i = 11; i >= 0 && (name[i] == '\0' || name[i] == ' '); i--)
			name[i] = '\0';
		if (name[0])
			return json_string(name);
	}
#else
	(void)root;
#endif
	return json_string("hypervisor");
}

static json_t *cpuinfo_facts(struct sysroot *root, json_t *host)
{
	char *cpuinfo, *model, *flags, *end;
	bool hypervisor;

	if (sysroot_read_alloc(root, &cpuinfo, NULL, "/proc/cpuinfo") ||
	    cpuinfo_flags(root, &flags)) {
		json_object_set_new(host, "cpu_model", json_null());
		json_object_set_new(host, "virtualization", json_null());
		return host;
	}
	hypervisor = words_have(flags, "hypervisor");
	free(flags);
	model = strstr(cpuinfo, "model name");
	if (model && (model = strchr(model, ':'))) {
		model += 2;
		end = strchr(model, '\n');
		if (end)
			*end = '\0';
		json_object_set_new(host, "cpu_model", json_string(model));
	} else {
		json_object_set_new(host, "cpu_model", json_null());
	}
	json_object_set_new(host, "virtualization",
			    hypervisor ? hypervisor_name(root) : json_string("none"));
	free(cpuinfo);
	return host;
}

static json_t *uname_facts(struct sysroot *root)
{
	json_t *u = json_object();
	struct utsname live;

	if (sysroot_is_live(root) && !uname(&live)) {
		json_object_set_new(u, "sysname", json_string(live.sysname));
		json_object_set_new(u, "nodename", json_string(live.nodename));
		json_object_set_new(u, "release", json_string(live.release));
		json_object_set_new(u, "version", json_string(live.version));
		json_object_set_new(u, "machine", json_string(live.machine));
		return u;
	}
	json_object_set_new(u, "sysname", file_string(root, "/proc/sys/kernel/ostype"));
	json_object_set_new(u, "nodename", file_string(root, "/proc/sys/kernel/hostname"));
	json_object_set_new(u, "release", file_string(root, "/proc/sys/kernel/osrelease"));
	json_object_set_new(u, "version", file_string(root, "/proc/sys/kernel/version"));
	json_object_set_new(u, "machine", json_null());
	return u;
}

json_t *result_host_facts(struct sysroot *root, const struct topology *topo)
{
	json_t *host = json_object();

	json_object_set_new(host, "uname", uname_facts(root));
	cpuinfo_facts(root, host);
	json_object_set_new(host, "kernel_cmdline", file_string(root, "/proc/cmdline"));
	json_object_set_new(host, "online_cpus", result_cpuset(&topo->online));
	json_object_set_new(host, "isolated_cpus", result_cpuset(&topo->isolated));
	json_object_set_new(host, "nohz_full_cpus", result_cpuset(&topo->nohz_full));
	json_object_set_new(host, "housekeeping_cpus", result_cpuset(&topo->housekeeping));
	json_object_set_new(host, "numa_nodes", json_integer(topo->nr_nodes));
	json_object_set_new(host, "clocksource",
			    file_string(root, "/sys/devices/system/clocksource/clocksource0/"
					      "current_clocksource"));
	return host;
}

json_t *result_percentiles(const struct hist *h)
{
	json_t *p = json_object();
	char key[32];
	size_t i;

	for (i = 0; i < HIST_NR_REPORTED; i++) {
		snprintf(key, sizeof(key), "p%g", hist_reported_percentiles[i]);
		json_object_set_new(
			p, key,
			json_integer((json_int_t)hist_percentile(h, hist_reported_percentiles[i])));
	}
	return p;
}

json_t *result_histogram(const struct hist *h)
{
	json_t *hist = json_object(), *buckets = json_array();
	unsigned int i;

	for (i = 0; i < HIST_BUCKETS; i++) {
		if (!h->buckets[i])
			continue;
		json_array_append_new(buckets, json_pack("[III]", (json_int_t)hist_bucket_low(i),
							 (json_int_t)hist_bucket_high(i),
							 (json_int_t)h->buckets[i]));
	}
	json_object_set_new(hist, "unit", json_string("ns"));
	json_object_set_new(hist, "buckets", buckets);
	json_object_set_new(hist, "overflow", json_integer((json_int_t)h->overflow));
	json_object_set_new(hist, "overflow_above_ns", json_integer((json_int_t)HIST_MAX_NS));
	return hist;
}

json_t *result_period_sources(const struct period_source *sources, int nr_sources)
{
	json_t *list = json_array();
	int i;

	for (i = 0; i < nr_sources; i++) {
		const struct period_source *s = &sources[i];

		/* nested_in: the faster source whose gaps it is inside, its
		 * durations what it adds to them; hidden: its slots inside a
		 * faster source's gap, not among the seen */
		json_array_append_new(
			list,
			json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:o}", "period_ns",
				  (json_int_t)s->period_ns, "phase_ns", (json_int_t)s->phase_ns,
				  "duration_ns", (json_int_t)s->duration_ns, "max_duration_ns",
				  (json_int_t)s->max_duration_ns, "jitter_ns",
				  (json_int_t)s->jitter_ns, "seen", (json_int_t)s->seen, "expected",
				  (json_int_t)s->expected, "hidden", (json_int_t)s->hidden,
				  "nested_in",
				  s->nested_in < nr_sources ? json_integer(s->nested_in) :
							      json_null()));
	}
	return list;
}
