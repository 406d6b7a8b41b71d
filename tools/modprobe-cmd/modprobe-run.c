// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What a modprobe run offers its parts: kmod's levels of failure, install
 * and remove commands, what is read once per run, and the tally of rot
 * told of. It calls none of the parts, so the calls have no cycle.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "cli-escape.h"
#include "cli-exit.h"
#include "cli-msg.h"
#include "cli-run.h"
#include "modprobe.h"

void mp_fail(struct modprobe_run *r, int err, enum mp_level level, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	cli_outcome_failed(&r->outcome, err);
	if (r->opts->quiet)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* kmod's LOG_CRIT ends the run; with -a it is a warning */
	if (level == MP_FATAL && !r->opts->all) {
		cli_fatal("%s", msg);
		r->stopped = true;
	} else if (level == MP_ERROR) {
		cli_error("%s", msg);
	} else {
		cli_warn("%s", msg);
	}
}

bool mp_name_refused(struct modprobe_run *r, const char *name)
{
	int err = rot_alias_check(name);
	if (err < 0)
		mp_fail(r, err, MP_FATAL,
			"Module %.40s... is no module name or alias: %zu bytes, and an alias "
			"has at most %d",
			name, strlen(name), ROT_ALIAS_MAX);
	return err < 0;
}

int mp_run_command(struct modprobe_run *r, const char *type, const char *name, const char *cmd,
		   bool soft)
{
	/* kmod's modprobe runs remove commands and reports their failure
	 * itself, as it reports a name; libkmod runs install commands, and
	 * its word is ERROR */
	enum mp_level level = strcmp(type, "remove") ? MP_ERROR : MP_FATAL;
	char msg[512];
	int err = 0;
	setenv("MODPROBE_MODULE", name, 1);
	int status = system(cmd);
	int saved = errno;
	unsetenv("MODPROBE_MODULE");
	if (status == -1) {
		err = -saved;
		snprintf(msg, sizeof(msg), "could not run the %s command of %s: %s", type, name,
			 strerror(saved));
	} else if (WIFSIGNALED(status)) {
		/* a shell that ran the command in its place dies of its signal */
		int sig = WTERMSIG(status);
		const char *abbrev = sigabbrev_np(sig);
		err = -EINTR;
		snprintf(msg, sizeof(msg),
			 "the %s command of %s was killed by signal %d (SIG%s: %s)", type, name,
			 sig, abbrev ? abbrev : "?", strsignal(sig));
	} else if (WEXITSTATUS(status)) {
		err = -EIO;
		snprintf(msg, sizeof(msg), "Error running %s command for %s: exit status %d", type,
			 name, WEXITSTATUS(status));
	}
	if (err && soft && !r->opts->quiet)
		cli_error("%s", msg);
	else if (err && !soft)
		mp_fail(r, err, level, "%s", msg);
	return err;
}

const struct rot_snapshot *mp_snapshot(struct modprobe_run *r)
{
	if (!r->snap_read) {
		r->snap_read = true;
		r->snap_err = rot_snapshot_read(&r->snap);
		if (r->snap_err < 0)
			r->snap = NULL;
		r->rot = r->snap && rot_snapshot_has_rot(r->snap);
	}
	return r->snap;
}

int mp_kernel_facts(struct modprobe_run *r, const struct rot_kernel_facts **out)
{
	if (!r->facts_read) {
		r->facts_read = true;
		r->facts_err = rot_kernel_facts_read(&r->facts);
	}
	*out = r->facts;
	return r->facts_err;
}

size_t mp_rot_accounted(struct modprobe_run *r, const char *name)
{
	const struct rot_snapshot *snap = mp_snapshot(r);
	size_t n = snap ? rot_snapshot_rotting_of(snap, name, NULL, NULL) : 0;
	for (size_t i = 0; i < r->ntally; i++)
		if (!strcmp(r->tally[i].name, name))
			n += r->tally[i].instances;
	return n;
}

void mp_rot_account(struct modprobe_run *r, const char *name, size_t instances)
{
	for (size_t i = 0; i < r->ntally; i++) {
		if (!strcmp(r->tally[i].name, name)) {
			r->tally[i].instances += instances; /* wraps down for a reclaim */
			return;
		}
	}
	struct mp_tally *t = realloc(r->tally, (r->ntally + 1) * sizeof(*t));
	if (!t)
		return; /* then a later count errs towards "nothing new rots" */
	r->tally = t;
	snprintf(t[r->ntally].name, sizeof(t[r->ntally].name), "%s", name);
	t[r->ntally++].instances = instances;
}

void mp_forget_loaded_symbols(struct modprobe_run *r)
{
	rot_symbols_free(r->loaded_symbols);
	r->loaded_symbols = NULL;
}

/* Whether s holds a control byte (C0, DEL, C1) or is not valid UTF-8. */
static bool needs_escape(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s);
	for (size_t i = 0; i < n;) {
		size_t len = cli_utf8_len(p + i, n - i);
		if (len == 0 || p[i] < 0x20 || p[i] == 0x7f || (p[i] == 0xc2 && p[i + 1] < 0xa0))
			return true;
		i += len;
	}
	return false;
}

void mp_put_text(const char *s)
{
	if (!s)
		return;
	if (!needs_escape(s)) {
		fputs(s, stdout);
		return;
	}
	char *safe = cli_safe_dup(s);
	if (!safe) {
		cli_output_failed(-ENOMEM);
		return;
	}
	fputs(safe, stdout);
	free(safe);
}
