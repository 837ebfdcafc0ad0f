#!/usr/bin/env python3
"""Every test ctest knows carries labels: the directory labels that scripts/mutants.py
--labelled-only and `ctest -L '^src/DIR$'` select by. A GoogleTest suite whose TEST(...) line the
label script (tests/CMakeLists.txt) cannot find has none, and a labelled run skips it silently.

usage: ctest_labels_check.py BUILD_DIR"""
import json
import subprocess
import sys

out = subprocess.run(["ctest", "--test-dir", sys.argv[1], "-N", "--show-only=json-v1"],
                     check=True, capture_output=True, text=True).stdout
tests = json.loads(out)["tests"]
unlabelled = []
for t in tests:
    labels = [p["value"] for p in t.get("properties", []) if p["name"] == "LABELS"]
    if not labels or not labels[0]:
        unlabelled.append(t["name"])
# The script's own tests (fuzz soak, this check) are not GoogleTest suites: they carry none.
unlabelled = [n for n in unlabelled if "." in n and not n.startswith(("FuzzSoak.", "MutantsScript.", "CtestLabels."))]
if len(tests) < 100:
    sys.exit(f"ctest_labels_check: only {len(tests)} tests listed; is {sys.argv[1]} a build?")
for n in unlabelled:
    print(f"ctest_labels_check: {n} has no label (its suite's TEST line was not found)")
sys.exit(1 if unlabelled else 0)
