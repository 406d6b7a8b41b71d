// SPDX-License-Identifier: GPL-2.0
#define KIND 12
#include "rotpat.h"
