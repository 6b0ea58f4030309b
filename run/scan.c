/*
 * run/scan.c - the output hooks of a pass (pass/pass.h) as `mediascan scan` and patrol's runs
 * fill them in with report/'s writers: messages, the banner and progress, the JSON report and
 * the owners kept in the history, journal events and the on_damage command (hook.c) for damage
 * not told before, and the human summary or the xfs_scrub-shaped error lines of --format
 * xfs_scrub. run_scan turns the command line's options into the pass's and runs it.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <json-c/json.h>

#include "report.h"
#include "files.h"
#include "map_compare.h"
#include "journal.h"
#include "map_stack.h"
#include "escape.h"
#include "run.h"
#include "state.h"
#include "units.h"

static const char *first_path(const struct pass_report *rep, uint64_t inode)
{
	const struct map_inode_paths *p = map_damage_paths(&rep->dmg, inode);

	return p && p->nr_paths ? p->paths[0] : NULL;
}

/* Journal events for error i: the bad range, then each file that lost data in it. */
static void journal_error(const struct run_cfg *cfg, const struct pass_report *rep,
			  size_t i, int64_t pass_id)
{
	const struct scan_error *e = &rep->r->errors[i];
	const char *dev = rep->t->devices[e->dev_idx].path;
	const char *label = cfg->pass.label ? cfg->pass.label : cfg->pass.target;
	char msg[PATH_MAX + 256];
	struct report_event ev = {
		.type = REPORT_EV_MEDIA_ERROR, .message = msg, .target = label, .device = dev,
		.has_range = 1, .offset = e->offset, .length = e->length,
		.error = scan_error_name(e), .pass_id = pass_id,
	};

	snprintf(msg, sizeof(msg), "%s: media error (%s) on %s at offset %" PRIu64 " length %"
		 PRIu64, label, ev.error, dev, e->offset, e->length);
	report_journal_send(&ev);
	for (size_t k = 0; k < rep->own_count[i]; k++) {
		const struct map_owner *o = &rep->dmg.owners[rep->own_first[i] + k];
		const char *path;
		char ino[64];

		if (o->kind != MAP_OWN_FILE || (o->flags & MAP_OWNF_UNWRITTEN))
			continue;
		path = first_path(rep, o->inode);
		if (!path) {
			snprintf(ino, sizeof(ino), "inode %" PRIu64, o->inode);
			path = ino;
		}
		ev.type = REPORT_EV_DAMAGED_FILE;
		ev.offset = o->dev_offset;
		ev.length = o->length;
		ev.path = path;
		ev.has_file_range = 1;
		ev.file_offset = o->file_offset;
		ev.file_length = o->length;
		snprintf(msg, sizeof(msg), "%s: damaged file %s at file offset %" PRIu64
			 " length %" PRIu64 ": restore it from backup", label, path,
			 o->file_offset, o->length);
		report_journal_send(&ev);
	}
}

/* Say why on_damage (result ret of run_hook) did not succeed, and what happens next. */
static void hook_warn(const struct run_cfg *cfg, int ret, unsigned nr)
{
	char why[64];

	if (ret == 0)
		return;
	if (ret == -ETIMEDOUT)
		snprintf(why, sizeof(why), "timed out after %.0fs and was killed",
			 cfg->hook_timeout_s > 0 ? cfg->hook_timeout_s : RUN_HOOK_TIMEOUT_DEFAULT_S);
	else if (ret == -EINTR)
		snprintf(why, sizeof(why), "was stopped: mediascan is stopping");
	else if (ret < 0)
		snprintf(why, sizeof(why), "could not run: %s", strerror(-ret));
	else if (ret > 128)
		snprintf(why, sizeof(why), "was killed by signal %d", ret - 128);
	else
		snprintf(why, sizeof(why), "failed with exit status %d", ret);
	report_err("warning: on_damage %s: %s; its %u damaged range%s stay%s untold and %s offered "
		"again on the next run", why, cfg->on_damage, nr, nr == 1 ? "" : "s",
		nr == 1 ? "s" : "", nr == 1 ? "is" : "are");
}

/* The JSON handed to on_damage: schema mediascan-damage/1. */
static json_object *damage_doc(const struct run_cfg *cfg, const struct pass_report *rep,
			       int64_t pass_id, json_object *errors)
{
	json_object *j = json_object_new_object();
	char host[256] = "";

	gethostname(host, sizeof(host) - 1);
	json_object_object_add(j, "schema", json_object_new_string("mediascan-damage/1"));
	json_object_object_add(j, "host", json_object_new_string(host));
	json_object_object_add(j, "target", json_object_new_string(
		cfg->pass.label ? cfg->pass.label : cfg->pass.target));
	json_object_object_add(j, "path", json_object_new_string(
		rep->t->mount_point[0] ? rep->t->mount_point : rep->t->arg));
	json_object_object_add(j, "pass_id", json_object_new_int64(pass_id));
	json_object_object_add(j, "time", json_object_new_int64((int64_t)time(NULL)));
	json_object_object_add(j, "action", json_object_new_string(
		"restore the damaged files from backup; see `mediascan report`"));
	json_object_object_add(j, "media_errors", errors);
	return j;
}

/* What the hooks of one `mediascan scan` (or patrol run) know: its options and the bar. */
struct run_hooks {
	const struct run_cfg *cfg;
	int human;			/* the human report goes to stdout */
	struct report_progress pr;
};

static void hook_say(void *arg, enum pass_say kind, const char *msg)
{
	const struct run_hooks *c = arg;

	switch (kind) {
	case PASS_SAY_ERROR:
		report_err("%s", msg);
		break;
	case PASS_SAY_NOTE:
		if (!c->cfg->quiet)
			report_err("%s", msg);
		break;
	case PASS_SAY_INFO:
		if (!c->cfg->quiet)
			printf("%s\n", msg);
		break;
	case PASS_SAY_HUMAN:
		if (c->human)
			printf("%s\n", msg);
		break;
	}
}

/* Human: what is about to be read, on one line. */
static void hook_begin(void *arg, const struct pass_begin *b)
{
	const struct run_hooks *c = arg;
	const struct map_target *t = b->t;
	char sz[32], rb[32];

	if (!c->human)
		return;
	printf("mediascan: %s %s (%s", b->resumed ? "resuming" : b->recheck ?
	       "rechecking the open errors of" : "scanning",
	       t->mount_point[0] ? t->mount_point : t->arg, t->fs_type);
	for (unsigned i = 0; i < t->nr_devices; i++)
		printf("%s %s %s", i ? "," : " on", map_role_name(t->devices[i].role),
		       t->devices[i].path);
	printf("): %s planned", report_fmt_bytes(b->planned_bytes, sz, sizeof(sz)));
	if (b->resumed)
		printf(", %s already read", report_fmt_bytes(b->scanned_base, sz, sizeof(sz)));
	printf(", method %s", b->method);
	if (b->rate)
		printf(", rate %s/s", report_fmt_bytes(b->rate, rb, sizeof(rb)));
	if (b->window_s) {
		char w[32];

		printf(", window %s", report_fmt_duration(b->window_s, w, sizeof(w)));
	}
	printf("\n");
	fflush(stdout);
}

static void hook_progress(const struct scan_progress *p, void *arg)
{
	struct run_hooks *c = arg;

	report_progress_cb(p, &c->pr);
}

static void hook_progress_done(void *arg)
{
	struct run_hooks *c = arg;

	report_progress_done(&c->pr);
}

static int hook_json(void *arg, const struct pass_report *rep)
{
	const struct run_hooks *c = arg;
	int ret = report_write_json(rep, c->cfg->json);

	if (ret < 0)
		report_err("cannot write the JSON report to %s: %s", c->cfg->json,
			report_create_error(ret));
	return ret;
}

static int hook_html(void *arg, const struct pass_report *rep)
{
	const struct run_hooks *c = arg;

	return report_html_write(rep, c->cfg->html);	/* said why (report/html.c) */
}

/* Append to a the owners of redundancy-lost range i's JSON ej and those of the other volumes
 * of a thin block (each with the volume it is seen through: the history keeps one list);
 * member: scan MEMBER_DISK, whose own owners get their volume too. */
static void rl_owners_into(json_object *ej, json_object *a, int member)
{
	json_object *v = NULL, *sw = NULL, *stk = NULL, *top = NULL;

	/* scan MEMBER_DISK: the filesystem naming them is the one on top of the stack */
	if (member && json_object_object_get_ex(ej, "stack", &stk) &&
	    json_object_array_length(stk) > 1)
		json_object_object_get_ex(json_object_array_get_idx(stk,
			json_object_array_length(stk) - 1), "device", &top);
	if (json_object_object_get_ex(ej, "owners", &v))
		for (size_t o = 0; o < json_object_array_length(v); o++) {
			json_object *w = json_object_array_get_idx(v, o);

			if (top)
				json_object_object_add(w, "volume", json_object_get(top));
			json_object_array_add(a, json_object_get(w));
		}
	if (!json_object_object_get_ex(ej, "shared_with", &sw))
		return;
	for (size_t k = 0; k < json_object_array_length(sw); k++) {
		json_object *x = json_object_array_get_idx(sw, k), *own, *dev;

		if (!json_object_object_get_ex(x, "owners", &own) ||
		    !json_object_object_get_ex(x, "device", &dev))
			continue;
		for (size_t o = 0; o < json_object_array_length(own); o++) {
			json_object *w = json_object_array_get_idx(own, o);

			json_object_object_add(w, "volume", json_object_get(dev));
			json_object_array_add(a, json_object_get(w));
		}
	}
}

static char *json_plain_dup(json_object *j)
{
	return strdup(json_object_to_json_string_ext(j, JSON_C_TO_STRING_PLAIN |
						     JSON_C_TO_STRING_NOSLASHESCAPE));
}

/* scan MEMBER_DISK: error i's owners are those the stacks above name for the ranges it
 * holds (every volume's of a thin block); NULL when no range holds it. */
static char *member_owners_json(const struct pass_report *rep, size_t i)
{
	const struct pass_stack *ps = rep->stack;
	const struct scan_error *e = &rep->r->errors[i];
	json_object *a = NULL;
	char *s;

	for (size_t k = 0; k < ps->nr_rl; k++) {
		const struct pass_stack_rl *x = &ps->rl[k];
		json_object *ej;

		if (x->offset >= e->offset + e->length || e->offset >= x->offset + x->length)
			continue;
		if (!a)
			a = json_object_new_array();
		ej = report_stack_rl_json(rep, k);
		rl_owners_into(ej, a, 1);
		json_object_put(ej);
	}
	if (!a)
		return NULL;
	s = json_plain_dup(a);
	json_object_put(a);
	return s;
}

/* The owners of error i as media_errors[].owners says them, for the history. */
static char *hook_owners_json(void *arg, const struct pass_report *rep, size_t i)
{
	json_object *ej, *owners = NULL;
	char *s;

	(void)arg;
	if (rep->stack && rep->stack->member_plan && (s = member_owners_json(rep, i)))
		return s;
	ej = report_error_json(rep, i);
	json_object_object_get_ex(ej, "owners", &owners);
	s = json_plain_dup(owners);
	json_object_put(ej);
	return s;
}

static void hook_journal_error(void *arg, const struct pass_report *rep, size_t i,
			       int64_t pass_id)
{
	const struct run_hooks *c = arg;

	journal_error(c->cfg, rep, i, pass_id);
}

/* The owners (copies 0) or the copies (1) of redundancy-lost range i, for the history. */
static char *hook_rl_json(void *arg, const struct pass_report *rep, size_t i, int copies)
{
	json_object *ej = report_stack_rl_json(rep, i), *v = NULL;
	char *s = NULL;

	(void)arg;
	if (copies) {
		if (json_object_object_get_ex(ej, "copies", &v))
			s = json_plain_dup(v);
	} else {
		v = json_object_new_array();
		rl_owners_into(ej, v, 0);
		s = json_plain_dup(v);
		json_object_put(v);
	}
	json_object_put(ej);
	return s;
}

/* Journal: a member range lost its redundancy (one event, member and array named). */
static void hook_journal_rl(void *arg, const struct pass_report *rep, size_t i, int64_t pass_id)
{
	const struct run_hooks *c = arg;
	const struct pass_stack_rl *e = &rep->stack->rl[i];
	const char *label = c->cfg->pass.label ? c->cfg->pass.label : c->cfg->pass.target;
	char msg[PATH_MAX + 1024], array[MAP_STACK_NAME + 8] = "";
	struct scan_error se = { .err = e->err, .cls = SCAN_ERR_MEDIA };
	struct report_event ev = {
		.type = REPORT_EV_REDUNDANCY_LOST, .message = msg, .target = label,
		.device = e->member, .has_range = 1, .offset = e->offset, .length = e->length,
		.error = scan_error_name(&se), .pass_id = pass_id, .member_id = e->member_id,
		.array_uuid = e->array_uuid,
	};

	if (e->array[0]) {
		snprintf(array, sizeof(array), "/dev/%s", e->array);
		ev.array = array;
	}
	snprintf(msg, sizeof(msg), "%s: redundancy lost on %s (%s) at offset %" PRIu64 " length %"
		 PRIu64 "%s%s%s%s: %s", label, e->member, e->member_id, e->offset, e->length,
		 array[0] ? " of " : "", array, e->array_uuid[0] ? " uuid " : "", e->array_uuid,
		 e->lost ? "no copy reads either" : "another copy reads; repair it from the good "
		 "copy");
	report_journal_send(&ev);
}

/* on_damage with the damage document whose key holds arr (n entries) and action: 1 told. */
static int on_damage_with(const struct run_hooks *c, const struct pass_report *rep,
			  int64_t pass_id, const char *key, json_object *arr, unsigned n,
			  const char *action)
{
	json_object *doc = damage_doc(c->cfg, rep, pass_id, json_object_new_array());
	int ret;

	json_object_object_add(doc, "action", json_object_new_string(action));
	json_object_object_add(doc, key, arr);
	ret = run_hook(c->cfg->on_damage, json_object_to_json_string_ext(doc,
			   JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE),
			   c->cfg->hook_timeout_s);
	hook_warn(c->cfg, ret, n);
	json_object_put(doc);
	return ret == 0;
}

/* on_damage for redundancy lost: the same document, its ranges in redundancy_lost[]. */
static int hook_on_rl(void *arg, const struct pass_report *rep, const size_t *idx, unsigned n,
		      int64_t pass_id)
{
	json_object *rl = json_object_new_array();

	for (unsigned k = 0; k < n; k++)
		json_object_array_add(rl, report_stack_rl_json(rep, idx[k]));
	return on_damage_with(arg, rep, pass_id, "redundancy_lost", rl, n,
			      "a copy failed while another reads: repair each range from the good "
			      "copy (its repair command), then watch or replace the member disk");
}

/* The owners (what 0) or the legs (1) of copies-differ run i, for the history. */
static char *hook_cd_json(void *arg, const struct pass_report *rep, size_t i, int what)
{
	json_object *ej = report_compare_cd_json(rep, i), *v = NULL;
	char *s = NULL;

	(void)arg;
	if (json_object_object_get_ex(ej, what ? "legs" : "owners", &v))
		s = json_plain_dup(v);
	json_object_put(ej);
	return s;
}

/* Journal: an array's copies disagree (one event: the array, the wrong copy if known). */
static void hook_journal_cd(void *arg, const struct pass_report *rep, size_t i, int64_t pass_id)
{
	const struct run_hooks *c = arg;
	const struct pass_stack_cd *e = &rep->stack->cd[i];
	const char *label = c->cfg->pass.label ? c->cfg->pass.label : c->cfg->pass.target;
	char msg[1024], array[MAP_STACK_NAME + 8], dev[MAP_STACK_NAME + 8];
	struct report_event ev = {
		.type = REPORT_EV_COPIES_DIFFER, .message = msg, .target = label, .device = dev,
		.has_range = 1, .offset = e->row.leg[0].offset + e->offset, .length = e->length,
		.pass_id = pass_id, .array = array,
	};

	snprintf(array, sizeof(array), "/dev/%s", e->row.array);
	snprintf(dev, sizeof(dev), "/dev/%s", e->row.leg[e->wrong >= 0 ? e->wrong : 0].name);
	snprintf(msg, sizeof(msg), "%s: copies differ in %s (%s) at offset %" PRIu64 " length %"
		 PRIu64 " of %s: %s%s%s", label, array, e->row.level, ev.offset, e->length,
		 e->row.leg[0].name, e->wrong >= 0 ? "wrong copy on " : "which copy is wrong "
		 "cannot be known", e->wrong >= 0 ? dev : "", e->wrong >= 0 ? "" : "");
	report_journal_send(&ev);
}

/* on_damage for copies that differ: the same document, its runs in copies_differ[]. */
static int hook_on_cd(void *arg, const struct pass_report *rep, const size_t *idx, unsigned n,
		      int64_t pass_id)
{
	json_object *cd = json_object_new_array();

	for (unsigned k = 0; k < n; k++)
		json_object_array_add(cd, report_compare_cd_json(rep, idx[k]));
	return on_damage_with(arg, rep, pass_id, "copies_differ", cd, n,
			      "an array's copies disagree and no read failed: follow each run's "
			      "advice; never a blind md repair, which may copy the wrong one");
}

static void hook_journal_end(void *arg, const struct pass_report *rep, int64_t pass_id,
			     int cleared)
{
	const struct run_hooks *c = arg;
	const struct scan_result *r = rep->r;
	const char *label = c->cfg->pass.label ? c->cfg->pass.label : c->cfg->pass.target;
	char msg[PATH_MAX + 256], sz[32];
	struct report_event ev = {
		.type = r->complete ? REPORT_EV_PASS_COMPLETE : REPORT_EV_SCAN_FAILED,
		.message = msg, .target = label, .pass_id = pass_id,
	};

	if (r->complete)
		snprintf(msg, sizeof(msg), "%s: pass complete, %s read, %u damaged ranges, "
			 "%d cleared since the previous pass", label,
			 report_fmt_bytes(r->scanned_bytes, sz, sizeof(sz)),
			 rep->nr_damage_errors, cleared);
	else
		snprintf(msg, sizeof(msg), "%s: scan failed: %s", label,
			 r->fatal_msg[0] ? r->fatal_msg : strerror(-r->fatal));
	report_journal_send(&ev);
	for (unsigned d = 0; rep->cm && d < rep->cm->nr; d++) {
		const struct vfy_dev *vd = &rep->cm->devs[d];
		struct report_event mt = {
			.type = REPORT_EV_METHOD_UNTRUSTED, .message = msg, .target = label,
			.device = vd->path, .pass_id = pass_id,
		};

		if (vd->trust.state != VFY_TRUST_FAILED && vd->trust.state != VFY_TRUST_VOIDED)
			continue;
		snprintf(msg, sizeof(msg), "%s: the drive-side verify of %s is not trusted (%s): "
			 "%s", label, vd->path, vfy_trust_name(vd->trust.state), vd->trust.why);
		report_journal_send(&mt);
	}
}

/* on_damage: the JSON of the damage not told before on stdin; told when it exits 0. */
static int hook_on_damage(void *arg, const struct pass_report *rep, const size_t *idx,
			  unsigned n, int64_t pass_id)
{
	const struct run_hooks *c = arg;
	json_object *fresh = json_object_new_array(), *doc;
	int ret;

	for (unsigned k = 0; k < n; k++)
		json_object_array_add(fresh, report_error_json(rep, idx[k]));
	doc = damage_doc(c->cfg, rep, pass_id, fresh);
	ret = run_hook(c->cfg->on_damage, json_object_to_json_string_ext(doc,
			   JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE),
			   c->cfg->hook_timeout_s);
	hook_warn(c->cfg, ret, n);
	json_object_put(doc);
	return ret == 0;
}

static void hook_human(void *arg, const struct pass_report *rep)
{
	const struct run_hooks *c = arg;

	if (c->cfg->format && strcmp(c->cfg->format, "xfs_scrub") == 0)
		report_print_xfs_scrub(rep, stderr);
	else if (c->human)
		report_print(rep, stdout);
}

int run_scan(const struct run_cfg *a)
{
	struct run_hooks c = { .cfg = a };
	struct pass_hooks h = {
		.arg = &c, .say = hook_say, .begin = hook_begin, .progress = hook_progress,
		.progress_done = hook_progress_done, .owners_json = hook_owners_json,
		.rl_json = hook_rl_json, .cd_json = hook_cd_json, .human = hook_human,
	};

	/* a report that cannot be written is refused before the first read, not lost after */
	if (report_out_refuse("scan", "--json", a->json) ||
	    report_out_refuse("scan", "--html", a->html))
		return REPORT_EXIT_USAGE;
	c.human = !a->quiet && !(a->json && strcmp(a->json, "-") == 0);
	c.pr.enabled = strcmp(a->progress, "log") == 0 ? 2 :
		       (strcmp(a->progress, "bar") == 0 ||
			(strcmp(a->progress, "auto") == 0 && isatty(STDERR_FILENO)));
	if (a->json)
		h.json = hook_json;
	if (a->html)
		h.html = hook_html;
	if (a->journal) {
		h.journal_error = hook_journal_error;
		h.journal_end = hook_journal_end;
		h.journal_rl = hook_journal_rl;
		h.journal_cd = hook_journal_cd;
	}
	if (a->on_damage) {
		h.on_damage = hook_on_damage;
		h.on_redundancy_lost = hook_on_rl;
		h.on_copies_differ = hook_on_cd;
	}
	return pass_run(&a->pass, &h);
}
