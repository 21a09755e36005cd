// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The IRQ journal as irq restore reads it back: a file anybody may have
 * edited, truncated or replaced. Journals of the live root "/": loading
 * one reads only the journal itself.
 */
#include "fuzz.h"
#include "latscope/irq_journal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct irq_journal *journal;
	struct sysroot *root;
	char path[512];

	fuzz_put("run/latscope/irq-journal.json", data, size);
	root = sysroot_new("/");
	if (!root)
		abort();
	snprintf(path, sizeof(path), "%s/run/latscope/irq-journal.json", fuzz_tree());
	if (!irq_journal_load(root, path, &journal)) {
		irq_journal_irqs(journal);
		irq_journal_has_irq(journal, 1);
		irq_journal_has_default(journal);
		irq_journal_free(journal);
	}
	sysroot_free(root);
	return 0;
}
