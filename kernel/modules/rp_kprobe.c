// SPDX-License-Identifier: GPL-2.0
#define KIND 6
#include "rotpat.h"
