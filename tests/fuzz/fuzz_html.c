/*
 * tests/fuzz/fuzz_html.c - the HTML writer (report/html.c, report/html_map.c) fed hostile names and
 * store rows: target name, filesystem type, summary, device path and role, error text and the
 * owners JSON of each range (as a state store may hold it, edited or not) come from the input.
 * The page must be whole (<!DOCTYPE html> ... </html>) and contain no raw '<' from the input:
 * each input string ends with "<zq", a tag the writer never writes, and every '<' of the page
 * must open (or close) a tag the writer does write.
 */
#include <json-c/json.h>
#include <stdio.h>

#include "fuzz.h"
#include "html.h"

/* The next field of the input (up to a NUL byte) with "<zq" after it, into buf. */
static const char *field(const uint8_t **data, size_t *size, char *buf, size_t len)
{
	size_t n = strnlen((const char *)*data, *size);

	snprintf(buf, len, "%.*s<zq", (int)(n < len - 4 ? n : len - 4), (const char *)*data);
	n = n < *size ? n + 1 : n;
	*data += n;
	*size -= n;
	return buf;
}

static int tag_ok(const char *p)
{
	static const char *const tags[] = {
		"!DOCTYPE", "b", "body", "br", "h1", "h2", "h3", "head", "html", "i", "li", "line",
		"meta", "p", "rect", "section", "span", "style", "svg", "table", "tbody", "td",
		"th", "thead", "title", "tr", "ul",
	};

	p += *p == '/';
	for (size_t i = 0; i < sizeof(tags) / sizeof(tags[0]); i++) {
		size_t n = strlen(tags[i]);

		if (strncmp(p, tags[i], n) == 0 && strchr(" >/\n", p[n]))
			return 1;
	}
	return 0;
}

/* Owners of one range: the input's JSON when it parses, else a file and a metadata owner
 * named by the text. */
static json_object *owners_of(const char *text, uint64_t ino)
{
	json_object *a = json_tokener_parse(text), *f, *m, *p, *hex;
	char h[64 * 2 + 1] = "";

	if (a && json_object_is_type(a, json_type_array))
		return a;
	json_object_put(a);
	a = json_object_new_array();
	f = json_object_new_object();
	p = json_object_new_array();
	hex = json_object_new_array();
	json_object_array_add(p, json_object_new_string(text));
	for (size_t i = 0; text[i] && i < 64; i++)
		snprintf(h + 2 * i, 3, "%02x", (unsigned char)text[i]);
	json_object_array_add(hex, json_object_new_string(h));
	json_object_object_add(f, "type", json_object_new_string("file"));
	json_object_object_add(f, "inode", json_object_new_uint64(ino));
	json_object_object_add(f, "file_offset", json_object_new_uint64(ino * 4096));
	json_object_object_add(f, "length", json_object_new_uint64(4096));
	json_object_object_add(f, "paths", p);
	json_object_object_add(f, "paths_hex", hex);
	json_object_array_add(a, f);
	m = json_object_new_object();
	json_object_object_add(m, "type", json_object_new_string("metadata"));
	json_object_object_add(m, "metadata", json_object_new_string(text));
	json_object_array_add(a, m);
	return a;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const states[] = { NULL, "open", "cleared", "unallocated" };
	struct report_html h = { .generated = 1764800000 };
	struct report_html_target *t;
	struct report_html_dev *d;
	char buf[1024], *page = NULL;
	size_t len = 0;
	uint64_t dev_size = fuzz_u64(&data, &size), seed = fuzz_u64(&data, &size);
	FILE *f;

	h.title = strdup(field(&data, &size, buf, sizeof(buf)));
	t = report_html_add_target(&h);
	if (!t || !h.title)
		abort();
	snprintf(t->name, sizeof(t->name), "%s", field(&data, &size, buf, sizeof(buf)));
	snprintf(t->fs_type, sizeof(t->fs_type), "%s", field(&data, &size, buf, sizeof(buf)));
	snprintf(t->summary, sizeof(t->summary), "%s", field(&data, &size, buf, sizeof(buf)));
	t->history = seed & 1;
	t->nr_devs = 1;
	d = &t->devs[0];
	snprintf(d->path, sizeof(d->path), "%s", field(&data, &size, buf, sizeof(buf)));
	snprintf(d->role, sizeof(d->role), "%s", field(&data, &size, buf, sizeof(buf)));
	snprintf(d->group_name, sizeof(d->group_name), "%s", field(&data, &size, buf, sizeof(buf)));
	d->size = dev_size % (1ull << 50);
	d->size_known = (seed >> 1) & 1;
	d->group_bytes = (seed >> 8) & 0xffffff;
	for (unsigned k = 0; size && k < 32; k++) {
		struct report_html_err e = { .dev = 0 };
		uint64_t v = fuzz_u64(&data, &size);

		e.offset = d->size ? v % d->size : v % (1ull << 40);
		e.length = 512 + (v >> 40) % 65536;
		e.verdict = (enum scan_verdict)((v >> 20) % (SCAN_V_OPERATIONAL + 1));
		snprintf(e.error, sizeof(e.error), "%s", field(&data, &size, buf, sizeof(buf)));
		e.state = t->history ? states[(v >> 30) % 4] : NULL;
		e.is_new = (v >> 33) & 1;
		e.first_seen = (int64_t)(v % 2000000000);
		e.last_seen = e.first_seen + 60;
		e.owners = owners_of(field(&data, &size, buf, sizeof(buf)), v & 0xffffff);
		if (report_html_add_err(t, &e) < 0)
			json_object_put(e.owners);
	}
	f = open_memstream(&page, &len);
	if (!f)
		abort();
	if (report_html_print(&h, f) < 0)
		abort();
	fclose(f);
	if (strncmp(page, "<!DOCTYPE html>", 15) || len < 8 || strcmp(page + len - 8, "</html>\n"))
		abort();			/* the page is not whole */
	for (const char *p = strchr(page, '<'); p; p = strchr(p + 1, '<'))
		if (strncmp(p, "<zq", 3) == 0 || !tag_ok(p + 1)) {
			/* an input string written raw, or a '<' that opens no tag of the writer */
			fprintf(stderr, "raw <: %zu: %.60s\n",
				(size_t)(p - page), p > page + 20 ? p - 20 : page);
			abort();
		}
	free(page);
	free((char *)h.title);
	report_html_free(&h);
	return 0;
}
