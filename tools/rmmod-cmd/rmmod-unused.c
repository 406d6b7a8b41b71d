// SPDX-License-Identifier: GPL-2.0-or-later
/* --unused: every live module nothing uses, holders before what they hold. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli-escape.h"
#include "cli-msg.h"
#include "reasons.h"
#include "rmmod.h"
#include "sizewords.h"
#include "stopsignal.h"
#include "unload-words.h"

/*
 * --unused: the live modules lib's in-use rule (holders, bound devices,
 * mounts of its file system types and, on a stock kernel, foreign
 * references) finds unused, holders of them included (rot_snapshot_unused()).
 * *out is the caller's to free, also on failure.
 */
static int unused_set(struct rmmod_run *r, bool **out)
{
	const struct rot_snapshot *snap = r->snap;
	size_t n = rot_snapshot_live_count(snap), at = 0;
	bool *in = calloc(n + 1, sizeof(*in));
	int *unknown = calloc(n + 1, sizeof(*unknown));
	struct rot_usage_ctx *ctx = NULL;
	char what[4096] = "", why[1024];
	int err = in && unknown ? rot_usage_ctx_read(snap, NULL, &ctx, what, sizeof(what)) : -ENOMEM;
	/* what could not be read: an input, or else the devices of a module */
	const char *input = what, *module = NULL;

	if (err >= 0) {
		unsigned flags = r->opts->unload_flags & ROT_UNLOAD_FORCE ? ROT_UNUSED_PERMANENT : 0;
		err = rot_snapshot_unused(ctx, snap, flags, in, unknown, &at);
		input = err < 0 ? rot_usage_ctx_failed_input(ctx) : NULL;
		if (err < 0 && !input)
			module = rot_module_name(rot_snapshot_module(snap, at));
	}
	/* A rule that cannot be evaluated unloads nothing (fails closed). */
	if (err == -ENOMEM)
		rmmod_failed(r, "", err, false, reason_for_errno(REASON_READ, err), "out of memory");
	else if (err < 0)
		rmmod_failed(r, module ? module : "", err, false, reason_for_errno(REASON_READ, err),
			     "%s", unused_unknown_words(why, sizeof(why), input, module, err));
	/* A module whose own devices cannot be counted is kept, and said (with
	 * -J, as a "kept" record); the others are judged without it (lib fails
	 * closed for it alone). */
	for (size_t i = 0; err >= 0 && i < n; i++)
		if (unknown[i] < 0) {
			const char *name = rot_module_name(rot_snapshot_module(snap, i));
			char safe[4 * ROT_NAME_MAX + 8], msg[1024];
			const char *shown = cli_safe(name, safe, sizeof(safe));
			snprintf(msg, sizeof(msg),
				 "kept '%s': cannot tell whether it is in use: could not read "
				 "/sys/module/%s/drivers: %s",
				 shown, shown, strerror(-unknown[i]));
			if (!r->opts->json)
				cli_warn("%s", msg);
			else
				rmmod_note_said(r, name, "kept", unknown[i],
						reason_for_errno(REASON_READ, unknown[i]), msg);
		}
	rot_usage_ctx_free(ctx);
	free(unknown);
	*out = in;
	return err < 0 ? err : 0;
}

/* Holders before what they hold, each once: a post-order walk. */
static void order_unused(const struct rot_snapshot *snap, const bool *in, bool *seen, size_t i,
			 size_t *order, size_t *n, unsigned depth)
{
	if (seen[i] || depth > 4096)
		return;
	seen[i] = true;
	const struct rot_module *m = rot_snapshot_module(snap, i);
	for (size_t h = 0; h < rot_module_holder_count(m); h++) {
		const struct rot_module *holder =
			rot_snapshot_find_live(snap, rot_module_holder(m, h));
		if (holder && in[rot_snapshot_index_of(snap, holder)])
			order_unused(snap, in, seen, rot_snapshot_index_of(snap, holder), order, n,
				     depth + 1);
	}
	order[(*n)++] = i;
}

void rmmod_unload_unused(struct rmmod_run *r)
{
	const struct rot_snapshot *snap = r->snap;
	size_t live = rot_snapshot_live_count(snap), n = 0, unloaded = 0;
	uint64_t bytes = 0;
	bool *in = NULL;
	int err = unused_set(r, &in);
	bool *seen = calloc(live + 1, sizeof(*seen));
	size_t *order = calloc(live + 1, sizeof(*order));

	if (err < 0)
		goto out;
	if (!seen || !order) {
		rmmod_failed(r, "", -ENOMEM, false, reason_for_errno(REASON_READ, -ENOMEM),
			     "out of memory");
		goto out;
	}
	for (size_t i = 0; i < live; i++)
		if (in[i])
			order_unused(snap, in, seen, i, order, &n, 0);
	for (size_t k = 0; k < n && !stop_signal(); k++) {
		const struct rot_module *m = rot_snapshot_module(snap, order[k]);
		const char *name = rot_module_name(m);
		if (r->opts->dry_run) {
			/* the kernel's answer as unload_one would get it, told
			 * from the snapshot */
			int refused = rot_module_unload_predict(snap, m, r->gone.marks,
								r->opts->unload_flags);
			if (refused < 0) {
				rmmod_report_unload_error(r, name, m, refused);
				r->failed[rot_snapshot_index_of(snap, m)] = true;
				continue;
			}
			gone_marks_set(&r->gone, m);
			rmmod_note(r, name, "would unload", 0, REASON_NONE, 0, rot_module_size(m),
				   NULL);
			if (!r->opts->json) {
				char safe[4 * ROT_NAME_MAX + 8];
				printf("%s\n", cli_safe(name, safe, sizeof(safe)));
			}
		} else if (rmmod_unload_one(r, name) < 0) {
			continue;
		} else if (r->opts->reclaim) {
			rmmod_reclaim_rot(r, name, true, true);
		}
		unloaded++;
		bytes += rot_module_size(m);
	}
	bool rot = rot_snapshot_has_rot(snap) && !r->opts->reclaim;
	if (r->opts->json)
		goto out;
	printf(r->opts->dry_run ? "%zu unused %s would be unloaded%s" : "unloaded %zu unused %s%s",
	       unloaded, unloaded == 1 ? "module" : "modules", rot ? "; " : "\n");
	char size[SIZE_WORDS_MAX];
	if (rot)
		printf("%s %s\n", size_words(bytes, "bytes", size),
		       r->opts->dry_run ? "would rot" : "now rot");
out:
	free(in);
	free(seen);
	free(order);
}
