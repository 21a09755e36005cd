// SPDX-License-Identifier: GPL-2.0-or-later
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "part_result.h"

static void keep(struct part_result *r, enum part_reason reason, int status, const char *line)
{
	r->reason = reason;
	r->status = status;
	snprintf(r->text, sizeof(r->text), "%s", line);
}

int part_refuse(struct part_result *r, enum part_reason reason, int status, const char *fmt, ...)
{
	char *line;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&line, fmt, ap);
	va_end(ap);
	if (n < 0) {
		keep(r, PART_NO_MEMORY, EXIT_ERROR, "out of memory");
		return runtime_error("out of memory");
	}
	keep(r, reason, status, line);
	if (status == EXIT_USAGE)
		usage_error("%s", line);
	else
		runtime_error("%s", line);
	free(line);
	return status;
}

int part_record(struct part_result *r, enum part_reason reason, int status, const char *fmt, ...)
{
	va_list ap;

	r->reason = reason;
	r->status = status;
	va_start(ap, fmt);
	vsnprintf(r->text, sizeof(r->text), fmt, ap);
	va_end(ap);
	return status;
}
