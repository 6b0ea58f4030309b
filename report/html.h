/*
 * report/html.h - the HTML report (--html FILE): one self-contained page (inline CSS and SVG, no
 * script, no network) with a surface map per device, the damaged files and metadata and a
 * pass timeline. One model is filled from a scan (report/html.c) or from the history
 * (report/html_hist.c) and written by report/html.c and report/html_map.c.
 */
#ifndef MEDIASCAN_HTML_H
#define MEDIASCAN_HTML_H

#include <stdint.h>
#include <stdio.h>

#include "report.h"
#include "state.h"

#define REPORT_HTML_COLS 64		/* map cells per row */
#define REPORT_HTML_ROWS 16
#define REPORT_HTML_CELLS (REPORT_HTML_COLS * REPORT_HTML_ROWS)
#define REPORT_HTML_MAX_MARKS 64 /* partition and AG/block-group lines drawn per device */

struct json_object;

/* A boundary drawn on the map: a partition start or an AG / block group start. */
struct report_html_mark {
	uint64_t offset;		/* bytes on the device */
	uint64_t length;		/* bytes (partitions), 0 for a group start */
	int partition;			/* 1 partition, 0 group */
	unsigned number;		/* partition number or group index */
	int layer;			/* a stack layer's data start (label), not a group */
	char label[136];		/* "md0 (md-raid1) data; before it: md superblock ..." */
};

struct report_html_dev {
	char path[PATH_MAX];
	char role[16];
	uint64_t size;			/* bytes; when !size_known, the end of its last error */
	int size_known;
	int member;			/* a member disk of a member-level scan: its plan not drawn */
	int plan_known;			/* planned[] says what was planned */
	uint8_t planned[REPORT_HTML_CELLS];	/* 1: the cell holds planned (written) bytes */
	uint64_t group_bytes;		/* AG or block group size, 0 unknown */
	uint64_t group_first;		/* bytes before group 0 */
	char group_name[16];		/* "AG", "block group" */
	struct report_html_mark marks[REPORT_HTML_MAX_MARKS];
	unsigned nr_marks;
	unsigned marks_dropped;
};

/* A range of the report: damage, transient, slow or device fault, with its owners. */
struct report_html_err {
	uint32_t dev;			/* index into report_html_target.devs */
	uint64_t offset, length;	/* bytes on the device */
	enum scan_verdict verdict;	/* as result.c said it (scan) or the history stored it */
	char error[24];			/* EIO, ENODATA, timeout, ... */
	const char *state;		/* "open", "cleared", "unallocated"; NULL: one pass */
	int is_new;			/* history: first seen since the previous complete pass */
	int64_t first_seen, last_seen;	/* unix seconds */
	struct json_object *owners;	/* as media_errors[].owners[] (a reference held) */
	int rl;				/* redundancy lost on a member (verdict unused) */
};

struct report_html_target {
	char name[PATH_MAX];		/* mount point or device */
	char fs_type[64];
	char summary[512];		/* one line: what was scanned, how, the outcome */
	int history;			/* from the state store (else one pass) */
	struct report_html_dev devs[MAP_MAX_DEVICES];
	unsigned nr_devs;
	struct report_html_err *errs;	/* sorted by device and offset */
	size_t nr_errs, cap_errs;
	struct scan_state_pass_row *passes;
	size_t nr_passes;
	struct json_object *rl;		/* redundancy_lost[] as the JSON says it (a reference) */
	struct json_object *cd;		/* copies_differ[] as the JSON says it (a reference) */
};

struct report_html {
	const char *title;
	int64_t generated;		/* unix seconds */
	struct report_html_target *targets;
	size_t nr_targets;
};

/* Return a new target added to h (zeroed), or NULL. */
struct report_html_target *report_html_add_target(struct report_html *h);
/* Return 0 after appending e to t (the owners reference passes to t), or -ENOMEM. */
int report_html_add_err(struct report_html_target *t, const struct report_html_err *e);
/* Return 0 after filling dev d of ht from the open target mt: size, partitions, groups and
 * (when plan is set) which cells hold planned bytes, from a fresh plan of mt. */
int report_html_dev_from_target(struct report_html_target *ht, struct map_target *mt, int plan);
/* Return 0 after writing the whole page of h to f, -EIO when a write failed. */
int report_html_print(const struct report_html *h, FILE *f);
/* Return 0; free what h holds. */
void report_html_free(struct report_html *h);
/* Write s to f escaped for HTML text and attributes (& < > " '), control bytes and invalid
 * UTF-8 as \xNN (report_escape). */
void report_html_puts(FILE *f, const char *s);
/* Write path k of owner o's array key ("paths", "paths_at_scan") escaped, from its exact
 * bytes (key_hex) when the name is not UTF-8. */
void report_html_put_path(FILE *f, struct json_object *o, const char *key, size_t k);
/* Write the owners of an error as one line of text for a cell title (escaped). */
void report_html_owners_text(FILE *f, struct json_object *owners, unsigned max);
/* Write the surface map of device d of t (an SVG and its legend). */
void report_html_map(FILE *f, const struct report_html_target *t, unsigned d);
/* Return the number of map cells of a device of size bytes, with *bpc the bytes of each (a
 * multiple of 512). */
unsigned report_html_cells(uint64_t size, uint64_t *bpc);
/* Return the CSS class name of a verdict on the map ("damage", "transient", ...). */
const char *report_html_class(enum scan_verdict v);

/* Entry points: */
/*
 * Return 0 after adding history target st_t to h: its errors as `report --json` built them
 * (target_json: path, fs_type, errors[]), its passes, and its devices (sizes, plan) when the
 * same target is here now; -errno.
 */
int report_html_add_history(struct report_html *h, struct scan_state *st,
			 const struct scan_state_target *st_t, struct json_object *target_json);
/* Return 0 after writing h to path (report_out_open: a new file renamed over it; "-": stdout),
 * -errno. */
int report_html_save(const struct report_html *h, const char *path);

#endif
