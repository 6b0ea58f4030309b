/*
 * kernel/kio_mountinfo.c - /proc/self/mountinfo: every mount in order, or the mount at a
 * path or of a block device. Returns 0 or -errno. The text is read again only when the mount
 * table changed: the kernel flags an open mountinfo at every change (poll's POLLPRI, what
 * libmount's monitor waits for), so asking costs a poll, not an open, a read of text the
 * kernel builds mount by mount, and a close (a map asks ten times per filesystem).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/sysmacros.h>

#include "kio.h"

/* The text last read and the open file it came from; the process's own (a forked child
 * opens its own: the change flag belongs to the open file, which fork shares). */
static pthread_mutex_t mi_lock = PTHREAD_MUTEX_INITIALIZER;
static int mi_fd = -1;
static pid_t mi_pid;
static char *mi_text;
static size_t mi_len, mi_cap;

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
	/* each field set, not the whole 12 KiB cleared: a line costs a few hundred bytes */
	m->devt = makedev(maj, min);
	m->source[0] = '\0';
	m->super_opts[0] = '\0';
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

/* Read mountinfo whole from mi_fd into mi_text; 0 or -errno (nothing kept then). */
static int mi_read(void)
{
	size_t len = 0;

	if (lseek(mi_fd, 0, SEEK_SET) < 0)
		return -errno;
	for (;;) {
		ssize_t n;

		if (len == mi_cap) {
			size_t cap = mi_cap ? 2 * mi_cap : 16384;
			char *t = realloc(mi_text, cap);

			if (!t)
				return -ENOMEM;
			mi_text = t;
			mi_cap = cap;
		}
		n = read(mi_fd, mi_text + len, mi_cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		len += (size_t)n;
	}
	mi_len = len;
	return 0;
}

/* A copy of the current mountinfo text (*len bytes, free it), read again only after a change
 * of the mount table; NULL and *err -errno when it cannot be read. */
static char *mi_copy(size_t *len, int *err)
{
	struct pollfd p = { .events = POLLPRI };
	char *copy = NULL;
	int ret = 0;

	pthread_mutex_lock(&mi_lock);
	if (mi_fd >= 0 && mi_pid != getpid()) {
		close(mi_fd);			/* the parent's open file: not ours to poll */
		mi_fd = -1;
	}
	if (mi_fd < 0) {
		mi_fd = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
		if (mi_fd < 0) {
			ret = -errno;
			goto out;
		}
		mi_pid = getpid();
		ret = mi_read();
	} else {
		p.fd = mi_fd;
		if (poll(&p, 1, 0) != 0)	/* changed (or cannot tell): read again */
			ret = mi_read();
	}
	if (ret < 0) {
		close(mi_fd);			/* nothing kept: opened again next time */
		mi_fd = -1;
		goto out;
	}
	copy = malloc(mi_len + 1);
	if (!copy) {
		ret = -ENOMEM;
		goto out;
	}
	memcpy(copy, mi_text, mi_len);
	copy[mi_len] = '\0';
	*len = mi_len;
out:
	pthread_mutex_unlock(&mi_lock);
	*err = ret;
	return copy;
}

void kio_mount_forget(void)
{
	pthread_mutex_lock(&mi_lock);
	if (mi_fd >= 0)
		close(mi_fd);
	mi_fd = -1;
	free(mi_text);
	mi_text = NULL;
	mi_len = mi_cap = 0;
	pthread_mutex_unlock(&mi_lock);
}

int kio_mount_each(int (*fn)(const struct kio_mount *m, void *arg), void *arg)
{
	size_t len = 0;
	int ret;
	char *text = mi_copy(&len, &ret);
	FILE *f;

	if (!text)
		return ret;
	f = len ? fmemopen(text, len, "r") : NULL;
	if (!f) {
		ret = len ? -errno : 0;		/* no mount at all: nothing to call fn for */
		free(text);
		return ret;
	}
	ret = kio_mount_each_stream(f, fn, arg);
	fclose(f);
	free(text);
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
