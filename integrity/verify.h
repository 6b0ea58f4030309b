/*
 * integrity/verify.h - how a range is verified. Today only the read method exists: the
 * data is read into host memory (and discarded) by the scan engine. Drive-side methods
 * (NVMe Verify, SCSI VERIFY, PI checks) plug in here.
 */
#ifndef MEDIASCAN_VERIFY_H
#define MEDIASCAN_VERIFY_H

#include <stddef.h>

struct vfy_method {
	const char *name;		/* as given to --method and printed in reports */
	const char *summary;		/* one line for humans */
	int moves_data;			/* 1 when the data crosses the bus to host memory */
};

/* Return the method named name ("auto" picks the best available), or NULL with a reason. */
const struct vfy_method *vfy_method_pick(const char *name, char *why, size_t len);

#endif
