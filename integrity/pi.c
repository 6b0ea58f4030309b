/*
 * integrity/pi.c - software check of protection information read with the data (pi-read):
 * guard (CRC16 T10-DIF, CRC32C or NVMe CRC64 over the block's data), application tag
 * (0xFFFF disables checking the block, as in T10 and NVMe) and reference tag (types 1 and 2:
 * the low bits of the LBA; type 3: not checked). The first mismatch is reported with the
 * block, the tag, and the expected and found values.
 */
#include <string.h>

#include "verify.h"

static uint64_t get_be(const uint8_t *p, unsigned n)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < n; i++)
		v = (v << 8) | p[i];
	return v;
}

static int pi_fail(struct vfy_result *res, enum vfy_fail f, uint64_t lba, uint64_t want,
		   uint64_t got)
{
	memset(res, 0, sizeof(*res));
	res->fail = f;
	res->have_lba = 1;
	res->lba = lba;
	res->expected = want;
	res->found = got;
	return 1;
}

int vfy_pi_check(const struct vfy_pi_fmt *f, const void *data, const void *mdata,
		 uint32_t nlb, uint64_t lba, struct vfy_result *res)
{
	unsigned pi_bytes = f->guard == VFY_GUARD_CRC16 ? 8 : 16;
	unsigned guard_bytes = f->guard == VFY_GUARD_CRC16 ? 2 :
			       f->guard == VFY_GUARD_CRC32C ? 4 : 8;
	unsigned app_off = guard_bytes;
	unsigned ref_off = f->guard == VFY_GUARD_CRC32C ? 12 : app_off + 2;
	unsigned ref_bytes = f->guard == VFY_GUARD_CRC64 ? 6 : 4;
	uint64_t ref_mask = ref_bytes == 6 ? 0xffffffffffffull : 0xffffffffull;

	if (f->ms < pi_bytes)
		return 0;
	for (uint32_t i = 0; i < nlb; i++) {
		const uint8_t *blk = (const uint8_t *)data + (size_t)i * f->lbs;
		const uint8_t *pi = (const uint8_t *)mdata + (size_t)i * f->ms +
				    (f->pi_first ? 0 : f->ms - pi_bytes);
		uint64_t guard = get_be(pi, guard_bytes);
		uint64_t app = get_be(pi + app_off, 2);
		uint64_t ref = get_be(pi + ref_off, ref_bytes);
		uint64_t want_guard, want_ref = (lba + i) & ref_mask;

		if (app == 0xffff && (f->pi_type != 3 || ref == ref_mask))
			continue;	/* escape: the block's PI is not checked */
		switch (f->guard) {
		case VFY_GUARD_CRC16:
			want_guard = vfy_crc16_t10dif(blk, f->lbs);
			break;
		case VFY_GUARD_CRC32C:
			want_guard = vfy_crc32c(blk, f->lbs);
			break;
		default:
			want_guard = vfy_crc64_nvme(blk, f->lbs);
			break;
		}
		if (guard != want_guard)
			return pi_fail(res, VFY_FAIL_PI_GUARD, lba + i, want_guard, guard);
		if (f->pi_type != 3 && ref != want_ref)
			return pi_fail(res, VFY_FAIL_PI_REF, lba + i, want_ref, ref);
	}
	return 0;
}
