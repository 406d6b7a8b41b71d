// SPDX-License-Identifier: GPL-2.0-or-later
/* The modules a run loads: the files named, and --from's list. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli-opts.h"
#include "insmod.h"
#include "load-words.h"
#include "modrot.h"

/* What no file name can be is refused before anything is done. */
static void refuse_non_file(const char *path)
{
	if (strcmp(path, "-") == 0)
		cli_usage_fail(
			"loading a module from standard input is not supported: give its file");
	if (!*path)
		cli_usage_fail("an empty module file name");
}

/* --from LIST, in insmod.h's form: "-" (standard input) or a regular file. */
static int read_list(const char *list, struct load_job **jobs, size_t *n)
{
	char *text;
	size_t len;
	/* Standard input may be a pipe or a terminal that never ends: the
	 * first SIGHUP, SIGINT or SIGTERM ends the read (the signals are
	 * caught without SA_RESTART meanwhile) with -EINTR. */
	int err = strcmp(list, "-") == 0 ? rot_fd_read(STDIN_FILENO, LIST_MAX, &text, &len)
					 : rot_file_read(list, LIST_MAX, &text, &len);
	if (err < 0)
		return err;
	if (memchr(text, '\0', len)) {
		free(text);
		return -EBADMSG;
	}
	char *save;
	for (char *line = strtok_r(text, "\n", &save); err == 0 && line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *p = line + strspn(line, " \t");
		p[strcspn(p, "\r")] = '\0';
		if (!*p || *p == '#')
			continue;
		size_t flen = strcspn(p, " \t");
		struct load_job *grown = realloc(*jobs, (*n + 1) * sizeof(**jobs));
		if (!grown) {
			err = -ENOMEM;
			break;
		}
		*jobs = grown;
		struct load_job *job = &(*jobs)[(*n)++];
		memset(job, 0, sizeof(*job));
		char *params = p + flen + strspn(p + flen, " \t");
		p[flen] = '\0';
		job->path = strdup(p);
		job->params = *params ? strdup(params) : NULL;
		if (!job->path || (*params && !job->params))
			err = -ENOMEM;
		else
			refuse_non_file(job->path);
	}
	free(text);
	return err;
}

int insmod_make_jobs(const struct insmod_opts *o, int argc, char *argv[], int first,
		     struct load_job **jobs, size_t *n)
{
	int err = o->list_path ? read_list(o->list_path, jobs, n) : 0;
	if (err < 0)
		return err;
	size_t files = o->batch ? (size_t)(argc - first) : (argc > first ? 1 : 0);
	struct load_job *grown = realloc(*jobs, (*n + files + 1) * sizeof(**jobs));
	if (!grown)
		return -ENOMEM;
	*jobs = grown;
	for (size_t i = 0; i < files; i++) {
		struct load_job *job = &(*jobs)[(*n)++];
		memset(job, 0, sizeof(*job));
		refuse_non_file(argv[first + (int)i]);
		job->path = strdup(argv[first + (int)i]);
		if (!job->path)
			return -ENOMEM;
	}
	if (!o->batch && argc > first + 1) {
		(*jobs)[0].params = params_join(argv + first + 1, (size_t)(argc - first - 1));
		if (!(*jobs)[0].params)
			return -ENOMEM;
	}
	return 0;
}
