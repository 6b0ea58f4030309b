/*
 * mapping/damage/damage_itable.c - the inode table stage: the inodes stored in a damaged inode
 * table block (ext4) or inode chunk (XFS) become owners of their own.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "damage.h"
#include "fs.h"
#include "health.h"

#include "damage_int.h"

/*
 * Inodes stored in a damaged inode table block (ext4) or inode chunk (XFS): each
 * in-use one that a directory names becomes an owner of its own (MAP_OWNF_INODE, with its
 * paths), after the table's owner, so that the report says which files lost their inode.
 */

/* The inodes of inode table owner o: exactly in its bytes, or in the units they are read in. */
static int itable_inodes(struct map_target *fs, const struct map_owner *o, int whole_unit,
			 uint64_t *inos)
{
	const struct map_fs_ops *ops = map_target_ops(fs);

	if (!ops->unit_inodes)
		return 0;
	return ops->unit_inodes(fs, o->fs_offset, o->length, whole_unit, inos,
				ITABLE_MAX_PER_RANGE);
}

int map_damage_itables(struct map_damage *d, struct map_target *t)
{
	struct map_inode_paths *want = NULL;
	struct map_owner *v = NULL;
	size_t nwant = 0, nr = 0, cap = 0;
	uint64_t inos[ITABLE_MAX_PER_RANGE], exact[ITABLE_MAX_PER_RANGE];
	int ret = 0, nx;

	for (size_t i = 0; i < d->nr_owners && nwant < ITABLE_MAX_TOTAL; i++) {
		struct map_owner *o = &d->owners[i];
		struct map_target *fs = map_target_fs(t, o->fs_idx);
		int n;

		if (!map_damage_is_inode_table(o) || !fs ||
		    (!fs->mount_point[0] && !(map_target_ops(fs)->caps & MAP_FSC_RAW)))
			continue;
		n = itable_inodes(fs, o, 1, inos);
		if (n <= 0)
			continue;
		struct map_inode_paths *nw = realloc(want, sizeof(*nw) * (nwant + (size_t)n));

		if (!nw) {
			ret = -ENOMEM;
			goto out_free;
		}
		want = nw;
		for (int k = 0; k < n; k++) {
			memset(&want[nwant], 0, sizeof(want[nwant]));
			want[nwant].inode = inos[k];
			want[nwant].fs_idx = o->fs_idx;
			nwant++;
		}
	}
	if (!nwant)
		return 0;
	/* Which of them a directory names (free slots and unreachable inodes stay out). */
	for (size_t i = 0; i < nwant;) {
		struct map_target *fs = map_target_fs(t, want[i].fs_idx);
		size_t j = i;

		while (j < nwant && want[j].fs_idx == want[i].fs_idx)
			j++;
		/* Unmounted (MAP_FSC_RAW): no mount point to walk, the filesystem names them. */
		if (fs && (map_target_ops(fs)->caps & MAP_FSC_RAW))
			ret = map_target_ops(fs)->name_inodes(fs, want + i, j - i, NULL);
		else if (fs)
			map_paths_resolve_fs(fs, want + i, j - i, NULL);
		if (ret < 0)
			goto out_free;
		i = j;
	}
	for (size_t g = 0; g < d->nr_groups; g++) {
		size_t first = nr;

		for (size_t i = d->groups[g].first;
		     i < d->groups[g].first + d->groups[g].count; i++) {
			const struct map_owner *o = &d->owners[i];

			ret = map_damage_owners_append(&v, &nr, &cap, o);
			if (ret < 0)
				goto out_free;
			struct map_target *fs = map_target_fs(t, o->fs_idx);
			int n;

			if (!map_damage_is_inode_table(o) || !fs)
				continue;
			n = itable_inodes(fs, o, 1, inos);
			nx = itable_inodes(fs, o, 0, exact);
			for (int m = 0; m < n; m++) {
				const struct map_inode_paths *p = NULL;
				struct map_owner io = *o;

				int in_bad = 0;

				for (size_t k = 0; k < nwant && !p; k++)
					if (want[k].fs_idx == o->fs_idx && want[k].inode == inos[m])
						p = &want[k];
				for (int e = 0; e < nx; e++)
					in_bad |= exact[e] == inos[m];
				/*
				 * Free, or no directory names it: left out, unless its record is in
				 * the bad bytes and the filesystem says (without reading it) that it
				 * is in use: a lost file no walk could reach (below a damaged
				 * directory), listed by number.
				 */
				if ((!p || !p->nr_paths) &&
				    !(in_bad && map_target_ops(fs)->inode_in_use &&
				      map_target_ops(fs)->inode_in_use(fs, inos[m]) == 1))
					continue;
				io.flags |= MAP_OWNF_INODE | MAP_OWNF_INODE_NEAR;
				if (in_bad)
					io.flags &= ~MAP_OWNF_INODE_NEAR;
				io.inode = inos[m];
				io.meta_type = "inode";
				ret = map_damage_owners_append(&v, &nr, &cap, &io);
				if (ret < 0)
					goto out_free;
			}
		}
		d->groups[g].first = first;
		d->groups[g].count = nr - first;
	}
	map_damage_owners_install(d, &v, nr);
out_free:
	free(v);
	map_paths_free(want, nwant);
	free(want);
	return ret;
}
