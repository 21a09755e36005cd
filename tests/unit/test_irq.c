// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <stdint.h>

#include "latscope/irq.h"
#include "latscope/log.h"
#include "irq_fixture.h"

static const char *list(const struct cpuset *set)
{
	static char buf[4][128];
	static int next;

	next = (next + 1) % 4;
	return cpuset_format_list(set, buf[next], sizeof(buf[next]));
}

static void load_copy(struct fixture_copy *copy, const char *fixture, struct sysroot **root,
		      struct irq_table *table)
{
	fixture_copy(copy, fixture);
	*root = sysroot_new(copy->dir);
	ck_assert_ptr_nonnull(*root);
	ck_assert_int_eq(irq_table_load(*root, table), 0);
}

static void unload(struct fixture_copy *copy, struct sysroot *root, struct irq_table *table)
{
	irq_table_release(table);
	sysroot_free(root);
	fixture_remove(copy);
}

/* every cell of two reads, zeros included, the same */
static void assert_same_counts(const struct irq_counts *a, const struct irq_counts *b)
{
	unsigned int row, column;

	ck_assert_uint_eq(a->nr_rows, b->nr_rows);
	ck_assert_uint_eq(a->nr_columns, b->nr_columns);
	for (row = 0; row < a->nr_rows; row++)
		for (column = 0; column < a->nr_columns; column++)
			ck_assert_uint_eq(irq_count(a, row, column), irq_count(b, row, column));
}

/* change a count the read found (not 0) */
static void set_count(struct irq_counts *counts, unsigned int row, unsigned int column,
		      uint32_t value)
{
	unsigned int i;

	for (i = 0; i < counts->size[row]; i++)
		if (counts->column[counts->first[row] + i] == column) {
			counts->value[counts->first[row] + i] = value;
			return;
		}
	ck_abort_msg("no cell at row %u column %u", row, column);
}

START_TEST(two_nodes_inventory)
{
	struct fixture_copy copy;
	struct irq_table table;
	struct sysroot *root;
	struct irq_info *irq;
	int row;

	load_copy(&copy, FIXTURE("irq-numa2"), &root, &table);
	ck_assert_uint_eq(table.nr_columns, 16);
	ck_assert_uint_eq(table.column_cpu[15], 15);
	ck_assert_uint_eq(table.nr_irqs, 32);
	ck_assert_uint_eq(table.nr_vectors, 19);
	ck_assert_uint_eq(table.skipped_lines, 0);

	irq = irq_table_find(&table, 43);
	ck_assert_ptr_nonnull(irq);
	ck_assert_str_eq(irq->name, "eth0-TxRx-2");
	ck_assert_str_eq(irq->chip, "PCI-MSIX-0000:3b:00.0");
	ck_assert_str_eq(list(irq->affinity), "0-15");
	ck_assert_str_eq(list(irq->effective), "5");
	ck_assert(irq->movable && irq->has_affinity && irq->has_effective);
	ck_assert_str_eq(irq->device, "0000:3b:00.0");
	ck_assert_uint_eq(irq->device_class, 0x020000);
	ck_assert_str_eq(irq_device_class_name(irq->device_class), "ethernet");
	ck_assert_int_eq(irq->node, 0);
	ck_assert_uint_eq(irq_counts_row_total(&table.counts, (unsigned int)(irq - table.irqs)),
			  2274000);
	ck_assert_uint_eq(irq_count(&table.counts, (unsigned int)(irq - table.irqs), 5), 2274000);

	/* managed: the affinity file is 0444, the affinity is the kernel's spread */
	irq = irq_table_find(&table, 62);
	ck_assert(!irq->movable);
	ck_assert_str_eq(list(irq->affinity), "4-7");
	ck_assert_int_eq(irq->node, 1);
	ck_assert_str_eq(irq_device_class_name(irq->device_class), "storage");

	/* a shared legacy line: the lowest address claims it */
	irq = irq_table_find(&table, 16);
	ck_assert_str_eq(irq->device, "0000:00:1d.0");
	ck_assert_str_eq(irq->name, "ehci_hcd:usb1,i801_smbus");
	/* the legacy line of an MSI-X device does not take over IRQ 11 */
	ck_assert_ptr_null(irq_table_find(&table, 11));
	/* no device: no node */
	irq = irq_table_find(&table, 0);
	ck_assert_str_eq(irq->device, "");
	ck_assert_int_eq(irq->node, -1);
	ck_assert_str_eq(irq->name, "timer");
	/* a device without NUMA information */
	ck_assert_int_eq(irq_table_find(&table, 80)->node, -1);
	ck_assert_ptr_null(irq_table_find(&table, 2));

	row = irq_table_find_vector(&table, "LOC");
	ck_assert_int_eq(row, 32 + 1);
	ck_assert(table.vectors[1].per_cpu);
	ck_assert_str_eq(table.vectors[1].description, "Local timer interrupts");
	ck_assert_uint_eq(irq_count(&table.counts, (unsigned int)row, 0), 250899);
	row = irq_table_find_vector(&table, "ERR");
	ck_assert(!table.vectors[row - 32].per_cpu);
	ck_assert_int_eq(irq_table_find_vector(&table, "XYZ"), -1);
	unload(&copy, root, &table);
}
END_TEST

START_TEST(offline_cpu_malformed_lines_and_no_sysfs)
{
	struct fixture_copy copy;
	struct irq_table table;
	struct sysroot *root;
	struct irq_info *irq;

	load_copy(&copy, FIXTURE("irq-small"), &root, &table);
	/* CPU 2 is offline: /proc/interrupts has no column for it */
	ck_assert_uint_eq(table.nr_columns, 3);
	ck_assert_uint_eq(table.column_cpu[2], 3);
	/* four malformed lines, each skipped */
	ck_assert_uint_eq(table.skipped_lines, 4);
	ck_assert_uint_eq(table.nr_irqs, 6);
	ck_assert_ptr_null(irq_table_find(&table, 30));
	ck_assert_ptr_null(irq_table_find(&table, 31));
	ck_assert_ptr_null(irq_table_find(&table, 32));

	/* no /sys/kernel/irq: chip and actions from the line itself */
	irq = irq_table_find(&table, 11);
	ck_assert_str_eq(irq->name, "uhci_hcd:usb1, snd_hda_intel");
	ck_assert_str_eq(irq->chip, "IO-APIC");
	ck_assert_str_eq(irq->device, "0000:00:1a.0");
	irq = irq_table_find(&table, 25);
	ck_assert_str_eq(irq->name, "ahci[0000:00:1f.2]");
	ck_assert_str_eq(irq->chip, "PCI-MSI-0000:00:1f.2");
	ck_assert_uint_eq(irq_count(&table.counts, (unsigned int)(irq - table.irqs), 2), 9000);
	ck_assert_int_eq(irq->node, -1);

	/* /proc/irq/27 is gone: listed, but neither readable nor movable */
	irq = irq_table_find(&table, 27);
	ck_assert_ptr_nonnull(irq);
	ck_assert(!irq->has_affinity && !irq->movable);
	ck_assert_str_eq(irq->name, "snd_hda_intel:card0");
	ck_assert_str_eq(irq_device_class_name(irq->device_class), "multimedia");
	unload(&copy, root, &table);
}
END_TEST

START_TEST(counts_reread_and_change_detection)
{
	struct fixture_copy copy;
	struct irq_table table;
	struct irq_counts counts, delta;
	struct sysroot *root;
	double rates[16];

	load_copy(&copy, FIXTURE("irq-small"), &root, &table);
	ck_assert_int_eq(irq_counts_init(&counts, &table), 0);
	ck_assert_int_eq(irq_counts_read(root, &table, &counts), 0);
	assert_same_counts(&counts, &table.counts);

	/* new counts, same IRQs: a counter wrapped too */
	fixture_put(&copy, "proc/interrupts",
		    "           CPU0       CPU1       CPU3\n"
		    "   1:         20          2          1  IO-APIC 1-edge  i8042\n"
		    "   4:          0          0        710  IO-APIC 4-edge  ttyS0\n"
		    "  11:          5       3300          0  IO-APIC 11-fasteoi uhci\n"
		    "  25:        200          0       9000  PCI-MSI 0-edge  ahci\n"
		    "  26:          0          4          0  PCI-MSI 0-edge  enp0s25\n"
		    "  27:         77          0          0  PCI-MSI 0-edge  snd\n"
		    " NMI:          3          3          3   Non-maskable interrupts\n"
		    " LOC:     269790     265533     270503   Local timer interrupts\n"
		    " SPU:          0          0          0   Spurious interrupts\n"
		    " PMI:          0          0          0   Performance monitoring interrupts\n"
		    " IWI:          0          0          0   IRQ work interrupts\n"
		    " RTR:          0          0          0   APIC ICR read retries\n"
		    " RES:       4297       4033       4310   Rescheduling interrupts\n"
		    " CAL:       9013       9857       9480   Function call interrupts\n"
		    " TLB:       1566       1641       1559   TLB shootdowns\n"
		    " TRM:          0          0          0   Thermal event interrupts\n");
	set_count(&table.counts, 4, 1, 4294967290U); /* IRQ 26 on CPU 1 */
	ck_assert_int_eq(irq_counts_read(root, &table, &counts), 0);
	ck_assert_int_eq(irq_counts_init(&delta, &table), 0);
	ck_assert_int_eq(irq_counts_delta(&table.counts, &counts, &delta), 0);
	ck_assert_uint_eq(irq_count(&delta, 0, 0), 10);
	ck_assert_uint_eq(irq_count(&delta, 1, 2), 10);
	ck_assert_uint_eq(irq_count(&delta, 4, 1), 10);
	ck_assert_uint_eq(irq_count(&delta, 7, 0), 1);
	ck_assert_uint_eq(irq_counts_row_total(&delta, 2), 0);

	table.counts.time_ns = 1000000000ULL;
	counts.time_ns = 3000000000ULL;
	irq_rates(&table, &table.counts, &counts, rates);
	ck_assert_double_eq_tol(rates[0], 5.0, 1e-9);
	ck_assert_double_eq_tol(rates[4], 5.0, 1e-9);
	irq_rates(&table, NULL, &counts, rates);
	ck_assert_double_eq_tol(rates[1], 710.0, 1e-9);

	/* a vanished IRQ: the table must be reloaded */
	fixture_put(&copy, "proc/interrupts",
		    "           CPU0       CPU1       CPU3\n"
		    "   1:         20          2          1  IO-APIC 1-edge  i8042\n"
		    " LOC:     269790     265533     270503   Local timer interrupts\n");
	ck_assert_int_eq(irq_counts_read(root, &table, &counts), -ESTALE);
	/* a CPU came online */
	fixture_put(&copy, "proc/interrupts",
		    "           CPU0       CPU1       CPU2       CPU3\n"
		    "   1:         20          2          0          1  IO-APIC 1-edge  i8042\n");
	ck_assert_int_eq(irq_counts_read(root, &table, &counts), -ESTALE);
	/* a new IRQ */
	fixture_put(&copy, "proc/interrupts",
		    "           CPU0       CPU1       CPU3\n"
		    "  99:         20          2          1  IO-APIC 1-edge  new\n");
	ck_assert_int_eq(irq_counts_read(root, &table, &counts), -ESTALE);
	irq_counts_release(&delta);
	irq_counts_release(&counts);
	unload(&copy, root, &table);
}
END_TEST

START_TEST(unsorted_repeated_and_huge_lines)
{
	struct fixture_copy copy;
	struct irq_table table;
	struct irq_counts counts;
	struct sysroot *root;
	char path[512];
	FILE *f;
	int i;

	fixture_copy(&copy, FIXTURE("irq-small"));
	snprintf(path, sizeof(path), "%s/proc/interrupts", copy.dir);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs("           CPU0       CPU1       CPU3\n"
	      "  26:          1          2          3  PCI-MSI 0-edge  enp0s25\n"
	      "   4:          4          5          6  IO-APIC 4-edge  ttyS0\n"
	      " LOC:          7          8          9   Local timer interrupts\n"
	      "  26:         10         11         12  PCI-MSI 0-edge  again\n"
	      /* no action: only padded fields after the chip */
	      "   9:          0          0          0   IO-APIC   9-fasteoi   \n"
	      /* arm64 style, with the level field */
	      "  11:          0          0          0     GICv3  27 Level     arch_timer\n"
	      "   1:",
	      f);
	/* a line longer than the 1 MiB read buffer */
	for (i = 0; i < 1536 * 1024; i++)
		fputc(' ', f);
	fputs("13 14 15  IO-APIC 1-edge  i8042", f); /* and no final newline */
	ck_assert_int_eq(fclose(f), 0);

	root = sysroot_new(copy.dir);
	ck_assert_int_eq(irq_table_load(root, &table), 0);
	/* 25 has no line but a /proc/irq/25/: sorted in among the others */
	ck_assert_uint_eq(table.nr_irqs, 6);
	ck_assert_uint_eq(table.nr_unlisted, 1);
	ck_assert_uint_eq(table.skipped_lines, 1);
	ck_assert_uint_eq(table.irqs[0].number, 1);
	ck_assert_uint_eq(table.irqs[1].number, 4);
	ck_assert_uint_eq(table.irqs[4].number, 25);
	ck_assert(!table.irqs[4].listed && table.irqs[4].has_affinity);
	ck_assert_uint_eq(table.irqs[5].number, 26);
	ck_assert(table.irqs[5].listed);
	ck_assert_uint_eq(irq_count(&table.counts, 0, 2), 15);
	ck_assert_uint_eq(irq_count(&table.counts, 1, 0), 4);
	ck_assert_uint_eq(irq_counts_row_total(&table.counts, 4), 0);
	ck_assert_uint_eq(irq_count(&table.counts, 5, 0), 1);
	ck_assert_uint_eq(irq_count(&table.counts, 6, 1), 8);
	ck_assert_str_eq(table.irqs[0].name, "i8042");
	ck_assert_str_eq(table.irqs[2].name, "");
	ck_assert_str_eq(table.irqs[2].chip, "IO-APIC");
	ck_assert_str_eq(table.irqs[3].name, "arch_timer");
	ck_assert_str_eq(table.irqs[3].chip, "GICv3");
	/* the same file read again for counts: rows land where they belong */
	ck_assert_int_eq(irq_counts_init(&counts, &table), 0);
	ck_assert_int_eq(irq_counts_read(root, &table, &counts), 0);
	ck_assert_uint_eq(counts.nr_rows, 7);
	assert_same_counts(&counts, &table.counts);
	irq_counts_release(&counts);
	unload(&copy, root, &table);
}
END_TEST

START_TEST(missing_or_headless_file)
{
	struct fixture_copy copy;
	struct irq_table table;
	struct sysroot *root;
	struct cpuset set;

	root = sysroot_new(FIXTURE("does-not-exist"));
	ck_assert_int_eq(irq_table_load(root, &table), -ENOENT);
	sysroot_free(root);

	fixture_copy(&copy, FIXTURE("irq-small"));
	root = sysroot_new(copy.dir);
	fixture_put(&copy, "proc/interrupts", "");
	ck_assert_int_eq(irq_table_load(root, &table), -EINVAL);
	fixture_put(&copy, "proc/interrupts", "   1:   2   3  IO-APIC  i8042\n");
	ck_assert_int_eq(irq_table_load(root, &table), -EINVAL);
	fixture_put(&copy, "proc/interrupts", "           CPU0       CPU0\n");
	ck_assert_int_eq(irq_table_load(root, &table), -EINVAL);
	/*
	 * A header and nothing else, while /proc/irq holds IRQs: they are
	 * still inventoried, from their own files. Without /sys/kernel/irq
	 * nothing says whether they have a handler: no name.
	 */
	fixture_put(&copy, "proc/interrupts", "           CPU0       CPU1       CPU3\n");
	ck_assert_int_eq(irq_table_load(root, &table), 0);
	ck_assert_uint_eq(table.nr_irqs, 5);
	ck_assert_uint_eq(table.nr_unlisted, 5);
	ck_assert_uint_eq(table.irqs[0].number, 1);
	ck_assert_uint_eq(table.irqs[4].number, 26);
	ck_assert(!table.irqs[4].listed && table.irqs[4].has_affinity);
	ck_assert_str_eq(table.irqs[4].name, "");
	ck_assert_str_eq(list(table.irqs[4].affinity), "0-1,3");
	irq_table_release(&table);

	ck_assert_int_eq(irq_read_default_affinity(root, &set), 0);
	ck_assert_str_eq(list(&set), "0-3");
	fixture_put(&copy, "proc/irq/default_smp_affinity", "zz\n");
	ck_assert_int_eq(irq_read_default_affinity(root, &set), -EINVAL);
	sysroot_free(root);
	fixture_remove(&copy);
}
END_TEST

static char logged[8][512];
static unsigned int nr_logged;

static void capture_log(enum log_level level, const char *message)
{
	if (level <= LATSCOPE_LOG_WARNING && nr_logged < 8)
		snprintf(logged[nr_logged++], sizeof(logged[0]), "%s", message);
}

/* What replaces /proc/interrupts in a --root tree, and the one line it earns. */
static void expect_refused(struct fixture_copy *copy, struct sysroot *root, int error,
			   const char *reason)
{
	struct irq_table table;
	char want[512];

	nr_logged = 0;
	ck_assert_int_eq(irq_table_load(root, &table), error);
	snprintf(want, sizeof(want), "cannot read %s/proc/interrupts: %s", copy->dir, reason);
	ck_assert_uint_eq(nr_logged, 1);
	ck_assert_str_eq(logged[0], want);
}

START_TEST(unreadable_interrupts_said_once)
{
	struct fixture_copy copy;
	struct sysroot *root;
	char path[512];

	fixture_copy(&copy, FIXTURE("irq-small"));
	root = sysroot_new(copy.dir);
	log_set_hook(capture_log);
	snprintf(path, sizeof(path), "%s/proc/interrupts", copy.dir);

	/* a directory opens; the first read fails with EISDIR */
	ck_assert_int_eq(unlink(path), 0);
	ck_assert_int_eq(mkdir(path, 0700), 0);
	expect_refused(&copy, root, -EISDIR, strerror(EISDIR));
	ck_assert_int_eq(rmdir(path), 0);
	/* a FIFO would block for ever, /dev/zero would be read for ever */
	ck_assert_int_eq(mkfifo(path, 0600), 0);
	expect_refused(&copy, root, -SYSROOT_ENOTREG, "not a regular file");
	ck_assert_int_eq(unlink(path), 0);
	ck_assert_int_eq(symlink("/dev/zero", path), 0);
	expect_refused(&copy, root, -SYSROOT_ENOTREG, "not a regular file");
	ck_assert_int_eq(unlink(path), 0);
	/* the per-IRQ files too: a FIFO affinity is no affinity, and no hang */
	fixture_put(&copy, "proc/interrupts",
		    "           CPU0       CPU1\n"
		    "  1:          9          0   IO-APIC    1-edge      i8042\n");
	snprintf(path, sizeof(path), "%s/proc/irq/1/smp_affinity_list", copy.dir);
	unlink(path);
	ck_assert_int_eq(mkfifo(path, 0600), 0);
	{
		struct irq_table table;

		ck_assert_int_eq(irq_table_load(root, &table), 0);
		ck_assert_ptr_nonnull(irq_table_find(&table, 1));
		ck_assert(!irq_table_find(&table, 1)->has_affinity);
		ck_assert_int_eq(irq_table_find(&table, 1)->affinity_error, -SYSROOT_ENOTREG);
		irq_table_release(&table);
	}
	log_set_hook(NULL);
	sysroot_free(root);
	fixture_remove(&copy);
}
END_TEST

/* What the library logs, for the tests that count its warnings. */
static unsigned int nr_warnings;
static char last_warning[512];

static void count_warnings(enum log_level level, const char *message)
{
	if (level != LATSCOPE_LOG_WARNING)
		return;
	nr_warnings++;
	snprintf(last_warning, sizeof(last_warning), "%s", message);
}

START_TEST(header_only_interrupts_keep_the_irqs_of_proc_irq)
{
	struct fixture_copy copy;
	struct irq_table table;
	struct irq_counts counts;
	struct sysroot *root;
	struct irq_info *irq;
	char path[1024];

	fixture_copy(&copy, FIXTURE("irq-numa2"));
	fixture_put(&copy, "proc/interrupts",
		    "           CPU0       CPU1       CPU2       CPU3       CPU4       CPU5       "
		    "CPU6       CPU7       CPU8       CPU9       CPU10      CPU11      CPU12      "
		    "CPU13      CPU14      CPU15\n");
	/* an IRQ without a handler, as the kernel hides it, and one nothing names */
	snprintf(path, sizeof(path), "%s/proc/irq/99", copy.dir);
	ck_assert_int_eq(mkdir(path, 0755), 0);
	fixture_put(&copy, "proc/irq/99/smp_affinity_list", "0-15\n");
	snprintf(path, sizeof(path), "%s/sys/kernel/irq/99", copy.dir);
	ck_assert_int_eq(mkdir(path, 0755), 0);
	fixture_put(&copy, "sys/kernel/irq/99/actions", "\n");
	snprintf(path, sizeof(path), "%s/proc/irq/98", copy.dir);
	ck_assert_int_eq(mkdir(path, 0755), 0);
	fixture_put(&copy, "proc/irq/98/smp_affinity_list", "4-7\n");
	root = sysroot_new(copy.dir);
	ck_assert_int_eq(irq_table_load(root, &table), 0);

	ck_assert_uint_eq(table.nr_irqs, 33);
	ck_assert_uint_eq(table.nr_unlisted, 33);
	irq = irq_table_find(&table, 43);
	ck_assert_ptr_nonnull(irq);
	ck_assert(!irq->listed && irq->has_affinity && irq->movable);
	ck_assert_str_eq(irq->name, "eth0-TxRx-2");
	ck_assert_str_eq(irq->chip, "PCI-MSIX-0000:3b:00.0");
	ck_assert_str_eq(irq->device, "0000:3b:00.0");
	ck_assert_str_eq(list(irq->affinity), "0-15");
	ck_assert_uint_eq(irq_counts_row_total(&table.counts, (unsigned int)(irq - table.irqs)), 0);
	/* managed, from its 0444 file, as when listed */
	ck_assert(!irq_table_find(&table, 62)->movable);
	ck_assert_ptr_null(irq_table_find(&table, 99));
	irq = irq_table_find(&table, 98);
	ck_assert_ptr_nonnull(irq);
	ck_assert_str_eq(irq->name, "");
	ck_assert_str_eq(irq->chip, "");

	/* counts read again: the unlisted rows are expected to stay without a line */
	ck_assert_int_eq(irq_counts_init(&counts, &table), 0);
	ck_assert_int_eq(irq_counts_read(root, &table, &counts), 0);
	/* one of them gets a line (a handler came): the table must be reloaded */
	fixture_put(&copy, "proc/interrupts",
		    "           CPU0       CPU1       CPU2       CPU3       CPU4       CPU5       "
		    "CPU6       CPU7       CPU8       CPU9       CPU10      CPU11      CPU12      "
		    "CPU13      CPU14      CPU15\n"
		    "  43:  1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16  PCI-MSIX-0000:3b:00.0 2-edge "
		    " eth0-TxRx-2\n");
	ck_assert_int_eq(irq_counts_read(root, &table, &counts), -ESTALE);
	irq_counts_release(&counts);
	unload(&copy, root, &table);
}
END_TEST

START_TEST(unusable_affinity_files_are_not_gone)
{
	struct fixture_copy copy;
	struct irq_table table;
	struct sysroot *root;
	struct irq_info *irq;
	char path[1024];

	fixture_copy(&copy, FIXTURE("irq-numa2"));
	fixture_put(&copy, "proc/irq/40/smp_affinity_list", "99999\n");
	fixture_put(&copy, "proc/irq/41/smp_affinity_list", "5-2\n");
	fixture_put(&copy, "proc/irq/42/smp_affinity_list", "garbage\n");
	fixture_put(&copy, "proc/irq/44/smp_affinity_list", "\n");
	snprintf(path, sizeof(path), "%s/proc/irq/45/smp_affinity_list", copy.dir);
	ck_assert_int_eq(unlink(path), 0);
	ck_assert_int_eq(mkdir(path, 0755), 0);
	fixture_put(&copy, "proc/irq/46/effective_affinity_list", "zz\n");
	snprintf(path, sizeof(path), "%s/proc/irq/47/smp_affinity_list", copy.dir);
	ck_assert_int_eq(unlink(path), 0);
	root = sysroot_new(copy.dir);
	nr_warnings = 0;
	log_set_hook(count_warnings);
	ck_assert_int_eq(irq_table_load(root, &table), 0);

	/* one line for each file that says nothing usable, none for the absent one */
	ck_assert_uint_eq(nr_warnings, 6);
	ck_assert_int_eq(irq_table_find(&table, 40)->affinity_error, -ERANGE);
	ck_assert_int_eq(irq_table_find(&table, 41)->affinity_error, -EINVAL);
	ck_assert_int_eq(irq_table_find(&table, 42)->affinity_error, -EINVAL);
	ck_assert_int_eq(irq_table_find(&table, 44)->affinity_error, -ENODATA);
	ck_assert_int_eq(irq_table_find(&table, 45)->affinity_error, -EISDIR);
	ck_assert_str_eq(irq_file_error_text(-ERANGE), "a cpu number beyond 8191");
	ck_assert_str_eq(irq_file_error_text(-EINVAL), "not a cpu list");
	ck_assert_str_eq(irq_file_error_text(-ENODATA), "empty");
	ck_assert_str_eq(irq_file_error_text(-EISDIR), strerror(EISDIR));
	for (unsigned int n = 40; n <= 46; n++) {
		irq = irq_table_find(&table, n);
		if (n == 43)
			continue;
		ck_assert_msg(irq_affinity_unreadable(irq), "irq %u", n);
		ck_assert_msg(n == 46 || (!irq->has_affinity && !irq->movable), "irq %u", n);
	}
	irq = irq_table_find(&table, 46);
	ck_assert(irq->has_affinity && !irq->has_effective);
	ck_assert_int_eq(irq->effective_error, -EINVAL);
	ck_assert_ptr_nonnull(strstr(last_warning, "/proc/irq/46/effective_affinity_list: "
						   "not a cpu list: 'zz'"));
	/* absent: the IRQ went away, which is no unreadable file */
	irq = irq_table_find(&table, 47);
	ck_assert(!irq->has_affinity && !irq_affinity_unreadable(irq));
	ck_assert_int_eq(irq->affinity_error, -ENOENT);

	/* the balance daemon refreshes every interval: the same problem is not said again */
	ck_assert_int_eq(irq_table_refresh_affinity(root, &table), 0);
	ck_assert_uint_eq(nr_warnings, 6);
	fixture_put(&copy, "proc/irq/40/smp_affinity_list", "1\n");
	ck_assert_int_eq(irq_table_refresh_affinity(root, &table), 0);
	irq = irq_table_find(&table, 40);
	ck_assert(irq->has_affinity && !irq->affinity_error && !irq_affinity_unreadable(irq));
	ck_assert_uint_eq(nr_warnings, 6);
	fixture_put(&copy, "proc/irq/40/smp_affinity_list", "1-\n");
	ck_assert_int_eq(irq_table_refresh_affinity(root, &table), 0);
	ck_assert_uint_eq(nr_warnings, 7);
	ck_assert_ptr_nonnull(strstr(last_warning, "/proc/irq/40/smp_affinity_list"));
	log_set_hook(NULL);
	unload(&copy, root, &table);
}
END_TEST

START_TEST(no_proc_irq_is_no_irq_gone)
{
	struct fixture_copy copy;
	struct irq_table table;
	struct sysroot *root;
	char path[1100];

	fixture_copy(&copy, FIXTURE("irq-numa2"));
	snprintf(path, sizeof(path), "%s/proc/irq", copy.dir);
	unit_remove_tree(path);
	root = sysroot_new(copy.dir);
	nr_warnings = 0;
	log_set_hook(count_warnings);
	ck_assert_int_eq(irq_table_load(root, &table), 0);
	/* the directory is the one problem: said once, not once per IRQ */
	ck_assert_uint_eq(nr_warnings, 1);
	ck_assert_ptr_nonnull(strstr(last_warning, "/proc/irq: No such file or directory"));
	ck_assert_uint_eq(table.nr_irqs, 32);
	for (unsigned int i = 0; i < table.nr_irqs; i++) {
		ck_assert_int_eq(table.irqs[i].affinity_error, -ENOTDIR);
		ck_assert(irq_affinity_unreadable(&table.irqs[i]));
	}
	ck_assert_str_eq(irq_file_error_text(-ENOTDIR), "its directory cannot be read");
	log_set_hook(NULL);
	unload(&copy, root, &table);
}
END_TEST

START_TEST(many_unusable_files_are_counted_not_listed)
{
	struct fixture_copy copy;
	struct irq_table table;
	struct sysroot *root;
	char name[64];

	fixture_copy(&copy, FIXTURE("irq-numa2"));
	for (unsigned int n = 50; n <= 58; n++) {
		snprintf(name, sizeof(name), "proc/irq/%u/smp_affinity_list", n);
		fixture_put(&copy, name, "x\n");
		snprintf(name, sizeof(name), "proc/irq/%u/effective_affinity_list", n);
		fixture_put(&copy, name, "x\n");
	}
	root = sysroot_new(copy.dir);
	nr_warnings = 0;
	log_set_hook(count_warnings);
	ck_assert_int_eq(irq_table_load(root, &table), 0);
	/* eight files named, then one line for the ten others */
	ck_assert_uint_eq(nr_warnings, 9);
	ck_assert_ptr_nonnull(strstr(last_warning, "10 more IRQ affinity files"));
	log_set_hook(NULL);
	unload(&copy, root, &table);
}
END_TEST

START_TEST(delivery_cpus_and_classes)
{
	struct irq_table table = { 0 };
	struct cpuset set;
	struct irq_info irq;

	memset(&irq, 0, sizeof(irq));
	cpuset_clear(&set);
	irq.effective = irq_table_keep_cpus(&table, &set);
	cpuset_add(&set, 0);
	cpuset_add(&set, 1);
	irq.affinity = irq_table_keep_cpus(&table, &set);
	ck_assert_str_eq(list(irq_delivery_cpus(&irq)), "0-1");
	irq.has_effective = true;
	ck_assert_str_eq(list(irq_delivery_cpus(&irq)), "0-1");
	cpuset_remove(&set, 0);
	irq.effective = irq_table_keep_cpus(&table, &set);
	ck_assert_str_eq(list(irq_delivery_cpus(&irq)), "1");
	irq_table_release(&table);
	ck_assert_str_eq(irq_device_class_name(0), "");
	ck_assert_str_eq(irq_device_class_name(0x028000), "network");
	ck_assert_str_eq(irq_device_class_name(0x0c0330), "usb");
	ck_assert_str_eq(irq_device_class_name(0xffff00), "other");
}
END_TEST

START_TEST(finds_a_running_irqbalance)
{
	struct fixture_copy copy;
	struct sysroot *root;
	char path[512];

	fixture_copy(&copy, FIXTURE("irq-small"));
	root = sysroot_new(copy.dir);
	ck_assert_int_eq(irq_balancer_pid(root), 0);
	snprintf(path, sizeof(path), "%s/proc/31", copy.dir);
	ck_assert_int_eq(mkdir(path, 0755), 0);
	fixture_put(&copy, "proc/31/comm", "sshd\n");
	snprintf(path, sizeof(path), "%s/proc/4242", copy.dir);
	ck_assert_int_eq(mkdir(path, 0755), 0);
	fixture_put(&copy, "proc/4242/comm", "irqbalance\n");
	ck_assert_int_eq(irq_balancer_pid(root), 4242);
	sysroot_free(root);
	fixture_remove(&copy);
}
END_TEST

/* The kernel's answer to a write of a value no parser takes, sorted. */
START_TEST(probe_answers_are_sorted)
{
	/* parsed, so the kernel would have taken a good value */
	ck_assert_int_eq(irq_probe_verdict(EINVAL), IRQ_PROBE_SETTABLE);
	/* refused before the parse: EIO up to 6.11, EPERM from 6.12 */
	ck_assert_int_eq(irq_probe_verdict(EIO), IRQ_PROBE_REFUSED);
	ck_assert_int_eq(irq_probe_verdict(EPERM), IRQ_PROBE_REFUSED);
	/* the write never reached the kernel's test, or said something else */
	ck_assert_int_eq(irq_probe_verdict(EACCES), IRQ_PROBE_UNKNOWN);
	ck_assert_int_eq(irq_probe_verdict(EROFS), IRQ_PROBE_UNKNOWN);
	ck_assert_int_eq(irq_probe_verdict(ENOENT), IRQ_PROBE_UNKNOWN);
	ck_assert_int_eq(irq_probe_verdict(ENOMEM), IRQ_PROBE_UNKNOWN);
	ck_assert_int_eq(irq_probe_verdict(ERANGE), IRQ_PROBE_UNKNOWN);
	/* a write taken says nothing either: no kernel takes "x" */
	ck_assert_int_eq(irq_probe_verdict(0), IRQ_PROBE_UNKNOWN);
}
END_TEST

START_TEST(unmovable_says_how_it_was_known)
{
	struct irq_info irq = { .movable = false };

	ck_assert_str_eq(irq_unmovable_why(&irq), "affinity file mode 0444");
	irq.movable_by = IRQ_MOVABLE_BY_PROBE;
	irq.probed = true;
	irq.probe_error = EIO;
	ck_assert_str_eq(irq_unmovable_why(&irq), "the kernel refused a test write with EIO");
	irq.probe_error = EPERM;
	ck_assert_str_eq(irq_unmovable_why(&irq), "the kernel refused a test write with EPERM");
}
END_TEST

/* the text of every /proc/irq/N/smp_affinity_list of a tree, in one buffer */
static void read_affinity_files(const char *dir, char *text, size_t size)
{
	char path[1024], line[128];
	unsigned int number;
	FILE *f;

	text[0] = '\0';
	for (number = 0; number < 1024; number++) {
		snprintf(path, sizeof(path), "%s/proc/irq/%u/smp_affinity_list", dir, number);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (!fgets(line, sizeof(line), f))
			line[0] = '\0';
		fclose(f);
		snprintf(text + strlen(text), size - strlen(text), "%u:%s", number, line);
	}
}

/*
 * A tree keeps the mode rule: no probe is written into it, even by root
 * (who may write its 0444 files too), and every IRQ says it was told by
 * the mode.
 */
START_TEST(a_tree_is_never_probed)
{
	char before[4096], after[4096];
	struct fixture_copy copy;
	struct irq_table table;
	struct sysroot *root;
	unsigned int i;

	fixture_copy(&copy, FIXTURE("irq-numa2"));
	read_affinity_files(copy.dir, before, sizeof(before));
	ck_assert_ptr_nonnull(strstr(before, "62:4-7"));
	root = sysroot_new(copy.dir);
	ck_assert_ptr_nonnull(root);
	ck_assert_int_eq(irq_table_load(root, &table), 0);
	ck_assert_int_eq(irq_table_refresh_affinity(root, &table), 0);
	read_affinity_files(copy.dir, after, sizeof(after));
	ck_assert_str_eq(after, before);
	for (i = 0; i < table.nr_irqs; i++) {
		ck_assert(!table.irqs[i].probed);
		ck_assert_int_eq(table.irqs[i].movable_by, IRQ_MOVABLE_BY_MODE);
	}
	/* 0444: unmovable by its mode alone */
	ck_assert(!irq_table_find(&table, 62)->movable);
	ck_assert_str_eq(irq_unmovable_why(irq_table_find(&table, 62)), "affinity file mode 0444");
	ck_assert(irq_table_find(&table, 43)->movable);
	unload(&copy, root, &table);
}
END_TEST

/*
 * On the live machine as root, every IRQ whose affinity file has a write
 * bit is asked, and the asking changes no affinity.
 */
START_TEST(live_probe_changes_nothing)
{
	char before[8192], after[8192], path[64];
	struct sysroot *root;
	struct irq_table table;
	struct stat st;
	unsigned int i;

	if (geteuid() || access("/proc/irq", R_OK))
		return; /* only root probes */
	read_affinity_files("", before, sizeof(before));
	root = sysroot_new(NULL);
	ck_assert_int_eq(irq_table_load(root, &table), 0);
	read_affinity_files("", after, sizeof(after));
	ck_assert_str_eq(after, before);
	for (i = 0; i < table.nr_irqs; i++) {
		const struct irq_info *irq = &table.irqs[i];

		if (!irq->has_affinity)
			continue;
		snprintf(path, sizeof(path), "/proc/irq/%u/smp_affinity_list", irq->number);
		if (stat(path, &st))
			continue; /* gone meanwhile */
		/* a 0444 file is not asked; a writable one is, and the answer decides */
		ck_assert_msg(irq->probed == !!(st.st_mode & 0222), "irq %u", irq->number);
		if (irq->probed && irq_probe_verdict(irq->probe_error) != IRQ_PROBE_UNKNOWN)
			ck_assert_msg(irq->movable_by == IRQ_MOVABLE_BY_PROBE &&
					      irq->movable == (irq->probe_error == EINVAL),
				      "irq %u: probe %d", irq->number, irq->probe_error);
	}
	irq_table_release(&table);
	sysroot_free(root);
}
END_TEST

START_TEST(live_machine_loads)
{
	struct sysroot *root = sysroot_new(NULL);
	struct irq_table table;
	struct irq_counts counts;
	int ret;

	ret = irq_table_load(root, &table);
	if (ret == -ENOENT || ret == -EACCES) {
		sysroot_free(root);
		return; /* no procfs here */
	}
	ck_assert_int_eq(ret, 0);
	ck_assert_uint_ge(table.nr_columns, 1);
	ck_assert_int_eq(irq_counts_init(&counts, &table), 0);
	ret = irq_counts_read(root, &table, &counts);
	/* an IRQ may come or go between the two reads */
	ck_assert(ret == 0 || ret == -ESTALE);
	irq_counts_release(&counts);
	irq_table_release(&table);
	sysroot_free(root);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("irq");
	TCase *tc = tcase_create("irq");

	tcase_add_test(tc, two_nodes_inventory);
	tcase_add_test(tc, offline_cpu_malformed_lines_and_no_sysfs);
	tcase_add_test(tc, counts_reread_and_change_detection);
	tcase_add_test(tc, unsorted_repeated_and_huge_lines);
	tcase_add_test(tc, missing_or_headless_file);
	tcase_add_test(tc, unreadable_interrupts_said_once);
	tcase_add_test(tc, header_only_interrupts_keep_the_irqs_of_proc_irq);
	tcase_add_test(tc, unusable_affinity_files_are_not_gone);
	tcase_add_test(tc, many_unusable_files_are_counted_not_listed);
	tcase_add_test(tc, no_proc_irq_is_no_irq_gone);
	tcase_add_test(tc, delivery_cpus_and_classes);
	tcase_add_test(tc, finds_a_running_irqbalance);
	tcase_add_test(tc, probe_answers_are_sorted);
	tcase_add_test(tc, unmovable_says_how_it_was_known);
	tcase_add_test(tc, a_tree_is_never_probed);
	tcase_add_test(tc, live_probe_changes_nothing);
	tcase_add_test(tc, live_machine_loads);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
