// SPDX-License-Identifier: GPL-2.0-or-later
/* The size options of the compare benchmarks (compare_size.h). */
#include <stdlib.h>

#include "compare_size.h"

void compare_size_default(struct compare_size *size)
{
	size->cpus = 64;
	size->samples = 1e9;
	size->per_cpu = false;
	size->blocks = 3600;
}

bool compare_size_option(struct compare_size *size, int opt, const char *arg)
{
	switch (opt) {
	case 'c':
		size->cpus = (unsigned int)strtoul(arg, NULL, 10);
		return true;
	case 's':
		size->samples = strtod(arg, NULL);
		return true;
	case 'p':
		size->per_cpu = true;
		return true;
	case 'b':
		size->blocks = (unsigned int)strtoul(arg, NULL, 10);
		return true;
	default:
		return false;
	}
}

double compare_size_per_cpu(const struct compare_size *size)
{
	return size->per_cpu ? size->samples : size->samples / size->cpus;
}
