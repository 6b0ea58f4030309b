/*
 * stack/stack_thin_seen.c - the nodes met in one walk of a pool's mapping trees, by block
 * number: a snapshot shares its origin's nodes until either is written (dm-btree shadows only
 * the path it changes), so a node met again is given from the mappings it gave the first time
 * instead of being read again; the walk then reads each node once however many snapshots
 * share it.
 */
#include <stdlib.h>
#include <string.h>

#include "stack_thin_int.h"

static size_t slot(uint64_t block, size_t cap)
{
	/* Fibonacci hashing: block numbers are dense, a multiply spreads them. */
	return (size_t)((block * 0x9e3779b97f4a7c15ull) >> 17) & (cap - 1);
}

struct thin_seen_ent *thin_seen_find(const struct thin_seen *s, uint64_t block)
{
	if (!s->cap)
		return NULL;
	for (size_t i = slot(block, s->cap);; i = (i + 1) & (s->cap - 1)) {
		if (s->e[i].block == block)
			return &s->e[i];
		if (s->e[i].block == 0)
			return NULL;
	}
}

/* Return 0 after doubling the table (at least 64 slots), -1 when out of memory. */
static int grow(struct thin_seen *s)
{
	size_t cap = s->cap ? 2 * s->cap : 64;
	struct thin_seen_ent *e = calloc(cap, sizeof(*e));

	if (!e)
		return -1;
	for (size_t i = 0; i < s->cap; i++) {
		size_t j;

		if (!s->e[i].block)
			continue;
		for (j = slot(s->e[i].block, cap); e[j].block; j = (j + 1) & (cap - 1))
			;
		e[j] = s->e[i];
	}
	free(s->e);
	s->e = e;
	s->cap = cap;
	return 0;
}

struct thin_seen_ent *thin_seen_add(struct thin_seen *s, uint64_t block)
{
	size_t i;

	/* At most half full: probes stay short. Block 0 is the superblock, never a node. */
	if (2 * (s->nr + 1) > s->cap && grow(s) < 0)
		return NULL;
	for (i = slot(block, s->cap); s->e[i].block; i = (i + 1) & (s->cap - 1))
		;
	memset(&s->e[i], 0, sizeof(s->e[i]));
	s->e[i].block = block;
	s->nr++;
	return &s->e[i];
}

void thin_seen_free(struct thin_seen *s)
{
	free(s->e);
	memset(s, 0, sizeof(*s));
}
