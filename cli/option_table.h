/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_CLI_OPTION_TABLE_H
#define LATSCOPE_CLI_OPTION_TABLE_H

/*
 * One table per command: each option is declared once, with its long name,
 * short letter, value kind and range, where its value goes, and its help
 * line. The same table drives the parser (option_parse()), `--help` and
 * `latscope help COMMAND` (option_print_help()), so they cannot disagree,
 * and a unit test can walk it (tests/unit/option_exercise.h).
 *
 * A command declares:
 *
 *	struct report_options {
 *		struct option_list files;	// FILE... (positional)
 *		struct option_list labels;	// --label NAME=FILE, repeatable
 *		const char *html_path;
 *		double confidence;
 *		int verbose;
 *	};
 *	#define REPORT(member) OPTION_FIELD(struct report_options, member)
 *
 *	static void report_defaults(void *options)
 *	{
 *		struct report_options *o = options;
 *
 *		o->confidence = stats_default_confidence();	// the library's one default
 *	}
 *
 *	static const struct option_spec report_option_specs[] = {
 *		{ .long_name = "html", .short_name = 'o', .kind = OPTION_OUTPUT_FILE,
 *		  .where = REPORT(html_path), .help = "write the page to FILE" },
 *		{ .long_name = "confidence", .kind = OPTION_NUMBER,
 *		  .where = REPORT(confidence), .number = { .min = 0.5, .max = 0.999 },
 *		  .help = "level of the confidence intervals" },
 *		{ .long_name = "label", .kind = OPTION_CUSTOM, .flags = OPTION_REPEATABLE,
 *		  .where = REPORT(labels), .value_name = "NAME=FILE", .parse = check_label,
 *		  .help = "name a result file in the page" },
 *		{ .long_name = "verbose", .short_name = 'v', .kind = OPTION_COUNTER,
 *		  .where = REPORT(verbose), .help = "say more (twice: debug)" },
 *		OPTION_TABLE_END,
 *	};
 *	static const struct option_positional report_positionals[] = {
 *		{ .name = "FILE", .kind = OPTION_INPUT_FILE, .min = 1, .max = OPTION_MANY,
 *		  .where = REPORT(files), .help = "result documents to read" },
 *		OPTION_POSITIONALS_END,
 *	};
 *	const struct option_command report_command = {
 *		.name = "report", .description = "...", .options = report_option_specs,
 *		.positionals = report_positionals, .size = sizeof(struct report_options),
 *		.init = report_defaults, .footer = "exit status: 0 ok, ...",
 *	};
 *
 * and runs:
 *
 *	int cmd_report(int argc, char **argv)
 *	{
 *		struct report_options o;
 *		int status;
 *
 *		if (!option_parse(&report_command, argc, argv, &o, NULL, &status))
 *			goto out;	// --help shown (0) or a usage error (129)
 *		...
 *	out:
 *		option_release(&report_command, &o);
 *		return status;
 *	}
 *
 * Adding an option is adding one entry (and its field). Defaults live in
 * the options struct as init() sets them, from the library's one
 * definition; --help prints them from there.
 */

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* What an option's value is, how it is checked and where it is stored. */
enum option_kind {
	OPTION_END, /* ends a table: { 0 } */
	/* bool, set true; takes no value */
	OPTION_FLAG,
	/* int, incremented each time (-v -v); takes no value */
	OPTION_COUNTER,
	/*
	 * A decimal integer in [.integer.min, .integer.max], stored in an
	 * integer field of 1, 2, 4 or 8 bytes (int, unsigned int, uint64_t,
	 * size_t, ...). The range must fit the field's type.
	 */
	OPTION_INTEGER,
	/*
	 * A decimal number with an optional fraction, in [.number.min,
	 * .number.max], stored in a double divided by .number.scale (0 or 1:
	 * as is; 100: a percentage stored as a fraction).
	 */
	OPTION_NUMBER,
	/*
	 * A duration ("500us", "5m", "1.5s") in [.duration.min_ns,
	 * .duration.max_ns], stored as uint64_t ns; a bare number is in units
	 * of .duration.bare_unit_ns (NS_PER_SEC, NS_PER_US, ...). A .parse
	 * reads another tool's spelling instead (cyclictest's -D 2H) and
	 * stores the ns within the entry's range.
	 */
	OPTION_DURATION,
	/* a cpu list ("0-3,8"), not empty, stored in a struct cpuset */
	OPTION_CPUS,
	/*
	 * One of the names in .choices, stored as the name's value in an int,
	 * an enum or a bool field. .noun names the kind of value in errors
	 * ("invalid level 'x' for --fail-on"); default "value".
	 */
	OPTION_CHOICE,
	/* free text (--title), stored as const char * pointing into argv */
	OPTION_TEXT,
	/* a file to read: it must exist, be readable and not be a directory */
	OPTION_INPUT_FILE,
	/* a directory to read (--root): it must exist and be a directory */
	OPTION_INPUT_DIR,
	/*
	 * A file to write (--json): checked by the one rule of
	 * output_path.h before any work; a path that can never be written is
	 * a usage error, nothing is created.
	 */
	OPTION_OUTPUT_FILE,
	/*
	 * A directory to write files into (--trace-dir, --svg): an existing
	 * writable directory, or one whose parent can take it. Nothing is
	 * created while parsing, so a later bad option leaves nothing behind;
	 * the command creates it when it writes (output_dir_create()).
	 */
	OPTION_OUTPUT_DIR,
	/* anything else: .parse checks the text and stores it */
	OPTION_CUSTOM,
	/*
	 * A word that splits the positionals in two (compare's --vs): not an
	 * option to getopt but a mark among the positional words, wherever
	 * it stands before "--". .where (an unsigned int) receives how many
	 * positional words came before it and .given (required) is set;
	 * given twice is a usage error. Takes no value.
	 */
	OPTION_SEPARATOR,
	/*
	 * Not an option: the entries of the table .include, whose fields
	 * are at .where.offset in this table's struct (0 when it is the same
	 * struct). Lets subcommands and commands share entries.
	 */
	OPTION_INCLUDE,
};

/* Entry flags. */
enum option_flags {
	/*
	 * The value may be left out: "--explain" or "--explain=counters",
	 * "-t" or "-t4" (never "--explain counters": that word is an
	 * argument). Left out, the field gets .bare parsed as if given, or is
	 * zeroed when .bare is NULL; a custom parser gets text NULL.
	 */
	OPTION_OPTIONAL = 1U << 0,
	/*
	 * With OPTION_OPTIONAL: the next word is the value when it starts
	 * with a digit, as cyclictest takes "-t 4" and "-a 3-5".
	 */
	OPTION_NEXT_NUMBER = 1U << 1,
	/*
	 * May be given many times (--label A=x --label B=y): the field is a
	 * struct option_list and every value, checked by the kind (a custom
	 * parser only checks), is appended to it. Without this flag the last
	 * value given wins.
	 */
	OPTION_REPEATABLE = 1U << 2,
	/*
	 * Not listed by --help: for the spellings of other tools latscope
	 * knows only to refuse by name (cyclictest's --smi).
	 */
	OPTION_HIDDEN = 1U << 3,
};

/* Where a value goes in the command's options struct. */
struct option_field {
	size_t offset;
	size_t size; /* 0: nowhere */
};

/* OPTION_FIELD(struct noise_options, params.cpus) */
#define OPTION_FIELD(type, member)                                  \
	{                                                           \
		offsetof(type, member), sizeof(((type *)0)->member) \
	}

/* The values of a repeatable option or a positional that takes many words. */
struct option_list {
	const char **items; /* point into argv */
	size_t count;
	unsigned int capacity;
};

/* One name of an OPTION_CHOICE and the value stored for it; { NULL } ends. */
struct option_choice {
	const char *name;
	long long value;
};

struct option_spec;

/* What a custom parser (OPTION_CUSTOM) gets for one occurrence. */
struct option_value {
	const struct option_spec *spec;
	const char *spelled; /* the option as written: "-p", "--priority" */
	const char *text; /* the value; NULL when an optional value was left out */
	void *field; /* the entry's .where in the options struct, NULL if none */
	void *options; /* the whole options struct */
	void *context; /* what the caller passed to option_parse() */
};

/*
 * Check @value->text and store it at @value->field. Returns 0, or an exit
 * status after printing one line naming the option and the value (return
 * usage_error(...), which is EXIT_USAGE).
 */
typedef int (*option_parser)(const struct option_value *value);

/* One option. Designated initializers; unused members stay zero. */
struct option_spec {
	const char *long_name; /* "cpus" */
	int short_name; /* 'c', or 0 for none */
	enum option_kind kind;
	unsigned int flags; /* enum option_flags */
	struct option_field where; /* the value */
	struct option_field given; /* a bool set true when given (optional) */
	const char *value_name; /* "LIST" in --help; a default per kind */
	const char *help; /* one line, lower case, no period */
	/*
	 * The default when the field cannot say it ("isolated cpus, else all
	 * online"); NULL: --help prints the field's value after init() when
	 * it is not zero; "": no default is printed.
	 */
	const char *default_text;
	const char *alias; /* a second long name, e.g. "no-dma-latency" */
	const char *bare; /* OPTION_OPTIONAL: what a left-out value means */
	struct {
		long long min, max;
	} integer;
	struct {
		double min, max, scale;
	} number;
	struct {
		uint64_t bare_unit_ns, min_ns, max_ns;
	} duration;
	const struct option_choice *choices;
	const char *noun;
	option_parser parse; /* OPTION_CUSTOM; optional for OPTION_DURATION */
	/*
	 * OPTION_CUSTOM: write the field's value into @buf as the user would
	 * give it, for the default --help prints; NULL: no default printed
	 * (unless .default_text says one).
	 */
	void (*format)(const void *field, char *buf, size_t size);
	/*
	 * OPTION_CUSTOM: what shell completion offers for the value, as if
	 * the entry were of this kind: OPTION_CPUS (timer's --affinity),
	 * OPTION_INPUT_FILE, OPTION_OUTPUT_DIR, ..., or OPTION_CHOICE with
	 * the words in .choices (offered only; .parse still decides what is
	 * valid). 0 (OPTION_END): nothing is offered.
	 */
	enum option_kind complete_as;
	const struct option_spec *include; /* OPTION_INCLUDE */
};

#define OPTION_TABLE_END           \
	{                          \
		.kind = OPTION_END \
	}
/* The entries of another table whose fields sit in this struct at @field. */
#define OPTION_INCLUDE_AT(table, field)                                    \
	{                                                                  \
		.kind = OPTION_INCLUDE, .include = (table), .where = field \
	}
/* The entries of another table over the same struct. */
#define OPTION_INCLUDE_TABLE(table)                        \
	{                                                  \
		.kind = OPTION_INCLUDE, .include = (table) \
	}

/* No upper limit on the words a positional takes. */
#define OPTION_MANY UINT_MAX

/*
 * A positional argument: the words left when the options are taken, given
 * to the positionals in order, each taking between .min and .max words.
 * Its kind is OPTION_TEXT, OPTION_INPUT_FILE, OPTION_INPUT_DIR,
 * OPTION_OUTPUT_FILE or OPTION_OUTPUT_DIR, checked as for an option. The
 * field is a const char * when .max is 1, else a struct option_list.
 * The usage line shows "NAME" (1), "[NAME]" (0-1), "NAME..." (1 or more),
 * "[NAME...]" (any); `compare A B [MORE...]` is three positionals.
 */
struct option_positional {
	const char *name; /* "FILE"; NULL ends the list */
	enum option_kind kind;
	unsigned int min, max;
	struct option_field where;
	const char *help;
};

#define OPTION_POSITIONALS_END \
	{                      \
		.name = NULL   \
	}

/* A command (or a subcommand) and its table. */
struct option_command {
	const char *name; /* "noise"; "irq plan" for a subcommand */
	const char *summary; /* one line; a group lists its subcommands with it */
	const char *description; /* the paragraph after the usage line */
	const struct option_spec *options;
	const struct option_positional *positionals; /* NULL: none */
	size_t size; /* sizeof the options struct */
	/* the defaults, from the library's definitions; NULL: all zero */
	void (*init)(void *options);
	/*
	 * Rules between options and values derived from several, after every
	 * word is parsed. Returns 0, or an exit status after printing.
	 */
	int (*finish)(void *options, void *context);
	/* free what init() or finish() allocated; option_release() calls it */
	void (*release)(void *options);
	const char *footer; /* after the options: units, exit status, man page */
	const struct option_group *group; /* a subcommand's: --help shows the group */
};

/*
 * A command made of subcommands, each with its own table (irq). Options
 * several subcommands take are one entry, in a table they all include:
 * the group's help lists every entry once.
 */
struct option_group {
	const char *name; /* "irq" */
	const char *description;
	const struct option_command *const *subcommands; /* NULL ends */
	const char *footer;
};

/**
 * option_parse - parse a command's words against its table
 * @command: the command and its table
 * @argc: number of words, the command's name first
 * @argv: the words
 * @options: the command's options struct: zeroed, given init(), then
 *	     filled; release with option_release() whatever the outcome
 * @context: handed to custom parsers and finish() (the machine's CPUs, ...)
 * @status: receives the exit status when false is returned
 *
 * Every value is checked as its kind says before anything is stored; a
 * bad word prints one line naming the option and the value. --help (and
 * -h when no option takes that letter) prints the generated help on
 * stdout.
 *
 * Returns true when the command should run; false when it must return
 * *@status now: EXIT_OK after --help, EXIT_USAGE after a usage error,
 * EXIT_ERROR when out of memory.
 */
bool option_parse(const struct option_command *command, int argc, char **argv, void *options,
		  void *context, int *status);

/*
 * Free what option_parse() filled (the lists) and what the command's
 * release() frees; safe to repeat, and on a zeroed struct.
 */
void option_release(const struct option_command *command, void *options);

/**
 * option_words_give - whether words a parse of @command accepts give one
 * of its options
 * @command: the command and its table
 * @argc: number of words, the command's name first
 * @argv: the words (already accepted by option_parse(): no unknown option)
 * @long_name: the option's long name
 *
 * True when a word before "--" gives it: its long name or alias, whole or
 * abbreviated as getopt takes it, with or without "=value", or its short
 * letter alone or in a bundle ("-qD5"). Values are told from options as
 * the parser tells them. For a command that runs another's words (ab runs
 * timer's and noise's) and must keep some options to itself.
 */
bool option_words_give(const struct option_command *command, int argc, char **argv,
		       const char *long_name);

/**
 * option_print_help - the help of a command, generated from its table
 * @out: where to print
 * @command: the command; a subcommand prints its group's help
 *
 * The usage line (every option when there are few, else [OPTIONS], then
 * the positionals), the description, one line per option with its value,
 * help and default, and the footer.
 */
void option_print_help(FILE *out, const struct option_command *command);

/**
 * option_print_group_help - the help of a command made of subcommands: a
 * usage line per subcommand, the description, the subcommands with their
 * summaries, every option once, the footer
 */
void option_print_group_help(FILE *out, const struct option_group *group);

/**
 * option_subcommand - choose a subcommand from argv[1]
 * @group: the command's subcommands
 * @argc: number of words, the command's name first
 * @argv: the words
 * @status: receives the exit status when NULL is returned
 *
 * Sets the name errors are printed with ("latscope irq plan: ...").
 * Returns the subcommand, whose own words start at argv + 1; or NULL with
 * *@status EXIT_OK after --help, -h or "help", EXIT_USAGE after a missing
 * or unknown subcommand.
 */
const struct option_command *option_subcommand(const struct option_group *group, int argc,
					       char **argv, int *status);

/*
 * Building blocks for custom parsers, with the messages of the built-in
 * kinds. Each returns 0, or EXIT_USAGE after printing one line naming
 * @option and @text.
 */
int option_integer(const char *option, const char *text, long long min, long long max,
		   long long *value);
int option_number(const char *option, const char *text, double min, double max, double *value);
int option_duration(const char *option, const char *text, uint64_t bare_unit_ns, uint64_t min_ns,
		    uint64_t max_ns, uint64_t *ns);
struct cpuset;
int option_cpus(const char *option, const char *text, struct cpuset *set);

#endif
