/*
 * mediascan/exec_isolate.c - a failed read of the loop, narrowed and explained: isolation by
 * the drive-side method's commands (exec_cmd.c), by a blocking verify (exec_vfy.c) or by plain
 * re-reads through the queue (isolate.c does the bisection); a device that shrank or went away
 * (a device fault, not damage); and a transient read explained by a proven neighbour that the
 * block layer merged it with.
 */
#include <errno.h>
#include <string.h>

#include "kio.h"
#include "exec.h"

/* Isolation's reads: the engine, together, bounded by the hard cap and the stop flag. */
static int exec_iso_read_many(void *arg, uint32_t dev, struct scan_iso_read *rd, unsigned n)
{
	return exec_read_many(arg, dev, rd, n, 1);
}

int exec_isolate(struct exec *x, uint32_t dev, const struct scan_range *rg, uint64_t offset,
		 uint64_t length, int err)
{
	const struct scan_device *d = &x->devs[dev];
	struct scan_isolate si;
	int ret;

	if (exec_cmd_on(x)) {
		ret = exec_cmd_isolate(x, dev, rg, offset, length, err);
		goto out;
	}
	if (x->o->vfy_isolate && x->iso.ready[dev]) {
		uint64_t before = x->r->isolation_reads;

		ret = exec_vfy_span(x, x->o->vfy_isolate, dev, rg, offset, length, 1, 1);
		if (ret == -EINTR)
			goto out;
		if (ret != -EOPNOTSUPP)
			return ret;
		x->r->isolation_reads = before;	/* refused: isolate by plain re-reads */
	}
	memset(&si, 0, sizeof(si));
	si.dev_idx = dev;
	si.lbs = d->logical_block_size;
	si.step_bytes = x->o->isolate_step_bytes;
	si.depth = x->o->depth;
	si.buf = x->eng.buf;
	si.read_many = exec_iso_read_many;
	si.read_arg = x;
	si.range = rg;
	si.r = x->r;
	ret = scan_isolate_range(&si, offset, length, err);
out:
	if (ret == -EINTR) {
		/*
		 * Stopped while narrowing: what is not narrowed is not proven. Nothing is recorded
		 * for the span (a stop is not evidence against the disk, and an error row here
		 * would merge into overlapping damage); the cursor is held at it, so the next run
		 * reads and narrows it again. Stopped to spare a failing disk, the read is said to
		 * have failed once (transient), as it did: never damage.
		 */
		struct scan_error e = {
			.dev_idx = dev, .offset = offset, .length = length, .err = err,
			.cls = scan_classify(err), .reads = 1, .reproducible = 0,
		};

		exec_ckpt_reread(x, dev, offset, rg->seq);
		ret = x->r->failing ? scan_result_add(x->r, &e) : 0;
	}
	return ret;
}

/*
 * A read came back short or failed: the device may have shrunk or gone (the block layer
 * answers EIO past a new end, a short read at it, ENODEV/ENXIO when it is gone). Return 1 when
 * it did: the scan stops, one device fault is recorded for the first such read, and nothing
 * past the new end is damage; 0 when the device is as it was (a failure like any other).
 */
/* Return 1 when device dev is smaller than when the scan began, or gone; 0 otherwise. */
int exec_dev_shrunk(const struct exec *x, uint32_t dev)
{
	const struct scan_device *d = &x->devs[dev];
	uint64_t size = 0;

	if (!d->size_bytes)
		return 0;
	return kio_bdev_size(d->fd, &size) < 0 || size < d->size_bytes;
}

int exec_device_changed(struct exec *x, const struct scan_io *io)
{
	const struct scan_device *d = &x->devs[io->dev_idx];
	const char *path = d->path ? d->path : "the device";
	uint64_t size = 0;
	int ret;
	struct scan_error e = {
		.dev_idx = io->dev_idx, .offset = io->offset, .length = io->length,
		.err = -ENXIO, .cls = SCAN_ERR_DEVICE, .reads = 1, .reproducible = 1,
	};

	if (!d->size_bytes)
		return 0;
	ret = kio_bdev_size(d->fd, &size);
	if (ret == 0 && size >= d->size_bytes)
		return 0;
	if (x->iso.dev_changed[io->dev_idx])
		return 1;			/* told once; the reads still in flight say nothing */
	x->iso.dev_changed[io->dev_idx] = 1;
	/*
	 * Reads past the new end that failed (and were narrowed) before the size was seen to
	 * change are no media damage: the bytes are gone, not bad. Drop those not yet
	 * checkpointed; the device fault below says what happened.
	 */
	for (size_t i = x->r->nr_errors; ret == 0 && i-- > x->r->sealed;) {
		struct scan_error *o = &x->r->errors[i];

		if (o->dev_idx != io->dev_idx || o->offset < size ||
		    (o->cls != SCAN_ERR_MEDIA && o->cls != SCAN_ERR_PI))
			continue;
		memmove(o, o + 1, (x->r->nr_errors - i - 1) * sizeof(*o));
		x->r->nr_errors--;
	}
	if (scan_result_add(x->r, &e) < 0)
		x->r->fatal = -ENOMEM;
	if (ret < 0)
		exec_failing(x, "%s is gone (%s)", path, strerror(-ret));
	else
		exec_failing(x, "%s shrank from %llu to %llu bytes during the scan", path,
			     (unsigned long long)d->size_bytes, (unsigned long long)size);
	return 1;
}

/* Return 1 when failed reads a and b are neighbours on one device that were in flight together. */
static int failed_together(const struct exec_failed_read *a, const struct exec_failed_read *b)
{
	return a->dev_idx == b->dev_idx &&
	       (a->offset + a->length == b->offset || b->offset + b->length == a->offset) &&
	       a->issue_ns <= b->done_ns && b->issue_ns <= a->done_ns;
}

/* Drop error i (not yet handed to a checkpoint) of the result. */
static void exec_drop_error(struct exec *x, size_t i)
{
	struct scan_result *r = x->r;

	memmove(&r->errors[i], &r->errors[i + 1], (r->nr_errors - i - 1) * sizeof(*r->errors));
	r->nr_errors--;
}

/*
 * The failed read f was narrowed, adding errors[nr_before..]: remember it; when it proved
 * damage, a neighbour in flight with it that read fine block by block (the block layer merged
 * both into one request, which failed as a whole) is explained by it, and is no transient.
 */
void exec_explain(struct exec *x, const struct exec_failed_read *f, size_t nr_before)
{
	struct scan_result *r = x->r;
	const struct scan_error *e = nr_before < r->nr_errors ? &r->errors[nr_before] : NULL;
	int proved = 0;

	for (size_t i = nr_before; i < r->nr_errors; i++)
		proved |= scan_is_damage(&r->errors[i]);
	if (proved) {
		x->iso.proved[x->iso.nr_proved++ % EXEC_FAILED_RING] = *f;
		for (unsigned k = 0; k < x->iso.nr_transient && k < EXEC_FAILED_RING; k++) {
			const struct exec_failed_read *t = &x->iso.transient[k];

			if (!t->length || !failed_together(f, t))
				continue;
			for (size_t i = r->sealed; i < nr_before; i++)
				if (r->errors[i].dev_idx == t->dev_idx &&
				    r->errors[i].offset == t->offset &&
				    r->errors[i].length == t->length && !r->errors[i].reproducible &&
				    scan_error_verdict(&r->errors[i]) == SCAN_V_TRANSIENT) {
					exec_drop_error(x, i);
					break;
				}
			x->iso.transient[k].length = 0;
		}
		return;
	}
	/* One transient error for the whole read: is a proven neighbour its cause? */
	if (!e || r->nr_errors != nr_before + 1 || e->offset != f->offset ||
	    e->length != f->length || scan_error_verdict(e) != SCAN_V_TRANSIENT)
		return;
	for (unsigned k = 0; k < x->iso.nr_proved && k < EXEC_FAILED_RING; k++)
		if (failed_together(f, &x->iso.proved[k])) {
			exec_drop_error(x, nr_before);
			return;
		}
	x->iso.transient[x->iso.nr_transient++ % EXEC_FAILED_RING] = *f;
}

void exec_iso_start(struct exec *x)
{
	/* a method that does not start on every device: plain re-reads then */
	if (x->o->vfy_isolate && exec_vfy_init(x, x->o->vfy_isolate, x->iso.ready) < 0)
		exec_vfy_cleanup(x, x->o->vfy_isolate, x->iso.ready);
}

void exec_iso_stop(struct exec *x)
{
	if (x->o->vfy_isolate)
		exec_vfy_cleanup(x, x->o->vfy_isolate, x->iso.ready);
}
