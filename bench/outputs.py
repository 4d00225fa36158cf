#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""dcsim-bench never loses or damages output, and refuses bad input
(docs/no-wrong-pass.md).

  outputs.py DCSIM_BENCH

Each case is an input that once ran as something it was not (a wrapped
thread count, a report drawn from nonsense) or emptied a file: every one
must exit 2 naming what is wrong, and leave -o / --save as they were.
"""
import json
import os
import signal
import subprocess
import sys
import tempfile
import time

BIN = os.path.abspath(sys.argv[1])
FAILED = []
QUICK = ["--duration", "0.005", "--reps", "2", "-w", "hot", "-s", "locked", "-t", "1",
         "--no-progress"]


def run(args, **kw):
    return subprocess.run([BIN] + args, capture_output=True, text=True, **kw)


def check(ok, what, p=None):
    if not ok:
        FAILED.append(what)
        print("FAIL: %s" % what)
        if p is not None:
            print("  exit %d; stderr: %s" % (p.returncode, p.stderr.strip()[:400]))


def want2(args, text, what):
    p = run(args)
    check(p.returncode == 2 and text in p.stderr, what, p)
    return p


def main():
    d = tempfile.mkdtemp(prefix="bench-outputs.")
    os.chdir(d)
    good = os.path.join(d, "good.json")
    p = run(QUICK + ["-f", "json", "-o", good])
    check(p.returncode == 0 and os.path.getsize(good) > 0, "a run writes -o", p)
    report = json.load(open(good))

    # Numbers that wrapped or were skipped.
    for t in ("4294967297", "1,,2", "1,", ",1", "0", "-1", "1e3", "010"):
        want2(QUICK[:-3] + ["-t", t], "--threads wants", "-t %s refused" % t)
    want2(QUICK + ["--seed", "-1"], "--seed", "--seed -1 refused")
    want2(QUICK + ["--duration", "1e400"], "--duration", "--duration 1e400 refused")

    # Output kept when the run fails: a bad --compare, a bad --from, bad options.
    keep = os.path.join(d, "keep.txt")
    for args, what in (
            (["--compare", good, "missing.json"], "failed --compare"),
            (["--from", "missing.json"], "failed --from"),
            (QUICK + ["-s", "no-such-strategy"], "unknown strategy"),
    ):
        with open(keep, "w") as f:
            f.write("previous\n")
        p = run(args + ["-o", keep])
        check(p.returncode != 0 and open(keep).read() == "previous\n",
              "%s leaves -o as it was" % what, p)
    # Reading and writing one file: the input is read whole first.
    same = os.path.join(d, "same.json")
    with open(same, "w") as f:
        json.dump(report, f)
    p = run(["--from", same, "-f", "json", "-o", same])
    check(p.returncode == 0 and json.load(open(same))["rows"] == report["rows"],
          "--from F -o F rewrites F from F", p)

    # An interrupt (SIGINT, SIGTERM) leaves the previous -o and --save whole, and no temporaries.
    for sig in (signal.SIGINT, signal.SIGTERM):
        with open(keep, "w") as f:
            f.write("previous\n")
        with open("save.json", "w") as f:
            f.write("saved\n")
        pr = subprocess.Popen([BIN, "--duration", "1", "--reps", "20", "-w", "hot", "-s",
                               "locked", "-t", "1", "--no-progress", "-o", keep, "--save",
                               "save.json"], stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
        time.sleep(0.5)
        pr.send_signal(sig)
        rc = pr.wait()
        left = [n for n in os.listdir(d) if n.startswith(".")]
        check(rc == -sig and open(keep).read() == "previous\n" and
              open("save.json").read() == "saved\n" and not left,
              "signal %d: exit %d, -o and --save kept, temporaries %s" % (sig, rc, left))

    # --from and --compare refuse reports that are nonsense.
    def bad(name, edit, text, mode="--from"):
        x = json.loads(json.dumps(report))
        edit(x)
        with open("x.json", "w") as f:
            json.dump(x, f)
        with open(keep, "w") as f:
            f.write("previous\n")
        args = ["--from", "x.json"] if mode == "--from" else ["--compare", good, "x.json"]
        p = want2(args + ["-o", keep], text, "%s %s refused" % (mode, name))
        check(open(keep).read() == "previous\n", "%s %s leaves -o" % (mode, name), p)

    bad("config.seed 1e300", lambda x: x["config"].__setitem__("seed", 1e300), "config.seed")
    bad("hash_bits 99", lambda x: x["config"]["shape"].__setitem__("hash_bits", 99),
        "config.shape.hash_bits is 99")
    bad("online_cpus -4", lambda x: x["host"].__setitem__("online_cpus", -4),
        "host.online_cpus is -4")
    bad("cpus [-1]", lambda x: x["config"].__setitem__("cpus", [-1]), "config.cpus[0]")
    bad("duration -1", lambda x: x["config"].__setitem__("duration_s", -1),
        "config.duration_s is -1")
    bad("a repeated row", lambda x: x["rows"].append(x["rows"][0]), "repeats the cell")
    bad("20000 rows", lambda x: x.__setitem__("rows", x["rows"] * 4000), "rows")
    bad("throughput -5", lambda x: x["rows"][0]["samples"]["ops_s"].__setitem__(0, -5),
        "samples.ops_s")
    bad("threads 1e300", lambda x: x["rows"][0].__setitem__("threads", 1e300), "thread count")
    bad("threads 1e300", lambda x: x["rows"][0].__setitem__("threads", 1e300), "thread count",
        "--compare")
    bad("a repeated row", lambda x: x["rows"].append(x["rows"][0]), "repeats the cell",
        "--compare")
    # Rows cut out: drawn, with a warning.
    x = json.loads(json.dumps(report))
    x["rows"] = x["rows"][:2]
    with open("x.json", "w") as f:
        json.dump(x, f)
    p = run(["--from", "x.json"])
    check(p.returncode == 0 and "have no row" in p.stderr, "a cut report warns", p)

    if FAILED:
        print("outputs.py: %d check(s) failed" % len(FAILED))
        return 1
    print("outputs.py: bad input refused, outputs kept whole")
    return 0


if __name__ == "__main__":
    sys.exit(main())
