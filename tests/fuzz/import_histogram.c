// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Imported results: the text cyclictest prints with -h N or -H N (OSADL's "output"
 * file): a line per bucket and the "# Total:", "# Min/Avg/Max Latencies:",
 * "# Histogram Overflows:" and "# Thread N:" lines. The format is found
 * from the content, so this harness reaches the other readers too; its
 * seeds and dictionary keep it on this one.
 */
#include "import_checks.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_import(data, size);
}
