#!/usr/bin/env bash
# Reruns the LIBRA experiments of docs/validation.md ("LIBRA's baseline"):
# E1 and E2 (opt-in tests), E3 (the built-in data-parallel workloads and
# ASTRA-sim's ResNet-50 on 8 NPUs; e3c: the fixed allocations chained as
# LIBRA's, per layer and in 25 MB buckets) and E4 (ResNet-50 from 16 to
# 1024 NPUs),
# printing each comparison as JSON lines of name, back-propagation cycles
# (one iteration: from its start to the last all-reduce's end, LIBRA's
# backward time), iteration cycles and, for LIBRA's systems, the model's
# prediction and the groups (layers, SMs). Needs jq. Runs one thing at a time; about an hour on a shared
# 2-core machine.
#
#   bash scripts/libra-experiments.sh [e1|e2|e3|e3c|e4]…   (none: all)
set -euo pipefail
cd "$(dirname "$0")/.."
export GOFLAGS=-buildvcs=false
go build -o "${ACEMU_BIN:=/tmp/acemu-libra}" ./cmd/acemu
what=("$@")
[ ${#what[@]} -gt 0 ] || what=(e1 e2 e3 e3c e4)
row='.systems[] | {name, backprop: .backprop_pass_cycles, iteration: .iteration_cycles, predicted: .libra.predicted_backward_cycles, groups: (.libra.groups // [] | map([(.layers | length), .sms]))}'
for e in "${what[@]}"; do
	case $e in
	e1) ACEMU_LIBRA_E1=1 go test ./libra/measure -run TestE1ContentionSweep -v -count=1 -timeout 60m ;;
	e2) ACEMU_LIBRA_E2=1 go test ./compare -run TestE2BalanceSignFlip -v -count=1 -timeout 60m ;;
	e3)
		for w in resnet50 gnmt testdata/astrasim/Resnet50_DataParallel.txt; do
			echo "E3 $w, shared memory"
			"$ACEMU_BIN" --topo 2x2x2 --workload "$w" --iterations 1 --format json \
				--systems baseline-nooverlap,baseline-commopt,baseline-compopt,baseline-libra,baseline-libra-fusion,ace,ideal | jq -c "$row"
			echo "E3 $w, partition (contention-free baseline)"
			"$ACEMU_BIN" --topo 2x2x2 --workload "$w" --iterations 1 --format json --memory-policy partition \
				--systems baseline-commopt,baseline-compopt | jq -c "$row"
		done
		;;
	e3c)
		for w in resnet50 gnmt; do
			for f in none 25000000; do
				echo "E3 $w, fixed allocations chained as LIBRA's (DepCha), fusion $f"
				"$ACEMU_BIN" --topo 2x2x2 --workload "$w" --iterations 1 --format json --policy depcha --fusion "$f" \
					--systems baseline-commopt,baseline-compopt,baseline-libra | jq -c "$row"
			done
		done
		;;
	e4)
		for t in 4x2x2 4x4x4 4x8x4 8x8x8 8x16x8; do
			echo "E4 resnet50 on $t"
			"$ACEMU_BIN" --topo "$t" --workload resnet50 --iterations 1 --format json \
				--systems baseline-commopt,baseline-libra,baseline-libra-fusion,ace,ideal | jq -c "$row"
		done
		;;
	*) echo "usage: bash scripts/libra-experiments.sh [e1|e2|e3|e3c|e4]…" >&2; exit 2 ;;
	esac
done
