// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The misuse suite (dcsim_checker_misuse()): puts without a reference, on a
 * cached unused dentry (count 0) and on a dead one, with and without
 * ->d_delete() (which sends fast and fast-htm down lockref_put_or_lock()).
 * Each must give exactly one kernel-style warning and change nothing: the
 * count stays, the invariants hold with exact references, and the cache's
 * counters show the four refused puts, two kills and two frees.
 *
 * Single thread; for strategies with DCSIM_STRATEGY_USES_HTM also under the
 * environment's HTM policy (a live hardware transaction, where there is one;
 * simulated transactions run only inside the explorer, whose "misuse"
 * scenario covers them).  tests/unit/test-dcache-misuse runs it on every
 * strategy; in a normal build it compiles this file in.
 */

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dcsim/cache.h>
#include <dcsim/checker.h>
#include <dcsim/htm.h>
#include <dcsim/rcu.h>
#include <dcsim/strategy.h>
#include <dcsim/warn.h>

struct misuse {
	const struct dcsim_dput_strategy *s;
	const char *policy;
	FILE *out;
	bool quiet;
	unsigned long failures;
	char first[256];
};

static void __attribute__((format(printf, 2, 3))) fail(struct misuse *m, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* The first failure, cut to fit res->failure. */
	if (!m->failures++ && snprintf(m->first, sizeof(m->first), "misuse: %s", msg) < 0)
		m->first[0] = '\0';
	if (!m->quiet)
		fprintf(m->out, "dcsim-check: FAIL: misuse, strategy %s, HTM %s\ncheck: %s\n",
			m->s->name, m->policy, msg);
}

static void check_clean(struct misuse *m, struct dcsim_cache *c, struct dcsim_dentry *root,
			const char *after)
{
	struct dcsim_held_ref h[] = { { root, 1 } };
	char rep[2048];

	if (dcsim_cache_verify(c, h, 1, DCSIM_VERIFY_REFS_EXACT, rep, sizeof(rep)))
		fail(m, "model: invariants broken after %s (only / is held):\n%s", after, rep);
}

static int never_delete(const struct dcsim_dentry *d)
{
	(void)d;
	return 0;
}

static const struct dcsim_dentry_operations ops_never = { .d_delete = never_delete };

static void bad_puts(struct misuse *m, struct dcsim_cache *c, struct dcsim_dentry *root,
		     const struct dcsim_dentry_operations *op, const char *a, const char *b)
{
	struct dcsim_dentry *d;
	unsigned long w;
	char what[128];

	/* A put on a cached, unused dentry (count 0). */
	d = dcsim_d_alloc(root, a);
	if (op)
		dcsim_d_set_op(d, op);
	dcsim_d_add(d, true);
	dcsim_dput(d);
	dcsim_dput(dcsim_d_lookup(root, a));
	w = dcsim_warn_count();
	dcsim_dput(d);
	snprintf(what, sizeof(what), "a put of /%s at count 0%s", a, op ? " (->d_delete set)" : "");
	if (dcsim_warn_count() != w + 1)
		fail(m, "%s: model: %lu warnings\nspec:  1 warning", what, dcsim_warn_count() - w);
	if (dcsim_d_count(d) != 0)
		fail(m, "%s: model: count=%d afterwards\nspec:  count=0", what, (int)dcsim_d_count(d));
	check_clean(m, c, root, what);
	/* A put on a dead dentry, inside a grace period so it is not freed. */
	dcsim_rcu_read_lock();
	d = dcsim_d_alloc(root, b);
	if (op)
		dcsim_d_set_op(d, op);
	dcsim_dput(d);			/* unhashed: killed */
	w = dcsim_warn_count();
	dcsim_dput(d);
	snprintf(what, sizeof(what), "a put of the dead /%s%s", b, op ? " (->d_delete set)" : "");
	if (dcsim_warn_count() != w + 1)
		fail(m, "%s: model: %lu warnings\nspec:  1 warning", what, dcsim_warn_count() - w);
	if (dcsim_d_count(d) >= 0)
		fail(m, "%s: model: count=%d afterwards\nspec:  count<0 (dead)", what,
		     (int)dcsim_d_count(d));
	dcsim_rcu_read_unlock();
	check_clean(m, c, root, what);
}

static void one_policy(struct misuse *m)
{
	struct dcsim_cache_config cfg = { .strategy = m->s };
	struct dcsim_cache_stats st;
	struct dcsim_cache *c = dcsim_cache_create(&cfg);
	struct dcsim_dentry *root = c ? dcsim_d_alloc_root(c, "/") : NULL;
	unsigned long w;

	if (!root) {
		fail(m, "setup failed");
		dcsim_cache_destroy(c);
		return;
	}
	w = dcsim_warn_count();
	dcsim_dput(NULL);		/* a no-op, without a warning */
	if (dcsim_warn_count() != w)
		fail(m, "dput(NULL): model: a warning\nspec:  none");
	bad_puts(m, c, root, NULL, "a", "b");
	bad_puts(m, c, root, &ops_never, "op-a", "op-b");
	dcsim_cache_stats_read(c, &st);
	if (st.v[DCSIM_CS_DPUT_WARN] != 4 || st.v[DCSIM_CS_KILL] != 2 || st.v[DCSIM_CS_FREE] != 2)
		fail(m, "cache counters after 4 bad puts:\nmodel: dput_warn=%lld kill=%lld free=%lld\n"
		     "spec:  dput_warn=4 kill=2 free=2", (long long)st.v[DCSIM_CS_DPUT_WARN],
		     (long long)st.v[DCSIM_CS_KILL], (long long)st.v[DCSIM_CS_FREE]);
	dcsim_dput(root);
	w = dcsim_warn_count();
	dcsim_cache_destroy(c);
	if (dcsim_warn_count() != w)
		fail(m, "destroy after the bad puts: model: %lu warnings (leaked references)\n"
		     "spec:  none", dcsim_warn_count() - w);
}

int dcsim_checker_misuse(const struct dcsim_dput_strategy *s, const struct dcsim_checker_opts *o,
		       struct dcsim_checker_result *res)
{
	struct dcsim_checker_result local;
	struct misuse m = { .s = s };
	struct dcsim_htm_info info;
	enum dcsim_htm_policy env;
	FILE *prog;

	if (!res)
		res = &local;
	memset(res, 0, sizeof(*res));
	if (!s || !o)
		return -EINVAL;
	m.out = o->report ? o->report : stdout;
	m.quiet = o->quiet;
	prog = o->progress ? o->progress : stderr;
	dcsim_htm_get_info(&info);
	env = info.policy;
	fprintf(prog, "dcsim-check: misuse: %s\n", s->name);
	dcsim_warn_set_quiet(true);
	/* HTM off first; then, for an HTM strategy, the environment's policy if it is live. */
	dcsim_htm_set_policy(DCSIM_HTM_OFF);
	m.policy = "off";
	one_policy(&m);
	res->runs++;
	dcsim_htm_set_policy(env);
	dcsim_htm_get_info(&info);
	if ((s->flags & DCSIM_STRATEGY_USES_HTM) && info.live) {
		m.policy = dcsim_htm_policy_name(env);
		one_policy(&m);
		res->runs++;
	}
	dcsim_warn_set_quiet(false);
	res->failures = m.failures;
	res->first_failure = m.failures ? res->runs : 0;
	snprintf(res->failure, sizeof(res->failure), "%s", m.first);
	if (m.failures && !o->quiet) {
		if (o->replay_prefix)
			fprintf(m.out, "replay: %s --suites misuse\n", o->replay_prefix);
		else
			fprintf(m.out, "replay: dcsim-check --strategy %s --suites misuse\n", s->name);
	}
	fprintf(prog, "dcsim-check: misuse: %s: %s\n", s->name, m.failures ? "FAILED" : "ok");
	return m.failures ? 1 : 0;
}
