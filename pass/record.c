/*
 * pass/record.c - the record stage: the pass in the state store. Before the scan: the
 * target's key, its open errors (what a clean read may clear), a new pass or the interrupted
 * one resumed; during it: checkpoints; after it: the pass's end, owners stored with each error,
 * open errors settled, and damage marked told once the journal and on_damage hooks told it.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "pass_int.h"

#define PASS_CHECKPOINT_INTERVAL_NS 5000000000ull	/* after SIGKILL at most this much is re-read */
#define PASS_CHECKPOINT_RETRIES 2	/* last tries of a refused final checkpoint (busy: 5 s each) */

/* The key under which the state store knows this target (mapping/target/target.c: UUID, WWN...). */
void pass_target_key(const struct map_target *t, char *key, size_t len)
{
	char legacy[8192];

	map_target_key(t, key, len, legacy, sizeof(legacy));
}

/* What error rows name device d by: its key (role or disk identity), else its path. */
static const char *dev_key(const struct map_target *t, unsigned d)
{
	return map_device_key(&t->devices[d]);
}

/* Return the index of the device a history row names (its key, or an old row's path). */
static int dev_of_row(const struct map_target *t, const char *device)
{
	for (unsigned d = 0; d < t->nr_devices; d++)
		if (strcmp(dev_key(t, d), device) == 0 || strcmp(t->devices[d].path, device) == 0)
			return (int)d;
	return -1;
}

/* Keep one open error of the history as a range the scan watches. */
static int on_open_error(const struct scan_state_open_error *e, void *arg)
{
	struct pass_record *k = arg;

	int d = dev_of_row(k->t, e->device);

	if (d >= 0) {
		if (k->nr_watch == k->cap_watch) {
			size_t cap = k->cap_watch ? k->cap_watch * 2 : 16;
			struct scan_watch *w = realloc(k->watch, cap * sizeof(*w));
			int64_t *ids;

			if (!w)
				return -ENOMEM;
			k->watch = w;
			ids = realloc(k->watch_ids, cap * sizeof(*ids));
			if (!ids)
				return -ENOMEM;
			k->watch_ids = ids;
			k->cap_watch = cap;
		}
		k->watch[k->nr_watch] = (struct scan_watch){
			.dev_idx = (uint32_t)d, .offset = e->offset, .length = e->length,
		};
		k->watch_ids[k->nr_watch++] = e->id;
		return 0;
	}
	return 0;			/* a device no longer part of the target: left open */
}

static int cmp_watch(const void *a, const void *b)
{
	const struct scan_watch *x = a, *y = b;

	if (x->dev_idx != y->dev_idx)
		return x->dev_idx < y->dev_idx ? -1 : 1;
	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

/*
 * Load the open errors of key as watched ranges (sorted by device and offset, ids kept in
 * the same order). Return 0 or -errno.
 */
static int load_watch(struct pass_record *k, const char *key)
{
	int ret = scan_state_open_errors(k->st, key, on_open_error, k);

	if (ret < 0)
		return ret;
	/* The store answers by device path then offset; sort by device index, ids along. */
	for (size_t i = 1; i < k->nr_watch; i++) {
		struct scan_watch w = k->watch[i];
		int64_t id = k->watch_ids[i];
		size_t j = i;

		for (; j > 0 && cmp_watch(&k->watch[j - 1], &w) > 0; j--) {
			k->watch[j] = k->watch[j - 1];
			k->watch_ids[j] = k->watch_ids[j - 1];
		}
		k->watch[j] = w;
		k->watch_ids[j] = id;
	}
	return 0;
}

/*
 * What this run says of each watched open error (only a complete pass settles them): every
 * byte read cleanly, cleared; not read at all (not in the plan: free now, or preallocated),
 * no longer allocated; partly read or not read in this run of a resumed pass, still open.
 * An error this pass saw fail again is never settled (the store checks). Return the
 * outcomes (n of them) or NULL.
 */
static struct scan_state_outcome *settle_outcomes(const struct pass_record *k,
						  const struct scan_opts *so, int resumed,
						  int recheck)
{
	struct scan_state_outcome *v = calloc(k->nr_watch + 1, sizeof(*v));

	for (size_t i = 0; v && i < k->nr_watch; i++) {
		const struct scan_watch *w = &k->watch[i];

		v[i].id = k->watch_ids[i];
		if (w->clean_bytes >= w->length)
			v[i].how = SCAN_SETTLE_READ_CLEAN;
		else if (w->clean_bytes == 0 && !recheck &&
			 !(resumed && w->offset < so->start_cursor[w->dev_idx]))
			v[i].how = SCAN_SETTLE_UNALLOCATED;
		else
			v[i].how = SCAN_SETTLE_KEEP;
	}
	return v;
}

/* The owners of the damage one checkpoint brings, mapped before it is stored. */
struct ck_owners {
	struct scan_result r;		/* the damage, coalesced */
	char **json;			/* per error of r: its owners (NULL: none to store) */
};

/*
 * Map the owners of damage found since the last checkpoint, before the checkpoint stores it,
 * so that they are stored right after it: the history (status, report, the metrics' damaged
 * files) names the files while the pass runs, not only once it ends, and a reader between the
 * two sees open ranges without files for no longer than two statements. The end of the pass
 * maps every error again and stores what it finds.
 */
static void checkpoint_owners_map(struct pass_record *k, const struct scan_checkpoint *c,
				  struct ck_owners *o)
{
	struct pass_report rep;

	memset(o, 0, sizeof(*o));
	if (!k->h->owners_json || c->final)
		return;
	for (size_t i = 0; i < c->nr_new_errors; i++)
		if (scan_is_damage(&c->new_errors[i]) && scan_result_add(&o->r, &c->new_errors[i]) < 0)
			break;
	if (!o->r.nr_errors)
		return;
	memset(&rep, 0, sizeof(rep));
	rep.t = (struct map_target *)k->t;	/* mapping only reads it */
	rep.r = &o->r;
	rep.method = "";
	o->json = calloc(o->r.nr_errors, sizeof(*o->json));
	if (o->json && pass_map(&rep) == 0)
		for (size_t i = 0; i < o->r.nr_errors; i++)
			if (scan_is_damage(&o->r.errors[i]))
				o->json[i] = k->h->owners_json(k->h->arg, &rep, i);
	pass_report_free(&rep);
}

/* Store (when the checkpoint was saved) and free what checkpoint_owners_map found. */
static void checkpoint_owners_store(struct pass_record *k, struct ck_owners *o, int saved)
{
	for (size_t i = 0; o->json && i < o->r.nr_errors; i++) {
		const struct scan_error *e = &o->r.errors[i];

		if (saved && o->json[i])
			scan_state_set_owners_range(k->st, k->pass_id, dev_key(k->t, e->dev_idx),
						    e->offset, e->length, o->json[i]);
		free(o->json[i]);
	}
	free(o->json);
	scan_result_free(&o->r);
}

/* Seconds from now, as unix seconds (0 when unknown). */
static int64_t record_at(time_t now, double in_s)
{
	return (int64_t)now + (int64_t)(in_s + (in_s < 0 ? -0.5 : 0.5));
}

/*
 * The pass's pace against its window, for status and the metrics: said at every checkpoint
 * while it runs (a pace the store refuses is said again at the next; the scan goes on).
 */
static void record_pace(struct pass_record *k, const struct scan_checkpoint *c)
{
	time_t now = time(NULL);
	int64_t wend = 0, pend = 0, since = 0;

	if (c->final)
		return;				/* the pass's end says the rest */
	if (c->has_window)
		wend = record_at(now, c->window_end_in_s);
	if (c->projected_end_in_s > 0)
		pend = record_at(now, c->projected_end_in_s);
	if (c->window_late)
		since = record_at(now, c->window_late_for_s > 0 ? -c->window_late_for_s : 0);
	if (wend < 0 || pend < 0 || since < 0)
		return;
	(void)scan_state_pass_pace(k->st, k->pass_id, wend, pend, since);
}

static int on_checkpoint(const struct scan_checkpoint *c, void *arg)
{
	struct pass_record *k = arg;
	struct ck_owners own;
	int ret;

	checkpoint_owners_map(k, c, &own);
	record_pace(k, c);
	ret = scan_state_checkpoint(k->st, k->pass_id, c->cursor, c->nr_devs, c->scanned_bytes,
				    c->new_errors, c->nr_new_errors, k->dev_keys);
	checkpoint_owners_store(k, &own, ret == 0);

	/* Kept for pass_record_unsaved's last try. */
	k->nr_cursor = c->nr_devs < MAP_MAX_DEVICES ? c->nr_devs : MAP_MAX_DEVICES;
	memcpy(k->cursor, c->cursor, k->nr_cursor * sizeof(*k->cursor));
	k->scanned_bytes = c->scanned_bytes;

	if (ret < 0 && !k->warned) {
		/*
		 * A full /var or a busy store must not stop a media scan: warn once, keep
		 * scanning. The errors stay pending (the failure is returned): the next
		 * checkpoint takes them; if the last one fails too, the pass settles nothing.
		 */
		pass_say(k->h, PASS_SAY_ERROR, "warning: checkpoint not saved (%s): %s; its "
			 "errors are kept for the next one", strerror(-ret),
			 scan_state_errmsg(k->st));
		k->warned = 1;
	}
	return ret;
}

struct load_ctx {
	struct scan_result *r;
	const struct map_target *t;
	const uint64_t *cursor;
};

/* Keep an error found before the interruption when its range lies below the cursor. */
static int on_loaded_error(const struct scan_error *e, const char *device, void *arg)
{
	struct load_ctx *l = arg;
	struct scan_error copy = *e;
	int d = dev_of_row(l->t, device);

	if (d < 0)
		return 0;			/* a device no longer part of the target */
	if (e->offset >= l->cursor[d])
		return 0;			/* will be read again in this run */
	copy.dev_idx = (uint32_t)d;
	return scan_result_add(l->r, &copy);
}

int pass_check_state_dir(const char *dir, char *why, size_t len)
{
	struct stat sb;

	if (stat(dir, &sb) < 0) {
		if (errno == ENOENT)
			return 0;	/* created 0700 by the state store */
		snprintf(why, len, "state directory %s: %s", dir, strerror(errno));
		return -errno;
	}
	if (!S_ISDIR(sb.st_mode)) {
		snprintf(why, len, "state directory %s is not a directory", dir);
		return -ENOTDIR;
	}
	if (sb.st_uid != geteuid() && sb.st_uid != 0) {
		snprintf(why, len, "state directory %s is owned by uid %u, not by us or root: "
			 "its history could be forged (chown it, or give another --state-dir)",
			 dir, (unsigned)sb.st_uid);
		return -EPERM;
	}
	if (sb.st_mode & (S_IWGRP | S_IWOTH)) {
		snprintf(why, len, "state directory %s is writable by %s (mode %04o): its history "
			 "could be forged or replaced (chmod go-w it)", dir,
			 sb.st_mode & S_IWOTH ? "everyone" : "its group",
			 (unsigned)(sb.st_mode & 07777));
		return -EPERM;
	}
	return 0;
}

int pass_record_begin(struct pass_record *k, const struct pass_opts *a, const struct map_target *t,
		      const struct vfy_ops *method, struct scan_opts *so, struct map_plan_opts *po,
		      struct scan_result *r, int *resumed)
{
	char warn[512] = "", *key = k->key, legacy[8192];
	const char *dev_paths[MAP_MAX_DEVICES];
	uint64_t cursor[MAP_MAX_DEVICES] = { 0 };
	struct scan_state_pass pass;
	int ret;

	*resumed = 0;
	/* The store steers what is read and reported: its directory must be root's alone. */
	ret = pass_check_state_dir(a->state_dir, warn, sizeof(warn));
	if (ret < 0) {
		pass_say(k->h, PASS_SAY_ERROR, "%s", warn);
		return ret;
	}
	ret = scan_state_open(a->state_dir, &k->st, warn, sizeof(warn));
	if (warn[0])
		pass_say(k->h, PASS_SAY_ERROR, "warning: %s", warn);
	if (ret < 0)
		return ret;
	ret = map_target_key(t, key, sizeof(k->key), legacy, sizeof(legacy));
	if (ret == -ENOENT)
		pass_say(k->h, PASS_SAY_NOTE, "note: %s has no stable identity (no WWN, serial or "
			 "backing file): its history is kept under its kernel name, which can "
			 "change at boot", t->devices[0].path);
	/* History kept under kernel names by older versions moves to the stable key. */
	if (scan_state_adopt_key(k->st, key, legacy) < 0)
		pass_say(k->h, PASS_SAY_ERROR, "warning: the history under the old key %s was not "
			 "moved: %s", legacy, scan_state_errmsg(k->st));
	k->t = t;
	for (unsigned d = 0; d < t->nr_devices; d++) {
		k->dev_keys[d] = dev_key(t, d);
		dev_paths[d] = t->devices[d].path;
	}
	ret = scan_state_set_devices(k->st, k->dev_keys, dev_paths, t->nr_devices);
	if (ret < 0)
		return ret;
	ret = load_watch(k, key);
	if (ret < 0)
		return ret;
	so->watch = k->watch;
	so->nr_watch = k->nr_watch;
	if (a->recheck && !k->nr_watch)
		return -ENOENT;			/* nothing to recheck: no pass is begun */
	if (a->resume) {
		ret = scan_state_find_resumable(k->st, key, &k->pass_id, cursor, t->nr_devices);
		if (ret < 0)
			return ret;
		if (ret == 1) {
			ret = scan_state_resume(k->st, k->pass_id);
			if (ret < 0)
				return ret;
			if (scan_state_get_pass(k->st, k->pass_id, &pass) == 0) {
				so->scanned_base = pass.scanned_bytes;
				k->pass_started = pass.started;
			}
			for (unsigned d = 0; d < t->nr_devices; d++) {
				po->start_offset[d] = cursor[d];
				so->start_cursor[d] = cursor[d];
			}
			struct load_ctx l = { .r = r, .t = t, .cursor = cursor };
			ret = scan_state_load_errors(k->st, k->pass_id, on_loaded_error, &l);
			if (ret < 0)
				return ret;
			*resumed = 1;
			return 0;
		}
		pass_say(k->h, PASS_SAY_INFO, "mediascan: no interrupted pass of %s to resume; "
			 "starting a new pass", a->target);
	}
	if (a->recheck) {
		so->planned_total = 0;
		for (size_t i = 0; i < k->nr_watch; i++)
			so->planned_total += k->watch[i].length;
	}
	return scan_state_begin_pass(k->st, key, t->mount_point[0] ? t->mount_point : t->arg,
				     t->fs_type, so->planned_total, method->name,
				     a->engine ? a->engine : "auto", a->recheck, &k->pass_id);
}

void pass_record_checkpoints(struct pass_record *k, struct scan_opts *so)
{
	so->checkpoint = on_checkpoint;
	so->checkpoint_arg = k;
	so->checkpoint_interval_ns = PASS_CHECKPOINT_INTERVAL_NS;
}

void pass_record_end_cursor(struct pass_record *k, const struct map_target *t,
			    const struct scan_result *r, uint64_t top)
{
	k->nr_cursor = t->nr_devices < MAP_MAX_DEVICES ? t->nr_devices : MAP_MAX_DEVICES;
	for (unsigned d = 0; d < k->nr_cursor; d++)
		k->cursor[d] = r->complete ? UINT64_MAX : d == 0 ? top : 0;
	k->scanned_bytes = r->scanned_bytes;
	/* no error to store (each checkpoint held the cursor): the cursor alone */
	if (k->st && r->nr_errors <= r->sealed &&
	    scan_state_checkpoint(k->st, k->pass_id, k->cursor, k->nr_cursor, k->scanned_bytes,
				  NULL, 0, k->dev_keys) < 0)
		pass_say(k->h, PASS_SAY_ERROR, "warning: the pass's end was not stored (%s): a "
			 "resume reads from its last checkpoint", scan_state_errmsg(k->st));
}

int pass_record_unsaved(struct pass_record *k, struct scan_result *r)
{
	int ret = 0;

	k->unsaved = r->nr_errors > r->sealed ? r->nr_errors - r->sealed : 0;
	/* The store was busy or full at the last checkpoint: try again, a few busy waits. */
	for (unsigned tries = 0; k->st && k->unsaved && k->nr_cursor &&
	     tries < PASS_CHECKPOINT_RETRIES; tries++) {
		ret = scan_state_checkpoint(k->st, k->pass_id, k->cursor, k->nr_cursor,
					    k->scanned_bytes, r->errors + r->sealed, k->unsaved,
					    k->dev_keys);
		if (ret == 0) {
			r->sealed = r->nr_errors;
			k->unsaved = 0;
		}
	}
	if (!k->unsaved)
		return 0;
	/*
	 * Not all errors are in the history: this pass cannot say what failed again, so it
	 * settles nothing; it ends as failed (journal event, exit bit 4). The errors are told
	 * now (a missing row is new) and found again by the next pass.
	 */
	r->fatal = ret < 0 ? ret : -EIO;
	r->complete = 0;
	snprintf(r->fatal_msg, sizeof(r->fatal_msg), "%zu error%s of this pass could not be "
		 "stored in the history (%s): nothing was settled; the next pass reads them again",
		 k->unsaved, k->unsaved == 1 ? "" : "s",
		 k->st ? scan_state_errmsg(k->st) : "the state store could not be opened");
	pass_say(k->h, PASS_SAY_ERROR, "%s", r->fatal_msg);
	return -EIO;
}

void pass_record_finish(struct pass_record *k, const struct scan_result *r)
{
	enum scan_pass_result res = r->complete ? SCAN_PASS_COMPLETE :
				    r->fatal ? SCAN_PASS_FAILED : SCAN_PASS_INTERRUPTED;
	int ret;

	if (!k->st)
		return;
	ret = scan_state_finish(k->st, k->pass_id, res, r->scanned_bytes,
				r->elapsed_s > 0 ? (double)r->read_bytes / r->elapsed_s : 0);
	if (ret < 0)
		pass_say(k->h, PASS_SAY_ERROR, "warning: the pass could not be recorded as %s: %s",
			 scan_pass_result_name(res), strerror(-ret));
}

int pass_record_damage(struct pass_record *k, const struct pass_opts *o,
		       const struct pass_report *rep, const struct scan_opts *so, int resumed)
{
	const struct pass_hooks *h = k->h;
	const struct scan_result *r = rep->r;
	/* A store that refused this pass's errors has no rows for them: all are new, told. */
	struct scan_state *st = k->unsaved ? NULL : k->st;
	int64_t pass_id = k->pass_id;
	size_t *fresh_idx = calloc(r->nr_errors ? r->nr_errors : 1, sizeof(*fresh_idx));
	struct scan_state_outcome *settle = NULL;
	unsigned nr_fresh = 0;
	int cleared = 0, told = 1, ret;

	for (size_t i = 0; i < r->nr_errors; i++) {
		const struct scan_error *e = &r->errors[i];
		const char *dev = map_device_key(&rep->t->devices[e->dev_idx]);	/* rows' key */
		int is_new = 1;

		if (!scan_is_damage(e))
			continue;
		if (st) {
			char *owners = h->owners_json ? h->owners_json(h->arg, rep, i) : NULL;

			ret = scan_state_set_owners_range(st, pass_id, dev, e->offset, e->length,
							  owners ? owners : "[]");
			free(owners);
			if (ret < 0)
				pass_say(h, PASS_SAY_ERROR, "warning: owners not stored in the "
					 "history: %s", scan_state_errmsg(st));
			/* Marked told only once it was (below): a failed on_damage is retried. */
			ret = scan_state_count_unnotified(st, pass_id, dev, e->offset, e->length);
			is_new = ret != 0;	/* an error of the store still tells */
		}
		if (!is_new)
			continue;
		if (fresh_idx)
			fresh_idx[nr_fresh] = i;
		nr_fresh++;
		if (h->journal_error)
			h->journal_error(h->arg, rep, i, pass_id);
	}
	if (st && r->complete && !k->unsaved) {	/* unsaved: pass_record_unsaved failed it */
		settle = settle_outcomes(k, so, resumed, o->recheck);
		cleared = scan_state_settle(st, k->key, pass_id, settle, settle ? k->nr_watch : 0);
		free(settle);
		if (cleared < 0) {
			pass_say(h, PASS_SAY_ERROR, "warning: cleared errors not recorded: %s",
				 scan_state_errmsg(st));
			cleared = 0;
		}
	}
	if (h->journal_end && (r->complete || r->fatal))
		h->journal_end(h->arg, rep, pass_id, cleared);
	if (h->on_damage && nr_fresh && r->stopped == 1) {
		/* Stopping (SIGTERM, SIGINT): start no command that could hold the stop up. */
		told = 0;
		pass_say(h, PASS_SAY_ERROR, "warning: on_damage not run, the scan is stopping: its "
			 "%u damaged range%s %s offered again on the next run", nr_fresh,
			 nr_fresh == 1 ? "" : "s", nr_fresh == 1 ? "is" : "are");
	} else if (h->on_damage && nr_fresh) {
		told = h->on_damage(h->arg, rep, fresh_idx, fresh_idx ? nr_fresh : 0, pass_id);
	}
	/* Told (journal, on_damage exit 0): not again. Else the next run offers it again. */
	for (unsigned n = 0; st && told && fresh_idx && n < nr_fresh; n++) {
		const struct scan_error *e = &r->errors[fresh_idx[n]];

		ret = scan_state_take_unnotified(st, pass_id,
						 map_device_key(&rep->t->devices[e->dev_idx]),
						 e->offset, e->length);
		if (ret < 0) {
			pass_say(h, PASS_SAY_ERROR, "warning: damage not marked as told in the "
				 "history (it will be told again): %s", scan_state_errmsg(st));
			break;
		}
	}
	free(fresh_idx);
	return cleared;
}

void pass_record_close(struct pass_record *k)
{
	scan_state_close(k->st);
	k->st = NULL;
	free(k->watch);
	free(k->watch_ids);
	k->watch = NULL;
	k->watch_ids = NULL;
}
