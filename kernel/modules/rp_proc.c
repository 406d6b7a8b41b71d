// SPDX-License-Identifier: GPL-2.0
#define KIND 10
#include "rotpat.h"
