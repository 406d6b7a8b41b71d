// SPDX-License-Identifier: GPL-2.0
/* pcpualign: 100 bytes of per-CPU data aligned to 64 (a cache line). */
#define PCPU_BYTES 100
#define PCPU_ALIGN 64
#include "pcpu.h"

MODULE_DESCRIPTION("rot test: 100 bytes of per-CPU data aligned to 64");
