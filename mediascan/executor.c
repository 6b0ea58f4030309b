/*
 * mediascan/executor.c - drive the plan through an engine: split ranges at the I/O size,
 * keep the queue full, account planned bytes, hand failed reads to isolation.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine.h"
#include "kio.h"
#include "scan.h"

#define EXEC_BATCH 256

/* One queue slot: the read and a copy of the range it belongs to (for gap checks). */
struct exec_slot {
	struct scan_io io;
	struct map_range range;
	int busy;
};

struct exec {
	const struct scan_device *devs;
	unsigned nr_devs;
	const struct scan_opts *o;
	struct scan_result *r;
	struct scan_source *src;
	struct scan_engine eng;
	struct exec_slot *slots;
	struct scan_io **done;
	unsigned inflight;
	struct map_range *batch;
	unsigned batch_len, batch_pos;
	uint64_t range_pos;		/* next byte to read in batch[batch_pos] */
	int src_done;
	void *iso_buf;
	uint64_t start_ns, last_progress_ns, rate_mark_ns, rate_mark_bytes;
	double rate_bps;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Return 1 when a next read was prepared in slot, 0 at the end of the plan, or -errno. */
static int exec_next_read(struct exec *x, struct exec_slot *slot)
{
	struct map_range *rg;
	uint64_t end, len;
	int ret;

	while (x->batch_pos >= x->batch_len) {
		if (x->src_done)
			return 0;
		ret = x->src->next(x->src->arg, x->batch, EXEC_BATCH);
		if (ret < 0)
			return ret;
		if (ret == 0) {
			x->src_done = 1;
			return 0;
		}
		x->batch_len = (unsigned)ret;
		x->batch_pos = 0;
		x->range_pos = x->batch[0].offset;
		for (int i = 0; i < ret; i++)
			x->r->planned_bytes += map_range_planned_bytes(&x->batch[i],
								       x->batch[i].offset,
								       x->batch[i].length);
	}
	rg = &x->batch[x->batch_pos];
	end = rg->offset + rg->length;
	len = end - x->range_pos;
	if (len > x->o->io_size)
		len = x->o->io_size;
	memset(&slot->io, 0, sizeof(slot->io));
	slot->io.offset = x->range_pos;
	slot->io.length = (uint32_t)len;
	slot->io.dev_idx = rg->dev_idx;
	slot->io.buf = x->eng.buf;
	slot->io.planned_bytes = map_range_planned_bytes(rg, x->range_pos, len);
	slot->range = *rg;
	x->range_pos += len;
	if (x->range_pos >= end) {
		x->batch_pos++;
		if (x->batch_pos < x->batch_len)
			x->range_pos = x->batch[x->batch_pos].offset;
	}
	return 1;
}

static void exec_progress(struct exec *x, int force)
{
	struct scan_progress p;
	uint64_t now = now_ns();

	if (!x->o->progress)
		return;
	if (!force && now - x->last_progress_ns < 250000000ull)
		return;
	if (now - x->rate_mark_ns >= 1000000000ull) {
		double dt = (double)(now - x->rate_mark_ns) / 1e9;
		double cur = (double)(x->r->scanned_bytes - x->rate_mark_bytes) / dt;

		x->rate_bps = x->rate_bps ? 0.5 * x->rate_bps + 0.5 * cur : cur;
		x->rate_mark_ns = now;
		x->rate_mark_bytes = x->r->scanned_bytes;
	}
	x->last_progress_ns = now;
	p.planned_bytes = x->o->planned_total;
	p.scanned_bytes = x->r->scanned_bytes;
	p.elapsed_s = (double)(now - x->start_ns) / 1e9;
	p.rate_bps = x->rate_bps ? x->rate_bps :
		(p.elapsed_s > 0 ? (double)p.scanned_bytes / p.elapsed_s : 0);
	p.nr_errors = (unsigned)x->r->nr_errors;
	x->o->progress(&p, x->o->progress_arg);
}

/* A read came back: account it, or isolate its failing blocks. */
static int exec_complete(struct exec *x, struct exec_slot *slot)
{
	struct scan_io *io = &slot->io;
	const struct scan_device *d = &x->devs[io->dev_idx];
	struct scan_isolate si;
	int err = io->res, ret;

	slot->busy = 0;
	x->inflight--;
	x->r->read_bytes += io->res > 0 ? (uint64_t)io->res : 0;
	x->r->scanned_bytes += io->planned_bytes;
	if (io->res == (int)io->length)
		return 0;
	if (err >= 0)
		err = -EIO;			/* short read inside the device: treat as failed */
	memset(&si, 0, sizeof(si));
	si.fd = d->fd;
	si.dev_idx = io->dev_idx;
	si.lbs = d->logical_block_size;
	si.step_bytes = x->o->isolate_step_bytes;
	si.buf = x->iso_buf;
	si.read = kio_pread;
	si.range = &slot->range;
	si.r = x->r;
	if (scan_classify(err) == SCAN_ERR_OPERATIONAL) {
		struct scan_error e = {
			.dev_idx = io->dev_idx, .offset = io->offset, .length = io->length,
			.err = err, .cls = SCAN_ERR_OPERATIONAL, .reads = 1, .reproducible = 1,
		};
		return scan_result_add(x->r, &e);
	}
	ret = scan_isolate_range(&si, io->offset, io->length, err);
	x->r->isolation_reads += si.reads;
	return ret;
}

/* Fill the queue; return the number queued or -errno. */
static int exec_fill(struct exec *x)
{
	int queued = 0, ret;

	for (unsigned i = 0; i < x->o->depth && x->inflight < x->o->depth; i++) {
		struct exec_slot *slot = &x->slots[i];

		if (slot->busy)
			continue;
		if (x->o->stop && *x->o->stop)
			break;
		ret = exec_next_read(x, slot);
		if (ret <= 0)
			return ret < 0 ? ret : queued;
		ret = x->eng.ops->queue(&x->eng, &slot->io);
		if (ret < 0)
			return ret;
		slot->busy = 1;
		x->inflight++;
		queued++;
	}
	return queued;
}

static int exec_loop(struct exec *x)
{
	int ret;

	for (;;) {
		ret = exec_fill(x);
		if (ret < 0)
			return ret;
		ret = x->eng.ops->commit(&x->eng);
		if (ret < 0)
			return ret;
		if (x->inflight == 0)
			return 0;
		ret = x->eng.ops->getevents(&x->eng, 1, x->done, x->o->depth);
		if (ret < 0)
			return ret;
		for (int i = 0; i < ret; i++) {
			struct exec_slot *slot = (struct exec_slot *)x->done[i];
			int r2 = exec_complete(x, slot);

			if (r2 < 0)
				return r2;
		}
		exec_progress(x, 0);
	}
}

int scan_run(const struct scan_device *devs, unsigned nr_devs, struct scan_source *src,
	     const struct scan_opts *o, struct scan_result *r)
{
	const struct scan_engine_ops *ops;
	struct exec x;
	int fds[SCAN_MAX_DEVICES];
	size_t iso_len;
	int ret;

	memset(&x, 0, sizeof(x));
	if (nr_devs == 0 || nr_devs > SCAN_MAX_DEVICES || o->depth == 0 || o->io_size == 0)
		return -EINVAL;
	x.devs = devs;
	x.nr_devs = nr_devs;
	x.o = o;
	x.r = r;
	x.src = src;
	ops = scan_engine_pick(o->engine, r->fatal_msg, sizeof(r->fatal_msg), r->engine_note,
			       sizeof(r->engine_note));
	if (!ops)
		return -EOPNOTSUPP;
	snprintf(r->engine, sizeof(r->engine), "%s", ops->name);
	for (unsigned i = 0; i < nr_devs; i++)
		fds[i] = devs[i].fd;
	x.eng.ops = ops;
	x.eng.fds = fds;
	x.eng.nr_fds = nr_devs;
	x.eng.depth = o->depth;
	x.eng.buf_len = o->io_size;
	/* The read method keeps no data: every read lands in one shared discard buffer. */
	ret = posix_memalign(&x.eng.buf, 4096, o->io_size);
	if (ret)
		return -ret;
	iso_len = o->io_size > 4096 ? o->io_size : 4096;	/* halves may exceed io_size/2 by a block */
	ret = posix_memalign(&x.iso_buf, 4096, iso_len);
	if (ret) {
		ret = -ret;
		goto out_buf;
	}
	x.slots = calloc(o->depth, sizeof(*x.slots));
	x.done = calloc(o->depth, sizeof(*x.done));
	x.batch = calloc(EXEC_BATCH, sizeof(*x.batch));
	if (!x.slots || !x.done || !x.batch) {
		ret = -ENOMEM;
		goto out_mem;
	}
	ret = ops->init(&x.eng);
	if (ret < 0) {
		snprintf(r->fatal_msg, sizeof(r->fatal_msg), "engine %s failed to start: %s",
			 ops->name, strerror(-ret));
		goto out_mem;
	}
	x.start_ns = x.last_progress_ns = x.rate_mark_ns = now_ns();
	ret = exec_loop(&x);
	if (ret < 0) {
		r->fatal = ret;
		if (!r->fatal_msg[0])
			snprintf(r->fatal_msg, sizeof(r->fatal_msg), "scan stopped: %s",
				 strerror(-ret));
		/* Let reads in flight finish before their buffer goes away. */
		while (x.inflight) {
			int n = ops->getevents(&x.eng, 1, x.done, o->depth);

			if (n <= 0)
				break;
			x.inflight -= (unsigned)n;
		}
		ret = 0;
	}
	r->elapsed_s = (double)(now_ns() - x.start_ns) / 1e9;
	r->complete = x.src_done && !r->fatal && !(o->stop && *o->stop);
	exec_progress(&x, 1);
	ops->cleanup(&x.eng);
out_mem:
	free(x.slots);
	free(x.done);
	free(x.batch);
	free(x.iso_buf);
out_buf:
	free(x.eng.buf);
	return ret;
}

int scan_result_free(struct scan_result *r)
{
	free(r->errors);
	r->errors = NULL;
	r->nr_errors = 0;
	return 0;
}
