/*
 * stack/stack_memo.c - the sysfs answers a walk of the stack asks again and again (a holders
 * list, a device's dev, start and size, a devt's name), kept a second, as the dm tables are
 * (stack_sysfs.c): mapping a thousand sectors of a thin pool's disk asks each of them
 * thousands of times, and each fresh answer is an open, a read and a close. A fake sysfs
 * (tests) is never kept; the geometry watch (stack_geom.c) reads sysfs itself.
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

#define MEMO_SLOTS 2048			/* a power of two */
#define MEMO_NS 1000000000ull

static struct memo {
	char key[200];			/* "" free */
	uint64_t at;
	int ret;			/* the answer's return */
	unsigned max;			/* a list: the room it was read with */
	size_t len;
	char *val;			/* the answer's bytes */
} memo[MEMO_SLOTS];
static unsigned memo_used;

static uint64_t mono_ns(void)
{
	struct timespec ts;

	/* the tick the vDSO keeps: never a system call; a few ms off is nothing to a second */
	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static unsigned hash(const char *s)
{
	unsigned h = 2166136261u;	/* FNV-1a: keys are short */

	while (*s)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h & (MEMO_SLOTS - 1);
}

/* Write tag and the parts (NULL: none), each after a '|', to key; 0, or -1 when it does not
 * fit (then not kept). No snprintf: a walk builds thousands of keys. */
static int make_key(char *key, size_t len, char tag, const char *a, const char *b, const char *c)
{
	const char *part[3] = { a, b, c };
	size_t n = 1;

	key[0] = tag;
	for (unsigned i = 0; i < 3 && part[i]; i++) {
		size_t k = strlen(part[i]);

		if (n + 1 + k >= len)
			return -1;
		key[n++] = '|';
		memcpy(key + n, part[i], k);
		n += k;
	}
	key[n] = '\0';
	return 0;
}

/* The slot of key: its entry when kept and current, else the free slot to fill (NULL when
 * the key is too long to keep). */
static struct memo *memo_slot(const char *key, int *hit)
{
	uint64_t now = mono_ns();
	unsigned i = hash(key);

	*hit = 0;
	if (strlen(key) >= sizeof(memo[0].key))
		return NULL;
	if (memo_used >= MEMO_SLOTS * 3 / 4) {
		for (unsigned k = 0; k < MEMO_SLOTS; k++) {
			free(memo[k].val);
			memset(&memo[k], 0, sizeof(memo[k]));
		}
		memo_used = 0;
	}
	for (;; i = (i + 1) & (MEMO_SLOTS - 1)) {
		struct memo *m = &memo[i];

		if (!m->key[0]) {
			snprintf(m->key, sizeof(m->key), "%s", key);
			memo_used++;
			return m;
		}
		if (!strcmp(m->key, key)) {
			*hit = now - m->at < MEMO_NS;
			return m;
		}
	}
}

static void memo_keep(struct memo *m, int ret, const void *val, size_t len, unsigned max)
{
	free(m->val);
	m->val = len ? malloc(len) : NULL;
	if (len && !m->val) {
		m->at = 0;			/* not kept: asked again next time */
		return;
	}
	if (len)
		memcpy(m->val, val, len);
	m->len = len;
	m->ret = ret;
	m->max = max;
	m->at = mono_ns();
}

/* Name of the block device with "MAJ:MIN" devt text, from sysfs (map_stack_devt_name keeps
 * it a second). */
static int devt_name_read(const char *devt, char *name, size_t len)
{
	unsigned a, b;
	char path[128];

	if (sscanf(devt, "%u:%u", &a, &b) != 2 ||
	    kio_devpath_from_devt(makedev(a, b), path, sizeof(path)) < 0)
		return -ENODEV;
	const char *base = strncmp(path, "/dev/", 5) ? path : path + 5;

	if (strlen(base) >= len)
		return -ENAMETOOLONG;
	memcpy(name, base, strlen(base) + 1);
	return 0;
}

int map_stack_list(const char *sysfs, const char *name, const char *sub, const char *prefix,
		   char (*out)[KIO_DISK_NAME_LEN], unsigned max)
{
	char key[256];
	struct memo *m = NULL;
	int hit = 0, n;

	if (!sysfs && make_key(key, sizeof(key), 'l', name, sub, prefix ? prefix : "") == 0)
		m = memo_slot(key, &hit);
	if (m && hit && m->ret >= 0) {
		if ((unsigned)m->ret > max)
			return -E2BIG;
		memcpy(out, m->val, m->len);
		return m->ret;
	}
	if (m && hit && m->ret != -E2BIG)
		return m->ret;
	if (m && hit && max <= m->max)
		return -E2BIG;
	n = kio_blk_list(sysfs, name, sub, prefix, out, max);
	if (m)
		memo_keep(m, n, out, n > 0 ? (size_t)n * KIO_DISK_NAME_LEN : 0, max);
	return n;
}

int map_stack_attr(const char *sysfs, const char *name, const char *attr, char *buf, size_t len)
{
	char key[256];
	struct memo *m = NULL;
	int hit = 0, n;

	if (!sysfs && make_key(key, sizeof(key), 'a', name, attr, NULL) == 0)
		m = memo_slot(key, &hit);
	if (m && hit && (m->ret < 0 || m->len <= len)) {
		if (m->ret >= 0)
			memcpy(buf, m->val, m->len);
		return m->ret;
	}
	n = kio_blk_attr(sysfs, name, attr, buf, len);
	if (m)
		memo_keep(m, n, buf, n >= 0 ? (size_t)n + 1 : 0, 0);
	return n;
}

int map_stack_attr_u64(const char *sysfs, const char *name, const char *attr, uint64_t *val)
{
	char buf[64];
	int ret = map_stack_attr(sysfs, name, attr, buf, sizeof(buf));

	return ret < 0 ? ret : kio_attr_parse_u64(buf, val);
}

int map_stack_devt_name(const char *devt, char *name, size_t len)
{
	char key[64], got[MAP_STACK_NAME];
	struct memo *m;
	int hit = 0, ret;

	m = make_key(key, sizeof(key), 'd', devt, NULL, NULL) == 0 ? memo_slot(key, &hit) : NULL;
	if (m && hit) {
		if (m->ret < 0)
			return m->ret;
		if (m->len > len)
			return -ENAMETOOLONG;
		memcpy(name, m->val, m->len);
		return 0;
	}
	ret = devt_name_read(devt, got, sizeof(got));
	if (m)
		memo_keep(m, ret, got, ret == 0 ? strlen(got) + 1 : 0, 0);
	if (ret < 0)
		return ret;
	if (strlen(got) >= len)
		return -ENAMETOOLONG;
	memcpy(name, got, strlen(got) + 1);
	return 0;
}
