// SPDX-License-Identifier: GPL-2.0
#define KIND 3
#include "rotpat.h"
