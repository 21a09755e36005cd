// SPDX-License-Identifier: GPL-2.0-or-later
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "latscope/cpuset.h"

void cpuset_clear(struct cpuset *set)
{
	memset(set, 0, sizeof(*set));
}

void cpuset_add(struct cpuset *set, unsigned int cpu)
{
	if (cpu < CPUSET_MAX_CPUS)
		set->words[cpu / 64] |= 1ULL << (cpu % 64);
}

void cpuset_remove(struct cpuset *set, unsigned int cpu)
{
	if (cpu < CPUSET_MAX_CPUS)
		set->words[cpu / 64] &= ~(1ULL << (cpu % 64));
}

bool cpuset_has(const struct cpuset *set, unsigned int cpu)
{
	return cpu < CPUSET_MAX_CPUS && (set->words[cpu / 64] >> (cpu % 64)) & 1;
}

unsigned int cpuset_count(const struct cpuset *set)
{
	unsigned int n = 0, i;

	for (i = 0; i < CPUSET_WORDS; i++)
		n += (unsigned int)__builtin_popcountll(set->words[i]);
	return n;
}

bool cpuset_empty(const struct cpuset *set)
{
	uint64_t any = 0;
	unsigned int i;

	/* no early exit: the compiler ORs the 128 words a vector at a time */
	for (i = 0; i < CPUSET_WORDS; i++)
		any |= set->words[i];
	return !any;
}

/*
 * The first word from @word on for which @bits (the word, or its
 * complement) is not zero, CPUSET_WORDS when none: eight words at a time,
 * as a set of 8192 bits is mostly zeros past its last CPU.
 */
static unsigned int first_word(const struct cpuset *set, unsigned int word, uint64_t flip)
{
	while (word % 8 && word < CPUSET_WORDS) {
		if (set->words[word] ^ flip)
			return word;
		word++;
	}
	for (; word < CPUSET_WORDS; word += 8) {
		const uint64_t *w = &set->words[word];

		if ((w[0] ^ flip) | (w[1] ^ flip) | (w[2] ^ flip) | (w[3] ^ flip) | (w[4] ^ flip) |
		    (w[5] ^ flip) | (w[6] ^ flip) | (w[7] ^ flip))
			break;
	}
	for (; word < CPUSET_WORDS; word++)
		if (set->words[word] ^ flip)
			return word;
	return CPUSET_WORDS;
}

bool cpuset_equal(const struct cpuset *a, const struct cpuset *b)
{
	return !memcmp(a, b, sizeof(*a));
}

bool cpuset_subset(const struct cpuset *sub, const struct cpuset *set)
{
	unsigned int i;

	for (i = 0; i < CPUSET_WORDS; i++)
		if (sub->words[i] & ~set->words[i])
			return false;
	return true;
}

bool cpuset_intersects(const struct cpuset *a, const struct cpuset *b)
{
	unsigned int i;

	for (i = 0; i < CPUSET_WORDS; i++)
		if (a->words[i] & b->words[i])
			return true;
	return false;
}

void cpuset_or(struct cpuset *out, const struct cpuset *a, const struct cpuset *b)
{
	unsigned int i;

	for (i = 0; i < CPUSET_WORDS; i++)
		out->words[i] = a->words[i] | b->words[i];
}

void cpuset_and(struct cpuset *out, const struct cpuset *a, const struct cpuset *b)
{
	unsigned int i;

	for (i = 0; i < CPUSET_WORDS; i++)
		out->words[i] = a->words[i] & b->words[i];
}

void cpuset_andnot(struct cpuset *out, const struct cpuset *a, const struct cpuset *b)
{
	unsigned int i;

	for (i = 0; i < CPUSET_WORDS; i++)
		out->words[i] = a->words[i] & ~b->words[i];
}

int cpuset_next(const struct cpuset *set, int cpu)
{
	unsigned int next = (unsigned int)(cpu + 1), word;
	uint64_t bits;

	if (cpu + 1 >= CPUSET_MAX_CPUS)
		return -1;
	word = next / 64;
	bits = set->words[word] & (~0ULL << (next % 64));
	if (bits)
		return (int)(word * 64 + (unsigned int)__builtin_ctzll(bits));
	word = first_word(set, word + 1, 0);
	if (word == CPUSET_WORDS)
		return -1;
	return (int)(word * 64 + (unsigned int)__builtin_ctzll(set->words[word]));
}

static int parse_cpu_number(const char **p, unsigned long *cpu)
{
	char *end;

	if (!isdigit((unsigned char)**p))
		return -EINVAL;
	errno = 0;
	*cpu = strtoul(*p, &end, 10);
	if (errno == ERANGE || *cpu >= CPUSET_MAX_CPUS)
		return -ERANGE;
	*p = end;
	return 0;
}

/* @first to @last (both below CPUSET_MAX_CPUS), a word at a time: "0-1023" is 16 stores */
static void add_range(struct cpuset *set, unsigned int first, unsigned int last)
{
	unsigned int word = first / 64, end = last / 64;
	uint64_t low = ~0ULL << (first % 64), high = ~0ULL >> (63 - last % 64);

	if (word == end) {
		set->words[word] |= low & high;
		return;
	}
	set->words[word] |= low;
	while (++word < end)
		set->words[word] = ~0ULL;
	set->words[end] |= high;
}

int cpuset_parse_list(const char *text, struct cpuset *set)
{
	const char *p = text;
	unsigned long first, last, stride, cpu;
	int ret;

	cpuset_clear(set);
	while (isspace((unsigned char)*p))
		p++;
	if (!*p)
		return 0;
	for (;;) {
		ret = parse_cpu_number(&p, &first);
		if (ret)
			return ret;
		last = first;
		stride = 1;
		if (*p == '-') {
			p++;
			ret = parse_cpu_number(&p, &last);
			if (ret)
				return ret;
			if (last < first)
				return -EINVAL;
			if (*p == ':') {
				p++;
				ret = parse_cpu_number(&p, &stride);
				if (ret)
					return ret;
				if (!stride)
					return -EINVAL;
			}
		}
		if (stride == 1)
			add_range(set, (unsigned int)first, (unsigned int)last);
		else
			for (cpu = first; cpu <= last; cpu += stride)
				cpuset_add(set, (unsigned int)cpu);
		if (*p != ',')
			break;
		p++;
	}
	while (isspace((unsigned char)*p))
		p++;
	return *p ? -EINVAL : 0;
}

int cpuset_parse_kernel_list(const char *text, struct cpuset *set)
{
	const char *p = text + strspn(text, " ");

	if (!strncmp(p, "(null)", 6)) {
		for (p += 6; isspace((unsigned char)*p); p++)
			;
		if (!*p) {
			cpuset_clear(set);
			return 0;
		}
	}
	return cpuset_parse_list(text, set);
}

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = (char)tolower((unsigned char)c);
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

int cpuset_parse_mask(const char *text, struct cpuset *set)
{
	const char *start = text, *end;
	unsigned int bit = 0;
	int digits = 0;

	cpuset_clear(set);
	while (isspace((unsigned char)*start))
		start++;
	end = start + strlen(start);
	while (end > start && isspace((unsigned char)end[-1]))
		end--;
	if (end == start)
		return -EINVAL;
	/* Read from the least significant digit, skipping the group commas. */
	while (end > start) {
		char c = *--end;
		int v;

		if (c == ',')
			continue;
		v = hex_digit(c);
		if (v < 0)
			return -EINVAL;
		for (int i = 0; i < 4; i++, bit++) {
			if (!(v >> i & 1))
				continue;
			if (bit >= CPUSET_MAX_CPUS)
				return -ERANGE;
			cpuset_add(set, bit);
		}
		digits++;
	}
	return digits ? 0 : -EINVAL;
}

/* the first CPU from @cpu on that is not in @set; CPUSET_MAX_CPUS when none */
static int next_absent(const struct cpuset *set, int cpu)
{
	unsigned int word = (unsigned int)cpu / 64;
	uint64_t bits = ~set->words[word] & (~0ULL << ((unsigned int)cpu % 64));

	if (bits)
		return (int)(word * 64 + (unsigned int)__builtin_ctzll(bits));
	word = first_word(set, word + 1, ~0ULL);
	if (word == CPUSET_WORDS)
		return CPUSET_MAX_CPUS;
	return (int)(word * 64 + (unsigned int)__builtin_ctzll(~set->words[word]));
}

/* @value in decimal at @p, no NUL; returns the end */
static char *put_number(char *p, unsigned int value)
{
	char digits[12];
	int n = 0;

	do
		digits[n++] = (char)('0' + value % 10);
	while ((value /= 10));
	while (n)
		*p++ = digits[--n];
	return p;
}

/*
 * Run by run, a word at a time, digits by hand: "0-1023" costs a few word
 * reads, not 1024 calls of cpuset_next() nor a printf (a --json of 10,000
 * IRQs formats 30,000 sets).
 */
char *cpuset_format_list(const struct cpuset *set, char *buf, size_t size)
{
	size_t len = 0;
	int first, last;

	if (!size)
		return buf;
	buf[0] = '\0';
	for (first = cpuset_next(set, -1); first >= 0; first = cpuset_next(set, last)) {
		char piece[32], *end = piece;

		last = next_absent(set, first) - 1;
		if (len)
			*end++ = ',';
		end = put_number(end, (unsigned int)first);
		if (first != last) {
			*end++ = '-';
			end = put_number(end, (unsigned int)last);
		}
		if (len + (size_t)(end - piece) + 4 > size) {
			snprintf(buf + len, size - len, "...");
			return buf;
		}
		memcpy(buf + len, piece, (size_t)(end - piece));
		len += (size_t)(end - piece);
		buf[len] = '\0';
	}
	return buf;
}

char *cpuset_format_mask(const struct cpuset *set, unsigned int nr_cpus, char *buf, size_t size)
{
	unsigned int groups, g, top_digits;
	size_t len = 0;

	if (!nr_cpus)
		nr_cpus = 1;
	groups = (nr_cpus + 31) / 32;
	/* Like the kernel's %*pb: the top group has only the digits it needs. */
	top_digits = ((nr_cpus - 1) % 32) / 4 + 1;
	if (size)
		buf[0] = '\0';
	for (g = groups; g-- > 0;) {
		uint32_t v = (uint32_t)(set->words[g / 2] >> (g % 2 * 32));
		int n;

		if (g + 1 == groups)
			n = snprintf(buf + len, size - len, "%0*x", (int)top_digits, v);
		else
			n = snprintf(buf + len, size - len, ",%08x", v);
		if (n < 0 || len + (size_t)n >= size)
			break;
		len += (size_t)n;
	}
	return buf;
}
