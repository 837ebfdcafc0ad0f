#!/usr/bin/env python3
"""A dossier that grows: one collect of the seed story's guest, then N serve-bench records of
about S MB each (a real imported serve-bench record, carrying per-request detail as
--save-detailed keeps it), to measure what `dossier report` holds in memory (issue #12).

usage: bench/big_dossier.py OUT_DIR [--records N] [--mb S] [--build BUILD_DIR]
then:  /usr/bin/time -v BUILD_DIR/dossier report --dossier OUT_DIR > /dev/null
       (the "Maximum resident set size" line is the peak RSS)

Only the first serve-bench record is made by dossier itself (`dossier import` of an SGLang
bench_serving output); the others are copies of it with their own number, time and request list,
written as dossier writes records (sorted keys, one space of indent).
"""
import argparse
import json
import os
import random
import subprocess
import sys

src = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ap = argparse.ArgumentParser()
ap.add_argument("out")
ap.add_argument("--records", type=int, default=1000)
ap.add_argument("--mb", type=float, default=4.0)
ap.add_argument("--build", default=os.path.join(src, "build"))
a = ap.parse_args()

dossier = os.path.join(a.build, "dossier")
tree = os.path.join(a.build, "bench-trees", "seed-guest")
if not os.path.isdir(tree):
    subprocess.run([os.path.join(a.build, "dossier-treegen"),
                    os.path.join(src, "tests/fixtures/trees/seed-guest"), tree],
                   check=True, stdout=subprocess.DEVNULL)
if os.path.exists(os.path.join(a.out, "records")):
    sys.exit(f"{a.out} already holds records; give a new directory")
run = lambda *args: subprocess.run([dossier, *args], check=True, stdout=subprocess.DEVNULL)
run("collect", "-q", "--root", tree, "--dossier", a.out, "--machine", "gpu-vm")
run("import", "--dossier", a.out, "--machine", "gpu-vm",
    os.path.join(src, "tests/corpus/import-serve-bench/sglang.txt"))

recs = os.path.join(a.out, "records")
names = sorted(os.listdir(recs))
template = None
for n in names:
    with open(os.path.join(recs, n)) as f:
        doc = json.load(f)
    if doc.get("kind") == "serve-bench":
        template = doc
if template is None:
    sys.exit("the import wrote no serve-bench record")

rng = random.Random(12)
def requests(n):
    # What a per-request log holds: timings, token counts and the inter-token gaps.
    return [{"id": i, "input_tokens": rng.randint(100, 2000), "output_tokens": 256,
             "ttft_ms": round(rng.uniform(50, 900), 3),
             "itl_ms": [round(rng.uniform(5, 40), 3) for _ in range(24)],
             "status": 200} for i in range(n)]
one = len(json.dumps(requests(10), indent=1)) / 10
per_record = max(1, int(a.mb * 1e6 / one))
first = max(int(n.split("-")[0]) for n in names) + 1
# One request list, its text spliced into every record (dumping it a thousand times is slow).
req_text = json.dumps(requests(per_record), indent=1, sort_keys=True)
for k in range(a.records):
    doc = json.loads(json.dumps(template))
    doc["time"] = f"2026-12-03T{10 + k // 3600 % 10:02d}:{k // 60 % 60:02d}:{k % 60:02d}Z"
    doc["serve"]["time"] = doc["time"]
    doc["serve"]["requests"] = "@@requests@@"
    text = json.dumps(doc, indent=1, sort_keys=True).replace('"@@requests@@"', req_text)
    path = os.path.join(recs, f"{first + k:06d}-serve-bench-gpu-vm.json")
    with open(path, "w") as f:
        f.write(text + "\n")
total = sum(os.path.getsize(os.path.join(recs, n)) for n in os.listdir(recs))
print(f"{a.out}: {len(os.listdir(recs))} records, {total / 1e6:.0f} MB")
