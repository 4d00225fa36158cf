// SPDX-License-Identifier: LGPL-2.1-or-later
/* Options shared by the checker suites (<dcsim/checker.h>). */

#include <errno.h>
#include <string.h>

#include <dcsim/checker.h>

void dcsim_checker_opts_init(struct dcsim_checker_opts *opts)
{
	memset(opts, 0, sizeof(*opts));
	opts->budget = DCSIM_BUDGET_QUICK;
	opts->seed = 20130930;
}

int dcsim_checker_budget_parse(const char *str, enum dcsim_checker_budget *out)
{
	static const char *const b[] = { "quick", "default", "soak" };

	for (int i = 0; i < 3; i++) {
		if (str && !strcmp(str, b[i])) {
			*out = (enum dcsim_checker_budget)i;
			return 0;
		}
	}
	return -EINVAL;
}
