#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Mechanical: the engine's global `struct explorer ex` becomes a parameter.

Every function of src/engine/ that reads or writes the explorer's state, or
calls one that does, takes `struct explorer *ex` first; `ex.f` becomes
`ex->f`.  The entry points (the hook table's functions, the public API, a
thread's or fiber's start routine, the signal handler) keep their
signatures and fetch the context once: `struct explorer *ex = explore_ctx();`.
Run from the repository root: python3 docs/notes/engine-state-pass.py [--dry]

Kept for merges: a branch written against the global `ex` (ex.f) is brought
over by running this after the merge; on code already converted it changes
nothing.  What it does not do, and the commit "engine: the explorer's state
is passed, not global" did by hand: the object and explore_ctx() (context.c,
internal.h), printf-format attribute indexes shifted by one, a blank line
after the fetched context, and long signatures rewrapped.
"""
import re, sys, glob, os

D = "src/engine"
ENTRY = {
    # the hook table (hooks.c)
    "explore_sched_point", "strict_spin_note", "strict_spin_assert_held", "window_spin_site",
    "lockdep_set_class", "lockdep_set_class_array", "explore_running", "sim_take_env",
    "sim_owns_thread", "sim_live", "sim_begin_nojmp", "sim_in_txn", "sim_prepare", "sim_start",
    "sim_resume", "sim_abort", "sim_end",
    # start routines and handlers
    "lthread_main", "lthread_fiber_main", "crash_handler",
}
files = sorted(glob.glob(D + "/*.c")) + [D + "/internal.h"]
text = {f: open(f).read() for f in files}

DEF = re.compile(r'^(?P<head>(?:static\s+|inline\s+|__attribute__\(\([^\n]*?\)\)\s+)*'
                 r'[A-Za-z_][\w\s\*]*?\b(?P<name>\w+))\((?P<params>[^;{}]*?)\)\s*\n\{',
                 re.M)

def bodies(src):
    """(name, start of def, start of body '{', end of body '}') for each definition."""
    out = []
    for m in DEF.finditer(src):
        name = m.group("name")
        if name in ("if", "while", "for", "switch", "return", "sizeof"):
            continue
        b = m.end() - 1
        e = src.index("\n}\n", b) + 2
        out.append((name, m.start(), b, e))
    return out

defs = {}
for f, s in text.items():
    for name, st, b, e in bodies(s):
        defs.setdefault(name, []).append((f, s[b:e + 1]))

# public API: dcsim_* functions defined here keep their signatures
for n in defs:
    if n.startswith("dcsim_"):
        ENTRY.add(n)
# functions whose address is taken (used without a call): entries too
for f, s in text.items():
    for n in defs:
        for m in re.finditer(r'(?<![.>\w])' + re.escape(n) + r'\b(?!\s*\()', s):
            line = s[s.rfind("\n", 0, m.start()) + 1:s.find("\n", m.start())]
            if "/*" in line or line.lstrip().startswith("*"):
                continue
            ENTRY.add(n)

ENTRY.discard("htm_conflicts")   # a field of the same name, not its address
need = {n for n, bs in defs.items() if any(re.search(r'\bex(\.|->)', b) for _, b in bs)}
changed = True
while changed:
    changed = False
    for n, bs in defs.items():
        if n in need:
            continue
        for _, b in bs:
            if any(re.search(r'(?<![.>\w])' + re.escape(c) + r'\s*\(', b) for c in need - ENTRY):
                need.add(n)
                changed = True
                break
conv = need - ENTRY
ent = need & ENTRY
print("converted:", len(conv), "entries fetching the context:", sorted(ent), file=sys.stderr)
print("entries not needing it:", sorted(ENTRY - need), file=sys.stderr)

def rewrite(s):
    s = re.sub(r'\bex\.(?=[A-Za-z_])', 'ex->', s)
    saved = []
    def mask(m):
        saved.append(m.group(0))
        return "\x00%d\x00" % (len(saved) - 1)
    s = re.sub(r'/\*.*?\*/|//[^\n]*', mask, s, flags=re.S)
    for n in sorted(conv, key=len, reverse=True):
        s = re.sub(r'(?<![.>\w])' + n + r'\(\s*\)', n + '(ex)', s)
        s = re.sub(r'(?<![.>\w])' + n + r'\((?!ex[,)]|struct explorer \*ex\b)', n + '(ex, ', s)
    # definitions and prototypes: a line that starts with a type, not a call
    def fixdecl(m):
        return m.group(1) + "(struct explorer *ex" + m.group(2)
    for n in conv:
        s = re.sub(r'(^(?:static |inline |extern |__attribute__\(\([^()]*(?:\([^()]*\))?[^()]*\)\) |const |unsigned |struct \w+ |enum \w+ |\w+ |\*)*\**' + n + r')\(ex(, |\))',
                   fixdecl, s, flags=re.M)
    s = s.replace("(struct explorer *ex, void)", "(struct explorer *ex)")
    s = re.sub(r'\x00(\d+)\x00', lambda m: saved[int(m.group(1))], s)
    # entries: fetch the context at the top of the body
    for name, st, b, e in reversed(bodies(s)):
        if name in ent:
            body = s[b:e + 1]
            if "explore_ctx()" in body:
                continue
            # after the leading declarations block's first line: simply first
            s = s[:b + 1] + "\n\tstruct explorer *ex = explore_ctx();\n" + s[b + 2:]
    return s

if "--dry" in sys.argv:
    sys.exit(0)
for f in files:
    n = rewrite(text[f])
    if n != text[f]:
        open(f, "w").write(n)
