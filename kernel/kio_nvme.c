/*
 * kernel/kio_nvme.c - NVMe passthrough: builders for the four whitelisted commands (admin
 * Identify and Get Log Page; I/O Read and Verify), the whitelist itself, and two ways to
 * send a command: NVME_IOCTL_{ADMIN,IO}64_CMD, and io_uring IORING_OP_URING_CMD with
 * NVME_URING_CMD_IO on the generic char device (SQE128 + CQE32). libnvme has no io_uring
 * path and its ioctl helpers would bypass the whitelist, so the commands are built here;
 * libnvme's structures decode what comes back (integrity/). A scan engine queues many
 * commands at once: kio_nvme_uring_prep fills its SQE, kio_nvme_uring_done reads the CQE.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <liburing.h>

#include "config.h"
#include "kio_dev.h"

#define NVME_STATUS_MASK 0x7ff		/* SCT (bits 10:8) and SC (7:0) */
#define NVME_STATUS_DNR 0x4000

static void nvme_rw(struct nvme_passthru_cmd64 *c, uint8_t opcode, uint32_t nsid,
		    uint64_t slba, uint32_t nlb, uint32_t prchk, uint32_t reftag)
{
	memset(c, 0, sizeof(*c));
	c->opcode = opcode;
	c->nsid = nsid;
	c->cdw10 = (uint32_t)slba;
	c->cdw11 = (uint32_t)(slba >> 32);
	c->cdw12 = ((nlb - 1) & 0xffff) | (prchk & (KIO_NVME_PRCHK_GUARD | KIO_NVME_PRCHK_APP |
						       KIO_NVME_PRCHK_REF));
	/* Expected initial reference tag (type 1: the low 32 bits of the LBA). */
	c->cdw14 = prchk & KIO_NVME_PRCHK_REF ? reftag : 0;
	/* cdw15: application tag mask 0 and tag 0: the controller ignores the app tag. */
}

int kio_nvme_build_verify(struct nvme_passthru_cmd64 *c, uint32_t nsid, uint64_t slba,
			  uint32_t nlb, uint32_t prchk, uint32_t reftag)
{
	if (nlb == 0 || nlb > 65536)
		return -EINVAL;
	nvme_rw(c, KIO_NVME_CMD_VERIFY, nsid, slba, nlb, prchk, reftag);
	return 0;
}

int kio_nvme_build_read(struct nvme_passthru_cmd64 *c, uint32_t nsid, uint64_t slba,
			uint32_t nlb, void *data, uint32_t data_bytes, void *mdata,
			uint32_t mdata_bytes, uint32_t prchk, uint32_t reftag)
{
	if (nlb == 0 || nlb > 65536 || !data || !data_bytes)
		return -EINVAL;
	nvme_rw(c, KIO_NVME_CMD_READ, nsid, slba, nlb, prchk, reftag);
	c->addr = (uint64_t)(uintptr_t)data;
	c->data_len = data_bytes;
	if (mdata) {
		c->metadata = (uint64_t)(uintptr_t)mdata;
		c->metadata_len = mdata_bytes;
	}
	return 0;
}

int kio_nvme_build_identify(struct nvme_passthru_cmd64 *c, uint32_t nsid, uint8_t cns,
			    uint8_t csi, void *buf)
{
	if (!buf)
		return -EINVAL;
	memset(c, 0, sizeof(*c));
	c->opcode = KIO_NVME_ADMIN_IDENTIFY;
	c->nsid = nsid;
	c->addr = (uint64_t)(uintptr_t)buf;
	c->data_len = 4096;
	c->cdw10 = cns;
	c->cdw11 = (uint32_t)csi << 24;
	return 0;
}

int kio_nvme_build_get_log(struct nvme_passthru_cmd64 *c, uint32_t nsid, uint8_t lid,
			   void *buf, uint32_t len)
{
	uint32_t numd;

	if (!buf || len < 4 || len % 4)
		return -EINVAL;
	numd = len / 4 - 1;
	memset(c, 0, sizeof(*c));
	c->opcode = KIO_NVME_ADMIN_GET_LOG_PAGE;
	c->nsid = nsid;
	c->addr = (uint64_t)(uintptr_t)buf;
	c->data_len = len;
	/* RAE (bit 15): retain the asynchronous event. Reading a log page with RAE=0 clears
	 * the event that smartd, nvme-cli or the kernel's AEN handling waits to see. */
	c->cdw10 = lid | KIO_NVME_LOG_RAE | ((numd & 0xffff) << 16);
	c->cdw11 = numd >> 16;
	return 0;
}

int kio_nvme_allowed(int admin, const struct nvme_passthru_cmd64 *c)
{
	if (admin)
		return c->opcode == KIO_NVME_ADMIN_IDENTIFY ||
		       c->opcode == KIO_NVME_ADMIN_GET_LOG_PAGE;
	/* Read must not ask the controller to insert PI (PRACT): that is a transfer mode
	 * for writes' benefit, and a command we never need. */
	if (c->opcode == KIO_NVME_CMD_READ || c->opcode == KIO_NVME_CMD_VERIFY)
		return !(c->cdw12 & (1u << 29)) && !(c->cdw12 & (1u << 30));
	return 0;
}

static void nvme_status_from(int ret, uint64_t result, struct kio_nvme_status *st)
{
	st->status = (uint16_t)(ret & NVME_STATUS_MASK);
	st->dnr = !!(ret & NVME_STATUS_DNR);
	st->result = (uint32_t)result;
}

int kio_nvme_submit(int fd, int admin, struct nvme_passthru_cmd64 *c,
		    struct kio_nvme_status *st)
{
	int ret;

	memset(st, 0, sizeof(*st));
	if (!kio_nvme_allowed(admin, c))
		return -EPERM;
	ret = ioctl(fd, admin ? NVME_IOCTL_ADMIN64_CMD : NVME_IOCTL_IO64_CMD, c);
	if (ret < 0)
		return -errno;
	nvme_status_from(ret, c->result, st);
	return 0;
}

int kio_nvme_nsid(int fd)
{
	int ret = ioctl(fd, NVME_IOCTL_ID);

	return ret < 0 ? -errno : ret;
}

int kio_nvme_ring_init(struct kio_nvme_ring *r, int fd, unsigned depth)
{
#if HAVE_IORING_OP_URING_CMD
	struct io_uring *ring;
	int ret;

	memset(r, 0, sizeof(*r));
	ring = calloc(1, sizeof(*ring));
	if (!ring)
		return -ENOMEM;
	ret = io_uring_queue_init(depth ? depth : 1, ring,
				  IORING_SETUP_SQE128 | IORING_SETUP_CQE32);
	if (ret < 0) {
		free(ring);
		return ret == -EINVAL ? -EOPNOTSUPP : ret;
	}
	r->ring = ring;
	r->fd = fd;
	return 0;
#else
	(void)r;
	(void)fd;
	(void)depth;
	return -EOPNOTSUPP;
#endif
}

int kio_nvme_uring_prep(struct io_uring_sqe *sqe, int fd, int fixed, const struct kio_dev_cmd *c)
{
#if HAVE_IORING_OP_URING_CMD
	struct nvme_uring_cmd *u;

	if (c->kind != KIO_CMD_NVME)
		return -EINVAL;
	if (!kio_nvme_allowed(0, &c->nvme))
		return -EPERM;
	memset(sqe, 0, 128);
	sqe->opcode = IORING_OP_URING_CMD;
	sqe->fd = fd;
	if (fixed)
		sqe->flags |= IOSQE_FIXED_FILE;
	sqe->cmd_op = NVME_URING_CMD_IO;
	u = (struct nvme_uring_cmd *)sqe->cmd;
	u->opcode = c->nvme.opcode;
	u->nsid = c->nvme.nsid;
	u->metadata = c->nvme.metadata;
	u->addr = c->nvme.addr;
	u->metadata_len = c->nvme.metadata_len;
	u->data_len = c->nvme.data_len;
	u->cdw10 = c->nvme.cdw10;
	u->cdw11 = c->nvme.cdw11;
	u->cdw12 = c->nvme.cdw12;
	u->cdw13 = c->nvme.cdw13;
	u->cdw14 = c->nvme.cdw14;
	u->cdw15 = c->nvme.cdw15;
	u->timeout_ms = c->nvme.timeout_ms;
	return 0;
#else
	(void)sqe;
	(void)fd;
	(void)fixed;
	(void)c;
	return -EOPNOTSUPP;
#endif
}

int kio_nvme_uring_done(struct kio_dev_cmd *c, int res, uint64_t result)
{
	memset(&c->nvme_st, 0, sizeof(c->nvme_st));
	if (res < 0)
		return res;
	nvme_status_from(res, result, &c->nvme_st);
	return 0;
}

int kio_nvme_ring_submit(struct kio_nvme_ring *r, struct nvme_passthru_cmd64 *c,
			 struct kio_nvme_status *st)
{
#if HAVE_IORING_OP_URING_CMD
	struct io_uring *ring = r->ring;
	struct io_uring_sqe *sqe;
	struct io_uring_cqe *cqe;
	struct kio_dev_cmd dc = { .kind = KIO_CMD_NVME, .nvme = *c };
	int ret;

	memset(st, 0, sizeof(*st));
	if (!kio_nvme_allowed(0, c))
		return -EPERM;
	sqe = io_uring_get_sqe(ring);
	if (!sqe)
		return -EBUSY;
	ret = kio_nvme_uring_prep(sqe, r->fd, 0, &dc);
	if (ret < 0)
		return ret;
	ret = io_uring_submit(ring);
	if (ret < 0)
		return ret;
	do
		ret = io_uring_wait_cqe(ring, &cqe);
	while (ret == -EINTR);
	if (ret < 0)
		return ret;
	ret = kio_nvme_uring_done(&dc, cqe->res, cqe->big_cqe[0]);
	*st = dc.nvme_st;
	io_uring_cqe_seen(ring, cqe);
	return ret;
#else
	(void)r;
	(void)c;
	(void)st;
	return -EOPNOTSUPP;
#endif
}

void kio_nvme_ring_exit(struct kio_nvme_ring *r)
{
#if HAVE_IORING_OP_URING_CMD
	if (r->ring) {
		io_uring_queue_exit(r->ring);
		free(r->ring);
	}
#endif
	r->ring = NULL;
}
