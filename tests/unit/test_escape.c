/*
 * tests/unit/test_escape.c - report/escape.c: untrusted file names made safe for a terminal.
 * Valid UTF-8 passes; control characters, C1 controls, backslashes, invalid and overlong
 * UTF-8 become escapes; the output is always NUL-terminated and never overflows.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "escape.h"

/* Escape s into a roomy buffer and compare. */
static void esc_is(const char *s, const char *want)
{
	char out[256];

	memset(out, 'Z', sizeof(out));
	assert_string_equal(report_escape(s, out, sizeof(out)), want);
}

static void test_plain_ascii(void **state)
{
	(void)state;
	esc_is("", "");
	esc_is("hello.txt", "hello.txt");
	esc_is("dir/sub dir/a b~!@#$%^&*()", "dir/sub dir/a b~!@#$%^&*()");
}

static void test_control_chars(void **state)
{
	(void)state;
	esc_is("a\nb", "a\\nb");
	esc_is("a\tb", "a\\tb");
	esc_is("a\rb", "a\\x0db");
	esc_is("\x1b[31mred", "\\x1b[31mred");	/* ANSI escape: ESC is escaped */
	esc_is("\x01\x1f", "\\x01\\x1f");
	esc_is("del\x7f", "del\\x7f");
	esc_is("back\\slash", "back\\\\slash");
	esc_is("\\x41", "\\\\x41");			/* a literal \x41 cannot pass for an escape */
}

static void test_valid_utf8_kept(void **state)
{
	(void)state;
	esc_is("caf\xc3\xa9", "caf\xc3\xa9");			/* café */
	esc_is("\xc2\xa0", "\xc2\xa0");				/* U+00A0, first after C1 */
	esc_is("\xe2\x82\xac", "\xe2\x82\xac");			/* € U+20AC */
	esc_is("\xe6\x97\xa5\xe6\x9c\xac", "\xe6\x97\xa5\xe6\x9c\xac");	/* 日本 */
	esc_is("\xf0\x9f\x98\x80.jpg", "\xf0\x9f\x98\x80.jpg");	/* 😀 U+1F600 */
	esc_is("\xf4\x8f\xbf\xbf", "\xf4\x8f\xbf\xbf");		/* U+10FFFF, the last */
	esc_is("\xef\xbf\xbd", "\xef\xbf\xbd");			/* U+FFFD */
}

static void test_invalid_utf8(void **state)
{
	(void)state;
	esc_is("\xff", "\\xff");
	esc_is("\xfe\xfe", "\\xfe\\xfe");
	esc_is("caf\xe9", "caf\\xe9");				/* Latin-1 é */
	esc_is("\x80", "\\x80");				/* lone continuation byte */
	esc_is("\xc3", "\\xc3");				/* truncated at the end */
	esc_is("\xc3x", "\\xc3x");				/* truncated by an ASCII byte */
	esc_is("\xe2\x82", "\\xe2\\x82");			/* truncated 3-byte sequence */
	esc_is("\xf0\x9f\x98", "\\xf0\\x9f\\x98");		/* truncated 4-byte sequence */
	esc_is("\xf8\x88\x80\x80\x80", "\\xf8\\x88\\x80\\x80\\x80");	/* 5-byte form */
	esc_is("\xed\xa0\x80", "\\xed\\xa0\\x80");		/* surrogate U+D800 */
	esc_is("\xed\xbf\xbf", "\\xed\\xbf\\xbf");		/* surrogate U+DFFF */
	esc_is("\xf4\x90\x80\x80", "\\xf4\\x90\\x80\\x80");	/* U+110000: out of range */
}

static void test_overlong(void **state)
{
	(void)state;
	esc_is("\xc0\xaf", "\\xc0\\xaf");			/* overlong '/' */
	esc_is("\xc1\xbf", "\\xc1\\xbf");			/* overlong U+007F */
	esc_is("\xc0\x80", "\\xc0\\x80");			/* overlong NUL */
	esc_is("\xe0\x80\xaf", "\\xe0\\x80\\xaf");		/* 3-byte overlong '/' */
	esc_is("\xe0\x9f\xbf", "\\xe0\\x9f\\xbf");		/* 3-byte overlong U+07FF */
	esc_is("\xf0\x80\x80\xaf", "\\xf0\\x80\\x80\\xaf");	/* 4-byte overlong '/' */
	esc_is("\xf0\x8f\xbf\xbf", "\\xf0\\x8f\\xbf\\xbf");	/* 4-byte overlong U+FFFF */
	/* The shortest forms of the same code points pass. */
	esc_is("\xdf\xbf", "\xdf\xbf");				/* U+07FF */
	esc_is("\xe0\xa0\x80", "\xe0\xa0\x80");			/* U+0800 */
	esc_is("\xf0\x90\x80\x80", "\xf0\x90\x80\x80");		/* U+10000 */
}

static void test_c1_controls(void **state)
{
	(void)state;
	esc_is("\xc2\x80", "\\xc2\\x80");			/* U+0080 */
	esc_is("\xc2\x85", "\\xc2\\x85");			/* NEL */
	esc_is("a\xc2\x9b" "31m", "a\\xc2\\x9b31m");		/* CSI: a terminal escape */
	esc_is("\xc2\x9f", "\\xc2\\x9f");			/* U+009F */
}

static void test_mixed(void **state)
{
	(void)state;
	esc_is("caf\xc3\xa9\n\xff\\\xf0\x9f\x98\x80\t",
	       "caf\xc3\xa9\\n\\xff\\\\\xf0\x9f\x98\x80\\t");
}

/*
 * Escape s into buffers of every size from 0 to full+8: the bytes past len are never
 * touched, the output is NUL-terminated, it is a prefix of the full escape that never
 * ends inside an escape or a UTF-8 sequence, and it grows with the buffer.
 */
static void check_truncation(const char *s)
{
	char full[512], out[600];
	size_t flen, prev = 0;

	report_escape(s, full, sizeof(full));
	flen = strlen(full);
	for (size_t len = 0; len <= flen + 8; len++) {
		size_t olen;

		memset(out, 'Z', sizeof(out));
		report_escape(s, out, len);
		for (size_t i = len; i < sizeof(out); i++)
			assert_int_equal(out[i], 'Z');
		if (len == 0)
			continue;
		olen = strnlen(out, len);
		assert_true(olen < len);		/* NUL inside the buffer */
		assert_memory_equal(out, full, olen);	/* a prefix of the full escape */
		assert_true(olen >= prev);
		prev = olen;
		/* Never cut an escape "\xNN", "\n", "\\" or a multibyte character. */
		if (olen < flen) {
			unsigned char next = (unsigned char)full[olen];

			assert_true(next < 0x80 || (next & 0xc0) == 0xc0);
			if (olen > 0) {
				size_t bs = 0;

				/* An odd run of backslashes before the cut would split "\\". */
				for (size_t i = olen; i > 0 && full[i - 1] == '\\'; i--)
					bs++;
				assert_int_equal(bs % 2, 0);
				if (olen >= 2 && full[olen - 2] == '\\')
					assert_true(full[olen - 1] != 'x');
				if (olen >= 3 && full[olen - 3] == '\\' && full[olen - 2] == 'x')
					assert_true(0);		/* "\x" + one hex digit */
			}
		}
		if (len > flen + 5)		/* plenty of room: nothing lost */
			assert_string_equal(out, full);
	}
}

static void test_truncation(void **state)
{
	char out[8];

	(void)state;
	check_truncation("hello world");
	check_truncation("\x01\x02\x03\x04\x05");
	check_truncation("a\\b\\c\n\t");
	check_truncation("\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80");
	check_truncation("caf\xc3\xa9\xff\xe2\x82\xac\x7f");

	/* len 1: only the terminator fits. */
	memset(out, 'Z', sizeof(out));
	assert_string_equal(report_escape("abc", out, 1), "");
	assert_int_equal(out[1], 'Z');
	/* len 0: nothing is written at all. */
	memset(out, 'Z', sizeof(out));
	assert_ptr_equal(report_escape("abc", out, 0), out);
	assert_int_equal(out[0], 'Z');
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain_ascii),
		cmocka_unit_test(test_control_chars),
		cmocka_unit_test(test_valid_utf8_kept),
		cmocka_unit_test(test_invalid_utf8),
		cmocka_unit_test(test_overlong),
		cmocka_unit_test(test_c1_controls),
		cmocka_unit_test(test_mixed),
		cmocka_unit_test(test_truncation),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
