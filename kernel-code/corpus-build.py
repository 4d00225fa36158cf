#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Build corpus/'s kind (a) entries as kernel-code variants, for ninja.

meson (kernel-code/meson.build) runs this as one custom target, so that
what the build makes of the corpus follows the corpus folder without a
reconfigure: an entry added, removed or changed is picked up by a plain
`ninja`.  The target's depfile lists the corpus folder itself (ninja stats
it; adding or removing a file changes its mtime), every .bug and .patch in
it, the scripts, tree tables, tarballs and series the variants come from,
the compile database, and every header each compile read.

For each entry that corpus/corpus.py can build (its --list), in WORKDIR/NAME/:

  1. extract.py --patch (and --series for an entry with after:) writes
     <tree>-NAME-dcache.h and <tree>-NAME-lockref-c.h;
  2. dput.c (and lockref-funcs.c when the patch changes lib/lockref.c) are
     compiled with the very command meson uses for the tree's own object
     (the TEMPLATE entries of compile_commands.json), with the variant's
     names (-DKC_SOURCE, -Ddput, -DKC_ENTRY, -DKC_VARIANT, -DKC_OPS,
     -DKC_LOCKREF_PREFIX, and -DKC_HTM after a series) in place of the
     tree's.  An entry whose inputs, command and headers are unchanged
     since its last build is not rebuilt (its key file, and the mtimes
     of what its compiles read).

Then every variant's objects are linked into one relocatable object
(OBJECT, which meson puts into libdcsim-kernel-code), and HEADER is
written: corpus.py's glue (the strategies kc_corpus_strategies[] and
the entries that cannot be built, kc_corpus_unbuilt[]), which glue.c
includes.  A patch that does not apply or does not compile stops the
build with extract.py's or the compiler's message.

usage: corpus-build.py --corpus DIR --compdb FILE --header FILE --object FILE
                       [--depfile FILE] --workdir DIR
                       --tree VERSION NAME TABLE TARBALL DCACHE_OBJ LOCKREF_OBJ ...
  --tree: one per tree: its version (6.1), strategy prefix (k61), table,
  tarball, and the outputs (build-relative, as compile_commands.json names
  them) of meson's objects of its dput.c and lockref-funcs.c.
"""

import argparse
import concurrent.futures
import hashlib
import json
import os
import shlex
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(TOP, "corpus"))
sys.dont_write_bytecode = True
import corpus as bugfmt  # noqa: E402  (the one parser of .bug files)

# The defines that name a variant; the template's are replaced.
VARIANT_DEFINES = ("KC_SOURCE", "dput", "KC_ENTRY", "KC_VARIANT", "KC_OPS",
                   "KC_LOCKREF_PREFIX", "KC_HTM")


def die(msg):
    sys.stderr.write("corpus-build.py: %s\n" % msg)
    sys.exit(1)


def output_of(entry, argv):
    """The object @entry compiles: its "output" (ninja 1.10 on), else its -o."""
    if "output" in entry:
        return entry["output"]
    return argv[argv.index("-o") + 1] if "-o" in argv[:-1] else None


def template(compdb, output):
    """(directory, argv without output, source and variant names, source)
    of meson's compile of @output."""
    for e in compdb:
        argv = shlex.split(e["command"]) if "command" in e else list(e["arguments"])
        if output_of(e, argv) == output:
            break
    else:
        die("%s: no compile of %s (reconfigure the build)" % ("compile_commands.json", output))
    out, skip = [], False
    for i, a in enumerate(argv):
        if skip:
            skip = False
            continue
        if a in ("-o", "-MQ", "-MT", "-MF", "-c"):
            skip = True
            continue
        if a in ("-MD", "-MMD"):
            continue
        if a.startswith("-D") and a[2:].split("=", 1)[0] in VARIANT_DEFINES:
            continue
        if a.startswith("-I") and a.endswith(".a.p"):
            continue	# meson's private folder of the template's target
        out.append(a)
    return e["directory"], out, os.path.join(e["directory"], e["file"])


def first_include(argv, d):
    """@argv with -I@d before its other -I folders: the variant's generated
    files come first, before any of the same name in the build folder."""
    i = next((k for k, a in enumerate(argv) if a.startswith("-I")), len(argv))
    return argv[:i] + ["-I" + d] + argv[i:]


def file_key(h, path):
    h.update(path.encode() + b"\0")
    with open(path, "rb") as f:
        h.update(hashlib.sha256(f.read()).digest())


def read_d(path):
    """The prerequisites of a gcc -MD file."""
    try:
        text = open(path, encoding="utf-8").read().replace("\\\n", " ")
    except OSError:
        return None
    deps = shlex.split(text.split(":", 1)[1]) if ":" in text else []
    return deps


def fresh(wdir, key, objs, dfiles, cwd):
    """Whether @wdir's last build had @key and nothing it read changed since."""
    try:
        if open(os.path.join(wdir, "key"), encoding="utf-8").read() != key:
            return False
        oldest = min(os.stat(o).st_mtime for o in objs)
    except OSError:
        return False
    for d in dfiles:
        deps = read_d(d)
        if deps is None:
            return False
        for p in deps:
            try:
                if os.stat(os.path.join(cwd, p)).st_mtime > oldest:
                    return False
            except OSError:
                return False
    return True


def build_entry(a, trees, e):
    """Extract and compile one entry; return (its objects, the .d files)."""
    name, version, patch, lockref, sdir = e
    t = trees[version]
    prefix = t["name"]
    c = bugfmt.cname(prefix, name)
    vname = "%s-%s" % (prefix, name)
    wdir = os.path.join(a.workdir, name)
    os.makedirs(wdir, exist_ok=True)
    ddir, dargv, dsrc = t["dcache"]
    lpre = (c if lockref else prefix) + "_"
    jobs = [(os.path.join(wdir, "dput.o"), ddir, dsrc, first_include(dargv, wdir) + [
        '-DKC_SOURCE="%s-dcache.h"' % vname, "-Ddput=kc_dput_" + c,
        "-DKC_ENTRY=kc_%s_dput" % c, "-DKC_VARIANT=kc_%s_" % c, "-DKC_OPS=kc_%s_ops" % c,
        "-DKC_LOCKREF_PREFIX=" + lpre] + (["-DKC_HTM"] if sdir else []))]
    if lockref:
        ldir, largv, lsrc = t["lockref"]
        jobs.append((os.path.join(wdir, "lockref.o"), ldir, lsrc, first_include(largv, wdir) + [
            '-DKC_SOURCE="%s-lockref-c.h"' % vname, "-DKC_LOCKREF_PREFIX=" + lpre]))
    extract = [sys.executable, os.path.join(HERE, "extract.py"), "--tree", t["table"],
               "--tarball", t["tarball"], "--name", vname] + \
        (["--series", sdir] if sdir else []) + ["--patch", patch, wdir]
    h = hashlib.sha256()
    h.update(json.dumps([extract] + [j[3] for j in jobs]).encode())
    for p in [patch, t["table"], os.path.join(HERE, "extract.py"),
              os.path.join(HERE, "tarball_cache.py")] + series_files(sdir):
        file_key(h, p)
    st = os.stat(t["tarball"])
    h.update(("%s %d %d" % (t["tarball"], st.st_size, st.st_mtime_ns)).encode())
    key = h.hexdigest()
    objs = [j[0] for j in jobs]
    dfiles = [o + ".d" for o in objs]
    if fresh(wdir, key, objs, dfiles, ddir):
        return objs, dfiles
    try:
        os.unlink(os.path.join(wdir, "key"))
    except FileNotFoundError:
        pass
    r = subprocess.run(extract, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if r.returncode:
        raise RuntimeError("corpus/%s: extract.py failed:\n%s" % (os.path.basename(patch), r.stdout))
    for obj, cwd, src, argv in jobs:
        cmd = argv + ["-MD", "-MQ", obj, "-MF", obj + ".d", "-o", obj, "-c", src]
        r = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if r.returncode:
            raise RuntimeError("corpus/%s: the compile failed:\n%s\n%s" %
                               (os.path.basename(patch), shlex.join(cmd), r.stdout))
    with open(os.path.join(wdir, "key"), "w", encoding="utf-8") as f:
        f.write(key)
    return objs, dfiles


def series_files(sdir):
    if not sdir:
        return []
    s = os.path.join(sdir, "series")
    names = [l.strip() for l in open(s, encoding="utf-8") if l.strip() and not l.startswith("#")]
    return [s] + [os.path.join(sdir, n) for n in names]


def replace_if_different(tmp, path):
    """Rename @tmp to @path unless @path holds the same bytes: meson's rule
    restats the outputs, so an unchanged output rebuilds nothing after it."""
    try:
        with open(tmp, "rb") as f, open(path, "rb") as g:
            same = f.read() == g.read()
    except OSError:
        same = False
    if same:
        os.unlink(tmp)
    else:
        os.replace(tmp, path)


def dep_escape(p):
    return p.replace("\\", "\\\\").replace(" ", "\\ ").replace("#", "\\#").replace("$", "$$")


def main():
    ap = argparse.ArgumentParser(description="corpus/'s kind (a) entries as kernel-code variants")
    ap.add_argument("--corpus", required=True)
    ap.add_argument("--compdb", required=True)
    ap.add_argument("--header", required=True)
    ap.add_argument("--object", required=True)
    ap.add_argument("--depfile", help="write the prerequisites here, for ninja")
    ap.add_argument("--workdir", required=True)
    ap.add_argument("--tree", nargs=6, action="append", default=[],
                    metavar=("VERSION", "NAME", "TABLE", "TARBALL", "DCACHE_OBJ", "LOCKREF_OBJ"))
    a = ap.parse_args()
    for k in ("corpus", "compdb", "header", "object", "depfile", "workdir"):
        if getattr(a, k):
            setattr(a, k, os.path.abspath(getattr(a, k)))
    with open(a.compdb, encoding="utf-8") as f:
        compdb = json.load(f)
    trees = {}
    for version, name, table, tarball, dobj, lobj in a.tree:
        trees[version] = {"name": name, "table": os.path.abspath(table),
                          "tarball": os.path.abspath(tarball),
                          "dcache": template(compdb, dobj), "lockref": template(compdb, lobj)}
    os.makedirs(a.workdir, exist_ok=True)
    try:
        todo = [e for e in bugfmt.buildable(a.corpus) if e[1] in trees]
    except (bugfmt.BugError, OSError) as e:
        die(str(e))
    objs, dfiles, errors = [], [], []
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as ex:
        for f in [ex.submit(build_entry, a, trees, e) for e in todo]:
            try:
                o, d = f.result()
                objs += o
                dfiles += d
            except RuntimeError as e:
                errors.append(str(e))
    if errors:
        die("\n".join(errors))
    # Entries removed from the corpus leave their folders: drop them.
    keep = {e[0] for e in todo}
    for d in os.listdir(a.workdir):
        if d not in keep and os.path.isfile(os.path.join(a.workdir, d, "key")):
            for fn in os.listdir(os.path.join(a.workdir, d)):
                os.unlink(os.path.join(a.workdir, d, fn))
            os.rmdir(os.path.join(a.workdir, d))
    # One relocatable object, never empty (ld -r wants an input).
    # The compiler: the template's words before its first option (ccache cc).
    argv = trees[next(iter(trees))]["dcache"][1] if trees else ["cc"]
    cc = argv[:next((k for k, w in enumerate(argv) if w.startswith("-")), len(argv))]
    empty = os.path.join(a.workdir, "empty.o")
    r = subprocess.run(cc + ["-x", "c", "-c", "-o", empty, "/dev/null"],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if r.returncode:
        die("cannot compile an empty object:\n" + r.stdout)
    tmp = a.object + ".tmp"
    r = subprocess.run(cc + ["-nostdlib", "-no-pie", "-Wl,-r", "-Wl,--build-id=none", "-o", tmp, empty] + objs,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if r.returncode:
        die("ld -r failed:\n" + r.stdout)
    replace_if_different(tmp, a.object)
    bugfmt.write_glue(a.corpus, a.header + ".tmp")
    replace_if_different(a.header + ".tmp", a.header)
    # What the outputs were made from: the folder (its entries), its files,
    # and everything each compile read.
    deps = {a.corpus, a.compdb, os.path.abspath(__file__), os.path.join(TOP, "corpus", "corpus.py"),
            os.path.join(HERE, "extract.py"), os.path.join(HERE, "tarball_cache.py")}
    deps.update(os.path.join(a.corpus, fn) for fn in os.listdir(a.corpus)
                if fn.endswith((".bug", ".patch")))
    for t in trees.values():
        deps.update([t["table"], t["tarball"]])
    for e in todo:
        deps.update(series_files(e[4]))
    cwd = trees[next(iter(trees))]["dcache"][0] if trees else os.getcwd()
    for d in dfiles:
        deps.update(os.path.normpath(os.path.join(cwd, p)) for p in read_d(d) or [])
    print("corpus-build.py: %d variants from %s" % (len(todo), a.corpus))
    if not a.depfile:
        return 0
    with open(a.depfile, "w", encoding="utf-8") as f:
        f.write("%s: \\\n" % dep_escape(os.path.relpath(a.header, os.getcwd())))
        f.write(" \\\n".join(" " + dep_escape(p) for p in sorted(deps)) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
