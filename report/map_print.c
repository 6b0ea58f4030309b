/*
 * report/map_print.c - how mapping's answers are shown to people, shared by `scan` reports
 * (report.c) and `mediascan map`: one owner with its health and scrub verdicts, damaged files
 * (every path) and metadata (with the tool that repairs it), and the notes mapping wants the
 * user to read once. The same in JSON: map_report.c.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "escape.h"
#include "fs.h"
#include "map_report.h"
#include "units.h"
void report_put_u64(FILE *f, uint64_t v)
{
	char buf[REPORT_DIGITS], *p = report_digits(buf + sizeof(buf), v, 0);

	fwrite(p, 1, (size_t)(buf + sizeof(buf) - p), f);
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

/* Why the ext4 on partition number nr cannot be read unmounted, "" when none is there. */
static const char *part_raw_err(const struct map_target *t, unsigned nr)
{
	for (unsigned k = 0; t && k < t->nr_parts; k++)
		if (t->parts[k].number == nr)
			return t->parts[k].raw_err;
	return "";
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
			ip && ip->nr_paths ? report_escape(ip->paths[0], esc, sizeof(esc))
					   : "file");
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
			fprintf(f, "      partition %u (no mounted XFS/ext4%s%s: contents unknown)\n",
				o->part, part_raw_err(t, o->part)[0] ? "; " : "",
				report_escape(part_raw_err(t, o->part), esc, sizeof(esc)));
		else if (t && t->foreign_fs[0])
			fprintf(f, "      device holding %s mounted at %s (mediascan cannot map "
				"%s: contents unknown to it)\n", t->foreign_fs,
				report_escape(t->foreign_mount, esc, sizeof(esc)), t->foreign_fs);
		else
			fprintf(f, "      device (no filesystem mounted%s%s: contents unknown)\n",
				t && t->raw_err[0] ? "; " : "",
				t ? report_escape(t->raw_err, esc, sizeof(esc)) : "");
		break;
	default:
		/* the common line (a thousand-sector map prints one each) without fprintf */
		fputs("      ", f);
		fputs(report_owner_kind_name(o), f);
		fputc(' ', f);
		fputs(o->meta_type ? o->meta_type : "", f);
		if (o->ag >= 0) {
			fputs(" (AG ", f);
			report_put_u64(f, (uint64_t)o->ag);
			fputc(')', f);
		}
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
		fputs(part, f);
		fputc('\n', f);
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
	for (unsigned i = 0; i < p->nr_paths; i++) {
		size_t n = strlen(p->paths[i]);

		/* a directory ends in "/", once: the root of an unmounted filesystem is "/" */
		fprintf(f, "  %s%s\n", report_escape(p->paths[i], esc, sizeof(esc)),
			!p->is_dir ? "" : n && p->paths[i][n - 1] == '/' ? "  (directory)" :
			"/  (directory)");
	}
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

/* s, then spaces to width (printf's "%-*s") */
static void put_padded(FILE *f, const char *s, size_t n, size_t width)
{
	static const char spaces[] = "            ";

	fwrite(s, 1, n, f);
	while (n < width) {
		size_t k = width - n < sizeof(spaces) - 1 ? width - n : sizeof(spaces) - 1;

		fwrite(spaces, 1, k, f);
		n += k;
	}
}

void report_print_meta_start(FILE *f, const struct map_damage_meta *m, const char *path)
{
	const char *type = m->type ? m->type : "(null)";	/* glibc's %s of NULL */
	char buf[REPORT_DIGITS], *p;

	fputs("  ", f);
	put_padded(f, type, strlen(type), 12);
	if (m->ag >= 0) {
		fputs(" AG ", f);
		p = report_digits(buf + sizeof(buf), (uint64_t)m->ag, 0);
		put_padded(f, p, (size_t)(buf + sizeof(buf) - p), 3);
	}
	fputs("  ", f);
	fputs(path, f);
	fputs(" offset ", f);
	report_put_u64(f, m->offset);
	fputs(" length ", f);
	report_put_u64(f, m->length);
}

void report_print_owners(FILE *f, const struct map_damage *d, const struct map_target *t,
		      int lookup)
{
	const struct map_target *fs;
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
			/* no mount point in its paths: say which partition's filesystem holds it */
			fs = df->part ? map_target_fs((struct map_target *)t, df->fs_idx) : NULL;
			if (fs && (map_target_ops(fs)->caps & MAP_FSC_RAW))
				fprintf(f, "      (in partition %u: its unmounted ext4, read from "
					"the raw device)\n", df->part);
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

			report_print_meta_start(f, m, t->devices[m->dev_idx].path);
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
	const char *notes[12];
	int n = map_damage_notes(d, notes, 12);

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
