/*
 * cli/map_answer.c - `mediascan map`'s answer: the JSON (the shape of a scan report's
 * media_errors, damaged_files and damaged_metadata, with the kernel log's accounting and the
 * storage stack's hops) and the human text.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "config.h"
#include "files.h"
#include "escape.h"
#include "json_stream.h"
#include "map_report.h"

#include "map_int.h"

static const char *target_name(const struct tgt *tg)
{
	return tg->t.mount_point[0] ? tg->t.mount_point : tg->t.arg;
}

/* Return the JSON of target tg; its notes go to the array (its damaged files and metadata are
 * streamed: damaged_file_json, report_damaged_meta_write). */
static json_object *target_json(const struct tgt *tg, json_object *notes)
{
	json_object *jt = json_object_new_object(), *devs = json_object_new_array(), *a;

	report_json_add(jt, "device", json_object_new_string(tg->devpath));
	if (!tg->open) {
		report_json_add(jt, "error", json_object_new_string(tg->err));
		json_object_put(devs);
		return jt;
	}
	report_json_add(jt, "target", json_object_new_string(target_name(tg)));
	report_json_add(jt, "fs_type", json_object_new_string(tg->t.fs_type));
	if (tg->t.uuid[0])
		report_json_add(jt, "fs_uuid", json_object_new_string(tg->t.uuid));
	for (unsigned i = 0; i < tg->t.nr_devices; i++) {
		json_object *d = json_object_new_object();

		report_json_add(d, "path", json_object_new_string(tg->t.devices[i].path));
		report_json_add(d, "role", json_object_new_string(
			map_role_name(tg->t.devices[i].role)));
		report_json_add(d, "logical_block_size", report_json_new_i64(
			(int)tg->t.devices[i].info.logical_block_size));
		report_json_add(d, "size", report_json_new_u64(
			tg->t.devices[i].info.size_bytes));
		json_object_array_add(devs, d);
	}
	report_json_add(jt, "devices", devs);
	report_target_json(jt, &tg->t);
	report_mapping_json(jt, &tg->d);
	if (tg->err[0])
		report_json_add(jt, "error", json_object_new_string(tg->err));
	json_object_object_get_ex(jt, "notes", &a);
	for (size_t i = 0; a && i < json_object_array_length(a); i++)
		json_object_array_add(notes, json_object_get(json_object_array_get_idx(a, i)));
	return jt;
}

/* Return the JSON of damaged file i of target tg, as an entry of damaged_files[]. */
static json_object *damaged_file_json(const struct tgt *tg, size_t i)
{
	json_object *e = report_damaged_file_json(&tg->d, &tg->t, i);

	report_json_add(e, "target", json_object_new_string(target_name(tg)));
	return e;
}

/* Write the storage stack of query q (fields of its entry of media_errors[]) to s. */
static void query_stack_write(const struct query *q, struct report_json_stream *s)
{
	const struct map_stack_up *u = q->stk;

	if (!q->no_owner) {
		report_json_w_str(s, "fs_device", q->devpath);
		report_json_w_u64(s, "fs_offset", q->offset);
	}
	report_stack_hops_write(s, "stack", u);
	if (u->nr_copies) {
		report_json_w_json(s, "copies", report_stack_copies_json(u));
	} else {
		report_json_w_open(s, "copies", 1);
		report_json_w_close(s);
	}
	if (u->parity)
		report_json_w_bool(s, "parity", 1);
	if (u->unused)
		report_json_w_str(s, "unused", u->bad_reason);
	if (u->thin_meta)
		report_json_w_bool(s, "thin_pool_metadata", 1);
	if (u->nr_also) {
		/* a thin block shared with other volumes (snapshots): each is its own entry too */
		char dev[MAP_STACK_NAME + 8];

		report_json_w_open(s, "shared_with", 1);
		for (unsigned i = 0; i < u->nr_also; i++) {
			cli_map_copy_dev(dev, sizeof(dev), u->also[i].name);
			report_json_w_open(s, NULL, 0);
			report_json_w_str(s, "device", dev);
			report_json_w_u64(s, "offset", u->also[i].offset);
			report_json_w_close(s);
		}
		report_json_w_close(s);
	}
	if (u->also_more)		/* volumes past what one answer lists: not named */
		report_json_w_u64(s, "shared_with_more", u->also_more);
	if (u->unmappable)
		report_json_w_json(s, "unmappable", report_stack_unmappable_json(u));
}

/*
 * Add the answer-wide parts of the queries' stacks: the first stack to root (before
 * media_errors, an empty one after it when no query has one), every unmappable layer and
 * every copy to the arrays.
 */
static void stacks_json(const struct map_run *m, json_object *root, json_object *unmappable,
			json_object *copies)
{
	int stack_done = 0;

	for (size_t i = 0; i < m->nr_q; i++) {
		const struct query *q = &m->q[i];
		json_object *um, *cj;

		if (!q->stk)
			continue;
		um = report_stack_unmappable_json(q->stk);
		if (um)
			json_object_array_add(unmappable, um);
		if (!stack_done) {
			report_json_add(root, "stack", report_stack_hops_json(q->stk));
			stack_done = 1;
		}
		if (!q->stk->nr_copies)
			continue;
		cj = report_stack_copies_json(q->stk);
		for (size_t c = 0; c < json_object_array_length(cj); c++)
			json_object_array_add(copies,
					      json_object_get(json_object_array_get_idx(cj, c)));
		json_object_put(cj);
	}
	report_json_add(root, "media_errors", json_object_new_array());
	if (!stack_done)
		report_json_add(root, "stack", json_object_new_array());
}

/*
 * Write query q of m as the next entry of media_errors[] (field by field: a thousand-sector
 * map spent most of its time making, writing and freeing each answer's json-c objects).
 */
static int query_write(const struct map_run *m, const struct query *q,
		       struct report_json_stream *s)
{
	size_t first = 0, count = 0;

	report_json_w_begin(s);
	report_json_w_str(s, "device", q->stk ? q->asked_dev : q->devpath);
	report_json_w_u64(s, "offset", q->stk ? q->asked_off : q->offset);
	report_json_w_u64(s, "length", q->length);
	if (q->stk)
		query_stack_write(q, s);
	report_json_w_str(s, "error", m->from_log ? "kernel-log" : "query");
	report_json_w_str(s, "format", q->format);
	if (m->from_log)
		report_json_w_str(s, "precision", q->vague ? "command" : "block");
	if (q->stale[0])
		report_json_w_str(s, "not_mapped", q->stale);
	if (m->from_log) {
		report_json_w_i64(s, "lines", (int)q->lines);
		report_json_w_u64(s, map_klog_unit_name(q->format), q->value);
	}
	if (q->tgt >= 0) {
		const struct tgt *tg = &m->tg[q->tgt];

		report_json_w_str(s, "role", map_role_name(tg->t.devices[q->dev_idx].role));
		map_damage_group(&tg->d, q->group, &first, &count);
	}
	report_json_w_open(s, "owners", 1);
	for (size_t k = 0; k < count; k++) {
		const struct tgt *tg = &m->tg[q->tgt];

		report_owner_write(s, NULL, &tg->d, &tg->t, &tg->d.owners[first + k]);
	}
	report_json_w_close(s);
	return report_json_w_end(s);
}

/* Return the kernel_log object of an answer from a kernel log: what its lines gave. */
static json_object *kernel_log_json(const struct map_run *m)
{
	json_object *kl = json_object_new_object(), *u = json_object_new_array();
	json_object *unk = json_object_new_array();

	report_json_add(kl, "lines", report_json_new_i64((int)m->lines));
	report_json_add(kl, "matched", report_json_new_i64((int)m->matched));
	report_json_add(kl, "ranges", report_json_new_i64((int)m->nr_q));
	report_json_add(kl, "ignored", report_json_new_i64((int)m->ignored));
	report_json_add(kl, "not_kernel", report_json_new_i64((int)m->not_kernel));
	report_json_add(kl, "kernel_lines",
			       report_json_new_i64((int)m->kernel_lines));
	report_json_add(kl, "too_long", report_json_new_i64((int)m->too_long));
	report_json_add(kl, "dropped", report_json_new_i64((int)m->dropped));
	report_json_add(kl, "narrowed", report_json_new_i64((int)m->narrowed));
	report_json_add(kl, "request_starts",
			       report_json_new_i64((int)m->request_starts));
	report_json_add(kl, "vague", report_json_new_i64((int)m->nr_vague));
	report_json_add(kl, "logged_before_device",
			       report_json_new_i64((int)m->nr_stale));
	report_json_add(kl, "unusable", report_json_new_i64((int)m->nr_unusable));
	for (unsigned i = 0; i < m->nr_unusable && i < MAP_SHOW_UNUSABLE; i++)
		json_object_array_add(u, json_object_new_string(m->unusable[i]));
	report_json_add(kl, "unusable_lines", u);
	for (unsigned i = 0; i < m->nr_unknown && i < 16; i++)
		json_object_array_add(unk, json_object_new_string(m->unknown[i]));
	report_json_add(kl, "unknown_devices", unk);
	return kl;
}

/*
 * Return the answer of m as JSON (schema mediascan-map/1) without the entries of its long
 * arrays, media_errors[], damaged_files[] and damaged_metadata[] (present, empty):
 * cli_map_write_json streams them into their place.
 */
static json_object *answer_skeleton(const struct map_run *m)
{
	json_object *root = json_object_new_object();
	json_object *targets = json_object_new_array(), *notes = json_object_new_array();
	json_object *unmappable = json_object_new_array(), *copies = json_object_new_array();

	report_json_add(root, "schema", json_object_new_string("mediascan-map/1"));
	report_json_add(root, "version", json_object_new_string(MEDIASCAN_VERSION));
	report_json_add(root, "source", json_object_new_string(
		m->from_log ? "kernel-log" : "query"));
	for (size_t k = 0; k < m->nr_tg; k++)
		json_object_array_add(targets, target_json(&m->tg[k], notes));
	report_json_add(root, "targets", targets);
	stacks_json(m, root, unmappable, copies);
	report_json_add(root, "copies", copies);
	report_json_add(root, "unmappable", unmappable);
	report_json_add(root, "damaged_files", json_object_new_array());
	report_json_add(root, "damaged_metadata", json_object_new_array());
	if (m->from_log)
		report_json_add(root, "kernel_log", kernel_log_json(m));
	report_json_add(root, "notes", notes);
	report_json_add(root, "exit_status", report_json_new_i64((int)m->exit_bits));
	return root;
}

/*
 * Write the answer of m to f: the skeleton, with each entry of media_errors[], damaged_files[]
 * and damaged_metadata[] written in turn (a map of thousands of ranges never holds them all
 * as one tree). Return 0 or -errno.
 */
static int write_answer(const struct map_run *m, FILE *f)
{
	json_object *root = answer_skeleton(m);
	struct report_json_stream s;
	int ret = report_json_stream_start(&s, f, root, JSON_C_TO_STRING_PRETTY |
					   JSON_C_TO_STRING_NOSLASHESCAPE);

	if (ret < 0)
		goto out_put;
	ret = report_json_stream_open(&s, "media_errors");
	for (size_t i = 0; ret == 0 && i < m->nr_q; i++)
		ret = query_write(m, &m->q[i], &s);
	if (ret == 0)
		ret = report_json_stream_open(&s, "damaged_files");
	for (size_t k = 0; ret == 0 && k < m->nr_tg; k++)
		for (size_t i = 0; ret == 0 && m->tg[k].open && i < m->tg[k].d.nr_files; i++)
			ret = report_json_stream_add(&s, damaged_file_json(&m->tg[k], i));
	if (ret == 0)
		ret = report_json_stream_open(&s, "damaged_metadata");
	for (size_t k = 0; ret == 0 && k < m->nr_tg; k++) {
		for (size_t i = 0; ret == 0 && m->tg[k].open && i < m->tg[k].d.nr_meta; i++) {
			report_damaged_meta_write(&s, &m->tg[k].d, &m->tg[k].t, i);
			ret = report_json_w_end(&s);
		}
	}
	if (ret < 0 && !s.err)
		s.err = ret;			/* nothing more is written */
	ret = report_json_stream_end(&s);
out_put:
	json_object_put(root);
	return ret;
}

int cli_map_write_json(const struct map_run *m, const char *path)
{
	struct report_out o;
	int ret = report_out_open(path, 0600, &o);

	if (ret == 0)
		ret = report_out_close(&o, write_answer(m, o.f));
	return ret;
}

void cli_map_print_answer(const struct map_run *m, FILE *f)
{
	char esc[512];

	for (size_t i = 0; i < m->nr_q; i++) {
		const struct query *q = &m->q[i];
		size_t first = 0, count = 0;

		/* "DEV offset N length N  (UNIT N, N line[s][; ...])" without fprintf: one a
		 * range, thousands in a map */
		fputs(q->stk ? q->asked_dev : q->devpath, f);
		fputs(" offset ", f);
		report_put_u64(f, q->stk ? q->asked_off : q->offset);
		fputs(" length ", f);
		report_put_u64(f, q->length);
		if (m->from_log) {
			fputs("  (", f);
			fputs(map_klog_unit_name(q->format), f);
			fputc(' ', f);
			report_put_u64(f, q->value);
			fputs(", ", f);
			report_put_u64(f, q->lines);
			fputs(q->lines == 1 ? " line" : " lines", f);
			if (q->vague)
				fputs("; the failed command's blocks: the bad one lies somewhere "
				      "inside", f);
			fputc(')', f);
		}
		fputc('\n', f);
		if (q->stk)
			report_stack_print(f, q->stk);
		if (q->no_owner)
			continue;
		if (q->tgt < 0) {
			fprintf(f, "      %s\n", q->stale[0] ? q->stale : "not mapped");
			continue;
		}
		const struct tgt *tg = &m->tg[q->tgt];

		map_damage_group(&tg->d, q->group, &first, &count);
		for (size_t k = 0; k < count; k++) {
			const struct map_owner *o = &tg->d.owners[first + k];

			if (o->kind == MAP_OWN_FREE)
				fprintf(f, "      free space (nothing stored there)\n");
			else
				report_print_owner(f, &tg->d, &tg->t, o);
		}
	}
	for (size_t k = 0; k < m->nr_tg; k++) {
		const struct tgt *tg = &m->tg[k];

		if (!tg->open) {
			fprintf(f, "\n%s: %s\n", tg->devpath, tg->err);
			continue;
		}
		if (tg->d.nr_files || tg->d.nr_meta)
			fprintf(f, "\n== %s (%s)\n", target_name(tg), tg->t.fs_type);
		report_print_owners(f, &tg->d, &tg->t, !m->from_log);
		report_print_notes(f, &tg->d);
		if (tg->err[0])
			fprintf(f, "\nerror: %s\n", tg->err);
	}
	if (m->from_log) {
		fprintf(f, "\nkernel log: %u line%s, %u naming a failed range (%zu distinct), "
			"%u unusable", m->lines, m->lines == 1 ? "" : "s", m->matched, m->nr_q,
			m->nr_unusable);
		if (m->not_kernel)
			fprintf(f, ", %u not from the kernel (ignored)", m->not_kernel);
		if (m->nr_stale)
			fprintf(f, ", %u logged before their device or filesystem appeared (not "
				"mapped)", m->nr_stale);
		if (m->too_long)
			fprintf(f, ", %u longer than %d bytes (dropped)", m->too_long,
				MAP_KLOG_MAX_LINE);
		if (m->dropped)
			fprintf(f, ", %u past %d distinct ranges (dropped)", m->dropped,
				MAP_KLOG_MAX_RANGES);
		if (m->narrowed || m->request_starts)
			fprintf(f, ", %u command range%s narrowed by a later line, %u block-layer "
				"line%s naming a command's first sector (not the bad one)",
				m->narrowed, m->narrowed == 1 ? "" : "s", m->request_starts,
				m->request_starts == 1 ? "" : "s");
		if (m->nr_vague)
			fprintf(f, ", %u too vague to narrow (a failed command's blocks, every "
				"owner named)", m->nr_vague);
		if (m->nr_unknown) {
			fprintf(f, ", on unknown devices:");
			for (unsigned i = 0; i < m->nr_unknown && i < 16; i++)
				fprintf(f, " %s", report_escape(m->unknown[i], esc, sizeof(esc)));
		}
		fputc('\n', f);
		for (unsigned i = 0; i < m->nr_unusable && i < MAP_SHOW_UNUSABLE; i++)
			fprintf(f, "  unusable: %s\n", report_escape(m->unusable[i], esc, sizeof(esc)));
	}
	if (!m->nr_q && !m->from_log)
		fprintf(f, "nothing to map\n");
}
