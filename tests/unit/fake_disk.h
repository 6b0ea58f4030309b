/*
 * tests/unit/fake_disk.h - the fake disk of the test_executor* tests (fake_disk.c): a real
 * temporary file whose chosen 512-byte blocks fail, through wrapped kio_pread, io_uring_submit and
 * io_uring_wait_cqes, and a fake SCSI disk behind a wrapped kio_dev_cmd_submit; and a scan_source
 * handing out a fixed list of ranges.
 */
#ifndef MEDIASCAN_FAKE_DISK_H
#define MEDIASCAN_FAKE_DISK_H

#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <sys/types.h>
#include <liburing.h>

#include "kio_dev.h"
#include "scan.h"

#define KiB 1024ull
#define MiB (1024ull * 1024)
#define LBS 512u
#define FILE_BYTES (4 * MiB)
#define NR_BLOCKS (FILE_BYTES / LBS)
#define PAST_EOF (64 * MiB)

ssize_t __real_kio_pread(int fd, void *buf, size_t len, uint64_t offset);
ssize_t __wrap_kio_pread(int fd, void *buf, size_t len, uint64_t offset);
int __real_io_uring_submit(struct io_uring *ring);
int __wrap_io_uring_submit(struct io_uring *ring);
int __real_io_uring_wait_cqes(struct io_uring *ring, struct io_uring_cqe **cqe_ptr,
			      unsigned wait_nr, struct __kernel_timespec *ts, sigset_t *sigmask);
int __wrap_io_uring_wait_cqes(struct io_uring *ring, struct io_uring_cqe **cqe_ptr,
			      unsigned wait_nr, struct __kernel_timespec *ts, sigset_t *sigmask);

int __wrap_kio_dev_cmd_submit(int fd, struct kio_dev_cmd *c);

/* The fake disk: the test file's fd, the errors injected per block, what it saw. */
struct fake_disk {
	int fd;				/* the test file; other fds pass through */
	int err[NR_BLOCKS];		/* -errno per block, 0 good */
	unsigned preads;		/* kio_pread calls on fd */
	unsigned steered;		/* io_uring reads sent past EOF */
	unsigned max_small;		/* most reads of 4K or less in one io_uring_submit */
	unsigned shared_buf;		/* reads in flight together whose buffers overlapped */
	struct {
		uint64_t user_data, addr, len;
	} inflight[128];		/* io_uring reads submitted, their completion not yet seen */
	unsigned nr_inflight;
	struct io_uring *ring;		/* the ring they went to */
	unsigned cq_seen;		/* completions of that ring looked at */
	struct {
		uint64_t user_data;
		int err;
	} pending[64];			/* steered reads whose completion gets err */
	unsigned nr_pending;
	/* The fake disk's commands (kio_dev_cmd_submit) */
	pthread_mutex_t lock;
	unsigned cmds, cmd_now, cmd_max;	/* sent, in flight now, most in flight at once */
	int name_lba;			/* sense carries the first bad block's LBA (1), or the
					 * command's first LBA whatever failed (2) */
	unsigned refuse_after;		/* ILLEGAL REQUEST from this command on (0 never) */
	int64_t slow_block;		/* a command covering it answers after slow_us (-1 none) */
	unsigned slow_us;
	int lie;			/* VERIFY answers GOOD without reading (QEMU's scsi-hd) */
};

extern struct fake_disk fk;

/* A scan_source handing out a fixed list of ranges, a few per call. */
struct src {
	const struct scan_range *ranges;
	unsigned nr, pos, per_call;
	unsigned calls;
	int fail_at;			/* call number that answers -EIO (0: never) */
};

/* Return up to max ranges of the list arg (a struct src), per_call at most; -EIO at fail_at. */
int src_next(void *arg, struct scan_range *out, unsigned max);

#endif
