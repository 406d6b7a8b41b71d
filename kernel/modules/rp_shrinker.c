// SPDX-License-Identifier: GPL-2.0
#define KIND 9
#include "rotpat.h"
