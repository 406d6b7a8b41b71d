// SPDX-License-Identifier: GPL-2.0
#define KIND 2
#include "rotpat.h"
