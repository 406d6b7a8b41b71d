// SPDX-License-Identifier: GPL-2.0
#define KIND 5
#include "rotpat.h"
