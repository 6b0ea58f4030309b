/*
 * report/files.c - files mediascan creates as root, opened so that another user cannot redirect
 * or read them: reports created 0600 and never through a symlink (the state directory's
 * check is pass_check_state_dir, pass/record.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include "report.h"
#include "files.h"

int cli_create_private(const char *path, FILE **out)
{
	struct stat sb;
	int fd;

	/* mediascan never writes to a device: a report path naming a disk is refused unopened. */
	if (stat(path, &sb) == 0 && S_ISBLK(sb.st_mode))
		return -ENOTSUP;
	fd = open(path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);

	/* /dev/stdout and /proc/self/fd/N are symlinks to what the caller opened: fine */
	if (fd < 0 && errno == ELOOP &&
	    (strncmp(path, "/dev/", 5) == 0 || strncmp(path, "/proc/self/fd/", 14) == 0))
		fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &sb) == 0 && S_ISBLK(sb.st_mode)) {
		close(fd);			/* became a device between stat and open */
		return -ENOTSUP;
	}
	if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode)) {
		/* a hard link to another file planted at path: do not write through it */
		if (sb.st_nlink > 1) {
			close(fd);
			return -EMLINK;
		}
		if (ftruncate(fd, 0) < 0) {
			int e = errno;

			close(fd);
			return -e;
		}
	}
	*out = fdopen(fd, "w");
	if (!*out) {
		int e = errno;

		close(fd);
		return -e;
	}
	return 0;
}

const char *cli_create_error(int err)
{
	if (err == -ELOOP)
		return "it is a symbolic link: not followed (give the file it points to)";
	if (err == -EMLINK)
		return "it has other hard links: not written through";
	if (err == -ENOTSUP)
		return "it is a block device: mediascan never writes to devices";
	return strerror(-err);
}

void cli_json_argv(int argc, char **argv, int before_device)
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

int cli_json_write(struct json_object *doc, const char *path)
{
	const char *s = json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PRETTY |
							    JSON_C_TO_STRING_NOSLASHESCAPE);
	FILE *f = stdout;
	int ret = 0;

	if (strcmp(path, "-") != 0) {
		ret = cli_create_private(path, &f);
		if (ret < 0)
			return ret;
	}
	if (fputs(s, f) < 0 || fputc('\n', f) < 0)
		ret = -EIO;
	if (f != stdout) {
		if (fclose(f) != 0 && !ret)
			ret = -errno;
	} else if (fflush(f) != 0 && !ret) {
		ret = -errno;
	}
	return ret;
}
