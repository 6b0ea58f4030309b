/*
 * tests/unit/test_units.c - report/units.c: sizes and durations as users type them, and how
 * they are printed back.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <sys/mman.h>
#include <unistd.h>

#include "units.h"

/* Parse s as a size and check it gives exactly want. */
static void size_ok(const char *s, uint64_t want)
{
	uint64_t got = 0xdeadbeef;

	print_message("size '%s'\n", s);
	assert_int_equal(report_parse_size(s, &got), 0);
	assert_int_equal(got, want);
}

/* Parse s as a size and check it is refused without touching the output. */
static void size_bad(const char *s)
{
	uint64_t got = 0xdeadbeef;

	print_message("bad size '%s'\n", s);
	assert_int_equal(report_parse_size(s, &got), -EINVAL);
	assert_int_equal(got, 0xdeadbeef);
}

static void dur_ok(const char *s, double want)
{
	double got = -42;

	print_message("duration '%s'\n", s);
	assert_int_equal(report_parse_duration(s, &got), 0);
	assert_true(got == want);
}

static void dur_bad(const char *s)
{
	double got = -42;

	print_message("bad duration '%s'\n", s);
	assert_int_equal(report_parse_duration(s, &got), -EINVAL);
	assert_true(got == -42);
}

static void test_size_plain(void **state)
{
	(void)state;
	size_ok("0", 0);
	size_ok("1", 1);
	size_ok("4096", 4096);
	size_ok("18446744073709549568", 18446744073709549568ull);	/* 2^64 - 2048: exact double */
}

static void test_size_units(void **state)
{
	(void)state;
	size_ok("64k", 65536);
	size_ok("64K", 65536);
	size_ok("64KiB", 65536);
	size_ok("64kB", 65536);
	size_ok("1M", 1048576);
	size_ok("1m", 1048576);
	size_ok("1MiB", 1048576);
	size_ok("1MB", 1048576);
	size_ok("2G", 2147483648ull);
	size_ok("1.5G", 1610612736ull);
	size_ok("1.5k", 1536);
	size_ok("0.5M", 524288);
	size_ok("3T", 3298534883328ull);
	size_ok("1P", 1125899906842624ull);
	size_ok("1E", 1152921504606846976ull);
	size_ok("15E", 17293822569102704640ull);
}

static void test_size_bad(void **state)
{
	uint64_t got = 7;

	(void)state;
	size_bad("");
	size_bad("-1");
	size_bad("-1k");
	size_bad("1x");
	size_bad("1.5");		/* fractional bytes */
	size_bad("0.5");
	size_bad("M");
	size_bad("k");
	size_bad(" 1");
	size_bad("1 ");
	size_bad("1 k");
	size_bad("1kk");
	size_bad("1MiBB");
	size_bad("1Mx");
	size_bad("1iB");
	size_bad("nan");
	size_bad("inf");
	size_bad("infG");
	assert_int_equal(report_parse_size(NULL, &got), -EINVAL);
	/* 16 EiB does not fit in 64 bits: refused (the code says -ERANGE). */
	assert_true(report_parse_size("16E", &got) < 0);
	assert_true(report_parse_size("100000P", &got) < 0);
	assert_int_equal(got, 7);
}

static void test_duration_ok(void **state)
{
	(void)state;
	dur_ok("0", 0);
	dur_ok("30", 30);
	dur_ok("30s", 30);
	dur_ok("5m", 300);
	dur_ok("12h", 43200);
	dur_ok("1h30m", 5400);
	dur_ok("1h30m15s", 5415);
	dur_ok("1.5h", 5400);
	dur_ok("7d", 604800);
	dur_ok("1w", 604800);
	dur_ok("2w3d", 1468800);
	dur_ok("0.5s", 0.5);
}

static void test_duration_bad(void **state)
{
	double got = -42;

	(void)state;
	dur_bad("");
	dur_bad("-5");
	dur_bad("-5m");
	dur_bad("1h-30m");
	dur_bad("5x");
	dur_bad("5M");			/* units are lower case: M is not minutes */
	dur_bad("m");
	dur_bad("h30m");
	dur_bad("5 m");
	dur_bad(" 5m");
	dur_bad("5m ");
	dur_bad("5ms");
	dur_bad("1hh");
	dur_bad("nan");
	dur_bad("inf");
	dur_bad("infh");
	assert_int_equal(report_parse_duration(NULL, &got), -EINVAL);
}

static void bytes_is(uint64_t v, const char *want)
{
	char buf[32];

	assert_string_equal(report_fmt_bytes(v, buf, sizeof(buf)), want);
}

static void test_fmt_bytes(void **state)
{
	char small[6];

	(void)state;
	bytes_is(0, "0 B");
	bytes_is(1, "1 B");
	bytes_is(1023, "1023 B");
	bytes_is(1024, "1.0 KiB");
	bytes_is(1536, "1.5 KiB");
	bytes_is(65536, "64.0 KiB");
	bytes_is(1048576, "1.0 MiB");
	bytes_is(1572864, "1.5 MiB");
	bytes_is(1610612736ull, "1.5 GiB");
	bytes_is(1099511627776ull, "1.0 TiB");
	bytes_is(1125899906842624ull, "1.0 PiB");
	bytes_is(1152921504606846976ull, "1.0 EiB");
	bytes_is(UINT64_MAX, "16.0 EiB");
	/* Truncated, never overflowing: snprintf semantics. */
	memset(small, 'x', sizeof(small));
	assert_string_equal(report_fmt_bytes(1572864, small, sizeof(small)), "1.5 M");
}

static void dur_is(double s, const char *want)
{
	char buf[32];

	assert_string_equal(report_fmt_duration(s, buf, sizeof(buf)), want);
}

static void test_fmt_duration(void **state)
{
	(void)state;
	dur_is(0, "0:00");
	dur_is(0.4, "0:00");
	dur_is(59.4, "0:59");
	dur_is(59.6, "1:00");
	dur_is(123, "2:03");
	dur_is(3599, "59:59");
	dur_is(3600, "1:00:00");
	dur_is(3723, "1:02:03");
	dur_is(86399, "23:59:59");
	dur_is(86400, "1d00:00:00");
	dur_is(90061, "1d01:01:01");
	dur_is(8 * 86400 + 5, "8d00:00:05");
	dur_is(-1, "--:--");
	dur_is(NAN, "--:--");
	dur_is(INFINITY, "--:--");
}

/* Copy s to the very end of a page followed by an unmapped one: reading past its NUL faults. */
static char *at_page_end(const char *s, void **map)
{
	long pg = sysconf(_SC_PAGESIZE);
	char *m = mmap(NULL, (size_t)pg * 2, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);

	assert_true(m != MAP_FAILED);
	assert_int_equal(mprotect(m + pg, (size_t)pg, PROT_NONE), 0);
	*map = m;
	return memcpy(m + pg - strlen(s) - 1, s, strlen(s) + 1);
}

static void since_check(const char *s, int want_ret)
{
	void *map;
	int64_t t = -1;
	char *p = at_page_end(s, &map);

	print_message("since '%s'\n", s);
	assert_int_equal(report_parse_since(p, &t), want_ret);
	munmap(map, (size_t)sysconf(_SC_PAGESIZE) * 2);
}

/* report --since: short arguments are not read past their end (they were: s + 10). */
static void test_since(void **state)
{
	int64_t t = 0;

	(void)state;
	since_check("2026-1-1 ", -EINVAL);
	since_check("2026-1-1 x", -EINVAL);
	since_check("2026-1-1", 0);
	since_check("2026-01-02 03:04", 0);
	since_check("2026-01-02 03:04:05", 0);
	since_check("2026-01-02 03:04:05x", -EINVAL);
	since_check("@", -EINVAL);
	since_check("@123", 0);
	since_check("@99999999999999999999999", -EINVAL);
	since_check("", -EINVAL);
	since_check("7d", 0);
	/* found by tests/fuzz fuzz_units: a duration ago beyond int64 seconds (UB) */
	since_check("33333333333333333333333333333333", -EINVAL);
	since_check("99999999999999999999w", -EINVAL);
	assert_int_equal(report_parse_since("@1700000000", &t), 0);
	assert_int_equal(t, 1700000000);
	assert_int_equal(report_parse_since("2026-01-02 03:04", &t), 0);
	assert_int_equal(report_parse_since("2026-01-02 03:04:00", &t) == 0 && t > 0, 1);
}

/* report_digits: the bytes snprintf's %" PRIu64 " writes (with '-' for a negative), right
 * before end, nothing written past the sign. */
static void digits_ok(uint64_t v, int neg, const char *want)
{
	char buf[REPORT_DIGITS + 2], *p;

	memset(buf, '#', sizeof(buf));
	p = report_digits(buf + 1 + REPORT_DIGITS, v, neg);
	assert_int_equal(buf + 1 + REPORT_DIGITS - p, strlen(want));
	assert_memory_equal(p, want, strlen(want));
	assert_int_equal(buf[0], '#');
	assert_int_equal(buf[1 + REPORT_DIGITS], '#');
}

/* report_digits of v: the bytes of "%" PRIu64 */
static void digits_like_printf(uint64_t v)
{
	char want[32];

	snprintf(want, sizeof(want), "%" PRIu64, v);
	digits_ok(v, 0, want);
}

static void test_digits(void **state)
{
	(void)state;
	digits_ok(0, 0, "0");
	digits_ok(7, 0, "7");
	digits_ok(10, 0, "10");
	digits_ok(4096, 0, "4096");
	digits_ok(UINT64_MAX, 0, "18446744073709551615");
	digits_ok(1, 1, "-1");
	digits_ok(0 - (uint64_t)INT64_MIN, 1, "-9223372036854775808");
	/* the widest: every byte of REPORT_DIGITS */
	digits_ok(UINT64_MAX, 1, "-18446744073709551615");
	/* every value below 10^4, and each power of ten past it with its neighbours */
	for (uint64_t v = 0; v < 10000; v++)
		digits_like_printf(v);
	for (uint64_t p = 10000; p; p = p <= UINT64_MAX / 10 ? p * 10 : 0)
		for (uint64_t w = p - 1; w <= p + 1; w++)
			digits_like_printf(w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_size_plain),
		cmocka_unit_test(test_size_units),
		cmocka_unit_test(test_size_bad),
		cmocka_unit_test(test_duration_ok),
		cmocka_unit_test(test_duration_bad),
		cmocka_unit_test(test_digits),
		cmocka_unit_test(test_fmt_bytes),
		cmocka_unit_test(test_fmt_duration),
		cmocka_unit_test(test_since),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
