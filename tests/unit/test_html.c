/*
 * test_html.c - the HTML report's writer: every string is escaped for HTML (names that are
 * markup or not UTF-8 stay text), paths come from their exact bytes, and the map's cells
 * aggregate (the worst class wins, the title lists every range with its owner). Beside them,
 * the map's stack for people (its hops, the volumes sharing a thin block) and its hops written
 * field by field (the bytes of json-c's tree), and an owner's common line for people.
 */
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <json-c/json.h>

#include "html.h"
#include "map_report.h"
#include "map_stack.h"

/* Run fn into a memory stream; return the text (free it). */
static char *capture_puts(const char *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	report_html_puts(f, s);
	fclose(f);
	return buf;
}

static void test_puts(void **state)
{
	char *out;

	(void)state;
	out = capture_puts("<script>alert(1)</script>");
	assert_string_equal(out, "&lt;script&gt;alert(1)&lt;/script&gt;");
	free(out);
	out = capture_puts("a&b \"q\" 's'");
	assert_string_equal(out, "a&amp;b &quot;q&quot; &#39;s&#39;");
	free(out);
	/* invalid UTF-8 and control bytes as \xNN, valid UTF-8 kept */
	out = capture_puts("caf\xc3\xa9 \xff\x01<");
	assert_string_equal(out, "caf\xc3\xa9 \\xff\\x01&lt;");
	free(out);
}

static void test_put_path_hex(void **state)
{
	json_object *o = json_object_new_object();
	const char *const names[] = { "/m/ok<b>", "/m/bad\xff\\" };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	report_json_add_paths(o, "paths", names, 2);
	report_html_put_path(f, o, "paths", 0);
	fputc('|', f);
	/* from paths_hex: one backslash for the name's one, \xff for its byte */
	report_html_put_path(f, o, "paths", 1);
	fclose(f);
	assert_string_equal(buf, "/m/ok&lt;b&gt;|/m/bad\\xff\\\\");
	free(buf);
	json_object_put(o);
}

static json_object *file_owner(const char *path, uint64_t off, uint64_t len)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "type", json_object_new_string("file"));
	json_object_object_add(o, "inode", json_object_new_uint64(131));
	json_object_object_add(o, "file_offset", json_object_new_uint64(off));
	json_object_object_add(o, "length", json_object_new_uint64(len));
	report_json_add_paths(o, "paths", &path, 1);
	return o;
}

static void add(struct report_html_target *t, enum scan_verdict v, uint64_t off, uint64_t len,
		const char *path)
{
	struct report_html_err e = { .offset = off, .length = len, .verdict = v };

	snprintf(e.error, sizeof(e.error), "EIO");
	e.owners = json_object_new_array();
	if (path)
		json_object_array_add(e.owners, file_owner(path, 4096, len));
	assert_int_equal(report_html_add_err(t, &e), 0);
}

static void test_map_cells(void **state)
{
	struct report_html h = { .title = "t<" };
	struct report_html_target *t = report_html_add_target(&h);
	uint64_t mib = 1024 * 1024;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	t->nr_devs = 1;
	snprintf(t->devs[0].path, sizeof(t->devs[0].path), "/dev/x");
	snprintf(t->devs[0].role, sizeof(t->devs[0].role), "data");
	t->devs[0].size = 1024 * mib;		/* one MiB a cell */
	t->devs[0].size_known = t->devs[0].plan_known = 1;
	t->devs[0].planned[0] = t->devs[0].planned[5] = 1;
	/* cell 5: slow then damage: shows damage, its title lists both */
	add(t, SCAN_V_SLOW, 5 * mib + 512, 512, NULL);
	add(t, SCAN_V_DAMAGE, 5 * mib + 8192, 4096, "/m/<img src=x>");
	add(t, SCAN_V_TRANSIENT, 7 * mib, 512, NULL);
	f = open_memstream(&buf, &len);
	assert_int_equal(report_html_print(&h, f), 0);
	fclose(f);
	assert_non_null(strstr(buf, "<rect class=\"c-planned\" x=\"3\" y=\"0\""));
	assert_non_null(strstr(buf, "<rect class=\"c-free\" x=\"16\" y=\"0\""));
	assert_non_null(strstr(buf, "<rect class=\"c-damage\" x=\"68\" y=\"0\" width=\"12\" "
				    "height=\"12\" data-start=\"5242880\" data-end=\"6291456\">"
				    "<title>bytes 5242880-6291455 (1048576 bytes): damage\n"
				    "slow EIO at 5243392 length 512\n"
				    "damage EIO at 5251072 length 4096: file /m/&lt;img src=x&gt; "
				    "offset 4096 length 4096</title>"));
	assert_non_null(strstr(buf, "<rect class=\"c-transient\" x=\"94\""));
	assert_non_null(strstr(buf, "Each cell is 1.0 MiB (1048576 bytes)"));
	assert_null(strstr(buf, "<img"));
	/* a device path never wraps inside its name ("/dev/lo|op1") */
	assert_non_null(strstr(buf, ".dev{font-family:monospace;white-space:nowrap}"));
	assert_non_null(strstr(buf, "<td class=\"dev\">/dev/x</td>"));
	assert_null(strstr(buf, "<td class=\"path\">/dev/x"));
	assert_null(strstr(buf, "<script"));
	assert_non_null(strstr(buf, "<title>t&lt;</title>"));
	free(buf);
	report_html_free(&h);
}

/*
 * Text of a history row (the error as stored, edited or not) and the model's device role and
 * group name are escaped in the map too: the cell title and the legend wrote them raw (found
 * by tests/fuzz fuzz_html).
 */
static void test_map_text_escaped(void **state)
{
	struct report_html h = { .title = "t" };
	struct report_html_target *t = report_html_add_target(&h);
	struct report_html_err e = { .offset = 4096, .length = 512, .verdict = SCAN_V_DAMAGE };
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	t->nr_devs = 1;
	snprintf(t->devs[0].path, sizeof(t->devs[0].path), "/dev/x");
	snprintf(t->devs[0].role, sizeof(t->devs[0].role), "<i>role");
	snprintf(t->devs[0].group_name, sizeof(t->devs[0].group_name), "<b>AG");
	t->devs[0].size = 1 << 30;
	t->devs[0].size_known = 1;
	t->devs[0].group_bytes = 1 << 28;
	snprintf(e.error, sizeof(e.error), "</title><em>x");
	e.owners = json_object_new_array();
	assert_int_equal(report_html_add_err(t, &e), 0);
	f = open_memstream(&buf, &len);
	assert_int_equal(report_html_print(&h, f), 0);
	fclose(f);
	assert_null(strstr(buf, "<em>"));
	assert_null(strstr(buf, "<i>role"));
	assert_null(strstr(buf, "<b>AG"));
	assert_non_null(strstr(buf, "damage &lt;/title&gt;&lt;em&gt;x at 4096 length 512"));
	assert_non_null(strstr(buf, "&lt;b&gt;AG start"));
	free(buf);
	report_html_free(&h);
}

/* The stack's line for people: every hop with its flags, as the format always wrote it. */
static void test_stack_print(void **state)
{
	struct map_stack_up u;
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	(void)state;
	assert_non_null(f);
	memset(&u, 0, sizeof(u));
	u.nr_hops = 3;
	snprintf(u.hop[0].name, sizeof(u.hop[0].name), "nvme0n1");
	snprintf(u.hop[0].kind, sizeof(u.hop[0].kind), "disk");
	u.hop[0].offset = 0;
	snprintf(u.hop[1].name, sizeof(u.hop[1].name), "md0");
	snprintf(u.hop[1].kind, sizeof(u.hop[1].kind), "md-raid5");
	u.hop[1].offset = 18446744073709551615ull;
	u.hop[1].parity = 1;
	u.hop[1].degraded = 1;
	snprintf(u.hop[2].name, sizeof(u.hop[2].name), "dm-4");
	snprintf(u.hop[2].kind, sizeof(u.hop[2].kind), "dm-thin");
	u.hop[2].offset = 1048576;
	struct map_stack_also also[2] = { { .offset = 0 }, { .offset = 18446744073709551615ull } };

	snprintf(also[0].name, sizeof(also[0].name), "dm-6");
	snprintf(also[1].name, sizeof(also[1].name), "dm-7");
	u.also = also;
	u.nr_also = 2;
	report_stack_print(f, &u);
	fclose(f);
	assert_string_equal(out, "      stack: /dev/nvme0n1 (disk) at 0 -> /dev/md0 (md-raid5, parity, "
			    "DEGRADED) at 18446744073709551615 -> /dev/dm-4 (dm-thin) at 1048576\n"
			    "      shared with /dev/dm-6 at 0 (a thin volume or snapshot mapping the "
			    "same block)\n      shared with /dev/dm-7 at 18446744073709551615 (a thin "
			    "volume or snapshot mapping the same block)\n");
	free(out);
	/* the hops written field by field: the bytes of json-c's tree of them */
	out = NULL;
	f = open_memstream(&out, &len);
	assert_non_null(f);
	{
		json_object *sk = json_object_new_object(), *root = json_object_new_object();
		json_object *arr = json_object_new_array(), *e = json_object_new_object();
		struct report_json_stream s;
		const char *w;

		json_object_object_add(sk, "a", json_object_new_array());
		json_object_object_add(e, "stack", report_stack_hops_json(&u));
		json_object_array_add(arr, e);
		json_object_object_add(root, "a", arr);
		assert_int_equal(report_json_stream_start(&s, f, sk, JSON_C_TO_STRING_PRETTY |
							  JSON_C_TO_STRING_NOSLASHESCAPE), 0);
		assert_int_equal(report_json_stream_open(&s, "a"), 0);
		report_json_w_begin(&s);
		report_stack_hops_write(&s, "stack", &u);
		assert_int_equal(report_json_w_end(&s), 0);
		assert_int_equal(report_json_stream_end(&s), 0);
		fclose(f);
		w = json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY |
						   JSON_C_TO_STRING_NOSLASHESCAPE);
		assert_int_equal(strlen(out), strlen(w) + 1);
		assert_memory_equal(out, w, strlen(w));
		json_object_put(sk);
		json_object_put(root);
	}
	free(out);
}

/* An owner's common line for people (map prints one a range), as fprintf wrote it. */
static void test_owner_print(void **state)
{
	struct map_owner o;
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	(void)state;
	assert_non_null(f);
	memset(&o, 0, sizeof(o));
	o.kind = MAP_OWN_LOG;
	o.meta_type = "log";
	o.ag = 2;
	report_print_owner(f, NULL, NULL, &o);
	o.kind = MAP_OWN_METADATA;
	o.meta_type = "agf";
	o.ag = -1;
	o.part = 3;
	report_print_owner(f, NULL, NULL, &o);
	o.meta_type = NULL;
	o.ag = INT64_MAX;
	o.part = 0;
	report_print_owner(f, NULL, NULL, &o);
	fclose(f);
	assert_string_equal(out, "      log log (AG 2)\n      metadata agf, partition 3\n"
			    "      metadata  (AG 9223372036854775807)\n");
	free(out);
}

/* A damaged metadata line's start for people: the bytes fprintf wrote with the formats the
 * summary used ("  %-12s", " AG %-3" PRId64, "  %s offset %" PRIu64 " length %" PRIu64). */
static void test_meta_line(void **state)
{
	static const struct {
		const char *type;
		int64_t ag;
		uint64_t offset, length;
	} cases[] = {
		{ "log", 2, 167837696, 512 },
		{ "fs-headers", 0, 0, 512 },
		{ "superblock-and-more", -1, UINT64_MAX, 4096 },	/* wider than 12, no AG */
		{ "inodes", 12345, 1, 0 },				/* an AG wider than 3 */
		{ "", 99, 10, 10 },
		{ "agf", INT64_MAX, 4096, 4096 },
	};
	char *out = NULL, *want = NULL;
	size_t len = 0, wlen = 0;
	FILE *f = open_memstream(&out, &len), *w = open_memstream(&want, &wlen);

	(void)state;
	assert_non_null(f);
	assert_non_null(w);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct map_damage_meta m;

		memset(&m, 0, sizeof(m));
		m.type = cases[i].type;
		m.ag = cases[i].ag;
		m.offset = cases[i].offset;
		m.length = cases[i].length;
		report_print_meta_start(f, &m, "/dev/dm-4");
		fputc('\n', f);
		fprintf(w, "  %-12s", m.type);
		if (m.ag >= 0)
			fprintf(w, " AG %-3" PRId64, m.ag);
		fprintf(w, "  %s offset %" PRIu64 " length %" PRIu64 "\n", "/dev/dm-4", m.offset,
			m.length);
	}
	fclose(f);
	fclose(w);
	assert_string_equal(out, want);
	free(out);
	free(want);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_puts),
		cmocka_unit_test(test_put_path_hex),
		cmocka_unit_test(test_map_cells),
		cmocka_unit_test(test_map_text_escaped),
		cmocka_unit_test(test_stack_print),
		cmocka_unit_test(test_owner_print),
		cmocka_unit_test(test_meta_line),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
