/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_IRQ_H
#define LATSCOPE_IRQ_H

#include <stdbool.h>
#include <stdint.h>

#include "latscope/cpuset.h"
#include "latscope/sysroot.h"

struct irq_store;

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

/* How irq_info.movable was known. */
enum irq_movable_source {
	/*
	 * The affinity file's write bits: 0444 is unmovable; a writable file
	 * counts as movable where no probe was made (a fixture tree, not
	 * root) or the probe's answer said neither (probe_error says it).
	 */
	IRQ_MOVABLE_BY_MODE,
	/* the kernel's answer to a write it cannot parse (irq_probe_verdict()) */
	IRQ_MOVABLE_BY_PROBE,
};

/* One numbered interrupt. */
struct irq_info {
	unsigned int number;
	/*
	 * Names and sets are kept by the table (irq_table_keep_text(),
	 * irq_table_keep_cpus()), IRQs with the same set share it: replace
	 * the pointer, never write through it.
	 */
	/* action names as the kernel joins them ("i8042, ehci_hcd:usb1"); "" when none */
	const char *name;
	/* interrupt chip ("IO-APIC", "PCI-MSIX-0000:00:03.0"); "" when unknown */
	const char *chip;
	/* /proc/irq/N/smp_affinity_list: where user space allows it; empty when unknown */
	const struct cpuset *affinity;
	/* /proc/irq/N/effective_affinity_list: where the chip delivers it now */
	const struct cpuset *effective;
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
	 * User space may set its affinity. Recent kernels create the file
	 * 0444 for a managed IRQ or one whose chip cannot be moved from user
	 * space, and that mode alone says unmovable (checked rather than
	 * access(2): root may write a 0444 file in a fixture tree). Older ones
	 * (Debian's 6.1) leave it 0644 and refuse the write: where the mode
	 * says writable, on the live system and as root, the kernel is asked
	 * (irq_probe_verdict()). movable_by and probe_error say how it was known.
	 */
	bool movable;
	enum irq_movable_source movable_by;
	bool probed; /* the probe was made */
	/* the errno the kernel answered it with (EINVAL, EIO...), 0 when the write was taken */
	int probe_error;
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
	const char *description; /* "Local timer interrupts"; "" when none; kept by the table */
	/* false for rows with one total only (ERR, MIS): it is in column 0 */
	bool per_cpu;
};

/*
 * Counts of one read of /proc/interrupts, only the cells that are not
 * zero, row by row. A 1024-CPU machine with 10,000 IRQs prints ten million
 * counts, nearly all zero (an IRQ fires on the few CPUs it was delivered
 * to): kept dense they were 40 MB to write and read back for each read.
 * A row holds at most CPUSET_MAX_CPUS cells, so a column and a row's size
 * fit 16 bits.
 */
struct irq_counts {
	unsigned int nr_rows;
	unsigned int nr_columns;
	/* row r: cells first[r] .. first[r] + size[r] - 1, in ascending columns */
	uint32_t *first;
	uint16_t *size;
	uint16_t *column; /* per cell */
	uint32_t *value; /* per cell, never 0 */
	size_t nr_cells, cap_cells;
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
	struct irq_store *store; /* the names and cpu sets the IRQs point to */
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
 * affinity_error or effective_error. On the live system and as root, each
 * IRQ whose smp_affinity_list has a write bit is probed (irq_probe_verdict()):
 * an open and a write of two bytes that the kernel refuses whatever the
 * IRQ; a tree is never written. Returns 0, or a negative errno code when
 * /proc/interrupts is missing or has no CPU header (logged).
 */
int irq_table_load(struct sysroot *root, struct irq_table *table);

/* Free what irq_table_load() allocated; safe on a zeroed table. */
void irq_table_release(struct irq_table *table);

/**
 * irq_table_keep_cpus - a cpu set for an IRQ of the table to point to
 * @table: the table (one built by hand, too)
 * @set: the set
 *
 * Returns a set owned by @table, valid until irq_table_release(); equal
 * sets are kept once. NULL when memory ran out. Safe from several threads.
 */
const struct cpuset *irq_table_keep_cpus(struct irq_table *table, const struct cpuset *set);

/**
 * irq_table_keep_text - a copy of a name, owned by the table
 * @table: the table
 * @text: the name
 * Returns the copy, valid until irq_table_release(), or NULL when memory ran out.
 */
const char *irq_table_keep_text(struct irq_table *table, const char *text);

/**
 * irq_table_refresh_affinity - re-read every IRQ's affinity files
 * @root: where to read
 * @table: a loaded table
 *
 * For a daemon that must notice changes made by someone else. Names,
 * devices and counts are kept; whether each IRQ is movable is decided
 * again, as irq_table_load() does. A file that cannot be read or parsed is
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

/* What the kernel's answer to the probe of an affinity file says. */
enum irq_probe_verdict {
	IRQ_PROBE_SETTABLE, /* the value was parsed: user space may set the affinity */
	IRQ_PROBE_REFUSED, /* refused before parsing: managed, or a chip that cannot move it */
	IRQ_PROBE_UNKNOWN, /* neither (no permission, read-only /proc, gone...): the mode decides */
};

/**
 * irq_probe_verdict - sort the kernel's answer to the probe
 * @error: the positive errno of writing "x\n" to /proc/irq/N/smp_affinity_list,
 *	   0 when the write was taken
 *
 * Pure. The kernel's write_irq_affinity() (kernel/irq/proc.c) asks whether
 * user space may set the IRQ's affinity before it parses the value: EIO
 * (EPERM from Linux 6.12) means it may not, EINVAL that it may and the value
 * did not parse. Neither changes anything. Any other answer, a write taken
 * included, says nothing: IRQ_PROBE_UNKNOWN.
 */
enum irq_probe_verdict irq_probe_verdict(int error);

/**
 * irq_unmovable_why - how an IRQ that is not movable was known
 * @irq: an IRQ of a loaded table whose movable is false
 *
 * Returns a static string for a reason in parentheses: "affinity file mode
 * 0444", or "the kernel refused a test write with EIO" (or EPERM).
 */
const char *irq_unmovable_why(const struct irq_info *irq);

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
 * irq_counts_init - allocate counts shaped like a table's (all zero)
 * @counts: receives the arrays; release with irq_counts_release()
 * @table: the table whose rows and columns to follow
 * Returns 0 or -ENOMEM.
 */
int irq_counts_init(struct irq_counts *counts, const struct irq_table *table);
/* Free what irq_counts_init() or irq_counts_copy() allocated; safe on zeroed counts. */
void irq_counts_release(struct irq_counts *counts);

/**
 * irq_counts_copy - make @dst the same counts as @src
 * @dst: zeroed, or counts to replace (released first)
 * @src: the counts to copy
 * Returns 0, or -ENOMEM with @dst zeroed.
 */
int irq_counts_copy(struct irq_counts *dst, const struct irq_counts *src);

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

/* one count; 0 for a cell the read did not find */
uint32_t irq_count(const struct irq_counts *counts, unsigned int row, unsigned int column);

/*
 * The cells of a row that are not zero: their number, and pointers into
 * @counts (valid until it is read again or released) to their columns and
 * values, in ascending columns.
 */
static inline unsigned int irq_counts_row(const struct irq_counts *counts, unsigned int row,
					  const uint16_t **columns, const uint32_t **values)
{
	*columns = counts->column + counts->first[row];
	*values = counts->value + counts->first[row];
	return counts->size[row];
}

/* the counts of one row summed over the columns */
uint64_t irq_counts_row_total(const struct irq_counts *counts, unsigned int row);

/**
 * irq_counts_row_change - interrupts of one row between two reads
 * @after: the later read
 * @row: the row in @after
 * @before: the earlier read, with the same columns
 * @before_row: the same IRQ's row in @before (rows move when a table is reloaded)
 *
 * Returns the sum over the columns of after - before, each taken modulo
 * 2^32 as the kernel's counters wrap.
 */
uint64_t irq_counts_row_change(const struct irq_counts *after, unsigned int row,
			       const struct irq_counts *before, unsigned int before_row);

/**
 * irq_counts_delta - what happened between two reads
 * @before: the earlier read
 * @after: the later read, same shape
 * @delta: counts of the same shape (irq_counts_init()); receives
 *	   after - before modulo 2^32 and the elapsed time in time_ns
 * Returns 0, -EINVAL when the shapes differ, or -ENOMEM.
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
 * Looks for a process whose /proc/PID/comm is "irqbalance" and that sees
 * this machine (irq_balancer_on_this_machine()): two balancers would fight
 * over the same IRQs. Returns its pid, or 0 when none runs.
 */
int irq_balancer_pid(struct sysroot *root);

/**
 * irq_balancer_on_this_machine - whether a balancer sees this machine's IRQs
 * @root: where /proc is read
 * @pid: the balancer's process
 *
 * False when the /proc/interrupts the process sees (through /proc/PID/root)
 * is not on the file system of its /proc: a simulated machine's file is bound
 * over it, as bench/irq-policies does, and what it balances is that machine.
 * True when this cannot be told (the process exited, a fixture tree).
 */
bool irq_balancer_on_this_machine(struct sysroot *root, unsigned long pid);

#endif
