// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * --help from the option tables: the usage line, the description, a line
 * per option with its value, its help and what the table knows besides
 * (the default as init() sets it, the bare unit of a duration, the words
 * of a choice, an alias), and the footer.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "latscope/cpuset.h"
#include "latscope/parse.h"
#include "option_table.h"
#include "option_table_internal.h"

#define HELP_TEXT "show this help"
#define WIDTH 79
/* option words longer than this have their help on the next line */
#define MAX_WORDS_WIDTH 24
/* options whose usage line lists them one by one, not as [OPTIONS] */
#define FEW_OPTIONS 6

static long long load_integer(const void *field, size_t size, bool is_signed)
{
	uint8_t u8;
	uint16_t u16;
	uint32_t u32;
	long long value;

	switch (size) {
	case 1:
		memcpy(&u8, field, 1);
		return is_signed ? (long long)(int8_t)u8 : (long long)u8;
	case 2:
		memcpy(&u16, field, 2);
		return is_signed ? (long long)(int16_t)u16 : (long long)u16;
	case 4:
		memcpy(&u32, field, 4);
		return is_signed ? (long long)(int32_t)u32 : (long long)u32;
	default:
		memcpy(&value, field, sizeof(value));
		return value;
	}
}

static const char *value_name(const struct option_spec *spec, char *buf, size_t size)
{
	static const char *const names[] = {
		[OPTION_INTEGER] = "N",	     [OPTION_NUMBER] = "NUM",
		[OPTION_DURATION] = "DUR",   [OPTION_CPUS] = "LIST",
		[OPTION_TEXT] = "TEXT",	     [OPTION_INPUT_FILE] = "FILE",
		[OPTION_INPUT_DIR] = "DIR",  [OPTION_OUTPUT_FILE] = "FILE",
		[OPTION_OUTPUT_DIR] = "DIR", [OPTION_CUSTOM] = "VALUE",
		[OPTION_CHOICE] = "WORD",
	};
	const struct option_choice *c;
	size_t used = 0;

	if (spec->value_name)
		return spec->value_name;
	if (spec->kind != OPTION_CHOICE)
		return names[spec->kind];
	/* cpu|thread|all */
	buf[0] = '\0';
	for (c = spec->choices; c->name && used < size; c++)
		used += (size_t)snprintf(buf + used, size - used, "%s%s",
					 c == spec->choices ? "" : "|", c->name);
	return buf;
}

/* "-c, --cpus LIST", "    --explain[=HOW]" */
static void option_words(const struct option_spec *spec, char *buf, size_t size)
{
	char value[128];
	int arg = option_has_arg(spec);
	int n;

	if (spec->short_name)
		n = snprintf(buf, size, "-%c, --%s", spec->short_name, spec->long_name);
	else
		n = snprintf(buf, size, "    --%s", spec->long_name);
	if (arg == required_argument)
		snprintf(buf + n, size - (size_t)n, " %s", value_name(spec, value, sizeof(value)));
	else if (arg == optional_argument)
		snprintf(buf + n, size - (size_t)n, "[=%s]",
			 value_name(spec, value, sizeof(value)));
}

/* 10s, 5m, 1us: the largest unit the duration is a whole number of */
static void format_duration_short(uint64_t ns, char *buf, size_t size)
{
	static const struct {
		const char *suffix;
		uint64_t ns;
	} units[] = {
		{ "d", NS_PER_DAY }, { "h", NS_PER_HOUR }, { "m", NS_PER_MIN }, { "s", NS_PER_SEC },
		{ "ms", NS_PER_MS }, { "us", NS_PER_US },  { "ns", 1 },
	};
	size_t i;

	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (ns % units[i].ns == 0) {
			snprintf(buf, size, "%llu%s", (unsigned long long)(ns / units[i].ns),
				 units[i].suffix);
			return;
		}
	}
}

static const char *unit_name(uint64_t ns)
{
	switch (ns) {
	case NS_PER_NS:
		return "ns";
	case NS_PER_US:
		return "us";
	case NS_PER_MS:
		return "ms";
	case NS_PER_SEC:
		return "s";
	case NS_PER_MIN:
		return "m";
	case NS_PER_HOUR:
		return "h";
	default:
		return "d";
	}
}

/* The default the field holds after init(), as the user would write it; "" for none. */
static void default_of(const struct option_spec *spec, const void *field, char *buf, size_t size)
{
	const struct option_choice *c;
	long long integer;
	double number;
	uint64_t ns;

	buf[0] = '\0';
	if (spec->default_text) {
		snprintf(buf, size, "%s", spec->default_text);
		return;
	}
	if (!field || (spec->flags & OPTION_REPEATABLE))
		return;
	switch (spec->kind) {
	case OPTION_INTEGER:
		integer = load_integer(field, spec->where.size, spec->integer.min < 0);
		if (integer)
			snprintf(buf, size, "%lld", integer);
		break;
	case OPTION_NUMBER:
		number = *(const double *)field * (spec->number.scale ? spec->number.scale : 1);
		if (number != 0)
			snprintf(buf, size, "%g", number);
		break;
	case OPTION_DURATION:
		ns = *(const uint64_t *)field;
		if (ns)
			format_duration_short(ns, buf, size);
		break;
	case OPTION_CPUS:
		if (!cpuset_empty(field))
			cpuset_format_list(field, buf, size);
		break;
	case OPTION_CHOICE:
		integer = load_integer(field, spec->where.size, true);
		for (c = spec->choices; c->name; c++)
			if (c->value == integer)
				snprintf(buf, size, "%s", c->name);
		break;
	case OPTION_TEXT:
	case OPTION_INPUT_FILE:
	case OPTION_INPUT_DIR:
	case OPTION_OUTPUT_FILE:
	case OPTION_OUTPUT_DIR:
		if (*(const char *const *)field)
			snprintf(buf, size, "%s", *(const char *const *)field);
		break;
	case OPTION_CUSTOM:
		if (spec->format)
			spec->format(field, buf, size);
		break;
	default:
		break;
	}
}

/* The help line: the text, then what the table says besides: default, unit, alias. */
static void help_text(const struct option_spec *spec, const void *field, char *buf, size_t size)
{
	char value[128];
	const char *join = " (";
	int n = snprintf(buf, size, "%s", spec->help ? spec->help : "");

#define ADD(...)                                                       \
	do {                                                           \
		n += snprintf(buf + n, size - (size_t)n, "%s", join);  \
		n += snprintf(buf + n, size - (size_t)n, __VA_ARGS__); \
		join = "; ";                                           \
	} while (0)
	/* a choice with a placeholder (--fail-on LEVEL) spells out its words */
	if (spec->kind == OPTION_CHOICE && spec->value_name) {
		char *names = NULL;
		size_t names_size = 0;
		FILE *list = open_memstream(&names, &names_size);

		if (list) {
			option_print_choices(list, spec->choices, " or ");
			fclose(list);
			ADD("%s", names);
		}
		free(names);
	}
	if (spec->bare)
		ADD("%s when left out", spec->bare);
	default_of(spec, field, value, sizeof(value));
	if (value[0])
		ADD("default: %s", value);
	if (spec->kind == OPTION_DURATION)
		ADD("bare number: %s", unit_name(spec->duration.bare_unit_ns));
	if (spec->flags & OPTION_REPEATABLE)
		ADD("repeatable");
	if (spec->alias)
		ADD("also --%s", spec->alias);
#undef ADD
	if (join[0] == ';')
		snprintf(buf + n, size - (size_t)n, ")");
}

/*
 * Print the chunks of @text (separated by @separator) from column @indent,
 * a space between two, wrapped at WIDTH; the cursor is at @column.
 */
static void print_chunks(FILE *out, const char *text, char separator, int column, int indent)
{
	const char *chunk = text;

	while (*chunk) {
		int len = (int)strcspn(chunk, (char[]){ separator, '\0' });

		if (column > indent && column + 1 + len > WIDTH) {
			fprintf(out, "\n%*s", indent, "");
			column = indent;
		} else if (column > indent) {
			fputc(' ', out);
			column++;
		}
		fprintf(out, "%.*s", len, chunk);
		column += len;
		chunk += len;
		while (*chunk == separator)
			chunk++;
	}
	fputc('\n', out);
}

/* The column of the help texts; longer option words put theirs on the next line. */
static int words_width(const struct option_flat *flat)
{
	char words[160];
	int width = (int)strlen("-h, --help"), len;
	unsigned int i;

	for (i = 0; i < flat->count; i++) {
		if (flat->entries[i].spec->flags & OPTION_HIDDEN)
			continue;
		option_words(flat->entries[i].spec, words, sizeof(words));
		len = (int)strlen(words);
		if (len > width && len <= MAX_WORDS_WIDTH)
			width = len;
	}
	return width;
}

static void print_option_line(FILE *out, const char *words, const char *help, int width)
{
	int column;

	if ((int)strlen(words) > width) {
		fprintf(out, "  %s\n%*s", words, width + 4, "");
		column = width + 4;
	} else {
		column = fprintf(out, "  %-*s  ", width, words);
	}
	print_chunks(out, help, ' ', column, width + 4);
}

static void print_options(FILE *out, const struct option_flat *flat, const void *defaults)
{
	char words[160], help[1024];
	int width = words_width(flat);
	unsigned int i;

	for (i = 0; i < flat->count; i++) {
		const struct option_flat_entry *entry = &flat->entries[i];

		if (entry->spec->flags & OPTION_HIDDEN)
			continue;
		option_words(entry->spec, words, sizeof(words));
		help_text(entry->spec, option_field_at((void *)defaults, entry, entry->spec->where),
			  help, sizeof(help));
		print_option_line(out, words, help, width);
	}
	print_option_line(out, option_help_has_short(flat) ? "-h, --help" : "    --help", HELP_TEXT,
			  width);
}

/* usage words are joined by this: "[--root DIR]" never breaks inside */
#define USAGE_SEPARATOR '\x1f'

/* "[--root DIR]" */
static void usage_word(const struct option_spec *spec, char *buf, size_t size)
{
	char value[128];
	int arg = option_has_arg(spec);

	if (arg == required_argument)
		snprintf(buf, size, "[--%s %s]", spec->long_name,
			 value_name(spec, value, sizeof(value)));
	else if (arg == optional_argument)
		snprintf(buf, size, "[--%s[=%s]]", spec->long_name,
			 value_name(spec, value, sizeof(value)));
	else
		snprintf(buf, size, "[--%s]", spec->long_name);
}

static void positional_word(const struct option_positional *p, char *buf, size_t size)
{
	if (p->min == 0)
		snprintf(buf, size, "[%s%s]", p->name, p->max > 1 ? "..." : "");
	else if (p->max > 1)
		snprintf(buf, size, "%s...", p->name);
	else
		snprintf(buf, size, "%s", p->name);
}

static void print_usage_line(FILE *out, const char *lead, const struct option_command *command,
			     const struct option_flat *flat, bool every_option)
{
	const struct option_positional *p;
	char line[4096], word[160];
	unsigned int i, visible = 0;
	size_t n = 0;

	for (i = 0; i < flat->count; i++)
		visible += !(flat->entries[i].spec->flags & OPTION_HIDDEN);
	line[0] = '\0';
	if (visible > FEW_OPTIONS && !every_option) {
		n += (size_t)snprintf(line + n, sizeof(line) - n, "%c[OPTIONS]", USAGE_SEPARATOR);
	} else {
		for (i = 0; i < flat->count && n < sizeof(line); i++) {
			if (flat->entries[i].spec->flags & OPTION_HIDDEN)
				continue;
			usage_word(flat->entries[i].spec, word, sizeof(word));
			n += (size_t)snprintf(line + n, sizeof(line) - n, "%c%s", USAGE_SEPARATOR,
					      word);
		}
	}
	for (p = command->positionals; p && p->name && n < sizeof(line); p++) {
		positional_word(p, word, sizeof(word));
		n += (size_t)snprintf(line + n, sizeof(line) - n, "%c%s", USAGE_SEPARATOR, word);
	}
	i = (unsigned int)fprintf(out, "%slatscope %s%s", lead, command->name, n ? " " : "");
	print_chunks(out, line, USAGE_SEPARATOR, (int)i, (int)i);
}

void option_print_help(FILE *out, const struct option_command *command)
{
	struct option_flat flat = { 0 };
	void *defaults;

	if (command->group) {
		option_print_group_help(out, command->group);
		return;
	}
	defaults = calloc(1, command->size ? command->size : 1);
	if (!defaults || option_flatten(&flat, command->options, 0)) {
		free(defaults);
		return;
	}
	if (command->init)
		command->init(defaults);
	print_usage_line(out, "usage: ", command, &flat, false);
	if (command->description)
		fprintf(out, "\n%s\n", command->description);
	fputc('\n', out);
	print_options(out, &flat, defaults);
	if (command->footer)
		fprintf(out, "\n%s\n", command->footer);
	option_flat_release(&flat);
	free(defaults);
}

void option_print_group_help(FILE *out, const struct option_group *group)
{
	const struct option_command *const *sub;
	struct option_flat flat = { 0 }, all = { 0 };
	size_t size = 1;
	void *defaults;

	for (sub = group->subcommands; *sub; sub++)
		if ((*sub)->size > size)
			size = (*sub)->size;
	defaults = calloc(1, size);
	if (!defaults)
		return;
	for (sub = group->subcommands; *sub; sub++) {
		flat.count = 0;
		if (option_flatten(&flat, (*sub)->options, 0) ||
		    option_flatten(&all, (*sub)->options, 0))
			goto out;
		/* which options go with which subcommand: every one is named */
		print_usage_line(out, sub == group->subcommands ? "usage: " : "       ", *sub,
				 &flat, true);
	}
	if (group->description)
		fprintf(out, "\n%s\n", group->description);
	fputc('\n', out);
	for (sub = group->subcommands; *sub; sub++)
		print_chunks(out, (*sub)->summary ? (*sub)->summary : "", ' ',
			     fprintf(out, "  %-9s", option_last_word((*sub)->name)), 11);
	fputc('\n', out);
	/* the subcommands share one struct: the first one's defaults are everybody's */
	if (group->subcommands[0]->init)
		group->subcommands[0]->init(defaults);
	print_options(out, &all, defaults);
	if (group->footer)
		fprintf(out, "\n%s\n", group->footer);
out:
	option_flat_release(&flat);
	option_flat_release(&all);
	free(defaults);
}
