/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_TEST_XML_CHECK_H
#define LATSCOPE_TEST_XML_CHECK_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/*
 * Whether a text is well-formed XML, as libxml2's xmllint (Debian's
 * libxml2-utils) says: the text goes to a temporary file, xmllint --noout
 * reads it. Returns xmllint's exit status (0: well-formed), or -1 when it
 * could not be run. Its complaints go to the test's log.
 */
static inline int xml_check(const char *text, bool keep_on_failure)
{
	char path[] = "/tmp/latscope-xml-XXXXXX";
	char command[128];
	FILE *f;
	int fd = mkstemp(path), status;

	if (fd < 0)
		return -1;
	f = fdopen(fd, "w");
	if (!f) {
		close(fd);
		unlink(path);
		return -1;
	}
	fputs(text, f);
	fclose(f);
	snprintf(command, sizeof(command), "xmllint --noout %s", path);
	status = system(command);
	if (status && keep_on_failure)
		fprintf(stderr, "kept %s\n", path);
	else
		unlink(path);
	if (status == -1 || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

#endif
