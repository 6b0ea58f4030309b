/*
 * cli/probe_cmd.c - `mediascan probe DEVICE|MOUNTPOINT [--json]`: what each device of the
 * target can do for verification (integrity/probe.c), the methods that work and the one
 * `--method auto` picks. Read-only: identify, READ CAPACITY, VPD, one-block Verify probes.
 */
#include <getopt.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <json-c/json.h>

#include "cli.h"
#include "map_stack.h"
#include "exits.h"
#include "files.h"
#include "opts.h"
#include "pass.h"
#include "probe_cmd.h"
#include "units.h"

static const char *const guard_names[] = { "crc16-t10dif", "crc32c", "crc64-nvme" };
static const char *const kind_names[] = { "other", "nvme", "scsi" };

static const struct vfy_ops *const all_methods[] = {
	&vfy_ata_read, &vfy_nvme_verify, &vfy_scsi_verify, &vfy_pi_read, &vfy_xfs_verify,
};

static json_object *dev_json(const struct map_device *md, struct vfy_dev *d)
{
	json_object *j = json_object_new_object(), *m = json_object_new_object();
	char why[256];

	json_object_object_add(j, "path", json_object_new_string(md->path));
	json_object_object_add(j, "role", json_object_new_string(map_role_name(md->role)));
	json_object_object_add(j, "disk", json_object_new_string(d->path));
	json_object_object_add(j, "kind", json_object_new_string(kind_names[d->kind]));
	json_object_object_add(j, "model", json_object_new_string(d->model));
	json_object_object_add(j, "vendor", json_object_new_string(d->vendor));
	json_object_object_add(j, "driver", json_object_new_string(d->driver));
	json_object_object_add(j, "emulated_by", json_object_new_string(
		d->emulated[0] ? d->emulated : "no (not a known emulated or virtual disk)"));
	if (d->ident[0])
		json_object_object_add(j, "identity", json_object_new_string(d->ident));
	if (d->trust.state != VFY_TRUST_NONE) {
		json_object_object_add(j, "verify_trust", json_object_new_string(
			vfy_trust_name(d->trust.state)));
		json_object_object_add(j, "verify_trust_reason",
				       json_object_new_string(d->trust.why));
	}
	json_object_object_add(j, "size", json_object_new_uint64(md->info.size_bytes));
	json_object_object_add(j, "partition_start", json_object_new_uint64(d->part_start_bytes));
	json_object_object_add(j, "logical_block_size",
			       json_object_new_int((int)md->info.logical_block_size));
	json_object_object_add(j, "physical_block_size",
			       json_object_new_int((int)md->info.physical_block_size));
	json_object_object_add(j, "rotational", json_object_new_int(md->info.rotational));
	json_object_object_add(j, "max_sectors_kb",
			       json_object_new_int((int)md->info.max_sectors_kb));
	json_object_object_add(j, "max_hw_sectors_kb",
			       json_object_new_int((int)md->info.max_hw_sectors_kb));
	json_object_object_add(j, "max_segments",
			       json_object_new_int((int)md->info.max_segments));
	json_object_object_add(j, "passthru_max_bytes", json_object_new_uint64(d->passthru_max_bytes));
	json_object_object_add(j, "integrity_format",
			       json_object_new_string(d->integrity_format));
	if (d->kind == VFY_DEV_NVME) {
		json_object_object_add(j, "nsid", json_object_new_int((int)d->nsid));
		json_object_object_add(j, "generic_char_device", json_object_new_string(d->cdev));
		json_object_object_add(j, "oncs_verify", json_object_new_boolean(d->oncs_verify));
		json_object_object_add(j, "verify_works", json_object_new_int(d->verify_works));
		json_object_object_add(j, "verify_size_limit", json_object_new_uint64(d->vsl_bytes));
		json_object_object_add(j, "mdts", json_object_new_uint64(d->mdts_bytes));
		json_object_object_add(j, "metadata_size", json_object_new_int((int)d->ms));
		json_object_object_add(j, "pi_type", json_object_new_int(d->pi_type));
		json_object_object_add(j, "pi_guard", json_object_new_string(guard_names[d->guard]));
		json_object_object_add(j, "io_uring_passthrough",
				       json_object_new_boolean(d->uring_cmd));
	} else if (d->kind == VFY_DEV_SCSI) {
		json_object_object_add(j, "prot_en", json_object_new_int(d->prot_en));
		json_object_object_add(j, "pi_type", json_object_new_int(d->p_type));
		json_object_object_add(j, "max_transfer_blocks",
				       json_object_new_uint64(d->max_xfer_blocks));
		json_object_object_add(j, "optimal_transfer_blocks",
				       json_object_new_uint64(d->opt_xfer_blocks));
		json_object_object_add(j, "verify16", json_object_new_int(d->verify16));
		json_object_object_add(j, "usb_bridge", json_object_new_boolean(d->usb_bridge));
	}
	json_object_object_add(m, "read", json_object_new_string("yes"));
	for (size_t i = 0; i < sizeof(all_methods) / sizeof(all_methods[0]); i++) {
		why[0] = '\0';
		json_object_object_add(m, all_methods[i]->name, json_object_new_string(
			all_methods[i]->probe(d, why, sizeof(why)) == 0 ? "yes" : why));
	}
	json_object_object_add(j, "methods", m);
	return j;
}

static void print_human(json_object *root)
{
	json_object *devs = json_object_object_get(root, "devices");

	for (size_t i = 0; i < json_object_array_length(devs); i++) {
		json_object *d = json_object_array_get_idx(devs, i);

		json_object_object_foreach(d, key, val) {
			if (strcmp(key, "methods") == 0) {
				printf("  methods:\n");
				json_object_object_foreach(val, mk, mv)
					printf("    %-12s %s\n", mk, json_object_get_string(mv));
				continue;
			}
			printf("%s%-24s %s\n", strcmp(key, "path") ? "  " : "", key,
			       json_object_get_string(val));
		}
	}
	printf("auto picks: %s (%s)\n",
	       json_object_get_string(json_object_object_get(root, "auto_method")),
	       json_object_get_string(json_object_object_get(root, "auto_reason")));
}

/* What the command line of `mediascan probe` asked. */
struct probe_args {
	const char *json;
};

static const struct cli_opt probe_opts[] = {
	CLI_OPT_JSON(offsetof(struct probe_args, json), "write the answer as JSON"),
};

const struct cli_opts cli_probe_opts = {
	.cmd = "probe",
	.opts = probe_opts,
	.nr = sizeof(probe_opts) / sizeof(probe_opts[0]),
	.synopsis = "usage: mediascan probe DEVICE|MOUNTPOINT [--json FILE|-]\n"
		    "  what each device of the target can verify itself (NVMe Verify, SCSI "
		    "VERIFY, PI),\n  what it says it is, and whether its verify proved that it "
		    "reads (the\n  first 64 MiB of the plan verified, then read)\n"
		    "options:\n",
};

int cli_probe_main(int argc, char **argv)
{
	struct map_target t;
	struct scan_opts so;
	struct pass_method cm;
	struct map_plan_opts po;
	json_object *root, *devs;
	struct map_stack_node *tree = NULL;
	char err[1024];
	int ret, err_class;
	const char *target = NULL, *json;
	struct probe_args pa = { 0 };

	ret = cli_opts_parse(&cli_probe_opts, argc, argv, &pa);
	if (ret)
		return ret == 1 ? 0 : ret;
	json = pa.json;
	if (optind < argc)
		target = argv[optind];
	if (optind + 1 < argc) {
		report_err("probe: unexpected argument '%s' (usage: mediascan probe "
			"DEVICE|MOUNTPOINT [--json FILE|-])", argv[optind + 1]);
		return REPORT_EXIT_USAGE;
	}
	if (!target) {
		report_err("probe: name a block device or a mount point");
		return REPORT_EXIT_USAGE;
	}
	ret = report_out_refuse("probe", "--json", json);
	if (ret)
		return ret;
	ret = map_target_open(target, &t, err, sizeof(err), &err_class);
	if (ret < 0) {
		report_err("%s", err);
		return err_class == MAP_TERR_USAGE ? REPORT_EXIT_USAGE : REPORT_EXIT_OPERATIONAL;
	}
	memset(&so, 0, sizeof(so));
	ret = pass_method_setup(NULL, &t, &so, &cm, err, sizeof(err));
	if (ret) {
		report_err("%s", err);
		map_target_close(&t);
		return REPORT_EXIT_OPERATIONAL;
	}
	/* the proof a scan makes: the plan's first 64 MiB verified, then read */
	memset(&po, 0, sizeof(po));
	po.merge_gap = (uint64_t)-1;
	ret = pass_method_prove(&cm, NULL, 0, NULL, &t, &po, &so, err, sizeof(err));
	if (ret < 0)
		report_err("probe: %s", err);
	root = json_object_new_object();
	devs = json_object_new_array();
	json_object_object_add(root, "target", json_object_new_string(target));
	json_object_object_add(root, "fs_type", json_object_new_string(t.fs_type));
	for (unsigned d = 0; d < cm.nr; d++)
		json_object_array_add(devs, dev_json(&t.devices[d], &cm.devs[d]));
	json_object_object_add(root, "devices", devs);
	json_object_object_add(root, "auto_method", json_object_new_string(cm.ops->name));
	json_object_object_add(root, "auto_reason", json_object_new_string(cm.why));
	if (t.nr_devices && map_stack_tree(NULL, t.devices[0].info.name, &tree) == 0) {
		json_object *st = report_stack_tree_json(tree);

		if (t.mount_point[0]) {
			json_object_object_add(st, "filesystem", json_object_new_string(t.fs_type));
			json_object_object_add(st, "mount_point",
					       json_object_new_string(t.mount_point));
		}
		json_object_object_add(root, "stack", st);
	}
	ret = 0;
	if (json) {
		ret = report_json_write(root, json);
		if (ret < 0)
			report_err("probe: cannot write %s: %s", json, report_create_error(ret));
	} else {
		print_human(root);
		if (tree && (tree->nr_below > 1 || (tree->nr_below == 1 &&
						    strcmp(tree->kind, "partition")))) {
			printf("stack%s%s%s:\n", t.mount_point[0] ? " (" : "",
			       t.mount_point[0] ? t.fs_type : "", t.mount_point[0] ? ")" : "");
			report_stack_tree_print(stdout, tree, 0);
		}
	}
	map_stack_tree_free(tree);
	json_object_put(root);
	pass_method_close(&cm);
	map_target_close(&t);
	return ret < 0 ? REPORT_EXIT_OPERATIONAL : 0;
}
