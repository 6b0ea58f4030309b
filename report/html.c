/*
 * report/html.c - the HTML report: one self-contained page (inline CSS and SVG; no script, and a
 * Content-Security-Policy that allows none; nothing fetched), written from the model of
 * report/html.h (built in html_model.c). Every string from outside (file names, device paths,
 * owners) goes through report_html_puts (html_text.c). Also the one-pass entry point of
 * `mediascan scan --html`.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <json-c/json.h>

#include "report.h"
#include "escape.h"
#include "html.h"
#include "map_compare.h"
#include "map_stack.h"
#include "files.h"
#include "fs.h"
#include "units.h"
#include "owners_json.h"

#define MAX_RANGE_ROWS 5000		/* rows of the all-ranges table; the rest counted */

static const char page_head[] =
	"<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	"<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
	"style-src 'unsafe-inline'\">\n"
	"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
	"<style>\n"
	"body{font:14px/1.4 sans-serif;margin:1.5em;color:#222;background:#fff}\n"
	"h1{font-size:1.5em}h2{font-size:1.25em;border-bottom:2px solid #444;margin-top:2em}\n"
	"h3{font-size:1.05em;margin-top:1.5em}\n"
	"table{border-collapse:collapse;margin:.5em 0}\n"
	"td,th{border:1px solid #bbb;padding:2px 6px;text-align:left;vertical-align:top}\n"
	"th{background:#eee}td.num{text-align:right;font-variant-numeric:tabular-nums}\n"
	".path{font-family:monospace;word-break:break-all}\n"
	".dev{font-family:monospace;white-space:nowrap}\n"
	".note{color:#555;font-size:.9em}.new{color:#fff;background:#c00;padding:0 4px;"
	"font-weight:bold}\n"
	".legend{list-style:none;padding:0}.legend li{display:inline-block;margin-right:1.2em}\n"
	"svg.map{background:#fff}rect{stroke:none}\n"
	".c-damage{fill:#d7191c}.c-device{fill:#7b3294}.c-slow{fill:#fd8d3c}"
	".c-transient{fill:#ffd92f}.c-planned{fill:#66a8d9}.c-free{fill:#e8e8e8}"
	".c-unknown{fill:#c8c8c8}.c-other{fill:#999}\n"
	".m-part{stroke:#000;stroke-width:3}.m-group{stroke:#333;stroke-width:2}"
	".c-redundancy{fill:#e66101}.m-layer{stroke:#0571b0;stroke-width:3}\n"
	"tr.v-damage td:first-child{border-left:6px solid #d7191c}"
	"tr.v-device td:first-child{border-left:6px solid #7b3294}"
	"tr.v-slow td:first-child{border-left:6px solid #fd8d3c}"
	"tr.v-transient td:first-child{border-left:6px solid #ffd92f}\n"
	".bar{fill:#66a8d9}.barbg{fill:#e8e8e8}\n"
	"</style>\n";

/* One error row: class, where, what, when, owners. */
static void print_err_row(FILE *f, const struct report_html_target *t,
			  const struct report_html_err *e)
{
	char a[64], b[64];

	fprintf(f, "<tr class=\"v-%s\"><td>%s</td><td class=\"dev\">",
		report_html_class(e->verdict), scan_verdict_name(e->verdict));
	report_html_puts(f, t->devs[e->dev].path);
	fprintf(f, "</td><td class=\"num offset\">%" PRIu64 "</td><td class=\"num length\">%"
		PRIu64 "</td><td>", e->offset, e->length);
	report_html_puts(f, e->error);
	fprintf(f, "</td><td>%s%s</td><td>%s</td><td>%s</td><td class=\"path\">",
		e->state ? e->state : "found", e->is_new ? " <span class=\"new\">NEW</span>" : "",
		report_fmt_time(e->first_seen, a, sizeof(a)),
		report_fmt_time(e->last_seen, b, sizeof(b)));
	report_html_owners_text(f, e->owners, 16);
	fputs("</td></tr>\n", f);
}

/* Paths of a file owner: its paths now, else those it had when scanned, else its inode. */
static void print_paths(FILE *f, json_object *o)
{
	json_object *paths = NULL, *v;
	int now = json_object_object_get_ex(o, "paths", &paths) &&
		  json_object_array_length(paths);

	if (!now && !(json_object_object_get_ex(o, "paths_at_scan", &paths) &&
		      json_object_array_length(paths))) {
		fputs("<i>no directory reaches it</i>", f);
		return;
	}
	for (size_t k = 0; k < json_object_array_length(paths); k++) {
		fputs(k ? "<br>" : "", f);
		report_html_put_path(f, o, now ? "paths" : "paths_at_scan", k);
	}
	if (!now && json_object_object_get_ex(o, "path_unknown", &v)) {
		fputs(" <span class=\"note\">(path at the scan; now: ", f);
		report_html_puts(f, json_object_get_string(v));
		fputs(")</span>", f);
	}
}

static uint64_t owner_u64(json_object *o, const char *key)
{
	json_object *v;

	return json_object_object_get_ex(o, key, &v) ? json_object_get_uint64(v) : 0;
}

static int owner_bool(json_object *o, const char *key)
{
	json_object *v;

	return json_object_object_get_ex(o, key, &v) && json_object_get_boolean(v);
}

/* The end of a damage row: first and last seen, state and NEW. */
static void print_seen(FILE *f, const struct report_html_err *e)
{
	char a[64], b[64];

	fprintf(f, "<td>%s</td><td>%s</td><td>%s%s</td></tr>\n",
		report_fmt_time(e->first_seen, a, sizeof(a)),
		report_fmt_time(e->last_seen, b, sizeof(b)), e->state ? e->state : "found",
		e->is_new ? " <span class=\"new\">NEW</span>" : "");
}

static void print_file_row(FILE *f, const struct report_html_err *e, json_object *o)
{
	fputs("<tr><td class=\"path\">", f);
	print_paths(f, o);
	fprintf(f, "</td><td class=\"num\">%" PRIu64 "</td><td class=\"num offset\">%" PRIu64
		"</td><td class=\"num length\">%" PRIu64 "</td><td>%s</td><td>%s</td>",
		owner_u64(o, "inode"), owner_u64(o, "file_offset"), owner_u64(o, "length"),
		owner_bool(o, "unwritten") ? "no (unwritten)" : "yes",
		owner_bool(o, "shared") ? "yes (reflinked)" : "no");
	print_seen(f, e);
}

static void print_meta_row(FILE *f, const struct report_html_target *t,
			   const struct report_html_err *e, json_object *o, const char *type)
{
	json_object *v;

	fputs("<tr><td>", f);
	report_html_puts(f, type);
	fputs("</td><td>", f);
	if (json_object_object_get_ex(o, "metadata", &v))
		report_html_puts(f, json_object_get_string(v));
	if (json_object_object_get_ex(o, "ag", &v))
		fprintf(f, " (AG %" PRId64 ")", json_object_get_int64(v));
	fputs("</td><td class=\"dev\">", f);
	report_html_puts(f, t->devs[e->dev].path);
	fprintf(f, "</td><td class=\"num offset\">%" PRIu64 "</td><td class=\"num length\">%"
		PRIu64 "</td>", owner_u64(o, "device_offset"), owner_u64(o, "length"));
	print_seen(f, e);
}

/* Rows for the owners of damage that are files (files 1) or not; return how many. */
static unsigned print_owner_rows(FILE *f, const struct report_html_target *t, int files)
{
	unsigned n = 0;

	for (size_t i = 0; i < t->nr_errs; i++) {
		const struct report_html_err *e = &t->errs[i];
		size_t nr = e->owners ? json_object_array_length(e->owners) : 0;

		if (e->verdict != SCAN_V_DAMAGE)
			continue;
		for (size_t k = 0; k < nr; k++) {
			json_object *o = json_object_array_get_idx(e->owners, k), *v;
			const char *type = json_object_object_get_ex(o, "type", &v) ?
					   json_object_get_string(v) : "unknown";

			if ((strcmp(type, "file") == 0) != files)
				continue;
			if (files)
				print_file_row(f, e, o);
			else
				print_meta_row(f, t, e, o, type);
			n++;
		}
	}
	return n;
}

/* The damaged files (file owners of damage) and the damaged metadata (the other owners). */
static void print_damage_tables(FILE *f, const struct report_html_target *t)
{
	fputs("<h3>Damaged files</h3>\n<table id=\"damaged-files\"><thead><tr><th>path</th>"
	      "<th>inode</th><th>file offset</th><th>length</th><th>lost</th><th>shared</th>"
	      "<th>first seen</th><th>last seen</th><th>state</th></tr></thead><tbody>\n", f);
	if (!print_owner_rows(f, t, 1))
		fputs("<tr><td colspan=\"9\">none</td></tr>\n", f);
	fputs("</tbody></table>\n<h3>Damaged metadata</h3>\n<table id=\"damaged-metadata\">"
	      "<thead><tr><th>owner</th><th>what</th><th>device</th><th>offset</th><th>length</th>"
	      "<th>first seen</th><th>last seen</th><th>state</th></tr></thead><tbody>\n", f);
	if (!print_owner_rows(f, t, 0))
		fputs("<tr><td colspan=\"8\">none</td></tr>\n", f);
	fputs("</tbody></table>\n", f);
}

/* The passes: when, how long, how fast, what each found and cleared, with a progress bar. */
static void print_passes(FILE *f, const struct report_html_target *t)
{
	char a[64], b[32], c[32], d[32], r[32];

	fputs("<h3>Passes</h3>\n<table id=\"passes\"><thead><tr><th>pass</th><th>started</th>"
	      "<th>took</th><th>result</th><th>method</th><th>read of planned</th><th>rate</th>"
	      "<th>found</th><th>cleared</th></tr></thead><tbody>\n", f);
	for (size_t i = t->nr_passes; i-- > 0;) {
		const struct scan_state_pass_row *p = &t->passes[i];
		double frac = p->pass.planned_bytes ?
			      (double)p->pass.scanned_bytes / (double)p->pass.planned_bytes : 0;

		frac = frac > 1 ? 1 : frac;
		if (t->history)
			fprintf(f, "<tr><td class=\"num\">%" PRId64 "%s</td>", p->pass.number,
				p->recheck ? " (recheck)" : "");
		else
			fputs("<tr><td>this pass</td>", f);
		fprintf(f, "<td>%s</td><td>%s</td><td>%s</td><td>",
			report_fmt_time(p->pass.started, a, sizeof(a)),
			p->pass.ended ? report_fmt_duration(
					    (double)(p->pass.ended - p->pass.started), b, sizeof(b))
				      : "running",
			scan_pass_result_name(p->pass.result));
		report_html_puts(f, p->pass.method);
		fprintf(f, "</td><td><svg width=\"100\" height=\"10\"><rect class=\"barbg\" "
			"width=\"100\" height=\"10\"/><rect class=\"bar\" width=\"%.0f\" "
			"height=\"10\"/></svg> %s of %s</td><td class=\"num\">%s/s</td>"
			"<td class=\"num\">%u</td><td class=\"num\">%s</td></tr>\n", frac * 100,
			report_fmt_bytes(p->pass.scanned_bytes, c, sizeof(c)),
			report_fmt_bytes(p->pass.planned_bytes, d, sizeof(d)),
			/* the store's rate may be anything (an edited row): 0 unless in range */
			report_fmt_bytes(p->pass.bytes_per_s > 0 && p->pass.bytes_per_s < 1e19 ?
				      (uint64_t)p->pass.bytes_per_s : 0, r, sizeof(r)), p->found,
			t->history ? (snprintf(b, sizeof(b), "%u", p->cleared), b) : "-");
	}
	if (!t->nr_passes)
		fputs("<tr><td colspan=\"9\">no pass recorded</td></tr>\n", f);
	fputs("</tbody></table>\n", f);
}

/* Redundancy lost: each member range with its member disk, array, good copies and repair. */
static void print_rl(FILE *f, const struct report_html_target *t)
{
	size_t n = t->rl ? json_object_array_length(t->rl) : 0;

	if (!n)
		return;
	fputs("<h3>Redundancy lost</h3>\n<p>A copy failed while another still reads: nothing is "
	      "lost yet, the next failure loses it. Repair each range from the good copy, then "
	      "watch or replace the member disk.</p>\n<table id=\"redundancy\"><thead><tr>"
	      "<th>member</th><th>member id</th><th>array</th><th>array uuid</th><th>offset</th>"
	      "<th>length</th><th>state</th><th>good copies</th><th>at risk</th><th>repair</th>"
	      "</tr></thead><tbody>\n", f);
	for (size_t i = 0; i < n && i < MAX_RANGE_ROWS; i++) {
		json_object *j = json_object_array_get_idx(t->rl, i), *v = NULL;
		const char *state = report_json_str(j, "state");

		fputs("<tr class=\"redundancy\"><td>", f);
		report_html_puts(f, report_json_str(j, "device"));
		fputs("</td><td>", f);
		report_html_puts(f, report_json_str(j, "member_id"));
		fputs("</td><td>", f);
		report_html_puts(f, report_json_str(j, "array"));
		fputs("</td><td>", f);
		report_html_puts(f, report_json_str(j, "array_uuid"));
		fprintf(f, "</td><td class=\"num\">%" PRIu64 "</td><td class=\"num\">%" PRIu64
			"</td><td>", report_json_u64(j, "offset"), report_json_u64(j, "length"));
		report_html_puts(f, state[0] ? state : strcmp(report_json_str(j, "verdict"), "damage") ?
			      "open" : "no copy reads");
		fputs("</td><td>", f);
		if (json_object_object_get_ex(j, "copies", &v))
			for (size_t k = 0; k < json_object_array_length(v); k++) {
				json_object *c = json_object_array_get_idx(v, k);

				report_html_puts(f, report_json_str(c, "device"));
				fprintf(f, "@%" PRIu64 " ", report_json_u64(c, "offset"));
				report_html_puts(f, report_json_str(c, "role"));
				fputs(k + 1 < json_object_array_length(v) ? ", " : "", f);
			}
		fputs("</td><td>", f);
		if (json_object_object_get_ex(j, "owners", &v))
			report_html_owners_text(f, v, 8);
		/* a thin block's other volumes and snapshots: their owners are at risk too */
		if (json_object_object_get_ex(j, "shared_with", &v))
			for (size_t k = 0; k < json_object_array_length(v); k++) {
				json_object *own;

				if (json_object_object_get_ex(json_object_array_get_idx(v, k),
							      "owners", &own))
					report_html_owners_text(f, own, 8);
			}
		fputs("</td><td><code>", f);
		report_html_puts(f, report_json_str(j, "repair"));
		fputs("</code></td></tr>\n", f);
	}
	fputs("</tbody></table>\n", f);
}

/* Copies that differ: each run with its array, legs, the wrong copy (or not known), owners. */
static void print_cd(FILE *f, const struct report_html_target *t)
{
	size_t n = t->cd ? json_object_array_length(t->cd) : 0;

	if (!n)
		return;
	fputs("<h3>Copies differ</h3>\n<p>The copies (or data and parity) of these runs "
	      "disagree and no read failed. Where the wrong copy is known, rewrite it from a "
	      "good one; where it is not, restore the files from a backup. Never a blind md "
	      "repair: it may copy the wrong one.</p>\n<table id=\"copies-differ\"><thead><tr>"
	      "<th>array</th><th>level</th><th>legs</th><th>wrong</th><th>how</th><th>state</th>"
	      "<th>owners</th></tr></thead><tbody>\n", f);
	for (size_t i = 0; i < n && i < MAX_RANGE_ROWS; i++) {
		json_object *j = json_object_array_get_idx(t->cd, i), *v = NULL;
		const char *state = report_json_str(j, "state");

		fputs("<tr class=\"copies-differ\"><td>", f);
		report_html_puts(f, report_json_str(j, "array"));
		fputs("</td><td>", f);
		report_html_puts(f, report_json_str(j, "level"));
		fputs("</td><td>", f);
		if (json_object_object_get_ex(j, "legs", &v))
			for (size_t k = 0; k < json_object_array_length(v); k++) {
				json_object *c = json_object_array_get_idx(v, k);

				report_html_puts(f, report_json_str(c, "device"));
				fprintf(f, "@%" PRIu64 " ", report_json_u64(c, "offset"));
				report_html_puts(f, report_json_str(c, "role"));
				fputs(k + 1 < json_object_array_length(v) ? ", " : "", f);
			}
		fputs("</td><td>", f);
		report_html_puts(f, report_json_str(j, "wrong")[0] ? report_json_str(j, "wrong") : "cannot be known");
		fputs("</td><td>", f);
		report_html_puts(f, report_json_str(j, "how"));
		fputs("</td><td>", f);
		report_html_puts(f, state[0] ? state : "open");
		fputs("</td><td>", f);
		if (json_object_object_get_ex(j, "owners", &v))
			report_html_owners_text(f, v, 8);
		fputs("</td></tr>\n", f);
	}
	fputs("</tbody></table>\n", f);
}

static void print_target(FILE *f, const struct report_html_target *t)
{
	unsigned counts[4] = { 0 };
	static const enum scan_verdict order[4] = {
		SCAN_V_DAMAGE, SCAN_V_DEVICE, SCAN_V_SLOW, SCAN_V_TRANSIENT,
	};

	for (size_t i = 0; i < t->nr_errs; i++)
		for (unsigned k = 0; k < 4; k++)
			if (t->errs[i].verdict == order[k] &&
			    (!t->errs[i].state || strcmp(t->errs[i].state, "open") == 0))
				counts[k]++;
	fputs("<section class=\"target\">\n<h2>", f);
	report_html_puts(f, t->name);
	fputs(" (", f);
	report_html_puts(f, t->fs_type);
	fputs(")</h2>\n<p>", f);
	report_html_puts(f, t->summary);
	fprintf(f, "</p>\n<p><b>%u damaged range%s</b> (restore their owners), %u device "
		"fault%s, %u slow, %u transient%s.</p>\n", counts[0], counts[0] == 1 ? "" : "s",
		counts[1], counts[1] == 1 ? "" : "s", counts[2], counts[3],
		t->history ? " (open)" : "");
	for (unsigned d = 0; d < t->nr_devs; d++)
		report_html_map(f, t, d);
	print_damage_tables(f, t);
	print_rl(f, t);
	print_cd(f, t);
	fputs("<h3>All ranges</h3>\n<table id=\"ranges\"><thead><tr><th>class</th><th>device</th>"
	      "<th>offset</th><th>length</th><th>error</th><th>state</th><th>first seen</th>"
	      "<th>last seen</th><th>owners</th></tr></thead><tbody>\n", f);
	for (size_t i = 0; i < t->nr_errs && i < MAX_RANGE_ROWS; i++)
		if (!t->errs[i].rl)		/* in their own table above */
			print_err_row(f, t, &t->errs[i]);
	if (t->nr_errs > MAX_RANGE_ROWS)
		fprintf(f, "<tr><td colspan=\"9\">and %zu more (the map and the damaged files "
			"show them all; --json lists each)</td></tr>\n", t->nr_errs - MAX_RANGE_ROWS);
	if (!t->nr_errs)
		fputs("<tr><td colspan=\"9\">none: every planned byte read cleanly</td></tr>\n", f);
	fputs("</tbody></table>\n", f);
	print_passes(f, t);
	fputs("</section>\n", f);
}

int report_html_print(const struct report_html *h, FILE *f)
{
	char a[64];

	fputs(page_head, f);
	fputs("<title>", f);
	report_html_puts(f, h->title);
	fputs("</title>\n</head>\n<body>\n<h1>", f);
	report_html_puts(f, h->title);
	fprintf(f, "</h1>\n<p class=\"note\">Written by mediascan on %s. This page needs no "
		"script and loads nothing.</p>\n", report_fmt_time(h->generated, a, sizeof(a)));
	for (size_t i = 0; i < h->nr_targets; i++)
		print_target(f, &h->targets[i]);
	if (!h->nr_targets)
		fputs("<p>No target has anything to report.</p>\n", f);
	fputs("</body>\n</html>\n", f);
	return ferror(f) ? -EIO : 0;
}

int report_html_save(const struct report_html *h, const char *path)
{
	struct report_out o;
	int ret = report_out_open(path, 0600, &o);	/* 0600, a new file renamed over path */

	if (ret < 0)
		return ret;
	return report_out_close(&o, report_html_print(h, o.f));
}

static int cmp_dev_off(const void *a, const void *b)
{
	const struct report_html_err *x = a, *y = b;

	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

/*
 * A member-level scan: each member disk gets a map with where each layer's data starts on it
 * (before it: the md superblock and bitmap, the LVM metadata, the LUKS header) and its
 * redundancy-lost ranges.
 */
static int add_members(struct report_html_target *t, const struct pass_report *rep)
{
	const struct pass_stack *ps = rep->stack;
	unsigned first = t->nr_devs;

	for (unsigned i = 0; i < ps->nr_leaf && t->nr_devs < MAP_MAX_DEVICES; i++) {
		struct report_html_dev *dv = &t->devs[t->nr_devs++];
		struct map_stack_region rg[8];
		int n = map_stack_regions(NULL, ps->leaf[i], rg, 8);

		memset(dv, 0, sizeof(*dv));
		snprintf(dv->path, sizeof(dv->path), "%s", ps->path[i]);
		snprintf(dv->role, sizeof(dv->role), "member");
		dv->size = ps->devs[i].size_bytes;
		dv->size_known = 1;
		dv->member = 1;
		for (int k = 0; k < n && dv->nr_marks < REPORT_HTML_MAX_MARKS; k++) {
			struct report_html_mark *m = &dv->marks[dv->nr_marks++];

			m->offset = rg[k].data_start;
			m->layer = 1;
			snprintf(m->label, sizeof(m->label), "%.20s (%.20s) data; before it: %.60s",
				 rg[k].name, rg[k].kind, rg[k].meta);
		}
	}
	for (size_t i = 0; i < ps->nr_rl; i++) {
		const struct pass_stack_rl *e = &ps->rl[i];
		struct report_html_err he = {
			.offset = e->offset, .length = e->length, .verdict = SCAN_V_GAP, .rl = 1,
			.first_seen = time(NULL), .last_seen = time(NULL),
		};
		unsigned d;
		json_object *j;

		for (d = first; d < t->nr_devs && strcmp(t->devs[d].path, e->member); d++)
			;
		if (d == t->nr_devs)
			continue;
		he.dev = d;
		snprintf(he.error, sizeof(he.error), "%s", e->lost ? "no copy reads" :
			 "redundancy lost");
		j = report_stack_rl_json(rep, i);
		if (j && json_object_object_get_ex(j, "owners", &he.owners))
			json_object_get(he.owners);
		json_object_put(j);
		if (report_html_add_err(t, &he) < 0) {
			json_object_put(he.owners);
			return -ENOMEM;
		}
	}
	if (t->nr_errs)
		qsort(t->errs, t->nr_errs, sizeof(*t->errs), cmp_dev_off);
	return 0;
}

int report_html_write(const struct pass_report *rep, const char *path)
{
	const struct scan_result *r = rep->r;
	struct report_html h = { .title = "mediascan: scan report", .generated = time(NULL) };
	struct report_html_target *t = report_html_add_target(&h);
	struct scan_state_pass_row *p;
	char a[32], b[32], c[32];
	int ret = t ? 0 : -ENOMEM;

	if (ret < 0)
		return ret;
	snprintf(t->name, sizeof(t->name), "%s",
		 rep->t->mount_point[0] ? rep->t->mount_point : rep->t->arg);
	snprintf(t->fs_type, sizeof(t->fs_type), "%s", rep->t->fs_type);
	snprintf(t->summary, sizeof(t->summary), "%s %s of %s planned in %.1f s (%s/s), method "
		 "%s, engine %s; exit status %u.", r->complete ? "Scanned" : "INCOMPLETE: scanned",
		 report_fmt_bytes(r->scanned_bytes, a, sizeof(a)),
		 report_fmt_bytes(r->planned_bytes, b, sizeof(b)), r->elapsed_s,
		 report_fmt_bytes((uint64_t)report_rate(rep), c, sizeof(c)), rep->method,
		 r->engine, rep->exit_bits);
	/* The plan of the map is made again now: a failure leaves the map without it. */
	report_html_dev_from_target(t, rep->t, 1);
	t->passes = p = calloc(1, sizeof(*p));
	if (p) {
		t->nr_passes = 1;
		p->pass.ended = h.generated;
		p->pass.started = h.generated - (int64_t)r->elapsed_s;
		p->pass.planned_bytes = r->planned_bytes;
		p->pass.scanned_bytes = r->scanned_bytes;
		p->pass.bytes_per_s = report_rate(rep);
		p->pass.result = r->complete ? SCAN_PASS_COMPLETE : r->fatal ? SCAN_PASS_FAILED :
				 SCAN_PASS_INTERRUPTED;
		snprintf(p->pass.method, sizeof(p->pass.method), "%s", rep->method);
	}
	for (size_t i = 0; i < r->nr_errors && ret == 0; i++) {
		const struct scan_error *e = &r->errors[i];
		enum scan_verdict v = scan_error_verdict(e);
		struct report_html_err he = {
			.dev = e->dev_idx, .offset = e->offset, .length = e->length, .verdict = v,
			.first_seen = h.generated, .last_seen = h.generated,
		};
		json_object *j, *owners = NULL;

		if (v == SCAN_V_GAP || v == SCAN_V_OPERATIONAL || e->dev_idx >= t->nr_devs)
			continue;
		snprintf(he.error, sizeof(he.error), "%s", scan_error_name(e));
		j = report_error_json(rep, i);	/* the owners the JSON report lists */
		if (j && json_object_object_get_ex(j, "owners", &owners))
			he.owners = json_object_get(owners);
		json_object_put(j);
		if (p)
			p->found++;
		ret = report_html_add_err(t, &he);
		if (ret < 0)
			json_object_put(he.owners);
	}
	if (ret == 0 && rep->stack && rep->stack->active && rep->stack->nr_rl) {
		t->rl = json_object_new_array();
		for (size_t i = 0; t->rl && i < rep->stack->nr_rl; i++)
			json_object_array_add(t->rl, report_stack_rl_json(rep, i));
	}
	if (ret == 0 && rep->stack && rep->stack->active && rep->stack->nr_cd) {
		t->cd = json_object_new_array();
		for (size_t i = 0; t->cd && i < rep->stack->nr_cd; i++)
			json_object_array_add(t->cd, report_compare_cd_json(rep, i));
	}
	if (ret == 0 && rep->stack && rep->stack->active)
		ret = add_members(t, rep);
	if (ret == 0)
		ret = report_html_save(&h, path);
	if (ret < 0)
		report_err("cannot write the HTML report to %s: %s", path,
			   report_create_error(ret));
	report_html_free(&h);
	return ret;
}
