/*
 * mapping/damage/damage_int.h - what damage.c's stages share: the owner table's helpers and the
 * stages themselves, run in order by map_damage_resolve. Not for use outside mapping/.
 */
#ifndef MEDIASCAN_DAMAGE_INT_H
#define MEDIASCAN_DAMAGE_INT_H

#include "damage.h"

/*
 * Which offset space a pending owner's range is in: the data device, the XFS realtime
 * device, or another (an external log: nothing to index there). Offsets of different
 * devices must never meet in one index.
 */
enum { SPACE_DATA, SPACE_RT, SPACE_OTHER };

#define ITABLE_MAX_PER_RANGE 128
#define ITABLE_MAX_TOTAL 4096

/* Return 0 after appending owner o to *v (nr, cap), or -ENOMEM. */
int map_damage_owners_append(struct map_owner **v, size_t *nr, size_t *cap,
			     const struct map_owner *o);
/* Return the offset space (SPACE_*) of owner o's range on target t. */
/* Make v[0..nr) d's owner list (the old one freed); *v becomes NULL. */
void map_damage_owners_install(struct map_damage *d, struct map_owner **v, size_t nr);
int map_damage_owner_space(const struct map_target *t, const struct map_owner *o);
/* Return 1 when owner o is an inode table block or inode chunk, else 0. */
int map_damage_is_inode_table(const struct map_owner *o);
/* Return 0 after noting the bad ranges and tainting the inodes whose metadata is there, or
 * -errno. */
int map_damage_mark_bad(struct map_damage *d, struct map_target *t);
/* Return 0 after finding the owners of the pending ranges through the owner index, or -errno. */
int map_damage_index_pending(struct map_damage *d, struct map_target *t);
/* Return 0 after adding the inodes of damaged inode tables as owners, or -errno. */
int map_damage_itables(struct map_damage *d, struct map_target *t);
/* Return 0 after naming every owning inode (all its paths), or -errno. */
int map_damage_name_inodes(struct map_damage *d, struct map_target *t);
/* Say what is lost where the owner is itself a damaged object. */
void map_damage_describe_lost(struct map_damage *d);
/* Return 0 after grouping the owners into damaged files, or -ENOMEM. */
int map_damage_group_files(struct map_damage *d);
/* Return 0 after grouping the owners into damaged metadata, or -ENOMEM. */
int map_damage_group_meta(struct map_damage *d);

#endif
