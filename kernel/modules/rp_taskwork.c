// SPDX-License-Identifier: GPL-2.0
#define KIND 13
#include "rotpat.h"
