// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * latscope ab: an interleaved A/B. The measurement (timer or noise, with
 * the user's options) runs in pairs of rounds, A's and B's in an order
 * drawn per pair, each after its side's setup command; the cleanup runs at
 * the end on every exit path. The rounds are then compared pair by pair
 * (compare's paired resampling: the drift two neighbouring rounds share
 * cancels), with what this many rounds can find. ab_rounds.c runs the
 * rounds, comparison.c compares them as latscope compare does.
 */
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "ab_rounds.h"
#include "cli.h"
#include "machine.h"
#include "noise_session.h"
#include "common_options.h"
#include "compare_junit.h"
#include "compare_options.h"
#include "compare_render.h"
#include "comparison.h"
#include "latscope/compare_document.h"
#include "latscope/import.h"
#include "latscope/parse.h"
#include "latscope/result.h"
#include "option_table.h"
#include "output_path.h"
#include "timer_options.h"
#include "validity_report.h"

#define AB_DEFAULT_ROUNDS 10
#define AB_DEFAULT_ROUND_NS (5 * NS_PER_SEC)

struct ab_options {
	unsigned int rounds;
	uint64_t round_ns;
	const char *a_setup, *b_setup, *cleanup;
	long long seed;
	bool seed_given;
	struct compare_statistics_options statistics;
	struct json_output json;
	bool strict; /* a round's validity shortfall is exit 1 */
	struct junit_output junit;
	struct option_list measurement; /* timer|noise OPTIONS..., after -- */
};

#define AB(member) OPTION_FIELD(struct ab_options, member)

static const struct option_spec ab_option_specs[] = {
	{ .long_name = "rounds",
	  .short_name = 'n',
	  .kind = OPTION_INTEGER,
	  .where = AB(rounds),
	  .integer = { 2, 100000 },
	  .value_name = "N",
	  .help = "pairs of rounds: an A round and a B round each" },
	{ .long_name = "round",
	  .short_name = 'r',
	  .kind = OPTION_DURATION,
	  .where = AB(round_ns),
	  .duration = { NS_PER_SEC, NS_PER_SEC / 2, NS_PER_HOUR },
	  .value_name = "DUR",
	  .help = "how long each round measures" },
	{ .long_name = "a-setup",
	  .kind = OPTION_TEXT,
	  .where = AB(a_setup),
	  .value_name = "CMD",
	  .help = "shell command that makes the machine A, run before each A round" },
	{ .long_name = "b-setup",
	  .kind = OPTION_TEXT,
	  .where = AB(b_setup),
	  .value_name = "CMD",
	  .help = "shell command that makes the machine B, run before each B round" },
	{ .long_name = "cleanup",
	  .kind = OPTION_TEXT,
	  .where = AB(cleanup),
	  .value_name = "CMD",
	  .help = "shell command run at the end, however ab ends (signals too)" },
	{ .long_name = "seed",
	  .kind = OPTION_INTEGER,
	  .where = AB(seed),
	  .given = AB(seed_given),
	  .integer = { 0, INT64_MAX },
	  .value_name = "N",
	  .help = "seed of the rounds' order, to run an earlier order again",
	  .default_text = "random" },
	OPTION_INCLUDE_AT(compare_statistics_options, AB(statistics)),
	OPTION_INCLUDE_AT(json_output_options, AB(json)),
	OPTION_STRICT(AB(strict)),
	OPTION_INCLUDE_AT(junit_output_options, AB(junit)),
	OPTION_TABLE_END,
};

static const struct option_positional ab_positionals[] = {
	{ .name = "-- timer|noise OPTIONS",
	  .kind = OPTION_TEXT,
	  .min = 1,
	  .max = OPTION_MANY,
	  .where = AB(measurement),
	  .help = "the measurement of each round, as it is run on its own" },
	OPTION_POSITIONALS_END,
};

/* what ab sets in every round itself, and why the user may not */
static const struct {
	const char *option;
	const char *why;
} ab_owns[] = {
	{ "duration", "--round sets each round's length" },
	{ "loops", "--round sets each round's length" },
	{ "json", "ab keeps each round's result and writes one document (--json of ab)" },
	{ "json-compact", "ab keeps each round's result and writes one document" },
	{ "junit", "ab writes one JUnit of its comparison (--junit of ab)" },
	{ "breaktrace", "a round must measure its whole length" },
	{ "budget", "ab's verdict is --fail-worse" },
	{ "strict", "give --strict to ab: it judges every round's validity" },
	{ "histfile", "each round would overwrite the last one's" },
	{ "trace-dir", "each round would overwrite the last one's" },
	{ "gaps", "each round would overwrite the last one's" },
};

/*
 * timer's words, parsed as timer parses them: against the CPUs this process
 * may use. Returns an exit status, or -1 for --help (its page printed).
 */
static int parse_timer_words(int argc, char **argv)
{
	struct sysroot *root = NULL;
	struct topology topo = { 0 };
	struct timer_options opts;
	struct cpuset allowed, affinity;
	struct timer_machine machine = { &topo.online, &allowed, &affinity };
	int status;

	status = machine_open(NULL, &root, &topo);
	if (!status)
		status = machine_allowed_cpus(root, &topo.online, &allowed);
	if (!status)
		status = machine_affinity_cpus(&topo.online, &affinity);
	if (!status) {
		if (timer_options_parse(argc, argv, &machine, &opts, &status))
			timer_options_release(&opts);
		else if (status == EXIT_OK)
			status = -1;
	}
	topology_release(&topo);
	sysroot_free(root);
	return status;
}

/* noise's words, as noise parses them; -1 for --help */
static int parse_noise_words(int argc, char **argv)
{
	struct noise_options opts;
	int status;

	if (option_parse(&noise_command, argc, argv, &opts, NULL, &status))
		status = EXIT_OK;
	else if (status == EXIT_OK)
		status = -1;
	option_release(&noise_command, &opts);
	return status;
}

/* the measurements ab runs, and how their words are checked */
static const struct {
	const char *name;
	const struct option_command *table;
	int (*parse)(int argc, char **argv);
} measurements[] = {
	{ "timer", &timer_command, parse_timer_words },
	{ "cyclic", &timer_command, parse_timer_words },
	{ "noise", &noise_command, parse_noise_words },
};

/* the measurement's words: a command ab can run, options it accepts, none ab sets itself */
static int check_measurement(const struct ab_options *o)
{
	int argc = (int)o->measurement.count;
	char **argv = (char **)o->measurement.items;
	size_t m, i;

	for (m = 0; m < sizeof(measurements) / sizeof(measurements[0]); m++)
		if (!strcmp(argv[0], measurements[m].name))
			break;
	if (m == sizeof(measurements) / sizeof(measurements[0]))
		return usage_error("'%s' is no measurement ab runs: timer or noise", argv[0]);
	for (i = 0; i < sizeof(ab_owns) / sizeof(ab_owns[0]); i++)
		if (option_words_give(measurements[m].table, argc, argv, ab_owns[i].option))
			return usage_error("--%s of %s: %s", ab_owns[i].option, argv[0],
					   ab_owns[i].why);
	/* as each round will parse them: a bad option is said now, before any round */
	return measurements[m].parse(argc, argv);
}

static void ab_defaults(void *options)
{
	struct ab_options *o = options;

	o->rounds = AB_DEFAULT_ROUNDS;
	o->round_ns = AB_DEFAULT_ROUND_NS;
	compare_statistics_defaults(&o->statistics);
}

static int ab_finish(void *options, void *context)
{
	struct ab_options *o = options;
	unsigned long long seed;
	int status;

	(void)context;
	if (!o->a_setup || !o->b_setup)
		return usage_error("ab needs --a-setup and --b-setup: the commands that make the "
				   "machine A and B (true, when one side needs none)");
	status = check_measurement(o);
	if (status)
		return status;
	if (!o->seed_given) {
		if (getrandom(&seed, sizeof(seed), 0) != sizeof(seed))
			return runtime_error("cannot draw a seed for the rounds' order");
		o->seed = (long long)(seed >> 1);
	}
	return junit_output_finish(&o->junit, &o->json);
}

const struct option_command ab_command = {
	.name = "ab",
	.description =
		"An interleaved A/B comparison: the measurement runs in N pairs of rounds,\n"
		"an A round and a B round in an order drawn for each pair, each round after\n"
		"its side's setup command (a sysctl, latscope irq apply, a governor...).\n"
		"The drift of the machine then falls on both sides alike, and the rounds\n"
		"are compared pair by pair: the text and --json of latscope compare, with\n"
		"every round's values, their order, and the power: the smallest change\n"
		"this many rounds find, and the rounds that would find 5%. The cleanup\n"
		"command runs at the end on every exit path, signals included.",
	.options = ab_option_specs,
	.positionals = ab_positionals,
	.size = sizeof(struct ab_options),
	.init = ab_defaults,
	.finish = ab_finish,
	.footer = "--budget: each side's misses, and the chance of one within a day.\n"
		  "Durations take a unit (ms, s, m); a bare --round is in s, a bare --budget in\n"
		  "us. Exit status: 0 ok, 1 a setup, the cleanup or a round failed, a signal\n"
		  "stopped the rounds (what was measured is compared and written), or nothing\n"
		  "could be compared; 2 B is worse than A (--fail-worse), 129 usage error.\n"
		  "See latscope-ab(1).",
};

/* the rounds' results, A's then B's in the order of their pairs, imported */
static int import_rounds(const struct ab_rounds *r, struct comparison *c, const char **names,
			 char (*labels)[32], unsigned int *group_of)
{
	unsigned int n = r->pairs_measured, k;

	c->runs = calloc(2 * n, sizeof(*c->runs));
	if (!c->runs)
		return runtime_error("out of memory");
	c->names = names;
	for (k = 0; k < 2 * n; k++) {
		enum ab_side side = k < n ? AB_A : AB_B;

		snprintf(labels[k], sizeof(labels[k]), "%c round %u", side == AB_A ? 'A' : 'B',
			 k % n + 1);
		names[k] = labels[k];
		group_of[k] = side;
		if (import_file(ab_rounds_path(r, k % n, side), &c->runs[k]))
			return EXIT_ERROR;
		c->nr_runs++;
	}
	return EXIT_OK;
}

/*
 * The percentiles of a round's part of a pair, read as compare reads them;
 * @ns[p] is RUN_NONE when the round has no histogram.
 */
static void round_values(const struct comparison *c, const struct compare_part *part,
			 const struct compare_settings *s, uint64_t *ns)
{
	struct compare_side side = { 0, (struct compare_part *)part, 1 };
	struct compare_sample sample;
	unsigned int p;

	if (compare_sample_load((const struct run *const *)c->runs, &side, &sample) ||
	    !sample.has_hist)
		sample.samples = 0;
	for (p = 0; p < s->nr_percentiles; p++)
		ns[p] = sample.samples ? compare_sample_percentile(&sample, s->percentiles[p]) :
					 RUN_NONE;
	compare_sample_release(&sample);
}

/* every round's values: per pair of the comparison, the compared percentiles of each round */
static void print_rounds(FILE *out, const struct ab_rounds *r, const struct comparison *c,
			 const struct compare_settings *s)
{
	uint64_t a[COMPARE_MAX_PERCENTILES], b[COMPARE_MAX_PERCENTILES];
	unsigned int i, k, p, n = r->pairs_measured;
	char name[16], v[32];

	for (i = 0; i < c->plan.nr_pairs; i++) {
		const struct compare_pair *pair = &c->plan.pairs[i];

		fprintf(out, "\nrounds, %s (us)\n  pair  order", pair->what);
		for (p = 0; p < s->nr_percentiles; p++) {
			compare_percentile_name(s->percentiles[p], name, sizeof(name));
			fprintf(out, "  %9s A  %9s B", name, name);
		}
		fputc('\n', out);
		for (k = 0; k < n; k++) {
			round_values(c, &pair->a.parts[k], s, a);
			round_values(c, &pair->b.parts[k], s, b);
			fprintf(out, "  %4u  %5s", k + 1, ab_rounds_order(r, k));
			for (p = 0; p < s->nr_percentiles; p++) {
				fprintf(out, "  %11s",
					run_has(a[p]) ? format_us(a[p], v, sizeof(v)) : "-");
				fprintf(out, "  %11s",
					run_has(b[p]) ? format_us(b[p], v, sizeof(v)) : "-");
			}
			fputc('\n', out);
		}
	}
}

/* "ab": how the rounds ran, and every round's values per pair of the comparison */
static json_t *rounds_json(const struct ab_options *o, const struct ab_rounds *r,
			   const struct comparison *c, int status)
{
	json_t *ab = json_object(), *rounds = json_array(), *words = json_array();
	const struct compare_settings *s = &o->statistics.settings;
	uint64_t va[COMPARE_MAX_PERCENTILES], vb[COMPARE_MAX_PERCENTILES];
	unsigned int i, k, p, n = r->pairs_measured;
	char name[16];

	for (i = 0; i < o->measurement.count; i++)
		json_array_append_new(words, json_string(o->measurement.items[i]));
	for (k = 0; k < n; k++) {
		json_t *round = json_pack("{sIss}", "pair", (json_int_t)k + 1, "order",
					  ab_rounds_order(r, k));
		json_t *values = json_array();

		for (i = 0; i < c->plan.nr_pairs; i++) {
			const struct compare_pair *pair = &c->plan.pairs[i];
			json_t *a = json_object(), *b = json_object();

			round_values(c, &pair->a.parts[k], s, va);
			round_values(c, &pair->b.parts[k], s, vb);
			for (p = 0; p < s->nr_percentiles; p++) {
				compare_percentile_name(s->percentiles[p], name, sizeof(name));
				json_object_set_new(a, name,
						    run_has(va[p]) ?
							    json_integer((json_int_t)va[p]) :
							    json_null());
				json_object_set_new(b, name,
						    run_has(vb[p]) ?
							    json_integer((json_int_t)vb[p]) :
							    json_null());
			}
			json_array_append_new(
				values, json_pack("{sssoso}", "what", pair->what, "a", a, "b", b));
		}
		json_object_set_new(round, "values", values);
		json_array_append_new(rounds, round);
	}
	json_object_set_new(ab, "measurement", words);
	json_object_set_new(ab, "pairs_asked", json_integer(r->pairs));
	json_object_set_new(ab, "pairs_measured", json_integer(n));
	json_object_set_new(ab, "complete", json_boolean(n == r->pairs && !status));
	json_object_set_new(ab, "round_ns", json_integer((json_int_t)r->round_ns));
	json_object_set_new(ab, "seed", json_integer((json_int_t)r->seed));
	json_object_set_new(ab, "a_setup", json_string(o->a_setup));
	json_object_set_new(ab, "b_setup", json_string(o->b_setup));
	json_object_set_new(ab, "cleanup", o->cleanup ? json_string(o->cleanup) : json_null());
	json_object_set_new(ab, "stopped",
			    r->result.text[0] ? json_string(r->result.text) : json_null());
	json_object_set_new(ab, "rounds", rounds);
	return ab;
}

/*
 * The rounds' validity shortfalls, each line once with the number of rounds
 * that had it ("12 of 12 rounds: cpu 1 is ..."): a new object, NULL when
 * memory ran out. A round without a validity record is not counted as passed.
 */
static json_t *rounds_validity(const struct comparison *c)
{
	json_t *seen = json_object(), *order = json_array(), *lines = json_array(), *doc = NULL;
	unsigned int k, without = 0;
	size_t i;

	if (!seen || !order || !lines)
		goto out;
	for (k = 0; k < c->nr_runs; k++) {
		const json_t *part = json_object_get(json_object_get(c->runs[k]->json, "validity"),
						     "shortfalls");

		without += !json_is_array(part);
		for (i = 0; i < json_array_size(part); i++) {
			const char *line = json_string_value(json_array_get(part, i));
			json_int_t n = json_integer_value(json_object_get(seen, line ? line : ""));

			if (!line)
				continue;
			if (!n)
				json_array_append_new(order, json_string(line));
			json_object_set_new(seen, line, json_integer(n + 1));
		}
	}
	if (without)
		json_array_append_new(lines,
				      json_sprintf("%u of %u rounds have no validity record: "
						   "not counted as passed",
						   without, c->nr_runs));
	for (i = 0; i < json_array_size(order); i++) {
		const char *line = json_string_value(json_array_get(order, i));

		json_array_append_new(lines, json_sprintf("%lld of %u rounds: %s",
							  (long long)json_integer_value(
								  json_object_get(seen, line)),
							  c->nr_runs, line));
	}
	doc = json_pack("{s:b, s:O}", "ok", json_array_size(lines) == 0, "shortfalls", lines);
out:
	json_decref(seen);
	json_decref(order);
	json_decref(lines);
	return doc;
}

/* compare the pairs measured; print, and write the document with the rounds */
static int compare_rounds(const struct ab_options *o, const struct ab_rounds *r, int argc,
			  char **argv, int rounds_status)
{
	unsigned int n = r->pairs_measured;
	const char **names = calloc(2 * n, sizeof(*names));
	char(*labels)[32] = calloc(2 * n, sizeof(*labels));
	unsigned int *group_of = calloc(2 * n, sizeof(*group_of));
	struct comparison c = { 0 };
	struct junit_suite suite;
	json_t *doc = NULL, *validity = NULL;
	int status;

	if (!names || !labels || !group_of) {
		status = runtime_error("out of memory");
		goto out;
	}
	status = import_rounds(r, &c, names, labels, group_of);
	if (!status)
		status = comparison_compute(&c, group_of, true, &o->statistics);
	if (!status)
		status = comparison_gate(&c, o->statistics.fail_worse);
	if (status == EXIT_ERROR)
		goto out;
	compare_render(stdout, (const struct run *const *)c.runs, c.names, c.nr_runs, &c.plan,
		       &c.result, &o->statistics.settings);
	print_rounds(stdout, r, &c, &o->statistics.settings);
	if (rounds_status)
		status = rounds_status;
	validity = rounds_validity(&c);
	if (!validity) {
		status = runtime_error("out of memory");
		goto out;
	}
	status = validity_say_lines(json_object_get(validity, "shortfalls"), o->strict, status);
	if (o->junit.path) {
		comparison_junit(&suite, &c, "ab", &o->statistics, o->json.path);
		if (output_junit_write(&o->junit, &suite))
			status = EXIT_ERROR;
		junit_suite_release(&suite);
	}
	if (!o->json.path)
		goto out;
	doc = comparison_document(&c, "ab", argc, argv, &o->statistics, status);
	if (!doc) {
		status = runtime_error("out of memory");
		goto out;
	}
	json_object_set_new(doc, "ab", rounds_json(o, r, &c, rounds_status));
	json_object_set(doc, "validity", validity);
	result_set_end_time(doc);
	if (output_json_write(&o->json, doc))
		status = EXIT_ERROR;
out:
	json_decref(validity);
	json_decref(doc);
	comparison_release(&c);
	free(names);
	free(labels);
	free(group_of);
	return status;
}

int cmd_ab(int argc, char **argv)
{
	struct ab_options o;
	struct ab_rounds r = { 0 };
	int status, rounds_status, cleanup_status = EXIT_OK;

	if (!option_parse(&ab_command, argc, argv, &o, NULL, &status))
		goto out;
	status = validity_strict_check_root(o.strict);
	if (status)
		goto out;
	if (signals_catch()) {
		status = runtime_error("cannot catch the stop signals");
		goto out;
	}
	r.pairs = o.rounds;
	r.round_ns = o.round_ns;
	r.seed = (uint64_t)o.seed;
	r.setup[AB_A] = o.a_setup;
	r.setup[AB_B] = o.b_setup;
	r.measurement = o.measurement.items[0];
	r.words = (char **)o.measurement.items + 1;
	r.nr_words = (unsigned int)o.measurement.count - 1;
	rounds_status = ab_rounds_run(&r);
	/* the machine as it was before anything else, however the rounds ended */
	if (o.cleanup)
		cleanup_status = ab_run_command("--cleanup", o.cleanup);
	if (r.pairs_measured < 2)
		status = rounds_status ?:
					 runtime_error("%u pairs measured: too few to compare",
						       r.pairs_measured);
	else
		status = compare_rounds(&o, &r, argc, argv, rounds_status);
	if (cleanup_status)
		status = cleanup_status;
out:
	ab_rounds_release(&r);
	option_release(&ab_command, &o);
	return status;
}
