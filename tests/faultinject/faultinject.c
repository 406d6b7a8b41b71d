// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libfaultinject.so: a test preload that makes one operation of the
 * program fail, so that the error paths after it can be watched.
 *
 *   FAULTINJECT_ALLOC=N   the Nth allocation (malloc, calloc, realloc,
 *                         reallocarray, strdup, strndup, posix_memalign,
 *                         aligned_alloc, memalign, valloc) returns NULL
 *                         with ENOMEM; only that one
 *   FAULTINJECT_READ=N    the Nth read (read, pread, readv, fread, fgets,
 *                         getline, getdelim, fgetc/getc) fails with EIO;
 *                         only that one
 *   FAULTINJECT_WRITE=N   the Nth write to standard output fails with
 *                         ENOSPC, and so does every later one (a full
 *                         disk stays full); FAULTINJECT_WRITE_ERRNO=EIO
 *                         makes it EIO
 *   FAULTINJECT_LOG=FILE  appends "hit KIND N CALLER" when a failure is
 *                         injected and, at exit, "count KIND N" for each
 *                         kind, so a sweep knows when N has passed the
 *                         last operation
 *
 * The variables are read and cleared at start: the processes the program
 * starts run without faults.
 *
 * Only the program's own operations count, and those of every library it
 * uses (libkmod, libsmartcols, OpenSSL, libelf, libzstd, liblzma, libc
 * itself): an operation whose caller lies in the simulated kernel's
 * preload (libsimkernel.so) or in this library is passed through
 * uncounted, since the simulator stands in for the kernel and a real
 * kernel cannot run out of the program's memory. The caller is the
 * return address; a simulator call that reaches malloc through libc
 * (fdopendir, say) is counted as the program's.
 *
 * Standard output is routed through a cookie stream at start-up, so that
 * stdio's buffered writes, which glibc makes through an internal write
 * no preload can wrap, reach the counted write() too. The stream is fully
 * buffered with BUFSIZ bytes, as stdout on a file is.
 *
 * For the plain (not sanitised) build only: ASan insists on being the
 * first allocator and would refuse or bypass this one.
 */
#include <malloc.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))

/* glibc's own allocator, reachable without dlsym (which allocates). */
extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
extern void __libc_free(void *);

enum kind { K_ALLOC, K_READ, K_WRITE, K_KINDS };
static const char *const kind_name[K_KINDS] = { "alloc", "read", "write" };

static long fail_at[K_KINDS];           /* 0: never */
static atomic_long counter[K_KINDS];
static atomic_bool stdout_broken;
static int write_errno = ENOSPC;
static int log_fd = -1;
static bool ready;

/* Address ranges whose calls are not counted: the simulator and this library. */
#define MAX_RANGES 16
static struct range { uintptr_t lo, hi; } skip[MAX_RANGES];
static size_t nskip;

static bool skipped_caller(const void *ra)
{
	uintptr_t a = (uintptr_t)ra;
	for (size_t i = 0; i < nskip; i++)
		if (a >= skip[i].lo && a < skip[i].hi)
			return true;
	return false;
}

static int note_object(struct dl_phdr_info *info, size_t size, void *self)
{
	(void)size;
	const char *name = info->dlpi_name ? info->dlpi_name : "";
	bool ours = false;
	for (int i = 0; i < info->dlpi_phnum && !ours; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
		ours = ph->p_type == PT_LOAD && (uintptr_t)self >= lo && (uintptr_t)self < lo + ph->p_memsz;
	}
	if (!ours && !strstr(name, "libsimkernel"))
		return 0;
	for (int i = 0; i < info->dlpi_phnum && nskip < MAX_RANGES; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
			continue;
		skip[nskip].lo = info->dlpi_addr + ph->p_vaddr;
		skip[nskip].hi = skip[nskip].lo + ph->p_memsz;
		nskip++;
	}
	return 0;
}

/* Writes straight to the log: no stdio, no allocation, no counted write. */
static void log_line(const char *a, const char *b, long n, const void *ra)
{
	if (log_fd < 0)
		return;
	char line[512];
	Dl_info info;
	int len;
	/* The caller as object+offset (symbol), for a reader to look up. */
	if (ra && dladdr(ra, &info) && info.dli_fname) {
		const char *base = strrchr(info.dli_fname, '/');
		len = snprintf(line, sizeof(line), "%s %s %ld %s+%#lx (%s)\n", a, b, n,
			       base ? base + 1 : info.dli_fname,
			       (unsigned long)((uintptr_t)ra - (uintptr_t)info.dli_fbase),
			       info.dli_sname ? info.dli_sname : "?");
	} else {
		len = snprintf(line, sizeof(line), "%s %s %ld %p\n", a, b, n, ra);
	}
	if (len > 0)
		syscall(SYS_write, log_fd, line, (size_t)len);
}

/* True when this operation is the one to fail. */
static bool strike(enum kind k, const void *ra)
{
	if (!ready || !fail_at[k] || skipped_caller(ra))
		return false;
	long n = atomic_fetch_add(&counter[k], 1) + 1;
	if (n != fail_at[k])
		return false;
	log_line("hit", kind_name[k], n, ra);
	return true;
}

/* Counts without striking, for the totals at exit. */
static void tally(enum kind k, const void *ra)
{
	if (ready && !fail_at[k] && !skipped_caller(ra))
		atomic_fetch_add(&counter[k], 1);
}

static bool should_fail(enum kind k, const void *ra)
{
	if (fail_at[k])
		return strike(k, ra);
	tally(k, ra);
	return false;
}

/* ---- allocation ---- */

#define CALLER __builtin_return_address(0)

EXPORT void *malloc(size_t n)
{
	if (should_fail(K_ALLOC, CALLER)) {
		errno = ENOMEM;
		return NULL;
	}
	return __libc_malloc(n);
}

EXPORT void *calloc(size_t n, size_t size)
{
	if (should_fail(K_ALLOC, CALLER)) {
		errno = ENOMEM;
		return NULL;
	}
	return __libc_calloc(n, size);
}

EXPORT void *realloc(void *p, size_t n)
{
	/* realloc(p, 0) frees: that is no allocation to fail. */
	if ((!p || n) && should_fail(K_ALLOC, CALLER)) {
		errno = ENOMEM;
		return NULL;
	}
	return __libc_realloc(p, n);
}

EXPORT void *reallocarray(void *p, size_t n, size_t size)
{
	size_t bytes;
	if (__builtin_mul_overflow(n, size, &bytes)) {
		errno = ENOMEM;
		return NULL;
	}
	if (should_fail(K_ALLOC, CALLER)) {
		errno = ENOMEM;
		return NULL;
	}
	return __libc_realloc(p, bytes);
}

EXPORT char *strdup(const char *s)
{
	if (should_fail(K_ALLOC, CALLER)) {
		errno = ENOMEM;
		return NULL;
	}
	size_t n = strlen(s) + 1;
	char *d = __libc_malloc(n);
	return d ? memcpy(d, s, n) : NULL;
}

EXPORT char *strndup(const char *s, size_t max)
{
	if (should_fail(K_ALLOC, CALLER)) {
		errno = ENOMEM;
		return NULL;
	}
	size_t n = strnlen(s, max);
	char *d = __libc_malloc(n + 1);
	if (!d)
		return NULL;
	memcpy(d, s, n);
	d[n] = '\0';
	return d;
}

EXPORT int posix_memalign(void **out, size_t align, size_t n)
{
	if (align < sizeof(void *) || (align & (align - 1)))
		return EINVAL;
	if (should_fail(K_ALLOC, CALLER))
		return ENOMEM;
	void *p = __libc_memalign(align, n);
	if (!p)
		return ENOMEM;
	*out = p;
	return 0;
}

EXPORT void *aligned_alloc(size_t align, size_t n)
{
	if (should_fail(K_ALLOC, CALLER)) {
		errno = ENOMEM;
		return NULL;
	}
	return __libc_memalign(align, n);
}

EXPORT void *memalign(size_t align, size_t n)
{
	if (should_fail(K_ALLOC, CALLER)) {
		errno = ENOMEM;
		return NULL;
	}
	return __libc_memalign(align, n);
}

EXPORT void *valloc(size_t n)
{
	if (should_fail(K_ALLOC, CALLER)) {
		errno = ENOMEM;
		return NULL;
	}
	return __libc_memalign((size_t)sysconf(_SC_PAGESIZE), n);
}

/* ---- reads ---- */

static ssize_t (*next_read)(int, void *, size_t);
static ssize_t (*next_pread)(int, void *, size_t, off_t);
static ssize_t (*next_pread64)(int, void *, size_t, off64_t);
static ssize_t (*next_readv)(int, const struct iovec *, int);
static size_t (*next_fread)(void *, size_t, size_t, FILE *);
static char *(*next_fgets)(char *, int, FILE *);
static ssize_t (*next_getdelim)(char **, size_t *, int, FILE *);
static int (*next_fgetc)(FILE *);
static ssize_t (*next_write)(int, const void *, size_t);

EXPORT ssize_t read(int fd, void *buf, size_t n)
{
	if (should_fail(K_READ, CALLER)) {
		errno = EIO;
		return -1;
	}
	return next_read(fd, buf, n);
}

EXPORT ssize_t pread(int fd, void *buf, size_t n, off_t off)
{
	if (should_fail(K_READ, CALLER)) {
		errno = EIO;
		return -1;
	}
	return next_pread(fd, buf, n, off);
}

EXPORT ssize_t pread64(int fd, void *buf, size_t n, off64_t off)
{
	if (should_fail(K_READ, CALLER)) {
		errno = EIO;
		return -1;
	}
	return next_pread64(fd, buf, n, off);
}

EXPORT ssize_t readv(int fd, const struct iovec *iov, int n)
{
	if (should_fail(K_READ, CALLER)) {
		errno = EIO;
		return -1;
	}
	return next_readv(fd, iov, n);
}

/* A stdio read that fails leaves the stream's error flag set, as stdio's own do. */
static void stream_error(FILE *f)
{
	f->_flags |= _IO_ERR_SEEN;
	errno = EIO;
}

EXPORT size_t fread(void *buf, size_t size, size_t n, FILE *f)
{
	if (should_fail(K_READ, CALLER)) {
		stream_error(f);
		return 0;
	}
	return next_fread(buf, size, n, f);
}

EXPORT char *fgets(char *buf, int n, FILE *f)
{
	if (should_fail(K_READ, CALLER)) {
		stream_error(f);
		return NULL;
	}
	return next_fgets(buf, n, f);
}

EXPORT ssize_t getdelim(char **line, size_t *cap, int delim, FILE *f)
{
	if (should_fail(K_READ, CALLER)) {
		stream_error(f);
		return -1;
	}
	return next_getdelim(line, cap, delim, f);
}

EXPORT ssize_t getline(char **line, size_t *cap, FILE *f)
{
	if (should_fail(K_READ, CALLER)) {
		stream_error(f);
		return -1;
	}
	return next_getdelim(line, cap, '\n', f);
}

EXPORT int fgetc(FILE *f)
{
	if (should_fail(K_READ, CALLER)) {
		stream_error(f);
		return EOF;
	}
	return next_fgetc(f);
}

EXPORT int getc(FILE *f)
{
	if (should_fail(K_READ, CALLER)) {
		stream_error(f);
		return EOF;
	}
	return next_fgetc(f);
}

/* ---- writes to standard output ---- */

static ssize_t stdout_write(const void *buf, size_t n, const void *ra)
{
	if (atomic_load(&stdout_broken) || should_fail(K_WRITE, ra)) {
		atomic_store(&stdout_broken, true);
		errno = write_errno;
		return -1;
	}
	return next_write(STDOUT_FILENO, buf, n);
}

EXPORT ssize_t write(int fd, const void *buf, size_t n)
{
	if (fd == STDOUT_FILENO && !skipped_caller(CALLER))
		return stdout_write(buf, n, CALLER);
	return next_write(fd, buf, n);
}

static ssize_t cookie_write(void *cookie, const char *buf, size_t n)
{
	(void)cookie;
	size_t done = 0;
	while (done < n) {
		ssize_t w = stdout_write(buf + done, n - done, NULL);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return done ? (ssize_t)done : -1;
		done += (size_t)w;
	}
	return (ssize_t)done;
}

/* ---- set-up ---- */

static long env_number(const char *name)
{
	const char *v = getenv(name);
	return v && *v ? strtol(v, NULL, 10) : 0;
}

#define RESOLVE(sym) (next_##sym = (__typeof__(next_##sym))dlsym(RTLD_NEXT, #sym))

__attribute__((constructor)) static void faultinject_init(void)
{
	RESOLVE(read);
	RESOLVE(pread);
	RESOLVE(pread64);
	RESOLVE(readv);
	RESOLVE(fread);
	RESOLVE(fgets);
	RESOLVE(getdelim);
	RESOLVE(fgetc);
	RESOLVE(write);

	fail_at[K_ALLOC] = env_number("FAULTINJECT_ALLOC");
	fail_at[K_READ] = env_number("FAULTINJECT_READ");
	fail_at[K_WRITE] = env_number("FAULTINJECT_WRITE");
	const char *e = getenv("FAULTINJECT_WRITE_ERRNO");
	if (e && strcmp(e, "EIO") == 0)
		write_errno = EIO;
	const char *log = getenv("FAULTINJECT_LOG");
	if (log && *log)
		log_fd = open(log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	/* The fault is this program's, once: a child it starts (an install
	 * command's shell, a nested modprobe) keeps the preload but runs
	 * without a fault, and writes nothing to the log. Otherwise the child
	 * would fail its own Nth operation too, a second fault the program
	 * was blamed for. (The sweep hands the variables to the tool alone,
	 * through env after timeout.) */
	unsetenv("FAULTINJECT_ALLOC");
	unsetenv("FAULTINJECT_READ");
	unsetenv("FAULTINJECT_WRITE");
	unsetenv("FAULTINJECT_WRITE_ERRNO");
	unsetenv("FAULTINJECT_LOG");

	static const char here = 0;
	dl_iterate_phdr(note_object, (void *)&here);

	/* stdio's writes to stdout become counted write()s. */
	if (fail_at[K_WRITE]) {
		cookie_io_functions_t io = { .write = cookie_write };
		FILE *c = fopencookie(NULL, "w", io);
		if (c) {
			setvbuf(c, NULL, _IOFBF, BUFSIZ);
			stdout = c;
		}
	}
	ready = true;
}

__attribute__((destructor)) static void faultinject_fini(void)
{
	/* Flushes the cookie stream before the totals are written. */
	if (fail_at[K_WRITE])
		fflush(stdout);
	for (int k = 0; k < K_KINDS; k++)
		log_line("count", kind_name[k], atomic_load(&counter[k]), NULL);
}
