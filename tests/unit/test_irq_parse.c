// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The /proc/interrupts line parser against the one it replaced: every line
 * of every fixture, and of a generated 1024-CPU file, gives the same label,
 * counts, tail and verdict.
 */
#define LATSCOPE_INSIDE_IRQ /* white-box: reaches into lib/irq/ */

#include <ctype.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/irq/irq_internal.h"
#include "unit.h"

/* --- the parser as it was (main before the counts became cells), the reference --- */

struct old_line {
	bool numbered;
	unsigned int number;
	char vector[IRQ_VECTOR_NAME_SIZE];
	unsigned int nr_counts;
	const char *tail;
	const char *error;
};

static const char *old_label(const char *p, struct old_line *parsed)
{
	unsigned long number = 0;
	size_t len;

	while (*p == ' ')
		p++;
	if (!isdigit((unsigned char)*p)) {
		len = strcspn(p, ": ");
		if (!len || len >= IRQ_VECTOR_NAME_SIZE)
			return NULL;
		memcpy(parsed->vector, p, len);
		parsed->vector[len] = '\0';
		p += len;
		return *p == ':' ? p + 1 : NULL;
	}
	parsed->numbered = true;
	while (isdigit((unsigned char)*p))
		if ((number = number * 10 + (unsigned long)(*p++ - '0')) > UINT_MAX)
			return NULL;
	parsed->number = (unsigned int)number;
	return *p == ':' ? p + 1 : NULL;
}

static const char *old_counts(const char *p, uint32_t *row, unsigned int columns,
			      struct old_line *parsed)
{
	unsigned int i;

	for (i = 0; i < columns; i++) {
		uint64_t value = 0, word;

		/* counts are padded to 10 columns: most of the file is blanks */
		for (;;) {
			memcpy(&word, p, sizeof(word));
			if (word != 0x2020202020202020ULL)
				break;
			p += sizeof(word);
		}
		while (*p == ' ')
			p++;
		if ((unsigned int)(*p - '0') > 9)
			break;
		do {
			value = value * 10 + (uint64_t)(*p++ - '0');
			if (value > UINT32_MAX) {
				parsed->error = "count beyond 32 bits";
				return p;
			}
		} while ((unsigned int)(*p - '0') <= 9);
		if (*p && *p != ' ' && *p != '\t') {
			parsed->error = "junk in a count";
			return p;
		}
		row[i] = (uint32_t)value;
	}
	parsed->nr_counts = i;
	return p;
}

static void old_parse_line(char *line, uint32_t *row, unsigned int columns, struct old_line *parsed)
{
	const char *p;
	char *end;

	memset(parsed, 0, sizeof(*parsed));
	p = old_label(line, parsed);
	if (!p) {
		parsed->error = "no 'label:' at the start";
		return;
	}
	p = old_counts(p, row, columns, parsed);
	if (parsed->error)
		return;
	if (parsed->nr_counts < columns) {
		if (parsed->numbered || parsed->nr_counts != 1) {
			parsed->error = "fewer counts than CPUs";
			return;
		}
		memset(row + 1, 0, (columns - 1) * sizeof(*row));
	}
	while (*p == ' ' || *p == '\t')
		p++;
	end = line + strlen(line);
	while (end > p && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
		*--end = '\0';
	parsed->tail = p;
}

/* --- the comparison --- */

/* room for a line and the slack both parsers may read past its end */
#define SLACK 16

static unsigned int lines_compared;

static void compare_line(const char *text, unsigned int columns)
{
	size_t len = strlen(text);
	char *old_copy = calloc(1, len + 1 + SLACK), *new_copy = calloc(1, len + 1 + SLACK);
	uint32_t *old_row = calloc(columns, sizeof(*old_row));
	uint32_t *new_row = calloc(columns, sizeof(*new_row));
	struct irq_counts counts = { 0 };
	struct irq_parsed_line parsed;
	struct old_line want;
	unsigned int i;

	ck_assert(old_copy && new_copy && old_row && new_row);
	memcpy(old_copy, text, len);
	memcpy(new_copy, text, len);
	old_parse_line(old_copy, old_row, columns, &want);
	ck_assert_int_eq(irq_counts_reserve(&counts, columns), 0);
	irq_parse_line(new_copy, &counts, columns, &parsed);
	if (want.error) {
		ck_assert_msg(parsed.error && !strcmp(parsed.error, want.error),
			      "'%.60s': '%s', was '%s'", text, parsed.error ? parsed.error : "fine",
			      want.error);
		ck_assert_uint_eq(counts.nr_cells, 0);
		goto out;
	}
	ck_assert_msg(!parsed.error, "'%.60s': %s", text, parsed.error);
	ck_assert(parsed.numbered == want.numbered);
	if (want.numbered)
		ck_assert_uint_eq(parsed.number, want.number);
	else
		ck_assert_str_eq(parsed.vector, want.vector);
	ck_assert_uint_eq(parsed.nr_counts, want.nr_counts);
	ck_assert_str_eq(parsed.tail, want.tail);
	/* the cells, spread back over the columns, are the row */
	ck_assert_uint_eq(parsed.first_cell, 0);
	ck_assert_uint_eq(counts.nr_cells, parsed.nr_cells);
	for (i = 0; i < parsed.nr_cells; i++) {
		ck_assert_uint_lt(counts.column[i], columns);
		ck_assert_uint_ne(counts.value[i], 0);
		if (i)
			ck_assert_uint_gt(counts.column[i], counts.column[i - 1]);
		new_row[counts.column[i]] = counts.value[i];
	}
	for (i = 0; i < columns; i++)
		ck_assert_msg(new_row[i] == old_row[i], "'%.60s' column %u: %u, was %u", text, i,
			      new_row[i], old_row[i]);
	lines_compared++;
out:
	irq_counts_release(&counts);
	free(old_copy);
	free(new_copy);
	free(old_row);
	free(new_row);
}

/* every line of a file after its header, which says how many columns */
static void compare_file(const char *path)
{
	unsigned int *cpus, columns;
	char *text, *line, *next;
	size_t size = 0;
	FILE *f = fopen(path, "r");
	long long got;

	ck_assert_msg(f != NULL, "%s", path);
	text = malloc(1 << 24);
	ck_assert_ptr_nonnull(text);
	while ((got = (long long)fread(text + size, 1, (1 << 24) - 1 - size, f)) > 0)
		size += (size_t)got;
	fclose(f);
	text[size] = '\0';
	line = text;
	next = strchr(line, '\n');
	ck_assert_ptr_nonnull(next);
	*next = '\0';
	ck_assert_int_eq(irq_parse_header(line, &cpus, &columns), 0);
	free(cpus);
	for (line = next + 1; *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		else
			next = line + strlen(line);
		compare_line(line, columns);
	}
	free(text);
}

START_TEST(fixture_lines_parse_as_before)
{
	static const char *const fixtures[] = { "irq-numa2", "irq-small", "check-rt-box",
						"check-vm", "check-workstation" };
	char path[512];
	unsigned int i;

	lines_compared = 0;
	for (i = 0; i < sizeof(fixtures) / sizeof(fixtures[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s/proc/interrupts", FIXTURE(""), fixtures[i]);
		compare_file(path);
	}
	ck_assert_uint_ge(lines_compared, 80);
}
END_TEST

/* --- a 1024-CPU machine's lines, and broken ones --- */

static uint64_t state = 0x9e3779b97f4a7c15ULL;

static uint32_t random32(void)
{
	state ^= state << 13;
	state ^= state >> 7;
	state ^= state << 17;
	return (uint32_t)state;
}

/* a count as the kernel pads it (" %10u"), or as a hand-made fixture might */
static size_t put_count(char *p, unsigned int column)
{
	uint32_t pick = random32() % 100, value;

	if (pick < 85)
		value = 0;
	else if (pick < 95)
		value = random32() % 100000;
	else if (pick < 98)
		value = 4000000000U + random32() % 294967296U;
	else
		value = random32();
	if (column % 97 == 5)
		return (size_t)sprintf(p, " %u", value); /* not padded */
	if (column == 1023)
		return (size_t)sprintf(p, "  %u\t", value); /* a tab after the last count */
	return (size_t)sprintf(p, " %10u", value);
}

static char *wide_line(const char *label, unsigned int columns, const char *tail)
{
	char *line = malloc(16 * (size_t)columns + 256), *p = line;
	unsigned int i;

	ck_assert_ptr_nonnull(line);
	p += sprintf(p, "%s", label);
	for (i = 0; i < columns; i++)
		p += put_count(p, i);
	sprintf(p, "%s", tail);
	return line;
}

START_TEST(wide_lines_parse_as_before)
{
	static const char *const tails[] = {
		" PCI-MSIX-0000:10:00.0   3-edge      eth0-TxRx-3",
		"   Local timer interrupts",
		"  IR-PCI-MSI 524288-edge      nvme0q1, nvme0q2 \t ",
		"",
		"     GICv3  27 Level     arch_timer",
	};
	static const char *const labels[] = { "1023:", "  32:", " LOC:", "IPI0:", "10000:" };
	unsigned int i, columns = 1024;
	char *line;

	lines_compared = 0;
	for (i = 0; i < 200; i++) {
		line = wide_line(labels[i % 5], columns, tails[i % 5]);
		/* a few broken the ways a damaged copy breaks */
		switch (i % 20) {
		case 3: /* a count of 11 digits */
			memcpy(strchr(line, ':') + 1, " 99999999999", 12);
			break;
		case 4: /* junk in the middle of a count */
			line[strlen(labels[i % 5]) + 11 * 500 + 10] = 'x';
			break;
		case 5: /* cut short */
			line[strlen(labels[i % 5]) + 11 * 700] = '\0';
			break;
		case 6: /* no colon */
			*strchr(line, ':') = ' ';
			break;
		}
		compare_line(line, columns);
		free(line);
	}
	/* x86's one-total rows */
	compare_line(" ERR:          7", columns);
	compare_line(" MIS:          0", columns);
	compare_line("  12:          7", columns);
	compare_line(" ERR:", columns);
	compare_line("4294967296:          0", 1);
	compare_line("4294967295:          0 x", 1);
	compare_line("  A_VERY_LONG_VECTOR_NAME:          0 x", 1);
	ck_assert_uint_ge(lines_compared, 150);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("irq_parse");
	TCase *tc = tcase_create("irq_parse");

	tcase_add_test(tc, fixture_lines_parse_as_before);
	tcase_add_test(tc, wide_lines_parse_as_before);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
