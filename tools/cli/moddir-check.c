// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>

#include "cli-errors.h"
#include "cli-msg.h"
#include "moddir-check.h"
#include "modrot.h"

int cli_moddir_check(const char *moddir)
{
	const char *index;
	int err = rot_moddir_check(moddir, &index);

	if (err == 0)
		return 0;
	if (!index)
		cli_error("could not check the module indexes in %s: %s", moddir, cli_strerror(err));
	else if (err == -EINVAL)
		cli_error("%s/%s is corrupt (run depmod)", moddir, index);
	else if (err == -EISDIR)
		cli_error("%s/%s is not a regular file (run depmod)", moddir, index);
	else if (err == -EFBIG)
		cli_error("%s/%s is larger than any index depmod writes (run depmod)", moddir,
			  index);
	else
		cli_error("could not read %s/%s: %s", moddir, index, cli_strerror(err));
	return err;
}
