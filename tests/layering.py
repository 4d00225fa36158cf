#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The layering test: every edge between the layers of src/, include/ and
kernel-code/ goes down (or sideways within a layer), never up, both as
written (#include lines) and as linked (the undefined symbols of each built
object against the layer of the object that defines them).

    layering.py SOURCE_ROOT [BUILD_DIR]
                                check the tree's includes and, given a meson
                                build directory, its objects' link edges
                                (its compile_commands.json names them; nm
                                reads them); print each wrong edge as
                                FILE:LINE: FROM-LAYER -> TO-LAYER: INCLUDE or
                                FILE: FROM-LAYER -> TO-LAYER: calls SYMBOL,
                                and each loop as "include cycle: A -> B -> A"
                                or "call cycle: A -> B (SYMBOL) -> A"
    layering.py --self-test     build small trees with one wrong edge each
                                (and one clean tree), one of them an up-call
                                by link name compiled with cc, others an
                                include cycle and a call cycle, and check
                                that the checker fails exactly those

A folder of src/ is a layer.  The layers, bottom up (docs/design.md, "Layers"):

    public-base      the primitives' public headers (<dcsim/atomic.h> ...,
                     and the flavour's <dcsim/flavour/*.h>)
    public-hooks     <dcsim/describe.h>: what the engine asks of the code
                     it checks (an object describer), registered from below
    primitives       src/base/: spinlock, lockref, HTM, RCU, threads, and
                     the hook table the engine registers (hooks.h)
    public-model     <dcsim/dentry.h>, <dcsim/cache.h>, <dcsim/strategy.h>,
                     <dcsim/dcache-cover.h>, <dcsim/namei.h>
    model            src/model/: the dentry cache and its dput strategies
    kernel-code      kernel-code/: the kernel's own dput() over the model
    public-engine    <dcsim/explore.h>
    public-hooks     <dcsim/describe.h>, <dcsim/lockdep.h>: what the engine
                     asks of the code it checks (an object describer, lock
                     classes), registered from below
    engine           src/engine/: schedulers, RCU and memory models,
                     simulated HTM backend; knows no dentry
    public-checker   <dcsim/checker.h>, <dcsim/child.h>, <dcsim/explore-dcache.h>
    checker          src/checker/: spec, trace language, suites, scenarios
    tests            tests/: never included from, or called by, the layers

Within a layer the edges go one way too: no two files include each other,
however long the loop (a.h -> b.h -> a.h), and no two objects of src/
call each other's functions (a.c -> b.c -> a.c, nm's defined text symbols
against each object's undefined ones, one node per source file; the
layers in CALL_CYCLES).  Shared data is not a call: a variable defined in
one file and used in another draws no edge.  kernel-code/ is left out of
the call cycles: glue.c is both the shims the kernel's functions call and
the strategy table that calls them, and the out-of-tree plugin build
(dcsim-check --kernel-patch) compiles it as one file.

A lower layer that must let a higher one watch or steer it calls through
the hook table of src/base/hooks.h, which the engine registers; a call by
name is an up-call even when no #include shows it (a prototype written in
place, or one in a header of a layer the caller may include).

Rules are data (FOLDERS, HEADERS, MAY_INCLUDE, MAY_CALL); an include that
resolves to no file of the tree and looks like the project's own
("quoted", or <dcsim/...>, <kc/...>, <linux/...>) fails too, so a moved
header cannot make an edge vanish.  Exit 0 clean, 1 wrong edges, 2 usage.
"""

import fnmatch
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

# ---- the rule table ---------------------------------------------------------

# A folder is a layer: every file under it (the longest folder wins).
FOLDERS = {
    "src/base": "primitives",
    "src/model": "model",
    "src/engine": "engine",
    "src/checker": "checker",
    "kernel-code": "kernel-code",
    "tests": "tests",
}
# The public headers share one folder (the installed <dcsim/...>), so each
# is placed by name; a new header must be added here.
HEADERS = {
    "public-base": ["include/dcsim/atomic.h", "include/dcsim/compiler.h",
                    "include/dcsim/config.h", "include/dcsim/flavour.h",
                    "include/dcsim/htm.h", "include/dcsim/spinlock.h",
                    "include/dcsim/lockref.h", "include/dcsim/rcu.h",
                    "include/dcsim/parse.h", "include/dcsim/sched.h",
                    "include/dcsim/stats.h", "include/dcsim/task-local.h",
                    "include/dcsim/warn.h",
                    "include/dcsim/flavour/*"],
    "public-model": ["include/dcsim/dentry.h", "include/dcsim/cache.h",
                     "include/dcsim/strategy.h", "include/dcsim/dcache-cover.h",
                     "include/dcsim/namei.h"],
    "public-hooks": ["include/dcsim/describe.h", "include/dcsim/lockdep.h"],
    "public-engine": ["include/dcsim/explore.h"],
    "public-checker": ["include/dcsim/checker.h", "include/dcsim/child.h",
                       "include/dcsim/explore-dcache.h"],
}

# Which layers a file of each layer may include (its own always).
MAY_INCLUDE = {
    "public-base": [],
    "public-model": ["public-base"],
    "public-hooks": ["public-base"],
    "public-engine": ["public-base"],
    "public-checker": ["public-base", "public-model", "public-engine"],
    "primitives": ["public-base", "public-hooks"],
    "model": ["public-base", "primitives", "public-model", "public-hooks"],
    "kernel-code": ["public-base", "public-model", "model"],
    "engine": ["public-base", "primitives", "public-hooks", "public-engine"],
    "checker": ["public-base", "primitives", "public-model", "public-engine",
                "public-checker"],
    "tests": None,  # not scanned: tests may use every layer
}

# Which layers' functions and data the objects of each layer may use by
# name (their own always).  Objects outside the layers (tests/, tools/,
# bench/) are not checked as callers; as definers they are "tests" or
# "outside", which no layer may call.
MAY_CALL = {
    "primitives": [],
    "model": ["primitives"],
    "kernel-code": ["primitives", "model"],
    "engine": ["primitives"],
    "checker": ["primitives", "model", "kernel-code", "engine"],
}

# The layers whose objects must not call each other in a loop.
CALL_CYCLES = ["primitives", "model", "engine", "checker"]

# The folders whose files are read.
SCANNED = ["src", "include", "kernel-code"]

# Search paths of <...> (and, after the file's own folder, of "...").
ANGLE_DIRS = ["include", "kernel-code/include"]
# Folders meson adds to the targets of a folder (-I), searched for "...".
QUOTE_DIRS = {"src/": ["src"], "kernel-code/": ["kernel-code", "src/model"]}
# <...> prefixes that name the project's headers: these must resolve.
OWN_ANGLE = ("dcsim/", "kc/", "linux/")
# Generated at configure time: its layer, without a file in the tree
# (kc-corpus.h: corpus/corpus.py, the corpus variants; <dcsim/flavour/*.h>:
# copied from include/dcsim/flavour/normal/ or instrumented/).
GENERATED = {"include/dcsim/config.h", "kernel-code/kc-corpus.h",
             "include/dcsim/flavour/atomic.h", "include/dcsim/flavour/spinlock.h",
             "include/dcsim/flavour/htm.h", "include/dcsim/flavour/lockdep.h"}

# Wrong edges allowed for now, each (file, included file) with why; one
# that no longer exists fails ("stale waiver"), so the list can only
# shrink.  Empty since issue 16's engine half landed.
PENDING = {}

# ---- the checker ------------------------------------------------------------


def cycles(graph):
    """Each loop of @graph ({node: {node: label}}), as one printable path
    per strongly connected component of two nodes or more (or a node with
    an edge to itself): the shortest loop through its first node."""
    index, low, stack, on, comps = {}, {}, [], set(), []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.get(root, {}))))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph.get(w, {})))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = set()
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.add(w)
                    if w == v:
                        break
                if len(comp) > 1 or v in graph.get(v, {}):
                    comps.append(comp)
    loops = []
    for comp in comps:
        start = min(comp)
        # breadth first from start, back to it, inside the component
        prev, queue, found = {start: None}, [start], None
        while queue and found is None:
            nxt = []
            for v in queue:
                for w in sorted(graph.get(v, {})):
                    if w == start:
                        found = v
                        break
                    if w in comp and w not in prev:
                        prev[w] = v
                        nxt.append(w)
                if found is not None:
                    break
            queue = nxt
        path = [found]
        while prev[path[-1]] is not None:
            path.append(prev[path[-1]])
        path.reverse()
        path.append(start)
        loops.append(path)
    return sorted(loops)


def loop_text(graph, path):
    out = path[0]
    for a, b in zip(path, path[1:]):
        label = graph[a][b]
        out += f" -> {b}" + (f" ({label})" if label else "")
    return out

INCLUDE_RE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')
SOURCE_EXT = (".c", ".h")
CLOSE = {'"': '"', "<": ">"}


def layer_of(rel):
    for name, pats in HEADERS.items():
        for p in pats:
            if fnmatch.fnmatchcase(rel, p):
                return name
    best = None
    for folder, name in FOLDERS.items():
        if rel.startswith(folder + "/") and (best is None or len(folder) > len(best[0])):
            best = (folder, name)
    return best[1] if best else None


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
    graph = {}      # file -> {included file: ""}, for the include cycles
    for top in SCANNED:
        for d, _, files in os.walk(os.path.join(root, top)):
            for f in sorted(files):
                if not f.endswith(SOURCE_EXT):
                    continue
                rel = os.path.relpath(os.path.join(d, f), root)
                src_layer = layer_of(rel)
                if src_layer is None:
                    errors.append(f"{rel}:1: not in any layer (add its folder to FOLDERS, or it to HEADERS)")
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
                        graph.setdefault(rel, {})[dst] = ""
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
    for path in cycles(graph):
        errors.append(f"{path[0]}:1: include cycle: {loop_text(graph, path)}")
    return errors, seen


def object_layer(root, build, entry):
    """The layer of one compile_commands.json entry's object, by its source:
    a file of the tree, or one generated into the build directory (placed
    as if it were at the same path in the tree)."""
    src = os.path.normpath(os.path.join(entry["directory"], entry["file"]))
    for base in (root, build):
        rel = os.path.relpath(src, base)
        if not rel.startswith(".."):
            return rel, layer_of(rel) or rel.split(os.sep)[0]
    return src, "outside"


def link_scan(root, build):
    """Return errors: objects that use a symbol defined in a layer they may
    not call.  Only global symbols are seen (nm -P: U undefined; any other
    upper-case type, or a weak one, defined)."""
    path = os.path.join(build, "compile_commands.json")
    try:
        with open(path) as fh:
            entries = json.load(fh)
    except (OSError, ValueError) as e:
        return [f"{path}: cannot read the build's objects: {e}"]
    objs = {}
    for e in entries:
        out = os.path.normpath(os.path.join(e["directory"], e["output"]))
        if not os.path.isfile(out):
            return [f"{out}: not built (build the tree before its link edges are checked)"]
        objs[out] = object_layer(root, build, e)
    defined = {}    # symbol -> layers defining it
    used = {}       # (source, layer) -> symbols it leaves undefined
    funcs = {}      # function symbol -> sources defining it
    names = sorted(objs)
    for i in range(0, len(names), 200):
        run = subprocess.run(["nm", "-A", "-P"] + names[i:i + 200],
                             capture_output=True, text=True)
        if run.returncode:
            return [f"nm failed ({run.returncode}): {run.stderr.strip()}"]
        for line in run.stdout.splitlines():
            obj, _, rest = line.rpartition(": ")
            fields = rest.split()
            if len(fields) < 2 or obj not in objs:
                continue
            sym, kind = fields[0], fields[1]
            if kind == "U":
                used.setdefault(objs[obj], set()).add(sym)
            elif kind.isupper() or kind in "vw":
                defined.setdefault(sym, set()).add(objs[obj][1])
                if kind in "TWi":
                    funcs.setdefault(sym, set()).add(objs[obj][0])
    errors = set()
    for (rel, layer), syms in used.items():
        if layer not in MAY_CALL:
            continue
        allowed = set(MAY_CALL[layer]) | {layer}
        for sym in syms:
            where = defined.get(sym)
            if where and not where & allowed:
                errors.add(f"{rel}: {layer} -> {'/'.join(sorted(where))}: calls {sym} by name")
    # call cycles between the layers' sources, over the edges the rules
    # allow (an up-call is reported above, and the loop it closes with it)
    graph = {}
    src_layer = dict(objs.values())
    for (rel, layer), syms in used.items():
        if layer not in CALL_CYCLES:
            continue
        allowed = set(MAY_CALL[layer]) | {layer}
        for sym in sorted(syms):
            for dst in funcs.get(sym, ()):
                if dst != rel and src_layer.get(dst) in allowed:
                    graph.setdefault(rel, {}).setdefault(dst, sym)
    for path in cycles(graph):
        errors.add(f"{path[0]}: call cycle: {loop_text(graph, path)}")
    return sorted(errors)


def check(root, pending_must_exist=True, build=None):
    errors, seen = scan(root)
    if build:
        errors += link_scan(root, build)
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
    "src/base/internal.h": '#include <dcsim/atomic.h>\n#include "rng.h"\n',
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
    "include cycle": ("src/base/rng.h", '#include "internal.h"\n',
                      "include cycle: src/base/internal.h -> src/base/rng.h -> "
                      "src/base/internal.h"),
}


# Link trees: small C files compiled with cc, the edges seen only by nm
# (prototypes written in place, no #include).
LINK_CLEAN = {
    "src/base/lockref.c": "int base_fn(void);\nint base_fn(void) { return 1; }\n",
    "src/model/cache.c": "int base_fn(void);\nint model_fn(void);\n"
                         "int model_fn(void) { return base_fn(); }\n",
    "src/engine/sched.c": "int base_fn(void);\nint engine_fn(void);\nint engine_state;\n"
                          "int engine_fn(void) { return base_fn(); }\n"
                          "int engine_lower(void);\nint engine_top(void);\n"
                          "int engine_top(void) { return engine_lower(); }\n",
    "src/engine/pick.c": "extern int engine_state;\nint engine_lower(void);\n"
                         "int engine_lower(void) { return engine_state; }\n",
    "src/checker/diff.c": "int model_fn(void);\nint engine_fn(void);\nint checker_fn(void);\n"
                          "int checker_fn(void) { return model_fn() + engine_fn(); }\n",
    "tests/unit/t.c": "int checker_fn(void);\nint main(void) { return checker_fn(); }\n",
}

LINK_BAD = {
    "primitives -> engine (link)": (
        "src/base/lockref.c",
        "int engine_fn(void);\nint base_up(void);\nint base_up(void) { return engine_fn(); }\n",
        "primitives -> engine: calls engine_fn"),
    "model -> engine data (link)": (
        "src/model/cache.c",
        "extern int engine_state;\nint model_up(void);\nint model_up(void) { return engine_state; }\n",
        "model -> engine: calls engine_state"),
    "engine -> checker (link)": (
        "src/engine/sched.c",
        "int checker_fn(void);\nint engine_up(void);\nint engine_up(void) { return checker_fn(); }\n",
        "engine -> checker: calls checker_fn"),
    "call cycle (link)": (
        "src/engine/pick.c",
        "int engine_top(void);\nint engine_back(void);\n"
        "int engine_back(void) { return engine_top(); }\n",
        "call cycle: src/engine/pick.c -> src/engine/sched.c (engine_top) -> "
        "src/engine/pick.c (engine_lower)"),
    "model -> tests (link)": (
        "src/model/cache.c",
        "int main(void);\nint model_up(void);\nint model_up(void) { return main(); }\n",
        "model -> tests: calls main"),
}


def make_link_tree(base, extra=None):
    """Write LINK_CLEAN (plus @extra), compile each file with cc into
    base/build, and write the compile_commands.json the checker reads."""
    files = dict(LINK_CLEAN)
    if extra:
        path, text = extra
        files[path] = files[path] + text
    build = os.path.join(base, "build")
    os.makedirs(build, exist_ok=True)
    entries = []
    for rel, text in files.items():
        p = os.path.join(base, rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "w") as fh:
            fh.write(text)
        out = rel.replace("/", "_") + ".o"
        subprocess.run([os.environ.get("CC", "cc"), "-c", "-o", os.path.join(build, out), p],
                       check=True)
        entries.append({"directory": build, "file": os.path.join("..", rel), "output": out})
    with open(os.path.join(build, "compile_commands.json"), "w") as fh:
        json.dump(entries, fh)
    return build


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
        # link edges: a clean compiled tree, then one up-call by name each
        if not shutil.which(os.environ.get("CC", "cc")) or not shutil.which("nm"):
            print("FAIL: the link self-test needs cc and nm")
            failed += 1
        else:
            t = os.path.join(tmp, "link-clean")
            print("-- link: clean tree")
            if check(t, pending_must_exist=False, build=make_link_tree(t)):
                print("FAIL: the clean link tree has wrong edges")
                failed += 1
            for name, (path, text, want) in LINK_BAD.items():
                t = os.path.join(tmp, re.sub(r"\W+", "-", name))
                print(f"-- {name}")
                errs = check(t, pending_must_exist=False, build=make_link_tree(t, (path, text)))
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
    print("self-test:", "FAIL" if failed else "ok", f"({len(BAD) + len(LINK_BAD) + 3} trees)")
    return 1 if failed else 0


def main(argv):
    if len(argv) == 2 and argv[1] == "--self-test":
        return self_test()
    if len(argv) not in (2, 3) or not all(os.path.isdir(a) for a in argv[1:]):
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    build = os.path.abspath(argv[2]) if len(argv) == 3 else None
    errors = check(os.path.abspath(argv[1]), build=build)
    if errors:
        print(f"layering: {len(errors)} wrong edge(s); the rules are at the top of {argv[0]}")
        return 1
    print("layering: ok" + (" (includes and link edges)" if build else " (includes)"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
