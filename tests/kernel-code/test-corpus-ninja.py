#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""A corpus entry added, changed or removed is picked up by a plain ninja.

usage: test-corpus-ninja.py BUILD SOURCE DCSIM_CHECK PLUGIN

1. The build's own graph: meson's edge that makes kernel-code/kc-corpus.h
   (corpus-build.py) is read from BUILD/build.ninja, command, depfile and
   rule as they are, and put into a scratch build.ninja beside a scratch
   corpus folder (its inputs and outputs moved there, nothing else
   changed).  ninja builds it with one entry; a second run has no work; an
   entry added (a new .bug), changed in place, and removed each make a
   plain ninja rebuild, and the generated table then lists exactly the
   entries of the folder, the object the new variant.  An edge without
   the depfile (or one that does not name the folder) fails here.
2. The build itself follows its corpus: every variant that corpus.py
   --list names for SOURCE/corpus is registered by the plugin
   (dcsim-check --load PLUGIN --list), the plugin is linked from the
   table and the object (ninja -t inputs; ninja before 1.11 lacks it, and
   that check is left out), and the recorded dependencies of the table
   (ninja -t deps) hold the corpus folder and each .bug and .patch in it.

Exit 0 or 1 (each failure said); 77 when ninja is not found.
"""

import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

build, source, check, plugin = (os.path.abspath(a) for a in sys.argv[1:5])
TARGET = "kernel-code/kc-corpus.h"
ENTRY = "563f40019d16-referenced"	# a 6.1 kind (a) entry with its own patch
fails = []


def fail(msg):
    fails.append(msg)
    print("test-corpus-ninja: FAIL: " + msg)


ninja = shutil.which("ninja") or shutil.which("samu")
if not ninja:
    print("test-corpus-ninja: SKIPPED: no ninja")
    sys.exit(77)


def ninja_edge(path):
    """The rule's and the edge's variables of the edge that builds TARGET."""
    text = open(path, encoding="utf-8").read().replace("$\n", "")
    lines = text.split("\n")
    rules, edge, rule = {}, None, None
    for i, line in enumerate(lines):
        m = re.match(r"^rule (\S+)", line)
        if m:
            cur = rules.setdefault(m.group(1), {})
            for l2 in lines[i + 1:]:
                kv = re.match(r"^\s+(\w+) = (.*)$", l2)
                if not kv:
                    break
                cur[kv.group(1)] = kv.group(2)
        m = re.match(r"^build (.*?): (\S+)", line)
        if m and TARGET in m.group(1).split():
            edge, rule = {"outputs": m.group(1).split()}, m.group(2)
            for l2 in lines[i + 1:]:
                kv = re.match(r"^\s+(\w+) = (.*)$", l2)
                if not kv:
                    break
                edge[kv.group(1)] = kv.group(2)
    if edge is None:
        return None, None
    return edge, rules.get(rule, {})


def unescape(v):
    return re.sub(r"\$(.)", r"\1", v)


def scratch_ninja(scratch, corpus):
    """Write scratch/build.ninja: meson's edge, moved to @scratch and @corpus."""
    edge, rule = ninja_edge(os.path.join(build, "build.ninja"))
    if edge is None:
        fail("%s/build.ninja has no edge for %s" % (build, TARGET))
        return False
    argv = shlex.split(unescape(edge.get("COMMAND", "")))
    out, i = [], 0
    moved = {"--corpus": corpus, "--workdir": os.path.join(scratch, "work")}
    while i < len(argv):
        a = argv[i]
        if a in moved and i + 1 < len(argv):
            out += [a, moved[a]]
            i += 2
            continue
        if a.startswith("../"):
            a = os.path.normpath(os.path.join(build, a))	# a source file
        out.append(a)
        i += 1
    if "--corpus" not in out:
        fail("meson's command for %s takes no --corpus" % TARGET)
        return False
    depfile = rule.get("depfile", "")
    depfile = re.sub(r"\$\{?(\w+)\}?", lambda m: edge.get(m.group(1), ""), depfile)
    with open(os.path.join(scratch, "build.ninja"), "w", encoding="utf-8") as f:
        f.write("rule gen\n  command = %s\n" % shlex.join(out).replace("$", "$$"))
        if depfile:
            f.write("  depfile = %s\n" % depfile)
        if rule.get("deps"):
            f.write("  deps = %s\n" % rule["deps"])
        if rule.get("restat"):
            f.write("  restat = 1\n")
        f.write("build %s: gen\n" % " ".join(edge["outputs"]))
    os.makedirs(os.path.join(scratch, "kernel-code"), exist_ok=True)
    return True


def run_ninja(scratch, what):
    r = subprocess.run([ninja, "-C", scratch], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True)
    if r.returncode:
        fail("%s: ninja failed:\n%s" % (what, r.stdout))
    return r.stdout


def listed(scratch):
    try:
        h = open(os.path.join(scratch, TARGET), encoding="utf-8").read()
    except OSError:
        return None
    return set(re.findall(r'\.name = "([^"]+)"', h))


def graph_test():
    scratch = tempfile.mkdtemp(prefix="test-corpus-ninja.")
    try:
        corpus = os.path.join(scratch, "corpus")
        os.makedirs(corpus)
        for ext in (".bug", ".patch"):
            shutil.copy(os.path.join(source, "corpus", ENTRY + ext), corpus)
        if not scratch_ninja(scratch, corpus):
            return
        run_ninja(scratch, "one entry")
        if listed(scratch) != {"k61-" + ENTRY}:
            fail("one entry: the table lists %s" % listed(scratch))
        out = run_ninja(scratch, "nothing changed")
        if "no work to do" not in out:
            fail("nothing changed, but ninja rebuilt:\n" + out)
        # An entry added: a new .bug naming the same patch (a new variant).
        with open(os.path.join(corpus, ENTRY + ".bug"), encoding="utf-8") as f:
            bug = f.read()
        with open(os.path.join(corpus, "zz-added.bug"), "w", encoding="utf-8") as f:
            f.write(bug)
        out = run_ninja(scratch, "entry added")
        if "no work to do" in out:
            fail("an entry added to the folder: plain ninja did nothing (the folder is not a "
                 "dependency of %s)" % TARGET)
        if listed(scratch) != {"k61-" + ENTRY, "k61-zz-added"}:
            fail("entry added: the table lists %s" % listed(scratch))
        nm = subprocess.run(["nm", os.path.join(scratch, "kernel-code", "kc-corpus.o")],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True).stdout
        if "kc_k61_c_zz_added_dput" not in nm:
            fail("entry added: kc-corpus.o has no kc_k61_c_zz_added_dput")
        # Changed in place (the folder's mtime stays): the .bug itself is a dependency.
        st = os.stat(corpus)
        with open(os.path.join(corpus, "zz-added.bug"), "w", encoding="utf-8") as f:
            f.write(re.sub(r"(?m)^class:.*$", "class: refcount-leak", bug))
        os.utime(corpus, ns=(st.st_atime_ns, st.st_mtime_ns))
        run_ninja(scratch, "entry changed")
        h = open(os.path.join(scratch, TARGET), encoding="utf-8").read()
        if "zz-added" not in h or "refcount-leak" not in h:
            fail("an entry changed in place: the table was not regenerated")
        os.unlink(os.path.join(corpus, "zz-added.bug"))
        out = run_ninja(scratch, "entry removed")
        if listed(scratch) != {"k61-" + ENTRY}:
            fail("entry removed: the table lists %s" % listed(scratch))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def build_test():
    r = subprocess.run([sys.executable, os.path.join(source, "corpus", "corpus.py"), "--list",
                        os.path.join(source, "corpus")], stdout=subprocess.PIPE, text=True)
    want = set()
    for line in r.stdout.splitlines():
        name, tree = line.split()[:2]
        want.add({"6.1": "k61", "6.12": "k612"}[tree] + ("-htm-" if line.split()[4] != "-"
                                                         else "-") + name)
    r = subprocess.run([check, "--load", plugin, "--list"], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True)
    missing = sorted(w for w in want if not re.search(r"(?m)^\s*%s\b" % re.escape(w), r.stdout))
    if not want or missing:
        fail("the plugin does not register the corpus's variants %s" % missing)
    # What the scratch graph rebuilt reaches the plugin: it links both outputs.
    r = subprocess.run([ninja, "-C", build, "-t", "inputs", os.path.relpath(plugin, build)],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    ins = set(r.stdout.split())
    if r.returncode == 0 and not {"kernel-code/kc-corpus.h", "kernel-code/kc-corpus.o"} <= ins:
        fail("the plugin %s is not built from kernel-code/kc-corpus.h and .o" % plugin)
    r = subprocess.run([ninja, "-C", build, "-t", "deps", TARGET], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True)
    deps = {os.path.normpath(os.path.join(build, l.strip())) for l in r.stdout.splitlines()[1:]
            if l.strip()}
    corpus = os.path.join(source, "corpus")
    need = {corpus} | {os.path.join(corpus, fn) for fn in os.listdir(corpus)
                       if fn.endswith((".bug", ".patch"))}
    if need - deps:
        fail("ninja -t deps %s lacks %s" % (TARGET, sorted(need - deps)))


graph_test()
build_test()
if fails:
    sys.exit(1)
print("test-corpus-ninja: ok (added, changed, removed entries rebuilt by plain ninja; "
      "the build's plugin lists the corpus)")
