// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * dcsim-check's usage and --help text: the forms of the command line, the
 * exit statuses, the environment and the cache (docs/dcsim-check.md).
 */

#include <stdio.h>

#include "check.h"

static const char usage_text[] =
	"usage: dcsim-check [--load LIB.so]... --strategy NAME\n"
	"                   [--suites diff,explore,stress,misuse] [--seed N]\n"
	"                   [--budget quick|default|soak] [--trace FILE]\n"
	"                   [--diff-steps N] [--jobs N] [--shard I/N] [--no-pin]\n"
	"                   [--scenario NAME --explore-mode random|pct --execution-seed N\n"
	"                    [--pct-steps K]] [--scenarios A,B,...] [--fault NAME]\n"
	"                   [--sched fair|strict|rt|window] [--window-dump FILE]\n"
	"                   [--window-target FUNC:LINE[:hold]] [--trace-steps N] [--json FILE]\n"
	"                   [--junit FILE] [--handoff fiber|ucontext|pthread]\n"
	"       dcsim-check [--load LIB.so]... --corpus DIR [--budget B]\n"
	"       dcsim-check --kernel-tree 6.1|6.12|TARBALL --kernel-patch PATCH...\n"
	"                   [--require-coverage] [--suites ...] [--seed N] [--budget ...]\n"
	"                   [--jobs N] ...\n"
	"       dcsim-check --merge SHARD.json... [--json FILE]\n"
	"       dcsim-check --cache-clean\n"
	"       dcsim-check [--load LIB.so]... --list\n";

static const char help_text[] =
	"\n"
	"PATCH: a patch file (git format-patch output, several in one mbox, or diff -u),\n"
	"a quilt series file, or a directory (its series file, else its *.patch files).\n"
	"\n"
	"Exit status:\n"
	"  0   every check passed\n"
	"  1   a check failed (or the code under test crashed): the report ends in a\n"
	"      \"replay:\" line that reruns it\n"
	"  2   bad usage: an unknown option, strategy or suite, a library that does not\n"
	"      load, a kernel patch that is empty, changes nothing, does not apply or\n"
	"      does not build\n"
	"  3   every check passed, but --require-coverage: a changed line never ran\n"
	"  77  the --kernel-tree tarball is missing (the message names the package)\n"
	"\n"
	"Environment:\n"
	"  DCSIM_CACHE_DIR     the cache of --kernel-patch builds (default:\n"
	"                      $XDG_CACHE_HOME/dcsim, else ~/.cache/dcsim); builds go to\n"
	"                      its kernel/ folder, one per tree, patches and compiler;\n"
	"                      --cache-clean empties it\n"
	"  DCSIM_CACHE_MAX_ENTRIES, DCSIM_CACHE_MAX_MB\n"
	"                      the cache's bound (default 64 builds, 256 MB): the least\n"
	"                      recently used builds beyond it are removed after each run\n"
	"  DCSIM_KC_ROOT, DCSIM_KC_INCLUDE\n"
	"                      where kpatch.py and the headers are, for a moved install\n"
	"  DCSIM_EXPLORE_TRACE the steps of interleaving a failure report prints (as\n"
	"                      --trace-steps N, which wins; default 80)\n"
	"  DCSIM_EXPLORE_WATCHDOG\n"
	"                      the explorer's watchdog (seconds)\n"
	"  TMPDIR              where the coverage counts are written during a run\n"
	"\n"
	"docs/dcsim-check.md is the guide.\n";

void check_usage(FILE *f, bool help)
{
	fputs(usage_text, f);
	if (help)
		fputs(help_text, f);
}
