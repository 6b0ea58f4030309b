/*
 * tests/unit/thin_fixture.c - dm-thin metadata fixtures built by thin_restore at test time
 * (thin-provisioning-tools, installed by scripts/deps): the binary format comes from the
 * tools that define it, not from this project's own idea of it. The small pool's model is
 * checked here too (fx_check_small), by hand, for every test file that reads that pool.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "stack_thin.h"
#include "thin_fixture.h"

const char *fx_tool(const char *tool)
{
	static char found[512];
	const char *path = getenv("PATH");
	char dirs[4096];
	char *save = NULL;

	snprintf(dirs, sizeof(dirs), "%s:/usr/sbin:/sbin", path ? path : "/usr/bin:/bin");
	for (char *d = strtok_r(dirs, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
		snprintf(found, sizeof(found), "%s/%s", d, tool);
		if (access(found, X_OK) == 0)
			return found;
	}
	return NULL;
}

char *fx_tmpdir(void)
{
	char *t = strdup("/var/tmp/test_stack_thin.XXXXXX");

	if (t && !mkdtemp(t)) {
		free(t);
		return NULL;
	}
	return t;
}

void fx_tmpdir_remove(char *dir)
{
	char cmd[600];

	if (!dir)
		return;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", dir);
	free(dir);
}

void fx_add(struct fx_pool *p, uint32_t dev, uint64_t vblock, uint64_t dblock, uint32_t time)
{
	if (p->nr_maps == p->cap_maps) {
		p->cap_maps = p->cap_maps ? 2 * p->cap_maps : 256;
		p->maps = realloc(p->maps, p->cap_maps * sizeof(*p->maps));
		if (!p->maps)
			abort();
	}
	p->maps[p->nr_maps++] = (struct fx_map){ dev, vblock, dblock, time };
}

static int map_cmp(const void *x, const void *y)
{
	const struct fx_map *a = x, *b = y;

	if (a->dev != b->dev)
		return a->dev < b->dev ? -1 : 1;
	return a->vblock < b->vblock ? -1 : a->vblock > b->vblock;
}

void fx_sort(struct fx_pool *p)
{
	qsort(p->maps, p->nr_maps, sizeof(*p->maps), map_cmp);
}

/* Write device d's mappings (maps[*i..] of dev d->id), one per line, as thin_restore reads. */
static void write_device(FILE *f, const struct fx_pool *p, const struct fx_dev *d)
{
	size_t n = 0;

	for (size_t i = 0; i < p->nr_maps; i++)
		n += p->maps[i].dev == d->id;
	fprintf(f, "  <device dev_id=\"%u\" mapped_blocks=\"%zu\" transaction=\"%lu\" "
		"creation_time=\"%u\" snap_time=\"%u\">\n", d->id, n, (unsigned long)d->trans_id,
		d->creation_time, d->snap_time);
	for (size_t i = 0; i < p->nr_maps; i++) {
		const struct fx_map *m = &p->maps[i];

		if (m->dev == d->id)
			fprintf(f, "    <single_mapping origin_block=\"%lu\" data_block=\"%lu\" "
				"time=\"%u\"/>\n", (unsigned long)m->vblock,
				(unsigned long)m->dblock, m->time);
	}
	fprintf(f, "  </device>\n");
}

int fx_restore(const struct fx_pool *p, const char *dir, const char *name, size_t meta_bytes)
{
	char xml[512], meta[512], cmd[1600];
	const char *restore = fx_tool("thin_restore");
	FILE *f;
	int fd;

	snprintf(xml, sizeof(xml), "%s/%s.xml", dir, name);
	snprintf(meta, sizeof(meta), "%s/%s.meta", dir, name);
	f = fopen(xml, "w");
	if (!f || !restore)
		return -1;
	fprintf(f, "<superblock uuid=\"\" time=\"%u\" transaction=\"%lu\" flags=\"0\" "
		"version=\"2\" data_block_size=\"%u\" nr_data_blocks=\"%lu\">\n", p->time,
		(unsigned long)p->trans_id, p->data_block_size, (unsigned long)p->nr_data_blocks);
	for (size_t i = 0; i < p->nr_devs; i++)
		write_device(f, p, &p->devs[i]);
	fprintf(f, "</superblock>\n");
	fclose(f);
	/* thin_restore writes into an existing file of the metadata device's size. */
	fd = open(meta, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || ftruncate(fd, (off_t)meta_bytes) != 0)
		return -1;
	close(fd);
	snprintf(cmd, sizeof(cmd), "'%s' -q -i '%s' -o '%s'", restore, xml, meta);
	if (system(cmd) != 0) {
		fprintf(stderr, "thin_restore failed: %s\n", cmd);
		return -1;
	}
	return 0;
}

int fx_image_load(const char *path, struct fx_image *img)
{
	FILE *f = fopen(path, "rb");
	struct stat st;

	memset(img, 0, sizeof(*img));
	if (!f)
		return -1;
	if (fstat(fileno(f), &st) != 0 || !(img->data = malloc((size_t)st.st_size)) ||
	    fread(img->data, 1, (size_t)st.st_size, f) != (size_t)st.st_size) {
		fclose(f);
		return -1;
	}
	img->len = (size_t)st.st_size;
	fclose(f);
	return 0;
}

void fx_image_free(struct fx_image *img)
{
	free(img->data);
	memset(img, 0, sizeof(*img));
}

int fx_image_read(void *arg, uint64_t block, void *buf)
{
	const struct fx_image *img = arg;

	if ((block + 1) * THIN_META_BLOCK > img->len)
		return -EIO;
	memcpy(buf, img->data + block * THIN_META_BLOCK, THIN_META_BLOCK);
	return 0;
}

int fx_image_read_many(void *arg, const uint64_t *blocks, unsigned n, uint8_t *bufs)
{
	for (unsigned i = 0; i < n; i++) {
		int r = fx_image_read(arg, blocks[i], bufs + (size_t)i * THIN_META_BLOCK);

		if (r < 0)
			return r;
	}
	return 0;
}

char *fx_run(const char *cmd)
{
	FILE *f = popen(cmd, "r");
	size_t len = 0, cap = 1 << 16, n;
	char *out = malloc(cap);

	if (!f || !out)
		return NULL;
	while ((n = fread(out + len, 1, cap - len - 1, f)) > 0) {
		len += n;
		if (cap - len < 4096) {
			cap *= 2;
			out = realloc(out, cap);
			if (!out)
				abort();
		}
	}
	out[len] = 0;
	if (pclose(f) != 0) {
		free(out);
		return NULL;
	}
	return out;
}

void fx_reseal(uint8_t *block, uint32_t salt)
{
	uint32_t c = thin_block_csum(block, salt);

	block[0] = (uint8_t)c;
	block[1] = (uint8_t)(c >> 8);
	block[2] = (uint8_t)(c >> 16);
	block[3] = (uint8_t)(c >> 24);
}

void fx_put_le64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

uint64_t fx_get_le64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

struct fx_image fx_image_copy(const struct fx_image *img)
{
	struct fx_image c = { malloc(img->len), img->len };

	assert_non_null(c.data);
	memcpy(c.data, img->data, img->len);
	return c;
}

int fx_triple_cmp(const void *x, const void *y)
{
	const struct fx_triple *a = x, *b = y;

	if (a->d != b->d)
		return a->d < b->d ? -1 : 1;
	if (a->dev != b->dev)
		return a->dev < b->dev ? -1 : 1;
	return a->v < b->v ? -1 : a->v > b->v;
}

struct fx_triple *fx_truth_by_data(const struct fx_pool *p)
{
	struct fx_triple *t = malloc((p->nr_maps ? p->nr_maps : 1) * sizeof(*t));

	if (!t)
		return NULL;
	for (size_t i = 0; i < p->nr_maps; i++)
		t[i] = (struct fx_triple){ p->maps[i].dblock, p->maps[i].vblock, p->maps[i].dev };
	qsort(t, p->nr_maps, sizeof(*t), fx_triple_cmp);
	return t;
}

/* Add thin_rmap's line l ("data D0..D1 -> thin(DEV) V0..V1") block by block to *t. */
static int rmap_line(const char *l, struct fx_triple **t, size_t *n, size_t *cap)
{
	unsigned long d0, d1, v0, v1;
	unsigned dev;

	if (sscanf(l, "data %lu..%lu -> thin(%u) %lu..%lu", &d0, &d1, &dev, &v0, &v1) != 5 ||
	    d1 - d0 != v1 - v0) {
		fprintf(stderr, "thin_rmap said: %s\n", l);
		return -1;
	}
	for (unsigned long k = 0; k < d1 - d0; k++) {
		if (*n == *cap) {
			*cap = *cap ? 2 * *cap : 4096;
			*t = realloc(*t, *cap * sizeof(**t));
			if (!*t)
				return -1;
		}
		(*t)[(*n)++] = (struct fx_triple){ d0 + k, v0 + k, dev };
	}
	return 0;
}

struct fx_triple *fx_rmap(const char *meta, uint64_t nr_data_blocks, size_t *n)
{
	char cmd[900], *out, *save = NULL;
	struct fx_triple *t = NULL;
	size_t cap = 0;

	snprintf(cmd, sizeof(cmd), "'%s' --region 0..%lu '%s'", fx_tool("thin_rmap"),
		 (unsigned long)nr_data_blocks, meta);
	out = fx_run(cmd);
	if (!out)
		return NULL;
	*n = 0;
	for (char *l = strtok_r(out, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
		if (rmap_line(l, &t, n, &cap) < 0) {
			free(t);
			free(out);
			return NULL;
		}
	free(out);
	if (t)
		qsort(t, *n, sizeof(*t), fx_triple_cmp);
	return t;
}

/* Write device d's runs as thin_dump does: a run of one time is a range mapping. */
static void dev_xml(FILE *f, const struct thin_dev *d)
{
	fprintf(f, "  <device dev_id=\"%u\" mapped_blocks=\"%lu\" transaction=\"%lu\" "
		"creation_time=\"%u\" snap_time=\"%u\">\n", d->id, (unsigned long)d->mapped_blocks,
		(unsigned long)d->trans_id, d->creation_time, d->snapshotted_time);
	for (size_t j = 0; j < d->nr_runs; j++) {
		const struct thin_run *r = &d->runs[j];

		if (r->len > 1)
			fprintf(f, "    <range_mapping origin_begin=\"%lu\" data_begin=\"%lu\" "
				"length=\"%u\" time=\"%u\"/>\n", (unsigned long)r->vblock,
				(unsigned long)r->dblock, r->len, r->time);
		else
			fprintf(f, "    <single_mapping origin_block=\"%lu\" data_block=\"%lu\" "
				"time=\"%u\"/>\n", (unsigned long)r->vblock,
				(unsigned long)r->dblock, r->time);
	}
	fprintf(f, "  </device>\n");
}

char *fx_model_xml(const struct thin_model *m)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	fprintf(f, "<superblock uuid=\"\" time=\"%u\" transaction=\"%lu\" flags=\"%u\" "
		"version=\"%u\" data_block_size=\"%u\" nr_data_blocks=\"%lu\">\n", m->sb.time,
		(unsigned long)m->sb.trans_id, m->sb.flags, m->sb.version, m->sb.data_block_size,
		(unsigned long)m->sb.data_nr_blocks);
	for (size_t i = 0; i < m->nr_devs; i++)
		dev_xml(f, &m->devs[i]);
	fprintf(f, "</superblock>\n");
	fclose(f);
	return buf;
}

/* The small pool: volume 1, snapshot 2 of it sharing virtual blocks 0..15 (data 0..15), each
 * with a block of its own at virtual block 100 (the snapshot's copied on write at time 1),
 * volume 1 written at 200..202 after the snapshot; device 3 has no mappings. */
void fx_small_pool(struct fx_pool *p, int one_more)
{
	static struct fx_dev devs[] = { { 1, 0, 0, 1 }, { 2, 1, 1, 1 }, { 3, 2, 1, 1 } };

	memset(p, 0, sizeof(*p));
	p->time = 1;
	p->trans_id = one_more ? 4 : 3;
	p->data_block_size = 128;
	p->nr_data_blocks = 1024;
	p->devs = devs;
	p->nr_devs = 3;
	for (uint64_t v = 0; v < 16; v++) {
		fx_add(p, 1, v, v, 0);
		fx_add(p, 2, v, v, 0);
	}
	fx_add(p, 1, 100, 50, 0);
	fx_add(p, 2, 100, 51, 1);
	for (uint64_t v = 200; v < 203; v++)
		fx_add(p, 1, v, 60 + v - 200, 1);
	if (one_more)
		fx_add(p, 2, 101, 52, 1);
	fx_sort(p);
}

void fx_check_small(const struct thin_model *m, int one_more)
{
	struct thin_owner o[8];
	struct thin_run r[8];
	struct thin_extent e;
	struct thin_totals t;
	const struct thin_dev *d;

	assert_int_equal(m->sb.data_block_size, 128);
	assert_int_equal(m->sb.data_nr_blocks, 1024);
	assert_int_equal(m->sb.trans_id, one_more ? 4 : 3);
	assert_int_equal(m->sb.time, 1);
	assert_int_equal(m->nr_devs, 3);
	d = thin_model_dev(m, 1);
	assert_non_null(d);
	assert_int_equal(d->mapped_blocks, 20);
	assert_int_equal(d->counted, 20);
	assert_int_equal(d->snapshotted_time, 1);
	/* 0..15 and 100 at time 0 are not contiguous; 200..202 at time 1: three runs */
	assert_int_equal(d->nr_runs, 3);
	d = thin_model_dev(m, 2);
	assert_int_equal(d->creation_time, 1);
	assert_int_equal(d->trans_id, 1);
	assert_int_equal(d->counted, one_more ? 18 : 17);
	assert_int_equal(d->counted, d->mapped_blocks);
	d = thin_model_dev(m, 3);
	assert_int_equal(d->nr_runs, 0);
	assert_null(thin_model_dev(m, 4));

	/* a shared block: both the volume and its snapshot own it */
	assert_int_equal(thin_model_owners(m, 5, 1, o, 8), 2);
	assert_int_equal(o[0].dev_id, 1);
	assert_int_equal(o[0].vblock, 5);
	assert_int_equal(o[0].len, 1);
	assert_int_equal(o[1].dev_id, 2);
	assert_int_equal(o[1].vblock, 5);
	/* each its own copy of virtual block 100; a range across them is clipped */
	assert_int_equal(thin_model_owners(m, 49, 3, o, 8), 2);
	assert_int_equal(o[0].dblock, 50);
	assert_int_equal(o[0].dev_id, 1);
	assert_int_equal(o[0].vblock, 100);
	assert_int_equal(o[1].dblock, 51);
	assert_int_equal(o[1].dev_id, 2);
	assert_int_equal(o[1].time, 1);
	assert_int_equal(thin_model_owners(m, 61, 10, o, 8), 1);
	assert_int_equal(o[0].vblock, 201);
	assert_int_equal(o[0].len, 2);
	/* unprovisioned data blocks have no owner */
	assert_int_equal(thin_model_owners(m, 20, 30, o, 8), 0);
	assert_int_equal(thin_model_owners(m, 0, 1024, o, 1), -E2BIG);

	/* virtual ranges down to data runs, holes left out */
	assert_int_equal(thin_model_lookup(m, 1, 10, 192, r, 8), 3);
	assert_int_equal(r[0].vblock, 10);
	assert_int_equal(r[0].dblock, 10);
	assert_int_equal(r[0].len, 6);
	assert_int_equal(r[1].dblock, 50);
	assert_int_equal(r[2].vblock, 200);
	assert_int_equal(r[2].len, 2);
	assert_int_equal(r[2].time, 1);
	assert_int_equal(thin_model_lookup(m, 2, 16, 84, r, 8), 0);
	assert_int_equal(thin_model_lookup(m, 3, 0, 1000, r, 8), 0);
	assert_int_equal(thin_model_lookup(m, 9, 0, 1, r, 8), -ENOENT);

	/* the provisioned data blocks, what a scan of the data device reads */
	assert_int_equal(thin_model_next_provisioned(m, 0, &e), 1);
	assert_int_equal(e.start, 0);
	assert_int_equal(e.len, 16);
	assert_int_equal(thin_model_next_provisioned(m, 16, &e), 1);
	assert_int_equal(e.start, 50);
	assert_int_equal(e.len, one_more ? 3 : 2);
	assert_int_equal(thin_model_next_provisioned(m, 61, &e), 1);
	assert_int_equal(e.start, 61);
	assert_int_equal(e.len, 2);
	assert_int_equal(thin_model_next_provisioned(m, 63, &e), 0);

	thin_model_totals(m, &t);
	assert_int_equal(t.data_block_bytes, 65536);
	assert_int_equal(t.data_nr_blocks, 1024);
	assert_int_equal(t.data_allocated, one_more ? 22 : 21);
	assert_int_equal(t.provisioned, t.data_allocated);
	assert_int_equal(t.mappings, one_more ? 38 : 37);
	assert_int_equal(t.shared, 16);
	assert_int_equal(t.nr_devs, 3);
}

/* The large pool: volumes 1 and 2 written in runs with gaps (data allocated in order, with
 * holes), 3 a snapshot of 1 with a tenth of its runs copied on write at time 1, 4 a snapshot
 * of 3 (time 2) sharing all of it, 5 empty. Thousands of mappings: internal nodes on every
 * device's tree. */
void fx_large_pool(struct fx_pool *p)
{
	static struct fx_dev devs[] = { { 1, 0, 0, 2 }, { 2, 0, 0, 0 }, { 3, 1, 1, 2 },
					{ 4, 2, 2, 2 }, { 5, 3, 2, 2 } };
	uint64_t dcur = 0;
	unsigned seed = 31;
	size_t n1;

	memset(p, 0, sizeof(*p));
	p->time = 2;
	p->trans_id = 7;
	p->data_block_size = 128;
	p->nr_data_blocks = FX_LARGE_DATA_BLOCKS;
	p->devs = devs;
	p->nr_devs = 5;
	for (uint32_t dev = 1; dev <= 2; dev++) {
		uint64_t v = (uint64_t)rand_r(&seed) % 7;

		while (v < (dev == 1 ? 24000u : 12000u)) {
			unsigned len = 1 + (unsigned)rand_r(&seed) % 9;

			for (unsigned k = 0; k < len; k++)
				fx_add(p, dev, v + k, dcur + k, 0);
			v += len + (uint64_t)rand_r(&seed) % 4;
			dcur += len + (rand_r(&seed) % 3 == 0 ? (uint64_t)rand_r(&seed) % 5 : 0);
		}
	}
	n1 = p->nr_maps;
	for (size_t i = 0; i < n1; i++) {
		const struct fx_map m = p->maps[i];

		if (m.dev != 1)
			continue;
		if (m.vblock % 97 < 10)
			fx_add(p, 3, m.vblock, dcur++, 1);
		else
			fx_add(p, 3, m.vblock, m.dblock, m.time);
	}
	n1 = p->nr_maps;
	for (size_t i = 0; i < n1; i++)
		if (p->maps[i].dev == 3)
			fx_add(p, 4, p->maps[i].vblock, p->maps[i].dblock, p->maps[i].time);
	fx_sort(p);
}

int fx_set_build(struct fx_set *fx)
{
	struct fx_pool a, b;
	char path[600];
	int ok;

	memset(fx, 0, sizeof(*fx));
	if (!fx_tool("thin_restore"))
		return 1;
	fx->dir = fx_tmpdir();
	if (!fx->dir)
		return -1;
	fx_small_pool(&a, 0);
	fx_small_pool(&b, 1);
	fx_large_pool(&fx->large_pool);
	ok = fx_restore(&a, fx->dir, "a", 4u << 20) == 0 &&
	     fx_restore(&b, fx->dir, "b", 4u << 20) == 0 &&
	     fx_restore(&fx->large_pool, fx->dir, "large", 16u << 20) == 0;
	free(a.maps);
	free(b.maps);
	if (!ok)
		return -1;
	snprintf(fx->a_path, sizeof(fx->a_path), "%s/a.meta", fx->dir);
	snprintf(fx->large_path, sizeof(fx->large_path), "%s/large.meta", fx->dir);
	snprintf(path, sizeof(path), "%s/b.meta", fx->dir);
	if (fx_image_load(fx->a_path, &fx->a) || fx_image_load(path, &fx->b) ||
	    fx_image_load(fx->large_path, &fx->large))
		return -1;
	return 0;
}

void fx_set_free(struct fx_set *fx)
{
	fx_image_free(&fx->a);
	fx_image_free(&fx->b);
	fx_image_free(&fx->large);
	free(fx->large_pool.maps);
	fx_tmpdir_remove(fx->dir);
	fx->dir = NULL;
}

struct fx_set fx;

int fx_setup(void **state)
{
	(void)state;
	return fx_set_build(&fx) < 0 ? -1 : 0;
}

int fx_teardown(void **state)
{
	(void)state;
	fx_set_free(&fx);
	return 0;
}

void fx_need_tools(void)
{
	if (!fx.dir) {
		fprintf(stderr, "skip: thin_restore (thin-provisioning-tools) is not installed; "
			"scripts/deps installs it\n");
		skip();
	}
}
