#!/usr/bin/env bash
# Runs every ASTRA-sim 1.0 workload file in testdata/astrasim on the ACE
# paper's tori and prints, per file, torus and system, the mean iteration
# time in NPU cycles (1245 MHz) and in ms, with CPU time and peak memory:
# the table docs/validation.md ("ASTRA-sim 1.0's files") gives. Needs GNU
# time (Debian: apt-get install time) and python3.
#
#   bash scripts/astrasim-files.sh                    # 4x4x4 and 4x8x4, five systems (about 15 minutes on two cores)
#   bash scripts/astrasim-files.sh 4x4x4 ideal,ace    # one torus, some systems
set -euo pipefail
cd "$(dirname "$0")/.."
topos=${1:-4x4x4,4x8x4}
systems=${2:-ideal,baseline-compopt,baseline-commopt,baseline-nooverlap,ace}
go build -o /tmp/acemu-files ./cmd/acemu
echo "| file | torus | system | iteration cycles | iteration ms | compute ms | exposed ms | CPU s | MB |"
echo "|---|---|---|---|---|---|---|---|---|"
for f in testdata/astrasim/*.txt; do
	for t in ${topos//,/ }; do
		/usr/bin/time -f '%U %M' -o /tmp/acemu-files.time /tmp/acemu-files --topo "$t" --workload "$f" --systems "$systems" --format json >/tmp/acemu-files.json
		read -r user rss </tmp/acemu-files.time
		python3 - "$f" "$t" "$user" "$rss" <<'PY'
import json, os, sys
f, t, user, rss = sys.argv[1:]
r = json.load(open("/tmp/acemu-files.json"))
for s in r["systems"]:
    it = s["iteration_cycles"]
    print(f"| {os.path.basename(f)[:-4]} | {t} | {s['name']} | {it:.0f} | {it/1245e3:.3f} | {s['compute_cycles']/1245e3:.3f} | {s['exposed_comm_cycles']/1245e3:.3f} | {float(user):.1f} | {int(rss)/1024:.0f} |")
PY
	done
done
