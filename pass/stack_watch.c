/*
 * pass/stack_watch.c - the geometry a member-level scan depends on: the stacks under the
 * filesystem's device (or above a member disk, for scan MEMBER_DISK) read when the plan is
 * made and again at least once a second while the members are read, from the source's refills
 * and from the progress callback; a change stops the scan (exit bit 4, what changed said).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pass_int.h"
#include "stack.h"

/* How often the stack's geometry is read again while its members are read. */
#define GEOM_CHECK_NS 1000000000ull

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The geometry the scan depends on: the stack under ps->top or, for scan MEMBER_DISK, every
 * stack above the disk, one after the other. */
static int geom_read(const struct pass_stack *ps, char *out, size_t len)
{
	size_t used = 0;

	if (!ps->nr_gtop)
		return map_stack_geometry(NULL, ps->top, out, len);
	out[0] = '\0';
	for (unsigned i = 0; i < ps->nr_gtop; i++) {
		int ret = map_stack_geometry(NULL, ps->gtop[i], out + used, len - used);

		if (ret < 0)
			return ret;
		used += strlen(out + used);
	}
	return 0;
}

void pass_stack_geometry_mark(struct pass_stack *ps)
{
	ps->geom_known = geom_read(ps, ps->geom, sizeof(ps->geom)) == 0;
}

int pass_stack_geometry_check(struct pass_stack *ps)
{
	char *now;
	int ret;

	if (!ps->geom_known)
		return 0;
	now = malloc(sizeof(ps->geom));
	if (!now)
		return 0;			/* not known to have changed */
	ret = geom_read(ps, now, sizeof(ps->geom));
	if (ret == 0 && strcmp(now, ps->geom) == 0) {
		free(now);
		return 0;
	}
	if (ret < 0)
		snprintf(now, sizeof(ps->geom), "unreadable (%s)", strerror(-ret));
	{
		char what[700];

		map_stack_geometry_diff(ps->geom, now, what, sizeof(what));
		if (ps->member_plan)
			snprintf(ps->geom_msg, sizeof(ps->geom_msg), "geometry of the stack above "
				 "/dev/%.60s changed during the scan, scan stopped: the plan of its "
				 "written ranges no longer holds (scan again once the array or volume "
				 "is stable): %.600s", ps->disk, what);
		else
			snprintf(ps->geom_msg, sizeof(ps->geom_msg), "geometry of the stack under "
				 "/dev/%.60s changed during the scan, scan stopped (scan again once "
				 "the array or volume is stable): %.600s", ps->top, what);
	}
	free(now);
	return -ESTALE;
}

/*
 * The geometry checked from the progress callback too (the executor calls it while reads run,
 * whether or not a source refill is due): a change stops the scan the way --max-duration does.
 */
struct geom_watch {
	struct pass_stack *ps;
	void (*inner)(const struct scan_progress *p, void *arg);
	void *inner_arg;
	volatile sig_atomic_t *stop;
	uint64_t at;
	int changed;
};

int pass_stack_geometry_due(struct pass_stack *ps, uint64_t *at)
{
	uint64_t t = mono_ns();

	if (*at && t - *at < GEOM_CHECK_NS)
		return 0;
	*at = t;
	return pass_stack_geometry_check(ps);
}

static void geom_progress(const struct scan_progress *p, void *arg)
{
	struct geom_watch *w = arg;

	if (!w->changed && pass_stack_geometry_due(w->ps, &w->at) < 0) {
		w->changed = 1;
		if (w->stop)
			*w->stop = 1;
	}
	if (w->inner)
		w->inner(p, w->inner_arg);
}

/* scan_run with the geometry watched from the progress callback; *changed set when it changed. */
int pass_stack_run_watched(struct pass_stack *ps, const struct scan_device *devs, unsigned n,
			   struct scan_source *src, struct scan_opts *so, struct scan_result *r,
			   int *changed)
{
	struct geom_watch gw = { 0 };
	int ret;

	gw.ps = ps;
	gw.inner = so->progress;
	gw.inner_arg = so->progress_arg;
	gw.stop = so->stop;
	so->progress = geom_progress;
	so->progress_arg = &gw;
	ret = scan_run(devs, n, src, so, r);
	so->progress = gw.inner;
	so->progress_arg = gw.inner_arg;
	if (gw.changed) {
		/* our stop, not a signal's: the pass failed, it was not interrupted */
		*changed = 1;
		if (r->stopped == 1)
			r->stopped = 0;
		if (so->stop)
			*so->stop = 0;
	}
	return ret;
}

/* The geometry changed: not an error of ours to end the pass on: said, recorded failed, exit
 * bit 4. */
void pass_stack_geometry_fatal(const struct pass_stack *ps, struct scan_result *r)
{
	r->fatal = -ESTALE;
	r->complete = 0;
	snprintf(r->fatal_msg, sizeof(r->fatal_msg), "%.*s", (int)sizeof(r->fatal_msg) - 1,
		 ps->geom_msg);
}

int pass_stack_member_scan(struct pass_stack *ps, const struct scan_device *devs, unsigned n,
			   struct scan_source *src, struct scan_opts *so, struct scan_result *r)
{
	int changed = 0, ret = pass_stack_run_watched(ps, devs, n, src, so, r, &changed);

	/* a change during the last reads: what was read may not be what the plan meant */
	if (ret == 0 && !changed && pass_stack_geometry_check(ps) < 0)
		changed = 1;
	if (changed)
		pass_stack_geometry_fatal(ps, r);
	return ret;
}
