// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The option tables' parser and help printer. getopt_long does the word
 * splitting (bundled short options, attached values, "--name=value",
 * abbreviations, "--", permutation) exactly as users of the GNU tools
 * expect; this file builds its tables from ours, checks and stores every
 * value by its kind, and names the option in every error.
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
#include "output_path.h"

/* getopt_long's value for an entry of the flat table: FIRST_ENTRY + index */
#define HELP_VALUE 1
#define FIRST_ENTRY 256

#define HELP_TEXT "show this help"
#define WIDTH 79
/* option words longer than this have their help on the next line */
#define MAX_WORDS_WIDTH 24
/* options whose usage line lists them one by one, not as [OPTIONS] */
#define FEW_OPTIONS 6

/* One option of a table with its includes resolved. */
struct flat_option {
	const struct option_spec *spec;
	size_t base; /* offset of its table's struct in the command's */
};

struct flat_table {
	struct flat_option *entries;
	unsigned int count, capacity;
};

static bool flat_has(const struct flat_table *flat, const struct option_spec *spec)
{
	unsigned int i;

	for (i = 0; i < flat->count; i++)
		if (flat->entries[i].spec == spec)
			return true;
	return false;
}

/*
 * A group's options, once each: subcommands may declare an option of the
 * same name differently (irq restore reads the --journal apply writes).
 */
static void drop_same_names(struct flat_table *flat)
{
	unsigned int i, j, kept = 0;

	for (i = 0; i < flat->count; i++) {
		for (j = 0; j < kept; j++)
			if (!strcmp(flat->entries[j].spec->long_name,
				    flat->entries[i].spec->long_name))
				break;
		if (j == kept)
			flat->entries[kept++] = flat->entries[i];
	}
	flat->count = kept;
}

/* Append @table's entries; an entry included twice is kept once. */
static int flatten(struct flat_table *flat, const struct option_spec *table, size_t base)
{
	const struct option_spec *spec;
	struct flat_option *entries;
	int ret;

	for (spec = table; spec && spec->kind != OPTION_END; spec++) {
		if (spec->kind == OPTION_INCLUDE) {
			ret = flatten(flat, spec->include, base + spec->where.offset);
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
		flat->entries[flat->count++] = (struct flat_option){ spec, base };
	}
	return 0;
}

static void flat_release(struct flat_table *flat)
{
	free(flat->entries);
	memset(flat, 0, sizeof(*flat));
}

static void *field_at(void *options, const struct flat_option *entry, struct option_field field)
{
	return field.size ? (char *)options + entry->base + field.offset : NULL;
}

/* -h means --help unless an option of the command takes that letter (timer's -h). */
static bool help_has_short(const struct flat_table *flat)
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

/* "a, b or c" */
static void print_choices(FILE *out, const struct option_choice *choices, const char *last_join)
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
		print_choices(out, spec->choices, " or ");
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
	struct flat_table flat;
	void *options;
	void *context;
};

static int store(struct parse_state *st, const struct flat_option *entry, const char *spelled,
		 const char *text)
{
	const struct option_spec *spec = entry->spec;
	void *field = field_at(st->options, entry, spec->where);
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
static int store_bare(struct parse_state *st, const struct flat_option *entry, const char *spelled)
{
	const struct option_spec *spec = entry->spec;
	void *field;

	if (spec->bare || spec->kind == OPTION_CUSTOM)
		return store(st, entry, spelled, spec->bare);
	field = field_at(st->options, entry, spec->where);
	if (field)
		memset(field, 0, spec->where.size);
	return 0;
}

/* ---- getopt ---- */

static int has_arg(const struct option_spec *spec)
{
	if (spec->kind == OPTION_FLAG || spec->kind == OPTION_COUNTER)
		return no_argument;
	return spec->flags & OPTION_OPTIONAL ? optional_argument : required_argument;
}

/* getopt_long's tables: every long name and alias, then --help; the short letters. */
static int build_getopt(const struct flat_table *flat, bool help_short, struct option **longs,
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
		int arg = has_arg(spec);

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

static int entry_of_short(const struct flat_table *flat, int letter)
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
	struct flat_table flat = { 0 };
	bool found = false;
	unsigned int i;

	for (sub = command->group ? command->group->subcommands : NULL; sub && *sub && !found;
	     sub++) {
		flat.count = 0;
		if (flatten(&flat, (*sub)->options, 0))
			break;
		for (i = 0; i < flat.count && !found; i++)
			found = strlen(flat.entries[i].spec->long_name) == len &&
				!strncmp(flat.entries[i].spec->long_name, name, len);
	}
	flat_release(&flat);
	return found;
}

/* The usage error for a word getopt_long refused. */
static int refused_word(const struct option_command *command, const struct flat_table *flat,
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

/* The words left, to the positionals in order: each as many as it may take. */
static int store_positionals(struct parse_state *st, int argc, char **argv)
{
	const struct option_positional *p = st->command->positionals;
	unsigned int left = (unsigned int)(argc - optind), take, i;
	char **word = argv + optind;
	void *field;
	int ret;

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

/* ---- parsing ---- */

/* cyclictest's "-t 4": the next word is the value when it starts with a digit. */
static const char *next_number(const struct option_spec *spec, int argc, char **argv)
{
	if ((spec->flags & OPTION_NEXT_NUMBER) && optind < argc &&
	    isdigit((unsigned char)argv[optind][0]))
		return argv[optind++];
	return NULL;
}

static int parse_words(struct parse_state *st, int argc, char **argv)
{
	bool help_short = help_has_short(&st->flat);
	struct option *longs = NULL;
	char *shorts = NULL, spelled[64];
	int c, long_index, ret;

	ret = build_getopt(&st->flat, help_short, &longs, &shorts);
	if (ret) {
		ret = runtime_error("out of memory");
		goto out;
	}
	/* 0, not 1: glibc starts over, tests and subcommands parse many times */
	optind = 0;
	opterr = 0;
	for (;;) {
		const struct flat_option *entry;
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
		if (!text && has_arg(entry->spec) == optional_argument)
			text = next_number(entry->spec, argc, argv);
		if (!text && has_arg(entry->spec) == optional_argument)
			ret = store_bare(st, entry, spelled);
		else
			ret = store(st, entry, spelled, text);
		if (ret)
			goto out;
		if (entry->spec->given.size)
			*(bool *)field_at(st->options, entry, entry->spec->given) = true;
	}
	ret = store_positionals(st, argc, argv);
out:
	free(longs);
	free(shorts);
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
	if (flatten(&st.flat, command->options, 0)) {
		*status = runtime_error("out of memory");
		return false;
	}
	ret = parse_words(&st, argc, argv);
	flat_release(&st.flat);
	if (!ret && command->finish)
		ret = command->finish(options, context);
	*status = ret < 0 ? EXIT_OK : ret;
	return ret == 0;
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

static const char *last_word(const char *name)
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
			last_word((*sub)->name));
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
		if (!strcmp(argv[1], last_word((*sub)->name))) {
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

/* ---- help ---- */

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
	int arg = has_arg(spec);
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
			print_choices(list, spec->choices, " or ");
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
static int words_width(const struct flat_table *flat)
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

static void print_options(FILE *out, const struct flat_table *flat, const void *defaults)
{
	char words[160], help[1024];
	int width = words_width(flat);
	unsigned int i;

	for (i = 0; i < flat->count; i++) {
		const struct flat_option *entry = &flat->entries[i];

		if (entry->spec->flags & OPTION_HIDDEN)
			continue;
		option_words(entry->spec, words, sizeof(words));
		help_text(entry->spec, field_at((void *)defaults, entry, entry->spec->where), help,
			  sizeof(help));
		print_option_line(out, words, help, width);
	}
	print_option_line(out, help_has_short(flat) ? "-h, --help" : "    --help", HELP_TEXT,
			  width);
}

/* usage words are joined by this: "[--root DIR]" never breaks inside */
#define USAGE_SEPARATOR '\x1f'

/* "[--root DIR]" */
static void usage_word(const struct option_spec *spec, char *buf, size_t size)
{
	char value[128];
	int arg = has_arg(spec);

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
			     const struct flat_table *flat, bool every_option)
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
	struct flat_table flat = { 0 };
	void *defaults;

	if (command->group) {
		option_print_group_help(out, command->group);
		return;
	}
	defaults = calloc(1, command->size ? command->size : 1);
	if (!defaults || flatten(&flat, command->options, 0)) {
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
	flat_release(&flat);
	free(defaults);
}

void option_print_group_help(FILE *out, const struct option_group *group)
{
	const struct option_command *const *sub;
	struct flat_table flat = { 0 }, all = { 0 };
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
		if (flatten(&flat, (*sub)->options, 0) || flatten(&all, (*sub)->options, 0))
			goto out;
		/* which options go with which subcommand: every one is named */
		print_usage_line(out, sub == group->subcommands ? "usage: " : "       ", *sub,
				 &flat, true);
	}
	drop_same_names(&all);
	if (group->description)
		fprintf(out, "\n%s\n", group->description);
	fputc('\n', out);
	for (sub = group->subcommands; *sub; sub++)
		print_chunks(out, (*sub)->summary ? (*sub)->summary : "", ' ',
			     fprintf(out, "  %-9s", last_word((*sub)->name)), 11);
	fputc('\n', out);
	/* the subcommands share one struct: the first one's defaults are everybody's */
	if (group->subcommands[0]->init)
		group->subcommands[0]->init(defaults);
	print_options(out, &all, defaults);
	if (group->footer)
		fprintf(out, "\n%s\n", group->footer);
out:
	flat_release(&flat);
	flat_release(&all);
	free(defaults);
}
