/*
 * tests/fuzz/fuzz_nvme.c - NVMe device bytes: the four Identify structures the probe decodes
 * and the Error Information log page the verify path reads (integrity/probe.c, vfy_nvme.c).
 * The input is cut into up to four 4096-byte pages; missing ones are "Identify failed".
 */
#include "fuzz.h"
#include "verify.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	void *page[4] = { NULL, NULL, NULL, NULL };
	uint64_t last = 0, bad = 0, lba;
	struct vfy_dev d;

	for (int i = 0; i < 4; i++) {
		page[i] = calloc(1, 4096);
		if (!page[i])
			abort();
		if (size > (size_t)i * 4096)
			memcpy(page[i], data + i * 4096,
			       size - i * 4096 < 4096 ? size - i * 4096 : 4096);
	}
	memset(&d, 0, sizeof(d));
	vfy_nvme_decode_identify(&d, page[0], size > 1024 ? page[1] : NULL,
				 size > 2048 ? page[2] : NULL, size & 1 ? page[3] : NULL);
	/* the same bytes as an Error Information log (64 entries of 64 bytes per page) */
	lba = size >= 8 ? (uint64_t)data[size - 1] << 32 | data[size - 2] : 0;
	vfy_nvme_error_log_match(page[0], 64, 1, lba, 0xffffffffu, &last, &bad);
	for (int i = 0; i < 4; i++)
		free(page[i]);
	return 0;
}
