/*
 * mediascan/exec_vfy.c - methods that only have a blocking verify(): xfs-verify, whose
 * XFS_IOC_VERIFY_MEDIA runs the filesystem's own I/O inside one ioctl that the kernel may
 * stop and resume, so it has no command for an engine to queue; it keeps a loop of its own,
 * one call per piece, paced and checkpointed. Also the blocking narrowing that the read
 * method uses with scsi-read (the sense names the block). Both narrow in isolate.c. Every
 * method that sends device commands runs in the executor's one loop instead (exec_cmd.c).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "exec.h"

/* The method's blocking verify(), for isolate.c: bytes of the scan device to whole-disk LBAs. */
struct vfy_sync {
	struct exec *x;
	const struct vfy_ops *ops;
};

static int vfy_sync_cmd(void *arg, uint32_t dev, uint64_t offset, uint64_t length,
			struct vfy_result *res)
{
	struct vfy_sync *v = arg;
	struct vfy_dev *vd = v->x->o->vfy_devs[dev];

	return v->ops->verify(vd, (offset + vd->part_start_bytes) / vd->lbs,
			      (uint32_t)(length / vd->lbs), res);
}

static void vfy_sync_clean(void *arg, uint32_t dev, uint64_t offset, uint64_t length)
{
	exec_note_clean(((struct vfy_sync *)arg)->x, dev, offset, length);
}

int exec_vfy_span(struct exec *x, const struct vfy_ops *ops, unsigned dev_idx,
		  const struct scan_range *rg, uint64_t offset, uint64_t length, int isolating,
		  unsigned reads)
{
	struct vfy_dev *vd = x->o->vfy_devs[dev_idx];
	struct vfy_sync v = { .x = x, .ops = ops };
	struct scan_isolate_cmd si = {
		.dev_idx = dev_idx, .lbs = vd->lbs, .part_start_bytes = vd->part_start_bytes,
		.max_blocks = ops->max_blocks(vd), .cmd = vfy_sync_cmd, .clean = vfy_sync_clean,
		.arg = &v, .range = rg, .r = x->r, .names_ok = &x->names_ok[dev_idx],
	};

	return scan_isolate_cmd_span(&si, offset, length, isolating, reads);
}

/*
 * The blocking loop (xfs-verify): one verify() at a time per range piece, paced, checkpointed.
 * Return 0 at the end or on stop, -EOPNOTSUPP when the device refused the method (the
 * current piece is left for the read path), or -errno.
 */
int exec_vfy_loop(struct exec *x)
{
	const struct vfy_ops *ops = x->o->vfy;
	uint64_t now, w;
	int ret;

	for (;;) {
		struct scan_range rg;
		struct exec_feed_mark mark;
		uint64_t off, len, max_bytes;
		struct vfy_dev *vd;

		now = exec_now_ns();
		if (x->o->max_duration_ns && now - x->start_ns >= x->o->max_duration_ns &&
		    !x->r->stopped) {
			x->r->stopped = 2;
			*x->o->stop = 1;
		}
		if (exec_stopping(x))
			return 0;
		ret = exec_have_work(x);
		if (ret <= 0)
			return ret;
		rg = *exec_feed_range(x, &len);
		vd = x->o->vfy_devs[rg.dev_idx];
		max_bytes = (uint64_t)ops->max_blocks(vd) * vd->lbs;
		if (len > max_bytes)
			len = max_bytes;
		w = exec_pace_wait_ns(x, now, (uint32_t)len);
		if (w) {
			exec_sleep_ns(w < EXEC_IDLE_WAIT_NS ? w : EXEC_IDLE_WAIT_NS);
			continue;
		}
		off = exec_feed_take(x, len, &mark);
		ret = exec_vfy_span(x, ops, rg.dev_idx, &rg, off, len, 0, 0);
		if (ret == -EOPNOTSUPP) {
			exec_feed_put_back(x, &mark);
			snprintf(x->r->method_note, sizeof(x->r->method_note),
				 "%s refused by %s at byte %llu (ILLEGAL REQUEST): the rest was "
				 "read", ops->name, vd->path, (unsigned long long)off);
			return ret;
		}
		if (ret < 0)
			return ret;
		x->r->scanned_bytes += scan_range_planned_bytes(&rg, off, len);
		exec_pace_account(x, len, now);
		now = exec_now_ns();
		exec_sample(x, now);
		exec_progress(x, 0);
		if (exec_ckpt_due(x, now)) {
			exec_ckpt_next(x, now);
			ret = exec_checkpoint(x, 0);
			if (ret < 0)
				return ret;
		}
	}
}

/* Return 0 after init() of ops on every device (ready[d] set), or -errno. */
int exec_vfy_init(struct exec *x, const struct vfy_ops *ops, int *ready)
{
	int ret;

	for (unsigned d = 0; d < x->nr_devs; d++) {
		if (!x->o->vfy_devs[d])
			return -EINVAL;
		if (ops->init) {
			ret = ops->init(x->o->vfy_devs[d]);
			if (ret < 0)
				return ret;
		}
		ready[d] = 1;
	}
	return 0;
}

void exec_vfy_cleanup(struct exec *x, const struct vfy_ops *ops, int *ready)
{
	for (unsigned d = 0; d < x->nr_devs; d++) {
		if (ready[d] && ops->cleanup)
			ops->cleanup(x->o->vfy_devs[d]);
		ready[d] = 0;
	}
}
