// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * faultdisk - a FUSE "fault disk" for mediascan's host end-to-end tests.
 *
 *   faultdisk IMAGE MOUNTDIR [-f] [--service-us=N] [--bandwidth=BYTES_PER_S] [fuse options]
 *
 * exposes MOUNTDIR/disk (IMAGE itself: same size, read/write, st_blksize 4096,
 * direct_io so a loop device with --direct-io=on sees every read) and
 * MOUNTDIR/ctl, a control file. Reads of disk that touch a bad byte range fail
 * as a whole with EIO; reads that touch a delay range sleep first. Lines
 * written to ctl change the state while the disk is in use:
 *
 *   add OFFSET LENGTH           bad byte range (bytes; decimal or 0x hex)
 *   del OFFSET LENGTH           remove exactly that range (of any kind)
 *   clear                       remove every range
 *   delay OFFSET LENGTH MS      reads touching the range sleep MS ms first
 *   flaky OFFSET LENGTH N       the next N reads touching the range fail with EIO,
 *                               later ones succeed (a transient error)
 *   errno OFFSET LENGTH E       reads touching the range fail with errno E (a number:
 *                               ETIMEDOUT, ENOLINK, EREMOTEIO, ENODEV, ENODATA, ...; the loop
 *                               device hands it to its reader through errno_to_blk_status)
 *   readonly on|off             writes fail with EROFS (and are still counted)
 *   reset                       zero the counters
 *   model US BYTES_PER_S        the disk model (below); "model 0 0" turns it off
 *
 * The disk model (--service-us, --bandwidth, or "model"): one queue served one request
 * at a time, first come first served, each read or write of disk taking US microseconds
 * plus its bytes over BYTES_PER_S (0: no transfer term). Requests that arrive while the
 * "disk" is busy wait their turn, so a scan and a foreground sharing it contend as on a
 * real disk (a loop device over tmpfs answers everyone at once and shows no contention).
 * 4 ms + 150 MB/s is a rotating disk without seeks modelled apart; 100 us + 1 GB/s an SSD
 * of queue depth one.
 *
 * Reading ctl returns one line per range, "bad OFFSET LENGTH reads=N",
 * "delay OFFSET LENGTH ms=M reads=N", "flaky OFFSET LENGTH left=K reads=N" or
 * "errno OFFSET LENGTH errno=E reads=N", then "reads N" (read requests on disk),
 * "read_bytes N", "writes N" (write requests received, refused ones too),
 * "write_bytes N" (bytes actually written), "readonly 0|1" and
 * "max_read_size N" (largest read request the kernel sent), "model_us N",
 * "model_bps N" and "model_busy_ns N" (time the model spent serving). A read at offset 0
 * takes a fresh snapshot; later offsets continue that snapshot.
 *
 * Each ctl write is parsed on its own: a command must not be split across
 * write() calls (echo and printf are fine). A bad command fails the write with
 * EINVAL, "del" of a range that does not exist with ENOENT.
 *
 * This file has the FUSE operations, the command line and main; disk.c the state, the image,
 * the disk model and the disk's reads and writes; ctl.c the ctl file's commands and snapshot.
 */
#define FUSE_USE_VERSION 35
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <errno.h>
#include <fcntl.h>
#include <fuse.h>
#include <fuse_lowlevel.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "faultdisk.h"

static int fd_getattr(const char *path, struct stat *st, struct fuse_file_info *fi)
{
	struct stat img;
	int ret;

	(void)fi;
	ret = fd_image_stat(&img);
	if (ret < 0)
		return ret;
	memset(st, 0, sizeof(*st));
	st->st_uid = getuid();
	st->st_gid = getgid();
	st->st_blksize = FD_BLKSIZE;
	st->st_atim = img.st_atim;
	st->st_mtim = img.st_mtim;
	st->st_ctim = img.st_ctim;
	if (!strcmp(path, "/")) {
		st->st_mode = S_IFDIR | 0755;
		st->st_nlink = 2;
	} else if (!strcmp(path, FD_DISK_PATH)) {
		st->st_mode = S_IFREG | 0644;
		st->st_nlink = 1;
		st->st_size = img.st_size;
		st->st_blocks = img.st_blocks;
	} else if (!strcmp(path, FD_CTL_PATH)) {
		st->st_mode = S_IFREG | 0644;
		st->st_nlink = 1;
	} else {
		return -ENOENT;
	}
	return 0;
}

static int fd_readdir(const char *path, void *buf, fuse_fill_dir_t fill, off_t off,
		      struct fuse_file_info *fi, enum fuse_readdir_flags flags)
{
	(void)off;
	(void)fi;
	(void)flags;
	if (strcmp(path, "/"))
		return -ENOTDIR;
	fill(buf, ".", NULL, 0, 0);
	fill(buf, "..", NULL, 0, 0);
	fill(buf, FD_DISK_PATH + 1, NULL, 0, 0);
	fill(buf, FD_CTL_PATH + 1, NULL, 0, 0);
	return 0;
}

static int fd_open(const char *path, struct fuse_file_info *fi)
{
	struct fd_ctl_handle *h;

	if (!strcmp(path, FD_DISK_PATH)) {
		fi->direct_io = 1;
		fi->fh = 0;
		return 0;
	}
	if (!strcmp(path, FD_CTL_PATH)) {
		h = calloc(1, sizeof(*h));
		if (!h)
			return -ENOMEM;
		fi->direct_io = 1;
		fi->nonseekable = 0;
		fi->fh = (uintptr_t)h;
		return 0;
	}
	return -ENOENT;
}

static int fd_release(const char *path, struct fuse_file_info *fi)
{
	struct fd_ctl_handle *h = (struct fd_ctl_handle *)(uintptr_t)fi->fh;

	(void)path;
	if (h) {
		free(h->buf);
		free(h);
	}
	return 0;
}

static int fd_read(const char *path, char *buf, size_t size, off_t off,
		   struct fuse_file_info *fi)
{
	struct fd_ctl_handle *h = (struct fd_ctl_handle *)(uintptr_t)fi->fh;
	int ret;

	if (size > INT_MAX)
		size = INT_MAX;
	if (!strcmp(path, FD_DISK_PATH))
		return fd_disk_read(buf, size, off);
	if (strcmp(path, FD_CTL_PATH) || !h)
		return -ENOENT;

	if (off == 0 || !h->buf) {
		ret = fd_ctl_snapshot(h);
		if (ret < 0)
			return ret;
	}
	if (off < 0 || (uint64_t)off >= h->len)
		return 0;
	if (size > h->len - off)
		size = h->len - off;
	memcpy(buf, h->buf + off, size);
	return size;
}

static int fd_write(const char *path, const char *buf, size_t size, off_t off,
		    struct fuse_file_info *fi)
{
	(void)fi;
	if (size > INT_MAX)
		size = INT_MAX;
	if (!strcmp(path, FD_DISK_PATH))
		return fd_disk_write(buf, size, off);
	if (!strcmp(path, FD_CTL_PATH))
		return fd_ctl_write(buf, size);
	return -ENOENT;
}

static int fd_truncate(const char *path, off_t size, struct fuse_file_info *fi)
{
	int64_t img_size;

	(void)fi;
	if (!strcmp(path, FD_CTL_PATH))
		return 0;	/* "echo cmd > ctl" opens with O_TRUNC */
	if (strcmp(path, FD_DISK_PATH))
		return -ENOENT;
	img_size = fd_image_size();
	if (img_size < 0)
		return img_size;
	return size == img_size ? 0 : -EPERM;
}

static int fd_fsync(const char *path, int datasync, struct fuse_file_info *fi)
{
	(void)datasync;
	(void)fi;
	if (strcmp(path, FD_DISK_PATH))
		return 0;
	if (fdatasync(fd_state.img_fd) < 0)
		return -errno;
	return 0;
}

static int fd_chmod(const char *path, mode_t mode, struct fuse_file_info *fi)
{
	(void)path;
	(void)mode;
	(void)fi;
	return 0;
}

static int fd_chown(const char *path, uid_t uid, gid_t gid, struct fuse_file_info *fi)
{
	(void)path;
	(void)uid;
	(void)gid;
	(void)fi;
	return 0;
}

static int fd_utimens(const char *path, const struct timespec tv[2],
		      struct fuse_file_info *fi)
{
	(void)path;
	(void)tv;
	(void)fi;
	return 0;
}

static void *fd_init(struct fuse_conn_info *conn, struct fuse_config *cfg)
{
	(void)conn;
	cfg->direct_io = 1;
	cfg->kernel_cache = 0;
	cfg->attr_timeout = 1.0;
	cfg->entry_timeout = 1.0;
	return NULL;
}

static void fd_destroy(void *data)
{
	(void)data;
	if (fd_state.img_fd >= 0) {
		fsync(fd_state.img_fd);
		close(fd_state.img_fd);
		fd_state.img_fd = -1;
	}
}

static const struct fuse_operations fd_ops = {
	.init = fd_init,
	.destroy = fd_destroy,
	.getattr = fd_getattr,
	.readdir = fd_readdir,
	.open = fd_open,
	.release = fd_release,
	.read = fd_read,
	.write = fd_write,
	.truncate = fd_truncate,
	.fsync = fd_fsync,
	.chmod = fd_chmod,
	.chown = fd_chown,
	.utimens = fd_utimens,
};

/*
 * Worker threads kept when idle. FUSE_USE_VERSION 35 cannot raise libfuse's
 * limit of 10 workers; that is enough, as the kernel sends at most
 * max_background (12) asynchronous reads at a time anyway.
 */
#define FD_IDLE_THREADS	10

/* The disk model's options, as given on the command line (applied after parsing). */
struct fd_cmdline {
	unsigned long long service_us;
	unsigned long long bandwidth;
};

static struct fd_cmdline fd_cmdline;

static const struct fuse_opt fd_opts[] = {
	{ "--service-us=%llu", offsetof(struct fd_cmdline, service_us), 0 },
	{ "--bandwidth=%llu", offsetof(struct fd_cmdline, bandwidth), 0 },
	FUSE_OPT_END,
};

/* fuse_opt_parse callback: the first non-option is IMAGE, kept for us. */
static int fd_opt_proc(void *data, const char *arg, int key, struct fuse_args *args)
{
	(void)data;
	(void)args;
	if (key == FUSE_OPT_KEY_NONOPT && !fd_state.img_path) {
		fd_state.img_path = arg;
		return 0;
	}
	return 1;
}

static void fd_usage(const char *prog)
{
	printf("usage: %s IMAGE MOUNTDIR [-f] [-s] [-d] [--service-us=N] [--bandwidth=BPS]\n"
	       "       [-o fuse options]\n"
	       "exposes MOUNTDIR/disk (IMAGE; reads touching a bad range fail with EIO)\n"
	       "and MOUNTDIR/ctl (write: add OFF LEN | del OFF LEN | clear |\n"
	       "delay OFF LEN MS | readonly on|off | reset | model US BPS; read: state)\n"
	       "--service-us, --bandwidth: a one-queue disk model, each request taking\n"
	       "N us plus its bytes over BPS, one at a time\n\n",
	       prog);
}


/*
 * Mount, serve until unmounted or signalled, unmount. Returns 0 on a clean
 * shutdown (fusermount3 -u, SIGTERM, SIGINT, SIGHUP), 1 otherwise.
 */
static int fd_serve(struct fuse_args *args, struct fuse_cmdline_opts *opts)
{
	struct fuse_loop_config cfg;
	struct fuse_session *se;
	struct fuse *fuse;
	int ret = 1;

	fuse = fuse_new(args, &fd_ops, sizeof(fd_ops), NULL);
	if (!fuse)
		return 1;
	if (fuse_mount(fuse, opts->mountpoint))
		goto out_destroy;
	se = fuse_get_session(fuse);
	if (fuse_set_signal_handlers(se))
		goto out_unmount;
	if (fuse_daemonize(opts->foreground))
		goto out_signals;

	if (opts->singlethread) {
		ret = fuse_loop(fuse);
	} else {
		/* libfuse 3.14 warns about its own "unlimited" default */
		cfg.clone_fd = opts->clone_fd;
		cfg.max_idle_threads = opts->max_idle_threads;
		if (cfg.max_idle_threads == UINT_MAX)
			cfg.max_idle_threads = FD_IDLE_THREADS;
		ret = fuse_loop_mt(fuse, &cfg);
	}
	/* the loop returns the signal number when a signal stopped it */
	ret = ret < 0 ? 1 : 0;

out_signals:
	fuse_remove_signal_handlers(se);
out_unmount:
	fuse_unmount(fuse);
out_destroy:
	fuse_destroy(fuse);
	return ret;
}

int main(int argc, char **argv)
{
	struct fuse_args args = FUSE_ARGS_INIT(argc, argv);
	struct fuse_cmdline_opts opts;
	int ret = 1;

	memset(&opts, 0, sizeof(opts));
	if (fuse_opt_parse(&args, &fd_cmdline, fd_opts, fd_opt_proc) < 0)
		return 1;
	if (fd_cmdline.service_us > 60000000ull) {
		fprintf(stderr, "faultdisk: --service-us above 60 s\n");
		fuse_opt_free_args(&args);
		return 1;
	}
	fd_state.model_ns = fd_cmdline.service_us * 1000;
	fd_state.model_bps = fd_cmdline.bandwidth;
	if (fuse_parse_cmdline(&args, &opts) != 0)
		goto out_args;
	if (opts.show_help) {
		fd_usage(argv[0]);
		fuse_cmdline_help();
		fuse_lib_help(&args);
		ret = 0;
		goto out_args;
	}
	if (opts.show_version) {
		printf("FUSE library version %s\n", fuse_pkgversion());
		ret = 0;
		goto out_args;
	}
	if (!fd_state.img_path || !opts.mountpoint) {
		fd_usage(argv[0]);
		goto out_args;
	}

	ret = fd_open_image();
	if (ret < 0) {
		fprintf(stderr, "faultdisk: %s: %s\n", fd_state.img_path, strerror(-ret));
		ret = 1;
		goto out_args;
	}
	/* fsname makes the mount recognisable in /proc/mounts */
	if (fuse_opt_add_arg(&args, "-ofsname=faultdisk,subtype=faultdisk")) {
		ret = 1;
		goto out_image;
	}
	ret = fd_serve(&args, &opts);

out_image:
	if (fd_state.img_fd >= 0)
		close(fd_state.img_fd);
out_args:
	free(opts.mountpoint);
	fuse_opt_free_args(&args);
	return ret;
}
