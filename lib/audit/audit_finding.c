// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit_internal.h"

/* A failed allocation leaves the field NULL: the finding loses a detail, never the run. */
static char *format_text(const char *fmt, va_list ap)
{
	char *text;

	if (vasprintf(&text, fmt, ap) < 0)
		return NULL;
	return text;
}

static void replace_text(char **field, const char *fmt, va_list ap)
{
	free(*field);
	*field = format_text(fmt, ap);
}

void finding_verdict(struct audit_finding *f, enum audit_status status, const char *fmt, ...)
{
	va_list ap;

	f->status = status;
	va_start(ap, fmt);
	replace_text(&f->detail, fmt, ap);
	va_end(ap);
}

void finding_evidence(struct audit_finding *f, const char *path, const char *fmt, ...)
{
	struct audit_evidence *grown;
	char *value, *copy;
	va_list ap;

	va_start(ap, fmt);
	value = format_text(fmt, ap);
	va_end(ap);
	copy = strdup(path);
	grown = realloc(f->evidence, (f->nr_evidence + 1) * sizeof(*f->evidence));
	if (!value || !copy || !grown) {
		free(value);
		free(copy);
		if (grown)
			f->evidence = grown;
		return;
	}
	f->evidence = grown;
	f->evidence[f->nr_evidence].path = copy;
	f->evidence[f->nr_evidence].value = value;
	f->nr_evidence++;
}

void finding_expected(struct audit_finding *f, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	replace_text(&f->expected, fmt, ap);
	va_end(ap);
}

void finding_fix(struct audit_finding *f, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	replace_text(&f->fix, fmt, ap);
	va_end(ap);
}

void finding_skip_unreadable(struct audit_finding *f, const char *path, int err)
{
	if (err == -EINVAL)
		finding_skip(f, "cannot parse %s", path);
	else if (err == -ENOENT)
		finding_skip(f, "%s is absent", path);
	else
		finding_skip(f, "cannot read %s: %s", path, sysroot_strerror(err));
}

void finding_release(struct audit_finding *f)
{
	size_t i;

	for (i = 0; i < f->nr_evidence; i++) {
		free(f->evidence[i].path);
		free(f->evidence[i].value);
	}
	free(f->evidence);
	free(f->detail);
	free(f->expected);
	free(f->fix);
	memset(f, 0, sizeof(*f));
}
