#!/usr/bin/env bash
# Times two acemu binaries on the same run, one at a time, alternated, so
# that both see the machine's slow and fast spells alike
# (docs/performance.md, "How to measure"), and checks that they print
# the same. Needs GNU time (Debian: apt-get install time).
#
#   bash scripts/alternate.sh OLD NEW [ROUNDS [acemu arguments…]]
#
# The default run is the --full target: ASTRA-sim's ResNet-50 on 4x8x4,
# ideal endpoint, two iterations; three rounds.
set -euo pipefail
if [ $# -lt 2 ]; then
	echo "usage: bash scripts/alternate.sh OLD NEW [ROUNDS [acemu arguments…]]" >&2
	exit 2
fi
abs() { if [ -e "$1" ]; then realpath "$1"; else command -v "$1"; fi; }
old=$(abs "$1") new=$(abs "$2")
rounds=${3:-3}
shift $(($# < 3 ? $# : 3))
cd "$(dirname "$0")/.."
args=("$@")
if [ ${#args[@]} -eq 0 ]; then
	args=(--workload testdata/astrasim/Resnet50_DataParallel.txt --topo 4x8x4 --systems ideal --full)
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for ((i = 1; i <= rounds; i++)); do
	for b in old new; do
		bin=$old
		[ $b = new ] && bin=$new
		/usr/bin/time -f "$b %e s wall, %U s user, %M KB" -o "$out/time" "$bin" "${args[@]}" >"$out/$b.out"
		cat "$out/time"
	done
	if ! cmp -s "$out/old.out" "$out/new.out"; then
		echo "the two binaries print different output" >&2
		exit 1
	fi
done
