/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef MODROT_DL_ZSTD_H
#define MODROT_DL_ZSTD_H
/* libzstd, opened on first use (dynlib.h): .ko.zst files. */
#include <zstd.h>

#include "dynlib.h"

#define DL_ZSTD_FUNCTIONS(X)        \
	X(ZSTD_createDStream)       \
	X(ZSTD_decompressStream)    \
	X(ZSTD_freeDStream)         \
	X(ZSTD_getFrameContentSize) \
	X(ZSTD_isError)

DL_ZSTD_FUNCTIONS(DYNLIB_DECLARE)

#define ZSTD_createDStream (*dl_ZSTD_createDStream)
#define ZSTD_decompressStream (*dl_ZSTD_decompressStream)
#define ZSTD_freeDStream (*dl_ZSTD_freeDStream)
#define ZSTD_getFrameContentSize (*dl_ZSTD_getFrameContentSize)
#define ZSTD_isError (*dl_ZSTD_isError)

#endif
