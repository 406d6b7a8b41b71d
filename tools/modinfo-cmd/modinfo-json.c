// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * modinfo -J: one object per module. The .modinfo entries keep their
 * order and repeats as a list of key/value pairs; parameters are gathered
 * as in the text output; the running kernel's state and the --verify
 * verdict are typed members.
 */
#include <errno.h>
#include <libkmod.h>
#include <stdlib.h>
#include <string.h>

#include "json-keys.h"
#include "jsonwrt.h"
#include "modinfo.h"
#include "sigwords.h"

/* Set when a piece of the record could not be made: the document would
 * hold an empty or missing value as if the module had it so. */
static int json_err;

/* A counted piece of a .modinfo value as a string member (NULL: null). */
static void json_piece(struct json_writer *w, const char *name, const char *s, int len)
{
	if (!s) {
		json_null(w, name);
		return;
	}
	char *copy = strndup(s, len);
	if (!copy)
		json_err = -ENOMEM;
	json_string(w, name, copy ? copy : "");
	free(copy);
}

static void json_params(struct json_writer *w, const struct modinfo_record *r)
{
	struct modinfo_param *params = NULL;
	size_t n = 0;
	if (modinfo_params_collect(r, &params, &n) < 0)
		json_err = -ENOMEM;
	json_open_array(w, JK_PARAMETERS);
	for (size_t i = 0; i < n; i++) {
		json_open_object(w, NULL);
		json_piece(w, JK_NAME, params[i].name, params[i].namelen);
		json_piece(w, JK_DESCRIPTION, params[i].text, params[i].textlen);
		json_piece(w, JK_TYPE, params[i].type, params[i].typelen);
		json_close_object(w);
	}
	json_close_array(w);
	free(params);
}

static void json_verify(struct json_writer *w, const struct modinfo_verify *v)
{
	json_open_object(w, JK_VERIFY);
	/* Not checked: status, signer and key are unknown; an empty signer or
	 * key is one the signature does not name. */
	const char *signer = v->checked ? rot_sig_info_signer(v->sig) : "";
	const char *key = v->checked ? rot_sig_info_key_id(v->sig) : "";
	json_bool(w, JK_VALID, v->checked && rot_sig_info_status(v->sig) == ROT_SIG_VALID);
	json_string_or_null(w, JK_STATUS,
			    v->checked ? sig_status_word(rot_sig_info_status(v->sig)) : NULL);
	json_string_or_null(w, JK_SIGNER, signer[0] ? signer : NULL);
	json_string_or_null(w, JK_KEY_ID, key[0] ? key : NULL);
	json_string(w, JK_MESSAGE, v->why);
	json_close_object(w);
}

int modinfo_json_print(struct json_writer *w, const struct modinfo_record *r)
{
	const struct kmod_list *l;

	json_err = 0;
	json_open_object(w, NULL);
	json_string(w, JK_ARGUMENT, r->argument);
	json_string(w, JK_NAME, r->name);
	json_string_or_null(w, JK_FILENAME, r->filename);
	json_bool(w, JK_BUILTIN, r->filename == NULL);
	json_open_array(w, JK_INFO);
	kmod_list_foreach(l, r->info)
	{
		const char *key = kmod_module_info_get_key(l);
		if (!strcmp(key, "parm") || !strcmp(key, "parmtype"))
			continue;
		json_open_object(w, NULL);
		json_string(w, JK_KEY, key);
		json_string(w, JK_VALUE, kmod_module_info_get_value(l));
		json_close_object(w);
	}
	json_close_array(w);
	json_params(w, r);
	if (r->kernel.known) {
		json_string(w, JK_STATE, r->kernel.state);
		if (r->kernel.rot) {
			json_u64(w, JK_ROTTING_INSTANCES, r->kernel.rotting);
			json_u64(w, JK_ROTTING_BYTES, r->kernel.rotting_bytes);
			if (r->kernel.percpu_known)
				json_u64(w, JK_ROTTING_PERCPU_BYTES, r->kernel.rotting_percpu);
		}
	}
	if (r->verify.asked)
		json_verify(w, &r->verify);
	json_close_object(w);
	return json_err;
}
