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
 * Slack after the text: blanks are skipped 8 bytes at a time, and a load
 * may look up to 7 bytes past the NUL that ends the last line.
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

/*
 * The hot loop: up to @columns decimal counts separated by blanks, no
 * sscanf. A value beyond 32 bits cannot come from the kernel and makes the
 * line malformed.
 */
static const char *parse_counts(const char *p, uint32_t *row, unsigned int columns,
				struct irq_parsed_line *parsed)
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

void irq_parse_line(char *line, uint32_t *row, unsigned int columns, struct irq_parsed_line *parsed)
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

void irq_split_tail(const char *tail, char **chip, char **name)
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
