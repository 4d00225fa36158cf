# SPDX-License-Identifier: LGPL-2.1-or-later
"""What the dcsim-bench test scripts (smoke.py, from.py, load.py) share.

    from benchtest import Bench

    t = Bench(sys.argv[1])
    rc, out, err = t.run(["--list"])
    t.check(rc == 0, "--list exits 0", err)
    sys.exit(t.done())

run() clears DCSIM_HTM and DCSIM_DPUT, which would otherwise change what
every run measures, before applying a test's own environment.  check()
prints one "ok"/"FAIL" line per check, with the tail of stderr on a
failure; done() prints the count of failures and returns the exit status.
"""

import os
import subprocess


class Bench:
    def __init__(self, path, timeout=300):
        self.path = path
        self.timeout = timeout
        self.fails = []

    def run(self, args, env=None, timeout=None):
        """Return: (exit status, stdout, stderr) of dcsim-bench ARGS."""
        e = dict(os.environ)
        e.pop("DCSIM_HTM", None)
        e.pop("DCSIM_DPUT", None)
        if env:
            e.update(env)
        p = subprocess.run([self.path] + args, capture_output=True, text=True, env=e,
                           timeout=timeout or self.timeout)
        return p.returncode, p.stdout, p.stderr

    def check(self, cond, what, err=""):
        print(("ok   " if cond else "FAIL ") + what)
        if not cond:
            if err:
                print("     stderr: " + err.strip()[-400:])
            self.fails.append(what)
        return cond

    def done(self):
        """Return: the script's exit status, 1 when any check failed."""
        if self.fails:
            print("%d check(s) failed" % len(self.fails))
            return 1
        return 0
