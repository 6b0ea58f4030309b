/*
 * stack/stack_thin_warm.c - the nodes a walk of a thin pool used, read again together when
 * the walk is redone after a commit (stack_thin_int.h says why). Sound because the set is
 * read after the redone walk's first superblock read: when the second read matches, no
 * commit happened in between, so every block the new tree points at holds its bytes.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "stack_thin_int.h"

static int by_block(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a < b ? -1 : a > b;
}

const uint8_t *thin_warm_find(const struct thin_warm *w, uint64_t block)
{
	size_t lo = 0, hi = w ? w->n : 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (w->blocks[mid] == block)
			return w->bytes + mid * THIN_META_BLOCK;
		if (w->blocks[mid] < block)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

int thin_warm_note(struct thin_warm *w, uint64_t block)
{
	if (w->nt == w->cap) {
		size_t cap = w->cap ? w->cap * 2 : 256;
		uint64_t *t = realloc(w->trail, cap * sizeof(*t));

		if (!t)
			return -ENOMEM;
		w->trail = t;
		w->cap = cap;
	}
	w->trail[w->nt++] = block;
	return 0;
}

int thin_warm_load(struct thin_warm *w, thin_read_fn read, thin_read_many_fn read_many,
		   void *arg)
{
	size_t n = 0, kept = 0;

	free(w->blocks);
	free(w->bytes);
	w->blocks = NULL;
	w->bytes = NULL;
	w->n = 0;
	qsort(w->trail, w->nt, sizeof(*w->trail), by_block);
	for (size_t i = 0; i < w->nt; i++)
		if (!n || w->trail[i] != w->trail[n - 1])
			w->trail[n++] = w->trail[i];
	w->nt = 0;
	if (!n)
		return 0;
	w->bytes = aligned_alloc(THIN_META_BLOCK, n * THIN_META_BLOCK);
	w->blocks = malloc(n * sizeof(*w->blocks));
	if (!w->bytes || !w->blocks) {
		free(w->bytes);
		free(w->blocks);
		w->bytes = NULL;
		w->blocks = NULL;
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i += THIN_PREFETCH) {
		unsigned k = n - i < THIN_PREFETCH ? (unsigned)(n - i) : THIN_PREFETCH;
		uint8_t *dst = w->bytes + kept * THIN_META_BLOCK;

		if (read_many && read_many(arg, w->trail + i, k, dst) == 0) {
			memcpy(w->blocks + kept, w->trail + i, k * sizeof(*w->blocks));
			kept += k;
			continue;
		}
		/* one at a time: a block that cannot be read is left to the walk to name */
		for (unsigned j = 0; j < k; j++)
			if (read(arg, w->trail[i + j], w->bytes + kept * THIN_META_BLOCK) == 0)
				w->blocks[kept++] = w->trail[i + j];
	}
	w->n = kept;
	return 0;
}

void thin_warm_free(struct thin_warm *w)
{
	free(w->blocks);
	free(w->bytes);
	free(w->trail);
	memset(w, 0, sizeof(*w));
}
