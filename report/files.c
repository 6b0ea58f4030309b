/*
 * report/files.c - files mediascan writes as root (JSON and HTML reports, the metrics
 * textfile), so that another user can neither redirect nor read them: each is written to a
 * new temporary file created O_EXCL|O_NOFOLLOW in the target's directory and renamed over
 * the target, which must be absent or a regular file the caller owns: a symlink, another
 * user's file (in /tmp, say), a FIFO, a socket, a directory and any device (a tape, /dev/sgN,
 * /dev/null) are refused. "-" is stdout; /dev/stdout, /dev/stderr, /dev/fd/N and
 * /proc/self/fd/N name a descriptor the caller opened and are written through it, never
 * opened. (The state directory's check is pass_check_state_dir, pass/record.c.)
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include "report.h"
#include "files.h"
#include "units.h"

/* The descriptor a path names that the caller opened (/dev/stdout...), or -1. */
static int caller_fd(const char *path)
{
	const char *n = NULL;
	char *end;
	long fd;

	if (strcmp(path, "-") == 0 || strcmp(path, "/dev/stdout") == 0)
		return STDOUT_FILENO;
	if (strcmp(path, "/dev/stderr") == 0)
		return STDERR_FILENO;
	if (strncmp(path, "/dev/fd/", 8) == 0)
		n = path + 8;
	else if (strncmp(path, "/proc/self/fd/", 14) == 0)
		n = path + 14;
	if (!n || *n < '0' || *n > '9')
		return -1;
	errno = 0;
	fd = strtol(n, &end, 10);
	if (errno || *end || fd > INT_MAX || fcntl((int)fd, F_GETFD) < 0)
		return -1;
	return (int)fd;
}

/* Return 0 when what lstat says of a report target may be replaced by us, else -errno. */
static int target_ok(const struct stat *sb)
{
	if (S_ISLNK(sb->st_mode))
		return -ELOOP;
	if (S_ISBLK(sb->st_mode))
		return -ENOTSUP;
	if (S_ISCHR(sb->st_mode))
		return -ENODEV;
	if (S_ISFIFO(sb->st_mode) || S_ISSOCK(sb->st_mode))
		return -ENXIO;
	if (S_ISDIR(sb->st_mode))
		return -EISDIR;
	if (!S_ISREG(sb->st_mode))
		return -EINVAL;
	if (sb->st_uid != geteuid())
		return -EPERM;
	return 0;
}

/* Return 0 when path is absent or a file we may replace, -errno otherwise. */
static int check_target(const char *path)
{
	struct stat sb;

	if (!path[0] || path[strlen(path) - 1] == '/')
		return -EISDIR;
	if (lstat(path, &sb) < 0)
		return errno == ENOENT ? 0 : -errno;
	return target_ok(&sb);
}

/* Create a new temporary file for path in its directory (O_EXCL|O_NOFOLLOW): fd or -errno. */
static int create_temp(const char *path, mode_t mode, char *tmp, size_t len)
{
	const char *slash = strrchr(path, '/');
	int dirlen = slash ? (int)(slash - path + 1) : 0;

	for (int tries = 0; tries < 100; tries++) {
		unsigned long long r = 0;
		int fd;

		if (getrandom(&r, sizeof(r), 0) != sizeof(r))
			r ^= (unsigned long long)getpid() * 2654435761u + (unsigned)tries;
		if ((size_t)snprintf(tmp, len, "%.*s.%s.%012llx.tmp", dirlen, path,
				     slash ? slash + 1 : path, r & 0xffffffffffffull) >= len)
			return -ENAMETOOLONG;
		fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
		if (fd >= 0) {
			/* the mode whatever the umask */
			if (fchmod(fd, mode) < 0) {
				int e = errno;

				close(fd);
				unlink(tmp);
				return -e;
			}
			return fd;
		}
		if (errno != EEXIST)
			return -errno;
	}
	return -EEXIST;
}

int report_out_check(const char *path)
{
	char tmp[PATH_MAX + 64];
	int ret, fd;

	if (caller_fd(path) >= 0)
		return 0;
	ret = check_target(path);
	if (ret < 0)
		return ret;
	/* the directory exists and takes a new file: proven by making one */
	fd = create_temp(path, 0600, tmp, sizeof(tmp));
	if (fd < 0)
		return fd;
	close(fd);
	unlink(tmp);
	return 0;
}

int report_out_refuse(const char *cmd, const char *opt, const char *path)
{
	int ret;

	if (!path)
		return 0;
	ret = report_out_check(path);
	if (ret == 0)
		return 0;
	report_err("%s: cannot write %s %s: %s; nothing was read", cmd, opt, path,
		report_create_error(ret));
	return REPORT_EXIT_USAGE;
}

int report_out_open(const char *path, mode_t mode, struct report_out *o)
{
	int fd = caller_fd(path), ret;

	memset(o, 0, sizeof(*o));
	if (fd == STDOUT_FILENO) {
		o->f = stdout;
		o->is_stdout = 1;
		return 0;
	}
	if (fd >= 0) {
		fflush(stdout);			/* what was printed comes first */
		fd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
		if (fd < 0)
			return -errno;
	} else {
		ret = check_target(path);
		if (ret < 0)
			return ret;
		if ((size_t)snprintf(o->path, sizeof(o->path), "%s", path) >= sizeof(o->path))
			return -ENAMETOOLONG;
		fd = create_temp(path, mode, o->tmp, sizeof(o->tmp));
		if (fd < 0)
			return fd;
	}
	o->f = fdopen(fd, "w");
	if (!o->f) {
		ret = -errno;
		close(fd);
		if (o->tmp[0])
			unlink(o->tmp);
		return ret;
	}
	/* a report of thousands of ranges is megabytes: written in 64 KiB pieces, not stdio's
	 * 4 KiB (without the memory, stdio's own buffer) */
	o->buf = malloc(REPORT_OUT_BUF);
	if (o->buf && setvbuf(o->f, o->buf, _IOFBF, REPORT_OUT_BUF) != 0) {
		free(o->buf);
		o->buf = NULL;
	}
	return 0;
}

int report_out_close(struct report_out *o, int ret)
{
	if (!o->f)
		return ret;
	if (fflush(o->f) != 0 && ret >= 0)
		ret = -errno;
	if (o->is_stdout) {
		o->f = NULL;
		return ret;
	}
	if (ferror(o->f) && ret >= 0)
		ret = -EIO;
	if (o->tmp[0] && ret >= 0 && fsync(fileno(o->f)) < 0)
		ret = -errno;
	if (fclose(o->f) != 0 && ret >= 0)
		ret = -errno;
	o->f = NULL;
	free(o->buf);			/* after fclose: the stream wrote from it */
	o->buf = NULL;
	if (!o->tmp[0])
		return ret;
	/* what was checked at open may have been replaced since: check again, then rename */
	if (ret >= 0)
		ret = check_target(o->path);
	if (ret >= 0 && rename(o->tmp, o->path) < 0)
		ret = -errno;
	if (ret < 0)
		unlink(o->tmp);
	o->tmp[0] = '\0';
	return ret;
}

const char *report_create_error(int err)
{
	switch (err) {
	case -ELOOP:
		return "it is a symbolic link: not followed (name the file it points to)";
	case -ENOTSUP:
		return "it is a block device: mediascan never writes to devices";
	case -ENODEV:
		return "it is a character device: reports go to regular files only (- for stdout)";
	case -ENXIO:
		return "it is a FIFO or socket: reports go to regular files only (- for stdout)";
	case -EPERM:
		return "another user owns it: not replaced (remove it or name another file)";
	case -EISDIR:
		return "it is a directory";
	case -EINVAL:
		return "it is not a regular file";
	case -ENOENT:
		return "its directory does not exist";
	}
	return strerror(-err);
}

void report_json_argv(int argc, char **argv, int before_device)
{
	static char to_stdout[] = "--json=-";
	struct stat sb;

	/*
	 * Every subcommand takes --json FILE|- ("-": stdout). A bare --json (the older form of
	 * probe, report and status) still means stdout: when it ends the line or is followed by
	 * another option, or (before_device: probe, report, status, whose --json was bare) by
	 * what cannot be a report file, a block device or a directory: `probe --json /dev/sda`
	 * names the device to probe. For scan and map a device there is refused as a report.
	 */
	for (int i = 1; i < argc; i++) {
		const char *next = i + 1 < argc ? argv[i + 1] : NULL;

		if (strcmp(argv[i], "--") == 0)
			break;
		if (strcmp(argv[i], "--json") != 0)
			continue;
		if (!next || (next[0] == '-' && next[1]) ||
		    (before_device && stat(next, &sb) == 0 &&
		     (S_ISBLK(sb.st_mode) || S_ISDIR(sb.st_mode))))
			argv[i] = to_stdout;
		else
			i++;			/* its FILE */
	}
}

int report_json_write(struct json_object *doc, const char *path)
{
	const char *s = json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PRETTY |
							    JSON_C_TO_STRING_NOSLASHESCAPE);
	struct report_out o;
	int ret = report_out_open(path, 0600, &o);

	if (ret < 0)
		return ret;
	if (fputs(s, o.f) < 0 || fputc('\n', o.f) < 0)
		ret = -EIO;
	return report_out_close(&o, ret);
}
