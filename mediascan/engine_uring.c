/*
 * mediascan/engine_uring.c - the io_uring engine: registered file table and registered
 * discard buffer, READ_FIXED, batched submission (one io_uring_enter per batch). A buffer of
 * huge pages is read with plain READ instead: Debian 12's 6.1 hands a registered buffer to the
 * block layer as one bio_vec per 4 KiB page unless it all lies in one folio, so NVMe's 127
 * segments split every 512 KiB read in two (tests/vm/tier's whole-reads case: 1282 requests
 * for 640 reads); an unregistered one is pinned per read into one bio_vec per contiguous
 * run, one segment per huge page (642). The host's 6.18 coalesces either way
 * (tests/e2e/scan-buffers.sh). Set up with
 * cmd_ring it carries NVMe commands instead (fio's io_uring_cmd: the same queue, commit and
 * getevents; only the SQE and the CQE differ): SQE128 + CQE32, the generic char devices as
 * registered files, each SQE filled by kernel/ (kio_nvme_uring_prep, whitelist checked).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <liburing.h>

#include "config.h"
#include "engine.h"
#include "kio.h"
#include "kio_dev.h"

#if HAVE_IORING_OP_URING_CMD
#define CQE_RESULT(cqe) ((cqe)->big_cqe[0])	/* NVMe completion dword 0 (CQE32) */
#else
#define CQE_RESULT(cqe) 0ull			/* no uring_cmd: commands never queued here */
#endif

/* The kernel registers at most 1 GiB per buffer (io_uring/rsrc.c): larger ones in parts. */
#define URING_MAX_REG_BUF (1ul << 30)
#define URING_MAX_REG_PARTS 64

struct uring_priv {
	struct io_uring ring;
	unsigned queued;		/* SQEs prepared but not yet submitted */
	struct __kernel_timespec timeout;	/* linked to every read when set */
	size_t reg_part;		/* bytes of buf per registered buffer (READ_FIXED index) */
};

static int uring_probe(char *why, size_t len)
{
	struct io_uring ring;
	uint64_t disabled = 0;
	int ret = io_uring_queue_init(4, &ring, 0);

	if (ret == 0) {
		io_uring_queue_exit(&ring);
		return 0;
	}
	if (kio_sysfs_u64("/proc/sys/kernel/io_uring_disabled", &disabled) == 0 && disabled)
		snprintf(why, len, "io_uring disabled by kernel.io_uring_disabled=%llu (%s)",
			 (unsigned long long)disabled, strerror(-ret));
	else if (ret == -ENOSYS || ret == -EPERM)
		snprintf(why, len, "io_uring_setup refused (%s): kernel without io_uring or "
			 "blocked by seccomp", strerror(-ret));
	else
		snprintf(why, len, "io_uring_setup failed: %s", strerror(-ret));
	return ret;
}

static int uring_init(struct scan_engine *e)
{
	struct uring_priv *u = calloc(1, sizeof(*u));
	struct io_uring_params p;
	struct iovec iov[URING_MAX_REG_PARTS];
	unsigned nr_iov = 0;
	int ret;

	unsigned big = e->cmd_ring ? IORING_SETUP_SQE128 | IORING_SETUP_CQE32 : 0;

	if (!u)
		return -ENOMEM;
	memset(&p, 0, sizeof(p));
	/* Completions are reaped by this thread only: let the kernel skip IPIs. */
	p.flags = IORING_SETUP_COOP_TASKRUN | IORING_SETUP_SINGLE_ISSUER | big;
	/* Two SQEs per read when each carries a linked timeout. */
	ret = io_uring_queue_init_params(e->depth * 2, &u->ring, &p);
	if (ret == -EINVAL) {
		memset(&p, 0, sizeof(p));
		p.flags = big;
		ret = io_uring_queue_init_params(e->depth * 2, &u->ring, &p);
	}
	if (ret < 0)
		goto out_free;
	ret = io_uring_register_files(&u->ring, e->fds, e->nr_fds);
	if (ret < 0)
		goto out_exit;
	/*
	 * Commands carry their own buffers (or none: Verify); reads use the executor's buffer,
	 * registered in parts of at most 1 GiB that never cut an I/O's piece.
	 */
	u->reg_part = e->buf_len;
	if (u->reg_part > URING_MAX_REG_BUF)
		u->reg_part = e->buf_piece && e->buf_piece <= URING_MAX_REG_BUF ?
			      URING_MAX_REG_BUF / e->buf_piece * e->buf_piece : 0;
	for (size_t off = 0; !e->cmd_ring && u->reg_part && off < e->buf_len &&
	     nr_iov < URING_MAX_REG_PARTS; off += u->reg_part, nr_iov++) {
		iov[nr_iov].iov_base = (char *)e->buf + off;
		iov[nr_iov].iov_len = e->buf_len - off < u->reg_part ? e->buf_len - off :
				      u->reg_part;
	}
	if (!e->cmd_ring && !e->buf_huge &&
	    (!u->reg_part || (size_t)nr_iov * u->reg_part < e->buf_len)) {
		ret = -E2BIG;		/* no buffer this large can be registered */
		goto out_exit;
	}
	ret = e->cmd_ring || e->buf_huge ? 0 : io_uring_register_buffers(&u->ring, iov, nr_iov);
	if (ret < 0)
		goto out_exit;
	u->timeout.tv_sec = (long long)(e->io_timeout_ns / 1000000000ull);
	u->timeout.tv_nsec = (long long)(e->io_timeout_ns % 1000000000ull);
	e->priv = u;
	return 0;
out_exit:
	io_uring_queue_exit(&u->ring);
out_free:
	free(u);
	return ret;
}

static int uring_queue(struct scan_engine *e, struct scan_io *io)
{
	struct uring_priv *u = e->priv;
	struct io_uring_sqe *sqe, *tsqe;

	if (io_uring_sq_space_left(&u->ring) < 2)
		return -EBUSY;
	sqe = io_uring_get_sqe(&u->ring);
	if (io->cmd) {
		int ret = e->cmd_ring ? kio_nvme_uring_prep(sqe, (int)io->dev_idx, 1, io->cmd) :
			  -EINVAL;

		if (ret < 0) {
			/* Off the whitelist (a bug, never sent): a no-op takes the SQE's place. */
			io_uring_prep_nop(sqe);
			io_uring_sqe_set_data(sqe, NULL);
			u->queued++;
			return ret;
		}
	} else if (e->buf_huge) {
		io_uring_prep_read(sqe, (int)io->dev_idx, io->buf, io->length, io->offset);
		sqe->flags |= IOSQE_FIXED_FILE;
	} else {
		io_uring_prep_read_fixed(sqe, (int)io->dev_idx, io->buf, io->length, io->offset,
					 (int)(((char *)io->buf - (char *)e->buf) / u->reg_part));
		sqe->flags |= IOSQE_FIXED_FILE;
	}
	io_uring_sqe_set_data(sqe, io);
	u->queued++;
	if (e->io_timeout_ns) {
		/*
		 * A linked timeout cancels the read where the kernel can (it answers
		 * -ECANCELED); a read already inside a driver runs on, and the executor's
		 * own watchdog reports it instead.
		 */
		sqe->flags |= IOSQE_IO_LINK;
		tsqe = io_uring_get_sqe(&u->ring);
		io_uring_prep_link_timeout(tsqe, &u->timeout, 0);
		io_uring_sqe_set_data(tsqe, NULL);
		u->queued++;
	}
	return 0;
}

static int uring_commit(struct scan_engine *e)
{
	struct uring_priv *u = e->priv;
	int ret;

	if (!u->queued)
		return 0;
	ret = io_uring_submit(&u->ring);
	if (ret < 0)
		return ret;
	u->queued -= (unsigned)ret < u->queued ? (unsigned)ret : u->queued;
	return ret;
}

static int uring_getevents(struct scan_engine *e, unsigned min, struct scan_io **done,
			   unsigned max, uint64_t timeout_ns)
{
	struct uring_priv *u = e->priv;
	struct io_uring_cqe *cqe;
	struct __kernel_timespec ts = {
		.tv_sec = (long long)(timeout_ns / 1000000000ull),
		.tv_nsec = (long long)(timeout_ns % 1000000000ull),
	};
	unsigned head, seen = 0, n = 0;
	int ret;

	if (min) {
		ret = io_uring_wait_cqes(&u->ring, &cqe, min,
					 timeout_ns == UINT64_MAX ? NULL : &ts, NULL);
		if (ret < 0 && ret != -EINTR && ret != -ETIME)
			return ret;
	}
	io_uring_for_each_cqe(&u->ring, head, cqe) {
		struct scan_io *io = io_uring_cqe_get_data(cqe);

		if (io && n == max)
			break;
		seen++;
		if (!io)
			continue;		/* completion of a linked timeout */
		if (io->cmd)
			io->res = kio_nvme_uring_done(io->cmd, cqe->res, CQE_RESULT(cqe));
		else
			io->res = cqe->res;
		done[n++] = io;
	}
	io_uring_cq_advance(&u->ring, seen);
	return (int)n;
}

static void uring_cleanup(struct scan_engine *e)
{
	struct uring_priv *u = e->priv;

	if (!u)
		return;
	io_uring_queue_exit(&u->ring);
	free(u);
	e->priv = NULL;
}

const struct scan_engine_ops scan_engine_uring = {
	.name = "uring",
	.caps = SCAN_ENG_READ | SCAN_ENG_CMD_NVME_URING | SCAN_ENG_LINKED_TIMEOUT |
		SCAN_ENG_CLEANUP_WAITS,
	.probe = uring_probe,
	.init = uring_init,
	.queue = uring_queue,
	.commit = uring_commit,
	.getevents = uring_getevents,
	.cleanup = uring_cleanup,
};
