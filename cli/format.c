// SPDX-License-Identifier: GPL-2.0-or-later
#include <stdio.h>

#include "cli.h"

const char *format_us(uint64_t ns, char *buf, size_t size)
{
	snprintf(buf, size, "%llu.%03llu", (unsigned long long)(ns / 1000),
		 (unsigned long long)(ns % 1000));
	return buf;
}

const char *format_duration(uint64_t ns, char *buf, size_t size)
{
	if (ns < 1000)
		snprintf(buf, size, "%llu ns", (unsigned long long)ns);
	else if (ns < 1000000)
		snprintf(buf, size, "%.1f us", (double)ns / 1e3);
	else if (ns < 1000000000)
		snprintf(buf, size, "%.3f ms", (double)ns / 1e6);
	else if (ns < 600000000000ULL)
		snprintf(buf, size, "%.2f s", (double)ns / 1e9);
	else if (ns < 86400000000000ULL)
		snprintf(buf, size, "%.1f min", (double)ns / 6e10);
	else
		snprintf(buf, size, "%.1f h", (double)ns / 3.6e12);
	return buf;
}

const char *format_bytes(uint64_t bytes, char *buf, size_t size)
{
	if (bytes < 1024)
		snprintf(buf, size, "%llu bytes", (unsigned long long)bytes);
	else if (bytes < 1024 * 1024)
		snprintf(buf, size, "%.1f KiB", (double)bytes / 1024);
	else if (bytes < 1024ULL * 1024 * 1024)
		snprintf(buf, size, "%.1f MiB", (double)bytes / (1024 * 1024));
	else
		snprintf(buf, size, "%.1f GiB", (double)bytes / (1024.0 * 1024 * 1024));
	return buf;
}
