// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The strategy registry has no fixed limit: a plugin may register many
 * strategies (the corpus plugin registers one per kind (a) entry).  300
 * registrations, well past any one block of the registry, each found by
 * name and by index in registration order; a name registered twice is
 * refused; the built-ins stay where they were.
 */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include <errno.h>

#include <dcsim/strategy.h>

#define MANY	300

static enum dcsim_dput_path dput_never(struct dcsim_dentry *d)
{
	(void)d;
	return DCSIM_DPUT_PATH_LOCKED;
}

static char names[MANY][16];
static struct dcsim_dput_strategy many[MANY];

static void test_many(void **state)
{
	size_t before = dcsim_strategy_count();
	const struct dcsim_dput_strategy *fast = dcsim_strategy_lookup("fast");

	(void)state;
	assert_non_null(fast);
	for (int i = 0; i < MANY; i++) {
		snprintf(names[i], sizeof(names[i]), "many-%d", i);
		many[i] = (struct dcsim_dput_strategy){
			.name = names[i], .dput = dput_never,
			.retain_style = DCSIM_RETAIN_LRU_THEN_REFERENCED,
		};
		assert_int_equal(dcsim_strategy_register(&many[i]), 0);
	}
	assert_int_equal(dcsim_strategy_count(), before + MANY);
	for (int i = 0; i < MANY; i++) {
		assert_ptr_equal(dcsim_strategy_lookup(names[i]), &many[i]);
		assert_ptr_equal(dcsim_strategy_get(before + (size_t)i), &many[i]);
	}
	assert_null(dcsim_strategy_get(before + MANY));
	assert_int_equal(dcsim_strategy_register(&many[MANY / 2]), -EEXIST);
	assert_int_equal(dcsim_strategy_count(), before + MANY);
	assert_ptr_equal(dcsim_strategy_lookup("fast"), fast);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_many),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
