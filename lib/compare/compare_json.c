// SPDX-License-Identifier: GPL-2.0-or-later
#include <math.h>

#include "compare_json.h"

/* jansson writes NaN and infinity as invalid JSON: they become null */
static json_t *real_or_null(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *ns_or_null(double v)
{
	/* beyond 2^63 ns (292 years) no duration means anything */
	if (!isfinite(v) || fabs(v) >= 9.2e18)
		return json_null();
	return json_integer((json_int_t)llround(v));
}

/* a whole number of seconds or blocks as an integer, otherwise a real */
static json_t *count_or_real(double v)
{
	if (isfinite(v) && v == floor(v) && fabs(v) < 9e15)
		return json_integer((json_int_t)v);
	return real_or_null(v);
}

static json_t *ns_pair(double low, double high)
{
	return json_pack("[oo]", ns_or_null(low), ns_or_null(high));
}

static json_t *real_pair(double low, double high)
{
	return json_pack("[oo]", real_or_null(low), real_or_null(high));
}

json_t *compare_stat_json(const struct compare_stat *s)
{
	json_t *o = json_object();

	if (!o)
		return NULL;
	json_object_set_new(o, "name", json_string(s->name));
	json_object_set_new(o, "a_ns", s->has_a ? json_integer((json_int_t)s->a_ns) : json_null());
	json_object_set_new(o, "b_ns", s->has_b ? json_integer((json_int_t)s->b_ns) : json_null());
	json_object_set_new(o, "diff_ns", s->has_diff ? json_integer(s->diff_ns) : json_null());
	json_object_set_new(
		o, "ci_ns",
		s->has_ci ? json_pack("[II]", (json_int_t)s->ci_ns[0], (json_int_t)s->ci_ns[1]) :
			    json_null());
	json_object_set_new(o, "verdict", json_string(compare_verdict_name(s->verdict)));
	json_object_set_new(o, "reason", json_string(s->reason));
	json_object_set_new(o, "method", json_string(compare_method_name(s->method)));
	json_object_set_new(o, "units", s->units ? json_integer(s->units) : json_null());
	json_object_set_new(o, "df", s->df > 0 ? real_or_null(s->df) : json_null());
	json_object_set_new(o, "units_to_decide",
			    s->units_to_decide && s->units_to_decide != UINT32_MAX ?
				    json_integer(s->units_to_decide) :
				    json_null());
	json_object_set_new(o, "power",
			    s->has_power ?
				    json_pack("{sIsoss}", "detectable_ns",
					      (json_int_t)s->detectable_ns, "rounds_for_5pct",
					      s->rounds_for_5pct == UINT32_MAX ?
						      json_null() :
						      json_integer(s->rounds_for_5pct),
					      "spread", s->power_from_a ? "a" : "paired") :
				    json_null());
	json_object_set_new(o, "a_ci_ns",
			    s->has_side_ci ? json_pack("[II]", (json_int_t)s->a_ci_ns[0],
						       (json_int_t)s->a_ci_ns[1]) :
					     json_null());
	json_object_set_new(o, "b_ci_ns",
			    s->has_side_ci ? json_pack("[II]", (json_int_t)s->b_ci_ns[0],
						       (json_int_t)s->b_ci_ns[1]) :
					     json_null());
	return o;
}

static json_t *check_json(const struct tail_check *c, bool with_ci)
{
	json_t *o = json_object();

	json_object_set_new(o, "value", c->evaluated ? real_or_null(c->value) : json_null());
	json_object_set_new(o, "bound", real_or_null(c->bound));
	if (with_ci)
		json_object_set_new(o, "ci",
				    c->evaluated ? real_pair(c->ci[0], c->ci[1]) : json_null());
	json_object_set_new(o, "pass", json_boolean(c->evaluated && c->pass));
	json_object_set_new(o, "says", json_string(c->says));
	return o;
}

static json_t *levels_json(const struct tail_estimate *t)
{
	json_t *list = json_array();
	unsigned int i;

	for (i = 0; i < t->nr_levels; i++) {
		const struct tail_level *l = &t->levels[i];
		json_t *o = json_object();
		json_t *value = l->available ? ns_or_null(l->value_ns) : json_null();

		json_object_set_new(o, "period_s", count_or_real(l->period_s));
		json_object_set_new(o, "value_ns", value);
		json_object_set_new(o, "ci_ns",
				    l->has_ci ? ns_pair(l->ci_ns[0], l->ci_ns[1]) : json_null());
		if (l->reason[0])
			json_object_set_new(o, "reason", json_string(l->reason));
		else if (l->available && json_is_null(value))
			json_object_set_new(
				o, "reason",
				json_string("beyond 2^63 ns (292 years): the fitted "
					    "tail sets no useful bound at this period"));
		json_array_append_new(list, o);
	}
	return list;
}

static json_t *long_enough_json(const struct tail_estimate *t)
{
	json_t *o = json_object();

	json_object_set_new(o, "enough", json_boolean(t->long_enough.enough));
	json_object_set_new(o, "return_level_1d_ns",
			    t->long_enough.value_ns > 0 ? ns_or_null(t->long_enough.value_ns) :
							  json_null());
	json_object_set_new(o, "ci_ns",
			    t->long_enough.value_ns > 0 ?
				    ns_pair(t->long_enough.ci_ns[0], t->long_enough.ci_ns[1]) :
				    json_null());
	json_object_set_new(o, "halfwidth",
			    t->long_enough.value_ns > 0 ? real_or_null(t->long_enough.halfwidth) :
							  json_null());
	json_object_set_new(o, "blocks_needed",
			    t->long_enough.evaluated ? count_or_real(t->long_enough.blocks_needed) :
						       json_null());
	json_object_set_new(o, "seconds_needed",
			    t->long_enough.evaluated ?
				    count_or_real(ceil(t->long_enough.seconds_needed)) :
				    json_null());
	json_object_set_new(o, "says", json_string(t->long_enough.says));
	return o;
}

json_t *tail_estimate_json(const struct tail_estimate *t)
{
	json_t *o = json_object(), *checks;

	if (!o)
		return NULL;
	json_object_set_new(o, "blocks", json_integer(t->blocks));
	json_object_set_new(o, "block_ns", json_integer((json_int_t)t->block_ns));
	if (!t->fitted) {
		json_object_set_new(o, "error", json_string(t->error));
		json_object_set_new(o, "reliable", json_false());
		return o;
	}
	json_object_set_new(o, "loc_ns", ns_or_null(t->fit.est.loc));
	json_object_set_new(o, "scale_ns", ns_or_null(t->fit.est.scale));
	json_object_set_new(o, "shape", real_or_null(t->fit.est.shape));
	json_object_set_new(o, "se",
			    json_pack("{sososo}", "loc_ns", real_or_null(t->fit.se[0]), "scale_ns",
				      real_or_null(t->fit.se[1]), "shape",
				      real_or_null(t->fit.se[2])));
	json_object_set_new(o, "return_levels", levels_json(t));
	if (t->has_exceedance)
		json_object_set_new(o, "exceedance",
				    json_pack("{sIsoso so}", "budget_ns", (json_int_t)t->budget_ns,
					      "p_block", real_or_null(t->p_block), "p_day",
					      real_or_null(t->p_day), "p_day_ci",
					      t->has_p_day_ci ?
						      real_pair(t->p_day_ci[0], t->p_day_ci[1]) :
						      json_null()));
	checks = json_object();
	json_object_set_new(checks, "shape", check_json(&t->shape, true));
	json_object_set_new(checks, "independence", check_json(&t->independence, false));
	json_object_set_new(checks, "stationarity", check_json(&t->stationarity, false));
	json_object_set_new(checks, "fit", check_json(&t->fit_quality, false));
	json_object_set_new(o, "checks", checks);
	json_object_set_new(o, "long_enough", long_enough_json(t));
	json_object_set_new(o, "reliable", json_boolean(t->reliable));
	json_object_set_new(o, "method", json_string(t->fit.method));
	return o;
}

json_t *miss_rate_json(const struct miss_rate *m)
{
	json_t *o = json_object();

	if (!o)
		return NULL;
	json_object_set_new(o, "budget_ns", json_integer((json_int_t)m->budget_ns));
	json_object_set_new(o, "samples", json_integer((json_int_t)m->samples));
	json_object_set_new(
		o, "misses",
		json_pack("[II]", (json_int_t)m->misses_low, (json_int_t)m->misses_high));
	json_object_set_new(o, "fraction", real_or_null(m->fraction));
	json_object_set_new(o, "ci", real_pair(m->ci[0], m->ci[1]));
	json_object_set_new(o, "per_hour", m->has_rate ? real_or_null(m->per_hour) : json_null());
	json_object_set_new(o, "per_hour_ci",
			    m->has_rate ? real_pair(m->per_hour_ci[0], m->per_hour_ci[1]) :
					  json_null());
	return o;
}
