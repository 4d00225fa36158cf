#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The kind (a) entries of corpus/ as kernel-code variants.

  corpus.py --list CORPUS       one line per kind (a) entry that can be built:
                                NAME TREE PATCH LOCKREF SERIES (LOCKREF: 1
                                when the patch changes lib/lockref.c, which
                                then needs the variant's own copy; SERIES:
                                the folder of the entry's after: series, '-'
                                for none)
  corpus.py --glue CORPUS OUT   writes OUT, the C that glue.c includes: one
                                strategy k61-NAME / k612-NAME (k61-htm-NAME
                                after the HTM series) per built entry
                                in kc_corpus_strategies[], and every kind (a)
                                entry that is not built, with the reason, in
                                kc_corpus_unbuilt[]

  corpus.py --dump CORPUS       the runner's fields of every entry, for
                                dcsim-check --corpus (format below)
  corpus.py --check CORPUS      validate every entry; exit 0, or 2 with one
                                "FILE:LINE: field: why" line per error

This file is the one parser of the .bug format (corpus/README.md): the
runner (src/checker/corpus.c) reads the --dump of it, check-corpus.sh
imports it, and kernel-code/corpus-build.py (a build step that must run
before any of dcsim's programs exist) imports it for the variants.  Every option validates the whole corpus
first: an unknown field, a field given twice, an unknown value, a CR, a
NUL or a byte that is not UTF-8 is an error (exit 2), never dropped.

The dump: "dcsim-corpus-dump 2", then per entry "entry NAME", one
"FIELD LINE VALUE" line per runner field given (LINE: where the .bug has
it), and "end".  Values never hold
a newline, a tab or a NUL (the parser refuses them).

kernel-code/corpus-build.py, one ninja step whose depfile names the corpus
folder, takes buildable() (--list) and write_glue() (--glue) from here and
builds each variant with extract.py --patch, so that a plain ninja follows
the folder.  No entry needs code of its own:
what an entry is comes from its .bug file (corpus/README.md).
"""
import os
import re
import sys

TREES = {"6.1": "k61", "6.12": "k612"}


# ---- the .bug format (corpus/README.md) ----------------------------------
CLASSES = {"use-after-free", "refcount-leak", "lost-lru-entry", "dentry-never-freed",
           "livelock", "counter-drift", "policy-drift", "lock-not-held", "lock-inversion", "none"}
EXPECT = {"caught", "pass", "expected-fail", "missed"}
REQUIRED = ["commit", "subject", "fixed-in", "id-check", "verified-by", "class", "kind",
            "expect", "catch", "needs", "status"]
# What the runner (dcsim-check --corpus) reads, in the --dump.
RUNNER = ["commit", "class", "kind", "tree", "after", "expect", "needs", "strategies",
          "fixed", "suites", "plant", "budget", "sched"]
KNOWN = set(REQUIRED) | {"tree", "patch", "after", "fault", "scenario", "note",
                         "strategies", "fixed", "suites", "plant", "budget", "sched"}
SUITE = re.compile(r"^(diff|misuse|stress|explore(:[a-z0-9-]+(,[a-z0-9-]+)*)?)$")
NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._+-]*$")
# The runner's limits (src/checker/corpus.c): words per list, runs per entry,
# characters per field.
MAX_WORDS, MAX_RUNS, FIELD_MAX = 16, 24, 1023


class BugError(Exception):
    """A .bug file that is not well formed; str() is "FILE:LINE: why"."""


def parse_bug(path, where=None, err=None):
    """The fields of the .bug file @path, as {field: value}.

    Every problem goes to err(where_with_line, message); without @err the
    first one raises BugError.  Judged line by line: the value of a line
    is all of it (no length limit), a repeated or unknown field, an empty
    value, a CR, a NUL, a non-UTF-8 byte or a line that is no
    'field: value' is an error.
    """
    where = where or path
    if err is None:
        def err(w, m):
            raise BugError("%s: %s" % (w, m))
    fields = {}
    with open(path, "rb") as f:
        data = f.read()
    for n, raw in enumerate(data.split(b"\n"), 1):
        at = "%s:%d" % (where, n)
        if b"\0" in raw:
            err(at, "NUL byte in the line")
            continue
        if raw.endswith(b"\r") or b"\r" in raw:
            err(at, "carriage return (CRLF line end?): save the file with LF line ends")
            continue
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError as e:
            err(at, "not UTF-8 (%s)" % e.reason)
            continue
        if not line.strip() or line.startswith("#"):
            continue
        m = re.match(r"^([a-z-]+):\s*(.*)$", line)
        if not m:
            err(at, "not a 'field: value' line")
            continue
        k, v = m.groups()
        v = v.strip()
        if "\t" in v:
            err(at, "%s: tab in the value" % k)
        elif k not in KNOWN:
            err(at, "unknown field '%s'" % k)
        elif k in fields:
            err(at, "field '%s' given twice" % k)
        elif not v:
            err(at, "field '%s' is empty" % k)
        elif k in RUNNER and len(v) > FIELD_MAX:
            err(at, "%s: longer than %d characters" % (k, FIELD_MAX))
        else:
            fields[k] = v
            fields.setdefault("_line", {})[k] = n
    return fields


def check_bug(path, f, corpus, top, where=None, err=None):
    """Judge the values of @f (parse_bug()'s): known values, the fields its
    kind needs, the files it names.  Errors as in parse_bug()."""
    where = where or path
    if err is None:
        def err(w, m):
            raise BugError("%s: %s" % (w, m))
    lines = f.get("_line", {})

    def at(k):
        return "%s:%d" % (where, lines[k]) if k in lines else where

    for k in REQUIRED:
        if k not in f:
            err(where, "missing field '%s'" % k)
    # Judge what is there even when something is missing.
    f = dict(f)
    for k in ("commit", "id-check", "class", "kind", "expect"):
        f.setdefault(k, "")
    c, idc = f["commit"], f["id-check"]
    if c and not re.fullmatch(r"[0-9a-f]{12}|unknown|planted", c):
        err(at("commit"), "commit must be 12 hex digits, 'unknown' or 'planted', not '%s'" % c)
    elif not c or not idc:
        pass
    elif re.fullmatch(r"[0-9a-f]{12}", c):
        if not (idc == "verified" or idc.startswith("unverified")):
            err(at("id-check"), "id-check must be 'verified' or 'unverified: <why>'")
    elif c == "unknown":
        if not idc.startswith("unverified"):
            err(at("id-check"), "commit 'unknown' needs id-check 'unverified: <why>'")
    elif c == "planted":
        if idc != "planted":
            err(at("id-check"), "a planted entry needs id-check 'planted'")
    if f["class"] and f["class"] not in CLASSES:
        err(at("class"), "class '%s' is not one of %s" % (f["class"], ", ".join(sorted(CLASSES))))
    if f["expect"] and f["expect"] not in EXPECT:
        err(at("expect"), "expect '%s' is not one of %s" % (f["expect"], ", ".join(sorted(EXPECT))))
    if f["class"] and f["expect"] and (f["class"] == "none") != (f["expect"] == "pass"):
        err(where, "a negative control has class 'none' and expect 'pass', and only it")
    kind = f["kind"]
    if kind and kind not in ("a", "b", "c"):
        err(at("kind"), "kind must be a (kernel code), b (model) or c (latent), not '%s'" % kind)
    if kind == "a" and "patch" not in f:
        err(where, "kind (a) needs a patch")
    if kind == "a" and f["expect"] == "expected-fail":
        err(where, "kind (a) is caught, missed or, for a control, passes")
    if kind == "b" and "fault" not in f:
        err(where, "kind (b) needs 'fault' (the model fault to plant)")
    if kind == "c" and ("scenario" not in f or f["expect"] not in ("expected-fail", "missed")):
        err(where, "kind (c) needs 'scenario' and expect 'expected-fail' (or 'missed')")
    if f.get("budget", "quick") not in ("quick", "default", "soak"):
        err(at("budget"), "budget must be quick, default or soak, not '%s'" % f["budget"])
    if f.get("sched", "fair") not in ("fair", "strict", "rt", "window"):
        err(at("sched"), "sched must be fair, strict, rt or window, not '%s'" % f["sched"])
    nwords = {}
    for k in ("strategies", "fixed", "suites"):
        words = f.get(k, "").split()
        nwords[k] = len(words)
        if len(words) > MAX_WORDS:
            err(at(k), "%s: %d words, the runner takes at most %d" % (k, len(words), MAX_WORDS))
        if len(set(words)) != len(words):
            err(at(k), "%s: a word given twice" % k)
        for w in words:
            if k == "suites" and not SUITE.match(w):
                err(at(k), "suite '%s' is not diff, misuse, stress, explore or "
                    "explore:SCN,..." % w)
            elif k != "suites" and not NAME.match(w):
                err(at(k), "%s: '%s' is not a strategy name" % (k, w))
    if (nwords["strategies"] + nwords["fixed"]) * nwords["suites"] > MAX_RUNS:
        err(at("suites"), "(strategies + fixed) x suites is more than the runner's %d runs"
            % MAX_RUNS)
    if "plant" in f and not NAME.match(f["plant"]):
        err(at("plant"), "plant: '%s' is not a fault name" % f["plant"])
    if f["expect"] in ("caught", "pass", "expected-fail") and "suites" not in f:
        err(where, "expect '%s' needs 'suites' (what the runner runs)" % f["expect"])
    if f["expect"] == "expected-fail" and "fixed" not in f:
        err(where, "expect 'expected-fail' needs 'fixed' (the strategies that must pass)")
    if "patch" in f:
        if "tree" not in f:
            err(where, "a patch needs 'tree' (%s)" % " or ".join(sorted(TREES)))
        if not os.path.isfile(os.path.join(corpus, f["patch"])):
            err(at("patch"), "patch %s not found in corpus/" % f["patch"])
    if "tree" in f and f["tree"] not in TREES:
        err(at("tree"), "tree '%s' is not one of %s" % (f["tree"], ", ".join(sorted(TREES))))
    if "after" in f and not os.path.isfile(os.path.join(top, f["after"])):
        err(at("after"), "after: %s not found" % f["after"])


def read_corpus(corpus, top=None, where=None, err=None):
    """{file name: fields} of every .bug in @corpus, each parsed and judged.
    @where(path) names a file in messages (default: the path)."""
    top = top or os.path.dirname(os.path.abspath(corpus))
    bugs = {}
    for fn in sorted(os.listdir(corpus)):
        if not fn.endswith(".bug"):
            continue
        p = os.path.join(corpus, fn)
        w = where(p) if where else p
        bugs[fn] = parse_bug(p, w, err)
        check_bug(p, bugs[fn], corpus, top, w, err)
    return bugs


def read_bug(path):
    """The fields of one .bug, judged; raises BugError on the first error."""
    corpus = os.path.dirname(os.path.abspath(path))
    f = parse_bug(path)
    check_bug(path, f, corpus, os.path.dirname(corpus))
    return f


def entries(corpus):
    """(name, fields, reason) for every kind (a) entry; reason None: buildable."""
    out = []
    for fn, b in sorted(read_corpus(corpus).items()):
        name = fn[:-len(".bug")]
        if b.get("kind") != "a":
            continue
        reason = None
        patch = os.path.join(corpus, b.get("patch", ""))
        if b.get("tree") not in TREES:
            reason = "tree %s: no kernel-code extraction" % b.get("tree")
        elif not b.get("patch") or not os.path.exists(patch):
            reason = "no patch file"
        elif b.get("after") and os.path.basename(b["after"]) != "series":
            reason = "after: %s: not a series file" % b["after"]
        out.append((name, b, reason))
    return out


def series_dir(corpus, b):
    """The folder of @b's after: series (repository-relative), or None."""
    if not b.get("after"):
        return None
    top = os.path.dirname(os.path.abspath(corpus))
    return os.path.join(top, os.path.dirname(b["after"]))


def prefix_of(b):
    return TREES[b["tree"]] + ("-htm" if b.get("after") else "")


def flags(b):
    """The strategy's flags: HTM after the series, 6.8's shrinker locking on
    6.12, 6.1's own shrink_lock_dentry() on 6.1."""
    f = (["DCSIM_STRATEGY_USES_HTM"] if b.get("after") else []) + \
        (["DCSIM_STRATEGY_LOCK_FOR_KILL"] if b["tree"] == "6.12" else
         ["DCSIM_STRATEGY_SHRINK_LOCK_DENTRY"])
    return "\t.flags = %s,\n" % " | ".join(f) if f else ""


def changes_lockref(patch):
    with open(patch, encoding="utf-8") as f:
        return any(re.match(r"^\+\+\+ b/lib/lockref\.c\b", l) for l in f)


def cname(prefix, name):
    return prefix + "_c_" + re.sub(r"[^A-Za-z0-9]", "_", name)


def c_str(s):
    return '"%s"' % s.replace("\\", "\\\\").replace('"', '\\"')


def dump(corpus, out):
    """The runner's fields of every entry (the --dump format, see the top)."""
    out.write("dcsim-corpus-dump 2\n")
    for fn, b in sorted(read_corpus(corpus).items()):
        out.write("entry %s\n" % fn[:-len(".bug")])
        for k in RUNNER:
            if k in b:
                out.write("%s %d %s\n" % (k, b["_line"][k], b[k]))
        out.write("end\n")


def main():
    if len(sys.argv) == 3 and sys.argv[1] in ("--dump", "--check"):
        errors = []
        read_corpus(sys.argv[2], err=lambda w, m: errors.append("%s: %s" % (w, m)))
        for e in errors:
            sys.stderr.write("corpus.py: %s\n" % e)
        if errors:
            return 2
        if sys.argv[1] == "--dump":
            dump(sys.argv[2], sys.stdout)
        return 0
    if len(sys.argv) == 3 and sys.argv[1] == "--list":
        for name, tree, patch, lockref, sdir in buildable(sys.argv[2]):
            print(name, tree, patch, 1 if lockref else 0, sdir or "-")
        return 0
    if len(sys.argv) == 4 and sys.argv[1] == "--glue":
        write_glue(sys.argv[2], sys.argv[3])
        return 0
    sys.stderr.write(__doc__)
    return 2


def buildable(corpus):
    """(name, tree, patch, changes lockref, series folder or None) of every
    kind (a) entry that can be built (--list)."""
    out = []
    for name, b, reason in entries(corpus):
        if reason is None:
            patch = os.path.abspath(os.path.join(corpus, b["patch"]))
            out.append((name, b["tree"], patch, changes_lockref(patch), series_dir(corpus, b)))
    return out


def write_glue(corpus, outpath):
    """Write @outpath, the C that glue.c includes (--glue)."""
    decl, table, unbuilt = [], [], []
    for name, b, reason in entries(corpus):
        if reason is not None:
            unbuilt.append("\t{ %s, %s },\n" % (c_str(name), c_str(reason)))
            continue
        prefix = prefix_of(b)
        c = cname(TREES[b["tree"]], name)
        # Each variant brings its tree's shrinker too (kernel-code/dput.c).
        ops = "extern const struct dcsim_dcache_ops kc_%s_ops;\n" % c
        decl.append("void kc_%s_dput(struct dcsim_dentry *d);\n"
                    "%s"
                    "KC_STRATEGY_DPUT(%s_dput, kc_%s_dput)\n"
                    "static const struct dcsim_dput_strategy %s = {\n"
                    "\t.name = %s,\n"
                    "\t.description = %s,\n"
                    "\t.dput = %s_dput,\n"
                    "\t.retain_style = DCSIM_RETAIN_LRU_THEN_REFERENCED,\n"
                    "%s"
                    "%s"
                    "};\n\n" % (c, ops, c, c, c, c_str(prefix + "-" + name),
                                c_str("%s with corpus/%s (%s %s)" %
                                      (prefix, b["patch"], b.get("commit", "?"),
                                       b.get("class", "?"))), c,
                                flags(b), "\t.ops = &kc_%s_ops,\n" % c))
        table.append("\t&%s,\n" % c)
    with open(outpath, "w", encoding="utf-8") as f:
        f.write("/* Generated by corpus/corpus.py from corpus/: do not edit. */\n\n")
        f.write("".join(decl))
        f.write("const struct dcsim_dput_strategy *const kc_corpus_strategies[] = {\n%s\tNULL,\n};\n\n"
                % "".join(table))
        f.write("const struct kc_corpus_unbuilt kc_corpus_unbuilt[] = {\n%s\t{ NULL, NULL },\n};\n"
                % "".join(unbuilt))


if __name__ == "__main__":
    try:
        sys.exit(main())
    except (BugError, OSError) as e:
        sys.stderr.write("corpus.py: %s\n" % e)
        sys.exit(2)
