/*
 * pass/pass_int.h - what the stages of a pass share inside pass/ (included by no file outside
 * it): the plan, scan, stack, map and record stages' state and functions. The stages are files
 * of this folder, as xfs_scrub's phases are; pass.c runs them as a table over one context and
 * undoes them with one teardown; say.c carries their messages.
 */
#ifndef MEDIASCAN_PASS_INT_H
#define MEDIASCAN_PASS_INT_H

#include "pass.h"

/* plan.c: the plan stage. */
struct pass_plan {
	struct map_plan *plan;
	struct map_range buf[64];	/* mapping's ranges, handed over as scan_ranges */
	const struct scan_watch *watch;	/* recheck: the open errors, as the plan */
	size_t nr_watch, pos;
	const struct map_target *t;
};

/**
 * pass_plan_open() - open the plan of a target as the scan's source.
 * @pp: the plan stage's state (closed with pass_plan_close())
 * @t: the open target
 * @po: plan options
 * @src: set to a source handing mapping's ranges over as mediascan's scan_ranges
 *
 * Return: 0, or -errno.
 */
int pass_plan_open(struct pass_plan *pp, struct map_target *t, const struct map_plan_opts *po,
		   struct scan_source *src);
/**
 * pass_plan_recheck() - make the history's open errors the plan (a recheck).
 * @pp: the plan stage's state
 * @t: the open target
 * @w: the watched open errors
 * @n: how many
 * @src: set to a source handing them over as scan_ranges
 *
 * Return: 0.
 */
int pass_plan_recheck(struct pass_plan *pp, const struct map_target *t,
		      const struct scan_watch *w, size_t n, struct scan_source *src);
/**
 * pass_plan_close() - close what pass_plan_open() opened (nothing open: nothing done).
 * @pp: the plan stage's state
 */
void pass_plan_close(struct pass_plan *pp);

/* scan.c: the scan stage's options from the target. */
/**
 * pass_scan_devices() - the devices of a target as the executor sees them.
 * @t: the open target
 * @devs: filled in, SCAN_MAX_DEVICES entries
 *
 * Return: the number of devices written.
 */
unsigned pass_scan_devices(const struct map_target *t, struct scan_device *devs);
/* Watch disk or partition name (a view of the governor) for scan device d. */
void pass_scan_view_add(struct scan_opts *so, const char *name, unsigned d);
/**
 * pass_scan_views() - watch each device of a target and its whole disk for foreground load.
 * @t: the open target
 * @so: its views set (the governor backs off when they are busy)
 */
void pass_scan_views(const struct map_target *t, struct scan_opts *so);

/* stack.c: the storage stack's safety rules. */
/*
 * Return 0 when the md arrays under t may be scanned (a degraded one with a warning through
 * h), or PASS_EXIT_OPERATIONAL (said why) when one resyncs, recovers, reshapes or checks.
 */
int pass_stack_check(const struct map_target *t, const struct pass_hooks *h);
/* Say through h why a stacked target is read as it is (ps->note), whatever the mode. */
void pass_stack_tell(const struct pass_stack *ps, const struct pass_hooks *h);
/* Say through h what changed in the stack's geometry when that stopped the scan. */
void pass_stack_tell_geometry(const struct pass_stack *ps, const struct pass_hooks *h);
/* A layer below cannot be mapped (dm-thin, ...): the scan is not whole, rep says which. */
void pass_stack_unmappable(struct pass_stack *ps, struct pass_report *rep);

/**
 * pass_stack_member_plan() - plan `scan MEMBER_DISK` through the stack above the disk.
 * @ps: the stack state; ps->mr gets the plan, ps->note what was done
 * @t: the open target (a bare disk)
 * @err: why it failed
 * @len: size of err
 *
 * The ranges of the disk that hold written data of the mounted filesystem above it (every
 * copy, parity of the rows) plus the layers' metadata on it.
 *
 * Return: 1 when planned so, 0 when t is not such a disk or the filesystem above is not
 * mounted or cannot be mapped down (the whole disk is planned, said in ps->note), -errno.
 */
int pass_stack_member_plan(struct pass_stack *ps, const struct map_target *t, char *err,
			   size_t len);
/* Open the mounted filesystem on top device top (kernel name) as a map target; -ENOENT when
 * it is not mounted (said in err). */
int pass_stack_top_open(const char *top, struct map_target *ft, char *err, size_t len);
/*
 * scan MEMBER_DISK: each media error of r on the disk mapped up the stack, its other copies
 * (or the rest of its stripe) read there and then (O_DIRECT, only that range) for the
 * verdict, into ps->rl: redundancy lost, or no copy reads (lost). r is left as it is: the
 * disk's own errors. Return 0 or -ENOMEM.
 */
int pass_stack_member_verdicts(struct pass_stack *ps, const struct scan_result *r);
/* Hand ps->mr over as the scan's source. */
void pass_stack_member_source(struct pass_stack *ps, struct scan_source *src);

/*
 * Return 1 after opening the members (O_DIRECT) under t's filesystem device when it sits on
 * md or dm, 0 when it does not (nothing opened), or -errno with why in err.
 */
int pass_stack_open(struct pass_stack *ps, const struct map_target *t, char *err, size_t len);
/*
 * Return 0 when the geometry of the stack under ps->top is what it was at pass_stack_open
 * (or could not be read then), -ESTALE with what changed in ps->geom_msg when it changed.
 */
int pass_stack_geometry_check(struct pass_stack *ps);
/* Keep the geometry the scan depends on now (ps->top's stack, or ps->gtop's). */
void pass_stack_geometry_mark(struct pass_stack *ps);
/*
 * Return pass_stack_geometry_check's answer when *at (CLOCK_MONOTONIC ns of the last check,
 * 0 never) is a second old or more, and set *at to now; 0 without a check otherwise.
 */
int pass_stack_geometry_due(struct pass_stack *ps, uint64_t *at);
/* Return scan_run's answer, the geometry watched from the progress callback (a change stops the
 * reads; *changed set, r not said stopped). */
int pass_stack_run_watched(struct pass_stack *ps, const struct scan_device *devs, unsigned n,
			   struct scan_source *src, struct scan_opts *so, struct scan_result *r,
			   int *changed);
/* The geometry changed: r failed (-ESTALE, not complete) with ps->geom_msg as its message. */
void pass_stack_geometry_fatal(const struct pass_stack *ps, struct scan_result *r);
/*
 * Return scan_run's answer for scan MEMBER_DISK (ps->member_plan) over devs, stopped with
 * r->fatal -ESTALE when a stack above the disk changed its geometry during the reads.
 */
int pass_stack_member_scan(struct pass_stack *ps, const struct scan_device *devs, unsigned n,
			   struct scan_source *src, struct scan_opts *so, struct scan_result *r);
/*
 * stack_compare.c: the copies compared while they are read. Open the comparer (ps->cmp);
 * register a row the source planned (dev: the leaf index of each leg); the executor's data
 * callback (arg: ps->cmp); after the reads, settle the rows that differed (each read twice
 * more) into ps->cd; close. Return 0 or -errno.
 */
void pass_stack_compare_choose(struct pass_stack *ps, const struct pass_opts *o);
int pass_stack_cmp_open(struct pass_stack *ps);
int pass_stack_cmp_row(struct pass_stack *ps, const struct map_row *row, const int *dev);
void pass_stack_cmp_data(void *arg, uint32_t dev, uint64_t off, const void *buf, uint32_t len);
int pass_stack_cmp_settle(struct pass_stack *ps);
void pass_stack_cmp_close(struct pass_stack *ps);
/* Close the members and free the verdicts. */
void pass_stack_close(struct pass_stack *ps);
/*
 * Return 0 with *planned set to the bytes a member-level scan of t's plan reads (every copy,
 * the parity of the rows, as pass_stack_scan maps them at reads of io_size), or -errno.
 */
int pass_stack_count(struct pass_stack *ps, struct map_target *t, const struct map_plan_opts *po,
		     uint32_t io_size, uint64_t *planned);
/*
 * Return scan_run's answer after reading src's ranges (the top's plan) on every copy. With
 * so->checkpoint set, checkpoints store the top device's cursor (no errors: see pass_stack);
 * errors already in r (loaded by a resume) move to ps->loaded.
 */
int pass_stack_scan(struct pass_stack *ps, struct scan_source *src, struct scan_opts *so,
		    struct scan_result *r, char *err, size_t len);
/*
 * Return 0 after turning r's member errors into the filesystem device's errors (no copy
 * reads: damage) or ps->rl (redundancy lost), the loaded ones added back, or -ENOMEM.
 */
int pass_stack_verdicts(struct pass_stack *ps, struct scan_result *r);
/* Return 0 after naming the owners of ps->rl and setting rep's exit bits, or -errno. */
int pass_stack_map(struct pass_stack *ps, struct pass_report *rep);

/**
 * pass_map() - the map stage: verdict counts and exit bits of every error of rep->r, owners
 * and paths of damage and of ranges at risk.
 * @rep: the report (t, r, no_checkpoint set); freed with pass_report_free()
 *
 * Return: 0, or -errno (the exit bits are set as far as they were).
 */
int pass_map(struct pass_report *rep);
/**
 * pass_report_free() - free what pass_map() allocated.
 * @rep: the report
 *
 * Return: 0.
 */
int pass_report_free(struct pass_report *rep);

/* record.c: the record stage (the state store). */
struct pass_record {
	struct scan_state *st;
	int64_t pass_id;
	int64_t pass_started;		/* unix seconds, of a resumed pass */
	const char *dev_keys[MAP_MAX_DEVICES];	/* what error rows name each device by */
	int warned;
	size_t unsaved;			/* errors the last checkpoint could not store */
	uint64_t cursor[MAP_MAX_DEVICES];	/* of the last checkpoint tried */
	unsigned nr_cursor;
	uint64_t scanned_bytes;
	/* The history's open errors on this target's devices: what a clean read may clear. */
	struct scan_watch *watch;
	int64_t *watch_ids;
	size_t nr_watch, cap_watch;
	const struct map_target *t;
	const struct pass_hooks *h;
	char key[8192];			/* the store's key of the target */
};

/*
 * Return 0 after opening the store and beginning (or resuming, *resumed set) the pass,
 * with so's watches, resume cursors and po's start offsets set and the errors found before
 * an interruption in r; -ENOENT for a recheck with nothing to recheck; -errno otherwise.
 */
int pass_record_begin(struct pass_record *k, const struct pass_opts *o, const struct map_target *t,
		      const struct vfy_ops *method, struct scan_opts *so, struct map_plan_opts *po,
		      struct scan_result *r, int *resumed);
/* Set the scan's checkpoint callback to store checkpoints in k. */
void pass_record_checkpoints(struct pass_record *k, struct scan_opts *so);
/*
 * A member-level scan's checkpoints store no errors (their verdicts need the whole pass): its
 * end stores the top device's errors (after the verdicts) with the cursor of a complete pass
 * (every device done) or top (device 0; any others read again). Set that cursor for
 * pass_record_unsaved, which stores it even when there is no error.
 */
void pass_record_end_cursor(struct pass_record *k, const struct map_target *t,
			    const struct scan_result *r, uint64_t top);
/*
 * Return 0 when every error of r is in the store (a refused last checkpoint is tried again);
 * -EIO when some are not: then r is failed and incomplete, with why in r->fatal_msg.
 */
int pass_record_unsaved(struct pass_record *k, struct scan_result *r);
/* End the pass in the store: complete, failed or interrupted as r says. */
void pass_record_finish(struct pass_record *k, const struct scan_result *r);
/*
 * Return the number of settled errors after storing owners, settling the open errors a
 * complete pass did not see fail, and telling (journal, on_damage hooks) damage not told
 * before (k->st may be NULL: everything is new); damage is marked told only once told.
 */
int pass_record_damage(struct pass_record *k, const struct pass_opts *o,
		       const struct pass_report *rep, const struct scan_opts *so, int resumed);
/*
 * Return the number of redundancy-lost ranges of rep->stack never told before, after storing
 * them all (member identity, array UUID, copies, owners) and telling the new ones (journal,
 * on_damage); -errno when the store refused them (said). Called while the pass runs.
 */
int pass_record_rl(struct pass_record *k, const struct pass_report *rep);
/* record_cd.c: store, journal and hand to on_damage the copies that differ; the number first
 * seen, or -errno. Settle: a complete comparing pass clears the rows it found agreeing. */
int pass_record_cd(struct pass_record *k, const struct pass_report *rep);
void pass_record_cd_settle(struct pass_record *k, const struct pass_report *rep);
/*
 * A resumed member-level pass: count in ps the open redundancy-lost ranges (no_copy apart) its
 * interrupted runs stored. Call before this run's are recorded.
 */
void pass_record_rl_earlier(struct pass_record *k, struct pass_stack *ps);
/* A complete pass (ended in the store) clears the redundancy-lost rows it did not see fail. */
void pass_record_rl_settle(struct pass_record *k, const struct pass_report *rep);
/*
 * A member-level pass stopped after its redundancy-lost ranges were stored: store where it
 * stopped (its checkpoints held the cursor before the first member error, whose verdict only
 * the run's end made), so a resume goes on from there.
 */
void pass_record_stack_cursor(struct pass_record *k, uint64_t top);
/* Close the store and free k's watches. */
void pass_record_close(struct pass_record *k);

/* method.c, prove.c: the method's fallbacks and the history's verdicts */

/**
 * pass_method_trust_keep() - keep each device's trust verdict in the history under its
 * identity (best effort; devices without an identity, or whose verdict came from there, are
 * skipped).
 * @st: the store (NULL: nothing kept)
 * @m: the method's devices
 * @method: the dataless method the verdicts are about
 */
void pass_method_trust_keep(struct scan_state *st, const struct pass_method *m,
			    const char *method);
/**
 * pass_method_use_read() - read instead of the chosen method (the proof failed, or the method
 * was voided mid-scan), with the isolation that fits the devices.
 * @m: the method and its devices
 * @t: the open target
 * @so: its vfy and vfy_isolate set
 */
void pass_method_use_read(struct pass_method *m, const struct map_target *t, struct scan_opts *so);
/**
 * pass_method_note() - add to why the method was chosen (printf-style).
 * @m: the method
 * @fmt: the format
 */
void pass_method_note(struct pass_method *m, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
