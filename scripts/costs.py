#!/usr/bin/env python3
"""Cost of simulating one all-reduce on every machine and endpoint.

usage: python3 scripts/costs.py ACEMU [OUT.md]

Runs `ACEMU collective` on tori (simulated NPU by NPU and folded), two
switch fabrics and the DGX-1, for the ideal endpoint, baseline-commopt and
ACE, under GNU time, and prints a Markdown table: events, packet-hops (the
packets every simulated link carried, from --links), events and CPU
nanoseconds per packet-hop, max RSS, and memory per NPU over the fixed
cost of the process (the max RSS of the folded 4x4x4 ideal run).
docs/performance.md, "Cost per packet-hop and per NPU", shows its output.
"""
import csv
import json
import os
import re
import subprocess
import sys
import tempfile

CASES = [("4x4x4", True, "4KiB"), ("4x4x4", True, "16MiB"), ("4x4x4", False, "16MiB"),
         ("4x8x4", True, "16MiB"), ("8x8x8", True, "4MiB"), ("switch:8x8", True, "16MiB"),
         ("switch:32x32", True, "1MiB"), ("dgx1", True, "16MiB")]
SYSTEMS = ["ideal", "baseline-commopt", "ace"]


def run(acemu, topo, full, size, system, links):
    args = [acemu, "collective", "--topo", topo, "--system", system, "--size", size,
            "--format", "json", "--links", links] + (["--full"] if full else [])
    r = subprocess.run(["/usr/bin/time", "-f", "TIME %U %M"] + args, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"{' '.join(args)}: exit {r.returncode}: {r.stderr.strip()}")
    d = json.loads(r.stdout)
    m = re.search(r"TIME ([0-9.]+) ([0-9]+)", r.stderr)
    with open(links) as f:
        hops = sum(int(row["packets"]) for row in csv.DictReader(f))
    return d["npus"], d["events"], hops, float(m.group(1)), int(m.group(2)) / 1024


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        links = os.path.join(tmp, "links.csv")
        for topo, full, size in CASES:
            for system in SYSTEMS:
                rows.append((topo, full, size, system) + run(sys.argv[1], topo, full, size, system, links))
                print(rows[-1], file=sys.stderr, flush=True)
    base = next(r[8] for r in rows if r[0] == "4x4x4" and not r[1] and r[3] == "ideal")
    out = ["| machine | run | all-reduce | system | NPUs | events | packet-hops | events per hop | CPU-s | ns per hop | max RSS MB | MB per NPU |",
           "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for topo, full, size, system, npus, ev, hops, cpu, rss in rows:
        per = f"{(rss - base) / npus:.2f}" if full else "-"
        out.append(f"| {topo} | {'full' if full else 'folded'} | {size} | {system} | {npus} | {ev / 1e6:.2f} M | "
                   f"{hops / 1e6:.2f} M | {ev / hops:.2f} | {cpu:.2f} | {cpu * 1e9 / hops:.0f} | {rss:.0f} | {per} |")
    text = "\n".join(out) + "\n"
    if len(sys.argv) == 3:
        with open(sys.argv[2], "w") as f:
            f.write(text)
    sys.stdout.write(text)


if __name__ == "__main__":
    main()
