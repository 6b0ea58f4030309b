/*
 * run/hook.c - the on_damage command: `sh -c CMD` in a process group of its own, fed its JSON
 * on stdin without blocking, killed with everything it started after its timeout or when
 * mediascan is told to stop; it dies with the scan (the parent-death signal).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "proc.h"
#include "run.h"

/* SIGTERM/SIGINT while a hook runs: stop it, then let the handler of the scan see it too. */
static volatile sig_atomic_t hook_stop;
static struct sigaction hook_old_term, hook_old_int;

static void on_hook_signal(int sig)
{
	const struct sigaction *old = sig == SIGTERM ? &hook_old_term : &hook_old_int;

	hook_stop = sig;
	if (!(old->sa_flags & SA_SIGINFO) && old->sa_handler != SIG_DFL &&
	    old->sa_handler != SIG_IGN)
		old->sa_handler(sig);
}

static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * Return the wait status of hook pid after ending its process group: SIGTERM, up to
 * HOOK_GRACE_S for the leader to go, then SIGKILL to whatever is left (sent while the leader
 * is not yet reaped, so the group id cannot have been reused), or -errno.
 */
#define HOOK_GRACE_S 2.0
static int hook_kill(pid_t pid)
{
	double until = mono_s() + HOOK_GRACE_S;
	int status;

	kill(-pid, SIGTERM);
	while (mono_s() < until) {
		siginfo_t si = { 0 };

		if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 &&
		    si.si_pid == pid)
			break;
		usleep(20000);
	}
	kill(-pid, SIGKILL);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return status;
}

int run_hook(const char *cmd, const char *input, double timeout_s)
{
	size_t len = strlen(input), off = 0;
	int pfd[2], status, ret, wfd;
	double deadline;
	struct sigaction sa;
	pid_t pid, self = getpid();

	if (timeout_s <= 0)
		timeout_s = RUN_HOOK_TIMEOUT_DEFAULT_S;
	if (pipe2(pfd, O_CLOEXEC) < 0)
		return -errno;
	pid = fork();
	if (pid < 0) {
		ret = -errno;
		close(pfd[0]);
		close(pfd[1]);
		return ret;
	}
	if (pid == 0) {
		/* Its own process group, so a timeout ends the hook and all it started. */
		setpgid(0, 0);
		if (pass_proc_die_with_parent(SIGTERM, self) == -ESRCH)
			_exit(127);
		signal(SIGPIPE, SIG_DFL);
		signal(SIGHUP, SIG_DFL);	/* patrol's scanners ignore it */
		if (dup2(pfd[0], STDIN_FILENO) < 0)
			_exit(127);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	setpgid(pid, pid);			/* both sides: whichever runs first */
	close(pfd[0]);
	wfd = pfd[1];
	fcntl(wfd, F_SETFL, O_NONBLOCK);
	signal(SIGPIPE, SIG_IGN);
	hook_stop = 0;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_hook_signal;
	sigaction(SIGTERM, &sa, &hook_old_term);
	sigaction(SIGINT, &sa, &hook_old_int);

	deadline = mono_s() + timeout_s;
	for (;;) {
		struct pollfd pf = { .fd = wfd, .events = POLLOUT };

		if (waitpid(pid, &status, WNOHANG) == pid) {
			ret = WIFEXITED(status) ? WEXITSTATUS(status) :
			      128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
			break;
		}
		if (hook_stop || mono_s() >= deadline) {
			ret = hook_kill(pid);
			ret = ret < 0 ? ret : hook_stop ? -EINTR : -ETIMEDOUT;
			break;
		}
		/* Feed stdin without blocking: a hook that does not read must still time out. */
		if (poll(&pf, wfd >= 0 ? 1 : 0, 50) > 0 && wfd >= 0) {
			ssize_t n = write(wfd, input + off, len - off);

			if (n > 0)
				off += (size_t)n;
			else if (n < 0 && errno != EAGAIN && errno != EINTR)
				off = len;	/* it does not read it all: its choice */
		}
		if (wfd >= 0 && off == len) {
			close(wfd);
			wfd = -1;
		}
	}
	if (wfd >= 0)
		close(wfd);
	sigaction(SIGTERM, &hook_old_term, NULL);
	sigaction(SIGINT, &hook_old_int, NULL);
	if (hook_stop && (hook_stop == SIGTERM ? &hook_old_term : &hook_old_int)->sa_handler ==
	    SIG_DFL)
		raise(hook_stop);		/* nobody else will act on it */
	return ret;
}
