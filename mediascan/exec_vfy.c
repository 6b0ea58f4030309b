/*
 * mediascan/exec_vfy.c - the drive-side loop of the executor: NVMe Verify, SCSI VERIFY,
 * pi-read and xfs-verify commands (integrity/) over the plan, one command per range piece,
 * paced, checkpointed; a failed command is narrowed with the block the device names (error
 * log, sense information) or by bisection. Issue 10 moves these commands into the engine.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "exec.h"

/* Record one failing block that a verify method reported. */
static int exec_vfy_bad(struct exec *x, unsigned dev_idx, const struct scan_range *rg,
			uint64_t offset, uint32_t lbs, unsigned reads, const struct vfy_result *res)
{
	struct scan_error e = {
		.dev_idx = dev_idx, .offset = offset, .length = lbs, .err = vfy_fail_errno(res),
		.reads = reads, .reproducible = 1, .vfy_fail = res->fail, .dev_status = res->status,
		.pi_expected = res->expected, .pi_found = res->found,
	};

	e.cls = scan_classify(e.err);
	e.in_gap = rg && scan_range_planned_bytes(rg, offset, lbs) == 0;
	return scan_result_add(x->r, &e);
}

/*
 * Verify bytes [offset, offset+length) of scan device dev_idx with ops, in commands of at
 * most ops->max_blocks(); a failed command is narrowed with the block the device named
 * (error log, sense information) and by bisection otherwise. reads: commands that already
 * covered the span (1 for an engine read being isolated): a bad block's count is those plus
 * the commands of this call that covered it. A device that names its first bad block
 * stopped there, so the blocks after it count only the command that goes on from there.
 * Return 0, -EOPNOTSUPP when the device refused the method (nothing recorded for this
 * span), or -ENOMEM.
 */
int exec_vfy_span(struct exec *x, const struct vfy_ops *ops, unsigned dev_idx,
			 const struct scan_range *rg, uint64_t offset, uint64_t length,
			 int isolating, unsigned reads)
{
	struct vfy_dev *vd = x->o->vfy_devs[dev_idx];
	uint32_t lbs = vd->lbs, maxb = ops->max_blocks(vd);
	struct vfy_result res;
	int ret;

	while (length >= lbs) {
		uint64_t chunk = length < (uint64_t)maxb * lbs ? length : (uint64_t)maxb * lbs;
		uint64_t lba = (offset + vd->part_start_bytes) / lbs;
		uint32_t nlb = (uint32_t)(chunk / lbs);

		memset(&res, 0, sizeof(res));
		ret = ops->verify(vd, lba, nlb, &res);
		if (isolating)
			x->r->isolation_reads++;
		if (ret == -EOPNOTSUPP)
			return ret;
		if (ret == 0)
			exec_note_clean(x, dev_idx, offset, chunk);
		if (ret < 0) {
			struct scan_error e = {
				.dev_idx = dev_idx, .offset = offset, .length = chunk, .err = ret,
				.cls = SCAN_ERR_OPERATIONAL, .reads = reads + 1,
				.reproducible = 1,
			};

			ret = scan_result_add(x->r, &e);
			if (ret < 0)
				return ret;
		} else if (ret > 0 && res.have_lba && res.lba >= lba && res.lba < lba + nlb) {
			/* The device named the block: the ones before it are good. */
			uint64_t bad = res.lba * lbs - vd->part_start_bytes;

			exec_note_clean(x, dev_idx, offset, bad - offset);

			ret = exec_vfy_bad(x, dev_idx, rg, bad, lbs, reads + 1, &res);
			if (ret < 0)
				return ret;
			chunk = bad + lbs - offset;
		} else if (ret > 0 && nlb == 1) {
			ret = exec_vfy_bad(x, dev_idx, rg, offset, lbs, reads + 1, &res);
			if (ret < 0)
				return ret;
		} else if (ret > 0) {
			uint64_t half = (uint64_t)(nlb / 2) * lbs;

			ret = exec_vfy_span(x, ops, dev_idx, rg, offset, half, 1, reads + 1);
			if (ret == 0)
				ret = exec_vfy_span(x, ops, dev_idx, rg, offset + half, chunk - half,
						    1, reads + 1);
			if (ret < 0)
				return ret;
		}
		offset += chunk;
		length -= chunk;
	}
	return 0;
}

/*
 * The drive-side loop: one verify command at a time per range piece (the device does the
 * work, so the queue depth that hides read latency is not needed), paced, checkpointed.
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
		unsigned saved_pos;
		uint64_t saved_range_pos, off, len, max_bytes;
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
		rg = x->batch[x->batch_pos];
		vd = x->o->vfy_devs[rg.dev_idx];
		max_bytes = (uint64_t)ops->max_blocks(vd) * vd->lbs;
		len = rg.offset + rg.length - x->range_pos;
		if (len > max_bytes)
			len = max_bytes;
		if (x->have_gov) {
			w = scan_gov_wait_ns(&x->gov, now, (uint32_t)len);
			if (w) {
				exec_sleep_ns(w < EXEC_IDLE_WAIT_NS ? w : EXEC_IDLE_WAIT_NS);
				continue;
			}
		}
		saved_pos = x->batch_pos;
		saved_range_pos = x->range_pos;
		off = x->range_pos;
		x->range_pos += len;
		if (x->range_pos >= rg.offset + rg.length) {
			x->batch_pos++;
			if (x->batch_pos < x->batch_len)
				x->range_pos = x->batch[x->batch_pos].offset;
		}
		ret = exec_vfy_span(x, ops, rg.dev_idx, &rg, off, len, 0, 0);
		if (ret == -EOPNOTSUPP) {
			x->batch_pos = saved_pos;
			x->range_pos = saved_range_pos;
			snprintf(x->r->method_note, sizeof(x->r->method_note),
				 "%s refused by %s at byte %llu (ILLEGAL REQUEST): the rest was "
				 "read", ops->name, vd->path, (unsigned long long)off);
			return ret;
		}
		if (ret < 0)
			return ret;
		x->r->scanned_bytes += scan_range_planned_bytes(&rg, off, len);
		if (x->have_gov)
			scan_gov_account(&x->gov, len, now);
		now = exec_now_ns();
		exec_sample(x, now);
		exec_progress(x, 0);
		if (x->o->checkpoint_interval_ns && now >= x->next_checkpoint_ns) {
			x->next_checkpoint_ns = now + x->o->checkpoint_interval_ns;
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
