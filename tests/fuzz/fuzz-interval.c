// SPDX-License-Identifier: GPL-2.0-or-later
/* cli_parse_interval (modreap --interval): accepted means 0 < SECS <= 86400. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli-opts.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = strndup((const char *)data, size);
	double secs = -1;
	if (!text)
		abort();
	int err = cli_parse_interval(text, &secs);
	if (err != 0 && err != -EINVAL && err != -ERANGE)
		abort();
	if (err == 0 && !(isfinite(secs) && secs > 0 && secs <= 86400))
		abort();
	free(text);
	return 0;
}
