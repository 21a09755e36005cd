// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The option-table engine on a made-up command that has every kind, flag,
 * positional and include: what it stores, what it refuses and how it
 * says so, and the help it prints.
 */
#include <errno.h>
#include <sys/stat.h>

#include "option_exercise.h"

struct shared {
	int level;
	const char *name;
};

struct fake {
	bool flag;
	int counter;
	int integer;
	bool integer_given;
	unsigned int threads;
	bool threads_given;
	uint64_t big;
	double ratio;
	double share;
	uint64_t ns;
	struct cpuset cpus;
	int mode;
	bool fast;
	const char *title;
	const char *input;
	const char *root;
	const char *output;
	const char *outdir;
	struct option_list labels;
	int explain;
	const char *listen;
	struct shared shared;
	const char *first;
	const char *second;
	struct option_list more;
};

#define FAKE(member) OPTION_FIELD(struct fake, member)
#define SHARED(member) OPTION_FIELD(struct shared, member)

/* ADDR:PORT, the shape of the exporter's --listen */
static int parse_listen(const struct option_value *v)
{
	const char *colon = strrchr(v->text, ':');
	long long port;

	if (!colon || colon == v->text || parse_integer(colon + 1, 1, 65535, &port))
		return usage_error("invalid address '%s' for %s (use ADDR:PORT)", v->text,
				   v->spelled);
	*(const char **)v->field = v->text;
	return 0;
}

/* NAME=FILE, only checked: the list keeps the text */
static int check_label(const struct option_value *v)
{
	if (!strchr(v->text, '=') || v->text[0] == '=')
		return usage_error("invalid label '%s' for %s (use NAME=FILE)", v->text,
				   v->spelled);
	return 0;
}

static int refuse(const struct option_value *v)
{
	return usage_error("option '%s' is not supported", v->spelled);
}

static const struct option_choice modes[] = { { "cpu", 1 },
					      { "thread", 2 },
					      { "all", 3 },
					      { NULL } };
static const struct option_choice speeds[] = { { "fast", true }, { "slow", false }, { NULL } };
static const struct option_choice hows[] = { { "trace", 1 }, { "counters", 2 }, { NULL } };

static const struct option_spec shared_specs[] = {
	{ .long_name = "level",
	  .short_name = 'L',
	  .kind = OPTION_INTEGER,
	  .where = SHARED(level),
	  .integer = { -5, 5 },
	  .help = "a signed level" },
	{ .long_name = "name", .kind = OPTION_TEXT, .where = SHARED(name), .help = "a name" },
	OPTION_TABLE_END,
};

static const struct option_spec fake_specs[] = {
	{ .long_name = "flag",
	  .short_name = 'f',
	  .kind = OPTION_FLAG,
	  .where = FAKE(flag),
	  .help = "a flag",
	  .alias = "also-flag" },
	{ .long_name = "verbose",
	  .short_name = 'v',
	  .kind = OPTION_COUNTER,
	  .where = FAKE(counter),
	  .help = "say more" },
	{ .long_name = "integer",
	  .short_name = 'i',
	  .kind = OPTION_INTEGER,
	  .where = FAKE(integer),
	  .given = FAKE(integer_given),
	  .integer = { 1, 99 },
	  .help = "an integer" },
	{ .long_name = "threads",
	  .short_name = 't',
	  .kind = OPTION_INTEGER,
	  .flags = OPTION_OPTIONAL | OPTION_NEXT_NUMBER,
	  .where = FAKE(threads),
	  .given = FAKE(threads_given),
	  .integer = { 1, 4096 },
	  .help = "threads, or one per cpu" },
	{ .long_name = "big",
	  .kind = OPTION_INTEGER,
	  .where = FAKE(big),
	  .integer = { 0, INT64_MAX },
	  .help = "a 64-bit count" },
	{ .long_name = "confidence",
	  .kind = OPTION_NUMBER,
	  .where = FAKE(ratio),
	  .number = { 0.5, 0.999 },
	  .help = "a fraction" },
	{ .long_name = "dead-band",
	  .kind = OPTION_NUMBER,
	  .where = FAKE(share),
	  .number = { 1, 1000, 100 },
	  .value_name = "PCT",
	  .help = "a percentage" },
	{ .long_name = "interval",
	  .short_name = 'I',
	  .kind = OPTION_DURATION,
	  .where = FAKE(ns),
	  .duration = { NS_PER_MS, NS_PER_US, NS_PER_HOUR },
	  .help = "a duration" },
	{ .long_name = "cpus",
	  .short_name = 'c',
	  .kind = OPTION_CPUS,
	  .where = FAKE(cpus),
	  .help = "a cpu list" },
	{ .long_name = "by",
	  .kind = OPTION_CHOICE,
	  .where = FAKE(mode),
	  .choices = modes,
	  .help = "a choice" },
	{ .long_name = "speed",
	  .kind = OPTION_CHOICE,
	  .where = FAKE(fast),
	  .choices = speeds,
	  .noun = "speed",
	  .help = "a choice stored in a bool" },
	{ .long_name = "title", .kind = OPTION_TEXT, .where = FAKE(title), .help = "free text" },
	{ .long_name = "input",
	  .kind = OPTION_INPUT_FILE,
	  .where = FAKE(input),
	  .help = "a file to read" },
	{ .long_name = "root",
	  .short_name = 'r',
	  .kind = OPTION_INPUT_DIR,
	  .where = FAKE(root),
	  .help = "a tree to read" },
	{ .long_name = "json",
	  .short_name = 'j',
	  .kind = OPTION_OUTPUT_FILE,
	  .where = FAKE(output),
	  .help = "a file to write" },
	{ .long_name = "svg",
	  .kind = OPTION_OUTPUT_DIR,
	  .where = FAKE(outdir),
	  .help = "a directory to write into" },
	{ .long_name = "label",
	  .kind = OPTION_CUSTOM,
	  .flags = OPTION_REPEATABLE,
	  .where = FAKE(labels),
	  .parse = check_label,
	  .value_name = "NAME=FILE",
	  .help = "a repeatable custom value" },
	{ .long_name = "explain",
	  .short_name = 'e',
	  .kind = OPTION_CHOICE,
	  .flags = OPTION_OPTIONAL,
	  .where = FAKE(explain),
	  .choices = hows,
	  .bare = "trace",
	  .value_name = "HOW",
	  .help = "an optional choice" },
	{ .long_name = "listen",
	  .kind = OPTION_CUSTOM,
	  .where = FAKE(listen),
	  .parse = parse_listen,
	  .value_name = "ADDR:PORT",
	  .help = "a custom value" },
	{ .long_name = "smi",
	  .kind = OPTION_CUSTOM,
	  .flags = OPTION_HIDDEN | OPTION_OPTIONAL,
	  .parse = refuse,
	  .help = "another tool's, refused by name" },
	OPTION_INCLUDE_AT(shared_specs, FAKE(shared)),
	OPTION_TABLE_END,
};

static const struct option_positional fake_positionals[] = {
	{ .name = "A", .kind = OPTION_TEXT, .min = 1, .max = 1, .where = FAKE(first) },
	{ .name = "B", .kind = OPTION_TEXT, .min = 1, .max = 1, .where = FAKE(second) },
	{ .name = "MORE",
	  .kind = OPTION_INPUT_FILE,
	  .min = 0,
	  .max = OPTION_MANY,
	  .where = FAKE(more) },
	OPTION_POSITIONALS_END,
};

static void fake_defaults(void *options)
{
	struct fake *o = options;

	o->ns = 10 * NS_PER_MS;
	o->fast = true;
	o->ratio = 0.95;
	o->share = 0.25;
	o->shared.level = -2;
}

static const struct option_command fake_command = {
	.name = "fake",
	.description = "A command with every kind of option.",
	.options = fake_specs,
	.positionals = fake_positionals,
	.size = sizeof(struct fake),
	.init = fake_defaults,
	.footer = "exit status: 0 ok, 129 usage error",
};

static const struct exercise_hint fake_hints[] = {
	{ .long_name = "label", .valid = "before=/tmp/a.json", .invalid = "nolabel" },
	{ .long_name = "listen", .valid = "127.0.0.1:19100", .invalid = "localhost" },
	{ NULL },
};

/* the positionals every line needs */
static const struct exercise fake_exercise = {
	.command = &fake_command,
	.prefix = "fake a b",
	.hints = fake_hints,
};

/* The options point into the words: they live as long as the test. */
static bool parse(const char *line, struct fake *o, int *status)
{
	static char text[1024];
	char *argv[64], *word, *save = NULL;
	int argc = 0;

	snprintf(text, sizeof(text), "fake %s", line);
	for (word = strtok_r(text, " ", &save); word; word = strtok_r(NULL, " ", &save))
		argv[argc++] = word;
	argv[argc] = NULL;
	return option_parse(&fake_command, argc, argv, o, NULL, status);
}

START_TEST(every_entry_takes_its_valid_forms_and_refuses_the_others)
{
	exercise_command(&fake_exercise);
}
END_TEST

START_TEST(values_are_stored_by_kind)
{
	struct fake o;
	int status;

	ck_assert(parse("-f -vv -i 42 --big 9000000000 --confidence=0.9 --dead-band 12.5 "
			"-I 250 -c 0-2,5 --by thread --speed slow --title hello --input "
			"/proc/version -r / -j /tmp/latscope-fake.json --svg /tmp --label a=x "
			"--label=b=y --listen [::1]:19100 --level -5 --name n a b",
			&o, &status));
	ck_assert(o.flag);
	ck_assert_int_eq(o.counter, 2);
	ck_assert_int_eq(o.integer, 42);
	ck_assert(o.integer_given);
	ck_assert_uint_eq(o.big, 9000000000ULL);
	ck_assert(o.ratio == 0.9);
	ck_assert(o.share == 0.125);
	ck_assert_uint_eq(o.ns, 250 * NS_PER_MS);
	ck_assert_uint_eq(cpuset_count(&o.cpus), 4);
	ck_assert(cpuset_has(&o.cpus, 5));
	ck_assert_int_eq(o.mode, 2);
	ck_assert(!o.fast);
	ck_assert_str_eq(o.title, "hello");
	ck_assert_str_eq(o.input, "/proc/version");
	ck_assert_str_eq(o.root, "/");
	ck_assert_str_eq(o.output, "/tmp/latscope-fake.json");
	ck_assert_str_eq(o.outdir, "/tmp");
	ck_assert_uint_eq(o.labels.count, 2);
	ck_assert_str_eq(o.labels.items[1], "b=y");
	ck_assert_str_eq(o.listen, "[::1]:19100");
	ck_assert_int_eq(o.shared.level, -5);
	ck_assert_str_eq(o.shared.name, "n");
	ck_assert_str_eq(o.first, "a");
	ck_assert_str_eq(o.second, "b");
	ck_assert_uint_eq(o.more.count, 0);
	option_release(&fake_command, &o);
	ck_assert_ptr_null(o.labels.items);
	option_release(&fake_command, &o);
}
END_TEST

START_TEST(defaults_come_from_init)
{
	struct fake o;
	int status;

	ck_assert(parse("a b", &o, &status));
	ck_assert_uint_eq(o.ns, 10 * NS_PER_MS);
	ck_assert(o.fast);
	ck_assert_int_eq(o.shared.level, -2);
	ck_assert(!o.integer_given);
	option_release(&fake_command, &o);
}
END_TEST

START_TEST(optional_values)
{
	struct fake o;
	int status;

	/* cyclictest's spellings: attached, the next word when it is a number, bare */
	ck_assert(parse("-t4 a b", &o, &status));
	ck_assert_uint_eq(o.threads, 4);
	ck_assert(parse("-t 4 a b", &o, &status));
	ck_assert_uint_eq(o.threads, 4);
	ck_assert(parse("--threads 4 a b", &o, &status));
	ck_assert_uint_eq(o.threads, 4);
	ck_assert(parse("--threads=4 a b", &o, &status));
	ck_assert_uint_eq(o.threads, 4);
	ck_assert(parse("-t 4 -t a b", &o, &status));
	ck_assert_uint_eq(o.threads, 0);
	ck_assert(o.threads_given);
	ck_assert(parse("-t -f a b", &o, &status));
	ck_assert(o.threads_given && o.flag);
	/* a word that is not a number is an argument, not the value */
	ck_assert(parse("-t a b", &o, &status));
	ck_assert_str_eq(o.first, "a");
	/* without OPTION_NEXT_NUMBER the next word is never the value */
	ck_assert(parse("--explain a b", &o, &status));
	ck_assert_int_eq(o.explain, 1);
	ck_assert_str_eq(o.first, "a");
	ck_assert(parse("-ecounters a b", &o, &status));
	ck_assert_int_eq(o.explain, 2);
	option_release(&fake_command, &o);
}
END_TEST

START_TEST(positionals)
{
	struct exercise x = { .command = &fake_command, .prefix = "fake" };
	struct captured seen;
	struct fake o;
	int status;

	exercise_refuses(&x, "", "missing A");
	exercise_refuses(&x, "a", "missing B");
	exercise_refuses(&x, "a b /nonexistent", "/nonexistent");
	ck_assert(parse("a b /proc/version /proc/cpuinfo", &o, &status));
	ck_assert_uint_eq(o.more.count, 2);
	ck_assert_str_eq(o.more.items[1], "/proc/cpuinfo");
	option_release(&fake_command, &o);
	/* options and arguments mix, as with every GNU tool; "--" ends the options */
	ck_assert(parse("a -f b", &o, &status));
	ck_assert_str_eq(o.second, "b");
	ck_assert(parse("-- -a- -b-", &o, &status));
	ck_assert_str_eq(o.first, "-a-");
	ck_assert(exercise_parse(&x, "a b", &status, &seen));
	option_release(&fake_command, &o);
}
END_TEST

START_TEST(refused_words_are_named)
{
	struct exercise x = { .command = &fake_command, .prefix = "fake a b" };

	exercise_refuses(&x, "--bogus", "unknown option '--bogus'");
	exercise_refuses(&x, "--bogus=1", "unknown option '--bogus'");
	exercise_refuses(&x, "-Z", "unknown option '-Z'");
	exercise_refuses(&x, "-fZ", "unknown option '-Z'");
	exercise_refuses(&x, "--flag=yes", "option '--flag' takes no value");
	exercise_refuses(&x, "--integer", "option '--integer' needs a value");
	exercise_refuses(&x, "-i", "option '-i' needs a value");
	exercise_refuses(&x, "--help=x", "option '--help' takes no value");
	/* --confidence and --cpus: "--c" could be either */
	exercise_refuses(&x, "--c 1", "option '--c' is ambiguous");
	exercise_refuses(&x, "--by none", "invalid value 'none' for --by (cpu, thread or all)");
	exercise_refuses(&x, "--speed x", "invalid speed 'x' for --speed (fast or slow)");
	exercise_refuses(&x, "-i 100", "-i '100' is out of range (1-99)");
	exercise_refuses(&x, "--integer=0", "--integer '0' is out of range (1-99)");
	exercise_refuses(&x, "--dead-band 0.5", "--dead-band '0.5' is out of range (1-1000)");
	exercise_refuses(&x, "--interval 2h", "--interval '2h' is out of range");
	exercise_refuses(&x, "--smi=1", "option '--smi' is not supported");
	/* abbreviations that are not ambiguous are taken, as getopt_long does */
	exercise_accepts(&x, "--conf 0.6 --inter 5");
}
END_TEST

START_TEST(paths_are_checked_without_leaving_anything)
{
	struct exercise x = { .command = &fake_command, .prefix = "fake a b" };
	char dir[] = "/tmp/latscope-option-XXXXXX", path[256], line[512];
	struct stat st;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	/* a directory that does not exist yet is fine, and still does not exist */
	snprintf(path, sizeof(path), "%s/figures", dir);
	snprintf(line, sizeof(line), "--svg %s", path);
	exercise_accepts(&x, line);
	ck_assert_int_eq(stat(path, &st), -1);
	/* and is left alone when a later option is wrong */
	snprintf(line, sizeof(line), "--svg %s --integer 0", path);
	exercise_refuses(&x, line, "--integer");
	ck_assert_int_eq(stat(path, &st), -1);
	snprintf(line, sizeof(line), "--svg %s/no/such", dir);
	exercise_refuses(&x, line, "cannot create --svg");
	snprintf(line, sizeof(line), "--json %s/out.json", dir);
	exercise_accepts(&x, line);
	snprintf(line, sizeof(line), "--json %s", dir);
	exercise_refuses(&x, line, "cannot write --json");
	exercise_refuses(&x, "--json=", "empty path for --json");
	exercise_refuses(&x, "--root /proc/version", "'/proc/version' for --root: not a directory");
	exercise_refuses(&x, "-r /nonexistent", "cannot use '/nonexistent' for -r");
	exercise_refuses(&x, "--input /", "cannot read '/' for --input");
	/* nothing the checks made stays */
	ck_assert_int_eq(rmdir(dir), 0);
}
END_TEST

START_TEST(help_is_the_table)
{
	struct exercise x = { .command = &fake_command, .prefix = "fake" };
	struct captured seen;
	const char *line;
	int status;

	ck_assert(!exercise_parse(&x, "-h", &status, &seen));
	ck_assert_int_eq(status, EXIT_OK);
	ck_assert_msg(strstr(seen.out, "usage: latscope fake [OPTIONS] A B [MORE...]\n"), "%s",
		      seen.out);
	ck_assert(strstr(seen.out, "\nA command with every kind of option.\n"));
	ck_assert(strstr(seen.out, "  -I, --interval DUR"));
	ck_assert(strstr(seen.out, "(default: 10ms; bare number: ms)"));
	ck_assert(strstr(seen.out, "--by cpu|thread|all"));
	ck_assert(strstr(seen.out, "a choice stored in a bool (default: fast)"));
	ck_assert(strstr(seen.out, "--dead-band PCT"));
	ck_assert(strstr(seen.out, "a percentage (default: 25)"));
	ck_assert(strstr(seen.out, "(default: 0.95)"));
	ck_assert(strstr(seen.out, "a signed level (default: -2)"));
	ck_assert(strstr(seen.out, "a flag (also --also-flag)"));
	ck_assert(strstr(seen.out, "a repeatable custom value (repeatable)"));
	ck_assert(strstr(seen.out, "-e, --explain[=HOW]"));
	ck_assert(strstr(seen.out, "  -h, --help"));
	ck_assert(!strstr(seen.out, "--smi"));
	ck_assert(strstr(seen.out, "\nexit status: 0 ok, 129 usage error\n"));
	for (line = seen.out; *line; line = strchr(line, '\n') + 1)
		ck_assert_msg(strchr(line, '\n') - line <= 79, "a line longer than 79: %.*s",
			      (int)(strchr(line, '\n') - line), line);
}
END_TEST

/* A command with few options lists them in its usage line. */
static const struct option_spec few_specs[] = {
	{ .long_name = "root", .kind = OPTION_INPUT_DIR, .where = FAKE(root), .help = "a tree" },
	{ .long_name = "verbose",
	  .short_name = 'v',
	  .kind = OPTION_COUNTER,
	  .where = FAKE(counter),
	  .help = "say more" },
	OPTION_TABLE_END,
};

static const struct option_positional files[] = {
	{ .name = "FILE", .kind = OPTION_TEXT, .min = 1, .max = OPTION_MANY, .where = FAKE(more) },
	OPTION_POSITIONALS_END,
};

static const struct option_group few_group;
static const struct option_command few_show = {
	.name = "few show",
	.summary = "show something",
	.options = few_specs,
	.positionals = files,
	.size = sizeof(struct fake),
	.group = &few_group,
};
static const struct option_command few_hide = {
	.name = "few hide",
	.summary = "hide it again",
	.options = few_specs,
	.size = sizeof(struct fake),
	.group = &few_group,
};
static const struct option_command *const few_subcommands[] = { &few_show, &few_hide, NULL };
static const struct option_group few_group = {
	.name = "few",
	.description = "Two subcommands.",
	.subcommands = few_subcommands,
};

START_TEST(subcommands)
{
	struct exercise x = { .command = &few_show, .prefix = "show" };
	char *missing[] = { "few", NULL }, *frob[] = { "few", "frob", NULL };
	char *help[] = { "few", "help", NULL }, *show[] = { "few", "show", "a", NULL };
	struct captured seen;
	int status;

	ck_assert_ptr_null(option_subcommand(&few_group, 1, missing, &status));
	ck_assert_int_eq(status, EXIT_USAGE);
	ck_assert_ptr_null(option_subcommand(&few_group, 2, frob, &status));
	ck_assert_int_eq(status, EXIT_USAGE);
	ck_assert_ptr_null(option_subcommand(&few_group, 2, help, &status));
	ck_assert_int_eq(status, EXIT_OK);
	ck_assert_ptr_eq(option_subcommand(&few_group, 3, show, &status), &few_show);
	/* a subcommand's --help is the group's: every usage line, every option once */
	ck_assert(!exercise_parse(&x, "--help", &status, &seen));
	ck_assert_int_eq(status, EXIT_OK);
	ck_assert_msg(strstr(seen.out, "usage: latscope few show [--root DIR] [--verbose] FILE...\n"
				       "       latscope few hide [--root DIR] [--verbose]\n"),
		      "%s", seen.out);
	ck_assert(strstr(seen.out, "  show     show something\n  hide     hide it again\n"));
	ck_assert_msg(help_option_lines(seen.out) == 3, "%s", seen.out);
	exercise_refuses(&x, "", "missing FILE");
	x.command = &few_hide;
	x.prefix = "hide";
	exercise_refuses(&x, "c", "unexpected argument 'c'");
}
END_TEST

int main(void)
{
	Suite *suite = suite_create("option_table");
	TCase *tc = tcase_create("parse");

	tcase_add_test(tc, every_entry_takes_its_valid_forms_and_refuses_the_others);
	tcase_add_test(tc, values_are_stored_by_kind);
	tcase_add_test(tc, defaults_come_from_init);
	tcase_add_test(tc, optional_values);
	tcase_add_test(tc, positionals);
	tcase_add_test(tc, refused_words_are_named);
	tcase_add_test(tc, paths_are_checked_without_leaving_anything);
	tcase_add_test(tc, help_is_the_table);
	tcase_add_test(tc, subcommands);
	suite_add_tcase(suite, tc);
	return unit_run(suite);
}
