// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <string.h>

#include "latscope/cpuset.h"
#include "unit.h"

static const char *roundtrip(const char *text)
{
	static char out[256];
	struct cpuset set;

	ck_assert_msg(cpuset_parse_list(text, &set) == 0, "'%s' rejected", text);
	return cpuset_format_list(&set, out, sizeof(out));
}

START_TEST(lists_parse_and_format)
{
	ck_assert_str_eq(roundtrip("0-3,8,10-11"), "0-3,8,10-11");
	ck_assert_str_eq(roundtrip("3-5,0"), "0,3-5");
	ck_assert_str_eq(roundtrip("1"), "1");
	ck_assert_str_eq(roundtrip("0-1\n"), "0-1");
	ck_assert_str_eq(roundtrip(""), "");
	ck_assert_str_eq(roundtrip("0-7:2"), "0,2,4,6");
	ck_assert_str_eq(roundtrip("8191"), "8191");
	ck_assert_str_eq(roundtrip("1,1,2"), "1-2");
	/* runs found a word at a time: across words, to the last CPU */
	ck_assert_str_eq(roundtrip("0-63,64-127"), "0-127");
	ck_assert_str_eq(roundtrip("63-64,127,128,191-192"), "63-64,127-128,191-192");
	ck_assert_str_eq(roundtrip("0-8191"), "0-8191");
	ck_assert_str_eq(roundtrip("8128-8191"), "8128-8191");
	ck_assert_str_eq(roundtrip("0,8190-8191"), "0,8190-8191");
}
END_TEST

/* A range is added a word at a time: every edge of a 64-bit word, one CPU at a time. */
START_TEST(ranges_across_words)
{
	static const unsigned int edges[] = { 0, 1, 62, 63, 64, 65, 127, 128, 1023, 8191 };
	struct cpuset set;
	char text[64], back[64];
	unsigned int i, j, cpu;

	for (i = 0; i < sizeof(edges) / sizeof(edges[0]); i++)
		for (j = i; j < sizeof(edges) / sizeof(edges[0]); j++) {
			snprintf(text, sizeof(text), "%u-%u", edges[i], edges[j]);
			ck_assert_int_eq(cpuset_parse_list(text, &set), 0);
			ck_assert_uint_eq(cpuset_count(&set), edges[j] - edges[i] + 1);
			for (cpu = edges[i] ? edges[i] - 1 : 0; cpu <= edges[j] + 1 && cpu < 8192;
			     cpu++)
				ck_assert(cpuset_has(&set, cpu) ==
					  (cpu >= edges[i] && cpu <= edges[j]));
			snprintf(text, sizeof(text), i == j ? "%u" : "%u-%u", edges[i], edges[j]);
			ck_assert_str_eq(cpuset_format_list(&set, back, sizeof(back)), text);
		}
	/* iteration across the eight-word blocks the scan skips */
	{
		static const int bits[] = { 0, 63, 64, 511, 512, 520, 1023, 4096, 8190, 8191 };
		int at, n = 0;

		cpuset_clear(&set);
		ck_assert(cpuset_empty(&set));
		ck_assert_int_eq(cpuset_next(&set, -1), -1);
		for (i = 0; i < sizeof(bits) / sizeof(bits[0]); i++)
			cpuset_add(&set, (unsigned int)bits[i]);
		ck_assert(!cpuset_empty(&set));
		cpuset_for_each(at, &set)
			ck_assert_int_eq(at, bits[n++]);
		ck_assert_int_eq(n, 10);
		ck_assert_str_eq(cpuset_format_list(&set, back, sizeof(back)),
				 "0,63-64,511-512,520,1023,4096,8190-8191");
	}
	ck_assert_int_eq(cpuset_parse_list("0-1023,2048-4095:1000", &set), 0);
	ck_assert_uint_eq(cpuset_count(&set), 1024 + 3);
	ck_assert_str_eq(cpuset_format_list(&set, back, sizeof(back)), "0-1023,2048,3048,4048");
}
END_TEST

START_TEST(lists_rejected)
{
	static const char *const bad[] = { "3-x", "a",	 "1-",	  "-1", "5-3", "1,,2",
					   "1;2", "1 2", "0-7:0", "1,", NULL };
	struct cpuset set;

	for (int i = 0; bad[i]; i++)
		ck_assert_msg(cpuset_parse_list(bad[i], &set) == -EINVAL, "'%s' accepted", bad[i]);
	ck_assert_int_eq(cpuset_parse_list("8192", &set), -ERANGE);
	/* what the kernel prints for a mask it never allocated is no list a user types */
	ck_assert_int_eq(cpuset_parse_list("(null)", &set), -EINVAL);
}
END_TEST

/* nohz_full of a 6.1 kernel with NO_HZ_FULL booted without nohz_full=, on 4 and 8 CPUs */
START_TEST(unallocated_kernel_masks_are_empty)
{
	static const char *const empty[] = { "(null)\n", "  (null)\n", "(null)", NULL };
	static const char *const bad[] = { "(null)x\n", "(nul)\n", "1,(null)\n", NULL };
	struct cpuset set;

	for (int i = 0; empty[i]; i++) {
		cpuset_add(&set, 3);
		ck_assert_int_eq(cpuset_parse_kernel_list(empty[i], &set), 0);
		ck_assert_msg(cpuset_empty(&set), "'%s' not empty", empty[i]);
	}
	for (int i = 0; bad[i]; i++)
		ck_assert_msg(cpuset_parse_kernel_list(bad[i], &set) == -EINVAL, "'%s' accepted",
			      bad[i]);
	ck_assert_int_eq(cpuset_parse_kernel_list("2-3\n", &set), 0);
	ck_assert_uint_eq(cpuset_count(&set), 2);
}
END_TEST

START_TEST(masks)
{
	struct cpuset set;
	char out[256];

	ck_assert_int_eq(cpuset_parse_mask("3\n", &set), 0);
	ck_assert_str_eq(cpuset_format_list(&set, out, sizeof(out)), "0-1");
	ck_assert_int_eq(cpuset_parse_mask("ff,00000003", &set), 0);
	ck_assert_str_eq(cpuset_format_list(&set, out, sizeof(out)), "0-1,32-39");
	ck_assert_str_eq(cpuset_format_mask(&set, 40, out, sizeof(out)), "ff,00000003");
	cpuset_parse_list("0-1", &set);
	ck_assert_str_eq(cpuset_format_mask(&set, 2, out, sizeof(out)), "3");
	ck_assert_str_eq(cpuset_format_mask(&set, 64, out, sizeof(out)), "00000000,00000003");
	ck_assert_int_eq(cpuset_parse_mask("xyz", &set), -EINVAL);
	ck_assert_int_eq(cpuset_parse_mask("", &set), -EINVAL);
}
END_TEST

START_TEST(set_algebra)
{
	struct cpuset a, b, c;
	char out[64];
	int cpu, n = 0;

	cpuset_parse_list("0-7", &a);
	cpuset_parse_list("2-3,100", &b);
	cpuset_andnot(&c, &a, &b);
	ck_assert_str_eq(cpuset_format_list(&c, out, sizeof(out)), "0-1,4-7");
	cpuset_and(&c, &a, &b);
	ck_assert_str_eq(cpuset_format_list(&c, out, sizeof(out)), "2-3");
	cpuset_or(&c, &a, &b);
	ck_assert_uint_eq(cpuset_count(&c), 9);
	ck_assert(cpuset_intersects(&a, &b));
	ck_assert(!cpuset_subset(&b, &a));
	cpuset_remove(&b, 100);
	ck_assert(cpuset_subset(&b, &a));
	cpuset_for_each(cpu, &c)
		n++;
	ck_assert_int_eq(n, 9);
	ck_assert_int_eq(cpuset_next(&c, 7), 100);
	ck_assert_int_eq(cpuset_next(&c, 100), -1);
}
END_TEST

START_TEST(long_lists_are_cut_visibly)
{
	struct cpuset set;
	char out[16];

	cpuset_parse_list("0,2,4,6,8,10,12,14,16,18", &set);
	cpuset_format_list(&set, out, sizeof(out));
	ck_assert_ptr_nonnull(strstr(out, "..."));
	ck_assert_uint_lt(strlen(out), sizeof(out));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("cpuset");
	TCase *tc = tcase_create("cpuset");

	tcase_add_test(tc, lists_parse_and_format);
	tcase_add_test(tc, ranges_across_words);
	tcase_add_test(tc, lists_rejected);
	tcase_add_test(tc, unallocated_kernel_masks_are_empty);
	tcase_add_test(tc, masks);
	tcase_add_test(tc, set_algebra);
	tcase_add_test(tc, long_lists_are_cut_visibly);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
