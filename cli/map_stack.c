/*
 * cli/map_stack.c - the storage stack in map answers: a range's way up from the queried
 * device to the filesystem's device, the other copies of the data (or the rest of a parity
 * stripe) and the layer that could not be mapped, as JSON (json-c) and as text.
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
