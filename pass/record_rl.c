/*
 * pass/record_rl.c - the record stage's redundancy lost: a member-level pass's ranges that
 * failed while another copy read, stored under the member's identity and the array's UUID,
 * journalled, handed to on_damage, and marked told once it took them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pass_int.h"

int pass_record_rl(struct pass_record *k, const struct pass_report *rep)
{
	const struct pass_stack *ps = rep->stack;
	const struct pass_hooks *h = k->h;
	struct scan_state_rl *v = NULL;
	char **json = NULL, path[MAP_STACK_NAME + 8];
	size_t *idx = NULL, n = ps && ps->active ? ps->nr_rl : 0;
	unsigned nr_fresh = 0;
	int *fresh = NULL, ret = 0, told = 1;

	if (!ps || !ps->active)
		return 0;
	if (n) {
		v = calloc(n, sizeof(*v));
		json = calloc(n * 3, sizeof(*json));
		fresh = calloc(n, sizeof(*fresh));
		idx = calloc(n, sizeof(*idx));
		if (!v || !json || !fresh || !idx) {
			ret = -ENOMEM;
			goto out;
		}
	}
	for (size_t i = 0; i < n; i++) {
		const struct pass_stack_rl *e = &ps->rl[i];

		snprintf(path, sizeof(path), "/dev/%s", e->array);
		json[3 * i + 2] = e->array[0] ? strdup(path) : NULL;
		if (h->rl_json) {
			json[3 * i] = h->rl_json(h->arg, rep, i, 0);
			json[3 * i + 1] = h->rl_json(h->arg, rep, i, 1);
		}
		v[i] = (struct scan_state_rl){
			.member = e->member_id, .member_path = e->member,
			.array_uuid = e->array_uuid, .array_path = json[3 * i + 2],
			.offset = e->offset, .length = e->length, .err = e->err,
			.no_copy = e->lost, .parity = e->u && e->u->parity, .has_fs = e->has_fs,
			.fs_offset = e->fs_offset, .owners_json = json[3 * i],
			.copies_json = json[3 * i + 1], .repair = e->repair[0] ? e->repair : NULL,
		};
		fresh[i] = 1;			/* without a store every range is new */
	}
	if (k->st && n) {
		ret = scan_state_record_rl(k->st, k->pass_id, v, n, fresh);
		if (ret < 0)
			pass_say(h, PASS_SAY_ERROR, "warning: %zu redundancy-lost range%s not stored "
				 "in the history: %s", n, n == 1 ? "" : "s",
				 scan_state_errmsg(k->st));
	}
	for (size_t i = 0; i < n; i++) {
		if (!fresh[i])
			continue;
		idx[nr_fresh++] = i;
		if (h->journal_rl)
			h->journal_rl(h->arg, rep, i, k->pass_id);
	}
	if (h->on_redundancy_lost && nr_fresh && rep->r->stopped == 1) {
		/* Stopping (SIGTERM, SIGINT): start no command that could hold the stop up. */
		told = 0;
		pass_say(h, PASS_SAY_ERROR, "warning: on_damage not run, the scan is stopping: its "
			 "%u redundancy-lost range%s %s offered again on the next run", nr_fresh,
			 nr_fresh == 1 ? "" : "s", nr_fresh == 1 ? "is" : "are");
	} else if (h->on_redundancy_lost && nr_fresh) {
		told = h->on_redundancy_lost(h->arg, rep, idx, nr_fresh, k->pass_id);
	}
	/* Told (journal, on_damage exit 0): not again. Else the next run offers them again. */
	if (k->st && ret >= 0 && told && nr_fresh &&
	    scan_state_told_rl(k->st, k->pass_id, v, idx, nr_fresh) < 0)
		pass_say(h, PASS_SAY_ERROR, "warning: redundancy-lost ranges not marked as told "
			 "in the history (they will be told again): %s", scan_state_errmsg(k->st));
	ret = ret < 0 ? ret : (int)nr_fresh;
out:
	for (size_t i = 0; json && i < n * 3; i++)
		free(json[i]);
	free(json);
	free(v);
	free(fresh);
	free(idx);
	return ret;
}

void pass_record_rl_settle(struct pass_record *k, const struct pass_report *rep)
{
	if (!rep->stack || !rep->stack->active)
		return;
	if (k->st && rep->r->complete && !k->unsaved && scan_state_settle_rl(k->st,
									    k->pass_id) < 0)
		pass_say(k->h, PASS_SAY_ERROR, "warning: redundancy-lost ranges read cleanly not "
			 "cleared in the history: %s", scan_state_errmsg(k->st));
}

void pass_record_stack_cursor(struct pass_record *k, uint64_t top)
{
	if (!k->st || !k->nr_cursor || k->unsaved)
		return;
	k->cursor[0] = top;
	if (scan_state_checkpoint(k->st, k->pass_id, k->cursor, k->nr_cursor, k->scanned_bytes,
				  NULL, 0, k->dev_keys) < 0)
		pass_say(k->h, PASS_SAY_ERROR, "warning: where the pass stopped was not stored "
			 "(%s): a resume reads from before its first member error",
			 scan_state_errmsg(k->st));
}

struct rl_earlier {
	int64_t pass_id;
	struct pass_stack *ps;
};

static int count_earlier(const struct scan_state_rl_row *e, void *arg)
{
	struct rl_earlier *x = arg;

	if (e->last_pass_id == x->pass_id && !e->cleared) {
		if (e->rl.no_copy)
			x->ps->nr_lost_earlier++;
		else
			x->ps->nr_rl_earlier++;
	}
	return 0;
}

void pass_record_rl_earlier(struct pass_record *k, struct pass_stack *ps)
{
	struct scan_state_pass pass;
	struct rl_earlier x = { .pass_id = k->pass_id, .ps = ps };

	ps->nr_rl_earlier = ps->nr_lost_earlier = 0;
	if (!k->st || scan_state_get_pass(k->st, k->pass_id, &pass) < 0 ||
	    scan_state_list_rl(k->st, pass.target_id, 0, 0, count_earlier, &x) < 0)
		pass_say(k->h, PASS_SAY_ERROR, "warning: the redundancy-lost ranges this pass "
			 "found before its interruption could not be read from the history: %s",
			 k->st ? scan_state_errmsg(k->st) : "no store");
}
