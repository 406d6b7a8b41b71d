// SPDX-License-Identifier: GPL-2.0-or-later
/* What an rmmod run did, kept for -J and written as one JSON document. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli-msg.h"
#include "cli-run.h"
#include "json-keys.h"
#include "jsonwrt.h"
#include "rmmod.h"

void rmmod_note(struct rmmod_run *r, const char *name, const char *result, int err,
		const char *reason, size_t instances, uint64_t bytes, char *message)
{
	if (!r->opts->json) {
		free(message);
		return;
	}
	struct rmmod_record *grown = realloc(r->records, (r->nrecords + 1) * sizeof(*grown));
	if (!grown) {
		r->records_lost = true;
		free(message);
		return;
	}
	r->records = grown;
	struct rmmod_record *rec = &r->records[r->nrecords++];
	snprintf(rec->name, sizeof(rec->name), "%s", name);
	rec->result = result;
	rec->err = err;
	rec->reason = reason;
	rec->instances = instances;
	rec->bytes = bytes;
	rec->message = message;
	rec->has_kept = false;
}

void rmmod_failed(struct rmmod_run *r, const char *name, int err, bool cascade, const char *reason,
		  const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (cascade)
		cli_outcome_cascaded(&r->outcome);
	else
		cli_outcome_failed(&r->outcome, err);
	if (!r->opts->json) {
		cli_error("%s", msg);
		return;
	}
	rmmod_note_said(r, name, "failed", err, reason, msg);
}

void rmmod_note_said(struct rmmod_run *r, const char *name, const char *result, int err,
		     const char *reason, const char *msg)
{
	char *copy = strdup(msg);
	if (!copy)
		r->records_lost = true;
	rmmod_note(r, name, result, err, reason, 0, 0, copy);
}

/* What a record says it did; a summary is the sum of its records. */
struct rmmod_sums {
	size_t unloaded;
	uint64_t unloaded_bytes;
	size_t reclaimed_names;
	size_t reclaimed_instances;
	uint64_t reclaimed_bytes;
	size_t kept_instances;
};

void rmmod_print_json(struct rmmod_run *r, const struct run_taint *taint)
{
	struct json_writer w;
	struct rmmod_sums total = { 0 };
	int err = json_start_stdout(&w, false);
	if (err == 0) {
		json_open_array(&w, JK_MODULES);
		for (size_t i = 0; i < r->nrecords; i++) {
			const struct rmmod_record *rec = &r->records[i];
			const bool gone = !strcmp(rec->result, "unloaded") ||
					  !strcmp(rec->result, "would unload");
			const bool freed = !strcmp(rec->result, "reclaimed");
			const struct rmmod_sums s = { gone,
						      gone ? rec->bytes : 0,
						      freed,
						      freed ? rec->instances : 0,
						      freed ? rec->bytes : 0,
						      rec->has_kept ? rec->kept.kept : 0 };
			json_open_object(&w, NULL);
			json_string(&w, JK_NAME, rec->name);
			json_string(&w, JK_RESULT, rec->result);
			json_string(&w, JK_REASON, rec->reason);
			json_u64(&w, JK_ERRNO, (uint64_t)-rec->err);
			json_string(&w, JK_ERROR, rec->err ? strerrorname_np(-rec->err) : "");
			json_string(&w, JK_MESSAGE, rec->message ? rec->message : "");
			json_u64(&w, JK_UNLOADED_BYTES, s.unloaded_bytes);
			json_u64(&w, JK_RECLAIMED_INSTANCES, s.reclaimed_instances);
			json_u64(&w, JK_RECLAIMED_BYTES, s.reclaimed_bytes);
			if (rec->has_kept)
				report_json_kept(&w, &rec->kept);
			else
				json_u64(&w, JK_KEPT_INSTANCES, 0);
			json_close_object(&w);
			total.unloaded += s.unloaded;
			total.unloaded_bytes += s.unloaded_bytes;
			total.reclaimed_names += s.reclaimed_names;
			total.reclaimed_instances += s.reclaimed_instances;
			total.reclaimed_bytes += s.reclaimed_bytes;
			total.kept_instances += s.kept_instances;
		}
		json_close_array(&w);
		report_json_summary_common(&w, r->opts->dry_run, r->outcome.failures, taint);
		json_u64(&w, JK_UNLOADED, total.unloaded);
		json_u64(&w, JK_UNLOADED_BYTES, total.unloaded_bytes);
		json_u64(&w, JK_RECLAIMED_NAMES, total.reclaimed_names);
		json_u64(&w, JK_RECLAIMED_INSTANCES, total.reclaimed_instances);
		json_u64(&w, JK_RECLAIMED_BYTES, total.reclaimed_bytes);
		json_u64(&w, JK_KEPT_INSTANCES, total.kept_instances);
		json_close_object(&w);
	}
	err = json_finish(&w);
	if (err == -ENOMEM) {
		cli_error("out of memory");
		cli_outcome_failed(&r->outcome, err);
	} else if (err < 0) {
		cli_output_failed(err);
	}
}
