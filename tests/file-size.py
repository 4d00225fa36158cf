#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""No .c file of the tree is over MAX_LINES lines: a file that long holds
more than one concept, and is split by concept (as src/model/cache.c into
cache.c, lifetime.c and lru.c).

    file-size.py SOURCE_ROOT    fail on a .c file over the limit
    file-size.py --self-test    check the checker on small trees

Every .c file under SOURCE_ROOT counts, wherever it is, except build
directories (a folder holding meson-private/) and .git; there is no list
of exceptions.  Exit 0 clean, 1 too long, 2 usage.
"""

import os
import sys
import tempfile

MAX_LINES = 900


def count_lines(path):
    with open(path, "rb") as fh:
        return sum(1 for _ in fh)


def scan(root):
    """Return {relative path: lines} of every .c file over MAX_LINES."""
    over = {}
    for d, dirs, files in os.walk(root):
        dirs[:] = sorted(x for x in dirs if x != ".git" and
                         not os.path.isdir(os.path.join(d, x, "meson-private")))
        for f in sorted(files):
            if f.endswith(".c"):
                p = os.path.join(d, f)
                n = count_lines(p)
                if n > MAX_LINES:
                    over[os.path.relpath(p, root)] = n
    return over


def check(root):
    errors = [f"{rel}: {n} lines > {MAX_LINES}: split it by concept"
              for rel, n in sorted(scan(root).items())]
    for e in errors:
        print(e)
    return errors


def self_test():
    failed = 0

    top = tempfile.TemporaryDirectory()

    def tree(files):
        t = tempfile.mkdtemp(dir=top.name)
        for rel, n in files.items():
            p = os.path.join(t, rel)
            os.makedirs(os.path.dirname(p), exist_ok=True)
            with open(p, "w") as fh:
                fh.write("/* x */\n" * n)
        return t

    cases = [
        # (name, files, the error lines wanted)
        ("at the limit", {"src/a.c": MAX_LINES, "src/b.h": 5000}, []),
        ("one over", {"src/a.c": MAX_LINES + 1}, ["src/a.c: 901 lines"]),
        ("deep in tests", {"tests/x/y.c": 2000}, ["tests/x/y.c: 2000 lines"]),
        ("bench", {"bench/dcsim-bench.c": 1000}, ["bench/dcsim-bench.c: 1000 lines"]),
        ("two over", {"bench/r.c": 1000, "src/engine/e.c": 950},
         ["bench/r.c: 1000 lines", "src/engine/e.c: 950 lines"]),
        ("build dir skipped", {"build/meson-private/x": 1, "build/gen.c": 5000}, []),
    ]
    for name, files, want in cases:
        print(f"-- {name}")
        errs = check(tree(files))
        if len(errs) != len(want) or not all(any(w in e for e in errs) for w in want):
            print(f"FAIL: {name}: got {errs}, want {want}")
            failed += 1
    top.cleanup()
    print("self-test:", "FAIL" if failed else "ok", f"({len(cases)} trees)")
    return 1 if failed else 0


def main(argv):
    args = argv[1:]
    if args == ["--self-test"]:
        return self_test()
    if len(args) != 1 or not os.path.isdir(args[0]):
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    errors = check(os.path.abspath(args[0]))
    if errors:
        print(f"file-size: {len(errors)} error(s)")
        return 1
    print(f"file-size: ok (no .c file over {MAX_LINES} lines)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
