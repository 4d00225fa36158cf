// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The targets (docs/results.md) and their verdicts: each a figure of the
 * run with its 95% interval against a limit; a target whose interval has
 * points on both sides of its limit is "inconclusive" rather than ok or
 * MISS, and one this host or run cannot judge is n/a with the reason.
 */

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <dcsim/strategy.h>

#include "bench.h"
#include "figures.h"
#include "targets.h"

static bool is_lockref_based(const struct bench_subject *s)
{
	return s->kind == BENCH_STRATEGY && strcmp(s->name, "locked");
}

/* By the strategy's flag, so a registered one (k61-htm) counts too. */
static bool is_htm_strategy(const struct bench_subject *s)
{
	const struct dcsim_dput_strategy *st = s->strategy;

	return s->kind == BENCH_STRATEGY && st && (st->flags & DCSIM_STRATEGY_USES_HTM);
}

/*
 * 5: scaling on many cores (issue 19), fast at 16 threads over 1 thread:
 * churn with --dirs 64 (a create lock per directory, 4 threads a
 * directory at most) and mixed, each at least 6x.  Sixteen workers need
 * sixteen CPUs of their own; on a smaller host, or without the rows, the
 * target is listed with the verdict n/a and the reason.
 */
static unsigned int scaling_targets(const struct bench_config *cfg, const struct bench_host *host,
				    struct bench_target *t, unsigned int room)
{
	static const struct {
		const char *group, *id, *what;
		unsigned int dirs;	/* --dirs the target is for; 0: any */
	} want[] = {
		{ "churn", "churn-scales-16", "churn --dirs 64: 16 threads over 1 thread, fast", 64 },
		{ "mixed", "mixed-scales-16", "mixed: 16 threads over 1 thread, fast", 0 },
	};
	unsigned int n = 0;

	for (unsigned int i = 0; i < DCSIM_ARRAY_SIZE(want) && n < room; i++) {
		int r1 = bench_find_row(cfg, want[i].group, 1, "fast");
		int r16 = bench_find_row(cfg, want[i].group, 16, "fast");
		struct bench_target *tg;
		bool in_run = false;

		for (unsigned int g = 0; g < cfg->nr_groups; g++)
			in_run |= !strcmp(cfg->groups[g].name, want[i].group);
		if (!in_run)
			continue;
		tg = &t[n++];
		*tg = (struct bench_target){
			.id = want[i].id, .what = want[i].what, .group = want[i].group,
			.subject = "fast", .threads = 16, .value = NAN, .limit = 6.0, .op = ">=",
			.est = { NAN, NAN, NAN, 0 },
		};
		if (host->online_cpus < 16) {
			tg->na = true;
			snprintf(tg->buf, sizeof(tg->buf), "not applicable on %u CPUs (needs 16)",
				 host->online_cpus);
		} else if (want[i].dirs && cfg->shape.dirs != want[i].dirs) {
			tg->na = true;
			snprintf(tg->buf, sizeof(tg->buf), "not applicable with --dirs %u (needs %u)",
				 cfg->shape.dirs, want[i].dirs);
		} else if (r1 < 0 || r16 < 0) {
			tg->na = true;
			snprintf(tg->buf, sizeof(tg->buf), "not applicable: needs fast at -t 1,16");
		} else {
			double v[BENCH_MAX_REPS];

			bench_median_ci(v, bench_ratio_samples(cfg, &cfg->rows[r16], r1, false, v),
					&tg->est);
			tg->value = tg->est.med;
			tg->buf[0] = '\0';
		}
		tg->note = tg->buf[0] ? tg->buf : NULL;
	}
	return n;
}

unsigned int bench_eval_targets(const struct bench_config *cfg, const struct bench_host *host,
				struct bench_target *t)
{
	struct bench_agg a;
	unsigned int n = 0;
	double cas_x;
	int r;

	/*
	 * 1: dget + non-final dput against the floor, one thread.  The note
	 * gives the cmpxchg bound's own ratio: the part of the gap that is the
	 * lockref's read + cmpxchg shape rather than the model around it.
	 */
	r = bench_find_row(cfg, "bounds", 1, "cmpxchg");
	cas_x = NAN;
	if (r >= 0) {
		bench_aggregate(cfg, &cfg->rows[r], &a);
		cas_x = a.x_floor;
	}
	for (unsigned int s = 0; s < cfg->nr_subjects; s++) {
		const struct bench_subject *subj = &cfg->subjects[s];
		struct bench_target *tg;

		if (!is_lockref_based(subj) || n >= BENCH_MAX_TARGETS)
			continue;
		r = bench_find_row(cfg, "hot", 1, subj->name);
		if (r < 0 || bench_find_row(cfg, "bounds", 1, "floor") < 0)
			continue;
		bench_aggregate(cfg, &cfg->rows[r], &a);
		tg = &t[n++];
		*tg = (struct bench_target){
			.id = "nonfinal-vs-floor",
			.what = "hot 1 thread: dget+non-final dput ns/op over the atomic add+sub floor",
			.group = "hot", .subject = subj->name, .threads = 1,
			.value = a.x_floor, .limit = 1.3, .op = "<=", .est = a.r_floor,
		};
		snprintf(tg->buf, sizeof(tg->buf), "cmpxchg bound alone %.2fx floor%s", cas_x,
			 is_htm_strategy(subj) && host->htm_live ?
			 "; pays a transaction on every dput" : "");
		tg->note = tg->buf;
	}

	/* 2: raw lockref get+put against lock-update-unlock, one thread. */
	r = bench_find_row(cfg, "bounds", 1, "raw-lockref");
	if (r >= 0 && bench_find_row(cfg, "bounds", 1, "spin") >= 0 && n < BENCH_MAX_TARGETS) {
		bench_aggregate(cfg, &cfg->rows[r], &a);
		t[n++] = (struct bench_target){
			.id = "lockref-vs-spin",
			.what = "1 thread: lockref get+put ns/op over spinlock lock-update-unlock x2",
			.group = "bounds", .subject = "raw-lockref", .threads = 1,
			.value = a.x_ceil, .limit = 1.1, .op = "<=", .est = a.r_ceil,
		};
	}

	/* 3: slow-path fraction of final puts, at every thread count measured. */
	for (unsigned int g = 0; g < cfg->nr_groups; g++) {
		const char *gname = cfg->groups[g].name;

		if (strcmp(gname, "final") && strcmp(gname, "walk"))
			continue;
		for (unsigned int s = 0; s < cfg->nr_subjects; s++) {
			const struct bench_subject *subj = &cfg->subjects[s];
			bool locked = !strcmp(subj->name, "locked");
			bool want_fast = !strcmp(subj->name, "fast") || !strcmp(subj->name, "retain") ||
					 !strcmp(subj->name, "fast-htm") ||
					 (!strcmp(subj->name, "rtm") && host->htm_live);

			if (subj->kind != BENCH_STRATEGY || (!locked && !want_fast))
				continue;
			for (unsigned int ti = 0; ti < cfg->nr_threads && n < BENCH_MAX_TARGETS; ti++) {
				r = bench_find_row(cfg, gname, cfg->threads[ti], subj->name);
				if (r < 0)
					continue;
				bench_aggregate(cfg, &cfg->rows[r], &a);
				t[n++] = (struct bench_target){
					.id = locked ? "locked-always-dlock" : "final-avoids-dlock",
					.what = locked ? "share of dputs taking d_lock" :
						"share of dputs taking d_lock",
					.group = gname, .subject = subj->name,
					.threads = cfg->threads[ti],
					.value = slow_fraction(&a), .limit = locked ? 1.0 : 0.01,
					.op = locked ? "==" : "<",
					/* a count over all reps, not a sampled figure */
					.est = { slow_fraction(&a), NAN, NAN, a.n },
					.note = !strcmp(subj->name, "fast-htm") && !host->htm_live ?
						"HTM not live: fast-htm runs its fast_dput fallback" : NULL,
				};
			}
		}
	}

	/* 4: contended hot dentry, 2 threads, against locked. */
	if (bench_find_row(cfg, "hot", 2, "locked") >= 0) {
		for (unsigned int s = 0; s < cfg->nr_subjects && n < BENCH_MAX_TARGETS; s++) {
			const struct bench_subject *subj = &cfg->subjects[s];
			double v[BENCH_MAX_REPS];
			int base = bench_find_row(cfg, "hot", 2, "locked");
			struct bench_est e;

			if (!is_lockref_based(subj))
				continue;
			r = bench_find_row(cfg, "hot", 2, subj->name);
			if (r < 0)
				continue;
			/* against locked whatever --baseline says */
			bench_median_ci(v, bench_ratio_samples(cfg, &cfg->rows[r], base, false, v), &e);
			t[n++] = (struct bench_target){
				.id = "hot-vs-locked",
				.what = "hot 2 threads: throughput over locked",
				.group = "hot", .subject = subj->name, .threads = 2,
				.value = e.med, .limit = 1.5, .op = ">=", .est = e,
			};
		}
	}

	/*
	 * 5 (issue 19): shared writes per op (--sharing), an exact count: 0
	 * for walk and final, whose ops touch only private lines in a model
	 * that scales like the kernel, and 2 for hot, whose get and put are
	 * one RMW each on the one dentry's lockref line.  Every strategy but
	 * locked (which takes d_lock around its updates: 4 writes on that
	 * line) at every thread count measured.
	 */
	for (unsigned int i = 0; i < cfg->nr_share && n < BENCH_MAX_TARGETS; i++) {
		const struct bench_share *sr = &cfg->share[i];
		double v = share_per_op(sr, sr->rmw + sr->stores);
		bool hot = !strcmp(sr->group, "hot");

		if ((!hot && strcmp(sr->group, "walk") && strcmp(sr->group, "final")) ||
		    !strcmp(sr->subject, "locked") || !sr->done)
			continue;
		t[n] = (struct bench_target){
			.id = "shared-writes",
			.what = "RMWs + stores per op to lines more than one thread writes",
			.group = sr->group, .subject = sr->subject, .threads = sr->threads,
			.value = v, .limit = hot ? 2 : 0, .op = "==",
			.est = { v, NAN, NAN, 1 },
		};
		snprintf(t[n].buf, sizeof(t[n].buf), "%.3g RMW + %.3g stores per op on %llu line(s)",
			 share_per_op(sr, sr->rmw), share_per_op(sr, sr->stores),
			 (unsigned long long)sr->lines);
		t[n].note = t[n].buf;
		n++;
	}

	/*
	 * 6: walk scales (issue 19): RCU-walk writes no shared line but the
	 * private leaf's, so 2 threads on 2 cores do nearly twice 1 thread's
	 * work.  Per rep, the 2-thread cell over the 1-thread cell.
	 */
	for (unsigned int s = 0; s < cfg->nr_subjects && n < BENCH_MAX_TARGETS; s++) {
		const struct bench_subject *subj = &cfg->subjects[s];
		double v[BENCH_MAX_REPS];
		struct bench_est e;
		struct bench_target *tg;
		int one;

		if (subj->kind != BENCH_STRATEGY)
			continue;
		r = bench_find_row(cfg, "walk", 2, subj->name);
		one = bench_find_row(cfg, "walk", 1, subj->name);
		if (r < 0 || one < 0)
			continue;
		bench_median_ci(v, bench_ratio_samples(cfg, &cfg->rows[r], one, false, v), &e);
		tg = &t[n++];
		*tg = (struct bench_target){
			.id = "walk-2t-scaling",
			.what = "walk 2 threads: throughput over its 1-thread throughput",
			.group = "walk", .subject = subj->name, .threads = 2,
			.value = e.med, .limit = 1.8, .op = ">=", .est = e,
		};
		if (cfg->shape.ref_walk || host->online_cpus < 2 || host->busy) {
			size_t off = 0;

			tg->buf[0] = '\0';
			if (cfg->shape.ref_walk)
				off += snprintf(tg->buf + off, sizeof(tg->buf) - off,
						"--ref-walk ran; the target is RCU-walk's");
			if (host->online_cpus < 2 && off < sizeof(tg->buf))
				off += snprintf(tg->buf + off, sizeof(tg->buf) - off, "%sfewer than 2 CPUs",
						off ? "; " : "");
			if (host->busy && off < sizeof(tg->buf))
				snprintf(tg->buf + off, sizeof(tg->buf) - off,
					 "%shost busy: other load shares the CPUs", off ? "; " : "");
			tg->note = tg->buf;
		}
	}

	n += scaling_targets(cfg, host, t + n, BENCH_MAX_TARGETS - n);

	for (unsigned int i = 0; i < n; i++) {
		t[i].verdict = t[i].na ? "n/a" : bench_verdict(&t[i].est, t[i].op, t[i].limit);
		t[i].pass = !strcmp(t[i].verdict, "ok");
	}
	return n;
}
