/*
 * mediascan/exec.h - the executor's private state, shared by its files, which call each other
 * in one direction only (tests/unit/callgraph.sh checks it), from the bottom up:
 *   exec_queue.c     slots and buffer pieces; reads and commands sent alone or in batches
 *   exec_batch.c     the plan's ranges as the loop takes them, pieces put back
 *   exec_progress.c  progress, the governor's samples, checkpoints
 *   exec_vfy.c       xfs-verify's blocking calls (a loop of their own), scsi-read's narrowing
 *   exec_cmd.c       drive-side commands in the loop: start, settle, narrow
 *   exec_isolate.c   a failed read narrowed and explained; the device shrunk or gone
 *   recheck.c        I/Os that answered late: waited for, re-read alone, narrowed
 *   executor.c       scan_run and the loop
 * Not for use outside mediascan/.
 */
#ifndef MEDIASCAN_EXEC_H
#define MEDIASCAN_EXEC_H

#include <stdint.h>

#include "engine.h"
#include "scan.h"

#define EXEC_IDLE_WAIT_NS 100000000ull		/* longest blind wait for completions */
#define EXEC_SAMPLE_BYTES (1u << 20)		/* most one sampled read of a command covers */

/* One queue slot: the read and a copy of the range it belongs to (for gap checks). */
struct exec_slot {
	struct scan_io io;		/* first: the engine hands back &io */
	struct scan_range range;
	int busy;
	int timed_out;			/* past the I/O timeout (or abandoned): see late_idx */
	int alone;			/* issued by exec_read_many, not by the loop */
	unsigned rd_idx;		/* alone: its entry in exec_read_many's batch */
	int late_idx;			/* its entry in exec.late.list, -1 none */
	struct kio_dev_cmd cmd;		/* drive-side methods: the command io.cmd points to */
	struct vfy_result vres;		/* what its completion decoded */
	void *cmd_buf;			/* its buffer (pi-read's data and metadata), or NULL */
};

/* What became of a read that did not answer within the I/O timeout. */
enum exec_late_state {
	EXEC_LATE_WAITING,		/* still in flight */
	EXEC_LATE_ANSWERED,		/* answered late with all its data */
	EXEC_LATE_CANCELLED,		/* the kernel cancelled it at the linked timeout */
	EXEC_LATE_FAILED,		/* answered late with an error: isolated as a failure */
	EXEC_LATE_DONE,			/* rechecked */
};

struct exec_late {
	uint32_t dev_idx;
	uint64_t offset, length;	/* bytes */
	struct scan_range range;	/* for gap checks */
	uint64_t issue_ns;
	uint64_t latency_ns;		/* when it answered (or the timeout, when cancelled) */
	enum exec_late_state state;
};

#define EXEC_FAILED_RING 16		/* failed reads remembered to explain a transient */

/* The plan as the executor takes it, batch by batch from the source (exec_batch.c). */
struct exec_feed {
	struct scan_range *batch;
	unsigned len, pos;		/* ranges in batch, and the one being read */
	uint64_t range_pos;		/* next byte to read in batch[pos] */
	uint64_t src_seq;		/* ranges taken from the source so far */
	int src_done;
};

/* Progress and pacing accounts (exec_progress.c). */
struct exec_pace {
	uint64_t last_progress_ns, rate_mark_ns, rate_mark_bytes;
	double rate_bps;
	struct scan_gov gov;
	int have_gov;
	uint64_t next_sample_ns;
};

/* Our own completed reads per device, which pacing by latency subtracts from the disk's
 * counts (exec_queue.c counts them, exec_progress.c reads them through exec_own_sum). */
struct exec_own {
	uint64_t bytes[SCAN_MAX_DEVICES];
	uint64_t ios[SCAN_MAX_DEVICES];		/* requests, as the disk's counts see them */
	uint64_t ns[SCAN_MAX_DEVICES];		/* summed latency, per request */
	uint64_t split[SCAN_MAX_DEVICES];	/* bytes past which the block layer splits a
						 * read of ours; 0 never */
	/* drive-side commands answered (passthrough, never in the disk's counts) */
	uint64_t cmd_ios[SCAN_MAX_DEVICES], cmd_ns[SCAN_MAX_DEVICES];
};

/* How many reads pacing by latency lets fly (executor.c, exec_inflight_cap). */
struct exec_cap {
	/*
	 * The loop's run-queue wait while reaping: on a busy CPU a read's completion is reaped
	 * late, and its latency measured from here would be longer than the kernel's count of
	 * it, which the governor subtracts it from.
	 */
	int sched_fd;			/* /proc/thread-self/schedstat; -1: not known */
	uint64_t reap_late_ns;		/* run-queue wait of the last wait for completions */
	/*
	 * No more in flight than twice what the disk completes in the time of one read alone:
	 * the shortest full-size read seen, and the most the reads delivered over EXEC_BW_NS
	 * (a slowly decaying maximum).
	 */
	uint64_t min_read_ns;
	uint64_t bw_max_bps, bw_bytes, bw_mark_ns;
};

/* Checkpoints: how far each device is read, what to read again (exec_progress.c). */
struct exec_ckpt {
	uint64_t next_ns;
	size_t nr_errors;		/* r->errors[0..n) already handed to a checkpoint */
	uint64_t cursor[SCAN_MAX_DEVICES];
	/* Isolation stopped part way: not proven, read again from here on the next run. */
	uint64_t reread_from[SCAN_MAX_DEVICES];
	uint64_t reread_seq;		/* the lowest scan_range.seq among them (UINT64_MAX none) */
};

/* Reads past the I/O timeout, in order, read again once the queue drained (recheck.c). */
struct exec_lates {
	struct exec_late *list;
	size_t nr, cap;
	int nomem;			/* a late read could not be set aside: -ENOMEM */
};

/* Narrowing failed reads (exec_isolate.c). */
struct exec_iso {
	/*
	 * Recent failed reads of the loop: those whose narrowing proved damage, and those that
	 * read fine block by block (transient). A transient read next to a proven one, in
	 * flight with it, failed as part of the request the block layer merged them into.
	 */
	struct exec_failed_read {
		uint32_t dev_idx;
		uint64_t offset, length, issue_ns, done_ns;
	} proved[EXEC_FAILED_RING], transient[EXEC_FAILED_RING];
	unsigned nr_proved, nr_transient;	/* entries written (the ring wraps) */
	int ready[SCAN_MAX_DEVICES];		/* the isolation method's init() ran */
	int dev_changed[SCAN_MAX_DEVICES];	/* shrank or went away: told once */
};

/* Drive-side methods through the engine, and the reads that sample them (exec_cmd.c). */
struct exec_cmd {
	const struct vfy_ops *ops;	/* NULL: reads */
	uint64_t max[SCAN_MAX_DEVICES];	/* bytes one command may cover */
	int fds[SCAN_MAX_DEVICES];	/* where the engine sends commands */
	int refused;			/* the device refused the method: drain, then read */
	struct vfy_result iso_first;	/* the failed command exec_isolate narrows next, */
	int have_iso_first;		/* the one at iso_first_off on iso_first_dev */
	uint64_t iso_first_off;
	uint32_t iso_first_dev;
	/* Sampled reads of what a dataless method passed: their buffer, the bytes owed to the
	 * share, and how many were taken (each one's place in its command) */
	void *sample_buf;
	uint64_t sample_credit;
	unsigned sample_seq;
};

/* One scan: what it reads with, the queue, and a part for each job, owned by its file. */
struct exec {
	const struct scan_device *devs;
	unsigned nr_devs;
	const struct scan_opts *o;
	struct scan_result *r;
	struct scan_source *src;
	struct scan_engine eng;
	size_t buf_map_len;		/* mapped size of eng.buf */
	size_t buf_piece;		/* bytes of eng.buf per slot (exec_slot_buf) */
	/* the queue (exec_queue.c) */
	struct exec_slot *slots;	/* nr_slots: the loop's depth, then as many for isolation */
	unsigned nr_slots;
	struct scan_io **done;		/* the loop's completions */
	struct scan_io **done_alone;	/* exec_read_many's completions */
	struct exec_slot **deferred;	/* completions seen by exec_read_alone, for the loop */
	unsigned nr_deferred;
	unsigned inflight;
	struct vfy_result alone_res;	/* what the last command sent alone said */
	struct exec_own own;
	int halt;			/* stop: the disk is failing, resized or gone */
	unsigned bad_run[SCAN_MAX_DEVICES];	/* failed or late reads in a row */
	uint64_t hard_cap_ns;		/* a read not answered after this is a device fault */
	uint64_t watch_max_len;		/* longest o->watch range, for the lookup */
	uint64_t start_ns;
	int vfy_ready[SCAN_MAX_DEVICES];	/* the verify method's init() ran on device d */
	int names_ok[SCAN_MAX_DEVICES];	/* do the device's named blocks hold (isolate.c) */
	struct exec_feed feed;
	struct exec_pace pace;
	struct exec_cap cap;
	struct exec_ckpt ckpt;
	struct exec_lates late;
	struct exec_iso iso;
	struct exec_cmd cmd;
};

/* The queue (exec_queue.c): slots, reads and commands sent through them, their bookkeeping. */

/*
 * The piece of the discard buffer a slot reads into. Data is not kept, but reads in flight
 * together (the loop's and isolation's) never share bytes: the kernel checks protection
 * information in the buffer once a read is done, and a neighbour's data landing there
 * would make good blocks fail and bad ones pass.
 */
static inline void *exec_slot_buf(const struct exec *x, const struct exec_slot *s)
{
	return (char *)x->eng.buf + (size_t)(s - x->slots) * x->buf_piece;
}

/* Return the drive-side method's device for scan device dev. */
static inline struct vfy_dev *exec_cmd_dev(const struct exec *x, uint32_t dev)
{
	return x->o->vfy_devs[dev];
}

/* Return 1 when the scan is to stop (signal, --max-duration, failing disk). */
int exec_stopping(const struct exec *x);
/* Return CLOCK_MONOTONIC in ns. */
uint64_t exec_now_ns(void);
/* Sleep ns (a signal ends it early: the loop looks at the stop flag). */
void exec_sleep_ns(uint64_t ns);
/* Call the disk failing: record why (printf-style) and stop the scan. */
void exec_failing(struct exec *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Count a failed or late read (bad 1) or a good one (bad 0) of dev; may call it failing. */
void exec_note_read(struct exec *x, uint32_t dev, int bad);
/* Count bytes [offset, offset+length) of dev, read cleanly, into the watches they cover. */
void exec_note_clean(struct exec *x, uint32_t dev, uint64_t offset, uint64_t length);
/* Return 0 after counting one of our reads of device dev that completed (bytes, latency). */
int exec_own_read(struct exec *x, unsigned dev, uint64_t bytes, uint64_t lat_ns);
/* A drive-side command of ours answered after lat_ns (for pacing: never in the disk's counts). */
int exec_own_cmd(struct exec *x, unsigned dev, uint64_t lat_ns);
/* Add our own completed reads of device dev to own (sectors, I/Os, summed latency). */
void exec_own_sum(const struct exec *x, unsigned dev, struct scan_gov_own *own);
/* Return what the last command sent alone said (exec_io_alone), zeroed before each. */
const struct vfy_result *exec_alone_said(const struct exec *x);
/*
 * Return 0 after reading rd[0..n) of device dev through the engine, as many at once as free
 * slots allow, each res and lat_ns set (-ETIME: not answered within hard_cap_ns, the disk is
 * called failing); -EINTR when the scan is stopping (reads in flight are abandoned, those not
 * read say -EINTR); -EBUSY with no free slot, or the engine's -errno. iso: isolation's reads,
 * counted toward --max-failed-reads and the watches (-ECANCELED becomes -ETIME).
 */
int exec_read_many(struct exec *x, uint32_t dev, struct scan_iso_read *rd, unsigned n,
		   int iso);
/*
 * Return bytes read, or -errno, after reading [offset, offset+len) of device dev through the
 * engine and waiting for that read alone; *lat_ns is how long it took. -ETIME: no answer
 * within hard_cap_ns (the read is abandoned in flight and the disk called failing); -EINTR:
 * the scan is stopping; -ECANCELED: the kernel cancelled it at the I/O timeout.
 */
ssize_t exec_read_alone(struct exec *x, uint32_t dev, uint64_t offset, uint32_t len,
			uint64_t *lat_ns);
/*
 * Return as exec_read_alone, counting the read as an isolation read only when count; with
 * a drive-side method the I/O is a command (len: clean; -errno of a failure, exec_alone_said()
 * says what; -EOPNOTSUPP refused).
 */
ssize_t exec_io_alone(struct exec *x, uint32_t dev, uint64_t offset, uint32_t len,
		      uint64_t *lat_ns, int count);
/* Return 0 after building the drive-side command for slot's piece, or -errno. */
int exec_cmd_prep(struct exec *x, struct exec_slot *slot);
/* Return what the method's complete() said of slot's answered command (see vfy_ops). */
int exec_cmd_complete(struct exec *x, struct exec_slot *slot);
/* Decode slot's answered command: io.res becomes its length (clean) or -errno (failed). */
int exec_cmd_decode(struct exec *x, struct exec_slot *slot);

/* The plan as the executor takes it (exec_batch.c). */
#define EXEC_BATCH 256			/* ranges asked of the source at once */
/* Return 1 when the current batch has a range to read, 0 at the end, or -errno. */
int exec_have_work(struct exec *x);
/* Return the length of the next read of the current range. */
uint32_t exec_next_len(const struct exec *x);
/* Prepare the next read of the current range in slot (exec_have_work() said 1). */
void exec_take_read(struct exec *x, struct exec_slot *slot, uint64_t now);
/* Return 0 after adding [offset, offset+length) of rg in front of what is left to read. */
int exec_redo(struct exec *x, const struct scan_range *rg, uint64_t offset, uint64_t length);
/* Return 1 when the source has ended and every range taken from it is read. */
int exec_feed_done(const struct exec *x);
/* Return 0 after allocating the batch (EXEC_BATCH and a piece put back per slot), or -ENOMEM. */
int exec_feed_alloc(struct exec *x);
/* Free the batch. */
void exec_feed_free(struct exec *x);
/*
 * Return 1 with *dev and *pos the next byte the feed hands out, 0 between batches (the source
 * has more), -1 when the source has ended and the batch is taken.
 */
int exec_feed_next(const struct exec *x, uint32_t *dev, uint64_t *pos);
/* Return the lowest seq of the ranges taken from the source and not yet handed out whole. */
uint64_t exec_feed_low_seq(const struct exec *x);
/* Return the current range (exec_have_work() said 1); *left: its bytes not yet handed out. */
const struct scan_range *exec_feed_range(const struct exec *x, uint64_t *left);
/* Where the feed was before a take, to put the piece back (a refused command). */
struct exec_feed_mark {
	unsigned pos;
	uint64_t range_pos;
};
/* Return the offset of the next len bytes of the current range, taken; m: where it was. */
uint64_t exec_feed_take(struct exec *x, uint64_t len, struct exec_feed_mark *m);
/* Put back what the take that set m handed out. */
void exec_feed_put_back(struct exec *x, const struct exec_feed_mark *m);

/* Progress, pacing samples and checkpoints (exec_progress.c). */
/* Call the progress callback (at most twice a second unless force). */
void exec_progress(struct exec *x, int force);
/* Return 0 after handing the cursors and the errors since the last call to the caller. */
int exec_checkpoint(struct exec *x, int final);
/* Set the cursors where the pass resumes, nothing to read again, the first checkpoint due. */
void exec_ckpt_start(struct exec *x);
/* Return 1 when a checkpoint is due at now. */
int exec_ckpt_due(const struct exec *x, uint64_t now);
/* Make the next checkpoint due one interval after from. */
void exec_ckpt_next(struct exec *x, uint64_t from);
/* Isolation stopped part way at offset of dev, in the range of place seq: read it again. */
void exec_ckpt_reread(struct exec *x, uint32_t dev, uint64_t offset, uint64_t seq);
/* Feed the governor fresh disk statistics (every scan_gov_sample_ns). */
void exec_sample(struct exec *x, uint64_t now);
/* Return 0 after starting the pace's clocks and the governor (o->gov), or -errno. */
int exec_pace_start(struct exec *x);
/* Return 1 when the governor paces by the foreground's latency. */
int exec_pace_by_latency(const struct exec *x);
/* Return how long to wait before a read of len bytes at now (0: go). */
uint64_t exec_pace_wait_ns(struct exec *x, uint64_t now, uint32_t len);
/* Count bytes issued at now toward the pace. */
void exec_pace_account(struct exec *x, uint64_t bytes, uint64_t now);
/* Fill in the result's pacing figures at the end of the pass, at end_ns. */
void exec_pace_sum_up(struct exec *x, uint64_t end_ns);

/*
 * Late reads (recheck.c). The files below recheck.c in the call order (exec_progress.c,
 * exec_cmd.c) read and settle them through the inline functions here, which call nothing:
 * a call of theirs into recheck.c would close a circle.
 */
/* Return 0 after recording a late read of slot (its state given), or -ENOMEM. */
int exec_late_add(struct exec *x, struct exec_slot *slot, enum exec_late_state state);
/*
 * Record what slot's late read said when it answered at last (its latency, and its state from
 * io.res). Return 1 when that settles it (all its data, or cancelled at the linked timeout), 0
 * when it failed and is to be isolated like any failed read.
 */
int exec_late_answer(struct exec *x, const struct exec_slot *slot);
/* A late read could not be set aside: the loop stops with -ENOMEM rather than spin. */
void exec_late_nomem(struct exec *x);
/* Return -ENOMEM when a late read could not be set aside, else 0. */
int exec_late_err(const struct exec *x);
/* Free the late reads. */
void exec_late_free(struct exec *x);

/* Mark slot's late read, if it has one, rechecked: its command settled it otherwise. */
static inline void exec_late_done(struct exec *x, const struct exec_slot *slot)
{
	if (slot->late_idx >= 0)
		x->late.list[slot->late_idx].state = EXEC_LATE_DONE;
}

/* Return 1 when late read l proves nothing yet (in flight, or answered and not rechecked). */
static inline int exec_late_open(const struct exec_late *l)
{
	return l->state == EXEC_LATE_WAITING || l->state == EXEC_LATE_ANSWERED ||
	       l->state == EXEC_LATE_CANCELLED;
}

/* Return the lowest offset on dev of a late read that proves nothing yet, if below cur; cur. */
static inline uint64_t exec_late_low_offset(const struct exec *x, uint32_t dev, uint64_t cur)
{
	for (size_t i = 0; i < x->late.nr; i++) {
		const struct exec_late *l = &x->late.list[i];

		if (l->dev_idx == dev && l->offset < cur && exec_late_open(l))
			cur = l->offset;
	}
	return cur;
}

/* Return the lowest range seq of a late read that proves nothing yet, if below low; low. */
static inline uint64_t exec_late_low_seq(const struct exec *x, uint64_t low)
{
	for (size_t i = 0; i < x->late.nr; i++) {
		const struct exec_late *l = &x->late.list[i];

		if (exec_late_open(l) && l->range.seq < low)
			low = l->range.seq;
	}
	return low;
}

/* Methods with a blocking verify() only (exec_vfy.c): xfs-verify; scsi-read's narrowing. */
/*
 * Return 0 after verifying [offset, offset+length) of device dev_idx with ops, narrowing a
 * failed command (isolating: an engine read is being narrowed; reads: commands that covered
 * it already); -EOPNOTSUPP when the device refused the method, or -ENOMEM.
 */
int exec_vfy_span(struct exec *x, const struct vfy_ops *ops, unsigned dev_idx,
		  const struct scan_range *rg, uint64_t offset, uint64_t length, int isolating,
		  unsigned reads);
/* Return 0 at the end or on stop, -EOPNOTSUPP when the device refused the method, -errno. */
int exec_vfy_loop(struct exec *x);
/* Return 0 after init() of ops on every device (ready[d] set), or -errno. */
int exec_vfy_init(struct exec *x, const struct vfy_ops *ops, int *ready);
/* Undo exec_vfy_init on the devices marked ready. */
void exec_vfy_cleanup(struct exec *x, const struct vfy_ops *ops, int *ready);

/* Drive-side commands in the loop (exec_cmd.c). */
/* Return 1 when a drive-side method's commands carry the scan (exec_cmd_start ran). */
static inline int exec_cmd_on(const struct exec *x)
{
	return x->cmd.ops != NULL;
}

/* Return the drive-side method that carries the scan (exec_cmd_on() said 1). */
static inline const struct vfy_ops *exec_cmd_ops(const struct exec *x)
{
	return x->cmd.ops;
}

/* Return the bytes one command may cover on device dev. */
static inline uint64_t exec_cmd_max_bytes(const struct exec *x, uint32_t dev)
{
	return x->cmd.max[dev];
}

/* Return 1 when the device refused the method that carries the scan: drain, then read. */
static inline int exec_cmd_refused(const struct exec *x)
{
	return x->cmd.refused && x->cmd.ops;
}

/*
 * Return 0 after setting up the method on every device, the engine that carries its
 * commands (uring_cmd on NVMe generic char devices, else the thread pool) and the slots'
 * buffers; -errno (fatal_msg says why).
 */
int exec_cmd_start(struct exec *x);
/* Undo exec_cmd_start (the engine already cleaned up, or left to the process's exit). */
void exec_cmd_stop(struct exec *x);
/*
 * Return 1 when slot's completed command was settled here (refused: put back for reading;
 * operational: recorded), 0 when io.res says what a read would and the read path goes on,
 * or -errno.
 */
int exec_cmd_done(struct exec *x, struct exec_slot *slot);
/* Return 0 after recording slot's command as not sent (err), or -ENOMEM. */
int exec_cmd_unsent(struct exec *x, struct exec_slot *slot, int err);
/* Return as exec_isolate, narrowing [offset, offset+length) of dev with commands. */
int exec_cmd_isolate(struct exec *x, uint32_t dev, const struct scan_range *rg, uint64_t offset,
		     uint64_t length, int err);

/* A failed read of the loop, narrowed and explained (exec_isolate.c). */
/* Return 0 after narrowing a failed read of [offset, offset+length) on dev; -errno. */
int exec_isolate(struct exec *x, uint32_t dev, const struct scan_range *rg, uint64_t offset,
		 uint64_t length, int err);
/* Return 1 when device dev is smaller than when the scan began, or gone; 0 otherwise. */
int exec_dev_shrunk(const struct exec *x, uint32_t dev);
/*
 * Return 1 when the device of io shrank or went away (the scan stops, one device fault is
 * recorded, failures past the new end are dropped), 0 when it is as it was.
 */
int exec_device_changed(struct exec *x, const struct scan_io *io);
/* Remember the narrowed failed read f; drop a transient that a proven neighbour explains. */
void exec_explain(struct exec *x, const struct exec_failed_read *f, size_t nr_before);
/* Start the isolation method (o->vfy_isolate) on every device; plain re-reads if it fails. */
void exec_iso_start(struct exec *x);
/* Undo exec_iso_start. */
void exec_iso_stop(struct exec *x);

/* Return 0 after settling every late read (recheck.c), or -errno. */
int exec_recheck(struct exec *x);

/* Return 0 at the end or on stop, -EOPNOTSUPP when the device refused the method, -errno. */
int exec_loop(struct exec *x);

#endif
