/*
 * cli/scan_hooks.c - what happens after a scan run besides its report: owners stored with
 * each error in the history, ranges a complete pass read cleanly marked cleared, journal
 * events and the on_damage command for damage not told before, and the xfs_scrub-shaped
 * error lines of --format xfs_scrub.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <json-c/json.h>

#include "cli.h"
#include "config_file.h"
#include "journal.h"
#include "kio.h"
#include "escape.h"
#include "scan_hooks.h"
#include "state.h"
#include "units.h"

static const char *first_path(const struct cli_report *rep, uint64_t inode)
{
	const struct map_inode_paths *p = map_damage_paths(&rep->dmg, inode);

	return p && p->nr_paths ? p->paths[0] : NULL;
}

/* Journal events for error i: the bad range, then each file that lost data in it. */
static void journal_error(const struct cli_scan_cfg *cfg, const struct cli_report *rep,
			  size_t i, int64_t pass_id)
{
	const struct scan_error *e = &rep->r->errors[i];
	const char *dev = rep->t->devices[e->dev_idx].path;
	const char *label = cfg->label ? cfg->label : cfg->target;
	char msg[PATH_MAX + 256];
	struct cli_event ev = {
		.type = CLI_EV_MEDIA_ERROR, .message = msg, .target = label, .device = dev,
		.has_range = 1, .offset = e->offset, .length = e->length,
		.error = scan_error_name(e), .pass_id = pass_id,
	};

	snprintf(msg, sizeof(msg), "%s: media error (%s) on %s at offset %" PRIu64 " length %"
		 PRIu64, label, ev.error, dev, e->offset, e->length);
	cli_journal_send(&ev);
	for (size_t k = 0; k < rep->own_count[i]; k++) {
		const struct map_owner *o = &rep->dmg.owners[rep->own_first[i] + k];
		const char *path;
		char ino[64];

		if (o->kind != MAP_OWN_FILE || (o->flags & MAP_OWNF_UNWRITTEN))
			continue;
		path = first_path(rep, o->inode);
		if (!path) {
			snprintf(ino, sizeof(ino), "inode %" PRIu64, o->inode);
			path = ino;
		}
		ev.type = CLI_EV_DAMAGED_FILE;
		ev.offset = o->dev_offset;
		ev.length = o->length;
		ev.path = path;
		ev.has_file_range = 1;
		ev.file_offset = o->file_offset;
		ev.file_length = o->length;
		snprintf(msg, sizeof(msg), "%s: damaged file %s at file offset %" PRIu64
			 " length %" PRIu64 ": restore it from backup", label, path,
			 o->file_offset, o->length);
		cli_journal_send(&ev);
	}
}

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

int cli_run_hook(const char *cmd, const char *input, double timeout_s)
{
	size_t len = strlen(input), off = 0;
	int pfd[2], status, ret, wfd;
	double deadline;
	struct sigaction sa;
	pid_t pid, self = getpid();

	if (timeout_s <= 0)
		timeout_s = CLI_HOOK_TIMEOUT_DEFAULT_S;
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
		if (kio_pdeathsig_set(SIGTERM, self) == -ESRCH)
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

/* Say why on_damage (result ret of cli_run_hook) did not succeed, and what happens next. */
static void hook_warn(const struct cli_scan_cfg *cfg, int ret, unsigned nr)
{
	char why[64];

	if (ret == 0)
		return;
	if (ret == -ETIMEDOUT)
		snprintf(why, sizeof(why), "timed out after %.0fs and was killed",
			 cfg->hook_timeout_s > 0 ? cfg->hook_timeout_s : CLI_HOOK_TIMEOUT_DEFAULT_S);
	else if (ret == -EINTR)
		snprintf(why, sizeof(why), "was stopped: mediascan is stopping");
	else if (ret < 0)
		snprintf(why, sizeof(why), "could not run: %s", strerror(-ret));
	else if (ret > 128)
		snprintf(why, sizeof(why), "was killed by signal %d", ret - 128);
	else
		snprintf(why, sizeof(why), "failed with exit status %d", ret);
	cli_err("warning: on_damage %s: %s; its %u damaged range%s stay%s untold and %s offered "
		"again on the next run", why, cfg->on_damage, nr, nr == 1 ? "" : "s",
		nr == 1 ? "s" : "", nr == 1 ? "is" : "are");
}

/* The JSON handed to on_damage: schema mediascan-damage/1. */
static json_object *damage_doc(const struct cli_scan_cfg *cfg, const struct cli_report *rep,
			       int64_t pass_id, json_object *errors)
{
	json_object *j = json_object_new_object();
	char host[256] = "";

	gethostname(host, sizeof(host) - 1);
	json_object_object_add(j, "schema", json_object_new_string("mediascan-damage/1"));
	json_object_object_add(j, "host", json_object_new_string(host));
	json_object_object_add(j, "target", json_object_new_string(
		cfg->label ? cfg->label : cfg->target));
	json_object_object_add(j, "path", json_object_new_string(
		rep->t->mount_point[0] ? rep->t->mount_point : rep->t->arg));
	json_object_object_add(j, "pass_id", json_object_new_int64(pass_id));
	json_object_object_add(j, "time", json_object_new_int64((int64_t)time(NULL)));
	json_object_object_add(j, "action", json_object_new_string(
		"restore the damaged files from backup; see `mediascan report`"));
	json_object_object_add(j, "media_errors", errors);
	return j;
}

int cli_scan_after(const struct cli_scan_cfg *cfg, const struct cli_report *rep,
		   struct scan_state *st, int64_t pass_id, const char *key,
		   const struct scan_state_outcome *settle, size_t nr_settle)
{
	const struct scan_result *r = rep->r;
	json_object *fresh = json_object_new_array();
	const char *label = cfg->label ? cfg->label : cfg->target;
	size_t *fresh_idx = calloc(r->nr_errors ? r->nr_errors : 1, sizeof(*fresh_idx));
	unsigned nr_fresh = 0;
	int cleared = 0, told = 1, ret;

	for (size_t i = 0; i < r->nr_errors; i++) {
		const struct scan_error *e = &r->errors[i];
		const char *dev = map_device_key(&rep->t->devices[e->dev_idx]);	/* rows' key */
		json_object *ej;
		int is_new = 1;

		if (!scan_is_damage(e))
			continue;
		ej = cli_report_error_json(rep, i);
		if (st) {
			json_object *owners = NULL;

			json_object_object_get_ex(ej, "owners", &owners);
			ret = scan_state_set_owners_range(st, pass_id, dev, e->offset, e->length,
				json_object_to_json_string_ext(owners, JSON_C_TO_STRING_PLAIN |
							       JSON_C_TO_STRING_NOSLASHESCAPE));
			if (ret < 0)
				cli_err("warning: owners not stored in the history: %s",
					scan_state_errmsg(st));
			/* Marked told only once it was (below): a failed on_damage is retried. */
			ret = scan_state_count_unnotified(st, pass_id, dev, e->offset, e->length);
			is_new = ret != 0;	/* an error of the store still tells */
		}
		if (!is_new) {
			json_object_put(ej);
			continue;
		}
		if (fresh_idx)
			fresh_idx[nr_fresh] = i;
		nr_fresh++;
		json_object_array_add(fresh, ej);
		if (cfg->journal)
			journal_error(cfg, rep, i, pass_id);
	}
	if (st && r->complete) {
		cleared = scan_state_settle(st, key, pass_id, settle, nr_settle);
		if (cleared < 0) {
			cli_err("warning: cleared errors not recorded: %s", scan_state_errmsg(st));
			cleared = 0;
		}
	}
	if (cfg->journal && (r->complete || r->fatal)) {
		char msg[PATH_MAX + 256], sz[32];
		struct cli_event ev = {
			.type = r->complete ? CLI_EV_PASS_COMPLETE : CLI_EV_SCAN_FAILED,
			.message = msg, .target = label, .pass_id = pass_id,
		};

		if (r->complete)
			snprintf(msg, sizeof(msg), "%s: pass complete, %s read, %u damaged ranges, "
				 "%d cleared since the previous pass", label,
				 cli_fmt_bytes(r->scanned_bytes, sz, sizeof(sz)),
				 rep->nr_damage_errors, cleared);
		else
			snprintf(msg, sizeof(msg), "%s: scan failed: %s", label,
				 r->fatal_msg[0] ? r->fatal_msg : strerror(-r->fatal));
		cli_journal_send(&ev);
	}
	if (cfg->on_damage && nr_fresh && r->stopped == 1) {
		/* Stopping (SIGTERM, SIGINT): start no command that could hold the stop up. */
		told = 0;
		cli_err("warning: on_damage not run, the scan is stopping: its %u damaged range%s "
			"%s offered again on the next run", nr_fresh, nr_fresh == 1 ? "" : "s",
			nr_fresh == 1 ? "is" : "are");
		json_object_put(fresh);
	} else if (cfg->on_damage && nr_fresh) {
		json_object *doc = damage_doc(cfg, rep, pass_id, fresh);

		ret = cli_run_hook(cfg->on_damage, json_object_to_json_string_ext(doc,
				   JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE),
				   cfg->hook_timeout_s);
		told = ret == 0;
		hook_warn(cfg, ret, nr_fresh);
		json_object_put(doc);
	} else {
		json_object_put(fresh);
	}
	/* Told (journal, on_damage exit 0): not again. Else the next run offers it again. */
	for (unsigned k = 0; st && told && fresh_idx && k < nr_fresh; k++) {
		const struct scan_error *e = &r->errors[fresh_idx[k]];

		ret = scan_state_take_unnotified(st, pass_id,
						 map_device_key(&rep->t->devices[e->dev_idx]),
						 e->offset, e->length);
		if (ret < 0) {
			cli_err("warning: damage not marked as told in the history (it will be "
				"told again): %s", scan_state_errmsg(st));
			break;
		}
	}
	free(fresh_idx);
	return cleared;
}

void cli_report_print_xfs_scrub(const struct cli_report *rep, FILE *f)
{
	const struct scan_result *r = rep->r;
	const char *where = rep->t->mount_point[0] ? rep->t->mount_point : rep->t->arg;
	/* Names are hostile: escaped, so no name forges a line or carries terminal escapes. */
	char esc[PATH_MAX * 4], wesc[PATH_MAX * 4], desc[PATH_MAX * 4];
	unsigned nr = 0;

	where = cli_escape(where, wesc, sizeof(wesc));

	for (size_t i = 0; i < r->nr_errors; i++) {
		const struct scan_error *e = &r->errors[i];
		const char *dev = cli_escape(rep->t->devices[e->dev_idx].path, desc, sizeof(desc));

		if (!scan_is_damage(e))
			continue;
		if (!rep->own_count[i]) {
			fprintf(f, "Unfixable Error: %s: media error at disk offset %" PRIu64
				" length %" PRIu64 ".\n", dev, e->offset, e->length);
			nr++;
		}
		for (size_t k = 0; k < rep->own_count[i]; k++) {
			const struct map_owner *o = &rep->dmg.owners[rep->own_first[i] + k];
			const struct map_inode_paths *p;

			switch (o->kind) {
			case MAP_OWN_FILE:
				p = map_damage_paths(&rep->dmg, o->inode);
				for (unsigned n = 0; p && n < p->nr_paths; n++)
					fprintf(f, "Unfixable Error: %s: media error %sat data "
						"offset %" PRIu64 " length %" PRIu64 ".\n",
						cli_escape(p->paths[n], esc, sizeof(esc)),
						o->flags & MAP_OWNF_ATTR_FORK ?
						"in extended attribute data " : "",
						o->file_offset, o->length);
				if (!p || !p->nr_paths)
					fprintf(f, "Unfixable Error: inode %" PRIu64 ": media error "
						"at data offset %" PRIu64 " length %" PRIu64 ".\n",
						o->inode, o->file_offset, o->length);
				nr++;
				break;
			case MAP_OWN_FREE:
				break;
			case MAP_OWN_METADATA:
			case MAP_OWN_LOG:
				/* xfs_scrub names metadata by 512-byte disk address. */
				fprintf(f, "Corruption: disk offset %" PRIu64 ": media error in %s.\n",
					o->dev_offset / 512, o->meta_type ? o->meta_type : "metadata");
				nr++;
				break;
			default:
				fprintf(f, "Unfixable Error: %s: media error at disk offset %" PRIu64
					" length %" PRIu64 ".\n", dev, o->dev_offset, o->length);
				nr++;
				break;
			}
		}
	}
	if (nr)
		fprintf(f, "%s: unfixable errors found: %u\n", where, nr);
}
