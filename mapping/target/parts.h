/*
 * mapping/target/parts.h - partition tables parsed from bytes a reader hands over (GPT, MBR with
 * extended boot records), and a partitioned disk cut into segments. No I/O.
 */
#ifndef MEDIASCAN_PARTS_H
#define MEDIASCAN_PARTS_H

#include <stddef.h>
#include <stdint.h>

#include "target.h"

/* Return 0 after reading len bytes at byte off of the disk into buf, or -errno. */
typedef int (*map_parts_read_fn)(void *arg, uint64_t off, void *buf, size_t len);

/**
 * map_parts_parse() - read the partition table of a disk.
 * @rd: reads bytes of the disk
 * @arg: passed to rd
 * @disk_bytes: the disk's size, bytes
 * @lbs: its logical block size
 * @parts: set to the partitions (malloc'ed; number, start, size, type, name, uuid filled)
 * @nr: set to how many
 * @pt_type: set to "gpt" or "dos"
 * @type_len: size of pt_type
 *
 * Return: 0, -ENOENT when there is no table, -EUCLEAN when a GPT and its backup are both invalid,
 * -errno when rd failed.
 */
int map_parts_parse(map_parts_read_fn rd, void *arg, uint64_t disk_bytes, uint32_t lbs,
		    struct map_part **parts, unsigned *nr, char *pt_type, size_t type_len);
/**
 * map_parts_segments() - build t->segs from t->parts.
 * @t: the target: t->parts sorted, t->pt_type "gpt" or "dos"
 * @disk_size: the disk's size, bytes
 * @lbs: its logical block size
 *
 * Return: 0, or -ENOMEM.
 */
int map_parts_segments(struct map_target *t, uint64_t disk_size, uint32_t lbs);

#endif
