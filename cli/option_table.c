// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The option tables' parser; option_help.c prints their help. getopt_long
 * does the word splitting (bundled short options, attached values,
 * "--name=value", abbreviations, "--", permutation) exactly as users of
 * the GNU tools expect; this file builds its tables from ours, checks and
 * stores every value by its kind, and names the option in every error.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "latscope/array.h"
#include "latscope/cpuset.h"
#include "latscope/parse.h"
#include "option_table.h"
#include "option_table_internal.h"
#include "output_path.h"

/* getopt_long's value for an entry of the flat table: FIRST_ENTRY + index */
#define HELP_VALUE 1
#define FIRST_ENTRY 256

static bool flat_has(const struct option_flat *flat, const struct option_spec *spec)
{
	unsigned int i;

	for (i = 0; i < flat->count; i++)
		if (flat->entries[i].spec == spec)
			return true;
	return false;
}

/* Append @table's entries; an entry included twice is kept once. */
int option_flatten(struct option_flat *flat, const struct option_spec *table, size_t base)
{
	const struct option_spec *spec;
	struct option_flat_entry *entries;
	int ret;

	for (spec = table; spec && spec->kind != OPTION_END; spec++) {
		if (spec->kind == OPTION_INCLUDE) {
			ret = option_flatten(flat, spec->include, base + spec->where.offset);
			if (ret)
				return ret;
			continue;
		}
		if (flat_has(flat, spec))
			continue;
		entries = array_grow(flat->entries, &flat->capacity, flat->count + 1,
				     sizeof(*entries));
		if (!entries)
			return -ENOMEM;
		flat->entries = entries;
		flat->entries[flat->count++] = (struct option_flat_entry){ spec, base };
	}
	return 0;
}

void option_flat_release(struct option_flat *flat)
{
	free(flat->entries);
	memset(flat, 0, sizeof(*flat));
}

void *option_field_at(void *options, const struct option_flat_entry *entry,
		      struct option_field field)
{
	return field.size ? (char *)options + entry->base + field.offset : NULL;
}

/* -h means --help unless an option of the command takes that letter (timer's -h). */
bool option_help_has_short(const struct option_flat *flat)
{
	unsigned int i;

	for (i = 0; i < flat->count; i++)
		if (flat->entries[i].spec->short_name == 'h')
			return false;
	return true;
}

/* ---- values ---- */

int option_integer(const char *option, const char *text, long long min, long long max,
		   long long *value)
{
	int ret = parse_integer(text, min, max, value);

	if (ret == -ERANGE)
		return usage_error("%s '%s' is out of range (%lld-%lld)", option, text, min, max);
	if (ret)
		return usage_error("invalid number '%s' for %s", text, option);
	return 0;
}

int option_number(const char *option, const char *text, double min, double max, double *value)
{
	int ret = parse_number(text, min, max, value);

	if (ret == -ERANGE)
		return usage_error("%s '%s' is out of range (%g-%g)", option, text, min, max);
	if (ret)
		return usage_error("invalid number '%s' for %s", text, option);
	return 0;
}

int option_duration(const char *option, const char *text, uint64_t bare_unit_ns, uint64_t min_ns,
		    uint64_t max_ns, uint64_t *ns)
{
	char low[32], high[32];
	int ret = parse_duration(text, bare_unit_ns, min_ns, max_ns, ns);

	if (ret == -ERANGE)
		return usage_error("%s '%s' is out of range (%s to %s)", option, text,
				   format_duration(min_ns, low, sizeof(low)),
				   format_duration(max_ns, high, sizeof(high)));
	if (ret)
		return usage_error("invalid duration '%s' for %s (use ns, us, ms, s, m, h or d)",
				   text, option);
	return 0;
}

int option_cpus(const char *option, const char *text, struct cpuset *set)
{
	if (cpuset_parse_list(text, set) || cpuset_empty(set))
		return usage_error("invalid cpu list '%s' for %s", text, option);
	return 0;
}

/* Integers go into fields of their own width; the range fits the type. */
static void store_integer(void *field, size_t size, long long value)
{
	uint8_t u8 = (uint8_t)value;
	uint16_t u16 = (uint16_t)value;
	uint32_t u32 = (uint32_t)value;

	switch (size) {
	case 1:
		memcpy(field, &u8, 1);
		break;
	case 2:
		memcpy(field, &u16, 2);
		break;
	case 4:
		memcpy(field, &u32, 4);
		break;
	default:
		memcpy(field, &value, sizeof(value));
	}
}

/* "a, b or c" */
void option_print_choices(FILE *out, const struct option_choice *choices, const char *last_join)
{
	const struct option_choice *c;

	for (c = choices; c->name; c++)
		fprintf(out, "%s%s", c == choices ? "" : c[1].name ? ", " : last_join, c->name);
}

static int store_choice(const struct option_spec *spec, const char *spelled, const char *text,
			void *field)
{
	const struct option_choice *c;
	char *names = NULL;
	size_t size = 0;
	FILE *out;
	int ret;

	for (c = spec->choices; c->name; c++) {
		if (!strcmp(c->name, text)) {
			store_integer(field, spec->where.size, c->value);
			return 0;
		}
	}
	out = open_memstream(&names, &size);
	if (out) {
		option_print_choices(out, spec->choices, " or ");
		fclose(out);
	}
	ret = usage_error("invalid %s '%s' for %s (%s)", spec->noun ? spec->noun : "value", text,
			  spelled, names ? names : "?");
	free(names);
	return ret;
}

static int list_append(struct option_list *list, const char *text)
{
	const char **items;

	items = array_grow(list->items, &list->capacity, list->count + 1, sizeof(*items));
	if (!items)
		return runtime_error("out of memory");
	list->items = items;
	list->items[list->count++] = text;
	return 0;
}

/* Check @text as @kind says; paths and text are stored by the caller. */
static int check_path(enum option_kind kind, const char *spelled, const char *text)
{
	switch (kind) {
	case OPTION_INPUT_FILE:
		return input_file_check(spelled, text);
	case OPTION_INPUT_DIR:
		return input_dir_check(spelled, text);
	case OPTION_OUTPUT_FILE:
		return output_file_check(spelled, text);
	case OPTION_OUTPUT_DIR:
		return output_dir_check(spelled, text);
	default:
		return 0;
	}
}

struct parse_state {
	const struct option_command *command;
	struct option_flat flat;
	void *options;
	void *context;
	const struct option_flat_entry *separator; /* the entry of an OPTION_SEPARATOR word */
};

/* what an OPTION_SEPARATOR word becomes before getopt sees the words: a positional */
static char separator_mark[] = "\x1fseparator";

static int store(struct parse_state *st, const struct option_flat_entry *entry, const char *spelled,
		 const char *text)
{
	const struct option_spec *spec = entry->spec;
	void *field = option_field_at(st->options, entry, spec->where);
	struct option_value value = { spec, spelled, text, field, st->options, st->context };
	long long integer;
	double number;
	uint64_t ns;
	struct cpuset set;
	int ret;

	switch (spec->kind) {
	case OPTION_FLAG:
		*(bool *)field = true;
		return 0;
	case OPTION_COUNTER:
		(*(int *)field)++;
		return 0;
	case OPTION_INTEGER:
		ret = option_integer(spelled, text, spec->integer.min, spec->integer.max, &integer);
		if (!ret)
			store_integer(field, spec->where.size, integer);
		return ret;
	case OPTION_NUMBER:
		ret = option_number(spelled, text, spec->number.min, spec->number.max, &number);
		if (!ret)
			*(double *)field = number / (spec->number.scale ? spec->number.scale : 1);
		return ret;
	case OPTION_DURATION:
		if (spec->parse) /* another tool's spelling, within the entry's range */
			return spec->parse(&value);
		ret = option_duration(spelled, text, spec->duration.bare_unit_ns,
				      spec->duration.min_ns, spec->duration.max_ns, &ns);
		if (!ret)
			*(uint64_t *)field = ns;
		return ret;
	case OPTION_CPUS:
		ret = option_cpus(spelled, text, &set);
		if (!ret)
			*(struct cpuset *)field = set;
		return ret;
	case OPTION_CHOICE:
		return store_choice(spec, spelled, text, field);
	case OPTION_CUSTOM:
		ret = spec->parse(&value);
		break;
	default:
		ret = check_path(spec->kind, spelled, text);
		if (!ret && !(spec->flags & OPTION_REPEATABLE))
			*(const char **)field = text;
		break;
	}
	if (!ret && (spec->flags & OPTION_REPEATABLE))
		ret = list_append(field, text);
	return ret;
}

/* An optional value left out: .bare, or a zeroed field, or NULL for a custom parser. */
static int store_bare(struct parse_state *st, const struct option_flat_entry *entry,
		      const char *spelled)
{
	const struct option_spec *spec = entry->spec;
	void *field;

	if (spec->bare || spec->kind == OPTION_CUSTOM)
		return store(st, entry, spelled, spec->bare);
	field = option_field_at(st->options, entry, spec->where);
	if (field)
		memset(field, 0, spec->where.size);
	return 0;
}

/* ---- getopt ---- */

int option_has_arg(const struct option_spec *spec)
{
	if (spec->kind == OPTION_FLAG || spec->kind == OPTION_COUNTER ||
	    spec->kind == OPTION_SEPARATOR)
		return no_argument;
	return spec->flags & OPTION_OPTIONAL ? optional_argument : required_argument;
}

/* getopt_long's tables: every long name and alias, then --help; the short letters. */
static int build_getopt(const struct option_flat *flat, bool help_short, struct option **longs,
			char **shorts)
{
	unsigned int i, n = 0;
	char *s;

	*longs = calloc(2 * flat->count + 2, sizeof(**longs));
	*shorts = calloc(3 * flat->count + 4, 1);
	if (!*longs || !*shorts)
		return -ENOMEM;
	s = *shorts;
	/* ':' first: a missing value is told apart from an unknown option */
	*s++ = ':';
	for (i = 0; i < flat->count; i++) {
		const struct option_spec *spec = flat->entries[i].spec;
		int arg = option_has_arg(spec);

		/* replaced by a mark before getopt sees the words */
		if (spec->kind == OPTION_SEPARATOR)
			continue;
		(*longs)[n++] = (struct option){ spec->long_name, arg, NULL, FIRST_ENTRY + (int)i };
		if (spec->alias)
			(*longs)[n++] =
				(struct option){ spec->alias, arg, NULL, FIRST_ENTRY + (int)i };
		if (!spec->short_name)
			continue;
		*s++ = (char)spec->short_name;
		if (arg != no_argument)
			*s++ = ':';
		if (arg == optional_argument)
			*s++ = ':';
	}
	(*longs)[n] = (struct option){ "help", no_argument, NULL, HELP_VALUE };
	if (help_short)
		*s++ = 'h';
	return 0;
}

static int entry_of_short(const struct option_flat *flat, int letter)
{
	unsigned int i;

	for (i = 0; i < flat->count; i++)
		if (flat->entries[i].spec->short_name == letter)
			return (int)i;
	return -1;
}

/* Whether another subcommand of @command's group has the option --@name. */
static bool sibling_has(const struct option_command *command, const char *name, size_t len)
{
	const struct option_command *const *sub;
	struct option_flat flat = { 0 };
	bool found = false;
	unsigned int i;

	for (sub = command->group ? command->group->subcommands : NULL; sub && *sub && !found;
	     sub++) {
		flat.count = 0;
		if (option_flatten(&flat, (*sub)->options, 0))
			break;
		for (i = 0; i < flat.count && !found; i++)
			found = strlen(flat.entries[i].spec->long_name) == len &&
				!strncmp(flat.entries[i].spec->long_name, name, len);
	}
	option_flat_release(&flat);
	return found;
}

/* The usage error for a word getopt_long refused. */
static int refused_word(const struct option_command *command, const struct option_flat *flat,
			const struct option *longs, int c, const char *word)
{
	const struct option *o;
	unsigned int matches = 0;
	size_t len;

	if (optopt >= FIRST_ENTRY) {
		const char *name = flat->entries[optopt - FIRST_ENTRY].spec->long_name;

		if (c == ':')
			return usage_error("option '--%s' needs a value", name);
		return usage_error("option '--%s' takes no value", name);
	}
	if (optopt == HELP_VALUE)
		return usage_error("option '--help' takes no value");
	if (optopt && c == ':')
		return usage_error("option '-%c' needs a value", optopt);
	if (optopt)
		return usage_error("unknown option '-%c'", optopt);
	if (strncmp(word, "--", 2))
		return usage_error("unknown option '%s'", word);
	len = strcspn(word + 2, "=");
	for (o = longs; o->name; o++)
		matches += !strncmp(o->name, word + 2, len);
	if (matches > 1)
		return usage_error("option '--%.*s' is ambiguous", (int)len, word + 2);
	if (sibling_has(command, word + 2, len))
		return usage_error("option '--%.*s' is not for 'latscope %s'", (int)len, word + 2,
				   command->name);
	return usage_error("unknown option '--%.*s'", (int)len, word + 2);
}

/* ---- positionals ---- */

static unsigned int positional_min_after(const struct option_positional *p)
{
	unsigned int n = 0;

	for (; p->name; p++)
		n += p->min;
	return n;
}

/* Too few words: the first positional they do not reach. */
static const struct option_positional *first_missing(const struct option_positional *p,
						     unsigned int words)
{
	unsigned int needed = 0;

	for (; p && p->name; p++) {
		needed += p->min;
		if (needed > words)
			return p;
	}
	return NULL;
}

/* The separator met among the positional words: where it stood, once. */
static int store_separator(struct parse_state *st, unsigned int before)
{
	const struct option_spec *spec = st->separator->spec;
	bool *given = option_field_at(st->options, st->separator, spec->given);

	if (*given)
		return usage_error("'--%s' given twice", spec->long_name);
	*given = true;
	*(unsigned int *)option_field_at(st->options, st->separator, spec->where) = before;
	return 0;
}

/* The words left, to the positionals in order: each as many as it may take. */
static int store_positionals(struct parse_state *st, int argc, char **argv)
{
	const struct option_positional *p = st->command->positionals;
	unsigned int left = 0, take, i;
	char **word = argv + optind;
	void *field;
	int k, ret;

	/* the separator is no positional: it only says where it stood */
	for (k = optind; k < argc; k++) {
		if (argv[k] == separator_mark) {
			ret = store_separator(st, left);
			if (ret)
				return ret;
			continue;
		}
		argv[optind + (int)left++] = argv[k];
	}
	p = first_missing(p, left);
	if (p)
		return usage_error("missing %s (see 'latscope %s --help')", p->name,
				   st->command->name);
	for (p = st->command->positionals; p && p->name; p++) {
		take = left - positional_min_after(p + 1);
		if (take > p->max)
			take = p->max;
		field = (char *)st->options + p->where.offset;
		for (i = 0; i < take; i++) {
			ret = check_path(p->kind, p->name, word[i]);
			if (!ret && p->max == 1)
				*(const char **)field = word[i];
			else if (!ret)
				ret = list_append(field, word[i]);
			if (ret)
				return ret;
		}
		word += take;
		left -= take;
	}
	if (left)
		return usage_error("unexpected argument '%s'", *word);
	return 0;
}

/*
 * The words as getopt will permute them, with each OPTION_SEPARATOR word
 * before "--" replaced by the mark (getopt keeps the positionals' order,
 * so the mark ends up among them where it stood). The caller's argv is
 * left as it was: the command line is recorded from it.
 */
static char **words_to_parse(struct parse_state *st, int argc, char **argv)
{
	char **words = malloc(((size_t)argc + 1) * sizeof(*words));
	unsigned int i;
	int k;

	if (!words)
		return NULL;
	memcpy(words, argv, (size_t)argc * sizeof(*words));
	words[argc] = NULL;
	for (i = 0; i < st->flat.count; i++)
		if (st->flat.entries[i].spec->kind == OPTION_SEPARATOR)
			st->separator = &st->flat.entries[i];
	for (k = 1; st->separator && k < argc && strcmp(words[k], "--"); k++)
		if (!strncmp(words[k], "--", 2) &&
		    !strcmp(words[k] + 2, st->separator->spec->long_name))
			words[k] = separator_mark;
	return words;
}

/* ---- parsing ---- */

/* cyclictest's "-t 4": the next word is the value when it starts with a digit. */
static const char *next_number(const struct option_spec *spec, int argc, char **argv)
{
	if ((spec->flags & OPTION_NEXT_NUMBER) && optind < argc &&
	    isdigit((unsigned char)argv[optind][0]))
		return argv[optind++];
	return NULL;
}

static int parse_words(struct parse_state *st, int argc, char **given_argv)
{
	bool help_short = option_help_has_short(&st->flat);
	char **argv = words_to_parse(st, argc, given_argv);
	struct option *longs = NULL;
	char *shorts = NULL, spelled[64];
	int c, long_index, ret;

	ret = argv ? build_getopt(&st->flat, help_short, &longs, &shorts) : -ENOMEM;
	if (ret) {
		ret = runtime_error("out of memory");
		goto out;
	}
	/* 0, not 1: glibc starts over, tests and subcommands parse many times */
	optind = 0;
	opterr = 0;
	for (;;) {
		const struct option_flat_entry *entry;
		const char *text;
		int index;

		long_index = -1;
		c = getopt_long(argc, argv, shorts, longs, &long_index);
		if (c == -1)
			break;
		if (c == '?' || c == ':') {
			ret = refused_word(st->command, &st->flat, longs, c,
					   optind > 0 && optind <= argc ? argv[optind - 1] : "?");
			goto out;
		}
		if (c == HELP_VALUE || (c == 'h' && help_short)) {
			option_print_help(stdout, st->command);
			ret = -1;
			goto out;
		}
		index = c >= FIRST_ENTRY ? c - FIRST_ENTRY : entry_of_short(&st->flat, c);
		entry = &st->flat.entries[index];
		if (long_index >= 0)
			snprintf(spelled, sizeof(spelled), "--%s", longs[long_index].name);
		else
			snprintf(spelled, sizeof(spelled), "-%c", c);
		text = optarg;
		if (!text && option_has_arg(entry->spec) == optional_argument)
			text = next_number(entry->spec, argc, argv);
		if (!text && option_has_arg(entry->spec) == optional_argument)
			ret = store_bare(st, entry, spelled);
		else
			ret = store(st, entry, spelled, text);
		if (ret)
			goto out;
		if (entry->spec->given.size)
			*(bool *)option_field_at(st->options, entry, entry->spec->given) = true;
	}
	ret = store_positionals(st, argc, argv);
out:
	free(longs);
	free(shorts);
	free(argv);
	return ret;
}

bool option_parse(const struct option_command *command, int argc, char **argv, void *options,
		  void *context, int *status)
{
	struct parse_state st = { .command = command, .options = options, .context = context };
	int ret;

	memset(options, 0, command->size);
	if (command->init)
		command->init(options);
	if (option_flatten(&st.flat, command->options, 0)) {
		*status = runtime_error("out of memory");
		return false;
	}
	ret = parse_words(&st, argc, argv);
	option_flat_release(&st.flat);
	if (!ret && command->finish)
		ret = command->finish(options, context);
	*status = ret < 0 ? EXIT_OK : ret;
	return ret == 0;
}

/* the entry a long word names ("--dur" or "--duration=5"), as getopt resolves it; NULL: none */
static const struct option_spec *long_word_spec(const struct option_flat *flat, const char *word)
{
	size_t len = strcspn(word, "=");
	const struct option_spec *found = NULL;
	unsigned int i;

	for (i = 0; i < flat->count; i++) {
		const struct option_spec *spec = flat->entries[i].spec;
		const char *names[2] = { spec->long_name, spec->alias };
		unsigned int k;

		for (k = 0; k < 2; k++) {
			if (!names[k] || strncmp(names[k], word, len))
				continue;
			if (strlen(names[k]) == len)
				return spec;
			found = found && found != spec ? NULL : spec;
		}
	}
	return found;
}

static const struct option_spec *short_spec(const struct option_flat *flat, int letter)
{
	unsigned int i;

	for (i = 0; i < flat->count; i++)
		if (flat->entries[i].spec->short_name == letter)
			return flat->entries[i].spec;
	return NULL;
}

bool option_words_give(const struct option_command *command, int argc, char **argv,
		       const char *long_name)
{
	struct option_flat flat = { 0 };
	const struct option_spec *spec;
	bool given = false;
	int k;

	if (option_flatten(&flat, command->options, 0))
		return false;
	for (k = 1; k < argc && !given && strcmp(argv[k], "--"); k++) {
		const char *w = argv[k];

		if (w[0] != '-' || !w[1])
			continue;
		if (w[1] == '-') {
			spec = long_word_spec(&flat, w + 2);
			given = spec && !strcmp(spec->long_name, long_name);
			/* "--name value": the value is the next word */
			if (spec && !strchr(w, '=') && option_has_arg(spec) == required_argument)
				k++;
			continue;
		}
		for (w++; *w; w++) {
			spec = short_spec(&flat, *w);
			if (!spec)
				break;
			if (!strcmp(spec->long_name, long_name)) {
				given = true;
				break;
			}
			if (option_has_arg(spec) == no_argument)
				continue;
			/* the rest of the bundle is the value, or the next word is */
			if (!w[1] && option_has_arg(spec) == required_argument)
				k++;
			break;
		}
	}
	option_flat_release(&flat);
	return given;
}

static void release_table(const struct option_spec *table, char *base)
{
	const struct option_spec *spec;
	struct option_list *list;

	for (spec = table; spec && spec->kind != OPTION_END; spec++) {
		if (spec->kind == OPTION_INCLUDE) {
			release_table(spec->include, base + spec->where.offset);
			continue;
		}
		if (!(spec->flags & OPTION_REPEATABLE))
			continue;
		list = (struct option_list *)(base + spec->where.offset);
		free(list->items);
		memset(list, 0, sizeof(*list));
	}
}

void option_release(const struct option_command *command, void *options)
{
	const struct option_positional *p;
	struct option_list *list;

	if (command->release)
		command->release(options);
	release_table(command->options, options);
	for (p = command->positionals; p && p->name; p++) {
		if (p->max == 1)
			continue;
		list = (struct option_list *)((char *)options + p->where.offset);
		free(list->items);
		memset(list, 0, sizeof(*list));
	}
}

/* ---- subcommands ---- */

const char *option_last_word(const char *name)
{
	const char *space = strrchr(name, ' ');

	return space ? space + 1 : name;
}

static void print_subcommand_names(FILE *out, const struct option_group *group)
{
	const struct option_command *const *sub;

	for (sub = group->subcommands; *sub; sub++)
		fprintf(out, "%s%s",
			sub == group->subcommands ? "" :
			sub[1]			  ? ", " :
						    " or ",
			option_last_word((*sub)->name));
}

const struct option_command *option_subcommand(const struct option_group *group, int argc,
					       char **argv, int *status)
{
	const struct option_command *const *sub;
	char *names = NULL;
	size_t size = 0;
	FILE *out = open_memstream(&names, &size);

	if (out) {
		print_subcommand_names(out, group);
		fclose(out);
	}
	if (argc < 2) {
		*status = usage_error("missing subcommand: %s", names ? names : "?");
		goto out;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		option_print_group_help(stdout, group);
		*status = EXIT_OK;
		goto out;
	}
	for (sub = group->subcommands; *sub; sub++) {
		if (!strcmp(argv[1], option_last_word((*sub)->name))) {
			cli_set_command_name((*sub)->name);
			free(names);
			return *sub;
		}
	}
	*status = usage_error("no subcommand '%s' (%s)", argv[1], names ? names : "?");
out:
	free(names);
	return NULL;
}
