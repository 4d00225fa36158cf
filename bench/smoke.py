#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Smoke test for dcsim-bench: tiny runs in every format, bad input refused.

    smoke.py path/to/dcsim-bench

Runs in a few seconds with operation counts instead of durations, so the
result does not depend on how busy the machine is.  Checks: --help/--list,
that csv and json parse and hold the bounds, every selected strategy and
the host facts (CPU, HTM live, load, steal), the 95% intervals (ci95_lo <=
median <= ci95_hi wherever an interval exists, and the order statistics
of the samples that the rank rule names), that xfloor divides by the floor
measured in the row's own block, the targets' verdicts, the adaptive mode
(--ci-width, --time-budget, --max-reps), --compare of two reports in every
format with its overlap count and the count expected by chance (checked
against an enumeration of rank orders), that --plot writes a PNG when gnuplot is
installed, and that each kind of bad input exits 2 with a message naming
the problem.
"""

import csv
import io
import itertools
import json
import math
import os
import shutil
import sys

from benchtest import Bench
import tempfile

BENCH = sys.argv[1]
T = Bench(BENCH, timeout=150)
run, check = T.run, T.check


def median_rank(n):
    """Lower rank (from 1) of the distribution-free 95% interval of a median."""
    def cdf(k):
        return sum(math.comb(n, i) for i in range(k + 1)) / 2.0 ** n
    k = 1
    while k < n // 2 and cdf(k) <= 0.025:
        k += 1
    return k


def apart_by_chance(na, nb):
    """P(two runs' intervals miss each other), by enumerating rank orders."""
    ka, kb = median_rank(na), median_rank(nb)
    apart = total = 0
    for pos in itertools.combinations(range(na + nb), na):
        a = list(pos)
        b = [i for i in range(na + nb) if i not in pos]
        alo, ahi, blo, bhi = a[ka - 1], a[na - ka], b[kb - 1], b[nb - kb]
        apart += ahi < blo or bhi < alo
        total += 1
    return apart / total


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

    # --private-tree: each worker walks a tree it made before the clock ran,
    # so every measured walk is an RCU-walk that creates nothing; --hash-bits
    # sets the table (a dense one: every chain mixes the threads' dentries)
    rc, out, err = run(["-w", "walk", "-s", "fast", "-t", "1,2", "-n", "300", "-r", "1",
                        "--format", "json", "--no-progress", "--depth", "3", "--leaves", "2",
                        "--private-tree", "--hash-bits", "4"])
    check(rc == 0 and "creating a dentry failed" not in err,
          "--private-tree run exits 0 (stderr: %s)" % err.strip()[:200])
    try:
        pdoc = json.loads(out) if rc == 0 else None
    except ValueError:
        pdoc = None
    if pdoc:
        shape = pdoc["config"]["shape"]
        check(shape["private_tree"] is True and shape["hash_bits"] == 4,
              "json shape records private_tree and hash_bits")
        walk = [r for r in pdoc["rows"] if r["group"] == "walk"]
        check(len(walk) == 2 and all(r["model"]["walk"] == r["ops"] == r["model"]["walk_rcu"] and
                                     r["model"]["walk_unlazy"] == 0 and r["model"]["alloc"] == 0
                                     for r in walk),
              "--private-tree: every walk an RCU-walk of a complete tree (no fallback, no create)")

    rc, out, err = run(["-w", "final", "-s", "fast", "-t", "1", "-n", "300", "-r", "1",
                        "--no-progress", "--hash-bits", "6"])
    check(rc == 0 and "hash:     2^6 buckets (--hash-bits)" in out,
          "the table names the hash table's size (stderr: %s)" % err.strip()[:200])

    # intervals: CSV columns and JSON fields, lo <= median <= hi
    if rows:
        check(all(k in rows[0] for k in ("ns_op_ci95_lo", "ns_op_ci95_hi",
                                           "ratio_vs_baseline_ci95_lo", "x_floor_ci95_hi",
                                           "x_spin_ci95_lo")), "csv has the ci95 columns")
        ok = True
        for r in rows:
            for med, lo, hi in (("ns_op_median", "ns_op_ci95_lo", "ns_op_ci95_hi"),
                                ("ratio_vs_baseline", "ratio_vs_baseline_ci95_lo",
                                 "ratio_vs_baseline_ci95_hi"),
                                ("x_floor", "x_floor_ci95_lo", "x_floor_ci95_hi")):
                if r[lo] and r[hi]:
                    ok &= float(r[lo]) <= float(r[med]) + 1e-9 <= float(r[hi]) + 2e-9
        check(ok, "csv: every ci95 holds its median")
        check(any(r["ns_op_ci95_lo"] for r in rows), "csv: 2 reps give intervals")
    if doc:
        r0 = doc["rows"][0]
        check("ci95_lo" in r0["ns_op"] and "ci95_hi" in r0["ns_op"] and
              all(k in r0["ratios"] for k in ("vs_baseline", "x_floor", "x_spin")),
              "json rows carry ci95_lo/ci95_hi for ns/op and the ratios")
        check(r0["ns_op"]["ci95_lo"] is None, "json: one rep gives no interval (null)")
        h = doc["host"]
        check(all(k in h for k in ("steal_frac", "others_frac", "cpu_mhz", "governor",
                                   "boost", "busy", "busy_why", "load_before")),
              "json host records steal, other load, frequency hints and busy")
        check(all(t["verdict"] in ("ok", "MISS", "inconclusive", "n/a") for t in doc["targets"]),
              "json targets carry a verdict")
        check(doc["config"]["adaptive"] is None and doc["config"]["warmup"] == 0.1,
              "json config: warm-up share, no adaptive mode")

    with tempfile.TemporaryDirectory() as tmp:
        # adaptive: a loose target converges; a tight one ends at --max-reps
        pa = os.path.join(tmp, "a.json")
        rc, out, err = run(["-w", "hot", "-s", "locked,fast", "-t", "1", "-n", "2000", "-r", "3",
                            "--ci-width", "50%", "--max-reps", "8", "-f", "json", "-o", pa,
                            "--no-progress"])
        a = json.load(open(pa)) if rc == 0 else None
        check(rc == 0 and a["config"]["adaptive"]["ci_width"] == 0.5 and
              a["config"]["adaptive"]["end"] in ("converged", "max reps", "time budget") and
              3 <= a["config"]["reps"] <= 8, "--ci-width runs adaptively (stderr: %s)" %
              err.strip()[:200])
        if a:
            bad = []
            for r in a["rows"]:
                v = sorted(r["samples"]["ns_op"])
                if len(v) >= 2:
                    k = median_rank(len(v))
                    if (r["ns_op"]["ci95_lo"], r["ns_op"]["ci95_hi"]) != (v[k - 1], v[len(v) - k]):
                        bad.append((r["group"], r["subject"], len(v)))
            check(not bad, "ns/op intervals are the order statistics of the samples (%s)" % bad[:3])
            bad = []
            for r in a["rows"]:
                sm = r["samples"]
                if r["group"] == "bounds":
                    continue
                if len(sm.get("floor_ns_op", [])) != len(sm["ns_op"]):
                    bad.append((r["subject"], "no floor samples"))
                    continue
                for x, ns, fl in zip(sm["x_floor"], sm["ns_op"], sm["floor_ns_op"]):
                    if abs(x - ns / fl) > 1e-4 * x:
                        bad.append((r["subject"], x, ns / fl))
            check(not bad, "xfloor divides by the floor measured in the row's own block (%s)" %
                  bad[:3])
        if a and a["config"]["adaptive"]["end"] == "converged":
            wide = [(r["group"], r["subject"], k) for r in a["rows"]
                    for k, e in r["ratios"].items()
                    if e["value"] and e["ci95_lo"] is not None and e["value"] != 1 and
                    (e["ci95_hi"] - e["ci95_lo"]) / e["value"] > 0.5 + 1e-9]
            check(not wide, "converged: every ratio within the width (%s)" % wide[:3])
        rc, out, err = run(["-w", "hot", "-s", "locked,fast", "-t", "1", "-n", "500", "-r", "3",
                            "--ci-width", "0.0001", "--max-reps", "4", "-f", "json",
                            "--no-progress"])
        d = json.loads(out) if rc == 0 else None
        check(d is not None and d["config"]["reps"] <= 4 and
              d["config"]["adaptive"]["end"] in ("max reps", "converged"),
              "--max-reps bounds the adaptive mode")
        rc, out, err = run(["-w", "hot", "-s", "locked", "-t", "1", "-n", "500", "-r", "3",
                            "--ci-width", "0.0001", "--time-budget", "0.001", "--no-progress"])
        check(rc == 0 and "adaptive:" in out and ("time budget" in out or "converged" in out),
              "--time-budget ends the adaptive mode, the table says how")

        # --compare: two reports, every format, bad inputs refused
        pb = os.path.join(tmp, "b.json")
        rc, _, err = run(["-w", "hot", "-s", "locked,fast", "-t", "1", "-n", "2000", "-r", "3",
                          "-f", "json", "-o", pb, "--no-progress"])
        check(rc == 0, "second report for --compare")
        rc, out, err = run(["--compare", pa, pb])
        check(rc == 0 and "change" in out and "hot" in out and "fast" in out and
              "intervals overlap for" in out,
              "--compare prints per-cell changes and the overlap count (stderr: %s)" %
              err.strip()[:200])
        rc, out, err = run(["--compare", pa, pb, "-f", "json"])
        cj = json.loads(out) if rc == 0 else {}
        cells = cj.get("cells", [])
        check(bool(cells) and all("ci95_lo" in c["vs_baseline"]["change"] for c in cells) and
              all(c["ns_op"]["verdict"] in ("lower", "higher", "same", "-") for c in cells) and
              all(c["x_floor"]["overlap"] in (True, False, None) for c in cells),
              "--compare json: changes with ci95 and verdicts")
        fast = [c for c in cells if c["group"] == "hot" and c["subject"] == "fast"]
        check(bool(fast) and fast[0]["vs_baseline"]["change"]["ci95_lo"] is not None and
              fast[0]["vs_baseline"]["change"]["ci95_lo"] <= fast[0]["vs_baseline"]["change"]["value"]
              <= fast[0]["vs_baseline"]["change"]["ci95_hi"], "--compare: the change lies in its interval")
        ov = cj.get("overlap", {})
        check(all(k in ov for k in ("ratios", "apart", "expected_apart", "p_apart_or_more")) and
              0 <= ov["apart"] <= ov["ratios"] and ov["ratios"] > 0,
              "--compare json: the overlap count and its chance expectation")
        rc, out, err = run(["--compare", pb, pb, "-f", "json"])
        ov = json.loads(out).get("overlap", {}) if rc == 0 else {}
        want = ov.get("ratios", 0) * apart_by_chance(3, 3)
        check(ov.get("apart") == 0 and ov.get("p_apart_or_more") == 1 and
              abs(ov.get("expected_apart", -1) - want) < 1e-4,
              "--compare of a 3-rep report with itself: none apart, %.4f expected by chance "
              "(got %s)" % (want, ov))
        rc, out, err = run(["--compare", pa, pa, "-f", "csv"])
        crow = list(csv.DictReader(io.StringIO(out))) if rc == 0 else []
        rc2, out2, _ = run(["--compare", pa, pa])
        check(rc2 == 0 and "ratios whose" not in out2, "a report overlaps itself everywhere")
        check(bool(crow) and all(r["verdict"] in ("same", "-") and
                                 (not r["change"] or abs(float(r["change"])) < 1e-9) for r in crow),
              "--compare of a report with itself: no change anywhere")
        junk = os.path.join(tmp, "junk.json")
        open(junk, "w").write("{not json")
        for args, msg in (([pa], "two JSON reports"), ([pa, junk], "not JSON"),
                          ([pa, os.path.join(tmp, "nosuch.json")], "cannot read"),
                          ([pa, pb, "extra"], "unexpected argument")):
            rc, out, err = run(["--compare"] + args)
            check(rc == 2 and msg in err and out == "",
                  "--compare %s -> exit 2 mentioning '%s' (got %d: %s)" %
                  (" ".join(os.path.basename(x) for x in args), msg, rc, err.strip().split("\n")[0]))
        if shutil.which("gnuplot"):
            png = os.path.join(tmp, "c.png")
            rc, _, err = run(["--compare", pa, pb, "--plot", png])
            check(rc == 0 and open(png, "rb").read(8) == b"\x89PNG\r\n\x1a\n",
                  "--compare --plot writes a PNG (stderr: %s)" % err.strip()[:200])

        # table to a file
        path = os.path.join(tmp, "out.txt")
        rc, out, err = run(["-w", "hot", "-s", "locked,fast", "-t", "1", "-n", "2000",
                            "-r", "1", "-o", path, "--no-progress"])
        text = open(path).read() if rc == 0 and os.path.exists(path) else ""
        check(rc == 0 and out == "" and "== hot" in text and "cpu:" in text and
              "htm:" in text, "table written with -o, with CPU and HTM lines")
        check("ns/op ci95" in text and "== targets" in text and
              any(v in text for v in ("\nok ", "\nMISS ", "\ninconclusive ")),
              "table shows the intervals and the targets' verdicts")

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
        (["--hash-bits", "3"], "--hash-bits"),
        (["--hash-bits", "25"], "--hash-bits"),
        (["--ci-width", "0"], "--ci-width"),
        (["--ci-width", "2"], "--ci-width"),
        (["--ci-width", "x"], "--ci-width"),
        (["--ci-width", "0.1", "-r", "2"], "--reps"),
        (["--ci-width", "0.1", "--max-reps", "2"], "--max-reps"),
        (["--time-budget", "10"], "--ci-width"),
        (["--max-reps", "10"], "--ci-width"),
        (["--ci-width", "0.1", "--time-budget", "-1"], "--time-budget"),
        (["--ci-width", "0.1", "--time-budget", "0"], "--time-budget"),
        (["--warmup", "1.5"], "--warmup"),
        (["--warmup", "-0.1"], "--warmup"),
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

    return T.done()


if __name__ == "__main__":
    sys.exit(main())
