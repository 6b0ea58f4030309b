/*
 * pass/prove.c - the method's proof: a dataless method (NVMe Verify, SCSI VERIFY) is trusted
 * on a device only once it has shown that it reads that device's medium (integrity/trust.c).
 * The first VFY_PROOF_BYTES of the plan on each device are verified, then read; auto falls
 * back to read on a device where the proof fails or cannot be made, an asked-for method is
 * refused where it failed (--trust-verify keeps it on the admin's word). What each device got
 * and why is kept in its vfy_dev for the report.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "pass_int.h"

#define PROOF_MAX_SPANS 1024
#define PROOF_MIN_SPAN (64u << 10)	/* shorter ranges time the command, not the medium */
#define PROOF_MAX_RANGES 1000000	/* ranges looked at for long ones, at most */

struct proof_spans {
	struct vfy_span sp[PROOF_MAX_SPANS];
	unsigned n;
	uint64_t bytes;
};

/* Add bytes [offset, offset + length) of the scanned device to its spans (whole-disk LBAs). */
static void spans_add(struct proof_spans *s, const struct vfy_dev *d, uint64_t offset,
		      uint64_t length)
{
	uint64_t lba, nlb;

	if (s->bytes >= VFY_PROOF_BYTES || !d->lbs)
		return;
	if (length > VFY_PROOF_BYTES - s->bytes)
		length = VFY_PROOF_BYTES - s->bytes;
	lba = (offset + d->part_start_bytes) / d->lbs;
	nlb = length / d->lbs;
	if (!nlb)
		return;
	if (s->n && s->sp[s->n - 1].lba + s->sp[s->n - 1].nlb == lba) {
		s->sp[s->n - 1].nlb += nlb;
	} else {
		if (s->n == PROOF_MAX_SPANS)
			return;
		s->sp[s->n].lba = lba;
		s->sp[s->n].nlb = nlb;
		s->n++;
	}
	s->bytes += nlb * d->lbs;
}

/*
 * Return 0 after taking the plan's first ranges of at least min_span bytes on each device
 * into spans[], or -errno.
 */
static int proof_spans_of_plan(struct map_target *t, const struct map_plan_opts *po,
			       const struct pass_method *m, struct proof_spans *spans,
			       uint64_t min_span)
{
	struct map_plan_opts from_start = *po;
	struct scan_range rg[64];
	struct pass_plan pp;
	struct scan_source src;
	uint64_t seen = 0;
	int ret, n;

	memset(&pp, 0, sizeof(pp));
	memset(from_start.start_offset, 0, sizeof(from_start.start_offset));
	ret = pass_plan_open(&pp, t, &from_start, &src);
	if (ret < 0)
		return ret;
	for (;;) {
		unsigned full = 0;

		n = src.next(src.arg, rg, sizeof(rg) / sizeof(rg[0]));
		if (n <= 0) {
			ret = n;
			break;
		}
		for (int i = 0; i < n; i++)
			if (rg[i].dev_idx < m->nr && rg[i].length >= min_span)
				spans_add(&spans[rg[i].dev_idx], &m->devs[rg[i].dev_idx],
					  rg[i].offset, rg[i].length);
		seen += (uint64_t)n;
		if (seen >= PROOF_MAX_RANGES) {
			ret = 0;
			break;
		}
		for (unsigned d = 0; d < m->nr; d++)
			full += spans[d].bytes >= VFY_PROOF_BYTES || spans[d].n == PROOF_MAX_SPANS;
		if (full == m->nr) {
			ret = 0;
			break;
		}
	}
	pass_plan_close(&pp);
	return ret;
}

/* Trust states as the history keeps them. */
static const char *const trust_states[] = {
	[VFY_TRUST_NONE] = "none", [VFY_TRUST_PROVEN] = "proven",
	[VFY_TRUST_UNPROVEN] = "unproven", [VFY_TRUST_FAILED] = "failed",
	[VFY_TRUST_VOIDED] = "voided", [VFY_TRUST_ASSERTED] = "asserted",
};

/*
 * Return 1 after taking a device's trust from the history (a proof or a distrust younger than
 * PASS_TRUST_KEEP_S under its identity), 0 when it has to be timed.
 */
static int trust_from_history(struct scan_state *st, const struct vfy_ops *ops,
			      struct vfy_dev *vd)
{
	struct scan_state_trust h;
	int64_t now = time(NULL);
	char when[32];
	struct tm tm;
	time_t at;

	if (!st || !vd->ident[0] || scan_state_trust_get(st, vd->ident, ops->name, &h) != 1 ||
	    h.at > now || now - h.at > PASS_TRUST_KEEP_S)
		return 0;
	for (unsigned i = 0; i < sizeof(trust_states) / sizeof(trust_states[0]); i++) {
		if (strcmp(h.state, trust_states[i]) || (i != VFY_TRUST_PROVEN &&
							 i != VFY_TRUST_FAILED &&
							 i != VFY_TRUST_VOIDED))
			continue;
		at = (time_t)h.at;
		if (!gmtime_r(&at, &tm) || !strftime(when, sizeof(when), "%Y-%m-%d", &tm))
			snprintf(when, sizeof(when), "?");
		vd->trust.state = (enum vfy_trust_state)i;
		vd->trust.t.bytes = h.bytes;
		vd->trust.t.verify_ns = (uint64_t)(h.verify_s * 1e9);
		vd->trust.t.read_ns = (uint64_t)(h.read_s * 1e9);
		snprintf(vd->trust.why, sizeof(vd->trust.why), "%.15s on %.10s (kept for %.48s): "
			 "%.220s", h.state, when, h.ident, h.reason);
		return 1;
	}
	return 0;
}

void pass_method_trust_keep(struct scan_state *st, const struct pass_method *m,
			    const char *method)
{
	for (unsigned d = 0; st && d < m->nr; d++) {
		const struct vfy_dev *vd = &m->devs[d];
		struct scan_state_trust h;

		if (!vd->ident[0] || vd->trust.state == VFY_TRUST_NONE ||
		    vd->trust.state == VFY_TRUST_ASSERTED || vd->trust.kept)
			continue;
		memset(&h, 0, sizeof(h));
		snprintf(h.ident, sizeof(h.ident), "%s", vd->ident);
		snprintf(h.method, sizeof(h.method), "%s", method);
		snprintf(h.state, sizeof(h.state), "%s", trust_states[vd->trust.state]);
		snprintf(h.reason, sizeof(h.reason), "%s", vd->trust.why);
		snprintf(h.device_path, sizeof(h.device_path), "%s", vd->path);
		h.bytes = vd->trust.t.bytes;
		h.verify_s = (double)vd->trust.t.verify_ns / 1e9;
		h.read_s = (double)vd->trust.t.read_ns / 1e9;
		scan_state_trust_put(st, &h);	/* best effort: the next scan times it again */
	}
}

int pass_method_prove(struct pass_method *m, const struct vfy_ops *asked, int trust_verify,
		      struct scan_state *st, struct map_target *t, const struct map_plan_opts *po,
		      struct scan_opts *so, char *err, size_t len)
{
	static struct proof_spans spans[SCAN_MAX_DEVICES];
	const struct vfy_ops *ops = m->ops;
	unsigned bad = SCAN_MAX_DEVICES, timed = 0;
	int ret;

	if (ops->moves_data || !(ops->caps & (VFY_CAP_CMD_NVME | VFY_CAP_CMD_SCSI)))
		return 0;			/* the data crosses the bus: nothing to take on trust */
	for (unsigned d = 0; d < m->nr; d++) {
		m->devs[d].trust.kept = trust_from_history(st, ops, &m->devs[d]);
		timed += !m->devs[d].trust.kept;
	}
	memset(spans, 0, sizeof(spans));
	ret = timed ? proof_spans_of_plan(t, po, m, spans, PROOF_MIN_SPAN) : 0;
	for (unsigned d = 0; ret == 0 && timed && d < m->nr; d++)
		if (!m->devs[d].trust.kept && spans[d].bytes < VFY_PROOF_MIN_BYTES) {
			/* little written in long ranges: every range counts then */
			memset(spans, 0, sizeof(spans));
			ret = proof_spans_of_plan(t, po, m, spans, 0);
			break;
		}
	if (ret < 0) {
		snprintf(err, len, "cannot plan the proof of %s: %s", ops->name, strerror(-ret));
		return ret;
	}
	for (unsigned d = 0; d < m->nr; d++) {
		struct vfy_dev *vd = &m->devs[d];
		char why[160];
		const struct vfy_ops *reader = vfy_ata_read.probe(vd, why, sizeof(why)) == 0 ?
					       &vfy_ata_read : NULL;

		ret = vd->trust.kept ? 0 : vfy_trust_prove(ops, vd, t->devices[d].fd, reader,
							   spans[d].sp, spans[d].n);
		if (ret < 0) {
			vd->trust.state = VFY_TRUST_FAILED;
			snprintf(vd->trust.why, sizeof(vd->trust.why), "%s could not be timed: %s",
				 ops->name, strerror(-ret));
		}
		if (vd->trust.state != VFY_TRUST_PROVEN && bad == SCAN_MAX_DEVICES)
			bad = d;
	}
	pass_method_trust_keep(st, m, ops->name);
	if (bad == SCAN_MAX_DEVICES) {
		pass_method_note(m, "; proven on every device (a verify timed against reads)");
		return 0;
	}
	if (trust_verify) {
		for (unsigned d = 0; d < m->nr; d++)
			if (m->devs[d].trust.state != VFY_TRUST_PROVEN)
				m->devs[d].trust.state = VFY_TRUST_ASSERTED;
		pass_method_note(m, "; not proven on %s (%s), used on --trust-verify",
				 m->devs[bad].path, m->devs[bad].trust.why);
		return 0;
	}
	if (asked && m->devs[bad].trust.state == VFY_TRUST_FAILED) {
		snprintf(err, len, "--method %s is not trusted on %s: %s (--trust-verify uses it "
			 "anyway)", ops->name, m->devs[bad].path, m->devs[bad].trust.why);
		return -EPERM;
	}
	if (asked) {
		pass_method_note(m, "; not proven on %s (%s): sampled reads check it",
				 m->devs[bad].path, m->devs[bad].trust.why);
		return 0;
	}
	pass_method_use_read(m, t, so);
	snprintf(m->why, sizeof(m->why), "auto: %s not trusted on %s: %s; %s instead",
		 ops->name, m->devs[bad].path, m->devs[bad].trust.why, m->ops->name);
	return 0;
}

int pass_method_untrusted(const struct pass_method *m)
{
	for (unsigned d = 0; d < m->nr; d++)
		if (m->devs[d].trust.state == VFY_TRUST_FAILED ||
		    m->devs[d].trust.state == VFY_TRUST_VOIDED)
			return 1;
	return 0;
}
