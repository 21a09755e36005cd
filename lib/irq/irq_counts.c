// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The counts of /proc/interrupts read again and again (cheap sampling),
 * kept as the cells that are not zero, and rates from them.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "irq_internal.h"
#include "latscope/clock.h"
#include "latscope/log.h"

_Static_assert(CPUSET_MAX_CPUS <= UINT16_MAX, "a column and a row's size fit 16 bits");

static int alloc_rows(struct irq_counts *counts, unsigned int nr_rows, unsigned int nr_columns)
{
	memset(counts, 0, sizeof(*counts));
	counts->first = calloc(nr_rows ? nr_rows : 1, sizeof(*counts->first));
	counts->size = calloc(nr_rows ? nr_rows : 1, sizeof(*counts->size));
	if (!counts->first || !counts->size) {
		irq_counts_release(counts);
		return -ENOMEM;
	}
	counts->nr_rows = nr_rows;
	counts->nr_columns = nr_columns;
	return 0;
}

int irq_counts_init(struct irq_counts *counts, const struct irq_table *table)
{
	return alloc_rows(counts, irq_table_rows(table), table->nr_columns);
}

void irq_counts_release(struct irq_counts *counts)
{
	free(counts->first);
	free(counts->size);
	free(counts->column);
	free(counts->value);
	memset(counts, 0, sizeof(*counts));
}

int irq_counts_reserve(struct irq_counts *counts, size_t more)
{
	size_t cap = counts->cap_cells ? counts->cap_cells : 4096;
	uint16_t *column;
	uint32_t *value;

	if (counts->nr_cells + more <= counts->cap_cells)
		return 0;
	while (cap < counts->nr_cells + more) {
		if (cap > SIZE_MAX / 2 / sizeof(*value))
			return -ENOMEM;
		cap *= 2;
	}
	column = realloc(counts->column, cap * sizeof(*column));
	if (!column)
		return -ENOMEM;
	counts->column = column;
	value = realloc(counts->value, cap * sizeof(*value));
	if (!value)
		return -ENOMEM;
	counts->value = value;
	counts->cap_cells = cap;
	return 0;
}

int irq_counts_copy(struct irq_counts *dst, const struct irq_counts *src)
{
	irq_counts_release(dst);
	if (alloc_rows(dst, src->nr_rows, src->nr_columns) ||
	    irq_counts_reserve(dst, src->nr_cells)) {
		irq_counts_release(dst);
		return -ENOMEM;
	}
	memcpy(dst->first, src->first, src->nr_rows * sizeof(*src->first));
	memcpy(dst->size, src->size, src->nr_rows * sizeof(*src->size));
	memcpy(dst->column, src->column, src->nr_cells * sizeof(*src->column));
	memcpy(dst->value, src->value, src->nr_cells * sizeof(*src->value));
	dst->nr_cells = src->nr_cells;
	dst->time_ns = src->time_ns;
	return 0;
}

uint32_t irq_count(const struct irq_counts *counts, unsigned int row, unsigned int column)
{
	const uint16_t *columns;
	const uint32_t *values;
	unsigned int low = 0, high = irq_counts_row(counts, row, &columns, &values);

	while (low < high) {
		unsigned int mid = (low + high) / 2;

		if (columns[mid] == column)
			return values[mid];
		if (columns[mid] < column)
			low = mid + 1;
		else
			high = mid;
	}
	return 0;
}

uint64_t irq_counts_row_total(const struct irq_counts *counts, unsigned int row)
{
	const uint16_t *columns;
	const uint32_t *values;
	unsigned int n = irq_counts_row(counts, row, &columns, &values), i;
	uint64_t total = 0;

	for (i = 0; i < n; i++)
		total += values[i];
	return total;
}

/* Two rows' cells walked in step, column by column. */
struct row_merge {
	const uint16_t *after_columns, *before_columns;
	const uint32_t *after_values, *before_values;
	unsigned int after_size, before_size, a, b;
};

static void merge_start(struct row_merge *m, const struct irq_counts *after, unsigned int row,
			const struct irq_counts *before, unsigned int before_row)
{
	m->after_size = irq_counts_row(after, row, &m->after_columns, &m->after_values);
	m->before_size = irq_counts_row(before, before_row, &m->before_columns, &m->before_values);
	m->a = m->b = 0;
}

/* the next column either row has, with after - before modulo 2^32 (a missing cell is 0) */
static inline bool merge_next(struct row_merge *m, unsigned int *column, uint32_t *change)
{
	bool in_after = m->a < m->after_size, in_before = m->b < m->before_size;

	if (in_after && (!in_before || m->after_columns[m->a] < m->before_columns[m->b])) {
		*column = m->after_columns[m->a];
		*change = m->after_values[m->a++];
	} else if (in_before && (!in_after || m->before_columns[m->b] < m->after_columns[m->a])) {
		*column = m->before_columns[m->b];
		*change = 0U - m->before_values[m->b++];
	} else if (in_after) {
		*column = m->after_columns[m->a];
		*change = m->after_values[m->a++] - m->before_values[m->b++];
	} else {
		return false;
	}
	return true;
}

uint64_t irq_counts_row_change(const struct irq_counts *after, unsigned int row,
			       const struct irq_counts *before, unsigned int before_row)
{
	struct row_merge m;
	unsigned int column;
	uint32_t change;
	uint64_t total = 0;

	merge_start(&m, after, row, before, before_row);
	while (merge_next(&m, &column, &change))
		total += change;
	return total;
}

int irq_counts_delta(const struct irq_counts *before, const struct irq_counts *after,
		     struct irq_counts *delta)
{
	struct row_merge m;
	unsigned int row, column;
	uint32_t change;

	if (before->nr_rows != after->nr_rows || before->nr_columns != after->nr_columns ||
	    delta->nr_rows != after->nr_rows || delta->nr_columns != after->nr_columns)
		return -EINVAL;
	delta->nr_cells = 0;
	/* a delta has no more cells than both reads together */
	if (irq_counts_reserve(delta, before->nr_cells + after->nr_cells))
		return -ENOMEM;
	for (row = 0; row < after->nr_rows; row++) {
		size_t first = delta->nr_cells;

		merge_start(&m, after, row, before, row);
		while (merge_next(&m, &column, &change)) {
			if (!change)
				continue;
			delta->column[delta->nr_cells] = (uint16_t)column;
			delta->value[delta->nr_cells++] = change;
		}
		delta->first[row] = (uint32_t)first;
		delta->size[row] = (uint16_t)(delta->nr_cells - first);
	}
	delta->time_ns = after->time_ns - before->time_ns;
	return 0;
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
	bool *filled;
	char *line;
	int ret, row;

	if (counts->nr_rows != irq_table_rows(table) || counts->nr_columns != table->nr_columns)
		return -EINVAL;
	filled = calloc(counts->nr_rows ? counts->nr_rows : 1, sizeof(*filled));
	ret = filled ? irq_reader_open(&reader, root) : -ENOMEM;
	if (ret) {
		free(filled);
		log_error("cannot read %s" IRQ_INTERRUPTS ": %s", irq_root_prefix(root),
			  sysroot_strerror(ret));
		return ret;
	}
	/* a row no line fills has no count */
	memset(counts->size, 0, counts->nr_rows * sizeof(*counts->size));
	counts->nr_cells = 0;
	counts->time_ns = clock_ns(CLOCK_MONOTONIC);
	ret = irq_reader_next(&reader, &line);
	if (ret > 0 &&
	    (irq_parse_header(line, &cpus, &nr_columns) || !same_columns(table, cpus, nr_columns)))
		ret = -ESTALE;
	while (ret > 0 && (ret = irq_reader_next(&reader, &line)) > 0) {
		if (irq_counts_reserve(counts, nr_columns)) {
			ret = -ENOMEM;
			break;
		}
		irq_parse_line(line, counts, nr_columns, &parsed);
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
		if (filled[row]) {
			/* a repeated line: the first one counts, as at load */
			counts->nr_cells = parsed.first_cell;
			continue;
		}
		counts->first[row] = (uint32_t)parsed.first_cell;
		counts->size[row] = (uint16_t)parsed.nr_cells;
		filled[row] = true;
		expected = (unsigned int)row + 1;
		seen++;
	}
	irq_reader_close(&reader);
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

void irq_rates(const struct irq_table *table, const struct irq_counts *before,
	       const struct irq_counts *after, double *rates)
{
	double seconds = 0;
	unsigned int i;

	if (before && after->time_ns > before->time_ns)
		seconds = (double)(after->time_ns - before->time_ns) / 1e9;
	for (i = 0; i < table->nr_irqs; i++) {
		if (!before)
			rates[i] = (double)irq_counts_row_total(after, i);
		else if (seconds > 0)
			rates[i] = (double)irq_counts_row_change(after, i, before, i) / seconds;
		else
			rates[i] = 0;
	}
}
