// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Unit tests for dcsim_checker_shard_of(), the static split of
 * dcsim-check --shard I/N: every unit in one shard, counts within one,
 * and a mix of the kinds of unit that repeat with a small period (explore
 * numbers its units scenario x mode x HTM, mode innermost).
 */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dcsim/checker.h>

#define MAX_N	16

/* The shards' unit counts over units 0..@units-1 differ by one at most. */
static void test_counts_balanced(void **state)
{
	(void)state;
	for (unsigned int n = 1; n <= MAX_N; n++) {
		for (unsigned long units = 1; units < 400; units += 37) {
			unsigned long count[MAX_N] = { 0 }, lo = ~0ul, hi = 0;

			for (unsigned long i = 0; i < units; i++) {
				unsigned int s = dcsim_checker_shard_of(i, n);

				assert_true(s < n);
				count[s]++;
			}
			for (unsigned int s = 0; s < n; s++) {
				lo = count[s] < lo ? count[s] : lo;
				hi = count[s] > hi ? count[s] : hi;
			}
			assert_true(hi - lo <= 1);
		}
	}
}

/*
 * Units whose kind is i % @period: each shard of @n gets at least a
 * quarter of its fair share of every kind (i % n would give a shard
 * none of some kinds when @period divides n or n divides @period).
 */
static void check_mix(unsigned int n, unsigned int period, unsigned long units)
{
	unsigned long got[MAX_N][8] = { { 0 } };

	for (unsigned long i = 0; i < units; i++)
		got[dcsim_checker_shard_of(i, n)][i % period]++;
	for (unsigned int s = 0; s < n; s++)
		for (unsigned int k = 0; k < period; k++)
			assert_true(got[s][k] * n * period * 4 >= units);
}

static void test_kinds_mixed(void **state)
{
	(void)state;
	check_mix(2, 2, 132);	/* retain-htm's explorations at every budget */
	check_mix(2, 2, 44);	/* a strategy without HTM */
	check_mix(4, 2, 132);
	check_mix(3, 6, 132);
	check_mix(2, 6, 132);
	check_mix(8, 4, 3000);	/* diff's traces at the default budget */
}

/* One shard runs everything. */
static void test_one_shard(void **state)
{
	(void)state;
	for (unsigned long i = 0; i < 1000; i++)
		assert_int_equal(dcsim_checker_shard_of(i, 1), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_counts_balanced),
		cmocka_unit_test(test_kinds_mixed),
		cmocka_unit_test(test_one_shard),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
