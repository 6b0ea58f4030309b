/*
 * pass/stack_scan.c - a scan of a filesystem on md RAID / LVM / dm-crypt read at member
 * level: every planned range of the filesystem's device mapped down the stack to every copy
 * (and the parity of its stripe rows) on the disks or partitions at the bottom, read there
 * with O_RDONLY|O_DIRECT (md would serve a good mirror and rewrite the bad one, hiding the
 * latent error), all members in one scan so they are read in parallel. Afterwards each member
 * error is mapped up: when another copy (or the rest of the stripe) read fine the redundancy
 * is lost but no data ("redundancy lost", its own list and exit bit 16, with md's repair
 * command); only when no copy reads does it become damage of the filesystem's device range,
 * which the map stage names as usual. Checkpoints store the filesystem device's cursor, made
 * from the member ranges read in full; the stack's geometry is watched in stack_watch.c.
 * Kept whole: the source, its checkpoint cursor and the scan's set-up share one struct
 * stack_src; the row planning of --compare is one function here, its comparer apart in
 * stack_compare.c.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kio.h"
#include "pass_int.h"
#include "stack.h"
#include "stack_row.h"

#define PEND_MAX 1024
#define LEAF_LOCS (3 * MAP_MD_MAX_DISKS)
#define EXEC_COUNT_BATCH 256		/* member ranges asked at once by the count */
#define RECENT_ROWS 64

struct stack_src {
	struct scan_source inner;
	const char *top;
	struct pass_stack *ps;
	struct scan_range in[64];
	int nin, pos;
	uint64_t in_done;
	uint64_t slice;			/* at most this much of the plan mapped down at once */
	struct map_stack_leaf lv[LEAF_LOCS];
	struct scan_range pend[PEND_MAX];
	uint64_t pend_top[PEND_MAX];	/* the top offset of the slice that made each entry */
	unsigned npend, ppos;
	uint64_t slice_top;		/* the top offset of the slice being mapped down */
	uint64_t mapped_top;		/* every planned top byte below it is pending or given */
	int inner_done;			/* the top's plan is all mapped */
	uint64_t emitted;		/* member ranges given to the executor (their seq) */
	/* seq -> top offset: log[i].top for the ranges from log[i].seq on (both ascending) */
	struct top_mark { uint64_t seq, top; } *log;
	size_t nlog, log_head, cap_log;
	/* checkpoints: the pass's, given the top device's cursor */
	int (*ck)(const struct scan_checkpoint *c, void *arg);
	void *ck_arg;
	uint64_t last_cursor;		/* the last top cursor stored (or the resume's start) */
	/* the history's open errors of the top device, counted as read when mapped down */
	struct scan_watch *watch;
	size_t nr_watch;
	uint64_t last_start[SCAN_MAX_DEVICES], last_end[SCAN_MAX_DEVICES];
	int err;
	const char *bad;
	uint64_t geom_at;		/* CLOCK_MONOTONIC ns of the last geometry check, 0 never */
	int counting;			/* pass_stack_count: nothing is read, no geometry check */
	int geom_changed;
	/* compare: the row being planned, and the top ranges of the last parity rows' data
	 * legs (a row holds every data chunk at its offsets: the later chunks are planned) */
	struct map_row row;
	struct { uint64_t off, len; } recent[RECENT_ROWS];
	unsigned nr_recent, recent_pos;
};

/* Read the geometry again when the last check is older than a second (first call: now). */
static int geom_due(struct stack_src *s)
{
	if (pass_stack_geometry_due(s->ps, &s->geom_at) == 0)
		return 0;
	s->geom_changed = 1;
	return -ESTALE;
}

static int leaf_index(const struct pass_stack *ps, const char *name)
{
	for (unsigned i = 0; i < ps->nr_leaf; i++)
		if (strcmp(ps->leaf[i], name) == 0)
			return (int)i;
	return -1;
}

/* Add one leaf range to the pending list (merged with the last one of its device). */
static int pend_add(struct stack_src *s, unsigned d, uint64_t off, uint64_t len)
{
	uint32_t lbs = s->ps->devs[d].logical_block_size ? s->ps->devs[d].logical_block_size : 512;
	uint64_t end = off + len;

	off -= off % lbs;
	if (end % lbs)
		end += lbs - end % lbs;
	/* the same parity for consecutive chunks of a row: read once */
	if (off < s->last_end[d] && off >= s->last_start[d]) {
		if (end <= s->last_end[d])
			return 0;
		off = s->last_end[d];
	}
	for (unsigned i = s->npend; i-- > s->ppos;)
		if (s->pend[i].dev_idx == d) {
			if (s->pend[i].offset + s->pend[i].length == off &&
			    s->pend[i].length < s->slice) {
				s->pend[i].length += end - off;
				s->last_end[d] = end;
				return 0;
			}
			break;
		}
	if (s->npend == PEND_MAX)
		return -E2BIG;
	memset(&s->pend[s->npend], 0, sizeof(s->pend[0]));
	s->pend_top[s->npend] = s->slice_top;
	s->pend[s->npend].offset = off;
	s->pend[s->npend].length = end - off;
	s->pend[s->npend].dev_idx = d;
	s->npend++;
	s->last_start[d] = off;
	s->last_end[d] = end;
	return 0;
}

/* Log that the ranges from seq on belong to slices at top or above (when that changed). */
static int log_mark(struct stack_src *s, uint64_t seq, uint64_t top)
{
	if (s->nlog > s->log_head && s->log[s->nlog - 1].top == top)
		return 0;
	if (s->nlog == s->cap_log) {
		struct top_mark *l;

		if (s->log_head) {		/* drop what the checkpoints passed */
			memmove(s->log, s->log + s->log_head,
				(s->nlog - s->log_head) * sizeof(*s->log));
			s->nlog -= s->log_head;
			s->log_head = 0;
		}
		if (s->nlog == s->cap_log) {
			l = realloc(s->log, (s->cap_log ? s->cap_log * 2 : 256) * sizeof(*l));
			if (!l)
				return -ENOMEM;
			s->log = l;
			s->cap_log = s->cap_log ? s->cap_log * 2 : 256;
		}
	}
	s->log[s->nlog++] = (struct top_mark){ seq, top };
	return 0;
}

/*
 * The top device's cursor when the executor has read the first done member ranges in full:
 * the slice of the first range not read (every slice before it has all its ranges before
 * it, the log being in slice order), or, all given ranges read, the first top byte not given.
 */
static uint64_t top_cursor(struct stack_src *s, uint64_t done)
{
	if (done >= s->emitted) {
		if (s->ppos < s->npend)
			return s->pend_top[s->ppos];
		return s->inner_done ? UINT64_MAX : s->mapped_top;
	}
	while (s->log_head + 1 < s->nlog && s->log[s->log_head + 1].seq <= done)
		s->log_head++;
	return s->log_head < s->nlog ? s->log[s->log_head].top : s->mapped_top;
}

/* The history's open errors inside [off, off + len) of the top device: counted as read. */
static void watch_count(struct stack_src *s, uint64_t off, uint64_t len)
{
	for (size_t i = 0; i < s->nr_watch; i++) {
		struct scan_watch *w = &s->watch[i];
		uint64_t a = w->offset > off ? w->offset : off;
		uint64_t b = w->offset + w->length < off + len ? w->offset + w->length : off + len;

		if (w->dev_idx == 0 && a < b)
			w->clean_bytes += b - a;
	}
}

/*
 * Compare: plan top bytes [off, off + len) as the redundancy row holding them (every leg, for
 * RAID4/5/6 the whole stripe row at those offsets) and register it with the comparer. Return
 * 1 with *done the top bytes planned (or already planned by an earlier row), 0 when the piece
 * has no row to compare (planned as before), -errno.
 */
static int row_pend(struct stack_src *s, uint64_t off, uint64_t len, uint64_t *done)
{
	struct map_row *row = &s->row;
	int dev[MAP_ROW_MAX_LEGS], k;

	for (unsigned i = 0; i < s->nr_recent; i++)
		if (off >= s->recent[i].off && off < s->recent[i].off + s->recent[i].len) {
			*done = s->recent[i].off + s->recent[i].len - off;
			if (*done > len)
				*done = len;
			return 1;
		}
	k = map_stack_row(NULL, s->top, off, len, row, done);
	if (k <= 0 || !*done)
		return 0;
	for (unsigned i = 0; i < row->nr_legs; i++) {
		dev[i] = leaf_index(s->ps, row->leg[i].name);
		if (dev[i] < 0)
			return 0;
	}
	for (unsigned i = 0; i < row->nr_legs; i++)
		if (pend_add(s, (unsigned)dev[i], row->leg[i].offset, row->leg[i].length) < 0)
			return -E2BIG;
	if (row->kind != MAP_ROW_MIRROR)
		for (unsigned i = 0; i < row->nr_legs; i++) {
			if (row->leg[i].top_offset == UINT64_MAX)
				continue;
			s->recent[s->recent_pos].off = row->leg[i].top_offset;
			s->recent[s->recent_pos].len = row->leg[i].length;
			s->recent_pos = (s->recent_pos + 1) % RECENT_ROWS;
			if (s->nr_recent < RECENT_ROWS)
				s->nr_recent++;
		}
	if (!s->counting && pass_stack_cmp_row(s->ps, row, dev) < 0)
		return -ENOMEM;
	return 1;
}

static int stack_next(void *arg, struct scan_range *out, unsigned max)
{
	struct stack_src *s = arg;
	unsigned n = 0;

	while (n < max) {
		if (s->ppos < s->npend) {
			if (log_mark(s, s->emitted, s->pend_top[s->ppos]) < 0) {
				s->err = -ENOMEM;
				return -ENOMEM;
			}
			s->emitted++;
			out[n++] = s->pend[s->ppos++];
			continue;
		}
		s->npend = s->ppos = 0;
		/* before member I/O is planned from the stack: is it still the stack we opened? */
		if (!s->counting && geom_due(s) < 0) {
			s->err = -ESTALE;
			return -ESTALE;
		}
		/* refill: map input ranges down until enough is pending */
		while (s->npend < PEND_MAX - LEAF_LOCS && s->npend < 256) {
			const struct scan_range *r;
			uint64_t done, len;
			int k;

			if (s->pos >= s->nin) {
				s->nin = s->inner.next(s->inner.arg, s->in, 64);
				s->pos = 0;
				s->in_done = 0;
				if (s->nin < 0) {
					s->err = s->nin;
					return n ? (int)n : s->nin;
				}
				if (s->nin == 0) {
					s->inner_done = 1;
					break;
				}
			}
			r = &s->in[s->pos];
			if (r->dev_idx != 0) {		/* an external log: read it as it is */
				s->pos++;
				continue;
			}
			/* a slice at a time, so every copy of it is pending next to the others */
			len = r->length - s->in_done;
			if (len > s->slice)
				len = s->slice;
			s->slice_top = r->offset + s->in_done;
			k = s->ps->compare ? row_pend(s, s->slice_top, len, &done) : 0;
			if (k < 0) {
				s->err = k;
				return -EIO;
			}
			k = k ? 0 : map_stack_down(NULL, s->top, r->offset + s->in_done, len, s->lv,
						   LEAF_LOCS, &done, &s->bad);
			if (k < 0) {
				s->err = k;
				return -EIO;
			}
			for (int i = 0; i < k; i++) {
				int d = leaf_index(s->ps, s->lv[i].name);

				if (d < 0) {
					s->err = -ENODEV;
					return -EIO;
				}
				if (pend_add(s, (unsigned)d, s->lv[i].offset, s->lv[i].length) < 0) {
					s->err = -E2BIG;
					return -EIO;
				}
			}
			if (s->nr_watch)
				watch_count(s, r->offset + s->in_done, done ? done : len);
			s->in_done += done ? done : len;
			s->mapped_top = r->offset + s->in_done;
			if (s->in_done >= r->length) {
				s->pos++;
				s->in_done = 0;
			}
		}
		if (!s->npend)
			break;
	}
	return (int)n;
}

/* The first layer of the tree that map_stack_down cannot go through, or NULL. */
static const struct map_stack_node *unreadable_layer(const struct map_stack_node *n)
{
	static const char *const ok[] = { "disk", "partition", "md-linear", "md-raid0",
					  "md-raid1", "md-raid4", "md-raid5", "md-raid6",
					  "md-raid10", "dm-linear", "dm-striped", "dm-crypt",
					  "dm-multipath", "dm-flakey", "dm-delay", "dm-raid", "dm-thin",
					  "dm-thin-pool", NULL };
	unsigned i;

	for (i = 0; ok[i] && strcmp(ok[i], n->kind); i++)
		;
	if (!ok[i])
		return n;
	for (i = 0; i < n->nr_below; i++) {
		const struct map_stack_node *b = unreadable_layer(&n->below[i]);

		if (b)
			return b;
	}
	return NULL;
}

int pass_stack_open(struct pass_stack *ps, const struct map_target *t, char *err, size_t len)
{
	struct map_stack_node *tree = NULL;
	const struct map_stack_node *bad;
	int n, ret;

	memset(ps, 0, sizeof(*ps));
	for (unsigned i = 0; i < SCAN_MAX_DEVICES; i++)
		ps->devs[i].fd = -1;
	if (!t->nr_devices || !t->devices[0].info.name[0])
		return 0;
	ret = map_stack_tree(NULL, t->devices[0].info.name, &tree);
	if (ret < 0)
		return 0;
	if (!tree->nr_below || !strcmp(tree->kind, "disk") || (!strcmp(tree->kind, "partition") &&
							   !tree->below[0].nr_below)) {
		map_stack_tree_free(tree);
		return 0;			/* not stacked */
	}
	bad = unreadable_layer(tree);
	if (bad && strcmp(bad->kind, "dm-raid")) {
		/* a layer that cannot be mapped (thin, cache, snapshot, ...): what is read at the
		 * top is not every copy and errors there have no member sector: exit bit 4 */
		ps->unmappable = 1;
		snprintf(ps->bad_name, sizeof(ps->bad_name), "%s", bad->name);
		snprintf(ps->bad_kind, sizeof(ps->bad_kind), "%s", bad->kind);
		snprintf(ps->note, sizeof(ps->note), "unmappable: /dev/%s (%s) under /dev/%.60s "
			 "cannot be mapped to its disks: read at the top only, not every copy; "
			 "--top-only accepts that", bad->name, bad->kind, t->devices[0].info.name);
		map_stack_tree_free(tree);
		return 0;
	}
	if (bad) {
		snprintf(ps->note, sizeof(ps->note), "note: /dev/%.60s reads as md/dm serve it, not every "
			 "copy: member-level reading does not go through /dev/%s (%s)",
			 t->devices[0].info.name, bad->name, bad->kind);
		map_stack_tree_free(tree);
		return 0;
	}
	n = map_stack_leaves(tree, ps->leaf, SCAN_MAX_DEVICES);
	map_stack_tree_free(tree);
	if (n <= 0)
		return 0;
	{
		/* a layer whose geometry cannot be followed down (a dm-raid raid1 with a data
		 * offset, raid0 with zones): read at the top as md/dm serve it, said */
		struct map_stack_leaf lv[LEAF_LOCS];
		const char *bk = NULL;
		uint64_t done;

		if (map_stack_down(NULL, t->devices[0].info.name, 0, 4096, lv, LEAF_LOCS, &done,
				   &bk) == -EOPNOTSUPP) {
			snprintf(ps->note, sizeof(ps->note), "note: /dev/%.60s reads as md/dm serve "
				 "it, not every copy: member-level reading does not go through a "
				 "layer of kind %s", t->devices[0].info.name, bk ? bk : "?");
			return 0;
		}
	}
	ps->nr_leaf = (unsigned)n;
	ps->top_ndevs = t->nr_devices;
	snprintf(ps->top, sizeof(ps->top), "%s", t->devices[0].info.name);
	for (unsigned i = 0; i < ps->nr_leaf; i++) {
		struct kio_bdev_info bi;
		int fd;

		char leaf[sizeof(ps->leaf[0])];

		/* A copy: GCC (-O2 with ASan) cannot prove ps->leaf[i] and ps->path[i] apart. */
		memcpy(leaf, ps->leaf[i], sizeof(leaf));
		leaf[sizeof(leaf) - 1] = '\0';
		snprintf(ps->path[i], sizeof(ps->path[i]), "/dev/%s", leaf);
		fd = kio_open_direct(ps->path[i]);
		if (fd < 0 || kio_bdev_info(fd, &bi) < 0) {
			snprintf(err, len, "cannot open member %s (O_DIRECT): %s", ps->path[i],
				 strerror(fd < 0 ? -fd : EIO));
			if (fd >= 0)
				kio_close(fd);
			pass_stack_close(ps);
			return -ENODEV;
		}
		ps->devs[i].fd = fd;
		ps->devs[i].logical_block_size = bi.logical_block_size;
		ps->devs[i].size_bytes = bi.size_bytes;
		ps->devs[i].max_io_bytes = (uint64_t)bi.max_sectors_kb * 1024;
		ps->devs[i].max_segments = bi.max_segments;
		ps->devs[i].path = ps->path[i];
	}
	ps->active = 1;
	/* the geometry the plan is made for: a change before or during the reads stops them */
	pass_stack_geometry_mark(ps);
	return 1;
}

void pass_stack_close(struct pass_stack *ps)
{
	for (unsigned i = 0; i < ps->nr_leaf; i++)
		if (ps->devs[i].fd >= 0)
			kio_close(ps->devs[i].fd);
	for (size_t i = 0; i < ps->nr_rl; i++) {
		map_stack_up_free(ps->rl[i].u);
		free(ps->rl[i].shared);
	}
	free(ps->rl);
	free(ps->at);
	free(ps->mr);
	free(ps->meta);
	free(ps->loaded);
	pass_stack_cmp_close(ps);
	free(ps->cd);
	map_damage_free(&ps->dmg);
	for (unsigned i = 0; i < ps->nr_tops; i++) {
		map_damage_free(&ps->tops[i].dmg);
		if (ps->tops[i].t) {
			map_target_close(ps->tops[i].t);
			free(ps->tops[i].t);
		}
	}
	free(ps->tops);
	memset(ps, 0, sizeof(*ps));
}

int pass_stack_count(struct pass_stack *ps, struct map_target *t, const struct map_plan_opts *po,
		     uint32_t io_size, uint64_t *planned)
{
	struct stack_src *s = calloc(1, sizeof(*s));
	struct scan_range *out = calloc(EXEC_COUNT_BATCH, sizeof(*out));
	struct pass_plan pp;
	int n, ret = -ENOMEM;

	*planned = 0;
	memset(&pp, 0, sizeof(pp));
	if (!s || !out)
		goto out;
	ret = pass_plan_open(&pp, t, po, &s->inner);
	if (ret < 0)
		goto out;
	s->top = ps->top;
	s->ps = ps;
	s->counting = 1;
	s->slice = scan_io_size(ps->devs, ps->nr_leaf, io_size);	/* as the scan maps it */
	while ((n = stack_next(s, out, EXEC_COUNT_BATCH)) > 0)
		for (int i = 0; i < n; i++)
			*planned += scan_range_planned_bytes(&out[i], out[i].offset, out[i].length);
	ret = n < 0 ? n : 0;
	pass_plan_close(&pp);
out:
	if (s)
		free(s->log);
	free(s);
	free(out);
	return ret;
}

/*
 * A checkpoint of the member reads, stored as the top device's: its cursor from the ranges
 * read in full, no errors. A member error's verdict (redundancy lost, or damage of the top)
 * needs its other copies, known only at the end: from the first error on, the cursor stored
 * stays where it was (after SIGKILL the run reads from there again and finds the error again;
 * a stop that ends the run stores the errors and its real cursor, see pass.c's map stage).
 */
static int stack_checkpoint(const struct scan_checkpoint *c, void *arg)
{
	struct stack_src *s = arg;
	struct pass_stack *ps = s->ps;
	uint64_t cur[SCAN_MAX_DEVICES] = { 0 }, top = top_cursor(s, c->ranges_done);
	struct scan_checkpoint t = *c;

	if (top < s->last_cursor)
		top = s->last_cursor;		/* nothing read yet past where it resumed */
	ps->end_cursor = top;
	if (c->nr_new_errors && !ps->held) {
		ps->held = 1;
		ps->held_cursor = s->last_cursor;
	}
	cur[0] = ps->held ? ps->held_cursor : top;
	t.cursor = cur;
	t.nr_devs = ps->top_ndevs ? ps->top_ndevs : 1;
	t.new_errors = NULL;
	t.nr_new_errors = 0;
	if (!ps->held)
		s->last_cursor = top;
	return s->ck(&t, s->ck_arg);
}

int pass_stack_scan(struct pass_stack *ps, struct scan_source *src, struct scan_opts *so,
		    struct scan_result *r, char *err, size_t len)
{
	struct stack_src *s = calloc(1, sizeof(*s));
	uint64_t start_cursor[SCAN_MAX_DEVICES];
	struct scan_source wrap;
	int ret;

	if (!s)
		return -ENOMEM;
	s->inner = *src;
	s->top = ps->top;
	s->ps = ps;
	wrap.next = stack_next;
	wrap.arg = s;
	/* plain reads of the members: no drive-side method */
	so->vfy = NULL;
	so->vfy_isolate = NULL;
	memset(so->vfy_devs, 0, sizeof(so->vfy_devs));
	/* checkpoints of the top's cursor, made from the member ranges read in full */
	s->last_cursor = so->start_cursor[0];
	s->mapped_top = so->start_cursor[0];
	ps->end_cursor = ps->held_cursor = so->start_cursor[0];
	ps->held = 0;
	if (so->checkpoint) {
		s->ck = so->checkpoint;
		s->ck_arg = so->checkpoint_arg;
		so->checkpoint = stack_checkpoint;
		so->checkpoint_arg = s;
	}
	/* the top's open errors: read when mapped down (the executor's watches are members') */
	s->watch = so->watch;
	s->nr_watch = so->nr_watch;
	so->watch = NULL;
	so->nr_watch = 0;
	/* errors a resumed pass loaded are the top device's: apart from the members' */
	ps->loaded = r->errors;
	ps->nr_loaded = r->nr_errors;
	r->errors = NULL;
	r->nr_errors = r->sealed = 0;
	/* the members (and their disks) are what the latency pacing watches: the top device's
	 * views name other devices, and with none the pacing's first probe never ends */
	so->nr_views = 0;
	for (unsigned i = 0; i < ps->nr_leaf; i++) {
		char disk[KIO_DISK_NAME_LEN];
		const char *names[2] = {
			ps->leaf[i],
			kio_blk_parent(NULL, ps->leaf[i], disk, sizeof(disk)) == 0 ? disk : NULL,
		};

		for (unsigned k = 0; k < 2 && names[k]; k++)
			pass_scan_view_add(so, names[k], i);
	}
	/* the members' cursors start at 0 (the top's is kept for the settling of the pass) */
	memcpy(start_cursor, so->start_cursor, sizeof(start_cursor));
	memset(so->start_cursor, 0, sizeof(so->start_cursor));
	so->io_size = scan_io_size(ps->devs, ps->nr_leaf, so->io_size);
	/*
	 * The executor reads its ranges in order, each whole before the next: a range of one
	 * member of 64 MiB kept all reads in flight on that member while the others idled (a
	 * RAID1 scan took two members' time). Ranges of one read each, the copies of a slice of
	 * the plan next to each other, spread the reads in flight over the members.
	 */
	s->slice = so->io_size;
	if (ps->compare) {
		ret = pass_stack_cmp_open(ps);
		if (ret < 0) {
			free(s);
			return ret;
		}
		so->on_data = pass_stack_cmp_data;
		so->data_arg = ps->cmp;
	}
	ret = pass_stack_run_watched(ps, ps->devs, ps->nr_leaf, &wrap, so, r, &s->geom_changed);
	so->on_data = NULL;
	so->data_arg = NULL;
	/* the rows that differed: read again before they are called copies that differ */
	if (ret == 0 && !s->geom_changed && !s->err && ps->cmp) {
		ret = pass_stack_cmp_settle(ps);
		if (ret < 0)
			snprintf(err, len, "comparing the copies: %s", strerror(-ret));
	}
	memcpy(so->start_cursor, start_cursor, sizeof(start_cursor));
	if (s->ck) {
		so->checkpoint = s->ck;
		so->checkpoint_arg = s->ck_arg;
	}
	so->watch = s->watch;
	so->nr_watch = s->nr_watch;
	/* a change during the last reads: what was read may not be what the plan meant */
	if (ret == 0 && !s->geom_changed && !s->err && pass_stack_geometry_check(ps) < 0)
		s->geom_changed = 1;
	if (s->geom_changed) {
		pass_stack_geometry_fatal(ps, r);
		free(s->log);
		free(s);
		return ret < 0 ? ret : 0;
	}
	if (s->err) {
		snprintf(err, len, "mapping the plan down the stack failed: %s%s%s%s%s",
			 strerror(-s->err), s->bad ? " at a layer of kind " : "",
			 s->bad ? s->bad : "", map_thin_why()[0] ? ": " : "", map_thin_why());
		ret = s->err;
	}
	free(s->log);
	free(s);
	return ret;
}
