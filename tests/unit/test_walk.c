/*
 * tests/unit/test_walk.c - the one bounded directory walk (mapping/names/walk.c) under both of its
 * users, on real directories of the host's filesystem with the kernel's own FIEMAP: the FIEMAP
 * owner index (index.c) finds a file 600 directories deep (its old walker stopped at depth 512
 * and said nothing), and both the index and the naming walk count a tree deeper than the bound
 * as skipped instead of dropping it silently. Skips where TMPDIR has no FIEMAP (tmpfs).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <cmocka.h>
#include <linux/fiemap.h>

#include "fs.h"
#include "index.h"
#include "names.h"
#include "walk.h"

static char root[256];

/* Remove the tree under dirfd/name (fds all the way: deeper than PATH_MAX). */
static void rm_tree(int pfd, const char *name)
{
	int fd = openat(pfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
	DIR *d;
	struct dirent *de;

	if (fd < 0) {
		unlinkat(pfd, name, 0);
		return;
	}
	d = fdopendir(fd);
	while (d && (de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (de->d_type == DT_DIR)
			rm_tree(dirfd(d), de->d_name);
		else
			unlinkat(dirfd(d), de->d_name, 0);
	}
	if (d)
		closedir(d);
	unlinkat(pfd, name, AT_REMOVEDIR);
}

/* Make depth nested directories "d" under root; return an fd on the deepest one. */
static int make_deep(const char *top, unsigned depth)
{
	int fd = open(root, O_RDONLY | O_DIRECTORY);

	assert_true(fd >= 0);
	assert_int_equal(mkdirat(fd, top, 0755), 0);
	int nfd = openat(fd, top, O_RDONLY | O_DIRECTORY);

	close(fd);
	fd = nfd;
	for (unsigned i = 0; i < depth; i++) {
		assert_true(fd >= 0);
		assert_int_equal(mkdirat(fd, "d", 0755), 0);
		nfd = openat(fd, "d", O_RDONLY | O_DIRECTORY);
		close(fd);
		fd = nfd;
	}
	assert_true(fd >= 0);
	return fd;
}

static int setup(void **state)
{
	const char *tmp = getenv("TMPDIR");

	(void)state;
	snprintf(root, sizeof(root), "%s/ms-walk.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	assert_non_null(mkdtemp(root));
	return 0;
}

static int teardown(void **state)
{
	int fd = open("/", O_RDONLY | O_DIRECTORY);

	(void)state;
	rm_tree(fd, root);
	close(fd);
	return 0;
}

/* The physical extent of a written, synced file; skip when this filesystem has no FIEMAP. */
static void file_extent(int fd, uint64_t *phys, uint64_t *len)
{
	struct {
		struct fiemap fm;
		struct fiemap_extent ext[4];
	} b;

	memset(&b, 0, sizeof(b));
	b.fm.fm_length = UINT64_MAX;
	b.fm.fm_flags = FIEMAP_FLAG_SYNC;
	b.fm.fm_extent_count = 4;
	if (kio_fiemap(fd, &b.fm) < 0 || b.fm.fm_mapped_extents == 0 ||
	    (b.ext[0].fe_flags & FIEMAP_EXTENT_UNKNOWN))
		skip();
	*phys = b.ext[0].fe_physical;
	*len = b.ext[0].fe_length;
}

/* A file 600 directories down: the index must find its owner (the old walker gave up at 512
 * without a word). */
static void test_index_deep_file(void **state)
{
	struct map_target t;
	struct map_ix_hits h = { 0 };
	struct map_ix_query q;
	char buf[8192], why[160] = "";
	unsigned skipped = 99;
	uint64_t phys, len;
	struct stat st;
	int dfd, fd, found = 0;

	(void)state;
	dfd = make_deep("deep", 600);
	fd = openat(dfd, "victim", O_WRONLY | O_CREAT, 0644);
	assert_true(fd >= 0);
	memset(buf, 0x5a, sizeof(buf));
	assert_int_equal(write(fd, buf, sizeof(buf)), (ssize_t)sizeof(buf));
	assert_int_equal(fsync(fd), 0);
	assert_int_equal(fstat(fd, &st), 0);
	file_extent(fd, &phys, &len);
	close(fd);
	close(dfd);

	memset(&t, 0, sizeof(t));
	t.mount_fd = -1;
	snprintf(t.mount_point, sizeof(t.mount_point), "%s", root);
	q = (struct map_ix_query){ phys, phys + 4096 };
	assert_int_equal(map_index_walk(&t, &q, 1, &h, &skipped, why, sizeof(why)), 0);
	for (size_t i = 0; i < h.nr; i++)
		found |= h.v[i].o.inode == st.st_ino && h.v[i].o.kind == MAP_OWN_FILE;
	assert_true(found);
	assert_int_equal(skipped, 0);
	free(h.v);
}

/* A tree deeper than the bound: not walked below it, and said (both users of the walk). */
static void test_too_deep_counted(void **state)
{
	struct map_target t;
	struct map_ix_hits h = { 0 };
	struct map_ix_query q = { 0, 4096 };
	struct map_inode_paths want = { .inode = 1 };	/* never found: the walk goes on */
	char why[160] = "";
	unsigned skipped = 0, unnamed = 0;
	int fd = make_deep("abyss", MAP_WALK_MAX_DEPTH + 3);

	(void)state;
	close(fd);
	memset(&t, 0, sizeof(t));
	t.mount_fd = -1;
	snprintf(t.mount_point, sizeof(t.mount_point), "%s", root);
	assert_int_equal(map_index_walk(&t, &q, 1, &h, &skipped, why, sizeof(why)), 0);
	assert_int_equal(skipped, 1);
	assert_int_equal(map_paths_resolve(root, &want, 1, &unnamed), 0);
	assert_int_equal(unnamed, 1);
	map_paths_free(&want, 1);
	free(h.v);
}

/* A directory that cannot be opened (not as root: permissions do not stop root). */
static void test_unreadable_counted(void **state)
{
	struct map_target t;
	struct map_ix_hits h = { 0 };
	struct map_ix_query q = { 0, 4096 };
	char path[300], why[160] = "";
	unsigned skipped = 0;

	(void)state;
	if (geteuid() == 0)
		skip();
	snprintf(path, sizeof(path), "%s/locked", root);
	assert_int_equal(mkdir(path, 0), 0);
	memset(&t, 0, sizeof(t));
	t.mount_fd = -1;
	snprintf(t.mount_point, sizeof(t.mount_point), "%s", root);
	assert_int_equal(map_index_walk(&t, &q, 1, &h, &skipped, why, sizeof(why)), 0);
	assert_int_equal(skipped, 1);
	chmod(path, 0755);
	free(h.v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_index_deep_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_too_deep_counted, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unreadable_counted, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
