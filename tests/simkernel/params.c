// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Module parameters as Linux 6.1's parse_args() treats them: words of
 * NAME[=VALUE] with double quotes, '-' and '_' equal in names, unknown
 * names ignored (unknown_module_param_cb), a value checked by its type's
 * kstrto*() and shown in sysfs as the type prints it.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "modimage.h"

struct param {
	char name[128];
	char type[32];
	char *value; /* as shown in sysfs */
};

static int parameq(const char *a, const char *b, size_t bl)
{
	size_t i;
	for (i = 0; i < bl && a[i]; i++) {
		char x = a[i] == '-' ? '_' : a[i], y = b[i] == '-' ? '_' : b[i];
		if (x != y)
			return 0;
	}
	return i == bl && a[i] == '\0';
}

/* kstrtoull(): base 0, optional '+', one trailing newline */
static int parse_ull(const char *s, unsigned long long *v)
{
	if (*s == '+')
		s++;
	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	char *end;
	errno = 0;
	*v = strtoull(s, &end, 0);
	if (errno == ERANGE)
		return -ERANGE;
	if (*end == '\n')
		end++;
	return *end ? -EINVAL : 0;
}

static int parse_ll(const char *s, long long *v)
{
	unsigned long long u;
	int neg = *s == '-';
	int err = parse_ull(s + neg, &u);
	if (err)
		return err;
	if (neg ? u > (unsigned long long)LLONG_MAX + 1 : u > LLONG_MAX)
		return -ERANGE;
	*v = neg ? (long long)(0 - u) : (long long)u;
	return 0;
}

/* kstrtobool() */
static int parse_bool(const char *s, int *v)
{
	if (!s)
		s = "1"; /* a bare bool parameter means true */
	switch (s[0]) {
	case 'y': case 'Y': case '1': *v = 1; return 0;
	case 'n': case 'N': case '0': *v = 0; return 0;
	case 'o': case 'O':
		if (s[1] == 'n' || s[1] == 'N') { *v = 1; return 0; }
		if (s[1] == 'f' || s[1] == 'F') { *v = 0; return 0; }
		break;
	}
	return -EINVAL;
}

static int format_value(const char *type, const char *val, char **out)
{
	char buf[64];
	static const struct { const char *t; int sign; long long min; unsigned long long max; } nums[] = {
		{ "byte", 0, 0, UCHAR_MAX }, { "short", 1, SHRT_MIN, SHRT_MAX }, { "ushort", 0, 0, USHRT_MAX },
		{ "int", 1, INT_MIN, INT_MAX }, { "uint", 0, 0, UINT_MAX }, { "long", 1, LONG_MIN, LONG_MAX },
		{ "ulong", 0, 0, ULONG_MAX }, { "ullong", 0, 0, ULLONG_MAX }, { "hexint", 0, 0, UINT_MAX },
	};
	for (size_t i = 0; i < sizeof(nums) / sizeof(nums[0]); i++) {
		if (strcmp(type, nums[i].t))
			continue;
		if (!val)
			return -EINVAL;
		if (nums[i].sign) {
			long long v;
			int err = parse_ll(val, &v);
			if (err)
				return err;
			if (v < nums[i].min || v > (long long)nums[i].max)
				return -ERANGE;
			snprintf(buf, sizeof(buf), "%lld", v);
		} else {
			unsigned long long v;
			int err = parse_ull(val, &v);
			if (err)
				return err;
			if (v > nums[i].max)
				return -ERANGE;
			snprintf(buf, sizeof(buf), strcmp(type, "hexint") ? "%llu" : "0x%08llx", v);
		}
		*out = strdup(buf);
		return *out ? 0 : -ENOMEM;
	}
	if (!strcmp(type, "bool") || !strcmp(type, "invbool")) {
		int v, err = parse_bool(val, &v);
		if (err)
			return err;
		if (type[0] == 'i')
			v = !v;
		*out = strdup(v ? "Y" : "N");
		return *out ? 0 : -ENOMEM;
	}
	if (!val)
		return -EINVAL;
	if (!strcmp(type, "charp") && strlen(val) > 1024)
		return -ENOSPC;
	*out = strdup(val);
	return *out ? 0 : -ENOMEM;
}

static const char *default_value(const char *type)
{
	if (!strcmp(type, "bool") || !strcmp(type, "invbool"))
		return type[0] == 'i' ? "Y" : "N";
	if (!strcmp(type, "charp"))
		return "(null)";
	if (!strcmp(type, "string"))
		return "";
	if (!strcmp(type, "hexint"))
		return "0x00000000";
	return "0";
}

/* next_arg(): one NAME[=VALUE] word, quotes allowed around either part */
static char *next_arg(char *args, char **param, char **val)
{
	int in_quote = 0, quoted = 0;
	size_t i, equals = 0;

	if (*args == '"') {
		args++;
		in_quote = 1;
		quoted = 1;
	}
	for (i = 0; args[i]; i++) {
		if (isspace((unsigned char)args[i]) && !in_quote)
			break;
		if (equals == 0 && args[i] == '=')
			equals = i;
		if (args[i] == '"')
			in_quote = !in_quote;
	}
	*param = args;
	if (!equals) {
		*val = NULL;
	} else {
		args[equals] = '\0';
		*val = args + equals + 1;
		if (**val == '"') {
			(*val)++;
			if (args[i - 1] == '"')
				args[i - 1] = '\0';
		}
	}
	if (quoted && i > 0 && args[i - 1] == '"')
		args[i - 1] = '\0';
	char *next = args + i;
	if (*next)
		*next++ = '\0';
	while (isspace((unsigned char)*next))
		next++;
	return next;
}

void sim_params_free(char **v)
{
	if (!v)
		return;
	for (char **p = v; *p; p++)
		free(*p);
	free(v);
}

int sim_params_apply(const struct sim_image *im, const char *args, char ***out)
{
	struct param *ps = NULL;
	size_t n = 0;
	int err = 0;
	char *copy = NULL;

	*out = NULL;
	for (const char *t = NULL; (t = sim_modinfo_next(im, "parmtype", t));) {
		const char *colon = strchr(t, ':');
		if (!colon || (size_t)(colon - t) >= sizeof(ps->name))
			continue;
		struct param *nps = realloc(ps, (n + 1) * sizeof(*ps));
		if (!nps) {
			err = -ENOMEM;
			goto out;
		}
		ps = nps;
		memset(&ps[n], 0, sizeof(ps[n]));
		snprintf(ps[n].name, sizeof(ps[n].name), "%.*s", (int)(colon - t), t);
		snprintf(ps[n].type, sizeof(ps[n].type), "%s", colon + 1);
		n++;
	}
	copy = strdup(args ? args : "");
	if (!copy) {
		err = -ENOMEM;
		goto out;
	}
	char *a = copy;
	while (isspace((unsigned char)*a))
		a++;
	while (*a) {
		char *param, *val;
		a = next_arg(a, &param, &val);
		if (!strcmp(param, "--"))
			break;
		for (size_t i = 0; i < n; i++) {
			if (!parameq(param, ps[i].name, strlen(ps[i].name)))
				continue;
			char *v = NULL;
			err = format_value(ps[i].type, val, &v);
			if (err)
				goto out;
			free(ps[i].value);
			ps[i].value = v;
			break;
		}
	}
	char **v = calloc(n + 1, sizeof(char *));
	if (!v) {
		err = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		const char *val = ps[i].value ? ps[i].value : default_value(ps[i].type);
		size_t nl = strlen(ps[i].name), vl = strlen(val);
		v[i] = malloc(nl + vl + 2);
		if (!v[i]) {
			sim_params_free(v);
			err = -ENOMEM;
			goto out;
		}
		memcpy(v[i], ps[i].name, nl);
		v[i][nl] = '=';
		memcpy(v[i] + nl + 1, val, vl + 1);
	}
	*out = v;
out:
	for (size_t i = 0; i < n; i++)
		free(ps[i].value);
	free(ps);
	free(copy);
	return err;
}
