/*
 * kernel/kio_schedstat.c - the calling thread's run-queue wait from /proc/thread-self/schedstat
 * ("cpu_time run_delay timeslices", ns): how long it was ready to run but not running. The
 * executor subtracts the wait it had while reaping from its own reads' measured latency, so
 * a busy CPU (completions reaped late) does not make its reads look longer than the kernel
 * counted them.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <unistd.h>

#include "kio.h"

int kio_schedstat_open(void)
{
	int fd = open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	return fd;
}

int kio_schedstat_parse(const char *line, uint64_t *run_delay_ns)
{
	uint64_t cpu_ns, delay_ns;

	if (!line || sscanf(line, "%" SCNu64 " %" SCNu64, &cpu_ns, &delay_ns) != 2)
		return -EINVAL;
	*run_delay_ns = delay_ns;
	return 0;
}

int kio_schedstat_run_delay(int fd, uint64_t *run_delay_ns)
{
	char buf[128];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

	if (n < 0)
		return -errno;
	buf[n] = '\0';
	return kio_schedstat_parse(buf, run_delay_ns);
}

unsigned kio_cpus_online(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n > 0 ? (unsigned)n : 1;
}
