// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Module files come xz- or zstd-compressed; the kernel only ever sees the
 * plain image. Preflight needs that image too, so it is decompressed here
 * with the libraries' streaming APIs, which tell a truncated stream from a
 * corrupt one.
 *
 * A few kilobytes can decompress to gigabytes, and a stream need not say
 * how large it is. A stream that says is held to what it says; one that
 * does not is first decoded into a small scratch buffer and only counted:
 * one that goes past the limit is refused in constant memory, and only
 * one that fits is decoded again, whole.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dl-lzma.h"
#include "dl-zstd.h"
#include "internal.h"

enum rot_compression compression_detect(const void *buf, size_t len)
{
	static const unsigned char xz[] = { 0xfd, '7', 'z', 'X', 'Z', 0x00 };
	static const unsigned char zst[] = { 0x28, 0xb5, 0x2f, 0xfd };
	static const unsigned char gz[] = { 0x1f, 0x8b };

	if (len >= sizeof(xz) && memcmp(buf, xz, sizeof(xz)) == 0)
		return ROT_COMP_XZ;
	if (len >= sizeof(zst) && memcmp(buf, zst, sizeof(zst)) == 0)
		return ROT_COMP_ZSTD;
	if (len >= sizeof(gz) && memcmp(buf, gz, sizeof(gz)) == 0)
		return ROT_COMP_GZIP;
	return ROT_COMP_NONE;
}

/* Grows *buf (full: *cap < need) to hold need bytes or more, doubling,
 * within limit. */
static int grow(unsigned char **buf, size_t *cap, size_t need, size_t limit)
{
	if (need > limit)
		return -EFBIG;
	size_t cap2 = *cap ? *cap : 64 * 1024;
	while (cap2 < need)
		cap2 *= 2;
	if (cap2 > limit)
		cap2 = limit;
	unsigned char *b = realloc(*buf, cap2);
	if (!b)
		return -ENOMEM;
	*buf = b;
	*cap = cap2;
	return 0;
}

/* What a stream says it decompresses to (the last xz stream's index,
 * zstd's frame header), or 0 when it does not say. A bomb that says what
 * it is gets refused unread; one that lies is still stopped by the limit
 * while decoding. */
static uint64_t declared_size(enum rot_compression c, const unsigned char *in, size_t len)
{
	if (c != ROT_COMP_XZ) {
		unsigned long long size = ZSTD_getFrameContentSize(in, len);
		return size == ZSTD_CONTENTSIZE_UNKNOWN || size == ZSTD_CONTENTSIZE_ERROR ? 0 : size;
	}
	lzma_stream_flags flags;
	if (len < 2 * LZMA_STREAM_HEADER_SIZE ||
	    lzma_stream_footer_decode(&flags, in + len - LZMA_STREAM_HEADER_SIZE) != LZMA_OK ||
	    flags.backward_size > len - 2 * LZMA_STREAM_HEADER_SIZE)
		return 0;
	uint64_t memlimit = 1 << 20;
	lzma_index *index = NULL;
	size_t pos = 0;
	const unsigned char *at = in + len - LZMA_STREAM_HEADER_SIZE - flags.backward_size;
	if (lzma_index_buffer_decode(&index, &memlimit, NULL, at, &pos,
				     (size_t)flags.backward_size) != LZMA_OK)
		return 0;
	uint64_t size = lzma_index_uncompressed_size(index);
	lzma_index_end(index, NULL);
	return size;
}

#define SCRATCH_SIZE (64u * 1024)

/* Decodes the xz stream (several, concatenated) into *buf (grown within
 * limit from *cap bytes), or, with scratch, into scratch again and again,
 * only counting: -EFBIG past limit. *out_len is how much it decoded. */
static int unxz(const void *in, size_t len, size_t limit, unsigned char *scratch,
		unsigned char **buf, size_t *cap, size_t *out_len)
{
	lzma_stream s = LZMA_STREAM_INIT;
	int err = 0;

	if (lzma_stream_decoder(&s, 256u << 20, LZMA_CONCATENATED) != LZMA_OK)
		return -ENOMEM;
	s.next_in = in;
	s.avail_in = len;
	while (err == 0) {
		if (scratch) {
			s.next_out = scratch;
			s.avail_out = SCRATCH_SIZE;
		} else {
			if (s.total_out == *cap && (err = grow(buf, cap, *cap + 1, limit)) < 0)
				break;
			/* The buffer may have moved. */
			s.next_out = *buf + s.total_out;
			s.avail_out = *cap - s.total_out;
		}
		lzma_ret r = lzma_code(&s, LZMA_FINISH);
		if (s.total_out > limit)
			err = -EFBIG;
		else if (r == LZMA_STREAM_END)
			break;
		/* LZMA_BUF_ERROR: no progress with output room left, so the input
		 * ended. A dictionary beyond the limit is the file's fault, not
		 * memory's (the kernel's own decoder caps it too):
		 * LZMA_MEMLIMIT_ERROR is reported as bad data with the rest. */
		else if (r != LZMA_OK)
			err = r == LZMA_BUF_ERROR   ? -ENODATA
			      : r == LZMA_MEM_ERROR ? -ENOMEM
						    : -EBADMSG;
	}
	*out_len = s.total_out;
	lzma_end(&s);
	return err;
}

/* unxz() for a zstd stream. */
static int unzstd(const void *in, size_t len, size_t limit, unsigned char *scratch,
		  unsigned char **buf, size_t *cap, size_t *out_len)
{
	ZSTD_DStream *ds = ZSTD_createDStream();
	ZSTD_inBuffer ib = { in, len, 0 };
	size_t used = 0;
	uint64_t total = 0;
	int err = 0;

	if (!ds)
		return -ENOMEM;
	while (err == 0) {
		if (scratch)
			used = 0;
		else if (used == *cap && (err = grow(buf, cap, *cap + 1, limit)) < 0)
			break;
		ZSTD_outBuffer ob = { scratch ? scratch : *buf, scratch ? SCRATCH_SIZE : *cap,
				      used };
		size_t hint = ZSTD_decompressStream(ds, &ob, &ib);
		total += ob.pos - used;
		used = ob.pos;
		if (ZSTD_isError(hint))
			err = -EBADMSG;
		else if (total > limit)
			err = -EFBIG;
		else if (hint == 0 && ib.pos == ib.size)
			break;
		else if (ib.pos == ib.size && ob.pos < ob.size)
			err = -ENODATA; /* all input consumed, room left, frame not finished */
	}
	ZSTD_freeDStream(ds);
	*out_len = used;
	return err;
}

/* Opens the library that decodes c: 0, or why not (-EPROTONOSUPPORT for
 * what modrot does not decode itself). */
static int open_decoder(enum rot_compression c)
{
	return c == ROT_COMP_XZ ? dl_lzma() : c == ROT_COMP_ZSTD ? dl_zstd() : -EPROTONOSUPPORT;
}

/* Decodes into *out (malloc'd, within limit), or, with scratch, only counts. */
static int decode(enum rot_compression c, const void *in, size_t len, size_t limit,
		  unsigned char *scratch, unsigned char **out, size_t *out_len)
{
	unsigned char *buf = NULL;
	size_t cap = 0, used;
	int err;

	/* The stream usually says its size: an honest module then gets one
	 * allocation, and is not copied as the buffer grows. The size is only
	 * a hint (the data may end sooner): a few bytes of input do not buy a
	 * huge allocation, the buffer grows as output really arrives. */
	uint64_t size = declared_size(c, in, len);
	if (size > limit)
		return -EFBIG;
	size_t plausible = len < SIZE_MAX / 64 ? len * 64 : SIZE_MAX;
	size_t want = (size_t)(size < plausible ? size : plausible);
	if (!scratch && want && (err = grow(&buf, &cap, want < limit ? want + 1 : want, limit)) < 0)
		return err;
	err = c == ROT_COMP_XZ ? unxz(in, len, limit, scratch, &buf, &cap, &used)
			       : unzstd(in, len, limit, scratch, &buf, &cap, &used);
	if (err < 0) {
		free(buf);
		return err;
	}
	*out = buf;
	*out_len = used;
	return 0;
}

int decompressed_size_check(enum rot_compression c, const void *in, size_t len, size_t limit)
{
	unsigned char *scratch, *none;
	size_t total;
	int err = open_decoder(c);

	if (err < 0)
		return err;
	if (!(scratch = malloc(SCRATCH_SIZE)))
		return -ENOMEM;
	err = decode(c, in, len, limit, scratch, &none, &total);
	free(scratch);
	return err;
}

int decompress_whole(enum rot_compression c, const void *in, size_t len, size_t limit, void **out,
		     size_t *out_len)
{
	unsigned char *buf = NULL;
	int err = open_decoder(c);

	if (err < 0)
		return err;
	/* Decoded once when it says its size (every module depmod indexes
	 * does), held to that; counted first, as the header says, when it
	 * says none or less than it holds (several streams or frames). */
	uint64_t declared = declared_size(c, in, len);
	err = -EFBIG;
	if (declared && declared <= limit)
		/* one byte past it: the decoder needs room to see the end */
		err = decode(c, in, len, (size_t)declared + 1, NULL, &buf, out_len);
	if (err == -EFBIG) {
		err = decompressed_size_check(c, in, len, limit);
		if (err == 0)
			err = decode(c, in, len, limit, NULL, &buf, out_len);
	}
	if (err == 0)
		*out = buf;
	return err;
}
