// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cli-errors.h"
#include "cli-msg.h"
#include "moddir-check.h"
#include "modrot.h"

/* One view per run: every kmod context of a tool reads one directory. */
static struct rot_moddir *view;

static void view_close(void)
{
	rot_moddir_close(view);
	view = NULL;
}

static const char *rejected_why(int err, const char *text, char *buf, size_t size)
{
	if (text && err == -EBADMSG)
		snprintf(buf, size, "does not match %s", text);
	else if (text && err == -EINVAL)
		snprintf(buf, size, "cannot be checked: %s is not a regular file", text);
	else if (text && err == -EFBIG)
		snprintf(buf, size, "cannot be checked: %s is too large", text);
	else if (text)
		snprintf(buf, size, "cannot be checked: %s: %s", text, cli_strerror(err));
	if (text)
		return buf;
	if (err == -EINVAL)
		return "is corrupt";
	if (err == -EFBIG)
		return "is larger than any index depmod writes";
	return cli_strerror(err);
}

int cli_moddir_open(const char *dirname, const char **path)
{
	int err;

	*path = dirname;
	if (view)
		view_close();
	err = rot_moddir_open(dirname, &view);
	if (err < 0) {
		cli_error("could not check the module indexes of %s: %s",
			  dirname ? dirname : "the running kernel", cli_strerror(err));
		return err;
	}
	static bool at_exit;
	if (!at_exit)
		at_exit = atexit(view_close) == 0;
	for (size_t i = 0; i < rot_moddir_rejected_count(view); i++) {
		int why;
		char buf[128];
		const char *name = rot_moddir_rejected(view, i, &why);
		cli_warn("%s/%s %s: read as missing (run depmod)", rot_moddir_original(view), name,
			 rejected_why(why, rot_moddir_rejected_text(view, i), buf, sizeof(buf)));
	}
	*path = rot_moddir_path(view);
	return 0;
}

const char *cli_moddir_shown(const char *path)
{
	return rot_moddir_unmap(view, path);
}
