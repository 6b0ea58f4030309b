/*
 * report/html_hist.c - the HTML report of `mediascan report --html`: one target of the history
 * as the report's JSON lists it (errors with their owners, NEW, first and last seen), its
 * passes from the state store, and its devices (size, partitions, groups, plan) when the same
 * target is here now.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "html.h"
#include "units.h"
#include "owners_json.h"

static int add_pass(const struct scan_state_pass_row *p, void *arg)
{
	struct report_html_target *t = arg;
	struct scan_state_pass_row *n = realloc(t->passes, (t->nr_passes + 1) * sizeof(*n));

	if (!n)
		return -ENOMEM;
	t->passes = n;
	t->passes[t->nr_passes++] = *p;
	return 0;
}

/* Open the target at the history's path when it is the same one (same key) now. */
static int open_here(const struct scan_state_target *st_t, struct map_target *mt)
{
	char key[8192], legacy[8192], err[512];
	int cls;

	if (!st_t->path || !st_t->path[0] || !st_t->key)
		return 0;
	if (map_target_open(st_t->path, mt, err, sizeof(err), &cls) < 0)
		return 0;
	map_target_key(mt, key, sizeof(key), legacy, sizeof(legacy));
	if (strcmp(key, st_t->key) == 0 || strcmp(legacy, st_t->key) == 0)
		return 1;
	map_target_close(mt);
	return 0;
}

/* The index of the device a history row names (its kernel path), added when unknown. */
static int dev_index(struct report_html_target *t, const char *path)
{
	for (unsigned d = 0; d < t->nr_devs; d++)
		if (strcmp(t->devs[d].path, path) == 0)
			return (int)d;
	if (t->nr_devs == MAP_MAX_DEVICES)
		return -ENOSPC;
	memset(&t->devs[t->nr_devs], 0, sizeof(t->devs[0]));
	snprintf(t->devs[t->nr_devs].path, sizeof(t->devs[0].path), "%s", path);
	snprintf(t->devs[t->nr_devs].role, sizeof(t->devs[0].role), "device");
	return (int)t->nr_devs++;
}


/* One error of the report's JSON as a range of the page (verdict as the history stored it). */
static int add_row(struct report_html_target *t, json_object *j)
{
	struct report_html_err e = { 0 };
	const char *state = report_json_str(j, "state");
	json_object *v;
	int d = dev_index(t, report_json_str(j, "device"));

	if (d < 0)
		return 0;			/* more devices than a target has: not drawn */
	e.dev = (uint32_t)d;
	e.offset = (uint64_t)report_json_int(j, "offset");
	e.length = (uint64_t)report_json_int(j, "length");
	if (scan_verdict_parse(report_json_str(j, "verdict"), &e.verdict) < 0)
		e.verdict = SCAN_V_DAMAGE;	/* as report does: the safe side */
	snprintf(e.error, sizeof(e.error), "%s", report_json_str(j, "error"));
	e.state = strcmp(state, "cleared") == 0 ? "cleared" :
		  strcmp(state, "unallocated") == 0 ? "unallocated" : "open";
	e.is_new = json_object_object_get_ex(j, "new", &v) && json_object_get_boolean(v);
	e.first_seen = report_json_int(j, "first_seen");
	e.last_seen = report_json_int(j, "last_seen");
	if (json_object_object_get_ex(j, "owners", &v))
		e.owners = json_object_get(v);
	if (!t->devs[d].size_known && e.offset + e.length > t->devs[d].size)
		t->devs[d].size = e.offset + e.length;
	if (report_html_add_err(t, &e) < 0) {
		json_object_put(e.owners);
		return -ENOMEM;
	}
	return 0;
}

static int cmp_err(const void *a, const void *b)
{
	const struct report_html_err *x = a, *y = b;

	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

int report_html_add_history(struct report_html *h, struct scan_state *st,
			 const struct scan_state_target *st_t, json_object *target_json)
{
	struct report_html_target *t = report_html_add_target(h);
	struct map_target mt;
	json_object *errs = NULL;
	char a[64];
	int ret = 0;

	if (!t)
		return -ENOMEM;
	t->history = 1;
	snprintf(t->name, sizeof(t->name), "%s", st_t->path ? st_t->path : "?");
	snprintf(t->fs_type, sizeof(t->fs_type), "%s", st_t->fs_type ? st_t->fs_type : "?");
	snprintf(t->summary, sizeof(t->summary), "History: %u open damaged range%s, %u cleared, "
		 "%u slow and %u device-fault ranges open, %u member ranges lost redundancy; last "
		 "complete pass %s.",
		 st_t->open_errors, st_t->open_errors == 1 ? "" : "s", st_t->cleared_errors,
		 st_t->open_slow, st_t->open_device_faults, st_t->open_redundancy_lost,
		 st_t->has_complete ?
		 report_fmt_time(st_t->last_complete.ended, a, sizeof(a)) : "none yet");
	if (open_here(st_t, &mt)) {
		/* Sizes, partitions and groups as they are now; the plan as it would be now. */
		report_html_dev_from_target(t, &mt, 1);
		map_target_close(&mt);
	}
	if (json_object_object_get_ex(target_json, "redundancy_lost", &t->rl))
		json_object_get(t->rl);
	if (json_object_object_get_ex(target_json, "copies_differ", &t->cd))
		json_object_get(t->cd);
	json_object_object_get_ex(target_json, "errors", &errs);
	for (size_t i = 0; errs && i < json_object_array_length(errs) && ret == 0; i++)
		ret = add_row(t, json_object_array_get_idx(errs, i));
	if (ret < 0)
		return ret;
	if (t->nr_errs)
		qsort(t->errs, t->nr_errs, sizeof(*t->errs), cmp_err);
	ret = scan_state_list_passes(st, st_t->id, add_pass, t);
	return ret < 0 ? ret : 0;
}
