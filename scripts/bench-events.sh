#!/usr/bin/env bash
# How an event scales: `random` against `random` at growing numbers of games, timed as whole
# processes with /usr/bin/time -v. Prints, per size, the median over RUNS runs of the wall time,
# games per second, time per game and peak memory (RSS).
#
#   scripts/bench-events.sh [RUNS]            (default 3 runs per size)
#
# Settings (environment):
#   SIZES="10000 100000 1000000"   games of the in-process runs
#   ISOLATED_SIZES="10000 100000"  games of the isolated runs ("" to skip them)
#   CONCURRENCY=2                  --concurrency
#   OUTPUTS=1                      also stream every game to --state, --out (GGF) and --json
#   ARGS="--sandbox off"           more options for every run
#   BUILD=0                        do not build first
set -euo pipefail
cd "$(dirname "$0")/.."

RUNS=${1:-3}
SIZES=${SIZES-"10000 100000 1000000"}
ISOLATED_SIZES=${ISOLATED_SIZES-"10000 100000"}
CONCURRENCY=${CONCURRENCY:-2}
OUTPUTS=${OUTPUTS:-0}
if [ "${BUILD:-1}" = 1 ]; then
    cargo build --release -p othello-cli -p bot-random >&2
fi
OTHELLO=$PWD/target/release/othello
[ -x /usr/bin/time ] || { echo "needs /usr/bin/time (apt-get install time)" >&2; exit 2; }

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# bench MODE GAMES: one line of figures.
bench() {
    local mode=$1 games=$2 walls=() rsss=()
    for ((run = 1; run <= RUNS; run++)); do
        rm -rf "$scratch/state" "$scratch/games.ggf"
        local args=(match random random --games "$games" --concurrency "$CONCURRENCY" --progress-interval 0)
        [ "$mode" = in-process ] && args+=(--in-process)
        # shellcheck disable=SC2206 # ARGS is split into words on purpose
        args+=(${ARGS:-})
        local out=/dev/null
        if [ "$OUTPUTS" = 1 ]; then
            args+=(--state "$scratch/state" --out "$scratch/games.ggf" --json)
            out=$scratch/games.json
        fi
        /usr/bin/time -v -o "$scratch/time" "$OTHELLO" "${args[@]}" >"$out"
        walls+=("$(awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, t, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + t[i]; print s }' "$scratch/time")")
        rsss+=("$(awk -F': ' '/Maximum resident set size/ { print $2 }' "$scratch/time")")
    done
    local wall rss
    wall=$(printf '%s\n' "${walls[@]}" | median)
    rss=$(printf '%s\n' "${rsss[@]}" | median)
    awk -v mode="$mode" -v games="$games" -v wall="$wall" -v rss="$rss" -v walls="${walls[*]}" 'BEGIN {
        printf "%-10s %9d games  %8.2f s  %9.0f games/s  %7.2f us/game  %7.1f MB peak RSS   (walls: %s)\n",
            mode, games, wall, games / wall, wall / games * 1e6, rss / 1024, walls }'
}

echo "random vs random, --concurrency $CONCURRENCY ${ARGS:-}, outputs: $([ "$OUTPUTS" = 1 ] && echo 'state + GGF + JSON' || echo none), median of $RUNS runs, $(nproc) cores"
for games in $SIZES; do bench in-process "$games"; done
for games in $ISOLATED_SIZES; do bench isolated "$games"; done
