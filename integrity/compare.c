/*
 * integrity/compare.c - the legs of a redundancy row compared block by block. A clean row is
 * the common case and costs one pass: memcmp for copies, ISA-L's xor_check / pq_check for
 * parity where ISA-L takes the buffers (32-byte aligned, a multiple of 32 bytes, enough
 * vectors), a plain loop where it does not. Only a row that fails is walked block by block
 * to say where it differs and, where it can be known, which leg is wrong: a strict majority
 * of copies, RAID6's syndrome (one bad data chunk, or P or Q alone), or XFS metadata CRCs.
 */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <isa-l/raid.h>

#include "compare.h"

/* GF(2^8) of the RAID6 syndrome: polynomial 0x11d, generator g = 2 (as ISA-L and md). */
struct gf {
	uint8_t exp[512];
	uint8_t log[256];
};

static void gf_init(struct gf *g)
{
	unsigned x = 1;

	for (unsigned i = 0; i < 255; i++) {
		g->exp[i] = g->exp[i + 255] = (uint8_t)x;
		g->log[x] = (uint8_t)i;
		x <<= 1;
		if (x & 0x100)
			x ^= 0x11d;
	}
	g->log[0] = 0;
}

/* The runs found so far; a block's verdict extends a run that ends where the block starts. */
struct runs {
	struct cmp_run *out;
	unsigned max, n;
	int over;
};

static void run_add(struct runs *r, uint64_t off, uint64_t len, int wrong,
		    enum cmp_wrong_how how, int parity_only)
{
	for (unsigned i = r->n; i-- > 0;) {
		struct cmp_run *x = &r->out[i];

		if (x->offset + x->length == off && x->wrong == wrong && x->how == how &&
		    x->parity_only == parity_only) {
			x->length += len;
			return;
		}
	}
	if (r->n == r->max) {
		r->over = 1;
		return;
	}
	r->out[r->n++] = (struct cmp_run){ .offset = off, .length = len, .wrong = wrong,
					   .how = how, .parity_only = parity_only };
}

/* One compare: the row, its legs' bytes, scratch for the parity blocks. */
struct cmp {
	const struct cmp_row_desc *row;
	const uint8_t *b[CMP_MAX_LEGS];
	int p, q;			/* leg numbers of P and Q, -1 */
	int crc;			/* decide unknown mirror blocks by metadata CRC */
	uint8_t *dp, *dq;		/* blk bytes each */
	struct gf gf;
};

static int same(const struct cmp *c, unsigned i, unsigned j, size_t off, size_t bl)
{
	return memcmp(c->b[i] + off, c->b[j] + off, bl) == 0;
}

/*
 * A mirror block whose copies disagree and no majority names: the copies whose metadata CRC
 * is good decide when they agree with each other; return 1 when runs were added.
 */
static int mirror_by_crc(const struct cmp *c, size_t off, size_t bl, struct runs *r)
{
	unsigned n = c->row->nr_legs;
	int good = -1, v[CMP_MAX_LEGS];

	for (unsigned i = 0; i < n; i++) {
		v[i] = cmp_meta_crc(c->b[i] + off, bl);
		if (v[i] == 1 && good < 0)
			good = (int)i;
	}
	if (good < 0)
		return 0;
	for (unsigned i = 0; i < n; i++)
		if (v[i] == 1 && !same(c, i, (unsigned)good, off, bl))
			return 0;		/* two good CRCs on different bytes */
	for (unsigned i = 0; i < n; i++)
		if (!same(c, i, (unsigned)good, off, bl))
			run_add(r, off, bl, (int)i, CMP_WHO_CRC, 0);
	return 1;
}

static void mirror_block(const struct cmp *c, size_t off, size_t bl, struct runs *r)
{
	unsigned n = c->row->nr_legs, i, j, k;
	int maj = -1;

	for (i = 1; i < n && same(c, 0, i, off, bl); i++)
		;
	if (i == n)
		return;
	for (i = 0; i < n && maj < 0; i++) {
		for (j = 0, k = 0; j < n; j++)
			k += same(c, i, j, off, bl);
		if (2 * k > n)
			maj = (int)i;
	}
	if (maj >= 0) {
		for (i = 0; i < n; i++)
			if (!same(c, i, (unsigned)maj, off, bl))
				run_add(r, off, bl, (int)i, CMP_WHO_MAJORITY, 0);
		return;
	}
	if (c->crc && mirror_by_crc(c, off, bl, r))
		return;
	run_add(r, off, bl, -1, CMP_WHO_UNKNOWN, 0);
}

/* dp = P ^ XOR of the data, dq = Q ^ sum of g^index * D (PQ only); return 1 if any differs. */
static int syndromes(struct cmp *c, size_t off, size_t bl, int *pz, int *qz)
{
	const struct gf *g = &c->gf;

	memcpy(c->dp, c->b[c->p] + off, bl);
	if (c->q >= 0)
		memcpy(c->dq, c->b[c->q] + off, bl);
	for (unsigned l = 0; l < c->row->nr_legs; l++) {
		const uint8_t *d = c->b[l] + off;
		unsigned idx = (unsigned)c->row->leg[l].index;

		if ((int)l == c->p || (int)l == c->q)
			continue;
		for (size_t i = 0; i < bl; i++) {
			c->dp[i] ^= d[i];
			if (c->q >= 0 && d[i])
				c->dq[i] ^= g->exp[g->log[d[i]] + idx];
		}
	}
	*pz = *qz = 0;
	for (size_t i = 0; i < bl; i++) {
		*pz |= c->dp[i] != 0;
		if (c->q >= 0)
			*qz |= c->dq[i] != 0;
	}
	return *pz || *qz;
}

/* The data leg whose change explains dq = g^z dp on every byte, or -1. */
static int syndrome_leg(const struct cmp *c, size_t bl)
{
	const struct gf *g = &c->gf;
	int z = -1;

	for (size_t i = 0; i < bl; i++) {
		int e;

		if (!c->dp[i] && !c->dq[i])
			continue;
		if (!c->dp[i] || !c->dq[i])
			return -1;
		e = (g->log[c->dq[i]] - g->log[c->dp[i]] + 255) % 255;
		if (z >= 0 && e != z)
			return -1;
		z = e;
	}
	for (unsigned l = 0; l < c->row->nr_legs; l++)
		if (c->row->leg[l].role == CMP_DATA && c->row->leg[l].index == z)
			return (int)l;
	return -1;
}

static void parity_block(struct cmp *c, size_t off, size_t bl, struct runs *r)
{
	int pz, qz, z;

	if (!syndromes(c, off, bl, &pz, &qz))
		return;
	if (c->q < 0)
		run_add(r, off, bl, -1, CMP_WHO_UNKNOWN, 0);
	else if (pz && !qz)
		run_add(r, off, bl, c->p, CMP_WHO_SYNDROME, 1);
	else if (!pz && qz)
		run_add(r, off, bl, c->q, CMP_WHO_SYNDROME, 1);
	else if ((z = syndrome_leg(c, bl)) >= 0)
		run_add(r, off, bl, z, CMP_WHO_SYNDROME, 0);
	else
		run_add(r, off, bl, -1, CMP_WHO_UNKNOWN, 0);
}

/* Check the row's description; set c->p and c->q. */
static int check_row(struct cmp *c)
{
	const struct cmp_row_desc *row = c->row;
	unsigned np = 0, nq = 0, nd = 0;
	uint8_t used[255] = { 0 };

	c->p = c->q = -1;
	if (row->nr_legs < 2 || row->nr_legs > CMP_MAX_LEGS)
		return -EINVAL;
	if (row->kind == CMP_MIRROR)
		return 0;
	if (row->kind != CMP_XOR && row->kind != CMP_PQ)
		return -EINVAL;
	for (unsigned l = 0; l < row->nr_legs; l++) {
		const struct cmp_leg *g = &row->leg[l];

		if (g->role == CMP_P) {
			np++;
			c->p = (int)l;
		} else if (g->role == CMP_Q) {
			nq++;
			c->q = (int)l;
		} else if (g->role == CMP_DATA) {
			nd++;
			if (row->kind == CMP_PQ &&
			    (g->index < 0 || g->index > 254 || used[g->index]++))
				return -EINVAL;
		} else {
			return -EINVAL;
		}
	}
	if (np != 1 || nq != (row->kind == CMP_PQ) || !nd)
		return -EINVAL;
	return 0;
}

/*
 * Return 1 when the whole row agrees by one fast pass, 0 when it must be walked block by
 * block: ISA-L wants 32-byte aligned buffers, a length that is a multiple of 32, at least two
 * sources, and for pq_check the data in syndrome order 0..k-1 with P and Q last.
 */
static int row_clean(const struct cmp *c, size_t len)
{
	const struct cmp_row_desc *row = c->row;
	void *v[CMP_MAX_LEGS];
	unsigned n = row->nr_legs, k = 0;

	if (row->kind == CMP_MIRROR) {
		for (unsigned i = 1; i < n; i++)
			if (memcmp(c->b[0], c->b[i], len))
				return 0;
		return 1;
	}
	if (len % 32 || len > INT_MAX || n < (row->kind == CMP_PQ ? 4u : 3u))
		return 0;
	for (unsigned i = 0; i < n; i++)
		if ((uintptr_t)c->b[i] % 32)
			return 0;
	for (unsigned i = 0; i < n; i++) {
		const struct cmp_leg *g = &row->leg[i];

		if (g->role != CMP_DATA)
			continue;
		if (row->kind == CMP_XOR)
			v[k] = (void *)c->b[i];
		else if ((unsigned)g->index < n - 2)
			v[g->index] = (void *)c->b[i];
		else
			return 0;		/* indices with gaps (DDF): the plain loop */
		k++;
	}
	v[k++] = (void *)c->b[c->p];
	if (row->kind == CMP_XOR)
		return xor_check((int)k, (int)len, v) == 0;
	v[k++] = (void *)c->b[c->q];
	return pq_check((int)k, (int)len, v) == 0;
}

static int compare(const struct cmp_row_desc *row, const void *const *bufs, size_t len,
		   uint32_t blk, struct cmp_run *out, unsigned max, int crc)
{
	struct runs r = { .out = out, .max = max };
	struct cmp *c;
	int ret;

	if (!row || !bufs || !blk || (max && !out))
		return -EINVAL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->row = row;
	c->crc = crc;
	ret = check_row(c);
	for (unsigned i = 0; ret == 0 && i < row->nr_legs; i++) {
		c->b[i] = bufs[i];
		if (!bufs[i])
			ret = -EINVAL;
	}
	if (ret < 0 || !len || row_clean(c, len))
		goto out;
	gf_init(&c->gf);
	c->dp = malloc(2 * (size_t)blk);
	if (!c->dp) {
		ret = -ENOMEM;
		goto out;
	}
	c->dq = c->dp + blk;
	for (size_t off = 0; off < len; off += blk) {
		size_t bl = len - off < blk ? len - off : blk;

		if (row->kind == CMP_MIRROR)
			mirror_block(c, off, bl, &r);
		else
			parity_block(c, off, bl, &r);
	}
	ret = r.over ? -E2BIG : (int)r.n;
out:
	free(c->dp);
	free(c);
	return ret;
}

int cmp_row(const struct cmp_row_desc *row, const void *const *bufs, size_t len, uint32_t blk,
	    struct cmp_run *out, unsigned max)
{
	return compare(row, bufs, len, blk, out, max, 0);
}

int cmp_row_crc(const struct cmp_row_desc *row, const void *const *bufs, size_t len,
		uint32_t blk, struct cmp_run *out, unsigned max)
{
	return compare(row, bufs, len, blk, out, max, 1);
}
