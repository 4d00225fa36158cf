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

meson (kernel-code/meson.build) runs both at configure time, extract.py
--patch builds each variant.  No entry needs code of its own: what an entry
is comes from its .bug file (corpus/README.md).
"""
import os
import re
import sys

TREES = {"6.1": "k61", "6.12": "k612"}


def read_bug(path):
    fields = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line or line.startswith("#") or ":" not in line:
                continue
            k, v = line.split(":", 1)
            fields.setdefault(k.strip(), v.strip())
    return fields


def entries(corpus):
    """(name, fields, reason) for every kind (a) entry; reason None: buildable."""
    out = []
    for fn in sorted(os.listdir(corpus)):
        if not fn.endswith(".bug"):
            continue
        name = fn[:-len(".bug")]
        b = read_bug(os.path.join(corpus, fn))
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


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--list":
        corpus = sys.argv[2]
        for name, b, reason in entries(corpus):
            if reason is None:
                patch = os.path.join(corpus, b["patch"])
                print(name, b["tree"], os.path.abspath(patch),
                      1 if changes_lockref(patch) else 0, series_dir(corpus, b) or "-")
        return 0
    if len(sys.argv) == 4 and sys.argv[1] == "--glue":
        corpus, outpath = sys.argv[2], sys.argv[3]
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
        return 0
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main())
