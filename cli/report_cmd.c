/*
 * cli/report_cmd.c - `mediascan report [--json] [--since DATE] [--all]`: the open damage of
 * every target from the history, newest first, what is new since the previous pass marked,
 * damaged files with their current paths (inodes looked up again, so a renamed file shows
 * its new name) and what to do about them. --html writes the same as a page (report/html_hist.c).
 */
#include <errno.h>
#include <getopt.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <json-c/json.h>

#include "cli.h"
#include "exits.h"
#include "files.h"
#include "escape.h"
#include "map_report.h"
#include "html.h"
#include "owners.h"
#include "opts.h"
#include "owners_json.h"
#include "report_cmd.h"
#include "cd_hist.h"
#include "rl_hist.h"
#include "status_cmd.h"
#include "units.h"

#define REPORT_MAX_INODES 4096

struct report_ctx {
	int json, all;
	const char *json_path;		/* --json FILE|- */
	struct report_html *html;		/* --html: the page being built */
	json_object *target_json;	/* the target's object while its errors are listed */
	int64_t since;
	struct scan_state *st;
	json_object *targets;		/* --json */
	unsigned nr_open;
	/* per target */
	const struct scan_state_target *t;
	int64_t new_after;		/* errors first seen in a later pass are new */
	int fs_here;			/* the target is mounted at its path now (same key) */
	struct map_inode_paths *want;
	size_t nr_want;
	json_object *errors;
};

/* Collect the inodes the owners of e name. */
static int collect_inodes(const struct scan_state_error_row *e, void *arg)
{
	struct report_ctx *r = arg;
	uint64_t ino[256];
	unsigned n = report_owners_json_files(e->owners_json, ino, 256);

	for (unsigned i = 0; i < n; i++) {
		size_t k;

		for (k = 0; k < r->nr_want; k++)
			if (r->want[k].inode == ino[i])
				break;
		if (k == r->nr_want && r->nr_want < REPORT_MAX_INODES)
			r->want[r->nr_want++].inode = ino[i];
	}
	return 0;
}

static const struct map_inode_paths *current_paths(const struct report_ctx *r, uint64_t ino)
{
	for (size_t k = 0; k < r->nr_want; k++)
		if (r->want[k].inode == ino)
			return &r->want[k];
	return NULL;
}

/*
 * The owners as stored, each file named only by the paths that are that inode now: the same
 * filesystem mounted at the target's path (key checked) and the same inode generation. A
 * number reused by another file names nothing: "path unknown now", with the paths it had
 * when scanned kept apart (paths_at_scan).
 */
static json_object *owners_now(const struct report_ctx *r, const char *owners_json)
{
	json_object *a = report_owners_parse(owners_json);

	for (size_t i = 0; i < json_object_array_length(a); i++) {
		json_object *o = json_object_array_get_idx(a, i), *v, *g, *old = NULL;
		const struct map_inode_paths *p;
		uint64_t ino;
		uint32_t gen = 0;
		const char *why;

		if (!json_object_object_get_ex(o, "inode", &v))
			continue;
		if (json_object_object_get_ex(o, "volume", &g)) {
			/* named on the filesystem of a volume above the disk scanned: that
			 * filesystem is not the target's, its paths are not looked up again */
			json_object_object_add(o, "paths_resolved", json_object_new_boolean(0));
			json_object_object_add(o, "path_note", json_object_new_string(
				"as the scan named it on the filesystem above the disk (volume): "
				"not looked up again"));
			continue;
		}
		ino = json_object_get_uint64(v);
		if (json_object_object_get_ex(o, "generation", &g))
			gen = (uint32_t)json_object_get_int64(g);
		const char *now[64];
		unsigned nr_now = 0;

		p = r->fs_here ? current_paths(r, ino) : NULL;
		for (unsigned k = 0; p && k < p->nr_paths && nr_now < 64; k++)
			if (map_path_is_inode(p->paths[k], ino, gen))
				now[nr_now++] = p->paths[k];
		if (json_object_object_get_ex(o, "paths", &old))
			json_object_object_add(o, "paths_at_scan", json_object_get(old));
		if (json_object_object_get_ex(o, "paths_hex", &old)) {
			json_object_object_add(o, "paths_at_scan_hex", json_object_get(old));
			json_object_object_del(o, "paths_hex");
		}
		report_json_add_paths(o, "paths", now, nr_now);
		json_object_object_add(o, "paths_resolved", json_object_new_boolean(nr_now > 0));
		if (nr_now)
			continue;
		why = !r->fs_here ? "the filesystem scanned is not mounted at its path now" :
		      !gen ? "its generation is unknown: cannot tell it from a reused inode number" :
		      "no path reaches that inode of that generation now (deleted, or the number "
		      "reused by another file)";
		json_object_object_add(o, "path_unknown", json_object_new_string(why));
	}
	return a;
}

/* Return 1 when the target mounted (or the disk) at t->path now is the one of the history. */
static int target_here(const struct scan_state_target *t)
{
	struct map_target mt;
	char key[8192], legacy[8192], err[512];
	int cls, here;

	if (!t->path || !t->path[0] || !t->key)
		return 0;
	if (map_target_open(t->path, &mt, err, sizeof(err), &cls) < 0)
		return 0;
	map_target_key(&mt, key, sizeof(key), legacy, sizeof(legacy));
	here = strcmp(key, t->key) == 0 || strcmp(legacy, t->key) == 0;
	map_target_close(&mt);
	return here;
}

static int report_error(const struct scan_state_error_row *e, void *arg)
{
	struct report_ctx *r = arg;
	json_object *owners = owners_now(r, e->owners_json);
	int is_new = e->first_pass_id > r->new_after && !e->cleared;
	enum scan_verdict v = SCAN_V_DAMAGE;
	const char *action;
	char a[64], b[64], dev_esc[1024], err_esc[512];

	if (e->verdict && scan_verdict_parse(e->verdict, &v) < 0)
		v = SCAN_V_DAMAGE;		/* unknown name from a newer build: the safe side */
	if (e->unallocated)
		action = "none: no longer allocated (file rewritten or deleted)";
	else if (e->cleared)
		action = "none: read cleanly by a later pass";
	else if (v == SCAN_V_SLOW)
		action = "nothing lost: a slow sector (marginal media); watch the disk (SMART)";
	else if (v == SCAN_V_DEVICE)
		action = "the disk or its path is failing: check cabling and SMART, copy what you "
			 "can (ddrescue); nothing known lost yet";
	else
		action = report_owners_action(owners);
	if (!e->cleared && v == SCAN_V_DAMAGE)
		r->nr_open++;
	if (r->json || r->html) {
		json_object *j = json_object_new_object();

		json_object_object_add(j, "device", json_object_new_string(e->device));
		json_object_object_add(j, "offset", json_object_new_uint64(e->offset));
		json_object_object_add(j, "length", json_object_new_uint64(e->length));
		json_object_object_add(j, "error", json_object_new_string(e->error));
		json_object_object_add(j, "class", json_object_new_string(e->cls ? e->cls : ""));
		json_object_object_add(j, "verdict", json_object_new_string(scan_verdict_name(v)));
		if (e->latency_ns)
			json_object_object_add(j, "latency_s",
					       json_object_new_double((double)e->latency_ns / 1e9));
		json_object_object_add(j, "state", json_object_new_string(
			e->unallocated ? "unallocated" : e->cleared ? "cleared" : "open"));
		json_object_object_add(j, "new", json_object_new_boolean(is_new));
		json_object_object_add(j, "first_seen", json_object_new_int64(e->first_seen));
		json_object_object_add(j, "last_seen", json_object_new_int64(e->last_seen));
		json_object_object_add(j, "times_seen", json_object_new_int((int)e->times_seen));
		json_object_object_add(j, "first_pass", json_object_new_int64(e->first_pass_id));
		if (e->cleared)
			json_object_object_add(j, "cleared", json_object_new_int64(e->cleared_at));
		json_object_object_add(j, "owners", json_object_get(owners));
		json_object_object_add(j, "action", json_object_new_string(action));
		json_object_array_add(r->errors, j);
		if (r->json) {
			json_object_put(owners);
			return 0;
		}
	}
	/* the store's text is untrusted like any file: escaped as everywhere else */
	printf("  %-7s %s offset %llu length %llu %s%s%s, first seen %s, last seen %s, %u pass%s\n",
	       e->unallocated ? "gone"
	       : e->cleared   ? "cleared"
	       : is_new	      ? "NEW"
			      : "open",
	       report_escape(e->device ? e->device : "", dev_esc, sizeof(dev_esc)),
	       (unsigned long long)e->offset, (unsigned long long)e->length,
	       report_escape(e->error ? e->error : "", err_esc, sizeof(err_esc)),
	       v == SCAN_V_DAMAGE ? "" : " ", v == SCAN_V_DAMAGE ? "" : scan_verdict_name(v),
	       report_fmt_time(e->first_seen, a, sizeof(a)),
	       report_fmt_time(e->last_seen, b, sizeof(b)), e->times_seen,
	       e->times_seen == 1 ? "" : "es");
	report_owners_print(stdout, owners);
	if (!e->cleared || e->unallocated)
		printf("          what to do: %s\n", action);
	json_object_put(owners);
	return 0;
}

static int report_target(const struct scan_state_target *t, void *arg)
{
	struct report_ctx *r = arg;
	struct stat sb;
	char a[64];
	int ret;

	r->t = t;
	/*
	 * New: first seen after the complete pass before the last complete one (so in the last
	 * complete pass, or in the pass running now).
	 */
	r->new_after = t->has_prev_complete ? t->prev_complete.id : 0;
	r->nr_want = 0;
	memset(r->want, 0, sizeof(*r->want) * REPORT_MAX_INODES);
	json_object *rl = NULL, *cd = NULL;
	int nr_rl, nr_cd;

	ret = scan_state_list_errors(r->st, t->id, r->since, r->all, collect_inodes, r);
	if (ret < 0)
		return ret;
	nr_rl = report_rl_hist_json(r->st, t->id, r->since, r->all, &rl);
	if (nr_rl < 0)
		return nr_rl;
	nr_cd = report_cd_hist_json(r->st, t->id, r->all, &cd);
	if (nr_cd < 0) {
		json_object_put(rl);
		return nr_cd;
	}
	if (!ret && !nr_rl && !nr_cd && !r->all && !r->html) {
		json_object_put(rl);
		json_object_put(cd);
		return 0;			/* nothing open: not listed (the page shows it) */
	}
	ret += nr_rl + nr_cd;
	nr_rl += nr_cd;
	r->fs_here = target_here(t);
	if (r->nr_want && r->fs_here && stat(t->path, &sb) == 0 && S_ISDIR(sb.st_mode))
		map_paths_resolve(t->path, r->want, r->nr_want, NULL);
	if (r->json || r->html) {
		json_object *j = json_object_new_object();

		r->errors = json_object_new_array();
		json_object_object_add(j, "path", json_object_new_string(t->path));
		json_object_object_add(j, "fs_type", json_object_new_string(t->fs_type));
		json_object_object_add(j, "open_errors", json_object_new_int((int)t->open_errors));
		json_object_object_add(j, "cleared_errors",
				       json_object_new_int((int)t->cleared_errors));
		json_object_object_add(j, "last_complete_pass", t->has_complete ?
				       json_object_new_int64(t->last_complete.ended) : NULL);
		json_object_object_add(j, "open_redundancy_lost",
				       json_object_new_int((int)t->open_redundancy_lost));
		json_object_object_add(j, "errors", r->errors);
		json_object_object_add(j, "redundancy_lost", json_object_get(rl));
		json_object_object_add(j, "open_copies_differ",
				       json_object_new_int((int)t->open_copies_differ));
		json_object_object_add(j, "copies_differ", json_object_get(cd));
		r->target_json = j;
	}
	if (!r->json && (ret || r->all)) {
		char pe[PATH_MAX * 4], fe[256];

		printf("%s (%s): %u open damaged range%s, %u cleared; last complete pass %s\n",
		       report_escape(t->path ? t->path : "", pe, sizeof(pe)),
		       report_escape(t->fs_type ? t->fs_type : "", fe, sizeof(fe)), t->open_errors,
		       t->open_errors == 1 ? "" : "s",
		       t->cleared_errors, t->has_complete ?
		       report_fmt_time(t->last_complete.ended, a, sizeof(a)) : "none yet");
		if (t->open_redundancy_lost)
			printf("  %u member range%s lost redundancy (at risk, not lost)\n",
			       t->open_redundancy_lost, t->open_redundancy_lost == 1 ? "" : "s");
		if (t->open_copies_differ)
			printf("  %u run%s whose copies differ (silent corruption: which files, "
			       "which copy below)\n", t->open_copies_differ,
			       t->open_copies_differ == 1 ? "" : "s");
	}
	ret = scan_state_list_errors(r->st, t->id, r->since, r->all, report_error, r);
	if (ret >= 0 && !r->json) {
		report_rl_hist_print(stdout, rl);
		report_cd_hist_print(stdout, cd);
	}
	json_object_put(rl);
	json_object_put(cd);
	map_paths_free(r->want, r->nr_want);
	if (ret >= 0 && r->html)
		ret = report_html_add_history(r->html, r->st, t, r->target_json);
	if (r->target_json && r->json && (json_object_array_length(r->errors) || nr_rl || r->all))
		json_object_array_add(r->targets, r->target_json);
	else
		json_object_put(r->target_json);
	r->target_json = NULL;
	return ret < 0 ? ret : 0;
}

/* What the command line of `mediascan report` asked. */
struct report_args {
	const char *json, *html, *state_dir, *config;
	int64_t since;
	int all;
};

#define F(field) offsetof(struct report_args, field)

static const struct cli_opt report_opts[] = {
	CLI_OPT_JSON(F(json), "write the answer as JSON (schema mediascan-history/1)"),
	{ .name = "html", .type = CLI_OPT_FILE, .arg = "FILE|-", .off = F(html),
	  .help = "also write it as one HTML page: a surface map per device, damaged files and "
		  "metadata, the passes" },
	{ .name = "since", .type = CLI_OPT_SINCE, .arg = "DATE", .off = F(since),
	  .hint = "give YYYY-MM-DD, 'YYYY-MM-DD HH:MM', @UNIXTIME or a duration ago such as 7d",
	  .help = "only errors seen since DATE (YYYY-MM-DD, @UNIXTIME, 7d)" },
	{ .name = "all", .type = CLI_OPT_FLAG, .off = F(all),
	  .help = "cleared errors too" },
	CLI_OPT_STATE_DIR(F(state_dir)),
	CLI_OPT_CONFIG(F(config)),
};

const struct cli_opts cli_report_opts = {
	.cmd = "report",
	.opts = report_opts,
	.nr = sizeof(report_opts) / sizeof(report_opts[0]),
	.synopsis = "usage: mediascan report [--json FILE|-] [--html FILE|-] [--since DATE] [--all] "
		    "[--state-dir DIR] [--config FILE]\n"
		    "  open damage per target, newest first; NEW: first seen since the previous "
		    "pass\n"
		    "options:\n",
};

int cli_report_main(int argc, char **argv)
{
	struct report_ctx r = { 0 };
	struct report_html html = { .title = "mediascan: damage report from the history" };
	struct report_args ra = { 0 };
	const char *state_dir, *config, *html_path;
	int ret;

	ret = cli_opts_parse(&cli_report_opts, argc, argv, &ra);
	if (ret)
		return ret == 1 ? 0 : ret;
	r.json = ra.json != NULL;
	r.json_path = ra.json;
	r.all = ra.all;
	r.since = ra.since;
	html_path = ra.html;
	if (html_path)
		r.html = &html;
	state_dir = ra.state_dir;
	config = ra.config;
	if (optind != argc) {
		report_err("report: unexpected argument '%s'", argv[optind]);
		return REPORT_EXIT_USAGE;
	}
	if (html_path && r.json && strcmp(html_path, "-") == 0 && strcmp(r.json_path, "-") == 0) {
		report_err(
		    "report: --json - and --html - both name stdout: give one of them a FILE");
		return REPORT_EXIT_USAGE;
	}
	if (html_path && strcmp(html_path, "-") == 0)
		r.json = 1;			/* no text on stdout: it holds the page */
	ret = report_out_refuse("report", "--html", html_path);
	if (!ret)
		ret = report_out_refuse("report", "--json", r.json ? r.json_path : NULL);
	if (ret)
		return ret;
	ret = cli_history_open(state_dir, config, &r.st);
	if (ret == -ENOENT && !html_path) {
		/* No state store: no history yet, nothing open; an answer, not an error. */
		if (r.json) {
			json_object *doc = json_object_new_object();

			json_object_object_add(doc, "schema",
					       json_object_new_string("mediascan-history/1"));
			json_object_object_add(doc, "targets", json_object_new_array());
			ret = report_json_write(doc, r.json_path);
			json_object_put(doc);
			if (ret < 0) {
				report_err("report: cannot write %s: %s", r.json_path,
					report_create_error(ret));
				return REPORT_EXIT_OPERATIONAL;
			}
		} else {
			printf("no history yet: no target scanned\n");
		}
		return 0;
	}
	if (ret == -ENOENT) {
		report_err("report: no state store: nothing scanned yet (or give --state-dir)");
		return REPORT_EXIT_OPERATIONAL;
	}
	if (ret < 0)
		return ret == -EINVAL ? REPORT_EXIT_USAGE : REPORT_EXIT_OPERATIONAL;
	r.want = calloc(REPORT_MAX_INODES, sizeof(*r.want));
	r.targets = json_object_new_array();
	if (!r.want) {
		scan_state_close(r.st);
		return REPORT_EXIT_OPERATIONAL;
	}
	ret = scan_state_list_targets(r.st, report_target, &r);
	scan_state_close(r.st);
	free(r.want);
	if (ret < 0) {
		json_object_put(r.targets);
		report_html_free(&html);
		report_err("report: reading the state store failed: %s", strerror(-ret));
		return REPORT_EXIT_OPERATIONAL;
	}
	if (html_path) {
		html.generated = (int64_t)time(NULL);
		ret = report_html_save(&html, html_path);
		report_html_free(&html);
		if (ret < 0) {
			json_object_put(r.targets);
			report_err("report: cannot write %s: %s", html_path,
				   report_create_error(ret));
			return REPORT_EXIT_OPERATIONAL;
		}
	}
	if (r.json && r.json_path) {
		json_object *doc = json_object_new_object();

		json_object_object_add(doc, "schema", json_object_new_string("mediascan-history/1"));
		json_object_object_add(doc, "generated", json_object_new_int64((int64_t)time(NULL)));
		json_object_object_add(doc, "targets", r.targets);
		ret = report_json_write(doc, r.json_path);
		json_object_put(doc);
		if (ret < 0) {
			report_err("report: cannot write %s: %s", r.json_path,
				   report_create_error(ret));
			return REPORT_EXIT_OPERATIONAL;
		}
	} else {
		json_object_put(r.targets);
		if (!r.nr_open && !r.json)
			printf("no open damage\n");
	}
	return r.nr_open ? REPORT_EXIT_MEDIA : 0;
}
