// SPDX-License-Identifier: GPL-2.0
#define KIND 15
#include "rotpat.h"
