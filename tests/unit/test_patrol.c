/*
 * tests/unit/test_patrol.c - patrol's pieces without disks: the config parser (values,
 * inheritance, every error naming its line), active hours, the journal field list (checked
 * here because the hosts that run the tests have no journald), the metrics textfile, the
 * on_damage runner (exit status, timeout) and the scan locks and parent-death signal.
 */
#include <errno.h>
#include <signal.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <cmocka.h>
#include <json-c/json.h>

#include "config_file.h"
#include "journal.h"
#include "kio.h"
#include "metrics.h"
#include "owners_json.h"
#include "run.h"
#include "status_cmd.h"
#include "state.h"

static char conf_path[] = "/tmp/mediascan-test-patrol-XXXXXX";

static void write_conf(const char *text)
{
	FILE *f = fopen(conf_path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static struct patrol_config cfg;

static void test_config_good(void **state)
{
	char err[2048] = "";

	(void)state;
	write_conf("; comment\n[global]\nstate_dir = /var/lib/x\nwindow = 7d\nrate_max = 200M\n"
		   "rate_min = 5M/s\nactive_hours = 22:00-06:00\nmetrics_file = /tmp/m.prom\n"
		   "on_damage = mail root\n\n[target data]\npath = /srv/data\nwindow = 1d\n"
		   "[target raw]\npath = /dev/sdb\nrate_max = 50M\nmethod = read\n");
	assert_int_equal(patrol_config_load(conf_path, &cfg, err, sizeof(err)), 0);
	assert_string_equal(cfg.state_dir, "/var/lib/x");
	assert_string_equal(cfg.metrics_file, "/tmp/m.prom");
	assert_int_equal(cfg.nr_targets, 2);
	assert_string_equal(cfg.targets[0].name, "data");
	assert_int_equal((int)cfg.targets[0].o.window_s, 86400);
	assert_int_equal(cfg.targets[0].o.rate_max_bps, 200ull << 20);	/* inherited */
	assert_int_equal(cfg.targets[0].o.rate_min_bps, 5ull << 20);
	assert_string_equal(cfg.targets[0].o.on_damage, "mail root");
	assert_int_equal(cfg.targets[0].o.active_start_min, 22 * 60);
	assert_int_equal(cfg.targets[0].line, 11);
	assert_int_equal((int)cfg.targets[1].o.window_s, 7 * 86400);
	assert_int_equal(cfg.targets[1].o.rate_max_bps, 50ull << 20);	/* overridden */
	assert_int_equal(cfg.targets[1].o.rate_min_bps, 5ull << 20);	/* still inherited */
	assert_string_equal(cfg.targets[1].o.method, "read");
	assert_int_equal((int)cfg.targets[0].o.hook_timeout_s, (int)RUN_HOOK_TIMEOUT_DEFAULT_S);
}

/* text must fail with an error starting "FILE:LINE: " and containing why. */
static void bad(const char *text, unsigned line, const char *why)
{
	char err[2048] = "", want[256];

	write_conf(text);
	assert_int_equal(patrol_config_load(conf_path, &cfg, err, sizeof(err)), -EINVAL);
	print_message("%s\n", err);
	snprintf(want, sizeof(want), "%s:%u: ", conf_path, line);
	assert_memory_equal(err, want, strlen(want));
	assert_non_null(strstr(err, why));
	assert_null(strchr(err, '\n'));
}

static void test_config_errors(void **state)
{
	(void)state;
	bad("[global]\nwindow = 1d\n[target a\npath = /x\n", 3, "syntax error");
	bad("[global]\nwindow = 1d\nfoo = 1\n[target a]\npath = /x\n", 3, "unknown key 'foo'");
	bad("[target a]\npath = /x\nstate_dir = /y\n", 3, "unknown key 'state_dir'");
	bad("[global]\n[tagret a]\npath = /x\n", 2, "unknown section");
	bad("[global]\nwindow = 0s\n[target a]\npath = /x\n", 2, "bad window");
	bad("[global]\nwindow = 1d\n", 2, "no [target");
	bad("[global]\n\n[target a]\nwindow = 1d\n", 3, "has no path");
	bad("[target a]\npath = relative\n", 2, "absolute path");
	bad("[target a]\npath = /x\n[target a]\npath = /y\n", 3, "defined twice");
	bad("[global]\nactive_hours = 25:00-01:00\n[target a]\npath = /x\n", 2, "active_hours");
	bad("[global]\nrate_min = 10M\nrate_max = 1M\n[target a]\npath = /x\n", 3, "rate_min");
	bad("window = 1d\n[target a]\npath = /x\n", 1, "outside a section");
}

/*
 * Hook commands are taken whole or refused at FILE:LINE: inih's inline comment cut
 * "notify ; logger x" to "notify", and an indented line silently replaced the value.
 */
static void test_config_hooks(void **state)
{
	char err[2048] = "";

	(void)state;
	write_conf("[global]\non_damage = /usr/local/sbin/notify --to=root;logger x\n"
		   "[target a]\npath = /x\n");
	assert_int_equal(patrol_config_load(conf_path, &cfg, err, sizeof(err)), 0);
	assert_string_equal(cfg.targets[0].o.on_damage,
			    "/usr/local/sbin/notify --to=root;logger x");
	bad("[global]\non_damage = /usr/local/sbin/notify ; logger x\n[target a]\npath = /x\n",
	    2, "on_damage has ' ;'");
	bad("[global]\non_damage = /usr/local/sbin/notify\n  logger x\n[target a]\n"
	    "path = /x\n", 3, "indented line continues no value");
	bad("[target a]\npath = /x\non_damage = notify\n\t/bin/rm -rf /srv\n", 4,
	    "indented line continues no value");
	/* an indented key = value is a key as any other, never a continuation */
	write_conf("[target a]\n  path = /x\n  on_damage = mail root\n  window = 2d\n");
	assert_int_equal(patrol_config_load(conf_path, &cfg, err, sizeof(err)), 0);
	assert_string_equal(cfg.targets[0].path, "/x");
	assert_string_equal(cfg.targets[0].o.on_damage, "mail root");
	assert_int_equal((int)cfg.targets[0].o.window_s, 2 * 86400);
	/* other keys still take an inline comment */
	write_conf("[target a]\npath = /x\nwindow = 3d ; three days\n");
	assert_int_equal(patrol_config_load(conf_path, &cfg, err, sizeof(err)), 0);
	assert_int_equal((int)cfg.targets[0].o.window_s, 3 * 86400);
}

/* The config names root's commands: refused when anyone but root can write it or a
 * directory above it (a sticky root directory like /tmp excepted). */
static void test_config_secure(void **state)
{
	char dir[] = "/tmp/mediascan-test-secure-XXXXXX", file[256], sub[128], err[2048];
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(sub, sizeof(sub), "%s/etc", dir);
	snprintf(file, sizeof(file), "%s/mediascan.conf", sub);
	assert_int_equal(mkdir(sub, 0755), 0);
	f = fopen(file, "w");
	assert_non_null(f);
	fputs("[target a]\npath = /x\n", f);
	fclose(f);
	assert_int_equal(chmod(file, 0644), 0);
	assert_int_equal(patrol_config_secure(file, err, sizeof(err)), 0);
	assert_int_equal(chmod(file, 0664), 0);
	assert_int_equal(patrol_config_secure(file, err, sizeof(err)), -EPERM);
	print_message("%s\n", err);
	assert_non_null(strstr(err, "writable by its group"));
	assert_int_equal(chmod(file, 0646), 0);
	assert_int_equal(patrol_config_secure(file, err, sizeof(err)), -EPERM);
	assert_non_null(strstr(err, "writable by everyone"));
	assert_int_equal(chmod(file, 0600), 0);
	assert_int_equal(chmod(sub, 0777), 0);		/* its directory: anyone may swap it */
	assert_int_equal(patrol_config_secure(file, err, sizeof(err)), -EPERM);
	print_message("%s\n", err);
	assert_non_null(strstr(err, sub));
	assert_int_equal(chmod(sub, 01777), 0);		/* sticky and root's: as /tmp */
	assert_int_equal(patrol_config_secure(file, err, sizeof(err)), geteuid() == 0 ? 0 : -EPERM);
	assert_int_equal(chmod(sub, 0755), 0);
	if (geteuid() == 0) {
		assert_int_equal(chown(file, 65534, 0), 0);	/* nobody's */
		assert_int_equal(patrol_config_secure(file, err, sizeof(err)), -EPERM);
		print_message("%s\n", err);
		assert_non_null(strstr(err, "owned by uid 65534"));
	}
	unlink(file);
	rmdir(sub);
	rmdir(dir);
}

/* hook_timeout: [global] sets it for all, a target may override it. */
static void test_config_hook_timeout(void **state)
{
	char err[2048] = "";

	(void)state;
	write_conf("[global]\non_damage = true\nhook_timeout = 90s\n[target a]\npath = /x\n"
		   "[target b]\npath = /y\nhook_timeout = 2m\n");
	assert_int_equal(patrol_config_load(conf_path, &cfg, err, sizeof(err)), 0);
	assert_int_equal((int)cfg.targets[0].o.hook_timeout_s, 90);
	assert_int_equal((int)cfg.targets[1].o.hook_timeout_s, 120);
	assert_string_equal(cfg.targets[1].o.on_damage, "true");
	bad("[global]\nhook_timeout = 0s\n[target a]\npath = /x\n", 2, "bad hook_timeout");
	bad("[target a]\npath = /x\nhook_timeout = soon\n", 3, "bad hook_timeout");
}

/* run_hook: exit status, stdin, a timeout that kills the hook's whole group. */
static void test_run_hook(void **state)
{
	static char big[200000];

	(void)state;
	assert_int_equal(run_hook("exit 3", "x", 5), 3);
	assert_int_equal(run_hook("test \"$(cat)\" = hello", "hello", 5), 0);
	/* A hook that reads nothing while stdin is larger than a pipe still times out. */
	memset(big, 'x', sizeof(big) - 1);
	assert_int_equal(run_hook("sleep 30 & sleep 30; wait", big, 1), -ETIMEDOUT);
	assert_int_equal(run_hook("kill -9 $$", "", 5), 128 + 9);
}

/* kio_lockfile_take: exclusive, names its holder, released on close; kio_pdeathsig_set. */
static void test_locks(void **state)
{
	char dir[] = "/tmp/mediascan-test-lock-XXXXXX", path[128], holder[64];
	int fd, fd2;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/run/t.lock", dir);	/* run/ is made */
	fd = kio_lockfile_take(path, "pid 1: first\n", holder, sizeof(holder));
	assert_true(fd >= 0);
	/* flock is per open file: a second open conflicts even in this process. */
	fd2 = kio_lockfile_take(path, "pid 2: second\n", holder, sizeof(holder));
	assert_int_equal(fd2, -EWOULDBLOCK);
	assert_string_equal(holder, "pid 1: first");
	close(fd);
	fd2 = kio_lockfile_take(path, "pid 2: second\n", holder, sizeof(holder));
	assert_true(fd2 >= 0);
	close(fd2);
	unlink(path);
	snprintf(path, sizeof(path), "%s/run", dir);
	rmdir(path);
	rmdir(dir);

	assert_int_equal(kio_pdeathsig_set(SIGTERM, getppid()), 0);
	assert_int_equal(kio_pdeathsig_set(SIGTERM, getppid() + 1), -ESRCH);
	assert_int_equal(kio_pdeathsig_set(0, getppid()), 0);
}

/* Target names as the docs say: letters, digits, - _ . only, at most 63. */
static void test_config_target_names(void **state)
{
	(void)state;
	bad("[target a$(reboot)]\npath = /x\n", 1, "bad target name");
	bad("[target caf\xc3\xa9]\npath = /x\n", 1, "bad target name");
	bad("[target a\033[31m]\npath = /x\n", 1, "bad target name");
	bad("[target a,b]\npath = /x\n", 1, "bad target name");
	bad("[target a{b}]\npath = /x\n", 1, "bad target name");
	bad("[target aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa]\n"
	    "path = /x\n", 1, "bad target name");
}

/* Lines longer than libinih's 200 bytes are one line: on_damage and path are whole, the line
 * numbers after them right; a value longer than its field is refused, never cut. */
static void test_config_long_lines(void **state)
{
	char err[2048] = "", text[8192], cmd[1001], path[1001];

	(void)state;
	memset(cmd, 'x', sizeof(cmd) - 1);
	cmd[sizeof(cmd) - 1] = '\0';
	memcpy(cmd, "echo ", 5);
	cmd[400] = '=';			/* an '=' past inih's cut must not make a new key */
	memset(path, 'p', sizeof(path) - 1);
	path[0] = '/';
	path[sizeof(path) - 1] = '\0';
	snprintf(text, sizeof(text), "[global]\non_damage = %s\n[target a]\npath = %s\n"
		 "window = 1d\nfoo = 1\n", cmd, path);
	write_conf(text);
	assert_int_equal(patrol_config_load(conf_path, &cfg, err, sizeof(err)), -EINVAL);
	print_message("%s\n", err);
	assert_non_null(strstr(err, ":6: unknown key 'foo'"));
	/* " ;" in a hook: a comment or a second command? refused, not cut (test_config_hooks) */
	snprintf(text, sizeof(text), "[global]\non_damage = %s  ; a comment\n[target a]\n"
		 "path = %s\nwindow = 1d\n", cmd, path);
	write_conf(text);
	assert_int_equal(patrol_config_load(conf_path, &cfg, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, ":2: on_damage has ' ;'"));
	snprintf(text, sizeof(text), "[global]\n; a comment\non_damage = %s\n[target a]\n"
		 "path = %s\nwindow = 1d\n", cmd, path);
	write_conf(text);
	assert_int_equal(patrol_config_load(conf_path, &cfg, err, sizeof(err)), 0);
	assert_string_equal(cfg.global.on_damage, cmd);
	assert_string_equal(cfg.targets[0].o.on_damage, cmd);
	assert_string_equal(cfg.targets[0].path, path);
	assert_int_equal((int)cfg.targets[0].o.window_s, 86400);
	/* longer than on_damage's 1023 bytes: an error, not a truncated command */
	memset(text, 0, sizeof(text));
	strcpy(text, "[global]\non_damage = ");
	memset(text + strlen(text), 'y', 2000);
	strcat(text, "\n[target a]\npath = /x\n");
	bad(text, 2, "too long");
}

static void test_active_hours(void **state)
{
	int s, e;

	(void)state;
	assert_int_equal(patrol_parse_active_hours("01:00-06:00", &s, &e), 0);
	assert_int_equal(s, 60);
	assert_int_equal(e, 360);
	assert_true(patrol_active_now(s, e, 60));
	assert_false(patrol_active_now(s, e, 360));
	assert_int_equal(patrol_parse_active_hours("22:30-02:00", &s, &e), 0);
	assert_true(patrol_active_now(s, e, 23 * 60));
	assert_true(patrol_active_now(s, e, 60));
	assert_false(patrol_active_now(s, e, 12 * 60));
	assert_true(patrol_active_now(-1, 0, 12 * 60));
	assert_int_equal(patrol_parse_active_hours("01:00", &s, &e), -EINVAL);
	assert_int_equal(patrol_parse_active_hours("01:00-01:00", &s, &e), -EINVAL);
}

static const char *field(const struct report_journal_fields *f, const char *key)
{
	size_t n = strlen(key);

	for (unsigned i = 0; i < f->nr; i++)
		if (strncmp(f->v[i], key, n) == 0 && f->v[i][n] == '=')
			return f->v[i] + n + 1;
	return NULL;
}

static void test_journal_fields(void **state)
{
	struct report_journal_fields f;
	struct report_event ev = {
		.type = REPORT_EV_DAMAGED_FILE, .message = "data: damaged file /srv/a\nb",
		.target = "data", .device = "/dev/sdb1", .has_range = 1, .offset = 8392704,
		.length = 4096, .path = "/srv/a\nb", .has_file_range = 1, .file_offset = 4096,
		.file_length = 4096, .error = "EIO", .pass_id = 7,
	};

	(void)state;
	assert_true(report_journal_build(&ev, &f) > 0);
	/* a newline in a name is escaped: PATH never names another file ("/srv/a b") */
	assert_string_equal(f.v[0], "MESSAGE=data: damaged file /srv/a\\nb");
	assert_string_equal(field(&f, "MESSAGE_ID"), REPORT_MSGID_DAMAGED_FILE);
	assert_string_equal(field(&f, "PRIORITY"), "2");
	assert_string_equal(field(&f, "DEVICE"), "/dev/sdb1");
	assert_string_equal(field(&f, "OFFSET"), "8392704");
	assert_string_equal(field(&f, "LENGTH"), "4096");
	assert_string_equal(field(&f, "PATH"), "/srv/a\\nb");
	assert_string_equal(field(&f, "FILE_OFFSET"), "4096");
	assert_string_equal(field(&f, "MEDIASCAN_ERROR"), "EIO");
	assert_string_equal(field(&f, "MEDIASCAN_TARGET"), "data");
	assert_string_equal(field(&f, "SYSLOG_IDENTIFIER"), "mediascan");
	report_journal_fields_free(&f);

	/* ESC and invalid UTF-8 are escaped: no "[blob data]" in journalctl, nothing raw. */
	ev.message = "lost \033[31mred\xff";
	ev.path = "/srv/\033[31mred\xff";
	assert_true(report_journal_build(&ev, &f) > 0);
	assert_string_equal(f.v[0], "MESSAGE=lost \\x1b[31mred\\xff");
	assert_string_equal(field(&f, "PATH"), "/srv/\\x1b[31mred\\xff");
	report_journal_fields_free(&f);

	/* Every event type has its own MESSAGE_ID and a priority. */
	const char *ids[REPORT_EV_NR];
	for (int t = 0; t < REPORT_EV_NR; t++) {
		struct report_event e = { .type = (enum report_event_type)t, .message = "m" };

		assert_true(report_journal_build(&e, &f) > 0);
		ids[t] = strdup(field(&f, "MESSAGE_ID"));
		assert_int_equal(strlen(ids[t]), 32);
		assert_non_null(field(&f, "PRIORITY"));
		assert_null(field(&f, "DEVICE"));		/* only when given */
		for (int k = 0; k < t; k++)
			assert_string_not_equal(ids[k], ids[t]);
		report_journal_fields_free(&f);
	}
	for (int t = 0; t < REPORT_EV_NR; t++)
		free((void *)ids[t]);
	struct report_event pc = { .type = REPORT_EV_PASS_COMPLETE, .message = "m" };
	assert_true(report_journal_build(&pc, &f) > 0);
	assert_string_equal(field(&f, "PRIORITY"), "6");
	report_journal_fields_free(&f);
}

static void test_owners_files(void **state)
{
	uint64_t ino[8];

	(void)state;
	assert_int_equal(report_owners_json_files("[{\"type\":\"file\",\"inode\":131},"
		"{\"type\":\"metadata\",\"metadata\":\"inodes\"},{\"type\":\"file\",\"inode\":131},"
		"{\"type\":\"file\",\"inode\":140}]", ino, 8), 2);
	assert_int_equal(ino[0], 131);
	assert_int_equal(ino[1], 140);
	assert_int_equal(report_owners_json_files("not json", ino, 8), 0);
	assert_int_equal(report_owners_json_files(NULL, ino, 8), 0);
}

/*
 * The summary's rate is planned bytes checked per second in this run: a drive-side method
 * moves no data (a 269 MiB nvme-verify scan of 0.2 s said "0 B/s"), and bytes read before a
 * resume took no time in this run.
 */
static void test_summary_rate(void **state)
{
	struct scan_result r = { .scanned_bytes = 269ull << 20, .read_bytes = 0, .elapsed_s = 0.2 };
	struct pass_report rep = { .r = &r };

	(void)state;
	assert_true(report_rate(&rep) > 1.4e9 && report_rate(&rep) < 1.42e9);
	rep.base_bytes = 200ull << 20;		/* resumed: 200 MiB were read before */
	assert_true(report_rate(&rep) > 3.6e8 && report_rate(&rep) < 3.7e8);
	r.elapsed_s = 0;
	assert_true(report_rate(&rep) == 0);
}

/* Owners JSON from a tampered or old state DB (found by tests/fuzz fuzz_owners_json): report
 * and metrics read it without crashing, and keep what is well-formed. */
static void owners_survive(const char *text, unsigned want_files, size_t want_owners)
{
	struct json_object *o;
	uint64_t ino[8];
	FILE *f = fopen("/dev/null", "w");

	print_message("owners %s\n", text);
	assert_non_null(f);
	assert_int_equal(report_owners_json_files(text, ino, 8), want_files);
	o = report_owners_parse(text);
	assert_non_null(o);
	assert_int_equal(json_object_array_length(o), want_owners);
	assert_non_null(report_owners_action(o));
	report_owners_print(f, o);
	json_object_put(o);
	fclose(f);
}

static void test_owners_json_tampered(void **state)
{
	(void)state;
	owners_survive("[{\"type\":\"file\",\"inot eile_offse\":4095,\"length\":4096,"
		       "\"paths\":\"inodes\"}]", 0, 1);
	owners_survive("[{\"type\":null,\"inode\":1}]", 0, 0);
	owners_survive("[{\"type\":5,\"inode\":1}]", 0, 0);
	owners_survive("[{\"type\":\"file\",\"inode\":7,\"paths\":[null,5,\"/ok\",{}]}]", 1, 1);
	owners_survive("[5, \"x\", null, [], {\"type\":\"log\"}]", 0, 1);
	owners_survive("[{\"type\":\"metadata\",\"metadata\":[1]}]", 0, 1);
	owners_survive("{\"type\":\"file\"}", 0, 0);
	owners_survive("", 0, 0);
	owners_survive("[{\"type\":\"file\",\"inode\":\"x\",\"file_offset\":null}]", 1, 1);
}

static char tmp_dir[] = "/tmp/mediascan-test-files-XXXXXX";

static void read_file(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY);
	ssize_t n;

	assert_true(fd >= 0);
	n = read(fd, buf, len - 1);
	assert_true(n >= 0);
	buf[n] = '\0';
	close(fd);
}

/* A drive-side verify found not to read a device's medium is a metric, under its identity. */
static void test_metrics_method_untrusted(void **state)
{
	char sdir[256], prom[256], buf[8192];
	struct scan_state *st = NULL;
	struct scan_state_trust t;
	char warn[256] = "";

	(void)state;
	snprintf(sdir, sizeof(sdir), "%s/state-trust", tmp_dir);
	snprintf(prom, sizeof(prom), "%s/trust.prom", tmp_dir);
	assert_int_equal(scan_state_open(sdir, &st, warn, sizeof(warn)), 0);
	memset(&t, 0, sizeof(t));
	snprintf(t.ident, sizeof(t.ident), "serial:QM00003");
	snprintf(t.method, sizeof(t.method), "scsi-verify");
	snprintf(t.state, sizeof(t.state), "voided");
	snprintf(t.reason, sizeof(t.reason), "a sampled read failed");
	snprintf(t.device_path, sizeof(t.device_path), "/dev/sdc");
	assert_int_equal(scan_state_trust_put(st, &t), 0);
	snprintf(t.ident, sizeof(t.ident), "wwid:eui.0001");
	snprintf(t.method, sizeof(t.method), "nvme-verify");
	snprintf(t.state, sizeof(t.state), "proven");
	snprintf(t.device_path, sizeof(t.device_path), "/dev/nvme0n1");
	assert_int_equal(scan_state_trust_put(st, &t), 0);
	assert_int_equal(patrol_metrics_write(st, NULL, 0, prom), 0);
	read_file(prom, buf, sizeof(buf));
	assert_non_null(strstr(buf, "# TYPE mediascan_method_untrusted gauge\n"));
	assert_non_null(strstr(buf, "mediascan_method_untrusted{identity=\"serial:QM00003\","
				    "device=\"/dev/sdc\",method=\"scsi-verify\"} 1\n"));
	assert_non_null(strstr(buf, "mediascan_method_untrusted{identity=\"wwid:eui.0001\","
				    "device=\"/dev/nvme0n1\",method=\"nvme-verify\"} 0\n"));
	scan_state_close(st);
}

/* The metrics file is written through a new temp file: a symlink planted where the temp file
 * used to go ("PATH.tmp", in a directory the prometheus user owns) clobbers nothing. */
static void test_metrics_no_follow(void **state)
{
	char sdir[256], victim[256], link[256], prom[256], buf[256];
	struct scan_state *st = NULL;
	struct stat sb;
	char warn[256] = "";
	FILE *f;

	(void)state;
	snprintf(sdir, sizeof(sdir), "%s/state", tmp_dir);
	snprintf(victim, sizeof(victim), "%s/victim", tmp_dir);
	snprintf(prom, sizeof(prom), "%s/m.prom", tmp_dir);
	snprintf(link, sizeof(link), "%s/m.prom.tmp", tmp_dir);
	f = fopen(victim, "w");
	assert_non_null(f);
	fputs("precious\n", f);
	fclose(f);
	assert_int_equal(symlink(victim, link), 0);
	assert_int_equal(scan_state_open(sdir, &st, warn, sizeof(warn)), 0);
	assert_int_equal(patrol_metrics_write(st, NULL, 0, prom), 0);
	read_file(victim, buf, sizeof(buf));
	assert_string_equal(buf, "precious\n");
	assert_int_equal(lstat(prom, &sb), 0);
	assert_true(S_ISREG(sb.st_mode));
	assert_int_equal(sb.st_mode & 0777, 0644);
	read_file(prom, buf, sizeof(buf));
	assert_memory_equal(buf, "# HELP", 6);
	/* the metrics path itself a symlink: refused (not a regular file of ours), its target
	 * untouched, the symlink left as it was */
	unlink(prom);
	assert_int_equal(symlink(victim, prom), 0);
	assert_int_equal(patrol_metrics_write(st, NULL, 0, prom), -ELOOP);
	read_file(victim, buf, sizeof(buf));
	assert_string_equal(buf, "precious\n");
	assert_int_equal(lstat(prom, &sb), 0);
	assert_true(S_ISLNK(sb.st_mode));
	/* a FIFO there: refused at once, never opened (it would block) */
	unlink(prom);
	assert_int_equal(mkfifo(prom, 0600), 0);
	assert_int_equal(patrol_metrics_write(st, NULL, 0, prom), -ENXIO);
	unlink(prom);
	scan_state_close(st);
}

/* The state directory is refused when someone else may write to it or owns it. */
static void test_state_dir_checked(void **state)
{
	char dir[256];
	struct scan_state *st = NULL;

	(void)state;
	snprintf(dir, sizeof(dir), "%s/open-state", tmp_dir);
	assert_int_equal(mkdir(dir, 0700), 0);
	assert_int_equal(chmod(dir, 0777), 0);
	assert_int_equal(cli_history_open(dir, NULL, &st), -EPERM);
	assert_int_equal(chmod(dir, 0775), 0);
	assert_int_equal(cli_history_open(dir, NULL, &st), -EPERM);
	if (geteuid() == 0) {
		assert_int_equal(chmod(dir, 0700), 0);
		assert_int_equal(chown(dir, 12345, 0), 0);
		assert_int_equal(cli_history_open(dir, NULL, &st), -EPERM);
		assert_int_equal(chown(dir, 0, 0), 0);
	}
	assert_int_equal(chmod(dir, 0700), 0);
	assert_int_equal(cli_history_open(dir, NULL, &st), 0);
	scan_state_close(st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_summary_rate),
		cmocka_unit_test(test_config_good),
		cmocka_unit_test(test_config_errors),
		cmocka_unit_test(test_config_hook_timeout),
		cmocka_unit_test(test_run_hook),
		cmocka_unit_test(test_locks),
		cmocka_unit_test(test_config_target_names),
		cmocka_unit_test(test_config_long_lines),
		cmocka_unit_test(test_config_hooks),
		cmocka_unit_test(test_config_secure),
		cmocka_unit_test(test_active_hours),
		cmocka_unit_test(test_journal_fields),
		cmocka_unit_test(test_owners_files),
		cmocka_unit_test(test_metrics_no_follow),
		cmocka_unit_test(test_metrics_method_untrusted),
		cmocka_unit_test(test_state_dir_checked),
		cmocka_unit_test(test_owners_json_tampered),
	};
	int fd = mkstemp(conf_path), ret;

	if (fd < 0 || !mkdtemp(tmp_dir))
		return 99;
	close(fd);
	ret = cmocka_run_group_tests(tests, NULL, NULL);
	unlink(conf_path);
	if (!getenv("KEEP_TMP")) {
		char cmd[512];

		snprintf(cmd, sizeof(cmd), "rm -rf -- '%s'", tmp_dir);
		if (system(cmd) != 0)
			ret = ret ? ret : 99;
	}
	return ret;
}
