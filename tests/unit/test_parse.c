// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>

#include "latscope/parse.h"
#include "unit.h"

START_TEST(integers_in_range)
{
	long long v;

	ck_assert_int_eq(parse_integer("90", 1, 99, &v), 0);
	ck_assert_int_eq(v, 90);
	ck_assert_int_eq(parse_integer("-5", -10, 10, &v), 0);
	ck_assert_int_eq(v, -5);
	ck_assert_int_eq(parse_integer("0", 0, 0, &v), 0);
}
END_TEST

START_TEST(integers_rejected)
{
	long long v = 42;

	ck_assert_int_eq(parse_integer("", 0, 100, &v), -EINVAL);
	ck_assert_int_eq(parse_integer("abc", 0, 100, &v), -EINVAL);
	ck_assert_int_eq(parse_integer("12x", 0, 100, &v), -EINVAL);
	ck_assert_int_eq(parse_integer(" 12", 0, 100, &v), -EINVAL);
	ck_assert_int_eq(parse_integer("0x10", 0, 100, &v), -EINVAL);
	ck_assert_int_eq(parse_integer("100", 1, 99, &v), -ERANGE);
	ck_assert_int_eq(parse_integer("0", 1, 99, &v), -ERANGE);
	ck_assert_int_eq(parse_integer("99999999999999999999", 0, 100, &v), -ERANGE);
	ck_assert_int_eq(parse_integer(NULL, 0, 100, &v), -EINVAL);
	ck_assert_int_eq(v, 42);
}
END_TEST

START_TEST(numbers_in_range)
{
	double v;

	ck_assert_int_eq(parse_number("0.95", 0, 1, &v), 0);
	ck_assert(v == 0.95);
	ck_assert_int_eq(parse_number("25", 1, 1000, &v), 0);
	ck_assert(v == 25);
	ck_assert_int_eq(parse_number("-3.5", -10, 10, &v), 0);
	ck_assert(v == -3.5);
	ck_assert_int_eq(parse_number(".5", 0, 1, &v), 0);
	ck_assert(v == 0.5);
	ck_assert_int_eq(parse_number("1.", 0, 1, &v), 0);
	ck_assert(v == 1);
}
END_TEST

START_TEST(numbers_rejected)
{
	double v = 42;

	ck_assert_int_eq(parse_number("", 0, 1, &v), -EINVAL);
	ck_assert_int_eq(parse_number(".", 0, 1, &v), -EINVAL);
	ck_assert_int_eq(parse_number("-", 0, 1, &v), -EINVAL);
	ck_assert_int_eq(parse_number(" 0.5", 0, 1, &v), -EINVAL);
	ck_assert_int_eq(parse_number("0.5 ", 0, 1, &v), -EINVAL);
	ck_assert_int_eq(parse_number("1e-1", 0, 1, &v), -EINVAL);
	ck_assert_int_eq(parse_number("0x1", 0, 1, &v), -EINVAL);
	ck_assert_int_eq(parse_number("nan", 0, 1, &v), -EINVAL);
	ck_assert_int_eq(parse_number("inf", 0, 1e300, &v), -EINVAL);
	ck_assert_int_eq(parse_number("0.5%", 0, 1, &v), -EINVAL);
	ck_assert_int_eq(parse_number("1.01", 0, 1, &v), -ERANGE);
	ck_assert_int_eq(parse_number("-0.1", 0, 1, &v), -ERANGE);
	ck_assert_int_eq(parse_number(NULL, 0, 1, &v), -EINVAL);
	ck_assert(v == 42);
}
END_TEST

static uint64_t duration(const char *text, uint64_t bare)
{
	uint64_t ns = 0;

	ck_assert_msg(parse_duration(text, bare, 0, UINT64_MAX / 2, &ns) == 0, "'%s' rejected",
		      text);
	return ns;
}

START_TEST(durations_with_units)
{
	ck_assert_uint_eq(duration("500ns", NS_PER_SEC), 500);
	ck_assert_uint_eq(duration("20us", NS_PER_SEC), 20000);
	ck_assert_uint_eq(duration("10ms", NS_PER_SEC), 10000000);
	ck_assert_uint_eq(duration("5s", NS_PER_SEC), 5000000000ULL);
	ck_assert_uint_eq(duration("2m", NS_PER_SEC), 120000000000ULL);
	ck_assert_uint_eq(duration("1h", NS_PER_SEC), 3600000000000ULL);
	ck_assert_uint_eq(duration("1d", NS_PER_SEC), 86400000000000ULL);
	ck_assert_uint_eq(duration("1.5ms", NS_PER_SEC), 1500000);
	ck_assert_uint_eq(duration("0.25s", NS_PER_SEC), 250000000);
}
END_TEST

START_TEST(durations_bare_number_uses_option_unit)
{
	ck_assert_uint_eq(duration("10", NS_PER_SEC), 10000000000ULL);
	ck_assert_uint_eq(duration("10", NS_PER_US), 10000);
	ck_assert_uint_eq(duration("2.5", NS_PER_US), 2500);
}
END_TEST

START_TEST(durations_rejected)
{
	static const char *const bad[] = { "",	  "s",	  "-1s", "+1s", "1 s", "1sec", "1.2.3s",
					   "10x", "0x10", "1e3", ".s",	"us5", NULL };
	uint64_t ns = 7;

	for (int i = 0; bad[i]; i++)
		ck_assert_msg(parse_duration(bad[i], NS_PER_SEC, 0, UINT64_MAX, &ns) == -EINVAL,
			      "'%s' accepted", bad[i]);
	ck_assert_int_eq(parse_duration("0", NS_PER_SEC, 1, 100, &ns), -ERANGE);
	ck_assert_int_eq(parse_duration("2s", NS_PER_SEC, 1, NS_PER_SEC, &ns), -ERANGE);
	ck_assert_int_eq(parse_duration("99999999999999999999d", NS_PER_SEC, 0, UINT64_MAX, &ns),
			 -ERANGE);
	ck_assert_uint_eq(ns, 7);
}
END_TEST

/* found by tests/fuzz/numbers: a long double rounded 2^63 + 9.8e15 ns up by one */
START_TEST(durations_exact_at_64_bits)
{
	uint64_t ns = 0;

	ck_assert_int_eq(parse_duration("9233227036854775807", NS_PER_NS, 0, UINT64_MAX, &ns), 0);
	ck_assert_uint_eq(ns, 9233227036854775807ULL);
	ck_assert_int_eq(parse_duration("18446744073709551615", NS_PER_NS, 0, UINT64_MAX, &ns), 0);
	ck_assert_uint_eq(ns, UINT64_MAX);
	ck_assert_int_eq(parse_duration("18446744073709551.616us", NS_PER_NS, 0, UINT64_MAX, &ns),
			 -ERANGE);
	/* the value checked against the range is the one returned */
	ck_assert_int_eq(parse_duration("9.6ns", NS_PER_NS, 10, 10, &ns), 0);
	ck_assert_uint_eq(ns, 10);
	ck_assert_int_eq(parse_duration("10.5ns", NS_PER_NS, 0, 10, &ns), -ERANGE);
	ck_assert_int_eq(parse_duration("0.0000005ms", NS_PER_NS, 0, 10, &ns), 0);
	ck_assert_uint_eq(ns, 1);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("parse");
	TCase *tc = tcase_create("parse");

	tcase_add_test(tc, integers_in_range);
	tcase_add_test(tc, integers_rejected);
	tcase_add_test(tc, numbers_in_range);
	tcase_add_test(tc, numbers_rejected);
	tcase_add_test(tc, durations_with_units);
	tcase_add_test(tc, durations_bare_number_uses_option_unit);
	tcase_add_test(tc, durations_rejected);
	tcase_add_test(tc, durations_exact_at_64_bits);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
