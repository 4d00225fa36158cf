#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The layering test: every #include of src/, include/ and kernel-code/
must go down (or sideways within a layer), never up.

    layering.py SOURCE_ROOT     check the tree; print each wrong edge as
                                FILE:LINE: FROM-LAYER -> TO-LAYER: INCLUDE
    layering.py --self-test     build small trees with one wrong edge each
                                (and one clean tree) and check that the
                                checker fails exactly those

The layers, bottom up (docs/design.md, "Layers"):

    util             src/base/rng.h, src/base/report.h: header-only helpers with no
                     project include
    public-base      the primitives' public headers (<dcsim/atomic.h> ...)
    primitives       src/base/: spinlock, lockref, HTM, RCU, threads
    public-model     <dcsim/dentry.h>, <dcsim/cache.h>, <dcsim/strategy.h>,
                     <dcsim/dcache-cover.h>, <dcsim/namei.h>
    model            src/model/: the dentry cache and its dput strategies
    kernel-code      kernel-code/: the kernel's own dput() over the model
    public-engine    <dcsim/explore.h>
    public-hooks     <dcsim/describe.h>: what the engine asks of the code
                     it checks (an object describer), registered from below
    engine           src/engine/: schedulers, RCU and memory models,
                     simulated HTM backend; knows no dentry
    public-checker   <dcsim/checker.h>, <dcsim/explore-dcache.h>
    checker          src/checker/: spec, trace language, suites, scenarios
    tests            tests/: never included from the layers above

Rules are data (LAYERS, MAY_INCLUDE); an include that resolves to no file
of the tree and looks like the project's own ("quoted", or <dcsim/...>,
<kc/...>, <linux/...>) fails too, so a moved header cannot make an edge
vanish.  Exit 0 clean, 1 wrong edges, 2 usage.
"""

import fnmatch
import os
import re
import sys
import tempfile

# ---- the rule table ---------------------------------------------------------

# (layer, path patterns relative to the source root); first match wins.
LAYERS = [
    ("util", ["src/base/rng.h", "src/base/report.h"]),
    ("public-base", ["include/dcsim/atomic.h", "include/dcsim/compiler.h",
                     "include/dcsim/config.h", "include/dcsim/flavour.h",
                     "include/dcsim/htm.h", "include/dcsim/spinlock.h",
                     "include/dcsim/lockref.h", "include/dcsim/rcu.h",
                     "include/dcsim/sched.h",
                     "include/dcsim/stats.h", "include/dcsim/task-local.h",
                     "include/dcsim/warn.h"]),
    ("public-model", ["include/dcsim/dentry.h", "include/dcsim/cache.h",
                      "include/dcsim/strategy.h", "include/dcsim/dcache-cover.h",
                      "include/dcsim/namei.h"]),
    ("public-hooks", ["include/dcsim/describe.h"]),
    ("public-engine", ["include/dcsim/explore.h"]),
    ("public-checker", ["include/dcsim/checker.h", "include/dcsim/explore-dcache.h"]),
    ("engine", ["src/engine/*"]),
    ("checker", ["src/checker/*"]),
    ("model", ["src/model/*"]),
    ("primitives", ["src/base/*"]),
    ("kernel-code", ["kernel-code/*"]),
    ("tests", ["tests/*"]),
]

# Which layers a file of each layer may include (its own always).
MAY_INCLUDE = {
    "util": [],
    "public-base": [],
    "public-model": ["public-base"],
    "public-hooks": ["public-base"],
    "public-engine": ["public-base"],
    "public-checker": ["public-base", "public-model", "public-engine"],
    "primitives": ["util", "public-base"],
    "model": ["util", "public-base", "primitives", "public-model", "public-hooks"],
    "kernel-code": ["public-base", "public-model", "model"],
    "engine": ["util", "public-base", "primitives", "public-hooks", "public-engine"],
    "checker": ["util", "public-base", "public-model", "public-engine", "public-checker"],
    "tests": None,  # not scanned: tests may use every layer
}

# The folders whose files are read.
SCANNED = ["src", "include", "kernel-code"]

# Search paths of <...> (and, after the file's own folder, of "...").
ANGLE_DIRS = ["include", "kernel-code/include"]
# Folders meson adds to the targets of a folder (-I), searched for "...".
QUOTE_DIRS = {"src/": ["src"], "kernel-code/": ["kernel-code", "src/model"]}
# <...> prefixes that name the project's headers: these must resolve.
OWN_ANGLE = ("dcsim/", "kc/", "linux/")
# Generated at configure time: its layer, without a file in the tree
# (kc-corpus.h: corpus/corpus.py, the corpus variants).
GENERATED = {"include/dcsim/config.h", "kernel-code/kc-corpus.h"}

# Wrong edges allowed for now, each (file, included file) with why; one
# that no longer exists fails ("stale waiver"), so the list can only
# shrink.  Empty since issue 16's engine half landed.
PENDING = {}

# ---- the checker ------------------------------------------------------------

INCLUDE_RE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')
SOURCE_EXT = (".c", ".h")
CLOSE = {'"': '"', "<": ">"}


def layer_of(rel):
    for name, pats in LAYERS:
        for p in pats:
            if fnmatch.fnmatchcase(rel, p):
                return name
    return None


def resolve(root, rel, kind, target):
    here = os.path.dirname(rel)
    cands = []
    if kind == '"':
        cands.append(os.path.join(here, target))
        for prefix, dirs in QUOTE_DIRS.items():
            if rel.startswith(prefix):
                cands += [os.path.join(d, target) for d in dirs]
    cands += [os.path.join(d, target) for d in ANGLE_DIRS]
    for c in cands:
        c = os.path.normpath(c)
        if c in GENERATED or os.path.isfile(os.path.join(root, c)):
            return c
    return None


def scan(root):
    """Return (errors, edges seen): errors are printable lines."""
    errors, seen = [], set()
    for top in SCANNED:
        for d, _, files in os.walk(os.path.join(root, top)):
            for f in sorted(files):
                if not f.endswith(SOURCE_EXT):
                    continue
                rel = os.path.relpath(os.path.join(d, f), root)
                src_layer = layer_of(rel)
                if src_layer is None:
                    errors.append(f"{rel}:1: not in any layer (add it to LAYERS)")
                    continue
                allowed = set(MAY_INCLUDE[src_layer] or []) | {src_layer}
                with open(os.path.join(root, rel), errors="replace") as fh:
                    for n, line in enumerate(fh, 1):
                        m = INCLUDE_RE.match(line)
                        if not m:
                            continue
                        kind, target = m.groups()
                        dst = resolve(root, rel, kind, target)
                        if dst is None:
                            if kind == '"' or target.startswith(OWN_ANGLE):
                                errors.append(f"{rel}:{n}: {src_layer} -> ?: "
                                              f"#include {kind}{target}{CLOSE[kind]}: not found in the tree")
                            continue	# a system header
                        dst_layer = layer_of(dst)
                        if dst_layer is None:
                            # outside the layers: tests/, or anything else
                            dst_layer = "tests" if dst.startswith("tests/") else "outside"
                        if dst_layer in allowed:
                            continue
                        edge = (rel, dst)
                        if edge in PENDING:
                            seen.add(edge)
                            print(f"{rel}:{n}: pending ({PENDING[edge]}): "
                                  f"{src_layer} -> {dst_layer}: {dst}")
                            continue
                        errors.append(f"{rel}:{n}: {src_layer} -> {dst_layer}: "
                                      f"#include {kind}{target}{CLOSE[kind]} ({dst})")
    return errors, seen


def check(root, pending_must_exist=True):
    errors, seen = scan(root)
    if pending_must_exist:
        for edge in sorted(set(PENDING) - seen):
            errors.append(f"{edge[0]}:1: stale waiver: no include of {edge[1]} any more; "
                          f"remove it from PENDING in tests/layering.py")
    for e in errors:
        print(e)
    return errors


# ---- self-test --------------------------------------------------------------

CLEAN = {
    "include/dcsim/atomic.h": "#include <stdint.h>\n",
    "include/dcsim/dentry.h": "#include <dcsim/atomic.h>\n#include <dcsim/config.h>\n",
    "include/dcsim/explore.h": "#include <dcsim/config.h>\n",
    "include/dcsim/checker.h": "#include <dcsim/dentry.h>\n#include <dcsim/explore.h>\n",
    "src/base/rng.h": "#include <stdint.h>\n",
    "src/base/internal.h": "#include <dcsim/atomic.h>\n",
    "src/base/lockref.c": '#include "internal.h"\n#include "rng.h"\n',
    "src/model/dcache.h": '#include <dcsim/dentry.h>\n#include "../base/internal.h"\n',
    "src/model/cache.c": '#include "dcache.h"\n#include "../base/internal.h"\n',
    "src/engine/sched.c": '#include <dcsim/explore.h>\n#include "../base/rng.h"\n',
    "src/checker/diff.c": '#include <dcsim/checker.h>\n#include "spec.h"\n',
    "src/checker/spec.h": "#include <dcsim/dentry.h>\n",
    "kernel-code/include/kc/glue.h": '#include "../../../src/model/dcache.h"\n',
    "kernel-code/glue.c": "#include <kc/glue.h>\n#include KC_SOURCE\n",
    "tests/common/harness.h": "#include <dcsim/checker.h>\n",
}

# name: (file, extra line, the layers the report must name)
BAD = {
    "model -> engine": ("src/model/cache.c", "#include <dcsim/explore.h>\n",
                        "model -> public-engine"),
    "model -> engine (quoted)": ("src/model/cache.c", '#include "../engine/sched.c"\n',
                                 "model -> engine"),
    "primitives -> model": ("src/base/lockref.c", '#include "../model/dcache.h"\n',
                            "primitives -> model"),
    "engine -> dentry": ("src/engine/sched.c", "#include <dcsim/dentry.h>\n",
                         "engine -> public-model"),
    "engine -> checker": ("src/engine/sched.c", '#include "../checker/spec.h"\n',
                          "engine -> checker"),
    "src -> tests": ("src/checker/diff.c", '#include "../../tests/common/harness.h"\n',
                     "checker -> tests"),
    "public -> src": ("include/dcsim/dentry.h", '#include "../../src/base/internal.h"\n',
                      "public-model -> primitives"),
    "public -> tests": ("include/dcsim/checker.h", '#include "../../tests/common/harness.h"\n',
                        "public-checker -> tests"),
    "kernel-code -> tests": ("kernel-code/glue.c", '#include "../tests/common/harness.h"\n',
                             "kernel-code -> tests"),
    "missing header": ("src/checker/diff.c", '#include "gone.h"\n', "not found"),
    "unclassified": ("include/dcsim/new.h", "#include <dcsim/atomic.h>\n",
                     "not in any layer"),
}


def make_tree(base, extra=None):
    files = dict(CLEAN)
    if extra:
        path, line = extra
        files[path] = files.get(path, "") + line
    for rel, text in files.items():
        p = os.path.join(base, rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "w") as fh:
            fh.write(text)


def self_test():
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        clean = os.path.join(tmp, "clean")
        make_tree(clean)
        print("-- clean tree")
        if check(clean, pending_must_exist=False):
            print("FAIL: the clean tree has wrong edges")
            failed += 1
        for name, (path, line, want) in BAD.items():
            t = os.path.join(tmp, re.sub(r"\W+", "-", name))
            make_tree(t, (path, line))
            print(f"-- {name}")
            errs = check(t, pending_must_exist=False)
            if not any(want in e and path in e for e in errs):
                print(f"FAIL: {name}: no error naming '{want}' in {path}")
                failed += 1
            elif len(errs) != 1:
                print(f"FAIL: {name}: {len(errs)} errors, want exactly the planted one")
                failed += 1
        # the waiver list cannot outlive its edges
        print("-- stale waiver")
        if not check(clean, pending_must_exist=True) and PENDING:
            print("FAIL: a waiver of an edge the tree does not have passed")
            failed += 1
    print("self-test:", "FAIL" if failed else "ok", f"({len(BAD) + 2} trees)")
    return 1 if failed else 0


def main(argv):
    if len(argv) == 2 and argv[1] == "--self-test":
        return self_test()
    if len(argv) != 2 or not os.path.isdir(argv[1]):
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    errors = check(os.path.abspath(argv[1]))
    if errors:
        print(f"layering: {len(errors)} wrong edge(s); the rules are at the top of {argv[0]}")
        return 1
    print("layering: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
