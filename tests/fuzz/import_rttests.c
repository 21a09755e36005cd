// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Imported results: cyclictest --json and oslat --json of rt-tests 2.x, as a peer's
 * results reach report and compare. The format is found
 * from the content, so this harness reaches the other readers too; its
 * seeds and dictionary keep it on this one.
 */
#include "import_checks.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_import(data, size);
}
