/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef DCSIM_BENCH_OUTFILE_H
#define DCSIM_BENCH_OUTFILE_H

/*
 * dcsim-bench's output files (-o, --save, --plot): written to a temporary
 * file beside the target and renamed over it when complete (outfile.c).
 * Usage: bench_out_open(), write to ->f, then bench_out_commit() on
 * success or bench_out_abort() on failure; or bench_out_reserve() for a
 * file another program writes (gnuplot's PNG at ->tmp).
 */

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>

struct bench_out {
	const char *path;	/* the name asked for */
	const char *what;	/* the option, for messages */
	char tmp[PATH_MAX];	/* the temporary file beside it */
	FILE *f;
	int fd;
	int slot;		/* in the signal handler's list; -1: not in it */
	bool in_place;		/* not a regular file: written directly */
};

/* Install the SIGINT/SIGTERM/SIGHUP handlers that remove pending temporary files. */
void bench_out_signals(void);

/**
 * bench_out_open() - a temporary file for @path, open for writing at ->f.
 * Return: 0, or -1 with a message naming @what and @path (nothing created).
 */
int bench_out_open(struct bench_out *o, const char *path, const char *what);

/**
 * bench_out_reserve() - a temporary file for @path (created empty, at ->tmp)
 * for another program to write; bench_out_commit() renames it.
 * Return: 0, or -1 with a message.
 */
int bench_out_reserve(struct bench_out *o, const char *path, const char *what);

/**
 * bench_out_commit() - flush, sync and rename the file over @path.
 * Return: 0, or -1 with a message (the temporary file removed, @path unchanged).
 */
int bench_out_commit(struct bench_out *o);

/* bench_out_abort() - remove the temporary file; @path stays as it was. */
void bench_out_abort(struct bench_out *o);

#endif /* DCSIM_BENCH_OUTFILE_H */
