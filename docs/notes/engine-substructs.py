#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Mechanical: struct explorer's fields moved into per-concern sub-structs.

The commits "engine: ... as struct ex_*" moved the explorer's fields into
sub-structs (ex->nslog is ex->slog.n, ex->strict_by is ex->strict.by, ...)
and gave the functions that need one concern that sub-struct instead of
the explorer (slog_add(&ex->slog, ...)).  A branch written against the old
names is brought over by running this after the merge, from the repository
root: python3 docs/notes/engine-substructs.py [--dry].  On code already
converted it changes nothing.  The narrowed bodies (strict_end(),
cb_ripe(), rcu_signature(), count_abort(), pick_pct(), the DFS code moved
to dfs.c) were written by hand; a branch that changed those bodies merges
them by hand.  New code that touches a sub-struct from a
file not yet among its users also needs tests/engine-state.py's table.
"""
import glob
import re
import sys

FIELDS = {
    "nslog": "slog.n", "slog_first_changed": "slog.first_changed",
    "slog_len_shown": "slog.len_shown",
    "ndec": "dec.n", "dec_cap": "dec.cap", "forced": "dec.forced",
    "nforced": "dec.nforced",
    "cbs": "rcu.cbs", "ncbs": "rcu.n", "cbs_cap": "rcu.cap", "uaf": "rcu.uaf",
    "rcu_cbs_run": "rcu.cbs_run", "rcu_rng": "rcu.rng",
    "htm_commits": "htm.commits", "htm_aborts": "htm.aborts", "htm_conflicts": "htm.conflicts",
    "htm_capacity_aborts": "htm.capacity_aborts", "inj_rng": "htm.inj_rng",
    "wm_rng": "wm.rng", "stale_loads": "wm.stale_loads",
    "nodes": "dfs.nodes", "nnodes": "dfs.n", "nodes_cap": "dfs.cap",
    "replay_len": "dfs.replay_len", "preempt": "dfs.preempt",
    "pct_k": "pct.k", "pct_k_used": "pct.k_used", "change": "pct.change",
    "nchange": "pct.nchange",
}
FIELDS.update({f"strict_{f}": f"strict.{f}" for f in (
    "rng", "victim", "by", "at", "off", "over", "since", "run", "func", "line", "count",
    "rescue")})
# Calls whose first argument became a sub-struct (or another narrow argument).
CALLS = [
    (r"\bslog_add\(ex, ", "slog_add(&ex->slog, "),
    (r"\bslog_print_thread\(ex, ", "slog_print_thread(&ex->slog, "),
    (r"\bslog_print\(ex, ", "slog_print(&ex->slog, "),
    (r"\bschedule_print\(ex, ", "schedule_print(&ex->dec, "),
    (r"\bparse_schedule\(ex, ", "parse_schedule(&ex->dec, "),
    (r"\brcu_signature\(ex\)", "rcu_signature(&ex->rcu, ex->pool)"),
    (r"\brcu_unpoison_all\(ex\)", "rcu_unpoison_all(&ex->rcu)"),
    (r"\bexplore_note_htm\(ex, ", "explore_note_htm(&ex->htm, "),
    (r"\bwm_on\(ex\)", "wm_on(&ex->o)"),
    (r"\bwm_load\(ex, ", "wm_load(&ex->wm, &ex->slog, "),
    (r"\bstrict_is_off\(ex, ", "strict_is_off(&ex->strict, "),
    (r"\bdfs_next\(ex\)", "dfs_next(&ex->dfs, ex->o.preemption_bound)"),
]

changed = 0
for f in sorted(glob.glob("src/engine/*.c")) + ["src/engine/internal.h"]:
    with open(f) as fh:
        s = fh.read()
    t = s
    for old, new in FIELDS.items():
        # ex->old, not a call through a field of that name
        t = re.sub(r"\bex->" + re.escape(old) + r"\b(?!\s*\()", "ex->" + new, t)
    # The arrays whose sub-struct kept their name (slog, dec): by their uses.
    t = re.sub(r"\bex->slog\[", "ex->slog.ent[", t)
    t = re.sub(r"\bex->dec\[", "ex->dec.d[", t)
    t = t.replace("ex->dec = xrealloc(ex->dec, ", "ex->dec.d = xrealloc(ex->dec.d, ")
    for pat, rep in CALLS:
        t = re.sub(pat, rep, t)
    if t != s:
        changed += 1
        print("changed", f)
        if "--dry" not in sys.argv:
            with open(f, "w") as fh:
                fh.write(t)
print(changed, "file(s)", "would change" if "--dry" in sys.argv else "changed", file=sys.stderr)
