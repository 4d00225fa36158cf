// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Targeted tests of each built-in strategy's fast path: for each dentry
 * state, does one dput() take d_lock, finish with a lockless cmpxchg, or
 * commit a transaction?  Measured with the per-cache statistics.
 *
 * With HTM off the answer is exact.  With HTM live (DCSIM_HTM=auto on an
 * RTM machine) a transaction may abort spuriously, so "H" means "commits
 * within N attempts, and otherwise takes the HTM-off path".  Strategies
 * registered by users have no table here and are skipped.
 */

#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include <dcsim/cache.h>
#include <dcsim/htm.h>
#include <dcsim/strategy.h>
#include <dcsim/warn.h>

#include "harness.h"

#define HTM_ATTEMPTS	200

enum state {
	S_NONFINAL,	/* count 2 -> 1, not on the LRU */
	S_FIRST_FINAL,	/* hashed, not on the LRU yet */
	S_SECOND_FINAL,	/* after one final put (LRU; REF only in 3.x style) */
	S_STEADY,	/* REFERENCED | LRU_LIST */
	S_UNHASHED,	/* final put of an unhashed dentry: kill */
	S_OPDEL_NONFINAL,
	S_OPDEL_STEADY,
	S_NR
};

static const char *const state_names[S_NR] = {
	"nonfinal", "first-final", "second-final", "steady", "unhashed", "opdel-nonfinal",
	"opdel-steady",
};

/* 'L' d_lock taken, 'C' lockless cmpxchg, 'H' committed transaction */
struct expect {
	const char *name;
	const char off[S_NR + 1];
	const char on[S_NR + 1];	/* HTM live */
};

static const struct expect expects[] = {
	/*               nf  1st 2nd std unh opn ops */
	{ "locked",   "LLLLLLL", "LLLLLLL" },
	{ "lockref",  "CLLLLCL", "CLLLLCL" },
	{ "rtm",      "CLLLLCL", "CLHHLCL" },	/* 3.x: 2nd final already REF|LRU */
	{ "fast",     "CLLCLCL", "CLLCLCL" },
	{ "retain",   "CLLCLCL", "CLLCLCL" },
	{ "fast-htm", "CLLCLCL", "CLHCLCL" },	/* txn only for 2nd final (LRU, !REF) */
	{ "fast-htm-all", "CLLCLCL", "HLHHLCL" },
	{ "retain-htm", "CLLCLCL", "CLHCLCL" },	/* as fast-htm, on retain's code */
};

/*
 * Whether a put in state @st tries a transaction at all when HTM is live
 * (committing or not): fast-htm only for the final put of an unreferenced
 * LRU dentry, fast-htm-all for every put without ->d_delete().  Checked even where
 * every transaction aborts (qemu-user's -cpu max), as attempts.
 */
static bool tries_txn(const char *name, enum state st)
{
	if (st == S_OPDEL_NONFINAL || st == S_OPDEL_STEADY)
		return false;
	if (!strcmp(name, "fast-htm-all"))
		return true;
	if (!strcmp(name, "fast-htm") || !strcmp(name, "retain-htm"))
		return st == S_SECOND_FINAL;
	return false;
}

static int never_delete(const struct dcsim_dentry *d)
{
	(void)d;
	return 0;
}

static const struct dcsim_dentry_operations ops_never = { .d_delete = never_delete };

static int64_t stat_of(struct dcsim_cache *c, enum dcsim_cache_stat s)
{
	struct dcsim_cache_stats st;

	dcsim_cache_stats_read(c, &st);
	return st.v[s];
}

/* A dentry in @st, with exactly one reference to drop for the test. */
static struct dcsim_dentry *setup(struct dcsim_dentry *root, enum state st, int i)
{
	char name[32];
	struct dcsim_dentry *d;

	snprintf(name, sizeof(name), "%s-%d", state_names[st], i);
	d = dcsim_d_alloc(root, name);
	assert_non_null(d);
	if (st == S_UNHASHED)
		return d;
	if (st == S_OPDEL_NONFINAL || st == S_OPDEL_STEADY)
		dcsim_d_set_op(d, &ops_never);
	dcsim_d_add(d, true);
	switch (st) {
	case S_NONFINAL:
	case S_OPDEL_NONFINAL:
		dcsim_dget(d);
		dcsim_dput(d);		/* leave count 1: the test put is the non-final one */
		dcsim_dget(d);
		break;
	case S_FIRST_FINAL:
		break;
	case S_SECOND_FINAL:
		dcsim_dput(d);
		d = dcsim_d_lookup(root, name);
		break;
	case S_STEADY:
	case S_OPDEL_STEADY:
		dcsim_dput(d);
		dcsim_dput(dcsim_d_lookup(root, name));
		d = dcsim_d_lookup(root, name);
		break;
	default:
		break;
	}
	assert_non_null(d);
	return d;
}

static char one_put(struct dcsim_cache *c, struct dcsim_dentry *d)
{
	int64_t l = stat_of(c, DCSIM_CS_DPUT_LOCKED), cas = stat_of(c, DCSIM_CS_DPUT_CAS);
	int64_t h = stat_of(c, DCSIM_CS_DPUT_HTM);

	dcsim_dput(d);
	if (stat_of(c, DCSIM_CS_DPUT_LOCKED) == l + 1)
		return 'L';
	if (stat_of(c, DCSIM_CS_DPUT_CAS) == cas + 1)
		return 'C';
	if (stat_of(c, DCSIM_CS_DPUT_HTM) == h + 1)
		return 'H';
	return '?';
}

static void run_expect(const struct dcsim_dput_strategy *s, const struct expect *e, bool live,
		       bool live_policy)
{
	struct dcsim_cache_config cfg = { .strategy = s };
	struct dcsim_cache *c = dcsim_cache_create(&cfg);
	struct dcsim_dentry *root = dcsim_d_alloc_root(c, "/");

	for (int st = 0; st < S_NR; st++) {
		char want = live ? e->on[st] : e->off[st];
		char fallback = e->off[st];
		int got_h = 0, n = want == 'H' ? HTM_ATTEMPTS : 3;

		for (int i = 0; i < n && !got_h; i++) {
			struct dcsim_dentry *d = setup(root, (enum state)st, i);
			int64_t att = stat_of(c, DCSIM_CS_HTM_ATTEMPT);
			char got = one_put(c, d);
			bool tried = stat_of(c, DCSIM_CS_HTM_ATTEMPT) != att;

			if (live_policy && (!strcmp(s->name, "fast-htm") ||
					    !strcmp(s->name, "fast-htm-all") ||
					    !strcmp(s->name, "retain-htm")) &&
			    tried != tries_txn(s->name, (enum state)st)) {
				fprintf(stderr, "%s: state %s: transaction %s\n", s->name,
					state_names[st], tried ? "tried" : "not tried");
				fail();
			}

			if (st == S_NONFINAL || st == S_OPDEL_NONFINAL)
				dcsim_dput(d);	/* the reference left over */
			if (got == 'H')
				got_h = 1;
			if (got != want && !(want == 'H' && got == fallback)) {
				fprintf(stderr, "%s (HTM %s): state %s: expected %c, got %c\n", s->name,
					live ? "live" : "off", state_names[st], want, got);
				fail();
			}
		}
		if (want == 'H' && !got_h) {
			fprintf(stderr, "%s: state %s: no commit in %d attempts\n", s->name,
				state_names[st], HTM_ATTEMPTS);
			fail();
		}
	}
	dcsim_dput(root);
	dcsim_cache_destroy(c);
}

static void test_fastpath_table(void **state)
{
	enum dcsim_htm_policy env = dcsim_test_env_policy();

	(void)state;
	for (size_t i = 0; i < dcsim_strategy_count(); i++) {
		const struct dcsim_dput_strategy *s = dcsim_strategy_get(i);
		const struct expect *e = NULL;

		for (size_t j = 0; j < DCSIM_ARRAY_SIZE(expects); j++)
			if (!strcmp(expects[j].name, s->name))
				e = &expects[j];
		if (!e) {
			fprintf(stderr, "fastpath: no table for user strategy '%s', skipped\n", s->name);
			continue;
		}
		dcsim_htm_set_policy(DCSIM_HTM_OFF);
		run_expect(s, e, false, false);
		dcsim_htm_set_policy(env);
		if (dcsim_htm_live() && (s->flags & DCSIM_STRATEGY_USES_HTM)) {
			/* Under QEMU's force every transaction aborts: expect the off path. */
			struct dcsim_htm_info info;

			dcsim_htm_get_info(&info);
			run_expect(s, e, info.cpu_has_htm, true);
		}
	}
	dcsim_htm_set_policy(env);
}

/* ---- abort codes (HTM live only) ----------------------------------------- */

struct locker {
	struct dcsim_dentry *d;
};

static void *put_thread(void *arg)
{
	dcsim_dput(((struct locker *)arg)->d);
	return NULL;
}

static void test_abort_codes(void **state)
{
	enum dcsim_htm_policy env = dcsim_test_env_policy();
	/*
	 * fast-htm sends only the final put of an unreferenced LRU dentry to
	 * the transaction, so its refusal codes are reached by races alone
	 * (the explorer's job); here it must commit that put, and abort it
	 * with LOCKED while another thread holds d_lock.  retain-htm (the
	 * same transaction on 6.8+'s code) is held to the same.
	 */
	const char *names[] = { "fast-htm-all", "rtm", "fast-htm", "retain-htm" };
	struct dcsim_htm_info info;

	(void)state;
	dcsim_htm_set_policy(env);
	dcsim_htm_get_info(&info);
	if (!info.live || !info.cpu_has_htm) {
		fprintf(stderr, "abort codes: HTM cannot commit here (policy %s), skipped\n",
			dcsim_htm_policy_name(info.policy));
		skip();
	}
	for (size_t k = 0; k < DCSIM_ARRAY_SIZE(names); k++) {
		struct dcsim_cache *c = dcsim_cache_create_named(names[k]);
		struct dcsim_dentry *root = dcsim_d_alloc_root(c, "/");
		bool rtm = k == 1, fast_htm = k >= 2;
		struct {
			enum state st;
			enum dcsim_cache_stat stat;
		} cases[] = {
			{ S_FIRST_FINAL, DCSIM_CS_HTM_ABORT_NOLRU },
			{ S_UNHASHED, DCSIM_CS_HTM_ABORT_UNHASHED },
			{ S_SECOND_FINAL, rtm ? DCSIM_CS_HTM_ABORT_NOLRU : DCSIM_CS_HTM_COMMIT },
		};

		if (rtm)
			cases[0].stat = DCSIM_CS_HTM_ABORT_NOLRU;
		for (size_t j = 0; j < DCSIM_ARRAY_SIZE(cases); j++) {
			int64_t before = stat_of(c, cases[j].stat);
			int i;

			if (rtm && cases[j].st == S_SECOND_FINAL)
				continue;	/* rtm commits there (3.x REF) */
			if (fast_htm && cases[j].st != S_SECOND_FINAL)
				continue;	/* no transaction tried */
			for (i = 0; i < HTM_ATTEMPTS && stat_of(c, cases[j].stat) == before; i++)
				dcsim_dput(setup(root, cases[j].st, 1000 + i));
			if (stat_of(c, cases[j].stat) == before)
				fprintf(stderr, "%s: %s not counted in %d attempts\n", names[k],
					dcsim_cache_stat_name(cases[j].stat), HTM_ATTEMPTS);
			assert_true(stat_of(c, cases[j].stat) > before);
		}
		/* DONTCACHE on a steady dentry: KILL (both); the kill follows. */
		if (!fast_htm) {
			int64_t before = stat_of(c, DCSIM_CS_HTM_ABORT_KILL);

			for (int i = 0; i < HTM_ATTEMPTS && stat_of(c, DCSIM_CS_HTM_ABORT_KILL) == before; i++) {
				struct dcsim_dentry *d = setup(root, S_STEADY, 2000 + i);

				dcsim_d_set_flags(d, DCSIM_DCACHE_DONTCACHE);
				dcsim_dput(d);
			}
			assert_true(stat_of(c, DCSIM_CS_HTM_ABORT_KILL) > before);
		}
		/*
		 * DONTCACHE on a dentry not yet on the LRU: KILL, not NOLRU
		 * (fast-htm tests the kill reasons first, as retain_dentry()).
		 */
		if (!rtm && !fast_htm) {
			int64_t kill = stat_of(c, DCSIM_CS_HTM_ABORT_KILL);
			int64_t nolru = stat_of(c, DCSIM_CS_HTM_ABORT_NOLRU);

			for (int i = 0; i < HTM_ATTEMPTS && stat_of(c, DCSIM_CS_HTM_ABORT_KILL) == kill; i++) {
				struct dcsim_dentry *d = setup(root, S_FIRST_FINAL, 4000 + i);

				dcsim_d_set_flags(d, DCSIM_DCACHE_DONTCACHE);
				dcsim_dput(d);
			}
			assert_true(stat_of(c, DCSIM_CS_HTM_ABORT_KILL) > kill);
			assert_int_equal(stat_of(c, DCSIM_CS_HTM_ABORT_NOLRU), nolru);
		}
		/* d_lock held by us while another thread puts: LOCKED. */
		{
			int64_t before = stat_of(c, DCSIM_CS_HTM_ABORT_LOCKED);

			for (int i = 0; i < 20 && stat_of(c, DCSIM_CS_HTM_ABORT_LOCKED) == before; i++) {
				struct locker lk = {
					.d = setup(root, fast_htm ? S_SECOND_FINAL : S_STEADY, 3000 + i)
				};
				struct timespec ts = { 0, 1000 * 1000 };
				pthread_t t;

				/*
				 * Hold d_lock until the putter's transaction has seen it
				 * (the abort is counted before the fallback waits for
				 * the lock), or 2 s: a spurious abort of another cause
				 * then sends us round again.
				 */
				dcsim_spin_lock(&dcsim_d_lockref(lk.d)->lock);
				assert_int_equal(pthread_create(&t, NULL, put_thread, &lk), 0);
				for (int ms = 0; ms < 2000 &&
				     stat_of(c, DCSIM_CS_HTM_ABORT_LOCKED) == before; ms++)
					nanosleep(&ts, NULL);
				dcsim_spin_unlock(&dcsim_d_lockref(lk.d)->lock);
				pthread_join(t, NULL);
			}
			assert_true(stat_of(c, DCSIM_CS_HTM_ABORT_LOCKED) > before);
		}
		dcsim_dput(root);
		dcsim_cache_destroy(c);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fastpath_table),
		cmocka_unit_test(test_abort_codes),
	};

	dcsim_test_print_htm("test-dcache-fastpath");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
