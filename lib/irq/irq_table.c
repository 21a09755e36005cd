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

/* Where a row's cells are, while the file is parsed and the rows sorted. */
struct row_cells {
	uint32_t first;
	uint16_t size;
};

struct load_state {
	struct irq_table *table;
	unsigned int irq_cap, vector_cap;
	struct row_cells *irq_cells, *vector_cells; /* per IRQ, per vector */
	/* per IRQ: the line's names are a guess, /sys/kernel/irq/N/actions decides */
	bool *names_unsure;
	bool sorted;
};

/* The table's copy of @len bytes of @text; NULL when out of memory. */
static const char *keep_text(struct irq_table *table, const char *text, size_t len)
{
	return irq_store_text(table->store, text, len);
}

/* One IRQ more: its row, its cells, its chip and names from the line's tail. */
static int add_irq(struct load_state *state, const struct irq_parsed_line *parsed)
{
	struct irq_table *table = state->table;
	unsigned int cap = state->irq_cap, n = table->nr_irqs;
	struct irq_tail_words words;
	struct irq_info *irq, *irqs;
	struct row_cells *cells;
	bool *unsure;

	irqs = array_grow(table->irqs, &cap, n + 1, sizeof(*irqs));
	if (!irqs)
		return -ENOMEM;
	table->irqs = irqs;
	cap = state->irq_cap;
	cells = array_grow(state->irq_cells, &cap, n + 1, sizeof(*cells));
	if (!cells)
		return -ENOMEM;
	state->irq_cells = cells;
	cap = state->irq_cap;
	unsure = array_grow(state->names_unsure, &cap, n + 1, sizeof(*unsure));
	if (!unsure)
		return -ENOMEM;
	state->names_unsure = unsure;
	state->irq_cap = cap;
	if (n && parsed->number <= table->irqs[n - 1].number)
		state->sorted = false;
	irq = &table->irqs[n];
	memset(irq, 0, sizeof(*irq));
	irq->number = parsed->number;
	irq->node = -1;
	irq->listed = true;
	irq->affinity = irq->effective = irq_store_empty(table->store);
	irq_split_tail(parsed->tail, &words);
	irq->chip = keep_text(table, words.chip, words.chip_len);
	irq->name = keep_text(table, words.names, strlen(words.names));
	if (!irq->chip || !irq->name)
		return -ENOMEM;
	state->names_unsure[n] = !words.names_certain;
	state->irq_cells[n] =
		(struct row_cells){ (uint32_t)parsed->first_cell, (uint16_t)parsed->nr_cells };
	table->nr_irqs++;
	return 0;
}

static int add_vector(struct load_state *state, const struct irq_parsed_line *parsed)
{
	struct irq_table *table = state->table;
	unsigned int cap = state->vector_cap, n = table->nr_vectors;
	struct irq_vector *vector, *vectors;
	struct row_cells *cells;

	vectors = array_grow(table->vectors, &cap, n + 1, sizeof(*vectors));
	if (!vectors)
		return -ENOMEM;
	table->vectors = vectors;
	cap = state->vector_cap;
	cells = array_grow(state->vector_cells, &cap, n + 1, sizeof(*cells));
	if (!cells)
		return -ENOMEM;
	state->vector_cells = cells;
	state->vector_cap = cap;
	vector = &table->vectors[n];
	memcpy(vector->name, parsed->vector, sizeof(vector->name));
	vector->description = keep_text(table, parsed->tail, strlen(parsed->tail));
	if (!vector->description)
		return -ENOMEM;
	vector->per_cpu = parsed->nr_counts == table->nr_columns;
	state->vector_cells[n] =
		(struct row_cells){ (uint32_t)parsed->first_cell, (uint16_t)parsed->nr_cells };
	table->nr_vectors++;
	return 0;
}

/*
 * A file of known size (a fixture; procfs says 0) tells how many IRQs to
 * expect: ~11 bytes per count. Growing by doubling instead would copy the
 * rows already read and leave up to half the last array unused.
 */
static int presize_irqs(struct irq_line_reader *reader, struct load_state *state)
{
	size_t per_row = (size_t)state->table->nr_columns * 11 + 16;
	struct stat st;
	size_t rows;

	if (fstat(reader->fd, &st) || st.st_size <= 0)
		return 0;
	rows = (size_t)st.st_size / per_row + 64;
	if (rows > UINT_MAX / 2)
		return 0;
	state->table->irqs = malloc(rows * sizeof(*state->table->irqs));
	state->irq_cells = malloc(rows * sizeof(*state->irq_cells));
	state->names_unsure = malloc(rows * sizeof(*state->names_unsure));
	if (!state->table->irqs || !state->irq_cells || !state->names_unsure)
		return -ENOMEM;
	state->irq_cap = (unsigned int)rows;
	return 0;
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
	table->counts.nr_columns = table->nr_columns;
	ret = presize_irqs(&reader, state);
	while (!ret && (ret = irq_reader_next(&reader, &line)) > 0) {
		ret = 0;
		if (irq_counts_reserve(&table->counts, table->nr_columns)) {
			ret = -ENOMEM;
			break;
		}
		irq_parse_line(line, &table->counts, table->nr_columns, &parsed);
		if (parsed.error) {
			table->skipped_lines++;
			log_warning("%s" IRQ_INTERRUPTS " line %u skipped: %s: '%.40s'",
				    irq_root_prefix(root), reader.line_number, parsed.error, line);
			continue;
		}
		ret = parsed.numbered ? add_irq(state, &parsed) : add_vector(state, &parsed);
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
	unsigned int n = table->nr_irqs, kept = 0, i;
	struct sort_key *keys = malloc((n ? n : 1) * sizeof(*keys));
	struct irq_info *irqs = malloc((n ? n : 1) * sizeof(*irqs));
	struct row_cells *cells = malloc((n ? n : 1) * sizeof(*cells));
	bool *unsure = malloc((n ? n : 1) * sizeof(*unsure));

	if (!keys || !irqs || !cells || !unsure) {
		free(keys);
		free(irqs);
		free(cells);
		free(unsure);
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
			table->skipped_lines++;
			continue;
		}
		irqs[kept] = table->irqs[row];
		unsure[kept] = state->names_unsure[row];
		cells[kept] = state->irq_cells[row];
		kept++;
	}
	free(keys);
	free(table->irqs);
	free(state->names_unsure);
	free(state->irq_cells);
	table->irqs = irqs;
	state->names_unsure = unsure;
	state->irq_cells = cells;
	table->nr_irqs = kept;
	state->irq_cap = n ? n : 1;
	state->sorted = true;
	return 0;
}

/* The rows of the counts: the IRQs, then the vectors. */
static int assemble_counts(struct load_state *state)
{
	struct irq_table *table = state->table;
	struct irq_counts *counts = &table->counts;
	unsigned int rows = irq_table_rows(table), i;

	counts->first = malloc((rows ? rows : 1) * sizeof(*counts->first));
	counts->size = malloc((rows ? rows : 1) * sizeof(*counts->size));
	if (!counts->first || !counts->size)
		return -ENOMEM;
	for (i = 0; i < rows; i++) {
		const struct row_cells *cells = i < table->nr_irqs ?
							&state->irq_cells[i] :
							&state->vector_cells[i - table->nr_irqs];

		counts->first[i] = cells->first;
		counts->size[i] = cells->size;
	}
	counts->nr_rows = rows;
	counts->nr_columns = table->nr_columns;
	return 0;
}

/* What the files of /proc/irq said, into the table's IRQs; problems said in their order. */
static void apply_affinities(struct irq_files *files, struct irq_table *table,
			     const struct irq_affinity *items, unsigned int nr_items)
{
	unsigned int i, at = 0;

	for (i = 0; i < table->nr_irqs; i++) {
		struct irq_info *irq = &table->irqs[i];
		struct irq_affinity late = { .number = irq->number };
		const struct irq_affinity *item = &late;

		while (at < nr_items && items[at].number < irq->number)
			at++;
		if (at < nr_items && items[at].number == irq->number)
			item = &items[at];
		else
			/* not in /proc/irq when it was listed: read now (it went, or came since) */
			irq_affinity_read(files, &late);
		irq_affinity_note(files, irq->number, 0, 0, item);
		irq_affinity_apply(irq, item);
	}
}

/* What the probes of the affinity files found, for -vv. */
static void note_probes(const struct irq_table *table)
{
	unsigned int i, probed = 0, refused = 0, unclear = 0;
	int first_unclear = 0;

	for (i = 0; i < table->nr_irqs; i++) {
		const struct irq_info *irq = &table->irqs[i];

		if (!irq->probed)
			continue;
		probed++;
		if (irq->movable_by != IRQ_MOVABLE_BY_PROBE && !unclear++)
			first_unclear = irq->probe_error;
		else if (!irq->movable)
			refused++;
	}
	if (probed)
		log_debug("%u IRQs with writable affinity files asked by a test write: %u refuse "
			  "one (managed or fixed)",
			  probed, refused);
	if (unclear)
		log_debug("%u test writes answered neither yes nor no (%s): the file mode decides",
			  unclear, first_unclear ? strerror(first_unclear) : "taken");
}

/*
 * Names the line leaves in doubt (a layout of its own, several actions)
 * are what /sys/kernel/irq/N/actions says, when there is one; the others
 * need no file of their own.
 */
static int read_unsure_names(struct irq_files *files, struct load_state *state)
{
	struct irq_table *table = state->table;
	unsigned int i;
	int len;

	for (i = 0; i < table->nr_irqs; i++) {
		struct irq_info *irq = &table->irqs[i];

		if (!state->names_unsure[i])
			continue;
		len = irq_files_read_sysfs(files, irq->number, "actions");
		if (len >= 0 && !(irq->name = keep_text(table, files->text, (size_t)len)))
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

/* The IRQs /proc/irq has, ascending; none without /proc/irq. 0 or -ENOMEM. */
static int list_proc_irq(struct sysroot *root, struct irq_affinity **items, unsigned int *nr)
{
	unsigned int cap = 0;
	struct dirent *entry;
	unsigned long number;
	DIR *dir;

	*items = NULL;
	*nr = 0;
	dir = sysroot_opendir(root, "/proc/irq");
	if (!dir)
		return 0;
	while ((entry = readdir(dir))) {
		struct irq_affinity *grown;

		if (!irq_parse_number(entry->d_name, &number) || number > UINT_MAX)
			continue;
		grown = array_grow(*items, &cap, *nr + 1, sizeof(**items));
		if (!grown) {
			closedir(dir);
			return -ENOMEM;
		}
		*items = grown;
		(*items)[(*nr)++] = (struct irq_affinity){ .number = (unsigned int)number };
	}
	closedir(dir);
	/* the number comes first in the structure: sorted as numbers */
	_Static_assert(offsetof(struct irq_affinity, number) == 0, "the number first");
	if (*nr)
		qsort(*items, *nr, sizeof(**items), array_compare_uint);
	return 0;
}

/*
 * /proc/interrupts leaves out an IRQ with no handler and no count; a
 * damaged or truncated copy, or a line skipped as malformed, would also
 * leave out one that fires, and a verdict on the rest would call the
 * machine good. Every /proc/irq/N/ the file did not list is added, to be
 * read from its own files, unless /sys/kernel/irq/N/actions says it has no
 * handler: that one the kernel hides on purpose, nothing to place or judge.
 */
static int add_unlisted(struct load_state *state, struct irq_files *files,
			const struct irq_affinity *in_proc_irq, unsigned int nr)
{
	struct irq_table *table = state->table;
	struct irq_parsed_line parsed = { .numbered = true, .tail = "" };
	unsigned int listed = table->nr_irqs, i;
	int ret = 0;

	for (i = 0; !ret && i < nr; i++) {
		unsigned int key = in_proc_irq[i].number;
		struct irq_info *irq;
		int len;

		if (listed &&
		    bsearch(&key, table->irqs, listed, sizeof(*table->irqs), compare_number))
			continue;
		len = irq_files_read_sysfs(files, key, "actions");
		if (!len)
			continue;
		parsed.number = key;
		ret = add_irq(state, &parsed);
		if (ret)
			break;
		irq = &table->irqs[table->nr_irqs - 1];
		irq->listed = false;
		table->nr_unlisted++;
		/* its names and chip, or "" without /sys/kernel/irq: no line to guess from */
		state->names_unsure[table->nr_irqs - 1] = false;
		if (len > 0 && !(irq->name = keep_text(table, files->text, (size_t)len)))
			ret = -ENOMEM;
		len = irq_files_read_sysfs(files, key, "chip_name");
		if (len > 0 && !(irq->chip = keep_text(table, files->text, (size_t)len)))
			ret = -ENOMEM;
	}
	if (table->nr_unlisted)
		log_debug("%u IRQs of /proc/irq are not in /proc/interrupts: read from their "
			  "own files",
			  table->nr_unlisted);
	return ret;
}

static void free_state(struct load_state *state)
{
	free(state->names_unsure);
	free(state->irq_cells);
	free(state->vector_cells);
}

int irq_table_load(struct sysroot *root, struct irq_table *table)
{
	struct load_state state = { .table = table, .sorted = true };
	struct irq_affinity *in_proc_irq = NULL;
	struct irq_reading *reading = NULL;
	unsigned int nr_in_proc_irq = 0;
	struct irq_files files;
	int ret;

	memset(table, 0, sizeof(*table));
	table->store = irq_store_new();
	ret = table->store ? irq_files_open(&files, root, table->store) : -ENOMEM;
	if (ret) {
		irq_table_release(table);
		return ret;
	}
	/* the affinity files are read while /proc/interrupts is parsed */
	ret = list_proc_irq(root, &in_proc_irq, &nr_in_proc_irq);
	if (!ret) {
		reading = irq_reading_start(&files, in_proc_irq, nr_in_proc_irq);
		if (!reading)
			ret = -ENOMEM;
	}
	if (!ret)
		ret = parse_interrupts(root, &state);
	if (!ret && !state.sorted)
		ret = sort_irqs(root, &state);
	if (!ret)
		ret = add_unlisted(&state, &files, in_proc_irq, nr_in_proc_irq);
	if (!ret && !state.sorted)
		ret = sort_irqs(root, &state);
	if (!ret)
		ret = assemble_counts(&state);
	if (reading)
		irq_reading_finish(reading);
	if (!ret) {
		apply_affinities(&files, table, in_proc_irq, nr_in_proc_irq);
		note_probes(table);
	}
	if (!ret)
		ret = read_unsure_names(&files, &state);
	if (!ret && files.proc_irq < 0 && table->nr_irqs)
		log_warning("cannot read %s/proc/irq: %s: where the IRQs may fire is unknown",
			    irq_root_prefix(root), sysroot_strerror(files.proc_irq_error));
	if (!ret)
		ret = irq_map_pci_devices(root, table);
	irq_files_close(&files);
	free(in_proc_irq);
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
	irq_store_free(table->store);
	free(table->irqs);
	free(table->vectors);
	free(table->column_cpu);
	irq_counts_release(&table->counts);
	memset(table, 0, sizeof(*table));
}

/* a table built by hand gets its store at its first kept item */
static struct irq_store *store_of(struct irq_table *table)
{
	if (!table->store)
		table->store = irq_store_new();
	return table->store;
}

const struct cpuset *irq_table_keep_cpus(struct irq_table *table, const struct cpuset *set)
{
	return store_of(table) ? irq_store_cpus(table->store, set) : NULL;
}

const char *irq_table_keep_text(struct irq_table *table, const char *text)
{
	return store_of(table) ? keep_text(table, text, strlen(text)) : NULL;
}

const struct cpuset *irq_delivery_cpus(const struct irq_info *irq)
{
	if (irq->has_effective && !cpuset_empty(irq->effective))
		return irq->effective;
	return irq->affinity;
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
