/*
 * report/map_stack.c - the storage stack in answers, as JSON (json-c) and as text: for map, a
 * range's way up from the queried device to the filesystem's device, the other copies of the
 * data (or the rest of a parity stripe) and the layer that could not be mapped; for probe,
 * the tree from the filesystem's device down to the disks.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "json_stream.h"
#include "map_report.h"
#include "map_stack.h"

static json_object *dev_string(const char *name)
{
	char p[96] = "/dev/";
	size_t n = strnlen(name, sizeof(p) - 6);

	/* no snprintf: every hop of every answer names its device */
	memcpy(p + 5, name, n);
	p[5 + n] = '\0';
	return report_json_string(p);
}

json_object *report_stack_hops_json(const struct map_stack_up *u)
{
	json_object *a = json_object_new_array();

	for (unsigned i = 0; i < u->nr_hops; i++) {
		json_object *h = json_object_new_object();

		report_json_add(h, "device", dev_string(u->hop[i].name));
		report_json_add(h, "kind", report_json_string(u->hop[i].kind));
		report_json_add(h, "offset", report_json_new_u64(u->hop[i].offset));
		if (u->hop[i].parity)
			report_json_add(h, "parity", report_json_bool(1));
		if (u->hop[i].degraded)
			report_json_add(h, "degraded", report_json_bool(1));
		json_object_array_add(a, h);
	}
	return a;
}

void report_stack_hops_write(struct report_json_stream *s, const char *key,
			     const struct map_stack_up *u)
{
	char p[MAP_STACK_NAME + 8] = "/dev/";

	/* report_stack_hops_json's bytes, without an object per hop (a thousand-sector map
	 * writes thousands of hops); the unit test compares the two */
	report_json_w_open(s, key, 1);
	for (unsigned i = 0; i < u->nr_hops; i++) {
		size_t n = strnlen(u->hop[i].name, sizeof(u->hop[i].name));

		memcpy(p + 5, u->hop[i].name, n);
		p[5 + n] = '\0';
		report_json_w_open(s, NULL, 0);
		report_json_w_str(s, "device", p);
		report_json_w_str(s, "kind", u->hop[i].kind);
		report_json_w_u64(s, "offset", u->hop[i].offset);
		if (u->hop[i].parity)
			report_json_w_bool(s, "parity", 1);
		if (u->hop[i].degraded)
			report_json_w_bool(s, "degraded", 1);
		report_json_w_close(s);
	}
	report_json_w_close(s);
}

json_object *report_stack_copies_json(const struct map_stack_up *u)
{
	json_object *a;

	if (!u->nr_copies)
		return report_json_empty_array();
	a = json_object_new_array();

	for (unsigned i = 0; i < u->nr_copies; i++) {
		const struct map_stack_copy *c = &u->copy[i];
		json_object *j = json_object_new_object();

		report_json_add(j, "device", dev_string(c->name));
		report_json_add(j, "offset", report_json_new_u64(c->offset));
		report_json_add(j, "length", report_json_new_u64(c->length));
		report_json_add(j, "role", json_object_new_string(c->role));
		report_json_add(j, "disk", dev_string(c->disk));
		report_json_add(j, "disk_offset", report_json_new_u64(c->disk_offset));
		report_json_add(j, "array", dev_string(c->array));
		json_object_array_add(a, j);
	}
	return a;
}

json_object *report_stack_unmappable_json(const struct map_stack_up *u)
{
	json_object *j;

	if (!u->unmappable)
		return NULL;
	j = json_object_new_object();
	report_json_add(j, "device", dev_string(u->bad_name));
	report_json_add(j, "kind", json_object_new_string(u->bad_kind));
	report_json_add(j, "reason", json_object_new_string(u->bad_reason));
	return j;
}

/* A line of the stack for people, assembled in memory and written at once: a map of a
 * thousand sectors prints thousands of hops, and each fputs costs more than its bytes. Room
 * for MAP_STACK_MAX_HOPS hops of the longest names and kinds. */
struct stack_line {
	char b[MAP_STACK_MAX_HOPS * (MAP_STACK_NAME + 80) + 32];
	size_t n;
};

static void line_put(struct stack_line *l, const char *s)
{
	size_t k = strlen(s);

	if (k > sizeof(l->b) - l->n)		/* never, by its size: cut, not overrun */
		k = sizeof(l->b) - l->n;
	memcpy(l->b + l->n, s, k);
	l->n += k;
}

/* Append v in decimal, as "%" PRIu64 does. */
static void line_u64(struct stack_line *l, uint64_t v)
{
	char buf[24], *p = buf + sizeof(buf) - 1;

	*p = '\0';
	do {
		*--p = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	line_put(l, p);
}

void report_stack_print(FILE *f, const struct map_stack_up *u)
{
	struct stack_line l;

	l.n = 0;
	line_put(&l, "      stack:");
	/* each hop " -> /dev/NAME (KIND[, parity][, DEGRADED]) at OFFSET" */
	for (unsigned i = 0; i < u->nr_hops; i++) {
		line_put(&l, i ? " -> /dev/" : " /dev/");
		line_put(&l, u->hop[i].name);
		line_put(&l, " (");
		line_put(&l, u->hop[i].kind);
		if (u->hop[i].parity)
			line_put(&l, ", parity");
		if (u->hop[i].degraded)
			line_put(&l, ", DEGRADED");
		line_put(&l, ") at ");
		line_u64(&l, u->hop[i].offset);
	}
	line_put(&l, "\n");
	fwrite(l.b, 1, l.n, f);
	if (u->parity)
		fprintf(f, "      parity of a stripe: no file owns it; a latent error here fails a "
			"rebuild\n");
	for (unsigned i = 0; i < u->nr_copies; i++) {
		const struct map_stack_copy *c = &u->copy[i];

		fprintf(f, "      %s: /dev/%s offset %" PRIu64 " length %" PRIu64 " (in /dev/%s)\n",
			u->parity || c->role[0] != 'm' ? c->role : "other copy", c->name,
			c->offset, c->length, c->array);
	}
	for (unsigned i = 0; i < u->nr_also; i++) {
		/* "shared with /dev/NAME at OFFSET (...)": one a sector */
		l.n = 0;
		line_put(&l, "      shared with /dev/");
		line_put(&l, u->also[i].name);
		line_put(&l, " at ");
		line_u64(&l, u->also[i].offset);
		line_put(&l, " (a thin volume or snapshot mapping the same block)\n");
		fwrite(l.b, 1, l.n, f);
	}
	if (u->also_more)
		fprintf(f, "      and %u more volumes share it: their owners are not named\n",
			u->also_more);
	if (u->unmappable)
		fprintf(f, "      cannot map through /dev/%s (%s): %s; no owner is guessed\n",
			u->bad_name, u->bad_kind, u->bad_reason);
	else if (u->unused)
		fprintf(f, "      holds nothing above: %s\n", u->bad_reason);
}

json_object *report_stack_tree_json(const struct map_stack_node *n)
{
	json_object *j = json_object_new_object(), *below = json_object_new_array();

	report_json_add(j, "device", dev_string(n->name));
	report_json_add(j, "kind", json_object_new_string(n->kind));
	report_json_add(j, "size", report_json_new_u64(n->size));
	if (n->slot >= 0)
		report_json_add(j, "slot", report_json_new_i64(n->slot));
	if (n->is_md) {
		json_object *md = json_object_new_object();

		report_json_add(md, "level", json_object_new_string(n->level));
		report_json_add(md, "raid_disks", report_json_new_i64((int)n->raid_disks));
		report_json_add(md, "chunk_size", report_json_new_u64(n->chunk_bytes));
		report_json_add(md, "layout", report_json_new_i64(n->layout));
		report_json_add(md, "degraded", report_json_new_u64(n->degraded));
		report_json_add(md, "sync_action", json_object_new_string(n->sync_action));
		if (n->uuid[0])
			report_json_add(md, "uuid", json_object_new_string(n->uuid));
		report_json_add(j, "md", md);
	}
	if (n->thin_ok && !strcmp(n->kind, "dm-thin-pool")) {
		json_object *t = json_object_new_object();

		report_json_add(t, "data_block_size", report_json_new_u64(
			n->thin_block_bytes));
		report_json_add(t, "data_blocks", report_json_new_u64(n->thin_data_blocks));
		report_json_add(t, "provisioned_blocks", report_json_new_u64(
			n->thin_provisioned));
		report_json_add(t, "mapped_blocks", report_json_new_u64(n->thin_mappings));
		report_json_add(t, "volumes", report_json_new_i64((int)n->thin_volumes));
		report_json_add(t, "rewalks", report_json_new_i64((int)n->thin_rewalks));
		report_json_add(j, "thin_pool", t);
	} else if (n->thin_why[0] && !strcmp(n->kind, "dm-thin-pool")) {
		json_object *t = json_object_new_object();

		report_json_add(t, "not_read", json_object_new_string(n->thin_why));
		report_json_add(j, "thin_pool", t);
	}
	if (n->thin_id >= 0) {
		json_object *t = json_object_new_object();

		report_json_add(t, "id", report_json_new_i64(n->thin_id));
		if (n->thin_ok)
			report_json_add(t, "mapped_blocks", report_json_new_u64(
				n->thin_mapped));
		report_json_add(j, "thin", t);
	}
	for (unsigned i = 0; i < n->nr_below; i++)
		json_object_array_add(below, report_stack_tree_json(&n->below[i]));
	report_json_add(j, "below", below);
	return j;
}

void report_stack_tree_print(FILE *f, const struct map_stack_node *n, unsigned depth)
{
	fprintf(f, "  %*s/dev/%s  %s  %" PRIu64 " bytes", (int)depth * 2, "", n->name, n->kind,
		n->size);
	if (n->slot >= 0)
		fprintf(f, "  slot %d", n->slot);
	if (n->is_md) {
		fprintf(f, "  %u disks", n->raid_disks);
		if (n->chunk_bytes)
			fprintf(f, ", chunk %" PRIu64 " KiB", n->chunk_bytes / 1024);
		fprintf(f, ", %s", n->sync_action[0] ? n->sync_action : "?");
		if (n->degraded)
			fprintf(f, ", DEGRADED (%" PRIu64 " missing)", n->degraded);
	}
	if (n->thin_ok && !strcmp(n->kind, "dm-thin-pool"))
		fprintf(f, "  %u volumes, %" PRIu64 " of %" PRIu64 " blocks of %" PRIu64
			" KiB provisioned, %" PRIu64 " mapped", n->thin_volumes,
			n->thin_provisioned, n->thin_data_blocks, n->thin_block_bytes / 1024,
			n->thin_mappings);
	else if (n->thin_why[0] && !strcmp(n->kind, "dm-thin-pool"))
		fprintf(f, "  not read: %s", n->thin_why);
	if (n->thin_id >= 0)
		fprintf(f, "  thin id %" PRId64 ", %" PRIu64 " blocks mapped", n->thin_id,
			n->thin_mapped);
	fputc('\n', f);
	for (unsigned i = 0; i < n->nr_below; i++)
		report_stack_tree_print(f, &n->below[i], depth + 1);
}

/* The owners of a redundancy-lost range: the filesystem's; scan MEMBER_DISK: those of the
 * filesystem on top of its stack (tops[top]; NULL: none named). */
static const struct map_damage *rl_dmg(const struct pass_report *rep, int top,
				       const struct map_target **t)
{
	const struct pass_stack *ps = rep->stack;

	if (!ps->member_plan) {
		*t = rep->t;
		return &ps->dmg;
	}
	if (top < 0 || (unsigned)top >= ps->nr_tops || !ps->tops[top].t)
		return NULL;
	*t = ps->tops[top].t;
	return &ps->tops[top].dmg;
}

static json_object *owners_json(const struct pass_report *rep, int top, size_t first,
				size_t count)
{
	json_object *own = json_object_new_array();
	const struct map_target *t = NULL;
	const struct map_damage *d = rl_dmg(rep, top, &t);

	for (size_t k = 0; d && k < count; k++)
		json_object_array_add(own, report_owner_json(d, t, &d->owners[first + k]));
	return own;
}

/* A thin block's other volumes (snapshots) and their owners. */
static json_object *shared_json(const struct pass_report *rep, const struct pass_stack_rl *e)
{
	json_object *a = json_object_new_array();
	char dev[MAP_STACK_NAME + 8];

	for (unsigned s = 0; s < e->nr_shared; s++) {
		const struct pass_stack_shared *sh = &e->shared[s];
		json_object *j = json_object_new_object();

		snprintf(dev, sizeof(dev), "/dev/%s", sh->dev);
		report_json_add(j, "device", json_object_new_string(dev));
		report_json_add(j, "offset", report_json_new_u64(sh->offset));
		if (sh->top >= 0)
			report_json_add(j, "fs_offset", report_json_new_u64(sh->fs_offset));
		else
			report_json_add(j, "why", json_object_new_string(sh->why));
		report_json_add(j, "owners", owners_json(rep, sh->top, sh->own_first,
								 sh->own_count));
		json_object_array_add(a, j);
	}
	return a;
}

json_object *report_stack_rl_json(const struct pass_report *rep, size_t i)
{
	const struct pass_stack *ps = rep->stack;
	const struct pass_stack_rl *e = &ps->rl[i];
	json_object *j = json_object_new_object();
	char dev[MAP_STACK_NAME + 8];

	report_json_add(j, "device", json_object_new_string(e->member));
	report_json_add(j, "member_id", json_object_new_string(e->member_id));
	if (e->array[0]) {
		snprintf(dev, sizeof(dev), "/dev/%s", e->array);
		report_json_add(j, "array", json_object_new_string(dev));
		report_json_add(j, "array_uuid", json_object_new_string(e->array_uuid));
	}
	report_json_add(j, "offset", report_json_new_u64(e->offset));
	report_json_add(j, "length", report_json_new_u64(e->length));
	report_json_add(j, "verdict", json_object_new_string(
		e->lost ? "damage" : "redundancy-lost"));
	report_json_add(j, "errno", report_json_new_i64(e->err));
	if (e->u) {
		report_json_add(j, "stack", report_stack_hops_json(e->u));
		report_json_add(j, "copies", report_stack_copies_json(e->u));
		if (e->u->parity)
			report_json_add(j, "parity", report_json_bool(1));
		if (e->u->unmappable)
			report_json_add(j, "unmappable", report_stack_unmappable_json(e->u));
	}
	if (e->has_fs)
		report_json_add(j, "fs_offset", report_json_new_u64(e->fs_offset));
	if (e->repair[0])
		report_json_add(j, "repair", json_object_new_string(e->repair));
	report_json_add(j, "owners", owners_json(rep, e->top, e->own_first, e->own_count));
	if (e->nr_shared)
		report_json_add(j, "shared_with", shared_json(rep, e));
	if (e->shared_more)
		report_json_add(j, "shared_with_more", report_json_new_u64(e->shared_more));
	return j;
}

/* scan MEMBER_DISK: what its plan holds besides written data, the layers' own metadata. */
static json_object *member_plan_json(const struct pass_stack *ps)
{
	json_object *j = json_object_new_object(), *tops = json_object_new_array();
	json_object *meta = json_object_new_array();
	char dev[MAP_STACK_NAME + 8];

	snprintf(dev, sizeof(dev), "/dev/%s", ps->disk);
	report_json_add(j, "device", json_object_new_string(dev));
	for (unsigned i = 0; i < ps->nr_gtop; i++) {
		snprintf(dev, sizeof(dev), "/dev/%s", ps->gtop[i]);
		json_object_array_add(tops, json_object_new_string(dev));
	}
	report_json_add(j, "tops", tops);
	report_json_add(j, "planned_bytes", report_json_new_u64(ps->mr_bytes));
	report_json_add(j, "ranges", report_json_new_u64(ps->nr_mr));
	report_json_add(j, "metadata_bytes", report_json_new_u64(ps->meta_bytes));
	for (size_t i = 0; i < ps->nr_meta; i++) {
		const struct pass_stack_meta *m = &ps->meta[i];
		json_object *e = json_object_new_object();

		snprintf(dev, sizeof(dev), "/dev/%s", m->layer);
		report_json_add(e, "layer", json_object_new_string(dev));
		report_json_add(e, "kind", json_object_new_string(m->kind));
		report_json_add(e, "what", json_object_new_string(m->what));
		report_json_add(e, "offset", report_json_new_u64(m->offset));
		report_json_add(e, "length", report_json_new_u64(m->length));
		json_object_array_add(meta, e);
	}
	report_json_add(j, "metadata", meta);
	return j;
}

void report_stack_report_json(json_object *root, const struct pass_report *rep)
{
	const struct pass_stack *ps = rep->stack;
	json_object *a = json_object_new_array(), *mem, *devs;

	if (ps && ps->unmappable) {
		json_object *um = json_object_new_array(), *u = json_object_new_object();
		char dev[96];

		snprintf(dev, sizeof(dev), "/dev/%s", ps->bad_name);
		report_json_add(u, "device", json_object_new_string(dev));
		report_json_add(u, "kind", json_object_new_string(ps->bad_kind));
		report_json_add(u, "reason", json_object_new_string(ps->note));
		json_object_array_add(um, u);
		report_json_add(root, "unmappable", um);
	}
	if (ps && ps->member_plan) {
		/* scan MEMBER_DISK: its errors as the stack above sees them */
		report_json_add(root, "member_plan", member_plan_json(ps));
		for (size_t i = 0; i < ps->nr_rl; i++)
			json_object_array_add(a, report_stack_rl_json(rep, i));
	}
	if (!ps || !ps->active) {
		report_json_add(root, "redundancy_lost", a);
		return;
	}
	mem = json_object_new_array();
	for (unsigned i = 0; i < ps->nr_leaf; i++) {
		json_object *d = json_object_new_object();

		report_json_add(d, "path", json_object_new_string(ps->path[i]));
		report_json_add(d, "role", json_object_new_string("member"));
		report_json_add(d, "logical_block_size", report_json_new_i64(
			(int)ps->devs[i].logical_block_size));
		report_json_add(d, "size", report_json_new_u64(ps->devs[i].size_bytes));
		json_object_array_add(mem, d);
	}
	report_json_add(root, "member_devices", mem);
	/* the contract's place for them: devices[] with role "member", beside the top device */
	if (json_object_object_get_ex(root, "devices", &devs) && json_object_is_type(devs,
										  json_type_array))
		for (unsigned i = 0; i < ps->nr_leaf; i++)
			json_object_array_add(devs, json_object_get(json_object_array_get_idx(mem,
											       i)));
	report_json_add(root, "member_level", report_json_bool(1));
	if (rep->resumed) {
		/* found by the runs before the interruption: in the history (mediascan report) */
		report_json_add(root, "redundancy_lost_earlier",
				       report_json_new_u64(ps->nr_rl_earlier));
		report_json_add(root, "lost_earlier",
				       report_json_new_u64(ps->nr_lost_earlier));
	}
	for (size_t i = 0; i < ps->nr_rl; i++)
		json_object_array_add(a, report_stack_rl_json(rep, i));
	report_json_add(root, "redundancy_lost", a);
}

/* The owners of a range in its filesystem (see rl_dmg). */
static void print_owners(FILE *f, const struct pass_report *rep, int top, size_t first,
			 size_t count)
{
	const struct map_target *t = NULL;
	const struct map_damage *d = rl_dmg(rep, top, &t);

	for (size_t k = 0; d && k < count; k++)
		report_print_owner(f, d, t, &d->owners[first + k]);
}

void report_stack_report_print(FILE *f, const struct pass_report *rep)
{
	const struct pass_stack *ps = rep->stack;

	if (ps && ps->member_plan && ps->nr_meta) {
		fprintf(f, "\nThe layers' own metadata on /dev/%s (planned with its written data):\n",
			ps->disk);
		for (size_t i = 0; i < ps->nr_meta; i++)
			fprintf(f, "  offset %" PRIu64 " length %" PRIu64 ": /dev/%s (%s) %s\n",
				ps->meta[i].offset, ps->meta[i].length, ps->meta[i].layer,
				ps->meta[i].kind, ps->meta[i].what);
	}
	if (!ps || (!ps->active && !ps->member_plan))
		return;
	if (ps->active) {
		fprintf(f, "\nRead at member level: every copy and parity on %u member%s:",
			ps->nr_leaf, ps->nr_leaf == 1 ? "" : "s");
		for (unsigned i = 0; i < ps->nr_leaf; i++)
			fprintf(f, " %s", ps->path[i]);
		fputc('\n', f);
	}
	if (ps->nr_rl_earlier || ps->nr_lost_earlier)
		fprintf(f, "\nBefore this pass was interrupted it found %zu range%s whose redundancy "
			"is lost and %zu that no copy reads: in the history (mediascan report)\n",
			ps->nr_rl_earlier, ps->nr_rl_earlier == 1 ? "" : "s", ps->nr_lost_earlier);
	if (!ps->nr_rl)
		return;
	if (ps->member_plan)
		fprintf(f, "\nAs the stack above /dev/%s sees its errors (each range's other copies "
			"read for the verdict):", ps->disk);
	size_t nr_lost = 0;

	for (size_t i = 0; i < ps->nr_rl; i++)
		nr_lost += ps->rl[i].lost != 0;
	if (nr_lost == ps->nr_rl)
		fprintf(f, "\nNo other copy reads (%zu): the data of these ranges is lost; restore "
			"what they hold:\n", ps->nr_rl);
	else
		fprintf(f, "\nRedundancy lost (%zu): a copy failed while another still reads; "
			"nothing is lost yet, but the next failure loses it. Repair from the good "
			"copy:\n", ps->nr_rl);
	for (size_t i = 0; i < ps->nr_rl; i++) {
		const struct pass_stack_rl *e = &ps->rl[i];

		fprintf(f, "  %s offset %" PRIu64 " length %" PRIu64 "%s\n", e->member, e->offset,
			e->length, e->lost ? "  NO COPY READS" : "");
		if (e->u)
			report_stack_print(f, e->u);
		print_owners(f, rep, e->top, e->own_first, e->own_count);
		for (unsigned s = 0; s < e->nr_shared; s++) {
			const struct pass_stack_shared *sh = &e->shared[s];

			fprintf(f, "      on /dev/%s at %" PRIu64 " (it maps the same block)%s%s\n",
				sh->dev, sh->offset, sh->top < 0 ? ": " : ":", sh->why);
			print_owners(f, rep, sh->top, sh->own_first, sh->own_count);
		}
		if (e->repair[0])
			fprintf(f, "      repair: %s\n", e->repair);
	}
}
