// SPDX-License-Identifier: GPL-2.0
#define KIND 7
#include "rotpat.h"
