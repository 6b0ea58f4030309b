/*
 * integrity/vfy_nvme.c - NVMe methods. nvme-verify: Verify (0x0C) on the generic char device
 * through io_uring uring_cmd, the ioctl path when io_uring passthrough is unavailable; chunks
 * bounded by VSL; PRCHK guard and reference tag on PI namespaces; a failing command's block
 * comes from the Error Information log when the controller records it there. pi-read: Read
 * with a separate metadata buffer, guard and tags checked in software (integrity/pi.c).
 * Both build their command in prep() and decode it in complete(), so the executor can keep
 * many in flight through its engine; verify() is the same pair around one blocking send.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <endian.h>
#include <nvme/types.h>

#include "kio_dev.h"
#include "verify.h"

#define NVME_MAX_NLB 65536u
#define PI_READ_MAX_BYTES (1u << 20)
#define ERROR_LOG_ENTRIES 16

struct nvme_priv {
	struct kio_nvme_ring ring;
	int have_ring;
	void *data;			/* pi-read's buffer for verify(): data, then metadata */
	uint64_t last_error_count;	/* error log entries already seen */
};

static int nvme_issue(struct vfy_dev *d, struct nvme_passthru_cmd64 *c,
		      struct kio_nvme_status *st)
{
	struct nvme_priv *p = d->priv;

	if (p && p->have_ring)
		return kio_nvme_ring_submit(&p->ring, c, st);
	return kio_nvme_submit(d->fd, 0, c, st);
}

int vfy_nvme_error_log_match(const void *buf, unsigned n, uint32_t nsid, uint64_t lba,
			     uint32_t nlb, uint64_t *last_count, uint64_t *bad)
{
	const struct nvme_error_log_page *log = buf;
	uint64_t count, l;
	int found = 0;

	if (!n)
		return 0;
	count = le64toh(log[0].error_count);
	l = le64toh(log[0].lba);
	if (count && count != *last_count &&
	    (le32toh(log[0].nsid) == nsid || le32toh(log[0].nsid) == 0xffffffffu) &&
	    l >= lba && l < lba + nlb) {
		*bad = l;
		found = 1;
	}
	*last_count = count;
	return found;
}

/* Newest Error Information log entry for this namespace inside [lba, lba+nlb): 1 if found. */
static int nvme_error_log_lba(struct vfy_dev *d, uint64_t lba, uint32_t nlb, uint64_t *bad)
{
	struct nvme_priv *p = d->priv;
	struct nvme_error_log_page *log = NULL;
	struct nvme_passthru_cmd64 c;
	struct kio_nvme_status st;
	uint32_t len = ERROR_LOG_ENTRIES * sizeof(*log);
	int found = 0;

	if (!p || posix_memalign((void **)&log, 4096, len))
		return 0;
	memset(log, 0, len);
	kio_nvme_build_get_log(&c, 0xffffffffu, NVME_LOG_LID_ERROR, log, len);
	if (kio_nvme_submit(d->fd, 1, &c, &st) == 0 && !st.status)
		found = vfy_nvme_error_log_match(log, ERROR_LOG_ENTRIES, d->nsid, lba, nlb,
						 &p->last_error_count, bad);
	free(log);
	return found;
}

static uint32_t prchk_of(const struct vfy_dev *d)
{
	if (!d->pi_type)
		return 0;
	if (d->pi_type == 3)
		return KIO_NVME_PRCHK_GUARD;
	return KIO_NVME_PRCHK_GUARD | KIO_NVME_PRCHK_REF;
}

static int nvme_verify_probe(struct vfy_dev *d, char *why, size_t len)
{
	if (d->kind != VFY_DEV_NVME) {
		snprintf(why, len, "not an NVMe namespace");
		return -EOPNOTSUPP;
	}
	if (d->no_dataless) {
		snprintf(why, len, "%s", d->dataless_why);
		return -EOPNOTSUPP;
	}
	if (!d->oncs_verify && d->verify_works != 1) {
		snprintf(why, len, "the controller does not advertise Verify (ONCS bit 7) and a "
			 "one-block Verify failed");
		return -EOPNOTSUPP;
	}
	return 0;
}

static int nvme_init(struct vfy_dev *d)
{
	struct nvme_priv *p = calloc(1, sizeof(*p));

	if (!p)
		return -ENOMEM;
	if (d->cfd >= 0 && d->uring_cmd && kio_nvme_ring_init(&p->ring, d->cfd, 4) == 0)
		p->have_ring = 1;
	d->priv = p;
	return 0;
}

static void nvme_cleanup(struct vfy_dev *d)
{
	struct nvme_priv *p = d->priv;

	if (!p)
		return;
	if (p->have_ring)
		kio_nvme_ring_exit(&p->ring);
	free(p->data);
	free(p);
	d->priv = NULL;
}

static uint32_t nvme_verify_max_blocks(const struct vfy_dev *d)
{
	uint64_t n = NVME_MAX_NLB;

	if (d->vsl_bytes && d->vsl_bytes / d->lbs < n)
		n = d->vsl_bytes / d->lbs;
	return n ? (uint32_t)n : 1;
}

/* Fill res from a failed command's status; look for the block in the error log. */
static int nvme_failed(struct vfy_dev *d, uint16_t status, uint64_t lba, uint32_t nlb,
		       struct vfy_result *res)
{
	memset(res, 0, sizeof(*res));
	res->fail = vfy_nvme_status_fail(status);
	res->status = status;
	res->have_lba = nvme_error_log_lba(d, lba, nlb, &res->lba);
	return 1;
}

static int nvme_verify_prep(struct vfy_dev *d, uint64_t lba, uint32_t nlb,
			    struct kio_dev_cmd *c, void *buf)
{
	(void)buf;
	memset(c, 0, sizeof(*c));
	c->kind = KIO_CMD_NVME;
	return kio_nvme_build_verify(&c->nvme, d->nsid, lba, nlb, prchk_of(d), (uint32_t)lba);
}

static int nvme_verify_complete(struct vfy_dev *d, uint64_t lba, uint32_t nlb,
				const struct kio_dev_cmd *c, const void *buf,
				struct vfy_result *res)
{
	(void)buf;
	if (!c->nvme_st.status)
		return 0;
	return nvme_failed(d, c->nvme_st.status, lba, nlb, res);
}

/* verify() of the command methods: prep, one blocking send, complete. */
static int nvme_sync(const struct vfy_ops *ops, struct vfy_dev *d, uint64_t lba, uint32_t nlb,
		     void *buf, struct vfy_result *res)
{
	struct kio_dev_cmd c;
	int ret;

	ret = ops->prep(d, lba, nlb, &c, buf);
	if (ret < 0)
		return ret;
	ret = nvme_issue(d, &c.nvme, &c.nvme_st);
	if (ret < 0)
		return ret;
	return ops->complete(d, lba, nlb, &c, buf, res);
}

static int nvme_verify(struct vfy_dev *d, uint64_t lba, uint32_t nlb, struct vfy_result *res)
{
	return nvme_sync(&vfy_nvme_verify, d, lba, nlb, NULL, res);
}

const struct vfy_ops vfy_nvme_verify = {
	.name = "nvme-verify",
	.summary = "NVMe Verify: the controller reads and checks its media (and PI), no data moves",
	.moves_data = 0,
	.caps = VFY_CAP_CMD_NVME | VFY_CAP_NAMES_LBA,
	.probe = nvme_verify_probe,
	.init = nvme_init,
	.verify = nvme_verify,
	.max_blocks = nvme_verify_max_blocks,
	.cleanup = nvme_cleanup,
	.prep = nvme_verify_prep,
	.complete = nvme_verify_complete,
};

static int pi_read_probe(struct vfy_dev *d, char *why, size_t len)
{
	if (d->kind != VFY_DEV_NVME) {
		snprintf(why, len, "not an NVMe namespace");
		return -EOPNOTSUPP;
	}
	if (!d->pi_type || d->ms < (d->guard == VFY_GUARD_CRC16 ? 8u : 16u)) {
		snprintf(why, len, "the namespace has no protection information");
		return -EOPNOTSUPP;
	}
	return 0;
}

static uint32_t pi_read_max_blocks(const struct vfy_dev *d)
{
	uint32_t bytes = PI_READ_MAX_BYTES;

	if (d->mdts_bytes && d->mdts_bytes < bytes)
		bytes = d->mdts_bytes;
	if (d->passthru_max_bytes && d->passthru_max_bytes < bytes)
		bytes = d->passthru_max_bytes;
	return bytes / d->lbs ? bytes / d->lbs : 1;
}

/* One command's buffer: data, then its metadata at the next page. */
static size_t pi_read_data_bytes(const struct vfy_dev *d)
{
	return ((size_t)pi_read_max_blocks(d) * d->lbs + 4095) & ~(size_t)4095;
}

static size_t pi_read_buf_bytes(const struct vfy_dev *d)
{
	return pi_read_data_bytes(d) + (size_t)pi_read_max_blocks(d) * d->ms;
}

static int pi_read_init(struct vfy_dev *d)
{
	struct nvme_priv *p;
	int ret = nvme_init(d);

	if (ret < 0)
		return ret;
	p = d->priv;
	if (posix_memalign(&p->data, 4096, pi_read_buf_bytes(d))) {
		nvme_cleanup(d);
		return -ENOMEM;
	}
	return 0;
}

static int pi_read_prep(struct vfy_dev *d, uint64_t lba, uint32_t nlb, struct kio_dev_cmd *c,
			void *buf)
{
	uint8_t *data = buf;

	if (nlb > pi_read_max_blocks(d) || !buf)
		return -EINVAL;
	memset(c, 0, sizeof(*c));
	c->kind = KIO_CMD_NVME;
	/* No PRCHK: the controller hands over data and tags as stored, we check them. */
	return kio_nvme_build_read(&c->nvme, d->nsid, lba, nlb, data, nlb * d->lbs,
				   data + pi_read_data_bytes(d), nlb * d->ms, 0, 0);
}

static int pi_read_complete(struct vfy_dev *d, uint64_t lba, uint32_t nlb,
			    const struct kio_dev_cmd *c, const void *buf, struct vfy_result *res)
{
	const uint8_t *data = buf;
	struct vfy_pi_fmt f = {
		.lbs = d->lbs, .ms = d->ms, .pi_type = d->pi_type, .pi_first = d->pi_first,
		.guard = d->guard,
	};

	if (c->nvme_st.status)
		return nvme_failed(d, c->nvme_st.status, lba, nlb, res);
	return vfy_pi_check(&f, data, data + pi_read_data_bytes(d), nlb, lba, res);
}

static int pi_read_verify(struct vfy_dev *d, uint64_t lba, uint32_t nlb, struct vfy_result *res)
{
	struct nvme_priv *p = d->priv;

	if (nlb > pi_read_max_blocks(d))
		return -EINVAL;
	return nvme_sync(&vfy_pi_read, d, lba, nlb, p ? p->data : NULL, res);
}

const struct vfy_ops vfy_pi_read = {
	.name = "pi-read",
	.summary = "NVMe Read with metadata: guard, application and reference tags checked here",
	.moves_data = 1,
	.caps = VFY_CAP_CMD_NVME | VFY_CAP_NAMES_LBA,
	.probe = pi_read_probe,
	.init = pi_read_init,
	.verify = pi_read_verify,
	.max_blocks = pi_read_max_blocks,
	.cleanup = nvme_cleanup,
	.prep = pi_read_prep,
	.complete = pi_read_complete,
	.buf_bytes = pi_read_buf_bytes,
};
