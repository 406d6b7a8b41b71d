// SPDX-License-Identifier: GPL-2.0-or-later
/* What modprobe -r's unloads leave rotting: said, and with --reclaim freed. */
#include <errno.h>

#include "cli-msg.h"
#include "cli-run.h"
#include "modprobe-remove.h"
#include "reclaim-report.h"
#include "sizewords.h"
#include "unload-words.h"

/* One reclaim of name (lib's rot_reclaim(), which counts it), said as rmmod
 * says it; unloaded: this run unloaded its live module since the snapshot. */
static void rm_reclaim_now(struct modprobe_run *r, const char *name, bool unloaded)
{
	struct rot_reclaim_result o = { .size = sizeof(o) };
	unsigned flags = (r->opts->force ? ROT_RECLAIM_FORCE : 0) |
			 (unloaded ? ROT_RECLAIM_UNLOADED : 0);
	int err = rot_reclaim(mp_snapshot(r), name, flags, &o);
	char msg[512];
	if (err < 0 && err != -EBUSY) {
		reclaim_error_words(msg, sizeof(msg), name, err);
		mp_fail(r, err, MP_ERROR, "%s", msg);
		return;
	}
	if (o.freed) {
		r->reclaimed_any = true;
		report_reclaimed(name, o.freed, o.bytes, 0, false);
		mp_rot_account(r, name, (size_t)0 - o.freed);
	}
	if (o.kept) {
		refused_message(msg, sizeof(msg), name, &o, "modprobe -r --reclaim -f",
				r->opts->force);
		cli_flush_stdout();
		mp_fail(r, -EBUSY, MP_ERROR, "%s", msg);
	}
}

static void rm_reclaim_after(struct modprobe_run *r, const char *name, uint64_t size)
{
	if (!r->opts->dry_run) {
		rm_reclaim_now(r, name, true);
		return;
	}
	/* the reclaim frees every instance of the name, those that rotted
	 * before too (this run's -n counts are in the tally) */
	uint64_t bytes, newest;
	size_t old = rot_snapshot_rotting_of(mp_snapshot(r), name, &bytes, &newest);
	size_t left = mp_rot_accounted(r, name);
	if (left < old) {
		old = left;
		bytes = newest * left;
	}
	report_reclaimed(name, old + 1, bytes + size, 0, true);
	mp_rot_account(r, name, (size_t)0 - old);
	r->reclaimed_any = true;
}

/*
 * -r --reclaim of a name that only rots (no live module): what already
 * rots is freed, as modprobe.8 says, rather than nothing done and nothing
 * said. Returns whether any instance rotted.
 */
bool rm_reclaim_rotting(struct modprobe_run *r, const char *name)
{
	size_t instances = mp_rot_accounted(r, name); /* what the run reclaimed is gone */
	if (!instances)
		return false;
	if (!r->opts->dry_run) {
		rm_reclaim_now(r, name, false);
		return true;
	}
	uint64_t bytes;
	rot_snapshot_rotting_of(mp_snapshot(r), name, &bytes, NULL);
	report_reclaimed(name, instances, bytes, 0, true);
	r->reclaimed_any = true;
	mp_rot_account(r, name, (size_t)0 - instances);
	return true;
}

/* After an unload (or, with -n, instead of it) on a rot kernel: what rots. */
void rm_report_rot(struct modprobe_run *r, const char *name)
{
	/* What the unload leaves rotting: its size in the snapshot (read
	 * first: the snapshot tells whether the kernel rots). */
	const struct rot_snapshot *snap = mp_snapshot(r);
	const struct rot_module *m = snap ? rot_snapshot_find_live(snap, name) : NULL;
	uint64_t size = m ? rot_module_size(m) : 0;
	if (!r->rot)
		return;
	r->rotted++;
	r->rotted_bytes += size;
	if (!r->opts->dry_run)
		mp_rot_account(r, name, 1);
	if (r->opts->reclaim) {
		rm_reclaim_after(r, name, size);
		return;
	}
	if (!r->talk)
		return;
	char words[SIZE_WORDS_MAX];
	size_words(size, "bytes", words);
	if (r->opts->dry_run)
		cli_notice("%s would rot: %s would stay allocated", name, words);
	else
		cli_notice("%s now rots: %s stay allocated; "
			   "'rmmod --reclaim %s' frees them and taints the kernel",
			   name, words, name);
}
