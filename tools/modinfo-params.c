// SPDX-License-Identifier: GPL-2.0-or-later
/* A module's parameters, from its "parm" (description) and "parmtype"
 * entries, in the order kmod's modinfo lists them. */
#include <errno.h>
#include <libkmod.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "modinfo.h"

static struct modinfo_param *find(struct modinfo_param *p, size_t n, const char *name,
				  size_t namelen)
{
	for (size_t i = 0; i < n; i++)
		if ((size_t)p[i].namelen == namelen && !memcmp(p[i].name, name, namelen))
			return &p[i];
	return NULL;
}

int modinfo_params_collect(const struct modinfo_record *r, struct modinfo_param **out, size_t *nout)
{
	struct modinfo_param *params = NULL;
	size_t n = 0, cap = 0;
	const struct kmod_list *l;

	kmod_list_foreach(l, r->info)
	{
		const char *key = kmod_module_info_get_key(l);
		const char *value = kmod_module_info_get_value(l);
		bool is_type = !strcmp(key, "parmtype");
		if (!is_type && strcmp(key, "parm"))
			continue;
		const char *colon = strchr(value, ':');
		if (!colon) {
			cli_warn("%s: ignoring \"%s=%s\": no ':' after the parameter's name",
				 r->name, key, value);
			continue;
		}
		size_t namelen = colon - value, restlen = strlen(colon + 1);
		if (namelen > INT_MAX || restlen > INT_MAX)
			continue;
		struct modinfo_param *p = find(params, n, value, namelen);
		if (!p) {
			if (n == cap) {
				size_t ncap = cap ? 2 * cap : 8;
				struct modinfo_param *bigger =
					realloc(params, ncap * sizeof(*bigger));
				if (!bigger) {
					free(params);
					return -ENOMEM;
				}
				params = bigger;
				cap = ncap;
			}
			p = &params[n++];
			*p = (struct modinfo_param){ .name = value, .namelen = (int)namelen };
		}
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
	*out = params;
	*nout = n;
	return 0;
}
