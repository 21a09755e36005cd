/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_CPUSET_H
#define LATSCOPE_CPUSET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Debian's kernels are built with NR_CPUS=8192. */
#define CPUSET_MAX_CPUS 8192
#define CPUSET_WORDS (CPUSET_MAX_CPUS / 64)
/*
 * Room for any cpu list of CPUSET_MAX_CPUS CPUs and its NUL: the longest is
 * pairs with gaps ("0-1,3-4,...,8189-8190"), 26,568 characters.
 */
#define CPUSET_LIST_SIZE 32768

/* A set of CPU numbers. Plain value type: copy it with '='. */
struct cpuset {
	uint64_t words[CPUSET_WORDS];
};

void cpuset_clear(struct cpuset *set);
void cpuset_add(struct cpuset *set, unsigned int cpu);
void cpuset_remove(struct cpuset *set, unsigned int cpu);
bool cpuset_has(const struct cpuset *set, unsigned int cpu);
unsigned int cpuset_count(const struct cpuset *set);
bool cpuset_empty(const struct cpuset *set);
bool cpuset_equal(const struct cpuset *a, const struct cpuset *b);
/* true when every CPU of @sub is in @set */
bool cpuset_subset(const struct cpuset *sub, const struct cpuset *set);
bool cpuset_intersects(const struct cpuset *a, const struct cpuset *b);
/* @out may be one of the inputs */
void cpuset_or(struct cpuset *out, const struct cpuset *a, const struct cpuset *b);
void cpuset_and(struct cpuset *out, const struct cpuset *a, const struct cpuset *b);
void cpuset_andnot(struct cpuset *out, const struct cpuset *a, const struct cpuset *b);

/**
 * cpuset_next - iterate over the CPUs of a set in ascending order
 * @set: the set
 * @cpu: -1 to start, then the previous result
 *
 * Returns the next CPU after @cpu, or -1 when there is none.
 */
int cpuset_next(const struct cpuset *set, int cpu);

#define cpuset_for_each(cpu, set) \
	for ((cpu) = cpuset_next((set), -1); (cpu) >= 0; (cpu) = cpuset_next((set), (cpu)))

/**
 * cpuset_parse_list - parse a cpu list such as "0-3,8,10-11"
 * @text: the list; surrounding whitespace and a trailing newline are allowed
 *	  (as in sysfs files); an empty list gives an empty set
 * @set: receives the set
 *
 * Also accepts the kernel's stride form "0-15:2" (every second CPU).
 * Returns 0, -EINVAL when malformed, -ERANGE for a CPU beyond CPUSET_MAX_CPUS.
 */
int cpuset_parse_list(const char *text, struct cpuset *set);

/**
 * cpuset_parse_kernel_list - parse a cpu list as a kernel file holds one
 * @text: the file's text
 * @set: receives the set
 *
 * As cpuset_parse_list(), and "(null)", padded on the left to the width of
 * the CPU ids, is the empty set: the kernel prints a mask it never
 * allocated so (nohz_full on a 6.1 kernel built with NO_HZ_FULL and booted
 * without nohz_full=, as Debian's RT kernel). Not for lists users type.
 * Returns as cpuset_parse_list().
 */
int cpuset_parse_kernel_list(const char *text, struct cpuset *set);

/**
 * cpuset_parse_mask - parse a hexadecimal cpumask such as "ff,00000003"
 * @text: the mask in the format of /proc/irq/N/smp_affinity
 * @set: receives the set
 */
int cpuset_parse_mask(const char *text, struct cpuset *set);

/**
 * cpuset_format_list - format a set as a compact cpu list ("0-3,8")
 * @set: the set
 * @buf: receives the text; "" for an empty set
 * @size: size of @buf; the text is truncated with "..." when too long
 *
 * Returns @buf.
 */
char *cpuset_format_list(const struct cpuset *set, char *buf, size_t size);

/**
 * cpuset_format_mask - format a set as the kernel's hexadecimal cpumask
 * @set: the set
 * @nr_cpus: number of CPU bits to print (rounded up to 32-bit groups)
 * @buf: receives the text
 * @size: size of @buf
 *
 * Returns @buf.
 */
char *cpuset_format_mask(const struct cpuset *set, unsigned int nr_cpus, char *buf, size_t size);

#endif
