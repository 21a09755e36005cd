// SPDX-License-Identifier: GPL-2.0-or-later
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "audit_internal.h"
#include "latscope/parse.h"

static int format_path(char *path, size_t size, const char *fmt, va_list ap)
{
	int n = vsnprintf(path, size, fmt, ap);

	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

/* Evidence shows one line: a multi-line file is summarized by its first line. */
static void add_text_evidence(struct audit_finding *f, const char *path, const char *text)
{
	const char *newline = strchr(text, '\n');
	size_t len = newline ? (size_t)(newline - text) : strlen(text);

	/* sysfs choice lists end in a space */
	while (len && isspace((unsigned char)text[len - 1]))
		len--;
	finding_evidence(f, path, "%.*s%s", (int)len, text, newline ? " ..." : "");
}

static int vread(struct audit_context *ctx, struct audit_finding *f, char *buf, size_t size,
		 char *path, size_t path_size, const char *fmt, va_list ap)
{
	int ret = format_path(path, path_size, fmt, ap);

	if (ret)
		return ret;
	ret = sysroot_read(ctx->root, buf, size, "%s", path);
	if (ret >= 0)
		add_text_evidence(f, path, buf);
	return ret;
}

int audit_read(struct audit_context *ctx, struct audit_finding *f, char *buf, size_t size,
	       const char *fmt, ...)
{
	char path[512];
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = vread(ctx, f, buf, size, path, sizeof(path), fmt, ap);
	va_end(ap);
	return ret;
}

typedef int (*text_parser)(const char *text, void *out);

static int parse_integer_text(const char *text, void *out)
{
	return parse_integer(text, INT64_MIN, INT64_MAX, out) ? -EINVAL : 0;
}

static int parse_cpulist_text(const char *text, void *out)
{
	return cpuset_parse_kernel_list(text, out) ? -EINVAL : 0;
}

/* Read and parse; the text seen is evidence even when it does not parse. */
static int vread_parsed(struct audit_context *ctx, struct audit_finding *f, char *buf, size_t size,
			text_parser parser, void *out, const char *fmt, va_list ap)
{
	char path[512];
	int ret = vread(ctx, f, buf, size, path, sizeof(path), fmt, ap);

	if (ret == -EFBIG)
		return -EINVAL;
	if (ret < 0)
		return ret;
	return parser(buf, out);
}

int audit_read_integer(struct audit_context *ctx, struct audit_finding *f, long long *value,
		       const char *fmt, ...)
{
	char buf[64];
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = vread_parsed(ctx, f, buf, sizeof(buf), parse_integer_text, value, fmt, ap);
	va_end(ap);
	return ret;
}

int audit_read_cpulist(struct audit_context *ctx, struct audit_finding *f, struct cpuset *set,
		       const char *fmt, ...)
{
	char buf[4096];
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = vread_parsed(ctx, f, buf, sizeof(buf), parse_cpulist_text, set, fmt, ap);
	va_end(ap);
	return ret;
}

bool audit_need_read(struct audit_context *ctx, struct audit_finding *f, char *buf, size_t size,
		     const char *path)
{
	int ret = audit_read(ctx, f, buf, size, "%s", path);

	if (ret >= 0)
		return true;
	finding_skip_unreadable(f, path, ret == -EFBIG ? -EINVAL : ret);
	return false;
}

bool audit_need_integer(struct audit_context *ctx, struct audit_finding *f, long long *value,
			const char *path)
{
	int ret = audit_read_integer(ctx, f, value, "%s", path);

	if (!ret)
		return true;
	finding_skip_unreadable(f, path, ret);
	return false;
}

int audit_read_optional_integer(struct audit_context *ctx, struct audit_finding *f,
				long long *value, const char *path)
{
	int ret = audit_read_integer(ctx, f, value, "%s", path);

	if (ret == -ENOENT)
		finding_evidence(f, path, "absent");
	else if (ret)
		finding_skip_unreadable(f, path, ret);
	return ret;
}

const char *audit_selected_word(const char *text, char *buf, size_t size)
{
	const char *open = strchr(text, '['), *close;

	buf[0] = '\0';
	if (!open)
		return buf;
	close = strchr(open, ']');
	if (!close || (size_t)(close - open - 1) >= size)
		return buf;
	memcpy(buf, open + 1, (size_t)(close - open - 1));
	buf[close - open - 1] = '\0';
	return buf;
}

bool audit_need_config(struct audit_context *ctx, struct audit_finding *f)
{
	if (!ctx->config_ret)
		return true;
	finding_skip(f, "no kernel configuration: %s", ctx->config.why);
	return false;
}

const char *audit_config(struct audit_context *ctx, struct audit_finding *f, const char *name)
{
	const struct kconfig_entry *entry = kconfig_lookup(&ctx->config, name);

	if (entry && entry->value)
		finding_evidence(f, ctx->config.source, "CONFIG_%s=%s", name, entry->value);
	else if (entry)
		finding_evidence(f, ctx->config.source, "CONFIG_%s is not set", name);
	else
		finding_evidence(f, ctx->config.source, "CONFIG_%s absent", name);
	return entry ? entry->value : NULL;
}

bool audit_config_enabled(struct audit_context *ctx, struct audit_finding *f, const char *name)
{
	const char *value = audit_config(ctx, f, name);

	return value && (!strcmp(value, "y") || !strcmp(value, "m"));
}

/*
 * Find "name" or "name=value" as a whole word of the command line. The last
 * occurrence wins, as for most kernel parameters. Double quotes may wrap a
 * value with spaces.
 */
static bool find_param(const char *cmdline, const char *name, char *value, size_t size)
{
	size_t name_len = strlen(name);
	const char *p = cmdline;
	bool found = false;

	while (*p) {
		const char *start, *end;
		bool quoted = false;

		while (isspace((unsigned char)*p))
			p++;
		if (!*p)
			break;
		start = p;
		for (end = p; *end && (quoted || !isspace((unsigned char)*end)); end++)
			if (*end == '"')
				quoted = !quoted;
		p = end;
		if ((size_t)(end - start) < name_len || strncmp(start, name, name_len))
			continue;
		if (start + name_len == end) {
			found = true;
			if (size)
				value[0] = '\0';
		} else if (start[name_len] == '=') {
			const char *v = start + name_len + 1;
			size_t len = (size_t)(end - v);

			if (len >= 2 && v[0] == '"' && v[len - 1] == '"') {
				v++;
				len -= 2;
			}
			found = true;
			if (size) {
				if (len >= size)
					len = size - 1;
				memcpy(value, v, len);
				value[len] = '\0';
			}
		}
	}
	return found;
}

bool audit_cmdline(struct audit_context *ctx, struct audit_finding *f, const char *name,
		   char *value, size_t size)
{
	char local[512];
	bool found;

	if (!value || !size) {
		value = local;
		size = sizeof(local);
	}
	if (ctx->cmdline_ret) {
		finding_evidence(f, "/proc/cmdline", "unreadable: %s", strerror(-ctx->cmdline_ret));
		value[0] = '\0';
		return false;
	}
	found = find_param(ctx->cmdline, name, value, size);
	if (!found)
		finding_evidence(f, "/proc/cmdline", "no %s parameter", name);
	else if (value[0])
		finding_evidence(f, "/proc/cmdline", "%s=%s", name, value);
	else
		finding_evidence(f, "/proc/cmdline", "%s", name);
	return found;
}

void audit_evidence_listed(struct audit_finding *f, unsigned int *listed, const char *path,
			   const char *fmt, ...)
{
	char value[512];
	va_list ap;

	if ((*listed)++ >= AUDIT_MAX_LISTED)
		return;
	va_start(ap, fmt);
	vsnprintf(value, sizeof(value), fmt, ap);
	va_end(ap);
	finding_evidence(f, path, "%s", value);
}

void audit_evidence_rest(struct audit_finding *f, unsigned int listed, const char *path,
			 const char *what)
{
	if (listed > AUDIT_MAX_LISTED)
		finding_evidence(f, path, "... and %u more %s", listed - AUDIT_MAX_LISTED, what);
}

void audit_list_append(char *list, size_t size, const char *fmt, ...)
{
	size_t len = strlen(list), sep = len ? 2 : 0;
	char item[256];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(item, sizeof(item), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(item) || len + sep + (size_t)n + 1 > size)
		return;
	memcpy(list + len, ", ", sep);
	memcpy(list + len + sep, item, (size_t)n + 1);
}

bool audit_list_has(const char *list, const char *item)
{
	size_t len = strlen(item);
	const char *p = list;

	while ((p = strstr(p, item))) {
		if ((p == list || (p >= list + 2 && p[-2] == ',' && p[-1] == ' ')) &&
		    (!p[len] || p[len] == ','))
			return true;
		p += len;
	}
	return false;
}

const struct cpuset *audit_rt_or_online(const struct audit_context *ctx)
{
	return cpuset_empty(&ctx->rt) ? &ctx->topo->online : &ctx->rt;
}

bool audit_need_rt(struct audit_context *ctx, struct audit_finding *f)
{
	if (!cpuset_empty(&ctx->rt))
		return true;
	finding_skip(f, AUDIT_NO_RT_CPUS);
	return false;
}

const char *cpus_text(const struct cpuset *set, struct cpus_text *buf)
{
	if (cpuset_empty(set)) {
		snprintf(buf->text, sizeof(buf->text), "none");
		return buf->text;
	}
	return cpuset_format_list(set, buf->text, sizeof(buf->text));
}

const char *cpus_mask_text(const struct audit_context *ctx, const struct cpuset *set,
			   struct cpus_text *buf)
{
	return cpuset_format_mask(set, ctx->topo->nr_cpus, buf->text, sizeof(buf->text));
}

const char *rt_cpus_for_fix(const struct audit_context *ctx, struct cpus_text *buf)
{
	struct cpuset candidates = ctx->topo->online;
	int first = cpuset_next(&candidates, -1);

	if (!cpuset_empty(&ctx->rt))
		return cpus_text(&ctx->rt, buf);
	/* the boot CPU stays for housekeeping (nohz_full refuses it anyway) */
	if (first >= 0)
		cpuset_remove(&candidates, (unsigned int)first);
	if (cpuset_empty(&candidates)) {
		snprintf(buf->text, sizeof(buf->text), "<RT CPUs>");
		return buf->text;
	}
	return cpus_text(&candidates, buf);
}
