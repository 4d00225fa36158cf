#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The multi-machine recipe's syntax: examples/fanout/dcsim-check-indexed-job.yaml
parses as YAML and is an Indexed Job whose pods run one --shard each, by
JOB_COMPLETION_INDEX, of completions shards, with a --json file per index.

usage: check-fanout-manifest.py MANIFEST   (exit 77 without python3-yaml)
"""
import re
import sys

try:
    import yaml
except ImportError:
    print("check-fanout-manifest: SKIPPED: python3-yaml not installed")
    sys.exit(77)

doc = yaml.safe_load(open(sys.argv[1]))
assert doc["apiVersion"] == "batch/v1" and doc["kind"] == "Job", "not a batch/v1 Job"
spec = doc["spec"]
assert spec["completionMode"] == "Indexed", "not an Indexed Job"
n = spec["completions"]
assert isinstance(n, int) and n > 0 and spec["parallelism"] >= 1
pod = spec["template"]["spec"]
assert pod["restartPolicy"] in ("Never", "OnFailure")
c = pod["containers"][0]
cmd = " ".join(c["command"] + c["args"])
assert re.search(r'--shard "\$\{JOB_COMPLETION_INDEX\}/%d"' % n, cmd), cmd
assert re.search(r'--json "[^"]*\$\{JOB_COMPLETION_INDEX\}[^"]*\.json"', cmd), cmd
mounts = {m["name"] for m in c["volumeMounts"]}
assert mounts <= {v["name"] for v in pod["volumes"]}, "a mount without its volume"
print("check-fanout-manifest: %s: an Indexed Job of %d shards" % (sys.argv[1], n))
