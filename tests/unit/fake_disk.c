/*
 * tests/unit/fake_disk.c - the fake disk of the test_executor* tests: failures injected at chosen
 * 512-byte blocks by wrapping kio_pread (the sync engine's reads and every isolation read) and, for
 * the io_uring engine, by steering the submitted reads that cover a bad block past the end of the
 * file (a short read, which the executor takes as -EIO) through a wrapped io_uring_submit; a fake
 * SCSI disk behind a wrapped kio_dev_cmd_submit, which counts the commands in flight at once and
 * answers MEDIUM ERROR sense for bad blocks; a scan_source of a fixed list of ranges.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <liburing.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "kio.h"
#include "kio_dev.h"
#include "fake_disk.h"

struct fake_disk fk = { .fd = -1, .lock = PTHREAD_MUTEX_INITIALIZER };


/* Return the first injected error in [offset, offset+len), or 0. */
static int injected(uint64_t offset, uint64_t len)
{
	for (uint64_t b = offset / LBS; b < (offset + len + LBS - 1) / LBS && b < NR_BLOCKS; b++)
		if (fk.err[b])
			return fk.err[b];
	return 0;
}

ssize_t __wrap_kio_pread(int fd, void *buf, size_t len, uint64_t offset)
{
	int err;

	if (fd != fk.fd)
		return __real_kio_pread(fd, buf, len, offset);
	fk.preads++;
	err = injected(offset, len);
	if (err)
		return err;
	return __real_kio_pread(fd, buf, len, offset);
}

/* Forget the reads whose completions the ring has posted since the last look. */
static void fk_reap(struct io_uring *ring)
{
	unsigned tail = __atomic_load_n(ring->cq.ktail, __ATOMIC_ACQUIRE);

	if (ring != fk.ring) {		/* a new engine: nothing of the old one in flight */
		fk.ring = ring;
		fk.cq_seen = *ring->cq.khead;
		fk.nr_inflight = 0;
	}
	for (; fk.cq_seen != tail; fk.cq_seen++) {
		uint64_t ud = ring->cq.cqes[fk.cq_seen & ring->cq.ring_mask].user_data;

		for (unsigned k = 0; k < fk.nr_inflight; k++)
			if (fk.inflight[k].user_data == ud) {
				fk.inflight[k] = fk.inflight[--fk.nr_inflight];
				break;
			}
	}
}

int __wrap_io_uring_submit(struct io_uring *ring)
{
	unsigned small = 0;

	fk_reap(ring);
	for (unsigned i = ring->sq.sqe_head; i != ring->sq.sqe_tail; i++) {
		struct io_uring_sqe *sqe = &ring->sq.sqes[i & ring->sq.ring_mask];

		int err;

		if (sqe->opcode == IORING_OP_READ_FIXED || sqe->opcode == IORING_OP_READ) {
			/*
			 * Reads in flight together (the loop's and isolation's) must not share
			 * buffer bytes: the kernel checks PI in the buffer after a read.
			 */
			for (unsigned k = 0; k < fk.nr_inflight; k++)
				if (fk.inflight[k].addr < sqe->addr + sqe->len &&
				    sqe->addr < fk.inflight[k].addr + fk.inflight[k].len)
					fk.shared_buf++;
			assert_true(fk.nr_inflight < 128);
			fk.inflight[fk.nr_inflight].user_data = sqe->user_data;
			fk.inflight[fk.nr_inflight].addr = sqe->addr;
			fk.inflight[fk.nr_inflight++].len = sqe->len;
		}
		if ((sqe->opcode == IORING_OP_READ_FIXED || sqe->opcode == IORING_OP_READ) &&
		    sqe->len <= 4096 && ++small > fk.max_small)
			fk.max_small = small;

		if ((sqe->opcode == IORING_OP_READ_FIXED || sqe->opcode == IORING_OP_READ) &&
		    (err = injected(sqe->off, sqe->len)) != 0) {
			sqe->off = PAST_EOF;	/* 0 bytes come back ... */
			fk.steered++;
			assert_true(fk.nr_pending < 64);
			fk.pending[fk.nr_pending].user_data = sqe->user_data;
			fk.pending[fk.nr_pending++].err = err;	/* ... then the errno */
		}
	}
	return __real_io_uring_submit(ring);
}

int __wrap_io_uring_wait_cqes(struct io_uring *ring, struct io_uring_cqe **cqe_ptr,
			      unsigned wait_nr, struct __kernel_timespec *ts, sigset_t *sigmask)
{
	int ret = __real_io_uring_wait_cqes(ring, cqe_ptr, wait_nr, ts, sigmask);
	unsigned head = *ring->cq.khead, tail = __atomic_load_n(ring->cq.ktail, __ATOMIC_ACQUIRE);

	for (; head != tail; head++) {
		struct io_uring_cqe *cqe = &ring->cq.cqes[head & ring->cq.ring_mask];

		for (unsigned i = 0; i < fk.nr_pending; i++) {
			if (fk.pending[i].user_data != cqe->user_data)
				continue;
			cqe->res = fk.pending[i].err;
			fk.pending[i] = fk.pending[--fk.nr_pending];
			break;
		}
	}
	return ret;
}

static uint64_t be_get(const uint8_t *p, unsigned n)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
}

/* The fake disk: VERIFY(16) of blocks with an injected error answers CHECK CONDITION. */
int __wrap_kio_dev_cmd_submit(int fd, struct kio_dev_cmd *c)
{
	uint64_t lba = be_get(c->cdb + 2, 8), n = be_get(c->cdb + 10, 4);
	struct kio_scsi_status *st = &c->scsi_st;
	unsigned nr;
	int err = 0;

	assert_int_equal(fd, fk.fd);
	assert_int_equal(c->kind, KIO_CMD_SCSI);
	assert_int_equal(c->cdb[0], 0x8f);
	assert_true(kio_scsi_allowed(c->cdb, c->cdb_len));
	pthread_mutex_lock(&fk.lock);
	nr = ++fk.cmds;
	if (++fk.cmd_now > fk.cmd_max)
		fk.cmd_max = fk.cmd_now;
	pthread_mutex_unlock(&fk.lock);
	usleep(2000);			/* a device's latency: others are sent meanwhile */
	if (fk.slow_block >= 0 && (uint64_t)fk.slow_block >= lba &&
	    (uint64_t)fk.slow_block < lba + n)
		usleep(fk.slow_us);		/* a marginal sector the drive retries */
	memset(st, 0, sizeof(*st));
	if (fk.refuse_after && nr >= fk.refuse_after) {
		st->scsi_status = 2;
		st->sense_len = 18;
		st->sense_key = 0x5;
		st->asc = 0x20;
	} else if (!fk.lie) {
		for (uint64_t b = lba; b < lba + n && b < NR_BLOCKS; b++) {
			if (!fk.err[b])
				continue;
			err = fk.err[b];
			st->scsi_status = 2;
			st->sense_len = 18;
			st->sense_key = 0x3;
			st->asc = err == -EILSEQ ? 0x10 : 0x11;
			st->ascq = err == -EILSEQ ? 0x01 : 0x00;
			st->info_valid = fk.name_lba;
			st->info = fk.name_lba == 2 ? lba : fk.name_lba ? b : 0;
			break;
		}
	}
	pthread_mutex_lock(&fk.lock);
	fk.cmd_now--;
	pthread_mutex_unlock(&fk.lock);
	return 0;
}

int src_next(void *arg, struct scan_range *out, unsigned max)
{
	struct src *s = arg;
	unsigned n = 0;

	s->calls++;
	if (s->fail_at && s->calls == (unsigned)s->fail_at)
		return -EIO;
	while (n < max && n < s->per_call && s->pos < s->nr)
		out[n++] = s->ranges[s->pos++];
	return (int)n;
}
