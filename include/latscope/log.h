/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_LOG_H
#define LATSCOPE_LOG_H

/* LATSCOPE_ because <syslog.h> has LOG_ERR, LOG_WARNING, LOG_INFO and LOG_DEBUG */
enum log_level {
	LATSCOPE_LOG_ERROR,
	LATSCOPE_LOG_WARNING,
	LATSCOPE_LOG_INFO,
	LATSCOPE_LOG_DEBUG,
};

/*
 * The library never prints: it hands every message to one hook, which the
 * program installs once at start-up (the CLI prints to stderr). Without a
 * hook, messages are dropped, which is what unit tests want.
 */
typedef void (*log_hook)(enum log_level level, const char *message);

/**
 * log_set_hook - install the function that receives every library message
 * @hook: the receiver, or NULL to drop messages
 */
void log_set_hook(log_hook hook);

/**
 * log_message - format a message and pass it to the installed hook
 * @level: how serious the message is
 * @fmt: printf-style format, lower case, no trailing newline or period
 *
 * errno is as it was before the call, whatever the hook does; still, a
 * caller that returns -errno saves it before logging: the arguments are
 * evaluated first, and strerror() may not be the last to touch it.
 */
void log_message(enum log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define log_error(...) log_message(LATSCOPE_LOG_ERROR, __VA_ARGS__)
#define log_warning(...) log_message(LATSCOPE_LOG_WARNING, __VA_ARGS__)
#define log_info(...) log_message(LATSCOPE_LOG_INFO, __VA_ARGS__)
#define log_debug(...) log_message(LATSCOPE_LOG_DEBUG, __VA_ARGS__)

#endif
