// SPDX-License-Identifier: GPL-2.0
/* pcpu1500: 1500 bytes of per-CPU data, nothing else. */
#define PCPU_BYTES 1500
#include "pcpu.h"

MODULE_DESCRIPTION("rot test: 1500 bytes of per-CPU data");
