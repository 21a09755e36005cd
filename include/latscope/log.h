/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_LOG_H
#define LATSCOPE_LOG_H

enum log_level {
	LOG_ERROR,
	LOG_WARNING,
	LOG_INFO,
	LOG_DEBUG,
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
 */
void log_message(enum log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define log_error(...) log_message(LOG_ERROR, __VA_ARGS__)
#define log_warning(...) log_message(LOG_WARNING, __VA_ARGS__)
#define log_info(...) log_message(LOG_INFO, __VA_ARGS__)
#define log_debug(...) log_message(LOG_DEBUG, __VA_ARGS__)

#endif
