/*
 * mapping/names/names.h - inode numbers to every path by one directory walk of a mount point.
 */
#ifndef MEDIASCAN_NAMES_H
#define MEDIASCAN_NAMES_H

#include <stddef.h>
#include <stdint.h>

/* The paths found for one inode. */
struct map_inode_paths {
	uint64_t inode;
	unsigned nlink;			/* links to find, from stat */
	int is_dir;
	int stat_failed;		/* errno of a failed stat: link count unknown */
	unsigned nr_paths;
	char **paths;			/* absolute paths under the mount point */
	/* ---- which filesystem, and the inode's generation and links ---- */
	uint32_t fs_idx;		/* which filesystem (map_owner.fs_idx) */
	uint32_t gen;			/* generation, when known (bulkstat, libext2fs) */
	int unlinked;			/* link count 0: open but unlinked, or an orphan */
};

/**
 * map_paths_resolve() - name inodes with all their hard links by one directory walk of a mount
 * point.
 * @mount_point: where to walk
 * @want: the inodes (their paths filled in; one no directory reaches keeps nr_paths == 0)
 * @nr: how many
 * @unreadable_dirs: set to the directories that could not be opened or read (damaged), under which
 *                   paths may be missing (may be NULL)
 *
 * The walk stops once all are found.
 *
 * Return: 0, or -errno.
 */
int map_paths_resolve(const char *mount_point, struct map_inode_paths *want, size_t nr,
		      unsigned *unreadable_dirs);
struct map_target;
/**
 * map_paths_resolve_fs() - map_paths_resolve() on a target's mount point, never touching known-bad
 * metadata.
 * @fs: the target
 * @want: the inodes
 * @nr: how many
 * @unreadable_dirs: as for map_paths_resolve()
 *
 * Inodes whose metadata is known bad (map_fsx_tainted()) are never opened, stat'ed or entered, and
 * what lies below such a directory is named from the raw device where fs can
 * (map_fs_ops.name_below).
 *
 * Return: 0, or -errno.
 */
int map_paths_resolve_fs(struct map_target *fs, struct map_inode_paths *want, size_t nr,
			 unsigned *unreadable_dirs);
/**
 * map_path_is_inode() - whether a path is a given inode now.
 * @path: the path (not followed if a symlink)
 * @ino: the inode
 * @gen: its generation (0: unknown)
 *
 * Return: 1 when it is; 0 when it is another file (the number was reused), gone, or gen is unknown:
 * then it cannot be told.
 */
int map_path_is_inode(const char *path, uint64_t ino, uint32_t gen);
/**
 * map_paths_free() - free the paths of want[].
 * @want: the inodes
 * @nr: how many
 *
 * Return: 0.
 */
int map_paths_free(struct map_inode_paths *want, size_t nr);

#endif
