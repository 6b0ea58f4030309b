/*
 * mediascan/result.c - the one home of the error model: what a failed or late read says
 * (its class, from the errno or the clock), what it means to an admin (its verdict: damage,
 * transient, slow, device fault, bridged gap, operational), its name, and how neighbouring
 * errors merge. The report, the state store, metrics, the journal and hooks all decide
 * through these functions, never from message text.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "scan.h"

enum scan_err_class scan_classify(int err)
{
	switch (err) {
	case -EIO:
	case -ENODATA:			/* BLK_STS_MEDIUM */
		return SCAN_ERR_MEDIA;
	case -EILSEQ:			/* BLK_STS_PROTECTION */
		return SCAN_ERR_PI;
	case -ETIME:			/* our own I/O timeout: no answer in time */
		return SCAN_ERR_TIMEOUT;
	case -ETIMEDOUT:		/* BLK_STS_TIMEOUT: the command timed out in the driver */
	case -ENOLINK:			/* BLK_STS_TRANSPORT */
	case -EREMOTEIO:		/* BLK_STS_TARGET */
	case -ENODEV:			/* BLK_STS_OFFLINE, or the device went away */
	case -ENXIO:			/* the device is gone */
		return SCAN_ERR_DEVICE;
	default:
		return SCAN_ERR_OPERATIONAL;
	}
}

static const char *const class_names[] = {
	[SCAN_ERR_MEDIA] = "media",	[SCAN_ERR_PI] = "pi",
	[SCAN_ERR_TIMEOUT] = "timeout",	[SCAN_ERR_OPERATIONAL] = "operational",
	[SCAN_ERR_DEVICE] = "device",	[SCAN_ERR_SLOW] = "slow",
};

const char *scan_class_name(enum scan_err_class c)
{
	if ((unsigned)c >= sizeof(class_names) / sizeof(class_names[0]) || !class_names[c])
		return "operational";
	return class_names[c];
}

int scan_class_parse(const char *s, enum scan_err_class *out)
{
	for (unsigned i = 0; i < sizeof(class_names) / sizeof(class_names[0]); i++) {
		if (s && class_names[i] && strcmp(s, class_names[i]) == 0) {
			*out = (enum scan_err_class)i;
			return 0;
		}
	}
	return -EINVAL;
}

enum scan_verdict scan_error_verdict(const struct scan_error *e)
{
	switch (e->cls) {
	case SCAN_ERR_OPERATIONAL:
		return SCAN_V_OPERATIONAL;
	case SCAN_ERR_TIMEOUT:
	case SCAN_ERR_DEVICE:
		return SCAN_V_DEVICE;
	case SCAN_ERR_SLOW:
		return SCAN_V_SLOW;
	case SCAN_ERR_MEDIA:
	case SCAN_ERR_PI:
		break;
	}
	if (e->in_gap)
		return SCAN_V_GAP;
	if (!e->reproducible)
		return SCAN_V_TRANSIENT;
	return SCAN_V_DAMAGE;
}

int scan_is_damage(const struct scan_error *e)
{
	return scan_error_verdict(e) == SCAN_V_DAMAGE;
}

static const char *const verdict_names[] = {
	[SCAN_V_DAMAGE] = "damage",		[SCAN_V_TRANSIENT] = "transient",
	[SCAN_V_SLOW] = "slow",			[SCAN_V_DEVICE] = "device-fault",
	[SCAN_V_GAP] = "gap",			[SCAN_V_OPERATIONAL] = "operational",
};

const char *scan_verdict_name(enum scan_verdict v)
{
	if ((unsigned)v >= sizeof(verdict_names) / sizeof(verdict_names[0]))
		return "operational";
	return verdict_names[v];
}

int scan_verdict_parse(const char *s, enum scan_verdict *out)
{
	for (unsigned i = 0; i < sizeof(verdict_names) / sizeof(verdict_names[0]); i++) {
		if (s && strcmp(s, verdict_names[i]) == 0) {
			*out = (enum scan_verdict)i;
			return 0;
		}
	}
	return -EINVAL;
}

const char *scan_error_name(const struct scan_error *e)
{
	if (e->cls == SCAN_ERR_TIMEOUT)
		return "timeout";
	if (e->cls == SCAN_ERR_SLOW && e->err == 0)
		return "slow";
	switch (e->err) {
	case -EIO:
		return "EIO";
	case -ENODATA:
		return "ENODATA";
	case -EILSEQ:
		return "EILSEQ";
	}
	return strerrorname_np(-e->err) ? strerrorname_np(-e->err) : "unknown";
}

/* A PI mismatch names one block's tag, expected and found values: it is never merged. */
static int error_has_pi(const struct scan_error *e)
{
	return e->vfy_fail == VFY_FAIL_PI_GUARD || e->vfy_fail == VFY_FAIL_PI_APP ||
	       e->vfy_fail == VFY_FAIL_PI_REF || e->pi_expected || e->pi_found;
}

int scan_error_mergeable(const struct scan_error *a, const struct scan_error *b)
{
	/* Merging keeps the first error's details: only errors that say the same merge. */
	return a->dev_idx == b->dev_idx && a->offset + a->length == b->offset &&
	       a->err == b->err && a->cls == b->cls && a->in_gap == b->in_gap &&
	       a->reproducible == b->reproducible && a->vfy_fail == b->vfy_fail &&
	       a->dev_status == b->dev_status && !error_has_pi(a) && !error_has_pi(b);
}

/* Grow a by its neighbour b (scan_error_mergeable said yes). */
static void error_merge(struct scan_error *a, const struct scan_error *b)
{
	a->length += b->length;
	if (b->reads > a->reads)
		a->reads = b->reads;
	if (b->latency_ns > a->latency_ns)
		a->latency_ns = b->latency_ns;
}

int scan_result_add(struct scan_result *r, const struct scan_error *e)
{
	/* An error already handed to a checkpoint is stored by its range: do not grow it. */
	struct scan_error *last = r->nr_errors > r->sealed ? &r->errors[r->nr_errors - 1] : NULL;

	if (last && scan_error_mergeable(last, e)) {
		error_merge(last, e);
		return 0;
	}
	if ((r->nr_errors & (r->nr_errors - 1)) == 0) {
		size_t cap = r->nr_errors ? r->nr_errors * 2 : 8;
		struct scan_error *n = realloc(r->errors, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		r->errors = n;
	}
	r->errors[r->nr_errors++] = *e;
	return 0;
}

static int cmp_error(const void *a, const void *b)
{
	const struct scan_error *x = a, *y = b;

	if (x->dev_idx != y->dev_idx)
		return x->dev_idx < y->dev_idx ? -1 : 1;
	if (x->offset != y->offset)
		return x->offset < y->offset ? -1 : 1;
	return (int)x->cls - (int)y->cls;
}

int scan_result_coalesce(struct scan_result *r)
{
	size_t w = 0;

	if (r->nr_errors < 2)
		return 0;
	/* Reads complete out of order, and checkpoints split runs: sort, then merge. */
	qsort(r->errors, r->nr_errors, sizeof(*r->errors), cmp_error);
	for (size_t i = 0; i < r->nr_errors; i++) {
		struct scan_error *p = w ? &r->errors[w - 1] : NULL;

		if (p && scan_error_mergeable(p, &r->errors[i])) {
			error_merge(p, &r->errors[i]);
			continue;
		}
		r->errors[w++] = r->errors[i];
	}
	r->nr_errors = w;
	r->sealed = w;
	return 0;
}
