/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_CPUINFO_H
#define LATSCOPE_CPUINFO_H

#include <stdbool.h>

#include "latscope/sysroot.h"

/**
 * cpuinfo_flags - the feature flags /proc/cpuinfo lists for the first CPU
 * @root: where to read
 * @flags: receives "fpu vme ... constant_tsc ... hypervisor" ("" when the
 *	   file has no flags line); the caller frees it with free()
 *
 * Returns 0 or a negative errno code when /proc/cpuinfo cannot be read.
 */
int cpuinfo_flags(struct sysroot *root, char **flags);

/* true when the first CPU's flags include "hypervisor": a virtual machine */
bool cpuinfo_under_hypervisor(struct sysroot *root);

/* true when @word is one of the space-separated @words (cpuinfo flags, sysfs lists) */
bool words_have(const char *words, const char *word);

#endif
