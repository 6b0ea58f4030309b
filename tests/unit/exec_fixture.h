/*
 * tests/unit/exec_fixture.h - the fixture of the test_executor* tests (exec_fixture.c): a
 * fresh temporary file behind the fake disk per test, the ranges scanned, and the helpers that
 * set the options, inject bad blocks and check errors.
 */
#ifndef MEDIASCAN_EXEC_FIXTURE_H
#define MEDIASCAN_EXEC_FIXTURE_H

#include <stdint.h>

#include "scan.h"

/* Three ranges: a plain 1M, a 1M with a bridged 128K gap, a 100K tail (set by setup). */
extern struct scan_range R[3];

#define PLANNED (1 * MiB + (1 * MiB - 128 * KiB) + 100 * KiB)

/* cmocka setup: the fake disk reset, a fresh test file as its fd, R set; 0. */
int setup(void **state);
/* cmocka teardown: close the test file; 0. */
int teardown(void **state);
/* Check that e is on device 0 at [off, off+len) with err, cls, in_gap, reproducible. */
void error_is(const struct scan_error *e, uint64_t off, uint64_t len, int err,
	      enum scan_err_class cls, int in_gap);
/* Set o to the tests' options: 128K reads at depth 4 with engine, 4K isolation steps. */
void opts_init(struct scan_opts *o, const char *engine);
/* Bad blocks: one in R0, a run of 4 in R1, one in R1's gap, the last block of R2. */
void inject_four(void);

#endif
