/*
 * mediascan/range.c - the range type the scan reads: which of its bytes are planned, and
 * which were read only to bridge a gap (a failure there is not damage).
 */
#include "scan.h"

uint64_t scan_range_planned_bytes(const struct scan_range *r, uint64_t offset, uint64_t length)
{
	uint64_t start = offset < r->offset ? r->offset : offset;
	uint64_t end = offset + length;
	uint64_t planned;

	if (end > r->offset + r->length)
		end = r->offset + r->length;
	if (end <= start)
		return 0;
	planned = end - start;
	for (uint32_t i = 0; i < r->nr_gaps; i++) {
		uint64_t gs = r->gaps[i].offset, ge = gs + r->gaps[i].length;

		if (gs < start)
			gs = start;
		if (ge > end)
			ge = end;
		if (ge > gs)
			planned -= ge - gs;
	}
	return planned;
}
