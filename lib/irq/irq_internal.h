/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_IRQ_INTERNAL_H
#define LATSCOPE_IRQ_INTERNAL_H

#ifndef LATSCOPE_INSIDE_IRQ
#error "lib/irq/irq_internal.h is private to lib/irq/: outside it, use the headers of include/latscope/"
#endif

/*
 * What the files of the interrupt inventory (irq.h) share inside the
 * library: the /proc/interrupts parser (irq_interrupts.c), each IRQ's own
 * files (irq_files.c) and the device mapping (irq_device.c). Not for use
 * outside lib/irq/.
 */
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/types.h>

#include "latscope/cpuset.h"
#include "latscope/irq.h"
#include "latscope/sysroot.h"

#define IRQ_INTERRUPTS "/proc/interrupts"

/* "" on the live system, the root's directory on a tree: for messages */
const char *irq_root_prefix(struct sysroot *root);

/* a decimal number and nothing else ("1234", a /proc or msi_irqs entry) */
static inline bool irq_parse_number(const char *text, unsigned long *value)
{
	char *end;

	if (!isdigit((unsigned char)*text))
		return false;
	errno = 0;
	*value = strtoul(text, &end, 10);
	return !errno && !*end;
}

/* --- /proc/interrupts, a line at a time (irq_interrupts.c) --- */

/* A 1024-CPU machine prints ~100 MB: read in chunks, never held whole. */
struct irq_line_reader {
	int fd;
	char *buf;
	size_t size; /* bytes of buf usable for text; READ_SLACK (irq_interrupts.c) more follow */
	size_t start, end;
	bool eof;
	unsigned int line_number;
	unsigned long long total; /* bytes read: no file is read past SYSROOT_READ_MAX */
};

int irq_reader_open(struct irq_line_reader *reader, struct sysroot *root);
void irq_reader_close(struct irq_line_reader *reader);
/* Next line, NUL-terminated in place. Returns 1, 0 at the end, or -errno. */
int irq_reader_next(struct irq_line_reader *reader, char **line);

/*
 * The header: "           CPU0       CPU1       CPU3" (online CPUs only).
 * Returns 0 with the columns' CPUs in an array the caller frees, -EINVAL
 * when malformed or -ENOMEM.
 */
int irq_parse_header(const char *line, unsigned int **column_cpu, unsigned int *nr_columns);

/* What one line of /proc/interrupts says. */
struct irq_parsed_line {
	bool numbered;
	unsigned int number;
	char vector[IRQ_VECTOR_NAME_SIZE];
	unsigned int nr_counts; /* counts read, zeros included */
	/* the counts that are not zero: cells first_cell .. + nr_cells - 1 of the counts */
	size_t first_cell;
	unsigned int nr_cells;
	const char *tail; /* text after the counts, trimmed */
	const char *error; /* why the line is malformed, NULL when fine */
};

/* Room for @more cells after the last one of @counts: 0 or -ENOMEM. */
int irq_counts_reserve(struct irq_counts *counts, size_t more);

/*
 * Parse one line in a single pass. Its counts that are not zero are
 * appended to @counts as cells (the caller reserved room for @columns);
 * when the line is malformed parsed->error says why and nothing is
 * appended. The line is NUL-terminated and 16 readable bytes follow its
 * end: blanks are skipped a word at a time.
 */
void irq_parse_line(char *line, struct irq_counts *counts, unsigned int columns,
		    struct irq_parsed_line *parsed);

/* What a line's tail says: the chip (its first word) and the action names. */
struct irq_tail_words {
	const char *chip; /* chip_len bytes of the tail */
	size_t chip_len;
	const char *names; /* to the end of the tail */
	/*
	 * The tail has the kernel's layout and one action (or none): the
	 * names are what /sys/kernel/irq/N/actions says. False: a guess.
	 */
	bool names_certain;
};

/* Split a line's tail (trimmed, as irq_parse_line() leaves it) into its words, in place. */
void irq_split_tail(const char *tail, struct irq_tail_words *words);

/* --- what a table keeps for its IRQs (irq_store.c) --- */

struct irq_store *irq_store_new(void);
void irq_store_free(struct irq_store *store);
/* the kept copy of @set, one per distinct set; NULL when out of memory; thread safe */
const struct cpuset *irq_store_cpus(struct irq_store *store, const struct cpuset *set);
/* the kept empty set */
const struct cpuset *irq_store_empty(const struct irq_store *store);
/* a kept copy of @len bytes of @text and a NUL; NULL when out of memory; thread safe */
const char *irq_store_text(struct irq_store *store, const char *text, size_t len);

/* --- each IRQ's own files (irq_files.c) --- */

/*
 * Per-IRQ files are opened relative to /proc/irq and /sys/kernel/irq, both
 * opened through the root: 10,000 IRQs mean 40,000 opens, and the shorter
 * path walk and one fstat(2) on the open file instead of a stat(2) by name
 * cut the time they take by half.
 */
struct irq_files {
	struct sysroot *root;
	struct irq_store *store; /* where the sets read are kept */
	int proc_irq; /* -1 when missing */
	int proc_irq_error; /* why, a negative errno code; 0 when open */
	int sys_irq; /* -1 without CONFIG_SPARSE_IRQ */
	/* ask the kernel whether a writable affinity file can be set: live system, root */
	bool probe;
	char *text; /* LIST_TEXT_SIZE bytes */
	/*
	 * Most IRQs share an affinity ("0-1023"), and many an effective CPU:
	 * the last list of each file is remembered with its kept set.
	 */
	/* this thread's io_uring (irq_ring.c), made at its first chunk; NULL: none */
	struct irq_ring *ring;
	bool ring_tried;
	struct irq_list_seen {
		char text[64];
		const struct cpuset *set; /* NULL: none yet */
	} last[2]; /* smp_affinity_list, effective_affinity_list */
	unsigned int nr_noted; /* affinity file problems met, the first ones logged */
};

/* problems of affinity files logged by one read of the table; the rest are counted */
#define IRQ_FILES_NOTED_MAX 8

int irq_files_open(struct irq_files *files, struct sysroot *root, struct irq_store *store);
void irq_files_close(struct irq_files *files);
/* --- the affinity files of many IRQs through io_uring (irq_ring.c) --- */

/* IRQs read in one batch */
#define IRQ_RING_IRQS 32

/* What one file gave. */
struct irq_ring_file {
	/* the text's length, or a negative errno code as read_at() says it; -EOVERFLOW: too long */
	int ret;
	mode_t mode; /* of a regular file */
	const char *text; /* trailing newlines cut; in the ring, until its next batch */
};

struct irq_ring;
/* A ring reading under the directory @proc_irq (not owned); NULL where io_uring cannot be used. */
struct irq_ring *irq_ring_new(int proc_irq);
void irq_ring_free(struct irq_ring *ring);
/*
 * Both affinity files of @nr IRQs (at most IRQ_RING_IRQS): out[2 * i] is
 * smp_affinity_list of numbers[i], out[2 * i + 1] its effective_affinity_list.
 * Returns 0, or a negative errno code when the ring failed: the files are
 * then to be read another way, and the ring freed.
 */
int irq_ring_read(struct irq_ring *ring, const unsigned int *numbers, unsigned int nr,
		  struct irq_ring_file *out);

/* What one IRQ's affinity files say. */
struct irq_affinity {
	unsigned int number; /* the IRQ: filled by the caller */
	const struct cpuset *affinity, *effective; /* kept by the files' store */
	int affinity_error, effective_error; /* as in irq_info */
	bool movable;
	enum irq_movable_source movable_by; /* as in irq_info */
	bool probed;
	int probe_error;
};

/* Read one IRQ's files on this thread, a system call at a time; nothing is logged. */
void irq_affinity_read(struct irq_files *files, struct irq_affinity *item);
/*
 * The same for @nr IRQs (at most IRQ_RING_IRQS) through this thread's
 * io_uring, made at the first call, or one at a time where there is none.
 */
void irq_affinity_read_chunk(struct irq_files *files, struct irq_affinity *items, unsigned int nr);

/*
 * Read the files of @nr IRQs (their numbers in @items) on a few threads,
 * started now: the caller may do other work, then irq_reading_finish()
 * reads what is left on its thread too and waits for the others. @files
 * and @items must stay until then. NULL when out of memory.
 */
struct irq_reading;
struct irq_reading *irq_reading_start(struct irq_files *files, struct irq_affinity *items,
				      unsigned int nr);
void irq_reading_finish(struct irq_reading *reading);

/* Log what an IRQ's files did not say, when it differs from the last read's errors. */
void irq_affinity_note(struct irq_files *files, unsigned int number, int was_affinity,
		       int was_effective, const struct irq_affinity *item);
/* Put what the files said into the IRQ. */
void irq_affinity_apply(struct irq_info *irq, const struct irq_affinity *item);

/* /sys/kernel/irq/N/@file into files->text: its length, or a negative errno code */
int irq_files_read_sysfs(struct irq_files *files, unsigned int number, const char *file);

/* --- devices (irq_device.c) --- */

/* The PCI device, class and node of every IRQ a device claims; 0 or -ENOMEM. */
int irq_map_pci_devices(struct sysroot *root, struct irq_table *table);

#endif
