// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

#include "latscope/log.h"

/* Written once by the program before any thread starts. */
static log_hook installed_hook;

void log_set_hook(log_hook hook)
{
	installed_hook = hook;
}

void log_message(enum log_level level, const char *fmt, ...)
{
	char message[1024];
	int saved_errno = errno;
	va_list ap;

	if (!installed_hook)
		return;
	va_start(ap, fmt);
	vsnprintf(message, sizeof(message), fmt, ap);
	va_end(ap);
	/* the hook prints: stdio may set errno, the caller may still need it */
	installed_hook(level, message);
	errno = saved_errno;
}
