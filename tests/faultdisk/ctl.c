// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tests/faultdisk/ctl.c - the fault disk's ctl file: the commands written to it, which edit
 * the fault table, the counters and the disk model, and the state read back from it (the
 * syntax of both: faultdisk.c).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "faultdisk.h"

/* Index of the range with exactly this kind/offset/length, or -ENOENT. */
static ssize_t fd_find_locked(enum fd_range_kind kind, uint64_t off, uint64_t len)
{
	size_t i;

	for (i = 0; i < fd_state.nr_ranges; i++) {
		const struct fd_range *r = &fd_state.ranges[i];

		if (r->kind == kind && r->off_bytes == off && r->len_bytes == len)
			return i;
	}
	return -ENOENT;
}

/* Add (or, for delay and flaky, update) a range; arg is the delay in ms or the failures
 * left; returns 0 or -errno. */
static int fd_add_locked(enum fd_range_kind kind, uint64_t off, uint64_t len, unsigned int arg)
{
	struct fd_range *r;
	ssize_t idx;
	size_t pos;

	idx = fd_find_locked(kind, off, len);
	if (idx >= 0) {
		if (kind == FD_RANGE_FLAKY)
			fd_state.ranges[idx].fail_left = arg;
		else if (kind == FD_RANGE_ERRNO)
			fd_state.ranges[idx].err = arg;
		else
			fd_state.ranges[idx].delay_ms = arg;
		return 0;
	}
	if (fd_state.nr_ranges == fd_state.alloc_ranges) {
		size_t n = fd_state.alloc_ranges ? fd_state.alloc_ranges * 2 : 16;

		r = realloc(fd_state.ranges, n * sizeof(*r));
		if (!r)
			return -ENOMEM;
		fd_state.ranges = r;
		fd_state.alloc_ranges = n;
	}
	for (pos = 0; pos < fd_state.nr_ranges; pos++) {
		r = &fd_state.ranges[pos];
		if (r->off_bytes > off || (r->off_bytes == off && r->kind > kind))
			break;
	}
	memmove(&fd_state.ranges[pos + 1], &fd_state.ranges[pos],
		(fd_state.nr_ranges - pos) * sizeof(*r));
	fd_state.ranges[pos] = (struct fd_range){
		.kind = kind,
		.off_bytes = off,
		.len_bytes = len,
		.delay_ms = kind == FD_RANGE_DELAY ? arg : 0,
		.fail_left = kind == FD_RANGE_FLAKY ? arg : 0,
		.err = kind == FD_RANGE_ERRNO ? arg : 0,
	};
	fd_state.nr_ranges++;
	return 0;
}

/* Remove the ranges (of any kind) equal to OFF/LEN; returns 0 or -ENOENT. */
static int fd_del_locked(uint64_t off, uint64_t len)
{
	int found = 0;
	size_t i = 0;

	while (i < fd_state.nr_ranges) {
		struct fd_range *r = &fd_state.ranges[i];

		if (r->off_bytes == off && r->len_bytes == len) {
			memmove(r, r + 1, (fd_state.nr_ranges - i - 1) * sizeof(*r));
			fd_state.nr_ranges--;
			found = 1;
			continue;
		}
		i++;
	}
	return found ? 0 : -ENOENT;
}

/* Parse an unsigned 64-bit number (decimal, 0x hex); returns 0 or -EINVAL. */
static int fd_parse_u64(const char *s, uint64_t *out)
{
	unsigned long long v;
	char *end;

	if (!s || *s == '-' || *s == '\0')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end != '\0')
		return -EINVAL;
	*out = v;
	return 0;
}

/* Parse OFFSET LENGTH (LENGTH > 0, no overflow); returns 0 or -EINVAL. */
static int fd_parse_range(const char *a, const char *b, uint64_t *off, uint64_t *len)
{
	if (fd_parse_u64(a, off) || fd_parse_u64(b, len))
		return -EINVAL;
	if (*len == 0 || *off + *len < *off)
		return -EINVAL;
	return 0;
}

/* Execute one ctl command line (NUL-terminated); returns 0 or -errno. */
static int fd_ctl_command(char *line)
{
	char *argv[5];
	char *save = NULL;
	uint64_t off, len, ms;
	int argc = 0;
	char *tok;
	int ret;

	for (tok = strtok_r(line, " \t\r", &save); tok; tok = strtok_r(NULL, " \t\r", &save)) {
		if (argc == 5)
			return -EINVAL;
		argv[argc++] = tok;
	}
	if (argc == 0 || argv[0][0] == '#')
		return 0;

	pthread_mutex_lock(&fd_state.lock);
	ret = -EINVAL;
	if (!strcmp(argv[0], "add") && argc == 3) {
		if (!fd_parse_range(argv[1], argv[2], &off, &len))
			ret = fd_add_locked(FD_RANGE_BAD, off, len, 0);
	} else if (!strcmp(argv[0], "del") && argc == 3) {
		if (!fd_parse_range(argv[1], argv[2], &off, &len))
			ret = fd_del_locked(off, len);
	} else if (!strcmp(argv[0], "clear") && argc == 1) {
		fd_state.nr_ranges = 0;
		ret = 0;
	} else if (!strcmp(argv[0], "delay") && argc == 4) {
		if (!fd_parse_range(argv[1], argv[2], &off, &len) &&
		    !fd_parse_u64(argv[3], &ms) && ms <= UINT_MAX)
			ret = fd_add_locked(FD_RANGE_DELAY, off, len, ms);
	} else if (!strcmp(argv[0], "flaky") && argc == 4) {
		if (!fd_parse_range(argv[1], argv[2], &off, &len) &&
		    !fd_parse_u64(argv[3], &ms) && ms <= UINT_MAX)
			ret = fd_add_locked(FD_RANGE_FLAKY, off, len, ms);
	} else if (!strcmp(argv[0], "errno") && argc == 4) {
		if (!fd_parse_range(argv[1], argv[2], &off, &len) &&
		    !fd_parse_u64(argv[3], &ms) && ms > 0 && ms < 4096)
			ret = fd_add_locked(FD_RANGE_ERRNO, off, len, ms);
	} else if (!strcmp(argv[0], "readonly") && argc == 2) {
		if (!strcmp(argv[1], "on") || !strcmp(argv[1], "1")) {
			fd_state.readonly = 1;
			ret = 0;
		} else if (!strcmp(argv[1], "off") || !strcmp(argv[1], "0")) {
			fd_state.readonly = 0;
			ret = 0;
		}
	} else if (!strcmp(argv[0], "model") && argc == 3) {
		uint64_t us, bps;

		if (!fd_parse_u64(argv[1], &us) && !fd_parse_u64(argv[2], &bps) &&
		    us <= 60000000ull) {
			fd_state.model_ns = us * 1000;
			fd_state.model_bps = bps;
			ret = 0;
		}
	} else if (!strcmp(argv[0], "reset") && argc == 1) {
		size_t i;

		for (i = 0; i < fd_state.nr_ranges; i++)
			fd_state.ranges[i].reads = 0;
		fd_state.reads = 0;
		fd_state.read_bytes = 0;
		fd_state.writes = 0;
		fd_state.write_bytes = 0;
		fd_state.max_read_size = 0;
		ret = 0;
	}
	pthread_mutex_unlock(&fd_state.lock);
	return ret;
}

/* Render the current state into h (replacing its snapshot); returns 0 or -errno. */
int fd_ctl_snapshot(struct fd_ctl_handle *h)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	size_t i;

	f = open_memstream(&buf, &len);
	if (!f)
		return -errno;

	pthread_mutex_lock(&fd_state.lock);
	for (i = 0; i < fd_state.nr_ranges; i++) {
		const struct fd_range *r = &fd_state.ranges[i];

		if (r->kind == FD_RANGE_BAD)
			fprintf(f, "bad %" PRIu64 " %" PRIu64 " reads=%" PRIu64 "\n",
				r->off_bytes, r->len_bytes, r->reads);
		else if (r->kind == FD_RANGE_FLAKY)
			fprintf(f, "flaky %" PRIu64 " %" PRIu64 " left=%u reads=%" PRIu64 "\n",
				r->off_bytes, r->len_bytes, r->fail_left, r->reads);
		else if (r->kind == FD_RANGE_ERRNO)
			fprintf(f, "errno %" PRIu64 " %" PRIu64 " errno=%u reads=%" PRIu64 "\n",
				r->off_bytes, r->len_bytes, r->err, r->reads);
		else
			fprintf(f, "delay %" PRIu64 " %" PRIu64 " ms=%u reads=%" PRIu64 "\n",
				r->off_bytes, r->len_bytes, r->delay_ms, r->reads);
	}
	fprintf(f, "reads %" PRIu64 "\n", fd_state.reads);
	fprintf(f, "read_bytes %" PRIu64 "\n", fd_state.read_bytes);
	fprintf(f, "writes %" PRIu64 "\n", fd_state.writes);
	fprintf(f, "write_bytes %" PRIu64 "\n", fd_state.write_bytes);
	fprintf(f, "readonly %d\n", fd_state.readonly || !fd_state.img_writable);
	fprintf(f, "max_read_size %" PRIu64 "\n", fd_state.max_read_size);
	fprintf(f, "model_us %" PRIu64 "\n", fd_state.model_ns / 1000);
	fprintf(f, "model_bps %" PRIu64 "\n", fd_state.model_bps);
	fprintf(f, "model_busy_ns %" PRIu64 "\n", fd_state.model_busy_ns);
	pthread_mutex_unlock(&fd_state.lock);

	if (fclose(f)) {
		free(buf);
		return -ENOMEM;
	}
	free(h->buf);
	h->buf = buf;
	h->len = len;
	return 0;
}

/* Run every line of a ctl write; returns size or the first -errno. */
int fd_ctl_write(const char *buf, size_t size)
{
	char line[FD_CTL_LINE_MAX];
	size_t start = 0;
	int ret;

	while (start < size) {
		const char *nl = memchr(buf + start, '\n', size - start);
		size_t end = nl ? (size_t)(nl - buf) : size;
		size_t n = end - start;

		if (n >= sizeof(line))
			return -EINVAL;
		memcpy(line, buf + start, n);
		line[n] = '\0';
		ret = fd_ctl_command(line);
		if (ret < 0)
			return ret;
		start = end + 1;
	}
	return size;
}
