// SPDX-License-Identifier: GPL-2.0
#define KIND 1
#include "rotpat.h"
