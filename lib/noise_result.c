// SPDX-License-Identifier: GPL-2.0-or-later
#include "latscope/noise.h"
#include "latscope/noise_result.h"
#include "latscope/result.h"

json_t *noise_result_params(const struct noise_run *run)
{
	const struct noise_params *p = &run->params;

	return json_pack(
		"{s:o, s:I, s:I, s:s, s:i, s:I, s:s, s:f}", "cpus", result_cpuset(&p->cpus),
		"duration_ns", (json_int_t)p->duration_ns, "threshold_ns",
		(json_int_t)p->threshold_ns, "policy", rt_policy_name(p->policy), "priority",
		rt_policy_is_realtime(p->policy) ? p->priority : 0, "max_gaps",
		(json_int_t)p->max_gaps, "clock", run->clock.use_tsc ? "tsc" : "monotonic_raw",
		"tsc_ghz", run->clock.use_tsc ? run->clock.cycles_per_ns : 0.0);
}

/* The sources, each with "phase_group": the first source of its period. */
static json_t *periodic_result(const struct noise_cpu *c)
{
	json_t *sources = result_period_sources(c->periodic, c->nr_periodic);
	size_t group[PERIOD_MAX_SOURCES], s;

	period_phase_groups(c->periodic, (size_t)c->nr_periodic, group);
	for (s = 0; s < (size_t)c->nr_periodic; s++)
		json_object_set_new(json_array_get(sources, s), "phase_group",
				    json_integer((json_int_t)group[s]));
	return sources;
}

static json_t *block_maxima_result(const struct noise_cpu *c)
{
	json_t *list = json_array();
	size_t i;

	for (i = 0; i < c->nr_blocks; i++)
		json_array_append_new(list, json_integer((json_int_t)c->blocks[i].max_ns));
	return json_pack("{s:I, s:o, s:I, s:I}", "block_ns", (json_int_t)NOISE_BLOCK_NS, "max_ns",
			 list, "lost", (json_int_t)(c->blocks_outran + c->blocks_lost), "quiet",
			 (json_int_t)c->blocks_quiet);
}

static json_t *cpu_result(const struct noise_run *run, const struct noise_cpu *c)
{
	const struct hist *h = c->hist;
	json_t *cpu, *gaps;

	gaps = json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I}", "threshold_ns",
			 (json_int_t)run->params.threshold_ns, "count", (json_int_t)c->gap_count,
			 "stored", (json_int_t)c->nr_gaps, "not_stored",
			 (json_int_t)c->gaps_not_stored, "outran_drain", (json_int_t)c->gaps_outran,
			 "over_max_gaps", (json_int_t)c->gaps_over_cap, "lost_ns",
			 (json_int_t)c->lost_ns);
	cpu = json_pack(
		"{s:i, s:I, s:I, s:I, s:I, s:I, s:o, s:o, s:I, s:o, s:o}", "cpu", (int)c->cpu,
		"loops", (json_int_t)h->count, "run_ns", (json_int_t)noise_cpu_run_ns(run, c),
		"min_ns", (json_int_t)(h->count ? h->min : 0), "avg_ns",
		(json_int_t)(hist_mean(h) + 0.5), "max_ns", (json_int_t)h->max, "percentiles",
		result_percentiles(h), "gaps", gaps, "steal_ns", (json_int_t)c->steal_ns,
		"periodic", periodic_result(c), "histogram", result_histogram(h));
	json_object_set_new(cpu, "block_maxima", block_maxima_result(c));
	json_object_set_new(cpu, "time_blocks",
			    time_blocks_json(&c->time_blocks, __atomic_load_n(&c->time_builder.lost,
									      __ATOMIC_RELAXED)));
	if (rt_policy_is_realtime(run->params.policy))
		json_object_set_new(cpu, "throttling",
				    json_pack("{s:I, s:I}", "count", (json_int_t)c->throttled_count,
					      "total_ns", (json_int_t)c->throttled_ns));
	return cpu;
}

json_t *noise_result_cpus(const struct noise_run *run)
{
	json_t *cpus = json_array();
	unsigned int i;

	for (i = 0; i < run->nr_cpus; i++)
		json_array_append_new(cpus, cpu_result(run, &run->cpus[i]));
	return cpus;
}
