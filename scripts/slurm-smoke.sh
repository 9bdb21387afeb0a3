#!/usr/bin/env bash
# Tries the manual's Slurm recipe (book/src/large-events.md) on a one-node Slurm on this machine: starts munge, slurmctld
# and slurmd on localhost (Debian's slurm-wlm), submits an event as a job array of N shards and a
# merge job that waits for them (--dependency=afterok), checks the merge against the same event
# played in one process, prints the times, and stops the daemons it started.
#
#   sudo apt-get install slurm-wlm munge     (once; the script needs root to run the daemons)
#   scripts/slurm-smoke.sh [SHARDS] [GAMES]  (default 4 shards, 100000 games; BUILD=0: no build)
#
# CI does not run it. Nothing outside a scratch folder is changed, except that munge gets a key
# in /etc/munge if it has none.
set -euo pipefail
cd "$(dirname "$0")/.."

SHARDS=${1:-4}
GAMES=${2:-100000}
ROOT=$PWD
OTHELLO=$ROOT/target/release/othello
for tool in slurmctld slurmd sbatch munged; do
    command -v "$tool" >/dev/null || { echo "needs $tool: apt-get install slurm-wlm munge" >&2; exit 2; }
done
[ "$(id -u)" = 0 ] || { echo "run as root (it starts slurmctld, slurmd and munged)" >&2; exit 2; }
[ "${BUILD:-1}" = 1 ] && cargo build --release -p othello-cli -p bot-random >&2

work=$(mktemp -d /tmp/othello-slurm.XXXXXX)
chmod 755 "$work"
export SLURM_CONF=$work/slurm.conf
started=()
cleanup() {
    for pid in "${started[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${started[@]}"; do while kill -0 "$pid" 2>/dev/null; do sleep 0.1; done; done
    echo "daemons stopped; scratch folder kept: $work"
}
trap cleanup EXIT

# munge: the key Slurm's daemons and commands authenticate with.
if [ ! -s /etc/munge/munge.key ]; then
    mkdir -p /etc/munge && dd if=/dev/urandom bs=1 count=1024 of=/etc/munge/munge.key status=none
    chown munge:munge /etc/munge/munge.key 2>/dev/null || true
    chmod 400 /etc/munge/munge.key
fi
if ! pgrep -x munged >/dev/null; then
    mkdir -p /run/munge && chown munge:munge /run/munge 2>/dev/null || true
    runuser -u munge -- munged --force 2>/dev/null || munged --force
fi

node=$(hostname -s)
# The node as slurmd sees it (CPUs, sockets, memory), so slurmd accepts its own line.
node_line=$(slurmd -C | head -1)
mkdir -p "$work/state" "$work/spool"
cat >"$SLURM_CONF" <<CONF
ClusterName=othello-smoke
SlurmctldHost=$node
SlurmUser=root
AuthType=auth/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
ReturnToService=2
MpiDefault=none
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd.log
$node_line
PartitionName=smoke Nodes=$node Default=YES MaxTime=INFINITE State=UP
CONF

slurmctld -D -i >"$work/slurmctld.out" 2>&1 &
started+=($!)
slurmd -D >"$work/slurmd.out" 2>&1 &
started+=($!)
for _ in $(seq 100); do
    sinfo -h -o %T 2>/dev/null | grep -q idle && break
    sleep 0.2
done
sinfo

# The recipe (book/src/large-events.md): one shard per array task, then the merge.
cd "$work"
cat >shards.sbatch <<JOB
#!/bin/bash
#SBATCH --job-name=othello-shards
#SBATCH --array=0-$((SHARDS - 1))
#SBATCH --cpus-per-task=1
#SBATCH --output=shard-%a.log
set -e
dir=shards/\$SLURM_ARRAY_TASK_ID
# A requeued task continues its shard instead of starting it over.
[ -e "\$dir/event.json" ] && resume=--resume || resume=
exec $OTHELLO match random random --in-process --games $GAMES --openings random:8 --seed 7 \\
    --shard \$SLURM_ARRAY_TASK_ID/\$SLURM_ARRAY_TASK_COUNT --state "\$dir" \$resume --progress-interval 5
JOB
export OTHELLO_SEED=42 # the random bots play the same game from the same opening: comparable runs
start=$(date +%s.%N)
array=$(sbatch --parsable shards.sbatch)
merge=$(sbatch --parsable --dependency=afterok:"$array" --job-name=othello-merge --output=merge.log \
    --wrap "$OTHELLO merge event shards/* --out event.ggf")
echo "submitted shards $array (array 0-$((SHARDS - 1))) and merge $merge (afterok)"
while squeue -h -j "$array,$merge" 2>/dev/null | grep -q .; do sleep 0.5; done
end=$(date +%s.%N)
cat merge.log

single_start=$(date +%s.%N)
$OTHELLO match random random --in-process --games "$GAMES" --openings random:8 --seed 7 --progress-interval 0 >single.txt
single_end=$(date +%s.%N)
report() { sed -n '/games played/,$p' "$1" | grep -v -e '^Games written' -e '^$'; }
if diff <(report merge.log) <(report single.txt); then
    echo "OK: the merge of $SHARDS shards equals the single run"
else
    echo "MISMATCH between the merge and the single run" >&2
    exit 1
fi
awk -v a="$start" -v b="$end" -v c="$single_start" -v d="$single_end" -v g="$GAMES" -v n="$SHARDS" 'BEGIN {
    printf "Slurm: %d games in %d shards, submit to merged: %.2f s (%.0f games/s)\n", g, n, b - a, g / (b - a)
    printf "one process (--concurrency 1): %.2f s (%.0f games/s)\n", d - c, g / (d - c) }'
