/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_IRQ_H
#define LATSCOPE_IRQ_H

#include <stdbool.h>
#include <stdint.h>

#include "latscope/cpuset.h"
#include "latscope/sysroot.h"

/*
 * The interrupt inventory: what /proc/interrupts, /proc/irq/N/,
 * /sys/kernel/irq/N/ and /sys/bus/pci/devices say about every interrupt.
 *
 * A table has one row per numbered IRQ (rows 0 .. nr_irqs - 1, ascending
 * IRQ number) followed by one row per system vector (LOC, RES, CAL, TLB on
 * x86, IPI0.. on arm64). Counts are kept per row and per column, a column
 * being one CPU that was online when the table was loaded: /proc/interrupts
 * has no column for an offline CPU.
 *
 * The kernel's counters are 32-bit (unsigned int) and wrap; deltas are taken
 * modulo 2^32, so a wrap between two reads is harmless.
 */

/* A longer vector label than "PIW" or "IPI12" is not a vector we know. */
#define IRQ_VECTOR_NAME_SIZE 16
/* "0000:00:1f.2"; VMD domains have more digits */
#define IRQ_DEVICE_SIZE 32

/* One numbered interrupt. */
struct irq_info {
	unsigned int number;
	/* action names as the kernel joins them ("i8042, ehci_hcd:usb1"); "" when none */
	char *name;
	/* interrupt chip ("IO-APIC", "PCI-MSIX-0000:00:03.0"); "" when unknown */
	char *chip;
	/* /proc/irq/N/smp_affinity_list: where user space allows it */
	struct cpuset affinity;
	/* /proc/irq/N/effective_affinity_list: where the chip delivers it now */
	struct cpuset effective;
	bool has_affinity; /* false: no /proc/irq/N (gone) or unreadable */
	bool has_effective; /* false: not exported, or unreadable */
	/*
	 * Why has_affinity or has_effective is false: -ENOENT when the file is
	 * absent (the IRQ is gone; the kernel does not export the effective
	 * affinity), else the file is there but says nothing usable: -EINVAL
	 * not a cpu list, -ERANGE a CPU beyond CPUSET_MAX_CPUS, -ENODATA an
	 * empty smp_affinity_list, -ENOTDIR when /proc/irq itself cannot be
	 * read, or the read's own error. 0 when read.
	 */
	int affinity_error;
	int effective_error;
	/*
	 * It has a line in /proc/interrupts. An IRQ found only as /proc/irq/N/
	 * (a line skipped as malformed, a damaged or truncated file) is read
	 * from its own files: its counts are unknown (zero in the table), and
	 * its name is "" when /sys/kernel/irq/N/actions cannot say it either.
	 */
	bool listed;
	/*
	 * The affinity file has a write bit. The kernel creates it 0444 for a
	 * managed IRQ or one whose chip cannot be moved from user space; the
	 * mode is checked rather than access(2) because root may write a 0444
	 * file in a fixture tree.
	 */
	bool movable;
	/* PCI address of the owning device, "" when no PCI device claims it */
	char device[IRQ_DEVICE_SIZE];
	/* the device's PCI class code (0x020000 = ethernet), 0 without device */
	uint32_t device_class;
	/* the device's numa_node (not /proc/irq/N/node), -1 when unknown */
	int node;
};

/* One per-CPU system vector row of /proc/interrupts. */
struct irq_vector {
	char name[IRQ_VECTOR_NAME_SIZE]; /* "LOC" */
	char *description; /* "Local timer interrupts"; "" when none */
	/* false for rows with one total only (ERR, MIS): it is in column 0 */
	bool per_cpu;
};

/* Counts of one read of /proc/interrupts. */
struct irq_counts {
	unsigned int nr_rows;
	unsigned int nr_columns;
	uint32_t *values; /* nr_rows * nr_columns, row after row */
	uint64_t time_ns; /* CLOCK_MONOTONIC at the read */
};

struct irq_table {
	unsigned int nr_columns;
	unsigned int *column_cpu; /* the CPU of each column */
	unsigned int nr_irqs;
	struct irq_info *irqs; /* ascending number; row i is irqs[i] */
	unsigned int nr_vectors;
	struct irq_vector *vectors; /* row nr_irqs + i is vectors[i] */
	struct irq_counts counts; /* as read by irq_table_load() */
	unsigned int skipped_lines; /* malformed /proc/interrupts lines, each logged */
	unsigned int nr_unlisted; /* IRQs found in /proc/irq/ only (listed false) */
};

/**
 * irq_table_load - read the whole interrupt inventory
 * @root: where to read
 * @table: receives the table; the caller releases it with irq_table_release()
 *
 * Parses /proc/interrupts in one pass (a malformed line is logged and
 * skipped), adds every /proc/irq/N/ the file does not list unless
 * /sys/kernel/irq/N/actions says it has no handler (the kernel leaves
 * those out), then reads each IRQ's affinity files, chip and action names
 * and maps IRQs to PCI devices through msi_irqs/ and irq. An IRQ whose
 * /proc/irq/N vanished meanwhile stays in the table with has_affinity
 * false and affinity_error -ENOENT; an affinity file that cannot be read
 * or parsed is logged once, with its path and the reason, and recorded in
 * affinity_error or effective_error. Returns 0, or a negative errno code
 * when /proc/interrupts is missing or has no CPU header (logged).
 */
int irq_table_load(struct sysroot *root, struct irq_table *table);

/* Free what irq_table_load() allocated; safe on a zeroed table. */
void irq_table_release(struct irq_table *table);

/**
 * irq_table_refresh_affinity - re-read every IRQ's affinity files
 * @root: where to read
 * @table: a loaded table
 *
 * For a daemon that must notice changes made by someone else. Names,
 * devices and counts are kept. A file that cannot be read or parsed is
 * logged when its error is new, not at every refresh. Returns 0 or a
 * negative errno code.
 */
int irq_table_refresh_affinity(struct sysroot *root, struct irq_table *table);

/**
 * irq_table_find - the IRQ with a number
 * Returns a pointer into @table (valid until it is released), or NULL.
 */
struct irq_info *irq_table_find(const struct irq_table *table, unsigned int number);

/* the row of a vector ("LOC"), or -1 */
int irq_table_find_vector(const struct irq_table *table, const char *name);

/* number of rows: nr_irqs + nr_vectors */
static inline unsigned int irq_table_rows(const struct irq_table *table)
{
	return table->nr_irqs + table->nr_vectors;
}

/**
 * irq_affinity_unreadable - whether an IRQ's affinity files fail to say where it may fire
 * @irq: an IRQ of a loaded table
 *
 * True when smp_affinity_list or effective_affinity_list is there but could
 * not be read or parsed (an absent file is not: the IRQ is gone, or the
 * kernel does not export the effective affinity). A verdict about where the
 * IRQ fires cannot be reached for it.
 */
bool irq_affinity_unreadable(const struct irq_info *irq);

/**
 * irq_file_error_text - an affinity file's error in words
 * @err: affinity_error or effective_error of an IRQ
 *
 * Returns a static string: "not a cpu list", "a cpu number beyond 8191",
 * "empty", "absent", "its directory cannot be read", or strerror()'s text.
 */
const char *irq_file_error_text(int err);

/**
 * irq_delivery_cpus - the CPUs an IRQ is delivered to now
 * Returns &irq->effective when the kernel exports it and it is not empty,
 * else &irq->affinity (a pointer into @irq).
 */
const struct cpuset *irq_delivery_cpus(const struct irq_info *irq);

/**
 * irq_device_class_name - a word for a PCI class code
 * Returns a static string: "storage", "ethernet", "network", "display",
 * "multimedia", "bridge", "usb", "serial-bus", "system", "other", or "" for 0.
 */
const char *irq_device_class_name(uint32_t class_code);

/**
 * irq_counts_init - allocate counts shaped like a table's (zeroed)
 * @counts: receives the arrays; release with irq_counts_release()
 * @table: the table whose rows and columns to follow
 * Returns 0 or -ENOMEM.
 */
int irq_counts_init(struct irq_counts *counts, const struct irq_table *table);
void irq_counts_release(struct irq_counts *counts);

/**
 * irq_counts_read - re-read only the counts (cheap sampling)
 * @root: where to read
 * @table: the table the rows follow
 * @counts: counts from irq_counts_init() for this table; overwritten
 *
 * Returns 0; -ESTALE when the IRQs or the online CPUs changed since the
 * table was loaded (reload the table); or another negative errno code.
 * Cost: one parse of /proc/interrupts, no other file.
 */
int irq_counts_read(struct sysroot *root, const struct irq_table *table, struct irq_counts *counts);

static inline uint32_t irq_count(const struct irq_counts *counts, unsigned int row,
				 unsigned int column)
{
	return counts->values[(size_t)row * counts->nr_columns + column];
}

/* the counts of one row summed over the columns */
uint64_t irq_counts_row_total(const struct irq_counts *counts, unsigned int row);

/**
 * irq_counts_delta - what happened between two reads
 * @before: the earlier read
 * @after: the later read, same shape
 * @delta: counts of the same shape (irq_counts_init()); receives
 *	   after - before modulo 2^32 and the elapsed time in time_ns
 * Returns 0, or -EINVAL when the shapes differ.
 */
int irq_counts_delta(const struct irq_counts *before, const struct irq_counts *after,
		     struct irq_counts *delta);

/**
 * irq_rates - interrupts per second of every numbered IRQ
 * @table: the table
 * @before: an earlier read, or NULL to use the counts since boot of @after
 *	    as weights (a fixture with a single snapshot)
 * @after: the later read
 * @rates: receives nr_irqs values, per second (or counts when @before is NULL)
 */
void irq_rates(const struct irq_table *table, const struct irq_counts *before,
	       const struct irq_counts *after, double *rates);

/**
 * irq_read_default_affinity - read /proc/irq/default_smp_affinity
 * @root: where to read
 * @set: receives the CPUs new IRQs get
 * Returns 0 or a negative errno code.
 */
int irq_read_default_affinity(struct sysroot *root, struct cpuset *set);

/**
 * irq_balancer_pid - find a running irqbalance
 * @root: where /proc is read
 *
 * Looks for a process whose /proc/PID/comm is "irqbalance": two balancers
 * would fight over the same IRQs. Returns its pid, or 0 when none runs.
 */
int irq_balancer_pid(struct sysroot *root);

#endif
