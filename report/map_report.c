/*
 * report/map_report.c - how mapping's answers are shown in JSON, shared by `scan` reports
 * (report.c) and `mediascan map`: one owner, damaged files and metadata, partitions, health
 * and scrub verdicts, and the notes mapping wants the user to read once. JSON fields follow
 * schema mediascan-report/1 and only add to it. The same for people: map_print.c.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "report.h"
#include "escape.h"
#include "fs.h"
#include "json_out.h"
#include "json_stream.h"
#include "map_report.h"

#define READ_FROM_RAW "raw device (not mounted)"

/* Return where an unmounted filesystem's answers were read (MAP_FSC_RAW), else NULL. */
static const char *read_from(const struct map_target *fs)
{
	return fs && (map_target_ops(fs)->caps & MAP_FSC_RAW) ? READ_FROM_RAW : NULL;
}

const char *report_owner_kind_name(const struct map_owner *o)
{
	switch (o->kind) {
	case MAP_OWN_FILE:
		return "file";
	case MAP_OWN_METADATA:
		return "metadata";
	case MAP_OWN_LOG:
		return "log";
	case MAP_OWN_FREE:
		return "free";
	case MAP_OWN_UNKNOWN:
		return "unknown";
	case MAP_OWN_DEVICE:
		return "device";
	}
	return "unknown";
}

/*
 * Write the array key (paths[0..n)) to o, valid UTF-8 always (report_json_add_paths); key_hex
 * is key with "_hex" after it.
 */
static void out_paths(struct report_json_out *o, const char *key, const char *key_hex,
		      const char *const *paths, unsigned n)
{
	json_object *hex = NULL;
	int bad = 0;

	/*
	 * JSON text is UTF-8, and json-c passes invalid bytes through (Python's json.load then
	 * refuses the whole report). A name that is valid UTF-8 is written as it is; one that is
	 * not is written with each invalid byte as \xNN (backslashes doubled), and the exact
	 * bytes of every name of the list go in KEY_hex[] (lowercase hex).
	 */
	report_json_out_open(o, key, 1);
	for (unsigned i = 0; i < n; i++) {
		if (report_utf8_valid(paths[i])) {
			report_json_out_str(o, NULL, paths[i]);
			continue;
		}
		size_t len = strlen(paths[i]) * 4 + 8;
		char *buf = malloc(len);

		report_json_out_str(o, NULL, buf ? report_utf8_repair(paths[i], buf, len) : "");
		free(buf);
		bad = 1;
	}
	report_json_out_close(o);
	if (!bad)
		return;
	hex = json_object_new_array();
	for (unsigned i = 0; i < n; i++) {
		size_t len = strlen(paths[i]);
		char *h = malloc(len * 2 + 1);

		for (size_t k = 0; h && k < len; k++)
			snprintf(h + 2 * k, 3, "%02x", (unsigned char)paths[i][k]);
		if (h)
			h[len * 2] = '\0';
		json_object_array_add(hex, json_object_new_string(h ? h : ""));
		free(h);
	}
	report_json_out_json_key_copied(o, key_hex, hex);
}

void report_json_add_paths(json_object *j, const char *key, const char *const *paths, unsigned n)
{
	struct report_json_out o;
	char key_hex[64];

	snprintf(key_hex, sizeof(key_hex), "%s_hex", key);
	report_json_out_tree(&o, j);
	out_paths(&o, key, key_hex, paths, n);
}

static void add_paths(struct report_json_out *j, const struct map_inode_paths *p)
{
	out_paths(j, "paths", "paths_hex", p ? (const char *const *)p->paths : NULL,
		  p ? p->nr_paths : 0);
}

static void names_json(struct report_json_out *j, const char *key, enum map_health_kind kind,
		       uint32_t bits)
{
	const char *names[32];
	unsigned n = map_health_names(kind, bits, names, 32);

	if (!n) {
		report_json_out_empty_array(j, key);
		return;
	}
	report_json_out_open(j, key, 1);
	for (unsigned i = 0; i < n; i++)
		report_json_out_str_shared(j, NULL, names[i]);
	report_json_out_close(j);
}

/* "scrub": [...] of n scrub results. */
static void scrub_json(struct report_json_out *j, const struct map_scrub_result *v, unsigned n)
{
	report_json_out_open(j, "scrub", 1);
	for (unsigned i = 0; i < n; i++) {
		const struct map_scrub_result *s = &v[i];

		report_json_out_open(j, NULL, 0);
		report_json_out_str(j, "object", map_scrub_type_name(s->type));
		if (s->ino)
			report_json_out_u64(j, "inode", s->ino);
		else
			report_json_out_i64(j, "ag", s->agno);
		report_json_out_str(j, "verdict", map_verdict_name(s->verdict));
		report_json_out_i64(j, "flags", s->oflags);
		if (s->err)
			report_json_out_str(j, "error", strerror(-s->err));
		report_json_out_close(j);
	}
	report_json_out_close(j);
}

/* "health": {"scope", "sick": [...], "checked": [...]} and "scrub": [...] of one owner. */
static void add_health_json(struct report_json_out *j, const struct map_owner *o)
{
	if (o->health != MAP_HEALTH_NONE) {
		report_json_out_open(j, "health", 0);
		report_json_out_str_shared(j, "scope", o->health == MAP_HEALTH_INODE ? "inode" :
					   o->health == MAP_HEALTH_AG ? "ag" : "filesystem");
		names_json(j, "sick", o->health, o->sick);
		names_json(j, "checked", o->health, o->checked);
		report_json_out_close(j);
	}
	if (o->nr_scrub)
		scrub_json(j, o->scrub, o->nr_scrub);
}

/* The fields of owner o (in the object open in j). */
static void owner_fields(struct report_json_out *j, const struct map_damage *d,
			 const struct map_target *t, const struct map_owner *o)
{
	const struct map_inode_paths *ip = NULL;
	const char *raw = o->kind == MAP_OWN_DEVICE ? NULL :
			  read_from(map_target_fs((struct map_target *)t, o->fs_idx));

	report_json_out_str_shared(j, "type", report_owner_kind_name(o));
	if (raw)
		report_json_out_str(j, "read_from", raw);
	report_json_out_u64(j, "device_offset", o->dev_offset);
	report_json_out_u64(j, "length", o->length);
	if (o->part) {
		report_json_out_i64(j, "partition", (int)o->part);
		if (o->kind != MAP_OWN_DEVICE || o->fs_offset != o->dev_offset)
			report_json_out_u64(j, "partition_offset", o->fs_offset);
	}
	if (o->kind == MAP_OWN_FILE || (o->flags & (MAP_OWNF_BMBT | MAP_OWNF_INODE)))
		ip = map_damage_paths_fs(d, o->fs_idx, o->inode);
	if (o->kind == MAP_OWN_FILE) {
		report_json_out_u64(j, "inode", o->inode);
		report_json_out_u64(j, "file_offset", o->file_offset);
		report_json_out_str_shared(j, "fork", o->flags & MAP_OWNF_ATTR_FORK ? "attr" :
					   "data");
		report_json_out_bool(j, "unwritten", !!(o->flags & MAP_OWNF_UNWRITTEN));
		report_json_out_bool(j, "shared", !!(o->flags & MAP_OWNF_SHARED));
		add_paths(j, ip);
	} else {
		report_json_out_str_shared(j, "metadata", o->meta_type ? o->meta_type :
					   "unknown");
		if (o->ag >= 0)
			report_json_out_i64(j, "ag", o->ag);
		if ((o->flags & MAP_OWNF_BMBT) || (o->inode && o->kind != MAP_OWN_UNKNOWN)) {
			report_json_out_u64(j, "inode", o->inode);
			if (o->flags & (MAP_OWNF_BMBT | MAP_OWNF_INODE))	/* its paths */
				add_paths(j, ip);
		}
		if (o->kind == MAP_OWN_LOG && o->inode)
			report_json_out_u64(j, "log_offset", o->file_offset);
	}
	if (o->gen || (ip && ip->gen))
		report_json_out_i64(j, "generation", ip && ip->gen ? ip->gen : o->gen);
	if (o->note)
		report_json_out_str(j, "note", o->note);
	if (o->lost[0])		/* the owner is itself a damaged object */
		report_json_out_str(j, "what_is_lost", o->lost);
	add_health_json(j, o);
}

json_object *report_owner_json(const struct map_damage *d, const struct map_target *t,
			    const struct map_owner *o)
{
	json_object *j = json_object_new_object();
	struct report_json_out out;

	report_json_out_tree(&out, j);
	owner_fields(&out, d, t, o);
	return j;
}

void report_owner_write(struct report_json_stream *s, const char *key,
			const struct map_damage *d, const struct map_target *t,
			const struct map_owner *o)
{
	struct report_json_out out;

	report_json_out_stream(&out, s);
	report_json_w_open(s, key, 0);
	owner_fields(&out, d, t, o);
	report_json_w_close(s);
}

json_object *report_damaged_file_json(const struct map_damage *d, const struct map_target *t,
				     size_t i)
{
	const struct map_damage_file *f = &d->files[i];
	json_object *jf = json_object_new_object(), *rg = json_object_new_array();
	struct report_json_out out;

	report_json_add(jf, "inode", report_json_new_u64(f->inode));
	report_json_out_tree(&out, jf);
	add_paths(&out, f->paths);
	if (f->paths && f->paths->is_dir)
		report_json_add(jf, "directory", report_json_bool(1));
	for (size_t k = 0; k < f->nr_ranges; k++) {
		json_object *o = json_object_new_object();

		report_json_add(o, "offset",
				       report_json_new_u64(f->ranges[k].offset));
		report_json_add(o, "length",
				       report_json_new_u64(f->ranges[k].length));
		report_json_add(o, "fork", json_object_new_string(
			f->ranges[k].attr_fork ? "attr" : "data"));
		report_json_add(o, "lost",
				       report_json_bool(f->ranges[k].lost));
		json_object_array_add(rg, o);
	}
	report_json_add(jf, "ranges", rg);
	report_json_add(jf, "lost", report_json_bool(f->lost));
	if (f->what_lost && f->what_lost[0])	/* its inode or block map is lost */
		report_json_add(jf, "what_is_lost",
				       json_object_new_string(f->what_lost));
	report_json_add(jf, "shared", report_json_bool(f->shared));
	if (f->part)
		report_json_add(jf, "partition", report_json_new_i64((int)f->part));
	if (f->fs_idx) {
		const struct map_target *fs = map_target_fs((struct map_target *)t, f->fs_idx);

		if (fs && !read_from(fs))
			report_json_add(jf, "mount_point",
					       json_object_new_string(fs->mount_point));
	}
	if (read_from(map_target_fs((struct map_target *)t, f->fs_idx)))
		report_json_add(jf, "read_from", json_object_new_string(
			READ_FROM_RAW));
	if (f->gen)
		report_json_add(jf, "generation", report_json_new_i64(f->gen));
	if (!f->paths || f->paths->nr_paths == 0) {
		int unlinked = f->paths && f->paths->unlinked;

		report_json_add(jf, "reached", report_json_bool(0));
		report_json_add(jf, "note", json_object_new_string(
			unlinked ? "no directory reaches it: unlinked but still open, or an "
				   "orphan awaiting cleanup" :
			d->unreadable_dirs ? "no path found: a damaged directory may hide it" :
				"no directory entry reaches it"));
	}
	if (f->first)
		add_health_json(&out, f->first);
	return jf;
}

/* The fields of d's damaged metadata i (in the object open in j). */
static void meta_fields(struct report_json_out *j, const struct map_damage *d,
			const struct map_target *t, size_t i)
{
	const struct map_damage_meta *m = &d->meta[i];

	report_json_out_str(j, "type", m->type);
	report_json_out_str(j, "device", t->devices[m->dev_idx].path);
	report_json_out_u64(j, "offset", m->offset);
	report_json_out_u64(j, "length", m->length);
	if (m->ag >= 0)
		report_json_out_i64(j, "ag", m->ag);
	if (m->inode)
		report_json_out_u64(j, "inode", m->inode);
	if (m->part) {
		report_json_out_i64(j, "partition", (int)m->part);
		report_json_out_u64(j, "partition_offset", m->fs_offset);
	}
	if (m->first)
		add_health_json(j, m->first);
}

json_object *report_damaged_meta_json(const struct map_damage *d, const struct map_target *t,
				     size_t i)
{
	json_object *jm = json_object_new_object();
	struct report_json_out out;

	report_json_out_tree(&out, jm);
	meta_fields(&out, d, t, i);
	return jm;
}

void report_damaged_meta_write(struct report_json_stream *s, const struct map_damage *d,
			       const struct map_target *t, size_t i)
{
	struct report_json_out out;

	report_json_out_stream(&out, s);
	report_json_w_begin(s);
	meta_fields(&out, d, t, i);
}

int report_damage_json(json_object *root, const struct map_damage *d, const struct map_target *t)
{
	json_object *files = json_object_new_array(), *meta = json_object_new_array();

	for (size_t i = 0; i < d->nr_files; i++)
		json_object_array_add(files, report_damaged_file_json(d, t, i));
	report_json_add(root, "damaged_files", files);
	for (size_t i = 0; i < d->nr_meta; i++)
		json_object_array_add(meta, report_damaged_meta_json(d, t, i));
	report_json_add(root, "damaged_metadata", meta);
	return 0;
}

int report_target_json(json_object *root, const struct map_target *t)
{
	if (read_from(t))
		report_json_add(root, "read_from", json_object_new_string(READ_FROM_RAW));
	else if (t->raw_err[0])
		report_json_add(root, "unreadable_ext4", json_object_new_string(t->raw_err));
	if (t->self_part)
		report_json_add(root, "partition", report_json_new_i64((int)t->self_part));
	if (!t->nr_parts)
		return 0;
	json_object *a = json_object_new_array();

	report_json_add(root, "partition_table", json_object_new_string(t->pt_type));
	for (unsigned i = 0; i < t->nr_parts; i++) {
		const struct map_part *p = &t->parts[i];
		json_object *jp = json_object_new_object();

		report_json_add(jp, "number", report_json_new_i64((int)p->number));
		report_json_add(jp, "start", report_json_new_u64(p->start));
		report_json_add(jp, "size", report_json_new_u64(p->size));
		if (p->devpath[0])
			report_json_add(jp, "device", json_object_new_string(p->devpath));
		if (p->type[0])
			report_json_add(jp, "type", json_object_new_string(p->type));
		if (p->name[0])
			report_json_add(jp, "name", json_object_new_string(p->name));
		if (p->uuid[0])
			report_json_add(jp, "uuid", json_object_new_string(p->uuid));
		if (p->fs_type[0])
			report_json_add(jp, "fs_type", json_object_new_string(p->fs_type));
		if (p->mount_point[0])
			report_json_add(jp, "mount_point",
					       json_object_new_string(p->mount_point));
		report_json_add(jp, "planned", json_object_new_string(
			p->fs && !read_from(p->fs) ? "through its filesystem" : "whole"));
		if (read_from(p->fs))
			report_json_add(jp, "read_from", json_object_new_string(
				READ_FROM_RAW));
		else if (p->raw_err[0])
			report_json_add(jp, "unreadable_ext4",
					       json_object_new_string(p->raw_err));
		json_object_array_add(a, jp);
	}
	report_json_add(root, "partitions", a);
	return 0;
}

int report_mapping_json(json_object *root, const struct map_damage *d)
{
	const char *notes[12];
	int n = map_damage_notes(d, notes, 12);

	if (d->scrub) {
		report_json_add(root, "scrub", json_object_new_string(
			d->scrub > 0 ? "available" : "unavailable"));
		if (d->scrub < 0) {
			report_json_add(root, "scrub_reason", json_object_new_string(
				map_scrub_why_name(map_scrub_why(d->scrub))));
			const char *en = strerrorname_np(-d->scrub);

			report_json_add(root, "scrub_error",
					       json_object_new_string(en ? en : "unknown"));
		}
	}
	if (d->fs_health_sick || d->fs_health_checked) {
		struct report_json_out out;

		report_json_out_tree(&out, root);
		report_json_out_open(&out, "fs_health", 0);
		names_json(&out, "sick", MAP_HEALTH_FS, d->fs_health_sick);
		names_json(&out, "checked", MAP_HEALTH_FS, d->fs_health_checked);
		report_json_out_close(&out);
	}
	if (d->paths_by_parents)
		report_json_add(root, "paths_from", json_object_new_string(
			"parent pointers"));
	if (n > 0) {
		json_object *a = json_object_new_array();

		for (int i = 0; i < n; i++)
			json_object_array_add(a, json_object_new_string(notes[i]));
		report_json_add(root, "notes", a);
	}
	if (d->nr_plan_notes) {		/* parts whose space map failed: read whole */
		json_object *a = json_object_new_array();

		for (size_t i = 0; i < d->nr_plan_notes; i++) {
			const struct map_plan_note *pn = &d->plan_notes[i];
			json_object *o = json_object_new_object();
			struct report_json_out out;

			report_json_add(o, "object", json_object_new_string(pn->object));
			report_json_add(o, "group", pn->group >= 0 ?
					       report_json_new_i64(pn->group) : NULL);
			report_json_add(o, "device", json_object_new_string(pn->device));
			report_json_add(o, "offset", report_json_new_u64(pn->offset));
			report_json_add(o, "length", report_json_new_u64(pn->length));
			report_json_add(o, "error", json_object_new_string(
				strerror(-pn->err)));
			report_json_add(o, "planned", json_object_new_string("read whole"));
			report_json_out_tree(&out, o);
			if (pn->health_known) {
				report_json_out_open(&out, "health", 0);
				names_json(&out, "sick", MAP_HEALTH_AG, pn->ag_sick);
				names_json(&out, "checked", MAP_HEALTH_AG, pn->ag_checked);
				report_json_out_close(&out);
			}
			if (d->nr_plan_scrub && d->nr_plan_scrub[i])
				scrub_json(&out, d->plan_scrub[i], d->nr_plan_scrub[i]);
			json_object_array_add(a, o);
		}
		report_json_add(root, "plan_notes", a);
		if (d->plan_notes_dropped)
			report_json_add(root, "plan_notes_dropped",
					       report_json_new_i64(d->plan_notes_dropped));
	}
	return 0;
}
