/* SPDX-License-Identifier: GPL-2.0 */
/* What alpha exports, for alpha and beta (6.8+ warns on a missing prototype). */
#ifndef ROT_TEST_ALPHA_H
#define ROT_TEST_ALPHA_H

int alpha_fn(int x);

#endif
