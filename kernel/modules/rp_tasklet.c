// SPDX-License-Identifier: GPL-2.0
#define KIND 16
#include "rotpat.h"
