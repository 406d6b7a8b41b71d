// SPDX-License-Identifier: GPL-2.0-or-later
/* One module unloaded (its holders first with --remove-holders), and what
 * rots under its name reclaimed with --reclaim. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli-errors.h"
#include "cli-msg.h"
#include "cli-run.h"
#include "reasons.h"
#include "rmmod.h"
#include "sizewords.h"
#include "stopsignal.h"
#include "unload-words.h"

const struct rot_module *rmmod_find_present(const struct rmmod_run *r, const char *name)
{
	const struct rot_module *m = rot_snapshot_find_live(r->snap, name);
	return gone_marks_has(&r->gone, m) ? NULL : m;
}

/* True when every holder still present is one this run failed to unload:
 * the module stays in use only because of that earlier failure. */
static bool held_only_by_failures(const struct rmmod_run *r, const struct rot_module *m)
{
	bool any = false;
	for (size_t i = 0; i < rot_module_holder_count(m); i++) {
		const struct rot_module *h = rmmod_find_present(r, rot_module_holder(m, i));
		if (!h)
			continue;
		if (!r->failed[rot_snapshot_index_of(r->snap, h)])
			return false;
		any = true;
	}
	return any;
}

/* An unload refused: unload-words.c words it; a cascade when held only by failures. */
void rmmod_report_unload_error(struct rmmod_run *r, const char *name, const struct rot_module *m,
			       int err)
{
	const struct unload_scene scene = { r->snap, &r->gone };
	char msg[1024];
	const char *reason = unload_refusal(&scene, name, m, err, msg, sizeof(msg));
	bool cascade = err == -EWOULDBLOCK && m && held_only_by_failures(r, m);
	rmmod_failed(r, name, err, cascade, reason, "%s", msg);
}

/*
 * What each module holds of the per-CPU reserve, to say so when it rots.
 * Only words depend on it: a kernel without /proc/module_percpu, or one
 * that cannot be read, leaves r->percpu NULL (the latter with a warning).
 * An unload does not change what is free: the rotting instance keeps its
 * area, so the count read now stays true for the message.
 */
void rmmod_read_percpu(struct rmmod_run *r)
{
	int err = rot_percpu_read(&r->pc);
	if (err == -ENOENT)
		return;
	if (err < 0) {
		char why[256];
		cli_warn("could not read the per-CPU reserve: %s",
			 cli_read_error(err, why, sizeof(why)));
		r->pc = NULL;
		return;
	}
	r->percpu = calloc(rot_snapshot_count(r->snap) + 1, sizeof(*r->percpu));
	if (r->percpu)
		rot_percpu_per_module(r->pc, r->snap, r->percpu);
}

int rmmod_unload_one(struct rmmod_run *r, const char *name)
{
	const struct rot_module *m = rmmod_find_present(r, name);
	/* what the snapshot already tells costs no syscall */
	int err = rot_module_unload_check(r->snap, m, r->gone.marks, r->opts->unload_flags);

	if (err == 0)
		err = rot_unload(name, r->opts->unload_flags);
	if (err < 0) {
		rmmod_report_unload_error(r, name, m, err);
		if (m)
			r->failed[rot_snapshot_index_of(r->snap, m)] = true;
		return err;
	}
	gone_marks_set(&r->gone, m);
	rmmod_note(r, name, "unloaded", 0, REASON_NONE, 0, m ? rot_module_size(m) : 0, NULL);
	if (r->opts->json)
		return 0;
	uint64_t percpu = m && r->percpu ? r->percpu[rot_snapshot_index_of(r->snap, m)] : 0;
	char size[SIZE_WORDS_MAX], pcpu[SIZE_WORDS_MAX], f[SIZE_WORDS_MAX], all[SIZE_WORDS_MAX];
	size_words(m ? rot_module_size(m) : 0, "bytes", size);
	if (!rot_snapshot_has_rot(r->snap) || !r->talk || r->opts->reclaim)
		cli_info("%s unloaded", name);
	else if (percpu)
		cli_notice("%s now rots: %s stay allocated, and %s of the per-CPU module reserve "
			   "(%s of %s free); 'rmmod --reclaim %s' frees them and taints the kernel",
			   name, size, size_words(percpu, "bytes", pcpu),
			   size_words(rot_percpu_free_bytes(r->pc), "", f),
			   size_words(rot_percpu_reserve(r->pc), "", all), name);
	else
		cli_notice("%s now rots: %s stay allocated; "
			   "'rmmod --reclaim %s' frees them and taints the kernel",
			   name, size, name);
	return 0;
}

/* Holders first, deepest first, each once: a post-order walk of the holder graph. */
int rmmod_unload_holders(struct rmmod_run *r, const struct rot_module *m, unsigned depth)
{
	if (depth > 4096)
		return -ELOOP;
	for (size_t i = 0; i < rot_module_holder_count(m); i++) {
		const struct rot_module *h = rmmod_find_present(r, rot_module_holder(m, i));
		if (stop_signal())
			return -EINTR;
		if (!h)
			continue;
		int err = rmmod_unload_holders(r, h, depth + 1);
		if (err == 0 && rmmod_find_present(r, rot_module_name(h)))
			err = rmmod_unload_one(r, rot_module_name(h));
		if (err < 0)
			return err;
	}
	return 0;
}

/* Frees what rots under name (lib counts it: unloaded says this run
 * unloaded its live module since the snapshot). */
void rmmod_reclaim_rot(struct rmmod_run *r, const char *name, bool unloaded, bool was_live)
{
	struct rot_reclaim_result o = { .size = sizeof(o) };
	bool forced = r->opts->unload_flags & ROT_UNLOAD_FORCE;
	unsigned flags = (forced ? ROT_RECLAIM_FORCE : 0) | (unloaded ? ROT_RECLAIM_UNLOADED : 0);
	int err = rot_reclaim(r->snap, name, flags, &o);
	if (err < 0 && err != -EBUSY) {
		char refusal[1024];
		const char *reason = reclaim_refusal(name, err, was_live, refusal, sizeof(refusal));
		rmmod_failed(r, name, err, false, reason, "%s", refusal);
		return;
	}
	char msg[512];
	if (o.recount_err < 0) {
		count_error_message(msg, sizeof(msg), name, o.recount_err);
		cli_flush_stdout();
		rmmod_failed(r, name, o.recount_err, false,
			     reason_for_errno(REASON_READ, o.recount_err), "%s", msg);
	}
	if (o.freed) {
		r->reclaimed++;
		rmmod_note(r, name, "reclaimed", 0, REASON_NONE, o.freed, o.bytes, NULL);
		if (!r->opts->json)
			report_reclaimed(name, o.freed, o.bytes, 0, false);
	}
	if (o.kept) {
		/* The user asked for all of them: what stays is a failure. */
		refused_message(msg, sizeof(msg), name, &o, "rmmod --reclaim -f", forced);
		cli_flush_stdout();
		rmmod_failed(r, name, -EBUSY, false, REASON_KEPT_IN_USE, "%s", msg);
		if (r->opts->json && r->nrecords && !strcmp(r->records[r->nrecords - 1].name, name)) {
			struct rmmod_record *rec = &r->records[r->nrecords - 1];
			rec->has_kept = true;
			rec->kept = o;
		}
	}
}

void rmmod_reclaim_one(struct rmmod_run *r, const char *name)
{
	const struct rot_module *live = rmmod_find_present(r, name);
	bool rots = rot_snapshot_rotting_of(r->snap, name, NULL, NULL) > 0;

	/* A live module that will not unload (holders, say) is reported, and
	 * what already rots under its name is still reclaimed. */
	bool unloaded = live && rmmod_unload_one(r, name) == 0;
	if (live && !unloaded && !rots)
		return;
	rmmod_reclaim_rot(r, name, unloaded, live != NULL);
}
