/*
 * mediascan/executor.c - the executor's loop, on top of its other files: scan_run sets up
 * the engine, the slots and the method, then the loop keeps the queue full within the
 * governor's pace (pieces from exec_batch.c, sent through exec_queue.c), completes reads
 * (failed ones narrowed by exec_isolate.c, drive-side commands settled by exec_cmd.c), sets
 * aside reads past the I/O timeout (the watchdog; recheck.c settles them once the queue has
 * drained), and reports and checkpoints as it goes (exec_progress.c). xfs-verify's blocking
 * calls keep a loop of their own (exec_vfy.c). The layers, each calling only those below:
 *   executor.c -> recheck.c -> exec_isolate.c -> exec_cmd.c -> exec_vfy.c
 *     -> exec_progress.c, exec_batch.c, exec_queue.c
 * Not split further: what is left here is the loop and its set-up and teardown, one concern
 * (the other parts already live in the exec_*.c files named above).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine.h"
#include "kio.h"
#include "scan.h"

#include "exec.h"

#define EXEC_MIN_HARD_CAP_NS 10000000000ull	/* a late read is waited for at least 10 s */
#define EXEC_ISO_CHUNK (64 * 1024u)		/* the least buffer piece per slot */

static uint64_t now_ns(void)
{
	return exec_now_ns();
}

#define EXEC_BW_NS 250000000ull

/* One of the loop's reads completed: the disk's time for a read alone, its bandwidth. */
static void exec_note_bw(struct exec *x, uint64_t bytes, uint64_t lat_ns, int full,
			 uint64_t now)
{
	if (full && lat_ns && (!x->cap.min_read_ns || lat_ns < x->cap.min_read_ns))
		x->cap.min_read_ns = lat_ns;
	x->cap.bw_bytes += bytes;
	if (!x->cap.bw_mark_ns) {
		x->cap.bw_mark_ns = now;
	} else if (now - x->cap.bw_mark_ns >= EXEC_BW_NS) {
		uint64_t bps = (uint64_t)((double)x->cap.bw_bytes * 1e9 /
					  (double)(now - x->cap.bw_mark_ns));

		/* a maximum that forgets slowly (a sixteenth of the gap per sample) */
		x->cap.bw_max_bps = bps >= x->cap.bw_max_bps ? bps :
				x->cap.bw_max_bps - (x->cap.bw_max_bps - bps) / 16;
		x->cap.bw_bytes = 0;
		x->cap.bw_mark_ns = now;
	}
}

/*
 * The reads the loop keeps in flight. Pacing by latency: twice the bandwidth-delay product
 * (BBR's in-flight cap: the most the disk delivers times its time for one read alone), at
 * least two reads, at most the depth. A one-queue disk gives the same throughput at two
 * reads in flight as at sixteen, while every read queued beyond that is time a foreground's
 * first request waits behind before the scan can see it and pause. A parallel disk shows
 * more bandwidth at each step, so the cap doubles until it stops growing. Other pacing: the
 * depth.
 */
static unsigned exec_inflight_cap(const struct exec *x)
{
	uint64_t bytes, reads;

	if (!exec_pace_by_latency(x))
		return x->o->depth;
	/* nothing measured yet: two, and twice what the disk then shows (BBR's start-up) */
	if (!x->cap.min_read_ns || !x->cap.bw_max_bps)
		return x->o->depth < 2 ? x->o->depth : 2;
	bytes = (uint64_t)(2.0 * (double)x->cap.bw_max_bps * (double)x->cap.min_read_ns / 1e9);
	reads = (bytes + x->o->io_size - 1) / x->o->io_size;
	if (reads < 2)
		reads = 2;
	return reads < x->o->depth ? (unsigned)reads : x->o->depth;
}

/* A read came back: account it, keep a late one for the recheck, or isolate a failure. */
static int exec_complete(struct exec *x, struct exec_slot *slot)
{
	struct scan_io *io = &slot->io, e0;
	struct exec_failed_read f;
	struct scan_range rg;
	size_t nr_before;
	int err = io->res, ret;

	slot->busy = 0;
	x->inflight--;
	if (io->res > 0 && !io->cmd) {
		x->r->read_bytes += (uint64_t)io->res;
		uint64_t now = now_ns(), lat = now - io->issue_ns;

		/* Less the wait for a CPU before it was reaped (never below a tenth). */
		lat = x->cap.reap_late_ns < lat - lat / 10 ? lat - x->cap.reap_late_ns : lat / 10;
		exec_own_read(x, io->dev_idx, (uint64_t)io->res, lat);
		/* only the in-flight cap of pacing by latency uses them */
		if (exec_pace_by_latency(x))
			exec_note_bw(x, (uint64_t)io->res, lat, io->length >= x->o->io_size, now);
	} else if (io->cmd && io->res >= 0) {
		exec_own_cmd(x, io->dev_idx, now_ns() - io->issue_ns);
	}
	if (slot->alone) {
		slot->alone = 0;		/* an abandoned exec_read_alone answered at last */
		return 0;
	}
	if (io->cmd) {
		/* A command: decoded into what a read would say, unless settled there. */
		ret = exec_cmd_done(x, slot);
		if (ret)
			return ret < 0 ? ret : 0;
		err = io->res;
	}
	if (slot->timed_out) {
		/* Reported late (and accounted) by the watchdog: what did it say in the end? A
		 * failure is isolated below. */
		if (exec_late_answer(x, slot))
			return 0;
	} else {
		x->r->scanned_bytes += io->planned_bytes;
		if (io->res == (int)io->length) {
			exec_note_read(x, io->dev_idx, 0);
			exec_note_clean(x, io->dev_idx, io->offset, io->length);
			if (x->o->on_data && !io->cmd)
				x->o->on_data(x->o->data_arg, io->dev_idx, io->offset, io->buf,
					      io->length);
			return 0;
		}
		if (err == -ECANCELED && x->o->io_timeout_ns) {
			/* The linked timeout fired and the kernel cancelled it: recheck later. */
			x->r->nr_timeouts++;
			exec_note_read(x, io->dev_idx, 1);
			return exec_late_add(x, slot, EXEC_LATE_CANCELLED);
		}
	}
	if (exec_device_changed(x, io))
		return 0;			/* shrunk or gone: not damage */
	if (err >= 0)
		err = -EIO;			/* short read inside the device: treat as failed */
	if (scan_classify(err) == SCAN_ERR_OPERATIONAL) {
		struct scan_error e = {
			.dev_idx = io->dev_idx, .offset = io->offset, .length = io->length,
			.err = err, .cls = SCAN_ERR_OPERATIONAL, .reads = 1, .reproducible = 1,
		};
		return scan_result_add(x->r, &e);
	}
	exec_note_read(x, io->dev_idx, 1);
	/* Isolation's reads may take this very slot: work from copies. */
	rg = slot->range;
	nr_before = x->r->nr_errors;
	e0 = *io;
	f.done_ns = now_ns();
	ret = exec_isolate(x, io->dev_idx, &rg, e0.offset, e0.length, err);
	/*
	 * The device may have shrunk while this was narrowed (a resize is seen by the kernel a
	 * moment after reads past the new end start failing): then what was just found is not
	 * damage. Errors already handed to a checkpoint stay.
	 */
	if (ret == 0 && exec_dev_shrunk(x, e0.dev_idx)) {
		if (x->r->sealed <= nr_before && x->r->nr_errors > nr_before)
			x->r->nr_errors = nr_before;
		exec_device_changed(x, &e0);	/* the one device fault, and the stop */
	} else if (ret == 0 && !x->r->failing) {
		f.dev_idx = e0.dev_idx;
		f.offset = e0.offset;
		f.length = e0.length;
		f.issue_ns = e0.issue_ns;
		exec_explain(x, &f, nr_before);
	}
	return ret;
}

/*
 * Set aside reads in flight longer than the I/O timeout (they are waited for, re-read alone
 * and narrowed once the queue has drained: recheck.c); return ns until the next may expire.
 */
static uint64_t exec_watchdog(struct exec *x, uint64_t now)
{
	uint64_t next = UINT64_MAX;

	if (!x->o->io_timeout_ns)
		return next;
	for (unsigned i = 0; i < x->o->depth; i++) {
		struct exec_slot *s = &x->slots[i];
		uint64_t age;

		if (!s->busy || s->timed_out || s->alone)
			continue;
		age = now - s->io.issue_ns;
		if (age >= x->o->io_timeout_ns) {
			/*
			 * The read is stuck in the device or driver: go on. Its slot stays taken
			 * until the kernel gives it back; the buffer is the shared discard
			 * buffer, so nothing else waits on it.
			 */
			if (exec_late_add(x, s, EXEC_LATE_WAITING) < 0) {
				exec_late_nomem(x);	/* the loop stops: no spinning */
				return UINT64_MAX;
			}
			s->timed_out = 1;
			x->r->nr_timeouts++;
			x->r->scanned_bytes += s->io.planned_bytes;
			exec_note_read(x, s->io.dev_idx, 1);
			continue;
		}
		if (x->o->io_timeout_ns - age < next)
			next = x->o->io_timeout_ns - age;
	}
	return next;
}

/* Fill the queue within the governor's pace; return ns to wait before the next try. */
static int exec_fill(struct exec *x, uint64_t now, uint64_t *wait_ns)
{
	uint64_t w;
	int ret;

	unsigned cap = exec_inflight_cap(x);

	*wait_ns = UINT64_MAX;
	for (unsigned i = 0; i < x->o->depth && x->inflight < cap; i++) {
		struct exec_slot *slot = &x->slots[i];

		if (slot->busy)
			continue;
		if (exec_stopping(x))
			break;
		ret = exec_have_work(x);
		if (ret <= 0)
			return ret;
		w = exec_pace_wait_ns(x, now, exec_next_len(x));
		if (w) {
			*wait_ns = w;
			return 0;
		}
		exec_take_read(x, slot, now);
		if (exec_cmd_on(x) && (ret = exec_cmd_prep(x, slot)) < 0) {
			ret = exec_cmd_unsent(x, slot, ret);	/* could not be built */
			if (ret < 0)
				return ret;
			continue;
		}
		ret = x->eng.ops->queue(&x->eng, &slot->io);
		if (ret < 0) {
			/* Cannot happen with depth slots; do not lose the read if it does. */
			return ret;
		}
		exec_pace_account(x, slot->io.length, now);
		slot->busy = 1;
		x->inflight++;
		if (x->inflight > x->r->max_inflight)
			x->r->max_inflight = x->inflight;
	}
	return 0;
}

/* Completions that arrived while exec_read_alone waited for its own read. */
static int exec_complete_deferred(struct exec *x)
{
	int ret;

	while (x->nr_deferred) {
		ret = exec_complete(x, x->deferred[--x->nr_deferred]);
		if (ret < 0)
			return ret;
	}
	return 0;
}

int exec_loop(struct exec *x)
{
	uint64_t now, wait, dog, timeout;
	int ret, n;

	for (;;) {
		now = now_ns();
		if (x->o->max_duration_ns && now - x->start_ns >= x->o->max_duration_ns &&
		    !x->r->stopped) {
			x->r->stopped = 2;
			*x->o->stop = 1;
		}
		ret = exec_fill(x, now, &wait);
		if (ret < 0)
			return ret;
		ret = x->eng.ops->commit(&x->eng);
		if (ret < 0)
			return ret;
		dog = exec_watchdog(x, now);
		if (exec_late_err(x))
			return exec_late_err(x);
		if (exec_cmd_refused(x) && x->inflight == 0)
			return -EOPNOTSUPP;	/* drained: the rest is read */
		if (x->inflight == 0) {
			if (exec_stopping(x) || exec_feed_done(x))
				return 0;
		}
		/* Only timed-out reads left and nothing else to do: stop waiting for them. */
		if (x->inflight && (exec_stopping(x) || exec_feed_done(x) || exec_cmd_refused(x))) {
			unsigned live = 0;

			for (unsigned i = 0; i < x->o->depth; i++)
				live += x->slots[i].busy && !x->slots[i].timed_out &&
					!x->slots[i].alone;
			if (!live)
				return exec_cmd_refused(x) ? -EOPNOTSUPP : 0;
		}
		timeout = wait < dog ? wait : dog;
		if (timeout > EXEC_IDLE_WAIT_NS)
			timeout = EXEC_IDLE_WAIT_NS;
		if (x->inflight == 0) {
			exec_sleep_ns(timeout);
			n = 0;
		} else {
			uint64_t rd0 = 0, rd1 = 0;
			int have_rd = x->cap.sched_fd >= 0 &&
				      kio_schedstat_run_delay(x->cap.sched_fd, &rd0) == 0;

			n = x->eng.ops->getevents(&x->eng, 1, x->done, x->nr_slots, timeout);
			if (n < 0)
				return n;
			/* Woken by a completion but waiting for a CPU: that is not the disk's. */
			have_rd = have_rd && kio_schedstat_run_delay(x->cap.sched_fd, &rd1) == 0;
			x->cap.reap_late_ns = have_rd && rd1 > rd0 ? rd1 - rd0 : 0;
		}
		for (int i = 0; i < n; i++) {
			ret = exec_complete(x, (struct exec_slot *)x->done[i]);
			if (ret < 0)
				return ret;
		}
		ret = exec_complete_deferred(x);
		if (ret < 0)
			return ret;
		now = now_ns();
		exec_sample(x, now);
		exec_progress(x, 0);
		if (exec_ckpt_due(x, now)) {
			/*
			 * A checkpoint the store refused (busy, full) keeps its errors pending for
			 * the next one; the scan goes on. The last one says whether all were kept.
			 * The interval counts from its end: a busy store (each try waits out its
			 * busy timeout) must not take every turn of the loop.
			 */
			exec_checkpoint(x, 0);
			exec_ckpt_next(x, now_ns());
		}
	}
}

/* Return 0 after allocating x's buffer (2 x depth slots of it) and its slot arrays, or -errno. */
static int exec_alloc(struct exec *x)
{
	const struct scan_opts *o = x->o;
	struct scan_result *r = x->r;
	enum kio_buf_kind kind;

	/* As many slots again for isolation: its reads go out together while the loop's wait. */
	x->nr_slots = 2 * o->depth;
	x->eng.depth = x->nr_slots;
	x->buf_piece = ((size_t)(o->io_size > EXEC_ISO_CHUNK ? o->io_size : EXEC_ISO_CHUNK) + 4095) &
		       ~(size_t)4095;
	x->eng.buf_len = (size_t)x->nr_slots * x->buf_piece;
	x->eng.buf_piece = x->buf_piece;
	x->eng.io_timeout_ns = o->io_timeout_ns;
	/*
	 * The read method keeps no data, but every slot reads into a piece of the buffer of
	 * its own (exec_slot_buf): 2 x depth x io_size bytes, registered once with io_uring.
	 */
	x->eng.buf = kio_buf_alloc(x->eng.buf_len, &x->buf_map_len, &kind);
	if (!x->eng.buf)
		return -ENOMEM;
	/*
	 * Small pages split a read that needs more than max_segments of them in two at the
	 * block layer. Reads keep the size asked for all the same: a split read is correct, and
	 * the block layer splits at no more cost than two smaller reads would have; the report's
	 * io_buffer says which kind of buffer the scan got.
	 */
	r->io_size = o->io_size;
	x->eng.buf_huge = kind != KIO_BUF_PAGES;
	r->io_buffer = kind == KIO_BUF_PAGES ? "pages" : kind == KIO_BUF_HUGETLB ? "hugetlb" : "thp";
	/* where the block layer splits our reads: the transfer limit, and with small pages one
	 * segment per page (NVMe's 127 segments split a 512 KiB read in two) */
	for (unsigned d = 0; d < x->nr_devs; d++) {
		uint64_t split = x->devs[d].max_io_bytes;
		uint64_t seg = (uint64_t)x->devs[d].max_segments * (uint64_t)sysconf(_SC_PAGESIZE);

		if (kind == KIO_BUF_PAGES && seg && (!split || seg < split))
			split = seg;
		x->own.split[d] = split;
	}
	x->slots = calloc(x->nr_slots, sizeof(*x->slots));
	x->done = calloc(x->nr_slots, sizeof(*x->done));
	x->done_alone = calloc(x->nr_slots, sizeof(*x->done_alone));
	x->deferred = calloc(x->nr_slots, sizeof(*x->deferred));
	if (!x->slots || !x->done || !x->done_alone || !x->deferred)
		return -ENOMEM;
	return exec_feed_alloc(x);
}

/* Return 0 after setting x's cursors, the watchdog's cap, the clocks and the governor. */
static int exec_start(struct exec *x)
{
	const struct scan_opts *o = x->o;
	int ret;

	/*
	 * A read past the I/O timeout is waited for this long before the disk is called not
	 * answering: a drive that retries a sector internally may take a minute.
	 */
	for (size_t i = 0; i < o->nr_watch; i++)
		if (o->watch[i].length > x->watch_max_len)
			x->watch_max_len = o->watch[i].length;
	x->hard_cap_ns = UINT64_MAX;
	if (o->io_timeout_ns)
		x->hard_cap_ns = o->io_timeout_ns * 4 > EXEC_MIN_HARD_CAP_NS ?
				 o->io_timeout_ns * 4 : EXEC_MIN_HARD_CAP_NS;
	x->start_ns = now_ns();
	exec_ckpt_start(x);
	ret = exec_pace_start(x);
	if (ret < 0)
		return ret;
	x->cap.sched_fd = o->gov && o->gov->latency ? kio_schedstat_open() : -1;
	return 0;
}

/*
 * Run the pass by the method's device commands or blocking calls, if it has them. Return the
 * result with *over set when the pass ended there; *over clear when the method has none or
 * was refused (the engine ops then reads the plan, x->eng put back to it).
 */
static int exec_run_method(struct exec *x, const struct scan_engine_ops *ops, int *fds,
			   int *eng_ready, int *over)
{
	const struct scan_opts *o = x->o;
	struct scan_result *r = x->r;
	int ret;

	*over = 0;
	if (o->vfy && (o->vfy->caps & (VFY_CAP_CMD_NVME | VFY_CAP_CMD_SCSI))) {
		/* Device commands through the one loop; the engine reads only what is refused. */
		ret = exec_cmd_start(x);
		*eng_ready = ret == 0;
		if (ret == 0)
			ret = exec_loop(x);
		if (ret == 0)
			ret = exec_recheck(x);
		if (ret != -EOPNOTSUPP || x->inflight) {
			if (ret == -EOPNOTSUPP)
				snprintf(r->fatal_msg, sizeof(r->fatal_msg), "%s was refused while "
					 "commands were still in flight", o->vfy->name);
			*over = 1;
			return ret;
		}
		if (*eng_ready)
			x->eng.ops->cleanup(&x->eng);
		*eng_ready = 0;
		exec_cmd_stop(x);
		x->eng.ops = ops;
		x->eng.fds = fds;
		snprintf(r->engine, sizeof(r->engine), "%s", ops->name);
	} else if (o->vfy && (o->vfy->caps & VFY_CAP_SYNC)) {
		/* Blocking calls only (xfs-verify): the engine only reads what it refuses. */
		ret = exec_vfy_init(x, o->vfy, x->vfy_ready);
		if (ret == 0) {
			snprintf(r->engine, sizeof(r->engine), "passthrough");
			ret = exec_vfy_loop(x);
		} else {
			snprintf(r->fatal_msg, sizeof(r->fatal_msg), "method %s failed to start: %s",
				 o->vfy->name, strerror(-ret));
		}
		exec_vfy_cleanup(x, o->vfy, x->vfy_ready);
		if (ret != -EOPNOTSUPP) {
			*over = 1;
			return ret;
		}
		snprintf(r->engine, sizeof(r->engine), "%s", ops->name);
	}
	return 0;
}

/* Let live reads finish before their buffer goes away (timed-out ones may not). */
static void exec_drain(struct exec *x, int eng_ready)
{
	for (unsigned tries = 0; eng_ready && x->inflight && tries < 50; tries++) {
		int n = x->eng.ops->getevents(&x->eng, 1, x->done, x->nr_slots, EXEC_IDLE_WAIT_NS);

		for (int i = 0; i < n; i++)
			exec_complete(x, (struct exec_slot *)x->done[i]);
		exec_complete_deferred(x);
		if (n < 0)
			break;
	}
}

/* Fill in how the pass ended: stopped, elapsed, complete, and what the governor did. */
static void exec_sum_up(struct exec *x)
{
	const struct scan_opts *o = x->o;
	struct scan_result *r = x->r;

	if (o->stop && *o->stop && !r->stopped)
		r->stopped = 1;
	r->elapsed_s = (double)(now_ns() - x->start_ns) / 1e9;
	r->complete = exec_feed_done(x) && !r->fatal && !r->stopped && !r->failing;
	exec_pace_sum_up(x, now_ns());
}

/* Free what exec_alloc and exec_start took, but what a read or command still in flight owns. */
static void exec_free(struct exec *x)
{
	if (x->cap.sched_fd >= 0)
		close(x->cap.sched_fd);
	if (x->inflight == 0)		/* a pool thread stuck in a command still owns its slot */
		free(x->slots);
	free(x->done);
	free(x->done_alone);
	free(x->deferred);
	exec_feed_free(x);
	exec_late_free(x);
	if (x->inflight == 0)
		kio_buf_free(x->eng.buf, x->buf_map_len);
}

int scan_run(const struct scan_device *devs, unsigned nr_devs, struct scan_source *src,
	     const struct scan_opts *o, struct scan_result *r)
{
	const struct scan_engine_ops *ops;
	struct exec *x;
	int fds[SCAN_MAX_DEVICES];
	int ret, eng_ready = 0, over;

	if (nr_devs == 0 || nr_devs > SCAN_MAX_DEVICES || o->depth == 0 || o->io_size == 0 ||
	    (o->max_duration_ns && !o->stop))
		return -EINVAL;
	x = calloc(1, sizeof(*x));
	if (!x)
		return -ENOMEM;
	x->cap.sched_fd = -1;
	x->devs = devs;
	x->nr_devs = nr_devs;
	x->o = o;
	x->r = r;
	x->src = src;
	ops = scan_engine_pick(o->engine, r->fatal_msg, sizeof(r->fatal_msg), r->engine_note,
			       sizeof(r->engine_note));
	if (!ops) {
		ret = -EOPNOTSUPP;
		goto out_x;
	}
	snprintf(r->engine, sizeof(r->engine), "%s", ops->name);
	for (unsigned i = 0; i < nr_devs; i++)
		fds[i] = devs[i].fd;
	x->eng.ops = ops;
	x->eng.fds = fds;
	x->eng.nr_fds = nr_devs;
	ret = exec_alloc(x);
	if (ret < 0)
		goto out_mem;
	ret = exec_start(x);
	if (ret < 0)
		goto out_mem;
	ret = exec_run_method(x, ops, fds, &eng_ready, &over);
	if (over)
		goto out_loop;
	exec_iso_start(x);
	ret = ops->init(&x->eng);
	if (ret < 0) {
		snprintf(r->fatal_msg, sizeof(r->fatal_msg), "engine %s failed to start: %s",
			 ops->name, strerror(-ret));
		exec_iso_stop(x);
		goto out_mem;
	}
	eng_ready = 1;
	ret = exec_loop(x);
	if (ret == 0)
		ret = exec_recheck(x);		/* the late reads, now that the queue is empty */
out_loop:
	if (ret < 0) {
		r->fatal = ret;
		if (!r->fatal_msg[0])
			snprintf(r->fatal_msg, sizeof(r->fatal_msg), "scan stopped: %s",
				 strerror(-ret));
		ret = 0;
	}
	exec_drain(x, eng_ready);
	exec_sum_up(x);
	if (!r->fatal) {
		/*
		 * Refused (busy, full): errors[sealed..] are not in the store. The caller
		 * sees that (sealed < nr_errors), may try again, and settles nothing if not.
		 */
		(void)exec_checkpoint(x, 1);
	}
	exec_progress(x, 1);
	/*
	 * An engine whose cleanup waits for I/O in flight is left alone while a hung read or
	 * command still owns it: tearing it down would block until the device answers. The
	 * process exits soon and the kernel reaps it then.
	 */
	if (eng_ready && (x->inflight == 0 || !(x->eng.ops->caps & SCAN_ENG_CLEANUP_WAITS)))
		x->eng.ops->cleanup(&x->eng);
	exec_iso_stop(x);
	exec_cmd_stop(x);
out_mem:
	exec_free(x);
out_x:
	free(x);
	return ret;
}

int scan_result_free(struct scan_result *r)
{
	free(r->errors);
	r->errors = NULL;
	r->nr_errors = 0;
	return 0;
}

/*
 * I/O size policy: 1 MiB within every device's queue limit (max_sectors_kb); a size asked is
 * used as asked (the block layer splits what is above the limit; the caller says so), a
 * multiple of the largest logical block size.
 */
uint32_t scan_io_size(const struct scan_device *devs, unsigned nr, uint64_t asked)
{
	uint64_t io = asked ? asked : SCAN_DEFAULT_IO_SIZE;
	uint32_t lbs = 512;

	for (unsigned i = 0; i < nr; i++) {
		if (!asked && devs[i].max_io_bytes && io > devs[i].max_io_bytes)
			io = devs[i].max_io_bytes;
		if (devs[i].logical_block_size > lbs)
			lbs = devs[i].logical_block_size;
	}
	io -= io % lbs;
	return (uint32_t)(io ? io : lbs);
}
