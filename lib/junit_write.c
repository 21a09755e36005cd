// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A JUnit suite (junit.h) as XML, through libxml2's xmlTextWriter: it
 * escapes every attribute and text, so nothing here quotes by hand.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>

#include <libxml/xmlwriter.h>

#include "latscope/atomic_file.h"
#include "latscope/junit.h"
#include "latscope/log.h"

/* Each call of the writer returns a negative count on failure: keep the first. */
struct xml_out {
	xmlTextWriterPtr w;
	bool failed;
};

static void check(struct xml_out *x, int ret)
{
	if (ret < 0)
		x->failed = true;
}

static void attribute(struct xml_out *x, const char *name, const char *value)
{
	if (value)
		check(x, xmlTextWriterWriteAttribute(x->w, BAD_CAST name, BAD_CAST value));
}

static void attribute_uint(struct xml_out *x, const char *name, unsigned int value)
{
	check(x, xmlTextWriterWriteFormatAttribute(x->w, BAD_CAST name, "%u", value));
}

/* seconds with millisecond precision, the format's xs:decimal */
static void attribute_seconds(struct xml_out *x, const char *name, double seconds)
{
	check(x, xmlTextWriterWriteFormatAttribute(x->w, BAD_CAST name, "%.3f",
						   seconds > 0 ? seconds : 0.0));
}

static void start(struct xml_out *x, const char *element)
{
	check(x, xmlTextWriterStartElement(x->w, BAD_CAST element));
}

static void end(struct xml_out *x)
{
	check(x, xmlTextWriterEndElement(x->w));
}

static void counts(struct xml_out *x, const struct junit_suite *suite)
{
	attribute_uint(x, "tests", suite->nr_cases);
	attribute_uint(x, "failures", junit_suite_count(suite, JUNIT_FAILED));
	attribute_uint(x, "errors", junit_suite_count(suite, JUNIT_ERROR));
	attribute_uint(x, "skipped", junit_suite_count(suite, JUNIT_SKIPPED));
	attribute_seconds(x, "time", suite->seconds);
}

static void write_case(struct xml_out *x, const struct junit_case *tc)
{
	static const char *const elements[] = {
		[JUNIT_FAILED] = "failure",
		[JUNIT_SKIPPED] = "skipped",
		[JUNIT_ERROR] = "error",
	};

	start(x, "testcase");
	attribute(x, "name", tc->name);
	attribute(x, "classname", tc->classname);
	attribute_seconds(x, "time", tc->seconds);
	if (tc->outcome != JUNIT_PASSED) {
		start(x, elements[tc->outcome]);
		attribute(x, "message", tc->message);
		/* the format gives <skipped> a message only */
		if (tc->outcome != JUNIT_SKIPPED)
			attribute(x, "type", tc->type);
		if (tc->text)
			check(x, xmlTextWriterWriteString(x->w, BAD_CAST tc->text));
		end(x);
	}
	if (tc->output) {
		start(x, "system-out");
		check(x, xmlTextWriterWriteString(x->w, BAD_CAST tc->output));
		end(x);
	}
	end(x);
}

static void write_suite(struct xml_out *x, const struct junit_suite *suite)
{
	unsigned int i;

	check(x, xmlTextWriterStartDocument(x->w, NULL, "UTF-8", NULL));
	start(x, "testsuites");
	attribute(x, "name", suite->name);
	counts(x, suite);
	start(x, "testsuite");
	attribute(x, "name", suite->name);
	counts(x, suite);
	attribute(x, "timestamp", suite->timestamp);
	attribute(x, "hostname", suite->hostname);
	if (suite->nr_properties) {
		start(x, "properties");
		for (i = 0; i < suite->nr_properties; i++) {
			start(x, "property");
			attribute(x, "name", suite->properties[i].name);
			attribute(x, "value", suite->properties[i].value);
			end(x);
		}
		end(x);
	}
	for (i = 0; i < suite->nr_cases; i++)
		write_case(x, &suite->cases[i]);
	check(x, xmlTextWriterEndDocument(x->w));
}

int junit_write(const struct junit_suite *suite, FILE *out)
{
	struct xml_out x = { 0 };
	xmlBufferPtr buffer;
	size_t size;
	int ret = 0;

	if (suite->error)
		return suite->error;
	/*
	 * Into memory first (a suite is kilobytes): libxml2's own file output
	 * would print its I/O errors on stderr, and the library never prints.
	 */
	buffer = xmlBufferCreate();
	if (!buffer)
		return -ENOMEM;
	x.w = xmlNewTextWriterMemory(buffer, 0);
	if (!x.w) {
		xmlBufferFree(buffer);
		return -ENOMEM;
	}
	check(&x, xmlTextWriterSetIndent(x.w, 1));
	check(&x, xmlTextWriterSetIndentString(x.w, BAD_CAST "  "));
	write_suite(&x, suite);
	xmlFreeTextWriter(x.w);
	size = (size_t)xmlBufferLength(buffer);
	if (x.failed)
		ret = -ENOMEM; /* the writer fails only when its buffer cannot grow */
	else if (fwrite(xmlBufferContent(buffer), 1, size, out) != size)
		ret = errno ? -errno : -EIO;
	xmlBufferFree(buffer);
	return ret;
}

int junit_write_file(const struct junit_suite *suite, const char *path)
{
	struct atomic_file file;
	int ret;

	ret = atomic_file_open(&file, path);
	if (ret)
		return ret;
	ret = junit_write(suite, file.stream);
	if (ret) {
		atomic_file_abandon(&file);
		return ret;
	}
	return atomic_file_commit(&file);
}
