/*
 * tests/tools/pass_fds.c - pass_fds TARGET STATE_DIR MODE...: runs pass_run() in this process
 * once per MODE (resume, recheck, plain, nostate) with the state store in STATE_DIR, and
 * prints "MODE exit=N fds_before=N fds_after=N" for each; exits 1 when a pass left a
 * descriptor open (a teardown that missed something), else 0. Used by
 * tests/e2e/pass-teardown.sh on a loop device: `mediascan scan` exits after one pass, so a
 * leak only shows in a process that runs many (patrol's children run one; a library user
 * many).
 */
#include <dirent.h>
#include <stdio.h>
#include <string.h>

#include "pass.h"

/* Return the number of open descriptors of this process. */
static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n - 1;	/* the directory's own descriptor */
}

static void say(void *arg, enum pass_say kind, const char *msg)
{
	(void)arg;
	(void)kind;
	fprintf(stderr, "pass: %s\n", msg);
}

int main(int argc, char **argv)
{
	struct pass_hooks h = { .say = say };
	int leaked = 0;

	if (argc < 4) {
		fprintf(stderr, "usage: pass_fds TARGET STATE_DIR MODE...\n");
		return 2;
	}
	for (int i = 3; i < argc; i++) {
		struct pass_opts o = {
			.target = argv[1], .state_dir = argv[2], .method = "auto",
			.merge_gap = (uint64_t)-1, .io_timeout_s = 30,
		};
		int before, after, status;

		o.resume = strcmp(argv[i], "resume") == 0;
		o.recheck = strcmp(argv[i], "recheck") == 0;
		o.no_state = strcmp(argv[i], "nostate") == 0;
		before = count_fds();
		status = pass_run(&o, &h);
		after = count_fds();
		printf("%s exit=%d fds_before=%d fds_after=%d\n", argv[i], status, before, after);
		if (after != before)
			leaked = 1;
	}
	return leaked;
}
