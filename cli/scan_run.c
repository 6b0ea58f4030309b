/*
 * cli/scan_run.c - one scan of one target as `mediascan scan` and `mediascan patrol` run it:
 * plan, scan (paced, checkpointed, resumable), map the errors to their owners, report.
 *
 * Over 600 lines for now: it is still the pass (plan, scan, map, record, report) as issue 10
 * found it; that issue makes the pass a module of its own with stages, which is the split this
 * file waits for.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "units.h"
#include "verify.h"
#include "scan_method.h"
#include "engine.h"
#include "state.h"
#include "patrol.h"

#define DEFAULT_IO_SIZE (1024 * 1024)
#define DEFAULT_DEPTH CLI_SCAN_DEFAULT_DEPTH
#define CHECKPOINT_INTERVAL_NS 5000000000ull	/* after SIGKILL at most this much is re-read */

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

/* The plan as a scan_source. */
static int plan_source_next(void *arg, struct map_range *out, unsigned max)
{
	return map_plan_next(arg, out, max);
}

/* Default I/O size: 1 MiB within the device's queue limit, a multiple of its block size. */
static uint32_t pick_io_size(const struct map_target *t, uint64_t asked)
{
	uint64_t io = asked ? asked : DEFAULT_IO_SIZE;
	uint32_t lbs = 512;

	for (unsigned i = 0; i < t->nr_devices; i++) {
		const struct kio_bdev_info *bi = &t->devices[i].info;

		if (!asked && bi->max_sectors_kb && io > (uint64_t)bi->max_sectors_kb * 1024)
			io = (uint64_t)bi->max_sectors_kb * 1024;
		if (bi->logical_block_size > lbs)
			lbs = bi->logical_block_size;
	}
	io -= io % lbs;
	return (uint32_t)(io ? io : lbs);
}

/* The disk statistics views that show this target's I/O: each device and its whole disk. */
static void pick_views(const struct map_target *t, struct scan_opts *so)
{
	for (unsigned d = 0; d < t->nr_devices; d++) {
		const struct kio_bdev_info *bi = &t->devices[d].info;
		const char *names[2] = { bi->name, bi->is_partition ? bi->disk_name : NULL };

		for (unsigned k = 0; k < 2 && names[k] && names[k][0]; k++) {
			unsigned v;

			for (v = 0; v < so->nr_views; v++)
				if (strcmp(so->views[v].name, names[k]) == 0)
					break;
			if (v == so->nr_views) {
				if (v == SCAN_GOV_MAX_VIEWS)
					continue;
				snprintf(so->views[v].name, sizeof(so->views[v].name), "%s",
					 names[k]);
				so->nr_views++;
			}
			so->views[v].dev_mask |= 1u << d;
		}
	}
}

/* The key under which the state store knows this target (mapping/target.c: UUID, WWN...). */
static void target_key(const struct map_target *t, char *key, size_t len)
{
	char legacy[8192];

	map_target_key(t, key, len, legacy, sizeof(legacy));
}

void cli_scan_target_key(const struct map_target *t, char *key, size_t len)
{
	target_key(t, key, len);
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

struct ckpt_ctx {
	struct scan_state *st;
	int64_t pass_id;
	int64_t pass_started;		/* unix seconds, of a resumed pass */
	const char *dev_keys[MAP_MAX_DEVICES];	/* what error rows name each device by */
	int warned;
	/* The history's open errors on this target's devices: what a clean read may clear. */
	struct scan_watch *watch;
	int64_t *watch_ids;
	size_t nr_watch, cap_watch;
	const struct map_target *t;
};

/* Keep one open error of the history as a range the scan watches. */
static int on_open_error(const struct scan_state_open_error *e, void *arg)
{
	struct ckpt_ctx *k = arg;

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
static int load_watch(struct ckpt_ctx *k, const char *key)
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
static struct scan_state_outcome *settle_outcomes(const struct ckpt_ctx *k,
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

static int on_checkpoint(const struct scan_checkpoint *c, void *arg)
{
	struct ckpt_ctx *k = arg;
	int ret = scan_state_checkpoint(k->st, k->pass_id, c->cursor, c->nr_devs,
					c->scanned_bytes, c->new_errors, c->nr_new_errors,
					k->dev_keys);

	if (ret < 0 && !k->warned) {
		/* A full /var must not stop a media scan: warn once, keep scanning. */
		cli_err("warning: checkpoint not saved (%s): %s", strerror(-ret),
			scan_state_errmsg(k->st));
		k->warned = 1;
	}
	return 0;
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

/* The open errors as the plan of a recheck: each watched range, whole logical blocks. */
struct recheck_src {
	const struct ckpt_ctx *k;
	size_t pos;
};

static int recheck_source_next(void *arg, struct map_range *out, unsigned max)
{
	struct recheck_src *rs = arg;
	unsigned n = 0;

	for (; rs->pos < rs->k->nr_watch && n < max; rs->pos++) {
		const struct scan_watch *w = &rs->k->watch[rs->pos];
		uint32_t lbs = rs->k->t->devices[w->dev_idx].info.logical_block_size;
		uint64_t lo, hi;

		lbs = lbs ? lbs : 512;
		lo = w->offset - w->offset % lbs;
		hi = w->offset + w->length;
		hi = hi % lbs ? hi + lbs - hi % lbs : hi;
		/* Neighbouring errors that share a block are read once. */
		if (n && out[n - 1].dev_idx == w->dev_idx && out[n - 1].offset +
		    out[n - 1].length >= lo) {
			if (hi > out[n - 1].offset + out[n - 1].length)
				out[n - 1].length = hi - out[n - 1].offset;
			continue;
		}
		memset(&out[n], 0, sizeof(out[n]));
		out[n].offset = lo;
		out[n].length = hi - lo;
		out[n].dev_idx = w->dev_idx;
		out[n].tags = MAP_TAG_DATA;
		n++;
	}
	return (int)n;
}

/* Set up the state store and the pass; 0, or -errno after a warning (scan without state). */
static int open_state(const struct cli_scan_cfg *a, const struct map_target *t,
		      const struct vfy_ops *method, struct scan_opts *so,
		      struct map_plan_opts *po, struct scan_result *r, struct ckpt_ctx *k,
		      int *resumed)
{
	char warn[512] = "", key[8192], legacy[8192];
	const char *dev_paths[MAP_MAX_DEVICES];
	uint64_t cursor[MAP_MAX_DEVICES] = { 0 };
	struct scan_state_pass pass;
	int ret;

	*resumed = 0;
	/* The store steers what is read and reported: its directory must be root's alone. */
	ret = cli_check_state_dir(a->state_dir, warn, sizeof(warn));
	if (ret < 0) {
		cli_err("%s", warn);
		return ret;
	}
	ret = scan_state_open(a->state_dir, &k->st, warn, sizeof(warn));
	if (warn[0])
		cli_err("warning: %s", warn);
	if (ret < 0)
		return ret;
	ret = map_target_key(t, key, sizeof(key), legacy, sizeof(legacy));
	if (ret == -ENOENT && !a->quiet)
		cli_err("note: %s has no stable identity (no WWN, serial or backing file): its "
			"history is kept under its kernel name, which can change at boot",
			t->devices[0].path);
	/* History kept under kernel names by older versions moves to the stable key. */
	if (scan_state_adopt_key(k->st, key, legacy) < 0)
		cli_err("warning: the history under the old key %s was not moved: %s", legacy,
			scan_state_errmsg(k->st));
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
		if (!a->quiet)
			printf("mediascan: no interrupted pass of %s to resume; starting a new "
			       "pass\n", a->target);
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

int cli_scan_run(const struct cli_scan_cfg *a)
{
	struct map_target t;
	struct map_plan_opts po;
	struct map_plan *plan = NULL;
	struct scan_device devs[SCAN_MAX_DEVICES];
	struct scan_source src;
	struct recheck_src rsrc = { 0 };
	struct scan_opts so;
	struct scan_gov_opts go;
	struct scan_result r;
	struct cli_progress pr = { 0 };
	struct cli_report rep;
	struct ckpt_ctx ck = { 0 };
	const struct vfy_ops *method;
	struct cli_method cm = { 0 };
	struct cli_scan_lock lk;
	char err[1024] = "", key[8192], who[PATH_MAX + 64];
	int ret, err_class, status, resumed = 0;
	struct sigaction sa;
	int human;
	double window_s;

	if (a->engine && !scan_engine_known(a->engine)) {
		cli_err("bad --engine: unknown engine '%s' (choose %s)", a->engine,
			scan_engine_names());
		return CLI_EXIT_USAGE;
	}
	if (vfy_method_lookup(a->method, &method, err, sizeof(err)) < 0) {
		cli_err("bad --method: %s", err);
		return CLI_EXIT_USAGE;
	}
	ret = map_target_open(a->target, &t, err, sizeof(err), &err_class);
	if (ret < 0) {
		cli_err("%s", err);
		return err_class == MAP_TERR_USAGE ? CLI_EXIT_USAGE : CLI_EXIT_OPERATIONAL;
	}
	if (geteuid() != 0 && t.mount_fd >= 0) {
		cli_err("scanning a filesystem needs root (GETFSMAP needs CAP_SYS_ADMIN)");
		map_target_close(&t);
		return CLI_EXIT_OPERATIONAL;
	}
	/* One scan per target and disk, whoever started it (issue 11). */
	target_key(&t, key, sizeof(key));
	snprintf(who, sizeof(who), "mediascan %s %s", a->label ? "patrol, target" : "scan",
		 a->label ? a->label : a->target);
	ret = cli_scan_lock(&t, key, who, &lk, err, sizeof(err));
	if (ret < 0) {
		cli_err("%s", err);
		map_target_close(&t);
		return CLI_EXIT_OPERATIONAL;
	}
	human = !a->quiet && !(a->json && strcmp(a->json, "-") == 0);

	memset(&po, 0, sizeof(po));
	po.merge_gap = a->merge_gap;
	memset(&so, 0, sizeof(so));
	memset(&r, 0, sizeof(r));
	so.io_size = pick_io_size(&t, a->io_size);
	so.depth = a->depth ? (unsigned)a->depth : DEFAULT_DEPTH;
	so.engine = a->engine;
	so.isolate_step_bytes = 16 * 4096;
	so.stop = &stop_requested;
	so.io_timeout_ns = (uint64_t)(a->io_timeout_s * 1e9);
	so.max_failed_reads = a->max_failed_reads_set ? a->max_failed_reads :
			      CLI_DEFAULT_MAX_FAILED_READS;
	so.max_duration_ns = (uint64_t)(a->max_duration_s * 1e9);
	ret = cli_method_setup(method, &t, &so, &cm);	/* issue 5: drive-side methods */
	if (ret) {
		cli_scan_unlock(&lk);
		map_target_close(&t);
		return ret;
	}
	method = cm.ops;
	snprintf(r.method_note, sizeof(r.method_note), "%s", cm.why);
	/* A recheck reads the open errors of the history only: its plan comes from there. */
	ret = a->recheck ? 0 : map_plan_count(&t, &po, &so.planned_total, NULL);
	if (ret < 0) {
		cli_err("cannot plan %s: reading the space map (GETFSMAP) failed: %s", a->target,
			strerror(-ret));
		cli_scan_unlock(&lk);
		map_target_close(&t);
		return CLI_EXIT_OPERATIONAL;
	}
	if (!a->no_state) {
		ret = open_state(a, &t, method, &so, &po, &r, &ck, &resumed);
		if (ret == -ENOENT && a->recheck) {
			if (!a->quiet)
				printf("mediascan: nothing to recheck: the history of %s has no open "
				       "errors\n", a->target);
			scan_state_close(ck.st);
			free(ck.watch);
			free(ck.watch_ids);
			scan_result_free(&r);
			map_target_close(&t);
			return CLI_EXIT_CLEAN;
		}
		if (ret < 0) {
			if (a->resume || a->recheck) {
				cli_err("cannot %s: the state store in %s failed: %s",
					a->resume ? "resume" : "recheck", a->state_dir,
					strerror(-ret));
				scan_state_close(ck.st);
				scan_result_free(&r);
				cli_scan_unlock(&lk);
				map_target_close(&t);
				return CLI_EXIT_OPERATIONAL;
			}
			cli_err("warning: scanning without checkpoints: state store in %s: %s",
				a->state_dir, strerror(-ret));
			scan_state_close(ck.st);
			ck.st = NULL;
		} else {
			so.checkpoint = on_checkpoint;
			so.checkpoint_arg = &ck;
			so.checkpoint_interval_ns = CHECKPOINT_INTERVAL_NS;
		}
	}
	window_s = a->window_s;
	if (window_s && a->window_from_start && resumed && ck.pass_started) {
		/* A resumed pass keeps the end of its window (patrol): pace for what is left. */
		window_s = (double)ck.pass_started + a->window_s - (double)time(NULL);
		if (window_s < 1)
			window_s = 1;
	}
	if (a->rate || window_s) {
		memset(&go, 0, sizeof(go));
		go.rate_bps = a->rate;
		go.window_s = (uint64_t)(window_s + 0.5);
		go.rate_min_bps = a->rate_min;
		go.rate_max_bps = a->rate_max;
		go.backoff = !a->no_backoff;
		go.planned_total_bytes = so.planned_total > so.scanned_base ?
					 so.planned_total - so.scanned_base : 0;
		go.slack_bytes = (uint64_t)so.depth * so.io_size;
		so.gov = &go;
		pick_views(&t, &so);
	}
	if ((a->ioprio && strcmp(a->ioprio, "idle") == 0) || (!a->ioprio && a->window_s)) {
		ret = kio_ioprio_set_idle();
		if (ret < 0)
			cli_err("warning: cannot set the idle I/O class: %s", strerror(-ret));
	}

	pr.enabled = strcmp(a->progress, "log") == 0 ? 2 :
		     (strcmp(a->progress, "bar") == 0 ||
		      (strcmp(a->progress, "auto") == 0 && isatty(STDERR_FILENO)));
	so.progress = cli_progress_cb;
	so.progress_arg = &pr;
	for (unsigned i = 0; i < t.nr_devices; i++) {
		devs[i].fd = t.devices[i].fd;
		devs[i].logical_block_size = t.devices[i].info.logical_block_size;
		devs[i].size_bytes = t.devices[i].info.size_bytes;
		devs[i].path = t.devices[i].path;
	}
	if (a->recheck) {
		rsrc.k = &ck;
		src.next = recheck_source_next;
		src.arg = &rsrc;
	} else {
		ret = map_plan_open(&t, &po, &plan);
		if (ret < 0) {
			cli_err("cannot plan %s: %s", a->target, strerror(-ret));
			ret = CLI_EXIT_OPERATIONAL;
			goto out_state;
		}
		src.next = plan_source_next;
		src.arg = plan;
	}

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	if (human) {
		char sz[32], rb[32];

		printf("mediascan: %s %s (%s", resumed ? "resuming" : a->recheck ?
		       "rechecking the open errors of" : "scanning",
		       t.mount_point[0] ? t.mount_point : t.arg, t.fs_type);
		for (unsigned i = 0; i < t.nr_devices; i++)
			printf("%s %s %s", i ? "," : " on", map_role_name(t.devices[i].role),
			       t.devices[i].path);
		printf("): %s planned", cli_fmt_bytes(so.planned_total, sz, sizeof(sz)));
		if (resumed)
			printf(", %s already read", cli_fmt_bytes(so.scanned_base, sz, sizeof(sz)));
		printf(", method %s", method->name);
		if (a->rate)
			printf(", rate %s/s", cli_fmt_bytes(a->rate, rb, sizeof(rb)));
		if (window_s) {
			char w[32];

			printf(", window %s", cli_fmt_duration(window_s, w, sizeof(w)));
		}
		printf("\n");
		fflush(stdout);
	}
	ret = scan_run(devs, t.nr_devices, &src, &so, &r);
	cli_progress_done(&pr);
	map_plan_close(plan);
	if (ret < 0) {
		cli_err("%s", r.fatal_msg[0] ? r.fatal_msg : strerror(-ret));
		ret = CLI_EXIT_OPERATIONAL;
		goto out_state;
	}
	/* Report the whole pass: bytes read before a resume count too. */
	r.scanned_bytes += so.scanned_base;
	r.planned_bytes += so.scanned_base;
	if (r.stopped == 1 && !r.fatal_msg[0])
		snprintf(r.fatal_msg, sizeof(r.fatal_msg),
			 "interrupted by a signal; continue with --resume");

	memset(&rep, 0, sizeof(rep));
	rep.t = &t;
	rep.r = &r;
	rep.method = method->name;
	rep.resumed = resumed;
	rep.base_bytes = so.scanned_base;
	ret = cli_report_build(&rep);
	if (ret < 0) {
		cli_err("mapping the errors to their owners failed: %s", strerror(-ret));
		rep.exit_bits |= CLI_EXIT_OPERATIONAL;
	}
	if (r.stopped == 2) {
		/* A --max-duration stop is planned, not a failure: continue with --resume. */
		rep.exit_bits &= ~(unsigned)CLI_EXIT_OPERATIONAL;
		if (r.fatal)
			rep.exit_bits |= CLI_EXIT_OPERATIONAL;
	}
	if (ck.st) {
		enum scan_pass_result res = r.complete ? SCAN_PASS_COMPLETE :
					    r.fatal ? SCAN_PASS_FAILED : SCAN_PASS_INTERRUPTED;

		ret = scan_state_finish(ck.st, ck.pass_id, res, r.scanned_bytes,
					r.elapsed_s > 0 ? (double)r.read_bytes / r.elapsed_s : 0);
		if (ret < 0)
			cli_err("warning: the pass could not be recorded as %s: %s",
				scan_pass_result_name(res), strerror(-ret));
	}
	if (a->json) {
		ret = cli_report_write_json(&rep, a->json);
		if (ret < 0) {
			cli_err("cannot write the JSON report to %s: %s", a->json,
				cli_create_error(ret));
			rep.exit_bits |= CLI_EXIT_OPERATIONAL;
		}
	}
	if (a->html && cli_html_write(&rep, a->html) < 0)
		rep.exit_bits |= CLI_EXIT_OPERATIONAL;	/* said why (cli/html.c) */
	if (ck.st || a->journal || a->on_damage) {
		struct scan_state_outcome *settle = ck.st && r.complete ?
			settle_outcomes(&ck, &so, resumed, a->recheck) : NULL;

		ret = cli_scan_after(a, &rep, ck.st, ck.pass_id, key, settle,
				     settle ? ck.nr_watch : 0);
		free(settle);
		if (a->recheck && human)
			printf("mediascan: rechecked %zu open error%s: %d read cleanly (cleared)\n",
			       ck.nr_watch, ck.nr_watch == 1 ? "" : "s", ret > 0 ? ret : 0);
	}
	if (a->format && strcmp(a->format, "xfs_scrub") == 0)
		cli_report_print_xfs_scrub(&rep, stderr);
	else if (human)
		cli_report_print(&rep, stdout);
	status = (int)rep.exit_bits;
	cli_report_free(&rep);
	cli_method_close(&cm);
	scan_state_close(ck.st);
	free(ck.watch);
	free(ck.watch_ids);
	scan_result_free(&r);
	cli_scan_unlock(&lk);
	map_target_close(&t);
	return status;

out_state:
	cli_method_close(&cm);
	scan_state_close(ck.st);
	free(ck.watch);
	free(ck.watch_ids);
	scan_result_free(&r);
	cli_scan_unlock(&lk);
	map_target_close(&t);
	return ret;
}
