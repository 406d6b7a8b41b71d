// SPDX-License-Identifier: GPL-2.0
/* pcpu512: 512 bytes of per-CPU data, nothing else. */
#define PCPU_BYTES 512
#include "pcpu.h"

MODULE_DESCRIPTION("rot test: 512 bytes of per-CPU data");
