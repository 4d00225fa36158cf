#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Smoke test for dcsim-bench: tiny runs in every format, bad input refused.

    smoke.py path/to/dcsim-bench

Runs in a few seconds with operation counts instead of durations, so the
result does not depend on how busy the machine is.  Checks: --help/--list,
that csv and json parse and hold the bounds, every selected strategy and
the host facts (CPU, HTM live), that --plot writes a PNG when gnuplot is
installed, and that each kind of bad input exits 2 with a message naming
the problem.
"""

import csv
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile

BENCH = sys.argv[1]
FAILS = []


def run(args, env=None):
    e = dict(os.environ)
    e.pop("DCSIM_HTM", None)
    e.pop("DCSIM_DPUT", None)
    if env:
        e.update(env)
    p = subprocess.run([BENCH] + args, capture_output=True, text=True, env=e, timeout=150)
    return p.returncode, p.stdout, p.stderr


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        FAILS.append(what)


def main():
    rc, out, _ = run(["--help"])
    check(rc == 0 and "usage: dcsim-bench" in out and "--plot" in out, "--help")
    rc, out, _ = run(["--list"])
    strategies = []
    if rc == 0 and "strategies:" in out:
        strategies = out.split("strategies:")[1].split("\n")[1].strip().split(",")
    check(rc == 0 and "hot" in out and "floor" in out and len(strategies) >= 6,
          "--list names workloads, strategies and bounds")

    # CSV: two workloads, one thread, two reps
    rc, out, err = run(["-w", "hot,final", "-t", "1", "-n", "3000", "-r", "2",
                        "--format", "csv", "--no-progress"])
    check(rc == 0, "csv run exits 0 (stderr: %s)" % err.strip()[:200])
    rows = list(csv.DictReader(io.StringIO(out))) if rc == 0 else []
    subjects = {(r["group"], r["subject"]) for r in rows}
    check(all(("bounds", b) in subjects for b in ("floor", "cmpxchg", "spin", "raw-lockref")),
          "csv has the four bounds")
    check(all(("hot", s) in subjects and ("final", s) in subjects for s in strategies),
          "csv has every strategy on hot and final")
    check(all(float(r["ops_s_median"]) > 0 for r in rows), "csv throughput is positive")
    check(all(r["cpu"] and r["htm_live"] in ("0", "1") for r in rows),
          "csv rows record the CPU and whether HTM was live")
    final_locked = [r for r in rows if r["group"] == "final" and r["subject"] == "locked"]
    check(bool(final_locked) and float(final_locked[0]["slow_path_fraction"]) == 1.0,
          "locked takes d_lock on every final dput")

    # JSON: the other workloads, two thread counts
    rc, out, err = run(["-w", "walk,churn,mixed", "-t", "1,2", "-n", "300", "-r", "1",
                        "--format", "json", "--no-progress", "--depth", "3", "--leaves", "2"])
    check(rc == 0, "json run exits 0 (stderr: %s)" % err.strip()[:200])
    doc = None
    try:
        doc = json.loads(out)
    except ValueError as e:
        check(False, "json parses: %s" % e)
    if doc:
        check(isinstance(doc["host"]["htm_live"], bool) and doc["host"]["cpu"],
              "json host records the CPU and HTM liveness")
        groups = {r["group"] for r in doc["rows"]}
        check(groups == {"bounds", "walk", "churn", "mixed"}, "json has every group")
        check(all(r["ops_s"]["median"] > 0 for r in doc["rows"]), "json throughput positive")
        check(isinstance(doc["targets"], list), "json has the targets")
        walk = [r for r in doc["rows"] if r["group"] == "walk"]
        check(all(r["dputs"] and r["dputs"] > 0 for r in walk), "walk counts dputs")

    with tempfile.TemporaryDirectory() as tmp:
        # table to a file
        path = os.path.join(tmp, "out.txt")
        rc, out, err = run(["-w", "hot", "-s", "locked,fast", "-t", "1", "-n", "2000",
                            "-r", "1", "-o", path, "--no-progress"])
        text = open(path).read() if rc == 0 and os.path.exists(path) else ""
        check(rc == 0 and out == "" and "== hot" in text and "cpu:" in text and
              "htm:" in text, "table written with -o, with CPU and HTM lines")

        if shutil.which("gnuplot"):
            png = os.path.join(tmp, "p.png")
            rc, _, err = run(["-w", "hot,final", "-s", "locked,fast", "-t", "1,2", "-n", "1000",
                              "-r", "1", "--plot", png, "--format", "csv", "--no-progress"])
            ok = rc == 0 and os.path.exists(png) and open(png, "rb").read(8) == b"\x89PNG\r\n\x1a\n"
            check(ok, "--plot writes a PNG (stderr: %s)" % err.strip()[:200])
        else:
            print("skip --plot: gnuplot not installed")

    # HTM off: the HTM strategies run their fallbacks, and say so
    rc, out, _ = run(["-w", "final", "-s", "rtm,fast-htm", "-t", "1", "-n", "1000", "-r", "1",
                      "--htm", "off", "--no-progress"])
    check(rc == 0 and "NOT" in out, "--htm off runs and reports HTM not live")

    bad = [
        (["-w", "nosuch"], "unknown workload"),
        (["-s", "nosuch"], "unknown strategy"),
        (["-t", "0"], "thread count"),
        (["-t", "1,x"], "--threads"),
        (["-d", "-1"], "positive"),
        (["-d", "0"], "positive"),
        (["-d", "abc"], "--duration"),
        (["-r", "0"], "--reps"),
        (["-n", "0"], "--ops"),
        (["--format", "xml"], "--format"),
        (["--htm", "maybe"], "--htm"),
        (["-b", "nosuch"], "--baseline"),
        (["--mix", "hot"], "--mix"),
        (["--mix", "bogus=1"], "--mix"),
        (["--cpus", "99999"], "--cpus"),
        (["--depth", "0"], "--depth"),
        (["--bogus-option"], "unrecognized"),
        (["extra"], "unexpected argument"),
    ]
    for args, msg in bad:
        rc, out, err = run(args + ["--no-progress"])
        check(rc == 2 and msg in err and out == "",
              "bad input %s -> exit 2 mentioning '%s' (got %d: %s)" %
              (" ".join(args), msg, rc, err.strip().splitlines()[0] if err.strip() else ""))
    rc, out, err = run(["-n", "1"], env={"DCSIM_HTM": "maybe"})
    check(rc == 2 and "DCSIM_HTM" in err, "bad DCSIM_HTM -> exit 2")

    if FAILS:
        print("%d check(s) failed" % len(FAILS))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
