/*
 * mediascan/engine.h - scan engines: one ops table per I/O interface (io_uring, libaio,
 * sync pread, a thread pool), in fio's ioengine_ops shape, probed in order; the first that
 * works wins. An I/O is an O_DIRECT read or a device command (io->cmd: NVMe through
 * uring_cmd, or any kind sent blocking by the pool's threads); engines say which they carry.
 */
#ifndef MEDIASCAN_ENGINE_H
#define MEDIASCAN_ENGINE_H

#include <stddef.h>
#include <stdint.h>

struct kio_dev_cmd;

/* One read or device command in flight. */
struct scan_io {
	uint64_t offset;		/* bytes on the device */
	uint32_t length;		/* bytes */
	uint32_t dev_idx;		/* index into the engine's fds */
	void *buf;
	int res;			/* bytes read, or -errno */
	uint64_t issue_ns;		/* CLOCK_MONOTONIC at submission */
	uint64_t planned_bytes;		/* bytes of this read that are planned (not gap) */
	uint32_t range_slot;		/* executor's bookkeeping */
	struct kio_dev_cmd *cmd;	/* a device command instead of a read (res: 0 answered,
					 * its status in cmd; -errno not sent); NULL a read */
	struct scan_io *next;		/* engine-private list link */
};

/* What an engine can do (decided from these, never from the table's address). */
enum scan_engine_cap {
	SCAN_ENG_READ = 1 << 0,		/* O_DIRECT reads into buf */
	SCAN_ENG_CMD_NVME_URING = 1 << 1,	/* NVMe commands by uring_cmd (e->cmd_ring set) */
	SCAN_ENG_CMD_BLOCKING = 1 << 2,	/* any kio_dev_cmd, sent blocking on a worker thread */
	SCAN_ENG_LINKED_TIMEOUT = 1 << 3,	/* the kernel may cancel an I/O at io_timeout_ns */
	SCAN_ENG_CLEANUP_WAITS = 1 << 4,	/* cleanup blocks while an I/O is in flight */
};

struct scan_engine;

struct scan_engine_ops {
	const char *name;
	unsigned caps;			/* enum scan_engine_cap bits */
	/* Return 0 when usable here, or -errno with a reason in why. */
	int (*probe)(char *why, size_t len);
	/* Return 0 after setting up e (fds, depth, buffer already in e), or -errno. */
	int (*init)(struct scan_engine *e);
	/* Return 0 when io is queued, -EBUSY when the queue is full. */
	int (*queue)(struct scan_engine *e, struct scan_io *io);
	/* Return the number of I/Os handed to the kernel, or -errno. */
	int (*commit)(struct scan_engine *e);
	/*
	 * Return the number of completed I/Os placed in done, waiting for at least min but no
	 * longer than timeout_ns (UINT64_MAX: no limit; 0 returned on timeout), or -errno.
	 */
	int (*getevents)(struct scan_engine *e, unsigned min, struct scan_io **done, unsigned max,
			 uint64_t timeout_ns);
	/* Free what init set up. */
	void (*cleanup)(struct scan_engine *e);
};

struct scan_engine {
	const struct scan_engine_ops *ops;
	void *priv;
	const int *fds;			/* one O_DIRECT fd per device */
	unsigned nr_fds;
	unsigned depth;			/* I/Os in flight at most */
	void *buf;			/* shared discard buffer, buf_len bytes, page aligned */
	size_t buf_len;
	size_t buf_piece;		/* each I/O's buffer lies within one piece of this size
					 * (0: anywhere in buf) */
	int buf_huge;			/* buf is huge pages: uring reads it unregistered
					 * (engine_uring.c says why) */
	uint64_t io_timeout_ns;		/* per-I/O limit where the engine can cancel; 0 none */
	int cmd_ring;			/* uring: set up for uring_cmd (SQE128, CQE32; fds are
					 * NVMe generic char devices) instead of reads */
};

extern const struct scan_engine_ops scan_engine_uring;
extern const struct scan_engine_ops scan_engine_aio;
extern const struct scan_engine_ops scan_engine_sync;
/* Device commands sent blocking by up to depth threads (SG_IO, NVMe ioctl): not probed. */
extern const struct scan_engine_ops scan_engine_pool;

/*
 * Return the engine named name ("uring", "aio", "sync"), or with name NULL the first whose
 * probe succeeds; NULL with a reason in why when none can be used. refused gets a note on
 * each engine probed and refused before the winner ("uring: ...; ").
 */
const struct scan_engine_ops *scan_engine_pick(const char *name, char *why, size_t len,
					       char *refused, size_t refused_len);
/* Return 1 when name is an engine built in ("uring", "aio", "sync"), else 0. */
int scan_engine_known(const char *name);
/* Return the names of the engines built in, for usage messages. */
const char *scan_engine_names(void);

#endif
