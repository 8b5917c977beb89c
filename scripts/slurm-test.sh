#!/usr/bin/env bash
# A sweep on a real Slurm cluster: start a one-node cluster (Debian's
# slurm-wlm and munge, installed if missing and this runs as root), submit
# docs/slurm/sweep.sbatch as a job array of 3 shards, merge the shards and
# require the merge to equal the unsharded sweep byte for byte.
#
#   bash scripts/slurm-test.sh          # exit 0: passed or skipped (says which)
#
# When Slurm cannot be installed or started here, it says so plainly and
# exits 0 with SKIPPED, so that CI on a machine without it goes on; any
# difference between the merge and the unsharded run exits 1.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

skip() {
	echo "slurm-test: SKIPPED: $*"
	exit 0
}

if ! command -v slurmctld >/dev/null || ! command -v munged >/dev/null; then
	if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
		skip "slurm-wlm and munge are not installed, and this is not root with apt-get to install them"
	fi
	echo "slurm-test: installing slurm-wlm and munge from Debian's packages"
	if ! DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends slurm-wlm munge >/tmp/acemu-slurm-apt.log 2>&1; then
		(apt-get update >/dev/null 2>&1 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends slurm-wlm munge >>/tmp/acemu-slurm-apt.log 2>&1) ||
			skip "apt-get install slurm-wlm munge failed (log: /tmp/acemu-slurm-apt.log)"
	fi
fi
[ "$(id -u)" = 0 ] || skip "starting slurmd needs root here"

work=$(mktemp -d /tmp/acemu-slurm.XXXXXX)
host=$(hostname -s)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
}
trap cleanup EXIT

# munge: a key and a daemon of our own, on our own socket.
mkdir -p "$work/munge" "$work/state" "$work/spool" "$work/log"
chmod 700 "$work/munge"
dd if=/dev/urandom of="$work/munge/munge.key" bs=1024 count=1 status=none
chmod 400 "$work/munge/munge.key"
munged --force --key-file="$work/munge/munge.key" --socket="$work/munge/munge.sock" \
	--pid-file="$work/munge/munged.pid" --log-file="$work/log/munged.log" --seed-file="$work/munge/seed" ||
	skip "munged would not start (log: $work/log/munged.log)"
pids+=("$(cat "$work/munge/munged.pid")")

cpus=$(nproc)
cat >"$work/slurm.conf" <<EOF
ClusterName=acemu-test
SlurmctldHost=$host
SlurmctldPort=16817
SlurmdPort=16818
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$work/munge/munge.sock
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/log/slurmctld.log
SlurmdLogFile=$work/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
ReturnToService=2
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/backfill
NodeName=$host CPUs=$cpus State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF="$work/slurm.conf"
slurmctld -D -f "$SLURM_CONF" >"$work/log/slurmctld.out" 2>&1 &
pids+=($!)
slurmd -D -f "$SLURM_CONF" >"$work/log/slurmd.out" 2>&1 &
pids+=($!)
for _ in $(seq 60); do
	sinfo -h -o %t 2>/dev/null | grep -qE '^(idle|mix|alloc)' && break
	sleep 1
done
sinfo -h -o %t 2>/dev/null | grep -qE '^(idle|mix|alloc)' ||
	skip "the one-node cluster did not come up in 60 s (logs in $work/log: $(tail -n 3 "$work/log/slurmctld.log" "$work/log/slurmd.log" 2>/dev/null | tr '\n' ' '))"
echo "slurm-test: cluster up: $(sinfo -h -o '%P %D node(s) %c CPUs %t') ($(slurmctld -V))"

# The sweep: 2 × 2 design points × 2 topologies, ACE and the ideal system.
go build -o "$work/acemu" ./cmd/acemu || exit 1
SWEEP="--set ace.sram=2MiB,4MiB --set ace.fsms=8,16 --set training.iterations=1 --workload dlrm --topo 4x2x2,4x4x2 --systems ace,ideal"
job=$(SHARDS=3 ACEMU="$work/acemu" OUT="$work/out" SWEEP="$SWEEP" sbatch --parsable --wait --array=0-2 --cpus-per-task=1 \
	--chdir="$root" --output="$work/log/task-%a.log" docs/slurm/sweep.sbatch)
rc=$?
echo "slurm-test: job array $job finished (sbatch --wait exit $rc)"
cat "$work"/log/task-*.log
[ $rc = 0 ] || { echo "slurm-test: FAILED: the job array failed"; exit 1; }
# A task resubmitted alone (as after a failure) runs only what is missing.
rm "$(ls "$work"/out/shard-1/points/*.json | head -n 1)"
SHARDS=3 ACEMU="$work/acemu" OUT="$work/out" SWEEP="$SWEEP" sbatch --parsable --wait --array=1 --cpus-per-task=1 \
	--chdir="$root" --output="$work/log/again-%a.log" docs/slurm/sweep.sbatch >/dev/null || { echo "slurm-test: FAILED: the resubmitted task"; cat "$work"/log/again-*.log; exit 1; }
cat "$work"/log/again-*.log
grep -q "(1 run now, 2 kept from before)" "$work"/log/again-1.log || { echo "slurm-test: FAILED: the resubmitted task did not run exactly its missing point"; exit 1; }
for f in csv json; do
	"$work/acemu" sweep merge "$work"/out/shard-* --format $f >"$work/merged.$f" || { echo "slurm-test: FAILED: merge"; exit 1; }
	# shellcheck disable=SC2086
	"$work/acemu" sweep $SWEEP --format $f >"$work/whole.$f" || { echo "slurm-test: FAILED: the unsharded sweep"; exit 1; }
done
if cmp "$work/merged.csv" "$work/whole.csv" && cmp "$work/merged.json" "$work/whole.json"; then
	echo "slurm-test: PASSED: the 3 shards of job $job merged equal the unsharded sweep byte for byte (CSV: $(($(wc -l <"$work/whole.csv") - 1)) rows, $(wc -c <"$work/whole.csv") bytes; JSON with the aggregate: $(wc -c <"$work/whole.json") bytes)"
	"$work/acemu" sweep merge "$work"/out/shard-* | tail -n 12
	rm -rf "$work"
	exit 0
fi
echo "slurm-test: FAILED: the merged shards differ from the unsharded sweep (kept in $work)"
diff "$work/merged.csv" "$work/whole.csv" | head -20
exit 1
