/*
 * stack/stack_thin_row.c - dm-thin table rows mapped through a pool's model (pure): a thin
 * volume's sector down to the pool's data device and back up. The pool target remaps every
 * bio to its data device at the same sector (pool_map: a singleton target at 0), so a pool
 * device sector is a data device sector; a thin target turns a sector into a virtual block
 * by its offset in the row (thin_map: dm_target_offset) and the metadata's mapping gives the
 * data block. Unprovisioned blocks read as zeros, or from the external origin at the same
 * offset.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stack_thin_int.h"

/* Skip the decimal digits at s (at least one, at most 10: an unsigned); NULL when none. */
static const char *digits(const char *s)
{
	const char *p = s;

	while (*p >= '0' && *p <= '9')
		p++;
	return p == s || p - s > 10 ? NULL : p;
}

/* A "MAJ:MIN" token copied to out. No sscanf: a walk parses a thin row per volume per range. */
static int devt_token(const char *s, char *out, size_t len)
{
	const char *p = digits(s);
	size_t n;

	if (!p || *p != ':' || !(p = digits(p + 1)) || *p)
		return -EINVAL;
	n = (size_t)(p - s);
	if (n >= len)
		return -EINVAL;
	memcpy(out, s, n + 1);
	return 0;
}

static int number(const char *s, uint64_t *v)
{
	char *end;

	if (!s || *s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	*v = strtoull(s, &end, 10);
	return errno || *end ? -EINVAL : 0;
}

/* Split a copy of params (in buf) into at most max tokens: return how many, -EINVAL. */
static int split(const char *params, char *buf, size_t len, char **tok, int max)
{
	char *save = NULL;
	int n = 0;

	if (strlen(params) >= len)
		return -EINVAL;
	strcpy(buf, params);
	for (char *t = strtok_r(buf, " \t", &save); t; t = strtok_r(NULL, " \t", &save)) {
		if (n == max)
			return -EINVAL;
		tok[n++] = t;
	}
	return n;
}

int thin_pool_row_parse(const char *params, struct thin_pool_params *p)
{
	char buf[512], *tok[40];
	int n = split(params, buf, sizeof(buf), tok, 40);

	memset(p, 0, sizeof(*p));
	if (n < 4 || devt_token(tok[0], p->meta_devt, sizeof(p->meta_devt)) < 0 ||
	    devt_token(tok[1], p->data_devt, sizeof(p->data_devt)) < 0 ||
	    number(tok[2], &p->data_block_size) < 0 || p->data_block_size == 0 ||
	    number(tok[3], &p->low_water_mark) < 0)
		return -EINVAL;
	return 0;
}

int thin_row_parse(const char *params, struct thin_params *t)
{
	char buf[256], *tok[4];
	int n = split(params, buf, sizeof(buf), tok, 4);
	uint64_t id;

	memset(t, 0, sizeof(*t));
	if (n < 2 || n > 3 || devt_token(tok[0], t->pool_devt, sizeof(t->pool_devt)) < 0 ||
	    number(tok[1], &id) < 0 || id >= (1u << 24))
		return -EINVAL;
	t->dev_id = (uint32_t)id;
	if (n == 3 && devt_token(tok[2], t->origin_devt, sizeof(t->origin_devt)) < 0)
		return -EINVAL;
	return 0;
}

int thin_pool_row_up(uint64_t start, uint64_t length, const char *params, const char *below,
		     uint64_t x, uint64_t *top, uint64_t *run)
{
	struct thin_pool_params p;

	if (thin_pool_row_parse(params, &p) < 0)
		return -EINVAL;
	if (!strcmp(below, p.meta_devt))
		return 2;
	if (strcmp(below, p.data_devt) || x < start || x - start >= length) {
		*run = !strcmp(below, p.data_devt) && x < start ? start - x : UINT64_MAX;
		return 0;
	}
	*top = x;
	*run = start + length - x;
	return 1;
}

int thin_row_down(const struct thin_model *m, uint64_t start, uint64_t length,
		  const char *params, uint64_t x, uint64_t *data, uint64_t *run)
{
	uint64_t dbs = m->sb.data_block_size, rel, vb, off, left;
	const struct thin_dev *d;
	const struct thin_run *r;
	struct thin_params t;

	if (thin_row_parse(params, &t) < 0 || dbs == 0)
		return -EINVAL;
	if (x < start || x - start >= length)
		return -ERANGE;
	d = thin_model_dev(m, t.dev_id);
	if (!d)
		return -ENOENT;
	rel = x - start;
	vb = rel / dbs;
	off = rel % dbs;
	left = length - rel;
	r = thin_dev_run_from(d, vb);
	if (r && r->vblock <= vb) {
		*data = (r->dblock + (vb - r->vblock)) * dbs + off;
		*run = (r->vblock + r->len - vb) * dbs - off;
	} else {
		/* A hole: up to the next mapped block, zeros or the external origin's bytes. */
		*data = rel;
		*run = r ? (r->vblock - vb) * dbs - off : left;
	}
	if (*run > left)
		*run = left;
	return r && r->vblock <= vb ? 1 : t.origin_devt[0] ? 2 : 0;
}

int thin_row_up(const struct thin_model *m, uint64_t start, uint64_t length, const char *params,
		const char *below, uint64_t x, uint64_t *top, uint64_t *run)
{
	uint64_t dbs = m->sb.data_block_size, db, off, vsec;
	struct thin_params t;
	struct thin_owner o;

	if (thin_row_parse(params, &t) < 0 || dbs == 0)
		return -EINVAL;
	*run = UINT64_MAX;
	if (strcmp(below, t.pool_devt))
		return 0;
	db = x / dbs;
	off = x % dbs;
	if (!thin_model_owner_from(m, t.dev_id, db, &o))
		return 0;
	if (o.dblock > db) {		/* unmapped up to the device's next run */
		*run = (o.dblock - db) * dbs - off;
		return 0;
	}
	vsec = (o.vblock + (db - o.dblock)) * dbs + off;
	if (vsec >= length) {		/* past the row: so to the run's end */
		*run = (o.dblock + o.len - db) * dbs - off;
		return 0;
	}
	*top = start + vsec;
	*run = (o.dblock + o.len - db) * dbs - off;
	if (*run > length - vsec)
		*run = length - vsec;
	return 1;
}
