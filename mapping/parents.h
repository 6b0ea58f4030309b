/*
 * mapping/parents.h - inode numbers to every path through XFS parent pointers.
 */
#ifndef MEDIASCAN_PARENTS_H
#define MEDIASCAN_PARENTS_H

#include <stddef.h>

#include "names.h"
#include "target.h"

/*
 * Return 0 after naming inodes through XFS parent pointers (XFS_IOC_GETPARENTS_BY_HANDLE):
 * every path of each inode of want[] (sorted by inode), or -EOPNOTSUPP when the kernel or
 * the filesystem has none (then walk), or -errno.
 */
int map_parents_resolve(struct map_target *t, struct map_inode_paths *want, size_t nr);

#endif
