/*
 * report/json_out.c - a JSON value written once for two destinations (json_out.h): each call
 * makes a json-c leaf and adds it to the tree's container open, or writes the field to a
 * stream with no object (report_json_w_*).
 */
#include <errno.h>
#include <json-c/json.h>

#include "json_out.h"

void report_json_out_tree(struct report_json_out *o, json_object *root)
{
	o->s = NULL;
	o->open[0] = root;
	o->depth = 1;
	o->over = 0;
}

void report_json_out_stream(struct report_json_out *o, struct report_json_stream *s)
{
	o->s = s;
	o->depth = 0;
	o->over = 0;
}

/* Add v to the tree's container open (v taken). */
static void tree_add(struct report_json_out *o, const char *key, json_object *v)
{
	json_object *c = o->open[o->depth - 1];

	if (json_object_is_type(c, json_type_array))
		json_object_array_add(c, v);
	else
		report_json_add(c, key, v);
}

void report_json_out_str(struct report_json_out *o, const char *key, const char *v)
{
	if (o->s)
		report_json_w_str(o->s, key, v);
	else
		tree_add(o, key, json_object_new_string(v));
}

void report_json_out_str_shared(struct report_json_out *o, const char *key, const char *v)
{
	if (o->s)
		report_json_w_str(o->s, key, v);
	else
		tree_add(o, key, report_json_string(v));
}

void report_json_out_u64(struct report_json_out *o, const char *key, uint64_t v)
{
	if (o->s)
		report_json_w_u64(o->s, key, v);
	else
		tree_add(o, key, report_json_new_u64(v));
}

void report_json_out_i64(struct report_json_out *o, const char *key, int64_t v)
{
	if (o->s)
		report_json_w_i64(o->s, key, v);
	else
		tree_add(o, key, report_json_new_i64(v));
}

void report_json_out_bool(struct report_json_out *o, const char *key, int b)
{
	if (o->s)
		report_json_w_bool(o->s, key, b);
	else
		tree_add(o, key, report_json_bool(b));
}

void report_json_out_open(struct report_json_out *o, const char *key, int array)
{
	json_object *c;

	if (o->s) {
		report_json_w_open(o->s, key, array);
		return;
	}
	c = array ? json_object_new_array() : json_object_new_object();
	tree_add(o, key, c);
	/* not added (no memory), or deeper than any value laid out here (a bound never
	 * reached): its fields go to the container open */
	if (c && o->depth < REPORT_JSON_OUT_DEPTH)
		o->open[o->depth++] = c;
	else
		o->over++;
}

void report_json_out_close(struct report_json_out *o)
{
	if (o->s)
		report_json_w_close(o->s);
	else if (o->over)
		o->over--;
	else if (o->depth > 1)
		o->depth--;
}

void report_json_out_empty_array(struct report_json_out *o, const char *key)
{
	if (o->s) {
		report_json_w_open(o->s, key, 1);
		report_json_w_close(o->s);
	} else {
		tree_add(o, key, report_json_empty_array());
	}
}

void report_json_out_json(struct report_json_out *o, const char *key, json_object *v)
{
	if (o->s)
		report_json_w_json(o->s, key, v);
	else
		tree_add(o, key, v);
}

void report_json_out_json_key_copied(struct report_json_out *o, const char *key, json_object *v)
{
	json_object *c;

	if (o->s) {
		report_json_w_json(o->s, key, v);
		return;
	}
	c = o->open[o->depth - 1];
	if (json_object_is_type(c, json_type_array))
		json_object_array_add(c, v);
	else
		json_object_object_add(c, key, v);
}
