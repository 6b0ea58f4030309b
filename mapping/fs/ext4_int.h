/*
 * mapping/fs/ext4_int.h - what the libext2fs files of mapping/ share (index_ext4.c, names_ext4.c,
 * io_ext4.c): the read-only io_manager and the state it reads with. Not for use outside
 * mapping/; only with HAVE_EXT2FS.
 */
#ifndef MEDIASCAN_EXT4_INT_H
#define MEDIASCAN_EXT4_INT_H

#include <ext2fs/ext2fs.h>

#include "fs.h"

/*
 * The read-only io_manager: reads through kernel/, never writes, never reads the known-bad
 * bytes of map_ext4_refuse (their sectors read as zeroes and are counted in
 * *map_ext4_unreadable when that is set).
 */
extern struct struct_io_manager map_ext4_ro_manager;
/* The filesystem whose known-bad bytes the read-only manager refuses (map_fsx bad list). */
extern const struct map_target *map_ext4_refuse;
/* Where the manager counts blocks it read as zeroes, or NULL. */
extern unsigned *map_ext4_unreadable;
/*
 * Return 0 after opening t's ext4 read-only through the manager (at t->fs_base_bytes on
 * devices[0]: "offset=" option), checksum and superblock errors ignored, or libext2fs's error.
 */
errcode_t map_ext4_open_ro(const struct map_target *t, ext2_filsys *fs);

#endif
