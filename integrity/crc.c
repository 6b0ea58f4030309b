/*
 * integrity/crc.c - the guard CRCs of protection information: T10-DIF CRC16 and CRC32C from
 * ISA-L, and the NVMe CRC64 (Rocksoft polynomial) written here only because Debian's ISA-L
 * (2.30) predates crc64_rocksoft; it is checked against the NVMe specification's vectors.
 */
#include <stdint.h>
#include <isa-l/crc.h>

#include "verify.h"

/* NVMe CRC64: polynomial 0xAD93D23594C93659, reflected (0x9A6C9329AC4BC9B5), init and final
 * XOR all ones. Byte-wise table, built once. */
#define CRC64_NVME_POLY_REFLECTED 0x9a6c9329ac4bc9b5ull

static uint64_t crc64_table[256];
static int crc64_ready;

static void crc64_init(void)
{
	for (unsigned i = 0; i < 256; i++) {
		uint64_t c = i;

		for (int k = 0; k < 8; k++)
			c = c & 1 ? (c >> 1) ^ CRC64_NVME_POLY_REFLECTED : c >> 1;
		crc64_table[i] = c;
	}
	crc64_ready = 1;
}

uint64_t vfy_crc64_nvme(const void *buf, size_t len)
{
	const uint8_t *p = buf;
	uint64_t crc = ~0ull;

	if (!crc64_ready)
		crc64_init();
	for (size_t i = 0; i < len; i++)
		crc = crc64_table[(crc ^ p[i]) & 0xff] ^ (crc >> 8);
	return ~crc;
}

uint16_t vfy_crc16_t10dif(const void *buf, size_t len)
{
	return crc16_t10dif(0, buf, (uint64_t)len);
}

uint32_t vfy_crc32c(const void *buf, size_t len)
{
	/* ISA-L's crc32_iscsi neither starts from nor ends with the inversion by itself. */
	return ~crc32_iscsi((unsigned char *)buf, (int)len, 0xffffffffu);
}
