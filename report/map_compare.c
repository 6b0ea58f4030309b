/*
 * report/map_compare.c - copies that differ (a member-level scan that compared what it read):
 * the compare's choice and counts, and each differing run with its array, every leg (member
 * range), which copy is wrong and how that is known, the owners, and the repair advice. The
 * advice never propagates a copy that may be the bad one: md's `repair` rewrites the parity or
 * copies the first mirror, so it is advised only where the wrong copy is known and md would
 * rewrite exactly it.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "map_compare.h"
#include "map_report.h"

/* The wrong copy's name ("/dev/nvme0n2" and its role), or NULL when not known. */
static const struct map_row_leg *wrong_leg(const struct pass_stack_cd *e)
{
	return e->wrong >= 0 && (unsigned)e->wrong < e->row.nr_legs ? &e->row.leg[e->wrong] : NULL;
}

/* What an admin does about it, in one sentence. */
static void advice(const struct pass_stack_cd *e, char *out, size_t len)
{
	const struct map_row_leg *w = wrong_leg(e);

	if (w && (w->role == MAP_MD_PARITY || w->role == MAP_MD_SYNDROME))
		snprintf(out, len, "the %s is wrong and the data intact: md's repair of this "
			 "range rewrites it (echo repair > /sys/block/%s/md/sync_action, with "
			 "sync_min/sync_max around the range)", map_md_role_name(w->role),
			 e->row.array);
	else if (w)
		snprintf(out, len, "the copy on /dev/%s is wrong: rewrite this range from a good "
			 "copy (restore the files named, or fail and re-add that member); never a "
			 "blind md repair, which may copy the wrong one", w->name);
	else
		snprintf(out, len, "which copy is right cannot be known: restore the files named "
			 "from a backup or compare them by hand; never a blind md repair, which "
			 "may copy the wrong one");
}

static json_object *legs_json(const struct pass_stack_cd *e)
{
	json_object *a = json_object_new_array();
	char dev[MAP_STACK_NAME + 8];

	for (unsigned i = 0; i < e->row.nr_legs; i++) {
		const struct map_row_leg *l = &e->row.leg[i];
		json_object *j = json_object_new_object();

		snprintf(dev, sizeof(dev), "/dev/%s", l->name);
		json_object_object_add(j, "device", json_object_new_string(dev));
		json_object_object_add(j, "offset", json_object_new_uint64(l->offset + e->offset));
		json_object_object_add(j, "length", json_object_new_uint64(e->length));
		json_object_object_add(j, "role", json_object_new_string(map_md_role_name(l->role)));
		json_object_object_add(j, "slot", json_object_new_int(l->slot));
		if (l->top_offset != UINT64_MAX)
			json_object_object_add(j, "fs_offset",
					       json_object_new_uint64(l->top_offset + e->offset));
		json_object_object_add(j, "wrong", json_object_new_boolean(e->wrong == (int)i));
		json_object_array_add(a, j);
	}
	return a;
}

json_object *report_compare_cd_json(const struct pass_report *rep, size_t i)
{
	const struct pass_stack *ps = rep->stack;
	const struct pass_stack_cd *e = &ps->cd[i];
	const struct map_row_leg *w = wrong_leg(e);
	json_object *j = json_object_new_object(), *own = json_object_new_array();
	json_object *fs = json_object_new_array();
	char dev[MAP_STACK_NAME + 8], adv[400];

	snprintf(dev, sizeof(dev), "/dev/%s", e->row.array);
	json_object_object_add(j, "verdict", json_object_new_string("copies-differ"));
	json_object_object_add(j, "array", json_object_new_string(dev));
	json_object_object_add(j, "level", json_object_new_string(e->row.level));
	json_object_object_add(j, "kind", json_object_new_string(
		e->row.kind == MAP_ROW_MIRROR ? "mirror" : e->row.kind == MAP_ROW_XOR ? "parity" :
		"p+q"));
	json_object_object_add(j, "legs", legs_json(e));
	if (w) {
		snprintf(dev, sizeof(dev), "/dev/%s", w->name);
		json_object_object_add(j, "wrong", json_object_new_string(dev));
		json_object_object_add(j, "wrong_role", json_object_new_string(
			map_md_role_name(w->role)));
	} else {
		json_object_object_add(j, "wrong", NULL);
	}
	json_object_object_add(j, "how", json_object_new_string(e->how));
	json_object_object_add(j, "parity_only", json_object_new_boolean(e->parity_only));
	for (unsigned t = 0; t < e->nr_top; t++) {
		json_object *r = json_object_new_object();

		json_object_object_add(r, "offset", json_object_new_uint64(e->top_off[t]));
		json_object_object_add(r, "length", json_object_new_uint64(e->top_len[t]));
		json_object_array_add(fs, r);
		for (size_t k = 0; k < e->own_count[t]; k++)
			json_object_array_add(own, report_owner_json(&ps->dmg, rep->t,
					      &ps->dmg.owners[e->own_first[t] + k]));
	}
	json_object_object_add(j, "fs_ranges", fs);
	json_object_object_add(j, "owners", own);
	advice(e, adv, sizeof(adv));
	json_object_object_add(j, "advice", json_object_new_string(adv));
	return j;
}

void report_compare_json(json_object *root, const struct pass_report *rep)
{
	const struct pass_stack *ps = rep->stack;
	json_object *c, *a;

	if (!ps || !ps->active)
		return;
	c = json_object_new_object();
	json_object_object_add(c, "on", json_object_new_boolean(ps->compare));
	json_object_object_add(c, "why", json_object_new_string(ps->compare_why ?
								 ps->compare_why : ""));
	json_object_object_add(c, "rows", json_object_new_uint64(ps->cmp_rows));
	json_object_object_add(c, "bytes", json_object_new_uint64(ps->cmp_bytes));
	json_object_object_add(c, "not_compared", json_object_new_uint64(ps->cmp_not_compared));
	json_object_object_add(c, "in_flux", json_object_new_uint64(ps->cmp_in_flux));
	json_object_object_add(root, "compare", c);
	a = json_object_new_array();
	for (size_t i = 0; i < ps->nr_cd; i++)
		json_object_array_add(a, report_compare_cd_json(rep, i));
	json_object_object_add(root, "copies_differ", a);
}

static void cd_print(FILE *f, const struct pass_report *rep, const struct pass_stack_cd *e)
{
	const struct pass_stack *ps = rep->stack;
	const struct map_row_leg *w = wrong_leg(e);
	char adv[400];

	fprintf(f, "  /dev/%s (%s): %" PRIu64 " bytes at %" PRIu64 " into the row; ",
		e->row.array, e->row.level, e->length, e->offset);
	if (w)
		fprintf(f, "wrong: the %s on /dev/%s (by %s)\n", map_md_role_name(w->role),
			w->name, e->how);
	else
		fprintf(f, "which copy is wrong cannot be known\n");
	for (unsigned i = 0; i < e->row.nr_legs; i++) {
		const struct map_row_leg *l = &e->row.leg[i];

		fprintf(f, "      %-8s /dev/%s offset %" PRIu64 "%s\n", map_md_role_name(l->role),
			l->name, l->offset + e->offset, e->wrong == (int)i ? "  WRONG" : "");
	}
	for (unsigned t = 0; t < e->nr_top; t++)
		for (size_t k = 0; k < e->own_count[t]; k++)
			report_print_owner(f, &ps->dmg, rep->t, &ps->dmg.owners[e->own_first[t] + k]);
	advice(e, adv, sizeof(adv));
	fprintf(f, "      advice: %s\n", adv);
}

void report_compare_print(FILE *f, const struct pass_report *rep)
{
	const struct pass_stack *ps = rep->stack;

	if (!ps || !ps->active)
		return;
	if (!ps->compare) {
		fprintf(f, "Copies not compared (%s)\n", ps->compare_why ? ps->compare_why : "off");
		return;
	}
	fprintf(f, "Copies compared (%s): %" PRIu64 " rows, %" PRIu64 " bytes", ps->compare_why,
		ps->cmp_rows, ps->cmp_bytes);
	if (ps->cmp_not_compared)
		fprintf(f, "; %" PRIu64 " not compared (a copy failed to read)",
			ps->cmp_not_compared);
	if (ps->cmp_in_flux)
		fprintf(f, "; %" PRIu64 " in flux (written while read, agreed when read again)",
			ps->cmp_in_flux);
	fputc('\n', f);
	if (!ps->nr_cd)
		return;
	fprintf(f, "\nCopies differ (%zu): the copies (or data and parity) of these ranges "
		"disagree, read three times; no read failed:\n", ps->nr_cd);
	for (size_t i = 0; i < ps->nr_cd; i++)
		cd_print(f, rep, &ps->cd[i]);
}
