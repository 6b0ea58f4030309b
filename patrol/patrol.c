/*
 * patrol/patrol.c - `mediascan patrol`: the long-running service. Reads the config, then keeps
 * every target's passes going: a pass of each target within its window (paced by the
 * engine's governor, resumed from checkpoints after restarts), one scan per physical disk
 * at a time, different disks in parallel (one child process per running scan, which dies
 * with the patrol; a target another mediascan holds waits). SIGHUP reloads the config,
 * SIGTERM checkpoints every scan and exits.
 *
 * This file is the daemon's loop (patrol_run; cli/patrol_cmd.c parses its command line):
 * signals, starting, reaping and reloading scans, the metrics file. Its target table
 * (resolve, load, when due) is targets.c; the scan it forks is the pass (pass/pass.c) with
 * the output hooks of run/scan.c.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "report.h"
#include "exits.h"
#include "escape.h"
#include "files.h"
#include "config_file.h"
#include "journal.h"
#include "devinfo.h"
#include "metrics.h"
#include "patrol.h"
#include "patrol_int.h"
#include "proc.h"
#include "run.h"
#include "units.h"

#define PATROL_RUN_MAX_S 3600.0		/* a scan run ends (and reports) at least hourly */
#define PATROL_METRICS_S 10

static volatile sig_atomic_t got_term, got_hup, got_chld;

static void on_patrol_signal(int sig)
{
	if (sig == SIGHUP)
		got_hup = 1;
	else if (sig == SIGCHLD)
		got_chld = 1;
	else
		got_term = 1;
}

static int minutes_now(void)
{
	time_t now = time(NULL);
	struct tm tm;

	localtime_r(&now, &tm);
	return tm.tm_hour * 60 + tm.tm_min;
}

/* Seconds between metrics files: 10, or fewer from MEDIASCAN_PATROL_METRICS_S (tests). */
static int patrol_metrics_s(void)
{
	const char *s = getenv("MEDIASCAN_PATROL_METRICS_S");
	int v = s ? atoi(s) : 0;

	return v > 0 && v <= PATROL_METRICS_S ? v : PATROL_METRICS_S;
}

/*
 * Child: one scan run of target pt. It dies with the patrol (parent pid parent): SIGTERM
 * when the patrol goes, however it goes (a SIGKILL of the patrol alone included), so it
 * checkpoints and stops instead of scanning on beside the next patrol's scanner.
 */
static void patrol_child(struct patrol *p, struct patrol_target *pt, int active, pid_t parent)
{
	struct run_cfg a;
	struct sigaction sa;
	int ret;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGCHLD, &sa, NULL);
	sa.sa_handler = SIG_IGN;
	sigaction(SIGHUP, &sa, NULL);
	ret = pass_proc_die_with_parent(SIGTERM, parent);
	if (ret == -ESRCH)
		_exit(REPORT_EXIT_OPERATIONAL);	/* the patrol is gone already */
	if (ret < 0)
		report_err("warning: patrol: scan of %s will not stop if the patrol dies: %s",
			pt->c.name, strerror(-ret));
	scan_state_close(p->st);		/* one connection per process */

	memset(&a, 0, sizeof(a));
	a.pass.target = pt->c.path;
	a.pass.state_dir = p->cfg.state_dir;
	a.pass.method = pt->c.o.method[0] ? pt->c.o.method : "auto";
	a.progress = "none";
	a.quiet = 1;
	a.pass.resume = 1;
	a.pass.merge_gap = (uint64_t)-1;
	a.pass.io_timeout_s = PASS_DEFAULT_IO_TIMEOUT_S;
	a.pass.window_s = pt->c.o.window_s;
	a.pass.window_from_start = 1;
	a.pass.rate_min = pt->c.o.rate_min_bps;
	a.pass.rate_max = pt->c.o.rate_max_bps;
	if (!active)			/* outside active hours: the floor only */
		a.pass.rate_max = a.pass.rate_min ? a.pass.rate_min : SCAN_GOV_FLOOR_BPS_DEFAULT;
	if (a.pass.rate_min && a.pass.rate_max && a.pass.rate_min > a.pass.rate_max)
		a.pass.rate_min = a.pass.rate_max;
	a.pass.max_duration_s = PATROL_RUN_MAX_S;
	a.pass.label = pt->c.name;
	a.pass.compare_auto = 1;
	a.journal = 1;
	a.on_damage = pt->c.o.on_damage[0] ? pt->c.o.on_damage : NULL;
	a.hook_timeout_s = pt->c.o.hook_timeout_s;
	_exit(run_scan(&a));
}

/*
 * Return 0 after starting a scan of target pt, -EWOULDBLOCK when another mediascan scans it
 * or one of its disks (an admin's scan, a scanner that outlived its patrol), or -errno; in
 * both cases pt waits PATROL_RETRY_S.
 */
static int patrol_start(struct patrol *p, struct patrol_target *pt, time_t now)
{
	int active = patrol_active_now(pt->c.o.active_start_min, pt->c.o.active_end_min,
				    minutes_now());
	struct pass_lock lk;
	pid_t pid, self = getpid();
	char err[1024];
	int ret;

	/* A look at the locks only: the scan takes them itself, whoever starts it. */
	ret = pass_lock_ids(pt->key, pt->c.path, pt->disks, pt->nr_disks, "mediascan patrol",
			    &lk, err, sizeof(err));
	if (ret < 0) {
		report_err("patrol: not scanning %s for %d s: %s", pt->c.name, PATROL_RETRY_S, err);
		pt->next_try = now + PATROL_RETRY_S;
		return ret;
	}
	pass_unlock(&lk);
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		ret = -errno;
		report_err("patrol: cannot start a scan of %s: %s", pt->c.name, strerror(-ret));
		pt->next_try = now + PATROL_RETRY_S;
		return ret;
	}
	if (pid == 0)
		patrol_child(p, pt, active, self);
	pt->pid = pid;
	pt->active = active;
	fprintf(stderr, "mediascan: patrol: scanning %s (%s)%s\n", pt->c.name, pt->c.path,
		active ? "" : " at rate_min: outside active hours");
	return 0;
}

/* Return the number of scans that ended. */
static int patrol_reap(struct patrol *p, time_t now)
{
	int status, nr = 0;
	pid_t pid;

	while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
		for (unsigned i = 0; i < p->nr; i++) {
			struct patrol_target *pt = &p->t[i];

			if (pt->pid != pid)
				continue;
			pt->pid = 0;
			nr++;
			pt->next_try = now;
			if (WIFSIGNALED(status) ||
			    (WIFEXITED(status) && (WEXITSTATUS(status) & (REPORT_EXIT_OPERATIONAL |
									  REPORT_EXIT_USAGE)))) {
				struct scan_state_pass pass;

				/* A planned stop (max duration, active hours) is not a failure. */
				if (scan_state_latest_pass(p->st, pt->key, &pass) <= 0 ||
				    pass.result != SCAN_PASS_INTERRUPTED)
					pt->next_try = now + PATROL_RETRY_S;
			}
		}
	}
	return nr;
}

static void patrol_metrics(struct patrol *p)
{
	struct patrol_metrics_target mt[PATROL_MAX_TARGETS];
	int ret;

	if (!p->cfg.metrics_file[0])
		return;
	for (unsigned i = 0; i < p->nr; i++) {
		mt[i].name = p->t[i].c.name;
		mt[i].key = p->t[i].key;
		mt[i].devices = p->t[i].devices;
		mt[i].available = !p->t[i].broken;
		mt[i].running = p->t[i].pid != 0;
	}
	ret = patrol_metrics_write(p->st, mt, p->nr, p->cfg.metrics_file);
	if (ret < 0)
		report_err("warning: cannot write the metrics file %s: %s", p->cfg.metrics_file,
			strerror(-ret));
}

/* SIGHUP: take a new config when it is good, keeping running scans of kept targets. */
static void patrol_reload(struct patrol *p)
{
	struct patrol_config *cfg = malloc(sizeof(*cfg));
	struct patrol_target *t = NULL;
	char err[2048];

	if (!cfg)
		return;
	if (patrol_load(p, cfg, &t, err, sizeof(err)) < 0) {
		report_err("patrol: reload refused, keeping the running config: %s", err);
		free(cfg);
		return;
	}
	if (strcmp(cfg->state_dir, p->cfg.state_dir) != 0)
		report_err("patrol: state_dir changes take effect on restart; keeping %s",
			p->cfg.state_dir);
	snprintf(cfg->state_dir, sizeof(cfg->state_dir), "%s", p->cfg.state_dir);
	for (unsigned i = 0; i < p->nr; i++) {
		unsigned k;

		if (!p->t[i].pid)
			continue;
		for (k = 0; k < cfg->nr_targets; k++)
			if (strcmp(t[k].c.name, p->t[i].c.name) == 0 &&
			    strcmp(t[k].key, p->t[i].key) == 0)
				break;
		if (k < cfg->nr_targets) {
			t[k].pid = p->t[i].pid;		/* keeps running under the new config */
			t[k].active = p->t[i].active;
		} else {
			kill(p->t[i].pid, SIGTERM);	/* removed: checkpoint and stop */
			waitpid(p->t[i].pid, NULL, 0);
		}
	}
	free(p->t);
	p->t = t;
	p->nr = cfg->nr_targets;
	p->cfg = *cfg;
	free(cfg);
	fprintf(stderr, "mediascan: patrol: config reloaded, %u targets\n", p->nr);
}

/* --check: print each target as patrol will run it, its hook exactly as sh -c gets it. */
static void patrol_print_check(const struct patrol *p)
{
	for (unsigned i = 0; i < p->nr; i++) {
		char sz[32], w[32];

		if (p->t[i].broken) {
			/* Not a config error: patrol runs the others and retries this one. */
			fprintf(stderr, "mediascan: %s (patrol retries it every %d s)\n",
				p->t[i].broken_why, patrol_retry_s());
			printf("%s: %s, not open yet\n", p->t[i].c.name, p->t[i].c.path);
		} else {
			printf("%s: %s, %s planned, window %s, disks", p->t[i].c.name,
			       p->t[i].c.path,
			       report_fmt_bytes(p->t[i].planned_bytes, sz, sizeof(sz)),
			       report_fmt_duration(p->t[i].c.o.window_s, w, sizeof(w)));
			for (unsigned k = 0; k < p->t[i].nr_disks; k++)
				printf(" %s", p->t[i].disks[k]);
			printf("\n");
		}
		/* the hook exactly as it will run, so a cut or a surprise shows here */
		if (p->t[i].c.o.on_damage[0]) {
			char esc[sizeof(p->t[i].c.o.on_damage) * 4];
			const char *c = report_escape(p->t[i].c.o.on_damage, esc, sizeof(esc));

			/* shell-quoted, control bytes escaped: what sh -c is handed */
			fputs("  on_damage: /bin/sh -c '", stdout);
			for (; *c; c++)
				if (*c == '\'')
					fputs("'\\''", stdout);
				else
					putchar(*c);
			printf("'  (killed after %s)\n",
			       report_fmt_duration(p->t[i].c.o.hook_timeout_s, w, sizeof(w)));
		} else {
			printf("  on_damage: none\n");
		}
	}
}

/* Return 0 after opening the state store of p, or the exit status after saying why. */
static int patrol_open_state(struct patrol *p)
{
	char warn[512] = "";
	int ret;

	ret = pass_check_state_dir(p->cfg.state_dir, warn, sizeof(warn));
	if (ret < 0) {
		report_err("patrol: %s", warn);
		return REPORT_EXIT_OPERATIONAL;
	}
	ret = scan_state_open(p->cfg.state_dir, &p->st, warn, sizeof(warn));
	if (warn[0])
		report_err("warning: %s", warn);
	if (ret < 0) {
		report_err("patrol: cannot open the state store in %s: %s", p->cfg.state_dir,
			strerror(-ret));
		return REPORT_EXIT_OPERATIONAL;
	}
	return 0;
}

/*
 * Look at each target at now: stop a run whose active hours began or ended, retry a broken
 * target, set when the others are due. Return 1 if a target came back (metrics due now).
 */
static int patrol_review(struct patrol *p, time_t now)
{
	int now_min = minutes_now(), back = 0;

	for (unsigned i = 0; i < p->nr; i++) {
		struct patrol_target *pt = &p->t[i];

		if (pt->pid) {
			/* Active hours began or ended: restart the run at the new pace. */
			if (patrol_active_now(pt->c.o.active_start_min, pt->c.o.active_end_min,
					      now_min) != pt->active)
				kill(pt->pid, SIGTERM);
			continue;
		}
		if (pt->broken && now >= pt->next_try) {
			char rerr[10240];

			/* Try it again: mounted now, or its space map readable again? */
			if (patrol_resolve(p->config_file, pt, rerr, sizeof(rerr)) < 0) {
				pt->broken = 1;
				snprintf(pt->broken_why, sizeof(pt->broken_why), "%s", rerr);
			}
			patrol_tell_broken(pt, 1);
			if (pt->broken) {
				pt->next_try = now + patrol_retry_s();
				continue;
			}
			back = 1;
		}
		if (!pt->broken && now >= pt->next_try)
			pt->next_try = patrol_due(p, pt, now);
	}
	return back;
}

/*
 * Start due targets, the longest overdue first, so targets sharing a disk take turns: one
 * whose pass outlasts its window cannot starve the others.
 */
static void patrol_start_due(struct patrol *p, time_t now)
{
	for (;;) {
		struct patrol_target *best = NULL;
		int ret;

		for (unsigned i = 0; i < p->nr; i++) {
			struct patrol_target *pt = &p->t[i];
			int busy = 0;

			if (pt->pid || pt->broken || pt->next_try > now)
				continue;
			for (unsigned k = 0; k < p->nr && !busy; k++)
				busy = k != i && p->t[k].pid && disks_overlap(pt, &p->t[k]);
			if (busy)
				continue;	/* same disk: after the other scan */
			if (!best || pt->next_try < best->next_try)
				best = pt;
		}
		if (!best)
			break;
		ret = patrol_start(p, best, now);
		if (ret < 0 && ret != -EWOULDBLOCK)
			break;				/* fork failed */
	}
}

/* SIGTERM: every scan checkpoints and stops; the metrics say so. */
static void patrol_stop_all(struct patrol *p)
{
	for (unsigned i = 0; i < p->nr; i++)
		if (p->t[i].pid)
			kill(p->t[i].pid, SIGTERM);
	for (unsigned i = 0; i < p->nr; i++)
		if (p->t[i].pid)
			waitpid(p->t[i].pid, NULL, 0);
	for (unsigned i = 0; i < p->nr; i++)
		p->t[i].pid = 0;
	patrol_metrics(p);
}

int patrol_run(const char *config_file, int check)
{
	struct patrol p = { .config_file = config_file ? config_file : PATROL_DEFAULT_CONFIG };
	char err[2048] = "";
	time_t last_metrics = 0;
	struct sigaction sa;
	int ret;

	ret = patrol_load(&p, &p.cfg, &p.t, err, sizeof(err));
	if (ret < 0) {
		fprintf(stderr, "mediascan: %s\n", err);
		return REPORT_EXIT_USAGE;
	}
	p.nr = p.cfg.nr_targets;
	/* the metrics file is written every minute: say now when it cannot be (a symlink, another
	 * user's file, a FIFO, no directory), not only at each write */
	if (p.cfg.metrics_file[0] && (ret = report_out_check(p.cfg.metrics_file)) < 0)
		report_err("warning: %s: metrics_file %s cannot be written: %s", p.config_file,
			p.cfg.metrics_file, report_create_error(ret));
	if (check) {
		patrol_print_check(&p);
		free(p.t);
		return 0;
	}
	ret = patrol_open_state(&p);
	if (ret) {
		free(p.t);
		return ret;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_patrol_signal;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGCHLD, &sa, NULL);
	fprintf(stderr, "mediascan: patrol: %u targets, state in %s\n", p.nr, p.cfg.state_dir);
	for (unsigned i = 0; i < p.nr; i++) {
		if (p.t[i].broken) {
			patrol_tell_broken(&p.t[i], 0);
			p.t[i].next_try = time(NULL) + patrol_retry_s();
		}
	}

	while (!got_term) {
		time_t now = time(NULL);

		if (got_hup) {
			got_hup = 0;
			patrol_reload(&p);
		}
		got_chld = 0;
		if (patrol_reap(&p, now))
			last_metrics = 0;		/* a pass ended: show it now */
		if (patrol_review(&p, now))
			last_metrics = 0;		/* a target came back */
		patrol_start_due(&p, now);
		if (now - last_metrics >= patrol_metrics_s()) {
			patrol_metrics(&p);
			last_metrics = now;
		}
		if (!got_term && !got_hup && !got_chld)
			sleep(1);		/* a signal cuts it short */
	}
	patrol_stop_all(&p);
	fprintf(stderr, "mediascan: patrol: stopped\n");
	scan_state_close(p.st);
	free(p.t);
	return 0;
}
