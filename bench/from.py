#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Round trip of saved reports: a run's JSON redrawn with --from.

    from.py path/to/dcsim-bench

A short run (operation counts, not durations) prints its table and, with
--save, its JSON.  Then --from reads the JSON back and must print the same
table byte for byte, the same JSON byte for byte (every figure read back to
the same double), and the same CSV as --from of its own JSON output.  In a
instrumented build the same holds for a --sharing report, whose figures must also
be hot 2 and final 0 shared writes per op for the lockref strategies; a
normal build must refuse --sharing.  Bad input to --from exits 2 with a
message.
"""

import csv
import io
import json
import os
import shutil
import sys

from benchtest import Bench
import tempfile

BENCH = sys.argv[1]
T = Bench(BENCH, timeout=300)
run, check = T.run, T.check


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def round_trip(tmp, name, run_args):
    """Run with --save, redraw with --from; Return: the saved report (parsed)."""
    saved = os.path.join(tmp, name + ".json")
    table = os.path.join(tmp, name + ".txt")
    rc, _, err = run(run_args + ["--no-progress", "--save", saved, "-o", table])
    check(rc == 0 and os.path.exists(saved), f"{name}: the run writes its table and JSON ({err.strip()[-200:]})")
    if rc != 0 or not os.path.exists(saved):
        return None
    rc, out, err = run(["--from", saved])
    check(rc == 0, f"{name}: --from reads the JSON back ({err.strip()[-200:]})")
    check(out == read(table), f"{name}: --from gives the run's table byte for byte")
    rc, out, _ = run(["--from", saved, "-f", "json"])
    check(rc == 0 and out == read(saved), f"{name}: --from -f json gives the saved JSON byte for byte")
    again = os.path.join(tmp, name + "-again.json")
    with open(again, "w", encoding="utf-8") as f:
        f.write(out)
    rc1, csv1, _ = run(["--from", saved, "-f", "csv"])
    rc2, csv2, _ = run(["--from", again, "-f", "csv"])
    check(rc1 == 0 and rc2 == 0 and csv1 == csv2 and len(list(csv.reader(io.StringIO(csv1)))) > 1,
          f"{name}: --from -f csv, the same from the JSON and from its redrawn copy")
    return json.loads(read(saved))


def sharing_rows(doc):
    return {(r["group"], r["threads"], r["subject"]): r for r in doc["sharing"]["rows"]}


def main():
    tmp = tempfile.mkdtemp(prefix="dcsim-from-")
    try:
        doc = round_trip(tmp, "timed", ["-w", "hot,final", "-s", "locked,fast", "-t", "1,2",
                                        "--ops", "3000", "-r", "3"])
        if doc:
            check(len(doc["rows"]) == 16 and doc["sharing"] is None,
                  "timed: 16 rows ((4 bounds + 2 workloads x 2 strategies) x 2 thread counts)")
            if shutil.which("gnuplot"):
                png = os.path.join(tmp, "from.png")
                rc, _, err = run(["--from", os.path.join(tmp, "timed.json"), "--plot", png,
                                  "-o", os.devnull])
                check(rc == 0 and os.path.getsize(png) > 0, f"--from --plot draws a PNG ({err.strip()[-200:]})")

        rc, out, err = run(["--sharing", "-w", "hot", "-s", "fast", "--ops", "50"])
        if rc == 2 and "instrumented build" in err:
            print("normal build: --sharing refused, as it must be")
        else:
            check(rc == 0, f"instrumented build: --sharing runs ({err.strip()[-200:]})")
            doc = round_trip(tmp, "sharing", ["--sharing", "-w", "hot,final",
                                              "-s", "locked,lockref,fast", "--ops", "300"])
            if doc:
                rows = sharing_rows(doc)
                check(len(rows) == 12 and not doc["rows"], "sharing: 12 cells (2 workloads x 3 strategies x -t 2,4), no timed rows")
                for t in (2, 4):
                    for s in ("lockref", "fast"):
                        h, f = rows[("hot", t, s)], rows[("final", t, s)]
                        check(h["shared_writes_per_op"] == 2 and h["rmw"] == 2 * h["ops"] and h["shared_lines"] == 1,
                              f"sharing: hot {s} t={t}: 2 RMWs per op on one line ({h['shared_writes_per_op']})")
                        check(f["shared_writes_per_op"] == 0 and f["writes_per_op"] > 0,
                              f"sharing: final {s} t={t}: 0 shared writes of {f['writes_per_op']} per op")
                    lk = rows[("hot", t, "locked")]
                    check(lk["shared_writes_per_op"] > 2,
                          f"sharing: hot locked t={t}: d_lock adds writes ({lk['shared_writes_per_op']})")
                tg = [x for x in doc["targets"] if x["id"] == "shared-writes"]
                check(len(tg) == 8 and all(x["verdict"] == "ok" for x in tg),
                      "sharing: the shared-writes targets (hot 2, final 0) are ok")

        for args, what in ((["--from", os.path.join(tmp, "nosuch.json")], "cannot read"),
                           (["--from", os.path.join(tmp, "bad.json")], "not JSON"),
                           (["--from", os.path.join(tmp, "other.json")], "not a dcsim-bench JSON report"),
                           (["--from", os.path.join(tmp, "timed.json"), "--sharing"], "no --sharing")):
            with open(os.path.join(tmp, "bad.json"), "w", encoding="utf-8") as f:
                f.write('{"tool": "dcsim-bench", "rows": [')
            with open(os.path.join(tmp, "other.json"), "w", encoding="utf-8") as f:
                f.write('{"tool": "something else", "rows": []}')
            rc, _, err = run(args)
            check(rc == 2 and what in err, f"{' '.join(args[:2])} ... -> exit 2 mentioning '{what}' (got {rc}: {err.strip()[:160]})")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if T.done():
        sys.exit(1)
    print("all checks passed")


if __name__ == "__main__":
    main()
