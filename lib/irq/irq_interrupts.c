// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The /proc/interrupts parser: the file read in chunks and split in lines
 * as it comes, the CPU header, and each line's label, counts and tail. The
 * table's load and every later read of the counts go through it.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "irq_internal.h"
#include "latscope/array.h"

/*
 * A 1024-CPU machine prints ~11 KB per line and ~100 MB in all: the file is
 * read in chunks and parsed line by line as it comes, never held whole.
 */
#define READ_CHUNK (1U << 20)
/*
 * Slack after the text: blanks are skipped 8 bytes at a time and a zero
 * count is recognised in 12, so a load may look up to 11 bytes past the
 * NUL that ends the last line.
 */
#define READ_SLACK 16

const char *irq_root_prefix(struct sysroot *root)
{
	return sysroot_is_live(root) ? "" : sysroot_dir(root);
}

int irq_reader_open(struct irq_line_reader *reader, struct sysroot *root)
{
	memset(reader, 0, sizeof(*reader));
	reader->fd = sysroot_open_file(root, IRQ_INTERRUPTS);
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

void irq_reader_close(struct irq_line_reader *reader)
{
	close(reader->fd);
	free(reader->buf);
}

int irq_reader_next(struct irq_line_reader *reader, char **line)
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

int irq_parse_header(const char *line, unsigned int **column_cpu, unsigned int *nr_columns)
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

static const char *parse_label(const char *p, struct irq_parsed_line *parsed)
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

/* a decimal digit: one unsigned compare */
static inline bool is_digit(char c)
{
	return (unsigned int)(c - '0') <= 9;
}

/*
 * The hot loop, once over the line: up to @columns decimal counts
 * separated by blanks, no sscanf, no copy. Blanks are skipped a word at a
 * time (counts are padded to ten columns: most of the file is blanks) and
 * a count of 0, most of them on a big machine, costs a compare: only the
 * others become cells. A value beyond 32 bits cannot come from the kernel
 * and makes the line malformed.
 */
static const char *parse_counts(const char *p, struct irq_counts *counts, unsigned int columns,
				struct irq_parsed_line *parsed)
{
	uint16_t *column = counts->column + counts->nr_cells;
	uint32_t *value = counts->value + counts->nr_cells;
	unsigned int i, n = 0;

	static const char zero_end[4] = { ' ', ' ', '0', ' ' };
	uint32_t zero_tail, tail;

	memcpy(&zero_tail, zero_end, sizeof(zero_tail));
	for (i = 0; i < columns; i++) {
		uint64_t count, word;

		/* the kernel's 0 (" %10u"), most counts of a big machine: 8 blanks, "  0 " */
		memcpy(&word, p, sizeof(word));
		memcpy(&tail, p + 8, sizeof(tail));
		if (word == 0x2020202020202020ULL && tail == zero_tail) {
			p += 11;
			continue;
		}
		for (;;) {
			memcpy(&word, p, sizeof(word));
			word ^= 0x2020202020202020ULL;
			if (word) {
				/* the bytes in memory order are the word's, low byte first */
				p += __builtin_ctzll(word) / 8;
				break;
			}
			p += sizeof(word);
		}
		if (!is_digit(*p))
			break;
		count = (uint64_t)(*p++ - '0');
		while (is_digit(*p)) {
			count = count * 10 + (uint64_t)(*p++ - '0');
			if (count > UINT32_MAX) {
				parsed->error = "count beyond 32 bits";
				return p;
			}
		}
		if (*p && *p != ' ' && *p != '\t') {
			parsed->error = "junk in a count";
			return p;
		}
		if (count) {
			column[n] = (uint16_t)i;
			value[n++] = (uint32_t)count;
		}
	}
	parsed->nr_counts = i;
	parsed->nr_cells = n;
	return p;
}

void irq_parse_line(char *line, struct irq_counts *counts, unsigned int columns,
		    struct irq_parsed_line *parsed)
{
	const char *p;
	char *end;

	memset(parsed, 0, sizeof(*parsed));
	parsed->first_cell = counts->nr_cells;
	p = parse_label(line, parsed);
	if (!p) {
		parsed->error = "no 'label:' at the start";
		return;
	}
	p = parse_counts(p, counts, columns, parsed);
	if (!parsed->error && parsed->nr_counts < columns &&
	    (parsed->numbered || parsed->nr_counts != 1))
		/* ERR and MIS (x86), Err (arm64) have one total, in column 0 */
		parsed->error = "fewer counts than CPUs";
	if (parsed->error) {
		parsed->nr_cells = 0;
		return;
	}
	counts->nr_cells += parsed->nr_cells;
	while (*p == ' ' || *p == '\t')
		p++;
	/* the tail only: the counts were the whole line before it */
	end = (char *)p + strlen(p);
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

/* after a word: where the blanks that follow it end, and how many there are */
static const char *skip_blanks(const char *p, size_t *count)
{
	const char *start = p;

	while (*p == ' ')
		p++;
	*count = (size_t)(p - start);
	return p;
}

static bool starts_word(const char *p, const char *word)
{
	size_t len = strlen(word);

	return !strncmp(p, word, len) && (p[len] == ' ' || !p[len]);
}

/*
 * Whether the tail has the kernel's layout after the chip, so that where
 * the action names start is certain: the hwirq, then the flow handler
 * glued to it ("4-edge") or the trigger field ("Level") with or without a
 * handler, then the end (no action) or two blanks or more and the names.
 * Several actions are joined with ", ", which a name may also hold:
 * /sys/kernel/irq/N/actions says those without doubt.
 */
static bool names_certain(const char *after_chip, const char **names)
{
	const char *p = after_chip;
	size_t blanks;

	p = skip_blanks(p, &blanks);
	if (!isdigit((unsigned char)*p))
		return false;
	while (isdigit((unsigned char)*p))
		p++;
	if (*p != '-') {
		const char *handler;

		p = skip_blanks(p, &blanks);
		if (starts_word(p, "Level"))
			p += 5;
		else if (starts_word(p, "Edge"))
			p += 4;
		else
			return false;
		/* the handler, if any, after the trigger's padding */
		handler = skip_blanks(p, &blanks);
		if (*handler == '-')
			p = handler;
	}
	if (*p == '-')
		p += strcspn(p, " ");
	p = skip_blanks(p, &blanks);
	if (*p && (blanks < 2 || strstr(p, ", ")))
		return false;
	*names = p;
	return true;
}

void irq_split_tail(const char *tail, struct irq_tail_words *words)
{
	size_t chip_len = strcspn(tail, " \t");
	const char *gap = NULL, *p;

	words->chip = tail;
	words->chip_len = chip_len;
	words->names_certain = *tail && names_certain(tail + chip_len, &words->names);
	if (words->names_certain)
		return;
	/* a guess, for a tail in another layout: what follows the last gap */
	for (p = tail + chip_len; *p; p++)
		if (p[0] == ' ' && p[1] == ' ')
			gap = p;
	if (gap) {
		while (*gap == ' ')
			gap++;
		if (is_padded_field(gap))
			gap = NULL;
	}
	words->names = gap ? gap : "";
}
