/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_KCONFIG_H
#define LATSCOPE_KCONFIG_H

#include <stdbool.h>
#include <stddef.h>

#include "latscope/sysroot.h"

/*
 * The configuration the running kernel was built with: /proc/config.gz
 * (CONFIG_IKCONFIG_PROC) or, failing that, /boot/config-<release>.
 */
struct kconfig_entry {
	const char *name; /* without the CONFIG_ prefix: "PREEMPT_RT" */
	const char *value; /* "y", "m", "250", "\"text\""; NULL for "is not set" */
};

struct kconfig {
	char source[128]; /* the path read, as under the root */
	char why[512]; /* after a failed load: what went wrong, for a reader */
	struct kconfig_entry *entries; /* sorted by name */
	size_t nr_entries;
	char *text; /* the decompressed text the entries point into */
};

/**
 * kconfig_load - read the running kernel's configuration
 * @root: where to read
 * @config: receives the configuration; release it with kconfig_release()
 *	    whatever the result
 *
 * Tries /proc/config.gz, then /boot/config-<release> with the release from
 * /proc/sys/kernel/osrelease. Returns 0, -ENOENT when neither exists, or
 * -EBADMSG for a file that is not a kernel configuration (corrupt gzip data,
 * no CONFIG_ lines), or another read error; on failure config->why says what
 * was tried and why it failed.
 */
int kconfig_load(struct sysroot *root, struct kconfig *config);

/**
 * kconfig_parse - parse the text of a configuration file
 * @config: receives the entries; release it with kconfig_release()
 * @text: the text, NUL-terminated; @config takes ownership of it (it is
 *	  freed by kconfig_release(), also on failure)
 *
 * Returns 0, -EBADMSG when the text holds no CONFIG_ line, or -ENOMEM.
 */
int kconfig_parse(struct kconfig *config, char *text);

/**
 * kconfig_inflate - decompress gzip data
 * @data: the compressed bytes
 * @len: their number
 * @text: receives a NUL-terminated buffer the caller frees with free()
 *
 * Returns 0, -EBADMSG for data that is not complete, valid gzip (bad header,
 * bad checksum, truncated), -EFBIG beyond 64 MiB of output, or -ENOMEM.
 */
int kconfig_inflate(const void *data, size_t len, char **text);

/* Free what kconfig_load() or kconfig_parse() allocated; safe on a zeroed config. */
void kconfig_release(struct kconfig *config);

/*
 * The entry of an option (name without CONFIG_): a pointer into @config,
 * valid until kconfig_release(); NULL when the file does not mention it.
 */
const struct kconfig_entry *kconfig_lookup(const struct kconfig *config, const char *name);

/* the value of an option (a string inside @config), NULL when not set or not mentioned */
const char *kconfig_value(const struct kconfig *config, const char *name);

/* true when an option is built in or a module (=y or =m) */
bool kconfig_enabled(const struct kconfig *config, const char *name);

#endif
