#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The docs state the counts and names the code has.

    doc-counts.py SOURCE_ROOT   compare README.md and docs/*.md (not
                                docs/notes/, which is history) with the code
    doc-counts.py --self-test   check the checker on small trees

From the code: the dentry cache scenarios (the scn_defs[] table of
src/checker/dcache-scenario-defs.c, which must have one entry per
DCSIM_DSCN_* of <dcsim/explore-dcache.h>) and the built-in strategies
(the table of src/model/strategy.c, named by the .name of each
src/model/dput-*.c).  In the docs:

  - every "N dentry cache scenarios" must say the scenario count, every
    "N built-in strategies" the strategy count (N in digits or words), and
    each phrase must appear at least once, so a count cannot drift silently;
  - docs/checkers.md names every scenario, README.md every built-in
    strategy;
  - the docs are written for users, not as a lab notebook: no "issue N",
    "session", "the lead" or "stop N" (HISTORY_WORDS); history goes to
    docs/notes/ or the git log.

Exit 0 clean, 1 a mismatch (each printed as FILE:LINE: what), 2 usage.
"""

import os
import re
import sys
import tempfile

WORDS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine",
         "ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen",
         "seventeen", "eighteen", "nineteen", "twenty"]
TENS = {"twenty": 20, "thirty": 30, "forty": 40}
NUM = r"(\d+|(?:twenty|thirty|forty)(?:-(?:one|two|three|four|five|six|seven|eight|nine))?|" + \
      "|".join(WORDS) + r")"
PHRASES = {
    "scenarios": re.compile(NUM + r"\s+dentry[\s-]+cache\s+scenarios\b", re.I),
    "strategies": re.compile(NUM + r"\s+built-in\s+strategies\b", re.I),
}
HISTORY_WORDS = re.compile(r"\bissues?\s+#?\d+|\bsessions?\b|\bthe\s+lead\b|\blead's\b|"
                           r"\bstop\s+\d+\b", re.I)
SAY = {"scenarios": "N dentry cache scenarios", "strategies": "N built-in strategies"}


def number(text):
    t = text.lower()
    if t.isdigit():
        return int(t)
    if t in WORDS:
        return WORDS.index(t)
    tens, _, unit = t.partition("-")
    return TENS[tens] + (WORDS.index(unit) if unit else 0)


def read(root, rel):
    with open(os.path.join(root, rel), errors="replace") as fh:
        return fh.read()


def code_lists(root):
    """Return ({"scenarios": [...], "strategies": [...]}, errors)."""
    errors = []
    defs = read(root, "src/checker/dcache-scenario-defs.c")
    scns = re.findall(r'\[DCSIM_DSCN_\w+\]\s*=\s*\{\s*"([^"]+)"', defs)
    hdr = read(root, "include/dcsim/explore-dcache.h")
    m = re.search(r"enum dcsim_dcache_scenario\s*\{(.*?)DCSIM_DSCN_NR", hdr, re.S)
    enum = re.findall(r"^\s*(DCSIM_DSCN_\w+)\s*,", m.group(1), re.M) if m else []
    if not scns or len(scns) != len(enum):
        errors.append(f"src/checker/dcache-scenario-defs.c:1: {len(scns)} scenarios in scn_defs[], "
                      f"{len(enum)} in enum dcsim_dcache_scenario")
    table = read(root, "src/model/strategy.c")
    builtin = re.findall(r"&dcsim_dput_(\w+)_strategy\s*,", table)
    names = []
    for f in sorted(os.listdir(os.path.join(root, "src/model"))):
        if f.startswith("dput-") and f.endswith(".c"):
            names += re.findall(r'\.name\s*=\s*"([^"]+)"', read(root, "src/model/" + f))
    if not builtin or len(builtin) != len(names):
        errors.append(f"src/model/strategy.c:1: {len(builtin)} built-in strategies in its table, "
                      f"{len(names)} named in src/model/dput-*.c")
    return {"scenarios": scns, "strategies": names}, errors


def doc_files(root):
    out = ["README.md"]
    for f in sorted(os.listdir(os.path.join(root, "docs"))):
        if f.endswith(".md"):
            out.append("docs/" + f)
    return [f for f in out if os.path.isfile(os.path.join(root, f))]


def check(root):
    lists, errors = code_lists(root)
    seen = {k: 0 for k in PHRASES}
    for rel in doc_files(root):
        for n, line in enumerate(read(root, rel).splitlines(), 1):
            for m in HISTORY_WORDS.finditer(line):
                errors.append(f"{rel}:{n}: \"{m.group(0)}\": a user's guide tells no history "
                              f"(move it to docs/notes/ or the git log)")
            for what, rx in PHRASES.items():
                for m in rx.finditer(line):
                    seen[what] += 1
                    if number(m.group(1)) != len(lists[what]):
                        errors.append(f"{rel}:{n}: says \"{m.group(0)}\"; the code has "
                                      f"{len(lists[what])}")
    for what, rx in PHRASES.items():
        if not seen[what]:
            errors.append(f"README.md:1: no doc states the number of {what} (\"{SAY[what]}\")")
    for what, rel in (("scenarios", "docs/checkers.md"), ("strategies", "README.md")):
        text = read(root, rel) if os.path.isfile(os.path.join(root, rel)) else ""
        for name in lists[what]:
            if not re.search(r"(?<![\w-])" + re.escape(name) + r"(?![\w-])", text):
                errors.append(f"{rel}:1: does not name the {what[:-1] if what == 'scenarios' else 'strategy'} "
                              f"'{name}'")
    for e in errors:
        print(e)
    return errors


def self_test():
    code = {
        "src/checker/dcache-scenario-defs.c":
            'const struct scn_def scn_defs[DCSIM_DSCN_NR] = {\n'
            '\t[DCSIM_DSCN_A] = { "final-dputs", build_a, {\n'
            '\t[DCSIM_DSCN_B] = { "walk-vs-kill", build_b, {\n};\n',
        "include/dcsim/explore-dcache.h":
            "enum dcsim_dcache_scenario {\n\tDCSIM_DSCN_A,\t/* a */\n\tDCSIM_DSCN_B,\n"
            "\tDCSIM_DSCN_NR\n};\n",
        "src/model/strategy.c": "\t&dcsim_dput_locked_strategy,\n\t&dcsim_dput_fast_strategy,\n"
                                "\t&dcsim_dput_retain_strategy,\n",
        "src/model/dput-locked.c": '\t.name = "locked",\n',
        "src/model/dput-fast.c": '\t.name = "fast",\n',
        "src/model/dput-retain.c": '\t.name = "retain",\n',
    }
    good = {
        "README.md": "Three built-in strategies: locked, fast, retain.\n",
        "docs/checkers.md": "The 2 dentry cache scenarios: final-dputs, walk-vs-kill.\n",
        "docs/notes/old.md": "Once there were 16 dentry cache scenarios.\n",
    }
    cases = [
        ("clean", {}, {}, []),
        ("scenario count drifts", {"docs/testing.md": "runs all two dentry cache scenarios\n"}, {},
         []),
        ("a wrong scenario count", {"docs/testing.md": "runs 22 dentry cache scenarios\n"}, {},
         ["docs/testing.md:1: says \"22 dentry cache scenarios\""]),
        ("a wrong strategy count in words", {"README.md": "Six built-in strategies: locked, fast, "
                                             "retain.\n"}, {},
         ["README.md:1: says \"Six built-in strategies\""]),
        ("no count stated", {"docs/checkers.md": "final-dputs, walk-vs-kill\n"}, {},
         ["no doc states the number of scenarios"]),
        ("a scenario not named", {"docs/checkers.md": "The 2 dentry cache scenarios: final-dputs.\n"},
         {}, ["does not name the scenario 'walk-vs-kill'"]),
        ("a strategy not named", {"README.md": "Three built-in strategies: locked, fast-htm.\n"}, {},
         ["does not name the strategy 'fast'", "does not name the strategy 'retain'"]),
        ("a scenario added to the code only", {}, {
            "src/checker/dcache-scenario-defs.c": code["src/checker/dcache-scenario-defs.c"]
            .replace("};", '\t[DCSIM_DSCN_C] = { "new-one", build_c, {\n};'),
            "include/dcsim/explore-dcache.h": code["include/dcsim/explore-dcache.h"]
            .replace("\tDCSIM_DSCN_NR", "\tDCSIM_DSCN_C,\n\tDCSIM_DSCN_NR")},
         ["says \"2 dentry cache scenarios\"; the code has 3", "does not name the scenario 'new-one'"]),
        ("history in a guide", {"docs/testing.md": "The lead's rerun (issue 19, stop 22).\n"}, {},
         ["\"The lead\"", "\"issue 19\"", "\"stop 22\""]),
        ("history in the notes is fine", {"docs/notes/old.md": "issue 19: the session's run\n"}, {},
         []),
        ("table and enum disagree", {}, {
            "include/dcsim/explore-dcache.h": code["include/dcsim/explore-dcache.h"]
            .replace("\tDCSIM_DSCN_NR", "\tDCSIM_DSCN_C,\n\tDCSIM_DSCN_NR")},
         ["2 scenarios in scn_defs[], 3 in enum"]),
    ]
    failed = 0
    # the one case above whose docs still agree is the drift in words, which
    # must pass: "two" is the count
    with tempfile.TemporaryDirectory() as top:
        for i, (name, docs, code_over, want) in enumerate(cases):
            root = os.path.join(top, str(i))
            files = dict(code)
            files.update(code_over)
            files.update(good)
            files.update(docs)
            for rel, text in files.items():
                p = os.path.join(root, rel)
                os.makedirs(os.path.dirname(p), exist_ok=True)
                with open(p, "w") as fh:
                    fh.write(text)
            print(f"-- {name}")
            errs = check(root)
            if len(errs) != len(want) or not all(any(w in e for e in errs) for w in want):
                print(f"FAIL: {name}: got {errs}, want {want}")
                failed += 1
    print("self-test:", "FAIL" if failed else "ok", f"({len(cases)} trees)")
    return 1 if failed else 0


def main(argv):
    if argv[1:] == ["--self-test"]:
        return self_test()
    if len(argv) != 2 or not os.path.isdir(argv[1]):
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    lists, _ = code_lists(argv[1])
    errors = check(argv[1])
    if errors:
        print(f"doc-counts: {len(errors)} mismatch(es) between the docs and the code")
        return 1
    print(f"doc-counts: ok ({len(lists['scenarios'])} dentry cache scenarios, "
          f"{len(lists['strategies'])} built-in strategies)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
