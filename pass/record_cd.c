/*
 * pass/record_cd.c - the record stage's copies that differ: a comparing member-level pass's
 * runs whose copies disagreed, stored under the array's UUID and the first leg's member
 * identity, journalled and handed to on_damage when first seen, cleared by the next complete
 * comparing pass that finds them agreeing.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pass_int.h"

struct cd_strings {
	char member[320], array[MAP_STACK_NAME + 8], uuid[64], wrong[MAP_STACK_NAME + 8];
	char *owners, *legs;
};

static void cd_fill(struct pass_record *k, const struct pass_report *rep, size_t i,
		    struct cd_strings *c, struct scan_state_cd *v)
{
	const struct pass_stack_cd *e = &rep->stack->cd[i];
	const struct map_row_leg *l0 = &e->row.leg[0];
	char name[MAP_STACK_NAME];

	if (map_stack_ident(NULL, l0->name, c->member, sizeof(c->member)) < 0)
		snprintf(c->member, sizeof(c->member), "/dev/%s", l0->name);
	snprintf(c->array, sizeof(c->array), "/dev/%s", e->row.array);
	c->uuid[0] = 0;
	{
		struct map_stack_up u = { .nr_hops = 1 };

		snprintf(u.hop[0].name, sizeof(u.hop[0].name), "%s", e->row.array);
		if (map_stack_array_of(NULL, &u, name, sizeof(name), c->uuid, sizeof(c->uuid)) != 1)
			c->uuid[0] = 0;
	}
	if (e->wrong >= 0)
		snprintf(c->wrong, sizeof(c->wrong), "/dev/%s", e->row.leg[e->wrong].name);
	c->owners = k->h->cd_json ? k->h->cd_json(k->h->arg, rep, i, 0) : NULL;
	c->legs = k->h->cd_json ? k->h->cd_json(k->h->arg, rep, i, 1) : NULL;
	*v = (struct scan_state_cd){
		.array_uuid = c->uuid, .array_path = c->array, .level = e->row.level,
		.member = c->member, .offset = l0->offset + e->offset, .length = e->length,
		.wrong = e->wrong >= 0 ? c->wrong : NULL, .how = e->how, .legs_json = c->legs,
		.owners_json = c->owners,
	};
}

int pass_record_cd(struct pass_record *k, const struct pass_report *rep)
{
	const struct pass_stack *ps = rep->stack;
	const struct pass_hooks *h = k->h;
	size_t n = ps && ps->active ? ps->nr_cd : 0, *idx = NULL;
	struct cd_strings *c = NULL;
	struct scan_state_cd *v = NULL;
	int *fresh = NULL, ret = 0;
	unsigned nr_fresh = 0;

	if (!n)
		return 0;
	c = calloc(n, sizeof(*c));
	v = calloc(n, sizeof(*v));
	fresh = calloc(n, sizeof(*fresh));
	idx = calloc(n, sizeof(*idx));
	if (!c || !v || !fresh || !idx) {
		ret = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		cd_fill(k, rep, i, &c[i], &v[i]);
		fresh[i] = 1;			/* without a store every run is new */
	}
	if (k->st) {
		ret = scan_state_record_cd(k->st, k->pass_id, v, n, fresh);
		if (ret < 0)
			pass_say(h, PASS_SAY_ERROR, "warning: %zu run%s of copies that differ not "
				 "stored in the history: %s", n, n == 1 ? "" : "s",
				 scan_state_errmsg(k->st));
	}
	for (size_t i = 0; i < n; i++) {
		if (!fresh[i])
			continue;
		idx[nr_fresh++] = i;
		if (h->journal_cd)
			h->journal_cd(h->arg, rep, i, k->pass_id);
	}
	if (h->on_copies_differ && nr_fresh && rep->r->stopped != 1)
		h->on_copies_differ(h->arg, rep, idx, nr_fresh, k->pass_id);
	ret = ret < 0 ? ret : (int)nr_fresh;
out:
	for (size_t i = 0; c && i < n; i++) {
		free(c[i].owners);
		free(c[i].legs);
	}
	free(c);
	free(v);
	free(fresh);
	free(idx);
	return ret;
}

void pass_record_cd_settle(struct pass_record *k, const struct pass_report *rep)
{
	const struct pass_stack *ps = rep->stack;

	if (!ps || !ps->active || !ps->compare || !ps->cmp_rows)
		return;
	if (k->st && rep->r->complete && !k->unsaved && scan_state_settle_cd(k->st,
									    k->pass_id) < 0)
		pass_say(k->h, PASS_SAY_ERROR, "warning: copies that differ and now agree not "
			 "cleared in the history: %s", scan_state_errmsg(k->st));
}
