// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Output files that are never left half written (outfile.h): each is
 * written to a temporary file in its own directory and renamed over the
 * name asked for only when complete, so a failed run, a bad input or an
 * interrupt leaves the previous file as it was.  SIGINT, SIGTERM and
 * SIGHUP remove the temporary files and then end the process as the
 * signal would have.  A path that exists and is not a regular file
 * (/dev/null, a pipe, a terminal) is written in place: there is nothing
 * to keep and nothing to rename.
 */

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/stat.h>
#include <unistd.h>

#include "outfile.h"

#define PROG "dcsim-bench"
#define MAX_PENDING	8

/*
 * The temporary files not yet renamed, for the signal handler: a slot is
 * filled before its 'used' flag is set and the flag cleared before the
 * slot is reused, so the handler only ever reads a complete name.
 */
static char pending[MAX_PENDING][PATH_MAX];
static volatile sig_atomic_t pending_used[MAX_PENDING];

static void on_signal(int sig)
{
	for (int i = 0; i < MAX_PENDING; i++)
		if (pending_used[i])
			unlink(pending[i]);	/* async-signal-safe */
	signal(sig, SIG_DFL);
	raise(sig);
}

void bench_out_signals(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };

	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		struct sigaction sa, old;

		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_signal;
		sigemptyset(&sa.sa_mask);
		/* A signal ignored by the parent (nohup) stays ignored. */
		if (!sigaction(sigs[i], NULL, &old) && old.sa_handler == SIG_IGN)
			continue;
		sigaction(sigs[i], &sa, NULL);
	}
}

static int pend(const char *tmp)
{
	for (int i = 0; i < MAX_PENDING; i++) {
		if (pending_used[i])
			continue;
		snprintf(pending[i], sizeof(pending[i]), "%s", tmp);
		pending_used[i] = 1;
		return i;
	}
	return -1;
}

static void unpend(int slot)
{
	if (slot >= 0)
		pending_used[slot] = 0;
}

int bench_out_reserve(struct bench_out *o, const char *path, const char *what)
{
	struct stat st;
	const char *slash;
	mode_t mask;
	int fd;

	memset(o, 0, sizeof(*o));
	o->slot = -1;
	o->path = path;
	o->what = what;
	if (!stat(path, &st) && !S_ISREG(st.st_mode)) {
		o->in_place = true;
		return 0;
	}
	slash = strrchr(path, '/');
	if ((size_t)snprintf(o->tmp, sizeof(o->tmp), "%.*s.%s.XXXXXX",
			     slash ? (int)(slash - path + 1) : 0, path,
			     slash ? slash + 1 : path) >= sizeof(o->tmp)) {
		fprintf(stderr, PROG ": %s: cannot write '%s': the name is too long\n", what, path);
		return -1;
	}
	fd = mkstemp(o->tmp);
	if (fd < 0) {
		fprintf(stderr, PROG ": %s: cannot write '%s': %s\n", what, path, strerror(errno));
		return -1;
	}
	/* mkstemp() makes it 0600; a new report gets the usual 0666 less the umask. */
	mask = umask(0);
	umask(mask);
	if (fchmod(fd, 0666 & ~mask) || (o->slot = pend(o->tmp)) < 0) {
		fprintf(stderr, PROG ": %s: cannot write '%s': %s\n", what, path,
			o->slot < 0 ? "too many output files" : strerror(errno));
		close(fd);
		unlink(o->tmp);
		return -1;
	}
	o->fd = fd;
	return 0;
}

int bench_out_open(struct bench_out *o, const char *path, const char *what)
{
	if (bench_out_reserve(o, path, what))
		return -1;
	if (o->in_place)
		o->f = fopen(path, "w");
	else
		o->f = fdopen(o->fd, "w");
	if (!o->f) {
		fprintf(stderr, PROG ": %s: cannot write '%s': %s\n", what, path, strerror(errno));
		bench_out_abort(o);
		return -1;
	}
	return 0;
}

int bench_out_commit(struct bench_out *o)
{
	int err = 0;

	if (o->f) {
		/* Flushed and on disk before the rename: a crash leaves old or new, not empty. */
		if (fflush(o->f) || (!o->in_place && fsync(fileno(o->f))))
			err = errno;
		if (fclose(o->f) && !err)
			err = errno;
		o->f = NULL;
	} else if (!o->in_place && o->fd > 0) {
		close(o->fd);
	}
	o->fd = -1;
	if (!err && !o->in_place && rename(o->tmp, o->path))
		err = errno;
	if (err) {
		fprintf(stderr, PROG ": %s: writing '%s' failed: %s; the previous file is "
			"unchanged\n", o->what, o->path, strerror(err));
		if (!o->in_place)
			unlink(o->tmp);
	}
	unpend(o->slot);
	o->slot = -1;
	return err ? -1 : 0;
}

void bench_out_abort(struct bench_out *o)
{
	if (o->f)
		fclose(o->f);
	else if (!o->in_place && o->fd > 0)
		close(o->fd);
	o->f = NULL;
	o->fd = -1;
	if (!o->in_place && o->tmp[0])
		unlink(o->tmp);
	unpend(o->slot);
	o->slot = -1;
}
