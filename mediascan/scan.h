/*
 * mediascan/scan.h - the scan itself: reads a stream of planned ranges through an engine,
 * narrows every failed read to the exact failing logical blocks, and accounts progress.
 */
#ifndef MEDIASCAN_SCAN_H
#define MEDIASCAN_SCAN_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "governor.h"
#include "verify.h"

#define SCAN_MAX_DEVICES 4
#define SCAN_MAX_GAPS 8

/* Bytes inside a range read only to bridge two planned pieces: not planned. */
struct scan_gap {
	uint64_t offset;		/* bytes on the device */
	uint64_t length;		/* bytes */
};

/* One contiguous device range to read, as the plan (mapping/, through the pass) hands it. */
struct scan_range {
	uint64_t offset;		/* bytes on the device, logical-block aligned */
	uint64_t length;		/* bytes, logical-block aligned */
	uint32_t dev_idx;		/* index into the scan's devices */
	uint32_t nr_gaps;
	struct scan_gap gaps[SCAN_MAX_GAPS];	/* unplanned bytes read only to bridge */
	uint64_t seq;			/* set by the executor: the range's place in the order
					   the source gave them (0 first) */
};

/* Return the bytes of [offset, offset+length) inside r that are planned (not in a gap). */
uint64_t scan_range_planned_bytes(const struct scan_range *r, uint64_t offset, uint64_t length);

/* What a failed or late read said (mediascan/result.c classifies; stored by name). */
enum scan_err_class {
	SCAN_ERR_MEDIA,			/* -EIO (I/O error) or -ENODATA (medium error) */
	SCAN_ERR_PI,			/* -EILSEQ: protection information mismatch */
	SCAN_ERR_TIMEOUT,		/* no answer at all, long after the I/O timeout */
	SCAN_ERR_OPERATIONAL,		/* any other errno: our own trouble, not the disk's */
	SCAN_ERR_DEVICE,		/* -ETIMEDOUT, -ENOLINK, -EREMOTEIO, -ENODEV, resized */
	SCAN_ERR_SLOW,			/* answered, but later than the I/O timeout */
};

/* What an error means to an admin; only damage says "restore". */
enum scan_verdict {
	SCAN_V_DAMAGE,			/* the blocks fail every read: data or metadata lost */
	SCAN_V_TRANSIENT,		/* failed once, then read fine: watch this disk */
	SCAN_V_SLOW,			/* answered slower than --io-timeout: marginal, nothing lost */
	SCAN_V_DEVICE,			/* timeouts, transport, target, device gone: disk failing */
	SCAN_V_GAP,			/* only in bytes read to bridge planned ranges */
	SCAN_V_OPERATIONAL,		/* our own trouble: what could not be done */
};

/* A run of failing logical blocks (or an operational failure of a read). */
struct scan_error {
	uint32_t dev_idx;
	uint64_t offset;		/* bytes on the device */
	uint64_t length;		/* bytes: exactly the failing logical blocks */
	int err;			/* -errno as the read returned it */
	enum scan_err_class cls;
	unsigned reads;			/* reads that touched these blocks, the first included */
	int in_gap;			/* only in bytes read to bridge planned ranges: no damage */
	int reproducible;		/* 0: the read failed once, then every piece read fine */
	uint64_t latency_ns;		/* slow: the slowest read of these blocks */
	/* Drive-side methods (integrity/): what the device said; fail VFY_FAIL_NONE otherwise. */
	enum vfy_fail vfy_fail;
	uint32_t dev_status;		/* NVMe (SCT << 8 | SC) or SCSI (key << 16 | asc << 8 | ascq) */
	uint64_t pi_expected, pi_found;	/* pi-read: the tag's expected and found values */
};

/*
 * A range the history holds open (damage, slow, device fault): the scan counts the bytes of
 * it that it read cleanly (on time, every byte), so that only a clean read clears it.
 */
struct scan_watch {
	uint32_t dev_idx;
	uint64_t offset, length;	/* bytes */
	uint64_t clean_bytes;		/* out: read cleanly this run (reads never overlap) */
};

/* Where a stream of planned ranges comes from (mapping's plan, through the caller). */
struct scan_source {
	/* Return ranges written to out (at most max), 0 at the end, or -errno. */
	int (*next)(void *arg, struct scan_range *out, unsigned max);
	void *arg;
};

struct scan_progress {
	uint64_t planned_bytes;		/* total, when known (0 otherwise) */
	uint64_t scanned_bytes;		/* planned bytes read so far */
	double elapsed_s;
	double rate_bps;		/* recent rate, bytes per second */
	double target_bps;		/* governor's rate in force, 0 unthrottled */
	int backing_off;		/* the governor holds the rate down for other I/O */
	int probing;			/* paused to learn the foreground's latency alone */
	double fg_base_ms, fg_lat_ms;	/* foreground's mean request time alone / now (0: ?) */
	double projected_end_s;		/* from the start, at the rate achieved (0: unknown) */
	int window_late;		/* the projected end is past the window's end */
	unsigned nr_errors;		/* error records so far, of every verdict */
	unsigned nr_damage;		/* of which damage: blocks that failed every read */
};

/*
 * Read function used by isolation: bytes read or -errno (-ETIME no answer in time, -EINTR
 * the scan is stopping). The executor's reads its engine; unit tests use a fake device.
 */
typedef ssize_t (*scan_read_fn)(void *arg, uint32_t dev_idx, void *buf, size_t len,
				uint64_t offset);

/* One read of a batch that isolation hands out together (issued at queue depth). */
struct scan_iso_read {
	uint64_t offset;		/* bytes on the device */
	uint32_t length;		/* bytes */
	ssize_t res;			/* out: bytes read or -errno; -EINTR: not read (stopping) */
	uint64_t lat_ns;		/* out: how long it took */
	struct vfy_result vres;		/* out: a drive-side command's answer (commands only) */
};

/*
 * Read every entry of rd[0..n) of device dev_idx, at the engine's queue depth: return 0 with
 * each res set, or -EINTR when the scan is stopping (entries not read say -EINTR).
 */
typedef int (*scan_read_many_fn)(void *arg, uint32_t dev_idx, struct scan_iso_read *rd,
				 unsigned n);

/* Where the scan stands, for a checkpoint: everything before cursor[d] has been read. */
struct scan_checkpoint {
	const uint64_t *cursor;		/* per device, bytes; UINT64_MAX when the device is done */
	unsigned nr_devs;
	/*
	 * The first ranges_done ranges the source gave (in its order, scan_range.seq) are read
	 * in full: for a source whose ranges are not in device and offset order (a stacked
	 * filesystem read on its members), where the cursors above mean nothing.
	 */
	uint64_t ranges_done;
	uint64_t scanned_bytes;		/* planned bytes read, the resumed base included */
	const struct scan_error *new_errors;	/* errors found since the last checkpoint */
	size_t nr_new_errors;
	int final;			/* the last checkpoint of this run */
	/* The pace against a window (governed scans; all 0 when not known). */
	int has_window;			/* a window is set: window_end_in_s says when it ends */
	double window_end_in_s;		/* from now (negative: it ended) */
	double projected_end_in_s;	/* when the pass is projected to end, from now (0: not
					   known yet) */
	int window_late;		/* that is past the window's end */
	double window_late_for_s;	/* "late" was first said this long ago (0: never) */
};

/* A /sys/class/block/NAME/stat view watched for foreground load. */
struct scan_stat_view {
	char name[64];			/* sda1, sda, nvme0n1 */
	uint32_t dev_mask;		/* bit d: reads of device d show in this view */
};

struct scan_opts {
	uint32_t io_size;		/* bytes per read */
	unsigned depth;			/* reads in flight */
	const char *engine;		/* NULL: probe */
	uint32_t isolate_step_bytes;	/* isolation's pieces at most this long; the recheck
					 * bisects slow reads down to it */
	uint64_t planned_total;		/* bytes of the whole pass, for progress and the window */
	uint64_t scanned_base;		/* planned bytes already read before a resume */
	uint64_t start_cursor[SCAN_MAX_DEVICES];	/* where a resumed plan starts, per device */
	unsigned sample_permille;	/* dataless methods: share of verified bytes also read */
	uint64_t io_timeout_ns;		/* a read slower than this is "slow" (re-read, narrowed);
					 * 0 none */
	unsigned max_failed_reads;	/* this many failed or late reads in a row on one device:
					 * the disk is failing, stop; 0 never */
	uint64_t max_duration_ns;	/* stop cleanly after this long; 0 none */
	const struct scan_gov_opts *gov;	/* NULL: as fast as the device goes */
	struct scan_stat_view views[SCAN_GOV_MAX_VIEWS];	/* for backoff */
	unsigned nr_views;
	void (*progress)(const struct scan_progress *p, void *arg);
	void *progress_arg;
	uint64_t checkpoint_interval_ns;	/* 0: no periodic checkpoints */
	/* Return 0, or -errno to stop the scan (the state store failed). */
	int (*checkpoint)(const struct scan_checkpoint *c, void *arg);
	void *checkpoint_arg;
	volatile sig_atomic_t *stop;	/* set by a signal handler: finish in-flight reads, stop */
	/*
	 * Verify method (integrity/). NULL or one that moves data through the engine (read):
	 * the engine reads. Otherwise vfy->verify() is called on vfy_devs[d] for every range,
	 * translated through the partition start to whole-device LBAs. vfy_isolate, when set,
	 * narrows the engine's failed reads instead of plain re-reads (SCSI: sense LBA).
	 */
	const struct vfy_ops *vfy;
	const struct vfy_ops *vfy_isolate;
	struct vfy_dev *vfy_devs[SCAN_MAX_DEVICES];
	struct scan_watch *watch;	/* sorted by device and offset; may be NULL */
	size_t nr_watch;
	/*
	 * Called with the bytes of every loop read that answered in full on time (not commands,
	 * not isolation's reads): a stacked scan compares the copies it reads. May be NULL.
	 */
	void (*on_data)(void *arg, uint32_t dev_idx, uint64_t offset, const void *buf,
			uint32_t len);
	void *data_arg;
};

struct scan_device {
	int fd;				/* O_RDONLY|O_DIRECT */
	uint32_t logical_block_size;	/* bytes */
	uint64_t size_bytes;		/* when the scan started; 0 unknown (no resize check) */
	uint64_t max_io_bytes;		/* the queue's largest transfer (max_sectors_kb); 0 unknown */
	uint32_t max_segments;		/* the queue's segments per request; 0 unknown */
	const char *path;		/* for messages; may be NULL */
};

#define SCAN_DEFAULT_IO_SIZE (1024 * 1024)
/*
 * Return the bytes per read for devs[0..nr): asked, or SCAN_DEFAULT_IO_SIZE within every
 * device's transfer limit; a multiple of the largest logical block size (mediascan/executor.c).
 */
uint32_t scan_io_size(const struct scan_device *devs, unsigned nr, uint64_t asked);

struct scan_result {
	uint64_t planned_bytes;		/* planned bytes handed to the scan */
	uint64_t scanned_bytes;		/* planned bytes read (or found bad) */
	uint64_t read_bytes;		/* bytes read including bridged gaps and re-reads */
	uint64_t isolation_reads;	/* reads issued to narrow failures */
	unsigned max_inflight;		/* most reads or commands the loop had in flight at once */
	double elapsed_s;
	int complete;			/* every planned range was read */
	int stopped;			/* 1 signal, 2 --max-duration */
	unsigned nr_timeouts;		/* reads that exceeded the I/O timeout */
	int failing;			/* stopped to spare a failing disk (failing_msg says why) */
	char failing_msg[256];
	unsigned nr_backoffs;		/* times the governor backed off (or cut its rate) for
					   other I/O */
	double backoff_s;		/* time spent backed off (or held below the pace) */
	const char *pacing;		/* "latency", "backoff", "fixed"; NULL: no governor */
	unsigned nr_probes;		/* latency pacing: pauses to learn the baseline */
	double probe_s;			/* and their time */
	double fg_base_ms, fg_lat_ms;	/* foreground's mean request time alone / with the scan */
	double projected_end_s;		/* at the end: when the pass would end (0: unknown) */
	int window_late;		/* a window was set and the projected end was past it */
	double window_late_first_s;	/* when that was first said (0: never) */
	char engine[16];		/* engine that ran */
	char engine_note[512];		/* why earlier engines were refused */
	char method_note[512];		/* a verify method's fallback, said in the report */
	/*
	 * Sampling (scan_opts.sample_permille): bytes a dataless method passed that were also
	 * read; a read that failed there voids the method (the scan stops: the caller reads
	 * the plan again), the first such read's place and errno kept.
	 */
	uint64_t sampled_bytes;
	unsigned nr_samples;
	/* reads and commands that failed or answered late, per device: each one a disk's error
	 * handler may count (libata lowers a link's speed after a few) */
	unsigned failed_ios[SCAN_MAX_DEVICES];
	int voided;
	uint32_t void_dev;
	uint64_t void_offset, void_length;	/* bytes on the scanned device */
	int void_err;
	uint32_t io_size;		/* bytes per read, as the scan ran */
	const char *io_buffer;		/* what backs the I/O buffers: thp, hugetlb, pages */
	struct scan_error *errors;
	size_t nr_errors;
	size_t sealed;			/* errors[0..sealed) were checkpointed: never grown */
	int fatal;			/* -errno when the scan stopped on an operational error */
	char fatal_msg[256];
};

/* Return 0 when the scan ran (errors are in r), or -errno when it could not run. */
int scan_run(const struct scan_device *devs, unsigned nr_devs, struct scan_source *src,
	     const struct scan_opts *o, struct scan_result *r);
/* Return 0; free what scan_run allocated in r. */
int scan_result_free(struct scan_result *r);
/* The error model (mediascan/result.c). */
/* Return the error class of a failed read's -errno. */
enum scan_err_class scan_classify(int err);
/* Return the stored name of a class ("media", "pi", "timeout", "device", "slow", ...). */
const char *scan_class_name(enum scan_err_class c);
/* Return 0 with *out set from a stored class name, or -EINVAL. */
int scan_class_parse(const char *s, enum scan_err_class *out);
/* Return what the error means to an admin. */
enum scan_verdict scan_error_verdict(const struct scan_error *e);
/* Return 1 when the error is damage (the only verdict that says "restore"). */
int scan_is_damage(const struct scan_error *e);
/* Return the name of a verdict ("damage", "transient", "slow", "device-fault", ...). */
const char *scan_verdict_name(enum scan_verdict v);
/* Return 0 with *out set from a verdict name, or -EINVAL. */
int scan_verdict_parse(const char *s, enum scan_verdict *out);
/* Return a short name for an error: "EIO", "ENODATA", "EILSEQ", "timeout", or strerrorname. */
const char *scan_error_name(const struct scan_error *e);
/* Return 1 when b continues a and both say the same (merging keeps a's details). */
int scan_error_mergeable(const struct scan_error *a, const struct scan_error *b);
/* Return 0 after sorting r's errors by device and offset and merging mergeable neighbours. */
int scan_result_coalesce(struct scan_result *r);

/* Isolation of one failed read. */
struct scan_isolate {
	uint32_t dev_idx;
	uint32_t lbs;			/* logical block size, bytes */
	uint32_t step_bytes;		/* first-level pieces at most this long (0: no bound) */
	unsigned depth;			/* first-level pieces read together (0: 1) */
	int direct;			/* read every block at once: no kernel retries to spare */
	void *buf;			/* aligned, at least io_size/2 bytes (and >= lbs) */
	scan_read_fn read;		/* used when read_many is NULL, one read at a time */
	scan_read_many_fn read_many;	/* the executor's: reads issued together */
	void *read_arg;
	const struct scan_range *range;	/* for gap checks; may be NULL */
	uint64_t reads;			/* isolation reads issued */
	struct scan_result *r;		/* errors are appended here */
};

/*
 * Return 0 after narrowing the failed read [offset, offset+length) (which failed with err)
 * to its failing logical blocks in at most two levels (pieces, then the blocks of the
 * failing pieces; every block at once for short spans or si->direct), appended to si->r;
 * -EINTR when a read said the scan is stopping (what was found so far is kept); -ENOMEM on
 * allocation failure.
 */
int scan_isolate_range(struct scan_isolate *si, uint64_t offset, uint64_t length, int err);
/*
 * Isolation of one failed drive-side command (NVMe Verify / Read, SCSI VERIFY / READ,
 * xfs-verify): the device may name its first failing block (NVMe error log, SCSI sense
 * information field); otherwise every block of the span is sent a command of its own, at
 * queue depth (cmd_many: a bad block is covered by two commands in all), or, without
 * cmd_many, the span is bisected down to single blocks.
 */
struct scan_isolate_cmd {
	uint32_t dev_idx;
	uint32_t lbs;			/* logical block size, bytes */
	uint64_t part_start_bytes;	/* the scan device's start on the whole disk */
	uint32_t max_blocks;		/* most blocks one command may cover */
	/*
	 * Send one command over scan-device bytes [offset, offset+length); return 0 clean, 1
	 * failed (res), -EOPNOTSUPP refused, -EINTR stopping, or -errno (operational).
	 */
	int (*cmd)(void *arg, uint32_t dev_idx, uint64_t offset, uint64_t length,
		   struct vfy_result *res);
	/*
	 * Send one command per entry of rd[0..n), as many at once as the queue takes; return 0
	 * with each res (length: clean; -errno, vres saying what the device answered) set, or
	 * -EINTR when stopping. May be NULL: failures are then bisected with cmd.
	 */
	int (*cmd_many)(void *arg, uint32_t dev_idx, struct scan_iso_read *rd, unsigned n);
	/* Count bytes [offset, offset+length) as read cleanly (may be NULL). */
	void (*clean)(void *arg, uint32_t dev_idx, uint64_t offset, uint64_t length);
	void *arg;
	const struct scan_range *range;	/* for gap checks; may be NULL */
	struct scan_result *r;		/* errors are appended; isolation_reads counted */
	/*
	 * Whether the device's named blocks hold on this device (kept across calls; NULL:
	 * believed): 0 not yet checked, 1 a named first block failed alone, -1 it read clean
	 * (the device echoes the command's start: its names are ignored from then on).
	 */
	int *names_ok;
};

/*
 * Return 0 after verifying [offset, offset+length) command by command and narrowing every
 * failure (isolating: each command counts as an isolation read; reads: commands that
 * already covered the span); -EOPNOTSUPP when the device refused the method (nothing
 * recorded for the rest), -EINTR when stopping, or -ENOMEM.
 */
int scan_isolate_cmd_span(struct scan_isolate_cmd *si, uint64_t offset, uint64_t length,
			  int isolating, unsigned reads);
/*
 * Return 0 after narrowing one command over [offset, offset+length) that already failed
 * with res (sent once, not as isolation): the block the device named, else bisection.
 * Errors as scan_isolate_cmd_span.
 */
int scan_isolate_cmd_failed(struct scan_isolate_cmd *si, uint64_t offset, uint64_t length,
			    const struct vfy_result *res);

/* Return 0 after appending one error to r (coalescing with an adjacent last one), or -ENOMEM. */
int scan_result_add(struct scan_result *r, const struct scan_error *e);

#endif
