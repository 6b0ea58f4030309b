/*
 * mapping/names/parents.h - inode numbers to every path through XFS parent pointers.
 */
#ifndef MEDIASCAN_PARENTS_H
#define MEDIASCAN_PARENTS_H

#include <stddef.h>

#include "names.h"
#include "target.h"

/**
 * map_parents_resolve() - name inodes through XFS parent pointers (XFS_IOC_GETPARENTS_BY_HANDLE).
 * @t: the target
 * @want: the inodes, sorted by inode (every path of each filled in)
 * @nr: how many
 *
 * Return: 0, -EOPNOTSUPP when the kernel or the filesystem has none (then walk), or -errno.
 */
int map_parents_resolve(struct map_target *t, struct map_inode_paths *want, size_t nr);

#endif
