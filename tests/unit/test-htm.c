// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * HTM layer tests: decode tables for both architectures, policy parsing,
 * and behaviour on the host as detected.  What the host should do can be
 * pinned with DCSIM_TEST_EXPECT=commit|abort|off (the qemu suite sets
 * "abort"); otherwise it is derived from detection.  Transactions abort
 * spuriously, so commits are asserted within N attempts, never per attempt.
 */

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <dcsim/htm.h>
#include <dcsim/stats.h>

#define ATTEMPTS	1000

static void test_decode_x86(void **state)
{
	static const struct {
		uint32_t eax;
		enum dcsim_htm_cause cause;
		uint8_t code;
		bool retry;
	} cases[] = {
		{ 0, DCSIM_HTM_CAUSE_UNKNOWN, 0, false },
		{ DCSIM_HTM_X86_EXPLICIT | (0x42u << 24), DCSIM_HTM_CAUSE_EXPLICIT, 0x42, false },
		{ DCSIM_HTM_X86_EXPLICIT | DCSIM_HTM_X86_RETRY | (0xffu << 24),
		  DCSIM_HTM_CAUSE_EXPLICIT, 0xff, true },
		{ DCSIM_HTM_X86_EXPLICIT | DCSIM_HTM_X86_NESTED | (1u << 24),
		  DCSIM_HTM_CAUSE_EXPLICIT, 1, false },
		{ DCSIM_HTM_X86_CONFLICT | DCSIM_HTM_X86_RETRY, DCSIM_HTM_CAUSE_CONFLICT, 0, true },
		{ DCSIM_HTM_X86_CAPACITY, DCSIM_HTM_CAUSE_CAPACITY, 0, false },
		{ DCSIM_HTM_X86_CAPACITY | DCSIM_HTM_X86_CONFLICT, DCSIM_HTM_CAUSE_CONFLICT, 0, false },
		{ DCSIM_HTM_X86_DEBUG, DCSIM_HTM_CAUSE_DEBUG, 0, false },
		{ DCSIM_HTM_X86_NESTED, DCSIM_HTM_CAUSE_NESTED, 0, false },
		{ DCSIM_HTM_X86_RETRY, DCSIM_HTM_CAUSE_UNKNOWN, 0, true },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct dcsim_htm_abort a = dcsim_htm_decode_x86(cases[i].eax);

		assert_int_equal(a.cause, cases[i].cause);
		assert_int_equal(a.retry, cases[i].retry);
		if (a.cause == DCSIM_HTM_CAUSE_EXPLICIT)
			assert_int_equal(a.code, cases[i].code);
	}
}

/* TEXASR uses IBM bit numbering: bit 0 is the MSB. */
#define T(n)	(1ull << (63 - (n)))

static void test_decode_power(void **state)
{
	static const struct {
		uint64_t texasr;
		enum dcsim_htm_cause cause;
		uint8_t code;
		bool retry;
	} cases[] = {
		/* tabort. with code 0x42: failure code byte, Abort bit 31 */
		{ (0x42ull << 56) | T(31), DCSIM_HTM_CAUSE_EXPLICIT, 0x42, true },
		/* odd code: the low bit of the failure code is "persistent" */
		{ (0x43ull << 56) | T(31), DCSIM_HTM_CAUSE_EXPLICIT, 0x43, false },
		{ T(9), DCSIM_HTM_CAUSE_NESTED, 0, true },
		{ T(10) | T(7), DCSIM_HTM_CAUSE_CAPACITY, 0, false },
		{ T(11), DCSIM_HTM_CAUSE_CONFLICT, 0, true },
		{ T(12), DCSIM_HTM_CAUSE_CONFLICT, 0, true },
		{ T(13), DCSIM_HTM_CAUSE_CONFLICT, 0, true },
		{ T(14), DCSIM_HTM_CAUSE_CONFLICT, 0, true },
		{ T(16), DCSIM_HTM_CAUSE_CONFLICT, 0, true },
		/* kernel treclaim for a syscall (TM_CAUSE_SYSCALL 0xd8) */
		{ 0xd8ull << 56, DCSIM_HTM_CAUSE_DEBUG, 0, true },
		/* what QEMU's tbegin. leaves: persistent + nesting overflow */
		{ T(7) | T(9), DCSIM_HTM_CAUSE_NESTED, 0, false },
		{ T(8), DCSIM_HTM_CAUSE_UNKNOWN, 0, true },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct dcsim_htm_abort a = dcsim_htm_decode_power(cases[i].texasr);

		print_message("texasr 0x%016llx -> %s%s\n", (unsigned long long)cases[i].texasr,
			      dcsim_htm_cause_name(a.cause), a.retry ? " (retry)" : "");
		assert_int_equal(a.cause, cases[i].cause);
		assert_int_equal(a.retry, cases[i].retry);
		if (a.cause == DCSIM_HTM_CAUSE_EXPLICIT)
			assert_int_equal(a.code, cases[i].code);
	}
}

static void test_decode_disabled(void **state)
{
	(void)state;
	assert_int_equal(dcsim_htm_decode(DCSIM_HTM_DISABLED).cause, DCSIM_HTM_CAUSE_DISABLED);
	for (int c = 0; c < DCSIM_HTM_CAUSE_NR; c++)
		assert_string_not_equal(dcsim_htm_cause_name(c), "invalid");
	assert_string_equal(dcsim_htm_cause_name(DCSIM_HTM_CAUSE_NR), "invalid");
	assert_null(dcsim_stat_name(DCSIM_STAT_NR));
	for (int s = 0; s < DCSIM_STAT_NR; s++)
		assert_non_null(dcsim_stat_name(s));
}

static void test_policy_parse(void **state)
{
	static const char *const bad[] = { "", "AUTO", "on", "forced", "off ", "1", "auto,off" };
	enum dcsim_htm_policy p = DCSIM_HTM_OFF;

	(void)state;
	assert_int_equal(dcsim_htm_policy_parse("auto", &p), 0);
	assert_int_equal(p, DCSIM_HTM_AUTO);
	assert_int_equal(dcsim_htm_policy_parse("off", &p), 0);
	assert_int_equal(p, DCSIM_HTM_OFF);
	assert_int_equal(dcsim_htm_policy_parse("force", &p), 0);
	assert_int_equal(p, DCSIM_HTM_FORCE);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		p = DCSIM_HTM_FORCE;
		assert_int_equal(dcsim_htm_policy_parse(bad[i], &p), -EINVAL);
		assert_int_equal(p, DCSIM_HTM_FORCE);	/* untouched */
	}
	assert_int_equal(dcsim_htm_policy_parse(NULL, &p), -EINVAL);
	assert_int_equal(dcsim_htm_set_policy((enum dcsim_htm_policy)42), -EINVAL);
	for (int i = DCSIM_HTM_AUTO; i <= DCSIM_HTM_FORCE; i++) {
		enum dcsim_htm_policy q;

		assert_int_equal(dcsim_htm_policy_parse(dcsim_htm_policy_name(i), &q), 0);
		assert_int_equal(q, i);
	}
}

/* Policy off: nothing executes, nothing is counted as an attempt. */
static void test_policy_off(void **state)
{
	struct dcsim_stats a, b;

	(void)state;
	assert_int_equal(dcsim_htm_set_policy(DCSIM_HTM_OFF), 0);
	assert_false(dcsim_htm_live());
	dcsim_stats_read_thread(&a);
	for (int i = 0; i < 10; i++)
		assert_true(dcsim_htm_begin() == DCSIM_HTM_DISABLED);
	assert_false(dcsim_htm_test());
	dcsim_stats_read_thread(&b);
	assert_int_equal(b.v[DCSIM_STAT_HTM_ATTEMPTS], a.v[DCSIM_STAT_HTM_ATTEMPTS]);
}

enum expect { EXPECT_COMMIT, EXPECT_ABORT, EXPECT_OFF };

static enum expect host_expectation(void)
{
	const char *e = getenv("DCSIM_TEST_EXPECT");
	struct dcsim_htm_info info;

	if (e && !strcmp(e, "commit"))
		return EXPECT_COMMIT;
	if (e && !strcmp(e, "abort"))
		return EXPECT_ABORT;
	if (e && !strcmp(e, "off"))
		return EXPECT_OFF;
	dcsim_htm_get_info(&info);
	if (!info.live)
		return EXPECT_OFF;
	return info.cpu_has_htm ? EXPECT_COMMIT : EXPECT_ABORT;
}

static volatile long txn_word;

/*
 * Run the environment's policy (DCSIM_HTM) and check it against what the
 * host should do: commits within N attempts on real HTM, nothing but aborts
 * under an always-aborting emulation, nothing at all when off.
 */
static void test_host_behaviour(void **state)
{
	enum dcsim_htm_policy policy = DCSIM_HTM_AUTO;
	const char *env = getenv("DCSIM_HTM");
	struct dcsim_stats a, b;
	long committed = 0;
	enum expect expect;

	(void)state;
	if (env)
		assert_int_equal(dcsim_htm_policy_parse(env, &policy), 0);
	dcsim_htm_set_policy(policy);
	expect = host_expectation();
	print_message("policy %s, live %d, expecting %s\n", dcsim_htm_policy_name(policy),
		      dcsim_htm_live(),
		      expect == EXPECT_COMMIT ? "commits" : expect == EXPECT_ABORT ? "aborts" : "off");

	dcsim_stats_read_thread(&a);
	for (int i = 0; i < ATTEMPTS; i++) {
		if (dcsim_htm_begin() == DCSIM_HTM_STARTED) {
			txn_word++;
			dcsim_htm_end();
			committed++;
		}
	}
	dcsim_stats_read_thread(&b);

	uint64_t attempts = b.v[DCSIM_STAT_HTM_ATTEMPTS] - a.v[DCSIM_STAT_HTM_ATTEMPTS];
	uint64_t commits = b.v[DCSIM_STAT_HTM_COMMITS] - a.v[DCSIM_STAT_HTM_COMMITS];
	uint64_t aborts = b.v[DCSIM_STAT_HTM_ABORTS] - a.v[DCSIM_STAT_HTM_ABORTS];
	uint64_t by_cause = 0;

	for (int c = 0; c < DCSIM_HTM_CAUSE_NR; c++)
		by_cause += b.v[DCSIM_STAT_HTM_ABORT_FIRST + c] - a.v[DCSIM_STAT_HTM_ABORT_FIRST + c];
	print_message("attempts %llu commits %llu aborts %llu\n", (unsigned long long)attempts,
		      (unsigned long long)commits, (unsigned long long)aborts);
	assert_int_equal(aborts, by_cause);
	assert_int_equal(commits, (uint64_t)committed);
	assert_int_equal(txn_word, committed);

	switch (expect) {
	case EXPECT_OFF:
		assert_int_equal(attempts, 0);
		break;
	case EXPECT_ABORT:
		assert_int_equal(attempts, ATTEMPTS);
		assert_int_equal(commits, 0);
		assert_int_equal(aborts, ATTEMPTS);
		break;
	case EXPECT_COMMIT:
		assert_int_equal(attempts, ATTEMPTS);
		assert_int_equal(commits + aborts, ATTEMPTS);
		assert_true(commits > 0);
		break;
	}
}

static volatile long rollback_word;

/*
 * An explicit abort discards the transaction's stores and reports the code.
 * Only meaningful where transactions start; elsewhere it checks that the
 * fallback branch is taken every time.
 */
static void test_explicit_abort_rolls_back(void **state)
{
	struct dcsim_stats a, b;
	bool seen = false;

	(void)state;
	rollback_word = 0;
	dcsim_stats_read_thread(&a);
	for (int i = 0; i < ATTEMPTS && !seen; i++) {
		dcsim_htm_status_t st = dcsim_htm_begin();

		if (st == DCSIM_HTM_STARTED) {
			rollback_word = 1;
			dcsim_htm_abort(0x42);
			fail_msg("execution continued after dcsim_htm_abort()");
		}
		struct dcsim_htm_abort ab = dcsim_htm_decode(st);

		assert_int_equal(rollback_word, 0);
		if (ab.cause == DCSIM_HTM_CAUSE_EXPLICIT) {
			assert_int_equal(ab.code, 0x42);
			seen = true;
		}
	}
	dcsim_stats_read_thread(&b);
	if (host_expectation() == EXPECT_COMMIT) {
		assert_true(seen);
		assert_true(b.htm_explicit_code[0x42] > a.htm_explicit_code[0x42]);
	} else {
		assert_false(seen);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_decode_x86),
		cmocka_unit_test(test_decode_power),
		cmocka_unit_test(test_decode_disabled),
		cmocka_unit_test(test_policy_parse),
		cmocka_unit_test(test_policy_off),
		cmocka_unit_test(test_host_behaviour),
		cmocka_unit_test(test_explicit_abort_rolls_back),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
