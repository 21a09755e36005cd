// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The options of compare's statistics, which latscope compare and latscope
 * ab both take (one table, included at each command's struct).
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "compare_options.h"
#include "latscope/parse.h"

#define STATS(member) OPTION_FIELD(struct compare_statistics_options, member)

static const struct option_choice by_choices[] = {
	{ "cpu", COMPARE_BY_CPU },
	{ "thread", COMPARE_BY_THREAD },
	{ "all", COMPARE_BY_ALL },
	{ NULL, 0 },
};

static int compare_doubles(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return a < b ? -1 : a > b;
}

/* "50,99,99.9": percentiles strictly between 0 and 100, stored ascending, once each */
static int parse_percentiles(const struct option_value *value)
{
	struct compare_settings *s = value->field;
	const char *at = value->text;
	unsigned int n = 0, i, kept;
	double list[COMPARE_MAX_PERCENTILES];
	char item[64];
	int ret;

	for (;;) {
		size_t len = strcspn(at, ",");

		if (!len || len >= sizeof(item))
			return usage_error("invalid percentile list '%s' for %s (e.g. 50,99,99.9)",
					   value->text, value->spelled);
		if (n == COMPARE_MAX_PERCENTILES)
			return usage_error("%s '%s': at most %d percentiles", value->spelled,
					   value->text, COMPARE_MAX_PERCENTILES);
		memcpy(item, at, len);
		item[len] = '\0';
		ret = option_number(value->spelled, item, 0, 100, &list[n]);
		if (ret)
			return ret;
		if (!(list[n] > 0 && list[n] < 100))
			return usage_error("%s '%s': a percentile lies strictly between 0 and 100 "
					   "(the max is always compared)",
					   value->spelled, item);
		n++;
		if (!at[len])
			break;
		at += len + 1;
	}
	qsort(list, n, sizeof(list[0]), compare_doubles);
	for (i = 0, kept = 0; i < n; i++)
		if (!kept || list[i] != s->percentiles[kept - 1])
			s->percentiles[kept++] = list[i];
	s->nr_percentiles = kept;
	return 0;
}

/* The list as --percentiles takes it: "50,90,99,99.9,99.99" */
static void format_percentiles(const void *field, char *buf, size_t size)
{
	const struct compare_settings *s = field;
	size_t used = 0;
	unsigned int i;

	buf[0] = '\0';
	for (i = 0; i < s->nr_percentiles && used < size; i++)
		used += (size_t)snprintf(buf + used, size - used, "%s%g", i ? "," : "",
					 s->percentiles[i]);
}

/* "5%,1us": a change must exceed both to count; the % is optional */
static int parse_practical(const struct option_value *value)
{
	struct compare_settings *s = value->field;
	const char *comma = strchr(value->text, ',');
	char percent[32];
	size_t len;
	double fraction;
	uint64_t ns;
	int ret;

	len = comma ? (size_t)(comma - value->text) : 0;
	if (len && value->text[len - 1] == '%')
		len--;
	if (!comma || !len || len >= sizeof(percent) || !comma[1])
		return usage_error("invalid threshold '%s' for %s (PCT,DUR, e.g. 5%%,1us)",
				   value->text, value->spelled);
	memcpy(percent, value->text, len);
	percent[len] = '\0';
	ret = option_number(value->spelled, percent, 0, 1000, &fraction);
	if (!ret)
		ret = option_duration(value->spelled, comma + 1, NS_PER_US, 0, NS_PER_HOUR, &ns);
	if (ret)
		return ret;
	s->stats.practical.fraction = fraction / 100;
	s->stats.practical.ns = ns;
	return 0;
}

/* The threshold as --practical takes it: "5%,1us" */
static void format_practical(const void *field, char *buf, size_t size)
{
	const struct compare_threshold *t =
		&((const struct compare_settings *)field)->stats.practical;
	uint64_t ns = t->ns;
	const char *unit = "ns";

	if (ns && ns % NS_PER_MS == 0) {
		ns /= NS_PER_MS;
		unit = "ms";
	} else if (ns && ns % NS_PER_US == 0) {
		ns /= NS_PER_US;
		unit = "us";
	}
	snprintf(buf, size, "%g%%,%llu%s", t->fraction * 100, (unsigned long long)ns, unit);
}

const struct option_spec compare_statistics_options[] = {
	{ .long_name = "by",
	  .kind = OPTION_CHOICE,
	  .where = STATS(by),
	  .choices = by_choices,
	  .noun = "pairing",
	  .value_name = "HOW",
	  .help = "pair per cpu, per thread, or all series of an input merged",
	  .default_text = "cpu" },
	OPTION_BUDGET(STATS(settings.budget_ns), 'b', .given = STATS(settings.has_budget)),
	{ .long_name = "percentiles",
	  .short_name = 'P',
	  .kind = OPTION_CUSTOM,
	  .where = STATS(settings),
	  .parse = parse_percentiles,
	  .format = format_percentiles,
	  .value_name = "LIST",
	  .help = "percentiles to compare, besides the max" },
	{ .long_name = "practical",
	  .kind = OPTION_CUSTOM,
	  .where = STATS(settings),
	  .parse = parse_practical,
	  .format = format_practical,
	  .value_name = "PCT,DUR",
	  .help = "a change counts when it exceeds both PCT of A and DUR" },
	{ .long_name = "confidence",
	  .kind = OPTION_NUMBER,
	  .where = STATS(settings.stats.confidence),
	  .number = { .min = 0.5, .max = 0.999 },
	  .value_name = "LEVEL",
	  .help = "level of every interval" },
	{ .long_name = "fail-worse",
	  .kind = OPTION_FLAG,
	  .where = STATS(fail_worse),
	  .help = "exit 2 when B is worse than A on a statistic; 1 when one can be "
		  "compared on no pair" },
	OPTION_TABLE_END,
};

void compare_statistics_defaults(struct compare_statistics_options *o)
{
	compare_settings_default(&o->settings);
	o->by = COMPARE_BY_CPU;
}
