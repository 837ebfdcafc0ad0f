#!/usr/bin/env python3
"""Per-directory line and branch coverage from gcovr's JSON, checked against floors.

usage: coverage_check.py COVERAGE.json FLOORS.txt [--report-only]

FLOORS.txt: one "DIR LINES% BRANCHES%" per line (DIR as src/probe, or "total"); # comments.
Also lists user-facing functions that never ran: the entry points of commands (src/cli/Run*),
rules (src/analyze/rules/Rule*), renderers (src/render/Md*, Json*) and probes (src/probe/Probe*).
"""
import collections
import re
import sys


def main():
    cov_path, floors_path = sys.argv[1], sys.argv[2]
    report_only = "--report-only" in sys.argv[3:]
    data = __import__("json").load(open(cov_path))
    per_dir = collections.defaultdict(lambda: [0, 0, 0, 0])  # lines, covered, branches, taken
    never = []
    for f in data["files"]:
        name = f["file"]
        if not name.startswith("src/"):
            continue
        d = name.rsplit("/", 1)[0]
        for key in (d, "total"):
            acc = per_dir[key]
            for line in f.get("lines", []):
                if line.get("gcovr/noncode"):
                    continue
                acc[0] += 1
                acc[1] += line["count"] > 0
                for b in line.get("branches", []):
                    acc[2] += 1
                    acc[3] += b["count"] > 0
        for fn in f.get("functions", []):
            short = re.sub(r"\(.*", "", fn["name"]).rsplit("::", 1)[-1]
            user_facing = (
                (name.startswith("src/cli/") and short.startswith("Run"))
                or (name.startswith("src/analyze/rules/") and short.startswith("Rule"))
                or (name.startswith("src/render/") and re.match(r"(Md|Json|Render)", short))
                or (name.startswith("src/probe/") and short.startswith("Probe"))
            )
            if user_facing and fn.get("execution_count", 0) == 0:
                never.append(f"{name}:{fn.get('lineno', '?')} {short}")

    floors = {}
    for n, raw in enumerate(open(floors_path), 1):
        line = raw.split("#", 1)[0].split()
        if not line:
            continue
        if len(line) != 3:
            sys.exit(f"{floors_path}:{n}: expected DIR LINES% BRANCHES%")
        floors[line[0]] = (float(line[1]), float(line[2]))

    def pct(a, b):
        return 100.0 * b / a if a else 100.0

    failed = []
    print(f"{'directory':28} {'lines':>16} {'branches':>16}   floor (lines / branches)")
    for d in sorted(per_dir, key=lambda k: (k == "total", k)):
        lines, covered, branches, taken = per_dir[d]
        lp, bp = pct(lines, covered), pct(branches, taken)
        floor = floors.get(d)
        mark = ""
        if floor is None and d != "total":
            mark = "  (no floor yet: add one from this figure)"
        elif floor and (lp + 1e-9 < floor[0] or bp + 1e-9 < floor[1]):
            mark = "  BELOW THE FLOOR"
            failed.append(f"{d}: lines {lp:.1f} % (floor {floor[0]}), branches {bp:.1f} % "
                          f"(floor {floor[1]})")
        fl = f"{floor[0]:.1f} / {floor[1]:.1f}" if floor else "-"
        print(f"{d:28} {lp:6.1f} % of {lines:5} {bp:6.1f} % of {branches:5}   {fl}{mark}")
    if floors.get("total", (0, 0))[0] < 90.0:
        failed.append("the overall line floor must be 90 % or more")
    print(f"\nuser-facing functions no test runs ({len(never)}):")
    for n in sorted(never):
        print("  " + n)
    if failed and not report_only:
        print("\ncoverage: " + "; ".join(failed), file=sys.stderr)
        sys.exit(1)


main()
