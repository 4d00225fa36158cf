#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Validate the corpus of upstream dput()/lockref bugs (corpus/,
# format in corpus/README.md):
#
#  - every <name>.bug is well formed: the required fields, known values,
#    fields that fit its kind;
#  - every patch named by an entry exists, and every *.patch in the folder
#    is named by an entry;
#  - every patch applies with no fuzz (patch -p1 --dry-run -F0) to a fresh
#    extraction of its tree from the linux-source tarball, after the series
#    given by "after:" if any;
#  - a kind (a) patch changes only code that kernel-code/ extracts: the
#    functions listed in kernel-code/trees/*.tree (funcs, series-funcs), and
#    lib/lockref.c, which it takes whole.
#
# usage: corpus/check-corpus.sh [-v] [--corpus DIR]
#        corpus/check-corpus.sh --self-test
#   --corpus DIR   check DIR instead of corpus (same repository)
#   --self-test    run the checker on a scratch corpus with one good entry
#                  and four broken ones; each must be reported
#   LINUX_SOURCE_6_1, LINUX_SOURCE_6_12   tarballs (default
#       /usr/src/linux-source-<tree>.tar.xz)
# Exit: 0 all good; 1 an error (each printed with the file it is about);
# 77 nothing wrong, but a tarball was missing, so some patches were not
# tried (meson's "skipped").
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
corpus=$here
verbose=

self_test() {
	[ -f "${LINUX_SOURCE_6_1:-/usr/src/linux-source-6.1.tar.xz}" ] || {
		echo "check-corpus.sh --self-test: no 6.1 tarball, skipped"; exit 77; }
	scratch=$(mktemp -d)
	trap 'rm -rf "$scratch"' EXIT
	cp "$here/563f40019d16-referenced.bug" "$here/563f40019d16-referenced.patch" "$scratch/"
	# kind (a) into d_mark_dontcache(), which is not extracted
	printf '%s\n' '--- a/fs/dcache.c' '+++ b/fs/dcache.c' '@@ -699,7 +699,7 @@' \
		'	spin_lock(&inode->i_lock);' '	hlist_for_each_entry(de, &inode->i_dentry, d_u.d_alias) {' \
		'		spin_lock(&de->d_lock);' \
		'-		de->d_flags |= DCACHE_DONTCACHE;' '+		de->d_flags |= DCACHE_DONTCACHE | DCACHE_REFERENCED;' \
		'		spin_unlock(&de->d_lock);' '	}' '	inode->i_state |= I_DONTCACHE;' > "$scratch/bad-func.patch"
	sed 's/563f40019d16-referenced.patch/bad-func.patch/' "$here/563f40019d16-referenced.bug" > "$scratch/bad-func.bug"
	# context that is not in the tree
	sed 's/^-\t\tde->d_flags |= DCACHE_DONTCACHE;$/-\t\tde->d_flags |= 7;/' \
		"$scratch/bad-func.patch" > "$scratch/bad-apply.patch"
	sed 's/563f40019d16-referenced.patch/bad-apply.patch/' "$here/563f40019d16-referenced.bug" > "$scratch/bad-apply.bug"
	printf '%s\n' 'commit: 12345' 'subject: x' 'class: oops' 'kind: d' 'not a field' > "$scratch/bad-form.bug"
	: > "$scratch/orphan.patch"
	rc=0
	out=$("$0" --corpus "$scratch" 2>&1) || rc=$?
	fail=0
	for want in \
		'bad-func.patch: changes d_mark_dontcache() in fs/dcache.c, which kernel-code/extract.py does not extract' \
		'bad-apply.patch: does not apply with no fuzz to linux-source-6.1' \
		"bad-form.bug: commit must be 12 hex digits, 'unknown' or 'planted', not '12345'" \
		"bad-form.bug: class 'oops' is not one of" \
		"bad-form.bug: kind must be a (kernel code), b (model) or c (latent), not 'd'" \
		"bad-form.bug:5: not a 'field: value' line" \
		"bad-form.bug: missing field 'expect'" \
		'orphan.patch: no .bug entry names this patch'; do
		case $out in
		*"$want"*) ;;
		*) echo "check-corpus.sh --self-test: FAIL: not reported: $want"; fail=1 ;;
		esac
	done
	case $out in
	*563f40019d16-referenced*) echo "check-corpus.sh --self-test: FAIL: the good entry was reported"; fail=1 ;;
	esac
	[ "$rc" = 1 ] || { echo "check-corpus.sh --self-test: FAIL: exit $rc, want 1"; fail=1; }
	if [ $fail = 0 ]; then
		echo "check-corpus.sh --self-test: ok (8 faults reported, the good entry passed, exit 1)"
	else
		printf '%s\n' "$out"
	fi
	exit $fail
}

while [ $# -gt 0 ]; do
	case $1 in
	-v) verbose=-v ;;
	--corpus) corpus=$(cd "$2" && pwd); shift ;;
	--self-test) self_test ;;
	*) echo "usage: $0 [-v] [--corpus DIR] | --self-test" >&2; exit 2 ;;
	esac
	shift
done
exec python3 - "$corpus" "$top" $verbose <<'EOF'
import ast, os, re, shutil, subprocess, sys, tempfile

corpus, top = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.join(top, "kernel-code"))
import tarball_cache	# the members, unpacked once per tarball (kernel-code/)
verbose = "-v" in sys.argv[3:]
errors = []
skipped = []

def rel(path):
    """@path as the reports name it: repository-relative where it can be."""
    r = os.path.relpath(path, top)
    return path if r.startswith("..") else r

def err(where, msg):
    errors.append("%s: %s" % (where, msg))
    sys.stderr.write("check-corpus.sh: error: %s: %s\n" % (where, msg))

def note(msg):
    if verbose:
        print(msg)

# ---- what kernel-code/ extracts, read from its tree tables --------------
# extract.py takes, per tree, the functions of kernel-code/trees/<tree>.tree
# (funcs, and series-funcs for the series' variants) and its lockref file
# whole.
def extracted_set():
    d = os.path.join(top, "kernel-code", "trees")
    names, whole, known = set(), set(), set()
    for fn in sorted(os.listdir(d)) if os.path.isdir(d) else []:
        if not fn.endswith(".tree"):
            continue
        known.add(fn[:-len(".tree")])
        for line in open(os.path.join(d, fn), encoding="utf-8"):
            words = line.split("#", 1)[0].split()
            if words and words[0] in ("funcs", "series-funcs"):
                names.update(words[1:])
            elif words and words[0] == "lockref":
                whole.update(words[1:])
    if not names:
        err("kernel-code/trees", "no tree table with a funcs line found")
    return names, whole, known

FUNCS, WHOLE, EXTRACTED_TREES = extracted_set()
note("extracted functions: %s; whole files: %s; trees: %s" %
     (", ".join(sorted(FUNCS)), ", ".join(sorted(WHOLE)), ", ".join(sorted(EXTRACTED_TREES))))
unjudged = []

# ---- the .bug files -------------------------------------------------------
CLASSES = {"use-after-free", "refcount-leak", "lost-lru-entry", "dentry-never-freed",
           "livelock", "counter-drift", "policy-drift", "lock-not-held", "none"}
EXPECT = {"caught", "pass", "expected-fail", "missed"}
TREES = {"6.1", "6.12"}
REQUIRED = ["commit", "subject", "fixed-in", "id-check", "verified-by", "class", "kind",
            "expect", "catch", "needs", "status"]
# What the runner (dcsim-check --corpus) reads: strategies, fixed, suites, plant, sched.
KNOWN = set(REQUIRED) | {"tree", "patch", "after", "fault", "scenario", "note",
                         "strategies", "fixed", "suites", "plant", "budget", "sched"}
SUITE = re.compile(r"^(diff|misuse|stress|explore(:[a-z0-9-]+(,[a-z0-9-]+)*)?)$")

def parse_bug(path):
    fields, where = {}, rel(path)
    for n, line in enumerate(open(path, encoding="utf-8"), 1):
        line = line.rstrip("\n")
        if not line.strip() or line.startswith("#"):
            continue
        m = re.match(r"^([a-z-]+):\s*(.*)$", line)
        if not m:
            err("%s:%d" % (where, n), "not a 'field: value' line")
            continue
        k, v = m.groups()
        if k not in KNOWN:
            err("%s:%d" % (where, n), "unknown field '%s'" % k)
        elif k in fields:
            err("%s:%d" % (where, n), "field '%s' given twice" % k)
        elif not v.strip():
            err("%s:%d" % (where, n), "field '%s' is empty" % k)
        fields[k] = v.strip()
    return fields

def check_bug(path, f):
    where = rel(path)
    for k in REQUIRED:
        if k not in f:
            err(where, "missing field '%s'" % k)
    # Judge what is there even when something is missing.
    f = dict(f)
    for k in ("commit", "id-check", "class", "kind", "expect"):
        f.setdefault(k, "")
    c, idc = f["commit"], f["id-check"]
    if c and not re.fullmatch(r"[0-9a-f]{12}|unknown|planted", c):
        err(where, "commit must be 12 hex digits, 'unknown' or 'planted', not '%s'" % c)
    elif not c or not idc:
        pass
    elif re.fullmatch(r"[0-9a-f]{12}", c):
        if not (idc == "verified" or idc.startswith("unverified")):
            err(where, "id-check must be 'verified' or 'unverified: <why>'")
    elif c == "unknown":
        if not idc.startswith("unverified"):
            err(where, "commit 'unknown' needs id-check 'unverified: <why>'")
    elif c == "planted":
        if idc != "planted":
            err(where, "a planted entry needs id-check 'planted'")
    if f["class"] and f["class"] not in CLASSES:
        err(where, "class '%s' is not one of %s" % (f["class"], ", ".join(sorted(CLASSES))))
    if f["expect"] and f["expect"] not in EXPECT:
        err(where, "expect '%s' is not one of %s" % (f["expect"], ", ".join(sorted(EXPECT))))
    if f["class"] and f["expect"] and (f["class"] == "none") != (f["expect"] == "pass"):
        err(where, "a negative control has class 'none' and expect 'pass', and only it")
    kind = f["kind"]
    if kind and kind not in ("a", "b", "c"):
        err(where, "kind must be a (kernel code), b (model) or c (latent), not '%s'" % kind)
    if kind == "a" and "patch" not in f:
        err(where, "kind (a) needs a patch")
    if kind == "a" and f["expect"] == "expected-fail":
        err(where, "kind (a) is caught, missed or, for a control, passes")
    if kind == "b" and "fault" not in f:
        err(where, "kind (b) needs 'fault' (the model fault to plant)")
    if kind == "c" and ("scenario" not in f or f["expect"] not in ("expected-fail", "missed")):
        err(where, "kind (c) needs 'scenario' and expect 'expected-fail' (or 'missed')")
    if f.get("budget", "quick") not in ("quick", "default", "soak"):
        err(where, "budget must be quick, default or soak")
    if f.get("sched", "fair") not in ("fair", "strict", "rt", "window"):
        err(where, "sched must be fair, strict, rt or window")
    for s in f.get("suites", "").split():
        if not SUITE.match(s):
            err(where, "suite '%s' is not diff, misuse, stress, explore or explore:SCN,..." % s)
    if f["expect"] in ("caught", "pass", "expected-fail") and "suites" not in f:
        err(where, "expect '%s' needs 'suites' (what the runner runs)" % f["expect"])
    if f["expect"] == "expected-fail" and "fixed" not in f:
        err(where, "expect 'expected-fail' needs 'fixed' (the strategies that must pass)")
    if "patch" in f:
        if "tree" not in f:
            err(where, "a patch needs 'tree' (%s)" % " or ".join(sorted(TREES)))
        elif f["tree"] not in TREES:
            err(where, "tree '%s' is not one of %s" % (f["tree"], ", ".join(sorted(TREES))))
        if not os.path.isfile(os.path.join(corpus, f["patch"])):
            err(where, "patch %s not found in corpus/" % f["patch"])
    if "after" in f and not os.path.isfile(os.path.join(top, f["after"])):
        err(where, "after: %s not found" % f["after"])

bugs = {}
for name in sorted(os.listdir(corpus)):
    if name.endswith(".bug"):
        p = os.path.join(corpus, name)
        bugs[name] = parse_bug(p)
        check_bug(p, bugs[name])
if not bugs:
    err("corpus", "no .bug files")
named = {f["patch"] for f in bugs.values() if "patch" in f}
for name in sorted(os.listdir(corpus)):
    if name.endswith(".patch") and name not in named:
        err(rel(os.path.join(corpus, name)), "no .bug entry names this patch")

# ---- trees ------------------------------------------------------------------
work = tempfile.mkdtemp(prefix="check-corpus.")
trees = {}

def patch_files(path):
    out = []
    for line in open(path, encoding="utf-8", errors="replace"):
        m = re.match(r"^--- (?:a/)?(\S+)", line)
        if m and m.group(1) != "/dev/null":
            out.append(m.group(1))
    return out

def series(after):
    d = os.path.dirname(os.path.join(top, after))
    names = [l.strip() for l in open(os.path.join(top, after)) if l.strip() and not l.startswith("#")]
    return [os.path.join(d, n) for n in names]

def pristine(tree):
    """The tree's files that any entry needs, unpacked once (xz is slow)."""
    if tree in trees:
        return trees[tree]
    tarball = os.environ.get("LINUX_SOURCE_" + tree.replace(".", "_"),
                             "/usr/src/linux-source-%s.tar.xz" % tree)
    if not os.path.isfile(tarball):
        skipped.append("%s not found: patches for %s not tried" % (tarball, tree))
        trees[tree] = None
        return None
    members = {"fs/dcache.c", "lib/lockref.c"}
    for f in bugs.values():
        if f.get("tree") == tree:
            if "patch" in f and os.path.isfile(os.path.join(corpus, f["patch"])):
                members.update(patch_files(os.path.join(corpus, f["patch"])))
            if "after" in f and os.path.isfile(os.path.join(top, f["after"])):
                for p in series(f["after"]):
                    members.update(patch_files(p))
    dest = os.path.join(work, tree)
    os.makedirs(dest)
    topdir = "linux-source-%s" % tree
    out = tarball_cache.unpack(tarball, topdir, members, dest)
    if out is not None:
        err(tarball, "tar failed (a patch names a file the tarball lacks?):\n" + out)
        trees[tree] = None
        return None
    trees[tree] = (tarball, os.path.join(dest, topdir))
    return trees[tree]

def tree_dir(tree, after):
    """A fresh copy of @tree's files with the series @after applied, or None."""
    key = (tree, after)
    if key in trees:
        return trees[key]
    base = pristine(tree)
    if base is None:
        trees[key] = None
        return None
    tarball, src = base
    if not after:
        trees[key] = src
        return src
    root = os.path.join(work, "%s+%d" % (tree, len(trees)))
    shutil.copytree(src, root)
    pl = series(after)
    for p in pl:
        r = subprocess.run(["patch", "-p1", "-s", "-F0", "-N", "--no-backup-if-mismatch", "-d", root, "-i", p],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if r.returncode:
            err(os.path.relpath(p, top), "does not apply to %s:\n%s" % (tarball, r.stdout))
            trees[key] = None
            return None
    trees[key] = root
    return root

# ---- which functions a patch changes --------------------------------------
def function_spans(src):
    """(first line, last line, name) of each top-level brace block at column 0."""
    lines = src.split("\n")
    spans = []
    i = 0
    while i < len(lines):
        if lines[i].startswith("{"):
            # the head: back to the line that names it (identifier before '(')
            j = i - 1
            head = ""
            while j >= 0 and lines[j].strip() and not lines[j].startswith("}") \
                    and not lines[j].rstrip().endswith(";"):
                head = lines[j] + "\n" + head
                if re.match(r"^[A-Za-z_]", lines[j]) and "(" in lines[j]:
                    break
                j -= 1
            m = re.search(r"\b([A-Za-z_]\w*)\s*\(", head)
            name = m.group(1) if m else None
            depth, k = 0, i
            while k < len(lines):
                depth += lines[k].count("{") - lines[k].count("}")
                if depth <= 0 and k > i or (depth == 0 and lines[k].startswith("}")):
                    break
                k += 1
            # kernel-doc and attribute lines above belong to the function
            spans.append((j + 1, k + 1, name))
            i = k + 1
        else:
            i += 1
    return spans

def changed_lines(patch, path):
    """Old-file line numbers that @patch deletes or inserts before, for @path."""
    out, cur, old = [], None, 0
    for line in open(patch, encoding="utf-8", errors="replace"):
        m = re.match(r"^--- (?:a/)?(\S+)", line)
        if m:
            cur = m.group(1)
            continue
        if line.startswith("+++ "):
            continue
        m = re.match(r"^@@ -(\d+)(?:,\d+)? \+\d+(?:,\d+)? @@", line)
        if m:
            old = int(m.group(1))
            continue
        if cur != path:
            continue
        if line.startswith("-"):
            out.append(old)
            old += 1
        elif line.startswith("+"):
            out.append(old)
        elif line.startswith(" "):
            old += 1
    return out

def touched(root, patch):
    """{file: set of function names (None: outside any function)} for @patch."""
    res = {}
    for path in sorted(set(patch_files(patch))):
        full = os.path.join(root, path)
        if not os.path.isfile(full):
            res[path] = {"<file not in the extraction>"}
            continue
        spans = function_spans(open(full, encoding="utf-8").read())
        names = set()
        for ln in changed_lines(patch, path):
            hit = [s for s in spans if s[0] <= ln <= s[1]]
            names.add(hit[0][2] if hit else None)
        res[path] = names
    return res

# ---- the patches ----------------------------------------------------------
for name, f in sorted(bugs.items()):
    if "patch" not in f or f.get("tree") not in TREES:
        continue
    pfile = os.path.join(corpus, f["patch"])
    if not os.path.isfile(pfile):
        continue
    where = rel(pfile)
    root = tree_dir(f["tree"], f.get("after"))
    if root is None:
        continue
    r = subprocess.run(["patch", "-p1", "--dry-run", "-F0", "-N", "-d", root, "-i", pfile],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if r.returncode:
        err(where, "does not apply with no fuzz to linux-source-%s%s:\n%s" %
            (f["tree"], " after " + f["after"] if "after" in f else "", r.stdout.rstrip()))
        continue
    t = touched(root, pfile)
    desc = []
    for path, names in sorted(t.items()):
        if path in WHOLE:
            desc.append(path)
            continue
        shown = ", ".join(sorted("%s()" % n if n else "code outside any function" for n in names))
        desc.append("%s: %s" % (path, shown))
        if f["kind"] != "a":
            continue
        if f["tree"] not in EXTRACTED_TREES:
            unjudged.append("%s: kernel-code/extract.py has no linux-source-%s extraction yet, "
                            "so the functions it changes (%s) were not checked" % (where, f["tree"], shown))
            continue
        for n in sorted(names, key=lambda x: x or ""):
            if n is None:
                err(where, "changes %s outside any function; kernel-code/ extracts only whole functions of it" % path)
            elif n not in FUNCS:
                err(where, "changes %s() in %s, which kernel-code/extract.py does not extract "
                    "(it extracts %s); make the entry kind (b), or extend the extraction set"
                    % (n, path, ", ".join(sorted(FUNCS))))
    note("ok %s: kind (%s), applies to %s%s; touches %s" %
         (f["patch"], f["kind"], f["tree"], " after " + f["after"] if "after" in f else "", "; ".join(desc)))

shutil.rmtree(work, ignore_errors=True)
for s in skipped:
    print("check-corpus.sh: skipped: " + s)
for s in unjudged:
    print("check-corpus.sh: not checked: " + s)
n_a = sum(1 for f in bugs.values() if f.get("kind") == "a")
print("check-corpus.sh: %d entries (%d kind a), %d patches, %d error(s)" %
      (len(bugs), n_a, len(named), len(errors)))
sys.exit(1 if errors else 77 if skipped else 0)
EOF
