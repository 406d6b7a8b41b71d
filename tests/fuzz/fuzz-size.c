// SPDX-License-Identifier: GPL-2.0-or-later
/* cli_parse_size (modreap --down-to): what it accepts it can print back. */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli-opts.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = strndup((const char *)data, size);
	uint64_t bytes = 0;
	if (!text)
		abort();
	int err = cli_parse_size(text, &bytes);
	if (err != 0 && err != -EINVAL && err != -ERANGE)
		abort();
	if (err == 0) {
		/* A plain number of bytes means exactly that number. */
		if (text[strspn(text, "0123456789")] == '\0') {
			char again[32];
			snprintf(again, sizeof(again), "%" PRIu64, bytes);
			if (strcmp(again, text + strspn(text, "0")) != 0 &&
			    !(bytes == 0 && text[0] == '0'))
				abort();
		}
	}
	free(text);
	return 0;
}
