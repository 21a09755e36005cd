/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_TEST_OPTION_EXERCISE_H
#define LATSCOPE_TEST_OPTION_EXERCISE_H

/*
 * Walk a command's option table the way a user would: every entry is
 * given in each of its spellings with values its kind and range accept,
 * which must parse, and with values they refuse, which must be a usage
 * error (EXIT_USAGE) printed as one line naming the option as spelled. The
 * help printed from the table must list every visible entry and nothing
 * else. A test per command calls exercise_command() with what the table
 * cannot say: sample values of its custom kinds, and the words an option
 * needs beside it (--trace-dir needs --explain).
 */
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "latscope/cpuset.h"
#include "latscope/parse.h"
#include "option_table.h"
#include "unit.h"

#define EXERCISE_MAX_WORDS 16
/*
 * Values hold paths of the tree (TEST_DATA_DIR), so the texts are sized
 * for paths: a checkout in a longer directory (a package build's copy)
 * must not cut a file name short and fail for that. A text that would not
 * fit fails the test, saying so.
 */
#define EXERCISE_VALUE_MAX PATH_MAX
#define EXERCISE_LINE_MAX (4 * PATH_MAX)
/* (@buf an array, not a pointer: its size is what is checked) */
#define exercise_format(buf, ...)                                                 \
	ck_assert_msg(snprintf(buf, sizeof(buf), __VA_ARGS__) < (int)sizeof(buf), \
		      "an exercise text longer than %zu bytes", sizeof(buf))

/* What the table cannot say about one option. */
struct exercise_hint {
	const char *long_name;
	const char *valid; /* a value a custom kind accepts */
	const char *invalid; /* a value it refuses */
	const char *companion; /* words the option needs beside it, space-separated */
};

/* --json-compact, which every command writing a document takes, needs --json */
#define EXERCISE_JSON_COMPACT                                                                  \
	{                                                                                      \
		.long_name = "json-compact", .companion = "--json /tmp/latscope-exercise.json" \
	}

struct exercise {
	const struct option_command *command;
	void *context; /* option_parse()'s */
	const char *prefix; /* words before the options (a subcommand's name is argv[0]) */
	const char *suffix; /* words after them ("-- noise": what ab runs), or NULL */
	const struct exercise_hint *hints; /* { NULL } ends */
};

/* What a parse printed. */
struct captured {
	char out[16384];
	char err[4096];
};

static inline void read_back(FILE *f, char *buf, size_t size)
{
	size_t n;

	rewind(f);
	n = fread(buf, 1, size - 1, f);
	buf[n] = '\0';
	fclose(f);
}

/* Parse @line (words split at spaces, "''" for an empty word); returns true to run. */
static inline bool exercise_parse(const struct exercise *x, const char *line, int *status,
				  struct captured *seen)
{
	char text[EXERCISE_LINE_MAX + 64], *argv[EXERCISE_MAX_WORDS * 2], *word, *save = NULL;
	FILE *out = tmpfile(), *err = tmpfile();
	int argc = 0, saved_out, saved_err;
	void *options = calloc(1, x->command->size);
	bool run;

	ck_assert_ptr_nonnull(out);
	ck_assert_ptr_nonnull(err);
	ck_assert_ptr_nonnull(options);
	exercise_format(text, "%s %s %s", x->prefix ? x->prefix : x->command->name, line,
			x->suffix ? x->suffix : "");
	for (word = strtok_r(text, " ", &save); word; word = strtok_r(NULL, " ", &save))
		argv[argc++] = strcmp(word, "''") ? word : word + 2;
	argv[argc] = NULL;
	fflush(stdout);
	fflush(stderr);
	saved_out = dup(1);
	saved_err = dup(2);
	dup2(fileno(out), 1);
	dup2(fileno(err), 2);
	run = option_parse(x->command, argc, argv, options, x->context, status);
	fflush(stdout);
	fflush(stderr);
	dup2(saved_out, 1);
	dup2(saved_err, 2);
	close(saved_out);
	close(saved_err);
	read_back(out, seen->out, sizeof(seen->out));
	read_back(err, seen->err, sizeof(seen->err));
	option_release(x->command, options);
	free(options);
	return run;
}

static inline const struct exercise_hint *exercise_hint(const struct exercise *x,
							const char *long_name)
{
	const struct exercise_hint *h;

	for (h = x->hints; h && h->long_name; h++)
		if (!strcmp(h->long_name, long_name))
			return h;
	return NULL;
}

static inline void exercise_accepts(const struct exercise *x, const char *line)
{
	struct captured seen;
	int status = -1;

	ck_assert_msg(exercise_parse(x, line, &status, &seen), "%s: '%s' was refused (exit %d): %s",
		      x->command->name, line, status, seen.err);
	ck_assert_msg(!seen.err[0], "%s: '%s' printed %s", x->command->name, line, seen.err);
}

static inline void exercise_refuses(const struct exercise *x, const char *line, const char *named)
{
	struct captured seen;
	int status = -1;
	char *newline;

	ck_assert_msg(!exercise_parse(x, line, &status, &seen), "%s: '%s' was accepted",
		      x->command->name, line);
	ck_assert_msg(status == EXIT_USAGE, "%s: '%s' exit %d, not 129", x->command->name, line,
		      status);
	newline = strchr(seen.err, '\n');
	ck_assert_msg(newline && !newline[1], "%s: '%s' printed not one line: %s", x->command->name,
		      line, seen.err);
	ck_assert_msg(strstr(seen.err, named), "%s: '%s': the error does not name %s: %s",
		      x->command->name, line, named, seen.err);
	ck_assert_msg(!seen.out[0], "%s: '%s' printed on stdout", x->command->name, line);
}

/* The values a kind accepts and refuses, as text. */
struct exercise_values {
	char valid[4][EXERCISE_VALUE_MAX];
	unsigned int nr_valid;
	char invalid[6][EXERCISE_VALUE_MAX];
	unsigned int nr_invalid;
};

static inline void add_valid(struct exercise_values *v, const char *text)
{
	exercise_format(v->valid[v->nr_valid], "%s", text);
	v->nr_valid++;
}

static inline void add_invalid(struct exercise_values *v, const char *text)
{
	exercise_format(v->invalid[v->nr_invalid], "%s", text);
	v->nr_invalid++;
}

static inline void exercise_values_of(const struct exercise *x, const struct option_spec *spec,
				      struct exercise_values *v)
{
	const struct exercise_hint *hint = exercise_hint(x, spec->long_name);
	const struct option_choice *c;
	char text[64];

	memset(v, 0, sizeof(*v));
	switch (spec->kind) {
	case OPTION_INTEGER:
		snprintf(text, sizeof(text), "%lld", spec->integer.min);
		add_valid(v, text);
		snprintf(text, sizeof(text), "%lld", spec->integer.max);
		add_valid(v, text);
		if (spec->integer.min > INT64_MIN) {
			snprintf(text, sizeof(text), "%lld", spec->integer.min - 1);
			add_invalid(v, text);
		}
		if (spec->integer.max < INT64_MAX) {
			snprintf(text, sizeof(text), "%lld", spec->integer.max + 1);
			add_invalid(v, text);
		}
		add_invalid(v, "abc");
		add_invalid(v, "12x");
		break;
	case OPTION_NUMBER:
		snprintf(text, sizeof(text), "%.17g", spec->number.min);
		add_valid(v, text);
		snprintf(text, sizeof(text), "%.17g", spec->number.max);
		add_valid(v, text);
		snprintf(text, sizeof(text), "%.17g", spec->number.min - 1);
		add_invalid(v, text);
		snprintf(text, sizeof(text), "%.17g", spec->number.max + 1);
		add_invalid(v, text);
		add_invalid(v, "abc");
		add_invalid(v, "1e3");
		break;
	case OPTION_DURATION:
		snprintf(text, sizeof(text), "%lluns", (unsigned long long)spec->duration.min_ns);
		add_valid(v, text);
		snprintf(text, sizeof(text), "%lluns", (unsigned long long)spec->duration.max_ns);
		add_valid(v, text);
		if (spec->duration.min_ns > 0) {
			snprintf(text, sizeof(text), "%lluns",
				 (unsigned long long)spec->duration.min_ns - 1);
			add_invalid(v, text);
		}
		snprintf(text, sizeof(text), "%lluns",
			 (unsigned long long)spec->duration.max_ns + 1);
		add_invalid(v, text);
		add_invalid(v, "5x");
		add_invalid(v, "-1");
		break;
	case OPTION_CPUS:
		add_valid(v, "0");
		add_invalid(v, "3-x");
		add_invalid(v, "''");
		break;
	case OPTION_CHOICE:
		for (c = spec->choices; c->name && v->nr_valid < 4; c++)
			add_valid(v, c->name);
		add_invalid(v, "no-such-word");
		break;
	case OPTION_TEXT:
		add_valid(v, "some-text");
		break;
	case OPTION_INPUT_FILE:
		add_valid(v, "/proc/version");
		add_invalid(v, "/nonexistent/file");
		add_invalid(v, "/");
		break;
	case OPTION_INPUT_DIR:
		add_valid(v, TEST_DATA_DIR);
		add_invalid(v, "/nonexistent");
		add_invalid(v, "/proc/version");
		break;
	case OPTION_OUTPUT_FILE:
		add_valid(v, "/tmp/latscope-exercise.out");
		add_invalid(v, "/nonexistent/dir/x");
		add_invalid(v, "/");
		add_invalid(v, "''");
		break;
	case OPTION_OUTPUT_DIR:
		add_valid(v, "/tmp");
		add_invalid(v, "/nonexistent/a/b");
		add_invalid(v, "/proc/version");
		break;
	case OPTION_CUSTOM:
		ck_assert_msg(hint && hint->valid, "%s: --%s: no sample value for a custom kind",
			      x->command->name, spec->long_name);
		add_valid(v, hint->valid);
		if (hint->invalid)
			add_invalid(v, hint->invalid);
		break;
	default:
		break;
	}
}

/* Every spelling of @spec with @value: -cV, -c V, --name=V, --name V (and the alias). */
static inline void exercise_spellings(const struct exercise *x, const struct option_spec *spec,
				      const char *value, bool valid)
{
	const struct exercise_hint *hint = exercise_hint(x, spec->long_name);
	const char *companion = hint && hint->companion ? hint->companion : "";
	bool optional = spec->flags & OPTION_OPTIONAL;
	bool separate = !optional ||
			((spec->flags & OPTION_NEXT_NUMBER) && value[0] >= '0' && value[0] <= '9');
	const char *names[2] = { spec->long_name, spec->alias };
	char line[EXERCISE_LINE_MAX], named[80];
	unsigned int i;

	for (i = 0; i < 2 && names[i]; i++) {
		snprintf(named, sizeof(named), "--%s", names[i]);
		exercise_format(line, "%s --%s=%s", companion, names[i],
				strcmp(value, "''") ? value : "");
		valid ? exercise_accepts(x, line) : exercise_refuses(x, line, named);
		if (!separate || !strcmp(value, "''"))
			continue;
		exercise_format(line, "%s --%s %s", companion, names[i], value);
		valid ? exercise_accepts(x, line) : exercise_refuses(x, line, named);
	}
	if (!spec->short_name || !strcmp(value, "''"))
		return;
	snprintf(named, sizeof(named), "-%c", spec->short_name);
	exercise_format(line, "%s -%c%s", companion, spec->short_name, value);
	valid ? exercise_accepts(x, line) : exercise_refuses(x, line, named);
	if (!separate)
		return;
	exercise_format(line, "%s -%c %s", companion, spec->short_name, value);
	valid ? exercise_accepts(x, line) : exercise_refuses(x, line, named);
}

/* The sizes each kind stores into; a table that disagrees would corrupt memory. */
static inline void exercise_check_entry(const struct exercise *x, const struct option_spec *spec)
{
	size_t size = spec->where.size;
	const char *name = spec->long_name;

	ck_assert_msg(name && *name, "%s: an entry without a long name", x->command->name);
	ck_assert_msg(spec->help && *spec->help, "%s: --%s has no help", x->command->name, name);
	if (spec->given.size)
		ck_assert_msg(spec->given.size == sizeof(bool), "--%s: given is not a bool", name);
	if (spec->flags & OPTION_REPEATABLE) {
		ck_assert_msg(size == sizeof(struct option_list), "--%s: not a list", name);
		return;
	}
	switch (spec->kind) {
	case OPTION_FLAG:
		ck_assert_msg(size == sizeof(bool), "--%s: a flag is a bool", name);
		break;
	case OPTION_COUNTER:
		ck_assert_msg(size == sizeof(int), "--%s: a counter is an int", name);
		break;
	case OPTION_INTEGER:
		ck_assert_msg(size == 1 || size == 2 || size == 4 || size == 8,
			      "--%s: integer of size %zu", name, size);
		ck_assert_msg(spec->integer.min <= spec->integer.max, "--%s: empty range", name);
		if (size < 8 && spec->integer.min < 0)
			ck_assert_msg(spec->integer.min >= -(1LL << (8 * size - 1)) &&
					      spec->integer.max < (1LL << (8 * size - 1)),
				      "--%s: the range does not fit the field", name);
		else if (size < 8)
			ck_assert_msg(spec->integer.max < (1LL << (8 * size)),
				      "--%s: the range does not fit the field", name);
		break;
	case OPTION_NUMBER:
		ck_assert_msg(size == sizeof(double), "--%s: a number is a double", name);
		break;
	case OPTION_DURATION:
		ck_assert_msg(size == sizeof(uint64_t), "--%s: a duration is a uint64_t", name);
		ck_assert_msg(spec->duration.bare_unit_ns, "--%s: no bare unit", name);
		break;
	case OPTION_CPUS:
		ck_assert_msg(size == sizeof(struct cpuset), "--%s: not a cpuset", name);
		break;
	case OPTION_CHOICE:
		ck_assert_msg(size == 1 || size == 4 || size == 8, "--%s: choice of size %zu", name,
			      size);
		ck_assert_msg(spec->choices && spec->choices[0].name, "--%s: no choices", name);
		break;
	case OPTION_TEXT:
	case OPTION_INPUT_FILE:
	case OPTION_INPUT_DIR:
	case OPTION_OUTPUT_FILE:
	case OPTION_OUTPUT_DIR:
		ck_assert_msg(size == sizeof(char *), "--%s: not a string", name);
		break;
	case OPTION_CUSTOM:
		ck_assert_msg(spec->parse, "--%s: custom without a parser", name);
		break;
	case OPTION_SEPARATOR:
		ck_assert_msg(size == sizeof(unsigned int), "--%s: a separator counts words", name);
		ck_assert_msg(spec->given.size, "--%s: a separator needs its given bool", name);
		break;
	default:
		ck_abort_msg("--%s: kind %d", name, spec->kind);
	}
}

/* The entries of a table, includes resolved, in order; returns how many. */
static inline unsigned int exercise_flatten(const struct option_spec *table,
					    const struct option_spec **out, unsigned int n)
{
	const struct option_spec *spec;
	unsigned int i;

	for (spec = table; spec->kind != OPTION_END; spec++) {
		if (spec->kind == OPTION_INCLUDE) {
			n = exercise_flatten(spec->include, out, n);
			continue;
		}
		for (i = 0; i < n && out[i] != spec; i++)
			;
		if (i == n) {
			ck_assert_uint_lt(n, 128);
			out[n++] = spec;
		}
	}
	return n;
}

/* An option line of --help: "  -c, --cpus LIST ..." or "      --policy ..."; its short letter. */
static inline const char *help_option_line(const char *line, int *short_name)
{
	if (!strncmp(line, "  -", 3) && line[3] != '-' && !strncmp(line + 4, ", --", 4)) {
		*short_name = line[3];
		return line + 6;
	}
	if (!strncmp(line, "      --", 8)) {
		*short_name = 0;
		return line + 6;
	}
	return NULL;
}

static inline bool help_lists(const char *help, const char *long_name, int short_name)
{
	size_t len = strlen(long_name);
	const char *line, *p;
	int letter;

	for (line = help; line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
		p = help_option_line(line, &letter);
		if (!p || letter != short_name || strncmp(p + 2, long_name, len))
			continue;
		if (p[2 + len] == ' ' || p[2 + len] == '[' || p[2 + len] == '\n')
			return true;
	}
	return false;
}

static inline unsigned int help_option_lines(const char *help)
{
	const char *line;
	unsigned int n = 0;
	int letter;

	for (line = help; line; line = strchr(line, '\n'), line = line ? line + 1 : NULL)
		n += help_option_line(line, &letter) != NULL;
	return n;
}

/* Everything above, for every entry of the command's table. */
static inline void exercise_command(const struct exercise *x)
{
	const struct option_spec *specs[128];
	struct exercise_values values;
	struct captured seen;
	unsigned int n, i, j, listed = 0;
	const char *help_line;
	int status;

	n = exercise_flatten(x->command->options, specs, 0);
	for (i = 0; i < n; i++) {
		const struct option_spec *spec = specs[i];

		exercise_check_entry(x, spec);
		for (j = 0; j < i; j++) {
			ck_assert_msg(strcmp(specs[j]->long_name, spec->long_name), "--%s twice",
				      spec->long_name);
			ck_assert_msg(!spec->short_name || specs[j]->short_name != spec->short_name,
				      "-%c twice", spec->short_name);
		}
		if (spec->flags & OPTION_HIDDEN) {
			char word[96];

			/* known only to be refused, by name */
			snprintf(word, sizeof(word), "--%s", spec->long_name);
			exercise_refuses(x, word, word);
			if (spec->short_name) {
				snprintf(word, sizeof(word), "-%c", spec->short_name);
				exercise_refuses(x, word, word);
			}
			continue;
		}
		if (spec->kind == OPTION_SEPARATOR) {
			char line[256], named[80];
			const struct exercise_hint *hint = exercise_hint(x, spec->long_name);
			const char *after = hint && hint->companion ? hint->companion : "";

			/* a mark among the positionals: once, with a word after it */
			snprintf(line, sizeof(line), "--%s %s", spec->long_name, after);
			exercise_accepts(x, line);
			snprintf(line, sizeof(line), "--%s %s --%s %s", spec->long_name, after,
				 spec->long_name, after);
			snprintf(named, sizeof(named), "'--%s' given twice", spec->long_name);
			exercise_refuses(x, line, named);
			continue;
		}
		exercise_values_of(x, spec, &values);
		for (j = 0; j < values.nr_valid; j++)
			exercise_spellings(x, spec, values.valid[j], true);
		for (j = 0; j < values.nr_invalid; j++)
			exercise_spellings(x, spec, values.invalid[j], false);
		if (spec->kind == OPTION_FLAG || spec->kind == OPTION_COUNTER) {
			char line[256], named[80];
			const struct exercise_hint *hint = exercise_hint(x, spec->long_name);

			snprintf(line, sizeof(line), "%s --%s",
				 hint && hint->companion ? hint->companion : "", spec->long_name);
			exercise_accepts(x, line);
			if (spec->short_name) {
				snprintf(line, sizeof(line), "%s -%c",
					 hint && hint->companion ? hint->companion : "",
					 spec->short_name);
				exercise_accepts(x, line);
			}
			snprintf(line, sizeof(line), "--%s=x", spec->long_name);
			snprintf(named, sizeof(named), "--%s", spec->long_name);
			exercise_refuses(x, line, named);
		} else if (spec->flags & OPTION_OPTIONAL) {
			char line[256];
			const struct exercise_hint *hint = exercise_hint(x, spec->long_name);

			snprintf(line, sizeof(line), "%s --%s",
				 hint && hint->companion ? hint->companion : "", spec->long_name);
			if (!(spec->flags & OPTION_HIDDEN))
				exercise_accepts(x, line);
		} else if (!x->suffix) {
			char line[256], named[80];

			/* the value left out at the end of the line (none when words follow it) */
			snprintf(line, sizeof(line), "--%s", spec->long_name);
			snprintf(named, sizeof(named), "--%s", spec->long_name);
			exercise_refuses(x, line, named);
		}
	}
	/* --help: the table's entries, all of them, and only them */
	ck_assert(!exercise_parse(x, "--help", &status, &seen));
	ck_assert_int_eq(status, EXIT_OK);
	ck_assert_msg(!seen.err[0], "--help printed on stderr: %s", seen.err);
	for (i = 0; i < n; i++) {
		bool shown = help_lists(seen.out, specs[i]->long_name, specs[i]->short_name);

		if (specs[i]->flags & OPTION_HIDDEN)
			ck_assert_msg(!shown, "hidden --%s is listed", specs[i]->long_name);
		else
			ck_assert_msg(shown, "--help does not list --%s:\n%s", specs[i]->long_name,
				      seen.out);
		listed += !(specs[i]->flags & OPTION_HIDDEN);
	}
	ck_assert_msg(help_lists(seen.out, "help", 0) || help_lists(seen.out, "help", 'h'),
		      "--help is not listed");
	for (help_line = seen.out; *help_line; help_line = strchr(help_line, '\n') + 1)
		ck_assert_msg(strchr(help_line, '\n') - help_line <= 79,
			      "a help line longer than 79: %.*s",
			      (int)(strchr(help_line, '\n') - help_line), help_line);
	/* a group's help lists the options of every subcommand */
	if (!x->command->group)
		ck_assert_msg(help_option_lines(seen.out) == listed + 1,
			      "--help lists %u options, the table has %u:\n%s",
			      help_option_lines(seen.out), listed + 1, seen.out);
}

#endif
