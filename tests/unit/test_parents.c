/*
 * tests/unit/test_parents.c - naming inodes through XFS parent pointers (mapping/names/parents.c)
 * over a mocked XFS_IOC_GETPARENTS_BY_HANDLE (kio_xfs_getparents_by_handle, kio_xfs_fshandle
 * and kio_xfs_bulkstat_one wrapped; no filesystem here can be made with parent pointers):
 * the handle passed (filesystem id, fid_len, inode, generation), records parsed from the
 * buffer, hard links (one path per parent), records spread over several calls (the cursor kept
 * between them), directory paths built up to the root and cached, unlinked inodes left
 * without a path, and the fallback when the kernel has no parent pointers.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "fs.h"
#include "owners.h"
#include "parents.h"
#include "target.h"

#define MOCK_FD 3
#define FSID0 0x1234abcdu
#define FSID1 0x5678ef01u

/* The fake tree: root 128 { a(130) { f(131), x1(140) }, b(132) { g(131), x2(140) } },
 * 150 unlinked (open), 160 in a directory 170 whose parent is gone. */
struct fake_parent {
	uint64_t child, parent;
	const char *name;
};

static const struct fake_parent TREE[] = {
	{ 130, 128, "a" }, { 132, 128, "b" },
	{ 131, 130, "f" }, { 131, 132, "g" },
	{ 140, 130, "x1" }, { 140, 132, "x2" },
	{ 160, 170, "orphaned-child" },
};

static struct {
	int fail;			/* errno to answer with, 0 normally */
	unsigned calls;
	unsigned per_call;		/* records per call (0: all) */
	unsigned calls_of[256];
	int set_bufsize;		/* the kernel writes back the bytes used */
} mk;

int __wrap_kio_xfs_fshandle(int fd, const char *path, struct kio_xfs_handle *h);
int __wrap_kio_xfs_bulkstat_one(int fd, uint64_t ino, struct kio_xfs_inode *out);
int __wrap_kio_xfs_getparents_by_handle(int fd, struct kio_xfs_getparents_by_handle *req);

int __wrap_kio_xfs_fshandle(int fd, const char *path, struct kio_xfs_handle *h)
{
	assert_int_equal(fd, MOCK_FD);
	assert_string_equal(path, "/mnt");
	memset(h, 0, sizeof(*h));
	h->fsid[0] = FSID0;
	h->fsid[1] = FSID1;
	return 0;
}

static uint32_t gen_of(uint64_t ino)
{
	return (uint32_t)(ino * 7 + 1);
}

int __wrap_kio_xfs_bulkstat_one(int fd, uint64_t ino, struct kio_xfs_inode *out)
{
	unsigned links = 0;

	assert_int_equal(fd, MOCK_FD);
	if (ino == 999)
		return -ENOENT;
	memset(out, 0, sizeof(*out));
	out->ino = ino;
	out->gen = gen_of(ino);
	for (size_t i = 0; i < sizeof(TREE) / sizeof(TREE[0]); i++)
		links += TREE[i].child == ino;
	out->nlink = ino == 128 ? 3 : links;
	out->mode = ino == 128 || ino == 130 || ino == 132 || ino == 170 ? S_IFDIR | 0755 :
		    S_IFREG | 0644;
	return 0;
}

int __wrap_kio_xfs_getparents_by_handle(int fd, struct kio_xfs_getparents_by_handle *req)
{
	struct kio_xfs_getparents *gp = &req->gph_request;
	const struct kio_xfs_handle *h = &req->gph_handle;
	unsigned char *buf = (unsigned char *)(uintptr_t)gp->gp_buffer;
	uint32_t off = 0, skip, sent = 0, n = 0;

	assert_int_equal(fd, MOCK_FD);
	mk.calls++;
	if (mk.fail)
		return -mk.fail;
	/* The handle: this filesystem, fid_len 14, the inode and its generation. */
	assert_int_equal(h->fsid[0], FSID0);
	assert_int_equal(h->fsid[1], FSID1);
	assert_int_equal(h->fid_len, 14);
	assert_int_equal(h->fid_pad, 0);
	assert_int_equal(h->fid_gen, gen_of(h->fid_ino));
	assert_non_null(buf);
	assert_true(gp->gp_bufsize >= 4096);
	assert_int_equal(gp->gp_iflags, 0);
	assert_int_equal(gp->gp_reserved, 0);
	assert_true(h->fid_ino < 256);
	/* The cursor: zero on the first call, what we left there after. */
	skip = gp->gp_cursor[0];
	if (!mk.calls_of[h->fid_ino])
		assert_int_equal(skip, 0);
	mk.calls_of[h->fid_ino]++;
	gp->gp_oflags = 0;
	if (h->fid_ino == 128) {
		gp->gp_oflags = KIO_XFS_GETPARENTS_OFLAG_ROOT | KIO_XFS_GETPARENTS_OFLAG_DONE;
		if (mk.set_bufsize)
			gp->gp_bufsize = 0;
		return 0;
	}
	for (size_t i = 0; i < sizeof(TREE) / sizeof(TREE[0]); i++) {
		struct kio_xfs_getparents_rec *r;
		uint32_t len;

		if (TREE[i].child != h->fid_ino || n++ < skip)
			continue;
		if (mk.per_call && sent == mk.per_call)
			goto out_more;
		len = (uint32_t)(sizeof(*r) + strlen(TREE[i].name) + 1 + 7) & ~7u;
		r = (void *)(buf + off);
		memset(r, 0, len);
		r->gpr_parent.fsid[0] = FSID0;
		r->gpr_parent.fsid[1] = FSID1;
		r->gpr_parent.fid_len = 14;
		r->gpr_parent.fid_ino = TREE[i].parent;
		r->gpr_parent.fid_gen = gen_of(TREE[i].parent);
		r->gpr_reclen = len;
		strcpy(r->gpr_name, TREE[i].name);
		off += len;
		sent++;
	}
	gp->gp_oflags |= KIO_XFS_GETPARENTS_OFLAG_DONE;
out_more:
	gp->gp_cursor[0] = skip + sent;
	if (mk.set_bufsize)
		gp->gp_bufsize = off;
	return 0;
}

static struct map_target T;

static int setup(void **state)
{
	(void)state;
	memset(&mk, 0, sizeof(mk));
	memset(&T, 0, sizeof(T));
	T.ops = &map_fs_xfs;
	T.mount_fd = MOCK_FD;
	T.xfs.has_parent = 1;
	snprintf(T.mount_point, sizeof(T.mount_point), "/mnt");
	return 0;
}

/* The target's private state (the inode stats asked once, map_fsx_inode) goes with it. */
static int teardown(void **state)
{
	(void)state;
	return map_fsx_free(&T);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void paths_are(struct map_inode_paths *p, unsigned n, ...)
{
	va_list ap;

	assert_int_equal(p->nr_paths, n);
	if (n)
		qsort(p->paths, p->nr_paths, sizeof(char *), cmp_str);
	va_start(ap, n);
	for (unsigned i = 0; i < n; i++)
		assert_string_equal(p->paths[i], va_arg(ap, const char *));
	va_end(ap);
}

static void run_tree(void)
{
	struct map_inode_paths w[6];

	memset(w, 0, sizeof(w));
	w[0].inode = 128;
	w[1].inode = 131;
	w[2].inode = 132;
	w[3].inode = 140;
	w[4].inode = 150;
	w[5].inode = 160;
	assert_int_equal(map_parents_resolve(&T, w, 6), 0);
	paths_are(&w[0], 1, "/mnt");
	paths_are(&w[1], 2, "/mnt/a/f", "/mnt/b/g");
	assert_int_equal(w[1].nlink, 2);
	assert_int_equal(w[1].gen, gen_of(131));
	paths_are(&w[2], 1, "/mnt/b");
	assert_int_equal(w[2].is_dir, 1);
	paths_are(&w[3], 2, "/mnt/a/x1", "/mnt/b/x2");
	/* unlinked but open: no parent, no path, link count 0 */
	paths_are(&w[4], 0);
	assert_int_equal(w[4].unlinked, 1);
	assert_int_equal(w[4].gen, gen_of(150));
	/* its directory has no parent left: no path rather than a wrong one */
	paths_are(&w[5], 0);
	map_paths_free(w, 6);
}

static void test_tree(void **state)
{
	(void)state;
	run_tree();
	/* directory paths are cached: 128, 130 and 132 asked once each */
	assert_int_equal(mk.calls_of[130], 1);
	assert_int_equal(mk.calls_of[132], 1);
}

static void test_one_record_per_call(void **state)
{
	(void)state;
	mk.per_call = 1;			/* the cursor carries the walk across calls */
	run_tree();
	assert_int_equal(mk.calls_of[131], 2);
	assert_int_equal(mk.calls_of[140], 2);
}

static void test_kernel_writes_bufsize(void **state)
{
	(void)state;
	mk.set_bufsize = 1;
	run_tree();
}

static void test_no_parent_pointers_falls_back(void **state)
{
	struct map_inode_paths w[2];

	(void)state;
	memset(w, 0, sizeof(w));
	w[0].inode = 131;
	w[1].inode = 140;
	mk.fail = ENOTTY;			/* a kernel before 6.10 */
	assert_int_equal(map_parents_resolve(&T, w, 2), -EOPNOTSUPP);
	assert_int_equal(w[0].nr_paths, 0);
	assert_null(w[0].paths);
	mk.fail = 0;
	mk.calls = 0;
	T.xfs.has_parent = 0;			/* a filesystem made without them */
	assert_int_equal(map_parents_resolve(&T, w, 2), -EOPNOTSUPP);
	assert_int_equal(mk.calls, 0);
	T.ops = &map_fs_ext4;
	T.xfs.has_parent = 1;
	assert_int_equal(map_parents_resolve(&T, w, 2), -EOPNOTSUPP);
	assert_int_equal(mk.calls, 0);
}

static void test_struct_layout(void **state)
{
	(void)state;
	/* The kernel's layout (include/uapi xfs_fs.h, Linux 6.10). */
	assert_int_equal(offsetof(struct kio_xfs_getparents, gp_iflags), 16);
	assert_int_equal(offsetof(struct kio_xfs_getparents, gp_oflags), 18);
	assert_int_equal(offsetof(struct kio_xfs_getparents, gp_bufsize), 20);
	assert_int_equal(offsetof(struct kio_xfs_getparents, gp_buffer), 32);
	assert_int_equal(offsetof(struct kio_xfs_getparents_rec, gpr_reclen), 24);
	assert_int_equal(offsetof(struct kio_xfs_getparents_rec, gpr_name), 32);
	assert_int_equal(offsetof(struct kio_xfs_handle, fid_ino), 16);
	assert_int_equal(KIO_XFS_IOC_GETPARENTS_BY_HANDLE, _IOWR('X', 63, char[64]));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_tree, setup, teardown),
		cmocka_unit_test_setup_teardown(test_one_record_per_call, setup, teardown),
		cmocka_unit_test_setup_teardown(test_kernel_writes_bufsize, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_parent_pointers_falls_back, setup, teardown),
		cmocka_unit_test(test_struct_layout),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
