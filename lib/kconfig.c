// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "latscope/kconfig.h"
#include "latscope/log.h"

/* A kernel configuration is a few hundred KiB; anything far larger is not one. */
#define KCONFIG_MAX_TEXT (64U << 20)

int kconfig_inflate(const void *data, size_t len, char **text)
{
	z_stream stream = { 0 };
	/* a config compresses about 4:1; no more than the limit up front */
	size_t cap = len < KCONFIG_MAX_TEXT / 4 ? len * 4 + 4096 : KCONFIG_MAX_TEXT, used = 0;
	char *out = malloc(cap), *bigger;
	int ret;

	if (!out)
		return -ENOMEM;
	/* 16 + MAX_WBITS: gzip wrapper only, so plain text is not taken for gzip */
	if (inflateInit2(&stream, 16 + MAX_WBITS) != Z_OK) {
		free(out);
		return -ENOMEM;
	}
	stream.next_in = (Bytef *)(uintptr_t)data;
	stream.avail_in = (uInt)len;
	for (;;) {
		if (used + 1 >= cap) {
			if (cap >= KCONFIG_MAX_TEXT) {
				ret = -EFBIG;
				break;
			}
			cap *= 2;
			bigger = realloc(out, cap);
			if (!bigger) {
				ret = -ENOMEM;
				break;
			}
			out = bigger;
		}
		stream.next_out = (Bytef *)out + used;
		stream.avail_out = (uInt)(cap - used - 1);
		ret = inflate(&stream, Z_NO_FLUSH);
		used = cap - 1 - stream.avail_out;
		if (ret == Z_STREAM_END) {
			ret = 0;
			break;
		}
		if (ret == Z_MEM_ERROR) {
			ret = -ENOMEM;
			break;
		}
		/* Z_BUF_ERROR with input left means no progress: truncated data */
		if (ret != Z_OK && !(ret == Z_BUF_ERROR && !stream.avail_out)) {
			ret = -EBADMSG;
			break;
		}
		if (!stream.avail_in && stream.avail_out) {
			ret = -EBADMSG;
			break;
		}
	}
	inflateEnd(&stream);
	if (ret) {
		free(out);
		return ret;
	}
	out[used] = '\0';
	*text = out;
	return 0;
}

static int compare_entries(const void *a, const void *b)
{
	const struct kconfig_entry *x = a, *y = b;

	return strcmp(x->name, y->name);
}

/* "CONFIG_NAME=value" or "# CONFIG_NAME is not set"; anything else is skipped */
static bool parse_line(char *line, struct kconfig_entry *entry)
{
	char *eq, *end;

	if (!strncmp(line, "CONFIG_", 7)) {
		eq = strchr(line, '=');
		if (!eq || eq == line + 7)
			return false;
		*eq = '\0';
		entry->name = line + 7;
		entry->value = eq + 1;
		return true;
	}
	if (!strncmp(line, "# CONFIG_", 9)) {
		end = strstr(line, " is not set");
		if (!end || end == line + 9 || end[11])
			return false;
		*end = '\0';
		entry->name = line + 9;
		entry->value = NULL;
		return true;
	}
	return false;
}

int kconfig_parse(struct kconfig *config, char *text)
{
	size_t cap = 0, lines = 1;
	char *line, *next;

	config->text = text;
	config->entries = NULL;
	config->nr_entries = 0;
	for (line = text; *line; line++)
		lines += *line == '\n';
	config->entries = calloc(lines, sizeof(*config->entries));
	if (!config->entries)
		return -ENOMEM;
	cap = lines;
	for (line = text; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (config->nr_entries < cap &&
		    parse_line(line, &config->entries[config->nr_entries]))
			config->nr_entries++;
	}
	if (!config->nr_entries)
		return -EBADMSG;
	qsort(config->entries, config->nr_entries, sizeof(*config->entries), compare_entries);
	return 0;
}

static int load_file(struct sysroot *root, const char *path, bool gzipped, struct kconfig *config)
{
	char *data, *text;
	size_t len;
	int ret;

	snprintf(config->source, sizeof(config->source), "%s", path);
	ret = sysroot_read_alloc(root, &data, &len, "%s", path);
	if (ret)
		return ret;
	if (gzipped) {
		ret = kconfig_inflate(data, len, &text);
		free(data);
		if (ret)
			return ret;
	} else {
		text = data;
	}
	return kconfig_parse(config, text);
}

static const char *describe(int err)
{
	switch (err) {
	case -EBADMSG:
		return "not a kernel configuration (corrupt or truncated data, or no CONFIG_ lines)";
	case -ENOENT:
		return "absent";
	default:
		return sysroot_strerror(err);
	}
}

int kconfig_load(struct sysroot *root, struct kconfig *config)
{
	char release[65], boot[sizeof(config->source)];
	int ret, boot_ret;

	memset(config, 0, sizeof(*config));
	ret = load_file(root, "/proc/config.gz", true, config);
	if (!ret)
		return 0;
	kconfig_release(config);
	if (sysroot_read(root, release, sizeof(release), "/proc/sys/kernel/osrelease") <= 0 ||
	    strchr(release, '/')) {
		snprintf(config->why, sizeof(config->why),
			 "/proc/config.gz: %s; no kernel release to find /boot/config-<release>",
			 describe(ret));
		log_debug("kernel configuration: %s", config->why);
		return ret;
	}
	snprintf(boot, sizeof(boot), "/boot/config-%s", release);
	boot_ret = load_file(root, boot, false, config);
	if (!boot_ret)
		return 0;
	kconfig_release(config);
	snprintf(config->why, sizeof(config->why), "/proc/config.gz: %s; %s: %s", describe(ret),
		 boot, describe(boot_ret));
	if (ret != -ENOENT || boot_ret != -ENOENT)
		log_warning("cannot read the kernel configuration: %s", config->why);
	else
		log_debug("kernel configuration: %s", config->why);
	/* The more telling error: a broken file over an absent one. */
	return ret != -ENOENT ? ret : boot_ret;
}

void kconfig_release(struct kconfig *config)
{
	free(config->entries);
	free(config->text);
	config->entries = NULL;
	config->text = NULL;
	config->nr_entries = 0;
}

const struct kconfig_entry *kconfig_lookup(const struct kconfig *config, const char *name)
{
	struct kconfig_entry key = { .name = name };

	if (!config || !config->nr_entries)
		return NULL;
	return bsearch(&key, config->entries, config->nr_entries, sizeof(key), compare_entries);
}

const char *kconfig_value(const struct kconfig *config, const char *name)
{
	const struct kconfig_entry *entry = kconfig_lookup(config, name);

	return entry ? entry->value : NULL;
}

bool kconfig_enabled(const struct kconfig *config, const char *name)
{
	const char *value = kconfig_value(config, name);

	return value && (!strcmp(value, "y") || !strcmp(value, "m"));
}
