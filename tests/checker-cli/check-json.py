#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Validate dcsim-check --json output against docs/dcsim-check.schema.json.

usage: check-json.py SCHEMA FILE [KEY=VALUE...]
Each KEY=VALUE is checked too: "verdict=fail", "exit=1", "suite.explore.replay~--execution-seed"
(~: the value contains the text).  Exit 77 when python3-jsonschema is missing.
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
for want in sys.argv[3:]:
    contains = "~" in want
    key, value = want.split("~" if contains else "=", 1)
    cur = doc
    parts = key.split(".")
    if parts[0] == "suite":
        cur = next((s for s in doc["suites"] if s["name"] == parts[1]), None)
        parts = parts[2:]
    for p in parts:
        cur = None if cur is None else cur.get(p)
    ok = (value in str(cur)) if contains else (str(cur) == value)
    if not ok:
        sys.exit("check-json: %s: %s is %r" % (sys.argv[2], key, cur))
print("check-json: %s is valid" % sys.argv[2])
