// SPDX-License-Identifier: GPL-2.0
#define KIND 11
#include "rotpat.h"
