// SPDX-License-Identifier: GPL-2.0-or-later
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "latscope/cpuinfo.h"

int cpuinfo_flags(struct sysroot *root, char **flags)
{
	char *text, *line, *end;
	int ret;

	ret = sysroot_read_alloc(root, &text, NULL, "/proc/cpuinfo");
	if (ret)
		return ret;
	/* "flags\t\t: fpu vme ..." (x86); the first CPU speaks for all */
	line = strncmp(text, "flags", 5) ? strstr(text, "\nflags") : text - 1;
	if (line && (line = strchr(line + 1, ':'))) {
		line++;
		end = strchr(line, '\n');
		*flags = strndup(line, end ? (size_t)(end - line) : strlen(line));
	} else {
		*flags = strdup("");
	}
	free(text);
	return *flags ? 0 : -ENOMEM;
}

bool words_have(const char *words, const char *word)
{
	size_t len = strlen(word);
	const char *p = words;

	while ((p = strstr(p, word))) {
		if ((p == words || isspace((unsigned char)p[-1])) &&
		    (!p[len] || isspace((unsigned char)p[len])))
			return true;
		p += len;
	}
	return false;
}

bool cpuinfo_under_hypervisor(struct sysroot *root)
{
	char *flags;
	bool guest;

	if (cpuinfo_flags(root, &flags))
		return false;
	guest = words_have(flags, "hypervisor");
	free(flags);
	return guest;
}
