/*
 * patrol/targets.c - the patrol's target table: each configured target resolved (state key,
 * physical disks, planned size, its window checked), the config loaded with one target per
 * filesystem or disk, a target that cannot be scanned now told and retried, and when each
 * target is due.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "report.h"
#include "config_file.h"
#include "journal.h"
#include "patrol_int.h"
#include "units.h"

static void set_err(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void set_err(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
}

/*
 * Open target pt's path to learn its state key, physical disks and planned size, and check
 * its window; 0, or -errno with "FILE:LINE: ..." in err.
 */
int patrol_resolve(const char *file, struct patrol_target *pt, char *err, size_t len)
{
	struct map_plan_opts po;
	struct map_target t;
	char terr[1024];
	int ret, cls;

	/*
	 * A target that cannot be opened (not mounted now, a device gone) or planned (a corrupt
	 * space map the kernel refuses) is not a config error: it is reported and retried, and
	 * the other targets are patrolled meanwhile (one broken filesystem used to stop all).
	 */
	pt->broken = 0;
	ret = map_target_open(pt->c.path, &t, terr, sizeof(terr), &cls);
	if (ret == -EOPNOTSUPP && cls == MAP_TERR_USAGE) {
		/* mounted, but with a filesystem mediascan cannot scan (tmpfs, btrfs, NFS): a
		 * config error, not something a retry fixes */
		set_err(err, len, "%s:%u: target '%s': %s", file, pt->c.path_line, pt->c.name,
			terr);
		return -EINVAL;
	}
	if (ret < 0) {
		pt->broken = 1;
		snprintf(pt->broken_why, sizeof(pt->broken_why), "%s:%u: target '%s': %s", file,
			 pt->c.path_line, pt->c.name, terr);
		return 0;
	}
	pass_target_key(&t, pt->key, sizeof(pt->key));
	pt->devices[0] = '\0';
	for (unsigned d = 0, n = 0; d < t.nr_devices && n < sizeof(pt->devices); d++)
		n += (unsigned)snprintf(pt->devices + n, sizeof(pt->devices) - n, "%s%s",
					d ? "," : "", t.devices[d].path);
	pt->nr_disks = (unsigned)map_target_disks(&t, pt->disks, PASS_MAX_DISKS);
	memset(&po, 0, sizeof(po));
	po.merge_gap = (uint64_t)-1;
	ret = pass_plan_count(&t, &po, &pt->planned_bytes);
	map_target_close(&t);
	if (ret < 0) {
		pt->broken = 1;
		snprintf(pt->broken_why, sizeof(pt->broken_why),
			 "%s:%u: target '%s': cannot plan %s: %s", file, pt->c.path_line,
			 pt->c.name, pt->c.path, strerror(-ret));
		return 0;
	}
	if (pt->c.o.rate_max_bps &&
	    (double)pt->planned_bytes / pt->c.o.window_s > (double)pt->c.o.rate_max_bps) {
		char need[32], max[32], w[32];

		set_err(err, len, "%s:%u: impossible window for target '%s': %s in %s needs "
			 "%s/s, above rate_max %s/s", file,
			 pt->c.o.window_line ? pt->c.o.window_line : pt->c.line, pt->c.name,
			 report_fmt_bytes(pt->planned_bytes, w, sizeof(w)),
			 report_fmt_duration(pt->c.o.window_s, need, sizeof(need)),
			 report_fmt_bytes((uint64_t)((double)pt->planned_bytes / pt->c.o.window_s),
				       max, sizeof(max)),
			 report_fmt_bytes(pt->c.o.rate_max_bps, terr, sizeof(terr)));
		return -EINVAL;
	}
	return 0;
}

/* Seconds between tries of a target that failed or cannot be opened (tests may shorten it). */
int patrol_retry_s(void)
{
	const char *s = getenv("MEDIASCAN_PATROL_RETRY_S");
	int v = s ? atoi(s) : 0;

	return v > 0 && v <= PATROL_RETRY_S ? v : PATROL_RETRY_S;
}

/* Tell (stderr and journal) that pt became unavailable, or available again. */
void patrol_tell_broken(struct patrol_target *pt, int was_broken)
{
	char msg[11264];
	struct report_event ev = {
		.type = REPORT_EV_SCAN_FAILED, .message = msg, .target = pt->c.name,
	};

	if (pt->broken && !was_broken)
		snprintf(msg, sizeof(msg), "%s: cannot be scanned now: %s; the other targets go "
			 "on, this one is retried every %d s", pt->c.name, pt->broken_why,
			 patrol_retry_s());
	else if (!pt->broken && was_broken)
		snprintf(msg, sizeof(msg), "%s: can be scanned again", pt->c.name);
	else
		return;
	/* Without journald the event itself goes to stderr: say it once. */
	if (!pt->broken || report_journal_available())
		report_err("patrol: %s", msg);
	if (pt->broken)
		report_journal_send(&ev);
}

/* Return 0 after loading and checking the config into p (targets resolved), or -errno. */
int patrol_load(struct patrol *p, struct patrol_config *cfg, struct patrol_target **tp,
		       char *err, size_t len)
{
	struct patrol_target *t;
	int ret = patrol_config_secure(p->config_file, err, len);

	if (ret < 0)
		return ret;
	ret = patrol_config_load(p->config_file, cfg, err, len);
	if (ret < 0)
		return ret;
	t = calloc(cfg->nr_targets, sizeof(*t));
	if (!t)
		return -ENOMEM;
	for (unsigned i = 0; i < cfg->nr_targets; i++) {
		t[i].c = cfg->targets[i];
		ret = patrol_resolve(p->config_file, &t[i], err, len);
		if (ret < 0) {
			free(t);
			return ret;
		}
		/* one target per filesystem or disk: two would scan it twice and keep one
		 * history under two names */
		for (unsigned k = 0; k < i; k++) {
			if (t[i].broken || t[k].broken ? strcmp(t[i].c.path, t[k].c.path) != 0 :
			    strcmp(t[i].key, t[k].key) != 0)
				continue;
			set_err(err, len, "%s:%u: target '%s' (%s) is the same filesystem or device as "
				"target '%s' (line %u): one target each", p->config_file,
				t[i].c.path_line, t[i].c.name, t[i].c.path, t[k].c.name,
				t[k].c.path_line);
			free(t);
			return -EINVAL;
		}
	}
	*tp = t;
	return 0;
}

/* Return 1 when targets a and b share a physical disk, else 0. */
int disks_overlap(const struct patrol_target *a, const struct patrol_target *b)
{
	for (unsigned i = 0; i < a->nr_disks; i++)
		for (unsigned k = 0; k < b->nr_disks; k++)
			if (strcmp(a->disks[i], b->disks[k]) == 0)
				return 1;
	return 0;
}

/*
 * Return when target pt is (or was) due: 0 for a target never scanned, the start of an
 * unfinished pass, the window end after a complete one. Earlier means more overdue.
 */
time_t patrol_due(struct patrol *p, struct patrol_target *pt, time_t now)
{
	struct scan_state_pass pass;
	int ret = scan_state_latest_pass(p->st, pt->key, &pass);

	if (ret < 0)
		return now;			/* the store is unreadable: try now */
	if (ret == 0)
		return 0;			/* never scanned: first in line */
	switch (pass.result) {
	case SCAN_PASS_RUNNING:
	case SCAN_PASS_INTERRUPTED:
		return (time_t)pass.started < now ? (time_t)pass.started : now;
	case SCAN_PASS_COMPLETE:
		return (time_t)(pass.started + (int64_t)pt->c.o.window_s);
	case SCAN_PASS_FAILED:
		return (time_t)(pass.ended + PATROL_RETRY_S);
	}
	return now;
}
