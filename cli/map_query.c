/*
 * cli/map_query.c - `mediascan map`'s table of queries (one range to map, with how it was
 * named: on the command line or in a kernel log line) and of the targets they fall on, each
 * opened once: added, sorted by device and offset, repeats merged.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"

#include "map_int.h"

int cli_map_add_query(struct map_run *m, const char *devpath, uint64_t off, uint64_t len,
		     const char *format, uint64_t value)
{
	if (m->from_log && m->nr_q >= MAP_KLOG_MAX_RANGES) {
		cli_map_dedup(m);		/* repeats merge; past the bound, dropped */
		if (m->nr_q >= MAP_KLOG_MAX_RANGES) {
			m->dropped++;
			return 1;
		}
	}
	if (m->nr_q == m->cap_q) {
		size_t cap = m->cap_q ? m->cap_q * 2 : 64;
		struct query *n = realloc(m->q, sizeof(*n) * cap);

		if (!n)
			return -ENOMEM;
		m->q = n;
		m->cap_q = cap;
	}
	m->q[m->nr_q] = (struct query){ .offset = off, .length = len, .lines = 1,
					.format = format, .value = value, .tgt = -1, .usec = -1 };
	cli_map_copy(m->q[m->nr_q].devpath, sizeof(m->q[m->nr_q].devpath), devpath);
	m->nr_q++;
	return 0;
}

int cli_map_cmp_query(const void *a, const void *b)
{
	const struct query *x = a, *y = b;
	int c = strcmp(x->devpath, y->devpath);

	if (c)
		return c;
	if (x->offset != y->offset)
		return x->offset < y->offset ? -1 : 1;
	return x->length < y->length ? -1 : x->length > y->length;
}

/* Sort the queries by device and offset and merge repeats (counting their lines). */
void cli_map_dedup(struct map_run *m)
{
	size_t w = 0;

	if (m->nr_q)
		qsort(m->q, m->nr_q, sizeof(*m->q), cli_map_cmp_query);
	for (size_t i = 0; i < m->nr_q; i++) {
		if (w && cli_map_cmp_query(&m->q[w - 1], &m->q[i]) == 0) {
			m->q[w - 1].lines += m->q[i].lines;
			if (m->q[i].usec > m->q[w - 1].usec)	/* the latest line counts */
				m->q[w - 1].usec = m->q[i].usec;
			continue;
		}
		m->q[w++] = m->q[i];
	}
	m->nr_q = w;
}

void cli_map_narrow(struct map_run *m)
{
	size_t w = 0;

	size_t ncmd = 0;

	for (size_t i = 0; i < m->nr_q; i++) {
		m->q[i].drop = 0;
		ncmd += m->q[i].cmd_range != 0;
	}
	/*
	 * The block layer names a failed request by its first sector: beside a driver's line
	 * of the same command it is that command's start, not the failing block. Only the
	 * commands' ranges are compared with the other lines: most logs have none.
	 */
	for (size_t i = 0; i < m->nr_q && ncmd; i++) {
		struct query *b = &m->q[i];

		if (!b->format || strcmp(b->format, "block-layer"))
			continue;
		for (size_t k = 0; k < m->nr_q; k++)
			if (m->q[k].cmd_range &&
			    strcmp(m->q[k].devpath, b->devpath) == 0 &&
			    m->q[k].offset == b->offset) {
				b->drop = 1;
				m->request_starts++;
				break;
			}
	}
	/* A command's range that holds a narrower line is explained by it. */
	for (size_t i = 0; i < m->nr_q; i++) {
		struct query *c = &m->q[i];

		if (!c->cmd_range)
			continue;
		for (size_t k = 0; k < m->nr_q; k++) {
			const struct query *e = &m->q[k];

			if (k != i && !e->drop && e->length < c->length &&
			    strcmp(e->devpath, c->devpath) == 0 && e->offset >= c->offset &&
			    e->offset + e->length <= c->offset + c->length) {
				c->drop = 2;
				m->narrowed++;
				break;
			}
		}
	}
	for (size_t i = 0; i < m->nr_q; i++) {
		if (m->q[i].drop)
			continue;
		m->q[i].vague = m->q[i].cmd_range;
		m->nr_vague += m->q[i].vague;
		m->q[w++] = m->q[i];
	}
	m->nr_q = w;
}

/* Return the open target for devpath (opened once), or NULL with why in its err. */
struct tgt *cli_map_target_for(struct map_run *m, const char *devpath, unsigned *dev_idx)
{
	struct tgt *n;
	int cls;

	for (size_t i = 0; i < m->nr_tg; i++)
		if (strcmp(m->tg[i].devpath, devpath) == 0) {
			*dev_idx = m->tg[i].dev_idx;
			return &m->tg[i];
		}
	n = realloc(m->tg, sizeof(*n) * (m->nr_tg + 1));
	if (!n)
		return NULL;
	m->tg = n;
	n = &m->tg[m->nr_tg++];
	memset(n, 0, sizeof(*n));
	snprintf(n->devpath, sizeof(n->devpath), "%s", devpath);
	if (map_target_open_device(devpath, &n->t, &n->dev_idx, n->err, sizeof(n->err),
				   &cls) == 0)
		n->open = 1;
	else
		n->err_class = cls;
	*dev_idx = n->dev_idx;
	return n;
}
