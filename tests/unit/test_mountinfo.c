/*
 * tests/unit/test_mountinfo.c - kernel/kio_mountinfo.c's mounts, kept between asks: the same
 * mounts as a fresh read of /proc/self/mountinfo, asked again and again; in a mount namespace
 * of its own (root only, else skipped), a tmpfs mounted and unmounted is seen at the next
 * ask, also when a forked child asked meanwhile (the change flag of the open file they share
 * must not be taken by the child); after kio_mount_forget (a pass's teardown) no descriptor
 * is left open, and the next ask reads again.
 */
#include <errno.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <dirent.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <cmocka.h>

#include "kio.h"

static int own_ns;			/* a mount namespace of our own */
static char dir[64];

struct list {
	char points[256][4096];
	unsigned n;
};

static int add(const struct kio_mount *m, void *arg)
{
	struct list *l = arg;

	if (l->n < 256)
		snprintf(l->points[l->n++], sizeof(l->points[0]), "%s", m->mount_point);
	return 0;
}

static void test_same_as_file(void **s)
{
	struct list *a = malloc(sizeof(*a)), *b = malloc(sizeof(*b));
	FILE *f;

	(void)s;
	assert_non_null(a);
	assert_non_null(b);
	for (int round = 0; round < 3; round++) {	/* read, then kept */
		memset(a, 0, sizeof(*a));
		memset(b, 0, sizeof(*b));
		assert_int_equal(kio_mount_each(add, a), 0);
		f = fopen("/proc/self/mountinfo", "re");
		assert_non_null(f);
		assert_int_equal(kio_mount_each_stream(f, add, b), 0);
		fclose(f);
		assert_true(a->n > 0);
		assert_int_equal(a->n, b->n);
		for (unsigned i = 0; i < a->n; i++)
			assert_string_equal(a->points[i], b->points[i]);
	}
	free(a);
	free(b);
}

static void test_changes(void **s)
{
	struct kio_mount *m = malloc(sizeof(*m));
	int status;
	pid_t pid;

	(void)s;
	if (!own_ns) {
		free(m);
		skip();
	}
	assert_non_null(m);
	assert_int_equal(kio_mount_find(dir, m), -ENOENT);
	assert_int_equal(mount("t1", dir, "tmpfs", 0, "size=1m"), 0);
	assert_int_equal(kio_mount_find(dir, m), 0);
	assert_string_equal(m->fs_type, "tmpfs");
	assert_string_equal(m->source, "t1");
	assert_int_equal(umount(dir), 0);
	assert_int_equal(kio_mount_find(dir, m), -ENOENT);
	/* a child mounts and asks (its own read); the parent still sees the change */
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int ok = mount("t2", dir, "tmpfs", 0, "size=1m") == 0 &&
			 kio_mount_find(dir, m) == 0 && !strcmp(m->source, "t2");

		free(m);
		_exit(ok ? 0 : 1);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_int_equal(kio_mount_find(dir, m), 0);
	assert_string_equal(m->source, "t2");
	assert_int_equal(umount(dir), 0);
	assert_int_equal(kio_mount_find(dir, m), -ENOENT);
	free(m);
}

/* The descriptors this process has open. */
static int nr_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	assert_non_null(d);
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

static void test_forget(void **s)
{
	struct list *a = calloc(1, sizeof(*a));
	int before;

	(void)s;
	assert_non_null(a);
	kio_mount_forget();
	before = nr_fds();
	assert_int_equal(kio_mount_each(add, a), 0);
	assert_int_equal(nr_fds(), before + 1);		/* kept open between asks */
	kio_mount_forget();
	assert_int_equal(nr_fds(), before);
	a->n = 0;
	assert_int_equal(kio_mount_each(add, a), 0);	/* read again */
	assert_true(a->n > 0);
	kio_mount_forget();
	free(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_as_file),
		cmocka_unit_test(test_changes),
		cmocka_unit_test(test_forget),
	};
	int ret;

	/* before the first ask: the kept file is then of this namespace */
	snprintf(dir, sizeof(dir), "/tmp/mediascan-mnt-XXXXXX");
	if (mkdtemp(dir) && unshare(CLONE_NEWNS) == 0 &&
	    mount("none", "/", "none", MS_REC | MS_PRIVATE, NULL) == 0)
		own_ns = 1;
	ret = cmocka_run_group_tests(tests, NULL, NULL);
	rmdir(dir);
	return ret;
}
