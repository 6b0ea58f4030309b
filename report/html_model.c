/*
 * report/html_model.c - the model the HTML report is written from (report/html.h): its
 * targets and their error rows, grown as they come, and a target's devices from its map
 * (size, partitions, AG / block-group lines, and the cells its plan reads). Both the one-pass
 * report (html.c) and the history report (html_hist.c) fill it; html.c and html_map.c draw it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "report.h"
#include "html.h"
#include "map_stack.h"
#include "fs.h"

struct report_html_target *report_html_add_target(struct report_html *h)
{
	struct report_html_target *t = realloc(h->targets, (h->nr_targets + 1) * sizeof(*t));

	if (!t)
		return NULL;
	h->targets = t;
	t = &h->targets[h->nr_targets++];
	memset(t, 0, sizeof(*t));
	return t;
}

int report_html_add_err(struct report_html_target *t, const struct report_html_err *e)
{
	if (t->nr_errs == t->cap_errs) {
		size_t cap = t->cap_errs ? t->cap_errs * 2 : 16;
		struct report_html_err *n = realloc(t->errs, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		t->errs = n;
		t->cap_errs = cap;
	}
	t->errs[t->nr_errs++] = *e;
	return 0;
}

void report_html_free(struct report_html *h)
{
	for (size_t i = 0; i < h->nr_targets; i++) {
		for (size_t k = 0; k < h->targets[i].nr_errs; k++)
			json_object_put(h->targets[i].errs[k].owners);
		free(h->targets[i].errs);
		free(h->targets[i].passes);
		json_object_put(h->targets[i].rl);
		json_object_put(h->targets[i].cd);
	}
	free(h->targets);
	h->targets = NULL;
	h->nr_targets = 0;
}

struct mark_ctx {
	struct report_html_target *ht;
	uint64_t bpc[MAP_MAX_DEVICES];
};

/* Mark the cells range rg covers as planned. */
static int mark_range(const struct map_range *rg, void *arg)
{
	struct mark_ctx *m = arg;
	struct report_html_dev *dv;
	uint64_t c, last;

	if (rg->dev_idx >= m->ht->nr_devs || !rg->length)
		return 0;
	dv = &m->ht->devs[rg->dev_idx];
	c = rg->offset / m->bpc[rg->dev_idx];
	last = (rg->offset + rg->length - 1) / m->bpc[rg->dev_idx];
	for (; c <= last && c < REPORT_HTML_CELLS; c++)
		dv->planned[c] = 1;
	return 0;
}

/* Mark the cells of device d that hold planned bytes, from a fresh plan of mt (the pass's). */
static int mark_planned(struct report_html_target *ht, struct map_target *mt)
{
	struct map_plan_opts po = { .merge_gap = 0 };
	struct mark_ctx m = { .ht = ht };
	int ret;

	for (unsigned d = 0; d < ht->nr_devs; d++)
		report_html_cells(ht->devs[d].size, &m.bpc[d]);
	ret = pass_plan_each(mt, &po, mark_range, &m);
	if (ret < 0)
		return ret;
	for (unsigned d = 0; d < ht->nr_devs; d++)
		ht->devs[d].plan_known = 1;
	return 0;
}

int report_html_dev_from_target(struct report_html_target *ht, struct map_target *mt, int plan)
{
	ht->nr_devs = mt->nr_devices < MAP_MAX_DEVICES ? mt->nr_devices : MAP_MAX_DEVICES;
	for (unsigned d = 0; d < ht->nr_devs; d++) {
		struct report_html_dev *dv = &ht->devs[d];
		const struct map_device *md = &mt->devices[d];

		snprintf(dv->path, sizeof(dv->path), "%s", md->path);
		snprintf(dv->role, sizeof(dv->role), "%s", map_role_name(md->role));
		dv->size = md->info.size_bytes;
		dv->size_known = 1;
		for (unsigned k = 0; md->role == MAP_ROLE_DISK && k < mt->nr_parts; k++) {
			if (dv->nr_marks == REPORT_HTML_MAX_MARKS) {
				dv->marks_dropped++;
				continue;
			}
			dv->marks[dv->nr_marks++] = (struct report_html_mark){
				.offset = mt->parts[k].start, .length = mt->parts[k].size,
				.partition = 1, .number = mt->parts[k].number,
			};
		}
		if (md->role != MAP_ROLE_DATA || !mt->fs_group_bytes)
			continue;
		dv->group_bytes = mt->fs_group_bytes;
		dv->group_first = mt->fs_group_first;
		snprintf(dv->group_name, sizeof(dv->group_name), "%s",
			 mt->ops && mt->ops->group_name ? mt->ops->group_name : "group");
		for (uint64_t g = 0, off = mt->fs_group_first; off < dv->size;
		     g++, off += mt->fs_group_bytes) {
			if (dv->nr_marks == REPORT_HTML_MAX_MARKS) {
				dv->marks_dropped++;
				continue;
			}
			dv->marks[dv->nr_marks++] = (struct report_html_mark){
				.offset = off, .number = (unsigned)g,
			};
		}
	}
	return plan ? mark_planned(ht, mt) : 0;
}

