// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Runs a fuzz harness over files without libFuzzer: the regression inputs
 * and seed corpora run this way in the normal test suite (built with gcc,
 * and under ASan+UBSan in --sanitize builds). Directories are walked one
 * level deep. Prints TAP, one line per input.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int count;

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		printf("not ok %d - %s: cannot open\n", ++count, path);
		return 1;
	}
	size_t cap = 4096, len = 0;
	uint8_t *buf = malloc(cap);
	for (size_t n; buf && (n = fread(buf + len, 1, cap - len, f)) > 0;) {
		len += n;
		if (len == cap) {
			uint8_t *grown = realloc(buf, cap *= 2);
			if (!grown) {
				free(buf);
				buf = NULL;
			}
			buf = grown;
		}
	}
	fclose(f);
	if (!buf) {
		printf("not ok %d - %s: out of memory\n", ++count, path);
		return 1;
	}
	/* An exact-size copy, so that reading past the input is caught. */
	uint8_t *exact = malloc(len ? len : 1);
	memcpy(exact, buf, len);
	free(buf);
	LLVMFuzzerTestOneInput(exact, len);
	free(exact);
	printf("ok %d - %s\n", ++count, path);
	return 0;
}

static void run_dir_of(const char *top, const char *kind, int *bad);

int main(int argc, char *argv[])
{
	int bad = 0;
#ifdef FUZZ_HARNESS
	/* Without arguments (make check): the harness's seeds and regression inputs. */
	if (argc == 1) {
		const char *top = getenv("top_srcdir");
		run_dir_of(top ? top : "..", "corpus", &bad);
		run_dir_of(top ? top : "..", "regress", &bad);
		printf("1..%d\n", count);
		return bad;
	}
#endif
	for (int i = 1; i < argc; i++) {
		struct stat st;
		if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode)) {
			DIR *d = opendir(argv[i]);
			for (struct dirent *e; d && (e = readdir(d));) {
				if (e->d_name[0] == '.')
					continue;
				char path[4096];
				snprintf(path, sizeof(path), "%s/%s", argv[i], e->d_name);
				bad |= run_file(path);
			}
			if (d)
				closedir(d);
		} else {
			bad |= run_file(argv[i]);
		}
	}
	printf("1..%d\n", count);
	return bad;
}

static void run_dir_of(const char *top, const char *kind, int *bad)
{
#ifdef FUZZ_HARNESS
	char dir[4096];
	snprintf(dir, sizeof(dir), "%s/tests/fuzz/%s/%s", top, kind, FUZZ_HARNESS);
	DIR *d = opendir(dir);
	if (!d) {
		printf("not ok %d - %s: cannot open\n", ++count, dir);
		*bad = 1;
		return;
	}
	for (struct dirent *e; (e = readdir(d));) {
		char path[8192];
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		*bad |= run_file(path);
	}
	closedir(d);
#else
	(void)top;
	(void)kind;
	(void)bad;
#endif
}
