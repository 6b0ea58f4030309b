/*
 * mediascan/exec_cmd.c - drive-side methods (nvme-verify, pi-read, scsi-verify) in the
 * executor's one loop: the method's prep() builds each piece's command into its queue slot,
 * the engine keeps depth of them in flight (uring_cmd on the NVMe generic char device, or the
 * thread pool for SG_IO and the NVMe ioctl), and complete() decodes each answer into what a
 * read would have said, so the governor, checkpoints, stop handling, the --io-timeout
 * watchdog and the recheck apply as to reads. A failed command is narrowed in isolate.c (the
 * block the device names, else bisection) with commands sent alone through the same engine.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec.h"

/* Return 1 when every device can take NVMe commands through io_uring passthrough. */
static int cmd_uring_ok(const struct exec *x)
{
	if (!(x->cmd.ops->caps & VFY_CAP_CMD_NVME))
		return 0;
	if (x->o->engine && strcmp(x->o->engine, scan_engine_uring.name) != 0)
		return 0;			/* --engine asked for another: the pool then */
	for (unsigned d = 0; d < x->nr_devs; d++)
		if (exec_cmd_dev(x, d)->cfd < 0 || !exec_cmd_dev(x, d)->uring_cmd)
			return 0;
	return 1;
}

int exec_cmd_start(struct exec *x)
{
	const struct vfy_ops *ops = x->o->vfy;
	size_t buf_bytes = 0;
	int uring, ret;

	ret = exec_vfy_init(x, ops, x->vfy_ready);
	if (ret < 0) {
		exec_vfy_cleanup(x, ops, x->vfy_ready);
		if (ret != -EOPNOTSUPP)		/* refused: the engine reads instead */
			snprintf(x->r->fatal_msg, sizeof(x->r->fatal_msg), "method %s failed to "
				 "start: %s", ops->name, strerror(-ret));
		return ret;
	}
	x->cmd.ops = ops;
	uring = cmd_uring_ok(x);
	for (unsigned d = 0; d < x->nr_devs; d++) {
		struct vfy_dev *vd = exec_cmd_dev(x, d);
		size_t b = ops->buf_bytes ? ops->buf_bytes(vd) : 0;

		x->cmd.max[d] = (uint64_t)ops->max_blocks(vd) * vd->lbs;
		x->cmd.fds[d] = uring ? vd->cfd : vd->fd;
		if (b > buf_bytes)
			buf_bytes = b;
	}
	if (!ops->moves_data && x->o->sample_permille &&
	    posix_memalign(&x->cmd.sample_buf, 4096, EXEC_SAMPLE_BYTES)) {
		snprintf(x->r->fatal_msg, sizeof(x->r->fatal_msg), "out of memory");
		return -ENOMEM;
	}
	for (unsigned i = 0; buf_bytes && i < x->nr_slots; i++) {	/* isolation's too */
		if (posix_memalign(&x->slots[i].cmd_buf, 4096, buf_bytes)) {
			snprintf(x->r->fatal_msg, sizeof(x->r->fatal_msg), "out of memory");
			return -ENOMEM;
		}
	}
	x->eng.ops = uring ? &scan_engine_uring : &scan_engine_pool;
	x->eng.fds = x->cmd.fds;
	x->eng.cmd_ring = uring;
	ret = x->eng.ops->init(&x->eng);
	if (ret < 0) {
		snprintf(x->r->fatal_msg, sizeof(x->r->fatal_msg), "engine %s failed to start "
			 "for %s: %s", x->eng.ops->name, ops->name, strerror(-ret));
		return ret;
	}
	snprintf(x->r->engine, sizeof(x->r->engine), "%s", uring ? "uring_cmd" : "pool");
	return 0;
}

void exec_cmd_stop(struct exec *x)
{
	if (x->cmd.ops)
		exec_vfy_cleanup(x, x->cmd.ops, x->vfy_ready);
	if (x->inflight == 0)		/* a command still in flight may write its buffer */
		for (unsigned i = 0; i < x->nr_slots; i++) {
			free(x->slots[i].cmd_buf);
			x->slots[i].cmd_buf = NULL;
		}
	free(x->cmd.sample_buf);
	x->cmd.sample_buf = NULL;
	x->cmd.ops = NULL;
	x->eng.cmd_ring = 0;
}

int exec_cmd_unsent(struct exec *x, struct exec_slot *slot, int err)
{
	struct scan_error e = {
		.dev_idx = slot->io.dev_idx, .offset = slot->io.offset,
		.length = slot->io.length, .err = err, .reads = 1, .reproducible = 1,
	};

	/* the path or the device failing (timeout, transport, target, gone) is a device fault,
	 * as on a read; anything else short of the medium is our own trouble */
	e.cls = scan_classify(err) == SCAN_ERR_DEVICE ? SCAN_ERR_DEVICE : SCAN_ERR_OPERATIONAL;

	if (!slot->timed_out)
		x->r->scanned_bytes += slot->io.planned_bytes;
	else
		exec_late_done(x, slot);
	return scan_result_add(x->r, &e);
}

/*
 * A share of what a dataless method passed is read as well (o->sample_permille): pieces of
 * EXEC_SAMPLE_BYTES of a command as the share allows, each sample taking the next piece in
 * turn (a counter over the scan), so they spread over the commands' extent. A read that
 * fails where the device said clean proves that its verify does not read: the method is
 * voided and the scan stops, for the caller to read the plan again. The reads are
 * synchronous: few, and short next to the commands.
 */
static void cmd_sample(struct exec *x, const struct scan_io *io)
{
	const struct scan_device *dev = &x->devs[io->dev_idx];
	uint64_t lbs = dev->logical_block_size ? dev->logical_block_size : 512;
	uint64_t pieces = (io->length + EXEC_SAMPLE_BYTES - 1) / EXEC_SAMPLE_BYTES;
	uint64_t off, len;
	ssize_t n;

	if (!x->cmd.sample_buf || x->r->voided || !io->length)
		return;
	x->cmd.sample_credit += (uint64_t)io->length * x->o->sample_permille / 1000;
	for (uint64_t taken = 0; taken < pieces && !x->r->voided; taken++) {
		off = (uint64_t)(x->cmd.sample_seq % pieces) * EXEC_SAMPLE_BYTES;
		len = io->length - off < EXEC_SAMPLE_BYTES ? io->length - off : EXEC_SAMPLE_BYTES;
		len = len / lbs * lbs;
		if (!len || x->cmd.sample_credit < len)
			break;
		x->cmd.sample_credit -= len;
		x->cmd.sample_seq++;
		off += io->offset;
		n = kio_pread(dev->fd, x->cmd.sample_buf, len, off);
		x->r->nr_samples++;
		x->r->read_bytes += n > 0 ? (uint64_t)n : 0;
		if (n == (ssize_t)len) {
			x->r->sampled_bytes += len;
			continue;
		}
		x->r->voided = 1;
		x->r->void_dev = io->dev_idx;
		x->r->void_offset = off;
		x->r->void_length = len;
		x->r->void_err = n < 0 ? (int)n : -EIO;
		snprintf(x->r->method_note, sizeof(x->r->method_note), "%s voided on %s: a "
			 "sampled read of %llu bytes at byte %llu failed (%s) where the device had "
			 "said clean", x->cmd.ops->name, exec_cmd_dev(x, io->dev_idx)->path,
			 (unsigned long long)len, (unsigned long long)off,
			 strerror(n < 0 ? (int)-n : EIO));
	}
}

int exec_cmd_done(struct exec *x, struct exec_slot *slot)
{
	struct scan_io *io = &slot->io;
	int engine_err = io->res < 0, ret = exec_cmd_complete(x, slot);

	if (ret == 0) {
		io->res = (int)io->length;
		if (!x->cmd.ops->moves_data)
			cmd_sample(x, io);
		return 0;
	}
	if (ret == 1) {
		io->res = vfy_fail_errno(&slot->vres);
		x->cmd.iso_first = slot->vres;	/* exec_isolate starts from what it said */
		x->cmd.have_iso_first = 1;
		x->cmd.iso_first_off = io->offset;
		x->cmd.iso_first_dev = io->dev_idx;
		return 0;
	}
	if (engine_err)
		return 0;			/* not answered: a read's error, said as one */
	if (ret == -EOPNOTSUPP) {
		/* ILLEGAL REQUEST: send no more; this piece and the rest are read instead. */
		if (!x->cmd.refused) {
			struct vfy_dev *vd = exec_cmd_dev(x, io->dev_idx);

			snprintf(x->r->method_note, sizeof(x->r->method_note),
				 "%s refused by %s at byte %llu (ILLEGAL REQUEST): the rest was "
				 "read", x->cmd.ops->name, vd->path,
				 (unsigned long long)io->offset);
		}
		x->cmd.refused = 1;
		if (slot->timed_out) {
			exec_late_done(x, slot);
			x->r->scanned_bytes -= io->planned_bytes;	/* counted when late */
		}
		ret = exec_redo(x, &slot->range, io->offset, io->length);
		return ret < 0 ? ret : 1;
	}
	ret = exec_cmd_unsent(x, slot, ret);	/* failed short of the media */
	return ret < 0 ? ret : 1;
}

/* isolate.c's commands: one at a time through the engine, as isolation's reads are. */
static int cmd_alone(void *arg, uint32_t dev, uint64_t offset, uint64_t length,
		     struct vfy_result *res)
{
	struct exec *x = arg;
	uint64_t lat;
	ssize_t n = exec_io_alone(x, dev, offset, (uint32_t)length, &lat, 0);

	if (n == -EINTR || n == -EOPNOTSUPP)
		return (int)n;
	if (n != -ECANCELED && n != -ETIME)
		exec_note_read(x, dev, n != (ssize_t)length);
	if (n == (ssize_t)length)
		return 0;
	if (exec_alone_said(x)->fail != VFY_FAIL_NONE) {
		*res = *exec_alone_said(x);
		return 1;
	}
	return n < 0 ? (int)n : -EIO;
}

/* isolate.c's block commands: together, at queue depth, through the engine. */
static int cmd_many(void *arg, uint32_t dev, struct scan_iso_read *rd, unsigned n)
{
	struct exec *x = arg;
	int ret = exec_read_many(x, dev, rd, n, 0);

	for (unsigned i = 0; i < n; i++) {
		if (rd[i].res == -ECANCELED)
			rd[i].res = -ETIME;	/* not answered within the I/O timeout */
		if (rd[i].res != -EINTR && rd[i].res != -ETIME && rd[i].res != -EOPNOTSUPP)
			exec_note_read(x, dev, rd[i].res != (ssize_t)rd[i].length);
	}
	return ret == -EINTR ? ret : 0;
}

static void cmd_clean(void *arg, uint32_t dev, uint64_t offset, uint64_t length)
{
	exec_note_clean(arg, dev, offset, length);
}

int exec_cmd_isolate(struct exec *x, uint32_t dev, const struct scan_range *rg, uint64_t offset,
		     uint64_t length, int err)
{
	struct vfy_dev *vd = exec_cmd_dev(x, dev);
	struct scan_isolate_cmd si = {
		.dev_idx = dev, .lbs = vd->lbs, .part_start_bytes = vd->part_start_bytes,
		.max_blocks = x->cmd.ops->max_blocks(vd), .cmd = cmd_alone, .cmd_many = cmd_many,
		.clean = cmd_clean,
		.arg = x, .range = rg, .r = x->r, .names_ok = &x->names_ok[dev],
	};
	int ret;

	if (x->cmd.have_iso_first && x->cmd.iso_first_dev == dev &&
	    x->cmd.iso_first_off == offset) {
		x->cmd.have_iso_first = 0;
		ret = scan_isolate_cmd_failed(&si, offset, length, &x->cmd.iso_first);
	} else {
		ret = scan_isolate_cmd_span(&si, offset, length, 1, 1);
	}
	if (ret == -EOPNOTSUPP) {
		/* Refused while narrowing: the span failed once; what it holds is unproven. */
		struct scan_error e = {
			.dev_idx = dev, .offset = offset, .length = length, .err = err,
			.cls = scan_classify(err), .reads = 1, .reproducible = 0,
		};

		ret = scan_result_add(x->r, &e);
	}
	return ret;
}
