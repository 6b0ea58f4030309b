/*
 * stack/stack.h - the storage stack under a filesystem (partitions, md RAID, device-mapper)
 * and a range's way up through it: from a member disk's sector to the device the filesystem
 * sits on, with the other copies, or the name of the layer that cannot be mapped and why.
 */
#ifndef MEDIASCAN_STACK_H
#define MEDIASCAN_STACK_H

#include <stddef.h>
#include <stdint.h>

#include "stack_md.h"

#define MAP_STACK_MAX_HOPS 16
#define MAP_STACK_MAX_COPIES 64
#define MAP_STACK_NAME 64
#define MAP_STACK_MAX_ALSO 256
#define MAP_STACK_MAX_HOLDERS 1024	/* a thin pool's volumes and snapshots (Proxmox: hundreds) */

/* One device on the way up, with the queried range's byte offset on it. */
struct map_stack_hop {
	char name[MAP_STACK_NAME];	/* kernel name: nvme0n1, sdb1, md0, dm-3 */
	char kind[24];			/* "disk", "partition", "md-raid5", "dm-linear", ... */
	uint64_t offset;		/* bytes */
	int parity;			/* the range is parity/syndrome of this array */
	int degraded;			/* md: members missing */
};

/* Another member range that holds the same data (or the rest of its stripe). */
struct map_stack_copy {
	char name[MAP_STACK_NAME];	/* the member as the layer sees it (sdc1, nvme2n1) */
	char disk[MAP_STACK_NAME];	/* its whole disk */
	uint64_t offset;		/* bytes on name */
	uint64_t disk_offset;		/* bytes on disk */
	uint64_t length;
	const char *role;		/* "mirror", "data", "parity", "syndrome" */
	char array[MAP_STACK_NAME];	/* the array it belongs to (md0) */
};

/* A thin pool's volume (or snapshot) mapping the same data block, and where. */
struct map_stack_also {
	char name[MAP_STACK_NAME];
	uint64_t offset;		/* bytes on it */
};

/* A range's way up. The other copies and volumes are allocated as they are found (a map of a
 * thousand sectors keeps a thousand of these): map_stack_up_free. */
struct map_stack_up {
	struct map_stack_hop hop[MAP_STACK_MAX_HOPS];
	unsigned nr_hops;
	struct map_stack_copy *copy;	/* nr_copies, at most MAP_STACK_MAX_COPIES */
	unsigned nr_copies;
	uint64_t length;		/* bytes from the query's start mapped as one piece */
	int parity;			/* ends in parity: no owner above */
	int unused;			/* the range holds nothing above (past an array's used area,
					 * outside every dm row) */
	int unmappable;			/* the layer in bad_* cannot be mapped */
	int thin_meta;			/* the range is a thin pool's metadata: every volume's */
	/* a thin pool's data block shared by several volumes (snapshots): the way up goes
	 * through one, the others are here (each to be mapped up from the volume's offset) */
	struct map_stack_also *also;	/* nr_also, at most MAP_STACK_MAX_ALSO */
	unsigned nr_also;
	unsigned also_more;		/* more volumes share it than also[] holds: counted, said */
	/* bytes from the range's start over which every layer's choice holds (the same
	 * partition, row, volumes; each layer's offset moving with it): a walk kept for the next
	 * ranges (map_stack_up_kept). 0 when no layer promises it (md, copies, anything
	 * unmapped); may be shorter than length (another volume's block starts sooner). */
	uint64_t same;
	char bad_name[MAP_STACK_NAME];
	char bad_kind[24];
	char bad_reason[200];
};

/*
 * Return 0 and the way up (u) of bytes [off, off + len) of block device name (kernel name)
 * to the top of its stack (the device with no holders), through partitions, md and dm. The
 * mapped piece may be shorter than len (u->length): call again from off + u->length. An
 * unmappable layer is named in u (u->unmappable) with 0 returned; -errno when sysfs or a dm
 * table cannot be read. sysfs NULL: "/sys".
 */
int map_stack_up(const char *sysfs, const char *name, uint64_t off, uint64_t len,
		 struct map_stack_up *u);
/* Free what map_stack_up allocated in u (u stays, zeroed: it may be filled again); _free
 * frees u too. u is written whole by map_stack_up: release one that is filled before. */
void map_stack_up_release(struct map_stack_up *u);
void map_stack_up_free(struct map_stack_up *u);
/*
 * map_stack_up, and where a thin pool's block is shared by several volumes, the way up goes
 * through the volume from which device prefer (kernel name; NULL: the first) is reached; the
 * others are in u->also.
 */
int map_stack_up_via(const char *sysfs, const char *name, uint64_t off, uint64_t len,
		     const char *prefer, struct map_stack_up *u);
/*
 * stack_keep.c: a walk kept for the ranges after it (zero it before the first use; release it
 * after the last). map_stack_up_kept gives what map_stack_up(sysfs, name, off, len, u) gives;
 * a range within what the last walk of name promises (its u->same), a second old at most and
 * with the thin pools' models it used, is answered from that walk without walking.
 */
struct map_stack_keep {
	char name[MAP_STACK_NAME];
	uint64_t off;			/* the kept walk's range start, bytes */
	uint64_t at;			/* when it was walked (CLOCK_MONOTONIC_COARSE ns) */
	uint64_t gen;			/* the thin pools' models' generation then */
	struct map_stack_up u;		/* the walk; u.same 0: none kept */
};
int map_stack_up_kept(struct map_stack_keep *k, const char *sysfs, const char *name,
		      uint64_t off, uint64_t len, struct map_stack_up *u);
void map_stack_keep_release(struct map_stack_keep *k);
/*
 * stack_ident.c: return 0 and the identity the history keeps a member under (its whole disk's
 * WWN/serial, ":partN" for a partition) of block device name in out, or -ENOENT when the disk
 * has none (or -errno).
 */
int map_stack_ident(const char *sysfs, const char *name, char *out, size_t len);
/*
 * Return 1 and the kernel name and UUID (md/uuid, or dm/uuid of an LVM RAID LV; "" when sysfs
 * has none) of the first array on u's way up (the layer holding the other copies), 0 if none.
 */
int map_stack_array_of(const char *sysfs, const struct map_stack_up *u, char *name,
		       size_t name_len, char *uuid, size_t uuid_len);
/*
 * stack_geom.c: return 0 and the geometry of the stack below block device name as text in out
 * (one line per layer: kind, size; md level, raid_disks, chunk, layout, reshape, members'
 * slots, offsets and sizes; dm table rows, crypt rows without their key), -E2BIG when len is
 * too small, -errno. Two texts differ when the geometry changed.
 */
int map_stack_geometry(const char *sysfs, const char *name, char *out, size_t len);
/* Write what differs between two map_stack_geometry texts (the first layer that changed). */
void map_stack_geometry_diff(const char *was, const char *now, char *out, size_t len);
/* A layer above a member, where its data starts on the member (stack_ident.c). */
struct map_stack_region {
	char name[MAP_STACK_NAME];	/* md0, dm-3 */
	char kind[24];			/* md-raid1, dm-linear, dm-crypt, ... */
	uint64_t data_start;		/* bytes on the member; before it: meta */
	const char *meta;		/* "md superblock and bitmap", "LVM metadata", "LUKS header" */
};
/* An LVM physical volume's own area: label, metadata area (stack_lvm.c). */
struct map_lvm_area {
	uint64_t offset, length;	/* bytes on the PV */
};
/*
 * Return the number of metadata areas of the LVM label in buf (len >= 2048: the first four
 * sectors of a PV) written to mda[0..max), *pe_start the data area's start (bytes); -ENOENT
 * when no label is there, -EINVAL when it is malformed.
 */
int map_lvm_label_parse(const unsigned char *buf, size_t len, uint64_t *pe_start,
			struct map_lvm_area *mda, unsigned max);
/*
 * Return the number of areas written to out[0..max) that LVM keeps on PV name for itself: the
 * label and first metadata area ([0, pe_start)) and a metadata area after the extents; the
 * label read on a bottom device below name, never through md or dm. -ENOENT: not a PV.
 */
int map_lvm_pv_areas(const char *sysfs, const char *name, struct map_lvm_area *out,
		     unsigned max);
/* Return what a layer of kind keeps before its data on the device below it ("LVM metadata"). */
const char *map_stack_layer_meta(const char *kind);
/*
 * Return the number of layers above bottom device leaf written to out[0..max), from the
 * nearest up, each with where its data starts on leaf (followed up while each layer keeps the
 * bytes below in order: md RAID1, dm linear, crypt), or -errno.
 */
int map_stack_regions(const char *sysfs, const char *leaf, struct map_stack_region *out,
		      unsigned max);
/* Return 1 when block device name (or a partition of it) is held by md or dm, else 0. */
int map_stack_is_stacked(const char *sysfs, const char *name);

/*
 * dm rows mapped up (pure): return 1 and the sector on the dm device (*top) that sector x of
 * the device below (devt text "MAJ:MIN") holds in row (type, start, length, params), with
 * *run sectors contiguous (2: the sector is parity of a dm-raid stripe); 0 when the row does
 * not use that device range (*run: sectors from x it surely stays so, UINT64_MAX all, 0 when
 * not known); -EINVAL when its params cannot be parsed. copies (max_copies) get the other legs of mirrors (devt text and
 * sector), *nr_copies how many.
 */
struct map_dm_leg {
	char devt[24];
	uint64_t sector;
	enum map_md_role role;
};
int map_dm_row_up(const char *type, uint64_t start, uint64_t length, const char *params,
		  const char *below, uint64_t x, uint64_t *top, uint64_t *run,
		  struct map_dm_leg *copies, unsigned max_copies, unsigned *nr_copies);
/*
 * Return the number of devices of a dm-raid row (params, length sectors) and set *g to its
 * geometry in md's terms, *data_offset to where data starts on each data leg (sectors) and
 * data[d] to data leg d's devt text ("-" when missing); -EINVAL when unparsable,
 * -EOPNOTSUPP for a raid type without an md layout, -E2BIG over max legs.
 */
int map_dm_raid_geo(const char *params, uint64_t length, struct map_md_geo *g,
		    uint64_t *data_offset, char (*data)[16], unsigned max);
/*
 * Return 1 when child ("MAJ:MIN") is a metadata leg (rmeta: superblock and write-intent
 * bitmap) of the dm-raid row (params, length sectors), 0 when a data leg (*data_offset set to
 * where its data starts, bytes), -ENOENT when neither, -EOPNOTSUPP, -EINVAL.
 */
int map_dm_raid_leg(const char *params, uint64_t length, const char *child,
		    uint64_t *data_offset);
/* Return the contract's kind name of dm target type ("dm-linear", "dm-thin", ...). */
const char *map_dm_kind(const char *type);
/* Return 1 when dm target type can be mapped, 0 (and *why) when not. */
int map_dm_supported(const char *type, const char **why);

/* The stack below a device, as a tree (from the device down to the disks). */
struct map_stack_node {
	char name[MAP_STACK_NAME];	/* kernel name */
	char kind[24];			/* as in map_stack_hop, "dm-thin" for refused layers */
	uint64_t size;			/* bytes */
	int is_md;
	char level[16];			/* md: "raid1" */
	unsigned raid_disks;
	uint64_t chunk_bytes;
	uint32_t layout;
	uint64_t degraded;		/* md: members missing */
	char sync_action[32];		/* md: "idle", "resync", "recover", "check", ... */
	char reshape[32];		/* md: reshape_position ("none") */
	char uuid[64];			/* md: md/uuid when sysfs has it */
	int slot;			/* as a member of the array above: its slot, -1 */
	/* dm-thin-pool: its model's totals (thin_ok set when it was read); dm-thin: the
	 * volume's id in its pool and the blocks it maps */
	int thin_ok;
	uint64_t thin_block_bytes, thin_data_blocks, thin_provisioned, thin_mappings;
	unsigned thin_volumes;
	unsigned thin_rewalks;		/* walks redone because the pool committed meanwhile */
	char thin_why[256];		/* dm-thin-pool not read: why (THIN_WHY; a walk given up) */
	int64_t thin_id;		/* -1 when not a thin volume */
	uint64_t thin_mapped;
	struct map_stack_node *below;
	unsigned nr_below;
};

/* Return 0 and the tree below block device name (*out malloc'd), or -errno. */
int map_stack_tree(const char *sysfs, const char *name, struct map_stack_node **out);
/* Free a tree from map_stack_tree. */
void map_stack_tree_free(struct map_stack_node *n);
/* Return the first md array in the tree that resyncs, recovers, reshapes or checks, or NULL. */
const struct map_stack_node *map_stack_busy(const struct map_stack_node *n);
/* Return the first degraded md array in the tree, or NULL. */
const struct map_stack_node *map_stack_degraded(const struct map_stack_node *n);

/* One range on a device at the bottom of the stack (a disk or a partition with no slaves). */
struct map_stack_leaf {
	char name[MAP_STACK_NAME];	/* kernel name: nvme0n1, sdb1 */
	uint64_t offset;		/* bytes */
	uint64_t length;
	enum map_md_role role;		/* data, mirror, parity, syndrome */
};

/*
 * Return the number of leaf ranges written to out[0..max) that hold bytes [off, off + len)
 * of block device name (every copy, and the parity of RAID4/5/6 stripe rows), clipped at the
 * first chunk or row boundary (*done bytes); -EOPNOTSUPP for a layer that cannot be mapped
 * (its kind in *bad_kind), -E2BIG, -ERANGE, -errno. Offsets are 512-byte aligned.
 */
int map_stack_down(const char *sysfs, const char *name, uint64_t off, uint64_t len,
		   struct map_stack_leaf *out, unsigned max, uint64_t *done, const char **bad_kind);
/**
 * map_stack_data_start() - where a layer's data starts on a device below it.
 * @sysfs: sysfs root, NULL: "/sys"
 * @parent: the layer (kernel name: md0, dm-3, or a partition)
 * @child: a device below it (for a partition: its disk)
 * @start: set to the first byte of child that parent keeps data in: md's data offset, the
 *	lowest offset of child in a dm table, a partition's start on its disk; what lies
 *	before it is the layer's metadata (superblock, bitmap, LVM metadata area, LUKS header,
 *	partition table); for a dm-raid's metadata leg (rmeta) its size: all of it
 *
 * Return: 0, -ENOENT when parent is none of these, or -errno.
 */
int map_stack_data_start(const char *sysfs, const char *parent, const char *child,
			 uint64_t *start);
/* Return the number of leaf device names (no slaves) under name written to out[0..max). */
int map_stack_leaves(const struct map_stack_node *n, char (*out)[MAP_STACK_NAME], unsigned max);

/* stack_thin_pool.c: why the last thin mapping failed ("" none): its pool's walk, a row. */
const char *map_thin_why(void);
/* Return 1 when dm device name is a thin pool (a thin-pool row), else 0. */
int map_thin_is_pool(const char *sysfs, const char *name);
/*
 * Hand every provisioned run of thin pool pool's data device to fn (data device name, byte
 * offset and length on it; each data block once, however many volumes share it), then set
 * meta (meta_len bytes) and *meta_size to its metadata device's name and size. The pool's
 * model is read fresh. Return 0, fn's negative value, or -errno (why in err).
 */
int map_thin_pool_ranges(const char *sysfs, const char *pool,
			 int (*fn)(void *arg, const char *dev, uint64_t off, uint64_t len),
			 void *arg, char *meta, size_t meta_len, uint64_t *meta_size, char *err,
			 size_t err_len);

#endif
