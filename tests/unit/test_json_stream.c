/*
 * tests/unit/test_json_stream.c - report/json_stream.c: a document written with its long
 * top-level arrays streamed one element at a time is byte for byte what json-c writes for the
 * whole tree (pretty, tab-indented, spaced; elements nested three deep, strings with newlines,
 * quotes and slashes, empty arrays and objects, thousands of elements), and a missing array or
 * flags it cannot stream are refused; its integers, constant keys and shared leaves write what
 * json-c's own objects do; an element written field by field (report_json_w_*) is what json-c
 * writes for the same tree, and the strings it writes unescaped are those json-c does.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <json-c/json.h>

#include "json_stream.h"

/* Element i of array a: nested objects and arrays, awkward strings, empty containers. */
static json_object *element(char a, unsigned i)
{
	json_object *e = json_object_new_object(), *own = json_object_new_array();
	char s[64];

	snprintf(s, sizeof(s), "%c/%u \"q\"\n\t\\ \x01 é", a, i);
	json_object_object_add(e, "device", json_object_new_string(s));
	json_object_object_add(e, "offset", json_object_new_uint64((uint64_t)i * 4096));
	json_object_object_add(e, "shared", json_object_new_boolean(i & 1));
	json_object_object_add(e, "ratio", json_object_new_double(i / 3.0));
	for (unsigned k = 0; k < i % 3; k++) {
		json_object *o = json_object_new_object(), *p = json_object_new_array();

		json_object_object_add(o, "inode", json_object_new_int64(k + 128));
		json_object_array_add(p, json_object_new_string("/mnt/a b/c"));
		json_object_object_add(o, "paths", p);
		json_object_object_add(o, "sick", json_object_new_array());
		json_object_object_add(o, "none", NULL);
		json_object_array_add(own, o);
	}
	json_object_object_add(e, "owners", own);
	json_object_object_add(e, "empty", json_object_new_object());
	return e;
}

/* The document with n1 elements in "first" and n2 in "second" (none when skeleton). */
static json_object *doc(unsigned n1, unsigned n2, int skeleton)
{
	json_object *root = json_object_new_object(), *first = json_object_new_array();
	json_object *second = json_object_new_array(), *mid = json_object_new_array();

	json_object_object_add(root, "schema", json_object_new_string("test/1"));
	/* a nested key named as a streamed one, and an empty array at the top: not taken */
	json_object_array_add(mid, json_object_new_object());
	json_object_object_add(json_object_array_get_idx(mid, 0), "first",
			       json_object_new_array());
	json_object_object_add(root, "before", mid);
	json_object_object_add(root, "empty_top", json_object_new_array());
	for (unsigned i = 0; !skeleton && i < n1; i++)
		json_object_array_add(first, element('f', i));
	json_object_object_add(root, "first", first);
	json_object_object_add(root, "between", json_object_new_string("x\ny"));
	for (unsigned i = 0; !skeleton && i < n2; i++)
		json_object_array_add(second, element('s', i));
	json_object_object_add(root, "second", second);
	json_object_object_add(root, "exit_status", json_object_new_int(1));
	return root;
}

/* Stream the document with flags into a string (caller frees). */
static char *streamed(unsigned n1, unsigned n2, int flags)
{
	json_object *sk = doc(n1, n2, 1);
	struct report_json_stream s;
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	assert_non_null(f);
	assert_int_equal(report_json_stream_start(&s, f, sk, flags), 0);
	assert_int_equal(report_json_stream_open(&s, "first"), 0);
	for (unsigned i = 0; i < n1; i++)
		assert_int_equal(report_json_stream_add(&s, element('f', i)), 0);
	assert_int_equal(report_json_stream_open(&s, "second"), 0);
	for (unsigned i = 0; i < n2; i++)
		assert_int_equal(report_json_stream_add(&s, element('s', i)), 0);
	assert_int_equal(report_json_stream_end(&s), 0);
	fclose(f);
	json_object_put(sk);
	return out;
}

/* The tree's bytes, as json-c writes them (and a newline, as the writers add). */
static char *whole(unsigned n1, unsigned n2, int flags)
{
	json_object *root = doc(n1, n2, 0);
	const char *s = json_object_to_json_string_ext(root, flags);
	char *out = malloc(strlen(s) + 2);

	assert_non_null(out);
	sprintf(out, "%s\n", s);
	json_object_put(root);
	return out;
}

static void same(unsigned n1, unsigned n2, int flags)
{
	char *a = whole(n1, n2, flags), *b = streamed(n1, n2, flags);

	assert_string_equal(b, a);
	free(a);
	free(b);
}

static void test_identical_pretty(void **state)
{
	(void)state;
	same(0, 0, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE);
	same(1, 0, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE);
	same(0, 1, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE);
	same(7, 5, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE);
	same(3, 2, JSON_C_TO_STRING_PRETTY);
}

static void test_identical_tab_spaced(void **state)
{
	(void)state;
	same(4, 3, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_PRETTY_TAB);
	same(4, 3, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED);
	same(0, 2, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
		   JSON_C_TO_STRING_PRETTY_TAB | JSON_C_TO_STRING_NOSLASHESCAPE);
}

/* A map of thousands of ranges: the size streaming is for. */
static void test_identical_large(void **state)
{
	(void)state;
	same(5000, 3000, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE);
}

static void test_refused(void **state)
{
	json_object *sk = doc(0, 0, 1), *arr = json_object_new_array();
	struct report_json_stream s;
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	(void)state;
	assert_int_equal(report_json_stream_start(&s, f, sk, JSON_C_TO_STRING_PLAIN), -EINVAL);
	assert_int_equal(report_json_stream_start(&s, f, arr, JSON_C_TO_STRING_PRETTY), -EINVAL);
	assert_int_equal(report_json_stream_start(&s, f, sk, JSON_C_TO_STRING_PRETTY), 0);
	/* no such key; a key that is no top-level array; one nested only */
	assert_int_equal(report_json_stream_open(&s, "absent"), -ENOENT);
	assert_int_equal(report_json_stream_open(&s, "between"), -ENOENT);
	/* no array open: the element is freed, refused */
	assert_int_equal(report_json_stream_add(&s, element('x', 1)), -EINVAL);
	assert_int_equal(report_json_stream_open(&s, "second"), 0);
	/* past it: an earlier array cannot be opened again */
	assert_int_equal(report_json_stream_open(&s, "first"), -ENOENT);
	assert_int_equal(report_json_stream_end(&s), 0);
	fclose(f);
	free(out);
	json_object_put(sk);
	json_object_put(arr);
}

/* report_json_new_u64/_i64 and report_json_add write the bytes json-c's own would. */
static void test_integers_keys(void **state)
{
	static const uint64_t u[] = { 0, 1, 9, 10, 4096, 1ull << 32, UINT64_MAX - 1, UINT64_MAX };
	static const int64_t v[] = { 0, -1, 1, -10, 123456789, INT64_MAX, INT64_MIN + 1, INT64_MIN };
	json_object *a = json_object_new_object(), *b = json_object_new_object();
	json_object *ua = json_object_new_array(), *ub = json_object_new_array();
	json_object *va = json_object_new_array(), *vb = json_object_new_array();

	(void)state;
	for (size_t i = 0; i < sizeof(u) / sizeof(u[0]); i++) {
		json_object_array_add(ua, report_json_new_u64(u[i]));
		json_object_array_add(ub, json_object_new_uint64(u[i]));
	}
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		json_object_array_add(va, report_json_new_i64(v[i]));
		json_object_array_add(vb, json_object_new_int64(v[i]));
	}
	assert_int_equal(report_json_add(a, "u", ua), 0);
	assert_int_equal(report_json_add(a, "v", va), 0);
	/* a key added again replaces its value in place, as json-c's add does */
	assert_int_equal(report_json_add(a, "u", json_object_get(ua)), 0);
	json_object_object_add(b, "u", ub);
	json_object_object_add(b, "v", vb);
	assert_string_equal(json_object_to_json_string_ext(a, JSON_C_TO_STRING_PRETTY),
			    json_object_to_json_string_ext(b, JSON_C_TO_STRING_PRETTY));
	json_object_put(a);
	json_object_put(b);
}

/* Shared leaves in many trees, each tree put in turn: the same bytes every time. */
static void test_shared_leaves(void **state)
{
	const char *want = NULL;

	(void)state;
	for (int round = 0; round < 3; round++) {
		json_object *a = json_object_new_object(), *b = json_object_new_object();
		char kind[16];

		snprintf(kind, sizeof(kind), "dm-%s", "thin");	/* same content, another buffer */
		report_json_add(a, "t", report_json_bool(1));
		report_json_add(a, "f", report_json_bool(0));
		report_json_add(a, "e", report_json_empty_array());
		report_json_add(a, "k", report_json_string(kind));
		report_json_add(a, "k2", report_json_string("dm-thin"));
		json_object_object_add(b, "t", json_object_new_boolean(1));
		json_object_object_add(b, "f", json_object_new_boolean(0));
		json_object_object_add(b, "e", json_object_new_array());
		json_object_object_add(b, "k", json_object_new_string("dm-thin"));
		json_object_object_add(b, "k2", json_object_new_string("dm-thin"));
		want = json_object_to_json_string_ext(b, JSON_C_TO_STRING_PRETTY);
		assert_string_equal(json_object_to_json_string_ext(a, JSON_C_TO_STRING_PRETTY),
				    want);
		json_object_put(a);
		json_object_put(b);
	}
	/* more strings than are kept, and a long one: new objects, the same bytes */
	for (unsigned i = 0; i < 300; i++) {
		char s[80];
		json_object *o;

		snprintf(s, sizeof(s), "s%u%s", i, i % 7 ? "" :
			 "-a name longer than the sixty-four bytes a shared string may have");
		o = report_json_string(s);
		assert_string_equal(json_object_get_string(o), s);
		json_object_put(o);
	}
}

/* Keys of every length around the writer's short copy, a slash, bytes json-c escapes. */
static const char *const w_keys[] = {
	"", "k", "thirteen_char", "fourteen_chars", "fifteen_chars__", "sixteen_chars___",
	"a_much_longer_key_name_than_any", "slash/key", "a_long_key/with_a_slash", "esc\"key",
	"tab\tkey_that_is_long",
};

/* Element i written field by field: the fields of element('w', i) plus deeper containers, an
 * embedded json-c value and plain strings (report_json_w_* has no doubles: "ratio" left out). */
static void w_element(struct report_json_stream *s, unsigned i)
{
	char str[64];

	snprintf(str, sizeof(str), "w/%u \"q\"\n\t\\ \x01 é", i);
	report_json_w_begin(s);
	report_json_w_str(s, "device", str);
	report_json_w_u64(s, "offset", (uint64_t)i * 4096);
	report_json_w_bool(s, "shared", i & 1);
	report_json_w_open(s, "owners", 1);
	for (unsigned k = 0; k < i % 3; k++) {
		report_json_w_open(s, NULL, 0);
		report_json_w_i64(s, "inode", (int64_t)k - 1);
		report_json_w_open(s, "paths", 1);
		report_json_w_str(s, NULL, "/mnt/a b/c");
		report_json_w_str(s, NULL, "plain-ascii_~!");
		report_json_w_close(s);
		report_json_w_open(s, "sick", 1);
		report_json_w_close(s);
		report_json_w_json(s, "none", NULL);
		report_json_w_json(s, "tree", element('t', k + 1));
		report_json_w_close(s);
	}
	report_json_w_close(s);
	/* keys around the writer's short copy (14 bytes), a slash, escapes; an indent past 16 */
	for (unsigned k = 0; k < sizeof(w_keys) / sizeof(w_keys[0]); k++)
		report_json_w_u64(s, w_keys[k], k);
	for (unsigned k = 0; k < 10; k++)
		report_json_w_open(s, "nest", 0);
	report_json_w_str(s, "a_much_longer_key_name", "v");
	for (unsigned k = 0; k < 10; k++)
		report_json_w_close(s);
	report_json_w_open(s, "empty", 0);
	report_json_w_close(s);
	report_json_w_open(s, "deep", 0);
	report_json_w_open(s, "a", 1);
	report_json_w_open(s, NULL, 1);
	report_json_w_u64(s, NULL, UINT64_MAX);
	report_json_w_i64(s, NULL, INT64_MIN);
	report_json_w_json(s, NULL, element('u', 2));
	/* left open: _end closes them */
	assert_int_equal(report_json_w_end(s), 0);
}

/* The same as a json-c tree. */
static json_object *w_tree(unsigned i)
{
	json_object *e = json_object_new_object(), *own = json_object_new_array();
	json_object *deep = json_object_new_object(), *a = json_object_new_array();
	json_object *in = json_object_new_array();
	char str[64];

	snprintf(str, sizeof(str), "w/%u \"q\"\n\t\\ \x01 é", i);
	json_object_object_add(e, "device", json_object_new_string(str));
	json_object_object_add(e, "offset", json_object_new_uint64((uint64_t)i * 4096));
	json_object_object_add(e, "shared", json_object_new_boolean(i & 1));
	for (unsigned k = 0; k < i % 3; k++) {
		json_object *o = json_object_new_object(), *p = json_object_new_array();

		json_object_object_add(o, "inode", json_object_new_int64((int64_t)k - 1));
		json_object_array_add(p, json_object_new_string("/mnt/a b/c"));
		json_object_array_add(p, json_object_new_string("plain-ascii_~!"));
		json_object_object_add(o, "paths", p);
		json_object_object_add(o, "sick", json_object_new_array());
		json_object_object_add(o, "none", NULL);
		json_object_object_add(o, "tree", element('t', k + 1));
		json_object_array_add(own, o);
	}
	json_object_object_add(e, "owners", own);
	for (unsigned k = 0; k < sizeof(w_keys) / sizeof(w_keys[0]); k++)
		json_object_object_add(e, w_keys[k], json_object_new_uint64(k));
	{
		json_object *n = json_object_new_object(), *top = n;

		for (unsigned k = 1; k < 10; k++) {
			json_object *m = json_object_new_object();

			json_object_object_add(n, "nest", m);
			n = m;
		}
		json_object_object_add(n, "a_much_longer_key_name", json_object_new_string("v"));
		json_object_object_add(e, "nest", top);
	}
	json_object_object_add(e, "empty", json_object_new_object());
	json_object_array_add(in, json_object_new_uint64(UINT64_MAX));
	json_object_array_add(in, json_object_new_int64(INT64_MIN));
	json_object_array_add(in, element('u', 2));
	json_object_array_add(a, in);
	json_object_object_add(deep, "a", a);
	json_object_object_add(e, "deep", deep);
	return e;
}

/* n elements written field by field into "first" against json-c's tree of them. */
static void w_same(unsigned n, int flags)
{
	json_object *sk = doc(0, 0, 1), *root = doc(0, 0, 1), *first;
	struct report_json_stream s;
	char *out = NULL, *want;
	const char *w;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	assert_non_null(f);
	assert_int_equal(report_json_stream_start(&s, f, sk, flags), 0);
	assert_int_equal(report_json_stream_open(&s, "first"), 0);
	for (unsigned i = 0; i < n; i++)
		w_element(&s, i);
	assert_int_equal(report_json_stream_open(&s, "second"), 0);
	/* one written whole by json-c beside: the two kinds mix */
	assert_int_equal(report_json_stream_add(&s, element('s', 1)), 0);
	assert_int_equal(report_json_stream_end(&s), 0);
	fclose(f);
	json_object_object_get_ex(root, "first", &first);
	for (unsigned i = 0; i < n; i++)
		json_object_array_add(first, w_tree(i));
	json_object_object_get_ex(root, "second", &first);
	json_object_array_add(first, element('s', 1));
	w = json_object_to_json_string_ext(root, flags);
	want = malloc(strlen(w) + 2);
	assert_non_null(want);
	sprintf(want, "%s\n", w);
	assert_string_equal(out, want);
	free(want);
	free(out);
	json_object_put(sk);
	json_object_put(root);
}

static void test_writer(void **state)
{
	(void)state;
	w_same(0, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE);
	w_same(1, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE);
	w_same(7, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE);
	w_same(5, JSON_C_TO_STRING_PRETTY);
	w_same(4, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_PRETTY_TAB);
	w_same(4, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED);
	w_same(300, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE);
}

/* The bytes the writer copies unescaped (printable ASCII but quote and backslash; slash only
 * with NOSLASHESCAPE) are what json-c writes unescaped; every other byte json-c changes. */
static void test_writer_plain_bytes(void **state)
{
	(void)state;
	for (int c = 1; c < 256; c++) {
		for (int ns = 0; ns < 2; ns++) {
			char str[4] = { 'a', (char)c, 'b', 0 }, want[8];
			json_object *o = json_object_new_string(str);
			const char *w = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
				(ns ? JSON_C_TO_STRING_NOSLASHESCAPE : 0));
			int plain = c >= 0x20 && c <= 0x7e && c != '"' && c != '\\' &&
				    (c != '/' || ns);

			snprintf(want, sizeof(want), "\"%s\"", str);
			if (plain)
				assert_string_equal(w, want);
			else if (c < 0x7f)	/* json-c passes DEL and bytes >= 0x80 through */
				assert_string_not_equal(w, want);
			json_object_put(o);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_identical_pretty),
		cmocka_unit_test(test_identical_tab_spaced),
		cmocka_unit_test(test_identical_large),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_integers_keys),
		cmocka_unit_test(test_shared_leaves),
		cmocka_unit_test(test_writer),
		cmocka_unit_test(test_writer_plain_bytes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
