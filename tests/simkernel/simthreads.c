// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * simthreads: threads of one process loading and unloading modules at the
 * same time, to prove the state lock excludes threads as well as processes.
 *
 *   simthreads THREADS ROUNDS FILE.ko...
 *
 * Thread t works on FILE[t % n]: init_module, then delete_module. Several
 * threads share a file, so EEXIST, ENOENT and EBUSY are expected answers;
 * anything else is reported and fails the run.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int init_module(void *image, unsigned long len, const char *params);
int delete_module(const char *name, unsigned int flags);

struct image {
	char *data;
	size_t len;
	char name[64];
};

static struct image *images;
static int nimages, rounds, failures;
static int loads_ok, unloads_ok;

static void *worker(void *arg)
{
	long t = (long)arg;
	const struct image *im = &images[t % nimages];
	for (int r = 0; r < rounds; r++) {
		if (init_module(im->data, im->len, "") == 0)
			__atomic_add_fetch(&loads_ok, 1, __ATOMIC_RELAXED);
		else if (errno != EEXIST) {
			fprintf(stderr, "thread %ld: init_module %s: %s\n", t, im->name, strerror(errno));
			__atomic_add_fetch(&failures, 1, __ATOMIC_RELAXED);
		}
		if (delete_module(im->name, O_NONBLOCK) == 0)
			__atomic_add_fetch(&unloads_ok, 1, __ATOMIC_RELAXED);
		else if (errno != ENOENT && errno != EBUSY) {
			fprintf(stderr, "thread %ld: delete_module %s: %s\n", t, im->name, strerror(errno));
			__atomic_add_fetch(&failures, 1, __ATOMIC_RELAXED);
		}
	}
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc < 4) {
		fputs("usage: simthreads THREADS ROUNDS FILE.ko...\n", stderr);
		return 2;
	}
	int nthreads = atoi(argv[1]);
	rounds = atoi(argv[2]);
	nimages = argc - 3;
	images = calloc((size_t)nimages, sizeof(*images));
	for (int i = 0; i < nimages; i++) {
		const char *path = argv[3 + i];
		struct stat st;
		int fd = open(path, O_RDONLY);
		if (fd < 0 || fstat(fd, &st) < 0) {
			perror(path);
			return 2;
		}
		images[i].len = (size_t)st.st_size;
		images[i].data = malloc(images[i].len);
		if (read(fd, images[i].data, images[i].len) != (ssize_t)images[i].len) {
			perror(path);
			return 2;
		}
		close(fd);
		/* the module name is the file name without .ko, dashes as underscores */
		const char *base = strrchr(path, '/');
		snprintf(images[i].name, sizeof(images[i].name), "%s", base ? base + 1 : path);
		char *dot = strstr(images[i].name, ".ko");
		if (dot)
			*dot = '\0';
		for (char *p = images[i].name; *p; p++)
			if (*p == '-')
				*p = '_';
	}
	pthread_t *th = calloc((size_t)nthreads, sizeof(*th));
	for (long t = 0; t < nthreads; t++)
		pthread_create(&th[t], NULL, worker, (void *)t);
	for (int t = 0; t < nthreads; t++)
		pthread_join(th[t], NULL);
	printf("loads %d unloads %d failures %d\n", loads_ok, unloads_ok, failures);
	return failures ? 1 : 0;
}
