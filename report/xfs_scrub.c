/*
 * report/xfs_scrub.c - the damage of a pass as `xfs_scrub -x` prints it (`scan --format
 * xfs_scrub`): "Unfixable Error: PATH: media error at data offset N length M." per file range,
 * "Corruption: disk offset N: media error in TYPE." per metadata owner, names escaped.
 */
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>

#include "escape.h"
#include "report.h"

void report_print_xfs_scrub(const struct pass_report *rep, FILE *f)
{
	const struct scan_result *r = rep->r;
	const char *where = rep->t->mount_point[0] ? rep->t->mount_point : rep->t->arg;
	/* Names are hostile: escaped, so no name forges a line or carries terminal escapes. */
	char esc[PATH_MAX * 4], wesc[PATH_MAX * 4], desc[PATH_MAX * 4];
	unsigned nr = 0;

	where = report_escape(where, wesc, sizeof(wesc));

	for (size_t i = 0; i < r->nr_errors; i++) {
		const struct scan_error *e = &r->errors[i];
		const char *dev =
		    report_escape(rep->t->devices[e->dev_idx].path, desc, sizeof(desc));

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
						report_escape(p->paths[n], esc, sizeof(esc)),
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
