/*
 * stack/stack_thin_query.c - questions asked of a thin pool's model: which thin devices hold
 * a data block (every one: a block shared by a volume and its snapshots has several owners),
 * which data blocks hold a device's virtual range, what is provisioned, the pool's totals.
 * Binary searches over the sorted runs: a query costs the log of the extents (for owners: per
 * device) plus its answer.
 */
#include <errno.h>
#include <stdlib.h>

#include "stack_thin_int.h"

const struct thin_dev *thin_model_dev(const struct thin_model *m, uint32_t id)
{
	size_t lo = 0, hi = m->nr_devs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->devs[mid].id == id)
			return &m->devs[mid];
		if (m->devs[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

int thin_owner_cmp(const void *x, const void *y)
{
	const struct thin_owner *a = x, *b = y;

	if (a->dblock != b->dblock)
		return a->dblock < b->dblock ? -1 : 1;
	if (a->dev_id != b->dev_id)
		return a->dev_id < b->dev_id ? -1 : 1;
	return a->vblock < b->vblock ? -1 : a->vblock > b->vblock;
}

/* Return the index in rev of device d's first run by data block that ends after dblock. */
static size_t first_after(const struct thin_model *m, const struct thin_dev *d, uint64_t dblock)
{
	size_t lo = d->rev_first, hi = d->rev_first + d->nr_runs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->rev[mid].dblock + m->rev[mid].len <= dblock)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int thin_model_owners(const struct thin_model *m, uint64_t dblock, uint64_t nr,
		      struct thin_owner *out, unsigned max)
{
	uint64_t end = dblock + nr;
	unsigned n = 0;

	if (nr == 0 || end < dblock)
		return nr == 0 ? 0 : -EINVAL;
	for (size_t k = 0; k < m->nr_devs; k++) {
		const struct thin_dev *d = &m->devs[k];

		for (size_t i = first_after(m, d, dblock);
		     i < d->rev_first + d->nr_runs && m->rev[i].dblock < end; i++) {
			const struct thin_owner *r = &m->rev[i];
			uint64_t s = r->dblock > dblock ? r->dblock : dblock;
			uint64_t e = r->dblock + r->len < end ? r->dblock + r->len : end;

			if (n == max)
				return -E2BIG;
			out[n] = *r;
			out[n].dblock = s;
			out[n].vblock = r->vblock + (s - r->dblock);
			out[n].len = (uint32_t)(e - s);
			n++;
		}
	}
	qsort(out, n, sizeof(*out), thin_owner_cmp);
	return (int)n;
}

int thin_model_lookup(const struct thin_model *m, uint32_t id, uint64_t vblock, uint64_t nr,
		      struct thin_run *out, unsigned max)
{
	const struct thin_dev *d = thin_model_dev(m, id);
	const struct thin_run *first;
	uint64_t end = vblock + nr;
	unsigned n = 0;
	size_t lo;

	if (!d)
		return -ENOENT;
	if (end < vblock)
		return -EINVAL;
	/* lo: the first run ending after vblock */
	first = thin_dev_run_from(d, vblock);
	lo = first ? (size_t)(first - d->runs) : d->nr_runs;
	for (size_t i = lo; i < d->nr_runs && d->runs[i].vblock < end; i++) {
		const struct thin_run *r = &d->runs[i];
		uint64_t s = r->vblock > vblock ? r->vblock : vblock;
		uint64_t e = r->vblock + r->len < end ? r->vblock + r->len : end;

		if (n == max)
			return -E2BIG;
		out[n] = *r;
		out[n].vblock = s;
		out[n].dblock = r->dblock + (s - r->vblock);
		out[n].len = (uint32_t)(e - s);
		n++;
	}
	return (int)n;
}

int thin_model_next_provisioned(const struct thin_model *m, uint64_t from,
				struct thin_extent *e)
{
	size_t lo = 0, hi = m->nr_prov;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->prov[mid].start + m->prov[mid].len <= from)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == m->nr_prov)
		return 0;
	*e = m->prov[lo];
	if (e->start < from) {
		e->len -= from - e->start;
		e->start = from;
	}
	return 1;
}

void thin_model_totals(const struct thin_model *m, struct thin_totals *t)
{
	t->data_block_bytes = (uint64_t)m->sb.data_block_size * 512;
	t->data_nr_blocks = m->sb.data_nr_blocks;
	t->data_allocated = m->sb.data_nr_allocated;
	t->provisioned = m->nr_provisioned;
	t->mappings = m->nr_mappings;
	t->shared = m->nr_mappings - m->nr_provisioned;
	t->nr_devs = m->nr_devs;
}

const struct thin_run *thin_dev_run_from(const struct thin_dev *d, uint64_t vblock)
{
	size_t lo = 0, hi = d->nr_runs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (d->runs[mid].vblock + d->runs[mid].len <= vblock)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < d->nr_runs ? &d->runs[lo] : NULL;
}

int thin_model_owner_from(const struct thin_model *m, uint32_t dev_id, uint64_t dblock,
			  struct thin_owner *o)
{
	const struct thin_dev *d = thin_model_dev(m, dev_id);
	size_t i;

	if (!d)
		return 0;
	i = first_after(m, d, dblock);
	if (i == d->rev_first + d->nr_runs)
		return 0;
	*o = m->rev[i];
	return 1;
}

