/*
 * cli/map_stack.c - the storage stack in answers, as JSON (json-c) and as text: for map, a
 * range's way up from the queried device to the filesystem's device, the other copies of the
 * data (or the rest of a parity stripe) and the layer that could not be mapped; for probe,
 * the tree from the filesystem's device down to the disks.
 */
#include <inttypes.h>
#include <stdio.h>

#include "map_stack.h"

static json_object *dev_string(const char *name)
{
	char p[96];

	snprintf(p, sizeof(p), "/dev/%s", name);
	return json_object_new_string(p);
}

json_object *cli_stack_hops_json(const struct map_stack_up *u)
{
	json_object *a = json_object_new_array();

	for (unsigned i = 0; i < u->nr_hops; i++) {
		json_object *h = json_object_new_object();

		json_object_object_add(h, "device", dev_string(u->hop[i].name));
		json_object_object_add(h, "kind", json_object_new_string(u->hop[i].kind));
		json_object_object_add(h, "offset", json_object_new_uint64(u->hop[i].offset));
		if (u->hop[i].parity)
			json_object_object_add(h, "parity", json_object_new_boolean(1));
		if (u->hop[i].degraded)
			json_object_object_add(h, "degraded", json_object_new_boolean(1));
		json_object_array_add(a, h);
	}
	return a;
}

json_object *cli_stack_copies_json(const struct map_stack_up *u)
{
	json_object *a = json_object_new_array();

	for (unsigned i = 0; i < u->nr_copies; i++) {
		const struct map_stack_copy *c = &u->copy[i];
		json_object *j = json_object_new_object();

		json_object_object_add(j, "device", dev_string(c->name));
		json_object_object_add(j, "offset", json_object_new_uint64(c->offset));
		json_object_object_add(j, "length", json_object_new_uint64(c->length));
		json_object_object_add(j, "role", json_object_new_string(c->role));
		json_object_object_add(j, "disk", dev_string(c->disk));
		json_object_object_add(j, "disk_offset", json_object_new_uint64(c->disk_offset));
		json_object_object_add(j, "array", dev_string(c->array));
		json_object_array_add(a, j);
	}
	return a;
}

json_object *cli_stack_unmappable_json(const struct map_stack_up *u)
{
	json_object *j;

	if (!u->unmappable)
		return NULL;
	j = json_object_new_object();
	json_object_object_add(j, "device", dev_string(u->bad_name));
	json_object_object_add(j, "kind", json_object_new_string(u->bad_kind));
	json_object_object_add(j, "reason", json_object_new_string(u->bad_reason));
	return j;
}

void cli_stack_print(FILE *f, const struct map_stack_up *u)
{
	fprintf(f, "      stack:");
	for (unsigned i = 0; i < u->nr_hops; i++)
		fprintf(f, "%s /dev/%s (%s%s%s) at %" PRIu64, i ? " ->" : "", u->hop[i].name,
			u->hop[i].kind, u->hop[i].parity ? ", parity" : "",
			u->hop[i].degraded ? ", DEGRADED" : "", u->hop[i].offset);
	fputc('\n', f);
	if (u->parity)
		fprintf(f, "      parity of a stripe: no file owns it; a latent error here fails a "
			"rebuild\n");
	for (unsigned i = 0; i < u->nr_copies; i++) {
		const struct map_stack_copy *c = &u->copy[i];

		fprintf(f, "      %s: /dev/%s offset %" PRIu64 " length %" PRIu64 " (in /dev/%s)\n",
			u->parity || c->role[0] != 'm' ? c->role : "other copy", c->name,
			c->offset, c->length, c->array);
	}
	if (u->unmappable)
		fprintf(f, "      cannot map through /dev/%s (%s): %s; no owner is guessed\n",
			u->bad_name, u->bad_kind, u->bad_reason);
	else if (u->unused)
		fprintf(f, "      holds nothing above: %s\n", u->bad_reason);
}

json_object *cli_stack_tree_json(const struct map_stack_node *n)
{
	json_object *j = json_object_new_object(), *below = json_object_new_array();

	json_object_object_add(j, "device", dev_string(n->name));
	json_object_object_add(j, "kind", json_object_new_string(n->kind));
	json_object_object_add(j, "size", json_object_new_uint64(n->size));
	if (n->slot >= 0)
		json_object_object_add(j, "slot", json_object_new_int(n->slot));
	if (n->is_md) {
		json_object *md = json_object_new_object();

		json_object_object_add(md, "level", json_object_new_string(n->level));
		json_object_object_add(md, "raid_disks", json_object_new_int((int)n->raid_disks));
		json_object_object_add(md, "chunk_size", json_object_new_uint64(n->chunk_bytes));
		json_object_object_add(md, "layout", json_object_new_int64(n->layout));
		json_object_object_add(md, "degraded", json_object_new_uint64(n->degraded));
		json_object_object_add(md, "sync_action", json_object_new_string(n->sync_action));
		if (n->uuid[0])
			json_object_object_add(md, "uuid", json_object_new_string(n->uuid));
		json_object_object_add(j, "md", md);
	}
	for (unsigned i = 0; i < n->nr_below; i++)
		json_object_array_add(below, cli_stack_tree_json(&n->below[i]));
	json_object_object_add(j, "below", below);
	return j;
}

void cli_stack_tree_print(FILE *f, const struct map_stack_node *n, unsigned depth)
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
	fputc('\n', f);
	for (unsigned i = 0; i < n->nr_below; i++)
		cli_stack_tree_print(f, &n->below[i], depth + 1);
}
