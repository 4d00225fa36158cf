#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""List the lock-drop windows of the kernel code that dcsim compiles.

A window is a place in one function where a lock (a dentry's d_lock, a
parent's d_lock, an inode's i_lock, the LRU lock, rename_lock) is released
and then a lock is taken again on some path of the same function: the
same lock retaken, or another one taken after it was dropped.  A failed
spin_trylock() that leads to a lock taken later (the trylock-fail loops
and the "drop, take in order, retake" fallbacks) is a window too: the
code waits for a lock it could not get.  For each window the audit
lists what the code tests right after the lock is taken again: the
count, d_inode, d_parent, the flags, d_seq or rename_lock's sequence,
or a helper that tests them (retain_dentry(), d_unhashed()...).

The functions are exactly those that kernel-code/extract.py extracts
(the trees' tables, kernel-code/trees/*.tree), read from the same
Debian tarballs, for each tree unpatched and with its HTM series
(kernel/patches, kernel/patches-6.12): what the strategies k61, k61-htm,
k612 and k612-htm run.  Line numbers are fs/dcache.c's, as in the
explorer's traces (the extraction keeps them with #line).

The analysis is a walk over each function's tokens that follows every
branch of if/else, loops (back edges, break, continue), goto and return;
a path from a release ends at the first lock taken (a window) or at the
function's end.  Calls are opaque, except the helpers that take or drop
locks for their caller (LOCK_CALLS below): a window may end in a call to
lock_parent() or lock_for_kill(), and dentry_unlink_inode() drops d_lock
and i_lock.  Macros and conditions are not evaluated: a path the code
cannot take (IS_ROOT() of a root) still counts.

Each window gets an id: function, lock and ordinal of the opening
operation among that function's operations on that lock (dput:d_lock:2).
The id is stable as long as the function's lock operations keep their
order; line numbers may move.

usage: window-audit.py [--tarball-dir DIR] [--tarball TREE=PATH]...
                       [--counts STRATEGY=FILE...]
                       [--run BUILD-INSTR [--budget B]] [--coverage]
                       [--out FILE | --check FILE]

--counts STRATEGY=FILE: a window-directed run's dump (dcsim-check --sched
window --window-dump FILE): per window reached, parked and the
operations other threads ran while it was parked, merged into the table
for that strategy.  --run DIR: make the dumps first, with DIR's
dcsim-check and kernel-code plugin, one explore suite per variant
(--budget, default "default").  --coverage: exit 1 (naming them) if a
window of the audit has no reach in the dumps and no reason in
UNREACHABLE below.  --out writes the markdown (docs/windows.md); --check
compares with it (exit 1 when it differs), the counts excepted: they
are read back from the file, and --coverage is what checks the reach.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import extract  # noqa: E402
import tarball_cache  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# (tree, variant name = the strategy that runs it, series directory or None)
VARIANTS = [
    ("6.1", "k61", None),
    ("6.1", "k61-htm", "kernel/patches"),
    ("6.12", "k612", None),
    ("6.12", "k612-htm", "kernel/patches-6.12"),
]

# Helpers whose call takes (acquire) or drops (release) a lock for the
# caller.  Only these; any other call is opaque.
LOCK_CALLS = {
    "lock_parent": ("acquire", "parent d_lock"),
    "__lock_parent": ("acquire", "parent d_lock"),
    "lock_for_kill": ("acquire", "i_lock"),
    "shrink_lock_dentry": ("acquire", "parent d_lock, i_lock"),
    "dentry_unlink_inode": ("release", "d_lock, i_lock"),
}

# Windows that no scenario can reach, and why (--coverage accepts these,
# and fails when one is reached after all).  None now: d_walk()'s
# D_WALK_SKIP arm (d_walk:d_lock:3) is reached through d_genocide_kill()
# (scenario genocide-vs-put-prune).
UNREACHABLE = {
}

# Windows that a scenario reaches, but so seldom that the default budget
# may miss them (--coverage does not require them; docs/windows.md says so
# when its run missed them).  Measured with the explore suite under
# --sched window.  None now: the two that need a lookup and a rename of
# the dentry inside the window (__lock_parent:parent-d_lock:2,
# shrink_lock_dentry:parent-d_lock:3) are reached at the default budget,
# the parked thread waiting for the others' renames
# (dcsim_explore_rename_ahead()).
RARE = {
}

RECHECKS = [
    ("count", r"d_lockref\.count|\bd_count\s*\(|lockref\.count|__lockref_is_dead|"
              r"lockref_mark_dead|lockref_get_not_dead"),
    ("d_inode", r"\bd_inode\b|d_really_is_negative|d_is_negative|d_really_is_positive"),
    ("d_parent", r"\bd_parent\b|IS_ROOT"),
    ("flags", r"\bd_flags\b|d_unhashed|d_unlinked|DCACHE_\w+"),
    ("d_seq", r"\bd_seq\b|read_seqcount_retry|raw_seqcount"),
    ("rename_lock seq", r"need_seqretry|read_seqretry"),
    ("retain_dentry()", r"\bretain_dentry\s*\("),
]

TOKEN = re.compile(r"[A-Za-z_]\w*|->|&&|\|\||==|!=|<=|>=|\d\w*|\S")
KEYWORDS_CTRL = {"if", "while", "for", "switch"}


def strip_noncode(src):
    """@src with comments and string literals blanked, newlines kept."""
    out, i = [], 0
    while i < len(src):
        end = extract.skip_noncode(src, i)
        if end is None:
            out.append(src[i])
            i += 1
            continue
        out.append(re.sub(r"[^\n]", " ", src[i:end]))
        i = end
    return "".join(out)


def lock_name(expr):
    """The lock's kind from its expression: "d_lock", "parent d_lock", ..."""
    e = expr.replace(" ", "")
    if "rename_lock" in e:
        return "rename_lock"
    if "i_lock" in e:
        return "i_lock"
    if "lru" in e:
        return "LRU lock"
    if "d_lock" in e:
        return "parent d_lock" if re.search(r"parent", e) else "d_lock"
    return e


class Func:
    """One function: tokens (text, line), matching brackets, lock ops."""

    def __init__(self, name, text, first_line):
        self.name = name
        code = strip_noncode(text)
        self.toks = []
        for m in TOKEN.finditer(code):
            self.toks.append((m.group(0), first_line + code.count("\n", 0, m.start())))
        self.match = {}
        stack = []
        for i, (t, _) in enumerate(self.toks):
            if t in "({":
                stack.append(i)
            elif t in ")}":
                j = stack.pop()
                self.match[i], self.match[j] = j, i
        self.body = next(i for i, (t, _) in enumerate(self.toks) if t == "{")
        self.end = self.match[self.body]
        self.labels = {}
        for i in range(self.body + 1, self.end):
            t = self.toks[i][0]
            if (re.match(r"[A-Za-z_]\w*$", t) and self.toks[i + 1][0] == ":" and
                    self.toks[i - 1][0] in (";", "{", "}", ":") and t != "default"):
                self.labels[t] = i + 2
        self.ops = self.find_ops()

    def args(self, i):
        """Text of the call arguments after the name at @i."""
        if self.toks[i + 1][0] != "(":
            return None
        j = self.match[i + 1]
        return "".join(t for t, _ in self.toks[i + 2:j])

    def find_ops(self):
        ops = {}
        for i in range(self.body, self.end):
            t = self.toks[i][0]
            a = self.args(i) if i + 1 < self.end else None
            if a is None:
                continue
            kind = None
            if t in ("spin_lock", "spin_lock_nested"):
                kind, lock = "acquire", lock_name(a.split(",")[0])
            elif t == "spin_trylock":
                kind, lock = "trylock", lock_name(a)
            elif t == "spin_unlock":
                kind, lock = "release", lock_name(a)
            elif t == "read_seqbegin_or_lock":
                kind, lock = "acquire", "rename_lock"
            elif t == "done_seqretry":
                kind, lock = "release", "rename_lock"
            elif t in LOCK_CALLS and self.toks[i - 1][0] not in ("->", "."):
                kind, lock = LOCK_CALLS[t][0], LOCK_CALLS[t][1] + " (%s())" % t
            if kind:
                ops[i] = (kind, lock, self.toks[i][1], t)
        # ordinals: per lock kind (the part before any " (call)")
        seen = {}
        self.opid = {}
        for i in sorted(ops):
            base = ops[i][1].split(" (")[0].replace(" ", "-").replace(",", "")
            seen[base] = seen.get(base, 0) + 1
            self.opid[i] = "%s:%s:%d" % (self.name, base, seen[base])
        return ops

    # ---- control flow over tokens ----

    def stmt_end(self, i):
        """Index just past the statement starting at @i."""
        t = self.toks[i][0]
        if t == "{":
            return self.match[i] + 1
        if t in ("if", "while", "for", "switch") or (
                re.match(r"\w*for_each\w*$", t) and self.toks[i + 1][0] == "(" and
                self.toks[self.match[i + 1] + 1][0] == "{"):
            j = self.match[i + 1] + 1
            j = self.stmt_end(j)
            if t == "if" and j < self.end and self.toks[j][0] == "else":
                j = self.stmt_end(j + 1)
            return j
        if t == "do":
            j = self.stmt_end(i + 1)		# body; then "while (...) ;"
            return self.match[j + 1] + 2
        depth = 0
        while i < self.end:
            tt = self.toks[i][0]
            if tt in "({":
                depth += 1
            elif tt in ")}":
                depth -= 1
            elif tt == ";" and depth == 0:
                return i + 1
            i += 1
        return i

    def enclosing(self, i):
        """Innermost '{' that contains @i and its controlling statement start."""
        best = None
        for o, c in self.match.items():
            if self.toks[o][0] == "{" and o < i < c and (best is None or o > best):
                best = o
        return best

    def ctrl_of(self, brace):
        """The statement that owns block @brace: (kind, start index) or (None, None)."""
        p = brace - 1
        if self.toks[p][0] == ")":
            q = self.match[p] - 1
            k = self.toks[q][0]
            if k in KEYWORDS_CTRL:
                return k, q
            if re.match(r"\w*for_each\w*$", k):
                return "for", q		# list_for_each_entry() and kin: a for loop
        if self.toks[p][0] == "do":
            return "do", p
        if self.toks[p][0] == "else":
            return "else", p
        return None, None

    def loop_of(self, i):
        """(kind, start, end) of the innermost loop (or switch) around @i."""
        b = self.enclosing(i)
        while b is not None:
            k, s = self.ctrl_of(b)
            if k in ("while", "for", "do", "switch"):
                return k, s, self.stmt_end(s)
            b = self.enclosing(b)
        # a single-statement loop body: "while (x) stmt;"
        return None, None, None

    def after_block(self, close):
        """Where control goes when block ending at '}' @close finishes."""
        o = self.match[close]
        if o == self.body:
            return [None]			# the function returns
        k, s = self.ctrl_of(o)
        if k in ("while", "for"):
            return [s, self.stmt_end(s)]	# back edge, or the loop ends
        if k == "do":
            return [close + 1]		# the "while (cond);" decides
        if k == "if":
            j = close + 1
            if j < self.end and self.toks[j][0] == "else":
                return [self.stmt_end(j + 1)]
            return [j]
        return [close + 1]

    def successors(self, i):
        """Next positions of a walk at token @i (statement granularity)."""
        t = self.toks[i][0]
        if i >= self.end:
            return [None]
        if t == "}":
            return self.after_block(i)
        if t == "return":
            return [None]
        if t == "goto":
            return [self.labels.get(self.toks[i + 1][0])]
        if t in ("break", "continue"):
            k, s, e = self.loop_of(i)
            if s is None:
                return [None]
            if t == "break":
                return [e]
            return [s]
        if t == "if":
            cond_end = self.match[i + 1] + 1
            then_end = self.stmt_end(cond_end)
            nxt = [cond_end]
            if then_end < self.end and self.toks[then_end][0] == "else":
                nxt.append(then_end + 1)
            else:
                nxt.append(then_end)
            return ("cond", i + 2, self.match[i + 1], nxt)
        if t in ("while", "for") or (re.match(r"\w*for_each\w*$", t) and
                                     self.toks[self.match[i + 1] + 1][0] == "{"):
            e = self.stmt_end(i)
            return ("cond", i + 2, self.match[i + 1], [self.match[i + 1] + 1, e])
        if t == "do":
            return [i + 1]
        if t == "else":
            return [i + 1]
        if t == "{":
            return [i + 1]
        if t == ";":
            return [i + 1]
        if i + 1 < self.end and self.toks[i + 1][0] == ":" and t in self.labels:
            return [i + 2]
        # a simple statement (or a do-while's tail "while (c);" when after '}')
        e = self.stmt_end(i)
        return ("simple", i, e - 1, [e])

    def walk(self, start):
        """Lock acquisitions first reached from @start on some path: {op index}."""
        found, seen, todo = set(), set(), [start]
        while todo:
            p = todo.pop()
            if p is None or p in seen or p >= self.end:
                continue
            seen.add(p)
            if self.toks[p][0] == "while" and p > 0 and self.toks[p - 1][0] == "}":
                o = self.match[p - 1]
                k, s = self.ctrl_of(o)
                if k == "do":
                    # tail of do-while: the condition, then back to the body or out
                    ce = self.match[p + 1]
                    hit = [j for j in range(p + 2, ce) if j in self.ops and
                           self.ops[j][0] in ("acquire", "trylock")]
                    if hit:
                        found.add(hit[0])
                        continue
                    todo += [s + 1, ce + 2]
                    continue
            s = self.successors(p)
            if isinstance(s, tuple):
                _, a, b, nxt = s
                hit = [j for j in range(a, b + 1) if j in self.ops and
                       self.ops[j][0] in ("acquire", "trylock")]
                if hit:
                    found.add(hit[0])
                    continue
                todo += nxt
            else:
                todo += s
        return found

    def stmt_start(self, i):
        """Start of the smallest statement or condition containing op @i."""
        return i

    def rechecks(self, acq):
        """What the code tests after the lock taken at op @acq: conditions and
        returns up to the next lock operation (or 8 lines), textually."""
        line0 = self.toks[acq][1]
        j = acq
        # the retake may itself sit in a condition: that is not a recheck
        if self.toks[acq + 1][0] == "(":
            j = self.match[acq + 1] + 1
        text = []
        home = self.enclosing(acq)
        while j < self.end and self.toks[j][1] <= line0 + 12:
            if j in self.ops:
                if self.ops[j][0] == "release" and self.enclosing(j) != home and \
                        self.enclosing(j) is not None and self.enclosing(j) > home:
                    # a branch that gives up (unlock, goto): past it
                    j = self.match[self.enclosing(j)] + 1
                    continue
                if self.ops[j][0] != "acquire":
                    break
                # a chain of locks taken again: the rechecks follow the last
                line0 = self.toks[j][1]
                home = self.enclosing(j)
                if self.toks[j + 1][0] == "(":
                    j = self.match[j + 1] + 1
                    continue
            if self.toks[j][0] in ("if", "while", "return") or \
                    (self.toks[j][0] == "(" and self.toks[j - 1][0] == "while"):
                if self.toks[j][0] == "return":
                    e = self.stmt_end(j)
                    text.append("".join(t for t, _ in self.toks[j + 1:e]))
                    j = e
                    continue
                k = j + 1 if self.toks[j][0] != "(" else j
                if self.toks[k][0] == "(":
                    text.append("".join(t for t, _ in self.toks[k:self.match[k] + 1]))
                    j = self.match[k] + 1
                    continue
            j += 1
        joined = " ".join(text)
        return [name for name, rx in RECHECKS if re.search(rx, joined)]

    def windows(self):
        out = []
        for i in sorted(self.ops):
            kind, lock, line, call = self.ops[i]
            if kind == "acquire":
                continue
            if kind == "trylock":
                # the failure path: the walk from the trylock's statement,
                # ignoring the trylock itself (its success path ends on it
                # too, and is not a window)
                start = self.trylock_fail_start(i)
                if start is None:
                    continue
            else:
                start = self.stmt_end(self.stmt_head(i))
            ends = sorted(self.walk(start))
            if kind == "trylock":
                ends = [e for e in ends if e != i]
            if not ends:
                continue
            retakes = [(self.ops[e][2], self.ops[e][0], self.ops[e][1]) for e in ends]
            checks = []
            for e in ends:
                for c in self.rechecks(e):
                    if c not in checks:
                        checks.append(c)
            out.append({
                "id": self.opid[i], "func": self.name, "line": line,
                "open": "%s %s" % ("failed trylock of" if kind == "trylock" else
                                   "release of", lock),
                "kind": kind, "retakes": retakes, "rechecks": checks,
            })
        return out

    def stmt_head(self, i):
        """The statement (not condition) containing op @i, from its first token."""
        j = i
        while j > self.body:
            t = self.toks[j - 1][0]
            if t in (";", "{", "}") or (t == ":" and self.toks[j - 2][0] in self.labels):
                break
            if t == ")" and self.match[j - 1] < j - 1 and \
                    self.toks[self.match[j - 1] - 1][0] in KEYWORDS_CTRL:
                break
            if t == "else" or t == "do":
                break
            j -= 1
        return j

    def trylock_fail_start(self, i):
        """Where the failure of the trylock at @i leads: the statement after
        the condition's branch taken on failure."""
        # find the control statement whose condition holds the trylock
        b = i
        while b > self.body:
            if self.toks[b][0] == "(" and self.match[b] > i and \
                    self.toks[b - 1][0] in ("if", "while"):
                break
            b -= 1
        if b <= self.body:
            return None			# a plain statement: "ok = spin_trylock(...)"
        cond = "".join(t for t, _ in self.toks[b + 1:self.match[b]])
        negated = re.search(r"!\s*(likely\(|unlikely\()?\s*spin_trylock", cond) is not None
        ctrl = b - 1
        cond_end = self.match[b] + 1
        if self.toks[ctrl][0] == "while":
            # "while (!spin_trylock(x))": failure runs the body
            return cond_end if negated else self.stmt_end(ctrl)
        then_end = self.stmt_end(cond_end)
        has_else = then_end < self.end and self.toks[then_end][0] == "else"
        if negated:
            return cond_end
        # "if (a || spin_trylock(x)) ok;": failure takes the else or falls through
        return then_end + 1 if has_else else then_end


def functions_of(path, funcs):
    with open(path, encoding="utf-8") as f:
        src = f.read()
    out = []
    for n in funcs:
        s, e = extract.find_function(src, n, path)
        body = src[s:e]
        out.append(Func(n, body, extract.line_of(src, s)))
    return out


def audit(tarball_dir, tarballs=None):
    """{variant: [window, ...]} for every variant; @tarballs: {tree: path} overrides."""
    res = {}
    for tree_name, variant, series in VARIANTS:
        table = os.path.join(ROOT, "kernel-code", "trees", tree_name + ".tree")
        tree = extract.read_tree(table)
        tarball = (tarballs or {}).get(tree_name) or \
            os.path.join(tarball_dir, tree["package"] + ".tar.xz")
        if not os.path.exists(tarball):
            extract.die("%s not found (apt-get install %s)" % (tarball, tree["package"]))
        patches = extract.read_series(os.path.join(ROOT, series)) if series else []
        members = {tree["source"], tree["lockref"]}
        for p in patches:
            members |= {extract.strip_path(o, 1) for o, n in extract.patch_diffs(p)[0]
                        if o != "/dev/null"}
        work = tempfile.mkdtemp(prefix="window-audit.")
        try:
            err = tarball_cache.unpack(tarball, tree["top"], members, work)
            if err is not None:
                extract.die("%s: cannot unpack: %s" % (tarball, err))
            base = os.path.join(work, tree["top"])
            for p in patches:
                extract.apply_patch(p, base, tarball, None)
            funcs = tree["funcs"] + (tree["series-funcs"] if series else [])
            wins = []
            for fn in functions_of(os.path.join(base, tree["source"]), funcs):
                wins += fn.windows()
            res[variant] = wins
        finally:
            shutil.rmtree(work, ignore_errors=True)
    return res


def read_counts(specs):
    """{strategy: {(func, line): [reached, parked, ops]}} from the dumps,
    each given as STRATEGY=FILE."""
    counts = {}
    for spec in specs:
        strategy, p = spec.split("=", 1)
        with open(p, encoding="utf-8") as f:
            for ln in f:
                w = ln.split()
                # "window FUNC LINE REACHED PARKED OPS" (hold windows: "hold ...")
                if len(w) != 6 or w[0] != "window":
                    continue
                # exported kernel functions are renamed per variant (kc_k612_dput)
                func = re.sub(r"^kc_k\d+(_htm)?_", "", w[1])
                c = counts.setdefault(strategy, {}).setdefault((func, int(w[2])), [0, 0, 0])
                for k in range(3):
                    c[k] += int(w[3 + k])
    return counts


HEADER = """# Lock-drop windows of the kernel code

<!-- SPDX-License-Identifier: GPL-2.0 -->
<!-- Generated by kernel-code/window-audit.py; do not edit (the test
     window-audit-table fails when this file differs from its output). -->

Every place in the kernel functions that dcsim compiles (kernel-code/,
the tables in kernel-code/trees/) where a lock is released and a lock is
taken again on some path of the same function, or where a failed
spin_trylock() leads to a lock taken later: the code's lock-drop
windows.  Inside one, another thread may change what the first thread
saw under the lock; what the code tests right after the lock is taken
again is listed under "rechecks".  Line numbers are fs/dcache.c's of the
Debian tarball (with the HTM series for the -htm variants), as in the
explorer's traces.

The id is function:lock:ordinal, the ordinal counting that function's
operations on that kind of lock in source order.  "reached" counts the
times a window-directed exploration (`dcsim-check --sched window`) saw a
thread open the window and then take a lock; "parked" the times it kept
the thread there, and "ops" the whole operations the other threads ran
while it was parked.  How the table is made and what it cannot see:
docs/window-exploration.md.

The counts: the explore suite under `--sched window` at the default budget
(250 executions per scenario and mode), one run per variant; every window
is reached, or says why it cannot be.  Regenerate (instrumented build in
build-instr):

    python3 kernel-code/window-audit.py --run build-instr --budget default \\
        --coverage --out docs/windows.md
"""


def render(res, counts):
    out = [HEADER]
    for tree_name, variant, series in VARIANTS:
        wins = res[variant]
        out.append("\n## %s (linux-source-%s%s)\n\n" %
                   (variant, tree_name, ", with %s" % series if series else ""))
        out.append("| id | line | opens with | taken again (line) | rechecks | "
                   "reached | parked | ops |\n")
        out.append("|---|---|---|---|---|---|---|---|\n")
        vc = counts.get(variant, {})
        for w in wins:
            ret = ", ".join("%s %s (%d)" % ("trylock" if k == "trylock" else "lock", l, ln)
                            for ln, k, l in w["retakes"])
            c = vc.get((w["func"], w["line"]))
            if w["id"] in UNREACHABLE and not c:
                cells = "unreachable: %s | | " % UNREACHABLE[w["id"]]
            elif w["id"] in RARE and not c:
                cells = "not reached in this run: %s | | " % RARE[w["id"]]
            elif counts:
                c = c or [0, 0, 0]
                cells = "%d | %d | %d" % tuple(c)
            else:
                cells = " | | "
            out.append("| `%s` | %d | %s | %s | %s | %s |\n" %
                       (w["id"], w["line"], w["open"], ret,
                        ", ".join(w["rechecks"]) or "none", cells))
        out.append("\n%d windows.\n" % len(wins))
    return "".join(out)


def run_dumps(build, budget, outdir):
    """Run the explore suite with --sched window for each variant: STRATEGY=FILE specs."""
    check = os.path.join(build, "tools", "dcsim-check")
    plugin = os.path.join(build, "kernel-code", "libdcsim-kc-corpus.so")
    for p in (check, plugin):
        if not os.path.exists(p):
            extract.die("%s not found (an instrumented build: meson setup %s "
                        "-Dinstrument=true)" % (p, build))
    specs = []
    for _, variant, _ in VARIANTS:
        dump = os.path.join(outdir, "windows-%s.txt" % variant)
        if os.path.exists(dump):
            os.unlink(dump)
        cmd = [check, "--load", plugin, "--strategy", variant, "--suites", "explore",
               "--sched", "window", "--budget", budget, "--window-dump", dump]
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if r.returncode:
            sys.stderr.write(r.stdout[-4000:])
            extract.die("%s failed (exit %d)" % (" ".join(cmd), r.returncode))
        specs.append("%s=%s" % (variant, dump))
    return specs


def counts_of_doc(path):
    """The counts a generated file holds, as read_counts() gives them."""
    counts, variant = {}, None
    with open(path, encoding="utf-8") as f:
        for ln in f:
            m = re.match(r"^## (\S+) ", ln)
            if m:
                variant = m.group(1)
                continue
            m = re.match(r"^\| `([^:`]+):[^`]*` \| (\d+) \|.*\| (\d+) \| (\d+) \| (\d+) \|$", ln)
            if m and variant:
                counts.setdefault(variant, {})[(m.group(1), int(m.group(2)))] = \
                    [int(m.group(k)) for k in (3, 4, 5)]
    return counts


def main():
    ap = argparse.ArgumentParser(description="list the lock-drop windows of kernel-code/")
    ap.add_argument("--tarball-dir", default="/usr/src")
    ap.add_argument("--tarball", action="append", default=[], metavar="TREE=PATH",
                    help="the tarball of tree 6.1 or 6.12, if not in --tarball-dir")
    ap.add_argument("--counts", nargs="*", default=[])
    ap.add_argument("--coverage", action="store_true")
    ap.add_argument("--run", metavar="BUILD_INSTR")
    ap.add_argument("--budget", default="default", choices=("quick", "default", "soak"))
    g = ap.add_mutually_exclusive_group()
    g.add_argument("--out")
    g.add_argument("--check")
    args = ap.parse_args()
    for spec in args.counts:
        if "=" not in spec or not os.path.exists(spec.split("=", 1)[1]):
            sys.stderr.write("window-audit.py: error: --counts %s: want STRATEGY=FILE, "
                             "an existing dump\n" % spec)
            return 2
    tarballs = {}
    for spec in args.tarball:
        tree, _, path = spec.partition("=")
        if tree not in ("6.1", "6.12") or not path:
            sys.stderr.write("window-audit.py: error: --tarball %s: want 6.1=PATH or "
                             "6.12=PATH\n" % spec)
            return 2
        tarballs[tree] = path
    res = audit(args.tarball_dir, tarballs)
    tmp = None
    if args.run:
        tmp = tempfile.mkdtemp(prefix="window-audit.")
        args.counts += run_dumps(args.run, args.budget, tmp)
    counts = read_counts(args.counts)
    if tmp:
        shutil.rmtree(tmp, ignore_errors=True)
    if args.check and not args.counts:
        counts = counts_of_doc(args.check)
    text = render(res, counts)
    rc = 0
    if args.coverage:
        missing = []
        for _, variant, _ in VARIANTS:
            vc = counts.get(variant, {})
            for w in res[variant]:
                c = vc.get((w["func"], w["line"]))
                if (not c or not c[0]) and w["id"] not in UNREACHABLE and w["id"] not in RARE:
                    missing.append("%s %s (line %d)" % (variant, w["id"], w["line"]))
                elif c and c[0] and w["id"] in UNREACHABLE:
                    missing.append("%s %s (line %d): reached, but UNREACHABLE says why "
                                   "it cannot be" % (variant, w["id"], w["line"]))
        if missing:
            sys.stderr.write("window-audit.py: %d windows not reached by any dump, or "
                             "reached against UNREACHABLE:\n  %s\n" %
                             (len(missing), "\n  ".join(missing)))
            rc = 1
    if args.check:
        with open(args.check, encoding="utf-8") as f:
            if f.read() != text:
                sys.stderr.write("window-audit.py: %s differs from the audit; regenerate it "
                                 "(see its header)\n" % args.check)
                rc = 1
    elif args.out:
        extract.write(args.out, text)
    elif not args.coverage:
        sys.stdout.write(text)
    return rc


if __name__ == "__main__":
    sys.exit(main())
