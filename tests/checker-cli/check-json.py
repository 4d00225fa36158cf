#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Validate dcsim-check --json output against docs/dcsim-check.schema.json.

usage: check-json.py SCHEMA FILE [KEY=VALUE...]
Each KEY=VALUE is checked too: "verdict=fail", "exit=1", "suite.explore.replay~--execution-seed"
(~: the value contains the text), "units.explore.last.kind=crash" (the suite's
units by position, or its last).  The units must account for the suites: each
suite that ran has units, a suite that passed has its runs in them (diff: the
units' executions add up to its runs; explore: one unit per exploration), and
a suite that failed on a unit ends with that unit.  Exit 77 when
python3-jsonschema is missing.
"""
import json
import sys

try:
    import jsonschema
except ImportError:
    print("check-json: python3-jsonschema is not installed (apt-get install python3-jsonschema)")
    sys.exit(77)

schema = json.load(open(sys.argv[1]))
doc = json.load(open(sys.argv[2]))
jsonschema.validate(doc, schema)
for s in doc["suites"]:
    units = [u for u in doc["units"] if u["suite"] == s["name"]]
    if not units and s["verdict"] != "ERROR":
        sys.exit("check-json: %s: suite %s has no units" % (sys.argv[2], s["name"]))
    if [u["index"] for u in units] != sorted({u["index"] for u in units}):
        sys.exit("check-json: %s: %s's units are not in index order, each once" % (sys.argv[2], s["name"]))
    failed = [u for u in units if u["verdict"] != "ok"]
    if failed and failed[0] is not units[-1]:
        sys.exit("check-json: %s: %s has units after its first failing one" % (sys.argv[2], s["name"]))
    if s["verdict"] == "ok":
        got = sum(u["executions"] for u in units) if s["name"] == "diff" else \
            len(units) if s["name"] == "explore" else units[0]["executions"]
        if got != s["runs"] or failed:
            sys.exit("check-json: %s: %s passed with %d runs, its units account for %d%s" %
                     (sys.argv[2], s["name"], s["runs"], got, ", and one failed" if failed else ""))
for want in sys.argv[3:]:
    contains = "~" in want
    key, value = want.split("~" if contains else "=", 1)
    cur = doc
    parts = key.split(".")
    if parts[0] == "suite":
        cur = next((s for s in doc["suites"] if s["name"] == parts[1]), None)
        parts = parts[2:]
    elif parts[0] == "units":
        units = [u for u in doc["units"] if u["suite"] == parts[1]]
        k = -1 if parts[2] == "last" else int(parts[2])
        cur = units[k] if -len(units) <= k < len(units) else None
        parts = parts[3:]
    for p in parts:
        cur = None if cur is None else cur.get(p)
    ok = (value in str(cur)) if contains else (str(cur) == value)
    if not ok:
        sys.exit("check-json: %s: %s is %r" % (sys.argv[2], key, cur))
print("check-json: %s is valid" % sys.argv[2])
