// SPDX-License-Identifier: GPL-2.0
#define KIND 8
#include "rotpat.h"
