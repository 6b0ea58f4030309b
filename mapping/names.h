/*
 * mapping/names.h - inode numbers to every path by one directory walk of a mount point.
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

/*
 * Return 0 after one directory walk of the mount point that names every inode of want[]
 * with all its hard links (stopping once all are found), or -errno. Inodes no directory
 * reaches keep nr_paths == 0; *unreadable_dirs (may be NULL) counts directories that
 * could not be opened or read (damaged), under which paths may be missing.
 */
int map_paths_resolve(const char *mount_point, struct map_inode_paths *want, size_t nr,
		      unsigned *unreadable_dirs);
struct map_target;
/*
 * Return 0 as map_paths_resolve on fs's mount point, except that inodes whose metadata is known
 * bad (map_fsx_tainted) are never opened, stat'ed or entered, and what lies below such a
 * directory is named from the raw device where fs can (map_fs_ops.name_below), or -errno.
 */
int map_paths_resolve_fs(struct map_target *fs, struct map_inode_paths *want, size_t nr,
			 unsigned *unreadable_dirs);
/*
 * Return 1 when path (not followed if a symlink) is inode ino of generation gen now; 0 when it
 * is another file (the number was reused), gone, or gen is unknown (0): then it cannot be told.
 */
int map_path_is_inode(const char *path, uint64_t ino, uint32_t gen);
/* Return 0; free the paths of want[]. */
int map_paths_free(struct map_inode_paths *want, size_t nr);

#endif
