/*
 * cli/scan_method.h - the verify method of a scan: chosen per target, devices probed.
 */
#ifndef MEDIASCAN_CLI_SCAN_METHOD_H
#define MEDIASCAN_CLI_SCAN_METHOD_H

#include "scan.h"
#include "target.h"
#include "verify.h"

struct cli_method {
	const struct vfy_ops *ops;	/* the method that runs */
	char why[400];			/* why it was chosen (or what it fell back from) */
	struct vfy_dev devs[SCAN_MAX_DEVICES];
	unsigned nr;			/* devices probed */
};

/*
 * Return 0 after choosing the method (asked, or NULL for auto) for t and setting so->vfy,
 * so->vfy_devs and so->vfy_isolate; or CLI_EXIT_OPERATIONAL after printing why.
 */
int cli_method_setup(const struct vfy_ops *asked, const struct map_target *t,
		     struct scan_opts *so, struct cli_method *m);
/* Close the devices cli_method_setup opened. */
void cli_method_close(struct cli_method *m);

#endif
