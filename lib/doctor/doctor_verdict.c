// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The verdict of latscope doctor: ready or not for a latency budget, per
 * RT CPU, from the timer's and the noise's result documents.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "doctor_internal.h"
#include "latscope/doctor.h"
#include "latscope/plot.h"
#include "latscope/tail_estimate.h"

#define NO_VALUE UINT64_MAX
/* the return period of the verdict's level */
#define RETURN_PERIOD_S 3600.0

static uint64_t get_u64(const json_t *o, const char *key, uint64_t none)
{
	const json_t *v = json_object_get(o, key);

	return json_is_integer(v) && json_integer_value(v) >= 0 ? (uint64_t)json_integer_value(v) :
								  none;
}

const char *doctor_readiness_name(enum doctor_readiness readiness)
{
	static const char *const names[] = {
		[DOCTOR_READY] = "ready",
		[DOCTOR_NOT_READY] = "not ready",
		[DOCTOR_UNKNOWN] = "unknown",
		[DOCTOR_NOT_MEASURED] = "not measured",
	};

	return readiness <= DOCTOR_NOT_MEASURED ? names[readiness] : "unknown";
}

static struct doctor_cpu_verdict *cpu_entry(struct doctor_verdict *v, int cpu)
{
	struct doctor_cpu_verdict *grown;
	unsigned int i, at;

	for (i = 0; i < v->nr_cpus; i++)
		if (v->cpus[i].cpu == cpu)
			return &v->cpus[i];
	grown = realloc(v->cpus, (v->nr_cpus + 1) * sizeof(*grown));
	if (!grown)
		return NULL;
	v->cpus = grown;
	for (at = v->nr_cpus; at > 0 && v->cpus[at - 1].cpu > cpu; at--)
		v->cpus[at] = v->cpus[at - 1];
	memset(&v->cpus[at], 0, sizeof(v->cpus[at]));
	v->cpus[at].cpu = cpu;
	v->cpus[at].timer_p9999_ns = NO_VALUE;
	v->nr_cpus++;
	return &v->cpus[at];
}

static uint64_t item_u64(const json_t *v)
{
	return json_is_integer(v) && json_integer_value(v) >= 0 ? (uint64_t)json_integer_value(v) :
								  0;
}

/* The 1-hour return level from the block maxima of a timer thread. */
static int return_level(const json_t *entry, uint64_t budget_ns, struct doctor_return_level *r)
{
	const json_t *blocks = json_object_get(entry, "block_maxima");
	const json_t *list = json_object_get(blocks, "max_ns");
	struct tail_estimate *est;
	struct tail_options o;
	uint64_t *maxima;
	size_t i, n = json_array_size(list);
	int ret;

	memset(r, 0, sizeof(*r));
	r->needed = TAIL_MIN_BLOCKS;
	r->blocks = (unsigned int)n;
	if (n < TAIL_MIN_BLOCKS) {
		snprintf(r->says, sizeof(r->says), "not enough blocks (%zu of %d)%s", n,
			 TAIL_MIN_BLOCKS,
			 blocks ? "" : ": this timer result records no block maxima");
		return 0;
	}
	maxima = calloc(n, sizeof(*maxima));
	est = calloc(1, sizeof(*est));
	if (!maxima || !est) {
		free(maxima);
		free(est);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++)
		maxima[i] = item_u64(json_array_get(list, i));
	tail_options_default(&o);
	o.block_ns = get_u64(blocks, "block_ns", o.block_ns);
	if (!o.block_ns)
		o.block_ns = 1000000000ULL;
	o.nr_periods = 1;
	o.periods_s[0] = RETURN_PERIOD_S;
	o.has_budget = true;
	o.budget_ns = budget_ns;
	r->confidence = o.confidence;
	ret = tail_estimate(maxima, (unsigned int)n, &o, est);
	free(maxima);
	if (ret) {
		free(est);
		return ret;
	}
	if (!est->fitted || !est->levels[0].available) {
		snprintf(r->says, sizeof(r->says), "no fit: %.240s",
			 est->fitted ? est->levels[0].reason : est->error);
	} else {
		r->available = true;
		r->value_ns = est->levels[0].value_ns;
		r->has_ci = est->levels[0].has_ci;
		r->ci_ns[0] = est->levels[0].ci_ns[0];
		r->ci_ns[1] = est->levels[0].ci_ns[1];
		r->reliable = est->reliable;
		snprintf(r->says, sizeof(r->says), "%s",
			 est->reliable ?
				 "from a GEV fit whose checks passed" :
			 !est->independence.pass ?
				 "the block maxima are not independent: not used for the verdict" :
			 !est->stationarity.pass ?
				 "the block maxima drift over the run: not used for the verdict" :
			 !est->shape.pass ?
				 "the fitted tail shape is implausible: not used for the verdict" :
				 "the fit is poor: not used for the verdict");
	}
	free(est);
	return 0;
}

static int read_timer(const struct doctor_parts *parts, uint64_t budget_ns,
		      struct doctor_verdict *v)
{
	const json_t *threads = json_object_get(parts->timer, "threads");
	size_t i;
	int cpu, ret;

	for (i = 0; i < json_array_size(threads); i++) {
		const json_t *t = json_array_get(threads, i);
		struct doctor_cpu_verdict *c;
		uint64_t max, p;

		if (!doctor_entry_cpu(parts, t, &cpu))
			continue;
		c = cpu_entry(v, cpu);
		if (!c)
			return -ENOMEM;
		max = get_u64(t, "max_ns", 0);
		p = get_u64(json_object_get(t, "percentiles"), "p99.99", NO_VALUE);
		c->timer_wakeups += get_u64(t, "cycles", 0);
		if (c->timer && max <= c->timer_max_ns)
			continue;
		/* one thread a CPU as doctor runs it; several: the worst speaks */
		c->timer = true;
		c->timer_max_ns = max;
		c->timer_p9999_ns = p;
		ret = return_level(t, budget_ns, &c->return_level);
		if (ret)
			return ret;
	}
	return 0;
}

static int read_noise(const struct doctor_parts *parts, struct doctor_verdict *v)
{
	const json_t *cpus = json_object_get(parts->noise, "cpus");
	size_t i;
	int cpu;

	for (i = 0; i < json_array_size(cpus); i++) {
		const json_t *e = json_array_get(cpus, i), *gaps = json_object_get(e, "gaps");
		struct doctor_cpu_verdict *c;
		uint64_t run_ns = get_u64(e, "run_ns", 0);

		if (!doctor_entry_cpu(parts, e, &cpu))
			continue;
		c = cpu_entry(v, cpu);
		if (!c)
			return -ENOMEM;
		c->noise = get_u64(e, "loops", 0) > 0;
		c->noise_max_ns = get_u64(e, "max_ns", 0);
		c->noise_gaps = get_u64(gaps, "count", 0);
		c->noise_lost_fraction =
			run_ns ? (double)get_u64(gaps, "lost_ns", 0) / (double)run_ns : 0;
	}
	return 0;
}

static void not_seen(struct doctor_verdict *v, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void not_seen(struct doctor_verdict *v, const char *fmt, ...)
{
	va_list ap;
	char *line;

	if (v->nr_not_seen >= sizeof(v->not_seen) / sizeof(v->not_seen[0]))
		return;
	va_start(ap, fmt);
	if (vasprintf(&line, fmt, ap) >= 0)
		v->not_seen[v->nr_not_seen++] = line;
	va_end(ap);
}

/* What was asked and did not measure, or measured without its causes. */
static bool blind_spots(const struct doctor_parts *parts, const struct doctor_fixes *fixes,
			const struct doctor_verdict_options *o, struct doctor_verdict *v)
{
	bool missing = false, timer_samples = false, noise_samples = false;
	unsigned int i;

	for (i = 0; i < v->nr_cpus; i++) {
		timer_samples |= v->cpus[i].timer && v->cpus[i].timer_wakeups;
		noise_samples |= v->cpus[i].noise;
	}
	if (!o->timer_asked) {
		not_seen(v, "timer latency: not measured (--no-timer)");
	} else if (!parts->timer || !timer_samples) {
		not_seen(v, "timer latency: %s",
			 o->timer_missing ? o->timer_missing : "no wake-up was measured");
		missing = true;
	}
	if (!o->noise_asked) {
		not_seen(v, "OS noise: not measured (--no-noise)");
	} else if (!parts->noise || !noise_samples) {
		not_seen(v, "OS noise: %s",
			 o->noise_missing ? o->noise_missing : "no loop was measured");
		missing = true;
	}
	if (fixes && parts->timer && fixes->untraced[DOCTOR_TIMER])
		not_seen(v, "the causes of the timer's spikes: not traced (counts of interrupts "
			    "only)");
	if (fixes && parts->noise && fixes->untraced[DOCTOR_NOISE])
		not_seen(v, "the causes of the noise's gaps: not traced (counts of interrupts "
			    "only)");
	if (!parts->check)
		not_seen(v, "the audit: it did not run, so no fix names its finding");
	if (!parts->irq_plan)
		not_seen(v, "the IRQ plan: it did not run, so no IRQ fix names its move");
	return missing;
}

static void say(struct doctor_verdict *v, bool missing, const struct doctor_verdict_options *o)
{
	char budget[32], a[32], b[32];
	size_t used;
	unsigned int i, listed = 0;

	plot_format_duration((double)v->budget_ns, budget, sizeof(budget));
	switch (v->readiness) {
	case DOCTOR_NOT_READY:
		used = (size_t)snprintf(v->says, sizeof(v->says),
					"not ready for a %s budget:", budget);
		for (i = 0; i < v->nr_cpus && listed < 4 && used < sizeof(v->says); i++) {
			const struct doctor_cpu_verdict *c = &v->cpus[i];

			if (!c->over_budget)
				continue;
			used += (size_t)snprintf(v->says + used, sizeof(v->says) - used,
						 "%s cpu %d", listed ? ";" : "", c->cpu);
			if (used < sizeof(v->says) && c->timer && c->timer_max_ns > v->budget_ns)
				used += (size_t)snprintf(
					v->says + used, sizeof(v->says) - used, " woke up %s late",
					plot_format_duration((double)c->timer_max_ns, a,
							     sizeof(a)));
			else if (used < sizeof(v->says) && c->timer && c->return_level.reliable &&
				 c->return_level.value_ns > (double)v->budget_ns)
				used += (size_t)snprintf(
					v->says + used, sizeof(v->says) - used,
					" would wake up %s late once an hour",
					plot_format_duration(c->return_level.value_ns, a,
							     sizeof(a)));
			if (used < sizeof(v->says) && c->noise && c->noise_max_ns > v->budget_ns)
				used += (size_t)snprintf(
					v->says + used, sizeof(v->says) - used,
					"%s lost %s at once",
					c->timer && c->timer_max_ns > v->budget_ns ? " and" : "",
					plot_format_duration((double)c->noise_max_ns, b,
							     sizeof(b)));
			listed++;
		}
		break;
	case DOCTOR_READY:
		snprintf(v->says, sizeof(v->says),
			 "ready for a %s budget: no RT CPU woke up late or lost the CPU for longer",
			 budget);
		break;
	case DOCTOR_UNKNOWN:
		snprintf(v->says, sizeof(v->says), "unknown for a %s budget: %s", budget,
			 o->stopped_by && !missing ? "the run was stopped before its end" :
			 missing		   ? "a part that was asked for did not measure" :
						     "no sample was measured");
		if (o->stopped_by && !missing)
			snprintf(v->says + strlen(v->says), sizeof(v->says) - strlen(v->says),
				 " (%s)", o->stopped_by);
		break;
	case DOCTOR_NOT_MEASURED:
		snprintf(v->says, sizeof(v->says),
			 "not measured: --no-timer and --no-noise leave only the audit and the "
			 "IRQ plan");
		break;
	}
}

int doctor_verdict(const struct doctor_parts *parts, const struct doctor_fixes *fixes,
		   const struct doctor_verdict_options *o, struct doctor_verdict *v)
{
	bool over = false, missing;
	unsigned int i;
	int ret = 0;

	memset(v, 0, sizeof(*v));
	if (!o->budget_ns)
		return -EINVAL;
	v->budget_ns = o->budget_ns;
	if (parts->timer)
		ret = read_timer(parts, o->budget_ns, v);
	if (!ret && parts->noise)
		ret = read_noise(parts, v);
	if (ret) {
		doctor_verdict_release(v);
		return ret;
	}
	for (i = 0; i < v->nr_cpus; i++) {
		struct doctor_cpu_verdict *c = &v->cpus[i];

		c->over_budget =
			(c->timer && c->timer_max_ns > o->budget_ns) ||
			(c->timer && c->return_level.available && c->return_level.reliable &&
			 c->return_level.value_ns > (double)o->budget_ns) ||
			(c->noise && c->noise_max_ns > o->budget_ns);
		over |= c->over_budget;
	}
	missing = blind_spots(parts, fixes, o, v);
	if (over)
		v->readiness = DOCTOR_NOT_READY;
	else if (!o->timer_asked && !o->noise_asked)
		v->readiness = DOCTOR_NOT_MEASURED;
	else if (missing || o->stopped_by || !v->nr_cpus)
		v->readiness = DOCTOR_UNKNOWN;
	else
		v->readiness = DOCTOR_READY;
	say(v, missing, o);
	return 0;
}

void doctor_verdict_release(struct doctor_verdict *v)
{
	unsigned int i;

	for (i = 0; i < v->nr_not_seen; i++)
		free(v->not_seen[i]);
	free(v->cpus);
	memset(v, 0, sizeof(*v));
}

static json_t *level_json(const struct doctor_return_level *r)
{
	return json_pack("{s:b, s:i, s:i, s:o, s:o, s:o, s:b, s:s}", "available", r->available,
			 "blocks", r->blocks, "needed", r->needed, "value_ns",
			 r->available ? json_integer((json_int_t)(r->value_ns + 0.5)) : json_null(),
			 "ci_ns",
			 r->available && r->has_ci ? json_pack("[f, f]", r->ci_ns[0], r->ci_ns[1]) :
						     json_null(),
			 "confidence", r->available ? json_real(r->confidence) : json_null(),
			 "reliable", r->reliable, "says", r->says);
}

static json_t *cpu_json(const struct doctor_cpu_verdict *c)
{
	json_t *timer = json_null(), *noise = json_null();

	if (c->timer)
		timer = json_pack(
			"{s:I, s:o, s:I, s:o}", "max_ns", (json_int_t)c->timer_max_ns, "p99_99_ns",
			c->timer_p9999_ns == NO_VALUE ? json_null() :
							json_integer((json_int_t)c->timer_p9999_ns),
			"wakeups", (json_int_t)c->timer_wakeups, "return_level_1h",
			level_json(&c->return_level));
	if (c->noise)
		noise = json_pack("{s:I, s:I, s:f}", "max_ns", (json_int_t)c->noise_max_ns, "gaps",
				  (json_int_t)c->noise_gaps, "lost_fraction",
				  c->noise_lost_fraction);
	return json_pack("{s:i, s:o, s:o, s:b}", "cpu", c->cpu, "timer", timer, "noise", noise,
			 "over_budget", c->over_budget);
}

json_t *doctor_verdict_json(const struct doctor_verdict *v, const struct doctor_fixes *fixes)
{
	struct doctor_top_cause top[5];
	json_t *cpus = json_array(), *seen = json_array(), *causes = json_array();
	unsigned int i, n = fixes ? doctor_top_causes(fixes, top, 5) : 0;

	for (i = 0; i < v->nr_cpus; i++)
		json_array_append_new(cpus, cpu_json(&v->cpus[i]));
	for (i = 0; i < v->nr_not_seen; i++)
		json_array_append_new(seen, json_string(v->not_seen[i]));
	for (i = 0; i < n; i++)
		json_array_append_new(
			causes,
			json_pack("{s:s, s:i, s:s, s:s, s:f, s:I, s:s, s:s, s:i}", "label",
				  top[i].cause->label, "cpu", top[i].cause->cpu, "kind",
				  top[i].cause->kind, "part", doctor_part_name(top[i].cause->part),
				  "share", top[i].cause->share, "spikes",
				  (json_int_t)top[i].cause->spikes, "fix",
				  fixes->fixes[top[i].fix].title, "fix_list",
				  top[i].fix < fixes->nr_known ? "fixes" : "unfixed", "fix_rank",
				  (int)(top[i].fix < fixes->nr_known ?
						top[i].fix + 1 :
						top[i].fix - fixes->nr_known + 1)));
	return json_pack("{s:s, s:b, s:I, s:s, s:o, s:o, s:o}", "readiness",
			 doctor_readiness_name(v->readiness), "ready", v->readiness == DOCTOR_READY,
			 "budget_ns", (json_int_t)v->budget_ns, "says", v->says, "cpus", cpus,
			 "top_causes", causes, "not_seen", seen);
}
