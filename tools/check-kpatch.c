// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * dcsim-check --kernel-tree TREE --kernel-patch FILE...: kernel-code/kpatch.py
 * builds the tree's dput path with the patches into a cache directory and
 * prints "KPATCH <shared object> <strategy>"; the object is loaded here as
 * a plugin, whose dcsim_plugin_init() registers the strategy.
 */

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

#define MAX_PATCHES	16

/* Where kpatch.py and the shims are: see dcsim-check.c's head comment. */
static int kc_paths(char *root, size_t rlen, char *incs, size_t ilen)
{
	const char *env = getenv("DCSIM_KC_ROOT");
	char exe[PATH_MAX], dir[PATH_MAX], probe[PATH_MAX + 64];
	ssize_t n;

	if (env && *env) {
		const char *inc = getenv("DCSIM_KC_INCLUDE");

		if (!inc || !*inc) {
			fputs("dcsim-check: DCSIM_KC_ROOT needs DCSIM_KC_INCLUDE (the directory "
			      "holding dcsim/checker.h)\n", stderr);
			return -1;
		}
		snprintf(root, rlen, "%s", env);
		snprintf(incs, ilen, "%s", inc);
		return 0;
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		char *slash;

		exe[n] = '\0';
		if (!strcmp(exe, DCSIM_KC_BUILD_EXE)) {
			/* The build tree's program: the source tree's kernel-code/. */
			snprintf(root, rlen, "%s", DCSIM_KC_SRC_ROOT);
			snprintf(incs, ilen, "%s:%s", DCSIM_KC_SRC_INCLUDE, DCSIM_KC_BUILD_INCLUDE);
			return 0;
		}
		snprintf(dir, sizeof(dir), "%s", exe);
		slash = strrchr(dir, '/');
		if (slash && DCSIM_KC_ROOT_REL[0]) {
			*slash = '\0';
			/* A relocated prefix (DESTDIR, a moved tree): beside the program. */
			snprintf(probe, sizeof(probe), "%s/%s/kernel-code/kpatch.py", dir,
				 DCSIM_KC_ROOT_REL);
			if (!access(probe, R_OK) &&
			    (size_t)snprintf(root, rlen, "%s/%s", dir, DCSIM_KC_ROOT_REL) < rlen &&
			    (size_t)snprintf(incs, ilen, "%s/%s", dir, DCSIM_KC_INCLUDE_REL) < ilen)
				return 0;
		}
	}
	snprintf(root, rlen, "%s", DCSIM_KC_ROOT_ABS);
	snprintf(incs, ilen, "%s", DCSIM_KC_INCLUDE_ABS);
	snprintf(probe, sizeof(probe), "%s/kernel-code/kpatch.py", root);
	if (access(probe, R_OK)) {
		fprintf(stderr, "dcsim-check: --kernel-patch: %s not found: this dcsim-check was "
			"installed without kernel-code/ (a cross or sanitizer build?); set "
			"DCSIM_KC_ROOT and DCSIM_KC_INCLUDE\n", probe);
		return -1;
	}
	return 0;
}

int check_cache_dir(char *dir, size_t len)
{
	const char *env;

	if ((env = getenv("DCSIM_CACHE_DIR")) && *env)
		snprintf(dir, len, "%s", env);
	else if ((env = getenv("XDG_CACHE_HOME")) && *env)
		snprintf(dir, len, "%s/dcsim", env);
	else if ((env = getenv("HOME")) && *env)
		snprintf(dir, len, "%s/.cache/dcsim", env);
	else
		return fputs("dcsim-check: no cache directory: set DCSIM_CACHE_DIR, "
			     "XDG_CACHE_HOME or HOME\n", stderr), -1;
	return 0;
}

/* See check.h. */
int check_kernel_patch(const char *tree, const char *const *patches, unsigned int npatches,
		       char *name, size_t len)
{
	char root[PATH_MAX], incs[2 * PATH_MAX + 2], script[PATH_MAX + 32], cache[PATH_MAX];
	char line[2 * PATH_MAX], so[PATH_MAX], why[512];
	const char *argv[16 + 2 * MAX_PATCHES + 2 * 8];
	unsigned int argc = 0;
	int p[2], status, got = 0;
	bool init;
	pid_t pid;
	FILE *f;

	if (kc_paths(root, sizeof(root), incs, sizeof(incs)))
		return 2;
	if (check_cache_dir(cache, sizeof(cache)))
		return 2;
	snprintf(script, sizeof(script), "%s/kernel-code/kpatch.py", root);
	argv[argc++] = "python3";
	argv[argc++] = script;
	argv[argc++] = "--root";
	argv[argc++] = root;
	argv[argc++] = "--cache";
	argv[argc++] = cache;
	argv[argc++] = "--tree";
	argv[argc++] = tree;
	for (char *s = incs, *save = NULL, *t; (t = strtok_r(s, ":", &save)) && argc < 30; s = NULL) {
		argv[argc++] = "--include";
		argv[argc++] = t;
	}
	for (unsigned int i = 0; i < npatches; i++) {
		argv[argc++] = "--patch";
		argv[argc++] = patches[i];
	}
	argv[argc] = NULL;
	if (pipe(p))
		return fprintf(stderr, "dcsim-check: pipe: %s\n", strerror(errno)), 2;
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0)
		return fprintf(stderr, "dcsim-check: fork: %s\n", strerror(errno)), 2;
	if (pid == 0) {
		dup2(p[1], 1);
		close(p[0]);
		close(p[1]);
		execvp(argv[0], (char *const *)argv);
		fprintf(stderr, "dcsim-check: --kernel-patch: cannot run python3: %s\n",
			strerror(errno));
		_exit(2);
	}
	close(p[1]);
	f = fdopen(p[0], "r");
	while (f && fgets(line, sizeof(line), f)) {
		char n[256];

		/* "KPATCH <shared object> <strategy>" */
		if (sscanf(line, "KPATCH %4095s %255s", so, n) == 2) {
			snprintf(name, len, "%s", n);
			got = 1;
		} else {
			fputs(line, stderr);
		}
	}
	if (f)
		fclose(f);
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status))
		return fputs("dcsim-check: --kernel-patch: kpatch.py died\n", stderr), 2;
	if (WEXITSTATUS(status) == 77)
		return 77;
	if (WEXITSTATUS(status) || !got) {
		fprintf(stderr, "dcsim-check: --kernel-tree %s: the patched tree was not built "
			"(above: why); no strategy registered\n", tree);
		return 2;
	}
	if (dcsim_strategy_load(so, &init, why, sizeof(why)) < 0 || !dcsim_strategy_lookup(name)) {
		fprintf(stderr, "dcsim-check: --kernel-patch: %s did not register %s: %s\n", so,
			name, why);
		return 2;
	}
	fprintf(stderr, "dcsim-check: loaded %s as strategy %s\n", so, name);
	return check_cov_begin(so, root) ? 2 : 0;
}
