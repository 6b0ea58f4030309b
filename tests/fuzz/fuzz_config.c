/*
 * tests/fuzz/fuzz_config.c - the patrol config file (patrol/config.c over libinih): the input is
 * the file, handed over through a memfd.
 */
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "config_file.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct patrol_config c;
	static int fd = -1;
	char path[64], err[2048];

	if (fd < 0) {
		fd = memfd_create("fuzz-config", 0);
		if (fd < 0)
			abort();
	}
	if (ftruncate(fd, 0) < 0 || pwrite(fd, data, size, 0) != (ssize_t)size)
		abort();
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if (patrol_config_load(path, &c, err, sizeof(err)) == 0) {
		for (unsigned i = 0; i < c.nr_targets; i++)
			if (!c.targets[i].path[0] || c.targets[i].path[0] != '/' ||
			    strlen(c.targets[i].name) >= sizeof(c.targets[i].name))
				abort();
	} else if (!err[0] || strchr(err, '\n')) {
		abort();			/* every problem is one line */
	}
	return 0;
}
