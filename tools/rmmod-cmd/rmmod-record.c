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
	*rec = (struct rmmod_record){ .result = result,
				      .err = err,
				      .reason = reason,
				      .instances = instances,
				      .bytes = bytes,
				      .message = message };
	snprintf(rec->name, sizeof(rec->name), "%s", name);
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
	if (!r->opts->json)
		cli_error("%s", msg);
	else
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

void rmmod_print_json(struct rmmod_run *r, const struct run_taint *taint)
{
	struct json_writer w;
	/* The summary is the sum of the records. */
	size_t unloaded = 0, reclaimed_names = 0, reclaimed_instances = 0, kept_instances = 0;
	uint64_t unloaded_bytes = 0, reclaimed_bytes = 0;
	int err = json_start_stdout(&w, false);
	if (err == 0) {
		json_open_array(&w, JK_MODULES);
		for (size_t i = 0; i < r->nrecords; i++) {
			const struct rmmod_record *rec = &r->records[i];
			const bool gone = !strcmp(rec->result, "unloaded") ||
					  !strcmp(rec->result, "would unload");
			const bool freed = !strcmp(rec->result, "reclaimed");
			const uint64_t gone_bytes = gone ? rec->bytes : 0;
			const size_t freed_instances = freed ? rec->instances : 0;
			const uint64_t freed_bytes = freed ? rec->bytes : 0;
			json_open_object(&w, NULL);
			json_string(&w, JK_NAME, rec->name);
			json_string(&w, JK_RESULT, rec->result);
			json_string(&w, JK_REASON, rec->reason);
			json_u64(&w, JK_ERRNO, (uint64_t)-rec->err);
			json_string(&w, JK_ERROR, rec->err ? strerrorname_np(-rec->err) : "");
			json_string(&w, JK_MESSAGE, rec->message ? rec->message : "");
			json_u64(&w, JK_UNLOADED_BYTES, gone_bytes);
			json_u64(&w, JK_RECLAIMED_INSTANCES, freed_instances);
			json_u64(&w, JK_RECLAIMED_BYTES, freed_bytes);
			if (rec->has_kept)
				report_json_kept(&w, &rec->kept);
			else
				json_u64(&w, JK_KEPT_INSTANCES, 0);
			json_close_object(&w);
			unloaded += gone;
			unloaded_bytes += gone_bytes;
			reclaimed_names += freed;
			reclaimed_instances += freed_instances;
			reclaimed_bytes += freed_bytes;
			kept_instances += rec->has_kept ? rec->kept.kept : 0;
		}
		json_close_array(&w);
		report_json_summary_common(&w, r->opts->dry_run, r->outcome.failures, taint);
		json_u64(&w, JK_UNLOADED, unloaded);
		json_u64(&w, JK_UNLOADED_BYTES, unloaded_bytes);
		json_u64(&w, JK_RECLAIMED_NAMES, reclaimed_names);
		json_u64(&w, JK_RECLAIMED_INSTANCES, reclaimed_instances);
		json_u64(&w, JK_RECLAIMED_BYTES, reclaimed_bytes);
		json_u64(&w, JK_KEPT_INSTANCES, kept_instances);
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
