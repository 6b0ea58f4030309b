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

void report_json_add_paths(json_object *j, const char *key, const char *const *paths, unsigned n)
{
	json_object *a = json_object_new_array(), *hex = NULL;
	char key_hex[64];

	/*
	 * JSON text is UTF-8, and json-c passes invalid bytes through (Python's json.load then
	 * refuses the whole report). A name that is valid UTF-8 is written as it is; one that is
	 * not is written with each invalid byte as \xNN (backslashes doubled), and the exact
	 * bytes of every name of the list go in KEY_hex[] (lowercase hex).
	 */
	for (unsigned i = 0; i < n; i++) {
		if (report_utf8_valid(paths[i])) {
			json_object_array_add(a, json_object_new_string(paths[i]));
			continue;
		}
		size_t len = strlen(paths[i]) * 4 + 8;
		char *buf = malloc(len);

		json_object_array_add(a, json_object_new_string(
			buf ? report_utf8_repair(paths[i], buf, len) : ""));
		free(buf);
		hex = json_object_new_array();
	}
	if (hex) {
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
	}
	report_json_add(j, key, a);
	if (hex) {
		snprintf(key_hex, sizeof(key_hex), "%s_hex", key);
		json_object_object_add(j, key_hex, hex);
	}
}

static void add_paths(json_object *j, const struct map_inode_paths *p)
{
	report_json_add_paths(j, "paths", p ? (const char *const *)p->paths : NULL,
			   p ? p->nr_paths : 0);
}

static json_object *names_json(enum map_health_kind kind, uint32_t bits)
{
	const char *names[32];
	unsigned n = map_health_names(kind, bits, names, 32);
	json_object *a;

	if (!n)
		return report_json_empty_array();
	a = json_object_new_array();
	for (unsigned i = 0; i < n; i++)
		json_object_array_add(a, report_json_string(names[i]));
	return a;
}

/* "scrub": [...] of n scrub results. */
static json_object *scrub_json(const struct map_scrub_result *v, unsigned n)
{
	json_object *a = json_object_new_array();

	for (unsigned i = 0; i < n; i++) {
		const struct map_scrub_result *s = &v[i];
		json_object *js = json_object_new_object();

		report_json_add(js, "object",
				       json_object_new_string(map_scrub_type_name(s->type)));
		if (s->ino)
			report_json_add(js, "inode", report_json_new_u64(s->ino));
		else
			report_json_add(js, "ag", report_json_new_i64(s->agno));
		report_json_add(js, "verdict",
				       json_object_new_string(map_verdict_name(s->verdict)));
		report_json_add(js, "flags", report_json_new_i64(s->oflags));
		if (s->err)
			report_json_add(js, "error",
					       json_object_new_string(strerror(-s->err)));
		json_object_array_add(a, js);
	}
	return a;
}

/* "health": {"scope", "sick": [...], "checked": [...]} and "scrub": [...] of one owner. */
static void add_health_json(json_object *j, const struct map_owner *o)
{
	if (o->health != MAP_HEALTH_NONE) {
		json_object *h = json_object_new_object();

		report_json_add(h, "scope", report_json_string(
			o->health == MAP_HEALTH_INODE ? "inode" :
			o->health == MAP_HEALTH_AG ? "ag" : "filesystem"));
		report_json_add(h, "sick", names_json(o->health, o->sick));
		report_json_add(h, "checked", names_json(o->health, o->checked));
		report_json_add(j, "health", h);
	}
	if (o->nr_scrub)
		report_json_add(j, "scrub", scrub_json(o->scrub, o->nr_scrub));
}

json_object *report_owner_json(const struct map_damage *d, const struct map_target *t,
			    const struct map_owner *o)
{
	json_object *j = json_object_new_object();
	const struct map_inode_paths *ip = NULL;
	const char *raw = o->kind == MAP_OWN_DEVICE ? NULL :
			  read_from(map_target_fs((struct map_target *)t, o->fs_idx));

	report_json_add(j, "type", report_json_string(report_owner_kind_name(o)));
	if (raw)
		report_json_add(j, "read_from", json_object_new_string(raw));
	report_json_add(j, "device_offset", report_json_new_u64(o->dev_offset));
	report_json_add(j, "length", report_json_new_u64(o->length));
	if (o->part) {
		report_json_add(j, "partition", report_json_new_i64((int)o->part));
		if (o->kind != MAP_OWN_DEVICE || o->fs_offset != o->dev_offset)
			report_json_add(j, "partition_offset",
					       report_json_new_u64(o->fs_offset));
	}
	if (o->kind == MAP_OWN_FILE || (o->flags & (MAP_OWNF_BMBT | MAP_OWNF_INODE)))
		ip = map_damage_paths_fs(d, o->fs_idx, o->inode);
	if (o->kind == MAP_OWN_FILE) {
		report_json_add(j, "inode", report_json_new_u64(o->inode));
		report_json_add(j, "file_offset", report_json_new_u64(o->file_offset));
		report_json_add(j, "fork", report_json_string(
			o->flags & MAP_OWNF_ATTR_FORK ? "attr" : "data"));
		report_json_add(j, "unwritten",
				       report_json_bool(!!(o->flags & MAP_OWNF_UNWRITTEN)));
		report_json_add(j, "shared",
				       report_json_bool(!!(o->flags & MAP_OWNF_SHARED)));
		add_paths(j, ip);
	} else {
		report_json_add(j, "metadata", report_json_string(
			o->meta_type ? o->meta_type : "unknown"));
		if (o->ag >= 0)
			report_json_add(j, "ag", report_json_new_i64(o->ag));
		if ((o->flags & MAP_OWNF_BMBT) || (o->inode && o->kind != MAP_OWN_UNKNOWN)) {
			report_json_add(j, "inode", report_json_new_u64(o->inode));
			if (o->flags & (MAP_OWNF_BMBT | MAP_OWNF_INODE))	/* its paths */
				add_paths(j, ip);
		}
		if (o->kind == MAP_OWN_LOG && o->inode)
			report_json_add(j, "log_offset",
					       report_json_new_u64(o->file_offset));
	}
	if (o->gen || (ip && ip->gen))
		report_json_add(j, "generation", report_json_new_i64(
			ip && ip->gen ? ip->gen : o->gen));
	if (o->note)
		report_json_add(j, "note", json_object_new_string(o->note));
	if (o->lost[0])		/* the owner is itself a damaged object */
		report_json_add(j, "what_is_lost", json_object_new_string(o->lost));
	add_health_json(j, o);
	return j;
}

json_object *report_damaged_file_json(const struct map_damage *d, const struct map_target *t,
				     size_t i)
{
	const struct map_damage_file *f = &d->files[i];
	json_object *jf = json_object_new_object(), *rg = json_object_new_array();

	report_json_add(jf, "inode", report_json_new_u64(f->inode));
	add_paths(jf, f->paths);
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
		add_health_json(jf, f->first);
	return jf;
}

json_object *report_damaged_meta_json(const struct map_damage *d, const struct map_target *t,
				     size_t i)
{
	const struct map_damage_meta *m = &d->meta[i];
	json_object *jm = json_object_new_object();

	report_json_add(jm, "type", json_object_new_string(m->type));
	report_json_add(jm, "device",
			       json_object_new_string(t->devices[m->dev_idx].path));
	report_json_add(jm, "offset", report_json_new_u64(m->offset));
	report_json_add(jm, "length", report_json_new_u64(m->length));
	if (m->ag >= 0)
		report_json_add(jm, "ag", report_json_new_i64(m->ag));
	if (m->inode)
		report_json_add(jm, "inode", report_json_new_u64(m->inode));
	if (m->part) {
		report_json_add(jm, "partition", report_json_new_i64((int)m->part));
		report_json_add(jm, "partition_offset",
				       report_json_new_u64(m->fs_offset));
	}
	if (m->first)
		add_health_json(jm, m->first);
	return jm;
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
		json_object *h = json_object_new_object();

		report_json_add(h, "sick", names_json(MAP_HEALTH_FS, d->fs_health_sick));
		report_json_add(h, "checked",
				       names_json(MAP_HEALTH_FS, d->fs_health_checked));
		report_json_add(root, "fs_health", h);
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

			report_json_add(o, "object", json_object_new_string(pn->object));
			report_json_add(o, "group", pn->group >= 0 ?
					       report_json_new_i64(pn->group) : NULL);
			report_json_add(o, "device", json_object_new_string(pn->device));
			report_json_add(o, "offset", report_json_new_u64(pn->offset));
			report_json_add(o, "length", report_json_new_u64(pn->length));
			report_json_add(o, "error", json_object_new_string(
				strerror(-pn->err)));
			report_json_add(o, "planned", json_object_new_string("read whole"));
			if (pn->health_known) {
				json_object *h = json_object_new_object();

				report_json_add(h, "sick", names_json(MAP_HEALTH_AG,
									     pn->ag_sick));
				report_json_add(h, "checked", names_json(MAP_HEALTH_AG,
									pn->ag_checked));
				report_json_add(o, "health", h);
			}
			if (d->nr_plan_scrub && d->nr_plan_scrub[i])
				report_json_add(o, "scrub", scrub_json(d->plan_scrub[i],
									      d->nr_plan_scrub[i]));
			json_object_array_add(a, o);
		}
		report_json_add(root, "plan_notes", a);
		if (d->plan_notes_dropped)
			report_json_add(root, "plan_notes_dropped",
					       report_json_new_i64(d->plan_notes_dropped));
	}
	return 0;
}
