/*
 * report/json_stream.c - a JSON document written with its long top-level arrays streamed
 * (json_stream.h). json-c builds a whole document as a tree before writing it: a map of
 * thousands of ranges held every answer's objects at once (and spent as long freeing them as
 * writing). Here the skeleton (the root with those arrays empty) is serialised once; each
 * element is serialised alone by json-c and written at its place, its lines indented to the
 * array's depth, then freed. json-c writes an element's nested lines at its depth by
 * indentation alone, and a JSON string holds no raw newline, so indenting each line of the
 * element gives the bytes json-c writes for the whole tree.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>
#include <json-c/printbuf.h>

#include "json_stream.h"

int report_json_add(json_object *o, const char *key, json_object *val)
{
	return json_object_object_add_ex(o, key, val, JSON_C_OBJECT_ADD_CONSTANT_KEY);
}

/* Write the decimal digits of v (negative when neg) to pb, as json-c's "%" PRId64 would. By
 * hand (json-c's own serializer hook, json_object_set_serializer): json-c formats every integer
 * through snprintf, a tenth of a thousand-sector map's instructions (callgrind, map-many.sh). */
static int put_digits(struct printbuf *pb, uint64_t v, int neg)
{
	char buf[24], *p = buf + sizeof(buf);

	do {
		*--p = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	if (neg)
		*--p = '-';
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
