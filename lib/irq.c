// SPDX-License-Identifier: GPL-2.0-or-later
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "latscope/array.h"
#include "latscope/clock.h"
#include "latscope/irq.h"
#include "latscope/log.h"

#define INTERRUPTS "/proc/interrupts"
#define PCI_DEVICES "/sys/bus/pci/devices"

/*
 * A 1024-CPU machine prints ~11 KB per line and ~100 MB in all: the file is
 * read in chunks and parsed line by line as it comes, never held whole.
 */
#define READ_CHUNK (1U << 20)
/*
 * Slack after the text: blanks are skipped 8 bytes at a time, and a load
 * may look up to 7 bytes past the NUL that ends the last line.
 */
#define READ_SLACK 16
/* an affinity list of 8192 CPUs written the long way ("0,2,4,...") */
#define LIST_TEXT_SIZE 65536

static const char *root_prefix(struct sysroot *root)
{
	return sysroot_is_live(root) ? "" : sysroot_dir(root);
}

struct line_reader {
	int fd;
	char *buf;
	size_t size; /* bytes of buf usable for text; READ_SLACK more follow */
	size_t start, end;
	bool eof;
	unsigned int line_number;
	unsigned long long total; /* bytes read: no file is read past SYSROOT_READ_MAX */
};

static int reader_open(struct line_reader *reader, struct sysroot *root)
{
	memset(reader, 0, sizeof(*reader));
	reader->fd = sysroot_open_file(root, INTERRUPTS);
	if (reader->fd < 0)
		return reader->fd;
	reader->size = READ_CHUNK;
	reader->buf = malloc(reader->size + READ_SLACK);
	if (!reader->buf) {
		close(reader->fd);
		return -ENOMEM;
	}
	return 0;
}

static void reader_close(struct line_reader *reader)
{
	close(reader->fd);
	free(reader->buf);
}

/* Next line, NUL-terminated in place. Returns 1, 0 at the end, or -errno. */
static int reader_next(struct line_reader *reader, char **line)
{
	for (;;) {
		char *start = reader->buf + reader->start;
		char *newline = memchr(start, '\n', reader->end - reader->start);
		ssize_t n;

		if (newline) {
			*newline = '\0';
			*line = start;
			reader->start = (size_t)(newline + 1 - reader->buf);
			reader->line_number++;
			return 1;
		}
		if (reader->eof) {
			if (reader->start == reader->end)
				return 0;
			reader->buf[reader->end] = '\0';
			*line = start;
			reader->start = reader->end;
			reader->line_number++;
			return 1;
		}
		if (reader->start) {
			memmove(reader->buf, start, reader->end - reader->start);
			reader->end -= reader->start;
			reader->start = 0;
		}
		if (reader->end == reader->size) {
			/* a line longer than the buffer: an 8192-CPU machine */
			char *bigger = realloc(reader->buf, reader->size * 2 + READ_SLACK);

			if (!bigger)
				return -ENOMEM;
			reader->buf = bigger;
			reader->size *= 2;
		}
		n = read(reader->fd, reader->buf + reader->end, reader->size - reader->end);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (!n)
			reader->eof = true;
		reader->total += (unsigned long long)n;
		if (reader->total > SYSROOT_READ_MAX)
			return -EFBIG;
		reader->end += (size_t)n;
		/* defined bytes for the word loads past the last line */
		memset(reader->buf + reader->end, 0, READ_SLACK);
	}
}

/* The header: "           CPU0       CPU1       CPU3" (online CPUs only). */
static int parse_header(const char *line, unsigned int **column_cpu, unsigned int *nr_columns)
{
	unsigned int *cpus = NULL, *grown, n = 0, cap = 0;
	const char *p = line;

	for (;;) {
		unsigned long cpu;
		char *end;

		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p)
			break;
		if (strncmp(p, "CPU", 3) || !isdigit((unsigned char)p[3]))
			goto malformed;
		errno = 0;
		cpu = strtoul(p + 3, &end, 10);
		if (errno || cpu >= CPUSET_MAX_CPUS || (n && cpu <= cpus[n - 1]) ||
		    (*end && *end != ' ' && *end != '\t'))
			goto malformed;
		grown = array_grow(cpus, &cap, n + 1, sizeof(*cpus));
		if (!grown) {
			free(cpus);
			return -ENOMEM;
		}
		cpus = grown;
		cpus[n++] = (unsigned int)cpu;
		p = end;
	}
	if (!n)
		goto malformed;
	*column_cpu = cpus;
	*nr_columns = n;
	return 0;
malformed:
	free(cpus);
	return -EINVAL;
}

/* What one line of /proc/interrupts says. */
struct parsed_line {
	bool numbered;
	unsigned int number;
	char vector[IRQ_VECTOR_NAME_SIZE];
	unsigned int nr_counts; /* counts read into the row */
	const char *tail; /* text after the counts, trimmed */
	const char *error; /* why the line is malformed, NULL when fine */
};

static const char *parse_label(const char *p, struct parsed_line *parsed)
{
	size_t len = 0;

	while (*p == ' ')
		p++;
	if (isdigit((unsigned char)*p)) {
		unsigned long number = 0;

		parsed->numbered = true;
		for (; isdigit((unsigned char)*p); p++) {
			number = number * 10 + (unsigned long)(*p - '0');
			if (number > UINT_MAX)
				return NULL;
		}
		parsed->number = (unsigned int)number;
	} else {
		parsed->numbered = false;
		for (; *p && *p != ':' && *p != ' '; p++) {
			if (len + 1 >= IRQ_VECTOR_NAME_SIZE)
				return NULL;
			parsed->vector[len++] = *p;
		}
		parsed->vector[len] = '\0';
		if (!len)
			return NULL;
	}
	return *p == ':' ? p + 1 : NULL;
}

/*
 * The hot loop: up to @columns decimal counts separated by blanks, no
 * sscanf. A value beyond 32 bits cannot come from the kernel and makes the
 * line malformed.
 */
static const char *parse_counts(const char *p, uint32_t *row, unsigned int columns,
				struct parsed_line *parsed)
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

/* Parse one line into @row (nr_columns counts). */
static void parse_line(char *line, uint32_t *row, unsigned int columns, struct parsed_line *parsed)
{
	const char *p;
	char *end;

	memset(parsed, 0, sizeof(*parsed));
	p = parse_label(line, parsed);
	if (!p) {
		parsed->error = "no 'label:' at the start";
		return;
	}
	p = parse_counts(p, row, columns, parsed);
	if (parsed->error)
		return;
	if (parsed->nr_counts < columns) {
		/* ERR and MIS (x86), Err (arm64): one total, no per-CPU columns */
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

/*
 * The tail of a line: " IO-APIC   4-edge      ttyS0", or on arm64
 * " GICv3  27 Level     arch_timer". The chip is the first word (what
 * /sys/kernel/irq/N/chip_name says too). The kernel pads its fields with
 * blanks and puts two before the action names, so the actions are what
 * follows the last gap of two blanks, unless that is one of the padded
 * fields itself (hwirq, "27-edge", "Level", "-fasteoi"): an IRQ with no
 * action.
 */
static bool is_padded_field(const char *word)
{
	const char *p = word;

	if (*p == '-' || !strcmp(word, "Level") || !strcmp(word, "Edge"))
		return true;
	if (!isdigit((unsigned char)*p))
		return false;
	while (isdigit((unsigned char)*p))
		p++;
	if (*p == '-')
		for (p++; isalnum((unsigned char)*p) || *p == '_'; p++)
			;
	return !*p;
}

static void split_tail(const char *tail, char **chip, char **name)
{
	size_t chip_len = strcspn(tail, " \t");
	const char *gap = NULL, *p;

	for (p = tail + chip_len; *p; p++)
		if (p[0] == ' ' && p[1] == ' ')
			gap = p;
	if (chip)
		*chip = strndup(tail, chip_len);
	if (!name)
		return;
	if (gap) {
		while (*gap == ' ')
			gap++;
		if (is_padded_field(gap))
			gap = NULL;
	}
	*name = strdup(gap ? gap : "");
}

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

static int add_irq(struct load_state *state, const struct parsed_line *parsed)
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
	state->tails[table->nr_irqs] = strdup(parsed->tail);
	if (!state->tails[table->nr_irqs])
		return -ENOMEM;
	table->nr_irqs++;
	state->irq_rows.nr++;
	return 0;
}

static int add_vector(struct load_state *state, const struct parsed_line *parsed)
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
static void presize_rows(struct line_reader *reader, struct load_state *state)
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
	struct line_reader reader;
	struct parsed_line parsed;
	char *line;
	int ret;

	ret = reader_open(&reader, root);
	if (ret) {
		log_error("cannot read %s" INTERRUPTS ": %s", root_prefix(root),
			  sysroot_strerror(ret));
		return ret;
	}
	table->counts.time_ns = clock_ns(CLOCK_MONOTONIC);
	ret = reader_next(&reader, &line);
	if (ret <= 0 || parse_header(line, &table->column_cpu, &table->nr_columns)) {
		if (ret >= 0)
			log_error("%s" INTERRUPTS ": no 'CPU0 CPU1 ...' header on line 1",
				  root_prefix(root));
		else
			log_error("cannot read %s" INTERRUPTS ": %s", root_prefix(root),
				  sysroot_strerror(ret));
		reader_close(&reader);
		return ret < 0 ? ret : -EINVAL;
	}
	state->irq_rows.columns = state->vector_rows.columns = table->nr_columns;
	presize_rows(&reader, state);
	while ((ret = reader_next(&reader, &line)) > 0) {
		struct row_store *store =
			starts_numbered(line) ? &state->irq_rows : &state->vector_rows;
		/* parsed into the next free row; a skipped line leaves it free */
		uint32_t *row = row_store_next(store);

		if (!row) {
			ret = -ENOMEM;
			break;
		}
		parse_line(line, row, table->nr_columns, &parsed);
		if (parsed.error) {
			table->skipped_lines++;
			log_warning("%s" INTERRUPTS " line %u skipped: %s: '%.40s'",
				    root_prefix(root), reader.line_number, parsed.error, line);
			continue;
		}
		ret = parsed.numbered ? add_irq(state, &parsed) : add_vector(state, &parsed);
		if (ret)
			break;
	}
	reader_close(&reader);
	if (ret < 0)
		log_error("cannot read %s" INTERRUPTS ": %s", root_prefix(root),
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
			log_warning("%s" INTERRUPTS ": irq %u listed twice; the first line is used",
				    root_prefix(root), keys[i].number);
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

/*
 * Per-IRQ files are opened relative to /proc/irq and /sys/kernel/irq, both
 * opened through the root: 10,000 IRQs mean 40,000 opens, and the shorter
 * path walk and one fstat(2) on the open file instead of a stat(2) by name
 * cut the time they take by half.
 */
struct irq_files {
	struct sysroot *root;
	int proc_irq; /* -1 when missing */
	int sys_irq; /* -1 without CONFIG_SPARSE_IRQ */
	char *text; /* LIST_TEXT_SIZE bytes */
	/*
	 * Most IRQs share an affinity ("0-1023"): the last list parsed is
	 * kept, as parsing it adds CPUs one by one.
	 */
	char last_text[64];
	struct cpuset last_set;
};

static int irq_files_open(struct irq_files *files, struct sysroot *root)
{
	files->root = root;
	files->last_text[0] = '\0';
	cpuset_clear(&files->last_set);
	files->text = malloc(LIST_TEXT_SIZE);
	if (!files->text)
		return -ENOMEM;
	files->proc_irq = sysroot_open(root, O_RDONLY | O_DIRECTORY, "/proc/irq");
	files->sys_irq = sysroot_open(root, O_RDONLY | O_DIRECTORY, "/sys/kernel/irq");
	return 0;
}

static void irq_files_close(struct irq_files *files)
{
	if (files->proc_irq >= 0)
		close(files->proc_irq);
	if (files->sys_irq >= 0)
		close(files->sys_irq);
	free(files->text);
}

/* Read "<number>/<file>" under @dir into files->text; the length or -errno. */
static int read_at(struct irq_files *files, int dir, unsigned int number, const char *file,
		   struct stat *st)
{
	struct stat own;
	char name[64];
	ssize_t n, used = 0;
	int fd;

	if (dir < 0)
		return -ENOENT;
	snprintf(name, sizeof(name), "%u/%s", number, file);
	/* as sysroot reads: no FIFO may block, no device be read */
	fd = openat(dir, name, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	if (!st)
		st = &own;
	if (fstat(fd, st))
		n = -errno;
	else if (!S_ISREG(st->st_mode))
		n = S_ISDIR(st->st_mode) ? -EISDIR : -SYSROOT_ENOTREG;
	else
		n = 0;
	if (n) {
		close(fd);
		return (int)n;
	}
	for (;;) {
		size_t want = LIST_TEXT_SIZE - 1 - (size_t)used;

		n = read(fd, files->text + used, want);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		used += n;
		if (used == LIST_TEXT_SIZE - 1) {
			n = -EFBIG;
			break;
		}
		/*
		 * sysfs and small seq_files hand over everything in the first
		 * read, as do regular files: a short read is the end, which
		 * saves the read that would return 0, a quarter of the calls.
		 */
		if ((size_t)n < want)
			break;
	}
	if (n < 0)
		n = n == -EFBIG ? n : -errno;
	close(fd);
	if (n < 0)
		return (int)n;
	while (used && files->text[used - 1] == '\n')
		used--;
	files->text[used] = '\0';
	return (int)used;
}

static bool read_list(struct irq_files *files, unsigned int number, const char *file,
		      struct cpuset *set, struct stat *st)
{
	if (read_at(files, files->proc_irq, number, file, st) < 0) {
		cpuset_clear(set);
		return false;
	}
	if (!strcmp(files->text, files->last_text)) {
		*set = files->last_set;
		return true;
	}
	if (cpuset_parse_list(files->text, set)) {
		log_warning("%s/proc/irq/%u/%s: not a cpu list: '%.40s'", root_prefix(files->root),
			    number, file, files->text);
		cpuset_clear(set);
		return false;
	}
	if (strlen(files->text) < sizeof(files->last_text)) {
		strcpy(files->last_text, files->text);
		files->last_set = *set;
	}
	return true;
}

static void read_affinity(struct irq_files *files, struct irq_info *irq)
{
	struct stat st;

	irq->has_affinity = read_list(files, irq->number, "smp_affinity_list", &irq->affinity, &st);
	irq->movable = irq->has_affinity && (st.st_mode & 0222);
	irq->has_effective =
		read_list(files, irq->number, "effective_affinity_list", &irq->effective, NULL);
}

static char *read_sysfs_text(struct irq_files *files, unsigned int number, const char *file)
{
	if (read_at(files, files->sys_irq, number, file, NULL) < 0)
		return NULL;
	return strdup(files->text);
}

static int read_irq_files(struct sysroot *root, struct load_state *state)
{
	struct irq_table *table = state->table;
	struct irq_files files;
	unsigned int i;
	int ret;

	ret = irq_files_open(&files, root);
	if (ret)
		return ret;
	for (i = 0; i < table->nr_irqs && !ret; i++) {
		struct irq_info *irq = &table->irqs[i];

		read_affinity(&files, irq);
		/*
		 * Action names may hold blanks, and /sys/kernel/irq/N/actions
		 * has them without the padding of the line: it wins.
		 */
		irq->name = read_sysfs_text(&files, irq->number, "actions");
		split_tail(state->tails[i], &irq->chip, irq->name ? NULL : &irq->name);
		if (!irq->name || !irq->chip)
			ret = -ENOMEM;
	}
	irq_files_close(&files);
	return ret;
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
 * MSI and MSI-X vectors are listed by number in msi_irqs/; a legacy INTx
 * line is in irq (0 when none) and may be shared, so an MSI claim wins and
 * among legacy claims the lowest address does (readdir order is arbitrary).
 */
static void claim_irq(struct irq_table *table, bool *from_msi, unsigned int number,
		      const char *device, uint32_t class_code, int node, bool msi)
{
	struct irq_info *irq = irq_table_find(table, number);
	size_t row;

	if (!irq)
		return;
	row = (size_t)(irq - table->irqs);
	if (irq->device[0]) {
		if (from_msi[row] && !msi)
			return;
		if (from_msi[row] == msi && strcmp(device, irq->device) > 0)
			return;
	}
	snprintf(irq->device, sizeof(irq->device), "%s", device);
	irq->device_class = class_code;
	irq->node = node;
	from_msi[row] = msi;
}

static bool parse_number(const char *text, unsigned long *value)
{
	char *end;

	if (!isdigit((unsigned char)*text))
		return false;
	errno = 0;
	*value = strtoul(text, &end, 10);
	return !errno && !*end;
}

static void map_device(struct sysroot *root, struct irq_table *table, bool *from_msi,
		       const char *device)
{
	char text[64];
	unsigned long class_code = 0, number;
	long long node = -1, legacy;
	struct dirent *entry;
	DIR *dir;

	if (sysroot_read(root, text, sizeof(text), PCI_DEVICES "/%s/class", device) > 0)
		class_code = strtoul(text, NULL, 16);
	if (sysroot_read_integer(root, &node, PCI_DEVICES "/%s/numa_node", device) || node < -1 ||
	    node > INT32_MAX)
		node = -1;
	dir = sysroot_opendir(root, PCI_DEVICES "/%s/msi_irqs", device);
	if (dir) {
		while ((entry = readdir(dir)))
			if (parse_number(entry->d_name, &number) && number <= UINT_MAX)
				claim_irq(table, from_msi, (unsigned int)number, device,
					  (uint32_t)class_code, (int)node, true);
		closedir(dir);
	}
	if (!sysroot_read_integer(root, &legacy, PCI_DEVICES "/%s/irq", device) && legacy > 0 &&
	    legacy <= UINT_MAX)
		claim_irq(table, from_msi, (unsigned int)legacy, device, (uint32_t)class_code,
			  (int)node, false);
}

static int map_pci_devices(struct sysroot *root, struct irq_table *table)
{
	bool *from_msi = calloc(table->nr_irqs ? table->nr_irqs : 1, sizeof(*from_msi));
	struct dirent *entry;
	DIR *dir;

	if (!from_msi)
		return -ENOMEM;
	dir = sysroot_opendir(root, PCI_DEVICES);
	if (!dir) {
		/* no PCI bus (an embedded board): every IRQ is without device */
		log_debug("no %s" PCI_DEVICES ": %s", root_prefix(root), strerror(errno));
		free(from_msi);
		return 0;
	}
	while ((entry = readdir(dir)))
		if (entry->d_name[0] != '.')
			map_device(root, table, from_msi, entry->d_name);
	closedir(dir);
	free(from_msi);
	return 0;
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
	int ret;

	memset(table, 0, sizeof(*table));
	ret = parse_interrupts(root, &state);
	if (!ret && !state.sorted)
		ret = sort_irqs(root, &state);
	if (!ret)
		ret = assemble_counts(&state);
	if (!ret)
		ret = read_irq_files(root, &state);
	if (!ret)
		ret = map_pci_devices(root, table);
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

int irq_table_refresh_affinity(struct sysroot *root, struct irq_table *table)
{
	struct irq_files files;
	unsigned int i;
	int ret;

	ret = irq_files_open(&files, root);
	if (ret)
		return ret;
	for (i = 0; i < table->nr_irqs; i++)
		read_affinity(&files, &table->irqs[i]);
	irq_files_close(&files);
	return 0;
}

const struct cpuset *irq_delivery_cpus(const struct irq_info *irq)
{
	if (irq->has_effective && !cpuset_empty(&irq->effective))
		return &irq->effective;
	return &irq->affinity;
}

const char *irq_device_class_name(uint32_t class_code)
{
	switch (class_code >> 16) {
	case 0x00:
		return class_code ? "other" : "";
	case 0x01:
		return "storage";
	case 0x02:
		return (class_code >> 8) == 0x0200 ? "ethernet" : "network";
	case 0x03:
		return "display";
	case 0x04:
		return "multimedia";
	case 0x06:
		return "bridge";
	case 0x08:
		return "system";
	case 0x0c:
		return (class_code >> 8) == 0x0c03 ? "usb" : "serial-bus";
	default:
		return "other";
	}
}

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
static int row_of(const struct irq_table *table, const struct parsed_line *parsed,
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
	struct line_reader reader;
	struct parsed_line parsed;
	uint32_t *scratch;
	bool *filled;
	char *line;
	int ret, row;

	if (counts->nr_rows != irq_table_rows(table) || counts->nr_columns != table->nr_columns)
		return -EINVAL;
	scratch = malloc((table->nr_columns ? table->nr_columns : 1) * sizeof(*scratch));
	filled = calloc(counts->nr_rows ? counts->nr_rows : 1, sizeof(*filled));
	ret = scratch && filled ? reader_open(&reader, root) : -ENOMEM;
	if (ret) {
		free(scratch);
		free(filled);
		log_error("cannot read %s" INTERRUPTS ": %s", root_prefix(root),
			  sysroot_strerror(ret));
		return ret;
	}
	counts->time_ns = clock_ns(CLOCK_MONOTONIC);
	ret = reader_next(&reader, &line);
	if (ret > 0 &&
	    (parse_header(line, &cpus, &nr_columns) || !same_columns(table, cpus, nr_columns)))
		ret = -ESTALE;
	while (ret > 0 && (ret = reader_next(&reader, &line)) > 0) {
		/* Fast path: the line is the row after the last one; parse in place. */
		bool in_place = expected < counts->nr_rows && !filled[expected];
		uint32_t *target =
			in_place ? counts->values + (size_t)expected * nr_columns : scratch;

		parse_line(line, target, nr_columns, &parsed);
		if (parsed.error) {
			/* reported when the table was loaded; not again per sample */
			log_debug(INTERRUPTS " line %u skipped: %s", reader.line_number,
				  parsed.error);
			continue;
		}
		row = row_of(table, &parsed, expected);
		if (row < 0) {
			ret = -ESTALE; /* a new IRQ or vector */
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
	reader_close(&reader);
	free(scratch);
	free(filled);
	free(cpus);
	if (!ret && seen != counts->nr_rows)
		ret = -ESTALE; /* an IRQ went away */
	if (ret < 0 && ret != -ESTALE)
		log_error("cannot read %s" INTERRUPTS ": %s", root_prefix(root),
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

int irq_read_default_affinity(struct sysroot *root, struct cpuset *set)
{
	char text[4096];
	int ret;

	ret = sysroot_read(root, text, sizeof(text), "/proc/irq/default_smp_affinity");
	if (ret < 0) {
		log_error("cannot read %s/proc/irq/default_smp_affinity: %s", root_prefix(root),
			  sysroot_strerror(ret));
		return ret;
	}
	if (cpuset_parse_mask(text, set)) {
		log_error("%s/proc/irq/default_smp_affinity: not a cpu mask: '%.40s'",
			  root_prefix(root), text);
		return -EINVAL;
	}
	return 0;
}

int irq_balancer_pid(struct sysroot *root)
{
	struct dirent *entry;
	unsigned long pid;
	char comm[64];
	int found = 0;
	DIR *dir;

	dir = sysroot_opendir(root, "/proc");
	if (!dir)
		return 0;
	while (!found && (entry = readdir(dir))) {
		if (!parse_number(entry->d_name, &pid) || pid > INT32_MAX)
			continue;
		/* a process may exit while we look: not an error */
		if (sysroot_read(root, comm, sizeof(comm), "/proc/%lu/comm", pid) > 0 &&
		    !strcmp(comm, "irqbalance"))
			found = (int)pid;
	}
	closedir(dir);
	return found;
}
