/*
 * mediascan/exec_batch.c - the plan as the executor takes it: a batch of ranges from the
 * source (planned bytes counted as they arrive), the next read's piece of the current range
 * (at most the I/O size, or what one command may cover), and pieces put back in plan order
 * (a command the device refused is read instead).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "exec.h"

/* Return 1 when the current batch has a range to read, 0 at the end, or -errno. */
int exec_have_work(struct exec *x)
{
	int ret;

	if (exec_cmd_refused(x))
		return 0;			/* refused: nothing more is sent, the rest is read */
	while (x->feed.pos >= x->feed.len) {
		if (x->feed.src_done)
			return 0;
		ret = x->src->next(x->src->arg, x->feed.batch, EXEC_BATCH);
		if (ret < 0)
			return ret;
		if (ret == 0) {
			x->feed.src_done = 1;
			return 0;
		}
		x->feed.len = (unsigned)ret;
		x->feed.pos = 0;
		x->feed.range_pos = x->feed.batch[0].offset;
		for (int i = 0; i < ret; i++) {
			x->feed.batch[i].seq = x->feed.src_seq++;
			x->r->planned_bytes += scan_range_planned_bytes(&x->feed.batch[i],
									x->feed.batch[i].offset,
									x->feed.batch[i].length);
		}
	}
	return 1;
}

/* Length of the next read of the current range. */
uint32_t exec_next_len(const struct exec *x)
{
	const struct scan_range *rg = &x->feed.batch[x->feed.pos];
	uint64_t len = rg->offset + rg->length - x->feed.range_pos;
	uint64_t max = exec_cmd_on(x) ? exec_cmd_max_bytes(x, rg->dev_idx) : x->o->io_size;

	return (uint32_t)(len > max ? max : len);
}

/* Prepare the next read of the current range in slot (exec_have_work() said 1). */
void exec_take_read(struct exec *x, struct exec_slot *slot, uint64_t now)
{
	struct scan_range *rg = &x->feed.batch[x->feed.pos];
	uint64_t end = rg->offset + rg->length;
	uint32_t len = exec_next_len(x);

	memset(&slot->io, 0, sizeof(slot->io));
	slot->io.offset = x->feed.range_pos;
	slot->io.length = len;
	slot->io.dev_idx = rg->dev_idx;
	slot->io.buf = exec_slot_buf(x, slot);
	slot->io.issue_ns = now;
	slot->io.planned_bytes = scan_range_planned_bytes(rg, x->feed.range_pos, len);
	slot->range = *rg;
	slot->timed_out = 0;
	slot->alone = 0;
	slot->late_idx = -1;
	x->feed.range_pos += len;
	if (x->feed.range_pos >= end) {
		x->feed.pos++;
		if (x->feed.pos < x->feed.len)
			x->feed.range_pos = x->feed.batch[x->feed.pos].offset;
	}
}

int exec_redo(struct exec *x, const struct scan_range *rg, uint64_t offset, uint64_t length)
{
	struct scan_range *b = x->feed.batch;
	unsigned i;

	if (x->feed.len >= EXEC_BATCH + x->o->depth)
		return -ENOMEM;			/* cannot happen: one per slot at most */
	/* What is left of the current range starts at range_pos. */
	if (x->feed.pos < x->feed.len && x->feed.range_pos > b[x->feed.pos].offset) {
		b[x->feed.pos].length -= x->feed.range_pos - b[x->feed.pos].offset;
		b[x->feed.pos].offset = x->feed.range_pos;
	}
	/* In plan order among the pieces put back before. */
	for (i = x->feed.pos; i < x->feed.len; i++)
		if (b[i].dev_idx > rg->dev_idx ||
		    (b[i].dev_idx == rg->dev_idx && b[i].offset > offset))
			break;
	memmove(&b[i + 1], &b[i], (x->feed.len - i) * sizeof(*b));
	b[i] = *rg;
	b[i].offset = offset;
	b[i].length = length;
	x->feed.len++;
	x->feed.range_pos = b[x->feed.pos].offset;
	return 0;
}

int exec_feed_done(const struct exec *x)
{
	return x->feed.src_done && x->feed.pos >= x->feed.len;
}

int exec_feed_alloc(struct exec *x)
{
	x->feed.batch = calloc(EXEC_BATCH + x->o->depth, sizeof(*x->feed.batch));
	return x->feed.batch ? 0 : -ENOMEM;
}

void exec_feed_free(struct exec *x)
{
	free(x->feed.batch);
	x->feed.batch = NULL;
}

int exec_feed_next(const struct exec *x, uint32_t *dev, uint64_t *pos)
{
	if (x->feed.pos < x->feed.len) {
		*dev = x->feed.batch[x->feed.pos].dev_idx;
		*pos = x->feed.range_pos;
		return 1;
	}
	return x->feed.src_done ? -1 : 0;
}

uint64_t exec_feed_low_seq(const struct exec *x)
{
	uint64_t low = x->feed.src_seq;

	for (unsigned i = x->feed.pos; i < x->feed.len; i++)
		if (x->feed.batch[i].seq < low)
			low = x->feed.batch[i].seq;
	return low;
}

const struct scan_range *exec_feed_range(const struct exec *x, uint64_t *left)
{
	const struct scan_range *rg = &x->feed.batch[x->feed.pos];

	*left = rg->offset + rg->length - x->feed.range_pos;
	return rg;
}

uint64_t exec_feed_take(struct exec *x, uint64_t len, struct exec_feed_mark *m)
{
	const struct scan_range *rg = &x->feed.batch[x->feed.pos];
	uint64_t off = x->feed.range_pos;

	m->pos = x->feed.pos;
	m->range_pos = x->feed.range_pos;
	x->feed.range_pos += len;
	if (x->feed.range_pos >= rg->offset + rg->length) {
		x->feed.pos++;
		if (x->feed.pos < x->feed.len)
			x->feed.range_pos = x->feed.batch[x->feed.pos].offset;
	}
	return off;
}

void exec_feed_put_back(struct exec *x, const struct exec_feed_mark *m)
{
	x->feed.pos = m->pos;
	x->feed.range_pos = m->range_pos;
}
