#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Files that need little see little: which part of the explorer's state
each file of src/engine/ reaches, checked against a table.

    engine-state.py SOURCE_ROOT [--report]
                                check src/engine/; with --report, also print
                                per file whether it takes the whole explorer
                                and which of its sub-structs it touches
    engine-state.py --self-test check the checker on small trees with one
                                planted violation each

The explorer's state is `struct explorer` (src/engine/internal.h).  Each
concern's state is a sub-struct of it, `struct ex_NAME FIELD;`, owned by
the file that implements the concern (docs/design.md, "The engine's
state").  A function that needs one concern takes a pointer to its
sub-struct, not `struct explorer *ex`.  Read from the sources:

  - a file is *wide* when it names `struct explorer` or calls
    explore_ctx(); a file listed in NARROW must not be;
  - a function whose parameters name a sub-struct (`struct ex_NAME *`)
    and not the explorer must not fetch the explorer (explore_ctx() or
    the object itself) in its body: a narrow signature that reaches
    everything anyway would lie to its reader;
  - a file *touches* a sub-struct when it writes `ex->FIELD` (or
    `explore_ctx()->FIELD`) or names
    `struct ex_NAME`; the files that touch each sub-struct are exactly
    those USERS lists.  A new user must be added here (and it says so in
    review); a listed file that stopped touching it fails as stale, so
    the table stays the truth.

Exit 0 clean, 1 a violation (each printed as FILE:LINE: what), 2 usage.
"""

import os
import re
import sys
import tempfile

# ---- the rule table ---------------------------------------------------------

ENGINE = "src/engine"

# Files that never see the whole explorer: they take sub-structs only.
NARROW = {"dfs.c", "schedule-log.c", "weak-memory.c"}

# Sub-struct (its type, without "struct ") -> the files that touch it.
# explore.c sets every concern up per execution and copies the counts into
# the result; report.c prints what the failed execution left.
USERS = {
    "ex_slog": {"explore.c", "htm-conflicts.c", "pool.c", "rcu-cb.c",
                "rcu-gp.c", "report.c", "sched-point.c", "schedule-log.c", "strict.c",
                "weak-memory.c"},
    "ex_decisions": {"explore.c", "lasso.c", "pick.c", "report.c", "schedule-log.c"},
    "ex_pct": {"explore.c", "pick.c", "report.c"},
    "ex_dfs": {"dfs.c", "explore.c", "pick.c"},
    "ex_rcu": {"explore.c", "lasso.c", "rcu-cb.c", "rcu-gp.c", "report.c"},
    "ex_htm": {"explore.c", "htm-conflicts.c", "htm-sim.c"},
    "ex_wm": {"explore.c", "sched-point.c", "weak-memory.c"},
    "ex_strict": {"explore.c", "lasso.c", "pick.c", "strict.c"},
}

# ---- the checker ------------------------------------------------------------

MEMBER = re.compile(r"^\s*struct\s+(ex_\w+)\s+(\w+)\s*;", re.M)
WIDE = re.compile(r"\bstruct\s+explorer\b|\bexplore_ctx\s*\(|\bexplore_the_explorer\b")
FETCH = re.compile(r"\bexplore_ctx\s*\(|\bexplore_the_explorer\b")
# A function definition at the start of a line: its name, parameters, body.
DEF = re.compile(r"^(?:[A-Za-z_][\w \t\*]*?|__attribute__\(\([^\n]*?\)\)[\w \t\*]*?)"
                 r"\b(\w+)\(([^;{}()]*(?:\([^;{}()]*\)[^;{}()]*)*)\)\s*\n\{", re.M)


def strip_comments(src):
    """@src with comments and string literals blanked, newlines kept."""
    def blank(m):
        return re.sub(r"[^\n]", " ", m.group(0))
    return re.sub(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"', blank, src, flags=re.S)


def line_of(src, pos):
    return src.count("\n", 0, pos) + 1


def members(root):
    """{field: sub-struct type} of struct explorer in internal.h."""
    path = os.path.join(root, ENGINE, "internal.h")
    with open(path) as fh:
        src = strip_comments(fh.read())
    m = re.search(r"^struct explorer\s*\{(.*?)^\};", src, re.M | re.S)
    if not m:
        return None
    return {field: typ for typ, field in MEMBER.findall(m.group(1))}


def scan(root):
    """Per engine .c file: (wide line or 0, {sub-struct: first line}, errors)."""
    subs = members(root)
    out = {}
    d = os.path.join(root, ENGINE)
    for name in sorted(os.listdir(d)):
        if not name.endswith(".c"):
            continue
        rel = f"{ENGINE}/{name}"
        with open(os.path.join(d, name)) as fh:
            src = strip_comments(fh.read())
        m = WIDE.search(src)
        wide = line_of(src, m.start()) if m else 0
        touched = {}
        for field, typ in subs.items():
            for pat in (rf"(?:\bex|\bexplore_ctx\(\s*\))->{field}\b", rf"\bstruct\s+{typ}\b"):
                m = re.search(pat, src)
                if m:
                    ln = line_of(src, m.start())
                    touched[typ] = min(touched.get(typ, ln), ln)
        errors = []
        for m in DEF.finditer(src):
            fn, params = m.group(1), m.group(2)
            if fn in ("if", "while", "for", "switch", "return", "sizeof"):
                continue
            if not re.search(r"\bstruct\s+ex_\w+\s*\*", params) or "struct explorer" in params:
                continue
            body_start = m.end() - 1
            body_end = src.find("\n}\n", body_start)
            body = src[body_start:body_end if body_end >= 0 else len(src)]
            f = FETCH.search(body)
            if f:
                errors.append(f"{rel}:{line_of(src, body_start + f.start())}: {fn}() takes a "
                              f"sub-struct but fetches the whole explorer; pass what it needs")
        out[name] = (wide, touched, errors)
    return out


def check(root, report=False):
    subs = members(root)
    if subs is None:
        print(f"{ENGINE}/internal.h:1: no struct explorer found")
        return ["no struct explorer"]
    errors = []
    types = set(subs.values())
    for typ in sorted(types - set(USERS)):
        errors.append(f"{ENGINE}/internal.h:1: struct explorer has struct {typ}, which USERS "
                      f"in tests/engine-state.py does not list")
    for typ in sorted(set(USERS) - types):
        errors.append(f"{ENGINE}/internal.h:1: USERS lists struct {typ}, which struct explorer "
                      f"no longer has")
    files = scan(root)
    for name in sorted(NARROW - set(files)):
        errors.append(f"{ENGINE}/{name}:1: listed in NARROW but not in the tree")
    for name, (wide, touched, errs) in files.items():
        rel = f"{ENGINE}/{name}"
        errors += errs
        if name in NARROW and wide:
            errors.append(f"{rel}:{wide}: a narrow file reaches the whole explorer; "
                          f"take the sub-struct it needs ({', '.join(sorted(touched)) or 'none'})")
        for typ, ln in sorted(touched.items()):
            if typ in USERS and name not in USERS[typ]:
                errors.append(f"{rel}:{ln}: touches struct {typ}, but is not among its users "
                              f"in tests/engine-state.py; pass what it needs, or list it")
    for typ, users in sorted(USERS.items()):
        for name in sorted(users):
            if name in files and typ not in files[name][1]:
                errors.append(f"{ENGINE}/{name}:1: stale: listed as a user of struct {typ}, "
                              f"but no longer touches it")
            elif name not in files:
                errors.append(f"{ENGINE}/{name}:1: listed as a user of struct {typ} but not "
                              f"in the tree")
    if report:
        for name, (wide, touched, _) in files.items():
            kind = "whole explorer" if wide else "narrow" if touched else "none"
            print(f"  {name:20} {kind:15} {' '.join(sorted(touched)) or '-'}")
    for e in errors:
        print(e)
    return errors


# ---- self-test --------------------------------------------------------------

CLEAN = {
    "internal.h": "struct ex_a { int n; };\nstruct ex_b { int m; };\n"
                  "struct explorer {\n\tint core;\n\tstruct ex_a a;\t/* a.c */\n"
                  "\tstruct ex_b b;\n};\n",
    "a.c": '#include "internal.h"\n/* struct explorer is not named here */\n'
           "int a_get(const struct ex_a *a)\n{\n\treturn a->n;\n}\n",
    "b.c": '#include "internal.h"\nint b_get(struct explorer *ex)\n{\n'
           "\treturn ex->b.m + a_get(&ex->a);\n}\n"
           "static int b_only(struct ex_b *b)\n{\n\treturn b->m;\n}\n",
    "main.c": '#include "internal.h"\nint run(void)\n{\n\tstruct explorer *ex = explore_ctx();\n'
              "\n\treturn ex->core + b_get(ex);\n}\n",
}
CLEAN_NARROW = {"a.c"}
CLEAN_USERS = {"ex_a": {"a.c", "b.c"}, "ex_b": {"b.c"}}

# name: (file, text appended, words the one error must contain)
BAD = {
    "narrow file takes the explorer": (
        "a.c", "int a_wide(struct explorer *ex)\n{\n\treturn ex->core;\n}\n",
        "a narrow file reaches the whole explorer"),
    "narrow file fetches the explorer": (
        "a.c", "int a_fetch(void)\n{\n\treturn explore_ctx() != 0;\n}\n",
        "a narrow file reaches the whole explorer"),
    "narrow function fetches the explorer": (
        "b.c", "int b_sneak(struct ex_b *b)\n{\n\tstruct explorer *ex = explore_ctx();\n\n"
               "\treturn b->m + ex->core;\n}\n",
        "b_sneak() takes a sub-struct but fetches the whole explorer"),
    "file touches a sub-struct it is not listed for": (
        "main.c", "int peek(void)\n{\n\treturn explore_ctx()->b.m;\n}\n",
        "touches struct ex_b, but is not among its users"),
    "file passes a sub-struct it is not listed for": (
        "main.c", "int pass(struct explorer *ex)\n{\n\treturn a_get(&ex->a);\n}\n",
        "touches struct ex_a, but is not among its users"),
}


def write_tree(base, extra=None):
    d = os.path.join(base, ENGINE)
    os.makedirs(d, exist_ok=True)
    files = dict(CLEAN)
    if extra:
        files[extra[0]] += extra[1]
    for name, text in files.items():
        with open(os.path.join(d, name), "w") as fh:
            fh.write(text)


def self_test():
    global NARROW, USERS
    saved = NARROW, USERS
    NARROW, USERS = CLEAN_NARROW, CLEAN_USERS
    failed = 0
    try:
        with tempfile.TemporaryDirectory() as tmp:
            t = os.path.join(tmp, "clean")
            write_tree(t)
            print("-- clean tree")
            if check(t, report=True):
                print("FAIL: the clean tree has violations")
                failed += 1
            for name, (path, text, want) in BAD.items():
                t = os.path.join(tmp, re.sub(r"\W+", "-", name))
                write_tree(t, (path, text))
                print(f"-- {name}")
                errs = check(t)
                if len(errs) != 1 or want not in errs[0] or path not in errs[0]:
                    print(f"FAIL: {name}: want exactly one error naming '{want}' in {path}")
                    failed += 1
            # the table's own honesty: a stale user, an unlisted sub-struct
            t = os.path.join(tmp, "stale")
            write_tree(t)
            USERS = {"ex_a": {"a.c", "b.c", "main.c"}, "ex_b": {"b.c"}}
            print("-- stale user")
            errs = check(t)
            if len(errs) != 1 or "stale" not in errs[0] or "main.c" not in errs[0]:
                print("FAIL: a stale user passed")
                failed += 1
            USERS = {"ex_a": {"a.c", "b.c"}}
            print("-- unlisted sub-struct")
            errs = check(t)
            if not any("does not list" in e and "ex_b" in e for e in errs):
                print("FAIL: a sub-struct missing from USERS passed")
                failed += 1
    finally:
        NARROW, USERS = saved
    print("self-test:", "FAIL" if failed else "ok", f"({len(BAD) + 3} trees)")
    return 1 if failed else 0


def main(argv):
    if len(argv) == 2 and argv[1] == "--self-test":
        return self_test()
    args = [a for a in argv[1:] if a != "--report"]
    if len(args) != 1 or not os.path.isdir(os.path.join(args[0], ENGINE)) or \
            len(argv) - 1 - len(args) > 1:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    errors = check(os.path.abspath(args[0]), report="--report" in argv)
    if errors:
        print(f"engine-state: {len(errors)} violation(s); the rules are at the top of {argv[0]}")
        return 1
    wide = sum(1 for w, _, _ in scan(os.path.abspath(args[0])).values() if w)
    print(f"engine-state: ok ({len(NARROW)} narrow files, {len(USERS)} sub-structs, "
          f"{wide} files take the whole explorer)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
