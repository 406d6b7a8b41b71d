/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef MODROT_DL_LZMA_H
#define MODROT_DL_LZMA_H
/* liblzma, opened on first use (dynlib.h): .ko.xz files. */
#include <lzma.h>

#include "dynlib.h"

#define DL_LZMA_FUNCTIONS(X)            \
	X(lzma_code)                    \
	X(lzma_end)                     \
	X(lzma_index_buffer_decode)     \
	X(lzma_index_end)               \
	X(lzma_index_uncompressed_size) \
	X(lzma_stream_decoder)          \
	X(lzma_stream_footer_decode)

DL_LZMA_FUNCTIONS(DYNLIB_DECLARE)

#define lzma_code (*dl_lzma_code)
#define lzma_end (*dl_lzma_end)
#define lzma_index_buffer_decode (*dl_lzma_index_buffer_decode)
#define lzma_index_end (*dl_lzma_index_end)
#define lzma_index_uncompressed_size (*dl_lzma_index_uncompressed_size)
#define lzma_stream_decoder (*dl_lzma_stream_decoder)
#define lzma_stream_footer_decode (*dl_lzma_stream_footer_decode)

#endif
