// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * latscope's own JSON into the result model: every command, schema
 * latscope/1 (CPU sets as arrays), latscope/2 (cpu-list strings) and
 * latscope/3 (time blocks).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import_internal.h"
#include "latscope/monitor_blocks.h"
#include "latscope/monitor_state.h"

/* the newest schema this reader knows; later ones are refused */
#define SCHEMA_NEWEST 3

/* what reading one document needs at hand */
struct reader {
	struct import_ctx *ctx;
	struct jsondoc *doc;
	uint64_t epoch_ns; /* the start of the run on the wall clock, RUN_NONE if unknown */
	bool failed; /* out of memory somewhere */
};

static uint64_t get_u64(const json_t *obj, const char *key)
{
	const json_t *v = json_object_get(obj, key);

	if (json_is_integer(v))
		return json_integer_value(v) >= 0 ? (uint64_t)json_integer_value(v) : RUN_NONE;
	return json_is_real(v) ? import_whole(json_real_value(v)) : RUN_NONE;
}

static double get_real(const json_t *obj, const char *key)
{
	const json_t *v = json_object_get(obj, key);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

static int get_int(const json_t *obj, const char *key, int absent)
{
	const json_t *v = json_object_get(obj, key);

	if (!json_is_integer(v) || json_integer_value(v) < -1 || json_integer_value(v) > 1 << 30)
		return absent;
	return (int)json_integer_value(v);
}

static const char *get_str(const json_t *obj, const char *key)
{
	return json_string_value(json_object_get(obj, key));
}

static char *dup_str(struct reader *r, const json_t *obj, const char *key)
{
	return import_strdup(get_str(obj, key), &r->failed);
}

/* a cpu set: an array of numbers (latscope/1) or a cpu-list string (latscope/2) */
static int read_cpuset(struct reader *r, const json_t *value, struct cpuset *set)
{
	struct jsondoc_table t;
	size_t i;

	cpuset_clear(set);
	if (json_is_string(value))
		return cpuset_parse_list(json_string_value(value), set) ? -EINVAL : 0;
	if (jsondoc_table(r->doc, value, &t) || (t.rows && t.width != 1))
		return -EINVAL;
	for (i = 0; i < t.rows; i++) {
		if (t.values[i] < 0 || t.values[i] >= CPUSET_MAX_CPUS)
			return -EINVAL;
		cpuset_add(set, (unsigned int)t.values[i]);
	}
	return 0;
}

static int read_host(struct reader *r, const json_t *host, struct run_host *h)
{
	const json_t *uname = json_object_get(host, "uname");
	static const struct {
		const char *key;
		size_t offset;
	} sets[] = {
		{ "online_cpus", offsetof(struct run_host, online) },
		{ "isolated_cpus", offsetof(struct run_host, isolated) },
		{ "nohz_full_cpus", offsetof(struct run_host, nohz_full) },
		{ "housekeeping_cpus", offsetof(struct run_host, housekeeping) },
	};
	size_t i;

	if (!json_is_object(host))
		return 0;
	h->nodename = dup_str(r, uname, "nodename");
	h->kernel = dup_str(r, uname, "release");
	h->kernel_version = dup_str(r, uname, "version");
	h->machine = dup_str(r, uname, "machine");
	h->cpu_model = dup_str(r, host, "cpu_model");
	h->cmdline = dup_str(r, host, "kernel_cmdline");
	h->virtualization = dup_str(r, host, "virtualization");
	h->clocksource = dup_str(r, host, "clocksource");
	if (h->cmdline)
		h->cmdline[strcspn(h->cmdline, "\n")] = '\0';
	if (h->clocksource)
		h->clocksource[strcspn(h->clocksource, "\n")] = '\0';
	if (h->kernel_version) {
		h->preempt_rt_known = true;
		h->preempt_rt = strstr(h->kernel_version, "PREEMPT_RT") != NULL;
	}
	h->has_cpus = json_object_get(host, "online_cpus") != NULL;
	for (i = 0; i < sizeof(sets) / sizeof(sets[0]); i++) {
		const json_t *v = json_object_get(host, sets[i].key);

		if (!v || json_is_null(v))
			continue;
		if (read_cpuset(r, v, (struct cpuset *)((char *)h + sets[i].offset)))
			return import_fail(r->ctx, -EINVAL, "host.%s is not a cpu list",
					   sets[i].key);
	}
	return 0;
}

/* a word of a command line as a shell would need it */
static void append_word(char **line, size_t *len, const char *word, bool *failed)
{
	bool quote = !*word || strpbrk(word, " \t\n'\"\\$`*?[]{}();&|<>#~") != NULL;
	size_t need = strlen(word) * 4 + 4, at = *len;
	char *grown = realloc(*line, *len + need + 1);
	const char *p;

	if (!grown) {
		*failed = true;
		return;
	}
	*line = grown;
	if (at)
		grown[at++] = ' ';
	if (quote)
		grown[at++] = '\'';
	for (p = word; *p; p++) {
		if (quote && *p == '\'') {
			memcpy(grown + at, "'\\''", 4);
			at += 4;
		} else {
			grown[at++] = *p;
		}
	}
	if (quote)
		grown[at++] = '\'';
	grown[at] = '\0';
	*len = at;
}

static char *command_line(struct reader *r, const json_t *value)
{
	char *line = NULL;
	size_t len = 0, i;

	if (json_is_string(value))
		return import_strdup(json_string_value(value), &r->failed);
	if (!json_is_array(value))
		return NULL;
	for (i = 0; i < json_array_size(value); i++) {
		const char *word = json_string_value(json_array_get(value, i));

		if (word)
			append_word(&line, &len, word, &r->failed);
	}
	return line;
}

static int read_histogram(struct reader *r, const json_t *value, struct run_histogram *h,
			  const char *who)
{
	const char *unit = get_str(value, "unit");
	uint64_t scale = 1, above;
	struct jsondoc_table t;
	size_t i;

	if (!json_is_object(value))
		return 0;
	if (unit && !strcmp(unit, "us"))
		scale = 1000;
	else if (unit && strcmp(unit, "ns"))
		return import_fail(r->ctx, -EINVAL, "%s: histogram in unknown unit '%s'", who,
				   unit);
	if (jsondoc_table(r->doc, json_object_get(value, "buckets"), &t) ||
	    (t.rows && t.width != 3))
		return import_fail(r->ctx, -EINVAL,
				   "%s: histogram buckets are not [low, high, count] triples", who);
	h->buckets = calloc(t.rows ? t.rows : 1, sizeof(*h->buckets));
	if (!h->buckets)
		return -ENOMEM;
	for (i = 0; i < t.rows; i++) {
		const int64_t *row = t.values + i * 3;
		struct run_bucket *b = &h->buckets[h->nr_buckets];

		if (row[0] < 0 || row[1] < row[0] || row[2] < 0 ||
		    (uint64_t)row[1] > (UINT64_MAX - scale) / scale)
			return import_fail(r->ctx, -EINVAL, "%s: histogram bucket %zu is invalid",
					   who, i);
		if (h->nr_buckets && (uint64_t)row[0] * scale <= b[-1].high_ns)
			return import_fail(r->ctx, -EINVAL,
					   "%s: histogram buckets overlap or are out of order",
					   who);
		if (!row[2])
			continue;
		b->low_ns = (uint64_t)row[0] * scale;
		b->high_ns = (uint64_t)row[1] * scale + (scale - 1);
		b->count = (uint64_t)row[2];
		h->total += b->count;
		h->nr_buckets++;
	}
	h->overflow = get_u64(value, "overflow");
	if (!run_has(h->overflow))
		h->overflow = 0;
	h->total += h->overflow;
	above = get_u64(value, "overflow_above_ns");
	h->overflow_from_ns = run_has(above) ? above + 1 : RUN_NONE;
	h->present = true;
	return 0;
}

static void read_percentiles(struct reader *r, const json_t *value, struct run_series *s)
{
	const char *key;
	json_t *v;
	size_t n = json_object_size(value), i, j;

	if (!json_is_object(value) || !n)
		return;
	s->percentiles = calloc(n, sizeof(*s->percentiles));
	if (!s->percentiles) {
		r->failed = true;
		return;
	}
	json_object_foreach((json_t *)value, key, v)
	{
		double percent;

		if (key[0] != 'p' || !import_decimal(key + 1, &percent) || percent <= 0 ||
		    percent > 100 || !json_is_integer(v) || json_integer_value(v) < 0)
			continue;
		s->percentiles[s->nr_percentiles].percent = percent;
		s->percentiles[s->nr_percentiles].ns = (uint64_t)json_integer_value(v);
		s->nr_percentiles++;
	}
	/* ascending by percent; a handful of items */
	for (i = 1; i < s->nr_percentiles; i++)
		for (j = i; j > 0 && s->percentiles[j - 1].percent > s->percentiles[j].percent;
		     j--) {
			struct run_percentile t = s->percentiles[j];

			s->percentiles[j] = s->percentiles[j - 1];
			s->percentiles[j - 1] = t;
		}
}

static int add_events(struct run_series *s, size_t more)
{
	struct run_event *grown;

	if (!more)
		return 0;
	if (more > SIZE_MAX / sizeof(*grown) - s->nr_events)
		return -ENOMEM;
	grown = realloc(s->events, (s->nr_events + more) * sizeof(*grown));
	if (!grown)
		return -ENOMEM;
	s->events = grown;
	return 0;
}

/*
 * A list of events: rows [t_ns, ns, ...] or objects {"t_ns", "ns"} (also
 * named "gap_ns", "latency_ns" or "duration_ns").
 */
static int read_events(struct reader *r, const json_t *list, struct run_series *s, const char *who)
{
	static const char *const size_keys[] = { "ns", "gap_ns", "latency_ns", "duration_ns" };
	struct jsondoc_table t;
	size_t i, k;

	if (!json_is_array(list))
		return 0;
	if (!jsondoc_table(r->doc, list, &t)) {
		if (t.rows && t.width < 2)
			return import_fail(r->ctx, -EINVAL, "%s: event records are not [t_ns, ns]",
					   who);
		if (add_events(s, t.rows))
			return -ENOMEM;
		for (i = 0; i < t.rows; i++) {
			const int64_t *row = t.values + i * t.width;

			if (row[0] < 0 || row[1] < 0)
				return import_fail(r->ctx, -EINVAL, "%s: negative event record",
						   who);
			s->events[s->nr_events].t_ns = (uint64_t)row[0];
			s->events[s->nr_events].ns = (uint64_t)row[1];
			s->nr_events++;
		}
		return 0;
	}
	if (add_events(s, json_array_size(list)))
		return -ENOMEM;
	for (i = 0; i < json_array_size(list); i++) {
		const json_t *e = json_array_get(list, i);
		uint64_t t_ns = get_u64(e, "t_ns"), ns = RUN_NONE;

		for (k = 0; k < sizeof(size_keys) / sizeof(size_keys[0]) && !run_has(ns); k++)
			ns = get_u64(e, size_keys[k]);
		if (!run_has(t_ns) || !run_has(ns))
			return import_fail(r->ctx, -EINVAL,
					   "%s: an event record without t_ns and ns", who);
		s->events[s->nr_events].t_ns = t_ns;
		s->events[s->nr_events].ns = ns;
		s->nr_events++;
	}
	return 0;
}

static int read_periodic(struct reader *r, const json_t *list, struct run_series *s)
{
	size_t n = json_array_size(list), i;

	if (!n)
		return 0;
	s->periodic = calloc(n, sizeof(*s->periodic));
	if (!s->periodic)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		const json_t *p = json_array_get(list, i);
		struct run_periodic *out = &s->periodic[s->nr_periodic];

		out->period_ns = get_u64(p, "period_ns");
		if (!run_has(out->period_ns) || !out->period_ns)
			continue;
		out->phase_ns = get_u64(p, "phase_ns");
		out->duration_ns = get_u64(p, "duration_ns");
		out->max_duration_ns = get_u64(p, "max_duration_ns");
		out->jitter_ns = get_u64(p, "jitter_ns");
		out->seen = get_u64(p, "seen");
		out->expected = get_u64(p, "expected");
		out->cause = import_strdup(get_str(p, "cause"), &r->failed);
		s->nr_periodic++;
	}
	return 0;
}

static int read_causes(struct reader *r, const json_t *list, struct run_series *s)
{
	size_t n = json_array_size(list), i;

	if (!n)
		return 0;
	s->causes = calloc(n, sizeof(*s->causes));
	if (!s->causes)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		const json_t *c = json_array_get(list, i), *periodic;
		struct run_cause *out = &s->causes[s->nr_causes];
		const char *label = get_str(c, "label");

		if (!json_is_object(c))
			continue;
		/* noise and timer write a label; the monitor's state names the cause */
		if (!label)
			label = get_str(c, "name");
		if (!label)
			label = get_str(c, "cause");
		out->kind_name = dup_str(r, c, "kind");
		out->kind = run_cause_kind_of(out->kind_name);
		out->label =
			import_strdup(label ? label : run_cause_kind_name(out->kind), &r->failed);
		out->spikes = get_u64(c, "spikes");
		out->total_ns = get_u64(c, "total_ns");
		if (!run_has(out->total_ns))
			out->total_ns = get_u64(c, "ns");
		if (!run_has(out->total_ns))
			out->total_ns = 0;
		out->max_ns = get_u64(c, "max_ns");
		out->share = get_real(c, "share");
		periodic = json_object_get(c, "periodic");
		out->period_ns = get_u64(periodic, "period_ns");
		out->period_duration_ns = get_u64(periodic, "duration_ns");
		s->nr_causes++;
	}
	return 0;
}

/* the kind of a timeline label, from the split or the cause list */
static enum run_cause_kind kind_of_label(const struct run_series *s, const struct run_spike *spike,
					 const char *label)
{
	unsigned int i;

	for (i = 0; i < spike->nr_split; i++)
		if (spike->split[i].label && !strcmp(spike->split[i].label, label))
			return spike->split[i].kind;
	for (i = 0; i < s->nr_causes; i++)
		if (s->causes[i].label && !strcmp(s->causes[i].label, label))
			return s->causes[i].kind;
	if (!strcmp(label, "timer irq delay"))
		return RUN_CAUSE_TIMER_DELAY;
	if (!strncmp(label, "scheduling", 10))
		return RUN_CAUSE_SCHEDULING;
	if (!strncmp(label, "unexplained", 11))
		return RUN_CAUSE_UNEXPLAINED;
	return RUN_CAUSE_OTHER;
}

static int read_parts(struct reader *r, const json_t *list, struct run_part **out, unsigned int *nr,
		      bool timeline)
{
	size_t n = json_array_size(list), i;

	*out = NULL;
	*nr = 0;
	if (!n)
		return 0;
	*out = calloc(n, sizeof(**out));
	if (!*out)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		const json_t *p = json_array_get(list, i);
		struct run_part *part = &(*out)[*nr];
		const char *label = get_str(p, "label") ?: get_str(p, "cause");

		part->ns = get_u64(p, timeline ? "duration_ns" : "ns");
		if (!label || !run_has(part->ns))
			continue;
		part->label = import_strdup(label, &r->failed);
		part->kind = run_cause_kind_of(get_str(p, "kind"));
		part->offset_ns = timeline ? get_u64(p, "offset_ns") : RUN_NONE;
		(*nr)++;
	}
	return 0;
}

/*
 * @origin_ns: what start_ns of a spike is counted from: 0 when it is
 * already relative to the run (noise), the run's origin on the monotonic
 * clock (timer), RUN_NONE when only "t_ns" can be trusted
 * @epoch_ns: the start of the run on the wall clock, for spikes given by
 * their wall-clock "time_ns" (the monitor's state); RUN_NONE when unknown
 */
static int read_worst(struct reader *r, const json_t *list, struct run_series *s,
		      uint64_t origin_ns, uint64_t epoch_ns)
{
	size_t n = json_array_size(list), i;
	unsigned int j;

	if (!n)
		return 0;
	s->worst = calloc(n, sizeof(*s->worst));
	if (!s->worst)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		const json_t *w = json_array_get(list, i);
		struct run_spike *spike = &s->worst[s->nr_worst];
		uint64_t start = get_u64(w, "start_ns"), wall = get_u64(w, "time_ns");
		uint64_t rest = get_u64(w, "rest_ns");

		spike->duration_ns = get_u64(w, "duration_ns");
		if (!run_has(spike->duration_ns))
			spike->duration_ns = get_u64(w, "latency_ns");
		if (!json_is_object(w) || !run_has(spike->duration_ns))
			continue;
		spike->t_ns = get_u64(w, "t_ns");
		if (!run_has(spike->t_ns) && run_has(origin_ns) && run_has(start) &&
		    start >= origin_ns)
			spike->t_ns = start - origin_ns;
		if (!run_has(spike->t_ns) && run_has(epoch_ns) && run_has(wall) && wall >= epoch_ns)
			spike->t_ns = wall - epoch_ns;
		spike->incomplete = json_is_true(json_object_get(w, "incomplete"));
		s->nr_worst++;
		if (read_parts(r,
			       json_object_get(w, "contributions") ?: json_object_get(w, "parts"),
			       &spike->split, &spike->nr_split, false) ||
		    read_parts(r, json_object_get(w, "timeline"), &spike->timeline,
			       &spike->nr_timeline, true))
			return -ENOMEM;
		/* what the monitor could not attribute */
		if (run_has(rest) && rest) {
			struct run_part *grown =
				realloc(spike->split, (spike->nr_split + 1) * sizeof(*grown));

			if (!grown)
				return -ENOMEM;
			spike->split = grown;
			grown[spike->nr_split++] = (struct run_part){
				.kind = RUN_CAUSE_OTHER,
				.label = import_strdup("not attributed", &r->failed),
				.ns = rest,
				.offset_ns = RUN_NONE,
			};
		}
		for (j = 0; j < spike->nr_timeline; j++)
			if (spike->timeline[j].kind == RUN_CAUSE_OTHER)
				spike->timeline[j].kind =
					kind_of_label(s, spike, spike->timeline[j].label);
	}
	return 0;
}

static int read_counters(struct reader *r, const json_t *obj, struct run_counter **out,
			 unsigned int *nr)
{
	size_t n = json_object_size(obj);
	const char *key;
	json_t *v;

	if (!json_is_object(obj) || !n)
		return 0;
	*out = calloc(n, sizeof(**out));
	if (!*out)
		return -ENOMEM;
	json_object_foreach((json_t *)obj, key, v)
	{
		if (!json_is_integer(v) || json_integer_value(v) < 0)
			continue;
		(*out)[*nr].name = import_strdup(key, &r->failed);
		(*out)[*nr].count = (uint64_t)json_integer_value(v);
		(*nr)++;
	}
	return 0;
}

static int read_block_maxima(struct reader *r, const json_t *value, struct run_series *s,
			     const char *who)
{
	struct jsondoc_table t;
	size_t i;

	if (!json_is_object(value))
		return 0;
	s->block_ns = get_u64(value, "block_ns");
	if (!run_has(s->block_ns) || !s->block_ns ||
	    jsondoc_table(r->doc, json_object_get(value, "max_ns"), &t) || (t.rows && t.width != 1))
		return import_fail(r->ctx, -EINVAL,
				   "%s: block_maxima is not {block_ns, max_ns: [...]}", who);
	s->block_max_ns = malloc((t.rows ? t.rows : 1) * sizeof(*s->block_max_ns));
	if (!s->block_max_ns)
		return -ENOMEM;
	for (i = 0; i < t.rows; i++) {
		if (t.values[i] < 0)
			return import_fail(r->ctx, -EINVAL, "%s: negative block maximum", who);
		s->block_max_ns[i] = (uint64_t)t.values[i];
	}
	s->nr_blocks = t.rows;
	return 0;
}

/*
 * The histogram's counts per coarse key of native_hist.h, for a monitor's
 * blocks; false when a bucket spans two keys or some values overflowed:
 * compare spreads a key's count over the histogram's buckets within it.
 */
static bool coarse_keys_of(const struct run_histogram *h, uint64_t *keys)
{
	unsigned int i, key;

	memset(keys, 0, NATIVE_COARSE_KEYS * sizeof(*keys));
	if (h->overflow)
		return false;
	for (i = 0; i < h->nr_buckets; i++) {
		key = native_coarse_key(native_slot_of(h->buckets[i].low_ns));
		if (h->buckets[i].high_ns > native_coarse_high(key) ||
		    h->buckets[i].low_ns < native_coarse_low(key))
			return false;
		keys[key] += h->buckets[i].count;
	}
	return true;
}

/*
 * A monitor's blocks, read as the monitor reads its state's; @start_ns
 * receives when the first block began (CLOCK_REALTIME).
 */
static int read_monitor_blocks(struct reader *r, const json_t *value, struct time_blocks *tb,
			       uint64_t *start_ns, char *why, size_t size)
{
	struct monitor_blocks *blocks = malloc(sizeof(*blocks));
	int ret;

	if (!blocks)
		return -ENOMEM;
	ret = monitor_blocks_read(r->doc, value, blocks, why, size);
	/* the store moves into the series, which releases it whatever the outcome */
	*tb = blocks->store;
	*start_ns = blocks->start_ns;
	free(blocks);
	return ret;
}

/*
 * Whether a monitor's lost blocks are its history from before blocks: a
 * monitor that continues a state written before them marks its history
 * lost (monitor_blocks_parse()) and begins its first block when it starts,
 * while a state that began with blocks has its first block within moments
 * of its beginning.
 */
#define PREDATES_BLOCKS_NS (60ULL * 1000000000ULL)

static bool history_predates_blocks(const struct reader *r, const struct time_blocks *tb,
				    uint64_t start_ns)
{
	return tb->lost && start_ns && run_has(r->epoch_ns) &&
	       start_ns > r->epoch_ns + PREDATES_BLOCKS_NS;
}

/*
 * A series' time blocks. Malformed ones fail the import; blocks that do not
 * add up to the series' histogram (some were lost in the run) are left out
 * with a note: a statistic that resampled them would see a different run.
 */
static int read_time_blocks(struct reader *r, const json_t *value, struct run_series *s,
			    const char *who)
{
	uint64_t total = 0, count, start_ns = 0, keys[NATIVE_COARSE_KEYS];
	bool overflow = false, monitor = r->ctx->run->kind == RUN_MONITOR;
	unsigned int i;
	char why[200];
	json_t *when;
	int ret;

	if (!value)
		return 0;
	s->time_blocks = calloc(1, sizeof(*s->time_blocks));
	if (!s->time_blocks)
		return -ENOMEM;
	ret = monitor ? read_monitor_blocks(r, value, s->time_blocks, &start_ns, why, sizeof(why)) :
			time_blocks_from_json(r->doc, value, s->time_blocks, why, sizeof(why));
	if (ret == -EINVAL)
		return import_fail(r->ctx, ret, "%s: %s", who, why);
	if (ret)
		return ret;
	/* counts that wrap past 2^64 could land on the histogram's total */
	for (i = 0; i < s->time_blocks->nr && !overflow; i++) {
		count = s->time_blocks->blocks[i].count;
		overflow = total > UINT64_MAX - count;
		total += count;
	}
	if (s->histogram.present && total == s->histogram.total && !s->time_blocks->lost &&
	    !overflow &&
	    (s->time_blocks->layout != TIME_BLOCK_NATIVE_COARSE ||
	     (coarse_keys_of(&s->histogram, keys) && monitor_blocks_hold(s->time_blocks, keys))))
		return 0;
	if (monitor && history_predates_blocks(r, s->time_blocks, start_ns)) {
		when = state_time(start_ns);
		ret = import_note(r->ctx,
				  "%s: the state's history before %s predates time blocks: "
				  "intervals for it assume independent samples",
				  who, json_string_value(when) ?: "its first block");
		json_decref(when);
	} else if (s->time_blocks->lost) {
		ret = import_note(r->ctx,
				  "%s: %llu time blocks were lost in the run: its blocks are "
				  "left out",
				  who, (unsigned long long)s->time_blocks->lost);
	} else if (overflow) {
		ret = import_note(r->ctx,
				  "%s: its time blocks hold more values than a count holds: its "
				  "blocks are left out",
				  who);
	} else if (s->histogram.present && total == s->histogram.total) {
		ret = import_note(r->ctx,
				  "%s: its time blocks do not add up to its histogram bucket by "
				  "bucket: its blocks are left out",
				  who);
	} else {
		ret = import_note(
			r->ctx,
			"%s: its time blocks hold %llu values, its histogram %llu: its "
			"blocks are left out",
			who, (unsigned long long)total,
			(unsigned long long)(s->histogram.present ? s->histogram.total : 0));
	}
	time_blocks_release(s->time_blocks);
	free(s->time_blocks);
	s->time_blocks = NULL;
	return ret;
}

static int64_t window_end(const json_t *w)
{
	const json_t *v = json_object_get(w, "end_ns");

	if (json_is_integer(v))
		return json_integer_value(v);
	v = json_object_get(w, "end");
	if (!v)
		v = json_object_get(w, "end_time");
	return import_iso_time(json_string_value(v));
}

static uint64_t window_value(const int64_t *column, size_t i)
{
	return column && column[i] >= 0 ? (uint64_t)column[i] : RUN_NONE;
}

/*
 * A state written since the windows' runs keeps no block maxima of its
 * own: they are the max of each complete window (one the monitor ran
 * throughout, with a sample), the blocks compare's GEV fit takes.
 */
static int maxima_of_windows(struct run_series *s)
{
	size_t i;

	s->block_max_ns = malloc((s->nr_windows ? s->nr_windows : 1) * sizeof(*s->block_max_ns));
	if (!s->block_max_ns)
		return -ENOMEM;
	s->block_ns = s->window_ns;
	for (i = 0; i < s->nr_windows; i++) {
		const struct run_window *w = &s->windows[i];

		if (!w->partial && run_has(w->count) && w->count && run_has(w->max_ns))
			s->block_max_ns[s->nr_blocks++] = w->max_ns;
	}
	return 0;
}

/* The view's windows into @s; 0 or an import failure. */
static int take_window_columns(struct reader *r, const struct state_windows *view,
			       uint64_t window_ns, struct run_series *s, const char *who)
{
	const int64_t *index = view->values[STATE_WINDOW_INDEX];
	const int64_t *partial = view->values[STATE_WINDOW_PARTIAL];
	size_t n = view->rows, i, c;

	if (view->status[STATE_WINDOW_INDEX] == STATE_COLUMN_LENGTH)
		return import_fail(r->ctx, -EINVAL,
				   "%s: windows.index: runs of more than %llu windows", who,
				   STATE_MAX_RUN_WINDOWS);
	if (!run_has(window_ns) || !window_ns ||
	    view->status[STATE_WINDOW_INDEX] != STATE_COLUMN_OK)
		return import_fail(r->ctx, -EINVAL, "%s: windows without window_ns and index", who);
	/* a column may be absent; one that is there has a number per window */
	for (c = STATE_WINDOW_INDEX + 1; c < STATE_WINDOW_COLUMNS; c++)
		if (view->status[c] != STATE_COLUMN_OK && view->status[c] != STATE_COLUMN_ABSENT)
			return import_fail(r->ctx, -EINVAL, "%s: windows.%s is not %zu numbers",
					   who, state_window_column_name(c), n);
	s->window_ns = window_ns;
	s->windows = calloc(n ? n : 1, sizeof(*s->windows));
	if (!s->windows)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		struct run_window *w = &s->windows[i];

		if (index[i] < 0 || (uint64_t)index[i] >= INT64_MAX / window_ns - 1)
			return import_fail(r->ctx, -EINVAL, "%s: window index %lld", who,
					   (long long)index[i]);
		w->end_ns = (index[i] + 1) * (int64_t)window_ns;
		w->count = window_value(view->values[STATE_WINDOW_COUNT], i);
		w->max_ns = window_value(view->values[STATE_WINDOW_MAX], i);
		w->p99_ns = window_value(view->values[STATE_WINDOW_P99], i);
		w->missed = window_value(view->values[STATE_WINDOW_MISSED], i);
		w->partial = partial && partial[i] > 0;
	}
	s->nr_windows = n;
	return view->values[STATE_WINDOW_MAX] && !run_has(s->block_ns) ? maxima_of_windows(s) : 0;
}

/*
 * Monitor windows as the monitor's state writes them, a column per field
 * (state_windows_view() reads both its forms): {"window_ns", "index"
 * (window i spans [index, index + 1) * window_ns on the wall clock),
 * "count", "max_ns", "p99_ns", "missed", "partial"}; or a list of objects
 * {"end" (ISO 8601) or "end_ns", "max_ns", "p99_ns", "count", "missed"}.
 */
static int read_windows(struct reader *r, const json_t *windows, struct run_series *s,
			const char *who)
{
	struct state_windows view;
	size_t n, i;
	int ret;

	if (json_is_object(windows)) {
		ret = state_windows_view(r->doc, windows, &view);
		if (ret)
			return ret;
		ret = take_window_columns(r, &view, get_u64(windows, "window_ns"), s, who);
		state_windows_release(&view);
		return ret;
	}
	if (!json_is_array(windows))
		return 0;
	n = json_array_size(windows);
	s->windows = calloc(n ? n : 1, sizeof(*s->windows));
	if (!s->windows)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		const json_t *o = json_array_get(windows, i);
		struct run_window *w = &s->windows[s->nr_windows];

		w->end_ns = window_end(o);
		if (w->end_ns == RUN_NO_TIME)
			return import_fail(r->ctx, -EINVAL, "%s: window %zu has no end time", who,
					   i);
		w->max_ns = get_u64(o, "max_ns");
		w->p99_ns = get_u64(o, "p99_ns");
		w->count = get_u64(o, "count");
		w->missed = get_u64(o, "missed");
		s->nr_windows++;
	}
	return 0;
}

static int read_series(struct reader *r, const json_t *entry, enum run_measure measure,
		       uint64_t origin_ns, uint64_t window_ns)
{
	struct run_series *s = import_add_series(r->ctx->run);
	const json_t *gaps, *records, *explain;
	char who[64], label[64];
	int ret;

	if (!s)
		return -ENOMEM;
	if (!json_is_object(entry))
		return import_fail(r->ctx, -EINVAL, "a CPU or thread entry is not an object");
	s->measure = measure;
	s->cpu = get_int(entry, "cpu", -1);
	s->thread = get_int(entry, "thread", -1);
	if (s->thread >= 0 && s->cpu >= 0)
		snprintf(label, sizeof(label), "thread %d (cpu %d)", s->thread, s->cpu);
	else if (s->thread >= 0)
		snprintf(label, sizeof(label), "thread %d", s->thread);
	else if (s->cpu >= 0)
		snprintf(label, sizeof(label), "cpu %d", s->cpu);
	else
		snprintf(label, sizeof(label), "entry %u", r->ctx->run->nr_series - 1);
	snprintf(who, sizeof(who), "%s", label);
	s->label = import_strdup(label, &r->failed);

	s->interval_ns = get_u64(entry, "interval_ns");
	s->run_ns = get_u64(entry, "run_ns");
	s->count = get_u64(entry, "loops");
	if (!run_has(s->count))
		s->count = get_u64(entry, "cycles");
	if (!run_has(s->count))
		s->count = get_u64(entry, "count");
	s->min_ns = get_u64(entry, "min_ns");
	s->max_ns = get_u64(entry, "max_ns");
	s->avg_ns = get_real(entry, "avg_ns");
	/* the monitor's state keeps the sum, from which the mean follows */
	if (isnan(s->avg_ns) && run_has(get_u64(entry, "sum_ns")) && run_has(s->count) && s->count)
		s->avg_ns = (double)get_u64(entry, "sum_ns") / (double)s->count;
	s->missed = get_u64(entry, "missed");
	read_percentiles(r, json_object_get(entry, "percentiles"), s);
	ret = read_histogram(r, json_object_get(entry, "histogram"), &s->histogram, who);
	if (ret)
		return ret;
	/* a count of zero with min 0 is no measurement at all */
	if (run_has(s->count) && !s->count)
		s->min_ns = s->max_ns = RUN_NONE, s->avg_ns = NAN;

	gaps = json_object_get(entry, "gaps");
	if (json_is_object(gaps)) {
		uint64_t not_stored = get_u64(gaps, "not_stored");

		s->threshold_ns = get_u64(gaps, "threshold_ns");
		s->events_above = get_u64(gaps, "count");
		s->lost_ns = get_u64(gaps, "lost_ns");
		records = json_object_get(gaps, "records");
		ret = read_events(r, records, s, who);
		if (ret)
			return ret;
		s->events_complete = records && run_has(s->events_above) &&
				     s->nr_events == s->events_above &&
				     (!run_has(not_stored) || !not_stored);
	}
	records = json_object_get(entry, "spike_records");
	if (json_is_object(records)) {
		uint64_t dropped = get_u64(records, "dropped");

		s->threshold_ns = get_u64(records, "threshold_ns");
		ret = read_events(r, json_object_get(records, "records"), s, who);
		if (ret)
			return ret;
		s->events_complete = run_has(dropped) && !dropped;
	}
	/* a timer's largest spikes, which may lie below an adaptive threshold */
	ret = read_events(r, json_object_get(entry, "spikes"), s, who);
	if (ret)
		return ret;

	/* noise and timer keep their causes in the entry, the monitor under "explain" */
	explain = json_object_get(entry, "explain");
	if (read_periodic(r, json_object_get(entry, "periodic"), s) ||
	    read_causes(r, json_object_get(entry, "causes") ?: json_object_get(explain, "causes"),
			s) ||
	    read_worst(r,
		       json_object_get(entry, "worst_spikes") ?:
			       json_object_get(explain, "worst_spikes"),
		       s, origin_ns, r->epoch_ns))
		return -ENOMEM;
	s->explained_ns = get_u64(json_object_get(entry, "explained_spikes"), "total_ns");
	if (read_counters(r, json_object_get(json_object_get(entry, "counters"), "interrupts"),
			  &s->interrupts, &s->nr_interrupts) ||
	    read_counters(r, json_object_get(json_object_get(entry, "counters"), "softirqs"),
			  &s->softirqs, &s->nr_softirqs))
		return -ENOMEM;
	ret = read_block_maxima(r, json_object_get(entry, "block_maxima"), s, who);
	if (!ret)
		ret = read_time_blocks(r, json_object_get(entry, "time_blocks"), s, who);
	if (ret)
		return ret;
	s->window_ns = get_u64(entry, "window_ns");
	if (!run_has(s->window_ns))
		s->window_ns = window_ns;
	ret = read_windows(r, json_object_get(entry, "windows"), s, who);
	if (ret)
		return ret;
	import_finish_series(s);
	return r->failed ? -ENOMEM : 0;
}

static int read_series_list(struct reader *r, const json_t *root, enum run_measure measure,
			    uint64_t origin_ns)
{
	const json_t *list = json_object_get(root, "cpus");
	const json_t *params = json_object_get(root, "params");
	uint64_t window_ns = get_u64(root, "window_ns");
	size_t i;
	int ret;

	if (!run_has(window_ns))
		window_ns = get_u64(params, "window_ns");
	if (!json_is_array(list))
		list = json_object_get(root, "threads");
	if (!json_is_array(list))
		return import_fail(r->ctx, -EINVAL, "a %s result without \"cpus\" or \"threads\"",
				   r->ctx->run->command ? r->ctx->run->command : "latscope");
	for (i = 0; i < json_array_size(list); i++) {
		ret = read_series(r, json_array_get(list, i), measure, origin_ns, window_ns);
		if (ret)
			return ret;
	}
	return 0;
}

static int command_kind(const char *command, enum run_kind *kind)
{
	static const struct {
		const char *name;
		enum run_kind kind;
	} commands[] = {
		{ "noise", RUN_NOISE },	    { "timer", RUN_TIMER }, { "cyclic", RUN_TIMER },
		{ "check", RUN_CHECK },	    { "irq", RUN_IRQ },	    { "monitor", RUN_MONITOR },
		{ "compare", RUN_COMPARE }, { "ab", RUN_COMPARE },  { "doctor", RUN_DOCTOR },
	};
	size_t i;

	for (i = 0; command && i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(command, commands[i].name)) {
			*kind = commands[i].kind;
			return 0;
		}
	return -EINVAL;
}

static int read_document(struct import_ctx *ctx, struct jsondoc *doc, const json_t *root,
			 unsigned int schema, const char *command_hint, struct run *parent);

/*
 * doctor keeps the result of each part it ran; each becomes a run of its
 * own so that a page or compare reads it like a separate input
 */
static int read_doctor_parts(struct import_ctx *ctx, struct jsondoc *doc, const json_t *root,
			     unsigned int schema)
{
	static const char *const part_keys[] = { "check", "irq", "irq_plan", "timer", "noise" };
	struct run *doctor = ctx->run;
	const json_t *parts = json_object_get(root, "parts");
	const char *key;
	json_t *value;
	size_t i;
	int ret;

	json_object_foreach((json_t *)(json_is_object(parts) ? parts : root), key, value)
	{
		const char *hint = NULL;

		if (!json_is_object(value))
			continue;
		for (i = 0; i < sizeof(part_keys) / sizeof(part_keys[0]); i++)
			if (!strcmp(key, part_keys[i]))
				hint = !strcmp(key, "irq_plan") ? "irq" : key;
		if (!hint && !json_is_string(json_object_get(value, "command")))
			continue;
		ret = read_document(ctx, doc, value, schema, hint, doctor);
		ctx->run = doctor;
		if (ret)
			return ret;
	}
	for (i = 0; json_is_array(parts) && i < json_array_size(parts); i++) {
		ret = read_document(ctx, doc, json_array_get(parts, i), schema, NULL, doctor);
		ctx->run = doctor;
		if (ret)
			return ret;
	}
	return 0;
}

static int add_part(struct run *parent, struct run *part)
{
	struct run **grown = realloc(parent->parts, (parent->nr_parts + 1) * sizeof(*grown));

	if (!grown)
		return -ENOMEM;
	parent->parts = grown;
	parent->parts[parent->nr_parts++] = part;
	return 0;
}

static void copy_host(struct run_host *to, const struct run_host *from, bool *failed)
{
	*to = *from;
	to->nodename = import_strdup(from->nodename, failed);
	to->kernel = import_strdup(from->kernel, failed);
	to->kernel_version = import_strdup(from->kernel_version, failed);
	to->machine = import_strdup(from->machine, failed);
	to->cpu_model = import_strdup(from->cpu_model, failed);
	to->cmdline = import_strdup(from->cmdline, failed);
	to->virtualization = import_strdup(from->virtualization, failed);
	to->clocksource = import_strdup(from->clocksource, failed);
}

static int read_document(struct import_ctx *ctx, struct jsondoc *doc, const json_t *root,
			 unsigned int schema, const char *command_hint, struct run *parent)
{
	struct reader r = { .ctx = ctx, .doc = doc, .epoch_ns = RUN_NONE };
	const char *command = get_str(root, "command");
	enum run_kind kind;
	struct run *run;
	uint64_t origin;
	int ret;

	if (!command)
		command = command_hint;
	if (command_kind(command, &kind))
		return import_fail(ctx, -EINVAL,
				   command ? "a latscope result of unknown command '%s'" :
					     "a latscope result without \"command\"%s",
				   command ? command : "");
	run = import_new_run(ctx->name, RUN_FORMAT_LATSCOPE, kind);
	if (!run)
		return -ENOMEM;
	if (parent) {
		ret = add_part(parent, run);
		if (ret) {
			run_free(run);
			return ret;
		}
	}
	ctx->run = run;
	run->schema = schema;
	run->command = import_strdup(command, &r.failed);
	run->subcommand = dup_str(&r, root, "subcommand");
	run->tool_version = dup_str(&r, root, "version");
	run->command_line = command_line(&r, json_object_get(root, "command_line"));
	run->start_ns = import_iso_time(get_str(root, "start_time"));
	run->end_ns = import_iso_time(get_str(root, "end_time"));
	run->stopped = (get_str(root, "end") && strcmp(get_str(root, "end"), "complete")) ||
		       json_is_object(json_object_get(root, "break"));
	run->json = (json_t *)root;
	if (json_object_get(root, "host"))
		ret = read_host(&r, json_object_get(root, "host"), &run->host);
	else if (parent)
		copy_host(&run->host, &parent->host, &r.failed), ret = 0;
	else
		ret = 0;
	if (ret)
		return ret;

	switch (kind) {
	case RUN_NOISE:
		ret = read_series_list(&r, root, RUN_MEASURE_NOISE, 0);
		break;
	case RUN_TIMER:
		origin = get_u64(root, "origin_ns");
		ret = read_series_list(&r, root, RUN_MEASURE_TIMER, origin);
		break;
	case RUN_MONITOR: {
		/* a state spans restarts: its spikes count from when it began */
		int64_t began = import_iso_time(get_str(json_object_get(root, "state"), "began"));

		if (began == RUN_NO_TIME)
			began = run->start_ns;
		if (began != RUN_NO_TIME && began >= 0) {
			r.epoch_ns = (uint64_t)began;
			run->start_ns = began;
		}
		ret = read_series_list(&r, root, RUN_MEASURE_TIMER, RUN_NONE);
		break;
	}
	case RUN_DOCTOR:
		ret = read_doctor_parts(ctx, doc, root, schema);
		break;
	default:
		/* check, irq and compare: the page reads their JSON as it is */
		ret = 0;
	}
	if (ret)
		return ret;
	return r.failed ? -ENOMEM : 0;
}

int import_latscope(struct import_ctx *ctx, struct jsondoc *doc)
{
	const json_t *root = jsondoc_root(doc);
	const char *schema = get_str(root, "schema");
	unsigned long version;
	char *end;
	int ret;

	if (!schema || strncmp(schema, "latscope/", 9) || schema[9] < '1' || schema[9] > '9')
		return import_fail(ctx, -EINVAL,
				   "unknown schema '%s': expected latscope/1, /2 or /3",
				   schema ? schema : "(not a string)");
	version = strtoul(schema + 9, &end, 10);
	if (*end)
		return import_fail(ctx, -EINVAL,
				   "unknown schema '%s': expected latscope/1, /2 or /3", schema);
	if (version > SCHEMA_NEWEST)
		return import_fail(ctx, -EINVAL,
				   "written by a newer latscope (schema %s); this version reads "
				   "latscope/1, /2 and /3",
				   schema);
	/* on failure ctx->run is the top run (parts belong to it): the caller frees it */
	ret = read_document(ctx, doc, root, (unsigned int)version, NULL, NULL);
	if (ret)
		return ret;
	ctx->run->doc = doc;
	return 0;
}
