/*
 * patrol/config.c - the patrol config file (INI, parsed with libinih): [global] and one
 * [target NAME] section per target. Every key is checked; the first problem is reported as
 * one line "FILE:LINE: what is wrong".
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <ini.h>

#include "config_file.h"
#include "units.h"
#include "verify.h"

enum {
	CFG_SET_WINDOW = 1 << 0,
	CFG_SET_RATE_MAX = 1 << 1,
	CFG_SET_RATE_MIN = 1 << 2,
	CFG_SET_ACTIVE = 1 << 3,
	CFG_SET_METHOD = 1 << 4,
	CFG_SET_ON_DAMAGE = 1 << 5,
	CFG_SET_HOOK_TIMEOUT = 1 << 6,
};

struct cfg_parse {
	struct patrol_config *c;
	const char *file;
	FILE *f;
	unsigned line;			/* line the reader handed out last */
	unsigned err_line;
	char err[512];
	struct patrol_cfg_target *cur;	/* NULL in [global] */
	int in_global;
	int section_ok;			/* 0 after a bad section header: its keys are ignored */
	char *buf;			/* the line read (getline) */
	size_t cap;
	char *long_value;		/* value of the last line too long for inih */
};

static int cfg_fail(struct cfg_parse *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int cfg_fail(struct cfg_parse *p, const char *fmt, ...)
{
	va_list ap;

	if (p->err[0])
		return 0;
	va_start(ap, fmt);
	vsnprintf(p->err, sizeof(p->err), fmt, ap);
	va_end(ap);
	p->err_line = p->line;
	return 0;
}

static int cfg_section(struct cfg_parse *p, const char *section);

/* Copy value into dst of len bytes; 0, or -1 after reporting a value that does not fit. */
static int cfg_copy(struct cfg_parse *p, const char *name, char *dst, size_t len,
		    const char *value)
{
	if (strlen(value) >= len) {
		cfg_fail(p, "%s too long (%zu bytes, at most %zu)", name, strlen(value), len - 1);
		return -1;
	}
	memcpy(dst, value, strlen(value) + 1);
	return 0;
}

/* Longest config line read (a PATH_MAX path or a 1 KiB on_damage fit many times over). */
#define CFG_MAX_LINE 65536
/* The value inih is handed for a key whose line is too long for it (see cfg_reader). */
#define CFG_LONG_VALUE "\001long"

static int is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v';
}

/*
 * A line longer than inih's buffer (200 bytes in Debian's build, fixed at compile time):
 * split "key = value" here as inih would (first '=' or ':', blanks trimmed, an inline
 * comment " ;" cut), keep the value in p->long_value, and return in str a short line "key =
 * \001long" that inih parses as usual, so its section, line count and error reporting stay
 * right; cfg_handler swaps the value back. A long section header is seen by the reader anyway.
 * With whole (a hook command) no inline comment is cut: the value is the rest of the line.
 */
static char *cfg_long_line(struct cfg_parse *p, char *line, char *str, int num, int whole)
{
	char *b = line, *sep, *name_end, *v, *ve;

	while (is_blank(*b))
		b++;
	if (*b == ';' || *b == '#' || *b == '[') {	/* comment, or a header already seen */
		snprintf(str, (size_t)num, "%s", *b == '[' ? "[long]\n" : "\n");
		return str;
	}
	sep = b + strcspn(b, "=:");
	if (!*sep || sep == b) {
		snprintf(str, (size_t)num, "!\n");	/* inih's syntax error, on this line */
		return str;
	}
	for (name_end = sep; name_end > b && is_blank(name_end[-1]); name_end--)
		;
	for (v = sep + 1; is_blank(*v); v++)
		;
	for (ve = v; *ve && !whole; ve++)
		if (*ve == ';' && ve > v && is_blank(ve[-1]))
			break;
	if (whole)
		ve = v + strlen(v);
	while (ve > v && is_blank(ve[-1]))
		ve--;
	*ve = '\0';
	if (name_end - b + sizeof(" = " CFG_LONG_VALUE "\n") > (size_t)num) {
		cfg_fail(p, "key too long");
		snprintf(str, (size_t)num, "\n");
		return str;
	}
	free(p->long_value);
	p->long_value = strdup(v);
	if (!p->long_value) {
		cfg_fail(p, "out of memory");
		snprintf(str, (size_t)num, "\n");
		return str;
	}
	snprintf(str, (size_t)num, "%.*s = " CFG_LONG_VALUE "\n", (int)(name_end - b), b);
	return str;
}

/* 1 when line sets a hook command (on_damage): its value is taken whole, ';' and all. */
static int is_hook_line(const char *line)
{
	static const char key[] = "on_damage";
	const char *p = line + strspn(line, " \t");

	if (strncmp(p, key, sizeof(key) - 1))
		return 0;
	p += sizeof(key) - 1;
	p += strspn(p, " \t");
	return *p == '=' || *p == ':';
}

/*
 * ini_reader: reads whole lines (getline) and counts them, so the handler knows where it
 * is; sees section headers itself (inih does not tell the handler about a section without
 * keys); hands lines too long for inih's buffer over in pieces it can take (cfg_long_line),
 * and hook commands whole (no inline comment cut); refuses an indented line that inih would
 * take as a continuation replacing the value above, and hands an indented key on unindented.
 */
static char *cfg_reader(char *str, int num, void *stream)
{
	struct cfg_parse *p = stream;
	ssize_t n = getline(&p->buf, &p->cap, p->f);
	char *b, *e, *s = p->buf;

	if (n < 0 || num < 2)
		return NULL;
	p->line++;
	if (n > CFG_MAX_LINE) {
		cfg_fail(p, "line longer than %d bytes", CFG_MAX_LINE);
		return NULL;
	}
	for (b = s; *b == ' ' || *b == '\t'; b++)
		;
	e = strchr(b, ']');
	if (*b == '[' && e) {
		*e = '\0';
		cfg_section(p, b + 1);
		*e = ']';
	}
	if (b != s && *b && !strchr(";#\r\n", *b)) {
		/* inih would take an indented line as the continuation of the value above and
		 * hand it over as a new value, replacing the first: a value is one line here. */
		if (!strpbrk(b, "=:")) {
			cfg_fail(p, "indented line continues no value: give each key = value "
				 "on one line");
			snprintf(str, (size_t)num, "\n");
			return str;
		}
		s = b;				/* an indented key = value */
	}
	if (is_hook_line(s))
		return cfg_long_line(p, s, str, num, 1);
	if (strlen(s) < (size_t)num) {
		memcpy(str, s, strlen(s) + 1);
		return str;
	}
	return cfg_long_line(p, s, str, num, 0);
}

/* Return 0 and minutes since midnight for "HH:MM", or -EINVAL. */
static int parse_clock(const char *s, int *min)
{
	unsigned h, m;
	char end;

	if (sscanf(s, "%u:%u%c", &h, &m, &end) != 2 || h > 24 || m > 59 || (h == 24 && m))
		return -EINVAL;
	*min = (int)(h * 60 + m);
	return 0;
}

int patrol_parse_active_hours(const char *s, int *start_min, int *end_min)
{
	char a[16], b[16];
	const char *dash = strchr(s, '-');

	if (!dash || (size_t)(dash - s) >= sizeof(a) || strlen(dash + 1) >= sizeof(b))
		return -EINVAL;
	memcpy(a, s, (size_t)(dash - s));
	a[dash - s] = '\0';
	strcpy(b, dash + 1);
	if (parse_clock(a, start_min) || parse_clock(b, end_min) || *start_min == *end_min)
		return -EINVAL;
	return 0;
}

int patrol_active_now(int start_min, int end_min, int now_min)
{
	if (start_min < 0)
		return 1;
	if (start_min < end_min)
		return now_min >= start_min && now_min < end_min;
	return now_min >= start_min || now_min < end_min;	/* across midnight */
}

/* A key that [global] and [target] share; 1 handled, 0 unknown key, -1 bad value (reported). */
static int cfg_common(struct cfg_parse *p, struct patrol_opts *o, const char *name,
		      const char *value)
{
	if (strcmp(name, "window") == 0) {
		if (report_parse_duration(value, &o->window_s) || o->window_s < 1 ||
		    o->window_s > 10 * 365 * 86400.0) {
			cfg_fail(p, "bad window '%s': give a duration such as 90s, 12h, 7d", value);
			return -1;
		}
		o->window_line = p->line;
	} else if (strcmp(name, "rate_max") == 0 || strcmp(name, "rate_min") == 0) {
		uint64_t *dst = name[6] == 'a' ? &o->rate_max_bps : &o->rate_min_bps;

		if (report_parse_rate(value, dst)) {
			cfg_fail(p, "bad %s '%s': give bytes per second, e.g. 50M", name, value);
			return -1;
		}
		o->rate_line = p->line;
	} else if (strcmp(name, "active_hours") == 0) {
		if (patrol_parse_active_hours(value, &o->active_start_min, &o->active_end_min)) {
			cfg_fail(p, "bad active_hours '%s': give HH:MM-HH:MM, e.g. 01:00-06:00",
				 value);
			return -1;
		}
	} else if (strcmp(name, "method") == 0) {
		const struct vfy_ops *ops;
		char why[160];

		if (vfy_method_lookup(value, &ops, why, sizeof(why)) < 0) {
			cfg_fail(p, "bad method: %s", why);
			return -1;
		}
		snprintf(o->method, sizeof(o->method), "%s", value);
		o->method_line = p->line;
	} else if (strcmp(name, "on_damage") == 0) {
		/* the reader hands the line's whole value: " ;" would be a comment to inih, a
		 * second command to the shell; which one was meant cannot be told */
		if (strstr(value, " ;") || strstr(value, "\t;")) {
			cfg_fail(p, "on_damage has ' ;' in it: a comment or a second command? put "
				 "comments on a line of their own, and join commands with && or "
				 "write a script");
			return -1;
		}
		if (cfg_copy(p, name, o->on_damage, sizeof(o->on_damage), value))
			return -1;
	} else if (strcmp(name, "hook_timeout") == 0) {
		if (report_parse_duration(value, &o->hook_timeout_s) || o->hook_timeout_s < 1 ||
		    o->hook_timeout_s > 86400) {
			cfg_fail(p, "bad hook_timeout '%s': give a duration from 1s to 1d, e.g. 5m",
				 value);
			return -1;
		}
		o->set |= CFG_SET_HOOK_TIMEOUT;
		return 1;
	} else {
		return 0;
	}
	o->set |= strcmp(name, "window") == 0 ? CFG_SET_WINDOW :
		  strcmp(name, "rate_max") == 0 ? CFG_SET_RATE_MAX :
		  strcmp(name, "rate_min") == 0 ? CFG_SET_RATE_MIN :
		  strcmp(name, "active_hours") == 0 ? CFG_SET_ACTIVE :
		  strcmp(name, "method") == 0 ? CFG_SET_METHOD : CFG_SET_ON_DAMAGE;
	return 1;
}

/* A section header: [global] or [target NAME]; 1, or 0 after recording the problem. */
static int cfg_section(struct cfg_parse *p, const char *section)
{
	struct patrol_config *c = p->c;

	p->section_ok = 0;
	p->cur = NULL;
	p->in_global = 0;
	if (strcmp(section, "global") == 0) {
		p->in_global = 1;
	} else if (strncmp(section, "target ", 7) == 0 && section[7]) {
		const char *tn = section + 7;

		for (unsigned i = 0; i < c->nr_targets; i++)
			if (strcmp(c->targets[i].name, tn) == 0)
				return cfg_fail(p, "target '%s' defined twice (first on line "
						"%u)", tn, c->targets[i].line);
		if (c->nr_targets == PATROL_MAX_TARGETS)
			return cfg_fail(p, "more than %d targets", PATROL_MAX_TARGETS);
		if (strlen(tn) >= sizeof(c->targets[0].name) ||
		    strspn(tn, "abcdefghijklmnopqrstuvwxyz" "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
			   "0123456789-_.") != strlen(tn))
			return cfg_fail(p, "bad target name '%s': letters, digits, - _ . "
					"only, at most 63", tn);
		p->cur = &c->targets[c->nr_targets++];
		memset(p->cur, 0, sizeof(*p->cur));
		snprintf(p->cur->name, sizeof(p->cur->name), "%s", tn);
		p->cur->line = p->line;
		p->cur->o.active_start_min = -1;
	} else {
		return cfg_fail(p, "unknown section [%s]: use [global] or [target NAME]",
				section);
	}
	p->section_ok = 1;
	return 1;
}

static int cfg_handler(void *user, const char *section, const char *name, const char *value)
{
	struct cfg_parse *p = user;
	struct patrol_config *c = p->c;
	int ret;

	if (p->long_value && strcmp(value, CFG_LONG_VALUE) == 0)
		value = p->long_value;		/* the whole value of a long line */
	if (!section[0])
		return cfg_fail(p, "'%s' outside a section: put it under [global]", name);
	if (!p->section_ok || (!p->in_global && !p->cur))
		return 1;			/* a bad header, already reported */
	if (p->in_global) {
		if (strcmp(name, "state_dir") == 0) {
			cfg_copy(p, name, c->state_dir, sizeof(c->state_dir), value);
			return 1;
		}
		if (strcmp(name, "metrics_file") == 0) {
			cfg_copy(p, name, c->metrics_file, sizeof(c->metrics_file), value);
			return 1;
		}
		ret = cfg_common(p, &c->global, name, value);
		if (ret == 0)
			return cfg_fail(p, "unknown key '%s' in [global]", name);
		return ret > 0;
	}
	if (strcmp(name, "path") == 0) {
		if (value[0] != '/')
			return cfg_fail(p, "bad path '%s' of target '%s': give an absolute path",
					value, p->cur->name);
		if (cfg_copy(p, "path", p->cur->path, sizeof(p->cur->path), value))
			return 0;
		p->cur->path_line = p->line;
		return 1;
	}
	ret = cfg_common(p, &p->cur->o, name, value);
	if (ret == 0)
		return cfg_fail(p, "unknown key '%s' in [target %s]", name, p->cur->name);
	return ret > 0;
}

/* Fill what target t does not set from [global]. */
static void cfg_inherit(struct patrol_cfg_target *t, const struct patrol_opts *g)
{
	struct patrol_opts *o = &t->o;

	if (!(o->set & CFG_SET_WINDOW)) {
		o->window_s = g->window_s;
		o->window_line = g->window_line;
	}
	if (!(o->set & CFG_SET_RATE_MAX))
		o->rate_max_bps = g->rate_max_bps;
	if (!(o->set & CFG_SET_RATE_MIN))
		o->rate_min_bps = g->rate_min_bps;
	if (!(o->set & (CFG_SET_RATE_MAX | CFG_SET_RATE_MIN)))
		o->rate_line = g->rate_line;
	if (!(o->set & CFG_SET_ACTIVE)) {
		o->active_start_min = g->active_start_min;
		o->active_end_min = g->active_end_min;
	}
	if (!(o->set & CFG_SET_METHOD) && g->method[0]) {
		snprintf(o->method, sizeof(o->method), "%s", g->method);
		o->method_line = g->method_line;
	}
	if (!(o->set & CFG_SET_ON_DAMAGE))
		snprintf(o->on_damage, sizeof(o->on_damage), "%s", g->on_damage);
	if (!(o->set & CFG_SET_HOOK_TIMEOUT))
		o->hook_timeout_s = g->hook_timeout_s;
}

/* Return 0 when sb (of what) can be trusted with root's commands, -EPERM with why in err. */
static int secure_node(const char *file, const char *what, const struct stat *sb, int is_dir,
		       char *err, size_t errlen)
{
	if (sb->st_uid != 0 && sb->st_uid != geteuid()) {
		snprintf(err, errlen, "%s: refused: %s is owned by uid %u, not root: the config "
			 "names commands patrol runs as root", file, what, (unsigned)sb->st_uid);
		return -EPERM;
	}
	/* a sticky directory of root's (/tmp): others may add names, not replace ours */
	if ((sb->st_mode & 022) && !(is_dir && (sb->st_mode & S_ISVTX) && sb->st_uid == 0)) {
		snprintf(err, errlen, "%s: refused: %s is writable by %s (mode %04o): the config "
			 "names commands patrol runs as root (chmod go-w)", file, what,
			 sb->st_mode & 002 ? "everyone" : "its group",
			 (unsigned)(sb->st_mode & 07777));
		return -EPERM;
	}
	return 0;
}

int patrol_config_secure(const char *file, char *err, size_t errlen)
{
	char *real = realpath(file, NULL), *slash;
	struct stat sb;
	int ret = 0;

	if (!real) {
		int e = errno;

		snprintf(err, errlen, "%s: cannot read the config: %s", file, strerror(e));
		return -e;
	}
	if (stat(real, &sb) < 0 || !S_ISREG(sb.st_mode)) {
		snprintf(err, errlen, "%s: refused: not a regular file", file);
		free(real);
		return -EPERM;
	}
	ret = secure_node(file, real, &sb, 0, err, errlen);
	/* every directory above it, up to / (as sshd checks its keys) */
	while (!ret && (slash = strrchr(real, '/'))) {
		if (slash == real)
			slash[1] = '\0';
		else
			slash[0] = '\0';
		if (stat(real, &sb) < 0) {
			ret = -errno;
			snprintf(err, errlen, "%s: cannot check %s: %s", file, real,
				 strerror(-ret));
			break;
		}
		ret = secure_node(file, real, &sb, 1, err, errlen);
		if (strcmp(real, "/") == 0)
			break;
	}
	free(real);
	return ret;
}

int patrol_config_load(const char *file, struct patrol_config *c, char *err, size_t errlen)
{
	struct cfg_parse p = { .c = c, .file = file, .section_ok = 1 };
	int line;

	memset(c, 0, sizeof(*c));
	snprintf(c->state_dir, sizeof(c->state_dir), "%s", REPORT_DEFAULT_STATE_DIR);
	c->global.window_s = PATROL_DEFAULT_WINDOW_S;
	c->global.hook_timeout_s = RUN_HOOK_TIMEOUT_DEFAULT_S;
	c->global.active_start_min = -1;
	p.f = fopen(file, "re");
	if (!p.f) {
		int e = errno;

		snprintf(err, errlen, "%s: cannot read the config: %s", file, strerror(e));
		return -e;
	}
	line = ini_parse_stream(cfg_reader, &p, cfg_handler, &p);
	fclose(p.f);
	free(p.buf);
	free(p.long_value);
	if (p.err[0] && (!line || p.err_line <= (unsigned)line)) {
		snprintf(err, errlen, "%s:%u: %s", file, p.err_line, p.err);
		return -EINVAL;
	}
	if (line) {			/* inih's own error comes first */
		snprintf(err, errlen, "%s:%d: syntax error: expected [section] or key = value",
			 file, line);
		return -EINVAL;
	}
	if (c->global.rate_min_bps && c->global.rate_max_bps &&
	    c->global.rate_min_bps > c->global.rate_max_bps) {
		snprintf(err, errlen, "%s:%u: rate_min is above rate_max", file,
			 c->global.rate_line);
		return -EINVAL;
	}
	if (!c->nr_targets) {
		snprintf(err, errlen, "%s:%u: no [target NAME] section: nothing to patrol", file,
			 p.line);
		return -EINVAL;
	}
	for (unsigned i = 0; i < c->nr_targets; i++) {
		struct patrol_cfg_target *t = &c->targets[i];

		if (!t->path[0]) {
			snprintf(err, errlen, "%s:%u: target '%s' has no path", file, t->line,
				 t->name);
			return -EINVAL;
		}
		cfg_inherit(t, &c->global);
		if (t->o.rate_min_bps && t->o.rate_max_bps &&
		    t->o.rate_min_bps > t->o.rate_max_bps) {
			snprintf(err, errlen, "%s:%u: rate_min is above rate_max for target '%s'",
				 file, t->o.rate_line ? t->o.rate_line : t->line, t->name);
			return -EINVAL;
		}
	}
	return 0;
}
