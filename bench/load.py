#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""dcsim-bench --load: a strategy from a loadable module, and refusals.

    load.py path/to/dcsim-bench path/to/libdcsim-test-plugin.so

The plugin (tests/plugin/plugin-txn.c) registers "plugin-txn" from
dcsim_plugin_init().  Checks that --list and -s know it once loaded (and
only then), that a tiny run of it reports a row, and that a missing file,
a file that is not a library, a library that registers nothing, a failing
dcsim_plugin_init() and an unknown name each exit 2 with a message.
"""

import os
import sys

from benchtest import Bench

BENCH, PLUGIN = sys.argv[1], os.path.abspath(sys.argv[2])
T = Bench(BENCH, timeout=100)
run, check = T.run, T.check


def main():
    rc, out, err = run(["--list", "--load", PLUGIN])
    check(rc == 0 and "plugin-txn" in out, "--list after --load names plugin-txn", err)

    rc, out, err = run(["--load", PLUGIN, "-s", "plugin-txn", "-w", "hot,final", "-t", "1",
                        "-n", "2000", "-r", "1", "--format", "csv", "--no-progress"])
    check(rc == 0, "a run of plugin-txn exits 0", err)
    rows = [l for l in out.splitlines() if "plugin-txn" in l]
    check(len(rows) >= 2, "the report has plugin-txn rows for both workloads (%d)" % len(rows))

    rc, _, err = run(["-s", "plugin-txn", "-n", "10", "-r", "1", "--no-progress"])
    check(rc == 2 and "unknown strategy 'plugin-txn'" in err and "known: locked" in err,
          "without --load plugin-txn is unknown, the valid names listed", err)

    rc, _, err = run(["--load", PLUGIN, "-s", "no-such", "-n", "10", "-r", "1"])
    check(rc == 2 and "unknown strategy 'no-such'" in err and "plugin-txn" in err,
          "an unknown name lists the loaded strategy among the valid ones", err)

    rc, _, err = run(["--load", "/nonexistent/libmine.so", "-s", "plugin-txn"])
    check(rc == 2 and "--load /nonexistent/libmine.so:" in err, "missing library: exit 2", err)

    rc, _, err = run(["--load", os.path.abspath(__file__), "-s", "plugin-txn"])
    check(rc == 2 and "--load " in err, "not a library: exit 2", err)

    rc, _, err = run(["--load", "libm.so.6", "-s", "plugin-txn"])
    check(rc == 2 and "registered no dput strategy" in err,
          "a library that registers nothing: exit 2", err)

    rc, _, err = run(["--load", PLUGIN, "--load", PLUGIN, "-s", "plugin-txn"])
    check(rc == 2 and "dcsim_plugin_init() failed" in err,
          "a failing dcsim_plugin_init() (name taken): exit 2", err)

    return T.done()


if __name__ == "__main__":
    sys.exit(main())
