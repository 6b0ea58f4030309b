/*
 * pass/pass.c - one pass over one target as a table of stages over one context (struct pass),
 * the way xfs_scrub's run_scrub_phases walks its phase_ops: check the options, open the
 * target, lock it and its disks (lock.c), choose the verify method (method.c), count the plan
 * (plan.c), begin the pass in the store (record.c), pace and open the plan, scan (mediascan/,
 * options from scan.c), map the errors to their owners (map.c), record the pass's end and its
 * damage and report (the hooks report/ fills in). What the pass reads (the target's devices, a
 * stack's members, a member disk) is its mode, an ops table the stages call through (mode.c).
 * One teardown undoes what the stages set up, whichever of them stopped the pass.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "engine.h"
#include "kio.h"
#include "mode_int.h"

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

/* A stage: return 0 to go on, 1 to end the pass with p->status, or -errno (p->status set). */
struct pass_stage {
	const char *name;
	int (*fn)(struct pass *p);
	int must_run;			/* runs in a recheck too (else a full pass only) */
};

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

/* Return -EINVAL with status PASS_EXIT_USAGE after saying why an option is bad. */
static int stage_check(struct pass *p)
{
	if (p->a->engine && !scan_engine_known(p->a->engine)) {
		pass_say(p->h, PASS_SAY_ERROR, "bad --engine: unknown engine '%s' (choose %s)",
			 p->a->engine, scan_engine_names());
		p->status = PASS_EXIT_USAGE;
		return -EINVAL;
	}
	if (vfy_method_lookup(p->a->method, &p->method, p->err, sizeof(p->err)) < 0) {
		pass_say(p->h, PASS_SAY_ERROR, "bad --method: %s", p->err);
		p->status = PASS_EXIT_USAGE;
		return -EINVAL;
	}
	return 0;
}

static int stage_open(struct pass *p)
{
	int ret, err_class;

	ret = map_target_open(p->a->target, &p->t, p->err, sizeof(p->err), &err_class);
	if (ret < 0) {
		pass_say(p->h, PASS_SAY_ERROR, "%s", p->err);
		p->status = err_class == MAP_TERR_USAGE ? PASS_EXIT_USAGE : PASS_EXIT_OPERATIONAL;
		return ret;
	}
	p->t_open = 1;
	if (geteuid() != 0 && p->t.mount_fd >= 0) {
		pass_say(p->h, PASS_SAY_ERROR, "scanning a filesystem needs root (GETFSMAP needs "
			 "CAP_SYS_ADMIN)");
		p->status = PASS_EXIT_OPERATIONAL;
		return -EPERM;
	}
	return 0;
}

/* md arrays below that resync, recover, reshape or check are not scanned. */
static int stage_stack_check(struct pass *p)
{
	int ret = pass_stack_check(&p->t, p->h);

	if (ret) {
		p->status = (unsigned)ret;
		return 1;
	}
	return 0;
}

/* One scan per target and disk, whoever started it. */
static int stage_lock(struct pass *p)
{
	char who[PATH_MAX + 64];
	int ret;

	pass_target_key(&p->t, p->ck.key, sizeof(p->ck.key));
	snprintf(who, sizeof(who), "mediascan %s %s", p->a->label ? "patrol, target" : "scan",
		 p->a->label ? p->a->label : p->a->target);
	ret = pass_lock(&p->t, p->ck.key, who, &p->lk, p->err, sizeof(p->err));
	if (ret < 0) {
		pass_say(p->h, PASS_SAY_ERROR, "%s", p->err);
		p->status = PASS_EXIT_OPERATIONAL;
		return ret;
	}
	return 0;
}

/* The scan's options, then the verify method (drive-side methods open their devices). */
static int stage_method(struct pass *p)
{
	const struct pass_opts *a = p->a;
	struct scan_opts *so = &p->so;
	int ret;

	p->po.merge_gap = a->merge_gap;
	pass_scan_devices(&p->t, p->devs);
	so->io_size = scan_io_size(p->devs, p->t.nr_devices, a->io_size);
	if (a->io_size && so->io_size != a->io_size)
		pass_say(p->h, PASS_SAY_NOTE, "--io-size %llu: reading %u bytes at a time (a "
			 "multiple of the logical block size)", (unsigned long long)a->io_size,
			 so->io_size);
	for (unsigned i = 0; a->io_size && i < p->t.nr_devices; i++)
		if (p->devs[i].max_io_bytes && so->io_size > p->devs[i].max_io_bytes)
			pass_say(p->h, PASS_SAY_NOTE, "--io-size %u is above %s's queue limit "
				 "(max_sectors_kb %llu): the block layer splits each read",
				 so->io_size, p->t.devices[i].path,
				 (unsigned long long)p->devs[i].max_io_bytes / 1024);
	so->depth = a->depth ? (unsigned)a->depth : PASS_DEFAULT_DEPTH;
	so->engine = a->engine;
	so->isolate_step_bytes = 16 * 4096;
	so->stop = &stop_requested;
	so->io_timeout_ns = (uint64_t)(a->io_timeout_s * 1e9);
	so->max_failed_reads = a->max_failed_reads_set ? a->max_failed_reads :
			       PASS_DEFAULT_MAX_FAILED_READS;
	so->max_duration_ns = (uint64_t)(a->max_duration_s * 1e9);
	p->asked = p->method;
	ret = pass_method_setup(p->method, &p->t, so, &p->cm, p->err, sizeof(p->err));
	if (ret) {
		pass_say(p->h, PASS_SAY_ERROR, "%s", p->err);
		p->status = PASS_EXIT_OPERATIONAL;
		return ret;
	}
	p->method = p->cm.ops;
	snprintf(p->r.method_note, sizeof(p->r.method_note), "%s", p->cm.why);
	ret = pass_mode_choose(p);
	if (ret < 0)
		return ret;
	if (p->mode->method)
		p->mode->method(p);
	return 0;
}

/* The plan's total (a counting pass); a recheck's plan is the history's open errors. */
static int stage_count(struct pass *p)
{
	int ret = p->mode->count(p);

	if (ret < 0) {
		pass_say(p->h, PASS_SAY_ERROR, "cannot plan %s: %s failed: %s", p->a->target,
			 p->mode->count_what, strerror(-ret));
		p->status = PASS_EXIT_OPERATIONAL;
	}
	return ret;
}

/* A dataless method proves that it reads each device's medium before it is trusted. */
static int stage_prove(struct pass *p)
{
	int ret;

	struct scan_state *st = NULL;
	char warn[256];

	if (!p->mode->prove)
		return 0;			/* the data moves */
	/* the history's verdicts on these devices (a store that does not open: timed anew) */
	if (!p->a->no_state && !(p->cm.ops->moves_data) &&
	    scan_state_open(p->a->state_dir, &st, warn, sizeof(warn)) < 0)
		st = NULL;
	ret = pass_method_prove(&p->cm, p->asked, p->a->trust_verify, st, &p->t, &p->po,
				&p->so, p->err, sizeof(p->err));
	scan_state_close(st);
	if (ret < 0) {
		pass_say(p->h, PASS_SAY_ERROR, "%s", p->err);
		p->status = PASS_EXIT_OPERATIONAL;
		return ret;
	}
	if (p->cm.ops != p->method)		/* auto turned away from an unproven method */
		pass_say(p->h, PASS_SAY_NOTE, "note: %s", p->cm.why);
	p->method = p->cm.ops;
	snprintf(p->r.method_note, sizeof(p->r.method_note), "%s", p->cm.why);
	return 0;
}

/* Record: the pass begins (or resumes) in the state store. */
static int stage_begin(struct pass *p)
{
	const struct pass_opts *a = p->a;
	int ret;

	if (a->no_state)
		return 0;
	ret = pass_record_begin(&p->ck, a, &p->t, p->method, &p->so, &p->po, &p->r,
				&p->resumed);
	if (ret == -ENOENT && a->recheck) {
		pass_say(p->h, PASS_SAY_INFO, "mediascan: nothing to recheck: the history of %s "
			 "has no open errors", a->target);
		p->status = PASS_EXIT_CLEAN;
		return 1;
	}
	if (ret < 0 && (a->resume || a->recheck)) {
		pass_say(p->h, PASS_SAY_ERROR, "cannot %s: the state store in %s failed: %s",
			 a->resume ? "resume" : "recheck", a->state_dir, strerror(-ret));
		p->status = PASS_EXIT_OPERATIONAL;
		return ret;
	}
	if (ret < 0) {
		pass_say(p->h, PASS_SAY_ERROR, "warning: scanning without checkpoints: state "
			 "store in %s: %s", a->state_dir, strerror(-ret));
		scan_state_close(p->ck.st);
		p->ck.st = NULL;
		return 0;
	}
	pass_record_checkpoints(&p->ck, &p->so);
	return 0;
}

/* Pacing, the I/O class and the plan as the scan's source; the human banner. */
static int stage_plan(struct pass *p)
{
	const struct pass_opts *a = p->a;
	struct scan_opts *so = &p->so;
	struct sigaction sa;
	int ret;

	p->window_s = pass_window(a, &p->ck, p->resumed);
	if (a->rate || p->window_s || (a->pacing && strcmp(a->pacing, "off"))) {
		const char *pacing;

		memset(&p->go, 0, sizeof(p->go));
		p->go.rate_bps = a->rate;
		p->go.window_s = (uint64_t)(p->window_s + 0.5);
		p->go.rate_min_bps = a->rate_min;
		p->go.rate_max_bps = a->rate_max;
		if (a->pacing)
			pacing = a->pacing;
		else if (a->no_backoff)
			pacing = "off";
		else
			pacing = p->window_s ? "latency" : "backoff";
		p->go.backoff = strcmp(pacing, "backoff") == 0;
		p->go.latency = strcmp(pacing, "latency") == 0;
		p->go.lat_target_pct = a->lat_target_pct;
		p->go.planned_total_bytes = so->planned_total > so->scanned_base ?
					    so->planned_total - so->scanned_base : 0;
		p->go.slack_bytes = (uint64_t)so->depth * so->io_size;
		so->gov = &p->go;
		pass_scan_views(&p->t, so);
	}
	if ((a->ioprio && strcmp(a->ioprio, "idle") == 0) || (!a->ioprio && a->window_s)) {
		ret = kio_ioprio_set_idle();
		if (ret < 0)
			pass_say(p->h, PASS_SAY_ERROR, "warning: cannot set the idle I/O class: %s",
				 strerror(-ret));
	}
	so->progress = p->h->progress;
	so->progress_arg = p->h->arg;
	ret = p->mode->source(p);
	if (ret < 0)
		return ret;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	if (p->h->begin) {
		struct pass_begin b = {
			.t = &p->t, .method = p->method->name, .resumed = p->resumed,
			.recheck = a->recheck, .planned_bytes = so->planned_total,
			.scanned_base = so->scanned_base, .rate = a->rate, .window_s = p->window_s,
		};

		p->h->begin(p->h->arg, &b);
	}
	return 0;
}

static int stage_scan(struct pass *p)
{
	struct scan_result *r = &p->r;
	int ret;

	p->err[0] = '\0';
	p->so.sample_permille = p->a->sample_set ? p->a->sample_permille :
				PASS_DEFAULT_SAMPLE_PERMILLE;
	ret = p->mode->scan(p);
	if (p->h->progress_done)
		p->h->progress_done(p->h->arg);
	pass_stack_tell_geometry(&p->stk, p->h);
	pass_plan_close(&p->plan);
	if (ret < 0) {
		pass_say(p->h, PASS_SAY_ERROR, "%s", p->err[0] ? p->err :
			 r->fatal_msg[0] ? r->fatal_msg : strerror(-ret));
		p->status = PASS_EXIT_OPERATIONAL;
		return ret;
	}
	/* Report the whole pass: bytes read before a resume count too. */
	r->scanned_bytes += p->so.scanned_base;
	r->planned_bytes += p->so.scanned_base;
	if (r->stopped == 1 && !r->fatal_msg[0])
		snprintf(r->fatal_msg, sizeof(r->fatal_msg), "interrupted by a signal; %s",
			 p->a->no_state ? "no checkpoint was kept (--no-state): a later scan "
			 "starts over" : "continue with --resume");
	return 0;
}

/* Map: verdict counts, exit bits, owners of damage and of ranges at risk. */
static int stage_map(struct pass *p)
{
	struct pass_report *rep = &p->rep;
	int ret;

	rep->t = &p->t;
	rep->r = &p->r;
	rep->method = p->method->name;
	rep->cm = &p->cm;
	rep->resumed = p->resumed;
	rep->base_bytes = p->so.scanned_base;
	/* --no-state, or a store that could not be opened: a stopped pass cannot resume */
	rep->no_checkpoint = p->a->no_state || !p->ck.st;
	p->rep_made = 1;
	if (p->mode->verdicts)
		p->mode->verdicts(p);
	pass_stack_unmappable(&p->stk, rep);
	ret = pass_map(rep);
	if (ret == 0 && p->mode->map)
		ret = p->mode->map(p);
	if (ret < 0) {
		pass_say(p->h, PASS_SAY_ERROR, "mapping the errors to their owners failed: %s",
			 strerror(-ret));
		rep->exit_bits |= PASS_EXIT_OPERATIONAL;
	}
	return 0;
}

/* Record and report: the pass's end, the JSON and HTML reports, damage told, the summary. */
static int stage_report(struct pass *p)
{
	const struct pass_hooks *h = p->h;
	struct pass_report *rep = &p->rep;
	int ret;

	/* redundancy lost into the history while the pass runs, then where it stopped */
	ret = pass_record_rl(&p->ck, rep);
	if (ret >= 0)
		ret = pass_record_cd(&p->ck, rep);
	if (ret < 0)
		rep->exit_bits |= PASS_EXIT_OPERATIONAL;	/* said */
	else if (p->mode->end)
		p->mode->end(p);
	pass_record_finish(&p->ck, &p->r);
	if (h->json) {
		ret = h->json(h->arg, rep);
		if (ret < 0)
			rep->exit_bits |= PASS_EXIT_OPERATIONAL;
	}
	if (h->html) {
		ret = h->html(h->arg, rep);
		if (ret < 0)
			rep->exit_bits |= PASS_EXIT_OPERATIONAL;
	}
	ret = pass_record_damage(&p->ck, p->a, rep, &p->so, p->resumed);
	pass_record_rl_settle(&p->ck, rep);
	pass_record_cd_settle(&p->ck, rep);
	if (p->ck.unsaved)
		rep->exit_bits |= PASS_EXIT_OPERATIONAL;	/* the history lacks errors: said */
	if (p->a->recheck)
		pass_say(h, PASS_SAY_HUMAN, "mediascan: rechecked %zu open error%s: %d read cleanly "
			 "(cleared)", p->ck.nr_watch, p->ck.nr_watch == 1 ? "" : "s",
			 ret > 0 ? ret : 0);
	if (h->human)
		h->human(h->arg, rep);
	p->status = rep->exit_bits;
	return 1;
}

static const struct pass_stage stages[] = {
	{ "check", stage_check, 1 },
	{ "open", stage_open, 1 },
	{ "stack", stage_stack_check, 1 },
	{ "lock", stage_lock, 1 },
	{ "method", stage_method, 1 },
	{ "count", stage_count, 0 },
	{ "prove", stage_prove, 1 },
	{ "begin", stage_begin, 1 },
	{ "plan", stage_plan, 1 },
	{ "scan", stage_scan, 1 },
	{ "map", stage_map, 1 },
	{ "report", stage_report, 1 },
};

/* Undo what the stages set up, in the reverse order; each part knows whether it was. */
static void pass_teardown(struct pass *p)
{
	if (p->plan.plan)
		pass_plan_close(&p->plan);
	if (p->rep_made)
		pass_report_free(&p->rep);
	pass_stack_close(&p->stk);
	pass_method_close(&p->cm);
	pass_record_close(&p->ck);
	scan_result_free(&p->r);
	pass_unlock(&p->lk);
	if (p->t_open)
		map_target_close(&p->t);
	kio_mount_forget();		/* the mount table's open file, kept between asks */
}

int pass_run(const struct pass_opts *a, const struct pass_hooks *h)
{
	struct pass *p = calloc(1, sizeof(*p));
	int status;

	if (!p) {
		pass_say(h, PASS_SAY_ERROR, "out of memory");
		return PASS_EXIT_OPERATIONAL;
	}
	p->a = a;
	p->h = h;
	p->mode = &pass_mode_plain;
	p->ck.h = h;
	p->status = PASS_EXIT_OPERATIONAL;
	for (size_t i = 0; i < sizeof(stages) / sizeof(stages[0]); i++) {
		if (a->recheck && !stages[i].must_run)
			continue;
		if (stages[i].fn(p) != 0)
			break;
	}
	pass_teardown(p);
	status = (int)p->status;
	free(p);
	return status;
}
