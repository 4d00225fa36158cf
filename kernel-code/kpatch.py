#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Build a kernel tree's dput path with your patches as a loadable strategy.

`dcsim-check --kernel-tree TREE --kernel-patch FILE...` runs this (check
build; docs/kernel.md, "Checking a patch of yours").  It

 1. finds the tarball: TREE is a tree table's version (6.1, 6.12: the
    tarball of the table's Debian package, /usr/src/<package>.tar.xz) or a
    tarball path, whose top directory names the version (linux-6.12.5/,
    linux-source-6.12/) and so the table (ROOT/kernel-code/trees/6.12.tree);
 2. looks in the cache (--cache) for a build keyed by the hashes of the
    tarball (remembered by its size, mtime and inode), the patches (in
    order), the kernel-code files, the dcsim headers and the compiler: a
    rerun with nothing changed is a lookup;
 3. else, in a temporary directory beside the entry: extract.py --patch
    (a fresh extraction of the table's functions from the patched tree,
    with #line directives into the patched fs/dcache.c; a patch that does
    not apply, or touches a function outside the table, stops there with
    the reason), then compiles dput.c, lockref-funcs.c, glue.c (as
    -DKC_PLUGIN: the runtime parts only) and tsan-hooks.c as the check
    build compiles them, and a table of the kernel lines (lines.c, below),
    into one shared object; renames the directory into place last, so a
    failed or interrupted build leaves nothing in the cache;
 4. prints one line, "KPATCH <shared object> <strategy name>", on stdout.

The shared object leaves dcsim_* unresolved: the process that loads it
(dcsim-check, linked with libdcsim-instrumented) provides them.  Its
dcsim_plugin_init() registers the strategy, so nothing is registered
unless the whole object loaded.

lines.c: for each extracted function, the fs/dcache.c (or lib/lockref.c)
line of each instruction offset, read from the object's DWARF line table
(readelf); the ThreadSanitizer hooks then report an access as
"retain_dentry() fs/dcache.c:LINE" in the explorer's interleaving.  Code
the compiler inlined from a shim header keeps the line of the last kernel
statement before it.

Exit: 0 built or cached; 1 an error (the patch, the extraction, the
compiler: its messages name fs/dcache.c lines); 2 bad usage; 77 the
tarball is missing (the message names the Debian package).

usage: kpatch.py --root ROOT --include DIR... --cache DIR --tree TREE
                 --patch FILE... [--cc CC]
"""

import argparse
import glob
import hashlib
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.dont_write_bytecode = True
import extract  # noqa: E402  (read_tree: the table's keys)

# The instrumented build's flags for the kernel objects (kernel-code/meson.build):
# its warning policy, -fsanitize=thread with the hooks of tsan-hooks.c,
# -fno-inline for one body per kernel function.
KERNEL_ARGS = ["-Wno-sign-compare", "-Wno-unused-parameter", "-Wno-shadow",
               "-Wno-missing-prototypes", "-fsanitize=thread", "-fno-inline"]
# Frame pointers: a trace names each step's caller in the patched function
# by walking them (kc_step_frame(), kernel-code/glue.c).
COMMON_ARGS = ["-std=gnu11", "-O2", "-g", "-fPIC", "-fno-strict-aliasing",
               "-fno-omit-frame-pointer",
               "-Wall", "-Wextra", "-Wno-missing-field-initializers"]
# The kernel objects count their lines and branches for the coverage of the
# change (gcov).  Atomic counter updates: GCC then writes them with lock-prefixed
# adds, which -fsanitize=thread leaves alone, so the counters add no schedule
# point and an execution's interleaving (its replay) is the one it would be
# without them; plain updates would be instrumented as loads and stores.
COVERAGE_ARGS = ["--coverage", "-fprofile-update=atomic"]


class Fail(Exception):
    def __init__(self, msg, rc=1):
        Exception.__init__(self, msg)
        self.rc = rc


def run(cmd, what, cwd=None):
    r = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True)
    if r.returncode:
        raise Fail("%s failed (exit %d):\n  %s\n%s" %
                   (what, r.returncode, " ".join(shlex.quote(c) for c in cmd),
                    r.stdout.rstrip()))
    return r.stdout


def tables(root):
    return sorted(os.path.basename(p)[:-len(".tree")]
                  for p in glob.glob(os.path.join(root, "kernel-code", "trees", "*.tree")))


def tarball_top(tarball):
    """The first path component of the tarball's first member."""
    p = subprocess.Popen(["tar", "-tf", tarball], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    first = p.stdout.readline().strip()
    p.kill()
    p.wait()
    if not first:
        raise Fail("%s: not a tarball tar can list" % tarball)
    return first.lstrip("./").split("/")[0]


def resolve_tree(root, arg):
    """(table path, version, tarball, top directory)."""
    known = tables(root)
    if arg in known:
        table = os.path.join(root, "kernel-code", "trees", arg + ".tree")
        t = extract.read_tree(table)
        tarball = "/usr/src/%s.tar.xz" % t["package"]
        if not os.path.exists(tarball):
            raise Fail("%s not found: apt-get install %s (Debian's kernel source package), "
                       "or give the tarball's path to --kernel-tree" %
                       (tarball, t["package"]), 77)
        return table, arg, tarball, t["top"]
    if not os.path.exists(arg):
        if re.match(r"^\d+\.\d+$", arg):
            raise Fail("--kernel-tree %s: no tree table for it (there are: %s)" %
                       (arg, ", ".join(known)), 2)
        raise Fail("--kernel-tree %s: no such tarball (a version of %s, or the path of a "
                   "linux source tarball: apt-get install linux-source-6.12 puts one in "
                   "/usr/src)" % (arg, ", ".join(known)), 77)
    top = tarball_top(arg)
    m = re.search(r"(\d+)\.(\d+)", top)
    version = m and "%s.%s" % (m.group(1), m.group(2))
    if not version or version not in known:
        raise Fail("%s: top directory %s/ names no tree with a table (there are: %s)" %
                   (arg, top, ", ".join(known)), 2)
    return os.path.join(root, "kernel-code", "trees", version + ".tree"), version, arg, top


def sha256_file(path, h=None):
    h = h or hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h


def tarball_hash(tarball, cache):
    """sha256 of @tarball, remembered in @cache by path, size, mtime and inode.

    Hashing 150 MB takes seconds; a rerun with the same file reads the
    note instead.
    """
    st = os.stat(tarball)
    stamp = "%d %d %d" % (st.st_size, st.st_mtime_ns, st.st_ino)
    note = os.path.join(cache, "kernel", "tarballs",
                        hashlib.sha256(os.path.abspath(tarball).encode()).hexdigest()[:24])
    try:
        with open(note) as f:
            old_stamp, digest = f.read().rsplit(" ", 1)
        if old_stamp == stamp:
            return bytes.fromhex(digest.strip())
    except (OSError, ValueError):
        pass
    digest = sha256_file(tarball).digest()
    os.makedirs(os.path.dirname(note), exist_ok=True)
    tmp = "%s.%d" % (note, os.getpid())
    with open(tmp, "w") as f:
        f.write("%s %s\n" % (stamp, digest.hex()))
    os.replace(tmp, note)
    return digest


def cache_key(root, includes, tarball, patches, cc, cache):
    """Hash of everything the build reads."""
    h = hashlib.sha256()
    h.update(b"tarball\0")
    h.update(tarball_hash(tarball, cache))
    for p in patches:
        h.update(b"patch\0")
        h.update(sha256_file(p).digest())
    inputs = []
    for pat in ("kernel-code/*.py", "kernel-code/*.c", "kernel-code/trees/*.tree",
                "kernel-code/include/*/*.h", "src/model/kernel-code.h"):
        inputs += sorted(glob.glob(os.path.join(root, pat)))
    for d in includes:
        inputs += sorted(glob.glob(os.path.join(d, "dcsim", "*.h")))
    for f in inputs:
        h.update(os.path.basename(f).encode() + b"\0")
        sha256_file(f, h)
    h.update(run([cc, "--version"], "the C compiler").encode())
    h.update(" ".join(KERNEL_ARGS + COMMON_ARGS + COVERAGE_ARGS).encode())
    return h.hexdigest()[:24]


def strategy_name(tree_name, patches):
    """k<tree>-<stem>+<stem>...: a series (directory or series file) by its directory."""
    stems = []
    for p in patches:
        p = os.path.normpath(p)
        if os.path.basename(p) == "series" and not os.path.isdir(p):
            p = os.path.dirname(p)
        stems.append(re.sub(r"[^\w.+-]", "-", re.sub(r"\.(patch|diff)$", "",
                                                       os.path.basename(p))))
    name = tree_name + "-" + "+".join(stems)
    if len(name) > 100:
        # Long enough: the rest as a hash, so that two series still differ.
        name = name[:87] + "-" + hashlib.sha256(name.encode()).hexdigest()[:12]
    return name


def c_string(s):
    return '"%s"' % s.replace("\\", "\\\\").replace('"', '\\"')


def function_offsets(obj):
    """{function: (start, end)} in .text of @obj (nm: static ones too)."""
    out = {}
    for l in run(["nm", "-S", "--defined-only", obj], "nm").splitlines():
        w = l.split()
        if len(w) == 4 and w[2] in "tT":
            out[w[3]] = (int(w[0], 16), int(w[0], 16) + int(w[1], 16))
    return out


def line_rows(obj, sources):
    """[(address, line)] of @obj's DWARF rows in a file of @sources."""
    rows, cur = [], None
    text = run(["readelf", "--debug-dump=decodedline", obj], "readelf")
    for l in text.splitlines():
        m = re.match(r"^(\S+)\s+(\d+)\s+(0x[0-9a-f]+)", l)
        if m:
            cur = m.group(1)
            if any(cur == s or cur == os.path.basename(s) for s in sources):
                rows.append((int(m.group(3), 16), int(m.group(2))))
    return sorted(rows)


def read_changed(path):
    """{source file: set of lines} of a build's changed file (extract.py --changed)."""
    out = {}
    with open(path) as f:
        for l in f:
            w = l.split()
            if len(w) >= 2:
                out.setdefault(w[0], set()).add(int(w[1]))
    return out


def lines_c(parts, changed):
    """lines.c: per extracted function, (offset, line, changed) rows (kc/funcs.h).

    @parts: (object, source file, variant, [(symbol, function name)]);
    @changed: {source file: lines the patches changed}, for the traces'
    marks of the steps that ran them.
    """
    out = ["/* Generated by kernel-code/kpatch.py from the objects' DWARF lines. */",
           "#include <stddef.h>", "#include <kc/funcs.h>", ""]
    regs = []
    for obj, source, variant, funcs in parts:
        offs = function_offsets(obj)
        rows = line_rows(obj, [source])
        for sym, fn in funcs:
            if sym not in offs:
                continue	# a macro or inlined away: no body of its own
            a, b = offs[sym]
            mine = [(addr - a, line) for addr, line in rows if a <= addr < b]
            if not mine:
                continue
            var = "kc_lines_%d" % len(regs)
            mark = changed.get(source, set())
            out.append("static const struct kc_line %s[] = {" % var)
            out += ["\t{ %d, %d, %d }," % (off, line, line in mark) for off, line in mine]
            out.append("};")
            regs.append("\t{ %s, %s, %s, %d, %s, sizeof(%s) / sizeof(%s[0]), %d }," %
                        (c_string(fn), c_string(variant),
                         c_string("%s() %s" % (fn, source)), b - a, var, var, var,
                         any(line in mark for _, line in mine)))
    if not regs:
        raise Fail("no line table: readelf found no %s lines in the objects" %
                   " or ".join(p[1] for p in parts))
    out.append("static const struct kc_lines lines[] = {")
    out += regs
    out += ["};", "",
            "void kc_register_lines(void);",
            "__attribute__((constructor)) void kc_register_lines(void)",
            "{", "\tkc_lines_add(lines, sizeof(lines) / sizeof(lines[0]));", "}", ""]
    return "\n".join(out)


def build(args, table, version, tarball, top, work):
    tree = extract.read_tree(table)
    tname = "k" + version.replace(".", "")
    name = strategy_name(tname, args.patch_args)
    ident = re.sub(r"\W", "_", name)
    kc = os.path.join(args.root, "kernel-code")
    gen = os.path.join(work, "gen")
    cmd = [sys.executable, os.path.join(kc, "extract.py"), "--tree", table, "--tarball",
           tarball, "--top", top, "--name", name, "--keep-source", work,
           "--changed", os.path.join(work, "changed")]
    for p in args.patch:
        cmd += ["--patch", p]
    # extract.py's tarball members (tarball_cache.py) go to our cache too,
    # unless the caller chose a place for them.
    env = dict(os.environ)
    env.setdefault("DCSIM_KC_CACHE", os.path.join(args.cache, "tarball-members"))
    r = subprocess.run(cmd + [gen], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, env=env)
    if r.returncode:
        raise Fail(r.stdout.rstrip())
    incs = ["-I" + os.path.join(kc, "include"), "-I" + os.path.join(args.root, "src", "model"),
            "-iquote", gen] + ["-I" + d for d in args.include]
    tree_args = tree["cflags"] + ["-DKC_TREE_" + tname.upper(),
                                  "-DKC_LOCKREF_PREFIX=kp_" + ident + "_"]
    dcache_h, lockref_h = name + "-dcache.h", name + "-lockref-c.h"
    compiles = [
        ("dput.o", "dput.c", KERNEL_ARGS + COVERAGE_ARGS + tree_args +
         ["-DKC_SOURCE=" + c_string(dcache_h), "-Ddput=kc_dput_kp",
          "-DKC_ENTRY=kc_kp_dput", "-DKC_VARIANT=kc_kp_", "-DKC_OPS=kc_kp_ops"]),
        ("lockref.o", "lockref-funcs.c", KERNEL_ARGS + COVERAGE_ARGS + tree_args +
         ["-DKC_SOURCE=" + c_string(lockref_h)]),
        # A tree whose kill path is lock_for_kill() (6.8 on) shrinks that way
        # too; one with shrink_lock_dentry() (6.1) runs its own.
        ("glue.o", "glue.c", ["-DKC_PLUGIN", "-DKC_PLUGIN_NAME=" + c_string(name),
                              "-DKC_PLUGIN_FLAGS=" + (
                                  "DCSIM_STRATEGY_LOCK_FOR_KILL"
                                  if "lock_for_kill" in tree["funcs"] else
                                  "DCSIM_STRATEGY_SHRINK_LOCK_DENTRY"
                                  if "shrink_lock_dentry" in tree["funcs"] else "0"),
                              "-DKC_PLUGIN_DESCRIPTION=" + c_string(
                                  "%s with %s" % (tname, ", ".join(
                                      os.path.basename(p) for p in args.patch)))]),
        ("tsan-hooks.o", "tsan-hooks.c", []),
    ]
    objs = []
    for obj, src, extra in compiles:
        o = os.path.join(work, obj)
        run([args.cc] + COMMON_ARGS + incs + extra + ["-c", os.path.join(kc, src), "-o", o],
            "compiling %s for %s" % (src, name))
        objs.append(o)
    # The line table is read from a first link, where every function has
    # an address of its own (in the objects, .text and .text.startup, or a
    # .cold part, would overlap); the offsets within a function stay.
    so = os.path.join(work, "strategy.so")
    run([args.cc, "-shared", "--coverage", "-o", so] + objs, "linking " + name)
    prefix = "kp_" + ident + "_"
    syms = function_offsets(so)
    lines = lines_c([(so, tree["source"], dcache_h,
                      [("kc_dput_kp" if f == "dput" else f, f) for f in tree["funcs"]]),
                     (so, tree["lockref"], lockref_h,
                      [(f, f[len(prefix):]) for f in syms if f.startswith(prefix)])],
                    read_changed(os.path.join(work, "changed")))
    with open(os.path.join(work, "lines.c"), "w") as f:
        f.write(lines)
    o = os.path.join(work, "lines.o")
    run([args.cc] + COMMON_ARGS + incs + ["-c", os.path.join(work, "lines.c"), "-o", o],
        "compiling the line table")
    objs.append(o)
    run([args.cc, "-shared", "--coverage", "-o", so] + objs + ["-Wl,-z,now"], "linking " + name)
    with open(os.path.join(work, "name"), "w") as f:
        f.write(name + "\n")
    return name


def read_series_file(path):
    """The patches a quilt series file names, in order, beside it."""
    with open(path, encoding="utf-8", errors="replace") as f:
        names = [l.split("#", 1)[0].split() for l in f]
    out = [os.path.join(os.path.dirname(path), n[0]) for n in names if n]
    if not out:
        raise Fail("%s names no patch" % path, 2)
    for p in out:
        if not os.path.isfile(p):
            raise Fail("%s names %s, which is not there" % (path, p), 2)
    return out


def expand_patches(args):
    """--patch arguments as patch files, in order: a file; a series file
    (named "series"); a directory with a series file, else its *.patch and
    *.diff files in name order (git format-patch -o DIR writes 0001-...)."""
    out = []
    for p in args:
        if os.path.isdir(p):
            series = os.path.join(p, "series")
            if os.path.isfile(series):
                out += read_series_file(series)
                continue
            found = sorted(f for f in os.listdir(p) if f.endswith((".patch", ".diff")))
            if not found:
                raise Fail("--kernel-patch %s: a directory with neither a series file nor "
                           "*.patch files" % p, 2)
            out += [os.path.join(p, f) for f in found]
        elif os.path.basename(p) == "series":
            out += read_series_file(p)
        elif os.path.isfile(p):
            out.append(p)
        else:
            raise Fail("--kernel-patch %s: no such file" % p, 2)
    return [os.path.abspath(p) for p in out]


def gcov_lines(gcov, gcda_dir, entry, stem):
    """{(file, line): [count, sides]} from @gcda_dir/@stem.gcda (none: all 0).

    The notes (@entry/@stem.gcno) are copied beside the counts: gcov reads
    both from one directory.  Sides: "1" or "0" for each branch outcome gcov
    records on the line (exception edges left out), taken or not.
    """
    notes = os.path.join(entry, stem + ".gcno")
    if not os.path.exists(notes):
        return {}
    os.makedirs(gcda_dir, exist_ok=True)
    shutil.copyfile(notes, os.path.join(gcda_dir, stem + ".gcno"))
    r = subprocess.run([gcov, "--json-format", "--stdout", "--branch-probabilities",
                        stem + ".gcno"], cwd=gcda_dir, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True)
    if r.returncode:
        raise Fail("%s on %s failed:\n%s" % (gcov, gcda_dir, r.stderr.rstrip()))
    out = {}
    for doc in r.stdout.splitlines():
        if not doc.strip():
            continue
        for f in json.loads(doc)["files"]:
            for l in f["lines"]:
                row = out.setdefault((f["file"], l["line_number"]), [0, ""])
                row[0] += l["count"]
                row[1] += "".join("1" if b["count"] else "0"
                                  for b in l.get("branches", []) if not b.get("throw"))
    return out


def coverage(argv):
    """kpatch.py coverage ENTRY DIR...: the changed lines each DIR's counts reached.

    ENTRY: a build's cache directory (its changed file and gcov notes); each
    DIR: the counts one suite's processes wrote (GCOV_PREFIX).  Prints one
    record per changed line that has code, for dcsim-check to read:
      COV <suite> <file> <line> <count> <sides> <function>
    where <sides> has one character per outcome of the line's conditions,
    "1" taken and "0" not ("-": none).
    and "CHANGED <file> <line> <function>" for each changed line.
    """
    ap = argparse.ArgumentParser(prog="kpatch.py coverage")
    ap.add_argument("entry")
    ap.add_argument("dirs", nargs="*")
    ap.add_argument("--gcov", default=os.environ.get("GCOV", "gcov"))
    args = ap.parse_args(argv)
    try:
        changed = []
        with open(os.path.join(args.entry, "changed")) as f:
            for l in f:
                w = l.split()
                if len(w) == 3:
                    changed.append((w[0], int(w[1]), w[2]))
        for c in changed:
            print("CHANGED %s %d %s" % c)
        for d in args.dirs:
            counts = {}
            for stem in ("dput", "lockref"):
                counts.update(gcov_lines(args.gcov, d, args.entry, stem))
            suite = os.path.basename(os.path.normpath(d))
            for file, line, fn in changed:
                v = counts.get((file, line))
                if v:
                    print("COV %s %s %d %d %s %s" % (suite, file, line, v[0], v[1] or "-", fn))
    except (OSError, ValueError, KeyError) as e:
        sys.stderr.write("kpatch: coverage: %s\n" % e)
        sys.exit(1)
    except Fail as e:
        sys.stderr.write("kpatch: coverage: %s\n" % e)
        sys.exit(e.rc)


# The cache's bound: at most this many builds and megabytes under
# <cache>/kernel (DCSIM_CACHE_MAX_ENTRIES, DCSIM_CACHE_MAX_MB); the least
# recently used builds go first.
CACHE_MAX_ENTRIES = 64
CACHE_MAX_MB = 256


def cache_limit(var, default):
    v = os.environ.get(var, "")
    if not v:
        return default
    if not re.fullmatch(r"[0-9]{1,9}", v) or int(v) < 1:
        raise Fail("%s=%s: want a whole number, at least 1" % (var, v), 2)
    return int(v)


def tree_size(path):
    n = 0
    for d, _, files in os.walk(path):
        for f in files:
            try:
                n += os.lstat(os.path.join(d, f)).st_size
            except OSError:
                pass
    return n


def evict(cache, keep=None):
    """Remove the least recently used builds of @cache beyond the bound.

    A build's use is its directory's mtime (a lookup or a build touches
    it); @keep, the build this run uses, is never removed.  Tarball notes
    and a build in progress (tmp-*) are not builds.  Return: the removed.
    """
    max_n = cache_limit("DCSIM_CACHE_MAX_ENTRIES", CACHE_MAX_ENTRIES)
    max_b = cache_limit("DCSIM_CACHE_MAX_MB", CACHE_MAX_MB) * 1024 * 1024
    top = os.path.join(cache, "kernel")
    builds = []
    for n in os.listdir(top) if os.path.isdir(top) else []:
        p = os.path.join(top, n)
        if re.fullmatch(r"[0-9a-f]{24}", n) and os.path.isdir(p):
            builds.append((os.stat(p).st_mtime, p, tree_size(p)))
    builds.sort()
    total = sum(b[2] for b in builds)
    gone = []
    for _, p, size in builds:
        if len(builds) - len(gone) <= max_n and total <= max_b:
            break
        if keep and os.path.realpath(p) == os.path.realpath(keep):
            continue
        shutil.rmtree(p, ignore_errors=True)
        gone.append(p)
        total -= size
    return gone


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "coverage":
        coverage(sys.argv[2:])
        return
    if len(sys.argv) > 1 and sys.argv[1] == "evict":
        ap = argparse.ArgumentParser(prog="kpatch.py evict",
                                     description="apply the cache's bound now")
        ap.add_argument("--cache", required=True)
        a = ap.parse_args(sys.argv[2:])
        try:
            for p in evict(a.cache):
                sys.stderr.write("kpatch: evicted %s\n" % p)
        except Fail as e:
            sys.stderr.write("kpatch: error: %s\n" % e)
            sys.exit(e.rc)
        return
    ap = argparse.ArgumentParser(description="build a patched kernel dput path as a strategy")
    ap.add_argument("--root", required=True,
                    help="the directory holding kernel-code/ and src/model/kernel-code.h")
    ap.add_argument("--include", action="append", default=[],
                    help="a directory holding dcsim/*.h of the instrumented build (repeatable)")
    ap.add_argument("--cache", required=True)
    ap.add_argument("--tree", required=True, help="6.1, 6.12, ... or a tarball")
    ap.add_argument("--patch", action="append", default=[], required=True)
    ap.add_argument("--cc", default=os.environ.get("CC", "cc"))
    args = ap.parse_args()
    try:
        args.patch_args = args.patch
        args.patch = expand_patches(args.patch)
        if shutil.which(args.cc) is None:
            raise Fail("no C compiler %s (set CC)" % args.cc, 2)
        table, version, tarball, top = resolve_tree(args.root, args.tree)
        key = cache_key(args.root, args.include, tarball, args.patch, args.cc, args.cache)
        entry = os.path.join(args.cache, "kernel", key)
        name_file = os.path.join(entry, "name")
        if os.path.exists(os.path.join(entry, "strategy.so")) and os.path.exists(name_file):
            with open(name_file) as f:
                name = f.read().strip()
            sys.stderr.write("kpatch: %s: cached build %s\n" % (name, entry))
        else:
            os.makedirs(os.path.dirname(entry), exist_ok=True)
            work = tempfile.mkdtemp(prefix="tmp-", dir=os.path.dirname(entry))
            try:
                sys.stderr.write("kpatch: building %s with %s in %s\n" %
                                 (os.path.basename(tarball),
                                  ", ".join(os.path.basename(p) for p in args.patch), work))
                name = build(args, table, version, tarball, top, work)
                try:
                    os.rename(work, entry)
                except OSError:
                    # Another run put the same build there first: use theirs.
                    if not os.path.exists(os.path.join(entry, "strategy.so")):
                        raise
                    shutil.rmtree(work, ignore_errors=True)
            except BaseException:
                shutil.rmtree(work, ignore_errors=True)
                raise
        # Used now: the most recent, then the bound on the rest.
        os.utime(entry)
        evict(args.cache, keep=entry)
        print("KPATCH %s %s" % (os.path.join(entry, "strategy.so"), name))
        sys.stderr.write("kpatch: %s: patched source %s\n" %
                         (name, os.path.join(entry, extract.read_tree(table)["source"])))
    except Fail as e:
        sys.stderr.write("kpatch: error: %s\n" % e)
        sys.exit(e.rc)


if __name__ == "__main__":
    main()
