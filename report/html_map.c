/*
 * report/html_map.c - the surface map of the HTML report: a device's length as a grid of cells
 * (an inline SVG), each cell the worst class of what lies in it, with partition and AG /
 * block-group lines, a title per cell naming its byte range and the owners of its errors,
 * and a legend.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

#include "html.h"
#include "units.h"

#define CELL_PX 12
#define STEP_PX 13			/* cell and its gap */
#define MARGIN_PX 3			/* left of the first column: room for a boundary line */
#define TITLE_ERRS 6			/* errors named in one cell's title */

const char *report_html_class(enum scan_verdict v)
{
	switch (v) {
	case SCAN_V_DAMAGE:
		return "damage";
	case SCAN_V_TRANSIENT:
		return "transient";
	case SCAN_V_SLOW:
		return "slow";
	case SCAN_V_DEVICE:
		return "device";
	case SCAN_V_GAP:
	case SCAN_V_OPERATIONAL:
		break;
	}
	return "other";
}

/* How bad a verdict looks on the map: a cell shows the worst (damage first). */
static int rank(enum scan_verdict v)
{
	switch (v) {
	case SCAN_V_DAMAGE:
		return 4;
	case SCAN_V_DEVICE:
		return 3;
	case SCAN_V_SLOW:
		return 2;
	case SCAN_V_TRANSIENT:
		return 1;
	case SCAN_V_GAP:
	case SCAN_V_OPERATIONAL:
		break;
	}
	return 0;
}

unsigned report_html_cells(uint64_t size, uint64_t *bpc)
{
	uint64_t b = (size + REPORT_HTML_CELLS - 1) / REPORT_HTML_CELLS;

	b = b < 512 ? 512 : (b + 511) / 512 * 512;
	*bpc = b;
	return (unsigned)((size + b - 1) / b);
}

void report_html_owners_text(FILE *f, json_object *owners, unsigned max)
{
	size_t n = owners ? json_object_array_length(owners) : 0;

	for (size_t i = 0; i < n && i < max; i++) {
		json_object *o = json_object_array_get_idx(owners, i), *v, *paths = NULL;
		const char *type = json_object_object_get_ex(o, "type", &v) ?
				   json_object_get_string(v) : "?";

		fputs(i ? "; " : "", f);
		if (strcmp(type, "file") == 0) {
			json_object *fo = NULL, *len = NULL;

			fputs("file ", f);
			if (json_object_object_get_ex(o, "paths", &paths) &&
			    json_object_array_length(paths))
				report_html_put_path(f, o, "paths", 0);
			else if (json_object_object_get_ex(o, "paths_at_scan", &paths) &&
				 json_object_array_length(paths))
				report_html_put_path(f, o, "paths_at_scan", 0);
			else if (json_object_object_get_ex(o, "inode", &v))
				fprintf(f, "inode %" PRIu64 " (no path)",
					json_object_get_uint64(v));
			json_object_object_get_ex(o, "file_offset", &fo);
			json_object_object_get_ex(o, "length", &len);
			fprintf(f, " offset %" PRIu64 " length %" PRIu64,
				fo ? json_object_get_uint64(fo) : 0,
				len ? json_object_get_uint64(len) : 0);
		} else {
			report_html_puts(f, type);
			if (json_object_object_get_ex(o, "metadata", &v)) {
				fputs(" ", f);
				report_html_puts(f, json_object_get_string(v));
			}
			if (json_object_object_get_ex(o, "ag", &v))
				fprintf(f, " AG %" PRId64, json_object_get_int64(v));
		}
	}
	if (n > max)
		fprintf(f, "; and %zu more", n - max);
}

/* The title of cell [start, end): its range, where it lies, and its errors with owners. */
static void cell_title(FILE *f, const struct report_html_target *t, unsigned d, size_t lo,
		       uint64_t start, uint64_t end, const char *cls)
{
	const struct report_html_dev *dv = &t->devs[d];
	unsigned named = 0, more = 0;

	fprintf(f, "<title>bytes %" PRIu64 "-%" PRIu64 " (%" PRIu64 " bytes): %s", start, end - 1,
		end - start, cls);
	for (unsigned m = 0; m < dv->nr_marks; m++) {
		const struct report_html_mark *k = &dv->marks[m];

		if (k->partition && k->offset < end && k->offset + k->length > start)
			fprintf(f, "; partition %u", k->number);
		if (k->layer && start < k->offset && (m == 0 || !dv->marks[m - 1].layer ||
						     start >= dv->marks[m - 1].offset)) {
			fputs("; before ", f);
			report_html_puts(f, k->label);
		}
	}
	if (dv->group_bytes && start >= dv->group_first) {
		fputs("; ", f);
		report_html_puts(f, dv->group_name);
		fprintf(f, " %" PRIu64, (start - dv->group_first) / dv->group_bytes);
	}
	for (size_t i = lo; i < t->nr_errs && t->errs[i].dev == d && t->errs[i].offset < end;
	     i++) {
		const struct report_html_err *e = &t->errs[i];

		if (e->offset + e->length <= start || (!rank(e->verdict) && !e->rl))
			continue;
		if (named == TITLE_ERRS) {
			more++;
			continue;
		}
		fprintf(f, "\n%s ", e->rl ? "redundancy lost:" : report_html_class(e->verdict));
		report_html_puts(f, e->error);
		fprintf(f, " at %" PRIu64 " length %" PRIu64, e->offset, e->length);
		if (e->state && strcmp(e->state, "open") != 0)
			fprintf(f, " (%s)", e->state);
		if (e->owners && json_object_array_length(e->owners)) {
			fputs(": ", f);
			report_html_owners_text(f, e->owners, 3);
		}
		named++;
	}
	if (more)
		fprintf(f, "\nand %u more range%s", more, more == 1 ? "" : "s");
	fputs("</title>", f);
}

/*
 * The worst class of the errors of device d in [start, end); 0 when none. Redundancy lost
 * (*rl set) ranks below damage, above device faults.
 */
static int worst(const struct report_html_target *t, unsigned d, size_t lo, uint64_t start,
		 uint64_t end, enum scan_verdict *v, int *rl)
{
	int best = 0;

	*rl = 0;

	for (size_t i = lo; i < t->nr_errs && t->errs[i].dev == d && t->errs[i].offset < end;
	     i++) {
		const struct report_html_err *e = &t->errs[i];

		/* Cleared rows are history: they no longer colour the disk. */
		if (e->offset + e->length <= start || (e->state && strcmp(e->state, "open") != 0))
			continue;
		if (e->rl ? 7 > best : rank(e->verdict) * 2 > best) {
			best = e->rl ? 7 : rank(e->verdict) * 2;
			*v = e->verdict;
			*rl = e->rl;
		}
	}
	return best;
}

static void legend(FILE *f, const struct report_html_dev *dv, uint64_t bpc)
{
	static const struct {
		const char *cls, *what;
	} items[] = {
		{ "damage", "damage: the blocks fail every read (restore the owners)" },
		{ "device", "device fault: timeouts, transport or target errors" },
		{ "slow", "slow: answered later than --io-timeout (nothing lost)" },
		{ "transient", "transient: failed once, then read fine" },
		{ "redundancy", "redundancy lost: this copy fails, another reads (repair it)" },
		{ "planned", "planned: written data and metadata, read by the pass" },
		{ "free", "not planned: free space, not read" },
		{ "unknown", "plan not known (the target is not here now)" },
	};
	char b[32];

	fputs("<ul class=\"legend\">", f);
	for (size_t i = 0; i < sizeof(items) / sizeof(items[0]); i++) {
		if (dv->plan_known ? strcmp(items[i].cls, "unknown") == 0 :
		    (strcmp(items[i].cls, "planned") == 0 || strcmp(items[i].cls, "free") == 0))
			continue;
		if (!dv->member && strcmp(items[i].cls, "redundancy") == 0)
			continue;
		if (dv->member && strcmp(items[i].cls, "unknown") == 0) {
			fputs("<li><svg width=\"12\" height=\"12\"><rect class=\"c-unknown\" "
			      "width=\"12\" height=\"12\"/></svg> read where the filesystem's "
			      "plan maps down (every copy, the parity of its rows): the member's plan "
			      "is not drawn</li>", f);
			continue;
		}
		fprintf(f, "<li><svg width=\"12\" height=\"12\"><rect class=\"c-%s\" width=\"12\" "
			"height=\"12\"/></svg> %s</li>", items[i].cls, items[i].what);
	}
	if (dv->nr_marks && dv->marks[0].layer)
		fputs("<li><svg width=\"12\" height=\"12\"><line class=\"m-layer\" x1=\"1\" "
		      "y1=\"0\" x2=\"1\" y2=\"12\"/></svg> a layer's data starts (before it: the md "
		      "superblock and bitmap, the LVM metadata, the LUKS header)</li>", f);
	if (dv->nr_marks && dv->marks[0].partition)
		fputs("<li><svg width=\"12\" height=\"12\"><line class=\"m-part\" x1=\"1\" "
		      "y1=\"0\" x2=\"1\" y2=\"12\"/></svg> partition start</li>", f);
	if (dv->group_bytes) {
		fputs("<li><svg width=\"12\" height=\"12\"><line class=\"m-group\" x1=\"1\" "
		      "y1=\"0\" x2=\"1\" y2=\"12\"/></svg> ", f);
		report_html_puts(f, dv->group_name);
		fputs(" start</li>", f);
	}
	fputs("</ul>\n", f);
	fprintf(f, "<p class=\"note\">Each cell is %s (%" PRIu64 " bytes), read left to right, "
		"top to bottom. A cell shows the worst class in it (damage, then device fault, "
		"slow, transient); hover a cell for its byte range and the owners of its "
		"errors.%s</p>\n", report_fmt_bytes(bpc, b, sizeof(b)), bpc,
		dv->size_known ? "" : " The device's size is not known now: the map ends at "
		"its last error.");
	if (dv->marks_dropped)
		fprintf(f, "<p class=\"note\">%u more boundaries are not drawn.</p>\n",
			dv->marks_dropped);
}

void report_html_map(FILE *f, const struct report_html_target *t, unsigned d)
{
	const struct report_html_dev *dv = &t->devs[d];
	uint64_t bpc;
	size_t lo = 0;
	unsigned n = report_html_cells(dv->size ? dv->size : 512, &bpc);
	unsigned rows = (n + REPORT_HTML_COLS - 1) / REPORT_HTML_COLS;
	char b[32];

	fputs("<h3>Surface map of ", f);
	report_html_puts(f, dv->path);
	fputs(" (", f);
	report_html_puts(f, dv->role);
	fprintf(f, ", %s)</h3>\n", report_fmt_bytes(dv->size, b, sizeof(b)));
	fprintf(f, "<svg class=\"map\" role=\"img\" width=\"%u\" height=\"%u\" "
		"data-device=\"%u\" data-bytes-per-cell=\"%" PRIu64 "\">\n",
		MARGIN_PX + REPORT_HTML_COLS * STEP_PX, rows * STEP_PX, d, bpc);
	for (unsigned c = 0; c < n; c++) {
		uint64_t start = (uint64_t)c * bpc;
		uint64_t end = start + bpc > dv->size ? dv->size : start + bpc;
		enum scan_verdict v = SCAN_V_DAMAGE;
		const char *cls;
		int rl;

		if (!dv->size)
			end = start + bpc;
		/*
		 * The errors are sorted by device and offset: lo is the first that may reach
		 * this cell, so the whole map is one sweep over them.
		 */
		while (lo < t->nr_errs && (t->errs[lo].dev < d || (t->errs[lo].dev == d &&
		       t->errs[lo].offset + t->errs[lo].length <= start)))
			lo++;
		if (worst(t, d, lo, start, end, &v, &rl))
			cls = rl ? "redundancy" : report_html_class(v);
		else if (!dv->plan_known)
			cls = "unknown";
		else
			cls = dv->planned[c] ? "planned" : "free";
		fprintf(f,
			"<rect class=\"c-%s\" x=\"%u\" y=\"%u\" width=\"%u\" height=\"%u\" "
			"data-start=\"%" PRIu64 "\" data-end=\"%" PRIu64 "\">",
			cls, MARGIN_PX + (c % REPORT_HTML_COLS) * STEP_PX,
			(c / REPORT_HTML_COLS) * STEP_PX, CELL_PX, CELL_PX, start, end);
		cell_title(f, t, d, lo, start, end, cls);
		fputs("</rect>\n", f);
	}
	for (unsigned m = 0; m < dv->nr_marks; m++) {
		const struct report_html_mark *k = &dv->marks[m];
		unsigned c = (unsigned)(k->offset / bpc);
		/* on the gap left of the cell where it starts */
		unsigned x = MARGIN_PX - 1 + (c % REPORT_HTML_COLS) * STEP_PX;
		unsigned y = (c / REPORT_HTML_COLS) * STEP_PX;

		if (c >= n)
			continue;
		fprintf(f, "<line class=\"m-%s\" x1=\"%u\" y1=\"%u\" x2=\"%u\" y2=\"%u\"><title>",
			k->layer ? "layer" : k->partition ? "part" : "group", x, y, x, y + CELL_PX);
		if (k->layer) {
			report_html_puts(f, k->label);
			fprintf(f, ": data starts at byte %" PRIu64 "</title></line>\n", k->offset);
			continue;
		}
		report_html_puts(f, k->partition ? "partition" : dv->group_name);
		fprintf(f, " %u starts at byte %" PRIu64 "</title></line>\n", k->number,
			k->offset);
	}
	fputs("</svg>\n", f);
	legend(f, dv, bpc);
}
