// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The completion table (completion.h) against the option tables: every
 * visible option of every command and subcommand is listed once under its
 * command, with its short letter, how it takes a value and how the value
 * is completed; aliases too; hidden entries never; positionals in order.
 */
#include <getopt.h>

#include "completion.h"
#include "option_exercise.h"

struct record {
	char *fields[8];
	unsigned int count;
};

struct table {
	char *text;
	struct record records[512];
	unsigned int count;
};

static void table_load(struct table *t, const struct command *commands, size_t count)
{
	size_t size = 0;
	FILE *out = open_memstream(&t->text, &size);
	char *line, *save_line, *field, *save_field;

	ck_assert_ptr_nonnull(out);
	ck_assert_int_eq(completion_print_table(out, commands, count), 0);
	ck_assert_int_eq(fclose(out), 0);
	t->count = 0;
	for (line = strtok_r(t->text, "\n", &save_line); line;
	     line = strtok_r(NULL, "\n", &save_line)) {
		struct record *r = &t->records[t->count++];

		ck_assert_uint_lt(t->count, 512);
		r->count = 0;
		for (field = strtok_r(line, "\t", &save_field); field;
		     field = strtok_r(NULL, "\t", &save_field)) {
			ck_assert_msg(*field, "an empty field in a record");
			ck_assert_uint_lt(r->count, 8);
			r->fields[r->count++] = field;
		}
	}
}

/* The records of @type under @key, and the one named @name (NULL: none). */
static const struct record *table_find(const struct table *t, const char *type, const char *key,
				       const char *name, unsigned int *matches)
{
	const struct record *found = NULL;
	unsigned int i;

	*matches = 0;
	for (i = 0; i < t->count; i++) {
		const struct record *r = &t->records[i];

		if (strcmp(r->fields[0], type) || strcmp(r->fields[1], key))
			continue;
		if (name && strcmp(r->fields[2], name))
			continue;
		++*matches;
		found = r;
	}
	return found;
}

/* The contract of completion.h, spelled out again here. */
static const char *expected_argument(const struct option_spec *spec)
{
	if (spec->kind == OPTION_FLAG || spec->kind == OPTION_COUNTER)
		return "none";
	if (!(spec->flags & OPTION_OPTIONAL))
		return "required";
	return spec->flags & OPTION_NEXT_NUMBER ? "next" : "optional";
}

static const char *expected_kind(enum option_kind kind)
{
	switch (kind) {
	case OPTION_FLAG:
	case OPTION_COUNTER:
		return "flag";
	case OPTION_CPUS:
		return "cpus";
	case OPTION_INPUT_FILE:
	case OPTION_OUTPUT_FILE:
		return "file";
	case OPTION_INPUT_DIR:
	case OPTION_OUTPUT_DIR:
		return "dir";
	case OPTION_CHOICE:
		return "choice";
	default:
		return "value";
	}
}

static void check_option(const struct table *t, const char *key, const char *name, int short_name,
			 const struct option_spec *spec)
{
	enum option_kind kind = spec->kind == OPTION_CUSTOM ? spec->complete_as : spec->kind;
	char long_name[96], short_word[8], words[256] = "-";
	const struct option_choice *c;
	const struct record *r;
	unsigned int matches;
	size_t used = 0;

	snprintf(long_name, sizeof(long_name), "--%s", name);
	r = table_find(t, "option", key, long_name, &matches);
	ck_assert_msg(matches == 1, "%s %s: listed %u times", key, long_name, matches);
	ck_assert_uint_eq(r->count, 7);
	snprintf(short_word, sizeof(short_word), short_name ? "-%c" : "-", short_name);
	ck_assert_str_eq(r->fields[3], short_word);
	ck_assert_str_eq(r->fields[4], expected_argument(spec));
	ck_assert_str_eq(r->fields[5], expected_kind(kind));
	if (kind == OPTION_CHOICE) {
		for (c = spec->choices; c->name; c++)
			used += (size_t)snprintf(words + used, sizeof(words) - used, "%s%s",
						 c == spec->choices ? "" : " ", c->name);
	}
	ck_assert_msg(!strcmp(r->fields[6], words), "%s %s: words '%s', want '%s'", key, long_name,
		      r->fields[6], words);
}

/* Every entry of @command's table, and nothing else, under its name. */
static void check_listed(const struct table *t, const struct option_command *command)
{
	const struct option_spec *specs[128];
	char long_name[96];
	unsigned int n, i, matches, listed = 0;

	n = exercise_flatten(command->options, specs, 0);
	for (i = 0; i < n; i++) {
		const struct option_spec *spec = specs[i];

		if (spec->flags & OPTION_HIDDEN) {
			snprintf(long_name, sizeof(long_name), "--%s", spec->long_name);
			table_find(t, "option", command->name, long_name, &matches);
			ck_assert_msg(!matches, "%s: hidden %s is listed", command->name,
				      long_name);
			continue;
		}
		check_option(t, command->name, spec->long_name, spec->short_name, spec);
		listed++;
		if (spec->alias) {
			check_option(t, command->name, spec->alias, 0, spec);
			listed++;
		}
	}
	table_find(t, "option", command->name, NULL, &matches);
	ck_assert_msg(matches == listed, "%s: %u options listed, the table has %u", command->name,
		      matches, listed);
}

static const struct command latscope_commands[] = {
	{ "noise", NULL, "", NULL, &noise_command, NULL },
	{ "check", NULL, "", NULL, &check_command, NULL },
	{ "timer", "cyclic", "", NULL, &timer_command, NULL },
	{ "irq", NULL, "", NULL, NULL, &irq_group },
};

START_TEST(every_option_of_every_command)
{
	const struct option_command *const *sub;
	const struct record *r;
	struct table t;
	unsigned int matches, nr_subcommands = 0;
	size_t i;

	table_load(&t, latscope_commands, 4);
	for (i = 0; i < 4; i++) {
		const struct command *c = &latscope_commands[i];

		r = table_find(&t, "command", c->name, NULL, &matches);
		ck_assert_uint_eq(matches, 1);
		ck_assert_str_eq(r->fields[2], c->alias ? c->alias : "-");
		ck_assert_str_eq(r->fields[3], c->group ? "group" : "plain");
		if (c->options)
			check_listed(&t, c->options);
	}
	for (sub = irq_group.subcommands; *sub; sub++) {
		r = table_find(&t, "subcommand", "irq", strchr((*sub)->name, ' ') + 1, &matches);
		ck_assert_msg(matches == 1, "subcommand %s listed %u times", (*sub)->name, matches);
		check_listed(&t, *sub);
		nr_subcommands++;
	}
	table_find(&t, "subcommand", "irq", NULL, &matches);
	ck_assert_uint_eq(matches, nr_subcommands);
	/* what completion offers for values: a few by name */
	r = table_find(&t, "option", "noise", "--cpus", &matches);
	ck_assert_str_eq(r->fields[5], "cpus");
	r = table_find(&t, "option", "timer", "--affinity", &matches);
	ck_assert_str_eq(r->fields[4], "next");
	ck_assert_str_eq(r->fields[5], "cpus");
	r = table_find(&t, "option", "timer", "--policy", &matches);
	ck_assert_str_eq(r->fields[6], "other fifo rr batch idle");
	r = table_find(&t, "option", "irq balance", "--journal", &matches);
	ck_assert_str_eq(r->fields[5], "file");
	table_find(&t, "option", "timer", "--smi", &matches);
	ck_assert_uint_eq(matches, 0);
	free(t.text);
}
END_TEST

/* A command of the shape report and compare will have: positionals. */
struct fake {
	const char *first;
	const char *second;
	struct option_list more;
	const char *listen;
};

#define FAKE(member) OPTION_FIELD(struct fake, member)

static int take_any(const struct option_value *v)
{
	(void)v;
	return 0;
}

static const struct option_spec fake_specs[] = {
	{ .long_name = "listen",
	  .kind = OPTION_CUSTOM,
	  .where = FAKE(listen),
	  .parse = take_any,
	  .help = "ADDR:PORT: nothing to offer" },
	{ .long_name = "under",
	  .kind = OPTION_CUSTOM,
	  .parse = take_any,
	  .complete_as = OPTION_OUTPUT_DIR,
	  .help = "a custom value completed as a directory" },
	OPTION_TABLE_END,
};

static const struct option_positional fake_positionals[] = {
	{ .name = "A", .kind = OPTION_INPUT_FILE, .min = 1, .max = 1, .where = FAKE(first) },
	{ .name = "B", .kind = OPTION_INPUT_DIR, .min = 1, .max = 1, .where = FAKE(second) },
	{ .name = "MORE", .kind = OPTION_TEXT, .min = 0, .max = OPTION_MANY, .where = FAKE(more) },
	OPTION_POSITIONALS_END,
};

static const struct option_command fake_command = {
	.name = "fake",
	.options = fake_specs,
	.positionals = fake_positionals,
	.size = sizeof(struct fake),
};

START_TEST(positionals_in_order)
{
	static const struct command commands[] = {
		{ "fake", NULL, "", NULL, &fake_command, NULL },
	};
	static const char *const want[][4] = {
		{ "A", "file", "1", "1" },
		{ "B", "dir", "1", "1" },
		{ "MORE", "value", "0", "many" },
	};
	const struct record *r;
	unsigned int i, j, matches, seen = 0;
	struct table t;

	table_load(&t, commands, 1);
	check_listed(&t, &fake_command);
	r = table_find(&t, "option", "fake", "--under", &matches);
	ck_assert_str_eq(r->fields[5], "dir");
	r = table_find(&t, "option", "fake", "--listen", &matches);
	ck_assert_str_eq(r->fields[5], "value");
	for (i = 0; i < t.count; i++) {
		r = &t.records[i];
		if (strcmp(r->fields[0], "positional"))
			continue;
		ck_assert_uint_lt(seen, 3);
		ck_assert_uint_eq(r->count, 6);
		ck_assert_str_eq(r->fields[1], "fake");
		for (j = 0; j < 4; j++)
			ck_assert_str_eq(r->fields[2 + j], want[seen][j]);
		seen++;
	}
	ck_assert_uint_eq(seen, 3);
	free(t.text);
}
END_TEST

int main(void)
{
	Suite *suite = suite_create("completion");
	TCase *tc = tcase_create("table");

	tcase_add_test(tc, every_option_of_every_command);
	tcase_add_test(tc, positionals_in_order);
	suite_add_tcase(suite, tc);
	return unit_run(suite);
}
