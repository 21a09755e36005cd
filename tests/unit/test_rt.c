// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <signal.h>
#include <unistd.h>

#include "latscope/rt.h"
#include "unit.h"

START_TEST(policies)
{
	enum rt_policy p;

	ck_assert_int_eq(rt_policy_parse("fifo", &p), 0);
	ck_assert_int_eq(p, RT_POLICY_FIFO);
	ck_assert_int_eq(rt_policy_parse("rr", &p), 0);
	ck_assert(rt_policy_is_realtime(p));
	ck_assert_int_eq(rt_policy_parse("normal", &p), 0);
	ck_assert_int_eq(p, RT_POLICY_OTHER);
	ck_assert(!rt_policy_is_realtime(p));
	ck_assert_int_eq(rt_policy_parse("FIFO", &p), -EINVAL);
	ck_assert_str_eq(rt_policy_name(RT_POLICY_RR), "rr");
}
END_TEST

START_TEST(throttling_limits)
{
	struct rt_throttling on = { 950000, 1000000 }, off = { -1, 1000000 },
			     full = { 1000000, 1000000 };

	ck_assert(rt_throttling_active(&on));
	ck_assert(!rt_throttling_active(&off));
	ck_assert(!rt_throttling_active(&full));
}
END_TEST

START_TEST(local_memory_is_zeroed)
{
	unsigned char *p = rt_alloc_local(1 << 20);
	size_t i;

	ck_assert_ptr_nonnull(p);
	for (i = 0; i < 1 << 20; i += 4096)
		ck_assert_uint_eq(p[i], 0);
	rt_free_local(p, 1 << 20);
}
END_TEST

/* A stop request ends a long preparation: nothing is left allocated. */
START_TEST(local_memory_gives_up_on_a_stop)
{
	static volatile sig_atomic_t stop;
	unsigned char *ptr;

	rt_set_stop_flag(&stop);
	ptr = rt_alloc_local(8 << 20);
	ck_assert_ptr_nonnull(ptr);
	ck_assert_uint_eq(ptr[(8 << 20) - 1], 0);
	rt_free_local(ptr, 8 << 20);
	stop = SIGTERM;
	ck_assert(rt_stop_requested());
	errno = 0;
	ck_assert_ptr_null(rt_alloc_local(8 << 20));
	ck_assert_int_eq(errno, EINTR);
	stop = 0;
	ck_assert(!rt_stop_requested());
	rt_set_stop_flag(NULL);
}
END_TEST

START_TEST(memory_limit_is_half_the_ram)
{
	uint64_t limit, ram = (uint64_t)sysconf(_SC_PHYS_PAGES) * (uint64_t)sysconf(_SC_PAGESIZE);
	const char *source = rt_memory_limit(false, &limit);

	ck_assert_str_eq(source, "half of the RAM");
	ck_assert_uint_eq(limit, ram / 2);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("rt");
	TCase *tc = tcase_create("rt");

	tcase_add_test(tc, policies);
	tcase_add_test(tc, throttling_limits);
	tcase_add_test(tc, local_memory_is_zeroed);
	tcase_add_test(tc, local_memory_gives_up_on_a_stop);
	tcase_add_test(tc, memory_limit_is_half_the_ram);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
