/*
 * pass/mode.c - the pass's modes, one ops table each (mode_int.h): the target's own devices;
 * a filesystem on md/dm read at member level, every copy and parity, its errors given their
 * verdicts once the whole pass is read (stack_scan.c, stack_verdict.c); one member disk of a
 * stack, planned through the stacks above it (stack_plan.c). The stages call through the
 * table and never ask which mode they are in.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "mode_int.h"

/* The plan as the scan's source: the target's plan, or for a recheck the open errors. */
static int source_plan(struct pass *p)
{
	int ret;

	if (p->a->recheck)
		return pass_plan_recheck(&p->plan, &p->t, p->ck.watch, p->ck.nr_watch, &p->src);
	ret = pass_plan_open(&p->plan, &p->t, &p->po, &p->src);
	if (ret < 0) {
		pass_say(p->h, PASS_SAY_ERROR, "cannot plan %s: %s", p->a->target, strerror(-ret));
		p->status = PASS_EXIT_OPERATIONAL;
	}
	return ret;
}

/* errors[0..sealed) are in the history, the rest? */
static void store_unsaved(struct pass *p, int ret)
{
	if (ret == 0 && !p->a->no_state)
		pass_record_unsaved(&p->ck, &p->r);
}

/* ---------------------------------------------------------------- the target's devices */

static int plain_count(struct pass *p)
{
	return pass_plan_count(&p->t, &p->po, &p->so.planned_total);
}

/*
 * A sampled read failed where the dataless method had said clean: the method is voided on
 * that device, and the whole plan is read again with read from its start (what the method
 * passed proves nothing). The first run's result goes; its voiding is kept for the report.
 */
static int scan_again_by_read(struct pass *p)
{
	struct scan_result *r = &p->r, first = *r;
	struct vfy_dev *vd = &p->cm.devs[first.void_dev < p->cm.nr ? first.void_dev : 0];
	int ret;

	vd->trust.state = VFY_TRUST_VOIDED;
	vd->trust.kept = 0;
	snprintf(vd->trust.why, sizeof(vd->trust.why), "%.300s", first.method_note);
	if (!p->a->no_state)
		pass_method_trust_keep(p->ck.st, &p->cm, p->method->name);
	pass_method_use_read(&p->cm, &p->t, &p->so);
	pass_say(p->h, PASS_SAY_ERROR, "warning: %s; the whole plan is read again with %s",
		 first.method_note, p->cm.ops->name);
	pass_plan_close(&p->plan);
	first.errors = NULL;
	scan_result_free(r);
	memset(r, 0, sizeof(*r));
	snprintf(p->cm.why, sizeof(p->cm.why), "%.340s; the plan was read again with %s",
		 first.method_note, p->cm.ops->name);
	p->method = p->cm.ops;
	snprintf(r->method_note, sizeof(r->method_note), "%s", p->cm.why);
	/* from the plan's start: a resumed pass's earlier part was passed by the method too */
	p->so.scanned_base = 0;
	memset(p->so.start_cursor, 0, sizeof(p->so.start_cursor));
	memset(p->po.start_offset, 0, sizeof(p->po.start_offset));
	ret = pass_plan_open(&p->plan, &p->t, &p->po, &p->src);
	if (ret < 0) {
		snprintf(r->fatal_msg, sizeof(r->fatal_msg), "cannot plan %s again: %s",
			 p->a->target, strerror(-ret));
		return ret;
	}
	ret = scan_run(p->devs, p->t.nr_devices, &p->src, &p->so, r);
	/* after the run: a voided result stops the executor */
	r->voided = 1;
	r->void_dev = first.void_dev;
	r->void_offset = first.void_offset;
	r->void_length = first.void_length;
	r->void_err = first.void_err;
	r->sampled_bytes = first.sampled_bytes;
	r->nr_samples = first.nr_samples;
	return ret;
}

static int plain_scan(struct pass *p)
{
	int ret = scan_run(p->devs, p->t.nr_devices, &p->src, &p->so, &p->r);

	if (ret == 0 && p->r.voided && !p->a->recheck)
		ret = scan_again_by_read(p);
	store_unsaved(p, ret);
	return ret;
}

const struct pass_mode_ops pass_mode_plain = {
	.name = "plain",
	.prove = 1,
	.count_what = "reading the space map (GETFSMAP)",
	.count = plain_count,
	.source = source_plan,
	.scan = plain_scan,
};

/* ---------------------------------------------------------------- member level */

/* Every copy is read, so the data moves: read, whatever was asked; and compared, if asked. */
static void members_method(struct pass *p)
{
	const struct vfy_ops *rd;

	pass_stack_compare_choose(&p->stk, p->a);
	if (vfy_method_lookup("read", &rd, p->err, sizeof(p->err)) == 0)
		p->method = rd;
	snprintf(p->r.method_note, sizeof(p->r.method_note), "the filesystem's device "
		 "/dev/%.60s sits on md/dm: every copy (and parity) read on its %u members "
		 "with O_DIRECT (--top-only reads it as md serves it)", p->stk.top,
		 p->stk.nr_leaf);
}

/* The members' bytes (every copy, parity): its progress, the window's pace and the history
 * count those. */
static int members_count(struct pass *p)
{
	return pass_stack_count(&p->stk, &p->t, &p->po, p->so.io_size, &p->so.planned_total);
}

/* No checkpoint stores its errors: they reach the history through the map stage only. */
static int members_scan(struct pass *p)
{
	return pass_stack_scan(&p->stk, &p->src, &p->so, &p->r, p->err, sizeof(p->err));
}

static void members_verdicts(struct pass *p)
{
	if (p->resumed && !p->a->no_state)
		pass_record_rl_earlier(&p->ck, &p->stk);
	if (pass_stack_verdicts(&p->stk, &p->r) < 0) {
		p->rep.exit_bits |= PASS_EXIT_OPERATIONAL;
	} else if (!p->a->no_state) {
		/*
		 * The damage of the filesystem's device (no copy read) into the history with the
		 * run's cursor: its checkpoints stored none. A range whose redundancy is lost is
		 * stored later (the report stage): the cursor stays before the first member
		 * error until a run stores it, so a resume finds it again.
		 */
		pass_record_end_cursor(&p->ck, &p->t, &p->r, p->stk.held && p->stk.nr_rl ?
				       p->stk.held_cursor : p->stk.end_cursor);
		pass_record_unsaved(&p->ck, &p->r);
	}
}

static int stack_map(struct pass *p)
{
	return pass_stack_map(&p->stk, &p->rep);
}

/* A stopped pass whose redundancy-lost ranges are stored resumes where it stopped. */
static void members_end(struct pass *p)
{
	if (p->stk.held && !p->r.complete && !p->a->no_state)
		pass_record_stack_cursor(&p->ck, p->stk.end_cursor);
}

static const struct pass_mode_ops pass_mode_members = {
	.name = "members",
	.prove = 0,
	.count_what = "mapping its plan down the stack",
	.method = members_method,
	.count = members_count,
	.source = source_plan,
	.scan = members_scan,
	.verdicts = members_verdicts,
	.map = stack_map,
	.end = members_end,
};

/* ---------------------------------------------------------------- a member disk */

static int member_disk_count(struct pass *p)
{
	p->so.planned_total = p->stk.mr_bytes;
	return 0;
}

static int member_disk_source(struct pass *p)
{
	pass_stack_member_source(&p->stk, &p->src);
	return 0;
}

/* The stacks above are watched: their change stops it. */
static int member_disk_scan(struct pass *p)
{
	int ret = pass_stack_member_scan(&p->stk, p->devs, p->t.nr_devices, &p->src, &p->so,
					 &p->r);

	store_unsaved(p, ret);
	return ret;
}

/* The plan's metadata, the errors' verdicts above. */
static void member_disk_verdicts(struct pass *p)
{
	p->rep.stack = &p->stk;
	if (pass_stack_member_verdicts(&p->stk, &p->r) < 0)
		p->rep.exit_bits |= PASS_EXIT_OPERATIONAL;
}

static const struct pass_mode_ops pass_mode_member_disk = {
	.name = "member disk",
	.prove = 1,
	.count_what = "planning the disk through the stacks above it",
	.count = member_disk_count,
	.source = member_disk_source,
	.scan = member_disk_scan,
	.verdicts = member_disk_verdicts,
	.map = stack_map,
};

/* Return the mode of a pass whose method stage opened (or did not open) ps. */
static const struct pass_mode_ops *pass_mode_of(const struct pass_stack *ps)
{
	if (ps->active)
		return &pass_mode_members;
	if (ps->member_plan)
		return &pass_mode_member_disk;
	return &pass_mode_plain;
}

int pass_mode_choose(struct pass *p)
{
	const struct pass_opts *a = p->a;
	int ret = 0;

	/* On md/dm: read every copy on the members (--top-only: the top device, as md serves);
	 * a recheck reads the open errors where they were found. */
	if (!a->top_only && !a->recheck)
		ret = pass_stack_open(&p->stk, &p->t, p->err, sizeof(p->err));
	if (ret == 0 && !a->top_only && !a->recheck)
		ret = pass_stack_member_plan(&p->stk, &p->t, p->err, sizeof(p->err));
	if (ret < 0) {
		pass_say(p->h, PASS_SAY_ERROR, "%s", p->err);
		p->status = PASS_EXIT_OPERATIONAL;
		return ret;
	}
	p->mode = pass_mode_of(&p->stk);
	pass_stack_tell(&p->stk, p->h);
	return 0;
}
