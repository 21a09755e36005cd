// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * /proc/interrupts as a --root tree may hold it: loaded into the table,
 * then read again as a sample of counts against that table.
 */
#include "fuzz.h"
#include "latscope/irq.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct irq_counts counts;
	struct irq_table table;
	struct sysroot *root;

	fuzz_put("proc/interrupts", data, size);
	root = sysroot_new(fuzz_tree());
	if (!root)
		abort();
	if (!irq_table_load(root, &table)) {
		if (!irq_counts_init(&counts, &table)) {
			irq_counts_read(root, &table, &counts);
			irq_counts_release(&counts);
		}
		irq_table_release(&table);
	}
	sysroot_free(root);
	return 0;
}
