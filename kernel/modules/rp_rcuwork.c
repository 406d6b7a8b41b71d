// SPDX-License-Identifier: GPL-2.0
#define KIND 4
#include "rotpat.h"
