// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The interrupt table: /proc/interrupts parsed once into rows of IRQs and
 * vectors, sorted, with each IRQ's files and device (irq_files.c,
 * irq_device.c).
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "irq_internal.h"
#include "latscope/array.h"
#include "latscope/clock.h"
#include "latscope/log.h"

/* Growing arrays of rows while the file is parsed. */
struct row_store {
	unsigned int nr, cap, columns;
	uint32_t *counts;
};

static uint32_t *row_store_next(struct row_store *store)
{
	/* an item is a row of counts */
	uint32_t *grown = array_grow(store->counts, &store->cap, store->nr + 1,
				     store->columns * sizeof(uint32_t));

	if (!grown)
		return NULL;
	store->counts = grown;
	return store->counts + (size_t)store->nr * store->columns;
}

struct load_state {
	struct irq_table *table;
	struct row_store irq_rows, vector_rows;
	unsigned int irq_cap, tails_cap, vector_cap;
	char **tails; /* per IRQ, for the names when sysfs lacks them */
	bool sorted;
};

static int add_irq(struct load_state *state, const struct irq_parsed_line *parsed)
{
	struct irq_table *table = state->table;
	struct irq_info *irq, *irqs;
	char **tails;

	irqs = array_grow(table->irqs, &state->irq_cap, table->nr_irqs + 1, sizeof(*irqs));
	if (!irqs)
		return -ENOMEM;
	table->irqs = irqs;
	tails = array_grow(state->tails, &state->tails_cap, table->nr_irqs + 1, sizeof(*tails));
	if (!tails)
		return -ENOMEM;
	state->tails = tails;
	if (table->nr_irqs && parsed->number <= table->irqs[table->nr_irqs - 1].number)
		state->sorted = false;
	irq = &table->irqs[table->nr_irqs];
	memset(irq, 0, sizeof(*irq));
	irq->number = parsed->number;
	irq->node = -1;
	irq->listed = true;
	state->tails[table->nr_irqs] = strdup(parsed->tail);
	if (!state->tails[table->nr_irqs])
		return -ENOMEM;
	table->nr_irqs++;
	state->irq_rows.nr++;
	return 0;
}

static int add_vector(struct load_state *state, const struct irq_parsed_line *parsed)
{
	struct irq_table *table = state->table;
	struct irq_vector *vector, *vectors;

	vectors = array_grow(table->vectors, &state->vector_cap, table->nr_vectors + 1,
			     sizeof(*vectors));
	if (!vectors)
		return -ENOMEM;
	table->vectors = vectors;
	vector = &table->vectors[table->nr_vectors];
	memcpy(vector->name, parsed->vector, sizeof(vector->name));
	vector->description = strdup(parsed->tail);
	if (!vector->description)
		return -ENOMEM;
	vector->per_cpu = parsed->nr_counts == table->nr_columns;
	table->nr_vectors++;
	state->vector_rows.nr++;
	return 0;
}

/*
 * A file of known size (a fixture; procfs says 0) tells how many rows to
 * expect: ~11 bytes per count. Growing by doubling instead would copy and
 * touch up to twice the final 40 MB of a 1024-CPU machine.
 */
static void presize_rows(struct irq_line_reader *reader, struct load_state *state)
{
	size_t per_row = (size_t)state->irq_rows.columns * 11 + 16;
	struct stat st;
	uint32_t *counts;
	size_t rows;

	if (fstat(reader->fd, &st) || st.st_size <= 0)
		return;
	rows = (size_t)st.st_size / per_row + 64;
	if (rows > UINT_MAX / 2)
		return;
	counts = malloc(rows * state->irq_rows.columns * sizeof(uint32_t));
	if (!counts)
		return;
	state->irq_rows.counts = counts;
	state->irq_rows.cap = (unsigned int)rows;
}

static bool starts_numbered(const char *line)
{
	while (*line == ' ')
		line++;
	return isdigit((unsigned char)*line);
}

static int parse_interrupts(struct sysroot *root, struct load_state *state)
{
	struct irq_table *table = state->table;
	struct irq_line_reader reader;
	struct irq_parsed_line parsed;
	char *line;
	int ret;

	ret = irq_reader_open(&reader, root);
	if (ret) {
		log_error("cannot read %s" IRQ_INTERRUPTS ": %s", irq_root_prefix(root),
			  sysroot_strerror(ret));
		return ret;
	}
	table->counts.time_ns = clock_ns(CLOCK_MONOTONIC);
	ret = irq_reader_next(&reader, &line);
	if (ret <= 0 || irq_parse_header(line, &table->column_cpu, &table->nr_columns)) {
		if (ret >= 0)
			log_error("%s" IRQ_INTERRUPTS ": no 'CPU0 CPU1 ...' header on line 1",
				  irq_root_prefix(root));
		else
			log_error("cannot read %s" IRQ_INTERRUPTS ": %s", irq_root_prefix(root),
				  sysroot_strerror(ret));
		irq_reader_close(&reader);
		return ret < 0 ? ret : -EINVAL;
	}
	state->irq_rows.columns = state->vector_rows.columns = table->nr_columns;
	presize_rows(&reader, state);
	while ((ret = irq_reader_next(&reader, &line)) > 0) {
		struct row_store *store =
			starts_numbered(line) ? &state->irq_rows : &state->vector_rows;
		/* parsed into the next free row; a skipped line leaves it free */
		uint32_t *row = row_store_next(store);

		if (!row) {
			ret = -ENOMEM;
			break;
		}
		irq_parse_line(line, row, table->nr_columns, &parsed);
		if (parsed.error) {
			table->skipped_lines++;
			log_warning("%s" IRQ_INTERRUPTS " line %u skipped: %s: '%.40s'",
				    irq_root_prefix(root), reader.line_number, parsed.error, line);
			continue;
		}
		ret = parsed.numbered ? add_irq(state, &parsed) : add_vector(state, &parsed);
		if (ret)
			break;
	}
	irq_reader_close(&reader);
	if (ret < 0)
		log_error("cannot read %s" IRQ_INTERRUPTS ": %s", irq_root_prefix(root),
			  sysroot_strerror(ret));
	return ret < 0 ? ret : 0;
}

struct sort_key {
	unsigned int number;
	unsigned int row;
};

static int compare_keys(const void *a, const void *b)
{
	const struct sort_key *x = a, *y = b;

	if (x->number != y->number)
		return x->number < y->number ? -1 : 1;
	return x->row < y->row ? -1 : x->row > y->row;
}

/*
 * The kernel prints IRQs in ascending order; a file that does not (a
 * hand-made fixture) is sorted here, and a repeated number keeps its first
 * line only, so that rows can be found by bisection.
 */
static int sort_irqs(struct sysroot *root, struct load_state *state)
{
	struct irq_table *table = state->table;
	unsigned int columns = table->nr_columns, n = table->nr_irqs, kept = 0, i;
	struct sort_key *keys = malloc((n ? n : 1) * sizeof(*keys));
	uint32_t *counts = malloc(((size_t)n ? n : 1) * columns * sizeof(uint32_t));
	struct irq_info *irqs = malloc((n ? n : 1) * sizeof(*irqs));
	char **tails = malloc((n ? n : 1) * sizeof(*tails));

	if (!keys || !counts || !irqs || !tails) {
		free(keys);
		free(counts);
		free(irqs);
		free(tails);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++)
		keys[i] = (struct sort_key){ table->irqs[i].number, i };
	qsort(keys, n, sizeof(*keys), compare_keys);
	for (i = 0; i < n; i++) {
		unsigned int row = keys[i].row;

		if (kept && irqs[kept - 1].number == keys[i].number) {
			log_warning("%s" IRQ_INTERRUPTS
				    ": irq %u listed twice; the first line is used",
				    irq_root_prefix(root), keys[i].number);
			free(state->tails[row]);
			table->skipped_lines++;
			continue;
		}
		irqs[kept] = table->irqs[row];
		tails[kept] = state->tails[row];
		memcpy(counts + (size_t)kept * columns,
		       state->irq_rows.counts + (size_t)row * columns, columns * sizeof(uint32_t));
		kept++;
	}
	free(keys);
	free(table->irqs);
	free(state->tails);
	free(state->irq_rows.counts);
	table->irqs = irqs;
	state->tails = tails;
	state->irq_rows.counts = counts;
	state->irq_rows.nr = state->irq_rows.cap = table->nr_irqs = kept;
	state->irq_cap = state->tails_cap = n ? n : 1;
	state->sorted = true;
	return 0;
}

/* One array of counts: the IRQ rows, then the vector rows. */
static int assemble_counts(struct load_state *state)
{
	struct irq_table *table = state->table;
	size_t columns = table->nr_columns;
	size_t rows = (size_t)table->nr_irqs + table->nr_vectors;
	uint32_t *values =
		realloc(state->irq_rows.counts, (rows ? rows : 1) * columns * sizeof(uint32_t));

	if (!values)
		return -ENOMEM;
	state->irq_rows.counts = NULL;
	if (table->nr_vectors)
		memcpy(values + (size_t)table->nr_irqs * columns, state->vector_rows.counts,
		       (size_t)table->nr_vectors * columns * sizeof(uint32_t));
	table->counts.values = values;
	table->counts.nr_rows = (unsigned int)rows;
	table->counts.nr_columns = table->nr_columns;
	return 0;
}

static int read_irq_files(struct irq_files *files, struct load_state *state)
{
	struct irq_table *table = state->table;
	unsigned int i;

	for (i = 0; i < table->nr_irqs; i++) {
		struct irq_info *irq = &table->irqs[i];

		irq_files_read_affinity(files, irq);
		/*
		 * Action names may hold blanks, and /sys/kernel/irq/N/actions
		 * has them without the padding of the line: it wins.
		 */
		irq->name = irq_files_read_sysfs(files, irq->number, "actions");
		/* an IRQ found in /proc/irq only has no line to take its chip from */
		if (!irq->listed)
			irq->chip = irq_files_read_sysfs(files, irq->number, "chip_name");
		irq_split_tail(state->tails[i], irq->chip ? NULL : &irq->chip,
			       irq->name ? NULL : &irq->name);
		if (!irq->name || !irq->chip)
			return -ENOMEM;
	}
	return 0;
}

static int compare_number(const void *key, const void *item)
{
	unsigned int number = *(const unsigned int *)key;
	const struct irq_info *irq = item;

	return number < irq->number ? -1 : number > irq->number;
}

struct irq_info *irq_table_find(const struct irq_table *table, unsigned int number)
{
	if (!table->nr_irqs)
		return NULL;
	return bsearch(&number, table->irqs, table->nr_irqs, sizeof(*table->irqs), compare_number);
}

int irq_table_find_vector(const struct irq_table *table, const char *name)
{
	unsigned int i;

	for (i = 0; i < table->nr_vectors; i++)
		if (!strcmp(table->vectors[i].name, name))
			return (int)(table->nr_irqs + i);
	return -1;
}

/*
 * /proc/interrupts leaves out an IRQ with no handler and no count; a
 * damaged or truncated copy, or a line skipped as malformed, would also
 * leave out one that fires, and a verdict on the rest would call the
 * machine good. Every /proc/irq/N/ the file did not list is added, to be
 * read from its own files, unless /sys/kernel/irq/N/actions says it has no
 * handler: that one the kernel hides on purpose, nothing to place or judge.
 */
static int add_unlisted(struct sysroot *root, struct load_state *state, struct irq_files *files)
{
	struct irq_table *table = state->table;
	struct irq_parsed_line parsed = { .numbered = true, .tail = "" };
	unsigned int listed = table->nr_irqs;
	struct dirent *entry;
	unsigned long number;
	int ret = 0;
	DIR *dir;

	/* no /proc/irq: each listed IRQ reads as gone, and none is hidden */
	dir = sysroot_opendir(root, "/proc/irq");
	if (!dir)
		return 0;
	while (!ret && (entry = readdir(dir))) {
		unsigned int key;
		uint32_t *row;
		char *actions;

		if (!irq_parse_number(entry->d_name, &number) || number > UINT_MAX)
			continue;
		key = (unsigned int)number;
		if (listed &&
		    bsearch(&key, table->irqs, listed, sizeof(*table->irqs), compare_number))
			continue;
		actions = irq_files_read_sysfs(files, key, "actions");
		if (actions && !actions[0]) {
			free(actions);
			continue;
		}
		free(actions);
		row = row_store_next(&state->irq_rows);
		if (!row) {
			ret = -ENOMEM;
			break;
		}
		memset(row, 0, table->nr_columns * sizeof(*row));
		parsed.number = key;
		ret = add_irq(state, &parsed);
		if (!ret) {
			table->irqs[table->nr_irqs - 1].listed = false;
			table->nr_unlisted++;
		}
	}
	closedir(dir);
	if (table->nr_unlisted)
		log_debug("%u IRQs of /proc/irq are not in /proc/interrupts: read from their "
			  "own files",
			  table->nr_unlisted);
	return ret;
}

static void free_state(struct load_state *state)
{
	unsigned int i;

	if (state->tails)
		for (i = 0; i < state->table->nr_irqs; i++)
			free(state->tails[i]);
	free(state->tails);
	free(state->irq_rows.counts);
	free(state->vector_rows.counts);
}

int irq_table_load(struct sysroot *root, struct irq_table *table)
{
	struct load_state state = { .table = table, .sorted = true };
	struct irq_files files;
	int ret;

	memset(table, 0, sizeof(*table));
	ret = irq_files_open(&files, root);
	if (!ret)
		ret = parse_interrupts(root, &state);
	if (!ret && !state.sorted)
		ret = sort_irqs(root, &state);
	if (!ret)
		ret = add_unlisted(root, &state, &files);
	if (!ret && !state.sorted)
		ret = sort_irqs(root, &state);
	if (!ret)
		ret = assemble_counts(&state);
	if (!ret)
		ret = read_irq_files(&files, &state);
	if (!ret && files.proc_irq < 0 && table->nr_irqs)
		log_warning("cannot read %s/proc/irq: %s: where the IRQs may fire is unknown",
			    irq_root_prefix(root), sysroot_strerror(files.proc_irq_error));
	if (!ret)
		ret = irq_map_pci_devices(root, table);
	irq_files_close(&files);
	free_state(&state);
	if (ret) {
		if (ret == -ENOMEM)
			log_error("out of memory loading the interrupt table");
		irq_table_release(table);
	}
	return ret;
}

void irq_table_release(struct irq_table *table)
{
	unsigned int i;

	for (i = 0; i < table->nr_irqs; i++) {
		free(table->irqs[i].name);
		free(table->irqs[i].chip);
	}
	for (i = 0; i < table->nr_vectors; i++)
		free(table->vectors[i].description);
	free(table->irqs);
	free(table->vectors);
	free(table->column_cpu);
	irq_counts_release(&table->counts);
	memset(table, 0, sizeof(*table));
}

const struct cpuset *irq_delivery_cpus(const struct irq_info *irq)
{
	if (irq->has_effective && !cpuset_empty(&irq->effective))
		return &irq->effective;
	return &irq->affinity;
}

int irq_read_default_affinity(struct sysroot *root, struct cpuset *set)
{
	char text[4096];
	int ret;

	ret = sysroot_read(root, text, sizeof(text), "/proc/irq/default_smp_affinity");
	if (ret < 0) {
		log_error("cannot read %s/proc/irq/default_smp_affinity: %s", irq_root_prefix(root),
			  sysroot_strerror(ret));
		return ret;
	}
	if (cpuset_parse_mask(text, set)) {
		log_error("%s/proc/irq/default_smp_affinity: not a cpu mask: '%.40s'",
			  irq_root_prefix(root), text);
		return -EINVAL;
	}
	return 0;
}
