/*
 * pass/mode_int.h - the context the stages of a pass work on (pass.c) and the pass's modes
 * (mode.c): what a pass does differently by what it reads is one ops table per mode, chosen
 * once when the method stage has looked at the storage stack, so that no stage asks which
 * mode it is in. Included by pass.c and mode.c only.
 */
#ifndef MEDIASCAN_PASS_MODE_INT_H
#define MEDIASCAN_PASS_MODE_INT_H

#include "pass_int.h"

struct pass_mode_ops;

/* The context every stage works on; what is set up is said by its fields (see teardown). */
struct pass {
	const struct pass_opts *a;
	const struct pass_hooks *h;
	const struct pass_mode_ops *mode;	/* what the pass reads (mode.c) */
	const struct vfy_ops *method;	/* asked for, then the one that runs */
	const struct vfy_ops *asked;	/* asked for with --method, NULL auto */
	struct map_target t;
	int t_open;
	struct pass_lock lk;		/* lk.nr: locks held */
	struct pass_method cm;		/* cm.nr: devices the method opened */
	struct map_plan_opts po;
	struct pass_plan plan;		/* plan.plan: open */
	struct scan_device devs[SCAN_MAX_DEVICES];
	struct scan_source src;
	struct scan_opts so;
	struct scan_gov_opts go;
	struct scan_result r;
	struct pass_record ck;		/* ck.st: the store is open */
	struct pass_report rep;
	int rep_made;
	struct pass_stack stk;		/* opened by the method stage; its mode reads it */
	int resumed;
	double window_s;
	unsigned status;		/* enum pass_exit bits, once a stage stopped the pass */
	char err[1024];
};

/*
 * A mode of the pass: the target's own devices (a filesystem or a disk), a filesystem on
 * md/dm read at member level (every copy and parity), or one member disk of a stack planned
 * through the stacks above it. A NULL hook does nothing.
 */
struct pass_mode_ops {
	const char *name;
	int prove;			/* a dataless method proves it reads (else the data moves) */
	const char *count_what;		/* what failed when counting the plan failed */
	/* method stage: the method the mode reads with, and why (the note) */
	void (*method)(struct pass *p);
	/* count stage: so.planned_total, the bytes the scan reads; 0 or -errno */
	int (*count)(struct pass *p);
	/* plan stage: p->src, the plan as the scan's source; 0 or -errno (said, status set) */
	int (*source)(struct pass *p);
	/* scan stage: scan_run's answer, the errors the history lacks stored */
	int (*scan)(struct pass *p);
	/* map stage, before the owners: the verdicts of the errors, the history's share */
	void (*verdicts)(struct pass *p);
	/* map stage, after the owners: the owners of what the mode found; 0 or -errno */
	int (*map)(struct pass *p);
	/* report stage, once redundancy lost is stored: where a stopped pass resumes */
	void (*end)(struct pass *p);
};

/*
 * Return 0 after opening the storage stack under the target (unless --top-only or a recheck)
 * and choosing p->mode from it, its notes said; -errno (said, p->status set).
 */
int pass_mode_choose(struct pass *p);

extern const struct pass_mode_ops pass_mode_plain;

#endif
