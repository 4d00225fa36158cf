#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""A mutation fuzzer for the .bug parser (corpus/corpus.py, the one parser).

  bugfuzz.py CORPUS_PY SECONDS SEED_DIR [FINDINGS_DIR]

The parser is Python, so libFuzzer and AFL++ do not reach it; this drives
it the same way: inputs grown from the seeds by byte flips, inserted CRs,
NULs, tabs, invalid UTF-8, long lines, repeated and spliced lines, for
SECONDS (deterministic: the pseudo-random sequence is seeded).  For each
input, parse_bug() and check_bug() must return or raise BugError with the
file (and line) first; any other exception is a finding, saved to
FINDINGS_DIR.  The dump of an accepted entry must hold no newline, tab or
NUL in a value (what the C runner's reader relies on).
"""
import importlib.util
import os
import random
import sys
import tempfile
import time
import traceback


def load(path):
    spec = importlib.util.spec_from_file_location("corpus", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


TOKENS = [b"\r", b"\0", b"\t", b"\xff", b"\xc3", b":", b"#", b"\n", b" ", b"strategies: ",
          b"suites: explore:", b"expect: ", b"kind: a", b"plant: ", b"sched: rt",
          b"budget: soak", b"fixed: ", b"patch: x.patch", b"tree: 6.1", b"after: none",
          b"x" * 3000]


def mutate(rng, data, seeds):
    lines = data.split(b"\n")
    for _ in range(rng.randint(1, 4)):
        k = rng.randrange(7)
        i = rng.randrange(len(lines))
        if k == 0 and lines[i]:
            j = rng.randrange(len(lines[i]))
            b = bytearray(lines[i])
            b[j] ^= 1 << rng.randrange(8)
            lines[i] = bytes(b)
        elif k == 1:
            j = rng.randrange(len(lines[i]) + 1)
            lines[i] = lines[i][:j] + rng.choice(TOKENS) + lines[i][j:]
        elif k == 2:
            lines.insert(i, lines[rng.randrange(len(lines))])
        elif k == 3 and len(lines) > 1:
            del lines[i]
        elif k == 4:
            other = rng.choice(seeds).split(b"\n")
            lines.insert(i, rng.choice(other))
        elif k == 5:
            j = rng.randrange(len(lines[i]) + 1)
            lines[i] = lines[i][:j]
        else:
            lines[i] = lines[i] + b" " + rng.choice(TOKENS)
    return b"\n".join(lines)


def main():
    if len(sys.argv) < 4:
        sys.stderr.write(__doc__)
        return 2
    corpus = load(sys.argv[1])
    seconds = float(sys.argv[2])
    seed_dir = sys.argv[3]
    findings = sys.argv[4] if len(sys.argv) > 4 else None
    seeds = [open(os.path.join(seed_dir, f), "rb").read()
             for f in sorted(os.listdir(seed_dir))]
    work = tempfile.mkdtemp(prefix="bugfuzz.")
    path = os.path.join(work, "x.bug")
    rng = random.Random(20130930)
    end = time.time() + seconds
    n = accepted = found = 0
    pool = list(seeds)
    while time.time() < end or n < len(seeds):
        data = seeds[n] if n < len(seeds) else mutate(rng, rng.choice(pool), seeds)
        n += 1
        with open(path, "wb") as f:
            f.write(data)
        try:
            f = corpus.parse_bug(path)
            corpus.check_bug(path, f, work, work)
            accepted += 1
            for k in corpus.RUNNER:
                if k in f and any(c in f[k] for c in "\n\t\0"):
                    raise AssertionError("value of %s holds a newline, tab or NUL" % k)
            # Accepted inputs breed: they reach the value checks.
            if len(pool) < 2000:
                pool.append(data)
        except corpus.BugError as e:
            if not str(e).startswith(path + ":"):
                found += 1
                print("finding: a refusal that does not name the file: %s" % e)
        except Exception:
            found += 1
            print("finding:", traceback.format_exc().strip().splitlines()[-1])
            if findings:
                os.makedirs(findings, exist_ok=True)
                with open(os.path.join(findings, "bug-%d.bug" % n), "wb") as f:
                    f.write(data)
    print("bugfuzz: %d inputs, %d accepted, %d refused, %d findings" %
          (n, accepted, n - accepted - found, found))
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
