/*
 * report/report.c - the damage report as the pass's map stage built it (pass/map.c): the JSON
 * report (schema mediascan-report/1, built with json-c) and the human summary.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <json-c/json.h>

#include "config.h"
#include "report.h"
#include "files.h"
#include "escape.h"
#include "map_report.h"
#include "map_compare.h"
#include "map_stack.h"
#include "units.h"

/* The owner table error e's owners live in: damage's, or at-risk's. */
static const struct map_damage *owner_table(const struct pass_report *rep,
					    const struct scan_error *e)
{
	return scan_is_damage(e) ? &rep->dmg : &rep->risk;
}

static json_object *json_error(const struct pass_report *rep, size_t i)
{
	const struct scan_error *e = &rep->r->errors[i];
	const struct map_damage *d = owner_table(rep, e);
	json_object *j = json_object_new_object(), *owners = json_object_new_array();

	json_object_object_add(j, "device",
			       json_object_new_string(rep->t->devices[e->dev_idx].path));
	json_object_object_add(j, "role", json_object_new_string(
		map_role_name(rep->t->devices[e->dev_idx].role)));
	json_object_object_add(j, "offset", json_object_new_uint64(e->offset));
	json_object_object_add(j, "length", json_object_new_uint64(e->length));
	json_object_object_add(j, "error", json_object_new_string(scan_error_name(e)));
	json_object_object_add(j, "reads", json_object_new_int((int)e->reads));
	json_object_object_add(j, "reproducible", json_object_new_boolean(e->reproducible));
	json_object_object_add(j, "verdict",
			       json_object_new_string(scan_verdict_name(scan_error_verdict(e))));
	if (e->latency_ns)
		json_object_object_add(j, "latency_s",
				       json_object_new_double((double)e->latency_ns / 1e9));
	if (e->vfy_fail != VFY_FAIL_NONE) {
		/* Drive-side methods: what the device said, and for PI which tag failed. */
		json_object_object_add(j, "device_error",
				       json_object_new_string(vfy_fail_name(e->vfy_fail)));
		json_object_object_add(j, "device_status", json_object_new_uint64(e->dev_status));
		if (e->vfy_fail >= VFY_FAIL_PI_GUARD && e->vfy_fail <= VFY_FAIL_PI_REF &&
		    (e->pi_expected || e->pi_found)) {
			json_object_object_add(j, "pi_expected",
					       json_object_new_uint64(e->pi_expected));
			json_object_object_add(j, "pi_found", json_object_new_uint64(e->pi_found));
		}
	}
	if (rep->stack && rep->stack->active && e->dev_idx == 0) {
		/* read at member level: the member range read, the filesystem's range beside */
		const struct pass_stack_at *w = pass_stack_where(rep->stack, e->offset);

		if (w) {
			json_object_object_add(j, "fs_device", json_object_new_string(
				rep->t->devices[0].path));
			json_object_object_add(j, "fs_offset", json_object_new_uint64(e->offset));
			json_object_object_add(j, "device", json_object_new_string(w->member));
			json_object_object_add(j, "role", json_object_new_string("member"));
			json_object_object_add(j, "offset", json_object_new_uint64(
				w->offset + (e->offset - w->fs_offset)));
		}
	}
	for (size_t k = 0; k < rep->own_count[i]; k++)
		json_object_array_add(owners, report_owner_json(d, rep->t,
							     &d->owners[rep->own_first[i] + k]));
	json_object_object_add(j, "owners", owners);
	return j;
}

/* An error without owners: device, range and error name. */
static json_object *json_plain_error(const struct map_target *t, const struct scan_error *e)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "device", json_object_new_string(t->devices[e->dev_idx].path));
	json_object_object_add(o, "offset", json_object_new_uint64(e->offset));
	json_object_object_add(o, "length", json_object_new_uint64(e->length));
	json_object_object_add(o, "error", json_object_new_string(scan_error_name(e)));
	return o;
}

/* What the method was on one device, and why it was (or was not) trusted there. */
static void json_device_method(json_object *d, const struct pass_report *rep,
			       const struct vfy_dev *vd, unsigned i)
{
	const struct scan_result *r = rep->r;
	int voided = r->voided && r->void_dev == i;

	json_object_object_add(d, "method", json_object_new_string(rep->method));
	json_object_object_add(d, "failed_ios", json_object_new_int((int)r->failed_ios[i]));
	json_object_object_add(d, "libata", json_object_new_boolean(vd->libata));
	if (vd->model[0])
		json_object_object_add(d, "model", json_object_new_string(vd->model));
	if (vd->driver[0])
		json_object_object_add(d, "driver", json_object_new_string(vd->driver));
	if (vd->emulated[0])
		json_object_object_add(d, "emulated_by", json_object_new_string(vd->emulated));
	if (vd->trust.state != VFY_TRUST_NONE) {
		json_object *tr = json_object_new_object();

		json_object_object_add(tr, "state", json_object_new_string(
			vfy_trust_name(vd->trust.state)));
		json_object_object_add(tr, "reason", json_object_new_string(vd->trust.why));
		json_object_object_add(tr, "bytes", json_object_new_uint64(vd->trust.t.bytes));
		json_object_object_add(tr, "verify_s", json_object_new_double(
			(double)vd->trust.t.verify_ns / 1e9));
		json_object_object_add(tr, "read_s", json_object_new_double(
			(double)vd->trust.t.read_ns / 1e9));
		json_object_object_add(d, "trust", tr);
		json_object_object_add(d, "method_reason", json_object_new_string(vd->trust.why));
	} else {
		json_object_object_add(d, "method_reason", json_object_new_string(
			r->method_note[0] ? r->method_note : "the data is read"));
	}
	if (voided) {
		json_object *v = json_object_new_object();

		json_object_object_add(v, "offset", json_object_new_uint64(r->void_offset));
		json_object_object_add(v, "length", json_object_new_uint64(r->void_length));
		json_object_object_add(v, "error", json_object_new_string(
			strerrorname_np(-r->void_err) ? strerrorname_np(-r->void_err) : "EIO"));
		json_object_object_add(d, "method_voided", v);
	}
}

static json_object *json_report(const struct pass_report *rep)
{
	const struct map_target *t = rep->t;
	const struct scan_result *r = rep->r;
	json_object *root = json_object_new_object();
	json_object *devs = json_object_new_array(), *errs = json_object_new_array();
	json_object *gaps = json_object_new_array(), *ops = json_object_new_array();
	json_object *transient = json_object_new_array(), *slow = json_object_new_array();
	json_object *faults = json_object_new_array();

	json_object_object_add(root, "schema", json_object_new_string("mediascan-report/1"));
	json_object_object_add(root, "version", json_object_new_string(MEDIASCAN_VERSION));
	json_object_object_add(root, "target", json_object_new_string(
		t->mount_point[0] ? t->mount_point : t->arg));
	json_object_object_add(root, "fs_type", json_object_new_string(t->fs_type));
	if (t->uuid[0])
		json_object_object_add(root, "fs_uuid", json_object_new_string(t->uuid));
	json_object_object_add(root, "method", json_object_new_string(rep->method));
	if (r->method_note[0])
		json_object_object_add(root, "method_reason",
				       json_object_new_string(r->method_note));
	json_object_object_add(root, "engine", json_object_new_string(r->engine));
	if (r->engine_note[0])
		json_object_object_add(root, "engine_refused",
				       json_object_new_string(r->engine_note));
	json_object_object_add(root, "io_size", json_object_new_int64(r->io_size));
	if (r->io_buffer)
		json_object_object_add(root, "io_buffer", json_object_new_string(r->io_buffer));
	for (unsigned i = 0; i < t->nr_devices; i++) {
		json_object *d = json_object_new_object();

		json_object_object_add(d, "path", json_object_new_string(t->devices[i].path));
		json_object_object_add(d, "role", json_object_new_string(
			map_role_name(t->devices[i].role)));
		json_object_object_add(d, "logical_block_size",
				       json_object_new_int((int)t->devices[i].info.logical_block_size));
		json_object_object_add(d, "size",
				       json_object_new_uint64(t->devices[i].info.size_bytes));
		if (rep->cm && i < rep->cm->nr)
			json_device_method(d, rep, &rep->cm->devs[i], i);
		json_object_array_add(devs, d);
	}
	json_object_object_add(root, "devices", devs);
	report_target_json(root, t);			/* partition_table, partitions */
	json_object_object_add(root, "planned_bytes", json_object_new_uint64(r->planned_bytes));
	json_object_object_add(root, "scanned_bytes", json_object_new_uint64(r->scanned_bytes));
	json_object_object_add(root, "read_bytes", json_object_new_uint64(r->read_bytes));
	json_object_object_add(root, "isolation_reads",
			       json_object_new_uint64(r->isolation_reads));
	json_object_object_add(root, "sampled_bytes", json_object_new_uint64(r->sampled_bytes));
	json_object_object_add(root, "method_untrusted", json_object_new_boolean(r->voided ||
		(rep->cm && pass_method_untrusted(rep->cm))));
	json_object_object_add(root, "max_inflight", json_object_new_uint64(r->max_inflight));
	json_object_object_add(root, "elapsed_s", json_object_new_double(r->elapsed_s));
	json_object_object_add(root, "complete", json_object_new_boolean(r->complete));
	json_object_object_add(root, "resumed", json_object_new_boolean(rep->resumed));
	if (r->stopped)
		json_object_object_add(root, "stopped", json_object_new_string(
			r->stopped == 2 ? "max-duration" : "signal"));
	json_object_object_add(root, "timeouts", json_object_new_int((int)r->nr_timeouts));
	json_object_object_add(root, "backoffs", json_object_new_int((int)r->nr_backoffs));
	json_object_object_add(root, "backoff_s", json_object_new_double(r->backoff_s));
	if (r->pacing) {
		json_object *pc = json_object_new_object();

		json_object_object_add(pc, "mode", json_object_new_string(r->pacing));
		json_object_object_add(pc, "probes", json_object_new_int((int)r->nr_probes));
		json_object_object_add(pc, "probe_s", json_object_new_double(r->probe_s));
		json_object_object_add(pc, "fg_alone_ms", json_object_new_double(r->fg_base_ms));
		json_object_object_add(pc, "fg_with_scan_ms",
				       json_object_new_double(r->fg_lat_ms));
		json_object_object_add(pc, "projected_end_s",
				       json_object_new_double(r->projected_end_s));
		json_object_object_add(pc, "window_late", json_object_new_boolean(r->window_late));
		json_object_object_add(pc, "window_late_since_s",
				       json_object_new_double(r->window_late_first_s));
		json_object_object_add(root, "pacing", pc);
	}
	for (size_t i = 0; i < r->nr_errors; i++) {
		const struct scan_error *e = &r->errors[i];

		switch (scan_error_verdict(e)) {
		case SCAN_V_OPERATIONAL:
			json_object_array_add(ops, json_plain_error(t, e));
			break;
		case SCAN_V_GAP:
			json_object_array_add(gaps, json_plain_error(t, e));
			break;
		case SCAN_V_TRANSIENT:
			json_object_array_add(transient, json_plain_error(t, e));
			break;
		case SCAN_V_SLOW:
			json_object_array_add(slow, json_error(rep, i));
			break;
		case SCAN_V_DEVICE:
			json_object_array_add(faults, json_error(rep, i));
			break;
		case SCAN_V_DAMAGE:
			json_object_array_add(errs, json_error(rep, i));
			break;
		}
	}
	json_object_object_add(root, "media_errors", errs);
	report_stack_report_json(root, rep);		/* report/map_stack.c */
	report_compare_json(root, rep);			/* report/map_compare.c */
	report_damage_json(root, &rep->dmg, t);		/* damaged_files, damaged_metadata */
	json_object_object_add(root, "bridged_gap_errors", gaps);
	json_object_object_add(root, "transient_errors", transient);
	json_object_object_add(root, "slow_errors", slow);
	json_object_object_add(root, "device_faults", faults);
	if (r->failing)
		json_object_object_add(root, "disk_failing", json_object_new_string(r->failing_msg));
	json_object_object_add(root, "operational_errors", ops);
	json_object_object_add(root, "unreadable_directories",
			       json_object_new_int((int)rep->dmg.unreadable_dirs));
	report_mapping_json(root, &rep->dmg);		/* scrub, fs_health, notes */
	if (r->fatal_msg[0])
		json_object_object_add(root, "failure", json_object_new_string(r->fatal_msg));
	json_object_object_add(root, "exit_status", json_object_new_int((int)rep->exit_bits));
	return root;
}

int report_write_json(const struct pass_report *rep, const char *path)
{
	json_object *root = json_report(rep);
	/* 0600, never through a symlink or onto a device (report/files.c) */
	int ret = report_json_write(root, path);

	json_object_put(root);
	return ret;
}

/* Slow sectors and device faults: loud, with their owners, never "restore". */
static void print_at_risk(const struct pass_report *rep, FILE *f)
{
	const struct scan_result *r = rep->r;

	if (rep->nr_device_faults)
		fprintf(f, "\nDevice faults (%u): the disk or its path is failing (timeouts, "
			"transport or target errors, device gone). Nothing is known lost yet; "
			"these owners are at risk:\n", rep->nr_device_faults);
	for (size_t i = 0; i < r->nr_errors; i++) {
		const struct scan_error *e = &r->errors[i];

		if (scan_error_verdict(e) != SCAN_V_DEVICE)
			continue;
		fprintf(f, "  %s  offset %" PRIu64 "  length %" PRIu64 "  %s\n",
			rep->t->devices[e->dev_idx].path, e->offset, e->length,
			scan_error_name(e));
		for (size_t k = 0; k < rep->own_count[i]; k++)
			report_print_owner(f, &rep->risk, rep->t,
					&rep->risk.owners[rep->own_first[i] + k]);
	}
	if (rep->nr_slow_errors)
		fprintf(f, "\nSlow sectors (%u): they answered, but slower than --io-timeout "
			"(marginal media; nothing lost; watch this disk):\n", rep->nr_slow_errors);
	for (size_t i = 0; i < r->nr_errors; i++) {
		const struct scan_error *e = &r->errors[i];

		if (scan_error_verdict(e) != SCAN_V_SLOW)
			continue;
		fprintf(f, "  %s  offset %" PRIu64 "  length %" PRIu64 "  answered after %.1f s%s\n",
			rep->t->devices[e->dev_idx].path, e->offset, e->length,
			(double)e->latency_ns / 1e9,
			e->reproducible ? "" : " once (fast when read again alone)");
		for (size_t k = 0; k < rep->own_count[i]; k++)
			report_print_owner(f, &rep->risk, rep->t,
					&rep->risk.owners[rep->own_first[i] + k]);
	}
}

double report_rate(const struct pass_report *rep)
{
	const struct scan_result *r = rep->r;
	uint64_t done = r->scanned_bytes > rep->base_bytes ? r->scanned_bytes - rep->base_bytes : 0;

	/*
	 * Planned bytes checked per second in this run: a drive-side method moves no data
	 * (read_bytes is 0), and bytes read before a resume took no time here.
	 */
	return r->elapsed_s > 0 ? (double)done / r->elapsed_s : 0;
}

void report_print(const struct pass_report *rep, FILE *f)
{
	const struct scan_result *r = rep->r;
	const struct map_target *t = rep->t;
	char a[32], b[32], c[32];
	double rate = report_rate(rep);

	if (rep->nr_damage_errors) {
		fprintf(f, "\nMedia errors (%u):\n", rep->nr_damage_errors);
		for (size_t i = 0; i < r->nr_errors; i++) {
			const struct scan_error *e = &r->errors[i];

			if (!scan_is_damage(e))
				continue;
			fprintf(f, "  %s  offset %" PRIu64 "  length %" PRIu64 "  %s, read %u time%s\n",
				t->devices[e->dev_idx].path, e->offset, e->length,
				scan_error_name(e), e->reads, e->reads == 1 ? "" : "s");
			if (e->vfy_fail != VFY_FAIL_NONE)
				fprintf(f, "    device: %s, status 0x%x%s", vfy_fail_name(e->vfy_fail),
					e->dev_status, e->pi_expected || e->pi_found ? "" : "\n");
			if (e->vfy_fail != VFY_FAIL_NONE && (e->pi_expected || e->pi_found))
				fprintf(f, ", expected 0x%" PRIx64 ", found 0x%" PRIx64 "\n",
					e->pi_expected, e->pi_found);
			if (rep->stack && rep->stack->member_plan && rep->stack->nr_rl) {
				/* a member disk: what it holds is the stack's, named below */
				fprintf(f, "      on a member of the storage stack above /dev/%s: "
					"what it holds is named below\n", rep->stack->disk);
				continue;
			}
			for (size_t k = 0; k < rep->own_count[i]; k++)
				report_print_owner(f, &rep->dmg, t,
						&rep->dmg.owners[rep->own_first[i] + k]);
		}
	}
	report_print_damage(f, &rep->dmg, t);		/* report/map_report.c */
	report_stack_report_print(f, rep);			/* report/map_stack.c */
	report_compare_print(f, rep);				/* report/map_compare.c */
	if (rep->nr_slow_errors || rep->nr_device_faults)
		print_at_risk(rep, f);
	if (rep->nr_gap_errors)
		fprintf(f, "\n%u bad range(s) found in free space read only to bridge a gap "
			"(not damage; see bridged_gap_errors in --json).\n", rep->nr_gap_errors);
	if (rep->nr_transient_errors)
		fprintf(f, "\n%u read(s) failed once and read fine block by block when retried "
			"(often a merged request with a bad neighbour; not counted as damage; see "
			"transient_errors in --json). Watch this disk.\n", rep->nr_transient_errors);
	if (rep->nr_op_errors)
		fprintf(f, "\n%u read(s) failed with a non-media error; see operational_errors "
			"in --json.\n", rep->nr_op_errors);
	if (rep->dmg.unreadable_dirs)
		fprintf(f, "\nwarning: %u director%s could not be read while naming files; "
			"paths below them may be missing\n", rep->dmg.unreadable_dirs,
			rep->dmg.unreadable_dirs == 1 ? "y" : "ies");
	if (rep->dmg.paths_err)
		fprintf(f, "\nwarning: the directory walk stopped early: %s\n",
			strerror(-rep->dmg.paths_err));
	report_print_notes(f, &rep->dmg);
	if (r->failing)
		fprintf(f, "\nTHIS DISK IS FAILING: %s. The scan stopped to spare it: copy what "
			"you can (ddrescue) before scanning further.\n", r->failing_msg);
	if (r->stopped == 2)
		fprintf(f, "\nStopped after --max-duration; %s.\n", rep->no_checkpoint ?
			"no checkpoint was kept (--no-state, or no state store): a later scan starts over" :
			"continue with --resume");
	if (r->nr_backoffs && r->pacing && strcmp(r->pacing, "latency") == 0)
		fprintf(f, "\nSlowed %u time%s to keep other I/O on the disk within its latency "
			"target (%.1f s below the pace; other requests %.2f ms alone, %.2f ms with "
			"the scan at the end).\n", r->nr_backoffs, r->nr_backoffs == 1 ? "" : "s",
			r->backoff_s, r->fg_base_ms, r->fg_lat_ms);
	else if (r->nr_backoffs)
		fprintf(f, "\nBacked off %u time%s for other I/O on the disk (%.1f s at the floor "
			"rate).\n", r->nr_backoffs, r->nr_backoffs == 1 ? "" : "s", r->backoff_s);
	if (r->window_late)
		fprintf(f, "\nThe window could not be met: from %.0f s on, the disk's spare "
			"capacity at its load projected the end past the window's.\n",
			r->window_late_first_s);
	fprintf(f, "\n%s %s of %s planned on %s in %.1f s (%s/s, engine %s)%s\n",
		r->complete ? "Scanned" : "Scan INCOMPLETE:",
		report_fmt_bytes(r->scanned_bytes, a, sizeof(a)),
		report_fmt_bytes(r->planned_bytes, b, sizeof(b)),
		t->mount_point[0] ? t->mount_point : t->arg, r->elapsed_s,
		report_fmt_bytes((uint64_t)rate, c, sizeof(c)), r->engine,
		rep->nr_damage_errors ? "" : rep->stack && rep->stack->nr_rl ?
		": no data lost, but REDUNDANCY LOST (see above)" : ": no media errors");
	if (r->fatal_msg[0])
		fprintf(f, "error: %s\n", r->fatal_msg);
}

/* One error as in media_errors[], for the history and notifications. */
json_object *report_error_json(const struct pass_report *rep, size_t i)
{
	return json_error(rep, i);
}
