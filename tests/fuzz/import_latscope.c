// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Imported results: latscope results of every command and schema (latscope/1 with CPU sets as
 * arrays, latscope/2 as cpu-list strings, latscope/3 with time blocks; a
 * later schema refused), the
 * format report, compare and doctor read most. The format is found
 * from the content, so this harness reaches the other readers too; its
 * seeds and dictionary keep it on this one.
 */
#include "import_checks.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_import(data, size);
}
