/*
 * report/json_stream.c - a JSON document written with its long top-level arrays streamed
 * (json_stream.h). json-c builds a whole document as a tree before writing it: a map of
 * thousands of ranges held every answer's objects at once (and spent as long freeing them as
 * writing). Here the skeleton (the root with those arrays empty) is serialised once; each
 * element is serialised alone by json-c and written at its place, its lines indented to the
 * array's depth, then freed. json-c writes an element's nested lines at its depth by
 * indentation alone, and a JSON string holds no raw newline, so indenting each line of the
 * element gives the bytes json-c writes for the whole tree. An element may also be written
 * field by field (report_json_w_*), as json-c's pretty printer lays a tree out: no objects.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <json-c/json.h>
#include <json-c/printbuf.h>

#include "json_stream.h"
#include "units.h"

int report_json_add(json_object *o, const char *key, json_object *val)
{
	return json_object_object_add_ex(o, key, val, JSON_C_OBJECT_ADD_CONSTANT_KEY);
}

/* Write the decimal digits of v (negative when neg) to pb, as json-c's "%" PRId64 would. By
 * hand (json-c's own serializer hook, json_object_set_serializer): json-c formats every integer
 * through snprintf, a tenth of a thousand-sector map's instructions (callgrind, map-many.sh). */
static int put_digits(struct printbuf *pb, uint64_t v, int neg)
{
	char buf[REPORT_DIGITS], *p = report_digits(buf + sizeof(buf), v, neg);

	return printbuf_memappend(pb, p, (int)(buf + sizeof(buf) - p));
}

static int u64_to_json(json_object *o, struct printbuf *pb, int level, int flags)
{
	(void)level;
	(void)flags;
	return put_digits(pb, json_object_get_uint64(o), 0);
}

static int i64_to_json(json_object *o, struct printbuf *pb, int level, int flags)
{
	int64_t v = json_object_get_int64(o);

	(void)level;
	(void)flags;
	/* the magnitude of INT64_MIN in unsigned arithmetic */
	return put_digits(pb, v < 0 ? 0 - (uint64_t)v : (uint64_t)v, v < 0);
}

json_object *report_json_new_u64(uint64_t v)
{
	json_object *o = json_object_new_uint64(v);

	if (o)
		json_object_set_serializer(o, u64_to_json, NULL, NULL);
	return o;
}

json_object *report_json_new_i64(int64_t v)
{
	json_object *o = json_object_new_int64(v);

	if (o)
		json_object_set_serializer(o, i64_to_json, NULL, NULL);
	return o;
}

#define JSON_SHARED 128		/* a power of two */

static json_object *shared_bool[2], *shared_empty;
static struct {
	char s[64];
	json_object *o;			/* NULL: free */
} shared_str[JSON_SHARED];

json_object *report_json_bool(int b)
{
	b = !!b;
	if (!shared_bool[b])
		shared_bool[b] = json_object_new_boolean(b);
	return shared_bool[b] ? json_object_get(shared_bool[b]) : NULL;
}

json_object *report_json_empty_array(void)
{
	if (!shared_empty)
		shared_empty = json_object_new_array();
	return shared_empty ? json_object_get(shared_empty) : NULL;
}

json_object *report_json_string(const char *s)
{
	unsigned h = 2166136261u;	/* FNV-1a */
	size_t n = 0;

	for (const char *p = s; *p && n < sizeof(shared_str[0].s); p++, n++)
		h = (h ^ (unsigned char)*p) * 16777619u;
	if (n >= sizeof(shared_str[0].s))
		return json_object_new_string(s);
	for (unsigned k = 0; k < JSON_SHARED; k++, h++) {
		unsigned i = h & (JSON_SHARED - 1);

		if (!shared_str[i].o) {
			shared_str[i].o = json_object_new_string(s);
			if (!shared_str[i].o)
				return NULL;
			memcpy(shared_str[i].s, s, n + 1);
			return json_object_get(shared_str[i].o);
		}
		if (!strcmp(shared_str[i].s, s))
			return json_object_get(shared_str[i].o);
	}
	return json_object_new_string(s);	/* all kept: a new one */
}

/* Write n bytes of p; remember the first failure. */
static void put(struct report_json_stream *s, const char *p, size_t n)
{
	if (!s->err && n && fwrite(p, 1, n, s->f) != n)
		s->err = -EIO;
}

int report_json_stream_start(struct report_json_stream *s, FILE *f, json_object *skeleton,
			     int flags)
{
	memset(s, 0, sizeof(*s));
	if (!(flags & JSON_C_TO_STRING_PRETTY) || !json_object_is_type(skeleton, json_type_object))
		return -EINVAL;
	s->f = f;
	s->flags = flags;
	s->indent = (flags & JSON_C_TO_STRING_PRETTY_TAB) ? "\t" : "  ";
	s->rest = json_object_to_json_string_ext(skeleton, flags);
	return s->rest ? 0 : -ENOMEM;
}

int report_json_stream_open(struct report_json_stream *s, const char *key)
{
	char pat[160];
	const char *at;
	int n;

	if (!s->rest)
		return -EINVAL;
	/* a top-level key is the only one at one level's indent after a newline (nested keys
	 * are deeper, strings hold no raw newline); json-c writes an empty array as "[", a
	 * newline and the closing bracket at the key's indent */
	n = snprintf(pat, sizeof(pat), "\n%s\"%s\":%s[\n%s]", s->indent, key,
		     (s->flags & JSON_C_TO_STRING_SPACED) ? " " : "", s->indent);
	if (n < 0 || (size_t)n >= sizeof(pat))
		return -ENAMETOOLONG;
	at = strstr(s->rest, pat);
	if (!at)
		return -ENOENT;
	at += n - strlen(s->indent) - 2;	/* just past the "[" */
	put(s, s->rest, (size_t)(at - s->rest));
	s->rest = at;
	s->open = 1;
	s->nr = 0;
	return s->err;
}

/* Room in the element buffer for n more bytes; 0 or -ENOMEM. */
static int buf_room(struct report_json_stream *s, size_t n)
{
	size_t cap = s->cap ? s->cap : 4096;
	char *b;

	if (s->len + n <= s->cap)
		return 0;
	while (cap < s->len + n)
		cap *= 2;
	b = realloc(s->buf, cap);
	if (!b)
		return -ENOMEM;
	s->buf = b;
	s->cap = cap;
	return 0;
}

/* Append text p (n bytes) to the element buffer, each line after two indents; 0 or -ENOMEM. */
static int buf_indented(struct report_json_stream *s, const char *p, size_t n)
{
	size_t ind = strlen(s->indent), lines = 1;
	const char *end = p + n, *nl;
	char *o;

	for (const char *q = p; (nl = memchr(q, '\n', (size_t)(end - q))); q = nl + 1)
		lines++;
	if (buf_room(s, n + lines * 2 * ind) < 0)
		return -ENOMEM;
	o = s->buf + s->len;
	while (p < end) {
		size_t k;

		nl = memchr(p, '\n', (size_t)(end - p));
		k = nl ? (size_t)(nl - p) + 1 : (size_t)(end - p);
		memcpy(o, s->indent, ind);
		memcpy(o + ind, s->indent, ind);
		memcpy(o + 2 * ind, p, k);
		o += 2 * ind + k;
		p += k;
	}
	s->len = (size_t)(o - s->buf);
	return 0;
}

int report_json_stream_add(struct report_json_stream *s, json_object *elem)
{
	const char *p;
	size_t n = 0;
	int ret = 0;

	if (!s->open) {
		json_object_put(elem);
		return -EINVAL;
	}
	/* the array's elements sit two levels deep: "[", then each on its own line; the
	 * element is assembled, then written at once */
	p = json_object_to_json_string_length(elem, s->flags, &n);
	if (!p)
		ret = -ENOMEM;
	s->len = 0;
	if (ret == 0)
		ret = buf_room(s, 2);
	if (ret == 0) {
		if (s->nr)
			s->buf[s->len++] = ',';
		s->buf[s->len++] = '\n';
		ret = buf_indented(s, p, n);
	}
	json_object_put(elem);
	if (ret < 0 && !s->err)
		s->err = ret;
	if (ret == 0)
		put(s, s->buf, s->len);
	s->nr++;
	return s->err;
}

/* Room for n more bytes in the element buffer, or NULL (the failure kept in s->err): where
 * they go. */
static inline char *w_room(struct report_json_stream *s, size_t n)
{
	if (s->err)
		return NULL;
	if (s->len + n > s->cap && buf_room(s, n) < 0) {
		s->err = -ENOMEM;
		return NULL;
	}
	return s->buf + s->len;
}

/* Append n bytes of p to the element buffer. */
static void w_put(struct report_json_stream *s, const char *p, size_t n)
{
	char *o = w_room(s, n);

	if (o) {
		memcpy(o, p, n);
		s->len += n;
	}
}

#define W_MAX_DEPTH 31
#define W_SHORT 16			/* an indent or key this short is copied at once */
static const char w_spaces[2 * W_MAX_DEPTH + 1] =
	"                                                              ";
static const char w_tabs[W_MAX_DEPTH + 1] =
	"\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t";

/* Write depth indents at o; return past them. */
static inline char *w_indent_at(const struct report_json_stream *s, char *o, unsigned depth)
{
	if (s->indent[0] == '\t') {
		memcpy(o, w_tabs, depth);
		return o + depth;
	}
	memcpy(o, w_spaces, 2 * (size_t)depth);
	return o + 2 * (size_t)depth;
}

/* Append depth indents. */
static void w_indent(struct report_json_stream *s, unsigned depth)
{
	char *o = w_room(s, 2 * (size_t)depth);

	if (o)
		s->len = (size_t)(w_indent_at(s, o, depth) - s->buf);
}

/* What each byte of a string is to w_plain: 0 written as it is, 1 a slash (as it is under
 * JSON_C_TO_STRING_NOSLASHESCAPE), 2 escaped by json-c (and DEL and non-ASCII, left to it), 3
 * the end. A table: every key and string of every answer passes here. */
static const unsigned char w_class[256] = {
	[0] = 3, [1 ... 0x1f] = 2, ['"'] = 2, ['\\'] = 2, ['/'] = 1, [0x7f ... 0xff] = 2,
};

/* Return the length of v when json-c writes it between its quotes unchanged (printable ASCII
 * with no quote or backslash, nor a slash unless JSON_C_TO_STRING_NOSLASHESCAPE: the unit
 * test checks each such byte against json-c), else -1. */
static inline ssize_t w_plain(const struct report_json_stream *s, const char *v)
{
	unsigned char k, slash_ok = (s->flags & JSON_C_TO_STRING_NOSLASHESCAPE) ? 1 : 0;
	const char *p = v;

	while ((k = w_class[(unsigned char)*p]) == 0 || (k == 1 && slash_ok))
		p++;
	return k == 3 ? p - v : -1;
}

/* Append v quoted: plain as it is, any other escaped by json-c itself. */
static void w_string(struct report_json_stream *s, const char *v)
{
	ssize_t n = w_plain(s, v);
	const char *p;
	json_object *o;
	char *w;

	if (n >= 0) {
		w = w_room(s, (size_t)n + 2);
		if (w) {
			w[0] = '"';
			memcpy(w + 1, v, (size_t)n);
			w[n + 1] = '"';
			s->len += (size_t)n + 2;
		}
		return;
	}
	o = json_object_new_string(v);
	p = o ? json_object_to_json_string_ext(o, s->flags) : NULL;
	if (p)
		w_put(s, p, strlen(p));
	else if (!s->err)
		s->err = -ENOMEM;
	json_object_put(o);
}

/* What comes before a value in the container open: its separator, indent and key (a plain
 * key written at once; any other through w_string). */
static void w_key(struct report_json_stream *s, const char *key)
{
	uint32_t bit = 1u << s->depth;
	int had = !!(s->had & bit), arr = !!(s->is_array & bit);
	unsigned char slash_ok = (s->flags & JSON_C_TO_STRING_NOSLASHESCAPE) ? 1 : 0, k;
	size_t ind = s->indent[0] == '\t' ? s->depth + 1 : 2 * (size_t)(s->depth + 1);
	const char *p;
	char *o, *q;

	if (!key)
		key = "";
	/* the indent copied 16 bytes at once and a short key while it is checked: room for
	 * both past what is written (a key's bytes are told plain by w_plain's table) */
	o = w_room(s, 2 + (ind > W_SHORT ? ind : W_SHORT) + W_SHORT + 4);
	if (!o)
		return;
	s->had |= bit;
	if (had)
		*o++ = ',';
	if (had || !arr)			/* an array's first value follows its "[\n" */
		*o++ = '\n';
	if (ind <= W_SHORT)
		memcpy(o, s->indent[0] == '\t' ? w_tabs : w_spaces, W_SHORT);
	else
		memcpy(o, s->indent[0] == '\t' ? w_tabs : w_spaces, ind);
	o += ind;
	if (arr) {
		s->len = (size_t)(o - s->buf);
		return;
	}
	q = o + 1;
	for (p = key; p < key + W_SHORT - 2 &&
	     ((k = w_class[(unsigned char)*p]) == 0 || (k == 1 && slash_ok)); p++)
		*q++ = *p;
	if (*p == '\0') {			/* plain and short: copied */
		*o = '"';
		o = q;
		*o++ = '"';
	} else {
		ssize_t kn = w_plain(s, key);

		if (kn < 0) {
			s->len = (size_t)(o - s->buf);
			w_string(s, key);
		} else {
			s->len = (size_t)(o - s->buf);
			w_put(s, "\"", 1);
			w_put(s, key, (size_t)kn);
			w_put(s, "\"", 1);
		}
		o = w_room(s, 2);
		if (!o)
			return;
	}
	*o++ = ':';
	if (s->flags & JSON_C_TO_STRING_SPACED)
		*o++ = ' ';
	s->len = (size_t)(o - s->buf);
}

void report_json_w_begin(struct report_json_stream *s)
{
	s->len = 0;
	if (!s->open && !s->err)
		s->err = -EINVAL;
	if (s->nr)
		w_put(s, ",", 1);
	w_put(s, "\n", 1);
	w_indent(s, 2);
	w_put(s, "{", 1);
	s->depth = 2;
	s->had = 0;
	s->is_array = 0;
}

void report_json_w_str(struct report_json_stream *s, const char *key, const char *v)
{
	w_key(s, key);
	w_string(s, v);
}

/* Append the decimal digits of v (negative when neg), as put_digits. */
static void w_digits(struct report_json_stream *s, uint64_t v, int neg)
{
	char buf[REPORT_DIGITS], *p = report_digits(buf + sizeof(buf), v, neg);

	w_put(s, p, (size_t)(buf + sizeof(buf) - p));
}

void report_json_w_u64(struct report_json_stream *s, const char *key, uint64_t v)
{
	w_key(s, key);
	w_digits(s, v, 0);
}

void report_json_w_i64(struct report_json_stream *s, const char *key, int64_t v)
{
	w_key(s, key);
	w_digits(s, v < 0 ? 0 - (uint64_t)v : (uint64_t)v, v < 0);
}

void report_json_w_bool(struct report_json_stream *s, const char *key, int b)
{
	w_key(s, key);
	if (b)
		w_put(s, "true", 4);
	else
		w_put(s, "false", 5);
}

void report_json_w_open(struct report_json_stream *s, const char *key, int array)
{
	uint32_t bit;

	w_key(s, key);
	if (s->depth + 1 >= W_MAX_DEPTH) {	/* deeper than any answer: refused */
		s->err = s->err ? s->err : -E2BIG;
		return;
	}
	s->depth++;
	bit = 1u << s->depth;
	s->had &= ~bit;
	if (array) {
		s->is_array |= bit;
		w_put(s, "[\n", 2);
	} else {
		s->is_array &= ~bit;
		w_put(s, "{", 1);
	}
}

/* Close the container open at s->depth, as json-c ends an object or array. */
static void w_close(struct report_json_stream *s)
{
	uint32_t bit = 1u << s->depth;

	if (s->is_array & bit) {
		if (s->had & bit)
			w_put(s, "\n", 1);
		w_indent(s, s->depth);
		w_put(s, "]", 1);
	} else {			/* json-c ends even an empty object on a line of its own */
		w_put(s, "\n", 1);
		w_indent(s, s->depth);
		w_put(s, "}", 1);
	}
}

void report_json_w_close(struct report_json_stream *s)
{
	if (s->depth <= 2) {			/* the element is closed by _end */
		s->err = s->err ? s->err : -EINVAL;
		return;
	}
	w_close(s);
	s->depth--;
}

void report_json_w_json(struct report_json_stream *s, const char *key, json_object *v)
{
	const char *p, *end, *nl;
	size_t n = 0;

	w_key(s, key);
	/* json-c writes a value nested at depth d as at depth 0 with d more indents after
	 * each newline (strings hold no raw newline) */
	p = v ? json_object_to_json_string_length(v, s->flags, &n) : "null";
	if (!p) {
		s->err = s->err ? s->err : -ENOMEM;
	} else {
		if (!v)
			n = 4;
		for (end = p + n; (nl = memchr(p, '\n', (size_t)(end - p))); p = nl + 1) {
			w_put(s, p, (size_t)(nl - p) + 1);
			w_indent(s, s->depth + 1);
		}
		w_put(s, p, (size_t)(end - p));
	}
	json_object_put(v);
}

int report_json_w_end(struct report_json_stream *s)
{
	while (s->depth > 2) {			/* left open: closed, as a tree would be */
		w_close(s);
		s->depth--;
	}
	w_close(s);
	if (!s->err)
		put(s, s->buf, s->len);
	s->nr++;
	return s->err;
}

int report_json_stream_end(struct report_json_stream *s)
{
	if (s->rest && !s->err) {
		put(s, s->rest, strlen(s->rest));
		put(s, "\n", 1);
	}
	s->rest = NULL;
	s->open = 0;
	free(s->buf);
	s->buf = NULL;
	s->cap = 0;
	return s->err;
}
