// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * modreap's pass (modreap.c's top comment says what it does), and --watch,
 * which remembers the names the kernel refused so that it does not ask
 * again until they change.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli-errors.h"
#include "cli-exit.h"
#include "cli-msg.h"
#include "cli-run.h"
#include "modreap.h"
#include "reclaim-lock.h"
#include "stopsignal.h"
#include "unload-words.h"

/* -ENOMEM: the totals count it, the per-name report cannot list it. */
static int remember(struct reap_run *r, const struct rot_group *g, uint64_t percpu)
{
	r->instances += g->instances;
	r->bytes += g->bytes;
	r->percpu += percpu;
	struct reaped *e = NULL;
	for (size_t i = 0; i < r->nreaped && !e; i++)
		if (strcmp(r->reaped[i].name, g->name) == 0)
			e = &r->reaped[i];
	if (!e) {
		struct reaped *grown = realloc(r->reaped, (r->nreaped + 1) * sizeof(*grown));
		if (!grown)
			return -ENOMEM;
		r->reaped = grown;
		e = &r->reaped[r->nreaped++];
		*e = (struct reaped){ 0 };
		snprintf(e->name, sizeof(e->name), "%s", g->name);
	}
	e->instances += g->instances;
	e->bytes += g->bytes;
	e->percpu += percpu;
	e->pass_instances += g->instances;
	e->pass_bytes += g->bytes;
	e->pass_percpu += percpu;
	return 0;
}

static struct refusal *find_refusal(const struct reap_run *r, const char *name)
{
	for (size_t i = 0; i < r->nrefusals; i++)
		if (strcmp(r->refusals[i].name, name) == 0)
			return &r->refusals[i];
	return NULL;
}

/* --watch: the kernel refused this group, it has not changed since, and its
 * turn to be asked again has not come. */
static bool refused_before(const struct reap_run *r, const struct rot_group *g)
{
	const struct refusal *f = find_refusal(r, g->name);
	return f && f->instances == g->instances && f->wait > 0;
}

/* --watch, before each pass: every refused name is a pass nearer its turn. */
static void refusals_tick(struct reap_run *r)
{
	for (size_t i = 0; i < r->nrefusals; i++)
		if (r->refusals[i].wait > 0)
			r->refusals[i].wait--;
}

static void note_refusal(struct reap_run *r, const char *name, size_t instances)
{
	struct refusal *f = find_refusal(r, name);
	if (!f) {
		struct refusal *grown = realloc(r->refusals, (r->nrefusals + 1) * sizeof(*grown));
		if (!grown)
			return; /* it is only asked again next pass */
		r->refusals = grown;
		f = &r->refusals[r->nrefusals++];
		*f = (struct refusal){ .instances = instances };
		snprintf(f->name, sizeof(f->name), "%s", name);
	}
	if (f->instances != instances)
		f->backoff = 0;
	f->instances = instances;
	/* The first refusal waits one pass, each one after it twice as many,
	 * up to the most: refusals_tick runs before the pass that asks. */
	f->backoff = f->backoff ? f->backoff * 2 : 2;
	if (f->backoff > REFUSAL_BACKOFF_MAX)
		f->backoff = REFUSAL_BACKOFF_MAX;
	f->wait = f->backoff;
}

/* -J: what kept name's instances, the latest reply per name */
static void note_kept(struct reap_run *r, const char *name, const struct rot_reclaim_result *out)
{
	struct kept_name *k = NULL;
	for (size_t i = 0; i < r->nkept && !k; i++)
		if (!strcmp(r->kept[i].name, name))
			k = &r->kept[i];
	if (!k) {
		struct kept_name *grown = realloc(r->kept, (r->nkept + 1) * sizeof(*grown));
		if (!grown)
			return; /* the summary's refused count still says it */
		r->kept = grown;
		k = &r->kept[r->nkept++];
		snprintf(k->name, sizeof(k->name), "%s", name);
	}
	k->reply = *out;
}

/*
 * Which groups this pass reclaims, in order; NULL entries are names with no
 * rot. --down-to takes the largest names until the rest fits, passing over
 * names --watch already saw refused (asking again would only be refused
 * again); reclaim_chosen takes more if the kernel refuses some.
 */
static size_t choose(const struct reap_run *r, const struct rot_group *g, size_t n,
		     const struct rot_group **chosen, uint64_t total)
{
	const struct reap_opts *o = r->opts;
	size_t k = 0;

	if (o->nnames) {
		for (size_t i = 0; i < o->nnames; i++)
			chosen[k++] = find_group(g, n, o->names[i]);
		return k;
	}
	for (size_t i = 0; i < n; i++) {
		if (o->has_down_to && total <= o->down_to)
			break;
		if (refused_before(r, &g[i]) || r->taken[i])
			continue;
		chosen[k++] = &g[i];
		total -= g[i].bytes;
	}
	return k;
}

/* --down-to, after refusals: the next largest groups not yet tried. */
static size_t choose_more(const struct reap_run *r, const struct rot_group *g, size_t n,
			  const struct rot_group **chosen, size_t k)
{
	size_t from = k ? (size_t)(chosen[k - 1] - g) + 1 : 0;
	for (size_t i = from; i < n; i++) {
		if (refused_before(r, &g[i]) || r->taken[i])
			continue;
		chosen[k++] = &g[i];
		break;
	}
	return k;
}

/*
 * What asking for one name did.  DEFERRED: the instances kept were kept
 * only by rotting users (rot-abi.md P7), which the same pass may still
 * reclaim; what was freed is counted, what was kept not said yet.
 */
enum reap_asked { REAP_FREED, REAP_NONE, REAP_DEFERRED, REAP_DEFERRED_FREED };

static enum reap_asked reclaim_group(struct reap_run *r, const struct rot_snapshot *snap,
				     const struct rot_group *groups, size_t i, struct progress *bar,
				     bool may_defer)
{
	const struct rot_group *g = &groups[i];
	const struct reap_opts *o = r->opts;
	struct rot_reclaim_result out = { .size = sizeof(out),
					  .freed = (unsigned)g->instances,
					  .bytes = g->bytes };
	int err = 0;

	if (!o->dry_run)
		err = rot_reclaim(snap, g->name, o->force ? ROT_RECLAIM_FORCE : 0, &out);
	char msg[512];
	if (err < 0 && err != -EBUSY) {
		reclaim_error_words(msg, sizeof(msg), g->name, err);
		cli_error("%s", msg);
		cli_outcome_failed(&r->outcome, err);
		return REAP_NONE;
	}
	bool defer = may_defer && !o->dry_run && out.kept && out.why == ROT_KEPT_USER;
	if (out.recount_err < 0) {
		progress_clear(bar);
		count_error_message(msg, sizeof(msg), g->name, out.recount_err);
		cli_error("%s", msg);
		cli_outcome_failed(&r->outcome, out.recount_err);
	}
	if (out.freed) {
		struct rot_group freed = { g->name, out.freed, out.bytes };
		uint64_t percpu = percpu_freed(r, g->name, r->held[i], &out);
		if (o->dry_run)
			r->gave += r->gives[i];
		if (remember(r, &freed, percpu) < 0) {
			cli_error("reclaimed module %s, but out of memory to report it", g->name);
			cli_outcome_failed(&r->outcome, -ENOMEM);
		}
		r->rot_left = r->rot_left > out.bytes ? r->rot_left - out.bytes : 0;
		if (!o->quiet && !o->json) {
			progress_clear(bar);
			report_reclaimed(g->name, out.freed, out.bytes, percpu, o->dry_run);
			/* The bar is on stderr: the line must be out before it is redrawn. */
			cli_flush_stdout();
		}
	}
	if (defer)
		return out.freed ? REAP_DEFERRED_FREED : REAP_DEFERRED;
	if (!out.kept && o->watch) {
		struct refusal *f = find_refusal(r, g->name);
		if (f)
			*f = r->refusals[--r->nrefusals];
		/* -J: a name reclaimed after all is no longer one the run kept. */
		for (size_t k = 0; k < r->nkept; k++)
			if (!strcmp(r->kept[k].name, g->name)) {
				r->kept[k] = r->kept[--r->nkept];
				break;
			}
	}
	if (out.kept) {
		progress_clear(bar);
		refused_message(msg, sizeof(msg), g->name, &out, "modreap --force", o->force);
		cli_error("%s", msg);
		if (o->json)
			note_kept(r, g->name, &out);
		cli_outcome_failed(&r->outcome, -EBUSY);
		if (o->watch)
			note_refusal(r, g->name, out.kept);
		else
			r->refused += out.kept;
	}
	return out.freed ? REAP_FREED : REAP_NONE;
}

/*
 * Names kept only by rotting users are asked again after the others, in
 * rounds while a round frees something, since reclaiming a user frees
 * what it used; the last round says what stays.
 */
static void reclaim_deferred(struct reap_run *r, const struct rot_snapshot *snap,
			     const struct rot_group *groups, size_t *deferred, size_t n,
			     struct progress *bar)
{
	const struct reap_opts *o = r->opts;
	bool progress = true;

	/* A target already met needs none of them, and says nothing of them. */
	while (n && progress && !stop_signal() && !(o->has_down_to && r->rot_left <= o->down_to)) {
		size_t left = 0;

		progress = false;
		for (size_t j = 0; j < n; j++) {
			enum reap_asked a = reclaim_group(r, snap, groups, deferred[j], bar, true);

			if (a == REAP_DEFERRED || a == REAP_DEFERRED_FREED)
				deferred[left++] = deferred[j];
			if (a == REAP_FREED || a == REAP_DEFERRED_FREED)
				progress = true;
		}
		n = left;
	}
	if (o->has_down_to && r->rot_left <= o->down_to)
		return;
	for (size_t j = 0; j < n && !stop_signal(); j++)
		reclaim_group(r, snap, groups, deferred[j], bar, false);
}

static void reclaim_chosen(struct reap_run *r, const struct rot_snapshot *snap,
			   const struct rot_group *groups, size_t ngroups,
			   const struct rot_group **chosen, size_t k)
{
	const struct reap_opts *o = r->opts;
	size_t *deferred = calloc(ngroups + 1, sizeof(*deferred));
	size_t ndeferred = 0;
	struct progress bar;

	progress_start(&bar, o->dry_run ? "checking" : "reclaiming", o->quiet ? 0 : k);
	for (size_t i = 0; i < k && !stop_signal(); i++) {
		const struct rot_group *g = chosen[i];
		progress_step(&bar);
		if (!g) {
			char msg[512];
			no_rotting_words(msg, sizeof(msg), o->names[i], false);
			cli_error("%s", msg);
			cli_outcome_failed(&r->outcome, -ENOENT);
			continue;
		}
		r->taken[g - groups] = true;
		/* Without memory to remember it, a name is answered at once. */
		enum reap_asked a = reclaim_group(r, snap, groups, (size_t)(g - groups), &bar,
						  deferred != NULL);
		if (a == REAP_DEFERRED || a == REAP_DEFERRED_FREED)
			deferred[ndeferred++] = (size_t)(g - groups);
		/* Refused names leave the target unmet: try the next largest. */
		if (i + 1 == k && o->has_down_to && r->rot_left > o->down_to) {
			size_t more = choose_more(r, groups, ngroups, chosen, k);
			bar.total += more - k;
			k = more;
		}
	}
	if (deferred)
		reclaim_deferred(r, snap, groups, deferred, ndeferred, &bar);
	free(deferred);
	progress_end(&bar);
}

/*
 * --percpu and --percpu-floor: rounds of the per-CPU strategy's choice
 * (modreap-percpu.c decides, this reclaims), until it says size fits,
 * no name left helps, or (all) every name holding some was asked.
 */
static void reclaim_for_reserve(struct reap_run *r, const struct rot_snapshot *snap,
				const struct rot_group *groups, size_t n, uint64_t size, bool all)
{
	const struct reap_opts *o = r->opts;
	size_t *pick = calloc(n + 1, sizeof(*pick));
	uint64_t *candidates = calloc(n + 1, sizeof(*candidates));
	struct progress bar;

	if (!pick || !candidates) {
		cli_error("out of memory");
		cli_outcome_failed(&r->outcome, -ENOMEM);
		goto out;
	}
	progress_start(&bar, o->dry_run ? "checking" : "reclaiming", 0);
	for (;;) {
		/* Not asked again: what this pass tried, what --watch saw refused. */
		for (size_t i = 0; i < n; i++)
			candidates[i] = r->taken[i] || refused_before(r, &groups[i]) ? 0
										     : r->gives[i];
		size_t k = reserve_choose(r, candidates, n, size, all, pick);
		if (k == 0)
			break;
		for (size_t j = 0; j < k && !stop_signal(); j++) {
			r->taken[pick[j]] = true;
			reclaim_group(r, snap, groups, pick[j], &bar, false);
		}
		if (stop_signal() || all || !reserve_round_end(r, size))
			break;
	}
	progress_end(&bar);
out:
	free(pick);
	free(candidates);
}

/* One look at the kernel: read, choose, reclaim. Returns a negative errno
 * only when the kernel could not be read at all, or the pass could not
 * start (said). */
struct reap_status reap_pass(struct reap_run *r, bool first)
{
	struct reap_status st = { 0 };
	int lock = reclaim_lock_take(&st.exit);
	/* -EINTR: a stop signal arrived while another run held the lock.
	 * Otherwise said: a run that cannot take it reclaims nothing, since
	 * its counts could include what another run frees. */
	if (lock < 0 && lock != -EINTR)
		st = (struct reap_status){ lock, true, st.exit };
	if (lock < 0)
		return st;
	struct rot_snapshot *snap = NULL; /* stays NULL when it cannot be read */
	struct rot_group *groups;
	size_t ngroups;

	st.err = rot_snapshot_read(&snap);
	if (st.err >= 0 && !rot_snapshot_has_rot(snap))
		st.err = -EOPNOTSUPP;
	/* The taint change cannot be told: the reclaims can still be done. */
	if (st.err >= 0 && first)
		run_taint_before(&r->taint, &r->outcome);
	if (st.err >= 0)
		st.err = rot_snapshot_rotting_groups(snap, &groups, &ngroups);
	if (st.err < 0) {
		rot_snapshot_free(snap);
		rot_reclaim_unlock(lock);
		return st;
	}
	r->rot_left = total_bytes(groups, ngroups);
	st = pass_reserve(r, groups, ngroups);
	if (st.err < 0)
		goto out;

	const struct reap_opts *o = r->opts;
	if (percpu_mode(o) && r->pc)
		reclaim_for_reserve(r, snap, groups, ngroups,
				    o->has_floor ? o->floor : o->percpu_size,
				    o->percpu && !o->has_percpu_size);
	if ((o->all || o->has_down_to || o->nnames) && !stop_signal()) {
		const struct rot_group **chosen = calloc(ngroups + o->nnames + 1, sizeof(*chosen));
		if (!chosen) {
			cli_error("out of memory");
			cli_outcome_failed(&r->outcome, -ENOMEM);
		} else {
			size_t k = choose(r, groups, ngroups, chosen, r->rot_left);
			reclaim_chosen(r, snap, groups, ngroups, chosen, k);
		}
		free(chosen);
	}
	/* The summary tells the reserve as the kernel now counts it. */
	if (r->pc && !r->pc_fresh && !o->dry_run) {
		int rerr = read_reserve(r);
		if (rerr < 0)
			reserve_read_failed(r, rerr);
	}
out:
	pass_reserve_end(r);
	free(groups);
	rot_snapshot_free(snap);
	rot_reclaim_unlock(lock);
	return st;
}

struct reap_status reap_watch(struct reap_run *r)
{
	struct timespec pause = {
		.tv_sec = (time_t)r->opts->interval,
		.tv_nsec = (long)((r->opts->interval - (double)(time_t)r->opts->interval) * 1e9),
	};
	unsigned pass = 0;
	for (bool first = true; !stop_signal();) {
		struct cli_outcome before = r->outcome;
		size_t freed_before = r->instances;
		for (size_t i = 0; i < r->nreaped; i++)
			r->reaped[i].pass_instances = r->reaped[i].pass_bytes =
				r->reaped[i].pass_percpu = 0;
		refusals_tick(r);
		struct reap_status st = reap_pass(r, first);
		if (st.err == -ETIMEDOUT && st.said) {
			/* Another run held the lock all along: this pass is
			 * skipped and the next one tries again. */
			cli_outcome_failed(&r->outcome, st.err);
		} else if (st.err < 0) {
			return st;
		} else {
			first = false; /* the taint before the run is read */
		}
		pass++;
		if (r->opts->json) {
			int err = reap_print_pass(r, pass, r->outcome.failures - before.failures);
			if (err < 0) {
				/* the line is lost; the rest of the run is not */
				if (err == -ENOMEM)
					cli_error("out of memory");
				else
					cli_output_failed(err);
				cli_outcome_failed(&r->outcome, err);
			}
		}
		cli_flush_stdout();
		/* A pass that only met permission errors would meet them again
		 * every interval: without CAP_SYS_MODULE there is nothing to watch. */
		unsigned failed = r->outcome.failures - before.failures;
		if (failed && r->instances == freed_before &&
		    r->outcome.perm - before.perm + r->outcome.cascaded - before.cascaded == failed) {
			cli_error("stopped watching: reclaiming needs CAP_SYS_MODULE");
			break;
		}
		stop_signal_sleep(&pause);
	}
	/* --watch: what stays refused at the end, not the sum over passes. */
	for (size_t i = 0; i < r->nrefusals; i++)
		r->refused += r->refusals[i].instances;
	return (struct reap_status){ 0 };
}
