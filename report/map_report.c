/*
 * report/map_report.c - how mapping's answers are shown, shared by `scan` reports (report.c)
 * and `mediascan map`: one owner (JSON and human), damaged files and metadata, partitions,
 * health and scrub verdicts, and the notes mapping wants the user to read once.
 * JSON fields follow schema mediascan-report/1 and only add to it.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "report.h"
#include "escape.h"
#include "map_report.h"

static const char *owner_kind_name(const struct map_owner *o)
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
	json_object_object_add(j, key, a);
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
	json_object *a = json_object_new_array();

	for (unsigned i = 0; i < n; i++)
		json_object_array_add(a, json_object_new_string(names[i]));
	return a;
}

/* "scrub": [...] of n scrub results. */
static json_object *scrub_json(const struct map_scrub_result *v, unsigned n)
{
	json_object *a = json_object_new_array();

	for (unsigned i = 0; i < n; i++) {
		const struct map_scrub_result *s = &v[i];
		json_object *js = json_object_new_object();

		json_object_object_add(js, "object",
				       json_object_new_string(map_scrub_type_name(s->type)));
		if (s->ino)
			json_object_object_add(js, "inode", json_object_new_uint64(s->ino));
		else
			json_object_object_add(js, "ag", json_object_new_int64(s->agno));
		json_object_object_add(js, "verdict",
				       json_object_new_string(map_verdict_name(s->verdict)));
		json_object_object_add(js, "flags", json_object_new_int64(s->oflags));
		if (s->err)
			json_object_object_add(js, "error",
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

		json_object_object_add(h, "scope", json_object_new_string(
			o->health == MAP_HEALTH_INODE ? "inode" :
			o->health == MAP_HEALTH_AG ? "ag" : "filesystem"));
		json_object_object_add(h, "sick", names_json(o->health, o->sick));
		json_object_object_add(h, "checked", names_json(o->health, o->checked));
		json_object_object_add(j, "health", h);
	}
	if (o->nr_scrub)
		json_object_object_add(j, "scrub", scrub_json(o->scrub, o->nr_scrub));
}

json_object *report_owner_json(const struct map_damage *d, const struct map_target *t,
			    const struct map_owner *o)
{
	json_object *j = json_object_new_object();
	const struct map_inode_paths *ip = NULL;

	(void)t;
	json_object_object_add(j, "type", json_object_new_string(owner_kind_name(o)));
	json_object_object_add(j, "device_offset", json_object_new_uint64(o->dev_offset));
	json_object_object_add(j, "length", json_object_new_uint64(o->length));
	if (o->part) {
		json_object_object_add(j, "partition", json_object_new_int((int)o->part));
		if (o->kind != MAP_OWN_DEVICE || o->fs_offset != o->dev_offset)
			json_object_object_add(j, "partition_offset",
					       json_object_new_uint64(o->fs_offset));
	}
	if (o->kind == MAP_OWN_FILE || (o->flags & (MAP_OWNF_BMBT | MAP_OWNF_INODE)))
		ip = map_damage_paths_fs(d, o->fs_idx, o->inode);
	if (o->kind == MAP_OWN_FILE) {
		json_object_object_add(j, "inode", json_object_new_uint64(o->inode));
		json_object_object_add(j, "file_offset", json_object_new_uint64(o->file_offset));
		json_object_object_add(j, "fork", json_object_new_string(
			o->flags & MAP_OWNF_ATTR_FORK ? "attr" : "data"));
		json_object_object_add(j, "unwritten",
				       json_object_new_boolean(!!(o->flags & MAP_OWNF_UNWRITTEN)));
		json_object_object_add(j, "shared",
				       json_object_new_boolean(!!(o->flags & MAP_OWNF_SHARED)));
		add_paths(j, ip);
	} else {
		json_object_object_add(j, "metadata", json_object_new_string(
			o->meta_type ? o->meta_type : "unknown"));
		if (o->ag >= 0)
			json_object_object_add(j, "ag", json_object_new_int64(o->ag));
		if ((o->flags & MAP_OWNF_BMBT) || (o->inode && o->kind != MAP_OWN_UNKNOWN)) {
			json_object_object_add(j, "inode", json_object_new_uint64(o->inode));
			if (o->flags & (MAP_OWNF_BMBT | MAP_OWNF_INODE))	/* its paths */
				add_paths(j, ip);
		}
		if (o->kind == MAP_OWN_LOG && o->inode)
			json_object_object_add(j, "log_offset",
					       json_object_new_uint64(o->file_offset));
	}
	if (o->gen || (ip && ip->gen))
		json_object_object_add(j, "generation", json_object_new_int64(
			ip && ip->gen ? ip->gen : o->gen));
	if (o->note)
		json_object_object_add(j, "note", json_object_new_string(o->note));
	if (o->lost[0])		/* the owner is itself a damaged object */
		json_object_object_add(j, "what_is_lost", json_object_new_string(o->lost));
	add_health_json(j, o);
	return j;
}

int report_damage_json(json_object *root, const struct map_damage *d, const struct map_target *t)
{
	json_object *files = json_object_new_array(), *meta = json_object_new_array();

	for (size_t i = 0; i < d->nr_files; i++) {
		const struct map_damage_file *f = &d->files[i];
		json_object *jf = json_object_new_object(), *rg = json_object_new_array();

		json_object_object_add(jf, "inode", json_object_new_uint64(f->inode));
		add_paths(jf, f->paths);
		if (f->paths && f->paths->is_dir)
			json_object_object_add(jf, "directory", json_object_new_boolean(1));
		for (size_t k = 0; k < f->nr_ranges; k++) {
			json_object *o = json_object_new_object();

			json_object_object_add(o, "offset",
					       json_object_new_uint64(f->ranges[k].offset));
			json_object_object_add(o, "length",
					       json_object_new_uint64(f->ranges[k].length));
			json_object_object_add(o, "fork", json_object_new_string(
				f->ranges[k].attr_fork ? "attr" : "data"));
			json_object_object_add(o, "lost",
					       json_object_new_boolean(f->ranges[k].lost));
			json_object_array_add(rg, o);
		}
		json_object_object_add(jf, "ranges", rg);
		json_object_object_add(jf, "lost", json_object_new_boolean(f->lost));
		if (f->what_lost && f->what_lost[0])	/* its inode or block map is lost */
			json_object_object_add(jf, "what_is_lost",
					       json_object_new_string(f->what_lost));
		json_object_object_add(jf, "shared", json_object_new_boolean(f->shared));
		if (f->part)
			json_object_object_add(jf, "partition", json_object_new_int((int)f->part));
		if (f->fs_idx) {
			const struct map_target *fs = map_target_fs((struct map_target *)t,
								    f->fs_idx);

			if (fs)
				json_object_object_add(jf, "mount_point",
						       json_object_new_string(fs->mount_point));
		}
		if (f->gen)
			json_object_object_add(jf, "generation", json_object_new_int64(f->gen));
		if (!f->paths || f->paths->nr_paths == 0) {
			int unlinked = f->paths && f->paths->unlinked;

			json_object_object_add(jf, "reached", json_object_new_boolean(0));
			json_object_object_add(jf, "note", json_object_new_string(
				unlinked ? "no directory reaches it: unlinked but still open, or an "
					   "orphan awaiting cleanup" :
				d->unreadable_dirs ? "no path found: a damaged directory may hide it" :
					"no directory entry reaches it"));
		}
		if (f->first)
			add_health_json(jf, f->first);
		json_object_array_add(files, jf);
	}
	json_object_object_add(root, "damaged_files", files);
	for (size_t i = 0; i < d->nr_meta; i++) {
		const struct map_damage_meta *m = &d->meta[i];
		json_object *jm = json_object_new_object();

		json_object_object_add(jm, "type", json_object_new_string(m->type));
		json_object_object_add(jm, "device",
				       json_object_new_string(t->devices[m->dev_idx].path));
		json_object_object_add(jm, "offset", json_object_new_uint64(m->offset));
		json_object_object_add(jm, "length", json_object_new_uint64(m->length));
		if (m->ag >= 0)
			json_object_object_add(jm, "ag", json_object_new_int64(m->ag));
		if (m->inode)
			json_object_object_add(jm, "inode", json_object_new_uint64(m->inode));
		if (m->part) {
			json_object_object_add(jm, "partition", json_object_new_int((int)m->part));
			json_object_object_add(jm, "partition_offset",
					       json_object_new_uint64(m->fs_offset));
		}
		if (m->first)
			add_health_json(jm, m->first);
		json_object_array_add(meta, jm);
	}
	json_object_object_add(root, "damaged_metadata", meta);
	return 0;
}

int report_target_json(json_object *root, const struct map_target *t)
{
	if (t->self_part)
		json_object_object_add(root, "partition", json_object_new_int((int)t->self_part));
	if (!t->nr_parts)
		return 0;
	json_object *a = json_object_new_array();

	json_object_object_add(root, "partition_table", json_object_new_string(t->pt_type));
	for (unsigned i = 0; i < t->nr_parts; i++) {
		const struct map_part *p = &t->parts[i];
		json_object *jp = json_object_new_object();

		json_object_object_add(jp, "number", json_object_new_int((int)p->number));
		json_object_object_add(jp, "start", json_object_new_uint64(p->start));
		json_object_object_add(jp, "size", json_object_new_uint64(p->size));
		if (p->devpath[0])
			json_object_object_add(jp, "device", json_object_new_string(p->devpath));
		if (p->type[0])
			json_object_object_add(jp, "type", json_object_new_string(p->type));
		if (p->name[0])
			json_object_object_add(jp, "name", json_object_new_string(p->name));
		if (p->uuid[0])
			json_object_object_add(jp, "uuid", json_object_new_string(p->uuid));
		if (p->fs_type[0])
			json_object_object_add(jp, "fs_type", json_object_new_string(p->fs_type));
		if (p->mount_point[0])
			json_object_object_add(jp, "mount_point",
					       json_object_new_string(p->mount_point));
		json_object_object_add(jp, "planned", json_object_new_string(
			p->fs ? "through its filesystem" : "whole"));
		json_object_array_add(a, jp);
	}
	json_object_object_add(root, "partitions", a);
	return 0;
}

int report_mapping_json(json_object *root, const struct map_damage *d)
{
	const char *notes[8];
	int n = map_damage_notes(d, notes, 8);

	if (d->scrub) {
		json_object_object_add(root, "scrub", json_object_new_string(
			d->scrub > 0 ? "available" : "unavailable"));
		if (d->scrub < 0) {
			json_object_object_add(root, "scrub_reason", json_object_new_string(
				map_scrub_why_name(map_scrub_why(d->scrub))));
			const char *en = strerrorname_np(-d->scrub);

			json_object_object_add(root, "scrub_error",
					       json_object_new_string(en ? en : "unknown"));
		}
	}
	if (d->fs_health_sick || d->fs_health_checked) {
		json_object *h = json_object_new_object();

		json_object_object_add(h, "sick", names_json(MAP_HEALTH_FS, d->fs_health_sick));
		json_object_object_add(h, "checked",
				       names_json(MAP_HEALTH_FS, d->fs_health_checked));
		json_object_object_add(root, "fs_health", h);
	}
	if (d->paths_by_parents)
		json_object_object_add(root, "paths_from", json_object_new_string(
			"parent pointers"));
	if (n > 0) {
		json_object *a = json_object_new_array();

		for (int i = 0; i < n; i++)
			json_object_array_add(a, json_object_new_string(notes[i]));
		json_object_object_add(root, "notes", a);
	}
	if (d->nr_plan_notes) {		/* parts whose space map failed: read whole */
		json_object *a = json_object_new_array();

		for (size_t i = 0; i < d->nr_plan_notes; i++) {
			const struct map_plan_note *pn = &d->plan_notes[i];
			json_object *o = json_object_new_object();

			json_object_object_add(o, "object", json_object_new_string(pn->object));
			json_object_object_add(o, "group", pn->group >= 0 ?
					       json_object_new_int64(pn->group) : NULL);
			json_object_object_add(o, "device", json_object_new_string(pn->device));
			json_object_object_add(o, "offset", json_object_new_uint64(pn->offset));
			json_object_object_add(o, "length", json_object_new_uint64(pn->length));
			json_object_object_add(o, "error", json_object_new_string(
				strerror(-pn->err)));
			json_object_object_add(o, "planned", json_object_new_string("read whole"));
			if (pn->health_known) {
				json_object *h = json_object_new_object();

				json_object_object_add(h, "sick", names_json(MAP_HEALTH_AG,
									     pn->ag_sick));
				json_object_object_add(h, "checked", names_json(MAP_HEALTH_AG,
									pn->ag_checked));
				json_object_object_add(o, "health", h);
			}
			if (d->nr_plan_scrub && d->nr_plan_scrub[i])
				json_object_object_add(o, "scrub", scrub_json(d->plan_scrub[i],
									      d->nr_plan_scrub[i]));
			json_object_array_add(a, o);
		}
		json_object_object_add(root, "plan_notes", a);
		if (d->plan_notes_dropped)
			json_object_object_add(root, "plan_notes_dropped",
					       json_object_new_int64(d->plan_notes_dropped));
	}
	return 0;
}

/* Health and scrub lines under an owner, for people: only what is news. */
static void print_health(FILE *f, const struct map_owner *o, const char *indent)
{
	const char *names[32];
	unsigned n;

	if (o->health != MAP_HEALTH_NONE && o->sick) {
		n = map_health_names(o->health, o->sick, names, 32);
		fprintf(f, "%skernel already marks %s sick:", indent,
			o->health == MAP_HEALTH_INODE ? "this inode" : "this AG");
		for (unsigned i = 0; i < n; i++)
			fprintf(f, " %s", names[i]);
		fputc('\n', f);
	}
	if (o->nr_scrub) {
		fprintf(f, "%sscrub:", indent);
		for (unsigned i = 0; i < o->nr_scrub; i++)
			fprintf(f, "%s %s %s", i ? "," : "", map_scrub_type_name(o->scrub[i].type),
				map_verdict_name(o->scrub[i].verdict));
		fputc('\n', f);
	}
}

void report_print_owner(FILE *f, const struct map_damage *d, const struct map_target *t,
		     const struct map_owner *o)
{
	char part[48] = "", esc[4096];

	if (o->part && o->kind != MAP_OWN_DEVICE)
		snprintf(part, sizeof(part), ", partition %u", o->part);
	switch (o->kind) {
	case MAP_OWN_FILE: {
		const struct map_inode_paths *ip = map_damage_paths_fs(d, o->fs_idx, o->inode);

		/* every hard link, the first one leading */
		fprintf(f, "      %s",
			ip && ip->nr_paths ? report_escape(ip->paths[0], esc, sizeof(esc)) : "file");
		for (unsigned i = 1; ip && i < ip->nr_paths; i++)
			fprintf(f, "%s%s", i == 1 ? " (also " : ", ",
				report_escape(ip->paths[i], esc, sizeof(esc)));
		fprintf(f, "%s (inode %" PRIu64 "%s), %s offset %" PRIu64 " length %" PRIu64
			"%s%s\n", ip && ip->nr_paths > 1 ? ")" : "",
			o->inode, part, o->flags & MAP_OWNF_ATTR_FORK ? "xattr" : "file",
			o->file_offset, o->length,
			o->flags & MAP_OWNF_UNWRITTEN ? " (unwritten: nothing lost)" : "",
			o->flags & MAP_OWNF_SHARED ? " (shared)" : "");
		break;
	}
	case MAP_OWN_UNKNOWN:
		fprintf(f, "      %s%s\n", o->note ? o->note : "allocated, owner not recorded", part);
		break;
	case MAP_OWN_DEVICE:
		if (o->meta_type && strcmp(o->meta_type, "partition-gap") == 0)
			fprintf(f, "      partition gap (in no partition: nothing stored there)\n");
		else if (o->meta_type && strcmp(o->meta_type, "outside-filesystem") == 0)
			fprintf(f, "      outside the filesystem (past its end: the device is larger; "
				"nothing of the filesystem is stored there)%s\n", part);
		else if (o->meta_type && strcmp(o->meta_type, "boot-block") == 0)
			fprintf(f, "      the boot block (ext4's first 1 KiB, before the superblock: "
				"not used by the filesystem)%s\n", part);
		else if (o->part)
			fprintf(f, "      partition %u (no mounted XFS/ext4: contents unknown)\n",
				o->part);
		else if (t && t->foreign_fs[0])
			fprintf(f, "      device holding %s mounted at %s (mediascan cannot map "
				"%s: contents unknown to it)\n", t->foreign_fs,
				report_escape(t->foreign_mount, esc, sizeof(esc)), t->foreign_fs);
		else
			fprintf(f, "      device (no filesystem mounted: contents unknown)\n");
		break;
	default:
		fprintf(f, "      %s %s", owner_kind_name(o), o->meta_type ? o->meta_type : "");
		if (o->ag >= 0)
			fprintf(f, " (AG %" PRId64 ")", o->ag);
		if (o->flags & MAP_OWNF_BMBT)
			fprintf(f, " of inode %" PRIu64, o->inode);
		if (o->flags & MAP_OWNF_INODE) {	/* the inode itself */
			const struct map_inode_paths *ip = map_damage_paths_fs(d, o->fs_idx,
									      o->inode);

			fprintf(f, " %" PRIu64 " (%s)", o->inode, ip && ip->nr_paths ?
				report_escape(ip->paths[0], esc, sizeof(esc)) : "no path");
		}
		else if (o->kind == MAP_OWN_LOG && o->inode)
			fprintf(f, " (inode %" PRIu64 ", offset %" PRIu64 ")", o->inode,
				o->file_offset);
		fprintf(f, "%s\n", part);
	}
	if (o->lost[0])		/* what is lost with a damaged owner */
		fprintf(f, "        %s\n", o->lost);
	print_health(f, o, "        ");
}

/* Print the paths of an inode, escaped, or why it has none. */
static void print_paths(FILE *f, const struct map_damage_file *df, unsigned unreadable)
{
	const struct map_inode_paths *p = df->paths;
	char esc[8192];

	if (!p || p->nr_paths == 0) {
		fprintf(f, "  (inode %" PRIu64, df->inode);
		if (df->gen)
			fprintf(f, " generation %" PRIu32, df->gen);
		fprintf(f, ": no path found; %s)\n",
			p && p->unlinked ? "unlinked but still open, or an orphan awaiting cleanup" :
			unreadable ? "a damaged directory may hide it" :
				     "no directory entry reaches it");
		return;
	}
	for (unsigned i = 0; i < p->nr_paths; i++)
		fprintf(f, "  %s%s\n", report_escape(p->paths[i], esc, sizeof(esc)),
			p->is_dir ? "/  (directory)" : "");
}

/* The tool that assesses damaged metadata of a filesystem type ("" when none is known). */
static const char *meta_tool(const char *fs_type)
{
	if (strcmp(fs_type, "xfs") == 0)
		return "xfs_repair -n";
	if (strcmp(fs_type, "ext4") == 0 || strcmp(fs_type, "ext3") == 0 ||
	    strcmp(fs_type, "ext2") == 0)
		return "e2fsck -fn";
	return "";
}

/*
 * The tools for the metadata of t: its filesystem's, or on a partitioned disk those of the
 * partitions that hold damaged metadata, and sgdisk for the table itself.
 */
static void meta_advice(const struct map_damage *d, const struct map_target *t, char *buf,
			size_t len)
{
	const char *tool = meta_tool(t->fs_type);
	size_t n = 0;
	int xfs = 0, ext4 = 0, table = 0;

	if (tool[0]) {
		snprintf(buf, len, "%s", tool);
		return;
	}
	for (size_t i = 0; i < d->nr_meta; i++) {
		const struct map_damage_meta *m = &d->meta[i];
		const char *ft = "";

		for (unsigned k = 0; m->part && k < t->nr_parts; k++)
			if (t->parts[k].number == m->part)
				ft = t->parts[k].fs_type;
		if (strcmp(meta_tool(ft), "xfs_repair -n") == 0)
			xfs = 1;
		else if (meta_tool(ft)[0])
			ext4 = 1;
		else
			table = 1;
	}
	buf[0] = 0;
	if (xfs)
		n += (size_t)snprintf(buf + n, len - n, "xfs_repair -n (XFS)");
	if (ext4 && n < len)
		n += (size_t)snprintf(buf + n, len - n, "%se2fsck -fn (ext4)", n ? ", " : "");
	if (table && n < len)
		snprintf(buf + n, len - n, "%ssgdisk -v (partition table)", n ? ", " : "");
}

void report_print_damage(FILE *f, const struct map_damage *d, const struct map_target *t)
{
	report_print_owners(f, d, t, 0);
}

void report_print_owners(FILE *f, const struct map_damage *d, const struct map_target *t,
		      int lookup)
{
	char advice[128];

	if (d->nr_files) {
		if (lookup)
			fprintf(f, "\nOwners: files (%zu):\n", d->nr_files);
		else
			fprintf(f, "\nDamaged files (%zu) - restore these from backup:\n",
				d->nr_files);
		for (size_t i = 0; i < d->nr_files; i++) {
			const struct map_damage_file *df = &d->files[i];

			print_paths(f, df, d->unreadable_dirs);
			if (df->what_lost && df->what_lost[0])
				fprintf(f, "      %s\n", df->what_lost);
			for (size_t k = 0; k < df->nr_ranges; k++)
				fprintf(f, "      %s offset %" PRIu64 ", length %" PRIu64 "%s\n",
					df->ranges[k].attr_fork ? "xattr" : "bytes at",
					df->ranges[k].offset, df->ranges[k].length,
					df->ranges[k].lost ? "" : "  (unwritten: nothing lost)");
			if (df->first)
				print_health(f, df->first, "      ");
		}
	}
	if (d->nr_meta) {
		meta_advice(d, t, advice, sizeof(advice));
		if (lookup)
			fprintf(f, "\nOwners: metadata (%zu):\n", d->nr_meta);
		else
			fprintf(f, "\nDamaged metadata (%zu) - assess with %s:\n", d->nr_meta,
				advice);
		for (size_t i = 0; i < d->nr_meta; i++) {
			const struct map_damage_meta *m = &d->meta[i];

			fprintf(f, "  %-12s", m->type);
			if (m->ag >= 0)
				fprintf(f, " AG %-3" PRId64, m->ag);
			fprintf(f, "  %s offset %" PRIu64 " length %" PRIu64,
				t->devices[m->dev_idx].path, m->offset, m->length);
			if (m->part)
				fprintf(f, "  (partition %u offset %" PRIu64 ")", m->part,
					m->fs_offset);
			if (m->inode)
				fprintf(f, "  (%s inode %" PRIu64 ")",
					m->first && (m->first->flags & MAP_OWNF_BMBT) ?
					"block map of" : "", m->inode);
			fputc('\n', f);
			if (m->first)
				print_health(f, m->first, "      ");
		}
	}
}

void report_print_notes(FILE *f, const struct map_damage *d)
{
	const char *notes[8];
	int n = map_damage_notes(d, notes, 8);

	for (int i = 0; i < n; i++)
		fprintf(f, "\nnote: %s\n", notes[i]);
	if (d->nr_plan_notes)		/* parts whose space map failed */
		fprintf(f, "\nThe kernel could not list the space map of %zu part%s: read whole "
			"(check the filesystem: xfs_repair -n, e2fsck -fn):\n", d->nr_plan_notes,
			d->nr_plan_notes == 1 ? "" : "s");
	for (size_t i = 0; i < d->nr_plan_notes; i++) {
		const struct map_plan_note *pn = &d->plan_notes[i];

		fprintf(f, "  %s (%s offset %" PRIu64 " length %" PRIu64 ") read whole: "
			"GETFSMAP failed: %s\n", pn->object, pn->device, pn->offset, pn->length,
			strerror(-pn->err));
		if (pn->health_known && pn->ag_sick) {
			const char *names[32];
			unsigned k = map_health_names(MAP_HEALTH_AG, pn->ag_sick, names, 32);

			fprintf(f, "      the kernel marks it sick:");
			for (unsigned m = 0; m < k; m++)
				fprintf(f, " %s", names[m]);
			fputc('\n', f);
		}
		for (unsigned k = 0; d->nr_plan_scrub && k < d->nr_plan_scrub[i]; k++) {
			const struct map_scrub_result *sr = &d->plan_scrub[i][k];

			if (sr->verdict != MAP_VERDICT_CLEAN)
				fprintf(f, "      online scrub: %s %s\n",
					map_scrub_type_name(sr->type), map_verdict_name(sr->verdict));
		}
	}
	if (d->plan_notes_dropped)
		fprintf(f, "  ... and %u more\n", d->plan_notes_dropped);
}
