#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Extract a kernel tree's dput() path for the user-space build in kernel-code/.

What to take is data: a tree table (kernel-code/trees/<version>.tree) names
the tarball's top directory, the source file, the functions of the dput
path, the ones a patch series adds, the defines to copy and the lockref
file.  extract.py unpacks only fs/dcache.c, lib/lockref.c and what the
series touches (through tarball_cache.py, which keeps them once per
tarball for every later build), applies the series (if any) to
a copy, and writes into OUTDIR, for NAME given by --name:

  NAME-dcache.h            the table's functions of the unpatched source
  NAME-lockref-c.h         lib/lockref.c, whole (it includes only
                           <linux/export.h> and <linux/lockref.h>, both shims)
  with --patch FILE (repeatable), instead of the unpatched source:
  NAME-dcache.h            the table's functions after FILE..., applied
                           strictly (no fuzz); a patch that does not apply,
                           or changes a file other than the source and the
                           lockref file, or a line outside the table's
                           functions, stops with an error naming the hunk,
                           the file or the function
  with --series DIR and --patch FILE...: the same after DIR/series, with
                           the series' functions and defines (a variant
                           of the series' strategy, corpus/ "after:")
  with --series DIR:
  NAME-htm-dcache.h        the functions + series-funcs after DIR/series
  NAME-htm-bug-nolock-dcache.h
                           the patched functions with fast_dput_htm()'s
                           d_lock test cut out: the planted bug

(".h" only so that meson treats them as generated headers: dput.c and
lockref-funcs.c #include them, one object per variant.)  Each dcache file
ends with KC_EXTRACTED_FUNCS, one KC_FUNC(name) per function, from which
dput.c builds the explorer's table of function names.

The table's types line names the structs and enums of the source that the
functions use (struct select_data, enum d_walk_ret), copied in place with
their comment.  The table's defines line names macros of the source that the functions
use (every "#define NAME..." line whose name starts with one of its
prefixes, D_FLAG_VERIFY for example), copied into every variant.

Functions are found by name, never by line number, and copied by brace
matching with their kernel-doc comment; each is preceded by a #line
directive, so compiler messages and explorer traces point into fs/dcache.c.
A required name that is missing, or found twice, stops the build with a
message: the tree or the series changed shape and the table must follow.

--top DIR: the tarball's top directory, if not the table's (a kernel.org
tarball, linux-6.12.5/).  --keep-source DIR: also copy the (patched)
source file there, as DIR/fs/dcache.c, for reading the #line numbers.

--changed FILE (with --patch): the lines of the patched source and
lockref file that differ from the tree (or the series) before the
patches, one "FILE LINE FUNCTION" row each: kpatch.py's coverage of the
change.  A patch is read the way developers have it: git format-patch
output (its mail headers, message and "-- " signature around the diff,
several patches in one mbox file), or a plain "diff -u" whose paths carry
no a/ b/ prefix (the -p level is the one that names fs/dcache.c or
lib/lockref.c); one that holds no diff, or changes nothing, is an error.

usage: extract.py --tree TABLE --tarball TARBALL --name NAME
                  [--top DIR] [--keep-source DIR] [--changed FILE]
                  [--series DIR] [--patch FILE...] OUTDIR
"""

import argparse
import difflib
import os
import re
import shutil
import subprocess
import sys
import tempfile

import tarball_cache


def die(msg):
    sys.stderr.write("extract.py: error: %s\n" % msg)
    sys.exit(1)


def patch_diffs(patch):
    """[(old path, new path)] of each file diff in @patch, and its hunk count.

    A file diff starts with a "--- " line directly followed by a "+++ "
    line, so that a mail's "-- " signature, its headers and its commit
    message (git format-patch, an mbox of several patches) are not read
    as part of a diff.
    """
    diffs, hunks, prev = [], 0, None
    with open(patch, encoding="utf-8", errors="replace") as f:
        for line in f:
            m = re.match(r"^\+\+\+ (\S+)", line)
            if m and prev is not None:
                diffs.append((prev, m.group(1)))
            elif line.startswith("@@ ") and diffs:
                hunks += 1
            m = re.match(r"^--- (\S+)", line)
            prev = m.group(1) if m else None
    return diffs, hunks


def strip_path(path, level):
    """@path without its first @level components; None if it has no more."""
    parts = path.split("/")
    return "/".join(parts[level:]) if len(parts) > level else None


def strip_level(patch, members):
    """The -p level that makes @patch name files of @members (git: 1, diff -u: 0..).

    Return: (level, [paths it changes or creates at that level]).
    """
    diffs, hunks = patch_diffs(patch)
    if not diffs or not hunks:
        die("%s holds no diff (no \"--- \" and \"+++ \" file header with a hunk): "
            "an empty patch checks nothing" % patch)
    for level in range(0, 4):
        # Each diff names the file it changes on one of its two header lines
        # (diff -u old new: whichever patch(1) finds; /dev/null: created or removed).
        stripped = []
        for o, n in diffs:
            cands = [strip_path(x, level) for x in (n, o) if x != "/dev/null"]
            stripped.append(next((x for x in cands if x in members), cands[0]))
        if any(x in members for x in stripped):
            return level, stripped
    shown = {n[2:] if n.startswith(("a/", "b/")) else n for o, n in diffs}
    die("%s changes %s: only %s are built in user space" %
        (patch, ", ".join(sorted(shown)), " and ".join(sorted(members))))


def read_series(patchdir):
    series = os.path.join(patchdir, "series")
    if not os.path.exists(series):
        die("%s: no series file" % series)
    with open(series) as f:
        names = [l.strip() for l in f if l.strip() and not l.startswith("#")]
    if not names:
        die("%s is empty" % series)
    return [os.path.join(patchdir, n) for n in names]


def skip_noncode(src, i):
    """If src[i:] starts a comment, string or char literal, return its end."""
    if src.startswith("/*", i):
        j = src.find("*/", i + 2)
        return len(src) if j < 0 else j + 2
    if src.startswith("//", i):
        j = src.find("\n", i)
        return len(src) if j < 0 else j
    if src[i] in "\"'":
        q, j = src[i], i + 1
        while j < len(src) and src[j] != q:
            j += 2 if src[j] == "\\" else 1
        return j + 1
    return None


def match_brace(src, open_at):
    """Index just past the '}' that closes the '{' at @open_at."""
    depth, i = 0, open_at
    while i < len(src):
        end = skip_noncode(src, i)
        if end is not None:
            i = end
            continue
        if src[i] == "{":
            depth += 1
        elif src[i] == "}":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    die("unbalanced braces from offset %d" % open_at)


def find_function(src, name, path):
    """(start, end) of the definition of @name, kernel-doc comment included."""
    # A definition starts at column 0, names the function before its first
    # '(' and reaches a '{' at column 0 before any ';' at the end of a line.
    hits = []
    for m in re.finditer(r"(?m)^[A-Za-z_][^;#\n]*?\b%s\s*\(" % re.escape(name), src):
        head_end = src.find("\n{", m.start())
        if head_end < 0:
            continue
        head = src[m.start():head_end]
        if re.search(r";\s*(\n|$)", head) or "}" in head:
            continue		# a prototype or a call, not a definition
        hits.append((m.start(), head_end + 1))
    if not hits:
        die("%s: function %s() not found" % (path, name))
    if len(hits) > 1:
        die("%s: function %s() defined %d times" % (path, name, len(hits)))
    start, brace = hits[0]
    end = match_brace(src, brace)
    # So do the lines of storage class and attributes above the one that
    # names it ("static noinline notrace ...\nbool f(...)"): column 0, no
    # ';', '#', '{', '}', '(' or comment.
    while True:
        prev = src.rfind("\n", 0, start - 1) + 1
        line = src[prev:start - 1]
        if start == 0 or not re.match(r"^[A-Za-z_][\w \t]*$", line):
            break
        start = prev
    # The comment block right above belongs to it.
    before = src[:start].rstrip("\n")
    if before.endswith("*/"):
        cstart = before.rfind("/*")
        if cstart >= 0 and src.rfind("\n", 0, cstart) == cstart - 1:
            start = cstart
    return start, end


def find_type(src, name, path):
    """(start, end) of the definition of struct/enum/union @name, through its ';'."""
    hits = [m for m in re.finditer(r"(?m)^(struct|enum|union)\s+%s\s*\{" % re.escape(name), src)]
    if not hits:
        die("%s: type %s (struct, enum or union) not found" % (path, name))
    if len(hits) > 1:
        die("%s: type %s defined %d times" % (path, name, len(hits)))
    start = hits[0].start()
    end = match_brace(src, hits[0].end() - 1)
    semi = src.find(";", end)
    if semi < 0 or src[end:semi].strip():
        die("%s: type %s: no ';' right after its '}'" % (path, name))
    # The comment block right above belongs to it.
    before = src[:start].rstrip("\n")
    if before.endswith("*/"):
        cstart = before.rfind("/*")
        if cstart >= 0 and src.rfind("\n", 0, cstart) == cstart - 1:
            start = cstart
    return start, semi + 1


def find_defines(src, prefix, path):
    out = []
    for m in re.finditer(r"(?m)^#define\s+%s\w*.*$" % re.escape(prefix), src):
        out.append((m.start(), m.end()))
    if not out:
        die("%s: no #define %s* (a defines or series-defines line of the tree table)" %
            (path, prefix))
    return out


def line_of(src, off):
    return src.count("\n", 0, off) + 1


def drop_lock_test(text):
    """The planted bug: remove fast_dput_htm()'s if-statement testing d_lock."""
    if not re.search(r"\bfast_dput_htm\s*\(", text):
        die("planted bug: fast_dput_htm() not in the extracted text")
    fstart, body_end = find_function(text, "fast_dput_htm", "extracted text")
    body = text.find("\n{", fstart) + 1
    fn = text[body:body_end]
    for cm in re.finditer(r"\bif\s*\(", fn):
        # the condition, parentheses matched
        depth, i = 0, cm.end() - 1
        while True:
            if fn[i] == "(":
                depth += 1
            elif fn[i] == ")":
                depth -= 1
                if depth == 0:
                    break
            i += 1
        cond = fn[cm.end():i]
        if not re.search(r"spin_is_locked|spin_value_unlocked|d_lock\b", cond):
            continue
        j = i + 1
        while fn[j].isspace():
            j += 1
        stmt_end = match_brace(fn, j) if fn[j] == "{" else fn.index(";", j) + 1
        line_start = fn.rfind("\n", 0, cm.start()) + 1
        cut = fn[line_start:stmt_end]
        new_fn = (fn[:line_start] +
                  "\t/* PLANTED BUG (kernel-code/): d_lock test removed */\n" +
                  "\n" * (cut.count("\n") - 1) + fn[stmt_end:].lstrip(" \t"))
        return text[:body] + new_fn + text[body_end:]
    die("planted bug: no if-statement testing d_lock in fast_dput_htm()")


def extract(path, source, funcs, define_prefixes, origin, types=()):
    with open(path, encoding="utf-8") as f:
        src = f.read()
    spans = [find_function(src, n, path) for n in funcs]
    spans += [find_type(src, n, path) for n in types]
    for prefix in define_prefixes:
        spans += find_defines(src, prefix, path)
    spans.sort()
    out = ["/* SPDX-License-Identifier: GPL-2.0 */\n",
           "/*\n * Generated by kernel-code/extract.py from %s.\n" % origin,
           " * Do not edit; do not commit.  Functions: %s.\n */\n" % ", ".join(funcs)]
    for s, e in spans:
        out.append('#line %d "%s"\n' % (line_of(src, s), source))
        out.append(src[s:e] + "\n\n")
    out.append("#define KC_EXTRACTED_FUNCS \\\n%s\n" %
               " \\\n".join("\tKC_FUNC(%s)" % n for n in funcs))
    return "".join(out)


def read_tree(path):
    """The tree table: "key value..." lines, '#' comments."""
    known = {"package", "top", "source", "funcs", "types", "defines", "shims", "lockref", "cflags",
             "series-funcs", "series-defines"}
    tree = {k: [] for k in known}
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            words = line.split("#", 1)[0].split()
            if not words:
                continue
            if words[0] not in known:
                die("%s:%d: unknown key %s (one of %s)" %
                    (path, n, words[0], ", ".join(sorted(known))))
            tree[words[0]] += words[1:]
    for k in ("package", "top", "source", "funcs", "lockref"):
        if not tree[k]:
            die("%s: no %s line" % (path, k))
    for k in ("package", "top", "source", "lockref"):
        if len(tree[k]) != 1:
            die("%s: %s takes one value" % (path, k))
        tree[k] = tree[k][0]
    return tree


def changed_lines(before, after):
    """Lines of @after (1-based) that differ from @before: added or changed
    ones, and for a deletion the line now at its place.

    Computed from the two texts, not read from the patch, so that any form
    of patch (git's with its mail around it, several in one file, diff -u)
    gives the same lines, and a series gives the lines of the end result.
    """
    a, b = before.splitlines(), after.splitlines()
    out = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag in ("replace", "insert"):
            out += range(j1 + 1, j2 + 1)
        elif tag == "delete" and j1 < len(b):
            out.append(j1 + 1)
    return sorted(set(out))


def enclosing_function(src, line):
    """Name of the function whose definition spans @line of @src, or None."""
    off = 0
    for _ in range(line - 1):
        off = src.find("\n", off) + 1
    for m in re.finditer(r"(?m)^[A-Za-z_][^;#\n]*?\b(\w+)\s*\(", src):
        if m.start() > off:
            break
        head_end = src.find("\n{", m.start())
        if head_end < 0:
            continue
        head = src[m.start():head_end]
        if re.search(r";\s*(\n|$)", head) or "}" in head:
            continue
        if m.start() <= off < match_brace(src, head_end + 1):
            return m.group(1)
    return None


def function_spans(src, funcs, path):
    """[(first line, last line, name)] of each of @funcs in @src."""
    return [(line_of(src, s), line_of(src, e), n) for (s, e), n in
            ((find_function(src, n, path), n) for n in funcs)]


def check_patch_scope(patch, before, path, source, funcs, table):
    """Every line @patch changed in @path (patched; @before: its text before) lies in one of @funcs."""
    with open(path, encoding="utf-8") as f:
        src = f.read()
    spans = function_spans(src, funcs, path)
    for line in changed_lines(before, src):
        if any(a <= line <= b for a, b, _ in spans):
            continue
        fn = enclosing_function(src, line)
        what = "%s()" % fn if fn else "code outside any function"
        die("%s changes %s (%s:%d), which is not in the extracted set of %s "
            "(%s): the user-space build would not run it.  Add the function to the "
            "table if the shims allow it, or leave it out of the patch" %
            (patch, what, source, line, table, ", ".join(funcs)))


def write_changed(path, parts):
    """--changed FILE: one "FILE LINE FUNCTION" row per changed line.

    @parts: (source name, text before, text after, function spans or None).
    The function is "-" for a line outside the spans (lib/lockref.c).
    """
    rows = []
    for name, before, after, spans in parts:
        for line in changed_lines(before, after):
            fn = next((n for a, b, n in spans or () if a <= line <= b), "-")
            rows.append("%s %d %s\n" % (name, line, fn))
    write(path, "".join(rows))


def apply_patch(patch, tree_dir, tarball, fuzz, level=1):
    cmd = ["patch", "-p%d" % level, "-N", "--no-backup-if-mismatch", "--reject-file=-",
           "-d", tree_dir, "-i", os.path.abspath(patch)]
    if fuzz is not None:
        cmd.insert(1, "--fuzz=%d" % fuzz)
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if r.returncode:
        hunks = re.findall(r"Hunk #(\d+) FAILED at (\d+)", r.stdout)
        where = "".join("\n  hunk #%s failed (it expects the text at line %s)" % h
                        for h in hunks)
        die("%s does not apply to %s:%s\n%s" % (patch, tarball, where, r.stdout.rstrip()))


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)


def main():
    ap = argparse.ArgumentParser(description="extract a kernel tree's dput path")
    ap.add_argument("--tree", required=True, help="the tree table (kernel-code/trees/*.tree)")
    ap.add_argument("--tarball", required=True)
    ap.add_argument("--name", required=True, help="prefix of the output files (k61, k612)")
    ap.add_argument("--series", help="directory with a quilt series to apply")
    ap.add_argument("--patch", action="append", default=[],
                    help="a patch to apply before the extraction (repeatable)")
    ap.add_argument("--top", help="the tarball's top directory (default: the table's)")
    ap.add_argument("--keep-source", help="copy the (patched) source file into this directory")
    ap.add_argument("--changed", help="with --patch: write the changed lines here "
                    "(\"FILE LINE FUNCTION\" rows, the patched file's numbers)")
    ap.add_argument("outdir")
    args = ap.parse_args()
    tree = read_tree(args.tree)
    top, source = args.top or tree["top"], tree["source"]
    if not os.path.exists(args.tarball):
        die("%s not found (apt-get install %s)" % (args.tarball, tree["package"]))
    patches = read_series(args.series) if args.series else []
    os.makedirs(args.outdir, exist_ok=True)
    built = {source, tree["lockref"]}
    members = set(built)
    for p in patches:
        members |= {strip_path(o, 1) for o, n in patch_diffs(p)[0] if o != "/dev/null"}
    levels = []
    for p in args.patch:
        if not os.path.exists(p):
            die("%s: no such patch" % p)
        level, paths = strip_level(p, built)
        for f in sorted(set(paths)):
            if f not in built:
                die("%s changes %s: only %s and %s are built in user space" %
                    (p, f, source, tree["lockref"]))
        levels.append(level)
    work = tempfile.mkdtemp(prefix="kernel-code.", dir=args.outdir)
    out = lambda suffix: os.path.join(args.outdir, "%s-%s" % (args.name, suffix))
    tarname = os.path.basename(args.tarball)
    try:
        err = tarball_cache.unpack(args.tarball, top, members, work)
        if err is not None:
            die("%s: cannot unpack %s (is it %s?):\n%s" %
                (args.tarball, ", ".join(sorted(members)), tree["package"], err))
        base = os.path.join(work, top)
        funcs, defines = tree["funcs"], tree["defines"]
        origin = "%s %s" % (tarname, source)
        if patches and args.patch:
            # A patch on top of the series: the series' variant, changed.
            for p in patches:
                apply_patch(p, base, args.tarball, None)
            funcs = tree["funcs"] + tree["series-funcs"]
            defines = tree["defines"] + tree["series-defines"]
            origin += " with %s" % ", ".join(os.path.basename(p) for p in patches)
        def read(name):
            with open(os.path.join(base, name), encoding="utf-8") as f:
                return f.read()
        orig = {f: read(f) for f in built}
        for p, level in zip(args.patch, levels):
            before = read(source)
            apply_patch(p, base, args.tarball, 0, level)
            check_patch_scope(p, before, os.path.join(base, source), source, funcs, args.tree)
        if args.patch and all(read(f) == orig[f] for f in built):
            die("%s change%s nothing in %s: an empty or no-op patch checks nothing" %
                (", ".join(args.patch), "" if len(args.patch) > 1 else "s",
                 " or ".join(sorted(built))))
        if args.changed:
            after = read(source)
            write_changed(args.changed,
                          [(source, orig[source], after, function_spans(after, funcs, source)),
                           (tree["lockref"], orig[tree["lockref"]], read(tree["lockref"]), None)])
        if args.patch:
            origin += " with %s" % ", ".join(os.path.basename(p) for p in args.patch)
        if args.keep_source:
            kept = os.path.join(args.keep_source, source)
            os.makedirs(os.path.dirname(kept), exist_ok=True)
            shutil.copyfile(os.path.join(base, source), kept)
        write(out("dcache.h"), extract(os.path.join(base, source), source, funcs, defines, origin,
                                       tree["types"]))
        with open(os.path.join(base, tree["lockref"]), encoding="utf-8") as f:
            lockref = f.read()
        write(out("lockref-c.h"), '#line 1 "%s"\n' % tree["lockref"] + lockref)
        if not patches or args.patch:
            return
        patched = os.path.join(work, "patched")
        shutil.copytree(base, patched)
        for p in patches:
            apply_patch(p, patched, args.tarball, None)
        htm = extract(os.path.join(patched, source), source,
                      tree["funcs"] + tree["series-funcs"],
                      tree["defines"] + tree["series-defines"],
                      "%s %s with %s" % (tarname, source,
                                         ", ".join(os.path.basename(p) for p in patches)),
                      tree["types"])
        write(out("htm-dcache.h"), htm)
        write(out("htm-bug-nolock-dcache.h"), drop_lock_test(htm))
        with open(os.path.join(patched, tree["lockref"]), encoding="utf-8") as f:
            if f.read() != lockref:
                die("the series changes %s: extract it per variant" % tree["lockref"])
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
