// SPDX-License-Identifier: GPL-2.0-or-later
/* The counts of /proc/interrupts read again and again (cheap sampling), and rates from them. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "irq_internal.h"
#include "latscope/clock.h"
#include "latscope/log.h"

int irq_counts_init(struct irq_counts *counts, const struct irq_table *table)
{
	size_t cells = (size_t)irq_table_rows(table) * table->nr_columns;

	memset(counts, 0, sizeof(*counts));
	counts->values = calloc(cells ? cells : 1, sizeof(uint32_t));
	if (!counts->values)
		return -ENOMEM;
	counts->nr_rows = irq_table_rows(table);
	counts->nr_columns = table->nr_columns;
	return 0;
}

void irq_counts_release(struct irq_counts *counts)
{
	free(counts->values);
	memset(counts, 0, sizeof(*counts));
}

/* The row a line belongs to: the expected next one, or found by bisection. */
static int row_of(const struct irq_table *table, const struct irq_parsed_line *parsed,
		  unsigned int expected)
{
	const struct irq_info *irq;

	if (parsed->numbered) {
		if (expected < table->nr_irqs && table->irqs[expected].number == parsed->number)
			return (int)expected;
		irq = irq_table_find(table, parsed->number);
		return irq ? (int)(irq - table->irqs) : -1;
	}
	if (expected >= table->nr_irqs && expected < irq_table_rows(table) &&
	    !strcmp(table->vectors[expected - table->nr_irqs].name, parsed->vector))
		return (int)expected;
	return irq_table_find_vector(table, parsed->vector);
}

static bool same_columns(const struct irq_table *table, const unsigned int *cpus,
			 unsigned int nr_columns)
{
	return nr_columns == table->nr_columns &&
	       !memcmp(cpus, table->column_cpu, nr_columns * sizeof(*cpus));
}

int irq_counts_read(struct sysroot *root, const struct irq_table *table, struct irq_counts *counts)
{
	unsigned int *cpus = NULL, nr_columns = 0, seen = 0, expected = 0;
	struct irq_line_reader reader;
	struct irq_parsed_line parsed;
	uint32_t *scratch;
	bool *filled;
	char *line;
	int ret, row;

	if (counts->nr_rows != irq_table_rows(table) || counts->nr_columns != table->nr_columns)
		return -EINVAL;
	scratch = malloc((table->nr_columns ? table->nr_columns : 1) * sizeof(*scratch));
	filled = calloc(counts->nr_rows ? counts->nr_rows : 1, sizeof(*filled));
	ret = scratch && filled ? irq_reader_open(&reader, root) : -ENOMEM;
	if (ret) {
		free(scratch);
		free(filled);
		log_error("cannot read %s" IRQ_INTERRUPTS ": %s", irq_root_prefix(root),
			  sysroot_strerror(ret));
		return ret;
	}
	counts->time_ns = clock_ns(CLOCK_MONOTONIC);
	ret = irq_reader_next(&reader, &line);
	if (ret > 0 &&
	    (irq_parse_header(line, &cpus, &nr_columns) || !same_columns(table, cpus, nr_columns)))
		ret = -ESTALE;
	while (ret > 0 && (ret = irq_reader_next(&reader, &line)) > 0) {
		/*
		 * Fast path: the line is the row after the last one; parse in
		 * place, unless that row must keep its zeros (not listed).
		 */
		bool in_place = expected < counts->nr_rows && !filled[expected] &&
				(expected >= table->nr_irqs || table->irqs[expected].listed);
		uint32_t *target =
			in_place ? counts->values + (size_t)expected * nr_columns : scratch;

		irq_parse_line(line, target, nr_columns, &parsed);
		if (parsed.error) {
			/* reported when the table was loaded; not again per sample */
			log_debug(IRQ_INTERRUPTS " line %u skipped: %s", reader.line_number,
				  parsed.error);
			continue;
		}
		row = row_of(table, &parsed, expected);
		/* a new IRQ or vector, or one found in /proc/irq only that now has a line */
		if (row < 0 || ((unsigned int)row < table->nr_irqs && !table->irqs[row].listed)) {
			ret = -ESTALE;
			break;
		}
		if (filled[row])
			continue; /* a repeated line: the first one counts, as at load */
		if (!in_place || (unsigned int)row != expected)
			memcpy(counts->values + (size_t)row * nr_columns, target,
			       nr_columns * sizeof(uint32_t));
		filled[row] = true;
		expected = (unsigned int)row + 1;
		seen++;
	}
	irq_reader_close(&reader);
	free(scratch);
	free(filled);
	free(cpus);
	/* an IRQ went away; the rows of IRQs found in /proc/irq only keep no count */
	if (!ret && seen != counts->nr_rows - table->nr_unlisted)
		ret = -ESTALE;
	if (ret < 0 && ret != -ESTALE)
		log_error("cannot read %s" IRQ_INTERRUPTS ": %s", irq_root_prefix(root),
			  sysroot_strerror(ret));
	return ret < 0 ? ret : 0;
}

uint64_t irq_counts_row_total(const struct irq_counts *counts, unsigned int row)
{
	const uint32_t *values = counts->values + (size_t)row * counts->nr_columns;
	uint64_t total = 0;
	unsigned int i;

	for (i = 0; i < counts->nr_columns; i++)
		total += values[i];
	return total;
}

int irq_counts_delta(const struct irq_counts *before, const struct irq_counts *after,
		     struct irq_counts *delta)
{
	size_t cells, i;

	if (before->nr_rows != after->nr_rows || before->nr_columns != after->nr_columns ||
	    delta->nr_rows != after->nr_rows || delta->nr_columns != after->nr_columns)
		return -EINVAL;
	cells = (size_t)after->nr_rows * after->nr_columns;
	for (i = 0; i < cells; i++)
		delta->values[i] = after->values[i] - before->values[i];
	delta->time_ns = after->time_ns - before->time_ns;
	return 0;
}

void irq_rates(const struct irq_table *table, const struct irq_counts *before,
	       const struct irq_counts *after, double *rates)
{
	double seconds = 0;
	unsigned int i, column;

	if (before && after->time_ns > before->time_ns)
		seconds = (double)(after->time_ns - before->time_ns) / 1e9;
	for (i = 0; i < table->nr_irqs; i++) {
		const uint32_t *now = after->values + (size_t)i * after->nr_columns;
		uint64_t total = 0;

		if (before) {
			const uint32_t *then = before->values + (size_t)i * before->nr_columns;

			for (column = 0; column < after->nr_columns; column++)
				total += (uint32_t)(now[column] - then[column]);
		} else {
			for (column = 0; column < after->nr_columns; column++)
				total += now[column];
		}
		rates[i] = before ? (seconds > 0 ? (double)total / seconds : 0) : (double)total;
	}
}
