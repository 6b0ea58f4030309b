/*
 * cli/map_batch.c - `mediascan map`'s batch: queries on a device under md or dm mapped up the
 * stack to the device the filesystem sits on, then every query looked up through its target
 * with the pass's map stage (pass_map_batch, one batch per device, then one resolve per
 * target), the exit bits set from what was found.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "cli.h"

#include "map_int.h"

/* Kernel name of a device path (/dev/mapper/vg-lv -> dm-3), or -errno; the last one is kept
 * (a batch asks about the same few devices a thousand times). */
static int kernel_name(const char *devpath, char *name, size_t len)
{
	static char last_path[PATH_MAX], last_name[64];
	char real[PATH_MAX];
	const char *b;

	if (last_name[0] && !strcmp(devpath, last_path)) {
		b = last_name;
	} else {
		if (!realpath(devpath, real))
			return -errno;
		b = strrchr(real, '/');
		b = b ? b + 1 : real;
		if (strlen(devpath) < sizeof(last_path) && strlen(b) < sizeof(last_name)) {
			snprintf(last_path, sizeof(last_path), "%s", devpath);
			snprintf(last_name, sizeof(last_name), "%s", b);
		}
	}
	if (strlen(b) >= len)
		return -ENAMETOOLONG;
	snprintf(name, len, "%s", b);
	return 0;
}

/* Append q to *v (n, cap). */
static int push_query(struct query **v, size_t *n, size_t *cap, const struct query *q)
{
	if (*n == *cap) {
		size_t c = *cap ? *cap * 2 : 64;
		struct query *nv = realloc(*v, sizeof(*nv) * c);

		if (!nv)
			return -ENOMEM;
		*v = nv;
		*cap = c;
	}
	(*v)[(*n)++] = *q;
	return 0;
}

/*
 * A thin pool's block shared by other volumes (snapshots): one more query per volume, mapped
 * up from it to its own top, for the same asked range (its owners are the block's owners too).
 */
static int shared_queries(struct query **v, size_t *n, size_t *cap, const struct query *p,
			  const struct map_stack_up *u, unsigned *exit_bits,
			  struct map_stack_keep *keep)
{
	int ret = 0;

	for (unsigned i = 0; i < u->nr_also && ret == 0; i++) {
		struct map_stack_up *w = malloc(sizeof(*w));
		struct query s = *p;

		if (!w)
			return -ENOMEM;
		int r = map_stack_up_kept(keep, NULL, u->also[i].name, u->also[i].offset,
					  u->length, w);

		if (r < 0 || !w->nr_hops) {
			/* this volume's owners cannot be named: said, never left out */
			map_stack_up_release(w);
			w->unmappable = 1;
			snprintf(w->bad_name, sizeof(w->bad_name), "%s", u->also[i].name);
			snprintf(w->bad_kind, sizeof(w->bad_kind), "dm-thin");
			snprintf(w->bad_reason, sizeof(w->bad_reason), "a volume sharing the block: "
				 "its way up cannot be read (%s)", strerror(r < 0 ? -r : ENODEV));
		}
		w->nr_also = 0;			/* the first answer lists them */
		w->also_more = 0;
		s.stk = w;
		s.no_owner = w->unmappable || w->parity || w->unused;
		if (w->unmappable)
			*exit_bits |= REPORT_EXIT_OPERATIONAL;
		if (!s.no_owner) {
			cli_map_copy_dev(s.devpath, sizeof(s.devpath),
					 w->hop[w->nr_hops - 1].name);
			s.offset = w->hop[w->nr_hops - 1].offset;
		}
		ret = push_query(v, n, cap, &s);
		if (ret < 0)
			map_stack_up_free(w);
	}
	return ret;
}

/*
 * Queries on devices under md or dm (a member disk, its partition, an md array under LVM):
 * each mapped up the stack to the device the filesystem sits on, piece by piece (a range may
 * cross chunks), with the other copies kept for the answer. Sorted, neighbours go up the same
 * way: a walk is kept for the next (map_stack_up_kept), the volumes sharing a block too.
 */
static int stack_queries(struct map_run *m)
{
	struct map_stack_keep *keep = calloc(2, sizeof(*keep));
	struct query *v = NULL;
	size_t n = 0, cap = 0;
	char name[64];
	int ret = 0, stacked = 0;

	if (!keep)
		return -ENOMEM;
	for (size_t i = 0; i < m->nr_q && ret == 0; i++) {
		struct query *q = &m->q[i];
		uint64_t off = q->offset, left = q->length;

		/* sorted by device: its name and whether it is stacked asked once a run */
		if (i == 0 || strcmp(q->devpath, m->q[i - 1].devpath))
			stacked = kernel_name(q->devpath, name, sizeof(name)) == 0 &&
				  map_stack_is_stacked(NULL, name);
		if (!stacked) {
			ret = push_query(&v, &n, &cap, q);
			continue;
		}
		while (left && ret == 0) {
			struct map_stack_up *u = malloc(sizeof(*u));
			struct query p = *q;

			if (!u) {
				ret = -ENOMEM;
				break;
			}
			ret = map_stack_up_kept(&keep[0], NULL, name, off, left, u);
			if (ret < 0) {
				snprintf(u->bad_name, sizeof(u->bad_name), "%s", name);
				snprintf(u->bad_kind, sizeof(u->bad_kind), "unknown");
				snprintf(u->bad_reason, sizeof(u->bad_reason),
					 "reading the stack failed: %s", strerror(-ret));
				u->unmappable = 1;
				u->nr_hops = 0;
				u->length = left;
				ret = 0;
			}
			if (!u->length || u->length > left)
				u->length = left;
			cli_map_copy(p.asked_dev, sizeof(p.asked_dev), q->devpath);
			p.asked_off = off;
			p.length = u->length;
			p.stk = u;
			if (u->unmappable || u->parity || u->unused || !u->nr_hops) {
				p.no_owner = 1;
				p.offset = off;
			} else {
				cli_map_copy_dev(p.devpath, sizeof(p.devpath),
						 u->hop[u->nr_hops - 1].name);
				p.offset = u->hop[u->nr_hops - 1].offset;
			}
			if (u->unmappable || u->also_more)
				m->exit_bits |= REPORT_EXIT_OPERATIONAL;
			ret = push_query(&v, &n, &cap, &p);
			if (ret < 0)
				map_stack_up_free(u);
			else
				ret = shared_queries(&v, &n, &cap, &p, u, &m->exit_bits,
						     &keep[1]);
			off += u->length;
			left -= u->length;
		}
	}
	map_stack_keep_release(&keep[0]);
	map_stack_keep_release(&keep[1]);
	free(keep);
	if (ret < 0) {
		for (size_t i = 0; i < n; i++)
			if (v[i].stk && (i >= m->nr_q || v[i].stk != m->q[i].stk))
				map_stack_up_free(v[i].stk);
		free(v);
		return ret;
	}
	free(m->q);
	m->q = v;
	m->nr_q = n;
	m->cap_q = cap;
	if (m->nr_q)
		qsort(m->q, m->nr_q, sizeof(*m->q), cli_map_cmp_query);
	return 0;
}

/* Map every query through its target: owners (nearby ranges in one GETFSMAP pass), then
 * one resolve per target. */
int cli_map_all(struct map_run *m)
{
	uint32_t *dev = malloc(sizeof(*dev) * (m->nr_q + 1));
	uint64_t *off = malloc(sizeof(*off) * (m->nr_q + 1));
	uint64_t *len = malloc(sizeof(*len) * (m->nr_q + 1));
	int ret = 0;

	if (!dev || !off || !len) {
		ret = -ENOMEM;
		goto out_free;
	}
	cli_map_dedup(m);
	if (m->from_log)
		cli_map_narrow(m);
	ret = stack_queries(m);
	if (ret < 0)
		goto out_free;
	free(off);
	free(len);
	off = malloc(sizeof(*off) * (m->nr_q + 1));
	len = malloc(sizeof(*len) * (m->nr_q + 1));
	if (!off || !len) {
		ret = -ENOMEM;
		goto out_free;
	}
	for (size_t i = 0; i < m->nr_q; i++) {
		struct query *q = &m->q[i];
		unsigned dev_idx = 0;
		struct tgt *tg;

		if (q->no_owner)
			continue;
		cli_map_check_stale(m, q);
		if (q->stale[0]) {		/* not mapped onto what is there now */
			m->nr_stale++;
			continue;
		}
		tg = cli_map_target_for(m, q->devpath, &dev_idx);

		if (!tg) {
			ret = -ENOMEM;
			goto out_free;
		}
		if (tg->open) {
			q->tgt = (int)(tg - m->tg);
			q->dev_idx = dev_idx;
		}
	}
	/* Queries are sorted by device: each run of one device is one batch. */
	for (size_t a = 0; a < m->nr_q;) {
		size_t b = a;
		struct tgt *tg;

		size_t n = 0, first = SIZE_MAX;

		while (b < m->nr_q && strcmp(m->q[b].devpath, m->q[a].devpath) == 0)
			b++;
		for (size_t i = a; i < b; i++)
			if (m->q[i].tgt >= 0 && first == SIZE_MAX)
				first = i;
		if (first == SIZE_MAX) {	/* not open, or every line stale */
			a = b;
			continue;
		}
		tg = &m->tg[m->q[first].tgt];
		for (size_t i = a; i < b; i++) {
			if (m->q[i].tgt < 0)
				continue;
			dev[n] = m->q[first].dev_idx;
			off[n] = m->q[i].offset;
			len[n] = m->q[i].length;
			m->q[i].group = tg->d.nr_groups + n;
			n++;
		}
		ret = pass_map_batch(&tg->d, &tg->t, dev, off, len, n);
		if (ret < 0) {
			snprintf(tg->err, sizeof(tg->err), "looking up owners on %s: %s",
				 m->q[a].devpath, strerror(-ret));
			m->exit_bits |= REPORT_EXIT_OPERATIONAL;
			ret = 0;
		}
		tg->mapped = 1;
		a = b;
	}
	for (size_t k = 0; k < m->nr_tg; k++) {
		struct tgt *tg = &m->tg[k];

		if (!tg->open || !tg->mapped)
			continue;
		ret = map_damage_resolve(&tg->d, &tg->t);
		if (ret < 0) {
			snprintf(tg->err, sizeof(tg->err), "naming the owners on %s failed: %s",
				 tg->devpath, strerror(-ret));
			m->exit_bits |= REPORT_EXIT_OPERATIONAL;
			ret = 0;
		}
		/* a filesystem mediascan cannot map (btrfs) holds the range: not answered */
		if (tg->t.foreign_fs[0])
			m->exit_bits |= REPORT_EXIT_OPERATIONAL;
		/* a failed range the kernel logged is damage; a range looked up is only owned */
		if ((tg->d.nr_files || tg->d.nr_meta) && m->from_log)
			m->exit_bits |= REPORT_EXIT_MEDIA;
	}
out_free:
	free(dev);
	free(off);
	free(len);
	return ret;
}
