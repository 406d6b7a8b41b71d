// SPDX-License-Identifier: GPL-2.0
#define KIND 14
#include "rotpat.h"
