/*
 * tests/fuzz/fuzz_mountinfo.c - /proc/self/mountinfo lines (kernel/kio_mountinfo.c): any
 * text, octal escapes and all, parsed into mounts; every field a NUL-terminated string within
 * its buffer.
 */
#include <errno.h>
#include <stdio.h>

#include "fuzz.h"
#include "kio.h"

static int check_mount(const struct kio_mount *m, void *arg)
{
	unsigned *n = arg;

	if (strnlen(m->mount_point, sizeof(m->mount_point)) == sizeof(m->mount_point) ||
	    strnlen(m->fs_type, sizeof(m->fs_type)) == sizeof(m->fs_type) ||
	    strnlen(m->source, sizeof(m->source)) == sizeof(m->source) ||
	    strnlen(m->super_opts, sizeof(m->super_opts)) == sizeof(m->super_opts) ||
	    !m->fs_type[0])
		abort();
	return ++*n > 100000;		/* a non-zero return stops the walk, and is returned */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	FILE *f = fmemopen((void *)data, size, "r");
	unsigned n = 0;
	int ret;

	if (!size || !f) {
		if (f)
			fclose(f);
		return 0;
	}
	ret = kio_mount_each_stream(f, check_mount, &n);
	if (ret < 0 && ret != -ENOMEM)
		abort();
	fclose(f);
	return 0;
}
