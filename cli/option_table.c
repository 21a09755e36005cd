// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <getopt.h>
#include <string.h>

#include "cli.h"
#include "latscope/parse.h"
#include "latscope/result.h"

int option_integer(const char *option, const char *arg, long long min, long long max,
		   long long *value)
{
	int ret = parse_integer(arg, min, max, value);

	if (ret == -ERANGE)
		return usage_error("%s '%s' is out of range (%lld-%lld)", option, arg, min, max);
	if (ret)
		return usage_error("invalid number '%s' for %s", arg, option);
	return 0;
}

int option_duration(const char *option, const char *arg, uint64_t bare_unit_ns, uint64_t min_ns,
		    uint64_t max_ns, uint64_t *ns)
{
	char low[32], high[32];
	int ret = parse_duration(arg, bare_unit_ns, min_ns, max_ns, ns);

	if (ret == -ERANGE)
		return usage_error("%s '%s' is out of range (%s to %s)", option, arg,
				   format_duration(min_ns, low, sizeof(low)),
				   format_duration(max_ns, high, sizeof(high)));
	if (ret)
		return usage_error("invalid duration '%s' for %s (use ns, us, ms, s, m, h or d)",
				   arg, option);
	return 0;
}

int option_cpus(const char *option, const char *arg, struct cpuset *set)
{
	if (cpuset_parse_list(arg, set) || cpuset_empty(set))
		return usage_error("invalid cpu list '%s' for %s", arg, option);
	return 0;
}

static const struct option *find_long(const struct option *longopts, const char *name, size_t len)
{
	for (; longopts && longopts->name; longopts++)
		if (strlen(longopts->name) == len && !strncmp(longopts->name, name, len))
			return longopts;
	return NULL;
}

int option_output_path(const char *option, const char *path)
{
	int ret;

	if (!path)
		return 0;
	ret = result_check_writable(path);
	if (ret)
		return usage_error("cannot write %s '%s': %s", option, path, strerror(-ret));
	return 0;
}

int option_rejected(int argc, char **argv, const char *shortopts, const struct option *longopts)
{
	const char *word = optind > 0 && optind <= argc ? argv[optind - 1] : "?";
	const struct option *known_long;
	const char *known;
	size_t len;

	if (word[0] == '-' && word[1] == '-') {
		len = strcspn(word + 2, "=");
		known_long = find_long(longopts, word + 2, len);
		if (!known_long)
			return usage_error("unknown option '--%.*s'", (int)len, word + 2);
		if (known_long->has_arg == no_argument)
			return usage_error("option '--%s' takes no value", known_long->name);
		return usage_error("option '--%s' needs a value", known_long->name);
	}
	known = optopt ? strchr(shortopts, optopt) : NULL;
	if (known && known[1] == ':')
		return usage_error("option '-%c' needs a value", optopt);
	if (optopt)
		return usage_error("unknown option '-%c'", optopt);
	return usage_error("unknown option '%s'", word);
}
