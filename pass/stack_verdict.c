/*
 * pass/stack_verdict.c - verdicts of a member-level scan: each member error mapped up the
 * stack. Another copy (a mirror, or for RAID4/5/6 the rest of the stripe) read fine: the
 * redundancy is lost, no data is (its own list, exit bit 16, md's repair command for just
 * that chunk-aligned range; mediascan never writes). No copy reads: damage of the
 * filesystem device's range, named by the map stage as any damage. Parity has no owner: an
 * error there is lost redundancy of its stripe. For scan MEMBER_DISK only the disk was read:
 * each error's other copies are read there and then for its verdict, and its owners come
 * from the filesystem on top of the stack.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kio.h"
#include "pass_int.h"

static int leaf_of(const struct pass_stack *ps, const char *name)
{
	for (unsigned i = 0; i < ps->nr_leaf; i++)
		if (strcmp(ps->leaf[i], name) == 0)
			return (int)i;
	return -1;
}

/* 1 when a media error of errs[0..n) touches leaf name's [off, off + len). */
static int copy_failed(const struct pass_stack *ps, const struct scan_error *errs, size_t n,
		       const char *name, uint64_t off, uint64_t len)
{
	int d = leaf_of(ps, name);

	if (d < 0)
		return 1;			/* not read: not known to be good */
	for (size_t i = 0; i < n; i++)
		if (errs[i].dev_idx == (uint32_t)d && errs[i].offset < off + len &&
		    off < errs[i].offset + errs[i].length &&
		    scan_error_verdict(&errs[i]) == SCAN_V_DAMAGE)
			return 1;
	return 0;
}

/* md's repair of the member range under u's first md layer, chunk-aligned. */
static void repair_cmd(const struct map_stack_up *u, char *out, size_t len)
{
	out[0] = '\0';
	for (unsigned k = 1; k < u->nr_hops; k++) {
		const char *md = u->hop[k].name, *member = u->hop[k - 1].name;
		uint64_t doff = 0, chunk = 0, lo, hi;
		char attr[128];

		if (strncmp(u->hop[k].kind, "md-", 3))
			continue;
		snprintf(attr, sizeof(attr), "md/dev-%s/offset", member);
		kio_blk_attr_u64(NULL, md, attr, &doff);
		kio_blk_attr_u64(NULL, md, "md/chunk_size", &chunk);
		chunk = chunk ? chunk / 512 : 128;
		if (strcmp(u->hop[k].kind, "md-raid10") == 0) {
			lo = u->hop[k].offset / 512;		/* raid10 syncs array sectors */
		} else {
			lo = u->hop[k - 1].offset / 512;
			lo = lo > doff ? lo - doff : 0;		/* component sectors */
		}
		hi = lo + (u->length + 511) / 512;
		lo -= lo % chunk;
		hi = hi % chunk ? hi + chunk - hi % chunk : hi;
		snprintf(out, len, "echo %" PRIu64 " > /sys/block/%s/md/sync_min; echo %" PRIu64
			 " > /sys/block/%s/md/sync_max; echo repair > /sys/block/%s/md/sync_action"
			 "; when sync_action is idle again: echo 0 > /sys/block/%s/md/sync_min; "
			 "echo max > /sys/block/%s/md/sync_max", lo, md, hi, md, md, md, md);
		return;
	}
	for (unsigned k = 1; k < u->nr_hops; k++)
		if (strcmp(u->hop[k].kind, "dm-raid") == 0) {
			snprintf(out, len, "lvchange --syncaction repair on the LVM RAID LV of "
				 "/dev/%s", u->hop[k].name);
			return;
		}
}

static int cmp_err(const void *a, const void *b)
{
	const struct scan_error *x = a, *y = b;

	if (x->dev_idx != y->dev_idx)
		return x->dev_idx < y->dev_idx ? -1 : 1;
	if (x->offset != y->offset)
		return x->offset < y->offset ? -1 : 1;
	return x->length < y->length ? -1 : x->length > y->length;
}

static int rl_add(struct pass_stack *ps, const char *leaf, uint64_t off, uint64_t len,
		  int err, struct map_stack_up *u, int lost)
{
	struct pass_stack_rl *n = realloc(ps->rl, sizeof(*n) * (ps->nr_rl + 1));
	struct pass_stack_rl *e;

	if (!n)
		return -ENOMEM;
	ps->rl = n;
	e = &ps->rl[ps->nr_rl++];
	memset(e, 0, sizeof(*e));
	snprintf(e->member, sizeof(e->member), "/dev/%s", leaf);
	e->offset = off;
	e->length = len;
	e->err = err;
	e->u = u;
	e->lost = lost;
	e->top = -1;
	if (!u->parity && !u->unused && !u->unmappable && u->nr_hops) {
		e->has_fs = 1;
		e->fs_offset = u->hop[u->nr_hops - 1].offset;
	}
	repair_cmd(u, e->repair, sizeof(e->repair));
	/* the history's names: the member disk's WWN/serial, the array's UUID */
	if (map_stack_ident(NULL, leaf, e->member_id, sizeof(e->member_id)) < 0)
		snprintf(e->member_id, sizeof(e->member_id), "/dev/%.200s", leaf);
	map_stack_array_of(NULL, u, e->array, sizeof(e->array), e->array_uuid,
			   sizeof(e->array_uuid));
	return 0;
}

static int at_add(struct pass_stack *ps, const char *leaf, uint64_t off, uint64_t fs_off,
		  uint64_t len)
{
	struct pass_stack_at *n = realloc(ps->at, sizeof(*n) * (ps->nr_at + 1));

	if (!n)
		return -ENOMEM;
	ps->at = n;
	n += ps->nr_at++;
	snprintf(n->member, sizeof(n->member), "/dev/%s", leaf);
	n->offset = off;
	n->fs_offset = fs_off;
	n->length = len;
	return 0;
}

const struct pass_stack_at *pass_stack_where(const struct pass_stack *ps, uint64_t off)
{
	for (size_t i = 0; ps && i < ps->nr_at; i++)
		if (ps->at[i].fs_offset <= off && off < ps->at[i].fs_offset + ps->at[i].length)
			return &ps->at[i];
	return NULL;
}

/* 1 when bytes [off, off + len) of bottom device name read (O_DIRECT, 1 MiB at a time). */
static int copy_reads(const char *name, uint64_t off, uint64_t len)
{
	char path[MAP_STACK_NAME + 8];
	struct kio_bdev_info bi;
	uint64_t lbs = 512, p, end;
	void *buf = NULL;
	int fd, ok = 1;

	snprintf(path, sizeof(path), "/dev/%s", name);
	fd = kio_open_direct(path);
	if (fd < 0)
		return 0;
	if (kio_bdev_info(fd, &bi) == 0 && bi.logical_block_size)
		lbs = bi.logical_block_size;
	p = off - off % lbs;
	end = off + len;
	if (end % lbs)
		end += lbs - end % lbs;
	if (posix_memalign(&buf, 4096, 1u << 20)) {
		kio_close(fd);
		return 0;
	}
	for (; p < end && ok; p += 1u << 20) {
		size_t n = end - p < (1u << 20) ? (size_t)(end - p) : 1u << 20;

		ok = kio_pread(fd, buf, n, p) == (ssize_t)n;
	}
	free(buf);
	kio_close(fd);
	return ok;
}

/* How a copy is judged: by the scan's own errors on it, or read there and then. */
struct copy_judge {
	const struct pass_stack *ps;
	const struct scan_error *errs;	/* the scan's errors (read_now 0) */
	size_t n;
	int read_now;
};

/*
 * 1 when the data of u is still held by its other copies: a mirror that reads, or every
 * other member of a parity stripe (RAID6: all but one).
 */
static int copies_ok(const struct map_stack_up *u, const struct copy_judge *j)
{
	unsigned bad = 0, copies = 0, syndrome = 0, mirror = 0;

	for (unsigned c = 0; c < u->nr_copies; c++) {
		const struct map_stack_copy *cp = &u->copy[c];

		copies++;
		mirror += !strcmp(cp->role, "mirror");
		syndrome += !strcmp(cp->role, "syndrome");
		bad += j->read_now ? !copy_reads(cp->name, cp->offset, cp->length) :
		       copy_failed(j->ps, j->errs, j->n, cp->name, cp->offset, cp->length);
	}
	return copies && (mirror ? bad < copies : bad <= (syndrome ? 1u : 0u));
}

int pass_stack_verdicts(struct pass_stack *ps, struct scan_result *r)
{
	size_t n = r->nr_errors, nn = 0, cap = n * 2 + 8;
	struct scan_error *orig = r->errors, *out = malloc(sizeof(*out) * cap);
	int ret = 0;

	if (!out)
		return -ENOMEM;
	for (size_t i = 0; i < n && ret == 0; i++) {
		const struct scan_error *e = &orig[i];
		const char *leaf = e->dev_idx < ps->nr_leaf ? ps->leaf[e->dev_idx] : NULL;
		enum scan_verdict v = scan_error_verdict(e);
		uint64_t off = e->offset, left = e->length;

		if (!leaf || v == SCAN_V_OPERATIONAL) {
			struct scan_error c = *e;

			c.dev_idx = 0;		/* our own trouble: said on the top device */
			out[nn++] = c;
			continue;
		}
		while (left && ret == 0) {
			struct map_stack_up *u = malloc(sizeof(*u));
			struct copy_judge j = { .ps = ps, .errs = orig, .n = n };
			uint64_t piece;
			int ok;

			if (!u) {
				ret = -ENOMEM;
				break;
			}
			/* a thin block shared with snapshots: the way up to this filesystem */
			if (map_stack_up_via(NULL, leaf, off, left, ps->top, u) < 0 || !u->length) {
				map_stack_up_release(u);
				u->unmappable = 1;
				u->length = left;
			}
			piece = u->length < left ? u->length : left;
			ok = copies_ok(u, &j);
			if (v == SCAN_V_DAMAGE && (ok || u->parity || !u->nr_hops || u->unused ||
						   u->unmappable)) {
				ret = rl_add(ps, leaf, off, piece, e->err, u, !ok);
				u = NULL;
			} else if (!u->parity && !u->unused && !u->unmappable && u->nr_hops) {
				struct scan_error c = *e;

				c.dev_idx = 0;
				c.offset = u->hop[u->nr_hops - 1].offset;
				c.length = piece;
				if (at_add(ps, leaf, off, c.offset, piece) < 0) {
					ret = -ENOMEM;
					map_stack_up_free(u);
					break;
				}
				if (nn == cap) {
					struct scan_error *x = realloc(out, sizeof(*x) * cap * 2);

					if (!x) {
						ret = -ENOMEM;
						map_stack_up_free(u);
						break;
					}
					out = x;
					cap *= 2;
				}
				out[nn++] = c;
			} else {
				ps->nr_dropped++;	/* slow or transient in parity/unused space */
			}
			map_stack_up_free(u);
			off += piece;
			left -= piece;
		}
	}
	if (ret == 0 && ps->nr_loaded) {
		/* what an interrupted run of this pass stored: the top device's already */
		struct scan_error *x = realloc(out, sizeof(*x) * (nn + ps->nr_loaded));

		if (!x) {
			ret = -ENOMEM;
		} else {
			out = x;
			memcpy(out + nn, ps->loaded, sizeof(*x) * ps->nr_loaded);
			nn += ps->nr_loaded;
		}
	}
	if (ret < 0) {
		free(out);
		return ret;
	}
	if (nn)
		qsort(out, nn, sizeof(*out), cmp_err);
	/* both mirrors failing the same range give the same range of the top twice */
	size_t w = 0;

	for (size_t i = 0; i < nn; i++)
		if (!w || cmp_err(&out[w - 1], &out[i]))
			out[w++] = out[i];
	free(orig);
	r->errors = out;
	r->nr_errors = w;
	r->sealed = 0;
	return 0;
}

/*
 * scan MEMBER_DISK: the index in ps->tops of the filesystem on top device name, opened the
 * first time it is asked (t stays NULL when it is not mounted or cannot be opened); -1 when
 * the list is full or out of memory.
 */
static int top_index(struct pass_stack *ps, const char *name)
{
	struct pass_stack_top *n, *t;
	char err[256];

	for (unsigned i = 0; i < ps->nr_tops; i++)
		if (!strcmp(ps->tops[i].name, name))
			return (int)i;
	if (ps->nr_tops == PASS_STACK_OWNER_TOPS)
		return -1;
	n = realloc(ps->tops, sizeof(*n) * (ps->nr_tops + 1));
	if (!n)
		return -1;
	ps->tops = n;
	t = &ps->tops[ps->nr_tops];
	memset(t, 0, sizeof(*t));
	snprintf(t->name, sizeof(t->name), "%s", name);
	t->t = calloc(1, sizeof(*t->t));
	if (t->t && pass_stack_top_open(name, t->t, err, sizeof(err)) < 0) {
		char dev[MAP_STACK_NAME + 8];
		int cls;

		/* nothing mounts it (a VM's disk in a thin volume): the device itself, whose
		 * partition table and ext4 are read raw where they can be */
		snprintf(dev, sizeof(dev), "/dev/%s", name);
		if (map_target_open(dev, t->t, err, sizeof(err), &cls) < 0) {
			free(t->t);
			t->t = NULL;
		}
	}
	return (int)ps->nr_tops++;
}

/* The other volumes of a thin block (u->also) as e's shared owners, each mapped up to its
 * own filesystem. */
static int shared_add(struct pass_stack *ps, struct pass_stack_rl *e, uint64_t len)
{
	const struct map_stack_up *u = e->u;

	e->shared_more = u->also_more;
	if (!u->nr_also)
		return 0;
	e->shared = calloc(u->nr_also, sizeof(*e->shared));
	if (!e->shared)
		return -ENOMEM;
	for (unsigned i = 0; i < u->nr_also; i++) {
		struct pass_stack_shared *sh = &e->shared[e->nr_shared++];
		struct map_stack_up *w = malloc(sizeof(*w));
		const char *top;

		snprintf(sh->dev, sizeof(sh->dev), "%s", u->also[i].name);
		sh->offset = u->also[i].offset;
		sh->top = -1;
		if (!w)
			return -ENOMEM;
		if (map_stack_up(NULL, sh->dev, sh->offset, len, w) < 0 || !w->nr_hops ||
		    w->unmappable || w->unused) {
			snprintf(sh->why, sizeof(sh->why), "its way up cannot be read: no owners "
				 "named");
			map_stack_up_free(w);
			continue;
		}
		top = w->hop[w->nr_hops - 1].name;
		sh->fs_offset = w->hop[w->nr_hops - 1].offset;
		sh->top = top_index(ps, top);
		if (sh->top < 0 || !ps->tops[sh->top].t) {
			snprintf(sh->why, sizeof(sh->why), "/dev/%s is not mounted: its contents "
				 "are unknown", top);
			sh->top = -1;
		}
		map_stack_up_free(w);
	}
	return 0;
}

int pass_stack_member_verdicts(struct pass_stack *ps, const struct scan_result *r)
{
	int ret = 0;

	for (size_t i = 0; i < r->nr_errors && ret == 0; i++) {
		const struct scan_error *e = &r->errors[i];
		uint64_t off = e->offset, left = e->length;

		if (e->dev_idx != 0 || scan_error_verdict(e) != SCAN_V_DAMAGE)
			continue;
		while (left && ret == 0) {
			struct map_stack_up *u = malloc(sizeof(*u));
			struct copy_judge j = { .read_now = 1 };
			struct pass_stack_rl *rl;
			uint64_t piece;
			int ok;

			if (!u) {
				ret = -ENOMEM;
				break;
			}
			if (map_stack_up(NULL, ps->disk, off, left, u) < 0 || !u->length) {
				map_stack_up_release(u);
				u->unmappable = 1;
				u->length = left;
			}
			piece = u->length < left ? u->length : left;
			/* the other copies of just this range: were they good, nothing is lost */
			ok = copies_ok(u, &j);
			ret = rl_add(ps, ps->disk, off, piece, e->err, u, !ok);
			if (ret < 0) {
				map_stack_up_free(u);
				break;
			}
			/* the owners come from the filesystem on top of each range's stack (a
			 * volume's; every volume's of a block thin snapshots share) */
			rl = &ps->rl[ps->nr_rl - 1];
			rl->top = -1;
			if (rl->has_fs && u->nr_hops > 1) {
				rl->top = top_index(ps, u->hop[u->nr_hops - 1].name);
				if (rl->top < 0 || !ps->tops[rl->top].t)
					rl->top = -1;
			}
			if (rl->top < 0)
				rl->has_fs = 0;		/* no filesystem to name its owners */
			ret = shared_add(ps, rl, piece);
			off += piece;
			left -= piece;
		}
	}
	return ret;
}

/* scan MEMBER_DISK: the owners of each redundancy-lost range (and of the other volumes
 * sharing it) from the filesystem on top of it, one batch per filesystem. */
static int member_owners(struct pass_stack *ps, uint64_t *off, uint64_t *len)
{
	int ret = 0;

	for (unsigned k = 0; k < ps->nr_tops && ret == 0; k++) {
		struct pass_stack_top *tp = &ps->tops[k];
		size_t n = 0, g = 0;

		for (size_t i = 0; i < ps->nr_rl; i++) {
			const struct pass_stack_rl *e = &ps->rl[i];

			if (e->has_fs && e->top == (int)k) {
				off[n] = e->fs_offset;
				len[n++] = e->length;
			}
			for (unsigned s = 0; s < e->nr_shared; s++)
				if (e->shared[s].top == (int)k) {
					off[n] = e->shared[s].fs_offset;
					len[n++] = e->length;
				}
		}
		if (!n || !tp->t)
			continue;
		ret = map_damage_add_many(&tp->dmg, tp->t, 0, off, len, n);
		if (ret == 0)
			ret = map_damage_resolve(&tp->dmg, tp->t);
		for (size_t i = 0; ret == 0 && i < ps->nr_rl; i++) {
			struct pass_stack_rl *e = &ps->rl[i];

			if (e->has_fs && e->top == (int)k)
				map_damage_group(&tp->dmg, g++, &e->own_first, &e->own_count);
			for (unsigned s = 0; s < e->nr_shared; s++)
				if (e->shared[s].top == (int)k)
					map_damage_group(&tp->dmg, g++, &e->shared[s].own_first,
							 &e->shared[s].own_count);
		}
	}
	return ret;
}

int pass_stack_map(struct pass_stack *ps, struct pass_report *rep)
{
	size_t n = ps->nr_rl + ps->nr_cd * MAP_ROW_MAX_LEGS + 1;
	uint64_t *off, *len;
	size_t k = 0;
	int ret = 0;

	for (size_t i = 0; i < ps->nr_rl; i++)
		n += ps->rl[i].nr_shared;
	off = malloc(sizeof(*off) * n);
	len = malloc(sizeof(*len) * n);

	rep->stack = ps;
	/* what the interrupted runs of a resumed pass found is this pass's too */
	if (ps->nr_rl_earlier)
		rep->exit_bits |= PASS_EXIT_DEVICE;
	if (ps->nr_lost_earlier)
		rep->exit_bits |= PASS_EXIT_MEDIA;
	if (!off || !len) {
		ret = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < ps->nr_rl; i++) {
		/* redundancy lost: bit 16; no copy reads: the data is lost, bit 1 only */
		rep->exit_bits |= ps->rl[i].lost ? PASS_EXIT_MEDIA : PASS_EXIT_DEVICE;
		if ((ps->rl[i].u && ps->rl[i].u->unmappable) || ps->rl[i].shared_more)
			rep->exit_bits |= PASS_EXIT_OPERATIONAL;
		if (!ps->rl[i].has_fs || ps->member_plan)
			continue;
		off[k] = ps->rl[i].fs_offset;
		len[k++] = ps->rl[i].length;
	}
	/* copies that differ: bit 2, as protection information that does not match its data */
	for (size_t i = 0; i < ps->nr_cd; i++) {
		rep->exit_bits |= PASS_EXIT_INTEGRITY;
		for (unsigned t = 0; t < ps->cd[i].nr_top; t++) {
			off[k] = ps->cd[i].top_off[t];
			len[k++] = ps->cd[i].top_len[t];
		}
	}
	/* scan MEMBER_DISK: the target is the disk, the owners are the filesystems' on top */
	if (ps->member_plan && (ret = member_owners(ps, off, len)) < 0)
		goto out;
	if (k) {
		ret = map_damage_add_many(&ps->dmg, rep->t, 0, off, len, k);
		if (ret == 0)
			ret = map_damage_resolve(&ps->dmg, rep->t);
		size_t g = 0;

		for (size_t i = 0; ret == 0 && i < ps->nr_rl && !ps->member_plan; i++)
			if (ps->rl[i].has_fs)
				map_damage_group(&ps->dmg, g++, &ps->rl[i].own_first,
						 &ps->rl[i].own_count);
		for (size_t i = 0; ret == 0 && i < ps->nr_cd; i++)
			for (unsigned t = 0; t < ps->cd[i].nr_top; t++)
				map_damage_group(&ps->dmg, g++, &ps->cd[i].own_first[t],
						 &ps->cd[i].own_count[t]);
	}
out:
	free(off);
	free(len);
	return ret;
}
