#!/usr/bin/env bash
# Measures what docs/performance.md reports: for each run, simulator
# events, events per second, wall and CPU time, and peak memory.
# Needs GNU time (Debian: apt-get install time) and python3.
#
#   bash scripts/performance.sh            # every row (about ten minutes on two cores)
#   bash scripts/performance.sh folded     # only the NPU-count series
#   bash scripts/performance.sh full       # only runs that cannot fold (every NPU simulated; about an hour)
set -euo pipefail
cd "$(dirname "$0")/.."
go build -o /tmp/acemu-perf ./cmd/acemu
astra=testdata/astrasim
row() { # label, then acemu's arguments
	local label=$1
	shift
	/usr/bin/time -f '%e %U %M' -o /tmp/acemu-perf.time /tmp/acemu-perf "$@" --format json >/tmp/acemu-perf.json
	read -r wall user rss </tmp/acemu-perf.time
	events=$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(r.get("events", 0) + sum(s["events"] for s in r.get("systems", [])))' /tmp/acemu-perf.json)
	python3 -c 'import sys; l,e,w,u,r=sys.argv[1:]; e=int(e); w=float(w); print(f"| {l} | {e/1e6:.1f} M | {e/max(w,0.01)/1e6:.1f} M | {w:.2f} s | {float(u):.2f} s | {int(r)/1024:.0f} MB |")' \
		"$label" "$events" "$wall" "$user" "$rss"
}
echo "| run | events | events/s | wall | CPU | peak memory |"
echo "|---|---|---|---|---|---|"
if [ "${1:-}" = full ]; then
	# Runs where one NPU cannot stand for all (cmd/acemu's BenchmarkNonFoldable).
	for s in ideal baseline-commopt ace; do
		row "ASTRA-sim ResNet-50, 4x8x4, $s, --full, 1 iteration" --workload $astra/Resnet50_DataParallel.txt --topo 4x8x4 --systems $s --full --iterations 1
	done
	for s in ideal baseline-commopt ace; do
		row "all-reduce 1 MiB, switch:32x32 (1024 NPUs), $s" collective --topo switch:32x32 --system $s --size 1MiB
	done
	row "ResNet-50, dgx1, five systems" --topo dgx1 --other-regime=false
	row "ASTRA-sim Transformer (hybrid), 4x2x2, ideal, --full, 1 iteration" --workload $astra/Transformer_HybridParallel.txt --topo 4x2x2 --systems ideal --full --iterations 1
	exit 0
fi
if [ "${1:-}" != folded ]; then
	row "main job (ResNet-50, 4x8x4, five systems)" --workload resnet50 --topo 4x8x4
	row "GNMT, 4x2x2, five systems" --workload gnmt --topo 4x2x2
	row "DLRM, 4x2x2, five systems" --workload dlrm --topo 4x2x2
	row "GNMT, 4x8x4, five systems" --workload gnmt --topo 4x8x4
	row "DLRM, 4x8x4, five systems" --workload dlrm --topo 4x8x4
	row "ASTRA-sim ResNet-50, 4x2x2, ideal, --full" --workload $astra/Resnet50_DataParallel.txt --topo 4x2x2 --systems ideal --full
	row "ASTRA-sim ResNet-50, 4x8x4, ideal, --full" --workload $astra/Resnet50_DataParallel.txt --topo 4x8x4 --systems ideal --full
	row "ASTRA-sim ResNet-50, 4x8x4, ideal, --full, 1 iteration" --workload $astra/Resnet50_DataParallel.txt --topo 4x8x4 --systems ideal --full --iterations 1
	row "ASTRA-sim ResNet-50, 4x8x4, ideal, 4 iterations" --workload $astra/Resnet50_DataParallel.txt --topo 4x8x4 --systems ideal --iterations 4
fi
for t in 4x2x2 4x4x4 4x8x4 8x8x8 8x16x16 16x16x16 16x32x32 16x64x64; do
	row "ResNet-50, ideal, 1 iteration, $t (folded)" --workload resnet50 --topo $t --systems ideal --iterations 1
done
for t in 4x8x4 16x16x16 16x64x64; do
	row "ResNet-50, five systems, $t (folded)" --workload resnet50 --topo $t
done
