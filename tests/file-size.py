#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""No .c file of the tree is over MAX_LINES lines: a file that long holds
more than one concept, and is split by concept (as src/model/cache.c into
cache.c, lifetime.c and lru.c).

    file-size.py SOURCE_ROOT            fail on a .c file over the limit; a
                                        PENDING file is reported, not failed
    file-size.py --strict SOURCE_ROOT   fail on the PENDING files too
    file-size.py --self-test            check the checker on small trees

Every .c file under SOURCE_ROOT counts, wherever it is, except build
directories (a folder holding meson-private/) and .git.  Exit 0 clean,
1 too long (or a stale PENDING entry), 2 usage.
"""

import os
import sys
import tempfile

MAX_LINES = 900

# Files over the limit whose split is under way, each with why.  An entry
# whose file is gone or now within the limit fails ("stale"), so the list
# can only shrink; it must end empty (then run with --strict).
PENDING = {
    "bench/dcsim-bench.c": "the bench front end's split (option table)",
    "tests/concurrency/test-explore.c": "to split by what it tests",
    "tests/unit/test-dcache.c": "to split by what it tests",
}


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


def check(root, strict=False, pending=None):
    pending = PENDING if pending is None else pending
    errors = []
    over = scan(root)
    for rel, n in sorted(over.items()):
        if rel in pending and not strict:
            print(f"{rel}: {n} lines > {MAX_LINES}: pending ({pending[rel]})")
        else:
            errors.append(f"{rel}: {n} lines > {MAX_LINES}: split it by concept")
    for rel in sorted(set(pending) - set(over)):
        errors.append(f"{rel}: stale PENDING entry (within {MAX_LINES} lines or gone); "
                      f"remove it from tests/file-size.py")
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
        # (name, files, pending, strict, the error lines wanted)
        ("at the limit", {"src/a.c": MAX_LINES, "src/b.h": 5000}, {}, False, []),
        ("one over", {"src/a.c": MAX_LINES + 1}, {}, False, ["src/a.c: 901 lines"]),
        ("deep in tests", {"tests/x/y.c": 2000}, {}, False, ["tests/x/y.c: 2000 lines"]),
        ("pending", {"bench/r.c": 1000}, {"bench/r.c": "split"}, False, []),
        ("pending, strict", {"bench/r.c": 1000}, {"bench/r.c": "split"}, True,
         ["bench/r.c: 1000 lines"]),
        ("stale pending", {"bench/r.c": 10}, {"bench/r.c": "split"}, False,
         ["bench/r.c: stale"]),
        ("build dir skipped", {"build/meson-private/x": 1, "build/gen.c": 5000}, {}, False, []),
    ]
    for name, files, pending, strict, want in cases:
        print(f"-- {name}")
        errs = check(tree(files), strict=strict, pending=pending)
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
    strict = bool(args) and args[0] == "--strict"
    if strict:
        args = args[1:]
    if len(args) != 1 or not os.path.isdir(args[0]):
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    errors = check(os.path.abspath(args[0]), strict=strict)
    if errors:
        print(f"file-size: {len(errors)} error(s)")
        return 1
    print(f"file-size: ok (no .c file over {MAX_LINES} lines"
          + ("" if strict or not PENDING else f", {len(PENDING)} pending") + ")")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
