/*
 * kernel/kio_mountinfo.c - /proc/self/mountinfo: every mount in order, or the mount at a
 * path or of a block device. Returns 0 or -errno.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>

#include "kio.h"

/* Undo mountinfo's octal escapes (\040 for space) in place. */
static void unescape_octal(char *s)
{
	char *w = s;

	while (*s) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '7' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*w++ = (char)(((s[1] - '0') << 6) | ((s[2] - '0') << 3) | (s[3] - '0'));
			s += 4;
		} else {
			*w++ = *s++;
		}
	}
	*w = '\0';
}

/* Parse one mountinfo line into m; 0 on success. */
static int parse_mountinfo_line(char *line, struct kio_mount *m)
{
	char *save = NULL, *tok, *fields[16];
	unsigned int maj, min, n = 0;
	char *sep;

	/* Fields before " - " are positional; after it: fstype source superopts. */
	sep = strstr(line, " - ");
	if (!sep)
		return -EINVAL;
	*sep = '\0';
	for (tok = strtok_r(line, " ", &save); tok && n < 16; tok = strtok_r(NULL, " ", &save))
		fields[n++] = tok;
	if (n < 5 || sscanf(fields[2], "%u:%u", &maj, &min) != 2)
		return -EINVAL;
	memset(m, 0, sizeof(*m));
	m->devt = makedev(maj, min);
	snprintf(m->mount_point, sizeof(m->mount_point), "%s", fields[4]);
	unescape_octal(m->mount_point);
	save = NULL;
	tok = strtok_r(sep + 3, " \n", &save);
	if (!tok)
		return -EINVAL;
	snprintf(m->fs_type, sizeof(m->fs_type), "%s", tok);
	tok = strtok_r(NULL, " \n", &save);
	if (tok) {
		snprintf(m->source, sizeof(m->source), "%s", tok);
		unescape_octal(m->source);
		tok = strtok_r(NULL, " \n", &save);
		if (tok)
			snprintf(m->super_opts, sizeof(m->super_opts), "%s", tok);
	}
	return 0;
}

int kio_mount_each_stream(FILE *f, int (*fn)(const struct kio_mount *m, void *arg), void *arg)
{
	char *line = NULL;
	size_t cap = 0;
	int ret = 0;
	struct kio_mount *m = malloc(sizeof(*m));

	if (!m)
		return -ENOMEM;
	while (ret == 0 && getline(&line, &cap, f) > 0) {
		if (parse_mountinfo_line(line, m))
			continue;
		ret = fn(m, arg);
	}
	free(line);
	free(m);
	return ret;
}

int kio_mount_each(int (*fn)(const struct kio_mount *m, void *arg), void *arg)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	int ret;

	if (!f)
		return -errno;
	ret = kio_mount_each_stream(f, fn, arg);
	fclose(f);
	return ret;
}

struct mount_lookup {
	const char *path;		/* match the mount point, else devt */
	dev_t devt;
	struct kio_mount *out;
	int found;
};

/* Keep the last match (the topmost mount) of a path; stop at the first of a devt. */
static int lookup_one(const struct kio_mount *m, void *arg)
{
	struct mount_lookup *l = arg;

	if (l->path ? strcmp(m->mount_point, l->path) != 0 : m->devt != l->devt)
		return 0;
	*l->out = *m;
	l->found = 1;
	return l->path ? 0 : 1;
}

static int mount_lookup(const char *path, dev_t devt, struct kio_mount *out)
{
	struct mount_lookup l = { .path = path, .devt = devt, .out = out };
	int ret = kio_mount_each(lookup_one, &l);

	if (ret < 0)
		return ret;
	return l.found ? 0 : -ENOENT;
}

int kio_mount_find(const char *path, struct kio_mount *m)
{
	return mount_lookup(path, 0, m);
}

int kio_mount_find_dev(dev_t devt, struct kio_mount *m)
{
	return mount_lookup(NULL, devt, m);
}
