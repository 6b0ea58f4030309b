/*
 * report/json_stream.h - one JSON document written with its long top-level arrays streamed
 * (json_stream.c): the rest of the document is a json-c tree, each element of a streamed array
 * is serialised by json-c, written and freed as it comes, or written field by field with no
 * json-c object at all (report_json_w_*). The bytes are those json-c writes for the whole tree;
 * memory holds one element at a time.
 */
#ifndef MEDIASCAN_JSON_STREAM_H
#define MEDIASCAN_JSON_STREAM_H

#include <stdint.h>
#include <stdio.h>

struct json_object;

struct report_json_stream {
	FILE *f;
	int flags;			/* JSON_C_TO_STRING_*: PRETTY required */
	const char *rest;		/* the skeleton's text not yet written */
	const char *indent;		/* one level: "  " or "\t" */
	unsigned nr;			/* elements written into the open array */
	int open;			/* an array is open */
	int err;			/* first error, -errno */
	char *buf;			/* one element, indented */
	size_t len, cap;
	/* an element written field by field (report_json_w_*): the depth of the container
	 * open (the element itself: 2), and per depth whether it holds a value yet and
	 * whether it is an array */
	unsigned depth;
	uint32_t had, is_array;
};

/*
 * json_object_object_add for a key that outlives o (a string literal): the key is neither
 * copied nor freed (an answer of thousands of entries adds each key thousands of times).
 * Return 0, or -1 as json-c does.
 */
int report_json_add(struct json_object *o, const char *key, struct json_object *val);
/*
 * Return a new json-c integer (json_object_new_uint64, _int64) that writes its digits itself:
 * json-c formats each integer with snprintf, a tenth of an answer's time. The same bytes.
 */
struct json_object *report_json_new_u64(uint64_t v);
struct json_object *report_json_new_i64(int64_t v);
/*
 * Shared leaves: a reference (json_object_get) to one json-c object for a value that answers
 * repeat thousands of times (a boolean, an empty array, a string of a small set: a kind, a
 * type, a role, a device), instead of a new object each time. Never to be changed (no array
 * added to, no string set); the bytes written are the same. _string keeps at most
 * JSON_SHARED strings (shorter than 64 bytes), then makes new ones.
 */
struct json_object *report_json_bool(int b);
struct json_object *report_json_empty_array(void);
struct json_object *report_json_string(const char *s);
/*
 * Return 0 after starting the document skeleton (root object; its streamed arrays present
 * and empty, in their place) on f with json-c flags (JSON_C_TO_STRING_PRETTY required), or
 * -EINVAL. The skeleton must live, unchanged, until report_json_stream_end.
 */
int report_json_stream_start(struct report_json_stream *s, FILE *f, struct json_object *skeleton,
			     int flags);
/* Return 0 after writing the skeleton up to inside root's empty array key (closing the array
 * open before), or -errno (-ENOENT: no such empty array after what was written). */
int report_json_stream_open(struct report_json_stream *s, const char *key);
/* Return 0 after writing elem as the open array's next element (elem is put, always), or -errno. */
int report_json_stream_add(struct report_json_stream *s, struct json_object *elem);
/*
 * An element of the open array written field by field, as json-c would write the object tree
 * (pretty; the tests compare the bytes), with no json-c object made and freed for each field:
 * a map of a thousand thin-pool sectors spent most of its time making, writing and freeing
 * its answers' objects (callgrind). By hand, hence: json-c has no writer without a tree.
 * _begin starts the element (an object); each value is a field of the object open (key: a
 * string literal) or the next element of the array open (key NULL); _open starts an object
 * or array, _close ends the latest; _json writes a json-c value in place (and puts it);
 * _end closes the element and writes it. Return of _end: 0 or the first error (-errno); the
 * others record theirs in s->err (nothing more is written).
 */
void report_json_w_begin(struct report_json_stream *s);
void report_json_w_str(struct report_json_stream *s, const char *key, const char *v);
void report_json_w_u64(struct report_json_stream *s, const char *key, uint64_t v);
void report_json_w_i64(struct report_json_stream *s, const char *key, int64_t v);
void report_json_w_bool(struct report_json_stream *s, const char *key, int b);
void report_json_w_open(struct report_json_stream *s, const char *key, int array);
void report_json_w_close(struct report_json_stream *s);
void report_json_w_json(struct report_json_stream *s, const char *key, struct json_object *v);
int report_json_w_end(struct report_json_stream *s);
/* Return 0 after writing the rest of the skeleton and a newline (nothing after an error), or
 * the first error (-errno); frees what s holds. Called once after a successful start. */
int report_json_stream_end(struct report_json_stream *s);

#endif
