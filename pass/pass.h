/*
 * pass/pass.h - one pass over one target, as `mediascan scan` and each of patrol's runs do it:
 * plan (mapping/) -> scan (mediascan/) -> map (mapping/) -> record (history/) -> report (the
 * output hooks run/ fills in). This is the interface the layers above use: the options, the
 * report, the hooks, pass_run, and the few stage services they call (plan size, method probe,
 * owner batches, the store's key, locks). The stages' own declarations are in pass_int.h.
 */
#ifndef MEDIASCAN_PASS_H
#define MEDIASCAN_PASS_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include "damage.h"
#include "devinfo.h"
#include "plan.h"
#include "scan.h"
#include "stack.h"
#include "stack_row.h"
#include "state.h"
#include "target.h"
#include "verify.h"

/* Exit status of a pass, a bitmask as in xfs_scrub (cli.h names them REPORT_EXIT_*). */
enum pass_exit {
	PASS_EXIT_CLEAN = 0,
	PASS_EXIT_MEDIA = 1,		/* media errors: data or metadata damaged */
	PASS_EXIT_INTEGRITY = 2,	/* protection information mismatches */
	PASS_EXIT_OPERATIONAL = 4,	/* the scan could not do all it should */
	PASS_EXIT_USAGE = 8,		/* bad command line */
	PASS_EXIT_DEVICE = 16,		/* the disk is failing or slow: device faults, slow
					 * sectors, or the scan stopped to spare the disk */
};

#define PASS_DEFAULT_DEPTH 16
/* A read slower than this is set aside, read again alone and narrowed (`--io-timeout`). */
#define PASS_DEFAULT_IO_TIMEOUT_S 30.0
/* Failed or late reads in a row on one device before the disk is called failing. */
#define PASS_DEFAULT_MAX_FAILED_READS 4096
#define PASS_DEFAULT_SAMPLE_PERMILLE 10	/* a dataless method's passed bytes also read: 1% */
#define PASS_TRUST_KEEP_S (30 * 86400)	/* a device's proof (or distrust) holds this long */

/* What a pass does: the scan options of `mediascan scan`, also built by patrol. */
struct pass_opts {
	const char *target;		/* mount point or block device */
	const char *engine;		/* NULL: probe */
	const char *method;		/* verify method name, "auto" */
	const char *state_dir;
	const char *ioprio;		/* "idle", or NULL: idle when a window is given */
	const char *label;		/* patrol target name (who holds the lock); NULL: scan */
	uint64_t io_size;		/* bytes per read; 0: the executor's default */
	uint64_t depth;			/* reads in flight; 0: PASS_DEFAULT_DEPTH */
	uint64_t merge_gap;		/* bytes; (uint64_t)-1 the device's default */
	uint64_t rate, rate_min, rate_max;	/* bytes/s */
	double window_s, max_duration_s, io_timeout_s;
	unsigned max_failed_reads;	/* with max_failed_reads_set; else the default */
	int max_failed_reads_set;
	int no_backoff;
	const char *pacing;		/* "latency", "backoff", "off"; NULL: latency with a
					   window, backoff with a plain rate (as before) */
	unsigned lat_target_pct;	/* latency pacing's target, percent of alone; 0: 125 */
	int resume;
	int recheck;			/* re-read only the open errors of the history */
	int no_state;
	int window_from_start;		/* a resumed pass keeps the end of its window */
	int top_only;			/* on md/dm: read the top device, not every copy */
	int compare;			/* --compare: compare the copies read at member level */
	int no_compare;			/* --no-compare */
	int compare_auto;		/* neither given: compare when the machine has the CPUs
					 * (patrol's default); else off */
	int trust_verify;		/* use a dataless method that failed its proof */
	unsigned sample_permille;	/* with sample_set: share of verified bytes also read; */
	int sample_set;			/* else PASS_DEFAULT_SAMPLE_PERMILLE */
};

/* Everything a report is made of: the map stage builds it, the report hooks show it. */
struct pass_report {
	struct map_target *t;
	const char *method;
	struct scan_result *r;
	struct map_damage dmg;		/* owners of damage: what to restore */
	struct map_damage risk;		/* owners of slow and device-fault ranges: at risk */
	size_t *own_first;		/* per scan error: its owners in dmg.owners (damage) or */
	size_t *own_count;		/* risk.owners (slow, device fault) */
	int resumed;			/* the pass continued an interrupted one */
	int no_checkpoint;		/* --no-state or no store: a stopped pass cannot resume */
	uint64_t base_bytes;		/* of r->scanned_bytes, read before a resume */
	unsigned exit_bits;		/* enum pass_exit */
	unsigned nr_damage_errors;	/* media/PI errors: the blocks fail every read */
	unsigned nr_gap_errors;
	unsigned nr_transient_errors;	/* failed once, read fine when retried */
	unsigned nr_slow_errors;	/* answered slower than the I/O timeout */
	unsigned nr_device_faults;	/* timeouts, transport, target, device gone */
	unsigned nr_op_errors;
	const struct pass_stack *stack;	/* a member-level scan: redundancy lost, members */
	const struct pass_method *cm;	/* the method's devices: trust, sampling, voiding */
};

/* What a message of the pass is, so the hook knows where it goes. */
enum pass_say {
	PASS_SAY_ERROR,			/* an error or warning: always shown (stderr) */
	PASS_SAY_NOTE,			/* a note: stderr, unless quiet */
	PASS_SAY_INFO,			/* a line for the user: stdout, unless quiet */
	PASS_SAY_HUMAN,			/* a line of the human report: stdout, human output only */
};

/* What the pass is about to read, for the human banner. */
struct pass_begin {
	const struct map_target *t;
	const char *method;
	int resumed, recheck;
	uint64_t planned_bytes, scanned_base;
	uint64_t rate;			/* bytes/s asked, 0 none */
	double window_s;		/* the window in force, 0 none */
};

/*
 * The output hooks: cli/ fills them in (human, JSON, journal, on_damage), patrol through the
 * same scan options. A NULL hook is not called. Metrics are not a hook of the pass: patrol
 * writes them from the state store the record stage keeps.
 */
struct pass_hooks {
	void *arg;			/* handed to every hook */
	/* A message of the pass (errors, notes, the lines of a recheck). */
	void (*say)(void *arg, enum pass_say kind, const char *msg);
	/* Human: the banner, before the first read. */
	void (*begin)(void *arg, const struct pass_begin *b);
	/* Progress while scanning (scan_opts.progress), and once the scan is over. */
	void (*progress)(const struct scan_progress *p, void *arg);
	void (*progress_done)(void *arg);
	/* JSON: return 0 after writing the report, or -errno (the pass says why). */
	int (*json)(void *arg, const struct pass_report *rep);
	/* Return 0 after writing the HTML report of the pass, or -errno (said why). */
	int (*html)(void *arg, const struct pass_report *rep);
	/* JSON: return the owners of error i as a JSON array (malloc'd), kept in the history. */
	char *(*owners_json)(void *arg, const struct pass_report *rep, size_t i);
	/* Journal: error i is damage not told before. */
	void (*journal_error)(void *arg, const struct pass_report *rep, size_t i, int64_t pass_id);
	/*
	 * Redundancy lost: return the owners (copies 0) or the good copies (copies 1) of
	 * rep->stack->rl[i] as a JSON array (malloc'd), kept in the history.
	 */
	char *(*rl_json)(void *arg, const struct pass_report *rep, size_t i, int copies);
	/* Journal: rep->stack->rl[i] lost redundancy, not told before. */
	void (*journal_rl)(void *arg, const struct pass_report *rep, size_t i, int64_t pass_id);
	/*
	 * on_damage for redundancy lost: return 1 when rep->stack->rl[idx[0..n)] (never told
	 * before) were told.
	 */
	int (*on_redundancy_lost)(void *arg, const struct pass_report *rep, const size_t *idx,
				  unsigned n, int64_t pass_id);
	/* Copies differ: rep->stack->cd[i]'s owners (what 0) or legs (1) as JSON (malloc'd). */
	char *(*cd_json)(void *arg, const struct pass_report *rep, size_t i, int what);
	/* Journal: rep->stack->cd[i] was found for the first time. */
	void (*journal_cd)(void *arg, const struct pass_report *rep, size_t i, int64_t pass_id);
	/* on_damage for copies that differ: rep->stack->cd[idx[0..n)], new; 1 when told. */
	int (*on_copies_differ)(void *arg, const struct pass_report *rep, const size_t *idx,
				unsigned n, int64_t pass_id);
	/* Journal: the pass ended complete or failed (cleared: errors a clean read cleared). */
	void (*journal_end)(void *arg, const struct pass_report *rep, int64_t pass_id,
			    int cleared);
	/*
	 * on_damage: return 1 when the damage errors idx[0..n) (never told before) were told,
	 * 0 when they are to be offered again on the next run.
	 */
	int (*on_damage)(void *arg, const struct pass_report *rep, const size_t *idx, unsigned n,
			 int64_t pass_id);
	/* Human: the summary, at the very end. */
	void (*human)(void *arg, const struct pass_report *rep);
};

/**
 * pass_run() - run one pass over one target: the stages of pass.c in order, then the teardown.
 * @o: what the pass does (target, method, pacing, state store)
 * @h: the output hooks (a NULL hook is not called)
 *
 * Return: the exit status, enum pass_exit bits.
 */
int pass_run(const struct pass_opts *o, const struct pass_hooks *h);
/**
 * pass_say() - hand a message of the pass to the say hook (say.c).
 * @h: the hooks; NULL or no say hook: stdout (info, human) or stderr (errors, notes)
 * @kind: what the message is, so the hook knows where it goes
 * @fmt: printf-style format of the message, one line
 */
void pass_say(const struct pass_hooks *h, enum pass_say kind, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* plan.c: the plan's size and ranges without a scan (patrol, the HTML report). */
/**
 * pass_plan_count() - the planned bytes of a target (a counting pass, nothing read).
 * @t: the open target
 * @po: plan options (merge gap)
 * @planned: set to the planned bytes
 *
 * Return: 0, or -errno.
 */
int pass_plan_count(struct map_target *t, const struct map_plan_opts *po, uint64_t *planned);
/**
 * pass_plan_each() - hand each range of a target's plan to a function: the plan for a reader
 * that wants the ranges, not a scan (the HTML report's map of planned cells).
 * @t: the open target
 * @po: plan options
 * @fn: called for each range; a negative return stops the walk
 * @arg: handed to fn
 *
 * Return: 0, fn's negative return, or -errno.
 */
int pass_plan_each(struct map_target *t, const struct map_plan_opts *po,
		   int (*fn)(const struct map_range *rg, void *arg), void *arg);

/* method.c: the verify method of a scan, chosen per target, devices probed. */
struct pass_method {
	const struct vfy_ops *ops;	/* the method that runs */
	char why[400];			/* why it was chosen (or what it fell back from) */
	struct vfy_dev devs[SCAN_MAX_DEVICES];
	unsigned nr;			/* devices probed */
};
/**
 * pass_method_setup() - choose the verify method of a target and open what it needs.
 * @asked: the method asked for, or NULL for auto
 * @t: the open target
 * @so: its vfy, vfy_devs and vfy_isolate set
 * @m: the devices probed and opened (closed with pass_method_close()) and why the method
 * @err: why, on failure
 * @len: size of err
 *
 * Return: 0, or -errno with why in err.
 */
int pass_method_setup(const struct vfy_ops *asked, const struct map_target *t,
		      struct scan_opts *so, struct pass_method *m, char *err, size_t len);
/**
 * pass_method_prove() - prove a dataless method on every device before it is trusted
 * (prove.c): the plan's first VFY_PROOF_BYTES verified, then read, each device's verdict in
 * m->devs[].trust; auto turns to read where a proof fails or cannot be made.
 * @m: the chosen method and its devices
 * @asked: the method asked for with --method, NULL for auto
 * @trust_verify: --trust-verify: an unproven method is used on the admin's word
 * @st: the history: a verdict younger than PASS_TRUST_KEEP_S under the device's identity is
 *      used instead of timing, and each new one kept (NULL: every device timed, none kept)
 * @t: the open target
 * @po: plan options
 * @so: its vfy and vfy_isolate updated when the method changes
 * @err: the refusal, when the return is negative
 * @len: room in err
 *
 * Return: 0, -EPERM when the asked-for method failed its proof, or -errno.
 */
int pass_method_prove(struct pass_method *m, const struct vfy_ops *asked, int trust_verify,
		      struct scan_state *st, struct map_target *t, const struct map_plan_opts *po,
		      struct scan_opts *so, char *err, size_t len);
/**
 * pass_method_untrusted() - whether a dataless method was found not to read a device's medium.
 * @m: the method and its devices
 *
 * Return: 1 when a device's proof failed or a sampled read voided the method there, else 0.
 */
int pass_method_untrusted(const struct pass_method *m);
/**
 * pass_method_close() - close the devices pass_method_setup() opened (none: nothing done).
 * @m: the method's devices
 */
void pass_method_close(struct pass_method *m);

/* stack_scan.c, stack_verdict.c: a stacked filesystem read at member level. */
/* One member range that failed while another copy (or the rest of its stripe) read fine. */
/* scan MEMBER_DISK: a filesystem on top of the disk's stack (t NULL: not mounted, or it
 * could not be opened: no owners named) and the owners of the errors below it. */
struct pass_stack_top {
	char name[MAP_STACK_NAME];	/* dm-4, md0 */
	struct map_target *t;
	struct map_damage dmg;
};
/* Another volume (a thin snapshot) mapping the same data block as a redundancy-lost range:
 * where, and its owners in pass_stack.tops[top].dmg (top -1: none named, why says so). */
struct pass_stack_shared {
	char dev[MAP_STACK_NAME];	/* dm-6 */
	uint64_t offset;		/* bytes on it */
	int top;
	uint64_t fs_offset;
	size_t own_first, own_count;
	char why[120];
};
struct pass_stack_rl {
	char member[PATH_MAX];		/* /dev/nvme0n2 */
	char member_id[320];		/* what the history keeps it under (WWN/serial) */
	char array[MAP_STACK_NAME];	/* the array holding the other copies (md0) */
	char array_uuid[64];		/* its md or DM uuid ("" unknown) */
	uint64_t offset, length;	/* bytes on the member */
	int err;			/* -errno of the read */
	struct map_stack_up *u;		/* the way up and the other copies */
	int has_fs;			/* fs_offset is a range of the filesystem's device */
	uint64_t fs_offset;
	int lost;			/* no copy reads either (parity, unmappable layers) */
	char repair[700];		/* the command that rewrites it from the good copy */
	size_t own_first, own_count;	/* owners in pass_stack.dmg, or (scan MEMBER_DISK) in
					 * pass_stack.tops[top].dmg */
	int top;
	struct pass_stack_shared *shared;	/* the other volumes mapping it */
	unsigned nr_shared, shared_more;	/* shared_more: past what u->also listed */
};
/*
 * Copies that differ (pass/stack_compare.c): one run of blocks of a redundancy row whose
 * copies (or data and parity) disagree the same way on three reads.
 */
struct pass_stack_cd {
	struct map_row row;		/* the array, its level and every leg (member range) */
	uint64_t offset, length;	/* bytes within the legs */
	int wrong;			/* the leg that is wrong, -1 when that cannot be known */
	const char *how;		/* how it is known: "majority", "syndrome", "metadata-crc",
					 * or "unknown" */
	int parity_only;		/* only the parity (P or Q) disagrees: the data is intact */
	/* the filesystem device's ranges the run holds (the wrong data leg's, every mirror's
	 * one range, or every data leg's when which is wrong cannot be known) and their owners */
	unsigned nr_top;
	uint64_t top_off[MAP_ROW_MAX_LEGS], top_len[MAP_ROW_MAX_LEGS];
	size_t own_first[MAP_ROW_MAX_LEGS], own_count[MAP_ROW_MAX_LEGS];
};
/* Where an error of the filesystem's device read at member level was read. */
struct pass_stack_at {
	uint64_t fs_offset, length;	/* bytes on the filesystem's device */
	char member[80];		/* /dev/nvme0n2 */
	uint64_t offset;		/* bytes on the member */
};
#define PASS_STACK_MAX_TOPS 8
#define PASS_STACK_OWNER_TOPS 1024	/* scan MEMBER_DISK: filesystems naming owners */
/* A range of a member disk that a layer above keeps its own metadata in (scan MEMBER_DISK). */
struct pass_stack_meta {
	char layer[MAP_STACK_NAME];	/* whose metadata it is: md1, dm-3, a PV (nvme0n1) */
	char kind[24];			/* md-raid1, dm-raid, lvm-pv */
	const char *what;		/* "md superblock and bitmap", "dm-raid metadata (rmeta)" */
	uint64_t offset, length;	/* bytes on the scanned disk */
};
struct pass_stack {
	int active;			/* the scan reads the members */
	char top[64];			/* kernel name of the filesystem's device */
	char leaf[SCAN_MAX_DEVICES][MAP_STACK_NAME];
	char path[SCAN_MAX_DEVICES][80];
	struct scan_device devs[SCAN_MAX_DEVICES];
	unsigned nr_leaf;
	struct pass_stack_rl *rl;
	size_t nr_rl;
	unsigned nr_dropped;		/* errors with no owner and no verdict (unused space) */
	char note[300];			/* why a stacked target is read at the top only */
	int unmappable;			/* a layer below cannot be mapped (dm-thin, ...): exit bit 4 */
	char bad_name[MAP_STACK_NAME], bad_kind[24];	/* ... which one */
	struct map_damage dmg;		/* owners of the redundancy-lost ranges */
	struct pass_stack_at *at;	/* member ranges of the errors mapped up */
	size_t nr_at;
	char geom[8192];		/* the stack's geometry when opened (map_stack_geometry) */
	int geom_known;
	char geom_msg[1024];		/* what changed, once it did: the scan stopped */
	int member_plan;		/* scan MEMBER_DISK: mr is the plan */
	struct scan_range *mr;		/* the disk's written ranges and layer metadata, sorted */
	size_t nr_mr, mr_pos;
	uint64_t mr_bytes;
	/* scan MEMBER_DISK: the tops of the stacks above the disk, whose geometry the plan is
	 * made for (ps->geom holds theirs, one after the other), and the disk's name */
	char gtop[PASS_STACK_MAX_TOPS][MAP_STACK_NAME];
	unsigned nr_gtop;
	char disk[MAP_STACK_NAME];
	/* what of the member plan is the layers' own metadata, for the report */
	struct pass_stack_meta *meta;
	size_t nr_meta;
	uint64_t meta_bytes;
	/* scan MEMBER_DISK: the filesystems on top (each volume's) that name the owners of the
	 * errors below them */
	struct pass_stack_top *tops;
	unsigned nr_tops;
	/*
	 * A member-level scan's checkpoints: the top device's cursor (every byte of its plan
	 * below it read on every copy). end_cursor: where the run stopped; held_cursor: the
	 * last one stored before the first member error, whose verdict is only made at the end
	 * (a resume after SIGKILL reads from there). Errors an interrupted run of the pass
	 * stored (the top device's) are kept apart from the members' until the verdicts.
	 */
	unsigned top_ndevs;
	/* a resumed pass: the redundancy-lost ranges its interrupted runs stored (open), not read
	 * again in this run: in the history, counted in the report and the exit bits */
	size_t nr_rl_earlier, nr_lost_earlier;
	uint64_t end_cursor, held_cursor;
	int held;
	struct scan_error *loaded;
	size_t nr_loaded;
	/* compare the copies while reading them (--compare): rows compared, their bytes, rows
	 * that could not be (a leg failed to read), rows that differed and then did not (written
	 * while read), and the copies that differ */
	int compare;
	const char *compare_why;	/* why compare is on or off, for the report */
	struct pass_cmp *cmp;
	uint64_t cmp_rows, cmp_bytes, cmp_not_compared, cmp_in_flux;
	struct pass_stack_cd *cd;
	size_t nr_cd;
};
/* Return the member range the error at fs offset off of the filesystem's device was read at. */
const struct pass_stack_at *pass_stack_where(const struct pass_stack *ps, uint64_t off);
/* map.c: owners of ranges, one batch per device (the map stage and `mediascan map`). */
/**
 * pass_map_batch() - add ranges to look owners up for, one batch per run of one device:
 * nearby ranges share GETFSMAP passes. The map stage and `mediascan map` both use it.
 * @d: the damage model; a group per range, in order (resolve with map_damage_resolve())
 * @t: the open target
 * @dev: device index of each range, sorted
 * @off: byte offset of each range on its device
 * @len: byte length of each range
 * @n: how many ranges
 *
 * Return: 0, or -errno.
 */
int pass_map_batch(struct map_damage *d, struct map_target *t, const uint32_t *dev,
		   const uint64_t *off, const uint64_t *len, size_t n);

/* record.c: the store's key of a target, and its directory checked. */
/* Write the state store's key of target t (filesystem type:UUID:devices) into key. */
void pass_target_key(const struct map_target *t, char *key, size_t len);
/*
 * Return 0 when dir is missing or is a directory owned by us or root that only its owner can
 * write; -EPERM/-ENOTDIR/-errno with why otherwise (call it before opening the state store).
 */
int pass_check_state_dir(const char *dir, char *why, size_t len);
/* lock.c: one scan per target and per physical disk (the disks: map_target_disks). */
#define PASS_LOCK_DIR "/run/mediascan"
#define PASS_MAX_DISKS 8		/* physical disks under one target */
struct pass_lock {
	int fd[1 + PASS_MAX_DISKS];	/* the target's lock, then one per disk */
	unsigned nr;
};
/**
 * pass_lock() - lock a target and each of its disks for this process (a lock file that
 * cannot be made is a warning, not an error).
 * @t: the open target
 * @key: its state store key
 * @label: who is scanning, written into the lock files for a refused scan's message
 * @lk: the locks held (released with pass_unlock())
 * @err: one line, when refused
 * @len: size of err
 *
 * Return: 0; -EWOULDBLOCK when another scan holds one (nothing held).
 */
int pass_lock(const struct map_target *t, const char *key, const char *label,
	      struct pass_lock *lk, char *err, size_t len);
/*
 * Return as pass_lock, for a target known by its key, its name for messages and its
 * disks[0..nr_disks) (patrol: to see whether a target is free before starting its scan).
 */
int pass_lock_ids(const char *key, const char *name, char (*disks)[MAP_DISK_NAME_LEN],
		  unsigned nr_disks, const char *label, struct pass_lock *lk, char *err,
		  size_t len);
/**
 * pass_unlock() - release the locks of pass_lock() (none held: nothing done).
 * @lk: the locks
 */
void pass_unlock(struct pass_lock *lk);

#endif
