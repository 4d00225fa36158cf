#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Print the tests that did not pass in meson test logs, with their output's end.

    scripts/failed-tests.py [--newer STAMP] [--lines N] BUILDDIR...

test-all.sh runs it last, so that the end of a CI log, which is often all
that is shown, names each failed test, its result, its duration and exit
status, and the last lines it printed.  A build directory without a
testlog.json, or one older than STAMP (a log from an earlier run), is
skipped.  Exit status 0 always: this only reports.
"""
import argparse
import json
import os
import sys

BAD = {"FAIL", "TIMEOUT", "ERROR", "UNEXPECTEDPASS", "INTERRUPT"}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--newer")
    ap.add_argument("--lines", type=int, default=25)
    ap.add_argument("dirs", nargs="+")
    a = ap.parse_args()
    since = os.stat(a.newer).st_mtime if a.newer and os.path.exists(a.newer) else 0
    for d in a.dirs:
        log = os.path.join(d, "meson-logs", "testlog.json")
        try:
            if os.stat(log).st_mtime < since:
                continue
            lines = open(log, encoding="utf-8", errors="replace").read().splitlines()
        except OSError:
            continue
        for raw in lines:
            try:
                t = json.loads(raw)
            except ValueError:
                continue
            if t.get("result") not in BAD:
                continue
            out = (t.get("stdout") or "") + (t.get("stderr") or "")
            tail = out.rstrip("\n").splitlines()[-a.lines:]
            print("---- %s: %s %s after %.1f s (exit %s)" %
                  (d, t.get("name"), t.get("result"), t.get("duration", 0.0),
                   t.get("returncode", "?")))
            for line in tail:
                print("     | " + line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
