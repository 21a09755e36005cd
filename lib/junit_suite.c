// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The JUnit test suite a command builds (junit.h): its properties and
 * cases, every text made valid XML 1.0 on the way in.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>

#include "latscope/array.h"
#include "latscope/junit.h"
#include "latscope/utf8.h"

static void out_of_memory(struct junit_suite *suite)
{
	if (!suite->error)
		suite->error = -ENOMEM;
}

/* XML 1.0's Char: tab, newline, return, and from U+0020 on, less U+FFFE and U+FFFF */
static bool xml_char(uint32_t code)
{
	if (code < 0x20)
		return code == '\t' || code == '\n' || code == '\r';
	return code != 0xfffe && code != 0xffff;
}

/* A copy of @text that XML 1.0 can carry; U+FFFD for what it cannot. */
static char *clean_copy(struct junit_suite *suite, const char *text)
{
	static const char replacement[] = "\xef\xbf\xbd";
	const unsigned char *s = (const unsigned char *)text;
	size_t n = strlen(text), i = 0, used = 0;
	char *copy = malloc(n * 3 + 1); /* each byte at most one replacement */
	uint32_t code;
	size_t len;

	if (!copy) {
		out_of_memory(suite);
		return NULL;
	}
	while (i < n) {
		len = utf8_sequence(s + i, n - i, &code);
		if (len && xml_char(code)) {
			memcpy(copy + used, s + i, len);
			used += len;
			i += len;
		} else {
			memcpy(copy + used, replacement, 3);
			used += 3;
			i += len ? len : 1;
		}
	}
	copy[used] = '\0';
	return copy;
}

static void set_text(struct junit_suite *suite, char **field, const char *text)
{
	free(*field);
	*field = text ? clean_copy(suite, text) : NULL;
}

static char *vformat(struct junit_suite *suite, const char *fmt, va_list ap)
{
	char *text = NULL, *clean;

	if (vasprintf(&text, fmt, ap) < 0) {
		out_of_memory(suite);
		return NULL;
	}
	clean = clean_copy(suite, text);
	free(text);
	return clean;
}

void junit_suite_init(struct junit_suite *suite, const char *name)
{
	char stamp[32];
	struct utsname u;
	time_t now = time(NULL);
	struct tm tm;

	memset(suite, 0, sizeof(*suite));
	set_text(suite, &suite->name, name);
	/* the format's timestamp has no zone: UTC, said by nothing but convention */
	if (gmtime_r(&now, &tm) && strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%S", &tm))
		set_text(suite, &suite->timestamp, stamp);
	if (!uname(&u))
		set_text(suite, &suite->hostname, u.nodename);
}

void junit_suite_hostname(struct junit_suite *suite, const char *hostname)
{
	if (hostname && *hostname)
		set_text(suite, &suite->hostname, hostname);
}

static void case_release(struct junit_case *tc)
{
	free(tc->classname);
	free(tc->name);
	free(tc->type);
	free(tc->message);
	free(tc->text);
	free(tc->output);
}

void junit_suite_release(struct junit_suite *suite)
{
	unsigned int i;

	for (i = 0; i < suite->nr_properties; i++) {
		free(suite->properties[i].name);
		free(suite->properties[i].value);
	}
	for (i = 0; i < suite->nr_cases; i++)
		case_release(&suite->cases[i]);
	free(suite->properties);
	free(suite->cases);
	free(suite->name);
	free(suite->timestamp);
	free(suite->hostname);
	memset(suite, 0, sizeof(*suite));
}

void junit_suite_property(struct junit_suite *suite, const char *name, const char *value)
{
	struct junit_property *grown, *p;

	if (!value)
		return;
	grown = array_grow(suite->properties, &suite->cap_properties, suite->nr_properties + 1,
			   sizeof(*grown));
	if (!grown) {
		out_of_memory(suite);
		return;
	}
	suite->properties = grown;
	p = &suite->properties[suite->nr_properties++];
	memset(p, 0, sizeof(*p));
	set_text(suite, &p->name, name);
	set_text(suite, &p->value, value);
}

struct junit_case *junit_suite_case(struct junit_suite *suite, const char *classname,
				    const char *name)
{
	struct junit_case *grown, *tc;

	grown = array_grow(suite->cases, &suite->cap_cases, suite->nr_cases + 1, sizeof(*grown));
	if (!grown) {
		out_of_memory(suite);
		return NULL;
	}
	suite->cases = grown;
	tc = &suite->cases[suite->nr_cases++];
	memset(tc, 0, sizeof(*tc));
	set_text(suite, &tc->classname, classname);
	set_text(suite, &tc->name, name);
	return tc;
}

void junit_case_set(struct junit_suite *suite, struct junit_case *tc, enum junit_outcome outcome,
		    const char *type, const char *fmt, ...)
{
	va_list ap;

	if (!tc)
		return;
	tc->outcome = outcome;
	set_text(suite, &tc->type, type);
	free(tc->message);
	va_start(ap, fmt);
	tc->message = vformat(suite, fmt, ap);
	va_end(ap);
}

void junit_case_text(struct junit_suite *suite, struct junit_case *tc, const char *text)
{
	if (tc)
		set_text(suite, &tc->text, text);
}

void junit_case_output(struct junit_suite *suite, struct junit_case *tc, const char *fmt, ...)
{
	char *line, *joined = NULL;
	va_list ap;

	if (!tc)
		return;
	va_start(ap, fmt);
	line = vformat(suite, fmt, ap);
	va_end(ap);
	if (!line)
		return;
	if (!tc->output) {
		tc->output = line;
		return;
	}
	if (asprintf(&joined, "%s\n%s", tc->output, line) < 0)
		out_of_memory(suite);
	else {
		free(tc->output);
		tc->output = joined;
	}
	free(line);
}

unsigned int junit_suite_count(const struct junit_suite *suite, enum junit_outcome outcome)
{
	unsigned int i, n = 0;

	for (i = 0; i < suite->nr_cases; i++)
		n += suite->cases[i].outcome == outcome;
	return n;
}
