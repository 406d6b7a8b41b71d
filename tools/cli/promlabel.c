// SPDX-License-Identifier: GPL-2.0-or-later
#include "cli-escape.h"
#include "outbuf.h"
#include "promlabel.h"

void prom_label_escape(struct outbuf *o, const char *s, size_t n)
{
	static const char hex[] = "0123456789ABCDEF";
	const unsigned char *p = (const unsigned char *)s;
	for (size_t i = 0; i < n;) {
		size_t len = p[i] ? cli_utf8_len(p + i, n - i) : 0;
		if (len == 0) {
			/* \xHH of the first layer; its backslash escaped by the second. */
			char esc[5] = { '\\', '\\', 'x', hex[p[i] >> 4], hex[p[i] & 15] };
			outbuf_put(o, esc, sizeof(esc));
			i++;
		} else if (p[i] == '\\') {
			/* Two backslashes in the first layer, each escaped. */
			outbuf_put(o, "\\\\\\\\", 4);
			i++;
		} else if (p[i] == '"') {
			outbuf_put(o, "\\\"", 2);
			i++;
		} else if (p[i] == '\n') {
			outbuf_put(o, "\\n", 2);
			i++;
		} else {
			outbuf_put(o, s + i, len);
			i += len;
		}
	}
}
