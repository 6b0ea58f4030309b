/*
 * mapping/parts.h - partition tables parsed from bytes a reader hands over (GPT, MBR with
 * extended boot records), and a partitioned disk cut into segments. No I/O.
 */
#ifndef MEDIASCAN_PARTS_H
#define MEDIASCAN_PARTS_H

#include <stddef.h>
#include <stdint.h>

#include "target.h"

/* Return 0 after reading len bytes at byte off of the disk into buf, or -errno. */
typedef int (*map_parts_read_fn)(void *arg, uint64_t off, void *buf, size_t len);

/*
 * Return 0 and the partitions of the table read through rd on a disk of disk_bytes with
 * logical block lbs (*parts malloc'ed, *nr of them, number/start/size/type/name/uuid filled,
 * pt_type "gpt" or "dos"); -ENOENT when there is no table, -EUCLEAN when a GPT and its backup
 * are both invalid, -errno when rd failed.
 */
int map_parts_parse(map_parts_read_fn rd, void *arg, uint64_t disk_bytes, uint32_t lbs,
		    struct map_part **parts, unsigned *nr, char *pt_type, size_t type_len);
/* Return 0 after building t->segs from t->parts (sorted) on a disk of disk_size bytes with
 * logical block lbs and partition table type t->pt_type ("gpt", "dos"), or -ENOMEM. */
int map_parts_segments(struct map_target *t, uint64_t disk_size, uint32_t lbs);

#endif
