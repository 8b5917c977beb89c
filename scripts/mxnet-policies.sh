#!/usr/bin/env bash
# The MXNet-MPI paper's issue policies as acemu sees them (docs/validation.md,
# "Issue policies: the MXNet-MPI paper's designs"): ResNet-50 in the paper's
# regime on 8 to 256 NPUs, eager, funnel, concum:2 and depcha, without copies
# and with each gradient copied within the NPU's memory (450 GB/s: 900 GB/s
# read and written), at compute speed 1 and 49 (a CIFAR-like job: 224²/32²
# = 49 times less compute per image); then, on 4x4x4, the copy rate swept.
# Prints Markdown tables of the mean iteration in ms. Needs python3; about
# 5 minutes on two cores.
#
#   bash scripts/mxnet-policies.sh
set -euo pipefail
cd "$(dirname "$0")/.."
go build -o /tmp/acemu-mx ./cmd/acemu
run() { # speed topo copy policy
	local args=(--topo "$2" --workload resnet50 --systems baseline-commopt,ace --other-regime=false --policy "$4" --format csv --set "npu.compute_speed=$1")
	[ "$3" != none ] && args+=(--copy-bw "$3")
	/tmp/acemu-mx "${args[@]}" | awk -F, -v k="$1 $2 $3 $4" 'NR>1{print k, $1, $4}'
}
{
	for speed in 1 49; do
		for topo in 2x2x2 4x2x2 4x4x2 4x4x4 4x8x4 4x8x8; do
			run "$speed" "$topo" none eager
			for copy in none 450GB/s; do
				for pol in funnel concum depcha; do run "$speed" "$topo" "$copy" "$pol"; done
			done
		done
	done
	for copy in 100GB/s 25GB/s 12GB/s; do
		for pol in funnel concum depcha; do run 1 4x4x4 "$copy" "$pol"; done
	done
} >/tmp/acemu-mx.txt
python3 - <<'PY'
rows = {}
for line in open("/tmp/acemu-mx.txt"):
    speed, topo, copy, pol, system, cycles = line.split()
    rows[speed, topo, copy, pol, system] = int(cycles) / 1245e3
npus = {"2x2x2": 8, "4x2x2": 16, "4x4x2": 32, "4x4x4": 64, "4x8x4": 128, "4x8x8": 256}
cols = [("none", "eager"), ("none", "funnel"), ("none", "concum"), ("none", "depcha"),
        ("450GB/s", "funnel"), ("450GB/s", "concum"), ("450GB/s", "depcha")]
for speed in ("1", "49"):
    for system in ("baseline-commopt", "ace"):
        print(f"\ncompute speed {speed}, {system}: ms per iteration")
        print("| NPUs | eager | funnel | concum:2 | depcha | funnel, copies | concum:2, copies | depcha, copies |")
        print("|---|---|---|---|---|---|---|---|")
        for t, n in npus.items():
            print(f"| {n} | " + " | ".join(f"{rows[speed, t, c, p, system]:.3f}" for c, p in cols) + " |")
print("\n4x4x4, compute speed 1: ms per iteration, copies at each rate")
print("| copy | system | funnel | concum:2 | depcha |")
print("|---|---|---|---|---|")
for copy in ("450GB/s", "100GB/s", "25GB/s", "12GB/s"):
    for system in ("baseline-commopt", "ace"):
        print(f"| {copy} | {system} | " + " | ".join(f"{rows['1', '4x4x4', copy, p, system]:.3f}" for p in ("funnel", "concum", "depcha")) + " |")
PY
