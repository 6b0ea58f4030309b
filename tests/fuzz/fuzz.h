/*
 * tests/fuzz/fuzz.h - shared bits of the libFuzzer harnesses: a NUL-terminated copy of the
 * input, and the input split into fields.
 */
#ifndef MEDIASCAN_FUZZ_H
#define MEDIASCAN_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Return a malloc'd NUL-terminated copy of data (exactly size bytes + NUL: ASan sees overreads). */
static inline char *fuzz_str(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (!s)
		abort();
	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

/* Return the next little-endian u64 from the input (0 past its end). */
static inline uint64_t fuzz_u64(const uint8_t **data, size_t *size)
{
	uint64_t v = 0;
	size_t n = *size < 8 ? *size : 8;

	memcpy(&v, *data, n);
	*data += n;
	*size -= n;
	return v;
}

#endif
