/*
 * pass/pass.c - one pass over one target, the stages in order: open the target (and lock it
 * and its disks), choose the verify method, plan (plan.c), begin the pass in the store
 * (record.c), scan (mediascan/, options from scan.c), map the errors to their owners (map.c),
 * record the pass's end and its damage (record.c), report (the hooks cli/ fills in).
 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "engine.h"
#include "kio.h"
#include "pass.h"

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

void pass_say(const struct pass_hooks *h, enum pass_say kind, const char *fmt, ...)
{
	char msg[16384];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (h && h->say)
		h->say(h->arg, kind, msg);
	else if (kind == PASS_SAY_INFO || kind == PASS_SAY_HUMAN)
		printf("%s\n", msg);
	else
		fprintf(stderr, "mediascan: %s\n", msg);
}

/* The governor's options: a rate, a window (what is left of it, for a resumed patrol pass). */
static double pass_window(const struct pass_opts *a, const struct pass_record *ck, int resumed)
{
	double window_s = a->window_s;

	if (window_s && a->window_from_start && resumed && ck->pass_started) {
		/* A resumed pass keeps the end of its window (patrol): pace for what is left. */
		window_s = (double)ck->pass_started + a->window_s - (double)time(NULL);
		if (window_s < 1)
			window_s = 1;
	}
	return window_s;
}

int pass_run(const struct pass_opts *a, const struct pass_hooks *h)
{
	struct map_target t;
	struct map_plan_opts po;
	struct pass_plan plan = { 0 };
	struct scan_device devs[SCAN_MAX_DEVICES];
	struct scan_source src;
	struct scan_opts so;
	struct scan_gov_opts go;
	struct scan_result r;
	struct pass_report rep;
	struct pass_record ck = { .h = h };
	const struct vfy_ops *method;
	struct pass_method cm = { 0 };
	struct pass_lock lk;
	char err[1024] = "", who[PATH_MAX + 64];
	int ret, err_class, status, resumed = 0;
	struct sigaction sa;
	double window_s;

	if (a->engine && !scan_engine_known(a->engine)) {
		pass_say(h, PASS_SAY_ERROR, "bad --engine: unknown engine '%s' (choose %s)",
			 a->engine, scan_engine_names());
		return PASS_EXIT_USAGE;
	}
	if (vfy_method_lookup(a->method, &method, err, sizeof(err)) < 0) {
		pass_say(h, PASS_SAY_ERROR, "bad --method: %s", err);
		return PASS_EXIT_USAGE;
	}
	ret = map_target_open(a->target, &t, err, sizeof(err), &err_class);
	if (ret < 0) {
		pass_say(h, PASS_SAY_ERROR, "%s", err);
		return err_class == MAP_TERR_USAGE ? PASS_EXIT_USAGE : PASS_EXIT_OPERATIONAL;
	}
	if (geteuid() != 0 && t.mount_fd >= 0) {
		pass_say(h, PASS_SAY_ERROR, "scanning a filesystem needs root (GETFSMAP needs "
			 "CAP_SYS_ADMIN)");
		map_target_close(&t);
		return PASS_EXIT_OPERATIONAL;
	}
	/* One scan per target and disk, whoever started it. */
	pass_target_key(&t, ck.key, sizeof(ck.key));
	snprintf(who, sizeof(who), "mediascan %s %s", a->label ? "patrol, target" : "scan",
		 a->label ? a->label : a->target);
	ret = pass_lock(&t, ck.key, who, &lk, err, sizeof(err));
	if (ret < 0) {
		pass_say(h, PASS_SAY_ERROR, "%s", err);
		map_target_close(&t);
		return PASS_EXIT_OPERATIONAL;
	}

	memset(&po, 0, sizeof(po));
	po.merge_gap = a->merge_gap;
	memset(&so, 0, sizeof(so));
	memset(&r, 0, sizeof(r));
	pass_scan_devices(&t, devs);
	so.io_size = scan_io_size(devs, t.nr_devices, a->io_size);
	so.depth = a->depth ? (unsigned)a->depth : PASS_DEFAULT_DEPTH;
	so.engine = a->engine;
	so.isolate_step_bytes = 16 * 4096;
	so.stop = &stop_requested;
	so.io_timeout_ns = (uint64_t)(a->io_timeout_s * 1e9);
	so.max_failed_reads = a->max_failed_reads_set ? a->max_failed_reads :
			      PASS_DEFAULT_MAX_FAILED_READS;
	so.max_duration_ns = (uint64_t)(a->max_duration_s * 1e9);
	ret = pass_method_setup(method, &t, &so, &cm, err, sizeof(err));	/* drive-side methods */
	if (ret) {
		pass_say(h, PASS_SAY_ERROR, "%s", err);
		pass_unlock(&lk);
		map_target_close(&t);
		return PASS_EXIT_OPERATIONAL;
	}
	method = cm.ops;
	snprintf(r.method_note, sizeof(r.method_note), "%s", cm.why);

	/* Plan. A recheck reads the open errors of the history only: its plan comes from there. */
	ret = a->recheck ? 0 : pass_plan_count(&t, &po, &so.planned_total);
	if (ret < 0) {
		pass_say(h, PASS_SAY_ERROR, "cannot plan %s: reading the space map (GETFSMAP) "
			 "failed: %s", a->target, strerror(-ret));
		pass_method_close(&cm);
		pass_unlock(&lk);
		map_target_close(&t);
		return PASS_EXIT_OPERATIONAL;
	}

	/* Record: the pass begins (or resumes) in the state store. */
	if (!a->no_state) {
		ret = pass_record_begin(&ck, a, &t, method, &so, &po, &r, &resumed);
		if (ret == -ENOENT && a->recheck) {
			pass_say(h, PASS_SAY_INFO, "mediascan: nothing to recheck: the history of %s "
				 "has no open errors", a->target);
			pass_record_close(&ck);
			scan_result_free(&r);
			pass_method_close(&cm);
			pass_unlock(&lk);
			map_target_close(&t);
			return PASS_EXIT_CLEAN;
		}
		if (ret < 0) {
			if (a->resume || a->recheck) {
				pass_say(h, PASS_SAY_ERROR, "cannot %s: the state store in %s failed: "
					 "%s", a->resume ? "resume" : "recheck", a->state_dir,
					 strerror(-ret));
				pass_record_close(&ck);
				scan_result_free(&r);
				pass_method_close(&cm);
				pass_unlock(&lk);
				map_target_close(&t);
				return PASS_EXIT_OPERATIONAL;
			}
			pass_say(h, PASS_SAY_ERROR, "warning: scanning without checkpoints: state "
				 "store in %s: %s", a->state_dir, strerror(-ret));
			scan_state_close(ck.st);
			ck.st = NULL;
		} else {
			pass_record_checkpoints(&ck, &so);
		}
	}

	/* Scan. */
	window_s = pass_window(a, &ck, resumed);
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
		pass_scan_views(&t, &so);
	}
	if ((a->ioprio && strcmp(a->ioprio, "idle") == 0) || (!a->ioprio && a->window_s)) {
		ret = kio_ioprio_set_idle();
		if (ret < 0)
			pass_say(h, PASS_SAY_ERROR, "warning: cannot set the idle I/O class: %s",
				 strerror(-ret));
	}
	so.progress = h->progress;
	so.progress_arg = h->arg;
	if (a->recheck) {
		pass_plan_recheck(&plan, &t, ck.watch, ck.nr_watch, &src);
	} else {
		ret = pass_plan_open(&plan, &t, &po, &src);
		if (ret < 0) {
			pass_say(h, PASS_SAY_ERROR, "cannot plan %s: %s", a->target, strerror(-ret));
			ret = PASS_EXIT_OPERATIONAL;
			goto out_state;
		}
	}

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	if (h->begin) {
		struct pass_begin b = {
			.t = &t, .method = method->name, .resumed = resumed, .recheck = a->recheck,
			.planned_bytes = so.planned_total, .scanned_base = so.scanned_base,
			.rate = a->rate, .window_s = window_s,
		};

		h->begin(h->arg, &b);
	}
	ret = scan_run(devs, t.nr_devices, &src, &so, &r);
	if (h->progress_done)
		h->progress_done(h->arg);
	pass_plan_close(&plan);
	if (ret < 0) {
		pass_say(h, PASS_SAY_ERROR, "%s", r.fatal_msg[0] ? r.fatal_msg : strerror(-ret));
		ret = PASS_EXIT_OPERATIONAL;
		goto out_state;
	}
	/* Report the whole pass: bytes read before a resume count too. */
	r.scanned_bytes += so.scanned_base;
	r.planned_bytes += so.scanned_base;
	if (r.stopped == 1 && !r.fatal_msg[0])
		snprintf(r.fatal_msg, sizeof(r.fatal_msg),
			 "interrupted by a signal; continue with --resume");

	/* Map. */
	memset(&rep, 0, sizeof(rep));
	rep.t = &t;
	rep.r = &r;
	rep.method = method->name;
	rep.resumed = resumed;
	rep.base_bytes = so.scanned_base;
	rep.checkpointed = ck.st != NULL;
	ret = pass_map(&rep);
	if (ret < 0) {
		pass_say(h, PASS_SAY_ERROR, "mapping the errors to their owners failed: %s",
			 strerror(-ret));
		rep.exit_bits |= PASS_EXIT_OPERATIONAL;
	}

	/* Record and report: the pass's end, the JSON and HTML reports, damage told, the summary. */
	pass_record_finish(&ck, &r);
	if (h->json) {
		ret = h->json(h->arg, &rep);
		if (ret < 0)
			rep.exit_bits |= PASS_EXIT_OPERATIONAL;
	}
	if (h->html) {
		ret = h->html(h->arg, &rep);
		if (ret < 0)
			rep.exit_bits |= PASS_EXIT_OPERATIONAL;
	}
	ret = pass_record_damage(&ck, a, &rep, &so, resumed);
	if (a->recheck)
		pass_say(h, PASS_SAY_HUMAN, "mediascan: rechecked %zu open error%s: %d read cleanly "
			 "(cleared)", ck.nr_watch, ck.nr_watch == 1 ? "" : "s", ret > 0 ? ret : 0);
	if (h->human)
		h->human(h->arg, &rep);
	status = (int)rep.exit_bits;
	pass_report_free(&rep);
	pass_method_close(&cm);
	pass_record_close(&ck);
	scan_result_free(&r);
	pass_unlock(&lk);
	map_target_close(&t);
	return status;

out_state:
	pass_method_close(&cm);
	pass_record_close(&ck);
	scan_result_free(&r);
	pass_unlock(&lk);
	map_target_close(&t);
	return ret;
}
