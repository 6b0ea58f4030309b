/*
 * history/state.h - the state store: one SQLite database (state_dir/mediascan.db) holding
 * scan targets, passes, per-device checkpoint cursors and every media error ever seen, so an
 * interrupted scan resumes where it stopped and later passes can report what is new or cleared.
 *
 * A pass goes running -> complete | interrupted | failed. scan_state_finish() ends it; an
 * interrupted (or crashed, still "running") pass is the latest pass of its target and is found
 * again by scan_state_find_resumable(), then reopened by scan_state_resume(). Errors belong to
 * the target (unique by device, offset, length); error_passes records which passes saw them.
 * One struct scan_state is used by one thread at a time.
 *
 * The files behind it: store.c (open, close), schema.c (migrations, statements), passes.c
 * (passes, checkpoints, settle), queries.c (the history status, report, metrics and the HTML
 * read), forget.c; what they share is in state_int.h, which nothing outside history/ includes.
 */
#ifndef MEDIASCAN_STATE_H
#define MEDIASCAN_STATE_H

#include <stddef.h>
#include <stdint.h>

#include "scan.h"

#define SCAN_STATE_DB_NAME "mediascan.db"
#define SCAN_STATE_SCHEMA_VERSION 8
#define SCAN_STATE_APPLICATION_ID 0x4d534331	/* "MSC1" in PRAGMA application_id */

struct scan_state;

enum scan_pass_result {
	SCAN_PASS_RUNNING,		/* in progress, or its process died */
	SCAN_PASS_COMPLETE,		/* every planned range was read */
	SCAN_PASS_INTERRUPTED,		/* stopped on request (signal, window end): resumable */
	SCAN_PASS_FAILED,		/* stopped on an operational error */
};

/* One row of passes, as scan_state_get_pass() returns it. */
struct scan_state_pass {
	int64_t id;			/* the database row: not for people */
	int64_t target_id;
	int64_t number;			/* this pass's number among its target's passes (1..) */
	int64_t started;		/* unix seconds */
	int64_t ended;			/* unix seconds, 0 while running */
	uint64_t planned_bytes;
	uint64_t scanned_bytes;
	double bytes_per_s;
	enum scan_pass_result result;
	char method[32];
	char engine[16];
	/* Its pace against a window, at its last checkpoint (unix seconds; 0: none, unknown). */
	int64_t window_end;		/* when the window ends */
	int64_t projected_end;		/* when the pass is projected to end */
	int64_t window_late_since;	/* since when it is said to miss the window */
};

/* Called by scan_state_load_errors() for each error; a negative return stops the walk. */
typedef int (*scan_state_error_fn)(const struct scan_error *e, const char *device, void *arg);

/**
 * scan_state_open() - open the store in a state directory.
 * @state_dir: the directory (created 0700 if missing)
 * @out: set to the store (close it with scan_state_close())
 * @warn: set to a warning or the reason of a failure ("" when there is nothing to say)
 * @warnlen: size of @warn
 *
 * A corrupt or foreign mediascan.db is renamed to mediascan.db.bad-DATE, a fresh one created
 * and @warn says so.
 *
 * Return: 0, or -errno with the reason in @warn.
 */
int scan_state_open(const char *state_dir, struct scan_state **out, char *warn, size_t warnlen);
/**
 * scan_state_close() - finalize the statements and close the database.
 * @st: the store (may be NULL)
 *
 * Return: 0.
 */
int scan_state_close(struct scan_state *st);
/**
 * scan_state_errmsg() - the message of the last SQLite failure on a store.
 * @st: the store (may be NULL)
 *
 * Return: the message, "" if none: for warnings and logs.
 */
const char *scan_state_errmsg(const struct scan_state *st);
/**
 * scan_pass_result_name() - the name stored for a pass result.
 * @r: the result
 *
 * Return: "running", "complete", "interrupted", "failed" (or "unknown").
 */
const char *scan_pass_result_name(enum scan_pass_result r);

/**
 * scan_state_set_devices() - tell the store the kernel path of each device key.
 * @st: the store
 * @keys: the device keys (what error rows name devices by)
 * @paths: the kernel path of each, for people
 * @n: how many (at most 8)
 *
 * Return: 0, or -errno.
 */
int scan_state_set_devices(struct scan_state *st, const char *const *keys,
			   const char *const *paths, unsigned n);
/**
 * scan_state_adopt_key() - rename a target known by the key of an older version.
 * @st: the store
 * @key: the target's key now
 * @legacy_key: its key in an older version (made of kernel names)
 *
 * Return: 1 after renaming, 0 when there was none or @key is known already, or -errno.
 */
int scan_state_adopt_key(struct scan_state *st, const char *key, const char *legacy_key);
/**
 * scan_state_begin_pass() - begin a new running pass of a target.
 * @st: the store
 * @key: the target's key (created, or updated with @path and @fs_type)
 * @path: the target's path
 * @fs_type: its filesystem type
 * @planned_bytes: the bytes the pass plans to read
 * @method: the verify method
 * @engine: the I/O engine
 * @recheck: a recheck pass (re-reads only the open errors)
 * @pass_id: set to the new pass
 *
 * Earlier unfinished passes of the target stop being resumable. A recheck pass is never the
 * target's latest or last complete pass, and is never resumed.
 *
 * Return: 0, or -errno.
 */
int scan_state_begin_pass(struct scan_state *st, const char *key, const char *path,
			  const char *fs_type, uint64_t planned_bytes, const char *method,
			  const char *engine, int recheck, int64_t *pass_id);
/**
 * scan_state_find_resumable() - find the pass of a target to resume.
 * @st: the store
 * @key: the target's key
 * @pass_id: set to the pass
 * @cursor: set, for each of @nr_devs devices, to its offset in bytes (0 without a cursor)
 * @nr_devs: how many devices
 *
 * Return: 1 when the latest pass of @key is running or interrupted, 0 if none, or -errno.
 */
int scan_state_find_resumable(struct scan_state *st, const char *key, int64_t *pass_id,
			      uint64_t *cursor, unsigned nr_devs);
/**
 * scan_state_resume() - mark an interrupted (or crashed running) pass running again.
 * @st: the store
 * @pass_id: the pass
 *
 * Return: 0, or -errno.
 */
int scan_state_resume(struct scan_state *st, int64_t pass_id);
/**
 * scan_state_checkpoint() - store a pass's progress and new errors in one transaction.
 * @st: the store
 * @pass_id: the running pass
 * @cursor: per device, bytes: everything below was read
 * @nr_devs: how many devices
 * @scanned_bytes: the bytes scanned so far
 * @new_errors: errors to upsert (merged with overlapping rows)
 * @n: how many
 * @device_paths: device name of each error, by its dev_idx
 *
 * Return: 0, or -errno with nothing stored (-ESTALE if the pass is not running).
 */
int scan_state_checkpoint(struct scan_state *st, int64_t pass_id, const uint64_t *cursor,
			  unsigned nr_devs, uint64_t scanned_bytes,
			  const struct scan_error *new_errors, size_t n,
			  const char *const *device_paths);
/**
 * scan_state_pass_pace() - store a running pass's pace against its window.
 * @st: the store
 * @pass_id: the running pass
 * @window_end: when the window ends, unix seconds (0: no window)
 * @projected_end: when the pass is projected to end, unix seconds (0: not known yet)
 * @late_since: since when the pass is said to miss its window, unix seconds (0: it is not)
 *
 * Return: 0, or -errno (-ESTALE if the pass is not running).
 */
int scan_state_pass_pace(struct scan_state *st, int64_t pass_id, int64_t window_end,
			 int64_t projected_end, int64_t late_since);
/**
 * scan_state_finish() - end a running pass.
 * @st: the store
 * @pass_id: the pass
 * @result: how it ended
 * @scanned_bytes: the bytes it scanned
 * @bytes_per_s: its rate
 *
 * Return: 0, or -errno (-ESTALE if not running).
 */
int scan_state_finish(struct scan_state *st, int64_t pass_id, enum scan_pass_result result,
		      uint64_t scanned_bytes, double bytes_per_s);
/**
 * scan_state_get_pass() - read one pass.
 * @st: the store
 * @pass_id: the pass
 * @p: filled with the pass
 *
 * Return: 0, -ENOENT if there is no such pass, or -errno.
 */
int scan_state_get_pass(struct scan_state *st, int64_t pass_id, struct scan_state_pass *p);
/**
 * scan_state_load_errors() - hand the errors seen in a pass to a callback.
 * @st: the store
 * @pass_id: the pass
 * @fn: called for each error, ordered by dev_idx, offset
 * @arg: passed to @fn
 *
 * Return: the number of errors handed to @fn, a negative value @fn returned, or -errno.
 */
int scan_state_load_errors(struct scan_state *st, int64_t pass_id, scan_state_error_fn fn,
			   void *arg);
/* An open error of a target's history (strings valid during the callback). */
struct scan_state_open_error {
	int64_t id;
	const char *device;		/* the device's key (a path in rows of older versions) */
	const char *device_path;	/* its kernel path when last written */
	uint64_t offset, length;	/* bytes */
};
typedef int (*scan_state_open_fn)(const struct scan_state_open_error *e, void *arg);
/**
 * scan_state_open_errors() - hand the open errors of a target to a callback.
 * @st: the store
 * @key: the target's key
 * @fn: called for each open error, by device, offset
 * @arg: passed to @fn
 *
 * Return: the number of open errors handed to @fn, or -errno.
 */
int scan_state_open_errors(struct scan_state *st, const char *key, scan_state_open_fn fn,
			   void *arg);

/* What a complete pass found of an open error it did not see fail. */
enum scan_state_settle_how {
	SCAN_SETTLE_KEEP,		/* not read (whole) this pass: stays open */
	SCAN_SETTLE_READ_CLEAN,		/* every byte read cleanly: cleared */
	SCAN_SETTLE_UNALLOCATED,	/* not in this pass's plan: no longer allocated */
};
struct scan_state_outcome {
	int64_t id;
	enum scan_state_settle_how how;
};
/**
 * scan_state_settle() - settle the open errors a complete pass did not see fail.
 * @st: the store
 * @key: the target's key
 * @pass_id: the complete pass
 * @v: what the pass found of each error (kept, read cleanly, no longer allocated)
 * @n: how many
 *
 * An error the pass saw fail is never settled.
 *
 * Return: the number of open errors settled (cleared as read cleanly, or marked no longer
 * allocated), or -errno (-EINVAL when the pass is not complete or of another target).
 */
int scan_state_settle(struct scan_state *st, const char *key, int64_t pass_id,
		      const struct scan_state_outcome *v, size_t n);


/* History, for status, report and metrics. */

/* One target with its latest pass, last two complete passes and damage counts. */
struct scan_state_target {
	int64_t id;
	const char *key, *path, *fs_type;	/* valid during the callback */
	int has_latest, has_complete, has_prev_complete;
	struct scan_state_pass latest;
	struct scan_state_pass last_complete;
	struct scan_state_pass prev_complete;	/* the complete pass before last_complete */
	unsigned open_errors;		/* damage (verdict "damage") still open */
	unsigned cleared_errors;
	unsigned open_slow;		/* slow ranges still open */
	unsigned open_device_faults;	/* device-fault ranges still open */
	unsigned transient_latest;	/* transient errors of the last complete pass and later */
	unsigned open_redundancy_lost;	/* member ranges that lost a copy, still open */
	unsigned open_copies_differ;	/* runs whose copies disagree, still open */
};

/* One error row of the history (strings valid during the callback). */
struct scan_state_error_row {
	int64_t id;
	int64_t first_pass_id, last_pass_id, cleared_pass_id;
	const char *device, *error, *cls;
	const char *verdict;		/* damage, slow or device-fault (result.c's names) */
	uint64_t latency_ns;		/* slow: the slowest answer seen */
	const char *owners_json;	/* NULL when never mapped */
	uint64_t offset, length;	/* bytes */
	int64_t first_seen, last_seen, cleared_at;	/* unix seconds */
	unsigned times_seen;
	int cleared;			/* state 'cleared' (else 'open') */
	int unallocated;		/* cleared because no longer allocated, not read */
};

/* Called for each target or error row; a negative return stops the walk. */
typedef int (*scan_state_target_fn)(const struct scan_state_target *t, void *arg);
typedef int (*scan_state_row_fn)(const struct scan_state_error_row *e, void *arg);

/**
 * scan_state_latest_pass() - the latest pass of a target.
 * @st: the store
 * @key: the target's key
 * @p: filled with the pass
 *
 * Return: 1, 0 if the target has no pass, or -errno.
 */
int scan_state_latest_pass(struct scan_state *st, const char *key, struct scan_state_pass *p);
/**
 * scan_state_set_owners_range() - record the owners of the errors within a range.
 * @st: the store
 * @pass_id: a pass of the target
 * @device: the device's key
 * @offset: start of the range, bytes
 * @length: its length, bytes
 * @owners_json: the owners, JSON
 *
 * A coalesced report error may span several stored rows.
 *
 * Return: the number of errors whose owners_json was set, or -errno.
 */
int scan_state_set_owners_range(struct scan_state *st, int64_t pass_id, const char *device,
				uint64_t offset, uint64_t length, const char *owners_json);
/**
 * scan_state_list_targets() - hand every target, by path, to a callback.
 * @st: the store
 * @fn: called for each target
 * @arg: passed to @fn
 *
 * Return: the number of targets handed to @fn, a negative value of @fn, or -errno.
 */
int scan_state_list_targets(struct scan_state *st, scan_state_target_fn fn, void *arg);
/**
 * scan_state_list_errors() - hand the damage rows of a target, newest first, to a callback.
 * @st: the store
 * @target_id: the target
 * @since: only rows last seen at or after this (unix seconds)
 * @all: cleared rows too (else open ones only)
 * @fn: called for each row
 * @arg: passed to @fn
 *
 * Return: the number of rows handed to @fn, a negative value of @fn, or -errno.
 */
int scan_state_list_errors(struct scan_state *st, int64_t target_id, int64_t since, int all,
			   scan_state_row_fn fn, void *arg);
/**
 * scan_state_count_unnotified() - count the errors of a range not yet told.
 * @st: the store
 * @pass_id: a pass of the target
 * @device: the device's key
 * @offset: start of the range, bytes
 * @length: its length, bytes
 *
 * Nothing is marked: scan_state_take_unnotified() does that once the damage was told.
 *
 * Return: the number of stored errors of the target on @device overlapping the range not
 * yet notified (0: already told; 1 when no row overlaps it: a row the store failed to keep is
 * new, never told), or -errno.
 */
int scan_state_count_unnotified(struct scan_state *st, int64_t pass_id, const char *device,
				uint64_t offset, uint64_t length);
/**
 * scan_state_take_unnotified() - mark the errors of a range notified.
 * @st: the store
 * @pass_id: a pass of the target
 * @device: the device's key
 * @offset: start of the range, bytes
 * @length: its length, bytes
 *
 * Return: the number of stored errors of the target on @device overlapping the range not yet
 * notified, now marked notified (0: already told), or -errno.
 */
int scan_state_take_unnotified(struct scan_state *st, int64_t pass_id, const char *device,
			       uint64_t offset, uint64_t length);

/* One pass of a target's history with what it found and cleared (scan_state_list_passes). */
struct scan_state_pass_row {
	struct scan_state_pass pass;
	int recheck;			/* re-read only the open errors */
	unsigned found;			/* damage, slow and device-fault rows first seen in it */
	unsigned cleared;		/* rows it read cleanly */
};
typedef int (*scan_state_pass_fn)(const struct scan_state_pass_row *p, void *arg);
/**
 * scan_state_list_passes() - hand the passes of a target, oldest first, to a callback.
 * @st: the store
 * @target_id: the target
 * @fn: called for each pass with what it found and cleared
 * @arg: passed to @fn
 *
 * Return: the number of passes handed to @fn, a negative value of @fn, or -errno.
 */
int scan_state_list_passes(struct scan_state *st, int64_t target_id, scan_state_pass_fn fn,
			   void *arg);

/*
 * Redundancy lost (redundancy.c): a member range of an array that failed while another copy
 * (a mirror, or the rest of its stripe) read fine. Strings are borrowed.
 */
struct scan_state_rl {
	const char *member;		/* the member disk's identity (WWN/serial[:partN]) */
	const char *member_path;	/* its kernel path, for people */
	const char *array_uuid;		/* md's uuid or the DM uuid ("" when unknown) */
	const char *array_path;		/* /dev/md0 */
	uint64_t offset, length;	/* bytes on the member */
	int err;			/* -errno of the read */
	int no_copy;			/* no other copy read either */
	int parity;			/* a parity chunk: no owner above */
	int has_fs;			/* fs_offset is set */
	uint64_t fs_offset;		/* bytes on the filesystem's device */
	const char *copies_json;	/* the copies that read fine, JSON (may be NULL) */
	const char *owners_json;	/* the files and metadata at risk, JSON (may be NULL) */
	const char *repair;		/* the command that repairs it (may be NULL) */
};
/* One redundancy-lost row of the history (strings valid during the callback). */
struct scan_state_rl_row {
	int64_t id;
	int64_t first_pass_id, last_pass_id, cleared_pass_id;
	struct scan_state_rl rl;
	int64_t first_seen, last_seen, cleared_at;	/* unix seconds */
	unsigned times_seen;
	int cleared;			/* a later complete member-level pass read it cleanly */
};
typedef int (*scan_state_rl_fn)(const struct scan_state_rl_row *e, void *arg);
/**
 * scan_state_record_rl() - store the redundancy-lost ranges a pass found, in one transaction.
 * @st: the store
 * @pass_id: the pass
 * @v: the ranges
 * @n: how many
 * @fresh: when not NULL, set per range to 1 when it was never told before
 *
 * A range seen again (same member, array and bytes) is the same row: times_seen counts the
 * passes, a cleared row opens again (untold). Nothing is marked told here: the caller does
 * that with scan_state_told_rl() once the journal and on_damage told it.
 *
 * Return: the number of ranges never told before, or -errno (nothing stored).
 */
int scan_state_record_rl(struct scan_state *st, int64_t pass_id, const struct scan_state_rl *v,
			 size_t n, int *fresh);
/**
 * scan_state_told_rl() - mark redundancy-lost ranges as told (on_damage took them).
 * @st: the store
 * @pass_id: a pass of the target the ranges belong to
 * @v: the ranges as given to scan_state_record_rl()
 * @idx: which of @v were told
 * @n: how many indexes
 *
 * Return: the number of rows marked, or -errno (none marked: they are offered again).
 */
int scan_state_told_rl(struct scan_state *st, int64_t pass_id, const struct scan_state_rl *v,
		       const size_t *idx, size_t n);
/**
 * scan_state_settle_rl() - clear the open redundancy-lost rows a complete member-level pass
 * did not see fail (it read every copy again).
 * @st: the store
 * @pass_id: the complete pass
 *
 * Return: the number of rows cleared, or -errno.
 */
int scan_state_settle_rl(struct scan_state *st, int64_t pass_id);
/**
 * scan_state_list_rl() - hand the redundancy-lost rows of a target, newest first, to a callback.
 * @st: the store
 * @target_id: the target
 * @since: only rows last seen at or after this (unix seconds)
 * @all: cleared rows too (else open ones only)
 * @fn: called for each row
 * @arg: passed to @fn
 *
 * Return: the number of rows handed to @fn, a negative value of @fn, or -errno.
 */
int scan_state_list_rl(struct scan_state *st, int64_t target_id, int64_t since, int all,
		       scan_state_rl_fn fn, void *arg);

/* Copies that differ (a comparing member-level pass): one run of an array's row. */
struct scan_state_cd {
	const char *array_uuid;		/* md's uuid or the DM uuid ("" when unknown) */
	const char *array_path;		/* /dev/md0 */
	const char *level;		/* raid1, raid5, ... */
	const char *member;		/* the first leg's member identity (WWN/serial, or path) */
	uint64_t offset, length;	/* bytes on that member */
	const char *wrong;		/* the wrong copy's path, NULL when it cannot be known */
	const char *how;		/* majority, syndrome, metadata-crc, unknown */
	const char *legs_json;		/* every leg, JSON (may be NULL) */
	const char *owners_json;	/* the files and metadata it holds, JSON (may be NULL) */
};
/* One copies-differ row of the history (strings valid during the callback). */
struct scan_state_cd_row {
	int64_t id, first_pass_id, last_pass_id;
	struct scan_state_cd cd;
	int64_t first_seen, last_seen;
	unsigned times_seen;
	int cleared;
};
typedef int (*scan_state_cd_fn)(const struct scan_state_cd_row *e, void *arg);
/*
 * history/differ.c: store the copies-differ runs a pass found, in one transaction (seen again:
 * the same row, times_seen counted, a cleared row open again); fresh (may be NULL) set per
 * run to 1 when it was first seen by this pass; return how many were, or -errno (nothing
 * stored).
 */
int scan_state_record_cd(struct scan_state *st, int64_t pass_id, const struct scan_state_cd *v,
			 size_t n, int *fresh);
/* Clear the open rows of pass_id's target that this complete comparing pass did not see;
 * return the number cleared, or -errno. */
int scan_state_settle_cd(struct scan_state *st, int64_t pass_id);
/* Hand the copies-differ rows of a target (open only unless all) to fn; return the number
 * handed, fn's negative value, or -errno. */
int scan_state_list_cd(struct scan_state *st, int64_t target_id, int all, scan_state_cd_fn fn,
		       void *arg);

/* What scan_state_forget found (and dropped) of the targets named. */
struct scan_state_forget {
	unsigned targets;		/* targets whose path or key matched */
	unsigned passes;		/* their passes (a recheck counts) */
	unsigned running;		/* of them recorded as running (a scan now, or one that died) */
	unsigned open_ranges;		/* open error rows (damage, slow, device faults) */
	unsigned rows;			/* every error row, open or cleared */
};
/**
 * scan_state_forget() - forget the targets of a name.
 * @st: the store
 * @name: a target's path or key
 * @dry_run: count only, drop nothing
 * @f: set to what the targets hold
 *
 * Unless @dry_run, the targets are dropped with their passes, cursors and errors in one
 * transaction.
 *
 * Return: the number of targets whose path or key is @name, or -errno.
 */
int scan_state_forget(struct scan_state *st, const char *name, int dry_run,
		      struct scan_state_forget *f);

/* What a drive-side method's proof (or a voiding sampled read) found on one device. */
struct scan_state_trust {
	char ident[160];		/* the device's identity (WWN/serial) */
	char method[32];
	char state[16];			/* "proven", "unproven", "failed", "voided", "asserted" */
	char reason[320];
	char device_path[128];
	uint64_t bytes;
	double verify_s, read_s;
	int64_t at;			/* unix seconds */
};

/**
 * scan_state_trust_put() - keep what was found of a method on a device (replacing the last).
 * @st: the store
 * @t: the record (at 0: now)
 *
 * Return: 0, or -errno.
 */
int scan_state_trust_put(struct scan_state *st, const struct scan_state_trust *t);
/**
 * scan_state_trust_get() - what was last found of a method on a device.
 * @st: the store
 * @ident: the device's identity
 * @method: the method
 * @t: filled when there is a record
 *
 * Return: 1 with t filled, 0 when there is none, or -errno.
 */
int scan_state_trust_get(struct scan_state *st, const char *ident, const char *method,
			 struct scan_state_trust *t);
/**
 * scan_state_trust_list() - every device and method the store has a record of.
 * @st: the store
 * @out: filled with at most max records, by identity and method
 * @max: room in out
 *
 * Return: the number written, or -errno.
 */
int scan_state_trust_list(struct scan_state *st, struct scan_state_trust *out, unsigned max);

#endif
