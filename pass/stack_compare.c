/*
 * pass/stack_compare.c - a member-level scan compares what it reads: the copies of a mirror
 * row byte for byte, a RAID4/5 row's data with its parity, a RAID6 row's data with P and Q.
 * Rules:
 *   - the stack source registers each row (stack/stack_row.h) as it plans the row's legs;
 *     the executor hands every clean read's bytes to pass_stack_cmp_data, which copies the
 *     overlap into the rows waiting for it; a row whose legs all arrived is compared there
 *     and then and its buffer freed;
 *   - a row that differs is a suspect, not yet a verdict: the array may be written while it
 *     is read. After the scan every suspect is read again twice, a second apart; only a row
 *     that differs the same way (the same runs, the same bytes) three times is "copies
 *     differ"; one that agrees on a re-read, or keeps changing, is "in flux";
 *   - rows waiting for a leg that failed to read are never compared (counted): the failed
 *     read has its own verdict. Their buffers are dropped oldest first above a memory bound.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "compare.h"
#include "kio.h"
#include "pass_int.h"
#include "stack.h"

#define CMP_MEM_CAP (256ull << 20)	/* row buffers held at once */
#define CMP_MAX_RUNS 64
#define CMP_RECHECK_PAUSE_NS 1000000000ull

struct cmp_pending {
	struct map_row row;
	int dev[MAP_ROW_MAX_LEGS];	/* leaf index of each leg */
	uint64_t got[MAP_ROW_MAX_LEGS];	/* bytes of each leg arrived */
	unsigned char *buf;		/* nr_legs * row.length, NULL until the first byte */
	int done;
};

struct pass_cmp {
	struct pass_stack *ps;
	struct cmp_pending *q;		/* a ring of rows in the order they were planned */
	size_t cap, head, n;
	uint64_t mem;
	uint32_t blk;			/* the unit compared: the members' largest logical block */
	struct pass_stack_cd_suspect {
		struct map_row row;
		int dev[MAP_ROW_MAX_LEGS];
		struct cmp_run run[CMP_MAX_RUNS];
		unsigned nr_run;
	} *sus;
	size_t nr_sus, cap_sus;
	int nomem;
};

static void pend_drop(struct pass_cmp *c, struct cmp_pending *p, int compared)
{
	if (p->buf) {
		free(p->buf);
		p->buf = NULL;
		c->mem -= p->row.length * p->row.nr_legs;
	}
	if (!compared)
		c->ps->cmp_not_compared++;
	p->done = 1;
}

/* The row as integrity/ describes it (the same values, field by field). */
static void row_desc(const struct map_row *row, struct cmp_row_desc *d)
{
	d->kind = (enum cmp_kind)row->kind;
	d->nr_legs = row->nr_legs;
	for (unsigned i = 0; i < row->nr_legs; i++) {
		d->leg[i].role = (enum cmp_role)row->leg[i].role;
		d->leg[i].index = row->leg[i].index;
	}
}

/*
 * Return the number of runs in which the row's legs in buf differ (out[0..max)), or -errno.
 * Compared by filesystem block (4 KiB) where the legs allow, so that a metadata block's own
 * CRC can say which copy is right; else by the members' logical block.
 */
static int row_compare(const struct map_row *row, const unsigned char *buf, uint32_t blk,
		       struct cmp_run *out, unsigned max)
{
	const void *legs[MAP_ROW_MAX_LEGS];
	struct cmp_row_desc d;
	uint32_t fsb = 4096;

	for (unsigned i = 0; i < row->nr_legs; i++) {
		legs[i] = buf + (size_t)i * row->length;
		if (row->leg[i].offset % fsb)
			fsb = blk;
	}
	if (row->length % fsb || fsb < blk)
		fsb = blk;
	row_desc(row, &d);
	return cmp_row_crc(&d, legs, row->length, fsb, out, max);
}

static int suspect_add(struct pass_cmp *c, const struct cmp_pending *p, const struct cmp_run *run,
		       unsigned n)
{
	struct pass_stack_cd_suspect *s;

	if (c->nr_sus == c->cap_sus) {
		size_t cap = c->cap_sus ? c->cap_sus * 2 : 16;

		s = realloc(c->sus, cap * sizeof(*s));
		if (!s)
			return -ENOMEM;
		c->sus = s;
		c->cap_sus = cap;
	}
	s = &c->sus[c->nr_sus++];
	s->row = p->row;
	memcpy(s->dev, p->dev, sizeof(s->dev));
	memcpy(s->run, run, n * sizeof(*run));
	s->nr_run = n;
	return 0;
}

static void pend_complete(struct pass_cmp *c, struct cmp_pending *p)
{
	struct cmp_run run[CMP_MAX_RUNS];
	int n = row_compare(&p->row, p->buf, c->blk, run, CMP_MAX_RUNS);

	c->ps->cmp_rows++;
	c->ps->cmp_bytes += p->row.length * p->row.nr_legs;
	if (n == -E2BIG)
		n = CMP_MAX_RUNS;
	if (n > 0 && suspect_add(c, p, run, (unsigned)n) < 0)
		c->nomem = -ENOMEM;
	pend_drop(c, p, n >= 0);
}

/* The oldest rows that are done leave the ring. */
static void ring_trim(struct pass_cmp *c)
{
	while (c->n && c->q[c->head].done) {
		c->head = (c->head + 1) % c->cap;
		c->n--;
	}
}

void pass_stack_cmp_data(void *arg, uint32_t dev, uint64_t off, const void *buf, uint32_t len)
{
	struct pass_cmp *c = arg;

	for (size_t k = 0; k < c->n; k++) {
		struct cmp_pending *p = &c->q[(c->head + k) % c->cap];
		int full = 1;

		if (p->done)
			continue;
		for (unsigned i = 0; i < p->row.nr_legs; i++) {
			const struct map_row_leg *l = &p->row.leg[i];
			uint64_t a = l->offset > off ? l->offset : off;
			uint64_t b = l->offset + l->length < off + len ? l->offset + l->length :
				     off + len;

			if (p->dev[i] == (int)dev && a < b) {
				if (!p->buf) {
					while (c->mem + p->row.length * p->row.nr_legs > CMP_MEM_CAP) {
						/* the oldest rows still waiting: a leg failed */
						struct cmp_pending *o = &c->q[c->head];

						if (o == p)
							break;
						pend_drop(c, o, 0);
						ring_trim(c);
					}
					p->buf = malloc(p->row.length * p->row.nr_legs);
					if (!p->buf) {
						pend_drop(c, p, 0);
						break;
					}
					c->mem += p->row.length * p->row.nr_legs;
				}
				memcpy(p->buf + (size_t)i * p->row.length + (a - l->offset),
				       (const unsigned char *)buf + (a - off), b - a);
				p->got[i] += b - a;
			}
			full &= p->got[i] >= l->length;
		}
		if (!p->done && full)
			pend_complete(c, p);
	}
	ring_trim(c);
}

void pass_stack_compare_choose(struct pass_stack *ps, const struct pass_opts *o)
{
	unsigned cpus = kio_cpus_online();

	if (o->no_compare) {
		ps->compare = 0;
		ps->compare_why = "--no-compare";
	} else if (o->compare) {
		ps->compare = 1;
		ps->compare_why = "--compare";
	} else if (o->compare_auto) {
		/* a comparing scan costs a memcmp or a parity per byte read, beside the reads */
		ps->compare = cpus >= 2;
		ps->compare_why = cpus >= 2 ? "on by default: 2 CPUs or more" :
				  "off by default: one CPU";
	} else {
		ps->compare = 0;
		ps->compare_why = "off by default (--compare compares)";
	}
}

int pass_stack_cmp_open(struct pass_stack *ps)
{
	struct pass_cmp *c = calloc(1, sizeof(*c));

	if (!c)
		return -ENOMEM;
	c->ps = ps;
	c->blk = 512;
	for (unsigned i = 0; i < ps->nr_leaf; i++)
		if (ps->devs[i].logical_block_size > c->blk)
			c->blk = ps->devs[i].logical_block_size;
	ps->cmp = c;
	return 0;
}

int pass_stack_cmp_row(struct pass_stack *ps, const struct map_row *row, const int *dev)
{
	struct pass_cmp *c = ps->cmp;
	struct cmp_pending *p;

	if (c->n == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 256;
		struct cmp_pending *q = malloc(cap * sizeof(*q));

		if (!q)
			return -ENOMEM;
		for (size_t k = 0; k < c->n; k++)
			q[k] = c->q[(c->head + k) % c->cap];
		free(c->q);
		c->q = q;
		c->cap = cap;
		c->head = 0;
	}
	p = &c->q[(c->head + c->n) % c->cap];
	memset(p, 0, sizeof(*p));
	p->row = *row;
	memcpy(p->dev, dev, sizeof(p->dev));
	c->n++;
	return 0;
}

/* Read every leg of s into buf (O_DIRECT on the members the scan opened): 0 or -errno. */
static int row_read(const struct pass_stack *ps, const struct pass_stack_cd_suspect *s,
		    unsigned char *buf)
{
	for (unsigned i = 0; i < s->row.nr_legs; i++) {
		const struct map_row_leg *l = &s->row.leg[i];
		ssize_t r = kio_pread(ps->devs[s->dev[i]].fd, buf + (size_t)i * s->row.length,
				      l->length, l->offset);

		if (r != (ssize_t)l->length)
			return r < 0 ? (int)r : -EIO;
	}
	return 0;
}

static int runs_equal(const struct cmp_run *a, unsigned na, const struct cmp_run *b, unsigned nb)
{
	if (na != nb)
		return 0;
	for (unsigned i = 0; i < na; i++)
		if (a[i].offset != b[i].offset || a[i].length != b[i].length ||
		    a[i].wrong != b[i].wrong || a[i].parity_only != b[i].parity_only)
			return 0;
	return 1;
}

static const char *how_name(enum cmp_wrong_how h)
{
	switch (h) {
	case CMP_WHO_MAJORITY:
		return "majority";
	case CMP_WHO_SYNDROME:
		return "syndrome";
	case CMP_WHO_CRC:
		return "metadata-crc";
	default:
		return "unknown";
	}
}

/*
 * The filesystem device's ranges a run holds: a mirror row's one range; the wrong data leg's;
 * none when only the parity is wrong; every data leg's when which is wrong is not known.
 */
static void cd_tops(struct pass_stack_cd *e)
{
	const struct map_row *row = &e->row;

	for (unsigned i = 0; i < row->nr_legs && !e->parity_only; i++) {
		const struct map_row_leg *l = &row->leg[i];

		if (l->top_offset == UINT64_MAX || (row->kind != MAP_ROW_MIRROR && e->wrong >= 0 &&
						    e->wrong != (int)i))
			continue;
		e->top_off[e->nr_top] = l->top_offset + e->offset;
		e->top_len[e->nr_top++] = e->length;
		if (row->kind == MAP_ROW_MIRROR)
			break;
	}
}

static int cd_add(struct pass_stack *ps, const struct pass_stack_cd_suspect *s,
		  const struct cmp_run *r)
{
	struct pass_stack_cd *e;

	if (ps->nr_cd % 16 == 0) {
		e = realloc(ps->cd, (ps->nr_cd + 16) * sizeof(*e));
		if (!e)
			return -ENOMEM;
		ps->cd = e;
	}
	e = &ps->cd[ps->nr_cd++];
	memset(e, 0, sizeof(*e));
	e->row = s->row;
	e->offset = r->offset;
	e->length = r->length;
	e->wrong = r->wrong;
	e->how = how_name(r->how);
	e->parity_only = r->parity_only;
	cd_tops(e);
	return 0;
}

/* One suspect read twice more, a pause between: the same difference each time, or in flux. */
static int suspect_settle(struct pass_stack *ps, const struct pass_stack_cd_suspect *s,
			  unsigned char *b1, unsigned char *b2)
{
	struct pass_cmp *c = ps->cmp;
	struct cmp_run r1[CMP_MAX_RUNS], r2[CMP_MAX_RUNS];
	size_t bytes = s->row.length * s->row.nr_legs;
	int n1, n2;

	if (row_read(ps, s, b1) < 0) {
		ps->cmp_not_compared++;		/* a leg fails now: its read has the verdict */
		return 0;
	}
	n1 = row_compare(&s->row, b1, c->blk, r1, CMP_MAX_RUNS);
	if (n1 == -E2BIG)
		n1 = CMP_MAX_RUNS;
	if (n1 <= 0 || !runs_equal(s->run, s->nr_run, r1, (unsigned)n1)) {
		ps->cmp_in_flux++;
		return 0;
	}
	nanosleep(&(struct timespec){ 0, CMP_RECHECK_PAUSE_NS - 1 }, NULL);
	if (row_read(ps, s, b2) < 0) {
		ps->cmp_not_compared++;
		return 0;
	}
	n2 = row_compare(&s->row, b2, c->blk, r2, CMP_MAX_RUNS);
	if (n2 == -E2BIG)
		n2 = CMP_MAX_RUNS;
	if (n2 != n1 || !runs_equal(r1, (unsigned)n1, r2, (unsigned)n2) || memcmp(b1, b2, bytes)) {
		ps->cmp_in_flux++;
		return 0;
	}
	for (int k = 0; k < n2; k++)
		if (cd_add(ps, s, &r2[k]) < 0)
			return -ENOMEM;
	return 0;
}

int pass_stack_cmp_settle(struct pass_stack *ps)
{
	struct pass_cmp *c = ps->cmp;
	unsigned char *b1 = NULL, *b2 = NULL;
	int ret = 0;

	if (!c)
		return 0;
	for (size_t k = 0; k < c->n; k++) {
		struct cmp_pending *p = &c->q[(c->head + k) % c->cap];

		if (!p->done)
			pend_drop(c, p, 0);	/* a leg never arrived: it failed to read */
	}
	c->n = 0;
	for (size_t i = 0; i < c->nr_sus && ret == 0; i++) {
		const struct pass_stack_cd_suspect *s = &c->sus[i];
		size_t bytes = s->row.length * s->row.nr_legs;

		free(b1);
		free(b2);
		b1 = b2 = NULL;
		if (posix_memalign((void **)&b1, 4096, bytes) ||
		    posix_memalign((void **)&b2, 4096, bytes)) {
			ret = -ENOMEM;
			break;
		}
		ret = suspect_settle(ps, s, b1, b2);
	}
	free(b1);
	free(b2);
	return ret ? ret : c->nomem;
}

void pass_stack_cmp_close(struct pass_stack *ps)
{
	struct pass_cmp *c = ps->cmp;

	if (!c)
		return;
	for (size_t k = 0; k < c->n; k++)
		free(c->q[(c->head + k) % c->cap].buf);
	free(c->q);
	free(c->sus);
	free(c);
	ps->cmp = NULL;
}
