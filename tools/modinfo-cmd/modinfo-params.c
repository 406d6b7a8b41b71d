// SPDX-License-Identifier: GPL-2.0-or-later
/* A module's parameters, from its "parm" (description) and "parmtype"
 * entries, in the order kmod's modinfo lists them. */
#include <errno.h>
#include <libkmod.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli-msg.h"
#include "modinfo.h"

/*
 * Names seen so far, by hash: a module may carry 100,000 parm entries,
 * and a search of the list for each would be quadratic. Open addressing
 * over indexes into the parameter array; at most half full.
 */
struct param_index {
	size_t *slot; /* index + 1; 0: empty */
	size_t mask;
};

static size_t name_hash(const char *s, size_t n)
{
	uint64_t h = 0xcbf29ce484222325u; /* FNV-1a */
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 0x100000001b3u;
	return (size_t)(h ^ (h >> 32));
}

static size_t *index_find(const struct param_index *ix, const struct modinfo_param *params,
			  const char *name, size_t namelen)
{
	for (size_t i = name_hash(name, namelen) & ix->mask;; i = (i + 1) & ix->mask) {
		size_t *s = &ix->slot[i];
		if (!*s)
			return s;
		const struct modinfo_param *p = &params[*s - 1];
		if ((size_t)p->namelen == namelen && !memcmp(p->name, name, namelen))
			return s;
	}
}

int modinfo_params_collect(const struct modinfo_record *r, struct modinfo_param **out, size_t *nout)
{
	const struct kmod_list *l;
	size_t max = 0, n = 0, size = 64;

	kmod_list_foreach(l, r->info)
	{
		const char *key = kmod_module_info_get_key(l);
		max += !strcmp(key, "parm") || !strcmp(key, "parmtype");
	}
	while (size < 2 * max)
		size *= 2;
	struct param_index ix = { calloc(size, sizeof(size_t)), size - 1 };
	struct modinfo_param *params = malloc((max ? max : 1) * sizeof(*params));
	if (!ix.slot || !params)
		goto nomem;
	kmod_list_foreach(l, r->info)
	{
		const char *key = kmod_module_info_get_key(l);
		const char *value = kmod_module_info_get_value(l);
		bool is_type = !strcmp(key, "parmtype");
		if (!is_type && strcmp(key, "parm"))
			continue;
		const char *colon = strchr(value, ':');
		if (!colon) {
			cli_error("%s: ignoring \"%s=%s\": no ':' after the parameter's name",
				  r->name, key, value);
			continue;
		}
		size_t namelen = colon - value, restlen = strlen(colon + 1);
		if (namelen > INT_MAX || restlen > INT_MAX)
			continue;
		size_t *slot = index_find(&ix, params, value, namelen);
		if (!*slot) {
			params[n] = (struct modinfo_param){ .name = value, .namelen = (int)namelen };
			*slot = ++n;
		}
		struct modinfo_param *p = &params[*slot - 1];
		if (is_type) {
			p->type = colon + 1;
			p->typelen = (int)restlen;
		} else {
			p->text = colon + 1;
			p->textlen = (int)restlen;
		}
	}
	/* kmod's modinfo lists the parameter named last first. */
	for (size_t i = 0; i < n / 2; i++) {
		struct modinfo_param t = params[i];
		params[i] = params[n - 1 - i];
		params[n - 1 - i] = t;
	}
	free(ix.slot);
	*out = params;
	*nout = n;
	return 0;
nomem:
	free(ix.slot);
	free(params);
	return -ENOMEM;
}
