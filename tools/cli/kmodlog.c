// SPDX-License-Identifier: GPL-2.0-or-later
#include <dlfcn.h>
#include <errno.h>
#include <libkmod.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <syslog.h>
#include <unistd.h>

#include "cli-errors.h"
#include "cli-msg.h"
#include "kmodlog.h"
#include "modrot.h"

/* One libkmod line: errors and warnings as the tool's, the rest only with -v. */
static void say(int priority, const char *msg)
{
	if (cli_is_quiet())
		return;
	if (priority <= LOG_ERR)
		cli_error("libkmod: %s", msg);
	else if (priority == LOG_WARNING)
		cli_warn("libkmod: %s", msg);
	else
		cli_info("libkmod: %s", msg);
}

static void kmod_log(void *data, int priority, const char *file, int line, const char *fn,
		     const char *format, va_list args)
{
	char msg[1024];
	/* libkmod goes on after it logs, and errno is the one trace of what
	 * it lost (kmod_lost()): writing the line must not change it. */
	int saved_errno = errno;
	(void)data, (void)file, (void)line;
	int n = snprintf(msg, sizeof(msg), "%s: ", fn ? fn : "?");
	if (n < 0 || (size_t)n >= sizeof(msg))
		n = 0;
	vsnprintf(msg + n, sizeof(msg) - (size_t)n, format, args);
	msg[strcspn(msg, "\n")] = '\0';
	say(priority, msg);
	errno = saved_errno;
}

/* "libkmod: ERROR[ file:line] fn: message", as libkmod's stderr logger
 * writes it: the priority from the word, the rest as the message. */
static void replay_line(char *line)
{
	static const struct {
		const char *word;
		int priority;
	} words[] = { { "ERROR", LOG_ERR },   { "WARNING", LOG_WARNING }, { "NOTICE", LOG_NOTICE },
		      { "INFO", LOG_INFO },   { "DEBUG", LOG_DEBUG },     { "CRITICAL", LOG_CRIT },
		      { "ALERT", LOG_ALERT }, { "EMERGENCY", LOG_EMERG } };
	int priority = LOG_ERR;
	char *p = line;
	if (!strncmp(p, "libkmod: ", 9))
		p += 9;
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		size_t n = strlen(words[i].word);
		if (!strncmp(p, words[i].word, n) && (p[n] == ' ' || p[n] == ':')) {
			priority = words[i].priority;
			p += n + (p[n] == ':');
			p += strspn(p, " ");
			break;
		}
	}
	/* A debug build adds "file:line " before the function. */
	char *space = strchr(p, ' ');
	if (space && space > p && space[-1] != ':' && memchr(p, ':', (size_t)(space - p)))
		p = space + 1;
	if (*p)
		say(priority, p);
}

/* Each line libkmod wrote while it was caught, told again (NUL-terminated). */
static void replay(char *text)
{
	for (char *line = text, *next; *line; line = next) {
		next = line + strcspn(line, "\n");
		if (*next)
			*next++ = '\0';
		replay_line(line);
	}
}

struct kmod_ctx *cli_kmod_new(const char *dirname, const char *const *config_paths)
{
	/* Until a log function is set, libkmod's default logger writes to the
	 * stream stderr names when kmod_new() starts. glibc lets a program set
	 * stderr: a stream in memory takes the lines, with no system call.
	 * Without one, they are lost rather than printed unsanitised. */
	fflush(stderr);
	char *text = NULL;
	size_t len = 0;
	FILE *real = stderr, *mem = open_memstream(&text, &len);
	if (mem)
		stderr = mem;
	else
		setenv("KMOD_LOG", "0", 1);
	kmod_trace_start();
	struct kmod_ctx *ctx = kmod_new(dirname, config_paths);
	int lost = kmod_lost();
	if (mem) {
		stderr = real;
		/* fclose() leaves text NUL-terminated, or NULL when nothing could
		 * be kept. */
		if (fclose(mem) == 0 && text)
			replay(text);
		free(text);
	}
	if (ctx && lost) {
		/* A configuration with lines missing is no configuration. */
		kmod_unref(ctx);
		errno = -lost;
		return NULL;
	}
	if (ctx) {
		kmod_set_log_fn(ctx, kmod_log, NULL);
		if (!mem)
			kmod_set_log_priority(ctx, LOG_ERR);
	}
	return ctx;
}

void kmod_trace_start(void)
{
	errno = 0;
}

int kmod_lost(void)
{
	return errno == ENOMEM || errno == EIO ? -errno : 0;
}

/* The image in a memory file, as libkmod would see a plain module file:
 * its descriptor, or -errno; path is the name libkmod opens it by. */
static int image_file(const void *image, size_t len, char path[64])
{
	int fd = memfd_create("module", MFD_CLOEXEC);
	if (fd < 0)
		return -errno;
	for (size_t done = 0; done < len;) {
		ssize_t n = write(fd, (const char *)image + done, len - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			int err = n < 0 ? -errno : -EIO;
			close(fd);
			return err;
		}
		done += (size_t)n;
	}
	snprintf(path, 64, "/proc/self/fd/%d", fd);
	return fd;
}

int cli_kmod_new_from_name_lookup(struct kmod_ctx *ctx, const char *name, struct kmod_module **mod)
{
	static const char *const versions[] = { "LIBKMOD_30", "LIBKMOD_5" };
	*mod = NULL;
	for (size_t i = 0; i < sizeof(versions) / sizeof(versions[0]); i++) {
		void *sym = dlvsym(RTLD_DEFAULT, "kmod_module_new_from_name_lookup", versions[i]);
		if (sym) {
			int (*fn)(struct kmod_ctx *, const char *, struct kmod_module **);
			memcpy(&fn, &sym, sizeof(fn));
			return fn(ctx, name, mod);
		}
	}
	return -ENOSYS;
}

int cli_kmod_get_info(struct kmod_ctx *ctx, struct kmod_module *mod, const void *image, size_t len,
		      struct kmod_list **info)
{
	/* errno is kmod_lost()'s trace: only libkmod's calls may leave it */
	int saved = errno;
	char path[64];
	int fd = image ? image_file(image, len, path) : -1;
	struct kmod_module *m = NULL;
	/* fails only out of memory, or when ctx knows a module of the
	 * descriptor's number by another path: then mod's file */
	if (fd >= 0 && kmod_module_new_from_path(ctx, path, &m) < 0)
		m = NULL;
	errno = saved;
	int err = kmod_module_get_info(m ? m : mod, info);
	saved = errno;
	kmod_module_unref(m);
	if (fd >= 0)
		close(fd);
	errno = saved;
	return err;
}

int cli_kmod_insert_image(struct kmod_ctx *ctx, const void *image, size_t len, unsigned flags,
			  const char *options)
{
	char path[64];
	int fd = image_file(image, len, path);
	if (fd < 0)
		return fd;
	struct kmod_module *m;
	int err = kmod_module_new_from_path(ctx, path, &m);
	if (err == 0) {
		err = kmod_module_insert_module(m, flags, options);
		kmod_module_unref(m);
	}
	close(fd);
	return err;
}

int cli_moddir_check(const char *moddir)
{
	const char *index;
	int err = rot_moddir_check(moddir, &index);

	if (err == 0)
		return 0;
	if (!index)
		cli_error("could not check the module indexes in %s: %s", moddir, cli_strerror(err));
	else if (err == -EINVAL)
		cli_error("%s/%s is corrupt (run depmod)", moddir, index);
	else if (err == -EISDIR)
		cli_error("%s/%s is not a regular file (run depmod)", moddir, index);
	else if (err == -EFBIG)
		cli_error("%s/%s is larger than any index depmod writes (run depmod)", moddir,
			  index);
	else
		cli_error("could not read %s/%s: %s", moddir, index, cli_strerror(err));
	return err;
}
