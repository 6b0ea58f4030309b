/*
 * stack/stack_thin_pool.c - a live thin pool as the stack sees it: its model (stack_thin.h)
 * loaded from the metadata device named by the pool's thin-pool row, kept while the pool's
 * superblock reads the same and at most a second old when it changed (the kernel commits
 * about once a second under writes); a lookup that finds a block unprovisioned in a model
 * older than the superblock loads it again before it says so. The pool's volumes are the
 * holders of the pool device whose table is one thin row.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/sysmacros.h>

#include "kio.h"
#include "stack.h"
#include "stack_int.h"
#include "stack_thin.h"

#define POOLS 8
#define MODEL_MAX_AGE_NS 1000000000ull

/* Why the last model could not be had (for the layer's message): a walk's error. */
static char last_why[THIN_WHY];

const char *map_thin_why(void)
{
	return last_why;
}

static struct pool_cache {
	char meta_devt[24];
	struct thin_model m;
	uint64_t at;			/* CLOCK_MONOTONIC_COARSE ns of the load */
	int used;
} pools[POOLS];
/* bumped whenever a model is checked against its superblock or loaded (a walk kept beside
 * its models: map_thin_models_fresh) */
static uint64_t models_gen;

static uint64_t now_ns(void)
{
	struct timespec ts;

	/* the tick the vDSO keeps: never a system call; a few ms off is nothing to a second */
	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int meta_path(const char *devt, char *path, size_t len)
{
	unsigned a, b;

	if (sscanf(devt, "%u:%u", &a, &b) != 2)
		return -EINVAL;
	return kio_devpath_from_devt(makedev(a, b), path, len);
}

/* THIN_REWALKS, or MEDIASCAN_THIN_REWALKS (the tests' way to see a walk given up). */
static unsigned max_rewalks(void)
{
	const char *s = getenv("MEDIASCAN_THIN_REWALKS");
	char *end;
	unsigned long v;

	if (!s || !*s)
		return THIN_REWALKS;
	v = strtoul(s, &end, 10);
	return *end || v > 10000 ? THIN_REWALKS : (unsigned)v;
}

/* Load (or reload) pool slot c from its metadata device; 0 or -errno, why set. */
static int pool_load(struct pool_cache *c, char *why, size_t len)
{
	struct thin_meta_dev d;
	char path[128];
	int ret = meta_path(c->meta_devt, path, sizeof(path));

	if (ret < 0) {
		snprintf(why, len, "the thin pool's metadata device %s has no node", c->meta_devt);
		return ret;
	}
	ret = thin_meta_open(path, &d);
	if (ret < 0) {
		snprintf(why, len, "cannot open the thin pool's metadata device %s: %s", path,
			 strerror(-ret));
		return ret;
	}
	if (c->used)
		thin_model_free(&c->m);
	c->used = 0;
	ret = thin_model_load_many(thin_meta_read, thin_meta_read_many, &d, max_rewalks(), &c->m,
				   why, len);
	thin_meta_close(&d);
	if (ret < 0)
		return ret;
	c->used = 1;
	c->at = now_ns();
	return 0;
}

/* 1 when pool slot c's superblock on the device still reads as the model's, 0 when not. */
static int pool_same(const struct pool_cache *c)
{
	char path[128];
	uint8_t *sb = NULL;
	int fd, same = 0;

	if (meta_path(c->meta_devt, path, sizeof(path)) < 0)
		return 0;
	fd = kio_open_direct(path);
	if (fd < 0)
		return 0;
	if (posix_memalign((void **)&sb, 4096, THIN_META_BLOCK) == 0 &&
	    kio_pread(fd, sb, THIN_META_BLOCK, 0) == THIN_META_BLOCK)
		same = !memcmp(sb, c->m.sb_block, THIN_META_BLOCK);
	free(sb);
	kio_close(fd);
	return same;
}

int map_thin_pool_model(const char *pool_params, int fresh, const struct thin_model **m,
			char *why, size_t len)
{
	struct thin_pool_params pp;
	struct pool_cache *c = NULL;
	int ret;

	if (thin_pool_row_parse(pool_params, &pp) < 0) {
		snprintf(why, len, "the thin-pool row cannot be parsed");
		snprintf(last_why, sizeof(last_why), "the thin-pool row '%.200s' cannot be parsed",
			 pool_params);
		return -EINVAL;
	}
	for (unsigned i = 0; i < POOLS && !c; i++)
		if (pools[i].used && !strcmp(pools[i].meta_devt, pp.meta_devt))
			c = &pools[i];
	if (c && !fresh && now_ns() - c->at < MODEL_MAX_AGE_NS) {
		*m = &c->m;
		return 0;
	}
	models_gen++;
	if (c && pool_same(c)) {
		c->at = now_ns();
		*m = &c->m;
		return 0;
	}
	if (!c) {
		unsigned oldest = 0;

		for (unsigned i = 0; i < POOLS; i++) {
			if (!pools[i].used) {
				oldest = i;
				break;
			}
			if (pools[i].at < pools[oldest].at)
				oldest = i;
		}
		c = &pools[oldest];
		stack_copy(c->meta_devt, sizeof(c->meta_devt), pp.meta_devt);
	}
	ret = pool_load(c, why, len);
	if (ret < 0) {
		snprintf(last_why, sizeof(last_why), "%s (%s)", why, strerror(-ret));
		return ret;
	}
	*m = &c->m;
	return 0;
}

uint64_t map_thin_models_gen(void)
{
	return models_gen;
}

int map_thin_models_fresh(uint64_t gen)
{
	uint64_t now;

	if (gen != models_gen)
		return 0;
	now = now_ns();
	for (unsigned i = 0; i < POOLS; i++)
		if (pools[i].used && now - pools[i].at >= MODEL_MAX_AGE_NS)
			return 0;
	return 1;
}

int map_thin_pool_of(const char *sysfs, const char *pool_devt, char *params, size_t len)
{
	const struct kio_dm_target *rows;
	char name[MAP_STACK_NAME];
	int k, ret = -ENOENT;

	if (map_stack_devt_name(pool_devt, name, sizeof(name)) < 0)
		return -ENODEV;
	k = map_stack_dm_rows_get(sysfs, name, &rows);
	if (k < 0)
		return k;
	for (int i = 0; i < k; i++)
		if (!strcmp(rows[i].type, "thin-pool")) {
			stack_copy(params, len, rows[i].params);
			ret = 0;
			break;
		}
	map_stack_dm_rows_put(rows);
	return ret;
}

int map_thin_down(const char *sysfs, const struct kio_dm_target *r, uint64_t s, uint64_t *cnt,
		  char *below, size_t len, uint64_t *off)
{
	struct thin_params tp;
	struct thin_pool_params pp;
	const struct thin_model *m;
	char params[1100], why[THIN_WHY];
	uint64_t data, run;
	int ret;

	if (thin_row_parse(r->params, &tp) < 0 ||
	    map_thin_pool_of(sysfs, tp.pool_devt, params, sizeof(params)) < 0 ||
	    thin_pool_row_parse(params, &pp) < 0) {
		snprintf(last_why, sizeof(last_why), "the thin row '%.100s' or its pool's row "
			 "cannot be read", r->params);
		return -EINVAL;
	}
	for (int fresh = 0; fresh < 2; fresh++) {
		ret = map_thin_pool_model(params, fresh, &m, why, sizeof(why));
		if (ret < 0)
			return ret;
		ret = thin_row_down(m, r->start, r->length, r->params, s, &data, &run);
		if (ret != 0)
			break;			/* a hole in a fresh model is a hole */
	}
	if (ret < 0) {
		snprintf(last_why, sizeof(last_why), "thin row '%.100s' down at %llu: %s",
			 r->params, (unsigned long long)s, strerror(-ret));
		return ret;
	}
	if (*cnt > run)
		*cnt = run;
	if (ret == 0)
		return 0;			/* unprovisioned: nothing below holds it */
	*off = data;
	return map_stack_devt_name(ret == 2 ? tp.origin_devt : pp.data_devt, below, len) < 0 ?
	       -ENODEV : 1;
}

int map_thin_up(const char *sysfs, const struct kio_dm_target *r, const char *below,
		uint64_t x, uint64_t *top, uint64_t *run)
{
	const struct thin_model *m = NULL;

	return map_thin_up_in(sysfs, r, below, x, top, run, &m);
}

/* Set *m to the model of pool_devt's pool, at most a second old; 0 or -errno (why said). */
static int pool_model_of(const char *sysfs, const char *pool_devt, const char *row,
			 const struct thin_model **m)
{
	char params[1100], why[THIN_WHY];

	if (map_thin_pool_of(sysfs, pool_devt, params, sizeof(params)) < 0) {
		snprintf(last_why, sizeof(last_why), "the pool %s of thin row '%.100s' has no "
			 "thin-pool row", pool_devt, row);
		return -EINVAL;
	}
	/* a model at most a second old: the pool's blocks as the scan that found x saw them */
	return map_thin_pool_model(params, 0, m, why, sizeof(why));
}

int map_thin_up_in(const char *sysfs, const struct kio_dm_target *r, const char *below,
		   uint64_t x, uint64_t *top, uint64_t *run, const struct thin_model **m)
{
	struct thin_params tp;
	int ret;

	if (thin_row_parse(r->params, &tp) < 0) {
		snprintf(last_why, sizeof(last_why), "the thin row '%.100s' cannot be parsed",
			 r->params);
		return -EINVAL;
	}
	if (strcmp(tp.pool_devt, below)) {
		*run = UINT64_MAX;		/* another pool's volume: nowhere */
		return 0;
	}
	if (!*m) {
		ret = pool_model_of(sysfs, tp.pool_devt, r->params, m);
		if (ret < 0) {
			*m = NULL;
			return ret;
		}
	}
	ret = thin_row_up(*m, r->start, r->length, r->params, below, x, top, run);
	if (ret < 0)
		snprintf(last_why, sizeof(last_why), "thin row '%.100s' up from %s at %llu: %s",
			 r->params, below, (unsigned long long)x, strerror(-ret));
	return ret;
}

int map_thin_is_pool(const char *sysfs, const char *name)
{
	const struct kio_dm_target *rows;
	int k, pool = 0;

	if (!map_stack_is_dm(name))
		return 0;
	k = map_stack_dm_rows_get(sysfs, name, &rows);
	if (k < 0)
		return 0;
	for (int i = 0; i < k; i++)
		pool |= !strcmp(rows[i].type, "thin-pool");
	map_stack_dm_rows_put(rows);
	return pool;
}

int map_thin_pool_ranges(const char *sysfs, const char *pool,
			 int (*fn)(void *arg, const char *dev, uint64_t off, uint64_t len),
			 void *arg, char *meta, size_t meta_len, uint64_t *meta_size, char *err,
			 size_t err_len)
{
	struct kio_dm_target *rows;
	struct thin_pool_params pp;
	const struct thin_model *m = NULL;
	struct thin_extent e;
	char data[MAP_STACK_NAME];
	uint64_t from = 0, bs;
	int k, ret = -ENOENT;

	k = map_stack_dm_rows(sysfs, pool, &rows);
	if (k < 0)
		return k;
	for (int i = 0; i < k && ret == -ENOENT; i++)
		if (!strcmp(rows[i].type, "thin-pool"))
			ret = thin_pool_row_parse(rows[i].params, &pp) < 0 ? -EINVAL :
			      map_thin_pool_model(rows[i].params, 1, &m, err, err_len);
	map_stack_dm_rows_free(rows);
	if (ret < 0)
		return ret;
	if (map_stack_devt_name(pp.data_devt, data, sizeof(data)) < 0 ||
	    map_stack_devt_name(pp.meta_devt, meta, meta_len) < 0)
		return -ENODEV;
	bs = pp.data_block_size * 512;
	while (ret == 0 && thin_model_next_provisioned(m, from, &e) == 1) {
		ret = fn(arg, data, e.start * bs, e.len * bs);
		from = e.start + e.len;
	}
	if (ret == 0 && map_stack_attr_u64(sysfs, meta, "size", meta_size) == 0)
		*meta_size *= 512;
	return ret;
}
