/*
 * tests/unit/thin_fixture.h - dm-thin metadata made by thin-provisioning-tools on this host:
 * a pool described in memory, written as thin_restore's XML, restored into a metadata file and
 * loaded as an image the tests read through a callback (and corrupt, or swap mid-walk); what
 * thin_rmap says, and a model written as thin_dump writes it, to compare with the tools; the
 * small pool's model checked by hand.
 */
#ifndef MEDIASCAN_THIN_FIXTURE_H
#define MEDIASCAN_THIN_FIXTURE_H

#include <stddef.h>
#include <stdint.h>

/* One mapping: thin device dev's virtual block vblock held by data block dblock since time. */
struct fx_map {
	uint32_t dev;
	uint64_t vblock, dblock;
	uint32_t time;
};

struct fx_dev {
	uint32_t id;
	uint64_t trans_id;
	uint32_t creation_time, snap_time;
};

/* A pool as thin_restore takes it; maps sorted by (dev, vblock). */
struct fx_pool {
	uint32_t time, data_block_size;
	uint64_t trans_id, nr_data_blocks;
	struct fx_dev *devs;
	size_t nr_devs;
	struct fx_map *maps;
	size_t nr_maps, cap_maps;
};

/* A metadata file read into memory. */
struct fx_image {
	uint8_t *data;
	size_t len;
};

/* The fixtures of the thin tests: a small pool (a), the same after one more commit (b), a
 * large one, as images and files in dir. */
#define FX_LARGE_DATA_BLOCKS 200000u
struct fx_set {
	char *dir;			/* NULL: thin_restore is missing */
	struct fx_image a, b, large;
	struct fx_pool large_pool;
	char a_path[600], large_path[600];
};

/* The small pool: volume 1, snapshot 2 of it sharing virtual blocks 0..15 (data 0..15), each
 * with a block of its own at virtual block 100, volume 1 written at 200..202 (data 60..62)
 * after the snapshot; device 3 empty. one_more: the pool after its next commit (snapshot 2
 * wrote virtual block 101, data 52). */
void fx_small_pool(struct fx_pool *p, int one_more);
/* The large pool: thousands of mappings per device, snapshots with copied-on-write blocks. */
void fx_large_pool(struct fx_pool *p);
/* Return 0 after building fx, 1 when thin_restore is missing (fx->dir NULL), -1 on failure. */
int fx_set_build(struct fx_set *fx);
void fx_set_free(struct fx_set *fx);
/* The test binary's fixture set, built by fx_setup (cmocka's group set-up) and freed by
 * fx_teardown; fx_need_tools skips a case when thin_restore is missing (no set built). */
extern struct fx_set fx;
int fx_setup(void **state);
int fx_teardown(void **state);
void fx_need_tools(void);
/* Return the path of tool (thin_restore, thin_dump, thin_rmap) in PATH, /usr/sbin or /sbin,
 * or NULL. */
const char *fx_tool(const char *tool);
/* Return a new directory under /var/tmp for this test run (removed by fx_tmpdir_remove). */
char *fx_tmpdir(void);
void fx_tmpdir_remove(char *dir);
/* Add a mapping to p. */
void fx_add(struct fx_pool *p, uint32_t dev, uint64_t vblock, uint64_t dblock, uint32_t time);
/* Sort p's maps by (dev, vblock). */
void fx_sort(struct fx_pool *p);
/* Return 0 after writing p as XML to dir/NAME.xml and restoring it into dir/NAME.meta
 * (meta_bytes preallocated) with thin_restore; -1 with a message on stderr. */
int fx_restore(const struct fx_pool *p, const char *dir, const char *name, size_t meta_bytes);
/* Return 0 and the file path read into img (free with fx_image_free). */
int fx_image_load(const char *path, struct fx_image *img);
void fx_image_free(struct fx_image *img);
/* A thin_read_fn over a struct fx_image. */
int fx_image_read(void *arg, uint64_t block, void *buf);
/* A thin_read_many_fn over a struct fx_image. */
int fx_image_read_many(void *arg, const uint64_t *blocks, unsigned n, uint8_t *bufs);
/* Return the output of a shell command (malloc'd, NUL-terminated) or NULL. */
char *fx_run(const char *cmd);
/* One data block's owner, for comparing block by block (64-bit fields: no padding, so
 * arrays of them compare with memcmp). */
struct fx_triple {
	uint64_t d, v, dev;
};

/* qsort order: by data block, device, virtual block. */
int fx_triple_cmp(const void *x, const void *y);
/* Return p's mappings as triples sorted by data block (malloc'd, p->nr_maps), or NULL. */
struct fx_triple *fx_truth_by_data(const struct fx_pool *p);
/* Return thin_rmap's answer for data blocks [0, nr_data_blocks) of metadata file meta, block
 * by block and sorted (malloc'd, *n of them), or NULL. */
struct fx_triple *fx_rmap(const char *meta, uint64_t nr_data_blocks, size_t *n);
struct thin_model;
/* Return model m written as thin_dump writes its XML (malloc'd), or NULL. */
char *fx_model_xml(const struct thin_model *m);
/* Set a superblock's or node's checksum after a test changed its bytes. */
void fx_reseal(uint8_t *block, uint32_t salt);
/* Superblock field offsets, as the format defines them. */
#define FX_SB_TRANS_ID 48
#define FX_SB_MAPPING_ROOT 320
#define FX_SB_DETAILS_ROOT 328
/* Little-endian 64-bit fields of metadata, as the format stores them. */
void fx_put_le64(uint8_t *p, uint64_t v);
uint64_t fx_get_le64(const uint8_t *p);
/* Return a copy of img, to damage (free with fx_image_free). */
struct fx_image fx_image_copy(const struct fx_image *img);
/* Check the model of the small pool (one_more: the pool after its next commit) with cmocka's
 * asserts: its devices, owners, lookups, provisioned extents and totals. */
void fx_check_small(const struct thin_model *m, int one_more);

#endif
