/*
 * report/files.h - files the command line writes (files.c): private report files, the state
 * directory's safety check, and JSON to a file or stdout.
 */
#ifndef MEDIASCAN_FILES_H
#define MEDIASCAN_FILES_H

#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

struct json_object;

/* A report being written: to a temporary file renamed over path by report_out_close, or stdout. */
#define REPORT_OUT_BUF (64 * 1024)	/* stdio buffer of a report file, bytes */

struct report_out {
	FILE *f;
	char *buf;			/* f's buffer (REPORT_OUT_BUF), NULL: stdio's own */
	int is_stdout;
	char path[PATH_MAX];		/* "" : a descriptor the caller opened */
	char tmp[PATH_MAX + 64];	/* the temporary file, "" : none */
};

/*
 * Return 0 when path can take a report: "-" or a descriptor the caller opened (/dev/stdout,
 * /dev/fd/N), or absent or a regular file we own in a directory that takes a new file;
 * -errno otherwise (-ELOOP symlink, -EPERM another user's file, -ENODEV character device,
 * -ENOTSUP block device, -ENXIO FIFO or socket, -EISDIR, -ENOENT no such directory).
 * Call it for every report before the first read of a scan.
 */
int report_out_check(const char *path);
/* Return 0 when path (NULL: none) passes report_out_check, else REPORT_EXIT_USAGE after saying
 * "CMD: cannot write OPT PATH: why" (before the first read: the report would be lost). */
int report_out_refuse(const char *cmd, const char *opt, const char *path);
/*
 * Return 0 with o->f open to write path: a new temporary file of mode (whatever the umask)
 * created O_EXCL|O_NOFOLLOW beside path, or the caller's descriptor; -errno as report_out_check.
 */
int report_out_open(const char *path, mode_t mode, struct report_out *o);
/* Return ret (0 or -errno of the writing) or the first error closing o: when all went well
 * the temporary file is renamed over the path (checked again), else removed. */
int report_out_close(struct report_out *o, int ret);
/* Return a reason for a report_out_* error, for "cannot write FILE: reason". */
const char *report_create_error(int err);
/* Return 0 when dir is missing or is a directory owned by us or root that only its owner can
 * write; -EPERM/-ENOTDIR/-errno with why otherwise (call it before opening the state store). */
int report_check_state_dir(const char *dir, char *why, size_t len);
/* Rewrite a bare --json in argv (end of line, before an option; with before_device also
 * before a device or a directory) to --json=- (stdout): every subcommand takes --json FILE|-. */
void report_json_argv(int argc, char **argv, int before_device);
/* Return 0 after writing doc (pretty) to path ("-": stdout; else report_out_open), -errno. */
int report_json_write(struct json_object *doc, const char *path);

#endif
