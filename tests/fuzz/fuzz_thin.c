/*
 * tests/fuzz/fuzz_thin.c - a thin pool's metadata (stack/stack_thin*.c): the input is a
 * metadata device of up to 16 blocks, read once as it is and twice with every block's checksum
 * set right as it is read (so that the walk, not crc32c, meets the fuzzed bytes), node by node
 * and with a node's children read together. A model that
 * loads must answer its own questions: every owner run found again by its device's lookup,
 * the provisioned extents sorted, disjoint and covering every owner, the totals adding up.
 */
#include <errno.h>
#include <string.h>

#include "fuzz.h"
#include "stack_thin.h"

struct image {
	const uint8_t *data;
	size_t size;
	int reseal;
};

/* Reads past the input are I/O errors, as a bad sector would be. */
static int image_read(void *arg, uint64_t block, void *buf)
{
	const struct image *im = arg;
	uint8_t *b = buf;
	uint32_t c;

	if (block >= im->size / THIN_META_BLOCK)
		return -EIO;
	memcpy(b, im->data + block * THIN_META_BLOCK, THIN_META_BLOCK);
	if (im->reseal) {
		c = thin_block_csum(b, block ? THIN_NODE_CSUM_XOR : THIN_SB_CSUM_XOR);
		memcpy(b, &c, 4);
	}
	return 0;
}

static void check(const struct thin_model *m)
{
	uint64_t from = 0, prov = 0, mappings = 0;
	struct thin_extent e;
	struct thin_totals t;

	for (size_t i = 0; i < m->nr_rev; i++) {
		const struct thin_owner *o = &m->rev[i];
		struct thin_run r[2];
		struct thin_extent p;

		if (thin_model_lookup(m, o->dev_id, o->vblock, o->len, r, 2) != 1 ||
		    r[0].dblock != o->dblock || r[0].len != o->len)
			abort();
		if (thin_model_next_provisioned(m, o->dblock, &p) != 1 || p.start != o->dblock ||
		    p.len < o->len)
			abort();
	}
	while (thin_model_next_provisioned(m, from, &e) == 1) {
		if (e.start < from || e.len == 0)
			abort();
		prov += e.len;
		from = e.start + e.len;
	}
	for (size_t i = 0; i < m->nr_devs; i++)
		mappings += m->devs[i].counted;
	thin_model_totals(m, &t);
	if (prov != t.provisioned || mappings != t.mappings || t.shared != mappings - prov)
		abort();
}

static int image_read_many(void *arg, const uint64_t *blocks, unsigned n, uint8_t *bufs)
{
	for (unsigned i = 0; i < n; i++) {
		int r = image_read(arg, blocks[i], bufs + (size_t)i * THIN_META_BLOCK);

		if (r < 0)
			return r;
	}
	return 0;
}

/* Return 1 when two models hold the same owner runs (field by field: padding differs). */
static int same(const struct thin_model *a, const struct thin_model *b)
{
	if (a->nr_rev != b->nr_rev)
		return 0;
	for (size_t i = 0; i < a->nr_rev; i++) {
		const struct thin_owner *x = &a->rev[i], *y = &b->rev[i];

		if (x->dblock != y->dblock || x->vblock != y->vblock || x->len != y->len ||
		    x->dev_id != y->dev_id || x->time != y->time)
			return 0;
	}
	return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct image im = { data, size > 16 * THIN_META_BLOCK ? 16 * THIN_META_BLOCK : size, 0 };
	struct thin_model m, one = { 0 };
	char why[THIN_WHY];
	int r1 = 0;

	/* as read; checksums set right; and so with a node's children read together, which
	 * must give what reading them one by one gave */
	for (int pass = 0; pass < 3; pass++) {
		int r;

		im.reseal = pass > 0;
		r = thin_model_load_many(image_read, pass == 2 ? image_read_many : NULL, &im, 2, &m,
					 why, sizeof(why));

		if (r < 0 && (!why[0] || m.devs))
			abort();	/* every failure says why, and leaves nothing behind */
		if (pass == 2 && (r != r1 || (r == 0 && !same(&m, &one))))
			abort();
		if (r == 0)
			check(&m);
		if (pass == 1) {
			r1 = r;
			one = m;
		} else if (r == 0) {
			thin_model_free(&m);
		}
	}
	if (r1 == 0)
		thin_model_free(&one);
	return 0;
}
