#!/usr/bin/env python3
"""The comparisons of scripts/device-check.sh, printed as Markdown tables; exit 1 on a
disagreement.

  facts COLLECT_JSON QUERY_CSV SMI_Q_TXT
      every NVML fact of `dossier collect --format json` beside `nvidia-smi --query-gpu` (CSV with
      its header) and `nvidia-smi -q`, per GPU matched by PCI bus id: fact, dossier, nvidia-smi,
      agree. Unknown on both sides agrees (NOT_SUPPORTED beside [N/A]); a value beside unknown
      does not. Facts that change by the second (power draw, temperature, current clocks) agree
      within a tolerance, said in the table.
  bandwidth P2P_JSON NVB_JSON...
      `dossier p2p --format json` beside nvbandwidth -j runs (one per buffer size): dossier /
      nvbandwidth per mode, GPU and size; a ratio outside 0.95-1.05 is a disagreement.
"""
import csv
import json
import os
import re
import sys

NA = {"", "n/a", "[n/a]", "not supported", "[not supported]", "[unknown error]", "unknown",
      "[insufficient permissions]", "[gpu requires reset]", "[gpu is lost]"}


def smi_value(text):
    """nvidia-smi's text as None (not available) or the stripped text."""
    if text is None:
        return None
    t = text.strip()
    return None if t.lower() in NA else t


def as_bool(text):
    t = smi_value(text)
    if t is None:
        return None
    low = t.lower()
    if low in ("enabled", "yes", "active", "true"):
        return True
    if low in ("disabled", "no", "not active", "false"):
        return False
    return t


def as_number(text):
    t = smi_value(text)
    if t is None:
        return None
    t = re.sub(r"\s*(MiB|MHz|W|C|%)$", "", t)
    try:
        return int(t, 16) if t.lower().startswith("0x") else float(t)
    except ValueError:
        return t


def bus(text):
    t = smi_value(text)
    return t[-12:].lower() if t else None


def read_query(path):
    """GPU rows of `nvidia-smi --query-gpu=... --format=csv,nounits`, keyed by field name."""
    with open(path, newline="") as f:
        rows = list(csv.reader(f, skipinitialspace=True))
    if not rows:
        return []
    header = [re.sub(r"\s*\[.*\]$", "", h.strip()) for h in rows[0]]
    return [dict(zip(header, r)) for r in rows[1:] if r]


def read_q(path):
    """Per GPU (bus id) the lines of `nvidia-smi -q` that the query cannot give."""
    gpus, cur, section = {}, None, []
    with open(path, errors="replace") as f:
        for line in f:
            m = re.match(r"^GPU ([0-9A-Fa-f]+:[0-9A-Fa-f]+:[0-9A-Fa-f]+\.[0-9A-Fa-f])\s*$", line)
            if m:
                cur = gpus.setdefault(m.group(1)[-12:].lower(), {})
                section = []
                continue
            if cur is None or not line.strip():
                continue
            indent = len(line) - len(line.lstrip())
            key, _, value = line.strip().partition(":")
            key, value = key.strip(), value.strip()
            depth = indent // 4
            section = section[: max(depth - 1, 0)]
            if not value:
                section.append(key)
                continue
            cur[" / ".join(section + [key])] = value
    return gpus


def q_find(q, *names):
    """The first value whose path ends with one of names."""
    for n in names:
        for k, v in q.items():
            if k.endswith(n):
                return v
    return None


def fact_path(gpu_index, *parts):
    return "/nvml/gpus/%d/%s" % (gpu_index, "/".join(parts))


def facts(collect_path, query_path, q_path):
    doc = json.load(open(collect_path))
    machine = doc["machines"][0]
    prov = machine.get("provenance", {})
    nvml = machine.get("nvml", {})
    query = {bus(r.get("pci.bus_id")): r for r in read_query(query_path)}
    qtext = read_q(q_path)
    rows, bad = [], 0

    def dossier_text(value, path):
        if value is None:
            why = prov.get(path, {}).get("unknown", "not recorded")
            return "unknown (%s)" % why
        return json.dumps(value) if isinstance(value, (dict, list)) else str(value)

    def add(gpu, label, dvalue, path, svalue, agree, note=""):
        nonlocal bad
        mark = {True: "yes", False: "**NO**", None: "n/a"}[agree]
        if agree is False:
            bad += 1
        rows.append((gpu, label, dossier_text(dvalue, path),
                     "—" if svalue is None else str(svalue), mark + (" " + note if note else "")))

    def compare(gpu, label, dvalue, path, row, field, conv=smi_value, tol=None, scale=1.0):
        if row is not None and field not in row:
            return add(gpu, label, dvalue, path, "(field unknown to this nvidia-smi)", None)
        s = conv(row.get(field)) if row is not None else None
        d = dvalue
        if isinstance(d, (int, float)) and not isinstance(d, bool) and scale != 1.0:
            d = d * scale
        if d is None or s is None:
            agree = d is None and s is None
        elif tol is not None and isinstance(s, float):
            agree = abs(float(d) - s) <= tol(s)
        elif isinstance(s, float):
            agree = abs(float(d) - s) < 0.51
        else:
            agree = str(d).strip().lower() == str(s).strip().lower()
        note = ""
        if tol is not None:
            note = "(changes by the second: within %.0f)" % tol(s if isinstance(s, float) else 0)
        add(gpu, label, d, path, row.get(field) if row is not None else None, agree, note)

    add("all", "driver version", nvml.get("driver_version"), "/nvml/driver_version",
        next(iter(query.values()), {}).get("driver_version"),
        str(nvml.get("driver_version")) == smi_value(next(iter(query.values()), {}).get("driver_version")))
    for i, g in enumerate(nvml.get("gpus", [])):
        b = g.get("pci_bus_id")
        row = query.get(b)
        q = qtext.get(b, {})
        who = "GPU %s %s" % (g.get("index"), b)
        if row is None:
            add(who, "present in nvidia-smi", b, fact_path(i, "pci_bus_id"), None, False)
            continue
        h = g.get("health", {})
        hp = lambda k: fact_path(i, "health", k)  # noqa: E731
        pcie = g.get("pcie", {})
        compare(who, "name", g.get("name"), fact_path(i, "name"), row, "name")
        compare(who, "UUID", g.get("uuid"), fact_path(i, "uuid"), row, "uuid")
        compare(who, "serial", g.get("serial"), fact_path(i, "serial"), row, "serial")
        compare(who, "VBIOS", h.get("vbios_version"), hp("vbios_version"), row, "vbios_version")
        compare(who, "compute capability", g.get("compute_capability"),
                fact_path(i, "compute_capability"), row, "compute_cap")
        mem = g.get("memory_total_bytes")
        compare(who, "memory total (MiB)", None if mem is None else mem // (1 << 20),
                fact_path(i, "memory_total_bytes"), row, "memory.total", as_number)
        bar1 = g.get("bar1_total_bytes")
        sbar1 = as_number(q_find(q, "BAR1 Memory Usage / Total"))
        add(who, "BAR1 total (MiB)", None if bar1 is None else bar1 // (1 << 20),
            fact_path(i, "bar1_total_bytes"), sbar1,
            (bar1 is None and sbar1 is None) or (bar1 is not None and sbar1 == bar1 // (1 << 20)))
        for label, part, key, field in (
                ("PCIe gen current", "current", "gen", "pcie.link.gen.current"),
                ("PCIe gen max", "max", "gen", "pcie.link.gen.max"),
                ("PCIe width current", "current", "width", "pcie.link.width.current"),
                ("PCIe width max", "max", "width", "pcie.link.width.max")):
            compare(who, label, pcie.get(part, {}).get(key), fact_path(i, "pcie", part, key), row,
                    field, as_number)
        compare(who, "PCIe gen device max", h.get("pcie_device_max_gen"), hp("pcie_device_max_gen"),
                row, "pcie.link.gen.gpumax", as_number)
        host_max = row.get("pcie.link.gen.hostmax", q_find(q, "PCIe Generation / Host Max"))
        rows.append((who, "PCIe gen host max", "not claimed (no public NVML call)",
                     str(host_max), "n/a"))
        compare(who, "persistence mode", g.get("persistence_mode"), fact_path(i, "persistence_mode"),
                row, "persistence_mode", as_bool)
        compare(who, "ECC mode", g.get("ecc_enabled"), fact_path(i, "ecc_enabled"), row,
                "ecc.mode.current", as_bool)
        compare(who, "MIG mode", g.get("mig_enabled"), fact_path(i, "mig_enabled"), row,
                "mig.mode.current", as_bool)
        compare(who, "power limit (W)", g.get("power_limit_w"), fact_path(i, "power_limit_w"), row,
                "power.limit", as_number)
        compare(who, "power limit enforced (W)", h.get("power_limit_enforced_w"),
                hp("power_limit_enforced_w"), row, "enforced.power.limit", as_number)
        compare(who, "power draw (W)", h.get("power_draw_w"), hp("power_draw_w"), row, "power.draw",
                as_number, tol=lambda s: max(15.0, 0.15 * s))
        compare(who, "temperature (C)", h.get("temperature_c"), hp("temperature_c"), row,
                "temperature.gpu", as_number, tol=lambda s: 3.0)
        compare(who, "SM clock (MHz)", g.get("clock_sm_mhz"), fact_path(i, "clock_sm_mhz"), row,
                "clocks.sm", as_number, tol=lambda s: max(100.0, 0.25 * s))
        compare(who, "memory clock (MHz)", g.get("clock_mem_mhz"), fact_path(i, "clock_mem_mhz"),
                row, "clocks.mem", as_number, tol=lambda s: max(100.0, 0.25 * s))
        compare(who, "max SM clock (MHz)", h.get("clock_sm_max_mhz"), hp("clock_sm_max_mhz"), row,
                "clocks.max.sm", as_number)
        compare(who, "max memory clock (MHz)", h.get("clock_mem_max_mhz"), hp("clock_mem_max_mhz"),
                row, "clocks.max.memory", as_number)
        compare(who, "clocks event reasons (mask)", h.get("clocks_event_mask"),
                hp("clocks_event_mask"), row, "clocks_event_reasons.active", as_number)
        for label, key, field in (
                ("ECC corrected volatile", "ecc_corrected_volatile",
                 "ecc.errors.corrected.volatile.total"),
                ("ECC uncorrected volatile", "ecc_uncorrected_volatile",
                 "ecc.errors.uncorrected.volatile.total"),
                ("ECC corrected aggregate", "ecc_corrected_aggregate",
                 "ecc.errors.corrected.aggregate.total"),
                ("ECC uncorrected aggregate", "ecc_uncorrected_aggregate",
                 "ecc.errors.uncorrected.aggregate.total"),
                ("remapped rows corrected", "remapped_rows_corrected", "remapped_rows.correctable"),
                ("remapped rows uncorrected", "remapped_rows_uncorrected",
                 "remapped_rows.uncorrectable")):
            compare(who, label, h.get(key), hp(key), row, field, as_number)
        compare(who, "row remap pending", h.get("remap_pending"), hp("remap_pending"), row,
                "remapped_rows.pending", as_bool)
        compare(who, "row remap failed", h.get("remap_failed"), hp("remap_failed"), row,
                "remapped_rows.failure", as_bool)
        compare(who, "retired pages pending", h.get("retired_pages_pending"),
                hp("retired_pages_pending"), row, "retired_pages.pending", as_bool)
        replays = as_number(q_find(q, "Replays Since Reset"))
        add(who, "PCIe replays", h.get("pcie_replay_count"), hp("pcie_replay_count"), replays,
            (h.get("pcie_replay_count") is None and replays is None) or
            (replays is not None and h.get("pcie_replay_count") == replays))
        reset = as_bool(q_find(q, "GPU Reset Status / Reset Required"))
        drain = as_bool(q_find(q, "GPU Reset Status / Drain and Reset Recommended"))
        action = h.get("recovery_action")
        if reset is None and drain is None:
            smi_action = None
        else:
            smi_action = "gpu_reset" if reset else "drain_and_reset" if drain else "none"
        # nvidia-smi prints only the two deprecated flags: node_reboot / drain_p2p have none.
        agree = (action is None and smi_action is None) or action == smi_action or (
            action in ("node_reboot", "drain_p2p") and smi_action is not None)
        add(who, "recovery action", action, hp("recovery_action"),
            None if smi_action is None else "Reset Required: %s, Drain and Reset Recommended: %s"
            % (q_find(q, "GPU Reset Status / Reset Required"),
               q_find(q, "GPU Reset Status / Drain and Reset Recommended")), agree)
    if not nvml.get("loaded"):
        add("all", "NVML loaded", False, "/nvml/loaded", nvml.get("error"), False)
    print("\n| GPU | fact | dossier | nvidia-smi | agree |\n|---|---|---|---|---|")
    for r in rows:
        print("| " + " | ".join(x.replace("|", "\\|") for x in r) + " |")
    print("\n%d facts compared, %d disagree" % (len(rows), bad))
    return 1 if bad else 0


NVB_MODES = {
    "host_to_device_memcpy_ce": "h2d-local",
    "device_to_host_memcpy_ce": "d2h-local",
    "device_local_copy": "device-local",
    "device_to_device_memcpy_write_ce": "uni-p2p",
}


def nvb_results(path):
    """(mode, src, dst, size_bytes) -> GB/s from one nvbandwidth -j output."""
    text = open(path).read()
    doc = json.loads(text[text.index("{"):]) if "{" in text else {}
    root = doc.get("nvbandwidth", doc)
    size_mib = root.get("bufferSize")
    if size_mib is None:
        m = re.search(r"nvb-(\d+)\.json$", path)
        size_mib = int(m.group(1)) if m else None
    out = {}
    for t in root.get("testcases", []):
        mode = NVB_MODES.get(t.get("name"))
        matrix = t.get("bandwidth_matrix")
        if not mode or not matrix or size_mib is None:
            continue
        size = int(float(size_mib)) << 20
        for r, row in enumerate(matrix):
            for c, cell in enumerate(row):
                try:
                    v = float(cell)
                except (TypeError, ValueError):
                    continue
                if mode == "h2d-local":
                    out[(mode, -1, c, size)] = v
                elif mode == "d2h-local":
                    out[(mode, c, -1, size)] = v
                elif mode == "device-local":
                    out[(mode, c, c, size)] = v
                else:
                    out[(mode, r, c, size)] = v
    return out


def bandwidth(p2p_path, nvb_paths):
    p2p = json.load(open(p2p_path))
    nvb = {}
    for p in nvb_paths:
        if os.path.getsize(p):
            nvb.update(nvb_results(p))
    rows, bad = [], 0
    for r in p2p.get("results", []):
        key = (r["mode"], r["src"], r["dst"], r["size_bytes"])
        if r["mode"] not in NVB_MODES.values() or key not in nvb:
            continue
        d, n = r.get("gbps_median"), nvb[key]
        ratio = d / n if d and n else None
        ok = r.get("verdict") == "ok" and ratio is not None and 0.95 <= ratio <= 1.05
        bad += 0 if ok else 1
        who = "%s->%s" % ("host" if r["src"] < 0 else "GPU%d" % r["src"],
                          "host" if r["dst"] < 0 else "GPU%d" % r["dst"])
        rows.append((r["mode"], who, "%d MiB" % (r["size_bytes"] >> 20),
                     "—" if d is None else "%.2f" % d, "%.2f" % n,
                     "—" if ratio is None else "%.3f" % ratio,
                     ("yes" if ok else "**NO**") + ("" if r.get("verdict") == "ok"
                                                   else " (%s)" % r.get("verdict"))))
    print("\n| mode | copy | size | dossier GB/s | nvbandwidth GB/s | ratio | within 0.95-1.05 |")
    print("|---|---|---|---|---|---|---|")
    for row in rows:
        print("| " + " | ".join(row) + " |")
    if not rows:
        print("| (no result of dossier p2p had an nvbandwidth counterpart) | | | | | | **NO** |")
        bad += 1
    print("\n%d results compared, %d outside 0.95-1.05" % (len(rows), bad))
    return 1 if bad else 0


def main(argv):
    if len(argv) >= 5 and argv[1] == "facts":
        return facts(argv[2], argv[3], argv[4])
    if len(argv) >= 4 and argv[1] == "bandwidth":
        return bandwidth(argv[2], argv[3:])
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
