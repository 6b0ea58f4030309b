/*
 * report/json_out.h - one way to write a JSON value for two destinations (json_out.c): a json-c
 * tree (the scan report, which holds its document whole) or a streamed element written field by
 * field (report_json_w_*: `mediascan map`, thousands of answers). The code that lays out a value
 * (an owner) is written once; the bytes are the same either way.
 */
#ifndef MEDIASCAN_JSON_OUT_H
#define MEDIASCAN_JSON_OUT_H

#include <stdint.h>

#include "json_stream.h"

struct json_object;

#define REPORT_JSON_OUT_DEPTH 8

struct report_json_out {
	struct report_json_stream *s;	/* NULL: a json-c tree */
	/* the tree's containers open, the outermost first; keys are string literals */
	struct json_object *open[REPORT_JSON_OUT_DEPTH];
	unsigned depth;
	unsigned over;			/* containers opened past REPORT_JSON_OUT_DEPTH */
};

/* Start o on a tree whose root is the new object root (o's writes add to it). */
void report_json_out_tree(struct report_json_out *o, struct json_object *root);
/* Start o on s (its element begun, an object open to write into). */
void report_json_out_stream(struct report_json_out *o, struct report_json_stream *s);
/*
 * One value, a field of the object open (key: a string literal) or the next element of the
 * array open (key NULL). _str makes a new json-c string in a tree, _str_shared refers to a
 * shared one (report_json_string: a small set of values); _open starts an object or array,
 * _close ends it; _empty_array writes [] (a shared one in a tree); _json adds a json-c value
 * (taken), _json_key_copied the same under a key that need not outlive the call.
 */
void report_json_out_str(struct report_json_out *o, const char *key, const char *v);
void report_json_out_str_shared(struct report_json_out *o, const char *key, const char *v);
void report_json_out_u64(struct report_json_out *o, const char *key, uint64_t v);
void report_json_out_i64(struct report_json_out *o, const char *key, int64_t v);
void report_json_out_bool(struct report_json_out *o, const char *key, int b);
void report_json_out_open(struct report_json_out *o, const char *key, int array);
void report_json_out_close(struct report_json_out *o);
void report_json_out_empty_array(struct report_json_out *o, const char *key);
void report_json_out_json(struct report_json_out *o, const char *key, struct json_object *v);
void report_json_out_json_key_copied(struct report_json_out *o, const char *key,
				     struct json_object *v);

#endif
