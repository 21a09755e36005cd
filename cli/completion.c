// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The records shell completion reads (completion.h), walked from the same
 * tables that drive parsing and --help.
 */
#include <getopt.h>

#include "completion.h"
#include "option_table.h"
#include "option_table_internal.h"

/* How the value of @spec is completed; @words receives its choices, or NULL. */
static const char *value_kind(const struct option_spec *spec, const struct option_choice **words)
{
	enum option_kind kind = spec->kind;

	*words = NULL;
	if (kind == OPTION_CUSTOM)
		kind = spec->complete_as;
	switch (kind) {
	case OPTION_FLAG:
	case OPTION_COUNTER:
	case OPTION_SEPARATOR:
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
		if (!spec->choices || !spec->choices[0].name)
			return "value";
		*words = spec->choices;
		return "choice";
	default:
		return "value";
	}
}

static const char *argument_kind(const struct option_spec *spec)
{
	switch (option_has_arg(spec)) {
	case no_argument:
		return "none";
	case optional_argument:
		return spec->flags & OPTION_NEXT_NUMBER ? "next" : "optional";
	default:
		return "required";
	}
}

static void print_option(FILE *out, const char *key, const char *long_name, int short_name,
			 const struct option_spec *spec)
{
	const struct option_choice *words, *c;
	const char *kind = value_kind(spec, &words);

	fprintf(out, "option\t%s\t--%s\t", key, long_name);
	if (short_name)
		fprintf(out, "-%c", short_name);
	else
		fputc('-', out);
	fprintf(out, "\t%s\t%s\t", argument_kind(spec), kind);
	if (!words)
		fputc('-', out);
	for (c = words; c && c->name; c++)
		fprintf(out, "%s%s", c == words ? "" : " ", c->name);
	fputc('\n', out);
}

static const char *positional_kind(enum option_kind kind)
{
	struct option_spec as_option = { .kind = kind };
	const struct option_choice *words;

	return value_kind(&as_option, &words);
}

static int print_command(FILE *out, const struct option_command *command)
{
	const struct option_positional *p;
	struct option_flat flat = { 0 };
	unsigned int i;
	int ret;

	ret = option_flatten(&flat, command->options, 0);
	if (ret)
		return ret;
	for (i = 0; i < flat.count; i++) {
		const struct option_spec *spec = flat.entries[i].spec;

		if (spec->flags & OPTION_HIDDEN)
			continue;
		print_option(out, command->name, spec->long_name, spec->short_name, spec);
		if (spec->alias)
			print_option(out, command->name, spec->alias, 0, spec);
	}
	for (p = command->positionals; p && p->name; p++) {
		fprintf(out, "positional\t%s\t%s\t%s\t%u\t", command->name, p->name,
			positional_kind(p->kind), p->min);
		if (p->max == OPTION_MANY)
			fprintf(out, "many\n");
		else
			fprintf(out, "%u\n", p->max);
	}
	option_flat_release(&flat);
	return 0;
}

int completion_print_table(FILE *out, const struct command *commands, size_t count)
{
	const struct option_command *const *sub;
	size_t i;
	int ret = 0;

	for (i = 0; i < count && !ret; i++) {
		const struct command *c = &commands[i];

		fprintf(out, "command\t%s\t%s\t%s\n", c->name, c->alias ? c->alias : "-",
			c->group ? "group" : "plain");
		if (c->options)
			ret = print_command(out, c->options);
		for (sub = c->group ? c->group->subcommands : NULL; sub && *sub && !ret; sub++) {
			fprintf(out, "subcommand\t%s\t%s\n", c->name,
				option_last_word((*sub)->name));
			ret = print_command(out, *sub);
		}
	}
	return ret;
}
